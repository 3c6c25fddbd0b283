"""``crawl-decoder decode``: text by default, the whole decision with --json, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys

from consumer.cli import main


def test_prints_the_text(tmp_path, capsys):
    page = tmp_path / "page.html"
    page.write_bytes('<meta charset="shift_jis"><p>10～20</p>'.encode("cp932"))
    assert main(["decode", str(page)]) == 0
    assert "10～20" in capsys.readouterr().out


def test_json_shows_the_decision(tmp_path, capsys):
    page = tmp_path / "page.html"
    page.write_bytes("<p>Prix : 20 €</p>".encode("cp1252"))
    assert main(["decode", str(page), "--content-type", "text/html; charset=ISO-8859-1", "--json"]) == 0
    decision = json.loads(capsys.readouterr().out)
    assert decision["encoding"] == "windows-1252" and decision["source"] == "http-header"
    assert decision["declared"] == {"bom": None, "header": "windows-1252", "meta": None, "xml": None}
    assert decision["text"] == "<p>Prix : 20 €</p>" and decision["lossy"] is False
    assert decision["file"] == str(page)


def test_url_hints_detection(tmp_path, capsys):
    page = tmp_path / "page.html"
    page.write_bytes("<p>日本語のページです。東京都の天気予報、今日は晴れのち曇りでしょう。</p>".encode("cp932"))
    assert main(["decode", str(page), "--url", "https://www.example.jp/", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["encoding"] == "Shift_JIS"


def test_stdin_and_a_missing_file():
    ok = subprocess.run([sys.executable, "-m", "consumer.cli", "decode", "-"], input=b"caf\xc3\xa9", capture_output=True)
    assert ok.returncode == 0 and ok.stdout.decode() == "café\n"
    missing = subprocess.run([sys.executable, "-m", "consumer.cli", "decode", "/no/such/file"], capture_output=True)
    assert missing.returncode == 2
    assert b"cannot read /no/such/file" in missing.stderr and b"Traceback" not in missing.stderr


def test_a_binary_file_is_reported_as_binary_not_decoded(tmp_path, capsys):
    from consumer.samples import binary_samples

    image = tmp_path / "logo.png"
    image.write_bytes(next(s for s in binary_samples() if s.name == "png-image").body)
    assert main(["decode", str(image), "--content-type", "image/png", "--json"]) == 0
    decision = json.loads(capsys.readouterr().out)
    assert decision["binary"] == "image/png" and decision["source"] == "binary"
    assert decision["text"] == "" and decision["lossy"] is False
    # Without --json: nothing on stdout (no garbage text), the verdict on stderr; sniffed without a type.
    assert main(["decode", str(image)]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "binary (image/png)" in err


def test_text_has_no_binary_verdict(tmp_path, capsys):
    page = tmp_path / "page.html"
    page.write_bytes(b"<p>\x00stray NUL</p>")
    assert main(["decode", str(page), "--content-type", "text/html", "--json"]) == 0
    decision = json.loads(capsys.readouterr().out)
    assert decision["binary"] is None and decision["text"] == "<p>\x00stray NUL</p>"
