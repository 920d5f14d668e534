"""The check an LLM phrasing must pass before the patient says it (§1's conflict rule).

A reply is refused, and the offline phrasing used instead, when it:
- matches a case fact's `conflicts` (a contradiction of the same slot);
- holds a number the case's phrasing of this answer does not (an invented or leaked value);
- names a diagnosis or coaches (the lexicon, the case's diagnosis terms);
- hesitates ("um") or runs past the persona's narrative maximum (style is added separately);
- is not in the scenario's language;
- says much the case does not: most of its content words (Chinese: characters) appear nowhere
  in what this answer may draw on (the case's phrasing, the facts, the presenting problem, the
  persona, the learner's question). The model may rephrase; it may not add ("…and I have
  diabetes").
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


def _allowed(case: Case, plan: Plan, learner_text: str) -> set[str]:
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
    return set(_content(case, case.lexicon.fold(" ".join(sources))))


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
    novel = sorted({item for item in content if item not in allowed})
    if len(novel) >= NOVEL_MIN and len(novel) > NOVEL_SHARE * len(set(content)):
        found.append("unsupported_content")
    words = set(_WORD.findall(folded))
    core_words = set(_WORD.findall(case.lexicon.fold(plan.core)))
    found.extend(f"unsupported_number:{w}" for w in sorted(words & case.lexicon.number_words - core_words))
    return list(dict.fromkeys(found))
