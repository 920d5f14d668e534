"""The offline evaluator's detectors (engine/detectors.py, config/detectors.json) on the issue's
phrasings and their near misses. How well they serve the judgment is measured on labelled sets
(`rails eval chair`, docs/judges.md), not here."""

from __future__ import annotations

import pytest

from chair_interrupt.engine.detectors import Reading, read, rule_features
from chair_interrupt.engine.model import QuickCheck, Reason
from tests.unit.chair_interrupt.support import config


def reading(text: str) -> Reading:
    cfg = config()
    return read(cfg.detectors, cfg.hedges, cfg.aliases, text)


@pytest.mark.parametrize(
    "text",
    [
        "Critics sometimes say utilitarians only count bodies, but that's a caricature.",
        "Someone once called deontology 'rule worship', which misses the point entirely.",
        "It is false that Kant ignored consequences altogether.",
        "Nobody here thinks virtue is just feeling good about yourself.",
        "As the slogan goes, \u201cthe ends justify the means\u201d, and I reject it.",
        "I'm not saying care ethics is mere favouritism.",
        "有人说功利主义者只会算账，这是误解。",
        "并不是说义务论者不关心后果。",
        "批评者常把美德伦理说成自我感觉良好。",
    ],
)
def test_reported_quoted_and_denied_claims_are_hedged(text):
    assert reading(text).hedged


@pytest.mark.parametrize(
    "text",
    [
        "Utilitarianism is a spreadsheet with a body count.",
        "Mill was the one who argued lying is always wrong.",
        "Don't you see that the duty holds whatever happens?",
        "Kant's universal law cannot tell us what to do here.",
        "功利主义就是一张带着死亡人数的表格。",
    ],
)
def test_assertions_are_not_hedged(text):
    # An apostrophe is no quote ("Don't", "Kant's"), and a plain claim reports no one.
    assert not reading(text).hedged


@pytest.mark.parametrize(
    ("text", "misattributed"),
    [
        ("Mill was the one who argued lying is always wrong.", ("utilitarianism", "deontology")),
        ("Kant said we should maximize happiness for the greatest number.", ("deontology", "utilitarianism")),
        ("Aristotle thought virtue is just following the rules.", ("virtue_ethics", "deontology")),
        ("罗尔斯认为最大多数人的幸福才是一切。", ("contractualism", "utilitarianism")),
        # A book credited to the wrong thinker (set r, said afresh).
        ("讲原初状态的那本书是诺齐克写的，对吧？", ("libertarianism", "contractualism")),
        # A book credited to a thinker of another school (set s, said afresh).
        ("康德那本《存在与虚无》我大学就读过。", ("deontology", "existentialism")),
        ("Kant's book Being and Nothingness changed my life.", ("deontology", "existentialism")),
        (
            "As Rawls argued in his book Anarchy, State, and Utopia, the state should be minimal.",
            ("contractualism", "libertarianism"),
        ),
    ],
)
def test_a_thinker_credited_with_another_schools_claim_is_a_misattribution(text, misattributed):
    assert reading(text).misattributed == misattributed


@pytest.mark.parametrize(
    "text",
    [
        "Mill argued for the greatest happiness of the greatest number.",
        "Kant held that lying is always wrong, even to a murderer.",
        "Lying is always wrong, and Bentham would have hated this debate.",  # no attribution of the claim
        "Sartre was a novelist as well as a philosopher.",
        "Nozick wrote Anarchy, State, and Utopia in 1974, partly as a reply to Rawls.",
        "萨特那本《存在与虚无》很难读。",
    ],
)
def test_a_thinker_with_his_own_view_or_no_claim_is_no_misattribution(text):
    assert reading(text).misattributed is None


def test_concessions_loaded_terms_and_definitions_are_read():
    conceding = reading("Fine, I'll grant that in this case the consequences override the promise.")
    assert conceding.concession
    assert conceding.span is not None
    loaded = reading("The policy is unnatural and violates dignity.")
    assert (loaded.loaded_terms, loaded.defined) == (2, False)
    defined = reading("By harm I mean a setback to someone's interests, and this policy causes harm.")
    assert defined.loaded_terms >= 1
    assert defined.defined


@pytest.mark.parametrize(
    ("text", "conceding"),
    [
        # A fourth blind set's concessions (h, read on 4227c41), said afresh.
        ("OK, I'll give you that point: no pilot has run long enough to show it.", True),
        ("That's a big concession, and I make it knowingly.", True),
        ("Autonomy is no longer my argument; fairness is.", True),
        ("如果你能证明这一点，我就站到你那边。", True),
        # The same words that give nothing.
        ("I'll give you the figures after the break.", False),
        ("My argument is the same as it was an hour ago.", False),
        ("他一直站在穷人那边。", False),
        # The fourteenth set's (r), said afresh.
        ("要是病人自己不想知道，那我的立场得改。", True),
        ("If the trial data hold up, I'll need to revise my position on the rollout.", True),
        ("他的立场一直没变。", False),
        ("I need to change my password before the next session.", False),
    ],
)
def test_a_concession_in_other_words_is_read(text, conceding):
    assert reading(text).concession is conceding


def test_rule_features_name_what_was_read():
    text = "Mill was the one who argued lying is always wrong!"
    features = rule_features(
        reading(text),
        QuickCheck(True, Reason.STRAW_MAN_DETECTED, (0, 4)),
        "virtue_ethics",
        frozenset({"utilitarianism"}),
    )
    assert features == {
        "misattribution": 1.0,
        "misattribution_heard": 1.0,
        "thinker": 1.0,
        "claim": 1.0,
        "exclamation": 1.0,
        "quick_straw_man_detected": 1.0,
    }
