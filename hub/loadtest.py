"""Load and fault machinery shipped with the hub (as gpiozero ships its MockFactory): a TCP proxy that
drops connections, a hub server in a child process, and simulated tables using the real outbox.

Used by tests/hub and benchmarks/hub.py; an organizer can also use it to rehearse an event on their
own laptop. Everything listens on 127.0.0.1 only.

The :class:`DropProxy` cuts connections at random in both directions. Cutting the *response* is the
case idempotency exists for: the hub has stored the game but the table never hears so and sends it
again; the hub must answer "duplicate" and count the game once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import glob
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from hub.outbox import Backoff, Outbox, OutboxMessage, Outcome, Sender, join, make_client
from hub.payload import build_result_payload

LOOPBACK = "127.0.0.1"
#: Simulated tables retry fast: a rehearsal should not spend minutes waiting out backoffs.
LOAD_BACKOFF = Backoff(base=0.02, cap=0.5)


# ------------------------------------------------------------------------------------------ proxy
@dataclass(slots=True)
class ProxyCounters:
    connections: int = 0
    requests_cut: int = 0
    responses_cut: int = 0


class DropProxy:
    """A loopback TCP proxy that aborts a connection with probability ``drop_request`` per chunk the
    client sends (before forwarding it) and ``drop_response`` per chunk the server sends back (after
    the server has done the work, before the client sees the reply)."""

    def __init__(
        self, upstream_port: int, *, drop_request: float = 0.05, drop_response: float = 0.05, seed: int = 0
    ) -> None:
        self.upstream_port = upstream_port
        self.drop_request = drop_request
        self.drop_response = drop_response
        self.counters = ProxyCounters()
        self._rng = random.Random(seed)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="drop-proxy", daemon=True)
        self._server: asyncio.AbstractServer | None = None
        self.port = 0

    def __enter__(self) -> DropProxy:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def start(self) -> int:
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._handle, LOOPBACK, 0), self._loop
        ).result(timeout=10)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    def stop(self) -> None:
        async def close() -> None:
            if self._server is not None:
                self._server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(timeout=10)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        self._loop.close()

    async def _handle(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        self.counters.connections += 1
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(LOOPBACK, self.upstream_port)
        except OSError:
            client_writer.transport.abort()
            return

        def cut() -> None:
            client_writer.transport.abort()
            upstream_writer.transport.abort()

        async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, towards_server: bool) -> None:
            try:
                while chunk := await reader.read(65536):
                    if towards_server and self._rng.random() < self.drop_request:
                        self.counters.requests_cut += 1
                        cut()
                        return
                    if not towards_server and self._rng.random() < self.drop_response:
                        self.counters.responses_cut += 1
                        cut()
                        return
                    writer.write(chunk)
                    await writer.drain()
                if writer.can_write_eof():
                    writer.write_eof()
            except (OSError, asyncio.CancelledError):
                cut()

        await asyncio.gather(
            pipe(client_reader, upstream_writer, True), pipe(upstream_reader, client_writer, False)
        )
        cut()


# ------------------------------------------------------------------------------------------ postgres
class PostgresUnavailableError(ValueError):
    """No PostgreSQL server binaries here (Debian: apt-get install postgresql)."""


def postgres_bindir() -> Path | None:
    for initdb in sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True):
        return Path(initdb).parent
    found = shutil.which("initdb")
    return Path(found).parent if found else None


class PrivatePostgres:
    """A throwaway PostgreSQL cluster (initdb + pg_ctl in a temporary directory) on a free loopback
    port, removed on :meth:`stop`. As root it runs as the ``postgres`` user (initdb refuses root)."""

    def __init__(self) -> None:
        bindir = postgres_bindir()
        if bindir is None or not (bindir / "pg_ctl").exists():
            raise PostgresUnavailableError(
                "PostgreSQL server binaries (initdb, pg_ctl) are not installed: apt-get install postgresql"
            )
        self.bindir = bindir
        self.port = 0
        self.base: Path | None = None
        self._prefix: list[str] = []

    def __enter__(self) -> PrivatePostgres:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def _run(self, *args: str) -> None:
        assert self.base is not None
        subprocess.run([*self._prefix, *args], check=True, capture_output=True, cwd=self.base)

    def start(self) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="fujikoro-hub-pg-"))
        os.chmod(self.base, 0o755)
        data, sockets = self.base / "data", self.base / "sock"
        sockets.mkdir()
        if os.geteuid() == 0:
            if shutil.which("runuser") is None:
                raise PostgresUnavailableError("running as root without runuser: cannot start PostgreSQL")
            shutil.chown(self.base, "postgres")
            shutil.chown(sockets, "postgres")
            self._prefix = ["runuser", "-u", "postgres", "--"]
        self._run(str(self.bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8",
                  "--no-sync")
        with socket.socket() as probe:
            probe.bind((LOOPBACK, 0))
            self.port = probe.getsockname()[1]
        options = (f"-p {self.port} -k {sockets} -c listen_addresses={LOOPBACK} -c fsync=off "
                   "-c max_connections=300")
        self._run(str(self.bindir / "pg_ctl"), "-D", str(data), "-l", str(self.base / "server.log"), "-o", options,
                  "-w", "-t", "60", "start")

    def stop(self) -> None:
        if self.base is None:
            return
        subprocess.run([*self._prefix, str(self.bindir / "pg_ctl"), "-D", str(self.base / "data"), "-m",
                        "immediate", "-w", "stop"], capture_output=True, cwd=self.base)
        shutil.rmtree(self.base, ignore_errors=True)
        self.base = None

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://postgres@{LOOPBACK}:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        self._admin(f"CREATE DATABASE {name}")
        return self.url(name)

    def drop_database(self, name: str) -> None:
        self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(f"host={LOOPBACK} port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as connection:
            connection.execute(sql.encode())


# ------------------------------------------------------------------------------------------ server
class ServerProcess:
    """``python -m hub`` in a child process on a loopback socket this process bound (no port races)."""

    def __init__(self, db_url: str, *, refresh_ms: int = 5000, max_body_bytes: int = 64 * 1024,
                 extra_args: Sequence[str] = ("--max-connections-per-client", "0"),
                 file_limit: int | None = None) -> None:
        # The simulated tables all come from 127.0.0.1, as real tablets never do: no cap per address
        # unless a test asks for one.
        self.db_url = db_url
        self.refresh_ms = refresh_ms
        self.max_body_bytes = max_body_bytes
        self.extra_args = tuple(extra_args)
        #: open files the hub process may have (soft and hard), as on a laptop with the usual 1024
        self.file_limit = file_limit
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def __enter__(self) -> ServerProcess:
        if self.process is None:
            self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def start(self, timeout: float = 60.0) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((LOOPBACK, 0))
        sock.listen(1024)
        self.port = sock.getsockname()[1]
        fd = sock.fileno()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "hub", "--db", self.db_url, "--fd", str(fd), "--refresh-ms",
                 str(self.refresh_ms), "--max-body", str(self.max_body_bytes), "--log-level", "warning",
                 *self.extra_args],
                pass_fds=(fd,),
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                preexec_fn=None if self.file_limit is None else self._limit_files,
            )
        finally:
            sock.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the hub server exited with status {self.process.returncode}")
            try:
                if httpx.get(self.url + "/api/health", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("the hub server did not answer within the timeout")

    def _limit_files(self) -> None:
        import resource

        assert self.file_limit is not None
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.file_limit, self.file_limit))

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self.process = None


# ------------------------------------------------------------------------------------------ tables
PLAYER_POOL = tuple(f"Samurai {n:03d}" for n in range(1, 301))
COLOURS = ("red", "blue", "green", "yellow", "purple", "black")


def random_game(rng: random.Random, *, seq: int = 1, players: int | None = None) -> dict[str, Any]:
    """A plausible finished competitive game with a fresh game id (for load tests and rehearsals)."""
    count = players or rng.randint(2, 6)
    names = rng.sample(PLAYER_POOL, count)
    colours = rng.sample(COLOURS, count)
    escaped = rng.sample(range(count), rng.randint(0, count))
    lines = []
    for index in range(count):
        lines.append(
            {
                "name": names[index],
                "colour": colours[index],
                "scores": {
                    "explored": rng.randint(0, 12),
                    "scrolls": 3 * rng.randint(0, 4),
                    "dragons": rng.randint(0, 30),
                    "gear_cards": rng.randint(0, 9),
                    "shogun": rng.randint(0, 15),
                    "scenario": 0,
                    "corrections": rng.choice((0, 0, 0, 1, -1)),
                },
                "escape_order": escaped.index(index) + 1 if index in escaped else None,
            }
        )
    return build_result_payload(
        lines,
        game_id=uuid.UUID(int=rng.getrandbits(128), version=4),
        seq=seq,
        mode="competitive",
        scenario=0,
        duration_seconds=rng.randint(2400, 7200),
    )


@dataclass(slots=True)
class LoadReport:
    tables: int
    games_per_table: int
    elapsed: float = 0.0
    latencies: list[float] = field(default_factory=list)
    attempts: int = 0
    transport_failures: int = 0
    duplicates: int = 0
    stored: int = 0
    rejected: int = 0
    undelivered: int = 0
    sent_games: dict[str, list[tuple[str, int]]] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return self.tables * self.games_per_table

    @property
    def results_per_second(self) -> float:
        return self.games / self.elapsed if self.elapsed else 0.0

    def latency_percentile(self, fraction: float) -> float:
        if not self.latencies:
            return 0.0
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run_tables(
    *,
    join_url: str,
    send_url: str | Sequence[str],
    event_code: str,
    tables: int,
    games: int,
    workdir: Path,
    join_secret: str = "",
    seed: int = 1,
    backoff: Backoff = LOAD_BACKOFF,
    timeout: float = 300.0,
) -> LoadReport:
    """``tables`` simulated tablets, each with its own outbox file, each playing ``games`` games and
    sending every result through ``send_url`` (e.g. a :class:`DropProxy`) as soon as it is queued; with
    several URLs (hub processes sharing one database) table ``i`` uses URL ``i mod n``."""
    send_urls = [send_url] if isinstance(send_url, str) else list(send_url)
    report = LoadReport(tables, games)
    lock = threading.Lock()
    deadline = time.time() + timeout

    def on_attempt(_message: OutboxMessage, seconds: float, outcome: Outcome) -> None:
        with lock:
            report.attempts += 1
            if outcome is Outcome.RETRY:
                report.transport_failures += 1
            elif outcome in (Outcome.SENT, Outcome.DUPLICATE):
                report.latencies.append(seconds)
                report.stored += outcome is Outcome.SENT
                report.duplicates += outcome is Outcome.DUPLICATE
            elif outcome is Outcome.REJECTED:
                report.rejected += 1

    def table(index: int) -> None:
        rng = random.Random(seed * 100_003 + index)
        # fsync off: 200 simulated tablets share one disk here; a real tablet keeps the durable default
        outbox = Outbox(workdir / f"table-{index:04d}.sqlite3", fsync=False)
        with make_client(30.0) as client:
            while True:
                try:
                    join(outbox, join_url, event_code, f"Table {index + 1}", join_secret, client=client)
                    break
                except httpx.TransportError:
                    if time.time() > deadline:
                        raise
                    time.sleep(backoff.delay(0, rng))
            credentials = outbox.credentials()
            assert credentials is not None
            outbox.set_credentials(dataclasses.replace(credentials, hub_url=send_urls[index % len(send_urls)]))
            sender = Sender(outbox, client=client, backoff=backoff, rng=rng, on_attempt=on_attempt)
            for _ in range(games):
                payload = random_game(rng)
                outbox.enqueue_result(payload)
                with lock:
                    report.sent_games[payload["game_id"]] = sorted(
                        (p["name"], p["total"]) for p in payload["players"]
                    )
                sender.drain(deadline=deadline)
            left = outbox.status()
            with lock:
                report.undelivered += left.pending + left.rejected
        outbox.close()

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=tables) as pool:
        for future in [pool.submit(table, i) for i in range(tables)]:
            future.result()
    report.elapsed = time.perf_counter() - started
    return report


@dataclass(frozen=True, slots=True)
class CountCheck:
    stored: int
    missing: tuple[str, ...]
    unexpected: tuple[str, ...]
    mismatched: tuple[str, ...]

    @property
    def exactly_once(self) -> bool:
        return not (self.missing or self.unexpected or self.mismatched)


def check_counted(
    hub_url: str, event_code: str, admin_token: str, sent: dict[str, list[tuple[str, int]]]
) -> CountCheck:
    """Compare what the hub stored with what the tables sent: every game once, with its content."""
    reply = httpx.get(
        f"{hub_url}/api/events/{event_code}/results", headers={"Authorization": f"Bearer {admin_token}"},
        timeout=60,
    )
    reply.raise_for_status()
    stored: dict[str, Sequence[tuple[str, int]]] = {}
    duplicated: list[str] = []
    for result in reply.json()["results"]:
        if result["game_id"] in stored:
            duplicated.append(result["game_id"])
        stored[result["game_id"]] = sorted((p["name"], p["total"]) for p in result["players"])
    missing = tuple(sorted(set(sent) - set(stored)))
    unexpected = tuple(sorted(set(stored) - set(sent))) + tuple(duplicated)
    mismatched = tuple(g for g in sent if g in stored and list(stored[g]) != list(sent[g]))
    return CountCheck(len(reply.json()["results"]), missing, unexpected, mismatched)
