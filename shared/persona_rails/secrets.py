"""Secrets at runtime: SSM SecureStrings read through Powertools Parameters, once per cold start.

Each secret setting has a companion variable naming its parameter: DATABASE_URL_PARAMETER names
the SecureString that holds DATABASE_URL. template.yaml sets only the companions, and only on the
functions that use the secret, so no secret sits in the template or in a function's configuration;
local development and tests set the plain variable instead. A named parameter wins over the plain
variable. boto3 and the Parameters utility are imported only when a parameter is named, so a cold
start without one pays nothing for them.

A parameter that is missing, unreadable or holds an invalid value raises `ConfigurationError`
naming the companion variable and the parameter, never the value. `require_secrets` runs at init,
so such a deploy fails its first cold start instead of a user's request.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from urllib.parse import parse_qs, urlsplit

from persona_rails import env

# Powertools keeps a fetched value this long; settings built from it live for the whole process.
CACHE_SECONDS = 300


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


def _fetch(variable: str, name: str) -> str:
    from aws_lambda_powertools.utilities.parameters import GetParameterError, get_parameter

    where = f"{parameter_variable(variable)}={name}"
    try:
        value = get_parameter(name, decrypt=True, max_age=CACHE_SECONDS)
    except GetParameterError as exc:
        # botocore's message names the error code and the parameter; it carries no value.
        reason = "parameter not found" if "ParameterNotFound" in str(exc) else f"cannot be read: {exc}"
        raise ConfigurationError(f"{where}: {reason}") from None
    try:
        _CHECKS[variable](value)
    except ValueError as exc:
        raise ConfigurationError(f"{where}: invalid {variable}: {exc}") from None
    return value


def resolve_secrets(environ: Mapping[str, str], variables: Iterable[str]) -> dict[str, str]:
    """The values of those `variables` that are secrets whose parameter `environ` names."""
    found = {}
    for variable in variables:
        name = environ.get(parameter_variable(variable)) if variable in _CHECKS else None
        if name:
            found[variable] = _fetch(variable, name)
    return found


def require_secrets(environ: Mapping[str, str] | None = None) -> None:
    """Fetch and check every secret this function's environment names a parameter for (at init)."""
    resolve_secrets(os.environ if environ is None else environ, SECRET_VARIABLES)
