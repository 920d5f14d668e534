"""samconfig.toml keeps the non-secret deploy answers for dev and prod: every override names a
parameter template.yaml declares, the required ones are answered, and no value is a secret (a
*Parameter value is the name of an SSM SecureString, never its content)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from persona_rails_dev.template import load_template

SAMCONFIG = Path(__file__).resolve().parents[2] / "samconfig.toml"
STAGES = ("dev", "prod", "local")


# SAM CLI's own pattern for one override (samcli/cli/types.py, CfnParameterOverridesType): a
# value must follow the `=`, so `Name=` stops every `sam deploy --config-env` before it starts.
SAM_OVERRIDE = re.compile(r"^[A-Za-z0-9]+=.+$")


def _parameters(stage: str, command: str) -> dict[str, Any]:
    """What `sam <command> --config-env <stage>` reads: the stage's `global` section, overridden
    by the command's own (samcli/lib/config/samconfig.py, `SamConfig.get_all`)."""
    config = tomllib.loads(SAMCONFIG.read_text(encoding="utf-8"))[stage]
    return {**config.get("global", {}).get("parameters", {}), **config.get(command, {}).get("parameters", {})}


def _pairs(stage: str, command: str = "deploy") -> list[str]:
    pairs: list[str] = _parameters(stage, command)["parameter_overrides"]
    return pairs


@pytest.mark.parametrize("stage", STAGES)
def test_every_override_is_one_sam_accepts(stage):
    assert [pair for pair in _pairs(stage) if not SAM_OVERRIDE.match(pair)] == []


def _overrides(stage: str) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in _pairs(stage))


@pytest.mark.parametrize("stage", STAGES)
def test_every_override_is_a_template_parameter_and_the_required_ones_are_answered(stage):
    declared = load_template()["Parameters"]
    overrides = _overrides(stage)
    assert set(overrides) <= set(declared), set(overrides) - set(declared)
    required = {name for name, spec in declared.items() if "Default" not in spec}
    assert required <= set(overrides), required - set(overrides)


@pytest.mark.parametrize("stage", STAGES)
def test_secret_parameters_hold_names_of_the_stages_own_securestrings(stage):
    for name, value in _overrides(stage).items():
        if name.endswith("Parameter") and value:
            assert value.startswith(f"/persona-rails/{stage}/"), (name, value)


def test_the_stages_are_separate_stacks():
    names = {_parameters(stage, "deploy")["stack_name"] for stage in STAGES}
    assert len(names) == len(STAGES)


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("command", ["local_invoke", "local_start_api", "build"])
def test_sam_local_and_build_run_with_the_stages_deploy_parameters(stage, command):
    """`sam local invoke --config-env dev` must name the same SecureStrings, in the same region, as
    the deploy: its functions read them from SSM with the developer's own credentials."""
    for key in ("parameter_overrides", "region", "stack_name"):
        assert _parameters(stage, command)[key] == _parameters(stage, "deploy")[key], key


@pytest.mark.parametrize("stage", STAGES)
def test_no_stage_ships_a_placeholder_address(stage):
    assert not [pair for pair in _pairs(stage) if "example." in pair]


def test_make_deploy_ships_what_make_package_built_to_the_chosen_stage_and_region():
    import subprocess

    planned = subprocess.run(
        ["make", "-n", "-C", str(SAMCONFIG.parent), "deploy", "STAGE=prod", "AWS_REGION=eu-west-1"],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "MAKEFLAGS": ""},
    ).stdout
    package, deploy = planned.find("persona_rails_dev.package"), planned.find("sam deploy")
    assert 0 <= package < deploy, planned
    command = " ".join(planned[deploy:].replace("\\\n", " ").split())
    assert "--template-file .build/template.yaml" in command
    assert f'--config-file "{SAMCONFIG}"' in command
    assert "--config-env prod --region eu-west-1" in command
