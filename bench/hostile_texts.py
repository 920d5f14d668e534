"""How long the engines' own patterns take on texts built to almost match them: each engine's
text path (the interview's signal reading and its post-check of a reply, the chair's offline
evaluator, the SPS validator) on a run of one character after a word that starts a pattern, at
the length the API allows. Target: each under 100 ms. Backtracking shapes are kept out by
tests/unit/tooling/test_regex_shapes.py; this measures what they cost when one slips through.
Method and figures: docs/benchmarks.md, "Hostile requests"."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from bench.harness.report import Report, cli, emit, option, verdict

TARGET_MS = 100.0
# The API's limits: an interview answer, a chair's recent chunk, one SPS transcript turn.
ANSWER_CHARS = 4000
CHUNK_CHARS = 4000
TURN_CHARS = 4000
# A word that starts a pattern, then a run of one character a pattern's repeats can all take.
RUNS = (
    ("", " "),
    ("", "-"),
    ("", "!"),
    ('"', " "),
    ("'", "a'b "),
    ("you", " "),
    ("sleep", " "),
    ("nurse", "!"),
    ("hmm", "?"),
    ("吗", " "),
    ("等", "。"),
    ("critics say", " "),
)


def hostile_texts(length: int) -> list[tuple[str, str]]:
    texts = []
    for word, run in RUNS:
        body = word + run * ((length - len(word)) // len(run))
        # A last character that fails the search at the very end: a letter where a pattern ends
        # in non-word characters, a control character where it ends in spaces.
        for last in ("z", "\x01"):
            texts.append((f"{word!r} + {run!r} × n + {last!r}", body[: length - 1] + last))
    return texts


def paths() -> list[tuple[str, int, Callable[[str], Any]]]:
    from persona_rails_dev.judges import judge, with_function

    interview = judge("interview")
    chair = judge("chair")
    chair_context = chair.cases(chair.items("test")[:1])[0].context
    with_function("interview_turn")
    from interview_turn.artifacts import interview_config
    from interview_turn.engine.evaluator import Metrics
    from interview_turn.engine.model import Persona
    from interview_turn.engine.safety import post_check

    config = interview_config()
    # A short reply's metrics: only the patterns are timed, not the token count.
    metrics = Metrics(response_tokens=1, question_count=0, question_tokens_mean=0.0, sentence_count=1)

    with_function("sps_encounter")
    from persona_rails_dev.judges.sps import _case
    from sps_encounter.engine.validator import validate_transcript

    case = _case("chest-pain")

    def validated(text: str) -> Any:
        turns = [
            {"turnIndex": 0, "role": "learner", "text": "How are you?"},
            {"turnIndex": 1, "role": "patient", "text": text},
        ]
        return validate_transcript(turns, case)

    def checked(text: str) -> Any:
        return post_check(config, text, Persona.LOGIC_CLARIFY, metrics)

    return [
        ("interview: signals of an answer", ANSWER_CHARS, lambda text: interview.decide(text, "")),
        ("interview: post-check of a reply", ANSWER_CHARS, checked),
        ("chair: offline evaluator on a chunk", CHUNK_CHARS, lambda text: chair.decide(text, chair_context)),
        ("SPS: validator on a patient turn", TURN_CHARS, validated),
    ]


def measure(repeat: int) -> Report:
    rows, met = [], True
    for name, length, run in paths():
        # Loading the lexicons and the local models is the first call's cost, not the text's.
        run("How are you?")
        worst_ms, worst_text = 0.0, ""
        for label, text in hostile_texts(length):
            timings = []
            for _ in range(repeat):
                begun = time.perf_counter()
                run(text)
                timings.append((time.perf_counter() - begun) * 1000)
            seconds = sorted(timings)[len(timings) // 2]
            if seconds > worst_ms:
                worst_ms, worst_text = seconds, label
        ok = worst_ms < TARGET_MS
        met = met and ok
        rows.append([name, f"{length:,}", worst_text, f"{worst_ms:.1f}", f"< {TARGET_MS:g}", verdict(ok)])
    return Report(
        title="Hostile texts: the engines' patterns on texts built to almost match them",
        headers=["path", "characters", "slowest text", "median ms", "target", "verdict"],
        rows=rows,
        notes=[f"`python -m bench.hostile_texts --repeat {repeat}`; the engine in process, no handler"],
        passed=met,
    )


def main(argv: list[str] | None = None) -> int:
    options = [option("--repeat", type=int, default=3, help="runs per text (the median is reported)")]
    return cli(__doc__, argv, options, lambda args: emit(measure(args.repeat), strict=True))


if __name__ == "__main__":
    import sys

    sys.exit(main())
