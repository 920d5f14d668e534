"""What a case must not make the patient say: checked when a scenario and a persona are paired.

Every line the patient can say comes from the case (answers, elaborations, agenda clauses, pools,
openers…), so a line the validator would flag is a data error, found when the case is loaded
rather than in a transcript. Findings and examination scripts are exempt from the numbers rule:
they are what a measurement shows.
"""

from __future__ import annotations

from collections.abc import Iterator

from sps_encounter.engine.compiled import Case, CaseMismatch

MIN_ROTATING = 4  # a window of 3 always leaves one


def _said(case: Case) -> Iterator[tuple[str, str, bool]]:
    """(path, line, may hold a measured number) for every line the patient can say."""
    scenario, persona = case.scenario, case.persona
    for index, slot in enumerate(scenario.subjective_catalog):
        at = f"scenario.subjective_catalog[{index}]"
        yield from ((f"{at}.answers[{i}]", line, False) for i, line in enumerate(slot.answers))
        yield from ((f"{at}.elaborations[{i}]", e.text, False) for i, e in enumerate(slot.elaborations))
    for index, objective in enumerate(scenario.objective_catalog):
        at = f"scenario.objective_catalog[{index}]"
        yield from ((f"{at}.lay_answers[{i}]", line, False) for i, line in enumerate(objective.lay_answers))
    for index, script in enumerate(scenario.objective_scripts):
        yield from (
            (f"scenario.objective_scripts[{index}].lines[{i}]", line, True)
            for i, line in enumerate(script.lines)
        )
    problem = scenario.presenting_problem
    yield from (
        (f"scenario.presenting_problem.opening_statements[{i}]", line, False)
        for i, line in enumerate(problem.opening_statements)
    )
    yield from (
        (f"scenario.presenting_problem.narrative[{i}]", line, False)
        for i, line in enumerate(problem.narrative)
    )
    for index, item in enumerate(scenario.hidden_agenda):
        yield from (
            (f"scenario.hidden_agenda[{index}].variants[{i}]", line, False)
            for i, line in enumerate(item.variants)
        )
    for index, misreading in enumerate(scenario.misunderstandings):
        yield from (
            (f"scenario.misunderstandings[{index}].misreadings[{i}]", line, False)
            for i, line in enumerate(misreading.misreadings)
        )
    for index, quirk in enumerate(persona.quirks):
        yield f"persona.quirks[{index}]", quirk.text, False
    pools = persona.pools
    for name in (
        "clarifications",
        "boundaries",
        "declines",
        "uncertain",
        "realizations",
        "acknowledgements",
        "deferrals",
    ):
        yield from (
            (f"persona.pools.{name}[{i}]", line, False) for i, line in enumerate(getattr(pools, name))
        )


def problems(case: Case) -> Iterator[tuple[str, str]]:
    lexicon = case.lexicon
    for name in ("clarifications", "boundaries"):
        distinct = {lexicon.fold(line).strip(" .?!。？！") for line in getattr(case.persona.pools, name)}
        if len(distinct) < MIN_ROTATING:
            yield (
                f"persona.pools.{name}",
                f"needs at least {MIN_ROTATING} different phrases, so none repeats within 3",
            )
    for path, line, measured in _said(case):
        folded = lexicon.fold(line)
        found = case.diagnosis.first(folded)
        if found:
            yield path, f"says {found[1].group(0)!r}, a diagnosis or coaching the validator flags"
        contradiction = case.conflicts.first(folded)
        if contradiction:
            slot, match = contradiction
            yield (
                path,
                f"matches a conflict of {slot} ({match.group(0)!r}): the patient would contradict the case",
            )
        if not measured and lexicon.measured_number.search(folded):
            yield path, "says a measured number, which only a finding may"


def check(case: Case) -> None:
    for path, problem in problems(case):
        raise CaseMismatch(path, f"{path}: {problem}")
