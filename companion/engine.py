"""The generic session engine: a game is a module, the session is its command log.

Knows nothing of Fuji Koro. A :class:`Game` turns a setup into an initial state and validates and
applies commands (plain JSON objects) to immutable states, emitting events. A :class:`Session` keeps
the log - commands, undos and redos, in the order they happened - and the stack of states it implies:

* ``do`` prepares a command (the game fills defaults and the seeds of rolls the app makes), applies
  it, hands the record to the journal (the durable store) and only then moves to the new state;
  a rejected command or a journal failure changes nothing.
* ``undo`` / ``redo`` walk the log like an editor's undo stack and are records themselves, so the log
  is append-only and a replay of it rebuilds the state exactly. Undo does not cross a barrier unless
  forced: a random roll the app made (a typo in hand-entered dice stays undoable), or what a game says
  cannot be made again (Shogun: a tower throw the players entered), named as the game names it
  (:class:`NamesBarriers`).
* Every state has an id (the sequence number of the record that produced it); every event carries it
  so a device answering an old state can be ignored.
"""

from __future__ import annotations

import enum
import json
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from companion.events import Event, Kind
from companion.text import Text, message_of, say

Command = Mapping[str, Any]
S = TypeVar("S")

LOG_FORMAT = 1


class CommandError(ValueError):
    """A command the rules reject; the message is one sentence naming the rule. Nothing changed."""


class UndoBarrierError(CommandError):
    """Undo would cross a barrier (a random roll the app made ...); pass ``force=True`` to undo it anyway."""


class NothingToUndoError(CommandError):
    """There is nothing (left) to undo or redo."""


class GameOverError(CommandError):
    """The game has ended: no more commands (undo still works)."""


class StaleInputError(CommandError):
    """Input that answered an older state than the game's (a tray roll or a button pressed while the
    table still showed the state before): refused, nothing changed."""


class ReplayError(ValueError):
    """A stored log does not replay: a record is malformed or a command no longer applies."""


class RecordKind(enum.StrEnum):
    COMMAND = "command"
    UNDO = "undo"
    REDO = "redo"


@dataclass(frozen=True, slots=True)
class Record:
    """One entry of the log. Undo/redo records name what they undid or redid in the description."""

    seq: int
    kind: RecordKind
    command: Mapping[str, Any] | None
    description: str
    automated: bool = False
    forced: bool = False
    #: The description as a message (key and fields, :mod:`companion.text`), for translation by key;
    #: None for plain English (records from files written before messages were kept).
    message: Mapping[str, Any] | None = None

    @property
    def text(self) -> str:
        """The description, as a :class:`~companion.text.Text` when the record kept its message."""
        if self.message is not None:
            try:
                return Text.from_json(self.message)
            except (ValueError, KeyError, IndexError):
                pass
        return self.description

    def to_json(self) -> dict[str, Any]:
        data = {
            "seq": self.seq,
            "kind": self.kind.value,
            "command": None if self.command is None else dict(self.command),
            "description": self.description,
            "automated": self.automated,
            "forced": self.forced,
        }
        if self.message is not None:
            data["message"] = dict(self.message)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Record:
        try:
            seq = data["seq"]
            kind = RecordKind(data["kind"])
            command = data.get("command")
            description = data.get("description", "")
        except (KeyError, ValueError, TypeError) as error:
            raise ReplayError(f"malformed log record {dict(data)!r}: {error}") from None
        if not isinstance(seq, int) or seq < 1:
            raise ReplayError(f"log record has a bad sequence number {seq!r}")
        if kind is RecordKind.COMMAND and not isinstance(command, dict):
            raise ReplayError(f"log record {seq} is a command without a command object")
        message = data.get("message")
        return cls(seq, kind, command, str(description), bool(data.get("automated")), bool(data.get("forced")),
                   dict(message) if isinstance(message, Mapping) else None)


@dataclass(frozen=True, slots=True)
class Outcome(Generic[S]):
    """What applying a command produced: the new state and the (kind, payload) of each event."""

    state: S
    events: tuple[tuple[str, Mapping[str, Any]], ...] = ()


@dataclass(frozen=True, slots=True)
class PlayerResult:
    name: str
    score: int
    rank: int
    winner: bool
    start_player: bool = False
    colour: str | None = None
    categories: Mapping[str, int] = field(default_factory=dict)
    #: The game's tie-break value (companion.results): higher wins a tie on score; None loses to any value.
    tiebreak: int | None = None


@dataclass(frozen=True, slots=True)
class Result:
    """A finished game, in the terms score sheets and BG Stats use."""

    game_name: str
    bgg_id: int | None
    cooperative: bool
    players: tuple[PlayerResult, ...]
    note: str = ""
    #: How this game was played, where a game has variants (Fuji Koro: "scenario 3"); None for the base game.
    variant: str | None = None


class Game(Protocol[S]):
    """A game module: its state type, commands and rules. All methods are pure."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str:
        """The version of the rules data the states depend on (stored with the log)."""
        ...

    def setup(self, config: Mapping[str, Any]) -> S:
        """The initial state; raises CommandError for a setup the rules do not allow."""
        ...

    def prepare(self, state: S, command: Command, new_seed: Callable[[], int]) -> dict[str, Any]:
        """The command as it will be logged: defaults filled in, seeds of app rolls drawn from new_seed."""
        ...

    def apply(self, state: S, command: Command) -> Outcome[S]:
        """Validate and apply a prepared command; raises CommandError and leaves nothing changed."""
        ...

    def describe(
        self, state: S, command: Command, events: Sequence[tuple[str, Mapping[str, Any]]] | None = None
    ) -> str:
        """One line for the log and for "Undo: ...", given the state before the command and the events
        applying it emitted (the session passes them, so nothing is applied twice)."""
        ...

    def is_automated_random(self, command: Command) -> bool:
        """Whether the command is an undo barrier: a random result the app produced, or one the table cannot
        produce again (the game names which with :class:`NamesBarriers`)."""
        ...

    def is_over(self, state: S) -> bool: ...

    def state_json(self, state: S) -> dict[str, Any]: ...

    def result(self, state: S) -> Result | None:
        """The finished game's result, or None while it is running."""
        ...


#: What undo stops at when the game does not name its barriers (:class:`NamesBarriers`).
APP_ROLL = "a roll the app made"


@runtime_checkable
class NamesBarriers(Protocol):
    """A game whose undo barriers are not all rolls the app made says what each one is: Shogun's tower throw
    is entered by the players from the physical tower (a barrier because it cannot be thrown again), its draws
    are the app's. Optional: a game without it has :data:`APP_ROLL` as every barrier."""

    def barrier(self, command: Command) -> str:
        """What a command that is an undo barrier is, as a noun phrase ("a roll the app made"); a message
        (:func:`companion.text.say`) lets the app show it in the players' language."""
        ...


class Journal(Protocol):
    """Where records go before the session moves on: ``append`` returns only once the record is durable."""

    def append(self, record: Record) -> None: ...


@dataclass(frozen=True, slots=True)
class Applied:
    """The answer to do/undo/redo: the record that was logged and the events to publish."""

    record: Record
    events: tuple[Event, ...]


def _default_seed() -> int:
    return random.SystemRandom().getrandbits(32)


class Session(Generic[S]):
    """A running game: the log, the stack of states it implies, and the redo stack."""

    def __init__(
        self,
        game: Game[S],
        config: Mapping[str, Any],
        *,
        journal: Journal | None = None,
        new_seed: Callable[[], int] | None = None,
    ) -> None:
        self.game = game
        self.config: Mapping[str, Any] = config
        self.journal = journal
        self._new_seed = new_seed or _default_seed
        self._states: list[S] = [game.setup(config)]
        self._done: list[Record] = []  # the command records behind each state above the first
        self._redo: list[Record] = []
        self._records: list[Record] = []

    # ---- reading --------------------------------------------------------------------------
    @property
    def state(self) -> S:
        return self._states[-1]

    @property
    def state_id(self) -> int:
        return len(self._records)

    @property
    def records(self) -> tuple[Record, ...]:
        return tuple(self._records)

    @property
    def is_over(self) -> bool:
        return self.game.is_over(self.state)

    def state_json(self) -> dict[str, Any]:
        data = self.game.state_json(self.state)
        data["state_id"] = self.state_id
        data["can_undo"] = self.undo_description()
        data["can_redo"] = self.redo_description()
        data["undo_needs_force"] = self.undo_blocked()
        return data

    def undo_description(self) -> str | None:
        """What undo would undo ("End Ann's turn"), or None when there is nothing to undo."""
        return self._done[-1].text if self._done else None

    def redo_description(self) -> str | None:
        return self._redo[-1].text if self._redo else None

    def undo_blocked(self) -> bool:
        """Whether undo needs force: the last command is an undo barrier (a random roll the app made ...)."""
        return bool(self._done) and self._done[-1].automated

    def undo_barrier(self) -> str | None:
        """What undo stops at, as the game names it ("a roll the app made"), or None when undo needs no force."""
        if not self.undo_blocked():
            return None
        command = self._done[-1].command
        if isinstance(self.game, NamesBarriers) and command is not None:
            return self.game.barrier(command)
        return APP_ROLL

    # ---- changing -------------------------------------------------------------------------
    def check_fresh(self, expected_state_id: int | None) -> None:
        """Refuse input that was meant for another state than the current one (None: no check)."""
        if expected_state_id is not None and expected_state_id != self.state_id:
            raise StaleInputError(
                f"this input answered state {expected_state_id}, but the game is at state {self.state_id} now; "
                "nothing was changed - look at the table and try again"
            )

    def do(self, command: Command, *, expected_state_id: int | None = None) -> Applied:
        """Validate, apply and log one command. Raises CommandError (nothing changes) if rejected, and
        :class:`StaleInputError` if ``expected_state_id`` is given and is not the current state's id."""
        self.check_fresh(expected_state_id)
        if not isinstance(command, Mapping) or not isinstance(command.get("type"), str):
            raise CommandError('a command is a JSON object with a "type", such as {"type": "end_turn"}')
        state = self.state
        if self.game.is_over(state):
            raise GameOverError("the game has ended, so no more commands are accepted (undo still works)")
        prepared = self.game.prepare(state, command, self._new_seed)
        outcome = self.game.apply(state, prepared)
        description = self.game.describe(state, prepared, outcome.events)
        record = Record(
            self.state_id + 1,
            RecordKind.COMMAND,
            prepared,
            description,
            automated=self.game.is_automated_random(prepared),
            message=message_of(description),
        )
        self._commit(record)
        self._states.append(outcome.state)
        self._done.append(record)
        self._redo.clear()
        return Applied(record, self._stamp(outcome.events, record.seq))

    def undo(self, *, force: bool = False, expected_state_id: int | None = None) -> Applied:
        self.check_fresh(expected_state_id)
        if not self._done:
            raise NothingToUndoError("there is nothing to undo")
        target = self._done[-1]
        if target.automated and not force:
            raise UndoBarrierError(
                f"undo stops at {self.undo_barrier()} ({target.description}); force the undo to take it back"
            )
        said = say("Undo: {what}", what=target.text)
        record = Record(self.state_id + 1, RecordKind.UNDO, None, said, forced=force, message=message_of(said))
        self._commit(record)
        self._states.pop()
        self._redo.append(self._done.pop())
        return Applied(record, self._reset_events(record.seq))

    def redo(self, *, expected_state_id: int | None = None) -> Applied:
        self.check_fresh(expected_state_id)
        if not self._redo:
            raise NothingToUndoError("there is nothing to redo")
        target = self._redo[-1]
        assert target.command is not None
        outcome = self.game.apply(self.state, target.command)
        said = say("Redo: {what}", what=target.text)
        record = Record(self.state_id + 1, RecordKind.REDO, None, said, message=message_of(said))
        self._commit(record)
        self._states.append(outcome.state)
        self._done.append(self._redo.pop())
        return Applied(record, self._reset_events(record.seq))

    def _commit(self, record: Record) -> None:
        if self.journal is not None:
            self.journal.append(record)
        self._records.append(record)

    def _stamp(self, events: Iterable[tuple[str, Mapping[str, Any]]], state_id: int) -> tuple[Event, ...]:
        return tuple(Event(kind, state_id, payload) for kind, payload in events)

    def _reset_events(self, state_id: int) -> tuple[Event, ...]:
        return (Event(Kind.STATE_RESET, state_id, {"state": self.game.state_json(self.state)}),)

    # ---- rebuilding -----------------------------------------------------------------------
    @classmethod
    def replay(
        cls,
        game: Game[S],
        config: Mapping[str, Any],
        records: Iterable[Record],
        *,
        journal: Journal | None = None,
        new_seed: Callable[[], int] | None = None,
    ) -> Session[S]:
        """Rebuild a session from its log; the journal is attached only after the replay."""
        session = cls(game, config, new_seed=new_seed)
        apply = game.apply
        for record in records:
            if record.seq != len(session._records) + 1:
                raise ReplayError(f"log record {record.seq} follows record {len(session._records)}: a gap")
            if record.kind is RecordKind.COMMAND:
                assert record.command is not None
                try:
                    outcome = apply(session._states[-1], record.command)
                except CommandError as error:
                    raise ReplayError(
                        f"log record {record.seq} ({record.description}) no longer applies: {error}"
                    ) from None
                session._states.append(outcome.state)
                session._done.append(record)
                session._redo.clear()
            elif record.kind is RecordKind.UNDO:
                if not session._done:
                    raise ReplayError(f"log record {record.seq} undoes nothing")
                session._states.pop()
                session._redo.append(session._done.pop())
            else:
                if not session._redo:
                    raise ReplayError(f"log record {record.seq} redoes nothing")
                target = session._redo[-1]
                assert target.command is not None
                session._states.append(apply(session._states[-1], target.command).state)
                session._done.append(session._redo.pop())
            session._records.append(record)
        session.journal = journal
        return session


def parse_command(text: str) -> dict[str, Any]:
    """A command typed as JSON text (the ``fujikoro game do`` argument)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise CommandError(f"the command is not valid JSON ({error.msg} at character {error.pos})") from None
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        raise CommandError('a command is a JSON object with a "type", such as {"type": "end_turn"}')
    return value


def history(records: Sequence[Record]) -> list[dict[str, Any]]:
    """The log as JSON objects, oldest first."""
    return [record.to_json() for record in records]
