"""Calibration: fit the grids to a photo of an empty board whose layout differs from the template."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from vision_photos import SMALL, board_photo, empty_gear, run_cli

from vision.synth import Conditions
from vision.template import GEAR_GRIDS, load_template, template_from_json


def _real_board():  # type: ignore[no-untyped-def]
    data = load_template().to_json()
    data["grids"]["helmet"]["origin_mm"] = [45.5, 28.0]
    data["grids"]["helmet"]["cell_mm"] = 12.5
    data["grids"]["sandals"]["origin_mm"] = [117.0, 143.5]
    return template_from_json(data)


def test_calibrate_finds_the_printed_grids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real = _real_board()
    cond = Conditions(size=(2400, 1800), mixed_light=0.0, occluder_shadow=0.0, glare=0.0)
    photo, _ = board_photo(tmp_path, 31, gear=empty_gear(real), conditions=cond, template=real)
    out = tmp_path / "mine.json"
    code, text, err = run_cli(["vision", "calibrate", str(photo), "--out", str(out)], capsys)
    assert code == 0, err
    fitted = json.loads(out.read_text())
    assert fitted["status"].startswith("calibrated from")
    assert len(fitted["board_lab"]) == 3
    for name in GEAR_GRIDS:
        want, got = real.grids[name], fitted["grids"][name]
        assert got["origin_mm"][0] == pytest.approx(want.origin_mm[0], abs=0.7), name
        assert got["origin_mm"][1] == pytest.approx(want.origin_mm[1], abs=0.7), name
        assert got["cell_mm"] == pytest.approx(want.cell_mm, abs=0.15), name

    # The calibrated template reads a photo of that board with cubes on it.
    gear = {"helmet": ["WMT.", ".TT.", "M..W"], "sandals": ["T.M"], "weapon_left": ["..WWM", ".....", "T...."],
            "weapon_right": ["M..", "...", "..T"]}
    photo2, _ = board_photo(tmp_path, 32, gear=gear, conditions=Conditions(size=SMALL, glare=0.0), template=real)
    code, text, _ = run_cli(["read-board", str(photo2), "--template", str(out)], capsys)
    reading = json.loads(text)
    for name in GEAR_GRIDS:
        for want_row, got_row in zip(gear[name], reading[name], strict=True):
            assert all(g in (w, "?") for w, g in zip(want_row, got_row, strict=True)), (name, want_row, got_row)


def test_calibrate_refuses_a_photo_without_the_stickers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photo, _ = board_photo(tmp_path, 33, conditions=Conditions(size=SMALL, hide_markers=2))
    code, _, err = run_cli(["vision", "calibrate", str(photo), "--out", str(tmp_path / "t.json")], capsys)
    assert code == 2 and "at least three" in err
