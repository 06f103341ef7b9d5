"""The gear editor's "Read from photo": a real OpenCV reading of a rendered board photo (file or folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from companion.datapack import default_pack
from ui.photos import PhotoSourceError, newest_photo, read_gear

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


def test_ui_read_gear_from_a_photo_file_and_folder(photo: Path) -> None:
    grids = read_gear(str(photo), "symmetric", default_pack())
    assert set(grids) == set(GEAR)
    cells = sum(len(row) for rows in GEAR.values() for row in rows)
    wrong = sum(a != b for name in GEAR for want, got in zip(GEAR[name], grids[name], strict=True)
                for a, b in zip(want, got, strict=True))
    assert wrong <= cells // 20, grids  # a clean photo reads (almost) exactly
    assert read_gear(str(photo.parent), "symmetric", default_pack()) == grids  # the folder's newest photo


def test_ui_photo_sources_that_cannot_work(tmp_path: Path, photo: Path) -> None:
    with pytest.raises(PhotoSourceError, match="Settings"):
        read_gear("", "symmetric", default_pack())
    with pytest.raises(PhotoSourceError, match="no photo"):
        newest_photo(tmp_path)
    with pytest.raises(PhotoSourceError, match="neither"):
        read_gear(str(tmp_path / "missing.png"), "symmetric", default_pack())
    os.utime(photo)
    assert newest_photo(photo.parent) == photo
