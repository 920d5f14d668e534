"""Turn a libpq-style Postgres URL into pg8000 connection arguments."""

from __future__ import annotations

import ssl
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}


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
    sslmode = query.get("sslmode", "disable" if host in _LOCAL_HOSTS else "require")
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
        context = ssl.create_default_context(cafile=query.get("sslrootcert"))
        context.check_hostname = sslmode == "verify-full"
        kwargs["ssl_context"] = context
    else:
        raise ValueError(f"unsupported sslmode '{sslmode}' in DATABASE_URL")
    return kwargs
