"""What a moderation check's rows and decision record name: the version its decision was made
under, the hash of its text, and the output a replay compares."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from persona_rails.config import Artifact
    from persona_rails.local_model import LocalModel
    from persona_rails.moderation.lexicon import Lexicon
    from persona_rails.moderation.schemas import CheckResponse
    from persona_rails.moderation.scoring import Policy


def policy_version(policy: Policy, lexicon: Artifact[Lexicon], local_model: LocalModel | None) -> str:
    """What a decision was made under: retrieval never reuses one made under another version."""
    model = f"+{local_model.id}" if local_model is not None else ""
    return f"{policy}@{lexicon.version}{model}"


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def replayable_output(response: CheckResponse) -> dict[str, Any]:
    """What a decision record keeps as the output: the response without its fresh id."""
    return response.model_dump(mode="json", exclude={"check_id"})
