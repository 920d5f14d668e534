"""The interview benchmark's narrators (bench/interview/corpus.py) close a session only with their
stop requests, as a turn reads them: lexicons and local models. A retrained signal model that read
one of its plain answers as a stop once stopped `python -m bench.interview` part-way."""

from __future__ import annotations

from bench.interview.corpus import check_corpus


def test_the_benchmarks_narrators_close_a_session_only_with_a_stop_request():
    check_corpus()
