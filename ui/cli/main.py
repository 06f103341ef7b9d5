"""Entry point of the ``fujikoro`` and ``table-companion`` console scripts: finds the subcommand modules
and each game's own verbs (``GameModule.cli``), and dispatches."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

import ui.cli as cli_package
from companion import registry
from ui.cli import CliError

Handler = Callable[[argparse.Namespace], int]


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a bad option in one sentence (not the usage block), exit status 2; every
    subcommand's parser is one too (argparse makes sub-parsers of the parent's class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (`{self.prog} --help` lists the options)\n")


def build_parser(prog: str = "fujikoro") -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=prog,
        description="Table companion for board games (Fuji Koro, Shogun, ...). "
        "With no subcommand it starts the tablet app.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    taken: set[str] = set()
    for info in sorted(pkgutil.iter_modules(cli_package.__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name == "main":
            continue
        module = importlib.import_module(f"{cli_package.__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
            taken.add(info.name)
    # Each game's own verbs, under the game's name: `table-companion shogun battle`. A command named after
    # a game (`fujikoro`) also has that game's verbs at its top level, as it always had.
    known = registry.games()
    home = known.get(prog)
    if home is not None and home.cli is not None:
        home.cli(subparsers)
    for name, game in sorted(known.items()):
        if game.cli is None or name in taken or name == prog:
            continue
        game_parser = subparsers.add_parser(name, help=f"{game.title}: the game's own commands")
        game.cli(game_parser.add_subparsers(dest=f"{name}_command", metavar="ACTION", required=True))
    return parser


def main_neutral(argv: Sequence[str] | None = None) -> int:
    """The game-neutral ``table-companion`` command (the same verbs as ``fujikoro``)."""
    return main(argv, prog="table-companion")


def main(argv: Sequence[str] | None = None, prog: str = "fujikoro") -> int:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        app = _app_handler()
        if app is None:
            parser.print_help()
            return 0
        handler = app
    try:
        return handler(args)
    except CliError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def _app_handler() -> Handler | None:
    """The tablet app, when it is installed; imported lazily so headless commands never load Kivy."""
    try:
        module = importlib.import_module("ui.app")
    except ModuleNotFoundError as error:
        if error.name == "ui.app":
            return None
        raise
    run: Handler = module.run_from_args
    return run


if __name__ == "__main__":
    sys.exit(main())
