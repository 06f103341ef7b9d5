"""Fuji Koro's LED script: session events folded into a :class:`TableView`, rendered to LED colours.

Pure functions of plain values. ``apply(view, event, countdown)`` follows the companion event port
(companion/events.py); ``render(view, ledmap)`` gives the bytes of the whole chain and the player LED:
erupted lava markers, the countdown as the bar, the rope, the current player's colour.
:class:`LavaLights` is the script the table runs (``firmware_bridge.view.LedScript``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from companion.events import Event, Kind
from firmware_bridge.ledmap import LedMap
from firmware_bridge.view import LedState
from games.fujikoro.pack import CountdownEvent, CountdownSpace, DataPack


@dataclass(frozen=True, slots=True)
class TableView:
    """Everything the LEDs show. ``countdown`` is None until the final chapter starts."""

    erupted: frozenset[int] = frozenset()
    countdown: int | None = None
    rope_space: int | None = None
    player_colour: str | None = None
    ended: bool = False
    state_id: int = -1


def apply(view: TableView, event: Event, countdown: Sequence[CountdownSpace] = ()) -> TableView:
    """The view after one session event; unknown kinds leave it unchanged."""
    p = event.payload
    kind = event.kind
    view = replace(view, state_id=event.state_id)
    if kind == Kind.TURN_STARTED:
        colour = p.get("colour")
        return replace(view, player_colour=str(colour) if colour else None)
    if kind == Kind.FINAL_CHAPTER:
        # The bar starts (again, after scenario 3's lava phase); lava already on the board stays.
        return replace(view, countdown=0)
    if kind == Kind.COUNTDOWN_ADVANCED:
        position = int(p.get("position", 0))
        erupted = view.erupted | frozenset(int(n) for n in p.get("lava", ()) or ())
        lava_phase = bool(p.get("lava_phase"))  # scenario 3: no rope and no end in the lava phase
        rope = position if p.get("event") == "rope" and not lava_phase else view.rope_space
        return replace(view, countdown=position, erupted=erupted, rope_space=rope,
                       ended=view.ended or (p.get("event") == "end" and not lava_phase))
    if kind == Kind.ROPE_APPEARED:
        at = p.get("position")
        return replace(view, rope_space=int(at) if isinstance(at, int) else (view.countdown or 0))
    if kind == Kind.GAME_ENDED:
        return replace(view, ended=True)
    if kind == Kind.STATE_RESET:
        state = p.get("state", {})
        return from_state(state if isinstance(state, Mapping) else {}, countdown, event.state_id)
    return view


def from_state(state: Mapping[str, Any], countdown: Sequence[CountdownSpace], state_id: int = -1) -> TableView:
    """Rebuild the view from a full state JSON (after undo, redo or load)."""
    cd = state.get("countdown")
    position: int | None = None
    if isinstance(cd, Mapping) and cd.get("active"):
        raw_position = cd.get("position")
        position = int(raw_position) if isinstance(raw_position, int) else 0
    erupted: set[int] = set()
    rope: int | None = None
    for number, space in enumerate(countdown[:position or 0], start=1):
        if space.event == CountdownEvent.LAVA:
            erupted.update(space.lava)
        elif space.event == CountdownEvent.ROPE:
            rope = number
    if isinstance(cd, Mapping):
        if cd.get("rope") is False:
            rope = None
        elif cd.get("rope") is True and rope is None:
            rope = position or None
        if isinstance(cd.get("lava"), list):  # a state that lists its erupted lava numbers wins
            erupted = {int(n) for n in cd["lava"]}
    return TableView(
        erupted=frozenset(erupted),
        countdown=position,
        rope_space=rope,
        player_colour=_current_colour(state),
        ended=state.get("phase") == "ended",
        state_id=state_id,
    )


def _current_colour(state: Mapping[str, Any]) -> str | None:
    current = state.get("current_player")
    players = state.get("players")
    entries: list[Any] = []
    if isinstance(players, Mapping):
        entries = [{"name": k, **v} if isinstance(v, Mapping) else {"name": k} for k, v in players.items()]
    elif isinstance(players, list):
        entries = players
    for entry in entries:
        if isinstance(entry, Mapping) and entry.get("name") == current:
            colour = entry.get("colour") or entry.get("color")
            return str(colour) if colour else None
    return None


def render(view: TableView, ledmap: LedMap) -> LedState:
    chain = bytearray(ledmap.chain_length * 3)

    def put(index: int, rgb: tuple[int, int, int]) -> None:
        chain[index * 3:index * 3 + 3] = bytes(rgb)

    lava = ledmap.colour("lava")
    for number in sorted(view.erupted):
        for index in ledmap.lava.get(number, ()):
            put(index, lava)
    bar = ledmap.countdown
    if view.ended:
        for index in bar:
            put(index, ledmap.colour("ended"))
    elif view.countdown is not None:
        lit, unlit = ledmap.colour("bar_lit"), ledmap.colour("bar_unlit")
        for i, index in enumerate(bar):
            put(index, lit if i < view.countdown else unlit)
        if view.rope_space and 0 < view.rope_space <= len(bar):
            put(bar[view.rope_space - 1], ledmap.colour("rope"))
    player = b"\x00\x00\x00" if view.ended else bytes(ledmap.player(view.player_colour))
    return LedState(bytes(chain), player)


class LavaLights:
    """The LED script of a Fuji Koro game with this pack's countdown track."""

    def __init__(self, countdown: Sequence[CountdownSpace]) -> None:
        self.countdown = tuple(countdown)

    def initial(self) -> TableView:
        return TableView()

    def apply(self, view: TableView, event: Event) -> TableView:
        return apply(view, event, self.countdown)

    def render(self, view: TableView, ledmap: LedMap) -> LedState:
        return render(view, ledmap)


def led_script(pack: DataPack) -> LavaLights:
    return LavaLights(pack.countdown)
