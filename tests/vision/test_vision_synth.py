"""The renderer: deterministic, labelled, and physically ordered light colours."""

from __future__ import annotations

import numpy as np

from vision.colour import kelvin_to_rgb, lab_to_linear_rgb, linear_rgb_to_lab
from vision.synth import Conditions, random_gear, render_board
from vision.template import GEAR_GRIDS, load_template


def test_same_seed_same_photo_and_labels() -> None:
    t = load_template()
    gear = random_gear(np.random.default_rng(3), t, 0.5)
    cond = Conditions(size=(640, 480))
    a = render_board(t, gear, seed=3, conditions=cond)
    b = render_board(t, gear, seed=3, conditions=cond)
    assert np.array_equal(a.image, b.image)
    assert a.labels == b.labels
    assert a.image.shape == (480, 640, 3)
    assert all(a.labels[g] == gear[g] for g in GEAR_GRIDS)
    c = render_board(t, gear, seed=4, conditions=cond)
    assert not np.array_equal(a.image, c.image)


def test_warm_light_is_redder_than_daylight() -> None:
    warm, day = kelvin_to_rgb(2700), kelvin_to_rgb(6500)
    assert warm[2] / warm[0] < 0.2 < day[2] / day[0]


def test_lab_round_trip() -> None:
    rgb = np.array([[0.5, 0.3, 0.2], [0.05, 0.5, 0.9]], dtype=np.float32)
    assert np.allclose(lab_to_linear_rgb(linear_rgb_to_lab(rgb)), rgb, atol=1e-4)
    assert abs(float(linear_rgb_to_lab([1.0, 1.0, 1.0])[0]) - 100.0) < 0.01
