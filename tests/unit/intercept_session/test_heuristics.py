"""Post-processing: an emergency the judge finds forces allow + emergency; 3+ overrides today
downgrade allow; a reason the judge is in doubt about is never denied."""

import pytest

from intercept_session.engine.emergency import EmergencyJudgment, Finding
from intercept_session.engine.heuristics import apply_heuristics
from intercept_session.engine.model import Category, Evaluation, Verdict

EMERGENCY = EmergencyJudgment(Finding.EMERGENCY, 0.97, "scorer 0.97: emergency")
DOUBT = EmergencyJudgment(Finding.DOUBT, 0.41, "scorer 0.41: doubt")
NONE = EmergencyJudgment(Finding.NONE, 0.02, "scorer 0.02: none")
RULED_OUT = EmergencyJudgment(Finding.NONE, None, "rule: urgent keyword 医院 (routine: 上班) not urgent")


def llm_says(verdict: Verdict, category: Category = Category.WORK, confidence: float = 0.7) -> Evaluation:
    return Evaluation(verdict=verdict, confidence=confidence, category=category, justification="llm: x")


@pytest.mark.parametrize("verdict", list(Verdict))
@pytest.mark.parametrize("overrides", [0, 3, 9])
def test_an_emergency_sets_allow_and_emergency_whatever_the_verdict(verdict, overrides):
    result = apply_heuristics(llm_says(verdict, confidence=0.4), EMERGENCY, overrides)
    assert (result.verdict, result.emergency, result.emergency_doubt) == (Verdict.ALLOW, True, False)
    assert result.category is Category.EMERGENCY
    assert result.confidence >= 0.9
    assert result.justification == "llm: x | emergency scorer 0.97: emergency: allow"


@pytest.mark.parametrize(
    ("category", "expected"),
    [
        (Category.WORK, Verdict.DELAY),
        (Category.STUDY, Verdict.DELAY),
        (Category.MENTAL_BREAK, Verdict.DENY),
        (Category.OTHER, Verdict.DENY),
        (Category.EMERGENCY, Verdict.DENY),
    ],
)
def test_three_overrides_today_downgrade_allow(category, expected):
    result = apply_heuristics(llm_says(Verdict.ALLOW, category), NONE, 3)
    assert result.verdict is expected
    assert result.emergency is False
    assert "3 overrides today" in result.justification


def test_two_overrides_do_not_downgrade():
    assert apply_heuristics(llm_says(Verdict.ALLOW), NONE, 2).verdict is Verdict.ALLOW


@pytest.mark.parametrize("verdict", [Verdict.DENY, Verdict.DELAY])
def test_downgrade_never_touches_other_verdicts(verdict):
    assert apply_heuristics(llm_says(verdict), NONE, 7).verdict is verdict


def test_an_llm_emergency_flag_the_judge_does_not_share_is_cleared():
    flagged = Evaluation(Verdict.ALLOW, 0.8, Category.EMERGENCY, "llm: x", emergency=True)
    assert apply_heuristics(flagged, NONE, 0).emergency is False


@pytest.mark.parametrize("overrides", [0, 3])
@pytest.mark.parametrize("category", list(Category))
def test_a_doubted_reason_is_never_denied(overrides, category):
    result = apply_heuristics(llm_says(Verdict.DENY, category), DOUBT, overrides)
    assert (result.verdict, result.emergency, result.emergency_doubt) == (Verdict.DELAY, False, True)
    assert "a possible emergency is never denied" in result.justification


def test_a_doubted_allow_after_three_overrides_is_delayed_not_denied():
    result = apply_heuristics(llm_says(Verdict.ALLOW, Category.OTHER), DOUBT, 3)
    assert result.verdict is Verdict.DELAY
    assert "allow downgraded to deny" in result.justification


def test_a_doubted_allow_or_delay_stands():
    assert apply_heuristics(llm_says(Verdict.ALLOW), DOUBT, 0).verdict is Verdict.ALLOW
    assert apply_heuristics(llm_says(Verdict.DELAY), DOUBT, 0).verdict is Verdict.DELAY


def test_the_justification_says_what_the_judge_decided_and_why():
    result = apply_heuristics(llm_says(Verdict.ALLOW, Category.OTHER), RULED_OUT, 3)
    assert result.justification == (
        "llm: x | emergency rule: urgent keyword 医院 (routine: 上班) not urgent"
        " | 3 overrides today: allow downgraded to deny"
    )
    assert result.emergency_doubt is False
