"""A session backed by its game file: open (replay) or create, with the file as the session's journal.

Generic: the caller passes a factory that builds the game module from the stored header, so the same
storage serves any game the engine can run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from companion.engine import Game, Session
from store.gamelog import GameFile, Header, Stamped, StoreError

GameFactory = Callable[[Header], Game[Any]]


def _factory(header: Header, factories: Mapping[str, GameFactory]) -> GameFactory:
    try:
        return factories[header.game]
    except KeyError:
        raise StoreError(f"this app cannot play {header.game!r} games; it knows {', '.join(factories)}") from None


def factories() -> dict[str, GameFactory]:
    """Every game the registry knows, as builders of its rules from a stored header."""
    from companion.registry import games

    def builder(module: Any) -> GameFactory:
        return lambda header: module.rules(header.data)

    return {name: builder(module) for name, module in games().items()}


def new_session(
    path: Path | str,
    header: Header,
    factories: Mapping[str, GameFactory],
    *,
    new_seed: Callable[[], int] | None = None,
) -> tuple[GameFile, Session[Any]]:
    """Check the setup with the game first (nothing is written for a setup the rules reject)."""
    game = _factory(header, factories)(header)
    game.setup(header.config)
    file = GameFile.create(path, header)
    return file, Session(game, header.config, journal=file, new_seed=new_seed)


def open_session(
    path: Path | str,
    factories: Mapping[str, GameFactory],
    *,
    new_seed: Callable[[], int] | None = None,
) -> tuple[GameFile, Session[Any]]:
    """Open a game file and replay its log; the returned session appends to the file."""
    file = GameFile.open(path)
    try:
        game = _factory(file.header, factories)(file.header)
        session = Session.replay(game, file.header.config, file.records(), journal=file, new_seed=new_seed)
    except BaseException:
        file.close()
        raise
    return file, session


def import_session(
    path: Path | str,
    header: Header,
    stamped: Iterable[Stamped],
    factories: Mapping[str, GameFactory],
) -> tuple[GameFile, Session[Any]]:
    """Replay an exported log first (a log that does not replay is refused), then write the file."""
    records = list(stamped)
    game = _factory(header, factories)(header)
    Session.replay(game, header.config, [s.record for s in records])
    GameFile.create(path, header, records).close()
    return open_session(path, factories)
