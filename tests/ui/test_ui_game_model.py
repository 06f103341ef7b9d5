"""The game's view model says what undo stops at as the game names it (no window: the model fed by a real session
on its real "session" worker thread).

A Shogun tower throw is thrown at the table and entered by the players (a barrier because it cannot be thrown
again), its draws are the app's (spec 12.1 items 10-11, 12.2); the app called every barrier "a roll the app made",
as the command line did before it asked the game (``Session.undo_barrier``). Fuji Koro's barriers are the app's
rolls and keep their sentence. Each is shown in the app's language.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from kivy.clock import Clock

from companion.engine import Session
from games.shogun import GAME
from tests.games.fujikoro.test_session_fight import EXAMPLE_PLAYERS, EXAMPLE_ROLLS, example_start, session
from tests.games.shogun.script import CONFIG, CORRECTIONS, steps
from ui.session import OpenGame
from ui.tr import tr
from ui.viewmodels.game import GameModel


@pytest.fixture(autouse=True)
def _english_after() -> Iterator[None]:
    yield
    tr.switch("en")


def _until(what: Callable[[], bool], timeout: float = 10.0) -> None:
    """Runs the Kivy clock (the worker's answers arrive through it) until ``what`` holds."""
    deadline = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < deadline, "timed out"
        Clock.tick()
        time.sleep(0.01)


def _model(game_session: Session[Any]) -> GameModel:
    model = GameModel()
    model.open_game = OpenGame("", game_session)
    return model


def _do(model: GameModel, command: dict[str, Any]) -> None:
    done: list[bool] = []
    model.do(command, then=lambda: done.append(True))
    _until(lambda: bool(done))
    assert model.undo_blocked and model.error == ""


def _refused(model: GameModel, language: str = "en") -> str:
    tr.switch(language)
    model.undo()
    assert not model.busy, "undo went to the session instead of asking for a hold"
    return model.error


def test_undo_stops_at_a_shogun_tower_throw_as_the_players_entry_and_at_a_draw_as_the_apps() -> None:
    rules = GAME.rules(GAME.new_game(CORRECTIONS).data)
    model = _model(Session(rules, CONFIG, new_seed=lambda: 7))
    _do(model, steps()[0][0])  # seeding the tower (spec 2.5): the counts the players read off the tray
    said = _refused(model)
    assert said.startswith("Undo stops at a throw the players entered from the tower: The tower is seeded: "), said
    assert said.endswith(". Hold Undo to undo it anyway.") and "app" not in said
    assert _refused(model, "cs").startswith("Zpět se zde zastaví, je to hod z věže, který zadali hráči: ")
    assert _refused(model, "de").startswith("Rückgängig stoppt hier, das ist ein Wurf aus dem Turm, den die "
                                            "Spieler eingetragen haben: ")
    tr.switch("en")
    _do(model, {"type": "lay_out", "draw": True})  # the app lays out the rows (spec 12.1 item 10)
    assert _refused(model).startswith("Undo stops at a draw the app made: The app lays out round 1")
    assert _refused(model, "cs").startswith("Zpět se zde zastaví, je to losování, které provedla aplikace: ")
    assert _refused(model, "de").startswith("Rückgängig stoppt hier, das ist eine Auslosung der App: ")


def test_undo_stops_at_a_fuji_koro_roll_the_app_made() -> None:
    fight = session(EXAMPLE_PLAYERS)
    for command in (example_start(), EXAMPLE_ROLLS[0], EXAMPLE_ROLLS[1]):
        fight.do(command)
    model = _model(fight)
    _do(model, {"type": "fight_roll"})  # the app rolls for the dragon
    assert _refused(model).startswith("Undo stops at a roll the app made: ")
    assert _refused(model, "cs").startswith("Zpět se zastaví u hodu aplikace: ")
