"""``fujikoro game`` refuses a turn the rulebook does not allow: exit 2, one sentence with the rule and page.

EN p.4 (two actions a turn, the Action Disc pool), p.7 (Rest), p.12 (the Peaceful Variant).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ui.cli.main import main

# The data and config folders are per test already (tests/conftest.py).


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else None, err


def test_a_new_game_plays_by_the_turn_rules_and_refusals_name_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "g.db")
    code, state, _ = run(capsys, "game", "new", "--db", db, "--players", "Ann,Bo")
    assert code == 0 and state["rules"] == 2 and state["why_not"]["end_turn"]
    code, out, err = run(capsys, "game", "do", "--db", db, '{"type": "end_turn"}')
    assert code == 2 and out is None
    assert len(err.strip().splitlines()) == 1 and "(EN p.4)" in err and "Traceback" not in err
    code, _, err = run(capsys, "game", "do", "--db", db, '{"type": "action", "action": "rest"}')
    assert code == 2 and "(EN p.4, p.7)" in err
    for action in ("move", "gather"):
        assert run(capsys, "game", "do", "--db", db, json.dumps({"type": "action", "action": action}))[0] == 0
    code, _, err = run(capsys, "game", "do", "--db", db, '{"type": "action", "action": "explore", "level": 2}')
    assert code == 2 and "2 actions a turn (EN p.4)" in err
    code, ack, _ = run(capsys, "game", "do", "--db", db, '{"type": "end_turn"}')
    assert code == 0 and ack["description"] == "End Ann's turn (round 1)"


def test_the_peaceful_variant_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "g.db")
    code, state, _ = run(capsys, "game", "new", "--db", db, "--players", "Ann,Bo", "--peaceful")
    assert code == 0 and any("Peaceful Variant" in item for item in state["setup_checklist"])
    fight = {"type": "samurai_fight_start", "attacker": {"player": "Ann", "gear": {"weapon_left": ["WW"]}},
             "defender": {"player": "Bo", "gear": {"weapon_left": ["WW"]}}}
    code, _, err = run(capsys, "game", "do", "--db", db, json.dumps(fight))
    assert code == 2 and "Peaceful Variant" in err and "(EN p.12)" in err
