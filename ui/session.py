"""The app's port to the game session: create, open and resume games; commands, undo and redo.

The rules are :class:`games.fujikoro.rules.FujiKoro` run by :class:`companion.engine.Session`; the
durable log is the store's SQLite file. Everything here runs on the "session" worker thread
(:class:`ui.viewmodels.game.GameModel` sees to that) and returns plain :class:`Snapshot` values, so
the Kivy thread never touches the session or the database.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from companion.engine import Applied, Session
from companion.events import Event


class HasConfig(Protocol):
    """A game's setup form's result: the setup a game file keeps (``config()``)."""

    def config(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class LogLine:
    seq: int
    kind: str
    description: str
    automated: bool = False


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything the screens need after a command, computed on the worker thread."""

    state: Mapping[str, Any]
    records: tuple[LogLine, ...]
    undo: str | None
    redo: str | None
    undo_blocked: bool
    #: What undo stops at, as the game names it (``Session.undo_barrier``: "a roll the app made", Shogun's "a throw
    #: the players entered from the tower" ...); None when undo needs no force.
    undo_barrier: str | None = None
    last: str | None = None
    events: tuple[Event, ...] = field(default_factory=tuple)


class OpenGame:
    """One open game: the engine session and the store's handle (closed with :meth:`close`)."""

    def __init__(self, path: str, session: Session[Any], handle: Any = None) -> None:
        self.path = path
        self.session = session
        self.handle = handle

    def snapshot(self, applied: Applied | None = None) -> Snapshot:
        session = self.session
        return Snapshot(
            state=session.state_json(),
            records=tuple(LogLine(r.seq, r.kind.value, r.text, r.automated) for r in session.records),
            undo=session.undo_description(),
            redo=session.redo_description(),
            undo_blocked=session.undo_blocked(),
            undo_barrier=session.undo_barrier(),
            last=applied.record.description if applied is not None else None,
            events=applied.events if applied is not None else (),
        )

    def do(self, command: Mapping[str, Any], expected_state_id: int | None = None) -> Snapshot:
        """``expected_state_id``: the state a device showed when it sent this (stale input is refused)."""
        return self.snapshot(self.session.do(command, expected_state_id=expected_state_id))

    def undo(self, *, force: bool = False, expected_state_id: int | None = None) -> Snapshot:
        return self.snapshot(self.session.undo(force=force, expected_state_id=expected_state_id))

    def redo(self) -> Snapshot:
        return self.snapshot(self.session.redo())

    def close(self) -> None:
        closer = getattr(self.handle, "close", None)
        if closer is not None:
            closer()


# ---- the store ------------------------------------------------------------------------------


def create(setup: HasConfig | Mapping[str, Any], directory: Path | None = None, *, game: str) -> OpenGame:
    """A new game file in the games folder, with the game's data (and the group's corrections) in its header.
    ``setup`` is the game's setup (its ``config()``, or the JSON object itself); ``game`` its registry name."""
    from companion.registry import game as game_module
    from store.gamelog import Header
    from store.games import new_game_path
    from store.overrides import read_overrides
    from store.sessions import factories, new_session

    made = game_module(game).new_game(read_overrides(game))
    config = dict(setup) if isinstance(setup, Mapping) else setup.config()
    header = Header(game, made.version, config, made.data, created_at=time.time())
    path = new_game_path(directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    file, session = new_session(path, header, factories())
    return OpenGame(str(path), session, file)


def open_game(path: str) -> OpenGame:
    """Open (replay) a game file; FileNotFoundError when it is gone."""
    from store.sessions import factories, open_session

    if not Path(path).is_file():
        raise FileNotFoundError(path)
    file, session = open_session(path, factories())
    return OpenGame(str(path), session, file)


def game_of(path: str | None) -> str | None:
    """The game (registry name) a saved game file holds, without replaying it; None if it does not open."""
    from store.gamelog import GameFile, StoreError

    if not path or not Path(path).is_file():
        return None
    try:
        with GameFile.open(path) as file:
            return file.header.game
    except (StoreError, OSError, ValueError):
        return None


def last_path(hint: str | None) -> str | None:
    """The game file the app resumes: the settings' last game if it is still there, else the newest."""
    from store.games import last_game

    if hint and Path(hint).is_file():
        return hint
    newest = last_game()
    return str(newest) if newest is not None else None


def open_last(hint: str | None) -> OpenGame | None:
    """The game to resume: the settings' last game if it still opens, else the newest game file."""
    from store.games import last_game

    if hint and Path(hint).is_file():
        try:
            return open_game(hint)
        except ValueError:
            pass  # an unreadable file: fall back to the newest game that opens
    newest = last_game()
    if newest is None:
        return None
    return open_game(str(newest))


@dataclass(frozen=True, slots=True)
class Export:
    bgstats_link: str
    csv: str


def export(game: OpenGame) -> Export | None:
    """The BG Stats link and the CSV score sheet of a finished game (None while it runs)."""
    from store.export import bgstats_link, bgstats_play, result_csv

    session = game.session
    result = session.game.result(session.state)
    if result is None or game.handle is None:
        return None
    stamped = game.handle.stamped()
    started = game.handle.header.created_at
    finished = stamped[-1].at if stamped else started
    play = bgstats_play(result, started=started, finished=finished, play_id=Path(game.path).stem)
    return Export(bgstats_link(play), result_csv(result))


# ---- reading the state JSON -----------------------------------------------------------------


def players_of(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    players = state.get("players")
    if isinstance(players, list):
        return [dict(p) for p in players if isinstance(p, dict)]
    scores = state.get("scores") or {}
    return [{"name": name, "colour": None, "board": "symmetric", "vp": vp, "categories": {}}
            for name, vp in scores.items()]


def vp_history(state: Mapping[str, Any], records: Sequence[LogLine]) -> list[dict[str, Any]]:
    """Per player, the running total after each turn of the game (for the VP-over-time chart)."""
    players = players_of(state)
    turns = int(state.get("turn", 1) or 1)
    totals = {p["name"]: [0] * (turns + 1) for p in players}
    for point in state.get("vp_history") or []:
        name = point.get("player")
        turn = int(point.get("turn", 0))
        if name in totals and 0 <= turn <= turns:
            series = totals[name]
            for t in range(turn, turns + 1):
                series[t] = int(point.get("total", 0))
    return [{"name": p["name"], "colour": p.get("colour"), "totals": totals[p["name"]]} for p in players]
