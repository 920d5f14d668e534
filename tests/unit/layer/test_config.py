"""`persona_rails.config.load_artifact`: a function's JSON artifact validated at init and versioned.

A broken file fails with the file and the JSON path at fault; the version is the human `version`
field (where there is one) plus a hash of the canonical content, so reformatting keeps it and any
change of content moves it.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from intercept_session.personas import PERSONAS_FILE, Personas
from persona_rails.config import HASH_CHARS, ConfigError, load_artifact
from persona_rails_dev.template import functions
from tests.support.lambda_child import lambda_env, run_python


class Threshold(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    limit: int = Field(ge=0, le=100)


class Policy(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: str | None = None
    thresholds: list[Threshold]
    lexicon: dict[str, list[str]] = {}


POLICY: dict[str, Any] = {
    "version": "2026.11.1",
    "thresholds": [{"name": "spam", "limit": 10}, {"name": "abuse", "limit": 3}],
    "lexicon": {"spam": ["buy", "便宜"]},
}


def write(path: Path, document: Any, **dump: Any) -> Path:
    path.write_text(json.dumps(document, **{"ensure_ascii": False, **dump}), encoding="utf-8")
    return path


def load_error(path: Path, schema: type[BaseModel] = Policy) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_artifact(path, schema)
    return caught.value


# -- a good file ------------------------------------------------------------------------------------


def test_a_valid_artifact_is_validated_and_versioned(tmp_path: Path):
    artifact = load_artifact(write(tmp_path / "policy.json", POLICY), Policy)

    assert artifact.value == Policy.model_validate(POLICY)
    assert artifact.name == "policy.json"
    canonical = json.dumps(POLICY, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert artifact.content_hash == hashlib.sha256(canonical.encode()).hexdigest()
    assert artifact.human_version == "2026.11.1"
    assert artifact.version == f"2026.11.1+{artifact.content_hash[:HASH_CHARS]}"
    assert re.fullmatch(r"2026\.11\.1\+[0-9a-f]{12}", artifact.version)


def test_without_a_version_field_the_hash_alone_is_the_version(tmp_path: Path):
    document = {key: value for key, value in POLICY.items() if key != "version"}

    artifact = load_artifact(write(tmp_path / "policy.json", document), Policy)

    assert artifact.human_version is None
    assert artifact.version == artifact.content_hash[:HASH_CHARS]
    assert re.fullmatch(r"[0-9a-f]{12}", artifact.version)


def test_a_numeric_version_field_is_kept_as_text(tmp_path: Path):
    class Numbered(BaseModel):
        version: int
        thresholds: list[Threshold]

    artifact = load_artifact(write(tmp_path / "n.json", {**POLICY, "version": 7}), Numbered)

    assert artifact.version.startswith("7+")


def test_reformatting_keeps_the_hash(tmp_path: Path):
    compact = load_artifact(write(tmp_path / "a.json", POLICY, separators=(",", ":")), Policy)
    reordered = {
        "lexicon": POLICY["lexicon"],
        "thresholds": POLICY["thresholds"],
        "version": POLICY["version"],
    }
    # Other key order, indentation, and "\u4fbf" escapes instead of the characters themselves.
    pretty = load_artifact(write(tmp_path / "b.json", reordered, indent=4, ensure_ascii=True), Policy)

    assert (tmp_path / "a.json").read_bytes() != (tmp_path / "b.json").read_bytes()
    assert pretty.content_hash == compact.content_hash
    assert pretty.version == compact.version


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda d: d["thresholds"][1].update(limit=4), id="a-number"),
        pytest.param(lambda d: d["lexicon"]["spam"].append("free"), id="a-list-item"),
        pytest.param(lambda d: d["thresholds"].reverse(), id="list-order"),
        pytest.param(lambda d: d["lexicon"].update(abuse=[]), id="a-new-key"),
        pytest.param(lambda d: d.update(version="2026.11.2"), id="only-the-human-version"),
    ],
)
def test_any_change_of_content_changes_the_hash(tmp_path: Path, change: Any):
    before = load_artifact(write(tmp_path / "policy.json", POLICY), Policy)
    changed = json.loads(json.dumps(POLICY))
    change(changed)

    after = load_artifact(write(tmp_path / "policy.json", changed), Policy)

    assert after.content_hash != before.content_hash
    assert after.version != before.version


def test_the_same_human_version_with_other_content_is_still_told_apart(tmp_path: Path):
    """Designers forget to bump `version`; the hash part still says the words changed."""
    before = load_artifact(write(tmp_path / "p.json", POLICY), Policy)
    changed = {**POLICY, "thresholds": [{"name": "spam", "limit": 11}, POLICY["thresholds"][1]]}

    after = load_artifact(write(tmp_path / "p.json", changed), Policy)

    assert after.human_version == before.human_version == "2026.11.1"
    assert after.version != before.version


# -- a broken file ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("document", "json_path"),
    [
        pytest.param(
            {**POLICY, "thresholds": [{"name": "spam", "limit": 101}]}, "$.thresholds[0].limit", id="range"
        ),
        pytest.param(
            {**POLICY, "thresholds": [POLICY["thresholds"][0], {"name": "abuse"}]},
            "$.thresholds[1].limit",
            id="missing",
        ),
        pytest.param({**POLICY, "lexicon": {"spam": ["buy", 3]}}, "$.lexicon.spam[1]", id="dict-then-list"),
        pytest.param({**POLICY, "surprise": True}, "$.surprise", id="unknown-key"),
        pytest.param({"version": "1"}, "$.thresholds", id="top-level-missing"),
        pytest.param([POLICY], "$", id="not-an-object"),
    ],
)
def test_a_bad_value_names_the_file_and_its_json_path(tmp_path: Path, document: Any, json_path: str):
    path = write(tmp_path / "moderation-policy.json", document)

    error = load_error(path)

    assert error.path == path
    assert error.json_path == json_path
    assert str(error).startswith(f"{path}: {json_path}: ")
    assert error.problem


def test_a_file_that_is_not_json_names_the_file_and_the_line(tmp_path: Path):
    path = tmp_path / "policy.json"
    path.write_text('{\n  "version": "1",\n  "thresholds": [,]\n}\n', encoding="utf-8")

    error = load_error(path)

    assert (error.path, error.json_path) == (path, "$")
    assert "not JSON" in error.problem
    assert "line 3" in error.problem
    assert str(path) in str(error)


def test_a_missing_file_names_the_file(tmp_path: Path):
    path = tmp_path / "nowhere.json"

    error = load_error(path)

    assert (error.path, error.json_path) == (path, "$")
    assert "cannot read" in error.problem


def test_a_file_that_is_not_utf8_names_the_file(tmp_path: Path):
    path = tmp_path / "personas.json"
    path.write_bytes(PERSONAS_FILE.read_text(encoding="utf-8").encode("gbk"))
    with pytest.raises(ConfigError) as caught:
        load_artifact(path, Personas)
    assert (caught.value.path, caught.value.json_path) == (path, "$")
    assert "UTF-8" in str(caught.value)


def test_a_config_error_is_a_value_error():
    # Cold-start code that catches ValueError around config loading still sees it.
    assert issubclass(ConfigError, ValueError)


# -- a real artifact, broken deep inside ---------------------------------------------------------


def test_the_shipped_personas_file_loads_with_its_human_version():
    artifact = load_artifact(PERSONAS_FILE, Personas)
    human = json.loads(PERSONAS_FILE.read_text(encoding="utf-8"))["version"]

    assert artifact.version.startswith(f"{human}+")
    assert len(artifact.version) == len(human) + 1 + HASH_CHARS


@pytest.mark.parametrize(
    ("index", "field", "value", "json_path"),
    [
        (1, "display_name", "名" * 21, "$.personas[1].display_name"),
        (2, "version", 0, "$.personas[2].version"),
        (0, "avatar_asset_key", "Avatars/X.PNG", "$.personas[0].avatar_asset_key"),
    ],
)
def test_a_broken_copy_of_the_personas_file_points_at_the_persona_and_field(
    tmp_path: Path, index: int, field: str, value: Any, json_path: str
):
    document = json.loads(PERSONAS_FILE.read_text(encoding="utf-8"))
    document["personas"][index][field] = value
    path = write(tmp_path / "personas.json", document, indent=2)

    error = load_error(path, Personas)

    assert (error.path, error.json_path) == (path, json_path)


def test_a_broken_artifact_fails_the_cold_start_naming_the_file_and_path(tmp_path: Path):
    """The handler validates its config at init: a broken file stops the import, not a request."""
    function = functions()["InterceptSessionFunction"]
    code_uri = tmp_path / "code"
    shutil.copytree(function.code_uri, code_uri, ignore=shutil.ignore_patterns("__pycache__"))
    personas_file = code_uri / PERSONAS_FILE.relative_to(function.code_uri)
    document = json.loads(personas_file.read_text(encoding="utf-8"))
    document["personas"][2]["templates"]["deny"] = 42
    personas_file.write_text(json.dumps(document, ensure_ascii=False, indent=2), encoding="utf-8")

    result = run_python(f"import {function.module}", env=lambda_env(function, code_uri=code_uri))

    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(
        f"persona_rails.config.ConfigError: {personas_file}: $.personas[2].templates.deny: "
    )
