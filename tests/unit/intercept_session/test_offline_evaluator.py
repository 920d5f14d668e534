"""The deterministic evaluator: the category scorer, rule-aware verdicts, the scorer's confidence.

How well the shipped category model classifies text it was not trained on is measured by `rails
eval category` (tests/infra/test_judges_eval.py); these tests pin the mechanism and plain cases."""

import pytest

from intercept_session.engine import offline_evaluator
from intercept_session.engine.emergency import EmergencyJudgment, Finding, judge_emergency
from intercept_session.engine.model import Category, EvaluationInput, RuleContext, Trigger, Verdict
from intercept_session.engine.offline_evaluator import category_features, is_specific
from intercept_session.engine.urgency import urgent_keywords
from intercept_session.judges import category_model, emergency_model
from intercept_session.urgency_config import urgency_rules

RULE = RuleContext("工作日禁止刷短视频", "抖音", "今天的周报", 45, 10)


def judged(text: str) -> EmergencyJudgment:
    return judge_emergency(text, urgency_rules(), emergency_model())


def classify(text: str):
    return offline_evaluator.classify(text, category_model(), judged(text))


def evaluate(text: str, trigger: Trigger = Trigger.QUOTA_EXCEEDED, **kwargs):
    request = EvaluationInput(text, trigger, RULE, streak=2, override_count_today=0, **kwargs)
    return offline_evaluator.evaluate_offline(request, category_model(), judged(request.full_text))


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("老板让我回复客户的邮件", Category.WORK),
        ("need to answer my boss about the client meeting", Category.WORK),
        ("明天考试，要在群里看老师发的复习资料", Category.STUDY),
        ("I have to check the homework for my exam", Category.STUDY),
        ("今天太累了，压力好大，想放松一下", Category.MENTAL_BREAK),
        ("so tired and stressed, I need a break", Category.MENTAL_BREAK),
        ("我妈在医院，需要马上联系", Category.EMERGENCY),
        ("there is a fire alarm in my building", Category.EMERGENCY),
        ("就是想看看有什么好玩的", Category.OTHER),
        ("just want to scroll for fun", Category.OTHER),
        # Mixed Chinese and English in one reason.
        ("老板 wants the report 今天下班前", Category.WORK),
        ("明天的 exam 还没复习完，要看 lecture notes", Category.STUDY),
    ],
)
def test_classifies_chinese_english_and_mixed(text, category):
    assert classify(text)[0] is category


def test_english_keywords_match_whole_words_only():
    # "test" must not fire inside "latest", nor "class" inside "classic".
    assert classify("watching the latest classic movie")[0] is Category.OTHER


@pytest.mark.parametrize(
    ("text", "trigger", "verdict"),
    [
        ("老板让我10分钟内回复客户的消息，很急", Trigger.QUOTA_EXCEEDED, Verdict.ALLOW),
        ("老板让我10分钟内回复客户的消息，很急", Trigger.BLOCKED_WINDOW, Verdict.DELAY),
        ("同事在工作群里问我项目的事，要看一下", Trigger.QUOTA_EXCEEDED, Verdict.DELAY),
        ("今天太累了，想放松一下", Trigger.QUOTA_EXCEEDED, Verdict.DELAY),
        ("今天太累了，想放松一下", Trigger.COOLDOWN_ACTIVE, Verdict.DENY),
        ("就是想看看有什么好玩的", Trigger.QUOTA_EXCEEDED, Verdict.DENY),
        ("my father is in the hospital", Trigger.BLOCKED_WINDOW, Verdict.ALLOW),
    ],
)
def test_verdict_depends_on_category_trigger_and_specificity(text, trigger, verdict):
    assert evaluate(text, trigger).verdict is verdict


def test_specificity_needs_a_number_or_time_and_some_length():
    assert is_specific("老板让我10分钟内回复客户的消息")
    assert is_specific("need to send the report by 4pm to my manager")
    assert not is_specific("10分钟")
    assert not is_specific("有点工作上的事情需要处理一下看看")


def test_confidence_is_the_scorer_s_probability_bounded():
    weak = evaluate("工作上有点事情需要处理").confidence
    strong = evaluate("老板让我开会前把项目报告邮件发给客户").confidence
    assert 0.2 <= weak < strong <= 0.95
    assert "offline: work (" in evaluate("老板让我开会前把项目报告邮件发给客户").justification


def test_the_category_is_emergency_only_when_the_judge_finds_one():
    text = "我妈在医院，需要马上联系"
    model = category_model()
    none = EmergencyJudgment(Finding.NONE, 0.1, "scorer 0.10: none")
    doubt = EmergencyJudgment(Finding.DOUBT, 0.5, "scorer 0.50: doubt")
    found = EmergencyJudgment(Finding.EMERGENCY, 0.9, "scorer 0.90: emergency")
    assert offline_evaluator.classify(text, model, found)[0] is Category.EMERGENCY
    assert offline_evaluator.classify(text, model, none)[0] is not Category.EMERGENCY
    assert offline_evaluator.classify(text, model, doubt)[0] is not Category.EMERGENCY


def test_the_keyword_counts_are_read_on_the_folded_text():
    assert category_features("老板要我交报告") == {"keywords_work": 2.0}
    assert category_features("老 板 要 我 交 报 告") == {"keywords_work": 2.0}
    assert category_features("ｍｙ ｂｏｓｓ needs the report") == {"keywords_work": 2.0}


def test_evaluation_is_deterministic():
    text = "明天的 exam 还没复习完，要看 lecture notes"
    assert evaluate(text) == evaluate(text)


def test_an_appeal_is_classified_by_what_it_says():
    first = evaluate("就是有点无聊，想刷一会儿")
    appeal = evaluate(
        "其实是老板让我下午3点前看完竞品视频，要写进报告",
        appeal_of=("就是有点无聊，想刷一会儿", first.verdict),
    )
    assert first.verdict is Verdict.DELAY
    assert appeal.category is Category.WORK
    assert appeal.verdict is Verdict.ALLOW


@pytest.mark.parametrize(
    "text",
    ["这不是紧急情况，只是想看看", "it's not an emergency, just bored", "没有受伤，就是想玩"],
)
def test_negated_emergencies_are_not_urgent(text):
    assert urgent_keywords(text, urgency_rules()) == []


@pytest.mark.parametrize(
    "text", ["No, hospital now! my dad fell", "火警响了，要看群消息", "emergency at home", "朋友车祸受伤了"]
)
def test_urgent_keywords_in_both_languages(text):
    assert urgent_keywords(text, urgency_rules())


@pytest.mark.parametrize(
    "text",
    [
        "我在医院上班",
        "我在医院排队挂号好无聊",
        "I work at the hospital",
        "我在看一部关于医院的电视剧",
        "我不需要去医院",
    ],
)
def test_a_mention_that_is_not_urgent_is_no_emergency_category(text):
    assert classify(text)[0] is not Category.EMERGENCY
    assert evaluate(text, Trigger.BLOCKED_WINDOW).verdict is not Verdict.ALLOW


def test_an_emergency_in_the_first_reason_still_counts_on_the_appeal():
    first = "我爸刚才晕倒了，叫不醒"
    appeal = evaluate("真的很急，求你了", appeal_of=(first, Verdict.DENY))
    assert appeal.category is Category.EMERGENCY
