"""4. The engine state at its bounds, in-process: what a turn pays for it as it fills up.

The service reads `engine_state` (JSON) into a `SessionState` once per turn and writes it out
twice (the state after the turn, and the state before it for the decision record). Its size is
bounded by the config, not by the turn count: at most `max_facts_per_topic` facts per topic, and
at most `max_topics` topics (a topic plan holds at most 20). This part times that conversion
and the engine (plan_turn + finish_turn) for states the handler run reached (turns 10 and 200
of a long session), for the largest state the same corpus reaches within the session's turn
limit with a 20-topic plan, and for the constructed bound (`max_topics` topics, each at its
fact cap and with every key clarified), where no database or HTTP is involved.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from bench.harness.report import Report, median, ms
from bench.interview.corpus import EN_NAMES, EN_PLACES, SEED, script

if TYPE_CHECKING:
    from interview_turn.engine.model import SessionState

PROBE = "We moved to Boston in 1985, when I was twelve. My father had found work at the shipyard."
REPEATS = 200


@dataclass(frozen=True)
class StateCost:
    label: str
    topics: int
    facts: int
    clarified: int
    json_bytes: int
    to_json_ns: float  # median of REPEATS
    from_json_ns: float
    engine_ns: float  # plan_turn + finish_turn on this state, the offline line

    @property
    def per_turn_ns(self) -> float:
        """What the service spends on the state per turn: one from_json, two to_json."""
        return self.from_json_ns + 2 * self.to_json_ns


def _timed(call: Callable[[], Any]) -> float:
    call()
    samples = []
    for _ in range(REPEATS):
        started = time.perf_counter_ns()
        call()
        samples.append(time.perf_counter_ns() - started)
    return median(samples)


def cost(label: str, state: SessionState) -> StateCost:
    from interview_turn.artifacts import interview_config
    from interview_turn.engine.model import SessionState, TurnInput
    from interview_turn.engine.turn import finish_turn, plan_turn
    from persona_rails.llm.tokens import count_tokens

    config = interview_config()
    data = state.to_json()
    turn = TurnInput(PROBE)
    # One more turn must be allowed for the engine to plan it: a state at the limit steps back one.
    before = replace(state, turn_no=min(state.turn_no, config.router.session.max_turns - 1))

    def engine() -> None:
        plan = plan_turn(config, before, turn, 12345)
        finish_turn(config, plan, plan.offline_line(), count_tokens)

    return StateCost(
        label,
        len(state.topics),
        sum(len(topic.facts) for topic in state.topics.values()),
        sum(len(topic.clarified) for topic in state.topics.values()),
        len(json.dumps(data, ensure_ascii=False).encode()),
        _timed(state.to_json),
        _timed(lambda: SessionState.from_json(data)),
        _timed(engine),
    )


def corpus_at_limit(topics: int = 20) -> SessionState:
    """The same corpus, in-process, until the session's turn limit; the client names the next
    of `topics` planned topics on every turn, so the facts spread over all of them."""
    from interview_turn.artifacts import interview_config
    from interview_turn.engine.model import Language, SessionState, TopicPlanItem, TurnInput
    from interview_turn.engine.turn import finish_turn, initial_state, plan_turn
    from persona_rails.llm.tokens import count_tokens

    config = interview_config()
    limit = config.router.session.max_turns
    plan = tuple(TopicPlanItem(f"topic_{index}", f"topic {index}") for index in range(topics))
    state = initial_state(config, SessionState(Language.EN, "Margaret", "en-US", plan, True, ""))
    rng = random.Random(SEED + 7)
    answers = [
        turn for language in ("en", "zh") for turn in script(rng, language, limit, end_with_stop=False).turns
    ]
    rng.shuffle(answers)
    for index in range(limit):
        turn = TurnInput(answers[index].text, topic_id=plan[index % topics].topic_id)
        planned = plan_turn(config, state, turn, index)
        state = finish_turn(config, planned, planned.offline_line(), count_tokens).state_after
    return state


def constructed_bound() -> SessionState:
    """`max_topics` topics with no plan, each holding `max_facts_per_topic` distinct facts with
    realistic values and every anchored key clarified: no session can hold more."""
    from interview_turn.artifacts import interview_config
    from interview_turn.engine.model import Fact, FactKind, Language, SessionState, TopicState

    config = interview_config()
    cap = config.lexicon.thresholds.max_facts_per_topic
    anchors = ["*", *config.lexicon.facts.anchors]
    keys = [f"{kind.value}:{anchor}" for kind in FactKind for anchor in anchors if anchor != "*"]
    values = {
        FactKind.YEAR: [str(year) for year in range(1940, 2006)],
        FactKind.AGE: [str(age) for age in range(6, 90)],
        FactKind.PLACE: [place.casefold() for place in EN_PLACES],
        FactKind.NAME: list(EN_NAMES),
    }
    kinds = list(FactKind)

    def facts() -> tuple[Fact, ...]:
        made = []
        for index in range(cap):
            kind = kinds[index % len(kinds)]
            made.append(
                Fact(
                    kind, anchors[index % len(anchors)], values[kind][index % len(values[kind])], 400 + index
                )
            )
        return tuple(made)

    topics = {
        f"topic_{index}": TopicState(depth=2, escalations=2, facts=facts(), clarified=tuple(keys[:cap]))
        for index in range(config.router.session.max_topics)
    }
    return SessionState(Language.EN, "Margaret", "en-US", (), True, "topic_0", topics, turn_no=450)


def measure_state_costs(turn_10: dict[str, Any], turn_200: dict[str, Any]) -> list[StateCost]:
    from interview_turn.engine.model import SessionState

    return [
        cost("the first long session, turn 10 (handler run)", SessionState.from_json(turn_10)),
        cost("the first long session, turn 200 (handler run)", SessionState.from_json(turn_200)),
        cost("same corpus at the 500-turn limit, 20 planned topics", corpus_at_limit()),
        cost("the bound: max_topics x max_facts_per_topic, keys clarified", constructed_bound()),
    ]


def state_report(costs: list[StateCost]) -> Report:
    rows = [
        [
            item.label,
            str(item.topics),
            f"{item.facts:,}",
            f"{item.clarified:,}",
            f"{item.json_bytes:,}",
            ms(item.to_json_ns),
            ms(item.from_json_ns),
            ms(item.per_turn_ns),
            ms(item.engine_ns),
        ]
        for item in costs
    ]
    return Report(
        title="Interview: the engine state at its bounds (in-process, no database)",
        headers=[
            "state",
            "topics",
            "facts",
            "clarified keys",
            "JSON bytes",
            "to_json ms",
            "from_json ms",
            "per turn: 1 from + 2 to, ms",
            "plan_turn + finish_turn ms",
        ],
        rows=rows,
        notes=[
            "Medians of 200 calls each. The service reads the state once (`from_json`) and writes it twice "
            "(`to_json`: the state after the turn, and the state before it for the decision record), then sends both "
            "to Postgres as JSON; part 1's `state` column is those three calls inside the handler.",
            "The limit row runs the same corpus through the engine for the config's 500 turns with a 20-topic plan "
            "(the most a plan may hold), the client naming the next topic each turn; the bound row is built from "
            "the config: `max_topics` topics (no plan), each with `max_facts_per_topic` distinct facts and every "
            "anchored key clarified.",
        ],
    )
