"""The players of a new-game form, as every game's setup screen edits them: a list of ``{"name", "colour",
...}`` entries. Pure functions returning the changed list (None: nothing changes), so a form's model sets
its property once and its screen redraws once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Players = list[dict[str, Any]]


def renamed(players: Sequence[dict[str, Any]], index: int, name: str) -> Players | None:
    """The players with ``index`` renamed."""
    if not 0 <= index < len(players) or players[index]["name"] == name:
        return None
    changed = [dict(p) for p in players]
    changed[index]["name"] = name
    return changed


def next_colour(players: Sequence[dict[str, Any]], index: int, colours: Sequence[str]) -> Players | None:
    """The players with ``index`` given the next colour of ``colours`` nobody else has (None: none is free)."""
    if not 0 <= index < len(players):
        return None
    used = {p["colour"] for i, p in enumerate(players) if i != index}
    current = players[index]["colour"]
    start = list(colours).index(current) if current in colours else -1
    for step in range(1, len(colours) + 1):
        candidate = colours[(start + step) % len(colours)]
        if candidate not in used:
            changed = [dict(p) for p in players]
            changed[index]["colour"] = candidate
            return changed
    return None
