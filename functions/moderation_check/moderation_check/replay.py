"""Replay a stored moderation check (decision kind `moderation.intimacy`) with no network.

A reused check is rebuilt from the earlier decision its record kept; a computed one runs the
plugin again on the kept text, with the third-party score parsed from the recorded LLM reply and
the local model's score recomputed by the shipped model when it is the one the record names (a
check decided by another model keeps the score that model gave).
A check stored with `PERSONA_RAILS_MODERATION_STORE_TEXT=false` cannot be recomputed, and says so.
"""

from __future__ import annotations

import uuid
from typing import Any

from persona_rails.decisions import DecisionRecord, NotReplayable
from persona_rails.moderation.intimacy import evaluate, reused
from persona_rails.moderation.lexicon import lexicon_artifact
from persona_rails.moderation.local_scorer import intimacy_model, local_model_score
from persona_rails.moderation.records import policy_version, replayable_output
from persona_rails.moderation.schemas import CheckResponse, FinalDecision, PolicyOut, Results
from persona_rails.moderation.scoring import Policy
from persona_rails.moderation.third_party import parse_recorded


def replay(record: DecisionRecord) -> dict[str, Any]:
    inputs = record.inputs
    lexicon = lexicon_artifact()
    model = intimacy_model()
    policy = Policy(inputs["policy"])
    if inputs.get("reused"):
        outcome = reused(inputs["reused"])
        assert outcome is not None, "a reused check always kept a valid label"
    else:
        if inputs.get("text") is None:
            raise NotReplayable("the inputs were not kept (PERSONA_RAILS_MODERATION_STORE_TEXT was off)")
        outcome = evaluate(
            inputs["text"],
            stage=inputs["stage"],
            policy=policy,
            lexicon=lexicon.value,
            local_model_score=(
                local_model_score(model, inputs["text"], lexicon.value)
                if inputs.get("local_model") == model.id
                else inputs.get("local_model_score")
            ),
            third_party_score=parse_recorded(record.raw_reply) if record.raw_reply else None,
        )
    response = CheckResponse(
        check_id=uuid.UUID(record.id),
        decision=FinalDecision(final=outcome.final),
        results=Results(intimacy=outcome.result),
        policy=PolicyOut(name=policy, version=policy_version(policy, lexicon, model)),
        stage=inputs["stage"],
    )
    return replayable_output(response)
