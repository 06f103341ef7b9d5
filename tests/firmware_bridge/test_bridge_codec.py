"""The shared wire codec: CRC vectors, COBS against the maintained package, framing and resync."""

from __future__ import annotations

import binascii

import pytest
from cobs import cobs
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.firmware import protocol as P
from firmware_bridge.wire import HostDecoder, describe, frame


@pytest.mark.parametrize(
    ("data", "crc"),
    [(b"123456789", 0x29B1), (b"", 0xFFFF), (b"A", 0xB915), (b"\x00", 0xE1F0)],  # 0x29B1: the catalogue check
)
def test_bridge_crc16_ccitt_false_vectors(data: bytes, crc: int) -> None:
    assert P.crc16_ccitt_false(data) == crc
    assert P.crc16(data) == crc


@given(st.binary(max_size=600))
def test_bridge_own_crc_matches_binascii(data: bytes) -> None:
    assert P.crc16_ccitt_false(data) == binascii.crc_hqx(data, 0xFFFF)


@given(st.binary(max_size=1200))
@settings(max_examples=300)
def test_bridge_own_cobs_matches_package(data: bytes) -> None:
    ours = P.cobs_encode(data)
    assert ours == cobs.encode(data)
    assert 0 not in ours
    assert P.cobs_decode(ours) == data == cobs.decode(ours)


@pytest.mark.parametrize("n", [0, 1, 253, 254, 255, 507, 508, 509])
def test_bridge_cobs_block_boundaries(n: int) -> None:
    for data in (b"\x01" * n, b"\x01" * n + b"\x00", b"\x00" + b"\x02" * n):
        assert P.cobs_encode(data) == cobs.encode(data)
        assert P.cobs_decode(P.cobs_encode(data)) == data


@given(st.binary(min_size=1, max_size=300))
def test_bridge_own_cobs_decode_agrees_on_any_input(data: bytes) -> None:
    """On arbitrary (often malformed) input both decoders accept the same frames with the same result."""
    try:
        theirs: bytes | None = cobs.decode(data)
    except cobs.DecodeError:
        theirs = None
    try:
        ours: bytes | None = P.cobs_decode(data)
    except P.CodecError:
        ours = None
    assert ours == theirs


@given(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=P.MAX_PAYLOAD))
def test_bridge_frame_round_trip_host_and_device(mtype: int, seq: int, payload: bytes) -> None:
    wire = frame(mtype, seq, payload)
    assert wire == P.pack(mtype, seq, payload)  # package COBS on the host, own COBS on the Pico
    assert wire[0] == 0 and wire[-1] == 0 and 0 not in wire[1:-1]
    assert P.Decoder().feed(wire) == [(mtype, seq, payload)]
    assert HostDecoder().feed(wire) == [(mtype, seq, payload)]


def test_bridge_oversize_payload_refused() -> None:
    with pytest.raises(P.CodecError):
        P.pack(P.LED_FRAME, 1, bytes(P.MAX_PAYLOAD + 1))


@given(st.binary(max_size=400), st.integers(0, 255), st.binary(max_size=60))
@settings(max_examples=300)
def test_bridge_resync_after_any_garbage(garbage: bytes, seq: int, payload: bytes) -> None:
    """Line noise costs nothing but the noise: the next frame after it decodes (both decoders)."""
    wire = garbage + frame(P.LED_FRAME, seq, payload)
    for decoder in (P.Decoder(), HostDecoder()):
        good = [item for item in decoder.feed(wire) if item[0] != P.BAD]
        assert good[-1:] == [(P.LED_FRAME, seq, payload)]


@given(st.lists(st.binary(max_size=40), max_size=6), st.lists(st.integers(1, 50), max_size=8))
def test_bridge_decoders_agree_on_chunked_streams(payloads: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(frame(P.PLAYER, i, p) for i, p in enumerate(payloads)) + b"\x13\x00\x07"
    chunks, at = [], 0
    for cut in cuts:
        chunks.append(stream[at:at + cut])
        at += cut
    chunks.append(stream[at:])
    device, host = P.Decoder(), HostDecoder()
    got_device = [item for chunk in chunks for item in device.feed(chunk)]
    got_host = [item for chunk in chunks for item in host.feed(chunk)]
    assert got_device == got_host
    assert [item for item in got_host if item[0] != P.BAD] == [(P.PLAYER, i, p) for i, p in enumerate(payloads)]


def test_bridge_flipped_trailing_delimiter_is_caught() -> None:
    """00 -> 01 on the closing delimiter appends one zero byte; the CRC alone cannot see that."""
    wire = bytearray(frame(P.LED_FRAME, 7, P.led_frame(0, bytes(range(30)))))
    wire[-1] = 0x01
    items = P.Decoder().feed(bytes(wire) + b"\x00")
    assert items == [(P.BAD, P.E_SHORT, b"")]


def test_bridge_noise_without_zeros_is_bounded() -> None:
    decoder = P.Decoder()
    assert decoder.feed(b"\x55" * 5000) == []
    assert decoder.feed(b"\x00") == [(P.BAD, P.E_OVERSIZE, b"")]
    assert decoder.feed(frame(P.HEARTBEAT, 3)) == [(P.HEARTBEAT, 3, b"")]


def test_bridge_payload_layouts_round_trip() -> None:
    assert P.parse_led_frame(P.led_frame(300, b"\x01\x02\x03")) == (300, b"\x01\x02\x03")
    assert P.parse_countdown(P.countdown(3, b"\x01\x02\x03", b"\x04\x05\x06")) == (3, b"\x01\x02\x03", b"\x04\x05\x06")
    assert P.parse_identity(P.identity(1, 0x1F, 59, 0xBEEF, "table-7")) == (1, 0x1F, 59, 0xBEEF, "table-7")
    assert P.parse_dice(P.dice([(0, 1, False), (1, 0, True), (3, 4, False)])) == [
        (0, 1, False), (1, 0, True), (3, 4, False)]
    assert P.parse_error(P.error(P.E_RANGE, "too far")) == (P.E_RANGE, "too far")
    assert P.parse_identity(b"\x01\x00\x00\x3b\x00\x00\xff\xfe")[4] == "??"  # undecodable id never raises
    for bad in (lambda: P.parse_led_frame(b"\x00\x00\x01"), lambda: P.parse_countdown(b"\x01"),
                lambda: P.parse_dice(b"\x09\x01"), lambda: P.led_frame(0, b"\x01\x02")):
        with pytest.raises(P.CodecError):
            bad()


def test_bridge_describe_lines() -> None:
    assert describe(P.LED_FRAME, 4, P.led_frame(2, bytes(9))) == "LED_FRAME #4 LEDs 2..4"
    assert describe(P.NAK, 0, P.error(P.E_CRC)) == "NAK #0 crc"
    assert describe(P.DICE, 9, P.dice([(1, 2, True)])) == "DICE #9 metal 2b"
    assert "malformed" in describe(P.LED_FRAME, 1, b"\x00")


def test_bridge_protocol_doc_examples_decode() -> None:
    """Every example frame in hardware_docs/protocol.md is what the codec produces."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "hardware_docs" / "protocol.md").read_text()
    section = doc.split("## 8.")[1].split("## 9.")[0]
    lines = section.split("```")[1].splitlines()
    frames: list[bytes] = []
    for line in lines:
        hexes = [tok for tok in line.split() if len(tok) == 2 and all(c in "0123456789ABCDEF" for c in tok)]
        if line.startswith(("host", "device")):
            frames.append(bytes.fromhex("".join(hexes)))
        elif hexes and frames:
            frames[-1] += bytes.fromhex("".join(hexes))
    decoded = [P.Decoder().feed(f) for f in frames]
    assert [d[0][0] for d in decoded] == [P.HELLO, P.IDENTITY, P.PLAYER, P.ACK, P.LED_FRAME, P.COUNTDOWN,
                                          P.HEARTBEAT, P.NAK, P.BUTTON, P.TRAY, P.DICE]
    assert P.parse_identity(decoded[1][0][2])[2:] == (59, 0xDDFB, "fujikoro-table-1")
    assert P.parse_dice(decoded[-1][0][2]) == [(0, 1, False), (1, 0, True)]


def _raw_frame(mtype: int, seq: int, payload: bytes) -> bytes:
    """A frame built by hand, bypassing the encoder's own limit (what a faulty or hostile peer sends)."""
    raw = bytes((mtype, seq, len(payload) & 0xFF)) + payload
    crc = P.crc16_ccitt_false(raw)
    return b"\x00" + P.cobs_encode(raw + bytes((crc >> 8, crc & 0xFF))) + b"\x00"


# A payload with zero bytes keeps COBS at one byte of overhead, so a 251-byte payload (256-byte body)
# stuffs to exactly 257 bytes and passes the segment-length limit: only the payload check can catch it.
PAYLOAD_251 = bytes(251)


def test_bridge_251_byte_payload_is_refused_by_both_decoders() -> None:
    """hardware_docs/protocol.md §2: ``len`` is 0..250 and "payload ≤ 250 bytes, body ≤ 255 bytes".

    A 251-byte payload with a valid length byte and CRC must be a bad frame (code oversize) on the
    device's decoder (protocol.Decoder, own COBS) and on the host's (wire.HostDecoder, package COBS).
    """
    wire = _raw_frame(P.HEARTBEAT, 7, PAYLOAD_251)
    assert len(wire) - 2 == P.MAX_ENCODED  # the segment itself is within the limit
    with pytest.raises(P.CodecError) as caught:
        P.check_body(P.cobs_decode(wire[1:-1]))
    assert caught.value.code == P.E_OVERSIZE
    assert P.Decoder().feed(wire) == [(P.BAD, P.E_OVERSIZE, b"")]
    assert HostDecoder().feed(wire) == [(P.BAD, P.E_OVERSIZE, b"")]


@pytest.mark.parametrize("payload", [bytes(250), b"\xff" * 250, bytes(range(250))])
def test_bridge_250_byte_payload_is_accepted_by_both_decoders(payload: bytes) -> None:
    """hardware_docs/protocol.md §2: the largest payload, 250 bytes, is a good frame (boundary)."""
    wire = frame(P.LED_FRAME, 9, payload)
    assert wire == _raw_frame(P.LED_FRAME, 9, payload)
    assert len(wire) - 2 <= P.MAX_ENCODED
    assert P.Decoder().feed(wire) == [(P.LED_FRAME, 9, payload)]
    assert HostDecoder().feed(wire) == [(P.LED_FRAME, 9, payload)]


def test_bridge_encoders_refuse_a_251_byte_payload() -> None:
    """hardware_docs/protocol.md §2: neither the device's nor the host's encoder builds an oversize frame."""
    for build in (lambda: P.pack(P.HEARTBEAT, 1, PAYLOAD_251), lambda: frame(P.HEARTBEAT, 1, PAYLOAD_251),
                  lambda: P.body(P.HEARTBEAT, 1, PAYLOAD_251)):
        with pytest.raises(P.CodecError) as caught:
            build()
        assert caught.value.code == P.E_OVERSIZE
