"""A scenario and a persona made ready to run: every pattern compiled once, with the language's
lexicon, the policy and the baseline rules. Engines receive a `Case` and read no files."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from persona_rails.chinese import simplified_table
from sps_encounter.engine.case import Language, ObjectiveSlot, Persona, Scenario, Slot
from sps_encounter.engine.gates import Gated
from sps_encounter.engine.policy import GoldRule, LanguageLexicon, Lexicon, Policy
from sps_encounter.engine.text import APOSTROPHES, named_union, opening_tokens, union


class CaseMismatch(ValueError):
    """A persona that cannot play a scenario; `field` names what to change."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def gated(patterns: list[str]) -> Gated:
    # The checks run on every turn of a validated transcript: behind literal gates, a turn
    # that holds none of a list's literals costs a few substring searches.
    return Gated.of(("lexicon", pattern) for pattern in patterns)


@dataclass(frozen=True)
class CompiledLanguage:
    language: Language
    narrative: Gated
    open: Gated
    closed: Gated
    opening: re.Pattern[str]
    empathy: re.Pattern[str] | None
    empathy_ids: tuple[str, ...]
    dismissive: re.Pattern[str]
    vague: Gated
    identity: re.Pattern[str]
    reask: re.Pattern[str]
    age: re.Pattern[str]
    age_answers: tuple[str, ...]
    measurement: Gated
    reframe: re.Pattern[str]
    diagnosis_patterns: tuple[str, ...]
    clarification: Gated
    refusal: Gated
    measured_number: re.Pattern[str]
    disfluency: re.Pattern[str]
    fillers: tuple[str, ...]
    function_words: frozenset[str]
    number_words: frozenset[str]
    # str.translate table: straight apostrophes, and Traditional read as Simplified in Chinese.
    fold_table: dict[int, str]

    @classmethod
    def of(cls, language: Language, lexicon: LanguageLexicon) -> CompiledLanguage:
        empathy, empathy_ids = named_union((cue.id, cue.pattern) for cue in lexicon.empathy)
        tokens = "|".join(re.escape(token) for token in lexicon.disfluency_tokens)
        # English tokens are words ("um" is not in "umbrella"); Chinese ones are characters.
        disfluency = (
            re.compile(tokens)
            if language is Language.ZH
            else re.compile(rf"(?<![^\W_])(?:{tokens})(?![^\W_])", re.I)
        )
        table = dict(APOSTROPHES)
        if language is Language.ZH:
            table.update(simplified_table())
        return cls(
            language=language,
            narrative=gated(lexicon.narrative),
            open=gated(lexicon.open),
            closed=gated(lexicon.closed),
            opening=union(lexicon.opening),
            empathy=empathy,
            empathy_ids=empathy_ids,
            dismissive=union(lexicon.dismissive),
            vague=gated(lexicon.vague),
            identity=union(lexicon.identity),
            reask=union(lexicon.reask),
            age=union(lexicon.age),
            age_answers=tuple(lexicon.age_answers),
            measurement=gated(lexicon.measurement),
            reframe=union(lexicon.reframe),
            diagnosis_patterns=tuple(lexicon.diagnosis_coaching),
            clarification=gated(lexicon.clarification),
            refusal=gated(lexicon.refusal),
            measured_number=re.compile(lexicon.measured_number, re.IGNORECASE),
            disfluency=disfluency,
            fillers=tuple(filler.casefold() for filler in lexicon.fillers),
            function_words=frozenset(word.casefold() for word in lexicon.function_words),
            number_words=frozenset(word.casefold() for word in lexicon.number_words),
            fold_table=table,
        )

    def fold(self, text: str) -> str:
        """What patterns are matched against: casefolded, apostrophes straight, Simplified."""
        return text.casefold().translate(self.fold_table)


@dataclass(frozen=True)
class Case:
    scenario: Scenario
    persona: Persona
    policy: Policy
    lexicon: CompiledLanguage
    gold_rules: tuple[GoldRule, ...]
    version: str
    slots: dict[str, int] = field(init=False)
    slot_match: tuple[tuple[str, re.Pattern[str]], ...] = field(init=False)
    objective_match: tuple[tuple[str, re.Pattern[str]], ...] = field(init=False)
    script_match: tuple[tuple[str, re.Pattern[str]], ...] = field(init=False)
    guardrails: Gated = field(init=False)
    agenda_triggers: tuple[tuple[str, re.Pattern[str]], ...] = field(init=False)
    misreading_triggers: tuple[tuple[str, re.Pattern[str], re.Pattern[str] | None], ...] = field(init=False)
    diagnosis: Gated = field(init=False)
    conflicts: Gated = field(init=False)
    objective_numbers: frozenset[str] = field(init=False)
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
        setattr_(self, "slot_match", tuple((s.id, union(s.patterns)) for s in scenario.subjective_catalog))
        setattr_(
            self, "objective_match", tuple((s.id, union(s.patterns)) for s in scenario.objective_catalog)
        )
        setattr_(self, "script_match", tuple((s.id, union(s.patterns)) for s in scenario.objective_scripts))
        guardrails = (*scenario.guardrails, *scenario.objective_guardrails, *scenario.contraindications)
        setattr_(self, "guardrails", Gated.of((g.id, p) for g in guardrails for p in g.patterns))
        setattr_(
            self, "agenda_triggers", tuple((item.id, union(item.triggers)) for item in scenario.hidden_agenda)
        )
        setattr_(
            self,
            "misreading_triggers",
            tuple(
                (m.id, union(m.triggers), union(m.reframes) if m.reframes else None)
                for m in scenario.misunderstandings
            ),
        )
        diagnosis = [*scenario.diagnosis_terms, *self.lexicon.diagnosis_patterns]
        setattr_(self, "diagnosis", Gated.of(("diagnosis", p) for p in diagnosis))
        facts: list[Slot | ObjectiveSlot] = [*scenario.subjective_catalog, *scenario.objective_catalog]
        setattr_(self, "conflicts", Gated.of((slot.id, p) for slot in facts for p in slot.conflicts))
        setattr_(
            self,
            "objective_numbers",
            frozenset(
                n for slot in scenario.objective_catalog for n in re.findall(r"\d+(?:\.\d+)?", slot.value)
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

    @property
    def language(self) -> Language:
        return self.scenario.language

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
    return Case(scenario, persona, policy, language, gold[scenario.language], version)
