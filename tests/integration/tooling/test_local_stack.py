"""The local stack: every template function on one port, a full dialog over real HTTP."""

import json
import urllib.request

import pytest

from persona_rails_dev.demo import run_demo
from persona_rails_dev.local_env import DEV_USER_ID
from persona_rails_dev.server import make_server, mount, serve_in_background
from persona_rails_dev.template import functions


@pytest.fixture
def local_api(db):
    from pathlib import Path

    seed = Path(__file__).resolve().parents[3] / "supabase" / "seed.sql"
    with db.as_owner() as tx:
        tx.execute(seed.read_text(encoding="utf-8"))
    server = make_server(mount(functions().values()), port=0)
    serve_in_background(server)
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def test_the_demo_dialog_runs_end_to_end_over_http(local_api, db):
    steps = run_demo(local_api, print_fn=lambda *_: None)
    assert steps["S1 challenge"]["state"] == "awaiting_reason"
    assert steps["S2-S4 reason"]["ai_verdict"] in {"deny", "delay", "allow"}
    assert steps["appeal"]["appeal_used"] is True
    assert steps["S5-S6 decision"]["state"] == "closed"
    assert steps["resume"]["state"] == "closed"
    with db.as_owner() as tx:
        sid = steps["resume"]["session_id"]
        assert tx.one("SELECT user_id FROM public.intercept_sessions WHERE id = CAST(:s AS uuid)", s=sid)[
            "user_id"
        ].hex
    assert str(steps["resume"]["session_id"])


def test_unknown_routes_are_404_json(local_api):
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(f"{local_api}/nope", timeout=10)  # noqa: S310
    assert error.value.code == 404
    assert json.loads(error.value.read())["message"] == "Not Found"


def test_the_dev_user_is_the_seeded_one():
    assert DEV_USER_ID == "00000000-0000-4000-8000-000000000001"
