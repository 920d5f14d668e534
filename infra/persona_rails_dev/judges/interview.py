"""The interview judgment: what a narrator's answer asks of the interviewer now: nothing, a pause,
the end of the interview, help in acute distress, or the crisis guidance of a self-harm signal;
and how emotionally charged it is. Decided as InterviewTurnFunction's heuristic signal extractor
reads an answer (no LLM): its hard stop, else its pause request, else none.

Emotion is reported apart: answers labelled `high` that reach the router's emotion threshold
(0.65, where the interviewer turns to the feeling), and answers labelled `low` that stay below it.

Repetition is measured on whole sessions: the split's answers that keep a session open (labelled
and read as no hard stop), in file order and per language, played 30 at a time through the
offline interviewer. A line is repeated when the session said it before; the target is at most
5 % over 30 turns, and none within 5 turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from persona_rails_dev import evalsets
from persona_rails_dev.judges import Case, with_function

LABELS = ("none", "pause", "stop_request", "acute_distress", "self_harm")
# The targets (on sets kept outside the project): every pause request and hard stop
# caught; reported here on the test split as the recall of each signal.
TARGETS = {
    "targets.pause.recall": (1.0, False),
    "targets.hard_stops.recall": (1.0, False),
    "targets.repetition.repeated_share": (0.05, True),
    "targets.repetition.repeated_within_5": (0.0, True),
}
SESSION_TURNS = 30
TOPIC_PLAN = (
    ("childhood", "your childhood"),
    ("working_life", "your working life"),
    ("family", "your family"),
)
OPEN_TARGETS = {
    "targets.pause.recall": "issue 22: pause requests said indirectly are missed",
    "targets.hard_stops.recall": "issue 22: hard stops said indirectly are missed",
}
HARD_STOPS = ("stop_request", "acute_distress", "self_harm")


@dataclass(frozen=True)
class InterviewJudge:
    name: str = "interview"
    labels: tuple[str, ...] = LABELS

    def items(self, split: str) -> Sequence[evalsets.InterviewItem]:
        return evalsets.load(self.name, split, evalsets.InterviewItem)

    def items_of(self, path: Path) -> Sequence[evalsets.InterviewItem]:
        return evalsets.load_file(path, evalsets.InterviewItem, prefix="own")

    def cases(self, items: Sequence[evalsets.Item]) -> list[Case]:
        return [Case(item, "", item.signal) for item in items if isinstance(item, evalsets.InterviewItem)]

    def signals(self, text: str) -> Any:
        from interview_turn.artifacts import interview_config
        from interview_turn.engine.model import TopicState
        from interview_turn.engine.signals import extract

        config = interview_config()
        return extract(config, text, topic_id="life_story", topic=TopicState(depth=1), turn_no=1).signals

    def decide(self, text: str, context: str) -> str:
        signals = self.signals(text)
        if signals.hard_stop is not None:
            return str(signals.hard_stop.value)
        return "pause" if signals.pause_requested else "none"

    def targets(self) -> dict[str, tuple[float, bool]]:
        return TARGETS

    def open_targets(self) -> dict[str, str]:
        return OPEN_TARGETS

    def extra_figures(self, decided: Sequence[Any]) -> dict[str, Any]:
        from interview_turn.artifacts import interview_config

        threshold = interview_config().router.thresholds.emotion

        def share(chosen: list[Any], hit: Any) -> float:
            return round(sum(map(hit, chosen)) / len(chosen), 4) if chosen else 0.0

        pauses = [d for d in decided if d.case.expected == "pause"]
        stops = [d for d in decided if d.case.expected in HARD_STOPS]
        items = [d.case.item for d in decided if isinstance(d.case.item, evalsets.InterviewItem)]
        high = [item for item in items if item.emotion == "high"]
        moderate = [item for item in items if item.emotion == "moderate"]
        low = [item for item in items if item.emotion == "low"]
        return {
            "pause": {"recall": share(pauses, lambda d: d.decided == "pause")},
            # Any hard stop counts as caught: each closes the session safely.
            "hard_stops": {"recall": share(stops, lambda d: d.decided in HARD_STOPS)},
            "emotion": {
                "high_read": share(high, lambda item: self.signals(item.text).emotion_score >= threshold),
                # Moderate answers the interviewer turns to as heavy: a ceiling, not a floor.
                "moderate_false_alarms": share(
                    moderate, lambda item: self.signals(item.text).emotion_score >= threshold
                ),
                "low_kept_low": share(low, lambda item: self.signals(item.text).emotion_score < threshold),
            },
            "repetition": repetition([i for i in items if self.decide(i.text, "") not in HARD_STOPS]),
        }


def repetition(items: Sequence[evalsets.InterviewItem]) -> dict[str, Any]:
    """Lines said again in sessions of `SESSION_TURNS` answers (see the module's docstring); the
    items are answers the interviewer reads as keeping the session open."""
    from interview_turn.engine.model import Language

    lines = repeated = within_5 = sessions = 0
    for language in Language:
        answers = [i.text for i in items if i.lang == language.value and i.signal not in HARD_STOPS]
        for start in range(0, len(answers) - SESSION_TURNS + 1, SESSION_TURNS):
            said = play_session(language, answers[start : start + SESSION_TURNS], f"eval-{language}-{start}")
            sessions += 1
            lines += len(said)
            for position, line in enumerate(said):
                repeated += line in said[:position]
                within_5 += line in said[max(0, position - 5) : position]
    return {
        "sessions": sessions,
        "lines": lines,
        "repeated_share": round(repeated / lines, 4) if lines else 0.0,
        "repeated_within_5": float(within_5),
    }


def play_session(language: Any, answers: Sequence[str], session_id: str) -> list[str]:
    """The interviewer's lines, opening first, for these answers played offline in one session."""
    from interview_turn.artifacts import interview_config
    from interview_turn.engine.model import SessionState, TopicPlanItem, TurnInput
    from interview_turn.engine.turn import finish_turn, initial_state, plan_opening, plan_turn
    from interview_turn.generation import turn_seed
    from persona_rails.llm.tokens import count_tokens

    config = interview_config()
    plan = tuple(TopicPlanItem(topic_id, title) for topic_id, title in TOPIC_PLAN)
    state = initial_state(config, SessionState(language, "Ann", None, plan, False, ""))
    opening = plan_opening(config, state, turn_seed(session_id, 0))
    outcome = finish_turn(config, opening, opening.offline_line(), count_tokens)
    said = [outcome.contract["response_text"]]
    state = outcome.state_after
    for answer in answers:
        turn = plan_turn(config, state, TurnInput(answer), turn_seed(session_id, state.turn_no + 1))
        outcome = finish_turn(config, turn, turn.offline_line(), count_tokens)
        said.append(outcome.contract["response_text"])
        state = outcome.state_after
    return said


def build() -> InterviewJudge:
    with_function("interview_turn")
    return InterviewJudge()
