"""Reading the gear grids off a photo of a player board: the ``fujikoro read-board`` detector.

Pipeline (a pure function of the pixels and the template):

1. Find the template's stickers (ArUco) and fit the board-plane homography; without stickers, fall back
   to the board's outline. Recover the camera's position over the board from the homography.
2. Rectify only the grid area (board millimetres -> pixels) straight from the full-resolution photo.
3. References from the same photo: the board's empty print in a band around each grid (the "empty-cell
   colour near each cell", robust to cubes leaning into it) and the sticker patches (paper white and
   black) for the board's own colour. Every cell is normalised by the light measured next to it, so a
   warm lamp, mixed light or a cast shadow changes the reference and the cell alike.
4. Per cell, two regions that a cube would fill for this camera position: the cube's footprint (always
   hidden by a cube, whatever the angle) and its top face (shifted away from the camera, never hidden
   by a neighbour). Occupancy: both regions must agree with the empty print (empty) or both differ
   from it (occupied), in CIE Lab with lightness down-weighted (shadows change lightness, not hue).
   Colour: the top face's normalised Lab against the cube references.
5. A confidence per cell; below the threshold the cell is ``?``.
6. A second look at the cells the rules left ``?`` for a reason of shape (not a hidden board; glare only on
   calibrated grids):
   the cell network (``vision.cellnet``) sees a patch of the rectified board around the cell and decides
   it only when very sure. It also cross-checks the cells the rules decided with little margin; where it
   finds their label unlikely, the cell is ``?``. On calibrated grids a second network, trained on other
   photos, must confirm every answer the first gives (``_confirmed``), and is asked about the cells still
   ``?`` that the first is nearly sure of; where both give the same label, the cell takes it (``_paired``).
   What stays ``?`` gives the photo a retake reason
   (markers missing, too blurry, glare on cells, or which cells were uncertain).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision import cellnet
from vision.cellnet import CellNet, default_check, default_net
from vision.colour import LINEAR_LUT, LINEAR_LUT3, lab_of, lab_to_linear_rgb, linear_rgb_to_lab
from vision.jpeg import decode_half
from vision.markers import Pose, estimate_pose, find_markers, fit_homography, grey_of
from vision.stickers import BLACK_REFLECTANCE, PAPER_REFLECTANCE, patch_box_mm
from vision.template import GEAR_GRIDS, Grid, Template

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
#: A cell: its grid's name, row and column.
CellKey = tuple[str, int, int]
U8 = npt.NDArray[np.uint8]

#: What cubes look like (CIE Lab of the material under white light): natural wood, grey metal, ivory teeth.
CUBE_LAB: dict[str, tuple[float, float, float]] = {"W": (66.0, 11.0, 34.0), "M": (57.0, 0.0, -2.0),
                                                   "T": (92.0, 0.0, 7.0)}
#: The board's printed colour around the grids, when the photo gives no better measure.
DEFAULT_BOARD_LAB = (84.0, 1.5, 17.0)
CONFIDENCE_THRESHOLD = 0.5
#: Lightness counts for less than hue when comparing with the empty print: shadows change lightness.
OCCUPANCY_L_WEIGHT = 0.35
MATERIAL_L_WEIGHT = 0.6
EMPTY_MAX = 4.5
OCCUPIED_MIN = 6.5
#: An empty cell may be in a shadow down to this fraction of the print's light, never brighter than this.
SHADOW_MIN = 0.3
BRIGHTER_MAX = 1.08
MATERIAL_MAX = 13.0
#: Below this hue difference a "cube" is only a brightness difference: trust no reference that far.
HUE_MIN = 3.0
SHADOW_HUE = 9.5
#: Blur limit: the sticker edges' Gaussian width on the board, in mm.
BLUR_LIMIT_MM = 0.45
GLARE_LEVEL = 250
#: Edge width (px on a 1000-px copy) beyond which a photo with no findable board is called blurry.
BLURRY_PHOTO_PX = 1.3
GLARE_FRACTION = 0.04
#: A patch darker than this beside a cube, with a hue shift below SHADOW_HUE_MAX, may be its shadow.
SHADOW_DARK = 0.8
SHADOW_HUE_MAX = 18.0
SHADOW_HUE_MATCH = 7.0
#: Where a cube's top would be, lit print: this close to the print's colour and at least this bright.
TOP_PRINT_MAX = 2.7
TOP_PRINT_LIT = 0.85
#: A cube's top face is flat: one half brighter than the other by this much means a shadow edge.
UNEVEN_MIN = 0.15
#: How far (in clipped-spot radii) a highlight's halo still brightens the board noticeably.
GLARE_HALO = 2.0
#: A clipped patch is a tooth's top, not glare, if it is a square (filling this much of its bounding box,
#: a disc fills 0.79) of this many cube sides, within this many mm of where a cube's top would be, and
#: fewer than HALO_FRACTION of the pieces HALO_GAP mm outside it are brighter than HALO_LEVEL x the print.
WHITE_TOP_FILL = 0.88
WHITE_TOP_SIDE = (0.75, 1.25)
WHITE_TOP_OFFSET = 2.0
HALO_GAP = 2.5
HALO_LEVEL = 1.3
HALO_FRACTION = 0.25
#: A clipped patch thinner than this (mm), and at least EDGE_SPOT_LONG times as long as it is wide, is a cube's
#: edge catching the light, not a highlight on the print.
EDGE_SPOT_MM = 1.0
EDGE_SPOT_LONG = 3.0


class PhotoError(ValueError):
    """The photo cannot be read at all: not an image, or no board in it, or the wrong template."""


@dataclass(frozen=True, slots=True)
class Cell:
    grid: str
    row: int
    col: int
    label: str
    confidence: float
    reason: str = ""
    features: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class BoardReading:
    template: str
    board: str
    grids: Mapping[str, tuple[str, ...]]
    cells: tuple[Cell, ...]
    retake: str | None
    markers: tuple[int, ...]
    blur_mm: float
    method: str
    notes: tuple[str, ...] = ()

    def confidence(self, grid: str) -> float:
        return min((c.confidence for c in self.cells if c.grid == grid), default=1.0)

    @property
    def uncertain(self) -> tuple[Cell, ...]:
        return tuple(c for c in self.cells if c.label == "?")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"board": self.board}
        for name in GEAR_GRIDS:
            out[name] = list(self.grids[name])
        out["confidence"] = {name: round(self.confidence(name), 3) for name in GEAR_GRIDS}
        out["uncertain"] = [{"grid": c.grid, "row": c.row, "col": c.col, "reason": c.reason} for c in self.uncertain]
        out["retake"] = self.retake
        out["template"] = self.template
        out["markers"] = list(self.markers)
        out["method"] = self.method
        out["blur_mm"] = round(self.blur_mm, 3)
        out["notes"] = list(self.notes)
        return out


#: Photos whose long side reaches this are decoded at half size (libjpeg scales while decoding, ~4x
#: faster): the grids still get 4-6 px per mm, more than the reader samples at.
REDUCE_FROM_PX = 3000


def load_photo(path: str | Path, *, full_resolution: bool = False) -> U8:
    """Decodes a photo (BGR); a 12 MP photo at half size unless ``full_resolution``."""
    p = Path(path)
    if not p.is_file():
        raise PhotoError(f"photo {p} does not exist")
    raw = p.read_bytes()
    data = np.frombuffer(raw, dtype=np.uint8)
    image = None
    if data.size and not full_resolution:
        # (vision.jpeg: the same pixels sooner where it can; OpenCV's reading otherwise.)
        image = decode_half(raw)
        if image is None:
            image = cv2.imdecode(data, cv2.IMREAD_REDUCED_COLOR_2)
        if image is not None and max(image.shape[:2]) * 2 < REDUCE_FROM_PX:
            image = None
    if image is None and data.size:
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None:
        raise PhotoError(f"{p} is not an image OpenCV can read (JPEG, PNG, ...)")
    return np.asarray(image, dtype=np.uint8)


# --------------------------------------------------------------------------------------------
# Locating the board.


@dataclass(frozen=True, slots=True)
class Located:
    hom: F64  # image px from board mm
    pose: Pose
    markers: Mapping[int, F64]  # id -> image corners, for the template's markers that were found
    method: str
    note: str | None


def locate(image: U8, template: Template, grey: U8 | None = None) -> Located:
    grey = grey_of(image) if grey is None else grey
    found = find_markers(grey, template.markers.dictionary)
    ours = {i: c for i, c in found.items() if i in template.markers.ids}
    h, w = grey.shape[:2]
    if len(ours) >= 2:
        img_pts, plane_pts = [], []
        for i, corners in ours.items():
            img_pts.append(corners)
            plane_pts.append(np.array(template.markers.corners_mm(template.markers.ids.index(i))))
        hom, rms = fit_homography(np.vstack(img_pts), np.vstack(plane_pts))
        if rms > 2.0:
            raise PhotoError(f"the stickers in the photo do not match template {template.name!r} "
                             f"(they are {rms:.1f} mm off its layout); use the template they were placed for")
        missing = [i for i in template.markers.ids if i not in ours]
        note = f"marker not found: sticker id {', '.join(map(str, missing))} is not visible" if missing else None
        if len(ours) == 2:
            note = note or "only two stickers found"
        return Located(hom, estimate_pose(hom, (w, h)), ours, "markers", note)
    if found and not ours:
        raise PhotoError(f"the photo shows stickers {sorted(found)} but template {template.name!r} uses "
                         f"{list(template.markers.ids)}; wrong template")
    outline = _locate_outline(grey, template)
    if outline is None:
        if _image_blur_px(grey) > BLURRY_PHOTO_PX:
            raise PhotoError("the photo is too blurry to find the board or its stickers; hold still and retake it")
        if ours:
            raise PhotoError("only one sticker is visible and the board's outline is not; retake the photo "
                             "with all four corners in view")
        raise PhotoError("no board in the photo: no stickers and no board outline found")
    return Located(outline, estimate_pose(outline, (w, h)), ours, "outline",
                   "marker not found: read from the board's outline")


def _image_blur_px(grey: U8) -> float:
    """Edge width (Gaussian sigma, in pixels of a 1000-pixel-wide copy) of the sharpest edges in the photo."""
    scale = 1000 / max(grey.shape)
    small = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA).astype(np.float32)
    mag = np.hypot(cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3) / 8, cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3) / 8)
    lo, hi = _percentile(small, [5, 95])
    peak = float(_percentile(mag, 99.8))
    return float(hi - lo) / (peak * math.sqrt(2 * math.pi)) if peak > 0 else 99.0


def _locate_outline(grey: U8, template: Template) -> F64 | None:
    """The board as the largest convex quadrilateral whose rectified grid lines show up where expected."""
    h, w = grey.shape[:2]
    scale = min(1.0, 1000 / max(h, w))
    small = cv2.resize(grey, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (5, 5), 0)
    edges = cv2.Canny(small, 30, 90)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    best: tuple[float, F64] | None = None
    area_min = 0.05 * small.shape[0] * small.shape[1]
    bw, bh = template.board_mm
    for contour in sorted(contours, key=cv2.contourArea, reverse=True)[:12]:
        if cv2.contourArea(contour) < area_min:
            break
        hull = cv2.convexHull(contour)
        approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
        if len(approx) != 4:
            continue
        quad = approx.reshape(4, 2).astype(np.float64) / scale
        # Order clockwise from the corner nearest the image's top-left, then try the rotations.
        centre = quad.mean(axis=0)
        angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
        quad = quad[np.argsort(angles)]
        plane = np.array([[0, 0], [bw, 0], [bw, bh], [0, bh]], dtype=np.float64)
        for shift in range(4):
            cand = np.roll(quad, shift, axis=0)
            hom, _ = cv2.findHomography(plane, cand, 0)
            if hom is None:
                continue
            hom = hom / hom[2, 2]
            score = _grid_line_score(grey, hom, template)
            if best is None or score > best[0]:
                best = (score, hom)
    if best is None or best[0] < 0.08:
        return None
    return best[1]


def _grid_line_score(grey: U8, hom: F64, template: Template) -> float:
    """How much darker the template's grid lines are than the cell interiors, under this homography."""
    line_pts, cell_pts = [], []
    for g in template.gear_grids:
        for r in range(g.rows + 1):
            for t in np.linspace(0.1, 0.9, 6):
                line_pts.append((g.origin_mm[0] + t * g.size_mm[0], g.origin_mm[1] + r * g.cell_mm))
        for c in range(g.cols + 1):
            for t in np.linspace(0.1, 0.9, 4):
                line_pts.append((g.origin_mm[0] + c * g.cell_mm, g.origin_mm[1] + t * g.size_mm[1]))
        for r in range(g.rows):
            for c in range(g.cols):
                x, y = g.cell_centre(r, c)
                cell_pts += [(x - g.cell_mm * 0.38, y), (x, y - g.cell_mm * 0.38)]

    def sample(pts: list[tuple[float, float]]) -> F64:
        arr = cv2.perspectiveTransform(np.array(pts, dtype=np.float64).reshape(-1, 1, 2), hom).reshape(-1, 2)
        xi = np.clip(arr[:, 0].astype(int), 0, grey.shape[1] - 1)
        yi = np.clip(arr[:, 1].astype(int), 0, grey.shape[0] - 1)
        return np.asarray(grey[yi, xi], dtype=np.float64)

    lines, cells = sample(line_pts), sample(cell_pts)
    ref = float(_median(cells)) + 1.0
    return float((_median(cells) - _median(lines)) / ref)


# --------------------------------------------------------------------------------------------
# Rectified sampling.


@dataclass(frozen=True, slots=True)
class GlareSpot:
    """A clipped patch of the rectified board, in board mm."""

    x: float
    y: float
    #: The radius of a disc of the same area.
    radius: float
    #: The smallest rectangle around it, at any angle: (shorter side, longer side).
    sides: tuple[float, float]
    #: How much of that rectangle it fills (a square about 1, a disc about 0.8, at any angle).
    fill: float
    #: Twice the largest distance from a clipped pixel to the patch's edge: a line's width, a disc's diameter.
    thickness: float


class _Rectified:
    """The grid area warped to ``ppm`` pixels per mm (8-bit BGR); pixel (0, 0) is mm (x0, y0).

    Only the sampled regions are ever converted to linear light, never the whole image.
    """

    def __init__(self, image: U8, hom: F64, box: tuple[float, float, float, float], ppm: float) -> None:
        x0, y0, x1, y1 = box
        self.x0, self.y0, self.ppm = x0, y0, ppm
        w, h = int(math.ceil((x1 - x0) * ppm)), int(math.ceil((y1 - y0) * ppm))
        s = 1 / ppm
        from_px = np.array([[s, 0, x0 + 0.5 * s], [0, s, y0 + 0.5 * s], [0, 0, 1]])
        self.raw = np.asarray(cv2.warpPerspective(image, hom @ from_px, (w, h),
                                                  flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                                  borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0)),
                              dtype=np.uint8)
        raw = self.raw
        #: The brightest channel of every pixel (clipping, and 0 outside the photo).
        self.peak = np.maximum(np.maximum(raw[..., 0], raw[..., 1]), raw[..., 2])
        # The pixels never change once warped: what is measured from them may be kept (``stats``).
        raw.flags.writeable = False
        self.peak.flags.writeable = False
        self._stats: dict[tuple[int | None, ...], tuple[F32, float, bool]] = {}
        #: Each cell's own print strips (_cell_ring), kept for this photo: the flat-cell checks and the ring
        #: veto measure the same cells.
        self.rings: dict[tuple[Grid, Pose, float, int, int, float | None], tuple[F32, ...]] = {}

    _lum: F32 | None = None

    @property
    def lum(self) -> F32:
        """Linear luminance of every pixel (computed once, on first use)."""
        if self._lum is None:
            # Each channel's linear light times its weight, summed R + G + B (float32 throughout).
            lin = self.lin
            lum = lin[..., 0] * _LUMA[0] + lin[..., 1] * _LUMA[1]
            lum += lin[..., 2] * _LUMA[2]
            self._lum = np.asarray(lum, dtype=np.float32)
        return self._lum

    _lin: F32 | None = None

    @property
    def lin(self) -> F32:
        """Linear RGB of every pixel, (H, W, 3) in R, G, B order (computed once, on first use: one cv2.LUT over the
        image costs what numpy's indexing costs on a few dozen of the regions the readers measure)."""
        if self._lin is None:
            lin = np.asarray(cv2.LUT(cv2.cvtColor(self.raw, cv2.COLOR_BGR2RGB), LINEAR_LUT3), dtype=np.float32)
            lin.flags.writeable = False
            self._lin = lin
        return self._lin

    _edges: F32 | None = None

    @property
    def edges(self) -> F32:
        """Gradient magnitude of every pixel (Sobel, on the grey; computed once, on first use), for _inner_edges."""
        if self._edges is None:
            grey = cv2.cvtColor(self.raw, cv2.COLOR_BGR2GRAY)
            # sqrt(gx² + gy²) in separate exactly rounded steps: cv2.magnitude's last bit depended on where the
            # arrays happened to lie in memory, and np.hypot takes twice as long.
            gx = np.asarray(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), dtype=np.float32)
            gy = np.asarray(cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3), dtype=np.float32)
            np.multiply(gx, gx, out=gx)
            np.multiply(gy, gy, out=gy)
            gx += gy
            self._edges = np.sqrt(gx, out=gx)
        return self._edges

    def glare_spots(self) -> list[GlareSpot]:
        """Clipped patches (at least half a square mm), measured in board mm."""
        mask = (self.peak >= GLARE_LEVEL).astype(np.uint8)
        if not mask.any():
            return []
        count, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
        depth: F32 | None = None
        spots = []
        for i in range(1, count):
            area = stats[i, cv2.CC_STAT_AREA] / self.ppm**2
            if area < 0.5:
                continue
            if depth is None:
                depth = np.asarray(cv2.distanceTransform(mask, cv2.DIST_L2, cv2.DIST_MASK_PRECISE), dtype=np.float32)
            x0, y0 = stats[i, cv2.CC_STAT_LEFT], stats[i, cv2.CC_STAT_TOP]
            box = (slice(y0, y0 + stats[i, cv2.CC_STAT_HEIGHT]), slice(x0, x0 + stats[i, cv2.CC_STAT_WIDTH]))
            own = labels[box] == i
            ys, xs = np.nonzero(own)
            (_, _), (rw, rh), _ = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
            # A pixel is a square: the rectangle around the pixels' centres is a pixel short each way.
            rw, rh = (rw + 1) / self.ppm, (rh + 1) / self.ppm
            cx, cy = centroids[i]
            spots.append(GlareSpot(float(self.x0 + cx / self.ppm), float(self.y0 + cy / self.ppm),
                                   math.sqrt(area / math.pi), (float(min(rw, rh)), float(max(rw, rh))),
                                   float(area / max(rw * rh, 1e-6)), 2 * float(depth[box][own].max()) / self.ppm))
        return spots

    def brightened_around(self, x: float, y: float, radius: float, level: float) -> float:
        """The fraction of small pieces on a circle a little outside (x, y, radius) that are brighter than
        ``level`` (linear luminance) or clipped: a glare spot's halo brightens all around it."""
        bright = total = 0
        for k in range(12):
            ang = 2 * math.pi * k / 12
            px, py = x + (radius + HALO_GAP) * math.cos(ang), y + (radius + HALO_GAP) * math.sin(ang)
            sl = self.rect(px - 0.6, py - 0.6, px + 0.6, py + 0.6)
            if sl is None:
                continue
            mean, clipped, inside = self.stats(sl)
            if not inside:
                continue
            total += 1
            bright += clipped > 0 or float(mean @ _LUMA) > level
        return bright / total if total else 1.0

    def rect(self, x0: float, y0: float, x1: float, y1: float) -> tuple[slice, slice] | None:
        u0 = int(round((x0 - self.x0) * self.ppm))
        u1 = int(round((x1 - self.x0) * self.ppm))
        v0 = int(round((y0 - self.y0) * self.ppm))
        v1 = int(round((y1 - self.y0) * self.ppm))
        h, w = self.raw.shape[:2]
        u0, u1, v0, v1 = max(u0, 0), min(u1, w), max(v0, 0), min(v1, h)
        if u1 - u0 < 1 or v1 - v0 < 1:
            return None
        return (slice(v0, v1), slice(u0, u1))

    def stats(self, sl: tuple[slice, slice]) -> tuple[F32, float, bool]:
        """Mean linear RGB, the fraction of clipped (glare) pixels, and whether it lies inside the photo.

        The readers measure many regions more than once (a cell's top for the rules, then for the guards):
        each region's is kept for this photo (the mean read-only, as it is shared)."""
        key = (sl[0].start, sl[0].stop, sl[0].step, sl[1].start, sl[1].stop, sl[1].step)
        found = self._stats.get(key)
        if found is None:
            mean = np.asarray(_mean(self.lin[sl].reshape(-1, 3), axis=0), dtype=np.float32)
            mean.flags.writeable = False
            # (The clipped count over the size is the mean of the boolean mask, to the last bit.)
            clipped, outside, size = self.counts(sl)
            found = (mean, clipped / size, outside == 0)
            self._stats[key] = found
        return found

    _mask_sums: npt.NDArray[np.int32] | None = None

    def counts(self, sl: tuple[slice, slice]) -> tuple[int, int, int]:
        """How many of the region's pixels are clipped (GLARE_LEVEL) and how many lie outside the photo, and its
        size: from one summed-area table of the two masks (made on first use), four lookups a region."""
        if sl[0].step not in (None, 1) or sl[1].step not in (None, 1):
            peak = self.peak[sl]
            return int(np.count_nonzero(peak >= GLARE_LEVEL)), int(np.count_nonzero(peak == 0)), int(peak.size)
        if self._mask_sums is None:
            masks = np.dstack([self.peak >= GLARE_LEVEL, self.peak == 0]).astype(np.uint8)
            self._mask_sums = np.asarray(cv2.integral(masks), dtype=np.int32)
        h, w = self.peak.shape
        v0, v1, _ = sl[0].indices(h)
        u0, u1, _ = sl[1].indices(w)
        if v1 <= v0 or u1 <= u0:
            return 0, 0, 0
        t = self._mask_sums
        clipped, outside = (t[v1, u1] - t[v0, u1] - t[v1, u0] + t[v0, u0]).tolist()
        return int(clipped), int(outside), (v1 - v0) * (u1 - u0)

    def trimmed_mean(self, sl: tuple[slice, slice]) -> F32:
        """Per channel, the mean linear RGB of the region's pixels between their BAND_TRIM and 1 - BAND_TRIM
        quantiles: a thin line across the region, lighter or darker than the print, clipped or not, does not move
        it."""
        lin = np.sort(self.lin[sl].reshape(-1, 3), axis=0)
        cut = int(len(lin) * BAND_TRIM)
        return np.asarray(_mean(lin[cut: max(len(lin) - cut, cut + 1)], axis=0), dtype=np.float32)

    def white_clipped(self, sl: tuple[slice, slice]) -> float:
        """The fraction of the region clipped in every channel (white: no colour left to measure)."""
        px = self.raw[sl]
        return float(np.mean(px.min(axis=2) >= GLARE_LEVEL)) if px.size else 0.0

    def unevenness(self, sl: tuple[slice, slice]) -> float:
        """How much brighter one half of the region is than the other (relative): a shadow's edge
        crossing it, which a cube's top face never has."""
        lum = self.lum[sl]
        h, w = lum.shape
        if h < 2 or w < 2:
            return 0.0
        halves = [_mean(lum[: h // 2]), _mean(lum[h - h // 2:]), _mean(lum[:, : w // 2]), _mean(lum[:, w - w // 2:])]
        return float(max(abs(halves[0] - halves[1]), abs(halves[2] - halves[3])) / max(float(_mean(lum)), 1e-6))


def _mean(a: F32, axis: int | None = None) -> Any:
    """np.mean of a float array without its Python wrapper (a photo takes thousands of small means): the same sum
    and the same division, so the same bits."""
    return np.add.reduce(a, axis=axis) / (a.size if axis is None else a.shape[axis])


#: The array types _median works out itself (others go to numpy: float16, for one, is summed in float32); _percentile
#: takes the two float ones.
_FAST_FLOATS = frozenset({np.dtype(np.float32), np.dtype(np.float64)})
_FAST_DTYPES = _FAST_FLOATS | {np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.uint8)}


def _median(a: npt.ArrayLike, axis: int | None = None) -> Any:
    """np.median without its Python wrappers (a photo takes a hundred small medians): numpy's own steps (the same
    np.partition, the middle one or two values summed by np.add.reduce and divided by their count, as np.mean does),
    so the same bits (tests/vision/test_vision_reader.py); where a NaN is among the values, numpy's np.median."""
    arr = np.asarray(a)
    if axis is None:
        arr, axis = arr.reshape(-1), 0
    n = arr.shape[axis]
    if n == 0 or arr.dtype not in _FAST_DTYPES:
        return np.median(arr, axis=axis)
    h = n // 2
    floats = arr.dtype.kind == "f"
    kth = [h - 1, h] if n % 2 == 0 else [(n - 1) // 2]
    # (For floats numpy also puts the largest value last, where a NaN would sort.)
    part = np.partition(arr, kth + [-1] if floats else kth, axis=axis)
    lead = (slice(None),) * axis
    if floats and np.isnan(part[(*lead, n - 1)]).any():
        return np.median(arr, axis=axis)
    middle = part[(*lead, slice(h - 1 if n % 2 == 0 else h, h + 1))]
    return np.add.reduce(middle, axis=axis, dtype=None if floats else np.float64) / middle.shape[axis]


def _percentile(a: npt.ArrayLike, q: float | Sequence[float]) -> Any:
    """np.percentile(a, q) of all the values (its default, linear interpolation) without its Python wrappers:
    numpy's own steps (the same np.partition, the same two order statistics around (n - 1) q / 100 and the same
    interpolation between them: in the array's type for a plain number ``q``, in float64 for a list), so the same
    bits (tests/vision/test_vision_reader.py). Anything else (a NaN among the values, q out of range, numpy numbers
    for q) goes to np.percentile."""
    arr = np.asarray(a).reshape(-1)
    n = arr.size
    one = type(q) in (int, float)  # (a numpy number is no plain one: numpy computes in float64 there)
    qs = [q] if one else list(q) if isinstance(q, list | tuple) else []  # type: ignore[arg-type]
    if (n == 0 or arr.dtype not in _FAST_FLOATS or not qs
            or not all(type(x) in (int, float) and 0 <= x <= 100 for x in qs)):
        return np.percentile(arr, q)
    at = [(n - 1) * (x / 100) for x in qs]
    # At the last value or beyond, numpy takes the last one from both sides, and counts the weight from index -1.
    prev = [-1 if v >= n - 1 else math.floor(v) for v in at]
    nxt = [-1 if p == -1 else p + 1 for p in prev]
    part = np.partition(arr, np.unique(np.array([0, -1, *prev, *nxt])))
    if np.isnan(part[n - 1]):
        return np.percentile(arr, q)
    below, above = part[prev], part[nxt]
    diff = above - below  # (in the array's type)
    t = np.array(at) - np.array(prev, dtype=np.float64)
    if one:
        below, above, diff, w = below[0], above[0], diff[0], float(t[0])
        # (numpy's _lerp: from the lower value up below the middle, from the upper one down from it.)
        return above - diff * (1 - w) if w >= 0.5 else below + diff * w
    return np.where(t >= 0.5, above - diff * (1 - t), below + diff * t)


def _grid_box(template: Template, margin: float) -> tuple[float, float, float, float]:
    xs, ys = [], []
    for g in template.gear_grids:
        xs += [g.origin_mm[0], g.origin_mm[0] + g.size_mm[0]]
        ys += [g.origin_mm[1], g.origin_mm[1] + g.size_mm[1]]
    return (min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin)


@dataclass(frozen=True, slots=True)
class _BandSample:
    x: float
    y: float
    rgb: F32
    #: A band piece's plain mean light where ``rgb`` is a trimmed one, for the shadows seen on the print
    #: (_observed_shadows: a shadow over part of a piece darkens it in proportion) ...
    plain: F32 | None = None
    #: ... which a piece with clipped pixels does not show.
    clipped: bool = False


def _band_samples(rect: _Rectified, grid: Grid, pose: Pose, cube: float,
                  all_grids: Sequence[Grid]) -> list[_BandSample]:
    """The empty print just outside the grid, in short pieces, skipping pieces a cube could lean into,
    pieces that fall on another grid (the two weapon grids touch) and pieces clipped by glare."""
    return _unclipped(_band_pieces(rect, grid, pose, cube, all_grids))


def _unclipped(pieces: Sequence[tuple[_BandSample, float]]) -> list[_BandSample]:
    """The band pieces (with their clipped fractions) that show the print's light (BAND_CLIPPED_MAX)."""
    return [s for s, clipped in pieces if clipped <= BAND_CLIPPED_MAX]


#: A band piece is the print's light only while at most this fraction of it is clipped; its light is a trimmed mean
#: (_Rectified.trimmed_mean, BAND_TRIM), so a thin clipped line across it (a pale frame printed around a grid:
#: 5-15 % of a piece on development seed 510, photo 2, where it left two grids unread) does not count, in the
#: photo of the empty board as in the photo read (their ratio is the grid's print).
BAND_CLIPPED_MAX = 0.25
#: The fraction of a band piece's lightest pixels, and of its darkest, left out of its light.
BAND_TRIM = 0.25
#: A band piece with more than this fraction of its pixels clipped shows no shadow (_BandSample.clipped).
SHADOW_PIECE_CLIPPED = 0.01


def _band_pieces(rect: _Rectified, grid: Grid, pose: Pose, cube: float,
                 all_grids: Sequence[Grid]) -> list[tuple[_BandSample, float]]:
    """Every piece of the band around the grid that lies in the photo (see _band_samples), with the fraction
    of its pixels clipped."""
    inner, outer, step = 2.0, 5.5, 4.0
    gx, gy = grid.origin_mm
    gw, gh = grid.size_mm
    out: list[tuple[_BandSample, float]] = []
    half = cube / 2
    # The outer cells' centres, each with the place a cube there could lean into (one per cell, not per piece).
    cells: list[tuple[float, float, tuple[float, float, float, float]]] = []
    for g in all_grids:
        for r in range(g.rows):
            for c in range(g.cols):
                if r in (0, g.rows - 1) or c in (0, g.cols - 1):
                    cx, cy = g.cell_centre(r, c)
                    dx, dy = pose.top_shift(cx, cy, cube)
                    cells.append((cx, cy, (cx - half + min(dx, 0) - 1.2, cx + half + max(dx, 0) + 1.2,
                                           cy - half + min(dy, 0) - 1.2, cy + half + max(dy, 0) + 1.2)))
    pieces: list[tuple[float, float, float, float]] = []
    for t in np.arange(gx - outer, gx + gw + outer - step + 1e-6, step):
        pieces.append((t, gy - outer, t + step, gy - inner))
        pieces.append((t, gy + gh + inner, t + step, gy + gh + outer))
    for t in np.arange(gy - inner, gy + gh + inner - step + 1e-6, step):
        pieces.append((gx - outer, t, gx - inner, t + step))
        pieces.append((gx + gw + inner, t, gx + gw + outer, t + step))
    # Pieces on a grid (or within a mm of one), and pieces a cube could lean into (a cell within 20 mm whose
    # place overlaps the piece), are skipped: compared all at once.
    px0, py0, px1, py1 = np.array(pieces, dtype=np.float64).reshape(-1, 4).T[:, :, None]
    gx0 = np.array([[g.origin_mm[0] for g in all_grids]])
    gy0 = np.array([[g.origin_mm[1] for g in all_grids]])
    gx1 = gx0 + np.array([[g.size_mm[0] for g in all_grids]])
    gy1 = gy0 + np.array([[g.size_mm[1] for g in all_grids]])
    on_grid = ((px0 < gx1 + 1) & (gx0 - 1 < px1) & (py0 < gy1 + 1) & (gy0 - 1 < py1)).any(axis=1)
    ccx, ccy, sx0, sx1, sy0, sy1 = np.array([(cx, cy, *place) for cx, cy, place in cells],
                                              dtype=np.float64).reshape(-1, 6).T[:, None]
    near = (np.abs(ccx - (px0 + px1) / 2) <= 20) & (np.abs(ccy - (py0 + py1) / 2) <= 20)
    blocked = (near & (px0 < sx1) & (sx0 < px1) & (py0 < sy1) & (sy0 < py1)).any(axis=1)
    for (x0, y0, x1, y1), skip in zip(pieces, on_grid | blocked, strict=True):
        if skip:
            continue
        sl = rect.rect(x0, y0, x1, y1)
        if sl is None:
            continue
        mean, clipped, inside = rect.stats(sl)
        if inside:
            out.append((_BandSample((x0 + x1) / 2, (y0 + y1) / 2, rect.trimmed_mean(sl), mean,
                                    clipped > SHADOW_PIECE_CLIPPED), clipped))
    return out


#: A printed outline reaches no further into a cell than this (mm); a wider "line" in the profile is cubes
#: and their shadows along it.
LINE_REACH_MAX = 1.2


#: How far (mm) a photo's printed lines may move a grid from where its template or calibration puts it. The
#: markers' homography is a plane's: lens distortion, and the markers' corners found a little off in one photo
#: or the other, leave a grid up to about 0.8 mm away from it (second renderer's tuning seed 501, measured on
#: empty renders of the same scenes; the grid nearest a corner of the photo moves most).
PLACE_MAX_MM = 1.0
#: ... and at least a third of the cell-long pieces of its inner lines (two at least) must agree on where it
#: is to within this (mm).
PLACE_AGREE_MM = 0.2


def _line_centre(prof: npt.NDArray[np.float32], offs: npt.NDArray[np.float64], fill: float) -> float | None:
    """Where (mm, against the template's) a printed line's ink is centred in its median profile, or None
    when the profile shows no clear line within PLACE_MAX_MM."""
    d = np.abs(prof.astype(np.float64) - fill)
    near = np.abs(offs) <= PLACE_MAX_MM + 0.25
    if not near.any():
        return None
    peak = float(d[near].max())
    if peak < 0.08 * max(fill, 1e-6):
        return None
    i = int(np.flatnonzero(near)[int(np.argmax(d[near]))])
    # The contiguous run of ink around the peak, weighted by how far above half the peak it stands.
    lo = i
    while lo > 0 and d[lo - 1] > 0.5 * peak:
        lo -= 1
    hi = i
    while hi < len(d) - 1 and d[hi + 1] > 0.5 * peak:
        hi += 1
    w = d[lo:hi + 1] - 0.5 * peak
    if w.sum() <= 0:
        return None
    centre = float((w * offs[lo:hi + 1]).sum() / w.sum())
    return centre if abs(centre) <= PLACE_MAX_MM else None


def _line_profiles(rect: _Rectified, grid: Grid, offs: npt.NDArray[np.float64], *, per_cell: bool = False
                   ) -> tuple[list[npt.NDArray[np.float32]], list[npt.NDArray[np.float32]]]:
    """Median luminance profiles across the grid's inner vertical and horizontal lines (cubes cover only
    part of each line, the median sees the print), at ``offs`` mm from where the template puts each line;
    ``per_cell``: one profile per cell-long piece of each line instead of one per line."""
    step = 1 / rect.ppm
    x0, y0 = grid.origin_mm
    lum = rect.lum
    H, W = lum.shape

    def px(mm: npt.NDArray[np.float64], origin: float, size: int) -> npt.NDArray[np.intp]:
        # Pixel i covers mm [origin + i / ppm, origin + (i + 1) / ppm) (see _Rectified.rect).
        return np.clip(np.floor((mm - origin) * rect.ppm).astype(np.intp), 0, size - 1)

    def pieces(start: float, count: int) -> list[npt.NDArray[np.float64]]:
        if not per_cell:
            return [np.arange(start + 1.0, start + count * grid.cell_mm - 1.0, step)]
        return [np.arange(start + k * grid.cell_mm + 1.5, start + (k + 1) * grid.cell_mm - 1.5, step)
                for k in range(count)]

    def profiles(first: float, count: int, start: float, along_count: int, vertical: bool
                 ) -> list[npt.NDArray[np.float32]]:
        # Every inner line's median profile along one piece at once; in the order line by line, piece by piece.
        across = first + np.arange(1, count)[:, None] * grid.cell_mm + offs[None, :]  # (lines, offsets)
        found = []
        for along in pieces(start, along_count):
            if vertical:
                values = lum[px(along, rect.y0, H)[None, None, :], px(across, rect.x0, W)[:, :, None]]
            else:
                values = lum[px(across, rect.y0, H)[:, :, None], px(along, rect.x0, W)[None, None, :]]
            found.append(_median(values, axis=2))
        return [found[k][line] for line in range(count - 1) for k in range(len(found))]

    return (profiles(x0, grid.cols, y0, grid.rows, True), profiles(y0, grid.rows, x0, grid.cols, False))


def _placed_by_lines(rect: _Rectified, template: Template) -> Template:
    """The template with each gear grid moved to where this photo's printed inner lines put it (at most
    PLACE_MAX_MM each way; an axis without clear inner lines stays where the template says)."""
    offs = np.arange(-3.0, 3.0 + 1e-6, 1 / rect.ppm)
    ends = np.abs(offs) > 2.0
    grids = dict(template.grids)
    for g in template.gear_grids:
        shift = []
        for profiles in _line_profiles(rect, g, offs, per_cell=True):
            # Each cell-long piece of each inner line on its own: a cube's side faces or shadow along a piece
            # pull its profile aside. A third of the pieces must agree, or the grid stays where it was.
            fills = _median(np.array(profiles)[:, ends], axis=1) if profiles else []
            centres = np.array([c for prof, fill in zip(profiles, fills, strict=True)
                                if (c := _line_centre(prof, offs, float(fill))) is not None])
            if len(centres) == 0:
                shift.append(0.0)
                continue
            mid = float(_median(centres))
            agree = int(np.sum(np.abs(centres - mid) <= PLACE_AGREE_MM))
            shift.append(mid if agree >= max(2, (len(profiles) + 2) // 3) else 0.0)
        if shift[0] or shift[1]:
            grids[g.name] = replace(g, origin_mm=(g.origin_mm[0] + shift[0], g.origin_mm[1] + shift[1]))
    return replace(template, grids=grids)


def _line_reach(rect: _Rectified, grid: Grid) -> float:
    """How far (mm) the printed cell outline's ink reaches into a cell from the outline's centre: from the
    median luminance profile across the grid's inner lines."""
    offs = np.arange(-3.0, 3.0 + 1e-6, 1 / rect.ppm)
    vertical, horizontal = _line_profiles(rect, grid, offs)
    profiles = vertical + horizontal
    if not profiles:
        return 0.6
    prof = _median(np.array(profiles), axis=0)
    fill = float(_median(np.concatenate([prof[:4], prof[-4:]])))
    mid = len(prof) // 2
    centre = prof[mid - 1: mid + 2].mean()
    contrast = abs(float(centre) - fill)
    if contrast < 0.08 * max(fill, 1e-6):
        return 0.4
    away = np.abs(prof - fill) > 0.2 * contrast
    reach = 0.0
    for i in range(mid, len(prof)):
        if not away[i]:
            break
        reach = offs[i]
    for i in range(mid, -1, -1):
        if not away[i]:
            break
        reach = max(reach, -offs[i])
    return float(min(reach + 0.25, LINE_REACH_MAX))


def _inner_samples(rect: _Rectified, grid: Grid, pose: Pose, cube: float, reach: float | None = None
                   ) -> list[_BandSample]:
    """The grid's own print inside its cells: a strip along each side of each cell between where a cube
    can stand and the printed outline, on the sides a cube's top and side faces do not lean over (away
    from the parallax), and clear of the cell's corners (printed icons, neighbours' shadows meet there).
    A board may print its grids unlike the board around them; then these, not the band, are the print."""
    out: list[_BandSample] = []
    half = cube / 2
    lo, hi = half + RING_CLEAR_CUBE, grid.cell_mm / 2 - (RING_CLEAR_LINE if reach is None else reach)
    if hi - lo < 0.3:
        lo = hi - 0.3
    if lo < half - 1e-6:
        return out
    along = grid.cell_mm / 2 - 3.0
    for r in range(grid.rows):
        for c in range(grid.cols):
            cx, cy = grid.cell_centre(r, c)
            dx, dy = pose.top_shift(cx, cy, cube)
            for sx, sy in SIDES:
                if (sx and sx * dx > RING_CLEAR_CUBE * 0.6) or (sy and sy * dy > RING_CLEAR_CUBE * 0.6):
                    continue
                if sx:
                    box = (cx + min(sx * lo, sx * hi), cy - along, cx + max(sx * lo, sx * hi), cy + along)
                else:
                    box = (cx - along, cy + min(sy * lo, sy * hi), cx + along, cy + max(sy * lo, sy * hi))
                sl = rect.rect(*box)
                if sl is None:
                    continue
                px = rect.raw[sl].reshape(-1, 3)
                clipped, outside, size = rect.counts(sl)
                if outside or clipped / size > 0.01:
                    continue
                # The median: the printed outline's ink or a jittered cube's edge may reach into the strip.
                med = LINEAR_LUT[_median_u8(px)[::-1]]
                out.append(_BandSample((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, np.asarray(med, np.float32)))
    return out


def _median_u8(px: U8) -> U8:
    """Per column, the median of 8-bit values (at least one row) rounded down, as
    ``np.median(px, axis=0).astype(np.uint8)`` gives it (the middle value, or the mean of the two middle
    ones, which float64 holds exactly), without np.median's overhead."""
    srt = np.sort(px, axis=0)
    h = len(srt) // 2
    if len(srt) % 2:
        return np.asarray(srt[h], dtype=np.uint8)
    return np.asarray((srt[h - 1].astype(np.uint16) + srt[h]) // 2, dtype=np.uint8)


def _envelope(samples: Sequence[_BandSample], top: float = 0.5) -> F32 | None:
    """The lit print of a set of pieces: the median of their brightest ``top`` fraction (at least three;
    shadows only darken)."""
    if len(samples) < 4:
        return None
    rgb = np.array([s.rgb for s in samples])
    lum = rgb @ _LUMA
    order = np.argsort(lum)[::-1][: max(3, int(round(top * len(samples))))]
    return np.asarray(_median(rgb[order], axis=0), dtype=np.float32)


#: Whether a grid whose inner strips look unlike the band is read against them (OWN_PRINT_REFERENCE) and
#: makes the board unfamiliar (OWN_PRINT_GATE). Off: on the first renderer's boards, whose grids are printed
#: like the band, the strips differ in a third of the photos (cube shadows on most strips of a full grid,
#: mixed light), so the test is not yet reliable enough to act on.
OWN_PRINT_REFERENCE = True
OWN_PRINT_GATE = False
#: A cell is flat print when its top place, its footprint and its own print strips all look alike.
UNIFORM_MAX = 0.5


def _uniform_cells(rect: _Rectified, grid: Grid, pose: Pose, cube: float, reach: float) -> list[_BandSample]:
    """The grid's cells that show nothing but flat print: the top face's place, the footprint and every
    visible strip of the cell's own print look alike (a cube has a top unlike the print beside it, or, if
    its colour is the print's, still its own shadow and side faces), and no edge crosses the top's place."""
    out = []
    for r in range(grid.rows):
        for c in range(grid.cols):
            core_box, top_box = _regions(grid, pose, cube, r, c)
            regions = []
            for box in (core_box, top_box):
                sl = rect.rect(*box)
                if sl is None:
                    break
                mean, clipped, inside = rect.stats(sl)
                if not inside or clipped > 0:
                    break
                regions.append(mean)
            if len(regions) < 2:
                continue
            tsl = rect.rect(*top_box)
            if tsl is None or rect.unevenness(tsl) > 0.08:
                continue
            ring = _cell_ring(rect, grid, pose, cube, r, c, reach)
            if len(ring) < 2:
                continue
            parts = regions + ring
            if _any_unlike(parts, UNIFORM_MAX):
                continue
            x, y = grid.cell_centre(r, c)
            out.append(_BandSample(x, y, np.asarray(np.mean(parts, axis=0), dtype=np.float32)))
    return out


def _print_offset(seen: F32, ref: F32, floor: float = 0.0) -> tuple[float, float] | None:
    """How a print seen compares with a reference print: the luminance ratio and the chroma distance at equal
    luminance, each light taken ``floor`` (linear, of white) lighter in every channel (see DEEP_FLOOR); None
    for a light too dark to compare. A reference above the camera's white (a calibrated print scaled from the
    band's light, Template.band_ratio) is taken as the camera would show it: clipped at white."""
    seen, ref = seen + np.float32(floor), np.minimum(ref, np.float32(1.0)) + np.float32(floor)
    li, lb = float(seen @ _LUMA), float(ref @ _LUMA)
    if li <= 1e-6 or lb <= 1e-6:
        return None
    a, b = lab_of(seen * 0.5 / li), lab_of(ref * 0.5 / lb)
    return li / lb, math.hypot(a[1] - b[1], a[2] - b[2])


#: Flare and the camera's black level add light to every channel of a photo, a little of the scene's light in
#: its colour: on a print as deep as 1-3 % reflectance that moves its hue from one photo to the next, the more
#: the deeper the print. The checks that a calibrated grid is the board calibration saw (_own_print on it,
#: _cells_like_print) compare prints with this much light (linear, of white) added to both. On development
#: seed 511 (photo 47) a sandals grid printed at 3 % reflectance measured 8.7-9.8 chroma units from its
#: calibration, against OWN_CHROMA 8, and refused a board its calibration fitted to within 2 units elsewhere.
DEEP_FLOOR = 0.01


def _own_print(flat: Sequence[_BandSample], band: Sequence[_BandSample], floor: float = 0.0) -> bool:
    """Whether a grid is printed unlike the band around it: its flat cells, against the band's light right
    there, are darker, lighter or of another hue than the band (compared by _print_offset at ``floor``).
    Shadows only darken, so the brightest flat cells of a grid printed like the band match it unless every
    empty cell is shaded; the two brightest must both differ (one flat-looking cell may be a cube the colour of
    its print)."""
    found = []
    for s, ref in zip(flat, _local_references(band, [(s.x, s.y) for s in flat]), strict=True):
        if ref is None:
            continue
        off = _print_offset(s.rgb, ref[0], floor)
        if off is None:
            continue
        # Print in a shadow seen on the band itself (a cube's, or one light blocked in mixed light) is the
        # band's print, however dark or tinted.
        like_band = any(_unlike(s.rgb, piece.rgb) < UNIFORM_MAX for piece in band)
        found.append((*off, like_band))
    if not found:
        return False
    found.sort(reverse=True)
    return all((not 1 / OWN_RATIO < ratio < OWN_RATIO or chroma > OWN_CHROMA) and not like_band
               for ratio, chroma, like_band in found[:2])


#: A grid's own print differs from the band beyond these (its brightest flat cell against the band there).
OWN_RATIO = 1.3
OWN_CHROMA = 8.0


def _flat_as_calibrated(refs: Sequence[tuple[F64, F32, F32]], loc: Located, template: Template, grid: str,
                        flat: Sequence[_BandSample]) -> bool:
    """Whether a calibrated grid's flat cells, measured against the stickers' patches, lie within PRINT_UNLIKE of the
    print calibration measured (the upper half of them by light, as _board_colour measures a print: shadows only
    darken): then they are that print, though the band around the grid, scaled by calibration's ratio, predicts
    another (_own_print).

    That ratio holds where the camera treats both prints alike; between a dark band and a pale print it bends with
    the tone curve at another exposure than calibration's. Development seed 560, photo 41: the helmet's two flat
    cells (8 of its 12 cells hold cubes), a pale pink print beside the board's dark grey and a green disc of its
    art, were 28-36 % lighter and 8-10 units off in hue from the band's prediction, and the board, its own, was
    refused as another; against the stickers they measured (88.5, 8.6, 5.8), 11 Lab units from the calibrated
    (93.6, -1.3, 3.7). The board around the grids is measured against the stickers with the same bound (``offs`` in
    _read_cells). Only asked where LIKE_PRINT_MIN cells' middles look like their calibrated print: read with the next
    photo's calibration (another board), seed 558's photo 2 had a helmet whose flat cells measured 14.8 units from
    that calibration's and no cell like its print; it stays refused."""
    measured = _board_colour(refs, loc, template, list(flat) * 3)
    return measured is not None and _weighted(measured, _expected_print(template, grid), 1.0) <= PRINT_UNLIKE


#: The fraction of a grid's inner strips taken as its lit print (a full grid shades most of them).
INNER_TOP = 0.15


#: The grid's own print differs from the band around it beyond these (luminance ratio, chroma at equal
#: luminance): then the band is no reference for its cells.
PRINT_RATIO_MAX = 1.18
PRINT_CHROMA_MAX = 5.0


def _print_differs(inner: F32, band: F32, *, hue_only: bool = False) -> bool:
    li, lb = float(inner @ _LUMA), float(band @ _LUMA)
    if li <= 1e-6 or lb <= 1e-6:
        return True
    if not hue_only and not 1 / PRINT_RATIO_MAX < li / lb < PRINT_RATIO_MAX:
        return True
    a, b = lab_of(inner * 0.5 / li), lab_of(band * 0.5 / lb)
    return math.hypot(a[1] - b[1], a[2] - b[2]) > PRINT_CHROMA_MAX


def _local_reference(samples: Sequence[_BandSample], x: float, y: float) -> tuple[F32, float] | None:
    """The empty print's light near (x, y) and how much the nearby pieces disagree (max/min luminance).

    Cast shadows only ever darken the print, so pieces much darker than the brightest nearby ones are
    dropped (a cube's shadow lying across the band) before a distance-weighted median.
    """
    return _local_references(samples, [(x, y)])[0]


#: _local_reference weighs the print's nearest pieces, at most this many.
LOCAL_PIECES = 12


def _local_references(samples: Sequence[_BandSample], points: Sequence[tuple[float, float]],
                      exclude: Sequence[int | None] | None = None) -> list[tuple[F32, float] | None]:
    """_local_reference at many points at once (the readers ask at every cell, or every piece of a band);
    ``exclude[i]``: a sample left out at point i (the piece or cell itself). None where fewer than three
    samples are left."""
    q, n = len(points), len(samples)
    out: list[tuple[F32, float] | None] = [None] * q
    if q == 0 or n == 0:
        return out
    xy = np.array([(s.x, s.y) for s in samples], dtype=np.float64).reshape(-1, 2)
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    d = np.hypot(xy[None, :, 0] - pts[:, None, 0], xy[None, :, 1] - pts[:, None, 1])
    counts = np.full(q, n)
    for i, e in enumerate(exclude or ()):
        if e is not None:
            d[i, e] = np.inf
            counts[i] -= 1
    # (Stable sorts: pieces at equal distances, common on the band's regular steps, or of equal light keep their
    # order.)
    nearest = np.argsort(d, axis=1, kind="stable")
    rgb_all = np.array([s.rgb for s in samples], dtype=np.float32).reshape(-1, 3)
    for count in sorted(set(counts.tolist())):
        if count < 3:
            continue
        rows = np.flatnonzero(counts == count)
        m = min(LOCAL_PIECES, count)
        order = nearest[rows, :m]
        rgb = rgb_all[order]
        lum = rgb @ _LUMA
        # The lit print is the upper envelope of the nearby pieces (shadows only darken); the very
        # brightest piece is left out in case it caught a reflection.
        rank = np.argsort(lum, axis=1, kind="stable")
        lo = int(0.55 * m)
        pick = rank[:, lo: max(lo + 1, int(0.92 * m))]
        wts = 1.0 / (np.take_along_axis(np.take_along_axis(d[rows], order, axis=1), pick, axis=1) + 6.0) ** 2
        chosen = np.take_along_axis(rgb, pick[:, :, None], axis=1)
        refs = np.asarray((chosen * wts[:, :, None]).sum(axis=1) / wts.sum(axis=1)[:, None], dtype=np.float32)
        spreads = lum.max(axis=1) / np.maximum(lum.min(axis=1), 1e-6)
        for j, i in enumerate(rows.tolist()):
            out[i] = (refs[j], float(spreads[j]))
    return out


#: How far (mm) to look for print that no cube shades: a cube's shadow reaches ~12 mm, a full grid's row of
#: shadows covers the band along one side, the other sides of the grid are 36-60 mm away.
LIT_RADIUS = 45.0


def _lit_reference(samples: Sequence[_BandSample], x: float, y: float) -> F32 | None:
    """The print's light near (x, y) where no cube's shadow falls: the brightest fifth of the print
    within LIT_RADIUS. A cube's top face stands as high as its neighbours, so their shadows never reach it;
    it is lit like this (unless a large occluder shades both it and the print right around it, which the
    local reference sees)."""
    near = [s for s in samples if math.hypot(s.x - x, s.y - y) < LIT_RADIUS]
    if len(near) < 6:
        return None
    rgb = np.array([s.rgb for s in near])
    lum = rgb @ _LUMA
    rank = np.argsort(lum)
    n = len(rank)
    # The brightest fifth (a full grid's shadows may cover most of the print around it), leaving out the
    # brightest piece (a reflection). Too bright a reference only widens the interval checked.
    pick = rank[int(0.8 * n): max(int(0.8 * n) + 1, n - 1)]
    return np.asarray(_median(rgb[pick], axis=0), dtype=np.float32)


#: Where between the local print's light (0) and the lit print's light (1) a cube's top face is checked.
LIGHT_STEPS = (0.0, 0.5, 1.0)
#: The materials' ranking must hold this margin at every light level in between.
INTERVAL_MARGIN = 0.2


def _classify_over_light(measure: _Measure, local: F32, lit: F32, board_lab: F32, board_rgb: F32,
                         cube_lab: Mapping[str, F64]) -> tuple[str, float] | None:
    """A cube whose colour is unclear against the local print because that print lies in other cubes'
    shadows (the top face does not): its top is lit somewhere between the local print's light and the lit
    print's. The cube is read only if it is the same material, clearly ahead of the others, at every light
    level in that interval, and confidently so at one of them."""
    if float(lit @ _LUMA) < 1.05 * float(local @ _LUMA):
        return None
    letters, confs, margins = set(), [], []
    for t in LIGHT_STEPS:
        ref = np.asarray((1 - t) * local + t * lit, dtype=np.float32)
        label, conf, reason, feats = _classify(measure, ref, board_lab, board_rgb, cube_lab)
        if label not in cube_lab and reason != "cube colour unclear":
            return None
        d1, d2 = feats["d_best"], feats["d_second"]
        letters.add(int(feats["best"]))
        margins.append((d2 - d1) / (d2 + d1 + 1e-6))
        confs.append(conf)
    if len(letters) != 1 or -1 in letters or min(margins) < INTERVAL_MARGIN or max(confs) < CONFIDENCE_THRESHOLD:
        return None
    return "WMT"[letters.pop()], max(confs)


def _lit_may_decide(label: str, reason: str, feats: Mapping[str, float]) -> bool:
    """Cells the lit print may settle: a cube whose colour is unclear, and print brighter than the print
    beside it in the print's own hue (that print lies in a shadow)."""
    if reason == "cube colour unclear":
        return True
    return (label == "?" and min(feats.get("r_top", 0.0), feats.get("r_core", 0.0)) > 1.0
            and max(feats.get("c_top", 99.0), feats.get("c_core", 99.0)) < HUE_MIN)


def _reread_with_lit(measure: _Measure, local: F32, lit: F32, reading: tuple[str, float, str],
                     feats: dict[str, float], board_lab: F32, board_rgb: F32, cube_lab: Mapping[str, F64]
                     ) -> tuple[str, float, str]:
    """A cell left '?' against the local print, read again with the lit print's light (see
    _lit_may_decide); the reading unchanged when that does not settle it."""
    if reading[2] == "cube colour unclear":
        over = _classify_over_light(measure, local, lit, board_lab, board_rgb, cube_lab)
        if over is None:
            return reading
        feats["lit_read"] = 1.0
        return over[0], over[1], ""
    # Brighter than the print beside it but of its hue: against the lit print it must be plain print.
    label, conf, _, _ = _classify(measure, lit, board_lab, board_rgb, cube_lab)
    if label != ".":
        return reading
    feats["lit_read"] = 1.0
    return ".", conf, ""


# --------------------------------------------------------------------------------------------
# Sticker references and sharpness.


def _sticker_refs(image: U8, markers: Mapping[int, F64], size_mm: float) -> list[tuple[F64, F32, F32]]:
    """Per found sticker: its centre (image px), and the paper-white and black patches in linear RGB."""
    out = []
    for corners in markers.values():
        s = size_mm
        plane = np.array([[-s / 2, -s / 2], [s / 2, -s / 2], [s / 2, s / 2], [-s / 2, s / 2]])
        hom, _ = cv2.findHomography(plane, corners, 0)
        if hom is None:
            continue
        vals = {}
        for name in ("white", "black"):
            x0, y0, x1, y1 = patch_box_mm(name, s)
            m = 0.15 * s
            pts = np.array([[x, y] for x in np.linspace(x0 + m, x1 - m, 5) for y in np.linspace(y0 + m, y1 - m, 5)])
            img = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), hom).reshape(-1, 2)
            xi, yi = img[:, 0].astype(int), img[:, 1].astype(int)
            if xi.min() < 0 or yi.min() < 0 or xi.max() >= image.shape[1] or yi.max() >= image.shape[0]:
                break
            vals[name] = _median(LINEAR_LUT[image[yi, xi][:, ::-1]], axis=0)
        # (The patches are checked as the photo shows them: a clipped white is at least that light.)
        if len(vals) == 2 and _patches_look_printed(vals["white"], vals["black"]):
            white = _white_past_clipping(vals["white"], vals["black"])
            out.append((corners.mean(axis=0), white.astype(np.float32), vals["black"].astype(np.float32)))
    return out


def _white_past_clipping(white: npt.NDArray[np.floating[Any]], black: npt.NDArray[np.floating[Any]]
                         ) -> npt.NDArray[np.floating[Any]]:
    """A sticker's white patch (linear RGB, the photo's values) with each channel the camera clipped (WHITE_CLIPPED)
    worked out from the black patch beside it, where at least one channel is not clipped.

    The white patch is the paper and the black a neutral print on it (vision/stickers.py), so under one light their
    reflectances keep one ratio in every channel, and flare of the light's own colour keeps it too: a clipped
    channel's white is taken as its black times the white-to-black ratio of the lightest unclipped channel, and never
    less than the photo shows. The camera's tone curve bends that ratio, so this is an estimate, not a measurement;
    it is not made where the ratio is more than the patches' reflectances allow (PAPER_REFLECTANCE over
    BLACK_REFLECTANCE; flare only lowers it: a black crushed by the tone curve or lost in noise) or where the black
    is clipped too. Under a warm lamp the white's red and green clip first, and every print measured against them
    looks redder and yellower than it is: development seed 559, photo 51, whites (1.0, 1.0, 0.93) (one sticker
    (0.99, 1.0, 0.95)) beside blacks of about (0.10, 0.07, 0.047); the print measured 25-28 Lab units from its
    calibration, and the board, its own, was refused as another. A sticker clipped in every channel tells nothing
    of the light's colour and is left as the photo shows it (its board may still pass as overexposed:
    OVEREXPOSED_L_MAX)."""
    clipped = white >= WHITE_CLIPPED
    if not clipped.any() or clipped.all() or bool(np.any(black >= WHITE_CLIPPED)):
        return white
    anchor = int(np.argmax(np.where(clipped, -1.0, white)))
    if not black[anchor] * PAPER_REFLECTANCE / BLACK_REFLECTANCE >= white[anchor]:
        return white
    return np.where(clipped, np.maximum(white, black * (white[anchor] / black[anchor])), white)


#: A sticker's white patch this light (linear, in any channel: the camera's GLARE_LEVEL) is clipped: the paper's
#: white is more than the photo shows, so what is measured against it measures lighter than it is.
WHITE_CLIPPED = float(LINEAR_LUT[GLARE_LEVEL])
#: The printed black patch reflects under a tenth of the paper's light; allowing for flare and a shadow
#: across one patch, a sticker whose "black" is above this fraction of its "white" has no patches there.
PATCH_CONTRAST_MAX = 0.3


def _patches_look_printed(white: F32, black: F32) -> bool:
    """Whether the sticker's patch strip is there: a white patch well above a black one in every channel
    (a sticker cut without its strip shows the board's print at both places instead)."""
    return bool(np.all(white > 1e-3) and np.all(black < PATCH_CONTRAST_MAX * white))


def blur_mm(grey: U8, markers: Mapping[int, F64], size_mm: float) -> float:
    """The Gaussian width (mm) of the stickers' black/white edges: how blurred the photo is on the board."""
    widths = []
    for corners in markers.values():
        side_px = float(np.mean(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)))
        ppm = side_px / size_mm
        x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 3
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 3
        if x0 < 0 or y0 < 0 or x1 > grey.shape[1] or y1 > grey.shape[0]:
            continue
        patch = grey[y0:y1, x0:x1].astype(np.float32)
        gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3) / 8
        gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3) / 8
        mag = np.hypot(gx, gy)
        lo, hi = _percentile(patch, [5, 95])
        contrast = float(hi - lo)
        peak = float(_percentile(mag, 99.5))
        if contrast < 20 or peak <= 0:
            continue
        sigma_px = contrast / (peak * math.sqrt(2 * math.pi))
        widths.append(math.sqrt(max(sigma_px**2 - 0.5**2, 0.0)) / ppm)
    return float(_median(widths)) if widths else 0.0


def _grid_blur_mm(rect: _Rectified) -> float:
    """Without stickers: the same edge-width estimate on the printed grid lines. A thin line blurs into
    a bump rather than a step, which the step formula under-reads by about a third; hence the factor."""
    grey = cv2.cvtColor(rect.raw, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3) / 8
    lo, hi = _percentile(grey[grey > 0], [5, 95])
    peak = float(_percentile(np.hypot(gx, gy), 99.5))
    if peak <= 0 or hi - lo < 20:
        return 0.0
    sigma_px = float(hi - lo) / (peak * math.sqrt(2 * math.pi))
    return 1.5 * math.sqrt(max(sigma_px**2 - 0.5**2, 0.0)) / rect.ppm


# --------------------------------------------------------------------------------------------
# Cells.


def _weighted(a: npt.ArrayLike, b: npt.ArrayLike, wl: float) -> float:
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    return float(math.sqrt((wl * d[0]) ** 2 + d[1] ** 2 + d[2] ** 2))


_LUMA = np.array([0.2126, 0.7152, 0.0722], dtype=np.float32)


def _regions(grid: Grid, pose: Pose, cube: float, r: int, c: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The footprint core and the top-face core of a cell, as board-mm rectangles (x0, y0, x1, y1).

    The footprint is hidden by a cube from any camera position; the top face appears shifted by the
    parallax ``d``. Each is trimmed where a neighbouring cube could lean over it, and kept clear of the
    printed cell outline.
    """
    cx, cy = grid.cell_centre(r, c)
    dx, dy = pose.top_shift(cx, cy, cube)
    cell, half, slack = grid.cell_mm, cube / 2, 0.9
    core = max(1.0, half - 1.4)
    inner = cell / 2 - 0.9

    def axis(d: float) -> tuple[float, float, float, float]:
        lo, hi = -core, core
        if d > 0:
            lo = max(lo, -cell + half + d + slack)
        else:
            hi = min(hi, cell - half + d - slack)
        tlo, thi = d - core, d + core
        if d > 0:
            thi = min(thi, cell - half - slack)
        else:
            tlo = max(tlo, -cell + half + slack)
        return max(lo, -inner), min(hi, inner), max(tlo, -inner), min(thi, inner)

    fx0, fx1, tx0, tx1 = axis(dx)
    fy0, fy1, ty0, ty1 = axis(dy)
    return (cx + fx0, cy + fy0, cx + fx1, cy + fy1), (cx + tx0, cy + ty0, cx + tx1, cy + ty1)


@dataclass(frozen=True, slots=True)
class _Measure:
    """The light measured in a cell's two regions (linear RGB), before any reference is applied."""

    core: F32 | None
    top: F32 | None
    glare: float
    uneven_top: float = 0.0


def _board_distance(rho: F32, board_rgb: F32, board_lab: F32) -> tuple[float, float, float, float, float]:
    """How unlike the empty print a normalised reflectance is: (distance, luminance ratio, chroma distance,
    a* shift, b* shift).

    Chroma is compared at equal luminance, so a shadow (the print, only darker) keeps a small distance;
    the luminance ratio may fall to a deep shadow's but must not rise above the print's.
    """
    ratio = float(rho @ _LUMA) / max(float(board_rgb @ _LUMA), 1e-6)
    if ratio <= 1e-4:
        return 99.0, ratio, 99.0, 99.0, 99.0
    lab = lab_of(rho / ratio)
    da, db = lab[1] - float(board_lab[1]), lab[2] - float(board_lab[2])
    chroma = math.hypot(da, db)
    excess = max(0.0, math.log(ratio) - math.log(BRIGHTER_MAX), math.log(SHADOW_MIN) - math.log(ratio))
    return float(math.hypot(chroma * EMPTY_MAX / _hue_tolerance(ratio), 30.0 * excess)), ratio, chroma, da, db


def _hue_tolerance(ratio: float) -> float:
    """How far the print's hue may drift at this brightness: in a partial shadow one light is blocked
    and the others (of another colour, in mixed light) remain; in a deep shadow only the diffuse mix."""
    if ratio >= 0.92:
        return EMPTY_MAX
    if ratio >= 0.72:
        return EMPTY_MAX + (0.92 - ratio) / 0.2 * (SHADOW_HUE - EMPTY_MAX)
    if ratio >= 0.5:
        return SHADOW_HUE
    return max(6.0, SHADOW_HUE - (0.5 - ratio) / 0.2 * (SHADOW_HUE - 6.0))


def _classify(measure: _Measure, ref: F32, board_lab: F32, board_rgb: F32, cube_lab: Mapping[str, F64],
              l_weight: float = MATERIAL_L_WEIGHT) -> tuple[str, float, str, dict[str, float]]:
    regions = []
    feats: dict[str, float] = {}
    for name, rgb in (("core", measure.core), ("top", measure.top)):
        if rgb is None:
            continue
        rho = rgb / ref * board_rgb
        dist, ratio, chroma, da, db = _board_distance(rho, board_rgb, board_lab)
        regions.append((name, rho, dist))
        feats.update({f"e_{name}": dist, f"r_{name}": ratio, f"c_{name}": chroma, f"da_{name}": da, f"db_{name}": db})
        if name == "top":
            lab_r = lab_of(rho)
            feats.update({"L_top": lab_r[0], "a_top": lab_r[1], "b_top": lab_r[2]})
    if not regions:
        return "?", 0.0, "cell not visible", feats
    emptiness = max(d for _, _, d in regions)
    # The top face is never hidden by a neighbour and is lit like the print: it decides occupancy; the
    # footprint (part side faces) can only veto "empty".
    top_dist = next((d for name, _, d in regions if name == "top"), regions[0][2])
    core_dist = next((d for name, _, d in regions if name == "core"), top_dist)
    if emptiness < EMPTY_MAX:
        conf = min(1.0, (EMPTY_MAX - emptiness) / (EMPTY_MAX * 0.45))
        if conf < CONFIDENCE_THRESHOLD:
            return "?", conf, "cannot tell empty from occupied", feats
        if (min(feats.get("r_core", 1.0), feats.get("r_top", 1.0)) < SHADED_EMPTY
                and max(feats.get("c_core", 0.0), feats.get("c_top", 0.0)) >= SHADED_EMPTY_CHROMA):
            # Darker than the print's light: print in a shadow, or a cube the print's colour whose faces are
            # shaded; only the hue says empty, so the cell network cross-checks it (see _second_look).
            feats["shaded_empty"] = 1.0
        return ".", conf, "", feats
    if top_dist <= OCCUPIED_MIN or core_dist < EMPTY_MAX * 0.4:
        return "?", 0.25, "cannot tell empty from occupied", feats
    if feats.get("c_top", feats.get("c_core", 0.0)) < HUE_MIN:
        return "?", 0.2, "only brighter or darker than the board around it", feats
    fullness = top_dist
    rho_top = next((rho for name, rho, _ in regions if name == "top"), regions[0][1])
    lab = lab_of(rho_top)
    feats.update({"L": lab[0], "a": lab[1], "b": lab[2]})
    ranked = sorted((_weighted(lab, ref_lab, l_weight), letter) for letter, ref_lab in cube_lab.items())
    (d1, best), (d2, _) = ranked[0], ranked[1]
    # The best material as a number (features are floats): its index in "WMT", -1 for any other letter.
    feats.update({"d_best": d1, "d_second": d2, "best": float("WMT".index(best)) if best in "WMT" else -1.0})
    margin = (d2 - d1) / (d2 + d1 + 1e-6)
    occ_conf = min(1.0, 0.5 + 0.5 * (fullness - OCCUPIED_MIN) / (OCCUPIED_MIN * 0.5))
    col_conf = min(1.0, margin / 0.35, max(0.0, (MATERIAL_MAX - d1) / (MATERIAL_MAX * 0.5)))
    conf = min(occ_conf, col_conf)
    if best == "T":
        # A tooth is lighter than the print under the same light; print that only lost its yellow (in
        # another light's shadow) is not.
        feats["t_uncapped"] = conf
        conf = min(conf, max(0.0, (feats.get("r_top", 1.0) - 0.98) / 0.1))
    if conf < CONFIDENCE_THRESHOLD:
        return "?", conf, "cube colour unclear", feats
    return best, conf, "", feats


#: An empty reading of a cell darker than SHADED_EMPTY times the print's light (core or top), whose hue at
#: equal lightness still differs from the print's by SHADED_EMPTY_CHROMA or more, is cross-checked by the cell
#: network whatever the rules' confidence: print in a shadow keeps its hue, a pale cube the print's colour with
#: shaded faces does not quite.
SHADED_EMPTY = 0.85
SHADED_EMPTY_CHROMA = 1.5


#: Wood is the one material with a hue: its top is a warm, clearly coloured patch (yellow to orange), metal and
#: tooth are near grey. A hue does not change with how much light falls on the top, so where the light is
#: uncertain (the print beside the cube shaded, a board unlike the template) and the materials' ranking against
#: their reference colours is unclear, a top whose hue lies in this band and whose chroma stays above
#: WOOD_CHROMA_MIN at every light level tried is wood, whatever the shade of wood. (CIE Lab of the top over the
#: print's light: hue angle in degrees, b* and chroma.)
WOOD_HUE = (45.0, 105.0)
WOOD_B_MIN = 14.0
WOOD_CHROMA_MIN = 15.0
#: A print of wood's hue at least this chromatic: the rule does not apply there.
WOOD_PRINT_CHROMA = 10.0
#: The confidence of a material read by its sign (wood's hue, a tooth's light): below the cross-check line
#: (CROSS_CHECK_BELOW), so the cell network looks at every cell read this way.
MATERIAL_SIGN_CONFIDENCE = 0.7


def _wood_by_hue(measure: _Measure, refs: Sequence[F32], board_lab: F32, board_rgb: F32,
                 feats: Mapping[str, float]) -> bool:
    """Whether a cell the rules found occupied (clearly unlike the print) but of unclear material is wood by its
    hue alone, at every light level in ``refs``."""
    if _wood_print(board_lab):
        return False  # on a print of wood's own hue, hue cannot tell the cube from the print
    return _top_holds(measure, refs, board_rgb, feats,
                      lambda _lum, a, b: b >= WOOD_B_MIN and _wood_coloured(a, b, WOOD_CHROMA_MIN))


def _top_holds(measure: _Measure, refs: Sequence[F32], board_rgb: F32, feats: Mapping[str, float],
               test: Callable[[float, float, float], bool]) -> bool:
    """Whether a cell the rules found occupied (its top clearly unlike the print) has a top that passes
    ``test`` (its CIE L*, a*, b* over the print's light) under every light in ``refs``: a material's sign."""
    if measure.top is None or feats.get("e_top", 0.0) < OCCUPIED_MIN:
        return False
    labs = _top_labs(measure, refs, board_rgb)
    return labs is not None and all(test(*lab) for lab in labs)


def _sticker_light(refs: Sequence[tuple[F64, F32, F32]], loc: Located, x: float, y: float, board_rgb: F32,
                   local: F32) -> F32 | None:
    """The print's light at (x, y) as the stickers' white patches give its colour (weighted by nearness in the
    photo), at the local print's brightness: a second estimate of the light's colour, independent of the print
    beside the cell (which, in mixed light, may be lit by another lamp than the cube's top). None without
    patches."""
    if not refs:
        return None
    at = cv2.perspectiveTransform(np.array([[[x, y]]], dtype=np.float64), loc.hom).reshape(2)
    white, black = _patches_at(refs, at)
    light = white - black
    if np.any(light <= 1e-6):
        return None
    ref = np.asarray(light * board_rgb, dtype=np.float32)
    return np.asarray(ref * float(local @ _LUMA) / max(float(ref @ _LUMA), 1e-9), dtype=np.float32)


def _top_labs(measure: _Measure, refs: Sequence[F32], board_rgb: F32) -> list[tuple[float, float, float]] | None:
    """The top's CIE Lab against each assumed light in ``refs`` (None when a light is not measured)."""
    if measure.top is None or any(bool(np.any(ref <= 1e-6)) for ref in refs):
        return None
    return [tuple(float(v) for v in lab_of(measure.top / ref * board_rgb)) for ref in refs]  # type: ignore[misc]


#: A tooth is white: on a calibrated grid whose print is coloured or darker (so not itself white), a top that
#: is near grey (chroma at most TOOTH_CHROMA_MAX), at least TOOTH_L_MIN light at every light level tried, and
#: not darker than the print beside it by more than TOOTH_SHADE (no shadow) is a tooth, even where it is no
#: lighter than that print (the rules' "a tooth is lighter than the print" is for prints as light as a tooth).
#: (At 80 a pale metal cube, L* 88 in its light, passed on a development photo: metal reaches L* 80-88 there.)
TOOTH_L_MIN = 84.0
TOOTH_CHROMA_MAX = 8.0
TOOTH_SHADE = 0.9
#: The print is itself tooth-like (white or near it) when it is as light as this and as grey as TOOTH_CHROMA_MAX.
TOOTH_PRINT_L = 80.0


def _tooth_by_lightness(measure: _Measure, refs: Sequence[F32], board_lab: F32, board_rgb: F32,
                        feats: Mapping[str, float]) -> bool:
    """Whether a cell the rules found occupied but of unclear material is a tooth by its light, near-grey top."""
    print_grey = math.hypot(float(board_lab[1]), float(board_lab[2])) <= TOOTH_CHROMA_MAX
    if float(board_lab[0]) >= TOOTH_PRINT_L and print_grey:
        return False  # a white print: its light cannot tell a tooth from the print
    return _tooth_top(measure, refs, board_rgb, feats)


def _tooth_top(measure: _Measure, refs: Sequence[F32], board_rgb: F32, feats: Mapping[str, float]) -> bool:
    """Whether a top is a tooth's under every light in ``refs``: not shaded (TOOTH_SHADE), at least TOOTH_L_MIN
    light and at most TOOTH_CHROMA_MAX in chroma. (_tooth_by_lightness; and a tooth on a print deep in one colour,
    DEEP_PRINT, in the stickers' light alone: their white patches give the light's colour in every channel, where
    the deep print gives almost nothing in one, and pale wood is yellow to orange in any light near white.)"""
    if feats.get("r_top", 0.0) < TOOTH_SHADE:
        return False
    return _top_holds(measure, refs, board_rgb, feats,
                      lambda lum, a, b: lum >= TOOTH_L_MIN and math.hypot(a, b) <= TOOTH_CHROMA_MAX)


#: No cube's top is darker than this (CIE L* over the print's light; the development photos' darkest cubes:
#: metal 58, wood 65, teeth 89 at their 5th percentiles): a darker top is print in a deep shadow.
CUBE_L_MIN = 45.0

#: Metal is grey, darker than a tooth: on a calibrated grid whose print is not itself grey, a top of chroma at
#: most METAL_CHROMA_MAX, not yellow (b* at most METAL_B_MAX: a tooth is ivory, wood yellow to orange) and
#: between METAL_L_MIN and METAL_L_MAX light at every light level tried (the print taken darker and lighter,
#: and the stickers' light) is metal. (Both renderers' development photos, measured over the print's light:
#: metal L* 57-80, b* -14-0; teeth L* 89-99, b* -2-11; wood b* 19-39.)
METAL_L_MIN = CUBE_L_MIN
METAL_L_MAX = 84.0
METAL_CHROMA_MAX = 15.0
METAL_B_MAX = 2.0
#: A print this grey (chroma) is no reference that tells a grey cube from print in a shadow.
METAL_PRINT_CHROMA = 10.0


def _metal_by_grey(measure: _Measure, refs: Sequence[F32], board_lab: F32, board_rgb: F32,
                   feats: Mapping[str, float]) -> bool:
    """Whether a cell the rules found occupied but of unclear material is metal by its grey, mid-light top."""
    if math.hypot(float(board_lab[1]), float(board_lab[2])) <= METAL_PRINT_CHROMA:
        return False  # a grey print: in a shadow it is as grey as metal
    return _top_holds(measure, refs, board_rgb, feats,
                      lambda lum, a, b: METAL_L_MIN <= lum <= METAL_L_MAX and b <= METAL_B_MAX
                      and math.hypot(a, b) <= METAL_CHROMA_MAX)


#: A print whose light in its darkest channel is below this fraction of its brightest (a deep blue, red or
#: green) gives a top much brighter than it a colour extrapolated from almost nothing in that channel.
DEEP_PRINT = 0.15
DEEP_PRINT_REASON = "the print is too deep a colour to tell a tooth from pale wood on it"
WOOD_PRINT_SHADE_REASON = "darker than the print's light on a print of wood's colour (a wood cube's top looks the same)"


def _calibrated_doubts(label: str, conf: float, reason: str, feats: Mapping[str, float], ref: F32,
                       board_lab: F32) -> tuple[str, float, str]:
    """Two readings a calibrated grid's print cannot vouch for, found on development photos of the second
    renderer (seed 510): a tooth on a print deep in one colour (a pale wood cube on a deep blue print read as
    a tooth with confidence 1.0: its red was extrapolated from a print with almost none), and an empty reading
    darker than the print's light on a print of wood's colour (a shaded wood cube on a wood-coloured print read
    empty, the network agreeing at 0.99). Both become '?', with reasons the first network alone may not override;
    both networks together may (PAIR_REASONS). Where the stickers' patches give the light, they may vouch for a
    tooth on the deep print instead (_tooth_top in their light, in the caller)."""
    if label == "T" and float(ref.min()) < DEEP_PRINT * float(ref.max()):
        return "?", min(conf, 0.3), DEEP_PRINT_REASON
    if label == "." and feats.get("shaded_empty") and _wood_print(board_lab):
        return "?", min(conf, 0.3), WOOD_PRINT_SHADE_REASON
    return label, conf, reason


def _wood_print(board_lab: F32) -> bool:
    """Whether the print (CIE Lab) is of wood's own hue, chromatic enough (WOOD_PRINT_CHROMA) that a wood cube's
    top may look like it."""
    return _wood_coloured(float(board_lab[1]), float(board_lab[2]), WOOD_PRINT_CHROMA)


def _wood_coloured(a: float, b: float, chroma: float) -> bool:
    return math.hypot(a, b) >= chroma and WOOD_HUE[0] <= math.degrees(math.atan2(b, a)) <= WOOD_HUE[1]


def _measure(rect: _Rectified, grid: Grid, pose: Pose, cube: float, r: int, c: int) -> _Measure:
    core_box, top_box = _regions(grid, pose, cube, r, c)
    out: list[F32 | None] = []
    glare = 0.0
    for x0, y0, x1, y1 in (core_box, top_box):
        if x1 - x0 < 0.6 or y1 - y0 < 0.6:
            out.append(None)
            continue
        sl = rect.rect(x0, y0, x1, y1)
        if sl is None:
            out.append(None)
            continue
        mean, clipped, inside = rect.stats(sl)
        if not inside:
            out.append(None)
            continue
        glare = max(glare, clipped)
        out.append(mean)
    top_sl = rect.rect(*top_box) if out[1] is not None else None
    return _Measure(out[0], out[1], glare, rect.unevenness(top_sl) if top_sl is not None else 0.0)


def read_board(image: U8, template: Template, *, cube_lab: Mapping[str, Sequence[float]] | None = None,
               net: CellNet | None | bool = True, read_unfamiliar: bool = False,
               check: CellNet | None | bool = True) -> BoardReading:
    """Reads the template's gear grids from a BGR photo. ``net``: the cell network that takes a second look
    at undecided cells (True: the shipped one; False or None: the rules alone); ``check``: the second network
    (True: the shipped one, if any; False or None: not asked; not asked without ``net`` either). On calibrated
    grids, where both give a cell the same label at NET_PAIR_ACCEPT, the cell takes it: below the first's own
    thresholds, past the rules' leaning, and for reasons the first alone may not decide (PAIR_REASONS, _paired).

    A board that looks unlike its template or calibration (its print measured against the stickers' patches
    far from the template's, or a grid printed unlike the board around it) is refused cell by cell with
    UNFAMILIAR_REASON: the rules and the network were tuned on one board's look and measured to be
    confidently wrong on others. A calibrated board whose print is too little seen to check it against its
    calibration (fewer than LIKE_PRINT_MIN flat cells in all, or too few cells like its print where the stickers'
    light needed LIKE_PRINT_SHIFTED of them: _unvouched_note) is refused with UNVOUCHED_REASON.
    ``read_unfamiliar=True`` reads either anyway (for development and the benchmark's ``--read-unfamiliar``), with
    the extra checks for such boards."""
    read = _read_cells(image, template, cube_lab)
    template = read.template or template  # the grids where this photo's printed lines put them
    read = replace(read, cells=_covered(read, template))
    model = default_net() if net is True else (net or None)
    def net_decides(key: CellKey) -> bool:
        return key[0] not in read.unfamiliar or (NET_ON_CALIBRATED and key[0] in read.calibrated)

    pair = default_check() if check is True else (check or None)
    cells_by_key = (_second_look(read, template, model, familiar=net_decides, check=pair)
                    if model is not None else read.cells)
    if model is not None:
        if pair is not None:
            cells_by_key = _photo_colours(cells_by_key, read, template, pair, net_decides)
        cells_by_key = _against_photo_colours(cells_by_key, read)
        cells_by_key = _flat_on_pale(cells_by_key, read, template, pair)
    vetoed = _ring_veto(cells_by_key, read, template)
    cells_by_key = (_edges_second_look(cells_by_key, vetoed, read, template, model, pair) if model is not None
                    else vetoed)
    if not read.refuse and not _still_vouched(read, template, cells_by_key):
        read = replace(read, refuse=True, notes=_refused_notes(read.notes, _unvouched_note(read.vouching)))
    if read.refuse and not read_unfamiliar:
        refused = UNVOUCHED_REASON if UNVOUCHED_NOTE in read.notes else UNFAMILIAR_REASON
        cells_by_key = {k: replace(c, label="?", confidence=0.0, reason=refused) for k, c in cells_by_key.items()}
    keys = list(read.cells)
    cells = [cells_by_key[k] for k in keys]
    grids = {g.name: tuple("".join(cells_by_key[(g.name, r, c)].label for c in range(g.cols)) for r in range(g.rows))
             for g in template.gear_grids}
    loc = read.loc
    blur = blur_mm(read.grey, loc.markers, template.markers.size_mm) if loc.markers else _grid_blur_mm(read.rect)
    retake = retake_reason(loc.note, cells, blur)
    notes = ((loc.note,) if loc.note else ()) + read.notes
    return BoardReading(template.name, template.board, grids, tuple(cells), retake, tuple(sorted(loc.markers)),
                        blur, loc.method, notes)


@dataclass(frozen=True)
class _CellsRead:
    """What the rules read, with what a second look needs: the rectified grids and the camera."""

    cells: dict[CellKey, Cell]
    rect: _Rectified
    loc: Located
    grey: U8
    notes: tuple[str, ...] = ()
    #: Grids unlike the board the cell network learnt (printed unlike the board around them, or the whole
    #: print far from the template's): the network may only veto there, and the rules check more.
    unfamiliar: frozenset[str] = frozenset()
    #: The board's print is unlike its template's or calibration's: refused unless asked to read it.
    refuse: bool = False
    #: Per grid, how far the printed outline's ink reaches into a cell (mm).
    line_reach: Mapping[str, float] = field(default_factory=dict)
    #: The template the cells were read with: the grids where this photo's printed lines put them.
    template: Template | None = None
    #: Grids read against their calibrated print (Template.band_ratio): the cell network, trained on both
    #: renderers' calibrated boards, may decide there too.
    calibrated: frozenset[str] = frozenset()
    #: Per grid, the print's reflectance (linear RGB) the cells were read against.
    print_rgb: Mapping[str, F32] = field(default_factory=dict)
    #: Where cells vouched for the calibrated board (_vouching_cells): what to ask them again once every reader has
    #: read them (_still_vouched); None where none did, or the board was refused already.
    vouching: _Vouching | None = None


@dataclass(frozen=True)
class _Vouching:
    """The evidence a calibrated board was read on (see _vouching_cells): the calibrated grids' print light, the
    cells like that print, how many must be, the grids whose print strips may stand in (None: none may), and the
    cells the rules' first pass found to be cubes (no evidence of the print, whatever they are read as in the end)."""

    bands: Mapping[str, Sequence[_BandSample]]
    like_cells: tuple[CellKey, ...]
    need: int
    strips: Mapping[str, Sequence[_BandSample]] | None
    first_cubes: frozenset[CellKey]


#: Undecided cells the network may decide: questions of shape. A hidden board or a cell out of the photo stays
#: '?' (the photo is what is wrong there), and so does glare but on calibrated grids (GLARE_LOOK_ON_CALIBRATED).
SECOND_LOOK_REASONS = frozenset({
    "could be a neighbouring cube's shadow", "cube colour unclear", "cannot tell empty from occupied",
    "a shadow beside it that only a cube there could cast", "only brighter or darker than the board around it"})


def cell_patches(read: _CellsRead, template: Template, keys: Sequence[CellKey]) -> F32:
    """The cell network's inputs for these cells (see vision.cellnet)."""
    rect, pose, cube = read.rect, read.loc.pose, template.cube_mm
    centres = [template.grids[g].cell_centre(r, c) for g, r, c in keys]
    refs = [[read.cells[k].features.get(f, 0.0) for f in ("ref_r", "ref_g", "ref_b")] for k in keys]
    return cellnet.patches(rect.raw, rect.x0, rect.y0, rect.ppm, centres, refs,
                           [pose.top_shift(x, y, cube) for x, y in centres], cube, [read.print_rgb[k[0]] for k in keys])


def _net_reads(net: CellNet, read: _CellsRead, template: Template, keys: Sequence[CellKey]) -> F32:
    """A network's probabilities for these cells (``cellnet.VIEWS`` views of each cell's patch); the patches of half
    of a large batch are cut and read on the network's helper thread (``CellNet.probabilities_of``)."""
    return net.probabilities_of(lambda i, j: cell_patches(read, template, keys[i:j]), len(keys), views=cellnet.VIEWS)


#: The network may decide undecided cells of calibrated grids unlike the template's print (it was trained on
#: both renderers' calibrated boards, with domain randomisation), within the rules' leaning (_leaning_allows).
#: Second-renderer development seeds, calibrated: 25-32 % wrong or '?' with it (501, 506-511), 28-36 % without
#: (501, 506-508); no confident error with the leaning, some without it (seeds 508, 509, 511).
NET_ON_CALIBRATED = True

#: On calibrated grids the network also looks at cells the rules leave to glare: a pale print or a tooth's top
#: clipped white by the exposure, or a highlight's halo (the network saw such cells on both renderers' calibrated
#: boards, normalised by the print's light beside them; the cube's outline and side faces show through).
GLARE_LOOK_ON_CALIBRATED = True

#: The reason of a cell whose top or footprint is clipped by glare.
GLARE_REASON = "glare"
#: The labels a glare cell's ``glare_rules`` feature indexes.
GLARE_RULES = "WMT.?"
#: A glare cell takes the network's answer only at this probability or above, and only where the rules, reading
#: past the glare, read the same or cannot tell (a highlight's halo adds light the print's reference beside the
#: cell does not have). On development seed 509 a tooth in a halo over a pale print was empty to both at p 0.990.
GLARE_ACCEPT = 0.995
#: Where the rules cannot tell, the network decides a glare cell (with the second's word, _confirmed): only at this
#: probability or above ...
#: On development seeds 508-511 (12 MP, calibrated) the 95 such cells it gave 0.99 or more with tops not clipped
#: white were all right, and the two wrong had tops clipped white (below); but where the rules read the same, two
#: wood cubes under glare were teeth to both at 0.990-0.992 (seed 511, photo 0). It was 0.999 until then.
GLARE_ALONE_ACCEPT = 0.995
#: ... and only if less than this fraction of the top's region is clipped in every channel: a top clipped white
#: shows no colour to tell its material by. On development seed 510 (photo 81) a red light clipped every top on
#: a deep green print, and the network took a tooth for wood at p 0.9997.
GLARE_WHITE_MAX = 0.2
#: On a grid whose print calibration kept as clipped white (Template.clipped_print: a print too pale for the
#: exposure), glare is the print itself, not a spot: where the rules cannot tell, the network decides at this
#: probability (with the second's word, _confirmed). On development seeds 508, 509 and 514 (11 such boards, 242
#: glare cells) its answers at 0.995 or above were all right (72); one at 0.994 was wrong. There the rules' tooth
#: counts as "cannot tell": a pale print clipped white is a tooth's top to them (on seed 509, photo 49, they read 22
#: empty cells of such a grid as teeth, and the network, right, read them empty at 0.995 or more). Until the
#: fifteenth session it decided tops clipped white there too; on seed 535 (never looked at before) both networks
#: read three teeth clipped white on such a print empty, at 0.996-0.998 and 0.98-0.995: a top clipped white on a
#: print clipped white is the print or a tooth, which colour cannot tell. Now such a top is read only where the
#: rules read it empty, or geometry finds the cell flat (_flat_on_pale: the three teeth measured 0.23-0.79 against
#: PALE_FLAT_EDGES 0.1; of the 53 empty cells with such tops the network found empty at 0.995 or more on seed 509,
#: photos 49 and 94, and seed 535, photo 12, 43 measured 0.1 or less).
GLARE_PALE_ACCEPT = 0.995

#: On calibrated grids the network's answer for a cell outside glare stands at this probability or above:
#: past the rules' leaning (_leaning_allows), and over a rule answer it finds unlikely (the cell is the network's,
#: not '?'). On development seeds 508-513 and 515 (12 MP, calibrated; 19,449 cells it saw outside glare) none of
#: its answers at 0.98 or above was wrong but two on a board refused as unlike its calibration; the rules'
#: commonest miss there is a metal cube read as a tooth. Glare cells keep their own rules (above): a top clipped
#: white there fooled it. Like every answer of the first network on a calibrated grid, it stands only with the
#: second network's word (_confirmed).
NET_ALONE_ACCEPT = 0.99

#: Cells the rules decided below this confidence are shown to the network too, as a cross-check.
CROSS_CHECK_BELOW = 0.8
#: A cross-checked cell whose rule label the network gives less than this probability becomes '?'.
DISAGREE_BELOW = 0.5
DISAGREE_REASON = "the rules and the cell network disagree"
#: Two networks that learnt from different photos (cellnet.MODEL_PATH and cellnet.CHECK_PATH) are rarely sure of
#: the same wrong answer: on a calibrated grid, a cell the rules leave '?' for one of PAIR_REASONS takes the label
#: both give this probability or more (_paired). On development seeds 508-513 and 515 (12 MP, calibrated; 22,464
#: cells) that read 158 cells more outside glare, none wrong. At 0.93 two were wrong (seed 510, photo 67: a tooth
#: empty at 0.933 and 0.971; seed 511, photo 48: metal wood at 0.939 and 0.945). Outside _calibrated_doubts, the
#: first network alone at 0.95 was wrong twice where the second gave 0.48-0.53 (seed 510, photo 93; seed 512, photo
#: 38). The pair is not held to the rules' leaning (_leaning_allows): it was measured without it.
NET_PAIR_ACCEPT = 0.95
#: The reasons a cell may be decided by the two networks' agreement: questions of shape, the two readers'
#: disagreement, and the two readings a calibrated print cannot vouch for (_calibrated_doubts), which the first
#: network alone may not decide. Glare cells only where the rules, reading past the glare, read the same
#: (_glare_pair): where they could not tell, both networks were sure and wrong alike (development seed 510, photo
#: 81: metal under a red lamp read as wood at 0.97-1.0 by both; seeds 509/49 and 509/94: metal on a print kept as
#: clipped white read empty at 0.98-0.999). With the rules' reading, 77 glare cells more on the development seeds,
#: none wrong (the nearest wrong, metal as a tooth, at 0.88). Seeds looked at later showed wood and metal read as
#: teeth so, and since the twenty-ninth session the pair reads no tooth under glare (_glare_pair; the first network
#: alone at GLARE_ACCEPT still may, with the rules' tooth and the second's word: _glare_allows, _confirmed). Since the
#: thirty-second, a glare cell whose top's place has no clipped pixel (GLARE_CLEAR_TOP) is the pair's whatever the
#: rules past the glare read, a tooth still excepted, and an empty cell where they read a cube (510/81's tops were
#: clipped). Since the thirty-ninth, a tooth whose top is measured whole as a tooth's (_tooth_past_glare), and no
#: wood or metal on a top clipped white (_material_on_white).
PAIR_REASONS = SECOND_LOOK_REASONS | {DISAGREE_REASON, DEEP_PRINT_REASON, WOOD_PRINT_SHADE_REASON}

#: On calibrated grids (boards neither reader was tuned on) every cell the rules decided is cross-checked, however
#: sure the rules were. At 2000x1500 on development seed 509 the rules read a metal cube as a tooth at 0.83.
CROSS_CHECK_CALIBRATED = True
#: On calibrated grids (boards the network never saw) a rule answer needs this much of the network's agreement,
#: or it is '?'. At 2000x1500 on development seed 509 (photo 67) a metal cube the rules read as a tooth at 0.83
#: had the network's 0.51. Development seeds 508-511 (12 MP): 0.3 % more '?' than at DISAGREE_BELOW.
CALIBRATED_DISAGREE_BELOW = 0.8


#: A tooth the rules read on a calibrated grid with little margin (their confidence under NARROW_TOOTH: its top's
#: colour hardly nearer a tooth's than the next material's, or barely lighter than the print) needs the first
#: network's agreement at NET_PAIR_ACCEPT rather than CALIBRATED_DISAGREE_BELOW; under it the second network settles
#: the cell as where the rules lead (_rules_lead, RULES_LEAD_CHECK). The tooth is the rules' commonest wrong cube (a
#: pale wood or metal top), and there the first network is least sure. Development seeds 564 (photo 8) and 565
#: (photo 39): pale wood read as a tooth by the rules at 0.573 and 0.561, the first network agreeing at 0.943 and
#: 0.819, the second giving the tooth 0.678 and 0.467 (two confident errors, now '?'). On the development seeds
#: (530, 548, 549 x 20; 556-562, 564, 565 x 60; 566 was read after) the rules' teeth under NARROW_TOOTH that the
#: first network confirmed under NET_PAIR_ACCEPT were those two and 8 right teeth (0.50-0.59); the second network
#: gave those 0.70-0.966, and the one at 0.70 (561/31) is '?' now. Teeth read by the rules at 0.6 or more with so
#: weak a confirmation (303 on those seeds) were all right; asking the second network of them too cost 72 right
#: cells (the thirty-first session). The bound lies just over the two wrong teeth: it is set from two cells.
NARROW_TOOTH = 0.6


def _agreement_needed(cell: Cell, calibrated: bool) -> float:
    """How sure the first network must be of the rules' label for their reading to stand (_second_look): on a
    calibrated grid CALIBRATED_DISAGREE_BELOW, or NET_PAIR_ACCEPT for a tooth read with little margin (NARROW_TOOTH);
    elsewhere DISAGREE_BELOW."""
    if not calibrated:
        return DISAGREE_BELOW
    return NET_PAIR_ACCEPT if cell.label == "T" and cell.confidence < NARROW_TOOTH else CALIBRATED_DISAGREE_BELOW


def _leaning_allows(cell: Cell, label: str, calibrated: bool) -> bool:
    """Whether the network's answer for an undecided cell may stand: on a calibrated grid (a board the network
    never saw), a cell whose top the rules found unlike the print and ranked against the materials takes the
    network's answer only where it is the material the rules' colours ranked first and the top is as light as a
    cube's can be (an earlier network, before the print's colour was among its inputs, alone called a pale metal
    cube a tooth, and a shaded one empty, at p >= 0.99; and, with the rules ranking metal first, print in a deep
    shadow metal). Below NET_ALONE_ACCEPT, that is; at or above it only the light floor, the flat top, lit print
    where a top would be and, for an empty answer, a lit top like the cube the rules ranked first hold (_unlike_a_top,
    TOP_IS_CUBE). A cell the rules did not rank takes any answer, but no cube where a top's place shows lit print
    (TOP_IS_PRINT)."""
    if not calibrated:
        return True
    if "best" not in cell.features:
        return not _unlike_a_top(cell, label)
    best = int(cell.features["best"])
    return best >= 0 and "WMT"[best] == label and not _unlike_a_top(cell, label)


#: A network's cube label is not taken for a cell where the place of the cube's top is split this much (its halves'
#: light differs by this fraction, the feature ``u_top``: the top is one flat face, so an edge runs across that
#: place: a side face, a shadow's edge, or a cube standing off the middle of its cell). Development seed 538 (photo
#: 16, read once, before any change): a tooth standing off the middle, its grey side face where its top belongs,
#: read as metal by both networks at 0.99 and 0.987 (u_top 0.54). On seeds 530-538 the networks gave a cube label
#: to 1,163 cells the rules left '?': 2 right ones and that wrong one had u_top 0.4 or more.
SPLIT_TOP = 0.4


#: A network's cube label is not taken for a cell where the place of the cube's top shows the print itself: lit
#: like it (TOP_PRINT_LIT to BRIGHTER_MAX of its light) and within this distance of its colour (``e_top``, the
#: rules' distance from the print, _board_distance: the hue at equal luminance, on the scale where EMPTY_MAX, 4.5,
#: bounds an empty cell; 1.0 is 1-1.5 units of a*b* at these lights). A cube would stand there with its own top
#: face, above any neighbour's shadow. Development seed 561, photo 5: two empty
#: cells beside a wood cube and a tooth, each with the neighbour's shadow over its footprint and lit print where a
#: top would be (e_top 0.08 and 0.15), read as metal by both networks at 0.97-0.998 against the rules' empty
#: reading. On the development seeds 530, 548, 549 (20 photos each) and 556-562 (60 each), of the cells the
#: networks decided as cubes only those two and one tooth (seed 559, photo 47: e_top 0.34, on a cream print) lay
#: within it; a metal cube of the print's own colour was read right at 1.68 (seed 561, photo 27).
TOP_IS_PRINT = 1.0


#: A network's empty label is not taken for a cell whose top the rules found unlike the print (they ranked it against
#: the cubes' colours), lit like the print (TOP_PRINT_LIT to BRIGHTER_MAX of its light) and within this distance of
#: the cube colour they ranked first (``d_best``, _weighted in Lab): a cube's top, as near its colour as most right
#: readings are. Development seed 566, photo 12: a cream tooth on a mauve print, as light as the print (so the rules'
#: tooth was capped under CONFIDENCE_THRESHOLD: "cube colour unclear"), 3.8 from the tooth's colour and 17 from the
#: next; both networks read it empty (0.997, 0.967). On the development seeds 556-562 and 564-568 (60 photos each,
#: each board calibrated), the lit teeth the rules ranked lay at a median 3.1 of the tooth's colour (three quarters
#: under 4.5); of the 69 empty cells lit so where the rules had ranked a cube, the nearest lay at 6.4.
TOP_IS_CUBE = 5.0


def _unlike_a_top(cell: Cell, label: str) -> bool:
    """Whether a cube label is given to a top darker than any cube's (print in a deep shadow; CUBE_L_MIN), to a
    place of a top that is not one flat face (SPLIT_TOP), or to one that shows lit print (TOP_IS_PRINT); or an empty
    label to a lit top the rules found unlike the print and like a cube (TOP_IS_CUBE)."""
    f = cell.features
    if label not in "WMT":
        return (label == "." and f.get("best", -1.0) >= 0 and f.get("d_best", math.inf) <= TOP_IS_CUBE
                and TOP_PRINT_LIT <= f.get("r_top", 0.0) <= BRIGHTER_MAX)
    if "e_top" in f and f["e_top"] <= TOP_IS_PRINT and TOP_PRINT_LIT <= f.get("r_top", 0.0) <= BRIGHTER_MAX:
        return True
    return "best" in f and (f.get("L", CUBE_L_MIN) < CUBE_L_MIN or f.get("u_top", 0.0) >= SPLIT_TOP)


#: A calibrated cell whose print reference (the print's light beside it, features ``ref_r``, ``ref_g``, ``ref_b``) is
#: under this fraction of its grid's median reference lies in a shadow (_shaded_reference): its cube's top may stand
#: in other light than that print, and the top normalised by it shows a colour of neither the cube nor the light (a
#: lamp-lit top over print in a bluish shadow turns warm). The rules then read the top over the interval between
#: that light and the lit print's (_classify_over_light); the networks see only the normalised patch, so their
#: answer does not overrule the rules' leaning there (_second_look, _paired). Development seed 581 (photo 23, read
#: once, before any change): a metal cube beside a large shadow, its reference 0.48 of its grid's, read as wood by
#: both networks at 0.999 against the rules' leaning to a tooth. On seeds 509 and 577-581 (350 photos) the networks
#: read 133 other cells against the rules' leaning, all right, at 0.89 of their grid's reference or more; of the
#: 5,172 cubes they decided, the next lowest lay at 0.61 (metal, with the rules' leaning).
SHADED_REFERENCE = 0.75


def _grid_light(cells: Mapping[CellKey, Cell]) -> dict[str, float]:
    """Per grid, the median luminance of its cells' print references (_shaded_reference)."""
    lums: dict[str, list[float]] = {}
    for key, cell in cells.items():
        if "ref_r" in cell.features:
            lums.setdefault(key[0], []).append(_reference_luminance(cell))
    return {grid: float(np.median(values)) for grid, values in lums.items()}


def _reference_luminance(cell: Cell) -> float:
    f = cell.features
    return float(_LUMA[0] * f["ref_r"] + _LUMA[1] * f["ref_g"] + _LUMA[2] * f["ref_b"])


def _shaded_reference(cell: Cell, grid_light: Mapping[str, float]) -> bool:
    """Whether a cell's print reference lies in a shadow: under SHADED_REFERENCE of its grid's median reference."""
    light = grid_light.get(cell.grid)
    return "ref_r" in cell.features and light is not None and _reference_luminance(cell) < SHADED_REFERENCE * light


def _against_leaning(cell: Cell, label: str) -> bool:
    """Whether ``label`` is a cube other than the one the rules' colours ranked first (feature ``best``)."""
    best = int(cell.features.get("best", -1))
    return label in "WMT" and best >= 0 and "WMT"[best] != label


def _glare_allows(cell: Cell, label: str, p: float, pale: bool = False) -> bool:
    """Whether the network's answer (at probability ``p``) for a glare cell may stand: the rules, reading past the
    glare, read the same and the network is sure at GLARE_ACCEPT, or they cannot tell, the network is sure at
    GLARE_ALONE_ACCEPT (on a ``pale`` grid, one whose print is clipped white itself, where the rules' tooth is no
    answer: GLARE_PALE_ACCEPT) and the top is not clipped white. On a ``pale`` grid an empty answer never stands
    here: only where the cell is found flat (_flat_on_pale). Wood or metal never stands on a top clipped white
    (_material_on_white)."""
    rules = _glare_rules_label(cell, pale)
    if _material_on_white(cell, label):
        return False
    if pale and label == ".":
        # On a print kept as clipped white, an empty reading needs the cell found flat (_flat_on_pale): development
        # seed 509, photo 49, a metal cube whose top was not clipped (unlike the print around it) was empty to both
        # networks at 0.999 and 0.998.
        return False
    if rules == label:
        return p >= GLARE_ACCEPT
    if rules != "?":
        return False
    return p >= (GLARE_PALE_ACCEPT if pale else GLARE_ALONE_ACCEPT) and cell.features["white"] < GLARE_WHITE_MAX


def _unsure(cell: Cell) -> bool:
    """Whether the rules decided a cell with little margin (or read it empty in a shade of another hue): such
    answers are always cross-checked by the network."""
    return cell.confidence < CROSS_CHECK_BELOW or bool(cell.features.get("shaded_empty"))


def _second_look(read: _CellsRead, template: Template, model: CellNet, *,
                 familiar: Callable[[CellKey], bool] = lambda _k: True,
                 check: CellNet | None = None) -> dict[CellKey, Cell]:
    """Undecided cells the network is very sure of take its label; the rest keep their '?' and reason.
    Cells the rules decided with little margin are cross-checked: if the network finds their label
    unlikely, the two readers disagree and the cell is '?' (on a calibrated grid, the network's answer when it
    is sure at NET_ALONE_ACCEPT; the rules' label is kept in the ``rules_label`` feature). Then, on calibrated
    grids, the ``check`` network must confirm each answer the first gave (_confirmed), and is asked about the
    cells still '?' that the first is sure of at NET_PAIR_ACCEPT (_paired). The network's answer at NET_ALONE_ACCEPT
    does not overrule the rules' leaning where the cell's print reference lies in a shadow (_shaded_reference)."""
    undecided = [k for k, c in read.cells.items() if c.label == "?" and "ref_r" in c.features and familiar(k)
                 and (c.reason in SECOND_LOOK_REASONS or (c.reason == GLARE_REASON and k[0] in read.calibrated
                                                          and GLARE_LOOK_ON_CALIBRATED))]
    checked = [k for k, c in read.cells.items() if c.label != "?" and "ref_r" in c.features
               and (_unsure(c) or (CROSS_CHECK_CALIBRATED and k[0] in read.calibrated))]
    keys = undecided + checked
    # (The print references are the rules': the same for every step of the second look.)
    light = _grid_light(read.cells)
    if not keys:
        return (_paired(read.cells, read, template, model, check, familiar, light) if check is not None
                else read.cells)
    probs = _net_reads(model, read, template, keys)
    out = dict(read.cells)
    # Cells the first network's answer decides: (that reading, the reading without it).
    said: dict[CellKey, tuple[Cell, Cell]] = {}
    # The rules' teeth the first network confirmed under NET_PAIR_ACCEPT, for the second network (_confirmed).
    teeth: list[CellKey] = []
    for i, (key, p) in enumerate(zip(keys, probs, strict=True)):
        cell = out[key]
        best, answer = _net_answer(p)
        feats = {**cell.features, **answer}
        calibrated = key[0] in read.calibrated
        alone = (calibrated and familiar(key) and cell.reason != GLARE_REASON and p[best] >= NET_ALONE_ACCEPT
                 and not _unlike_a_top(cell, cellnet.LABELS[best])
                 and not (_shaded_reference(cell, light) and _against_leaning(cell, cellnet.LABELS[best])))
        if i >= len(undecided):
            agree = float(p[cellnet.LABELS.index(cell.label)])
            # What the rules read, whatever the cell ends as (vision.retake weighs it against another photo's).
            feats["net_agree"], feats["rules_read"] = agree, float(cellnet.LABELS.index(cell.label))
            if agree >= _agreement_needed(cell, calibrated):
                out[key] = replace(cell, features=feats)
                if calibrated and cell.label == "T" and agree < NET_PAIR_ACCEPT:
                    teeth.append(key)
            elif alone:
                feats["rules_label"] = float(cellnet.LABELS.index(cell.label))
                out[key] = replace(cell, label=cellnet.LABELS[best], confidence=float(p[best]), reason="",
                                   features=feats)
                said[key] = (out[key], replace(cell, label="?", confidence=min(cell.confidence, agree),
                                               reason=DISAGREE_REASON, features=feats))
            else:
                out[key] = replace(cell, label="?", confidence=min(cell.confidence, agree), reason=DISAGREE_REASON,
                                   features=feats)
        elif ((_glare_allows(cell, cellnet.LABELS[best], float(p[best]), key[0] in template.clipped_print)
               if cell.reason == GLARE_REASON else p[best] >= cellnet.ACCEPT)
              and (alone or _leaning_allows(cell, cellnet.LABELS[best], calibrated))):
            out[key] = replace(cell, label=cellnet.LABELS[best], confidence=float(p[best]), reason="", features=feats)
            said[key] = (out[key], replace(cell, features=feats))
        else:
            out[key] = replace(cell, features=feats)
    if check is None:
        return out
    return _paired(_confirmed(out, said, read, template, check, teeth), read, template, model, check, familiar,
                   light)


#: A tooth the rules read on a calibrated grid and the first network confirmed under NET_PAIR_ACCEPT stands only where
#: the second network gives it this much or more; else the cell is '?' (DISAGREE_REASON). The tooth is the rules'
#: commonest wrong cube: a pale metal or wood top looks like one (NARROW_TOOTH asks the same of teeth the rules read
#: with little margin, at RULES_LEAD_CHECK). Development seed 571, photo 32: a pale silver metal cube read as a tooth by
#: the rules at 1.0 and the first network at 0.94, the second giving 0.62; the bound was proposed from it in the
#: thirty-fifth session and not built. Seed 575 (photo 52, read once, never before): a pale grey metal cube, the rules
#: at 0.85, the first network at 0.88, the second at 0.61. Of the 2,934 teeth the rules read on seeds 556-562 and
#: 564-575 (1,140 photos, each board calibrated), the first network confirmed 632 under NET_PAIR_ACCEPT; at this bound
#: 45 right ones among them are '?' and both wrong ones (38 right and neither wrong at 0.6). The wrong ones lie at the
#: second network's lowest words for right teeth: this trades some 1.5 % of right teeth for those two.
TOOTH_CHECK = 0.65


def tooth_doubted(cell: Cell) -> bool:
    """Whether a cell is '?' because the second network doubted the rules' tooth (TOOTH_CHECK, or RULES_LEAD_CHECK's
    ask of a tooth read with little margin, at a word under TOOTH_CHECK): such a photo gives no word for a tooth to
    another photo's reading (vision.retake.support). Development seed 575, photo 52: the retake (the board tilted, the
    light moved) read the pale metal cube as a tooth past every check (the rules 1.0, the networks 0.948 and 0.899),
    and with the first photo's doubted tooth as its second word the merged reading was a confident error."""
    f = cell.features
    tooth = float(cellnet.LABELS.index("T"))
    # (Where the first network's likeliest label is the tooth, the second was asked of the tooth: check_p is its word.)
    return (cell.label == "?" and cell.reason == DISAGREE_REASON and f.get("rules_read") == tooth
            and f.get("net_best") == tooth and f.get("check_p", 1.0) < TOOTH_CHECK)


def _confirmed(cells: Mapping[CellKey, Cell], said: Mapping[CellKey, tuple[Cell, Cell]], read: _CellsRead,
               template: Template, check: CellNet, teeth: Sequence[CellKey] = ()) -> dict[CellKey, Cell]:
    """On calibrated grids no answer of the second look is the first network's alone: a cell it decided (``said``:
    its reading and the reading without it) keeps that label only where the second network gives the label
    NET_PAIR_ACCEPT or more (feature ``check_p``; the confidence the lower of the two); else the cell is read as
    without the network. (_flat_on_pale, where geometry decides with the network, is not asked.) On new development
    seeds 530 and 531 (12 MP, calibrated, 7,761 cells, never tuned on before) the first network alone was sure and
    wrong twice (glare over metal read as wood at 0.998, where the second gave 0.948; metal read as a tooth at
    0.987, the second 0.78), and right on 23 cells more than with the second's word.

    The rules' teeth in ``teeth`` (on calibrated grids, those the first network confirmed only under NET_PAIR_ACCEPT)
    are shown to the second network in the same batch, and stand only at TOOTH_CHECK or more."""
    keys = [k for k in said if k[0] in read.calibrated]
    out = dict(cells)
    if not keys and not teeth:
        return out
    probs = _net_reads(check, read, template, [*keys, *teeth])
    for key, p in zip(teeth, probs[len(keys):], strict=True):
        cell = out[key]
        agree = float(p[cellnet.LABELS.index("T")])
        feats = {**cell.features, "check_p": agree}
        out[key] = (replace(cell, features=feats) if agree >= TOOTH_CHECK else
                    replace(cell, label="?", confidence=min(cell.confidence, agree), reason=DISAGREE_REASON,
                            features=feats))
    for key, p in zip(keys, probs[:len(keys)], strict=True):
        decided, without = said[key]
        agree = float(p[cellnet.LABELS.index(decided.label)])
        if agree >= NET_PAIR_ACCEPT:
            out[key] = replace(decided, confidence=min(decided.confidence, agree),
                               features={**decided.features, "check_p": agree})
        else:
            out[key] = replace(without, features={**without.features, "check_p": agree})
    return out


def _net_answer(p: F32) -> tuple[int, dict[str, float]]:
    """The network's label (an index of cellnet.LABELS) and the features that keep it: ``net_p``, ``net_best``."""
    best = int(np.argmax(p))
    return best, {"net_p": float(p[best]), "net_best": float(best)}


def _glare_rules_label(cell: Cell, pale: bool) -> str:
    """What the rules read past a glare cell's glare ('?': they cannot tell). On a ``pale`` grid, one whose print
    is kept as clipped white, their tooth is no answer: a print clipped white is a tooth's top to them."""
    rules = GLARE_RULES[int(cell.features["glare_rules"])]
    return "?" if pale and rules == "T" else rules


def _glare_pair(cell: Cell, pale: bool) -> bool:
    """Whether a glare cell may be decided by the two networks' agreement: the rules, reading past the glare, read
    what the first network reads, on a grid whose print is not kept as clipped white (``pale``), and not a tooth (but
    one measured whole as ivory, _tooth_past_glare), nor wood or metal on a top clipped white (_material_on_white).

    Glare adds light to a top, and a wood or metal top made lighter and greyer reads as the palest cube: past the
    glare, the rules' tooth is what any brightened cube looks like, and the networks see the same brightened top.
    Every confident error this pair made was such a tooth: development seeds 535/9 (pale wood), 537/2 and 548/39
    (metal tops clipped white), 554/43 and 556/40 (wood in a highlight's halo, the networks at 0.952-0.979), among
    right teeth read at the same probabilities (20 photos each of seeds 530, 548 and 549, and 60 of 556: 8 right, 1
    wrong). A tooth under glare is read where the rules past it read a tooth and the first network is sure at
    GLARE_ACCEPT, with the second's word (_glare_allows, _confirmed), where its top is measured whole as ivory
    (_tooth_past_glare: those wrong teeth had their tops clipped), or in a photo taken darker.

    Where the place of the cube's top has no clipped pixel (feature ``clipped`` at most GLARE_CLEAR_TOP), the rules'
    reading past the glare need not agree: the pair decides, but never a tooth (a halo's light brightens a cube
    towards the palest one without clipping it; _tooth_past_glare asks the rules' tooth too), nor an empty cell
    where the rules past the glare read a cube (the edge check's guard, _rules_saw_a_cube, does not see a glare
    cell's reading) or on a ``pale`` grid (_glare_allows: that needs the cell found flat)."""
    f = cell.features
    if cell.reason != GLARE_REASON or "net_best" not in f or "glare_rules" not in f:
        return False
    label = cellnet.LABELS[int(f["net_best"])]
    if label == "T":
        return _tooth_past_glare(cell, pale)
    rules = _glare_rules_label(cell, pale)
    if f.get("clipped", 1.0) <= GLARE_CLEAR_TOP:
        return label != "." or not (pale or rules in "WMT")
    return not pale and rules == label and not _material_on_white(cell, label)


def _material_on_white(cell: Cell, label: str) -> bool:
    """Whether ``label`` is wood or metal read for a glare cell whose top's place is clipped white (GLARE_WHITE_MAX):
    such a top shows no colour, and what the rules read past the glare is the clipped white against the print's
    light (on a yellow print, a white bluer than the print: metal to them), and the networks see a white top with
    shaded sides. Development seed 578, photo 9: a tooth's top clipped white (0.99 of it) on a yellow print, metal to
    the rules past the glare and to both networks (0.987, 0.99): a confident error. On seeds 577-579 (160 photos) no
    other wood or metal was read on a top so clipped (4 teeth and 5 empty cells of a print clipped white were, all
    right, and still are)."""
    return label in "WM" and cell.features.get("white", 1.0) >= GLARE_WHITE_MAX


def _tooth_past_glare(cell: Cell, pale: bool) -> bool:
    """Whether the networks' tooth may stand on a glare cell (_glare_pair): the rules past the glare read a tooth,
    on a grid whose print is not kept as clipped white, and the top is measured whole (no clipped pixel where it
    lies, GLARE_CLEAR_TOP) as a tooth's: its darkest channel at GLARE_TOOTH_LIGHT of white or more, and redder than
    blue by 0 to GLARE_TOOTH_WARM_MAX (ivory's red is over its blue; grey metal's is not, and wood's by far more).

    A halo adds light to a top: any cube made lighter and greyer reads as the palest one, so the pair read no tooth
    under glare at all before (every confident error it made there was such a tooth). But a halo of white light adds
    the same to each channel: it cannot make a grey metal top less blue than red, nor take away a wood top's excess of
    red over blue. The teeth the pair made wrongly had their tops clipped (development seeds 535/9, 537/2, 548/39,
    554/43, 556/40: their measured tops clipped in 0.9 to 1.0 of the place), and the one halo'd top measured whole
    that came near GLARE_TOOTH_LIGHT was metal (535/9, weapon_left [2][2]: 0.70, 0.71, 0.75), bluer than red."""
    f = cell.features
    return (not pale and _glare_rules_label(cell, pale) == "T" and f.get("clipped", 1.0) <= GLARE_CLEAR_TOP
            and f.get("glare_top_min", 0.0) >= GLARE_TOOTH_LIGHT
            and 0.0 <= f.get("glare_top_warm", -1.0) <= GLARE_TOOTH_WARM_MAX)


#: A glare cell's top, measured whole, is a tooth's (_tooth_past_glare) only with its darkest channel's reflectance
#: this much of white's or more. Development seeds 577 and 578 (100 photos, first read in the thirty-ninth session):
#: the teeth so measured that both networks read were 0.77 to 0.87 (the halo'd metal of 535/9: 0.70); 3 cells more
#: read, none wrong. The test set (--quiet): 1 cell more, no confident error. (By CUBE_LAB alone ivory's darkest
#: channel is 0.71: a tooth under a halo measures lighter than its own colour.)
GLARE_TOOTH_LIGHT = 0.75
#: ... and its red over its blue (reflectance) at most this much: ivory's is 0.15 by CUBE_LAB, wood's 0.44; the teeth
#: measured so on seeds 577 and 578 were 0 to 0.15.
GLARE_TOOTH_WARM_MAX = 0.3


#: A glare cell whose top's place has at most this fraction of its pixels clipped in any channel is decided by the two
#: networks' agreement whatever the rules read past the glare (_glare_pair): the top's colours are all measured,
#: though a halo may have added light to them, and what keeps the pair safe there is what was measured, with no
#: tooth read (the palest cube, which a halo's light moves any cube towards) but one the rules past the glare read
#: too, measured as a tooth's (_tooth_past_glare). Development seeds 530, 548, 549 (20
#: photos each) and 556-562, 564 (60 each): of 2,333 glare cells on calibrated grids, 1,174 had no clipped pixel
#: where a top would be; the networks agreed at NET_PAIR_ACCEPT on 1,056 of those, all right (71 of them on prints
#: calibration kept as clipped white), and on 832 of the others, 6 of them wrong. With it 64 glare cells more are
#: read there, none wrong (mostly metal cubes beside clipped tops or on pale prints); on seeds 565 and 566, not among
#: those measured, 6 more, none wrong; on seed 509 (40 photos, two boards with such pale prints), 2 on them, right.
GLARE_CLEAR_TOP = 0.0


#: A calibrated cell the rules read and the first network doubted (under what its reading needed, _agreement_needed),
#: although its likeliest label is theirs (_rules_lead), takes the rules' label where the second network gives it
#: this much or more (_paired; confidence the lower of the two networks'). Three readers leaning one way, two of them
#: measuring shape: on development seeds 530-533 (220 photos, 12 MP, calibrated) the rules' label was right in all 52
#: such cells (mostly teeth on coloured prints, which both networks are least sure of), 19 of them at 0.8 or more.
#: Tried at DISAGREE_BELOW (0.5: the second network's likeliest label too) in the fifteenth session: right in all 37
#: such cells of seeds 530-534 still '?' at 0.8 (24 of them at 0.5 or more), but the test set read with it (--quiet)
#: read 7 such cells more and had one confident error, which went when it was taken back. Kept at 0.8.
RULES_LEAD_CHECK = 0.8


def _rules_lead(cell: Cell) -> bool:
    """A cell '?' only because the first network, though its likeliest label is the rules' reading, gives it less
    than the rules' reading needed (_agreement_needed): the rules lead and the first network leans their way
    (DISAGREE_BELOW or more)."""
    f = cell.features
    return (cell.reason == DISAGREE_REASON and "rules_read" in f and f.get("net_best") == f["rules_read"]
            and f.get("net_p", 0.0) >= DISAGREE_BELOW)


#: The cubes of a photo's own colours (_photo_colours): a material's colour there is the median top of the cells read
#: as it at PHOTO_COLOUR_CONF or more without doubt, where at least PHOTO_COLOUR_CUBES were; a cell the rules left
#: with its colour unclear is read as the nearest of at least two such colours, within PHOTO_COLOUR_MAX (CIE Lab,
#: lightness weighted MATERIAL_L_WEIGHT) and nearer by PHOTO_COLOUR_MARGIN than the next. Development seeds 530-535
#: (12 MP, calibrated, 14,040 cells): 18 cells more, none wrong. Not for cells the rules read and the first network
#: disputed, with only the second's "a cube": 27 more on those seeds, none wrong, but a metal cube read as a tooth on
#: the test set (vision/HISTORY.md, nineteenth session).
PHOTO_COLOUR_CONF = 0.9
PHOTO_COLOUR_CUBES = 2
PHOTO_COLOUR_MAX = 8.0
PHOTO_COLOUR_MARGIN = 5.0


def _photo_colours(cells: Mapping[CellKey, Cell], read: _CellsRead, template: Template, check: CellNet,
                   familiar: Callable[[CellKey], bool]) -> dict[CellKey, Cell]:
    """Cells of calibrated grids the rules left '?' with the cube's colour unclear, read against the colours the
    photo's own cubes show: the camera's tone curve and white balance and the light's colour move every cube's top
    alike, so the tops the rules read surely elsewhere in the photo are better references than the colours the
    rules were tuned with. A cell whose top lies near one material's colour in this photo and clearly nearer it
    than any other's (PHOTO_COLOUR_MAX, PHOTO_COLOUR_MARGIN) takes that material where the first network's
    likeliest label is the same and the second gives it RULES_LEAD_CHECK or more, as where the rules lead
    (_paired): the confidence the lower of the two networks'."""
    tops = _photo_tops(cells)
    colours = {m: ref for m in tops if (ref := _photo_colour(tops, m)) is not None}
    if len(colours) < 2:
        return dict(cells)
    ask: dict[CellKey, str] = {}
    for key, cell in cells.items():
        f = cell.features
        if not (cell.label == "?" and cell.reason == "cube colour unclear" and key[0] in read.calibrated
                and familiar(key) and "L" in f and "net_best" in f):
            continue
        ranked = sorted((_weighted((f["L"], f["a"], f["b"]), ref, MATERIAL_L_WEIGHT), m) for m, ref in colours.items())
        (d1, best), (d2, _) = ranked[0], ranked[1]
        if (d1 <= PHOTO_COLOUR_MAX and d2 - d1 >= PHOTO_COLOUR_MARGIN
                and cellnet.LABELS[int(f["net_best"])] == best and f["net_p"] >= DISAGREE_BELOW):
            ask[key] = best
    out = dict(cells)
    # Where the second network was already shown the cell (_paired, _confirmed), it was asked of the first's likeliest
    # label, the one asked here: its word stands.
    agrees = {k: cells[k].features["check_p"] for k in ask if "check_p" in cells[k].features}
    unseen = [k for k in ask if k not in agrees]
    if unseen:
        probs = _net_reads(check, read, template, unseen)
        agrees.update({k: float(p[cellnet.LABELS.index(ask[k])]) for k, p in zip(unseen, probs, strict=True)})
    for key, agree in agrees.items():
        cell = out[key]
        feats = {**cell.features, "check_p": agree, "photo_colour": 1.0}
        if agree >= RULES_LEAD_CHECK:
            out[key] = replace(cell, label=ask[key], confidence=min(agree, cell.features["net_p"]), reason="",
                               features=feats)
        else:
            out[key] = replace(cell, features=feats)
    return out


PhotoTops = dict[str, list[tuple[CellKey, tuple[float, float, float]]]]


def _photo_tops(cells: Mapping[CellKey, Cell]) -> PhotoTops:
    """Per material, the tops (CIE Lab) of the cells read as it at PHOTO_COLOUR_CONF or more without doubt."""
    tops: PhotoTops = {m: [] for m in "WMT"}
    for key, cell in cells.items():
        f = cell.features
        if cell.label in tops and not cell.reason and cell.confidence >= PHOTO_COLOUR_CONF and "L" in f:
            tops[cell.label].append((key, (f["L"], f["a"], f["b"])))
    return tops


def _photo_colour(tops: PhotoTops, material: str, without: CellKey | None = None) -> F64 | None:
    """The colour this photo's cubes of a material show: the median of their tops (``_photo_tops``) but the cell
    ``without``'s, where at least PHOTO_COLOUR_CUBES are left; else None."""
    seen = [lab for key, lab in tops[material] if key != without]
    return _median(np.array(seen), axis=0) if len(seen) >= PHOTO_COLOUR_CUBES else None


#: The reason of a calibrated cell the networks read as one cube where the rules' colours leaned to another whose
#: colour in this photo the cell's top shows (_against_photo_colours).
PHOTO_LEANING_REASON = "the cell networks read another cube than the one it looks like in this photo"


def _against_photo_colours(cells: Mapping[CellKey, Cell], read: _CellsRead) -> dict[CellKey, Cell]:
    """A calibrated cell the networks read as a cube other than the one the rules' colours ranked first (feature
    ``best``: the rules left the cell '?' or were overruled), whose top lies within PHOTO_COLOUR_MAX of the colour
    this photo's other cubes of the rules' material show, and nearer it than the colour of the networks' material
    there (if the photo shows that one), is '?' with PHOTO_LEANING_REASON: the photo's own cubes side with the rules.
    Development seed 553 (photo 47, read once, before any change): a tooth a little darker than the two beside it
    was metal to both networks (1.0, 0.998), where the rules leaned to a tooth and its top lay 7.0 from the photo's
    teeth (no metal read in the photo). On seeds 530, 548-550, 552 and 553 (360 photos) the networks read 135 other
    cells against the rules' leaning (wood or metal where the rules leaned to a tooth), all right; their tops lay
    10.8 or more from the photo's cubes of the rules' material."""
    tops = _photo_tops(cells)
    out = dict(cells)
    for key, cell in cells.items():
        f = cell.features
        best = int(f.get("best", -1))
        if (cell.label not in ("W", "M", "T") or key[0] not in read.calibrated or best < 0 or "WMT"[best] == cell.label
                or "L" not in f):
            continue
        ref = _photo_colour(tops, "WMT"[best], key)
        if ref is None:
            continue
        top = (f["L"], f["a"], f["b"])
        near = _weighted(top, ref, MATERIAL_L_WEIGHT)
        theirs = _photo_colour(tops, cell.label, key)
        if near <= PHOTO_COLOUR_MAX and (theirs is None or _weighted(top, theirs, MATERIAL_L_WEIGHT) > near):
            out[key] = replace(cell, label="?", confidence=0.0, reason=PHOTO_LEANING_REASON,
                               features={**f, "photo_leaning": near})
    return out


def _paired(cells: Mapping[CellKey, Cell], read: _CellsRead, template: Template, model: CellNet, check: CellNet,
            familiar: Callable[[CellKey], bool], light: Mapping[str, float]) -> dict[CellKey, Cell]:
    """Cells of calibrated grids still '?' for one of PAIR_REASONS (or glare, _glare_pair), whose top is not darker
    than a cube's, that the first network is sure of at NET_PAIR_ACCEPT: the second network is shown the same
    patch, and where it gives the same label at NET_PAIR_ACCEPT or more, the cell takes that label (its confidence
    the lower of the two; the feature ``check_p``). Cells the first network was not shown (PAIR_REASONS beyond
    SECOND_LOOK_REASONS) are shown to it first. A cell the rules lead (_rules_lead) takes their label where the
    second network gives it RULES_LEAD_CHECK or more. No cube against the rules' leaning is read where the cell's
    print reference lies in a shadow (_shaded_reference; ``light``: _grid_light of the rules' cells)."""
    ask = [k for k, c in cells.items() if c.label == "?" and k[0] in read.calibrated and familiar(k)
           and "ref_r" in c.features and "check_p" not in c.features
           and (c.reason in PAIR_REASONS or _glare_pair(c, k[0] in template.clipped_print))]
    out = dict(cells)
    unseen = [k for k in ask if "net_p" not in out[k].features]
    if unseen:
        for key, p in zip(unseen, _net_reads(model, read, template, unseen), strict=True):
            out[key] = replace(out[key], features={**out[key].features, **_net_answer(p)[1]})
    ask = [k for k in ask if (out[k].features["net_p"] >= NET_PAIR_ACCEPT or _rules_lead(out[k]))
           and not _unlike_a_top(out[k], cellnet.LABELS[int(out[k].features["net_best"])])
           and not (_shaded_reference(out[k], light)
                    and _against_leaning(out[k], cellnet.LABELS[int(out[k].features["net_best"])]))]
    if not ask:
        return out
    for key, p in zip(ask, _net_reads(check, read, template, ask), strict=True):
        cell = out[key]
        best = int(cell.features["net_best"])
        agree = float(p[best])
        feats = {**cell.features, "check_p": agree}
        lead = cell.features["net_p"] < NET_PAIR_ACCEPT and _rules_lead(cell)
        if agree >= (RULES_LEAD_CHECK if lead else NET_PAIR_ACCEPT):
            out[key] = replace(cell, label=cellnet.LABELS[best], confidence=min(agree, cell.features["net_p"]),
                               reason="", features=feats)
        else:
            out[key] = replace(cell, features=feats)
    return out


def _read_cells(image: U8, template: Template, cube_lab: Mapping[str, Sequence[float]] | None) -> _CellsRead:
    """The rule-based reading of every cell."""
    if image.ndim != 3 or image.shape[2] != 3:
        raise PhotoError("expected a colour photo")
    grey = grey_of(image)
    loc = locate(image, template, grey)
    refs = {k: np.asarray(v, dtype=np.float64) for k, v in (cube_lab or CUBE_LAB).items()}
    cube = template.cube_mm
    img_ppm = _image_ppm(loc.hom, template)
    rect = _Rectified(image, loc.hom, _grid_box(template, 7.0), float(np.clip(img_ppm, 2.0, 6.0)))
    grids_ = template.gear_grids
    bands = {g.name: _band_samples(rect, g, loc.pose, cube, grids_) for g in grids_}
    # The band around each grid is where calibration measured it (Template.band_ratio is keyed by its
    # pieces' places); the cells are where this photo's printed lines put them.
    template = _placed_by_lines(rect, template)
    grids_ = template.gear_grids
    # A grid printed unlike the board around it (a darker or coloured field under the cells) is read
    # against its own print, seen between the cubes and the printed outlines.
    own_print: set[str] = set()
    reaches = {g.name: _line_reach(rect, g) for g in grids_}
    # A calibrated grid printed unlike the band around it: its print's reflectance against the band's was
    # measured on the empty board, so the band, scaled by that ratio, is the grid's print in this photo's
    # light right there (a ratio of two prints under the same light does not depend on the light).
    calibrated = _calibrated_bands(template, bands)
    bands.update(calibrated)
    # The print around a grid says little about the grid itself (another board may have a like print around
    # its grids): a calibrated grid's flat cells (empty print, lit or shaded) must look like the print
    # calibration measured, or this is not the calibrated board.
    # (Two flat cells at least: one may be a cube whose sides look like its top.)
    flat_cells = {g.name: _uniform_cells(rect, g, loc.pose, cube, reaches[g.name])
                  for g in grids_ if g.name in calibrated}
    not_as_calibrated = [name for name, flat in flat_cells.items()
                         if len(flat) >= 2 and _own_print(flat, bands[name], DEEP_FLOOR)]
    # A hand or a card over a grid is flat too, but it hides the printed outlines with the print: such a grid is
    # hidden in this photo (none of it read), not evidence of another board.
    covered_grids = {name for name in not_as_calibrated if _flat_covered(rect, template.grids[name], flat_cells[name])}
    not_as_calibrated = [name for name in not_as_calibrated if name not in covered_grids]
    # (A grid excused as covered weakens the evidence: then only empty cells' middles vouch for the board.)
    vouched = {n: b for n, b in calibrated.items() if n not in covered_grids}
    like_cells = _cells_like_print(rect, template, vouched, max(LIKE_PRINT_MIN, LIKE_PRINT_SHIFTED), loc.pose,
                                   reaches)
    like_print = len(like_cells)
    sticker_refs = _sticker_refs(image, loc.markers, template.markers.size_mm)
    flat_excused = False
    if like_print >= LIKE_PRINT_MIN:
        # Where cells' middles look like their calibrated print, a grid whose flat cells do not look like the band's
        # prediction may still measure as its calibrated print against the stickers (_flat_as_calibrated).
        kept = [name for name in not_as_calibrated
                if not _flat_as_calibrated(sticker_refs, loc, template, name, flat_cells[name])]
        flat_excused, not_as_calibrated = len(kept) < len(not_as_calibrated), kept
    if calibrated and like_print < LIKE_PRINT_MIN and (
            covered_grids or not _strips_like_print(rect, template, calibrated, loc.pose, reaches)):
        not_as_calibrated.append("board")
    for g in grids_:
        if g.name in calibrated or g.name in template.unset_grids:
            continue  # (a grid not set up is left unread below, whatever its print)
        flat = _uniform_cells(rect, g, loc.pose, cube, reaches[g.name])
        if _own_print(flat, bands[g.name]):
            own_print.add(g.name)
            if OWN_PRINT_REFERENCE:
                # One or two flat cells are still the grid's print: each stands for itself a few times
                # over (the references want three pieces, against one odd piece of band).
                bands[g.name] = flat if len(flat) >= 3 else list(flat) * 3
    # (The print around a grid not set up tells nothing of the calibrated grids' light.)
    all_bands = [s for name, b in bands.items() if name not in calibrated and name not in template.unset_grids
                 for s in b]
    shared_bands = [s for name, b in bands.items() if name not in own_print and name not in calibrated for s in b]
    labs: dict[str, F32] = {}
    unread: dict[str, str] = {}
    notes: list[str] = []
    shifted: dict[str, F32] = {}
    shared = _board_colour(sticker_refs, loc, template, shared_bands) if shared_bands else None
    whites_clipped = any(float(white.max()) >= WHITE_CLIPPED for _, white, _ in sticker_refs)
    light_note = STICKER_LIGHT_NOTE
    measures_by_grid = {g.name: _board_colour(sticker_refs, loc, template, bands[g.name])
                        if g.name in own_print or g.name in calibrated else shared for g in grids_}
    # How far each grid's print, measured against the stickers, lies from the template's or calibration's.
    offs = {name: _weighted(m, _expected_print(template, name), 1.0)
            for name, m in measures_by_grid.items() if m is not None}
    as_calibrated = {name for name in calibrated if name in offs and offs[name] <= PRINT_UNLIKE}
    for g in grids_:
        measured = measures_by_grid[g.name]
        if g.name in template.unset_grids:
            # Calibration could not set this grid up, and the group chose to read the others (keep_partial).
            labs[g.name] = np.asarray(template.board_lab or DEFAULT_BOARD_LAB, dtype=np.float32)
            unread[g.name] = UNSET_REASON
        elif g.name in (template.band_ratio or {}) and g.name not in calibrated:
            # Calibrated, but too little of the band calibration measured around it is in view here (a hand,
            # the photo's edge): the print around the other grids says nothing of this one's.
            labs[g.name] = np.asarray(_expected_print(template, g.name), dtype=np.float32)
            unread[g.name] = BAND_HIDDEN_REASON
        elif measured is not None:
            labs[g.name] = measured
            expected = _expected_print(template, g.name)
            off = offs[g.name]
            # Against stickers whose white is clipped the print measures lighter than it is (the paper's white is
            # more than the photo shows): lighter than expected, but like it otherwise, is no sign of another print.
            overexposed = (whites_clipped and expected[0] < float(measured[0]) <= expected[0] + OVEREXPOSED_L_MAX
                           and _weighted((expected[0], float(measured[1]), float(measured[2])), expected, 1.0)
                           <= PRINT_UNLIKE)
            # (The stickers' word against the board's, on the board's own: only where many cells vouch for it.)
            if (g.name in calibrated and off > PRINT_UNLIKE and (off <= STICKER_LIGHT_MAX or overexposed)
                    and like_print >= LIKE_PRINT_SHIFTED):
                shifted[g.name] = np.asarray(expected, dtype=np.float32)
                light_note = STICKERS_CLIPPED_NOTE if overexposed else light_note
            elif (g.name in calibrated and off > PRINT_UNLIKE and as_calibrated and like_print >= LIKE_PRINT_SHIFTED
                  and ((darker := float(measured[0]) < expected[0]) or g.name not in covered_grids)):
                # At least one other grid of the board measures as calibrated against the same stickers, and many cells
                # look like their print. Darker than calibrated: the board around this grid lies in a shadow (a hand's,
                # out of the photo). Otherwise, too far off to be the stickers lit unlike the board: another light falls
                # on this part of the board, or it is another board whose print is like this one's elsewhere (a covered
                # grid keeps its own reason, below). Either way its print's light is unknown: left unread.
                unread[g.name] = SHADED_BAND_REASON if darker else LIT_BAND_REASON
            elif off > PRINT_UNLIKE and not notes and g.name not in covered_grids:
                notes.append(UNLIKE_NOTE_CALIBRATED if template.board_lab else UNLIKE_NOTE_TEMPLATE)
        elif template.board_lab is not None and g.name not in own_print:
            labs[g.name] = np.asarray(_expected_print(template, g.name), dtype=np.float32)
        else:
            labs[g.name] = np.asarray(template.board_lab or DEFAULT_BOARD_LAB, dtype=np.float32)
            unread[g.name] = NO_PATCHES_REASON if not sticker_refs else "the board's print could not be measured"
    for name in covered_grids:
        unread.setdefault(name, COVERED_GRID_REASON)
    if not_as_calibrated and not notes:
        # Too few flat cells in all to vouch for the board (then no grid's flat cells were found unlike their
        # calibration, none excused as covered, and "board" is all that was refused): say that, not "another print".
        too_little = sum(len(flat) for flat in flat_cells.values()) < LIKE_PRINT_MIN
        notes.append(UNVOUCHED_NOTE if too_little else UNLIKE_NOTE_CALIBRATED)
    warnings: list[str] = []
    if shifted and not notes:
        # The calibrated grids look like their calibration against their own print around them (the checks above
        # do not depend on the light): the stickers are lit unlike the board. Their print is the calibrated one.
        labs.update(shifted)
        warnings.append(light_note)
    rgbs = {name: lab_to_linear_rgb(lab) for name, lab in labs.items()}
    # Grids whose print is unlike the one the rules were tuned on (and the network trained on) get the extra
    # checks, calibrated or not; a calibrated board is read, an uncalibrated one unlike its template refused.
    unfamiliar = (frozenset(g.name for g in grids_) if notes else frozenset(own_print)) | frozenset(
        name for name in labs if name in calibrated or _weighted(labs[name], DEFAULT_BOARD_LAB, 1.0) > PRINT_UNLIKE)
    keys = [(g, r, c) for g in grids_ for r in range(g.rows) for c in range(g.cols)]
    print_lum = float(_median([float(s.rgb @ _LUMA) for s in all_bands])) if all_bands else 0.0
    measures = _spots_glare(rect, template, loc.pose, keys,
                            {(g.name, r, c): _measure(rect, g, loc.pose, cube, r, c) for g, r, c in keys}, print_lum)

    Extra = Mapping[str, list[tuple[tuple[int, int], _BandSample]]]

    def classify_all(extra: Extra, empties: bool = False) -> dict[tuple[str, int, int], Cell]:
        # ``empties``: only as far as telling which cells are read empty (a cell read otherwise by then is never
        # read empty by the steps after: they read a material, or doubt a reading), for the first pass.
        out = {}
        # Each cell's print light from the band and the plainly empty cells (``extra``) but itself, asked for
        # every cell of a grid at once.
        local: dict[tuple[str, int, int], tuple[F32, float] | None] = {}
        for g in grids_:
            own = {rc: len(bands[g.name]) + j for j, (rc, _s) in enumerate(extra.get(g.name, []))}
            places = [(r, c) for r in range(g.rows) for c in range(g.cols)]
            found_all = _local_references(bands[g.name] + [s for _rc, s in extra.get(g.name, [])],
                                          [g.cell_centre(r, c) for r, c in places], [own.get(rc) for rc in places])
            local.update({(g.name, r, c): f for (r, c), f in zip(places, found_all, strict=True)})
        for g, r, c in keys:
            m = measures[(g.name, r, c)]
            x, y = g.cell_centre(r, c)
            # Empty cells right next to this one are the most local reference of all: in a large shadow
            # they are in it too, where the band around the grid may not be.
            near = [s.rgb for (rc, s) in extra.get(g.name, [])
                    if rc != (r, c) and math.hypot(s.x - x, s.y - y) < 1.6 * g.cell_mm]
            if len(near) >= 2:
                found = (_median(np.array(near), axis=0).astype(np.float32), 1.0)
            else:
                found = local[(g.name, r, c)]
            board_lab, board_rgb = labs[g.name], rgbs[g.name]
            lw = UNFAMILIAR_L_WEIGHT if g.name in unfamiliar else MATERIAL_L_WEIGHT
            pool = bands[g.name] if g.name in own_print else shared_bands
            if g.name in unread:
                out[(g.name, r, c)] = Cell(g.name, r, c, "?", 0.0, unread[g.name])
            elif found is None or np.any(found[0] <= 1e-4):
                out[(g.name, r, c)] = Cell(g.name, r, c, "?", 0.0, BAND_HIDDEN_REASON)
            elif m.glare > GLARE_FRACTION and empties:
                out[(g.name, r, c)] = Cell(g.name, r, c, "?", 0.0, GLARE_REASON)
            elif m.glare > GLARE_FRACTION:
                # The print's light here goes with it, and on a calibrated grid what the rules would read were
                # it not for the glare: the cell network may read it where both agree (_second_look).
                glared = {"ref_r": float(found[0][0]), "ref_g": float(found[0][1]), "ref_b": float(found[0][2])}
                if g.name in calibrated:
                    would = _classify(m, found[0], board_lab, board_rgb, refs, lw)[0]
                    glared["glare_rules"] = float(GLARE_RULES.index(would))
                    top = rect.rect(*_regions(g, loc.pose, cube, r, c)[1])
                    glared["white"] = rect.white_clipped(top) if top is not None else 1.0
                    # (The share of the top's place clipped in some channel; out of the photo it counts as clipped.)
                    top_mean, top_clipped, top_inside = rect.stats(top) if top is not None else (None, 1.0, False)
                    glared["clipped"] = top_clipped if top_inside else 1.0
                    if top_mean is not None and top_inside and top_clipped <= GLARE_CLEAR_TOP:
                        # The top's reflectance where none of it is clipped, for a tooth past the glare
                        # (_tooth_past_glare): its darkest channel and how much redder than blue it is.
                        rho = top_mean / found[0] * board_rgb
                        glared["glare_top_min"] = float(rho.min())
                        glared["glare_top_warm"] = float(rho[0] - rho[2])
                out[(g.name, r, c)] = Cell(g.name, r, c, "?", 0.0, GLARE_REASON, glared)
            else:
                label, conf, reason, feats = _classify(m, found[0], board_lab, board_rgb, refs, lw)
                if _lit_may_decide(label, reason, feats):
                    lit = _lit_reference(pool + [s for (rc, s) in extra.get(g.name, []) if rc != (r, c)], x, y)
                    if lit is not None:
                        label, conf, reason = _reread_with_lit(m, found[0], lit, (label, conf, reason), feats,
                                                               board_lab, board_rgb, refs)
                if empties and label != ".":
                    out[(g.name, r, c)] = Cell(g.name, r, c, label, conf, reason, feats)
                    continue
                # The light's colour the stickers' white patches give here, for the checks below (the print's
                # colour may mislead about the light's).
                unclear = label == "?" and reason == "cube colour unclear"
                sticker = (_sticker_light(sticker_refs, loc, x, y, board_rgb, found[0])
                           if unclear or (g.name in unfamiliar and label in refs) else None)
                if g.name in unfamiliar and label in refs:
                    # On a board unlike the template the print's own reflectance is less sure: the material
                    # must hold with the print taken a good deal darker or lighter, and in the stickers' light.
                    others = [found[0] * k for k in UNFAMILIAR_LIGHT]
                    others += [sticker] if sticker is not None else []
                    for ref in others:
                        other = _classify(m, ref, board_lab, board_rgb, refs, lw)
                        if "best" in other[3] and int(other[3]["best"]) != "WMT".find(label):
                            label, conf, reason = "?", min(conf, 0.3), "cube colour unclear"
                            break
                if label == "?" and reason == "cube colour unclear":
                    lights = [found[0] * k for k in (1.0, *UNFAMILIAR_LIGHT)]
                    if sticker is not None and _wood_by_hue(m, [*lights, sticker], board_lab, board_rgb, feats):
                        label, conf, reason = "W", MATERIAL_SIGN_CONFIDENCE, ""
                        feats["wood_hue"] = 1.0
                    elif g.name in calibrated and _tooth_by_lightness(m, lights, board_lab, board_rgb, feats):
                        label, conf, reason = "T", MATERIAL_SIGN_CONFIDENCE, ""
                        feats["tooth_light"] = 1.0
                    elif (g.name in calibrated and sticker is not None
                          and _metal_by_grey(m, [*lights, sticker], board_lab, board_rgb, feats)):
                        label, conf, reason = "M", MATERIAL_SIGN_CONFIDENCE, ""
                        feats["metal_grey"] = 1.0
                if g.name in calibrated:
                    label, conf, reason = _calibrated_doubts(label, conf, reason, feats, found[0], board_lab)
                    # A tooth the deep print cannot vouch for may still be one by the stickers' light, where that
                    # light is measured (no sticker's white clipped) and the board is lit as the stickers are (not
                    # shifted). Read so, it is a rules' reading like the other material signs: the network's
                    # cross-check still asks for agreement. (Development seeds 530-538: 42 teeth read, none wrong;
                    # seed 510 photo 43's pale wood stays '?'.)
                    if (reason == DEEP_PRINT_REASON and sticker is not None and not whites_clipped
                            and g.name not in shifted and _tooth_top(m, [sticker], board_rgb, feats)):
                        label, conf, reason = "T", MATERIAL_SIGN_CONFIDENCE, ""
                        feats["tooth_sticker"] = 1.0
                feats["u_top"] = m.uneven_top
                feats.update({"ref_r": float(found[0][0]), "ref_g": float(found[0][1]), "ref_b": float(found[0][2])})
                out[(g.name, r, c)] = Cell(g.name, r, c, label, conf, reason, feats)
        return out

    first = classify_all({}, empties=True)
    # The cells that vouched for the board must still do so now the rules have read them (_vouching_cells): as many
    # as the print read with its calibration's light wants (LIKE_PRINT_SHIFTED), or LIKE_PRINT_MIN, or else the
    # strips beside the cubes, where no grid was excused on the cells' word alone (a grid covered, or its flat cells
    # measured as calibrated against the stickers).
    # (A grid left unread as in a shadow around it, or as lit unlike the rest, was excused on LIKE_PRINT_SHIFTED
    # cells too.)
    many = bool(shifted) or any(r in (SHADED_BAND_REASON, LIT_BAND_REASON) for r in unread.values())
    need = LIKE_PRINT_SHIFTED if many else LIKE_PRINT_MIN
    strips = None if many or covered_grids or flat_excused else calibrated
    # A grid left unread (its cells never read, so a cube's top there that looks like the print would vouch to the
    # end) vouches for nothing: its cells are left out here and in the search for more.
    vouching = (_Vouching({n: b for n, b in vouched.items() if n not in unread},
                          tuple(k for k in like_cells if k[0] not in unread), need, strips,
                          frozenset(_cube_cells(first)))
                if like_print >= need and not notes else None)
    if vouching is not None and not _vouching_cells(rect, template, vouching, loc.pose, reaches):
        # Refused: the note on the stickers' light (the board read with its calibrated print) no longer holds.
        notes.append(_unvouched_note(vouching))
        warnings.clear()
        vouching = None
    # Second pass: empty cells that are plainly lit print are the best reference for their neighbours.
    extra: dict[str, list[tuple[tuple[int, int], _BandSample]]] = {}
    for (gname, r, c), cell in first.items():
        m = measures[(gname, r, c)]
        if (cell.label == "." and cell.confidence >= 0.9 and m.core is not None and m.top is not None
                and m.uneven_top < 0.05 and abs(cell.features.get("r_core", 0) - cell.features.get("r_top", 9)) < 0.05):
            x, y = template.grids[gname].cell_centre(r, c)
            extra.setdefault(gname, []).append(((r, c), _BandSample(x, y, (m.core + m.top) / 2)))
    second = classify_all(extra) if extra else classify_all({})
    shadows = [sh for g in grids_ for sh in _observed_shadows({g.name: bands[g.name]}, labs[g.name])]
    read = second
    ring_cache: dict[tuple[CellKey, CellKey], tuple[float, float, float] | None] = {}

    def ring(key: CellKey, n: CellKey) -> tuple[float, float, float] | None:
        # A ring piece depends only on the pixels and the cell's reference, which the guards keep.
        if (key, n) not in ring_cache:
            ring_cache[(key, n)] = _ring_towards(rect, template, loc.pose, cube, key, n, read, labs[key[0]])
        return ring_cache[(key, n)]

    second = _shadow_guard(read, template, shadows, refs, ring,
                           long_shadows_absent=_band_unshaded(all_bands) and _edges_covered(template, read))
    rings = _cube_rings(template, second, ring)
    second = _own_shadow_guard(second, measures, rect, template, loc.pose, cube, rings)
    return _CellsRead({(g.name, r, c): second[(g.name, r, c)] for g, r, c in keys}, rect, loc, grey,
                      tuple(notes + warnings),
                      unfamiliar=unfamiliar, line_reach=reaches, template=template,
                      calibrated=frozenset() if notes else frozenset(calibrated),
                      refuse=bool(notes) or (OWN_PRINT_GATE and bool(own_print)), print_rgb=rgbs, vouching=vouching)


#: A region "clearly differs" from another at this luminance ratio or chroma (at equal luminance) ...
RING_VETO_RATIO = 1.3
RING_VETO_CHROMA = 7.0
#: ... and "looks the same" below these fractions of it.
RING_SAME = 0.45
#: On an unfamiliar grid, an empty reading whose middle is this unlike every visible strip of its own print
#: (or unlike the lit one) is no plain empty cell. (On the first renderer's boards, cube shadows across the
#: strips make this cost 2 % of the cells, so it is not used on familiar grids.)
RING_EMPTY_VETO = 1.0
#: Whether a calibrated grid's cells are also checked against the lit one of their own print strips (as an
#: uncalibrated unfamiliar grid's are, where the print is a guess). Off: calibration measured the grid's print,
#: and the strips beside a cell lie in the cubes' shadows or a lamp's fall-off where its middle may not (280
#: second-renderer development photos: no wrong reading caught on a calibrated grid, over 300 right ones lost).
RING_ON_CALIBRATED = False


def _unlike(a: F32, b: F32) -> float:
    """How unlike two light measurements are, 1 at a clear difference (RING_VETO_RATIO or RING_VETO_CHROMA)."""
    return _unlike_seen(_light_and_hue(a), _light_and_hue(b))


def _light_and_hue(rgb: F32) -> tuple[float, tuple[float, float, float] | None]:
    """A light measurement's luminance and the Lab of its colour at a fixed luminance (None when too dark)."""
    lum = float(rgb @ _LUMA)
    return lum, lab_of(rgb * 0.5 / lum) if lum > 1e-6 else None


def _unlike_seen(a: tuple[float, tuple[float, float, float] | None],
                 b: tuple[float, tuple[float, float, float] | None]) -> float:
    """_unlike of two measurements already taken to _light_and_hue."""
    (la, x), (lb, y) = a, b
    if x is None or y is None:
        return 9.0
    return max(abs(math.log(la / lb)) / math.log(RING_VETO_RATIO),
               math.hypot(x[1] - y[1], x[2] - y[2]) / RING_VETO_CHROMA)


def _any_unlike(parts: Sequence[F32], limit: float) -> bool:
    """Whether any two of these light measurements are more than ``limit`` unlike (_unlike), each measurement's
    luminance and hue worked out once rather than once per pair."""
    seen = [_light_and_hue(rgb) for rgb in parts]
    return any(_unlike_seen(a, b) > limit for i, a in enumerate(seen) for b in seen[i + 1:])


def _cell_ring(rect: _Rectified, grid: Grid, pose: Pose, cube: float, r: int, c: int, reach: float | None
               ) -> list[F32]:
    """The cell's own print on the sides no cube in it leans over (see _inner_samples); measured once per
    photo (the pieces read-only, as they are shared)."""
    key = (grid, pose, cube, r, c, reach)
    ring = rect.rings.get(key)
    if ring is None:
        one = Grid(grid.name, (grid.origin_mm[0] + c * grid.cell_mm, grid.origin_mm[1] + r * grid.cell_mm),
                   grid.cell_mm, 1, 1)
        ring = tuple(s.rgb for s in _inner_samples(rect, one, pose, cube, reach))
        for rgb in ring:
            rgb.flags.writeable = False
        rect.rings[key] = ring
    return list(ring)


def _ring_veto(cells: Mapping[CellKey, Cell], read: _CellsRead, template: Template) -> dict[CellKey, Cell]:
    """Geometry's last word on every decided cell. A cube is a square standing inside its cell with the
    cell's own print still visible beside it; flat print is the same inside the cell as beside it. So a cube
    whose top looks like the cell's own print on every visible side is no cube we can vouch for (a dark or
    coloured print is not a metal or wood cube), and an empty cell whose middle is unlike the print on
    every visible side of it is no plainly empty cell: both become '?'."""
    out = dict(cells)
    pose, cube, rect = read.loc.pose, template.cube_mm, read.rect
    edges = rect.edges if read.unfamiliar else None
    for key, cell in cells.items():
        if cell.label == "?":
            continue
        if cell.label == "." and edges is not None and key[0] in read.unfamiliar:
            edge = _inner_edges(edges, rect, template.grids[key[0]], key[1], key[2], read.line_reach.get(key[0]))
            if edge > EMPTY_EDGES_MAX:
                out[key] = replace(cell, label="?", confidence=0.0, features={**cell.features, "edges": edge},
                                   reason=EDGES_REASON)
                continue
        g = template.grids[key[0]]
        ring = _cell_ring(rect, g, pose, cube, key[1], key[2], read.line_reach.get(key[0]))
        if len(ring) < 2:
            continue
        _, top_box = _regions(g, pose, cube, key[1], key[2])
        sl = rect.rect(*top_box)
        if sl is None:
            continue
        top, _, inside = rect.stats(sl)
        if not inside:
            continue
        # (Each measurement's luminance and hue worked out once; the lit strip is one of the ring's.)
        seen = _light_and_hue(top)
        d = [_unlike_seen(seen, _light_and_hue(s)) for s in ring]
        lit = d[max(range(len(ring)), key=lambda i: float(ring[i] @ _LUMA))]
        feats = {**cell.features, "ring_min": min(d), "ring_max": max(d), "ring_lit": lit, "ring_n": float(len(d))}
        odd = key[0] in read.unfamiliar and (RING_ON_CALIBRATED or key[0] not in read.calibrated)
        if cell.label in "WMT" and (max(d) < RING_SAME or (odd and lit < RING_SAME)):
            out[key] = replace(cell, label="?", confidence=0.0, features=feats, reason=RING_LIKE_PRINT_REASON)
        elif cell.label == "." and odd and (min(d) > RING_EMPTY_VETO or lit > RING_EMPTY_VETO):
            out[key] = replace(cell, label="?", confidence=0.0, features=feats, reason=RING_UNLIKE_PRINT_REASON)
        else:
            out[key] = replace(cell, features=feats)
    return out


#: On a grid whose print calibration kept as clipped white (Template.clipped_print), a glare cell the network
#: finds empty at GLARE_PALE_FLAT_ACCEPT or more is empty if where a cube's top would be is not clipped white
#: (less than GLARE_WHITE_MAX of it) and the cell is flat inside (_inner_edges at most PALE_FLAT_EDGES): a cube
#: there shows its outline and side faces. On the development seeds' 13 boards with such grids (508, 509, 512,
#: 515; photos read from their JPEG files) the network's empty glare cells measured 0.00-0.06 where they were
#: empty (up to 1.2 beside a cube), and 0.19 and up where a cube stood. But a tooth whose top is clipped white on
#: such a print can be all white, sides and all: rendered in memory (no JPEG), two such teeth (seed 509, photos
#: 25 and 94) measured 0.06 and 0.09, and the network found them empty at 0.99. Every tooth the network found
#: empty there had 0.83 or more of its top clipped white; the empty cells read this way, under 0.1.
GLARE_PALE_FLAT_ACCEPT = 0.95
PALE_FLAT_EDGES = 0.1


def _flat_on_pale(cells: Mapping[CellKey, Cell], read: _CellsRead, template: Template,
                  check: CellNet | None = None) -> dict[CellKey, Cell]:
    """Glare cells of a print kept as clipped white that the network finds empty and geometry finds flat: empty.
    Where no clipped top shows (GLARE_WHITE_MAX), at GLARE_PALE_FLAT_ACCEPT and PALE_FLAT_EDGES: not the network's
    answer alone, so not one _confirmed asks the second network about (a glare cell the second network did not
    confirm may still be found flat here). Where the top is clipped white (a tooth's top there is as white as the
    print: _glare_allows leaves such cells to this check), at GLARE_PALE_ACCEPT, PALE_FLAT_EDGES and the second
    network's word at NET_PAIR_ACCEPT (``check``; without it, not at all)."""
    empty = float(cellnet.LABELS.index("."))
    keys = [k for k, c in cells.items() if c.label == "?" and c.reason == GLARE_REASON
            and k[0] in template.clipped_print and k[0] in read.calibrated and c.features.get("net_best") == empty
            and (c.features["net_p"] >= GLARE_PALE_FLAT_ACCEPT if c.features.get("white", 1.0) < GLARE_WHITE_MAX
                 else check is not None and c.features["net_p"] >= GLARE_PALE_ACCEPT)]
    if not keys:
        return dict(cells)
    edges = read.rect.edges
    out = dict(cells)
    flat: dict[CellKey, Cell] = {}
    for key in keys:
        cell = cells[key]
        edge = _inner_edges(edges, read.rect, template.grids[key[0]], key[1], key[2], read.line_reach.get(key[0]))
        if edge <= PALE_FLAT_EDGES:
            flat[key] = replace(cell, label=".", confidence=cell.features["net_p"], reason="",
                                features={**cell.features, "edges": edge})
    white = [k for k in flat if cells[k].features.get("white", 1.0) >= GLARE_WHITE_MAX]
    if white and check is not None:
        for key, p in zip(white, _net_reads(check, read, template, white), strict=True):
            agree = float(p[cellnet.LABELS.index(".")])
            if agree >= NET_PAIR_ACCEPT:
                cell = flat[key]
                out[key] = replace(cell, confidence=min(cell.confidence, agree),
                                   features={**cell.features, "check_p": agree})
    out.update({k: c for k, c in flat.items() if k not in white})
    return out


EDGES_REASON = "edges inside the cell (a cube's outline), not flat print"
#: The ring veto (_ring_veto): a cube reading whose top looks like the cell's own print, an empty reading unlike it.
RING_LIKE_PRINT_REASON = "looks like the cell's own print beside it (no cube's edge)"
RING_UNLIKE_PRINT_REASON = "unlike the cell's own print beside it"


#: A cube is smaller than its cell: around the top the rules read, the cell's printed outline shows somewhere (the
#: print, the line's ink, a neighbour's shadow or side). A cell whose outline is the top's colour all round is under
#: something larger than a cube, a hand or a card: '?' (COVERED_REASON), and no network decides it. On new
#: development seed 531 (photo 40) a hand over the helmet grid was wood to the rules at 0.7 and to both networks.
#: The outline is read as COVERED_PIECES pieces a side, COVERED_PIECE_MM wide across the line; a piece is the
#: top's colour when each channel is within COVERED_RATIO of the top's; all but COVERED_SPARE pieces must be.
COVERED_PIECES = 4
COVERED_PIECE_MM = 1.2
COVERED_RATIO = 1.25
COVERED_SPARE = 5
#: The outline as the grid's empty cells show it (up to this many of them): its ink and print, never a cover.
COVERED_INK_CELLS = 4
COVERED_REASON = "something larger than a cube covers the cell and its printed outline (a hand?)"
#: Outline pieces of a cell's colour that make it covered "all round".
COVERED_ALL_ROUND = 4 * COVERED_PIECES - COVERED_SPARE


def _covered(read: _CellsRead, template: Template) -> dict[CellKey, Cell]:
    """The rules' cube readings, and the cells they left '?' for a network to decide, whose cell outline is the top's
    colour all round, and neither the print's nor the outline's as the grid's empty cells show it (a printed line
    may be as white as a tooth), become '?' with COVERED_REASON (which no network decides). A grid with no empty
    cell read is left as it is."""
    out = dict(read.cells)
    rect, pose, cube = read.rect, read.loc.pose, template.cube_mm
    outlines: dict[str, tuple[F32, npt.NDArray[np.bool_]] | None] = {}
    ink: dict[str, F32 | None] = {}
    for key, cell in read.cells.items():
        if cell.label not in ("W", "M", "T", "?") or "ref_r" not in cell.features:
            continue
        g = template.grids[key[0]]
        top = rect.rect(*_regions(g, pose, cube, key[1], key[2])[1])
        if top is None:
            continue
        top_rgb = rect.stats(top)[0]
        f = cell.features
        print_rgb = np.array([f.get("ref_r", 0.0), f.get("ref_g", 0.0), f.get("ref_b", 0.0)], dtype=np.float32)
        if _alike(top_rgb, print_rgb).all():
            continue  # the print shows the top's colour: its outline cannot tell a cube from a cover
        if g.name not in outlines:
            outlines[g.name] = _grid_outlines(rect, g)
        found = outlines[g.name]
        if found is None:
            continue
        pieces, seen = found[0][key[1], key[2]], found[1][key[1], key[2]]
        like = seen & _alike(pieces, top_rgb) & ~_alike(pieces, print_rgb)
        if int(like.sum()) >= COVERED_ALL_ROUND:
            if g.name not in ink:
                empty = [k for k, c in read.cells.items() if k[0] == g.name and c.label == "."][:COVERED_INK_CELLS]
                shown = [found[0][r, c][found[1][r, c]] for _, r, c in empty]
                ink[g.name] = _median(np.concatenate(shown), axis=0) if sum(map(len, shown)) else None
            grid_ink = ink[g.name]
            like &= ~_alike(pieces, grid_ink) if grid_ink is not None else False
        feats = {**cell.features, "outline_like": float(like.sum())}
        if int(like.sum()) >= COVERED_ALL_ROUND:
            out[key] = replace(cell, label="?", confidence=0.0, reason=COVERED_REASON, features=feats)
        else:
            out[key] = replace(cell, features=feats)
    return out


COVERED_GRID_REASON = "something larger than a cube covers this grid and its printed lines (a hand?)"
COVERED_GRID_ADVICE = "take the photo again with every grid in full view"
#: A calibrated grid whose print measures darker than its calibration (by more than PRINT_UNLIKE) where the board's
#: other grids measure as calibrated and LIKE_PRINT_SHIFTED cells look like their print: the board around it lies in
#: a shadow, which the cells cannot be read against (the print's light there is unknown). On development seed 534,
#: photo 14, a hand's shadow (the hand out of the photo) over the band around the sandals had the whole board refused
#: as another board.
SHADED_BAND_REASON = "the board around this grid lies in a shadow (a hand's?), so its print's light is unknown"
SHADED_BAND_ADVICE = "take the photo again with no shadow across the board"
#: A calibrated grid whose print, measured against the stickers, is more than PRINT_UNLIKE from its calibration and not
#: darker (darker is SHADED_BAND_REASON), beyond what the stickers lit unlike the board explain (STICKER_LIGHT_MAX, or
#: the stickers' white clipped), where at least one other grid measures as calibrated and LIKE_PRINT_SHIFTED cells
#: look like their print: another light falls on the board there than on the stickers (a lamp close by, a coloured
#: window), or the board is another whose print differs there. Either way its print's light is unknown, so the grid is
#: left unread and the rest of the board read, as for a shadow; the board must still be vouched for by
#: LIKE_PRINT_SHIFTED cells of the grids read (_vouching_cells, at the end too). The whole board had been refused as
#: another board before: development seeds 562 (photo 47: the weapon_right grid 28.8 Lab units off, the other grids
#: 3.8-4.7), 567 (photo 39: the weapon_right 31.8 off, bluer, the helmet and weapon_left 0.7 and 1.5, an arm over the
#: sandals, which keep COVERED_GRID_REASON) and 573 (photo 47: one grid 26.3 off, the others 13.5-14.1: nearly a
#: whole-board shift), each on its own calibration: 70 cells read in the grids left, none wrong. Of the 1,200
#: development photos (seeds 556-562, 564-576) each read with the next photo's calibration (another board), one was
#: read so in part (559/56: 26 cells, none wrong), the others refused as before.
LIT_BAND_REASON = ("the board around this grid measures unlike its calibration where the rest of the board measures "
                   "as calibrated (another light on it, or another board), so its print's light is unknown")
LIT_BAND_ADVICE = ("light the board evenly (no lamp close to one side, no coloured light on it) and take the photo "
                   "again; if it is another board, set up the camera for it (Gear > Set up the camera)")


def _flat_covered(rect: _Rectified, grid: Grid, flat: Sequence[_BandSample]) -> bool:
    """Whether a grid's flat cells (``_uniform_cells``, two at least) are mostly covered: the cell's printed outline
    shows the cell's own colour nearly all round (no ink), as under a hand or a card; an empty cell of another board
    still shows its grid's lines (measured on development seed 530: 16 of 16 outline pieces alike under a hand, at
    most 8 elsewhere)."""
    if len(flat) < 2:
        return False
    found = _grid_outlines(rect, grid)
    if found is None:
        return False
    covered = 0
    for s in flat:
        r, c = _grid_cell(grid, s.x, s.y)
        pieces, seen = found[0][r, c], found[1][r, c]
        covered += int((seen & _alike(pieces, s.rgb)).sum()) >= COVERED_ALL_ROUND
    return 2 * covered > len(flat)


def _alike(rgb: npt.NDArray[np.float32], other: F32) -> npt.NDArray[np.bool_]:
    """Per colour (the last axis: linear RGB), whether it is within COVERED_RATIO of ``other`` in every channel."""
    ratio = np.maximum(rgb, 1e-4) / np.maximum(other, 1e-4)
    return np.asarray(np.all((ratio <= COVERED_RATIO) & (ratio >= 1 / COVERED_RATIO), axis=-1))


def _grid_outlines(rect: _Rectified, grid: Grid) -> tuple[F32, npt.NDArray[np.bool_]] | None:
    """Every cell's printed outline, cut in COVERED_PIECES pieces a side (top, bottom, left, right line), each
    COVERED_PIECE_MM wide across the line: their mean linear RGB (rows, cols, 4 pieces, 3) and whether each lies in
    the photo (rows, cols, 4 pieces). None when the grid is out of the rectified area."""
    n, w = COVERED_PIECES, COVERED_PIECE_MM / 2
    (x0, y0), cell = grid.origin_mm, grid.cell_mm
    width, height = grid.size_mm
    whole = rect.rect(x0 - w, y0 - w, x0 + width + w, y0 + height + w)
    if whole is None:
        return None
    raw, inside = rect.raw[whole], rect.peak[whole] > 0
    h, wd = inside.shape

    def at(mm: float, origin: float, start: int, size: int) -> int:
        return int(min(max(round((mm - origin) * rect.ppm) - start, 0), size))

    def lines(count: int, first: float, along0: float, pieces: int, across: int) -> tuple[F32, npt.NDArray[np.bool_]]:
        # across 0: lines of constant y (profiles along x); 1: lines of constant x.
        size_a, size_b = (h, wd) if across == 0 else (wd, h)
        o_a, o_b = (rect.y0, rect.x0) if across == 0 else (rect.x0, rect.y0)
        s_a, s_b = (whole[0].start, whole[1].start) if across == 0 else (whole[1].start, whole[0].start)
        end = at(along0 + pieces * cell / n, o_b, s_b, size_b)
        if end == 0:
            return np.zeros((count, pieces, 3), dtype=np.float32), np.zeros((count, pieces), dtype=bool)
        cuts = np.array([at(along0 + j * cell / n, o_b, s_b, end - 1) for j in range(pieces)])
        counts = np.diff(np.append(cuts, end))
        cols, seen = [], []
        for k in range(count):
            mid = first + k * cell
            a0 = at(mid - w, o_a, s_a, size_a - 1)
            a1 = max(at(mid + w, o_a, s_a, size_a), a0 + 1)
            strip, ok = (raw[a0:a1], inside[a0:a1]) if across == 0 else (raw[:, a0:a1].transpose(1, 0, 2),
                                                                          inside[:, a0:a1].T)
            # Up to the grid's far edge only: the last piece's sum must stop where its count does.
            profile, shown = LINEAR_LUT[strip[:, :end, ::-1]].mean(axis=0), ok[:, :end].all(axis=0)
            cols.append(np.add.reduceat(profile, cuts, axis=0) / np.maximum(counts, 1)[:, None])
            seen.append(np.logical_and.reduceat(shown, cuts) & (counts > 0))
        return np.array(cols, dtype=np.float32), np.array(seen)

    hz, hz_ok = lines(grid.rows + 1, y0, x0, grid.cols * n, 0)  # (rows + 1, cols n, 3)
    vt, vt_ok = lines(grid.cols + 1, x0, y0, grid.rows * n, 1)  # (cols + 1, rows n, 3)
    rgb = np.empty((grid.rows, grid.cols, 4 * n, 3), dtype=np.float32)
    ok = np.empty((grid.rows, grid.cols, 4 * n), dtype=bool)
    for r in range(grid.rows):
        for c in range(grid.cols):
            cs, rs = slice(c * n, (c + 1) * n), slice(r * n, (r + 1) * n)
            rgb[r, c] = np.concatenate([hz[r, cs], hz[r + 1, cs], vt[c, rs], vt[c + 1, rs]])
            ok[r, c] = np.concatenate([hz_ok[r, cs], hz_ok[r + 1, cs], vt_ok[c, rs], vt_ok[c + 1, rs]])
    return rgb, ok


def _edges_second_look(before: Mapping[CellKey, Cell], vetoed: dict[CellKey, Cell], read: _CellsRead,
                       template: Template, model: CellNet, check: CellNet | None = None) -> dict[CellKey, Cell]:
    """A calibrated grid's empty reading the edge check doubted (EDGES_REASON) stands if the cell network, which
    sees the outline and side faces a cube would show, is very sure the cell is empty: a board's own art
    (textured or patterned print) has edges inside its cells too. With a ``check`` network it stands only where
    that one also gives empty NET_PAIR_ACCEPT or more (feature ``check_p``), as every network answer on a
    calibrated grid must (_confirmed): on development seeds 537 (photo 37) and 539 (photo 58) a metal cube whose
    top looked like the print around it, read empty by its colour, showed the edges of its outline; the first
    network gave empty 0.997 and 0.983, the second 0.948 and 0.826 (seeds 530-539: those 2 confident errors
    caught, 12 right empty cells left '?'). Nor does it stand where the rules read a cube (_rules_saw_a_cube). On a
    print of wood's colour the first network must be sure at EDGES_WOOD_PRINT_ACCEPT."""
    if not EDGES_NET_ON_CALIBRATED:
        return vetoed
    keys = [k for k, c in vetoed.items() if c.reason == EDGES_REASON and k[0] in read.calibrated
            and "ref_r" in c.features]
    if not keys:
        return vetoed
    # The cross-check (CROSS_CHECK_CALIBRATED) has usually asked the network already, on the same patch: its
    # agreement with the rules' empty, or its own answer where it overruled the rules (NET_ALONE_ACCEPT).
    empty = cellnet.LABELS.index(".")
    sure: dict[CellKey, float] = {}
    for k in keys:
        f = before[k].features
        if "rules_label" in f or "check_p" in f:  # the network's own answer stood (alone, or with the second's)
            sure[k] = f["net_p"] if int(f["net_best"]) == empty else 0.0
        elif "net_agree" in f:
            sure[k] = f["net_agree"]
    ask = [k for k in keys if k not in sure]
    if ask:
        probs = _net_reads(model, read, template, ask)
        sure.update({k: float(p[empty]) for k, p in zip(ask, probs, strict=True)})
    wood_print = {g for g in {k[0] for k in keys} if _wood_print(linear_rgb_to_lab(read.print_rgb[g]))}
    standing = [k for k in keys if sure[k] >= (EDGES_WOOD_PRINT_ACCEPT if k[0] in wood_print else cellnet.ACCEPT)
                and not _rules_saw_a_cube(before[k]) and not _rules_saw_a_top(before[k])]
    checked: dict[CellKey, float] = {}
    if check is not None:
        # Where the second network already gave its word on the network's empty (_confirmed, _paired,
        # _flat_on_pale: its probability of the network's label, on the same patch), that word is reused.
        checked = {k: before[k].features["check_p"] for k in standing if "check_p" in before[k].features
                   and int(before[k].features["net_best"]) == empty}
        unasked = [k for k in standing if k not in checked]
        if unasked:
            probs = _net_reads(check, read, template, unasked)
            checked.update({k: float(p[empty]) for k, p in zip(unasked, probs, strict=True)})
    out = dict(vetoed)
    for key in standing:
        feats = {**before[key].features, **vetoed[key].features, "net_p": sure[key], "net_best": float(empty)}
        if key in checked:
            feats["check_p"] = checked[key]
            if checked[key] < NET_PAIR_ACCEPT:
                out[key] = replace(vetoed[key], features=feats)
                continue
        out[key] = replace(before[key], features=feats)
    return out


#: Whether the cell network may confirm a calibrated grid's empty reading the edge check doubted
#: (_edges_second_look).
EDGES_NET_ON_CALIBRATED = True
#: On a print of wood's colour (_wood_print) a wood cube's top looks like the print, so colour cannot tell it from an
#: empty cell, and the outline the edge check found is the one sign of it: there the first network's empty stands
#: over that outline only at this probability (as GLARE_ALONE_ACCEPT where the rules cannot tell a glare cell).
#: Development seed 558 (photo 56, read once, before the change): a wood cube on a pale wood-coloured print, its top
#: and footprint within 1 of the print, its outline's edges found (0.74), empty to the networks at 0.984 and 0.992: a
#: confident error. On 20 photos each of seeds 530, 548 and 549 and 60 each of 556-558, the networks' empty stood
#: over the edge check on 93 other cells of such prints, all empty and all at 0.995 or more (elsewhere 313, all right,
#: 4 of them under 0.995). The second network's word stays at NET_PAIR_ACCEPT.
EDGES_WOOD_PRINT_ACCEPT = 0.995


def _rules_saw_a_cube(cell: Cell) -> bool:
    """Whether the rules read a cube in a cell (their label kept as ``rules_read``: _second_look sets it on every
    cell it cross-checks, ``rules_label`` beside it only where the network overruled them), asked of an
    empty reading the networks made over them (_edges_second_look): with the edge check seeing a cube's outline
    there too, two readers that measure different things see a cube, and the networks' empty does not stand against
    both. Development seed 549, photo 13: a metal cube at a steep angle, metal to the rules (nearest metal by 3.6
    against 17.6), its outline's edges found (1.07), empty to both networks (0.988, 0.98). On development seeds 530
    and 548-551 three other cells were read so, all of them empty (now '?'), and the unit test's seed 509, photo 92,
    is a fourth."""
    f = cell.features
    return "rules_read" in f and cellnet.LABELS[int(f["rules_read"])] != "."


def _rules_saw_a_top(cell: Cell) -> bool:
    """Whether the rules measured a cube's top in a cell they did not read (the footprint, or the hue, left them
    unsure): where a cube's top would be, one flat face (its halves within UNEVEN_MIN) as unlike the print as an
    occupied cell's top (OCCUPIED_MIN). Asked, like _rules_saw_a_cube, of an empty reading the networks made over the
    edge check's outline. Development seed 548, photo 23: a metal cube on the sandals, its top flat (0.007) and 7.5
    from the print, its footprint like it, its outline's edges found (0.89), empty to both networks (0.998, 0.994).
    On seeds 530, 548-550, 552 and 553 (360 photos) the networks' empty stood over the edge check on 568 empty
    cells; one of them, 550/7, measured so (7.0 and 0.073) and is now '?'. A highlight or a shadow's edge across
    the place is no flat face: 23 others measured over OCCUPIED_MIN with halves 0.17 to 1.1 apart."""
    f = cell.features
    return f.get("e_top", 0.0) > OCCUPIED_MIN and f.get("u_top", 1.0) < UNEVEN_MIN


#: On a grid unlike the template's print (calibrated or not), a cell read empty must be flat inside: its
#: interior's strong gradients (95th percentile of the Sobel magnitude over the mean 8-bit grey) at most this.
#: A cube the colour of the print still shows its top's outline, bright edges and side faces. (Tuning seed
#: 501 at 2000x1500: empty cells 0.11 median, 0.39 at the 90th percentile; metal cubes on grey print read
#: empty 0.97-2.3.) It was 0.6 until the fortieth session: on fresh seed 582 (photo 18) a metal cube of its
#: lavender print's colour, seen from above, measured 0.53 and was read empty by the rules (0.83) and the first
#: network (0.94). At 0.5 such a cell goes to the networks' second look (_edges_second_look), which it does not
#: pass; on seeds 509 and 577-583 (470 photos, 17,940 cells) 6 right empty cells more are '?', 582/18 is '?', and the
#: other seeds' counts are the same (on seed 577, 6 of 705 empty cells measured 0.5 to 0.6).
EMPTY_EDGES_MAX = 0.5


def _inner_edges(edges: F32, rect: _Rectified, grid: Grid, r: int, c: int, reach: float | None) -> float:
    """The cell's interior (inside its printed outline's ink) edge strength, relative to its grey level."""
    x, y = grid.cell_centre(r, c)
    h = grid.cell_mm / 2 - max(1.5, (reach or 1.0) + 0.5)
    sl = rect.rect(x - h, y - h, x + h, y + h)
    if sl is None:
        return 0.0
    level = float(cv2.cvtColor(rect.raw[sl], cv2.COLOR_BGR2GRAY).mean())
    return float(_percentile(edges[sl], 95) / max(level, 1.0))


def _spots_glare(rect: _Rectified, template: Template, pose: Pose, keys: Sequence[tuple[Grid, int, int]],
                 measures: Mapping[CellKey, _Measure], print_lum: float) -> dict[CellKey, _Measure]:
    """The cells' measures with each clipped spot's glare: a clipped highlight's halo adds white light around it,
    so cells near one are not read at all (glare 1.0). But not every clipped patch is a highlight on the print. A
    cube's top in bright light may clip: a square of the cube's size where a cube's top stands (at any angle); if
    the print around it (``print_lum``, linear luminance) is no brighter than elsewhere, it is no glare and the top
    is read (glare 0.0 in its cell). ``print_lum`` is the print around grids read against the template's print: 0
    on a board calibrated throughout, where such a top keeps its halo. Measuring it there too (each grid's
    calibrated print) read 7 to 9 cells more on development seeds 530 and 532 (100 photos) but gave 4
    confident errors on seed 511, photo 0: on a board the exposure clips, two metal and two wood cubes beside
    clipped tops were teeth to the rules, and the networks agreed. And a cube's edge catches the light as a thin
    clipped line (EDGE_SPOT_MM, EDGE_SPOT_LONG): no halo around it."""
    out = dict(measures)
    cube = template.cube_mm
    for spot in rect.glare_spots():
        if spot.thickness < EDGE_SPOT_MM and spot.sides[1] >= EDGE_SPOT_LONG * spot.sides[0]:
            continue
        if _white_top(template, pose, spot) and print_lum > 0 and rect.brightened_around(
                spot.x, spot.y, spot.radius, HALO_LEVEL * print_lum) < HALO_FRACTION:
            for g, r, c in keys:
                cx, cy = g.cell_centre(r, c)
                if math.hypot(cx - spot.x, cy - spot.y) < cube:
                    m = out[(g.name, r, c)]
                    out[(g.name, r, c)] = _Measure(m.core, m.top, 0.0, m.uneven_top)
            continue
        for g, r, c in keys:
            cx, cy = g.cell_centre(r, c)
            if math.hypot(cx - spot.x, cy - spot.y) < GLARE_HALO * spot.radius + g.cell_mm * 0.75:
                m = out[(g.name, r, c)]
                out[(g.name, r, c)] = _Measure(m.core, m.top, 1.0, m.uneven_top)
    return out


def _white_top(template: Template, pose: Pose, spot: GlareSpot) -> bool:
    """Whether a clipped patch is shaped and placed like a cube's top face: a square at any angle (not a glare
    spot's disc) of about the cube's side, centred where a cube's top would appear in some cell."""
    cube = template.cube_mm
    if not (WHITE_TOP_SIDE[0] * cube <= spot.sides[0] and spot.sides[1] <= WHITE_TOP_SIDE[1] * cube
            and spot.fill >= WHITE_TOP_FILL):
        return False
    for g in template.gear_grids:
        for r in range(g.rows):
            for c in range(g.cols):
                cx, cy = g.cell_centre(r, c)
                dx, dy = pose.top_shift(cx, cy, cube)
                if math.hypot(cx + dx - spot.x, cy + dy - spot.y) < WHITE_TOP_OFFSET:
                    return True
    return False


def _neighbours(template: Template, grid: str, r: int, c: int) -> list[tuple[str, int, int]]:
    """The 8 cells around one, across the seam where the two weapon grids touch."""
    g = template.grids[grid]
    out = []
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr == dc == 0:
                continue
            rr, cc = r + dr, c + dc
            if 0 <= rr < g.rows and 0 <= cc < g.cols:
                out.append((grid, rr, cc))
            elif grid == "weapon_left" and cc == g.cols and 0 <= rr < template.grids["weapon_right"].rows:
                out.append(("weapon_right", rr, 0))
            elif grid == "weapon_right" and cc == -1 and 0 <= rr < template.grids["weapon_left"].rows:
                out.append(("weapon_left", rr, template.grids["weapon_left"].cols - 1))
    return out


def _hue_shift(rho: F32, board_lab: F32, board_rgb: F32) -> tuple[float, float, float]:
    """(luminance ratio, a* shift, b* shift) of a normalised reflectance against the print, at equal luminance."""
    ratio = float(rho @ _LUMA) / max(float(board_rgb @ _LUMA), 1e-6)
    lab = lab_of(rho / max(ratio, 1e-4))
    return ratio, lab[1] - float(board_lab[1]), lab[2] - float(board_lab[2])


def _observed_shadows(bands: Mapping[str, list[_BandSample]], board_lab: F32) -> list[tuple[float, float, float]]:
    """Shadows on the print around the grids (cast by cubes at the grids' edges): how dark they are and
    which way they shift the print's hue. With one light they keep its hue; with a lamp and a window
    they take the other light's colour, and that is what a dark cube must not be mistaken for."""
    board_rgb = lab_to_linear_rgb(board_lab)
    found = []
    for band in bands.values():
        samples = [_BandSample(s.x, s.y, s.rgb if s.plain is None else s.plain) for s in band if not s.clipped]
        refs = _local_references(samples, [(s.x, s.y) for s in samples], range(len(samples)))
        for s, ref in zip(samples, refs, strict=True):
            if ref is None:
                continue
            ratio, da, db = _hue_shift(s.rgb / ref[0] * board_rgb, board_lab, board_rgb)
            if ratio < 0.85:
                found.append((ratio, da, db))
    return found


#: The ring of print between a cube's edge and the printed cell outline: (inner, outer) offsets in mm from
#: the cube's nominal edge and the outline (the outline's ink and the cube's placement jitter kept out).
RING_CLEAR_CUBE = 0.45
RING_CLEAR_LINE = 0.6
#: A ring piece is lit print when its light is at least this fraction of the reference's, at the print's hue.
RING_LIT = 0.8
RING_HUE = 4.0


def _ring_towards(rect: _Rectified, template: Template, pose: Pose, cube: float, key: CellKey, nkey: CellKey,
                  cells: Mapping[CellKey, Cell], board_lab: F32) -> tuple[float, float, float] | None:
    """The print in a cell's own ring on the side facing a neighbour (three pieces along a side, one at a
    corner): the darkest piece's (luminance ratio, a* shift, b* shift) against the cell's reference, or None
    when the ring there is hidden (a cube leans over it) or cannot be measured.

    A neighbour's cast shadow reaches this cell's middle only by crossing that side of its ring (cube
    shadows are the footprint swept away from the light, and lights are well above the table), so if every
    piece there is lit print, a dark middle is not that neighbour's shadow."""
    f = cells[key].features
    if "ref_r" not in f:
        return None
    ref = np.array([f["ref_r"], f["ref_g"], f["ref_b"]], dtype=np.float32)
    g = template.grids[key[0]]
    cx, cy = g.cell_centre(key[1], key[2])
    nx, ny = template.grids[nkey[0]].cell_centre(nkey[1], nkey[2])
    sx, sy = int(np.sign(round(nx - cx, 3))), int(np.sign(round(ny - cy, 3)))
    half = cube / 2
    lo, hi = half + RING_CLEAR_CUBE, g.cell_mm / 2 - RING_CLEAR_LINE
    if hi - lo < 0.5:
        return None
    dx, dy = pose.top_shift(cx, cy, cube)
    # This cell's own cube (if any) leans its sides over the ring on the parallax side: not print there.
    if (sx and sx * dx > RING_CLEAR_CUBE * 0.5) or (sy and sy * dy > RING_CLEAR_CUBE * 0.5):
        return None
    # ... and the neighbour's cube (if any) leans over the gap towards it.
    ndx, ndy = pose.top_shift(nx, ny, cube)
    reach = g.cell_mm - hi - half - RING_CLEAR_CUBE
    if (sx and -sx * ndx > reach) or (sy and -sy * ndy > reach):
        return None

    def span(s: int) -> list[tuple[float, float]]:
        if s > 0:
            return [(lo, hi)]
        if s < 0:
            return [(-hi, -lo)]
        edges = np.linspace(-hi, hi, 4)
        return [(float(a), float(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]

    board_rgb = lab_to_linear_rgb(board_lab)
    worst: tuple[float, float, float] | None = None
    for x0, x1 in span(sx):
        for y0, y1 in span(sy):
            sl = rect.rect(cx + x0, cy + y0, cx + x1, cy + y1)
            if sl is None:
                return None
            mean, clipped, inside = rect.stats(sl)
            if not inside or clipped > 0:
                return None
            ratio, da, db = _hue_shift(mean / ref * board_rgb, board_lab, board_rgb)
            if worst is None or ratio < worst[0]:
                worst = (ratio, da, db)
    return worst


#: Sides (dx, dy) of a cell: right, left, down, up on the board.
SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))
SHADOW_SIDE_DARK = 0.8
SHADOW_SIDE_MIN_CUBES = 3
#: Shadows that must all keep the print's hue before the photo counts as lit by one colour of light.
NEUTRAL_SHADOWS_MIN = 3
NEUTRAL_FRACTION = 0.8
#: A cell darker than this fraction of the print's light (both regions) lies in a shadow.
SHADED_MAX = 0.85
#: Shadows to see in a photo before trusting that they show every colour a shadow takes in it.
SHADOWS_SEEN_MIN = 1


def _shadow_sides(template: Template, cells: Mapping[CellKey, Cell],
                  ring: Callable[[CellKey, CellKey], tuple[float, float, float] | None]
                  ) -> tuple[set[tuple[int, int]] | None, list[tuple[float, float, float]]]:
    """The sides on which confidently read cubes cast their shadows in this photo (their own ring is dark
    there), or None when too few cubes show it (with one light one or two sides, with two lights more);
    and the shadows seen on empty cells' rings next to cubes, a few mm clear of the cube (luminance
    ratio, a* shift, b* shift): the colours shadows take in this photo's light."""
    ratios: dict[tuple[int, int], list[float]] = {s: [] for s in SIDES}
    dark: list[tuple[float, float, float]] = []
    for sides in _cube_ring_pieces(template, cells, ring).values():
        for side, (piece, beside) in sides.items():
            if beside and piece[0] < SHADOW_SIDE_DARK:
                dark.append(piece)
            ratios[side].append(piece[0])

    if sum(len(v) for v in ratios.values()) < 2 * SHADOW_SIDE_MIN_CUBES:
        return None, dark
    out = set()
    for side, vals in ratios.items():
        if len(vals) < SHADOW_SIDE_MIN_CUBES or float(_median(vals)) < SHADOW_SIDE_DARK:
            out.add(side)  # unseen sides count as shadow sides: nothing is assumed lit without evidence
    return out, dark


def _could_shadow(template: Template, caster: CellKey, target: CellKey, shadow_sides: set[tuple[int, int]] | None
                  ) -> bool:
    """Whether the caster's shadow can fall towards the target, given the sides shadows fall on."""
    if shadow_sides is None:
        return True
    ax, ay = template.grids[caster[0]].cell_centre(caster[1], caster[2])
    bx, by = template.grids[target[0]].cell_centre(target[1], target[2])
    dx, dy = int(np.sign(round(bx - ax, 3))), int(np.sign(round(by - ay, 3)))
    return any((sx and sx == dx) or (sy and sy == dy) for sx, sy in shadow_sides)


#: A shadow's hue shift this large shows which way the lights' colours differ in this photo.
SHADOW_LINE_MIN = 2.0


def _on_shadow_line(da: float, db: float, seen: Sequence[tuple[float, float, float]]) -> bool:
    """Whether a darker patch's hue shift is one a shadow can take in this photo's light. With lights of
    two colours a shadow blocks one of them and takes the other's colour: every shadow's shift lies on the
    line through the print's hue along the lights' difference (either way along it, whichever light is
    blocked); a partial shadow lies on it nearer the print. The line is the one the shadows seen show."""
    for _, sa, sb in seen:
        norm = math.hypot(sa, sb)
        if norm < SHADOW_LINE_MIN:
            continue
        across = abs(da * sb - db * sa) / norm
        if across < SHADOW_HUE_MATCH / 2 and math.hypot(da, db) < SHADOW_HUE_MAX:
            return True
    return False


#: Seen shadows needed along a hue direction, and how many must agree on its far end, to know the umbra.
UMBRA_SEEN_MIN = 3
UMBRA_AGREE = 2
#: How much further along (hue shift, Lab units, and at least this fraction) and how much darker than the
#: umbra a patch must be to be no shadow at all.
UMBRA_BEYOND = 3.0
UMBRA_BEYOND_FRACTION = 0.2
UMBRA_DARKER = 0.05


def _beyond_umbra(ratio: float, da: float, db: float, seen: Sequence[tuple[float, float, float]]) -> bool:
    """Whether a dark patch is further along the shadows' hue line, and darker, than the deepest shadow of
    that light in this photo. Blocking a light shifts the print's hue towards the other light's colour,
    the more the more of it is blocked; the umbra, where it is blocked entirely, is the far end (blocking
    the other light too darkens the print further but moves its hue back). So when several shadows seen
    agree where the far end is, a patch clearly beyond it in hue and darker is not a shadow but a cube."""
    norm = math.hypot(da, db)
    if norm < SHADOW_LINE_MIN:
        return False
    ux, uy = da / norm, db / norm
    along = [(sa * ux + sb * uy, sr) for sr, sa, sb in seen
             if sa * ux + sb * uy > SHADOW_LINE_MIN and abs(sa * uy - sb * ux) < SHADOW_HUE_MATCH / 2]
    if len(along) < UMBRA_SEEN_MIN:
        return False
    far, far_ratio = max(along)
    if sum(1 for k, _ in along if k > far - 2.5) < UMBRA_AGREE:
        return False
    deepest = min(sr for k, sr in along if k > far - 2.5)
    return (norm > far + max(UMBRA_BEYOND, UMBRA_BEYOND_FRACTION * far)
            and ratio < min(deepest, far_ratio) - UMBRA_DARKER)


#: Band pieces darker than this fraction of the lit print nearby are in a shadow.
BAND_SHADOWED = 0.85
#: Confident cubes on each side's outer edge of the grids needed to show any long shadow on the band.
EDGE_CUBES_MIN = 2


def _band_unshaded(samples: Sequence[_BandSample]) -> bool:
    """Whether no piece of the print around the grids lies in a shadow: every piece is nearly as bright as
    the brightest print within LIT_RADIUS of it."""
    if len(samples) < 12:
        return False
    pos = np.array([[s.x, s.y] for s in samples])
    lum = np.array([float(s.rgb @ _LUMA) for s in samples])
    dist = np.hypot(pos[:, None, 0] - pos[None, :, 0], pos[:, None, 1] - pos[None, :, 1])
    near = np.where(dist < LIT_RADIUS, lum[None, :], np.nan)
    lit = np.nanquantile(near, 0.9, axis=1)
    return bool(np.all(lum >= BAND_SHADOWED * lit))


def _edges_covered(template: Template, cells: Mapping[CellKey, Cell]) -> bool:
    """Whether confident cubes stand on every side's outer edge of the grids (the seam between the weapon
    grids is no edge): a shadow long enough to darken a neighbour's top place (it must reach 5-10 mm past
    the cube) falls, from the cubes on the side it points to, across the band of print around the grid
    (4-7.5 mm from them), whichever way the light comes from."""
    counts = dict.fromkeys(SIDES, 0)
    for (name, r, c), cell in cells.items():
        if cell.label not in ("W", "M", "T") or cell.confidence < 0.8:
            continue
        g = template.grids[name]
        counts[(0, -1)] += r == 0
        counts[(0, 1)] += r == g.rows - 1
        counts[(-1, 0)] += c == 0 and name != "weapon_right"
        counts[(1, 0)] += c == g.cols - 1 and name != "weapon_left"
    return all(n >= EDGE_CUBES_MIN for n in counts.values())


def _shadow_guard(cells: dict[tuple[str, int, int], Cell], template: Template,
                  shadows: Sequence[tuple[float, float, float]], cube_lab: Mapping[str, F64],
                  ring: Callable[[CellKey, CellKey], tuple[float, float, float] | None] | None = None,
                  *, long_shadows_absent: bool = False) -> dict[tuple[str, int, int], Cell]:
    """A dark patch next to a cube may be that cube's shadow. A wood or metal reading there is kept only
    if its hue differs from every shadow seen on the print in this photo (or, when none was seen, from
    anything a shadow under mixed light could take), or if the cell's own ring of print is lit on the side
    of every neighbour whose shadow could fall on it (shadows fall the way the confident cubes' rings are
    dark), or if the photo shows no long shadows (the band of print is nowhere shaded though cubes stand on
    every outer edge), or if it lies beyond the deepest shadow of its hue. The other way round, a cell left
    undecided that looks exactly like a shadow seen in this photo and like no cube (or is darker than the
    print in both regions and its top unlike metal, which is as dark as a shadow) is empty, and so is one
    where a cube's top would show lit print and only the footprint is darker (or the other way round), in a
    shadow's colour, beside a cube that casts its shadow that way; and a pale cube held back as
    possibly print that lost its yellow is a tooth when the shadows seen keep the print's hue."""
    out = dict(cells)
    shadow_sides, beside = _shadow_sides(template, cells, ring) if ring is not None else (None, [])
    seen = [*shadows, *beside]
    # Every shadow seen keeps the print's hue: one light (or lights of one colour), so nothing on the print
    # turns bluish, and a tooth's paler colour is not print that lost its yellow in another light's shadow.
    # (One in five may be off: a piece of a cube's side face caught beside it looks like a tinted shadow.)
    neutral = sum(math.hypot(da, db) < RING_HUE for _, da, db in seen)
    one_colour = neutral >= NEUTRAL_SHADOWS_MIN and neutral >= NEUTRAL_FRACTION * len(seen)
    for key, cell in cells.items():
        if (cell.label == "?" and cell.reason == "cube colour unclear" and one_colour
                and cell.features.get("t_uncapped", 0.0) >= CONFIDENCE_THRESHOLD):
            out[key] = Cell(cell.grid, cell.row, cell.col, "T", cell.features["t_uncapped"], "", cell.features)
            continue
        if cell.label == "?" and cell.reason == "cannot tell empty from occupied" and (shadows or beside):
            f = cell.features
            matches = all(
                any(math.hypot(f.get(f"da_{reg}", 99.0) - sa, f.get(f"db_{reg}", 99.0) - sb) < SHADOW_HUE_MATCH / 2
                    and abs(f.get(f"r_{reg}", 9.0) - sr) < 0.1 for sr, sa, sb in [*shadows, *beside])
                for reg in ("core", "top"))
            lab = [f.get("L_top"), f.get("a_top"), f.get("b_top")]
            far = None not in lab and min(
                _weighted(lab, ref, MATERIAL_L_WEIGHT) for ref in cube_lab.values()) > MATERIAL_MAX
            beside_cube = any(cells[n].label in ("W", "M", "T") for n in _neighbours(template, *key))
            # In shadow (both regions darker than the print) a match with a seen shadow is enough: a cube's
            # top stands above the shadows its neighbours cast, so it is not that dark beside lit print -
            # unless it is metal, as dark as a shadow: a top that looks like metal is not ruled out.
            metal_like = None not in lab and "M" in cube_lab and _weighted(
                lab, cube_lab["M"], MATERIAL_L_WEIGHT) < MATERIAL_MAX
            shaded = f.get("r_top", 1.0) < SHADED_MAX and f.get("r_core", 1.0) < SHADED_MAX and not metal_like
            # The top face's place shows lit print and only the footprint is darker, in a colour a shadow
            # takes in this photo's light (on the line of the shadows seen), on the side a confident
            # neighbour casts its shadow: a cube's top would stand there, above any shadow, and would not
            # look like lit print, so the footprint is print in that neighbour's shadow.
            top_print = (f.get("e_top", 99.0) < TOP_PRINT_MAX and TOP_PRINT_LIT <= f.get("r_top", 0.0) <= BRIGHTER_MAX
                         and f.get("u_top", 1.0) < UNEVEN_MIN)
            core_shadow = (SHADOW_MIN <= f.get("r_core", 9.0) < f.get("r_top", 0.0) - 0.05
                           and _on_shadow_line(f.get("da_core", 99.0), f.get("db_core", 99.0), [*shadows, *beside]))
            casters = [n for n in _neighbours(template, *key) if cells[n].label in ("W", "M", "T")
                       and cells[n].confidence >= 0.8 and _could_shadow(template, n, key, shadow_sides)]
            # The other way round: the footprint (which any cube hides) shows lit print, and only the place
            # of a top is darker, in a shadow's colour: no cube, and a neighbour's shadow falls there.
            core_print = (f.get("e_core", 99.0) < TOP_PRINT_MAX
                          and TOP_PRINT_LIT <= f.get("r_core", 0.0) <= BRIGHTER_MAX)
            top_shadow = (SHADOW_MIN <= f.get("r_top", 9.0) < f.get("r_core", 0.0) - 0.05
                          and _on_shadow_line(f.get("da_top", 99.0), f.get("db_top", 99.0), [*shadows, *beside]))
            if ((beside_cube and matches and (far or shaded)) or (top_print and core_shadow and casters)
                    or (core_print and top_shadow and casters)):
                out[key] = Cell(cell.grid, cell.row, cell.col, ".", 0.6, "", f)
            elif (beside_cube and f.get("u_top", 0.0) > UNEVEN_MIN and f.get("r_top", 1.0) < 1.0
                  and f.get("e_core", 99.0) < EMPTY_MAX):
                # A shadow's edge runs across where a cube's flat top would be: no cube there.
                out[key] = Cell(cell.grid, cell.row, cell.col, ".", 0.55, "", f)
            continue
        if cell.label not in ("W", "M"):
            continue
        f = cell.features
        dark = f.get("r_top", 1.0) < SHADOW_DARK and f.get("r_core", 1.0) < SHADOW_DARK
        if not dark or not any(cells[n].label in ("W", "M", "T", "?") for n in _neighbours(template, *key)):
            continue
        da, db = f.get("da_top", 0.0), f.get("db_top", 0.0)
        # Shadows seen on the print around the grids and beside cubes on empty cells.
        if len(seen) >= SHADOWS_SEEN_MIN:
            explained = any(math.hypot(da - sa, db - sb) < SHADOW_HUE_MATCH and abs(f.get("r_top", 1.0) - sr) < 0.15
                            for sr, sa, sb in seen)
        else:
            # No shadow seen at all: one under mixed light could take any hue this close to the print's,
            # unless the photo shows there are no long shadows (see _band_unshaded).
            explained = math.hypot(da, db) < SHADOW_HUE_MAX and not long_shadows_absent
        if explained and _beyond_umbra(f.get("r_top", 1.0), da, db, seen):
            explained = False
        if explained and ring is not None:
            # Compare with this cell's own ring on the side of every neighbour whose shadow could fall
            # here (shadows fall the same way from every cube: the way confident cubes' rings are dark):
            # all lit print there means no neighbour's shadow reaches the middle, so the dark,
            # shadow-coloured middle is the cube itself.
            casters = [n for n in _neighbours(template, *key)
                       if (cells[n].label in ("W", "M", "T", "?") or cells[n].features.get("r_top", 1.0) < RING_LIT)
                       and _could_shadow(template, n, key, shadow_sides)]
            lit = []
            for n in casters:
                piece = ring(key, n)
                lit.append(piece is not None and piece[0] >= RING_LIT and math.hypot(piece[1], piece[2]) < RING_HUE)
            explained = shadow_sides is None or not all(lit)
        if explained:
            out[key] = Cell(cell.grid, cell.row, cell.col, "?", min(cell.confidence, 0.3),
                            "could be a neighbouring cube's shadow", f)
    return out


#: A cell read empty with a lit middle, beside print darker than this fraction of that middle along a whole
#: side (its own ring there, or the empty neighbour's ring facing it) where no cube around could cast that
#: shadow, may be a cube casting its own shadow: a tooth whose top looks like the print in mixed light.
OWN_SHADOW_DARK = 0.8
#: ... the middle piece of the side decides; the three pieces' mean may be this much lighter.
OWN_SHADOW_SPREAD = 0.08
#: The middle of such a cell is lit: no darker than this fraction of its reference.
OWN_SHADOW_LIT = 0.85
#: How far (mm) from the printed outline's centre its ink (and the blur around it) reaches.
RING_LINE_GAP = 0.75
#: Cubes within this distance (mm) show which way shadows fall near a cell: a lamp close above the board
#: casts them outwards from under it, so the direction differs from one side of the board to the other.
LOCAL_SHADOW_RADIUS = 28.0
#: Ring measures that must show a side lit before shadows are taken not to fall that way.
LOCAL_LIT_MIN = 2

Side = tuple[int, int]


def _side_pieces(rect: _Rectified, template: Template, key: CellKey, side: Side, cube: float
                 ) -> tuple[list[float], list[float]] | None:
    """The print's linear luminance along one whole side of a cell, in three pieces each: in the cell's
    own ring (between its cube's edge and the printed outline) and in the neighbour's ring facing it
    (between the outline and the neighbour's cube's edge); a list is empty where that ring is too thin.
    The outline is taken where it is printed (the darkest line near where the template puts it: the
    markers place it only to a few tenths of a mm), so no ink is measured. None when the strip cannot be
    measured (outside the photo, clipped)."""
    g = template.grids[key[0]]
    cx, cy = g.cell_centre(key[1], key[2])
    sx, sy = side
    half, along = cube / 2, g.cell_mm / 2 - RING_CLEAR_LINE
    near, far = half + RING_CLEAR_CUBE - 0.4, g.cell_mm - half - RING_CLEAR_CUBE + 0.4
    if sx:
        x0, x1 = (cx + near, cx + far) if sx > 0 else (cx - far, cx - near)
        sl = rect.rect(x0, cy - along, x1, cy + along)
    else:
        y0, y1 = (cy + near, cy + far) if sy > 0 else (cy - far, cy - near)
        sl = rect.rect(cx - along, y0, cx + along, y1)
    if sl is None:
        return None
    raw = rect.raw[sl]
    clipped, outside, _size = rect.counts(sl)
    if raw.size == 0 or outside or clipped:
        return None
    lum = rect.lum[sl]
    if sy:
        lum = lum.T
    # Now axis 0 runs along the side and axis 1 outwards from the cell's centre.
    if sx + sy < 0:
        lum = lum[:, ::-1]
    n_along, n_out = lum.shape
    if n_out < 6 or n_along < 6:
        return None
    dist = near + (np.arange(n_out) + 0.5) / rect.ppm
    third = n_along // 3
    profile = _mean(lum[third: n_along - third], axis=0)
    window = np.abs(dist - g.cell_mm / 2) < 1.0
    line = float(dist[int(np.argmin(np.where(window, profile, np.inf)))])
    out: list[list[float]] = []
    for lo, hi in ((half + RING_CLEAR_CUBE, line - RING_LINE_GAP), (line + RING_LINE_GAP, far - 0.4)):
        cols = (dist >= lo) & (dist <= hi)
        if cols.sum() < 2:
            out.append([])
            continue
        part = _mean(lum[:, cols], axis=1)
        # Three pieces as np.array_split makes them (the first ones a pixel longer where it does not divide).
        q, extra = divmod(len(part), 3)
        ends = np.cumsum([0] + [q + (i < extra) for i in range(3)])
        out.append([float(_mean(part[a:b])) for a, b in zip(ends[:-1], ends[1:], strict=True)])
    return out[0], out[1]


def _cell_middle(rect: _Rectified, grid: Grid, r: int, c: int, share: float) -> tuple[F32, float, bool] | None:
    """_Rectified.stats of a cell's middle: the square reaching ``share`` of the cell's side from its centre each way
    (None where it lies outside the rectified image)."""
    x, y = grid.cell_centre(r, c)
    q = grid.cell_mm * share
    sl = rect.rect(x - q, y - q, x + q, y + q)
    return rect.stats(sl) if sl is not None else None


def _grid_cell(grid: Grid, x: float, y: float) -> tuple[int, int]:
    """The (row, column) of ``grid`` that board point (x, y) lies in (outside the grid when out of range)."""
    return (int(math.floor((y - grid.origin_mm[1]) / grid.cell_mm)),
            int(math.floor((x - grid.origin_mm[0]) / grid.cell_mm)))


def _cell_at(template: Template, x: float, y: float) -> CellKey | None:
    """The gear-grid cell containing board point (x, y), if any."""
    for g in template.gear_grids:
        r, c = _grid_cell(g, x, y)
        if 0 <= r < g.rows and 0 <= c < g.cols:
            return (g.name, r, c)
    return None


def _cube_ring_pieces(template: Template, cells: Mapping[CellKey, Cell],
                      ring: Callable[[CellKey, CellKey], tuple[float, float, float] | None]
                      ) -> dict[CellKey, dict[Side, tuple[tuple[float, float, float], bool]]]:
    """Each confident cube's ring piece (luminance ratio, a* shift, b* shift) on the sides where it can be
    measured, and whether it was measured beside the cube: its own ring, or where the cube leans over that,
    the empty neighbour's ring facing it, a few mm further out (which shows whether its shadow reaches that
    far)."""
    out: dict[CellKey, dict[Side, tuple[tuple[float, float, float], bool]]] = {}
    for key, cell in cells.items():
        if cell.label not in ("W", "M", "T") or cell.confidence < 0.8:
            continue
        g = template.grids[key[0]]
        found = {}
        for sx, sy in SIDES:
            r, c = key[1] + sy, key[2] + sx
            if not (0 <= r < g.rows and 0 <= c < g.cols):
                continue
            n = (key[0], r, c)
            piece, beside = ring(key, n), False
            if piece is None and cells[n].label == "." and cells[n].confidence >= 0.8:
                piece, beside = ring(n, key), True
            if piece is not None:
                found[(sx, sy)] = (piece, beside)
        out[key] = found
    return out


def _cube_rings(template: Template, cells: Mapping[CellKey, Cell],
                ring: Callable[[CellKey, CellKey], tuple[float, float, float] | None]
                ) -> dict[CellKey, dict[Side, float]]:
    """Each confident cube's ring darkness (luminance ratio) on the sides where it can be measured."""
    return {key: {side: piece[0] for side, (piece, _beside) in sides.items()}
            for key, sides in _cube_ring_pieces(template, cells, ring).items()}


def _local_shadow_sides(template: Template, rings: Mapping[CellKey, Mapping[Side, float]], key: CellKey
                        ) -> set[Side]:
    """The sides shadows may fall on near a cell: every side but those the confident cubes within
    LOCAL_SHADOW_RADIUS show lit (at least LOCAL_LIT_MIN ring measures, their median lit)."""
    x, y = template.grids[key[0]].cell_centre(key[1], key[2])
    vals: dict[Side, list[float]] = {s: [] for s in SIDES}
    for other, sides in rings.items():
        ox, oy = template.grids[other[0]].cell_centre(other[1], other[2])
        if math.hypot(ox - x, oy - y) <= LOCAL_SHADOW_RADIUS:
            for side, ratio in sides.items():
                vals[side].append(ratio)
    return {s for s, v in vals.items() if len(v) < LOCAL_LIT_MIN or float(_median(v)) < SHADOW_SIDE_DARK}


def _offset(template: Template, key: CellKey, ax: int, ay: int) -> CellKey | None:
    """The cell ``ax`` columns and ``ay`` rows away on the board (across the weapon grids' seam)."""
    g = template.grids[key[0]]
    cx, cy = g.cell_centre(key[1], key[2])
    return _cell_at(template, cx + ax * g.cell_mm, cy + ay * g.cell_mm)


def _may_shade_side(template: Template, cells: Mapping[CellKey, Cell], key: CellKey, side: Side,
                    sides: set[Side]) -> bool:
    """Whether a cube (or an unread cell) around a cell could cast a shadow along the given side of it
    without shading its middle: the neighbour on that side (a short shadow back towards the cell), the two
    diagonal ones if shadows fall towards the cell along both axes, and a confident cube beside it if
    shadows fall along that side and outwards (a long shadow along the ring)."""
    sx, sy = side
    px, py = sy, sx  # along the side

    def cube(ax: int, ay: int, *, sure: bool = False) -> bool:
        n = _offset(template, key, ax, ay)
        if n is None:
            return False
        if sure:
            return cells[n].label in ("W", "M", "T") and cells[n].confidence >= 0.8
        return cells[n].label != "."

    return (cube(sx, sy)
            or (cube(sx + px, sy + py) and {(-sx, -sy), (-px, -py)} <= sides)
            or (cube(sx - px, sy - py) and {(-sx, -sy), (px, py)} <= sides)
            or (cube(px, py, sure=True) and {(sx, sy), (-px, -py)} <= sides)
            or (cube(-px, -py, sure=True) and {(sx, sy), (px, py)} <= sides))


def _own_shadow_guard(cells: dict[CellKey, Cell], measures: Mapping[CellKey, _Measure], rect: _Rectified,
                      template: Template, pose: Pose, cube: float,
                      rings: Mapping[CellKey, Mapping[Side, float]]) -> dict[CellKey, Cell]:
    """A cell read empty whose middle is lit print, with a shadow along a whole side of it (its own ring
    there, or the empty neighbour's ring facing it) that no cube around it can cast, is a cube casting
    its own shadow: a tooth whose top, in mixed light and a hand's shadow, looks like the print. Cube
    shadows are the footprint swept away from the light, so print dark along a whole side needs a cube
    right there; flat print casts none. Such a cell is '?', never confidently empty."""
    out = dict(cells)
    strips: dict[tuple[CellKey, Side], tuple[list[float], list[float]] | None] = {}

    def strip(key: CellKey, side: Side) -> tuple[list[float], list[float]] | None:
        if (key, side) not in strips:
            strips[(key, side)] = _side_pieces(rect, template, key, side, cube)
        return strips[(key, side)]

    for key, cell in cells.items():
        m = measures[key]
        f = cell.features
        if (cell.label != "." or cell.confidence < CONFIDENCE_THRESHOLD or m.core is None or m.top is None
                or min(f.get("r_core", 0.0), f.get("r_top", 0.0)) < OWN_SHADOW_LIT):
            continue
        mid = max(float(((m.core + m.top) / 2) @ _LUMA), 1e-6)
        g = template.grids[key[0]]
        dx, dy = pose.top_shift(*g.cell_centre(key[1], key[2]), cube)
        sides = _local_shadow_sides(template, rings, key)
        # Where the ring pieces lie (mm from the cell's centre): the own ring, the neighbour's facing it.
        d_own = (cube / 2 + RING_CLEAR_CUBE + g.cell_mm / 2 - RING_CLEAR_LINE) / 2
        d_facing = g.cell_mm - d_own
        darkest = math.inf
        for sx, sy in SIDES:
            if (sx, sy) not in sides or _may_shade_side(template, cells, key, (sx, sy), sides):
                continue
            pieces = strip(key, (sx, sy))
            if pieces is None:
                continue
            own, facing = pieces
            # A soft, wide shadow (a hand's penumbra) brightens the print steadily across the cell: judge
            # this side against the light expected there from the middle and the opposite side's print.
            slope = 0.0
            opposite = strip(key, (-sx, -sy))
            if opposite is not None and (opposite[0] or opposite[1]):
                level, dist = (opposite[0][1], d_own) if opposite[0] else (opposite[1][1], d_facing)
                slope = max(0.0, (level - mid) / dist)
            found: list[tuple[list[float], float]] = []
            # The cell's own ring there, unless its cube (if any) leans over it.
            if own and sx * dx + sy * dy <= RING_CLEAR_CUBE * 0.5:
                found.append((own, d_own))
            n = _offset(template, key, sx, sy)
            if facing and n is not None:
                nf = cells[n].features
                shaded = min(nf.get("r_core", 0.0), nf.get("r_top", 0.0)) < OWN_SHADOW_LIT
                # A shaded neighbour: a cube beyond it may cast its shadow across it to the facing ring.
                if not (shaded and any((b := _offset(template, key, 2 * sx + k * sy, 2 * sy + k * sx)) is not None
                                       and cells[b].label != "." for k in (-1, 0, 1))):
                    found.append((facing, d_facing))
            for lum, dist in found:
                expected = mid - slope * dist
                if expected < 0.5 * mid:
                    continue
                darkest = min(darkest, max(lum[1], float(np.mean(lum)) - OWN_SHADOW_SPREAD * mid) / expected)
        if math.isfinite(darkest):
            feats = {**f, "own_dark": darkest}
            if darkest < OWN_SHADOW_DARK:
                out[key] = Cell(cell.grid, cell.row, cell.col, "?", min(cell.confidence, 0.3),
                                "a shadow beside it that only a cube there could cast", feats)
            else:
                out[key] = Cell(cell.grid, cell.row, cell.col, cell.label, cell.confidence, cell.reason, feats)
    return out


def _image_ppm(hom: F64, template: Template) -> float:
    g = template.grids["weapon_left"]
    pts = np.array([[g.origin_mm], [[g.origin_mm[0] + g.size_mm[0], g.origin_mm[1]]]], dtype=np.float64)
    img = cv2.perspectiveTransform(pts, hom).reshape(-1, 2)
    return float(np.linalg.norm(img[1] - img[0]) / g.size_mm[0])


BAND_HIDDEN_REASON = "the board around this grid is hidden"
UNSET_REASON = "this grid was not set up with the camera (Gear > Set up the camera, with a photo that shows it)"
UNFAMILIAR_REASON = ("the board's print looks unlike its template or calibration (measured against the stickers' "
                     "patches); set up the camera for this board (Gear > Set up the camera)")
#: How much darker or lighter the print's light may really be, on a board unlike the template.
UNFAMILIAR_LIGHT = (0.8, 1.25)
#: ... and its lightness, measured against stickers in another light than the cell's, counts for less.
UNFAMILIAR_L_WEIGHT = 0.35
#: The measured print this far (Lab) from the template's: the photo's board looks unlike the template.
PRINT_UNLIKE = 15.0
UNLIKE_NOTE_CALIBRATED = ("the board in this photo looks unlike its calibration (its print has another colour); "
                          "if it is another board, set up the camera for it (Gear > Set up the camera)")
#: A calibrated board refused only because too little of its grids' print shows to check it against its calibration
#: (fewer than LIKE_PRINT_MIN flat cells in all: cubes, their shadows or glare across every empty cell), or, where its
#: print measured against the stickers needed LIKE_PRINT_SHIFTED cells like it to confirm it, too few such cells once
#: the cubes are read (_unvouched_note). It may be the calibrated board or another: the reason names both, and what to
#: do for each. Development seed 574, photo 53, its own calibration: the camera 272 mm over the board's plane and beyond
#: its edge, 32 of 39 cells holding cubes, each empty cell crossed by a neighbour's cube or shadow, the print around the
#: grids 0.8-2.9 Lab units from its calibration; it had been refused with advice to set up the camera again, which would
#: not have helped. On the development seeds 556-562 and 564-575 each read also with the next photo's calibration
#: (another board), 39 of the 1,140 other boards' refusals and 1 of the 8 own boards' were of this kind; with
#: _unvouched_note and the grids left unread for the light around them (thirty-eighth session), 40 of 1,134 and 3 of 4.
#: A board with fewer than two empty cells can never show enough print.
UNVOUCHED_NOTE = ("too little of the grids' print shows between the cubes (or past their shadows or glare) to check "
                  "that this is the board set up with the camera")
UNVOUCHED_REASON = ("too little of the grids' print shows to check that this is the board set up with the camera: if "
                    "it is, photograph it from higher up, straight down, without glare (with fewer than two empty "
                    "cells it cannot be checked: enter it by hand); if it is another board, set up the camera for it "
                    "(Gear > Set up the camera)")
#: A calibrated grid's print measured against the stickers up to this far (Lab) from its calibration, on a board
#: whose grids look like their calibration against the print around them (checks that do not depend on the
#: light), is the stickers lit unlike the board (a lamp close to one side), not another board: read with the
#: calibrated print, with STICKER_LIGHT_NOTE. On development seeds 508-511 such boards were 15-19 Lab units off
#: and every one was refused; another board's print is told by those other checks (_own_print,
#: _cells_like_print: they caught each of four other boards tried, some of them under 15 Lab units off).
STICKER_LIGHT_MAX = 25.0
STICKER_LIGHT_NOTE = ("the stickers look lit unlike the board (their light gives the board's print another colour "
                      "than its calibration): the grids were read with their calibrated print; light the board "
                      "evenly for the best reading")
#: ... and against clipped stickers' white a print measures lighter than its calibration, by up to this much (L*): on
#: development seed 533, photo 1, 22-26 lighter (a print of L* 94 measured 116-120); seed 549, photo 49, 33-36 (L* 82
#: measured 114-118). How much lighter grows with how far the exposure clips the white, which the photo cannot
#: show; the bound keeps a print far lighter still from being taken for the calibrated one on this ground alone
#: (its hue must match, and LIKE_PRINT_SHIFTED cells vouch for the board).
OVEREXPOSED_L_MAX = 45.0
STICKERS_CLIPPED_NOTE = ("the stickers' white is clipped (the photo is overexposed), so the board's print measured "
                         "against it looks lighter than its calibration: the grids were read with their calibrated "
                         "print; lower the exposure for the best reading")
UNLIKE_NOTE_TEMPLATE = ("the board's print looks unlike the template's; calibrate this board "
                        "(Gear > Set up the camera) for the best reading")
NO_PATCHES_REASON = ("the stickers show no reference patches and this board is not calibrated, so its print "
                     "cannot be told from a cube; print the stickers with their patch strip or calibrate the board")


def _expected_print(template: Template, grid: str) -> tuple[float, float, float]:
    """The print the template or its calibration says this grid's cells have (Lab)."""
    if template.grid_lab and grid in template.grid_lab:
        return template.grid_lab[grid]
    return template.board_lab or DEFAULT_BOARD_LAB


def _calibrated_bands(template: Template, bands: Mapping[str, list[_BandSample]]) -> dict[str, list[_BandSample]]:
    """For each calibrated grid, its band pieces turned into the grid's own print in this photo's light: each
    piece's light times the factor calibration measured for that piece (see Template.band_ratio); pieces
    calibration did not see are left out. A grid with fewer than three such pieces keeps no band here."""
    out: dict[str, list[_BandSample]] = {}
    for name, pieces in (template.band_ratio or {}).items():
        if name not in bands:
            continue
        factors = {(round(x * 2), round(y * 2)): np.array(k, dtype=np.float32) for x, y, *k in pieces}
        scaled = [_BandSample(s.x, s.y, np.asarray(s.rgb * factors[key], dtype=np.float32),
                              None if s.plain is None else np.asarray(s.plain * factors[key], dtype=np.float32),
                              s.clipped)
                  for s in bands[name] if (key := (round(s.x * 2), round(s.y * 2))) in factors]
        if len(scaled) >= 3:
            out[name] = scaled
    return out


#: Fewer cells than this whose middle looks like the calibrated print (lit, or shaded a little), over all
#: calibrated grids: the photo's board is not the calibrated one.
LIKE_PRINT_MIN = 2
#: ... or this many strips of cells' own print beside their cubes (_inner_samples) in at least LIKE_PRINT_MIN cells
#: look like it, on a board set up nearly full (one empty cell or none; development seed 531, photos 8 and 10,
#: were refused as another board).
LIKE_PRINT_STRIPS = 4


#: Where the print measured against the stickers lies PRINT_UNLIKE to STICKER_LIGHT_MAX from its calibration (or
#: lighter against clipped stickers) and the board is read with its calibrated print, at least this many cells'
#: middles must look like that print: on development seeds 530-534 the two boards of their own calibration read so
#: had 22 and 18 of 39 cells like it; read with the next photo's calibration (another board), four boards passed the
#: other checks with 2 to 6, two of them read with confident errors (seed 530, photo 16: 13; seed 534, photo 27: 6).
#: Not a clean parting: seed 511, photo 0 (overexposed, its own calibration) has 5 and is refused, cells lost but
#: none wrong.
LIKE_PRINT_SHIFTED = 10


def _print_like(rgb: F32, ref: tuple[F32, float] | None, pale: bool = False) -> bool:
    """Whether a colour seen at a place looks like the calibrated print there (against ``ref``, _local_reference of its
    band there: the calibrated print's light and its spread, None where it has none; within OWN_RATIO and OWN_CHROMA,
    at DEEP_FLOOR). On a ``pale`` grid (Template.clipped_print: calibration saw its print clipped white, so its light
    there is a floor) a channel clipped here too, at or above that floor, says only "at least this" and is no evidence
    either way: it is compared as the floor, the others as they are (not where every channel is clipped: no evidence
    at all)."""
    if pale and ref is not None:
        floored = (rgb >= WHITE_CLIPPED) & (ref[0] <= rgb)
        if np.all(floored):
            return False
        rgb = np.where(floored, ref[0], rgb).astype(np.float32)
    off = _print_offset(rgb, ref[0], DEEP_FLOOR) if ref is not None else None
    return off is not None and 1 / OWN_RATIO < off[0] < OWN_RATIO and off[1] <= OWN_CHROMA


#: A strip of a cell's print beside its cube counts for or against the calibrated print only if it is lit: within this
#: ratio of the cell's lightest strip (the ratio two prints alike may differ by, OWN_RATIO): _ring_like_print,
#: _strips_like_print.
STRIP_LIT = OWN_RATIO


def _cells_like_print(rect: _Rectified, template: Template, bands: Mapping[str, Sequence[_BandSample]],
                      up_to: int, pose: Pose, reaches: Mapping[str, float], skip: Collection[CellKey] = ()
                      ) -> list[CellKey]:
    """The cells whose middles look like the print calibration measured for their grid (_print_like), where their own
    print beside where a cube stands does not say otherwise (_ring_like_print), up to ``up_to`` of them, not looking
    at those in ``skip``. An empty cell of the calibrated board does; on another board (another print around grids
    like these) none does, but a cube's top may (_vouching_cells), with that board's own print beside it.
    (Development seed 565, photo 41, read with photo 42's calibration, another board: six metal cubes on pale prints,
    slate grey like that board's dark print, looked like it in their middles; the rules read them empty, so they
    vouched for the board, which was read with five confident errors.)"""
    like: list[CellKey] = []
    for name, samples in bands.items():
        g = template.grids[name]
        pale = name in template.clipped_print
        places = [(r, c) for r in range(g.rows) for c in range(g.cols) if (name, r, c) not in skip]
        # (The print's light asked at every cell of the grid at once.)
        refs = _local_references(samples, [g.cell_centre(r, c) for r, c in places])
        for (r, c), ref in zip(places, refs, strict=True):
            middle = _cell_middle(rect, g, r, c, 0.2)
            if middle is None:
                continue
            mean, _, inside = middle
            if inside and _print_like(mean, ref, pale) and _ring_like_print(
                    _cell_ring(rect, g, pose, template.cube_mm, r, c, reaches.get(name)), ref, pale):
                like.append((name, r, c))
                if len(like) >= up_to:
                    return like
    return like


def _ring_like_print(ring: Sequence[F32], ref: tuple[F32, float] | None, pale: bool) -> bool:
    """Whether a cell's own print beside where a cube stands (_cell_ring) leaves the calibrated print possible: its lit
    strips (within STRIP_LIT of its lightest) are darker than the calibrated print's light allows (under 1/OWN_RATIO
    of it: in a shadow, the lit ones dropped for clipping; they say nothing), or one of them looks like it
    (_print_like). A strip in a cube's shadow is like any darker print."""
    if ref is None:
        return False
    if not ring:
        return True
    lum = [float(rgb @ _LUMA) for rgb in ring]
    brightest = max(range(len(ring)), key=lum.__getitem__)
    lit = [rgb for rgb, v in zip(ring, lum, strict=True) if v * STRIP_LIT >= lum[brightest]]
    lightest = _print_offset(ring[brightest], ref[0], DEEP_FLOOR)
    return (lightest is None or lightest[0] <= 1 / OWN_RATIO) or any(_print_like(rgb, ref, pale) for rgb in lit)


def _vouching_cells(rect: _Rectified, template: Template, vouching: _Vouching, pose: Pose,
                    reaches: Mapping[str, float], read_since: Collection[CellKey] = ()) -> bool:
    """Whether ``vouching.need`` of the cells that vouched for the calibrated board (``vouching.like_cells``,
    _cells_like_print) still do once the cells are read (``cubes``: those the rules' first pass read as cubes,
    ``vouching.first_cubes``, and those read as cubes since, ``read_since``; _cube_cells): a cell read as a cube is
    no evidence of the print, though its top may look like it (a tooth's pale top on a cream print), and nor is one the
    rules found occupied but could not tell the cube's colour of ("cube colour unclear"). Where fewer are left, the
    other cells (not read as cubes) are looked at, and then, if ``vouching.strips`` (every calibrated grid's print
    light) are given, the strips of print beside the
    cubes (_strips_like_print), as for a board with no cell like its print. (Development seed 557, photo 9, read with
    photo 10's calibration, another board: its six cells like that print were all teeth, and an empty cell in a
    shadow was read as wood. Seed 568, photo 31, with photo 32's: two teeth vouched, one of them of unclear colour to
    the rules, and five empty cells of a wood-coloured print were read as wood.) The first pass reads cubes by their
    colours, and the lit print's second reading, only; ``read_since`` are the final reading's (_still_vouched)."""
    need, strips = vouching.need, vouching.strips
    cubes = {*vouching.first_cubes, *read_since}
    kept = [k for k in vouching.like_cells if k not in cubes]
    if len(kept) >= need:
        return True
    more = _cells_like_print(rect, template, vouching.bands, need - len(kept), pose, reaches,
                             {*cubes, *vouching.like_cells})
    return (len(kept) + len(more) >= need
            or (strips is not None and _strips_like_print(rect, template, strips, pose, reaches)))


def _still_vouched(read: _CellsRead, template: Template, cells: Mapping[CellKey, Cell]) -> bool:
    """Whether the cells that vouched for the calibrated board still do once every reader has read them (the rules'
    second pass and the networks, ``cells``), as _vouching_cells asks it of the rules' first pass: a cell read as a
    cube in the end is no evidence of the print either. True where no cell vouched (the board was not read on cells'
    word, or was refused already). (Development seed 570, photo 34, read with photo 35's calibration, another board:
    the two cells like that board's orange print were wood cubes on a blue one, which the rules' first pass could not
    tell from empty; read as wood at 1.0 in the end, they had let an empty cell be read as metal.) A cell the first
    pass read as a cube vouches no more for being '?' in the end. (With ``read_unfamiliar`` a board refused here is
    still read as calibrated, without the checks a board refused before the cells are read gets.)"""
    v = read.vouching
    if v is None:
        return True
    return _vouching_cells(read.rect, template, v, read.loc.pose, read.line_reach, _cube_cells(cells))


def _cube_cells(cells: Mapping[CellKey, Cell]) -> set[CellKey]:
    """The cells read as cubes, or found occupied by a cube whose colour the rules could not tell ("cube colour
    unclear"): no evidence of the print beneath, though a top may look like it (_vouching_cells)."""
    return {k for k, cell in cells.items()
            if cell.label in ("W", "M", "T") or (cell.label == "?" and cell.reason == "cube colour unclear")}


def _refused_notes(notes: Sequence[str], note: str) -> tuple[str, ...]:
    """A reading's notes once its board is refused as not vouched for: ``note`` (_unvouched_note), and none on the
    stickers' light (the board was read with its calibrated print against them)."""
    kept = [n for n in notes if n not in (STICKER_LIGHT_NOTE, STICKERS_CLIPPED_NOTE, UNLIKE_NOTE_CALIBRATED)]
    return (*kept, note)


def _unvouched_note(vouching: _Vouching | None) -> str:
    """Why a board its cells no longer vouch for is refused. Where it needed LIKE_PRINT_SHIFTED cells like its print
    (the stickers lit unlike it or clipped, or a grid left unread for the light around it), the stickers measured it as
    its calibration allows and only too few cells show the print to confirm it: UNVOUCHED_NOTE, whose reason names both
    the board set up (a photo that shows more print) and another board. Where two cells were enough, the print measured
    against the stickers did not excuse it: UNLIKE_NOTE_CALIBRATED. Development seeds 556-562 and 564-576 (1,200
    photos), own calibration: the two boards refused so at the end, 556/3 and 566/42, were overexposed, read with the
    calibrated print, and nearly full (1 and 9 empty cells). With the next photo's calibration (another board), 574/12
    (a grid left unread, LIT_BAND_REASON) is refused so too; the 8 others refused at the end needed two cells and
    keep UNLIKE_NOTE_CALIBRATED."""
    return UNVOUCHED_NOTE if vouching is not None and vouching.need > LIKE_PRINT_MIN else UNLIKE_NOTE_CALIBRATED


def _strips_like_print(rect: _Rectified, template: Template, bands: Mapping[str, Sequence[_BandSample]],
                       pose: Pose, reaches: Mapping[str, float]) -> bool:
    """Whether LIKE_PRINT_STRIPS strips of the cells' own print beside where a cube stands (_inner_samples, each
    grid's line reach in ``reaches``), in LIKE_PRINT_MIN cells or more, look like the calibrated print: the print a
    board set up nearly full leaves in view. Only a cell's lit strips count (within STRIP_LIT of its lightest): a
    strip in a cube's shadow is darker than its print, and like a darker one. (Development seed 562, photo 25, read
    with photo 26's calibration, another board: strips in the bluish shadows beside its cubes, on a pale blue print,
    looked like that board's dark blue-grey print and vouched for it, and an empty cell was read as a tooth.)"""
    strips: set[tuple[str, int, int]] = set()
    count = 0
    for name, samples in bands.items():
        g = template.grids[name]
        inner = _inner_samples(rect, g, pose, template.cube_mm, reaches.get(name))
        cells = [_grid_cell(g, s.x, s.y) for s in inner]
        lum = [float(s.rgb @ _LUMA) for s in inner]
        lit: dict[tuple[int, int], float] = {}
        for rc, v in zip(cells, lum, strict=True):
            lit[rc] = max(lit.get(rc, 0.0), v)
        for s, rc, v, ref in zip(inner, cells, lum, _local_references(samples, [(s.x, s.y) for s in inner]),
                                 strict=True):
            if v * STRIP_LIT >= lit[rc] and _print_like(s.rgb, ref, name in template.clipped_print):
                count += 1
                strips.add((name, *rc))
    return count >= LIKE_PRINT_STRIPS and len(strips) >= LIKE_PRINT_MIN


Lab3 = tuple[float, float, float]
Piece = tuple[float, float, float, float, float]


@dataclass(frozen=True)
class PrintCalibration:
    """What a photo of the empty board says about its print (see ``measure_print``)."""

    board_lab: Lab3
    grid_lab: dict[str, Lab3]
    band_ratio: dict[str, tuple[Piece, ...]]
    #: Grids whose print this photo does not show well enough to measure, with the reason (glare, hidden).
    unseen: dict[str, str] = field(default_factory=dict)
    #: Of the unseen grids, those whose print is clipped all over while the print around them is not (a print
    #: too pale for the camera's exposure, not glare): their print and band ratios measured as the clipped
    #: pixels give them, which is a lower bound (see vision.calibrate: kept when a retake clips it too).
    clipped: dict[str, tuple[Lab3, tuple[Piece, ...]]] = field(default_factory=dict)


#: Cells nearest a band piece whose print calibration compares with that piece's.
RATIO_CELLS = 3
#: At least this fraction of a grid's cells clipped (half their middle or more) on the empty board: the
#: grid's print was not measured because it is clipped white, not because it is hidden.
CLIPPED_PRINT = 0.5
#: A grid's print is clipped all over (a pale print, not a glare spot) when at least this fraction of its
#: cells in the photo are clipped and at most PALE_BAND_CLIPPED_MAX of the band pieces around it are clipped
#: (more than BAND_CLIPPED_MAX of each: a glare spot's halo clips the print around the grid too). On
#: second-renderer development seeds 508, 509 and 514 every calibration photo that clipped a whole board's print
#: clipped every cell of it, and up to 9 % of a grid's band pieces (its pale print's light spilling over); the
#: tests' glare spots over a grid clip 37-58 % of them. (At 0.75 a print on development seed 509, photo 25,
#: clipped in 7 of 9 cells in each of three photos, was kept; but so was the tests' glare spot over a pale board's
#: helmet in two photos, whose grid fit it had moved: its cells 75-90 % clipped, and less of the band around it.)
CLIPPED_ALL_OVER = 0.9
PALE_BAND_CLIPPED_MAX = 0.25


def measure_print(image: U8, template: Template) -> PrintCalibration:
    """On a photo of the empty board: the print around the grids and each grid's own print (cell middles), in
    CIE Lab against the stickers' white and black, measured as the reader measures them; and per band piece
    the grid's print over the piece's (the light cancels). A grid whose cells are clipped by glare, hidden or
    out of the photo is left out and named in ``unseen`` (another photo may show it). Raises PhotoError when
    the stickers show no patches or too little of the board's print is seen."""
    grey = grey_of(image)
    loc = locate(image, template, grey)
    refs = _sticker_refs(image, loc.markers, template.markers.size_mm)
    if not refs:
        raise PhotoError(NO_PATCHES_REASON)
    rect = _Rectified(image, loc.hom, _grid_box(template, 7.0), float(np.clip(_image_ppm(loc.hom, template), 2.0, 6.0)))
    grids_ = template.gear_grids
    # No cube stands on the empty board: every piece of the band is measured, also those a cube's top would lean
    # over in this camera's view (a photo with cubes from another view keeps other pieces, and needs their ratios).
    band_pieces = {g.name: _band_pieces(rect, g, loc.pose, 0.0, grids_) for g in grids_}
    bands = {name: _unclipped(pieces) for name, pieces in band_pieces.items()}
    board = _board_colour(refs, loc, template, [s for b in bands.values() for s in b])
    if board is None:
        raise PhotoError("too little of the board's print around the grids is in view")
    grid_lab, band_ratio, unseen, clipped_all_over = {}, {}, {}, {}
    for g in grids_:
        cells, every = [], []
        clipped_cells = 0
        for r in range(g.rows):
            for c in range(g.cols):
                middle = _cell_middle(rect, g, r, c, 0.25)
                if middle is None:
                    continue
                x, y = g.cell_centre(r, c)
                mean, clipped, inside = middle
                if inside and clipped < 0.01:
                    cells.append(_BandSample(x, y, mean))
                if inside:
                    every.append(_BandSample(x, y, mean))
                clipped_cells += inside and clipped >= 0.5
        lab = _board_colour(refs, loc, template, cells) if len(cells) >= 3 else None
        if lab is None:
            # Clipped white: glare on it, or a print brighter than the camera's exposure (a pale print in
            # strong light clips in every photo; moving the lamp does not help that, exposing less does).
            unseen[g.name] = (f"the {g.name} grid's print is clipped white (glare on it, or a print too bright "
                              "for the camera's exposure): move the light or lower the exposure"
                              if clipped_cells >= CLIPPED_PRINT * g.rows * g.cols else
                              f"the {g.name} grid's print is not seen well (hidden, or out of the photo)")
            band_clipped = sum(clipped > BAND_CLIPPED_MAX for _, clipped in band_pieces[g.name])
            lower = _board_colour(refs, loc, template, every) if len(every) >= 3 else None
            if (lower is not None and clipped_cells >= CLIPPED_ALL_OVER * len(every) and len(bands[g.name]) >= 3
                    and band_clipped <= PALE_BAND_CLIPPED_MAX * len(band_pieces[g.name])):
                clipped_all_over[g.name] = ((float(lower[0]), float(lower[1]), float(lower[2])),
                                            _print_over_band(every, bands[g.name]))
            continue
        ratio = _print_over_band(cells, bands[g.name])
        if len(ratio) < 3:
            # The reader needs three pieces of the print around a grid to read it against (_calibrated_bands).
            unseen[g.name] = (f"the print around the {g.name} grid is not seen well (hidden, clipped white, or out "
                              "of the photo)")
            continue
        grid_lab[g.name] = (float(lab[0]), float(lab[1]), float(lab[2]))
        band_ratio[g.name] = ratio
    return PrintCalibration((float(board[0]), float(board[1]), float(board[2])), grid_lab, band_ratio, unseen,
                            clipped_all_over)


def _print_over_band(cells: Sequence[_BandSample], band: Sequence[_BandSample]) -> tuple[Piece, ...]:
    """Per band piece: the grid's print (its nearest cells' middles) over the piece's, per channel."""
    pieces = []
    for s in band:
        near = sorted(cells, key=lambda cs: math.hypot(cs.x - s.x, cs.y - s.y))[:RATIO_CELLS]
        cell_rgb = _median(np.array([cs.rgb for cs in near]), axis=0)
        if np.any(s.rgb <= 1e-4):
            continue
        k = cell_rgb / s.rgb
        pieces.append((float(s.x), float(s.y), float(k[0]), float(k[1]), float(k[2])))
    return tuple(pieces)


def _patches_at(refs: Sequence[tuple[F64, F32, F32]], p: F64) -> tuple[F32, F32]:
    """The stickers' white and black patches as seen at image point ``p``: weighted by nearness in the photo."""
    white, black = _patches_at_all(refs, np.asarray(p, dtype=np.float64).reshape(1, 2))
    return white[0], black[0]


def _patches_at_all(refs: Sequence[tuple[F64, F32, F32]], pts: F64) -> tuple[F64, F64]:
    """_patches_at for many image points at once, (n, 2): their whites and blacks, (n, 3) each."""
    centres = np.array([c for c, _, _ in refs], dtype=np.float64).reshape(-1, 2)
    w = 1 / (np.sqrt(((pts[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)) + 1.0) ** 2
    total = w.sum(axis=1)[:, None]
    white = (w[:, :, None] * np.array([wh for _, wh, _ in refs])[None]).sum(axis=1) / total
    black = (w[:, :, None] * np.array([bl for _, _, bl in refs])[None]).sum(axis=1) / total
    return white, black


def _board_colour(refs: Sequence[tuple[F64, F32, F32]], loc: Located, template: Template,
                  bands: Sequence[_BandSample]) -> F32 | None:
    """The board's print in Lab, measured against the stickers' paper white and black; None when no
    sticker shows its reference patches (or too little print is visible)."""
    if len(refs) < 1 or len(bands) < 3:
        return None
    pts = cv2.perspectiveTransform(np.array([[[s.x, s.y]] for s in bands], dtype=np.float64), loc.hom)
    white, black = _patches_at_all(refs, pts.reshape(-1, 2))
    gain = (white - black) / (PAPER_REFLECTANCE - BLACK_REFLECTANCE)
    ok = ~np.any(gain <= 1e-4, axis=1)
    if np.count_nonzero(ok) < 3:
        return None
    rgb = np.array([s.rgb for s in bands])[ok]
    arr = np.maximum((rgb - black[ok]) / gain[ok] + BLACK_REFLECTANCE, 0.005)
    # The upper half of the board's pieces: a cast shadow lowers some pieces, nothing raises them.
    lum = arr @ _LUMA
    keep = arr[lum >= _median(lum)]
    return np.asarray(linear_rgb_to_lab(_median(keep, axis=0)), dtype=np.float32)


#: What to do about glare. Most glare is surfaces the camera's exposure clipped (a pale print, cubes' tops):
#: they clip wherever the board stands, so tilting does not help and a darker photo does. A lamp's highlight on
#: the board moves when the board tilts or the light moves (a darker photo only shrinks it). The reader cannot
#: always tell the two apart (a pale print clipped all over looks like a highlight's halo), so it says both, the
#: one that helps more often first. Development seeds 530-532 (12 MP, calibrated, up to two retakes, the first of a
#: photo with glare a stop darker, synth2.darker_photo): see vision/HISTORY.md, thirteenth session.
GLARE_ADVICE = ("lower the exposure (tap the board on the screen and slide the brightness down); if a bright spot "
                "stays, tilt the board or move the light")


#: A cell photos read (merged by vision.retake) that waits for another photo's word: the first photo left it '?'.
UNCONFIRMED_REASON = "read, but not yet confirmed: one more photo may confirm it"
#: The retake advice for such cells.
CONFIRM_ADVICE = "read but not yet confirmed; take one more photo"
#: Reasons a board is refused as a whole: the board must be set up first (or, UNVOUCHED_REASON, photographed so that
#: its print shows); no cell of the photo is read, so a retake is read afresh, not merged with it.
WHOLE_BOARD_REASONS = (UNFAMILIAR_REASON, NO_PATCHES_REASON, UNVOUCHED_REASON)


def _cell_names(cells: Sequence[Cell]) -> str:
    return ", ".join(f"{c.grid}[{c.row}][{c.col}]" for c in cells)


def _grids_left(cells: Sequence[Cell], reason: str) -> str:
    """The grids whose cells a reason of a whole grid left '?', for the advice ("the helmet, sandals grids"); empty
    for none."""
    grids = list(dict.fromkeys(c.grid for c in cells if c.label == "?" and c.reason == reason))
    return f"the {', '.join(grids)} grid{'s' if len(grids) > 1 else ''}" if grids else ""


#: Reasons that leave a whole grid '?' for what lies over or around it in this photo, each with what the retake says
#: of them ("{}": the grids, _grids_left), in the order it says them.
_GRID_LEFT_ADVICE = (
    (COVERED_GRID_REASON, f"something covers {{}} (a hand?); {COVERED_GRID_ADVICE}"),
    (SHADED_BAND_REASON, f"the board around {{}} lies in a shadow; {SHADED_BAND_ADVICE}"),
    (LIT_BAND_REASON, f"the board around {{}} measures unlike its calibration; {LIT_BAND_ADVICE}"),
)


def retake_reason(note: str | None, cells: Sequence[Cell], blur: float, settled: Sequence[str] = ()) -> str | None:
    """Why the group should take another photo (None: no need): the board is not set up, the photo is too
    blurry (``blur`` mm), glare or doubt on cells; ``note`` (how the board was found) leads when there is one.
    Cells '?' for a reason in ``settled`` ask for none (vision.retake: photos that disagreed; the players decide)."""
    for whole in WHOLE_BOARD_REASONS:
        if any(c.reason == whole for c in cells):
            # Not a matter of this photo's cells: the board itself must be set up first (or photographed otherwise).
            return whole
    reasons = []
    if blur > BLUR_LIMIT_MM:
        reasons.append(f"too blurry (edges spread {blur:.2f} mm); hold still and focus on the board")
    glare = [c for c in cells if c.reason == GLARE_REASON]
    if glare:
        reasons.append(f"glare on cells {_cell_names(glare)}; {GLARE_ADVICE}")
    # Cells photos read that wait for another photo's word (vision.retake): any photo may give it.
    unconfirmed = [c for c in cells if c.label == "?" and c.reason == UNCONFIRMED_REASON]
    if unconfirmed:
        reasons.append(f"cells {_cell_names(unconfirmed)} {CONFIRM_ADVICE}")
    for reason, advice in _GRID_LEFT_ADVICE:
        if grids := _grids_left(cells, reason):
            reasons.append(advice.format(grids))
    # (A grid not set up with the camera is no matter of this photo either: another photo would not read it.)
    other = [c for c in cells if c.label == "?" and c.reason not in (
        GLARE_REASON, UNSET_REASON, UNCONFIRMED_REASON, *(reason for reason, _ in _GRID_LEFT_ADVICE), *settled)]
    if other:
        reasons.append(f"uncertain cells {_cell_names(other)}")
    if reasons and note:
        reasons.insert(0, note)
    return "; ".join(reasons) if reasons else None
