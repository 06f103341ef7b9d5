"""Final scoring: Shogun bonuses, the ranking with the tie-break explained, the VP-over-time chart,
and export (the BG Stats link and a CSV score sheet).
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.properties import ObjectProperty
from kivy.uix.screenmanager import Screen

from games.fujikoro.app.scoring import ScoringModel


class ScoringScreen(Screen):
    model = ObjectProperty(None)

    def __init__(self, **kwargs: Any) -> None:
        app = App.get_running_app()
        super().__init__(model=ScoringModel(app.game), **kwargs)
        app.scoring = self.model
