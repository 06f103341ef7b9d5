"""Testing against the emulator as hardware_docs/emulator.md describes it: table commands, --png, --send-leds."""

from __future__ import annotations

import struct
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge import ledmap as ledmap_module
from firmware_bridge import ledspec
from firmware_bridge.emulator import Emulator, EmulatorError
from firmware_bridge.firmware import protocol as P
from firmware_bridge.link import SerialLink
from firmware_bridge.view import LedState

LEDMAP = ledmap_module.default()
ROOT = Path(__file__).resolve().parents[2]


def wait_for(predicate: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


class Host:
    """A SerialLink on the emulator's pty that records every frame the table sends."""

    def __init__(self, url: str) -> None:
        self.received: list[tuple[int, int, bytes]] = []
        self.lock = threading.Lock()

        def tap(direction: str, item: tuple[int, int, bytes]) -> None:
            if direction == "<":
                with self.lock:
                    self.received.append(item)

        self.link = SerialLink(url, LEDMAP, tap=tap).start()

    def events(self) -> list[tuple[int, bytes]]:
        """Device events (type, payload) in order, each seq once (the table retries until ACKed)."""
        with self.lock:
            items = list(self.received)
        out, seen = [], set()
        for mtype, seq, payload in items:
            if mtype in (P.TRAY, P.DICE, P.BUTTON) and seq not in seen:
                seen.add(seq)
                out.append((mtype, payload))
        return out


@pytest.fixture
def table(tmp_path: Path) -> Any:
    emulator = Emulator()
    url = emulator.serve_pty(tmp_path / "table")
    host = Host(url)
    try:
        assert wait_for(lambda: host.link.connected, 3)
        yield emulator, host
    finally:
        host.link.close()
        emulator.close()


def test_bridge_emulator_commands_trigger_button_tray_and_dice_events(table: Any) -> None:
    emulator, host = table
    assert emulator.command("press dragon_roll") == "press dragon_roll"
    assert wait_for(lambda: host.events() == [(P.BUTTON, bytes((P.BUTTON_DRAGON_ROLL,)))], 2)
    assert emulator.command("roll W1 M0b") == "roll W1 M0b"
    rolled = [(P.TRAY, bytes((P.TRAY_ROLLING,))), (P.TRAY, bytes((P.TRAY_STILL,))),
              (P.DICE, P.dice([(0, 1, False), (1, 0, True)]))]
    assert wait_for(lambda: host.events()[1:] == rolled, 3), host.events()
    assert emulator.command("dice G4 T0") == "dice G4 T0"
    assert wait_for(lambda: host.events()[4:] == [(P.DICE, P.dice([(3, 4, False), (2, 0, False)]))], 2)
    assert emulator.command("TRAY 0.05") == "tray 0.05"
    still = [(P.TRAY, bytes((P.TRAY_ROLLING,))), (P.TRAY, bytes((P.TRAY_STILL,)))]
    assert wait_for(lambda: host.events()[5:] == still, 3), host.events()


def test_bridge_emulator_two_presses_in_a_row_are_two_button_events(table: Any) -> None:
    """emulator.md §2: each `press` is one BUTTON event, also when the commands come back to back (the
    second press no longer falls inside the first one's release debounce)."""
    emulator, host = table
    for _ in range(3):
        emulator.command("press end_turn")
    assert wait_for(lambda: host.events() == [(P.BUTTON, bytes((P.BUTTON_END_TURN,)))] * 3, 3), host.events()


def test_bridge_firmware_drops_a_dice_line_that_does_not_fit_one_event() -> None:
    """protocol.md §2 (payload at most 250 bytes) and §9: a reader line of 126 dice, or hits over 127, is
    not a dice reading; the device must not build a frame it cannot send (it used to stop for good)."""
    from firmware_bridge.standins import Board, load_firmware

    parse_dice_line = load_firmware(Board())["parse_dice_line"]
    assert parse_dice_line(" ".join(["W1"] * 125)) is not None
    assert parse_dice_line(" ".join(["W1"] * 126)) is None
    assert parse_dice_line("W128") is None and parse_dice_line("G127b") == [(3, 127, True)]


def test_bridge_emulator_leds_command_reads_back_exact_colours(table: Any) -> None:
    emulator, host = table
    state = ledspec.parse("all=010203 5=fe00ff bar=2:ff8c00:101010 player=0040ff", LEDMAP)
    host.link.set_leds(state)
    assert host.link.wait_synced(2)
    reply = emulator.command("leds")
    assert reply.startswith("leds player=0040ff 0=010203 ")
    assert " 5=fe00ff " in reply and " 51=ff8c00 52=ff8c00 53=101010 " in reply
    assert ledspec.parse(reply.removeprefix("leds "), LEDMAP) == state  # the reply is a --send-leds state


@pytest.mark.parametrize(("line", "words"), [
    ("", "empty command"),
    ("jump", "unknown command 'jump'"),
    ("press", "press takes one button"),
    ("press start", "no button 'start'"),
    ("tray soon", "not a number of seconds"),
    ("tray 60", "0.01..10 seconds"),
    ("roll", "needs at least one die"),
    ("dice W1 X2", "'X2' is not a die"),
    ("dice W200", "'W200' is not a die"),
    ("leds now", "takes no arguments"),
    ("dice " + " ".join(["W1"] * 126), "126 dice do not fit one DICE event; at most 125"),
])
def test_bridge_emulator_command_errors_are_one_sentence(line: str, words: str) -> None:
    emulator = Emulator()
    try:
        with pytest.raises(EmulatorError, match=words):
            emulator.command(line)
    finally:
        emulator.close()


def test_bridge_emulator_unplug_and_replug_commands(table: Any) -> None:
    emulator, host = table
    assert emulator.command("unplug") == "unplug"
    assert wait_for(lambda: not host.link.connected, 2)
    with pytest.raises(EmulatorError, match="unplugged"):
        emulator.command("press undo")
    assert emulator.command("replug") == "replug"
    assert wait_for(lambda: host.link.connected, 3)
    assert emulator.boots == 2


def read_png(path: Path) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB bytes) with zlib alone, as hardware_docs/emulator.md says a peer can."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat, header = 8, b"", b""
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert (depth, colour_type, interlace) == (8, 2, 0)
    raw = zlib.decompress(idat)
    stride = 1 + 3 * width
    rows = [raw[y * stride:(y + 1) * stride] for y in range(height)]
    assert all(row[0] == 0 for row in rows)  # filter type 0 on every row
    return width, height, [row[1:] for row in rows]


def pixel(rows: list[bytes], x: int, y: int) -> tuple[int, int, int]:
    r, g, b = rows[y][3 * x:3 * x + 3]
    return (r, g, b)


def test_bridge_emulate_commands_and_png_layout_from_a_subprocess(tmp_path: Path) -> None:
    """The documented way in: `fujikoro bridge emulate --pty PATH --png FILE --commands` driven through stdin."""
    link_path, png = tmp_path / "table", tmp_path / "leds.png"
    process = subprocess.Popen(
        [sys.executable, "-m", "ui.cli.main", "bridge", "emulate", "--pty", str(link_path), "--png", str(png),
         "--commands", "--seconds", "30"],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None

    def ask(line: str) -> str:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(line + "\n")
        process.stdin.flush()
        while True:
            reply = process.stdout.readline()
            if reply.startswith(("ok ", "error: ")) or not reply:
                return reply.rstrip("\n")

    try:
        assert process.stdout.readline() == f"emulated table on {link_path}\n"
        host = Host(str(link_path))
        try:
            # Every LED its own colour, so each dot in the picture names the LED it draws.
            chain = b"".join(bytes((i, 255 - i, 7)) for i in range(LEDMAP.chain_length))
            state = LedState(chain, bytes((1, 2, 3)))
            host.link.set_leds(state)
            assert host.link.wait_synced(3)
            # The documented layout: a row per lava number (ascending), the bar, then the player LED.
            layout = [list(LEDMAP.lava[n]) for n in sorted(LEDMAP.lava)] + [list(LEDMAP.countdown)]

            def picture_shows_state() -> bool:
                try:
                    width, height, rows = read_png(png)
                except (OSError, zlib.error, struct.error, AssertionError):
                    return False
                if (width, height) != (4 + 24 * 11, 4 + 24 * 7):
                    return False
                for r, indices in enumerate(layout):
                    for c, index in enumerate(indices):
                        if pixel(rows, 14 + 24 * c, 14 + 24 * r) != state.pixel(index):
                            return False
                return pixel(rows, 14, 14 + 24 * len(layout)) == (1, 2, 3)  # the player LED, last row

            assert wait_for(picture_shows_state, 5)
            _, _, rows = read_png(png)
            assert pixel(rows, 0, 0) == (24, 20, 20) == pixel(rows, 4, 4)  # background; a disc's corner
            assert pixel(rows, 4 + 9, 4) == (0, 255, 7)  # top of LED 0's disc: (9 - 9.5)² + 9.5² ≤ 100
            assert pixel(rows, 14 + 24 * 10, 14 + 24 * 1) == (24, 20, 20)  # lava 2 has 10 LEDs, not 11
            # The worked examples of emulator.md §3: chain LED 7, bar space 1 (LED 51), the player LED.
            assert pixel(rows, 38, 62) == state.pixel(7) and pixel(rows, 14, 134) == state.pixel(51)
            assert pixel(rows, 14, 158) == (1, 2, 3)

            assert ask("press end_turn") == "ok press end_turn"
            assert wait_for(lambda: (P.BUTTON, bytes((P.BUTTON_END_TURN,))) in host.events(), 2)
            assert ask("roll T3b") == "ok roll T3b"
            assert wait_for(lambda: host.events()[-1:] == [(P.DICE, P.dice([(2, 3, True)]))], 3)
            assert ask("leds").startswith("ok leds player=010203 0=00ff07 1=01fe07 ")
            assert ask("press everything") == ("error: no button 'everything'; "
                                               "this build has end_turn, dragon_roll, undo")
        finally:
            host.link.close()
        assert ask("quit") == "ok quit"
        assert process.wait(5) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


class RawHost:
    """A host of bare frames on the emulator's pty, for the checks hardware_docs/emulator.md §1 lists."""

    def __init__(self, path: str) -> None:
        import os
        import tty

        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.fd)
        from firmware_bridge.wire import HostDecoder

        self.decoder = HostDecoder()

    def send(self, data: bytes) -> list[tuple[int, int, bytes]]:
        """Write bytes, return the frames the table answers (within 1 s; then nothing more for 0.1 s)."""
        import os
        import select

        os.write(self.fd, data)
        out: list[tuple[int, int, bytes]] = []
        deadline = time.monotonic() + 1.0
        while (left := deadline - time.monotonic()) > 0:
            if select.select([self.fd], [], [], left)[0]:
                out += self.decoder.feed(os.read(self.fd, 4096))
                if out:
                    deadline = min(deadline, time.monotonic() + 0.1)
        return out

    def close(self) -> None:
        import os

        os.close(self.fd)


def test_bridge_emulator_behaves_as_the_docs_table_says(tmp_path: Path) -> None:
    from firmware_bridge.wire import frame

    emulator = Emulator()
    host = RawHost(emulator.serve_pty(tmp_path / "table"))
    try:
        assert host.send(frame(P.PLAYER, 1, b"\x01\x02\x03")) == [(P.NAK, 1, P.error(P.E_HELLO))]
        ((mtype, seq, payload),) = host.send(frame(P.HELLO, 2, P.hello()))
        assert (mtype, seq) == (P.IDENTITY, 2)
        # (0x80: the first HELLO since the board started, protocol.md §6.)
        assert P.parse_identity(payload) == (1, 0x1F | P.STARTED, 59, 0xDDFB, "fujikoro-table-1")
        bad = bytearray(frame(P.PLAYER, 3, b"\x01\x02\x03"))
        bad[4] ^= 0x01
        ((mtype, seq, payload),) = host.send(bytes(bad))
        assert (mtype, seq) == (P.NAK, 0) and payload[0] in (P.E_CRC, P.E_COBS, P.E_SHORT)
        oversize = bytes((P.HEARTBEAT, 3, 251)) + bytes(251)
        crc = P.crc16(oversize)
        wire = b"\x00" + P.cobs_encode(oversize + bytes((crc >> 8, crc & 0xFF))) + b"\x00"
        assert host.send(wire) == [(P.NAK, 0, P.error(P.E_OVERSIZE))]
        for seq, (mtype, payload), code in zip(range(4, 8), [
                (P.LED_FRAME, P.led_frame(58, bytes(6))), (P.COUNTDOWN, P.countdown(9, bytes(3), bytes(3))),
                (P.PLAYER, b"\x01\x02"), (0x40, b"")], [P.E_RANGE, P.E_RANGE, P.E_PAYLOAD, P.E_TYPE], strict=True):
            ((got_type, got_seq, got_payload),) = host.send(frame(mtype, seq, payload))
            assert (got_type, got_seq, got_payload[0]) == (P.NAK, seq, code)
        led = frame(P.LED_FRAME, 8, P.led_frame(57, b"\xf0\x80\x40\x11\x22\x33"))
        assert host.send(led) == [(P.ACK, 8, b"")]
        assert host.send(led) == [(P.ACK, 8, b"")]  # a retransmission: ACKed again, applied once
        assert emulator.command("leds").endswith(" 56=000000 57=f08040 58=112233")
        time.sleep(2.0)  # link lost: 2 s without a valid host frame
        assert emulator.command("leds").endswith(" 57=1e1008 58=020406")
        assert emulator.player() in ((255, 0, 0), (0, 0, 0))
    finally:
        host.close()
        emulator.close()


def test_bridge_emulate_png_exists_at_start(tmp_path: Path) -> None:
    png = tmp_path / "leds.png"
    assert subprocess.run([sys.executable, "-m", "ui.cli.main", "bridge", "emulate", "--pty", str(tmp_path / "t"),
                           "--png", str(png), "--seconds", "0.5"], cwd=ROOT, timeout=20).returncode == 0
    width, height, rows = read_png(png)
    assert (width, height) == (268, 172)
    assert pixel(rows, 14, 14) == (0, 0, 0) and pixel(rows, 14, 158) == (0, 0, 0)
    assert not (tmp_path / "leds.png.tmp").exists()


def test_bridge_emulator_doc_monitor_example_sends_what_it_says(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The `--send-leds` example of hardware_docs/emulator.md §4, run against the emulator on a pty."""
    import shlex

    from ui.cli.main import main

    doc = (ROOT / "hardware_docs" / "emulator.md").read_text()
    example = doc.split("## 4.")[1].split("```sh")[1].split("```")[0].replace("\\\n", " ")
    argv = shlex.split(example)
    assert argv[:3] == ["fujikoro", "bridge", "monitor"]
    emulator = Emulator()
    argv[3] = emulator.serve_pty(tmp_path / "table")
    try:
        assert main(argv[1:]) == 0
        chain, player = emulator.chain(), emulator.player()
    finally:
        emulator.close()
    out = capsys.readouterr().out
    sent = [line.split("host -> table  ")[1] for line in out.splitlines() if "host -> table  " in line]
    assert sent[:4] == ["HELLO #1 01", "PLAYER #2 rgb (0, 64, 255)", "LED_FRAME #3 LEDs 0..58",
                        "COUNTDOWN #4 position 3"]
    assert player == (0, 64, 255) and chain[3] == (255, 48, 0)
    assert [chain[i] for i in LEDMAP.countdown] == [(255, 140, 0)] * 3 + [(16, 16, 16)] * 5
