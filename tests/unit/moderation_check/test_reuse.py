"""When an earlier decision may stand for a new text (intimacy.may_reuse): only where no source
that scored it, or would score the new one, could see a difference."""

from __future__ import annotations

import pytest

from persona_rails.moderation.intimacy import evaluate, may_reuse
from persona_rails.moderation.lexicon import lexicon_artifact
from persona_rails.moderation.scoring import Policy

LEXICON = lexicon_artifact().value


def computed(text: str, local: float | None = 0.3):
    return evaluate(
        text, stage=3, policy=Policy.DEFAULT, lexicon=LEXICON, local_model_score=local, third_party_score=None
    )


def earlier(
    *, folded_hash: str = "a" * 64, rule: float = 0.2, local: float | None = 0.3, third: float | None = None
):
    return {"folded_hash": folded_hash, "rule_score": rule, "local_score": local, "third_party_score": third}


def reusable(
    before: dict, text: str, *, folded_hash: str = "b" * 64, local: float | None = 0.3, llm_asked=False
):
    return may_reuse(
        before,
        folded_hash=folded_hash,
        computed=computed(text, local),
        llm_asked=llm_asked,
        stage=1,
        policy=Policy.STAGE_AWARE,
        lexicon=LEXICON,
        text=text,
    )


@pytest.mark.parametrize("llm_asked", [False, True])
@pytest.mark.parametrize("third", [None, 0.05])
def test_the_same_folded_text_may_always_reuse(llm_asked, third):
    before = earlier(folded_hash="c" * 64, third=third, rule=0.9, local=0.9)
    assert reusable(before, "今天天气不错", folded_hash="c" * 64, llm_asked=llm_asked)


def test_an_llm_score_is_never_carried_over_to_another_text():
    assert not reusable(earlier(third=0.05), "今天天气不错")


def test_no_other_text_is_reused_when_the_llm_would_score_it():
    assert not reusable(earlier(), "今天天气不错", llm_asked=True)


def test_another_text_is_reused_only_when_rule_and_local_model_score_it_the_same():
    assert reusable(earlier(rule=0.2, local=0.3), "今天天气不错", local=0.3)
    assert not reusable(earlier(rule=0.2, local=0.3), "今天天气不错", local=0.31)
    assert not reusable(earlier(rule=0.2, local=0.3), "今天天气不错，亲爱的", local=0.3)


def test_a_word_forbidden_at_the_stage_is_never_reused_past():
    text = "今天天气不错一起睡"
    before = earlier(rule=computed(text).result.sources.rule, local=0.3)
    assert not reusable(before, text)


def test_a_row_from_before_folded_hashes_is_reused_for_no_other_text():
    before = {"folded_hash": None, "rule_score": 0.2, "local_score": 0.3, "third_party_score": 0.4}
    assert not reusable(before, "今天天气不错")
