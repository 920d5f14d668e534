"""The check an LLM phrasing must pass before the patient says it (§1's conflict rule).

A reply is refused, and the offline phrasing used instead, when it:
- matches a case fact's `conflicts` (a contradiction of the same slot);
- holds a number the case's phrasing of this answer does not (an invented or leaked value);
- names a diagnosis or coaches (the lexicon, the case's diagnosis terms);
- hesitates ("um") or runs past the persona's narrative maximum (style is added separately);
- is not in the scenario's language;
- leaves out a fact it was asked to phrase: for each subjective slot the answer states, the words
  (Chinese: characters) common to every stored phrasing of the slot ("three weeks", "penicillin",
  "amlodipine") must be there (numbers always; of the rest all of one or two, half of more), or,
  where the phrasings share none, one word of them or of the slot's value ("Nothing at all."
  to "Any medication?" states no fact, so it cannot be this one);
- says much the case does not: most of its content words (Chinese: characters) appear nowhere
  in what this answer may draw on (the case's phrasing, the facts, the presenting problem, the
  persona, the learner's question). The model may rephrase; it may not add ("…and I have
  diabetes"), and it names no condition or medicine (the lexicon's `conditions`) that this
  answer's material does not.
"""

from __future__ import annotations

import re

from sps_encounter.engine.case import Language
from sps_encounter.engine.compiled import Case
from sps_encounter.engine.respond import Plan
from sps_encounter.engine.text import numbers, sentence_count

_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN_WORD = re.compile(r"[a-z]{3,}")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
# A reply adding this much the case does not hold is refused.
NOVEL_MIN = 3
NOVEL_SHARE = 0.4


def _content(case: Case, folded: str) -> list[str]:
    if case.language is Language.ZH:
        return [char for char in _CJK.findall(folded) if char not in case.lexicon.function_words]
    return [
        word for word in _WORD.findall(folded) if len(word) > 2 and word not in case.lexicon.function_words
    ]


def _says(case: Case, folded: str, term: str) -> bool:
    if case.language is Language.ZH:
        return term in folded
    return re.search(rf"(?<![^\W\d_]){re.escape(term)}(?![^\W\d_])", folded) is not None


def _allowed(case: Case, plan: Plan, learner_text: str) -> set[str]:
    return set(_content(case, case.lexicon.fold(" ".join(_sources(case, plan, learner_text)))))


def _sources(case: Case, plan: Plan, learner_text: str) -> list[str]:
    scenario = case.scenario
    sources = [
        plan.core,
        *plan.facts.values(),
        scenario.presenting_problem.chief_complaint,
        *scenario.presenting_problem.opening_statements,
        scenario.demographics.name,
        scenario.demographics.occupation,
        *(quirk.text for quirk in case.persona.quirks),
        learner_text,
    ]
    for slot_id in plan.answered:
        if slot_id in case.slots:
            slot = case.slot(slot_id)
            sources += [*slot.answers, *(e.text for e in slot.elaborations)]
    return sources


def _number_forms(case: Case, words: set[str]) -> set[str]:
    """`three` is also `3`: the lexicon's number words in order from two, and the digits."""
    forms = set(words)
    spelled = list(case.lexicon.source.number_words)
    for position, word in enumerate(spelled[:19]):  # two … twenty
        if word.casefold() in words:
            forms.add(str(position + 2))
    return forms


def _missing_facts(case: Case, plan: Plan, text: str, content: set[str]) -> list[str]:
    fold = case.lexicon.fold
    missing: list[str] = []
    said = _number_forms(case, content) | set(numbers(text))
    for slot_id in plan.answered:
        if slot_id not in case.slots:
            continue  # objective findings and scripts: their numbers are checked above
        slot = case.slot(slot_id)
        phrasings = [set(_content(case, fold(answer))) for answer in slot.answers]
        essential = set.intersection(*phrasings) if phrasings else set()
        if essential:
            present = {word for word in essential if word in said or _number_forms(case, {word}) & said}
            spelled_numbers = essential & case.lexicon.number_words
            # Numbers always; of the rest, all of one or two words, or half of more (a Chinese
            # phrasing shares many characters, a rephrasing keeps some).
            enough = len(essential) if len(essential) <= 2 else -(-len(essential) // 2)
            if not spelled_numbers <= present or len(present) < enough:
                missing.append(f"missing_fact:{slot_id}")
        elif not (set.union(*phrasings, set(_content(case, fold(slot.value)))) & content):
            missing.append(f"missing_fact:{slot_id}")
    return missing


def violations(case: Case, plan: Plan, text: str, learner_text: str = "") -> list[str]:
    folded = case.lexicon.fold(text)
    found: list[str] = []
    found.extend(f"contradicts:{slot}" for slot in case.conflicts.names(folded))
    allowed = set(numbers(plan.core))
    found.extend(f"unsupported_number:{n}" for n in numbers(text) if n not in allowed)
    if case.diagnosis.first(folded):
        found.append("diagnosis_or_coaching")
    if case.lexicon.disfluency.search(folded):
        found.append("disfluency")
    if sentence_count(text) > case.persona.narrative_max_sentences:
        found.append("too_long")
    latin = _LATIN_WORD.search(folded)
    if (case.language is Language.ZH and (latin or not _CJK.search(folded))) or (
        case.language is Language.EN and _CJK.search(folded)
    ):
        found.append("wrong_language")
    allowed = _allowed(case, plan, learner_text)
    content = _content(case, folded)
    found.extend(_missing_facts(case, plan, text, set(content)))
    sources = case.lexicon.fold(" ".join(_sources(case, plan, learner_text)))
    found.extend(
        f"unsupported_condition:{term}"
        for term in case.lexicon.source.conditions
        if _says(case, folded, term) and not _says(case, sources, term)
    )
    novel = sorted({item for item in content if item not in allowed})
    if len(novel) >= NOVEL_MIN and len(novel) > NOVEL_SHARE * len(set(content)):
        found.append("unsupported_content")
    words = set(_WORD.findall(folded))
    core_words = set(_WORD.findall(case.lexicon.fold(plan.core)))
    found.extend(f"unsupported_number:{w}" for w in sorted(words & case.lexicon.number_words - core_words))
    return list(dict.fromkeys(found))
