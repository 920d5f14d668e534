"""A function added to template.yaml alone is served, invokable and covered by the infra tests, and
runs isolated as in Lambda: only its CodeUri and the layer importable, only its own environment.

The test adds a tiny probe function to a temporary copy of the template, next to the real ones.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
import yaml

from persona_rails_dev.cli import main as rails
from persona_rails_dev.server import make_server, serve_in_background, worker_api
from persona_rails_dev.template import REPO_ROOT, TEMPLATE_VARIABLE, functions

PROBE_HANDLER = """
import importlib.util, json, os, sys

from persona_rails.observability import logger

def lambda_handler(event, context):
    return {
        "statusCode": 200,
        "headers": {"content-type": "application/json"},
        "body": json.dumps({
            "service": logger.service,
            "env": sorted(os.environ),
            "sys_path": sys.path,
            "other_functions_importable": [
                name for name in ("intercept_session", "weekly_summary") if importlib.util.find_spec(name)
            ],
            "function_name": context.function_name,
        }),
    }
"""

PROBE_RESOURCE = {
    "Type": "AWS::Serverless::Function",
    "Properties": {
        "CodeUri": "functions/tiny_probe/",
        "Handler": "tiny_probe.handler.lambda_handler",
        "Environment": {"Variables": {"POWERTOOLS_SERVICE_NAME": "tiny-probe", "TINY_ONLY": "yes"}},
        "Events": {
            "Probe": {
                "Type": "HttpApi",
                "Properties": {"ApiId": {"Ref": "HttpApi"}, "Method": "GET", "Path": "/tiny-probe"},
            }
        },
    },
}


class _CfnDumper(yaml.SafeDumper):
    pass


def _dump_intrinsic(dumper: yaml.SafeDumper, data: dict) -> yaml.Node:
    # Write {"Ref": x} back as !Ref x (and Fn::If as !If ...), so SAM-style short forms survive the copy.
    ((name, value),) = data.items()
    tag = "!Ref" if name == "Ref" else "!" + name.removeprefix("Fn::")
    if isinstance(value, list):
        return dumper.represent_sequence(tag, value)
    if isinstance(value, dict):
        return dumper.represent_mapping(tag, value)
    return dumper.represent_scalar(tag, value)


def _represent_dict(dumper: yaml.SafeDumper, data: dict) -> yaml.Node:
    if len(data) == 1 and (next(iter(data)) == "Ref" or str(next(iter(data))).startswith("Fn::")):
        return _dump_intrinsic(dumper, data)
    return dumper.represent_dict(data)


_CfnDumper.add_representer(dict, _represent_dict)


@pytest.fixture
def template_with_probe(tmp_path, monkeypatch) -> Path:
    from persona_rails_dev.template import load_template

    document = copy.deepcopy(load_template(REPO_ROOT / "template.yaml"))
    document["Resources"]["TinyProbeFunction"] = PROBE_RESOURCE
    (tmp_path / "shared").symlink_to(REPO_ROOT / "shared")
    (tmp_path / "functions").mkdir()
    # Two functions may share a folder (a function and its scheduled housekeeping).
    for code_uri in {function.code_uri for function in functions(REPO_ROOT / "template.yaml").values()}:
        (tmp_path / "functions" / code_uri.name).symlink_to(code_uri)
    package = tmp_path / "functions" / "tiny_probe" / "tiny_probe"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "handler.py").write_text(PROBE_HANDLER)
    path = tmp_path / "template.yaml"
    path.write_text(yaml.dump(document, Dumper=_CfnDumper, allow_unicode=True, sort_keys=False))
    monkeypatch.setenv(TEMPLATE_VARIABLE, str(path))
    return path


def _probe_event() -> dict:
    return {
        "version": "2.0",
        "routeKey": "GET /tiny-probe",
        "rawPath": "/tiny-probe",
        "rawQueryString": "",
        "headers": {"host": "localhost"},
        "requestContext": {
            "http": {"method": "GET", "path": "/tiny-probe", "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1"},
            "routeKey": "GET /tiny-probe",
            "stage": "$default",
        },
        "isBase64Encoded": False,
    }


def _assert_isolated(probe: dict, template: Path) -> None:
    assert probe["service"] == "tiny-probe"
    assert probe["function_name"] == "TinyProbeFunction"
    assert "TINY_ONLY" in probe["env"]
    # WeeklySummaryFunction's own variables never reach another function.
    assert not [name for name in probe["env"] if name.startswith("PERSONA_RAILS_WEEKLY")]
    assert probe["other_functions_importable"] == []
    assert str(template.parent / "functions" / "tiny_probe") in probe["sys_path"]
    assert not [path for path in probe["sys_path"] if "intercept_session" in path or "weekly_summary" in path]


def test_a_function_added_to_the_template_is_served_in_its_own_sandbox(template_with_probe, database_url):
    declared = functions()
    assert {"TinyProbeFunction", "InterceptSessionFunction"} <= set(declared)
    api, pools = worker_api(declared.values())
    server = make_server(api, port=0)
    serve_in_background(server)
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        with urllib.request.urlopen(f"{base}/tiny-probe", timeout=60) as response:  # noqa: S310
            probe = json.loads(response.read())
        # The real functions are served beside it, from the same copy of the template.
        request = urllib.request.Request(f"{base}/intercept-session", data=b"{}", method="POST")  # noqa: S310
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=60)  # noqa: S310
    finally:
        server.shutdown()
        for pool in pools:
            pool.close()
    _assert_isolated(probe, template_with_probe)
    assert refused.value.code == 401


def test_a_function_added_to_the_template_is_invokable(template_with_probe, database_url, tmp_path, capsys):
    event = tmp_path / "probe.json"
    event.write_text(json.dumps(_probe_event()))
    assert rails(["invoke", "TinyProbeFunction", "-e", str(event)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["statusCode"] == 200
    _assert_isolated(json.loads(result["body"]), template_with_probe)


def test_a_function_added_to_the_template_is_covered_by_the_infra_tests(template_with_probe):
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "tests/infra/test_template.py",
            "-k",
            "TinyProbeFunction",
            "-v",
            "-p",
            "no:cacheprovider",
        ],
        cwd=REPO_ROOT,
        env={**os.environ, TEMPLATE_VARIABLE: str(template_with_probe)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout[-3000:]
    passed = [
        line for line in completed.stdout.splitlines() if "TinyProbeFunction" in line and "PASSED" in line
    ]
    assert passed, completed.stdout[-3000:]
