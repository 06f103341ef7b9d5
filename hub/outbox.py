"""The tablet side of the hub: a durable outbox (its own SQLite file) and the sender that drains it.

A finished game goes into the outbox in one committed transaction, so it survives a crash, a flat
battery or a restart; the :class:`Sender` posts due messages to the hub and retries with exponential
backoff and jitter while the network is down. Exactly once: each message carries its idempotency key
(game id + sequence number) in the body; the hub stores a game once and answers a replay of the same
content as a duplicate, which the sender counts as delivered. A message the hub refuses for good
(409, 4xx) is kept as ``rejected`` with the hub's sentence for the send-status indicator - never
dropped silently. Live scores coalesce: only the newest pending update of a game is kept.
"""

from __future__ import annotations

import json
import random
import socket
import sqlite3
import ssl
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

import httpx


class OutboxError(ValueError):
    """A message or setting the outbox cannot take."""


class MessageKind(StrEnum):
    RESULT = "result"
    LIVE = "live"


class MessageState(StrEnum):
    PENDING = "pending"
    SENT = "sent"
    REJECTED = "rejected"


class Clock(Protocol):
    def __call__(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Credentials:
    """What a table needs to talk to the hub; kept in the outbox file so it survives restarts."""

    hub_url: str
    event_code: str
    table_id: int
    table_name: str
    token: str


@dataclass(frozen=True, slots=True)
class OutboxMessage:
    id: int
    kind: MessageKind
    key: str
    body: dict[str, Any]
    state: MessageState
    attempts: int
    next_attempt_at: float
    last_error: str | None


@dataclass(frozen=True, slots=True)
class OutboxStatus:
    """What the app's send-status indicator shows."""

    pending: int
    sent: int
    rejected: int
    last_error: str | None
    last_sent_at: float | None
    next_attempt_at: float | None
    connected: bool

    @property
    def label(self) -> str:
        if self.rejected:
            return f"{self.rejected} refused by the hub"
        if self.pending:
            if self.connected:
                return f"{self.pending} waiting to send"
            if self.last_error and NOT_THE_HUB in self.last_error:
                return f"{self.pending} waiting to send (not sent: the network answered, not the hub)"
            return f"{self.pending} waiting to send (hub unreachable)"
        return "all sent"


def default_outbox_path() -> Path:
    """Where the tablet keeps its outbox: FUJIKORO_DATA_DIR or the platform's user data folder."""
    from companion.paths import app_paths

    return app_paths().hub_outbox


_SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    key TEXT NOT NULL UNIQUE,
    game_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at REAL NOT NULL,
    last_error TEXT,
    created_at REAL NOT NULL,
    sent_at REAL
);
CREATE INDEX IF NOT EXISTS messages_due ON messages (state, next_attempt_at, id);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class Outbox:
    """A durable queue of messages for the hub in one SQLite file. Thread-safe."""

    def __init__(self, path: str | Path, *, clock: Clock = time.time, fsync: bool = True) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._clock = clock
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=30)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        # A tablet on battery: a queued game must be on disk before the app says "queued" (FULL). The
        # load harness turns this off only because its 200 simulated tablets share one disk.
        self._db.execute(f"PRAGMA synchronous={'FULL' if fsync else 'OFF'}")
        self._db.executescript(_SCHEMA)
        self._connected = True

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ------------------------------------------------------------------ credentials and settings
    def set_credentials(self, credentials: Credentials) -> None:
        """Store the hub login; held-back messages (e.g. after a bad token) become due at once."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._set(
                "credentials",
                json.dumps(
                    {"hub_url": credentials.hub_url.rstrip("/"), "event_code": credentials.event_code,
                     "table_id": credentials.table_id, "table_name": credentials.table_name,
                     "token": credentials.token}
                ),
            )
            self._db.execute(
                "UPDATE messages SET next_attempt_at = ? WHERE state = ?", (self._clock(), MessageState.PENDING)
            )

    def credentials(self) -> Credentials | None:
        text = self.get_setting("credentials")
        if text is None:
            return None
        data = json.loads(text)
        return Credentials(data["hub_url"], data["event_code"], int(data["table_id"]), data["table_name"],
                           data["token"])

    def join_key(self) -> str:
        """This tablet's private join key (created once): lets it re-join its own table name."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            row = self._db.execute("SELECT value FROM settings WHERE name = 'join_key'").fetchone()
            if row is not None:
                return str(row["value"])
            key = uuid.uuid4().hex + uuid.uuid4().hex
            self._set("join_key", key)
            return key

    def get_setting(self, name: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM settings WHERE name = ?", (name,)).fetchone()
        return None if row is None else str(row["value"])

    def _set(self, name: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
            (name, value),
        )

    # ------------------------------------------------------------------ enqueue
    def enqueue_result(self, payload: Mapping[str, Any]) -> str:
        """Queue a finished game (see :func:`hub.payload.build_result_payload`); returns its key.

        Queuing the same game and sequence number again is a no-op, so the session may call this
        again after a crash without creating a second copy.
        """
        game_id, seq = _identity(payload)
        key = f"result:{game_id}:{seq}"
        body = json.dumps(dict(payload), sort_keys=True)
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            existing = self._db.execute("SELECT body FROM messages WHERE key = ?", (key,)).fetchone()
            if existing is not None:
                if existing["body"] != body:
                    raise OutboxError(
                        f"game {game_id} sequence {seq} is already queued with different content; "
                        "use a new sequence number"
                    )
                return key
            self._insert(MessageKind.RESULT, key, game_id, seq, body)
        return key

    def enqueue_live(self, payload: Mapping[str, Any]) -> str:
        """Queue live scores; a pending older update of the same game is replaced, not sent."""
        game_id, seq = _identity(payload)
        key = f"live:{game_id}:{seq}"
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "DELETE FROM messages WHERE kind = ? AND game_id = ? AND state = ? AND seq < ?",
                (MessageKind.LIVE, game_id, MessageState.PENDING, seq),
            )
            if self._db.execute("SELECT 1 FROM messages WHERE key = ?", (key,)).fetchone() is None:
                self._insert(MessageKind.LIVE, key, game_id, seq, json.dumps(dict(payload), sort_keys=True))
        return key

    def _insert(self, kind: MessageKind, key: str, game_id: str, seq: int, body: str) -> None:
        now = self._clock()
        self._db.execute(
            "INSERT INTO messages (kind, key, game_id, seq, body, state, next_attempt_at, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (kind, key, game_id, seq, body, MessageState.PENDING, now, now),
        )

    # ------------------------------------------------------------------ reading and marking
    def due(self, limit: int = 50) -> list[OutboxMessage]:
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM messages WHERE state = ? AND next_attempt_at <= ? ORDER BY id LIMIT ?",
                (MessageState.PENDING, self._clock(), limit),
            ).fetchall()
        return [_message(row) for row in rows]

    def messages(self, state: MessageState | None = None) -> list[OutboxMessage]:
        with self._lock:
            if state is None:
                rows = self._db.execute("SELECT * FROM messages ORDER BY id").fetchall()
            else:
                rows = self._db.execute("SELECT * FROM messages WHERE state = ? ORDER BY id", (state,)).fetchall()
        return [_message(row) for row in rows]

    def next_due_at(self) -> float | None:
        with self._lock:
            row = self._db.execute(
                "SELECT MIN(next_attempt_at) AS at FROM messages WHERE state = ?", (MessageState.PENDING,)
            ).fetchone()
        return None if row["at"] is None else float(row["at"])

    def mark_sent(self, message_id: int) -> None:
        with self._lock, self._db:
            self._db.execute(
                "UPDATE messages SET state = ?, sent_at = ?, attempts = attempts + 1, last_error = NULL "
                "WHERE id = ?",
                (MessageState.SENT, self._clock(), message_id),
            )
        self._connected = True

    def mark_retry(self, message_id: int, error: str, delay: float, *, connected: bool) -> None:
        with self._lock, self._db:
            self._db.execute(
                "UPDATE messages SET attempts = attempts + 1, last_error = ?, next_attempt_at = ? WHERE id = ?",
                (error[:500], self._clock() + delay, message_id),
            )
        self._connected = connected

    def mark_rejected(self, message_id: int, error: str) -> None:
        with self._lock, self._db:
            self._db.execute(
                "UPDATE messages SET state = ?, attempts = attempts + 1, last_error = ? WHERE id = ?",
                (MessageState.REJECTED, error[:500], message_id),
            )
        self._connected = True

    def requeue_rejected(self) -> int:
        """Send refused messages again (after the organizer fixed the cause); returns how many."""
        with self._lock, self._db:
            return self._db.execute(
                "UPDATE messages SET state = ?, next_attempt_at = ? WHERE state = ?",
                (MessageState.PENDING, self._clock(), MessageState.REJECTED),
            ).rowcount

    def status(self) -> OutboxStatus:
        with self._lock:
            counts = {
                row["state"]: row["n"]
                for row in self._db.execute("SELECT state, COUNT(*) AS n FROM messages GROUP BY state")
            }
            last_sent = self._db.execute("SELECT MAX(sent_at) AS at FROM messages").fetchone()["at"]
            error_row = self._db.execute(
                "SELECT last_error FROM messages WHERE state != ? AND last_error IS NOT NULL "
                "ORDER BY id DESC LIMIT 1",
                (MessageState.SENT,),
            ).fetchone()
            next_row = self._db.execute(
                "SELECT MIN(next_attempt_at) AS at FROM messages WHERE state = ?", (MessageState.PENDING,)
            ).fetchone()
        return OutboxStatus(
            pending=counts.get(MessageState.PENDING, 0),
            sent=counts.get(MessageState.SENT, 0),
            rejected=counts.get(MessageState.REJECTED, 0),
            last_error=None if error_row is None else error_row["last_error"],
            last_sent_at=last_sent,
            next_attempt_at=next_row["at"],
            connected=self._connected,
        )


def _identity(payload: Mapping[str, Any]) -> tuple[str, int]:
    try:
        game_id = str(uuid.UUID(str(payload["game_id"])))
        seq = payload["seq"]
    except (KeyError, ValueError) as error:
        raise OutboxError("a message needs a UUID game_id and an integer seq") from error
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
        raise OutboxError("seq must be a non-negative integer")
    return game_id, seq


def _message(row: sqlite3.Row) -> OutboxMessage:
    return OutboxMessage(
        id=row["id"],
        kind=MessageKind(row["kind"]),
        key=row["key"],
        body=json.loads(row["body"]),
        state=MessageState(row["state"]),
        attempts=row["attempts"],
        next_attempt_at=row["next_attempt_at"],
        last_error=row["last_error"],
    )


# ------------------------------------------------------------------------------------------ sending
@dataclass(frozen=True, slots=True)
class Backoff:
    """Exponential backoff with full jitter between ``base`` and ``cap`` seconds."""

    base: float = 1.0
    cap: float = 60.0
    auth_wait: float = 300.0  # a bad token does not heal by itself: wait for new credentials

    def delay(self, attempts: int, rng: random.Random) -> float:
        ceiling = min(self.cap, self.base * 2.0 ** max(0, attempts))
        return ceiling / 2 + rng.random() * ceiling / 2


@dataclass(frozen=True, slots=True)
class PumpReport:
    sent: int = 0
    duplicates: int = 0
    retried: int = 0
    rejected: int = 0


class Outcome(StrEnum):
    SENT = "sent"
    DUPLICATE = "duplicate"
    RETRY = "retry"
    AUTH = "auth"
    REJECTED = "rejected"


#: What the hub answers to a message it kept, by kind of message.
ACCEPTED_STATUSES = {
    MessageKind.RESULT: frozenset({"stored", "duplicate"}),
    MessageKind.LIVE: frozenset({"stored", "stale", "finished"}),
}


def classify(status_code: int) -> Outcome:
    """What a hub reply's status code means for a queued message (see :func:`judge` for the body)."""
    if status_code == 200:
        return Outcome.DUPLICATE
    if 200 <= status_code < 300:
        return Outcome.SENT
    if status_code in (401, 403):
        return Outcome.AUTH
    if status_code in (408, 425, 429) or status_code >= 500:
        return Outcome.RETRY
    return Outcome.REJECTED


def confirms(message: OutboxMessage, reply: httpx.Response) -> bool:
    """Whether a 2xx reply is really the hub's receipt for this message: a JSON body that names the
    message's game id and a status the hub gives to a message it kept. A captive portal or a proxy
    answering ``200 text/html`` is not a receipt, and the message stays queued."""
    try:
        data = reply.json()
    except ValueError:
        return False
    if not isinstance(data, dict):
        return False
    return (
        str(data.get("game_id", "")).lower() == str(message.body.get("game_id", "")).lower()
        and data.get("status") in ACCEPTED_STATUSES[message.kind]
    )


NOT_THE_HUB = "the answer was not the hub's (a Wi-Fi sign-in page?); will send again"

AttemptHook = Callable[[OutboxMessage, float, Outcome], None]


class Sender:
    """Posts due outbox messages to the hub; call :meth:`pump` or run :meth:`run` on a thread."""

    def __init__(
        self,
        outbox: Outbox,
        *,
        client: httpx.Client | None = None,
        backoff: Backoff = Backoff(),
        rng: random.Random | None = None,
        timeout: float = 10.0,
        on_attempt: AttemptHook | None = None,
        monotonic: Clock = time.monotonic,
    ) -> None:
        self.outbox = outbox
        self.client = client or make_client(timeout)
        self.backoff = backoff
        self.rng = rng or random.Random()
        self.on_attempt = on_attempt
        self._monotonic = monotonic

    def pump(self, limit: int = 50) -> PumpReport:
        """Send every due message once, oldest first; stop at the first network failure."""
        credentials = self.outbox.credentials()
        if credentials is None:
            return PumpReport()
        sent = duplicates = retried = rejected = 0
        for message in self.outbox.due(limit):
            url = (
                f"{credentials.hub_url}/api/events/{credentials.event_code}/tables/{credentials.table_id}/"
                f"{'results' if message.kind is MessageKind.RESULT else 'live'}"
            )
            started = self._monotonic()
            try:
                reply = self.client.post(
                    url, json=message.body, headers={"Authorization": f"Bearer {credentials.token}"}
                )
            except httpx.TransportError as error:
                self._hook(message, started, Outcome.RETRY)
                delay = self.backoff.delay(message.attempts, self.rng)
                self.outbox.mark_retry(message.id, f"hub unreachable: {type(error).__name__}", delay,
                                       connected=False)
                retried += 1
                break
            outcome = classify(reply.status_code)
            if outcome in (Outcome.SENT, Outcome.DUPLICATE) and not confirms(message, reply):
                outcome = Outcome.RETRY
                self._hook(message, started, outcome)
                self.outbox.mark_retry(message.id, f"{reply.status_code}: {NOT_THE_HUB}",
                                       self.backoff.delay(message.attempts, self.rng), connected=False)
                retried += 1
                break
            self._hook(message, started, outcome)
            if outcome in (Outcome.SENT, Outcome.DUPLICATE):
                self.outbox.mark_sent(message.id)
                sent += outcome is Outcome.SENT
                duplicates += outcome is Outcome.DUPLICATE
            elif outcome is Outcome.RETRY:
                self.outbox.mark_retry(message.id, _reply_text(reply), self.backoff.delay(message.attempts, self.rng),
                                       connected=True)
                retried += 1
                break
            elif outcome is Outcome.AUTH:
                self.outbox.mark_retry(message.id, _reply_text(reply), self.backoff.auth_wait, connected=True)
                retried += 1
                break
            else:
                self.outbox.mark_rejected(message.id, _reply_text(reply))
                rejected += 1
        return PumpReport(sent, duplicates, retried, rejected)

    def _hook(self, message: OutboxMessage, started: float, outcome: Outcome) -> None:
        if self.on_attempt is not None:
            self.on_attempt(message, self._monotonic() - started, outcome)

    def run(self, stop: threading.Event, *, idle: float = 2.0) -> None:
        """Pump until ``stop`` is set, sleeping until the next message is due (at most ``idle``)."""
        while not stop.is_set():
            self.pump()
            next_at = self.outbox.next_due_at()
            wait = idle if next_at is None else min(idle, max(0.0, next_at - time.time()))
            stop.wait(max(wait, 0.01))

    def drain(self, *, deadline: float, sleep: Callable[[float], None] = time.sleep) -> bool:
        """Pump until nothing is pending or ``deadline`` (time.time) passes; True when drained."""
        while time.time() < deadline:
            self.pump()
            next_at = self.outbox.next_due_at()
            if next_at is None:
                return True
            sleep(min(max(0.0, next_at - time.time()), max(0.0, deadline - time.time())))
        return self.outbox.next_due_at() is None


_ssl_lock = threading.Lock()
_ssl_context: ssl.SSLContext | None = None


def _shared_ssl_context() -> ssl.SSLContext:
    # Building a verifying SSL context loads the CA bundle (~50 ms of CPU); one per process is enough.
    global _ssl_context
    with _ssl_lock:
        if _ssl_context is None:
            _ssl_context = ssl.create_default_context()
            try:
                import certifi

                _ssl_context.load_verify_locations(certifi.where())
            except ImportError:  # pragma: no cover - httpx depends on certifi
                pass
        return _ssl_context


def make_client(timeout: float = 10.0) -> httpx.Client:
    """An HTTP client for the hub. TCP_NODELAY: httpx writes headers and body separately, and Nagle's
    algorithm plus the server's delayed ACK would otherwise add ~40 ms to every result sent."""
    transport = httpx.HTTPTransport(
        verify=_shared_ssl_context(), socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
    )
    return httpx.Client(timeout=timeout, transport=transport)


def _reply_text(reply: httpx.Response) -> str:
    try:
        data = reply.json()
        return f"{reply.status_code}: {data.get('message') or data.get('error')}"
    except (ValueError, AttributeError):
        return f"{reply.status_code}: {reply.text[:200]}"


def join(
    outbox: Outbox, hub_url: str, event_code: str, table_name: str, join_secret: str = "", *,
    client: httpx.Client | None = None,
) -> Credentials:
    """Join an event as a table and keep the token in the outbox (Settings -> Convention calls this).

    ``join_secret`` is the one the organiser gives the tables. Safe to retry: the tablet's join key
    lets it take its own table name again.
    """
    own_client = client is None
    client = client or make_client()
    try:
        reply = client.post(
            hub_url.rstrip("/") + "/api/join",
            json={"event_code": event_code, "table_name": table_name, "join_key": outbox.join_key(),
                  "join_secret": join_secret.strip() or None},
        )
    finally:
        if own_client:
            client.close()
    if reply.status_code != 201:
        raise OutboxError(f"the hub refused to join: {_reply_text(reply)}")
    try:
        data = reply.json()
        int(data["table_id"]), str(data["token"])
    except (ValueError, KeyError, TypeError) as error:
        raise OutboxError(f"{hub_url} did not answer as a hub does (a Wi-Fi sign-in page?)") from error
    credentials = Credentials(hub_url.rstrip("/"), data["event_code"], int(data["table_id"]), data["table_name"],
                              data["token"])
    outbox.set_credentials(credentials)
    return credentials
