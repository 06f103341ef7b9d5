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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from hub import db
from hub.rules import (
    CATEGORIES,
    DEFAULT_RANK_POINTS,
    CountedGame,
    Mode,
    PlayerLine,
    player_key,
    rank_points_table,
)
from hub.schema import GameResult, LiveUpdate, PlayerResult, _check_players

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


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


@dataclass(frozen=True, slots=True)
class EventInfo:
    id: int
    code: str
    name: str
    current_round: int
    rank_points: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CreatedEvent:
    event: EventInfo
    admin_token: str


@dataclass(frozen=True, slots=True)
class TableInfo:
    id: int
    event_id: int
    name: str


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


_SELECT_ROUND = sa.select(db.events.c.current_round).where(db.events.c.id == sa.bindparam("event_id"))
_INSERT_RESULT = db.results.insert()
_INSERT_PLAYERS = db.result_players.insert()
_INSERT_AUDIT = db.audit.insert()
_DELETE_LIVE = db.live.delete().where(
    db.live.c.event_id == sa.bindparam("event_id"), db.live.c.game_id == sa.bindparam("game_id")
)
_TABLE_AUTH = (
    sa.select(db.tables.c.id.label("table_id"), db.tables.c.name.label("table_name"), db.events)
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

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        if self._write_lock is None:
            with self.engine.begin() as connection:
                yield connection
            return
        with self._write_lock, self.engine.begin() as connection:
            yield connection

    # ----------------------------------------------------------------------------- events, tokens
    def create_event(self, name: str, *, rank_points: Sequence[int] = DEFAULT_RANK_POINTS) -> CreatedEvent:
        name = " ".join(name.split())
        if not 1 <= len(name) <= 120:
            raise InvalidError("an event name has 1 to 120 characters")
        points = rank_points_table(rank_points)
        admin_token = "adm_" + secrets.token_urlsafe(24)
        for _attempt in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))
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
                        )
                    ).inserted_primary_key)
                    self._audit(connection, event_id, None, "event_created", "admin", None, None, {"name": name})
            except IntegrityError:
                continue
            return CreatedEvent(EventInfo(event_id, code, name, 1, points), admin_token)
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
        if not token:
            return False
        with self.engine.connect() as connection:
            stored = connection.execute(
                sa.select(db.events.c.admin_token_hash).where(db.events.c.id == event.id)
            ).scalar_one()
        return secrets.compare_digest(stored, hash_token(token))

    def join(self, event_code: str, table_name: str, join_key: str) -> Joined:
        """Give a table its token; the same join key gets a fresh token, another key cannot take the name."""
        event = self.event(event_code)
        token = "tbl_" + secrets.token_urlsafe(24)
        key_hash = hash_token(join_key)
        with self._write() as connection:
            existing = connection.execute(
                sa.select(db.tables).where(db.tables.c.event_id == event.id, db.tables.c.name == table_name)
            ).first()
            if existing is not None:
                if not secrets.compare_digest(existing.join_key_hash, key_hash):
                    raise ConflictError(
                        f"table name {table_name!r} is already taken in this event; pick another name"
                    )
                connection.execute(
                    sa.update(db.tables).where(db.tables.c.id == existing.id).values(token_hash=hash_token(token))
                )
                table_id = existing.id
                action = "table_rejoined"
            else:
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
        return _event_info(row), TableInfo(row.table_id, row.id, row.table_name)

    def tables(self, event: EventInfo) -> list[TableInfo]:
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(db.tables.c.id, db.tables.c.event_id, db.tables.c.name)
                .where(db.tables.c.event_id == event.id)
                .order_by(db.tables.c.id)
            ).all()
        return [TableInfo(r.id, r.event_id, r.name) for r in rows]

    def set_round(self, event: EventInfo, round_number: int, actor: str = "admin") -> EventInfo:
        with self._write() as connection:
            connection.execute(
                sa.update(db.events).where(db.events.c.id == event.id).values(current_round=round_number)
            )
            self._audit(
                connection, event.id, None, "round_set", actor, None,
                {"round": event.current_round}, {"round": round_number},
            )
        return self.event(event.code)

    # ----------------------------------------------------------------------------- results
    def submit_result(self, table: TableInfo, result: GameResult) -> SubmitOutcome:
        """Store a finished game once; a replay is a duplicate, a different replay a conflict."""
        game_id = str(result.game_id)
        content_hash = result.content_hash()
        try:
            with self._write() as connection:
                # prebuilt statements with bound parameters: this is the hot path under load
                current_round = connection.execute(_SELECT_ROUND, {"event_id": table.event_id}).scalar_one()
                round_number = result.round if result.round is not None else current_round
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
                        "scenario": result.scenario,
                        "duration_seconds": result.duration_seconds,
                        "received_at": now_iso(),
                        "void": False,
                        "revision": 1,
                    },
                ).inserted_primary_key)
                self._insert_players(connection, result_id, result.players)
                connection.execute(_DELETE_LIVE, {"event_id": table.event_id, "game_id": game_id})
                self._audit(
                    connection, table.event_id, result_id, "submitted", f"table:{table.name}", None, None,
                    {"seq": result.seq, "content_hash": content_hash},
                )
            return SubmitOutcome("stored", result_id, round_number)
        except IntegrityError:
            pass
        with self.engine.connect() as connection:
            row = connection.execute(
                sa.select(db.results).where(db.results.c.event_id == table.event_id, db.results.c.game_id == game_id)
            ).first()
        if row is None:  # pragma: no cover - the unique row exists once the insert conflicted
            raise ConflictError("the result could not be stored; send it again")
        if row.table_id != table.id:
            raise ConflictError(f"game {game_id} was already sent by another table")
        if row.seq != result.seq:
            raise ConflictError(
                f"game {game_id} is already stored with sequence number {row.seq}, not {result.seq}; "
                "ask the organizer to correct it"
            )
        if row.content_hash != content_hash:
            raise ConflictError(
                f"game {game_id} sequence {result.seq} was already stored with different content; "
                "nothing was changed - ask the organizer to correct it"
            )
        return SubmitOutcome("duplicate", row.id, row.round)

    def _insert_players(self, connection: Connection, result_id: int, players: Sequence[PlayerResult]) -> None:
        connection.execute(
            _INSERT_PLAYERS,
            [
                {
                    "result_id": result_id,
                    "position": position,
                    "name": p.name,
                    "player_key": player_key(p.name)[:40],
                    "colour": p.colour,
                    **{name: int(getattr(p.scores, name)) for name in CATEGORIES},
                    "total": p.total,
                    "rank": p.rank,
                    "escape_order": p.escape_order,
                }
                for position, p in enumerate(players)
            ],
        )

    def submit_live(self, table: TableInfo, update: LiveUpdate) -> str:
        """Keep the newest live scores of a game; older or repeated updates are ignored."""
        game_id = str(update.game_id)
        body = _dumps(update.model_dump(mode="json"))
        with self._write() as connection:
            finished = connection.execute(
                sa.select(db.results.c.id).where(
                    db.results.c.event_id == table.event_id, db.results.c.game_id == game_id
                )
            ).first()
            if finished is not None:
                return "finished"
            row = connection.execute(
                sa.select(db.live.c.seq, db.live.c.table_id).where(
                    db.live.c.event_id == table.event_id, db.live.c.game_id == game_id
                )
            ).first()
            if row is not None and row.table_id != table.id:
                raise ConflictError(f"game {game_id} is being played at another table")
            if row is not None and row.seq >= update.seq:
                return "stale"
            values = {"table_id": table.id, "seq": update.seq, "body": body, "updated_at": now_iso()}
            if row is None:
                inserted = connection.execute(
                    _insert_ignoring_conflict(connection, db.live)
                    .values(event_id=table.event_id, game_id=game_id, **values)
                ).rowcount
                if inserted:
                    return "stored"
                # another hub process inserted it meanwhile: fall through to the guarded update
            updated = connection.execute(
                sa.update(db.live)
                .where(
                    db.live.c.event_id == table.event_id,
                    db.live.c.game_id == game_id,
                    db.live.c.table_id == table.id,
                    db.live.c.seq < update.seq,
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
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(db.live.c.body, db.live.c.updated_at, db.tables.c.name)
                .join(db.tables, db.tables.c.id == db.live.c.table_id)
                .where(db.live.c.event_id == event.id)
                .order_by(db.tables.c.name)
            ).all()
        return [{"table": r.name, "updated_at": r.updated_at, **json.loads(r.body)} for r in rows]

    def results(self, event: EventInfo, *, include_void: bool = True) -> list[dict[str, Any]]:
        """Every result of the event (current values after corrections), oldest first."""
        query = (
            sa.select(db.results, db.tables.c.name.label("table_name"))
            .join(db.tables, db.tables.c.id == db.results.c.table_id)
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
                "table": r.table_name,
                "round": r.round,
                "mode": r.mode,
                "scenario": r.scenario,
                "duration_seconds": r.duration_seconds,
                "received_at": r.received_at,
                "void": bool(r.void),
                "revision": r.revision,
                "content_hash": r.content_hash,
                "players": players[r.id],
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
        return [
            CountedGame(
                result_id=r["result_id"],
                round=r["round"],
                table=r["table"],
                mode=Mode(r["mode"]),
                players=tuple(
                    PlayerLine(p["name"], p["total"], p["rank"], p["escape_order"]) for p in r["players"]
                ),
            )
            for r in rows
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
                            "game_id": r["game_id"],
                            "round": r["round"],
                            "table": r["table"],
                            "mode": r["mode"],
                            "scenario": r["scenario"],
                            "void": r["void"],
                            "players": len(r["players"]),
                            **p,
                        }
                    )
        return history

    # ----------------------------------------------------------------------------- admin changes
    def correct(
        self, event: EventInfo, result_id: int, players: Sequence[PlayerResult], *, reason: str,
        round_number: int | None = None, actor: str = "admin",
    ) -> dict[str, Any]:
        before = self.result(event, result_id)
        try:
            _check_players(list(players), Mode(before["mode"]))
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
            self._insert_players(connection, result_id, players)
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
        row.id, row.code, row.name, row.current_round, tuple(int(v) for v in row.rank_points.split(","))
    )


def _player_dict(p: Any) -> dict[str, Any]:
    return {
        "name": p.name,
        "colour": p.colour,
        "scores": {name: getattr(p, name) for name in CATEGORIES},
        "total": p.total,
        "rank": p.rank,
        "escape_order": p.escape_order,
    }
