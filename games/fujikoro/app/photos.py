"""Gear from a photo for the gear editor: a file, the newest photo in a folder, or a camera frame.

Runs on a worker thread. The reading is :func:`vision.reader.read_board` with the board's template: the
one fitted when the group set up the camera for this board (:func:`set_up_camera`, kept per board in the
config folder), else the shipped one. Cells the reader is unsure of (``?``) are never turned into
confident empty cells: a :class:`PhotoGear` keeps them in :attr:`PhotoGear.uncertain`, the gear editor
marks them and leaves them out of the gear until the player taps each one, and the reader's ``retake``
reason and notes (a board unlike its calibration) are passed on.

Once the players have settled every cell, :func:`keep_example` keeps the photo with their grids as a
labelled example (:mod:`vision.examples`) in the data folder's ``vision-examples``: the group's own photos,
for ``python benchmarks/vision.py --labelled`` and, when they want, for training the cell network.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from games.fujikoro.pack import DataPack
from ui.hardware import Photo as Photo
from ui.hardware import PhotoSourceError as PhotoSourceError
from ui.hardware import grab_image as grab_image
from ui.hardware import grab_photo as grab_photo
from ui.hardware import newest_photo as newest_photo

if TYPE_CHECKING:
    from vision.calibrate import Partial
    from vision.template import Template

UNSURE = "?"


@dataclass(frozen=True, slots=True)
class PhotoGear:
    """The grids as read (``?`` where the reader is unsure), the unsure cells and the retake advice."""

    grids: dict[str, tuple[str, ...]]
    uncertain: frozenset[tuple[str, int, int]]  # (grid, row, column)
    retake: str | None = None
    notes: tuple[str, ...] = ()  # e.g. the board looks unlike its calibration
    # The photo read (to keep as an example once the players confirm the grids) and the template it was read
    # with: carried along, not part of what was read (two readings of the same photo are equal).
    photo: Photo | None = field(default=None, compare=False, repr=False)
    template: Any = field(default=None, compare=False, repr=False)
    reading: Any = field(default=None, compare=False, repr=False)  # the reader's BoardReading (merged with retakes)
    more_to_read: bool = False  # another photo of the board could read more of it (vision.retake.wants_retake)

    def certain_grids(self) -> dict[str, list[str]]:
        """Only the cells the reader is sure of; the uncertain ones stay out of the gear (empty) until the
        player sets them, and :attr:`uncertain` says which they are."""
        return {name: [row.replace(UNSURE, ".") for row in rows] for name, rows in self.grids.items()}


def calibration_file(board: str) -> Path:
    """Where the camera set-up (the template fitted to this board's photo) is kept, one per board."""
    from store.overrides import config_dir

    return config_dir() / "vision" / f"{board}.json"


def board_template(board: str, pack: DataPack) -> Any:
    """This board's calibrated template if the camera was set up for it, else the shipped one."""
    from vision.template import TemplateError, load_template

    path = calibration_file(board)
    if path.is_file():
        try:
            return load_template(path, pack)
        except TemplateError:
            pass  # a damaged set-up file: read with the shipped template (set up the camera again)
    return load_template(None, pack)


@dataclass(frozen=True, slots=True)
class CameraSetup:
    """The result of setting up the camera: where the fitted template went and what moved."""

    path: Path
    lines: tuple[str, ...]


class CameraSetupIncomplete(PhotoSourceError):
    """The photo did not show every grid well; ``partial`` keeps what it and the earlier photos did show
    (:class:`vision.calibrate.Partial`), for the retake to complete."""

    def __init__(self, message: str, partial: Partial) -> None:
        super().__init__(message)
        self.partial = partial


def set_up_camera(source: str, board: str, pack: DataPack, earlier: Partial | None = None) -> CameraSetup:
    """Fits the board's template to a photo of the empty board with the stickers on (vision.calibrate) and
    keeps it for this board; later photos of this board are read with it. ``earlier``: the ``partial`` of
    the :class:`CameraSetupIncomplete` the previous photo raised (a retake keeps the grids it showed well)."""
    from vision.calibrate import CalibrationError, calibrate
    from vision.template import load_template

    base = load_template(None, pack)
    if base.board != board:
        raise PhotoSourceError(f"the shipped photo template is for the {base.board} board, this player uses {board}")
    try:
        fitted = calibrate(grab_image(source), base, photo_name=Path(source).name or "camera", earlier=earlier)
    except CalibrationError as error:
        if error.partial is not None:
            raise CameraSetupIncomplete(str(error), error.partial) from None
        raise PhotoSourceError(str(error)) from None
    return _keep_setup(fitted, board, base)


def keep_partial_setup(board: str, partial: Partial, pack: DataPack) -> CameraSetup:
    """Keeps the board's camera set-up as far as the photos so far went (``partial``: from the last
    :class:`CameraSetupIncomplete`): the grids they set up are read, the others left unread until set up
    again (vision.calibrate.keep_partial)."""
    from vision.calibrate import CalibrationError, keep_partial
    from vision.template import load_template

    base = load_template(None, pack)
    try:
        fitted = keep_partial(partial, base)
    except CalibrationError as error:
        raise PhotoSourceError(str(error)) from None
    return _keep_setup(fitted, board, base)


def _keep_setup(fitted: Template, board: str, base: Template) -> CameraSetup:
    """Writes the board's fitted template where the next photos of it are read with, and says what moved."""
    import json

    from vision.calibrate import calibration_notes

    path = calibration_file(board)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(fitted.to_json(), indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    moved = max(max(abs(a - b) for a, b in zip(g.origin_mm, base.grids[n].origin_mm, strict=True))
                for n, g in fitted.grids.items())
    lines = (f"grids fitted (moved up to {moved:.1f} mm from the shipped template)",)
    if fitted.board_lab is not None:
        lines += (f"board print measured: L* {fitted.board_lab[0]:.0f}",)
    lines += calibration_notes(fitted, "set up again")
    return CameraSetup(path, lines)


def read_gear(source: str, board: str, pack: DataPack, earlier: PhotoGear | None = None) -> PhotoGear:
    """The four gear grids read from the photo, with the cells the reader is unsure of and its retake reason.
    Uses the board's camera set-up (:func:`set_up_camera`) when there is one. ``earlier``: the reading this
    photo retakes (same board, same cubes): the two are merged (:mod:`vision.retake`), a cell taking what the
    photos show together and '?' where they disagree."""
    from vision.reader import PhotoError, read_board
    from vision.retake import merge_readings, wants_retake

    template = board_template(board, pack)
    photo = grab_photo(source)
    reading = read_board(photo.image, template)
    if reading.board != board:
        raise PhotoSourceError(f"the photo template is for the {reading.board} board, this player uses {board}")
    if earlier is not None and earlier.reading is not None:
        try:
            reading = merge_readings(earlier.reading, reading)
        except PhotoError as error:
            raise PhotoSourceError(str(error)) from None
    grids = {name: tuple(rows) for name, rows in reading.grids.items()}
    uncertain = frozenset((name, r, c) for name, rows in grids.items() for r, row in enumerate(rows)
                          for c, ch in enumerate(row) if ch == UNSURE)
    return PhotoGear(grids, uncertain, reading.retake, tuple(reading.notes), photo, template, reading,
                     wants_retake(reading))


def after_retake(merged: PhotoGear, current: dict[str, list[str]], touched: set[tuple[str, int, int]]
                 ) -> tuple[dict[str, list[str]], set[tuple[str, int, int]]]:
    """The grids and the cells still to tap after a retake: a cell the players set by hand since the first photo
    (``touched``) stays as they set it (``current``: the grids as they stand, rows with '.' for empty); every other
    cell is what the photos show together (``merged``), its '?' cells left out of the gear until tapped."""
    read = merged.certain_grids()
    grids: dict[str, list[str]] = {}
    still: set[tuple[str, int, int]] = set()
    for name, rows in read.items():
        have = [row.ljust(len(rows[0]), ".")[: len(rows[0])] for row in current.get(name, [])][: len(rows)]
        have += ["." * len(rows[0])] * (len(rows) - len(have))
        out = []
        for r, row in enumerate(rows):
            cells = []
            for c, ch in enumerate(row):
                key = (name, r, c)
                if key in touched:
                    cells.append(have[r][c])
                else:
                    cells.append(ch)
                    if key in merged.uncertain:
                        still.add(key)
            out.append("".join(cells))
        grids[name] = out
    return grids, still


def examples_folder() -> Path:
    """Where the Gear screen keeps the group's labelled photos (the data folder's ``vision-examples``)."""
    from companion.paths import app_paths

    return app_paths().data / "vision-examples"


def keep_example(reading: PhotoGear, grids: dict[str, list[str]]) -> Path:
    """Keeps the photo with the grids the players confirmed (every cell settled, no ``?``) as a labelled
    example; returns the photo's path there."""
    from vision.examples import ExampleError, save_example

    if reading.photo is None or reading.template is None:
        raise PhotoSourceError("read a photo first")
    try:
        return save_example(examples_folder(), reading.photo.data(), reading.photo.suffix, grids, reading.template,
                            original=reading.photo.name)
    except ExampleError as error:
        raise PhotoSourceError(str(error)) from None
    except OSError as error:
        raise PhotoSourceError(f"cannot write to {examples_folder()}: {error.strerror or error}") from None
