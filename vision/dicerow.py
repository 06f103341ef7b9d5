"""Reading plain six-sided dice laid out in rows (The White Castle's bridges): ``read_dice_rows``.

The dice lie on a light surface carrying the dice-tray sticker, which gives the camera and the light (as for
``vision.dice``). The photo is rectified on the plane of the dice tops; a die is a patch unlike the surface of
about a die's size; its body colour is the nearest of ``COLOURS`` (assumed: red, white, black); its top face
is the die's square moved away from the camera's nadir (the side faces lie towards it), and its value is the
number of round pips there (dark on a light die, light on a dark one). Rows: dice whose centres lie within
half a die of each other across the sticker's x axis, read left to right. A die whose colour, size or pips do
not fit is ``?`` with the reason; it keeps its place in its row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.colour import linear_rgb_to_lab
from vision.dice import PPM, DiceReadError, top_view

U8 = npt.NDArray[np.uint8]

DIE_MM = 16.0
#: The dice's body colours (CIE Lab): assumed for The White Castle.
COLOURS: dict[str, tuple[float, float, float]] = {"red": (43.0, 57.0, 38.0), "white": (91.0, 0.0, 4.0),
                                                  "black": (21.0, 0.0, 0.0)}
COLOUR_MAX = 20.0
#: A die's pixel against the surface: this much lighter (L*), this far in hue, or this much darker.
LIGHTER = 8.0
HUE_APART = 12.0
DARKER = 36.0
#: A pip's area (mm²) on a 16 mm die; anything much smaller is noise, much larger a shadow or an edge.
PIP_MM2 = (2.0, 14.0)


@dataclass(frozen=True, slots=True)
class RowDie:
    colour: str  # or "?"
    value: int | None  # None: '?'
    at_mm: tuple[float, float]
    reason: str = ""


@dataclass(frozen=True, slots=True)
class DiceRows:
    rows: tuple[tuple[RowDie, ...], ...]
    retake: str | None

    def to_json(self) -> dict[str, Any]:
        return {"rows": [[[d.colour, "?" if d.value is None else d.value] for d in row] for row in self.rows],
                "uncertain": [{"at_mm": [round(v, 1) for v in d.at_mm], "reason": d.reason}
                              for row in self.rows for d in row if d.reason], "retake": self.retake}


#: A die's faces: pip places on a 3 x 3 grid around the face's middle, one of each pair of quarter turns.
FACES: dict[int, tuple[frozenset[tuple[int, int]], ...]] = {
    1: (frozenset({(0, 0)}),),
    2: (frozenset({(-1, -1), (1, 1)}), frozenset({(-1, 1), (1, -1)})),
    3: (frozenset({(-1, -1), (0, 0), (1, 1)}), frozenset({(-1, 1), (0, 0), (1, -1)})),
    4: (frozenset({(-1, -1), (-1, 1), (1, -1), (1, 1)}),),
    5: (frozenset({(-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)}),),
    6: (frozenset({(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)}),
        frozenset({(-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1)})),
}
#: The outer pips lie this far (mm) from the face's middle along each edge, on a 16 mm die (a range: dice differ).
PIP_STEP_MM = (2.5, 6.5)
#: A pip may lie this far (in steps) from its place on the 3 x 3 grid.
PIP_PLACE_SLACK = 0.3


def pips_laid_out(where: npt.NDArray[np.float64], angle_deg: float) -> bool:
    """Whether pip centres (mm, any origin) lie as on a die's face: turned by the die's outline angle, on a
    3 x 3 grid around their mean (every face's pips are symmetric about its middle) in one of FACES' layouts.
    A shadow's edge or a fleck counted as a pip breaks the layout: the count is then no reading."""
    n = len(where)
    if n not in FACES:
        return False
    if n == 1:
        return True
    a = math.radians(angle_deg)
    rel = where - where.mean(axis=0)
    uv = rel @ np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    step = float(np.abs(uv).max())
    if not PIP_STEP_MM[0] <= step <= PIP_STEP_MM[1]:
        return False
    q = uv / step
    places = np.round(q)
    if float(np.abs(q - places).max()) > PIP_PLACE_SLACK:
        return False
    got = frozenset((int(u), int(v)) for u, v in places)
    return len(got) == n and any(got == face for face in FACES[n])


def read_dice_rows(image: U8) -> DiceRows:
    tv = top_view(image)  # raises DiceReadError without the sticker or its patches
    lab = linear_rgb_to_lab(np.clip(tv.rho, 0.0, 1.5))
    h, w = tv.lum.shape
    inside = tv.rect.max(axis=2) > 0
    # The sticker is no die.
    x0, y0 = tv.origin_mm
    s = 16.0
    corners = np.array([[-0.8 * s, -0.8 * s], [0.8 * s, -0.8 * s], [0.8 * s, 1.4 * s], [-0.8 * s, 1.4 * s]])
    on_top = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), np.linalg.inv(tv.to_table)).reshape(-1, 2)
    blocked = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(blocked, np.round((on_top - [x0, y0]) * PPM).astype(np.int32), 1)
    surface = np.median(lab[inside & (blocked == 0)][::7], axis=0)
    # A die is lighter than the surface, of another hue, or far darker than any shadow on it; a shadow is
    # the surface's hue, darker (so neighbouring dice's shadows do not join them into one patch).
    chroma = np.hypot(lab[..., 1] - surface[1], lab[..., 2] - surface[2])
    dl = lab[..., 0] - surface[0]
    die = (dl > LIGHTER) | (chroma > HUE_APART) | (dl < -DARKER)
    mask = (die & inside & (blocked == 0)).astype(np.uint8)
    # Pips are holes in a die's patch: fill them, then cut thin bridges (an edge's fringe between two dice).
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    mask = np.zeros_like(mask)
    cv2.drawContours(mask, contours, -1, 1, thickness=cv2.FILLED)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(1.5 * PPM), int(1.5 * PPM)))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, k)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    nx, ny = tv.nadir_mm
    kk = tv.k
    dice: list[RowDie] = []
    for j in range(1, n):
        area = stats[j, cv2.CC_STAT_AREA] / PPM**2
        if area < 0.5 * DIE_MM**2:
            continue
        cx, cy = x0 + cents[j][0] / PPM, y0 + cents[j][1] / PPM
        if area > 2.2 * DIE_MM**2:
            dice.append(RowDie("?", None, (cx, cy), f"a patch of {area / DIE_MM**2:.1f} dice at ({cx:.0f}, {cy:.0f}) mm"
                               " (dice touching, or something else)"))
            continue
        # The top face: the silhouette's middle moved away from the nadir (the sides lie towards it).
        f = 2 / (1 + 1 / (1 + kk))
        tx, ty = nx + (cx - nx) * f, ny + (cy - ny) * f
        blob = (labels == j).astype(np.uint8)
        contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        angle = cv2.minAreaRect(contours[0])[2] if contours else 0.0
        half = DIE_MM / 2 - 1.2
        box = cv2.boxPoints(((float((tx - x0) * PPM), float((ty - y0) * PPM)), (2 * half * PPM, 2 * half * PPM),
                             angle))
        face = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(face, np.round(box).astype(np.int32), 1)
        face &= blob
        if face.sum() < 0.6 * (2 * half * PPM) ** 2:
            dice.append(RowDie("?", None, (tx, ty), f"the die at ({tx:.0f}, {ty:.0f}) mm shows no whole top face"))
            continue
        lum = tv.lum
        level = float(np.median(lum[face > 0]))
        body = np.median(lab[face > 0], axis=0)
        dist = {c: float(np.sqrt(((body - np.array(ref)) ** 2 * [0.5**2, 1, 1]).sum())) for c, ref in COLOURS.items()}
        colour = min(dist, key=dist.get)  # type: ignore[arg-type]
        if dist[colour] > COLOUR_MAX:
            colour = "?"
        dark_pips = colour == "white" or (colour == "?" and float(body[0]) > 60)
        pips = ((lum < 0.45 * level) if dark_pips else (lum > 2.2 * level + 0.03)) & (face > 0)
        pn, _pl, pstats, pcents = cv2.connectedComponentsWithStats(pips.astype(np.uint8), connectivity=8)
        areas = [pstats[i, cv2.CC_STAT_AREA] / PPM**2 for i in range(1, pn)]
        spots = [a for a in areas if PIP_MM2[0] <= a <= PIP_MM2[1]]
        odd = [a for a in areas if a > PIP_MM2[1] or 0.7 <= a < PIP_MM2[0]]
        where = [pcents[i] / PPM for i in range(1, pn) if PIP_MM2[0] <= areas[i - 1] <= PIP_MM2[1]]
        value: int | None = len(spots)
        reason = ""
        if colour == "?":
            reason = f"the die at ({tx:.0f}, {ty:.0f}) mm is of no known colour"
        if odd or not 1 <= len(spots) <= 6:
            value = None
            reason = reason or f"the pips of the die at ({tx:.0f}, {ty:.0f}) mm do not look like 1-6 round pips"
        elif not pips_laid_out(np.array(where), angle):
            value = None
            reason = reason or (f"the {len(spots)} pips of the die at ({tx:.0f}, {ty:.0f}) mm are not laid out as "
                                "a die's face")
        dice.append(RowDie(colour, value, (tx, ty), reason))
    # Rows across the sticker's y axis, read left to right.
    rows: list[list[RowDie]] = []
    for d in sorted(dice, key=lambda d: d.at_mm[1]):
        if rows and abs(d.at_mm[1] - np.mean([e.at_mm[1] for e in rows[-1]])) < DIE_MM / 2:
            rows[-1].append(d)
        else:
            rows.append([d])
    out = tuple(tuple(sorted(r, key=lambda d: d.at_mm[0])) for r in rows)
    unsure = [d.reason for r in out for d in r if d.reason]
    return DiceRows(out, "; ".join(unsure) if unsure else None)


__all__ = ["DiceReadError", "DiceRows", "RowDie", "read_dice_rows", "math"]
