"""A scenario and a persona made ready to run: every pattern compiled once, with the language's
lexicon, the policy and the baseline rules. Engines receive a `Case` and read no files."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import groupby
from typing import TypeVar

from persona_rails.folding import fold, fold_pattern
from persona_rails.user_patterns import Searchable
from sps_encounter.engine.case import Language, ObjectiveSlot, Persona, Scenario, Slot
from sps_encounter.engine.gates import Gated, literals
from sps_encounter.engine.policy import GoldRule, LanguageLexicon, Lexicon, Policy
from sps_encounter.engine.text import bounded_union, named_union, opening_tokens, union


class CaseMismatch(ValueError):
    """A persona that cannot play a scenario; `field` names what to change."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


T = TypeVar("T")


def gated(patterns: list[str]) -> Gated:
    # The checks run on every turn of a validated transcript: behind literal gates, a turn
    # that holds none of a list's literals costs a few substring searches.
    return Gated.of(("lexicon", pattern) for pattern in patterns)


def _lazy(build: Callable[[list[str]], T], name: str) -> cached_property[T]:
    """A `CompiledLanguage` attribute: its lexicon's list `name`, built by `build` on first read."""

    def compile_list(language: CompiledLanguage) -> T:
        return build(getattr(language.source, name))

    return cached_property(compile_list)


@dataclass(frozen=True)
class CompiledLanguage:
    """A language's lexicon, each pattern list compiled on first use (a start compiles few)."""

    language: Language
    source: LanguageLexicon

    @classmethod
    def of(cls, language: Language, lexicon: LanguageLexicon) -> CompiledLanguage:
        return cls(language, lexicon)

    # Each of the lexicon's lists, compiled (gated, joined into one pattern, or kept) on first read.
    role_question = _lazy(gated, "role_question")

    @cached_property
    def question_kinds(self) -> Gated:
        """The narrative, then the closed, then the open patterns, each named by its kind: the
        first that matches is the kind of a learner's question (one look for the literals of all
        three, on every learner turn)."""
        source = self.source
        return Gated.of(
            (kind, pattern)
            for kind, patterns in (
                ("narrative", source.narrative),
                ("closed", source.closed),
                ("open", source.open),
            )
            for pattern in patterns
        )

    @cached_property
    def _unsafe(self) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None, tuple[str, ...]]:
        """A literal prefilter (each pattern needs one of its words), and the patterns as one."""
        named = [(item.id, pattern) for item in self.source.unsafe_requests for pattern in item.patterns]
        gates = [literals(fold_pattern(pattern)) for _, pattern in named]
        words = [re.escape(word) for gate in gates if gate for word in gate]
        prefilter = re.compile("|".join(words), re.IGNORECASE) if named and all(gates) else None
        return (prefilter, *named_union(named))

    def unsafe_requests(self, folded: str) -> tuple[str, ...]:
        """The ids of the requests no patient goes along with, in any case."""
        prefilter, pattern, names = self._unsafe
        if pattern is None or (prefilter is not None and prefilter.search(folded) is None):
            return ()
        return tuple(
            dict.fromkeys(
                names[int(match.lastgroup[1:])] for match in pattern.finditer(folded) if match.lastgroup
            )
        )

    opening = _lazy(union, "opening")
    dismissive = _lazy(union, "dismissive")
    vague = _lazy(gated, "vague")
    identity = _lazy(union, "identity")
    reask = _lazy(union, "reask")
    age = _lazy(union, "age")
    age_answers = _lazy(tuple, "age_answers")
    measurement = _lazy(gated, "measurement")
    reframe = _lazy(union, "reframe")
    diagnosis_patterns = _lazy(tuple, "diagnosis_coaching")
    clarification = _lazy(gated, "clarification")
    refusal = _lazy(gated, "refusal")
    negation = _lazy(union, "negation")

    @cached_property
    def _empathy(self) -> tuple[re.Pattern[str] | None, tuple[str, ...]]:
        return named_union((cue.id, cue.pattern) for cue in self.source.empathy)

    @property
    def empathy(self) -> re.Pattern[str] | None:
        return self._empathy[0]

    @property
    def empathy_ids(self) -> tuple[str, ...]:
        return self._empathy[1]

    @cached_property
    def measured_number(self) -> re.Pattern[str]:
        return re.compile(fold_pattern(self.source.measured_number), re.IGNORECASE)

    @cached_property
    def disfluency(self) -> re.Pattern[str]:
        """The lexicon's tokens, each letter lengthened at will ("ummm", "uhhh", "errr", "嗯嗯")."""
        tokens = "|".join(
            # Folding squeezes a letter typed three times or more to one ("hmmmm" is "hm"): a
            # doubled letter of a token is one lengthened letter too.
            "".join(f"{re.escape(char)}+" for char, _ in groupby(fold(token).casefold()))
            for token in sorted(self.source.disfluency_tokens, key=len, reverse=True)
        )
        # English tokens are words ("um" is not in "umbrella"); Chinese ones are characters.
        if self.language is Language.ZH:
            return re.compile(f"(?:{tokens})")
        return re.compile(rf"(?<![^\W_])(?:{tokens})(?![^\W_])", re.I)

    @cached_property
    def fillers(self) -> tuple[str, ...]:
        return tuple(fold(filler).casefold() for filler in self.source.fillers)

    @cached_property
    def affirmative(self) -> re.Pattern[str] | None:
        """An opener that says yes: one of `affirmatives` at its start, as a whole word in English."""
        if not self.source.affirmatives:
            return None
        words = "|".join(re.escape(fold(word).casefold()) for word in self.source.affirmatives)
        boundary = "" if self.language is Language.ZH else r"(?![^\W\d_])"
        return re.compile(rf"\W*(?:{words}){boundary}")

    @cached_property
    def function_words(self) -> frozenset[str]:
        return frozenset(fold(word).casefold() for word in self.source.function_words)

    @cached_property
    def number_words(self) -> frozenset[str]:
        return frozenset(fold(word).casefold() for word in self.source.number_words)

    def fold(self, text: str) -> str:
        """What patterns are matched against: the layer's folding (persona_rails.folding:
        Simplified, ASCII, straight apostrophes, look-alike letters read, words spelled out or
        broken up by marks joined), casefolded. Every pattern is folded the same way."""
        return fold(text).casefold()


@dataclass(frozen=True)
class Case:
    scenario: Scenario
    persona: Persona
    policy: Policy
    lexicon: CompiledLanguage
    gold_rules: tuple[GoldRule, ...]
    version: str
    # The scenario came with a request (inline, or a stored snapshot no longer in the catalog):
    # its patterns are matched under the request's cost bound (persona_rails.user_patterns).
    untrusted: bool = False
    slots: dict[str, int] = field(init=False)
    guardrails: Gated = field(init=False)
    diagnosis: Gated = field(init=False)
    conflicts: Gated = field(init=False)
    # Facts of this illness only: a conflict told of a time long past is another episode.
    present_illness: frozenset[str] = field(init=False)
    objective_numbers: frozenset[str] = field(init=False)
    # Today's values that are percentages (a saturation): a percentage of any other number tells
    # a share or a change, not a reading (a respiratory rate of 20 is no "百分之二十").
    objective_percents: frozenset[str] = field(init=False)
    # Today's paired readings as "a/b" ("152/94"): a remembered "138 over 88" is not today's
    # reading because its 88 is today's pulse.
    objective_pairs: frozenset[str] = field(init=False)
    fact_values: dict[str, str] = field(init=False)
    # Folded stored phrases, for recognizing them in a transcript that carries no meta.
    agenda_variants: tuple[tuple[str, str], ...] = field(init=False)
    clarification_phrases: tuple[str, ...] = field(init=False)
    boundary_phrases: tuple[str, ...] = field(init=False)
    dob_lines: tuple[str, ...] = field(init=False)
    elaboration_phrases: tuple[str, ...] = field(init=False)
    realization_phrases: tuple[str, ...] = field(init=False)
    # Words never lowercased after an opener ("Well, Daniel Hughes.").
    proper_names: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        scenario, fold = self.scenario, self.lexicon.fold
        setattr_ = object.__setattr__
        setattr_(self, "slots", {slot.id: index for index, slot in enumerate(scenario.subjective_catalog)})
        setattr_(
            self,
            "guardrails",
            self._gated(
                (f"scenario.{name}[{index}].patterns", item.id, item.patterns)
                for name in ("guardrails", "objective_guardrails", "contraindications")
                for index, item in enumerate(getattr(scenario, name))
            ),
        )
        setattr_(
            self,
            "diagnosis",
            self._gated(
                [
                    ("scenario.diagnosis_terms", "diagnosis", scenario.diagnosis_terms),
                    (None, "diagnosis", self.lexicon.diagnosis_patterns),
                ]
            ),
        )
        setattr_(
            self,
            "conflicts",
            self._gated(
                (f"scenario.{name}[{index}].conflicts", slot.id, slot.conflicts)
                for name in ("subjective_catalog", "objective_catalog")
                for index, slot in enumerate(getattr(scenario, name))
            ),
        )
        setattr_(
            self,
            "present_illness",
            frozenset(slot.id for slot in scenario.subjective_catalog if slot.present_illness),
        )
        facts: list[Slot | ObjectiveSlot] = [*scenario.subjective_catalog, *scenario.objective_catalog]
        setattr_(
            self,
            "objective_numbers",
            frozenset(
                n for slot in scenario.objective_catalog for n in re.findall(r"\d+(?:\.\d+)?", slot.value)
            ),
        )
        setattr_(
            self,
            "objective_percents",
            frozenset(
                n
                for slot in scenario.objective_catalog
                if "%" in slot.unit
                for n in re.findall(r"\d+(?:\.\d+)?", slot.value)
            ),
        )
        setattr_(
            self,
            "objective_pairs",
            frozenset(
                "/".join(pair)
                for slot in scenario.objective_catalog
                for pair in re.findall(r"(\d+)\s*/\s*(\d+)", slot.value)
            ),
        )
        setattr_(
            self,
            "fact_values",
            {slot.id: slot.value for slot in facts},
        )
        setattr_(
            self,
            "agenda_variants",
            tuple((item.id, fold(v)) for item in scenario.hidden_agenda for v in item.variants),
        )
        setattr_(
            self,
            "elaboration_phrases",
            tuple(
                fold(text)
                for text in (
                    *(e.text for slot in scenario.subjective_catalog for e in slot.elaborations),
                    *(quirk.text for quirk in self.persona.quirks),
                )
            ),
        )
        setattr_(self, "realization_phrases", tuple(fold(p) for p in self.persona.pools.realizations))
        setattr_(self, "proper_names", frozenset(scenario.demographics.name.replace(".", " ").split()))
        setattr_(self, "clarification_phrases", tuple(fold(p) for p in self.persona.pools.clarifications))
        setattr_(self, "boundary_phrases", tuple(fold(p) for p in self.persona.pools.boundaries))
        setattr_(
            self,
            "dob_lines",
            tuple(fold(line) for line in scenario.dob_challenge.lines) if scenario.dob_challenge else (),
        )

    # The patterns a learner's text is matched against, compiled by the first turn that needs
    # them: an encounter's start matches no learner text, so a cold start answering it skips them.
    @cached_property
    def slot_match(self) -> tuple[tuple[str, Searchable], ...]:
        return self._unions("subjective_catalog")

    @cached_property
    def objective_match(self) -> tuple[tuple[str, Searchable], ...]:
        return self._unions("objective_catalog")

    @cached_property
    def script_match(self) -> tuple[tuple[str, Searchable], ...]:
        return self._unions("objective_scripts")

    @cached_property
    def agenda_triggers(self) -> tuple[tuple[str, Searchable], ...]:
        return self._unions("hidden_agenda", "triggers")

    @cached_property
    def misreading_triggers(self) -> tuple[tuple[str, Searchable, Searchable | None], ...]:
        at = "scenario.misunderstandings"
        return tuple(
            (
                m.id,
                self._union(m.triggers, f"{at}[{i}].triggers"),
                self._union(m.reframes, f"{at}[{i}].reframes") if m.reframes else None,
            )
            for i, m in enumerate(self.scenario.misunderstandings)
        )

    def _unions(self, name: str, patterns: str = "patterns") -> tuple[tuple[str, Searchable], ...]:
        """(id, the item's patterns as one alternation) for each item of the scenario's list `name`."""
        return tuple(
            (item.id, self._union(getattr(item, patterns), f"scenario.{name}[{i}].{patterns}"))
            for i, item in enumerate(getattr(self.scenario, name))
        )

    def _gated(self, lists: Iterable[tuple[str | None, str, Sequence[str]]]) -> Gated:
        """The (list path, name, patterns) lists as one Gated, each pattern under its name. A path
        says where an untrusted scenario's list is (matched under the request's cost bound);
        None marks the lexicon's reviewed patterns."""
        entries = [(path, name, pattern) for path, name, patterns in lists for pattern in patterns]
        return Gated.of(
            ((name, pattern) for _, name, pattern in entries),
            (path for path, _, _ in entries) if self.untrusted else (),
        )

    def _union(self, patterns: list[str], path: str) -> Searchable:
        return bounded_union(patterns, path if self.untrusted else None)

    @property
    def language(self) -> Language:
        return self.scenario.language

    def build(self) -> Case:
        """Every pattern compiled now, not on first use: the unsealed config check builds each
        case this way, so that a pattern that cannot be compiled fails at load."""
        for holder in (self, self.lexicon):
            for name, attribute in vars(type(holder)).items():
                if isinstance(attribute, cached_property):
                    getattr(holder, name)
            for item in vars(holder).values():
                if isinstance(item, Gated):
                    item.build()
        return self

    def slot(self, slot_id: str) -> Slot:
        return self.scenario.subjective_catalog[self.slots[slot_id]]


def compile_case(
    scenario: Scenario,
    persona: Persona,
    *,
    lexicon: Lexicon,
    policy: Policy,
    gold: dict[Language, tuple[GoldRule, ...]],
    version: str,
    untrusted: bool = False,
) -> Case:
    if persona.language is not scenario.language:
        raise CaseMismatch(
            "persona",
            f"persona {persona.id} speaks {persona.language.value}, scenario {scenario.id} is in "
            f"{scenario.language.value}",
        )
    language = CompiledLanguage.of(scenario.language, lexicon.languages[scenario.language])
    for index, token in enumerate(persona.pools.disfluencies):
        if not language.disfluency.fullmatch(token.casefold()):
            raise CaseMismatch(
                f"persona.pools.disfluencies[{index}]",
                "every disfluency must be one of the lexicon's tokens, so the validator counts it",
            )
    bigrams = set()
    for index, opener in enumerate(persona.pools.openers):
        for text in (opener.text, *opener.synonyms):
            if language.disfluency.search(language.fold(text)):
                raise CaseMismatch(
                    f"persona.pools.openers[{index}]",
                    "an opener holds a disfluency token; list it under disfluencies",
                )
        bigrams.update(opening_tokens(language.fold(opener.text), scenario.language)[:1])
    # Utterances whose first words differ cannot share an opening bigram: with one more first
    # word than the window holds, anti-echo always has an opener to substitute.
    if len(bigrams) <= policy.window:
        raise CaseMismatch(
            "persona.pools.openers",
            f"the openers need at least {policy.window + 1} different first words, so anti-echo always "
            "has one outside the window",
        )
    return Case(scenario, persona, policy, language, gold[scenario.language], version, untrusted)
