"""Turn one user's weekly aggregates (from SQL) into the stored summary row."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from persona_rails.templates import fit
from weekly_summary.engine.weeks import iso_week
from weekly_summary.personas import INSIGHT_LIMIT, InsightPersonas

# The spec's order; on a tie the earlier category is the week's top one.
CATEGORIES = ("work", "study", "mental_break", "emergency", "other")
VERDICTS = ("deny", "delay", "allow")
CATEGORY_LABELS = {
    "work": "工作",
    "study": "学习",
    "mental_break": "放松休息",
    "emergency": "紧急情况",
    "other": "其他",
}
# The spec's weekly question; every insight answers it in so many words.
SPEC_QUESTION = "本周最常出现的借口类型"


class MalformedAggregate(ValueError):
    """A user's stored data cannot make a summary; the user is skipped, the run goes on."""


@dataclass(frozen=True)
class Insight:
    text: str
    persona_key: str
    source: str


def _counts(raw: Any, allowed: tuple[str, ...], what: str) -> dict[str, int]:
    # Runs three times per user of a run of hundreds of thousands: kept to plain loops.
    if not isinstance(raw, dict) or not raw.keys() <= set(allowed):
        raise MalformedAggregate(f"unexpected {what}")
    counts = {key: int(raw.get(key, 0)) for key in allowed}
    if min(counts.values()) < 0:
        raise MalformedAggregate(f"negative {what}")
    return counts


def _as_date(value: Any) -> date:
    # The aggregate arrives as JSON, where a date is its ISO text.
    return value if isinstance(value, date) else date.fromisoformat(value)


def _count(row: dict[str, Any], key: str) -> int:
    value = int(row[key])
    if value < 0:
        raise MalformedAggregate(f"negative {key}")
    return value


def top_category(counts: dict[str, int]) -> str | None:
    """The most frequent excuse; ties go to the spec's order, and no excuse at all is None."""
    best, most = None, 0
    for category in CATEGORIES:  # strictly greater: the earlier category keeps a tie
        if counts[category] > most:
            best, most = category, counts[category]
    return best


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def most_used_persona(persona_stats: dict[str, Any], order: list[str]) -> str:
    """The persona with the most sessions; ties go to the earlier one in the insight config's order.

    A persona the config has no voice for makes the aggregate malformed (the user is skipped
    and logged), so a persona added to the interception config needs an insight voice too."""
    known = [key for key in order if key in persona_stats]
    if not known or set(persona_stats) - set(order):
        raise MalformedAggregate("unknown persona")
    return max(known, key=lambda key: (int(persona_stats[key]["sessions"]), -order.index(key)))


def template_insight(
    personas: InsightPersonas,
    persona_key: str,
    top: str | None,
    counts: dict[str, int],
    row: dict[str, Any],
    *,
    compliance: float | None,
) -> Insight:
    persona = personas.get(persona_key)
    fills = {
        "top_category": CATEGORY_LABELS[top] if top else "",
        "top_count": counts[top] if top else 0,
        "compliance_rate": round((compliance or 0) * 100),
        "sessions": row["sessions"],
        "overrides": row["overrides"],
    }
    template = persona.templates["insight" if top else "insight_quiet"]
    return Insight(fit(template, fills, INSIGHT_LIMIT), persona_key, "template")


def build_summary(row: dict[str, Any], personas: InsightPersonas) -> tuple[dict[str, Any], Insight]:
    """The summary columns for one (user, week) aggregate, plus the template insight."""
    try:
        counts = _counts(row["category_counts"], CATEGORIES, "category")
        previous_counts = _counts(row["previous_category_counts"], CATEGORIES, "category")
        verdicts = _counts(row["verdict_counts"], VERDICTS, "verdict")
        persona_key = most_used_persona(row["persona_stats"], [persona.key for persona in personas.personas])
        persona_rates = {
            key: {
                "sessions": int(stats["sessions"]),
                "closed": int(stats["closed"]),
                "complied": int(stats["complied"]),
                "compliance_rate": _rate(int(stats["complied"]), int(stats["closed"])),
            }
            for key, stats in sorted(row["persona_stats"].items())
        }
        week_start = _as_date(row["week_start"])
        abandoned, emergency_unlocks, emergency_excess = (
            _count(row, "abandoned_sessions"),
            _count(row, "emergency_unlocks"),
            _count(row, "emergency_excess"),
        )
    except MalformedAggregate:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise MalformedAggregate(type(exc).__name__) from exc
    top = top_category(counts)
    compliance = _rate(row["complied_sessions"], row["closed_sessions"])
    previous_compliance = _rate(row["previous_complied_sessions"], row["previous_closed_sessions"])
    had_previous = row["previous_sessions"] > 0
    trend = {
        "previous_sessions": row["previous_sessions"],
        "sessions_delta": row["sessions"] - row["previous_sessions"],
        "previous_overrides": row["previous_overrides"] if had_previous else None,
        "overrides_delta": row["overrides"] - row["previous_overrides"] if had_previous else None,
        "previous_compliance_rate": previous_compliance,
        "compliance_rate_delta": (
            round(compliance - previous_compliance, 4)
            if compliance is not None and previous_compliance is not None
            else None
        ),
        "previous_top_category": top_category(previous_counts),
    }
    summary = {
        "user_id": str(row["user_id"]),
        "week_start": week_start.isoformat(),
        "iso_week": iso_week(week_start),
        "utc_offset_minutes": row["utc_offset_minutes"],
        "sessions": row["sessions"],
        "unfinished_sessions": row["unfinished_sessions"],
        "category_counts": counts,
        "top_category": top,
        "verdict_counts": verdicts,
        "overrides": row["overrides"],
        "emergencies": row["emergencies"],
        "abandoned_sessions": abandoned,
        "emergency_unlocks": emergency_unlocks,
        "emergency_excess": emergency_excess,
        "appeals": row["appeals"],
        "appeal_rate": _rate(row["appeals"], row["evaluated_sessions"]),
        "compliance_rate": compliance,
        "persona_compliance": persona_rates,
        "response_latency_p50_ms": row["response_latency_p50_ms"],
        "response_latency_p90_ms": row["response_latency_p90_ms"],
        "trend": trend,
    }
    return summary, template_insight(personas, persona_key, top, counts, row, compliance=compliance)
