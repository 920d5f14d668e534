"""Bounded follow-up loops (spec: state machines, recursion caps).

A loop is one invocation of a state machine: it starts when its rule wins, advances one state
per turn while the same rule keeps winning on the same topic, and exits when the rule stops
winning, the narrator refuses or changes topic, or `max_steps` is reached. Once capped it stays
on its exit fallback (it does not restart) until something else wins, so a narrator who stays
vague is never narrowed more than `max_steps` times in a row.
"""

from __future__ import annotations

from dataclasses import dataclass

from interview_turn.engine.model import Loop, Persona
from interview_turn.engine.policy import Lines, Machine, StateMachines

EXHAUSTED = "exhausted"


@dataclass(frozen=True)
class LoopStep:
    machine: str
    step: int
    capped: bool
    persona: Persona
    tactic: str
    lines: Lines
    loop_after: Loop
    state_id: str = EXHAUSTED

    @property
    def loop_state(self) -> str:
        """The contract's `loop_state`: `machine:state`, or `machine:exhausted` past the cap."""
        return f"{self.machine}:{self.state_id}"


def advance(
    machines: StateMachines,
    name: str,
    current: Loop | None,
    *,
    same_topic: bool,
    given: frozenset[str] = frozenset(),
) -> LoopStep:
    """`given`: the kinds of fact the narrator gave in this answer or the one before; a state
    asking for one of them is passed over as if it had run."""
    machine: Machine = machines.machines[name]
    continuing = current is not None and current.machine == name and same_topic
    step = current.steps + 1 if continuing and current is not None else 1
    while step <= machine.max_steps and given.intersection(machine.states[step - 1].asks):
        step += 1
    # Bounded: the stored count stops one past the cap.
    loop_after = Loop(name, min(step, machine.max_steps + 1))
    if step > machine.max_steps:
        # Past the cap no step runs: the count of steps executed stays at the cap.
        fallback = machine.exit.fallback
        return LoopStep(
            name, machine.max_steps, True, fallback.persona, fallback.tactic, fallback.templates, loop_after
        )
    state = machine.states[step - 1]
    return LoopStep(name, step, False, machine.persona, state.tactic, state.templates, loop_after, state.id)
