"""The interception personas (严父, 理性导师, 幽默教练), shared by every function they speak in.

The dialog uses their challenge and verdict templates; the weekly summary speaks its insight in
the voice of the user's most-used persona. One versioned file, validated once per cold start.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from persona_rails.personas import PersonaCatalog

PERSONAS_FILE = Path(__file__).with_name("interception_personas.json")
PERSONA_ORDER = ("strict-father", "rational-mentor", "humor-coach")
MESSAGE_LIMIT = 60

DIALOG_FILLS = frozenset({"app_display_name", "next_action", "delay_minutes", "remaining_minutes"})
INSIGHT_FILLS = frozenset({"top_category", "top_count", "compliance_rate", "sessions", "overrides"})
TEMPLATES: dict[str, frozenset[str]] = {
    "challenge": DIALOG_FILLS,
    "deny": DIALOG_FILLS,
    "delay": DIALOG_FILLS,
    "allow": DIALOG_FILLS,
    "insight": INSIGHT_FILLS,
    "insight_quiet": INSIGHT_FILLS,
}

# The largest value each fill can take (see the rules table's CHECKs and the summary's counts);
# every template must fit MESSAGE_LIMIT with these.
MAX_RULE_APP_NAME = 40
MAX_NEXT_ACTION = 20
LARGEST_FILLS: dict[str, object] = {
    "app_display_name": "名" * MAX_RULE_APP_NAME,
    "next_action": "事" * MAX_NEXT_ACTION,
    "delay_minutes": 120,
    "remaining_minutes": 1440,
    "top_category": "放松休息",
    "top_count": 9999,
    "compliance_rate": 100,
    "sessions": 9999,
    "overrides": 9999,
}


@cache
def catalog() -> PersonaCatalog:
    return PersonaCatalog.load(
        PERSONAS_FILE, templates=TEMPLATES, message_limit=MESSAGE_LIMIT, sample_values=LARGEST_FILLS
    )
