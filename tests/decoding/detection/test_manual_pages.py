"""The manual pages' letters that the detection model counts (``detection/manual_pages.py``).

The counter runs by hand on a Debian machine and its counts are committed; what is checked here is what a rerun
would rely on: a page's escapes become the letters a reader sees (a guide's code and listings left out), a page
showing double-encoded text counts for nothing, and the committed counts are letters of languages the model has.
"""

from __future__ import annotations

import importlib.util
import shutil
import unicodedata
from pathlib import Path
from types import ModuleType

import pytest

from consumer.decoding.detection import manual_pages
from consumer.decoding.detection.manual_page_letters import LETTERS
from consumer.decoding.detection.model import LANGUAGES

needs_groff = pytest.mark.skipif(shutil.which("groff") is None, reason="the counter renders pages with groff")


@needs_groff
def test_a_page_is_counted_as_a_reader_sees_it(tmp_path):
    page = tmp_path / "voorbeeld.1"
    page.write_text(
        '.\\" Auteur: Jürgen Müller (a comment: not rendered, not counted)\n'
        ".TH VOORBEELD 1\n.SH NAAM\nvoorbeeld \\- het ge\\(:installeerde pakket\n"
        ".SH OMSCHRIJVING\nDe ru\\[:i]ne in Belgi\\(:e, het caf\\('e en één idee.\n",
        encoding="utf-8",
    )
    text = manual_pages.rendered(page)
    assert text is not None
    assert "geïnstalleerde" in text and "ruïne" in text and "België" in text and "café" in text and "één" in text
    assert "Jürgen" not in text


@needs_groff
def test_a_page_showing_double_encoded_text_counts_for_nothing(tmp_path):
    page = tmp_path / "kapot.1"
    page.write_text(".TH KAPOT 1\n.SH NAAM\nkapot \\- het cafÃ© is dicht\n", encoding="utf-8")
    assert manual_pages.rendered(page) is None


def test_a_guide_page_is_counted_as_a_reader_sees_its_prose(tmp_path):
    page = tmp_path / "first.ca.html"
    page.write_text(
        "<html><head><title>Guia</title><style>p { content: 'ñ' }</style></head><body>"
        "<p>L&#8217;ordre <code>dpkg --instal·lar</code> fa c&agrave;rrega del paquet: &eacute;s aix&iacute;.</p>"
        "<pre>$ echo 'ŕ č ň'</pre><p>Després, <tt>façade</tt> la comprovació.</p></body></html>",
        encoding="utf-8",
    )
    text = manual_pages.guide_text(page)
    assert text is not None
    assert "càrrega" in text and "és així" in text and "Després" in text and "comprovació" in text
    assert "instal·lar" not in text and "ŕ" not in text and "façade" not in text and "ñ" not in text


def test_a_guide_page_showing_double_encoded_text_counts_for_nothing(tmp_path):
    page = tmp_path / "broken.ca.html"
    page.write_text("<p>el cafÃ¨ &eacute;s tancat</p>", encoding="utf-8")
    assert manual_pages.guide_text(page) is None


def test_the_committed_counts_are_letters_of_the_models_languages():
    languages = {language for languages in LANGUAGES.values() for language in languages}
    assert set(LETTERS) <= languages
    for counts in LETTERS.values():
        assert all(char >= "\x80" and unicodedata.category(char)[0] == "L" and n > 0 for char, n in counts.items())


def test_the_counter_holds_out_the_half_the_benchmark_judges_with():
    real_text = _bench_module("real_text")
    domains = ["apt", "dpkg", "man-db", "shadow", "vim", "coreutils", "gettext-runtime", "iso_3166", "bash", "tar"]
    held = [manual_pages.held_out(domain) for domain in domains]
    assert held == [real_text.half(Path(f"{domain}.mo")) == "test" for domain in domains]
    assert any(held) and not all(held)


def test_one_text_installed_under_two_names_is_in_one_half(tmp_path):
    # iso-codes installs each catalogue twice ("iso_3166-2.mo" and "iso_3166_2.mo"): by their own names the two
    # copies hashed to opposite halves, so the judging half's text was in the tuning half too.
    real_text = _bench_module("real_text")
    (tmp_path / "iso_3166-2.mo").write_bytes(b"the same catalogue")
    (tmp_path / "iso_3166_2.mo").write_bytes(b"the same catalogue")
    (tmp_path / "iso_3166_2x.mo").write_bytes(b"another catalogue")
    assert manual_pages.held_out("iso_3166-2") != manual_pages.held_out("iso_3166_2")  # why the rule is needed
    assert manual_pages.text_domain(tmp_path / "iso_3166_2.mo") == "iso_3166-2"
    assert manual_pages.text_domain(tmp_path / "iso_3166_2x.mo") == "iso_3166_2x"
    assert real_text.half(tmp_path / "iso_3166-2.mo") == real_text.half(tmp_path / "iso_3166_2.mo")


def _bench_module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, Path(__file__).parents[3] / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
