"""Personas are versioned data with the spec's exact wording, validated once at load."""

import json

import pytest

from intercept_session.engine.messages import (
    challenge_message,
    delayed_message,
    emergency_doubt_message,
    emergency_message,
    verdict_message,
)
from intercept_session.engine.model import RuleContext, Verdict
from intercept_session.personas import (
    LARGEST_FILLS,
    MESSAGE_LIMIT,
    PERSONAS_FILE,
    Personas,
    persona_config,
    personas,
)
from persona_rails.config import ConfigError, load_artifact
from persona_rails.personas import UnknownPersonaError
from persona_rails.templates import fit


def catalog():
    return personas()


# The spec's templates, character for character.
SPEC_TEMPLATES = {
    "strict-father": {
        "challenge": "现在想打开{{app_display_name}}的理由是什么？保持诚实。",
        "deny": "这个理由站不住脚。先完成{{next_action}}，再谈放松。",
        "delay": "给你{{delay_minutes}}分钟缓冲，回来后我要看到执行结果。",
        "allow": "这次暂时同意，但记得记录结果。下次别再找借口。",
    },
    "rational-mentor": {
        "challenge": "请告诉我你此刻的计划，我们一起评估是否合理。",
        "deny": "根据规则，你还有{{remaining_minutes}}分钟任务未完成。建议先完成{{next_action}}。",
        "delay": "我建议设置{{delay_minutes}}分钟计时，之后回来复盘。",
        "allow": "理由成立。我会记录这次例外，请在事后写下成果。",
    },
    "humor-coach": {
        "challenge": "嘿，想摸鱼？先说个能打动我的理由吧！",
        "deny": "这个借口太弱啦。不如先{{next_action}}，待会儿再刷，保证更香。",
        "delay": "OK，设个{{delay_minutes}}分钟的小休息，闹钟一响马上回来。",
        "allow": "这次给你放行，但我要一张成绩截图，别忘了哦！",
    },
}
DISPLAY_NAMES = {"strict-father": "严父", "rational-mentor": "理性导师", "humor-coach": "幽默教练"}
RULE = RuleContext("规则", "抖音", "今天的周报", 45, 10)


@pytest.mark.parametrize("key", sorted(SPEC_TEMPLATES))
def test_templates_are_the_spec_wording(key):
    persona = catalog().get(key)
    assert {name: persona.templates[name] for name in SPEC_TEMPLATES[key]} == SPEC_TEMPLATES[key]
    assert persona.display_name == DISPLAY_NAMES[key]
    assert persona.avatar_asset_key == f"avatars/{key}.png"
    assert persona.version >= 1


def test_unknown_persona_names_the_valid_keys():
    with pytest.raises(UnknownPersonaError) as error:
        catalog().get("grandma")
    assert "humor-coach, rational-mentor, strict-father" in str(error.value)


@pytest.mark.parametrize(
    ("key", "verdict", "expected"),
    [
        ("strict-father", Verdict.DENY, "这个理由站不住脚。先完成今天的周报，再谈放松。"),
        ("strict-father", Verdict.DELAY, "给你10分钟缓冲，回来后我要看到执行结果。"),
        ("rational-mentor", Verdict.DENY, "根据规则，你还有45分钟任务未完成。建议先完成今天的周报。"),
        ("humor-coach", Verdict.DELAY, "OK，设个10分钟的小休息，闹钟一响马上回来。"),
    ],
)
def test_verdict_messages_fill_from_the_rule(key, verdict, expected):
    assert verdict_message(catalog().get(key), verdict, RULE) == expected


@pytest.mark.parametrize("key", sorted(SPEC_TEMPLATES))
def test_every_message_stays_within_60_characters_even_with_the_largest_fills(key):
    persona = catalog().get(key)
    rule = RuleContext(
        "x", str(LARGEST_FILLS["app_display_name"]), str(LARGEST_FILLS["next_action"]), 1440, 120
    )
    for verdict in Verdict:
        assert len(verdict_message(persona, verdict, rule)) <= MESSAGE_LIMIT
    # A session's app name may be 100 characters: the name is shortened, never the template.
    long_name = "超长应用名" * 20
    message = challenge_message(persona, rule, long_name)
    assert len(message) <= MESSAGE_LIMIT
    if "{{app_display_name}}" in persona.templates["challenge"]:
        assert message.startswith("现在想打开超长")
        assert "…的理由是什么？保持诚实。" in message


# What the allow templates say that an emergency must never hear.
SCOLDING = ("借口", "别再", "截图", "记录结果", "下次")


@pytest.mark.parametrize("key", sorted(SPEC_TEMPLATES))
def test_the_emergency_line_cares_and_never_scolds(key):
    persona = catalog().get(key)
    line = emergency_message(persona)
    assert line == persona.templates["emergency"]
    assert 1 <= len(line) <= MESSAGE_LIMIT
    assert "{{" not in line
    assert not [phrase for phrase in SCOLDING if phrase in line]
    assert line != verdict_message(persona, Verdict.ALLOW, RULE)


def test_the_emergency_lines_are_the_personas_own():
    lines = {key: emergency_message(catalog().get(key)) for key in SPEC_TEMPLATES}
    assert lines["strict-father"] == "安全第一，快去处理。需要帮助就立刻拨打急救电话。"
    assert len(set(lines.values())) == len(lines)


@pytest.mark.parametrize(
    ("key", "minutes", "expected"),
    [
        ("strict-father", 7, "说好的7分钟还没到，先把事情做完。"),
        ("rational-mentor", 1, "计时还剩1分钟。先完成手头的任务，到点再来复盘。"),
        ("humor-coach", 120, "闹钟还没响呢！再坚持120分钟，马上就到啦。"),
        # Out of range (a rounding edge, a skewed clock) is clamped, never an error.
        ("strict-father", 0, "说好的1分钟还没到，先把事情做完。"),
        ("strict-father", 500, "说好的120分钟还没到，先把事情做完。"),
    ],
)
def test_the_delayed_line_says_the_minutes_left(key, minutes, expected):
    assert delayed_message(catalog().get(key), minutes) == expected


@pytest.mark.parametrize("key", sorted(SPEC_TEMPLATES))
def test_the_excess_challenge_mentions_the_excess_and_fits(key):
    persona = catalog().get(key)
    plain = challenge_message(persona, RULE, "抖音")
    excess = challenge_message(persona, RULE, "抖音", excess=True)
    assert excess != plain
    assert "紧急解锁" in excess
    assert "超" in excess
    assert "抖音" in excess
    assert not [phrase for phrase in SCOLDING if phrase in excess]
    long_name = "超长应用名" * 20
    assert len(challenge_message(persona, RULE, long_name, excess=True)) <= MESSAGE_LIMIT


def test_the_strict_fathers_excess_challenge():
    assert (
        challenge_message(catalog().get("strict-father"), RULE, "抖音", excess=True)
        == "本周紧急解锁已超额度。说说打开抖音的理由。"
    )


def test_the_new_templates_fit_with_the_largest_fills_and_the_versions_moved():
    assert LARGEST_FILLS["minutes_left"] == 120
    for key in SPEC_TEMPLATES:
        persona = catalog().get(key)
        assert len(delayed_message(persona, 120)) <= MESSAGE_LIMIT
        assert len(emergency_doubt_message(persona)) <= MESSAGE_LIMIT
        assert "「紧急情况」" in emergency_doubt_message(persona)
        assert persona.version >= 3
    assert persona_config().human_version == "2026.11.3"


def test_fit_refuses_a_template_that_cannot_fit():
    with pytest.raises(ValueError, match="cannot fit"):
        fit("长" * 61, {}, 60)


def _write(tmp_path, personas):
    path = tmp_path / "personas.json"
    path.write_text(json.dumps({"personas": personas}, ensure_ascii=False), encoding="utf-8")
    return path


def _load(path):
    return load_artifact(path, Personas)


def _valid():
    return json.loads(PERSONAS_FILE.read_text(encoding="utf-8"))["personas"][0]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda p: p["templates"].pop("delay"), "missing templates"),
        (lambda p: p["templates"].pop("emergency"), "missing templates"),
        (
            lambda p: p["templates"].update(emergency="别急，{{app_display_name}}"),
            "unknown ['app_display_name']",
        ),
        (lambda p: p["templates"].update(delayed="还剩{{minutes_left}}分钟" + "等" * 55), "exceeds 60"),
        (lambda p: p["templates"].update(deny="先{{homework}}"), "unknown ['homework']"),
        (lambda p: p["templates"].update(deny="先{{top_count}}"), "unknown ['top_count']"),
        (lambda p: p["templates"].update(farewell="再见"), "unexpected template 'farewell'"),
        (lambda p: p["templates"].update(allow="好" * 61), "exceeds 60 characters"),
        (lambda p: p.update(key="Bad Key"), "key"),
        (lambda p: p.update(version=0), "version"),
    ],
)
def test_a_broken_personas_file_fails_at_load_naming_the_problem(tmp_path, mutate, message):
    persona = _valid()
    mutate(persona)
    with pytest.raises(ConfigError) as error:
        _load(_write(tmp_path, [persona]))
    assert message in str(error.value)
    assert str(tmp_path) in str(error.value)
    # The JSON path of the broken persona, so a designer finds the line.
    assert error.value.json_path.startswith("$.personas[0]")


def test_duplicate_keys_are_rejected(tmp_path):
    with pytest.raises(ConfigError, match="duplicate"):
        _load(_write(tmp_path, [_valid(), _valid()]))


def test_a_file_that_is_not_json_is_rejected(tmp_path):
    path = tmp_path / "personas.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="not JSON"):
        _load(path)
