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
from vision_photos import SMALL, board_photo, empty_gear, faint_lines, glare_over

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


def test_set_up_says_which_grid_lines_were_too_faint_and_kept_in_the_templates_place(tmp_path: Path,
                                                                                      config: Path) -> None:
    template = load_template()
    cond = Conditions(size=(2400, 1800), mixed_light=0.0, occluder_shadow=0.0, glare=0.0)
    empty, _ = board_photo(tmp_path, 64, gear=empty_gear(template), conditions=cond)
    faint = str(faint_lines(empty, tmp_path / "faint.png", ["sandals"], left=0.06))
    with pytest.raises(photos.CameraSetupIncomplete) as asked:
        photos.set_up_camera(faint, "symmetric", PACK)
    assert "sandals" in str(asked.value)
    setup = photos.set_up_camera(faint, "symmetric", PACK, earlier=asked.value.partial)
    assert any("sandals grid lines too faint to fit" in line for line in setup.lines)
    assert photos.board_template("symmetric", PACK).faint_lines == ("sandals",)


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
    # Glare on the helmet grid: a retake is asked for, and the other grids this photo showed are kept, so
    # the retake (glare now on the sandals) completes the set-up.
    model.setup_camera(str(glare_over(empty, "helmet", tmp_path / "glare-helmet.png")))
    _settle(model)
    assert not model.camera_ready and "not set up yet" in model.message and "helmet" in model.message
    assert "kept" in model.message and not photos.calibration_file("symmetric").exists()
    model.setup_camera(str(glare_over(empty, "sandals", tmp_path / "glare-sandals.png")))
    _settle(model)
    assert model.camera_ready, model.message
    saved = json.loads(photos.calibration_file("symmetric").read_text())
    assert set(saved["grid_lab"]) == {"helmet", "sandals", "weapon_left", "weapon_right"}
    model.setup_camera(str(empty))  # setting up again from a clean photo
    _settle(model)
    assert model.camera_ready, model.message
    assert "Camera set up for the symmetric board" in model.message
    saved = json.loads(photos.calibration_file("symmetric").read_text())
    assert saved["status"].startswith("calibrated")
    model.refresh_camera()
    assert model.camera_ready


def test_gear_model_may_use_the_grids_set_up_so_far(tmp_path: Path, config: Path) -> None:
    # A grid the photos never show well (here glare on the helmet, photo after photo) need not hold up the set-up:
    # the Gear screen offers "Use what is set up", which keeps the other grids and leaves the helmet unread.
    from games.fujikoro.app.gear import GearModel

    model = GearModel(FakeGame(), FakePack())
    model.refresh_camera()
    assert not model.camera_partial
    model.keep_camera_partial()  # nothing set up yet: nothing happens
    assert not model.photo_busy and not model.camera_ready
    empty, _ = board_photo(tmp_path, 63, gear=empty_gear(load_template()), conditions=Conditions(size=SMALL, glare=0.0))
    glared = str(glare_over(empty, "helmet", tmp_path / "glare-helmet.png"))
    for _ in range(2):
        model.setup_camera(glared)
        _settle(model)
        assert not model.camera_ready and model.camera_partial, model.message
        assert "Use what is set up" in model.message
    model.keep_camera_partial()
    _settle(model)
    assert model.camera_ready and not model.camera_partial, model.message
    assert "set up in part" in model.message and "helmet grid(s) not set up" in model.message
    saved = json.loads(photos.calibration_file("symmetric").read_text())
    assert saved["unset_grids"] == ["helmet"] and "helmet" not in saved["grid_lab"]
    assert saved["grids"]["helmet"] == load_template().to_json()["grids"]["helmet"]  # not glare's fit
    # The next photo of that board: the helmet's cells are unread, the others read.
    photo, truth = board_photo(tmp_path, 66, fill=0.4, conditions=Conditions(size=SMALL, glare=0.0))
    reading = photos.read_gear(str(photo), "symmetric", PACK)
    assert {(g, r, c) for g, r, c in reading.uncertain if g == "helmet"} == {
        ("helmet", r, c) for r in range(3) for c in range(4)}
    assert "helmet" not in (reading.retake or "")  # another photo would not read it: no retake for that
    for name, rows in reading.grids.items():
        for want_row, got_row in zip(truth[name], rows, strict=True):
            assert all(g in (w, "?") for w, g in zip(want_row, got_row, strict=True))
    assert sum(g == w for name in ("sandals", "weapon_left", "weapon_right")
               for want_row, got_row in zip(truth[name], reading.grids[name], strict=True)
               for w, g in zip(want_row, got_row, strict=True)) >= 25


def test_gear_model_keeps_a_confirmed_photo_as_a_labelled_example(tmp_path: Path, config: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 18, item 3: the photo with the grids the players confirm on the Gear screen becomes a labelled
    # example (the benchmark's --labelled format), and only once every cell marked ? has been settled.
    from games.fujikoro.app.gear import GearModel
    from vision.examples import example_template, labelled_photos

    monkeypatch.setenv("FUJIKORO_DATA_DIR", str(tmp_path / "data"))
    model = GearModel(FakeGame(), FakePack())
    model.keep_example()  # nothing read yet
    assert "Read a photo first" in model.message and not model.example_ready

    photo, truth = board_photo(tmp_path, 64, fill=0.4, conditions=Conditions(size=SMALL, glare=0.0))
    model.read_photo(str(photo))
    _settle(model)
    assert model.example_ready, model.message
    # The players set every cell the photo could not read to what their board holds, and fix any other.
    for item in list(model.uncertain):
        grid, r, c = item.split(":")
        model.paint = truth[grid][int(r)][int(c)]
        model.tap(grid, int(r), int(c))
    for grid in ("helmet", "sandals", "weapon_left", "weapon_right"):
        for r, row in enumerate(truth[grid]):
            for c, want in enumerate(row):
                if model.grids[grid][r][c] != want:
                    model.paint = want if want != "." else model.grids[grid][r][c]
                    model.tap(grid, r, c)
    assert not model.uncertain
    model.keep_example()
    _settle(model)
    assert "Kept the photo" in model.message, model.message
    folder = photos.examples_folder()
    assert str(folder).startswith(str(tmp_path / "data"))
    kept = labelled_photos(folder)
    assert len(kept) == 1 and kept[0].read_bytes() == photo.read_bytes()
    labels = json.loads(kept[0].with_suffix(".json").read_text())
    assert all(labels[g] == truth[g] for g in ("helmet", "sandals", "weapon_left", "weapon_right"))
    assert example_template(kept[0]) == load_template().to_json()  # read again exactly as the app read it


def test_an_example_with_unsettled_cells_is_not_kept(tmp_path: Path, config: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from games.fujikoro.app.gear import GearModel

    monkeypatch.setenv("FUJIKORO_DATA_DIR", str(tmp_path / "data"))
    model = GearModel(FakeGame(), FakePack())
    photo, _ = board_photo(tmp_path, 65, fill=0.4, conditions=Conditions(size=SMALL, glare=0.0))
    model.read_photo(str(photo))
    _settle(model)
    model._uncertain["Aiko"] = {("helmet", 0, 0)}  # a cell the players have not settled yet
    model._show_uncertain()
    model.keep_example()
    assert "Tap the 1 cells marked ? first" in model.message
    assert not (tmp_path / "data" / "vision-examples").exists()


def test_a_camera_frame_is_kept_losslessly_and_only_when_kept() -> None:
    import cv2
    import numpy as np

    from ui.hardware import Photo

    frame = np.random.default_rng(5).integers(0, 256, (30, 40, 3), dtype=np.uint8)
    photo = Photo(frame, None, ".png", "camera 0")  # nothing encoded while the frame is only read
    kept = cv2.imdecode(np.frombuffer(photo.data(), np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(kept, frame)


def test_the_offer_to_use_a_partial_set_up_follows_the_selected_players_board(tmp_path: Path, config: Path) -> None:
    from games.fujikoro.app.gear import GearModel

    game = FakeGame()
    game.players = [{"name": "Aiko", "board": "symmetric"}, {"name": "Ben", "board": "yoshihiro"}]
    model = GearModel(game, FakePack())
    model.select(0)
    empty, _ = board_photo(tmp_path, 63, gear=empty_gear(load_template()), conditions=Conditions(size=SMALL, glare=0.0))
    model.setup_camera(str(glare_over(empty, "helmet", tmp_path / "glare-helmet.png")))
    _settle(model)
    assert model.camera_partial
    model.select(1)  # Ben's board was never photographed
    assert not model.camera_partial and not model.camera_ready
    model.select(0)
    assert model.camera_partial
