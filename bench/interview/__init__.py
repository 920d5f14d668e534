"""Interview turn (`InterviewTurnFunction`): the turn mix through lambda_handler (engine overhead per
turn), 200-turn sessions beside 10-turn ones, round trips per request, and the engine state at its
bounds. What each part measures and its targets: docs/benchmarks.md, "Interview turn".

    python -m bench.interview [--quick] [--turns 1000] [--strict]
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from bench.harness.handler import (
    create_accounts,
    embedded_database,
    load_function_handler,
    release_handler_state,
)
from bench.harness.handler import function as harness_function
from bench.harness.report import (
    LATENCY_HEADERS,
    Report,
    against_targets,
    bench_main,
    counts_cell,
    latency_cells,
    median,
    ms,
    p50_of,
    percentile,
    scenario_report,
    split_row,
    target,
    trips_cell,
    turn_row,
    verdict,
)
from bench.harness.trips import both_passes
from bench.interview.corpus import (
    FUNCTION_ID,
    GROWTH_RATIO_TARGET,
    KIND_WEIGHTS,
    LOG_LEVELS,
    LONG_TURNS,
    P50_TARGET_MS,
    P99_TARGET_MS,
    QUICK,
    ROUND_TRIP_BUDGET,
    SEED,
    SHORT_TURNS,
    WINDOWS,
    Settings,
    check_corpus,
)
from bench.interview.handler import (
    GET_ROUTE,
    START_ROUTE,
    TURN_ROUTE,
    GrowthResults,
    MixResults,
    TurnSample,
    measure_growth,
    measure_mix,
)
from bench.interview.round_trips import measure_pass, round_trip_report
from bench.interview.state import measure_state_costs, state_report

# --- 1. the turn mix ---------------------------------------------------------------------------------------


def mix_report(mix: MixResults) -> Report:
    headline = [sample for sample in mix.samples if sample.level == LOG_LEVELS[0]]
    judged, passed = against_targets(
        [sample.total for sample in headline], P50_TARGET_MS, P99_TARGET_MS, "WARNING, all turns"
    )
    rows = [
        turn_row(f"{level}, all turns", [s for s in mix.samples if s.level == level]) for level in LOG_LEVELS
    ]
    for language in ("en", "zh"):
        rows.append(turn_row(f"WARNING, {language} answers", [s for s in headline if s.language == language]))
    closing = [s for s in headline if s.closed]
    if closing:
        rows.append(turn_row("WARNING, stop requests (close the session)", closing))
    for label, values in (("start a session (POST)", mix.starts), ("read a session (GET)", mix.gets)):
        rows.append([label, *latency_cells(values), "", "", ""])
    return Report(
        title="Interview: warm turns through lambda_handler (offline, no LLM; embedded Postgres)",
        headers=[
            *LATENCY_HEADERS,
            "p50 engine ms",
            "p50 state ms",
            "p50 read / write ms",
        ],
        rows=rows,
        notes=[
            f"{mix.warmup} warm-up turns, then {len(mix.samples) // len(LOG_LEVELS)} measured turns per log level "
            f"(levels alternate turn by turn) over {mix.sessions} sessions (8–40 turns each, English and Chinese "
            "alternating, half ending with a stop request), several in progress at once, users in rotation; every "
            "POST carries a fresh Idempotency-Key. Timed around `lambda_handler(event, context)` only; in-process "
            "handler on this machine, embedded Postgres over its unix socket (not the packaged artifact); metrics on; "
            "stdout to /dev/null.",
            f"answers by kind: {counts_cell([s.kind for s in mix.samples])}; routes taken (winning rule): "
            f"{counts_cell([s.rule for s in mix.samples])}.",
            "engine = `plan_turn` + `finish_turn` as the service calls them; state = `SessionState.from_json` + "
            "`to_json` (the service converts the state three times a turn); read / write = the turn's two "
            "transactions (`Database.run_as_user`). GET rows: a finished session read back, with all its turns.",
            *judged,
        ],
        passed=passed,
    )


def split_report(mix: MixResults) -> Report:
    headline = [sample for sample in mix.samples if sample.level == LOG_LEVELS[0]]
    total = sum(sample.total for sample in headline)
    parts = (
        ("the whole handler call", "total"),
        ("engine: plan_turn + finish_turn", "engine"),
        ("engine state to / from JSON (3 conversions)", "state"),
        ("read transaction (1 round trip)", "read"),
        ("write transaction (1 round trip)", "write"),
        ("the rest: Mangum, FastAPI, JWT, models, JSON text, EMF", "rest"),
    )
    rows = [split_row(label, [getattr(sample, part) for sample in headline], total) for label, part in parts]
    return Report(
        title=f"Interview: where a turn's time goes (WARNING, {len(headline)} turns of part 1)",
        headers=["part", "p50 ms", "p90 ms", "p99 ms", "share of all turn time"],
        rows=rows,
        notes=[
            "Each part is timed from outside with a clock read either side of the wrapped call; the rest is the "
            "handler's time minus the other parts. Shares are of the summed time of all turns.",
        ],
    )


# --- 2. growth with history ---------------------------------------------------------------------------------


@dataclass
class Growth:
    long_first: float
    long_last: float
    short_last: float

    @property
    def against_first(self) -> float:
        return self.long_last / self.long_first

    @property
    def against_short(self) -> float:
        return self.long_last / self.short_last


def _window(growth: GrowthResults, first: int, last: int) -> tuple[list[TurnSample], list[TurnSample]]:
    long = [sample for session in growth.long for sample in session[first - 1 : last]]
    short = [sample for step, sample in growth.short if first <= step <= last]
    return long, short


def growth_summary(growth: GrowthResults) -> Growth:
    first, _ = _window(growth, 1, SHORT_TURNS)
    last, short = _window(growth, LONG_TURNS - SHORT_TURNS + 1, LONG_TURNS)
    return Growth(
        median([s.total for s in first]), median([s.total for s in last]), median([s.total for s in short])
    )


def growth_report(growth: GrowthResults) -> Report:
    rows = []
    for first, last in WINDOWS:
        long, short = _window(growth, first, last)
        sizes = [session[WINDOWS.index((first, last))] for session in growth.sizes]
        long_p50, short_p50 = median([s.total for s in long]), median([s.total for s in short])
        rows.append(
            [
                f"{first}–{last}",
                str(len(long)),
                ms(long_p50),
                ms(short_p50),
                f"{long_p50 / short_p50:.2f}",
                p50_of(long, "engine"),
                p50_of(long, "state"),
                f"{p50_of(long, 'read')} / {p50_of(long, 'write')}",
                f"{median([z.state_bytes for z in sizes]):,.0f}",
                f"{median([z.facts for z in sizes]):g} ({max(z.max_topic_facts for z in sizes)})",
                f"{median([z.record_bytes for z in sizes]):,.0f}",
            ]
        )
    summary = growth_summary(growth)
    passed = max(summary.against_first, summary.against_short) <= GROWTH_RATIO_TARGET
    at_10, at_200 = growth.gets[SHORT_TURNS], growth.gets[LONG_TURNS]
    count = len(growth.long)
    return Report(
        title=f"Interview: a {LONG_TURNS}-turn session against {SHORT_TURNS}-turn sessions (WARNING)",
        headers=[
            "long session turns",
            "n",
            "long p50 ms",
            "10-turn sessions p50 ms, same steps",
            "long / 10-turn",
            "p50 engine ms",
            "p50 state ms",
            "p50 read / write ms",
            "engine_state bytes at the window's end",
            "facts kept (most on one topic in any session)",
            "decision record bytes",
        ],
        rows=rows,
        notes=[
            f"{count} sessions of {LONG_TURNS} turns (3–4 planned topics, no stop request) advanced together, one turn "
            f"each per step; beside each, a {SHORT_TURNS}-turn session started every {SHORT_TURNS} steps, long and short "
            "alternating within a step, so every window's two columns are measured at the same moments. Same handler, "
            "database and corpus as part 1 (after it); medians over the sessions; engine_state measured as JSON text "
            f"(`octet_length(engine_state::text)`), the decision record as inputs + output. The lexicon keeps at most "
            f"{growth.facts_cap} facts per topic.",
            f"turns {LONG_TURNS - SHORT_TURNS + 1}–{LONG_TURNS} against turns 1–{SHORT_TURNS} of the same sessions: "
            f"p50 {ms(summary.long_last)} / {ms(summary.long_first)} ms = **{summary.against_first:.2f}×**; against the "
            f"{SHORT_TURNS}-turn sessions at the same steps: {ms(summary.long_last)} / {ms(summary.short_last)} ms = "
            f"**{summary.against_short:.2f}×** (target ≤ {GROWTH_RATIO_TARGET:g}×): {verdict(passed)}.",
            f"GET /interview/sessions/{{id}} (the whole history): p50 {ms(median(at_10))} ms at {SHORT_TURNS} turns, "
            f"{ms(median(at_200))} ms at {LONG_TURNS} turns ({len(at_200)} reads each; a read of the history, not "
            "a per-turn cost).",
        ],
        passed=passed,
    )


# --- 3. round trips ----------------------------------------------------------------------------------------------


# --- 4. the engine state at its bounds -------------------------------------------------------------------------


# --- everything --------------------------------------------------------------------------------------------------


def run(settings: Settings | None = None) -> Report:
    settings = settings or Settings()
    started = time.monotonic()
    function = harness_function(FUNCTION_ID)
    with embedded_database() as database:
        people = create_accounts(database.owner, settings.users)
        handler = load_function_handler(function, database.url)
        try:
            check_corpus()
            mix = measure_mix(handler, function=function, people=people, settings=settings, seed=SEED)
            growth = measure_growth(
                handler,
                function=function,
                people=people,
                owner=database.owner,
                settings=settings,
                seed=SEED + 1,
            )
        finally:
            release_handler_state()
        passes = both_passes(
            measure_pass,
            settings.delay_ms,
            database.url,
            function=function,
            people=people,
            settings=settings,
            seed=SEED + 2,
        )
    costs = measure_state_costs(growth.states[SHORT_TURNS], growth.states[LONG_TURNS])

    sections = [
        mix_report(mix),
        split_report(mix),
        growth_report(growth),
        round_trip_report(passes, settings),
    ]
    sections.append(state_report(costs))
    headline = [s.total for s in mix.samples if s.level == LOG_LEVELS[0]]
    turn_trips = passes[0].trips[TURN_ROUTE] + passes[1].trips[TURN_ROUTE]
    summary = growth_summary(growth)
    first_sizes = [session[0] for session in growth.sizes]
    last_sizes = [session[-1] for session in growth.sizes]
    bounded = all(z.max_topic_facts <= growth.facts_cap for z in last_sizes)
    p50, p99 = percentile(headline, 50), percentile(headline, 99)
    worst = max(summary.against_first, summary.against_short)
    targets = [
        target(
            f"engine overhead per turn p50 ≤ {P50_TARGET_MS:g} ms",
            f"{ms(p50)} ms",
            p50 <= P50_TARGET_MS * 1e6,
        ),
        target(
            f"engine overhead per turn p99 ≤ {P99_TARGET_MS:g} ms",
            f"{ms(p99)} ms",
            p99 <= P99_TARGET_MS * 1e6,
        ),
        target(
            f"≤ {ROUND_TRIP_BUDGET} round trips per turn",
            f"{trips_cell(turn_trips)} (start {trips_cell(passes[0].trips[START_ROUTE])}, "
            f"get {trips_cell(passes[0].trips[GET_ROUTE])})",
            max(turn_trips) <= ROUND_TRIP_BUDGET,
        ),
        target(
            f"a {LONG_TURNS}-turn session as fast as a {SHORT_TURNS}-turn one (ratio ≤ {GROWTH_RATIO_TARGET:g})",
            f"{summary.against_first:.2f}× its own first {SHORT_TURNS} turns, {summary.against_short:.2f}× "
            f"{SHORT_TURNS}-turn sessions at the same moments",
            worst <= GROWTH_RATIO_TARGET,
        ),
        target(
            "engine_state bounded",
            f"{median([z.state_bytes for z in first_sizes]):,.0f} B at turn {SHORT_TURNS}, "
            f"{median([z.state_bytes for z in last_sizes]):,.0f} B at turn {LONG_TURNS} (medians); ≤ "
            f"{growth.facts_cap} facts per topic; the config's bound {costs[-1].json_bytes:,} B",
            bounded,
        ),
    ]
    kinds = ", ".join(f"{k} {v:.0%}" for k, v in KIND_WEIGHTS.items())
    return scenario_report(
        "Interview",
        sections,
        targets,
        started=started,
        notes=[f"corpus: seed {SEED}, answer kinds weighted {kinds}."],
    )


def main(argv: list[str] | None = None) -> int:
    return bench_main(
        __doc__,
        argv,
        settings=(QUICK, Settings()),
        count=("turns", "turns", "measured turns per log level in part 1"),
        quick_help="a smaller run (fewer turns and sessions)",
        run=run,
    )
