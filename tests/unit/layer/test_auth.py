"""Supabase JWT verification: HS256 with the project secret, asymmetric keys through a JWKS URL."""

import json
import threading
import time
from http.server import ThreadingHTTPServer

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from persona_rails.auth import AuthError, AuthNotConfiguredError, bearer_token, verify, verify_hs256
from tests.support.http_handler import POLL_SECONDS, PromptHandler

SECRET = "unit-test-secret-with-at-least-32-characters"
SUB = "7d3c1a52-5b7e-4c39-9a43-2f0d3f3c9e11"


def token(secret=SECRET, algorithm="HS256", headers=None, **overrides):
    now = int(time.time())
    claims = {"sub": SUB, "aud": "authenticated", "role": "authenticated", "exp": now + 60, "iat": now}
    claims.update(overrides)
    claims = {key: value for key, value in claims.items() if value is not None}
    return jwt.encode(claims, secret, algorithm=algorithm, headers=headers)


def test_a_valid_supabase_token_yields_its_claims():
    claims = verify_hs256(token(email="a@example.test"), SECRET, "authenticated")
    assert claims.sub == SUB
    assert claims.role == "authenticated"
    assert claims.raw["email"] == "a@example.test"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: token(secret="another-secret-with-at-least-32-characters!!"), "signature"),
        (lambda: token(exp=int(time.time()) - 120), "expired"),
        (lambda: token(exp=None), "no valid exp"),
        (lambda: token(aud="anon"), "audience"),
        (lambda: token(sub=None), "no sub"),
        (lambda: token(sub="user-42"), "UUID"),
        (lambda: token(sub="urn:uuid:7d3c1a52-5b7e-4c39-9a43-2f0d3f3c9e11"), "UUID"),
        (lambda: token(exp=float("inf")), "JSON|exp"),
        (lambda: token(nbf=int(time.time()) + 600), "not valid yet"),
        (lambda: token(secret=SECRET * 2, algorithm="HS512"), "HS256"),
        (lambda: "not.a-token", "JWS"),
        (lambda: "a.b.c", "base64url"),
        (lambda: "e30.e30.", "HS256"),
    ],
)
def test_bad_tokens_are_rejected_with_a_reason(make, message):
    with pytest.raises(AuthError, match=message):
        verify_hs256(make(), SECRET, "authenticated")


def test_unsigned_tokens_are_rejected():
    unsigned = jwt.encode(
        {"sub": SUB, "aud": "authenticated", "exp": time.time() + 60}, None, algorithm="none"
    )
    with pytest.raises(AuthError):
        verify(unsigned, secret=SECRET, jwks_url=None, audience="authenticated")


def test_expiry_has_a_small_leeway_for_clock_skew():
    verify_hs256(token(exp=int(time.time()) - 10), SECRET, "authenticated")


@pytest.mark.parametrize("header", [None, "", "Basic abc", "Bearer ", "Bearer"])
def test_the_header_must_be_a_bearer_token(header):
    with pytest.raises(AuthError):
        bearer_token(header)


def test_nothing_configured_refuses_everything():
    with pytest.raises(AuthNotConfiguredError):
        verify(token(), secret=None, jwks_url=None, audience="authenticated")


@pytest.fixture(scope="module")
def jwks_server():
    """Publishes an RSA and an EC public key on 127.0.0.1, as Supabase's JWKS endpoint does."""
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    keys = []
    for kid, key, alg in (("rsa-1", rsa_key, "RS256"), ("ec-1", ec_key, "ES256")):
        algorithm = jwt.algorithms.RSAAlgorithm if alg == "RS256" else jwt.algorithms.ECAlgorithm
        jwk = json.loads(algorithm.to_jwk(key.public_key()))
        keys.append({**jwk, "kid": kid, "alg": alg, "use": "sig"})
    body = json.dumps({"keys": keys}).encode()

    class Handler(PromptHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(POLL_SECONDS,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/auth/v1/.well-known/jwks.json", rsa_key, ec_key
    server.shutdown()


@pytest.mark.parametrize(("kid", "alg"), [("rsa-1", "RS256"), ("ec-1", "ES256")])
def test_asymmetric_tokens_verify_against_the_jwks(jwks_server, kid, alg):
    url, rsa_key, ec_key = jwks_server
    signed = token(secret=rsa_key if alg == "RS256" else ec_key, algorithm=alg, headers={"kid": kid})
    assert verify(signed, secret=None, jwks_url=url, audience="authenticated").sub == SUB


def test_an_unknown_key_id_is_rejected(jwks_server):
    url, rsa_key, _ = jwks_server
    signed = token(secret=rsa_key, algorithm="RS256", headers={"kid": "rotated-away"})
    with pytest.raises(AuthError, match="signing key"):
        verify(signed, secret=None, jwks_url=url, audience="authenticated")


def test_an_expired_asymmetric_token_is_rejected(jwks_server):
    url, rsa_key, _ = jwks_server
    signed = token(secret=rsa_key, algorithm="RS256", headers={"kid": "rsa-1"}, exp=int(time.time()) - 120)
    with pytest.raises(AuthError):
        verify(signed, secret=None, jwks_url=url, audience="authenticated")


def test_hs256_still_works_beside_a_jwks_during_key_rotation(jwks_server):
    url, _, _ = jwks_server
    assert verify(token(), secret=SECRET, jwks_url=url, audience="authenticated").sub == SUB
