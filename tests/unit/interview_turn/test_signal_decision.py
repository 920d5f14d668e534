"""How the signal model's probabilities become a decision (engine/scorer.py `allowed`, `decided`),
on probabilities written out, so each rule is seen alone."""

from __future__ import annotations

from interview_turn.engine.scorer import ANY_SIGNAL, DECLINED, HARD_STOP_MASS, allowed, decided

BOUNDS = {
    "pause": 0.2,
    "stop_request": 0.25,
    "acute_distress": 0.15,
    "self_harm": 0.15,
    HARD_STOP_MASS: 0.35,
    ANY_SIGNAL: 0.45,
}


def reading(none: float, pause: float, stop: float, distress: float, harm: float) -> dict[str, float]:
    assert abs(none + pause + stop + distress + harm - 1) < 1e-9
    return {"none": none, "pause": pause, "stop_request": stop, "acute_distress": distress, "self_harm": harm}


def test_the_most_probable_signal_decides_when_it_reaches_its_bound():
    assert decided(reading(0.3, 0.1, 0.1, 0.1, 0.4), BOUNDS) == "self_harm"
    assert decided(reading(0.3, 0.5, 0.1, 0.05, 0.05), BOUNDS) == "pause"


def test_hard_stops_that_together_outweigh_a_pause_make_the_likeliest_of_them_a_stop():
    # None is the likeliest single class (40 %), but the hard stops hold 45 % between them.
    assert decided(reading(0.4, 0.15, 0.1, 0.15, 0.2), BOUNDS) == "self_harm"
    assert decided(reading(0.4, 0.15, 0.2, 0.15, 0.1), BOUNDS) == "stop_request"


def test_hard_stops_together_below_their_bound_or_a_pause_decide_nothing_graver():
    # 31 % of hard stops is under the 35 % bound; the rest reaches the any-signal bound: a pause.
    assert decided(reading(0.5, 0.1875, 0.125, 0.0625, 0.125), BOUNDS) == "pause"
    # A pause the model reads first stays a pause, though the hard stops together hold more.
    assert decided(reading(0.1, 0.4, 0.15, 0.15, 0.2), BOUNDS) == "pause"


def test_every_signal_together_below_its_bound_decides_nothing():
    assert decided(reading(0.6, 0.15, 0.1, 0.1, 0.05), BOUNDS) == "none"


def test_a_model_file_without_the_summed_bounds_decides_by_its_top_class_alone():
    own_bounds_only = {
        name: bound for name, bound in BOUNDS.items() if name not in (HARD_STOP_MASS, ANY_SIGNAL)
    }
    probabilities = reading(0.4, 0.15, 0.1, 0.15, 0.2)
    assert decided(probabilities, BOUNDS) == "self_harm"
    assert decided(probabilities, own_bounds_only) == "none"


def test_a_read_refusal_is_never_made_a_stop_request_and_a_read_topic_change_never_a_pause():
    probabilities = reading(0.3, 0.1, 0.4, 0.1, 0.1)
    assert decided(allowed(probabilities, {}), BOUNDS) == "stop_request"
    assert decided(allowed(probabilities, {"refusal": 1.0}), BOUNDS) == "none"
    pausing = reading(0.5, 0.3, 0.1, 0.05, 0.05)
    assert decided(allowed(pausing, {}), BOUNDS) == "pause"
    assert decided(allowed(pausing, {"topic_change": 1.0}), BOUNDS) == "none"


def test_a_declined_offer_is_neither_a_pause_nor_a_stop_request_but_a_crisis_stands():
    assert decided(allowed(reading(0.3, 0.5, 0.1, 0.05, 0.05), {DECLINED: 1.0}), BOUNDS) == "none"
    assert decided(allowed(reading(0.3, 0.1, 0.5, 0.05, 0.05), {DECLINED: 1.0}), BOUNDS) == "none"
    assert decided(allowed(reading(0.3, 0.1, 0.05, 0.5, 0.05), {DECLINED: 1.0}), BOUNDS) == "acute_distress"


def test_a_bound_is_reached_at_equality():
    # Binary fractions, so the sums are exact: 1/8 + 1/8 + 1/4 of hard stops is 1/2.
    probabilities = reading(0.375, 0.125, 0.125, 0.125, 0.25)
    assert decided(probabilities, {**BOUNDS, HARD_STOP_MASS: 0.5}) == "self_harm"
    assert decided(probabilities, {**BOUNDS, HARD_STOP_MASS: 0.5 + 1e-9, ANY_SIGNAL: 1.0}) == "none"


def test_a_pause_from_every_signal_needs_the_pause_to_lead_the_signals():
    # Every signal together is 50 %, past the any-signal bound, but self-harm leads the pause.
    assert decided(reading(0.5, 0.125, 0.0625, 0.0625, 0.25), {**BOUNDS, HARD_STOP_MASS: 1.0}) == "none"
    # A tie with the likeliest hard stop is enough, when the hard stops together are at most twice it.
    assert decided(reading(0.5, 0.25, 0.25, 0.0, 0.0), {**BOUNDS, HARD_STOP_MASS: 1.0}) == "pause"
    assert decided(reading(0.25, 0.2, 0.2, 0.2, 0.15), {**BOUNDS, HARD_STOP_MASS: 1.0}) == "none"


def test_a_read_discomfort_is_never_made_a_stop_request_either():
    probabilities = reading(0.3, 0.1, 0.4, 0.1, 0.1)
    assert decided(allowed(probabilities, {"discomfort": 1.0}), BOUNDS) == "none"


def test_a_read_discomforts_stop_request_share_counts_for_none_not_for_what_is_left():
    # "This is too painful.": with the stop request's 60 % simply removed, acute distress (18 %,
    # past its bound) would be the likeliest class left.
    probabilities = reading(0.05, 0.15, 0.6, 0.18, 0.02)
    kept = allowed(probabilities, {"discomfort": 1.0})
    assert kept["none"] == 0.65
    assert kept["stop_request"] == 0.0
    assert decided(kept, BOUNDS) == "none"
