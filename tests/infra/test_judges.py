"""The judges' figures hold from a fresh clone: `make train` reproduces the shipped models byte
for byte, and `rails eval` meets the issue's targets and eval/floors.json on the test splits."""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import pytest

from persona_rails_dev.evalsets import ROOT
from persona_rails_dev.evaluate.command import run as run_eval
from persona_rails_dev.evaluate.report import read_floors
from persona_rails_dev.judges import NAMES, judge
from persona_rails_dev.train.__main__ import main as train_main
from persona_rails_dev.train.specs import SPECS

MAX_MODEL_BYTES = 5 * 1024 * 1024


def own_set(judge_name: str, path: Path, *, as_json: bool = False) -> argparse.Namespace:
    """`rails eval JUDGE --set PATH --no-transforms` as the command line parses it."""
    return argparse.Namespace(
        judges=[judge_name], split="test", json=as_json, no_transforms=True, write_floors=False, set=str(path)
    )


def test_make_train_reproduces_every_shipped_model_byte_for_byte(capsys):
    assert train_main(["--check"]) == 0, capsys.readouterr()


@pytest.mark.parametrize("name", list(SPECS))
def test_a_shipped_model_is_small_and_names_the_data_it_learned_from(name):
    path = SPECS[name].path()
    assert path.stat().st_size <= MAX_MODEL_BYTES
    training = json.loads(path.read_text(encoding="utf-8"))["training"]
    assert training["data"], "a model names the sets it learned from"
    for data, sha256 in training["data"].items():
        assert data.startswith("eval/")
        assert data.endswith("/train.jsonl"), "never a test split"
        assert sha256 == hashlib.sha256((ROOT.parent / data).read_bytes()).hexdigest()


@pytest.mark.parametrize("name", NAMES)
def test_rails_eval_meets_the_targets_and_the_floors_on_the_test_split(name, capsys):
    args = argparse.Namespace(
        judges=[name], split="test", json=False, no_transforms=False, write_floors=False, set=None
    )
    status = run_eval(args)
    out, err = capsys.readouterr()
    assert status == 0, err
    assert f"{name} on the test split" in out


@pytest.mark.parametrize("name", NAMES)
def test_every_judge_has_floors_for_every_language(name):
    floors = read_floors()[name]
    for language in getattr(judge(name), "languages", ("zh", "en", "mixed")):
        assert any(key.startswith(f"languages.{language}.labels.") for key in floors)
    assert any(key.startswith("transforms.") for key in floors)


def test_only_hedged_chunks_that_warrant_no_interruption_count_as_hedged_false_alarms(tmp_path, capsys):
    # The second speaker reports a claim and then makes it their own: that may warrant an
    # interruption, so it is no hedged false alarm whatever the chair decides.
    base = {"lang": "en", "speaker": "deontology", "listeners": ["utilitarianism"], "topic": "lying"}
    chunks = [
        {
            **base,
            "id": "chair-x-0001",
            "reason": "none",
            "hedged": True,
            "text": "Critics sometimes say Kant never cared about consequences, but that's a caricature.",
        },
        {
            **base,
            "id": "chair-x-0002",
            "reason": "factual_correction",
            "hedged": True,
            "text": "People say Mill held that lying is always wrong, and they're right: he said exactly that.",
        },
    ]
    path = tmp_path / "chair.jsonl"
    path.write_text("".join(json.dumps(chunk) + "\n" for chunk in chunks), encoding="utf-8")
    args = own_set("chair", path, as_json=True)
    run_eval(args)
    figures = json.loads(capsys.readouterr().out)["chair"]["targets"]
    assert figures["hedged_chunks"] == 1


def test_a_line_with_no_visible_text_is_named_not_judged(tmp_path, capsys):
    path = tmp_path / "mine.jsonl"
    path.write_text(
        json.dumps({"text": " \u200b\u200d ", "lang": "en", "signal": "pause", "emotion": "low"}) + "\n",
        encoding="utf-8",
    )
    args = own_set("interview", path)
    assert run_eval(args) == 2
    assert "has no visible character" in capsys.readouterr().err


def test_a_chair_set_of_ones_own_seating_an_unknown_framework_is_named(tmp_path, capsys):
    chunk = {
        "text": "Mill was the one who argued lying is always wrong.",
        "lang": "en",
        "speaker": "deontology",
        "listeners": ["utilitarianism", "stoicism_of_the_pub"],
        "topic": "lying",
        "reason": "factual_correction",
        "hedged": False,
    }
    path = tmp_path / "chair.jsonl"
    path.write_text(json.dumps(chunk) + "\n", encoding="utf-8")
    args = own_set("chair", path)
    assert run_eval(args) == 2
    assert "no framework 'stoicism_of_the_pub'" in capsys.readouterr().err
    chunk["listeners"] = ["utilitarianism"]
    path.write_text(json.dumps(chunk) + "\n", encoding="utf-8")
    assert run_eval(args) in (0, 1)


def test_a_set_of_ones_own_with_a_bad_line_or_no_file_gets_a_clear_error_not_a_traceback(tmp_path, capsys):
    good = {"text": "Could we take a break?", "lang": "en", "signal": "pause", "emotion": "low"}
    path = tmp_path / "mine.jsonl"
    path.write_text(
        json.dumps(good) + "\n" + json.dumps({**good, "situation": "x" * 81}) + "\n", encoding="utf-8"
    )
    args = own_set("interview", path)
    assert run_eval(args) == 2
    err = capsys.readouterr().err
    assert "mine.jsonl:2" in err
    assert "situation" in err
    args.set = str(tmp_path / "missing.jsonl")
    assert run_eval(args) == 2
    assert "missing.jsonl: no such file" in capsys.readouterr().err
    args.set = str(tmp_path)
    assert run_eval(args) == 2
    assert "not a file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "said"),
    [(b"\xff\xfe{}\n", "not UTF-8 (byte 0)"), (b"\n\n", "no items"), (b"", "no items")],
)
def test_a_set_that_is_not_text_or_holds_nothing_is_named(tmp_path, capsys, content, said):
    path = tmp_path / "mine.jsonl"
    path.write_bytes(content)
    args = own_set("interview", path)
    assert run_eval(args) == 2
    assert said in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "unsafe"),
    [
        # Declined like an unsafe request, but judged as a role question of its own.
        ("Sorry, I have to ask, are you an actor or a real patient?", "no"),
        ("Take these tablets for me now, go on.", "yes"),
        # Both in one turn: the request still counts (an independent review), also when two
        # readings of the role question overlap (a second review).
        ("Are you a real patient? Anyway, take these tablets for me now, go on.", "yes"),
        ("Are you an actual patient or not? Swallow these now.", "yes"),
    ],
)
def test_the_sps_judge_reads_a_role_question_as_no_unsafe_request(text, unsafe):
    assert judge("sps").decide(text, "chest-pain|unsafe") == unsafe


def _transcript_of_ones_own(**changes: object) -> dict[str, object]:
    learner = {"asks": [], "measurement": False, "vague": False, "role_question": False, "unsafe": False}
    patient = {"backchannel": False, "refusal": False, "clarification": False, "numbers": []}
    transcript: dict[str, object] = {
        "id": "me-001",
        "lang": "en",
        "case": "chest-pain",
        "setting": "a set of one's own",
        "qa_issues": [],
        "turns": [
            {"turnIndex": 0, "role": "learner", "text": "What brings you in?", "ann": learner},
            {"turnIndex": 1, "role": "patient", "text": "My chest, doctor.", "ann": patient},
        ],
    }
    transcript.update(changes)
    return transcript


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"case": "knee-pain"}, "no case 'knee-pain'"),
        ({"lang": "zh"}, "the case chest-pain is played in 'en'"),
        ({"qa_issues": [{"turnIndex": 7, "kind": "unmeasured_number"}]}, "turnIndex 7 is past the last turn"),
        # Second independent review: a mistake on the learner's line, and a slot the case lacks.
        ({"qa_issues": [{"turnIndex": 0, "kind": "unmeasured_number"}]}, "turnIndex 0 is a learner turn"),
        # A third review: a mistake counted twice, a blank setting, more turns than an encounter.
        (
            {"qa_issues": [{"turnIndex": 1, "kind": "unmeasured_number"}] * 2},
            "turnIndex 1 is marked twice",
        ),
        ({"setting": " \u200b "}, "setting"),
        (
            {
                "turns": [
                    {
                        "turnIndex": index,
                        "role": "patient",
                        "text": "Mm.",
                        "ann": {"backchannel": True, "refusal": False, "clarification": False, "numbers": []},
                    }
                    for index in range(1001)
                ]
            },
            "at most 1000 items",
        ),
        (
            {
                "turns": [
                    {
                        "turnIndex": 0,
                        "role": "learner",
                        "text": "Any pain in your knee?",
                        "ann": {
                            "asks": ["knee"],
                            "measurement": False,
                            "vague": False,
                            "role_question": False,
                            "unsafe": False,
                        },
                    },
                    {
                        "turnIndex": 1,
                        "role": "patient",
                        "text": "No.",
                        "ann": {
                            "backchannel": False,
                            "refusal": False,
                            "clarification": False,
                            "numbers": [],
                        },
                    },
                ]
            },
            "turn 0 asks about 'knee', which the case chest-pain does not hold",
        ),
    ],
)
def test_an_sps_set_of_ones_own_names_a_case_it_cannot_play(tmp_path, capsys, changes, said):
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps(_transcript_of_ones_own(**changes)) + "\n", encoding="utf-8")
    args = own_set("sps", path)
    assert run_eval(args) == 2
    assert said in capsys.readouterr().err


def test_turns_out_of_order_and_a_line_nested_too_deep_are_named(tmp_path, capsys):
    transcript = _transcript_of_ones_own()
    turns = transcript["turns"]
    assert isinstance(turns, list)
    turns[1] = {**turns[1], "turnIndex": 0}
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps(transcript) + "\n", encoding="utf-8")
    args = own_set("sps", path)
    assert run_eval(args) == 2
    assert "turns count from 0 in order" in capsys.readouterr().err
    path.write_text("[" * 100_000 + "\n", encoding="utf-8")
    args.judges = ["interview"]
    assert run_eval(args) == 2
    assert "nested too deeply" in capsys.readouterr().err
