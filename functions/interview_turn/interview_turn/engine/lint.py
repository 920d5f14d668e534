"""Every configured line must pass the safety overlay's own post-generation check.

Run when the configuration loads: a template that would be rejected at run time (a prohibited
pattern, too long, too many questions) is a broken artifact and fails the cold start.
"""

from __future__ import annotations

from collections.abc import Iterator

from interview_turn.engine.config import InterviewConfig
from interview_turn.engine.evaluator import TokenCounter, measure
from interview_turn.engine.model import Persona
from interview_turn.engine.policy import LANGUAGES, Lines
from interview_turn.engine.render import fill
from interview_turn.engine.safety import post_check

SAMPLE_VALUES = {
    "en": {
        "name": "Margaret",
        "topic": "your childhood home",
        "next_topic": "your first job",
        "earlier": "1985",
        "current": "1987",
    },
    "zh": {
        "name": "王阿姨",
        "topic": "童年的家",
        "next_topic": "第一份工作",
        "earlier": "1985",
        "current": "1987",
    },
}


def _lines(config: InterviewConfig) -> Iterator[tuple[str, Persona, Lines]]:
    for persona, profile in config.personas.personas.items():
        for tactic, lines in profile.tactics.items():
            yield f"persona-profiles.json: personas.{persona.value}.tactics.{tactic}", persona, lines
    for name, machine in config.machines.machines.items():
        for index, state in enumerate(machine.states):
            yield (
                f"state-machines.json: machines.{name}.states[{index}].templates",
                machine.persona,
                state.templates,
            )
        fallback = machine.exit.fallback
        yield (
            f"state-machines.json: machines.{name}.exit.fallback.templates",
            fallback.persona,
            fallback.templates,
        )
    nc = config.constraints
    safety = Persona.SAFETY_FALLBACK
    for name, lines in nc.fallbacks.items():
        yield f"negative-constraints.json: fallbacks.{name}", safety, lines
    yield "negative-constraints.json: deescalate", safety, nc.deescalate
    yield "negative-constraints.json: pause", safety, nc.pause
    yield "negative-constraints.json: redirect", safety, nc.redirect
    yield "negative-constraints.json: step_sideways", safety, nc.step_sideways
    for stop in ("stop_request", "acute_distress", "self_harm"):
        yield f"negative-constraints.json: hard_stops.{stop}", safety, getattr(nc.hard_stops, stop)


def _as_said(config: InterviewConfig, persona: Persona, where: str, line: str, language: str) -> list[str]:
    """The line alone, and as the engine may say it: followed by the step-sideways option (any
    persona but the safety fallback) or, for the self-harm line, by each locale's crisis guidance."""
    nc = config.constraints
    joiner = "" if language == "zh" else " "
    said = [line]
    if persona is not Persona.SAFETY_FALLBACK:
        said += [line + joiner + sideways for sideways in nc.step_sideways.for_language(language)]
    if where.endswith("hard_stops.self_harm"):
        said += [
            line + joiner + guidance
            for locale, guidance in nc.crisis_guidance.items()
            if locale.split("-")[0] == language
        ]
    return said


def template_problems(config: InterviewConfig, count_tokens: TokenCounter) -> list[str]:
    problems = []
    for locale, guidance in config.constraints.crisis_guidance.items():
        broken = [
            rule_id
            for rule_id, _, patterns in config.compiled_constraints.rules
            if any(p.search(guidance) for p in patterns)
        ]
        if broken:
            problems.append(
                f"negative-constraints.json: crisis_guidance.{locale}: the line breaks {', '.join(broken)}"
            )
    for where, persona, lines in _lines(config):
        for language in LANGUAGES:
            for index, template in enumerate(lines.for_language(language)):
                for text in _as_said(
                    config, persona, where, fill(template, SAMPLE_VALUES[language]), language
                ):
                    violated = post_check(config, text, persona, measure(text, count_tokens))
                    if violated:
                        ids = ", ".join(v.rule_id for v in violated)
                        problems.append(f"{where}.{language}[{index}]: the line breaks {ids}")
                        break
    return problems
