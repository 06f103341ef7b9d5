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

from vision.colour import LINEAR_LUT, linear_rgb_to_lab
from vision.dice import _tray_pose
from vision.markers import find_markers, grey_of
from vision.reader import _sticker_refs
from vision.stickers import BLACK_REFLECTANCE, DICE_TRAY_MARKER_ID, DICE_TRAY_MARKER_MM, PAPER_REFLECTANCE

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
    grey = grey_of(image)
    markers = find_markers(grey, "DICT_4X4_50", max_side=2400)
    if DICE_TRAY_MARKER_ID not in markers:
        raise TrayReadError(f"no tray sticker (marker id {DICE_TRAY_MARKER_ID}) in the photo")
    corners = markers[DICE_TRAY_MARKER_ID]
    s = DICE_TRAY_MARKER_MM
    plane = np.array([[-s / 2, -s / 2], [s / 2, -s / 2], [s / 2, s / 2], [-s / 2, s / 2]])
    h_img, w_img = grey.shape
    hom, (cx, cy), height = _tray_pose(corners, plane, (w_img, h_img))
    k = CUBE_MM / max(height - CUBE_MM, 1.0)
    to_table = np.array([[1 + k, 0, -cx * k], [0, 1 + k, -cy * k], [0, 0, 1]])
    top_hom = hom @ to_table
    inv = np.linalg.inv(top_hom)
    img_corners = np.array([[[0, 0]], [[w_img, 0]], [[w_img, h_img]], [[0, h_img]]], dtype=np.float64)
    box = cv2.perspectiveTransform(img_corners, inv).reshape(-1, 2)
    x0, y0 = np.maximum(box.min(axis=0), -300)
    x1, y1 = np.minimum(box.max(axis=0), 300)
    w, h = int((x1 - x0) * PPM), int((y1 - y0) * PPM)
    from_px = np.array([[1 / PPM, 0, x0], [0, 1 / PPM, y0], [0, 0, 1]])
    rect = cv2.warpPerspective(image, top_hom @ from_px, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    refs = _sticker_refs(image, {DICE_TRAY_MARKER_ID: corners}, s)
    if not refs:
        raise TrayReadError("the tray sticker's reference patches are not in the photo; print the sticker with them")
    _, white, black = refs[0]
    gain = (white - black) / (PAPER_REFLECTANCE - BLACK_REFLECTANCE)
    rho = (LINEAR_LUT[rect[..., ::-1]] - black) / np.maximum(gain, 1e-4) + BLACK_REFLECTANCE
    lab = linear_rgb_to_lab(np.clip(rho, 0.0, 1.5))
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
