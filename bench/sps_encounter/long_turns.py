"""How long `validateTranscript` takes on one patient turn of 50,000 characters built to almost
match its rules: a run of digits, of Chinese numerals, of spaces after a speaker's label, of
readings, of times long past. Target: under 1 s each (a transcript of that size is refused by the
handler's size bound anyway, but the engine must not hang on it). The cases and their history:
docs/benchmarks.md, "A long turn"."""

from __future__ import annotations

import statistics
import time

from bench.harness.report import cli, markdown_table, option, verdict

TARGET_SECONDS = 1.0
SIZE = 50_000

# (label, scenario, learner turn, patient turn)
CASES: list[tuple[str, str, str, str]] = [
    ("readings: 'Pulse 70. ' repeated", "chest-pain", "Any palpitations?", "Pulse 70. " * (SIZE // 10)),
    (
        "a run of digits, then a vomiting count",
        "abdominal-pain-zh",
        "有没有吐过？",
        "1" * SIZE + "，吐了好几次。",
    ),
    ("a run of digits ending in 点一", "abdominal-pain-zh", "有没有吐过？", "1" * SIZE + "点一"),
    (
        "a run of 三, then a vomiting count",
        "abdominal-pain-zh",
        "有没有吐过？",
        "三" * SIZE + "，吐了好几次。",
    ),
    (
        "小时候 repeated, then a vomiting count",
        "abdominal-pain-zh",
        "有没有吐过？",
        "小时候" * (SIZE // 3) + "吐了好几次。",
    ),
    (
        "a speaker's label, 50,000 spaces, then eight sentences",
        "headache",
        "Can you tell me about the headaches?",
        "(Emma:) It hurts" + " " * SIZE + "here. " + "I sit in the dark. " * 8,
    ),
    (
        "'years ' repeated, then a vomit",
        "headache",
        "Any vomiting?",
        "years " * (SIZE // 6) + "ago I threw up.",
    ),
    (
        "小时候, then a vomiting count repeated",
        "abdominal-pain-zh",
        "有没有吐过？",
        "小时候" + "吐了好几次" * (SIZE // 5),
    ),
    (
        "'As a kid ', then 'I threw up ' repeated",
        "headache",
        "Any vomiting?",
        "As a kid " + "I threw up " * (SIZE // 11),
    ),
]


def main(argv: list[str] | None = None) -> int:
    options = [option("--repeat", type=int, default=3, help="validations per case (the median is reported)")]
    return cli(__doc__, argv, options, lambda args: run(args.repeat))


def run(repeat: int) -> int:
    from persona_rails_dev.judges import with_function

    with_function("sps_encounter")
    from persona_rails_dev.judges.sps import _case
    from sps_encounter.engine.validator import validate_transcript

    rows, met = [], True
    for label, scenario, learner, patient in CASES:
        case = _case(scenario)
        transcript = [
            {"turnIndex": 0, "role": "learner", "text": learner},
            {"turnIndex": 1, "role": "patient", "text": patient},
        ]
        seconds = []
        for _ in range(repeat):
            begun = time.perf_counter()
            validate_transcript(transcript, case)
            seconds.append(time.perf_counter() - begun)
        p50 = statistics.median(seconds)
        ok = p50 < TARGET_SECONDS
        met = met and ok
        rows.append([label, scenario, f"{len(patient):,}", f"{p50 * 1000:.0f}", verdict(ok)])
    print(f"`python -m bench.sps_encounter.long_turns --repeat {repeat}` (validations per case: {repeat})\n")
    print(markdown_table(["patient turn", "case", "characters", "p50 ms", "under 1 s"], rows))
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
