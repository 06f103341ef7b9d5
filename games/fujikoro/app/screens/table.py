"""Table: every player's VP (tap to add with a category, hold to correct), whose turn and which
actions, end turn, the countdown track lighting up as it advances, escapes and Shogun bonuses.
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.factory import Factory
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from games.fujikoro.app.table import VP_CATEGORIES, TableModel, category_label
from ui.widgets import LongPressMixin, Sheet


class VpCard(LongPressMixin, ButtonBehavior, BoxLayout):
    index = NumericProperty(0)
    name = StringProperty("")
    colour = StringProperty("")
    vp = NumericProperty(0)
    detail = StringProperty("")
    current = BooleanProperty(False)
    screen = ObjectProperty(None)

    def on_release(self) -> None:
        self.screen.open_vp(self.name)

    def on_long_press(self) -> None:
        self.screen.open_correction(self.name)


class VpPopup(Sheet):
    model = ObjectProperty(None)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        box = self.ids.categories
        box.clear_widgets()
        for category, _key in VP_CATEGORIES:
            points = self.model.default_points(category)
            fixed = _key is not None and _key in self.model.pack.scoring
            button = Factory.TouchButton(
                text=f"{category_label(category)} +{points}" if fixed else category_label(category))
            button.bind(on_release=lambda _b, c=category, f=fixed: self.choose(c, f))
            box.add_widget(button)
            self.ids[f"vp_cat_{category}"] = button

    def choose(self, category: str, fixed: bool) -> None:
        self.model.add_vp(category, None if fixed else int(self.model.vp_amount))
        self.dismiss()


class CorrectionPopup(Sheet):
    model = ObjectProperty(None)
    amount = NumericProperty(-1)

    def apply(self) -> None:
        if self.model.correct_vp(int(self.amount), self.ids.corr_reason.text):
            self.dismiss()


class EscapePopup(Sheet):
    model = ObjectProperty(None)
    monks = NumericProperty(0)
    teeth = NumericProperty(0)

    def escape(self, via: str) -> None:
        tokens = {
            "helmet": int(self.ids.esc_helmet.state == "down"),
            "weapon": int(self.ids.esc_weapon.state == "down"),
            "sandals": int(self.ids.esc_sandals.state == "down"),
            "monks": int(self.monks),
            "teeth": int(self.teeth),
        }
        self.model.escape(via, tokens)
        self.dismiss()

    def bonus(self, track: str) -> None:
        self.model.shogun_bonus(track)
        self.dismiss()


class TableScreen(Screen):
    model = ObjectProperty(None)

    def __init__(self, **kwargs: Any) -> None:
        app = App.get_running_app()
        super().__init__(model=TableModel(app.game, app.pack), **kwargs)
        self.model.bind(cards=self._rebuild)
        self._cards: list[VpCard] = []
        self._rebuild()

    def _rebuild(self, *_: Any) -> None:
        grid = self.ids.cards
        cards = self.model.cards
        grid.cols = 3 if len(cards) > 4 or len(cards) == 3 else 2 if len(cards) > 1 else 1
        while len(self._cards) > len(cards):
            grid.remove_widget(self._cards.pop())
        while len(self._cards) < len(cards):
            card = Factory.VpCard(screen=self)
            self._cards.append(card)
            grid.add_widget(card)
        for i, (card, data) in enumerate(zip(self._cards, cards, strict=True)):
            for key, value in data.items():
                setattr(card, key, value)
            self.ids[f"vp_{i}"] = card
        for stale in [k for k in self.ids if k.startswith("vp_") and k[3:].isdigit() and int(k[3:]) >= len(cards)]:
            del self.ids[stale]

    def open_vp(self, player: str) -> None:
        if not self.model.scores_vp:
            return
        self.model.open_vp(player)
        VpPopup(model=self.model).open()

    def open_correction(self, player: str) -> None:
        if not self.model.scores_vp:
            return
        self.model.open_vp(player)
        CorrectionPopup(model=self.model).open()

    def open_escape(self) -> None:
        EscapePopup(model=self.model).open()
