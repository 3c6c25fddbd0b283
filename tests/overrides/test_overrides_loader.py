"""Loading and validating overrides files: every problem named with its line, all of them at once."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib

import pytest

from consumer.decoding.overrides import Override, OverrideMode
from consumer.exceptions import ConfigError
from consumer.overrides import ExpiredPolicy, OverridesError, Problem, load_overrides, parse_overrides

from overrides_samples import SHIPPED, document, entry

# In document(entry(...)) the entry starts on line 2: host 2, encoding 3, mode 4,
# reason 5, review_by 6, owner 7; a second entry starts on line 8.


def problems(text: str | bytes) -> list[tuple[int | None, str]]:
    with pytest.raises(OverridesError) as caught:
        parse_overrides(text, "f.yaml")
    return [(problem.line, problem.message) for problem in caught.value.problems]


def only_problem(text: str | bytes) -> tuple[int | None, str]:
    found = problems(text)
    assert len(found) == 1, found
    return found[0]


class TestShippedExample:
    def test_validates(self):
        config = load_overrides(SHIPPED)
        assert len(config) >= 2
        assert config.notes == ()

    def test_has_the_documented_examples(self):
        config = load_overrides(SHIPPED)
        cdn = next(o for o in config.overrides if not o.is_pattern)
        assert (cdn.encoding, cdn.mode) == ("UTF-8", OverrideMode.FORCE)
        assert config.table.lookup("www.example.jp") == Override(
            "*.example.jp", "Shift_JIS", OverrideMode.FALLBACK, config.get("*.example.jp").reason,
            config.get("*.example.jp").review_by, config.get("*.example.jp").owner)
        assert config.expired is ExpiredPolicy.APPLY


class TestValidFiles:
    def test_one_entry(self):
        config = parse_overrides(document(entry()), "f.yaml")
        assert config.overrides == (Override(
            "www.example.com", "UTF-8", OverrideMode.FORCE, "header says iso-8859-1, pages are UTF-8",
            dt.date(2027, 1, 31), "crawl-quality"),)
        assert config.lines == {"www.example.com": 2}
        assert config.source == "f.yaml"

    @pytest.mark.parametrize("text", ["", "# only a comment\n", "overrides:\n", "overrides: []\n", "---\n", "~\n"])
    def test_empty_means_no_overrides(self, text):
        config = parse_overrides(text, "f.yaml")
        assert len(config) == 0 and len(config.table) == 0
        assert config.expired is ExpiredPolicy.APPLY

    def test_digest_is_sha256_of_the_bytes(self):
        text = document(entry())
        assert parse_overrides(text).digest == hashlib.sha256(text.encode()).hexdigest()

    def test_latin1_is_windows_1252_with_a_note(self):
        config = parse_overrides(document(entry(encoding="latin1")), "f.yaml")
        assert config.overrides[0].encoding == "windows-1252"
        assert config.notes == (Problem(3, "note: encoding label 'latin1' means windows-1252 (Encoding Standard)"),)

    @pytest.mark.parametrize("label, name", [("UTF8", "UTF-8"), ("shift_jis", "Shift_JIS"), (" Shift-JIS ", "Shift_JIS")])
    def test_labels_resolve_to_whatwg_names(self, label, name):
        config = parse_overrides(document(entry(encoding=f"'{label}'")))
        assert config.overrides[0].encoding == name

    def test_ticket_instead_of_owner(self):
        config = parse_overrides(document(entry(owner=None, ticket="CRAWL-7")))
        assert config.overrides[0].owner == "CRAWL-7"

    def test_owner_and_ticket(self):
        config = parse_overrides(document(entry(ticket="CRAWL-7")))
        assert config.overrides[0].owner == "crawl-quality (CRAWL-7)"

    def test_quoted_date(self):
        assert parse_overrides(document(entry(review_by='"2027-02-28"'))).overrides[0].review_by == dt.date(2027, 2, 28)

    # Every spelling of a host and pattern: tests/decoding/test_hosts.py (parse_host_pattern).
    @pytest.mark.parametrize("written, stored", [
        ("WWW.Bücher.example.", "www.xn--bcher-kva.example"),
        ("'*.例え.jp'", "*.xn--r8jz45g.jp"),
    ])
    def test_hosts_are_normalised(self, written, stored):
        assert parse_overrides(document(entry(host=written))).overrides[0].host == stored

    @pytest.mark.parametrize("policy", ["apply", "ignore"])
    def test_expired_setting(self, policy):
        config = parse_overrides(document(entry(), settings=f"settings:\n  expired: {policy}\n"))
        assert config.expired is ExpiredPolicy(policy)

    def test_immutable(self):
        config = parse_overrides(document(entry()))
        with pytest.raises(dataclasses.FrozenInstanceError):
            config.expired = ExpiredPolicy.IGNORE  # type: ignore[misc]
        with pytest.raises(TypeError):
            config.lines["x"] = 1  # type: ignore[index]


class TestEachProblemWithItsLine:
    @pytest.mark.parametrize("fields, line, message", [
        ({"encoding": "klingon"}, 3, "unknown encoding label 'klingon'"),
        ({"encoding": "shift-jsi"}, 3, "did you mean 'shift-jis'?"),
        ({"encoding": "iso-2022-kr"}, 3, "names the 'replacement' encoding"),
        ({"reason": None}, 2, "missing 'reason'"),
        ({"reason": '""'}, 5, "reason is empty"),
        ({"reason": "~"}, 5, "reason is empty"),
        ({"review_by": None}, 2, "missing 'review_by'"),
        ({"review_by": "next spring"}, 6, "review_by must be a date written YYYY-MM-DD, not 'next spring'"),
        ({"review_by": "31/01/2027"}, 6, "review_by must be a date written YYYY-MM-DD"),
        ({"review_by": "2027-02-30"}, 6, "review_by '2027-02-30' is not a real date"),
        ({"review_by": "2027-01-31 10:00:00"}, 6, "review_by must be a date written YYYY-MM-DD"),
        ({"owner": None}, 2, "missing 'owner' or 'ticket'"),
        ({"owner": "''"}, 2, "missing 'owner' or 'ticket'"),
        ({"reson": "typo"}, 8, "unknown key 'reson' (did you mean 'reason'?)"),
        ({"mode": "always"}, 4, "mode must be one of ['force', 'fallback'], not 'always'"),
        ({"mode": None}, 2, "missing 'mode'"),
        ({"encoding": None}, 2, "missing 'encoding'"),
        ({"host": None}, 2, "missing 'host'"),
        ({"reason": "[a, b]"}, 5, "reason must be a single value, not a list or mapping"),
    ])
    def test_entry_fields(self, fields, line, message):
        found_line, found = only_problem(document(entry(**fields)))
        assert found_line == line
        assert message in found

    # Every refused host and its message: tests/decoding/test_hosts.py (parse_host_pattern).
    @pytest.mark.parametrize("host, message", [
        ("www.example.com:8080", "has a port"),
        ("'*.jp'", "covers a whole top-level domain"),
        ("''", "host is empty"),
    ])
    def test_bad_host(self, host, message):
        found_line, found = only_problem(document(entry(host=host)))
        assert found_line == 2
        assert message in found

    def test_unquoted_pattern_is_a_yaml_alias(self):
        line, message = only_problem(document(entry(), entry(host="*.example.jp")))
        assert line == 8
        assert 'quote host patterns: host: "*.example.jp"' in message

    @pytest.mark.parametrize("second", ["www.example.com", "WWW.EXAMPLE.COM", "www.example.com."])
    def test_duplicate_host(self, second):
        line, message = only_problem(document(entry(), entry(host=second)))
        assert (line, message) == (8, "duplicate host 'www.example.com' (already on line 2)")

    def test_duplicate_idn_written_two_ways(self):
        line, message = only_problem(document(entry(host="bücher.example"), entry(host="xn--bcher-kva.example")))
        assert (line, message) == (8, "duplicate host 'xn--bcher-kva.example' (already on line 2)")

    def test_conflicting_entries(self):
        line, message = only_problem(document(entry(), entry(encoding="shift_jis", mode="fallback")))
        assert line == 8
        assert message == ("conflicting entries for host 'www.example.com': line 2 says UTF-8 (force),"
                           " this one Shift_JIS (fallback)")

    def test_duplicate_found_even_when_the_entry_has_other_problems(self):
        found = problems(document(entry(), entry(reason=None)))
        assert (8, "missing 'reason'") in found
        assert (8, "duplicate host 'www.example.com' (already on line 2)") in found

    def test_pattern_and_exact_host_of_the_same_domain_do_not_conflict(self):
        config = parse_overrides(document(entry(host="example.jp"), entry(host="'*.example.jp'")))
        assert len(config) == 2

    def test_key_given_twice(self):
        text = document(entry()).replace("    owner:", "    reason: again\n    owner:")
        assert only_problem(text) == (7, "'reason' given twice (first on line 5)")

    @pytest.mark.parametrize("text, line, message", [
        ("- host: a.example\n", 1, "the file must be a mapping"),
        ("just words\n", 1, "the file must be a mapping"),
        ("overrides:\n  host: a.example\n", 2, "'overrides' must be a list"),
        ("overrides:\n  - www.example.com\n", 2, "an override must be a mapping"),
        ("overides: []\n", 1, "unknown top-level key 'overides' (did you mean 'overrides'?)"),
        ("settings: apply\n", 1, "'settings' must be a mapping"),
        ("settings:\n  expired: never\n", 2, "settings.expired must be one of ['apply', 'ignore'], not 'never'"),
        ("settings:\n  expire: apply\n", 2, "unknown setting 'expire' (did you mean 'expired'?)"),
        ("overrides:\n  - host: [a\n", 3, "not valid YAML"),
        ("overrides:\n\t- host: a\n", 2, "not valid YAML"),
        ("a: 1\n---\nb: 2\n", 2, "not valid YAML"),
    ])
    def test_file_shape(self, text, line, message):
        found_line, found = only_problem(text)
        assert found_line == line
        assert message in found

    def test_not_utf8(self):
        assert only_problem(b"overrides:\n  - host: caf\xe9.example\n") == (2, "the file is not UTF-8")


class TestAllProblemsAtOnce:
    TEXT = document(
        entry(encoding="klingon"),
        entry(host="b.example", reason=None),
        entry(host="http://c.example", review_by="soon"),
        settings="settings:\n  expired: maybe\n",
    )

    def test_every_problem_in_line_order(self):
        assert problems(self.TEXT) == [
            (2, "settings.expired must be one of ['apply', 'ignore'], not 'maybe'"),
            (5, "unknown encoding label 'klingon' (labels: https://encoding.spec.whatwg.org/#names-and-labels)"),
            (10, "missing 'reason'"),
            (15, "host 'http://c.example' has a scheme; write the host name only, e.g. 'www.example.com'"),
            (19, "review_by must be a date written YYYY-MM-DD, not 'soon'"),
        ]

    def test_rendered_as_file_line_message(self):
        with pytest.raises(OverridesError) as caught:
            parse_overrides(self.TEXT, "conf/overrides.yaml")
        lines = str(caught.value).splitlines()
        assert len(lines) == 5
        assert lines[0] == "conf/overrides.yaml:2: settings.expired must be one of ['apply', 'ignore'], not 'maybe'"
        assert all(line.startswith("conf/overrides.yaml:") for line in lines)

    def test_is_a_config_error(self):
        with pytest.raises(ConfigError):
            parse_overrides(self.TEXT)


class TestLoadFromDisk:
    def test_missing_file(self, tmp_path):
        path = tmp_path / "nope.yaml"
        with pytest.raises(OverridesError) as caught:
            load_overrides(path)
        assert str(caught.value) == f"{path}: file not found"
        assert caught.value.problems == (Problem(None, "file not found"),)

    def test_source_is_the_path(self, write):
        path = write(document(entry()))
        assert load_overrides(path).source == str(path)
