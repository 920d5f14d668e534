"""DATABASE_URL to pg8000 arguments: unix sockets, the Supabase pooler, and libpq's sslmode."""

import ssl

import pytest

from persona_rails.db.url import connect_kwargs


def test_the_embedded_servers_socket_url():
    kwargs = connect_kwargs("postgresql://postgres:@/postgres?host=/run/pg/data")
    assert kwargs["unix_sock"] == "/run/pg/data/.s.PGSQL.5432"
    assert kwargs["ssl_context"] is False
    assert (kwargs["user"], kwargs["database"]) == ("postgres", "postgres")


def test_the_supabase_pooler_url_requires_tls_by_default():
    kwargs = connect_kwargs(
        "postgresql://postgres.abcdefgh:p%40ss%2Fword@aws-0-eu-west-1.pooler.supabase.com:6543/postgres"
    )
    assert (kwargs["host"], kwargs["port"]) == ("aws-0-eu-west-1.pooler.supabase.com", 6543)
    assert (kwargs["user"], kwargs["password"]) == ("postgres.abcdefgh", "p@ss/word")
    assert isinstance(kwargs["ssl_context"], ssl.SSLContext)
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
