"""`validateTranscript` on the kinds of speech the blind set `r` (2026-11-29, read on e460644: a
patient who is a teacher, a patient who jokes to cope, a learner reciting SOCRATES and ICE, texts
read out, a supervisor in the room) found misread, each said afresh next to what the rule must
still flag. The earlier sets: test_validator_blind_set*.py. The sets and their figures:
docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from sps_encounter.engine.validator import asks_for_measurement
from tests.unit.sps_encounter.support import catalog_case, dialogue
from tests.unit.sps_encounter.validating import codes, validate


@pytest.mark.parametrize(
    ("learner", "measures"),
    [
        # A vital sign named alone, as a learner says it holding the probe.
        ("Now your pulse and your temperature.", True),
        ("Okay, the sats and the blood pressure next.", True),
        ("Your blood pressure was fine last time?", False),
        ("Your temperature chart is on the wall over there.", False),
    ],
)
def test_vital_signs_named_alone_ask_to_measure(learner, measures):
    assert asks_for_measurement(catalog_case("chest-pain"), learner) is measures


def test_a_stage_direction_is_no_part_of_the_telling():
    learner = "Is there anything in particular worrying you?"
    directed = (
        "Money. (Rubs his neck and looks over at the window for a long moment.) And my dad, really. "
        "(Pauses, then picks at the edge of the chair.) He went young. (Shakes his head slowly.) I think about it."
    )
    told = (
        "Money, mostly. I rub my neck when I think about it. And my dad, really. He went young. "
        "I pick at things when I'm nervous. I shake my head at myself. I think about it a lot."
    )
    assert codes(validate(dialogue((learner, directed)), catalog_case("chest-pain"))) == []
    assert codes(validate(dialogue((learner, told)), catalog_case("chest-pain"))) == ["NARRATIVE_TOO_LONG"]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            "She'll ask what's next, love: it'll be an ECG and bloods first, won't it?",
            ["DIAGNOSIS_OR_COACHING"],
        ),
        ("Last time it was an ECG first, then bloods, then home.", []),
    ],
)
def test_telling_the_learner_the_work_up_is_coaching(reply, expected):
    turns = dialogue(("So, to sum up for Dr Shah: pain on the stairs for three weeks.", reply))
    assert codes(validate(turns, catalog_case("chest-pain"))) == expected
