"""SSM GetParameters over HTTPS, signed with the function's role: one round trip for every secret.

Lambda puts the role's credentials and the region in the environment; this reads them there and
nowhere else (no profiles, no instance metadata), which is all a function needs. The endpoint is
SSM's regional one unless AWS_ENDPOINT_URL_SSM or AWS_ENDPOINT_URL names another, as in the AWS
SDKs: tests point it at a moto server. Throttling, 5xx answers and dropped connections are
retried twice with jittered backoff, like botocore's standard mode, within the Lambda's init.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from http.client import HTTPConnection, HTTPException, HTTPSConnection
from typing import Any
from urllib.parse import urlsplit

from persona_rails.sigv4 import Credentials, sign_post

ENDPOINT_VARIABLES = ("AWS_ENDPOINT_URL_SSM", "AWS_ENDPOINT_URL")
REGION_VARIABLES = ("AWS_REGION", "AWS_DEFAULT_REGION")
TIMEOUT_SECONDS = 3.0
ATTEMPTS = 3
# GetParameters takes at most 10 names per call.
MAX_NAMES = 10
_RETRYABLE_ERRORS = ("ThrottlingException", "InternalServerError", "ServiceUnavailable")


class SsmError(RuntimeError):
    """SSM refused or failed the call; the message has SSM's error code and text, never a value."""

    def __init__(self, message: str, *, code: str = "", retryable: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.retryable = retryable


def region(environ: Mapping[str, str]) -> str:
    for variable in REGION_VARIABLES:
        if environ.get(variable):
            return environ[variable]
    raise SsmError("no AWS region in the environment (AWS_REGION, which Lambda sets)")


def credentials(environ: Mapping[str, str]) -> Credentials:
    key, secret = environ.get("AWS_ACCESS_KEY_ID"), environ.get("AWS_SECRET_ACCESS_KEY")
    if not (key and secret):
        raise SsmError(
            "no AWS credentials in the environment (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
            "which Lambda sets from the function's role); outside Lambda set the secret's own variable"
        )
    return Credentials(key, secret, environ.get("AWS_SESSION_TOKEN") or None)


def endpoint(environ: Mapping[str, str], region_name: str) -> str:
    for variable in ENDPOINT_VARIABLES:
        if environ.get(variable):
            return environ[variable]
    suffix = "amazonaws.com.cn" if region_name.startswith("cn-") else "amazonaws.com"
    return f"https://ssm.{region_name}.{suffix}"


def _connection(url: str) -> tuple[HTTPConnection, str]:
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise SsmError(f"the SSM endpoint {url!r} is not an http(s) URL")
    if parts.scheme == "http":
        return HTTPConnection(parts.hostname, parts.port, timeout=TIMEOUT_SECONDS), parts.netloc
    import ssl

    try:
        import certifi  # the layer ships it for httpx; Lambda's own CA store would do too

        context = ssl.create_default_context(cafile=certifi.where())
    except ImportError:
        context = ssl.create_default_context()
    return HTTPSConnection(parts.hostname, parts.port, timeout=TIMEOUT_SECONDS, context=context), parts.netloc


def _call_once(url: str, body: bytes, region_name: str, creds: Credentials) -> dict[str, Any]:
    connection, host = _connection(url)
    headers = sign_post(
        host=host,
        headers={"Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": "AmazonSSM.GetParameters"},
        body=body,
        region=region_name,
        service="ssm",
        credentials=creds,
        now=datetime.now(UTC),
    )
    try:
        connection.request("POST", "/", body=body, headers=headers)
        response = connection.getresponse()
        status, payload = response.status, response.read()
    except (OSError, HTTPException) as exc:
        raise SsmError(f"SSM at {host} could not be reached: {exc}", retryable=True) from None
    finally:
        connection.close()
    try:
        answer = json.loads(payload or b"{}")
    except ValueError:
        answer = {}
    if status == 200 and isinstance(answer, dict):
        return answer
    code = str(answer.get("__type", "")).rpartition("#")[2] if isinstance(answer, dict) else ""
    message = answer.get("message") or answer.get("Message") if isinstance(answer, dict) else None
    raise SsmError(
        f"SSM answered HTTP {status} {code or 'without an error code'}: {message or ''}".rstrip(": "),
        code=code,
        retryable=status >= 500 or code in _RETRYABLE_ERRORS,
    )


def get_parameters(
    names: Sequence[str], environ: Mapping[str, str] | None = None
) -> tuple[dict[str, str], list[str]]:
    """The decrypted values of `names` by name, and the names SSM does not have."""
    environ = os.environ if environ is None else environ
    region_name = region(environ)
    creds = credentials(environ)
    url = endpoint(environ, region_name)
    values: dict[str, str] = {}
    missing: list[str] = []
    unique = list(dict.fromkeys(names))
    for start in range(0, len(unique), MAX_NAMES):
        body = json.dumps({"Names": unique[start : start + MAX_NAMES], "WithDecryption": True}).encode()
        answer = _with_retries(url, body, region_name, creds)
        values.update({item["Name"]: item["Value"] for item in answer.get("Parameters", [])})
        missing.extend(answer.get("InvalidParameters", []))
    return values, missing


def _with_retries(url: str, body: bytes, region_name: str, creds: Credentials) -> dict[str, Any]:
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return _call_once(url, body, region_name, creds)
        except SsmError as exc:
            if not exc.retryable or attempt == ATTEMPTS:
                raise
            # Full jitter, as botocore: many cold starts at once must not retry in step.
            time.sleep(random.uniform(0, 0.1 * 2**attempt))  # noqa: S311 - backoff, not cryptography
    raise AssertionError("unreachable")
