"""A TCP proxy to Postgres that delays every flight and counts round trips.

In AWS each statement batch crosses the network to Supabase's pooler, so a request's latency is
mostly (round trips) x (network round-trip time). Locally the embedded server answers over a unix
socket in microseconds and hides that cost. This proxy puts it back: it listens on 127.0.0.1 (a
random port), forwards bytes to the embedded server (over TCP or its unix socket), delays every
chunk by a fixed time in each direction, and counts the client's flights.

A round trip is one client->server flight: the client sends after having received something
from the server (or sends for the first time on a connection). Consecutive client chunks with no
server bytes in between are one flight, so a pipelined batch counts once however the kernel
splits it. Flights are counted before they are forwarded, so once the client has its reply
every flight of that exchange is counted (a flight that expects no reply, such as Terminate on
close, may be counted a moment after the client sent it).

The start-up phase (StartupMessage, authentication, up to the server's first ReadyForQuery) is
counted separately per connection, so a cold container's connection cost can be reported apart
from a warm request's statements.

Used by tests/integration/intercept_session/test_round_trips.py (delay 0: only the counts) and
bench/round_trips.py (1 ms each way). Threads, not asyncio: `time.sleep` keeps a 1 ms delay
within ~0.1 ms, where the event loop's millisecond-granular epoll timeout would add up to 1 ms.
"""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import persona_rails_dev  # noqa: F401 - puts the shared layer (shared/) on sys.path

_CHUNK = 65536
# The request codes of SSLRequest and GSSENCRequest: the server answers either with one bare
# byte ('N', 'S' or 'G') instead of a framed message.
_ENCRYPTION_REQUESTS = {(80877103).to_bytes(4, "big"), (80877104).to_bytes(4, "big")}
_READY_FOR_QUERY = b"Z"


@dataclass(frozen=True)
class Upstream:
    """Where the real server listens: a TCP host and port, or a unix socket path."""

    host: str | None = None
    port: int | None = None
    unix_path: str | None = None

    @classmethod
    def of(cls, database_url: str) -> Upstream:
        # The product's own parser, so `?host=/dir` (the embedded server's unix socket) is read
        # exactly as the handler would read it.
        from persona_rails.db.url import connect_kwargs

        kwargs = connect_kwargs(database_url)
        if "unix_sock" in kwargs:
            return cls(unix_path=kwargs["unix_sock"])
        return cls(host=kwargs["host"], port=kwargs["port"])

    def connect(self, timeout: float) -> socket.socket:
        if self.unix_path is not None:
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            upstream.settimeout(timeout)
            upstream.connect(self.unix_path)
        else:
            assert self.host is not None
            assert self.port is not None
            upstream = socket.create_connection((self.host, self.port), timeout=timeout)
            upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        upstream.settimeout(None)
        return upstream


class _StartupWatch:
    """Finds the end of a connection's start-up: the server's first ReadyForQuery message.

    Server messages are framed as a type byte and a 4-byte length (which counts itself), except
    the one-byte answer to an SSLRequest/GSSENCRequest. After that answer, if it accepted
    encryption ('S' or 'G'), the stream is opaque and the start-up cost stays unknown.
    """

    def __init__(self) -> None:
        self._pending = b""
        self._bare_bytes = 0
        self.done = False
        self.opaque = False

    def client_sent(self, data: bytes, first: bool) -> None:
        if (
            first
            and len(data) >= 8
            and data[:4] == (8).to_bytes(4, "big")
            and data[4:8] in _ENCRYPTION_REQUESTS
        ):
            self._bare_bytes += 1

    def server_sent(self, data: bytes) -> bool:
        """True when this chunk completes the start-up (its first ReadyForQuery)."""
        if self.done or self.opaque:
            return False
        buffer = self._pending + data
        if self._bare_bytes and buffer:
            answer, buffer = buffer[:1], buffer[1:]
            self._bare_bytes -= 1
            if answer != b"N":
                self.opaque = True
                return False
        position = 0
        while len(buffer) - position >= 5:
            if buffer[position : position + 1] == _READY_FOR_QUERY:
                self.done = True
                self._pending = b""
                return True
            length = int.from_bytes(buffer[position + 1 : position + 5], "big")
            if position + 1 + length > len(buffer):
                break
            position += 1 + length
        self._pending = buffer[position:]
        return False


@dataclass
class ConnectionStats:
    number: int
    round_trips: int = 0
    # Flights before the server's first ReadyForQuery; None until then (or if encrypted).
    setup_round_trips: int | None = None
    open: bool = True
    awaiting_client: bool = True  # the next client chunk starts a new flight
    directions_open: int = 2
    started: bool = False
    startup: _StartupWatch = field(default_factory=_StartupWatch)


@dataclass(frozen=True)
class Counts:
    """The proxy's counters at one moment (or the difference between two moments)."""

    round_trips: int  # every flight, start-up included
    setup_round_trips: int  # flights spent on start-up of the connections in this window
    connections: int  # connections accepted
    per_connection: dict[int, int]

    @property
    def request_round_trips(self) -> int:
        """Flights that carried statements: everything but the connections' start-up."""
        return self.round_trips - self.setup_round_trips

    def __sub__(self, before: Counts) -> Counts:
        return Counts(
            round_trips=self.round_trips - before.round_trips,
            setup_round_trips=self.setup_round_trips - before.setup_round_trips,
            connections=self.connections - before.connections,
            per_connection={
                number: trips - before.per_connection.get(number, 0)
                for number, trips in self.per_connection.items()
                if trips != before.per_connection.get(number, 0)
            },
        )


_ZERO = Counts(0, 0, 0, {})


class Measurement:
    """Filled in when its `DelayProxy.measure()` block ends."""

    counts: Counts = _ZERO

    @property
    def round_trips(self) -> int:
        return self.counts.round_trips

    @property
    def request_round_trips(self) -> int:
        return self.counts.request_round_trips

    @property
    def setup_round_trips(self) -> int:
        return self.counts.setup_round_trips


class DelayProxy:
    """127.0.0.1:<random port> -> the upstream server, `delay_seconds` added in each direction.

    At most `max_connections` are relayed at once (each uses four threads when delaying, two when
    not); further clients are refused by closing them. `close()` (or leaving the `with` block)
    stops accepting, cuts every connection and joins every thread.
    """

    def __init__(self, upstream: Upstream, *, delay_seconds: float = 0.001, max_connections: int = 8) -> None:
        if delay_seconds < 0:
            raise ValueError("delay_seconds must be >= 0")
        self.upstream = upstream
        self.delay_seconds = delay_seconds
        self.max_connections = max_connections
        self.refused = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: list[ConnectionStats] = []
        self._pairs: dict[int, tuple[socket.socket, socket.socket]] = {}
        self._threads: list[threading.Thread] = []
        self._accepted = 0  # since the last reset
        self._numbered = 0  # never reset: connection numbers stay unique
        self._round_trips = 0
        self._setup_round_trips = 0
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.bind(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._acceptor: threading.Thread | None = None

    @classmethod
    def to(cls, database_url: str, **options: Any) -> DelayProxy:
        """A proxy in front of the server `database_url` names (TCP or unix socket)."""
        return cls(Upstream.of(database_url), **options)

    def url_for(self, database_url: str) -> str:
        """`database_url` with the same credentials and database, reached through this proxy.

        sslmode=disable: the proxy relays plaintext, and counting needs to read the start-up.
        """
        from persona_rails.db.url import connect_kwargs

        kwargs = connect_kwargs(database_url)
        credentials = quote(kwargs["user"], safe="")
        if kwargs.get("password"):
            credentials += ":" + quote(kwargs["password"], safe="")
        database = quote(kwargs["database"], safe="")
        return f"postgresql://{credentials}@127.0.0.1:{self.port}/{database}?sslmode=disable"

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self) -> DelayProxy:
        self._listener.listen(self.max_connections)
        # A timeout, so the accept loop notices close(): closing a socket does not wake a thread
        # blocked in accept() on Linux.
        self._listener.settimeout(0.05)
        self._acceptor = threading.Thread(target=self._accept_loop, name="delay-proxy-accept", daemon=True)
        self._acceptor.start()
        return self

    def close(self) -> None:
        self._stopping.set()
        if self._acceptor is not None:
            self._acceptor.join(timeout=5)
        self._listener.close()
        with self._lock:
            sockets = [sock for pair in self._pairs.values() for sock in pair]
            threads = list(self._threads)
        # Shutting a socket down wakes the thread blocked in its recv(); the pumps then close it.
        for sock in sockets:
            _shutdown(sock)
        for thread in threads:
            thread.join(timeout=5)
        stuck = [thread.name for thread in threads if thread.is_alive()]
        if stuck:
            raise RuntimeError(f"delay proxy threads did not stop: {stuck}")

    def __enter__(self) -> DelayProxy:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- counters ----------------------------------------------------------------------------

    def snapshot(self) -> Counts:
        with self._lock:
            return Counts(
                round_trips=self._round_trips,
                setup_round_trips=self._setup_round_trips,
                connections=self._accepted,
                per_connection={stats.number: stats.round_trips for stats in self._connections},
            )

    def reset(self) -> None:
        """Zero every counter; open connections go on being relayed and counted from zero.

        A `measure()` block must not span a reset.
        """
        with self._lock:
            self._round_trips = self._setup_round_trips = self._accepted = 0
            self.refused = 0
            for stats in self._connections:
                stats.round_trips = 0
            self._connections = [stats for stats in self._connections if stats.open]

    @contextlib.contextmanager
    def measure(self) -> Iterator[Measurement]:
        """What one block of work cost: `with proxy.measure() as m: ...; m.round_trips`."""
        measurement = Measurement()
        before = self.snapshot()
        try:
            yield measurement
        finally:
            measurement.counts = self.snapshot() - before

    @property
    def connections(self) -> list[ConnectionStats]:
        with self._lock:
            return list(self._connections)

    # --- relaying ----------------------------------------------------------------------------

    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                active = sum(1 for stats in self._connections if stats.open)
                if active >= self.max_connections or self._stopping.is_set():
                    self.refused += 1
                    client.close()
                    continue
            try:
                upstream = self.upstream.connect(timeout=5)
            except OSError:
                client.close()
                continue
            client.settimeout(None)
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._relay(client, upstream)

    def _relay(self, client: socket.socket, upstream: socket.socket) -> None:
        self._numbered += 1
        stats = ConnectionStats(number=self._numbered)
        threads = [
            threading.Thread(
                target=self._pump,
                args=(stats, client, upstream, True),
                name=f"delay-proxy-{stats.number}-up",
                daemon=True,
            ),
            threading.Thread(
                target=self._pump,
                args=(stats, upstream, client, False),
                name=f"delay-proxy-{stats.number}-down",
                daemon=True,
            ),
        ]
        with self._lock:
            self._accepted += 1
            self._connections.append(stats)
            self._pairs[stats.number] = (client, upstream)
            self._threads = [thread for thread in self._threads if thread.is_alive()] + threads
        for thread in threads:
            thread.start()

    def _direction_done(self, stats: ConnectionStats) -> None:
        """The second direction to end closes both sockets."""
        with self._lock:
            stats.directions_open -= 1
            if stats.directions_open:
                return
            stats.open = False
            pair = self._pairs.pop(stats.number, ())
        for sock in pair:
            sock.close()

    def _observe(self, stats: ConnectionStats, from_client: bool, data: bytes) -> None:
        with self._lock:
            if from_client:
                stats.startup.client_sent(data, first=not stats.started)
                stats.started = True
                if stats.awaiting_client:
                    stats.awaiting_client = False
                    stats.round_trips += 1
                    self._round_trips += 1
            else:
                # Set before the bytes are forwarded: the client cannot answer them earlier.
                stats.awaiting_client = True
                if stats.startup.server_sent(data):
                    stats.setup_round_trips = stats.round_trips
                    self._setup_round_trips += stats.round_trips

    def _pump(
        self,
        stats: ConnectionStats,
        source: socket.socket,
        target: socket.socket,
        from_client: bool,
    ) -> None:
        # With a delay, a writer thread sends each chunk at (arrival + delay), so back-to-back
        # chunks are delayed once, as on a real link, rather than once per chunk in sequence.
        delayed: queue.SimpleQueue[tuple[float, bytes] | None] | None = None
        writer = None
        if self.delay_seconds > 0:
            delayed = queue.SimpleQueue()
            writer = threading.Thread(
                target=self._write_delayed,
                args=(delayed, target),
                name=f"delay-proxy-{stats.number}-{'up' if from_client else 'down'}-writer",
                daemon=True,
            )
            with self._lock:
                self._threads.append(writer)
            writer.start()
        try:
            while True:
                data = source.recv(_CHUNK)
                if not data:
                    break
                self._observe(stats, from_client, data)
                if delayed is not None:
                    delayed.put((time.monotonic() + self.delay_seconds, data))
                else:
                    target.sendall(data)
        except OSError:
            # The other side reset, or close() cut the connection: end both directions.
            _shutdown(source)
        finally:
            if delayed is not None and writer is not None:
                delayed.put(None)
                writer.join()
            else:
                _shutdown(target, socket.SHUT_WR)
            self._direction_done(stats)

    @staticmethod
    def _write_delayed(delayed: queue.SimpleQueue[tuple[float, bytes] | None], target: socket.socket) -> None:
        failed = False
        while (item := delayed.get()) is not None:
            if failed:
                continue  # drain, so the reader's final put never blocks
            due, data = item
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            try:
                target.sendall(data)
            except OSError:
                failed = True
        _shutdown(target, socket.SHUT_WR)


def _shutdown(sock: socket.socket, how: int = socket.SHUT_RDWR) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(how)
