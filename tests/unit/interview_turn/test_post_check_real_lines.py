"""Bad interviewer lines the post-check missed on real answers (issue 22): a diagnosis, a
demand, an accusation, in English and Chinese. Each is replaced by a safety fallback."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import Language
from tests.unit.interview_turn.support import new_session


@pytest.mark.parametrize(
    ("language", "line", "rule"),
    [
        (
            Language.EN,
            "It seems you were suffering from anxiety disorder back then. What happened next?",
            "NC-DIAG-01",
        ),
        (Language.EN, "It sounds like you were clinically depressed. How long did that last?", "NC-DIAG-01"),
        (Language.ZH, "您这是抑郁症了吧。后来呢？", "NC-DIAG-01"),
        (Language.EN, "Please answer the question. What did your father do?", "NC-COERCE-01"),
        (Language.ZH, "快说，那天到底发生了什么？", "NC-COERCE-01"),
        (Language.ZH, "你前后说的不一样，到底是哪年？", "NC-ACCUSE-01"),
        (Language.EN, "That's not what you said earlier. Was it 1952 or 1954?", "NC-ACCUSE-01"),
        (Language.EN, "Your story keeps changing. When did you move?", "NC-ACCUSE-01"),
    ],
)
def test_a_bad_generated_line_is_replaced(language, line, rule):
    session = new_session(language=language)
    outcome = session.say(
        "我们住在老街的尽头。" if language is Language.ZH else "We lived at the end of the lane.",
        candidate=line,
    )
    assert rule in outcome.telemetry["safety"]["violated_rule_ids"]
    assert outcome.contract["response_text"] != line
    assert outcome.contract["safety_action"] == "override"
