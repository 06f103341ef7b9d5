"""The hub's database: table definitions (SQLAlchemy Core), engine creation and migrations at start.

SQLite (a file on the organizer's laptop) is the default; PostgreSQL by URL when several hub
processes share one database. The schema is created and upgraded only by the Alembic migrations in
``hub/migrations`` (run programmatically by :func:`migrate`); the tables below mirror them for queries,
and a test checks the two agree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine, make_url

metadata = sa.MetaData()

events = sa.Table(
    "events",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("code", sa.String(16), nullable=False, unique=True),
    sa.Column("name", sa.String(120), nullable=False),
    sa.Column("admin_token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("current_round", sa.Integer, nullable=False),
    sa.Column("rank_points", sa.String(80), nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    # 0002: the join secret tables need besides the public code; whether the current round is open
    sa.Column("join_secret", sa.String(32), nullable=True),
    sa.Column("round_open", sa.Boolean, nullable=False, server_default=sa.true()),
)

tables = sa.Table(
    "tables",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("join_key_hash", sa.String(64), nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("revoked", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.UniqueConstraint("event_id", "name", name="uq_tables_event_name"),
)

results = sa.Table(
    "results",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False),
    # NULL: typed in by the organiser from a paper score sheet (``source`` "paper")
    sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), nullable=True),
    sa.Column("game_id", sa.String(36), nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("content_hash", sa.String(64), nullable=False),
    sa.Column("submitted", sa.Text, nullable=False),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("mode", sa.String(16), nullable=False),
    sa.Column("scenario", sa.Integer, nullable=False),
    sa.Column("duration_seconds", sa.Integer, nullable=False),
    sa.Column("received_at", sa.String(32), nullable=False),
    sa.Column("void", sa.Boolean, nullable=False),
    sa.Column("revision", sa.Integer, nullable=False),
    # 0002: a result that arrived while no round was open waits for the organiser's approval
    sa.Column("pending", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("source", sa.String(8), nullable=False, server_default="table"),
    sa.Column("table_name", sa.String(40), nullable=True),
    # 0003: results of any game: its name, a variant (Fuji Koro: "scenario 3"), the schema it came in
    sa.Column("game", sa.String(32), nullable=False, server_default="fujikoro"),
    sa.Column("variant", sa.String(40), nullable=True),
    sa.Column("schema_version", sa.Integer, nullable=False, server_default="1"),
    # a game id is the table's own: another table cannot pre-empt it by sending the same id first
    sa.UniqueConstraint("event_id", "table_id", "game_id", name="uq_results_table_game"),
)

result_players = sa.Table(
    "result_players",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("result_id", sa.Integer, sa.ForeignKey("results.id"), nullable=False, index=True),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("player_key", sa.String(40), nullable=False, index=True),
    sa.Column("colour", sa.String(20), nullable=False),
    # 0001's Fuji Koro categories: kept for old rows, no longer written (0003: ``scores``)
    sa.Column("explored", sa.Integer, nullable=True),
    sa.Column("scrolls", sa.Integer, nullable=True),
    sa.Column("dragons", sa.Integer, nullable=True),
    sa.Column("gear_cards", sa.Integer, nullable=True),
    sa.Column("shogun", sa.Integer, nullable=True),
    sa.Column("scenario", sa.Integer, nullable=True),
    sa.Column("corrections", sa.Integer, nullable=True),
    sa.Column("total", sa.Integer, nullable=False),
    sa.Column("rank", sa.Integer, nullable=False),
    sa.Column("escape_order", sa.Integer, nullable=True),  # schema 1 (Fuji Koro) only
    # 0003: points by the game's own categories (JSON object) and the game's tie-break value
    sa.Column("scores", sa.Text, nullable=True),
    sa.Column("tiebreak", sa.Integer, nullable=True),
)

# One live row per table (0002): a table plays one game at a time, so a table cannot flood the projector.
live = sa.Table(
    "live",
    metadata,
    sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False, index=True),
    sa.Column("game_id", sa.String(36), nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("updated_at", sa.String(32), nullable=False),
)

audit = sa.Table(
    "audit",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False, index=True),
    sa.Column("result_id", sa.Integer, sa.ForeignKey("results.id"), nullable=True),
    sa.Column("action", sa.String(24), nullable=False),
    sa.Column("actor", sa.String(64), nullable=False),
    sa.Column("reason", sa.Text, nullable=True),
    sa.Column("before", sa.Text, nullable=True),
    sa.Column("after", sa.Text, nullable=True),
    sa.Column("at", sa.String(32), nullable=False),
)


# The organiser's signed-in browsers (0002): the cookie holds a random session id, never the admin token.
admin_sessions = sa.Table(
    "admin_sessions",
    metadata,
    sa.Column("id_hash", sa.String(64), primary_key=True),
    sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False, index=True),
    sa.Column("csrf_token", sa.String(64), nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
)


class DatabaseUrlError(ValueError):
    """A database URL the hub cannot use."""


def normalise_url(url: str) -> str:
    """Accept plain ``postgresql://`` URLs (psycopg 3 is the installed driver) and bare file paths."""
    if "://" not in url:
        return "sqlite:///" + str(Path(url).expanduser().resolve())
    try:
        parsed = make_url(url)
    except Exception as error:  # SQLAlchemy raises ArgumentError for unparsable URLs
        raise DatabaseUrlError(f"not a database URL: {url!r}") from error
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise DatabaseUrlError(f"the hub stores its data in SQLite or PostgreSQL, not {parsed.drivername!r}")
    if parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:"):
        raise DatabaseUrlError("the hub needs an SQLite file, not an in-memory database")
    return parsed.render_as_string(hide_password=False)


def make_engine(url: str) -> Engine:
    url = normalise_url(url)
    if url.startswith("sqlite"):
        engine = sa.create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @sa.event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            # FULL: a result the hub acknowledged is on disk when the reply leaves, so a power cut
            # cannot take it back after the tablet marked it sent (NORMAL in WAL mode can).
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        return engine
    # No pre-ping (a round trip per checkout): after a database restart the failed request gets a 500,
    # SQLAlchemy drops the dead connections, and the table's outbox retries - results are idempotent.
    return sa.create_engine(url, pool_size=10, max_overflow=30, pool_recycle=1800)


MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_LOCK_ID = 0x46554A49  # "FUJI": one advisory lock so hub processes starting together migrate one at a time


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to ``revision`` with the packaged Alembic migrations (safe to run every start)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.connect() as connection:
        is_postgres = connection.dialect.name == "postgresql"
        if is_postgres:
            connection.execute(sa.text("SELECT pg_advisory_lock(:id)"), {"id": _LOCK_ID})
            connection.commit()
        else:
            # SQLite changes a table by copying it (Alembic's batch mode): with foreign keys enforced, the
            # copy's DROP of the old table would fail for the rows that refer to it. Checked afterwards.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        try:
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
            connection.commit()
            if not is_postgres:
                broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                if broken:
                    raise RuntimeError(f"the migration left {len(broken)} rows with a broken reference")
        finally:
            if is_postgres:
                connection.execute(sa.text("SELECT pg_advisory_unlock(:id)"), {"id": _LOCK_ID})
                connection.commit()
            else:
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                connection.commit()


def head_revision() -> str:
    """The newest schema revision the packaged migrations build."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return str(head)


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
