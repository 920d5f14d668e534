"""1. The quick check in-process, on one core: `quick_check(chair_config(), text)` over the corpus's
300-character chunks, for the mix and for trigger-free and trigger chunks apart; then what its time
is made of.

The decomposition follows the function's quick check as of 3dc2842: the chunk's apostrophes are
normalised and it is lowercased; every pattern's required literals (`requires`) are searched for
as plain substrings (the gate); only patterns with a literal present run their regular
expression, in order, until one matches. If the engine's configuration no longer has that shape,
the decomposition rows are left out (the headline rows always measure `quick_check` itself).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.chair_interrupt.corpus import QUICK_TARGET_PER_SECOND, SEED, TEXT_CHARS, TRIGGER_SHARE, Chunk
from bench.harness.report import Report, median, verdict
from bench.moderation.rules import one_cpu

MIX = "`quick_check`, the mix"
NO_TRIGGER = "`quick_check`, trigger-free chunks"
TRIGGER = "`quick_check`, trigger chunks"
TARGETED = (MIX, NO_TRIGGER, TRIGGER)
EN_ALL = "`quick_check`, English chunks (the mix)"
ZH_ALL = "`quick_check`, Chinese chunks (the mix)"
PREPARE = {
    "en": "part: `prepare` (folding, `lower`) alone, English chunks",
    "zh": "part: `prepare` (folding, `lower`) alone, Chinese chunks",
}
GATE = {
    "en": "part: `prepare` + the literal scan (the gate), English chunks",
    "zh": "part: `prepare` + the literal scan (the gate), Chinese chunks",
}
WHOLE = {"en": EN_ALL, "zh": ZH_ALL}
UNGATED = "(diagnostic) every pattern's regex in order until a match, no gate, the mix (the same answers)"


@dataclass
class Row:
    label: str
    texts: list[str]
    run: Callable[[list[str]], object]
    per_second: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class GateStats:
    """For one language's trigger-free chunks: how often the literal gate opens, and what for."""

    chunks: int
    opened: float  # share of chunks holding at least one required literal
    regexes: float  # regexes run per chunk (the patterns whose literals are present)
    literals: list[tuple[str, float]]  # the literals found most often, with their share of chunks


@dataclass
class QuickResult:
    rows: list[Row]
    cpu: int
    chunks: int
    triggers: int
    languages: dict[str, int]
    reasons: dict[str, int]
    gate: dict[str, GateStats]  # by language; empty when the engine has no literal gate
    regex_us: list[tuple[str, float]]  # each pattern's search over a trigger-free chunk, µs, costliest first


def _gate_shape(config: Any) -> bool:
    """Whether the engine's config has the literal-gated shape the decomposition assumes."""
    ordered = getattr(config, "ordered", ())
    return hasattr(config, "ascii_literals") and all(len(item) == 3 for item in ordered)


def _gate_stats(config: Any, texts: list[str]) -> GateStats:
    from chair_interrupt.engine.quick import literals_present
    from chair_interrupt.engine.quick import prepare as prepare_text

    opened, regexes = 0, 0
    found: dict[str, int] = {}
    for text in texts:
        present = literals_present(config, prepare_text(text))
        opened += bool(present)
        regexes += sum(not present.isdisjoint(literals) for literals, _, _ in config.ordered)
        for literal in present:
            found[literal] = found.get(literal, 0) + 1
    common = sorted(found.items(), key=lambda item: -item[1])[:8]
    count = max(len(texts), 1)
    return GateStats(len(texts), opened / count, regexes / count, [(lit, n / count) for lit, n in common])


def measure_quick(chunks: list[Chunk], passes: int) -> QuickResult:
    from chair_interrupt.artifacts import chair_config
    from chair_interrupt.engine.quick import literals_present, quick_check
    from chair_interrupt.engine.quick import prepare as prepare_text

    config = chair_config()

    def product(texts: list[str]) -> object:
        for text in texts:
            quick_check(config, text)
        return None

    every = [item.text for item in chunks]
    free = [item.text for item in chunks if item.reason is None]
    carrying = [item.text for item in chunks if item.reason is not None]
    english = [item.text for item in chunks if item.language == "en"]
    chinese = [item.text for item in chunks if item.language == "zh"]
    rows = [
        Row(MIX, every, product),
        Row(NO_TRIGGER, free, product),
        Row(TRIGGER, carrying, product),
        Row(EN_ALL, english, product),
        Row(ZH_ALL, chinese, product),
    ]
    gated = _gate_shape(config)
    if gated:
        patterns = [pattern for _, pattern, _ in config.ordered]

        def prepare(texts: list[str]) -> object:
            for text in texts:
                prepare_text(text)
            return None

        def gate(texts: list[str]) -> object:
            for text in texts:
                literals_present(config, prepare_text(text))
            return None

        def ungated(texts: list[str]) -> object:
            for text in texts:
                prepared = prepare_text(text)
                for pattern in patterns:
                    if pattern.search(prepared) is not None:
                        break
            return None

        rows += [
            Row(PREPARE["en"], english, prepare),
            Row(PREPARE["zh"], chinese, prepare),
            Row(GATE["en"], english, gate),
            Row(GATE["zh"], chinese, gate),
            Row(UNGATED, every, ungated),
        ]
    regex_us: list[tuple[str, float]] = []
    with one_cpu() as cpu:
        for row in rows:  # one untimed pass each: caches, lazy compiles
            row.run(row.texts)
        for _ in range(passes):
            for row in rows:  # interleaved, so noise hits every row
                started = time.perf_counter_ns()
                row.run(row.texts)
                elapsed = time.perf_counter_ns() - started
                row.per_second.append(len(row.texts) / (elapsed / 1e9))
        if gated:
            prepared = [prepare_text(text) for text in free]
            for _, pattern, _ in config.ordered:
                samples = []
                for _ in range(3):
                    started = time.perf_counter_ns()
                    for text in prepared:
                        pattern.search(text)
                    samples.append((time.perf_counter_ns() - started) / len(prepared) / 1e3)
                regex_us.append((pattern.pattern, median(samples)))
            regex_us.sort(key=lambda item: -item[1])
    languages: dict[str, int] = {}
    reasons: dict[str, int] = {}
    for item in chunks:
        languages[item.language] = languages.get(item.language, 0) + 1
        if item.reason is not None:
            reasons[item.reason] = reasons.get(item.reason, 0) + 1
    gate_stats = (
        {
            language: _gate_stats(
                config, [i.text for i in chunks if i.reason is None and i.language == language]
            )
            for language in ("en", "zh")
        }
        if gated
        else {}
    )
    return QuickResult(rows, cpu, len(chunks), len(carrying), languages, reasons, gate_stats, regex_us)


def rate(result: QuickResult, label: str) -> float:
    return median(next(row.per_second for row in result.rows if row.label == label))


def _us(result: QuickResult, label: str) -> float:
    return 1e6 / rate(result, label)


def _short(pattern: str, limit: int = 50) -> str:
    return pattern if len(pattern) <= limit else pattern[:limit] + "…"


def quick_report(result: QuickResult, passes: int) -> Report:
    target = QUICK_TARGET_PER_SECOND
    rows = []
    for row in result.rows:
        value = median(row.per_second)
        targeted = row.label in TARGETED
        rows.append(
            [
                row.label,
                f"{len(row.texts):,}",
                f"{value:,.0f}",
                f"{min(row.per_second):,.0f}–{max(row.per_second):,.0f}",
                f"{1e6 / value:.1f}",
                f"≥ {target:,}" if targeted else "",
                verdict(value >= target) if targeted else "",
            ]
        )
    mix, free, carrying = rate(result, MIX), rate(result, NO_TRIGGER), rate(result, TRIGGER)
    passed = mix >= target
    reasons = ", ".join(
        f"{name} {count / result.triggers:.0%}"
        for name, count in sorted(result.reasons.items(), key=lambda x: -x[1])
    )
    notes = [
        f"{result.chunks:,} chunks of exactly {TEXT_CHARS} characters (seed {SEED}), English and Chinese "
        f"alternating ({result.languages.get('en', 0):,} / {result.languages.get('zh', 0):,}); "
        f"{result.triggers:,} ({TRIGGER_SHARE:.0%}) carry one trigger sentence ({reasons}), the rest none; "
        "the function's own quick check agreed with every label before timing.",
        f"{passes} timed passes per row, rows interleaved pass by pass, after one untimed pass; the process "
        f"pinned to CPU {result.cpu} (`sched_setaffinity`); garbage collector on. `quick_check(chair_config(), "
        "text)` is called exactly as the service calls it.",
        f"the mix: {mix:,.0f} texts/s against the target {target:,}: {verdict(passed)}"
        + ("" if passed else f" (at {mix / target:.0%} of it: {target / mix:.2f}× too slow)")
        + f"; a trigger chunk costs {free / carrying:.2f}× a trigger-free one, a Chinese chunk "
        f"{rate(result, EN_ALL) / rate(result, ZH_ALL):.2f}× an English one.",
    ]
    if result.gate:
        parts = []
        for language, name in (("en", "English"), ("zh", "Chinese")):
            prepare, gate, whole = (
                _us(result, PREPARE[language]),
                _us(result, GATE[language]),
                _us(result, WHOLE[language]),
            )
            parts.append(
                f"{name} {whole:.1f} µs = `prepare` {prepare:.1f} + the literal scan {gate - prepare:.1f} "
                f"+ the regexes the gate lets through {whole - gate:.1f}"
            )
        mix_us = _us(result, MIX)
        notes.append(
            f"where a chunk's time goes: {'; '.join(parts)} (the gate searches {len(_literals())} literals). "
            f"Without the gate, every regex in order costs {_us(result, UNGATED):.1f} µs a chunk "
            f"({rate(result, UNGATED):,.0f}/s on the mix): the gate makes the check "
            f"{_us(result, UNGATED) / mix_us:.1f}× faster."
        )
        for language, name in (("en", "English"), ("zh", "Chinese")):
            stats = result.gate[language]
            common = ", ".join(f"`{literal}` {share:.0%}" for literal, share in stats.literals)
            notes.append(
                f"{name} trigger-free chunks ({stats.chunks:,}): the gate opens on {stats.opened:.0%} of them, "
                f"{stats.regexes:.2f} regexes run per chunk; the literals found most often: {common}."
            )
        costly = "; ".join(f"`{_short(pattern)}` {cost:.1f} µs" for pattern, cost in result.regex_us[:5])
        notes.append(f"the costliest regexes when they run (one search of a trigger-free chunk): {costly}.")
    else:
        notes.append(
            "the engine's configuration has no literal gate (see the module docstring): no decomposition."
        )
    return Report(
        title="Chair interrupt: the quick check in-process, one core",
        headers=[
            "what is timed",
            "chunks",
            "median texts/s",
            "range over passes",
            "µs/text",
            "target",
            "verdict",
        ],
        rows=rows,
        notes=notes,
        passed=passed,
    )


def _literals() -> tuple[str, ...]:
    from chair_interrupt.artifacts import chair_config

    return tuple(getattr(chair_config(), "literals", ()))
