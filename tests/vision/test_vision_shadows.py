"""The reader's shadow reasoning: metal cubes beside other cubes under one lamp are read, not taken for
the neighbours' shadows, and the shadow directions it infers from the cubes' own rings."""

from __future__ import annotations

import numpy as np
import pytest

from vision.reader import _could_shadow, load_photo, read_board
from vision.synth import Conditions, render_board, write_rendered
from vision.template import GEAR_GRIDS, load_template

ONE_LAMP = Conditions(size=(1600, 1200), mixed_light=0.0, occluder_shadow=0.0, glare=0.0, motion_blur=0.0)


@pytest.mark.parametrize("seed", [106, 111])
def test_metal_cubes_beside_cubes_under_one_lamp_are_read(tmp_path, seed: int) -> None:  # type: ignore[no-untyped-def]
    # Grey metal looks like the light board in a bluish shadow; under one lamp no shadow is bluish, and the
    # ring of print on the lamp's side of each cube is lit, so no neighbour's shadow reaches the cube.
    template = load_template()
    rng = np.random.default_rng(seed)
    gear = {g: ["".join(str(rng.choice(["M", "M", "."])) for _ in range(template.grids[g].cols))
                for _ in range(template.grids[g].rows)] for g in GEAR_GRIDS}
    path = tmp_path / "board.jpg"
    write_rendered(render_board(template, gear, seed=seed, conditions=ONE_LAMP), path)
    reading = read_board(load_photo(path), template)
    for g in GEAR_GRIDS:
        assert list(reading.grids[g]) == gear[g], (g, [(c.row, c.col, c.reason) for c in reading.uncertain])


def test_a_shadow_falls_only_the_way_the_shadows_fall() -> None:
    template = load_template()
    caster, right, left = ("helmet", 1, 1), ("helmet", 1, 2), ("helmet", 1, 0)
    falls_right = {(1, 0)}
    assert _could_shadow(template, caster, right, falls_right)
    assert not _could_shadow(template, caster, left, falls_right)
    assert _could_shadow(template, caster, ("helmet", 2, 2), falls_right)  # diagonally, still rightwards
    assert not _could_shadow(template, caster, ("helmet", 2, 1), falls_right)
    assert _could_shadow(template, caster, left, None)  # nothing known: any neighbour may cast a shadow
