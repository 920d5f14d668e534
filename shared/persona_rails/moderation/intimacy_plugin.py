"""The intimacy plugin's I/O around its pure scoring (spec §11–§17).

First short transaction: the nearest earlier check (same user, stage, policy version and
embedder) and the cached LLM score, read together. Then, with no transaction open: the rules and
the local model score the text, an earlier decision is reused only where no source would see a
difference (intimacy.may_reuse), and otherwise the third-party LLM is asked. The rows (the check, its
decision record, a new LLM score) are written by the service with every plugin's, in one
transaction. Retrieval that fails degrades to computing the scores (§11); an LLM that fails
degrades to no third-party score (§17.4).
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from persona_rails.db import DbError
from persona_rails.folding import fold
from persona_rails.identity import Caller
from persona_rails.moderation import repository
from persona_rails.moderation.embedding import Embedding, embed
from persona_rails.moderation.intimacy import Evaluation, evaluate, may_reuse, reused
from persona_rails.moderation.local_scorer import local_model_score
from persona_rails.moderation.plugins import PluginRun, Statement
from persona_rails.moderation.records import policy_version, replayable_output, text_hash
from persona_rails.moderation.schemas import CheckRequest, CheckResponse
from persona_rails.moderation.scoring import ENGINE_VERSION
from persona_rails.moderation.third_party import ThirdPartyAPIError, ThirdPartyScore, get_intimacy_score
from persona_rails.observability import count, logger

if TYPE_CHECKING:
    from persona_rails.moderation.plugins import CheckSetup

KIND = "moderation.intimacy"


class IntimacyPlugin:
    def __init__(self, service: CheckSetup) -> None:
        self.service = service

    def run(self, caller: Caller, request: CheckRequest, check_id: uuid.UUID) -> PluginRun:
        service, profile = self.service, request.context.profile
        stage, policy, text = profile.intimacy_stage, request.policy, request.text
        version = policy_version(policy, service.lexicon, service.local_model)
        digest = text_hash(text)
        folded = text_hash(fold(text))
        embedding = embed(
            text,
            model=service.settings.embedding_model,
            api_key=service.llm.api_key,
            base_url=service.llm.base_url,
            timeout=service.llm.timeout_seconds,
        )
        earlier, cached = self._recall(caller, embedding, digest=digest, stage=stage, version=version)

        lexicon = service.lexicon.value
        model = service.local_model
        local_score = local_model_score(model, text, lexicon) if model is not None else None
        computed = evaluate(
            text,
            stage=stage,
            policy=policy,
            lexicon=lexicon,
            local_model_score=local_score,
            third_party_score=None,
        )
        third: ThirdPartyScore | None = None
        third_fault: str | None = None
        outcome: Evaluation | None = None
        if (
            earlier is not None
            and earlier["similarity"] >= service.settings.retrieval_threshold
            and may_reuse(
                earlier,
                folded_hash=folded,
                computed=computed,
                llm_asked=service.llm_asked,
                stage=stage,
                policy=policy,
                lexicon=lexicon,
                text=text,
            )
        ):
            outcome = reused(earlier)
        if outcome is None:
            third, third_fault = (cached, None) if cached else self._third_party(text, stage, profile.persona)
            outcome = computed
            if third is not None:
                outcome = evaluate(
                    text,
                    stage=stage,
                    policy=policy,
                    lexicon=lexicon,
                    local_model_score=local_score,
                    third_party_score=third.score,
                )
        result = outcome.result
        source = "retrieval" if result.reused else ("llm" if third else "offline")
        inputs = {
            "text": text if service.settings.store_text else None,
            "text_hash": digest,
            "stage": stage,
            "policy": str(policy),
            "dimensions": [str(d) for d in request.dimensions],
            "profile_version": request.context.profile_version,
            "embedder": embedding.embedder,
            "local_model_score": result.sources.local_model,
            "local_model": service.local_model.id if service.local_model else None,
            # Why the LLM gave no score when it was asked (timeout, malformed ...): the reply
            # itself is kept only when it gave one.
            "third_party_fault": third_fault,
            "reused": earlier if result.reused else None,
        }

        def write(response: CheckResponse) -> list[Statement]:
            statements = [
                repository.insert_check(
                    {
                        "id": str(check_id),
                        "text_hash": digest,
                        "folded_hash": folded,
                        "stage": stage,
                        "policy": str(policy),
                        "policy_version": version,
                        "embedder": embedding.embedder,
                        "embedding": embedding.as_pgvector(),
                        "rule_score": result.sources.rule,
                        "local_score": result.sources.local_model,
                        "third_party_score": result.sources.third_party,
                        "score": result.score,
                        "label": str(result.label),
                        "final": str(response.decision.final),
                        "reused_from": str(result.reused_from) if result.reused_from else None,
                        "similarity": result.similarity,
                    },
                    {
                        "function_name": service.function_name,
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
            return statements

        log = {"stage": stage, "policy": str(policy), "label": str(result.label), "source": source}
        return PluginRun(label=result.label, result=result, write=write, log=log)

    def _recall(
        self, caller: Caller, embedding: Embedding, *, digest: str, stage: int, version: str
    ) -> tuple[dict[str, Any] | None, ThirdPartyScore | None]:
        service = self.service
        try:
            *_, nearest, cache_rows = service.db.run_as_user(
                caller.claims,
                *repository.nearest_check(
                    embedding.as_pgvector(),
                    user_id=caller.user_id,
                    stage=stage,
                    policy_version=version,
                    embedder=embedding.embedder,
                ),
                repository.cached_llm_score(digest, stage=stage, policy_version=version),
            )
        except (DbError, OSError) as exc:
            count("ModerationRetrievalError")
            logger.warning("retrieval failed, computing the scores", extra={"error_type": type(exc).__name__})
            return None, None
        earlier = _jsonable(nearest[0]) if nearest else None
        cached = (
            ThirdPartyScore(float(cache_rows[0]["score"]), cache_rows[0]["model"], cache_rows[0]["raw_reply"])
            if cache_rows and service.llm_asked
            else None
        )
        return earlier, cached

    def _third_party(self, text: str, stage: int, persona: str) -> tuple[ThirdPartyScore | None, str | None]:
        """The LLM's score, or None and the fault that stopped it (§17.4: the check goes on)."""
        service = self.service
        if not service.llm_asked:
            return None, None
        try:
            return get_intimacy_score(service.llm, text, stage=stage, persona=persona), None
        except ThirdPartyAPIError as exc:
            count("ModerationThirdPartyError")
            logger.warning("third-party score unavailable", extra={"fallback_reason": exc.reason})
            return None, exc.reason


def _jsonable(row: dict[str, Any]) -> dict[str, Any]:
    return {key: str(value) if isinstance(value, uuid.UUID) else value for key, value in row.items()}
