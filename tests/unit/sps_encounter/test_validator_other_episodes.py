"""A contradiction told of a time long past is another episode, not this illness: a scenario marks
the facts of the present illness (`present_illness`), and `validateTranscript` reads their
conflicts against a time long past in the sentence before them ("as a teenager", 小时候,
三年前), unless the sentence turns back to now first ("but this week")."""

from __future__ import annotations

import pytest

from tests.unit.sps_encounter.support import catalog_case, dialogue
from tests.unit.sps_encounter.validating import codes, validate, zh_case

CONTRADICTION = ["FACT_CONTRADICTION"]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        # The case: vomited once this morning.
        ("吐过一回。小时候晕车，一坐车就吐个不停。", []),
        ("三年前食物中毒，吐了好几次，这次就一次。", []),
        ("上学的时候胃不好，吐了好几回，这回就早上一次。", []),
        ("以前不怎么吐，这次吐了好几次。", CONTRADICTION),
        ("好多年前也吐过，不过这次吐了四五回。", CONTRADICTION),
        ("吐了好几次。", CONTRADICTION),
        ("上初中那会儿晕车，吐了好几次。", []),
        ("十几岁的时候晕车，吐了好几次。", []),
        ("小时候不像现在，一坐车就吐个不停。", []),
        # An independent review's contradictions the first rule let pass: the sentence comes back
        # to this illness, or says the old episode was the same.
        ("我十年前生孩子都没这么难受，昨晚吐了好几次。", CONTRADICTION),
        ("三年前做过胃镜，挺好的，这两天吐了好几次。", CONTRADICTION),
        ("怀孕的时候也这样，吐了好几次，跟这次一模一样。", CONTRADICTION),
    ],
)
def test_vomiting_long_ago_is_another_episode(reply, expected):
    assert codes(validate(dialogue(("有没有吐过？", reply)), zh_case())) == expected


def test_a_history_fact_is_contradicted_whenever_it_happened():
    # No operations ever: a childhood operation still contradicts the case.
    assert codes(validate(dialogue(("做过手术吗？", "小时候我做过一个小手术。")), zh_case())) == CONTRADICTION


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        # The case: it began last night. An old episode is another one; pain "ever since" is not.
        ("昨天晚上开始的。小时候有一次肚子疼，疼了两三天才好。", []),
        ("小时候就这样，一直疼到现在，疼了好几年了。", CONTRADICTION),
    ],
)
def test_an_onset_long_ago_is_another_episode_unless_it_goes_on_to_now(reply, expected):
    assert codes(validate(dialogue(("疼多久了？", reply)), zh_case())) == expected


@pytest.mark.parametrize(
    ("case", "learner", "reply", "expected"),
    [
        # A second review: an old episode said to be unlike this one, or on a morning of another
        # time, is another episode; a denied "years ago" and a count since Monday are this illness.
        (
            "headache",
            "Any vomiting?",
            "As a kid I was sick with every migraine, which isn't the same as now.",
            [],
        ),
        ("headache", "Any vomiting?", "When I was a teenager I threw up this one time at a festival.", []),
        ("headache", "Any vomiting?", "It wasn't years ago, I threw up on Tuesday with one.", CONTRADICTION),
        (
            "headache",
            "Any vomiting?",
            "I gave up smoking years ago, and I've been sick twice since Monday.",
            CONTRADICTION,
        ),
        ("zh", "有没有吐过？", "小时候吐过好几次，跟现在不一样，这次就吐了一回。", []),
        ("zh", "有没有吐过？", "小时候早上上学前老吐，吐了好几次，这次就早上吐了一回。", []),
    ],
)
def test_a_second_reviews_episodes(case, learner, reply, expected):
    scenario = zh_case() if case == "zh" else catalog_case(case)
    assert codes(validate(dialogue((learner, reply)), scenario)) == expected


@pytest.mark.parametrize(
    ("case", "learner", "reply", "expected"),
    [
        # Headache: no vomiting with these headaches.
        ("headache", "Any vomiting with them?", "As a teenager I threw up with the bad ones. Not these.", []),
        ("headache", "Any vomiting with them?", "I've thrown up twice this week.", CONTRADICTION),
        (
            "headache",
            "Any vomiting with them?",
            "Years ago maybe, but this week I've thrown up twice.",
            CONTRADICTION,
        ),
        ("headache", "Any vomiting with them?", "Years ago I threw up with them. Not these.", []),
        (
            "headache",
            "Any vomiting with them?",
            "In my thirties I threw up with them, same as now.",
            CONTRADICTION,
        ),
        (
            "headache",
            "Any vomiting with them?",
            "As a teenager I got them too, and I threw up last night with this one.",
            CONTRADICTION,
        ),
        # Chest pain: no fainting with the pain.
        (
            "chest-pain",
            "Have you ever fainted?",
            "Once, as a boy, I fainted at a funeral. Not with this.",
            [],
        ),
        ("chest-pain", "Have you ever fainted?", "I fainted yesterday when it came on.", CONTRADICTION),
        (
            "chest-pain",
            "When did it start?",
            "Years ago I had something like it, but this started about two weeks ago.",
            CONTRADICTION,
        ),
    ],
)
def test_an_english_episode_long_past_is_not_this_illness(case, learner, reply, expected):
    assert codes(validate(dialogue((learner, reply)), catalog_case(case))) == expected


def test_the_shipped_cases_mark_their_present_illness():
    # Every conflict of a present-illness fact is about this illness; the histories are not marked.
    for case, illness, history in (
        (catalog_case("headache"), "associated", "medical_history"),
        (catalog_case("chest-pain"), "associated", "medical_history"),
        (zh_case(), "nausea_appetite", "surgical_history"),
    ):
        marked = case.present_illness
        assert illness in marked
        assert history not in marked
