"""Every CHECK that lists a column's allowed values holds exactly the values the code can write
there: a value an engine gains and the CHECK lacks turns every reply that carries it into a failed
write, a 500 ("Are you an actor?" once did, issue 22). Found in the migrated schema, not listed by
hand: a new CHECK list fails here until it is tied to its enum or set aside with its reason."""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import StrEnum

import pytest

from chair_interrupt.engine.model import Reason
from intercept_session.engine import model as intercept
from intercept_session.engine.access import UnlockKind
from intercept_session.personas import personas
from interview_turn.engine import model as interview
from interview_turn.engine.turn import OPENING_RULE
from persona_rails.llm.step import Source
from persona_rails.moderation.scoring import Label
from sps_encounter.engine.respond import Kind


def _values(enum: type[StrEnum]) -> Callable[[], set[str]]:
    return lambda: {member.value for member in enum}


# (table, column) -> the values the code writes there.
WRITTEN: dict[tuple[str, str], Callable[[], set[str]]] = {
    ("chair_interruptions", "source"): _values(Source),
    ("chair_interruptions", "trigger_reason"): _values(Reason),
    ("intercept_sessions", "final_verdict"): _values(intercept.Verdict),
    ("intercept_sessions", "persona_key"): lambda: {persona.key for persona in personas().personas},
    ("intercept_sessions", "state"): _values(intercept.State),
    ("intercept_sessions", "trigger"): _values(intercept.Trigger),
    ("intercept_sessions", "unlock_kind"): _values(UnlockKind),
    ("intercept_sessions", "user_decision"): _values(intercept.Decision),
    ("intercept_turns", "ai_verdict"): _values(intercept.Verdict),
    ("intercept_turns", "reason_category"): _values(intercept.Category),
    ("intercept_turns", "recommended_action"): _values(intercept.RecommendedAction),
    ("intercept_turns", "source"): _values(intercept.Source),
    ("intercept_turns", "user_decision"): _values(intercept.Decision),
    ("interview_sessions", "closed_reason"): _values(interview.HardStop),
    ("interview_sessions", "language"): _values(interview.Language),
    ("interview_turns", "conversation_phase"): _values(interview.Phase),
    ("interview_turns", "depth_decision"): _values(interview.DepthChange),
    ("interview_turns", "persona_used"): _values(interview.Persona),
    ("interview_turns", "safety_action"): _values(interview.SafetyAction),
    ("interview_turns", "source"): _values(Source),
    # The opening line is written under OPENING_RULE, which no rule of the router is.
    ("interview_turns", "winning_rule"): lambda: {rule.value for rule in interview.Rule} | {OPENING_RULE},
    ("moderation_checks", "final"): _values(Label),
    ("moderation_checks", "label"): _values(Label),
    ("sps_turns", "kind"): _values(Kind),
    ("sps_turns", "source"): _values(Source),
    ("weekly_summaries", "top_category"): _values(intercept.Category),
}

# CHECK lists no enum stands behind: the code writes these values as literals.
LITERALS = {
    ("interview_sessions", "status"): {"open", "closed"},  # interview_turn.schemas.SessionStatus
    ("sps_encounters", "persona_source"): {"catalog", "inline"},  # sps_encounter.cases
    ("sps_encounters", "scenario_source"): {"catalog", "inline"},
    ("weekly_summaries", "insight_source"): {"template", "llm"},  # weekly_summary.engine.summary
}

# `column IN ('a', 'b')` as Postgres prints it back: `(column = ANY (ARRAY['a'::text, 'b'::text]))`.
_LIST = re.compile(r"^CHECK \(\(?\(?(\w+)\)?(?:::text)? = ANY \(\(?ARRAY\[(.*)\]\)?(?:::text\[\])?\)\)\)?$")


@pytest.fixture(scope="module")
def check_lists(db) -> dict[tuple[str, str], set[str]]:
    """The schema's CHECK lists, read once for this module."""
    with db.as_owner() as tx:
        rows = tx.rows(
            "SELECT c.conrelid::regclass::text AS table_name, pg_get_constraintdef(c.oid) AS definition"
            " FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace"
            " WHERE c.contype = 'c' AND n.nspname = 'public'"
        )
    found = {}
    for row in rows:
        if "ANY" not in row["definition"] or "'" not in row["definition"]:
            continue
        matched = _LIST.match(row["definition"])
        assert matched, f"a CHECK list this test cannot read: {row['table_name']}: {row['definition']}"
        column, items = matched.groups()
        found[(row["table_name"], column)] = set(re.findall(r"'([^']*)'", items))
    return found


def test_every_check_list_is_tied_to_what_writes_it(check_lists):
    found = check_lists
    assert len(found) >= 30
    assert set(found) == set(WRITTEN) | set(LITERALS)


@pytest.mark.parametrize("column", sorted(WRITTEN), ids=".".join)
def test_a_check_list_allows_exactly_what_the_code_writes(check_lists, column):
    assert check_lists[column] == WRITTEN[column]()


@pytest.mark.parametrize("column", sorted(LITERALS), ids=".".join)
def test_a_literal_check_list_is_as_documented(check_lists, column):
    assert check_lists[column] == LITERALS[column]
