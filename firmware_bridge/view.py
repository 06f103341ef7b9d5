"""What the table shows, as values: the LED colours, and the script that turns a game's events into them.

The bridge knows LEDs (a chain with a bar, numbered markers and a player light), never a game. Each game
brings a :class:`LedScript` (Fuji Koro's lava and countdown: ``games/fujikoro/table.py``); until a game
is open the table runs :class:`PlayerLight`, which lights only the player LED in the colour of the player
whose turn it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from companion.events import Event, Kind
from firmware_bridge.ledmap import LedMap


@dataclass(frozen=True, slots=True)
class LedState:
    """The colours for the whole chain (RGB bytes, 3 per LED) and the player LED."""

    chain: bytes
    player: bytes

    def pixel(self, index: int) -> tuple[int, int, int]:
        r, g, b = self.chain[index * 3:index * 3 + 3]
        return (r, g, b)


class LedScript(Protocol):
    """A game's LED script: a pure fold of session events into a view, and the view's colours."""

    def initial(self) -> Any: ...

    def apply(self, view: Any, event: Event) -> Any: ...

    def render(self, view: Any, ledmap: LedMap) -> LedState: ...


class PlayerLight:
    """The script of no game in particular: the player LED shows whose turn it is, the chain stays dark."""

    def initial(self) -> str | None:
        return None

    def apply(self, view: str | None, event: Event) -> str | None:
        if event.kind == Kind.TURN_STARTED:
            colour = event.payload.get("colour")
            return str(colour) if colour else None
        if event.kind == Kind.GAME_ENDED:
            return None
        return view

    def render(self, view: str | None, ledmap: LedMap) -> LedState:
        return LedState(bytes(ledmap.chain_length * 3), bytes(ledmap.player(view)))
