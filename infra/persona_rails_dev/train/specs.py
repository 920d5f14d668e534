"""The three models: what each learns from (the shipped judge's own feature functions), its
settings, its decision bounds and where its file goes."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from persona_rails_dev import evalsets
from persona_rails_dev.judges import with_function
from persona_rails_dev.train.fit import Example, Settings
from persona_rails_dev.train.models import Trained, train_model

NGRAM_BUCKETS = 1 << 16
CATEGORY_BUCKETS = 1 << 15
CHAIR_BUCKETS = 1 << 15
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


def chair_shift(
    interrupting: list[float], warranted: list[bool], fixed: tuple[int, int, int], threshold: float
) -> float:
    """The urgency shift (engine/scorer.py) at which the weaker of precision and recall of
    "interrupt" at `threshold` is best (the issue sets a floor on both), over out-of-fold
    probabilities; `fixed` counts (found, false, missed) decided without the scorer."""
    from chair_interrupt.engine.scorer import shifted

    def weaker(shift: float) -> float:
        found, false, missed = fixed
        for probability, wanted in zip(interrupting, warranted, strict=True):
            hit = shifted(probability, shift) >= threshold
            found += hit and wanted
            false += hit and not wanted
            missed += wanted and not hit
        return min(found / (found + false), found / (found + missed)) if found else 0.0

    shifts = [step / 10 for step in range(-40, 41)]
    return max(shifts, key=lambda shift: (weaker(shift), -abs(shift)))


# The hedged bound silences at most this share of the chunks that the scorer would let interrupt
# at aggressiveness 3 and that warrant it (out of fold): a hedged claim must never interrupt below
# aggressiveness 5 (issue 22), and the bound buys that with a few real moments.
HEDGED_SILENCED = 0.06


def bound_reached_by(values: list[float], share: float) -> float:
    """The lowest bound that at most `share` of `values` reach: just above the value that would
    make one too many (1.0 when they may all reach it)."""
    ordered = sorted(values, reverse=True)
    allowed = int(share * len(ordered))
    return round(ordered[allowed] + 1e-4, 4) if allowed < len(ordered) else 1.0


def _chair() -> Trained:
    with_function("chair_interrupt")
    from chair_interrupt.artifacts import load_config
    from chair_interrupt.engine.detectors import read, rule_features
    from chair_interrupt.engine.model import Reason
    from chair_interrupt.engine.quick import quick_check
    from chair_interrupt.engine.scorer import CLASSES, hedged_share, shifted
    from persona_rails.local_model.features import text_features

    config = load_config(model_path=None)
    items = evalsets.load("chair", "train", evalsets.ChairItem)
    readings = [read(config.detectors, config.hedges, config.aliases, item.text) for item in items]
    quicks = [quick_check(config, item.text) for item in items]
    examples = []
    for item, reading, quick in zip(items, readings, quicks, strict=True):
        slots, weight = text_features(item.text, CHAIR_BUCKETS)
        features = rule_features(reading, quick, item.speaker, frozenset(item.listeners))
        klass = "hedged" if item.hedged else item.reason
        examples.append(Example(tuple(slots), weight, features, CLASSES.index(klass)))

    threshold = config.threshold(3)

    def at(
        out_of_fold: list[list[float]], bound: float
    ) -> tuple[tuple[int, int, int], list[float], list[bool], list[float]]:
        """Decided as at aggressiveness 3 (engine/evaluate.py): a hedged chunk (by the lexicon, or
        by the scorer where no rule speaks: its most probable class, or a hedged share at the
        bound) never interrupts; a rule trigger by its base urgency. The counts so decided, and
        the rest, for the scorer: P(interrupt), whether it is warranted, and its hedged share."""
        found = false = missed = 0
        interrupting, warranted, shares = [], [], []
        for item, reading, quick, probabilities in zip(items, readings, quicks, out_of_fold, strict=True):
            wanted = item.reason != "none"
            rule = quick.likely_reason or (Reason.FACTUAL_CORRECTION if reading.misattributed else None)
            named = dict(zip(CLASSES, probabilities, strict=True))
            learned = max(named, key=named.__getitem__) == "hedged" or hedged_share(named) >= bound
            hedged = reading.hedged or (learned and rule is None)
            if hedged or rule is not None:
                urgent = rule is not None and config.policy.offline.base_urgency[rule] >= threshold
                hit = not hedged and urgent
                found += hit and wanted
                false += hit and not wanted
                missed += wanted and not hit
            else:
                interrupting.append(1 - named["none"] - named["hedged"])
                warranted.append(wanted)
                shares.append(hedged_share(named))
        return (found, false, missed), interrupting, warranted, shares

    def thresholds(out_of_fold: list[list[float]]) -> dict[str, float]:
        # The shift without the hedged bound, the bound from the warranted chunks the scorer
        # then lets interrupt, and the shift again with the bound in place.
        fixed, interrupting, warranted, shares = at(out_of_fold, 1.0)
        shift = chair_shift(interrupting, warranted, fixed, threshold)
        would = [
            share
            for share, probability, wanted in zip(shares, interrupting, warranted, strict=True)
            if wanted and shifted(probability, shift) >= threshold
        ]
        bound = bound_reached_by(would, HEDGED_SILENCED)
        fixed, interrupting, warranted, _ = at(out_of_fold, bound)
        return {
            "urgency_shift": chair_shift(interrupting, warranted, fixed, threshold),
            "hedged_share": bound,
        }

    return train_model(
        name="chair",
        version="2026.11.1",
        classes=CLASSES,
        buckets=CHAIR_BUCKETS,
        # Fifteen epochs, not thirty: a chunk fills ten times the slots of a reason, and eight
        # classes train eight vectors (CI retrains every model).
        settings=Settings(epochs=15, rate=0.2, l2=1e-3),
        items=items,
        examples=examples,
        sources=(evalsets.ROOT / "chair" / "train.jsonl",),
        thresholds=thresholds,
    )


def _chair_path() -> Path:
    with_function("chair_interrupt")
    from chair_interrupt.artifacts import CHAIR_MODEL

    return CHAIR_MODEL


# Each learned signal may flag at most this share of answers labelled otherwise (out of fold): a
# hard stop closes the session, so it must rarely fire on an answer that asks for none.
SIGNAL_FALSE_FLAGS = {"pause": 0.05, "stop_request": 0.03, "acute_distress": 0.03, "self_harm": 0.05}
# The hard stops' summed probability may add hard stops (beyond the classes' own bounds) to at
# most this share of the answers labelled no hard stop, and every signal's summed probability may
# add pauses to at most this share of the answers labelled none (out of fold). The knees on the
# development sets were 1.5 % and 3 %; each was lowered until the unit tests' plain answers
# ("我不想活在过去。", "I don't need a break, go on.") asked for nothing (docs/judges.md).
HARD_STOP_MASS_FALSE_FLAGS = 0.01
ANY_SIGNAL_FALSE_FLAGS = 0.02


def signal_bounds(
    labels: list[str],
    out_of_fold: list[list[float]],
    classes: tuple[str, ...],
    readings: list[dict[str, float]],
) -> dict[str, float]:
    """The signal model's bounds (engine/scorer.py `decided`), each the lowest that flags at most
    its share of the answers labelled otherwise once the bounds before it are in place: per
    learned signal (SIGNAL_FALSE_FLAGS), then the hard stops' summed probability and every
    signal's (HARD_STOP_MASS_FALSE_FLAGS, ANY_SIGNAL_FALSE_FLAGS)."""
    from interview_turn.engine.scorer import (
        ANY_SIGNAL,
        HARD_STOP_MASS,
        HARD_STOPS,
        allowed,
        decided,
        hard_stop_mass,
        pause_leads,
    )

    bounds = {}
    for name, share in SIGNAL_FALSE_FLAGS.items():
        column = classes.index(name)
        others = [p[column] for label, p in zip(labels, out_of_fold, strict=True) if label != name]
        bounds[name] = bound_reached_by(others, share)
    answers = [
        (label, allowed(dict(zip(classes, p, strict=True)), reading))
        for label, p, reading in zip(labels, out_of_fold, readings, strict=True)
    ]

    # An answer the classes' own bounds leave undecided reaches this rule at its hard mass.
    reaching = [
        hard_stop_mass(p) if decided(p, bounds) == "none" and hard_stop_mass(p) > p["pause"] else 0.0
        for label, p in answers
        if label not in HARD_STOPS
    ]
    bounds[HARD_STOP_MASS] = bound_reached_by(reaching, HARD_STOP_MASS_FALSE_FLAGS)
    reaching = [
        hard_stop_mass(p) + p["pause"] if decided(p, bounds) == "none" and pause_leads(p) else 0.0
        for label, p in answers
        if label == "none"
    ]
    bounds[ANY_SIGNAL] = bound_reached_by(reaching, ANY_SIGNAL_FALSE_FLAGS)
    return bounds


def _interview_training() -> tuple[Sequence[evalsets.InterviewItem], Callable[[str], dict[str, float]]]:
    """The train split, and the lexicons' readings of an answer as the models see them."""
    with_function("interview_turn")
    from interview_turn.artifacts import load_config
    from interview_turn.engine.signals import rule_features

    config = load_config(models_dir=None)
    lexicon = config.compiled_lexicon
    items = evalsets.load("interview", "train", evalsets.InterviewItem)

    def features(text: str) -> dict[str, float]:
        return rule_features(config.for_matching(text), lexicon)

    return items, features


def _interview_trained(
    name: str,
    classes: tuple[str, ...],
    target: Callable[[evalsets.InterviewItem], float | int],
    thresholds: Callable[
        [Sequence[evalsets.InterviewItem], list[Any], Callable[[str], dict[str, float]]], dict[str, float]
    ],
    authors: frozenset[str] | None = None,
) -> Trained:
    """One of the interview's local models, fitted on the train split (or its `authors`' items)
    with the lexicons' readings."""
    items, features = _interview_training()
    if authors is not None:
        items = [item for item in items if item.author in authors]
    return train_model(
        name=name,
        version="2026.11.1",
        classes=classes,
        buckets=CATEGORY_BUCKETS,
        settings=Settings(rate=0.2, l2=1e-3),
        items=items,
        examples=_examples(items, CATEGORY_BUCKETS, features, target),
        sources=(evalsets.ROOT / "interview" / "train.jsonl",),
        thresholds=lambda out_of_fold: thresholds(items, out_of_fold, features),
    )


def _interview_signals() -> Trained:
    with_function("interview_turn")
    from interview_turn.engine.scorer import SIGNAL_CLASSES

    return _interview_trained(
        "signals",
        SIGNAL_CLASSES,
        lambda item: SIGNAL_CLASSES.index(item.signal),
        lambda items, out_of_fold, features: signal_bounds(
            [item.signal for item in items],
            out_of_fold,
            SIGNAL_CLASSES,
            [features(item.text) for item in items],
        ),
    )


# The emotion model's bound reaches at most this share of the answers labelled below high, and of
# those labelled low (out of fold): an answer read as heavy turns the interviewer to the feeling.
EMOTION_FALSE_HIGH = {"moderate": 0.15, "low": 0.03}
# The emotion model learns from the authors who wrote answers across the range of feeling. Authors
# e and f wrote for the signal model (indirect signals; the same words in plain answers): with
# their items the emotion model read more heavy answers on the test split (59 % to 65 %) but more
# moderate ones as heavy too (8 % to 12.5 %), and a plain "Something like that, hard to say." as
# heavy (docs/judges.md).
EMOTION_AUTHORS = frozenset({"a", "b", "c"})


def emotion_bound(labels: list[str], out_of_fold: list[float]) -> float:
    """The lowest bound that keeps each label's share under EMOTION_FALSE_HIGH."""
    bounds = [0.5]
    for label, allowed in EMOTION_FALSE_HIGH.items():
        labelled = [p for lab, p in zip(labels, out_of_fold, strict=True) if lab == label]
        if labelled:
            bounds.append(bound_reached_by(labelled, allowed))
    return max(bounds)


def _interview_emotion() -> Trained:
    with_function("interview_turn")
    from interview_turn.engine.scorer import EMOTION_CLASSES

    return _interview_trained(
        "emotion",
        EMOTION_CLASSES,
        lambda item: float(item.emotion == "high"),
        lambda items, out_of_fold, _features: {
            "high": emotion_bound([item.emotion for item in items], out_of_fold)
        },
        authors=EMOTION_AUTHORS,
    )


def _interview_model(file_name: str) -> Callable[[], Path]:
    def path() -> Path:
        with_function("interview_turn")
        from interview_turn.artifacts import MODELS_DIR

        return MODELS_DIR / file_name

    return path


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
    "chair": Spec("chair", _chair_path, _chair),
    "interview": Spec("interview", _interview_model("signals.json"), _interview_signals),
    "interview-emotion": Spec("interview-emotion", _interview_model("emotion.json"), _interview_emotion),
}


def trained(name: str) -> tuple[bytes, Path, float]:
    """A model's file as `make train` writes it, where it goes, and the seconds training took (run in
    a worker process by `python -m persona_rails_dev.train`)."""
    spec = SPECS[name]
    started = time.perf_counter()
    data = spec.train().data()
    return data, spec.path(), time.perf_counter() - started
