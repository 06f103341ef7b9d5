"""Load on loopback: 200 simulated tables (each with its own outbox file) send games at once through a
proxy that drops connections in both directions; every game must be counted exactly once.

The default run sends 2 games per table on SQLite and on PostgreSQL; the full size (10 games per table)
runs with ``-m slow`` and in benchmarks/hub.py, which also prints results per second and p99 latency.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hub import db
from hub.loadtest import DropProxy, ServerProcess, check_counted, run_tables
from hub.storage import HubStore

TABLES = 200


def _load(db_url: str, workdir: Path, games: int) -> None:
    engine = db.make_engine(db_url)
    db.migrate(engine)
    created = HubStore(engine).create_event("Load Con")
    engine.dispose()
    with ServerProcess(db_url) as server, DropProxy(server.port, drop_request=0.04, drop_response=0.04,
                                                     seed=11) as proxy:
        report = run_tables(join_url=proxy.url, send_url=proxy.url, event_code=created.event.code,
                            join_secret=created.event.join_secret,
                            tables=TABLES, games=games, workdir=workdir, timeout=240)
        check = check_counted(server.url, created.event.code, created.admin_token, report.sent_games)
    assert len(report.sent_games) == TABLES * games
    # the network really failed, in both directions, and the lost replies were answered as duplicates
    assert proxy.counters.requests_cut > 0 and proxy.counters.responses_cut > 0
    assert report.transport_failures > 0 and report.duplicates > 0
    assert report.undelivered == 0 and report.rejected == 0
    assert check.exactly_once, (check.missing[:5], check.unexpected[:5], check.mismatched[:5])
    assert check.stored == TABLES * games


def test_every_game_counted_exactly_once_under_drops(db_url: str, tmp_path: Path) -> None:
    _load(db_url, tmp_path, games=2)


@pytest.mark.slow
def test_every_game_counted_exactly_once_under_drops_full_size(db_url: str, tmp_path: Path) -> None:
    _load(db_url, tmp_path, games=10)


def test_two_hub_processes_share_one_postgresql_database(pg_url: str, tmp_path: Path) -> None:
    """Behind a load balancer a retry may reach another hub process: still stored once."""
    import random

    import httpx

    from hub.loadtest import random_game

    engine = db.make_engine(pg_url)
    db.migrate(engine)
    created = HubStore(engine).create_event("Two Hubs")
    engine.dispose()
    first, second = ServerProcess(pg_url), ServerProcess(pg_url)
    with ThreadPoolExecutor(2) as pool:  # start both at once, as a load balancer's pool would
        list(pool.map(ServerProcess.start, (first, second)))
    with first, second:
        joined = httpx.post(f"{first.url}/api/join", json={"event_code": created.event.code,
                                                           "table_name": "Table 0", "join_key": "j" * 32,
                                                           "join_secret": created.event.join_secret}).json()
        headers = {"Authorization": f"Bearer {joined['token']}"}
        path = f"/api/events/{created.event.code}/tables/{joined['table_id']}/results"
        game = random_game(random.Random(99))
        replies = [httpx.post(server.url + path, json=game, headers=headers) for server in (first, second, first)]
        assert [r.status_code for r in replies] == [201, 200, 200]
        assert len({r.json()["result_id"] for r in replies}) == 1

        with DropProxy(first.port, seed=3) as proxy_1, DropProxy(second.port, seed=4) as proxy_2:
            report = run_tables(join_url=proxy_1.url, send_url=[proxy_1.url, proxy_2.url],
                                event_code=created.event.code, join_secret=created.event.join_secret, tables=20,
                                games=3, workdir=tmp_path, timeout=120)
        check = check_counted(second.url, created.event.code, created.admin_token,
                              {**report.sent_games, game["game_id"]: sorted((p["name"], p["total"])
                                                                             for p in game["players"])})
    assert check.exactly_once and check.stored == 20 * 3 + 1
