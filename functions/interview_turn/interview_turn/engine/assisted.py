"""The LLM-assisted signal mode, and the answer to the spec's open question on contradictions.

How is `contradiction_score` computed? Heuristic first, model-assisted when configured, and
always grounded: a model may raise a contradiction only by citing one of the facts the
heuristic extractor stored for this topic (by index) and the value it now hears. An uncited
"this feels inconsistent" is ignored, so the interviewer never challenges a narrator over
something they did not say. The merge only ever adds caution:
- vagueness: the mean of the two scores; emotion: the higher;
- contradiction: the higher, with the heuristic's conflict kept when it found one;
- refusal and hard stops: either source can raise them, neither can clear them (of two hard
  stops the graver wins), and a conflict already clarified is not raised again;
- elaboration opens the depth gate, which is not caution: it stays the heuristic's.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from pydantic import BaseModel, Field

from interview_turn.engine.facts import FactConflict
from interview_turn.engine.model import Fact, HardStop, Phase, TopicState, graver
from interview_turn.engine.signals import Signals

MAX_LISTED_FACTS = 20


class CitedContradiction(BaseModel):
    fact_index: int = Field(ge=0, lt=MAX_LISTED_FACTS)
    current_value: str = Field(min_length=1, max_length=40)


class AssistedSignals(BaseModel):
    vagueness_score: float = Field(ge=0, le=1)
    emotion_score: float = Field(ge=0, le=1)
    contradiction_score: float = Field(ge=0, le=1)
    contradiction: CitedContradiction | None
    refusal_or_discomfort: bool
    user_initiated_elaboration: bool
    hard_stop: Literal["none", "stop_request", "acute_distress", "self_harm"]


def listed_facts(facts: tuple[Fact, ...]) -> list[Fact]:
    """The newest facts of the topic, in the order the prompt numbers them."""
    return list(facts[-MAX_LISTED_FACTS:])


def messages(user_text: str, facts: tuple[Fact, ...], previous_line: str | None) -> list[dict[str, str]]:
    numbered = "\n".join(
        f"{index}. {fact.kind.value} of '{fact.anchor}': {fact.value}"
        for index, fact in enumerate(listed_facts(facts))
    )
    system = (
        "You score one answer in a memoir interview. Scores are 0 to 1. vagueness: hedging or missing "
        "specifics. emotion: intensity of feeling. contradiction: the answer states a different value "
        "for one "
        "of the numbered earlier facts; cite its index and the new value, else null and 0. "
        "refusal_or_discomfort: the narrator declines or is uneasy. user_initiated_elaboration: they offered "
        "more than was asked. hard_stop: stop_request, acute_distress, self_harm or none.\n"
        f"Earlier facts on this topic:\n{numbered or '(none)'}"
    )
    user = f"Interviewer: {previous_line or '(none)'}\nNarrator: {user_text}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def merge(heuristic: Signals, assisted: AssistedSignals, topic: TopicState) -> Signals:
    conflict = heuristic.contradiction
    contradiction = heuristic.contradiction_score
    cited = assisted.contradiction
    listed = listed_facts(topic.facts)
    if cited is not None and cited.fact_index < len(listed) and assisted.contradiction_score > contradiction:
        earlier = listed[cited.fact_index]
        # A conflict clarified once is not raised again, whoever noticed it.
        if earlier.value.casefold() != cited.current_value.casefold() and earlier.key not in topic.clarified:
            contradiction = assisted.contradiction_score
            conflict = conflict or FactConflict(
                earlier.kind,
                earlier.anchor,
                earlier.value,
                cited.current_value,
                earlier.turn_no,
                contradiction,
            )
    hard_stop = graver(
        heuristic.hard_stop, None if assisted.hard_stop == "none" else HardStop(assisted.hard_stop)
    )
    return replace(
        heuristic,
        vagueness_score=round((heuristic.vagueness_score + assisted.vagueness_score) / 2, 2),
        emotion_score=round(max(heuristic.emotion_score, assisted.emotion_score), 2),
        contradiction_score=round(contradiction, 2),
        contradiction=conflict,
        refusal_or_discomfort=heuristic.refusal_or_discomfort
        or assisted.refusal_or_discomfort
        or hard_stop is not None,
        # Elaboration opens the depth gate, so only the narrator's own words can raise it.
        user_initiated_elaboration=heuristic.user_initiated_elaboration,
        hard_stop=hard_stop,
        # A pause is the narrator's own request, read from their words; a hard stop outranks it.
        pause_requested=heuristic.pause_requested and hard_stop is None,
        conversation_phase=Phase.CLOSE if hard_stop else heuristic.conversation_phase,
    )
