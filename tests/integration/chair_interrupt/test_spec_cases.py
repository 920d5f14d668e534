"""The spec's test cases (DUELOGIC-006, "Test Cases"), over HTTP against the embedded Postgres,
with no LLM configured: the offline evaluator decides from the quick check and the urgency rules.
Cooldowns live in `chair_cooldowns`, so "the engine" is the debate (owner, debate id) itself."""

from __future__ import annotations

import pytest

from tests.integration.chair_interrupt.helpers import (
    CALM,
    CHALLENGE,
    DEONTOLOGIST,
    DEONTOLOGY_ERROR,
    PIVOTAL,
    SPEAKER,
    STRAW_MAN,
    VIRTUE,
    chair,
    cooldown_rows,
    evaluate,
    evaluate_body,
    interruption_rows,
    new_debate,
    openers,
    path,
    post_evaluate,
    record_of,
    reset,
    stats,
)

# The quick check and the stats publish no metric; Powertools warns about the empty flush.
pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


@pytest.fixture
def owner(users):
    return users.create()


# -- interrupt evaluation -----------------------------------------------------------------------


def test_a_straw_man_is_interrupted_by_the_chair_it_misrepresents(api, db, owner):
    debate = new_debate()
    reply = evaluate(api, owner, debate, STRAW_MAN, other_chairs=[VIRTUE, DEONTOLOGIST])
    candidate = reply.body
    assert candidate is not None
    assert candidate["trigger_reason"] == "straw_man_detected"
    assert candidate["interrupting_chair"] == VIRTUE
    assert candidate["interrupted_chair"] == SPEAKER
    assert "just want" in candidate["trigger_content"]
    assert candidate["trigger_content"] in STRAW_MAN
    assert candidate["suggested_opener"] in openers("straw_man_detected")
    assert candidate["urgency"] >= 0.7  # the threshold of aggressiveness 3

    (logged,) = interruption_rows(db, owner.id, debate)
    assert (logged["interrupting_chair"], logged["interrupted_chair"]) == ("chair_2", "chair_1")
    assert (logged["interrupting_framework"], logged["interrupted_framework"]) == (
        "virtue_ethics",
        "utilitarianism",
    )
    assert logged["trigger_reason"] == "straw_man_detected"
    assert logged["trigger_content"] == candidate["trigger_content"]
    assert logged["suggested_opener"] == candidate["suggested_opener"]
    assert logged["urgency"] == pytest.approx(candidate["urgency"])
    assert logged["source"] == "offline"
    # The interrupt's id is its evaluation's id (and its decision record's).
    assert str(logged["id"]) == reply.headers["x-evaluation-id"]
    assert [row["chair_position"] for row in cooldown_rows(db, owner.id, debate)] == ["chair_2"]


def test_the_same_context_twice_interrupts_once_the_cooldown_blocks_the_second(api, db, owner):
    debate = new_debate()
    first = evaluate(api, owner, debate, PIVOTAL, other_chairs=[VIRTUE], aggressiveness=5)
    second = evaluate(api, owner, debate, PIVOTAL, other_chairs=[VIRTUE], aggressiveness=5)
    assert first.body is not None
    assert first.body["interrupting_chair"]["position"] == "chair_2"
    assert second.body is None
    assert len(interruption_rows(db, owner.id, debate)) == 1
    assert record_of(db, second)["inputs"]["on_cooldown"] == ["chair_2"]


def test_a_repeated_straw_man_is_not_interrupted_while_its_target_is_on_cooldown(api, db, owner):
    debate = new_debate()
    assert evaluate(api, owner, debate, STRAW_MAN).body is not None
    again = evaluate(api, owner, debate, STRAW_MAN)
    # Only the misrepresented chair can defend its framework, and it is on cooldown.
    assert again.body is None
    assert len(interruption_rows(db, owner.id, debate)) == 1


@pytest.mark.parametrize(("aggressiveness", "interrupts"), [(1, False), (2, False), (3, True), (5, True)])
def test_aggressiveness_sets_how_urgent_an_interrupt_must_be(api, db, owner, aggressiveness, interrupts):
    """A pivotal remark is mildly interruptable: urgent enough for an aggressive debate (threshold
    0.5) and a moderate one (0.7), not for a polite one (0.9 at 1, 0.8 at 2)."""
    debate = new_debate()
    reply = evaluate(api, owner, debate, PIVOTAL, aggressiveness=aggressiveness)
    assert (reply.body is not None) is interrupts
    if interrupts:
        assert reply.body["trigger_reason"] == "pivotal_point"
    record = record_of(db, reply)
    assert record["inputs"]["threshold"] == {1: 0.9, 2: 0.8, 3: 0.7, 5: 0.5}[aggressiveness]
    assert record["output"]["outcome"] == ("interrupt" if interrupts else "below_threshold")
    assert len(interruption_rows(db, owner.id, debate)) == int(interrupts)


def test_the_same_mild_chunk_interrupts_at_aggressiveness_5_and_not_at_1(api, owner):
    assert evaluate(api, owner, new_debate(), PIVOTAL, aggressiveness=1).body is None
    assert evaluate(api, owner, new_debate(), PIVOTAL, aggressiveness=5).body is not None


def test_at_aggressiveness_1_only_a_rule_trigger_interrupts_offline(api, db, owner):
    # The local scorer's urgency stops at offline.scorer_max_urgency (0.85), below 1's 0.9.
    debate = new_debate()
    reply = evaluate(api, owner, debate, CALM, aggressiveness=1)
    assert reply.body is None
    output = record_of(db, reply)["output"]
    assert output["outcome"] == "below_threshold"
    assert output["urgency"] <= 0.85
    assert cooldown_rows(db, owner.id, debate) == []


@pytest.mark.parametrize(
    ("config", "outcome"),
    [({"enabled": False}, "disabled"), ({"allow_chair_interruptions": False}, "chair_interruptions_off")],
)
def test_disabled_interruptions_never_interrupt(api, db, owner, config, outcome):
    debate = new_debate()
    reply = evaluate(api, owner, debate, STRAW_MAN, aggressiveness=5, **config)
    assert reply.body is None
    assert record_of(db, reply)["output"]["outcome"] == outcome
    assert interruption_rows(db, owner.id, debate) == []
    assert cooldown_rows(db, owner.id, debate) == []


# -- quick heuristics ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("They just want to ignore consequences!", "straw_man_detected"),
        ("The fundamental issue is whether rights are absolute.", "pivotal_point"),
        ("That's absurd.", "straw_man_detected"),
        ("That\u2019s ridiculous and you know it.", "straw_man_detected"),
        ("Utilitarians don't care about individual rights.", "factual_correction"),
        ("Virtue ethics has no answer to dilemmas.", "factual_correction"),
        ("This is precisely why the argument fails.", "pivotal_point"),
        ("That view is undeniably false.", "direct_challenge"),
        ("THEY SIMPLY WANT POWER", "straw_man_detected"),
    ],
)
def test_the_quick_check_names_the_likely_reason(api, owner, content, reason):
    reply = api.post(path(new_debate(), "quick-check"), owner.token, {"content": content})
    assert reply.status == 200, reply.body
    assert reply.body == {"potential_trigger": True, "likely_reason": reason}


@pytest.mark.parametrize("content", [CALM, "Rights matter, and so do outcomes.", "他们说得有道理。"])
def test_the_quick_check_finds_no_trigger_in_a_calm_chunk(api, owner, content):
    reply = api.post(path(new_debate(), "quick-check"), owner.token, {"content": content})
    assert reply.status == 200, reply.body
    assert reply.body == {"potential_trigger": False, "likely_reason": None}


def test_the_quick_check_writes_nothing(api, db, owner):
    debate = new_debate()
    api.post(path(debate, "quick-check"), owner.token, {"content": STRAW_MAN})
    assert stats(api, owner, debate) == {"total_interrupts": 0, "by_chair": {}, "by_reason": {}}
    assert cooldown_rows(db, owner.id, debate) == []


# -- cooldown management ------------------------------------------------------------------------


def test_cooldowns_are_per_chair(api, db, owner):
    debate = new_debate()
    first = evaluate(api, owner, debate, STRAW_MAN)
    assert first.body["interrupting_chair"]["position"] == "chair_2"
    # chair_2 is on cooldown; a reason any chair may take up goes to chair_3.
    challenge = evaluate(api, owner, debate, CHALLENGE)
    assert challenge.body is not None
    assert challenge.body["trigger_reason"] == "direct_challenge"
    assert challenge.body["interrupting_chair"] == DEONTOLOGIST
    assert record_of(db, challenge)["inputs"]["on_cooldown"] == ["chair_2"]
    # Now both are on cooldown: nobody can interrupt, whatever is said.
    assert evaluate(api, owner, debate, DEONTOLOGY_ERROR).body is None
    assert [row["chair_position"] for row in cooldown_rows(db, owner.id, debate)] == ["chair_2", "chair_3"]
    assert [row["interrupting_chair"] for row in interruption_rows(db, owner.id, debate)] == [
        "chair_2",
        "chair_3",
    ]


def test_a_chair_on_cooldown_does_not_block_another_chairs_defence(api, db, owner):
    debate = new_debate()
    assert evaluate(api, owner, debate, STRAW_MAN).body["interrupting_chair"]["position"] == "chair_2"
    corrected = evaluate(api, owner, debate, DEONTOLOGY_ERROR)
    assert corrected.body is not None
    assert corrected.body["trigger_reason"] == "factual_correction"
    assert corrected.body["interrupting_chair"]["position"] == "chair_3"


def test_resetting_cooldowns_makes_an_interrupt_possible_again(api, db, owner):
    debate = new_debate()
    assert evaluate(api, owner, debate, STRAW_MAN).body is not None
    assert evaluate(api, owner, debate, STRAW_MAN).body is None
    assert reset(api, owner, debate) == {"debate_id": debate, "cleared": ["chair_2"]}
    assert cooldown_rows(db, owner.id, debate) == []
    again = evaluate(api, owner, debate, STRAW_MAN)
    assert again.body is not None
    assert again.body["interrupting_chair"]["position"] == "chair_2"
    # A reset clears cooldowns, not history.
    assert len(interruption_rows(db, owner.id, debate)) == 2
    assert stats(api, owner, debate)["total_interrupts"] == 2


def test_resetting_a_debate_with_no_cooldowns_clears_nothing(api, owner):
    debate = new_debate()
    assert reset(api, owner, debate) == {"debate_id": debate, "cleared": []}


def test_a_reset_clears_only_its_own_debate(api, db, owner):
    one, other = new_debate(), new_debate()
    evaluate(api, owner, one, STRAW_MAN)
    evaluate(api, owner, other, STRAW_MAN)
    assert reset(api, owner, one)["cleared"] == ["chair_2"]
    assert [row["chair_position"] for row in cooldown_rows(db, owner.id, other)] == ["chair_2"]
    assert evaluate(api, owner, other, STRAW_MAN).body is None
    assert evaluate(api, owner, one, STRAW_MAN).body is not None


def test_a_cooldown_of_zero_seconds_never_blocks(api, db, owner):
    debate = new_debate()
    replies = [
        evaluate(api, owner, debate, STRAW_MAN, other_chairs=[VIRTUE], cooldown_seconds=0) for _ in range(3)
    ]
    assert [reply.body["interrupting_chair"]["position"] for reply in replies] == ["chair_2"] * 3
    assert len(interruption_rows(db, owner.id, debate)) == 3
    assert all(record_of(db, reply)["inputs"]["on_cooldown"] == [] for reply in replies)
    # One cooldown row per chair, however often it interrupts.
    assert [row["chair_position"] for row in cooldown_rows(db, owner.id, debate)] == ["chair_2"]


def test_the_cooldown_length_is_the_evaluations_own(api, owner):
    """A chair that interrupted under a 60 s cooldown may interrupt again at once if the next
    evaluation's config says cooldowns last 0 s."""
    debate = new_debate()
    assert evaluate(api, owner, debate, STRAW_MAN, cooldown_seconds=60).body is not None
    assert evaluate(api, owner, debate, STRAW_MAN, cooldown_seconds=60).body is None
    assert evaluate(api, owner, debate, STRAW_MAN, cooldown_seconds=0).body is not None


# -- statistics ---------------------------------------------------------------------------------


def test_stats_count_interrupts_per_chair_and_per_reason(api, db, owner):
    debate = new_debate()
    assert stats(api, owner, debate) == {"total_interrupts": 0, "by_chair": {}, "by_reason": {}}
    candidates = [
        evaluate(api, owner, debate, content, cooldown_seconds=0, **config).body
        for content, config in (
            (STRAW_MAN, {}),
            (STRAW_MAN, {}),
            (DEONTOLOGY_ERROR, {}),
            (PIVOTAL, {}),
            (CALM, {"aggressiveness": 1}),  # no rule trigger at 1: no interrupt
            (PIVOTAL, {"aggressiveness": 1}),  # below the threshold: no interrupt
            (CHALLENGE, {"enabled": False}),  # disabled: no interrupt
        )
    ]
    interrupted = [c for c in candidates if c is not None]
    assert [(c["interrupting_chair"]["position"], c["trigger_reason"]) for c in interrupted] == [
        ("chair_2", "straw_man_detected"),
        ("chair_2", "straw_man_detected"),
        ("chair_3", "factual_correction"),
        ("chair_2", "pivotal_point"),
    ]
    assert stats(api, owner, debate) == {
        "total_interrupts": 4,
        "by_chair": {"chair_2": 3, "chair_3": 1},
        "by_reason": {"straw_man_detected": 2, "factual_correction": 1, "pivotal_point": 1},
    }
    # The same totals as counting the stored log directly.
    rows = interruption_rows(db, owner.id, debate)
    assert len(rows) == 4
    # Another debate of the same owner counts on its own.
    assert stats(api, owner, new_debate())["total_interrupts"] == 0


def test_a_reset_names_only_the_cooldowns_that_were_still_running(api, db, owner):
    """A chair whose cooldown (0 s here) had already run out was not held back: not 'cleared'."""
    debate = new_debate()
    assert evaluate(api, owner, debate, STRAW_MAN, cooldown_seconds=0).body is not None
    assert [row["chair_position"] for row in cooldown_rows(db, owner.id, debate)] == ["chair_2"]
    assert reset(api, owner, debate) == {"debate_id": debate, "cleared": []}
    assert cooldown_rows(db, owner.id, debate) == []


def test_a_chair_cannot_escape_its_cooldown_under_a_new_seat(api, owner):
    debate = new_debate()
    assert evaluate(api, owner, debate, STRAW_MAN).body is not None
    renamed = evaluate_body(STRAW_MAN, other_chairs=[{**VIRTUE, "position": "chair_2b"}, DEONTOLOGIST])
    reply = post_evaluate(api, owner.token, debate, renamed)
    assert reply.status == 422, reply.body
    assert (reply.error["code"], reply.error["field"]) == ("chair_not_in_debate", "other_chairs[0]")
    swapped = evaluate_body(STRAW_MAN, other_chairs=[{**VIRTUE, "framework": "care_ethics"}, DEONTOLOGIST])
    assert post_evaluate(api, owner.token, debate, swapped).error["field"] == "other_chairs[0]"


def test_a_new_chair_may_join_a_debate(api, owner):
    debate = new_debate()
    evaluate(api, owner, debate, CALM)
    joined = evaluate_body(
        CALM, other_chairs=[VIRTUE, DEONTOLOGIST, chair("chair_4", "care_ethics", "Llama")]
    )
    assert post_evaluate(api, owner.token, debate, joined).status == 200
