"""events/chair-interrupt/ doubles as `sam local invoke -e` input; here each fixture goes through
the handler, in order, for supabase/seed.sql's development user: the spec's straw man is
interrupted, the cooldown then holds, the orchestrator (service role) gets the other chair, and
the stats and the reset see both interrupts."""

from __future__ import annotations

import json

import pytest

from tests.integration.chair_interrupt.helpers import (
    FUNCTION,
    ROOT,
    assert_candidate,
    cooldown_rows,
    interruption_rows,
    openers,
    record_of,
)
from tests.support.api import load_event

DEV_USER = "00000000-0000-4000-8000-000000000001"
FIXTURE_DEBATE = "de0a7e00-0000-4000-8000-000000000001"
pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def _load_seed(db) -> None:
    with db.as_owner() as tx:
        tx.execute((ROOT / "supabase" / "seed.sql").read_text(encoding="utf-8"))
        # What an earlier run left in the fixture debate would put its chairs on cooldown.
        for table in ("chair_cooldowns", "chair_interruptions"):
            tx.execute(
                f"DELETE FROM public.{table} WHERE user_id = CAST(:u AS uuid) AND debate_id = CAST(:d AS uuid)",
                u=DEV_USER,
                d=FIXTURE_DEBATE,
            )
        tx.execute(
            "DELETE FROM public.decision_records WHERE user_id = CAST(:u AS uuid) AND function_name = :f",
            u=DEV_USER,
            f=FUNCTION,
        )


def _invoke(api, name: str):
    return api.invoke_event(load_event(f"chair-interrupt/{name}.json"))


def _body(name: str) -> dict:
    return json.loads(load_event(f"chair-interrupt/{name}.json")["body"])


def test_the_events_fixtures_run_a_debate(api, db):
    _load_seed(db)

    evaluated = _invoke(api, "evaluate")
    assert evaluated.status == 200, evaluated.body
    candidate = assert_candidate(evaluated.body)
    sent = _body("evaluate")
    assert candidate["trigger_reason"] == "straw_man_detected"
    assert candidate["interrupting_chair"] == sent["other_chairs"][0]  # chair_2, the virtue ethicist
    assert candidate["interrupted_chair"] == sent["current_speaker"]
    assert candidate["suggested_opener"] in openers("straw_man_detected")
    assert str(record_of(db, evaluated)["user_id"]) == DEV_USER

    on_cooldown = _invoke(api, "evaluate-on-cooldown")
    assert on_cooldown.status == 200, on_cooldown.body
    assert on_cooldown.body is None
    assert record_of(db, on_cooldown)["inputs"]["on_cooldown"] == ["chair_2"]

    orchestrated = _invoke(api, "evaluate-as-orchestrator")
    assert orchestrated.status == 200, orchestrated.body
    assert_candidate(orchestrated.body)
    assert orchestrated.body["trigger_reason"] == "pivotal_point"
    # chair_2 is on cooldown: the pivotal point goes to chair_3.
    assert orchestrated.body["interrupting_chair"]["position"] == "chair_3"
    assert str(record_of(db, orchestrated)["user_id"]) == DEV_USER

    quick = _invoke(api, "quick-check")
    assert quick.status == 200, quick.body
    assert quick.body == {"potential_trigger": True, "likely_reason": "straw_man_detected"}

    stats = _invoke(api, "stats")
    assert stats.status == 200, stats.body
    assert stats.body == {
        "total_interrupts": 2,
        "by_chair": {"chair_2": 1, "chair_3": 1},
        "by_reason": {"straw_man_detected": 1, "pivotal_point": 1},
    }
    assert [row["interrupting_chair"] for row in interruption_rows(db, DEV_USER, FIXTURE_DEBATE)] == [
        "chair_2",
        "chair_3",
    ]

    cleared = _invoke(api, "reset-cooldowns")
    assert cleared.status == 200, cleared.body
    assert cleared.body == {"debate_id": FIXTURE_DEBATE, "cleared": ["chair_2", "chair_3"]}
    assert cooldown_rows(db, DEV_USER, FIXTURE_DEBATE) == []

    # After the reset the straw man is interrupted again.
    again = _invoke(api, "evaluate")
    assert again.status == 200
    assert again.body is not None
    assert again.body["interrupting_chair"]["position"] == "chair_2"
