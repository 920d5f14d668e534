"""Each variation rule in isolation, seeded (continued from test_variation.py): anti-echo (§9:
synonym, another opener, left-trimmed filler, the `lastOpeners` window) and disfluency (one token
per turn, the hesitation gap)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from sps_encounter.engine.variation import open_utterance
from tests.unit.sps_encounter.chest_pain_turns import OPEN_FACTS, long_run
from tests.unit.sps_encounter.support import (
    RESERVED,
    SEED,
    TALKATIVE,
    bare_case,
    catalog_case,
    clone,
    encounter,
    first_two_words,
    fresh_state,
    inline_case,
)

# §9 anti-echo


def _probe(case, state, body, hedges=()):
    """What `open_utterance` would do from this state, on a copy."""
    copy = clone(state)
    return open_utterance(case, copy, list(hedges), body)


BODY = "It started about three weeks ago."


def test_no_echo_leaves_the_utterance_alone_and_records_its_bigram():
    case = inline_case(persona={"rates": {"opener": 0.0}})
    state = fresh_state(case)
    opening = open_utterance(case, state, [], BODY)
    assert opening.text == BODY
    assert opening.opener is None
    assert opening.anti_echo == "none"
    assert state.last_openers == ["it started"]


def test_a_repeated_opener_is_replaced_by_one_of_its_synonyms():
    case = inline_case(persona={"rates": {"opener": 1.0}})
    state = fresh_state(case)
    candidate = _probe(case, state, BODY)
    assert candidate.opener is not None
    assert candidate.anti_echo == "none"
    opener = next(o for o in case.persona.pools.openers if o.text == candidate.opener)
    state.last_openers[:] = [candidate.bigram]
    opening = open_utterance(case, state, [], BODY)
    assert opening.anti_echo == "synonym"
    assert opening.opener in opener.synonyms
    assert opening.text.startswith(opening.opener)
    assert opening.bigram != candidate.bigram
    assert first_two_words(opening.text) == opening.bigram
    assert state.last_openers == [candidate.bigram, opening.bigram]


def test_without_a_fresh_synonym_another_opener_is_used():
    # Openers without synonyms: the repeated opener can only be swapped for another.
    openers = [{"text": text} for text in ("Well,", "Honestly,", "Okay,", "Yeah,", "Look,")]
    case = inline_case(persona={"rates": {"opener": 1.0}, "pools": {"openers": openers}})
    state = fresh_state(case)
    candidate = _probe(case, state, BODY)
    state.last_openers[:] = [candidate.bigram]
    opening = open_utterance(case, state, [], BODY)
    assert opening.anti_echo == "opener"
    assert opening.opener in {o["text"] for o in openers} - {candidate.opener}
    assert opening.bigram not in [candidate.bigram]


def test_a_repeated_plain_answer_gets_an_opener_put_before_it():
    case = inline_case(persona={"rates": {"opener": 0.0}})
    state = fresh_state(case)
    state.last_openers[:] = ["it started"]
    opening = open_utterance(case, state, [], BODY)
    assert opening.anti_echo == "opener"
    variants = {t for o in case.persona.pools.openers for t in (o.text, *o.synonyms)}
    assert opening.opener in variants
    assert opening.text.startswith(opening.opener)
    assert opening.bigram != "it started"


def test_when_repetition_persists_a_leading_filler_is_left_trimmed():
    # Every opener starts "Well,": once "well so" is in the window no opener helps, and
    # compile_case would refuse such a persona (fewer than 4 first words), so the Case is built
    # directly to reach the fallback.
    case = bare_case(persona={"rates": {"opener": 0.0}, "pools": {"openers": [{"text": "Well,"}] * 4}})
    state = fresh_state(case)
    state.last_openers[:] = ["so it", "well so"]
    opening = open_utterance(case, state, [], "So, it started three weeks ago.")
    assert opening.anti_echo == "trimmed"
    assert opening.text == "It started three weeks ago."
    assert opening.opener is None
    assert state.last_openers == ["so it", "well so", "it started"]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("Sometimes it hurts.", "Sometimes it hurts."),
        ("Sorry, no idea.", "Sorry, no idea."),
        ("Soon after lunch.", "Soon after lunch."),
        ("Well it started three weeks ago.", "It started three weeks ago."),
    ],
)
def test_a_filler_is_trimmed_only_as_a_whole_word(body, expected):
    # The reviewer's case: every fresh opener is spent and the body starts with "So…" inside a
    # word; the trim must not cut "Sometimes" to "Metimes".
    case = bare_case(persona={"rates": {"opener": 0.0}, "pools": {"openers": [{"text": "Well,"}] * 4}})
    state = fresh_state(case)
    bigram = " ".join(body.casefold().replace(",", "").split()[:2])
    state.last_openers[:] = [bigram, "well " + bigram.split()[0]]
    opening = open_utterance(case, state, [], body)
    assert opening.text == expected
    assert opening.anti_echo == ("trimmed" if expected != body else "unresolved")


@pytest.mark.parametrize(
    "body",
    ["I don't feel feverish.", "I'd rather not do that, sorry.", "No, never.", "I couldn't say."],
)
def test_an_opener_that_says_yes_never_goes_before_a_negative_answer(body):
    openers = [
        {"text": text, "synonyms": syn}
        for text, syn in (("Yes,", ["Yeah,"]), ("Okay,", ["Alright,"]), ("Sure,", []), ("Yep,", []))
    ]
    case = inline_case(persona={"rates": {"opener": 1.0}, "pools": {"openers": openers}})
    for seed in range(1, 40):
        state = fresh_state(case, seed)
        assert open_utterance(case, state, [], body).opener is None
        # Nor as anti-echo's substitute when the plain answer repeats.
        state.last_openers[:] = [" ".join(body.casefold().split()[:2]).rstrip(",.")]
        assert open_utterance(case, state, [], body).opener is None


def test_an_opener_that_says_yes_still_goes_before_an_affirmative_answer():
    openers = [{"text": text} for text in ("Yes,", "Okay,", "Sure,", "Yep,")]
    case = inline_case(persona={"rates": {"opener": 1.0}, "pools": {"openers": openers}})
    used = {open_utterance(case, fresh_state(case, seed), [], BODY).opener for seed in range(1, 20)}
    assert used - {None}


def test_over_many_encounters_no_answer_says_yes_and_then_no():
    pattern = re.compile(
        r"^(yes|yeah|yep|okay|ok|alright|sure)\b[^.?!]*?\b(not|no|never|n't|nothing)\b", re.I
    )
    for persona in ("en-anxious-talkative", "en-reserved-brief", "en-friendly-balanced"):
        for seed in range(1, 8):
            played = encounter(catalog_case(persona=persona), seed)
            for text in [
                "Any fever?",
                "Take this penicillin tablet.",
                "Do you get short of breath?",
                "Any nausea?",
                "Can I examine your breasts?",
                "Have you lost weight?",
            ] * 3:
                answer = played.say(text).text
                assert not pattern.search(answer), (persona, seed, text, answer)


def test_an_echo_nothing_can_fix_is_marked_unresolved():
    case = bare_case(persona={"rates": {"opener": 0.0}, "pools": {"openers": [{"text": "Well,"}] * 4}})
    state = fresh_state(case)
    state.last_openers[:] = ["it started", "well it"]
    opening = open_utterance(case, state, [], BODY)
    assert opening.anti_echo == "unresolved"
    assert opening.text == BODY


def test_the_openers_window_holds_the_last_three_bigrams():
    played = encounter(catalog_case(), seed=8)
    bigrams = []
    for text in OPEN_FACTS * 3:
        meta = played.say(text).meta
        bigrams.append(meta["opening"]["bigram"])
        assert played.state.last_openers == bigrams[-3:]


@pytest.mark.parametrize("persona", [RESERVED, TALKATIVE])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_patient_turns_never_reuse_an_opening_bigram_within_the_window(persona, seed):
    played = long_run(persona, seed)
    recent: list[str] = []
    for response in played.responses:
        bigram = first_two_words(response.text)
        assert bigram == response.meta["opening"]["bigram"]
        assert bigram not in recent, (response.text, recent)
        assert response.meta["opening"]["antiEcho"] != "unresolved"
        recent = [*recent, bigram][-3:]
    assert Counter(r.meta["opening"]["antiEcho"] for r in played.responses)["none"] < len(played.responses)


# Disfluency


def disfluency_tokens(case, text):
    tokens = {token.casefold() for token in case.persona.pools.disfluencies}
    return [word for word in first_words(text) if word in tokens]


def first_words(text):
    return [word.strip(",.?!") for word in text.casefold().split()]


@pytest.mark.parametrize("persona", [RESERVED, TALKATIVE])
def test_at_most_one_disfluency_token_per_turn_and_two_fluent_turns_between(persona):
    played = long_run(persona, seed=4, turns=400)
    last_hesitant = None
    hesitant = 0
    for position, response in enumerate(played.responses):
        found = disfluency_tokens(played.case, response.text)
        assert len(found) <= 1, response.text
        assert [token.casefold() for token in response.meta["disfluencies"]] == found
        if found:
            hesitant += 1
            if last_hesitant is not None:
                assert position - last_hesitant > played.case.policy.hesitation_gap_turns
            last_hesitant = position
    assert hesitant > 0


def test_a_persona_that_always_hesitates_does_so_every_third_turn():
    # Rate 1.0: the hesitation gap (2 patient turns) alone decides; turnsSinceHesitation starts
    # at 0, so the first hesitation is on the third patient turn.
    case = inline_case(persona={"rates": {"disfluency": 1.0}})
    played = encounter(case)
    played.play(OPEN_FACTS * 4)
    hesitant = [position for position, r in enumerate(played.responses) if r.meta["disfluencies"]]
    assert hesitant == list(range(2, len(played.responses), 3))
    for position in hesitant:
        (token,) = played.responses[position].meta["disfluencies"]
        assert token.casefold() in case.persona.pools.disfluencies
        assert disfluency_tokens(case, played.responses[position].text) == [token.casefold()]


def test_a_persona_without_disfluencies_never_hesitates():
    case = inline_case(persona={"pools": {"disfluencies": []}, "rates": {"disfluency": 1.0}})
    played = encounter(case)
    played.play(OPEN_FACTS * 3)
    assert all(r.meta["disfluencies"] == [] for r in played.responses)
    assert not any(draw["purpose"] == "disfluency" for r in played.responses for draw in r.meta["rng"])


def test_seeds_are_what_makes_runs_differ():
    texts = {tuple(r.text for r in long_run(RESERVED, seed, turns=30).responses) for seed in (SEED, 1, 2)}
    assert len(texts) == 3
