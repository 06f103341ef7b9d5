"""The tablet's result payload for the convention hub, built from a real finished session."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from companion.engine import Session
from games.fujikoro.pack import default_pack
from games.fujikoro.rules import FujiKoro
from store.gamelog import GameFile, Header
from ui.convention import game_uuid, result_payload


def finished_game() -> Session[Any]:
    session: Session[Any] = Session(FujiKoro(default_pack()), {"players": [
        {"name": "Aiko", "colour": "red"}, {"name": "Botan", "colour": "blue"}]})
    session.do({"type": "vp", "player": "Botan", "points": 3, "category": "scrolls"})
    session.do({"type": "action", "action": "explore", "level": 3})  # Aiko +2 explored
    session.do({"type": "vp", "player": "Aiko", "points": 28, "category": "dragons"})
    session.do({"type": "vp", "player": "Botan", "points": -1, "reason": "miscounted"})
    while not session.is_over:
        session.do({"type": "end_turn"})
    return session


def _game_file(folder: Path, name: str = "2026-11-23_0900.fujikoro-game") -> Path:
    path = folder / name
    GameFile.create(path, Header("fujikoro", "test", {"players": []})).close()
    return path


def test_ui_result_payload_is_the_games_own_result(tmp_path: Path) -> None:
    """Schema 2: the game's categories and tie-break value as the game scored them (issue 16)."""
    session = finished_game()
    result = session.game.result(session.state)
    assert result is not None
    path = _game_file(tmp_path)
    payload = result_payload(result, "fujikoro", str(path), seq=session.state_id)
    assert payload["schema_version"] == 2 and payload["game"] == "fujikoro" and payload["variant"] is None
    lines = {line["name"]: line for line in payload["players"]}
    assert lines["Aiko"]["scores"]["explore_level_3"] == 2 and lines["Aiko"]["scores"]["dragons"] == 28
    assert lines["Aiko"]["total"] == 30 and lines["Aiko"]["rank"] == 1 and lines["Aiko"]["tiebreak"] is None
    assert lines["Botan"]["scores"]["scrolls"] == 3 and lines["Botan"]["scores"]["correction"] == -1
    assert lines["Botan"]["rank"] == 2
    assert payload["game_id"] == str(game_uuid(str(path)))  # the same game always sends the same id
    assert payload["seq"] == session.state_id
    assert session.state_json()["round"] > 1 and "round" not in payload  # never an event round


def test_ui_two_tablets_starting_in_the_same_minute_send_different_game_ids(tmp_path: Path) -> None:
    """Issue 14: the id came from the file name (YYYY-MM-DD_HHMM), so two tables that started a game in the
    same minute sent the same id and the second was refused for good. Now each game file carries its own
    random id."""
    first = _game_file(tmp_path / "tablet-1")
    second = _game_file(tmp_path / "tablet-2")
    assert first.name == second.name
    assert game_uuid(str(first)) != game_uuid(str(second))
    assert game_uuid(str(first)) == game_uuid(str(first))


def test_ui_an_old_game_file_gets_its_id_on_first_send(tmp_path: Path) -> None:
    path = _game_file(tmp_path)
    with sqlite3.connect(path) as conn:  # a file written before game ids existed
        conn.execute("DELETE FROM meta WHERE key = 'game_id'")
    first = game_uuid(str(path))
    assert game_uuid(str(path)) == first  # kept in the file from then on
    with GameFile.open(path) as game:
        assert game.header.game == "fujikoro" and game.game_id() == str(first)
