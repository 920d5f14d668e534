"""Domain errors: what services and engines raise when a request cannot be served.

They carry a machine-readable `code`, a message that never quotes user text, and the `field` or
`state` at fault. They know nothing about HTTP: `persona_rails.http.errors` maps each kind to a
status in one place, and a service called in-process (moderation's library mode, a replay, a
scheduled job) handles them as plain exceptions.
"""

from __future__ import annotations


class DomainError(Exception):
    """Base of every error a caller is expected to handle; `kind` names it for the edge."""

    kind = "domain_error"

    def __init__(
        self, code: str, message: str, *, field: str | None = None, state: str | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.state = state


class NotFound(DomainError):
    """The thing does not exist, or exists but belongs to someone else (RLS makes them alike)."""

    kind = "not_found"


class Conflict(DomainError):
    """The request is valid but the thing's current `state` does not allow it."""

    kind = "conflict"

    def __init__(
        self, code: str, message: str, *, state: str | None = None, field: str | None = None
    ) -> None:
        super().__init__(code, message, field=field, state=state)


class Gone(DomainError):
    """The thing existed but has expired for good (an encounter past its expiry); `state` says so."""

    kind = "gone"

    def __init__(self, code: str, message: str, *, state: str) -> None:
        super().__init__(code, message, state=state)


class Invalid(DomainError):
    """A value is missing or unacceptable; `field` names it."""

    kind = "invalid"

    def __init__(self, code: str, message: str, *, field: str) -> None:
        super().__init__(code, message, field=field)


class Forbidden(DomainError):
    """The caller is known but may not do this (another user's id, a route closed to its kind)."""

    kind = "forbidden"


class Unavailable(DomainError):
    """A dependency the request needs is not configured or not reachable right now."""

    kind = "unavailable"
