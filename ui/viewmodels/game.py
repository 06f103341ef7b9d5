"""The running game as the screens see it: players and VP, whose turn, the countdown, undo.

:class:`GameModel` wraps a :class:`ui.session.OpenGame` (the durable session from the store). Every
command runs on the "session" worker thread (the store makes it durable before it returns), then
the new state JSON arrives on the Kivy thread and is spread into properties the ``.kv`` rules bind to.
Listeners (the hardware bridge) receive the session's events through ``on_game_event``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kivy.event import EventDispatcher
from kivy.properties import (
    BooleanProperty,
    DictProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)

from companion.engine import APP_ROLL
from ui import coretext
from ui import session as session_port
from ui.tr import tr
from ui.worker import Worker


class GameModel(EventDispatcher):  # type: ignore[misc]
    loaded = BooleanProperty(False)
    busy = BooleanProperty(False)
    path = StringProperty("")
    error = StringProperty("")
    state = DictProperty({})
    phase = StringProperty("")
    mode = StringProperty("competitive")
    scenario = NumericProperty(0)
    round = NumericProperty(0)
    current_player = StringProperty("")
    players = ListProperty([])  # [{"name", "colour", "board", "vp", "categories": {...}}]
    countdown_active = BooleanProperty(False)
    countdown_position = NumericProperty(0)
    actions_done = ListProperty([])
    undo_label = StringProperty("")
    redo_label = StringProperty("")
    undo_blocked = BooleanProperty(False)
    summary = StringProperty("")
    vp_history = ListProperty([])  # [{"name", "colour", "totals": [..]}]
    log_lines = ListProperty([])
    last_description = StringProperty("")
    open_game = ObjectProperty(None, allownone=True)
    started_at = NumericProperty(0.0)  # when the game file was created (for durations)

    __events__ = ("on_game_event", "on_opened")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._worker = Worker("session")
        self._said: tuple[str, str, str, list[str]] = ("", "", "", [])
        self._undo_barrier: str | None = None  # kept as the game said it (a Text), translated when shown
        tr.bind(language=lambda *_: (self._show_said(), self._summarise()))
        self._summarise()

    # ---- opening ----------------------------------------------------------------------------
    def resume_last(self, hint: str | None) -> None:
        """Open the last game (the path in the settings, else the store's newest) on the worker."""
        self._run(lambda: session_port.open_last(hint), self._opened, quiet_missing=True)

    def new_game(self, setup: Any, game: str) -> None:
        """Start a new game of ``game`` (a registry name) with its setup (``config()`` or a JSON object)."""
        self._run(lambda: session_port.create(setup, game=game), self._opened)

    def open_path(self, path: str) -> None:
        self._run(lambda: session_port.open_game(path), self._opened)

    def close(self) -> None:
        game = self.open_game
        self.open_game = None
        if game is not None:
            self._worker.submit(game.close)

    def forget(self) -> None:
        """Close the open game (it is safe in its file) and show no game (another game is hosted)."""
        self.close()
        for name, prop in self.properties().items():
            if name not in ("open_game",):
                prop.set(self, prop.defaultvalue)
        self._said = ("", "", "", [])
        self._summarise()

    def _opened(self, game: session_port.OpenGame | None) -> None:
        if game is None:
            return
        old = self.open_game
        if old is not None and old is not game:
            self._worker.submit(old.close)
        self.open_game = game
        self.path = game.path
        header = getattr(game.handle, "header", None)
        self.started_at = float(getattr(header, "created_at", 0.0) or 0.0)
        self.loaded = True
        self._apply(game.snapshot())
        self.dispatch("on_opened")

    # ---- commands ---------------------------------------------------------------------------
    def do(self, command: Mapping[str, Any], then: Callable[[], None] | None = None,
           failed: Callable[[str], None] | None = None, expected_state_id: int | None = None) -> None:
        """Run ``command`` on the worker; ``then`` after its state is applied, ``failed`` with the error text.
        ``expected_state_id``: the state the table showed when a device sent it; the engine refuses it if
        the game moved on meanwhile."""
        game = self.open_game
        if game is None:
            self.error = tr._("Start or resume a game first")
            if failed is not None:
                failed(self.error)
            return

        def done(snapshot: session_port.Snapshot) -> None:
            self._apply(snapshot)
            if then is not None:
                then()

        self._run(lambda: game.do(dict(command), expected_state_id), done, on_error=failed)

    def undo(self, force: bool = False, expected_state_id: int | None = None) -> None:
        game = self.open_game
        if game is None:
            return
        if self.undo_blocked and not force:
            self.error = self._undo_stops()
            return
        self._run(lambda: game.undo(force=force, expected_state_id=expected_state_id), self._apply)

    def _undo_stops(self) -> str:
        """Why undo needs a hold: the barrier as the game names it (Shogun: a throw the players entered from the
        tower), in the app's language."""
        barrier = self._undo_barrier
        if barrier is None or barrier == APP_ROLL:
            return tr.f("Undo stops at a roll the app made: {what}. Hold Undo to undo it anyway.", what=self.undo_label)
        return tr.f("Undo stops at {barrier}: {what}. Hold Undo to undo it anyway.", barrier=_shown(barrier),
                    what=self.undo_label)

    def redo(self) -> None:
        game = self.open_game
        if game is not None:
            self._run(game.redo, self._apply)

    def _run(self, job: Callable[[], Any], done: Callable[[Any], None], *, quiet_missing: bool = False,
             on_error: Callable[[str], None] | None = None) -> None:
        self.busy = True
        self.error = ""

        def finished(result: Any) -> None:
            self.busy = False
            done(result)

        def failed(error: BaseException) -> None:
            self.busy = False
            if quiet_missing and isinstance(error, FileNotFoundError):
                return
            self.error = str(error) if isinstance(error, ValueError) else f"{type(error).__name__}: {error}"
            if on_error is not None:
                on_error(self.error)

        self._worker.submit(job, finished, failed)

    # ---- state -> properties ----------------------------------------------------------------
    def _apply(self, snapshot: session_port.Snapshot) -> None:
        state = snapshot.state
        self.phase = str(state.get("phase", ""))
        self.mode = str(state.get("mode", "competitive"))
        self.scenario = int(state.get("scenario", 0) or 0)
        self.round = int(state.get("round", 0) or 0)
        self.current_player = str(state.get("current_player") or "")
        countdown = state.get("countdown") or {}
        self.countdown_active = bool(countdown.get("active"))
        self.countdown_position = int(countdown.get("position") or 0)
        self.actions_done = list(state.get("actions") or state.get("actions_done") or [])
        self.players = session_port.players_of(state)
        self.vp_history = session_port.vp_history(state, snapshot.records)
        self.undo_blocked = snapshot.undo_blocked
        self._undo_barrier = snapshot.undo_barrier
        self._said = (snapshot.undo or "", snapshot.redo or "", snapshot.last or "",
                      [r.description for r in snapshot.records if r.kind == "command"][-200:])
        self._show_said()
        self.state = state  # last: listeners of ``state`` see every other property already updated
        self._summarise()
        for event in snapshot.events:
            self.dispatch("on_game_event", event)

    def _show_said(self) -> None:
        """The session's own words (Undo / Redo labels, the log) in the current language."""
        undo, redo, last, lines = self._said
        self.undo_label = _shown(undo)
        self.redo_label = _shown(redo)
        self.last_description = _shown(last)
        self.log_lines = [_shown(line) for line in lines]

    def _summarise(self) -> None:
        if not self.phase:
            self.summary = tr._("No game yet")
        elif self.phase == "ended":
            self.summary = tr._("Game over")
        elif self.countdown_active:
            self.summary = tr.f("Final chapter {n}/8 - {player}", n=self.countdown_position,
                                player=self.current_player)
        else:
            self.summary = tr.f("Round {n} - {player}", n=self.round, player=self.current_player)

    def on_game_event(self, event: Any) -> None:
        pass

    def on_opened(self) -> None:
        pass


def _shown(text: str) -> str:
    """A session description in the app's language; the broken die's star (which the app's font
    lacks) shown as ``*``."""
    return coretext.translate(text).replace("★", "*")
