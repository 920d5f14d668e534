"""An answer's closing words (engine/closing.py): where a crisis that breaks off a story is read."""

from __future__ import annotations

import pytest

from interview_turn.engine.closing import closing_words


@pytest.mark.parametrize(
    ("text", "closing"),
    [
        (
            "and we had this little, um... hold on. Something's wrong with me.",
            "hold on. Something's wrong with me",
        ),
        ("一天搬……搬……哎，我怎么……我突然看不清东西了……", "我突然看不清东西了"),
        ("the old mill -- no, wait -- my arm's gone dead", "my arm's gone dead"),
        ("他背着我走了十几里——哎，我头好晕。", "哎，我头好晕"),
    ],
)
def test_the_closing_words_follow_the_last_break_without_the_marks_that_end_them(text, closing):
    assert closing_words(text) == closing


@pytest.mark.parametrize(
    ("text", "closing"),
    [
        # A run of marks ends one sentence, not several.
        ("Hello?? Are you there?! I feel faint.", "Are you there?! I feel faint."),
        # Nothing said before the only break: the words after it are the whole answer.
        ("...hold on, my chest hurts", None),
    ],
)
def test_runs_of_marks_and_an_opening_break_add_no_sentence_or_closing_words(text, closing):
    assert closing_words(text) == closing


def test_a_long_run_of_ellipses_is_read_at_once():
    # The end-of-answer marks once took seconds to strip from such an answer (nested repeats).
    text = "那年冬天我病得很重，心口疼得厉害" + "…" * 200 + "后来慢慢就好了。"
    assert closing_words(text) == "后来慢慢就好了"


def test_a_break_before_too_few_words_gives_way_to_the_last_two_sentences():
    text = "We had a dog. A collie. Her name was... Bo."
    assert closing_words(text) == "Her name was... Bo."


@pytest.mark.parametrize(
    ("text", "closing"),
    [
        ("We had a dog. A collie. She slept by the stove.", "A collie. She slept by the stove."),
        ("我们搬到了上海。住在弄堂里。夏天很热。", "住在弄堂里。夏天很热。"),
    ],
)
def test_without_a_break_the_closing_words_are_the_last_two_sentences(text, closing):
    assert closing_words(text) == closing


@pytest.mark.parametrize(
    "text",
    [
        "We had a dog. A collie.",
        "I can't breathe...",
        "我们搬到了上海。",
        "Mm.",
        "",
        "   ",
        "!!!",
        # Chinese joined by commas alone is one sentence: its closing words are not read apart.
        "我们村东头有口老井，夏天大人们把西瓜吊在井里冰着，我头好晕",
    ],
)
def test_an_answer_with_no_shorter_closing_part_has_none(text):
    assert closing_words(text) is None
