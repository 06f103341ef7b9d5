"""Regression: the port hangs up while the reader thread is between two reads (benchmarks/bridge.py replug).

pyserial's ReaderThread only catches SerialException around ``read(in_waiting or 1)``; on a pty (or a
USB CDC device) that was pulled, ``in_waiting`` raises a bare ``OSError(EIO)``. The thread then died
without ``connection_lost``, so the link never learnt the port was gone: it waited for a heartbeat that
was an hour away and the replugged table stayed dark. The test parks the reader thread in ``in_waiting``
right after an ACK, unplugs the real emulator (the real pty master closes), and lets the real ioctl fail.
"""

from __future__ import annotations

import select
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import serial

from firmware_bridge import ledmap as ledmap_module
from firmware_bridge.emulator import Emulator
from firmware_bridge.link import Disconnected, SerialLink
from games.fujikoro.table import TableView, render

LEDMAP = ledmap_module.default()
FIRST = render(TableView(erupted=frozenset({2}), countdown=3, player_colour="red"), LEDMAP)
STATE = render(TableView(erupted=frozenset({1, 4}), countdown=6, rope_space=3, player_colour="yellow"), LEDMAP)
WANTED = tuple(STATE.pixel(i) for i in range(LEDMAP.chain_length))


class GatedSerial(serial.Serial):  # type: ignore[misc]
    """A real serial port whose ``in_waiting`` can be held once, to force the hang-up interleaving."""

    park_when: Callable[[], bool] | None = None
    parked_fd = -1
    parked = threading.Event()
    release = threading.Event()

    @property
    def in_waiting(self) -> int:
        when = GatedSerial.park_when
        if when is not None and when():
            GatedSerial.park_when = None
            GatedSerial.parked_fd = self.fd
            GatedSerial.parked.set()
            GatedSerial.release.wait(2)
        return int(super().in_waiting)


def hung_up(fd: int) -> bool:
    """The kernel has hung the pty up (POLLHUP), without reading from it."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return any(mask & (select.POLLHUP | select.POLLERR) for _, mask in poller.poll(0))


def wait_until(predicate: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return False


def test_bridge_hangup_between_reads_is_a_disconnect(tmp_path: Path) -> None:
    GatedSerial.park_when = None
    GatedSerial.parked.clear()
    GatedSerial.release.clear()
    emulator = Emulator(baudrate=115200)
    url = emulator.serve_pty(tmp_path / "table")
    link = SerialLink(url, LEDMAP, open_port=lambda url, **kw: GatedSerial(url, **kw))
    link.core.heartbeat_s = 3600.0  # as in the benchmark's timing runs: no heartbeat write will notice
    link.start()
    try:
        link.set_leds(FIRST)
        assert link.wait_synced(3)
        # Park the reader in its next in_waiting once the ACK for STATE is handled (what the benchmark's
        # replug loop does by unplugging the moment the link is synced).
        GatedSerial.park_when = lambda: link.core.synced and link.core.desired is STATE
        link.set_leds(STATE)
        assert GatedSerial.parked.wait(2), "the reader thread never came back for more bytes"
        emulator.unplug()  # the pty master closes: in_waiting on the host's port now fails with EIO
        assert wait_until(lambda: hung_up(GatedSerial.parked_fd), 1.0)
        GatedSerial.release.set()
        assert wait_until(lambda: not link.connected, 1.0), "the link did not notice the port hung up"
        emulator.replug()
        assert wait_until(lambda: link.core.synced and emulator.chain() == WANTED, 2.0)
        reasons = [e.reason for e in list(link.events.queue) if isinstance(e, Disconnected)]
        assert reasons and "Input/output error" in reasons[0]
    finally:
        GatedSerial.release.set()
        link.close()
        emulator.close()
