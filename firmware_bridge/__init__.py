"""The table hardware: wire codec and firmware (``firmware/``), host link, emulator, GPIO panel, LED view.

Adapters between :mod:`companion` events/dice and a Raspberry Pi Pico on a serial line. Nothing here is
imported by ``companion``; backends (serial URL, pin factory, clock) are chosen by the caller.
Start with :mod:`firmware_bridge.table` (``open_table``, ``start_emulated_table``, ``connect_table``).
"""

from __future__ import annotations

from typing import Any


def connect(url: str = "emulator", connect_timeout: float = 3.0) -> Any:
    """The table at ``url`` (a pyserial URL, or "emulator"): a ``table.Table`` once the device answered.

    Raises ``firmware_bridge.link.LinkError`` when no device answers within ``connect_timeout``.
    """
    from firmware_bridge.table import open_table

    return open_table(url or None, connect_timeout=connect_timeout)
