"""An independent review of the SPS forms the blind sets `z` and `aa` brought, and of the previous
review's fixes (2026-11-29, ed04ac8..6d14fe5): the learner and patient turns it found misjudged,
each said afresh. "Can I at least…" asks for a measurement when it names one, and only then;
medicine offered now is offered whatever question comes before it; a doctor's ward round and
meetings are no coaching."""

from __future__ import annotations

import pytest

from sps_encounter.engine.respond import Kind
from tests.unit.sps_encounter.support import catalog_case, dialogue, encounter
from tests.unit.sps_encounter.validating import codes, validate

ZH = ("abdominal-pain-zh", "zh-anxious-balanced")
READ_OUT = "(Temperature: 37.9 °C.) Oh, is that a lot?"


@pytest.mark.parametrize(
    ("request_", "expected"),
    [
        # A measurement named, with an article or an adjective before it: the reading is asked for.
        ("Could I at least check your heart rate?", []),
        ("Can I at least take a quick temperature?", []),
        ("May I at least check you over?", []),
        ("can i at least check ur temp", []),
        # Nothing measurable named: a reading said after it was not asked for.
        ("Can I at least have a look at your letters from the hospital?", ["NUMERIC_LEAKAGE"]),
        ("Could I at least have a feel for how the week went?", ["NUMERIC_LEAKAGE"]),
        ("Can I at least check your temperature history with the surgery?", ["NUMERIC_LEAKAGE"]),
    ],
)
def test_can_i_at_least_measures_what_it_names(request_, expected):
    assert codes(validate(dialogue((request_, READ_OUT)), catalog_case("chest-pain"))) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("你是不是要去查房了？那我先躺着。", []),
        ("您是不是要开会去了？我不着急。", []),
        ("你是不是要看一下我的病历本？", []),
        ("您是不是要按一下我肚子右边？", ["DIAGNOSIS_OR_COACHING"]),
    ],
)
def test_a_doctors_other_duties_are_no_coaching(answer, expected):
    assert codes(validate(dialogue(("还有别的吗？", answer)), catalog_case(*ZH))) == expected


@pytest.mark.parametrize(
    ("asked", "refused"),
    [
        # Offered now, though a question about water or juice comes first.
        ("Can you take these with water, or would you prefer milk? Come on, take them now.", True),
        ("Could you swallow this with a sip of water for me, or with tea, right now?", True),
        # A question about one's own tablets, as before.
        ("Do you take them now or only at bedtime?", False),
        ("Can you take these with water, or do you need food with them?", False),
    ],
)
def test_medicine_offered_now_whatever_question_comes_first(asked, refused):
    played = encounter()
    response = played.say(asked)
    assert ("take_medicine_now" in played.learner.guardrails) is refused
    assert (response.meta["kind"] == Kind.REFUSAL.value) is refused
