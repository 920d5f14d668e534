"""Quick heuristics (spec: quickInterruptCheck): every pattern of config/quick-check.json fires its
reason, the first pattern in file order wins, neutral text fires nothing, and typographic
apostrophes read as the ASCII apostrophe the patterns spell."""

from __future__ import annotations

import json
import re

import pytest

from chair_interrupt.artifacts import CONFIG_DIR
from chair_interrupt.engine.model import Reason
from chair_interrupt.engine.policy import SPEC_PATTERNS
from chair_interrupt.engine.quick import NO_TRIGGER, quick_check
from tests.unit.chair_interrupt.support import config

PATTERNS = json.loads((CONFIG_DIR / "quick-check.json").read_text(encoding="utf-8"))["patterns"]
COMPILED = [re.compile(p["pattern"], re.IGNORECASE) for p in PATTERNS]

# One sample per pattern, in the file's order; each is caught by that pattern and no earlier one.
SAMPLES = [
    # The spec's seven.
    ("They just want to maximise pleasure.", Reason.STRAW_MAN_DETECTED),
    ("That's absurd, nobody argues that.", Reason.STRAW_MAN_DETECTED),
    ("Utilitarians don't care about individuals.", Reason.FACTUAL_CORRECTION),
    ("Virtue ethics ignores outcomes entirely.", Reason.FACTUAL_CORRECTION),
    ("The real question is who decides.", Reason.PIVOTAL_POINT),
    ("This is precisely why we disagree.", Reason.PIVOTAL_POINT),
    ("Your premise is clearly false.", Reason.DIRECT_CHALLENGE),
    # English and Chinese extensions.
    ("Kantians only want rules for their own sake.", Reason.STRAW_MAN_DETECTED),
    ("What a silly argument about machines.", Reason.STRAW_MAN_DETECTED),
    ("All pragmatists really think truth is whatever works.", Reason.STRAW_MAN_DETECTED),
    ("他们只是想逃避责任。", Reason.STRAW_MAN_DETECTED),
    ("这太荒谬了。", Reason.STRAW_MAN_DETECTED),
    ("Existentialism is nothing but vibes and black turtlenecks.", Reason.STRAW_MAN_DETECTED),
    ("契约主义说白了不过是大家互相讨价还价。", Reason.STRAW_MAN_DETECTED),
    ("Deontology never considers the outcome.", Reason.FACTUAL_CORRECTION),
    ("功利主义者根本不在乎个人权利。", Reason.FACTUAL_CORRECTION),
    ("Our central disagreement is here, about autonomy.", Reason.PIVOTAL_POINT),
    ("This is exactly the crux of our debate.", Reason.PIVOTAL_POINT),
    ("真正的分歧在于自由的定义。", Reason.PIVOTAL_POINT),
    ("Here's where we really part ways, then: rights or results.", Reason.PIVOTAL_POINT),
    ("It all turns on whether the patient asked for it.", Reason.PIVOTAL_POINT),
    ("That claim is simply untrue.", Reason.DIRECT_CHALLENGE),
    ("Everyone knows that rights are useful fictions.", Reason.DIRECT_CHALLENGE),
    ("这种说法显然是错的。", Reason.DIRECT_CHALLENGE),
    ("What exactly do you mean by flourishing?", Reason.CLARIFICATION_NEEDED),
    ("你说的正义是什么意思？", Reason.CLARIFICATION_NEEDED),
    ("I couldn't agree more with that.", Reason.STRONG_AGREEMENT),
    ("我完全同意你的看法。", Reason.STRONG_AGREEMENT),
]

NEUTRAL = [
    "Let us consider the welfare of future generations.",
    "I think the evidence on this point is mixed, and we should look at it carefully.",
    "Utilitarianism weighs the consequences for everyone affected.",
    "Rights matter, but so do outcomes; the question deserves care.",
    "我们今天讨论人工智能的伦理问题。",
    "我认为这个观点值得进一步思考。",
    "",
]


def test_samples_cover_every_shipped_pattern_in_order():
    assert len(SAMPLES) == len(PATTERNS) == len(config().ordered)
    assert [Reason(p["reason"]) for p in PATTERNS] == [reason for _, reason in SAMPLES]
    assert [p["source"] for p in PATTERNS[: len(SPEC_PATTERNS)]] == ["spec"] * len(SPEC_PATTERNS)
    assert {p["source"] for p in PATTERNS[len(SPEC_PATTERNS) :]} == {"extension"}


@pytest.mark.parametrize(("index", "sample", "reason"), [(i, s, r) for i, (s, r) in enumerate(SAMPLES)])
def test_each_pattern_triggers_its_reason(index, sample, reason):
    matching = [i for i, pattern in enumerate(COMPILED) if pattern.search(sample)]
    assert matching, f"no pattern matches {sample!r}"
    assert matching[0] == index, f"{sample!r} is caught first by pattern {matching[0]}, not {index}"

    result = quick_check(config(), sample)

    assert result.potential_trigger is True
    assert result.likely_reason is reason
    match = COMPILED[index].search(sample)
    assert match is not None
    assert result.span == match.span()


def test_loaded_patterns_begin_with_the_spec_seven_unchanged():
    loaded = [(p.pattern, p.reason) for p in config().quick_check.patterns]
    assert loaded[: len(SPEC_PATTERNS)] == list(SPEC_PATTERNS)
    assert [p["pattern"] for p in PATTERNS] == [p.pattern for p in config().quick_check.patterns]


def test_spec_patterns_are_case_insensitive():
    assert quick_check(config(), "THEY SIMPLY WANT POWER").likely_reason is Reason.STRAW_MAN_DETECTED
    assert quick_check(config(), "the CORE problem is trust").likely_reason is Reason.PIVOTAL_POINT


def test_first_pattern_in_order_wins_not_first_in_text():
    # direct_challenge (pattern 7) comes first in the text, pivotal_point (pattern 5) first in order.
    text = "That is obviously wrong. The real issue is who bears the cost."
    result = quick_check(config(), text)
    assert result.likely_reason is Reason.PIVOTAL_POINT
    assert text[slice(*result.span)] == "The real issue is"


def test_first_pattern_wins_between_straw_man_and_challenge():
    text = "That claim is certainly mistaken, and they only want to win."
    result = quick_check(config(), text)
    assert result.likely_reason is Reason.STRAW_MAN_DETECTED
    assert text[slice(*result.span)] == "they only want"


def test_spec_pattern_wins_over_extension_for_the_same_phrase():
    # "that's ridiculous" is caught by the spec's pattern 2 before the extension's.
    result = quick_check(config(), "Honestly, that's ridiculous.")
    assert result.likely_reason is Reason.STRAW_MAN_DETECTED
    assert result.span == (10, 27)


@pytest.mark.parametrize("text", NEUTRAL)
def test_neutral_sentences_trigger_nothing(text):
    result = quick_check(config(), text)
    assert result == NO_TRIGGER
    assert result.potential_trigger is False
    assert result.likely_reason is None
    assert result.span is None


@pytest.mark.parametrize("mark", ["\u2019", "\u2018", "\u02bc", "\uff07"])
@pytest.mark.parametrize(
    ("template", "reason"),
    [
        ("Honestly, that{}s naive.", Reason.STRAW_MAN_DETECTED),
        ("Utilitarians don{}t care about rights.", Reason.FACTUAL_CORRECTION),
        ("I couldn{}t agree more.", Reason.STRONG_AGREEMENT),
        ("Deontology doesn{}t care about results.", Reason.FACTUAL_CORRECTION),
    ],
)
def test_typographic_apostrophes_match_like_ascii(mark, template, reason):
    typographic = template.format(mark)
    ascii_text = template.format("'")

    result = quick_check(config(), typographic)

    assert result.likely_reason is reason
    assert result == quick_check(config(), ascii_text)


def test_a_typographic_apostrophe_keeps_the_span_on_the_original_text():
    text = "Well\u2026 that\u2019s absurd!"
    result = quick_check(config(), text)
    assert result.span is not None
    assert text[slice(*result.span)] == "that\u2019s absurd"


# --- The quick check agrees with the spec's algorithm on every variant of every sample ---------
#
# quickInterruptCheck: for each pattern in order, `pattern.test(content)` (case-insensitive); the
# first that matches names the reason. Whatever shortcut the engine takes (a combined
# alternation, required literals), it must answer as this loop does, on any spacing, case or
# apostrophe the patterns themselves accept.

_TO_ASCII = str.maketrans({mark: "'" for mark in "\u2019\u2018\u02bc\uff07"})

# Phrasings the patterns accept that the samples above do not use.
EXTRA_PHRASES = [
    "Utilitarianism can't account for rights.",
    "Care ethics doesn't care about strangers.",
    "Every kantian believes in rules.",
    "It's unclear what you are claiming.",
    "That is exactly right, well said.",
    "Nobody seriously believes that anymore.",
    "No reasonable person would accept it.",
    "Thats ridiculous, frankly.",
    "This is exactly where we part ways.",
    "The core problem is enforcement.",
]


def spec_quick_check(content: str) -> Reason | None:
    """The spec's loop over the shipped patterns, on the chunk as the engine prepares it: typographic
    apostrophes as ASCII, and runs of whitespace (newlines, tabs, double spaces) as one space, so a
    phrase broken across lines triggers like the same phrase on one line."""
    text = " ".join(content.translate(_TO_ASCII).split())
    for pattern in COMPILED:
        if pattern.search(text):
            return Reason(PATTERNS[COMPILED.index(pattern)]["reason"])
    return None


def _variants(sentence: str) -> dict[str, str]:
    return {
        "as written": sentence,
        "upper case": sentence.upper(),
        "newlines between words": sentence.replace(" ", "\n"),
        "tabs between words": sentence.replace(" ", "\t"),
        "double spaces": sentence.replace(" ", "  "),
        "apostrophes dropped": sentence.replace("'", ""),
        "typographic apostrophes": sentence.replace("'", "\u2019"),
    }


VARIANT_CASES = [
    pytest.param(text, id=f"{sentence[:40]} / {how}")
    for sentence in [s for s, _ in SAMPLES] + EXTRA_PHRASES + [p["example"] for p in PATTERNS]
    for how, text in _variants(sentence).items()
]


@pytest.mark.parametrize("text", VARIANT_CASES)
def test_quick_check_answers_as_the_spec_loop_does(text):
    expected = spec_quick_check(text)
    result = quick_check(config(), text)
    assert result.potential_trigger is (expected is not None)
    assert result.likely_reason is expected


def test_shipped_examples_each_trigger_a_reason():
    for pattern in PATTERNS:
        assert quick_check(config(), pattern["example"]).potential_trigger, pattern["example"]


@pytest.mark.parametrize(
    "text",
    [
        "那天真是个好日子。",
        "这天真冷。",
        "Our readers simply want shorter articles.",
        "If you just want tea, ask.",
        "The party had good vibes, everyone said so.",
        "说白了，我就是不同意这个预算。",
        "Here's where we split the bill, by the way.",
        "The whole harvest depends on the weather this year.",
        "That's where we parted ways, back in 2019, when the club folded.",
        "This is where you and I part ways — I'm getting off at the next stop.",
    ],
)
def test_everyday_sentences_are_not_straw_men(text):
    """天真 inside 那天真是 is "that day really", not "naive"; wanting something is no caricature."""
    assert not quick_check(config(), text).potential_trigger
