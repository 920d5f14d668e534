"""The function's configuration, loaded from `config/`, validated and versioned once per cold start.

- `lexicon.json`, `policy.json`, `gold-standard.json`: the engine's rules (`engine/policy.py`).
- `scenarios/<id>.json` and `personas/<id>.json`: the catalogs (`engine/case.py`).

A broken file fails the cold start with the file and the JSON path. Every catalog scenario is
compiled with every persona of its language at load, so a pairing that cannot run is found at
deploy, not mid-encounter. Inline scenarios and personas (posted with a request) are validated
by the same models, and compiled cases are cached by content hash.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from persona_rails import config_seal
from persona_rails.config import HASH_CHARS, Artifact, ConfigError, content_hash, json_path, load_artifact
from persona_rails.text import printable
from sps_encounter.engine import lint
from sps_encounter.engine.case import Language, Persona, Scenario
from sps_encounter.engine.compiled import Case, CaseMismatch, compile_case
from sps_encounter.engine.policy import GoldRule, GoldStandard, Lexicon, Policy
from sps_encounter.engine.text_rules import text_rules

CONFIG_DIR = Path(__file__).parent / "config"
# Each artifact's schema; `make sps-schemas` writes them as JSON Schema into config/schemas/.
SCHEMAS: dict[str, type[BaseModel]] = {
    "scenario.json": Scenario,
    "persona.json": Persona,
    "lexicon.json": Lexicon,
    "policy.json": Policy,
    "gold-standard.json": GoldStandard,
}
ModelT = TypeVar("ModelT", bound=BaseModel)


class InvalidDocument(ValueError):
    """An inline scenario or persona that fails its schema; `path` is where (`$.demographics.age`)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


@dataclass(frozen=True)
class Versioned:
    """A scenario or persona with the hash of its canonical JSON (what records cite)."""

    value: Any
    content_hash: str
    document: dict[str, Any]

    @property
    def version(self) -> str:
        return f"{self.value.version}+{self.content_hash[:HASH_CHARS]}"


@dataclass(frozen=True, eq=False)
class SpsConfig:
    lexicon: Lexicon
    policy: Policy
    gold: dict[Language, tuple[GoldRule, ...]]
    scenarios: dict[str, Versioned]
    personas: dict[str, Versioned]
    version: str
    # Verified by `make package` (persona_rails.config_seal): every catalog case was built and linted.
    sealed: bool = False


def _catalog(directory: Path, schema: type[ModelT], sealed: bool) -> dict[str, Versioned]:
    found: dict[str, Versioned] = {}
    for path in sorted(directory.glob("*.json")):
        artifact: Artifact[Any] = load_artifact(path, schema, sealed=sealed)
        if artifact.value.id != path.stem:
            raise ConfigError(path, "$.id", f"must match the file name ({path.stem!r})")
        document = json.loads(path.read_text(encoding="utf-8"))
        found[path.stem] = Versioned(artifact.value, artifact.content_hash, document)
    if not found:
        raise ConfigError(directory, "$", "holds no catalog entry")
    return found


def load_config(directory: Path = CONFIG_DIR, *, sealed: bool | None = None) -> SpsConfig:
    """Every artifact, strictly. Unless the folder is sealed (verified by `make package`,
    persona_rails.config_seal), every pattern is compiled and every (scenario, persona) case
    built too, so that a broken one fails here; sealed, cases are built on first use."""
    if sealed is None:
        sealed = config_seal.sealed(directory)
    lexicon = load_artifact(directory / "lexicon.json", Lexicon, sealed=sealed)
    policy = load_artifact(directory / "policy.json", Policy, sealed=sealed)
    gold = load_artifact(directory / "gold-standard.json", GoldStandard, sealed=sealed)
    missing = sorted(set(Language) - set(gold.value.rules))
    if missing:
        raise ConfigError(directory / "gold-standard.json", "$.rules", f"missing {', '.join(missing)}")
    combined = hashlib.sha256(";".join(a.content_hash for a in (lexicon, policy, gold)).encode()).hexdigest()
    config = SpsConfig(
        lexicon=lexicon.value,
        policy=policy.value,
        gold={language: tuple(rules) for language, rules in gold.value.rules.items()},
        scenarios=_catalog(directory / "scenarios", Scenario, sealed),
        personas=_catalog(directory / "personas", Persona, sealed),
        version=f"{policy.value.version}+{combined[:HASH_CHARS]}",
        sealed=sealed,
    )
    for scenario_id, scenario in config.scenarios.items():
        path = directory / "scenarios" / f"{scenario_id}.json"
        if scenario.value.default_persona not in config.personas:
            raise ConfigError(path, "$.default_persona", f"no persona {scenario.value.default_persona!r}")
        for persona in () if sealed else _playable(config, scenario):
            try:
                case_of(config, scenario, persona).build()
            except CaseMismatch as exc:
                if exc.field.startswith("persona."):
                    persona_path = directory / "personas" / f"{persona.value.id}.json"
                    raise ConfigError(
                        persona_path, "$" + exc.field.removeprefix("persona"), str(exc)
                    ) from exc
                if exc.field.startswith("scenario."):
                    raise ConfigError(path, "$" + exc.field.removeprefix("scenario"), str(exc)) from exc
                raise ConfigError(path, "$.default_persona", str(exc)) from exc
    return config


def _playable(config: SpsConfig, scenario: Versioned) -> list[Versioned]:
    """The personas a scenario is checked with: its default one, which must fit, and every other
    persona in its language."""
    return [
        persona
        for persona in config.personas.values()
        if persona.value.language is scenario.value.language
        or persona.value.id == scenario.value.default_persona
    ]


@cache
def sps_config() -> SpsConfig:
    return load_config()


def build_catalog_cases(config: SpsConfig) -> int:
    """Every catalog case built and compiled now, and the validator's text rules of each case's
    language; under SnapStart, init does this once per published version, so no restored copy's
    first turn or first validation compiles anything. Returns the count of cases."""
    built = 0
    for scenario in config.scenarios.values():
        for persona in _playable(config, scenario):
            case_of(config, scenario, persona).build()
            built += 1
    for language in {scenario.value.language for scenario in config.scenarios.values()}:
        text_rules(language).reading_request.build()
    return built


_WHERE = re.compile(r"^([a-z_]+(?:\[\d+\])?(?:\.[a-z_]+(?:\[\d+\])?)*): (.+)$", re.DOTALL)


def _unprintable(node: Any, path: str) -> str | None:
    """The path of the first string (value or key) holding a control character or a lone
    surrogate: Postgres cannot store a NUL in jsonb, and no line of a case needs one."""
    if isinstance(node, str):
        try:
            printable(node)
        except ValueError:
            return path
    elif isinstance(node, dict):
        for key, value in node.items():
            found = _unprintable(key, path) or _unprintable(value, f"{path}.{key}")
            if found:
                return found
    elif isinstance(node, list):
        for index, item in enumerate(node):
            found = _unprintable(item, f"{path}[{index}]")
            if found:
                return found
    return None


def validated(document: dict[str, Any], schema: type[ModelT], root: str) -> Versioned:
    """An inline document, validated as strictly as a catalog file; the error names its path."""
    unprintable_at = _unprintable(document, root)
    if unprintable_at is not None:
        raise InvalidDocument(unprintable_at, "control characters and lone surrogates are not allowed")
    text = json.dumps(document, ensure_ascii=False)
    try:
        value = schema.model_validate_json(text, strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        path = root + json_path(tuple(first["loc"]))[1:]
        # A document-wide check (ids, references, templates) says where in its message:
        # "hidden_agenda[1].id: the id 'x' is used twice" names scenario.hidden_agenda[1].id.
        where = _WHERE.match(first["msg"].removeprefix("Value error, "))
        if where is not None:
            raise InvalidDocument(f"{path}.{where.group(1)}", where.group(2)) from exc
        raise InvalidDocument(path, first["msg"]) from exc
    return Versioned(value, content_hash(document), document)


# Compiled cases by (config, scenario, persona) content: compiling costs ~1 ms, a turn ~0.1 ms.
_CASES: OrderedDict[tuple[str, str, str, bool], Case] = OrderedDict()
CASE_CACHE_SIZE = 64


def _from_catalog(config: SpsConfig, scenario: Versioned, persona: Versioned) -> bool:
    """Both are the catalog's own loaded documents (not inline ones, nor stored snapshots that
    differ from it), so the build's check of every catalog case covered them."""
    listed_scenario = config.scenarios.get(scenario.value.id)
    return listed_scenario is scenario and config.personas.get(persona.value.id) is persona


def case_of(config: SpsConfig, scenario: Versioned, persona: Versioned) -> Case:
    # A scenario other than the catalog's own copy came with a request: its patterns are bounded.
    untrusted = config.scenarios.get(scenario.value.id) is not scenario
    key = (config.version, scenario.content_hash, persona.content_hash, untrusted)
    case = _CASES.get(key)
    if case is None:
        case = compile_case(
            scenario.value,
            persona.value,
            lexicon=config.lexicon,
            policy=config.policy,
            gold=config.gold,
            version=f"{scenario.version}/{persona.version}/{config.version}",
            untrusted=untrusted,
        )
        # What the patient could say is checked too: a line the validator would flag is a data error.
        # A sealed catalog's own pairs were checked so by `make package`; inline documents never are.
        if not (config.sealed and _from_catalog(config, scenario, persona)):
            lint.check(case)
        _CASES[key] = case
        while len(_CASES) > CASE_CACHE_SIZE:
            _CASES.popitem(last=False)
    return case
