"""The labelled evaluation sets under eval/ (docs/judges.md): one folder per judgment, each with
`train.jsonl` (what `make train` learns from, and tunes on by cross-validation) and `test.jsonl`
(held back: written by another author, never trained or tuned on; `rails eval` reports on it).

Every line is one item: its id, text, language (`zh`, `en` or `mixed`), the label its judgment
needs, the situation it was written from and its author. Loading validates every line and names
the file and line of anything wrong.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Annotated, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

ROOT = Path(__file__).resolve().parents[2] / "eval"
SPLITS = ("train", "test")
Language = Literal["zh", "en", "mixed"]
LANGUAGES: tuple[Language, ...] = ("zh", "en", "mixed")


def _visible(value: str) -> str:
    # What the API refuses (blank, or only zero-width and control characters) is no item to judge.
    if not any(unicodedata.category(character)[0] not in "ZC" for character in value):
        raise ValueError("has no visible character")
    return value


Visible = AfterValidator(_visible)


class Item(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z]+-[a-z0-9]+-\d{4}$")
    text: Annotated[str, Visible] = Field(min_length=1, max_length=400)
    lang: Language
    situation: str = Field(min_length=1, max_length=80)
    author: str = Field(pattern=r"^[a-z0-9]+$")


class EmergencyItem(Item):
    emergency: bool


class CategoryItem(Item):
    category: Literal["work", "study", "mental_break", "emergency", "other"]


class IntimacyItem(Item):
    klass: Literal["friendly", "caring", "affectionate", "romantic", "sexual"] = Field(alias="class")
    form: Literal["plain", "pinyin", "traditional", "slang"]


ChairReason = Literal[
    "none",
    "factual_correction",
    "straw_man_detected",
    "direct_challenge",
    "clarification_needed",
    "strong_agreement",
    "pivotal_point",
]
Framework = Annotated[str, Field(pattern=r"^[a-z][a-z_]{1,39}$")]


class ChairItem(Item):
    """A chunk of what a debate chair just said, who speaks and who listens, and the moment it
    gives a listening chair (`none`: no interruption is warranted). `hedged`: the chunk reports,
    quotes or denies what it says, so it must never interrupt below aggressiveness 5."""

    text: Annotated[str, Visible] = Field(min_length=1, max_length=600)
    speaker: Framework
    listeners: list[Framework] = Field(min_length=1, max_length=3)
    topic: Annotated[str, Visible] = Field(min_length=1, max_length=120)
    reason: ChairReason
    hedged: bool


class InterviewItem(Item):
    """A narrator's answer in a memoir interview: what the interviewer must do about it now
    (`signal`), and how emotionally charged it is."""

    signal: Literal["none", "pause", "stop_request", "acute_distress", "self_harm"]
    emotion: Literal["low", "moderate", "high"]


class SpsLearnerNotes(BaseModel):
    """What an examiner reads in a learner turn: the case facts it asks about (the scenario's
    slot ids, history or examination), whether it measures or asks for a reading, whether it is
    only a prompt to go on, a question about the patient's role, or an unsafe request."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    asks: list[str]
    measurement: bool
    vague: bool
    role_question: bool
    unsafe: bool


class SpsNumber(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = Field(min_length=1)
    kind: Literal[
        "count_or_time",
        "score",
        "dose",
        "load_or_limit",
        "change",
        "hypothetical",
        "remembered_reading",
        "current_finding",
        "other",
    ]


class SpsPatientNotes(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    backchannel: bool
    refusal: bool
    clarification: bool
    numbers: list[SpsNumber]


class SpsTurn(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    turnIndex: int = Field(ge=0)  # the spec's field name
    role: Literal["learner", "patient"]
    text: Annotated[str, Visible] = Field(min_length=1, max_length=2000)
    ann: SpsLearnerNotes | SpsPatientNotes


class SpsQaIssue(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    turnIndex: int = Field(ge=0)
    kind: Literal["unmeasured_number", "diagnosis_or_coaching", "contradicts_case"]


class SpsTranscript(BaseModel):
    """A standardized-patient encounter written in the style of recorded clinical dialogue and
    annotated turn by turn (eval/sps/); `qa_issues` marks the actor's deliberate mistakes, the
    only turns a validator should flag."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z]+-\d{3}$")
    lang: Literal["en", "zh"]
    case: str = Field(pattern=r"^[a-z][a-z0-9-]{0,60}$")
    setting: Annotated[str, Visible] = Field(min_length=1, max_length=120)
    qa_issues: list[SpsQaIssue]
    # An encounter is a few hundred turns; a turn's item id counts them in four digits.
    turns: list[SpsTurn] = Field(min_length=2, max_length=1000)

    @property
    def author(self) -> str:
        return self.id.split("-")[0]

    @model_validator(mode="after")
    def _turns_in_order(self) -> SpsTranscript:
        # The validator reads turns in the order they were said, and a deliberate mistake names one.
        for position, turn in enumerate(self.turns):
            if turn.turnIndex != position:
                said = f"turns[{position}].turnIndex is {turn.turnIndex}"
                raise ValueError(f"{said}: turns count from 0 in order")
        marked = [issue.turnIndex for issue in self.qa_issues]
        if len(set(marked)) != len(marked):
            twice = next(index for index in marked if marked.count(index) > 1)
            raise ValueError(f"qa_issues: turnIndex {twice} is marked twice (one mistake per turn)")
        for issue in self.qa_issues:
            if issue.turnIndex >= len(self.turns):
                raise ValueError(f"qa_issues: turnIndex {issue.turnIndex} is past the last turn")
            # The validator reads the actor's lines; a learner's question is no mistake of theirs.
            if self.turns[issue.turnIndex].role != "patient":
                raise ValueError(f"qa_issues: turnIndex {issue.turnIndex} is a learner turn, not the actor's")
        return self


class SpsTurnItem(Item):
    """One annotated turn of a transcript, as the judge measures it."""

    text: str = Field(min_length=1, max_length=2000)
    transcript: str
    case: str
    turn_index: int
    notes: SpsLearnerNotes | SpsPatientNotes


class EvalSetError(ValueError):
    pass


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise EvalSetError(f"{path}: not UTF-8 (byte {exc.start})") from exc
    except OSError as exc:
        raise EvalSetError(f"{path}: cannot be read ({exc.strerror or exc})") from exc


T = TypeVar("T", bound=Item)


def load_transcripts(path: Path) -> list[SpsTranscript]:
    """A set of SPS transcripts, one per line; a learner turn must carry learner notes and a
    patient turn patient notes."""
    transcripts: list[SpsTranscript] = []
    seen: set[str] = set()
    for number, line in enumerate(_lines(path), start=1):
        if not line.strip():
            continue
        try:
            transcript = SpsTranscript.model_validate_json(line)
        except ValidationError as exc:
            raise EvalSetError(f"{path}:{number}: {exc}") from exc
        except RecursionError as exc:
            raise EvalSetError(f"{path}:{number}: nested too deeply to read") from exc
        for turn in transcript.turns:
            expected = SpsLearnerNotes if turn.role == "learner" else SpsPatientNotes
            if not isinstance(turn.ann, expected):
                raise EvalSetError(f"{path}:{number}: turn {turn.turnIndex}: {turn.role} notes expected")
        if transcript.id in seen:
            raise EvalSetError(f"{path}:{number}: id {transcript.id} twice")
        seen.add(transcript.id)
        transcripts.append(transcript)
    if not transcripts:
        raise EvalSetError(f"{path}: no transcripts")
    return transcripts


def load(judgment: str, split: str, model: type[T]) -> list[T]:
    return load_file(ROOT / judgment / f"{split}.jsonl", model)


def load_file(path: Path, model: type[T], *, prefix: str = "") -> list[T]:
    """A set's items; with `prefix`, a set of your own whose lines may lack `id` and `author`."""
    items: list[T] = []
    seen: set[str] = set()
    for number, line in enumerate(_lines(path), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if prefix and isinstance(data, dict):
                data = {"id": f"{prefix}-x-{number:04d}", "author": "x", "situation": "unknown", **data}
            item = model.model_validate(data)
        except (ValueError, ValidationError) as exc:
            raise EvalSetError(f"{path}:{number}: {exc}") from exc
        except RecursionError as exc:
            raise EvalSetError(f"{path}:{number}: nested too deeply to read") from exc
        if item.id in seen:
            raise EvalSetError(f"{path}:{number}: id {item.id} twice")
        seen.add(item.id)
        items.append(item)
    if not items:
        raise EvalSetError(f"{path}: no items")
    return items
