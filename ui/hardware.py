"""The app's edge to devices: the table (LEDs, buttons, dice tray) and the camera.

The table is :mod:`firmware_bridge`: by default the emulated table (the real firmware on a pty, what
"simulated" means in the status bar), ``"none"`` for no hardware, or a pyserial URL for a real table.
Opening it and probing a camera run on worker threads (:mod:`ui.viewmodels.status`); the link's own
thread reports device events through ``on_event``, which the status model hands to the Kivy thread.
"""

from __future__ import annotations

from collections.abc import Callable
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
