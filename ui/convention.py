"""Convention scorekeeping from the tablet: join an event on the hub, send each finished game.

:func:`result_payload` turns a finished game's own :class:`companion.engine.Result` into the hub's
result payload (schema 2: the game's categories and tie-break value; pure, no Kivy).
:class:`ConventionLink` owns the outbox (:mod:`hub.outbox`, its own durable SQLite file) and the
sender thread that drains it with retries; every call that touches the network or the outbox runs
on a worker thread, and the send-status label reaches the Kivy thread through the worker's callback.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from companion.engine import Result


def game_uuid(game_path: str) -> uuid.UUID:
    """The game's own random id, kept in its file (the same game always sends the same id, so resends
    are idempotent; two tablets never share one). An older file gets its id on its first send."""
    from store.gamelog import GameFile

    with GameFile.open(Path(game_path)) as game:
        return uuid.UUID(game.game_id())


def result_payload(result: Result, game: str, game_path: str, *, seq: int,
                   started_at: float | None = None) -> dict[str, Any]:
    """The hub's result payload (schema 2) of a finished game: ``result`` is the game's own
    (``Game.result``), ``game`` its name, ``seq`` the state id it was sent at. No round is sent: the hub
    counts the game in the event round in play when it arrives."""
    from hub.payload import payload_from_result

    duration = max(0.0, time.time() - started_at) if started_at else 0.0
    return payload_from_result(result, game=game, game_id=game_uuid(game_path), seq=seq, duration_seconds=duration)


class ConventionLink:
    """The outbox and its sender thread. Methods block: call them on a worker thread."""

    def __init__(self, outbox_path: Path | None = None) -> None:
        from hub.outbox import Outbox, default_outbox_path

        self.outbox = Outbox(outbox_path or default_outbox_path())
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def join(self, hub_url: str, event_code: str, table_name: str, join_secret: str = "") -> str:
        import httpx

        from hub.outbox import OutboxError, join

        try:
            credentials = join(self.outbox, hub_url, event_code, table_name, join_secret)
        except httpx.TransportError as error:
            raise OutboxError(f"the hub at {hub_url} cannot be reached ({type(error).__name__})") from error
        self.start_sender()
        return f"{credentials.event_code} / {credentials.table_name}"

    def start_sender(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        from hub.outbox import Sender

        sender = Sender(self.outbox)
        self._stop.clear()
        self._thread = threading.Thread(target=sender.run, args=(self._stop,), name="fujikoro-hub-sender",
                                        daemon=True)
        self._thread.start()

    def send_result(self, payload: Mapping[str, Any]) -> str:
        return self.outbox.enqueue_result(payload)

    def status(self) -> str:
        return str(self.outbox.status().label)

    def close(self, wait: Callable[[float], Any] | None = None) -> None:
        self._stop.set()
        self.outbox.close()
