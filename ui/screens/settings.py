"""Settings: language (switches at once), table hardware and dice tray, camera, sounds, convention hub.

Text fields are saved when the user taps "Save"; toggles save at once. Saving writes the settings
file (see :mod:`ui.settings`) and reconnects devices on a worker thread.
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen

from ui.tr import tr


class SettingsScreen(Screen):
    message = StringProperty("")

    def on_pre_enter(self, *_: Any) -> None:
        self.load_fields()

    def load_fields(self) -> None:
        settings = App.get_running_app().settings
        self.ids.hardware_url.text = settings.hardware_url
        self.ids.camera.text = settings.camera
        self.ids.hub_url.text = settings.hub_url
        self.ids.event_code.text = settings.event_code
        self.ids.join_secret.text = settings.join_secret
        self.ids.table_name.text = settings.table_name
        self.message = ""

    def choose_language(self, language: str) -> None:
        App.get_running_app().set_language(language)

    def use_emulator(self) -> None:
        self.ids.hardware_url.text = ""
        self.save()

    def no_hardware(self) -> None:
        self.ids.hardware_url.text = "none"
        self.save()

    def toggle_sounds(self) -> None:
        app = App.get_running_app()
        app.save_settings(sounds=not app.settings.sounds)

    def save(self) -> None:
        app = App.get_running_app()
        code = self.ids.event_code.text.strip().upper()
        hub = self.ids.hub_url.text.strip()
        if hub and not hub.startswith(("http://", "https://")):
            self.message = tr._("The hub address starts with http:// or https://")
            return
        app.save_settings(
            hardware_url=self.ids.hardware_url.text.strip(),
            camera=self.ids.camera.text.strip(),
            hub_url=hub,
            event_code=code,
            join_secret=self.ids.join_secret.text.strip().upper(),
            table_name=self.ids.table_name.text.strip() or "Table 1",
        )
        self.ids.event_code.text = code
        self.message = tr._("Saved")
