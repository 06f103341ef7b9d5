"""The packaged Alembic migrations: they build exactly the schema the code queries, on SQLite and
PostgreSQL, are safe to run at every start, and hub processes starting together do not race."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from hub import db


def test_migrations_build_the_schema_the_code_uses(db_url: str) -> None:
    engine = db.make_engine(db_url)
    assert db.current_revision(engine) is None
    db.migrate(engine)
    db.migrate(engine)  # every start runs it: the second time is a no-op
    assert db.current_revision(engine) == db.head_revision() == "0003"
    with engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection, opts={"compare_type": True}),
                                       db.metadata)
    assert differences == []
    engine.dispose()


def test_hub_processes_starting_together_migrate_once(pg_url: str) -> None:
    engines = [db.make_engine(pg_url) for _ in range(4)]
    errors: list[BaseException] = []

    def start(engine: sa.Engine) -> None:
        try:
            db.migrate(engine)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=start, args=(engine,)) for engine in engines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert {db.current_revision(engine) for engine in engines} == {db.head_revision()}
    for engine in engines:
        engine.dispose()


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgresql://u:p@h/db", "postgresql+psycopg://u:p@h/db"),
        ("postgres://u@h:5433/db", "postgresql+psycopg://u@h:5433/db"),
        ("sqlite:////tmp/x.sqlite3", "sqlite:////tmp/x.sqlite3"),
    ],
)
def test_database_urls(url: str, expected: str) -> None:
    assert db.normalise_url(url) == expected


@pytest.mark.parametrize("url", ["mysql://h/db", "sqlite://", "sqlite:///:memory:", "http://example.com/db"])
def test_unusable_database_urls(url: str) -> None:
    with pytest.raises(db.DatabaseUrlError):
        db.normalise_url(url)


def test_an_event_from_before_the_upgrade_keeps_its_results(db_url: str) -> None:
    """A hub database of schema 0001 (results unique per event, live rows per game) upgrades in place: its
    results, tables and tokens stay, each event gets a join secret, and the round in play is open."""
    engine = db.make_engine(db_url)
    db.migrate(engine, "0001")
    with engine.begin() as connection:
        connection.execute(sa.text(
            "INSERT INTO events (id, code, name, admin_token_hash, current_round, rank_points, created_at) "
            "VALUES (1, 'OLDCON', 'Old Con', 'h', 2, '10,7,5', 'then')"))
        connection.execute(sa.text(
            "INSERT INTO tables (id, event_id, name, token_hash, join_key_hash, created_at) "
            "VALUES (1, 1, 'Table 1', 't', 'k', 'then')"))
        connection.execute(sa.text(
            "INSERT INTO results (id, event_id, table_id, game_id, seq, content_hash, submitted, round, mode, "
            "scenario, duration_seconds, received_at, void, revision) VALUES (1, 1, 1, 'g', 1, 'c', '{}', 2, "
            "'competitive', 0, 60, 'then', false, 1)"))
        connection.execute(sa.text(
            "INSERT INTO live (event_id, game_id, table_id, seq, body, updated_at) VALUES (1, 'g2', 1, 3, '{}', 'x')"))
    db.migrate(engine)
    from hub.storage import HubStore

    store = HubStore(engine)
    event = store.event("OLDCON")
    assert event.round_open and event.current_round == 2 and len(event.join_secret) == 10
    results = store.results(event)
    assert [(r["game_id"], r["table"], r["round"], r["pending"], r["source"]) for r in results] == [
        ("g", "Table 1", 2, False, "table")]
    assert store.tables(event)[0].revoked is False
    engine.dispose()
