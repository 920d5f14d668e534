"""The interception personas (严父, 理性导师, 幽默教练): their schema and their versioned file.

`config/personas.json` is loaded and validated once per cold start (the handler calls
`persona_config()` at init); engines receive a `Persona` as an argument.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from persona_rails.config import Artifact, load_artifact
from persona_rails.personas import BasePersona, PersonaSet

PERSONAS_FILE = Path(__file__).with_name("config") / "personas.json"
MESSAGE_LIMIT = 60
DIALOG_FILLS = frozenset({"app_display_name", "next_action", "delay_minutes", "remaining_minutes"})
# A delay's minutes never exceed the rule's, which the rules table caps at 120.
MAX_DELAY_MINUTES = 120

# The largest value each fill can take (see the rules table's CHECKs): every template must fit
# MESSAGE_LIMIT with these.
MAX_RULE_APP_NAME = 40
MAX_NEXT_ACTION = 20
LARGEST_FILLS: dict[str, object] = {
    "app_display_name": "名" * MAX_RULE_APP_NAME,
    "next_action": "事" * MAX_NEXT_ACTION,
    "delay_minutes": MAX_DELAY_MINUTES,
    "remaining_minutes": 1440,
    "minutes_left": MAX_DELAY_MINUTES,
}


class Persona(BasePersona):
    # The spec's four, then: `challenge_excess` opens a dialog after an emergency unlock past the
    # weekly allowance; `emergency` answers an emergency allow (care, never a reproach);
    # `emergency_doubt` answers a reason that may be an emergency (the way to the emergency
    # button); `delayed` answers a start before an accepted delay has run out.
    TEMPLATES: ClassVar = {
        **{name: DIALOG_FILLS for name in ("challenge", "deny", "delay", "allow", "challenge_excess")},
        "emergency": frozenset(),
        "emergency_doubt": frozenset(),
        "delayed": frozenset({"minutes_left"}),
    }
    MESSAGE_LIMIT: ClassVar = MESSAGE_LIMIT
    LARGEST_FILLS: ClassVar = LARGEST_FILLS

    tone: str = Field(min_length=1, max_length=200)
    avatar_asset_key: str = Field(pattern=r"^[a-z0-9/_.-]+$")


Personas = PersonaSet[Persona]


@cache
def persona_config() -> Artifact[Personas]:
    return load_artifact(PERSONAS_FILE, Personas)


def personas() -> Personas:
    return persona_config().value
