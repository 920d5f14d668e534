"""Shared helpers for the chair-interruption engine's unit tests: the shipped config, a cast of
chairs, a context builder, an LLM verdict builder and a broken-config-copy helper."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chair_interrupt.artifacts import CONFIG_DIR, chair_config, chair_model
from chair_interrupt.engine.config import ChairConfig
from chair_interrupt.engine.detectors import Reading, read
from chair_interrupt.engine.evaluate import Decision, eligible_chairs, offline_decision, seed_for
from chair_interrupt.engine.model import Chair, EvaluationContext
from chair_interrupt.engine.prompt import LlmVerdict
from chair_interrupt.engine.quick import quick_check

UTIL = Chair("chair_1", "utilitarianism", "openai/gpt-4o", "GPT-4o")
VIRTUE = Chair("chair_2", "virtue_ethics", "anthropic/claude-3.5-sonnet", "Claude")
DEON = Chair("chair_3", "deontology", "google/gemini-pro")  # no display name: shown by model id
CARE = Chair("chair_4", "care_ethics", "meta/llama-3", "Llama")

SEED = seed_for("debate-under-test", "request-fingerprint")


def config() -> ChairConfig:
    return chair_config()


def context(
    recent: str,
    *,
    speaker: Chair = UTIL,
    others: tuple[Chair, ...] = (VIRTUE,),
    debate: str = "",
    topic: str = "AI Ethics",
) -> EvaluationContext:
    return EvaluationContext(
        current_speaker=speaker,
        other_chairs=others,
        recent_content=recent,
        debate_so_far=debate,
        topic=topic,
    )


def offline(
    ctx: EvaluationContext, *, aggressiveness: int = 3, on_cooldown: frozenset[str] = frozenset()
) -> Decision:
    """The offline evaluator run the way the service runs it: cooldown filter, quick check,
    the aggressiveness's threshold."""
    cfg = config()
    eligible = eligible_chairs(ctx, on_cooldown)
    return offline_decision(
        cfg,
        ctx,
        eligible,
        quick_check(cfg, ctx.recent_content),
        aggressiveness=aggressiveness,
        seed=SEED,
        model=chair_model(),
    )


def verdict(**fields: Any) -> LlmVerdict:
    """A verdict as the model would send it (the spec's camelCase JSON), with overrides."""
    document: dict[str, Any] = {
        "shouldInterrupt": True,
        "interruptingChairPosition": VIRTUE.position,
        "reason": "straw_man_detected",
        "triggerContent": "just want to feel good about themselves",
        "urgency": 0.9,
        "suggestedOpener": "You're misrepresenting my framework",
    }
    document.update(fields)
    return LlmVerdict.model_validate_json(json.dumps(document))


def copy_config(directory: Path) -> Path:
    target = directory / "config"
    target.mkdir()
    for path in CONFIG_DIR.glob("*.json"):
        shutil.copy(path, target / path.name)
    return target


def edit_json(path: Path, edit: Callable[[Any], None]) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    edit(document)
    path.write_text(json.dumps(document, ensure_ascii=False, indent=2), encoding="utf-8")


def detected(text: str) -> Reading:
    """What the shipped detectors and hedges read in `text`."""
    cfg = config()
    return read(cfg.detectors, cfg.hedges, cfg.aliases, text)
