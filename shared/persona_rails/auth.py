"""Supabase JWT verification.

HS256 tokens (the project's shared secret) are checked with the standard library, which keeps
~80 ms of `cryptography` imports off every cold start. Asymmetric tokens (Supabase signing keys
published as JWKS) go through PyJWT, imported only when a JWKS URL is configured.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import math
import re
import time
from dataclasses import dataclass
from functools import cache
from typing import Any

LEEWAY_SECONDS = 30
_CANONICAL_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


class AuthError(Exception):
    """The bearer token is missing, malformed, badly signed or expired (HTTP 401)."""


@dataclass(frozen=True)
class Claims:
    sub: str
    role: str
    raw: dict[str, Any]


def bearer_token(authorization: str | None) -> str:
    if not authorization:
        raise AuthError("missing Authorization header")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthError("Authorization header must be 'Bearer <token>'")
    return token.strip()


def _b64url_decode(segment: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    except (binascii.Error, ValueError) as exc:
        raise AuthError("token is not valid base64url") from exc


def _no_constants(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    # The claims travel on to Postgres as JSON, which has no infinity.
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("number out of range")
    return value


_INVALID_TEXT = re.compile("[\x00\ud800-\udfff]")
# Supabase's tokens are about a kilobyte; user_metadata can grow, but not to this.
MAX_TOKEN_CHARS = 16 * 1024
MAX_CLAIMS_DEPTH = 32


def _valid_text(value: object) -> bool:
    """No NUL and no lone surrogate anywhere, and no absurd nesting: the claims reach Postgres
    (which refuses both in text) and the logs, so a token carrying them is refused as a 401.
    Iterative, so no depth of nesting can exhaust the stack."""
    pending: list[tuple[object, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            if _INVALID_TEXT.search(item):
                return False
        elif isinstance(item, dict | list):
            if depth >= MAX_CLAIMS_DEPTH:
                return False
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
    return True


def _split(token: str) -> tuple[dict[str, Any], dict[str, Any], bytes, bytes]:
    if len(token) > MAX_TOKEN_CHARS:
        raise AuthError("token is too long")
    parts = token.split(".")
    if len(parts) != 3:
        raise AuthError("token is not a JWS compact serialization")
    try:
        header = json.loads(_b64url_decode(parts[0]))
        payload = json.loads(_b64url_decode(parts[1]), parse_constant=_no_constants, parse_float=_finite)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        # RecursionError: JSON nested deeper than the parser's stack, before any signature check.
        raise AuthError("token header or payload is not JSON") from exc
    if not isinstance(header, dict) or not isinstance(payload, dict):
        raise AuthError("token header and payload must be JSON objects")
    if not _valid_text(header):
        raise AuthError("token header must be valid text")
    return header, payload, f"{parts[0]}.{parts[1]}".encode(), _b64url_decode(parts[2])


SERVICE_ROLE = "service_role"


def _check_registered_claims(payload: dict[str, Any], audience: str, now: float) -> Claims:
    if not _valid_text(payload):
        raise AuthError("token claims must be valid text")
    exp = payload.get("exp")
    if not isinstance(exp, int | float) or not math.isfinite(exp):
        raise AuthError("token has no valid exp claim")
    if now > exp + LEEWAY_SECONDS:
        raise AuthError("token has expired")
    nbf = payload.get("nbf")
    if isinstance(nbf, int | float) and now + LEEWAY_SECONDS < nbf:
        raise AuthError("token is not valid yet")
    role = payload.get("role", "authenticated")
    if role == SERVICE_ROLE:
        # Supabase's service-role key is a JWT with no sub and no aud: it names no user, and the
        # route it calls must be told which user it acts for (persona_rails.identity).
        return Claims(sub="", role=SERVICE_ROLE, raw=payload)
    aud = payload.get("aud")
    audiences = aud if isinstance(aud, list) else [aud]
    if audience not in audiences:
        raise AuthError(f"token audience must be '{audience}'")
    sub = payload.get("sub")
    if not isinstance(sub, str) or not sub:
        raise AuthError("token has no sub claim")
    # Supabase user ids are UUIDs in their canonical form, which is what auth.uid() casts.
    if not _CANONICAL_UUID.fullmatch(sub):
        raise AuthError("token sub must be a user id (UUID)")
    return Claims(sub=sub, role=str(role), raw=payload)


def verify_hs256(token: str, secret: str, audience: str, now: float | None = None) -> Claims:
    header, payload, signing_input, signature = _split(token)
    if header.get("alg") != "HS256":
        raise AuthError("token must be signed with HS256")
    expected = hmac.new(secret.encode(), signing_input, hashlib.sha256).digest()
    if not hmac.compare_digest(expected, signature):
        raise AuthError("token signature is invalid")
    return _check_registered_claims(payload, audience, time.time() if now is None else now)


@cache
def _jwks_client(jwks_url: str) -> Any:
    import jwt

    return jwt.PyJWKClient(jwks_url, cache_keys=True, lifespan=600)


def verify_jwks(token: str, jwks_url: str, audience: str) -> Claims:
    import jwt

    try:
        key = _jwks_client(jwks_url).get_signing_key_from_jwt(token)
        payload = jwt.decode(
            token,
            key=key.key,
            algorithms=["RS256", "ES256", "EdDSA"],
            leeway=LEEWAY_SECONDS,
            # The audience is checked below, where service-role tokens (which carry none) are told apart.
            options={"require": ["exp"], "verify_aud": False},
        )
    except jwt.PyJWKClientError as exc:
        raise AuthError(f"signing key not found: {exc}") from exc
    except jwt.InvalidTokenError as exc:
        raise AuthError(str(exc)) from exc
    return _check_registered_claims(payload, audience, time.time())


class AuthNotConfiguredError(Exception):
    """Neither SUPABASE_JWT_SECRET nor SUPABASE_JWKS_URL is set: every request is refused."""


def verify(token: str, *, secret: str | None, jwks_url: str | None, audience: str) -> Claims:
    if jwks_url:
        header, _, _, _ = _split(token)
        if header.get("alg") != "HS256" or not secret:
            return verify_jwks(token, jwks_url, audience)
    if secret:
        return verify_hs256(token, secret, audience)
    raise AuthNotConfiguredError("set SUPABASE_JWT_SECRET or SUPABASE_JWKS_URL")
