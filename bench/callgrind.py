"""Instructions a Python snippet executes, counted by callgrind: a measure that does not move with
the machine's load (a shared 2-CPU machine moves timed medians by a third from run to run)."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path


def instructions(child: str, *args: str) -> int:
    """Instructions of `python -c child *args` (hash seed fixed, so dict order cannot move it)."""
    valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    completed = subprocess.run(
        [*valgrind, sys.executable, "-c", child, *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    found = re.search(r"Collected : (\d+)", completed.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no total:\n{completed.stderr[-2000:]}")
    return int(found.group(1))


def print_comparison(
    unit: str, rows: Iterable[tuple[str, Callable[[Path], float]]], here: Path, against: Path | None
) -> None:
    """A Markdown table: per row, the count in `against` (if given), here, and their ratio."""
    print(f"| instructions per {unit} | " + (f"{against} | " if against else "") + "this checkout | ratio |")
    print("|---|" + ("---:|" if against else "") + "---:|---:|")
    for label, count in rows:
        mine = count(here)
        if against is None:
            print(f"| {label} | {mine:,.0f} | |")
            continue
        theirs = count(against.resolve())
        print(f"| {label} | {theirs:,.0f} | {mine:,.0f} | {mine / theirs:.2f} |")


def against(doc: str, argv: list[str] | None) -> Path | None:
    """The `--against` checkout of an instruction-count comparison; exits 2 without valgrind."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    other: Path | None = parser.parse_args(argv).against
    if shutil.which("valgrind") is None:
        print("valgrind is not installed", file=sys.stderr)
        raise SystemExit(2)
    return other
