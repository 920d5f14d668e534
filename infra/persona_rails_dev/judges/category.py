"""The category judgment: what need a reason states (work, study, mental_break, emergency, other),
as InterceptSessionFunction's offline path records it in `reason_category`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from persona_rails_dev import evalsets
from persona_rails_dev.judges import Case, with_function
from persona_rails_dev.judges.emergency import EmergencyJudge

LABELS = ("work", "study", "mental_break", "emergency", "other")


@dataclass(frozen=True)
class CategoryJudge:
    name: str = "category"
    labels: tuple[str, ...] = LABELS

    def items(self, split: str) -> Sequence[evalsets.CategoryItem]:
        return evalsets.load(self.name, split, evalsets.CategoryItem)

    def items_of(self, path: Path) -> Sequence[evalsets.CategoryItem]:
        return evalsets.load_file(path, evalsets.CategoryItem, prefix="own")

    def cases(self, items: Sequence[evalsets.Item]) -> list[Case]:
        return [Case(item, "", item.category) for item in items if isinstance(item, evalsets.CategoryItem)]

    def decide(self, text: str, context: str) -> str:
        return str(EmergencyJudge().turn(text).evaluation.category.value)


def build() -> CategoryJudge:
    with_function("intercept_session")
    return CategoryJudge()
