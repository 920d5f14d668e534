"""`validateTranscript` with and without meta (meta overrides the text; junk or foreign meta is
read as absent; engine transcripts are clean either way), and the shape checks of §11
(`TranscriptError` with the path of the bad field, indexes, the issue cap)."""

from __future__ import annotations

import pytest

from sps_encounter.engine.validator import (
    MAX_ISSUES,
    TranscriptError,
    check_shape,
    runtime_meta,
    validate_transcript,
)
from tests.unit.sps_encounter.support import (
    catalog_case,
    dialogue,
    encounter,
    transcript,
)
from tests.unit.sps_encounter.validating import issues, runtime, validate


def test_meta_overrides_what_the_text_alone_would_suggest():
    long_answer = "Heavy. It's not sharp, it's more like a weight sitting there."
    without = dialogue(
        ("What does the pain feel like?", long_answer), ("Anything else?", "Sorry, what do you mean?")
    )
    with_meta = transcript(
        ("learner", "What does the pain feel like?"),
        ("patient", long_answer, runtime({"questionType": "open", "elaborated": False})),
        ("learner", "Anything else?"),
        ("patient", "Sorry, what do you mean?", runtime({"clarification": None})),
    )
    plain = validate(without)["summaryMetrics"]
    recorded = validate(with_meta)["summaryMetrics"]
    assert (plain["elaborationRate"], plain["clarificationRate"]) == (1.0, 0.5)
    assert (recorded["elaborationRate"], recorded["clarificationRate"]) == (0.0, 0.0)


def test_an_engine_transcript_is_clean_with_and_without_its_meta():
    played = encounter(seed=31)
    played.play(
        [
            "What brings you in today?",
            "When did it start?",
            "What does it feel like?",
            "Anything else?",
            "Do you take any medications?",
            "Can you do some push-ups for me?",
            "What's your date of birth?",
            "What's your date of birth?",
            "Are you under a lot of pressure?",
            "I mean, how does the pain in your chest feel?",
            "I'll check your blood pressure.",
            "Have you travelled recently?",
            "Go on?",
            "Run on the spot for me.",
            "Tell me more.",
        ]
    )
    with_meta = validate(played.transcript, played.case)
    without = validate(played.without_meta(), played.case)
    assert issues(with_meta) == []
    assert issues(without) == []
    for metric in (
        "totalPatientTurns",
        "clarificationRate",
        "refusalCount",
        "unsafeRequests",
        "agendaRevealCount",
    ):
        assert with_meta["summaryMetrics"][metric] == without["summaryMetrics"][metric], metric
    assert with_meta["summaryMetrics"]["refusalCount"] == 2
    assert with_meta["summaryMetrics"]["unsafeRequests"] == 2


JUNK_METAS = [
    {},
    {"agendaRevealed": [{"id": "stopped_statin"}, 3, None, ["x"]]},
    {"agendaRevealed": "stopped_statin"},
    {"slots": ["onset"]},
    {"slots": {"onset": ["three", "weeks"], "other": {"deep": [1, 2]}}},
    {"slots": None},
    {"clarification": 5},
    {"clarification": ["Sorry, what do you mean?"]},
    {"refusal": {}},
    {"dobChallenge": "yes"},
    {"dobChallenge": 1},
    {"questionType": 7, "elaborated": "no"},
    {"questionType": "open", "elaborated": 1},
    {"turnIndex": "nope", "kind": None, "opening": 3, "rng": "x"},
    {"elaboration": None, "layers": {"a": 1}},
]


def test_junk_meta_is_read_without_exceptions():
    turns = []
    for meta in JUNK_METAS:
        turns += [
            ("learner", "What does the pain feel like?"),
            ("patient", "Heavy, like a weight.", runtime(meta)),
        ]
    result = validate(transcript(*turns))
    assert result["summaryMetrics"]["totalPatientTurns"] == len(JUNK_METAS)
    # Dicts and numbers listed as agenda ids are not ids: nothing was revealed.
    assert result["summaryMetrics"]["agendaRevealCount"] == 0
    # The list-valued onset is a value other than the case's: reported, not crashed on.
    assert ("ERROR", "FACT_CONTRADICTION", 9) in issues(result)


FOREIGN_METAS = [
    "answer",
    ["answer", "slots"],
    42,
    3.5,
    True,
    # Another system's object: its keys are not this runtime's, whatever they are called.
    {"slots": {"onset": "two days ago"}, "clarification": "Sorry, what do you mean?"},
    {"kind": "answer", "slots": {"onset": "two days ago"}},
    {"kind": "reply", "rng": [], "layers": [], "slots": {"onset": "two days ago"}},
]


@pytest.mark.parametrize("meta", FOREIGN_METAS, ids=repr)
def test_meta_that_is_not_this_runtimes_is_read_as_absent(meta):
    turns = [
        {
            "turnIndex": 0,
            "role": "learner",
            "text": "When did it start?",
            "timestamp": "2026-11-23T10:00:00Z",
        },
        {"turnIndex": 1, "role": "patient", "text": "About three weeks ago.", "meta": meta, "speaker": "SP"},
        {"turnIndex": 2, "role": "learner", "text": "Anything else?"},
        {"turnIndex": 3, "role": "patient", "text": "Sorry, what do you mean?", "meta": meta},
    ]
    check_shape(turns)
    result = validate(turns)
    # No FACT_CONTRADICTION from a foreign `slots`; the clarification is read from the text.
    assert issues(result) == []
    assert result["summaryMetrics"]["clarificationRate"] == 0.5
    # The same slots in this runtime's meta are read.
    recorded = [dict(turn) for turn in turns]
    recorded[1]["meta"] = runtime({"slots": {"onset": "two days ago"}})
    assert issues(validate(recorded)) == [("ERROR", "FACT_CONTRADICTION", 1)]


def test_an_engine_meta_is_recognised_as_this_runtimes():
    played = encounter(seed=7)
    played.play(["When did it start?", "Can you do some push-ups for me?"])
    assert all(runtime_meta(turn["meta"]) is turn["meta"] for turn in played.transcript if "meta" in turn)
    assert runtime_meta({"kind": "answer", "rng": "x", "layers": []}) is None
    assert runtime_meta({"kind": ["answer"], "rng": [], "layers": []}) is None


# §11 shape


def _turns(*indexes, role="learner", text="Hello?"):
    return [{"turnIndex": index, "role": role, "text": text} for index in indexes]


@pytest.mark.parametrize(
    ("turns", "path"),
    [
        ([*_turns(0), {"turnIndex": 1, "role": "doctor", "text": "Hi."}], "transcript[1].role"),
        ([*_turns(0), {"turnIndex": 1, "text": "Hi."}], "transcript[1].role"),
        (_turns(0, 2, 1), "transcript[2].turnIndex"),
        (_turns(0, 1, 1), "transcript[2].turnIndex"),
        ([{"turnIndex": True, "role": "learner", "text": "Hi."}], "transcript[0].turnIndex"),
        ([*_turns(0), {"turnIndex": False, "role": "patient", "text": "Hi."}], "transcript[1].turnIndex"),
        ([{"turnIndex": -1, "role": "learner", "text": "Hi."}], "transcript[0].turnIndex"),
        ([{"turnIndex": "3", "role": "learner", "text": "Hi."}], "transcript[0].turnIndex"),
        ([{"turnIndex": 1.0, "role": "learner", "text": "Hi."}], "transcript[0].turnIndex"),
        ([*_turns(0, 1, 2), {"turnIndex": 3, "role": "patient", "text": 42}], "transcript[3].text"),
        ([{"turnIndex": 0, "role": "patient", "text": None}], "transcript[0].text"),
        ([{"turnIndex": 2**53, "role": "learner", "text": "Hi."}], "transcript[0].turnIndex"),
        ([*_turns(0), {"turnIndex": 10**30, "role": "patient", "text": "Hi."}], "transcript[1].turnIndex"),
        (None, "transcript"),
        ({"turnIndex": 0, "role": "learner", "text": "Hi."}, "transcript"),
        ("transcript", "transcript"),
    ],
)
def test_a_malformed_transcript_names_the_turn_and_field(turns, path):
    with pytest.raises(TranscriptError) as raised:
        check_shape(turns)
    assert raised.value.path == path
    assert str(raised.value).startswith(f"{path}: ")
    with pytest.raises(TranscriptError):
        validate_transcript(turns, catalog_case())


def test_the_largest_safe_javascript_integer_is_a_valid_turn_index():
    turns = [
        {"turnIndex": 2**53 - 2, "role": "learner", "text": "When did it start?"},
        {"turnIndex": 2**53 - 1, "role": "patient", "text": "About three weeks ago."},
    ]
    check_shape(turns)
    assert issues(validate(turns)) == []


def test_indexes_must_increase_but_need_not_be_contiguous():
    turns = [
        {"turnIndex": 5, "role": "learner", "text": "When did it start?"},
        {"turnIndex": 9, "role": "patient", "text": "About three weeks ago.", "meta": None},
        {"turnIndex": 10, "role": "patient", "text": "Yes."},
    ]
    check_shape(turns)
    assert validate(turns)["summaryMetrics"]["totalPatientTurns"] == 2


def test_the_issue_lists_stop_at_a_thousand_but_every_issue_is_counted():
    """A transcript of junk cannot make the answer too large to send back."""
    result = validate(dialogue(*[("Any allergies?", "Um, I, uh, probably have angina.")] * 1200))
    assert len(result["errors"]) == MAX_ISSUES
    assert len(result["warnings"]) == MAX_ISSUES
    # Each turn: DISFLUENCY_EXCESS; each but the first: OPENER_ECHO (the same opening again).
    assert result["summaryMetrics"]["issueCounts"] == {"errors": 1200, "warnings": 2399, "info": 0}


def test_a_contradiction_repeated_in_one_turn_is_one_issue():
    codes = [
        issue["code"]
        for issue in validate(dialogue(("When did it start?", "It started two days ago. " * 50)))["errors"]
    ]
    assert codes == ["FACT_CONTRADICTION"]
