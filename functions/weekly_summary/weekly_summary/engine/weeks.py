"""ISO weeks in the user's local time, and when a week is due for its summary."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

# Summaries appear on Monday morning local time, once the week is over for the user.
DUE_AFTER = timedelta(days=7, hours=6)
# Local clocks run from UTC-12:00 to UTC+14:00.
EARLIEST_OFFSET = timedelta(hours=-12)
LATEST_OFFSET = timedelta(hours=14)
_ISO_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")


def monday_of(day: date) -> date:
    return day - timedelta(days=day.weekday())


def parse_week(text: str) -> date:
    """'2026-W47' or any date inside the week -> the week's Monday."""
    match = _ISO_WEEK.match(text)
    if match:
        try:
            return date.fromisocalendar(int(match[1]), int(match[2]), 1)
        except ValueError as exc:
            raise ValueError(f"{text} is not an ISO week") from exc
    try:
        return monday_of(date.fromisoformat(text))
    except ValueError as exc:
        raise ValueError("week must be an ISO week such as 2026-W47 or a date such as 2026-11-16") from exc


def iso_week(week_start: date) -> str:
    year, week, _ = week_start.isocalendar()
    return f"{year}-W{week:02d}"


def candidate_weeks(now: datetime) -> list[date]:
    """The weeks some time zone may have just finished: the previous local week at both
    extremes of the offsets in use. One week for most of the week, two around Monday."""
    utc = now.astimezone(UTC).replace(tzinfo=None)
    weeks = {
        monday_of((utc + offset).date()) - timedelta(days=7) for offset in (EARLIEST_OFFSET, LATEST_OFFSET)
    }
    return sorted(weeks)


def is_due(week_start: date, utc_offset_minutes: int, now: datetime) -> bool:
    local_now = now.astimezone(UTC).replace(tzinfo=None) + timedelta(minutes=utc_offset_minutes)
    return local_now >= datetime.combine(week_start, datetime.min.time()) + DUE_AFTER
