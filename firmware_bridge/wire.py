"""Host side of the wire codec: the shared protocol module with the maintained ``cobs`` package for stuffing.

The firmware uses protocol.py's own COBS; the host uses the C implementation from PyPI. Tests check
both agree byte for byte (property tests), so either end can talk to the other.
"""

from __future__ import annotations

from cobs import cobs

from firmware_bridge.firmware import protocol


def _decode(segment: bytes | bytearray | memoryview) -> bytes:
    try:
        return bytes(cobs.decode(bytes(segment)))
    except cobs.DecodeError as error:
        raise protocol.CodecError(protocol.E_COBS, f"COBS: {error}") from None


def frame(mtype: int, seq: int, payload: bytes = b"") -> bytes:
    """A complete frame (both zero delimiters) for the wire."""
    return bytes(protocol.pack(mtype, seq, payload, encode=cobs.encode))


Frame = tuple[int, int, bytes]


class HostDecoder(protocol.Decoder):
    """protocol.Decoder with the package's COBS and a split on zero bytes instead of a byte loop."""

    def __init__(self) -> None:
        super().__init__(decode=_decode)
        self._pending = bytearray()

    def reset(self) -> None:
        self._pending = bytearray()

    def feed(self, data: bytes | bytearray | memoryview) -> list[Frame]:
        out: list[Frame] = []
        self._pending.extend(data)
        if 0 not in data:
            if len(self._pending) > protocol.MAX_ENCODED * 4:  # noise without zeros: keep the tail only
                del self._pending[:-protocol.MAX_ENCODED - 1]
            return out
        *segments, rest = bytes(self._pending).split(b"\x00")
        self._pending = bytearray(rest)
        for segment in segments:
            if not segment:
                continue
            try:
                out.append(protocol.unpack(segment, _decode))
                self.frames += 1
            except protocol.CodecError as error:
                self.errors += 1
                out.append((protocol.BAD, error.code, b""))
        return out


def describe(mtype: int, seq: int, payload: bytes) -> str:
    """One line for the traffic monitor."""
    name = protocol.NAMES.get(mtype, f"0x{mtype:02x}")
    try:
        if mtype == protocol.BAD:
            return f"BAD frame ({protocol.ERROR_NAMES.get(seq, seq)})"
        if mtype == protocol.LED_FRAME:
            start, rgb = protocol.parse_led_frame(payload)
            return f"{name} #{seq} LEDs {start}..{start + len(rgb) // 3 - 1}"
        if mtype == protocol.COUNTDOWN:
            position, lit, unlit = protocol.parse_countdown(payload)
            return f"{name} #{seq} position {position}"
        if mtype == protocol.PLAYER:
            return f"{name} #{seq} rgb {tuple(payload)}"
        if mtype == protocol.IDENTITY:
            version, caps, n, crc, ident = protocol.parse_identity(payload)
            return f"{name} #{seq} {ident!r} v{version} caps 0x{caps:02x} {n} LEDs map 0x{crc:04x}"
        if mtype in (protocol.NAK, protocol.ERROR):
            code, text = protocol.parse_error(payload)
            return f"{name} #{seq} {protocol.ERROR_NAMES.get(code, code)} {text}".rstrip()
        if mtype == protocol.TRAY:
            return f"{name} #{seq} {'rolling' if payload[:1] == bytes((protocol.TRAY_ROLLING,)) else 'still'}"
        if mtype == protocol.DICE:
            dice = protocol.parse_dice(payload)
            shown = ", ".join(f"{protocol.DIE_KINDS[k]} {h}{'b' if b else ''}" for k, h, b in dice)
            return f"{name} #{seq} {shown}"
        if mtype == protocol.BUTTON:
            return f"{name} #{seq} {payload[0] if payload else '?'}"
    except (protocol.CodecError, IndexError) as error:
        return f"{name} #{seq} malformed payload ({error})"
    return f"{name} #{seq}" + (f" {payload.hex()}" if payload else "")
