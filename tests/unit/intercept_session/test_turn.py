"""One turn decided end to end (offline and from an LLM answer): an emergency hears the persona's
emergency line, never the allow template's reproach."""

from __future__ import annotations

import pytest

from intercept_session.engine.messages import emergency_doubt_message, emergency_message, verdict_message
from intercept_session.engine.model import (
    Category,
    Evaluation,
    EvaluationInput,
    RuleContext,
    Trigger,
    Verdict,
)
from intercept_session.engine.turn import ENGINE_VERSION, Judges, decide_turn
from intercept_session.judges import category_model, judges
from intercept_session.personas import personas
from intercept_session.urgency_config import urgency_rules
from tests.support.local_models import fixed_model

RULE = RuleContext("工作日禁止刷短视频", "抖音", "今天的周报", 45, 10)
KEYS = ["strict-father", "rational-mentor", "humor-coach"]


def decide(
    text: str,
    key: str = "strict-father",
    overrides: int = 0,
    llm: Evaluation | None = None,
    with_judges: Judges | None = None,
):
    request = EvaluationInput(text, Trigger.BLOCKED_WINDOW, RULE, streak=1, override_count_today=overrides)
    return decide_turn(request, personas().get(key), llm, with_judges or judges())


def test_the_engine_version_moved_with_the_judges():
    assert ENGINE_VERSION == "intercept-turn/3"


def test_the_judges_version_names_the_lexicon_and_both_models():
    version = judges().version
    assert version.startswith(f"urgency@{urgency_rules().version}+emergency@")
    assert "+category@" in version


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("llm", [None, Evaluation(Verdict.DENY, 0.8, Category.OTHER, "llm: an excuse")])
def test_an_urgent_mention_after_three_overrides_unlocks_with_the_emergency_line(key, llm):
    decided = decide("家里着火了快帮我叫119", key, overrides=3, llm=llm)
    persona = personas().get(key)
    assert (decided.evaluation.verdict, decided.evaluation.emergency) == (Verdict.ALLOW, True)
    assert decided.persona_response == emergency_message(persona)
    assert decided.persona_response != verdict_message(persona, Verdict.ALLOW, RULE)
    assert decided.recommended_action.value == "unlock"
    assert decided.as_record()["persona_response"] == emergency_message(persona)


@pytest.mark.parametrize(
    "text", ["我在医院排队挂号好无聊", "It's not really an emergency, I just want to watch videos"]
)
def test_a_mention_that_is_not_urgent_after_three_overrides_stays_locked(text):
    llm = Evaluation(Verdict.ALLOW, 0.9, Category.EMERGENCY, "llm: sounds urgent")
    decided = decide(text, overrides=3, llm=llm)
    assert decided.evaluation.verdict is Verdict.DENY
    assert decided.evaluation.emergency is False
    assert decided.persona_response == "这个理由站不住脚。先完成今天的周报，再谈放松。"


def test_an_ordinary_allow_keeps_the_spec_allow_line():
    llm = Evaluation(Verdict.ALLOW, 0.9, Category.WORK, "llm: concrete")
    decided = decide("老板让我10分钟内回复客户的消息", overrides=0, llm=llm)
    assert decided.evaluation.emergency is False
    assert decided.persona_response == "这次暂时同意，但记得记录结果。下次别再找借口。"


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("llm", [None, Evaluation(Verdict.DENY, 0.8, Category.OTHER, "llm: an excuse")])
def test_a_doubted_reason_points_to_the_emergency_button_and_is_never_denied(key, llm):
    doubtful = Judges(
        urgency_rules(), fixed_model(0.5, thresholds={"emergency": 0.9, "doubt": 0.4}), category_model()
    )
    decided = decide("my dad is acting really strange", key, overrides=3, llm=llm, with_judges=doubtful)
    assert decided.evaluation.verdict is Verdict.DELAY
    assert (decided.evaluation.emergency, decided.evaluation.emergency_doubt) == (False, True)
    assert decided.persona_response == emergency_doubt_message(personas().get(key))
    assert "紧急情况" in decided.persona_response
    assert decided.as_record()["emergency_suggested"] is True
