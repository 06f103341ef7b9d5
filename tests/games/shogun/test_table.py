"""The table's LEDs in a Shogun game (issue 17 item 5: the season, the current action, the active player's
colour): the script folds the session's events; the bar is the 8-round calendar (spec 3), a marker is the
action position (spec 4.6), the player light follows the draft, the special cards, the actions and the
winter revolts (spec 2.3, 4.5, 7.1)."""

from __future__ import annotations

from typing import Any

from companion.engine import Session
from companion.events import Event, Kind
from firmware_bridge import ledmap as ledmaps
from games.shogun import GAME
from games.shogun.rules import ShogunRules
from games.shogun.table import CalendarLights, CalendarView, action_marker, bar_round, render

from .script import BLUE, CONFIG, CORRECTIONS, PURPLE, steps

LEDS = ledmaps.default()


def _session() -> Session[Any]:
    rules: ShogunRules = GAME.rules(GAME.new_game(CORRECTIONS).data)  # type: ignore[assignment]
    return Session(rules, CONFIG)


def _bar(state: Any) -> list[tuple[int, int, int]]:
    return [state.pixel(i) for i in LEDS.countdown]


def test_the_bar_is_the_calendar_and_a_marker_the_action() -> None:
    view = CalendarView(round=3, action=2, player=BLUE)
    shown = render(view, LEDS)
    bar = _bar(shown)
    per_round = len(LEDS.countdown) // 8
    assert bar[: 2 * per_round] == [LEDS.colour("bar_lit")] * (2 * per_round)  # rounds 1-2 done
    assert bar[2 * per_round: 3 * per_round] == [LEDS.colour("rope")] * per_round  # round 3 now
    assert set(bar[3 * per_round:]) == {LEDS.colour("bar_unlit")}
    marker = sorted(LEDS.lava)[1]
    assert {shown.pixel(i) for i in LEDS.lava[marker]} == {LEDS.colour("lava")}
    others = [i for m, indices in LEDS.lava.items() if m != marker for i in indices]
    assert {shown.pixel(i) for i in others} == {(0, 0, 0)}
    assert shown.player == bytes(LEDS.player(BLUE))
    # a hidden card's position (6-10) uses the markers again, in the highlight colour
    assert action_marker(7, 5) == (2, True) and action_marker(5, 5) == (5, False)
    assert [bar_round(i, 8) for i in range(8)] == list(range(1, 9))


def test_the_script_follows_the_scripted_game_and_a_reset_rebuilds_it() -> None:
    session = _session()
    script = CalendarLights()
    view = script.initial()
    seen: dict[str, CalendarView] = {}
    for command, _ in steps():
        applied = session.do(command)
        for event in applied.events:
            view = script.apply(view, event)
        # after every command the folded view is the one the full state describes (a table that connects)
        reset = Event(Kind.STATE_RESET, session.state_id, {"state": session.state_json()})
        assert script.apply(CalendarView(), reset) == view
        if command.get("to") == "echigo" and "out" in command:  # round 1, Battle/Move A (9th card), Ann
            seen["after Ann's battle 1"] = view
        if command["type"] == "winter_draw" and command["player"] == PURPLE and session.state.round == 4:
            seen["Dee's winter revolts"] = view
    assert seen["after Ann's battle 1"] == CalendarView(round=1, action=9, player=PURPLE)  # Dee is next (4.6)
    assert seen["Dee's winter revolts"] == CalendarView(round=4, action=None, player=PURPLE)
    assert view == CalendarView(round=8, action=None, player=None, over=True)
    shown = render(view, LEDS)
    assert set(_bar(shown)) == {LEDS.colour("ended")} and shown.player == b"\x00\x00\x00"


def test_undo_sends_the_state_back_to_the_table() -> None:
    session = _session()
    for command, _ in steps()[:6]:
        session.do(command)
    script = CalendarLights()
    before = script.apply(script.initial(), Event(Kind.STATE_RESET, 0, {"state": session.state_json()}))
    session.do(steps()[6][0])  # the next special card is taken
    undone = session.undo()
    assert [e.kind for e in undone.events] == [Kind.STATE_RESET]
    assert script.apply(CalendarView(round=5), undone.events[0]) == before
