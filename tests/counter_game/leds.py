"""The counter's LED script: the bar fills towards the goal; the chain is otherwise dark."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.events import Event, Kind
from firmware_bridge.ledmap import LedMap
from firmware_bridge.view import LedState


class Bar:
    """The view is the fraction of the goal counted so far (0.0 to 1.0)."""

    def initial(self) -> float:
        return 0.0

    def apply(self, view: float, event: Event) -> float:
        payload: Mapping[str, Any] = event.payload
        if event.kind == "added":
            return min(1.0, payload["total"] / payload["goal"])
        if event.kind == Kind.STATE_RESET:
            state = payload.get("state", {})
            return min(1.0, state.get("total", 0) / max(1, state.get("goal", 100)))
        return view

    def render(self, view: float, ledmap: LedMap) -> LedState:
        chain = bytearray(ledmap.chain_length * 3)
        bar = ledmap.countdown
        lit = round(view * len(bar))
        for i, index in enumerate(bar):
            chain[index * 3:index * 3 + 3] = bytes(ledmap.colour("bar_lit" if i < lit else "bar_unlit"))
        return LedState(bytes(chain), bytes(ledmap.player("white")))
