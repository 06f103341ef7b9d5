"""The Convention panel's send status while a finished game's result is on its way (no window: the panel's model,
its real "hub" worker thread and a real outbox file; no hub is contacted, the sender's part is done by hand).

The race this pins: the status poll asks the outbox on the worker thread and shows the answer later, on the Kivy
thread. A poll that asked just before the game ended brought back "all sent", from before the result was in the
outbox, and the panel showed it over the result still being sent (the convention UI test waited for that label,
quit before the send and failed once in CI).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.properties import NumericProperty, ObjectProperty, StringProperty

import ui.convention
from tests.ui.test_ui_convention import _game_file, finished_game
from ui.convention import ConventionLink
from ui.viewmodels.convention import ConventionModel
from ui.worker import Worker

SENDING = "Hub: sending the result..."


class _Game(EventDispatcher):  # type: ignore[misc]
    """What the panel's model reads of the app's game model (ui.viewmodels.game.GameModel)."""

    phase = StringProperty("playing")
    open_game = ObjectProperty(None, allownone=True)
    started_at = NumericProperty(0.0)

    def __init__(self, path: str, session: Any) -> None:
        super().__init__()
        self.path = path
        self.open_game = type("OpenGame", (), {"session": session})()


class _Link(ConventionLink):
    """The app's link over a real outbox file, joined without a hub, whose hand-over of a result to the outbox
    waits until the test lets it go; it counts the status questions it has answered."""

    def __init__(self, outbox_path: Path) -> None:
        super().__init__(outbox_path)
        self.release = threading.Event()
        self.answered = 0

    def join(self, hub_url: str, event_code: str, table_name: str, join_secret: str = "") -> str:
        return f"{event_code} / {table_name}"

    def send_result(self, payload: Any) -> str:
        assert self.release.wait(10.0), "the test never let the result go"
        return super().send_result(payload)

    def status(self) -> str:
        label = super().status()
        self.answered += 1
        return label


@pytest.fixture
def link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[_Link]:
    made = _Link(tmp_path / "outbox.sqlite")
    monkeypatch.setattr(ui.convention, "ConventionLink", lambda: made)
    yield made
    made.release.set()
    made.close()


def _until(what: Callable[[], bool], timeout: float = 10.0) -> None:
    """Runs the Kivy clock (the workers' answers arrive through it) until ``what`` holds."""
    deadline = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < deadline, "timed out"
        Clock.tick()
        time.sleep(0.005)


def test_a_status_asked_before_the_game_ended_does_not_show_all_sent_over_the_result_being_sent(
        link: _Link, tmp_path: Path) -> None:
    game = _Game(str(_game_file(tmp_path)), finished_game())
    model = ConventionModel(game)
    try:
        model.configure("http://hub.example", "EVENT1", "Table 3")
        _until(lambda: model.joined)
        assert model.status_text == "Joined EVENT1 / Table 3"

        model.refresh()  # the poll asks the outbox (still empty) ...
        deadline = time.monotonic() + 10.0
        while link.answered < 1:  # ... and the worker has answered, but the answer has not reached the panel
            assert time.monotonic() < deadline, "the status was never asked"
            time.sleep(0.005)
        game.phase = "ended"  # the game ends before that answer is shown
        assert model.status_text == SENDING

        Clock.tick()
        time.sleep(0.05)
        Clock.tick()  # the stale "all sent" arrives: the result is still being handed to the outbox
        assert model.status_text == SENDING

        link.release.set()
        _until(lambda: model.status_text != SENDING)
        assert model.status_text == "Hub: 1 waiting to send"  # in the outbox; no sender runs here
        (message,) = link.outbox.messages()
        assert message.body["game"] == "fujikoro"

        link.outbox.mark_sent(message.id)  # what the sender thread does once the hub took it
        model.refresh()
        _until(lambda: model.status_text == "Hub: all sent")
    finally:
        model.close()
        Worker.stop_all()
