"""The moderation service: one check, as library mode and ModerationCheckFunction both run it.

It runs the plugin of every dimension the request names (`plugins.py`; `intimacy` is the first),
decides with the PolicyEngine (reject > rewrite > warn > pass, §14.2), and writes every plugin's
rows in one transaction. A check costs two round trips: the intimacy plugin's read, then the
write; the models are called between them, with no transaction open. Raw text is never logged;
it is stored for its owner only, and only while `PERSONA_RAILS_MODERATION_STORE_TEXT` is on
(replay needs it).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from persona_rails.config import Artifact, json_path
from persona_rails.db import Database, unknown_user_is_not_found
from persona_rails.errors import Invalid
from persona_rails.identity import Caller
from persona_rails.local_model import LocalModel
from persona_rails.moderation.lexicon import Lexicon
from persona_rails.moderation.plugins import Plugin
from persona_rails.moderation.records import policy_version
from persona_rails.moderation.schemas import (
    CheckRequest,
    CheckResponse,
    Dimension,
    FinalDecision,
    PolicyOut,
    Results,
)
from persona_rails.moderation.scoring import decide
from persona_rails.observability import count, logger
from persona_rails.settings import LlmSettings, ModerationSettings

DEFAULT_FUNCTION = "ModerationCheckFunction"


@dataclass
class ModerationService:
    """Runs the plugin of each dimension a request names, and decides with the PolicyEngine."""

    db: Database
    settings: ModerationSettings
    llm: LlmSettings
    lexicon: Artifact[Lexicon]
    # §12.2's local model: the shipped intimacy scorer (local_scorer.py); None leaves the slot empty.
    local_model: LocalModel | None
    function_name: str = DEFAULT_FUNCTION
    plugins: dict[Dimension, Plugin] = field(init=False)

    def __post_init__(self) -> None:
        # At the first check, not at import: a handler's init loads only what its first request needs.
        from persona_rails.moderation.intimacy_plugin import IntimacyPlugin

        self.plugins = {Dimension.INTIMACY: IntimacyPlugin(self)}

    @property
    def llm_asked(self) -> bool:
        """Whether a check asks the third-party LLM (or finds its cached score)."""
        return self.settings.llm_score and self.llm.configured

    def check_payload(self, caller: Caller, payload: dict[str, Any]) -> dict[str, Any]:
        """Library mode: the §3.1 payload in, the §4 response out, bad input as `Invalid`."""
        try:
            request = CheckRequest.model_validate(payload)
        except ValidationError as exc:
            first = exc.errors()[0]
            field_name = json_path(tuple(first["loc"])).removeprefix("$.")
            raise Invalid("validation_error", f"{field_name}: {first['msg']}", field=field_name) from None
        return self.check(caller, request).model_dump(mode="json")

    def check(self, caller: Caller, request: CheckRequest) -> CheckResponse:
        check_id = uuid.uuid4()
        runs = {
            dimension: self.plugins[dimension].run(caller, request, check_id)
            for dimension in request.dimensions
        }
        final = decide(run.label for run in runs.values())
        response = CheckResponse(
            check_id=check_id,
            decision=FinalDecision(final=final),
            results=Results.model_validate({str(dimension): run.result for dimension, run in runs.items()}),
            policy=PolicyOut(
                name=request.policy, version=policy_version(request.policy, self.lexicon, self.local_model)
            ),
            stage=request.context.profile.intimacy_stage,
        )
        statements = [statement for run in runs.values() for statement in run.write(response)]
        with unknown_user_is_not_found():
            self.db.run_as_user(caller.claims, *statements)
        count(f"Moderation{final.capitalize()}")
        logger.info(
            "moderation check",
            extra={
                "check_id": str(check_id),
                "final": str(final),
                **{
                    f"{dimension}_{key}": value
                    for dimension, run in runs.items()
                    for key, value in run.log.items()
                },
            },
        )
        return response


def moderation_service(db: Database) -> ModerationService:
    """The service with this process's settings and the layer's lexicon (validated at first use)."""
    from persona_rails.moderation.lexicon import lexicon_artifact
    from persona_rails.moderation.local_scorer import intimacy_model
    from persona_rails.settings import cached_settings

    return ModerationService(
        db,
        cached_settings(ModerationSettings),
        cached_settings(LlmSettings),
        lexicon_artifact(),
        intimacy_model(),
    )
