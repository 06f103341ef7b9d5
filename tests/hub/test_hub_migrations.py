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
    assert db.current_revision(engine) == "0002"
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
    assert {db.current_revision(engine) for engine in engines} == {"0002"}
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
