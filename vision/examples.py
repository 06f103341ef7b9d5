"""Labelled photos: a group's own photos of its board, kept with the grids the players confirmed.

One format for every source of labelled photos: ``NAME.jpg`` (or ``.png``) with ``NAME.json`` beside it,
``{"board": ..., "helmet": [rows], "sandals": [...], "weapon_left": [...], "weapon_right": [...],
"render": {...}}``, rows of ``W``/``M``/``T``/``.``. The renderers write it for their photos, ``fujikoro
vision collect`` and the Gear screen's "Keep as example" for real ones; ``python benchmarks/vision.py
--labelled FOLDER`` measures the reader on such a folder and ``python -m vision.train_cellnet --labelled
FOLDER`` adds it to the cell network's training photos.

A collected example also keeps the template the photo was read with (``template``: the board's camera
set-up when there was one), so it is read again exactly as the app read it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vision.template import GEAR_GRIDS, Template

#: What a confirmed cell may hold: a player has settled every cell, so no ``?``.
CONFIRMED = frozenset("WMT.")
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")


class ExampleError(ValueError):
    """Grids that are not a confirmed reading of this template's board (the message names the grid)."""


def confirmed_grids(grids: Mapping[str, Any], template: Template) -> dict[str, list[str]]:
    """The four gear grids, checked against the template's shapes; a ``?`` or another letter is refused."""
    out: dict[str, list[str]] = {}
    for name in GEAR_GRIDS:
        g = template.grids[name]
        rows = grids.get(name)
        if (not isinstance(rows, list | tuple) or len(rows) != g.rows
                or not all(isinstance(r, str) and len(r) == g.cols for r in rows)):
            raise ExampleError(f"{name} must be {g.rows} rows of {g.cols} cells, got {rows!r}")
        bad = sorted({ch for r in rows for ch in r} - CONFIRMED)
        if bad:
            raise ExampleError(f"{name} has {''.join(bad)!r}: a confirmed grid holds only W, M, T and .")
        out[name] = list(rows)
    return out


def save_example(folder: Path, photo: bytes, suffix: str, grids: Mapping[str, Any], template: Template, *,
                 original: str = "", source: str = "collected") -> Path:
    """Writes the photo and its labels into ``folder`` (made if missing) and returns the photo's path. The
    name comes from the photo's bytes, so keeping the same photo twice overwrites one example, never adds a
    second. The label is written last, through a temporary file: a photo without its label is not an
    example, so an interrupted save leaves nothing a benchmark would read."""
    labels: dict[str, Any] = {"board": template.board, **confirmed_grids(grids, template)}
    labels["render"] = {"source": source, "original": original, "template": template.name}
    labels["template"] = template.to_json()
    suffix = suffix.lower() if suffix.lower() in PHOTO_SUFFIXES else ".jpg"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{source}-{hashlib.sha256(photo).hexdigest()[:12]}{suffix}"
    target.write_bytes(photo)
    label = target.with_suffix(".json")
    tmp = label.with_name(label.name + ".tmp")
    tmp.write_text(json.dumps(labels, indent=1), encoding="utf-8")
    os.replace(tmp, label)
    return target


def labelled_photos(folder: Path) -> list[Path]:
    """The photos in ``folder`` that have their label beside them, in name order."""
    return sorted(p for p in folder.iterdir()
                  if p.suffix.lower() in PHOTO_SUFFIXES and p.with_suffix(".json").is_file())


def example_template(path: Path) -> dict[str, Any] | None:
    """The template a collected example was read with (JSON), or None for rendered photos."""
    data = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    template = data.get("template")
    return template if isinstance(template, dict) else None
