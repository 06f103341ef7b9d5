"""The scripted 4-player game through the command line (issue 17, "Done when": a whole game through the CLI):
``table-companion shogun game new|do|state|undo|log|export`` on a durable store file. The setup and a few
commands go through real subprocesses; the rest through ``ui.cli.main.main`` in-process (the same parser and
handlers). Spec sections are those of script.py's reckoning: battles and revolts 6.3-6.6, a cancelled action
4.6, winters 7.1-7.3, the end and the chests tie-break 8."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ui.cli.main import main

from .script import CONFIG, CORRECTIONS, FINAL_VP, WINNER, WINTER_1_VP, steps

REPO = Path(__file__).resolve().parents[3]


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    code = main(["shogun", "game", *args], prog="table-companion")
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 and out.strip().startswith(("{", "[")) else out), err


def _real(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ui.cli", "shogun", "game", *args], cwd=REPO, env=dict(os.environ),
                          capture_output=True, text=True, timeout=120, **kwargs)


def test_the_scripted_game_through_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "shogun.fujikoro-game"
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps(CONFIG), encoding="utf-8")
    corrections = tmp_path / "corrections.json"
    corrections.write_text(json.dumps(CORRECTIONS), encoding="utf-8")
    made = _real(["new", "--db", str(db), "--corrections", str(corrections), str(setup)])
    assert made.returncode == 0, made.stderr
    state = json.loads(made.stdout)
    assert state["db"] == str(db) and state["phase"] == "setup" and state["players"] == ["blue", "red", "yellow",
                                                                                         "purple"]
    assert _real(["new", "--db", str(db), str(setup)]).returncode == 2  # never over an existing game

    battles = revolts = cancelled = 0
    script = steps()
    for i, (command, expect) in enumerate(script):
        if i == 50:  # one command through a real process, as a script at the table would send it
            done = _real(["do", "--db", str(db), "-"], input=json.dumps(command))
            assert done.returncode == 0, done.stderr
            out = json.loads(done.stdout)
        else:
            code, out, err = _cli(["do", "--db", str(db), json.dumps(command)], capsys)
            assert code == 0, (i, command, err)
        throw = out.get("throw")
        if throw is not None and command["type"] != "seed_tower":
            revolt = command["type"] == "winter_revolt" or command.get("to") is None  # a revolt has no target
            revolts += revolt
            battles += not revolt
            if "winner" in expect:
                assert throw["outcome"] == expect["winner"], out["description"]
        if expect.get("cancelled"):
            cancelled += 1
            assert "cancelled" in out["description"]
        if command["type"] == "score" and out["round"] == 5:
            code, mid, _ = _cli(["state", "--db", str(db)], capsys)
            assert mid["vp"] == WINTER_1_VP  # spec 7.3, the first winter
        if i == 3:
            # undo names what it undoes; the command then goes in again (a bid typo fixed, spec 4.5)
            code, undone, _ = _cli(["undo", "--db", str(db)], capsys)
            assert code == 0 and undone["description"].startswith("Undo: Bids revealed")
            code, out, _ = _cli(["do", "--db", str(db), json.dumps(command)], capsys)
            assert code == 0
    assert (battles, revolts, cancelled) == (11, 9, 2)

    final = _real(["state", "--db", str(db)])
    assert final.returncode == 0, final.stderr
    end = json.loads(final.stdout)
    assert end["phase"] == "over" and end["vp"] == FINAL_VP
    winners = [p for p in end["result"] if p["winner"]]
    assert [p["colour"] for p in winners] == [WINNER] and winners[0]["name"] == "Ann"  # spec 8

    code, sheet, _ = _cli(["export", "--db", str(db), "--format", "csv"], capsys)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(sheet)))
    assert {r["player"]: int(r["score"]) for r in rows} == {"Ann": 34, "Bo": 28, "Cy": 24, "Dee": 29}

    code, log, _ = _cli(["log", "--db", str(db)], capsys)
    assert code == 0 and [r["kind"] for r in log].count("undo") == 1
    assert len([r for r in log if r["kind"] == "command"]) == len(script) + 1


def test_bad_commands_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "g.fujikoro-game"
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps(CONFIG), encoding="utf-8")
    assert _cli(["new", "--db", str(db), str(setup)], capsys)[0] == 0
    code, _, err = _cli(["do", "--db", str(db), '{"type": "score"}'], capsys)
    assert code == 2 and err.count("\n") == 1 and "not possible now" in err  # a command of another phase
    code, _, err = _cli(["do", "--db", str(db), "not json"], capsys)
    assert code == 2 and err.count("\n") == 1
    code, _, err = _cli(["export", "--db", str(db)], capsys)
    assert code == 2 and "finished" in err
    code, _, err = _cli(["state", "--db", str(tmp_path / "missing.fujikoro-game")], capsys)
    assert code == 2 and err.count("\n") == 1
    # without --db: the last Shogun game played in the data folder (a private one in tests/conftest.py)
    code, _, err = _cli(["state"], capsys)
    assert code == 2 and "no saved game yet (Shogun)" in err
    code, made, _ = _cli(["new", str(setup)], capsys)
    assert code == 0
    code, state, _ = _cli(["state"], capsys)
    assert code == 0 and state["db"] == made["db"] and state["game"] == "shogun"


def test_a_command_with_a_field_it_does_not_take_is_refused_and_the_file_keeps_nothing(tmp_path: Path) -> None:
    """Spec 2.5 (the seeding's cubes that fall out go back): ``fell_out`` for ``out`` is refused in one line
    naming the command and the field, exit 2, no traceback; the game file is as it was."""
    db = tmp_path / "g.fujikoro-game"
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps(CONFIG), encoding="utf-8")
    assert _real(["new", "--db", str(db), str(setup)]).returncode == 0
    done = _real(["do", "--db", str(db), json.dumps({"type": "seed_tower", "fell_out": {"blue": 5}})])
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr == "fujikoro: seed_tower: unknown field 'fell_out'; the fields are out, type\n"
    log = _real(["log", "--db", str(db)])
    assert log.returncode == 0 and json.loads(log.stdout) == []
    state = json.loads(_real(["state", "--db", str(db)]).stdout)
    assert state["phase"] == "setup" and state["state_id"] == 0


def test_undo_from_the_command_line_says_the_throw_is_the_players_not_the_apps(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Spec 12.1 item 11: undo stops at a tower throw (no re-throw); it is the throw the players entered, and
    ``undo --force`` takes it back."""
    db = tmp_path / "g.fujikoro-game"
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps(CONFIG), encoding="utf-8")
    assert _cli(["new", "--db", str(db), str(setup)], capsys)[0] == 0
    seeding = steps()[0][0]
    assert seeding["type"] == "seed_tower"
    assert _cli(["do", "--db", str(db), json.dumps(seeding)], capsys)[0] == 0
    code, _, err = _cli(["undo", "--db", str(db)], capsys)
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("table-companion: undo stops at a throw the players entered from the tower (The tower is "
                          "seeded: ") and "the app" not in err
    code, out, _ = _cli(["undo", "--db", str(db), "--force"], capsys)
    assert code == 0 and out["description"].startswith("Undo: The tower is seeded")
