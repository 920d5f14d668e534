"""The one-off behaviours of spec §7–8, each alone: the hidden agenda (one item per turn unless
the scenario allows stacking, never on a safety refusal, each item once, with the next relevant
answer, the stored variant said), the DOB challenge (at most once, full compliance on the next
identity request, none without a challenge style) and the misunderstanding (at most one per 3
turns, resolved by a reframe on the next turn, dropped otherwise).

The chest-pain case has two agenda items: `stopped_statin` (triggered by medications, tablets,
cholesterol…; relevant to the medications and medical-history answers) and `fear_like_father`
(triggered by worries or the father; relevant to any factual answer).
"""

from __future__ import annotations

import random

import pytest

from sps_encounter.engine.validator import validate_transcript
from tests.unit.sps_encounter.support import (
    RESERVED,
    TALKATIVE,
    catalog_case,
    encounter,
    inline_case,
    says_one_of,
)


def variants(case, item_id):
    return next(item.variants for item in case.scenario.hidden_agenda if item.id == item_id)


def told(response):
    return response.meta["agendaRevealed"]


# §7 hidden agenda


def test_two_items_triggered_together_are_told_one_per_turn():
    played = encounter()
    first = played.say("Are you worried about your medications?")
    assert played.learner.agenda_triggered == ("stopped_statin", "fear_like_father")
    assert told(first) == ["stopped_statin"]
    assert says_one_of(first.text, variants(played.case, "stopped_statin"))
    assert not says_one_of(first.text, variants(played.case, "fear_like_father"))
    assert played.state.tracking.agenda_pending == ["fear_like_father"]
    # fear_like_father is relevant to any factual answer: the next one carries it.
    second = played.say("When did it start?")
    assert told(second) == ["fear_like_father"]
    assert says_one_of(second.text, variants(played.case, "fear_like_father"))
    assert played.state.agenda_revealed == {"stopped_statin", "fear_like_father"}
    assert {"layer": 4, "rule": "hidden_agenda", "ids": ["fear_like_father"]} in second.meta["layers"]


def test_a_scenario_that_allows_stacking_tells_both_in_one_answer():
    case = inline_case({"allow_agenda_stacking": True})
    played = encounter(case)
    response = played.say("Are you worried about your medications?")
    assert told(response) == ["stopped_statin", "fear_like_father"]
    assert says_one_of(response.text, variants(case, "stopped_statin"))
    assert says_one_of(response.text, variants(case, "fear_like_father"))
    assert played.state.tracking.agenda_pending == []


def test_a_trigger_on_a_safety_refusal_turn_reveals_nothing_and_leaves_nothing_pending():
    played = encounter()
    refusal = played.say("Can you take this penicillin with your medications?")
    assert played.learner.guardrails == ("take_penicillin",)
    assert played.learner.agenda_triggered == ()
    assert refusal.meta["kind"] == "refusal"
    assert told(refusal) == []
    assert played.state.tracking.agenda_pending == []
    # The next medications answer is relevant, but its question triggers nothing itself.
    answer = played.say("Are you taking anything?")
    assert answer.meta["answered"] == ["medications"]
    assert told(answer) == []
    assert played.state.agenda_revealed == set()


def test_the_same_trigger_without_the_guardrail_is_told_with_the_next_relevant_answer():
    # The control for the test above: a non-factual turn (the DOB challenge) holds it pending.
    played = encounter()
    challenge = played.say("Cholesterol aside, what's your date of birth?")
    assert challenge.meta["kind"] == "dob_challenge"
    assert told(challenge) == []
    assert played.state.tracking.agenda_pending == ["stopped_statin"]
    answer = played.say("Are you taking anything?")
    assert told(answer) == ["stopped_statin"]
    assert says_one_of(answer.text, variants(played.case, "stopped_statin"))


def test_a_pending_item_is_not_told_on_a_refusal_but_on_the_next_relevant_answer():
    played = encounter()
    played.say("Cholesterol aside, what's your date of birth?")
    refusal = played.say("Can you do some push-ups for me?")
    assert refusal.meta["kind"] == "refusal"
    assert told(refusal) == []
    assert not says_one_of(refusal.text, variants(played.case, "stopped_statin"))
    assert told(played.say("Are you taking anything?")) == ["stopped_statin"]


def test_an_item_waits_for_an_answer_it_is_relevant_to():
    played = encounter()
    first = played.say("When did it start? Did you stop taking a statin?")
    assert played.learner.agenda_triggered == ("stopped_statin",)
    assert first.meta["answered"] == ["onset"]
    assert told(first) == []
    onset_again = played.say("How long has it been going on?")
    assert told(onset_again) == []
    history = played.say("Any medical problems?")
    assert history.meta["answered"] == ["medical_history"]
    assert told(history) == ["stopped_statin"]


def test_an_item_relevant_to_any_answer_rides_on_the_presenting_problem():
    played = encounter()
    uncertain = played.say("Are you scared?")
    assert uncertain.meta["kind"] == "uncertain"
    assert told(uncertain) == []
    opening = played.say("What brings you in today?")
    assert opening.meta["kind"] == "opening"
    assert told(opening) == ["fear_like_father"]


def test_each_item_is_revealed_at_most_once():
    played = encounter()
    assert told(played.say("Do you take any medications?")) == ["stopped_statin"]
    for _ in range(5):
        response = played.say("What medications do you take? Any cholesterol tablets?")
        assert played.learner.agenda_triggered == ()
        assert told(response) == []
        assert not says_one_of(response.text, variants(played.case, "stopped_statin"))
    assert played.state.tracking.agenda_pending == []


@pytest.mark.parametrize("persona", [RESERVED, TALKATIVE])
def test_agenda_rules_hold_over_long_random_encounters(persona):
    prompts = [
        "Are you worried about your medications?",
        "Tell me about your father.",
        "Any medical problems?",
        "What are you worried about?",
        "Can you take this penicillin with your tablets?",
        "When did it start?",
        "What's your date of birth?",
        "Anything else?",
        "Do you take any medications?",
    ]
    for seed in range(1, 25):
        played = encounter(catalog_case(persona=persona), seed)
        pick = random.Random(seed)
        played.play(pick.choice(prompts) for _ in range(40))
        revealed = [item for response in played.responses for item in told(response)]
        assert len(revealed) == len(set(revealed))
        for response in played.responses:
            assert len(told(response)) <= 1
            if response.meta["guardrails"]:
                assert told(response) == []
            for item in told(response):
                assert says_one_of(response.text, variants(played.case, item))
        result = validate_transcript(played.transcript, played.case)
        assert result["summaryMetrics"]["agendaRevealCount"] == len(revealed)
        assert "AGENDA_REVEALED_TWICE" not in {issue["code"] for issue in result["errors"]}


# §8 DOB challenge


def test_the_first_identity_request_meets_the_challenge_and_the_next_gets_full_compliance():
    played = encounter()
    demographics = played.case.scenario.demographics
    challenge = played.say("Can you tell me your date of birth?")
    assert challenge.meta["kind"] == "dob_challenge"
    assert challenge.meta["dobChallenge"] is True
    assert says_one_of(challenge.text, played.case.scenario.dob_challenge.lines)
    assert demographics.dob_spoken not in challenge.text
    assert "hughes" not in challenge.text.casefold()
    assert played.state.dob_challenge_used
    assert not played.state.identity_verified

    compliance = played.say("What is your date of birth, please?")
    assert compliance.meta["kind"] == "identity"
    assert compliance.meta["dobChallenge"] is False
    assert demographics.name.casefold() in compliance.text.casefold()
    assert demographics.dob_spoken in compliance.text
    assert compliance.meta["identityVerified"] is True
    assert compliance.meta["slots"] == {"name": "Daniel Hughes", "date_of_birth": "1968-03-14"}
    assert {"layer": 2, "rule": "identity", "after_challenge": True} in compliance.meta["layers"]
    assert played.state.identity_verified


def test_a_third_identity_request_never_challenges_again():
    played = encounter()
    played.play(["What's your date of birth?", "What's your date of birth?"])
    for text in ["Can you confirm your full name?", "When were you born?", "What's your date of birth?"]:
        response = played.say(text)
        assert response.meta["kind"] == "identity"
        assert not response.meta["dobChallenge"]
        assert not says_one_of(response.text, played.case.scenario.dob_challenge.lines)
    result = validate_transcript(played.transcript, played.case)
    assert "DOB_CHALLENGE_REPEATED" not in {issue["code"] for issue in result["errors"]}
    assert sum(r.meta["dobChallenge"] for r in played.responses) == 1


def test_a_scenario_without_a_challenge_style_complies_at_once():
    case = inline_case({"dob_challenge": None})
    played = encounter(case)
    response = played.say("What's your date of birth?")
    assert response.meta["kind"] == "identity"
    assert case.scenario.demographics.dob_spoken in response.text
    assert played.state.identity_verified
    assert not played.state.dob_challenge_used
    assert {"layer": 2, "rule": "identity", "after_challenge": False} in response.meta["layers"]


def test_an_identity_request_refused_by_a_guardrail_leaves_the_challenge_unused():
    played = encounter()
    refusal = played.say("What's your date of birth? Also, tell me your diagnosis.")
    assert refusal.meta["kind"] == "refusal"
    assert not played.state.dob_challenge_used
    assert played.say("What's your date of birth?").meta["kind"] == "dob_challenge"


def test_the_patient_name_keeps_its_capital_after_an_opener():
    case = inline_case({"dob_challenge": None}, {"rates": {"opener": 1.0}})
    played = encounter(case, seed=1)
    response = played.say("What's your date of birth?")
    assert response.meta["opening"]["opener"] is not None
    assert "Daniel Hughes" in response.text


def test_a_sentence_after_a_full_stop_opener_starts_with_a_capital():
    openers = [{"text": text} for text in ("Let me think.", "Right.", "Okay then.", "Good.")]
    case = inline_case(persona={"rates": {"opener": 1.0}, "pools": {"openers": openers}})
    played = encounter(case)
    # Every onset answer starts with a word the opener lowercases ("About", "It", "Three").
    response = played.say("When did it start?")
    opener = response.meta["opening"]["opener"]
    assert opener is not None
    assert opener.endswith(".")
    rest = response.text[len(opener) :].lstrip()
    assert rest[:1].isupper(), response.text


# §8 misunderstanding


def test_a_trigger_gets_a_misreading_and_a_reframe_resolves_it():
    played = encounter()
    item = played.case.scenario.misunderstandings[0]
    misread = played.say("Are you under a lot of pressure?")
    assert misread.meta["kind"] == "misreading"
    assert misread.meta["misunderstanding"] == {"id": "pressure_as_stress", "phase": "misread"}
    assert says_one_of(misread.text, item.misreadings)
    assert misread.meta["slots"] == {}

    resolved = played.say("I mean, how does the pain in your chest feel?")
    assert resolved.meta["kind"] == "resolved"
    assert resolved.meta["misunderstanding"] == {"id": "pressure_as_stress", "phase": "resolved"}
    assert says_one_of(resolved.text, played.case.persona.pools.realizations)
    intended = played.case.slot(item.intended_slot)
    assert says_one_of(resolved.text, intended.answers)
    assert resolved.meta["slots"][intended.id] == intended.value
    assert played.state.tracking.misunderstanding_pending is None


def test_a_scenario_reframe_resolves_without_the_lexicon_reframe_words():
    played = encounter()
    played.say("Any pressure at the moment?")
    resolved = played.say("How does it feel in your chest?")
    assert not played.case.lexicon.reframe.search(played.case.lexicon.fold("How does it feel in your chest?"))
    assert resolved.meta["kind"] == "resolved"
    assert resolved.meta["answered"][0] == "character"


def test_without_a_reframe_on_the_next_turn_the_misunderstanding_is_dropped():
    played = encounter()
    played.say("Are you under a lot of pressure?")
    other = played.say("When did it start?")
    assert other.meta["kind"] == "answer"
    assert played.state.tracking.misunderstanding_pending is None
    late = played.say("I mean, how does the pain feel?")
    assert late.meta["kind"] != "resolved"
    assert not says_one_of(late.text, played.case.persona.pools.realizations)


def _with_misunderstandings(count: int):
    """chest-pain with `count` misunderstandings, each triggered by its own word `wordN`."""

    def edit(document):
        first = document["misunderstandings"][0]
        document["misunderstandings"] = [
            {**first, "id": f"misread_{n}", "triggers": [rf"\bword{n}\b"]} for n in range(count)
        ]

    return inline_case(edit)


def test_at_most_one_misunderstanding_every_three_turns():
    played = encounter(_with_misunderstandings(12))
    responses = played.play([f"Is there any word{n} to mention?" for n in range(12)])
    misread = [position for position, r in enumerate(responses) if r.meta["kind"] == "misreading"]
    assert misread == [0, 3, 6, 9]  # a misreading triggered on each of the 12 turns
    assert [responses[p].meta["misunderstanding"]["id"] for p in misread] == [
        "misread_0",
        "misread_3",
        "misread_6",
        "misread_9",
    ]
    for position, response in enumerate(responses):
        if position not in misread:
            assert response.meta["misunderstanding"] is None


def test_a_question_misread_once_is_never_misread_again():
    played = encounter()
    responses = played.play(["Are you under a lot of pressure?"] * 12)
    misread = [position for position, r in enumerate(responses) if r.meta["kind"] == "misreading"]
    assert misread == [0]
    assert played.state.tracking.misread == ["pressure_as_stress"]
    for response in responses[1:]:
        assert response.meta["misunderstanding"] is None
        assert not says_one_of(response.text, played.case.scenario.misunderstandings[0].misreadings)


def test_a_guardrail_on_the_reframe_turn_refuses_and_drops_the_misunderstanding():
    played = encounter()
    played.say("Are you under a lot of pressure?")
    refusal = played.say("I mean, can you run on the spot for me?")
    assert refusal.meta["kind"] == "refusal"
    assert played.state.tracking.misunderstanding_pending is None
