"""The tower's tray from a photo: the cubes counted by colour with ``vision.tray`` (spec 12.1: the tray
is counted after every throw).

The reader is handed the game's colours: the five player colours of the data pack
(``components.colours``) and the green peasants, each with the colour of its cubes under white light
(:data:`CUBE_LAB`, CIE Lab, *assumed*: nobody has measured a real box; correct it here for your copy).
A colour the reader is not sure of is ``None`` (shown ``?``) with the reason - never a guess - and the
players count that colour by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.shogun.pack import GREEN, Pack

#: The cubes' colours (CIE Lab under white light), assumed. Black cubes lie on a dark tray lining: the
#: reader leaves black ``?`` when it cannot tell them from the lining.
CUBE_LAB: dict[str, tuple[float, float, float]] = {
    "blue": (38.0, 10.0, -50.0), "red": (45.0, 60.0, 42.0), "yellow": (82.0, 4.0, 78.0),
    "purple": (36.0, 36.0, -30.0), "black": (18.0, 0.0, 0.0), "white": (92.0, 0.0, 4.0),
    GREEN: (52.0, -42.0, 38.0),
}


class TrayPhotoError(ValueError):
    """The photo cannot be counted (no tray sticker, a colour without a known cube colour)."""


@dataclass(frozen=True, slots=True)
class TrayReading:
    counts: dict[str, int | None]  # None: not sure (``?``)
    uncertain: dict[str, str]
    retake: str | None

    def to_json(self) -> dict[str, Any]:
        return {"counts": {c: "?" if n is None else n for c, n in self.counts.items()},
                "uncertain": dict(self.uncertain), "retake": self.retake}


def read_tray(image: Any, pack: Pack) -> TrayReading:
    """The cubes in a photo of the tower's tray, per colour of this game (``None``: not sure)."""
    from vision.tray import TrayReadError, count_tray

    colours = [*pack.colours, GREEN]
    unknown = [c for c in colours if c not in CUBE_LAB]
    if unknown:
        raise TrayPhotoError(f"components.colours: no cube colour is known for {', '.join(unknown)}; "
                             "add it to games/shogun/photo.py CUBE_LAB")
    try:
        count = count_tray(image, {c: CUBE_LAB[c] for c in colours})
    except TrayReadError as error:
        raise TrayPhotoError(str(error)) from None
    return TrayReading({c: count.counts.get(c) for c in colours}, dict(count.reasons), count.retake)
