"""The app's screens: one ``<name>.py`` (behaviour) + ``<name>.kv`` (layout) pair each.

:data:`SCREENS` lists the shell's own (screen name, navigation label, module, class), shown after the hosted
game's screens (``ui.hosting``). The app imports a
screen module and loads its ``.kv`` when it builds the window, never at import time.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from kivy.lang import Builder

from ui.i18n import N_

SCREENS: tuple[tuple[str, str, str, str], ...] = (
    ("games", N_("Games"), "ui.screens.games", "GamesScreen"),
    ("settings", N_("Settings"), "ui.screens.settings", "SettingsScreen"),
)

_LOADED: set[str] = set()


def screen_class(module_name: str, class_name: str) -> Any:
    """Import a screen module, load its ``.kv`` once, return the screen class."""
    module = importlib.import_module(module_name)
    kv = Path(module.__file__ or "").with_suffix(".kv")
    if str(kv) not in _LOADED:
        Builder.load_file(str(kv))
        _LOADED.add(str(kv))
    return getattr(module, class_name)
