"""The hub's storage operations: events, table tokens, idempotent result submission, corrections, audit.

Every write that changes a result also writes an audit row in the same transaction. Results are
unique per (event, game id): the first submission wins; a replay with the same sequence number and
content is answered as a duplicate, anything else is a conflict and stores nothing. The database
enforces the uniqueness, so two hub processes (or two retries racing) cannot both store a game.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from pydantic import ValidationError
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from hub import db
from hub.names import TextError, clean_text, lookalike_groups
from hub.rules import (
    CATEGORIES,
    DEFAULT_RANK_POINTS,
    FUJIKORO_GAME,
    CountedGame,
    CountedPlayer,
    Mode,
    escape_tiebreak,
    player_key,
    rank_points_table,
)
from hub.schema import (
    GameResult,
    GameResultV2,
    LiveUpdate,
    PaperResult,
    PlayerLine,
    PlayerResult,
    _check_players,
    check_lines,
    problem_sentence,
    scenario_number,
    v1_lines,
)

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
JOIN_SECRET_LENGTH = 10  # 32^10 = 2^50: out of reach of guessing through the join rate limit
#: A bound on what one leaked join secret can create (the largest conventions have a few hundred tables).
MAX_TABLES_PER_EVENT = 500
#: An organiser's browser stays signed in for one convention day.
ADMIN_SESSION_SECONDS = 12 * 3600


class HubError(ValueError):
    """A request the hub refuses; ``status`` is the HTTP status and ``code`` a stable machine word."""

    status = 400
    code = "bad_request"


class NotFoundError(HubError):
    status = 404
    code = "not_found"


class ConflictError(HubError):
    status = 409
    code = "conflict"


class ForbiddenError(HubError):
    status = 403
    code = "forbidden"


class UnauthorizedError(HubError):
    status = 401
    code = "unauthorized"


class InvalidError(HubError):
    status = 422
    code = "invalid"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def new_secret(length: int) -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


@dataclass(frozen=True, slots=True)
class EventInfo:
    id: int
    code: str
    name: str
    current_round: int
    rank_points: tuple[int, ...]
    round_open: bool = True
    join_secret: str = ""


@dataclass(frozen=True, slots=True)
class CreatedEvent:
    event: EventInfo
    admin_token: str


@dataclass(frozen=True, slots=True)
class TableInfo:
    id: int
    event_id: int
    name: str
    revoked: bool = False


@dataclass(frozen=True, slots=True)
class Joined:
    event: EventInfo
    table: TableInfo
    token: str


@dataclass(frozen=True, slots=True)
class SubmitOutcome:
    status: str  # "stored" or "duplicate"
    result_id: int
    round: int
    pending: bool = False


@dataclass(frozen=True, slots=True)
class AdminSession:
    event_id: int
    csrf_token: str
    expires_at: float


_SELECT_ROUND = sa.select(db.events.c.current_round, db.events.c.round_open).where(
    db.events.c.id == sa.bindparam("event_id")
)
_INSERT_RESULT = db.results.insert()
_INSERT_PLAYERS = db.result_players.insert()
_INSERT_AUDIT = db.audit.insert()
_DELETE_LIVE = db.live.delete().where(
    db.live.c.table_id == sa.bindparam("table_id"), db.live.c.game_id == sa.bindparam("game_id")
)
_TABLE_AUTH = (
    sa.select(db.tables.c.id.label("table_id"), db.tables.c.name.label("table_name"),
              db.tables.c.revoked.label("table_revoked"), db.events)
    .join(db.events, db.events.c.id == db.tables.c.event_id)
    .where(db.tables.c.token_hash == sa.bindparam("token_hash"))
)


class HubStore:
    """Storage for one hub process; thread-safe (FastAPI runs sync endpoints on a thread pool)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # SQLite has one writer per file: serialise this process's writers instead of spinning on
        # "database is locked". PostgreSQL takes concurrent writers and needs no lock.
        self._write_lock: threading.Lock | None = threading.Lock() if engine.dialect.name == "sqlite" else None
        #: Writes this process has committed: lets caches of public reads see this process's own changes
        #: at once (changes by other hub processes are seen through :meth:`version`).
        self.writes = 0

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        if self._write_lock is None:
            with self.engine.begin() as connection:
                yield connection
        else:
            with self._write_lock, self.engine.begin() as connection:
                yield connection
        self.writes += 1

    # ----------------------------------------------------------------------------- events, tokens
    def create_event(self, name: str, *, rank_points: Sequence[int] = DEFAULT_RANK_POINTS) -> CreatedEvent:
        try:
            name = clean_text(name)
        except TextError as error:
            raise InvalidError(f"the event name {error}") from error
        if not 1 <= len(name) <= 120:
            raise InvalidError("an event name has 1 to 120 characters")
        points = rank_points_table(rank_points)
        admin_token = "adm_" + secrets.token_urlsafe(24)
        join_secret = new_secret(JOIN_SECRET_LENGTH)
        for _attempt in range(20):
            code = new_secret(6)
            try:
                with self._write() as connection:
                    event_id = _new_id(connection.execute(
                        sa.insert(db.events).values(
                            code=code,
                            name=name,
                            admin_token_hash=hash_token(admin_token),
                            current_round=1,
                            rank_points=",".join(map(str, points)),
                            created_at=now_iso(),
                            join_secret=join_secret,
                            round_open=True,
                        )
                    ).inserted_primary_key)
                    self._audit(connection, event_id, None, "event_created", "admin", None, None, {"name": name})
            except IntegrityError:
                continue
            return CreatedEvent(EventInfo(event_id, code, name, 1, points, True, join_secret), admin_token)
        raise ConflictError("could not find a free event code")  # pragma: no cover - 32^6 codes

    def event(self, code: str) -> EventInfo:
        with self.engine.connect() as connection:
            row = connection.execute(
                sa.select(db.events).where(db.events.c.code == code.strip().upper())
            ).first()
        if row is None:
            raise NotFoundError(f"no event with code {code!r}")
        return _event_info(row)

    def events(self) -> list[EventInfo]:
        with self.engine.connect() as connection:
            rows = connection.execute(sa.select(db.events).order_by(db.events.c.id)).all()
        return [_event_info(row) for row in rows]

    def is_admin(self, event: EventInfo, token: str | None) -> bool:
        if not token or not token.startswith("adm_"):
            return False
        with self.engine.connect() as connection:
            stored = connection.execute(
                sa.select(db.events.c.admin_token_hash).where(db.events.c.id == event.id)
            ).scalar_one()
        return secrets.compare_digest(stored, hash_token(token))

    def join(self, event_code: str, table_name: str, join_key: str, join_secret: str | None) -> Joined:
        """Give a table its token: the event's join secret is needed; the same join key gets a fresh
        token, another key cannot take the name, and a revoked table cannot come back by itself."""
        event = self.event(event_code)
        if not join_secret:
            raise ForbiddenError("this event needs its join secret; ask the organiser for it")
        if not secrets.compare_digest(
            hash_token(join_secret.strip().upper()), hash_token(event.join_secret.upper())
        ):
            raise ForbiddenError("the join secret is wrong; ask the organiser for this event's join secret")
        token = "tbl_" + secrets.token_urlsafe(24)
        key_hash = hash_token(join_key)
        with self._write() as connection:
            existing = _same_name(connection, event.id, table_name)
            if existing is not None:
                if not secrets.compare_digest(existing.join_key_hash, key_hash):
                    raise ConflictError(
                        f"table name {existing.name!r} is already taken in this event; pick another name"
                    )
                table_name = existing.name  # (the name as it was first given, whatever its case now)
                if existing.revoked:
                    raise ForbiddenError(f"table {table_name!r} was revoked by the organiser; ask them")
                connection.execute(
                    sa.update(db.tables).where(db.tables.c.id == existing.id).values(token_hash=hash_token(token))
                )
                table_id = existing.id
                action = "table_rejoined"
            else:
                tables = connection.execute(
                    sa.select(sa.func.count()).select_from(db.tables).where(db.tables.c.event_id == event.id)
                ).scalar_one()
                if tables >= MAX_TABLES_PER_EVENT:
                    raise ConflictError(
                        f"this event has {tables} tables already; the organiser can delete unused ones"
                    )
                table_id = _new_id(connection.execute(
                    sa.insert(db.tables).values(
                        event_id=event.id,
                        name=table_name,
                        token_hash=hash_token(token),
                        join_key_hash=key_hash,
                        created_at=now_iso(),
                    )
                ).inserted_primary_key)
                action = "table_joined"
            self._audit(connection, event.id, None, action, f"table:{table_name}", None, None, None)
        return Joined(event, TableInfo(table_id, event.id, table_name), token)

    def table_for_token(self, token: str | None) -> TableInfo | None:
        if not token:
            return None
        with self.engine.connect() as connection:
            row = connection.execute(
                sa.select(db.tables.c.id, db.tables.c.event_id, db.tables.c.name).where(
                    db.tables.c.token_hash == hash_token(token)
                )
            ).first()
        return None if row is None else TableInfo(row.id, row.event_id, row.name)

    def table_auth(self, event_code: str, token: str) -> tuple[EventInfo, TableInfo] | None:
        """One query for the hot path: the table a token belongs to and that table's event."""
        with self.engine.connect() as connection:
            row = connection.execute(_TABLE_AUTH, {"token_hash": hash_token(token)}).first()
        if row is None:
            return None
        return _event_info(row), TableInfo(row.table_id, row.id, row.table_name, bool(row.table_revoked))

    def tables(self, event: EventInfo) -> list[TableInfo]:
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(db.tables.c.id, db.tables.c.event_id, db.tables.c.name, db.tables.c.revoked)
                .where(db.tables.c.event_id == event.id)
                .order_by(db.tables.c.id)
            ).all()
        return [TableInfo(r.id, r.event_id, r.name, bool(r.revoked)) for r in rows]

    def set_round(self, event: EventInfo, round_number: int, actor: str = "admin") -> EventInfo:
        """Open round ``round_number``: results that arrive from now on count in it."""
        with self._write() as connection:
            connection.execute(
                sa.update(db.events).where(db.events.c.id == event.id)
                .values(current_round=round_number, round_open=True)
            )
            self._audit(
                connection, event.id, None, "round_opened", actor, None,
                {"round": event.current_round, "open": event.round_open}, {"round": round_number, "open": True},
            )
        return self.event(event.code)

    def close_round(self, event: EventInfo, actor: str = "admin") -> EventInfo:
        """Close the round in play: results that arrive now wait for the organiser's approval."""
        if not event.round_open:
            raise ConflictError(f"round {event.current_round} is already closed")
        with self._write() as connection:
            connection.execute(sa.update(db.events).where(db.events.c.id == event.id).values(round_open=False))
            self._audit(
                connection, event.id, None, "round_closed", actor, None,
                {"round": event.current_round, "open": True}, {"round": event.current_round, "open": False},
            )
        return self.event(event.code)

    # ----------------------------------------------------------------------------- the organiser's tables
    def _table(self, event: EventInfo, table_id: int) -> Any:
        with self.engine.connect() as connection:
            row = connection.execute(
                sa.select(db.tables).where(db.tables.c.id == table_id, db.tables.c.event_id == event.id)
            ).first()
        if row is None:
            raise NotFoundError(f"no table {table_id} in this event")
        return row

    def table_overview(self, event: EventInfo) -> list[dict[str, Any]]:
        """Every table with its state, its number of results and whether it shows a live game."""
        results = (
            sa.select(db.results.c.table_id, sa.func.count().label("n"))
            .where(db.results.c.event_id == event.id)
            .group_by(db.results.c.table_id)
            .subquery()
        )
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(db.tables, sa.func.coalesce(results.c.n, 0).label("results"),
                          db.live.c.updated_at.label("live_at"))
                .outerjoin(results, results.c.table_id == db.tables.c.id)
                .outerjoin(db.live, db.live.c.table_id == db.tables.c.id)
                .where(db.tables.c.event_id == event.id)
                .order_by(db.tables.c.id)
            ).all()
        return [
            {"table_id": r.id, "name": r.name, "revoked": bool(r.revoked), "joined_at": r.created_at,
             "results": int(r.results), "live_at": r.live_at}
            for r in rows
        ]

    def rename_table(self, event: EventInfo, table_id: int, name: str, *, reason: str,
                     actor: str = "admin") -> None:
        row = self._table(event, table_id)
        try:
            with self._write() as connection:
                other = _same_name(connection, event.id, name)
                if other is not None and other.id != table_id:
                    raise ConflictError(f"another table of this event is already called {other.name!r}")
                connection.execute(sa.update(db.tables).where(db.tables.c.id == table_id).values(name=name))
                self._audit(connection, event.id, None, "table_renamed", actor, reason,
                            {"table_id": table_id, "name": row.name}, {"table_id": table_id, "name": name})
        except IntegrityError as error:
            raise ConflictError(f"another table of this event is already called {name!r}") from error

    def set_table_revoked(self, event: EventInfo, table_id: int, revoked: bool, *, reason: str,
                          actor: str = "admin") -> None:
        """A revoked table's token stops working at once and it cannot join again by itself."""
        row = self._table(event, table_id)
        if bool(row.revoked) == revoked:
            raise ConflictError(f"table {row.name!r} is {'already' if revoked else 'not'} revoked")
        with self._write() as connection:
            values: dict[str, Any] = {"revoked": revoked}
            if revoked:  # a new random hash: the old token is dead even if the table is restored
                values["token_hash"] = hash_token("revoked_" + secrets.token_urlsafe(24))
            connection.execute(sa.update(db.tables).where(db.tables.c.id == table_id).values(**values))
            if revoked:
                connection.execute(sa.delete(db.live).where(db.live.c.table_id == table_id))
            self._audit(connection, event.id, None, "table_revoked" if revoked else "table_restored", actor,
                        reason, {"table_id": table_id, "name": row.name, "revoked": not revoked},
                        {"table_id": table_id, "name": row.name, "revoked": revoked})

    def delete_table(self, event: EventInfo, table_id: int, *, reason: str, actor: str = "admin") -> None:
        """Free a table name (a squatted "Table 12"); a table that sent results is revoked instead."""
        row = self._table(event, table_id)
        with self._write() as connection:
            sent = connection.execute(
                sa.select(sa.func.count()).select_from(db.results).where(db.results.c.table_id == table_id)
            ).scalar_one()
            if sent:
                raise ConflictError(
                    f"table {row.name!r} has sent {sent} result(s); revoke it (and rename it) instead of deleting it"
                )
            connection.execute(sa.delete(db.live).where(db.live.c.table_id == table_id))
            connection.execute(sa.delete(db.tables).where(db.tables.c.id == table_id))
            self._audit(connection, event.id, None, "table_deleted", actor, reason,
                        {"table_id": table_id, "name": row.name}, None)

    def remove_live(self, event: EventInfo, table_id: int, *, reason: str, actor: str = "admin") -> None:
        row = self._table(event, table_id)
        with self._write() as connection:
            removed = connection.execute(sa.delete(db.live).where(db.live.c.table_id == table_id)).rowcount
            if not removed:
                raise NotFoundError(f"table {row.name!r} shows no live game")
            self._audit(connection, event.id, None, "live_removed", actor, reason,
                        {"table_id": table_id, "name": row.name}, None)

    def rotate_join_secret(self, event: EventInfo, actor: str = "admin") -> str:
        """A new join secret (tables that joined keep their tokens)."""
        secret = new_secret(JOIN_SECRET_LENGTH)
        with self._write() as connection:
            connection.execute(sa.update(db.events).where(db.events.c.id == event.id).values(join_secret=secret))
            self._audit(connection, event.id, None, "join_secret_rotated", actor, None, None, None)
        return secret

    # ----------------------------------------------------------------------------- admin tokens, sessions
    def rotate_admin_token(self, event: EventInfo, actor: str = "admin") -> str:
        """A new admin token; the old one and every signed-in browser stop working at once."""
        token = "adm_" + secrets.token_urlsafe(24)
        self._replace_admin_token(event, hash_token(token), "admin_token_rotated", actor)
        return token

    def revoke_admin_token(self, event: EventInfo, actor: str = "admin") -> None:
        """No admin token works for the event until the next rotation (a leaked token, a lost laptop)."""
        self._replace_admin_token(event, "revoked:" + secrets.token_hex(24), "admin_token_revoked", actor)

    def _replace_admin_token(self, event: EventInfo, token_hash: str, action: str, actor: str) -> None:
        with self._write() as connection:
            connection.execute(
                sa.update(db.events).where(db.events.c.id == event.id).values(admin_token_hash=token_hash)
            )
            connection.execute(sa.delete(db.admin_sessions).where(db.admin_sessions.c.event_id == event.id))
            self._audit(connection, event.id, None, action, actor, None, None, None)

    def create_session(self, event: EventInfo, *, now: float, lifetime: float = ADMIN_SESSION_SECONDS) -> str:
        """A signed-in browser: returns the random session id for its cookie (only its hash is stored)."""
        session_id = secrets.token_urlsafe(32)
        with self._write() as connection:
            connection.execute(sa.delete(db.admin_sessions).where(db.admin_sessions.c.expires_at < now))
            connection.execute(
                sa.insert(db.admin_sessions).values(
                    id_hash=hash_token(session_id), event_id=event.id, csrf_token=secrets.token_urlsafe(32),
                    created_at=now_iso(), expires_at=now + lifetime,
                )
            )
            self._audit(connection, event.id, None, "admin_signed_in", "admin", None, None, None)
        return session_id

    def session(self, event: EventInfo, session_id: str | None, *, now: float) -> AdminSession | None:
        if not session_id:
            return None
        with self.engine.connect() as connection:
            row = connection.execute(
                sa.select(db.admin_sessions).where(db.admin_sessions.c.id_hash == hash_token(session_id))
            ).first()
        if row is None or row.event_id != event.id or row.expires_at <= now:
            return None
        return AdminSession(row.event_id, row.csrf_token, row.expires_at)

    def end_session(self, session_id: str | None) -> None:
        if session_id:
            with self._write() as connection:
                connection.execute(
                    sa.delete(db.admin_sessions).where(db.admin_sessions.c.id_hash == hash_token(session_id))
                )

    # ----------------------------------------------------------------------------- results
    def submit_result(self, table: TableInfo, result: GameResult | GameResultV2) -> SubmitOutcome:
        """Store a finished game once; a replay is a duplicate, a different replay a conflict."""
        game_id = str(result.game_id)
        content_hash = result.content_hash()
        try:
            with self._write() as connection:
                # prebuilt statements with bound parameters: this is the hot path under load
                # The round in play when the result arrives; the game's own round counter never is one.
                current_round, round_open = connection.execute(_SELECT_ROUND, {"event_id": table.event_id}).one()
                round_number = int(current_round)
                pending = not round_open
                result_id = _new_id(connection.execute(
                    _INSERT_RESULT,
                    {
                        "event_id": table.event_id,
                        "table_id": table.id,
                        "game_id": game_id,
                        "seq": result.seq,
                        "content_hash": content_hash,
                        "submitted": _dumps(result.model_dump(mode="json")),
                        "round": round_number,
                        "mode": result.mode.value,
                        "scenario": result.scenario if isinstance(result, GameResult) else 0,
                        "duration_seconds": result.duration_seconds,
                        "received_at": now_iso(),
                        "void": False,
                        "revision": 1,
                        "pending": pending,
                        "source": "table",
                        "table_name": None,
                        "game": result.game,
                        "variant": result.variant,
                        "schema_version": result.schema_version,
                    },
                ).inserted_primary_key)
                self._insert_players(connection, result_id, result.lines(), result.escape_orders())
                connection.execute(_DELETE_LIVE, {"table_id": table.id, "game_id": game_id})
                self._audit(
                    connection, table.event_id, result_id, "submitted", f"table:{table.name}", None, None,
                    {"seq": result.seq, "content_hash": content_hash, "round": round_number, "pending": pending},
                )
            return SubmitOutcome("stored", result_id, round_number, pending)
        except IntegrityError:
            pass
        with self.engine.connect() as connection:
            row = connection.execute(
                sa.select(db.results).where(
                    db.results.c.event_id == table.event_id, db.results.c.table_id == table.id,
                    db.results.c.game_id == game_id,
                )
            ).first()
        if row is None:  # pragma: no cover - the unique row exists once the insert conflicted
            raise ConflictError("the result could not be stored; send it again")
        if row.seq != result.seq:
            raise ConflictError(
                f"game {game_id} is already stored with sequence number {row.seq}, not {result.seq}; "
                "ask the organizer to correct it"
            )
        if row.content_hash not in result.content_hashes():
            raise ConflictError(
                f"game {game_id} sequence {result.seq} was already stored with different content; "
                "nothing was changed - ask the organizer to correct it"
            )
        return SubmitOutcome("duplicate", row.id, row.round, bool(row.pending))

    def _insert_players(
        self, connection: Connection, result_id: int, lines: Sequence[PlayerLine], escape_orders: Sequence[int | None]
    ) -> None:
        connection.execute(
            _INSERT_PLAYERS,
            [
                {
                    "result_id": result_id,
                    "position": position,
                    "name": p.name,
                    "player_key": player_key(p.name)[:40],
                    "colour": p.colour,
                    "scores": _dumps(dict(p.scores)),
                    "tiebreak": p.tiebreak,
                    "total": p.total,
                    "rank": p.rank,
                    "escape_order": escape,
                }
                for position, (p, escape) in enumerate(zip(lines, escape_orders, strict=True))
            ],
        )

    def submit_live(self, table: TableInfo, update: LiveUpdate) -> str:
        """Keep the newest live scores of the table's game: one live row per table (a table plays one
        game at a time), older or repeated updates of the same game are ignored."""
        game_id = str(update.game_id)
        body = _dumps(update.model_dump(mode="json", exclude={"game_id"}))
        with self._write() as connection:
            finished = connection.execute(
                sa.select(db.results.c.id).where(
                    db.results.c.event_id == table.event_id, db.results.c.table_id == table.id,
                    db.results.c.game_id == game_id,
                )
            ).first()
            if finished is not None:
                return "finished"
            values = {"event_id": table.event_id, "game_id": game_id, "seq": update.seq, "body": body,
                      "updated_at": now_iso()}
            # RETURNING, not rowcount: psycopg reports -1 for an INSERT ... ON CONFLICT DO NOTHING
            inserted = connection.execute(
                _insert_ignoring_conflict(connection, db.live).values(table_id=table.id, **values)
                .returning(db.live.c.table_id)
            ).first()
            if inserted is not None:
                return "stored"
            # the table's row exists: replace it with a newer update of this game, or with another game
            updated = connection.execute(
                sa.update(db.live)
                .where(
                    db.live.c.table_id == table.id,
                    sa.or_(db.live.c.game_id != game_id, db.live.c.seq < update.seq),
                )
                .values(**values)
            ).rowcount
        return "stored" if updated else "stale"

    def version(self, event: EventInfo) -> tuple[Any, ...]:
        """Changes whenever anything the projector shows changes: every change writes an audit row,
        live scores bump their own timestamp. Lets many projectors share one rendered page."""
        with self.engine.connect() as connection:
            audit_id = connection.execute(
                sa.select(sa.func.max(db.audit.c.id)).where(db.audit.c.event_id == event.id)
            ).scalar()
            live_row = connection.execute(
                sa.select(sa.func.count(), sa.func.max(db.live.c.updated_at), sa.func.sum(db.live.c.seq)).where(
                    db.live.c.event_id == event.id
                )
            ).one()
        return (audit_id, *tuple(live_row))

    def live_games(self, event: EventInfo) -> list[dict[str, Any]]:
        """The games being played, one per table; public, so without the game ids."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(db.live.c.body, db.live.c.updated_at, db.tables.c.name)
                .join(db.tables, db.tables.c.id == db.live.c.table_id)
                .where(db.live.c.event_id == event.id, db.tables.c.revoked.is_(False))
                .order_by(db.tables.c.name)
            ).all()
        games = []
        for r in rows:
            body = json.loads(r.body)
            body.pop("game_id", None)
            games.append({"table": r.name, "updated_at": r.updated_at, **body})
        return games

    def results(self, event: EventInfo, *, include_void: bool = True) -> list[dict[str, Any]]:
        """Every result of the event (current values after corrections), oldest first."""
        query = (
            sa.select(db.results, db.tables.c.name.label("current_table_name"))
            .outerjoin(db.tables, db.tables.c.id == db.results.c.table_id)
            .where(db.results.c.event_id == event.id)
            .order_by(db.results.c.id)
        )
        if not include_void:
            query = query.where(db.results.c.void.is_(False))
        with self.engine.connect() as connection:
            rows = connection.execute(query).all()
            ids = [r.id for r in rows]
            players: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}
            if ids:
                for chunk_start in range(0, len(ids), 500):
                    chunk = ids[chunk_start : chunk_start + 500]
                    for p in connection.execute(
                        sa.select(db.result_players)
                        .where(db.result_players.c.result_id.in_(chunk))
                        .order_by(db.result_players.c.result_id, db.result_players.c.position)
                    ).all():
                        players[p.result_id].append(_player_dict(p))
        return [
            {
                "result_id": r.id,
                "game_id": r.game_id,
                "seq": r.seq,
                "table": r.current_table_name if r.source == "table" else f"paper: {r.table_name or 'no table'}",
                "source": r.source,
                "round": r.round,
                "pending": bool(r.pending),
                "game": r.game,
                "variant": r.variant,
                "schema_version": r.schema_version,
                "mode": r.mode,
                # (schema 2 has no scenario: its column holds 0; the variant names Fuji Koro's)
                "scenario": r.scenario if r.schema_version == 1 else scenario_number(r.game, r.variant),
                "duration_seconds": r.duration_seconds,
                "received_at": r.received_at,
                "void": bool(r.void),
                "revision": r.revision,
                "content_hash": r.content_hash,
                "players": [_in_schema(p, r.schema_version) for p in players[r.id]],
            }
            for r in rows
        ]

    def result(self, event: EventInfo, result_id: int) -> dict[str, Any]:
        for row in self.results(event):
            if row["result_id"] == result_id:
                return row
        raise NotFoundError(f"no result {result_id} in this event")

    def counted_games(self, event: EventInfo, results: list[dict[str, Any]] | None = None) -> list[CountedGame]:
        """The games that count (not void); pass ``results`` already read to save a query."""
        rows = self.results(event, include_void=False) if results is None else [r for r in results if not r["void"]]
        return [  # a result waiting for the organiser's approval does not count yet
            CountedGame(
                result_id=r["result_id"],
                round=r["round"],
                table=r["table"],
                mode=Mode(r["mode"]),
                game=r["game"],
                players=tuple(
                    CountedPlayer(p["name"], p["total"], p["rank"],
                                  p["tiebreak"] if "tiebreak" in p else escape_tiebreak(p["escape_order"]))
                    for p in r["players"]
                ),
            )
            for r in rows
            if not r["pending"]
        ]

    def player_history(self, event: EventInfo, name: str) -> list[dict[str, Any]]:
        key = player_key(name)
        history = []
        for r in self.results(event):
            for p in r["players"]:
                if player_key(p["name"]) == key:
                    history.append(
                        {
                            "result_id": r["result_id"],
                            "round": r["round"],
                            "pending": r["pending"],
                            "table": r["table"],
                            "mode": r["mode"],
                            "scenario": r["scenario"],
                            "game": r["game"],
                            "variant": r["variant"],
                            "void": r["void"],
                            "players": len(r["players"]),
                            **p,
                        }
                    )
        return history

    # ----------------------------------------------------------------------------- admin changes
    def correct(
        self, event: EventInfo, result_id: int, players: Sequence[PlayerResult] | Sequence[PlayerLine], *,
        reason: str, round_number: int | None = None, actor: str = "admin",
    ) -> dict[str, Any]:
        """Replace a result's players: schema 1 players (a Fuji Koro result) or player lines (any game)."""
        before = self.result(event, result_id)
        mode = Mode(before["mode"])
        try:
            if all(isinstance(p, PlayerResult) for p in players):
                if before["game"] != FUJIKORO_GAME:
                    raise ValueError(f"this is a {before['game']} result: send its players as player lines "
                                     "(scores, total, tiebreak, rank)")
                v1 = [p for p in players if isinstance(p, PlayerResult)]
                _check_players(v1, mode)
                lines, escapes = v1_lines(v1), [p.escape_order for p in v1]
            else:
                lines = [p for p in players if isinstance(p, PlayerLine)]
                check_lines(lines, mode)
                escapes = [None] * len(lines)
        except ValueError as error:
            raise InvalidError(str(error)) from error
        with self._write() as connection:
            changed = connection.execute(
                sa.update(db.results)
                .where(db.results.c.id == result_id, db.results.c.revision == before["revision"])
                .values(
                    revision=before["revision"] + 1,
                    round=before["round"] if round_number is None else round_number,
                )
            ).rowcount
            if not changed:
                raise ConflictError("the result changed meanwhile; reload and try again")
            connection.execute(sa.delete(db.result_players).where(db.result_players.c.result_id == result_id))
            self._insert_players(connection, result_id, lines, escapes)
            after = {
                "round": before["round"] if round_number is None else round_number,
                "players": [p.model_dump(mode="json") for p in players],
            }
            self._audit(
                connection, event.id, result_id, "corrected", actor, reason,
                {"round": before["round"], "players": before["players"]}, after,
            )
        return self.result(event, result_id)

    def set_void(
        self, event: EventInfo, result_id: int, void: bool, *, reason: str, actor: str = "admin"
    ) -> dict[str, Any]:
        before = self.result(event, result_id)
        if before["void"] == void:
            raise ConflictError("the result is already void" if void else "the result is not void")
        with self._write() as connection:
            changed = connection.execute(
                sa.update(db.results)
                .where(db.results.c.id == result_id, db.results.c.revision == before["revision"])
                .values(void=void, revision=before["revision"] + 1)
            ).rowcount
            if not changed:
                raise ConflictError("the result changed meanwhile; reload and try again")
            self._audit(
                connection, event.id, result_id, "voided" if void else "restored", actor, reason,
                {"void": not void}, {"void": void},
            )
        return self.result(event, result_id)

    def approve(
        self, event: EventInfo, result_id: int, *, reason: str, round_number: int | None = None,
        actor: str = "admin",
    ) -> dict[str, Any]:
        """Count a result that arrived while no round was open, in its round or the one given."""
        before = self.result(event, result_id)
        if not before["pending"]:
            raise ConflictError(f"result {result_id} is not waiting for approval")
        new_round = before["round"] if round_number is None else round_number
        with self._write() as connection:
            changed = connection.execute(
                sa.update(db.results)
                .where(db.results.c.id == result_id, db.results.c.revision == before["revision"])
                .values(pending=False, round=new_round, revision=before["revision"] + 1)
            ).rowcount
            if not changed:
                raise ConflictError("the result changed meanwhile; reload and try again")
            self._audit(connection, event.id, result_id, "approved", actor, reason,
                        {"pending": True, "round": before["round"]}, {"pending": False, "round": new_round})
        return self.result(event, result_id)

    def enter_paper_result(self, event: EventInfo, paper: PaperResult, actor: str = "admin") -> dict[str, Any]:
        """A result typed in by the organiser from a paper score sheet; counts in the round given or
        the current one, and is audited like every change."""
        from hub.payload import PayloadError, build_lines, build_result_payload

        result: GameResult | GameResultV2
        try:
            if paper.game == FUJIKORO_GAME:
                result = GameResult.model_validate(build_result_payload(
                    [p.model_dump(exclude={"tiebreak"}) for p in paper.players], game_id=uuid.uuid4(), seq=0,
                    mode=paper.mode, scenario=paper.scenario, duration_seconds=0, table_order=paper.table_order,
                ))
            else:
                result = GameResultV2.model_validate({
                    "schema_version": 2, "game": paper.game, "game_id": str(uuid.uuid4()), "seq": 0,
                    "mode": paper.mode.value, "duration_seconds": 0,
                    "players": build_lines([p.model_dump(exclude={"escape_order"}) for p in paper.players],
                                           table_order=paper.table_order),
                })
        except ValidationError as error:
            raise InvalidError(f"the paper result is not valid: {problem_sentence(error)}") from error
        except (PayloadError, ValueError) as error:
            raise InvalidError(f"the paper result is not valid: {error}") from error
        round_number = paper.round if paper.round is not None else event.current_round
        with self._write() as connection:
            result_id = _new_id(connection.execute(
                _INSERT_RESULT,
                {
                    "event_id": event.id, "table_id": None, "game_id": str(result.game_id), "seq": 0,
                    "content_hash": result.content_hash(), "submitted": _dumps(result.model_dump(mode="json")),
                    "round": round_number, "mode": result.mode.value,
                    "scenario": result.scenario if isinstance(result, GameResult) else 0,
                    "duration_seconds": 0, "received_at": now_iso(), "void": False, "revision": 1,
                    "pending": False, "source": "paper", "table_name": paper.table_name,
                    "game": result.game, "variant": result.variant, "schema_version": result.schema_version,
                },
            ).inserted_primary_key)
            self._insert_players(connection, result_id, result.lines(), result.escape_orders())
            self._audit(connection, event.id, result_id, "entered_by_hand", actor, paper.reason, None,
                        {"round": round_number, "table": paper.table_name,
                         "players": [p.model_dump(mode="json") for p in result.players]})
        return self.result(event, result_id)

    def lookalike_names(self, event: EventInfo, results: list[dict[str, Any]] | None = None) -> list[list[str]]:
        """Player and table names of the event that differ but look alike (flagged on the admin page)."""
        names = [p["name"] for r in (self.results(event) if results is None else results) for p in r["players"]]
        players = lookalike_groups(names)
        tables = lookalike_groups(t.name for t in self.tables(event))
        return players + tables

    def audit_log(self, event: EventInfo) -> list[dict[str, Any]]:
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(db.audit).where(db.audit.c.event_id == event.id).order_by(db.audit.c.id)
            ).all()
        return [
            {
                "id": r.id,
                "at": r.at,
                "action": r.action,
                "actor": r.actor,
                "result_id": r.result_id,
                "reason": r.reason,
                "before": None if r.before is None else json.loads(r.before),
                "after": None if r.after is None else json.loads(r.after),
            }
            for r in rows
        ]

    def _audit(
        self, connection: Connection, event_id: int, result_id: int | None, action: str, actor: str,
        reason: str | None, before: Any, after: Any,
    ) -> None:
        connection.execute(
            _INSERT_AUDIT,
            {
                "event_id": event_id,
                "result_id": result_id,
                "action": action,
                "actor": actor[:64],
                "reason": reason,
                "before": None if before is None else _dumps(before),
                "after": None if after is None else _dumps(after),
                "at": now_iso(),
            },
        )


def _same_name(connection: Connection, event_id: int, name: str) -> Any:
    """The event's table called ``name``, ignoring case ("Table 1" and "TABLE 1" are one name on the projector;
    white space is already folded by clean_text), or None."""
    key = name.casefold()
    rows = connection.execute(sa.select(db.tables).where(db.tables.c.event_id == event_id)).all()
    return next((row for row in rows if row.name.casefold() == key), None)


def _new_id(primary_key: Any) -> int:
    """The id of the row an INSERT just created."""
    assert primary_key is not None
    return int(primary_key[0])


def _insert_ignoring_conflict(connection: Connection, table: sa.Table) -> Any:
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table).on_conflict_do_nothing()
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table).on_conflict_do_nothing()


def _event_info(row: Any) -> EventInfo:
    return EventInfo(
        row.id, row.code, row.name, row.current_round, tuple(int(v) for v in row.rank_points.split(",")),
        bool(row.round_open), row.join_secret or "",
    )


def _in_schema(player: dict[str, Any], schema_version: int) -> dict[str, Any]:
    """A player as the schema its result came in shows it: schema 1 (Fuji Koro) with its escape order,
    schema 2 with the game's tie-break value."""
    drop = "tiebreak" if schema_version == 1 else "escape_order"
    return {k: v for k, v in player.items() if k != drop}


def _player_dict(p: Any) -> dict[str, Any]:
    return {
        "name": p.name,
        "colour": p.colour,
        "scores": json.loads(p.scores) if p.scores else {name: getattr(p, name) for name in CATEGORIES},
        "total": p.total,
        "tiebreak": p.tiebreak,
        "rank": p.rank,
        "escape_order": p.escape_order,
    }
