"""The cube tower as bookkeeping (spec 6.1): what is stuck inside and what lies in the tray, exactly.

No physics: every throw puts cubes in (from outside and the whole tray, spec 6.1) and the table counts what
came out. By conservation ``inside_after[c] = inside_before[c] + thrown[c] - out[c]``. Cubes that fall out
by themselves between battles move from inside to the tray. Nothing here knows the rules of a battle
(:mod:`games.shogun.battle`), only cubes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

Counts = Mapping[str, int]


class TowerError(ValueError):
    """Counts that cannot be true (more cubes out than went in or were inside); one sentence."""


def clean(counts: Counts | None, what: str = "counts") -> dict[str, int]:
    """Counts per colour without zeros; a one-sentence error for a negative or non-whole number, or for
    anything that is not counts per colour."""
    if counts is not None and not isinstance(counts, Mapping):
        raise TowerError(f"{what}: expected cubes per colour, like {{\"blue\": 2, \"green\": 1}}, got {counts!r}")
    out: dict[str, int] = {}
    for colour, n in (counts or {}).items():
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise TowerError(f"{what}.{colour}: expected a whole number of cubes, 0 or more, got {n!r}")
        if n:
            out[str(colour)] = n
    return out


def add(a: Counts, b: Counts) -> dict[str, int]:
    return clean({c: a.get(c, 0) + b.get(c, 0) for c in set(a) | set(b)})


def subtract(a: Counts, b: Counts, what: str) -> dict[str, int]:
    for colour, n in b.items():
        if n > a.get(colour, 0):
            raise TowerError(f"{what}: {n} {colour} cube(s) needed but only {a.get(colour, 0)} there")
    return clean({c: a.get(c, 0) - b.get(c, 0) for c in set(a) | set(b)})


@dataclass(frozen=True, slots=True)
class Throw:
    """One recorded throw. ``added`` came from outside the tower (board, supplies), ``tray_in`` is the tray
    that went in with it; a "fell out by itself" record has neither. ``prediction`` is the odds the app showed
    before the throw (for the model's track record), ``outcome`` the battle's result."""

    kind: str  # "seed" | "battle" | "fell_out"
    label: str
    added: Counts
    tray_in: Counts
    inside_before: Counts
    out: Counts
    prediction: Mapping[str, float] | None = None
    outcome: str | None = None

    @property
    def thrown(self) -> dict[str, int]:
        return add(self.added, self.tray_in)

    def observations(self) -> list[tuple[int, int, int]]:
        """(thrown, inside before, out) per colour: what the tower model is fitted from (not fell-out records)."""
        if self.kind == "fell_out":
            return []
        thrown = self.thrown
        colours = set(thrown) | set(self.inside_before) | set(self.out)
        return [(thrown.get(c, 0), self.inside_before.get(c, 0), self.out.get(c, 0)) for c in sorted(colours)]

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "label": self.label, "added": dict(self.added),
                                "tray_in": dict(self.tray_in), "inside_before": dict(self.inside_before),
                                "out": dict(self.out)}
        if self.prediction is not None:
            data["prediction"] = dict(self.prediction)
        if self.outcome is not None:
            data["outcome"] = self.outcome
        return data


@dataclass(frozen=True, slots=True)
class Tower:
    inside: Counts = field(default_factory=dict)
    tray: Counts = field(default_factory=dict)
    throws: tuple[Throw, ...] = ()

    def throw(self, added: Counts, out: Counts, *, kind: str = "battle", label: str = "",
              prediction: Mapping[str, float] | None = None) -> Tower:
        """Throw ``added`` plus the whole tray; ``out`` is every cube counted in the tray afterwards."""
        added, out = clean(added, "thrown"), clean(out, "out")
        thrown = add(added, self.tray)
        for colour, n in sorted(out.items()):
            available = thrown.get(colour, 0) + self.inside.get(colour, 0)
            if n > available:
                raise TowerError(
                    f"out.{colour}: {n} cube(s) counted in the tray, but only {thrown.get(colour, 0)} went in and "
                    f"{self.inside.get(colour, 0)} were inside the tower")
        inside = subtract(add(self.inside, thrown), out, "inside")
        record = Throw(kind, label, added, dict(self.tray), dict(self.inside), out, prediction)
        return Tower(inside, out, (*self.throws, record))

    def fell_out(self, out: Counts, label: str = "fell out by itself") -> Tower:
        """Cubes that fell out of the tower by themselves between battles: inside -> tray (spec 6.1)."""
        out = clean(out, "out")
        for colour, n in sorted(out.items()):
            if n > self.inside.get(colour, 0):
                raise TowerError(f"out.{colour}: {n} cube(s) fell out, but only {self.inside.get(colour, 0)} "
                                 "were inside the tower")
        record = Throw("fell_out", label, {}, {}, dict(self.inside), out)
        return Tower(subtract(self.inside, out, "inside"), add(self.tray, out), (*self.throws, record))

    def take_from_tray(self, counts: Counts) -> Tower:
        return Tower(self.inside, subtract(self.tray, clean(counts), "tray"), self.throws)

    def with_outcome(self, outcome: str) -> Tower:
        """Marks the last throw with the battle's result (for the track record)."""
        if not self.throws:
            return self
        last = self.throws[-1]
        record = Throw(last.kind, last.label, last.added, last.tray_in, last.inside_before, last.out,
                       last.prediction, outcome)
        return Tower(self.inside, self.tray, (*self.throws[:-1], record))

    def to_json(self) -> dict[str, Any]:
        return {"inside": dict(sorted(self.inside.items())), "tray": dict(sorted(self.tray.items())),
                "throws": len(self.throws)}


@dataclass(frozen=True, slots=True)
class AuditLine:
    colour: str
    board: int
    supply: int
    inside: int
    tray: int
    expected: int

    @property
    def total(self) -> int:
        return self.board + self.supply + self.inside + self.tray

    @property
    def ok(self) -> bool:
        return self.total == self.expected

    def to_json(self) -> dict[str, Any]:
        return {"colour": self.colour, "board": self.board, "supply": self.supply, "inside": self.inside,
                "tray": self.tray, "total": self.total, "expected": self.expected, "ok": self.ok}


def audit(colours: Iterable[str], board: Counts, supply: Counts, tower: Tower,
          expected: Mapping[str, int]) -> list[AuditLine]:
    """Per colour: board + supply + inside + tray, against the box's count (62 per player colour, 20 green;
    spec 1, 12.1 item 6)."""
    return [AuditLine(c, board.get(c, 0), supply.get(c, 0), tower.inside.get(c, 0), tower.tray.get(c, 0),
                      expected[c]) for c in colours]
