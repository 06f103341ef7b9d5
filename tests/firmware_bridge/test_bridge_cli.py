"""``fujikoro bridge``: monitor against the emulator, emulate, soak, and one-line errors."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from firmware_bridge.emulator import Emulator
from ui.cli.main import main


def test_bridge_cli_monitor_shows_traffic(capsys: pytest.CaptureFixture[str]) -> None:
    emulator = Emulator()
    port = emulator.serve_tcp(0)
    try:
        assert main(["bridge", "monitor", f"socket://127.0.0.1:{port}", "--seconds", "0.8"]) == 0
    finally:
        emulator.close()
    out = capsys.readouterr().out
    assert "host -> table  HELLO #1" in out
    assert "table -> host  IDENTITY #1 'fujikoro-table-1'" in out
    assert "LED_FRAME" in out and "Connected(" in out


def test_bridge_cli_emulate_serves_a_pty_and_writes_a_picture(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "leds.png"
    link = tmp_path / "tty"
    done: list[int] = []
    thread = threading.Thread(target=lambda: done.append(main(
        ["bridge", "emulate", "--pty", str(link), "--baud", "115200", "--png", str(png), "--seconds", "1.5"])))
    thread.start()
    try:
        import time

        from firmware_bridge import ledmap
        from firmware_bridge.link import SerialLink
        from games.fujikoro.table import TableView, render

        deadline = time.monotonic() + 3
        while not link.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        m = ledmap.default()
        with SerialLink(str(link), m) as serial_link:
            serial_link.set_leds(render(TableView(erupted=frozenset({4})), m))
            assert serial_link.wait_synced(1)
            time.sleep(0.3)
    finally:
        thread.join(5)
    assert done == [0]
    assert png.read_bytes().startswith(b"\x89PNG")
    assert f"emulated table on {link} at 115200 baud" in capsys.readouterr().out
    assert not link.exists()


def test_bridge_cli_soak_small() -> None:
    assert main(["bridge", "soak", "--faults", "300"]) == 0


@pytest.mark.parametrize(("argv", "words"), [
    (["bridge", "emulate", "--faults", "smoke=1", "--seconds", "0"], "unknown fault 'smoke'"),
    (["bridge", "emulate", "--baud", "0", "--seconds", "0"], "--baud must be positive"),
    (["bridge", "monitor", "loop://", "--ledmap", "/nonexistent.json"], "cannot read LED map"),
    (["bridge", "soak", "--faults", "0"], "--faults must be positive"),
])
def test_bridge_cli_bad_input_is_one_line(argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err


def test_bridge_cli_panel_with_mock_pins(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bridge", "panel", "--factory", "mock", "--seconds", "0.1"]) == 0
    assert "GPIO panel on MockFactory: end_turn BCM17" in capsys.readouterr().out
    assert main(["bridge", "panel", "--factory", "teleport", "--seconds", "0"]) == 2


def test_bridge_cli_monitor_sends_led_states_over_a_pty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`monitor --send-leds` as hardware_docs/emulator.md documents it, against the emulator on a real pty."""
    emulator = Emulator()
    url = emulator.serve_pty(tmp_path / "table")
    try:
        assert main(["bridge", "monitor", url, "--seconds", "1.5",
                     "--send-leds", "0=801800 1=000000 player=800000 bar=0:ff8c00:080808",
                     "--send-leds", "bar=3:ff8c00:080808",
                     "--send-leds", "30-31=0a0b0c, 58=ffffff"]) == 0
        chain, player = emulator.chain(), emulator.player()
    finally:
        emulator.close()
    out = capsys.readouterr().out
    # The documented choice of messages: PLAYER and the whole chain first, then only what differs.
    for line in ("host -> table  PLAYER #2 rgb (128, 0, 0)", "host -> table  LED_FRAME #3 LEDs 0..58",
                 "LED state 1 of 3, acknowledged", "host -> table  COUNTDOWN #4 position 3",
                 "LED state 2 of 3, acknowledged", "host -> table  LED_FRAME #5 LEDs 30..58",
                 "LED state 3 of 3, acknowledged"):
        assert line in out, line
    assert player == (128, 0, 0)
    bar = [(255, 140, 0)] * 3 + [(8, 8, 8)] * 5
    expected = [(0x80, 0x18, 0)] + [(0, 0, 0)] * 29 + [(10, 11, 12)] * 2 + [(0, 0, 0)] * 19 + bar
    expected[58] = (255, 255, 255)
    assert list(chain) == expected  # exactly as written: the LED map's brightness is not applied


@pytest.mark.parametrize(("spec", "words"), [
    ("0=80180", "'0=80180' is not an LED item"),
    ("59=ffffff", "LED 59 is past the chain (the LED map has 59 LEDs, 0..58)"),
    ("5-2=ffffff", "the range runs backwards"),
    ("bar=9:ffffff:000000", "the countdown bar has 8 LEDs"),
    ("  ", "needs at least one item"),
])
def test_bridge_cli_monitor_bad_led_state_is_one_line(spec: str, words: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bridge", "monitor", "loop://", "--send-leds", spec, "--seconds", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fujikoro: --send-leds: ")
    assert words in err and err.count("\n") == 1 and "Traceback" not in err


def test_bridge_cli_monitor_unacknowledged_led_state_exits_1(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bridge", "monitor", str(tmp_path / "no-such-port"), "--send-leds", "all=ffffff",
                 "--seconds", "0.2"]) == 1
    assert "the device acknowledged 0 of 1 LED states" in capsys.readouterr().err


def test_bridge_cli_monitor_that_never_connected_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A newcomer (2026-12-01): "never connected" and exit status 0, as if all went well.
    assert main(["bridge", "monitor", str(tmp_path / "no-such-port"), "--seconds", "0.2"]) == 1
    assert "never connected" in capsys.readouterr().err


def test_bridge_cli_emulator_stopped_by_the_system_removes_its_port_link(tmp_path: Path) -> None:
    # Stopped with SIGTERM (kill, timeout, a service manager) the emulator left its pty link behind, pointing at
    # a terminal some later program would get (2026-12-01); it now cleans up as Ctrl-C does.
    import signal
    import subprocess
    import sys
    import time

    link = tmp_path / "table"
    process = subprocess.Popen([sys.executable, "-m", "ui.cli.main", "bridge", "emulate", "--pty", str(link)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not link.is_symlink() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert link.is_symlink()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
        assert not link.is_symlink()
    finally:
        process.kill()
