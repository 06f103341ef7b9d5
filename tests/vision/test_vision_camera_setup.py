"""Gear > "Set up the camera" (issue 18, item 2): the sticker steps, one photo of the empty board, the fitted
template kept per board and used for the next photos. The view model runs without a window."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.properties import ListProperty, ObjectProperty, StringProperty
from vision_photos import SMALL, board_photo, empty_gear

from games.fujikoro.app import photos
from games.fujikoro.pack import default_pack
from vision.synth import Conditions
from vision.template import load_template

PACK = default_pack()


class FakeGame(EventDispatcher):  # type: ignore[misc]
    players = ListProperty([{"name": "Aiko", "board": "symmetric"}])
    path = StringProperty("")


class FakePack(EventDispatcher):  # type: ignore[misc]
    pack = ObjectProperty(PACK)


@pytest.fixture()
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FUJIKORO_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path / "config"


def _settle(model: object, seconds: float = 120.0) -> None:
    end = time.monotonic() + seconds
    while model.photo_busy and time.monotonic() < end:
        Clock.tick()
        time.sleep(0.02)
    Clock.tick()


def test_set_up_camera_keeps_the_fitted_template_per_board_and_reads_with_it(tmp_path: Path, config: Path) -> None:
    template = load_template()
    empty, _ = board_photo(tmp_path, 61, gear=empty_gear(template), conditions=Conditions(size=SMALL, glare=0.0))
    assert photos.board_template("symmetric", PACK).status == template.status  # nothing set up yet
    setup = photos.set_up_camera(str(empty), "symmetric", PACK)
    assert setup.path == photos.calibration_file("symmetric") and setup.path.is_file()
    assert str(setup.path).startswith(str(config))
    kept = photos.board_template("symmetric", PACK)
    assert kept.status.startswith("calibrated") and kept.board_lab is not None
    # The next photo of that board is read with the kept template, never confidently wrong.
    photo, truth = board_photo(tmp_path, 62, fill=0.4, conditions=Conditions(size=SMALL, glare=0.0))
    reading = photos.read_gear(str(photo), "symmetric", PACK)
    for name, rows in reading.grids.items():
        for want_row, got_row in zip(truth[name], rows, strict=True):
            assert all(g in (w, "?") for w, g in zip(want_row, got_row, strict=True))


def test_gear_model_walks_the_group_through_the_set_up(tmp_path: Path, config: Path) -> None:
    from games.fujikoro.app.gear import GearModel

    model = GearModel(FakeGame(), FakePack())
    model.refresh_camera()
    assert not model.camera_ready
    model.setup_camera("")  # no photo yet: the steps
    assert "sticker sheet" in model.message and "empty board" in model.message

    not_a_board = tmp_path / "table.png"
    not_a_board.write_bytes(b"not a photo")
    model.setup_camera(str(not_a_board))
    _settle(model)
    assert not model.camera_ready and "not set up" in model.message

    empty, _ = board_photo(tmp_path, 63, gear=empty_gear(load_template()), conditions=Conditions(size=SMALL, glare=0.0))
    model.setup_camera(str(empty))
    _settle(model)
    assert model.camera_ready, model.message
    assert "Camera set up for the symmetric board" in model.message
    saved = json.loads(photos.calibration_file("symmetric").read_text())
    assert saved["status"].startswith("calibrated")
    model.refresh_camera()
    assert model.camera_ready
