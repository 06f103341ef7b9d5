"""Helpers for the vision tests: small rendered photos written to real files, and running the CLI."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ui.cli.main import main
from vision.synth import SET_JPEG_QUALITY, Conditions, random_gear, render_board, render_set_photo, write_rendered
from vision.template import GEAR_GRIDS, load_template

SMALL = (1600, 1200)


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def board_photo(folder: Path, seed: int, *, fill: float = 0.5, conditions: Conditions | None = None,
                gear: dict[str, list[str]] | None = None, template: Any = None) -> tuple[Path, dict[str, Any]]:
    template = template or load_template()
    rng = np.random.default_rng(seed)
    gear = gear or random_gear(rng, template, fill)
    cond = conditions or Conditions(size=SMALL)
    rendered = render_board(template, gear, seed=seed, conditions=cond)
    path = folder / f"board-{seed}.jpg"
    write_rendered(rendered, path)
    return path, json.loads(path.with_suffix(".json").read_text())


def benchmark_photo(folder: Path, index: int, seed: int = 2026) -> tuple[Path, dict[str, Any]]:
    """Photo ``index`` of ``python benchmarks/vision.py --seed SEED``'s ordinary set (12 MP, the benchmark's
    recipe and JPEG quality), written to ``folder``; its path and its labels."""
    rendered = render_set_photo(seed, index, Conditions(), load_template())
    path = folder / f"photo-{index:04d}.jpg"
    write_rendered(rendered, path, quality=SET_JPEG_QUALITY)
    return path, dict(rendered.labels)


def empty_gear(template: Any) -> dict[str, list[str]]:
    return {g: ["." * template.grids[g].cols] * template.grids[g].rows for g in GEAR_GRIDS}


def glare_over(photo: Path, grid: str, out: Path, template: Any = None) -> Path:
    """A copy of ``photo`` with a clipped white spot over the middle of one grid (a lamp's reflection on
    glossy print): the grid's cells read white in every channel, as glare does to a camera."""
    import cv2

    from vision.reader import load_photo, locate

    template = template or load_template()
    image = load_photo(photo)
    loc = locate(image, template)
    g = template.grids[grid]
    x0, y0 = g.origin_mm
    w, h = g.size_mm
    corners = np.array([[[x0, y0]], [[x0 + w, y0 + h]], [[x0 + w / 2, y0 + h / 2]]], dtype=np.float64)
    (a, b, centre) = cv2.perspectiveTransform(corners, loc.hom).reshape(3, 2)
    radius = int(np.hypot(*(b - a)) * 0.45)
    cv2.circle(image, (int(centre[0]), int(centre[1])), radius, (255, 255, 255), -1)
    cv2.imwrite(str(out), image)
    return out


def _grids_in_photo(photo: Path, grids: Sequence[str], template: Any, margin_mm: float = 0.0
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The photo, and a mask of the given grids' rectangles in it (``margin_mm`` beyond each outline)."""
    import cv2

    from vision.reader import load_photo, locate

    image = load_photo(photo)
    loc = locate(image, template)
    mask = np.zeros(image.shape[:2], dtype=np.uint8)
    for name in grids:
        g = template.grids[name]
        (x0, y0), (w, h) = g.origin_mm, g.size_mm
        x0, y0, w, h = x0 - margin_mm, y0 - margin_mm, w + 2 * margin_mm, h + 2 * margin_mm
        corners = np.array([[[x0, y0]], [[x0 + w, y0]], [[x0 + w, y0 + h]], [[x0, y0 + h]]], dtype=np.float64)
        cv2.fillConvexPoly(mask, cv2.perspectiveTransform(corners, loc.hom).reshape(4, 2).astype(np.int32), 1)
    return image, mask


def pale_print(photo: Path, out: Path, gain: float, template: Any = None) -> Path:
    """A copy of ``photo`` with every gear grid's print (the grid's rectangle, lines and all) ``gain`` times as
    light, clipped at white: a print too pale for the camera's exposure, the print around the grids as it was."""
    import cv2

    image, mask = _grids_in_photo(photo, GEAR_GRIDS, template or load_template())
    lit = np.clip(image.astype(np.float32) * gain, 0, 255).astype(np.uint8)
    image[mask > 0] = lit[mask > 0]
    cv2.imwrite(str(out), image)
    return out


def faint_lines(photo: Path, out: Path, grids: Sequence[str], template: Any = None, *, left: float = 0.1,
                colour: tuple[int, int, int] | None = None) -> Path:
    """A copy of ``photo`` whose ``grids`` are printed with faint lines: each grid's rectangle, 3 mm beyond its
    outline, taken ``left`` of the way back from a median wide enough to wipe out thin lines (the print's colour
    stays). ``colour``: a plain card of that colour (BGR) laid over them instead."""
    import cv2

    image, mask = _grids_in_photo(photo, grids, template or load_template(), margin_mm=3.0)
    if colour is None:
        smooth = cv2.medianBlur(image, 31).astype(np.float32)
        cover = (smooth + left * (image.astype(np.float32) - smooth)).astype(np.uint8)
    else:
        cover = np.empty_like(image)
        cover[:] = colour
    image[mask > 0] = cover[mask > 0]
    cv2.imwrite(str(out), image)
    return out
