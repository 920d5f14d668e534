"""Config as versioned, strictly validated data: each test copies the engine's artifacts and
the chest-pain catalog entries to a temporary directory, breaks one thing, and expects
`load_config` to fail with a `ConfigError` naming the file and the JSON path. Also: an inline
document's error names its path from the document root (`validated`), the checked-in JSON
Schemas are not stale, and every catalog file (and an engine transcript and validation result)
validates against its published JSON Schema with `jsonschema_rs`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from persona_rails.config import ConfigError
from sps_encounter import schema_files
from sps_encounter.artifacts import CONFIG_DIR, InvalidDocument, load_config, validated
from sps_encounter.engine.case import Persona, Scenario
from sps_encounter.engine.validator import validate_transcript
from tests.unit.sps_encounter.support import (
    RESERVED,
    SCENARIO,
    copy_config,
    edit_json,
    encounter,
    load_schema,
    persona_document,
    scenario_document,
    schema_errors,
)

SCENARIO_FILE = f"scenarios/{SCENARIO}.json"
PERSONA_FILE = f"personas/{RESERVED}.json"


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    return copy_config(tmp_path)


def broken(directory: Path, relative: str, change) -> ConfigError:
    edit_json(directory / relative, change)
    with pytest.raises(ConfigError) as raised:
        load_config(directory)
    return raised.value


def test_the_copied_config_loads(config_dir):
    loaded = load_config(config_dir)
    assert set(loaded.scenarios) == {SCENARIO}
    assert set(loaded.personas) == {RESERVED, "en-anxious-talkative"}
    assert loaded.scenarios[SCENARIO].value.demographics.age == 58


def pattern_of_slot(index: int, pattern: str):
    def change(document):
        document["subjective_catalog"][index]["patterns"][0] = pattern

    return change


@pytest.mark.parametrize(
    ("change", "json_path", "problem"),
    [
        (lambda d: d["demographics"].__setitem__("age", "58"), "$.demographics.age", "valid integer"),
        (lambda d: d["demographics"].__setitem__("age", 58.0), "$.demographics.age", "valid integer"),
        (lambda d: d.__setitem__("allow_agenda_stacking", 1), "$.allow_agenda_stacking", "valid boolean"),
        (lambda d: d.__setitem__("notes", "x"), "$.notes", "Extra inputs"),
        (lambda d: d["demographics"].__setitem__("height", 180), "$.demographics.height", "Extra inputs"),
        (
            pattern_of_slot(1, "(unclosed"),
            "$.subjective_catalog[1].patterns[0]",
            "not a valid regular expression",
        ),
        (pattern_of_slot(2, "x*"), "$.subjective_catalog[2].patterns[0]", "matches the empty string"),
        (pattern_of_slot(0, r"(a)b\1"), "$.subjective_catalog[0].patterns[0]", "backreferences"),
        (pattern_of_slot(0, r"(?P<x>a)(?P=x)"), "$.subjective_catalog[0].patterns[0]", "backreferences"),
        (pattern_of_slot(0, r"(?i)chest"), "$.subjective_catalog[0].patterns[0]", "cannot be combined"),
        (
            lambda d: d["hidden_agenda"][0].__setitem__("variants", []),
            "$.hidden_agenda[0].variants",
            "at least 1",
        ),
        (
            lambda d: d["demographics"].__setitem__("date_of_birth", "14/03/1968"),
            "$.demographics.date_of_birth",
            "date",
        ),
    ],
)
def test_a_broken_scenario_names_the_file_and_path(config_dir, change, json_path, problem):
    error = broken(config_dir, SCENARIO_FILE, change)
    assert error.path == config_dir / SCENARIO_FILE
    assert error.json_path == json_path
    assert problem in error.problem
    assert str(error).startswith(f"{config_dir / SCENARIO_FILE}: {json_path}: ")


def test_a_scenario_referring_to_an_unknown_slot_is_refused(config_dir):
    error = broken(
        config_dir, SCENARIO_FILE, lambda d: d["misunderstandings"][0].__setitem__("intended_slot", "nope")
    )
    assert error.path == config_dir / SCENARIO_FILE
    assert "misunderstandings[0].intended_slot" in error.problem


def test_a_scenario_whose_default_persona_is_missing(config_dir):
    error = broken(config_dir, SCENARIO_FILE, lambda d: d.__setitem__("default_persona", "en-nobody"))
    assert (error.path, error.json_path) == (config_dir / SCENARIO_FILE, "$.default_persona")
    assert "en-nobody" in error.problem


def test_a_file_name_that_is_not_the_id(config_dir):
    error = broken(config_dir, SCENARIO_FILE, lambda d: d.__setitem__("id", "chest-pain-v2"))
    assert (error.path, error.json_path) == (config_dir / SCENARIO_FILE, "$.id")


def test_a_persona_with_fewer_than_four_clarifications(config_dir):
    error = broken(
        config_dir,
        PERSONA_FILE,
        lambda d: d["pools"].__setitem__("clarifications", d["pools"]["clarifications"][:3]),
    )
    assert (error.path, error.json_path) == (config_dir / PERSONA_FILE, "$.pools.clarifications")


def test_a_persona_with_an_unknown_tone(config_dir):
    error = broken(config_dir, PERSONA_FILE, lambda d: d.__setitem__("tone", "grumpy"))
    assert (error.path, error.json_path) == (config_dir / PERSONA_FILE, "$.tone")


# Persona rules checked when the persona is compiled with a scenario: the error names the persona
# file and the field in it.

OPENERS_SHARING_FIRST_WORDS = [
    {"text": "Well,"},
    {"text": "Well then,"},
    {"text": "Okay,"},
    {"text": "Yeah,"},
]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["pools"].__setitem__("openers", OPENERS_SHARING_FIRST_WORDS), "persona.pools.openers"),
        (lambda d: d["pools"]["openers"].__setitem__(2, {"text": "Um, okay,"}), "persona.pools.openers[2]"),
        (lambda d: d["pools"]["openers"][0]["synonyms"].append("Er, right,"), "persona.pools.openers[0]"),
        (lambda d: d["pools"].__setitem__("disfluencies", ["um", "like"]), "persona.pools.disfluencies[1]"),
    ],
)
def test_a_persona_breaking_a_compile_rule_is_refused_naming_persona_and_field(config_dir, change, field):
    error = broken(config_dir, PERSONA_FILE, change)
    assert error.path == config_dir / PERSONA_FILE
    assert error.json_path == "$" + field.removeprefix("persona")


def test_a_persona_compile_error_names_the_persona_file(config_dir):
    error = broken(
        config_dir, PERSONA_FILE, lambda d: d["pools"].__setitem__("openers", OPENERS_SHARING_FIRST_WORDS)
    )
    assert (error.path, error.json_path) == (config_dir / PERSONA_FILE, "$.pools.openers")


# The spec's numbers


@pytest.mark.parametrize(
    ("change", "json_path"),
    [
        (lambda d: d["elaboration"].__setitem__("brief", 0.3), "$.elaboration"),
        (lambda d: d["elaboration"].__setitem__("balanced", 0.45), "$.elaboration"),
        (lambda d: d["elaboration"].__setitem__("talkative", 0.5), "$.elaboration"),
        (lambda d: d["elaboration"].__setitem__("clamp", 0.45), "$.elaboration"),
        (lambda d: d.__setitem__("window", 4), "$"),
        (lambda d: d.__setitem__("misunderstanding_gap_turns", 2), "$"),
        (lambda d: d["rapport"].__setitem__("empathy_cues_to_upgrade", 3), "$.rapport"),
        (lambda d: d["rapport"].__setitem__("dismissals_to_degrade", 1), "$.rapport"),
        (lambda d: d["rapport"].__setitem__("cooldown_turns", 1), "$.rapport"),
        (lambda d: d["rapport"]["multipliers"].__setitem__("guarded", 0.8), "$.rapport"),
        (lambda d: d["rapport"]["multipliers"].__setitem__("open", 1.2), "$.rapport"),
        (lambda d: d["validator"].__setitem__("elaboration_warn_rate", 0.5), "$.validator"),
        (lambda d: d["validator"].__setitem__("vague_prompts_before_info", 4), "$.validator"),
        (lambda d: d["validator"].__setitem__("max_disfluencies_per_turn", 2), "$.validator"),
        (lambda d: d.__setitem__("window", "3"), "$.window"),
    ],
)
def test_policy_numbers_other_than_the_spec_are_refused(config_dir, change, json_path):
    error = broken(config_dir, "policy.json", change)
    assert (error.path, error.json_path) == (config_dir / "policy.json", json_path)


def test_a_lexicon_missing_a_language_is_refused(config_dir):
    error = broken(config_dir, "lexicon.json", lambda d: d["languages"].pop("zh"))
    assert error.path == config_dir / "lexicon.json"
    assert "zh" in error.problem


def test_a_lexicon_with_one_empathy_cue_is_refused(config_dir):
    error = broken(
        config_dir,
        "lexicon.json",
        lambda d: d["languages"]["en"].__setitem__("empathy", d["languages"]["en"]["empathy"][:1]),
    )
    assert (error.path, error.json_path) == (config_dir / "lexicon.json", "$.languages.en.empathy")


def test_a_file_that_is_not_json(config_dir):
    (config_dir / SCENARIO_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_config(config_dir)
    assert raised.value.path == config_dir / SCENARIO_FILE
    assert "not JSON" in raised.value.problem


# Inline documents


def test_an_inline_scenario_error_names_its_path_from_the_root():
    document = scenario_document()
    document["demographics"]["age"] = "58"
    with pytest.raises(InvalidDocument) as raised:
        validated(document, Scenario, "scenario")
    assert raised.value.path == "scenario.demographics.age"
    assert str(raised.value).startswith("scenario.demographics.age: ")


def test_an_inline_persona_error_names_list_positions():
    document = persona_document()
    document["pools"]["openers"][1]["text"] = ""
    with pytest.raises(InvalidDocument) as raised:
        validated(document, Persona, "persona")
    assert raised.value.path == "persona.pools.openers[1].text"


def test_a_valid_inline_document_is_versioned_by_content():
    document = scenario_document()
    first = validated(document, Scenario, "scenario")
    document["title"] = "Another title"
    second = validated(document, Scenario, "scenario")
    assert first.version.startswith(document["version"] + "+")
    assert first.content_hash != second.content_hash


# Published JSON Schemas


def test_the_checked_in_json_schemas_are_not_stale():
    assert schema_files.stale() == []


def test_a_stale_schema_is_reported(tmp_path):
    schema_files.write(tmp_path)
    assert schema_files.stale(tmp_path) == []
    (tmp_path / "persona.schema.json").write_text("{}\n", encoding="utf-8")
    (tmp_path / "policy.schema.json").unlink()
    assert sorted(schema_files.stale(tmp_path)) == ["persona.schema.json", "policy.schema.json"]


CATALOG = [
    *(
        (f"scenarios/{path.name}", "scenario.schema.json")
        for path in sorted((CONFIG_DIR / "scenarios").glob("*.json"))
    ),
    *(
        (f"personas/{path.name}", "persona.schema.json")
        for path in sorted((CONFIG_DIR / "personas").glob("*.json"))
    ),
    ("lexicon.json", "lexicon.schema.json"),
    ("policy.json", "policy.schema.json"),
    ("gold-standard.json", "gold-standard.schema.json"),
]


@pytest.mark.parametrize(("relative", "schema"), CATALOG)
def test_every_shipped_file_validates_against_its_published_schema(relative, schema):
    document = json.loads((CONFIG_DIR / relative).read_text(encoding="utf-8"))
    assert schema_errors(load_schema(schema), document) == []


def test_the_published_scenario_schema_is_as_strict_as_the_model():
    schema = load_schema("scenario.schema.json")
    document = scenario_document()
    document["demographics"]["age"] = "58"
    assert schema_errors(schema, document)
    document = scenario_document()
    document["notes"] = "x"
    assert schema_errors(schema, document)


def test_an_engine_transcript_and_its_validation_match_the_published_schemas():
    played = encounter()
    played.play(
        [
            "What brings you in today?",
            "Anything else?",
            "Do you take any medications?",
            "Run on the spot for me.",
        ]
    )
    assert schema_errors(load_schema("transcript.schema.json"), {"transcript": played.transcript}) == []
    result = validate_transcript(played.transcript, played.case)
    assert schema_errors(load_schema("validation-result.schema.json"), result) == []
