"""Secrets at runtime: SSM SecureStrings, read in one GetParameters call per cold start and cached.

Each secret setting has a companion variable naming its parameter: DATABASE_URL_PARAMETER names
the SecureString that holds DATABASE_URL. template.yaml sets only the companions, and only on the
functions that use the secret, so no secret sits in the template or in a function's configuration;
local development and tests set the plain variable instead. A named parameter wins over the plain
variable.

The call is `persona_rails.ssm` (standard library, SigV4), not Powertools Parameters: the latter
imports boto3 and builds a botocore client, ~175 ms of every cold start, which alone broke the
deploy issue's 1.5x cold-start budget (docs/benchmarks.md, "Cold start as deployed"). What the
Parameters utility gave is kept: decryption, a cache with a maximum age, errors that name the
parameter.

A parameter that is missing, unreadable or holds an invalid value raises `ConfigurationError`
naming the companion variable and the parameter, never the value. `require_secrets` runs at init,
so such a deploy fails its first cold start instead of a user's request.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from urllib.parse import parse_qs, urlsplit

from persona_rails import env

# A fetched value is reused this long (settings built from it live for the whole process), so
# building another settings class at init costs no second round trip to SSM.
CACHE_SECONDS = 300
_cache: dict[str, tuple[float, str]] = {}


class ConfigurationError(RuntimeError):
    """A secret's parameter is missing, unreadable or invalid (the message names it, not its value)."""


def _check_database_url(value: str) -> None:
    parts = urlsplit(value)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ValueError("not a postgresql:// URL")
    try:
        parts.port  # noqa: B018 - urlsplit only parses the port when asked
    except ValueError:
        raise ValueError("the port is not a number") from None
    if not (parts.hostname or parse_qs(parts.query).get("host")):
        raise ValueError("the URL names no host")


def _check_token(value: str) -> None:
    if not value.strip():
        raise ValueError("empty")
    if value != value.strip() or any(char.isspace() for char in value):
        # Most often a newline from `put-parameter --value file://...`: it would never match.
        raise ValueError("contains whitespace")


def _check_state_keys(value: str) -> None:
    from persona_rails.signed_state import parse_keys

    # parse_keys names key ids and sizes, never the secrets themselves.
    if not parse_keys(value):
        raise ValueError("no kid=secret pair")


# The secret settings, each with the check its value must pass.
_CHECKS: dict[str, Callable[[str], None]] = {
    env.DATABASE_URL: _check_database_url,
    env.SUPABASE_JWT_SECRET: _check_token,
    env.OPENAI_API_KEY: _check_token,
    env.STATE_KEYS: _check_state_keys,
}
SECRET_VARIABLES = tuple(_CHECKS)


def parameter_variable(variable: str) -> str:
    """DATABASE_URL -> DATABASE_URL_PARAMETER: the variable naming the secret's SSM parameter."""
    return f"{variable}{env.PARAMETER_SUFFIX}"


def clear_cache() -> None:
    _cache.clear()


def _fetch_all(wanted: dict[str, str]) -> dict[str, str]:
    """{variable: value} for {variable: parameter name}, from the cache or one call to SSM."""
    from persona_rails.ssm import SsmError, get_parameters

    now = time.monotonic()
    stale = sorted(
        {name for name in wanted.values() if not (name in _cache and now - _cache[name][0] < CACHE_SECONDS)}
    )
    if stale:
        try:
            values, missing = get_parameters(stale)
        except SsmError as exc:
            where = ", ".join(f"{parameter_variable(v)}={n}" for v, n in wanted.items() if n in stale)
            # SSM's messages name the error code and the parameter's ARN; they carry no value.
            raise ConfigurationError(f"{where}: cannot be read: {exc}") from None
        for variable, name in wanted.items():
            if name in missing or (name in stale and name not in values):
                raise ConfigurationError(f"{parameter_variable(variable)}={name}: parameter not found")
        _cache.update({name: (now, value) for name, value in values.items()})
    found = {}
    for variable, name in wanted.items():
        value = _cache[name][1]
        try:
            _CHECKS[variable](value)
        except ValueError as exc:
            raise ConfigurationError(
                f"{parameter_variable(variable)}={name}: invalid {variable}: {exc}"
            ) from None
        found[variable] = value
    return found


def resolve_secrets(environ: Mapping[str, str], variables: Iterable[str]) -> dict[str, str]:
    """The values of those `variables` that are secrets whose parameter `environ` names."""
    wanted = {}
    for variable in variables:
        name = environ.get(parameter_variable(variable)) if variable in _CHECKS else None
        if name:
            wanted[variable] = name
    return _fetch_all(wanted) if wanted else {}


def require_secrets(environ: Mapping[str, str] | None = None) -> None:
    """Fetch and check every secret this function's environment names a parameter for (at init)."""
    resolve_secrets(os.environ if environ is None else environ, SECRET_VARIABLES)
