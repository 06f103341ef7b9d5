"""The tablet app's own settings: language, device connections, sounds, convention hub, last game.

Stored as TOML next to the group's data corrections, in the config folder of :mod:`companion.paths` (the
platformdirs user config dir, e.g. ``~/.config/fujikoro/app.toml`` on Linux; ``FUJIKORO_CONFIG_DIR``
moves it). Written atomically
(temp file + rename) so a crash while saving never leaves a half file; an unreadable file is set aside
as ``app.toml.bad`` and the defaults are used, because the app must always start at the table.
No Kivy here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from companion.paths import app_paths
from ui.i18n import Language


class SettingsError(ValueError):
    """A settings value of the wrong kind; the message names the key."""


@dataclass(frozen=True, slots=True)
class Settings:
    language: str = Language.ENGLISH.value
    sounds: bool = True
    # The table (LEDs, buttons and dice tray on one link): "" = the emulated table (simulated),
    # "none" = no hardware, or a pyserial URL (``/dev/ttyACM0``, ``socket://host:port``).
    hardware_url: str = ""
    # Buttons, a tray switch and a status LED wired to this host's GPIO pins (a Raspberry Pi under the
    # table); the pins are in panel_pins.toml in the config folder.
    gpio_panel: bool = False
    # A camera index ("0"), a folder of photos, or "" for none.
    camera: str = ""
    hub_url: str = ""
    event_code: str = ""
    # The secret the organiser gives the tables (not on the projector, as the event code is).
    join_secret: str = ""
    table_name: str = "Table 1"
    last_game: str = ""
    # The game the app hosted last (a registry name such as "fujikoro"); the app opens it again.
    last_played: str = ""

    def replace(self, **changes: Any) -> Settings:
        for key, value in changes.items():
            _check(key, value)
        return dataclasses.replace(self, **changes)


_FIELDS = {f.name: f for f in dataclasses.fields(Settings)}


def _check(key: str, value: Any) -> None:
    if key not in _FIELDS:
        raise SettingsError(f"unknown setting {key!r}")
    expected = type(getattr(Settings(), key))
    if type(value) is not expected:
        raise SettingsError(f"setting {key!r} must be {expected.__name__}, got {value!r}")
    if key == "language" and value not in {x.value for x in Language}:
        raise SettingsError(f"setting 'language' must be one of en, cs, de, got {value!r}")


def settings_path() -> Path:
    return app_paths().settings


def load(path: Path | None = None) -> Settings:
    path = path or settings_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Settings()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        _set_aside(path)
        return Settings()
    known: dict[str, Any] = {}
    for key, value in data.items():
        try:
            _check(key, value)
        except SettingsError:
            continue  # a newer or hand-edited file: keep what we understand
        known[key] = value
    return Settings(**known)


def save(settings: Settings, path: Path | None = None) -> Path:
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as handle:
        tomli_w.dump(dataclasses.asdict(settings), handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    return path


def _set_aside(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.replace(path, path.with_name(path.name + ".bad"))
