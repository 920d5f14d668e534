"""Who a request acts for: a user with their own Supabase JWT, or a backend acting for a user.

- A user's token acts for its `sub`. Naming another `user_id` is 403.
- A service-role token (`role: service_role`) is accepted only on routes that allow it, and must
  name the `user_id` it acts for (422 without one). From then on everything runs exactly as for
  that user: the same JWT claims reach Postgres, so `auth.uid()` and every RLS policy apply.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from persona_rails.auth import SERVICE_ROLE, Claims
from persona_rails.errors import Forbidden, Invalid


class CallerKind(StrEnum):
    USER = "user"
    SERVICE = "service"


@dataclass(frozen=True)
class Caller:
    user_id: str
    kind: CallerKind

    def __post_init__(self) -> None:
        # A uuid.UUID is as good as its text, and the claims reach Postgres as JSON.
        object.__setattr__(self, "user_id", str(self.user_id))

    @property
    def claims(self) -> dict[str, Any]:
        """The claims published to Postgres: those of the user's own session, whoever called."""
        return {"sub": self.user_id, "role": "authenticated", "aud": "authenticated"}


def resolve_caller(token: Claims, named_user_id: object | None, *, allow_service: bool) -> Caller:
    """The caller a route acts for, from the verified token and the `user_id` the request names."""
    named = str(named_user_id) if named_user_id is not None else None
    if token.role == SERVICE_ROLE:
        if not allow_service:
            raise Forbidden("service_caller_not_allowed", "this route accepts user tokens only")
        if named is None:
            raise Invalid(
                "user_id_required", "a service-role caller must name the user_id it acts for", field="user_id"
            )
        return Caller(user_id=named, kind=CallerKind.SERVICE)
    if named is not None and named != token.sub:
        raise Forbidden("user_mismatch", "user_id does not match the token's subject", field="user_id")
    return Caller(user_id=token.sub, kind=CallerKind.USER)
