"""Shared helpers for the interview engine's unit tests.

`Session` drives the pure engine turn by turn (plan_turn, then finish_turn with a candidate
line) the way the service does, and checks on every turn what must hold on every turn: the
contract validates against `config/schemas/turn-contract.schema.json`, its metrics match its
text, the telemetry agrees with the contract, and the depth governor's binding rules hold.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jsonschema_rs import Draft202012Validator

from interview_turn.artifacts import CONFIG_DIR, interview_config
from interview_turn.engine.config import InterviewConfig
from interview_turn.engine.model import (
    HardStop,
    Language,
    Persona,
    Phase,
    SafetyAction,
    SessionState,
    TopicPlanItem,
    TopicState,
    TurnInput,
)
from interview_turn.engine.signals import Signals, extract, read_lexicons
from interview_turn.engine.turn import Plan, TurnOutcome, finish_turn, initial_state, plan_turn
from persona_rails.llm.tokens import count_tokens

SCHEMA_DIR = CONFIG_DIR / "schemas"


def schema_errors(schema: dict[str, Any], document: Any) -> list[str]:
    return [str(error) for error in Draft202012Validator(schema).iter_errors(document)]


def load_schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))


TURN_CONTRACT_SCHEMA = load_schema("turn-contract.schema.json")
_QUESTION = re.compile(r"[?？]+")


def question_marks(text: str) -> int:
    """Question sentences counted independently of the evaluator: runs of question marks."""
    return len(_QUESTION.findall(text))


def assert_valid_contract(contract: dict[str, Any]) -> None:
    """The spec's turn contract: schema-valid, and its metrics describe its own text."""
    errors = schema_errors(TURN_CONTRACT_SCHEMA, contract)
    assert not errors, f"turn contract breaks its schema: {errors}"
    text = contract["response_text"]
    metrics = contract["metrics"]
    assert text.strip(), "a turn always says something"
    assert metrics["response_tokens"] == count_tokens(text)
    assert metrics["question_count"] == question_marks(text)
    if metrics["question_count"] == 0:
        assert metrics["question_tokens_mean"] == 0
    else:
        assert 0 < metrics["question_tokens_mean"] <= metrics["response_tokens"]


def assert_consistent(outcome: TurnOutcome) -> None:
    """Telemetry must log what the contract says (spec: Logging & Observability)."""
    contract, telemetry = outcome.contract, outcome.telemetry
    assert_valid_contract(contract)
    assert telemetry["routing"]["winning_rule"] == outcome.winning_rule
    assert telemetry["depth"]["before"] == contract["depth_level_before"]
    assert telemetry["depth"]["after"] == contract["depth_level_after"]
    assert telemetry["safety"]["action"] == contract["safety_action"]
    assert telemetry["loop"]["state"] == contract["loop_state"]
    for name, value in contract["metrics"].items():
        assert telemetry["verbosity"][name] == value
    if telemetry["safety"]["violated_rule_ids"]:
        assert contract["persona_used"] == Persona.SAFETY_FALLBACK
        assert contract["safety_action"] == SafetyAction.OVERRIDE
    if outcome.signals is not None:
        for name in ("vagueness_score", "emotion_score", "contradiction_score"):
            assert 0 <= outcome.signals[name] <= 1


def assert_depth_rules(config: InterviewConfig, before: SessionState, turn: TurnInput, plan: Plan) -> None:
    """The depth governor's binding rules, checked on every turn any test plays."""
    decision = plan.depth
    signals = plan.signals
    if decision is None or signals is None:
        return
    assert 0 <= plan.depth_after <= 3
    assert decision.after - decision.before <= config.depth.max_increase_per_turn
    assert plan.depth_after <= decision.after, "a redirect never lands deeper than it left"
    if decision.after > decision.before:
        assert not signals.refusal_or_discomfort
        assert signals.hard_stop is None
        assert signals.user_initiated_elaboration or turn.go_deeper
        assert signals.emotion_score < config.depth.distress_hard_stop_threshold
        assert decision.after <= decision.budget.max_depth
        if before.last_increase:
            assert signals.user_initiated_elaboration, "never twice in a row without elaboration"


@dataclass
class Session:
    """A session played turn by turn through the pure engine, offline lines by default."""

    config: InterviewConfig
    state: SessionState
    outcomes: list[TurnOutcome] = field(default_factory=list)
    plans: list[Plan] = field(default_factory=list)

    def plan(
        self, text: str, *, seed: int | None = None, signals: Signals | None = None, **turn: Any
    ) -> Plan:
        return plan_turn(
            self.config,
            self.state,
            TurnInput(text, **turn),
            self.state.turn_no + 1 if seed is None else seed,
            signals,
        )

    def say(
        self,
        text: str,
        *,
        candidate: str | None = None,
        seed: int | None = None,
        signals: Signals | None = None,
        **turn: Any,
    ) -> TurnOutcome:
        turn_input = TurnInput(text, **turn)
        plan = plan_turn(
            self.config,
            self.state,
            turn_input,
            self.state.turn_no + 1 if seed is None else seed,
            signals,
        )
        assert_depth_rules(self.config, self.state, turn_input, plan)
        outcome = finish_turn(
            self.config, plan, plan.offline_line() if candidate is None else candidate, count_tokens
        )
        assert_consistent(outcome)
        self.plans.append(plan)
        self.outcomes.append(outcome)
        self.state = outcome.state_after
        return outcome

    @property
    def depth(self) -> int:
        return self.state.topic(self.state.topic_id).depth


def new_session(
    *,
    language: Language = Language.EN,
    topic_plan: tuple[TopicPlanItem, ...] = (),
    consent: bool = False,
    locale: str | None = None,
    topics: dict[str, TopicState] | None = None,
    config: InterviewConfig | None = None,
) -> Session:
    """A fresh session; `topics` presets per-topic state (e.g. a topic already at depth 2)."""
    config = config or interview_config()
    state = initial_state(
        config,
        SessionState(
            language=language,
            narrator_name="Margaret" if language is Language.EN else "王阿姨",
            locale=locale,
            topic_plan=topic_plan,
            sensitive_consent=consent,
            topic_id="",
        ),
    )
    if topics:
        state = replace(state, topics={**state.topics, **topics})
    return Session(config, state)


def make_signals(**overrides: Any) -> Signals:
    """Signals built directly, neutral unless overridden."""
    values: dict[str, Any] = {
        "vagueness_score": 0.0,
        "emotion_score": 0.0,
        "contradiction_score": 0.0,
        "refusal_or_discomfort": False,
        "conversation_phase": Phase.NARRATIVE,
        "user_initiated_elaboration": False,
        "topic_id": "life_story",
        "prior_depth_level": 0,
        "hard_stop": None,
        "pause_requested": False,
        "topic_change_requested": False,
        "reflective": False,
        "contradiction": None,
    }
    values.update(overrides)
    return Signals(**values)


def copy_config(destination: Path) -> Path:
    """The shipped artifacts (not their schemas) copied to `destination`, to break one thing."""
    target = destination / "config"
    target.mkdir()
    for path in CONFIG_DIR.iterdir():
        if path.is_file():
            (target / path.name).write_bytes(path.read_bytes())
    return target


def edit_json(path: Path, change: Any) -> dict[str, Any]:
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(json.dumps(document, ensure_ascii=False, indent=2), encoding="utf-8")
    return document


# Narrator texts, chosen for the signals they carry with the shipped lexicon.
PLAN = (
    TopicPlanItem("childhood", "your childhood"),
    TopicPlanItem("work", "your working life"),
    TopicPlanItem("family", "your family"),
)
PLAN_ZH = (
    TopicPlanItem("childhood", "童年"),
    TopicPlanItem("work", "工作"),
    TopicPlanItem("family", "家庭"),
)
PLAIN = "We moved to Boston in 1985 when my father got a job at the shipyard."
PLAIN_ZH = "我们1985年搬到上海，因为爸爸在那里找到了工作。"
VAGUE = "I guess it was sort of okay, I don't really remember."
VAGUE_ZH = "大概还行吧，我记不太清了。"
EMOTIONAL = "I cried when she passed away."
EMOTIONAL_ZH = "她走了以后我哭了很久。"
DISTRESSED = "I cried and cried when my mother passed away, I still miss her every day."
REFUSAL = "I'd rather not talk about that."
REFUSAL_ZH = "我不想说这个。"
TOPIC_CHANGE = "Can we talk about something else?"
TOPIC_CHANGE_ZH = "我们换个话题吧。"
STOP = "I want to stop the interview now."
STOP_ZH = "我想停止访谈。"
ELABORATED = (
    "When I was a boy we lived in a narrow house near the river, and every morning my father "
    "walked me to school past the bakery where the baker gave us bread rolls, and my mother "
    "waited by the gate with my little sister, and in the evenings we all sat on the porch and "
    "listened to the radio together."
)
ELABORATED_ZH = (
    "小时候我们住在河边的一间小房子里，每天早上爸爸送我去上学，路上会经过一家面包店，"
    "店主总是给我们两个小面包，妈妈带着妹妹在门口等我们回家，晚上一家人坐在院子里听收音机。"
)


PAUSE = "pause"


def lexicon_reading(text: str) -> HardStop | str | None:
    """The hard stop the lexicons alone read, else a pause, else None (the blind sets' tests)."""
    config = interview_config()
    found = read_lexicons(config.for_matching(text), config.compiled_lexicon)
    return found.hard_stop or (PAUSE if "pacing" in found.found else None)


def signals_of(text: str) -> Signals:
    """The whole extractor's signals for `text` as a first answer (models included)."""
    return extract(interview_config(), text, topic_id="life_story", topic=TopicState(), turn_no=1).signals
