"""Real users: an auth.users row, a signed JWT, and rules written through RLS as that user."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any

import jwt


@dataclass(frozen=True)
class AppUser:
    id: str
    token: str

    @property
    def claims(self) -> dict[str, Any]:
        return {"sub": self.id, "role": "authenticated", "aud": "authenticated"}


def make_token(sub: str, secret: str, *, ttl: int = 3600, **extra: Any) -> str:
    now = int(time.time())
    claims = {
        "sub": sub,
        "aud": "authenticated",
        "role": "authenticated",
        "iat": now,
        "exp": now + ttl,
        **extra,
    }
    return jwt.encode(claims, secret, algorithm="HS256")


def service_token(secret: str, **extra: Any) -> str:
    """What Supabase's service_role key is: `role: service_role`, no `sub`, no `aud`."""
    now = int(time.time())
    claims = {"iss": "supabase", "role": "service_role", "iat": now, "exp": now + 3600, **extra}
    return jwt.encode(claims, secret, algorithm="HS256")


class UserFactory:
    def __init__(self, db: Any, secret: str) -> None:
        self.db = db
        self.secret = secret

    def create(self) -> AppUser:
        user_id = str(uuid.uuid4())
        with self.db.as_owner() as tx:
            tx.execute(
                "INSERT INTO auth.users (id, email) VALUES (CAST(:id AS uuid), :email)",
                id=user_id,
                email=f"{user_id}@example.test",
            )
        return AppUser(user_id, make_token(user_id, self.secret))

    def rule(self, user: AppUser, **overrides: Any) -> dict[str, Any]:
        values = {
            "app_identifier": "com.ss.android.ugc.aweme",
            "app_display_name": "抖音",
            "summary": "工作日 9:00-18:00 禁止刷短视频",
            "next_action": "今天的周报",
            "remaining_minutes": 45,
            "delay_minutes": 10,
            **overrides,
        }
        # Rules are written by the mobile app through PostgREST, as `authenticated`.
        with self.db.transaction("authenticated", user.claims) as tx:
            row = tx.one(
                """
                INSERT INTO public.rules
                  (app_identifier, app_display_name, summary, next_action, remaining_minutes, delay_minutes)
                VALUES (:app_identifier, :app_display_name, :summary, :next_action, :remaining_minutes,
                        :delay_minutes)
                RETURNING *
                """,
                **values,
            )
        assert row is not None
        return row
