"""The judges of a reason, ready to run: the urgency rule and the two local models shipped in
`models/` (trained by `make train` from eval/, docs/judges.md). Loaded once per execution
environment by the first reason that needs them (a few milliseconds), never at a start that
does not.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from intercept_session.engine.turn import Judges
from intercept_session.urgency_config import urgency_rules
from persona_rails.local_model import LocalModel, load_model

MODELS = Path(__file__).with_name("models")
EMERGENCY_MODEL = MODELS / "emergency.json"
CATEGORY_MODEL = MODELS / "category.json"


def emergency_model() -> LocalModel:
    return load_model(EMERGENCY_MODEL)


def category_model() -> LocalModel:
    return load_model(CATEGORY_MODEL)


@cache
def judges() -> Judges:
    return Judges(urgency_rules(), emergency_model(), category_model())
