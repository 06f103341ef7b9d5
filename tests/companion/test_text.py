"""Text as data (issue 16, point 2): a record keeps its message key and fields beside its English, and
the game file keeps them; a record of an older file has none and is its English."""

from __future__ import annotations

from pathlib import Path

from companion.engine import Record, RecordKind, Session
from companion.text import Text, message_of, say


def test_a_text_is_its_english_and_keeps_key_and_fields() -> None:
    text = say("{name} rolls {dice}", name="Aiko", dice=say("{n} dice", n=3))
    assert text == "Aiko rolls 3 dice" and isinstance(text, str)
    assert text.key == "{name} rolls {dice}" and text.fields["dice"].key == "{n} dice"
    again = Text.from_json(text.to_json())
    assert again == text and again.to_json() == text.to_json()
    assert message_of("plain English") is None


def test_undo_and_redo_records_keep_what_they_undid_as_a_message(tmp_path: Path) -> None:
    import counter_game

    from store.gamelog import GameFile, Header

    session: Session[object] = Session(counter_game.Counter(goal=100), {"start": 0})
    path = tmp_path / "count.fujikoro-game"
    file = GameFile.create(path, Header("counter", "1", {"start": 0}, {"goal": 100}))
    session.journal = file
    session.do({"type": "add", "n": 4})
    session.undo()
    session.redo()
    undo, redo = session.records[1], session.records[2]
    assert undo.description == "Undo: add 4" and undo.message == {"key": "Undo: {what}", "fields": {"what": "add 4"}}
    assert isinstance(redo.text, Text) and redo.text.key == "Redo: {what}"
    file.close()
    with GameFile.open(path) as reopened:
        stored = reopened.records()
    assert [r.message for r in stored] == [None, undo.message, redo.message]
    assert Record.from_json(redo.to_json()) == redo
    plain = Record(1, RecordKind.COMMAND, {"type": "add", "n": 1}, "add 1")
    assert plain.text == "add 1" and not isinstance(plain.text, Text)
