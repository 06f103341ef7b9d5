"""Calibration: fit the grids to a photo of an empty board whose layout differs from the template."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from vision_photos import SMALL, board_photo, empty_gear, glare_over, run_cli

from vision.calibrate import CalibrationError, calibrate
from vision.reader import load_photo
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


def test_a_retake_keeps_the_grids_the_glared_photo_did_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Glare on one grid asks for another photo of the empty board; the grids the first photo showed well
    are kept, so the retake only needs to show that one (glare moves with the lamp, from grid to grid)."""
    real = _real_board()
    cond = Conditions(size=(2400, 1800), mixed_light=0.0, occluder_shadow=0.0, glare=0.0)
    photo, _ = board_photo(tmp_path, 34, gear=empty_gear(real), conditions=cond, template=real)
    clean = calibrate(load_photo(photo), load_template())
    on_helmet = glare_over(photo, "helmet", tmp_path / "glare-helmet.png", real)
    on_sandals = glare_over(photo, "sandals", tmp_path / "glare-sandals.png", real)

    with pytest.raises(CalibrationError) as first:
        calibrate(load_photo(on_helmet), load_template())
    assert "helmet" in str(first.value) and "clipped white" in str(first.value) and "retake" in str(first.value)
    partial = first.value.partial
    assert partial is not None and "helmet" not in partial.done
    assert {"sandals", "weapon_left", "weapon_right"} <= partial.done
    # The sandals are glared in the retake: they come from the first photo, the helmet from the retake.
    fitted = calibrate(load_photo(on_sandals), load_template(), earlier=partial)
    assert clean.grid_lab is not None and fitted.grid_lab is not None and fitted.band_ratio is not None
    assert set(fitted.grid_lab) == set(GEAR_GRIDS) and set(fitted.band_ratio) == set(GEAR_GRIDS)
    for name in GEAR_GRIDS:
        assert fitted.grid_lab[name] == pytest.approx(clean.grid_lab[name], abs=1.0), name
        assert fitted.grids[name].origin_mm == pytest.approx(clean.grids[name].origin_mm, abs=0.2), name
    # Without the first photo the retake alone is not enough.
    with pytest.raises(CalibrationError, match="sandals"):
        calibrate(load_photo(on_sandals), load_template())

    # The command line takes the retakes after the first photo and fills in the same way.
    out = tmp_path / "mine.json"
    code, text, err = run_cli(["vision", "calibrate", str(on_helmet), str(on_sandals), "--out", str(out)], capsys)
    assert code == 0, err
    assert "glare-helmet.png" in text and "helmet" in text and "trying glare-sandals.png" in text
    assert set(json.loads(out.read_text())["grid_lab"]) == set(GEAR_GRIDS)
    code, _, err = run_cli(["vision", "calibrate", str(on_helmet), "--out", str(tmp_path / "no.json")], capsys)
    assert code == 2 and "helmet" in err and not (tmp_path / "no.json").exists()
