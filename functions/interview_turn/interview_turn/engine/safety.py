"""The safety overlay (spec: Safety Overlay): constraints attached before generation, and the
post-generation check that rejects a candidate reply.

The check runs every prohibited pattern on every candidate, whatever the persona (a diagnosis
is as wrong in a warm turn as in a clarifying one), then the length cap (monologue), the
question-density cap and the therapy-framing detector. A rejected candidate is replaced by the
violated rule's fallback line and the turn becomes a `SAFETY_FALLBACK` override.
"""

from __future__ import annotations

from dataclasses import dataclass

from interview_turn.engine.config import InterviewConfig
from interview_turn.engine.evaluator import Metrics
from interview_turn.engine.model import Persona


@dataclass(frozen=True)
class Violation:
    rule_id: str
    fallback: str


@dataclass(frozen=True)
class AttachedConstraint:
    rule_id: str
    instruction: str


def attached_constraints(config: InterviewConfig, persona: Persona) -> list[AttachedConstraint]:
    """Pre-generation: what the model is told for this persona, rule ids included."""
    nc = config.constraints
    limit = length_cap(config, persona)
    attached = [AttachedConstraint(c.id, c.instruction) for c in nc.constraints if persona in c.applies_to]
    attached.append(
        AttachedConstraint(
            nc.monologue.id,
            f"{nc.monologue.instruction} At most {limit} tokens and {nc.monologue.max_sentences} sentences.",
        )
    )
    attached.append(
        AttachedConstraint(
            nc.question_density.id,
            f"{nc.question_density.instruction} At most {nc.question_density.max_questions} question marks.",
        )
    )
    attached.append(AttachedConstraint(nc.therapy_framing.id, nc.therapy_framing.instruction))
    return attached


def length_cap(config: InterviewConfig, persona: Persona) -> int:
    return min(
        config.constraints.monologue.max_response_tokens,
        config.personas.personas[persona].verbosity.max_response_tokens,
    )


def post_check(config: InterviewConfig, text: str, persona: Persona, metrics: Metrics) -> list[Violation]:
    nc = config.constraints
    matched = config.for_matching(text)
    found = [
        Violation(rule_id, fallback)
        for rule_id, fallback, patterns in config.compiled_constraints.rules
        if any(pattern.search(matched) for pattern in patterns)
    ]
    if (
        metrics.response_tokens > length_cap(config, persona)
        or metrics.sentence_count > nc.monologue.max_sentences
    ):
        found.append(Violation(nc.monologue.id, nc.monologue.fallback))
    density = nc.question_density
    if (
        metrics.question_count > density.max_questions
        or metrics.question_tokens_mean > density.max_question_tokens_mean
    ):
        found.append(Violation(density.id, density.fallback))
    return found
