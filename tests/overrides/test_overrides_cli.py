"""``crawl-decoder overrides validate|due|report``: exit codes and output."""

from __future__ import annotations

import json

import pytest

from overrides_samples import SHIPPED, document, entry


class TestValidate:
    def test_shipped_example(self, cli):
        status, out, err = cli("validate", str(SHIPPED))
        assert status == 0
        assert out.startswith(f"{SHIPPED}: valid: 2 override(s) (1 force, 1 fallback), expired: apply, sha256 ")
        assert out.count("\n") == 1 and err == ""

    def test_invalid_file_lists_every_problem(self, cli, write):
        path = write(document(entry(encoding="klingon"), entry(host="b.example", reason=None, reson="x")))
        status, out, err = cli("validate", str(path))
        assert status == 1 and out == ""
        assert err.splitlines() == [
            f"{path}:3: unknown encoding label 'klingon' (labels: https://encoding.spec.whatwg.org/#names-and-labels)",
            f"{path}:8: missing 'reason'",
            f"{path}:13: unknown key 'reson' (did you mean 'reason'?)",
        ]

    def test_missing_file(self, cli, tmp_path):
        status, _, err = cli("validate", str(tmp_path / "none.yaml"))
        assert status == 1
        assert err == f"{tmp_path / 'none.yaml'}: file not found\n"

    def test_notes_go_to_stderr_and_do_not_fail(self, cli, write):
        path = write(document(entry(encoding="iso-8859-1")))
        status, out, err = cli("validate", str(path))
        assert status == 0 and "valid: 1 override(s)" in out
        assert err == f"{path}:3: note: encoding label 'iso-8859-1' means windows-1252 (Encoding Standard)\n"

    def test_empty_file_is_valid(self, cli, write):
        status, out, _ = cli("validate", str(write("")))
        assert status == 0 and "valid: 0 override(s)" in out


DUE = document(
    entry(host="late.example", review_by="2027-02-01"),
    entry(host="soon.example", review_by="2027-03-20", owner=None, ticket="CRAWL-9"),
    entry(host="later.example", review_by="2027-06-01"),
)


class TestDue:
    def test_lists_overdue_then_due(self, cli, write):
        status, out, _ = cli("due", str(write(DUE)), "--today", "2027-03-01", "--within", "30d")
        assert status == 3  # something is overdue
        lines = [line.split() for line in out.splitlines()]
        assert lines[0] == ["STATUS", "REVIEW_BY", "HOST", "ENCODING", "MODE", "OWNER", "LINE"]
        assert lines[1] == ["OVERDUE", "2027-02-01", "late.example", "UTF-8", "force", "crawl-quality", "2"]
        assert lines[2] == ["due", "2027-03-20", "soon.example", "UTF-8", "force", "CRAWL-9", "8"]
        assert len(lines) == 3

    def test_only_due_soon_exits_0(self, cli, write):
        status, out, _ = cli("due", str(write(DUE)), "--today", "2027-01-20", "--within", "30d")
        assert status == 0
        assert [line.split()[:3] for line in out.splitlines()[1:]] == [["due", "2027-02-01", "late.example"]]

    def test_the_review_date_itself_is_due_not_overdue(self, cli, write):
        status, out, _ = cli("due", str(write(DUE)), "--today", "2027-02-01")
        assert status == 0 and out.splitlines()[1].split()[:3] == ["due", "2027-02-01", "late.example"]
        status, out, _ = cli("due", str(write(DUE)), "--today", "2027-02-02")
        assert status == 3 and out.splitlines()[1].split()[:3] == ["OVERDUE", "2027-02-01", "late.example"]

    def test_overdue_exits_3_even_when_expired_ones_are_ignored(self, cli, write):
        # expired: ignore stops applying it; it still needs someone to review it.
        path = write(document(entry(host="late.example", review_by="2027-02-01"),
                              settings="settings:\n  expired: ignore\n"))
        status, out, _ = cli("due", str(path), "--today", "2027-03-01")
        assert status == 3 and "OVERDUE" in out

    def test_missing_file_exits_1(self, cli, tmp_path):
        status, out, err = cli("due", str(tmp_path / "none.yaml"))
        assert (status, out) == (1, "")
        assert err == f"{tmp_path / 'none.yaml'}: file not found\n"

    def test_help_states_the_exit_statuses(self, cli, capsys):
        with pytest.raises(SystemExit) as exited:
            cli("due", "--help")
        assert exited.value.code == 0
        out = capsys.readouterr().out
        statuses = out[out.index("exit status:"):].splitlines()[1:]
        assert [line.split()[0] for line in statuses] == ["0", "1", "2", "3"]
        assert "overdue" in statuses[3]

    def test_window_in_weeks(self, cli, write):
        _, out, _ = cli("due", str(write(DUE)), "--today", "2027-03-01", "--within", "14w")
        assert "later.example" in out

    def test_nothing_due(self, cli, write):
        status, out, _ = cli("due", str(write(DUE)), "--today", "2026-01-01")
        assert status == 0
        assert out == "nothing due by 2026-01-31 (3 override(s))\n"

    def test_default_file_from_the_environment(self, cli, write, monkeypatch):
        monkeypatch.setenv("CRAWL_DECODER_OVERRIDES_PATH", str(write(DUE)))
        _, out, _ = cli("due", "--today", "2027-03-01")
        assert "late.example" in out

    def test_invalid_file(self, cli, write):
        status, _, err = cli("due", str(write(document(entry(mode="sometimes")))))
        assert status == 1 and ":4: mode must be one of" in err

    @pytest.mark.parametrize("argv", [["--within", "a month"], ["--today", "yesterday"]])
    def test_bad_arguments_are_usage_errors(self, cli, argv):
        with pytest.raises(SystemExit) as exited:
            cli("due", *argv)
        assert exited.value.code == 2


class TestReport:
    def records(self, tmp_path, records):
        path = tmp_path / "clean.jsonl"
        path.write_text("".join(json.dumps(record) + "\n" for record in records))
        return str(path)

    def test_from_jsonl(self, cli, write, tmp_path):
        config = write(document(entry(host="cdn.example.com", review_by="2027-01-31")))
        override = {"host": "cdn.example.com", "encoding": "UTF-8", "mode": "force", "reason": "r",
                    "review_by": "2027-01-31", "owner": "o", "shadow_encoding": "UTF-8", "shadow_agrees": True}
        records = self.records(tmp_path, [{"override": override}] * 3 + [{"override": None}])
        status, out, _ = cli("report", str(config), "--from-jsonl", records, "--today", "2027-03-01",
                             "--min-hits", "3")
        assert status == 0
        assert out.splitlines()[1].split() == ["cdn.example.com", "UTF-8", "force", "2027-01-31", "OVERDUE", "3",
                                               "100.0%", "of", "3", "no", "longer", "needed"]

    def test_needs_a_source(self, cli, write):
        with pytest.raises(SystemExit) as exited:
            cli("report", str(write(DUE)))
        assert exited.value.code == 2

    def test_bad_record_line(self, cli, write, tmp_path):
        records = tmp_path / "clean.jsonl"
        records.write_text('{"override": null}\n{not json\n')
        status, _, err = cli("report", str(write(DUE)), "--from-jsonl", str(records))
        assert status == 1
        assert err.startswith(f"{records}:2: not JSON")
