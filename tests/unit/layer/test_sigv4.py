"""persona_rails.sigv4 signs exactly as botocore's SigV4Auth does: botocore is the oracle."""

from __future__ import annotations

from datetime import UTC, datetime

import botocore.auth
import pytest
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials as BotoCredentials

from persona_rails.sigv4 import Credentials, sign_post

NOW = datetime(2026, 11, 23, 9, 41, 7, tzinfo=UTC)


def botocore_headers(
    monkeypatch: pytest.MonkeyPatch,
    url: str,
    headers: dict[str, str],
    body: bytes,
    region: str,
    creds: Credentials,
) -> dict[str, str]:
    monkeypatch.setattr(botocore.auth, "get_current_datetime", lambda: NOW.replace(tzinfo=None))
    request = AWSRequest(method="POST", url=url, data=body, headers=headers)
    botocore.auth.SigV4Auth(
        BotoCredentials(creds.access_key_id, creds.secret_access_key, creds.session_token), "ssm", region
    ).add_auth(request)
    return dict(request.headers.items())


@pytest.mark.parametrize(
    ("host", "region", "token", "body"),
    [
        (
            "ssm.eu-central-1.amazonaws.com",
            "eu-central-1",
            "FwoGZXIvYXdzEJr//session+token/==",
            b'{"Names": ["/a"]}',
        ),
        (
            "ssm.us-east-1.amazonaws.com",
            "us-east-1",
            None,
            b'{"Names": ["/x/y", "/x/z"], "WithDecryption": true}',
        ),
        ("ssm.cn-north-1.amazonaws.com.cn", "cn-north-1", "t", '{"Names": ["/路径"]}'.encode()),
        ("127.0.0.1:54321", "eu-west-3", "token", b""),
    ],
)
def test_the_signature_is_botocores(monkeypatch, host, region, token, body):
    creds = Credentials("ASIAEXAMPLEKEY123456", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", token)
    headers = {"Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": "AmazonSSM.GetParameters"}
    ours = sign_post(
        host=host, headers=headers, body=body, region=region, service="ssm", credentials=creds, now=NOW
    )
    scheme = "http" if host.startswith("127.") else "https"
    theirs = botocore_headers(monkeypatch, f"{scheme}://{host}/", headers, body, region, creds)
    assert ours["Authorization"] == theirs["Authorization"]
    assert ours["X-Amz-Date"] == theirs["X-Amz-Date"] == "20261123T094107Z"
    assert ours.get("X-Amz-Security-Token") == theirs.get("X-Amz-Security-Token") == token


def test_headers_proxies_rewrite_are_left_unsigned_and_values_are_trimmed(monkeypatch):
    creds = Credentials("AKIDEXAMPLE", "secret")
    headers = {
        "X-Amz-Target": "  AmazonSSM.GetParameters  ",
        "User-Agent": "persona-rails",
        "X-Custom": "a   b",
    }
    ours = sign_post(
        host="ssm.eu-central-1.amazonaws.com",
        headers=headers,
        body=b"{}",
        region="eu-central-1",
        service="ssm",
        credentials=creds,
        now=NOW,
    )
    theirs = botocore_headers(
        monkeypatch, "https://ssm.eu-central-1.amazonaws.com/", headers, b"{}", "eu-central-1", creds
    )
    assert "user-agent" not in ours["Authorization"]
    assert ours["Authorization"] == theirs["Authorization"]


def test_a_different_secret_key_gives_a_different_signature():
    kwargs = dict(host="h", headers={}, body=b"{}", region="eu-central-1", service="ssm", now=NOW)
    first = sign_post(credentials=Credentials("AKID", "one"), **kwargs)  # type: ignore[arg-type]
    second = sign_post(credentials=Credentials("AKID", "two"), **kwargs)  # type: ignore[arg-type]
    assert first["Authorization"] != second["Authorization"]
