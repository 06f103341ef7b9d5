"""What a game brings to the tablet app, and how the app finds the game to host.

A game's package offers its part of the app through ``GameModule.app``: a callable returning a
:class:`GameApp` - its screens in navigation order (each a ``.py`` + ``.kv`` pair), the view models its
screens read as ``app.<name>``, the LED script and dice for the table, what a table button means, and
where the app lands when a game opens or changes phase. The shell (status bar, undo, settings,
convention, hardware, languages) is the same for every game and builds its navigation from these
screens. The app imports no game: it asks the registry by name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from companion import registry


@dataclass(frozen=True, slots=True)
class GameScreen:
    """One screen: its name (``app.go(name)``), its navigation label (English; translated by ``tr``),
    and the module and class that build it (the ``.kv`` beside the module is loaded with it)."""

    name: str
    label: str
    module: str
    cls: str


def _no_button(_app: Any, _name: str, _expected: int | None) -> bool:
    return False


@dataclass(frozen=True)
class GameApp:
    """A game's part of the app. ``models(app)`` builds the view models once (``{"gear": GearModel(...)}``;
    None for a model a screen sets later); ``table(app)`` gives ``(LED script, dice)`` for the table;
    ``button(app, name, expected_state_id)`` handles a table or GPIO button and says whether it did;
    ``landing(phase)`` is the screen a game opens on; ``on_phase(app, phase)`` follows the game;
    ``close(app)`` stops what the models started; ``sentences`` and ``words`` translate its older logs."""

    screens: tuple[GameScreen, ...]
    models: Callable[[Any], Mapping[str, Any]] = lambda _app: {}
    table: Callable[[Any], tuple[Any, Any]] | None = None
    button: Callable[[Any, str, int | None], bool] = _no_button
    landing: Callable[[str], str] = lambda _phase: ""
    on_phase: Callable[[Any, str], None] = lambda _app, _phase: None
    close: Callable[[Any], None] = lambda _app: None
    #: English sentence shapes (``N_("{name} rolls {dice}")``) and field words of the game's rules, to
    #: translate log lines that carry no message key (older game files): see :mod:`ui.coretext`.
    sentences: tuple[str, ...] = ()
    words: tuple[str, ...] = ()


class NoGameError(LookupError):
    """No installed game has screens for the app."""


def hosted(preferred: str | None = None) -> tuple[str, GameApp]:
    """The game the app hosts: ``preferred`` if it has screens, else the first game (by name) that has."""
    known = registry.games()
    if preferred in known and known[preferred].app is not None:
        return preferred, _build(known[preferred])
    for name, module in sorted(known.items()):
        if module.app is not None:
            return name, _build(module)
    raise NoGameError("no installed game has screens for the app")


def _build(module: registry.GameModule) -> GameApp:
    assert module.app is not None
    parts = module.app()
    if not isinstance(parts, GameApp):
        raise NoGameError(f"{module.name}: GameModule.app must return a ui.hosting.GameApp")
    return parts
