"""Post-processing: urgent mentions force allow + emergency; 3+ overrides today downgrade allow."""

import pytest

from intercept_session.engine import heuristics
from intercept_session.engine.model import Category, Evaluation, Verdict
from intercept_session.urgency_config import urgency_rules


def apply_heuristics(evaluation: Evaluation, text: str, override_count_today: int) -> Evaluation:
    return heuristics.apply_heuristics(evaluation, text, override_count_today, urgency_rules())


def llm_says(verdict: Verdict, category: Category = Category.WORK, confidence: float = 0.7) -> Evaluation:
    return Evaluation(verdict=verdict, confidence=confidence, category=category, justification="llm: x")


@pytest.mark.parametrize("verdict", list(Verdict))
@pytest.mark.parametrize("keyword", ["火警", "医院", "emergency", "救护车", "call 911"])
def test_urgent_keyword_sets_allow_and_emergency_whatever_the_verdict(verdict, keyword):
    result = apply_heuristics(llm_says(verdict, confidence=0.4), f"家里出事了 {keyword} 需要联系", 0)
    assert result.verdict is Verdict.ALLOW
    assert result.emergency is True
    assert result.category is Category.EMERGENCY
    assert result.confidence >= 0.9


@pytest.mark.parametrize(
    ("category", "expected"),
    [
        (Category.WORK, Verdict.DELAY),
        (Category.STUDY, Verdict.DELAY),
        (Category.MENTAL_BREAK, Verdict.DENY),
        (Category.OTHER, Verdict.DENY),
    ],
)
def test_three_overrides_today_downgrade_allow(category, expected):
    result = apply_heuristics(llm_says(Verdict.ALLOW, category), "需要处理一点事情", 3)
    assert result.verdict is expected
    assert result.emergency is False
    assert "3 overrides today" in result.justification


def test_two_overrides_do_not_downgrade():
    assert apply_heuristics(llm_says(Verdict.ALLOW), "需要处理一点事情", 2).verdict is Verdict.ALLOW


@pytest.mark.parametrize("verdict", [Verdict.DENY, Verdict.DELAY])
def test_downgrade_never_touches_other_verdicts(verdict):
    assert apply_heuristics(llm_says(verdict), "需要处理一点事情", 7).verdict is verdict


def test_emergency_keyword_beats_the_override_limit():
    result = apply_heuristics(llm_says(Verdict.ALLOW), "爸爸住院了，医院让我马上回电话", 9)
    assert result.verdict is Verdict.ALLOW
    assert result.emergency is True


def test_negated_emergency_does_not_bypass_the_limit():
    result = apply_heuristics(llm_says(Verdict.ALLOW, Category.OTHER), "这不是紧急情况，就是想看", 3)
    assert result.verdict is Verdict.DENY
    assert result.emergency is False


def test_an_llm_emergency_flag_without_keyword_is_cleared():
    flagged = Evaluation(Verdict.ALLOW, 0.8, Category.EMERGENCY, "llm: x", emergency=True)
    assert apply_heuristics(flagged, "需要处理一点事情", 0).emergency is False


@pytest.mark.parametrize(
    "text",
    [
        "It's not really an emergency, I just want to watch videos",
        "我不需要去医院",
        "我在医院上班",
        "我在医院排队挂号好无聊",
        "如果着火了怎么办",
        "I was in the hospital last week",
        "我在看一部关于医院的电视剧",
    ],
)
def test_a_mention_that_is_not_urgent_does_not_force_allow_after_three_overrides(text):
    result = apply_heuristics(llm_says(Verdict.ALLOW, Category.EMERGENCY), text, 3)
    assert result.verdict is Verdict.DENY
    assert result.emergency is False
    assert "not urgent" in result.justification
    assert "3 overrides today: allow downgraded to deny" in result.justification


def test_a_denial_stays_a_denial_when_the_mention_is_not_urgent():
    result = apply_heuristics(llm_says(Verdict.DENY, Category.OTHER), "我在医院排队挂号好无聊", 0)
    assert (result.verdict, result.emergency) == (Verdict.DENY, False)


@pytest.mark.parametrize(
    ("text", "explanation"),
    [
        ("我在医院上班", "urgent keyword 医院 (routine: 上班) not urgent"),
        ("我不需要去医院", "urgent keyword 医院 (negation: 不需要) not urgent"),
        ("万一出车祸呢", "urgent keyword 车祸 (hypothetical: 万一) not urgent"),
        ("I used to work at a hospital", "urgent keyword hospital (past: used to) not urgent"),
        ("新闻说高速上出了车祸", "urgent keyword 车祸 (talking_about: 新闻) not urgent"),
    ],
)
def test_the_justification_names_the_keyword_and_the_cue_that_decided(text, explanation):
    assert apply_heuristics(llm_says(Verdict.DELAY), text, 0).justification == f"llm: x | {explanation}"


def test_the_justification_names_the_urgent_keyword_and_a_cancelled_cue():
    urgent = apply_heuristics(llm_says(Verdict.DENY), "家里着火了快帮我叫119", 5)
    assert urgent.justification == "llm: x | urgent keyword 着火: allow"
    cancelled = apply_heuristics(llm_says(Verdict.DENY), "昨天出车祸了现在还在流血", 5)
    assert cancelled.justification == "llm: x | urgent keyword 流血 (past: 昨天, overridden by 现在): allow"


@pytest.mark.parametrize(
    "text",
    [
        "家里着火了快帮我叫119",
        "my dad is bleeding, need to call 911 now",
        "妈妈晕倒了我在医院急诊",
        "我在医院上班，现在同事晕倒了",
    ],
)
def test_an_urgent_mention_forces_allow_after_three_overrides(text):
    result = apply_heuristics(llm_says(Verdict.DENY, Category.OTHER), text, 3)
    assert (result.verdict, result.emergency, result.category) == (Verdict.ALLOW, True, Category.EMERGENCY)
