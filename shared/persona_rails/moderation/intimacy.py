"""The intimacy plugin (spec §11–§14), pure: from the sources' scores, or a reused decision, to
the plugin's result and the final decision. The service does the I/O around it; replay calls
the same functions with what the decision record kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from persona_rails.moderation.lexicon import Lexicon
from persona_rails.moderation.schemas import IntimacyResult, SourceScores
from persona_rails.moderation.scoring import (
    Label,
    Policy,
    decide,
    forbidden_words,
    fuse,
    rule_score,
    verdict,
)


@dataclass(frozen=True)
class Evaluation:
    result: IntimacyResult
    final: Label


def evaluate(
    text: str,
    *,
    stage: int,
    policy: Policy,
    lexicon: Lexicon,
    local_model_score: float | None,
    third_party_score: float | None,
) -> Evaluation:
    """ComputeScores → FuseScores → ScoreToLabel → FinalDecision (§11's state machine)."""
    rule = rule_score(text, lexicon)
    fused = fuse(rule.score, local_model_score, third_party_score)
    judged = verdict(fused, rule, text, policy=policy, stage=stage, lexicon=lexicon)
    result = IntimacyResult(
        label=judged.label,
        score=fused,
        reason=judged.reason,
        sources=SourceScores(rule=rule.score, local_model=local_model_score, third_party=third_party_score),
        reused=False,
    )
    return Evaluation(result, decide([judged.label]))


def may_reuse(earlier: dict[str, Any], text: str, *, stage: int, policy: Policy, lexicon: Lexicon) -> bool:
    """Reuse saves the model calls; it never overrides what the rules see in the new text.

    A long text with a few words appended can be as similar as 0.99 to the earlier one, so the
    earlier label stands only if the new text has the same rule score (the same lexicon hits)
    and no word forbidden at this stage."""
    if rule_score(text, lexicon).score != earlier.get("rule_score"):
        return False
    return policy is not Policy.STAGE_AWARE or not forbidden_words(text, stage, lexicon)


def reused(earlier: dict[str, Any]) -> Evaluation | None:
    """ReuseResult → LabelFromHistory: an earlier check's label, if it is one of the four."""
    try:
        label = Label(earlier["label"])
    except ValueError:
        return None
    similarity = round(float(earlier["similarity"]), 4)
    result = IntimacyResult(
        label=label,
        score=float(earlier["score"]),
        reason=f"reused the decision of an earlier check (similarity {similarity:.4f}): {label}",
        sources=SourceScores(
            rule=earlier["rule_score"],
            local_model=earlier["local_score"],
            third_party=earlier["third_party_score"],
        ),
        reused=True,
        reused_from=earlier["id"],
        similarity=similarity,
    )
    return Evaluation(result, decide([label]))
