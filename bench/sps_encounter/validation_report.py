"""SPS encounter, part 1: the validator's tables (10,000-turn transcripts, growth with length, where the time goes)."""

from __future__ import annotations

from bench.harness.report import (
    Report,
    median,
    ms,
    share,
    verdict,
)
from bench.sps_encounter.corpus import (
    KIND_WEIGHTS,
    LINEAR_RATIO_TARGET,
    SEED,
    TARGET_TURNS,
    VALIDATE_TARGET_MS,
    Settings,
)
from bench.sps_encounter.validation import (
    MODE_LABEL,
    MODE_SHORT,
    MODES,
    PART_RUNS,
    Row,
    ValidationResults,
)

LANGUAGE_NAME = {"en": "English", "zh": "Chinese"}


def _counts(found: dict[str, int]) -> str:
    total = sum(found.values())
    return ", ".join(
        f"{name} {count / total:.0%}" for name, count in sorted(found.items(), key=lambda x: -x[1])
    )


def _merged(dicts: list[dict[str, int]]) -> dict[str, int]:
    merged: dict[str, int] = {}
    for found in dicts:
        for name, count in found.items():
            merged[name] = merged.get(name, 0) + count
    return merged


def _worst(rows: list[Row]) -> Row:
    return max(rows, key=lambda row: row.median_ns)


def validation_report(results: ValidationResults, settings: Settings) -> Report:
    target = results.rows(TARGET_TURNS)
    rows = []
    for row in target:
        rows.append(
            [
                row.ref.label,
                MODE_LABEL[row.mode],
                f"{row.patient_turns:,}",
                f"**{ms(row.median_ns)}**" if row is _worst(target) else ms(row.median_ns),
                f"{ms(min(row.runs))}–{ms(max(row.runs))}",
                str(len(row.runs)),
                ms(row.per_thousand_ns),
                f"≤ {VALIDATE_TARGET_MS:g}",
                verdict(row.median_ns <= VALIDATE_TARGET_MS * 1e6),
            ]
        )
    worst, best = _worst(target), min(target, key=lambda row: row.median_ns)
    passed = worst.median_ns <= VALIDATE_TARGET_MS * 1e6
    by_language: dict[str, list] = {}
    for case in results.cases:
        by_language.setdefault(case.ref.language, []).append(case)
    contents = []
    for language, cases in by_language.items():
        patient = _merged([c.patient_kinds for c in cases])
        questions = _merged([c.question_types for c in cases])
        contents.append(
            f"{LANGUAGE_NAME[language]} ({', '.join(c.ref.label for c in cases)}): patient turns by kind "
            f"{_counts(patient)}; learner questions read as {_counts(questions)}; "
            f"{median([c.json_bytes_per_turn for c in cases]):,.0f} bytes of JSON per turn with meta."
        )
    issues = []
    for mode in MODES:
        found = _merged([row.issues for row in results.rows(TARGET_TURNS, mode)])
        issues.append(
            f"{MODE_LABEL[mode]}: "
            + (", ".join(f"{code} {count}" for code, count in sorted(found.items())) if found else "none")
        )
    generation = sum(case.generation_s for case in results.cases)
    return Report(
        title=f"SPS validator: `validate_transcript` on {TARGET_TURNS:,}-turn transcripts, in-process, one core",
        headers=[
            "scenario / persona",
            "transcript",
            "patient turns",
            "median ms",
            "range ms",
            "runs",
            "ms per 1,000 turns",
            "target ms",
            "verdict",
        ],
        rows=rows,
        notes=[
            f"Each case's transcript is one encounter played by the engine offline to {max(settings.sizes):,} turns "
            f"(the default persona; other personas to {sorted(settings.sizes)[-2] if len(settings.sizes) > 1 else 0:,}; "
            f"{generation:.0f} s in all, never timed; corpus seed {SEED}); the {TARGET_TURNS:,}-turn transcript is "
            "its first 10,000 turns, as JSON-decoded dicts (what the service passes). `with meta`: the patient turns "
            "carry the engine's meta, and the validator reads what it records; `text only`: the same transcript "
            "with meta stripped, as an external tool would send it, so the text-only rules run.",
            f"The process pinned to CPU {results.cpu} (`sched_setaffinity`), garbage collector on; per case, one "
            "untimed run of each transcript at the smallest size, then runs interleaved row by row (every size and "
            "both kinds of transcript); the case compiled before timing "
            "(`case_of`, as the service's cache holds it). Timed around `validate_transcript(transcript, case)` only.",
            "learner utterances by kind (corpus weights): "
            + ", ".join(f"{kind} {weight:.0%}" for kind, weight in KIND_WEIGHTS.items())
            + ".",
            *contents,
            "issues the validator found in these transcripts: " + "; ".join(issues) + ".",
            f"worst {ms(worst.median_ns)} ms ({worst.ref.label}, {MODE_LABEL[worst.mode]}), best "
            f"{ms(best.median_ns)} ms ({best.ref.label}, {MODE_LABEL[best.mode]}), against ≤ {VALIDATE_TARGET_MS:g} ms: "
            f"{verdict(passed)}"
            + (
                ""
                if passed
                else f" ({worst.median_ns / (VALIDATE_TARGET_MS * 1e6):.2f}× the target at worst)"
            )
            + ".",
        ],
        passed=passed,
    )


def _ratios(results: ValidationResults) -> list[tuple[Row, int, float]]:
    """(row, size, per-turn cost at that size / at the smallest) for every row above the smallest."""
    smallest = min(row.size for row in results.rows())
    found = []
    for case in results.cases:
        for mode in MODES:
            chosen = {row.size: row for row in case.rows if row.mode == mode}
            for size, row in chosen.items():
                if size != smallest:
                    found.append((row, size, row.per_thousand_ns / chosen[smallest].per_thousand_ns))
    return found


def linear_summary(results: ValidationResults) -> dict[int, tuple[float, Row]]:
    """The worst per-turn ratio at each size above the smallest."""
    worst: dict[int, tuple[float, Row]] = {}
    for row, size, ratio in _ratios(results):
        if size not in worst or ratio > worst[size][0]:
            worst[size] = (ratio, row)
    return worst


def linearity_report(results: ValidationResults) -> Report:
    sizes = sorted({row.size for row in results.rows()})
    smallest = sizes[0]
    rows = []
    for case in results.cases:
        for mode in MODES:
            chosen = {row.size: row for row in case.rows if row.mode == mode}
            ratios = {
                size: chosen[size].per_thousand_ns / chosen[smallest].per_thousand_ns
                for size in sizes[1:]
                if size in chosen
            }
            rows.append(
                [
                    case.ref.label,
                    MODE_LABEL[mode],
                    *(
                        f"{ms(chosen[size].median_ns)} ({ms(chosen[size].per_thousand_ns)})"
                        if size in chosen
                        else "—"
                        for size in sizes
                    ),
                    *(f"{ratios[size]:.2f}" if size in ratios else "—" for size in sizes[1:]),
                    verdict(max(ratios.values(), default=1.0) <= LINEAR_RATIO_TARGET),
                ]
            )
    worst = linear_summary(results)
    passed = all(ratio <= LINEAR_RATIO_TARGET for ratio, _ in worst.values())
    runs = ", ".join(f"{size:,}: {len(results.rows(size)[0].runs)}" for size in sizes)
    return Report(
        title="SPS validator: growth with the transcript's length (median ms, and ms per 1,000 turns)",
        headers=[
            "scenario / persona",
            "transcript",
            *(f"{size:,} turns: ms (per 1,000)" for size in sizes),
            *(f"per-turn cost {size:,} / {smallest:,}" for size in sizes[1:]),
            f"linear (≤ {LINEAR_RATIO_TARGET:g})",
        ],
        rows=rows,
        notes=[
            f"The smaller transcripts are the first turns of the largest, so every size has the same mix; the "
            f"largest size is played for each scenario's default persona only. Runs per size {runs} (medians). A "
            f"per-turn ratio of 1 is linear growth; the target allows {LINEAR_RATIO_TARGET:g} (run-to-run noise on "
            "this VM is ±20 %).",
            "worst per-turn ratio "
            + "; ".join(
                f"{size:,} / {smallest:,}: {ratio:.2f} ({row.ref.label}, {MODE_LABEL[row.mode]})"
                for size, (ratio, row) in sorted(worst.items())
            )
            + f": {verdict(passed)}.",
        ],
        passed=passed,
    )


def parts_report(results: ValidationResults) -> Report:
    decompositions = results.decompositions
    labels: list[str] = []
    for found in decompositions:
        labels.extend(part.label for part in found.parts if part.label not in labels)
    rows = []
    for label in labels:
        cells = []
        for found in decompositions:
            part = next((p for p in found.parts if p.label == label), None)
            cells.append(f"{ms(part.ns)} ({share(part.ns, found.wrapped_ns)})" if part else "")
        rows.append([label, *cells])
    rows.append(
        [
            "the rest: the loop, reading each turn, the per-turn record, the timers' own calls",
            *(f"{ms(f.rest_ns)} ({share(f.rest_ns, f.wrapped_ns)})" for f in decompositions),
        ]
    )
    rows.append(["the validator with every part timed", *(ms(f.wrapped_ns) for f in decompositions)])
    rows.append(
        ["**the validator as measured in part 1**", *(f"**{ms(f.total_ns)}**" for f in decompositions)]
    )
    notes = []
    if decompositions:
        notes.append(
            f"On the {TARGET_TURNS:,}-turn transcripts of each scenario's default persona, pinned to one CPU: every "
            f"part wrapped where the validator calls it, {PART_RUNS} runs, medians. A part's time is exclusive of the "
            "wrapped parts it calls, less one clock read per call "
            f"({decompositions[0].clock_ns:.0f} ns here); shares are of the timed validator's whole run (the row "
            "below the rest), which the wrapping makes a few per cent slower than part 1's. `learner turns` is "
            "`_Run.learner` (question type, measuring, vague prompts, guardrails)."
        )
    for patterns in results.patterns:
        whole = next(d.total_ns for d in decompositions if d.ref == patterns.ref and d.mode == "meta")
        costly = "; ".join(
            f"`{slot}` `{pattern}` {us:.1f} µs" for slot, pattern, us in patterns.costliest[:3]
        )
        union_ms = patterns.union_us * patterns.texts / 1e3
        notes.append(
            f"{patterns.ref.scenario_id} ({LANGUAGE_NAME[patterns.ref.language]}): the fact-conflict patterns as the rule "
            f"runs them (`case.conflicts`: {patterns.count} patterns of the case's slots, each searched only on a text "
            f"holding one of its gate's literals) cost **{patterns.union_us:.1f} µs a patient turn** on their own, "
            f"{union_ms:.0f} ms over the {patterns.texts:,} patient turns ({share(union_ms * 1e6, whole)} of part 1's "
            f"median with meta); the same patterns searched one by one with no gate cost {patterns.sum_us:.1f} µs a turn "
            f"in all. Costliest alone: {costly}."
        )
    return Report(
        title=f"SPS validator: where the time goes ({TARGET_TURNS:,} turns; ms per run and share)",
        headers=[
            "part",
            *(f"{d.ref.scenario_id}, {MODE_SHORT[d.mode]}" for d in decompositions),
        ],
        rows=rows,
        notes=notes,
    )
