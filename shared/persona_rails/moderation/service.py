"""The moderation service: one check, as library mode and ModerationCheckFunction both run it.

Two short transactions as the caller, with the model calls between them (no lock held while the
LLM thinks): first the nearest earlier check and the cached LLM score, read together; then the
check, its decision record and the new LLM score, written together. Retrieval that fails for
any reason degrades to computing the scores (§11); an LLM that fails degrades to no
third-party score (§17.4). Raw text is never logged; it is stored for its owner only, and only
while `PERSONA_RAILS_MODERATION_STORE_TEXT` is on (replay needs it).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import Field, ValidationError

from persona_rails import env
from persona_rails.config import Artifact, json_path
from persona_rails.db import Database, DbError
from persona_rails.errors import Invalid, NotFound
from persona_rails.identity import Caller
from persona_rails.moderation import repository
from persona_rails.moderation.embedding import embed
from persona_rails.moderation.intimacy import Evaluation, evaluate, may_reuse, reused
from persona_rails.moderation.lexicon import Lexicon
from persona_rails.moderation.schemas import (
    CheckContext,
    CheckRequest,
    CheckResponse,
    FinalDecision,
    PolicyOut,
    Results,
)
from persona_rails.moderation.scoring import ENGINE_VERSION, Policy
from persona_rails.moderation.third_party import ThirdPartyAPIError, ThirdPartyScore, get_intimacy_score
from persona_rails.observability import count, logger
from persona_rails.settings import LlmSettings, _Base

LocalModel = Callable[[str, CheckContext], "float | None"]
DEFAULT_FUNCTION = "ModerationCheckFunction"
FOREIGN_KEY_VIOLATION = "23503"


class ModerationSettings(_Base):
    retrieval_threshold: float = Field(
        default=0.95, gt=0, le=1, validation_alias=env.MODERATION_RETRIEVAL_THRESHOLD
    )
    store_text: bool = Field(default=True, validation_alias=env.MODERATION_STORE_TEXT)
    llm_score: bool = Field(default=True, validation_alias=env.MODERATION_LLM_SCORE)
    embedding_model: str | None = Field(default=None, validation_alias=env.EMBEDDING_MODEL)


def no_local_model(text: str, context: CheckContext) -> float | None:
    """§12.2: the local model is a hook, and there is none by default."""
    return None


def policy_version(policy: Policy, lexicon: Artifact[Lexicon]) -> str:
    return f"{policy}@{lexicon.version}"


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class ModerationService:
    db: Database
    settings: ModerationSettings
    llm: LlmSettings
    lexicon: Artifact[Lexicon]
    local_model: LocalModel = no_local_model
    function_name: str = DEFAULT_FUNCTION

    def check_payload(self, caller: Caller, payload: dict[str, Any]) -> dict[str, Any]:
        """Library mode: the §3.1 payload in, the §4 response out, bad input as `Invalid`."""
        try:
            request = CheckRequest.model_validate(payload)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = json_path(tuple(first["loc"])).removeprefix("$.")
            raise Invalid("validation_error", f"{field}: {first['msg']}", field=field) from None
        return self.check(caller, request).model_dump(mode="json")

    def check(self, caller: Caller, request: CheckRequest) -> CheckResponse:
        profile = request.context.profile
        stage, policy, text = profile.intimacy_stage, request.policy, request.text
        version = policy_version(policy, self.lexicon)
        digest = text_hash(text)
        embedding = embed(
            text,
            model=self.settings.embedding_model,
            api_key=self.llm.api_key,
            base_url=self.llm.base_url,
            timeout=self.llm.timeout_seconds,
        )
        earlier, cached = self._recall(
            caller,
            vector=embedding.as_pgvector(),
            digest=digest,
            stage=stage,
            version=version,
            embedder=embedding.embedder,
        )

        third: ThirdPartyScore | None = None
        third_fault: str | None = None
        outcome: Evaluation | None = None
        if (
            earlier is not None
            and earlier["similarity"] >= self.settings.retrieval_threshold
            and may_reuse(earlier, text, stage=stage, policy=policy, lexicon=self.lexicon.value)
        ):
            outcome = reused(earlier)
        if outcome is None:
            third, third_fault = (cached, None) if cached else self._third_party(text, stage, profile.persona)
            outcome = evaluate(
                text,
                stage=stage,
                policy=policy,
                lexicon=self.lexicon.value,
                local_model_score=self.local_model(text, request.context),
                third_party_score=third.score if third else None,
            )
        check_id = str(uuid.uuid4())
        response = CheckResponse(
            check_id=uuid.UUID(check_id),
            decision=FinalDecision(final=outcome.final),
            results=Results(intimacy=outcome.result),
            policy=PolicyOut(name=policy, version=version),
            stage=stage,
        )
        source = "retrieval" if outcome.result.reused else ("llm" if third else "offline")
        inputs = {
            "text": text if self.settings.store_text else None,
            "text_hash": digest,
            "stage": stage,
            "policy": str(policy),
            "dimensions": [str(d) for d in request.dimensions],
            "profile_version": request.context.profile_version,
            "embedder": embedding.embedder,
            "local_model_score": outcome.result.sources.local_model,
            # Why the LLM gave no score when it was asked (timeout, malformed ...): the reply
            # itself is kept only when it gave one.
            "third_party_fault": third_fault,
            "reused": earlier if outcome.result.reused else None,
        }
        statements = [
            repository.insert_check(
                {
                    "id": check_id,
                    "text_hash": digest,
                    "stage": stage,
                    "policy": str(policy),
                    "policy_version": version,
                    "embedder": embedding.embedder,
                    "embedding": embedding.as_pgvector(),
                    "rule_score": outcome.result.sources.rule,
                    "local_score": outcome.result.sources.local_model,
                    "third_party_score": outcome.result.sources.third_party,
                    "score": outcome.result.score,
                    "label": str(outcome.result.label),
                    "final": str(outcome.final),
                    "reused_from": str(outcome.result.reused_from) if outcome.result.reused_from else None,
                    "similarity": outcome.result.similarity,
                },
                {
                    "function_name": self.function_name,
                    "engine_version": ENGINE_VERSION,
                    "config_version": version,
                    "inputs": _jsonable(inputs),
                    "output": replayable_output(response),
                    "source": source,
                    "model": third.model if third else None,
                    "raw_reply": third.raw_reply if third else None,
                },
            )
        ]
        if third is not None and cached is None:
            statements.append(
                repository.cache_llm_score(
                    digest,
                    stage=stage,
                    policy_version=version,
                    score=third.score,
                    model=third.model,
                    raw=third.raw_reply,
                )
            )
        try:
            self.db.run_as_user(caller.claims, *statements)
        except DbError as exc:
            if exc.sqlstate == FOREIGN_KEY_VIOLATION:
                # A service-role caller named a user_id that has no account.
                raise NotFound("user_not_found", "no such user", field="user_id") from None
            raise
        count(f"Moderation{outcome.final.capitalize()}")
        logger.info(
            "moderation check",
            extra={
                "check_id": check_id,
                "stage": stage,
                "policy": str(policy),
                "label": str(outcome.result.label),
                "final": str(outcome.final),
                "source": source,
            },
        )
        return response

    def _recall(
        self, caller: Caller, *, vector: str, digest: str, stage: int, version: str, embedder: str
    ) -> tuple[dict[str, Any] | None, ThirdPartyScore | None]:
        try:
            *_, nearest, cache_rows = self.db.run_as_user(
                caller.claims,
                *repository.nearest_check(vector, stage=stage, policy_version=version, embedder=embedder),
                repository.cached_llm_score(digest, stage=stage, policy_version=version),
            )
        except (DbError, OSError) as exc:
            count("ModerationRetrievalError")
            logger.warning("retrieval failed, computing the scores", extra={"error_type": type(exc).__name__})
            return None, None
        earlier = _jsonable(nearest[0]) if nearest else None
        cached = (
            ThirdPartyScore(float(cache_rows[0]["score"]), cache_rows[0]["model"], cache_rows[0]["raw_reply"])
            if cache_rows and self.settings.llm_score and self.llm.configured
            else None
        )
        return earlier, cached

    def _third_party(self, text: str, stage: int, persona: str) -> tuple[ThirdPartyScore | None, str | None]:
        """The LLM's score, or None and the fault that stopped it (§17.4: the check goes on)."""
        if not (self.settings.llm_score and self.llm.configured):
            return None, None
        try:
            return get_intimacy_score(self.llm, text, stage=stage, persona=persona), None
        except ThirdPartyAPIError as exc:
            count("ModerationThirdPartyError")
            logger.warning("third-party score unavailable", extra={"fallback_reason": exc.reason})
            return None, exc.reason


def replayable_output(response: CheckResponse) -> dict[str, Any]:
    """What a decision record keeps as the output: the response without its fresh id."""
    return response.model_dump(mode="json", exclude={"check_id"})


def _jsonable(row: dict[str, Any]) -> dict[str, Any]:
    return {key: str(value) if isinstance(value, uuid.UUID) else value for key, value in row.items()}


def moderation_service(db: Database) -> ModerationService:
    """The service with this process's settings and the layer's lexicon (validated at first use)."""
    from persona_rails.moderation.lexicon import lexicon_artifact
    from persona_rails.settings import cached_settings

    return ModerationService(
        db, cached_settings(ModerationSettings), cached_settings(LlmSettings), lexicon_artifact()
    )
