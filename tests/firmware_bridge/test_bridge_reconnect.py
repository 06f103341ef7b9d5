"""Done-when: unplug and replug (emulator restart) on a real pty and a real TCP socket -> back within 2 s.

The emulator runs the real firmware; the host is the production SerialLink over pyserial URLs.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from firmware_bridge import ledmap as ledmap_module
from firmware_bridge.emulator import Emulator
from firmware_bridge.faults import FaultSpec
from firmware_bridge.link import Connected, SerialLink
from games.fujikoro.table import TableView, render

LEDMAP = ledmap_module.default()
STATE = render(TableView(erupted=frozenset({1, 4}), countdown=6, rope_space=3, player_colour="yellow"), LEDMAP)
WANTED = tuple(STATE.pixel(i) for i in range(LEDMAP.chain_length))


def serve(emulator: Emulator, transport: str, tmp_path: Path) -> str:
    if transport == "tcp":
        return f"socket://127.0.0.1:{emulator.serve_tcp(0)}"
    return emulator.serve_pty(tmp_path / "table")


def wait_until(predicate: object, timeout: float) -> float | None:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if predicate():  # type: ignore[operator]
            return time.monotonic() - started
        time.sleep(0.005)
    return None


@pytest.mark.parametrize("transport", ["pty", "tcp"])
def test_bridge_unplug_replug_restores_full_state(transport: str, tmp_path: Path) -> None:
    emulator = Emulator(baudrate=115200)
    url = serve(emulator, transport, tmp_path)
    link = SerialLink(url, LEDMAP).start()
    try:
        link.set_leds(STATE)
        assert link.wait_synced(3)
        assert emulator.chain() == WANTED
        assert emulator.player() == tuple(STATE.player)

        emulator.unplug()
        assert wait_until(lambda: not link.connected, 2) is not None
        time.sleep(0.3)
        emulator.replug()  # the board boots dark
        took = wait_until(lambda: emulator.chain() == WANTED and link.core.synced, 2.0)
        assert took is not None, "no full state within 2 s of replugging"
        assert emulator.boots == 2
        assert emulator.player() == tuple(STATE.player)
        connects = []
        while not link.events.empty():
            event = link.events.get_nowait()
            if isinstance(event, Connected):
                connects.append(event.info.device_id)
        assert connects == ["fujikoro-table-1", "fujikoro-table-1"]  # re-identified by id
    finally:
        link.close()
        emulator.close()


def test_bridge_wrong_device_is_not_driven(tmp_path: Path) -> None:
    emulator = Emulator()
    url = serve(emulator, "tcp", tmp_path)
    link = SerialLink(url, LEDMAP, expected_id="another-table", backoff=(0.05, 0.1)).start()
    try:
        link.set_leds(STATE)
        assert not link.wait_synced(0.6)
        assert emulator.chain() != WANTED
        assert link.last_error is not None and "another-table" in link.last_error
    finally:
        link.close()
        emulator.close()


def test_bridge_emulator_with_faults_still_converges(tmp_path: Path) -> None:
    """A short real-time run through the emulator's own fault injector (the soak test does 10,000)."""
    emulator = Emulator(baudrate=230400, faults=FaultSpec(drop=0.05, flip=0.05, garbage=0.05), seed=3)
    url = serve(emulator, "tcp", tmp_path)
    link = SerialLink(url, LEDMAP).start()
    try:
        for i in range(12):
            link.set_leds(render(TableView(erupted=frozenset({1 + i % 5}), countdown=i % 9), LEDMAP))
            time.sleep(0.02)
        link.set_leds(STATE)
        assert link.wait_synced(5)
        assert wait_until(lambda: emulator.chain() == WANTED, 1) is not None
    finally:
        link.close()
        emulator.close()


def test_bridge_throttle_models_wire_time(tmp_path: Path) -> None:
    emulator = Emulator(baudrate=9600)
    url = serve(emulator, "tcp", tmp_path)
    link = SerialLink(url, LEDMAP, baudrate=9600).start()
    try:
        assert wait_until(lambda: link.connected, 3) is not None
        started = time.monotonic()
        link.set_leds(STATE)  # ~190 bytes: about 0.2 s at 9600 baud
        assert link.wait_synced(3)
        assert time.monotonic() - started >= 190 * 10 / 9600
    finally:
        link.close()
        emulator.close()
