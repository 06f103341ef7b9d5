"""In-process fault soak: the host LinkCore and the real firmware joined by a faulty wire, on a fake clock.

Both ends are the production code (LinkCore; firmware/main.py on a stand-in Board). The wire cuts the
byte stream into frames and injects faults (:mod:`firmware_bridge.faults`) in both directions; an
unplug also reboots the board, as pulling a USB-powered Pico does. Time is a fake millisecond clock that
jumps to the next timer when the wire is idle, so 10,000 faults take seconds, not hours.

Every LED write the firmware makes is checked against the states the host asked for (or their
"link lost" dimming); per chunk on the wire, frames lost must not exceed the faults injected into it.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, field
from typing import Any

from firmware_bridge import ledmap as ledmap_module
from firmware_bridge.faults import Fault, FaultInjector, FaultSpec
from firmware_bridge.link import LinkCore, LinkState
from firmware_bridge.standins import Board, FakeClock, firmware_files, load_firmware
from firmware_bridge.view import LedState
from firmware_bridge.wire import HostDecoder

RGB = tuple[int, int, int]


@dataclass(slots=True)
class SoakReport:
    faults: dict[str, int] = field(default_factory=dict)
    frames_sent: int = 0
    frames_intact: int = 0
    frames_lost: int = 0
    worst_chunk_excess: int = 0  # max over chunks of (lost - faults); must stay <= 0
    corrupted_shown: int = 0
    shown: int = 0
    states_set: int = 0
    reboots: int = 0
    converged: bool = False
    fake_seconds: float = 0.0

    @property
    def injected(self) -> int:
        return sum(self.faults.values())


class _Direction:
    """One direction of the wire: fault injection and per-chunk loss accounting."""

    def __init__(self, spec: FaultSpec, rng: random.Random, report: SoakReport) -> None:
        self.injector = FaultInjector(spec, rng)
        self.counter = HostDecoder()  # counts intact frames at the receiving end
        self.report = report

    def carry(self, data: bytes) -> tuple[bytes, bool]:
        before, frames_before = self.injector.injected, self.injector.frames
        passed, unplug = self.injector.feed(data)
        faults = self.injector.injected - before
        units = self.injector.frames - frames_before  # after an unplug the rest never went on the wire
        intact = sum(1 for mtype, _, _ in self.counter.feed(passed) if mtype >= 0)
        lost = units - intact
        self.report.frames_sent += units
        self.report.frames_intact += intact
        self.report.frames_lost += max(0, lost)
        self.report.worst_chunk_excess = max(self.report.worst_chunk_excess, lost - faults)
        return passed, unplug


class Soak:
    def __init__(self, spec: FaultSpec, *, seed: int = 1, reconnect_ms: int = 150) -> None:
        self.rng = random.Random(seed)
        self.spec = spec
        self.report = SoakReport()
        self.ledmap = ledmap_module.default()
        self.clock = FakeClock(0)
        self.reconnect_ms = reconnect_ms
        self.core = LinkCore(self.ledmap, dice={})
        self.to_device = _Direction(spec, random.Random(self.rng.random()), self.report)
        self.to_host = _Direction(spec, random.Random(self.rng.random()), self.report)
        self.allowed_chains: set[tuple[RGB, ...]] = set()
        self.allowed_players: set[RGB] = {(0, 0, 0), (255, 0, 0)}
        dark = tuple((0, 0, 0) for _ in range(self.ledmap.chain_length))
        self._allow_chain(dark)
        self.device: Any = None
        self.board: Board | None = None
        self.device_out = bytearray()
        self.down_until: int | None = None
        self._boot()
        self.core.connection_made(self.now)

    @property
    def now(self) -> float:
        return self.clock.now_ms / 1000

    def _allow_chain(self, chain: tuple[RGB, ...]) -> None:
        self.allowed_chains.add(chain)
        self.allowed_chains.add(tuple((r >> 3, g >> 3, b >> 3) for r, g, b in chain))

    def _boot(self) -> None:
        board = Board(self.clock, firmware_files())
        namespace = load_firmware(board)
        board.usb.on_tx = self.device_out.extend
        board.write_listeners.append(self._check_write)
        with board._open("config.json") as f:
            config = json.load(f)
        self._chain_pin = int(config["chain_pin"])
        self.device = namespace["Device"](config, json.loads(json.dumps(self.ledmap.raw)))
        self.board = board

    def _check_write(self, pixels: Any) -> None:
        self.report.shown += 1
        ok = (pixels.shown in self.allowed_chains if pixels.pin.id == self._chain_pin
              else pixels.shown[0] in self.allowed_players)
        if not ok:
            self.report.corrupted_shown += 1

    def random_state(self) -> LedState:
        rng = self.rng
        # Any picture the bridge may be asked to show: a bar partly lit, a few markers, a player light.
        palette = [self.ledmap.colour(name) for name in ("lava", "bar_lit", "bar_unlit", "rope", "ended")]
        chain = bytearray(self.ledmap.chain_length * 3)
        for index in range(self.ledmap.chain_length):
            if rng.random() < 0.4:
                chain[index * 3:index * 3 + 3] = bytes(rng.choice(palette))
        player = bytes(self.ledmap.player(rng.choice(["red", "blue", "green", "yellow", None])))
        return LedState(bytes(chain), player)

    def set_state(self, leds: LedState) -> None:
        chain = tuple(leds.pixel(i) for i in range(self.ledmap.chain_length))
        self._allow_chain(chain)
        r, g, b = leds.player
        self.allowed_players.add((r, g, b))
        self.report.states_set += 1
        self.core.set_desired(leds, self.now)

    def _unplug(self) -> None:
        self.core.connection_lost("unplugged")
        self.to_device.injector.reset()
        self.to_host.injector.reset()
        self.to_device.counter.reset()
        self.to_host.counter.reset()
        self.device_out.clear()
        self.report.reboots += 1
        self._boot()
        self.down_until = self.clock.now_ms + self.reconnect_ms

    def step(self) -> bool:
        """One millisecond (or a jump to the next timer when idle). Returns whether bytes moved."""
        now = self.now
        if self.down_until is not None:
            if self.clock.now_ms < self.down_until:
                self.clock.now_ms = self.down_until
                return False
            self.down_until = None
            self.core.connection_made(now)
        if self.core.want_reconnect:
            self.core.connection_lost(self.core.want_reconnect)
            self.down_until = self.clock.now_ms + self.reconnect_ms
            return False
        self.core.tick(now)
        moved = False
        out = self.core.take_output()
        if out:
            moved = True
            passed, unplug = self.to_device.carry(out)
            if passed and self.board is not None:
                self.board.usb.host_write(passed)
            if unplug:
                self._unplug()
                return True
        self.device.poll()
        if self.device_out:
            moved = True
            data = bytes(self.device_out)
            self.device_out.clear()
            passed, unplug = self.to_host.carry(data)
            if passed:
                self.core.feed(passed, now)
            if unplug:
                self._unplug()
                return True
        if moved:
            self.clock.now_ms += 1
        else:
            wait = self.core.next_deadline(now)
            self.clock.now_ms += max(1, min(250, math.ceil(wait * 1000)))
        return moved

    def run(self, faults: int, *, change_every: int = 3, max_steps: int = 5_000_000) -> SoakReport:
        steps = 0
        while self.to_device.injector.injected + self.to_host.injector.injected < faults and steps < max_steps:
            due = self.core.state is LinkState.READY and self.core.synced or steps % change_every == 0
            if due and self.rng.random() < 0.5:
                self.set_state(self.random_state())
            self.step()
            steps += 1
        # Quiet line: the link must heal and the LEDs show exactly the last wanted state.
        self.to_device.injector.spec = self.to_host.injector.spec = FaultSpec()
        for _ in range(20_000):
            if self.core.synced:
                break
            self.step()
        self.report.converged = self.core.synced and self._shown_chain() == self._wanted_chain()
        merged: dict[str, int] = {f.value: 0 for f in Fault}
        for direction in (self.to_device, self.to_host):
            for fault, n in direction.injector.counts.items():
                merged[fault.value] += n
        self.report.faults = merged
        self.report.fake_seconds = self.clock.now_ms / 1000
        return self.report

    def _shown_chain(self) -> tuple[RGB, ...]:
        assert self.board is not None
        shown: tuple[RGB, ...] = self.board.neopixels[self._chain_pin].shown
        return shown

    def _wanted_chain(self) -> tuple[RGB, ...]:
        leds = self.core.desired
        return tuple(leds.pixel(i) for i in range(self.ledmap.chain_length))


def run_soak(faults: int = 10_000, *, spec: FaultSpec | None = None, seed: int = 1) -> SoakReport:
    """Inject ``faults`` faults (drops, bit flips, garbage bursts, unplugs) and report what the LEDs showed."""
    spec = spec or FaultSpec(drop=0.08, flip=0.08, garbage=0.08, unplug=0.004)
    return Soak(spec, seed=seed).run(faults)
