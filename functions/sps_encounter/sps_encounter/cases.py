"""Which scenario and persona a request or a stored encounter runs, as domain errors when none.

A request names catalog entries (`scenario_id`, `persona_id`) or posts inline documents
(`scenario`, `persona`), validated as strictly as catalog files, and their patterns more strictly
still (they run on learner text unreviewed: see `engine.backtracking`); a failure names the path
(`scenario.demographics.age`). A stored encounter runs the snapshot it started with, even if
the catalog has changed since.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from persona_rails.errors import Invalid, NotFound
from persona_rails.user_patterns import check_volume
from sps_encounter.artifacts import InvalidDocument, SpsConfig, Versioned, case_of, validated
from sps_encounter.engine.backtracking import untrusted_problem
from sps_encounter.engine.case import Persona, Scenario
from sps_encounter.engine.compiled import Case, CaseMismatch
from sps_encounter.schemas import CaseChoice


@dataclass(frozen=True)
class Resolved:
    scenario: Versioned
    scenario_source: str
    persona: Versioned
    persona_source: str
    case: Case


_PATTERN_LISTS = frozenset({"patterns", "triggers", "conflicts", "reframes", "diagnosis_terms"})


def _patterns(node: Any, path: str) -> Iterator[tuple[str, str]]:
    """Every pattern of a scenario document, with its path (`scenario.subjective_catalog[0].patterns[1]`)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _PATTERN_LISTS and isinstance(value, list):
                yield from ((f"{path}.{key}[{i}]", p) for i, p in enumerate(value) if isinstance(p, str))
            else:
                yield from _patterns(value, f"{path}.{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _patterns(item, f"{path}[{index}]")


def _inline(document: dict[str, Any], schema: type[Scenario] | type[Persona], field: str) -> Versioned:
    patterns = list(_patterns(document, field))
    # Counted on the raw document first: validating compiles and probes every pattern.
    check_volume(patterns)
    try:
        found = validated(document, schema, field)
    except InvalidDocument as exc:
        raise Invalid(f"invalid_{field}", f"{exc.path}: {exc.problem}", field=exc.path) from None
    for path, pattern in patterns:
        problem = untrusted_problem(pattern)
        if problem is not None:
            raise Invalid(f"invalid_{field}", f"{path}: {problem}", field=path)
    return found


def _compiled(config: SpsConfig, scenario: Versioned, persona: Versioned, persona_field: str) -> Case:
    try:
        return case_of(config, scenario, persona)
    except CaseMismatch as exc:
        field = exc.field if exc.field != "persona" else persona_field
        # A scenario line that no persona could say (a measured number in an answer) is the
        # scenario's fault, whatever persona it is paired with.
        code = "invalid_scenario" if field.startswith("scenario.") else "persona_does_not_fit"
        raise Invalid(code, str(exc), field=field) from None


def resolve(config: SpsConfig, choice: CaseChoice) -> Resolved:
    if choice.scenario is not None:
        scenario, scenario_source = _inline(choice.scenario, Scenario, "scenario"), "inline"
    else:
        assert choice.scenario_id is not None  # the request model requires one of the two
        found = config.scenarios.get(choice.scenario_id)
        if found is None:
            raise NotFound(
                "scenario_not_found", f"no scenario {choice.scenario_id} in the catalog", field="scenario_id"
            )
        scenario, scenario_source = found, "catalog"
    if choice.persona is not None:
        persona, persona_source, persona_field = (
            _inline(choice.persona, Persona, "persona"),
            "inline",
            "persona",
        )
    else:
        persona_id = choice.persona_id or scenario.value.default_persona
        persona_field = "persona_id" if choice.persona_id else "scenario.default_persona"
        found = config.personas.get(persona_id)
        if found is None:
            raise NotFound(
                "persona_not_found", f"no persona {persona_id} in the catalog", field=persona_field
            )
        persona, persona_source = found, "catalog"
    case = _compiled(config, scenario, persona, persona_field)
    return Resolved(scenario, scenario_source, persona, persona_source, case)


def _snapshot(
    config: SpsConfig, catalog: dict[str, Versioned], row: dict[str, Any], kind: str, schema: Any
) -> Versioned:
    listed = catalog.get(row[f"{kind}_id"])
    if (
        row[f"{kind}_source"] == "catalog"
        and listed is not None
        and listed.content_hash == row[f"{kind}_hash"]
    ):
        return listed
    return Versioned(
        schema.model_validate_json(_dumps(row[kind]), strict=True), row[f"{kind}_hash"], row[kind]
    )


def _dumps(document: Any) -> str:
    return json.dumps(document, ensure_ascii=False)


def stored(config: SpsConfig, row: dict[str, Any]) -> Resolved:
    """The case a stored encounter runs: its own snapshot (the catalog's copy when unchanged)."""
    scenario = _snapshot(config, config.scenarios, row, "scenario", Scenario)
    persona = _snapshot(config, config.personas, row, "persona", Persona)
    case = case_of(config, scenario, persona)
    return Resolved(scenario, row["scenario_source"], persona, row["persona_source"], case)
