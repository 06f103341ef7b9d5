"""The counter's part of the app: one screen, the table's bar, and End Turn adds one."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.properties import NumericProperty, StringProperty
from kivy.uix.screenmanager import Screen

from ui.hosting import GameApp, GameScreen


class CountScreen(Screen):
    total = NumericProperty(0)
    said = StringProperty("")

    def on_kv_post(self, *_: Any) -> None:
        app = App.get_running_app()
        app.game.bind(state=lambda _m, state: setattr(self, "total", int(state.get("total", 0))))
        app.game.bind(last_description=lambda _m, text: setattr(self, "said", text))

    def new_count(self) -> None:
        App.get_running_app().game.new_game({"start": 0}, "counter")

    def add(self, n: int) -> None:
        App.get_running_app().game.do({"type": "add", "n": n})


def _table(_app: Any) -> tuple[Any, Any]:
    from counter_game.leds import Bar

    return Bar(), None


def _button(app: Any, name: str, expected: int | None) -> bool:
    if name == "END_TURN":
        app.game.do({"type": "add", "n": 1}, expected_state_id=expected)
        return True
    return False


def game_app() -> GameApp:
    return GameApp(screens=(GameScreen("count", "Count", "counter_game.app", "CountScreen"),),
                   table=_table, button=_button)
