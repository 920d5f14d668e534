"""Rows of the interview tables as the API's response models."""

from __future__ import annotations

import uuid
from typing import Any

from interview_turn.engine.model import SessionState
from interview_turn.schemas import (
    HistoryTurn,
    LoopOut,
    Narrator,
    PlannedTopic,
    SessionConsent,
    SessionOut,
    SessionStarted,
    SessionStateOut,
    TopicOut,
    TurnContract,
    TurnMeta,
    TurnResponse,
)

Row = dict[str, Any]
_CONTRACT_FIELDS = tuple(TurnContract.model_fields)


def contract_of(row: Row) -> dict[str, Any]:
    return {name: row[name] for name in _CONTRACT_FIELDS}


def meta(row: Row, session_id: str, status: str) -> TurnMeta:
    return TurnMeta(
        turn_id=row["id"],
        turn_no=row["turn_no"],
        session_id=uuid.UUID(session_id),
        session_status=status,  # type: ignore[arg-type]
        config_version=row["config_version"],
        source=row["source"],
        created_at=row["created_at"],
    )


def turn_response(row: Row, session_id: str, status: str) -> TurnResponse:
    return TurnResponse(
        **contract_of(row),
        signals=row["signals"],
        winning_rule=row["winning_rule"],
        turn=meta(row, session_id, status),
    )


def started(session: Row, opening: Row) -> SessionStarted:
    return SessionStarted(
        session_id=session["id"],
        status=session["status"],
        narrator=Narrator(display_name=session["narrator_name"]),
        language=session["language"],
        locale=session["locale"],
        topic_plan=[PlannedTopic(**item) for item in session["topic_plan"]],
        consent=SessionConsent(sensitive_topics=session["sensitive_consent"]),
        topic_id=opening["topic_id"],
        opening=TurnContract(**contract_of(opening)),
        opening_turn=meta(opening, str(session["id"]), session["status"]),
        created_at=session["created_at"],
    )


def session_out(session: Row, turns: list[Row]) -> SessionOut:
    state = SessionState.from_json(session["engine_state"])
    return SessionOut(
        session_id=session["id"],
        status=session["status"],
        closed_reason=session["closed_reason"],
        narrator=Narrator(display_name=session["narrator_name"]),
        language=session["language"],
        locale=session["locale"],
        topic_plan=[PlannedTopic(**item) for item in session["topic_plan"]],
        state=SessionStateOut(
            topic_id=state.topic_id,
            depth_level=state.topic(state.topic_id).depth,
            turn_count=state.turn_no,
            last_turn_increased_depth=state.last_increase,
            loop=LoopOut(machine=state.loop.machine, steps=state.loop.steps) if state.loop else None,
            sensitive_consent=state.sensitive_consent,
            topics=[
                TopicOut(
                    topic_id=topic_id,
                    depth_level=topic.depth,
                    escalations=topic.escalations,
                    facts=len(topic.facts),
                )
                for topic_id, topic in state.topics.items()
            ],
        ),
        turns=[
            HistoryTurn(
                **contract_of(turn),
                turn_no=turn["turn_no"],
                turn_id=turn["id"],
                user_text=turn["user_text"],
                signals=turn["signals"],
                winning_rule=turn["winning_rule"],
                depth_decision=turn["depth_decision"],
                depth_reason=turn["depth_reason"],
                violated_rule_ids=turn["violated_rule_ids"],
                source=turn["source"],
                config_version=turn["config_version"],
                created_at=turn["created_at"],
            )
            for turn in turns
        ],
        created_at=session["created_at"],
        closed_at=session["closed_at"],
    )
