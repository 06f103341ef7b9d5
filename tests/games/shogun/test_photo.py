"""The tower's tray from a photo (issue 17 point 5; spec 12.1): the game's colours counted by the tray
reader, '?' (None) where it is unsure - never a guess. Rendered photos (vision.synth, a development seed)
with the tray sticker; the renderer's cubes are the five player colours of its own palette and green."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from games.shogun.pack import default_pack
from games.shogun.photo import CUBE_LAB, TrayPhotoError, read_tray
from ui.cli.main import main
from vision import synth


@pytest.mark.parametrize(("seed", "sure"), [(11_003, 2), (11_004, 5)])
def test_the_tray_is_counted_in_the_games_colours_without_a_guess(seed: int, sure: int) -> None:
    rendered = synth.render_tray(seed=seed)
    want = rendered.labels["counts"]
    reading = read_tray(rendered.image, default_pack())
    assert set(reading.counts) == {*default_pack().colours, "green"}
    for colour, n in reading.counts.items():
        assert n in (want.get(colour, 0), None), (colour, n, want)
    assert sum(n is not None for n in reading.counts.values()) >= sure
    # Black cubes on the dark lining: the reader says it cannot tell, and why.
    assert reading.counts["black"] is None and "black" in reading.uncertain


def test_a_colour_without_a_known_cube_colour_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(CUBE_LAB, "purple")
    with pytest.raises(TrayPhotoError, match="components.colours: no cube colour is known for purple"):
        read_tray(synth.render_tray(seed=11_003).image, default_pack())


def test_read_tray_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photo = tmp_path / "tray.png"
    cv2.imwrite(str(photo), synth.render_tray(seed=11_004).image)
    assert main(["shogun", "read-tray", str(photo)], prog="table-companion") == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["counts"]) == {*default_pack().colours, "green"}
    assert all(v == "?" or isinstance(v, int) for v in out["counts"].values())
    assert main(["shogun", "read-tray", str(tmp_path / "none.png")], prog="table-companion") == 2
    assert capsys.readouterr().err.count("\n") == 1
