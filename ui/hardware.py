"""The app's edge to devices: the table (LEDs, buttons, dice tray) and the camera.

The table is :mod:`firmware_bridge`: by default the emulated table (the real firmware on a pty, what
"simulated" means in the status bar), ``"none"`` for no hardware, or a pyserial URL for a real table.
Opening it and probing a camera run on worker threads (:mod:`ui.viewmodels.status`); the link's own
thread reports device events through ``on_event``, which the status model hands to the Kivy thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NO_HARDWARE = "none"
EMULATOR = "emulator"


def connect(url: str, on_event: Callable[[Any], None], script: Any = None, dice: Any = None) -> Any:
    """Open the table at ``url`` ("" or "emulator": the emulated table) with the hosted game's LED script
    and dice; returns a firmware_bridge Table."""
    from firmware_bridge.table import connect_table, start_emulated_table

    if url in ("", EMULATOR):
        return start_emulated_table(script=script, dice=dice, on_event=on_event, connect_timeout=3.0)
    return connect_table(url, script=script, dice=dice, on_event=on_event)


def probe_camera(camera: str) -> bool:
    """Whether the camera (an index such as "0") delivers a frame."""
    if not camera.isdigit():
        return False
    try:
        import cv2
    except ImportError:
        return False
    capture = cv2.VideoCapture(int(camera))
    try:
        ok, _frame = capture.read()
        return bool(ok)
    finally:
        capture.release()


# ---- the camera: a photo for any game's reader (gear grids, a tray of cubes ...) ----------------------

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


class PhotoSourceError(ValueError):
    """No photo to read: the setting names no camera, folder or file, or the folder has no photo."""


def newest_photo(folder: Path) -> Path:
    photos = [p for p in folder.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES and p.is_file()]
    if not photos:
        raise PhotoSourceError(f"there is no photo in {folder}")
    return max(photos, key=lambda p: p.stat().st_mtime)


@dataclass(frozen=True, slots=True)
class Photo:
    """A photo as taken: the decoded BGR image, and the bytes to keep it by (the file's own bytes; a camera
    frame is encoded losslessly as PNG only when it is kept)."""

    image: Any
    file_data: bytes | None
    suffix: str
    name: str

    def data(self) -> bytes:
        if self.file_data is not None:
            return self.file_data
        import cv2

        encoded, data = cv2.imencode(self.suffix, self.image)
        if not encoded:
            raise PhotoSourceError(f"{self.name}: the picture could not be encoded as {self.suffix}")
        return bytes(data.tobytes())


def grab_photo(source: str) -> Photo:
    """A photo from a file, a folder (its newest photo) or a camera index."""
    from vision.reader import load_photo

    if not source:
        raise PhotoSourceError("choose a camera or a folder of photos in Settings first")
    path = Path(source).expanduser()
    if path.is_dir():
        path = newest_photo(path)
    if path.is_file():
        return Photo(load_photo(path), path.read_bytes(), path.suffix.lower(), path.name)
    if source.isdigit():
        import cv2

        capture = cv2.VideoCapture(int(source))
        try:
            ok, frame = capture.read()
        finally:
            capture.release()
        if not ok:
            raise PhotoSourceError(f"camera {source} gave no picture")
        return Photo(frame, None, ".png", f"camera {source}")
    raise PhotoSourceError(f"{source} is neither a camera number, a folder nor a photo")


def grab_image(source: str) -> Any:
    """A BGR image from a file, a folder (its newest photo) or a camera index."""
    return grab_photo(source).image
