"""Ownership and row-level security. A debate is (owner, debate id): another owner's debate with
the same id is another debate, with its own cooldowns and stats. Checked over the API, and as
Postgres sees each caller: the function's role acting for an owner (`db.as_user`), the mobile
app's `authenticated` role through PostgREST, and `anon`. Only the function writes."""

from __future__ import annotations

import uuid

import pytest

from persona_rails.db import DbError
from tests.integration.chair_interrupt.helpers import (
    CHALLENGE,
    FUNCTION,
    STRAW_MAN,
    evaluate,
    evaluate_body,
    interruption_rows,
    new_debate,
    path,
    post_evaluate,
    record_of,
    row_counts,
    stats,
)
from tests.support.fixtures import TEST_JWT_SECRET
from tests.support.users import service_token

TABLES = ("chair_cooldowns", "chair_interruptions", "decision_records")
pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


@pytest.fixture
def shared_debate(api, users):
    """Alice and Bob, each with a debate of the same id: two interrupts for Alice, one for Bob."""
    alice, bob = users.create(), users.create()
    debate = new_debate()
    assert evaluate(api, alice, debate, STRAW_MAN).body is not None
    assert evaluate(api, alice, debate, CHALLENGE).body is not None
    assert evaluate(api, bob, debate, STRAW_MAN).body is not None
    return alice, bob, debate


def as_app(db, user):
    """What the mobile app gets through PostgREST with the user's JWT: role `authenticated`."""
    return db.transaction("authenticated", user.claims)


# -- one debate id, two owners ------------------------------------------------------------------


def test_another_owners_debate_with_the_same_id_has_its_own_cooldowns(api, users, db):
    alice, bob = users.create(), users.create()
    debate = new_debate()
    assert evaluate(api, alice, debate, STRAW_MAN).body is not None
    assert evaluate(api, alice, debate, STRAW_MAN).body is None
    # Alice's chair_2 is on cooldown in her debate; Bob's debate of the same id is untouched.
    bobs = evaluate(api, bob, debate, STRAW_MAN)
    assert bobs.body is not None
    assert record_of(db, bobs)["inputs"]["on_cooldown"] == []
    assert evaluate(api, bob, debate, STRAW_MAN).body is None


def test_stats_and_resets_are_per_owner(api, db, shared_debate):
    alice, bob, debate = shared_debate
    assert stats(api, alice, debate) == {
        "total_interrupts": 2,
        "by_chair": {"chair_2": 1, "chair_3": 1},
        "by_reason": {"straw_man_detected": 1, "direct_challenge": 1},
    }
    assert stats(api, bob, debate) == {
        "total_interrupts": 1,
        "by_chair": {"chair_2": 1},
        "by_reason": {"straw_man_detected": 1},
    }
    bob_reset = api.post(path(debate, "reset-cooldowns"), bob.token)
    assert bob_reset.body == {"debate_id": debate, "cleared": ["chair_2"]}
    # Bob's reset left Alice's cooldowns alone.
    assert row_counts(db, alice.id)["cooldowns"] == 2
    assert evaluate(api, alice, debate, STRAW_MAN).body is None
    assert evaluate(api, bob, debate, STRAW_MAN).body is not None


# -- reading and writing the tables directly ----------------------------------------------------


@pytest.mark.parametrize("role", ["function", "app"])
@pytest.mark.parametrize("table", TABLES)
def test_an_owner_reads_only_their_own_rows(db, shared_debate, table, role):
    alice, bob, _ = shared_debate
    where = f"function_name = '{FUNCTION}'" if table == "decision_records" else "TRUE"
    expected = {
        ("chair_cooldowns", "alice"): 2,
        ("chair_interruptions", "alice"): 2,
        ("decision_records", "alice"): 2,
        ("chair_cooldowns", "bob"): 1,
        ("chair_interruptions", "bob"): 1,
        ("decision_records", "bob"): 1,
    }
    for name, me, other in (("alice", alice, bob), ("bob", bob, alice)):
        session = db.as_user(me.claims) if role == "function" else as_app(db, me)
        with session as tx:
            assert (
                tx.one(f"SELECT count(*) AS n FROM public.{table} WHERE {where}")["n"]
                == expected[(table, name)]
            )
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


def test_anon_reads_nothing(db, shared_debate):
    for table in TABLES:
        with (
            pytest.raises(DbError, match="permission denied"),
            db.transaction("anon", {"role": "anon"}) as tx,
        ):
            tx.rows(f"SELECT * FROM public.{table}")


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO public.chair_cooldowns (debate_id, chair_position, last_interrupt_at)"
        " VALUES (gen_random_uuid(), 'chair_2', now())",
        "UPDATE public.chair_cooldowns SET last_interrupt_at = now() - interval '1 day'",
        "DELETE FROM public.chair_cooldowns",
        """INSERT INTO public.chair_interruptions (id, debate_id, interrupting_chair, interrupted_chair,
             interrupting_framework, interrupted_framework, trigger_reason, trigger_content, urgency,
             suggested_opener, source)
           VALUES (gen_random_uuid(), gen_random_uuid(), 'chair_2', 'chair_1', 'virtue_ethics',
             'utilitarianism', 'straw_man_detected', 'forged', 0.9, 'Forged opener here', 'offline')""",
        "UPDATE public.chair_interruptions SET trigger_reason = 'pivotal_point'",
        "DELETE FROM public.chair_interruptions",
        "UPDATE public.decision_records SET output = '{}'",
        "DELETE FROM public.decision_records",
        """INSERT INTO public.decision_records (id, function_name, kind, subject_type, subject_id,
             engine_version, config_version, inputs, output, source)
           VALUES (gen_random_uuid(), 'ChairInterruptFunction', 'chair.interrupt', 'chair_evaluation',
             gen_random_uuid(), 'forged', 'forged', '{}', '{}', 'offline')""",
    ],
    ids=[
        "insert-cooldown",
        "expire-cooldowns",
        "delete-cooldowns",
        "insert-interruption",
        "rewrite-interruption",
        "delete-interruptions",
        "rewrite-record",
        "delete-records",
        "insert-record",
    ],
)
def test_the_app_role_cannot_write_the_interruption_tables(db, shared_debate, statement):
    alice, _, debate = shared_debate
    before = row_counts(db, alice.id), interruption_rows(db, alice.id, debate)
    with pytest.raises(DbError, match="permission denied"), as_app(db, alice) as tx:
        tx.execute(statement)
    assert (row_counts(db, alice.id), interruption_rows(db, alice.id, debate)) == before


def test_the_function_acting_for_one_owner_cannot_touch_anothers_rows(db, shared_debate):
    alice, bob, debate = shared_debate
    before = row_counts(db, alice.id)
    with db.as_user(bob.claims) as tx:
        assert (
            tx.execute("DELETE FROM public.chair_cooldowns WHERE user_id = CAST(:a AS uuid)", a=alice.id) == 0
        )
        assert (
            tx.execute(
                "UPDATE public.chair_cooldowns SET last_interrupt_at = now() - interval '1 day'"
                " WHERE user_id = CAST(:a AS uuid)",
                a=alice.id,
            )
            == 0
        )
    with pytest.raises(DbError, match="row-level security"), db.as_user(bob.claims) as tx:
        tx.execute(
            "INSERT INTO public.chair_cooldowns (user_id, debate_id, chair_position, last_interrupt_at)"
            " VALUES (CAST(:a AS uuid), CAST(:d AS uuid), 'chair_3', now())",
            a=alice.id,
            d=debate,
        )
    with pytest.raises(DbError, match="permission denied"), db.as_user(bob.claims) as tx:
        # The log is append-only, even for the function.
        tx.execute("DELETE FROM public.chair_interruptions")
    assert row_counts(db, alice.id) == before


# -- who may act for whom -----------------------------------------------------------------------


@pytest.fixture
def service():
    return service_token(TEST_JWT_SECRET)


def test_a_service_role_token_acts_for_the_owner_it_names(api, users, db, service):
    owner = users.create()
    debate = new_debate()
    body = {**evaluate_body(STRAW_MAN), "user_id": owner.id}
    reply = post_evaluate(api, service, debate, body)
    assert reply.status == 200, reply.body
    assert reply.body["interrupting_chair"]["position"] == "chair_2"
    (logged,) = interruption_rows(db, owner.id, debate)
    assert str(logged["user_id"]) == owner.id
    assert str(record_of(db, reply)["user_id"]) == owner.id
    # The owner's own token sees the same debate: chair_2 is on cooldown for them too.
    assert evaluate(api, owner, debate, STRAW_MAN).body is None
    # The orchestrator reads the stats and resets the cooldowns naming the owner in the query.
    service_stats = api.get(path(debate, "stats") + f"?user_id={owner.id}", service)
    assert service_stats.status == 200
    assert service_stats.body == stats(api, owner, debate)
    assert service_stats.body["total_interrupts"] == 1
    cleared = api.post(path(debate, "reset-cooldowns") + f"?user_id={owner.id}", service)
    assert cleared.status == 200
    assert cleared.body == {"debate_id": debate, "cleared": ["chair_2"]}
    quick = api.post(path(debate, "quick-check") + f"?user_id={owner.id}", service, {"content": STRAW_MAN})
    assert quick.status == 200
    assert quick.body["potential_trigger"] is True


def test_the_context_hash_does_not_depend_on_who_called(api, users, db, service):
    owner = users.create()
    own = evaluate(api, owner, new_debate(), STRAW_MAN)
    by_service = post_evaluate(api, service, new_debate(), {**evaluate_body(STRAW_MAN), "user_id": owner.id})
    assert record_of(db, own)["inputs"]["context_hash"] == record_of(db, by_service)["inputs"]["context_hash"]


def test_a_user_token_naming_another_user_is_403_and_writes_nothing(api, users, db):
    alice, bob = users.create(), users.create()
    debate = new_debate()
    before = row_counts(db, alice.id), row_counts(db, bob.id)
    replies = [
        post_evaluate(api, alice.token, debate, {**evaluate_body(STRAW_MAN), "user_id": bob.id}),
        api.get(path(debate, "stats") + f"?user_id={bob.id}", alice.token),
        api.post(path(debate, "reset-cooldowns") + f"?user_id={bob.id}", alice.token),
    ]
    for reply in replies:
        assert reply.status == 403, reply.body
        assert reply.error["code"] == "user_mismatch"
        assert reply.error["field"] == "user_id"
    assert (row_counts(db, alice.id), row_counts(db, bob.id)) == before


def test_a_user_token_naming_itself_is_fine(api, users):
    owner = users.create()
    reply = post_evaluate(api, owner.token, new_debate(), {**evaluate_body(STRAW_MAN), "user_id": owner.id})
    assert reply.status == 200
    assert reply.body is not None


def test_a_service_role_token_without_a_user_id_is_422(api, service):
    debate = new_debate()
    replies = [
        post_evaluate(api, service, debate, evaluate_body(STRAW_MAN)),
        api.get(path(debate, "stats"), service),
        api.post(path(debate, "reset-cooldowns"), service),
        api.post(path(debate, "quick-check"), service, {"content": STRAW_MAN}),
    ]
    for reply in replies:
        assert reply.status == 422, reply.body
        assert reply.error["code"] == "user_id_required"
        assert reply.error["field"] == "user_id"


@pytest.mark.parametrize(
    ("content", "config"),
    [(STRAW_MAN, {}), (STRAW_MAN, {"enabled": False}), ("We should weigh both sides.", {})],
    ids=["interrupt", "disabled", "no-trigger"],
)
def test_a_service_role_token_naming_an_unknown_user_is_404_and_writes_nothing(
    api, db, service, content, config
):
    ghost = str(uuid.uuid4())
    reply = post_evaluate(api, service, new_debate(), {**evaluate_body(content, **config), "user_id": ghost})
    assert reply.status == 404, reply.body
    assert reply.error["code"] == "user_not_found"
    assert reply.error["field"] == "user_id"
    assert row_counts(db, ghost) == {"cooldowns": 0, "interruptions": 0, "records": 0}
