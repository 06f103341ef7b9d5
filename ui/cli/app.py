"""``fujikoro app``: start the tablet app with options (``fujikoro`` alone starts it with the defaults).

    fujikoro app [--size 800x480] [--fullscreen] [--lang cs|de|en] [--play GAME]

Kivy is imported only inside the handler, so ``fujikoro --help`` stays fast on a headless machine.
"""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("app", help="start the tablet app (size, fullscreen, language)")
    parser.add_argument("--size", help="window size, e.g. 1280x800 or 800x480 (default 1280x800)")
    parser.add_argument("--fullscreen", action="store_true", help="fill the screen (a Raspberry Pi touchscreen)")
    parser.add_argument("--lang", choices=("en", "cs", "de"), help="language for this run (default: Settings)")
    parser.add_argument("--play", metavar="GAME", help="the game to host, e.g. fujikoro (default: the last one played)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ui.app import run_from_args

    return run_from_args(args)
