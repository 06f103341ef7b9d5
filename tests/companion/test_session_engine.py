"""The generic session engine: undo/redo, the undo barrier, replay determinism, state ids, rejections."""

from __future__ import annotations

from typing import Any

import pytest
from counter_game import Counter, Tally
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import (
    CommandError,
    GameOverError,
    NothingToUndoError,
    Record,
    RecordKind,
    ReplayError,
    Session,
    StaleInputError,
    UndoBarrierError,
    parse_command,
)
from companion.events import Kind
from games.fujikoro.pack import default_pack
from games.fujikoro.rules import FujiKoro


def fuji(players: tuple[str, ...] = ("A", "B", "C"), **config: Any) -> Session[Any]:
    seeds = iter(range(1000, 100000))
    return Session(FujiKoro(default_pack()), {"players": list(players), **config}, new_seed=lambda: next(seeds))


# A tiny second game (tests/counter_game) proves the engine knows nothing of Fuji Koro.
class ListJournal:
    def __init__(self, fail: bool = False) -> None:
        self.records: list[Record] = []
        self.fail = fail

    def append(self, record: Record) -> None:
        if self.fail:
            raise OSError("disk full")
        self.records.append(record)


def test_a_generic_game_runs_with_undo_redo_and_events_carry_the_new_state_id() -> None:
    journal = ListJournal()
    session: Session[Tally] = Session(Counter(), {"start": 1}, journal=journal)
    applied = session.do({"type": "add", "n": 5})
    assert session.state == Tally(6)
    assert applied.record.seq == 1 and session.state_id == 1
    assert [(e.kind, e.state_id, dict(e.payload)) for e in applied.events] == [
        ("added", 1, {"n": 5, "total": 6, "goal": 100})]
    session.do({"type": "add", "n": 2})
    undo = session.undo()
    assert session.state == Tally(6) and undo.record.description == "Undo: add 2"
    assert undo.events[0].kind == Kind.STATE_RESET and undo.events[0].state_id == 3
    assert undo.events[0].payload["state"] == {"total": 6, "goal": 100, "phase": "playing"}
    session.redo()
    assert session.state == Tally(8)
    assert [r.kind for r in journal.records] == [
        RecordKind.COMMAND,
        RecordKind.COMMAND,
        RecordKind.UNDO,
        RecordKind.REDO,
    ]


def test_a_rejected_command_changes_nothing_and_is_not_logged() -> None:
    journal = ListJournal()
    session: Session[Tally] = Session(Counter(), {}, journal=journal)
    session.do({"type": "add", "n": 1})
    with pytest.raises(CommandError, match="positive"):
        session.do({"type": "add", "n": -1})
    assert session.state == Tally(1) and len(journal.records) == 1 and session.state_id == 1


def test_input_meant_for_an_older_state_is_refused_and_changes_nothing() -> None:
    """A tray roll or a button that answered state 1 must not be applied to state 2 (issue 16: stale tray
    dice were applied to a newer state)."""
    journal = ListJournal()
    session: Session[Tally] = Session(Counter(), {}, journal=journal)
    session.do({"type": "add", "n": 1}, expected_state_id=0)
    session.do({"type": "add", "n": 2})
    for stale in (lambda: session.do({"type": "add", "n": 5}, expected_state_id=1),
                  lambda: session.undo(expected_state_id=1)):
        with pytest.raises(StaleInputError, match="state 1.*state 2"):
            stale()
    assert session.state == Tally(3) and session.state_id == 2 and len(journal.records) == 2
    session.undo(expected_state_id=2)
    session.redo(expected_state_id=3)
    assert session.state == Tally(3)


def test_a_journal_failure_leaves_the_session_where_it_was() -> None:
    journal = ListJournal()
    session: Session[Tally] = Session(Counter(), {}, journal=journal)
    session.do({"type": "add", "n": 1})
    journal.fail = True
    with pytest.raises(OSError):
        session.do({"type": "add", "n": 4})
    with pytest.raises(OSError):
        session.undo()
    assert session.state == Tally(1) and session.state_id == 1 and session.undo_description() == "add 1"


def test_undo_and_redo_walk_the_log_and_a_new_command_clears_redo() -> None:
    s = fuji()
    s.do({"type": "vp", "player": "A", "points": 3, "reason": "scroll"})
    s.do({"type": "end_turn"})
    s.do({"type": "vp", "player": "B", "points": 2, "reason": "explore_level_3"})
    assert s.undo_description() == "B +2 VP (explore_level_3)"
    s.undo()
    s.undo()
    assert s.state_json()["current_player"] == "A" and s.state_json()["scores"] == {"A": 3, "B": 0, "C": 0}
    assert s.redo_description() == "End A's turn (round 1)"
    s.redo()
    assert s.state_json()["current_player"] == "B"
    s.do({"type": "end_turn"})
    with pytest.raises(NothingToUndoError):
        s.redo()
    s.undo()
    s.undo()
    s.undo()
    with pytest.raises(NothingToUndoError):
        s.undo()
    assert s.state_json()["scores"] == {"A": 0, "B": 0, "C": 0}


def test_undo_stops_at_an_app_roll_unless_forced_but_hand_dice_stay_undoable() -> None:
    s = fuji()
    s.do({"type": "roll", "dice": ["tooth", "tooth", "tooth"], "purpose": "Dragon green_1"})
    record = s.records[-1]
    assert record.automated and isinstance(record.command, dict) and isinstance(record.command["seed"], int)
    assert record.description.startswith("Dragon green_1 rolls 3 dice:")
    assert s.undo_blocked()
    with pytest.raises(UndoBarrierError, match="roll the app made"):
        s.undo()
    assert s.state.last_roll is not None
    forced = s.undo(force=True)
    assert forced.record.forced and s.state.last_roll is None
    s.do({"type": "roll", "source": "hand", "faces": [["tooth", "3"], ["wood", "0b"]]})
    assert not s.records[-1].automated
    s.undo()
    assert s.state.last_roll is None


def test_a_barrier_is_named_as_the_game_names_it_and_an_app_roll_by_default() -> None:
    """Undo said "a roll the app made" of every barrier; a game that has barriers the players made (Shogun's
    tower throws) names them (NamesBarriers); a game that does not (the counter, Fuji Koro) keeps the app's roll."""

    class EnteredCounter(Counter):
        def is_automated_random(self, command: Any) -> bool:
            return bool(command["type"] == "add" and command.get("n") == 6)

        def barrier(self, command: Any) -> str:
            return "a throw the players entered"

    s: Session[Any] = Session(EnteredCounter(), {}, new_seed=lambda: 4)
    assert s.undo_barrier() is None
    s.do({"type": "add", "n": 6})
    assert s.undo_barrier() == "a throw the players entered"
    with pytest.raises(UndoBarrierError) as refused:
        s.undo()
    assert str(refused.value) == ("undo stops at a throw the players entered (add 6); force the undo to take it back")
    plain: Session[Any] = Session(Counter(), {}, new_seed=lambda: 4)
    plain.do({"type": "random"})
    assert plain.undo_barrier() == "a roll the app made"
    with pytest.raises(UndoBarrierError, match=r"^undo stops at a roll the app made \(random\)"):
        plain.undo()
    plain.undo(force=True)
    assert plain.undo_barrier() is None


def test_the_same_seed_gives_the_same_roll_on_replay() -> None:
    s = fuji()
    s.do({"type": "roll", "dice": ["metal"] * 6})
    replayed = Session.replay(s.game, s.config, s.records)
    assert replayed.state.last_roll == s.state.last_roll


def test_commands_after_the_end_are_refused_but_undo_works() -> None:
    s = fuji()
    s.do({"type": "end_game", "reason": "out of time"})
    with pytest.raises(GameOverError):
        s.do({"type": "end_turn"})
    s.undo()
    s.do({"type": "end_turn"})


def test_parse_command_rejects_non_objects() -> None:
    assert parse_command('{"type": "end_turn"}') == {"type": "end_turn"}
    for text in ("nope", "[1]", '{"points": 3}'):
        with pytest.raises(CommandError):
            parse_command(text)


def test_replay_refuses_a_log_with_a_gap_or_a_command_that_no_longer_applies() -> None:
    s = fuji()
    s.do({"type": "end_turn"})
    bad = Record(2, RecordKind.COMMAND, {"type": "vp", "player": "Nobody", "points": 1}, "x")
    with pytest.raises(ReplayError, match="no longer applies"):
        Session.replay(s.game, s.config, [*s.records, bad])
    with pytest.raises(ReplayError, match="gap"):
        Session.replay(s.game, s.config, [Record(2, RecordKind.COMMAND, {"type": "end_turn"}, "x")])
    with pytest.raises(ReplayError, match="undoes nothing"):
        Session.replay(s.game, s.config, [Record(1, RecordKind.UNDO, None, "x")])


_COMMANDS = st.sampled_from(
    [
        {"type": "end_turn"},
        {"type": "vp", "player": "A", "points": 3, "reason": "scroll"},
        {"type": "vp", "player": "B", "points": 7, "reason": "dragon"},
        {"type": "vp", "player": "C", "points": -2, "reason": "miscounted"},
        {"type": "action", "action": "move"},
        {"type": "action", "action": "explore", "level": 3},
        {"type": "action", "action": "rest"},
        {"type": "roll", "dice": ["tooth", "metal"]},
        {"type": "escape", "via": "secret_exit", "tokens": {"helmet": 1, "monks": 2}},
        {"type": "shogun_bonus", "track": "helmet"},
        {"type": "dragon_defeated", "dragon": "red_1", "players": ["A", "C"]},
        {"type": "undo"},
        {"type": "undo!"},
        {"type": "redo"},
    ]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_COMMANDS, max_size=80))
def test_replaying_any_log_rebuilds_the_state_exactly(commands: list[dict[str, Any]]) -> None:
    s = fuji()
    for command in commands:
        try:
            if command["type"] == "undo":
                s.undo()
            elif command["type"] == "undo!":
                s.undo(force=True)
            elif command["type"] == "redo":
                s.redo()
            else:
                s.do(command)
        except CommandError:
            pass
    replayed = Session.replay(s.game, s.config, s.records)
    assert replayed.state == s.state
    assert replayed.state_json() == s.state_json()
    assert replayed.state_id == s.state_id
    assert replayed.undo_description() == s.undo_description()
    assert replayed.redo_description() == s.redo_description()
