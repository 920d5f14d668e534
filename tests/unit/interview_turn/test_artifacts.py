"""The configuration artifacts (spec: Configuration Artifacts, Appendix A): the shipped set loads,
validates against its checked-in JSON Schemas, and a broken artifact fails the load with
`ConfigError` naming the file and where in it the fault is."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from interview_turn import schema_files
from interview_turn.artifacts import CONFIG_DIR, SCHEMAS, SYSTEM_PROMPT_FILE, interview_config, load_config
from interview_turn.engine.lint import template_problems
from persona_rails.config import ConfigError
from persona_rails.llm.tokens import count_tokens
from tests.unit.interview_turn.support import copy_config, edit_json, load_schema, schema_errors

ARTIFACTS = sorted(SCHEMAS)


def test_the_shipped_config_loads():
    config = load_config()
    assert config.router.version
    assert re.fullmatch(r"[^+]+\+[0-9a-f]{12}", config.version)
    assert len(config.system_prompt.split()) <= 300
    assert interview_config() is interview_config()
    assert interview_config().version == config.version


def test_the_config_version_changes_with_any_artifact(tmp_path):
    directory = copy_config(tmp_path)
    assert load_config(directory).version == load_config().version
    prompt = directory / SYSTEM_PROMPT_FILE
    prompt.write_text(prompt.read_text(encoding="utf-8") + "\nBe kind.\n", encoding="utf-8")
    assert load_config(directory).version != load_config().version


def test_the_checked_in_schemas_are_not_stale():
    assert schema_files.stale() == []


def test_every_artifact_and_the_turn_contract_has_a_schema():
    expected = {schema_files.schema_name(name) for name in ARTIFACTS} | {"turn-contract.schema.json"}
    assert {path.name for path in schema_files.SCHEMA_DIR.glob("*.schema.json")} == expected
    for name in expected:
        assert load_schema(name)["$schema"] == schema_files.DRAFT


@pytest.mark.parametrize("artifact", ARTIFACTS)
def test_every_shipped_artifact_validates_against_its_json_schema(artifact):
    document = json.loads((CONFIG_DIR / artifact).read_text(encoding="utf-8"))
    assert schema_errors(load_schema(schema_files.schema_name(artifact)), document) == []


@pytest.mark.parametrize(
    ("artifact", "change"),
    [
        ("router-policy.json", lambda doc: doc["priority"].reverse()),
        ("depth-governor.json", lambda doc: doc.update(max_increase_per_turn=2)),
        ("router-policy.json", lambda doc: doc["thresholds"].update(emotion=1.5)),
        ("negative-constraints.json", lambda doc: doc.pop("crisis_guidance")),
    ],
)
def test_the_json_schemas_reject_what_the_spec_fixes(artifact, change):
    """A designer's editor sees the same rules the cold start enforces."""
    document = json.loads((CONFIG_DIR / artifact).read_text(encoding="utf-8"))
    change(document)
    assert schema_errors(load_schema(schema_files.schema_name(artifact)), document) != []


# Broken artifacts: copy the shipped set, break one thing, load.


def resolve(document: Any, location: str) -> Any:
    """The value at a dotted JSON path such as `machines.x.states[0].templates.en[1]`."""
    value = document
    for key, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", location):
        value = value[int(index)] if index else value[key]
    return value


@dataclass(frozen=True)
class Breakage:
    """`location` is where the fault is, as a JSON path; the error must name it."""

    file: str
    location: str | None
    problem: str
    apply: Callable[[Any], Any] | None
    removed: bool = False


def append_line(path: list[str], line: str) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        resolve(doc, ".".join(path)).append(line)

    return change


def prepend_line(path: list[str], line: str) -> Callable[[dict[str, Any]], None]:
    """The broken line first, so that its index does not depend on how many lines ship."""

    def change(doc: dict[str, Any]) -> None:
        resolve(doc, ".".join(path)).insert(0, line)

    return change


def _set(location: str, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda doc: resolve(doc, location).__setitem__(key, value)


BREAKAGES = {
    "bad_json": Breakage("depth-governor.json", None, "not JSON", None),
    "missing_file": Breakage("state-machines.json", None, "cannot read", None),
    "reordered_router_priority": Breakage(
        "router-policy.json", "$.priority", "priority order", lambda doc: doc["priority"].reverse()
    ),
    "rerouted_rule": Breakage(
        "router-policy.json",
        "$.routes",
        "spec's persona",
        _set("routes.vagueness", "persona", "EMPATHY_EXPAND"),
    ),
    "precision_cap_above_spec": Breakage(
        "state-machines.json",
        "$.machines",
        "capped at 2",
        lambda doc: (
            _set("machines.precision_narrowing", "max_steps", 3)(doc),
            doc["machines"]["precision_narrowing"]["states"].append(
                doc["machines"]["precision_narrowing"]["states"][0]
            ),
        ),
    ),
    "inconsistency_cap_above_spec": Breakage(
        "state-machines.json",
        "$.machines",
        "capped at 1",
        _set("machines.inconsistency_resolution", "max_steps", 2),
    ),
    "max_increase_per_turn_2": Breakage(
        "depth-governor.json", "$.max_increase_per_turn", "1", lambda doc: doc.update(max_increase_per_turn=2)
    ),
    "sensitive_depth_below_max_depth": Breakage(
        "depth-governor.json",
        "$.default_budget",
        "max_sensitive_depth",
        _set("default_budget", "max_sensitive_depth", 1),
    ),
    "uncompilable_prohibited_pattern": Breakage(
        "negative-constraints.json",
        "$.constraints[0].patterns",
        "regular expression",
        append_line(["constraints[0]", "patterns"], "(unclosed"),
    ),
    "uncompilable_weighted_lexicon_pattern": Breakage(
        "signal-lexicon.json",
        "$.emotion[0].pattern",
        "regular expression",
        _set("emotion[0]", "pattern", "["),
    ),
    "uncompilable_lexicon_hedge": Breakage(
        "signal-lexicon.json", "hedges", "regular expression", lambda doc: doc["hedges"].append("(unclosed")
    ),
    "fact_pattern_without_one_group": Breakage(
        "signal-lexicon.json",
        "facts.year",
        "exactly one group",
        lambda doc: doc["facts"]["year"].append(r"\b19\d\d\b"),
    ),
    "unknown_template_placeholder": Breakage(
        "persona-profiles.json",
        "$.personas.EMPATHY_BASE.tactics.warm_open.en",
        "nickname",
        append_line(
            ["personas", "EMPATHY_BASE", "tactics", "warm_open", "en"], "Hello {nickname}. Shall we begin?"
        ),
    ),
    "persona_template_breaking_a_prohibited_pattern": Breakage(
        "persona-profiles.json",
        "personas.EMPATHY_BASE.tactics.narrative_facilitation.en[0]",
        "NC-DIAG-01",
        prepend_line(
            ["personas", "EMPATHY_BASE", "tactics", "narrative_facilitation", "en"],
            "It sounds like you have depression. What happened next?",
        ),
    ),
    "state_machine_template_breaking_a_prohibited_pattern": Breakage(
        "state-machines.json",
        "machines.emotional_expansion.states[0].templates.zh[0]",
        "NC-COERCE-01",
        prepend_line(
            ["machines", "emotional_expansion", "states[0]", "templates", "zh"], "你必须告诉我当时的感受。"
        ),
    ),
    "fallback_template_too_long": Breakage(
        "negative-constraints.json",
        "fallbacks.generic.en[0]",
        "NC-MONO-01",
        prepend_line(["fallbacks", "generic", "en"], "Thank you. " * 7),
    ),
    "crisis_guidance_breaking_a_prohibited_pattern": Breakage(
        "negative-constraints.json",
        "crisis_guidance.en-AU",
        "NC-COERCE-01",
        _set("crisis_guidance", "en-AU", "You must tell me everything, and call 000 now."),
    ),
    "missing_crisis_guidance_language": Breakage(
        "negative-constraints.json",
        "crisis_guidance",
        "each language",
        lambda doc: doc["crisis_guidance"].pop("zh"),
    ),
    "missing_language_lines": Breakage(
        "negative-constraints.json",
        "$.step_sideways.zh",
        "Field required",
        lambda doc: doc["step_sideways"].pop("zh"),
        removed=True,
    ),
    "system_prompt_over_300_words": Breakage(SYSTEM_PROMPT_FILE, None, "300", None),
}


def break_config(name: str, directory) -> Any:
    breakage = BREAKAGES[name]
    path = directory / breakage.file
    if name == "bad_json":
        path.write_text('{"version": "2026.11.1", "levels": [', encoding="utf-8")
        return None
    if name == "missing_file":
        path.unlink()
        return None
    if name == "system_prompt_over_300_words":
        path.write_text(" ".join(["Listen."] * 301), encoding="utf-8")
        return None
    return edit_json(path, breakage.apply)


@pytest.mark.parametrize("name", sorted(BREAKAGES))
def test_a_broken_artifact_fails_the_load_naming_the_file_and_path(name, tmp_path):
    directory = copy_config(tmp_path)
    broken = break_config(name, directory)
    breakage = BREAKAGES[name]
    if breakage.location is not None and broken is not None and not breakage.removed:
        # The expected location is a real path of the broken document (a check of the test itself).
        resolve(broken, breakage.location.removeprefix("$."))
    with pytest.raises(ConfigError) as error:
        load_config(directory)
    message = str(error.value)
    assert error.value.path.name == breakage.file
    assert breakage.file in message
    assert breakage.problem in message
    if breakage.location is not None:
        assert breakage.location in message, f"the error does not name {breakage.location}: {message}"


def test_a_schema_error_reports_the_exact_json_path(tmp_path):
    directory = copy_config(tmp_path)
    edit_json(directory / "router-policy.json", lambda doc: doc["thresholds"].update(vagueness="high"))
    with pytest.raises(ConfigError) as error:
        load_config(directory)
    assert error.value.json_path == "$.thresholds.vagueness"


def test_every_shipped_template_passes_the_post_check():
    assert template_problems(interview_config(), count_tokens) == []


@pytest.mark.parametrize(
    ("field", "value"),
    [("distress_hard_stop_threshold", "0.85"), ("refusal_decrease", "1"), ("refusal_decrease", True)],
)
def test_artifacts_are_read_as_strictly_as_their_json_schemas(tmp_path, field, value):
    """A number written as a string is refused at load, as the published schema refuses it."""
    directory = copy_config(tmp_path)
    edit_json(directory / "depth-governor.json", lambda document: document.__setitem__(field, value))
    with pytest.raises(ConfigError) as raised:
        load_config(directory)
    assert raised.value.json_path == f"$.{field}"
