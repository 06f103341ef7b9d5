"""The app-facing table API on the emulator: a countdown lava space lights the emulated lava LEDs."""

from __future__ import annotations

import time

from companion.dice import DiceSource
from companion.events import Event, Kind
from firmware_bridge.commands import Button
from firmware_bridge.link import ButtonPressed, DiceRolled
from firmware_bridge.table import TableLights, start_emulated_table
from firmware_bridge.view import LedState
from games.fujikoro.pack import default_pack
from games.fujikoro.table import led_script


def test_bridge_emulated_table_lights_lava_on_countdown() -> None:
    pack = default_pack()
    table = start_emulated_table(script=led_script(pack), dice=pack.dice)
    try:
        assert table.wait_synced(2)
        lava = table.ledmap.colour("lava")
        assert lava not in table.led_colours()
        table.handle_event(Event(Kind.TURN_STARTED, 1, {"player": "A", "round": 9, "colour": "red"}), wait=2)
        table.handle_event(Event(Kind.FINAL_CHAPTER, 2, {"player": "A", "threshold": 30}), wait=2)
        table.handle_event(Event(Kind.COUNTDOWN_ADVANCED, 3, {"position": 1, "event": "lava", "lava": [1]}), wait=2)
        shown = table.led_colours()
        assert {i for i, rgb in enumerate(shown) if rgb == lava} == set(table.ledmap.lava[1])
        assert table.player_colour() == table.ledmap.player("red")
        assert shown == table.wanted_colours()
        picture = table.picture_text()
        assert "lava 1 ###########" in picture
        assert table.picture_png().startswith(b"\x89PNG")
    finally:
        table.close()


def test_bridge_emulated_table_reports_buttons_and_dice() -> None:
    table = start_emulated_table(transport="tcp")
    try:
        assert table.emulator is not None
        table.handle_event(Event(Kind.TURN_STARTED, 5, {"player": "A", "round": 1, "colour": "blue"}), wait=2)
        table.emulator.press("undo")
        table.emulator.shake_tray(0.1, dice="W1 W0 M2")
        got: list[object] = []
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and not any(isinstance(e, DiceRolled) for e in got):
            if not table.events.empty():
                got.append(table.events.get_nowait())
            time.sleep(0.01)
        press = next(e for e in got if isinstance(e, ButtonPressed))
        assert press.button is Button.UNDO and press.state_id == 5  # the state the table showed
        roll = next(e for e in got if isinstance(e, DiceRolled)).roll
        assert roll.source is DiceSource.TRAY and roll.hits == 3
    finally:
        table.close()


def test_bridge_table_lights_adapter_with_any_sink() -> None:
    class Sink:
        def __init__(self) -> None:
            self.sent: list[tuple[LedState, int]] = []

        def set_leds(self, leds: LedState, state_id: int = -1) -> None:
            self.sent.append((leds, state_id))

    from firmware_bridge import ledmap
    from games.fujikoro.pack import default_pack

    sink = Sink()
    lights = TableLights(sink, ledmap.default(), led_script(default_pack()))
    lights.handle_events([Event(Kind.FINAL_CHAPTER, 1, {}),
                          Event(Kind.COUNTDOWN_ADVANCED, 2, {"position": 2, "event": "lava", "lava": [3]})])
    assert [state_id for _, state_id in sink.sent] == [1, 2]
    assert lights.view.erupted == {3} and lights.view.countdown == 2


def test_bridge_open_table_defaults_to_the_emulator(monkeypatch: object) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    from firmware_bridge.table import open_table

    monkeypatch.delenv("FUJIKORO_TABLE", raising=False)
    table = open_table(transport="tcp")
    try:
        assert table.emulator is not None and table.wait_synced(2)
    finally:
        table.close()


def test_bridge_connect_for_the_app() -> None:
    """firmware_bridge.connect(url) is what ui/hardware.py calls: the emulator, or a URL that must answer."""
    import pytest

    import firmware_bridge
    from firmware_bridge.emulator import Emulator
    from firmware_bridge.link import LinkError

    table = firmware_bridge.connect("emulator")
    try:
        assert table.link.connected
    finally:
        table.close()
    emulator = Emulator()
    port = emulator.serve_tcp(0)
    try:
        table = firmware_bridge.connect(f"socket://127.0.0.1:{port}")
        assert table.link.core.info is not None and table.link.core.info.device_id == "fujikoro-table-1"
        table.close()
    finally:
        emulator.close()
    with pytest.raises(LinkError, match="no table answered on loop://"):
        firmware_bridge.connect("loop://", connect_timeout=0.3)
