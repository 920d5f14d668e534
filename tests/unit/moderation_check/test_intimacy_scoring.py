"""The intimacy plugin's arithmetic (spec §2, §12–§16), computed exactly.

§16's headings say "通常" (usually): the tests state what §12–§14 compute, which differs from
a heading twice: "我很关心你，希望你一切都好" is 0.28 (pass, not warn) and "亲爱的，我好想你" is
0.80 (reject, not rewrite: `爱.*你` also matches through 亲爱的).
"""

from __future__ import annotations

import itertools

import pytest

from persona_rails.folding import fold
from persona_rails.moderation.lexicon import Lexicon, Thresholds, lexicon_artifact
from persona_rails.moderation.scoring import (
    DEFAULT_THRESHOLDS,
    Label,
    Policy,
    decide,
    fuse,
    label_for,
    rule_score,
    stage_for_level,
    verdict,
)

LEXICON = lexicon_artifact().value


@pytest.mark.parametrize(
    ("text", "score", "label"),
    [
        ("你好，今天过得怎么样？", 0.2, Label.PASS),
        ("谢谢你的帮助", 0.23, Label.PASS),
        ("我很关心你，希望你一切都好", 0.28, Label.PASS),
        ("亲爱的，我好想你", 0.8, Label.REJECT),
        ("老婆，我爱你，想和你一起睡", 0.88, Label.REJECT),
    ],
)
def test_every_example_of_section_16_gets_the_computed_label(text, score, label):
    rule = rule_score(text, LEXICON)
    assert rule.score == score
    fused = fuse(rule.score, None, None)
    assert fused == score
    assert verdict(fused, rule, text, policy=Policy.DEFAULT, stage=3, lexicon=LEXICON).label is label


def test_the_hits_behind_a_score_are_named():
    rule = rule_score("亲爱的，我好想你", LEXICON)
    assert rule.high == ("亲爱的", "想你")
    assert rule.patterns == ("好想.*你", "爱.*你")
    assert (rule.medium, rule.low) == ((), ())


def test_each_keyword_counts_once_and_overlaps_count_separately():
    # 一起睡 (high) contains 一起 (medium): both count; saying 谢谢 twice counts once.
    assert rule_score("一起睡", LEXICON).score == round(0.2 + 0.15 + 0.08, 4)
    assert rule_score("谢谢谢谢，谢谢", LEXICON).score == 0.23


def test_several_medium_words_reach_warn():
    rule = rule_score("我关心你，会一直陪伴你，珍惜我们的时光", LEXICON)
    assert set(rule.medium) >= {"关心", "陪伴", "珍惜"}
    assert label_for(rule.score) in {Label.WARN, Label.REWRITE, Label.REJECT}


def test_empty_text_scores_zero_and_the_score_is_clamped_to_one():
    assert rule_score("   ", LEXICON).score == 0.0
    flood = "亲爱的宝贝老婆老公亲亲抱抱想你爱你喜欢你一起睡同床拥抱亲吻"
    assert rule_score(flood, LEXICON).score == 1.0


def test_english_matches_case_insensitively():
    assert rule_score("Thank you, Darling", LEXICON).high == ("darling",)
    assert rule_score("Thank you, Darling", LEXICON).low == ("thank you",)


@pytest.mark.parametrize(
    ("score", "label"),
    [
        (0.0, Label.PASS),
        (0.3999, Label.PASS),
        (0.4, Label.WARN),
        (0.5999, Label.WARN),
        (0.6, Label.REWRITE),
        (0.7999, Label.REWRITE),
        (0.8, Label.REJECT),
        (1.0, Label.REJECT),
    ],
)
def test_every_threshold_boundary(score, label):
    assert label_for(score, DEFAULT_THRESHOLDS) is label


@pytest.mark.parametrize(
    ("rule", "local", "third", "fused"),
    [
        (None, None, None, 0.5),
        (0.3, None, None, 0.3),
        (None, 0.7, None, 0.7),
        (None, None, 0.9, 0.9),
        (0.2, 1.0, None, round((0.4 * 0.2 + 0.6 * 1.0) / 1.0, 4)),
        (0.2, None, 1.0, round((0.4 * 0.2 + 0.7 * 1.0) / 1.1, 4)),
        (None, 0.5, 1.0, round((0.6 * 0.5 + 0.7 * 1.0) / 1.3, 4)),
        (0.2, 0.5, 1.0, round((0.4 * 0.2 + 0.6 * 0.5 + 0.7 * 1.0) / 1.7, 4)),
    ],
)
def test_fusion_with_each_subset_of_sources(rule, local, third, fused):
    assert fuse(rule, local, third) == fused


def test_the_policy_engine_takes_the_strongest_label():
    labels = [Label.PASS, Label.WARN, Label.REWRITE, Label.REJECT]
    for subset in itertools.chain.from_iterable(itertools.combinations(labels, n) for n in range(1, 5)):
        expected = next(label for label in reversed(labels) if label in subset)
        assert decide(subset) is expected
    assert decide([]) is Label.PASS


@pytest.mark.parametrize(
    ("level", "stage"),
    [(0, 1), (20, 1), (21, 2), (40, 2), (41, 3), (60, 3), (61, 4), (80, 4), (81, 5), (100, 5)],
)
def test_intimacy_levels_map_to_stages_inclusively(level, stage):
    assert stage_for_level(level) == stage


@pytest.mark.parametrize("level", [-1, 101, 50.5, True, "50", None])
def test_levels_outside_0_to_100_are_refused(level):
    with pytest.raises(ValueError, match="0 to 100"):
        stage_for_level(level)


def test_stage_aware_is_strict_at_stage_1_and_lenient_at_stage_5():
    text = "我很关心你，会一直陪伴你"  # 0.36: 关心 and 陪伴
    rule = rule_score(text, LEXICON)
    labels = {
        stage: verdict(rule.score, rule, text, policy=Policy.STAGE_AWARE, stage=stage, lexicon=LEXICON).label
        for stage in range(1, 6)
    }
    assert labels[1] is Label.WARN
    assert labels[5] is Label.PASS
    # The default policy ignores the stage, as the spec's §15 says the current system does.
    assert {
        verdict(rule.score, rule, text, policy=Policy.DEFAULT, stage=s, lexicon=LEXICON).label
        for s in range(1, 6)
    } == {label_for(rule.score)}


def test_a_forbidden_keyword_rejects_at_its_stage_only():
    text = "晚安，亲亲"
    rule = rule_score(text, LEXICON)
    at_1 = verdict(rule.score, rule, text, policy=Policy.STAGE_AWARE, stage=1, lexicon=LEXICON)
    at_5 = verdict(rule.score, rule, text, policy=Policy.STAGE_AWARE, stage=5, lexicon=LEXICON)
    assert (at_1.label, at_1.forbidden) == (Label.REJECT, ("亲亲",))
    assert at_1.reason == "forbidden at stage 1 (stranger): 亲亲"
    assert at_5.label is label_for(rule.score, LEXICON.stage_aware.stages[5].thresholds)


def test_the_lexicon_is_versioned_and_validated():
    artifact = lexicon_artifact()
    assert artifact.version.startswith("2026.11.3+")
    broken = {**artifact.value.model_dump(), "high_patterns": ["(unclosed"]}
    with pytest.raises(ValueError, match="does not compile"):
        Lexicon.model_validate(broken)
    with pytest.raises(ValueError, match="must rise"):
        Thresholds(warn=0.6, rewrite=0.5, reject=0.8)


def test_patterns_match_across_a_line_break():
    assert rule_score("亲爱的\n我好想你", LEXICON).score == 0.8
    assert rule_score("好想\n你", LEXICON).patterns == ("好想.*你",)


@pytest.mark.parametrize(
    "disguised",
    [
        "亲 爱 的 ， 我 好 想 你",
        "亲❤爱❤的，我❤好❤想❤你",
        "親愛的，我好想你",
        "亲\u200d爱\u200d的，我\u200c好\u200c想\u200c你",
        "亲.爱.的，我.好.想.你",
    ],
)
def test_the_rule_score_reads_the_folded_text(disguised):
    assert rule_score(disguised, LEXICON) == rule_score("亲爱的，我好想你", LEXICON)


@pytest.mark.parametrize(
    "disguised", ["ｉ ｌｏｖｅ ｙｏｕ", "і lоvе уоu", "i  l o v e  y o u", "i lo💕ve you"]
)
def test_english_keywords_and_patterns_read_through_disguises(disguised):
    assert rule_score(disguised, LEXICON) == rule_score("i love you", LEXICON)


@pytest.mark.parametrize(
    ("pattern", "needs_latin"),
    [
        (r"(?i)\blove\s+you\b", True),
        (r"forever yours", True),
        (r"\bkiss\s*me\b", True),
        (r"(?i)\bi\b", True),
        (r"好想.*你", False),
        (r"(?i)love|爱", False),
        (r"(?i)\bl.ve\b", False),  # it needs l, v and e, but the shape test reads letters and \b, \s only
        (r"(?i)\b\w+\s+you\b", False),
        (r"(?i)(love)?\s+", False),
        (r"\s+", False),
    ],
)
def test_only_patterns_that_need_a_latin_letter_are_skipped_on_texts_without_one(pattern, needs_latin):
    lexicon = Lexicon.model_validate({**LEXICON.model_dump(), "high_patterns": [pattern]})
    (compiled,) = lexicon.compiled_patterns
    assert compiled.needs_latin is needs_latin
    # Whether skipped or not, the rule finds what a search of the folded text finds: the dotless ı,
    # the long ſ and the Kelvin sign count as Latin letters (re's IGNORECASE matches them).
    for text in [
        "我爱你",
        "ı",
        "ıove you",
        "LOVE YOU",
        "ſ",
        "\u212aiss me",
        "好想和你在一起",
        "forever yours 💕",
    ]:
        searched = compiled.compiled.search(fold(text)) is not None
        assert (pattern in rule_score(text, lexicon).patterns) is searched, text
