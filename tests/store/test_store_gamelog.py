"""The game file: create, open, append, conflicts, JSON-lines export/import, BG Stats and CSV, last game."""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import time
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from companion.engine import CommandError, Record, RecordKind, ReplayError
from games.fujikoro.pack import default_pack
from games.fujikoro.rules import GAME_NAME, game_from_pack_raw
from store.export import bgstats_link, bgstats_play, result_csv
from store.gamelog import ConflictError, GameFile, Header, StoreError, parse_lines
from store.games import last_game, list_games, new_game_path
from store.sessions import import_session, new_session, open_session

FACTORIES: dict[str, Any] = {GAME_NAME: lambda header: game_from_pack_raw(header.data.get("pack"))}


def header(players: tuple[str, ...] = ("A", "B"), **config: Any) -> Header:
    pack = default_pack()
    return Header(GAME_NAME, pack.version, {"players": list(players), **config}, {"pack": pack.raw})


def test_a_new_game_file_is_wal_with_full_sync_and_replays_on_open(tmp_path: Path) -> None:
    db = tmp_path / "g.fujikoro-game"
    file, session = new_session(db, header(), FACTORIES)
    with file:
        session.do({"type": "vp", "player": "A", "points": 3, "reason": "scroll"})
        session.do({"type": "roll", "dice": ["tooth"]})
        session.do({"type": "end_turn"})
        session.undo()
        assert file._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert file._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        expected = session.state
    file, reopened = open_session(db, FACTORIES)
    with file:
        assert reopened.state == expected and reopened.state_id == 4
        assert file.header.version == default_pack().version and file.header.data["pack"]["meta"]["version"]
        roll = file.records()[1]
        assert roll.automated and roll.command is not None and isinstance(roll.command["seed"], int)
        reopened.do({"type": "end_turn"})
        assert file.last_seq == 5


def test_creating_never_overwrites_and_a_bad_setup_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "g.fujikoro-game"
    new_session(db, header(), FACTORIES)[0].close()
    with pytest.raises(StoreError, match="already exists"):
        new_session(db, header(), FACTORIES)
    other = tmp_path / "bad.fujikoro-game"
    with pytest.raises(CommandError):
        new_session(other, header(("Solo",)), FACTORIES)
    assert not other.exists() and not list(tmp_path.glob(".*creating*"))


def test_a_second_writer_is_told_the_game_changed(tmp_path: Path) -> None:
    db = tmp_path / "g.fujikoro-game"
    new_session(db, header(), FACTORIES)[0].close()
    first_file, first = open_session(db, FACTORIES)
    second_file, second = open_session(db, FACTORIES)
    first.do({"type": "end_turn"})
    with pytest.raises(ConflictError, match="changed meanwhile"):
        second.do({"type": "end_turn"})
    assert second.state_id == 0
    first_file.close()
    second_file.close()


def test_opening_something_else_fails_with_one_clear_sentence(tmp_path: Path) -> None:
    junk = tmp_path / "junk.fujikoro-game"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a game file"):
        GameFile.open(junk)
    with pytest.raises(StoreError, match="no game file"):
        GameFile.open(tmp_path / "missing")
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()
    with pytest.raises(StoreError):
        GameFile.open(empty)


def finished_game(tmp_path: Path) -> Path:
    db = tmp_path / "done.fujikoro-game"
    file, s = new_session(db, header(("Ann", "Bo", "Cy"), start_player="Bo"), FACTORIES)
    with file:
        s.do({"type": "vp", "player": "Ann", "points": 12, "reason": "dragons"})
        s.do({"type": "vp", "player": "Cy", "points": 9, "reason": "scroll"})
        s.do({"type": "roll", "dice": ["metal", "metal"]})
        s.do({"type": "end_game", "reason": "we ran out of time"})
    return db


def test_jsonl_export_and_import_round_trip(tmp_path: Path) -> None:
    db = finished_game(tmp_path)
    with GameFile.open(db) as file:
        lines = list(file.export_lines())
    assert json.loads(lines[0])["game"] == GAME_NAME and len(lines) == 5
    header_, stamped = parse_lines(lines)
    copy = tmp_path / "copy.fujikoro-game"
    file, session = import_session(copy, header_, stamped, FACTORIES)
    with file:
        _, original = open_session(db, FACTORIES)
        assert session.state == original.state
        assert [s.at for s in file.stamped()] == [s.at for s in stamped]


def test_import_refuses_a_tampered_or_broken_log(tmp_path: Path) -> None:
    db = finished_game(tmp_path)
    with GameFile.open(db) as file:
        lines = list(file.export_lines())
    record = json.loads(lines[1])
    record["command"]["player"] = "Nobody"
    with pytest.raises(ReplayError, match="no longer applies"):
        import_session(tmp_path / "x.fujikoro-game", *parse_lines([lines[0], json.dumps(record)]), FACTORIES)
    with pytest.raises(StoreError, match="gap"):
        parse_lines([lines[0], lines[2]])
    with pytest.raises(StoreError, match="not JSON"):
        parse_lines([lines[0], "{oops"])
    assert not (tmp_path / "x.fujikoro-game").exists()


def test_bgstats_link_and_csv_of_a_finished_game(tmp_path: Path) -> None:
    db = finished_game(tmp_path)
    file, session = open_session(db, FACTORIES)
    with file:
        result = session.game.result(session.state)
        assert result is not None
        play = bgstats_play(result, started=file.header.created_at, finished=file.stamped()[-1].at, play_id="g1")
    link = bgstats_link(play)
    prefix = "bgstats://app.bgstatsapp.com/createPlay.html?data="
    assert link.startswith(prefix)
    decoded = json.loads(urllib.parse.unquote(link[len(prefix) :]))
    assert decoded == play
    assert decoded["game"]["bggId"] == 253743 and decoded["sourceName"]
    players = {p["name"]: p for p in decoded["players"]}
    assert players["Ann"]["winner"] and players["Ann"]["score"] == 12 and players["Ann"]["rank"] == 1
    assert players["Bo"]["startPlayer"] and not players["Bo"]["winner"] and players["Bo"]["rank"] == 3
    rows = list(csv.DictReader(io.StringIO(result_csv(result))))
    assert [r["player"] for r in rows] == ["Ann", "Cy", "Bo"]
    assert rows[0]["dragons"] == "12" and rows[1]["scrolls"] == "9" and rows[0]["winner"] == "1"


def test_last_game_is_the_one_written_most_recently(tmp_path: Path) -> None:
    games = tmp_path / "games"
    first = new_game_path(games, now=1_000_000)
    new_session(first, header(), FACTORIES)[0].close()
    second = new_game_path(games, now=1_000_000)
    assert second != first
    new_session(second, header(), FACTORIES)[0].close()
    old = time.time() - 3600
    os.utime(second, (old, old))
    file, session = open_session(first, FACTORIES)
    with file:
        session.do({"type": "end_turn"})
    assert last_game(games) == first and set(list_games(games)) == {first, second}
    assert last_game(tmp_path / "nothing") is None


def test_records_round_trip_through_json() -> None:
    record = Record(3, RecordKind.COMMAND, {"type": "end_turn"}, "End A's turn", automated=False)
    assert Record.from_json(record.to_json()) == record
    with pytest.raises(ReplayError):
        Record.from_json({"seq": 0, "kind": "command"})
