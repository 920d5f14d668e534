"""The command-line progress line."""

import io

from persona_rails_dev.progress import ProgressLine


def test_a_plain_stream_gets_one_line_per_update():
    stream = io.StringIO()
    progress = ProgressLine(stream)
    progress("2026-W47", 1, 4)
    progress("2026-W47", 4, 4)
    progress.close()
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("2026-W47 [#######-----------------------] 1/4 users (25%)")
    assert lines[1].startswith("2026-W47 [##############################] 4/4 users (100%)")


def test_an_empty_week_reads_as_done():
    stream = io.StringIO()
    ProgressLine(stream)("2024-W01", 0, 0)
    assert "0/0 users (100%)" in stream.getvalue()
