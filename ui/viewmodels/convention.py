"""The Convention panel's model: join the hub's event with the Settings' address, event code and table
name, send every finished game through the durable outbox, show the send status.

Network and outbox work run on the "hub" worker thread (:class:`ui.convention.ConventionLink`); the
status is polled every few seconds while the app runs.
"""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, StringProperty

from ui.tr import tr
from ui.worker import Worker


class ConventionModel(EventDispatcher):  # type: ignore[misc]
    status_text = StringProperty("")
    joined = BooleanProperty(False)

    def __init__(self, game: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._game = game
        self._worker = Worker("hub", settle=False)
        self._link: Any = None
        self._sent: set[str] = set()
        #: Results handed to the hub worker whose send has not finished: till then the status says so, not the
        #: outbox's "all sent" from before the result was in it.
        self._sending = 0
        self._poll: Any = None
        game.bind(phase=self._on_phase)

    def configure(self, hub_url: str, event_code: str, table_name: str, join_secret: str = "") -> None:
        if not hub_url or not event_code:
            self.joined = False
            self.status_text = tr._("Not at a convention")
            return
        self.status_text = tr._("Joining the event...")

        def job() -> str:
            from ui.convention import ConventionLink

            if self._link is None:
                self._link = ConventionLink()
            return str(self._link.join(hub_url, event_code, table_name, join_secret))

        def done(where: str) -> None:
            self.joined = True
            self.status_text = tr.f("Joined {where}", where=where)
            if self._poll is None:
                self._poll = Clock.schedule_interval(lambda _dt: self.refresh(), 5.0)

        def failed(error: BaseException) -> None:
            self.joined = False
            self.status_text = tr.f("Could not join the hub: {error}", error=str(error))

        self._worker.submit(job, done, failed)

    def refresh(self) -> None:
        link = self._link
        if link is not None:
            self._worker.submit(link.status, self._show_status)

    def _show_status(self, label: str) -> None:
        if self._sending:
            self.status_text = tr._("Hub: sending the result...")
        else:
            self.status_text = tr.f("Hub: {status}", status=label)

    def _on_phase(self, _game: Any, phase: str) -> None:
        link = self._link
        path = self._game.path
        if phase != "ended" or link is None or not self.joined or path in self._sent:
            return
        open_game = self._game.open_game
        if open_game is None:
            return
        session = open_game.session
        result = session.game.result(session.state)  # the game's own result: its categories, its tie-break
        if result is None:
            return
        self._sent.add(path)
        game, seq, started = session.game.name, session.state_id, self._game.started_at

        def job() -> str:
            from ui.convention import result_payload

            return str(link.send_result(result_payload(result, game, path, seq=seq, started_at=started)))

        def sent(_key: str) -> None:
            self._sending -= 1
            self.refresh()

        def failed(error: BaseException) -> None:
            self._sending -= 1
            self.status_text = str(error)

        self._sending += 1
        self.status_text = tr._("Hub: sending the result...")
        self._worker.submit(job, sent, failed)

    def close(self) -> None:
        if self._poll is not None:
            self._poll.cancel()
        link, self._link = self._link, None
        if link is not None:
            self._worker.submit(link.close)
