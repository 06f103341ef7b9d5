"""Exact fight odds in a separate process, so the Markov chain never competes with the UI for the GIL.

The Kivy process sends the fight (``Fight.to_json()``) and the data pack it was started with (raw
TOML values, corrections included); a single worker process rebuilds them and runs
:func:`games.fujikoro.odds.exact_odds`. This module imports no Kivy: the ``spawn`` child imports only it
and ``companion``. :class:`OddsProcess` falls back to computing in the calling thread if a process
cannot be started (a restricted sandbox), which is still off the UI thread.
"""

from __future__ import annotations

import contextlib
import multiprocessing
from collections.abc import Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

_PACKS: dict[int, Any] = {}


def compute(fight_json: Mapping[str, Any], pack_raw: Mapping[str, Any], pack_key: int) -> dict[str, Any] | str:
    """The odds as JSON, or the reason there are none (a samurai fight) as text. Runs in the child."""
    from games.fujikoro.combat import Fight
    from games.fujikoro.odds import OddsError, exact_odds
    from games.fujikoro.pack import parse

    pack = _PACKS.get(pack_key)
    if pack is None:
        _PACKS.clear()
        pack = _PACKS[pack_key] = parse(pack_raw)
    try:
        return exact_odds(Fight.from_json(fight_json, pack), pack).to_json()
    except OddsError as error:
        return str(error)


def _lower_priority() -> None:
    """The odds may take seconds of CPU: the UI process (and the software renderer) always goes first.

    Also watches the app: if it dies without closing the pool (a crash, a flat battery, ``os._exit``),
    the worker would otherwise live on as an orphan holding the app's stdout and stderr open."""
    import os
    import threading
    import time

    # SCHED_IDLE: the odds run only on a core nobody else wants, so the renderer (Mesa's software
    # rasteriser on a Pi or under Xvfb) never waits for them; plain nice where Linux's policy is missing.
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        with contextlib.suppress(AttributeError, OSError):
            os.nice(19)
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="odds-parent-watch", daemon=True).start()


def _warm() -> bool:
    import games.fujikoro.odds  # noqa: F401 - imported once so the first real job is quick

    return True


class OddsProcess:
    """One long-lived worker process; ``submit`` returns a Future of :func:`compute`'s result."""

    def __init__(self) -> None:
        self._executor: ProcessPoolExecutor | None = None
        self._failed = False

    def start(self) -> None:
        if self._executor is None and not self._failed:
            try:
                self._executor = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                                     initializer=_lower_priority)
                self._executor.submit(_warm)
            except (OSError, ValueError):
                self._failed = True

    def run(self, fight_json: Mapping[str, Any], pack_raw: Mapping[str, Any], pack_key: int) -> dict[str, Any] | str:
        """Blocking: call it from a worker thread."""
        self.start()
        if self._executor is not None:
            try:
                future: Future[dict[str, Any] | str] = self._executor.submit(compute, fight_json, pack_raw, pack_key)
                return future.result()
            except Exception:  # noqa: BLE001 - a broken pool: compute here instead (still off the UI thread)
                self._failed = True
                self._executor = None
        return compute(fight_json, pack_raw, pack_key)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
