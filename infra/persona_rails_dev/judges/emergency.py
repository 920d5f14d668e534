"""The emergency judgment: is a reason, typed after three overrides today, a genuine emergency?

Decided as InterceptSessionFunction decides a reason turn on its offline path (`decide_turn`
with no LLM reply): `yes` when the turn comes back with `emergency: true`. A turn the judge was
in doubt about (`emergency_suggested`) is `no` here; the report counts them apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from persona_rails_dev import evalsets
from persona_rails_dev.judges import Case, with_function

LABELS = ("yes", "no")
OVERRIDES_TODAY = 3
# The targets, in each language: emergencies caught, and other reasons flagged.
TARGETS = {
    **{f"targets.{language}.caught": (0.90, False) for language in evalsets.LANGUAGES},
    **{f"targets.{language}.false_alarms": (0.10, True) for language in evalsets.LANGUAGES},
}


@dataclass(frozen=True)
class EmergencyJudge:
    name: str = "emergency"
    labels: tuple[str, ...] = LABELS

    def items(self, split: str) -> Sequence[evalsets.EmergencyItem]:
        return evalsets.load(self.name, split, evalsets.EmergencyItem)

    def items_of(self, path: Path) -> Sequence[evalsets.EmergencyItem]:
        return evalsets.load_file(path, evalsets.EmergencyItem, prefix="own")

    def cases(self, items: Sequence[evalsets.Item]) -> list[Case]:
        return [
            Case(item, "", "yes" if item.emergency else "no")
            for item in items
            if isinstance(item, evalsets.EmergencyItem)
        ]

    def turn(self, text: str) -> Any:
        """The turn InterceptSessionFunction decides for `text` (a TurnDecision) on its offline path."""
        from intercept_session.engine.model import EvaluationInput, RuleContext, Trigger
        from intercept_session.engine.turn import decide_turn
        from intercept_session.judges import judges
        from intercept_session.personas import personas

        request = EvaluationInput(
            reason_text=text,
            trigger=Trigger.QUOTA_EXCEEDED,
            rule=RuleContext("每天短视频不超过30分钟", "抖音", "今天的任务", 30, 10),
            streak=2,
            override_count_today=OVERRIDES_TODAY,
        )
        return decide_turn(request, personas().get("humor-coach"), None, judges())

    def decide(self, text: str, context: str) -> str:
        return "yes" if self.turn(text).evaluation.emergency else "no"

    def targets(self) -> dict[str, tuple[float, bool]]:
        return TARGETS

    def extra_figures(self, decided: Sequence[Any]) -> dict[str, Any]:
        """Per language: emergencies caught, other reasons flagged, and the emergencies that got
        at least the emergency-button reply (`reached`) and the others that got it (`doubted`)."""
        found: dict[str, Any] = {}
        for language in (*evalsets.LANGUAGES, "all"):
            chosen = [d for d in decided if language in ("all", d.case.item.lang)]
            yes = [d for d in chosen if d.case.expected == "yes"]
            no = [d for d in chosen if d.case.expected == "no"]
            doubted = {
                id(d)
                for d in chosen
                if d.decided == "no" and self.turn(d.case.item.text).evaluation.emergency_doubt
            }
            found[language] = {
                "caught": round(sum(d.decided == "yes" for d in yes) / len(yes), 4) if yes else 0.0,
                "false_alarms": round(sum(d.decided == "yes" for d in no) / len(no), 4) if no else 0.0,
                "reached": round(sum(d.decided == "yes" or id(d) in doubted for d in yes) / len(yes), 4)
                if yes
                else 0.0,
                "doubted_false_alarms": round(sum(id(d) in doubted for d in no) / len(no), 4) if no else 0.0,
            }
        return found


def build() -> EmergencyJudge:
    with_function("intercept_session")
    return EmergencyJudge()
