"""No regular expression the project compiles backtracks polynomially: our lexicons are searched
with Python's backtracking `re` through texts of up to 50,000 characters, where one such shape
took 25 s (3e2582c). Found by shape, not by timing (tests/support/regex_shapes.py), on every
pattern the code really compiles (tests/support/pattern_census.py), so a pattern a persona
designer adds to a lexicon is checked the day it is added."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.pattern_census import ROOT
from tests.support.regex_shapes import backtracking_shapes

# The census holds about 2,800 patterns; far fewer would mean it stopped reaching the lexicons.
FEWEST_PATTERNS = 2_000


@pytest.mark.parametrize(
    ("pattern", "slow"),
    [
        # Shapes this project shipped, and their linear forms.
        (r"'(?:[^'\n]|\b'\b)*?\s(?:[^'\n]|\b'\b)*?'", True),
        (r"(?<![\w])'(?:[^'\s]|\b'\b)*\s(?:[^'\n]|\b'\b)*?'(?![\w])", False),
        (r"(?:nurse|help)\s*[!！]+\W*$", True),
        (r"(?:nurse|help)\s*[!！]\W*$", False),
        (r"^\W*(?:嗯|呃)?\W*等$", True),
        (r"^\W*(?:(?:嗯|呃)\W*)?等$", False),
        (r"\byou\s+(?:may|might)?\s*be\b", True),
        (r"\byou\s+(?:(?:may|might)\s+)?be\b", False),
        (r"(a+)+b", True),
        (r"(?:\w+\s?)*$", True),
        # Bounded, possessive and separated repeats are fine.
        (r"x[^z]{0,40}\s[^z]{0,40}zzq", False),
        (r"\bi\s+can'?t\s+breathe\b", False),
        (r"\d+\s*(?:kg|kilos?)", False),
        (r"[^\s]*+\s*+x", False),
    ],
)
def test_the_shape_check_tells_slow_patterns_from_linear_ones(pattern, slow):
    assert bool(backtracking_shapes(pattern)) is slow


def test_no_pattern_the_project_compiles_backtracks_polynomially():
    census = subprocess.run(
        [sys.executable, "-m", "tests.support.pattern_census"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    patterns = [json.loads(line) for line in census.stdout.splitlines()]
    assert len(patterns) >= FEWEST_PATTERNS
    slow = {
        entry["where"] + ": " + entry["pattern"][:120]: shapes
        for entry in patterns
        if (shapes := backtracking_shapes(entry["pattern"], entry["flags"]))
    }
    assert slow == {}
