"""Appending suggested entries to an overrides file: validated first, the rest of the file kept, atomic."""

from __future__ import annotations

import pytest

from consumer.overrides import OverridesError, load_overrides
from consumer.overrides.append import append_entries
from consumer.overrides.suggest import entries_yaml

from overrides_samples import SHIPPED, document, entry

NEW = {"host": "cdn.shop.example.com", "encoding": "Shift_JIS", "mode": "force",
       "reason": "9 of 9 quarantined records decode cleanly as Shift_JIS", "review_by": "2027-03-05",
       "owner": "crawl-quality"}


#: A list whose "-" starts the line, followed by settings.
NOT_INDENTED = ("overrides:\n- host: a.example.com\n  encoding: utf-8\n  mode: force\n  reason: r\n"
                "  review_by: 2027-01-01\n  owner: o\nsettings:\n  expired: apply\n")


def hosts(path) -> list[str]:
    return [o.host for o in load_overrides(path).overrides]


@pytest.mark.parametrize(
    ("before", "expected_hosts"),
    [
        ("", ["cdn.shop.example.com"]),  # no file content at all: the list is written
        ("# comments only\n", ["cdn.shop.example.com"]),
        ("overrides: []\n", ["cdn.shop.example.com"]),
        ("overrides:\nsettings:\n  expired: ignore\n", ["cdn.shop.example.com"]),
        ("settings:\n  expired: ignore\n", ["cdn.shop.example.com"]),
        (document(entry("a.example.com")), ["a.example.com", "cdn.shop.example.com"]),
        (document(entry("a.example.com")).rstrip("\n"), ["a.example.com", "cdn.shop.example.com"]),  # no last newline
        (NOT_INDENTED, ["a.example.com", "cdn.shop.example.com"]),
    ],
)
def test_entries_are_appended_to_the_list_whatever_its_shape(write, before, expected_hosts):
    path = write(before)
    config = append_entries(path, [NEW])
    assert [o.host for o in config.overrides] == expected_hosts
    assert hosts(path) == expected_hosts


def test_the_shipped_file_keeps_every_byte_and_gains_the_entry(write):
    original = SHIPPED.read_text(encoding="utf-8")
    path = write(original)
    append_entries(path, [NEW])
    after = path.read_text(encoding="utf-8")
    assert after == original + entries_yaml([NEW])


def test_settings_after_the_list_are_kept(write):
    path = write(document(entry("a.example.com")) + "settings:\n  expired: ignore\n")
    config = append_entries(path, [NEW])
    assert config.expired.value == "ignore"
    assert hosts(path) == ["a.example.com", "cdn.shop.example.com"]


@pytest.mark.parametrize(
    ("before", "problem"),
    [
        (document(entry("cdn.shop.example.com", encoding="euc-jp")), "conflicting entries"),
        (document(entry("cdn.shop.example.com", encoding="shift_jis")), "duplicate host"),
        ("overrides:\n  - host: [\n", "not valid YAML"),  # invalid before: fixed by a person, not appended to
    ],
)
def test_a_result_that_would_not_validate_is_refused_and_the_file_left_alone(write, tmp_path, before, problem):
    path = write(before)
    with pytest.raises(OverridesError, match=problem):
        append_entries(path, [NEW])
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left


def test_an_entry_without_owner_is_refused(write):
    path = write("overrides: []\n")
    with pytest.raises(OverridesError, match="missing 'owner' or 'ticket'"):
        append_entries(path, [{k: v for k, v in NEW.items() if k != "owner"}])
    assert path.read_text() == "overrides: []\n"


def test_the_file_keeps_its_permissions(write):
    path = write("overrides: []\n")
    path.chmod(0o640)
    append_entries(path, [NEW])
    assert path.stat().st_mode & 0o777 == 0o640

