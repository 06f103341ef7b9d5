"""The status bar's model and the table link: hardware connected (or simulated), camera there.

Opening the table (the emulated one by default) and probing the camera run on the "devices" worker
thread, so a port that hangs never freezes a frame. Session events go to the table's LEDs from the
same thread; the table's device events (buttons, dice tray, connect / disconnect) arrive on the link's
thread and are handed to the Kivy thread with ``Clock.schedule_once`` before anything else sees them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty

from ui import hardware
from ui.settings import Settings
from ui.tr import tr
from ui.worker import Worker


class StatusModel(EventDispatcher):  # type: ignore[misc]
    hardware_text = StringProperty("")
    hardware_ok = BooleanProperty(False)
    camera_text = StringProperty("")
    camera_ok = BooleanProperty(False)
    settings = ObjectProperty(None)
    table = ObjectProperty(None, allownone=True)

    __events__ = ("on_device_event",)

    def __init__(self, settings: Settings, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.settings = settings
        self._worker: Worker | None = None
        self._hardware_state = "none"
        self._camera_state = "none"
        self._generation = 0
        #: Tables the devices thread opened and has not closed (only that thread touches this list): a stop
        #: closes them all there, after any open still under way, whether or not the Kivy thread ever saw them.
        self._opened: list[Any] = []
        self._emulated = False
        self.table_parts: Any = None  # () -> (LED script, dice) of the hosted game, for the table
        self.initial_state: Any = None  # a callable giving the session's state event, for a fresh link
        tr.bind(language=lambda *_: self._relabel())
        self._relabel()

    # ---- lifecycle --------------------------------------------------------------------------
    def start(self) -> None:
        self._worker = self._worker or Worker("devices", settle=False)
        self._connect()

    def restart(self) -> None:
        self.stop()
        self._connect()

    def stop(self) -> None:
        self._generation += 1
        self._let_go()

    def _let_go(self) -> None:
        """No table is in use from now on; every one opened so far is closed on the devices thread, queued behind any
        open under way (a table whose hand-over to the Kivy thread never runs, on quitting, is closed too, and the
        emulated table's pty with it)."""
        self.table = None
        if self._worker is not None:
            self._worker.submit(self._close_opened)

    def _open(self, url: str, on_event: Any, script: Any, dice: Any) -> Any:  # the devices thread
        table = hardware.connect(url, on_event, script, dice)
        self._opened.append(table)
        return table

    def _close_opened(self) -> None:  # the devices thread
        while self._opened:
            self._opened.pop().close()

    def _connect(self) -> None:
        self._generation += 1
        generation = self._generation
        self._let_go()  # one table at a time: any earlier one is closed before another opens
        url = self.settings.hardware_url
        if url == hardware.NO_HARDWARE:
            self._hardware_state = "none"
        else:
            self._hardware_state = "connecting"
            if self._worker is not None:
                script, dice = self.table_parts() if self.table_parts is not None else (None, None)

                def on_event(event: Any) -> None:  # the link's thread
                    Clock.schedule_once(lambda _dt: self._device_event(generation, event), 0)

                self._worker.submit(lambda: self._open(url, on_event, script, dice),
                                    lambda table: self._connected(generation, table),
                                    lambda error: self._connect_failed(generation, error))
        camera = self.settings.camera
        if not camera:
            self._camera_state = "none"
        elif Path(camera).expanduser().is_dir():
            self._camera_state = "folder"
        else:
            self._camera_state = "probing"
            if self._worker is not None:
                self._worker.submit(lambda: hardware.probe_camera(camera), self._camera_probed)
        self._relabel()

    def _connected(self, generation: int, table: Any) -> None:
        if generation != self._generation:
            return  # opened for an earlier start: the stop or start after it closes it on the devices thread
        self.table = table
        self._emulated = getattr(table, "emulator", None) is not None
        self._hardware_state = "emulated" if self._emulated else "connected"
        self._relabel()
        if self.initial_state is not None:
            event = self.initial_state()
            if event is not None:
                self.forward(event)

    def _connect_failed(self, generation: int, error: BaseException) -> None:
        if generation == self._generation:
            self._hardware_state = "failed"
            self.failure = str(error)
            self._relabel()

    def _camera_probed(self, ok: bool) -> None:
        self._camera_state = "ready" if ok else "missing"
        self._relabel()

    # ---- events both ways -------------------------------------------------------------------
    def forward(self, event: Any) -> None:
        """A session event for the table's LEDs (sent from the devices thread)."""
        table = self.table
        if table is not None and self._worker is not None:
            self._worker.submit(lambda: table.handle_event(event))

    def _device_event(self, generation: int, event: Any) -> None:
        if generation != self._generation:
            return
        kind = type(event).__name__
        if kind == "Connected":
            self._hardware_state = "emulated" if self._emulated else "connected"
        elif kind == "Disconnected":
            self._hardware_state = "reconnecting"
        self._relabel()
        self.dispatch("on_device_event", event)

    def on_device_event(self, event: Any) -> None:
        pass

    # ---- labels -----------------------------------------------------------------------------
    def _relabel(self) -> None:
        state = self._hardware_state
        self.hardware_ok = state in ("connected", "emulated")
        self.hardware_text = {
            "none": tr._("No hardware"),
            "connecting": tr._("Connecting to the table..."),
            "emulated": tr._("Simulated table"),
            "connected": tr._("Table hardware connected"),
            "reconnecting": tr._("Table reconnecting..."),
        }.get(state, tr._("Table hardware not reachable"))
        camera = self._camera_state
        self.camera_ok = camera in {"ready", "folder"}
        self.camera_text = {
            "none": tr._("No camera"),
            "folder": tr._("Photos folder"),
            "probing": tr._("Camera..."),
            "ready": tr._("Camera ready"),
        }.get(camera, tr._("Camera not found"))
