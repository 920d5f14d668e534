"""The intimacy plugin's local model (spec §12.2's `local_model_score`): a logistic regression
over the folded reply's n-grams, trained by `make train` from eval/intimacy (docs/judges.md).

It answers how intimate a reply reads, 0 (an ordinary friendly reply) to 1 (sexual), learned
from replies labelled friendly, caring, affectionate, romantic and sexual. Fusion weighs it 0.6
beside the rule score's 0.4 (§13). Read once per execution environment by the first check.
"""

from __future__ import annotations

from pathlib import Path

from persona_rails.folding import fold
from persona_rails.local_model import LocalModel, load_model
from persona_rails.moderation.lexicon import Lexicon

MODEL_FILE = Path(__file__).with_name("models") / "intimacy.json"
POSITIVE = "intimate"


def intimacy_model() -> LocalModel:
    return load_model(MODEL_FILE)


def cue_features(text: str, lexicon: Lexicon) -> dict[str, float]:
    """How many distinct cue words of each group (lexicon `scorer_cues`) the folded text holds."""
    folded = fold(text).casefold()
    features = {}
    for name, chinese, latin in lexicon.compiled_cues:
        found = sum(word in folded for word in chinese)
        if latin is not None:
            found += len(set(latin.findall(folded)))
        if found:
            features[f"cue_{name}"] = float(found)
    return features


def local_model_score(model: LocalModel, text: str, lexicon: Lexicon) -> float:
    return round(model.probabilities(text, cue_features(text, lexicon))[POSITIVE], 4)
