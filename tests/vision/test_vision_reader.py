"""The board reader end to end: rendered photos written to JPEG files, read back through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from vision_photos import SMALL, board_photo, empty_gear, run_cli

from vision.synth import Conditions
from vision.template import GEAR_GRIDS, load_template


def _compare(truth: dict, out: dict) -> tuple[int, int, int]:  # type: ignore[type-arg]
    right = wrong = unsure = 0
    for g in GEAR_GRIDS:
        for want_row, got_row in zip(truth[g], out[g], strict=True):
            for want, got in zip(want_row, got_row, strict=True):
                if got == "?":
                    unsure += 1
                elif got == want:
                    right += 1
                else:
                    wrong += 1
    return right, wrong, unsure


@pytest.mark.parametrize("seed", [11, 12, 13, 14])
def test_reads_ordinary_photos_without_confident_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      seed: int) -> None:
    path, truth = board_photo(tmp_path, seed, fill=0.5, conditions=Conditions(size=SMALL, glare=0.0))
    code, out, _ = run_cli(["read-board", str(path)], capsys)
    assert code == 0
    result = json.loads(out)
    right, wrong, unsure = _compare(truth, result)
    assert wrong == 0
    assert right >= 35  # of 39 cells; a '?' is allowed, a wrong letter never
    assert set(result["confidence"]) == set(GEAR_GRIDS)
    assert len(result["uncertain"]) == unsure
    assert (result["retake"] is None) == (unsure == 0)


def test_an_empty_board_reads_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = board_photo(tmp_path, 21, gear=empty_gear(load_template()))
    code, out, _ = run_cli(["read-board", str(path)], capsys)
    result = json.loads(out)
    assert code == 0
    assert all(set(row) <= {"."} for g in GEAR_GRIDS for row in result[g])


def test_a_full_board_of_white_teeth_on_the_light_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    template = load_template()
    gear = {g: ["T" * template.grids[g].cols] * template.grids[g].rows for g in GEAR_GRIDS}
    gear["helmet"][1] = "T..T"
    path, truth = board_photo(tmp_path, 22, gear=gear, conditions=Conditions(size=SMALL, mixed_light=0.0))
    code, out, _ = run_cli(["read-board", str(path)], capsys)
    right, wrong, _ = _compare(truth, json.loads(out))
    assert wrong == 0 and right >= 33


def test_output_feeds_gear_inspect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gear = {"helmet": ["MMWW", "WW..", "...."], "sandals": ["MMM"], "weapon_left": [".....", "WWMMM", "....."],
            "weapon_right": ["...", "MM.", "..."]}
    path, _ = board_photo(tmp_path, 23, gear=gear, conditions=Conditions(size=SMALL, mixed_light=0.0, glare=0.0,
                                                                          occluder_shadow=0.0))
    code, out, _ = run_cli(["read-board", str(path)], capsys)
    reading = json.loads(out)
    assert reading["retake"] is None, reading["retake"]
    assert reading["helmet"] == gear["helmet"] and reading["weapon_left"] == gear["weapon_left"]
    inspect_in = tmp_path / "gear.json"
    inspect_in.write_text(out, encoding="utf-8")
    code, out, err = run_cli(["gear", "inspect", str(inspect_in)], capsys)
    assert code == 0, err
    assert json.loads(out)["helmet"]["cubes"] == 6


def test_a_blurred_photo_asks_for_a_retake(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cond = Conditions(size=SMALL, blur_px=(5.5, 6.0), motion_blur=0.0)
    path, truth = board_photo(tmp_path, 24, conditions=cond)
    code, out, _ = run_cli(["read-board", str(path)], capsys)
    result = json.loads(out)
    assert code == 0
    assert "too blurry" in result["retake"]
    assert _compare(truth, result)[1] == 0

    worse = Conditions(size=SMALL, blur_px=(12.0, 13.0), motion_blur=0.0)
    path, truth = board_photo(tmp_path, 28, conditions=worse)
    code, out, err = run_cli(["read-board", str(path)], capsys)
    if code == 0:
        result = json.loads(out)
        assert "too blurry" in result["retake"] and _compare(truth, result)[1] == 0
    else:
        assert code == 2 and "too blurry" in err


def test_glare_is_named_and_never_guessed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, truth = board_photo(tmp_path, 25, conditions=Conditions(size=SMALL, glare=1.0))
    code, out, _ = run_cli(["read-board", str(path)], capsys)
    result = json.loads(out)
    assert "glare on cells" in result["retake"]
    assert any(c["reason"] == "glare" for c in result["uncertain"])
    assert _compare(truth, result)[1] == 0


def test_a_hidden_sticker_is_reported_but_the_board_still_reads(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    path, truth = board_photo(tmp_path, 26, conditions=Conditions(size=SMALL, hide_markers=1))
    code, out, _ = run_cli(["read-board", str(path)], capsys)
    result = json.loads(out)
    assert code == 0 and len(result["markers"]) == 3
    assert any("marker not found" in note for note in result["notes"])
    right, wrong, _ = _compare(truth, result)
    assert wrong == 0 and right >= 33


def test_unreadable_file_no_board_and_wrong_template_exit_2(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "notes.jpg"
    text.write_text("not a photo", encoding="utf-8")
    code, out, err = run_cli(["read-board", str(text)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "not an image" in err

    code, _, err = run_cli(["read-board", str(tmp_path / "missing.jpg")], capsys)
    assert code == 2 and "does not exist" in err

    noise = tmp_path / "table.png"
    rng = np.random.default_rng(0)
    table = np.full((600, 800, 3), 90, np.uint8)
    for _ in range(30):  # a sharp photo of a cluttered table, with no board on it
        x, y = (int(v) for v in rng.integers(0, 700, 2))
        cv2.circle(table, (x, y % 600), int(rng.integers(5, 60)), [int(v) for v in rng.integers(0, 255, 3)], -1)
    cv2.imwrite(str(noise), table)
    code, _, err = run_cli(["read-board", str(noise)], capsys)
    assert code == 2 and "no board" in err

    path, _ = board_photo(tmp_path, 27)
    other = load_template().to_json()
    other["markers"]["ids"] = [30, 31, 32, 33]
    tpl = tmp_path / "other.json"
    tpl.write_text(json.dumps(other), encoding="utf-8")
    code, _, err = run_cli(["read-board", str(path), "--template", str(tpl)], capsys)
    assert code == 2 and "wrong template" in err and "Traceback" not in err

    code, _, err = run_cli(["read-board", str(path), "--template", str(tmp_path / "none.json")], capsys)
    assert code == 2 and "does not exist" in err
