"""The data pack (spec 9, 12.4): statuses, the shipped values, validation, corrections."""

from __future__ import annotations

import pytest

from companion.datapack import DataPackError, Status, iter_leaves
from games.shogun.pack import default_pack, load, parse, shipped_raw, what_to_check_first


def test_every_value_carries_a_status() -> None:
    """Spec 12.4: every value carries confirmed | derived | assumed (| unknown)."""
    leaves = list(iter_leaves(shipped_raw()))
    assert len(leaves) > 700
    assert {node["status"] for _, node in leaves} <= {s.value for s in Status}


def test_the_shipped_pack_matches_the_components() -> None:
    """Spec 1, 2.2: 5 regions x 9 provinces per side, 8 light-bordered; 18/15/12 chests; 9/8/7 seats;
    62 cubes a colour, 20 green; tower seed 7 per player + 10 green (2.5)."""
    pack = default_pack()
    for side in pack.sides.values():
        assert len(side.provinces) == 45 and len(side.regions) == 5
        assert all(sum(p.region == r for p in side.provinces.values()) == 9 for r in side.regions)
        assert sum(p.light_bordered for p in side.provinces.values()) == 8
    assert [pack.players(n).chests for n in (3, 4, 5)] == [18, 15, 12]
    assert [pack.players(n).seats for n in (3, 4, 5)] == [9, 8, 7]
    assert (pack.cubes_per_colour, pack.peasant_cubes, pack.seed_per_player, pack.seed_green) == (62, 20, 7, 10)
    assert pack.sides["sun"].provinces["settsu"].tax == 7  # spec 4.3 example
    assert "kozuke" in pack.sides["sun"].provinces["shinano"].adjacent  # spec 6.8 Kozuke example
    assert pack.status("supply_table.u2.revolts") is Status.CONFIRMED
    assert pack.events["e01"].tax_cap == 5 and pack.events["e01"].rice_loss is None


@pytest.mark.parametrize("corrections, message", [
    ({"sides.sun.provinces.kai.neighbours": ["suruga", "musashi", "sagami", "shinano", "aki"]},
     "sides.sun.provinces.kai.neighbours: lists 'aki', but 'aki' does not list 'kai' back"),
    ({"sides.sun.provinces.kai.region": "ezo"}, "sides.sun.provinces.kai.region: 'ezo' is not one of"),
    ({"sides.moon.provinces.aki.sites": 4}, "sides.moon.provinces.aki.sites: must be at most 3, got 4"),
    ({"tower_model.p": 1.5}, "tower_model.p: must lie between 0.0 and 1.0"),
    ({"army_groups.sizes": [5, 4]}, "army_groups.sizes: expected 9 numbers"),
    ({"rule_options.a1_reveal": "never"}, "rule_options.a1_reveal: expected one of"),
])
def test_bad_values_are_refused_in_one_sentence_naming_the_field(corrections: dict[str, object], message: str) -> None:
    with pytest.raises(DataPackError) as error:
        load(corrections)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_status_outside_the_four_is_refused() -> None:
    raw = shipped_raw()
    raw["tower"]["seed_green"]["status"] = "guessed"
    with pytest.raises(DataPackError, match="tower.seed_green.status: must be confirmed, derived, assumed or unknown"):
        parse(raw)


def test_a_correction_of_an_unknown_value_makes_it_known() -> None:
    pack = load({"events.e05.rice_loss": 4})
    assert pack.events["e05"].rice_loss == 4
    assert pack.status("events.e05.rice_loss") is Status.CORRECTED
    with pytest.raises(DataPackError, match="no such key 'events.e99.rice_loss'"):
        load({"events.e99.rice_loss": 1})


def test_what_to_check_first_names_the_unknowns() -> None:
    lines = what_to_check_first(default_pack())
    assert lines[0].startswith("supply table rows 1, 4, 5, 6, 7")
    assert any("rice loss of 12 event cards" in line for line in lines)
