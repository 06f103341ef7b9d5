"""Combat: choose the dragon figure (or type its stats), joiners and Heroic Monks; then the fight:
the initiative order, the dragon's health bar (past 30 too), whose roll it is, "Roll for the dragon"
(animated, then applied), a samurai's roll rolled by the app or entered by tapping faces, the helmet
damage with the suggested removal and its alternatives, live odds with progress, and the fight log.
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.factory import Factory
from kivy.properties import ListProperty, ObjectProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from games.fujikoro.app.combat import CombatModel, dragon_title
from ui.tr import tr
from ui.widgets import Sheet


def dragon_label(dragon_id: str, pack: Any, tr: Any) -> str:
    dragon = pack.dragons[dragon_id]
    return f"{dragon_title(dragon_id, pack)}\n{tr._('Ini')} {dragon.initiative} / {tr._('HP')} {dragon.health}"


class CombatSetupView(BoxLayout):
    model = ObjectProperty(None)


class CombatFightView(BoxLayout):
    model = ObjectProperty(None)


class DamagePopup(Sheet):
    model = ObjectProperty(None)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        box = self.ids.damage_rows
        box.clear_widgets()
        for i, (name, texts) in enumerate(self.model.pending.items()):
            row = Factory.DamageRow()
            row.name = name
            for k, text in enumerate(texts):
                option = Factory.TouchToggle(text=text, group=f"removal_{i}", allow_no_selection=False,
                                             state="down" if self.model.choices.get(name, 0) == k else "normal")
                option.bind(on_release=lambda _b, n=name, k=k: self.model.choose_removal(n, k))
                row.ids.options.add_widget(option)
                self.ids[f"removal_{i}_{k}"] = option
            box.add_widget(row)

    def apply(self) -> None:
        self.model.apply_damage()
        self.dismiss()


class DiceEntryPopup(Sheet):
    model = ObjectProperty(None)
    chosen = ListProperty([])

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows = self.model.dice_for_entry()
        self.chosen = [None] * len(self.rows)
        box = self.ids.dice_rows
        box.clear_widgets()
        for i, (_hand, kind, faces) in enumerate(self.rows):
            row = Factory.DiceRow()
            row.kind = kind
            for k, face in enumerate(faces):
                label = f"{face[:-1]}*" if face.endswith("b") else face
                button = Factory.TouchToggle(text=label, group=f"die_{i}", allow_no_selection=False)
                button.bind(on_release=lambda _b, i=i, f=face: self.pick(i, f))
                row.ids.faces.add_widget(button)
                self.ids[f"face_{i}_{k}"] = button
            box.add_widget(row)

    def pick(self, index: int, face: str) -> None:
        chosen = list(self.chosen)
        chosen[index] = face
        self.chosen = chosen

    def apply(self) -> None:
        if any(c is None for c in self.chosen):
            return
        entries = [(hand, kind, face) for (hand, kind, _faces), face in zip(self.rows, self.chosen, strict=True)]
        self.model.enter_dice(entries)
        self.dismiss()


class CombatScreen(Screen):
    model = ObjectProperty(None)

    def __init__(self, **kwargs: Any) -> None:
        app = App.get_running_app()
        super().__init__(model=CombatModel(app.game, app.pack, app.gear), **kwargs)
        app.combat = self.model
        self._setup = CombatSetupView(model=self.model)
        self._fight = CombatFightView(model=self.model)
        self.model.bind(phase=self._show, pending=self._on_pending)
        self.model.bind(rolling=lambda _m, rolling: rolling and app.play_sound("dice"))
        self.model.pack and self._build_dragons()
        app.pack.bind(pack=lambda *_: self._build_dragons())
        tr.bind(language=lambda *_: self._build_dragons())
        self._show()

    def _show(self, *_: Any) -> None:
        body = self.ids.combat_body
        body.clear_widgets()
        body.add_widget(self._setup if self.model.phase == "setup" else self._fight)

    def _build_dragons(self) -> None:
        app = App.get_running_app()
        grid = self._setup.ids.dragons
        grid.clear_widgets()
        for dragon_id in app.pack.pack.dragons:
            button = Factory.TouchToggle(text=dragon_label(dragon_id, app.pack.pack, tr), group="dragon",
                                         allow_no_selection=False,
                                         state="down" if dragon_id == self.model.dragon_id and not self.model.custom
                                         else "normal")
            button.base_font_size = app.theme.font_s
            button.halign = "center"
            button.bind(on_release=lambda _b, d=dragon_id: self.model.choose_dragon(d))
            grid.add_widget(button)
            self._setup.ids[f"dragon_{dragon_id}"] = button
        custom = Factory.TouchToggle(text=tr._("Type stats"), group="dragon", allow_no_selection=False,
                                     state="down" if self.model.custom else "normal")
        custom.base_font_size = app.theme.font_s
        custom.bind(on_release=lambda _b: self.model.choose_dragon("custom"))
        grid.add_widget(custom)
        self._setup.ids["dragon_custom"] = custom

    def _on_pending(self, _model: Any, pending: dict[str, Any]) -> None:
        if pending:
            DamagePopup(model=self.model).open()

    def open_dice_entry(self) -> None:
        if self.model.dice_for_entry():
            DiceEntryPopup(model=self.model).open()
