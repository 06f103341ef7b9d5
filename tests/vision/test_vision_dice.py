"""The dice reader: kinds, faces, broken icons and cocked dice from rendered tray photos."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import pytest
from vision_photos import run_cli

from companion.dice import DiceRoll
from vision.synth import Conditions, render_dice, write_rendered

TRAY = Conditions(size=(1600, 1200), tilt_deg=(0.0, 8.0), board_fraction=(0.7, 0.85), occluder_shadow=0.0,
                  glare=0.0, clutter=0, mixed_light=0.0)


@pytest.mark.parametrize(("seed", "dice"), [
    (41, [("wood", "1"), ("metal", "2"), ("tooth", "3"), ("magic", "4"), ("tooth", "0b")]),
    (42, [("wood", "0b"), ("metal", "0b"), ("metal", "1"), ("magic", "0"), ("tooth", "2"), ("wood", "0")]),
])
def test_reads_kind_and_face(tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int, dice) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "tray.jpg"
    write_rendered(render_dice(dice, seed=seed, conditions=TRAY), path)
    code, out, err = run_cli(["read-dice", str(path)], capsys)
    assert code == 0, err
    result = json.loads(out)
    assert Counter((k, str(f)) for k, f in result["dice"]) == Counter(dice)
    assert result["retake"] is None
    roll = DiceRoll.from_json(result)
    assert roll.source.value == "tray" and len(roll.dice) == len(dice)


def test_a_cocked_die_is_reported_not_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dice = [("metal", "2"), ("wood", "1"), ("tooth", "3")]
    path = tmp_path / "tray.jpg"
    write_rendered(render_dice(dice, seed=44, cocked=[0], conditions=TRAY), path)
    code, out, _ = run_cli(["read-dice", str(path)], capsys)
    result = json.loads(out)
    assert code == 0
    assert len(result["cocked"]) == 1 and "cocked" in result["retake"]
    assert Counter((k, str(f)) for k, f in result["dice"]) <= Counter(dice[1:])


def test_no_tray_sticker_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), (cv2.UMat(480, 640, cv2.CV_8UC3, (40, 40, 40))).get())
    code, _, err = run_cli(["read-dice", str(blank)], capsys)
    assert code == 2 and "dice-tray sticker" in err
