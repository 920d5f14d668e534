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

# The census holds about 2,800 patterns; fewer would mean it stopped reaching some lexicons.
FEWEST_PATTERNS = 2_700


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
        # A set takes the pattern's own characters, not only a sample alphabet.
        (r"[^x]*好*y", True),
        # A repeat that meets another inside an alternative or an optional group.
        (r"\s*(?:请|\s*等)", True),
        (r"(?:a\s*)?\s*x", True),
        (r"(?:y\s*|q)\s*x", True),
        (r"\s*(?:(?:多|来)\s*)?(?:个\s*)?天", False),
        # A bounded repeat whose turns split a run: n³ steps.
        (r"(?:\w+\s*){1,3}$", True),
        (r"(?:\s+\w+){1,3}", False),
        # Turns that can take the same run in two lengths: exponential.
        (r"(a|aa)*x", True),
        (r"(?:mm?)+x", True),
        (r"(?:ab?)*x", False),
        (r"(?:(?:m|mm)\W){0,2}x", False),
        # Case-folded, lazy and across a lookaround.
        (r"(?i)[A-Z]*[a-z]*x", True),
        (r"\s*?\s*?x", True),
        (r"\s*(?=\s)\s*x", True),
        # An atomic group backtracks inside until it first matches, never after.
        (r"(?>\s*\s*)x", True),
        (r"(?>\s*)\s*x", False),
        # A possessive or atomic repeat after a backtracking one runs again for every split.
        (r"\s*\s*+x", True),
        (r"\s*(?>\s*)x", True),
        (r"\s*+\s*x", False),
        # A bounded repeat whose turn can be one run (an independent review timed it at 215 s).
        (r"(?:\w+|-){1,10}$", True),
        # Conditionals are read like alternatives.
        (r"(?:b|(a))(?(1)(a+)+)x", True),
        (r"(a)?(?(1)\s*\s*x|y)", True),
        # A pattern with too many paths to read is reported, not read for minutes.
        (r"\s*" + r"(?:\s?,?)" * 20 + "x", True),
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
        timeout=300,
        check=False,
    )
    assert census.returncode == 0, census.stderr[-4000:]
    patterns = [json.loads(line) for line in census.stdout.splitlines()]
    assert len(patterns) >= FEWEST_PATTERNS
    slow = {
        entry["where"] + ": " + entry["pattern"][:120]: shapes
        for entry in patterns
        if (shapes := backtracking_shapes(entry["pattern"], entry["flags"]))
    }
    assert slow == {}
