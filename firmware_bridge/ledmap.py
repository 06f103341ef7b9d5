"""The LED map: which WS2812 in the chain sits under which lava space and countdown space.

The map is a JSON file the user edits for their build (JSON because the Pico reads the same file).
The shipped default is ``firmware/ledmap.json``; a user copy ``ledmap.json`` in the config dir
(``FUJIKORO_CONFIG_DIR``, else the platformdirs user config dir, e.g. ``~/.config/fujikoro``) or
``--ledmap PATH`` replaces it. Host and device compare :attr:`LedMap.checksum` at HELLO so a mismatch is noticed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.paths import app_paths
from firmware_bridge.firmware import protocol

DEFAULT_PATH = Path(__file__).resolve().parent / "firmware" / "ledmap.json"
COLOUR_KEYS = ("lava", "bar_lit", "bar_unlit", "rope", "ended")

RGB = tuple[int, int, int]


class LedMapError(ValueError):
    """An LED map file that cannot drive the chain (bad JSON, indices out of range or used twice)."""


@dataclass(frozen=True, slots=True)
class LedMap:
    chain_length: int
    lava: Mapping[int, tuple[int, ...]]
    countdown: tuple[int, ...]
    colours: Mapping[str, RGB]
    players: Mapping[str, RGB]
    brightness: float
    raw: Mapping[str, Any]

    @property
    def checksum(self) -> int:
        return int(protocol.map_checksum(self.raw))

    @property
    def lava_count(self) -> int:
        return sum(len(v) for v in self.lava.values())

    def colour(self, name: str) -> RGB:
        """A named colour with the map's brightness applied."""
        return self.scale(self.colours[name])

    def player(self, name: str | None) -> RGB:
        if not name:
            return (0, 0, 0)
        rgb = self.players.get(name.lower())
        return self.scale(rgb) if rgb is not None else self.scale((255, 255, 255))

    def scale(self, rgb: RGB) -> RGB:
        r, g, b = (min(255, round(c * self.brightness)) for c in rgb)
        return (r, g, b)


def _rgb(path: str, value: Any) -> RGB:
    if not (isinstance(value, list) and len(value) == 3 and all(isinstance(c, int) and 0 <= c <= 255 for c in value)):
        raise LedMapError(f"{path}: a colour is [r, g, b] with each 0..255, got {value!r}")
    return (value[0], value[1], value[2])


def parse(raw: Mapping[str, Any], *, origin: str = "LED map") -> LedMap:
    try:
        n = raw["chain_length"]
        if not isinstance(n, int) or not 1 <= n <= 1000:
            raise LedMapError(f"{origin}: chain_length must be 1..1000, got {n!r}")
        used: dict[int, str] = {}

        def index(path: str, value: Any) -> int:
            if not isinstance(value, int) or not 0 <= value < n:
                raise LedMapError(f"{origin}: {path}: LED index must be 0..{n - 1}, got {value!r}")
            if value in used:
                raise LedMapError(f"{origin}: {path}: LED {value} is already used by {used[value]}")
            used[value] = path
            return value

        lava: dict[int, tuple[int, ...]] = {}
        for key, indices in raw["lava"].items():
            if not str(key).isdigit():
                raise LedMapError(f"{origin}: lava keys are lava numbers, got {key!r}")
            lava[int(key)] = tuple(index(f"lava.{key}[{i}]", v) for i, v in enumerate(indices))
        countdown = tuple(index(f"countdown[{i}]", v) for i, v in enumerate(raw["countdown"]))
        if len(countdown) > 255:
            raise LedMapError(f"{origin}: at most 255 countdown LEDs")
        colours = {k: _rgb(f"colours.{k}", raw["colours"][k]) for k in COLOUR_KEYS}
        players = {str(k).lower(): _rgb(f"players.{k}", v) for k, v in raw.get("players", {}).items()}
        brightness = float(raw.get("brightness", 1.0))
        if not 0.0 < brightness <= 1.0:
            raise LedMapError(f"{origin}: brightness must be in (0, 1], got {brightness}")
    except KeyError as error:
        raise LedMapError(f"{origin}: missing {error.args[0]!r}") from None
    except (TypeError, AttributeError) as error:
        raise LedMapError(f"{origin}: malformed ({error})") from None
    return LedMap(n, lava, countdown, colours, players, brightness, dict(raw))


def load(path: Path | str | None = None) -> LedMap:
    """Read an LED map file (the shipped default when ``path`` is None)."""
    p = Path(path) if path is not None else DEFAULT_PATH
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except OSError as error:
        raise LedMapError(f"cannot read LED map {p}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise LedMapError(f"{p}: not valid JSON ({error.msg}, line {error.lineno})") from None
    if not isinstance(raw, dict):
        raise LedMapError(f"{p}: expected a JSON object")
    return parse(raw, origin=str(p))


def default() -> LedMap:
    return load(None)


def user_path() -> Path:
    """Where the group's own LED map lives (it need not exist)."""
    return app_paths().ledmap


def configured(path: Path | str | None = None) -> LedMap:
    """``path`` if given, else the user's map if there is one, else the shipped default."""
    if path is not None:
        return load(path)
    user = user_path()
    return load(user) if user.exists() else default()
