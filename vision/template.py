"""Board templates: where the gear grids and the ArUco stickers sit on a player board, in millimetres.

A template is JSON (documented in ``vision/README.md``); the shipped default is
``vision/templates/symmetric.json``. Loading validates the shape of the JSON and checks every grid's
rows and columns against the data pack's board, so a template never disagrees with the rules about
how big a grid is. Coordinates are millimetres from the board's top-left corner, x to the right,
y down; a grid's origin is the outer corner of its top-left cell.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

#: The grids a template must describe, in the order read-board prints them.
GEAR_GRIDS = ("helmet", "sandals", "weapon_left", "weapon_right")
#: Grids a template may describe in addition (not gear, not read by default).
OPTIONAL_GRIDS = ("backpack",)


class BoardSpec(Protocol):
    """What a game's data says of a board's grids (rows, columns), to check a template against."""

    name: str
    helmet_grid: tuple[int, int]
    sandals_grid: tuple[int, int]
    weapon_left_grid: tuple[int, int]
    weapon_right_grid: tuple[int, int]


class Boards(Protocol):
    """A game's data pack, as far as templates care: its boards by name (raises ValueError if unknown)."""

    def board(self, name: str) -> Any: ...
DICTIONARIES = ("DICT_4X4_50", "DICT_4X4_100", "DICT_5X5_50", "DICT_6X6_50")
DEFAULT_CUBE_MM = 8.0


class TemplateError(ValueError):
    """A template file is missing, not JSON, malformed, or disagrees with the data pack."""


@dataclass(frozen=True, slots=True)
class Grid:
    name: str
    origin_mm: tuple[float, float]
    cell_mm: float
    rows: int
    cols: int

    def cell_centre(self, row: int, col: int) -> tuple[float, float]:
        return (self.origin_mm[0] + (col + 0.5) * self.cell_mm, self.origin_mm[1] + (row + 0.5) * self.cell_mm)

    @property
    def size_mm(self) -> tuple[float, float]:
        return (self.cols * self.cell_mm, self.rows * self.cell_mm)

    def farthest_cell_from(self, other: Grid) -> float:
        """How far (mm) this grid's cells lie from the same cells of ``other`` (a grid of the same shape placed
        elsewhere, e.g. as calibrated against as printed): the largest distance between a cell's two centres."""
        return max(math.dist(self.cell_centre(r, c), other.cell_centre(r, c))
                   for r in range(other.rows) for c in range(other.cols))


@dataclass(frozen=True, slots=True)
class Markers:
    dictionary: str
    size_mm: float
    ids: tuple[int, ...]
    centres_mm: tuple[tuple[float, float], ...]

    def corners_mm(self, index: int) -> list[tuple[float, float]]:
        """The marker's four corners as OpenCV orders them: top-left, top-right, bottom-right, bottom-left."""
        cx, cy = self.centres_mm[index]
        h = self.size_mm / 2
        return [(cx - h, cy - h), (cx + h, cy - h), (cx + h, cy + h), (cx - h, cy + h)]


@dataclass(frozen=True, slots=True)
class Template:
    name: str
    board: str
    board_mm: tuple[float, float]
    markers: Markers
    grids: Mapping[str, Grid]
    cube_mm: float = DEFAULT_CUBE_MM
    status: str = "assumed"
    board_lab: tuple[float, float, float] | None = None
    #: Per grid, CIE Lab of the cells' own print (written by calibration; a grid may be printed unlike the
    #: board around it: another fill, dark, coloured).
    grid_lab: Mapping[str, tuple[float, float, float]] | None = None
    #: Per grid, pieces of the print around it as (x_mm, y_mm, r, g, b): the grid's print over that piece's
    #: print, per linear RGB channel, measured on the empty board (calibration). The same light falls on
    #: both, so in any photo the piece's light times this factor is the grid's lit print there.
    band_ratio: Mapping[str, tuple[tuple[float, float, float, float, float], ...]] | None = None
    #: Grids whose print calibration saw clipped white all over in two photos (a print too pale for the camera's
    #: exposure): their grid_lab and band_ratio are lower bounds, measured from the clipped pixels.
    clipped_print: tuple[str, ...] = ()
    #: Grids whose printed lines calibration did not find in two photos (lines too faint to fit): they keep the
    #: template's place.
    faint_lines: tuple[str, ...] = ()
    #: Grids calibration could not set up (their lines or print not seen in any photo taken) on a board the group
    #: chose to use as far as it was set up: the reader leaves their cells unread.
    unset_grids: tuple[str, ...] = ()

    @property
    def gear_grids(self) -> tuple[Grid, ...]:
        return tuple(self.grids[name] for name in GEAR_GRIDS)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "board": self.board,
            "status": self.status,
            "board_mm": list(self.board_mm),
            "cube_mm": self.cube_mm,
            **({"board_lab": [round(v, 1) for v in self.board_lab]} if self.board_lab else {}),
            **({"grid_lab": {k: [round(v, 1) for v in lab] for k, lab in self.grid_lab.items()}}
               if self.grid_lab else {}),
            **({"band_ratio": {k: [[round(v, 3) for v in piece] for piece in pieces]
                               for k, pieces in self.band_ratio.items()}} if self.band_ratio else {}),
            **({"clipped_print": list(self.clipped_print)} if self.clipped_print else {}),
            **({"faint_lines": list(self.faint_lines)} if self.faint_lines else {}),
            **({"unset_grids": list(self.unset_grids)} if self.unset_grids else {}),
            "markers": {
                "dictionary": self.markers.dictionary,
                "size_mm": self.markers.size_mm,
                "ids": list(self.markers.ids),
                "centres_mm": [list(c) for c in self.markers.centres_mm],
            },
            "grids": {
                name: {"origin_mm": [round(g.origin_mm[0], 2), round(g.origin_mm[1], 2)],
                       "cell_mm": round(g.cell_mm, 3), "rows": g.rows, "cols": g.cols}
                for name, g in self.grids.items()
            },
        }


def _number(path: str, value: Any, *, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TemplateError(f"{path}: expected a number, got {value!r}")
    if positive and value <= 0:
        raise TemplateError(f"{path}: must be more than 0, got {value!r}")
    return float(value)


def _pair(path: str, value: Any, *, positive: bool = False) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise TemplateError(f"{path}: expected [x, y] in mm, got {value!r}")
    return (_number(f"{path}[0]", value[0], positive=positive), _number(f"{path}[1]", value[1], positive=positive))


def _count(path: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise TemplateError(f"{path}: expected a whole number of at least 1, got {value!r}")
    return value


def template_from_json(data: Any, pack: Boards | None = None) -> Template:
    """Validates a parsed template against its own rules and, given the game's data pack, its board's grids."""
    if not isinstance(data, dict):
        raise TemplateError("a template must be a JSON object")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise TemplateError(f"name: expected the template's name, got {name!r}")
    board = data.get("board", name)
    if not isinstance(board, str):
        raise TemplateError(f"board: expected a board name, got {board!r}")
    spec: BoardSpec | None = None
    if pack is not None:
        try:
            spec = pack.board(board)
        except ValueError as error:
            raise TemplateError(f"board: {error}") from None
    board_mm = _pair("board_mm", data.get("board_mm"), positive=True)
    cube_mm = _number("cube_mm", data.get("cube_mm", DEFAULT_CUBE_MM), positive=True)
    board_lab = None
    if "board_lab" in data:
        raw_lab = data["board_lab"]
        if not isinstance(raw_lab, list) or len(raw_lab) != 3:
            raise TemplateError(f"board_lab: expected [L, a, b] of the printed board, got {raw_lab!r}")
        board_lab = (_number("board_lab[0]", raw_lab[0]), _number("board_lab[1]", raw_lab[1]),
                     _number("board_lab[2]", raw_lab[2]))
    grid_lab = None
    if "grid_lab" in data:
        raw_grid_lab = data["grid_lab"]
        if not isinstance(raw_grid_lab, dict):
            raise TemplateError(f"grid_lab: expected {{grid: [L, a, b]}} of each grid's print, got {raw_grid_lab!r}")
        grid_lab = {}
        for gname, raw_lab in raw_grid_lab.items():
            if not isinstance(raw_lab, list) or len(raw_lab) != 3:
                raise TemplateError(f"grid_lab.{gname}: expected [L, a, b] of the grid's print, got {raw_lab!r}")
            grid_lab[str(gname)] = (_number(f"grid_lab.{gname}[0]", raw_lab[0]),
                                    _number(f"grid_lab.{gname}[1]", raw_lab[1]),
                                    _number(f"grid_lab.{gname}[2]", raw_lab[2]))
    band_ratio = None
    if "band_ratio" in data:
        raw_ratio = data["band_ratio"]
        if not isinstance(raw_ratio, dict):
            raise TemplateError(f"band_ratio: expected {{grid: [[x, y, r, g, b], ...]}}, got {raw_ratio!r}")
        band_ratio = {}
        for gname, pieces in raw_ratio.items():
            if not isinstance(pieces, list) or not all(isinstance(p, list) and len(p) == 5 for p in pieces):
                raise TemplateError(f"band_ratio.{gname}: expected a list of [x, y, r, g, b], got {pieces!r}")
            band_ratio[str(gname)] = tuple(
                tuple(_number(f"band_ratio.{gname}[{i}][{j}]", v, positive=j >= 2) for j, v in enumerate(p))
                for i, p in enumerate(pieces))
    per_grid_lists = {}
    for field_name in ("clipped_print", "faint_lines", "unset_grids"):
        names = data.get(field_name, [])
        if not isinstance(names, list) or not all(name in GEAR_GRIDS + OPTIONAL_GRIDS for name in names):
            raise TemplateError(f"{field_name}: expected a list of grid names "
                                f"({', '.join(GEAR_GRIDS + OPTIONAL_GRIDS)}), got {names!r}")
        per_grid_lists[field_name] = tuple(names)
    status = data.get("status", "assumed")
    if not isinstance(status, str):
        raise TemplateError(f"status: expected text, got {status!r}")

    raw_markers = data.get("markers")
    if not isinstance(raw_markers, dict):
        raise TemplateError("markers: expected an object with dictionary, size_mm, ids, centres_mm")
    dictionary = raw_markers.get("dictionary")
    if dictionary not in DICTIONARIES:
        raise TemplateError(f"markers.dictionary: expected one of {', '.join(DICTIONARIES)}, got {dictionary!r}")
    size_mm = _number("markers.size_mm", raw_markers.get("size_mm"), positive=True)
    ids = raw_markers.get("ids")
    if not (isinstance(ids, list) and len(ids) == 4 and all(isinstance(i, int) and not isinstance(i, bool)
                                                              and 0 <= i < 50 for i in ids)):
        raise TemplateError(f"markers.ids: expected four marker ids between 0 and 49, got {ids!r}")
    if len(set(ids)) != 4:
        raise TemplateError(f"markers.ids: the four ids must differ, got {ids!r}")
    centres = raw_markers.get("centres_mm")
    if not isinstance(centres, list) or len(centres) != 4:
        raise TemplateError(f"markers.centres_mm: expected four [x, y] centres, got {centres!r}")
    markers = Markers(str(dictionary), size_mm, tuple(ids),
                      tuple(_pair(f"markers.centres_mm[{i}]", c) for i, c in enumerate(centres)))

    raw_grids = data.get("grids")
    if not isinstance(raw_grids, dict):
        raise TemplateError("grids: expected an object of grids (helmet, sandals, weapon_left, weapon_right)")
    expected = {} if spec is None else {
        "helmet": spec.helmet_grid, "sandals": spec.sandals_grid,
        "weapon_left": spec.weapon_left_grid, "weapon_right": spec.weapon_right_grid}
    grids: dict[str, Grid] = {}
    for gname, raw in raw_grids.items():
        if gname not in GEAR_GRIDS and gname not in OPTIONAL_GRIDS:
            raise TemplateError(f"grids.{gname}: unknown grid; expected {', '.join(GEAR_GRIDS + OPTIONAL_GRIDS)}")
        if not isinstance(raw, dict):
            raise TemplateError(f"grids.{gname}: expected origin_mm, cell_mm, rows, cols")
        grid = Grid(gname, _pair(f"grids.{gname}.origin_mm", raw.get("origin_mm")),
                    _number(f"grids.{gname}.cell_mm", raw.get("cell_mm"), positive=True),
                    _count(f"grids.{gname}.rows", raw.get("rows")), _count(f"grids.{gname}.cols", raw.get("cols")))
        if gname in expected and (grid.rows, grid.cols) != expected[gname]:
            rows, cols = expected[gname]
            raise TemplateError(f"grids.{gname}: the {board} board's grid is {rows}x{cols} in the data pack, "
                                f"the template says {grid.rows}x{grid.cols}")
        if grid.cell_mm <= cube_mm:
            raise TemplateError(f"grids.{gname}.cell_mm: a cell ({grid.cell_mm} mm) must be larger than a cube "
                                f"({cube_mm} mm)")
        x, y = grid.origin_mm
        w, h = grid.size_mm
        if x < 0 or y < 0 or x + w > board_mm[0] + 1e-6 or y + h > board_mm[1] + 1e-6:
            raise TemplateError(f"grids.{gname}: the grid ({x}, {y}) + {w}x{h} mm does not fit on the board")
        grids[gname] = grid
    missing = [g for g in GEAR_GRIDS if g not in grids]
    if missing:
        raise TemplateError(f"grids: missing {', '.join(missing)}")
    for field_name, per_grid in (("grid_lab", grid_lab), ("band_ratio", band_ratio),
                                 *((k, dict.fromkeys(v)) for k, v in per_grid_lists.items())):
        unknown = sorted(set(per_grid or {}) - set(grids))
        if unknown:
            raise TemplateError(f"{field_name}: no grid named {', '.join(unknown)}")
    return Template(name, board if spec is None else spec.name, board_mm, markers, grids, cube_mm, status,
                    board_lab, grid_lab, band_ratio, per_grid_lists["clipped_print"],  # type: ignore[arg-type]
                    per_grid_lists["faint_lines"], per_grid_lists["unset_grids"])


def load_template(path: str | Path | None = None, pack: Boards | None = None) -> Template:
    """The template at ``path``, or the shipped symmetric one; raises TemplateError with one clear sentence."""
    if path is None:
        text = resources.files("vision.templates").joinpath("symmetric.json").read_text(encoding="utf-8")
        origin = "the shipped template"
    else:
        origin = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise TemplateError(f"template {origin} does not exist") from None
        except (OSError, UnicodeDecodeError) as error:
            raise TemplateError(f"cannot read template {origin}: {error}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise TemplateError(f"template {origin} is not JSON: {error}") from None
    try:
        return template_from_json(data, pack)
    except TemplateError as error:
        raise TemplateError(f"template {origin}: {error}") from None
