"""Is this reason a genuine emergency? The rule where it is sure, the local scorer for the rest.

The urgency rule (urgency.py) reads every keyword mention and its cues. It is sure a text is no
emergency when it names an emergency word, every mention is governed by a negation, a past or a
routine cue ("不用叫救护车", "昨天去了医院", "我在医院上班"), and nothing says that something is
happening now (no booster: "突然", "right now" ...: "no one is calling an ambulance, he suddenly
collapsed" is no negative). Everything else, including the reasons that describe a crisis
without naming one, goes to the scorer: a logistic regression over
the folded text's n-grams and the rule's features (models/emergency.json, docs/judges.md). Its
probability falls in one of three bands, whose bounds the model file carries:

- at or above `emergency`: an emergency (allow, with the persona's emergency line);
- at or above `doubt`: maybe one. The reply never denies: it points to the emergency button;
- below: no emergency, and the evaluation goes on as usual; except that a reason naming one of
  the spec's own urgent keywords (火警, 医院, emergency) with no cue against it is at least in
  doubt. The spec allowed those outright; the scorer may disagree ("This is an emergency!!! my
  streamer just went live"), but such a reason is never denied.

Pure: the rules and the model arrive as arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from intercept_session.engine.urgency import SPEC_KEYWORDS, CueKind, Reading, UrgencyRules, read
from persona_rails.local_model import LocalModel

# The cues under which the rule decides by itself that a mention is not urgent.
SURE_CUES = frozenset({CueKind.NEGATION, CueKind.PAST, CueKind.ROUTINE})
POSITIVE = "emergency"


class Finding(StrEnum):
    EMERGENCY = "emergency"
    DOUBT = "doubt"
    NONE = "none"


@dataclass(frozen=True)
class EmergencyJudgment:
    finding: Finding
    # The scorer's probability, or None when the rule decided alone.
    probability: float | None
    # Lexicon words and numbers only, never the user's: it goes into the stored justification.
    explanation: str

    @property
    def emergency(self) -> bool:
        return self.finding is Finding.EMERGENCY


def rule_features(reading: Reading) -> dict[str, float]:
    """The rule's reading as the scorer's named features (each 0 or 1)."""
    features = {
        "keyword_urgent": any(mention.urgent for mention in reading.mentions),
        "keyword_boosted": any(mention.overridden is not None for mention in reading.mentions),
        "booster": reading.booster,
        "hyperbole": reading.hyperbole,
    }
    for kind in CueKind:
        features[f"keyword_{kind.value}"] = any(
            mention.cue is not None and mention.cue.kind is kind for mention in reading.mentions
        )
        features[f"cue_{kind.value}"] = kind in reading.cues
    return {name: 1.0 for name, present in features.items() if present}


def _explained(reading: Reading) -> str:
    explained = list(dict.fromkeys(mention.explain() for mention in reading.mentions))
    return "; ".join(explained[:3])


def ruled_out(reading: Reading) -> bool:
    """Whether the rule alone is sure there is no emergency (see the module's docstring)."""
    mentions = reading.mentions
    return (
        bool(mentions)
        and not reading.booster
        and all(mention.cue is not None and mention.cue.kind in SURE_CUES for mention in mentions)
    )


def judge_emergency(text: str, rules: UrgencyRules, model: LocalModel) -> EmergencyJudgment:
    reading = read(text, rules)
    mentions = reading.mentions
    if ruled_out(reading):
        return EmergencyJudgment(Finding.NONE, None, f"rule: {_explained(reading)}")
    probability = round(model.probabilities(text, rule_features(reading))[POSITIVE], 4)
    spec_keyword = any(mention.urgent and mention.keyword in SPEC_KEYWORDS for mention in mentions)
    if probability >= model.thresholds["emergency"]:
        finding = Finding.EMERGENCY
    elif probability >= model.thresholds["doubt"] or spec_keyword:
        finding = Finding.DOUBT
    else:
        finding = Finding.NONE
    because = f"; {_explained(reading)}" if mentions else ""
    return EmergencyJudgment(finding, probability, f"scorer {probability:.2f}: {finding.value}{because}")
