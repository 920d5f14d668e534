"""SPS encounter, part 2b (beyond the issue): POST /sps/validate with part 1's large transcripts,
against the request model and the validator alone."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bench.harness.handler import (
    BenchUser,
    expect_status,
    set_log_level,
    stdout_to_devnull,
)
from bench.harness.report import Report, median, ms
from bench.harness.timing import call
from bench.sps_encounter.corpus import FUNCTION_ID, LOG_LEVELS, CaseRef
from bench.sps_encounter.handler import VALIDATE_ROUTE, event
from bench.sps_encounter.validation import MODE_LABEL, MODE_SHORT
from bench.sps_encounter.validation_report import LANGUAGE_NAME

if TYPE_CHECKING:
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function


@dataclass(frozen=True)
class RouteSize:
    language: str
    ref: CaseRef
    mode: str
    turns: int
    body_bytes: int
    handler_ns: list[int]  # lambda_handler, each request
    model_ns: float  # `ValidateRequest.model_validate_json` alone, in-process, median
    validator_ns: float  # `validate_transcript` alone on the same transcript, median


def measure_route_sizes(
    handler: Handler,
    *,
    function: Function,
    owners: list[BenchUser],
    kept: dict[str, tuple[CaseRef, dict[int, list[dict[str, Any]]]]],
    requests: int,
) -> list[RouteSize]:
    """POST /sps/validate with the part-1 transcripts of each scenario's default persona, with and
    without meta: one untimed request, then `requests` timed; and in-process, the request model's
    validation and the validator alone on the same body (median of 3)."""
    from bench.sps_encounter.corpus import compiled, without_meta
    from sps_encounter.artifacts import sps_config
    from sps_encounter.engine.validator import validate_transcript
    from sps_encounter.schemas import ValidateRequest

    config = sps_config()
    found: list[RouteSize] = []
    user = owners[0]
    set_log_level(LOG_LEVELS[0])
    with stdout_to_devnull():
        for ref, by_size in kept.values():
            language = ref.language
            case = compiled(config, ref)
            for size, turns in by_size.items():
                for mode in ("meta", "text"):
                    transcript = turns if mode == "meta" else without_meta(turns)
                    body = {
                        "scenario_id": ref.scenario_id,
                        "persona_id": ref.persona_id,
                        "transcript": transcript,
                    }
                    request = event(function, VALIDATE_ROUTE, user.token, body=body)
                    raw = request["body"]
                    timings = []
                    for attempt in range(requests + 1):
                        result, elapsed, _ = call(handler, request, FUNCTION_ID)
                        expect_status(result, 200, f"validate {size:,} turns")
                        if attempt:
                            timings.append(elapsed)
                    model, validator = [], []
                    for _ in range(3):
                        started = time.perf_counter_ns()
                        ValidateRequest.model_validate_json(raw)
                        model.append(time.perf_counter_ns() - started)
                        started = time.perf_counter_ns()
                        validate_transcript(transcript, case)
                        validator.append(time.perf_counter_ns() - started)
                    found.append(
                        RouteSize(
                            language,
                            ref,
                            mode,
                            size,
                            len(raw.encode()),
                            timings,
                            sorted(model)[1],
                            sorted(validator)[1],
                        )
                    )
    return found


def route_size_report(sizes: list[RouteSize]) -> Report:
    rows = []
    for item in sizes:
        rows.append(
            [
                f"{LANGUAGE_NAME[item.language]} ({item.ref.label})",
                MODE_LABEL[item.mode],
                f"{item.turns:,}",
                f"{item.body_bytes / 1e6:.2f}",
                ms(median(item.handler_ns)),
                ms(item.model_ns),
                ms(item.validator_ns),
            ]
        )
    over = [item for item in sizes if item.body_bytes > 6 * 1024 * 1024]
    return Report(
        title="SPS encounter: `POST /sps/validate` with part 1's transcripts (beyond the issue; WARNING)",
        headers=[
            "language (scenario / persona)",
            "transcript",
            "turns",
            "body MB",
            "p50 ms through lambda_handler",
            "`ValidateRequest.model_validate_json` alone ms",
            "`validate_transcript` alone ms",
        ],
        rows=rows,
        notes=[
            f"After part 2, on the same warm handler: one untimed request, then {len(sizes[0].handler_ns) if sizes else 0} "
            "timed per row (median); the last two columns in-process on the same body and transcript (median of 3), "
            "not pinned. The route also turns the request model back into dicts (`model_dump`) before validating, "
            "and builds the `ValidationResult` model and its JSON.",
            "The request schema allows 20,000 turns; Lambda's synchronous invocation payload is at most 6 MB, and "
            "API Gateway passes the body inside the event (escaped again as a JSON string), so a transcript carrying "
            f"this runtime's meta (~{median([i.body_bytes / i.turns for i in sizes if i.mode == 'meta']):,.0f} B a "
            "turn) cannot reach the handler beyond roughly "
            f"{6 * 1024 * 1024 / max(i.body_bytes / i.turns for i in sizes):,.0f} turns; "
            + (
                "bodies here over 6 MiB: "
                + ", ".join(f"{i.ref.scenario_id} {MODE_SHORT[i.mode]} at {i.turns:,} turns" for i in over)
                + " (measured in-process only)."
                if over
                else "no body here is that large."
            ),
        ],
    )
