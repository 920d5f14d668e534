"""The one error that belongs to the HTTP edge alone (a missing token, a body that is not JSON);
`persona_rails.http.errors` turns it, and every domain error, into the JSON error body."""

from __future__ import annotations


class ApiError(Exception):
    """An error that only exists at the HTTP edge (a missing token, a body that is not JSON)."""

    def __init__(
        self, status: int, code: str, message: str, *, field: str | None = None, state: str | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.state = state
