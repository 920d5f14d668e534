"""A pipelined batch larger than the driver's 8 KiB write buffer still costs one round trip.

pg8000 writes through an 8 KiB buffer, so such a batch leaves in several TCP segments. With
Nagle's algorithm on, the last segment waits for the first one's ACK while the server already
answers the first statements: one more network round trip per request (a long interview turn's
write, a big decision record). The layer turns the delay off on every TCP connection.
"""

from __future__ import annotations

import socket

import pytest

from persona_rails.db import Database
from tests.support.delay_proxy import DelayProxy

# Larger than pg8000's write buffer several times over.
PAYLOAD = "x" * 40_000


@pytest.fixture
def proxied(database_url):
    # A real network delay makes the segments' order observable, as across AZs to the pooler.
    with DelayProxy.to(database_url, delay_seconds=0.005) as proxy:
        database = Database(proxy.url_for(database_url))
        try:
            yield proxy, database
        finally:
            database.close()


def test_a_batch_over_the_write_buffer_is_one_round_trip(proxied, users):
    proxy, database = proxied
    user = users.create()
    database.run_as_user(user.claims, ("SELECT 1 AS warm", {}))  # connect outside the measurement
    for _ in range(3):
        with proxy.measure() as measured:
            (rows,) = database.run_as_user(
                user.claims, ("SELECT char_length(CAST(:payload AS text)) AS n", {"payload": PAYLOAD})
            )
        assert rows == [{"n": len(PAYLOAD)}]
        assert measured.round_trips == 1


def test_tcp_connections_send_without_delay(proxied, users):
    _, database = proxied
    database.run_as_user(users.create().claims, ("SELECT 1 AS one", {}))
    connection = database._idle.get_nowait()
    try:
        assert connection._usock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        database._checkin(connection)
