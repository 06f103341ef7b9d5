"""Gear from a photo for the gear editor: a file, the newest photo in a folder, or a camera frame.

Runs on a worker thread. The reading is :func:`vision.reader.read_board` with the shipped board
template; cells the reader is unsure of come back empty and the message asks the player to check.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.datapack import DataPack

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


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


def read_gear(source: str, board: str, pack: DataPack) -> dict[str, list[str]]:
    """The four gear grids read from the photo, unsure cells left empty."""
    from vision.reader import read_board
    from vision.template import load_template

    template = load_template(None, pack)
    reading = read_board(grab_image(source), template)
    if reading.board != board:
        raise PhotoSourceError(f"the photo template is for the {reading.board} board, this player uses {board}")
    return {name: [row.replace("?", ".") for row in rows] for name, rows in reading.grids.items()}
