"""The gear editor's "Read from photo": a real OpenCV reading of a rendered board photo (file or folder)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from games.fujikoro.app.photos import PhotoGear, PhotoSourceError, after_retake, newest_photo, read_gear
from games.fujikoro.pack import default_pack

GEAR = {"helmet": ["MMW.", "T...", "...."], "sandals": ["MMM"],
        "weapon_left": [".....", "WWMMT", "....."], "weapon_right": ["...", "...", "..."]}


@pytest.fixture(scope="module")
def photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from vision.synth import render_board, write_rendered
    from vision.template import load_template

    folder = tmp_path_factory.mktemp("photos")
    template = load_template(None, default_pack())
    path = folder / "board.png"
    write_rendered(render_board(template, GEAR, seed=7), path)
    return path


@pytest.fixture(scope="module")
def glared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from vision.synth import STRONG_GLARE, render_board, write_rendered
    from vision.template import load_template

    path = tmp_path_factory.mktemp("glare") / "glare.png"
    write_rendered(render_board(load_template(None, default_pack()), GEAR, seed=1, conditions=STRONG_GLARE), path)
    return path


def test_ui_read_gear_from_a_photo_file_and_folder(photo: Path) -> None:
    reading = read_gear(str(photo), "symmetric", default_pack())
    assert reading.uncertain == frozenset() and reading.retake is None
    grids = reading.certain_grids()
    assert set(grids) == set(GEAR)
    cells = sum(len(row) for rows in GEAR.values() for row in rows)
    wrong = sum(a != b for name in GEAR for want, got in zip(GEAR[name], grids[name], strict=True)
                for a, b in zip(want, got, strict=True))
    assert wrong <= cells // 20, grids  # a clean photo reads (almost) exactly
    assert read_gear(str(photo.parent), "symmetric", default_pack()) == reading  # the folder's newest photo


def test_ui_photo_cells_the_reader_is_unsure_of_stay_uncertain(glared: Path) -> None:
    reading = read_gear(str(glared), "symmetric", default_pack())
    assert reading.uncertain, "strong glare on the sandals leaves cells the reader cannot call"
    assert reading.retake is not None and "glare" in reading.retake
    certain = reading.certain_grids()
    for grid, row, col in reading.uncertain:
        assert reading.grids[grid][row][col] == "?"  # kept as read: unsure, not "empty"
        assert certain[grid][row][col] == "."  # out of the gear until the player sets it
    for grid, rows in reading.grids.items():  # every other cell is passed on as read
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                if (grid, r, c) not in reading.uncertain:
                    assert ch != "?" and certain[grid][r][c] == ch


def test_ui_photo_sources_that_cannot_work(tmp_path: Path, photo: Path) -> None:
    with pytest.raises(PhotoSourceError, match="Settings"):
        read_gear("", "symmetric", default_pack())
    with pytest.raises(PhotoSourceError, match="no photo"):
        newest_photo(tmp_path)
    with pytest.raises(PhotoSourceError, match="neither"):
        read_gear(str(tmp_path / "missing.png"), "symmetric", default_pack())
    os.utime(photo)
    assert newest_photo(photo.parent) == photo


@pytest.mark.ui
def test_ui_gear_editor_marks_unread_cells_until_tapped(run_app: Any, glared: Path) -> None:
    reading = read_gear(str(glared), "symmetric", default_pack())
    marked = sorted(f"{g}:{r}:{c}" for g, r, c in reading.uncertain)
    first = sorted(reading.uncertain)[0]
    cell_id = f"gear_{first[0]}_{first[1]}_{first[2]}"
    steps = [{"do": "press", "id": "start_game"}, {"do": "wait_until", "path": "game.phase", "equals": "playing"},
             {"do": "go", "screen": "gear"}, {"do": "press", "id": "gear_more"},
             {"do": "text", "id": "gear_photo_source", "value": str(glared)}, {"do": "press", "id": "gear_photo"},
             {"do": "wait_until", "path": "gear.photo_busy", "equals": False, "timeout": 30},
             {"do": "read", "path": "gear.uncertain", "key": "marked"},
             {"do": "read", "path": "gear.retake", "key": "retake"},
             {"do": "read", "id": "gear_message", "key": "message"},
             {"do": "read", "id": cell_id, "key": "cell_text"},
             {"do": "read", "path": f"gear.grids.{first[0]}", "key": "before"},
             {"do": "press", "id": "gear_paint_M"}, {"do": "press", "id": cell_id},
             {"do": "read", "path": "gear.uncertain", "key": "after"},
             {"do": "read", "id": cell_id, "key": "cell_text_after"},
             {"do": "read", "path": f"gear.grids.{first[0]}", "key": "grid_after"},
             {"do": "quit"}]
    report = run_app(steps)
    assert report["errors"] == []
    reads = report["reads"]
    assert reads["marked"] == marked
    assert reads["retake"] == reading.retake
    assert f"{len(marked)} cells marked ?" in reads["message"] and "glare" in reads["message"]
    assert reads["cell_text"] == "?"
    assert reads["before"][first[1]][first[2]] == "."  # not in the gear while unread
    assert reads["after"] == [m for m in marked if m != ":".join(map(str, first))]
    assert reads["cell_text_after"] == ""
    assert reads["grid_after"][first[1]][first[2]] == "M"  # the player's tap sets it (not a toggle to empty)


@pytest.mark.ui
def test_ui_gear_keeps_the_confirmed_photo_as_an_example(run_app: Any, photo: Path, tmp_path: Path) -> None:
    # Issue 18, item 3: after reading a photo and checking the grids, "Keep as example" saves the photo with
    # the grids as they stand in the data folder, in the format `benchmarks/vision.py --labelled` reads.
    import json

    from vision.examples import labelled_photos

    data = tmp_path / "data"
    steps = [{"do": "press", "id": "start_game"}, {"do": "wait_until", "path": "game.phase", "equals": "playing"},
             {"do": "go", "screen": "gear"}, {"do": "press", "id": "gear_more"},
             {"do": "text", "id": "gear_photo_source", "value": str(photo)}, {"do": "press", "id": "gear_photo"},
             {"do": "wait_until", "path": "gear.photo_busy", "equals": False, "timeout": 30},
             {"do": "read", "path": "gear.grids", "key": "grids"},
             {"do": "press", "id": "gear_more"}, {"do": "press", "id": "gear_keep_example"},
             {"do": "wait_until", "path": "gear.photo_busy", "equals": False, "timeout": 30},
             {"do": "read", "id": "gear_message", "key": "message"},
             {"do": "quit"}]
    report = run_app(steps, env={"FUJIKORO_DATA_DIR": str(data)})
    assert report["errors"] == []
    assert "Kept the photo" in report["reads"]["message"]
    kept = labelled_photos(data / "vision-examples")
    assert len(kept) == 1 and kept[0].read_bytes() == photo.read_bytes()
    labels = json.loads(kept[0].with_suffix(".json").read_text())
    assert {g: labels[g] for g in GEAR} == {g: list(report["reads"]["grids"][g]) for g in GEAR}


@pytest.fixture(scope="module")
def helmet_glared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A photo of the empty board with a glare spot over the helmet grid (the vision tests' own helper)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("vision_photos", Path(__file__).parents[1] / "vision"
                                                  / "vision_photos.py")
    assert spec is not None and spec.loader is not None
    helpers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helpers)
    from vision.synth import Conditions
    from vision.template import load_template

    folder = tmp_path_factory.mktemp("camera")
    empty, _ = helpers.board_photo(folder, 63, gear=helpers.empty_gear(load_template()),
                                   conditions=Conditions(size=helpers.SMALL, glare=0.0))
    return Path(helpers.glare_over(empty, "helmet", folder / "glare-helmet.png"))


@pytest.mark.ui
def test_ui_gear_uses_the_grids_the_camera_set_up_so_far(run_app: Any, helmet_glared: Path, tmp_path: Path) -> None:
    # Gear > Set up the camera, twice with glare on the helmet: "Use what is set up" keeps the other grids.
    import json

    config = tmp_path / "config"
    set_up = [{"do": "press", "id": "gear_more"},
              {"do": "text", "id": "gear_photo_source", "value": str(helmet_glared)},
              {"do": "press", "id": "gear_setup_camera"},
              {"do": "wait_until", "path": "gear.photo_busy", "equals": False, "timeout": 60}]
    steps = [{"do": "press", "id": "start_game"}, {"do": "wait_until", "path": "game.phase", "equals": "playing"},
             {"do": "go", "screen": "gear"}, *set_up, *set_up,
             {"do": "read", "id": "gear_message", "key": "asked"},
             {"do": "press", "id": "gear_more"}, {"do": "press", "id": "gear_keep_camera_partial"},
             {"do": "wait_until", "path": "gear.photo_busy", "equals": False, "timeout": 60},
             {"do": "read", "id": "gear_message", "key": "message"},
             {"do": "quit"}]
    report = run_app(steps, env={"FUJIKORO_CONFIG_DIR": str(config)})
    assert report["errors"] == []
    assert "Use what is set up" in report["reads"]["asked"]
    assert "set up in part" in report["reads"]["message"] and "helmet" in report["reads"]["message"]
    saved = list(config.rglob("*.json"))
    assert any(json.loads(p.read_text()).get("unset_grids") == ["helmet"] for p in saved)


@pytest.fixture(scope="module")
def photo_again(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Another photo of the same board as ``photo`` (another camera and light)."""
    from vision.synth import render_board, write_rendered
    from vision.template import load_template

    path = tmp_path_factory.mktemp("again") / "board.png"
    write_rendered(render_board(load_template(None, default_pack()), GEAR, seed=8), path)
    return path


@pytest.mark.ui
def test_ui_gear_retake_reads_the_same_board_with_the_photo_before_it(run_app: Any, glared: Path,
                                                                       photo: Path, photo_again: Path) -> None:
    # Glare over the sandals leaves them '?' and the reader asks for a retake; "Retake, keep what was read" reads
    # another photo of the same board (another camera and light) together with the first (vision.retake). A
    # cell the player set in between stays theirs, even where the retake reads it otherwise.
    first = read_gear(str(glared), "symmetric", default_pack())
    tapped = sorted(first.uncertain)[0]
    cell_id = f"gear_{tapped[0]}_{tapped[1]}_{tapped[2]}"
    paint = next(p for p in "WMT" if p != GEAR[tapped[0]][tapped[1]][tapped[2]])  # not what the cube is
    steps = [{"do": "press", "id": "start_game"}, {"do": "wait_until", "path": "game.phase", "equals": "playing"},
             {"do": "go", "screen": "gear"}, {"do": "press", "id": "gear_more"},
             {"do": "read", "id": "gear_retake_photo", "attr": "disabled", "key": "disabled_before"},
             {"do": "text", "id": "gear_photo_source", "value": str(glared)}, {"do": "press", "id": "gear_photo"},
             {"do": "wait_until", "path": "gear.photo_busy", "equals": False, "timeout": 30},
             {"do": "read", "id": "gear_message", "key": "first_message"},
             {"do": "press", "id": f"gear_paint_{paint}"}, {"do": "press", "id": cell_id},
             {"do": "press", "id": "gear_more"},
             {"do": "read", "id": "gear_retake_photo", "attr": "disabled", "key": "disabled_after"},
             {"do": "screenshot", "name": "gear-retake-offered"},
             {"do": "text", "id": "gear_photo_source", "value": str(photo)}, {"do": "press", "id": "gear_retake_photo"},
             {"do": "wait_until", "path": "gear.photo_busy", "equals": False, "timeout": 30},
             {"do": "read", "path": "gear.uncertain", "key": "uncertain_once"},
             {"do": "press", "id": "gear_more"},
             {"do": "text", "id": "gear_photo_source", "value": str(photo_again)},
             {"do": "press", "id": "gear_retake_photo"},
             {"do": "wait_until", "path": "gear.photo_busy", "equals": False, "timeout": 30},
             {"do": "read", "path": "gear.uncertain", "key": "uncertain"},
             {"do": "read", "path": "gear.grids", "key": "grids"},
             {"do": "read", "id": "gear_message", "key": "message"},
             {"do": "quit"}]
    report = run_app(steps)
    assert report["errors"] == []
    reads = report["reads"]
    assert reads["disabled_before"] is True and reads["disabled_after"] is False
    assert "Retake, keep what was read" in reads["first_message"]
    assert "Read with the photo before it" in reads["message"]
    grids = reads["grids"]
    assert grids[tapped[0]][tapped[1]][tapped[2]] == paint  # the player's, not the retake's
    # The glare left nothing to go on in the sandals: the first retake's reading of them is held for a second
    # photo's word, and the second retake gives it. Every cell no photo doubts is the board's.
    assert len(reads["uncertain_once"]) <= len(first.uncertain) - 1
    unsure = {tuple(int(x) if x.isdigit() else x for x in u.split(":")) for u in reads["uncertain"]}
    for name, rows in GEAR.items():
        for r, row in enumerate(rows):
            for c, want in enumerate(row):
                if (name, r, c) != tapped and (name, r, c) not in unsure:
                    assert grids[name][r][c] == want, (name, r, c)
    assert len(unsure) < len(reads["uncertain_once"])


def test_a_cell_the_player_set_stays_theirs_through_every_retake() -> None:
    # After a second retake the photos disagree on sandals[0][1] ('?'); the player had set it to T after the
    # first photo: it stays T and is not asked again. An untouched cell the photos now doubt leaves the gear.
    merged = PhotoGear({"sandals": ("M??",)}, frozenset({("sandals", 0, 1), ("sandals", 0, 2)}))
    grids, still = after_retake(merged, {"sandals": ["MTW"]}, {("sandals", 0, 1)})
    assert grids == {"sandals": ["MT."]} and still == {("sandals", 0, 2)}
    # Rows as the gear keeps them (short, or none) are read as empty cells.
    grids, still = after_retake(PhotoGear({"helmet": ("M.", "..")}, frozenset()), {"helmet": ["W"]}, set())
    assert grids == {"helmet": ["M.", ".."]} and still == set()
