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


OVERRIDES = """\
overrides:
  - host: shop.example.com
    encoding: Shift_JIS
    mode: force
    reason: declares UTF-8, serves Shift_JIS
    review_by: 2099-01-01
    owner: crawl-quality
"""


def shift_jis_page(tmp_path):
    page = tmp_path / "page.html"
    page.write_bytes(b'<meta charset="utf-8"><p>' + "東京".encode("cp932") + b"</p>")
    return page


def test_overrides_of_the_url_host_decide_the_encoding(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CRAWL_DECODER_OVERRIDES_PATH", raising=False)
    page = shift_jis_page(tmp_path)
    overrides = tmp_path / "overrides.yaml"
    overrides.write_text(OVERRIDES)
    url = "https://shop.example.com/item/1"

    assert main(["decode", str(page), "--url", url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["source"] != "override", "no overrides unless asked for"

    assert main(["decode", str(page), "--url", url, "--overrides", str(overrides), "--json"]) == 0
    decision = json.loads(capsys.readouterr().out)
    assert (decision["encoding"], decision["source"]) == ("Shift_JIS", "override")
    assert decision["override"]["host"] == "shop.example.com" and "東京" in decision["text"]

    assert main(["decode", str(page), "--url", "https://other.example.com/", "--overrides", str(overrides), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["source"] != "override", "another host's page is not overridden"

    monkeypatch.setenv("CRAWL_DECODER_OVERRIDES_PATH", str(overrides))
    assert main(["decode", str(page), "--url", url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["source"] == "override", "the processor's variable is the default"


def test_an_invalid_or_missing_overrides_file_is_refused(tmp_path, capsys):
    page = shift_jis_page(tmp_path)
    bad = tmp_path / "bad.yaml"
    bad.write_text(OVERRIDES.replace("Shift_JIS", "no-such-encoding"))
    assert main(["decode", str(page), "--overrides", str(bad)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and f"{bad}:" in err and "no-such-encoding" in err
    assert main(["decode", str(page), "--overrides", str(tmp_path / "none.yaml")]) == 2
    assert "file not found" in capsys.readouterr().err


def test_an_unreadable_file_does_not_stop_the_others(tmp_path, capsys):
    first, last = tmp_path / "a.html", tmp_path / "z.html"
    first.write_text("<p>first</p>")
    last.write_text("<p>last</p>")
    missing, directory = tmp_path / "missing.html", tmp_path / "dir"
    directory.mkdir()
    assert main(["decode", str(first), str(missing), str(directory), str(last)]) == 2
    out, err = capsys.readouterr()
    assert out == "<p>first</p>\n<p>last</p>\n", "the files after the unreadable ones are decoded"
    assert f"cannot read {missing}" in err and f"cannot read {directory}" in err
    assert "2 of 4 files could not be read" in err


def test_a_closed_pipe_ends_quietly(tmp_path):
    # Far more output than a pipe buffers: the command is still writing when its reader goes away.
    files = []
    for i in range(400):
        path = tmp_path / f"page-{i}.html"
        path.write_text(f"<p>page {i} café</p>\n" * 200)
        files.append(str(path))
    with open(tmp_path / "stderr", "wb") as stderr:
        process = subprocess.Popen([sys.executable, "-m", "consumer.cli", "decode", *files],
                                   stdout=subprocess.PIPE, stderr=stderr)
        assert process.stdout.readline() == "<p>page 0 café</p>\n".encode()
        process.stdout.close()  # what `| head -1` does once it has its line
        status = process.wait(120)
    err = (tmp_path / "stderr").read_text()
    assert "Traceback" not in err and "Exception ignored" not in err and err == ""
    assert status == 141, "128 + SIGPIPE, as a shell reports a writer whose reader went away"
