"""The template as CloudFormation receives it: SAM's own translator, and cfn-lint run on both forms."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from persona_rails_dev.template import template_path

CFN_LINT = Path(sys.executable).parent / "cfn-lint"
# The transform needs a value for every parameter without a default, and a region. CloudFormation
# hands it no stack name, so `${AWS::StackName}` stays for CloudFormation to fill in.
REGION = "eu-central-1"
DEPLOY_PARAMETERS = {"AWS::Region": REGION, "AWS::AccountId": "123456789012"}


def sam_document() -> dict[str, Any]:
    """template.yaml in the JSON shape CloudFormation hands to the transform (`!GetAtt A.B` → a list)."""
    from cfnlint.decode import decode

    document, problems = decode(template_path())
    assert not problems, problems
    plain: dict[str, Any] = json.loads(json.dumps(document))
    return plain


def stack_parameters(document: dict[str, Any], overrides: dict[str, str] | None = None) -> dict[str, str]:
    """A value for every parameter: its default, or a placeholder SSM name, then the overrides."""
    values = {
        name: str(spec.get("Default", "/persona-rails/dev/value"))
        for name, spec in document.get("Parameters", {}).items()
    }
    unknown = set(overrides or {}) - set(values)
    assert not unknown, f"no such parameters: {sorted(unknown)}"
    return {**values, **(overrides or {})}


_NO_VALUE = {"Ref": "AWS::NoValue"}
_DROPPED = object()


def evaluate(expression: Any, parameters: dict[str, str], conditions: dict[str, Any] | None = None) -> Any:
    """A condition, a rule's assertion, or a value built from parameters, as CloudFormation
    evaluates them (the functions this template uses there)."""
    if not isinstance(expression, dict):
        return expression
    ((function, argument),) = expression.items()

    def value(item: Any) -> Any:
        return evaluate(item, parameters, conditions)

    if function == "Ref":
        return parameters[argument]
    if function == "Condition":
        assert conditions is not None, "a Condition needs the template's Conditions"
        return value(conditions[argument])
    if function == "Fn::Equals":
        left, right = (value(side) for side in argument)
        return str(left) == str(right)
    if function == "Fn::Not":
        return not value(argument[0])
    if function == "Fn::And":
        return all(value(item) for item in argument)
    if function == "Fn::Or":
        return any(value(item) for item in argument)
    if function == "Fn::Split":
        separator, text = argument
        return value(text).split(separator)
    if function == "Fn::Select":
        index, items = argument
        return value(items)[index]
    raise AssertionError(f"unexpected function {function}")


def _resolve_ifs(node: Any, parameters: dict[str, str], conditions: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if set(node) == {"Fn::If"}:
            condition, if_true, if_false = node["Fn::If"]
            chosen = if_true if evaluate({"Condition": condition}, parameters, conditions) else if_false
            return _DROPPED if chosen == _NO_VALUE else _resolve_ifs(chosen, parameters, conditions)
        resolved = {key: _resolve_ifs(value, parameters, conditions) for key, value in node.items()}
        return {key: value for key, value in resolved.items() if value is not _DROPPED}
    if isinstance(node, list):
        items = (_resolve_ifs(item, parameters, conditions) for item in node)
        return [item for item in items if item is not _DROPPED]
    return node


def language_extensions(document: dict[str, Any], parameters: dict[str, str]) -> dict[str, Any]:
    """What `AWS::LanguageExtensions` hands the SAM transform, for this template: every `Fn::If`
    under Resources replaced by the branch the stack's parameters choose (`AWS::NoValue` drops
    the key), as the SAM CLI's own port of the transform does; that port also resolves `Ref`,
    `Sub`, `Select` and `Split`, which SAM's translator handles as well here. Globals and
    Conditions are left as they are. The template uses the transform for nothing else."""
    document = copy.deepcopy(document)
    conditions = document.get("Conditions", {})
    document["Resources"] = _resolve_ifs(document["Resources"], parameters, conditions)
    transforms = [name for name in document["Transform"] if name != "AWS::LanguageExtensions"]
    document["Transform"] = transforms[0] if len(transforms) == 1 else transforms
    return document


def transformed(
    document: dict[str, Any] | None = None, parameters: dict[str, str] | None = None
) -> dict[str, Any]:
    """What the template's transforms turn it into (CodeUri as after `sam package`), for a stack
    with these parameter overrides."""
    import boto3
    from samtranslator.parser.parser import Parser
    from samtranslator.translator.translator import Translator

    document = document if document is not None else sam_document()
    values = stack_parameters(document, parameters)
    document = language_extensions(document, values)
    for resource in document["Resources"].values():
        for key in ("CodeUri", "ContentUri"):
            if key in resource.get("Properties", {}):
                resource["Properties"][key] = "s3://artifacts/persona-rails.zip"
    # The translator asks IAM for managed policy ARNs only when a policy is named by its name.
    translator = Translator({}, Parser(), boto_session=boto3.session.Session(region_name=REGION))
    result: dict[str, Any] = translator.translate(document, parameter_values={**values, **DEPLOY_PARAMETERS})
    return result


def cfn_lint(path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CFN_LINT), "--format", "parseable", *options, str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def write_json(document: dict[str, Any], path: Path) -> Path:
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    return path
