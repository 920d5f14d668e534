"""AWS Signature Version 4 for one JSON-protocol request, with the standard library only.

botocore signs the same way, but importing it and building a client costs ~175 ms of a cold start
(bench/cold_start_packaged.py), more than the rest of a function's init. The algorithm is AWS's
published one; tests/unit/layer/test_sigv4.py checks every signature against botocore's SigV4Auth.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime

ALGORITHM = "AWS4-HMAC-SHA256"
# botocore leaves these out of the signature because proxies may rewrite them.
_UNSIGNED = frozenset(
    {"user-agent", "expect", "connection", "x-amzn-trace-id", "baggage", "transfer-encoding"}
)


@dataclass(frozen=True)
class Credentials:
    access_key_id: str
    secret_access_key: str
    session_token: str | None = None


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def signing_key(secret_access_key: str, date: str, region: str, service: str) -> bytes:
    key = _hmac(f"AWS4{secret_access_key}".encode(), date)
    for part in (region, service, "aws4_request"):
        key = _hmac(key, part)
    return key


def sign_post(
    *,
    host: str,
    headers: dict[str, str],
    body: bytes,
    region: str,
    service: str,
    credentials: Credentials,
    now: datetime,
) -> dict[str, str]:
    """`headers` plus Host, X-Amz-Date, the session token and Authorization for a POST to `/`."""
    amz_date = now.strftime("%Y%m%dT%H%M%SZ")
    signed = {**headers, "Host": host, "X-Amz-Date": amz_date}
    if credentials.session_token:
        signed["X-Amz-Security-Token"] = credentials.session_token
    canonical = {
        name.lower(): " ".join(value.split())
        for name, value in signed.items()
        if name.lower() not in _UNSIGNED
    }
    names = ";".join(sorted(canonical))
    canonical_request = "\n".join(
        [
            "POST",
            "/",
            "",
            *(f"{name}:{canonical[name]}" for name in sorted(canonical)),
            "",
            names,
            hashlib.sha256(body).hexdigest(),
        ]
    )
    scope = f"{amz_date[:8]}/{region}/{service}/aws4_request"
    string_to_sign = "\n".join(
        [ALGORITHM, amz_date, scope, hashlib.sha256(canonical_request.encode()).hexdigest()]
    )
    key = signing_key(credentials.secret_access_key, amz_date[:8], region, service)
    signature = hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()
    credential = f"{credentials.access_key_id}/{scope}"
    signed["Authorization"] = (
        f"{ALGORITHM} Credential={credential}, SignedHeaders={names}, Signature={signature}"
    )
    return signed
