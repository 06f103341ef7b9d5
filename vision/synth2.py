"""A second, independent renderer of labelled board photos: the test the reader was never tuned on.

``vision.synth`` is the renderer the reader was developed against and the cell network was trained on.
This one is written separately and shares none of its code or numbers (only the product itself: the
template's geometry, the printed stickers of ``vision.stickers`` and the label format), and makes other
choices on purpose:

- **the board**: random board art (a parchment, slate, green, red-brown or dark print with low-frequency
  blotches and decorative shapes), grid cells printed light to dark and in colour, lines of any weight;
- **the cubes**: real boxes with visible side faces, rounded bright edges, per-face texture (wood grain,
  painted metal with a sheen, ivory), sizes and colours varying around the shipped cubes;
- **the light**: one to three lights (a lamp close above as a point light with inverse-square fall-off,
  a window as a directional light, a ceiling light), colour from a black-body approximation, soft cast
  shadows whose blur grows with the light's size and the caster's height, ambient light;
- **the camera**: a pinhole with radial lens distortion (barrel or pincushion), vignetting, lateral
  chromatic aberration, shot and read noise, an imperfect white balance, a filmic tone curve, phone-style
  sharpening and JPEG with chroma subsampling;
- **the table**: wood, cloth or laminate, cards, coins, loose cubes and dice on it, and a hand (with its
  soft shadow) reaching in at the board's edge.

It is never imported by a reader (an import-linter contract says so). The benchmark reads its photos
with ``python benchmarks/vision.py --renderer second``; see ``vision/README.md`` for which seeds are for
tuning and which are the test set.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.stickers import StickerSpec, render_sticker
from vision.template import GEAR_GRIDS, Template, load_template

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]

VERSION = 2

#: Seeds of renderer-2 photo sets. Tuning may look at TUNE_SEEDS; the reported test set (TEST_SEED) is
#: never looked at while tuning or training.
TUNE_SEEDS = (501, 502, 503)
TEST_SEED = 9090


@dataclass(frozen=True, slots=True)
class Look:
    """What varies between this renderer's photos (defaults: ordinary photos at a table)."""

    size: tuple[int, int] = (4000, 3000)
    max_tilt_deg: float = 30.0
    #: Chance that the stickers were cut without their reference-patch strip.
    no_patches: float = 0.0
    #: Chance that the grid cells are printed dark (L* 18-40) rather than anywhere light to dark.
    dark_print: float = 0.2
    hand: float = 0.35
    fill: tuple[float, float] = (0.05, 0.9)


# --------------------------------------------------------------------------------------------
# Colour helpers (own conversions: Lab D65 -> linear sRGB).


def _lab_to_lin(lab: tuple[float, float, float]) -> F32:
    L, a, b = lab
    fy = (L + 16) / 116
    fx, fz = fy + a / 500, fy - b / 200

    def finv(t: float) -> float:
        return t**3 if t > 6 / 29 else 3 * (6 / 29) ** 2 * (t - 4 / 29)

    x, y, z = 0.95047 * finv(fx), finv(fy), 1.08883 * finv(fz)
    m = np.array([[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415], [0.0557, -0.2040, 1.0570]])
    return np.clip(m @ np.array([x, y, z]), 0.002, 1.0).astype(np.float32)


def _blackbody(kelvin: float) -> F32:
    """Approximate linear-RGB colour of a black body, normalised to green = 1 (a fit of Planck's law)."""
    t = kelvin / 100
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * math.log(t) - 161.1 if t <= 66 else 288.1 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5 * math.log(t - 10) - 305.0)
    rgb = np.clip(np.array([r, g, b]) / 255, 0.02, 1.0) ** 2.2
    return (rgb / rgb[1]).astype(np.float32)


# --------------------------------------------------------------------------------------------
# Camera.


@dataclass
class _Cam:
    rvec: F64
    tvec: F64
    k: F64
    dist: F64
    size: tuple[int, int]
    centre: F64

    def project(self, pts: F64) -> F64:
        # Board coordinates run x right, y down the printed board; with height up that frame is
        # left-handed, so the camera works in (x, y, -height).
        rh = (pts.reshape(-1, 3) * [1.0, 1.0, -1.0]).reshape(-1, 1, 3).astype(np.float64)
        img, _ = cv2.projectPoints(rh, self.rvec, self.tvec, self.k, self.dist)
        return img.reshape(-1, 2)

    def plane_map(self, step: int = 8) -> tuple[F32, F32]:
        """For every photo pixel, the board-plane point (mm) it sees (lens distortion included)."""
        w, h = self.size
        gx, gy = np.meshgrid(np.arange(0, w + step, step, dtype=np.float64),
                             np.arange(0, h + step, step, dtype=np.float64))
        pts = np.stack([gx.ravel(), gy.ravel()], axis=1).reshape(-1, 1, 2)
        und = cv2.undistortPoints(pts, self.k, self.dist).reshape(-1, 2)
        rot, _ = cv2.Rodrigues(self.rvec)
        rays = np.column_stack([und, np.ones(len(und))]) @ rot  # world directions (R^T d)
        origin = self.centre * [1.0, 1.0, -1.0]
        s = -origin[2] / np.where(np.abs(rays[:, 2]) < 1e-9, -1e-9, rays[:, 2])
        px = origin[0] + s * rays[:, 0]
        py = origin[1] + s * rays[:, 1]
        mx = px.reshape(gx.shape).astype(np.float32)
        my = py.reshape(gx.shape).astype(np.float32)
        full = (w + step, h + step)
        mx = cv2.resize(mx, (mx.shape[1] * step, mx.shape[0] * step), interpolation=cv2.INTER_LINEAR)
        my = cv2.resize(my, (my.shape[1] * step, my.shape[0] * step), interpolation=cv2.INTER_LINEAR)
        off = step // 2  # resize centres the samples; undo the half-step shift
        del full
        return mx[off:off + h, off:off + w], my[off:off + h, off:off + w]


def _make_camera(rng: np.random.Generator, template: Template, look: Look) -> _Cam:
    bw, bh = template.board_mm
    w, h = look.size
    f = float(rng.uniform(0.7, 1.15)) * max(w, h)
    k = np.array([[f, 0, w / 2 + rng.normal(0, 0.01 * w)], [0, f, h / 2 + rng.normal(0, 0.01 * h)], [0, 0, 1]])
    dist = np.array([rng.uniform(-0.12, 0.06), rng.uniform(-0.03, 0.05), 0, 0, 0], dtype=np.float64)
    frac = float(rng.uniform(0.55, 0.85))
    # Distance so the board's long side spans ``frac`` of the photo's width.
    dist_mm = f * bw / (frac * w)
    tilt = math.radians(float(rng.uniform(0, look.max_tilt_deg)))
    azim = float(rng.uniform(0, 2 * math.pi))
    target = np.array([bw / 2 + rng.normal(0, 8), bh / 2 + rng.normal(0, 6), 0.0])
    centre = target + dist_mm * np.array([math.sin(tilt) * math.cos(azim), math.sin(tilt) * math.sin(azim),
                                          math.cos(tilt)])
    flip = 1.0 if rng.random() < 0.75 else -1.0
    c_rh, t_rh = centre * [1.0, 1.0, -1.0], target * [1.0, 1.0, -1.0]
    fwd = (t_rh - c_rh) / np.linalg.norm(t_rh - c_rh)
    hint = np.array([rng.normal(0, 0.15), flip, 0.0])
    down = hint - np.dot(hint, fwd) * fwd
    down /= np.linalg.norm(down)
    right = np.cross(down, fwd)
    rot = np.stack([right, down, fwd])  # world (right-handed) -> camera rows
    tvec = -rot @ c_rh
    rvec, _ = cv2.Rodrigues(rot)
    return _Cam(rvec.reshape(3), tvec, k, dist, (w, h), centre)


# --------------------------------------------------------------------------------------------
# Board art and table.

_BOARD_BASES = [(80.0, 4.0, 22.0), (70.0, -2.0, -8.0), (62.0, -12.0, 14.0), (55.0, 18.0, 20.0),
                (35.0, 2.0, 6.0), (88.0, 0.0, 6.0), (75.0, 10.0, 30.0)]


def _blotches(rng: np.random.Generator, shape: tuple[int, int], scale_px: float, amount: float) -> F32:
    h, w = shape
    sw, sh = max(2, int(w / scale_px)), max(2, int(h / scale_px))
    small = rng.normal(0, 1, (sh, sw)).astype(np.float32)
    return 1 + amount * cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _board_texture(rng: np.random.Generator, template: Template, look: Look, ppm: float,
                   margin: float, patches: bool) -> tuple[F32, dict[str, Any]]:
    bw, bh = template.board_mm
    W, H = int((bw + 2 * margin) * ppm), int((bh + 2 * margin) * ppm)

    def px(x: float, y: float) -> tuple[int, int]:
        return int(round((x + margin) * ppm)), int(round((y + margin) * ppm))

    base_lab = _BOARD_BASES[int(rng.integers(len(_BOARD_BASES)))]
    base_lab = (base_lab[0] + rng.normal(0, 4), base_lab[1] + rng.normal(0, 3), base_lab[2] + rng.normal(0, 4))
    tex = np.empty((H, W, 3), np.float32)
    tex[:] = _lab_to_lin(base_lab)
    tex *= _blotches(rng, (H, W), 30 * ppm, 0.08)[..., None]
    tex *= _blotches(rng, (H, W), 4 * ppm, 0.03)[..., None]
    # Decorative shapes (art) anywhere on the board.
    for _ in range(int(rng.integers(4, 14))):
        col = _lab_to_lin((float(rng.uniform(20, 90)), float(rng.normal(0, 20)), float(rng.normal(10, 20))))
        x, y = rng.uniform(0, bw), rng.uniform(0, bh)
        if rng.random() < 0.5:
            cv2.circle(tex, px(x, y), int(rng.uniform(3, 25) * ppm), col.tolist(), -1, cv2.LINE_AA)
        else:
            pts = np.array([px(x + rng.uniform(-20, 20), y + rng.uniform(-15, 15)) for _ in range(5)], np.int32)
            cv2.polylines(tex, [pts], True, col.tolist(), max(1, int(rng.uniform(0.3, 2.0) * ppm)), cv2.LINE_AA)
    # The grids: a printed frame, cell fill and lines.
    dark = rng.random() < look.dark_print
    fill_L = float(rng.uniform(18, 40)) if dark else float(rng.uniform(30, 92))
    fill_lab = (fill_L, float(rng.normal(0, 12)), float(rng.normal(8, 15)))
    line_lab = (float(np.clip(fill_L + rng.choice([-1, 1]) * rng.uniform(15, 45), 8, 95)),
                float(rng.normal(0, 10)), float(rng.normal(5, 12)))
    line_w = float(rng.uniform(0.25, 1.1))
    per_grid = rng.random() < 0.3
    fills = {}
    for name, g in template.grids.items():
        lab = fill_lab if not per_grid else (float(np.clip(fill_L + rng.normal(0, 10), 12, 95)),
                                             float(rng.normal(0, 14)), float(rng.normal(8, 15)))
        fills[name] = lab
        x0, y0 = g.origin_mm
        x1, y1 = x0 + g.size_mm[0], y0 + g.size_mm[1]
        if rng.random() < 0.5:
            pad = float(rng.uniform(1, 4))
            cv2.rectangle(tex, px(x0 - pad, y0 - pad), px(x1 + pad, y1 + pad),
                          _lab_to_lin(line_lab).tolist(), max(1, int(line_w * ppm)), cv2.LINE_AA)
        cell = _lab_to_lin(lab)
        region = tex[px(x0, y0)[1]:px(x1, y1)[1], px(x0, y0)[0]:px(x1, y1)[0]]
        region[:] = cell * _blotches(rng, region.shape[:2], 6 * ppm, 0.04)[..., None]
        lc = _lab_to_lin(line_lab).tolist()
        t = max(1, int(round(line_w * ppm)))
        for r in range(g.rows + 1):
            cv2.line(tex, px(x0, y0 + r * g.cell_mm), px(x1, y0 + r * g.cell_mm), lc, t, cv2.LINE_AA)
        for c in range(g.cols + 1):
            cv2.line(tex, px(x0 + c * g.cell_mm, y0), px(x0 + c * g.cell_mm, y1), lc, t, cv2.LINE_AA)
        if rng.random() < 0.3:
            # A small printed icon in some cells' corners.
            for r in range(g.rows):
                for c in range(g.cols):
                    if rng.random() < 0.4:
                        cx, cy = x0 + c * g.cell_mm + 2.2, y0 + r * g.cell_mm + 2.2
                        cv2.circle(tex, px(cx, cy), max(1, int(1.0 * ppm)), lc, -1, cv2.LINE_AA)
    # Board edge: the board is a slab; paint a thin darker edge line.
    cv2.rectangle(tex, px(0, 0), px(bw, bh), (_lab_to_lin(base_lab) * 0.5).tolist(), max(1, int(0.8 * ppm)))
    # Stickers (the printed product), placed by hand.
    spec_px = ppm * 2
    for mid, (cx, cy) in zip(template.markers.ids, template.markers.centres_mm, strict=True):
        spec = StickerSpec(mid, template.markers.size_mm, template.markers.dictionary, "")
        grey = render_sticker(spec, spec_px).astype(np.float32) / 255
        s = template.markers.size_mm
        if not patches:
            grey = grey[: int(round((0.75 + 0.62) * s * spec_px))]
        lin = np.where(grey <= 0.04045, grey / 12.92, ((grey + 0.055) / 1.055) ** 2.4) * 0.86 + 0.015
        ang = math.radians(float(rng.normal(0, 1.0)))
        jx, jy = cx + rng.normal(0, 0.4), cy + rng.normal(0, 0.4)
        # Sticker frame: top-left corner at (-0.75 s, -0.75 s) from the marker centre.
        ca, sa = math.cos(ang), math.sin(ang)
        src = np.array([[0, 0], [lin.shape[1], 0], [0, lin.shape[0]]], np.float32)
        dst = []
        for u, v in src:
            lx, ly = u / spec_px - 0.75 * s, v / spec_px - 0.75 * s
            dst.append(px(jx + ca * lx - sa * ly, jy + sa * lx + ca * ly))
        aff = cv2.getAffineTransform(src, np.array(dst, np.float32))
        warped = cv2.warpAffine(lin.astype(np.float32), aff, (W, H), flags=cv2.INTER_AREA, borderValue=-1.0)
        mask = cv2.warpAffine(np.ones_like(lin, np.float32), aff, (W, H), flags=cv2.INTER_LINEAR)
        paper_tint = np.array([1.0, 0.99, 0.97], np.float32) * float(rng.uniform(0.95, 1.0))
        # Blended only where the sticker lies: elsewhere its mask is 0 and the blend gives the texture back to
        # the bit (x * 1 + 0), at a fraction of the time on the whole board.
        rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
        if rows.size:
            at = (slice(rows[0], rows[-1] + 1), slice(cols[0], cols[-1] + 1))
            m, t = mask[at][..., None], tex[at]
            t[:] = t * (1 - m) + np.clip(warped[at], 0, 1)[..., None] * paper_tint * m
    return tex, {"board_lab": [round(v, 1) for v in base_lab], "cell_lab": {k: [round(v, 1) for v in lab]
                                                                             for k, lab in fills.items()},
                 "dark_print": bool(dark)}


def _table_texture(rng: np.random.Generator, extent: tuple[float, float, float, float], ppm: float) -> F32:
    x0, y0, x1, y1 = extent
    W, H = int((x1 - x0) * ppm), int((y1 - y0) * ppm)
    kind = int(rng.integers(3))
    base = _lab_to_lin([(45.0, 12.0, 28.0), (30.0, 5.0, -20.0), (85.0, 0.0, 3.0)][kind])
    tex = np.empty((H, W, 3), np.float32)
    tex[:] = base * float(rng.uniform(0.7, 1.3))
    if kind == 0:  # wood planks: stretched noise along x
        grain = cv2.resize(rng.normal(0, 1, (max(2, H // 3), max(2, W // 60))).astype(np.float32), (W, H))
        tex *= (1 + 0.15 * grain)[..., None]
    else:
        tex *= _blotches(rng, (H, W), 20 * ppm, 0.1)[..., None]
    # Clutter: cards and coins.
    for _ in range(int(rng.integers(2, 10))):
        cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        col = _lab_to_lin((float(rng.uniform(20, 95)), float(rng.normal(0, 30)), float(rng.normal(0, 30)))).tolist()
        if rng.random() < 0.5:
            box = ((float(cx), float(cy)), (63 * ppm, 88 * ppm), float(rng.uniform(0, 180)))
            cv2.fillConvexPoly(tex, cv2.boxPoints(box).astype(np.int32), col, cv2.LINE_AA)
        else:
            cv2.circle(tex, (int(cx), int(cy)), int(rng.uniform(8, 14) * ppm), col, -1, cv2.LINE_AA)
    return tex


# --------------------------------------------------------------------------------------------
# Lights and shadows.


@dataclass
class _Light:
    colour: F32
    pos: F64 | None  # a point light (mm), or
    direction: F64 | None  # a directional light (unit vector towards the light)
    softness: float  # angular size (radians)


def _make_lights(rng: np.random.Generator, template: Template) -> tuple[list[_Light], F32]:
    bw, bh = template.board_mm
    lights = []
    for i in range(int(rng.choice([1, 1, 2, 2, 3]))):
        colour = _blackbody(float(rng.uniform(2500, 7000))) * float(rng.uniform(0.5, 1.0) if i else 1.0)
        if rng.random() < 0.55:
            pos = np.array([bw / 2 + rng.uniform(-300, 300), bh / 2 + rng.uniform(-250, 250), rng.uniform(350, 1500)])
            colour = colour * float((pos[2] / 800) ** 2)
            lights.append(_Light(colour, pos, None, float(rng.uniform(0.02, 0.2))))
        else:
            el = math.radians(float(rng.uniform(35, 85)))
            az = float(rng.uniform(0, 2 * math.pi))
            d = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
            lights.append(_Light(colour, None, d, float(rng.uniform(0.01, 0.15))))
    ambient = _blackbody(float(rng.uniform(4000, 8000))) * float(rng.uniform(0.15, 0.45))
    return lights, ambient.astype(np.float32)


def _towards(light: _Light, p: F64) -> F64:
    if light.direction is not None:
        return light.direction
    assert light.pos is not None
    d = light.pos - p
    return d / np.linalg.norm(d)


def _strength(light: _Light, p: F64) -> float:
    if light.pos is None:
        return 1.0
    return float((800.0 / np.linalg.norm(light.pos - p)) ** 2)


def _shadow_poly(light: _Light, pts3: F64) -> F64:
    """The shadow of 3D points on z = 0 (board mm)."""
    out = []
    for p in pts3:
        if p[2] <= 0:
            out.append(p[:2])
            continue
        if light.direction is not None:
            d = light.direction
            out.append(p[:2] - d[:2] * p[2] / d[2])
        else:
            assert light.pos is not None
            lp = light.pos
            if lp[2] <= p[2] + 1:
                out.append(p[:2] + (p[:2] - lp[:2]) * 50)
            else:
                s = lp[2] / (lp[2] - p[2])
                out.append(lp[:2] + (p[:2] - lp[:2]) * s)
    return np.array(out)


# --------------------------------------------------------------------------------------------
# Cubes.

_MATERIAL = {"W": ((66.0, 12.0, 33.0), (6.0, 3.0, 5.0)), "M": ((54.0, 0.0, -3.0), (6.0, 1.5, 2.5)),
             "T": ((90.0, 0.5, 8.0), (3.0, 1.0, 3.0))}


@dataclass
class _Cube:
    x: float
    y: float
    side: float
    height: float
    angle: float
    letter: str
    albedo: F32
    z0: float = 0.0  # standing on another cube
    pips: tuple[tuple[float, float], ...] = ()  # marks on the top face (fractions of the side), for dice
    pip_albedo: float = 0.05

    def corners(self) -> F64:
        h = self.side / 2
        ca, sa = math.cos(self.angle), math.sin(self.angle)
        base = [(-h, -h), (h, -h), (h, h), (-h, h)]
        ring = [(self.x + ca * u - sa * v, self.y + sa * u + ca * v) for u, v in base]
        return np.array([[x, y, self.z0] for x, y in ring] + [[x, y, self.z0 + self.height] for x, y in ring])


_FACES = {"top": (4, 5, 6, 7), "s0": (0, 1, 5, 4), "s1": (1, 2, 6, 5), "s2": (2, 3, 7, 6), "s3": (3, 0, 4, 7)}


def _face_normal(cube: _Cube, name: str) -> F64:
    if name == "top":
        return np.array([0.0, 0.0, 1.0])
    k = int(name[1])
    ang = cube.angle + [-math.pi / 2, 0.0, math.pi / 2, math.pi][k]
    return np.array([math.cos(ang), math.sin(ang), 0.0])


def _draw_poly_aa(img: F32, pts: F64, colour: F32, texture: float, rng: np.random.Generator,
                  grain: bool) -> None:
    """Fills a convex polygon (image px) with anti-aliased edges by 4x supersampling in a local patch."""
    x0, y0 = np.floor(pts.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 2
    h, w = img.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    ss = 4
    mask = np.zeros(((y1 - y0) * ss, (x1 - x0) * ss), np.uint8)
    cv2.fillConvexPoly(mask, np.round((pts - [x0, y0]) * ss).astype(np.int32), 255)
    alpha = cv2.resize(mask.astype(np.float32) / 255, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    shade = np.ones(alpha.shape, np.float32)
    if texture > 0:
        if grain:
            n = rng.normal(0, 1, (max(2, alpha.shape[0] // 6), 2)).astype(np.float32)
            shade += texture * cv2.resize(n, alpha.shape[::-1], interpolation=cv2.INTER_LINEAR)
        else:
            shade += texture * rng.normal(0, 1, alpha.shape).astype(np.float32)
    region = img[y0:y1, x0:x1]
    region[:] = region * (1 - alpha[..., None]) + (colour * shade[..., None]) * alpha[..., None]


def _draw_cube(img: F32, cam: _Cam, cube: _Cube, lights: list[_Light], ambient: F32, exposure: float,
               rng: np.random.Generator) -> None:
    corners = cube.corners()
    proj = cam.project(corners)
    centre = np.array([cube.x, cube.y, cube.z0 + cube.height / 2])
    view = cam.centre - centre
    faces = []
    for name, idx in _FACES.items():
        n = _face_normal(cube, name)
        fc = corners[list(idx)].mean(axis=0)
        if np.dot(n, cam.centre - fc) <= 0:
            continue
        light = ambient * (0.55 + 0.45 * n[2])
        spec = 0.0
        for lt in lights:
            d = _towards(lt, fc)
            lam = max(0.0, float(np.dot(n, d)))
            light = light + lt.colour * lam * _strength(lt, fc)
            if cube.letter == "M":
                half = d + view / np.linalg.norm(view)
                half /= np.linalg.norm(half)
                spec += 0.12 * max(0.0, float(np.dot(n, half))) ** 30 * _strength(lt, fc)
        colour = cube.albedo * light * exposure + spec * exposure
        faces.append((float(np.dot(n, view)), name, proj[list(idx)], colour.astype(np.float32)))
    faces.sort(key=lambda f: f[0])
    for _, name, pts, colour in faces:
        tex = {"W": 0.06, "M": 0.025, "T": 0.015}.get(cube.letter, 0.02)
        _draw_poly_aa(img, pts, colour, tex, rng, grain=cube.letter == "W")
        if name == "top" and cube.pips:
            top3 = corners[4:8]
            ink = (colour / np.maximum(cube.albedo, 1e-4) * cube.pip_albedo).astype(np.float32)
            for fx, fy in cube.pips:
                ang = np.linspace(0, 2 * math.pi, 20, endpoint=False)
                r = 0.09
                u, v = top3[1] - top3[0], top3[3] - top3[0]
                ring = [top3[0] + u * (fx + r * math.cos(t)) + v * (fy + r * math.sin(t)) for t in ang]
                _draw_poly_aa(img, cam.project(np.array(ring)), ink, 0.0, rng, grain=False)
    # Rounded top edges catch the light: a thin brighter line along the top's outline.
    top = proj[4:8]
    edge_col = (cube.albedo * (ambient + sum(lt.colour for lt in lights)) * exposure * 1.1).astype(np.float32)
    for a, b in zip(top, np.roll(top, -1, axis=0), strict=True):
        cv2.line(img, tuple(np.round(a * 4).astype(int)), tuple(np.round(b * 4).astype(int)),
                 edge_col.tolist(), 1, cv2.LINE_AA, shift=2)


def _random_gear(rng: np.random.Generator, template: Template, fill: float) -> dict[str, list[str]]:
    weights = np.array([0.45, 0.35, 0.2])
    out = {}
    for name in GEAR_GRIDS:
        g = template.grids[name]
        rows = []
        for _ in range(g.rows):
            rows.append("".join(str(rng.choice(["W", "M", "T"], p=weights)) if rng.random() < fill else "."
                                for _ in range(g.cols)))
        out[name] = rows
    return out


# --------------------------------------------------------------------------------------------
# The photo.


def _finish_photo(rng: np.random.Generator, lin: F32, look: Look, *, expose_at: float = 70.0,
                  expose_to: tuple[float, float] = (0.35, 0.6), exposure: float = 1.0,
                  shot: np.random.Generator | None = None) -> tuple[U8, dict[str, Any]]:
    """The camera's work on the scene's linear light. ``exposure``: the user's correction on top of the automatic
    exposure; ``shot``: this shot's own stream for what differs from one shot to the next with the camera where
    it was (shake, sensor noise, JPEG quality; default ``rng``, which draws them in any case, so that everything else
    is the same as the default shot's: white balance, the automatic exposure's target, sharpening)."""

    def own(draw: Callable[[np.random.Generator], Any]) -> Any:
        value = draw(rng)
        return value if shot is None else draw(shot)

    h, w = lin.shape[:2]
    # Vignetting.
    yy, xx = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / (w / 2) ** 2
    vig = cv2.resize(1 - float(rng.uniform(0.05, 0.3)) * r2 * 0.5, (w, h))
    lin *= vig[..., None]
    # Lateral chromatic aberration: red and blue scaled slightly about the centre.
    ca = float(rng.uniform(0, 0.0008))
    for ch, s in ((2, 1 + ca), (0, 1 - ca)):
        m = cv2.getRotationMatrix2D((w / 2, h / 2), 0, s)
        lin[..., ch] = cv2.warpAffine(lin[..., ch], m, (w, h), borderMode=cv2.BORDER_REFLECT)
    blur = float(own(lambda g: g.uniform(0.4, 1.6))) * w / 4000
    lin = cv2.GaussianBlur(lin, (0, 0), blur)
    # Auto white balance that gets it roughly right: grey-world on the middle of the frame, partly.
    mid = lin[h // 4: 3 * h // 4: 8, w // 4: 3 * w // 4: 8].reshape(-1, 3).mean(axis=0)
    gain = (mid.mean() / np.maximum(mid, 1e-4)) ** float(rng.uniform(0.4, 0.9))
    lin *= gain.astype(np.float32)
    # Exposure to put the middle of the frame at a medium grey.
    lum = float(np.percentile(lin[h // 4: 3 * h // 4: 8, w // 4: 3 * w // 4: 8].mean(axis=2), expose_at))
    lin *= float(rng.uniform(*expose_to)) / max(lum, 1e-4) * exposure
    # Sensor noise: shot noise plus read noise, at a quarter of the resolution then upsampled slightly
    # (demosaicking correlates neighbouring pixels).
    iso = float(own(lambda g: g.uniform(0.5, 3.0)))
    noise = own(lambda g: g.standard_normal((h // 2, w // 2, 3), dtype=np.float32))
    noise = cv2.resize(noise, (w, h), interpolation=cv2.INTER_LINEAR)
    noise *= 1.6
    # lin + noise * (0.004 iso sqrt(max(lin, 0)) + 0.0015 iso), step by step in place (the same operations in
    # the same order, so the same bits, without five 12 MP temporaries).
    spread = np.clip(lin, 0, None)
    np.sqrt(spread, out=spread)
    spread *= 0.004 * iso
    spread += 0.0015 * iso
    noise *= spread
    del spread
    lin += noise
    del noise
    # Filmic tone curve, then the sRGB-like gamma.
    np.clip(lin, 0, None, out=lin)
    # A highlight shoulder like a phone's: white paper under a lamp rolls off rather than clipping:
    # lin (1 + lin / white^2) / (1 + lin), in place.
    white = 3.0
    toned = lin / white**2
    toned += 1
    toned *= lin
    lin += 1
    toned /= lin
    del lin
    toned /= white * (1 + 1 / white) / (1 + white)
    np.clip(toned, 0, 1, out=toned)
    out = np.power(toned, 1 / 2.2, out=toned)
    # Phone sharpening.
    amount = float(rng.uniform(0.2, 0.8))
    # clip(out + amount (out - blurred), 0, 1), in place; then to 8 bits, B G R.
    sharp = cv2.GaussianBlur(out, (0, 0), 1.5 * w / 4000)  # (the blurred image, then the sharpened one)
    np.subtract(out, sharp, out=sharp)
    sharp *= amount
    sharp += out
    np.clip(sharp, 0, 1, out=sharp)
    sharp *= 255
    sharp += 0.5
    img = cv2.cvtColor(sharp.astype(np.uint8), cv2.COLOR_RGB2BGR)
    q = int(own(lambda g: g.integers(60, 93)))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q, cv2.IMWRITE_JPEG_SAMPLING_FACTOR,
                                         cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420])
    assert ok
    img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return np.asarray(img, np.uint8), {"blur_px": round(blur, 2), "jpeg_quality": q, "iso": round(iso, 2)}


def render(template: Template, gear: dict[str, list[str]], *, seed: int, look: Look | None = None,
           scene_seed: int | None = None, same_cubes: bool = False, exposure: float = 1.0
           ) -> tuple[U8, dict[str, Any]]:
    """A photo of the board with this gear, and its labels (same format as ``vision.synth``'s).
    ``scene_seed``: the same board (art, print, stickers as stuck) photographed in another scene: camera,
    lights, table and everything after the board art drawn from this seed instead (a calibration photo of
    the board that ``seed`` draws). ``same_cubes``: with ``scene_seed``, the cubes (their colour, size, place
    and turn, and the loose ones on the table) are those of the photo ``seed`` draws, not new ones: a retake
    of that photo. ``exposure``: the camera's exposure correction on top of its automatic exposure (0.5: the
    user slid it down a stop); another shot, with its own shake, sensor noise and JPEG quality."""
    look = look or Look()
    rng = np.random.default_rng([seed, 2])
    bw, bh = template.board_mm
    cam = _make_camera(rng, template, look)
    patches = not (rng.random() < look.no_patches)
    margin = 15.0
    bppm = 8.0
    board, art = _board_texture(rng, template, look, bppm, margin, patches)
    cube_rng = rng  # the cubes are drawn after the lights, from the photo's stream or the scene's
    if scene_seed is not None:
        if same_cubes:
            _make_lights(rng, template)  # the photo's own lights, drawn to reach its cubes in its stream
        rng = np.random.default_rng([scene_seed, 2])
        cam = _make_camera(rng, template, look)
        cube_rng = cube_rng if same_cubes else rng
    lights, ambient = _make_lights(rng, template)

    # Cubes on the grids, a few loose ones (and dice-like big cubes) on the table.
    cubes: list[_Cube] = []
    for name in GEAR_GRIDS:
        g = template.grids[name]
        for r, row in enumerate(gear[name]):
            for c, letter in enumerate(row):
                if letter == ".":
                    continue
                cx, cy = g.cell_centre(r, c)
                side = template.cube_mm * float(cube_rng.uniform(0.95, 1.05))
                room = max(0.0, (g.cell_mm - side) / 2 - 0.6)
                mean, sd = _MATERIAL[letter]
                lab = (mean[0] + cube_rng.normal(0, sd[0]), mean[1] + cube_rng.normal(0, sd[1]),
                       mean[2] + cube_rng.normal(0, sd[2]))
                cubes.append(_Cube(cx + cube_rng.uniform(-room, room) * 0.7, cy + cube_rng.uniform(-room, room) * 0.7,
                                   side, side * float(cube_rng.uniform(0.97, 1.03)),
                                   math.radians(float(cube_rng.normal(0, 6))), letter, _lab_to_lin(lab)))
    for _ in range(int(cube_rng.integers(0, 7))):
        x, y = cube_rng.uniform(-120, bw + 120), cube_rng.uniform(-100, bh + 100)
        if -12 < x < bw + 12 and -12 < y < bh + 12:
            continue
        letter = str(cube_rng.choice(["W", "M", "T"]))
        side = float(cube_rng.choice([8.0, 16.0]))
        cubes.append(_Cube(x, y, side, side, float(cube_rng.uniform(0, math.pi)), letter,
                           _lab_to_lin(_MATERIAL[letter][0])))

    # A hand reaching in from outside, held above the table.
    hand = None
    if rng.random() < look.hand:
        side = int(rng.integers(4))
        along = float(rng.uniform(0.15, 0.85))
        entry = [(along * bw, -60.0), (bw + 60.0, along * bh), (along * bw, bh + 60.0), (-60.0, along * bh)][side]
        inward = [(0, 1), (-1, 0), (0, -1), (1, 0)][side]
        reach = float(rng.uniform(20, 55))
        tip = (entry[0] + inward[0] * reach, entry[1] + inward[1] * reach)
        hand = (entry, tip, float(rng.uniform(60, 180)), float(rng.uniform(35, 50)))

    # Irradiance on the board texture (with cube and hand shadows per light).
    H, W = board.shape[:2]
    gy, gx = np.mgrid[0:H:4, 0:W:4].astype(np.float32)
    wx, wy = gx / bppm - margin, gy / bppm - margin
    irr = np.zeros(wx.shape + (3,), np.float32) + ambient

    def to_tex(p: F64) -> npt.NDArray[np.int32]:
        return np.round((p + margin) * bppm * 4).astype(np.int32)  # shift=2 sub-pixel coordinates

    for lt in lights:
        if lt.pos is not None:
            dx, dy, dz = lt.pos[0] - wx, lt.pos[1] - wy, lt.pos[2]
            dd = np.sqrt(dx * dx + dy * dy + dz * dz)
            cosz = dz / dd
            fall = (800.0 / dd) ** 2
            lam = cosz * fall
        else:
            assert lt.direction is not None
            lam = np.full(wx.shape, float(lt.direction[2]), np.float32)
        shadow = np.zeros((H, W), np.float32)
        for cube in cubes:
            poly = _shadow_poly(lt, cube.corners())
            hull = cv2.convexHull(to_tex(poly).reshape(-1, 1, 2))
            cv2.fillConvexPoly(shadow, hull, 1.0, cv2.LINE_AA, shift=2)
        soft = max(0.6, lt.softness * template.cube_mm * 0.6) * bppm
        shadow = cv2.GaussianBlur(shadow, (0, 0), soft)
        if hand is not None:
            (ex, ey), (tx, ty), hz, width = hand
            hs = np.zeros((H, W), np.float32)
            seg = _shadow_poly(lt, np.array([[ex, ey, hz], [tx, ty, hz]]))
            cv2.line(hs, tuple(to_tex(seg[0])), tuple(to_tex(seg[1])), 1.0, int(width * bppm), cv2.LINE_AA, shift=2)
            hs = cv2.GaussianBlur(hs, (0, 0), min(8.0, max(1.0, lt.softness * hz * 0.3)) * bppm)
            shadow = np.maximum(shadow, hs)
        small = cv2.resize(shadow, (wx.shape[1], wx.shape[0]), interpolation=cv2.INTER_AREA)
        irr += lt.colour * (lam * (1 - small))[..., None]
    irr_full = cv2.resize(irr, (W, H), interpolation=cv2.INTER_LINEAR)
    # Cube shadows at full resolution: the low-res map smooths their edges too much; redo the cube part.
    board_lit = board * irr_full

    ext = (-700.0, -600.0, bw + 700.0, bh + 600.0)
    tppm = 1.5
    table = _table_texture(rng, ext, tppm)
    table *= (ambient + sum(lt.colour * 0.8 for lt in lights)).astype(np.float32)

    mx, my = cam.plane_map()
    bmx, bmy = mx + margin, my + margin  # ((m + margin) * bppm - 0.5, in place)
    for plane in (bmx, bmy):
        plane *= bppm
        plane -= 0.5
    img = cv2.remap(board_lit, bmx, bmy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    inside = cv2.remap(np.ones((H, W), np.float32), bmx, bmy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                       borderValue=0)
    # The board only covers its own outline (the texture has a margin of table under it).
    on_board = ((mx > 0) & (mx < bw) & (my > 0) & (my < bh)).astype(np.float32)
    on_board = cv2.GaussianBlur(on_board, (0, 0), 0.7) * inside
    tmx, tmy = mx - ext[0], my - ext[1]  # ((m - ext) * tppm - 0.5, in place)
    for plane in (tmx, tmy):
        plane *= tppm
        plane -= 0.5
    timg = cv2.remap(table, tmx, tmy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    # (img * on_board + timg * (1 - on_board), the same steps in place.)
    img *= on_board[..., None]
    timg *= (1 - on_board)[..., None]
    img += timg
    del mx, my, bmx, bmy, tmx, tmy, timg, inside, on_board

    order = sorted(cubes, key=lambda cb: -float(np.linalg.norm(cam.centre - [cb.x, cb.y, 0])))
    for cube in order:
        _draw_cube(img, cam, cube, lights, ambient, 1.0, rng)
    if hand is not None:
        (ex, ey), (tx, ty), hz, width = hand
        ends = cam.project(np.array([[ex, ey, hz], [tx, ty, hz]]))
        scale = float(np.linalg.norm(cam.project(np.array([[tx, ty, hz]])) -
                      cam.project(np.array([[tx + width, ty, hz]]))))
        skin = _lab_to_lin((float(rng.uniform(35, 75)), float(rng.uniform(10, 20)), float(rng.uniform(15, 28))))
        col = skin * (ambient + sum(lt.colour * 0.7 for lt in lights))
        if not np.isfinite(scale) or scale >= max(img.shape[:2]):
            hand = None  # a hand that close to the lens would fill the frame: no photo anyone would keep
        else:
            cv2.line(img, tuple(np.round(ends[0]).astype(int)), tuple(np.round(ends[1]).astype(int)),
                     col.tolist(), max(2, int(scale)), cv2.LINE_AA)
            cv2.circle(img, tuple(np.round(ends[1]).astype(int)), max(1, int(scale * 0.55)), col.tolist(), -1,
                       cv2.LINE_AA)
    shot = None if exposure == 1.0 else np.random.default_rng([seed, scene_seed or 0, 3, round(exposure * 1e6)])
    final, info = _finish_photo(rng, img, look, exposure=exposure, shot=shot)
    labels = {"board": template.board, **{n: list(gear[n]) for n in GEAR_GRIDS},
              "render": {"renderer": "second", "version": VERSION, "seed": seed, "size": list(look.size),
                         "camera_centre_mm": [round(float(v), 1) for v in cam.centre],
                         "lens_k1": round(float(cam.dist[0]), 3), "lights": len(lights),
                         "patches": patches, "hand": hand is not None, "glare_mm": None, **art, **info}}
    return final, labels


def _photo_gear(photo_seed: int, look: Look, template: Template) -> dict[str, list[str]]:
    rng = np.random.default_rng([photo_seed, 1])
    return _random_gear(rng, template, float(rng.uniform(*look.fill)))


def render_photo(seed: int, index: int, look: Look, template: Template, stops: float = 0
                 ) -> tuple[U8, dict[str, Any]]:
    """Photo ``index`` of a set (``stops``: taken again from where it was, the exposure slid down this many stops,
    EXPOSURE_STEP each, as a group does when the reader's advice for glare says so; below 0, slid up)."""
    photo_seed = seed * 10_007 + index
    return render(template, _photo_gear(photo_seed, look, template), seed=photo_seed, look=look,
                  exposure=EXPOSURE_STEP**stops)


#: The calibration photo of photo ``index``'s board is drawn with this scene seed offset (another camera,
#: other lights, an empty board, no hand): the user flow's "photograph the empty board once".
CALIBRATION_SCENE = 777_000_000


def render_calibration(seed: int, index: int, look: Look, template: Template, attempt: int = 0, stops: int = 0
                       ) -> tuple[U8, dict[str, Any]]:
    """The empty board of ``render_photo(seed, index, ...)`` (same board art and stickers) photographed in
    another scene, as a group photographs it once when setting up the camera (``attempt``: a retake, in
    yet another scene; ``stops``: the camera's exposure slid down this many stops, EXPOSURE_STEP each)."""
    photo_seed = seed * 10_007 + index
    empty = {n: ["." * template.grids[n].cols] * template.grids[n].rows for n in GEAR_GRIDS}
    return render(template, empty, seed=photo_seed, look=replace(look, hand=0.0),
                  scene_seed=CALIBRATION_SCENE + photo_seed + 100_000_000 * attempt, exposure=EXPOSURE_STEP**stops)


def _kept(path: Path, folder: str, attempt: int, draw: Callable[[], tuple[U8, dict[str, Any]]]) -> Path:
    """``FOLDER/PHOTO[-N].jpg`` beside a set's photo at ``path`` (N: ``attempt``), drawn once."""
    out = path.parent / folder / (path.name if not attempt else f"{path.stem}-{attempt}{path.suffix}")
    if not out.exists():
        out.parent.mkdir(exist_ok=True)
        img, _ = draw()
        cv2.imwrite(str(out), img, [cv2.IMWRITE_JPEG_QUALITY, 98])
    return out


def calibration_photo(path: Path, seed: int, index: int, look: Look, template: Template, attempt: int = 0) -> Path:
    """The calibration photo for a set's photo at ``path`` (``calibration/PHOTO[-N].jpg`` in its folder),
    rendered once."""
    return _kept(path, "calibration", attempt, lambda: render_calibration(seed, index, look, template, attempt))


#: The retake of photo ``index`` (the reader asked for another photo: the board tilted or the light moved) is
#: drawn with this scene seed offset: the same board with the same cubes on it, another camera, other lights and
#: table.
RETAKE_SCENE = 555_000_000


def render_retake(seed: int, index: int, look: Look, template: Template, attempt: int = 0, stops: int = 0
                  ) -> tuple[U8, dict[str, Any]]:
    """Another photo of ``render_photo(seed, index, ...)``'s board and gear, as a group takes it when the reader
    asks for a retake: the board tilted or the light moved (another camera, lights and table; the same cubes,
    where they were). ``attempt``: the group's first retake, second, ...; ``stops``: the camera's exposure slid
    down this many stops (EXPOSURE_STEP each) by the group earlier."""
    photo_seed = seed * 10_007 + index
    return render(template, _photo_gear(photo_seed, look, template), seed=photo_seed, look=look,
                  scene_seed=RETAKE_SCENE + photo_seed + 1_000_000_000 * attempt, same_cubes=True,
                  exposure=EXPOSURE_STEP**stops)


def retake_photo(path: Path, seed: int, index: int, look: Look, template: Template, attempt: int = 0,
                 stops: int = 0) -> Path:
    """A retake of a set's photo at ``path`` (``retake/PHOTO[-N].jpg`` in its folder, N the attempt; ``retake-xF/``
    with the exposure slid down ``stops`` stops, F the factor), rendered once."""
    return _kept(path, _exposed("retake", stops), attempt,
                 lambda: render_retake(seed, index, look, template, attempt, stops))


#: A group the reader's advice for glare (reader.GLARE_ADVICE: lower the exposure) reaches slides the exposure
#: down a stop: this factor.
EXPOSURE_STEP = 0.5


def _exposed(folder: str, stops: int) -> str:
    """A cache folder's name for photos taken ``stops`` stops darker (keyed on the exposure, not the count)."""
    if stops < 0:
        raise ValueError("stops counts the stops the exposure was slid down: 0 or more")
    return folder if not stops else f"{folder}-x{EXPOSURE_STEP**stops:g}"


def darker_photo(path: Path, seed: int, index: int, look: Look, template: Template, stops: int = 1) -> Path:
    """A set's photo at ``path`` taken again from where it was, ``stops`` (1 or more) stops darker
    (``darker-xF/PHOTO.jpg`` in its folder, F the exposure factor), rendered once."""
    if stops < 1:
        raise ValueError("a darker photo is at least a stop darker")
    return _kept(path, _exposed("darker", stops), 0, lambda: render_photo(seed, index, look, template, stops))


def set_folder(root: Path, name: str, seed: int, look: Look) -> Path:
    key = repr(("second", VERSION, seed, look)).encode()
    w, h = look.size
    return root / f"r2-{name}-seed{seed}-{w}x{h}-{hashlib.sha256(key).hexdigest()[:10]}"


#: An overexposed set's photos (``photo_set(..., overexposed=True)``, for training the cell network on glare) are
#: taken this many stops over the automatic exposure, drawn per photo: a camera fooled by a dark table or a lamp.
OVEREXPOSED_STOPS = (0.5, 1.5)


def photo_set(folder: Path, count: int, seed: int, look: Look, template: Template | None = None,
              overexposed: bool = False) -> list[Path]:
    """Paths of a set's photos (JPEG as the camera wrote it, plus a ``.json`` label), rendering missing ones
    (``overexposed``: each photo OVEREXPOSED_STOPS over the automatic exposure; keep such sets in their own
    folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    template = template or load_template()
    paths = []
    for i in range(count):
        path = folder / f"r2-{i:04d}.jpg"
        paths.append(path)
        if path.exists() and path.with_suffix(".json").exists():
            continue
        over = float(np.random.default_rng([seed, i, 7]).uniform(*OVEREXPOSED_STOPS)) if overexposed else 0.0
        img, labels = render_photo(seed, i, look, template, stops=-over)
        # The JPEG is already the camera's: store it losslessly (PNG would be 30 MB; re-encode at 98).
        cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 98])
        path.with_suffix(".json").write_text(json.dumps(labels, indent=1), encoding="utf-8")
        if (i + 1) % 10 == 0:
            print(f"  rendered {i + 1}/{count} (second renderer)", file=sys.stderr, flush=True)
    return paths


# --------------------------------------------------------------------------------------------
# A tray of plain cubes (Shogun's tower tray), for vision.tray.

#: This renderer's idea of the cubes' colours (its own guesses, not vision.tray's references).
TRAY_COLOURS = {"red": (47.0, 58.0, 38.0), "yellow": (80.0, 6.0, 72.0), "blue": (40.0, 6.0, -46.0),
                "purple": (38.0, 32.0, -28.0), "white": (90.0, 1.0, 6.0), "green": (50.0, -38.0, 34.0)}


@dataclass(frozen=True)
class _TrayArea:
    board_mm: tuple[float, float] = (200.0, 140.0)


def render_tray(seed: int, look: Look | None = None, cube_mm: float = 10.0) -> tuple[U8, dict[str, Any]]:
    """A tray photo with random counts of cubes per colour (some touching, some stacked) and its labels:
    ``counts`` per colour (stacked ones included) and ``stacked`` (how many stand on another cube)."""

    look = look or Look(size=(2000, 1500), max_tilt_deg=12.0)
    rng = np.random.default_rng([seed, 7])
    area = _TrayArea()
    tw, th = area.board_mm
    cam = _make_camera(rng, area, look)  # type: ignore[arg-type]
    lights, ambient = _make_lights(rng, area)  # type: ignore[arg-type]
    cubes: list[_Cube] = []
    counts: dict[str, int] = {}
    stacked = 0
    for name, lab in TRAY_COLOURS.items():
        n = int(rng.integers(0, 5))
        counts[name] = n
        for _ in range(n):
            alb = _lab_to_lin((lab[0] + rng.normal(0, 3), lab[1] + rng.normal(0, 3), lab[2] + rng.normal(0, 3)))
            ang = float(rng.uniform(0, math.pi / 2))
            if cubes and rng.random() < 0.12:
                base = cubes[int(rng.integers(len(cubes)))]
                if base.z0 == 0.0 and not any(c.z0 > 0 and abs(c.x - base.x) < 1 and abs(c.y - base.y) < 1
                                              for c in cubes):
                    cubes.append(_Cube(base.x + rng.normal(0, 0.5), base.y + rng.normal(0, 0.5), cube_mm, cube_mm,
                                       ang, name, alb, z0=base.height))
                    stacked += 1
                    continue
            for _attempt in range(100):
                if cubes and rng.random() < 0.3:
                    other = cubes[int(rng.integers(len(cubes)))]
                    d = cube_mm * 1.02
                    x, y = other.x + rng.choice([-d, d]), other.y + rng.normal(0, 2)
                else:
                    x, y = rng.uniform(45, tw - 12), rng.uniform(12, th - 12)
                if 8 < x < tw - 8 and 8 < y < th - 8 and all(
                        math.hypot(x - c.x, y - c.y) > cube_mm * 1.0 for c in cubes if c.z0 == 0.0):
                    break
            cubes.append(_Cube(float(x), float(y), cube_mm, cube_mm, ang if rng.random() < 0.5 else 0.0, name, alb))
    felt = _lab_to_lin((float(rng.uniform(15, 28)), float(rng.normal(0, 3)), float(rng.normal(0, 4))))
    img = _floor_scene(rng, cam, lights, ambient, cubes, felt, rim=True, cube_mm=cube_mm)
    # Exposed for the bright things (cubes, the sticker), as a phone does over a dark tray.
    final, info = _finish_photo(rng, img, look, expose_at=99.5, expose_to=(0.9, 1.4))
    return final, {"counts": counts, "stacked": stacked,
                   "render": {"renderer": "second", "version": VERSION, "seed": seed, **info}}


def _floor_scene(rng: np.random.Generator, cam: _Cam, lights: list[_Light], ambient: F32, cubes: list[_Cube],
                 felt: F32, *, rim: bool, cube_mm: float) -> F32:
    """The linear image of a 200 x 140 mm floor (the tray sticker at (20, 20)) with these cubes on it."""
    from vision.stickers import DICE_TRAY_MARKER_ID, DICE_TRAY_MARKER_MM

    tw, th = _TrayArea().board_mm
    margin, ppm = 120.0, 4.0
    W, H = int((tw + 2 * margin) * ppm), int((th + 2 * margin) * ppm)
    tex = np.empty((H, W, 3), np.float32)
    tex[:] = felt
    tex *= _blotches(rng, (H, W), 5 * ppm, 0.05)[..., None]

    def px(x: float, y: float) -> tuple[int, int]:
        return int(round((x + margin) * ppm)), int(round((y + margin) * ppm))

    if rim:
        cv2.rectangle(tex, px(-4, -4), px(tw + 4, th + 4), (felt * 2.5).tolist(), int(4 * ppm))  # the tray's rim
    spec = StickerSpec(DICE_TRAY_MARKER_ID, DICE_TRAY_MARKER_MM, "DICT_4X4_50", "")
    sp = ppm * 2
    grey = render_sticker(spec, sp).astype(np.float32) / 255
    lin = np.where(grey <= 0.04045, grey / 12.92, ((grey + 0.055) / 1.055) ** 2.4) * 0.86 + 0.015
    small = cv2.resize(lin, (int(lin.shape[1] / 2), int(lin.shape[0] / 2)), interpolation=cv2.INTER_AREA)
    sx, sy = px(20 - 0.75 * DICE_TRAY_MARKER_MM, 20 - 0.75 * DICE_TRAY_MARKER_MM)
    tex[sy:sy + small.shape[0], sx:sx + small.shape[1]] = small[..., None]
    # Light and shadows on the floor.
    gy, gx = np.mgrid[0:H:4, 0:W:4].astype(np.float32)
    wx, wy = gx / ppm - margin, gy / ppm - margin
    irr = np.zeros(wx.shape + (3,), np.float32) + ambient
    for lt in lights:
        if lt.pos is not None:
            dx, dy, dz = lt.pos[0] - wx, lt.pos[1] - wy, lt.pos[2]
            dd = np.sqrt(dx * dx + dy * dy + dz * dz)
            lam = dz / dd * (800.0 / dd) ** 2
        else:
            assert lt.direction is not None
            lam = np.full(wx.shape, float(lt.direction[2]), np.float32)
        shadow = np.zeros((H, W), np.float32)
        for cube in cubes:
            hull = cv2.convexHull(np.round((_shadow_poly(lt, cube.corners()) + margin) * ppm * 4).astype(np.int32))
            cv2.fillConvexPoly(shadow, hull, 1.0, cv2.LINE_AA, shift=2)
        shadow = cv2.GaussianBlur(shadow, (0, 0), max(0.6, lt.softness * cube_mm * 0.6) * ppm)
        irr += lt.colour * (lam * (1 - cv2.resize(shadow, (wx.shape[1], wx.shape[0]),
                                                  interpolation=cv2.INTER_AREA)))[..., None]
    tex *= cv2.resize(irr, (W, H), interpolation=cv2.INTER_LINEAR)
    mx, my = cam.plane_map()
    img = cv2.remap(tex, (mx + margin) * ppm - 0.5, (my + margin) * ppm - 0.5, cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    for cube in sorted(cubes, key=lambda cb: (cb.z0, -float(np.linalg.norm(cam.centre - [cb.x, cb.y, 0])))):
        _draw_cube(img, cam, cube, lights, ambient, 1.0, rng)
    return img


#: The White Castle's dice as this renderer draws them: body Lab and pip albedo.
CASTLE_DICE = {"red": ((44.0, 55.0, 36.0), 0.75), "white": ((90.0, 1.0, 5.0), 0.04), "black": ((22.0, 1.0, -1.0), 0.75)}
_PIP_SPOTS = {1: ((0.5, 0.5),), 2: ((0.25, 0.25), (0.75, 0.75)), 3: ((0.25, 0.75), (0.5, 0.5), (0.75, 0.25)),
              4: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)),
              5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
              6: ((0.25, 0.25), (0.5, 0.25), (0.75, 0.25), (0.25, 0.75), (0.5, 0.75), (0.75, 0.75))}


def render_dice_rows(seed: int, look: Look | None = None, die_mm: float = 16.0) -> tuple[U8, dict[str, Any]]:
    """Dice in rows (The White Castle's bridges) on a light board with the tray sticker; labels ``rows``: each a
    list of [colour, value] from left to right (in the sticker's frame), rows from top to bottom."""
    look = look or Look(size=(2000, 1500), max_tilt_deg=12.0)
    rng = np.random.default_rng([seed, 11])
    cam = _make_camera(rng, _TrayArea(), look)  # type: ignore[arg-type]
    lights, ambient = _make_lights(rng, _TrayArea())  # type: ignore[arg-type]
    cubes, rows = [], []
    for r in range(int(rng.integers(1, 4))):
        row = []
        y = 28.0 + 36.0 * r + float(rng.normal(0, 1.0))
        x = 50.0 + float(rng.uniform(0, 6))
        for _ in range(int(rng.integers(1, 6))):
            colour = str(rng.choice(list(CASTLE_DICE)))
            value = int(rng.integers(1, 7))
            lab, pip = CASTLE_DICE[colour]
            cubes.append(_Cube(x, y + float(rng.normal(0, 0.8)), die_mm, die_mm, math.radians(float(rng.normal(0, 6))),
                               colour, _lab_to_lin(lab), pips=_PIP_SPOTS[value], pip_albedo=pip))
            row.append([colour, value])
            x += die_mm + float(rng.uniform(3, 9))
        rows.append(row)
    board = _lab_to_lin((float(rng.uniform(60, 80)), float(rng.normal(3, 3)), float(rng.normal(14, 5))))
    img = _floor_scene(rng, cam, lights, ambient, cubes, board, rim=False, cube_mm=die_mm)
    final, info = _finish_photo(rng, img, look)
    return final, {"rows": rows, "render": {"renderer": "second", "version": VERSION, "seed": seed, **info}}
