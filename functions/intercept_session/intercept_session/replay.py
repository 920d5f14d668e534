"""Replay a stored verdict (decision kind `intercept.verdict`): recompute it with no network.

A turn the LLM decided is replayed from its recorded reply, parsed exactly as it was then; an
offline turn runs the offline evaluator again. The emergency judge, the heuristics and the
persona's message follow, as in `decide_turn`, with the urgency lexicon and the local models
deployed now (a turn decided under other versions, which its record's config_version names, may
replay differently). A turn whose reason was purged after the retention period cannot be
recomputed, and says so.
"""

from __future__ import annotations

from typing import Any

from intercept_session.engine.turn import LlmVerdict, decide_turn, from_llm_reply, request_from_inputs
from intercept_session.judges import judges
from intercept_session.personas import personas
from persona_rails.decisions import DecisionRecord, NotReplayable
from persona_rails.llm.structured import parse_reply


def replay(record: DecisionRecord) -> dict[str, Any]:
    appeal_of = record.inputs.get("appeal_of")
    if record.inputs.get("reason_text") is None or (appeal_of and appeal_of.get("reason_text") is None):
        raise NotReplayable(
            "the reason was purged after the retention period (PERSONA_RAILS_REASON_RETENTION_DAYS)"
        )
    request = request_from_inputs(record.inputs)
    persona = personas().get(record.inputs["persona_key"])
    answer = None
    if record.source == "llm":
        assert record.raw_reply is not None, "an llm decision always keeps its reply"
        answer = from_llm_reply(parse_reply(record.raw_reply, LlmVerdict))
    return decide_turn(request, persona, answer, judges()).as_record()
