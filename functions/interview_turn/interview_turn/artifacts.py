"""The interview engine's configuration: six artifacts (spec: Configuration Artifacts) plus the
signal lexicon, loaded from `config/`, validated and versioned once per cold start.

A broken artifact (bad JSON, a schema violation, a regex that does not compile, a template that
the safety overlay itself would reject) raises `ConfigError` naming the file and the path, so
the deploy's first cold start fails instead of a narrator's turn. Every turn records `version`:
one hash over the seven files, so any edit to any of them is visible in the turn history.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cache
from pathlib import Path

from pydantic import BaseModel

from interview_turn.engine.config import InterviewConfig
from interview_turn.engine.lint import template_problems
from interview_turn.engine.policy import (
    DepthGovernor,
    NegativeConstraints,
    PersonaProfiles,
    RouterPolicy,
    SignalLexicon,
    StateMachines,
)
from interview_turn.engine.scorer import LocalModels
from persona_rails import config_seal
from persona_rails.config import HASH_CHARS, ConfigError, load_artifact
from persona_rails.llm.tokens import count_tokens
from persona_rails.local_model import load_model

CONFIG_DIR = Path(__file__).parent / "config"
SYSTEM_PROMPT_FILE = "system-prompt-block.txt"
SYSTEM_PROMPT_MAX_WORDS = 300
# Each artifact's schema; `make interview-schemas` writes them as JSON Schema (Appendix A).
SCHEMAS: dict[str, type[BaseModel]] = {
    "router-policy.json": RouterPolicy,
    "depth-governor.json": DepthGovernor,
    "state-machines.json": StateMachines,
    "negative-constraints.json": NegativeConstraints,
    "persona-profiles.json": PersonaProfiles,
    "signal-lexicon.json": SignalLexicon,
}


def _system_prompt(directory: Path) -> tuple[str, str]:
    path = directory / SYSTEM_PROMPT_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(path, "$", f"cannot read the file ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(path, "$", f"not UTF-8 (byte {exc.start})") from exc
    words = len(text.split())
    if not 0 < words <= SYSTEM_PROMPT_MAX_WORDS:
        raise ConfigError(path, "$", f"must be 1 to {SYSTEM_PROMPT_MAX_WORDS} words (has {words})")
    return text, hashlib.sha256(text.encode()).hexdigest()


MODELS_DIR = Path(__file__).with_name("models")
SIGNAL_MODEL_FILE = "signals.json"
EMOTION_MODEL_FILE = "emotion.json"


def _models_loader(models_dir: Path) -> Callable[[], LocalModels]:
    def load() -> LocalModels:
        return LocalModels(
            signals=load_model(models_dir / SIGNAL_MODEL_FILE),
            emotion=load_model(models_dir / EMOTION_MODEL_FILE),
        )

    return load


def load_config(
    directory: Path = CONFIG_DIR, *, sealed: bool | None = None, models_dir: Path | None = MODELS_DIR
) -> InterviewConfig:
    """Every artifact, strictly, and every template line linted (its token count too), unless the
    folder is sealed: verified by `make package` and unchanged since (persona_rails.config_seal).
    Sealed, the artifacts' patterns are not compiled here either: `re` compiles each on first use.
    `models_dir`: the local models (models/, engine/scorer.py), read by the first turn that reads
    signals; None for the lexicons alone (what `make train` trains the models beside)."""
    if sealed is None:
        sealed = config_seal.sealed(directory)
    router = load_artifact(directory / "router-policy.json", RouterPolicy, sealed=sealed)
    depth = load_artifact(directory / "depth-governor.json", DepthGovernor, sealed=sealed)
    machines = load_artifact(directory / "state-machines.json", StateMachines, sealed=sealed)
    constraints = load_artifact(directory / "negative-constraints.json", NegativeConstraints, sealed=sealed)
    personas = load_artifact(directory / "persona-profiles.json", PersonaProfiles, sealed=sealed)
    lexicon = load_artifact(directory / "signal-lexicon.json", SignalLexicon, sealed=sealed)
    prompt, prompt_hash = _system_prompt(directory)
    hashes = [a.content_hash for a in (router, depth, machines, constraints, personas, lexicon)] + [
        prompt_hash,
        *(
            hashlib.sha256((models_dir / name).read_bytes()).hexdigest() if models_dir else "untrained"
            for name in (SIGNAL_MODEL_FILE, EMOTION_MODEL_FILE)
        ),
    ]
    combined = hashlib.sha256(";".join(hashes).encode()).hexdigest()
    config = InterviewConfig(
        router=router.value,
        depth=depth.value,
        machines=machines.value,
        constraints=constraints.value,
        personas=personas.value,
        lexicon=lexicon.value,
        system_prompt=prompt,
        version=f"{router.value.version}+{combined[:HASH_CHARS]}",
        load_models=_models_loader(models_dir) if models_dir else None,
    )
    problems = [] if sealed else template_problems(config, count_tokens)
    if problems:
        first, *rest = problems
        file_name, _, detail = first.partition(": ")
        more = f" (and {len(rest)} more)" if rest else ""
        raise ConfigError(directory / file_name, "$", detail + more)
    return config


@cache
def interview_config() -> InterviewConfig:
    return load_config()
