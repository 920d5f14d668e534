"""The generator's LLM messages (spec: Generator, Pre-Generation Enforcement).

System: the ≤300-word `system-prompt-block.txt`, then this turn's persona style, tactic, depth
level and the constraints attached by rule id, and the fallback line to use if the model cannot
comply. User: the interviewer's previous line and the narrator's answer, nothing older, so the
prompt (and its cost) does not grow with the session.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from interview_turn.engine.config import InterviewConfig
from interview_turn.engine.model import Language, Persona
from interview_turn.engine.safety import AttachedConstraint

MAX_REPLY_CHARS = 1200


class GeneratedTurn(BaseModel):
    response_text: str = Field(min_length=1, max_length=MAX_REPLY_CHARS)


def messages(
    config: InterviewConfig,
    *,
    persona: Persona,
    tactic: str,
    depth_level: int,
    language: Language,
    constraints: list[AttachedConstraint],
    example: str,
    previous_line: str | None,
    user_text: str,
) -> list[dict[str, str]]:
    profile = config.personas.personas[persona]
    level = config.depth.levels[depth_level]
    rules = "\n".join(f"- [{c.rule_id}] {c.instruction}" for c in constraints)
    system = (
        f"{config.system_prompt.strip()}\n\n"
        f"Persona: {persona.value}. {profile.style}\n"
        f"Tactic: {tactic}. A line in this tactic: {example}\n"
        f"Depth level: {depth_level} ({level.name}): {level.description}\n"
        f"Language: {'Chinese (简体中文)' if language is Language.ZH else 'English'}\n"
        f"Constraints for this turn:\n{rules}\n"
        f"Fallback line: {example}\n"
        'Answer as JSON: {"response_text": "..."}'
    )
    user = f"Interviewer's previous line: {previous_line or '(none)'}\nNarrator: {user_text}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
