"""Hot reload: valid edits swapped in, invalid ones refused with the last good kept, ConfigMap symlink swaps seen."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from consumer.overrides import OverridesError, OverridesWatcher

from overrides_samples import document, entry

V1 = document(entry(encoding="utf-8"))
V2 = document(entry(encoding="shift_jis"), entry(host="second.example"))
BAD = document(entry(encoding="klingon"))
OTHER_BAD = document(entry(review_by="someday"))


class FakeClock:
    """Seconds that pass only when a test says so."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Events:
    """What the watcher reported through its callbacks."""

    def __init__(self) -> None:
        self.reloads: list = []
        self.rejections: list[OverridesError] = []
        self.restorations: list = []

    def watch(self, path: Path, **kwargs) -> OverridesWatcher:
        return OverridesWatcher(
            path,
            on_reload=lambda new, old: self.reloads.append((new, old)),
            on_rejected=self.rejections.append,
            on_restored=self.restorations.append,
            **kwargs,
        )


@pytest.fixture
def events() -> Events:
    return Events()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def test_loads_at_start(write, events):
    watcher = events.watch(write(V1))
    assert watcher.current.overrides[0].encoding == "UTF-8"
    assert not watcher.rejected


def test_unchanged_file_is_not_reloaded(write, events, clock):
    watcher = events.watch(write(V1), clock=clock, recheck_every=60)
    first = watcher.current
    assert watcher.check() is False
    clock.now = 61  # past the interval the content is re-read, and found the same
    assert watcher.check() is False
    assert watcher.current is first
    assert events.reloads == [] and events.rejections == []


def test_valid_edit_is_swapped_in(write, events):
    path = write(V1)
    watcher = events.watch(path)
    old = watcher.current
    write(V2)
    assert watcher.check() is True
    assert watcher.current.overrides[0].encoding == "Shift_JIS"
    assert len(watcher.current) == 2
    assert events.reloads == [(watcher.current, old)]
    assert watcher.check() is False


def test_invalid_edit_is_refused_and_reported_once(write, events, clock):
    path = write(V1)
    watcher = events.watch(path, clock=clock, recheck_every=10)
    good = watcher.current
    write(BAD)
    for _ in range(3):
        assert watcher.check() is False
        clock.now += 11  # force a re-read each time: the same bad content must not be reported again
    assert watcher.current is good
    assert watcher.rejected
    assert len(events.rejections) == 1
    message = str(events.rejections[0])
    assert f"{path}:3: unknown encoding label 'klingon'" in message
    assert "keeping the last good overrides" in message


def test_each_distinct_bad_content_is_reported(write, events):
    path = write(V1)
    watcher = events.watch(path)
    write(BAD)
    watcher.check()
    write(OTHER_BAD)
    watcher.check()
    assert [str(error).splitlines()[0] for error in events.rejections] == [
        f"{path}:3: unknown encoding label 'klingon' (labels: https://encoding.spec.whatwg.org/#names-and-labels)",
        f"{path}:6: review_by must be a date written YYYY-MM-DD, not 'someday'",
    ]


def test_fixed_file_after_a_refusal_is_swapped_in(write, events):
    path = write(V1)
    watcher = events.watch(path)
    write(BAD)
    watcher.check()
    write(V2)
    assert watcher.check() is True
    assert not watcher.rejected
    assert len(watcher.current) == 2


def test_reverting_to_the_live_content_clears_the_refusal(write, events):
    path = write(V1)
    watcher = events.watch(path)
    good = watcher.current
    write(BAD)
    watcher.check()
    write(V1 + "\n")  # same overrides, but any edit: different bytes
    assert watcher.check() is True
    write(V1)
    assert watcher.check() is True
    assert watcher.current.digest == good.digest
    assert not watcher.rejected


def test_reverting_byte_for_byte_ends_the_refusal_without_a_reload(write, events):
    # A git revert or a helm rollback: the file is again exactly what is in force. Nothing to swap,
    # but whoever was told of the refusal (the config_valid gauge, its alert) must hear it is over.
    path = write(V1)
    watcher = events.watch(path)
    good = watcher.current
    write(BAD)
    watcher.check()
    assert watcher.rejected
    write(V1)
    assert watcher.check() is False
    assert not watcher.rejected
    assert events.restorations == [good]
    assert events.reloads == []
    write(V1 + "\n")  # a later edit is an ordinary reload, not another restoration
    assert watcher.check() is True
    assert events.restorations == [good]


def test_a_refusal_restored_is_reported_again_when_it_comes_back(write, events):
    path = write(V1)
    watcher = events.watch(path)
    for _ in range(2):
        write(BAD)
        watcher.check()
        write(V1)
        watcher.check()
    assert len(events.rejections) == 2
    assert len(events.restorations) == 2


def test_in_place_edit_hidden_from_stat_is_found_by_digest(write, events, clock):
    # Same inode, same size and mtime restored: only the content check can see it.
    path = write(V1)
    before = os.stat(path)
    watcher = events.watch(path, clock=clock, recheck_every=30)
    edited = V1.replace("2027-01-31", "2027-01-30")
    assert len(edited) == len(V1)
    with open(path, "r+") as file:
        file.write(edited)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_ino == before.st_ino
    assert watcher.check() is False  # stat alone cannot tell
    clock.now = 31
    assert watcher.check() is True
    assert str(watcher.current.overrides[0].review_by) == "2027-01-30"


def configmap(directory: Path, version: str, text: str) -> None:
    """Publish *text* as Kubernetes does: a new timestamped directory, then re-point ``..data`` atomically."""
    target = directory / f"..{version}"
    target.mkdir()
    (target / "overrides.yaml").write_text(text)
    link = directory / "..data_tmp"
    link.symlink_to(target.name)
    old = os.readlink(directory / "..data") if (directory / "..data").is_symlink() else None
    os.replace(link, directory / "..data")
    if old is not None:
        shutil.rmtree(directory / old)
    if not (directory / "overrides.yaml").is_symlink():
        (directory / "overrides.yaml").symlink_to("..data/overrides.yaml")


def test_configmap_symlink_swap_is_seen(tmp_path, events):
    configmap(tmp_path, "2027_01_01_v1", V1)
    path = tmp_path / "overrides.yaml"
    watcher = events.watch(path)
    # Same size and mtime as v1, so only the resolved path, the inode and the content differ.
    text = V1.replace("utf-8", "cp866")
    assert len(text) == len(V1)
    before = os.stat(path)
    configmap(tmp_path, "2027_01_02_v2", text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert watcher.check() is True
    assert watcher.current.overrides[0].encoding == "IBM866"


def test_configmap_swap_to_an_invalid_file_is_refused(tmp_path, events):
    configmap(tmp_path, "v1", V1)
    watcher = events.watch(tmp_path / "overrides.yaml")
    good = watcher.current
    configmap(tmp_path, "v2", BAD)
    assert watcher.check() is False
    assert watcher.current is good
    assert len(events.rejections) == 1


def test_deleted_file_keeps_the_last_good_and_says_so_once(write, events, clock):
    path = write(V1)
    watcher = events.watch(path, clock=clock, recheck_every=10)
    good = watcher.current
    path.unlink()
    for _ in range(3):
        assert watcher.check() is False
        clock.now += 11
    assert watcher.current is good
    assert watcher.rejected
    assert [str(error) for error in events.rejections] == [
        (
            f"{path}: file not found\n{path}: refused; keeping the last good overrides (sha256 {good.digest[:12]})\n"
            f"{path}: to remove every override, write 'overrides: []'"
        )
    ]
    write(V2)
    assert watcher.check() is True
    assert not watcher.rejected


def test_missing_at_start_is_an_error(tmp_path):
    with pytest.raises(OverridesError, match="file not found"):
        OverridesWatcher(tmp_path / "overrides.yaml")


def test_invalid_at_start_is_an_error(write):
    with pytest.raises(OverridesError, match="unknown encoding label"):
        OverridesWatcher(write(BAD))


def test_allowed_to_be_missing_means_no_overrides_until_it_appears(tmp_path, events, clock):
    path = tmp_path / "overrides.yaml"
    watcher = events.watch(path, allow_missing=True, clock=clock, recheck_every=10)
    assert len(watcher.current) == 0
    clock.now = 11
    assert watcher.check() is False
    assert events.rejections == [] and not watcher.rejected
    path.write_text(V1)
    assert watcher.check() is True
    assert len(watcher.current) == 1
