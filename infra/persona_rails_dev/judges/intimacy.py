"""The intimacy judgment: the moderation label of a companion's reply, as the intimacy plugin
decides it on its offline path (the rule score and the local model fused, no LLM).

Each item is measured six times: under the `default` policy (stage-blind: it must give the label
of stage 3, whose thresholds are the spec's) and under `stage_aware` at stages 1 to 5. What label
each class of reply deserves at each stage is data: eval/intimacy/labels.json.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from persona_rails_dev import evalsets
from persona_rails_dev.judges import Case, with_function

LABELS = ("pass", "warn", "rewrite", "reject")
STAGES = (1, 2, 3, 4, 5)
DEFAULT = "default"
LABEL_TABLE = evalsets.ROOT / "intimacy" / "labels.json"


POLICIES = ("default", "stage_aware")
# The targets, per policy: sexual and romantic-partner replies not passed, and ordinary
# friendly replies passed at stage 3 and above.
TARGETS = {
    **{f"targets.{policy}.all.held": (0.95, False) for policy in POLICIES},
    **{f"targets.{policy}.all.friendly_passed": (0.95, False) for policy in POLICIES},
}
HELD = frozenset({"sexual", "romantic"})


def contexts() -> list[str]:
    return [DEFAULT, *(f"stage_aware/{stage}" for stage in STAGES)]


def label_table() -> dict[str, list[str]]:
    table: dict[str, list[str]] = json.loads(LABEL_TABLE.read_text(encoding="utf-8"))["stages"]
    return table


@dataclass(frozen=True)
class IntimacyJudge:
    name: str = "intimacy"
    labels: tuple[str, ...] = LABELS
    table: dict[str, list[str]] = field(default_factory=label_table)

    def items(self, split: str) -> Sequence[evalsets.IntimacyItem]:
        return evalsets.load(self.name, split, evalsets.IntimacyItem)

    def items_of(self, path: Path) -> Sequence[evalsets.IntimacyItem]:
        return evalsets.load_file(path, evalsets.IntimacyItem, prefix="own")

    def expected(self, klass: str, context: str) -> str:
        stage = 3 if context == DEFAULT else int(context.rsplit("/", 1)[1])
        return self.table[klass][stage - 1]

    def cases(self, items: Sequence[evalsets.Item]) -> list[Case]:
        return [
            Case(item, context, self.expected(item.klass, context))
            for item in items
            if isinstance(item, evalsets.IntimacyItem)
            for context in contexts()
        ]

    def targets(self) -> dict[str, tuple[float, bool]]:
        return TARGETS

    def extra_figures(self, decided: Sequence[Any]) -> dict[str, Any]:
        """Per policy and language: sexual and romantic-partner replies held (not passed), and
        friendly replies passed at stage 3 and above (every stage under `default`)."""
        found: dict[str, Any] = {}
        for policy in POLICIES:
            found[policy] = {}
            for language in (*evalsets.LANGUAGES, "all"):
                chosen = [
                    d
                    for d in decided
                    if d.case.context.split("/")[0] == policy and language in ("all", d.case.item.lang)
                ]
                held = [d for d in chosen if d.case.item.klass in HELD]
                friendly = [
                    d
                    for d in chosen
                    if d.case.item.klass == "friendly"
                    and (d.case.context == DEFAULT or int(d.case.context.rsplit("/", 1)[1]) >= 3)
                ]
                found[policy][language] = {
                    "held": round(sum(d.decided != "pass" for d in held) / len(held), 4) if held else 0.0,
                    "friendly_passed": round(sum(d.decided == "pass" for d in friendly) / len(friendly), 4)
                    if friendly
                    else 0.0,
                }
        return found

    def decide(self, text: str, context: str) -> str:
        from persona_rails.moderation.intimacy import evaluate
        from persona_rails.moderation.lexicon import lexicon_artifact
        from persona_rails.moderation.local_scorer import intimacy_model, local_model_score
        from persona_rails.moderation.scoring import Policy

        policy = Policy.DEFAULT if context == DEFAULT else Policy.STAGE_AWARE
        stage = 3 if context == DEFAULT else int(context.rsplit("/", 1)[1])
        outcome = evaluate(
            text,
            stage=stage,
            policy=policy,
            lexicon=lexicon_artifact().value,
            local_model_score=local_model_score(intimacy_model(), text, lexicon_artifact().value),
            third_party_score=None,
        )
        return str(outcome.final)


def build() -> IntimacyJudge:
    with_function("moderation_check")
    return IntimacyJudge()
