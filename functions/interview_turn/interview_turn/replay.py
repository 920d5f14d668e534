"""Replay a stored interview turn (decision kind `interview.turn`) with no network.

The engine runs again on the state the turn started from. A turn whose signals or text came
from the LLM is replayed from the recorded replies, parsed as they were then; an offline turn
draws its template again with the recorded seed.
"""

from __future__ import annotations

import json
from typing import Any

from interview_turn.artifacts import interview_config
from interview_turn.engine import assisted
from interview_turn.engine.model import SessionState, TurnInput
from interview_turn.engine.prompt import GeneratedTurn
from interview_turn.engine.turn import finish_turn, merged_signals, plan_opening, plan_turn
from persona_rails.decisions import DecisionRecord, NotReplayable
from persona_rails.llm.structured import parse_reply
from persona_rails.llm.tokens import count_tokens


def replay(record: DecisionRecord) -> dict[str, Any]:
    config = interview_config()
    if record.seed is None:
        raise NotReplayable("the turn's seed was not recorded")
    seed = int(record.seed)
    inputs = record.inputs
    state = SessionState.from_json(inputs["state"])
    replies: dict[str, str] = json.loads(record.raw_reply) if record.raw_reply else {}
    if inputs.get("opening"):
        plan = plan_opening(config, state, seed)
    else:
        turn = TurnInput(**inputs["turn"])
        signals = None
        if "signals" in replies:
            answer = parse_reply(replies["signals"], assisted.AssistedSignals)
            signals = merged_signals(config, state, turn, answer)
        plan = plan_turn(config, state, turn, seed, signals)
    if "generation" in replies:
        candidate = parse_reply(replies["generation"], GeneratedTurn).response_text
    else:
        candidate = plan.offline_line()
    outcome = finish_turn(config, plan, candidate, count_tokens)
    return {
        "contract": outcome.contract,
        "signals": outcome.signals,
        "winning_rule": outcome.winning_rule,
        "telemetry": outcome.telemetry,
    }
