"""The urgency lexicon (`config/urgency-lexicon.json`): validated and versioned at init (the
handler calls `urgency_config()`), compiled once per execution environment by the first reason
that needs it (`urgency_rules()`; a validated lexicon always compiles: its phrases are matched as
escaped text). The engine receives the compiled rules as an argument. The rule itself is
docs/emergencies.md.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from intercept_session.engine.urgency import UrgencyLexicon, UrgencyRules, compile_rules
from persona_rails.config import Artifact, ConfigError, load_artifact
from persona_rails.folding import fold

LEXICON_FILE = Path(__file__).with_name("config") / "urgency-lexicon.json"


def load_lexicon(path: Path = LEXICON_FILE) -> Artifact[UrgencyLexicon]:
    artifact = load_artifact(path, UrgencyLexicon)
    # The text is matched folded (Simplified, ASCII, no spelled-out words): a phrase that folds
    # to something else could never match.
    for json_path, phrase in artifact.value.phrases():
        if fold(phrase) != phrase:
            raise ConfigError(path, json_path, f"write '{phrase}' as it folds: '{fold(phrase)}'")
    return artifact


@cache
def urgency_config() -> Artifact[UrgencyLexicon]:
    return load_lexicon()


@cache
def urgency_rules() -> UrgencyRules:
    return compile_rules(urgency_config().value)
