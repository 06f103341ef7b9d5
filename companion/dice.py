"""Dice: the one value every dice source produces, and seeded rolling.

Three sources feed a fight: the app rolls (seeded, replayable), players roll physical dice and tap the
faces in, or a dice tray reports them. All three produce a :class:`DiceRoll`, so the rules never care
where a roll came from; the log keeps the source and, for app rolls, the seed.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.datapack import DataPackError


@dataclass(frozen=True, slots=True)
class Face:
    """One face of a die: how many hits it shows and whether it carries the broken icon."""

    hits: int
    broken: bool = False

    def __str__(self) -> str:
        return f"{self.hits}b" if self.broken else str(self.hits)


@dataclass(frozen=True, slots=True)
class Die:
    kind: str
    colour: str
    in_box: int
    faces: tuple[Face, ...]

    @property
    def max_hits(self) -> int:
        return max(face.hits for face in self.faces)

    @property
    def mean_hits(self) -> float:
        return sum(face.hits for face in self.faces) / len(self.faces)


def parse_face(path: str, face: Any) -> Face:
    """A die face as written in the pack and in ``fujikoro odds``: 2, or "0b" for 0 hits + broken."""
    if isinstance(face, bool):
        raise DataPackError(f"{path}: expected a number of hits or \"Nb\", got {face!r}")
    if isinstance(face, int):
        if face < 0:
            raise DataPackError(f"{path}: hits must be at least 0, got {face!r}")
        return Face(face)
    if isinstance(face, str) and face.endswith("b") and face[:-1].isdigit():
        return Face(int(face[:-1]), broken=True)
    raise DataPackError(f"{path}: expected a number of hits or \"Nb\" (hits with the broken icon), got {face!r}")


def parse_faces(path: str, faces: Any) -> tuple[Face, ...]:
    if not isinstance(faces, list) or len(faces) != 6:
        raise DataPackError(f"{path}: expected a list of 6 faces, got {faces!r}")
    return tuple(parse_face(f"{path}[{i}]", face) for i, face in enumerate(faces))


class DiceSource(enum.StrEnum):
    APP = "app"
    HAND = "hand"
    TRAY = "tray"


class DiceError(ValueError):
    """A roll that cannot be: an unknown die kind, or a face the die does not have."""


@dataclass(frozen=True, slots=True)
class DieResult:
    """One rolled die: its kind (wood, metal, tooth, magic) and the face that came up."""

    kind: str
    face: Face


@dataclass(frozen=True, slots=True)
class DiceRoll:
    """One throw of one or more dice, from any source."""

    dice: tuple[DieResult, ...]
    source: DiceSource
    seed: int | None = None

    @property
    def hits(self) -> int:
        return sum(d.face.hits for d in self.dice)

    def broken(self, kind: str | None = None) -> int:
        """How many broken icons, of one die kind or of all."""
        return sum(1 for d in self.dice if d.face.broken and (kind is None or d.kind == kind))

    def describe(self) -> str:
        faces = ", ".join(f"{d.face.hits}★" if d.face.broken else str(d.face.hits) for d in self.dice)
        return f"{len(self.dice)} {'die' if len(self.dice) == 1 else 'dice'}: {faces} = {self.hits} hits"

    def to_json(self) -> dict[str, object]:
        return {
            "dice": [[d.kind, str(d.face) if d.face.broken else d.face.hits] for d in self.dice],
            "source": self.source.value,
            "seed": self.seed,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> DiceRoll:
        raw = data.get("dice")
        if not isinstance(raw, list):
            raise DiceError("a roll needs a list of [kind, face] pairs")
        dice: list[DieResult] = []
        for i, item in enumerate(raw):
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
                raise DiceError(f"dice[{i}]: expected [kind, face], got {item!r}")
            try:
                dice.append(DieResult(item[0], parse_face(f"dice[{i}]", item[1])))
            except DataPackError as error:
                raise DiceError(str(error)) from None
        seed = data.get("seed")
        return cls(tuple(dice), DiceSource(str(data.get("source", "hand"))), seed if isinstance(seed, int) else None)


def roll(kinds: Sequence[str], dice: Mapping[str, Die], *, seed: int, source: DiceSource = DiceSource.APP) -> DiceRoll:
    """Roll the named dice with a seeded generator: the same seed gives the same faces."""
    rng = random.Random(seed)
    results = []
    for kind in kinds:
        if kind not in dice:
            raise DiceError(f"unknown die {kind!r}; known dice: {', '.join(dice)}")
        results.append(DieResult(kind, rng.choice(dice[kind].faces)))
    return DiceRoll(tuple(results), source, seed)


def from_faces(kind_faces: Sequence[tuple[str, Face]], dice: Mapping[str, Die], source: DiceSource) -> DiceRoll:
    """A roll read off physical dice (typed in or from a tray): checks each face exists on that die."""
    results = []
    for kind, face in kind_faces:
        if kind not in dice:
            raise DiceError(f"unknown die {kind!r}; known dice: {', '.join(dice)}")
        if face not in dice[kind].faces:
            shown = ", ".join(str(f) for f in dice[kind].faces)
            raise DiceError(f"a {kind} die has no face {face}; its faces are {shown}")
        results.append(DieResult(kind, face))
    return DiceRoll(tuple(results), source)
