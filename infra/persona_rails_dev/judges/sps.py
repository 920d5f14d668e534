"""The SPS judgments, on transcripts of standardized-patient encounters written in the style of
recorded clinical dialogue and annotated turn by turn (eval/sps/).

Per turn, as SpsEncounterFunction reads it with no LLM: does the learner measure or ask for a
reading (`measurement`), only prompt the patient to go on (`vague`), ask about the patient's role
(`role_question`), ask for something unsafe (`unsafe`); does the runtime find the case facts the
learner asks about (`facts`); does the patient decline (`refusal`) or ask to clarify
(`clarification`). Each is a yes/no decision reported per language.

Per transcript, the validator: the issues it raises on turns that are not the actor's deliberate
mistakes (false alarms per 10 transcripts, and ERRORs among them) and the deliberate mistakes it
catches with an ERROR on their turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from persona_rails_dev import evalsets
from persona_rails_dev.evaluate.metrics import scores
from persona_rails_dev.judges import Case, with_function

LABELS = ("yes", "no")
LEARNER_JUDGMENTS = ("measurement", "vague", "role_question", "unsafe")
PATIENT_JUDGMENTS = ("refusal", "clarification")
# The issue's targets, on realistic transcripts: at most one validator flag per 10, no ERROR.
TARGETS = {
    "targets.validator.flags_per_10.false_alarms": (1.0, True),
    "targets.validator.errors.false_alarms": (0.0, True),
}
OPEN_TARGETS: dict[str, str] = {}


class SpsJudge:
    name = "sps"
    labels = LABELS
    report_contexts = False
    languages = ("en", "zh")

    def __init__(self) -> None:
        self.transcripts: dict[str, evalsets.SpsTranscript] = {}

    def items(self, split: str) -> Sequence[evalsets.SpsTurnItem]:
        return self._turn_items(evalsets.load_transcripts(evalsets.ROOT / self.name / f"{split}.jsonl"))

    def distinct_texts(self, split: str) -> list[tuple[str, str]]:
        """(id, text) of what an author wrote as one piece: a whole transcript. Single turns
        ("Any allergies?", "No, none of that.") are said in every clinic and may recur."""
        transcripts = evalsets.load_transcripts(evalsets.ROOT / self.name / f"{split}.jsonl")
        return [(t.id, "\n".join(turn.text for turn in t.turns)) for t in transcripts]

    def items_of(self, path: Path) -> Sequence[evalsets.SpsTurnItem]:
        transcripts = evalsets.load_transcripts(path)
        for transcript in transcripts:
            _playable(path, transcript)
        return self._turn_items(transcripts)

    def _turn_items(self, transcripts: list[evalsets.SpsTranscript]) -> list[evalsets.SpsTurnItem]:
        items = []
        for transcript in transcripts:
            self.transcripts[transcript.id] = transcript
            for turn in transcript.turns:
                items.append(
                    evalsets.SpsTurnItem(
                        id=f"sps-{transcript.id.replace('-', '')}-{turn.turnIndex:04d}",
                        text=turn.text,
                        lang=transcript.lang,
                        situation=transcript.setting[:80],
                        author=transcript.author,
                        transcript=transcript.id,
                        case=transcript.case,
                        turn_index=turn.turnIndex,
                        notes=turn.ann,
                    )
                )
        return items

    def cases(self, items: Sequence[evalsets.Item]) -> list[Case]:
        found = []
        for item in items:
            if not isinstance(item, evalsets.SpsTurnItem):
                continue
            notes = item.notes
            if isinstance(notes, evalsets.SpsLearnerNotes):
                for judgment in LEARNER_JUDGMENTS:
                    found.append(Case(item, f"{item.case}|{judgment}", _yes(getattr(notes, judgment))))
                found.append(Case(item, f"{item.case}|facts|{','.join(notes.asks)}", _yes(bool(notes.asks))))
            else:
                for judgment in PATIENT_JUDGMENTS:
                    found.append(Case(item, f"{item.case}|{judgment}", _yes(getattr(notes, judgment))))
        return found

    def decide(self, text: str, context: str) -> str:
        from sps_encounter.engine.learner import apply_learner_turn, refused_requests
        from sps_encounter.engine.state import init_runtime_state
        from sps_encounter.engine.validator import (
            asks_for_measurement,
            reads_as_clarification,
            reads_as_refusal,
        )

        case_id, judgment, *rest = context.split("|")
        case = _case(case_id)
        folded = case.lexicon.fold(text)
        if judgment == "measurement":
            return _yes(asks_for_measurement(case, folded))
        if judgment == "vague":
            return _yes(bool(case.lexicon.vague.search(folded)))
        if judgment == "unsafe":
            # A role question is declined too, but it is a judgment of its own (`role_question`):
            # what else the turn asks is read without it. Its matches are blanked where they stand,
            # so that two that overlap ("Are you a real patient or not?") leave the rest whole.
            kept = list(folded)
            for _, match in case.lexicon.role_question.matches(folded):
                start, end = match.span()
                kept[start:end] = " " * (end - start)
            return _yes(bool(refused_requests(case, "".join(kept))))
        if judgment == "role_question":
            turn = apply_learner_turn(case, init_runtime_state(case.persona.verbosity, 1), text)
            return _yes(bool(getattr(turn, "role_question", False)))
        if judgment == "facts":
            asked = set(rest[0].split(",")) if rest and rest[0] else set()
            turn = apply_learner_turn(case, init_runtime_state(case.persona.verbosity, 1), text)
            found = {*turn.slots, *turn.objective}
            # Asked about nothing: "yes" is finding any fact at all. Asked: finding one asked for.
            return _yes(bool(found & asked) if asked else bool(found))
        if judgment == "refusal":
            return _yes(reads_as_refusal(case, text))
        if judgment == "clarification":
            return _yes(reads_as_clarification(case, text))
        raise LookupError(f"unknown SPS judgment {judgment}")

    def targets(self) -> dict[str, tuple[float, bool]]:
        return TARGETS

    def open_targets(self) -> dict[str, str]:
        return OPEN_TARGETS

    def extra_figures(self, decided: Sequence[Any]) -> dict[str, Any]:
        judgments: dict[str, Any] = {}
        for judgment in (*LEARNER_JUDGMENTS, "facts", *PATIENT_JUDGMENTS):
            chosen = [d for d in decided if d.case.context.split("|")[1] == judgment]
            judgments[judgment] = {
                language: scores(
                    ((d.case.expected, d.decided) for d in chosen if d.case.item.lang == language), LABELS
                )["labels"]["yes"]
                for language in self.languages
            }
        transcripts = {
            d.case.item.transcript for d in decided if isinstance(d.case.item, evalsets.SpsTurnItem)
        }
        return {"judgments": judgments, "validator": self.validator_figures(sorted(transcripts))}

    def validator_figures(self, transcript_ids: Sequence[str]) -> dict[str, Any]:
        from sps_encounter.engine.validator import validate_transcript

        flags = errors = caught = mistakes = 0
        by_code: dict[str, int] = {}
        for transcript_id in transcript_ids:
            transcript = self.transcripts[transcript_id]
            result = validate_transcript(
                [{"turnIndex": t.turnIndex, "role": t.role, "text": t.text} for t in transcript.turns],
                _case(transcript.case),
            )
            issues = [*result["errors"], *result["warnings"], *result["info"]]
            deliberate = {issue.turnIndex for issue in transcript.qa_issues}
            for issue in issues:
                if issue["turnIndex"] not in deliberate:
                    flags += 1
                    errors += issue["severity"] == "ERROR"
                    by_code[issue["code"]] = by_code.get(issue["code"], 0) + 1
            for mistake in transcript.qa_issues:
                mistakes += 1
                caught += any(
                    i["turnIndex"] == mistake.turnIndex and i["severity"] == "ERROR" for i in result["errors"]
                )
        count = len(transcript_ids)
        return {
            "transcripts": count,
            "flags_per_10": {"false_alarms": round(10 * flags / count, 4) if count else 0.0},
            "errors": {"false_alarms": float(errors)},
            "flags_by_code": by_code,
            "deliberate_mistakes": {"recall": round(caught / mistakes, 4) if mistakes else 0.0},
        }


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def _playable(path: Path, transcript: evalsets.SpsTranscript) -> None:
    """A transcript of one's own names a case the catalog holds, in that case's language."""
    from sps_encounter.artifacts import sps_config

    scenarios = sps_config().scenarios
    if transcript.case not in scenarios:
        known = ", ".join(sorted(scenarios))
        named = f"{path}: {transcript.id}"
        raise evalsets.EvalSetError(f"{named}: no case {transcript.case!r} (the cases: {known})")
    language = _case(transcript.case).language.value
    if transcript.lang != language:
        said = f"lang is {transcript.lang!r}, the case {transcript.case} is played in {language!r}"
        raise evalsets.EvalSetError(f"{path}: {transcript.id}: {said}")
    known_slots = _slot_ids(transcript.case)
    for turn in transcript.turns:
        if isinstance(turn.ann, evalsets.SpsLearnerNotes):
            unknown = [slot for slot in turn.ann.asks if slot not in known_slots]
            if unknown:
                said = f"turn {turn.turnIndex} asks about {unknown[0]!r}, which the case {transcript.case}"
                slots = f"does not hold (its slots: {', '.join(known_slots)})"
                raise evalsets.EvalSetError(f"{path}: {transcript.id}: {said} {slots}")


@cache
def _slot_ids(case_id: str) -> tuple[str, ...]:
    """What a learner can ask a case about: its history slots, its readings and its examinations."""
    scenario = _case(case_id).scenario
    readings = [slot.id for slot in scenario.objective_catalog]
    examinations = [script.id for script in scenario.objective_scripts]
    return tuple(sorted({*_case(case_id).slots, *readings, *examinations}))


@cache
def _case(case_id: str) -> Any:
    """The scenario played with its default persona, as the catalog compiles it."""
    from sps_encounter.artifacts import case_of, sps_config

    config = sps_config()
    scenario = config.scenarios[case_id]
    return case_of(config, scenario, config.personas[scenario.value.default_persona])


def build() -> SpsJudge:
    with_function("sps_encounter")
    return SpsJudge()
