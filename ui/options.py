"""The app's start-up options (window size, language, the scripted test driver), and when it was launched.

Kept apart from :mod:`ui.app` (which configures Kivy) and :mod:`ui.shell` (the Kivy app) so that both can
read them without importing each other.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass

LAUNCHED_AT = time.perf_counter()

DEFAULT_SIZE = (1280, 800)


class AppOptionsError(ValueError):
    """A bad app option (for example ``--size 12x``)."""


@dataclass(frozen=True, slots=True)
class AppOptions:
    size: tuple[int, int] = DEFAULT_SIZE
    fullscreen: bool = False
    language: str | None = None
    game: str | None = None
    play: str | None = None  # the game to host (a registry name), instead of the last one played
    script: str | None = None
    report: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace | None) -> AppOptions:
        env = os.environ
        size_text = getattr(args, "size", None) or env.get("FUJIKORO_UI_SIZE") or ""
        size = parse_size(size_text) if size_text else DEFAULT_SIZE
        return cls(
            size=size,
            fullscreen=bool(getattr(args, "fullscreen", False)),
            language=getattr(args, "lang", None) or env.get("FUJIKORO_UI_LANG") or None,
            game=getattr(args, "game", None) or None,
            play=getattr(args, "play", None) or env.get("FUJIKORO_UI_PLAY") or None,
            script=getattr(args, "script", None) or env.get("FUJIKORO_UI_SCRIPT") or None,
            report=env.get("FUJIKORO_UI_REPORT") or None,
        )


def parse_size(text: str) -> tuple[int, int]:
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise AppOptionsError(f"a window size looks like 1280x800, got {text!r}")
    width, height = int(parts[0]), int(parts[1])
    if width < 320 or height < 240:
        raise AppOptionsError(f"the window must be at least 320x240, got {text!r}")
    return width, height


