"""Background work for the app: the UI thread never waits on a disk, a port, a camera or the odds.

A :class:`Worker` is one daemon thread with a queue. ``submit(fn, done=..., failed=...)`` runs ``fn``
there and hands the result to ``done`` on the Kivy thread via ``Clock.schedule_once``; callbacks never
run on the worker, so they may touch widgets and properties. Jobs of one worker run in order, which
keeps game commands in the order they were tapped. ``pending`` counts jobs not yet delivered, so the
test driver can wait until the app is idle.
"""

from __future__ import annotations

import queue
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from kivy.clock import Clock

#: How long quitting waits for the workers' queued jobs (closing the table, saving) before the app exits anyway: longer
#: than opening the emulated table may take (ui.hardware.connect), so a quit while it opens still closes it.
STOP_WAIT = 5.0

Done = Callable[[Any], None]
Failed = Callable[[BaseException], None]


class Worker:
    _all: list[Worker] = []

    def __init__(self, name: str, *, settle: bool = True) -> None:
        self.name = name
        self.settle = settle  # counted by total_pending (the test driver waits for it); odds are not
        self._queue: queue.Queue[tuple[Callable[[], Any], Done | None, Failed | None] | None] = queue.Queue()
        self._lock = threading.Lock()
        self._pending = 0
        self._thread = threading.Thread(target=self._run, name=f"fujikoro-{name}", daemon=True)
        self._thread.start()
        Worker._all.append(self)

    @property
    def pending(self) -> int:
        with self._lock:
            return self._pending

    def submit(self, fn: Callable[[], Any], done: Done | None = None, failed: Failed | None = None) -> None:
        with self._lock:
            self._pending += 1
        self._queue.put((fn, done, failed))

    def stop(self) -> None:
        self._queue.put(None)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            fn, done, failed = item
            try:
                result = fn()
            except BaseException as error:  # noqa: BLE001 - handed to the UI thread to show
                if failed is None:
                    traceback.print_exc()
                self._deliver(failed, error)
            else:
                self._deliver(done, result)

    def _deliver(self, callback: Callable[[Any], None] | None, value: Any) -> None:
        def on_main(_dt: float) -> None:
            try:
                if callback is not None:
                    callback(value)
            finally:
                with self._lock:
                    self._pending -= 1

        Clock.schedule_once(on_main, 0)

    @classmethod
    def total_pending(cls) -> int:
        return sum(w.pending for w in cls._all if w.settle)

    @classmethod
    def stop_all(cls, wait: float = STOP_WAIT) -> None:
        """Stops every worker after the jobs already queued (a table's close among them), waiting up to ``wait``
        seconds in all for them: the threads are daemons, so what is still queued when the app quits is lost."""
        workers, cls._all = cls._all, []
        for worker in workers:
            worker.stop()
        deadline = time.monotonic() + wait
        for worker in workers:
            if worker._thread is not threading.current_thread():
                worker._thread.join(max(0.0, deadline - time.monotonic()))
