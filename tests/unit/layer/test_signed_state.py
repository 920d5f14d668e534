"""Signed state: intact state round-trips; tampered, expired, foreign or unknown-key state is refused."""

import base64
import json

import pytest

from persona_rails.errors import Invalid
from persona_rails.http.errors import status_of
from persona_rails.signed_state import StateSigner, parse_keys

OLD = "old=" + "o" * 32
NEW = "new=" + "n" * 32
NOW = 1_800_000_000


def signer(spec: str) -> StateSigner:
    return StateSigner(parse_keys(spec))


def test_state_round_trips_for_its_audience():
    token = signer(NEW).sign({"depth": 2, "note": "回忆"}, audience="interview:turn", ttl_seconds=60, now=NOW)
    assert signer(NEW).verify(token, audience="interview:turn", now=NOW + 59) == {"depth": 2, "note": "回忆"}


def test_rotation_two_keys_verify_only_the_newest_signs():
    old_token = signer(OLD).sign({"n": 1}, audience="a", ttl_seconds=60, now=NOW)
    rotated = signer(f"{NEW},{OLD}")
    assert rotated.verify(old_token, audience="a", now=NOW) == {"n": 1}
    new_token = rotated.sign({"n": 2}, audience="a", ttl_seconds=60, now=NOW)
    header = json.loads(base64.urlsafe_b64decode(new_token.split(".")[0] + "=="))
    assert header["kid"] == "new"
    # Once the old key is dropped, what it signed is refused.
    with pytest.raises(Invalid) as error:
        signer(NEW).verify(old_token, audience="a", now=NOW)
    assert error.value.code == "state_unknown_key"


def _tamper(token: str) -> str:
    header, body, signature = token.split(".")
    data = json.loads(base64.urlsafe_b64decode(body + "=="))
    data["data"]["depth"] = 99
    forged = base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()
    return f"{header}.{forged}.{signature}"


@pytest.mark.parametrize(
    ("mutate", "audience", "at", "code"),
    [
        (_tamper, "a", NOW, "state_tampered"),
        (lambda token: token, "a", NOW + 60, "state_expired"),
        (lambda token: token, "b", NOW, "state_foreign"),
        (lambda token: "not-a-token", "a", NOW, "state_malformed"),
        (lambda token: token[:-4] + "AAAA", "a", NOW, "state_tampered"),
    ],
)
def test_bad_state_is_a_4xx_naming_the_field(mutate, audience, at, code):
    token = signer(NEW).sign({"depth": 1}, audience="a", ttl_seconds=60, now=NOW)
    with pytest.raises(Invalid) as error:
        signer(NEW).verify(mutate(token), audience=audience, field="budget_state", now=at)
    assert (error.value.code, error.value.field) == (code, "budget_state")
    assert 400 <= status_of(error.value) < 500


@pytest.mark.parametrize("spec", ["", "short=abc", "x=" + "y" * 32 + ",x=" + "z" * 32, "nokey"])
def test_bad_key_configuration_fails_loudly(spec):
    with pytest.raises(ValueError, match="state key"):
        signer(spec)
