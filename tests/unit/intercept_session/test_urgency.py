"""When is an urgent keyword's mention urgent? Labelled cases in Chinese, English and mixed text,
the lexicon as versioned data, and the rule's corners (docs/emergencies.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from intercept_session.engine.urgency import CueKind, compile_rules, is_urgent, urgent_mentions
from intercept_session.urgency_config import LEXICON_FILE, load_lexicon, urgency_config, urgency_rules
from persona_rails.config import ConfigError

URGENT = [
    # The brief's real emergencies.
    "家里着火了快帮我叫119",
    "my dad is bleeding, need to call 911 now",
    "妈妈晕倒了我在医院急诊",
    "car accident on the highway, I'm injured",
    # Mixed Chinese and English.
    "I'm at 医院 right now, my mom collapsed",
    "my mom 在急诊, please help",
    "No, hospital now! my dad fell",
    # A routine clause beside an urgent one; a booster between a cue and the keyword cancels it.
    "我在医院上班，现在同事晕倒了",
    "我在医院上班现在同事晕倒了",
    "排队挂号突然急诊叫我过去",
    "昨天出车祸了现在还在流血",
    "we were talking about the ER now my dad collapsed",
    "I work at the hospital but right now my dad is in the ER, he collapsed",
    # Plain mentions, as the spec's keywords always were.
    "楼里火警响了，要看物业群的通知",
    "爸爸住院了，医院让我马上回电话",
    "my mom is in the hospital, need to call",
    "朋友车祸受伤了",
    "the house is on fire",
    # Words that look like cues but are not.
    "not kidding my dad is bleeding",
    "要不要叫救护车？我爸晕倒了",
    "没想到妈妈晕倒了",
    "I can't stop the bleeding",
    "非常紧急情况",
    "排队的时候晕倒了",
    "我们在聊天的时候火警响了",
    "he might be having a heart attack",
    "医院的工作人员说我爸在抢救",
    # Traditional Chinese and full-width Latin letters.
    "醫院打電話說我媽暈倒了",
    "家裡著火了",
    "my dad is in the ＥＲ",
    # Fires, gas and break-ins said the way people say them (lexicon 2026.11.2).
    "there's a fire in my building!!",
    "the kitchen caught fire",
    "厨房煤气泄漏了",
    "someone is trying a break-in at my door",
    "my dad might be having a stroke",
]

# Words near a keyword that are not emergencies at all: no keyword may match them.
NO_KEYWORD = [
    "we have a fire drill at school now, so boring",
    "I got fired at work, bored",
    "stroke order practice for calligraphy homework",
]

NOT_URGENT = [
    # Found in review (lexicon 2026.11.3): drills and tests, landmarks and workplaces, all-clear.
    ("there's a fire drill at work so bored", CueKind.ROUTINE),
    ("the fire alarm test at the office is annoying", CueKind.ROUTINE),
    ("医院附近的奶茶店很好喝", CueKind.ROUTINE),
    ("我们公司楼下的医院在装修", CueKind.ROUTINE),
    ("I got fired from the hospital job", CueKind.ROUTINE),
    ("老板说我家着火了不用担心", CueKind.NEGATION),
    # The false emergencies.
    ("It's not really an emergency, I just want to watch videos", CueKind.NEGATION),
    ("我不需要去医院", CueKind.NEGATION),
    ("我在医院上班", CueKind.ROUTINE),
    ("我在医院排队挂号好无聊", CueKind.ROUTINE),
    # Negated.
    ("这不是紧急情况，就是想看", CueKind.NEGATION),
    ("没有人受伤", CueKind.NEGATION),
    ("非紧急情况", CueKind.NEGATION),
    ("I don't need to go to the hospital", CueKind.NEGATION),
    ("no ambulance needed, just bored", CueKind.NEGATION),
    ("不需要马上去医院", CueKind.NEGATION),
    ("not an emergency 只是想刷视频", CueKind.NEGATION),
    # Hypothetical.
    ("如果着火了怎么办", CueKind.HYPOTHETICAL),
    ("万一出车祸呢", CueKind.HYPOTHETICAL),
    ("what if my house is on fire", CueKind.HYPOTHETICAL),
    ("in case of emergency I want my phone", CueKind.HYPOTHETICAL),
    ("需要去医院的话再说", CueKind.HYPOTHETICAL),
    ("明天 exam，如果去 hospital 就考不了", CueKind.HYPOTHETICAL),
    # Past.
    ("昨天去了医院，今天想放松一下", CueKind.PAST),
    ("I was in the hospital last week", CueKind.PAST),
    ("I was in the hospital last week and now I just want to relax", CueKind.PAST),
    ("三年前出过车祸", CueKind.PAST),
    ("I used to work at a hospital", CueKind.PAST),
    # Routine.
    ("我在hospital上班", CueKind.ROUTINE),
    ("我在醫院上班", CueKind.ROUTINE),
    ("陪奶奶去医院复查", CueKind.ROUTINE),
    ("公司在搞火警演习", CueKind.ROUTINE),
    ("急诊科值班，好无聊", CueKind.ROUTINE),
    ("I work at the hospital and need to check my shift", CueKind.ROUTINE),
    ("I'm a nurse at the ER", CueKind.ROUTINE),
    ("I'm at the hospital waiting room for a checkup", CueKind.ROUTINE),
    # Talking about.
    ("我在看一部关于医院的电视剧", CueKind.TALKING_ABOUT),
    ("新闻说高速上出了车祸", CueKind.TALKING_ABOUT),
    ("刚刷到一个车祸视频", CueKind.TALKING_ABOUT),
    ("watching a show about the ER", CueKind.TALKING_ABOUT),
    ("talking about a car accident with friends", CueKind.TALKING_ABOUT),
    ("I dreamed about a fire alarm", CueKind.TALKING_ABOUT),
    ("我们聊到车祸的事", CueKind.TALKING_ABOUT),
]


def rules():
    return urgency_rules()


@pytest.mark.parametrize("text", URGENT)
def test_urgent(text):
    assert is_urgent(text, rules()), [m.explain() for m in urgent_mentions(text, rules())]


@pytest.mark.parametrize(("text", "kind"), NOT_URGENT, ids=[text for text, _ in NOT_URGENT])
def test_not_urgent_and_the_cue_that_decided(text, kind):
    mentions = urgent_mentions(text, rules())
    assert mentions, "the keyword is found"
    assert not is_urgent(text, rules())
    assert kind in {m.cue.kind for m in mentions if m.cue is not None}


def test_the_table_covers_every_cue_kind_in_both_languages():
    assert len(URGENT) + len(NOT_URGENT) >= 40
    assert {kind for _, kind in NOT_URGENT} == set(CueKind)


@pytest.mark.parametrize("text", NO_KEYWORD)
def test_look_alikes_are_no_mention(text):
    assert urgent_mentions(text, rules()) == []


def test_no_keyword_no_mention():
    assert urgent_mentions("就是想看看有什么好玩的", rules()) == []
    # ER is a ward only in capitals; English keywords are whole words.
    assert urgent_mentions("er, I just want to check", rules()) == []
    assert urgent_mentions("hospitality homework", rules()) == []


def test_a_mention_reports_its_keyword_as_listed_and_its_place_in_the_text():
    text = "Mom fainted, HOSPITAL now"
    (fainted, hospital) = urgent_mentions(text, rules())
    assert (fainted.keyword, hospital.keyword) == ("fainted", "hospital")
    assert text[hospital.start : hospital.end] == "HOSPITAL"
    assert hospital.urgent
    assert hospital.cue is None


def test_a_booster_never_undoes_a_negation_or_a_condition():
    for text in ("不需要马上去医院", "如果现在着火了怎么办", "I don't need the hospital right now"):
        assert not is_urgent(text, rules()), text


def test_clauses_break_at_turning_words():
    # "但是" and "but" end the routine clause; the emergency is in the next one.
    assert is_urgent("我在医院上班但是同事晕倒了", rules())
    assert is_urgent("I work at the hospital but my colleague collapsed", rules())


# -- the lexicon is versioned data ---------------------------------------------------------------


def test_the_lexicon_loads_with_a_version_and_keeps_the_spec_keywords():
    artifact = urgency_config()
    assert artifact.human_version == artifact.value.version
    assert artifact.version.startswith(f"{artifact.value.version}+")
    assert {"火警", "医院", "emergency"} <= set(artifact.value.keywords)
    assert rules().version == artifact.value.version
    assert artifact.value.comment


def _document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(LEXICON_FILE.read_text(encoding="utf-8"))
    return document


def _write(tmp_path: Path, document: dict[str, Any]) -> Path:
    path = tmp_path / "urgency-lexicon.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("mutate", "json_path", "message"),
    [
        (lambda d: d["keywords"].remove("医院"), "$", "spec's urgent keywords ['医院']"),
        (lambda d: d["keywords"].append("火警"), "$", "keywords lists ['火警'] twice"),
        (lambda d: d["keywords"].append("醫院"), "$.keywords[", "as it folds: '医院'"),
        (lambda d: d["overridable"].append("negation"), "$", "cannot be overridable"),
        (lambda d: d["boosters"].append("昨天"), "$", "both a cue and a booster"),
        (lambda d: d["cues"][0].update(kind="sarcasm"), "$.cues[0].kind", "Input should be"),
        (lambda d: d["cues"][0].update(window="3"), "$.cues[0].window", "integer"),
        (lambda d: d["cues"][0].update(phrases=[" padded"]), "$.cues[0].phrases[0]", "pattern"),
        (lambda d: d.pop("version"), "$.version", "Field required"),
        (lambda d: d.update(extra=1), "$.extra", "Extra inputs"),
    ],
)
def test_a_broken_lexicon_fails_at_load_naming_the_problem(tmp_path, mutate, json_path, message):
    document = _document()
    mutate(document)
    with pytest.raises(ConfigError) as error:
        load_lexicon(_write(tmp_path, document))
    assert error.value.json_path.startswith(json_path)
    assert message in str(error.value)


def test_an_edited_lexicon_changes_the_rule_and_the_version(tmp_path):
    document = _document()
    document["version"] = "2099.1.1"
    document["keywords"].append("熊出没")
    artifact = load_lexicon(_write(tmp_path, document))
    edited = compile_rules(artifact.value)
    assert artifact.version.startswith("2099.1.1+")
    assert artifact.version != urgency_config().version
    assert is_urgent("山路上熊出没了", edited)
    assert not is_urgent("山路上熊出没了", rules())
