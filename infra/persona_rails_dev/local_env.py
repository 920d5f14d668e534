"""The local stack's defaults: the embedded database, a development JWT secret, a seeded user."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

from persona_rails import env
from persona_rails_dev.template import REPO_ROOT

# The Supabase CLI's well-known local secret, so tokens minted here also work against
# `supabase start`. Local only: deployments take SupabaseJwtSecretParameter or SupabaseJwksUrl.
LOCAL_JWT_SECRET = "super-secret-jwt-token-with-at-least-32-characters-long"  # noqa: S105
LOCAL_PGDATA = REPO_ROOT / ".local" / "pgdata"
DEV_USER_ID = "00000000-0000-4000-8000-000000000001"
DEV_USER_EMAIL = "dev@persona-rails.local"


def prepare(*, seed: bool = True, pgdata: Path | None = None) -> str:
    """Point this process at a database and an auth secret; returns the database URL."""
    if not (os.environ.get(env.SUPABASE_JWT_SECRET) or os.environ.get(env.SUPABASE_JWKS_URL)):
        os.environ[env.SUPABASE_JWT_SECRET] = LOCAL_JWT_SECRET
    url = os.environ.get(env.DATABASE_URL)
    if not url:
        from persona_rails.db.embedded import ensure_embedded_database

        url = ensure_embedded_database(pgdata or LOCAL_PGDATA, seed=seed)
        os.environ[env.DATABASE_URL] = url
    return url


def mint_token(
    sub: str = DEV_USER_ID, *, ttl_seconds: int = 3600, secret: str | None = None, email: str | None = None
) -> str:
    import jwt

    now = int(time.time())
    claims = {
        "sub": sub,
        "aud": "authenticated",
        "role": "authenticated",
        "email": email or f"{sub[:8]}@persona-rails.local",
        "iat": now,
        "exp": now + ttl_seconds,
        "iss": "persona-rails-local",
        "session_id": str(uuid.uuid4()),
    }
    key = secret or os.environ.get(env.SUPABASE_JWT_SECRET) or LOCAL_JWT_SECRET
    return jwt.encode(claims, key, algorithm="HS256")


def mint_service_token(*, ttl_seconds: int = 3600, secret: str | None = None) -> str:
    """What a Supabase project's service_role key is: `role: service_role`, no `sub`, no `aud`.
    A backend calls with it and names the user (`user_id`), as the platforms' backends do."""
    import jwt

    now = int(time.time())
    claims = {"iss": "supabase", "role": "service_role", "iat": now, "exp": now + ttl_seconds}
    key = secret or os.environ.get(env.SUPABASE_JWT_SECRET) or LOCAL_JWT_SECRET
    return jwt.encode(claims, key, algorithm="HS256")


def ensure_user(url: str, user_id: str, email: str | None = None) -> None:
    """Create the auth.users row a real Supabase project would have for this user."""
    from persona_rails.db import Database

    database = Database(url)
    try:
        with database.as_owner() as tx:
            tx.execute(
                "INSERT INTO auth.users (id, email) VALUES (CAST(:id AS uuid), :email)"
                " ON CONFLICT (id) DO NOTHING",
                id=user_id,
                email=email or f"{user_id}@persona-rails.local",
            )
    finally:
        database.close()
