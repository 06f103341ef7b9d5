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


def choose_clipboard() -> None:
    """Choose Kivy's clipboard once the window is open, before the first text field makes Kivy choose it.

    On Linux Kivy tries the xclip and xsel programs first, and takes the X11 cut buffer (the primary
    selection: select, then middle-click to paste) from them alone: with neither installed it logged a
    CRITICAL line and two tracebacks at every start, harmless but alarming. The SDL2 window has its own
    clipboard, which needs no program: it is chosen on that window (unless ``KIVY_CLIPBOARD`` names
    another). The cut buffer still comes from xclip or xsel where one is installed; without them it is
    off, which one info line says."""
    import shutil

    import kivy
    from kivy.core.window import Window
    from kivy.logger import Logger
    from kivy.utils import platform

    if platform != "linux" or "kivy.core.clipboard" in sys.modules:
        return
    if "KIVY_CLIPBOARD" not in os.environ and type(Window).__name__ == "WindowSDL":
        kivy.kivy_options["clipboard"] = ("sdl2", "dummy")
    tools = [tool for tool in ("xclip", "xsel") if shutil.which(tool)]
    # Kivy reads no setting for the cut buffer, but its chooser honours an option list like every other's.
    kivy.kivy_options["cutbuffer"] = tools
    quiet = _WithoutCutBufferAlarm()
    if not tools:
        Logger.addFilter(quiet)
    try:
        import kivy.core.clipboard  # noqa: F401 - chooses the clipboard and the cut buffer
    finally:
        Logger.removeFilter(quiet)
    if not tools:
        Logger.info("Cutbuffer: off: neither xclip nor xsel is installed (one of them gives middle-click "
                    "paste of a selection)")


class _WithoutCutBufferAlarm:
    """Drops the one CRITICAL record Kivy logs when it finds no cut buffer provider (used only when none
    is installed, so that record says nothing the info line after it does not)."""

    def filter(self, record: object) -> bool:
        return not str(getattr(record, "msg", "")).startswith("Cutbuffer: Unable to find any valuable")


def run_from_args(args: argparse.Namespace | None = None) -> int:
    """Start the tablet app; returns the exit status."""
    try:
        options = AppOptions.from_args(args)
    except AppOptionsError as error:
        from ui.cli import CliError

        raise CliError(str(error)) from None
    configure_kivy(options)
    from ui.shell import FujiKoroApp  # (opens the window)

    choose_clipboard()
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
