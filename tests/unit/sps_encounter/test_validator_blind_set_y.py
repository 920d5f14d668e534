"""`validateTranscript` and the runtime on the kinds of speech the blind set `y` (2026-11-29,
read on 66cc5e1: a checklist app read aloud, a busy emergency corridor, answers in fractions and
ranges, dates by the seasons, a suspicious patient, northern colloquial Mandarin with 俩 and 仨,
a learner who echoes the patient's last words) found misread, each said afresh next to what the
rule must still flag or leave alone. The sets and their figures: docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from sps_encounter.engine.respond import Kind
from tests.unit.sps_encounter.support import catalog_case, dialogue, encounter
from tests.unit.sps_encounter.validating import codes, validate

ZH = ("abdominal-pain-zh", "zh-anxious-balanced")
READING = "(Temperature: 37.9 °C.) Oh, is that high?"


@pytest.mark.parametrize(
    ("learner", "expected"),
    [
        # A measurement said in a few words with where it is taken, or asked for "at least".
        ("Lovely. And your temperature, just under your tongue.", []),
        ("Fine. Can I at least take your temperature before you go?", []),
        ("I'd like to look in your ears and throat, then your temperature.", []),
        # A name and a date of birth are taken, not measured.
        ("Could I take your full name and date of birth?", ["NUMERIC_LEAKAGE"]),
    ],
)
def test_measurements_asked_for_in_a_few_words(learner, expected):
    turns = dialogue((learner, READING))
    assert codes(validate(turns, catalog_case("chest-pain"))) == expected


def test_neurological_checks_are_an_examination():
    turns = dialogue(
        ("Now follow my finger with your eyes, and squeeze my hands.", "(Pulse: 88.) Like this?")
    )
    assert codes(validate(turns, catalog_case("chest-pain"))) == []


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        # Two answers that open on a colloquial when (昨儿, 今儿) answer two questions of time.
        (("昨儿晚上开始疼的，吃完饭没多久。", "今儿早上又吐了一回。"), []),
        # Any other opening said twice in a row is still the spec's echo.
        (("就是那种绞着疼，一阵一阵的。", "就是那种闷闷的，不想吃东西。"), ["OPENER_ECHO"]),
    ],
)
def test_colloquial_times_open_no_echo(answers, expected):
    turns = dialogue(("什么时候开始的？", answers[0]), ("今天呢？", answers[1]))
    assert codes(validate(turns, catalog_case(*ZH))) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("恶心，吐了俩三回，都是早上。", ["FACT_CONTRADICTION"]),
        ("吐了仨回了，一点东西都吃不下。", ["FACT_CONTRADICTION"]),
        ("恶心，吐过一回，吐的都是胃里的东西。", []),
    ],
)
def test_counts_said_with_lia_and_sa(answer, expected):
    turns = dialogue(("恶心吗？吐没吐？", answer))
    assert codes(validate(turns, catalog_case(*ZH))) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("大夫，你是不是还得按住这儿再一松手，看看疼不疼？", ["DIAGNOSIS_OR_COACHING"]),
        ("大夫，你是不是还得去看别的病人？我不急。", []),
    ],
)
def test_a_manoeuvre_suggested_with_hai_de(answer, expected):
    turns = dialogue(("这儿疼得厉害吗？", answer))
    assert codes(validate(turns, catalog_case(*ZH))) == expected


@pytest.mark.parametrize(
    ("asked", "refused"),
    [
        (
            "Here is the antibiotic the registrar prescribed. Could you swallow this with a glass of water?",
            True,
        ),
        ("Do you take these with water or with food?", False),
    ],
)
def test_a_tablet_offered_with_water_is_refused(asked, refused):
    played = encounter()
    response = played.say(asked)
    assert ("take_medicine_now" in played.learner.guardrails) is refused
    assert (response.meta["kind"] == Kind.REFUSAL.value) is refused
