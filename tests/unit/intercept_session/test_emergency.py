"""The emergency judge: the urgency rule where it is sure, the scorer's bands for the rest.

How well the shipped model judges text it was not trained on is measured by `rails eval
emergency` (tests/infra/test_judges_eval.py), not here: these tests pin the mechanism, and a few
plain cases the shipped model must get right."""

import pytest

from intercept_session.engine.emergency import Finding, judge_emergency, rule_features
from intercept_session.engine.urgency import read
from intercept_session.judges import emergency_model
from intercept_session.urgency_config import urgency_rules
from tests.support.local_models import fixed_model

BANDS = {"emergency": 0.7, "doubt": 0.3}


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("我不需要去医院，就是想看会儿视频", "negation: 不需要"),
        ("我在医院上班，要看排班表", "routine: 上班"),
        ("I was in the hospital last week, all better", "past: last week"),
        ("没有人受伤，车只是蹭了一下", "negation: 没有"),
    ],
)
def test_a_mention_governed_by_negation_past_or_routine_is_ruled_out_by_the_rule(text, cue):
    # Even a model that would call everything an emergency is not asked.
    judgment = judge_emergency(text, urgency_rules(), fixed_model(0.99, thresholds=BANDS))
    assert (judgment.finding, judgment.probability) == (Finding.NONE, None)
    assert cue in judgment.explanation
    assert judgment.explanation.startswith("rule: ")


@pytest.mark.parametrize(
    "text",
    [
        "如果着火了怎么办，我想看看逃生视频",  # hypothetical: the scorer weighs it
        "我在看一部关于医院的电视剧",  # talked about
        "This is an emergency!!! my streamer just went live",  # no cue at all
        "my little boy swallowed a battery and is drooling",  # no keyword at all
        "我不需要去医院，但是我爸刚才倒地不起了",  # one mention ruled out, another not
    ],
)
def test_anything_else_goes_to_the_scorer(text):
    judgment = judge_emergency(text, urgency_rules(), fixed_model(0.5, thresholds=BANDS))
    assert judgment.probability == 0.5
    assert judgment.explanation.startswith("scorer 0.50: doubt")


@pytest.mark.parametrize(
    ("probability", "finding"),
    [
        (0.95, Finding.EMERGENCY),
        (0.7, Finding.EMERGENCY),
        (0.69, Finding.DOUBT),
        (0.3, Finding.DOUBT),
        (0.29, Finding.NONE),
    ],
)
def test_the_scorer_s_probability_falls_in_one_of_three_bands(probability, finding):
    judgment = judge_emergency(
        "my dad is acting strange", urgency_rules(), fixed_model(probability, thresholds=BANDS)
    )
    assert judgment.finding is finding
    assert judgment.emergency is (finding is Finding.EMERGENCY)


@pytest.mark.parametrize(
    "text",
    ["楼里火警响了，要看物业群的通知", "This is an emergency!!! my streamer just went live", "妈妈在医院"],
)
def test_a_spec_keyword_mentioned_with_no_cue_against_it_is_at_least_in_doubt(text):
    judgment = judge_emergency(text, urgency_rules(), fixed_model(0.01, thresholds=BANDS))
    assert judgment.finding is Finding.DOUBT


def test_a_spec_keyword_under_a_cue_gets_no_such_floor():
    judgment = judge_emergency("如果着火了火警会响吗", urgency_rules(), fixed_model(0.01, thresholds=BANDS))
    assert judgment.finding is Finding.NONE


def test_the_explanation_holds_lexicon_words_never_the_user_s():
    text = "我爸刚才在厨房晕倒了，叫不醒"
    judgment = judge_emergency(text, urgency_rules(), fixed_model(0.9, thresholds=BANDS))
    assert judgment.explanation == "scorer 0.90: emergency; urgent keyword 晕倒; urgent keyword 叫不醒"
    assert "厨房" not in judgment.explanation


def test_the_rule_features_name_what_the_rule_read():
    reading = read("我不需要去医院，哈哈，不过现在有点急", urgency_rules())
    assert rule_features(reading) == {
        "keyword_negation": 1.0,
        "cue_negation": 1.0,
        "booster": 1.0,
        "hyperbole": 1.0,
    }


@pytest.mark.parametrize(
    "text",
    [
        "家里着火了快帮我叫119",
        "my dad collapsed and is not breathing, need to call 911",
        "妈妈晕倒了叫不醒，我要联系120",
        "someone is trying to break in through my back door right now",
    ],
)
def test_the_shipped_model_finds_plain_emergencies(text):
    assert judge_emergency(text, urgency_rules(), emergency_model()).finding is Finding.EMERGENCY


@pytest.mark.parametrize(
    "text",
    [
        "就是想看看有什么好玩的视频",
        "my friends are posting memes in the group chat",
        "老板让我10分钟内回复客户的消息",
    ],
)
def test_the_shipped_model_finds_no_emergency_in_ordinary_reasons(text):
    assert judge_emergency(text, urgency_rules(), emergency_model()).finding is Finding.NONE


@pytest.mark.parametrize(
    ("plain", "disguised"),
    [
        ("家里着火了快帮我叫119", "家 里 着 火 了 快 帮 我 叫 119"),
        ("家里着火了快帮我叫119", "家💥里💥着💥火💥了💥快💥帮💥我💥叫💥119"),
        (
            "my dad collapsed and is not breathing",
            "ｍｙ ｄａｄ ｃｏｌｌａｐｓｅｄ ａｎｄ ｉｓ ｎｏｔ ｂｒｅａｔｈｉｎｇ",
        ),
        ("my dad collapsed and is not breathing", "my dad col\u200dlapsed and is not bre\u200cathing"),
        ("my dad collapsed and is not breathing", "my dаd соllарsеd and is not breathing"),
    ],
)
def test_the_judge_reads_the_folded_text(plain, disguised):
    rules, model = urgency_rules(), emergency_model()
    assert judge_emergency(disguised, rules, model) == judge_emergency(plain, rules, model)


def test_traditional_characters_are_judged_as_simplified_ones():
    rules, model = urgency_rules(), emergency_model()
    traditional = judge_emergency("爸爸在廚房暈倒了，叫不醒，快幫我叫救護車", rules, model)
    assert traditional.finding is Finding.EMERGENCY
    assert "urgent keyword 救护车" in traditional.explanation
