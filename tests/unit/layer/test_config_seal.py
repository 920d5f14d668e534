"""persona_rails.config_seal: a config folder verified at build time, and what init does with it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from persona_rails import config_seal
from persona_rails.config import ConfigError
from persona_rails_dev.package import seal_config

ROOT = Path(__file__).resolve().parents[3]


def folder(tmp_path: Path) -> Path:
    directory = tmp_path / "config"
    (directory / "sub").mkdir(parents=True)
    (directory / "a.json").write_text('{"a": 1}', encoding="utf-8")
    (directory / "sub" / "b.json").write_text('{"b": 2}', encoding="utf-8")
    return directory


def test_a_folder_is_sealed_only_as_it_was_when_verified(tmp_path):
    directory = folder(tmp_path)
    assert not config_seal.sealed(directory)  # never verified
    config_seal.write_seal(directory, "test")
    assert config_seal.sealed(directory)
    (directory / "sub" / "b.json").write_text('{"b": 3}', encoding="utf-8")
    assert not config_seal.sealed(directory)


@pytest.mark.parametrize(
    "change",
    [
        lambda d: (d / "c.json").write_text("{}", encoding="utf-8"),  # a file added
        lambda d: (d / "a.json").unlink(),  # a file removed
        lambda d: (d / "a.json").rename(d / "z.json"),  # a file renamed
        lambda d: (d / config_seal.SEAL_NAME).write_text("not json", encoding="utf-8"),
        lambda d: (d / config_seal.SEAL_NAME).write_text('{"sha256": 1}', encoding="utf-8"),
    ],
)
def test_any_change_or_a_damaged_seal_means_not_sealed(tmp_path, change):
    directory = folder(tmp_path)
    config_seal.write_seal(directory, "test")
    change(directory)
    assert not config_seal.sealed(directory)


def test_the_digest_ignores_the_seal_and_names_files_by_their_relative_path(tmp_path):
    first = folder(tmp_path / "one")
    second = folder(tmp_path / "two")
    assert config_seal.digest(first) == config_seal.digest(second)
    config_seal.write_seal(first, "test")
    assert config_seal.digest(first) == config_seal.digest(second)
    assert json.loads((first / config_seal.SEAL_NAME).read_text())["verified_by"] == "test"


# -- the functions that use it: sealed by the build, checked in full otherwise ---------------------------


@pytest.fixture(params=["sps_encounter", "interview_turn"])
def built(request, tmp_path) -> tuple[str, Path]:
    """A function's code as `make package` copies it, sealed by the build's step."""
    package = request.param
    copy = tmp_path / package
    shutil.copytree(ROOT / "functions" / package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert seal_config(package, copy) == copy / package / "config" / config_seal.SEAL_NAME
    return package, copy / package / "config"


def _load_config(package: str):
    if package == "sps_encounter":
        from sps_encounter.artifacts import load_config
    else:
        from interview_turn.artifacts import load_config
    return load_config


def test_a_sealed_config_loads_to_the_same_config_as_a_full_check(built):
    package, config_dir = built
    load_config = _load_config(package)
    assert config_seal.sealed(config_dir)
    assert load_config(config_dir).version == load_config(config_dir, sealed=False).version


def _break_a_pattern(package: str, config_dir: Path) -> tuple[Path, str]:
    """An invalid regular expression in a pattern list: what only the expensive check catches."""
    if package == "sps_encounter":
        path = next((config_dir / "scenarios").glob("*.json"))
        document = json.loads(path.read_text(encoding="utf-8"))
        document["subjective_catalog"][0]["patterns"][0] = "(unclosed"
        where = "subjective_catalog[0].patterns[0]"
    else:
        path = config_dir / "signal-lexicon.json"
        document = json.loads(path.read_text(encoding="utf-8"))
        first_list = next(key for key, value in document.items() if isinstance(value, list) and value)
        document[first_list][0] = "(unclosed"
        where = first_list
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path, where


def test_a_config_edited_after_the_build_is_checked_in_full_and_fails(built):
    package, config_dir = built
    path, where = _break_a_pattern(package, config_dir)
    assert not config_seal.sealed(config_dir)
    with pytest.raises(ConfigError) as raised:
        _load_config(package)(config_dir)
    assert raised.value.path == path
    assert where in str(raised.value)
    assert "not a valid regular expression" in str(raised.value)


def test_a_sealed_config_compiles_no_pattern_at_load(built):
    """What the seal buys at init: told the folder is sealed (as init is when its digest matches),
    the loader compiles none of the artifacts' patterns, so even a broken one loads. The seal's
    digest is what keeps a broken one from ever being told so (the test above)."""
    package, config_dir = built
    _break_a_pattern(package, config_dir)
    _load_config(package)(config_dir, sealed=True)
    with pytest.raises(ConfigError, match="not a valid regular expression"):
        _load_config(package)(config_dir, sealed=False)


def test_a_sealed_sps_catalog_case_skips_the_lint_the_build_ran_and_an_inline_one_does_not(
    tmp_path, monkeypatch
):
    copy = tmp_path / "sps_encounter"
    shutil.copytree(ROOT / "functions" / "sps_encounter", copy, ignore=shutil.ignore_patterns("__pycache__"))
    seal_config("sps_encounter", copy)
    from sps_encounter import artifacts
    from sps_encounter.engine import lint

    linted = []
    monkeypatch.setattr(lint, "check", lambda case: linted.append(case.scenario.id))
    config = artifacts.load_config(copy / "sps_encounter" / "config")
    assert config.sealed
    scenario = next(iter(config.scenarios.values()))
    persona = config.personas[scenario.value.default_persona]
    artifacts._CASES.clear()
    artifacts.case_of(config, scenario, persona)
    assert linted == []
    # The same documents, not the catalog's own objects: an inline scenario is linted.
    inline = artifacts.Versioned(scenario.value, scenario.content_hash + "-inline", scenario.document)
    artifacts.case_of(config, inline, persona)
    assert linted == [scenario.value.id]
    artifacts._CASES.clear()


def test_the_build_refuses_to_seal_a_broken_config(tmp_path):
    copy = tmp_path / "sps_encounter"
    shutil.copytree(ROOT / "functions" / "sps_encounter", copy, ignore=shutil.ignore_patterns("__pycache__"))
    _break_a_pattern("sps_encounter", copy / "sps_encounter" / "config")
    with pytest.raises(SystemExit, match="its config fails its own check"):
        seal_config("sps_encounter", copy)
    assert not (copy / "sps_encounter" / "config" / config_seal.SEAL_NAME).exists()


def test_functions_without_a_sealable_config_are_left_alone(tmp_path):
    copy = tmp_path / "intercept_session"
    shutil.copytree(
        ROOT / "functions" / "intercept_session", copy, ignore=shutil.ignore_patterns("__pycache__")
    )
    assert seal_config("intercept_session", copy) is None
    assert not list(copy.rglob(config_seal.SEAL_NAME))
