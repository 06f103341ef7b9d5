"""The tray counter (vision.tray): plain cubes by colour, '?' rather than a wrong count it can see is
doubtful; photos from both renderers (dev seeds, not the benchmark's)."""

from __future__ import annotations

import numpy as np
import pytest

from vision import synth, synth2
from vision.tray import TrayReadError, count_tray


@pytest.mark.parametrize("seed", [11_003, 11_004])
def test_counts_lone_and_touching_cubes_on_the_first_renderers_tray(seed: int) -> None:
    rendered = synth.render_tray(seed=seed)
    assert rendered.labels["stacked"] == 0
    reading = count_tray(rendered.image)
    for colour, want in rendered.labels["counts"].items():
        assert reading.counts[colour] in (want, None), (colour, want, reading.counts)
    assert sum(v is not None for v in reading.counts.values()) >= 3


def test_second_renderers_tray_reads_without_confident_errors_when_nothing_is_stacked() -> None:
    image, labels = synth2.render_tray(11_001)
    assert labels["stacked"] == 0
    reading = count_tray(image)
    assert all(reading.counts[c] in (want, None) for c, want in labels["counts"].items()), reading.counts
    assert reading.to_json()["counts"].keys() == labels["counts"].keys()


def test_no_tray_sticker_is_refused() -> None:
    with pytest.raises(TrayReadError, match="no tray sticker"):
        count_tray(np.full((600, 800, 3), 40, np.uint8))


@pytest.mark.parametrize(("renderer", "seed"), [("first", 11_028), ("first", 11_049), ("second", 11_005),
                                                ("second", 11_040)])
def test_a_cube_under_another_is_not_counted_away_confidently(renderer: str, seed: int) -> None:
    # Dev-seed photos with a cube stacked on one of another colour, turned on it: the lower cube shows only as
    # slivers along the upper one's edges. The counter used to count that colour one short, confidently.
    if renderer == "first":
        rendered = synth.render_tray(seed=seed)
        image, labels = rendered.image, rendered.labels
    else:
        image, labels = synth2.render_tray(seed)
    assert labels["stacked"] >= 1
    reading = count_tray(image)
    assert all(reading.counts[c] in (want, None) for c, want in labels["counts"].items()), (labels, reading.counts)
    assert any(reading.counts[c] is None for c in labels["counts"])
    assert any("under it?" in r or "stacked" in r for r in reading.reasons.values()), reading.reasons
