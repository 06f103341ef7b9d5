"""Game data: every value of the data pack with its status; assumed ones stand out. Tap a row to
edit it in place (saved to the group's override file), reset one value or all to the shipped pack.
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen


class DataRow(ButtonBehavior, BoxLayout):
    key = StringProperty("")
    value_text = StringProperty("")
    status_text = StringProperty("")
    status = StringProperty("")
    selected = BooleanProperty(False)

    def on_release(self) -> None:
        App.get_running_app().pack.select(self.key)


class GameDataScreen(Screen):
    def on_pre_enter(self, *_: Any) -> None:
        App.get_running_app().pack.load()

    def save(self) -> None:
        App.get_running_app().pack.save_value(self.ids.data_value.text)

    def search(self, text: str) -> None:
        App.get_running_app().pack.query = text
