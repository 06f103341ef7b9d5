"""The GPIO panel with gpiozero's MockFactory (injected), contact bounce included, on a fake clock."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from firmware_bridge.commands import Button
from firmware_bridge.panel import Panel, PanelError, load_pins, parse_pins, pin_factory


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def rig() -> Iterator[tuple[Panel, Any, Clock, list[Any], list[bool]]]:
    factory = MockFactory()
    clock = Clock()
    commands: list[Any] = []
    tray: list[bool] = []
    panel = Panel(load_pins(), factory=factory, clock=clock,
                  when_pressed=commands.append, when_tray=tray.append)
    yield panel, factory, clock, commands, tray
    panel.close()
    factory.reset()


def bounce(pin: Any, clock: Clock, levels: str, step: float = 0.001) -> None:
    for level in levels:
        if level == "0":
            pin.drive_low()
        else:
            pin.drive_high()
        clock.t += step


def test_bridge_panel_button_bounce_is_one_press(rig: Any) -> None:
    panel, factory, clock, commands, _ = rig
    pin = factory.pin(17)  # end_turn
    bounce(pin, clock, "01010")   # press with bounce
    clock.t += 0.2
    bounce(pin, clock, "1010101")  # release with bounce
    clock.t += 0.3
    bounce(pin, clock, "0")        # a second, real press
    clock.t += 0.1
    bounce(pin, clock, "1")
    assert commands == [Button.END_TURN] * 2


def test_bridge_panel_each_pin_its_button(rig: Any) -> None:
    panel, factory, clock, commands, _ = rig
    for number in (27, 22):
        bounce(factory.pin(number), clock, "0", step=0.05)
        bounce(factory.pin(number), clock, "1", step=0.05)
    # Which button, never a game's command: what a button does is the open game's (issue 16).
    assert commands == [Button.DRAGON_ROLL, Button.UNDO]


def test_bridge_panel_tray_rolling_then_still(rig: Any) -> None:
    panel, factory, clock, _, tray = rig
    pin = factory.pin(23)
    for _ in range(40):  # rattling: many contact changes, each resets the quiet timer
        bounce(pin, clock, "01", step=0.01)
        panel.poll()
    assert tray == [True]
    clock.t += 0.5
    panel.poll()
    assert tray == [True]  # 0.5 s quiet is not yet still (0.6 s)
    clock.t += 0.11
    panel.poll()
    assert tray == [True, False]
    panel.poll()
    assert tray == [True, False]


def test_bridge_panel_status_led(rig: Any) -> None:
    panel, factory, *_ = rig
    panel.show_link(True)
    assert factory.pin(24).state
    pin = factory.pin(24)
    pin.clear_states()
    panel.show_link(False)  # blinking: on 0.1 s, off 0.9 s, in gpiozero's background thread
    deadline = time.monotonic() + 2
    while len(pin.states) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    levels = [state for _, state in pin.states]
    assert len(levels) >= 4 and set(levels[1:]) == {True, False}
    panel.status.off()


def test_bridge_panel_pin_file_errors(tmp_path: Path) -> None:
    with pytest.raises(PanelError, match="already used"):
        parse_pins({"buttons": {"end_turn": 5, "undo": 5}})
    with pytest.raises(PanelError, match="unknown button"):
        parse_pins({"buttons": {"pause": 5}})
    with pytest.raises(PanelError, match="BCM pin"):
        parse_pins({"tray": {"pin": 40}})
    bad = tmp_path / "pins.toml"
    bad.write_text("[buttons\n")
    with pytest.raises(PanelError, match="TOML"):
        load_pins(bad)
    pins = load_pins()
    assert pins.buttons == {Button.END_TURN: 17, Button.DRAGON_ROLL: 27, Button.UNDO: 22} and pins.tray == 23


def test_bridge_pin_factory_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    factory = pin_factory()
    assert isinstance(factory, MockFactory)
    factory.close()
    with pytest.raises(PanelError, match="unknown pin factory"):
        pin_factory("teleport")
