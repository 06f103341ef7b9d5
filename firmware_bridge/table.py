"""The table as the app sees it: session events in, LEDs lit, device events out.

:class:`TableLights` folds companion events into the :class:`~firmware_bridge.view.TableView` and hands
the rendered LEDs to a link. :func:`connect_table` opens a real device by pyserial URL;
:func:`start_emulated_table` boots the emulator (the real firmware) on a pty and connects to it, which is
what the app and ``fujikoro demo`` use when no device is configured::

    from firmware_bridge.table import start_emulated_table
    table = start_emulated_table()
    table.handle_event(event, wait=1.0)   # companion.events.Event
    table.led_colours()                    # what the emulated WS2812 chain shows now
    print(table.picture_text())            # or table.picture_png() -> PNG bytes
    table.close()

Or :func:`open_table` with no URL (and no ``FUJIKORO_TABLE`` in the environment) for the emulator, a
URL such as ``/dev/ttyACM0`` for a real table.
"""

from __future__ import annotations

import os
import queue
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from companion.dice import Die
from companion.events import Event
from firmware_bridge import ledmap as ledmap_module
from firmware_bridge import render as render_module
from firmware_bridge.emulator import Emulator
from firmware_bridge.faults import FaultSpec
from firmware_bridge.ledmap import LedMap
from firmware_bridge.link import DeviceEvent, LinkError, SerialLink
from firmware_bridge.view import LedScript, LedState, PlayerLight

RGB = tuple[int, int, int]


class LedSink(Protocol):
    def set_leds(self, leds: LedState, state_id: int = -1) -> None: ...


class TableLights:
    """Turns session events into LED state with the game's script and sends it to ``sink`` (a SerialLink,
    or anything alike). Until a game hands in its script, :class:`~firmware_bridge.view.PlayerLight` runs."""

    def __init__(self, sink: LedSink, ledmap: LedMap, script: LedScript | None = None) -> None:
        self.sink = sink
        self.ledmap = ledmap
        self.script: LedScript = script or PlayerLight()
        self.view: Any = self.script.initial()
        self._lock = threading.Lock()

    def use(self, script: LedScript | None) -> None:
        """Run another game's script (None: no game's); the next event (a state reset) lights it."""
        with self._lock:
            self.script = script or PlayerLight()
            self.view = self.script.initial()

    def handle_event(self, event: Event) -> LedState:
        with self._lock:
            self.view = self.script.apply(self.view, event)
            leds = self.script.render(self.view, self.ledmap)
            self.sink.set_leds(leds, event.state_id)
        return leds

    def handle_events(self, events: Sequence[Event]) -> None:
        for event in events:
            self.handle_event(event)


class Table:
    """A connected table: lights plus the link (and the emulator when there is no real device)."""

    def __init__(self, link: SerialLink, ledmap: LedMap, script: LedScript | None = None,
                 emulator: Emulator | None = None) -> None:
        self.link = link
        self.ledmap = ledmap
        self.emulator = emulator
        self.lights = TableLights(link, ledmap, script)
        self.scratch_dir: Path | None = None

    @property
    def events(self) -> queue.Queue[DeviceEvent]:
        """Device events (buttons as commands, tray, dice rolls, errors, connects)."""
        return self.link.events

    def use(self, script: LedScript | None, dice: Mapping[str, Die] | None = None) -> None:
        """The open game's LED script and the dice its tray rolls (None: keep the dice)."""
        self.lights.use(script)
        if dice is not None:
            self.link.core.dice = dice

    def handle_event(self, event: Event, wait: float = 0.0) -> None:
        """Show a session event; with ``wait`` > 0, block until the device acknowledged it (or the time passes)."""
        self.lights.handle_event(event)
        if wait > 0:
            self.link.wait_synced(wait)

    def wait_synced(self, timeout: float = 2.0) -> bool:
        return self.link.wait_synced(timeout)

    def wanted_colours(self) -> tuple[RGB, ...]:
        leds = self.link.core.desired
        return tuple(leds.pixel(i) for i in range(self.ledmap.chain_length))

    def led_colours(self) -> tuple[RGB, ...]:
        """What the chain shows: the emulated WS2812s, or (real device) what it acknowledged last."""
        if self.emulator is not None:
            return self.emulator.chain()
        return self.wanted_colours() if self.link.core.synced else ()

    def player_colour(self) -> RGB:
        if self.emulator is not None:
            return self.emulator.player()
        r, g, b = self.link.core.desired.player
        return (r, g, b)

    def picture_png(self) -> bytes:
        return render_module.png(self.led_colours(), self.player_colour(), self.ledmap)

    def picture_text(self, colour: bool = False) -> str:
        return render_module.text(self.led_colours(), self.player_colour(), self.ledmap, colour=colour)

    def close(self) -> None:
        self.link.close()
        if self.emulator is not None:
            self.emulator.close()
        if self.scratch_dir is not None:
            shutil.rmtree(self.scratch_dir, ignore_errors=True)

    def __enter__(self) -> Table:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect_table(
    url: str,
    *,
    ledmap: LedMap | None = None,
    script: LedScript | None = None,
    dice: Mapping[str, Die] | None = None,
    expected_id: str | None = None,
    baudrate: int = 115200,
    on_event: Callable[[DeviceEvent], None] | None = None,
    connect_timeout: float = 0.0,
) -> Table:
    """A table on a real device (or any pyserial URL).

    The link keeps reconnecting in the background. With ``connect_timeout`` > 0 this waits that long
    for the device to answer and raises LinkError (naming the last problem) if it does not.
    """
    ledmap = ledmap or ledmap_module.configured()
    link = SerialLink(url, ledmap, dice=dice or {}, expected_id=expected_id, baudrate=baudrate,
                      on_event=on_event).start()
    if connect_timeout > 0:
        deadline = time.monotonic() + connect_timeout
        while not link.connected and time.monotonic() < deadline:
            time.sleep(0.01)
        if not link.connected:
            link.close()
            raise LinkError(f"no table answered on {url}: {link.last_error or 'no reply to HELLO'}")
    return Table(link, ledmap, script)


def start_emulated_table(
    *,
    ledmap: LedMap | None = None,
    script: LedScript | None = None,
    dice: Mapping[str, Die] | None = None,
    transport: str = "pty",
    baudrate: int | None = None,
    faults: FaultSpec | None = None,
    on_event: Callable[[DeviceEvent], None] | None = None,
    connect_timeout: float = 2.0,
) -> Table:
    """Boot the emulated table (the real firmware) on a pty (or ``transport="tcp"``) and connect to it."""
    ledmap = ledmap or ledmap_module.configured()
    emulator = Emulator(baudrate=baudrate, faults=faults, ledmap=dict(ledmap.raw))
    if transport == "tcp":
        url = f"socket://127.0.0.1:{emulator.serve_tcp(0)}"
    elif transport == "pty":
        link_path = Path(tempfile.mkdtemp(prefix="fujikoro-table-")) / "tty"
        url = emulator.serve_pty(link_path)
    else:
        emulator.close()
        raise ValueError(f"unknown transport {transport!r}; use 'pty' or 'tcp'")
    link = SerialLink(url, ledmap, dice=dice or {}, baudrate=baudrate or 115200, on_event=on_event).start()
    table = Table(link, ledmap, script, emulator)
    if transport == "pty":
        table.scratch_dir = link_path.parent
    table.wait_synced(connect_timeout)
    return table


def open_table(url: str | None = None, **options: Any) -> Table:
    """The configured table: ``url`` (or ``$FUJIKORO_TABLE``), else the emulated table (``"emulator"`` too)."""
    url = url or os.environ.get("FUJIKORO_TABLE") or "emulator"
    if url == "emulator":
        return start_emulated_table(**options)
    return connect_table(url, **options)
