"""The three models: what each learns from (the shipped judge's own feature functions), its
settings, its decision bounds and where its file goes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from persona_rails_dev import evalsets
from persona_rails_dev.judges import with_function
from persona_rails_dev.train.fit import Example, Settings
from persona_rails_dev.train.models import Trained, train_model

NGRAM_BUCKETS = 1 << 16
CATEGORY_BUCKETS = 1 << 15
# The emergency bands: the emergency bound keeps false alarms at most this often (out of fold) ...
EMERGENCY_FALSE_ALARMS = 0.06
# ... and the doubt band reaches down until it holds this share of emergencies, never letting more
# than DOUBT_FALSE_ALARMS of other reasons into it.
DOUBT_RECALL = 0.99
DOUBT_FALSE_ALARMS = 0.15
# Chosen by cross-validation on the train split alone (out-of-fold recall minus false alarms, summed
# over the three languages, among l2 1e-4..3e-3 and rates 0.1..0.4; docs/judges.md).
EMERGENCY_SETTINGS = Settings(rate=0.2, l2=3e-4)
# How intimate each class of reply reads, the intimacy scorer's soft target (0 friendly .. 1 sexual).
# Romantic-partner and sexual replies are alike to it (never a companion's to send); the rule score
# and the stage's thresholds tell them apart.
INTIMACY_TARGETS = {"friendly": 0.0, "caring": 0.2, "affectionate": 0.5, "romantic": 1.0, "sexual": 1.0}


ItemT = TypeVar("ItemT", bound=evalsets.Item)


@dataclass(frozen=True)
class Spec:
    name: str
    path: Callable[[], Path]
    train: Callable[[], Trained]


def _examples(
    items: Sequence[ItemT],
    buckets: int,
    rules: Callable[[str], dict[str, float]],
    target: Callable[[ItemT], float | int],
) -> list[Example]:
    from persona_rails.local_model.features import text_features

    examples = []
    for item in items:
        slots, weight = text_features(item.text, buckets)
        examples.append(Example(tuple(slots), weight, rules(item.text), target(item)))
    return examples


def emergency_bounds(positives: list[float], negatives: list[float]) -> dict[str, float]:
    """The emergency and doubt bounds from out-of-fold probabilities (see the constants)."""

    def recall(bound: float) -> float:
        return sum(p >= bound for p in positives) / len(positives)

    def false_alarms(bound: float) -> float:
        return sum(p >= bound for p in negatives) / len(negatives)

    candidates = sorted({round(p, 4) for p in positives + negatives} | {0.5}, reverse=True)
    allowed = [bound for bound in candidates if false_alarms(bound) <= EMERGENCY_FALSE_ALARMS]
    emergency = max(allowed, key=lambda bound: (recall(bound) - false_alarms(bound), bound))
    reaching = [bound for bound in candidates if recall(bound) >= DOUBT_RECALL]
    floor = min(bound for bound in candidates if false_alarms(bound) <= DOUBT_FALSE_ALARMS)
    doubt = min(emergency, max(max(reaching, default=floor), floor))
    return {"emergency": emergency, "doubt": doubt}


def _emergency() -> Trained:
    with_function("intercept_session")
    from intercept_session.engine.emergency import rule_features, ruled_out
    from intercept_session.engine.urgency import read
    from intercept_session.urgency_config import urgency_rules

    rules = urgency_rules()
    # Every labelled reason says whether it is an emergency: the category set's (work, study,
    # breaks, other ... and its emergencies) teach the scorer what ordinary reasons look like.
    items = [
        *evalsets.load("emergency", "train", evalsets.EmergencyItem),
        *(
            evalsets.EmergencyItem(
                **item.model_dump(exclude={"category"}), emergency=item.category == "emergency"
            )
            for item in evalsets.load("category", "train", evalsets.CategoryItem)
        ),
    ]

    def thresholds(out_of_fold: list[float]) -> dict[str, float]:
        scored = [
            (item.emergency, 0.0 if ruled_out(read(item.text, rules)) else p)
            for item, p in zip(items, out_of_fold, strict=True)
        ]
        return emergency_bounds([p for yes, p in scored if yes], [p for yes, p in scored if not yes])

    return train_model(
        name="emergency",
        version="2026.11.2",
        classes=("none", "emergency"),
        buckets=NGRAM_BUCKETS,
        settings=EMERGENCY_SETTINGS,
        items=items,
        examples=_examples(
            items,
            NGRAM_BUCKETS,
            lambda text: rule_features(read(text, rules)),
            lambda item: 1.0 if item.emergency else 0.0,
        ),
        sources=(evalsets.ROOT / "emergency" / "train.jsonl", evalsets.ROOT / "category" / "train.jsonl"),
        thresholds=thresholds,
    )


def _category() -> Trained:
    with_function("intercept_session")
    from intercept_session.engine.model import Category
    from intercept_session.engine.offline_evaluator import category_features

    classes = tuple(category.value for category in Category)
    items = evalsets.load("category", "train", evalsets.CategoryItem)
    return train_model(
        name="category",
        version="2026.11.1",
        classes=classes,
        buckets=CATEGORY_BUCKETS,
        settings=Settings(rate=0.2, l2=1e-3),
        items=items,
        examples=_examples(
            items, CATEGORY_BUCKETS, category_features, lambda item: classes.index(item.category)
        ),
        sources=(evalsets.ROOT / "category" / "train.jsonl",),
    )


def _intimacy() -> Trained:
    with_function("moderation_check")
    from persona_rails.moderation.lexicon import lexicon_artifact
    from persona_rails.moderation.local_scorer import cue_features

    lexicon = lexicon_artifact().value
    items = evalsets.load("intimacy", "train", evalsets.IntimacyItem)
    return train_model(
        name="intimacy",
        version="2026.11.1",
        classes=("appropriate", "intimate"),
        buckets=NGRAM_BUCKETS,
        settings=Settings(rate=0.2, l2=1e-3),
        items=items,
        examples=_examples(
            items,
            NGRAM_BUCKETS,
            lambda text: cue_features(text, lexicon),
            lambda item: INTIMACY_TARGETS[item.klass],
        ),
        sources=(evalsets.ROOT / "intimacy" / "train.jsonl",),
    )


def _intercept_model(name: str) -> Callable[[], Path]:
    def path() -> Path:
        with_function("intercept_session")
        from intercept_session import judges

        model: Path = getattr(judges, f"{name.upper()}_MODEL")
        return model

    return path


def _intimacy_path() -> Path:
    with_function("moderation_check")
    from persona_rails.moderation.local_scorer import MODEL_FILE

    return MODEL_FILE


SPECS = {
    "emergency": Spec("emergency", _intercept_model("emergency"), _emergency),
    "category": Spec("category", _intercept_model("category"), _category),
    "intimacy": Spec("intimacy", _intimacy_path, _intimacy),
}
