"""What the validator's tests share: `validate` (the result checked against its schema and its
buckets against their severities), its issues as (severity, code, turnIndex), and meta as this
runtime records it."""

from __future__ import annotations

from sps_encounter.engine.validator import validate_transcript
from tests.unit.sps_encounter.support import catalog_case, load_schema, schema_errors

RESULT_SCHEMA = load_schema("validation-result.schema.json")
ZH = ("abdominal-pain-zh", "zh-anxious-balanced")
SEVERITY_BUCKET = {"ERROR": "errors", "WARN": "warnings", "INFO": "info"}


def runtime(meta):
    """Meta as this runtime records it: the validator reads meta only when it is recognisably
    this runtime's (a `kind` of its own, `rng` and `layers` lists)."""
    return {"kind": "answer", "rng": [], "layers": [], **meta}


def validate(turns, case=None):
    result = validate_transcript(turns, case or catalog_case())
    assert schema_errors(RESULT_SCHEMA, result) == []
    for bucket, severity in (("errors", "ERROR"), ("warnings", "WARN"), ("info", "INFO")):
        assert all(issue["severity"] == severity for issue in result[bucket])
    return result


def issues(result):
    return [
        (issue["severity"], issue["code"], issue["turnIndex"])
        for bucket in ("errors", "warnings", "info")
        for issue in result[bucket]
    ]


def codes(result):
    return [code for _, code, _ in issues(result)]


def zh_case():
    return catalog_case(*ZH)
