"""A game's command log on disk: one SQLite file per game, durable before a command is acknowledged.

Generic: it stores a header (which game, the version of its rules data, the setup and any blobs the game
needs to replay exactly, such as the data pack) and the session records of :mod:`companion.engine`.
The file runs in WAL mode with ``synchronous=FULL``: :meth:`GameFile.append` returns only after its
transaction has committed and the WAL is synced, so an acknowledged command survives a crash or a flat
battery, and SQLite's recovery means the file always opens. A new file is built under a temporary name
and renamed into place, so a crash while creating never leaves a half-made game behind.

Also the JSON-lines export and import of a whole log.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.engine import Record, RecordKind, ReplayError

FORMAT = 1
SUFFIX = ".fujikoro-game"
#: The meta key of a game's random id (not part of the header: an imported copy is a game of its own)
GAME_ID_KEY = "game_id"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    seq INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    command TEXT,
    description TEXT NOT NULL,
    automated INTEGER NOT NULL,
    forced INTEGER NOT NULL,
    at REAL NOT NULL,
    message TEXT
);
"""


class StoreError(ValueError):
    """A game file that cannot be created, opened or written; the message names the file."""


class ConflictError(StoreError):
    """Another process appended to the same game in the meantime."""


@dataclass(frozen=True, slots=True)
class Header:
    """What a log needs besides its records to replay: the game, its data version, setup and blobs."""

    game: str
    version: str
    config: dict[str, Any]
    data: dict[str, Any] = field(default_factory=dict)
    created_at: float = 0.0
    format: int = FORMAT

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "game": self.game,
            "version": self.version,
            "config": self.config,
            "data": self.data,
            "created_at": self.created_at,
        }

    @classmethod
    def from_json(cls, obj: Any) -> Header:
        if not isinstance(obj, dict) or not isinstance(obj.get("game"), str):
            raise StoreError('the first line of a game export is its header with a "game" name')
        fmt = obj.get("format", FORMAT)
        if fmt != FORMAT:
            raise StoreError(f"this app reads game log format {FORMAT}, the export has format {fmt!r}")
        config = obj.get("config")
        data = obj.get("data", {})
        if not isinstance(config, dict) or not isinstance(data, dict):
            raise StoreError("the header's config and data must be JSON objects")
        return cls(obj["game"], str(obj.get("version", "")), config, data, float(obj.get("created_at", 0.0)), fmt)


@dataclass(frozen=True, slots=True)
class Stamped:
    """A record with the wall-clock time it was stored (for play dates and durations)."""

    record: Record
    at: float


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, timeout=10.0, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA busy_timeout=10000")
    return conn


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class GameFile:
    """One game's SQLite file. Implements the engine's Journal: ``append`` is durable when it returns."""

    def __init__(self, path: Path, conn: sqlite3.Connection, header: Header, *, clock: Callable[[], float]) -> None:
        self.path = path
        self._conn = conn
        self.header = header
        self._clock = clock
        row = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM records").fetchone()
        self._last_seq: int = int(row[0])

    # ---- creating and opening -------------------------------------------------------------
    @classmethod
    def create(
        cls,
        path: Path | str,
        header: Header,
        records: Iterable[Stamped] = (),
        *,
        clock: Callable[[], float] = time.time,
    ) -> GameFile:
        """A new game file (never overwrites one); the records, if any, come from an import."""
        path = Path(path)
        if path.exists():
            raise StoreError(f"{path} already exists; choose another file for a new game")
        path.parent.mkdir(parents=True, exist_ok=True)
        if not header.created_at:
            header = Header(header.game, header.version, header.config, header.data, clock(), header.format)
        tmp = path.with_name(f".{path.name}.creating-{os.getpid()}")
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            leftover.unlink(missing_ok=True)
        conn = _connect(tmp)
        try:
            conn.executescript(_SCHEMA)
            conn.execute("BEGIN IMMEDIATE")
            meta = header.to_json()
            conn.executemany(
                "INSERT INTO meta(key, value) VALUES (?, ?)", [(k, json.dumps(v)) for k, v in meta.items()]
            )
            conn.execute("INSERT INTO meta(key, value) VALUES (?, ?)", (GAME_ID_KEY, json.dumps(str(uuid.uuid4()))))
            expected = 1
            for stamped in records:
                if stamped.record.seq != expected:
                    raise StoreError(f"record {stamped.record.seq} follows record {expected - 1}: the log has a gap")
                conn.execute(
                    "INSERT INTO records (seq, kind, command, description, automated, forced, at, message) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    _row(stamped.record, stamped.at),
                )
                expected += 1
            conn.execute("COMMIT")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except BaseException:
            conn.close()
            for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
                leftover.unlink(missing_ok=True)
            raise
        conn.close()
        for leftover in (Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            leftover.unlink(missing_ok=True)
        if path.exists():
            tmp.unlink(missing_ok=True)
            raise StoreError(f"{path} already exists; choose another file for a new game")
        os.replace(tmp, path)
        _fsync_dir(path.parent)
        return cls.open(path, clock=clock)

    @classmethod
    def open(cls, path: Path | str, *, clock: Callable[[], float] = time.time) -> GameFile:
        path = Path(path)
        if not path.is_file():
            raise StoreError(f"there is no game file at {path}")
        try:
            conn = _connect(path)
            rows = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            columns = {row[1] for row in conn.execute("PRAGMA table_info(records)")}
            if "message" not in columns:  # a file from before records kept their message (issue 16)
                conn.execute("ALTER TABLE records ADD COLUMN message TEXT")
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{path} is not a game file: {error}") from None
        rows.pop(GAME_ID_KEY, None)
        try:
            header = Header.from_json({k: json.loads(v) for k, v in rows.items()})
        except (StoreError, ValueError) as error:
            conn.close()
            raise StoreError(f"{path}: {error}") from None
        return cls(path, conn, header, clock=clock)

    def close(self) -> None:
        self._conn.close()

    def game_id(self) -> str:
        """This game's own random id (a UUID made with the game and kept in its file), what the
        convention hub knows the game by. A file from before ids existed gets one now, once."""
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (GAME_ID_KEY,)).fetchone()
            if row is None:
                value = str(uuid.uuid4())
                conn.execute("INSERT INTO meta(key, value) VALUES (?, ?)", (GAME_ID_KEY, json.dumps(value)))
            else:
                value = str(json.loads(row[0]))
            conn.execute("COMMIT")
        except sqlite3.Error as error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise StoreError(f"could not read the game id of {self.path}: {error}") from None
        return value

    def __enter__(self) -> GameFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- the log ------------------------------------------------------------------------------
    @property
    def last_seq(self) -> int:
        return self._last_seq

    def append(self, record: Record) -> None:
        """Store one record durably. Raises ConflictError if another process wrote in between."""
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            (last,) = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM records").fetchone()
            if last != record.seq - 1:
                conn.execute("ROLLBACK")
                raise ConflictError(
                    f"{self.path} changed meanwhile (it has record {last}); reopen the game and try again"
                )
            conn.execute("INSERT INTO records (seq, kind, command, description, automated, forced, at, message) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", _row(record, self._clock()))
            conn.execute("COMMIT")
        except sqlite3.Error as error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise StoreError(f"could not save to {self.path}: {error}") from None
        self._last_seq = record.seq

    def stamped(self) -> list[Stamped]:
        rows = self._conn.execute(
            "SELECT seq, kind, command, description, automated, forced, at, message FROM records ORDER BY seq"
        ).fetchall()
        out: list[Stamped] = []
        for seq, kind, command, description, automated, forced, at, message in rows:
            try:
                parsed = None if command is None else json.loads(command)
                said = None if message is None else json.loads(message)
                record = Record(seq, RecordKind(kind), parsed, description, bool(automated), bool(forced),
                                said if isinstance(said, dict) else None)
            except (ValueError, TypeError) as error:
                raise ReplayError(f"{self.path}: record {seq} is damaged: {error}") from None
            out.append(Stamped(record, float(at)))
        return out

    def records(self) -> list[Record]:
        return [s.record for s in self.stamped()]

    def integrity_ok(self) -> bool:
        (result,) = self._conn.execute("PRAGMA integrity_check").fetchone()
        return bool(result == "ok")

    # ---- JSON lines ---------------------------------------------------------------------------
    def export_lines(self) -> Iterator[str]:
        yield json.dumps(self.header.to_json(), separators=(",", ":"))
        for stamped in self.stamped():
            line = stamped.record.to_json()
            line["at"] = stamped.at
            yield json.dumps(line, separators=(",", ":"), sort_keys=True)


def _row(record: Record, at: float) -> tuple[object, ...]:
    command = None if record.command is None else json.dumps(record.command, separators=(",", ":"), sort_keys=True)
    message = None if record.message is None else json.dumps(record.message, separators=(",", ":"))
    return (record.seq, record.kind.value, command, str(record.description), int(record.automated),
            int(record.forced), at, message)


def parse_lines(lines: Sequence[str] | Iterable[str]) -> tuple[Header, list[Stamped]]:
    """A JSON-lines export: the header line, then one record per line."""
    header: Header | None = None
    stamped: list[Stamped] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as error:
            raise StoreError(f"line {number} is not JSON: {error.msg}") from None
        if header is None:
            header = Header.from_json(obj)
            continue
        if not isinstance(obj, dict):
            raise StoreError(f"line {number} is not a log record")
        try:
            record = Record.from_json(obj)
        except ReplayError as error:
            raise StoreError(f"line {number}: {error}") from None
        if record.seq != len(stamped) + 1:
            raise StoreError(f"line {number} holds record {record.seq} after record {len(stamped)}: the log has a gap")
        at = obj.get("at", header.created_at)
        stamped.append(Stamped(record, float(at) if isinstance(at, int | float) else header.created_at))
    if header is None:
        raise StoreError("the export is empty")
    return header, stamped
