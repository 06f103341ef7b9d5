"""Hub load benchmark: 200 simulated tables x 10 games at once over loopback, through a proxy that drops
connections both ways, on SQLite and on PostgreSQL (a private throwaway cluster). Prints results per
second, latency percentiles of the successful sends, and whether every game was counted exactly once.
Beside the tables, projector pollers read the standings (JSON and the leaderboard fragment) the whole
time, as the projectors and phones of a real event do; their latency is printed too.

    python benchmarks/hub.py                      # full size, both databases
    python benchmarks/hub.py --tables 50 --games 4 --backends sqlite
    python benchmarks/hub.py --servers 2          # two hub processes sharing the PostgreSQL database
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path and its name would shadow the hub package.
if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)

import httpx  # noqa: E402

from hub import db  # noqa: E402
from hub.loadtest import (  # noqa: E402
    DropProxy,
    PostgresUnavailableError,
    PrivatePostgres,
    ServerProcess,
    check_counted,
    run_tables,
)
from hub.storage import HubStore  # noqa: E402


def run(backend: str, url: str, args: argparse.Namespace, workdir: Path) -> bool:
    engine = db.make_engine(url)
    db.migrate(engine)
    created = HubStore(engine).create_event(f"Benchmark {backend}")
    engine.dispose()
    servers = 1 if backend == "sqlite" else args.servers
    with contextlib.ExitStack() as stack:
        processes = [stack.enter_context(ServerProcess(url)) for _ in range(servers)]
        proxies = [stack.enter_context(DropProxy(p.port, drop_request=args.drop, drop_response=args.drop,
                                                 seed=args.seed + i)) for i, p in enumerate(processes)]
        poller = stack.enter_context(StandingsPoller(processes[0].url, created.event.code, args.pollers,
                                                     args.poll_ms / 1000))
        report = run_tables(join_url=proxies[0].url, send_url=[p.url for p in proxies], event_code=created.event.code,
                            join_secret=created.event.join_secret,
                            tables=args.tables, games=args.games, workdir=workdir, seed=args.seed, timeout=900)
        poller.stop()
        check = check_counted(processes[0].url, created.event.code, created.admin_token, report.sent_games)
        render_ms, cached_ms = _board_ms(f"{processes[0].url}/events/{created.event.code}/leaderboard/fragment")
    cut_requests = sum(p.counters.requests_cut for p in proxies)
    cut_responses = sum(p.counters.responses_cut for p in proxies)
    print(f"{backend} ({servers} hub process{'es' if servers > 1 else ''}): {report.games} games from "
          f"{report.tables} tables in {report.elapsed:.1f} s")
    print(f"  results per second:   {report.results_per_second:.1f}")
    print(f"  latency of a send:    p50 {1000 * report.latency_percentile(0.50):.0f} ms, "
          f"p95 {1000 * report.latency_percentile(0.95):.0f} ms, p99 {1000 * report.latency_percentile(0.99):.0f} ms")
    print(f"  attempts {report.attempts}: {report.stored} stored, {report.duplicates} answered duplicate, "
          f"{report.transport_failures} failed in transit (proxy cut {cut_requests} requests, "
          f"{cut_responses} replies)")
    print(f"  standings pollers ({args.pollers}, every {args.poll_ms} ms): {poller.polls} reads, "
          f"{poller.failures} failed, p50 {poller.percentile(0.50):.0f} ms, p95 {poller.percentile(0.95):.0f} ms")
    print(f"  projector page with {check.stored} results: render {render_ms:.0f} ms, "
          f"unchanged refresh median {cached_ms:.0f} ms")
    verdict = "yes" if check.exactly_once and check.stored == report.games and not report.undelivered else "NO"
    print(f"  every game counted exactly once: {verdict} ({check.stored} stored, {len(check.missing)} missing, "
          f"{len(check.unexpected)} extra, {len(check.mismatched)} changed, {report.undelivered} undelivered)")
    return verdict == "yes"


class StandingsPoller:
    """Projectors polling the public standings while the tables send: ``count`` threads, each reading the
    standings JSON and the leaderboard fragment every ``every`` seconds."""

    def __init__(self, base_url: str, code: str, count: int, every: float) -> None:
        self.urls = (f"{base_url}/api/events/{code}/standings", f"{base_url}/events/{code}/leaderboard/fragment")
        self.every = every
        self.durations: list[float] = []
        self.failures = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._poll, daemon=True) for _ in range(count)]

    def __enter__(self) -> StandingsPoller:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=30)

    @property
    def polls(self) -> int:
        return len(self.durations) + self.failures

    def percentile(self, fraction: float) -> float:
        with self._lock:
            ordered = sorted(self.durations)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")

    def _poll(self) -> None:
        with httpx.Client(timeout=30) as client:
            while not self._stop.is_set():
                for url in self.urls:
                    started = time.perf_counter()
                    try:
                        client.get(url).raise_for_status()
                    except httpx.HTTPError:
                        with self._lock:
                            self.failures += 1
                        continue
                    with self._lock:
                        self.durations.append(1000 * (time.perf_counter() - started))
                self._stop.wait(self.every)


def _board_ms(url: str, times: int = 9) -> tuple[float, float]:
    """The first request renders the standings; the next ones reuse it until something changes."""
    durations = []
    with httpx.Client(timeout=60) as client:
        for _ in range(times):
            started = time.perf_counter()
            client.get(url).raise_for_status()
            durations.append(1000 * (time.perf_counter() - started))
    return durations[0], statistics.median(durations[1:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--games", type=int, default=10, help="games per table")
    parser.add_argument("--drop", type=float, default=0.03, help="chance to cut a connection per chunk, each way")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--servers", type=int, default=1, help="hub processes on PostgreSQL")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pollers", type=int, default=4, help="projectors polling the standings meanwhile")
    parser.add_argument("--poll-ms", type=int, default=250, help="each poller's pause between reads")
    args = parser.parse_args()
    ok = True
    with tempfile.TemporaryDirectory(prefix="fujikoro-hub-bench-") as tmp:
        for backend in args.backends.split(","):
            workdir = Path(tmp) / backend
            workdir.mkdir()
            if backend == "sqlite":
                ok &= run(backend, f"sqlite:///{workdir / 'hub.sqlite3'}", args, workdir)
            elif backend == "postgresql":
                try:
                    cluster = PrivatePostgres()
                except PostgresUnavailableError as error:
                    print(f"postgresql: skipped - {error}")
                    continue
                with cluster:
                    name = "bench_" + uuid.uuid4().hex[:8]
                    ok &= run(backend, cluster.create_database(name), args, workdir)
            else:
                parser.error(f"unknown backend {backend!r}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
