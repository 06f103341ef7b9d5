"""Fuji Koro's part of the tablet app: its screens, their view models, the table's script and buttons.

The shell (``ui``) finds this through ``GAME.app`` and builds its navigation from :data:`SCREENS`.
"""

from __future__ import annotations

from typing import Any

from ui.hosting import GameApp, GameScreen
from ui.i18n import N_

SCREENS = (
    GameScreen("start", N_("Game"), "games.fujikoro.app.screens.start", "StartScreen"),
    GameScreen("table", N_("Table"), "games.fujikoro.app.screens.table", "TableScreen"),
    GameScreen("combat", N_("Combat"), "games.fujikoro.app.screens.combat", "CombatScreen"),
    GameScreen("gear", N_("Gear"), "games.fujikoro.app.screens.gear", "GearScreen"),
    GameScreen("scoring", N_("Scoring"), "games.fujikoro.app.screens.scoring", "ScoringScreen"),
    GameScreen("gamedata", N_("Game data"), "games.fujikoro.app.screens.gamedata", "GameDataScreen"),
)


def _models(app: Any) -> dict[str, Any]:
    from games.fujikoro.app.gear import GearModel
    from games.fujikoro.app.pack import PackModel

    pack = PackModel()
    # combat and scoring are made by their screens, when first built.
    return {"pack": pack, "gear": GearModel(app.game, pack), "combat": None, "scoring": None}


def _table(app: Any) -> tuple[Any, Any]:
    from games.fujikoro.table import led_script

    pack = app.pack.pack
    return led_script(pack), pack.dice


def _button(app: Any, name: str, expected: int | None) -> bool:
    """End Turn ends the turn while the game is played; Dragon Roll rolls for the dragon in a fight."""
    if name == "END_TURN":
        if app.game.phase in ("playing", "final"):
            app.game.do({"type": "end_turn"}, expected_state_id=expected)
        return True
    if name == "DRAGON_ROLL":
        if app.combat is not None:
            current = int(app.game.state.get("state_id", -1))
            if expected is None or expected == current:
                app.combat.roll_for_dragon()
        return True
    return False


def _landing(phase: str) -> str:
    return "scoring" if phase == "ended" else "table"


def _on_phase(app: Any, phase: str) -> None:
    if phase == "ended" and app.current_screen in ("table", "combat"):
        app.go("scoring")


def _close(app: Any) -> None:
    if app.combat is not None:
        app.combat.close()


def game_app() -> GameApp:
    from games.fujikoro.app.sentences import SENTENCES, WORDS

    return GameApp(screens=SCREENS, models=_models, table=_table, button=_button, landing=_landing,
                   on_phase=_on_phase, close=_close, sentences=SENTENCES, words=WORDS)
