"""An overrides file refused at start: the processor stays up, consuming nothing, not ready, until it is valid.

Exiting (status 2, as before) crash-looped every restart, rollout and scale-up
while running pods kept the last good table.  The processor never decodes
without the overrides it was given: nothing is consumed until the file is valid,
and then every record is decoded under it.
"""

from __future__ import annotations

import os
import signal
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

BODY = "<html><head><title>t</title></head><body><p>Grüße aus Zürich – Über uns</p></body></html>".encode()
OVERRIDE = """overrides:
  - host: static.cdn.example.com
    encoding: utf-8
    mode: force
    reason: CDN adds charset=iso-8859-1 since the UTF-8 migration
    review_by: 2099-01-01
    owner: crawl-quality
"""
INVALID = OVERRIDE.replace("encoding: utf-8", "encoding: no-such-label")  # line 3


def pages(raw, n: int):
    """UTF-8 pages whose header lies (ISO-8859-1): only the override decodes them right."""
    url = "https://static.cdn.example.com/{}"
    return [(f"page-{i}".encode(), raw(url.format(i), BODY, "text/html; charset=iso-8859-1")) for i in range(n)]


def replace_file(path, text: str) -> None:
    """Atomically, as Kubernetes updates a mounted ConfigMap."""
    staged = path.with_name(path.name + ".new")
    staged.write_text(text)
    os.replace(staged, path)


def _get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _http_port(process, helpers) -> int:
    starting = "processor starting"
    helpers.wait_for(
        lambda: any(e.get("event") == starting for e in process.events()) or process.popen.poll() is not None, starting
    )
    assert process.popen.poll() is None, f"the processor exited:\n{process.log()[-3000:]}"
    return next(e["http_port"] for e in process.events() if e.get("event") == starting)


def _gauge(port: int, name: str) -> float | None:
    families = text_string_to_metric_families(_get(port, "/metrics")[1])
    return next((s.value for f in families for s in f.samples if s.name == name), None)


def test_an_invalid_overrides_file_at_start_is_waited_for_and_a_valid_one_starts_processing(
    settings_for, produce, read_outputs, running_app, topics, raw, tmp_path, helpers, kafka_connection
):
    overrides = tmp_path / "overrides.yaml"
    overrides.write_text(INVALID)
    items = pages(raw, 30)
    produce(topics["landing"], items)
    app = running_app(settings_for(overrides_path=str(overrides)))
    helpers.wait_for(lambda: app.http.port != 0 and _get(app.http.port, "/readyz")[0] == 503, "/readyz answers")
    status, body = _get(app.http.port, "/readyz")
    assert status == 503, body
    assert body.startswith(f"unavailable: overrides file refused: {overrides}:3: "), body
    assert "no-such-label" in body, body
    assert _gauge(app.http.port, "crawl_decoder_overrides_config_valid") == 0
    assert _gauge(app.http.port, "crawl_decoder_ready") == 0
    assert _get(app.http.port, "/healthz")[0] == 200, "waiting for a valid file is not a hung loop"
    # A second invalid file, its error a line lower: once /readyz names that line the processor has gone round
    # its wait again with the records on the landing topic, and must still have consumed nothing.
    replace_file(overrides, "# still not valid\n" + INVALID)
    helpers.wait_for(lambda: f"refused: {overrides}:4: " in _get(app.http.port, "/readyz")[1], "the new file refused")
    assert not app.processor.started.is_set(), "joined the group without its overrides"
    assert helpers.output_offsets(kafka_connection, topics) == 0, "decoded without the overrides it was given"

    replace_file(overrides, OVERRIDE)
    helpers.wait_for(lambda: _get(app.http.port, "/readyz")[0] == 200, "ready once the file is valid", timeout=90)
    assert _gauge(app.http.port, "crawl_decoder_overrides_config_valid") == 1
    found = read_outputs(len(items))
    helpers.assert_exactly_once(found, items)
    for record in found.clean:  # every record under the override: none slipped through before it
        assert (record["encoding"], record["source"]) == ("UTF-8", "override"), record["key"]
        assert "Grüße aus Zürich" in record["text"]


def test_sigterm_while_the_overrides_file_is_refused_exits_0(processor_env, spawn_processor, tmp_path, helpers):
    overrides = tmp_path / "overrides.yaml"
    overrides.write_text(INVALID)
    process = spawn_processor(processor_env(overrides_path=str(overrides)))
    port = _http_port(process, helpers)
    helpers.wait_for(lambda: "overrides file refused" in _get(port, "/readyz")[1], "/readyz says why")
    refusals = [e for e in process.events() if e.get("event") == "overrides file refused at start; waiting for a valid one"]
    assert len(refusals) == 1 and refusals[0]["level"] == "error", process.log()[-3000:]
    assert f"{overrides}:3:" in refusals[0]["error"]
    process.signal(signal.SIGTERM)
    assert process.wait(30) == 0, f"SIGTERM ends the wait with exit 0:\n{process.log()[-3000:]}"
    assert not any(e.get("event") == "partitions assigned" for e in process.events())
