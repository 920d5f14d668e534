"""The evaluation prompt (spec: buildEvaluationPrompt), checked against the spec's text: the
speaker and framework, the chunk, each eligible chair, the topic, exactly the last 800 characters
of the debate, the six reasons with their examples, the aggressiveness note and the OUTPUT block."""

from __future__ import annotations

import re

import pytest

from chair_interrupt.engine.prompt import MAX_TOKENS, TEMPERATURE, evaluation_prompt, messages
from tests.unit.chair_interrupt.support import CARE, DEON, UTIL, VIRTUE, config, context

REASONS_BLOCK = """**VALID INTERRUPT REASONS:**

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
"""

OUTPUT_BLOCK = """**OUTPUT (JSON):**
{
  "shouldInterrupt": boolean,
  "interruptingChairPosition": "chair_1" | "chair_2" | etc | null,
  "reason": "factual_correction" | "straw_man_detected" | "direct_challenge" | "clarification_needed" | "strong_agreement" | "pivotal_point",
  "triggerContent": "the specific phrase that triggered this",
  "urgency": 0.0-1.0,
  "suggestedOpener": "how the interruption should start (2-8 words)"
}

Evaluate now:"""

# The spec's template filled in by hand for: speaker GPT-4o (utilitarian), chairs chair_2 (Claude,
# virtue ethics) and chair_3 (no display name: its model id; deontology), aggressiveness 3.
EXPECTED_PROMPT = """You are evaluating whether any chair should interrupt the current speaker.

**Current Speaker:**
GPT-4o
Framework: Utilitarianism

**What They Just Said:**
"Virtue ethics people just want to feel good about themselves!"

**Chairs Who Could Interrupt:**
- chair_2: Claude (Virtue Ethics)
- chair_3: google/gemini-pro (Deontology)

**Topic:** AI Ethics

**Recent Debate Context:**
Earlier, the chairs agreed that welfare matters.

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
- Consider the aggressiveness setting: 3/5
  (Moderate - interrupt for meaningful moments)

**OUTPUT (JSON):**
{
  "shouldInterrupt": boolean,
  "interruptingChairPosition": "chair_1" | "chair_2" | etc | null,
  "reason": "factual_correction" | "straw_man_detected" | "direct_challenge" | "clarification_needed" | "strong_agreement" | "pivotal_point",
  "triggerContent": "the specific phrase that triggered this",
  "urgency": 0.0-1.0,
  "suggestedOpener": "how the interruption should start (2-8 words)"
}

Evaluate now:"""

STRAW_MAN = "Virtue ethics people just want to feel good about themselves!"


def _prompt(debate: str = "", *, aggressiveness: int = 3, eligible=(VIRTUE, DEON), **kw) -> str:
    ctx = context(kw.pop("recent", STRAW_MAN), others=(VIRTUE, DEON, CARE), debate=debate, **kw)
    return evaluation_prompt(config(), ctx, list(eligible), aggressiveness)


def _recent_context(prompt: str) -> str:
    match = re.search(r"\*\*Recent Debate Context:\*\*\n(.*?)\n\n---\n", prompt, re.DOTALL)
    assert match is not None
    return match.group(1)


def test_prompt_is_the_spec_template_filled_in():
    assert _prompt("Earlier, the chairs agreed that welfare matters.") == EXPECTED_PROMPT


def test_prompt_lists_the_six_reasons_with_their_examples():
    assert REASONS_BLOCK in _prompt()


def test_prompt_ends_with_the_output_json_block():
    prompt = _prompt()
    assert prompt.endswith(OUTPUT_BLOCK)
    assert "{{" not in prompt
    assert "}}" not in prompt


@pytest.mark.parametrize(
    ("aggressiveness", "note"),
    [
        (1, "(Conservative - only interrupt for major issues)"),
        (2, "(Conservative - only interrupt for major issues)"),
        (3, "(Moderate - interrupt for meaningful moments)"),
        (4, "(Aggressive - interrupt frequently)"),
        (5, "(Aggressive - interrupt frequently)"),
    ],
)
def test_evaluation_criteria_carry_the_aggressiveness_and_its_note(aggressiveness, note):
    prompt = _prompt(aggressiveness=aggressiveness)
    expected = (
        "**EVALUATION CRITERIA:**\n\n"
        "- Only recommend interrupting for GENUINELY SIGNIFICANT moments\n"
        f"- Consider the aggressiveness setting: {aggressiveness}/5\n"
        f"  {note}\n"
    )
    assert expected in prompt
    others = {
        "(Conservative - only interrupt for major issues)",
        "(Moderate - interrupt for meaningful moments)",
        "(Aggressive - interrupt frequently)",
    } - {note}
    assert not any(other in prompt for other in others)


def test_prompt_names_the_speaker_and_the_speakers_framework():
    prompt = _prompt()
    assert "**Current Speaker:**\nGPT-4o\nFramework: Utilitarianism\n" in prompt


def test_a_speaker_without_display_name_is_shown_by_model_id():
    prompt = _prompt(speaker=DEON, eligible=(VIRTUE,))
    assert "**Current Speaker:**\ngoogle/gemini-pro\nFramework: Deontology\n" in prompt


@pytest.mark.parametrize("chair", [VIRTUE, DEON, CARE, UTIL])
def test_each_eligible_chair_is_listed_with_position_name_and_framework(chair):
    prompt = _prompt(eligible=(chair,))
    name = config().frameworks.frameworks[chair.framework].name
    line = f"- {chair.position}: {chair.model_display_name or chair.model_id} ({name})"
    assert line in prompt


def test_only_eligible_chairs_are_listed():
    prompt = _prompt(eligible=(DEON,))
    section = prompt.split("**Chairs Who Could Interrupt:**\n")[1].split("\n\n")[0]
    assert section == "- chair_3: google/gemini-pro (Deontology)"
    assert "chair_2" not in section
    assert "Care Ethics" not in prompt


def test_every_framework_in_the_catalogue_has_a_display_name():
    names = {key: fw.name for key, fw in config().frameworks.frameworks.items()}
    assert names["utilitarianism"] == "Utilitarianism"
    assert names["virtue_ethics"] == "Virtue Ethics"
    assert names["care_ethics"] == "Care Ethics"
    assert all(names.values())


def test_prompt_quotes_the_recent_content_and_states_the_topic():
    prompt = _prompt(recent="The fundamental issue is consent.", topic="Gene editing in embryos")
    assert '**What They Just Said:**\n"The fundamental issue is consent."\n' in prompt
    assert "**Topic:** Gene editing in embryos\n" in prompt


def test_recent_debate_context_is_exactly_the_last_800_characters():
    debate = "".join(f"[{i:04d}]" for i in range(400))  # 2,400 characters, each position distinct
    prompt = _prompt(debate)

    recent = _recent_context(prompt)

    assert recent == debate[-800:]
    assert len(recent) == 800
    assert debate[-801:] not in prompt
    assert "[0266]" not in prompt  # straddles the cut at character 1,600: only its tail is kept
    assert recent.startswith("6][0267]")


def test_recent_debate_context_of_801_characters_drops_only_the_first():
    debate = "X" + "y" * 800
    recent = _recent_context(_prompt(debate))
    assert recent == "y" * 800
    assert "X" not in recent


def test_a_short_debate_is_included_whole():
    debate = "A short exchange so far."
    assert _recent_context(_prompt(debate)) == debate


def test_an_empty_debate_leaves_the_context_empty():
    assert "**Recent Debate Context:**\n\n\n---" in _prompt("")


def test_context_chars_is_the_spec_800():
    assert config().policy.context_chars == 800


def test_messages_are_one_user_message_holding_the_prompt():
    ctx = context(STRAW_MAN, others=(VIRTUE,))
    sent = messages(config(), ctx, [VIRTUE], 4)
    assert sent == [{"role": "user", "content": evaluation_prompt(config(), ctx, [VIRTUE], 4)}]


def test_call_parameters_are_the_specs():
    assert TEMPERATURE == 0.3
    assert MAX_TOKENS == 300
