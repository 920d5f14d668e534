"""Ownership: a caller sees only one learner's encounters, over HTTP (the learner's own token, or
the platform's service-role token naming the learner) and as Postgres sees each caller (the
function's role acting for a learner, the app's `authenticated` role, `anon`). Learners read their
own rows; only the function writes them."""

from __future__ import annotations

import uuid

import pytest

from persona_rails.db import DbError
from tests.integration.sps_encounter.helpers import (
    FUNCTION,
    NOTHING,
    ONSET,
    OPENING,
    SCENARIOS,
    VALIDATE,
    get_encounter,
    post_start,
    post_turn,
    row_counts,
    start,
    start_body,
    stored_encounter,
    stored_turns,
    take,
)
from tests.support.fixtures import TEST_JWT_SECRET
from tests.support.users import service_token

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")
TABLES = ("sps_encounters", "sps_turns", "sps_validations", "decision_records")
TRANSCRIPT = [
    {"turnIndex": 0, "role": "learner", "text": OPENING},
    {"turnIndex": 1, "role": "patient", "text": "My chest gets tight when I walk uphill."},
]


@pytest.fixture
def two_learners(api, users):
    """Alice and Bob, each with an encounter of two turns and a stored validation."""
    learners = {}
    for name in ("alice", "bob"):
        learner = users.create()
        encounter = start(api, learner)["encounter_id"]
        take(api, learner, encounter, OPENING)
        take(api, learner, encounter, ONSET)
        stored = api.post(
            VALIDATE, learner.token, {"scenario_id": "chest-pain", "transcript": TRANSCRIPT, "store": True}
        )
        assert stored.status == 200, stored.body
        learners[name] = (learner, encounter)
    return learners


@pytest.fixture
def platform():
    return service_token(TEST_JWT_SECRET)


# Over HTTP


def test_another_learners_encounter_is_404_for_turns_and_reads(api, db, two_learners):
    alice, alice_encounter = two_learners["alice"]
    bob, bob_encounter = two_learners["bob"]
    before = {name: row_counts(db, learner.id) for name, (learner, _) in two_learners.items()}
    for token, encounter in ((alice.token, bob_encounter), (bob.token, alice_encounter)):
        assert post_turn(api, token, encounter, "Where is the pain?").status == 404
        assert post_turn(api, token, encounter, "Where is the pain?", key="steal").status == 404
        assert get_encounter(api, token, encounter).status == 404
    assert {name: row_counts(db, learner.id) for name, (learner, _) in two_learners.items()} == before
    own = get_encounter(api, alice.token, alice_encounter)
    assert own.status == 200
    assert [t["text"] for t in own.body["transcript"][0::2]] == [OPENING, ONSET]


def test_the_platform_acts_for_the_learner_it_names(api, db, two_learners, platform):
    alice, alice_encounter = two_learners["alice"]
    bob, bob_encounter = two_learners["bob"]
    as_alice = f"?user_id={alice.id}"

    # Start (user_id in the body), turn and read (?user_id=): all as Alice.
    started = post_start(api, platform, start_body(user_id=alice.id, seed=5))
    assert started.status == 201, started.body
    encounter = started.body["encounter_id"]
    assert str(stored_encounter(db, encounter)["user_id"]) == alice.id
    turn = post_turn(api, platform, encounter, OPENING, query=as_alice)
    assert turn.status == 200, turn.body
    assert str(stored_turns(db, encounter)[0]["user_id"]) == alice.id
    # The learner sees what the platform did for her, and the platform what she did.
    assert get_encounter(api, alice.token, encounter).body["transcript"][1]["text"] == turn.body["text"]
    read = get_encounter(api, platform, alice_encounter, as_alice)
    assert read.status == 200, read.body
    assert [t["text"] for t in read.body["transcript"][0::2]] == [OPENING, ONSET]
    assert post_turn(api, platform, alice_encounter, "Where is the pain?", query=as_alice).status == 200

    # Acting for Bob, the platform sees only Bob's encounters.
    as_bob = f"?user_id={bob.id}"
    bob_before = row_counts(db, bob.id)
    assert get_encounter(api, platform, alice_encounter, as_bob).status == 404
    assert post_turn(api, platform, alice_encounter, "Where is the pain?", query=as_bob).status == 404
    assert get_encounter(api, platform, bob_encounter, as_bob).status == 200
    assert row_counts(db, bob.id) == bob_before

    # Validation stored for the learner named in the body.
    validated = api.post(
        VALIDATE,
        platform,
        {"scenario_id": "chest-pain", "transcript": TRANSCRIPT, "store": True, "user_id": bob.id},
    )
    assert validated.status == 200, validated.body
    with db.as_owner() as tx:
        owner = tx.one(
            "SELECT user_id FROM public.sps_validations WHERE id = CAST(:v AS uuid)",
            v=validated.body["validation_id"],
        )
    assert str(owner["user_id"]) == bob.id
    catalog = api.get(f"{SCENARIOS}{as_alice}", platform)
    assert catalog.status == 200, catalog.body
    assert "chest-pain" in {s["id"] for s in catalog.body["scenarios"]}


def test_the_platform_must_name_a_learner(api, db, two_learners, platform):
    alice, alice_encounter = two_learners["alice"]
    before = row_counts(db, alice.id)
    for reply in (
        post_start(api, platform, start_body()),
        post_turn(api, platform, alice_encounter, ONSET),
        get_encounter(api, platform, alice_encounter),
        api.post(VALIDATE, platform, {"scenario_id": "chest-pain", "transcript": TRANSCRIPT}),
    ):
        assert reply.status == 422, reply.body
        assert (reply.error["code"], reply.error["field"]) == ("user_id_required", "user_id")
    assert row_counts(db, alice.id) == before


def test_the_platform_naming_an_unknown_learner_is_404_and_writes_nothing(api, db, platform):
    ghost = str(uuid.uuid4())
    started = post_start(api, platform, start_body(user_id=ghost))
    assert started.status == 404, started.body
    assert (started.error["code"], started.error["field"]) == ("user_not_found", "user_id")
    stored = api.post(
        VALIDATE,
        platform,
        {"scenario_id": "chest-pain", "transcript": TRANSCRIPT, "store": True, "user_id": ghost},
    )
    assert stored.status == 404, stored.body
    assert row_counts(db, ghost) == NOTHING


def test_a_learner_token_naming_another_learner_is_403(api, db, two_learners):
    alice, alice_encounter = two_learners["alice"]
    bob, _ = two_learners["bob"]
    before = row_counts(db, bob.id), row_counts(db, alice.id)
    as_bob = f"?user_id={bob.id}"
    for reply in (
        post_start(api, alice.token, start_body(user_id=bob.id)),
        post_turn(api, alice.token, alice_encounter, "Where is the pain?", query=as_bob),
        get_encounter(api, alice.token, alice_encounter, as_bob),
        api.post(
            VALIDATE,
            alice.token,
            {"scenario_id": "chest-pain", "transcript": TRANSCRIPT, "store": True, "user_id": bob.id},
        ),
    ):
        assert reply.status == 403, reply.body
        assert reply.error["code"] == "user_mismatch"
    assert (row_counts(db, bob.id), row_counts(db, alice.id)) == before
    # Naming herself is fine.
    assert post_start(api, alice.token, start_body(user_id=alice.id, seed=99)).status == 201


# As Postgres sees each caller


def as_app(db, learner):
    """What the app gets through PostgREST with the learner's JWT: role `authenticated`."""
    return db.transaction("authenticated", learner.claims)


@pytest.mark.parametrize("role", ["function", "app"])
@pytest.mark.parametrize("table", TABLES)
def test_a_learner_reads_only_their_own_rows(db, two_learners, table, role):
    alice, _ = two_learners["alice"]
    bob, _ = two_learners["bob"]
    where = f"function_name = '{FUNCTION}'" if table == "decision_records" else "TRUE"
    expected = {"sps_encounters": 1, "sps_turns": 2, "sps_validations": 1, "decision_records": 2}[table]
    for me, other in ((alice, bob), (bob, alice)):
        session = db.as_user(me.claims) if role == "function" else as_app(db, me)
        with session as tx:
            assert tx.one(f"SELECT count(*) AS n FROM public.{table} WHERE {where}")["n"] == expected
            assert (
                tx.one(f"SELECT count(*) AS n FROM public.{table} WHERE user_id <> (SELECT auth.uid())")["n"]
                == 0
            )
            assert (
                tx.one(
                    f"SELECT count(*) AS n FROM public.{table} WHERE user_id = CAST(:o AS uuid)", o=other.id
                )["n"]
                == 0
            )


@pytest.mark.parametrize("table", TABLES)
def test_anon_reads_nothing(db, two_learners, table):
    with pytest.raises(DbError, match="permission denied"), db.transaction("anon", {"role": "anon"}) as tx:
        tx.rows(f"SELECT * FROM public.{table}")


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE public.sps_encounters SET expires_at = now() + interval '10 years'",
        "UPDATE public.sps_encounters SET state = jsonb_set(state, '{rapport}', '\"open\"')",
        "UPDATE public.sps_encounters SET seed = 1",
        "UPDATE public.sps_turns SET patient_text = 'rewritten'",
        "UPDATE public.sps_validations SET errors = 0",
        "DELETE FROM public.sps_turns",
        "DELETE FROM public.sps_encounters",
        "DELETE FROM public.sps_validations",
        """INSERT INTO public.sps_encounters (scenario_id, scenario_source, scenario_hash, scenario, persona_id,
             persona_source, persona_hash, persona, seed, state, expires_at, config_version, start_fingerprint)
           VALUES ('chest-pain', 'inline', repeat('a', 64), '{}', 'forged', 'inline', repeat('b', 64), '{}', 1,
             '{}', now() + interval '1 day', 'forged', 'forged')""",
        """INSERT INTO public.sps_turns (id, encounter_id, learner_index, patient_index, learner_text,
             patient_text, kind, meta, source, latency_ms, request_fingerprint, config_version, engine_version)
           SELECT gen_random_uuid(), id, 98, 99, 'forged', 'forged', 'answer', '{}', 'offline', 0, 'f', 'f', 'f'
           FROM public.sps_encounters""",
        """INSERT INTO public.sps_validations (id, scenario_id, scenario_hash, persona_id, persona_hash,
             transcript_hash, turns, errors, warnings, info, result, config_version)
           VALUES (gen_random_uuid(), 'chest-pain', repeat('a', 64), 'x', repeat('b', 64), repeat('c', 64), 0, 0,
             0, 0, '{}', 'forged')""",
    ],
    ids=[
        "extend-expiry",
        "raise-rapport",
        "reseed",
        "rewrite-turn",
        "clear-errors",
        "delete-turns",
        "delete-encounters",
        "delete-validations",
        "insert-encounter",
        "insert-turn",
        "insert-validation",
    ],
)
def test_the_app_role_cannot_write_the_sps_tables(db, two_learners, statement):
    alice, encounter = two_learners["alice"]
    before = stored_encounter(db, encounter), stored_turns(db, encounter), row_counts(db, alice.id)
    with pytest.raises(DbError, match="permission denied"), as_app(db, alice) as tx:
        tx.execute(statement)
    assert (stored_encounter(db, encounter), stored_turns(db, encounter), row_counts(db, alice.id)) == before


def test_the_function_acting_for_one_learner_cannot_touch_anothers_encounter(db, two_learners):
    _, alice_encounter = two_learners["alice"]
    bob, _ = two_learners["bob"]
    before = stored_encounter(db, alice_encounter), stored_turns(db, alice_encounter)
    with db.as_user(bob.claims) as tx:
        assert (
            tx.execute(
                "UPDATE public.sps_encounters SET state = NULL, turn_index = 0 WHERE id = CAST(:e AS uuid)",
                e=alice_encounter,
            )
            == 0
        )
    with pytest.raises(DbError, match="row-level security"), db.as_user(bob.claims) as tx:
        tx.execute(
            """
            INSERT INTO public.sps_turns (id, encounter_id, learner_index, patient_index, learner_text,
              patient_text, kind, meta, source, latency_ms, request_fingerprint, config_version, engine_version)
            VALUES (gen_random_uuid(), CAST(:e AS uuid), 98, 99, 'slipped in', 'forged', 'answer', '{}',
              'offline', 0, 'f', 'f', 'f')
            """,
            e=alice_encounter,
        )
    assert (stored_encounter(db, alice_encounter), stored_turns(db, alice_encounter)) == before


@pytest.mark.parametrize(
    ("table", "column"),
    [
        ("sps_encounters", "scenario"),
        ("sps_encounters", "persona"),
        ("sps_encounters", "state"),
        ("sps_turns", "meta"),
        ("sps_turns", "state_after"),
    ],
)
def test_the_app_role_cannot_read_the_answer_key(db, two_learners, table, column):
    """A learner's own JWT reads their transcript through PostgREST, never the case's facts,
    hidden agenda or the runtime's decisions."""
    alice, _ = two_learners["alice"]
    with pytest.raises(DbError, match="permission denied"), as_app(db, alice) as tx:
        tx.rows(f"SELECT {column} FROM public.{table}")
    with as_app(db, alice) as tx:
        assert tx.rows(f"SELECT id, created_at FROM public.{table}")
