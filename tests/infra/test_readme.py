"""The README stays a front page (issue 23, item 6): at most 400 lines, a table naming exactly the
functions of template.yaml, every number in it checked here, and every relative link of the README
and of docs/*.md pointing at a file that exists and, for `#anchor` links, at one of its headings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from persona_rails_dev import preflight
from persona_rails_dev.cli import build_parser
from persona_rails_dev.hooks.moderation_check import REPLIES
from persona_rails_dev.template import REPO_ROOT, functions, load_template

README = REPO_ROOT / "README.md"
DOCS = REPO_ROOT / "docs"
MAX_README_LINES = 400

FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`]*`")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^()\s]+)\)")
HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def _markdown_files() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def _prose(text: str) -> str:
    """The text a reader sees as prose: fenced blocks and code spans removed (a `# →` comment in a
    bash block is no heading, and `[--port 3000]` in a code span is no link)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: the rendered text lowercased, punctuation other than hyphens
    and underscores removed, each space a hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link renders as its text
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor in a Markdown file, with GitHub's -1, -2 … for repeated headings."""
    seen: dict[str, int] = {}
    found = set()
    for match in HEADING.finditer(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = anchor(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def relative_links(path: Path) -> list[str]:
    targets = LINK.findall(_prose(path.read_text(encoding="utf-8")))
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t, re.IGNORECASE)]


def test_the_readme_is_at_most_400_lines():
    count = len(README.read_text(encoding="utf-8").splitlines())
    assert count <= MAX_README_LINES, f"README.md has {count} lines; move detail into docs/"


def test_the_anchor_rules_are_githubs():
    assert anchor("The layer, as the next function's author uses it") == (
        "the-layer-as-the-next-functions-author-uses-it"
    )
    assert anchor("Safety overlay (`engine/safety.py`, `config/negative-constraints.json`)") == (
        "safety-overlay-enginesafetypy-confignegative-constraintsjson"
    )
    assert anchor("Export: `GET /intercept-session/me/history`") == "export-get-intercept-sessionmehistory"


@pytest.mark.parametrize("path", _markdown_files(), ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_relative_link_resolves(path):
    broken = []
    for target in relative_links(path):
        file_part, _, fragment = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif fragment and (resolved.suffix != ".md" or fragment not in anchors(resolved)):
            broken.append(f"{target}: no heading #{fragment} in {resolved.relative_to(REPO_ROOT)}")
    assert not broken, f"{path.relative_to(REPO_ROOT)}: " + "; ".join(broken)


def test_the_link_check_sees_links_across_lines_and_skips_code():
    sample = REPO_ROOT / "docs" / "intercept-session.md"
    links = relative_links(sample)
    assert "#the-local-day" in links  # written as [The local\nday](#the-local-day)
    assert not any(" " in link for link in links)


def _function_table() -> list[str]:
    """The first cell of each row of the README's table of functions."""
    names = []
    in_table = False
    for line in README.read_text(encoding="utf-8").splitlines():
        if re.match(r"^\|\s*function\s*\|", line):
            in_table = True
            continue
        if in_table:
            if not line.startswith("|"):
                break
            cell = line.strip("|").split("|")[0].strip()
            if set(cell) <= {"-", ":", " "}:
                continue
            names.append(cell.strip("`"))
    return names


def test_the_readme_table_names_exactly_the_functions_of_the_template():
    names = _function_table()
    assert sorted(names) == sorted(functions()), "README.md's table of functions differs from template.yaml"
    assert len(names) == len(set(names))


def test_every_doc_is_listed_in_the_readme():
    linked = {(README.parent / t.partition("#")[0]).resolve() for t in relative_links(README)}
    missing = [p.name for p in sorted(DOCS.glob("*.md")) if p.resolve() not in linked]
    assert not missing, f'README.md\'s "More" does not link: {", ".join(missing)}'
    assert (DOCS / "openapi").resolve() in linked


# Every number the README states, and what holds it true. A number not listed here fails the test:
# check it here (or generate it), or leave it to a page under docs/.
NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}


def _make_commands() -> list[str]:
    block = re.search(
        r"^## Two commands\n.*?```bash\n(.*?)```", README.read_text(encoding="utf-8"), re.S | re.M
    )
    assert block, 'README.md has no "Two commands" block'
    return [line.split("#")[0].split()[1] for line in block.group(1).splitlines() if line.startswith("make ")]


def _counted_phrases() -> dict[str, int]:
    return {
        r"\b(\w+) functions ship today": len(functions()),
        r"^## (\w+) commands$": len(_make_commands()),
        r"\b(\w+) moderation checks\b": len(REPLIES),
        r"\b(\w+) candidate replies\b": len(REPLIES),
    }


def _serve_defaults(monkeypatch: pytest.MonkeyPatch, port: str | None = None) -> tuple[str, int]:
    if port is None:
        monkeypatch.delenv("PORT", raising=False)
    else:
        monkeypatch.setenv("PORT", port)
    args = build_parser().parse_args(["serve"])
    return args.host, args.port


def test_the_two_commands_are_make_targets():
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    commands = _make_commands()
    assert commands == ["dev", "test"]
    for target in commands:
        assert re.search(rf"^{target}:", makefile, re.M), f"make {target} is not a target of the Makefile"


def test_every_number_word_in_the_readme_is_a_checked_count():
    text = README.read_text(encoding="utf-8")
    checked: list[tuple[int, int]] = []
    for pattern, expected in _counted_phrases().items():
        for match in re.finditer(pattern, text, re.IGNORECASE | re.MULTILINE):
            word = match.group(1).lower()
            assert NUMBER_WORDS.get(word) == expected, f"README.md says {match.group(0)!r}; it is {expected}"
            checked.append(match.span(1))
    unchecked = [
        m.group(0)
        for m in re.finditer(rf"\b({'|'.join(NUMBER_WORDS)})\b", text, re.IGNORECASE)
        if not any(start <= m.start() < end for start, end in checked)
    ]
    assert not unchecked, f"README.md states counts no test checks: {unchecked}"


def test_every_digit_in_the_readme_is_checked(monkeypatch):
    template = load_template()
    runtime = template["Globals"]["Function"]["Runtime"]
    requires = re.search(r'requires-python = ">=([\d.]+)"', (REPO_ROOT / "pyproject.toml").read_text())
    skip_problems = preflight.problems({preflight.SKIP_PACKAGE_VARIABLE: "1"})
    checks = {
        # make dev needs Python 3.11 or newer: the oldest the preflight and pyproject.toml accept
        "3.11": preflight.OLDEST_PYTHON == (3, 11) and requires is not None and requires.group(1) == "3.11",
        # make test needs CPython 3.12, Lambda's runtime
        "3.12": runtime == "python3.12" and preflight.CACHE_TAG_312 == "cpython-312",
        # PERSONA_RAILS_SKIP_PACKAGE=1 skips the need for 3.12
        "1": preflight.SKIP_PACKAGE_VARIABLE == "PERSONA_RAILS_SKIP_PACKAGE"
        and not any("3.12" in problem for problem in skip_problems),
        # rails serve on http://127.0.0.1:3000, PORT=3001 when 3000 is taken
        "127.0.0.1": _serve_defaults(monkeypatch)[0] == "127.0.0.1",
        "3000": _serve_defaults(monkeypatch)[1] == 3000,
        "3001": _serve_defaults(monkeypatch, "3001")[1] == 3001,
    }
    # A number standing alone: `python3.12` and `PERSONA_RAILS_PYTHON312` are names, not numbers.
    numbers = set(re.findall(r"(?<![\w.])\d+(?:\.\d+)*(?!\w|\.\d)", README.read_text(encoding="utf-8")))
    assert numbers <= set(checks), f"README.md states numbers no test checks: {sorted(numbers - set(checks))}"
    failing = [number for number, holds in checks.items() if number in numbers and not holds]
    assert not failing, f"README.md's numbers no longer hold: {failing}"
