"""Message templates with `{{placeholders}}`: render them, and keep them within a length limit.

Used by every function whose personas speak from templates; each function's persona model
(its own config schema) calls `check_template` so a designer's typo fails at load time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")
ELLIPSIS = "…"


def placeholders(template: str) -> set[str]:
    return set(PLACEHOLDER.findall(template))


def render(template: str, values: Mapping[str, object]) -> str:
    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise KeyError(f"template placeholder '{name}' has no value")
        return str(values[name])

    return PLACEHOLDER.sub(fill, template)


def fit(template: str, values: Mapping[str, object], limit: int, shrinkable: Iterable[str] = ()) -> str:
    """Render, then shorten free-text fills (never the template's own words) until within `limit`."""
    text = render(template, values)
    if len(text) <= limit:
        return text
    shortened = dict(values)
    for name in shrinkable:
        if name not in placeholders(template):
            continue
        overflow = len(text) - limit
        current = str(shortened[name])
        keep = max(1, len(current) - overflow - len(ELLIPSIS))
        shortened[name] = current[:keep] + ELLIPSIS
        text = render(template, shortened)
        if len(text) <= limit:
            return text
    raise ValueError(f"template cannot fit in {limit} characters: {template!r}")


def check_templates(
    templates: Mapping[str, str],
    required: Mapping[str, Iterable[str]],
    *,
    limit: int,
    largest_fills: Mapping[str, object],
) -> None:
    """Exactly the `required` templates, each non-empty, using only its allowed placeholders, and
    within `limit` characters even with the largest values the product allows."""
    missing = sorted(required.keys() - templates.keys())
    if missing:
        raise ValueError(f"missing templates {missing}")
    for name, template in templates.items():
        if name not in required:
            raise ValueError(f"unexpected template '{name}'")
        if not template.strip():
            raise ValueError(f"template '{name}' is empty")
        unknown = placeholders(template) - set(required[name])
        if unknown:
            raise ValueError(f"template '{name}' uses unknown {sorted(unknown)}")
        if len(render(template, largest_fills)) > limit:
            raise ValueError(f"template '{name}' exceeds {limit} characters with the largest fills")
