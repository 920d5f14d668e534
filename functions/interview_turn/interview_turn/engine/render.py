"""Deterministic, templated lines: the offline generator, the fallbacks and the safety lines.

A line is drawn from its alternatives with the turn's seed, so a replay draws the same one. The
draw skips the lines this session has already said (`SessionState.said`), so an interviewer with
enough alternatives never repeats itself; when every alternative was said, the one said longest
ago comes back.
"""

from __future__ import annotations

from hashlib import blake2b

from interview_turn.engine.facts import FactConflict
from interview_turn.engine.model import FactKind, Language
from interview_turn.engine.policy import Lines

# How many of the session's lines are remembered, and how recent a line must be for a generated
# (LLM) line repeating it to be replaced.
LINE_MEMORY = 30
REPEAT_WINDOW = 5
# 32 bits tell a session's few hundred possible lines apart; the state stays small, because every
# turn's statement carries it (a batch over libpq's 8 KB buffer goes out in two writes).
DIGEST_BYTES = 4


def pick(lines: Lines, language: Language, seed: int) -> str:
    options = lines.for_language(language.value)
    return options[seed % len(options)]


def line_digest(line: str) -> str:
    """The same line whatever its case or spacing."""
    return blake2b(" ".join(line.casefold().split()).encode(), digest_size=DIGEST_BYTES).hexdigest()


def pick_unsaid(
    lines: Lines, language: Language, seed: int, values: dict[str, str], said: tuple[str, ...]
) -> str:
    """The seed's line, or the next alternative this session has not said; if all were said, the
    one said longest ago."""
    options = lines.for_language(language.value)
    start = seed % len(options)
    rotated = [fill(options[(start + step) % len(options)], values) for step in range(len(options))]
    last_said = {digest: position for position, digest in enumerate(said)}
    return min(rotated, key=lambda line: last_said.get(line_digest(line), -1))


def remember_line(said: tuple[str, ...], line: str) -> tuple[str, ...]:
    return (*said, line_digest(line))[-LINE_MEMORY:]


def repeats_recent(said: tuple[str, ...], line: str) -> bool:
    return line_digest(line) in said[-REPEAT_WINDOW:]


def fill(template: str, values: dict[str, str]) -> str:
    return template.format_map(
        {name: values.get(name, "") for name in ("name", "topic", "next_topic", "earlier", "current")}
    )


def join(language: Language, *parts: str | None) -> str:
    """Sentences joined the way each script joins them: with a space in English, none in Chinese."""
    separator = "" if language is Language.ZH else " "
    return separator.join(part for part in parts if part)


def fact_display(kind: FactKind, value: str, language: Language) -> str:
    if kind is FactKind.AGE:
        return f"{value}岁" if language is Language.ZH else f"age {value}"
    if kind is FactKind.PLACE and language is Language.EN:
        return value.title()
    return value


def conflict_values(conflict: FactConflict | None, language: Language) -> dict[str, str]:
    if conflict is None:
        return {}
    return {
        "earlier": fact_display(conflict.kind, conflict.earlier, language),
        "current": fact_display(conflict.kind, conflict.current, language),
    }
