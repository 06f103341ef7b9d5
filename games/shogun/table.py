"""Shogun's LED script: where the game is, on the table's LEDs (issue 17, item 5).

* the **bar** is the calendar: one part per round (8 rounds, spec 3), rounds done lit, the current round
  in the highlight colour, the rest dark; the whole bar in the "ended" colour when the game is over;
* a **marker** shows the action card being carried out (positions 1-10, spec 4.6): the table has fewer
  marker groups than action cards, so position ``p`` lights marker ``(p - 1) % markers + 1`` - in the
  marker colour for the five face-up cards, in the highlight colour for the five hidden ones;
* the **player light** is the colour of the player whose turn it is (the draft, a special card, an
  action, a winter revolt), dark while the whole table acts.

Every Shogun command ends with a ``calendar`` event (``rules.CALENDAR_EVENT``); after undo, redo or a load
the full state's ``table`` entry is the same data. Pure functions of plain values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.events import Event, Kind
from firmware_bridge.ledmap import LedMap
from firmware_bridge.view import LedState
from games.shogun.rules import CALENDAR_EVENT

ROUNDS = 8


@dataclass(frozen=True, slots=True)
class CalendarView:
    round: int = 0  # 1-8; 0 while the game is set up
    action: int | None = None  # 1-10 while an action card is carried out
    player: str | None = None  # the active player's colour
    over: bool = False


def from_signal(signal: Mapping[str, Any]) -> CalendarView:
    """The view from a ``calendar`` payload (or the state JSON's ``table`` entry)."""
    raw_round = signal.get("round")
    raw_action = signal.get("action")
    player = signal.get("player")
    return CalendarView(round=raw_round if isinstance(raw_round, int) else 0,
                        action=raw_action if isinstance(raw_action, int) else None,
                        player=str(player) if player else None, over=bool(signal.get("over")))


def apply(view: CalendarView, event: Event) -> CalendarView:
    if event.kind == CALENDAR_EVENT:
        return from_signal(event.payload)
    if event.kind == Kind.STATE_RESET:
        state = event.payload.get("state", {})
        table = state.get("table") if isinstance(state, Mapping) else None
        return from_signal(table) if isinstance(table, Mapping) else CalendarView()
    return view


def bar_round(i: int, length: int) -> int:
    """The round (1-8) that the bar's LED ``i`` (of ``length``) stands for."""
    return i * ROUNDS // max(1, length) + 1


def action_marker(position: int, markers: int) -> tuple[int, bool]:
    """The marker number (1-based) for action position ``position`` and whether it is a hidden card's
    (a second pass over the markers)."""
    return (position - 1) % markers + 1, position > markers


def render(view: CalendarView, ledmap: LedMap) -> LedState:
    chain = bytearray(ledmap.chain_length * 3)

    def put(index: int, rgb: tuple[int, int, int]) -> None:
        chain[index * 3:index * 3 + 3] = bytes(rgb)

    bar = ledmap.countdown
    for i, index in enumerate(bar):
        r = bar_round(i, len(bar))
        if view.over:
            put(index, ledmap.colour("ended"))
        elif r < view.round:
            put(index, ledmap.colour("bar_lit"))
        elif r == view.round:
            put(index, ledmap.colour("rope"))
        else:
            put(index, ledmap.colour("bar_unlit"))
    markers = sorted(ledmap.lava)
    if view.action is not None and markers and not view.over:
        number, hidden = action_marker(view.action, len(markers))
        for index in ledmap.lava[markers[number - 1]]:
            put(index, ledmap.colour("rope" if hidden else "lava"))
    player = b"\x00\x00\x00" if view.over or view.player is None else bytes(ledmap.player(view.player))
    return LedState(bytes(chain), player)


class CalendarLights:
    """The LED script of a Shogun game (``firmware_bridge.view.LedScript``)."""

    def initial(self) -> CalendarView:
        return CalendarView()

    def apply(self, view: CalendarView, event: Event) -> CalendarView:
        return apply(view, event)

    def render(self, view: CalendarView, ledmap: LedMap) -> LedState:
        return render(view, ledmap)
