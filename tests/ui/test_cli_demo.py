"""`fujikoro demo`: the README's first command before the tablet app; it must run on a fresh machine."""

from __future__ import annotations

import os
import subprocess
import sys


def run_demo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ui.cli", "demo", *args], capture_output=True, text=True,
                          timeout=180, env=os.environ.copy())


def test_demo_walks_through_game_gear_and_fight_with_table_lights() -> None:
    result = run_demo()
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "The final chapter begins: Chiyo" in out
    for position in range(1, 9):
        assert f"Countdown space {position}:" in out
    assert "The game ends. Ranking: 1. Chiyo" in out
    # The emulated table (the real firmware) lit the lava LEDs of the first eruption.
    first = out.split("Countdown space 1: lava erupts on spaces numbered 1")[1].split("Countdown space 2")[0]
    assert "lava 1 #" in first and "lava 2 ." in first
    assert "Order: Mitsuhide, dragon, Takeko." in out
    # the rulebook's example 2; broken dice take the cubes that lose least (EN p.12): 96.0 %, not 96.3 %
    assert "Odds before the fight: dragon defeated 96.0%" in out
    assert "the 9 cubes" not in out and "illegal: the left-grid weapon has 9 cubes; at most 8" in out


def test_demo_without_table() -> None:
    result = run_demo("--no-table", "--seed", "1")
    assert result.returncode == 0, result.stderr
    assert "lava 1 #" not in result.stdout
    assert "Countdown space 8: end" in result.stdout
