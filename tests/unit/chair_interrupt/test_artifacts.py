"""The engine's artifacts (config/*.json): the shipped set loads, and a copy broken in one place
fails the load with ConfigError naming the file and the JSON path at fault."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from chair_interrupt.artifacts import chair_config, load_config
from chair_interrupt.engine.model import Reason
from chair_interrupt.engine.policy import REQUIRED_FRAMEWORKS, SPEC_PATTERNS, SPEC_THRESHOLDS
from persona_rails.config import ConfigError
from tests.unit.chair_interrupt.support import copy_config, edit_json


def test_the_shipped_config_loads():
    config = load_config()
    assert re.fullmatch(r"[^+]+\+[0-9a-f]{12}", config.version)
    assert config.policy.urgency_thresholds == SPEC_THRESHOLDS
    assert config.policy.context_chars == 800
    assert set(REQUIRED_FRAMEWORKS) <= set(config.frameworks.frameworks)
    assert set(config.openers.openers) == set(Reason)
    assert [(p.pattern, p.reason) for p in config.quick_check.patterns[:7]] == list(SPEC_PATTERNS)


def test_chair_config_is_loaded_once_and_matches_a_fresh_load():
    assert chair_config() is chair_config()
    assert chair_config().version == load_config().version


def test_an_unchanged_copy_loads_with_the_same_version(tmp_path):
    assert load_config(copy_config(tmp_path)).version == load_config().version


def test_a_reformatted_copy_keeps_its_version(tmp_path):
    directory = copy_config(tmp_path)
    edit_json(directory / "policy.json", lambda document: None)  # re-serialised, same content
    assert load_config(directory).version == load_config().version


def test_an_edited_copy_changes_the_version(tmp_path):
    directory = copy_config(tmp_path)
    edit_json(directory / "openers.json", lambda d: d["openers"]["pivotal_point"].append("Here is the crux"))
    assert load_config(directory).version != load_config().version


def _swap_first_two(patterns: list[Any]) -> None:
    patterns[0], patterns[1] = patterns[1], patterns[0]


def _drop(mapping: dict[str, Any], key: str) -> None:
    del mapping[key]


BROKEN: list[Any] = [
    pytest.param(
        "policy.json",
        lambda d: d["urgency_thresholds"].update({"3": 0.65}),
        "$.urgency_thresholds",
        id="a threshold changed",
    ),
    pytest.param(
        "policy.json",
        lambda d: _drop(d["urgency_thresholds"], "5"),
        "$.urgency_thresholds",
        id="a threshold missing",
    ),
    pytest.param(
        "policy.json", lambda d: d.update(context_chars=900), "$.context_chars", id="context_chars 900"
    ),
    pytest.param(
        "policy.json",
        lambda d: _drop(d["offline"]["base_urgency"], "pivotal_point"),
        "$.offline.base_urgency",
        id="a reason without base urgency",
    ),
    pytest.param(
        "quick-check.json",
        lambda d: _swap_first_two(d["patterns"]),
        "$.patterns",
        id="spec patterns reordered",
    ),
    pytest.param(
        "quick-check.json",
        lambda d: d["patterns"][0].update(pattern="they (just|only) want"),
        "$.patterns",
        id="a spec pattern edited",
    ),
    pytest.param(
        "quick-check.json",
        lambda d: d["patterns"][4].update(reason="direct_challenge"),
        "$.patterns",
        id="a spec pattern's reason edited",
    ),
    pytest.param(
        "quick-check.json",
        lambda d: d["patterns"].pop(6),
        "$.patterns",
        id="a spec pattern removed",
    ),
    pytest.param(
        "quick-check.json",
        lambda d: d["patterns"][10].update(pattern="(unclosed"),
        "$.patterns[10].pattern",
        id="an uncompilable regex",
    ),
    pytest.param(
        "quick-check.json",
        lambda d: d["patterns"][8].update(reason="insult"),
        "$.patterns[8].reason",
        id="an unknown reason",
    ),
    pytest.param(
        "quick-check.json",
        lambda d: d["patterns"][8].update(example="A perfectly reasonable remark."),
        "$.patterns[8]",
        id="an example its pattern does not match",
    ),
    pytest.param(
        "quick-check.json",
        lambda d: d["patterns"][8].update(requires=["zzz"]),
        "$.patterns[8]",
        id="an example holding none of the required literals",
    ),
    pytest.param(
        "quick-check.json",
        lambda d: d["patterns"][8].update(requires=["Silly"]),
        "$.patterns[8]",
        id="a required literal not in lowercase",
    ),
    pytest.param(
        "openers.json",
        lambda d: _drop(d["openers"], "pivotal_point"),
        "$.openers",
        id="a reason without openers",
    ),
    pytest.param(
        "openers.json",
        lambda d: d["openers"].update(strong_agreement=[]),
        "$.openers",
        id="a reason with an empty pool",
    ),
    pytest.param(
        "openers.json",
        lambda d: d["openers"]["direct_challenge"].append(
            "Hold on, I just need to say one small thing here now"
        ),
        "$.openers",
        id="an opener of 12 words",
    ),
    pytest.param(
        "openers.json",
        lambda d: d["openers"]["direct_challenge"].append("Objection"),
        "$.openers",
        id="an opener of one word",
    ),
    *[
        pytest.param(
            "frameworks.json",
            lambda d, key=key: _drop(d["frameworks"], key),
            "$.frameworks",
            id=f"{key} missing",
        )
        for key in REQUIRED_FRAMEWORKS
    ],
]


@pytest.mark.parametrize(("name", "edit", "json_path"), BROKEN)
def test_a_broken_artifact_fails_naming_file_and_path(
    tmp_path, name: str, edit: Callable[[Any], None], json_path: str
):
    directory = copy_config(tmp_path)
    edit_json(directory / name, edit)

    with pytest.raises(ConfigError) as caught:
        load_config(directory)

    error = caught.value
    assert error.path == directory / name
    assert error.json_path == json_path
    assert name in str(error)
    assert json_path in str(error)


def test_the_missing_framework_is_named(tmp_path):
    directory = copy_config(tmp_path)
    edit_json(directory / "frameworks.json", lambda d: _drop(d["frameworks"], "care_ethics"))
    with pytest.raises(ConfigError, match="care_ethics"):
        load_config(directory)


def test_a_file_that_is_not_json_fails_at_its_root(tmp_path):
    directory = copy_config(tmp_path)
    (directory / "policy.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(directory)
    assert caught.value.path == directory / "policy.json"
    assert caught.value.json_path == "$"


def test_a_missing_file_fails_naming_it(tmp_path):
    directory = copy_config(tmp_path)
    (directory / "openers.json").unlink()
    with pytest.raises(ConfigError) as caught:
        load_config(directory)
    assert caught.value.path == directory / "openers.json"


def test_an_optional_framework_may_be_removed(tmp_path):
    directory = copy_config(tmp_path)
    edit_json(directory / "frameworks.json", lambda d: _drop(d["frameworks"], "libertarianism"))
    assert "libertarianism" not in load_config(directory).frameworks.frameworks
