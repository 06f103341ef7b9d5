"""Issue 16: the app builds the GPIO panel of a Raspberry Pi host when configured, and its buttons work;
the state id travels with every input from the table, so stale input is refused by the engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.engine import StaleInputError
from ui import session as session_port
from ui.settings import Settings, save

END_TURN_PIN = 17  # firmware_bridge/panel_pins.toml
UNDO_PIN = 22


@pytest.mark.ui
def test_ui_a_gpio_button_press_ends_the_turn(run_app: Any, tmp_path: Path) -> None:
    save(Settings(gpio_panel=True, hardware_url="none"))
    steps = [{"do": "press", "id": "start_game"}, {"do": "wait_until", "path": "game.phase", "equals": "playing"},
             {"do": "expect", "path": "game.current_player", "equals": "Aiko"},
             {"do": "press", "id": "action_move"}, {"do": "press", "id": "action_gather"},
             {"do": "gpio", "pin": END_TURN_PIN},
             {"do": "wait_until", "path": "game.current_player", "equals": "Botan", "timeout": 10},
             {"do": "gpio", "pin": UNDO_PIN},
             {"do": "wait_until", "path": "game.current_player", "equals": "Aiko", "timeout": 10},
             {"do": "quit"}]
    report = run_app(steps, env={"GPIOZERO_PIN_FACTORY": "mock"})
    assert report["errors"] == []


def test_ui_a_tray_roll_for_an_old_state_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    """The table's tray reports the state it showed when the dice fell; the game moved on meanwhile."""
    from games.fujikoro.app.setup import GameSetup, PlayerSetup

    players = (PlayerSetup("Aiko", "red"), PlayerSetup("Botan", "blue"))
    game = session_port.create(GameSetup(players=players), directory=tmp_path, game="fujikoro")
    try:
        shown = game.session.state_id
        game.do({"type": "action", "action": "move"}, expected_state_id=shown)
        with pytest.raises(StaleInputError) as refused:
            game.do({"type": "action", "action": "gather"}, expected_state_id=shown)
        assert "nothing was changed" in str(refused.value) and f"state {shown}" in str(refused.value)
        assert game.session.state_json()["actions"] == ["move"]
    finally:
        game.close()
