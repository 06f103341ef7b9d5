"""Counting plain cubes by colour on a tray (Shogun's tower tray): ``count_tray``.

The tray carries the dice-tray sticker (``stickers.DICE_TRAY_MARKER_ID``); it gives the camera (as for the
dice reader) and, with its white and black patches, the light. The photo is rectified on the plane of the
cubes' tops (``CUBE_MM`` up), where a lone cube's top is a ``CUBE_MM`` square and its side faces show only
towards the camera's nadir. Each pixel is given the nearest cube colour in CIE Lab (or none: the lining,
shadows, the sticker); each colour's connected patches are compared with the silhouette one cube at that
place would have (its top square joined to its footprint, which lies towards the nadir). A patch the size
of a whole number of cubes counts as that many; any other patch (a stack whose lower cube shows, a cube half
hidden, a patch of another colour's shadow) makes that colour's count ``?`` with the reason.

Assumptions (not measured on a real tray): the cube colours of ``COLOURS`` (five player colours and the
green peasants; edit it for your copy), a dark, neutral tray lining, cubes of ``CUBE_MM``. A stack seen from
straight above shows only its top cube: it is counted as one. That is the reader's known blind spot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.colour import linear_rgb_to_lab
from vision.dice import DiceReadError, top_view
from vision.stickers import DICE_TRAY_MARKER_MM

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]

CUBE_MM = 10.0
PPM = 3.0
#: The cubes' colours (CIE Lab under white light): assumed for Shogun, five players and the peasants.
COLOURS: dict[str, tuple[float, float, float]] = {
    "red": (45.0, 60.0, 42.0), "yellow": (82.0, 4.0, 78.0), "blue": (38.0, 10.0, -50.0),
    "purple": (36.0, 36.0, -30.0), "white": (92.0, 0.0, 4.0), "green": (52.0, -42.0, 38.0)}
#: A pixel is a cube's colour within this (Lab, lightness at half weight) of it and nearer it than others.
COLOUR_MAX = 22.0
L_WEIGHT = 0.5
#: Patches of a colour smaller than this (in cube tops) are fringes; larger, but under 0.3, a hidden cube.
SPECK = 0.08
#: More touching cubes of one colour than this in one patch are not counted (it is more likely the tray's rim,
#: a card or a cloth of that colour).
MAX_GROUP = 5
#: A patch counts as n cubes if its area is within this of n silhouettes.
COUNT_SLACK = 0.22


class TrayReadError(ValueError):
    """No tray sticker, or its patches are not visible."""


@dataclass(frozen=True, slots=True)
class TrayCount:
    counts: dict[str, int | None]  # None: '?'
    reasons: dict[str, str] = field(default_factory=dict)
    retake: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"counts": {k: ("?" if v is None else v) for k, v in self.counts.items()},
                "uncertain": dict(self.reasons), "retake": self.retake}


def _silhouette_mm2(x: float, y: float, nadir: tuple[float, float], k: float) -> float:
    """Area (mm², on the tops' plane) of one cube's silhouette at (x, y): its top square and its footprint
    (the top scaled about the nadir by 1 / (1 + k)) joined."""
    h = CUBE_MM / 2
    top = np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]])
    nx, ny = nadir
    foot = np.column_stack([nx + (top[:, 0] - nx) / (1 + k), ny + (top[:, 1] - ny) / (1 + k)])
    hull = cv2.convexHull(np.vstack([top, foot]).astype(np.float32))
    return float(cv2.contourArea(hull))


def count_tray(image: U8, colours: dict[str, tuple[float, float, float]] | None = None) -> TrayCount:
    colours = colours or COLOURS
    try:  # the tray sticker's pose and reference patches, rectified on the plane of the cube tops
        view = top_view(image, top_mm=CUBE_MM, reach_mm=300.0, ppm=PPM, sticker="tray")
    except DiceReadError as error:
        raise TrayReadError(str(error)) from None
    rect, k, to_table = view.rect, view.k, view.to_table
    (x0, y0), (cx, cy) = view.origin_mm, view.nadir_mm
    h, w = rect.shape[:2]
    s = DICE_TRAY_MARKER_MM
    lab = linear_rgb_to_lab(np.clip(view.rho, 0.0, 1.5))
    inside = rect.max(axis=2) > 0
    # The sticker itself (white paper and black print) is no cube.
    m = 0.8 * s
    sticker = np.array([[-m, -m], [m, -m], [m, 1.4 * s], [-m, 1.4 * s]])
    sticker_top = cv2.perspectiveTransform(sticker.reshape(-1, 1, 2), np.linalg.inv(to_table)).reshape(-1, 2)
    cv2.fillConvexPoly(inside.view(np.uint8), np.round((sticker_top - [x0, y0]) * PPM).astype(np.int32), 0)
    names = list(colours)
    refs_lab = np.array([colours[n] for n in names], dtype=np.float32)
    d = np.sqrt(((lab[..., None, :] - refs_lab) ** 2 * np.array([L_WEIGHT**2, 1, 1], np.float32)).sum(axis=-1))
    nearest = np.argmin(d, axis=-1)
    ok = (np.min(d, axis=-1) < COLOUR_MAX) & inside
    counts: dict[str, int | None] = {}
    reasons: dict[str, str] = {}
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    for i, name in enumerate(names):
        mask = ((nearest == i) & ok).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
        n, _labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
        total, unsure = 0, []
        for j in range(1, n):
            area = stats[j, cv2.CC_STAT_AREA] / PPM**2
            px, py = x0 + cents[j][0] / PPM, y0 + cents[j][1] / PPM
            if area < SPECK * CUBE_MM**2:
                continue  # an edge's colour fringe, a reflection
            if area < 0.3 * CUBE_MM**2:
                # Too small for a cube, too large for a fringe: a cube under or behind another one.
                unsure.append(f"a small {name} patch at ({px:.0f}, {py:.0f}) mm (a cube under or behind another?)")
                continue
            ratio = area / _silhouette_mm2(px, py, (cx, cy), k)
            whole = max(1, round(ratio))
            bx, by, bw, bh = (stats[j, c] for c in (cv2.CC_STAT_LEFT, cv2.CC_STAT_TOP, cv2.CC_STAT_WIDTH,
                                                     cv2.CC_STAT_HEIGHT))
            if bx <= 1 or by <= 1 or bx + bw >= w - 1 or by + bh >= h - 1:
                unsure.append(f"a {name} patch at ({px:.0f}, {py:.0f}) mm runs out of the photo")
            elif whole > MAX_GROUP:
                unsure.append(f"a {name} patch at ({px:.0f}, {py:.0f}) mm as large as {ratio:.0f} cubes "
                              "(not cubes, or too many touching to count)")
            elif abs(ratio - whole) > COUNT_SLACK * math.sqrt(whole):
                unsure.append(f"a {name} patch at ({px:.0f}, {py:.0f}) mm is {ratio:.2f} cubes' size "
                              "(stacked, hidden or in another's shadow)")
            total += whole
        counts[name] = None if unsure else total
        if unsure:
            reasons[name] = "; ".join(unsure)
    retake = ("uncertain: " + ", ".join(reasons)) if reasons else None
    return TrayCount(counts, reasons, retake)
