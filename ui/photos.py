"""Gear from a photo for the gear editor: a file, the newest photo in a folder, or a camera frame.

Runs on a worker thread. The reading is :func:`vision.reader.read_board` with the shipped board
template. Cells the reader is unsure of (``?``) are never turned into confident empty cells: a
:class:`PhotoGear` keeps them in :attr:`PhotoGear.uncertain`, the gear editor marks them and leaves
them out of the gear until the player taps each one, and the reader's ``retake`` reason is passed on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.datapack import DataPack

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


UNSURE = "?"


@dataclass(frozen=True, slots=True)
class PhotoGear:
    """The grids as read (``?`` where the reader is unsure), the unsure cells and the retake advice."""

    grids: dict[str, tuple[str, ...]]
    uncertain: frozenset[tuple[str, int, int]]  # (grid, row, column)
    retake: str | None = None

    def certain_grids(self) -> dict[str, list[str]]:
        """Only the cells the reader is sure of; the uncertain ones stay out of the gear (empty) until the
        player sets them, and :attr:`uncertain` says which they are."""
        return {name: [row.replace(UNSURE, ".") for row in rows] for name, rows in self.grids.items()}


class PhotoSourceError(ValueError):
    """No photo to read: the setting names no camera, folder or file, or the folder has no photo."""


def newest_photo(folder: Path) -> Path:
    photos = [p for p in folder.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES and p.is_file()]
    if not photos:
        raise PhotoSourceError(f"there is no photo in {folder}")
    return max(photos, key=lambda p: p.stat().st_mtime)


def grab_image(source: str) -> Any:
    """A BGR image from a file, a folder (its newest photo) or a camera index."""
    from vision.reader import load_photo

    if not source:
        raise PhotoSourceError("choose a camera or a folder of photos in Settings first")
    path = Path(source).expanduser()
    if path.is_dir():
        return load_photo(newest_photo(path))
    if path.is_file():
        return load_photo(path)
    if source.isdigit():
        import cv2

        capture = cv2.VideoCapture(int(source))
        try:
            ok, frame = capture.read()
        finally:
            capture.release()
        if not ok:
            raise PhotoSourceError(f"camera {source} gave no picture")
        return frame
    raise PhotoSourceError(f"{source} is neither a camera number, a folder nor a photo")


def read_gear(source: str, board: str, pack: DataPack) -> PhotoGear:
    """The four gear grids read from the photo, with the cells the reader is unsure of and its retake reason."""
    from vision.reader import read_board
    from vision.template import load_template

    template = load_template(None, pack)
    reading = read_board(grab_image(source), template)
    if reading.board != board:
        raise PhotoSourceError(f"the photo template is for the {reading.board} board, this player uses {board}")
    grids = {name: tuple(rows) for name, rows in reading.grids.items()}
    uncertain = frozenset((name, r, c) for name, rows in grids.items() for r, row in enumerate(rows)
                          for c, ch in enumerate(row) if ch == UNSURE)
    return PhotoGear(grids, uncertain, reading.retake)
