"""The `fujikoro gear` and `fujikoro data` commands, run as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CONTRACT_IN = {
    "board": "symmetric", "monks": ["weapon"],
    "helmet": ["MMWW", "WW.."], "sandals": ["MMM"],
    "weapon_left": ["WWMMM"], "weapon_right": ["MM"], "magic": ["helmet"],
}


def fujikoro(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ui.cli", *args], input=stdin, capture_output=True, text=True,
                          env=os.environ.copy(), timeout=60)


def test_gear_inspect_contract_example() -> None:
    result = fujikoro("gear", "inspect", "-", stdin=json.dumps(CONTRACT_IN))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["helmet"] == {"cubes": 6, "strength": 12, "legal": True, "magical": True}
    assert {k: out["sandals"][k] for k in ("cubes", "strength", "complete", "legal")} == {
        "cubes": 3, "strength": 6, "complete": True, "legal": True}
    (weapon,) = out["weapons"]
    assert {k: weapon[k] for k in ("hand", "cubes", "wood", "legal", "usable", "length")} == {
        "hand": "two", "cubes": 7, "wood": 2, "legal": True, "usable": False, "length": 7}
    assert out["initiative"] == 0 and out["legal"] is True and out["problems"] == []
    assert out["matches"] == {"gear_cards": [], "blueprints": []}


def test_gear_inspect_reads_a_file_and_reports_illegal_gear_with_exit_zero(tmp_path: Path) -> None:
    path = tmp_path / "gear.json"
    path.write_text(json.dumps({"board": "symmetric", "weapon_left": ["WWMMM", "M...M", "MM..."]}))
    result = fujikoro("gear", "inspect", str(path))
    assert result.returncode == 0
    out = json.loads(result.stdout)
    assert out["legal"] is False
    assert "the left-grid weapon has 9 cubes; at most 8" in out["problems"]


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("not json", "not JSON"),
        ('{"helmet": ["WX"]}', "unknown cell 'X'"),
        ('{"board": "ninja"}', "unknown board 'ninja'"),
        ("[1, 2]", "expected a JSON object"),
        ('{"helmet": ["WWWWW"]}', "has 5 cells"),
    ],
)
def test_gear_inspect_malformed_input_is_one_line_exit_two(stdin: str, message: str) -> None:
    result = fujikoro("gear", "inspect", stdin=stdin)
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_data_set_show_reset_round_trip() -> None:
    assert fujikoro("data", "set", "dragons.green_2.health", "11").returncode == 0
    shown = json.loads(fujikoro("data", "show", "dragons.green_2.health", "--json").stdout)
    leaf = shown["dragons.green_2.health"]
    assert leaf["value"] == 11 and leaf["yours"] and leaf["shipped"] == {"value": 10, "status": "assumed"}
    assert fujikoro("data", "reset", "dragons.green_2").returncode == 0
    shown = json.loads(fujikoro("data", "show", "dragons.green_2.health", "--json").stdout)
    assert shown["dragons.green_2.health"]["value"] == 10


def test_data_reset_with_nothing_to_reset_says_so() -> None:
    done = fujikoro("data", "reset", "--all")
    assert done.returncode == 0 and done.stdout == "no corrections: the shipped values are in use\n"
    done = fujikoro("data", "reset", "dragons.green_2")
    assert done.returncode == 0
    assert done.stdout == "no corrections under dragons.green_2: the shipped values are in use\n"


def test_data_set_refuses_bad_values_and_saves_nothing() -> None:
    result = fujikoro("data", "set", "dice.metal.faces", "[2,2,1,1,0]")
    assert result.returncode == 2 and "dice.metal.faces: expected a list of 6 faces" in result.stderr
    result = fujikoro("data", "set", "dragons.green_9.health", "3")
    assert result.returncode == 2 and "no such key" in result.stderr
    assert not (Path(os.environ["FUJIKORO_CONFIG_DIR"]) / "data-overrides.toml").exists()


def test_data_validate_names_the_field_path(tmp_path: Path) -> None:
    shipped = Path(__file__).parents[2] / "games" / "fujikoro" / "data" / "fujikoro.toml"
    broken = tmp_path / "pack.toml"
    broken.write_text(shipped.read_text().replace('health = { value = 12, status = "confirmed"',
                                                  'health = { value = -4, status = "confirmed"'))
    result = fujikoro("data", "validate", str(broken))
    assert result.returncode == 2
    assert "dragons.green_1.health: must be at least 1, got -4" in result.stderr
    assert fujikoro("data", "validate", str(shipped)).returncode == 0
    corrections = tmp_path / "mine.toml"
    corrections.write_text('[values]\n"colours.red.vp" = 11\n')
    assert fujikoro("data", "validate", str(corrections)).returncode == 0


def test_shipped_pack_marks_every_value() -> None:
    from games.fujikoro.pack import iter_leaves, shipped_raw

    leaves = list(iter_leaves(shipped_raw()))
    assert len(leaves) > 150
    assert {leaf["status"] for _, leaf in leaves} == {"confirmed", "derived", "assumed"}
    assert all(leaf.get("source") for _, leaf in leaves)
