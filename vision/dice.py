"""Reading Fuji Koro dice from a photo of the dice tray: the ``fujikoro read-dice`` detector.

What the reader sees on a die (and what ``vision.synth`` draws): the die's body colour gives its kind
(wood: light brown, metal: grey, tooth: white, magic: green); the top face carries one dark round mark
per hit, and the broken icon is a larger dark ring with a crack through it. So a face reads as "2"
(two marks) or "0b" (only the ring), the same strings as ``companion.dice`` and the data pack.

The tray carries one sticker from the sticker sheet (marker id 10, 16 mm): it gives the scale, the
camera's position over the tray and the paper white for the light's colour. Dice stand 16 mm tall, so
the photo is rectified on the plane of the dice tops, where every flat die's top is a 16 mm square. A
die whose largest visible face is not such a square is cocked (leaning on another die or the wall):
it is reported, not read. Assumes a dark tray lining (felt), as dice trays have.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.datapack import DataPack, Face, default_pack
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
COCKED_EXTRA_MM2 = 18.0


class DiceReadError(ValueError):
    """No tray sticker in the photo: the dice cannot be measured."""


@dataclass(frozen=True, slots=True)
class DieRead:
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


def read_dice(image: U8, pack: DataPack | None = None) -> DiceReading:
    pack = pack or default_pack()
    grey = grey_of(image)
    markers = find_markers(grey, "DICT_4X4_50", max_side=2400)
    if DICE_TRAY_MARKER_ID not in markers:
        raise DiceReadError(f"no dice-tray sticker (marker id {DICE_TRAY_MARKER_ID}) in the photo; print it with "
                            "`fujikoro vision stickers`")
    corners = markers[DICE_TRAY_MARKER_ID]
    s = DICE_TRAY_MARKER_MM
    plane = np.array([[-s / 2, -s / 2], [s / 2, -s / 2], [s / 2, s / 2], [-s / 2, s / 2]])
    hom, _ = fit_homography(corners, plane)
    h_img, w_img = grey.shape
    # One small marker shows too little perspective to measure the focal length: use the phone prior.
    pose = estimate_pose(hom, (w_img, h_img), measure_focal=False)
    k = DIE_MM / max(pose.height_mm - DIE_MM, 1.0)
    cx, cy = pose.centre_mm
    # The plane of the dice tops, seen through the table-plane homography: a scaling about the nadir.
    to_table = np.array([[1 + k, 0, -cx * k], [0, 1 + k, -cy * k], [0, 0, 1]])
    top_hom = hom @ to_table
    inv = np.linalg.inv(top_hom)
    img_corners = np.array([[[0, 0]], [[w_img, 0]], [[w_img, h_img]], [[0, h_img]]], dtype=np.float64)
    box = cv2.perspectiveTransform(img_corners, inv).reshape(-1, 2)
    x0, y0 = np.maximum(box.min(axis=0), -400)
    x1, y1 = np.minimum(box.max(axis=0), 400)
    w, h = int((x1 - x0) * PPM), int((y1 - y0) * PPM)
    from_px = np.array([[1 / PPM, 0, x0], [0, 1 / PPM, y0], [0, 0, 1]])
    rect = cv2.warpPerspective(image, top_hom @ from_px, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)

    refs = _sticker_refs(image, {DICE_TRAY_MARKER_ID: corners}, s)
    if not refs:
        raise DiceReadError("the dice-tray sticker's white patch is not in the photo")
    _, white, black = refs[0]
    gain = (white - black) / (PAPER_REFLECTANCE - BLACK_REFLECTANCE)
    rho = (LINEAR_LUT[rect[..., ::-1]] - black) / np.maximum(gain, 1e-4) + BLACK_REFLECTANCE
    lum = rho @ np.array([0.2126, 0.7152, 0.0722], dtype=np.float32)

    mask = (lum > TRAY_MAX_Y).astype(np.uint8)
    # The sticker itself is white paper: keep it out (in top-plane pixels, with a margin).
    sx0, sy0, sx1, sy1 = (v * s for v in STICKER_BOX)
    sticker = np.array([[sx0 - 3, sy0 - 3], [sx1 + 3, sy0 - 3], [sx1 + 3, sy1 + 3], [sx0 - 3, sy1 + 3]])
    sticker_top = cv2.perspectiveTransform(sticker.reshape(-1, 1, 2), np.linalg.inv(to_table)).reshape(-1, 2)
    cv2.fillConvexPoly(mask, np.round((sticker_top - [x0, y0]) * PPM).astype(np.int32), 0)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    dice = []
    found: list[tuple[tuple[str, str, float, bool, str], tuple[float, float], list[float], float, float, float]] = []
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
        silhouette = np.zeros_like(mask)
        cv2.drawContours(silhouette, [contour], -1, 1, -1)
        centre = contour.reshape(-1, 2).mean(axis=0) / PPM + [x0, y0]
        # How far this die's sides show beside its top (parallax), so a side merged with the top is allowed.
        parallax = float(np.hypot(centre[0] - cx, centre[1] - cy)) * k
        dims: list[float] = []
        read = _read_one(rho, lum, silhouette, pack, dims)
        (_, _), (_, _), angle = cv2.minAreaRect(contour)
        phi = math.atan2(cy - centre[1], cx - centre[0]) - math.radians(angle)
        found.append((read, (float(centre[0]), float(centre[1])), dims, area / PPM**2, parallax, phi))
    # The photo's own scale for a die's top (the pose from one small sticker is a few per cent off):
    # the median over the dice, most of which lie flat.
    sizes = [d for _, _, dims, _, _, _ in found for d in dims[:2]]
    ref = float(np.median(sizes)) if len(found) >= 3 else DIE_MM
    ref = float(np.clip(ref, 0.9 * DIE_MM, 1.1 * DIE_MM))
    for read, at, dims, area_mm2, parallax, phi in found:
        cocked = read[3]
        if len(dims) == 3 and read[1] != "?":
            side_a, side_b, long_axis = dims
            # A flat die's largest face is its top square, perhaps with a side of the same shade beside
            # it, and sides only ever show towards the camera (along the parallax); a cocked die's faces
            # are foreshortened, or stretched across, and it covers more tray than a flat one.
            nadir = math.atan2(cy - at[1], cx - at[0])
            along = parallax * abs(math.cos(long_axis - nadir))
            flat_area = ref**2 + ref * parallax * (abs(math.cos(phi)) + abs(math.sin(phi)))
            cocked = not (0.955 * ref < side_a < 1.07 * ref and side_b < 1.06 * ref + along) or (
                area_mm2 - flat_area > COCKED_EXTRA_MM2 * (ref / DIE_MM) ** 2)
        if cocked:
            read = (read[0], "?", read[2], True, "cocked")
        dice.append(DieRead(read[0], read[1], read[2], at, read[3] or cocked, read[4],
                            (*dims, area_mm2, parallax, ref)))
    dice.sort(key=lambda d: (round(d.at_mm[1] / 20), d.at_mm[0]))
    reasons = []
    leaning = [d for d in dice if d.cocked]
    if leaning:
        reasons.append(f"{len(leaning)} cocked {'die' if len(leaning) == 1 else 'dice'}: re-roll or settle them")
    unread = [d for d in dice if not d.cocked and not d.is_read]
    if unread:
        reasons.append(f"{len(unread)} {'die' if len(unread) == 1 else 'dice'} not read with confidence")
    if not dice:
        reasons.append("no dice found in the tray")
    return DiceReading(tuple(dice), "; ".join(reasons) if reasons else None)


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


def _read_one(rho: F32, lum: F32, silhouette: U8, pack: DataPack, dims: list[float]
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
    dims.append(long_axis)

    # Marks: dark blobs inside the top face square (shrunk a little off its edges).
    square = np.zeros_like(face)
    box = cv2.boxPoints(((fx, fy), (fw - 2 * PPM, fh - 2 * PPM), angle))
    cv2.fillConvexPoly(square, np.round(box).astype(np.int32), 1)
    dark = ((lum < 0.5 * level) & (square > 0)).astype(np.uint8)
    n, _, mstats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
    pips, broken, odd = 0, 0, 0
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
        else:
            odd += 1
    face_str = f"{pips}b" if broken else str(pips)
    if odd or broken > 1:
        return kind, face_str, 0.0, False, "marks not recognised"
    known: Mapping[str, Any] = pack.dice
    if kind in known and Face(pips, broken=bool(broken)) not in known[kind].faces:
        return kind, face_str, 0.0, False, f"a {kind} die has no face {face_str}"
    return kind, face_str, kind_conf, False, ""
