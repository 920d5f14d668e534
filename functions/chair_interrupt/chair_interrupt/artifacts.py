"""The engine's configuration (frameworks, quick-check patterns, openers, policy), loaded from
`config/`, validated and versioned once per cold start; a broken file fails the cold start with
the file and the JSON path. Every evaluation records `version`, one hash over the four files."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from chair_interrupt.engine.config import ChairConfig
from chair_interrupt.engine.policy import Frameworks, Openers, Policy, QuickCheckPatterns
from persona_rails.config import HASH_CHARS, load_artifact

CONFIG_DIR = Path(__file__).parent / "config"


def load_config(directory: Path = CONFIG_DIR) -> ChairConfig:
    frameworks = load_artifact(directory / "frameworks.json", Frameworks)
    quick = load_artifact(directory / "quick-check.json", QuickCheckPatterns)
    openers = load_artifact(directory / "openers.json", Openers)
    policy = load_artifact(directory / "policy.json", Policy)
    combined = hashlib.sha256(
        ";".join(a.content_hash for a in (frameworks, quick, openers, policy)).encode()
    ).hexdigest()
    return ChairConfig(
        frameworks=frameworks.value,
        quick_check=quick.value,
        openers=openers.value,
        policy=policy.value,
        version=f"{policy.value.version}+{combined[:HASH_CHARS]}",
    )


@cache
def chair_config() -> ChairConfig:
    return load_config()
