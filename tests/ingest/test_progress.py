"""The progress line an operator watches during an ingest."""

from __future__ import annotations

import io

from consumer.ingest.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_line_shows_how_far_the_input_is_read_and_what_was_written():
    now = [100.0]
    terminal = Terminal()
    progress = Progress(stream=terminal, clock=lambda: now[0])
    now[0] = 102.0
    progress.update("crawl.warc.gz", 25_000_000, 100_000_000, records=1200, written=1100, malformed=1,
                    bytes_read=20_000_000)  # fmt: skip
    line = terminal.getvalue()
    assert line.startswith("\rcrawl.warc.gz [######                  ]  25% 25.0/100.0 MB")
    assert "1200 records, 1100 written, 1 malformed | 10.0 MB/s" in line


def test_standard_input_has_no_size_and_updates_are_throttled():
    now = [0.0]
    terminal = Terminal()
    progress = Progress(stream=terminal, clock=lambda: now[0])
    assert progress.due()
    progress.update("-", 5_000_000, None, records=10, written=10, malformed=0, bytes_read=5_000_000)
    assert "\r- 5.0 MB |" in terminal.getvalue()
    assert not progress.due(), "a terminal line is rewritten at most four times a second"
    now[0] += 0.3
    assert progress.due()
    progress.close()
    assert terminal.getvalue().endswith("\n")
