"""What the interview reads in the forms the blind set `am` found missing (2026-11-29, read on
8fb2ac0: voice notes transcribed without punctuation, a former prisoner, a retired police officer,
a veteran's flashbacks, Minnan words, a deaf narrator's typed answers, a hospice, a recent widow, a
child's death, everything told as a joke), each said afresh next to the ordinary memoir sentences
each form must leave alone. The sets and their figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Someone at a door or window now, however the door is named, in Cantonese too.
        ("He's outside hammering on the back door, he says he's going to kill me.", HardStop.ACUTE_DISTRESS),
        ("She's banging on the bedroom door now, help.", HardStop.ACUTE_DISTRESS),
        ("The wind's banging the back door all night, it drove Mum mad.", None),
        ("有个贼喺门口撬锁，我唔敢出声。", HardStop.ACUTE_DISTRESS),
        ("那年有个贼在门口撬锁，后来被抓了。", None),
        # Gas now, with its symptoms.
        ("煤气味好重，头晕，门也打不开。", HardStop.ACUTE_DISTRESS),
        ("那年煤气味很重，头晕了好几天，后来换了灶。", None),
        # Possessions given away before an exit; the insurance that pays for suicide too; a step away.
        (
            "I'm giving my things away, the records to Paul, I won't need them where I'm going.",
            HardStop.SELF_HARM,
        ),
        ("I'm giving my things away because we're moving into a flat.", None),
        ("Sorting everything out before the final exit, that's me these days.", HardStop.SELF_HARM),
        ("我查过了，保险上说自杀满两年也赔。", HardStop.SELF_HARM),
        ("I checked the travel insurance, the suicide clause was in small print.", None),
        ("保险公司说他是自杀，不赔，那是九八年的事。", None),
        ("我在桥上站过两次，就差最后一步。", HardStop.SELF_HARM),
        ("他在桥上站了一会儿，就走了。", None),
        # Retiring from the memoir; later, or a pause said in two languages.
        ("I'm retiring from these interviews, for good.", HardStop.STOP_REQUEST),
        ("I'm retiring from the bakery next spring, finally.", None),
    ],
)
def test_the_lexicons_read_the_blind_set_forms_and_leave_ordinary_speech(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my daughter's at the door we finish this later ok", PAUSE),
        ("We'll do the rest tomorrow, I'm shattered.", PAUSE),
        ("We finished it later that year, the extension.", None),
        ("好，先暂停，我去接个电话。", PAUSE),
        ("等等我先 pause 一下，有人敲门。", PAUSE),
        ("那部片子先暂停发行了，后来才上映。", None),
    ],
)
def test_a_pause_asked_for_in_a_few_words(text, expected):
    assert lexicon_reading(text) == expected
