"""Done-when: 10,000 injected faults -> no corrupted frame shown, <= 1 frame lost per fault, quick resync."""

from __future__ import annotations

import random

import pytest

from firmware_bridge.faults import Fault, FaultError, FaultInjector, FaultSpec
from firmware_bridge.firmware import protocol as P
from firmware_bridge.soak import run_soak
from firmware_bridge.wire import HostDecoder, frame


def test_bridge_ten_thousand_faults() -> None:
    report = run_soak(10_000, seed=7)
    assert report.injected >= 10_000
    assert all(report.faults[f.value] > 100 for f in Fault)  # every kind, unplugs included
    assert report.shown > 10_000 and report.states_set > 5_000
    assert report.corrupted_shown == 0
    assert report.worst_chunk_excess <= 0  # never more frames lost than faults on the wire
    assert report.frames_lost <= report.injected
    assert report.converged


def test_bridge_soak_notices_corruption_when_crc_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: accept frames with a bad CRC and corrupted LEDs get counted."""
    strict = P.check_body

    def lax(raw: bytes) -> tuple[int, int, bytes]:
        try:
            result: tuple[int, int, bytes] = strict(raw)
            return result
        except P.CodecError as error:
            if error.code != P.E_CRC:
                raise
            return raw[0], raw[1], bytes(raw[3:-2])

    monkeypatch.setattr(P, "check_body", lax)
    report = run_soak(1_500, seed=3)
    assert report.corrupted_shown > 0


def test_bridge_garbage_between_frames_loses_nothing() -> None:
    stream = b"".join(frame(P.LED_FRAME, i, P.led_frame(0, bytes((i,)) * 3)) for i in range(200))
    injector = FaultInjector(FaultSpec(garbage=1.0), random.Random(5))
    out, unplug = injector.feed(stream)
    got = [item for item in HostDecoder().feed(out) if item[0] != P.BAD]
    assert not unplug and injector.counts[Fault.GARBAGE] == 200
    # Each burst lands inside its frame (lost) or before the next delimiter (free): never more than one.
    assert len(got) >= 200 - injector.counts[Fault.GARBAGE]
    assert all(item[2] == P.led_frame(0, bytes((item[1],)) * 3) for item in got)


def test_bridge_injector_faults_one_frame_each() -> None:
    stream = b"".join(frame(P.HEARTBEAT, i) for i in range(250))
    for spec in (FaultSpec(drop=0.2), FaultSpec(flip=0.2), FaultSpec(garbage=0.2)):
        injector = FaultInjector(spec, random.Random(1))
        out, _ = injector.feed(stream)
        intact = [item for item in HostDecoder().feed(out + b"\x00") if item[0] == P.HEARTBEAT]
        assert 250 - len(intact) <= injector.injected
        assert [i for _, i, _ in intact] == sorted(i for _, i, _ in intact)


def test_bridge_injector_unplug_cuts_the_line() -> None:
    injector = FaultInjector(FaultSpec(unplug=1.0), random.Random(1))
    out, unplug = injector.feed(frame(P.HEARTBEAT, 1) + frame(P.HEARTBEAT, 2))
    assert unplug and out == b"\x00"


def test_bridge_fault_spec_parsing() -> None:
    assert FaultSpec.parse("drop=0.1, flip=0.2,garbage") == FaultSpec(drop=0.1, flip=0.2, garbage=0.01)
    for bad, words in (("smoke=0.1", "unknown fault"), ("drop=x", "probability"), ("drop=2", "between"),
                       ("drop=0.6,flip=0.6", "more than 1")):
        with pytest.raises(FaultError, match=words):
            FaultSpec.parse(bad)
