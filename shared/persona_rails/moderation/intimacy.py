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


def may_reuse(
    earlier: dict[str, Any],
    *,
    folded_hash: str,
    computed: Evaluation,
    llm_asked: bool,
    stage: int,
    policy: Policy,
    lexicon: Lexicon,
    text: str,
) -> bool:
    """Reuse saves the LLM call; it never overrides what any source would see in the new text.

    An earlier decision stands for the same text after folding. For any other text, however
    similar (a long text with a disarming sentence appended can be 0.99 similar), it stands only
    if no LLM scored it or would score this one, and the rule and the local model score the new
    text exactly as they scored the old (so the decision would be the same), with no word
    forbidden at this stage."""
    if earlier.get("folded_hash") == folded_hash:
        return True
    if llm_asked or earlier.get("third_party_score") is not None:
        return False
    sources = computed.result.sources
    if (sources.rule, sources.local_model) != (earlier.get("rule_score"), earlier.get("local_score")):
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
