"""SPS encounter, part 2: patient turns through lambda_handler, where a turn's time goes, and POST /sps/validate with large transcripts."""

from __future__ import annotations

from bench.harness.report import (
    LATENCY_HEADERS,
    Report,
    median,
    ms,
    percentile,
    split_row,
    turn_row,
    verdict,
)
from bench.sps_encounter.corpus import (
    LOG_LEVELS,
    P50_TARGET_MS,
)
from bench.sps_encounter.handler import (
    GET_ROUTE,
    SCENARIOS_ROUTE,
    START_ROUTE,
    TURN_ROUTE,
    VALIDATE_ROUTE,
    Sample,
)
from bench.sps_encounter.mix import MixResults
from bench.sps_encounter.validation_report import (
    LANGUAGE_NAME,
    _counts,
)


def _route_row(label: str, samples: list[Sample]) -> list[str]:
    totals = [sample.total for sample in samples]
    return [
        label,
        str(len(samples)),
        *(ms(percentile(totals, q)) for q in (50, 90, 99)),
        ms(max(totals)),
        "",
        "",
        "",
    ]


def headline(mix: MixResults) -> list[Sample]:
    return mix.of(TURN_ROUTE, LOG_LEVELS[0])


KIND_GROUPS = (
    ("answers from the catalogs (answer, decline, resolved misreading)", ("answer", "decline", "resolved")),
    ("presenting problem (opening, narrative)", ("opening", "narrative")),
    ("refusals (a guardrail)", ("refusal",)),
    (
        "pools: clarification, acknowledgement, uncertainty",
        ("clarification", "acknowledgement", "uncertain"),
    ),
    ("identity, DOB challenge, misreading", ("identity", "dob_challenge", "misreading")),
)


def mix_report(mix: MixResults) -> Report:
    warning = headline(mix)
    totals = [sample.total for sample in warning]
    p50 = percentile(totals, 50)
    passed = p50 <= P50_TARGET_MS * 1e6
    rows = [turn_row(f"{level}, all turns", mix.of(TURN_ROUTE, level)) for level in LOG_LEVELS]
    for language in ("en", "zh"):
        chosen = [s for s in warning if s.language == language]
        if chosen:
            rows.append(turn_row(f"WARNING, {LANGUAGE_NAME[language]} encounters", chosen))
    for label, kinds in KIND_GROUPS:
        chosen = [s for s in warning if s.kind in kinds]
        if chosen:
            rows.append(turn_row(f"WARNING, {label}", chosen))
    for caller, name in (("user", "the learner's token"), ("service", "the platform's service-role token")):
        rows.append(turn_row(f"WARNING, {name}", [s for s in warning if s.caller == caller]))
    rows.append(turn_row("WARNING, with an Idempotency-Key", [s for s in warning if s.keyed]))
    validations = mix.of(VALIDATE_ROUTE)
    for label, chosen in (
        ("start an encounter (POST)", mix.of(START_ROUTE)),
        ("list the scenarios (GET)", mix.of(SCENARIOS_ROUTE)),
        ("read a finished encounter (GET)", mix.of(GET_ROUTE)),
        ("validate its transcript (POST)", [s for s in validations if not s.stored]),
        ("validate its transcript, `store: true` (POST)", [s for s in validations if s.stored]),
    ):
        if chosen:
            rows.append(_route_row(label, chosen))
    every = mix.of(TURN_ROUTE)
    lengths = [s.transcript_turns for s in mix.of(GET_ROUTE)]
    return Report(
        title="SPS encounter: patient turns through lambda_handler (offline generator, no LLM; embedded Postgres)",
        headers=[
            *LATENCY_HEADERS,
            "p50 engine ms",
            "p50 state ms",
            "p50 read / write ms",
        ],
        rows=rows,
        notes=[
            f"{mix.warmup} warm-up turns, then {len(every) // len(LOG_LEVELS)} measured turns per log level (levels "
            f"alternate turn by turn) over {mix.encounters} encounters of owners in rotation, several in progress at "
            "once, every catalog scenario and persona in turn; the other rows are the requests those encounters made "
            "along the way (WARNING): a finished encounter is read back and its transcript validated "
            f"({median(lengths) if lengths else 0:g} turns at the median). Timed around "
            "`lambda_handler(event, context)` only; in-process handler on this machine, embedded Postgres over its "
            "unix socket (not the packaged artifact); metrics on; stdout to /dev/null.",
            f"patient turns by kind (both levels): {_counts(_counts_of([s.kind for s in every]))}; learner utterances "
            f"by kind: {_counts(_counts_of([s.learner_kind for s in every]))}.",
            "engine = `phrasing.take_turn` as the service calls it (learner turn, plan, the offline phrasing, "
            "finish); state = `SPSRuntimeState.from_json` + `to_json`; read / write = the turn's two transactions "
            "(`Database.run_as_user`).",
            f"decision records: every measured turn has exactly one (`SpsEncounterFunction` / `sps.patient_turn`, "
            f"its subject the turn): {verdict(mix.missing_records == 0)} ({mix.missing_records} without); "
            f"{mix.records:,} written in this part for {mix.turns_taken:,} turns answered (warm-up included).",
            f"p50 {ms(p50)} ms, p90 {ms(percentile(totals, 90))} ms, p99 {ms(percentile(totals, 99))} ms, max "
            f"{ms(max(totals))} ms (WARNING, all turns) vs target p50 ≤ {P50_TARGET_MS:g} ms: {verdict(passed)}",
        ],
        passed=passed,
    )


def _counts_of(values: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for value in values:
        found[value] = found.get(value, 0) + 1
    return found


def split_report(mix: MixResults) -> Report:
    warning = headline(mix)
    total = sum(sample.total for sample in warning)
    parts = (
        ("the whole handler call", "total"),
        ("engine: `phrasing.take_turn` (learner turn, plan, offline phrasing, finish)", "engine"),
        ("runtime state from / to JSON (`SPSRuntimeState`)", "state"),
        ("the stored case (`cases.stored`: catalog lookup, compiled-case cache)", "case"),
        ("hashing the request (`fingerprint`)", "hashing"),
        ("read transaction: encounter, keyed turn, last turn (1 round trip)", "read"),
        ("write transaction: advance, the turn, its decision record (1 round trip)", "write"),
        ("the rest: Mangum, FastAPI, the JWT, models, JSON text, logs, EMF", "rest"),
    )
    rows = [split_row(label, [getattr(sample, part) for sample in warning], total) for label, part in parts]
    return Report(
        title=f"SPS encounter: where a turn's time goes (WARNING, {len(warning)} turns of part 2)",
        headers=["part", "p50 ms", "p90 ms", "p99 ms", "share of all turn time"],
        rows=rows,
        notes=[
            "Each part is timed from outside with a clock read either side of the wrapped call; the rest is the "
            "handler's time minus the other parts. Shares are of the summed time of all turns.",
        ],
    )
