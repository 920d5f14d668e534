"""State that travels with the client, signed so it cannot be forged, replayed elsewhere or kept.

Some state belongs to a conversation but not to a table: a cursor, a budget, a step counter
that the next request brings back. It travels as a compact token:

    base64url(header).base64url(body).base64url(HMAC-SHA256(header.body))

The header names the key id (`kid`); the body holds the data, an audience (which function and
route it is for) and an expiry. Key rotation: `PERSONA_RAILS_STATE_KEYS` lists `kid=secret`
pairs, newest first; the newest signs, every listed key verifies, so a new key can be added
before the old one is dropped. Tampered, expired, foreign or unknown-key state raises `Invalid`
(a 4xx at the edge), naming the field the client sent it in.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from typing import Any

from persona_rails.errors import Invalid

_VERSION = 1
MIN_SECRET_BYTES = 32


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class StateKey:
    kid: str
    secret: bytes


def parse_keys(spec: str) -> list[StateKey]:
    """`kid=secret,kid=secret`, newest first; refuses short secrets and duplicate ids."""
    keys: list[StateKey] = []
    for part in filter(None, (item.strip() for item in spec.split(","))):
        kid, sep, secret = part.partition("=")
        if not sep or not kid or not secret:
            raise ValueError("state keys must be written kid=secret, separated by commas")
        if len(secret.encode()) < MIN_SECRET_BYTES:
            raise ValueError(f"state key '{kid}' is shorter than {MIN_SECRET_BYTES} bytes")
        if any(key.kid == kid for key in keys):
            raise ValueError(f"state key id '{kid}' is listed twice")
        keys.append(StateKey(kid, secret.encode()))
    return keys


class StateSigner:
    def __init__(self, keys: list[StateKey]) -> None:
        if not keys:
            raise ValueError("at least one state key is needed (PERSONA_RAILS_STATE_KEYS)")
        self._signing = keys[0]
        self._verifying = {key.kid: key.secret for key in keys}

    def sign(self, data: dict[str, Any], *, audience: str, ttl_seconds: int, now: float | None = None) -> str:
        issued = int(time.time() if now is None else now)
        header = _b64(json.dumps({"v": _VERSION, "alg": "HS256", "kid": self._signing.kid}).encode())
        body = _b64(
            json.dumps(
                {"aud": audience, "iat": issued, "exp": issued + ttl_seconds, "data": data},
                ensure_ascii=False,
                separators=(",", ":"),
            ).encode()
        )
        signature = hmac.new(self._signing.secret, f"{header}.{body}".encode(), hashlib.sha256).digest()
        return f"{header}.{body}.{_b64(signature)}"

    def verify(self, token: str, *, audience: str, field: str = "state", now: float | None = None) -> Any:
        """The data, if the token is intact, ours, for this audience and not expired."""
        try:
            header_part, body_part, signature_part = token.split(".")
            header = json.loads(_unb64(header_part))
            secret = self._verifying.get(str(header.get("kid"))) if isinstance(header, dict) else None
            signature = _unb64(signature_part)
        except (ValueError, binascii.Error, UnicodeDecodeError):
            raise Invalid("state_malformed", "the state is not a signed state token", field=field) from None
        if secret is None:
            raise Invalid(
                "state_unknown_key", "the state was signed with a key no longer accepted", field=field
            )
        expected = hmac.new(secret, f"{header_part}.{body_part}".encode(), hashlib.sha256).digest()
        if not hmac.compare_digest(expected, signature):
            raise Invalid("state_tampered", "the state's signature does not match", field=field)
        body = json.loads(_unb64(body_part))
        if body.get("aud") != audience:
            raise Invalid("state_foreign", "the state was issued for another audience", field=field)
        if (time.time() if now is None else now) >= body.get("exp", 0):
            raise Invalid("state_expired", "the state has expired; start again", field=field)
        return body.get("data")
