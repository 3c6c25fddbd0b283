"""An empty, comments-only or deleted overrides file on a running processor: refused alike, the last good kept.

Only a file that says so (``overrides: []``) removes every override of a running
processor.  At start there is nothing to keep: an empty file, like a missing one
allowed to be missing, means no overrides.
"""

from __future__ import annotations

import datetime as dt

import pytest
from structlog.testing import capture_logs
from test_overrides_reload import BAD, V1, V2, Events, FakeClock, configmap

from consumer.app import App
from consumer.kafka import KafkaConnection
from consumer.overrides import parse_overrides
from consumer.settings import Settings

from overrides_samples import document, entry

#: Files that hold no 'overrides:' list: what a truncated edit or an empty template render leaves.
NO_LIST = {
    "empty": "",
    "blank lines": "\n\n",
    "comments only": "# crawl-decoder: per-host encoding overrides.\n#\n# Copy this file, edit it...\n",
    "cut after 'overrides:'": "settings:\n  expired: apply\n\noverrides:\n",
    "settings only": "settings:\n  expired: ignore\n",
    "an empty document": "---\n",
}
#: Files that say "no overrides".
NONE_MEANT = {
    "overrides: []": "overrides: []\n",
    "with settings, as the chart renders it": "settings:\n  expired: apply\noverrides: []\n",
    "a comment and []": "# nothing to override any more\noverrides: []  # CRAWL-1423 closed\n",
}


@pytest.fixture
def events() -> Events:
    return Events()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def _lines(error) -> list[str]:
    return str(error).splitlines()


class TestLoader:
    @pytest.mark.parametrize("text", NO_LIST.values(), ids=NO_LIST.keys())
    def test_no_list_is_valid_but_noted(self, text):
        config = parse_overrides(text, "f.yaml")
        assert len(config) == 0 and not config.has_list
        assert len(config.notes) == 1
        note = config.notes[0]
        assert note.line is None and note.message.startswith("note: no 'overrides:' list")
        assert "write 'overrides: []'" in note.message

    @pytest.mark.parametrize("text", NONE_MEANT.values(), ids=NONE_MEANT.keys())
    def test_an_empty_list_says_no_overrides(self, text):
        config = parse_overrides(text, "f.yaml")
        assert len(config) == 0 and config.has_list and config.notes == ()

    def test_a_file_with_entries_has_a_list(self):
        assert parse_overrides(document(entry())).has_list


class TestValidate:
    def test_an_empty_file_passes_with_a_note_on_stderr(self, cli, write):
        path = write("# only comments\n")
        status, out, err = cli("validate", str(path))
        assert status == 0 and "valid: 0 override(s)" in out
        assert err.startswith(f"{path}: note: no 'overrides:' list") and "a running processor refuses it" in err

    def test_an_empty_list_passes_without_a_note(self, cli, write):
        status, out, err = cli("validate", str(write("overrides: []\n")))
        assert (status, err) == (0, "") and "valid: 0 override(s)" in out


class TestLive:
    @pytest.mark.parametrize("text", NO_LIST.values(), ids=NO_LIST.keys())
    def test_a_file_without_a_list_is_refused_once_and_the_last_good_kept(self, write, events, clock, text):
        path = write(V1)
        watcher = events.watch(path, clock=clock, recheck_every=10)
        good = watcher.current
        write(text)
        for _ in range(3):
            assert watcher.check() is False
            clock.now += 11  # re-read each time: the same refused content is reported once
        assert watcher.current is good and len(watcher.current) == 1
        assert watcher.rejected
        assert events.reloads == []
        assert len(events.rejections) == 1
        assert _lines(events.rejections[0]) == [
            (f"{path}: no 'overrides:' list: the file is empty, holds only comments or stops at 'overrides:'"
             " (a truncated edit or an empty template render?)"),
            f"{path}: refused; keeping the last good overrides (sha256 {good.digest[:12]})",
            f"{path}: to remove every override, write 'overrides: []'",
        ]

    @pytest.mark.parametrize("text", NONE_MEANT.values(), ids=NONE_MEANT.keys())
    def test_an_empty_list_removes_every_override(self, write, events, text):
        path = write(V2)
        watcher = events.watch(path)
        old = watcher.current
        write(text)
        assert watcher.check() is True
        assert len(watcher.current) == 0 and watcher.current.table.lookup("second.example") is None
        assert not watcher.rejected
        assert events.reloads == [(watcher.current, old)] and events.rejections == []

    def test_emptied_and_deleted_are_the_same_refusal(self, write, events):
        path = write(V1)
        watcher = events.watch(path)
        good = watcher.current
        write("")
        watcher.check()
        emptied = events.rejections[-1]
        path.unlink()
        watcher.check()
        deleted = events.rejections[-1]
        assert len(events.rejections) == 2 and watcher.current is good and watcher.rejected
        # Only the first line, the why, differs; both keep the same table and give the same advice.
        assert _lines(emptied)[1:] == _lines(deleted)[1:]
        assert _lines(deleted)[0] == f"{path}: file not found"
        write(V1)  # put back as it was: the refusal is over, nothing to swap
        assert watcher.check() is False
        assert not watcher.rejected and events.restorations == [good] and events.reloads == []

    def test_a_truncated_edit_fixed_is_swapped_in(self, write, events):
        path = write(V1)
        watcher = events.watch(path)
        write("overrides:\n")
        watcher.check()
        write(V2)
        assert watcher.check() is True
        assert len(watcher.current) == 2 and not watcher.rejected

    def test_a_configmap_rendered_empty_is_refused(self, tmp_path, events):
        configmap(tmp_path, "v1", V1)
        watcher = events.watch(tmp_path / "overrides.yaml")
        good = watcher.current
        configmap(tmp_path, "v2", "")
        assert watcher.check() is False
        assert watcher.current is good and watcher.rejected
        assert "no 'overrides:' list" in str(events.rejections[0])


class TestAtStart:
    @pytest.mark.parametrize("allow_missing", [False, True])
    def test_an_empty_file_at_start_means_no_overrides(self, write, events, allow_missing):
        watcher = events.watch(write("# nothing yet\n"), allow_missing=allow_missing)
        assert len(watcher.current) == 0 and not watcher.rejected
        assert watcher.check() is False and events.rejections == []

    def test_started_empty_then_another_empty_file_is_refused(self, write, events):
        path = write("# nothing yet\n")
        watcher = events.watch(path)
        started = watcher.current
        write("# still nothing\n")
        assert watcher.check() is False
        assert watcher.rejected and len(events.rejections) == 1
        assert f"{path}: refused; keeping the last good overrides (sha256 {started.digest[:12]})" in _lines(
            events.rejections[0])
        write("# nothing yet\n")
        watcher.check()
        assert not watcher.rejected and events.restorations == [started]

    def test_missing_at_start_then_an_empty_file_is_refused(self, tmp_path, events):
        path = tmp_path / "overrides.yaml"
        watcher = events.watch(path, allow_missing=True)
        absent = watcher.current
        path.write_text("")
        assert watcher.check() is False
        assert watcher.rejected and len(events.rejections) == 1
        assert f"{path}: refused; keeping the last good overrides (sha256 none)" in _lines(events.rejections[0])
        path.write_text("overrides: []\n")
        assert watcher.check() is True
        assert not watcher.rejected and watcher.current is not absent and watcher.current.has_list

    @pytest.mark.parametrize("text", ["", BAD], ids=["empty", "invalid"])
    def test_missing_at_start_refused_then_gone_again_is_as_at_start(self, tmp_path, events, text):
        # Nothing but "no file" was ever in force: the file going away again ends the refusal.
        path = tmp_path / "overrides.yaml"
        watcher = events.watch(path, allow_missing=True)
        absent = watcher.current
        path.write_text(text)
        watcher.check()
        assert watcher.rejected
        path.unlink()
        assert watcher.check() is False
        assert not watcher.rejected
        assert events.restorations == [absent] and len(events.rejections) == 1
        path.write_text(V1)
        assert watcher.check() is True and len(watcher.current) == 1

    def test_missing_at_start_then_loaded_then_deleted_is_refused(self, tmp_path, events):
        path = tmp_path / "overrides.yaml"
        watcher = events.watch(path, allow_missing=True)
        path.write_text(V1)
        watcher.check()
        loaded = watcher.current
        path.unlink()
        assert watcher.check() is False
        assert watcher.current is loaded and watcher.rejected
        assert _lines(events.rejections[0])[0] == f"{path}: file not found"


class TestProcessor:
    """The processor's own watcher and callbacks (App, built offline): metrics, log and table in force."""

    @pytest.fixture
    def app(self, write) -> App:
        settings = Settings(http_port=0, overrides_path=str(write(V1)), transactional_id="t")
        return App(settings, KafkaConnection("127.0.0.1:9"), today=lambda: dt.date(2026, 1, 1))

    @staticmethod
    def metrics(app: App) -> str:
        return app.metrics.render()[0].decode()

    @pytest.mark.parametrize("how", ["emptied", "comments only", "deleted"])
    def test_refused_with_the_metric_and_an_error_log_and_the_table_kept(self, app, write, how):
        path = app.overrides.path
        if how == "deleted":
            write("").unlink()
        else:
            write("" if how == "emptied" else "# overrides.yaml\n# (render failed)\n")
        with capture_logs() as logs:
            assert app.overrides.check() is False
        assert app._table.lookup("www.example.com") is not None
        metrics = self.metrics(app)
        assert "crawl_decoder_overrides_config_valid 0.0" in metrics
        assert 'crawl_decoder_overrides_reloads_total{result="rejected"} 1.0' in metrics
        assert "crawl_decoder_overrides_loaded 1.0" in metrics
        [refused] = [log for log in logs if log["event"].startswith("overrides file refused")]
        assert refused["log_level"] == "error"
        why = "file not found" if how == "deleted" else "no 'overrides:' list"
        assert f"{path}: {why}" in refused["error"]
        assert f"{path}: to remove every override, write 'overrides: []'" in refused["error"]

    def test_an_empty_list_is_applied(self, app, write):
        write("overrides: []\n")
        assert app.overrides.check() is True
        assert app._table.lookup("www.example.com") is None
        metrics = self.metrics(app)
        assert "crawl_decoder_overrides_config_valid 1.0" in metrics
        assert 'crawl_decoder_overrides_reloads_total{result="applied"} 1.0' in metrics
        assert "crawl_decoder_overrides_loaded 0.0" in metrics

