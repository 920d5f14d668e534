"""The cases an acceptance review found: chunks that only look like triggers (denied, reported,
hedged), straw men of a framework nobody at the table holds, the Chinese form of the spec's
straw man, and spacing or full-width letters a chunk may carry."""

from __future__ import annotations

import pytest

from chair_interrupt.engine.evaluate import Outcome
from chair_interrupt.engine.model import Reason
from chair_interrupt.engine.quick import quick_check
from tests.unit.chair_interrupt.support import DEON, UTIL, VIRTUE, config, context, offline


@pytest.mark.parametrize(
    "text",
    [
        "I'm not saying virtue ethics people just want to feel good.",
        "Critics claim 'virtue ethics people just want to feel good', but that is unfair.",
        "Nobody really believes in the tooth fairy, so let's move on.",
        "The real issue isn't this, let's move on.",
        "我不是说他们只是想逃避责任。",
    ],
)
def test_a_denied_or_reported_trigger_does_not_interrupt_a_conservative_debate(text):
    decision = offline(context(text, others=(VIRTUE, DEON)), aggressiveness=1)
    assert decision.candidate is None


def test_the_spec_straw_man_still_interrupts_at_every_aggressiveness():
    for aggressiveness in range(1, 6):
        decision = offline(
            context("Virtue ethics people just want to feel good about themselves!"),
            aggressiveness=aggressiveness,
        )
        assert decision.outcome is Outcome.INTERRUPT


@pytest.mark.parametrize(
    ("text", "speaker"),
    [
        ("Libertarians just want to pay no taxes!", UTIL),
        ("Utilitarians just want a spreadsheet, I admit it!", UTIL),
    ],
)
def test_a_straw_man_of_a_framework_nobody_listening_holds_has_no_defender(text, speaker):
    decision = offline(context(text, speaker=speaker, others=(VIRTUE, DEON)), aggressiveness=5)
    assert decision.outcome is Outcome.NO_DEFENDER
    assert decision.candidate is None


@pytest.mark.parametrize(
    "text",
    [
        "德性伦理的人只是想自我感觉良好！",
        "义务论者只想遵守规则！",
        "这种观点太荒谬了！",
        "德性伦理学家不过是想显得高尚。",
    ],
)
def test_the_chinese_straw_man_is_caught(text):
    result = quick_check(config(), text)
    assert (result.potential_trigger, result.likely_reason) == (True, Reason.STRAW_MAN_DETECTED)


@pytest.mark.parametrize(
    "text",
    [
        "The real\u2009issue is consent.",
        "The real\u202fissue is consent.",
        "Ｔｈｅｙ　ｊｕｓｔ　ｗａｎｔ　ｍｏｎｅｙ",
    ],
)
def test_thin_spaces_and_full_width_letters_read_like_plain_text(text):
    assert quick_check(config(), text).potential_trigger
