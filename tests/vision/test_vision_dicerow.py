"""The dice-row reader (vision.dicerow, The White Castle's bridges): colours and values in their rows, '?'
rather than a guess; photos from both renderers (development seeds, not the benchmark's)."""

from __future__ import annotations

import numpy as np
import pytest

from vision import synth, synth2
from vision.dicerow import DiceReadError, read_dice_rows


def _check(want: list[list[object]], got: list[list[object]]) -> int:
    """Dice read right; fails on a confident error. Rows split differently must come with a '?'."""
    if [len(r) for r in got] != [len(r) for r in want]:
        assert any("?" in d for r in got for d in r), (want, got)
        return 0
    right = 0
    for want_row, got_row in zip(want, got, strict=True):
        for w, g in zip(want_row, got_row, strict=True):
            assert "?" in g or list(g) == list(w), (want, got)
            right += list(g) == list(w)
    return right


@pytest.mark.parametrize("seed", [11_001, 11_002])
def test_reads_rows_of_the_first_renderer(seed: int) -> None:
    rendered = synth.render_dice_rows(seed=seed)
    assert _check(rendered.labels["rows"], read_dice_rows(rendered.image).to_json()["rows"]) >= 1


def test_reads_rows_of_the_second_renderer_without_confident_errors() -> None:
    right = 0
    for seed in (11_004, 11_005):
        image, labels = synth2.render_dice_rows(seed)
        right += _check(labels["rows"], read_dice_rows(image).to_json()["rows"])
    assert right >= 3


def test_no_sticker_is_refused() -> None:
    with pytest.raises(DiceReadError):
        read_dice_rows(np.full((600, 800, 3), 200, np.uint8))


def test_pips_count_only_when_laid_out_as_a_dies_face() -> None:
    from vision.dicerow import pips_laid_out

    five = np.array([[-4.0, -4.0], [4.0, -4.0], [0.0, 0.0], [-4.0, 4.0], [4.0, 4.0]]) + [30.0, 50.0]
    assert pips_laid_out(five, 0.0)
    turned = five @ np.array([[0.96, 0.28], [-0.28, 0.96]])  # the die turned ~16 degrees
    assert pips_laid_out(turned, 16.3) and pips_laid_out(turned, -73.7) and not pips_laid_out(turned, 40.0)
    assert pips_laid_out(np.array([[-4.0, 4.0], [0.0, 0.0], [4.0, -4.0]]), 0.0)
    # A two with a fleck beside it is no three; a three along an edge is no face at all.
    assert not pips_laid_out(np.array([[-4.0, -4.0], [4.0, 4.0], [4.0, 0.0]]), 0.0)
    assert not pips_laid_out(np.array([[-4.0, -4.0], [0.0, -4.0], [4.0, -4.0]]), 0.0)
    six = np.array([[x, y] for x in (-4.0, 4.0) for y in (-4.0, 0.0, 4.0)])
    assert pips_laid_out(six, 0.0) and pips_laid_out(six[:, ::-1], 0.0)
