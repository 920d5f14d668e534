"""Post-processing: urgent keywords force allow + emergency; 3+ overrides today downgrade allow."""

import pytest

from intercept_session.engine.heuristics import apply_heuristics
from intercept_session.engine.model import Category, Evaluation, Verdict


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
