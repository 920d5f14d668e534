"""The labelled sets are data worth measuring on: big enough, in every language, labelled with
every class, and the held-back test split shares no text with the train split."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from persona_rails_dev import evalsets
from persona_rails_dev.judges import NAMES, judge

MINIMUM_ITEMS = 800


def _normal(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


# Shorter than this (normalised), a text is a phrase anyone says ("Mm-hmm.", "No.", "没有。"): two
# authors may both write it.
COMMON_PHRASE = 12


@pytest.mark.parametrize("name", NAMES)
def test_a_set_holds_at_least_800_items_in_every_language_and_label(name):
    measured = judge(name)
    items = [*measured.items("train"), *measured.items("test")]
    assert len(items) >= MINIMUM_ITEMS
    for split in evalsets.SPLITS:
        cases = measured.cases(measured.items(split))
        languages = Counter(case.item.lang for case in cases)
        # A judge may serve fewer languages (SPS cases are English or Chinese, never mixed).
        assert set(languages) == set(getattr(measured, "languages", evalsets.LANGUAGES)), (split, languages)
        assert min(languages.values()) >= 30, (split, languages)
        labels = {case.expected for case in cases}
        assert labels == set(measured.labels), (split, labels)


@pytest.mark.parametrize("name", NAMES)
def test_the_test_split_shares_no_text_with_the_train_split(name):
    measured = judge(name)
    # A judge whose items are pieces of a longer text (SPS: turns of a transcript) compares the
    # texts as written.
    texts = getattr(measured, "distinct_texts", lambda split: [(i.id, i.text) for i in measured.items(split)])
    train = {_normal(text) for _, text in texts("train")}
    shared = [
        item_id
        for item_id, text in texts("test")
        if len(_normal(text)) >= COMMON_PHRASE and _normal(text) in train
    ]
    assert shared == []


@pytest.mark.parametrize("name", NAMES)
def test_the_test_split_was_written_by_an_author_of_its_own(name):
    measured = judge(name)
    train_authors = {item.author for item in measured.items("train")}
    test_authors = {item.author for item in measured.items("test")}
    assert train_authors.isdisjoint(test_authors)


def test_a_broken_line_names_its_file_and_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(
        '{"text": "ok text here", "lang": "zh", "emergency": true}\n{"text": 1}\n', encoding="utf-8"
    )
    with pytest.raises(evalsets.EvalSetError, match=r"bad.jsonl:2"):
        evalsets.load_file(path, evalsets.EmergencyItem, prefix="own")
