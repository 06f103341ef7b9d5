"""Hub load benchmark: 200 simulated tables x 10 games at once over loopback, through a proxy that drops
connections both ways, on SQLite and on PostgreSQL (a private throwaway cluster). Prints results per
second, latency percentiles of the successful sends, and whether every game was counted exactly once.

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
        report = run_tables(join_url=proxies[0].url, send_url=[p.url for p in proxies], event_code=created.event.code,
                            tables=args.tables, games=args.games, workdir=workdir, seed=args.seed, timeout=900)
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
    print(f"  projector page with {check.stored} results: render {render_ms:.0f} ms, "
          f"unchanged refresh median {cached_ms:.0f} ms")
    verdict = "yes" if check.exactly_once and check.stored == report.games and not report.undelivered else "NO"
    print(f"  every game counted exactly once: {verdict} ({check.stored} stored, {len(check.missing)} missing, "
          f"{len(check.unexpected)} extra, {len(check.mismatched)} changed, {report.undelivered} undelivered)")
    return verdict == "yes"


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
