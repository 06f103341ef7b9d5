"""The Kivy tablet app: the window, the screen manager, the status and navigation bars.

``fujikoro`` with no arguments calls :func:`run_from_args`. Options come from the command line
(``fujikoro app --size 800x480``) or the environment (``FUJIKORO_UI_SIZE``, ``FUJIKORO_UI_SCRIPT`` for
the scripted test driver). Kivy is configured here, before its window module is imported, so that
importing :mod:`ui` never opens a window.

The app owns no rules: the game session, the fight engine and the gear rules do. It owns view models
(``ui.viewmodels``) that adapt them for the screens and run slow work on threads.
"""

from __future__ import annotations

import argparse
import os
import sys

from ui.options import AppOptions, AppOptionsError


def configure_kivy(options: AppOptions) -> None:
    """Kivy reads its config when first imported: set size, input and logging before that."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_FILELOG", "1")
    from kivy.config import Config

    Config.set("graphics", "width", str(options.size[0]))
    Config.set("graphics", "height", str(options.size[1]))
    Config.set("graphics", "resizable", "1")
    # No multisampling: flat panels and text gain nothing from it, and on a Pi or any software GL it
    # multiplies the cost of every frame (Kivy's default is 2 samples per pixel).
    Config.set("graphics", "multisamples", "0")
    Config.set("graphics", "fullscreen", "auto" if options.fullscreen else "0")
    Config.set("input", "mouse", "mouse,disable_multitouch")
    Config.set("kivy", "exit_on_escape", "0")
    Config.set("kivy", "window_icon", "")


def run_from_args(args: argparse.Namespace | None = None) -> int:
    """Start the tablet app; returns the exit status."""
    try:
        options = AppOptions.from_args(args)
    except AppOptionsError as error:
        from ui.cli import CliError

        raise CliError(str(error)) from None
    configure_kivy(options)
    from ui.shell import FujiKoroApp

    app = FujiKoroApp(options=options)
    app.run()
    return app.exit_code


def main(argv: list[str] | None = None) -> int:
    """``python -m ui.app [--size WxH]``."""
    parser = argparse.ArgumentParser(prog="python -m ui.app")
    parser.add_argument("--size")
    parser.add_argument("--fullscreen", action="store_true")
    parser.add_argument("--lang")
    parser.add_argument("--game")
    return run_from_args(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
