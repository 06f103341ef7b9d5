"""Convention scorekeeping from the tablet: join an event on the hub, send each finished game.

:func:`result_payload` turns the session's final state into the hub's result payload (pure, no Kivy).
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

# The session's VP categories -> the hub's score categories (hub.rules.CATEGORIES).
CATEGORY_MAP = {
    "explore_level_2": "explored",
    "explore_level_3": "explored",
    "scrolls": "scrolls",
    "dragons": "dragons",
    "gear_card": "gear_cards",
    "shogun": "shogun",
    "scenario": "scenario",
    "correction": "corrections",
}


def game_uuid(game_path: str) -> uuid.UUID:
    """The game's own random id, kept in its file (the same game always sends the same id, so resends
    are idempotent; two tablets never share one). An older file gets its id on its first send."""
    from store.gamelog import GameFile

    with GameFile.open(Path(game_path)) as game:
        return uuid.UUID(game.game_id())


def result_payload(state: Mapping[str, Any], game_path: str, *, started_at: float | None = None) -> dict[str, Any]:
    """The hub's result payload for a finished game state (``fujikoro game state`` JSON). The game's
    own round counter is not sent as a round: the hub counts the game in the event round in play."""
    from hub.payload import build_result_payload

    players = []
    for p in state.get("players") or []:
        scores: dict[str, int] = {}
        for category, points in (p.get("categories") or {}).items():
            target = CATEGORY_MAP.get(category, "corrections")
            scores[target] = scores.get(target, 0) + int(points)
        players.append({"name": p["name"], "colour": p.get("colour") or "none", "scores": scores,
                        "escape_order": p.get("escape_order")})
    mode = "cooperative" if state.get("mode") == "coop" else "competitive"
    duration = max(0.0, time.time() - started_at) if started_at else 0.0
    return build_result_payload(players, game_id=game_uuid(game_path), seq=int(state.get("state_id", 0)),
                                mode=mode, scenario=int(state.get("scenario", 0)), duration_seconds=duration)


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

    def send_result(self, state: Mapping[str, Any], game_path: str, started_at: float | None) -> str:
        return self.outbox.enqueue_result(result_payload(state, game_path, started_at=started_at))

    def status(self) -> str:
        return str(self.outbox.status().label)

    def close(self, wait: Callable[[float], Any] | None = None) -> None:
        self._stop.set()
        self.outbox.close()
