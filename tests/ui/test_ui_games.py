"""The app hosts games (issue 16): a first start opens on Games; the tests' counter game - a package the
shared code has never heard of, found through ``TABLE_COMPANION_GAMES`` - is picked there, plays through
its own screen, the emulated table (its End Turn button, its LED bar) and the store, and is resumed when
the app starts again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.ui

TESTS = Path(__file__).resolve().parents[1]


def _until(path: str, value: Any, timeout: float = 20) -> dict[str, Any]:
    return {"do": "wait_until", "path": path, "equals": value, "timeout": timeout}


def test_ui_the_counter_game_is_picked_played_on_the_table_and_resumed(run_app: Callable[..., Any]) -> None:
    env = {"TABLE_COMPANION_GAMES": "counter_game", "PYTHONPATH": str(TESTS), "FUJIKORO_UI_PLAY": ""}
    press = [{"do": "press", "id": "add_ten"}]
    steps = [
        _until("current_screen", "games"),
        {"do": "read", "id": "play_fujikoro", "key": "fujikoro_listed"},
        {"do": "press", "id": "play_counter"},
        _until("current_screen", "count"),
        {"do": "read", "id": "nav_count", "key": "nav"},
        {"do": "press", "id": "new_count"},
        _until("game.state.total", 0),
        *press * 3,
        _until("game.state.total", 30),
        _until("status.hardware_ok", True),
        {"do": "table", "button": "end_turn"},  # the table's End Turn: the counter's script adds one
        _until("game.state.total", 31),
        _until("status.table.lights.view", 0.31),
        {"do": "wait", "seconds": 0.5},
        {"do": "read_leds", "key": "leds"},
        *press * 7,
        _until("game.phase", "ended"),
        {"do": "read", "path": "game.state.total", "key": "total"},
        {"do": "quit"},
    ]
    report = run_app(steps, env=env)
    reads = report["reads"]
    assert reads["fujikoro_listed"] == "Fuji Koro" and reads["nav"] == "Count"
    assert reads["total"] == 101
    # The bar of the table's LED chain: 31 of 100 counted lights round(0.31 * bar length) of it.
    from firmware_bridge import ledmap

    led_map = ledmap.default()
    chain = [tuple(rgb) for rgb in reads["leds"]["chain"]]
    bar = [chain[i] for i in led_map.countdown]
    lit = round(0.31 * len(bar))
    assert bar[:lit] == [led_map.colour("bar_lit")] * lit
    assert bar[lit:] == [led_map.colour("bar_unlit")] * (len(bar) - lit)
    assert tuple(reads["leds"]["player"]) == led_map.player("white")

    again = run_app([_until("current_screen", "count"), _until("game.state.total", 101),
                     {"do": "read", "path": "game_name", "key": "hosted"}, {"do": "quit"}], env=env)
    assert again["reads"]["hosted"] == "counter"
