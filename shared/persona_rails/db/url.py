"""Turn a libpq-style Postgres URL into pg8000 connection arguments.

TLS, as libpq spells it (`sslmode`, `sslrootcert`), with one default of our own: a Supabase host
(the pooler, `*.pooler.supabase.com`, or `db.<ref>.supabase.co`) is verified in full against
Supabase's root CA, which the layer ships (persona_rails/data/supabase-ca.crt: both keys of
"Supabase Root 2021 CA"; Supabase's chains are not signed by any public CA, so the system store
cannot verify them). `sslrootcert=system` asks for the system store instead, as in libpq 16.
Another non-local host defaults to `require` (encrypted, not verified), a local one to `disable`.
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}
SUPABASE_CA_FILE = Path(__file__).resolve().parent.parent / "data" / "supabase-ca.crt"
_SUPABASE_DOMAINS = (".supabase.com", ".supabase.co")


def is_supabase_host(host: str) -> bool:
    return host.lower().rstrip(".").endswith(_SUPABASE_DOMAINS)


def _default_sslmode(host: str) -> str:
    if host in _LOCAL_HOSTS:
        return "disable"
    return "verify-full" if is_supabase_host(host) else "require"


def _verifying_context(host: str, root_cert: str | None, check_hostname: bool) -> ssl.SSLContext:
    if root_cert == "system":
        context = ssl.create_default_context()
    elif root_cert:
        context = ssl.create_default_context(cafile=root_cert)
    elif is_supabase_host(host):
        context = ssl.create_default_context(cafile=str(SUPABASE_CA_FILE))
    else:
        context = ssl.create_default_context()
    context.check_hostname = check_hostname
    return context


def connect_kwargs(url: str, timeout: float | None = 30) -> dict[str, Any]:
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ValueError("DATABASE_URL must start with postgresql://")
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    host = query.get("host") or unquote(parts.hostname or "") or "localhost"
    port = parts.port or int(query.get("port", 5432))
    kwargs: dict[str, Any] = {
        "user": unquote(parts.username or "postgres"),
        "password": unquote(parts.password) if parts.password else None,
        "database": unquote(parts.path.lstrip("/")) or "postgres",
        "application_name": "persona-rails",
        "timeout": timeout,
    }
    if host.startswith("/"):
        # A unix socket directory, as libpq and the embedded server spell it: never TLS.
        kwargs.update(unix_sock=f"{host}/.s.PGSQL.{port}", ssl_context=False)
        return kwargs
    kwargs.update(host=host, port=port)
    sslmode = query.get("sslmode") or _default_sslmode(host)
    if sslmode == "disable":
        # pg8000's default (None) means "prefer": it would negotiate TLS anyway.
        kwargs["ssl_context"] = False
    elif sslmode in {"allow", "prefer"}:
        kwargs["ssl_context"] = None
    elif sslmode == "require":
        # libpq's "require" encrypts without verifying; a bare client context is enough and
        # skips loading the system CA bundle (~20 ms of cold start).
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        kwargs["ssl_context"] = context
    elif sslmode in {"verify-ca", "verify-full"}:
        kwargs["ssl_context"] = _verifying_context(host, query.get("sslrootcert"), sslmode == "verify-full")
    else:
        raise ValueError(f"unsupported sslmode '{sslmode}' in DATABASE_URL")
    return kwargs
