"""Fault injection on a framed byte stream: drop, bit flip, garbage burst, unplug.

The injector sits on the wire between host and device (in the emulator, and in the in-process fault
test). It cuts the stream at zero delimiters and, with the configured probability per frame, drops the
frame, flips one bit of it, splices a burst of random bytes into it, or "unplugs" the line.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass, field


class FaultError(ValueError):
    """A fault specification that cannot be parsed."""


class Fault(enum.StrEnum):
    DROP = "drop"
    FLIP = "flip"
    GARBAGE = "garbage"
    UNPLUG = "unplug"


@dataclass(frozen=True, slots=True)
class FaultSpec:
    """Probability of each fault per frame on the wire (0..1 each, summing to at most 1)."""

    drop: float = 0.0
    flip: float = 0.0
    garbage: float = 0.0
    unplug: float = 0.0
    max_garbage: int = 24

    @property
    def total(self) -> float:
        return self.drop + self.flip + self.garbage + self.unplug

    @classmethod
    def parse(cls, text: str) -> FaultSpec:
        """'drop=0.01,flip=0.02,garbage=0.01,unplug=0.001' (any subset; a bare name means 0.01)."""
        values: dict[str, float] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, _, value = part.partition("=")
            name = name.strip().lower()
            if name not in {f.value for f in Fault}:
                raise FaultError(f"unknown fault {name!r}; known faults: {', '.join(f.value for f in Fault)}")
            try:
                values[name] = float(value) if value else 0.01
            except ValueError:
                raise FaultError(f"fault {name!r} needs a probability such as {name}=0.01, got {value!r}") from None
            if not 0.0 <= values[name] <= 1.0:
                raise FaultError(f"fault {name!r}: probability must be between 0 and 1, got {values[name]}")
        spec = cls(drop=values.get("drop", 0.0), flip=values.get("flip", 0.0),
                   garbage=values.get("garbage", 0.0), unplug=values.get("unplug", 0.0))
        if spec.total > 1.0:
            raise FaultError(f"fault probabilities add up to {spec.total:.3f}, more than 1")
        return spec


@dataclass(slots=True)
class FaultInjector:
    spec: FaultSpec
    rng: random.Random = field(default_factory=random.Random)
    counts: dict[Fault, int] = field(default_factory=lambda: {f: 0 for f in Fault})
    frames: int = 0  # frames that reached the injector (the one an unplug cut included)
    _buf: bytearray = field(default_factory=bytearray)

    @property
    def injected(self) -> int:
        return sum(self.counts.values())

    def reset(self) -> None:
        self._buf.clear()

    def feed(self, data: bytes) -> tuple[bytes, bool]:
        """The bytes to pass on, and whether the line was unplugged (the rest is then discarded)."""
        self._buf.extend(data)
        out = bytearray()
        while True:
            end = self._buf.find(0)
            if end < 0:
                break
            unit = bytes(self._buf[:end + 1])
            del self._buf[:end + 1]
            if len(unit) == 1:
                out.extend(unit)
                continue
            self.frames += 1
            fault = self.choose()
            if fault is Fault.UNPLUG:
                self._buf.clear()
                return bytes(out), True
            out.extend(self.apply(fault, unit))
        return bytes(out), False

    def choose(self) -> Fault | None:
        s = self.spec
        r = self.rng.random()
        for fault, p in ((Fault.DROP, s.drop), (Fault.FLIP, s.flip), (Fault.GARBAGE, s.garbage),
                         (Fault.UNPLUG, s.unplug)):
            if r < p:
                self.counts[fault] += 1
                return fault
            r -= p
        return None

    def apply(self, fault: Fault | None, unit: bytes) -> bytes:
        """One frame (with its trailing delimiter) after ``fault``."""
        if fault is None or fault is Fault.UNPLUG:
            return unit
        if fault is Fault.DROP:
            return b""
        if fault is Fault.FLIP:
            data = bytearray(unit)
            bit = self.rng.randrange(len(data) * 8)
            data[bit // 8] ^= 1 << (bit % 8)
            return bytes(data)
        burst = bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, self.spec.max_garbage)))
        at = self.rng.randrange(len(unit) + 1)
        return unit[:at] + burst + unit[at:]
