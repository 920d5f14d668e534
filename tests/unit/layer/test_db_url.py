"""DATABASE_URL to pg8000 arguments: unix sockets, the Supabase pooler, and libpq's sslmode."""

import hashlib
import re
import ssl

import pytest

from persona_rails.db.url import SUPABASE_CA_FILE, connect_kwargs


def test_the_embedded_servers_socket_url():
    kwargs = connect_kwargs("postgresql://postgres:@/postgres?host=/run/pg/data")
    assert kwargs["unix_sock"] == "/run/pg/data/.s.PGSQL.5432"
    assert kwargs["ssl_context"] is False
    assert (kwargs["user"], kwargs["database"]) == ("postgres", "postgres")


# The two keys of "Supabase Root 2021 CA" (prod-ca-2021.crt and prod-ca-2025.crt), by DER SHA-256:
# a copy with a wrong byte, or another certificate, fails here rather than at a deploy's first request.
SUPABASE_ROOTS = {
    "807025AD50D4ED219D2C9C7D299C004F824EB00CF7F65AFEF607D07B72E6CAFA",
    "5F9B77951A7AA1303F9B58EEA9BFA89E358CFDC15F9786FF10D4930A722C9AE2",
}


def _roots(context: ssl.SSLContext) -> set[str]:
    return {hashlib.sha256(der).hexdigest().upper() for der in context.get_ca_certs(binary_form=True)}


def test_the_shipped_ca_bundle_is_supabases_two_roots():
    text = SUPABASE_CA_FILE.read_text(encoding="ascii")
    pems = re.findall(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", text, re.S)
    assert {
        hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem)).hexdigest().upper() for pem in pems
    } == SUPABASE_ROOTS


@pytest.mark.parametrize(
    "host",
    ["aws-0-eu-west-1.pooler.supabase.com", "aws-1-us-east-1.pooler.supabase.com", "db.abcdefgh.supabase.co"],
)
def test_a_supabase_host_is_verified_in_full_against_the_shipped_roots_by_default(host):
    kwargs = connect_kwargs(f"postgresql://postgres.abcdefgh:p%40ss%2Fword@{host}:6543/postgres")
    assert (kwargs["host"], kwargs["port"]) == (host, 6543)
    assert (kwargs["user"], kwargs["password"]) == ("postgres.abcdefgh", "p@ss/word")
    context = kwargs["ssl_context"]
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname is True
    assert _roots(context) == SUPABASE_ROOTS  # and nothing else: no public CA vouches for the pooler


def test_a_supabase_host_may_still_ask_for_less_or_for_other_roots(tmp_path):
    base = "postgresql://u:p@aws-0-eu-west-1.pooler.supabase.com:6543/postgres"
    assert connect_kwargs(base + "?sslmode=require")["ssl_context"].verify_mode == ssl.CERT_NONE
    assert connect_kwargs(base + "?sslmode=verify-ca")["ssl_context"].check_hostname is False
    system = connect_kwargs(base + "?sslmode=verify-full&sslrootcert=system")["ssl_context"]
    assert not _roots(system) & SUPABASE_ROOTS
    own = tmp_path / "root.crt"
    own.write_text(SUPABASE_CA_FILE.read_text(encoding="ascii"), encoding="ascii")
    assert _roots(connect_kwargs(base + f"?sslrootcert={own}")["ssl_context"]) == SUPABASE_ROOTS


def test_another_remote_host_is_encrypted_but_not_verified_by_default():
    kwargs = connect_kwargs("postgresql://u:p@db.example.com:5432/postgres")
    assert kwargs["ssl_context"].verify_mode == ssl.CERT_NONE


def test_localhost_defaults_to_no_tls_and_verify_full_verifies():
    assert connect_kwargs("postgresql://u:p@localhost:5432/db")["ssl_context"] is False
    strict = connect_kwargs("postgresql://u:p@db.example.com/db?sslmode=verify-full")["ssl_context"]
    assert strict.verify_mode == ssl.CERT_REQUIRED
    assert strict.check_hostname is True
    assert connect_kwargs("postgresql://u:p@db.example.com/db?sslmode=prefer")["ssl_context"] is None


@pytest.mark.parametrize("url", ["mysql://u:p@h/db", "postgresql://u:p@h/db?sslmode=sometimes"])
def test_bad_urls_are_refused(url):
    with pytest.raises(ValueError, match=r"postgresql://|sslmode"):
        connect_kwargs(url)
