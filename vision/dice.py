"""Reading Fuji Koro dice from a photo of the dice tray: the ``fujikoro read-dice`` detector.

What the reader sees on a die (and what ``vision.synth`` draws): the die's body colour gives its kind
(wood: light brown, metal: grey, tooth: white, magic: green); the top face carries one dark round mark
per hit, and the broken icon is a larger dark ring with a crack through it. So a face reads as "2"
(two marks) or "0b" (only the ring), the same strings as ``companion.dice`` and the data pack.

The tray carries one sticker from the sticker sheet (marker id 10, 16 mm): it gives the scale, the
camera's position over the tray and the paper white for the light's colour. Dice stand 16 mm tall, so
the photo is rectified on the plane of the dice tops, where every flat die's top is a 16 mm square and
its sides show only towards the camera's nadir, as far as the parallax of 16 mm reaches. A die is read
only if a flat die explains everything seen of it: its outline is that square swept towards the nadir,
the square is one evenly lit face, nothing with the die's hue lies beyond it (faces in the dark),
the lining does not show where its sides must be, and its round pips look round. Anything else is a
cocked die (leaning on another die or the wall), reported with a retake reason, never read.
Assumes a dark tray lining (felt), as dice trays have.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.dice import Die, Face
from vision.colour import LINEAR_LUT, linear_rgb_to_lab
from vision.markers import estimate_pose, find_markers, fit_homography, grey_of
from vision.reader import _sticker_refs
from vision.stickers import BLACK_REFLECTANCE, DICE_TRAY_MARKER_ID, DICE_TRAY_MARKER_MM, PAPER_REFLECTANCE, STICKER_BOX

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]

DIE_MM = 16.0
PPM = 4.0
#: Die body colours (CIE Lab under white light) by kind.
DIE_LAB: dict[str, tuple[float, float, float]] = {
    "wood": (62.0, 13.0, 36.0), "metal": (55.0, 0.0, -2.0), "tooth": (92.0, 0.0, 6.0), "magic": (55.0, -42.0, 30.0),
}
TRAY_MAX_Y = 0.08  # a dark lining reflects less than this; every die more
CONFIDENCE_THRESHOLD = 0.5
#: A flat die explains its whole outline; more than this much (a 0.75 mm strip along one side) it does not.
FLAT_MAX_UNEXPLAINED_MM2 = 12.0
#: How far (mm) a flat die's fitted outline may be off (blur, the rectification's local error).
FIT_TOL_MM = 0.5
#: A top face is one evenly lit face: brightness within this ratio of its median (marks apart).
ODD_SHADE = (0.9, 1.1)
#: Printed marks are small dark blobs (a pip 5.8 mm^2, the broken ring less than 23 mm^2); a dark face is large.
MARK_MAX_MM2 = 30.0
#: How far beyond a flat die's outline to look for its dark faces (mm), and the least hue difference
#: (rg chromaticity) between the die and the lining to tell them apart by.
DARK_BAND_MM = 4.0
DARK_MIN_HUE_GAP = 0.03
#: The part of the predicted parallax a flat die's sides surely cover: the camera height from one small
#: sticker assumes a phone's focal length (0.85 x the long side), and phones' are 0.7-1.0 x: at least 0.85
#: of it, and as far as the photo's flat dice's lit sides reach.
SURE_SIDES = 0.85
SIDES_SCALES = (0.85, 0.9, 0.95, 1.0)
NONE_BARE = tuple(0.0 for _ in SIDES_SCALES)
#: A flat die's outline never needs more than this part of the predicted parallax (the focal length's
#: uncertainty, and some margin).
MAX_REACH = 1.3
#: The lining seen over more than a 0.5 mm strip along a side where a flat die's sides must show.
SIDES_MAX_TRAY_MM2 = 8.0
#: A round pip seen with axes in a smaller ratio lies on a face tilted more than 32 degrees (cos 32 = 0.85);
#: a flat die's pips measure 0.91 or more.
PIP_MIN_ROUNDNESS = 0.85
#: The sticker's paper is cut out of the picture with this margin (mm): the blur of its edge.
STICKER_MARGIN_MM = 1.5


class DiceReadError(ValueError):
    """No tray sticker in the photo: the dice cannot be measured."""


@dataclass(frozen=True, slots=True)
class DieRead:
    """One die: kind and face (``?`` when cocked), its top's centre (mm, tray sticker's frame), and the
    measures the decision rests on (top sides, area, parallax, top size, then the flat fit's miss, excess,
    odd, dark and bare mm^2, pip roundness, sides' reach and area looked at, the sides' sure scale)."""

    kind: str
    face: str
    confidence: float
    at_mm: tuple[float, float]
    cocked: bool = False
    reason: str = ""
    measures: tuple[float, ...] = ()

    @property
    def is_read(self) -> bool:
        return not self.cocked and self.confidence >= CONFIDENCE_THRESHOLD and not self.reason


@dataclass(frozen=True, slots=True)
class DiceReading:
    dice: tuple[DieRead, ...]
    retake: str | None

    def to_json(self) -> dict[str, Any]:
        """Compatible with ``companion.dice.DiceRoll.from_json`` (dice, source, seed), plus what was not read."""
        return {
            # Plain faces as numbers, broken ones as "Nb": what DiceRoll.from_json parses.
            "dice": [[d.kind, int(d.face) if d.face.isdigit() else d.face] for d in self.dice if d.is_read],
            "source": "tray",
            "seed": None,
            "cocked": [{"kind": d.kind, "at_mm": [round(v, 1) for v in d.at_mm]} for d in self.dice if d.cocked],
            "uncertain": [{"kind": d.kind, "face": d.face, "at_mm": [round(v, 1) for v in d.at_mm],
                           "reason": d.reason or "low confidence"}
                          for d in self.dice if not d.cocked and not d.is_read],
            "confidence": [round(d.confidence, 3) for d in self.dice if d.is_read],
            "retake": self.retake,
        }


def _lab_distance(a: npt.ArrayLike, b: npt.ArrayLike, wl: float = 0.5) -> float:
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    return float(math.sqrt((wl * d[0]) ** 2 + d[1] ** 2 + d[2] ** 2))


@dataclass(frozen=True, slots=True)
class TopView:
    """The photo rectified on the plane of the dice tops (``PPM`` px per mm, origin at ``origin_mm``)."""

    rect: U8
    rho: F32
    lum: F32
    origin_mm: tuple[float, float]
    nadir_mm: tuple[float, float]
    k: float
    to_table: F64


def top_view(image: U8, *, top_mm: float = DIE_MM, reach_mm: float = 400.0, ppm: float = PPM,
             sticker: str = "dice-tray") -> TopView:
    """Finds the tray sticker and rectifies the photo on the plane ``top_mm`` above the table (the dice tops;
    the tray counter's cube tops), ``ppm`` px per mm, at most ``reach_mm`` from the sticker, in reflectance."""
    grey = grey_of(image)
    markers = find_markers(grey, "DICT_4X4_50", max_side=2400)
    if DICE_TRAY_MARKER_ID not in markers:
        raise DiceReadError(f"no {sticker} sticker (marker id {DICE_TRAY_MARKER_ID}) in the photo; print it with "
                            "`fujikoro vision stickers`")
    corners = markers[DICE_TRAY_MARKER_ID]
    s = DICE_TRAY_MARKER_MM
    plane = np.array([[-s / 2, -s / 2], [s / 2, -s / 2], [s / 2, s / 2], [-s / 2, s / 2]])
    h_img, w_img = grey.shape
    hom, (cx, cy), height = _tray_pose(corners, plane, (w_img, h_img))
    k = top_mm / max(height - top_mm, 1.0)
    # The plane of the dice tops, seen through the table-plane homography: a scaling about the nadir.
    to_table = np.array([[1 + k, 0, -cx * k], [0, 1 + k, -cy * k], [0, 0, 1]])
    top_hom = hom @ to_table
    inv = np.linalg.inv(top_hom)
    img_corners = np.array([[[0, 0]], [[w_img, 0]], [[w_img, h_img]], [[0, h_img]]], dtype=np.float64)
    box = cv2.perspectiveTransform(img_corners, inv).reshape(-1, 2)
    x0, y0 = np.maximum(box.min(axis=0), -reach_mm)
    x1, y1 = np.minimum(box.max(axis=0), reach_mm)
    w, h = int((x1 - x0) * ppm), int((y1 - y0) * ppm)
    from_px = np.array([[1 / ppm, 0, x0], [0, 1 / ppm, y0], [0, 0, 1]])
    rect = cv2.warpPerspective(image, top_hom @ from_px, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)

    refs = _sticker_refs(image, {DICE_TRAY_MARKER_ID: corners}, s)
    if not refs:
        raise DiceReadError(f"the {sticker} sticker's reference patches are not in the photo; print the sticker "
                            "with them")
    _, white, black = refs[0]
    gain = (white - black) / (PAPER_REFLECTANCE - BLACK_REFLECTANCE)
    rho = (LINEAR_LUT[rect[..., ::-1]] - black) / np.maximum(gain, 1e-4) + BLACK_REFLECTANCE
    lum = rho @ np.array([0.2126, 0.7152, 0.0722], dtype=np.float32)
    return TopView(rect, rho, lum, (float(x0), float(y0)), (float(cx), float(cy)), float(k), to_table)


def _tray_pose(corners: F64, plane: F64, size: tuple[int, int]) -> tuple[F64, tuple[float, float], float]:
    """Table-plane homography, camera nadir (mm) and height (mm) from the one small tray sticker.

    Four corners of a 16 mm square fix a homography exactly, noise included, and its perspective part,
    extrapolated across a 200 mm tray, can be far off (the known two-fold ambiguity of a small planar
    target's tilt). So the camera is solved as a camera (a phone's focal length, 0.85 x the long side, the
    principal point at the centre), of the two poses the square allows the one that looks more straight
    down (a tray is photographed from above), and the homography is that camera's."""
    w, h = size
    f = 0.85 * max(w, h)
    cam = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]], dtype=np.float64)
    # IPPE_SQUARE wants the square with y up (corner 0 at (-s/2, +s/2)); ours has y down: mirror y.
    obj = np.column_stack([plane[:, 0], -plane[:, 1], np.zeros(4)]).astype(np.float64)
    flip = np.diag([1.0, -1.0, 1.0])
    try:
        _, rvecs, tvecs, _ = cv2.solvePnPGeneric(obj, corners.astype(np.float64), cam, None,
                                                 flags=cv2.SOLVEPNP_IPPE_SQUARE)
    except cv2.error:
        rvecs, tvecs = (), ()
    best: tuple[float, F64, tuple[float, float], float] | None = None
    for rvec, tvec in zip(rvecs, tvecs, strict=True):
        rot, _ = cv2.Rodrigues(rvec)
        t = np.asarray(tvec, dtype=np.float64).reshape(3)
        tilt = math.acos(min(1.0, abs(float(rot[2, 2]))))
        centre = -rot.T @ t
        hom = cam @ np.column_stack([rot[:, 0], rot[:, 1], t]) @ flip
        if best is None or tilt < best[0]:
            best = (tilt, hom / hom[2, 2], (float(centre[0]), -float(centre[1])), abs(float(centre[2])))
    if best is None:
        hom, _ = fit_homography(corners, plane)
        pose = estimate_pose(hom, size, measure_focal=False)
        return hom, pose.centre_mm, pose.height_mm
    return best[1], best[2], best[3]


def read_dice(image: U8, kinds: Mapping[str, Die]) -> DiceReading:
    """The dice in a tray photo; ``kinds`` is the game's dice by kind (a face a kind lacks is refused)."""
    view = top_view(image)
    rho, lum, k, to_table = view.rho, view.lum, view.k, view.to_table
    x0, y0 = view.origin_mm
    cx, cy = view.nadir_mm
    h, w = lum.shape
    s = DICE_TRAY_MARKER_MM

    mask = (lum > TRAY_MAX_Y).astype(np.uint8)
    # The sticker itself is white paper: keep it out (in top-plane pixels, with a margin).
    sx0, sy0, sx1, sy1 = (v * s for v in STICKER_BOX)
    m = STICKER_MARGIN_MM
    sticker = np.array([[sx0 - m, sy0 - m], [sx1 + m, sy0 - m], [sx1 + m, sy1 + m], [sx0 - m, sy1 + m]])
    sticker_top = cv2.perspectiveTransform(sticker.reshape(-1, 1, 2), np.linalg.inv(to_table)).reshape(-1, 2)
    sticker_mask = np.zeros_like(mask)
    cv2.fillConvexPoly(sticker_mask, np.round((sticker_top - [x0, y0]) * PPM).astype(np.int32), 1)
    mask[sticker_mask > 0] = 0
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    dice = []
    found: list[tuple[tuple[str, str, float, bool, str], tuple[float, float], list[float], float, float,
                      npt.NDArray[np.int32]]] = []
    die_area = (DIE_MM * PPM) ** 2
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < 0.45 * die_area or area > 4 * die_area:
            continue
        bx, by, bw_, bh_ = cv2.boundingRect(contour)
        if bx <= 1 or by <= 1 or bx + bw_ >= w - 1 or by + bh_ >= h - 1:
            continue  # cut off by the edge of the photo
        (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
        if max(rw, rh) > 2.2 * DIE_MM * PPM or area < 0.6 * rw * rh:
            continue  # not die-shaped: the tray's rim, a hand, a card
        # Work in a window around the die (the rectified photo is large).
        wx0, wy0 = max(0, bx - 8), max(0, by - 8)
        wx1, wy1 = min(w, bx + bw_ + 8), min(h, by + bh_ + 8)
        silhouette = np.zeros((wy1 - wy0, wx1 - wx0), np.uint8)
        cv2.drawContours(silhouette, [contour], -1, 1, -1, offset=(-wx0, -wy0))
        centre = contour.reshape(-1, 2).mean(axis=0) / PPM + [x0, y0]
        # How far this die's sides show beside its top (parallax).
        parallax = float(np.hypot(centre[0] - cx, centre[1] - cy)) * k
        dims: list[float] = []
        read = _read_one(rho[wy0:wy1, wx0:wx1], lum[wy0:wy1, wx0:wx1], silhouette, kinds, dims)
        if len(dims) > 4:
            dims[3] += wx0  # the top face's centre, back in the rectified photo's pixels
            dims[4] += wy0
        found.append((read, (float(centre[0]), float(centre[1])), dims, area / PPM**2, parallax, contour))
    # The photo's own scale for a die's top (the pose from one small sticker is a few per cent off): the
    # median of the dice's top faces' shorter sides (a side merged with the top only lengthens the other).
    sizes = [dims[0] for _, _, dims, _, _, _ in found if dims]
    ref = float(np.median(sizes)) if len(sizes) >= 3 else DIE_MM
    ref = float(np.clip(ref, 0.9 * DIE_MM, 1.1 * DIE_MM))
    near_sticker = cv2.dilate(sticker_mask, np.ones((9, 9), np.uint8))
    fits: list[tuple[FlatFit, float] | None] = []
    for _, at, dims, _, _, contour in found:
        if len(dims) != 8:
            fits.append(None)
            continue
        # Where this die's bottom appears: its top shifted towards the camera's nadir (parallax).
        v = (np.array(at) - [cx, cy]) * k / (1 + k) * PPM
        fit = _fit_flat(contour, rho, lum, near_sticker, dims[6], (dims[3], dims[4]), dims[5], ref * PPM, v)
        fits.append((fit, _sides_reach(contour, fit, ref * PPM, v)))
    # How far the sides of a flat die surely reach in this photo: what a phone's focal length guarantees,
    # or farther if the lit sides of its flat-looking dice reach farther.
    reaches = [r for f in fits if f is not None for r in [f[1]] if 0.5 <= r <= MAX_REACH]
    sure = min(max([SURE_SIDES, *reaches]), 1.0)
    at_scale = int(np.argmin([abs(sc - sure) for sc in SIDES_SCALES]))
    scale = (ref / DIE_MM) ** 2
    limit = FLAT_MAX_UNEXPLAINED_MM2 * scale
    for (read, at, dims, area_mm2, parallax, contour), fitted in zip(found, fits, strict=True):
        measures: tuple[float, ...] = ()
        cocked, reason = False, read[4]
        if fitted is not None:
            fit, reach = fitted
            side_a, side_b, roundness = dims[0], dims[1], dims[7]
            bare = fit.bare[at_scale]
            # Evidence that this is no flat die whatever its outline: tray where its sides must be, an
            # outline that needs a far lower camera than the sticker shows, or a round pip seen as an ellipse.
            tilted = bare > SIDES_MAX_TRAY_MM2 * scale or reach > MAX_REACH or roundness < PIP_MIN_ROUNDNESS
            touches = bool(np.any(near_sticker[contour[:, 0, 1], contour[:, 0, 0]]))
            if touches and fit.unexplained > limit and fit.excess + fit.dark <= limit and not tilted:
                # The sticker's cut-out hides parts of a die (its outline, its top): only what lies
                # beyond a flat die's outline still tells it is cocked.
                reason = "partly hidden by the tray sticker: move the die or the sticker"
            elif fit.unexplained > limit or tilted:
                # Not a flat die: tray or die outside a flat die's outline, a foreshortened or tilted top, a
                # second face inside the top square. A cocked die (or dice piled up) is reported, not read.
                cocked = True
            measures = (side_a, side_b, area_mm2, parallax, ref, fit.miss, fit.excess, fit.odd, fit.dark,
                        bare, roundness, reach, fit.sides[at_scale], sure)
        elif not reason:
            reason = "no face visible"
        dice.append(DieRead(read[0], "?" if cocked else read[1], read[2], at, cocked,
                            "cocked" if cocked else reason, measures))
    dice.sort(key=lambda d: (round(d.at_mm[1] / 20), d.at_mm[0]))
    reasons = []
    leaning = [d for d in dice if d.cocked]
    if leaning:
        reasons.append(f"{len(leaning)} cocked {'die' if len(leaning) == 1 else 'dice'}: re-roll or settle them")
    unread = [d for d in dice if not d.cocked and not d.is_read]
    if unread:
        why = "; ".join(sorted({d.reason or "low confidence" for d in unread}))
        reasons.append(f"{len(unread)} {'die' if len(unread) == 1 else 'dice'} not read with confidence ({why})")
    if not dice:
        reasons.append("no dice found in the tray")
    return DiceReading(tuple(dice), "; ".join(reasons) if reasons else None)


@dataclass(frozen=True, slots=True)
class FlatFit:
    """The best flat die for one outline, and what it leaves unexplained (mm^2)."""

    x_px: float
    y_px: float
    angle_deg: float
    miss: float  # top square not covered by the outline
    excess: float  # outline beyond the flat die's top and sides
    odd: float  # inside the top square, but not lit like the top face (another face)
    dark: float  # beyond the outline, but the die's hue, brighter than the lit lining: a face in the dark
    bare: tuple[float, ...]  # lining seen where the flat die's sides must be, per parallax scale (SIDES_SCALES)
    sides: tuple[float, ...]  # the sides' area looked at, per scale

    @property
    def unexplained(self) -> float:
        return self.miss + self.excess + self.odd + self.dark


def _square(centre: tuple[float, float], angle_deg: float, side: float) -> F64:
    a = math.radians(angle_deg)
    c, s = math.cos(a) * side / 2, math.sin(a) * side / 2
    return np.array([[centre[0] + dx * c - dy * s, centre[1] + dx * s + dy * c]
                     for dx, dy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def _fit_flat(contour: npt.NDArray[np.int32], rho: F32, lum: F32, blocked: U8, level: float, start: tuple[float, float],
              start_angle: float, side_px: float, v_px: F64) -> FlatFit:
    """Fits a flat die to a silhouette: its top one evenly lit ``side_px`` square, its sides the square swept
    by the parallax ``-v_px`` (towards the camera's nadir): the top square (px, degrees) that leaves least
    unexplained, and what it leaves (see ``FlatFit``)."""
    bx, by, bw, bh = cv2.boundingRect(contour)
    pad = int(side_px)
    off = np.array([bx - pad, by - pad], dtype=np.float64)
    sil = np.zeros((bh + 2 * pad, bw + 2 * pad), np.uint8)
    cv2.drawContours(sil, [contour - off.astype(np.int32)], -1, 1, -1)
    sil_b = sil > 0
    y0, x0 = int(off[1]), int(off[0])
    patch = np.zeros(sil.shape, np.float32)
    ys, xs = max(0, y0), max(0, x0)
    sub = lum[ys:y0 + sil.shape[0], xs:x0 + sil.shape[1]]
    patch[ys - y0:ys - y0 + sub.shape[0], xs - x0:xs - x0 + sub.shape[1]] = sub
    # Printed marks are small dark blobs; a dark face is large. Only the marks (and their blurred rims) are exempt.
    inked = ((patch < 0.5 * level) & sil_b).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(inked, connectivity=8)
    small = np.zeros(n, bool)
    small[1:] = stats[1:, cv2.CC_STAT_AREA] < MARK_MAX_MM2 * PPM**2
    marks = cv2.dilate(small[labels].astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
    ratio = cv2.medianBlur(patch, 5) / max(level, 1e-4)  # a face's shade, not the photo's noise
    odd_map = sil_b & ~marks & ((ratio < ODD_SHADE[0]) | (ratio > ODD_SHADE[1]))
    tol = FIT_TOL_MM * PPM
    work = np.zeros_like(sil)

    def cost(p: tuple[float, float, float]) -> tuple[float, float, float]:
        x, y, ang = p
        inner = _square((x - off[0], y - off[1]), ang, side_px - 2 * tol)
        work[:] = 0
        cv2.fillConvexPoly(work, np.round(inner * 4).astype(np.int32), 1, shift=2)
        inside = work > 0
        miss = float(np.count_nonzero(inside & ~sil_b))
        odd = float(np.count_nonzero(inside & odd_map))
        outer = _square((x - off[0], y - off[1]), ang, side_px + 2 * tol)
        hull = cv2.convexHull(np.vstack([outer, outer - v_px]).astype(np.float32))
        work[:] = 0
        cv2.fillConvexPoly(work, np.round(hull.reshape(-1, 2) * 4).astype(np.int32), 1, shift=2)
        excess = float(np.count_nonzero(sil_b & (work == 0)))
        return miss, excess, odd

    best = (start[0], start[1], start_angle % 90)
    best_c = sum(cost(best))
    for da in (15.0, 30.0, 45.0, 60.0, 75.0):
        cand = (start[0], start[1], (start_angle + da) % 90)
        c = sum(cost(cand))
        if c < best_c:
            best, best_c = cand, c
    for step_px, step_deg in ((4.0, 6.0), (2.0, 3.0), (1.0, 1.5), (0.5, 0.75)):
        improved = True
        while improved:
            improved = False
            for d in ((step_px, 0, 0), (-step_px, 0, 0), (0, step_px, 0), (0, -step_px, 0),
                      (0, 0, step_deg), (0, 0, -step_deg)):
                cand = (best[0] + d[0], best[1] + d[1], best[2] + d[2])
                c = sum(cost(cand))
                if c < best_c:
                    best, best_c, improved = cand, c, True
    miss, excess, odd = cost(best)
    dark, bare, looked = _dark_faces(rho, lum, blocked, sil, off, best, side_px, v_px)
    return FlatFit(best[0], best[1], best[2], miss / PPM**2, excess / PPM**2, odd / PPM**2, dark / PPM**2,
                   tuple(b / PPM**2 for b in bare), tuple(b / PPM**2 for b in looked))


def _sides_reach(contour: npt.NDArray[np.int32], fit: FlatFit, side_px: float, v_px: F64) -> float:
    """How much of the predicted parallax the outline needs to be explained by a flat die's top and sides:
    on a die whose sides are lit into the outline, the camera height's own error (1.0 = as predicted)."""
    bx, by, bw, bh = cv2.boundingRect(contour)
    pad = int(side_px)
    off = np.array([bx - pad, by - pad], dtype=np.float64)
    sil = np.zeros((bh + 2 * pad, bw + 2 * pad), np.uint8)
    cv2.drawContours(sil, [contour], -1, 1, -1, offset=(-int(off[0]), -int(off[1])))
    outer = _square((fit.x_px - off[0], fit.y_px - off[1]), fit.angle_deg, side_px + 2 * FIT_TOL_MM * PPM)
    work = np.zeros_like(sil)
    total = int(np.count_nonzero(sil))
    for scale in np.arange(0.0, 1.61, 0.05):
        work[:] = 0
        hull = cv2.convexHull(np.vstack([outer, outer - scale * v_px]).astype(np.float32)).reshape(-1, 2)
        cv2.fillConvexPoly(work, np.round(hull * 4).astype(np.int32), 1, shift=2)
        if total - int(np.count_nonzero(work & sil)) <= 2 * PPM**2:
            return float(scale)
    return 2.0


def _dark_faces(rho: F32, lum: F32, blocked: U8, sil: U8, off: F64, fit: tuple[float, float, float], side_px: float,
                v_px: F64) -> tuple[float, tuple[float, ...], tuple[float, ...]]:
    """Pixels beyond a flat die's outline that have the die's colour, not the lining's: faces turned away
    from the light can be as dark as the lit lining, but they keep the die's hue. A flat die has only tray
    (and shadow, which keeps the lining's hue) around its outline."""
    h, w = sil.shape
    y0, x0 = int(off[1]), int(off[0])
    if y0 < 0 or x0 < 0 or y0 + h > lum.shape[0] or x0 + w > lum.shape[1]:
        return 0.0, NONE_BARE, NONE_BARE
    patch = rho[y0:y0 + h, x0:x0 + w]
    plum = lum[y0:y0 + h, x0:x0 + w]
    chroma = cv2.blur(patch / np.maximum(patch.sum(axis=2, keepdims=True), 1e-4), (5, 5))
    centre = (fit[0] - off[0], fit[1] - off[1])
    tol = FIT_TOL_MM * PPM
    outer = _square(centre, fit[2], side_px + 2 * tol)
    hull = np.zeros_like(sil)
    cv2.fillConvexPoly(hull, np.round(cv2.convexHull(np.vstack([outer, outer - v_px]).astype(np.float32))
                                      .reshape(-1, 2) * 4).astype(np.int32), 1, shift=2)
    band = np.zeros_like(sil)
    cv2.fillConvexPoly(band, np.round(_square(centre, fit[2], side_px + 2 * DARK_BAND_MM * PPM) * 4)
                       .astype(np.int32), 1, shift=2)
    band_b = (band > 0) & (hull == 0) & (sil == 0) & (plum < TRAY_MAX_Y) & (blocked[y0:y0 + h, x0:x0 + w] == 0)
    top = _square(centre, fit[2], side_px - 2 * PPM)
    inner = np.zeros_like(sil)
    cv2.fillConvexPoly(inner, np.round(top * 4).astype(np.int32), 1, shift=2)
    ring = (cv2.dilate(sil, np.ones((21, 21), np.uint8)) == 0) & (plum < TRAY_MAX_Y)
    if not inner.any() or np.count_nonzero(ring) < 50:
        return 0.0, NONE_BARE, NONE_BARE
    die_c = np.median(chroma[inner > 0], axis=0)
    tray_c = np.median(chroma[ring], axis=0)
    smooth = cv2.medianBlur(np.ascontiguousarray(plum), 5)  # shades, not the photo's noise
    lit_tray = float(np.percentile(smooth[ring], 90))
    if float(np.linalg.norm(die_c - tray_c)) < DARK_MIN_HUE_GAP:
        return 0.0, NONE_BARE, NONE_BARE  # the die's hue is the lining's: nothing to tell them apart by
    to_die = np.linalg.norm(chroma - die_c, axis=2)
    to_tray = np.linalg.norm(chroma - tray_c, axis=2)
    # A face turned away from the light still gets the room's light on a far brighter material than the
    # lining: brighter than the lit lining. A shadow on the lining is darker than the lit lining.
    like = (band_b & (to_die < 0.5 * to_tray) & (smooth > lit_tray)).astype(np.uint8)
    like = cv2.morphologyEx(like, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # Where a flat die's sides must be (between its top and its bottom, seen towards the nadir) nothing
    # behind them can show: dark or not, those pixels are die. The lining seen there means no flat die.
    # The parallax's scale is only as good as the camera height: measured at several scales, the caller
    # picks the one the photo's dice show.
    top_out = np.zeros_like(sil)
    cv2.fillConvexPoly(top_out, np.round(_square(centre, fit[2], side_px + 4 * tol) * 4).astype(np.int32), 1, shift=2)
    # The lining: its hue, and no brighter than where it is lit (a die's face in the dark is brighter).
    lining = (to_tray < 0.5 * to_die) & (smooth <= lit_tray) & (top_out == 0) & (sil == 0)
    bare, looked = [], []
    sides = np.zeros_like(sil)
    within = _square(centre, fit[2], side_px - 2 * tol)  # inside the die's outline, whatever the blur
    for scale in SIDES_SCALES:
        sides[:] = 0
        cv2.fillConvexPoly(sides, np.round(cv2.convexHull(np.vstack([within, within - scale * v_px])
                                                          .astype(np.float32)).reshape(-1, 2) * 4).astype(np.int32),
                           1, shift=2)
        inside = cv2.erode(sides, np.ones((3, 3), np.uint8)) > 0
        tray = cv2.morphologyEx((inside & lining).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        bare.append(float(np.count_nonzero(tray)))
        looked.append(float(np.count_nonzero(inside & (top_out == 0))))
    return float(np.count_nonzero(like)), tuple(bare), tuple(looked)


def _largest_face(lum: F32, silhouette: U8) -> tuple[U8, float]:
    """The largest evenly lit face inside a die's silhouette (dark marks excluded), and its median level."""
    vals = lum[silhouette > 0]
    bright = float(np.percentile(vals, 90))
    body = (silhouette > 0) & (lum > 0.55 * bright)
    levels = np.log(np.maximum(lum[body], 1e-4))
    # Faces differ in shading; split the body's levels where they separate best (a 1-D two-means).
    lo, hi = float(levels.min()), float(levels.max())
    best_mask = body
    if hi - lo > 0.12:
        cut = (lo + hi) / 2
        for _ in range(10):
            a, b = levels[levels < cut], levels[levels >= cut]
            if len(a) == 0 or len(b) == 0:
                break
            cut = (a.mean() + b.mean()) / 2
        a_sel = body & (np.log(np.maximum(lum, 1e-4)) < cut)
        b_sel = body & (np.log(np.maximum(lum, 1e-4)) >= cut)
        if abs(float(np.mean(levels[levels >= cut])) - float(np.mean(levels[levels < cut]))) > 0.15:
            best_mask = a_sel if a_sel.sum() > b_sel.sum() else b_sel
    face = best_mask.astype(np.uint8)
    face = cv2.morphologyEx(face, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return face, float(np.median(lum[face > 0])) if face.any() else bright


def _roundness(lum: F32, blob: npt.NDArray[np.bool_], level: float, box: tuple[int, int, int, int]) -> float:
    """A dark mark's minor / major axis, from its darkness-weighted second moments (sub-pixel)."""
    x, y, w, h = box
    m = 3
    y0, x0 = max(0, y - m), max(0, x - m)
    near = cv2.dilate(blob[y0:y + h + m, x0:x + w + m].astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    weight = np.clip(level - lum[y0:y + h + m, x0:x + w + m], 0.0, None) * near
    total = float(weight.sum())
    if total <= 0:
        return 1.0
    yy, xx = np.mgrid[0:weight.shape[0], 0:weight.shape[1]]
    mx, my = float((weight * xx).sum()) / total, float((weight * yy).sum()) / total
    cxx = float((weight * (xx - mx) ** 2).sum()) / total
    cyy = float((weight * (yy - my) ** 2).sum()) / total
    cxy = float((weight * (xx - mx) * (yy - my)).sum()) / total
    half, diff = (cxx + cyy) / 2, math.hypot((cxx - cyy) / 2, cxy)
    return math.sqrt(max(half - diff, 0.0) / max(half + diff, 1e-9))


def _read_one(rho: F32, lum: F32, silhouette: U8, kinds: Mapping[str, Die], dims: list[float]
              ) -> tuple[str, str, float, bool, str]:
    """Kind and face of one die; appends its largest face's two side lengths (mm) to ``dims``."""
    face, level = _largest_face(lum, silhouette)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(face, connectivity=8)
    if count < 2:
        return "?", "?", 0.0, False, "no face visible"
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    face = (labels == biggest).astype(np.uint8)
    pts = np.argwhere(face > 0)[:, ::-1].astype(np.float32)
    (fx, fy), (fw, fh), angle = cv2.minAreaRect(pts)
    side_a, side_b = sorted((fw / PPM, fh / PPM))
    long_axis = math.radians(angle) + (0.0 if fw >= fh else math.pi / 2)
    dims.extend([side_a, side_b])

    colour = np.median(rho[face > 0], axis=0)
    lab = linear_rgb_to_lab(colour)
    ranked = sorted((_lab_distance(lab, ref), kind) for kind, ref in DIE_LAB.items())
    (d1, kind), (d2, _) = ranked[0], ranked[1]
    kind_conf = min(1.0, (d2 - d1) / (d2 + d1 + 1e-6) / 0.3) * (1.0 if d1 < 20 else 0.0)
    dims.extend([long_axis, float(fx), float(fy), float(angle), level])

    # Marks: dark blobs inside the top face square (shrunk a little off its edges).
    square = np.zeros_like(face)
    box = cv2.boxPoints(((fx, fy), (fw - 2 * PPM, fh - 2 * PPM), angle))
    cv2.fillConvexPoly(square, np.round(box).astype(np.int32), 1)
    dark = ((lum < 0.5 * level) & (square > 0)).astype(np.uint8)
    n, mlabels, mstats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
    pips, broken, odd = 0, 0, 0
    roundness: list[float] = []
    inner = cv2.erode(square, np.ones((3, 3), np.uint8))
    for i in range(1, n):
        x, y, bw_, bh_ = mstats[i, :4]
        if not inner[y:y + bh_, x:x + bw_].all() and (
                not inner[y, x] or not inner[y + bh_ - 1, x + bw_ - 1] or not inner[y, x + bw_ - 1]
                or not inner[y + bh_ - 1, x]):
            continue  # touches the face's edge: a side face or the die's outline, not a printed mark
        bw, bh = mstats[i, cv2.CC_STAT_WIDTH] / PPM, mstats[i, cv2.CC_STAT_HEIGHT] / PPM
        area = mstats[i, cv2.CC_STAT_AREA] / PPM**2
        size = max(bw, bh)
        fill = area / max(bw * bh, 1e-6)
        if area < 1.0:
            continue
        if size >= 0.26 * DIE_MM or (size >= 0.21 * DIE_MM and fill < 0.5):
            broken += 1
        elif 0.11 * DIE_MM <= size <= 0.24 * DIE_MM:
            pips += 1
            roundness.append(_roundness(lum, mlabels == i, level, (x, y, bw_, bh_)))
        else:
            odd += 1
    # A pip is a round mark: seen on a tilted face it is an ellipse (axes in the ratio of the tilt's cosine).
    dims.append(min(roundness) if roundness else 1.0)
    face_str = f"{pips}b" if broken else str(pips)
    if odd or broken > 1:
        return kind, face_str, 0.0, False, "marks not recognised"
    known: Mapping[str, Die] = kinds
    if kind in known and Face(pips, broken=bool(broken)) not in known[kind].faces:
        return kind, face_str, 0.0, False, f"a {kind} die has no face {face_str}"
    return kind, face_str, kind_conf, False, ""
