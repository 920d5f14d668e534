"""LLM insights for many users: bounded concurrency, the template on any fault, and a deadline.

The fake OpenAI server answers by the facts in the prompt (each user here has a different number
of sessions), so the replies reach the right users whatever order the concurrent calls take.
"""

import json
import threading
from datetime import UTC, date, datetime

import pytest

from persona_rails.llm import structured
from persona_rails.settings import cached_settings
from persona_rails_dev.lambda_runtime import LambdaContext, load_handler
from persona_rails_dev.template import functions
from tests.support.fake_openai import Delay, FakeOpenAI, RawBody, json_content, server_error
from tests.support.history import add_session, at, summary_of
from weekly_summary.schemas import RunRequest
from weekly_summary.service import run_weekly
from weekly_summary.settings import WeeklySettings

LATENCY = 0.25


class KeyedFake(FakeOpenAI):
    """Answers each request by its user's session count ("拦截次数" in the facts), after LATENCY.
    Each request is handled on a thread of its own, which records it and then asks for its reply."""

    def __init__(self) -> None:
        super().__init__()
        self._current = threading.local()

    def record(self, request):
        super().record(request)
        self._current.request = request

    def next_behaviour(self):
        sessions = json.loads(self._current.request.message("user"))["拦截次数"]
        if sessions % 4 == 0:
            answer = server_error(503)
        elif sessions % 4 == 1:
            answer = json_content({"insight": f"本周最常出现的借口类型是工作，共{sessions}次拦截。"})
        elif sessions % 4 == 2:
            answer = RawBody(b"not json at all", 200)
        else:
            return Delay(5.0)  # far past the client's timeout
        return Delay(LATENCY, answer)


@pytest.fixture
def keyed_llm(fake_openai, monkeypatch):
    """The fixture's LLM environment, pointed at a fake that answers by user."""
    with KeyedFake().running() as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("PERSONA_RAILS_WEEKLY_LLM_INSIGHTS", "true")
        # Room for a loaded machine on the good path; the slow replies still time out.
        monkeypatch.setenv("PERSONA_RAILS_LLM_TIMEOUT_SECONDS", "2")
        structured._client.cache_clear()
        cached_settings.cache_clear()
        yield fake
    structured._client.cache_clear()
    cached_settings.cache_clear()
    assert not fake.errors


def week_of_users(db, users, wednesday):
    """Twelve users alone in the week of `wednesday`, the n-th with n sessions."""
    people = []
    for n in range(1, 13):
        person = users.create().id
        for hour in range(n):
            add_session(db, person, local_start=at(wednesday, 8 + hour), category="work")
        people.append((n, person))
    return people


def settings(**knobs):
    return WeeklySettings.from_env(**{f"PERSONA_RAILS_WEEKLY_{k.upper()}": v for k, v in knobs.items()})


def test_calls_run_concurrently_up_to_the_bound_and_each_fault_gets_the_template(
    db, users, keyed_llm, monkeypatch
):
    from weekly_summary import insight_pool

    people = week_of_users(db, users, date(2024, 11, 6))  # 2024-W45
    active, most = 0, 0
    lock = threading.Lock()
    real = insight_pool.llm_insight

    def counted(*args, **kwargs):
        nonlocal active, most
        with lock:
            active += 1
            most = max(most, active)
        try:
            return real(*args, **kwargs)
        finally:
            with lock:
                active -= 1

    monkeypatch.setattr(insight_pool, "llm_insight", counted)
    report = run_weekly(db, settings(llm_concurrency=4), RunRequest(week="2024-W45"), datetime.now(UTC))
    assert report.processed == 12
    # Calls overlapped, and never more than the bound at once.
    assert 2 <= most <= 4
    for n, person in people:
        summary = summary_of(db, person, date(2024, 11, 4))
        assert summary["sessions"] == n
        if n % 4 == 1:
            assert (summary["insight_source"], summary["insight"]) == (
                "llm",
                f"本周最常出现的借口类型是工作，共{n}次拦截。",
            )
        else:  # a 503, a body that is not JSON, a timeout
            assert summary["insight_source"] == "template"
            assert "本周最常出现的借口类型" in summary["insight"]
            assert f"共{n}次拦截" not in summary["insight"]
    assert report.tally.llm_insights == 3
    assert report.tally.insight_fallbacks == 9
    # The prompt's facts include the emergencies past the allowance, as numbers.
    facts = json.loads(keyed_llm.requests[0].message("user"))
    assert (facts["紧急解锁"], facts["超出每周额度的紧急解锁"]) == (0, 0)
    assert report.tally.deadline_fallbacks == 0


def test_short_of_time_the_rest_of_the_run_takes_templates_without_calling(db, users, keyed_llm):
    people = week_of_users(db, users, date(2024, 11, 13))  # 2024-W46
    calls = iter(range(10_000))

    def remaining():
        # Plenty of time for the first three users' checks, then 60 s left: under the reserve.
        return 800.0 if next(calls) < 3 else 60.0

    report = run_weekly(
        db, settings(llm_concurrency=1), RunRequest(week="2024-W46"), datetime.now(UTC), remaining=remaining
    )
    assert len(keyed_llm.requests) == 3
    assert report.tally.deadline_fallbacks == 9
    sources = [summary_of(db, person, date(2024, 11, 11))["insight_source"] for _, person in people]
    assert sources.count("template") >= 9


def test_an_unexpected_error_in_one_insight_gives_that_user_the_template(db, keyed_llm, users, monkeypatch):
    from weekly_summary import insight_pool

    person = users.create().id
    add_session(db, person, local_start=at(date(2024, 12, 4), 9))  # 2024-W49

    def broken(*args, **kwargs):
        raise KeyError("a bug, not an LLM fault")

    monkeypatch.setattr(insight_pool, "llm_insight", broken)
    report = run_weekly(db, settings(), RunRequest(week="2024-W49", user_id=person), datetime.now(UTC))
    assert (report.processed, report.tally.insight_fallbacks) == (1, 1)
    assert summary_of(db, person, date(2024, 12, 2))["insight_source"] == "template"


def test_the_handler_guards_the_deadline_with_the_lambda_clock(db, keyed_llm, users):
    person = users.create().id
    add_session(db, person, local_start=at(date(2024, 12, 11), 9))  # 2024-W50
    handler = load_handler(functions()["WeeklySummaryFunction"])
    event = {"week": "2024-W50", "user_id": person}
    # 10 s left of the invocation is under the 120 s reserve: no call is made.
    answer = handler(event, LambdaContext("WeeklySummaryFunction", timeout_seconds=10))
    assert (answer["processed"], answer["deadline_fallbacks"], len(keyed_llm.requests)) == (1, 1, 0)
    # With the whole 900 s ahead, the LLM is asked.
    answer = handler(event, LambdaContext("WeeklySummaryFunction", timeout_seconds=900))
    assert (answer["deadline_fallbacks"], len(keyed_llm.requests)) == (0, 1)
