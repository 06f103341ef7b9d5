"""Shogun's screens: new game, the round (calendar, bids and turn order, the action walk-through), the battle
helper (the tower), winter and scoring. Layout in ``screens.kv``; what they show and do in
:mod:`games.shogun.app.model` (``app.shogun``). Thin: a button grid shows a list of specs and reports taps.
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.factory import Factory
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.screenmanager import Screen

from games.shogun.app.model import COLOURS, grid_columns
from ui import players as players_form
from ui.tr import tr
from ui.widgets import Sheet, TouchButton

DEFAULT_NAMES = ("Aiko", "Botan", "Chiyo", "Daiki", "Emi")


class SpecButton(TouchButton):  # type: ignore[misc]
    ident = StringProperty("")
    colour = StringProperty("")
    down = BooleanProperty(False)


class SpecGrid(GridLayout):  # type: ignore[misc]
    """Buttons from the specs ``{"id", "text", "disabled", "down", "colour"}`` of ``app.shogun.grids[key]``;
    each button's id is registered in ``owner.ids`` (so the screen - and the test driver - find it), a tap goes
    to ``app.shogun.tap(id)``."""

    key = StringProperty("")
    owner = ObjectProperty(None, allownone=True)
    min_width = NumericProperty(dp(90))
    fixed_cols = NumericProperty(0)
    row_height = NumericProperty(dp(60))

    def __init__(self, **kwargs: Any) -> None:
        self._buttons: list[SpecButton] = []
        super().__init__(**kwargs)
        for name in ("key", "width", "fixed_cols", "row_height", "owner"):
            self.fbind(name, self._update)
        App.get_running_app().shogun.fbind("grids", self._update)
        self._update()

    @property
    def specs(self) -> list[dict[str, Any]]:
        return list(App.get_running_app().shogun.grids.get(self.key, []))

    def _update(self, *_: Any) -> None:
        specs = self.specs
        while len(self._buttons) > len(specs):
            button = self._buttons.pop()
            self.remove_widget(button)
            self._forget(button.ident)
        while len(self._buttons) < len(specs):
            button = SpecButton(size_hint_y=None)
            button.bind(on_release=self._pressed)
            self._buttons.append(button)
            self.add_widget(button)
        self.cols = int(self.fixed_cols) or grid_columns(len(specs), self.width, self.min_width)
        for button, item in zip(self._buttons, specs, strict=True):
            if button.ident != item["id"]:
                self._forget(button.ident)
                button.ident = item["id"]
            button.text = item["text"]
            button.disabled = bool(item.get("disabled"))
            button.down = bool(item.get("down"))
            button.colour = item.get("colour", "")
            button.height = self.row_height
            if self.owner is not None:
                self.owner.ids[item["id"]] = button
        rows = -(-len(specs) // max(1, self.cols))
        self.height = rows * self.row_height + max(0, rows - 1) * self.spacing[1]

    def _forget(self, ident: str) -> None:
        still_shown = any(b.ident == ident for b in self._buttons)
        if self.owner is not None and ident and self.owner.ids.get(ident) is not None and not still_shown:
            del self.owner.ids[ident]

    def _pressed(self, button: SpecButton) -> None:
        _tap(button.ident)


class ProvincePicker(Sheet):  # type: ignore[misc]
    model = ObjectProperty(None)


def _tap(ident: str) -> None:
    App.get_running_app().shogun.tap(ident)


class ShogunScreen(Screen):  # type: ignore[misc]
    """Every Shogun screen: ``model`` is ``app.shogun``; ``tap`` routes a grid's taps to it."""

    model = ObjectProperty(None)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(model=App.get_running_app().shogun, **kwargs)

    def tap(self, ident: str) -> None:
        _tap(ident)


class ShogunRoundScreen(ShogunScreen):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._picker: ProvincePicker | None = None
        self.model.bind(picker_open=self._on_picker, player_lines=self._players, panel=self._panel)
        self._players()
        self._panel()

    def _panel(self, *_: Any) -> None:
        panels = self.ids.panels
        if self.model.panel in panels.screen_names:
            panels.current = self.model.panel

    def _players(self, *_: Any) -> None:
        box = self.ids.players_box
        rows = list(reversed(box.children))
        lines = self.model.player_lines
        while len(rows) > len(lines):
            box.remove_widget(rows.pop())
        while len(rows) < len(lines):
            rows.append(Factory.ShogunPlayerLine())
            box.add_widget(rows[-1])
        for row, line in zip(rows, lines, strict=True):
            for key in ("colour", "name", "text", "special"):
                if getattr(row, key) != line[key]:
                    setattr(row, key, line[key])

    def _on_picker(self, _model: Any, is_open: bool) -> None:
        if is_open and self.manager is not None and self.manager.current == self.name:
            if self._picker is None:
                self._picker = ProvincePicker(model=self.model)
                self._picker.bind(on_dismiss=lambda *_: self.model.close_picker())
            self._picker.ids.picker_grid.owner = self._picker
            self._picker.open()
        elif not is_open and self._picker is not None:
            self._picker.dismiss()


class ShogunBattleScreen(ShogunScreen):
    pass


class ShogunWinterScreen(ShogunScreen):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model.bind(winter_panel=self._panel)
        self._panel()

    def _panel(self, *_: Any) -> None:
        self.ids.winter_panels.current = self.model.winter_panel


class ShogunScoringScreen(ShogunScreen):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model.bind(score_rows=self._rows)
        self._rows()

    def _rows(self, *_: Any) -> None:
        box = self.ids.score_box
        box.clear_widgets()
        for i, row in enumerate(self.model.score_rows):
            widget = Factory.ShogunScoreRow()
            for key, value in row.items():
                setattr(widget, key, value)
            box.add_widget(widget)
            self.ids[f"score_row_{i}"] = widget


# ---- a new game ---------------------------------------------------------------------------------


class ShogunPlayerRow(BoxLayout):  # type: ignore[misc]
    index = NumericProperty(0)
    colour = StringProperty("")
    screen = ObjectProperty(None)


class ShogunNewScreen(Screen):  # type: ignore[misc]
    """3-5 players with names and colours, the map or per-region counts, the board's side, the app's draws."""

    players = ListProperty([])
    use_map = BooleanProperty(True)
    side = StringProperty("sun")
    randomisers = BooleanProperty(True)
    error = StringProperty("")
    check_first = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        from games.shogun.pack import default_pack, what_to_check_first

        pack = default_pack()
        self.colours = tuple(pack.colours)
        super().__init__(**kwargs)
        self.check_first = "\n".join(f"- {line}" for line in what_to_check_first(pack)[:6])
        self._rows: list[ShogunPlayerRow] = []
        self.players = [{"name": DEFAULT_NAMES[i], "colour": self.colours[i]} for i in range(4)]
        self.bind(players=self._rebuild)
        self._rebuild()

    def _rebuild(self, *_: Any) -> None:
        box = self.ids.new_players
        while len(self._rows) > len(self.players):
            box.remove_widget(self._rows.pop())
        while len(self._rows) < len(self.players):
            row = Factory.ShogunPlayerRow(screen=self)
            self._rows.append(row)
            box.add_widget(row)
        for i, (row, player) in enumerate(zip(self._rows, self.players, strict=True)):
            row.index = i
            row.colour = player["colour"]
            if row.ids.name.text != player["name"]:
                row.ids.name.text = player["name"]
            self.ids[f"player_name_{i}"] = row.ids.name
            self.ids[f"player_colour_{i}"] = row.ids.colour
            self.ids[f"player_remove_{i}"] = row.ids.remove
        for stale in [k for k in self.ids if k.startswith("player_") and int(k.rsplit("_", 1)[1]) >= len(self.players)]:
            del self.ids[stale]
        self.error = "" if 3 <= len(self.players) <= 5 else tr._("Shogun is for 3 to 5 players")

    def rename(self, index: int, name: str) -> None:
        changed = players_form.renamed(self.players, index, name)
        if changed is not None:
            self.players = changed

    def next_colour(self, index: int) -> None:
        changed = players_form.next_colour(self.players, index, self.colours)
        if changed is not None:
            self.players = changed

    def add_player(self) -> None:
        if len(self.players) < 5:
            used = {p["colour"] for p in self.players}
            names = {p["name"] for p in self.players}
            self.players = [*self.players, {"name": next(n for n in DEFAULT_NAMES if n not in names),
                                            "colour": next(c for c in self.colours if c not in used)}]

    def remove_player(self, index: int) -> None:
        if len(self.players) > 3:
            self.players = [p for i, p in enumerate(self.players) if i != index]

    def config(self) -> dict[str, Any]:
        return {"players": [{"name": p["name"].strip() or p["colour"], "colour": p["colour"]} for p in self.players],
                "map": self.use_map, "side": self.side, "randomisers": self.randomisers}

    def start_game(self) -> None:
        for i, row in enumerate(self._rows):
            self.rename(i, row.ids.name.text)
        if self.error:
            return
        App.get_running_app().game.new_game(self.config(), "shogun")

    def resume(self) -> None:
        from games.shogun.app import landing

        app = App.get_running_app()
        app.go(landing(app.game.phase))


def colour_of(name: str) -> tuple[float, float, float, float]:
    return COLOURS.get(name, (0.22, 0.24, 0.29, 1))


def text_on(name: str) -> tuple[float, float, float, float]:
    """Dark text on the light cube colours, light text on the dark ones."""
    return (0.05, 0.05, 0.05, 1) if name in ("yellow", "green") else (0.98, 0.98, 0.98, 1)
