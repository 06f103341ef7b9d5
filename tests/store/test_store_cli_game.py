"""The ``fujikoro game`` contract: new, do, state, undo, redo, log, export, import over a real game file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ui.cli.main import main


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUJIKORO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("FUJIKORO_CONFIG_DIR", str(tmp_path / "config"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    try:
        parsed: Any = json.loads(out) if out.strip() else None
    except json.JSONDecodeError:
        parsed = out
    return code, parsed, err


MOVE = '{"type": "action", "action": "move"}'
REST = '{"type": "action", "action": "rest"}'
END_TURN = '{"type": "end_turn"}'


def play_turn(capsys: pytest.CaptureFixture[str], *db: str) -> int:
    """A turn as the rulebook has it (EN p.4): two actions (a Move, then a Rest that takes the disc back,
    EN p.7), then End turn. Returns End turn's exit status (2 once the game has ended)."""
    for command in (MOVE, REST, END_TURN):
        code, _, _ = run(capsys, "game", "do", *db, command)
        if code:
            return code
    return 0


def test_the_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "game.db")
    code, state, _ = run(capsys, "game", "new", "--db", db, "--players", "A,B,C")
    assert code == 0 and state["phase"] == "playing" and state["current_player"] == "A"
    assert state["scores"] == {"A": 0, "B": 0, "C": 0} and state["round"] == 1
    assert state["countdown"]["active"] is False and state["countdown"]["position"] is None
    assert state["setup_checklist"]

    # A gathers and takes the scroll's VP with that Gather (EN p.6), then moves: two actions (EN p.4)
    code, ack, _ = run(capsys, "game", "do", "--db", db, '{"type": "action", "action": "gather"}')
    assert code == 0 and ack == {"seq": 1, "description": "A: gather"}
    code, ack, _ = run(
        capsys, "game", "do", "--db", db, '{"type": "vp", "player": "A", "points": 3, "reason": "scroll"}'
    )
    assert code == 0 and ack == {"seq": 2, "description": "A +3 VP (scroll)"}
    code, ack, _ = run(capsys, "game", "do", "--db", db, MOVE)
    code, ack, _ = run(capsys, "game", "do", "--db", db, END_TURN)
    assert ack["seq"] == 4
    code, state, _ = run(capsys, "game", "state", "--db", db)
    assert state["current_player"] == "B" and state["scores"]["A"] == 3

    code, ack, _ = run(capsys, "game", "undo", "--db", db)
    assert code == 0 and ack == {"seq": 5, "description": "Undo: End A's turn (round 1)"}
    code, ack, _ = run(capsys, "game", "redo", "--db", db)
    assert ack == {"seq": 6, "description": "Redo: End A's turn (round 1)"}
    code, log, _ = run(capsys, "game", "log", "--db", db)
    assert [r["kind"] for r in log] == ["command", "command", "command", "command", "undo", "redo"]


@pytest.mark.parametrize(
    "command",
    ['{"type": "vp", "player": "Z", "points": 3, "reason": "scroll"}', "not json", '{"type": "fly"}', "[]"],
)
def test_an_invalid_command_exits_2_with_one_line_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    db = str(tmp_path / "game.db")
    run(capsys, "game", "new", "--db", db, "--players", "A,B")
    _, before, _ = run(capsys, "game", "state", "--db", db)
    code, out, err = run(capsys, "game", "do", "--db", db, command)
    assert code == 2 and out is None and len(err.strip().splitlines()) == 1
    _, after, _ = run(capsys, "game", "state", "--db", db)
    assert after == before


def test_after_the_end_every_command_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "game.db")
    run(capsys, "game", "new", "--db", db, "--players", "A,B")
    run(capsys, "game", "do", "--db", db, '{"type": "vp", "player": "B", "points": 30, "reason": "dragons"}')
    for _ in range(40):
        if play_turn(capsys, "--db", db) == 2:
            break
    _, state, _ = run(capsys, "game", "state", "--db", db)
    assert state["phase"] == "ended" and state["countdown"]["position"] == 8
    code, _, err = run(
        capsys, "game", "do", "--db", db, '{"type": "vp", "player": "A", "points": 1, "reason": "scroll"}'
    )
    assert code == 2 and "ended" in err
    _, after, _ = run(capsys, "game", "state", "--db", db)
    assert after["state_id"] == state["state_id"]


def test_without_db_new_goes_to_the_data_dir_and_the_rest_resume_the_last_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "game", "state")
    assert code == 2 and "no saved game" in err
    code, state, _ = run(capsys, "game", "new", "--players", "Ann,Bo", "--mode", "coop", "--adventure-tokens")
    assert code == 0 and Path(state["db"]).parent == tmp_path / "data" / "games"
    assert state["countdown"]["rounds_left"] == 18
    assert play_turn(capsys) == 0
    _, state, _ = run(capsys, "game", "state")
    assert state["current_player"] == "Bo"


def test_a_bad_setup_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "game", "new", "--db", str(tmp_path / "g.db"), "--players", "A", "--scenario", "2")
    assert code == 2 and "2 to 6 players" in err and not (tmp_path / "g.db").exists()


def test_export_import_bgstats_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "game.db")
    run(capsys, "game", "new", "--db", db, "--players", "A,B", "--colours", "red,blue")
    # a dragon's VP may be given to any samurai who fought it (a scroll's only with one's own Gather)
    run(capsys, "game", "do", "--db", db, '{"type": "vp", "player": "B", "points": 4, "reason": "dragons"}')
    code, _, err = run(capsys, "game", "export", "--db", db, "--format", "bgstats")
    assert code == 2 and "finished" in err
    run(capsys, "game", "do", "--db", db, '{"type": "end_game", "reason": "late"}')
    code, out, _ = run(capsys, "game", "export", "--db", db, "--format", "bgstats")
    assert out["link"].startswith("bgstats://app.bgstatsapp.com/createPlay.html?data=")
    assert [p["winner"] for p in out["play"]["players"]] == [False, True]
    code, out, _ = run(capsys, "game", "export", "--db", db, "--format", "csv")
    assert out.splitlines()[1].startswith("1,B,blue,1,0,4")
    export = tmp_path / "game.jsonl"
    run(capsys, "game", "export", "--db", db, "--out", str(export))
    copy = str(tmp_path / "copy.db")
    code, out, _ = run(capsys, "game", "import", str(export), "--db", copy)
    assert code == 0 and out["records"] == 2 and out["phase"] == "ended"


def test_the_console_script_exits_2_for_a_bad_command(tmp_path: Path) -> None:
    db = str(tmp_path / "game.db")
    subprocess.run(
        [sys.executable, "-m", "ui.cli", "game", "new", "--db", db, "--players", "A,B"], check=True, capture_output=True
    )
    done = subprocess.run(
        [sys.executable, "-m", "ui.cli", "game", "do", "--db", db, '{"type": "nope"}'], capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.strip().splitlines()) == 1
