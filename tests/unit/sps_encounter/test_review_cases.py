"""Cases an acceptance review found, each pinned: a clear DOB re-ask that does not name the date
of birth again, the patient's own age, an agenda clause waiting for the persona's privacy, case
data the patient could not say without a validator error, and inline patterns that would make a
turn hang or fail."""

from __future__ import annotations

import pytest

from persona_rails.errors import Invalid
from sps_encounter.cases import resolve
from sps_encounter.engine.case import Scenario
from sps_encounter.engine.compiled import CaseMismatch
from sps_encounter.engine.state import Rapport
from sps_encounter.schemas import CaseChoice
from tests.unit.sps_encounter.support import (
    catalog_case,
    config,
    encounter,
    inline_case,
    scenario_document,
)

CHALLENGE = "Can I confirm your name and date of birth?"


@pytest.mark.parametrize(
    "insistence",
    [
        "I understand, but it is hospital policy to check it again.",
        "It is just so we do not mix you up with another patient. Could you tell me?",
        "I do need to check, I'm afraid.",
        "I understand, but I still need it.",
        "It's for your records.",
        "It's just routine, I have to ask.",
        "I need it to make sure I have the right chart.",
    ],
)
def test_insisting_after_the_dob_challenge_is_a_clear_re_ask(insistence):
    played = encounter(catalog_case())
    assert played.say(CHALLENGE).meta["kind"] == "dob_challenge"
    reply = played.say(insistence)
    assert reply.meta["kind"] == "identity"
    assert "Daniel Hughes" in reply.text
    assert "1968" in reply.text
    assert played.state.identity_verified


def test_insisting_without_a_challenge_pending_is_not_an_identity_request():
    played = encounter(catalog_case())
    assert played.say("It is hospital policy, I'm afraid.").meta["kind"] != "identity"


def test_chinese_insistence_after_the_challenge_is_a_clear_re_ask():
    played = encounter(catalog_case("abdominal-pain-zh", "zh-anxious-balanced"))
    assert played.say("请问您叫什么名字？出生日期是哪天？").meta["kind"] == "dob_challenge"
    reply = played.say("不好意思，这是医院规定，为了您的安全必须核对。")
    assert reply.meta["kind"] == "identity"
    assert "林晓雯" in reply.text


@pytest.mark.parametrize(
    ("scenario", "persona", "question", "age"),
    [
        ("chest-pain", "en-reserved-brief", "How old are you?", "58"),
        ("abdominal-pain-zh", "zh-anxious-balanced", "您今年多大了？", "34"),
    ],
)
def test_the_patient_knows_their_own_age(scenario, persona, question, age):
    reply = encounter(catalog_case(scenario, persona)).say(question)
    assert age in reply.text
    assert reply.meta["slots"]["age"] == age


def test_an_agenda_clause_in_a_guarded_category_waits_for_rapport():
    def guarded_agenda(document):
        document["hidden_agenda"][0]["category"] = "substance_use"

    case = inline_case(guarded_agenda)
    played = encounter(case)
    reply = played.say("What medications are you taking?")
    assert reply.meta["agendaRevealed"] == []
    assert "stopped_statin" in played.state.tracking.agenda_pending
    played.state.rapport = Rapport.NEUTRAL  # the reserved persona opens up at neutral
    assert played.say("Any other tablets?").meta["agendaRevealed"] == ["stopped_statin"]


@pytest.mark.parametrize(
    ("target", "edit", "path"),
    [
        (
            "persona",
            lambda p: p["pools"].__setitem__("clarifications", ["What?", "what?", "WHAT?", "What ?"]),
            "persona.pools.clarifications",
        ),
        (
            "scenario",
            lambda s: s["subjective_catalog"][0]["answers"].append("I think it's angina, three weeks now."),
            "scenario.subjective_catalog[0].answers[3]",
        ),
        (
            "persona",
            lambda p: p["quirks"].append({"id": "bp", "text": "My blood pressure is 152/94 mmHg, you know."}),
            "persona.quirks[2]",
        ),
        (
            "scenario",
            lambda s: s["subjective_catalog"][0]["answers"].append("It started two days ago."),
            "scenario.subjective_catalog[0].answers[3]",
        ),
    ],
)
def test_case_data_the_validator_would_flag_is_refused_when_paired(target, edit, path):
    with pytest.raises(CaseMismatch) as raised:
        inline_case(edit) if target == "scenario" else inline_case(None, edit)
    assert raised.value.field == path


@pytest.mark.parametrize("scenario", sorted(config().scenarios))
def test_every_shipped_scenario_can_be_sent_inline_as_a_starting_point(scenario):
    # A persona designer copies a shipped scenario and tunes it: its patterns must pass the rules
    # for inline patterns (one wide repetition at most, no repeated group), which catalog patterns
    # are not held to. Three of them had not (a third independent review found the first).
    case = resolve(config(), CaseChoice(scenario=scenario_document(scenario)))
    assert case.scenario.value.id == scenario


@pytest.mark.parametrize(
    ("edit", "code", "field"),
    [
        # A scenario line no persona could say is the scenario's error, not a misfit of the pair.
        (
            lambda s: s["subjective_catalog"][0]["answers"].__setitem__(0, "I am 120 mmHg."),
            "invalid_scenario",
            "scenario.subjective_catalog[0].answers[0]",
        ),
        # A document-wide check names the element, not the whole document.
        (
            lambda s: s["hidden_agenda"].append(dict(s["hidden_agenda"][0])),
            "invalid_scenario",
            "scenario.hidden_agenda[2].id",
        ),
        (
            lambda s: s["misunderstandings"][0].__setitem__("intended_slot", "nope"),
            "invalid_scenario",
            "scenario.misunderstandings[0].intended_slot",
        ),
    ],
)
def test_an_inline_scenario_error_has_the_scenario_code_and_names_the_element(edit, code, field):
    document = scenario_document()
    edit(document)
    with pytest.raises(Invalid) as raised:
        resolve(config(), CaseChoice(scenario=document))
    assert (raised.value.code, raised.value.field) == (code, field)
    assert raised.value.message.startswith(field)


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("(a|a)*b", "repeat single characters or classes only"),
        (".*.*.*.*.*=", "one unbounded repetition"),
        # Chained repetitions of a literal backtrack polynomially too: seconds on 600 characters.
        ("a*a*a*b", "one unbounded repetition"),
        ("zj*j*j*j*k", "one unbounded repetition"),
        ("a{1,500}a{1,500}b", "one unbounded repetition"),
        ("(?P<g0>zzz)", "named groups"),
        ("\\b", "asks nothing"),
    ],
)
def test_an_inline_pattern_that_could_hang_or_break_a_turn_is_refused_naming_its_path(pattern, problem):
    document = scenario_document()
    document["subjective_catalog"][0]["patterns"].append(pattern)
    with pytest.raises(Invalid) as raised:
        resolve(config(), CaseChoice(scenario=document))
    assert raised.value.field.startswith("scenario.subjective_catalog[0].patterns")
    assert problem in raised.value.message


@pytest.mark.parametrize(
    "template", ["{name} born {dob} {x}", "{name} born {dob} {0}", "{name} born {dob} {", "{name} {dob!r}"]
)
def test_an_identity_template_that_would_fail_at_answer_time_is_refused(template):
    document = scenario_document()
    document["identity_answers"] = [template]
    with pytest.raises(ValueError, match="identity_answers"):
        Scenario.model_validate(document)


def _plan(scenario: str, question: str):
    from sps_encounter.engine.learner import apply_learner_turn
    from sps_encounter.engine.respond import plan_response
    from sps_encounter.engine.state import init_runtime_state

    case = catalog_case(scenario, config().scenarios[scenario].value.default_persona)
    state = init_runtime_state(case.persona.verbosity, 5)
    return case, plan_response(case, state, apply_learner_turn(case, state, question), question)


@pytest.mark.parametrize(
    ("scenario", "question", "reply", "violation"),
    [
        (
            "chest-pain",
            "When did it start?",
            "Three weeks ago. I've also been coughing up blood and I have diabetes.",
            "unsupported_content",
        ),
        (
            "chest-pain",
            "What medications are you taking?",
            "Just amlodipine. It read one hundred and fifty-two over ninety-four at the pharmacy.",
            "unsupported_number:ninety",
        ),
        (
            "chest-pain",
            "What brings you in today?",
            "I think I'm having a heart attack.",
            "diagnosis_or_coaching",
        ),
        (
            "abdominal-pain-zh",
            "哪里疼？",
            "右下腹疼。我还有糖尿病，最近体重掉了很多。",
            "unsupported_content",
        ),
        ("abdominal-pain-zh", "哪里疼？", "好的，It started yesterday evening。", "wrong_language"),
        ("chest-pain", "When did it start?", "三个星期了。", "wrong_language"),
    ],
)
def test_an_llm_reply_that_adds_what_the_case_does_not_hold_is_refused(scenario, question, reply, violation):
    from sps_encounter.engine.factcheck import violations

    case, plan = _plan(scenario, question)
    assert violation in violations(case, plan, reply, question)


@pytest.mark.parametrize(
    ("scenario", "question", "reply"),
    [
        ("chest-pain", "When did it start?", "It's been about three weeks now."),
        ("chest-pain", "When did it start?", "Around three weeks, I reckon."),
        ("chest-pain", "What medications are you taking?", "Only amlodipine, every morning."),
        ("chest-pain", "What brings you in today?", "My chest feels heavy when I walk uphill."),
        ("abdominal-pain-zh", "哪里疼？", "就是右下边这块疼。"),
    ],
)
def test_an_llm_reply_that_only_rephrases_the_case_passes(scenario, question, reply):
    from sps_encounter.engine.factcheck import violations

    case, plan = _plan(scenario, question)
    assert violations(case, plan, reply, question) == []
