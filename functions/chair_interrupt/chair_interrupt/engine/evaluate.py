"""Deciding an interrupt: the filters, the threshold, and the two evaluators (the LLM's verdict,
parsed strictly, and the deterministic offline one), with the opener drawn from a seeded RNG.

Every path returns a `Decision`: the candidate or None, and why (`outcome`), so that a decision
record says what happened even when nobody interrupts.
"""

from __future__ import annotations

import hashlib
import random
import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum

from chair_interrupt.engine.config import ChairConfig
from chair_interrupt.engine.model import (
    Candidate,
    Chair,
    EvaluationContext,
    Interruptions,
    QuickCheck,
    Reason,
)
from chair_interrupt.engine.prompt import LlmVerdict
from persona_rails.folding import fold

_SENTENCE_END = re.compile(r"[.!?。！？]")
MAX_OPENER_WORDS = 8
MAX_OPENER_CHARS = 80


class Outcome(StrEnum):
    INTERRUPT = "interrupt"
    DISABLED = "disabled"
    CHAIR_INTERRUPTIONS_OFF = "chair_interruptions_off"
    NO_ELIGIBLE_CHAIR = "no_eligible_chair"
    NO_QUICK_TRIGGER = "no_quick_trigger"
    DECLINED = "declined"
    BELOW_THRESHOLD = "below_threshold"
    UNKNOWN_CHAIR = "unknown_chair"
    UNKNOWN_REASON = "unknown_reason"
    MALFORMED_REPLY = "malformed_reply"
    ON_COOLDOWN = "on_cooldown"
    NO_DEFENDER = "no_defender"


@dataclass(frozen=True)
class Decision:
    outcome: Outcome
    candidate: Candidate | None = None
    urgency: float | None = None


def seed_for(debate_id: str, request_fingerprint: str) -> int:
    """The opener's RNG seed: fixed by the debate and the request, so a retry and a replay draw
    the same opener, and tests are reproducible."""
    digest = hashlib.sha256(f"{debate_id}:{request_fingerprint}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def opener(config: ChairConfig, reason: Reason, seed: int) -> str:
    return random.Random(seed).choice(config.openers.openers[reason])  # noqa: S311 - not security


def eligible_chairs(context: EvaluationContext, on_cooldown: frozenset[str]) -> list[Chair]:
    return [chair for chair in context.other_chairs if chair.position not in on_cooldown]


def gate(interruptions: Interruptions) -> Outcome | None:
    """The spec's filters that need nothing but the config."""
    if not interruptions.enabled:
        return Outcome.DISABLED
    if not interruptions.allow_chair_interruptions:
        return Outcome.CHAIR_INTERRUPTIONS_OFF
    return None


def asks_llm(config: ChairConfig, quick: QuickCheck, aggressiveness: int) -> bool:
    """Quick heuristics first (spec): the model is asked only about a chunk with a trigger, or
    in a debate aggressive enough to interrupt for subtler reasons."""
    return quick.potential_trigger or aggressiveness >= config.policy.llm_gate.always_from_aggressiveness


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, value))


def _sentence_around(text: str, span: tuple[int, int], limit: int) -> str:
    start = max((m.end() for m in _SENTENCE_END.finditer(text, 0, span[0])), default=0)
    end_match = _SENTENCE_END.search(text, span[1])
    end = end_match.end() if end_match else len(text)
    return text[start:end].strip()[:limit]


# Reasons that defend a named framework: only the chair holding it can say "you misrepresent my view".
DEFENDING_REASONS = frozenset({Reason.STRAW_MAN_DETECTED, Reason.FACTUAL_CORRECTION})


def named_frameworks(config: ChairConfig, content: str) -> set[str]:
    folded = fold(content)
    return {key for key, pattern in config.aliases if pattern.search(folded)}


def targeted_chair(
    config: ChairConfig, content: str, chairs: tuple[Chair, ...] | list[Chair]
) -> Chair | None:
    """The chair whose framework the content names ("Virtue ethics people just want…")."""
    aliases = dict(config.aliases)
    for chair in chairs:
        pattern = aliases.get(chair.framework)
        if pattern is not None and pattern.search(fold(content)):
            return chair
    return None


def offline_decision(
    config: ChairConfig,
    context: EvaluationContext,
    eligible: list[Chair],
    quick: QuickCheck,
    *,
    threshold: float,
    seed: int,
) -> Decision:
    """The deterministic evaluator: the quick check's reason, its base urgency, plus a bonus when
    the chunk names an eligible chair's framework and when it exclaims."""
    if not eligible:
        return Decision(Outcome.NO_ELIGIBLE_CHAIR)
    if not quick.potential_trigger or quick.likely_reason is None or quick.span is None:
        return Decision(Outcome.NO_QUICK_TRIGGER)
    rules = config.policy.offline
    target = targeted_chair(config, context.recent_content, context.other_chairs)
    if quick.likely_reason in DEFENDING_REASONS:
        if target is not None and target not in eligible:
            # The misrepresented chair is on cooldown: nobody else can defend its view for it.
            return Decision(Outcome.ON_COOLDOWN)
        if target is None and named_frameworks(config, context.recent_content):
            # A framework no listening chair holds (or the speaker's own): nobody here to defend it.
            return Decision(Outcome.NO_DEFENDER)
    elif target is not None and target not in eligible:
        target = None
    trigger = _sentence_around(context.recent_content, quick.span, rules.trigger_content_max_chars)
    urgency = rules.base_urgency[quick.likely_reason]
    if target is not None:
        urgency += rules.targets_a_chair_bonus
    if "!" in context.recent_content or "！" in context.recent_content:
        urgency += rules.exclamation_bonus
    if config.hedges.search(fold(trigger)):
        urgency -= rules.hedged_penalty
    urgency = round(_clamp(urgency), 2)
    if urgency < threshold:
        return Decision(Outcome.BELOW_THRESHOLD, urgency=urgency)
    candidate = Candidate(
        interrupting_chair=target or eligible[0],
        interrupted_chair=context.current_speaker,
        trigger_reason=quick.likely_reason,
        trigger_content=trigger,
        urgency=urgency,
        suggested_opener=opener(config, quick.likely_reason, seed),
    )
    return Decision(Outcome.INTERRUPT, candidate, urgency)


def _plain(text: str) -> str:
    """The model's text as one line of printable characters (no ESC, BEL or other controls)."""
    return " ".join("".join(" " if unicodedata.category(char) == "Cc" else char for char in text).split())


def _usable_opener(text: str | None) -> str | None:
    if text is None:
        return None
    text = _plain(text)
    if not text or len(text) > MAX_OPENER_CHARS or len(text.split()) > MAX_OPENER_WORDS:
        return None
    return text


def llm_decision(
    config: ChairConfig,
    context: EvaluationContext,
    eligible: list[Chair],
    verdict: LlmVerdict,
    *,
    threshold: float,
    seed: int,
) -> Decision:
    """The model's verdict, parsed as the spec parses it, and stricter where it is silent: an
    unknown reason or chair is no interrupt, the urgency is clamped to [0, 1], and a missing or
    unusable opener is drawn from the reason's pool."""
    exact = _clamp(verdict.urgency)
    # Compared as given (0.699 is below 0.7), reported to two decimals.
    urgency = round(exact, 2)
    if not verdict.should_interrupt:
        return Decision(Outcome.DECLINED, urgency=urgency)
    if exact < threshold:
        return Decision(Outcome.BELOW_THRESHOLD, urgency=urgency)
    chair = next((c for c in eligible if c.position == verdict.interrupting_chair_position), None)
    if chair is None:
        return Decision(Outcome.UNKNOWN_CHAIR, urgency=urgency)
    if verdict.reason not in {reason.value for reason in Reason}:
        return Decision(Outcome.UNKNOWN_REASON, urgency=urgency)
    reason = Reason(verdict.reason)
    limit = config.policy.offline.trigger_content_max_chars
    trigger = _plain(verdict.trigger_content or "")[:limit] or context.recent_content[:limit]
    candidate = Candidate(
        interrupting_chair=chair,
        interrupted_chair=context.current_speaker,
        trigger_reason=reason,
        trigger_content=trigger,
        urgency=urgency,
        suggested_opener=_usable_opener(verdict.suggested_opener) or opener(config, reason, seed),
    )
    return Decision(Outcome.INTERRUPT, candidate, urgency)
