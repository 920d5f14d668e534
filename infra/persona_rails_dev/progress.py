"""A one-line progress bar for long command-line jobs (a plain line per update when not a TTY)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 30


class ProgressLine:
    def __init__(self, stream: TextIO = sys.stderr) -> None:
        self.stream = stream
        self.started = time.perf_counter()
        self.interactive = stream.isatty()

    def __call__(self, label: str, done: int, total: int) -> None:
        fraction = done / total if total else 1.0
        filled = int(WIDTH * min(fraction, 1.0))
        bar = "#" * filled + "-" * (WIDTH - filled)
        elapsed = time.perf_counter() - self.started
        line = f"{label} [{bar}] {done}/{total} users ({fraction:.0%}) {elapsed:.1f}s"
        if self.interactive:
            self.stream.write("\r" + line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.interactive:
            self.stream.write("\n")
            self.stream.flush()
