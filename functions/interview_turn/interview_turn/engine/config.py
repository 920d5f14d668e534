"""The loaded configuration the engine runs on: the artifacts, their patterns compiled once."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from interview_turn.engine.policy import (
    DepthGovernor,
    NegativeConstraints,
    PersonaProfiles,
    RouterPolicy,
    SignalLexicon,
    StateMachines,
)
from interview_turn.engine.scorer import EmotionScale, LocalModels
from persona_rails.folding import fold, fold_pattern

FLAGS = re.IGNORECASE


def compiled(patterns: list[str], flags: int = FLAGS) -> tuple[re.Pattern[str], ...]:
    # Text is matched folded (InterviewConfig.for_matching): each pattern is folded the same way.
    return tuple(re.compile(fold_pattern(pattern), flags) for pattern in patterns)


@dataclass(frozen=True)
class CompiledLexicon:
    self_harm: tuple[re.Pattern[str], ...]
    acute_distress: tuple[re.Pattern[str], ...]
    stop_request: tuple[re.Pattern[str], ...]
    refusal: tuple[re.Pattern[str], ...]
    discomfort: tuple[re.Pattern[str], ...]
    pacing: tuple[re.Pattern[str], ...]
    resumption: tuple[re.Pattern[str], ...]
    keep_going: tuple[re.Pattern[str], ...]
    go_on: tuple[re.Pattern[str], ...]
    topic_change: tuple[re.Pattern[str], ...]
    hedges: tuple[re.Pattern[str], ...]
    emotion: tuple[tuple[re.Pattern[str], float], ...]
    intensifiers: tuple[re.Pattern[str], ...]
    elaboration: tuple[re.Pattern[str], ...]
    reflection: tuple[re.Pattern[str], ...]
    correction: tuple[re.Pattern[str], ...]
    specifics: tuple[re.Pattern[str], ...]
    anchors: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...]
    years: tuple[re.Pattern[str], ...]
    ages: tuple[re.Pattern[str], ...]
    # Place and name patterns rely on capitalization, so they are case-sensitive.
    places: tuple[re.Pattern[str], ...]
    names: tuple[re.Pattern[str], ...]
    place_stopwords: frozenset[str]
    repeatable_anchors: frozenset[str]
    # Other people first, the narrator ("self") last: "I remember my father died" is his event.
    subjects: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...]
    negation_before: tuple[re.Pattern[str], ...]
    declined_after: tuple[re.Pattern[str], ...]

    @classmethod
    def of(cls, lexicon: SignalLexicon) -> CompiledLexicon:
        return cls(
            self_harm=compiled(lexicon.hard_stops.self_harm),
            acute_distress=compiled(lexicon.hard_stops.acute_distress),
            stop_request=compiled(lexicon.hard_stops.stop_request),
            refusal=compiled(lexicon.refusal),
            discomfort=compiled(lexicon.discomfort),
            pacing=compiled(lexicon.pacing),
            resumption=compiled(lexicon.resumption),
            keep_going=compiled(lexicon.keep_going),
            go_on=compiled(lexicon.go_on),
            topic_change=compiled(lexicon.topic_change),
            hedges=compiled(lexicon.hedges),
            emotion=tuple(
                (re.compile(fold_pattern(item.pattern), FLAGS), item.weight) for item in lexicon.emotion
            ),
            intensifiers=compiled(lexicon.intensifiers),
            elaboration=compiled(lexicon.elaboration),
            reflection=compiled(lexicon.reflection),
            correction=compiled(lexicon.correction),
            specifics=compiled(lexicon.specifics),
            anchors=tuple((name, compiled(patterns)) for name, patterns in lexicon.facts.anchors.items()),
            years=compiled(lexicon.facts.year),
            ages=compiled(lexicon.facts.age),
            places=compiled(lexicon.facts.place, 0),
            names=compiled(lexicon.facts.name, 0),
            place_stopwords=frozenset(lexicon.facts.place_stopwords),
            repeatable_anchors=frozenset(lexicon.facts.repeatable_anchors),
            subjects=tuple(
                sorted(
                    ((name, compiled(patterns)) for name, patterns in lexicon.facts.subjects.items()),
                    key=lambda subject: subject[0] == "self",
                )
            ),
            negation_before=compiled(lexicon.negation_before),
            declined_after=compiled(lexicon.declined_after),
        )


@dataclass(frozen=True)
class CompiledConstraints:
    """(rule id, fallback name, patterns) per prohibited-pattern rule, therapy framing last."""

    rules: tuple[tuple[str, str, tuple[re.Pattern[str], ...]], ...]

    @classmethod
    def of(cls, constraints: NegativeConstraints) -> CompiledConstraints:
        rules = [(c.id, c.fallback, compiled(c.patterns)) for c in constraints.constraints]
        framing = constraints.therapy_framing
        rules.append((framing.id, framing.fallback, compiled(framing.patterns)))
        return cls(tuple(rules))


@dataclass(frozen=True)
class InterviewConfig:
    router: RouterPolicy
    depth: DepthGovernor
    machines: StateMachines
    constraints: NegativeConstraints
    personas: PersonaProfiles
    lexicon: SignalLexicon
    system_prompt: str
    # Recorded on every turn: one version for the six artifacts and the local models together
    # (see artifacts.py).
    version: str
    # Reads the local models (engine/scorer.py; artifacts.py knows their files), or None for the
    # lexicons alone.
    load_models: Callable[[], LocalModels] | None = None

    # Compiled on first use, by the first turn that reads signals or checks a reply, so that a
    # cold start answering `POST /interview/sessions` compiles none of the ~200 patterns.
    @cached_property
    def compiled_lexicon(self) -> CompiledLexicon:
        return CompiledLexicon.of(self.lexicon)

    @cached_property
    def local_models(self) -> LocalModels | None:
        """Read by the first turn that reads signals (about 10 ms), not by a session start."""
        return None if self.load_models is None else self.load_models()

    @property
    def emotion_scale(self) -> EmotionScale:
        # Halfway to the distress threshold at most: the model alone never stabilizes a turn.
        reads_high = self.router.thresholds.emotion
        return EmotionScale(reads_high, (reads_high + self.depth.distress_hard_stop_threshold) / 2)

    @cached_property
    def compiled_constraints(self) -> CompiledConstraints:
        return CompiledConstraints.of(self.constraints)

    def compile_patterns(self) -> None:
        """Compile now what the first turn would: under SnapStart, init runs once per published
        version, so no restored copy pays for it."""
        _ = self.compiled_lexicon, self.compiled_constraints, self.local_models

    def for_matching(self, text: str) -> str:
        """What the lexicons and the prohibited patterns are matched against: the layer's folding
        (persona_rails.folding: typographic apostrophes as ASCII, Traditional Chinese as
        Simplified, full-width and look-alike letters read, words spelled out or broken up by
        marks joined). Never stored."""
        return fold(text)
