"""Each game keeps its own data-pack corrections (issue 16, issue 17 point 1): a Fuji Koro correction never
reaches a Shogun pack, and Fuji Koro's file keeps the name it had when it was the only game."""

from __future__ import annotations

from companion.paths import app_paths
from store.overrides import overrides_path, read_overrides, write_overrides


def test_corrections_are_kept_per_game() -> None:
    write_overrides("fujikoro", {"dragons.green_2.health": 11})
    write_overrides("shogun", {"events.e05.rice_loss": 4})
    assert read_overrides("fujikoro") == {"dragons.green_2.health": 11}
    assert read_overrides("shogun") == {"events.e05.rice_loss": 4}
    assert overrides_path("fujikoro") == app_paths().config / "data-overrides.toml"
    assert overrides_path("shogun") == app_paths().config / "data-overrides-shogun.toml"
    assert read_overrides("counter") == {}
