"""Gear: a tap-to-place grid editor for each player's helmet, weapons and sandals, with legality,
strength, initiative and matching gear cards / Magical Blueprints shown live; "Read from photo".
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.factory import Factory
from kivy.properties import ObjectProperty
from kivy.uix.screenmanager import Screen

from games.fujikoro.gear import grid_shape
from ui.widgets import Sheet

GRIDS = ("helmet", "sandals", "weapon_left", "weapon_right")


class GearScreen(Screen):
    model = ObjectProperty(None)

    def __init__(self, **kwargs: Any) -> None:
        app = App.get_running_app()
        super().__init__(model=app.gear, **kwargs)
        self._shapes: dict[str, tuple[int, int]] = {}
        self._tabs: list[Any] = []
        self.model.bind(grids=self._paint, uncertain=self._paint, player_names=self._rebuild_tabs,
                        selected=self._rebuild_tabs)
        app.theme.bind(touch=lambda *_: self._rebuild_grids())
        self._rebuild_tabs()
        self._rebuild_grids()

    def _rebuild_tabs(self, *_: Any) -> None:
        box = self.ids.gear_players
        box.clear_widgets()
        for key in [k for k in self.ids if k.startswith("gear_player_")]:
            del self.ids[key]
        for i, name in enumerate(self.model.player_names):
            tab = Factory.TouchToggle(text=name, group="gear_player", allow_no_selection=False,
                                      state="down" if i == self.model.selected else "normal")
            tab.bind(on_release=lambda _t, i=i: self.model.select(i))
            box.add_widget(tab)
            self.ids[f"gear_player_{i}"] = tab
        self._rebuild_grids()

    def _rebuild_grids(self, *_: Any) -> None:
        gear = self.model.gear
        if gear is None:
            return
        spec = self.model.pack.board(gear.board)
        shapes = {name: grid_shape(spec, name) for name in GRIDS}
        if shapes == self._shapes and self.ids.grid_helmet.children:
            self._paint()
            return
        self._shapes = shapes
        size = App.get_running_app().theme.touch
        for name in GRIDS:
            grid = self.ids[f"grid_{name}"]
            grid.clear_widgets()
            rows, cols = shapes[name]
            grid.cols = cols
            grid.size = (cols * size + (cols - 1) * grid.spacing[0], rows * size + (rows - 1) * grid.spacing[1])
            for r in range(rows):
                for c in range(cols):
                    cell = Factory.CubeCell(row=r, col=c, grid_name=name, size_hint=(None, None),
                                            size=(size, size))
                    cell.bind(on_release=lambda cell: self.model.tap(cell.grid_name, int(cell.row), int(cell.col)))
                    grid.add_widget(cell)
                    self.ids[f"gear_{name}_{r}_{c}"] = cell
        self._paint()

    def _paint(self, *_: Any) -> None:
        unsure = set(self.model.uncertain)
        for name in GRIDS:
            rows = self.model.grids.get(name, [])
            for r, row in enumerate(rows):
                for c, ch in enumerate(row):
                    cell = self.ids.get(f"gear_{name}_{r}_{c}")
                    if cell is not None:
                        cell.cell = ch
                        cell.uncertain = f"{name}:{r}:{c}" in unsure

    def open_more(self) -> None:
        GearMorePopup(model=self.model).open()


class GearMorePopup(Sheet):
    model = ObjectProperty(None)

    def read_photo(self, retake: bool = False) -> None:
        """Read a photo; ``retake``: another photo of the same board, read together with the last one."""
        app = App.get_running_app()
        source = self.ids.gear_photo_source.text.strip() or app.settings.camera
        self.model.read_photo(source, retake=retake)
        self.dismiss()

    def keep_example(self) -> None:
        self.model.keep_example()
        self.dismiss()

    def setup_camera(self) -> None:
        app = App.get_running_app()
        source = self.ids.gear_photo_source.text.strip() or app.settings.camera
        self.model.setup_camera(source)
        self.dismiss()

    def keep_camera_partial(self) -> None:
        self.model.keep_camera_partial()
        self.dismiss()
