"""The photo renderer: labelled synthetic photos of a player board with cubes (and of dice in a tray).

It owns everything about making pictures and nothing about reading them: the readers never import it,
and it never imports them. A scene is drawn physically enough to exercise the reader: the board plane
(table, clutter, printed board, stickers) is painted as a texture in millimetres and lit in linear light
by one or two lights of 2700-6500 K (mixed light falls off across the table), with soft shadows of the
cubes and sometimes of a large occluder (a hand, a phone); the texture is then projected through a
pinhole camera (tilt, roll, distance, focal length), and the cubes are drawn as real 3-D boxes (their
sides show under perspective and they hide what is behind them). Then the camera's imperfect white
balance, exposure, vignetting, glare, blur, noise and JPEG compression.

World coordinates are millimetres from the board's top-left corner: x right, y down, z into the table,
so a point above the table has a negative z.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.colour import kelvin_to_rgb, lab_to_linear_rgb, linear_to_srgb, srgb_to_linear
from vision.stickers import (
    BLACK_REFLECTANCE,
    DICE_TRAY_MARKER_ID,
    DICE_TRAY_MARKER_MM,
    PAPER_REFLECTANCE,
    STICKER_BOX,
    StickerSpec,
    render_sticker,
)
from vision.template import GEAR_GRIDS, Template, load_template

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]

#: Cube colours as CIE Lab of the material (the real game: natural wood, grey metal, white/ivory teeth).
MATERIAL_LAB = {"W": (66.0, 11.0, 34.0), "M": (57.0, 0.0, -2.0), "T": (92.0, 0.0, 7.0)}
BOARD_LAB = (84.0, 1.5, 17.0)
LINE_LAB = (38.0, 8.0, 18.0)
DIE_LAB = {"wood": (62.0, 13.0, 36.0), "metal": (55.0, 0.0, -2.0), "tooth": (92.0, 0.0, 6.0),
           "magic": (55.0, -42.0, 30.0)}


@dataclass(frozen=True, slots=True)
class Conditions:
    """How hard the photos are; the defaults are ordinary phone photos at a table.

    A glare spot (a clipped highlight on the grids) is not an ordinary condition but a defect the reader
    must answer with a retake, so ``glare`` (the chance of one) is 0 by default; ``STRONG_GLARE`` sets it.
    """

    size: tuple[int, int] = (4000, 3000)
    tilt_deg: tuple[float, float] = (0.0, 25.0)
    board_fraction: tuple[float, float] = (0.55, 0.85)
    kelvin: tuple[float, float] = (2700.0, 6500.0)
    mixed_light: float = 0.4
    occluder_shadow: float = 0.3
    glare: float = 0.0
    clutter: int = 12
    blur_px: tuple[float, float] = (0.3, 1.3)
    motion_blur: float = 0.1
    noise: tuple[float, float] = (1.0, 4.0)
    jpeg_quality: tuple[int, int] = (72, 95)
    fill: tuple[float, float] = (0.1, 0.9)
    hide_markers: int = 0


#: Bumped whenever the renderer draws differently for the same seed and conditions (caches key on it).
RENDER_VERSION = 1

BAD_BLUR = Conditions(blur_px=(9.0, 12.0), motion_blur=0.0)
STRONG_GLARE = Conditions(glare=1.0)


@dataclass(frozen=True, slots=True)
class Camera:
    k: F64
    r: F64
    t: F64
    size: tuple[int, int]

    @property
    def centre(self) -> F64:
        return np.asarray(-self.r.T @ self.t, dtype=np.float64)

    def project(self, points: F64) -> F64:
        cam = points @ self.r.T + self.t
        uv = cam @ self.k.T
        return np.asarray(uv[:, :2] / uv[:, 2:3], dtype=np.float64)

    def plane_homography(self) -> F64:
        """Image pixels from table millimetres (z = 0)."""
        m = self.k @ np.column_stack([self.r[:, 0], self.r[:, 1], self.t])
        return np.asarray(m / m[2, 2], dtype=np.float64)


@dataclass(frozen=True, slots=True)
class Light:
    """A light: a lamp is small (hard shadows), a window is large (its shadows are soft and faint)."""

    position: F64
    colour: F32
    power: float
    spread: float = 0.03  # angular radius of the source, radians

    def direction_to(self, point: F64) -> F64:
        d = self.position - point
        return np.asarray(d / np.linalg.norm(d, axis=-1, keepdims=True), dtype=np.float64)


@dataclass(slots=True)
class Box:
    """A cube or die standing on the table: centre (x, y), side, yaw, linear albedo; optional tilt (cocked)."""

    x: float
    y: float
    side: float
    yaw: float
    albedo: F32
    grain: bool = False
    tilt: float = 0.0
    marks: list[tuple[str, float, float]] = field(default_factory=list)
    z0: float = 0.0  # standing on another box this high (a stacked cube)
    ink: F32 | None = None  # the marks' albedo (default: dark ink)

    def corners(self) -> F64:
        h = self.side / 2
        base = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        rot = np.array([[c, -s], [s, c]])
        xy = base @ rot.T
        bottom = np.column_stack([xy, np.zeros(4)])
        top = np.column_stack([xy, np.full(4, -self.side)])
        pts = np.vstack([bottom, top])
        if self.tilt:
            # Leaning on its edge x=-h (rotated about the yaw axis), as a die caught on another one.
            ct, st = math.cos(self.tilt), math.sin(self.tilt)
            local = pts.copy()
            local[:, :2] = (pts[:, :2]) @ rot
            lx = local[:, 0] + h
            lz = local[:, 2]
            local[:, 0] = lx * ct + lz * st - h
            local[:, 2] = -lx * st + lz * ct
            pts[:, :2] = local[:, :2] @ rot.T
            pts[:, 2] = local[:, 2]
        pts[:, 0] += self.x
        pts[:, 1] += self.y
        pts[:, 2] -= self.z0
        return pts


_FACES = [(4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]


@dataclass(frozen=True, slots=True)
class Rendered:
    """A rendered photo (BGR, 8 bit) and what is really in it."""

    image: npt.NDArray[np.uint8]
    labels: Mapping[str, Any]


def lab_albedo(lab: Sequence[float], rng: np.random.Generator | None = None, jitter: float = 0.0) -> F32:
    arr = np.asarray(lab, dtype=np.float64)
    if rng is not None and jitter:
        arr = arr + rng.normal(0, jitter, 3) * np.array([1.0, 0.4, 0.6])
    return np.asarray(lab_to_linear_rgb(arr), dtype=np.float32)


def random_gear(rng: np.random.Generator, template: Template, fill: float) -> dict[str, list[str]]:
    """Random cubes in every gear grid: each cell holds a cube with probability ``fill``."""
    gear: dict[str, list[str]] = {}
    for name in GEAR_GRIDS:
        g = template.grids[name]
        rows = []
        for _ in range(g.rows):
            cells = (str(rng.choice(["W", "M", "T"])) if rng.random() < fill else "." for _ in range(g.cols))
            rows.append("".join(cells))
        gear[name] = rows
    return gear


def _look_at(target: F64, centre: F64, roll: float) -> F64:
    fwd = target - centre
    fwd = fwd / np.linalg.norm(fwd)
    r0 = np.array([math.cos(roll), math.sin(roll), 0.0])
    right = r0 - r0.dot(fwd) * fwd
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    return np.vstack([right, down, fwd])


def _pick_camera(rng: np.random.Generator, template: Template, cond: Conditions,
                 extent: tuple[float, float, float, float] | None = None) -> Camera:
    w, h = cond.size
    bw, bh = template.board_mm
    x0, y0, x1, y1 = extent or (0.0, 0.0, bw, bh)
    span = max(x1 - x0, y1 - y0)
    corners = np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], dtype=np.float64)
    for _ in range(200):
        f = w * rng.uniform(0.7, 1.0)
        k = np.array([[f, 0, w / 2 + rng.normal(0, w * 0.005)], [0, f, h / 2 + rng.normal(0, w * 0.005)], [0, 0, 1]])
        frac = rng.uniform(*cond.board_fraction)
        dist = f * span / (frac * max(w, h))
        tilt = math.radians(rng.uniform(*cond.tilt_deg))
        az = rng.uniform(0, 2 * math.pi)
        target = np.array([(x0 + x1) / 2 + rng.normal(0, 10), (y0 + y1) / 2 + rng.normal(0, 10), 0.0])
        centre = target + dist * np.array([math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az),
                                           -math.cos(tilt)])
        roll = rng.uniform(-math.pi, math.pi) if rng.random() < 0.5 else rng.normal(0, 0.25)
        r = _look_at(target, centre, roll)
        cam = Camera(k, r, -r @ centre, (w, h))
        uv = cam.project(corners)
        margin = 0.03 * w
        if (uv[:, 0].min() > margin and uv[:, 1].min() > margin and uv[:, 0].max() < w - margin
                and uv[:, 1].max() < h - margin):
            return cam
    raise RuntimeError("no camera pose keeps the board in the picture")


def _lights(rng: np.random.Generator, cond: Conditions, centre_xy: tuple[float, float]) -> tuple[list[Light], F32]:
    lights = []
    n = 2 if rng.random() < cond.mixed_light else 1
    temps = [rng.uniform(*cond.kelvin)]
    if n == 2:
        # A warm lamp and cool daylight from another side: the mixed light people actually photograph in.
        temps = [rng.uniform(cond.kelvin[0], 3500.0), rng.uniform(5000.0, cond.kelvin[1])]
    for i, kelvin in enumerate(temps):
        # Warm light comes from lamps; daylight mostly through a window, a large source.
        window = kelvin > 4500 and rng.random() < 0.7
        spread = rng.uniform(0.25, 0.5) if window else rng.uniform(0.01, 0.06)
        elev = math.radians(rng.uniform(35, 80))
        az = rng.uniform(0, 2 * math.pi)
        dist = rng.uniform(600, 1500)
        pos = np.array([centre_xy[0] + dist * math.cos(elev) * math.cos(az),
                        centre_xy[1] + dist * math.cos(elev) * math.sin(az), -dist * math.sin(elev)])
        power = (1.0 if i == 0 else rng.uniform(0.4, 1.0)) * dist**2
        lights.append(Light(pos, kelvin_to_rgb(kelvin), power, spread))
    ambient = np.mean([lt.colour for lt in lights], axis=0) * rng.uniform(0.3, 0.6)
    return lights, np.asarray(ambient, dtype=np.float32)


def _noise_field(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> F32:
    small = rng.standard_normal((max(2, shape[0] // cells), max(2, shape[1] // cells))).astype(np.float32)
    return np.asarray(cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC), dtype=np.float32)


class _Canvas:
    """The table plane as a texture: pixel (u, v) is world ((u + 0.5) / ppm + x0, (v + 0.5) / ppm + y0)."""

    def __init__(self, x0: float, y0: float, x1: float, y1: float, ppm: float) -> None:
        self.x0, self.y0, self.ppm = x0, y0, ppm
        self.w = int(math.ceil((x1 - x0) * ppm))
        self.h = int(math.ceil((y1 - y0) * ppm))

    def px(self, x: float, y: float) -> tuple[float, float]:
        return ((x - self.x0) * self.ppm, (y - self.y0) * self.ppm)

    def poly(self, pts_mm: F64) -> npt.NDArray[np.int32]:
        p = (pts_mm[:, :2] - np.array([self.x0, self.y0])) * self.ppm * 16
        return np.round(p).astype(np.int32)

    def world_from_px(self) -> F64:
        s = 1 / self.ppm
        return np.array([[s, 0, self.x0 + 0.5 * s], [0, s, self.y0 + 0.5 * s], [0, 0, 1]])


def _fill(img: F32, pts: npt.NDArray[np.int32], colour: Sequence[float]) -> None:
    cv2.fillConvexPoly(img, pts, [float(c) for c in colour], lineType=cv2.LINE_8, shift=4)


def _paint_table(rng: np.random.Generator, canvas: _Canvas, cond: Conditions,
                 keep_out: tuple[float, float, float, float]) -> F32:
    kind = rng.integers(0, 5)
    base_lab = [(35, 12, 22), (62, 8, 25), (55, 0, 0), (88, 0, 3), (35, -20, 8)][kind]
    tex = np.empty((canvas.h, canvas.w, 3), np.float32)
    tex[:] = lab_albedo(base_lab, rng, 3.0)
    shade = 1.0 + 0.08 * _noise_field(rng, (canvas.h, canvas.w), int(40 * canvas.ppm))
    if kind in (0, 1):
        yy = np.arange(canvas.h, dtype=np.float32)[:, None]
        shade = shade + 0.06 * np.sin(yy / (canvas.ppm * rng.uniform(2, 6)) + _noise_field(
            rng, (canvas.h, canvas.w), int(20 * canvas.ppm)) * 3)
    tex *= shade[..., None]
    kx0, ky0, kx1, ky1 = keep_out
    for _ in range(cond.clutter):
        for _attempt in range(10):
            cx = rng.uniform(canvas.x0, canvas.x0 + canvas.w / canvas.ppm)
            cy = rng.uniform(canvas.y0, canvas.y0 + canvas.h / canvas.ppm)
            size = rng.uniform(15, 70)
            if not (kx0 - size < cx < kx1 + size and ky0 - size < cy < ky1 + size):
                break
        else:
            continue
        colour = lab_albedo((rng.uniform(20, 95), rng.uniform(-30, 40), rng.uniform(-30, 50)))
        u, v = canvas.px(cx, cy)
        if rng.random() < 0.5:
            ang = rng.uniform(0, 180)
            box = cv2.boxPoints(((u, v), (size * canvas.ppm, size * 1.4 * canvas.ppm), ang))
            cv2.fillConvexPoly(tex, np.round(box * 16).astype(np.int32), [float(c) for c in colour], shift=4)
            ink = lab_albedo((rng.uniform(10, 60), rng.uniform(-20, 30), rng.uniform(-20, 30)))
            for _ in range(4):
                p = box[rng.integers(0, 4)] * 0.5 + np.array([u, v]) * 0.5
                cv2.circle(tex, (int(p[0]), int(p[1])), int(size * canvas.ppm * 0.15), [float(c) for c in ink], -1)
        else:
            cv2.circle(tex, (int(u), int(v)), int(size * canvas.ppm / 3), [float(c) for c in colour], -1)
    return tex


def _paint_board(rng: np.random.Generator, tex: F32, canvas: _Canvas, template: Template) -> None:
    bw, bh = template.board_mm
    board = np.array([[0, 0], [bw, 0], [bw, bh], [0, bh]], dtype=np.float64)
    _fill(tex, canvas.poly(board), lab_albedo(LINE_LAB) * 0.6)  # the cardboard's dark cut edge
    inset = np.array([[0.8, 0.8], [bw - 0.8, 0.8], [bw - 0.8, bh - 0.8], [0.8, bh - 0.8]], dtype=np.float64)
    board_alb = lab_albedo(BOARD_LAB, rng, 2.0)
    u0, v0 = (int(round(c)) for c in canvas.px(0, 0))
    u1, v1 = (int(round(c)) for c in canvas.px(bw, bh))
    _fill(tex, canvas.poly(inset), board_alb)
    # Printed paper texture and a faint illustration, as on a real board.
    region = tex[max(v0, 0):v1, max(u0, 0):u1]
    mottling = 1.0 + 0.025 * _noise_field(rng, region.shape[:2], int(6 * canvas.ppm))
    region *= mottling[..., None]
    art = lab_albedo((70, 6, 22), rng, 3.0)
    thick = max(1, int(round(0.8 * canvas.ppm)))
    for _ in range(3):
        xs = np.linspace(205, 270, 8) + rng.normal(0, 2, 8)
        ys = bh * 0.3 + rng.uniform(0, 60) - 30 * np.sin(np.linspace(0, math.pi, 8))
        pts = np.array([canvas.px(x, y) for x, y in zip(xs, ys, strict=True)], dtype=np.int32)
        cv2.polylines(tex, [pts], False, [float(c) for c in art], thick)
    line = lab_albedo(LINE_LAB, rng, 2.0)
    for g in template.grids.values():
        lw = max(1, int(round(0.7 * canvas.ppm)))
        for r in range(g.rows + 1):
            a = canvas.px(g.origin_mm[0], g.origin_mm[1] + r * g.cell_mm)
            b = canvas.px(g.origin_mm[0] + g.cols * g.cell_mm, g.origin_mm[1] + r * g.cell_mm)
            cv2.line(tex, (int(a[0] * 16), int(a[1] * 16)), (int(b[0] * 16), int(b[1] * 16)),
                     [float(c) for c in line], lw, shift=4)
        for c in range(g.cols + 1):
            a = canvas.px(g.origin_mm[0] + c * g.cell_mm, g.origin_mm[1])
            b = canvas.px(g.origin_mm[0] + c * g.cell_mm, g.origin_mm[1] + g.rows * g.cell_mm)
            cv2.line(tex, (int(a[0] * 16), int(a[1] * 16)), (int(b[0] * 16), int(b[1] * 16)),
                     [float(c) for c in line], lw, shift=4)


def _paste_sticker(tex: F32, canvas: _Canvas, spec: StickerSpec, centre: tuple[float, float], angle: float) -> None:
    grey = render_sticker(spec, canvas.ppm)
    alb = BLACK_REFLECTANCE + (PAPER_REFLECTANCE - BLACK_REFLECTANCE) * srgb_to_linear(grey / 255.0)
    s = spec.size_mm
    # Sticker pixel -> canvas pixel: rotate about the marker centre.
    ox, oy = -STICKER_BOX[0] * s * canvas.ppm, -STICKER_BOX[1] * s * canvas.ppm
    cu, cv = canvas.px(*centre)
    c, sn = math.cos(angle), math.sin(angle)
    m = np.array([[c, -sn, cu - (c * ox - sn * oy)], [sn, c, cv - (sn * ox + c * oy)]])
    warped = cv2.warpAffine(alb, m, (canvas.w, canvas.h), flags=cv2.INTER_LINEAR, borderValue=-1.0)
    mask = warped >= 0
    tex[mask] = warped[mask][:, None]


def _irradiance(canvas: _Canvas, lights: Sequence[Light], ambient: F32, boxes: Sequence[Box],
                occluder: F64 | None, rng: np.random.Generator) -> tuple[F32, list[F32], _Canvas]:
    """Irradiance on the table at a coarse resolution, plus each light's visibility map (soft shadows)."""
    low = _Canvas(canvas.x0, canvas.y0, canvas.x0 + canvas.w / canvas.ppm, canvas.y0 + canvas.h / canvas.ppm,
                  min(canvas.ppm, 2.0))
    ys, xs = np.mgrid[0:low.h, 0:low.w].astype(np.float64)
    px = np.stack([xs / low.ppm + low.x0, ys / low.ppm + low.y0, np.zeros_like(xs)], axis=-1)
    total = np.zeros((low.h, low.w, 3), np.float32)
    vis_maps = []
    for light in lights:
        d = light.position - px
        r2 = np.sum(d * d, axis=-1)
        cos = -d[..., 2] / np.sqrt(r2)
        e = (light.power * np.clip(cos, 0, None) / r2).astype(np.float32)
        vis = np.ones((low.h, low.w), np.float32)
        for box in boxes:
            pts = box.corners()
            ldir = light.direction_to(np.array([box.x, box.y, -box.side / 2]))
            proj = pts[:, :2] - (pts[:, 2:3] / ldir[2]) * ldir[:2]
            hull = cv2.convexHull(low.poly(np.column_stack([proj, np.zeros(len(proj))])))
            cv2.fillConvexPoly(vis, hull, 0.0, shift=4)
        # Penumbra: the source's angular size times the height of what casts the shadow (a cube: ~half its side).
        penumbra_mm = max(0.3, 4.0 * light.spread)
        vis = cv2.GaussianBlur(vis, (0, 0), max(0.6, penumbra_mm * low.ppm))
        occ = np.ones((low.h, low.w), np.float32)
        if occluder is not None:
            ldir = light.direction_to(occluder.mean(axis=0))
            proj = occluder[:, :2] - (occluder[:, 2:3] / ldir[2]) * ldir[:2]
            cv2.fillPoly(occ, [low.poly(np.column_stack([proj, np.zeros(len(proj))]))], 0.0, shift=4)
            occ = cv2.GaussianBlur(occ, (0, 0), (1.0 + float(-occluder[:, 2].mean()) * light.spread) * low.ppm)
            vis *= occ
        # The boxes themselves only see the occluder's shadow (a box is never in its own shadow).
        vis_maps.append(occ)
        total += (e * vis)[..., None] * light.colour
    total += ambient
    return total, vis_maps, low


def _sample(map_: F32, low: _Canvas, x: float, y: float) -> float:
    u = int(np.clip((x - low.x0) * low.ppm, 0, map_.shape[1] - 1))
    v = int(np.clip((y - low.y0) * low.ppm, 0, map_.shape[0] - 1))
    return float(map_[v, u])


def _draw_boxes(img: F32, cam: Camera, boxes: Sequence[Box], lights: Sequence[Light], ambient: F32,
                vis_maps: Sequence[F32], low: _Canvas, exposure: F32) -> None:
    centre = cam.centre
    order = sorted(boxes, key=lambda b: -float(np.linalg.norm(np.array([b.x, b.y, -b.side / 2 - b.z0]) - centre)))
    for box in order:
        pts = box.corners()
        uv = cam.project(pts)
        mid = pts.mean(axis=0)
        for face in _FACES:
            fp = pts[list(face)]
            fc = fp.mean(axis=0)
            n = np.cross(fp[1] - fp[0], fp[2] - fp[0])
            n /= np.linalg.norm(n)
            if n.dot(fc - mid) < 0:
                n = -n
            if n.dot(centre - fc) <= 0:
                continue
            e = ambient * (0.6 + 0.4 * max(0.0, -n[2]))
            for light, vis in zip(lights, vis_maps, strict=True):
                d = light.position - fc
                r2 = float(d.dot(d))
                lam = max(0.0, float(n.dot(d)) / math.sqrt(r2))
                shadow = _sample(vis, low, fc[0], fc[1])
                e = e + light.colour * (light.power * lam / r2 * shadow)
            colour = box.albedo * e * exposure
            poly = np.round(uv[list(face)] * 16).astype(np.int32)
            _fill(img, poly, colour)
            if n[2] < -0.5:
                _draw_marks(img, cam, box, fp, colour)


def _draw_marks(img: F32, cam: Camera, box: Box, face: F64, colour: F32) -> None:
    """Wood grain on cubes; the hit marks and the broken icon on a die's top face."""
    a, b, d = face[0], face[1], face[3]

    def at(fx: float, fy: float) -> F64:
        return np.asarray(a + (b - a) * fx + (d - a) * fy, dtype=np.float64)

    if box.grain:
        for fy in (0.22, 0.5, 0.81):
            p = cam.project(np.vstack([at(0.05, fy), at(0.95, fy + 0.04)]))
            width = max(1, int(abs(p[1, 0] - p[0, 0]) / 60))
            cv2.line(img, tuple(int(v) for v in p[0]), tuple(int(v) for v in p[1]),
                     [float(c) * 0.85 for c in colour], width)
    for kind, fx, fy in box.marks:
        ring = kind == "broken"
        rad = 0.17 if ring else 0.085
        ang = np.linspace(0, 2 * math.pi, 24, endpoint=False)
        circle = np.vstack([at(fx + rad * math.cos(t), fy + rad * math.sin(t)) for t in ang])
        poly = np.round(cam.project(circle) * 16).astype(np.int32)
        ink = ([float(c) * 0.12 for c in colour] if box.ink is None
               else [float(c) for c in box.ink * colour / np.maximum(box.albedo, 1e-4)])
        if ring:
            pix = cam.project(circle)
            thick = max(1, int(np.ptp(pix[:, 0]) * 0.09))
            cv2.polylines(img, [poly], True, ink, thick, shift=4)
            # The crack across the ring that makes it a "broken" icon.
            crack = cam.project(np.vstack([at(fx - rad * 0.7, fy - rad * 0.7), at(fx + rad * 0.7, fy + rad * 0.7)]))
            cv2.line(img, tuple(int(v) for v in crack[0]), tuple(int(v) for v in crack[1]), ink, thick)
        else:
            cv2.fillPoly(img, [poly], ink, shift=4)


def _finish(rng: np.random.Generator, img: F32, cond: Conditions, cam: Camera, glare_at: F64 | None,
            blur_scale: float) -> tuple[npt.NDArray[np.uint8], dict[str, float]]:
    w, h = cond.size
    info: dict[str, float] = {}
    if glare_at is not None:
        uv = cam.project(glare_at[None])[0]
        sigma = rng.uniform(0.01, 0.03) * w
        small = np.zeros((h // 8, w // 8), np.float32)
        cv2.circle(small, (int(uv[0] / 8), int(uv[1] / 8)), 1, 1.0, -1)
        blob = cv2.GaussianBlur(small, (0, 0), sigma / 8)
        blob /= max(float(blob.max()), 1e-6)
        blob = cv2.resize(blob, (w, h), interpolation=cv2.INTER_LINEAR)
        img += (blob * rng.uniform(1.5, 3.0))[..., None]
        info["glare_sigma_px"] = sigma
    yy, xx = np.ogrid[0:h:8, 0:w:8]
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    vig = cv2.resize((1 - rng.uniform(0.1, 0.35) * r2).astype(np.float32), (w, h))
    img *= vig[..., None]
    lut = (linear_to_srgb(np.linspace(0, 1, 4096)) * 255 + 0.5).astype(np.uint8)
    img *= 4095  # (clip(img * 4095, 0, 4095), in place: img is not used after)
    np.clip(img, 0, 4095, out=img)
    idx = img.astype(np.uint16)
    out = lut[idx]
    sigma = rng.uniform(*cond.blur_px) * blur_scale
    info["blur_px"] = sigma
    if sigma > 0.2:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    if rng.random() < cond.motion_blur:
        length = int(rng.uniform(3, 9) * blur_scale) | 1
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kernel = cv2.warpAffine(kernel, rot, (length, length))
        kernel /= kernel.sum()
        out = cv2.filter2D(out, -1, kernel)
        info["motion_px"] = float(length)
    noise = np.empty(out.shape, np.int16)
    nsig = rng.uniform(*cond.noise)
    cv2.setRNGSeed(int(rng.integers(0, 2**31 - 1)))  # OpenCV's fast generator, seeded from ours
    cv2.randn(noise, 0, nsig)
    noise += out  # (clip(out + noise, 0, 255) in 16 bits, in place)
    np.clip(noise, 0, 255, out=noise)
    out = noise.astype(np.uint8)
    info["noise"] = nsig
    q = int(rng.integers(cond.jpeg_quality[0], cond.jpeg_quality[1] + 1))
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(out, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, q])
    info["jpeg_quality"] = q
    assert ok
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return np.asarray(decoded, dtype=np.uint8), info


def _camera_exposure(rng: np.random.Generator, lights: Sequence[Light], ambient: F32, centre: F64) -> F32:
    """The camera's exposure and white balance: aims paper at ~0.8 but balances the light only partly."""
    e = ambient.copy()
    for lt in lights:
        d = lt.position - centre
        r2 = float(d.dot(d))
        e = e + lt.colour * lt.power * max(0.0, -d[2] / math.sqrt(r2)) / r2
    wb_strength = rng.uniform(0.3, 0.95)
    neutral = e / e.max()
    gains = 1.0 / (wb_strength * neutral + (1 - wb_strength) * 1.0)
    white = PAPER_REFLECTANCE * e * gains
    level = rng.uniform(0.55, 0.8) / float(white.max())
    return np.asarray(gains * level, dtype=np.float32)


def render_board(template: Template, gear: Mapping[str, Sequence[str]], *, seed: int,
                 conditions: Conditions | None = None) -> Rendered:
    """A photo of the template's board with these cubes, and its labels (the cubes, the camera, the light)."""
    cond = conditions or Conditions()
    rng = np.random.default_rng(seed)
    bw, bh = template.board_mm
    cam = _pick_camera(rng, template, cond)
    w, h = cond.size
    hom = cam.plane_homography()
    inv = np.linalg.inv(hom)
    corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], dtype=np.float64) @ inv.T
    corners = corners[:, :2] / corners[:, 2:3]
    x0, y0 = np.maximum(corners.min(axis=0), [-400, -400])
    x1, y1 = np.minimum(corners.max(axis=0), [bw + 400, bh + 400])
    img_ppm = float(np.linalg.norm(cam.project(np.array([[bw, 0, 0.0]])) - cam.project(np.zeros((1, 3))))) / bw
    canvas = _Canvas(float(x0), float(y0), float(x1), float(y1), float(np.clip(img_ppm * 0.6, 2.0, 5.0)))

    tex = _paint_table(rng, canvas, cond, (-5, -5, bw + 5, bh + 5))
    _paint_board(rng, tex, canvas, template)
    hidden = set(rng.choice(4, size=cond.hide_markers, replace=False).tolist()) if cond.hide_markers else set()
    for i, (mid, centre) in enumerate(zip(template.markers.ids, template.markers.centres_mm, strict=True)):
        if i in hidden:
            continue
        jitter = (centre[0] + rng.normal(0, 0.3), centre[1] + rng.normal(0, 0.3))
        _paste_sticker(tex, canvas, StickerSpec(mid, template.markers.size_mm, template.markers.dictionary, ""),
                       jitter, math.radians(rng.normal(0, 0.5)))

    boxes: list[Box] = []
    for name in GEAR_GRIDS:
        g = template.grids[name]
        for r, row in enumerate(gear.get(name, [])):
            for c, letter in enumerate(row):
                if letter not in MATERIAL_LAB:
                    continue
                cx, cy = g.cell_centre(r, c)
                side = template.cube_mm * rng.uniform(0.97, 1.03)
                boxes.append(Box(cx + rng.normal(0, 0.4), cy + rng.normal(0, 0.4), side,
                                 math.radians(rng.normal(0, 4)), lab_albedo(MATERIAL_LAB[letter], rng, 2.0),
                                 grain=letter == "W"))
    for _ in range(int(rng.integers(0, 6))):
        # Loose cubes on the table, off the board.
        for _attempt in range(20):
            cx, cy = rng.uniform(x0, x1), rng.uniform(y0, y1)
            if not (-15 < cx < bw + 15 and -15 < cy < bh + 15):
                boxes.append(Box(cx, cy, template.cube_mm, rng.uniform(0, math.pi),
                                 lab_albedo(MATERIAL_LAB[str(rng.choice(["W", "M", "T"]))], rng, 2.0)))
                break

    lights, ambient = _lights(rng, cond, (bw / 2, bh / 2))
    occluder = None
    if rng.random() < cond.occluder_shadow:
        ox, oy = rng.uniform(0, bw), rng.uniform(0, bh)
        ang = np.linspace(0, 2 * math.pi, 9, endpoint=False) + rng.uniform(0, 1)
        rad = rng.uniform(40, 110) * (0.7 + 0.3 * rng.random(9))
        occluder = np.column_stack([ox + rad * np.cos(ang), oy + rad * np.sin(ang) * 0.6,
                                    np.full(9, -rng.uniform(80, 250))])
    irr_low, vis_maps, low = _irradiance(canvas, lights, ambient, boxes, occluder, rng)
    exposure = _camera_exposure(rng, lights, ambient, np.array([bw / 2, bh / 2, 0.0]))
    irr = cv2.resize(irr_low, (canvas.w, canvas.h), interpolation=cv2.INTER_LINEAR)
    tex *= irr
    tex *= exposure
    warp = hom @ canvas.world_from_px()
    img = cv2.warpPerspective(tex, warp, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    _draw_boxes(img, cam, boxes, lights, ambient, vis_maps, low, exposure)
    glare_at = None
    if rng.random() < cond.glare:
        g = template.grids[str(rng.choice(list(GEAR_GRIDS)))]
        glare_at = np.array([g.origin_mm[0] + rng.uniform(0, g.size_mm[0]),
                             g.origin_mm[1] + rng.uniform(0, g.size_mm[1]), -template.cube_mm])
    final, info = _finish(rng, img, cond, cam, glare_at, blur_scale=w / 4000)
    labels: dict[str, Any] = {
        "board": template.board,
        **{name: list(gear.get(name, [])) for name in GEAR_GRIDS},
        "render": {
            "seed": seed, "size": list(cond.size), "camera_centre_mm": [round(float(v), 1) for v in cam.centre],
            "focal_px": round(float(cam.k[0, 0]), 1), "kelvin": [_kelvin_guess(lt.colour) for lt in lights],
            "occluder": occluder is not None, "glare_mm": None if glare_at is None else
            [round(float(v), 1) for v in glare_at[:2]], "hidden_markers": sorted(hidden), **info,
        },
    }
    return Rendered(final, labels)


def _kelvin_guess(colour: F32) -> float:
    return round(float(colour[2]), 3)


# --------------------------------------------------------------------------------------------
# Dice in a tray.

#: Where the marks sit on a die face (fractions of the face), by number of hits; the broken icon goes last.
PIP_LAYOUT = {
    0: [], 1: [(0.5, 0.5)], 2: [(0.28, 0.28), (0.72, 0.72)], 3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
}
BROKEN_LAYOUT = {0: (0.5, 0.5), 1: (0.62, 0.62), 2: (0.72, 0.3), 3: (0.75, 0.28)}


def face_marks(hits: int, broken: bool) -> list[tuple[str, float, float]]:
    if broken:
        pips = {0: [], 1: [(0.3, 0.3)], 2: [(0.25, 0.72), (0.5, 0.72)], 3: [(0.22, 0.75), (0.45, 0.75),
                                                                               (0.22, 0.5)]}[hits]
        fx, fy = BROKEN_LAYOUT[hits]
        return [("pip", x, y) for x, y in pips] + [("broken", fx, fy)]
    return [("pip", x, y) for x, y in PIP_LAYOUT[hits]]


def render_dice(dice: Sequence[tuple[str, str]], *, seed: int, cocked: Sequence[int] = (),
                conditions: Conditions | None = None, die_mm: float = 16.0) -> Rendered:
    """A photo of dice in a tray from above, with the tray's marker sticker; faces as in companion.dice."""
    cond = conditions or Conditions(tilt_deg=(0.0, 10.0), board_fraction=(0.6, 0.85), occluder_shadow=0.0,
                                    glare=0.0, clutter=0)
    rng = np.random.default_rng(seed)
    tray = (200.0, 140.0)
    from vision.template import Markers
    fake = Template("tray", "symmetric", tray, Markers("DICT_4X4_50", DICE_TRAY_MARKER_MM, (0, 1, 2, 3),
                    ((0, 0), (0, 0), (0, 0), (0, 0))), {})
    cam = _pick_camera(rng, fake, cond)
    w, h = cond.size
    canvas = _Canvas(-10, -10, tray[0] + 10, tray[1] + 10, 4.0)
    tex = np.empty((canvas.h, canvas.w, 3), np.float32)
    felt = lab_albedo([(22, 2, -14), (25, -10, 2), (18, 6, 4)][int(rng.integers(0, 3))], rng, 2.0)
    tex[:] = felt
    tex *= (1 + 0.05 * _noise_field(rng, (canvas.h, canvas.w), 12))[..., None]
    mcentre = (20.0, 20.0)
    _paste_sticker(tex, canvas, StickerSpec(DICE_TRAY_MARKER_ID, DICE_TRAY_MARKER_MM, "DICT_4X4_50", ""),
                   mcentre, math.radians(rng.normal(0, 3)))
    boxes: list[Box] = []
    placed: list[tuple[float, float]] = []
    truth = []
    for i, (kind, face) in enumerate(dice):
        for _attempt in range(200):
            x, y = rng.uniform(45, tray[0] - 15), rng.uniform(15, tray[1] - 15)
            if all(math.hypot(x - px, y - py) > die_mm * 1.8 for px, py in placed):
                break
        placed.append((x, y))
        broken = face.endswith("b")
        hits = int(face[:-1] if broken else face)
        tilt = math.radians(rng.uniform(22, 38)) if i in cocked else 0.0
        boxes.append(Box(x, y, die_mm, rng.uniform(0, math.pi / 2), lab_albedo(DIE_LAB[kind], rng, 1.5),
                         tilt=tilt, marks=face_marks(hits, broken)))
        truth.append({"kind": kind, "face": face, "cocked": i in cocked, "at_mm": [round(x, 1), round(y, 1)]})
    final, info = _photograph(rng, cond, cam, canvas, tex, boxes, tray)
    return Rendered(final, {"dice": truth, "render": {"seed": seed, **info}})


#: Shogun's cube colours as this renderer draws them (CIE Lab).
TRAY_LAB = {"red": (44.0, 62.0, 45.0), "yellow": (83.0, 2.0, 80.0), "blue": (37.0, 12.0, -52.0),
            "purple": (35.0, 38.0, -33.0), "white": (93.0, 0.0, 3.0), "green": (53.0, -44.0, 40.0)}


#: A flat scene's photo (a tray, dice on a board): one shot from above, no glare or clutter.
_FLAT_SCENE = Conditions(size=(2000, 1500), tilt_deg=(0.0, 10.0), board_fraction=(0.6, 0.85),
                         occluder_shadow=0.0, glare=0.0, clutter=0)


def _flat_scene(rng: np.random.Generator, cond: Conditions, name: str, area: tuple[float, float],
                albedo: Any, noise: float) -> tuple[Any, _Canvas, np.ndarray]:
    """The camera, canvas and surface of a flat area with the tray sticker (random draws in a fixed order:
    camera, surface colour, texture, sticker)."""
    from vision.template import Markers

    fake = Template(name, "symmetric", area, Markers("DICT_4X4_50", DICE_TRAY_MARKER_MM, (0, 1, 2, 3),
                    ((0, 0), (0, 0), (0, 0), (0, 0))), {})
    cam = _pick_camera(rng, fake, cond)
    canvas = _Canvas(-10, -10, area[0] + 10, area[1] + 10, 4.0)
    tex = np.empty((canvas.h, canvas.w, 3), np.float32)
    tex[:] = albedo()
    tex *= (1 + noise * _noise_field(rng, (canvas.h, canvas.w), 12))[..., None]
    _paste_sticker(tex, canvas, StickerSpec(DICE_TRAY_MARKER_ID, DICE_TRAY_MARKER_MM, "DICT_4X4_50", ""),
                   (20.0, 20.0), math.radians(rng.normal(0, 3)))
    return cam, canvas, tex


def _photograph(rng: np.random.Generator, cond: Conditions, cam: Any, canvas: _Canvas, tex: np.ndarray,
                boxes: list[Box], area: tuple[float, float]) -> tuple[np.ndarray, dict[str, Any]]:
    """Light a flat scene and its boxes, and take the photo."""
    w, h = cond.size
    lights, ambient = _lights(rng, cond, (area[0] / 2, area[1] / 2))
    irr_low, vis_maps, low = _irradiance(canvas, lights, ambient, boxes, None, rng)
    exposure = _camera_exposure(rng, lights, ambient, np.array([area[0] / 2, area[1] / 2, 0.0]))
    tex *= cv2.resize(irr_low, (canvas.w, canvas.h))
    tex *= exposure
    img = cv2.warpPerspective(tex, cam.plane_homography() @ canvas.world_from_px(), (w, h),
                              flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    _draw_boxes(img, cam, boxes, lights, ambient, vis_maps, low, exposure)
    final, info = _finish(rng, img, cond, cam, None, blur_scale=w / 4000)
    return final, info


def render_tray(*, seed: int, conditions: Conditions | None = None, cube_mm: float = 10.0) -> Rendered:
    """A photo of plain cubes in a tray (random counts per colour, some touching, some stacked), with the
    tray's sticker; labels: ``counts`` per colour (stacked ones included) and ``stacked``."""
    cond = conditions or _FLAT_SCENE
    rng = np.random.default_rng(seed)
    tray = (200.0, 140.0)
    cam, canvas, tex = _flat_scene(
        rng, cond, "tray", tray,
        lambda: lab_albedo([(22, 2, -14), (25, -10, 2), (18, 6, 4)][int(rng.integers(0, 3))], rng, 2.0), 0.05)
    boxes: list[Box] = []
    counts: dict[str, int] = {}
    stacked = 0
    for name, lab in TRAY_LAB.items():
        counts[name] = int(rng.integers(0, 5))
        for _ in range(counts[name]):
            albedo = lab_albedo(lab, rng, 2.0)
            floor = [b for b in boxes if b.z0 == 0.0]
            if floor and rng.random() < 0.12:
                base = floor[int(rng.integers(len(floor)))]
                if not any(b.z0 > 0 and math.hypot(b.x - base.x, b.y - base.y) < 2 for b in boxes):
                    boxes.append(Box(base.x + rng.normal(0, 0.5), base.y + rng.normal(0, 0.5), cube_mm,
                                     rng.uniform(0, math.pi / 2), albedo, z0=cube_mm))
                    stacked += 1
                    continue
            for _attempt in range(200):
                if floor and rng.random() < 0.3:
                    other = floor[int(rng.integers(len(floor)))]
                    x, y = other.x + float(rng.choice([-1.0, 1.0])) * cube_mm * 1.03, other.y + rng.normal(0, 2)
                else:
                    x, y = rng.uniform(45, tray[0] - 12), rng.uniform(12, tray[1] - 12)
                if 8 < x < tray[0] - 8 and 8 < y < tray[1] - 8 and all(
                        math.hypot(x - b.x, y - b.y) > cube_mm * 1.0 for b in floor):
                    break
            boxes.append(Box(x, y, cube_mm, rng.uniform(0, math.pi / 2) if rng.random() < 0.5 else 0.0, albedo))
    final, info = _photograph(rng, cond, cam, canvas, tex, boxes, tray)
    return Rendered(final, {"counts": counts, "stacked": stacked, "render": {"seed": seed, **info}})


#: The White Castle's dice as this renderer draws them: body Lab and pip albedo (light pips on dark dice).
CASTLE_DICE = {"red": ((42.0, 58.0, 40.0), 0.8), "white": ((92.0, 0.0, 3.0), 0.03), "black": ((20.0, 0.0, 0.0), 0.8)}
_PIPS6 = {1: [(0.5, 0.5)], 2: [(0.27, 0.27), (0.73, 0.73)], 3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
          4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
          5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
          6: [(0.27, 0.22), (0.27, 0.5), (0.27, 0.78), (0.73, 0.22), (0.73, 0.5), (0.73, 0.78)]}


def render_dice_rows(*, seed: int, conditions: Conditions | None = None, die_mm: float = 16.0) -> Rendered:
    """Dice laid out in rows (The White Castle's bridges) on a light board with the tray sticker; labels:
    ``rows``, each a list of [colour, value] from left to right, rows from top to bottom."""
    cond = conditions or _FLAT_SCENE
    rng = np.random.default_rng(seed)
    area = (200.0, 140.0)
    cam, canvas, tex = _flat_scene(rng, cond, "rows", area, lambda: lab_albedo((72.0, 4.0, 16.0), rng, 3.0), 0.04)
    boxes: list[Box] = []
    rows = []
    for r in range(int(rng.integers(1, 4))):
        row = []
        y = 25.0 + 38.0 * r + rng.normal(0, 1.5)
        for i in range(int(rng.integers(1, 6))):
            colour = str(rng.choice(list(CASTLE_DICE)))
            value = int(rng.integers(1, 7))
            lab, pip = CASTLE_DICE[colour]
            x = 55.0 + 24.0 * i + rng.normal(0, 1.5)
            boxes.append(Box(x, y + rng.normal(0, 1.0), die_mm, math.radians(rng.normal(0, 8)),
                             lab_albedo(lab, rng, 1.5), marks=[("pip", fx, fy) for fx, fy in _PIPS6[value]],
                             ink=np.full(3, pip, np.float32)))
            row.append([colour, value])
        rows.append(row)
    final, info = _photograph(rng, cond, cam, canvas, tex, boxes, area)
    return Rendered(final, {"rows": rows, "render": {"seed": seed, **info}})


# --------------------------------------------------------------------------------------------


def write_rendered(rendered: Rendered, image_path: Path, *, quality: int = 95) -> Path:
    """Writes the photo (JPEG or PNG by suffix) and its labels next to it as ``<name>.json``."""
    params = [cv2.IMWRITE_JPEG_QUALITY, quality] if image_path.suffix.lower() in (".jpg", ".jpeg") else []
    if not cv2.imwrite(str(image_path), rendered.image, params):
        raise OSError(f"cannot write {image_path}")
    label_path = image_path.with_suffix(".json")
    label_path.write_text(json.dumps(rendered.labels, indent=1), encoding="utf-8")
    return label_path


# --------------------------------------------------------------------------------------------
# Cached photo sets: the benchmark's and the cell network's training photos.


def photo_cache_dir() -> Path:
    """Where rendered photo sets are kept (``FUJIKORO_VISION_CACHE`` overrides the user cache folder)."""
    from platformdirs import user_cache_dir

    return Path(os.environ.get("FUJIKORO_VISION_CACHE", user_cache_dir("fujikoro"))) / "vision-bench"


def photo_set_folder(root: Path, name: str, seed: int, cond: Conditions) -> Path:
    """The cache folder of one photo set: named by the set, its seed, size and a hash of everything that
    decides its pixels (the conditions, the renderer's version), so a change is never read from a stale cache."""
    key = repr((RENDER_VERSION, seed, cond)).encode()
    w, h = cond.size
    return root / f"{name}-seed{seed}-{w}x{h}-{hashlib.sha256(key).hexdigest()[:10]}"


#: The JPEG quality the sets' photos are saved at.
SET_JPEG_QUALITY = 97


def render_set_photo(seed: int, index: int, cond: Conditions, template: Template) -> Rendered:
    """Photo ``index`` of a set: random gear and its render, both from seed ``seed * 100000 + index``."""
    photo_seed = seed * 100_000 + index
    rng = np.random.default_rng(photo_seed)
    gear = random_gear(rng, template, float(rng.uniform(*cond.fill)))
    return render_board(template, gear, seed=photo_seed, conditions=cond)


def photo_set(folder: Path, count: int, seed: int, cond: Conditions, prefix: str = "photo",
              template: Template | None = None) -> list[Path]:
    """The paths of a set's ``count`` photos (JPEG plus labels JSON), rendering the ones not cached yet.
    Photo ``i`` is rendered from seed ``seed * 100000 + i``, so a set can grow without changing."""
    folder.mkdir(parents=True, exist_ok=True)
    template = template or load_template()
    paths = []
    for i in range(count):
        path = folder / f"{prefix}-{i:04d}.jpg"
        paths.append(path)
        if path.exists() and path.with_suffix(".json").exists():
            continue
        write_rendered(render_set_photo(seed, i, cond, template), path, quality=SET_JPEG_QUALITY)
        if (i + 1) % 25 == 0:
            print(f"  rendered {i + 1}/{count}", file=sys.stderr, flush=True)
    return paths
