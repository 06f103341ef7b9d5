"""Counting plain cubes by colour on a tray (Shogun's tower tray): ``count_tray``.

The tray carries the dice-tray sticker (``stickers.DICE_TRAY_MARKER_ID``); it gives the camera (as for the
dice reader) and, with its white and black patches, the light. The photo is rectified on the plane of the
cubes' tops (``CUBE_MM`` up), where a lone cube's top is a ``CUBE_MM`` square and its side faces show only
towards the camera's nadir. Each pixel is given the nearest cube colour in CIE Lab (or none: the lining,
shadows, the sticker); each colour's connected patches are compared with the silhouette
one cube at that place would have (its top square joined to its footprint, which lies towards the nadir). A patch
the size of a whole number of cubes counts as that many; any other patch (a cube half hidden, a patch of another
colour's shadow) makes that colour's count ``?`` with the reason.

Stacked cubes: a cube on another is seen from above as its top, so the patch alone would count one. Two things
of the camera's geometry give a stack away, and either makes the count ``?``:
- a cube's patch that does not fit one cube: its smallest rectangle wider than ``CUBE_MM`` or longer than
  ``CUBE_MM`` plus the band a lone cube's sides sweep towards the nadir there (d s / H), ``FIT_MM`` of slack
  (a same-colour stack whose cubes are turned against each other, or whose sides sweep twice as far);
- slivers of a colour, too small for a cube, along another colour's cube (``BITS_MIN`` mm² within
  ``RING_MM``): the corners or sides of a lower cube of that colour (or a cube hidden behind it).
What remains unseen: a stack whose cubes are aligned and whose sides the colour match misses (side faces in
shade are darker than ``COLOUR_MAX`` allows), most of all near the nadir, where a stack's sides sweep only
d s / (H - 2 s). Such a stack is still counted as one cube, confidently; ``tray_patches`` gives each patch's
``sweep_mm`` (how far a stack's top would lie beyond a lone cube's) for a caller that wants to ask for a
photo from lower or at an angle.

Assumptions (not measured on a real tray): the cube colours of ``COLOURS`` (five player colours and the
green peasants; edit it for your copy), a dark, neutral tray lining, cubes of ``CUBE_MM``.
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
#: A patch smaller than this (in cube tops) is no whole cube's top.
SMALL = 0.3
#: Bits of a colour within this of another colour's cube may be a cube under it.
RING_MM = 2.0
#: ... when they add up to this (mm²) around one cube.
BITS_MIN = 2.0
#: A lone cube's patch fits a rectangle of CUBE_MM (plus this) by CUBE_MM plus its sides' band (plus this).
FIT_MM = 2.5
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


def _square(x: float, y: float, nadir: tuple[float, float], scale: float) -> F64:
    """A cube's face (a ``CUBE_MM`` square, axis-aligned, centred over (x, y)) at the height whose image on the
    tops' plane is scaled by ``scale`` about the nadir."""
    h = CUBE_MM / 2
    face = np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]])
    centre = np.asarray(nadir, dtype=np.float64)
    out: F64 = centre + (face - centre) * scale
    return out


def _hull_mm2(*faces: F64) -> float:
    return float(cv2.contourArea(cv2.convexHull(np.vstack(faces).astype(np.float32))))


def silhouettes_mm2(x: float, y: float, nadir: tuple[float, float], height: float) -> tuple[float, float]:
    """Areas (mm², on the tops' plane) of the silhouettes of one cube and of two stacked cubes at (x, y), the
    camera ``height`` mm above the table: the top face (at ``CUBE_MM``, or ``2 CUBE_MM`` up, which the
    rectification enlarges about the nadir by (H - s) / (H - 2 s)) joined to the footprint (scaled by
    (H - s) / H)."""
    s = CUBE_MM
    foot = _square(x, y, nadir, (height - s) / height)
    lone = _hull_mm2(_square(x, y, nadir, 1.0), foot)
    stack = _hull_mm2(_square(x, y, nadir, (height - s) / max(height - 2 * s, s)), foot)
    return lone, stack


@dataclass(frozen=True, slots=True)
class Patch:
    """One connected patch of a cube colour on the tops' plane, as measured."""

    colour: str
    at_mm: tuple[float, float]
    area_mm2: float
    cubes: float  # the area over one cube's silhouette there
    stack_extra: float  # what a second cube stacked on one of them would add (in the same unit), at the nearest
    sweep_mm: float  # how much farther a stack's top lies from the nadir than a lone cube's (nearest cube)
    cut: bool  # runs out of the photo
    rect_mm: tuple[float, float]  # the sides of the smallest rectangle around it, shorter first
    band_mm: float  # how far a lone cube's sides reach towards the nadir there (d s / H)


def tray_patches(image: U8, colours: dict[str, tuple[float, float, float]] | None = None
                 ) -> tuple[list[Patch], float, dict[tuple[str, str], float]]:
    """The cube-coloured patches of a tray photo, the camera's height (mm) above the table, and the area (mm²)
    of each colour's bits lying along another colour's cubes (colour, other colour)."""
    colours = colours or COLOURS
    try:  # the tray sticker's pose and reference patches, rectified on the plane of the cube tops
        view = top_view(image, top_mm=CUBE_MM, reach_mm=300.0, ppm=PPM, sticker="tray")
    except DiceReadError as error:
        raise TrayReadError(str(error)) from None
    rect, k, to_table = view.rect, view.k, view.to_table
    (x0, y0), nadir = view.origin_mm, view.nadir_mm
    height = CUBE_MM + CUBE_MM / max(k, 1e-6)
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
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    components, raw = [], []
    big = np.zeros((h, w), np.int16)  # each cube-sized patch's colour index + 1
    for i in range(len(names)):
        raw.append(((nearest == i) & ok).astype(np.uint8))
        mask = cv2.morphologyEx(raw[-1], cv2.MORPH_OPEN, kernel)
        n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
        components.append((n, labels, stats, cents))
        large = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= SMALL * CUBE_MM**2 * PPM**2)
        big[np.isin(labels, large[large > 0])] = i + 1
    ring = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * int(RING_MM * PPM) + 1,) * 2)
    patches: list[Patch] = []
    bits: dict[tuple[str, str], float] = {}
    for i, name in enumerate(names):
        n, labels, stats, cents = components[i]
        # Bits of this colour (unopened: a lower cube's corners and sides are slivers) beside a cube of another.
        near = cv2.dilate(np.where((big > 0) & (big != i + 1), big, 0).astype(np.uint8), ring)
        loose = (raw[i] > 0) & (big == 0) & (near > 0)
        for other in np.unique(near[loose]):
            bits[(name, names[int(other) - 1])] = float(np.count_nonzero(loose & (near == other))) / PPM**2
        for j in range(1, n):
            area = stats[j, cv2.CC_STAT_AREA] / PPM**2
            px, py = x0 + cents[j][0] / PPM, y0 + cents[j][1] / PPM
            bx, by, bw, bh = (int(stats[j, c]) for c in (cv2.CC_STAT_LEFT, cv2.CC_STAT_TOP, cv2.CC_STAT_WIDTH,
                                                          cv2.CC_STAT_HEIGHT))
            lone, _ = silhouettes_mm2(px, py, nadir, height)
            # The cube of the patch nearest the nadir: its centre at least half a cube beyond the patch's
            # nearest point (a stack there adds the least).
            ys, xs = np.nonzero(labels[by:by + bh, bx:bx + bw] == j)
            dx, dy = x0 + (xs + bx + 0.5) / PPM - nadir[0], y0 + (ys + by + 0.5) / PPM - nadir[1]
            r = np.hypot(dx, dy)
            q = int(np.argmin(r))
            near = float(r[q]) + CUBE_MM / 2
            ux, uy = (dx[q] / r[q], dy[q] / r[q]) if r[q] > 1e-6 else (1.0, 0.0)
            nl, ns = silhouettes_mm2(nadir[0] + near * ux, nadir[1] + near * uy, nadir, height)
            (_c, (rw, rh), _a) = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
            a, b = sorted(((rw + 1) / PPM, (rh + 1) / PPM))
            d_mm = math.hypot(px - nadir[0], py - nadir[1])
            patches.append(Patch(
                name, (px, py), area, area / lone, (ns - nl) / nl, near * CUBE_MM / max(height - 2 * CUBE_MM, CUBE_MM),
                bx <= 1 or by <= 1 or bx + bw >= w - 1 or by + bh >= h - 1, (a, b), d_mm * CUBE_MM / height))
    return patches, height, bits


def count_tray(image: U8, colours: dict[str, tuple[float, float, float]] | None = None) -> TrayCount:
    colours = colours or COLOURS
    patches, _height, bits = tray_patches(image, colours)
    unsure: dict[str, list[str]] = {name: [] for name in colours}
    totals = dict.fromkeys(colours, 0)
    for p in patches:
        name, (px, py), area, ratio = p.colour, p.at_mm, p.area_mm2, p.cubes
        if area < SPECK * CUBE_MM**2:
            continue  # an edge's colour fringe, a reflection
        if area < SMALL * CUBE_MM**2:
            # Too small for a cube, too large for a fringe: a cube under or behind another one.
            unsure[name].append(f"a small {name} patch at ({px:.0f}, {py:.0f}) mm (a cube under or behind another?)")
            continue
        whole = max(1, round(ratio))
        a, b = p.rect_mm
        if p.cut:
            unsure[name].append(f"a {name} patch at ({px:.0f}, {py:.0f}) mm runs out of the photo")
        elif whole > MAX_GROUP:
            unsure[name].append(f"a {name} patch at ({px:.0f}, {py:.0f}) mm as large as {ratio:.0f} cubes "
                                "(not cubes, or too many touching to count)")
        elif abs(ratio - whole) > COUNT_SLACK * math.sqrt(whole):
            unsure[name].append(f"a {name} patch at ({px:.0f}, {py:.0f}) mm is {ratio:.2f} cubes' size "
                                "(stacked, hidden or in another's shadow)")
        elif whole == 1 and (a > CUBE_MM + FIT_MM or b > CUBE_MM + p.band_mm + FIT_MM):
            unsure[name].append(f"a {name} patch at ({px:.0f}, {py:.0f}) mm is {a:.0f} x {b:.0f} mm, more than "
                                "one cube (a cube stacked on another, turned?)")
        totals[name] += whole
    for (name, other), area in bits.items():
        if area >= BITS_MIN:
            unsure[name].append(f"{name} shows at the edge of a {other} cube ({area:.0f} mm²): a {name} cube under it?")
    counts: dict[str, int | None] = {n: (None if unsure[n] else totals[n]) for n in colours}
    reasons = {n: "; ".join(u) for n, u in unsure.items() if u}
    retake = ("uncertain: " + ", ".join(reasons)) if reasons else None
    if any("under it?" in r or "stacked" in r for r in reasons.values()):
        retake = f"{retake}; unstack the cubes, or photograph the tray from lower or at an angle so stacks show " \
                 "their sides"
    return TrayCount(counts, reasons, retake)
