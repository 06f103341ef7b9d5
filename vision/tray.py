"""Counting plain cubes by colour on a tray (Shogun's tower tray): ``count_tray``.

The tray carries the dice-tray sticker (``stickers.DICE_TRAY_MARKER_ID``); it gives the camera (as for the
dice reader) and, with its white and black patches, the light. The photo is rectified on the plane of the
cubes' tops (``CUBE_MM`` up), where a lone cube's top is a ``CUBE_MM`` square and its side faces show only
towards the camera's nadir. Each pixel is given the nearest cube colour in CIE Lab (or none: the lining,
shadows, the sticker); each colour's connected patches are compared with the silhouette
one cube at that place would have (its top square joined to its footprint, which lies towards the nadir). A patch
the size of a whole number of cubes counts as that many, where that is also the whole number of what this photo's
lone cubes measure (``_one_cube``: a cube's faces in shade are darker than the colour match takes, so its patch is
mostly its top); any other patch (a cube half hidden, a patch of another colour's shadow) makes that colour's count
``?`` with the reason.

Stacked cubes: a cube on another is seen from above as its top, so the patch alone would count one. These
things give a stack away, and any of them makes the count ``?``:
- a cube's patch that does not fit one cube: its smallest rectangle wider than ``CUBE_MM`` or longer than
  ``CUBE_MM`` plus the band a lone cube's sides sweep towards the nadir there (d s / H), ``FIT_MM`` of slack
  (a same-colour stack whose cubes are turned against each other, or whose sides sweep twice as far);
- slivers of a colour, too small for a cube, along another colour's cube (``BITS_MIN`` mm² within
  ``RING_MM``): the corners or sides of a lower cube of that colour (or a cube hidden behind it);
- this colour's faces in shade (its hue, darker: ``_shaded``), not joined to any cube of that colour, along
  another colour's cube (``SHADED_BITS_MIN`` mm²): the sides of a lower cube; and a one-cube patch that, joined with
  its colour's faces in shade, reaches past one cube's whole silhouette (``SHADED_FIT_MM``): a lower cube's corners
  in the upper one's shade.

A thing on the tray unlike the lining that no colour claims, as large as ``UNCLAIMED_MIN`` cube tops, is a cube the
colours miss (another light, another copy's dye): the colours its pixels lie nearest are ``?``, never counted short.

What remains unseen: a stack whose cubes are nearly aligned and whose lower cube's sides do not show (darker than
``SHADE_LIGHT`` takes, or too narrow), most of all near the nadir, where a stack's sides sweep only d s / (H - 2 s),
and a stack inside a patch of several touching cubes of its colour. Such a stack is still counted as one cube,
confidently; ``tray_patches`` gives each patch's ``sweep_mm`` (how far a stack's top would lie beyond a lone cube's)
for a caller that wants to ask for a photo from lower or at an angle.

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

from vision.colour import lab_to_linear_rgb, linear_rgb_to_lab
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
_LAB_WEIGHT = np.array([L_WEIGHT, 1.0, 1.0], dtype=np.float32)
#: A patch smaller than this (in cube tops) is no whole cube's top.
SMALL = 0.3
#: Bits of a colour within this of another colour's cube may be a cube under it.
RING_MM = 2.0
#: ... when they add up to this (mm²) around one cube.
BITS_MIN = 2.0
#: A lone cube's patch fits a rectangle of CUBE_MM (plus this) by CUBE_MM plus its sides' band (plus this).
FIT_MM = 2.5
#: A one-cube patch joined with its colour's faces in shade fits one cube's whole silhouette, turned as the patch
#: is (``_lone_rect_mm``), with this much slack on each side (development seeds 11 and 12, second renderer: 99 %
#: of lone cubes within 1.94 mm, 37 of 45 stacks beyond 2).
SHADED_FIT_MM = 2.0
#: A face in shade: its linear RGB within this angle (degrees) of its colour's, at this share of its light.
SHADE_ANGLE = 8.0
SHADE_LIGHT = (0.12, 0.9)
#: Such faces of a colour adding up to this (mm²) along another colour's cube, apart from any cube of their own,
#: are a lower cube's sides.
SHADED_BITS_MIN = 4.0
#: Patches of a colour smaller than this (in cube tops) are fringes; larger, but under 0.3, a hidden cube.
SPECK = 0.08
#: More touching cubes of one colour than this in one patch are not counted (it is more likely the tray's rim,
#: a card or a cloth of that colour).
MAX_GROUP = 5
#: A patch of a colour larger than this (in cube tops) is no group of cubes at all: the lining, where a colour
#: matches it (a dark player colour on a dark lining).
LINING_FROM = 2 * MAX_GROUP
#: A patch counts as n cubes if its area is within this of n silhouettes, and is nearer n than any other count of
#: what one cube's patch measures in the photo (``_one_cube``).
COUNT_SLACK = 0.22
#: One cube's patch is taken as the median of those between these (in silhouettes), where there are this many.
UNIT_RANGE = (0.6, 1.25)
UNIT_PATCHES = 3
#: A pixel this far (Lab, lightness at half weight) from the lining (the median of what no cube-sized patch covers)
#: is something on the tray, not the lining or a shadow on it.
THING_MIN = 15.0
#: Such pixels no colour claims, this far (mm) from any that one does, opened with a disk this wide (a cube's
#: shaded sides beside its matched top are narrower) ...
UNCLAIMED_GAP_MM = 1.5
UNCLAIMED_OPEN_MM = 5.0
#: ... and as large as this (in cube tops) are a thing unlike every cube colour: a cube the colours miss (another
#: light, a copy's other dye), whose colour's count must not be read as complete.
UNCLAIMED_MIN = 0.4
#: Besides the colour most of its pixels lie nearest, any colour nearest to this much of it (in cube tops), or
#: within this factor of the nearest colour's distance from its median colour, may be the thing's too.
UNCLAIMED_SHARE = 0.2
UNCLAIMED_NEAR = 1.5


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


def _lone_rect_mm(x: float, y: float, angle_deg: float, nadir: tuple[float, float], height: float
                  ) -> tuple[float, float]:
    """The sides (shorter first) of the smallest rectangle around one cube's silhouette on the tops' plane: its top
    (a ``CUBE_MM`` square centred on (x, y), turned by ``angle_deg``) joined to its footprint."""
    h = CUBE_MM / 2
    t = math.radians(angle_deg)
    c, s = math.cos(t), math.sin(t)
    top = np.array([[x + c * u - s * v, y + s * u + c * v] for u, v in ((-h, -h), (h, -h), (h, h), (-h, h))])
    centre = np.asarray(nadir, dtype=np.float64)
    foot = centre + (top - centre) * (height - CUBE_MM) / height
    (_c, (side0, side1), _a) = cv2.minAreaRect(np.vstack([top, foot]).astype(np.float32))
    short, long = sorted((float(side0), float(side1)))
    return short, long


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
    #: How much longer than one cube's whole silhouette there (``_lone_rect_mm``) the sides of the smallest rectangle
    #: around the patch joined with its colour's faces in shade beside it (``_shaded``) are; None for a patch under
    #: SMALL, or where that joins it to another cube-sized patch of its colour.
    shaded_excess_mm: tuple[float, float] | None = None


@dataclass(frozen=True, slots=True)
class Unclaimed:
    """A cube-sized thing on the tray that no cube colour claims (``UNCLAIMED_MIN``), as measured."""

    at_mm: tuple[float, float]
    area_mm2: float
    lab: tuple[float, float, float]  # its median colour
    #: The colours it may be, the one most of its pixels lie nearest first (``UNCLAIMED_SHARE``, ``UNCLAIMED_NEAR``).
    nearest: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TrayPatches:
    """What ``tray_patches`` measures in a tray photo."""

    patches: list[Patch]
    height: float  # the camera's height (mm) above the table
    #: The area (mm²) of each colour's bits lying along another colour's cubes, keyed (colour, other colour).
    bits: dict[tuple[str, str], float]
    unclaimed: list[Unclaimed]
    #: The same for each colour's faces in shade (``_shaded``) apart from any cube of its own.
    shaded_bits: dict[tuple[str, str], float]


def tray_patches(image: U8, colours: dict[str, tuple[float, float, float]] | None = None) -> TrayPatches:
    """The cube-coloured patches of a tray photo, and the things on it no cube colour claims."""
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
    # Patches up to LINING_FROM only: a colour that matches the lining itself (a dark player colour on a dark lining)
    # claims it as one patch far larger, and that is no cube for another colour's slivers to lie along.
    big = np.zeros((h, w), np.int16)  # each cube-sized patch's colour index + 1
    claimed = np.zeros((h, w), bool)  # the patches count_tray weighs: SPECK or larger
    for i in range(len(names)):
        raw.append(((nearest == i) & ok).astype(np.uint8))
        mask = cv2.morphologyEx(raw[-1], cv2.MORPH_OPEN, kernel)
        n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
        components.append((n, labels, stats, cents))
        sizes = stats[:, cv2.CC_STAT_AREA]
        cubes = sizes <= LINING_FROM * CUBE_MM**2 * PPM**2
        large = np.flatnonzero((sizes >= SMALL * CUBE_MM**2 * PPM**2) & cubes)
        big[np.isin(labels, large[large > 0])] = i + 1
        seen = np.flatnonzero((sizes >= SPECK * CUBE_MM**2 * PPM**2) & cubes)
        claimed |= np.isin(labels, seen[seen > 0])
    thing = _things(lab, inside, inside & ~claimed)
    unclaimed = _unclaimed(lab, nearest, thing, claimed, refs_lab, names, x0, y0)
    shaded = _shaded(view.rho, thing & ~ok, refs_lab)
    ring = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * int(RING_MM * PPM) + 1,) * 2)
    patches: list[Patch] = []
    bits: dict[tuple[str, str], float] = {}
    dark: dict[tuple[str, str], float] = {}
    for i, name in enumerate(names):
        n, labels, stats, cents = components[i]
        # Bits of this colour (unopened: a lower cube's corners and sides are slivers) beside a cube of another.
        beside = cv2.dilate(np.where((big > 0) & (big != i + 1), big, 0).astype(np.uint8), ring)
        loose = (raw[i] > 0) & (big == 0) & (beside > 0)
        bits.update(_beside_areas(loose, beside, name, names))
        # This colour's faces in shade, apart from any cube of its own (whose sides they would be), beside a cube of
        # another colour: a lower cube's sides.
        dark.update(_beside_areas(_apart(shaded == i, big == i + 1) & (beside > 0), beside, name, names))
        # Each patch joined with this colour's faces in shade beside it (its sides, a lower cube's turned corners).
        _k, joined, jstats, _jc = cv2.connectedComponentsWithStats(((labels > 0) | (shaded == i)).astype(np.uint8),
                                                                   connectivity=8)
        into = np.zeros(n, np.intp)
        inked = labels > 0
        into[labels[inked]] = joined[inked]
        # (Slivers too small for a cube, a lower cube's lit corners among them, do not count as other patches.)
        cube_sized = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= SMALL * CUBE_MM**2 * PPM**2)
        sharing = np.bincount(into[cube_sized[cube_sized > 0]], minlength=_k)
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
            (_c, (pw, ph), turned) = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
            a, b = sorted(((pw + 1) / PPM, (ph + 1) / PPM))
            d_mm = math.hypot(px - nadir[0], py - nadir[1])
            excess = None
            if sharing[into[j]] == 1 and area >= SMALL * CUBE_MM**2:
                jx0, jy0, jw, jh = (int(v) for v in jstats[into[j], :4])
                js, jx = np.nonzero(joined[jy0:jy0 + jh, jx0:jx0 + jw] == into[j])
                (_c, (jw_px, jh_px), _a) = cv2.minAreaRect(np.column_stack([jx, js]).astype(np.float32))
                shaded_rect = sorted(((jw_px + 1) / PPM, (jh_px + 1) / PPM))
                # Against one cube's whole silhouette there (its sides included), turned as the patch is.
                fit = _lone_rect_mm(px, py, float(turned), nadir, height)
                excess = (shaded_rect[0] - fit[0], shaded_rect[1] - fit[1])
            patches.append(Patch(
                name, (px, py), area, area / lone, (ns - nl) / nl, near * CUBE_MM / max(height - 2 * CUBE_MM, CUBE_MM),
                bx <= 1 or by <= 1 or bx + bw >= w - 1 or by + bh >= h - 1, (a, b), d_mm * CUBE_MM / height,
                excess))
    return TrayPatches(patches, height, bits, unclaimed, dark)


def _beside_areas(mask: npt.NDArray[np.bool_], beside: U8, name: str, names: list[str]
                  ) -> dict[tuple[str, str], float]:
    """The area (mm²) of ``mask`` beside each other colour's cubes (``beside``: that colour's index + 1, 0 none),
    keyed (``name``, other colour)."""
    return {(name, names[int(other) - 1]): float(np.count_nonzero(mask & (beside == other))) / PPM**2
            for other in np.unique(beside[mask]) if other > 0}


def _disk(mm: float) -> U8:
    """A disk ``mm`` across (to the nearest odd number of pixels)."""
    side = int(mm * PPM + 0.5) | 1
    return np.asarray(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side)), dtype=np.uint8)


def _things(lab: F64, inside: npt.NDArray[np.bool_], free: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """The pixels ``inside`` unlike the lining (``THING_MIN``), the lining's colour taken as the median of ``free``
    (what no cube-sized patch covers: most of the view is lining); none where too little is free to tell it."""
    sample = lab[::3, ::3][free[::3, ::3]]  # (every third pixel each way: the same median, a ninth of the work)
    if len(sample) < 100:
        return np.zeros(free.shape, bool)
    lining = np.median(sample, axis=0).astype(np.float32)
    off = (np.asarray(lab, dtype=np.float32) - lining) * _LAB_WEIGHT
    return np.asarray(inside & (np.einsum("...k,...k->...", off, off) > THING_MIN**2), dtype=bool)


def _unclaimed(lab: F64, nearest: npt.NDArray[np.intp], thing: npt.NDArray[np.bool_], claimed: npt.NDArray[np.bool_],
               refs_lab: npt.NDArray[np.floating[Any]], names: list[str], x0: float, y0: float) -> list[Unclaimed]:
    """Cube-sized things (``_things``) that no patch of a cube colour (``claimed``) covers (see ``UNCLAIMED_MIN``);
    ``nearest``: each pixel's nearest colour index, however far."""
    near = cv2.dilate(claimed.astype(np.uint8), _disk(2 * UNCLAIMED_GAP_MM)) > 0
    mask = cv2.morphologyEx((thing & ~near).astype(np.uint8), cv2.MORPH_OPEN, _disk(UNCLAIMED_OPEN_MM))
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out = []
    for j in range(1, n):
        area = stats[j, cv2.CC_STAT_AREA] / PPM**2
        if area < UNCLAIMED_MIN * CUBE_MM**2:
            continue
        here = labels == j
        px = lab[here]
        # Its pixels' nearest colours, however far: a thing may be two cubes touching, each missed.
        share = np.bincount(nearest[here], minlength=len(names)) / PPM**2
        order = np.argsort(-share, kind="stable")
        colour = np.median(px, axis=0)
        dist = np.sqrt((((refs_lab - colour) * _LAB_WEIGHT) ** 2).sum(axis=-1))
        maybe = tuple(names[int(k)] for k in order if k == order[0] or share[k] >= UNCLAIMED_SHARE * CUBE_MM**2
                      or dist[k] <= UNCLAIMED_NEAR * dist.min())
        out.append(Unclaimed((x0 + cents[j][0] / PPM, y0 + cents[j][1] / PPM), area,
                             (float(colour[0]), float(colour[1]), float(colour[2])), maybe))
    return out


def _shaded(rho: F64, thing: npt.NDArray[np.bool_], refs_lab: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.intp]:
    """Per pixel, the colour index whose face in shade it looks like (-1: none): a pixel of ``thing`` (on the tray,
    unlike the lining, no colour's: ``_things``) of the colour's hue (linear RGB within SHADE_ANGLE of the colour's,
    which shade only dims) at SHADE_LIGHT of its light."""
    out = np.full(thing.shape, -1, dtype=np.intp)
    albedo = lab_to_linear_rgb(refs_lab)
    unit = albedo / np.linalg.norm(albedo, axis=1, keepdims=True)
    px = np.asarray(rho, dtype=np.float64)[thing]
    norm = np.maximum(np.linalg.norm(px, axis=1), 1e-6)
    cos = (px @ unit.T) / norm[:, None]
    light = (px @ unit.T) / np.linalg.norm(albedo, axis=1)
    fits = (cos >= math.cos(math.radians(SHADE_ANGLE))) & (light >= SHADE_LIGHT[0]) & (light <= SHADE_LIGHT[1])
    best = np.where(fits.any(axis=1), np.argmax(np.where(fits, cos, -2.0), axis=1), -1)
    out[thing] = best
    return out


def _apart(mask: npt.NDArray[np.bool_], own: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """The parts of ``mask`` not joined (8-connected, through ``mask`` or ``own``) to ``own``."""
    n, labels = cv2.connectedComponents((mask | own).astype(np.uint8), connectivity=8)
    joined = np.unique(labels[own])
    return mask & ~np.isin(labels, joined[joined > 0])


def _one_cube(patches: list[Patch]) -> float:
    """What one cube's patch measures in this photo, in silhouettes (``Patch.cubes``): the median of the patches
    that look like one cube each (UNIT_PATCHES of them at least; else 1). Its faces in shade are darker than the
    colour match takes, so a lone cube's patch is mostly its top, short of the whole silhouette by how far its
    sides reach: three touching cubes can measure 2.3 silhouettes. A count must hold in both units."""
    ones = [p.cubes for p in patches if not p.cut and p.area_mm2 >= SMALL * CUBE_MM**2
            and UNIT_RANGE[0] <= p.cubes <= UNIT_RANGE[1]]
    return float(np.median(ones)) if len(ones) >= UNIT_PATCHES else 1.0


def count_tray(image: U8, colours: dict[str, tuple[float, float, float]] | None = None) -> TrayCount:
    colours = colours or COLOURS
    measured = tray_patches(image, colours)
    patches, bits = measured.patches, measured.bits
    unsure: dict[str, list[str]] = {name: [] for name in colours}
    totals = dict.fromkeys(colours, 0)
    unit = _one_cube(patches)
    lining: dict[str, str] = {}  # colours that match the lining or the rim: nothing else is known of them
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
        # With its faces in shade joined, larger than one cube's whole silhouette (a lower cube's turned corners).
        beyond = p.shaded_excess_mm is not None and max(p.shaded_excess_mm) > SHADED_FIT_MM
        if area > LINING_FROM * CUBE_MM**2:
            lining[name] = (f"{name} matches something far larger than any group of cubes (the tray's lining or "
                            f"rim: one patch as large as {area / CUBE_MM**2:.0f} cube tops): count the {name} cubes "
                            "by hand")
        elif p.cut:
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
        elif whole == 1 and beyond:
            unsure[name].append(f"a {name} patch at ({px:.0f}, {py:.0f}) mm reaches farther than one cube with its "
                                "faces in shade (a cube stacked on another, turned?)")
        elif round(ratio / unit) != whole:
            # In whole silhouettes one count, in what this photo's lone cubes measure another.
            unsure[name].append(f"a {name} patch at ({px:.0f}, {py:.0f}) mm is {ratio:.2f} cubes' size, "
                                f"{ratio / unit:.2f} by this photo's lone cubes (touching cubes, one hidden?)")
        totals[name] += whole
    for (name, other), area in bits.items():
        if area >= BITS_MIN:
            unsure[name].append(f"{name} shows at the edge of a {other} cube ({area:.0f} mm²): a {name} cube under it?")
    for (name, other), area in measured.shaded_bits.items():
        if area >= SHADED_BITS_MIN:
            unsure[name].append(f"{name} faces in shade at the edge of a {other} cube ({area:.0f} mm²): a {name} cube "
                                "under it?")
    for thing in measured.unclaimed:
        (px, py), names = thing.at_mm, thing.nearest
        for name in names:
            unsure[name].append(f"a thing at ({px:.0f}, {py:.0f}) mm, {thing.area_mm2:.0f} mm², unlike every cube "
                                f"colour (nearest {' or '.join(names)}): a {name} cube in another light?")
    unsure.update({name: [why] for name, why in lining.items()})
    counts: dict[str, int | None] = {n: (None if unsure[n] else totals[n]) for n in colours}
    reasons = {n: "; ".join(u) for n, u in unsure.items() if u}
    retake = ("uncertain: " + ", ".join(reasons)) if reasons else None
    if any("under it?" in r or "stacked" in r for r in reasons.values()):
        retake = f"{retake}; unstack the cubes, or photograph the tray from lower or at an angle so stacks show " \
                 "their sides"
    if measured.unclaimed:
        retake = f"{retake}; light the tray evenly with white light, and if the cubes' colours are unlike this " \
                 "copy's, set them in the game's colour data"
    return TrayCount(counts, reasons, retake)
