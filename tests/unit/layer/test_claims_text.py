"""Claims that are not valid text (a NUL, or a lone UTF-16 surrogate, anywhere in the payload)
are refused as an AuthError (401), never passed on to Postgres or the logs where they would
fail as a 500. Valid text in any script is not refused."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import jwt
import pytest

from persona_rails.auth import AuthError, verify, verify_hs256

SECRET = "unit-test-secret-with-at-least-32-characters"
SUB = "7d3c1a52-5b7e-4c39-9a43-2f0d3f3c9e11"
HEADER = b'{"alg":"HS256","typ":"JWT"}'


def claims(**extra):
    now = int(time.time())
    return {"sub": SUB, "aud": "authenticated", "role": "authenticated", "exp": now + 60, "iat": now, **extra}


def signed(payload: dict) -> str:
    return jwt.encode(payload, SECRET, algorithm="HS256")


def signed_raw(payload_json: bytes) -> str:
    """A token over exactly these payload bytes (for bytes json.dumps would never produce)."""

    def b64(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    signing_input = f"{b64(HEADER)}.{b64(payload_json)}"
    signature = hmac.new(SECRET.encode(), signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{b64(signature)}"


HOSTILE = [
    pytest.param({"sub": SUB + "\u0000"}, id="nul-in-sub"),
    pytest.param({"sub": "\ud800" + SUB[1:]}, id="surrogate-in-sub"),
    pytest.param({"role": "authenticated\u0000"}, id="nul-in-role"),
    pytest.param({"role": "service_role\u0000"}, id="nul-after-service-role"),
    pytest.param({"role": "\udfff"}, id="low-surrogate-role"),
    pytest.param({"aud": ["authenticated", "\u0000"]}, id="nul-in-an-audience-list"),
    pytest.param({"email": "\u0000"}, id="nul-claim"),
    pytest.param({"email": "a\ud83d"}, id="half-an-emoji"),
    pytest.param({"app_metadata": {"provider": "x\u0000y"}}, id="nul-nested"),
    pytest.param({"app_metadata": {"roles": [["deep", "\ud800"]]}}, id="surrogate-in-nested-lists"),
    pytest.param({"user_metadata": {"\u0000key": "v"}}, id="nul-in-a-nested-key"),
    pytest.param({"\udc00": 1}, id="surrogate-claim-name"),
]


@pytest.mark.parametrize("extra", HOSTILE)
def test_claims_with_nul_or_lone_surrogates_are_refused(extra):
    token = signed(claims(**extra))
    with pytest.raises(AuthError, match="valid text"):
        verify_hs256(token, SECRET, "authenticated")
    with pytest.raises(AuthError):
        verify(token, secret=SECRET, jwks_url=None, audience="authenticated")


@pytest.mark.parametrize(
    "extra",
    [
        {"email": "王小明@example.test"},
        {"user_metadata": {"name": "😀 Zoë", "bio": "tab\tnewline\n", "emoji": "👍🏽"}},
        {"app_metadata": {"providers": ["email", "apple"], "n": 3, "ok": True, "none": None}},
    ],
)
def test_valid_text_in_any_script_is_accepted(extra):
    verified = verify_hs256(signed(claims(**extra)), SECRET, "authenticated")
    assert verified.sub == SUB
    for name, value in extra.items():
        assert verified.raw[name] == value


def test_a_surrogate_pair_escaped_in_json_is_one_valid_character():
    payload = json.dumps(claims(name="😀"), ensure_ascii=True).encode()
    assert b"\\ud83d\\ude00" in payload
    assert verify_hs256(signed_raw(payload), SECRET, "authenticated").raw["name"] == "😀"


def with_raw_claim(raw_value: bytes) -> bytes:
    """A valid payload plus one claim whose value is these bytes between quotes."""
    return json.dumps(claims())[:-1].encode() + b', "nick": "' + raw_value + b'"}'


@pytest.mark.parametrize(
    "raw_value",
    [
        pytest.param(b"\xed\xa0\x80", id="a-surrogate-encoded-as-utf8"),
        pytest.param(b"\xff", id="not-utf8"),
        pytest.param(b"\xc0\x80", id="overlong-nul"),
    ],
)
def test_payload_bytes_that_are_not_utf8_are_refused(raw_value):
    assert verify_hs256(signed_raw(with_raw_claim(b"ok")), SECRET, "authenticated").raw["nick"] == "ok"
    with pytest.raises(AuthError):
        verify_hs256(signed_raw(with_raw_claim(raw_value)), SECRET, "authenticated")


@pytest.mark.parametrize("escaped", [b"\\udead", b"\\u0000", b"x\\ud83d"])
def test_escaped_invalid_text_in_the_raw_payload_is_refused(escaped):
    with pytest.raises(AuthError, match="valid text"):
        verify_hs256(signed_raw(with_raw_claim(escaped)), SECRET, "authenticated")


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@pytest.mark.parametrize("depth", [40, 1_200, 100_000])
def test_a_forged_token_nested_past_the_parser_is_refused_not_crashed(depth):
    """Unsigned junk: decoding happens before the signature check, so it must never raise
    anything but AuthError (RecursionError used to escape as a 500)."""
    payload = b'{"a":' + b"[" * depth + b"]" * depth + b"}"
    token = f"{_b64(HEADER)}.{_b64(payload)}.AAAA"
    with pytest.raises(AuthError):
        verify(token, secret=SECRET, jwks_url=None, audience="authenticated")


def test_signed_claims_nested_deeper_than_the_limit_are_refused():
    nested: object = "leaf"
    for _ in range(500):
        nested = [nested]
    with pytest.raises(AuthError, match="valid text"):
        verify_hs256(signed_raw(json.dumps(claims(user_metadata=nested)).encode()), SECRET, "authenticated")


def test_signed_claims_with_modest_nesting_pass():
    nested = {"profile": {"prefs": {"langs": ["zh", "en"]}}}
    assert verify_hs256(signed(claims(user_metadata=nested)), SECRET, "authenticated").sub == SUB


def test_a_header_with_a_nul_is_refused():
    header = b'{"alg":"HS256","typ":"JWT","kid":"a\\u0000b"}'
    signing_input = f"{_b64(header)}.{_b64(json.dumps(claims()).encode())}"
    signature = hmac.new(SECRET.encode(), signing_input.encode(), hashlib.sha256).digest()
    with pytest.raises(AuthError, match="header"):
        verify_hs256(f"{signing_input}.{_b64(signature)}", SECRET, "authenticated")


def test_a_token_longer_than_any_real_one_is_refused_before_decoding():
    with pytest.raises(AuthError, match="too long"):
        verify("a" * 20_000 + ".b.c", secret=SECRET, jwks_url=None, audience="authenticated")
