"""Shogun's part of the tablet app (issue 17): its screens, their view model, the table's LED script.

The shell finds this through ``GAME.app`` and builds its navigation from :data:`SCREENS`. Every screen reads
``app.shogun`` (:class:`games.shogun.app.model.ShogunModel`); every command goes through ``app.game.do``.
"""

from __future__ import annotations

from typing import Any

from ui.hosting import GameApp, GameScreen
from ui.i18n import N_

MODULE = "games.shogun.app.screens"
SCREENS = (
    GameScreen("shogun_new", N_("New game"), MODULE, "ShogunNewScreen"),
    GameScreen("shogun_round", N_("Round"), MODULE, "ShogunRoundScreen"),
    GameScreen("shogun_battle", N_("Battle"), MODULE, "ShogunBattleScreen"),
    GameScreen("shogun_winter", N_("Winter"), MODULE, "ShogunWinterScreen"),
    GameScreen("shogun_scoring", N_("Scoring"), MODULE, "ShogunScoringScreen"),
)

#: phase -> the screen the table works on
LANDING = {"winter_supply": "shogun_winter", "winter_revolts": "shogun_winter", "scoring": "shogun_scoring",
           "over": "shogun_scoring"}


def landing(phase: str) -> str:
    return LANDING.get(phase, "shogun_round") if phase else "shogun_new"


def _models(app: Any) -> dict[str, Any]:
    from games.shogun.app.model import ShogunModel

    return {"shogun": ShogunModel(app)}


def _table(_app: Any) -> tuple[Any, Any]:
    from games.shogun.table import CalendarLights

    return CalendarLights(), None


def _on_phase(app: Any, phase: str) -> None:
    """The table moves on to winter, scoring and the next round by itself; a throw's result stays on screen
    until Continue, which then goes where the game is."""
    target = landing(phase)
    if app.current_screen == "shogun_battle" and app.shogun.throw_active:
        app.shogun.follow_phase(target)
    elif app.current_screen in ("shogun_round", "shogun_winter", "shogun_scoring") and target != app.current_screen:
        app.go(target)


def _close(app: Any) -> None:
    model = getattr(app, "shogun", None)
    if model is not None:
        model.close_picker()


def game_app() -> GameApp:
    return GameApp(screens=SCREENS, models=_models, table=_table, landing=landing, on_phase=_on_phase,
                   close=_close)
