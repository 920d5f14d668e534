"""The evaluation prompt, as the spec writes it (buildEvaluationPrompt), and the reply it asks for.

The reply model is deliberately loose (any string for the reason and the chair, any number for
the urgency): what the model says is checked by the engine, which turns an unknown reason or
chair into "no interrupt" and clamps the urgency, exactly as the spec's parsing does.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from chair_interrupt.engine.config import ChairConfig
from chair_interrupt.engine.model import Chair, EvaluationContext

TEMPERATURE = 0.3
MAX_TOKENS = 300


class LlmVerdict(BaseModel):
    """The spec's OUTPUT (JSON), field for field."""

    model_config = ConfigDict(populate_by_name=True)

    should_interrupt: bool = Field(alias="shouldInterrupt")
    urgency: float  # a non-finite one (NaN, Infinity) makes the reply malformed (persona_rails.llm)
    # Sent to the model as required (strict structured output); a reply that leaves one out is
    # still read, as the spec reads it: no chair or reason is no interrupt, no opener is drawn.
    interrupting_chair_position: str | None = Field(default=None, alias="interruptingChairPosition")
    reason: str | None = None
    trigger_content: str | None = Field(default=None, alias="triggerContent")
    suggested_opener: str | None = Field(default=None, alias="suggestedOpener")


def _aggressiveness_note(aggressiveness: int) -> str:
    if aggressiveness <= 2:
        return "(Conservative - only interrupt for major issues)"
    if aggressiveness >= 4:
        return "(Aggressive - interrupt frequently)"
    return "(Moderate - interrupt for meaningful moments)"


def _chair_line(config: ChairConfig, chair: Chair) -> str:
    return f"- {chair.position}: {chair.display_name} ({config.frameworks.frameworks[chair.framework].name})"


def evaluation_prompt(
    config: ChairConfig, context: EvaluationContext, eligible: list[Chair], aggressiveness: int
) -> str:
    speaker = context.current_speaker
    speaker_info = config.frameworks.frameworks[speaker.framework]
    chairs = "\n".join(_chair_line(config, chair) for chair in eligible)
    recent_context = context.debate_so_far[-config.policy.context_chars :]
    return f"""You are evaluating whether any chair should interrupt the current speaker.

**Current Speaker:**
{speaker.display_name}
Framework: {speaker_info.name}

**What They Just Said:**
"{context.recent_content}"

**Chairs Who Could Interrupt:**
{chairs}

**Topic:** {context.topic}

**Recent Debate Context:**
{recent_context}

---

**VALID INTERRUPT REASONS:**

1. **factual_correction** - Speaker made a factual error about a framework
   Example: "That's not what utilitarianism actually claims..."

2. **straw_man_detected** - Speaker is attacking a weakened version of a position
   Example: "You're misrepresenting my framework..."

3. **direct_challenge** - A point demands immediate pushback
   Example: "I have to push back on that..."

4. **clarification_needed** - Something crucial is unclear
   Example: "Wait, what do you mean by..."

5. **strong_agreement** - A point is so good it deserves amplification
   Example: "Yes! This is exactly right..."

6. **pivotal_point** - The core disagreement is being crystallized
   Example: "This is exactly our central disagreement..."

---

**EVALUATION CRITERIA:**

- Only recommend interrupting for GENUINELY SIGNIFICANT moments
- Consider the aggressiveness setting: {aggressiveness}/5
  {_aggressiveness_note(aggressiveness)}

**OUTPUT (JSON):**
{{
  "shouldInterrupt": boolean,
  "interruptingChairPosition": "chair_1" | "chair_2" | etc | null,
  "reason": "factual_correction" | "straw_man_detected" | "direct_challenge" | "clarification_needed" | "strong_agreement" | "pivotal_point",
  "triggerContent": "the specific phrase that triggered this",
  "urgency": 0.0-1.0,
  "suggestedOpener": "how the interruption should start (2-8 words)"
}}

Evaluate now:"""


def messages(
    config: ChairConfig, context: EvaluationContext, eligible: list[Chair], aggressiveness: int
) -> list[dict[str, str]]:
    return [{"role": "user", "content": evaluation_prompt(config, context, eligible, aggressiveness)}]
