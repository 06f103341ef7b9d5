"""Start: a new game (players with colour and board or character, mode, scenario, Adventure Tokens)
or resume the last one, with the setup checklist for this player count beside the form.
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.factory import Factory
from kivy.properties import NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from games.fujikoro.app.setup import SetupModel


class PlayerRow(BoxLayout):
    index = NumericProperty(0)
    colour = StringProperty("")
    board = StringProperty("symmetric")
    model = ObjectProperty(None)


class StartScreen(Screen):
    model = ObjectProperty(None)

    def __init__(self, **kwargs: Any) -> None:
        app = App.get_running_app()
        super().__init__(model=SetupModel(app.pack.pack), **kwargs)
        app.pack.bind(pack=lambda _m, pack: setattr(self.model, "pack", pack))
        self.model.bind(players=self._rebuild)
        self._rows: list[PlayerRow] = []
        self._rebuild()

    def _rebuild(self, *_: Any) -> None:
        box = self.ids.players_box
        players = self.model.players
        while len(self._rows) > len(players):
            row = self._rows.pop()
            box.remove_widget(row)
        while len(self._rows) < len(players):
            row = Factory.PlayerRow(model=self.model)
            self._rows.append(row)
            box.add_widget(row)
        for i, (row, player) in enumerate(zip(self._rows, players, strict=True)):
            row.index = i
            row.colour = player["colour"]
            row.board = player["board"]
            if row.ids.name.text != player["name"]:
                row.ids.name.text = player["name"]
            self.ids[f"player_name_{i}"] = row.ids.name
            self.ids[f"player_colour_{i}"] = row.ids.colour
            self.ids[f"player_board_{i}"] = row.ids.board
            self.ids[f"player_remove_{i}"] = row.ids.remove
        for stale in [k for k in self.ids if k.startswith("player_") and int(k.rsplit("_", 1)[1]) >= len(players)]:
            del self.ids[stale]

    def start_game(self) -> None:
        for i, row in enumerate(self._rows):
            self.model.rename(i, row.ids.name.text)
        if not self.model.valid:
            return
        App.get_running_app().game.new_game(self.model.game_setup(), "fujikoro")

    def resume(self) -> None:
        app = App.get_running_app()
        app.go("scoring" if app.game.phase == "ended" else "table")
