"""The games this app can play, found without a shared list: the one registry.

A game is a package that describes itself with a :class:`GameModule` named ``GAME`` at its top level. The
registry finds them in three ways, so adding a game touches no shared file:

* every sub-package of the ``games`` package that this app ships (``games/fujikoro/``, ...);
* every installed distribution that declares an entry point in the group ``table_companion.games``
  (``fujikoro = "my_game_package"``), for games that come as their own package;
* the packages named in ``$TABLE_COMPANION_GAMES`` (comma-separated module names), for a game being
  developed without installing it (the tests' counter game runs in the app this way);
* :func:`register`, for a game a program builds itself (tests do).

The kernel imports no game: discovery imports by name, at the moment a game is first asked for.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from importlib import metadata
from typing import Any

from companion.datapack import PackSpec
from companion.engine import Game

ENTRY_POINT_GROUP = "table_companion.games"
#: Extra game packages by module name, comma-separated (a game being developed, or the tests' own):
#: ``TABLE_COMPANION_GAMES=tests.counter_game``.
ENV_GAMES = "TABLE_COMPANION_GAMES"
BUILT_IN_PACKAGE = "games"


class UnknownGameError(ValueError):
    """A game this app does not know (a file from a newer app, or a game package not installed)."""


@dataclass(frozen=True, slots=True)
class NewGame:
    """What a game stores in a new game file's header besides its setup: its data version and blobs."""

    version: str
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class GameModule:
    """How the app meets a game.

    ``rules`` builds the game's rules from the data a game file stored (so a replay uses the values the
    game was played with); ``new_game`` makes that data for a new game from the group's corrections;
    ``cli`` (optional) adds the game's command-line verbs; ``data_pack`` (optional) is its data pack.
    """

    name: str
    title: str
    rules: Callable[[Mapping[str, Any]], Game[Any]]
    new_game: Callable[[Mapping[str, Any]], NewGame]
    players: tuple[int, int] = (1, 6)
    #: Adds the game's command-line verbs: called with an argparse sub-parsers object; each verb sets
    #: ``handler`` (``args -> exit code``) with ``set_defaults``. The command line puts them under the
    #: game's name (``table-companion shogun battle``).
    cli: Callable[[Any], None] | None = None
    #: The game's part of the tablet app: returns a ``ui.hosting.GameApp`` (screens, view models, table
    #: script, buttons). Called when the app builds its window; None for a game without screens.
    app: Callable[[], Any] | None = None
    #: The package the game came from (filled in by the registry): where its data, screens and
    #: translations live.
    package: str = ""
    #: The game's data pack for the shared data verbs (``data show|set|reset|validate``): how it is read,
    #: corrected and checked. None for a game without one.
    data_pack: PackSpec | None = None


_lock = threading.RLock()  # a game package may register() itself while discovery imports it
_registered: dict[str, GameModule] = {}
_found: dict[str, GameModule] | None = None


def register(module: GameModule) -> None:
    """Make a game known (a game found by discovery under the same name is replaced)."""
    with _lock:
        _registered[module.name] = module


def _module_of(package: Any, where: str) -> GameModule:
    module = getattr(package, "GAME", None)
    if not isinstance(module, GameModule):
        raise UnknownGameError(f"{where} has no GAME (a companion.registry.GameModule) at its top level")
    if not module.package:
        module = replace(module, package=package.__name__)
    return module


def _discover() -> dict[str, GameModule]:
    found: dict[str, GameModule] = {}
    try:
        built_in = importlib.import_module(BUILT_IN_PACKAGE)
    except ModuleNotFoundError:
        built_in = None
    if built_in is not None:
        for info in pkgutil.iter_modules(built_in.__path__, prefix=f"{BUILT_IN_PACKAGE}."):
            if info.ispkg:
                module = _module_of(importlib.import_module(info.name), info.name)
                found[module.name] = module
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        module = _module_of(entry.load(), f"entry point {entry.name!r}")
        found.setdefault(module.name, module)
    for name in filter(None, (part.strip() for part in os.environ.get(ENV_GAMES, "").split(","))):
        try:
            package = importlib.import_module(name)
        except ImportError as error:
            raise UnknownGameError(f"{ENV_GAMES}: cannot import {name!r}: {error}") from None
        module = _module_of(package, f"{ENV_GAMES} package {name!r}")
        found.setdefault(module.name, module)
    return found


def games() -> dict[str, GameModule]:
    """Every game this app can play, by name."""
    global _found
    with _lock:
        if _found is None:
            _found = _discover()
        return {**_found, **_registered}


def game(name: str) -> GameModule:
    known = games()
    try:
        return known[name]
    except KeyError:
        raise UnknownGameError(
            f"this app cannot play {name!r} games; it knows {', '.join(sorted(known)) or 'none'}"
        ) from None


def rules_for(name: str, data: Mapping[str, Any]) -> Game[Any]:
    """The rules of a stored game: its game's name and the data its file keeps."""
    return game(name).rules(data)
