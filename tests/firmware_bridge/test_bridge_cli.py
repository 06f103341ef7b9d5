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
        from firmware_bridge.view import TableView, render

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
