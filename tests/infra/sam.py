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


def transformed(document: dict[str, Any] | None = None) -> dict[str, Any]:
    """What `AWS::Serverless-2016-10-31` turns the template into (CodeUri as after `sam package`)."""
    import boto3
    from samtranslator.parser.parser import Parser
    from samtranslator.translator.translator import Translator

    document = copy.deepcopy(document if document is not None else sam_document())
    for resource in document["Resources"].values():
        for key in ("CodeUri", "ContentUri"):
            if key in resource.get("Properties", {}):
                resource["Properties"][key] = "s3://artifacts/persona-rails.zip"
    parameters = {
        name: spec.get("Default", "/persona-rails/dev/value")
        for name, spec in document.get("Parameters", {}).items()
    }
    # The translator asks IAM for managed policy ARNs only when a policy is named by its name.
    translator = Translator({}, Parser(), boto_session=boto3.session.Session(region_name=REGION))
    result: dict[str, Any] = translator.translate(
        document, parameter_values={**parameters, **DEPLOY_PARAMETERS}
    )
    return result


def cfn_lint(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CFN_LINT), "--format", "parseable", str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def write_json(document: dict[str, Any], path: Path) -> Path:
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    return path
