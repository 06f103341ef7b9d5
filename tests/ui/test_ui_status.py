"""Quitting closes the table (no window: the status bar's model and the app's workers, as ``on_stop`` uses them).

The emulated table is the real firmware on a pty whose link lives in a folder of its own; a table left open when
the app quits leaves that folder behind, one per run of the app.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kivy.clock import Clock

from ui import hardware
from ui.settings import Settings
from ui.viewmodels.status import StatusModel
from ui.worker import Worker


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """The tables the status model opens (the real emulated table), in order."""
    tables: list[Any] = []
    connect = hardware.connect

    def recording(*args: Any) -> Any:
        table = connect(*args)
        tables.append(table)
        return table

    monkeypatch.setattr(hardware, "connect", recording)
    yield tables
    for table in tables:  # what a failed test left open: closed here, so no folder outlives the test run
        if _folder(table).exists():
            table.close()


def _folder(table: Any) -> Path:
    folder = table.scratch_dir
    assert isinstance(folder, Path)
    return folder


def test_quitting_while_the_table_opens_closes_it(opened: list[Any]) -> None:
    # The app quits (ShellApp.on_stop: status.stop(), then Worker.stop_all()) before the Kivy thread ever took the
    # table the devices thread opened: its hand-over is a Clock callback that no longer runs.
    model = StatusModel(Settings(hardware_url=hardware.EMULATOR))
    model.start()
    model.stop()
    Worker.stop_all()
    assert len(opened) == 1 and model.table is None
    assert not _folder(opened[0]).exists(), "the emulated table's pty folder outlived the app"


def test_a_second_start_lets_go_of_the_table_in_use_and_closes_it(opened: list[Any]) -> None:
    # The first table is up and in use when the model starts again: from then on nothing may reach that table.
    model = StatusModel(Settings(hardware_url=hardware.EMULATOR))
    model.start()
    deadline = time.monotonic() + 10.0
    while model.table is None and time.monotonic() < deadline:  # the hand-over on the Kivy thread
        Clock.tick()
        time.sleep(0.01)
    first = model.table
    assert first is not None and opened == [first]
    model.start()
    assert model.table is None, "the model still holds the table it is closing"
    model.stop()
    Worker.stop_all()
    assert not _folder(first).exists()


def test_a_second_start_closes_the_first_table(opened: list[Any]) -> None:
    # A start while an earlier table is still open (the Kivy thread never took the first): one table at a time.
    model = StatusModel(Settings(hardware_url=hardware.EMULATOR))
    model.start()
    model.start()
    model.stop()
    Worker.stop_all()
    assert len(opened) == 2
    assert not any(_folder(table).exists() for table in opened)


def test_stopping_the_workers_runs_the_jobs_already_queued() -> None:
    worker = Worker("test-queued")
    done: list[str] = []
    started = threading.Event()

    def slow() -> None:
        started.set()
        time.sleep(0.3)

    worker.submit(slow)
    worker.submit(lambda: done.append("closed"))
    started.wait(2.0)
    Worker.stop_all()
    assert done == ["closed"]
