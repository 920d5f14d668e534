"""The check an LLM phrasing must pass before the patient says it (§1's conflict rule).

A reply is refused, and the offline phrasing used instead, when it:
- matches a case fact's `conflicts` (a contradiction of the same slot);
- holds a number the case's phrasing of this answer does not (an invented or leaked value);
- names a diagnosis or coaches (the lexicon, the case's diagnosis terms);
- hesitates ("um") or runs past the persona's narrative maximum (style is added separately).
"""

from __future__ import annotations

from sps_encounter.engine.compiled import Case
from sps_encounter.engine.respond import Plan
from sps_encounter.engine.text import numbers, sentence_count


def violations(case: Case, plan: Plan, text: str) -> list[str]:
    folded = case.lexicon.fold(text)
    found: list[str] = []
    if case.conflicts is not None:
        for match in case.conflicts.finditer(folded):
            if match.lastgroup:
                found.append(f"contradicts:{case.conflict_slots[int(match.lastgroup[1:])]}")
    allowed = set(numbers(plan.core))
    found.extend(f"unsupported_number:{n}" for n in numbers(text) if n not in allowed)
    if case.diagnosis.search(folded):
        found.append("diagnosis_or_coaching")
    if case.lexicon.disfluency.search(folded):
        found.append("disfluency")
    if sentence_count(text) > case.persona.narrative_max_sentences:
        found.append("too_long")
    return list(dict.fromkeys(found))
