"""The table link's wire codec: COBS framing, CRC-16/CCITT-FALSE, message types and payload layouts.

Pure and dependency-free so the very same file runs on the host (CPython) and on the Pico
(MicroPython): no dataclasses, enums, typing or f-string tricks; only bytes, ints and lists.
hardware_docs/protocol.md is the human-readable spec; this module is its reference implementation.

A frame on the wire is ``00 | COBS(type, seq, len, payload..., crc_hi, crc_lo) | 00``. The leading
zero lets a receiver resynchronise on the next frame after line noise; empty segments are ignored.
The length byte is not redundant: a CRC without a final XOR cannot see zero bytes appended after the
CRC, and a bit flip that turns the trailing delimiter 00 into 01 appends exactly one zero byte.
"""

VERSION = 1

# Message types. Host -> device: HELLO, LED_FRAME, COUNTDOWN, PLAYER, HEARTBEAT, ACK (for device events).
# Device -> host: IDENTITY, ACK, NAK, TRAY, DICE, BUTTON, ERROR.
HELLO = 0x01
IDENTITY = 0x02
ACK = 0x06
NAK = 0x15
LED_FRAME = 0x10
COUNTDOWN = 0x11
PLAYER = 0x12
HEARTBEAT = 0x20
TRAY = 0x30
DICE = 0x31
BUTTON = 0x32
ERROR = 0x7F

NAMES = {
    HELLO: "HELLO", IDENTITY: "IDENTITY", ACK: "ACK", NAK: "NAK", LED_FRAME: "LED_FRAME",
    COUNTDOWN: "COUNTDOWN", PLAYER: "PLAYER", HEARTBEAT: "HEARTBEAT", TRAY: "TRAY", DICE: "DICE",
    BUTTON: "BUTTON", ERROR: "ERROR",
}

# Error / NAK codes.
E_CRC = 1
E_COBS = 2
E_SHORT = 3
E_OVERSIZE = 4
E_RANGE = 5
E_TYPE = 6
E_PAYLOAD = 7
E_VERSION = 8
E_HELLO = 9  # a state frame before HELLO: the device (re)booted and the host must start over

ERROR_NAMES = {
    E_CRC: "crc", E_COBS: "cobs", E_SHORT: "short", E_OVERSIZE: "oversize", E_RANGE: "range",
    E_TYPE: "type", E_PAYLOAD: "payload", E_VERSION: "version", E_HELLO: "hello first",
}

# Capability bits in IDENTITY.
CAP_LEDS = 0x01
CAP_PLAYER_LED = 0x02
CAP_TRAY = 0x04
CAP_DICE = 0x08
CAP_BUTTONS = 0x10
# Not a capability: set in the IDENTITY that answers the first HELLO since the device started. Its event
# numbering began again then (at random), so the host forgets the last device seq it saw (protocol.md §6).
STARTED = 0x80

# Buttons in BUTTON.
BUTTON_END_TURN = 1
BUTTON_DRAGON_ROLL = 2
BUTTON_UNDO = 3

# Tray states in TRAY.
TRAY_STILL = 0
TRAY_ROLLING = 1

# Die kinds in DICE.
DIE_KINDS = ("wood", "metal", "tooth", "magic")
FACE_BROKEN = 0x80

MAX_PAYLOAD = 250
MAX_DICE = MAX_PAYLOAD // 2  # one DICE event: (kind, face) per die
# type + seq + len + payload + crc, COBS adds at most one byte per 254 plus one.
MAX_BODY = 3 + MAX_PAYLOAD + 2
MAX_ENCODED = MAX_BODY + MAX_BODY // 254 + 1
MAX_LEDS_PER_FRAME = (MAX_PAYLOAD - 2) // 3

BAD = -1  # the "type" of a frame that failed to decode; its seq slot carries the E_* code


class CodecError(ValueError):
    """A frame or payload that does not follow the protocol."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


# --------------------------------------------------------------------------------------- CRC
_CRC_TABLE = []


def _crc_table():
    if not _CRC_TABLE:
        for byte in range(256):
            crc = byte << 8
            for _ in range(8):
                crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            _CRC_TABLE.append(crc & 0xFFFF)
    return _CRC_TABLE


def crc16_ccitt_false(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor ("123456789" -> 0x29B1)."""
    table = _crc_table()
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc


try:  # CPython has the same CRC in C (binascii.crc_hqx); MicroPython does not.
    from binascii import crc_hqx as _crc_hqx

    def crc16(data):
        return _crc_hqx(bytes(data), 0xFFFF)
except ImportError:  # pragma: no cover - MicroPython path, tested through crc16_ccitt_false
    def crc16(data):
        return crc16_ccitt_false(data)


# -------------------------------------------------------------------------------------- COBS
def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: the result holds no zero byte."""
    out = bytearray(b"\x00")
    code_at = 0
    code = 1
    n = len(data)
    for i in range(n):
        byte = data[i]
        if byte == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
            continue
        out.append(byte)
        code += 1
        if code == 0xFF:
            out[code_at] = code
            code = 1
            if i + 1 < n:  # a full block at the very end needs no empty block after it
                code_at = len(out)
                out.append(0)
            else:
                code_at = -1
    if code_at >= 0:
        out[code_at] = code
    return bytes(out)


def cobs_decode(data):
    """Inverse of :func:`cobs_encode`; raises CodecError(E_COBS) on a malformed block."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise CodecError(E_COBS, "zero byte inside a COBS frame")
        end = i + code
        if end > n:
            raise CodecError(E_COBS, "COBS block runs past the end of the frame")
        for j in range(i + 1, end):
            byte = data[j]
            if byte == 0:
                raise CodecError(E_COBS, "zero byte inside a COBS frame")
            out.append(byte)
        i = end
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


# ------------------------------------------------------------------------------------ frames
def body(mtype, seq, payload=b""):
    """The unstuffed frame: type, seq, payload length, payload, CRC (big-endian) over all before it."""
    if len(payload) > MAX_PAYLOAD:
        raise CodecError(E_OVERSIZE, "payload longer than %d bytes" % MAX_PAYLOAD)
    raw = bytearray()
    raw.append(mtype & 0xFF)
    raw.append(seq & 0xFF)
    raw.append(len(payload))
    raw.extend(payload)
    crc = crc16(raw)
    raw.append(crc >> 8)
    raw.append(crc & 0xFF)
    return bytes(raw)


def pack(mtype, seq, payload=b"", encode=None):
    """A complete frame ready for the wire, delimiters included."""
    stuffed = (encode or cobs_encode)(body(mtype, seq, payload))
    return b"\x00" + stuffed + b"\x00"


def check_body(raw):
    """(type, seq, payload) from an unstuffed frame; raises CodecError on a bad length or CRC.

    A body longer than MAX_BODY (payload over MAX_PAYLOAD) is oversize even when its length byte and
    CRC are right: a 251-byte payload fits the length byte, and with a zero byte in it COBS stuffs the
    256-byte body into exactly MAX_ENCODED bytes, so no earlier check sees it.
    """
    if len(raw) < 5:
        raise CodecError(E_SHORT, "frame shorter than 5 bytes")
    if len(raw) > MAX_BODY:
        raise CodecError(E_OVERSIZE, "payload longer than %d bytes" % MAX_PAYLOAD)
    if raw[2] != len(raw) - 5:
        raise CodecError(E_SHORT, "length byte does not match the frame")
    got = (raw[-2] << 8) | raw[-1]
    if crc16(raw[:-2]) != got:
        raise CodecError(E_CRC, "CRC mismatch")
    return raw[0], raw[1], bytes(raw[3:-2])


def unpack(segment, decode=None):
    """(type, seq, payload) from the bytes between two zero delimiters."""
    if len(segment) > MAX_ENCODED:
        raise CodecError(E_OVERSIZE, "frame longer than %d bytes" % MAX_ENCODED)
    return check_body((decode or cobs_decode)(segment))


class Decoder:
    """Splits a byte stream on zero delimiters and decodes each segment.

    ``feed(data)`` returns a list of (type, seq, payload); a segment that fails to decode comes back
    as (BAD, code, b"") so the device can NAK it. Oversized runs (noise without zeros) are discarded
    without buffering more than MAX_ENCODED bytes.
    """

    def __init__(self, decode=None):
        self._buf = bytearray()
        self._overflow = False
        self._decode = decode
        self.frames = 0
        self.errors = 0

    def reset(self):
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data):
        out = []
        buf = self._buf
        for byte in data:
            if byte != 0:
                if len(buf) < MAX_ENCODED:
                    buf.append(byte)
                else:
                    self._overflow = True
                continue
            if self._overflow:
                self.errors += 1
                out.append((BAD, E_OVERSIZE, b""))
            elif buf:
                try:
                    out.append(unpack(buf, self._decode))
                    self.frames += 1
                except CodecError as error:
                    self.errors += 1
                    out.append((BAD, error.code, b""))
            buf = self._buf = bytearray()
            self._overflow = False
        return out


# ---------------------------------------------------------------------------------- payloads
def text(data):
    """Bytes as text; undecodable bytes never raise (a corrupted name must not crash either end)."""
    try:
        return bytes(data).decode()
    except UnicodeError:
        return "".join(chr(b) if 32 <= b < 127 else "?" for b in data)


def u16(value):
    return bytes(((value >> 8) & 0xFF, value & 0xFF))


def get_u16(data, at):
    return (data[at] << 8) | data[at + 1]


def hello(version=VERSION):
    return bytes((version,))


def identity(version, caps, chain_length, map_crc, device_id):
    ident = device_id.encode() if isinstance(device_id, str) else bytes(device_id)
    return bytes((version, caps)) + u16(chain_length) + u16(map_crc) + ident[:32]


def parse_identity(payload):
    """(version, caps, chain_length, map_crc, device_id)."""
    if len(payload) < 6:
        raise CodecError(E_PAYLOAD, "IDENTITY needs at least 6 bytes")
    return payload[0], payload[1], get_u16(payload, 2), get_u16(payload, 4), text(payload[6:])


def led_frame(start, rgb):
    if len(rgb) % 3:
        raise CodecError(E_PAYLOAD, "LED data must be whole RGB triples")
    return u16(start) + bytes(rgb)


def parse_led_frame(payload):
    """(start, rgb bytes)."""
    if len(payload) < 5 or (len(payload) - 2) % 3:
        raise CodecError(E_PAYLOAD, "LED_FRAME needs a start index and whole RGB triples")
    return get_u16(payload, 0), payload[2:]


def countdown(position, lit, unlit):
    return bytes((position,)) + bytes(lit) + bytes(unlit)


def parse_countdown(payload):
    """(position, lit rgb, unlit rgb)."""
    if len(payload) != 7:
        raise CodecError(E_PAYLOAD, "COUNTDOWN needs 7 bytes")
    return payload[0], payload[1:4], payload[4:7]


def player(rgb):
    return bytes(rgb)


def parse_player(payload):
    if len(payload) != 3:
        raise CodecError(E_PAYLOAD, "PLAYER needs 3 bytes")
    return payload


def dice(results):
    """results: list of (kind index, hits, broken)."""
    out = bytearray()
    for kind, hits, broken in results:
        out.append(kind)
        out.append((hits & 0x7F) | (FACE_BROKEN if broken else 0))
    return bytes(out)


def parse_dice(payload):
    if not payload or len(payload) % 2:
        raise CodecError(E_PAYLOAD, "DICE needs pairs of (kind, face) bytes")
    out = []
    for i in range(0, len(payload), 2):
        kind = payload[i]
        if kind >= len(DIE_KINDS):
            raise CodecError(E_PAYLOAD, "unknown die kind %d" % kind)
        face = payload[i + 1]
        out.append((kind, face & 0x7F, bool(face & FACE_BROKEN)))
    return out


def error(code, text=""):
    return bytes((code,)) + text.encode()[:MAX_PAYLOAD - 1]


def parse_error(payload):
    if not payload:
        raise CodecError(E_PAYLOAD, "ERROR/NAK needs a code byte")
    return payload[0], text(payload[1:])


def paint_countdown(chain, bar, position, lit, unlit):
    """Paint a countdown bar into a bytearray chain: the first ``position`` bar LEDs lit, the rest unlit.

    Used by the firmware on COUNTDOWN and by the host to keep its mirror of the device identical.
    """
    for i in range(len(bar)):
        colour = lit if i < position else unlit
        at = bar[i] * 3
        chain[at] = colour[0]
        chain[at + 1] = colour[1]
        chain[at + 2] = colour[2]


def map_checksum(ledmap):
    """CRC-16 over the LED map's index lists, so host and device can check they share one map."""
    data = bytearray()
    lava = ledmap["lava"]
    for key in sorted(lava, key=int):
        data.extend(u16(int(key)))
        for index in lava[key]:
            data.extend(u16(index))
    data.append(0xFF)
    for index in ledmap["countdown"]:
        data.extend(u16(index))
    data.extend(u16(ledmap["chain_length"]))
    return crc16_ccitt_false(data)
