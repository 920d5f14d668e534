"""Deterministic, templated lines: the offline generator, the fallbacks and the safety lines.

A line is drawn from its alternatives with the turn's seed, so a replay draws the same one.
"""

from __future__ import annotations

from interview_turn.engine.facts import FactConflict
from interview_turn.engine.model import FactKind, Language
from interview_turn.engine.policy import Lines


def pick(lines: Lines, language: Language, seed: int) -> str:
    options = lines.for_language(language.value)
    return options[seed % len(options)]


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
