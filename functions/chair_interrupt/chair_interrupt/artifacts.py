"""The engine's configuration (frameworks, quick-check patterns, openers, policy, detectors) and
its local scorer, loaded from `config/` and `models/`, validated and versioned once per cold start;
a broken file fails the cold start with the file and the JSON path. Every evaluation records
`version`, one hash over the five files and the model file. The model's weights are read by the
first offline evaluation that needs them."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from chair_interrupt.engine.config import ChairConfig
from chair_interrupt.engine.policy import Detectors, Frameworks, Openers, Policy, QuickCheckPatterns
from persona_rails import config_seal
from persona_rails.config import HASH_CHARS, load_artifact
from persona_rails.local_model import LocalModel, load_model

CONFIG_DIR = Path(__file__).parent / "config"
CHAIR_MODEL = Path(__file__).with_name("models") / "chair.json"


def load_config(
    directory: Path = CONFIG_DIR, model_path: Path | None = CHAIR_MODEL, *, sealed: bool | None = None
) -> ChairConfig:
    """`model_path=None`: the configuration without its scorer (what `make train` trains it for).
    `sealed`: the folder was verified by `make package` (persona_rails.config_seal); by default,
    whether its seal matches."""
    if sealed is None:
        sealed = config_seal.sealed(directory)
    frameworks = load_artifact(directory / "frameworks.json", Frameworks, sealed=sealed)
    quick = load_artifact(directory / "quick-check.json", QuickCheckPatterns, sealed=sealed)
    openers = load_artifact(directory / "openers.json", Openers, sealed=sealed)
    policy = load_artifact(directory / "policy.json", Policy, sealed=sealed)
    detectors = load_artifact(directory / "detectors.json", Detectors, sealed=sealed)
    model_hash = hashlib.sha256(model_path.read_bytes()).hexdigest() if model_path else "untrained"
    combined = hashlib.sha256(
        ";".join(
            [*(a.content_hash for a in (frameworks, quick, openers, policy, detectors)), model_hash]
        ).encode()
    ).hexdigest()
    return ChairConfig(
        frameworks=frameworks.value,
        quick_check=quick.value,
        openers=openers.value,
        policy=policy.value,
        detector_rules=detectors.value,
        version=f"{policy.value.version}+{combined[:HASH_CHARS]}",
    )


@cache
def chair_config() -> ChairConfig:
    return load_config()


def chair_model() -> LocalModel:
    return load_model(CHAIR_MODEL)
