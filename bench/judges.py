"""The judges' offline path on one core: what folding and the local models cost per text (targets:
<= 0.2 ms per text, <= 5 MB of weights), and rule-only moderation checks per second with folding on
and off in the same run. Method: docs/benchmarks.md, "Judges"."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from unittest import mock

from bench.harness.handler import one_cpu
from bench.harness.report import Report, cli, emit, load_average, machine_summary, median, option, verdict
from bench.harness.scenario import passes
from bench.moderation.corpus import RULE_TARGET_PER_SECOND, SEED, chinese_corpus
from persona_rails_dev import evalsets
from persona_rails_dev.judges import with_function

PER_TEXT_TARGET_US = 200.0
WEIGHTS_TARGET_BYTES = 5 * 1024 * 1024


def _texts() -> dict[str, list[str]]:
    return {
        name: [item.text for item in evalsets.load(name, "test", model)]
        for name, model in (
            ("emergency", evalsets.EmergencyItem),
            ("category", evalsets.CategoryItem),
            ("intimacy", evalsets.IntimacyItem),
        )
    }


def _per_text_us(variants: dict[str, tuple[list[str], Callable[[str], Any]]], count: int) -> dict[str, float]:
    """Median over passes of the mean microseconds per text, each variant over its own texts."""
    cases = {name: (run, [(text,) for text in texts]) for name, (texts, run) in variants.items()}
    return {name: median([1e6 / rate for rate in rates]) for name, rates in passes(cases, count).items()}


def measure(count: int) -> tuple[Report, Report]:
    with_function("intercept_session")
    with_function("moderation_check")
    from intercept_session.engine.emergency import judge_emergency, rule_features
    from intercept_session.engine.offline_evaluator import category_features
    from intercept_session.engine.urgency import read
    from intercept_session.judges import CATEGORY_MODEL, EMERGENCY_MODEL, judges
    from persona_rails.folding import _fold
    from persona_rails.moderation import scoring
    from persona_rails.moderation.intimacy import evaluate
    from persona_rails.moderation.lexicon import lexicon_artifact
    from persona_rails.moderation.local_scorer import MODEL_FILE, intimacy_model, local_model_score
    from persona_rails.moderation.scoring import Policy, rule_score

    texts = _texts()
    every = [text for group in texts.values() for text in group]
    found = judges()
    # The rule's reading as the model receives it, taken apart so the model's own cost shows.
    readings = {text: rule_features(read(text, found.urgency)) for text in texts["emergency"]}
    lexicon = lexicon_artifact().value
    model = intimacy_model()

    def checked(local: bool) -> Callable[[str], Any]:
        def run(text: str) -> Any:
            return evaluate(
                text,
                stage=3,
                policy=Policy.STAGE_AWARE,
                lexicon=lexicon,
                local_model_score=local_model_score(model, text, lexicon) if local else None,
                third_party_score=None,
            )

        return run

    variants = {
        # _fold, not fold: the cached `fold` would time a dictionary lookup.
        "fold (every test text)": (every, lambda text: _fold(text, None)),
        "emergency model (fold, n-grams, score; the rule's reading given)": (
            texts["emergency"],
            lambda text: found.emergency.probabilities(text, readings[text]),
        ),
        "(whole judge) emergency: the rule's reading, then the model": (
            texts["emergency"],
            lambda text: judge_emergency(text, found.urgency, found.emergency),
        ),
        "category model (fold, n-grams, keyword counts, score)": (
            texts["category"],
            lambda text: found.category.probabilities(text, category_features(text)),
        ),
        "intimacy model (fold, n-grams, cue counts, score)": (
            texts["intimacy"],
            lambda text: local_model_score(model, text, lexicon),
        ),
        "intimacy check: rule + local model + verdict": (texts["intimacy"], checked(local=True)),
    }
    corpus = chinese_corpus(2000, SEED)
    rules = {
        "rule": (corpus, lambda text: rule_score(text, lexicon)),
        "check": (corpus, checked(local=False)),
    }
    with one_cpu() as cpu:
        per_text = _per_text_us(variants, count)
        on = _per_text_us(rules, count)
        # The rule score as it was before folding: matched on the text as written.
        with mock.patch.object(scoring, "fold", lambda text: text):
            off = _per_text_us(rules, count)
    sizes = {path.name: path.stat().st_size for path in (EMERGENCY_MODEL, CATEGORY_MODEL, MODEL_FILE)}
    rows = []
    for name, micros in per_text.items():
        # The budget is the local models' inference; a "(whole judge)" row adds the rule's own
        # reading, which ran before issue 21 too.
        targeted = "model" in name and not name.startswith("(")
        target = f"≤ {PER_TEXT_TARGET_US:g}" if targeted else ""
        met = verdict(micros <= PER_TEXT_TARGET_US) if targeted else ""
        rows.append([name, f"{len(variants[name][0]):,}", f"{micros:.1f}", target, met])
    for file, size in sizes.items():
        met = verdict(size <= WEIGHTS_TARGET_BYTES)
        rows.append([f"weights file `{file}`", "", f"{size / 1e6:.2f} MB", "≤ 5 MB", met])
    latency = Report(
        title="Judges: per-text cost of folding and the local models, one core",
        headers=["what is timed", "texts", "µs per text (median pass)", "target", "verdict"],
        rows=rows,
        notes=[
            f"{count} timed passes after one untimed pass, on CPU {cpu}; median length of the texts: emergency "
            f"{median([len(t) for t in texts['emergency']]):.0f}, intimacy {median([len(t) for t in texts['intimacy']]):.0f} "
            'characters; what each row times: docs/benchmarks.md, "Judges".',
        ],
        passed=all(row[-1] != "FAIL" for row in rows),
    )
    rule_on, rule_off = 1e6 / on["rule"], 1e6 / off["rule"]
    check_on, check_off = 1e6 / on["check"], 1e6 / off["check"]
    throughput = Report(
        title="Moderation: rule-only checks per second, folding on and off, one core",
        headers=["what is timed", "folding off", "folding on (shipped)", "on / off", "target", "verdict"],
        rows=[
            ["`rule_score`", f"{rule_off:,.0f}/s", f"{rule_on:,.0f}/s", f"{rule_on / rule_off:.2f}", "", ""],
            [
                "`evaluate`, stage_aware, no local model",
                f"{check_off:,.0f}/s",
                f"{check_on:,.0f}/s",
                f"{check_on / check_off:.2f}",
                f"≥ {RULE_TARGET_PER_SECOND:,}/s",
                verdict(check_on >= RULE_TARGET_PER_SECOND),
            ],
        ],
        notes=[f"bench.moderation's corpus: 2,000 texts of 50 Chinese characters (seed {SEED})."],
        passed=check_on >= RULE_TARGET_PER_SECOND,
    )
    return latency, throughput


def main(argv: list[str] | None = None) -> int:
    def run(count: int) -> int:
        print(machine_summary(), flush=True)
        reports = measure(count)
        for report in reports:
            emit(report)
        print(f"load average at the end: {load_average()}")
        return 0 if all(report.passed for report in reports) else 1

    return cli(__doc__, argv, [option("--passes", type=int, default=7)], lambda args: run(args.passes))


if __name__ == "__main__":
    raise SystemExit(main())
