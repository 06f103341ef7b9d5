"""The rules calculator (issue 17 item 6): ``table-companion shogun battle|score|winter|bids|odds``; one JSON
object in, one out; bad input exits 2 with one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ui.cli.main import main

KOZUKE = {
    "kind": "attack", "attacker": "blue", "defender": "yellow", "source": {"armies": 6}, "moved": 4,
    "target": {"armies": 3, "revolt_tokens": 0, "buildings": []}, "special_cards": {},
    "tray_before": {}, "tower_inside_before": {"green": 1}, "tower_out": {"blue": 3, "yellow": 1, "green": 1},
    "note": "extra keys are welcome",
}


def run(verb: str, data: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    path = tmp_path / "in.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    code = main(["shogun", verb, str(path)], prog="table-companion")
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else None), err


def test_battle_kozuke_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Spec 6.8 Kozuke, the first test of the calculator: 3 blue against 1 yellow + 1 green, blue wins;
    1 yellow, 1 green and 2 blue go back; 1 blue holds Kozuke."""
    code, out, _ = run("battle", KOZUKE, tmp_path, capsys)
    assert code == 0
    assert out["thrown"] == {"blue": 4, "yellow": 3}
    assert out["count"] == {"attacker": 3, "defender": 2}
    assert out["winner"] == "attacker"
    assert out["returned_to_supply"] == {"blue": 2, "green": 1, "yellow": 1}
    assert out["source_after"] == {"armies": 2}
    assert out["target_after"] == {"owner": "blue", "armies": 1, "buildings": [], "revolt_tokens": 0}
    assert out["tray_after"] == {}
    assert out["tower_inside_after"] == {"blue": 1, "yellow": 2}


def test_battle_mikawa_revolt_with_the_tray(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Spec 6.8 Mikawa: 4 armies, 2 tokens -> 2 peasants and the tray; the owner wins and adds a token (5)."""
    data = {"kind": "revolt", "defender": "red", "target": {"armies": 4, "revolt_tokens": 2},
            "tray_before": {"blue": 1}, "tower_inside_before": {}, "tower_out": {"red": 3, "green": 1, "blue": 1},
            "tax_or_rice": True}
    code, out, _ = run("battle", data, tmp_path, capsys)
    assert code == 0
    assert out["thrown"] == {"blue": 1, "green": 2, "red": 4}
    assert out["winner"] == "defender"
    assert out["target_after"]["armies"] == 2 and out["target_after"]["revolt_tokens"] == 3
    assert out["tray_after"] == {"blue": 1}


def test_battle_privilege_cubes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Spec 4.2, 6.3: "+1 army attacking" / "+1 army defending" each throw one more cube."""
    data = dict(KOZUKE, special_cards={"+1 army attacking": "blue", "defence_plus_1": "yellow"},
                tower_out={"blue": 3, "yellow": 4})
    code, out, _ = run("battle", data, tmp_path, capsys)
    assert code == 0 and out["thrown"] == {"blue": 5, "yellow": 4} and out["winner"] == "defender"


def test_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Spec 7.3: provinces, buildings, majorities with the tie rule."""
    data = {"players": ["ann", "bo"], "provinces": [
        {"id": "kai", "region": "kanto", "controller": "ann", "buildings": ["castle", "temple"]},
        {"id": "kozuke", "region": "kanto", "controller": "bo", "buildings": ["castle"]},
        {"id": "mino", "region": "tokai", "controller": "bo", "buildings": []},
        {"id": "owari", "region": "tokai", "controller": None, "buildings": ["theatre"]}]}
    code, out, _ = run("score", data, tmp_path, capsys)
    assert code == 0
    assert {k: out["ann"][k] for k in ("provinces", "buildings", "majority", "total")} == {
        "provinces": 1, "buildings": 2, "majority": {"kanto.castle": 2, "kanto.temple": 2}, "total": 7}
    assert out["bo"]["majority"] == {"kanto.castle": 2} and out["bo"]["total"] == 5


def test_winter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Spec 7.1-7.2: Petr (9 provinces, 6 rice) -> 3 unsupplied, 2 revolts, +2; an unknown row says so."""
    data = {"winter_event_rice_loss": 2, "players": {"petr": {"rice": 8, "provinces": 9},
                                                     "ota": {"rice": 1, "provinces": 5}}}
    code, out, _ = run("winter", data, tmp_path, capsys)
    assert code == 0
    assert out["petr"] == {"rice_after_loss": 6, "unsupplied_provinces": 3, "revolting_provinces": 2,
                           "extra_peasants_per_revolt": 2}
    assert out["ota"]["revolting_provinces"] is None and "unknown" in out["ota"]["unknown"]


def test_bids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Spec 4.5: everybody pays their own bid; 2, then the province cards (tied), then 0, then none."""
    data = {"players": ["a", "b", "c", "d", "e"], "bids": {
        "a": {"war_chest_card": 2}, "b": {"province_card": "Aki"}, "c": {"province_card": "Kai"},
        "d": {"war_chest_card": 0}}, "chests_before": {"a": 5, "b": 5, "c": 5, "d": 5, "e": 5}}
    code, out, _ = run("bids", data, tmp_path, capsys)
    assert code == 0
    assert out["choosing_order_groups"] == [["a"], ["b", "c"], ["d"], ["e"]]
    assert out["paid_to_bank"] == {"a": 2, "b": 0, "c": 0, "d": 0, "e": 0}
    assert out["chests_after"]["a"] == 3


def test_odds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Spec 12.3: odds before the throw from the model; its parameters are assumed (or fitted)."""
    data = {k: v for k, v in KOZUKE.items() if k != "tower_out"}
    data["tower_inside_before"] = {}
    data["target"] = {"armies": 3, "revolt_tokens": 1}
    data["model"] = {"p": 2 / 3, "q": 1 / 3}
    code, out, _ = run("odds", data, tmp_path, capsys)
    assert code == 0
    assert round(out["p_attacker"], 3) == 0.556 and round(out["p_draw"], 3) == 0.271
    assert out["model"]["status"] == "given"
    data.pop("model")
    code, out, _ = run("odds", data, tmp_path, capsys)
    assert out["model"]["status"] == "assumed" and out["model"]["fitted_from_n_throws"] == 0


@pytest.mark.parametrize("verb, data, message", [
    ("battle", "{not json", "not JSON"),
    ("battle", [1, 2], "expected one JSON object"),
    ("battle", dict(KOZUKE, kind="siege"), "kind: expected attack, neutral or revolt"),
    ("battle", dict(KOZUKE, tower_out={"blue": 9}), "out.blue: 9 cube(s) counted in the tray"),
    ("battle", {k: v for k, v in KOZUKE.items() if k != "tower_out"}, "tower_out: enter what came out"),
    ("battle", dict(KOZUKE, moved=6), "at most 5 of 6 can move"),
    ("score", {"players": ["a"], "provinces": [{"region": "r", "controller": "z"}]}, "is not one of the players"),
    # Spec 5: one building of a type per province (the calculator scored 3 castles in 1 province, 2026-12-01).
    ("score", {"players": ["a"], "holdings": {"a": {"r1": {"provinces": 1, "castle": 3}}}},
     "holdings.a.r1: 1 province(s) cannot hold 3 castle(s)"),
    ("winter", {"players": {"a": {"rice": 1, "provinces": 2}}}, "winter_event_rice_loss: expected"),
    ("bids", {"players": ["a"], "bids": {"a": {"war_chest_card": 7}}}, "shows 0 to 4 chests"),
    ("odds", dict(KOZUKE, model={"p": 2, "q": 0.1}), "model.p: expected a probability"),
])
def test_bad_input_exits_2_with_one_line(verb: str, data: Any, message: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(verb, data, tmp_path, capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("table-companion: ") and message in err


def test_the_calculator_as_a_real_process() -> None:
    """The command line end to end (``python -m ui.cli``): stdin in, stdout out, exit status."""
    env = dict(os.environ)
    done = subprocess.run([sys.executable, "-m", "ui.cli", "shogun", "battle"], input=json.dumps(KOZUKE),
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["winner"] == "attacker"
    bad = subprocess.run([sys.executable, "-m", "ui.cli", "shogun", "winter"], input="{}", capture_output=True,
                         text=True, timeout=60, env=env)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
