"""Winter supply (spec 7.1-7.2)."""

from __future__ import annotations

import pytest

from companion.datapack import DataPackError, apply_overrides
from games.shogun import winter
from games.shogun.pack import default_pack, load, parse, shipped_raw


def test_petr_example_three_unsupplied_two_revolts() -> None:
    """Spec 7.2 Petr [§ Revolty]: 9 provinces, 6 rice -> 3 unsupplied -> 2 revolts, each with 1 peasant per
    revolt token plus 2."""
    line = winter.supply(default_pack(), rice=6, provinces=9, rice_loss=0)
    assert (line.unsupplied, line.revolts, line.extra_peasants) == (3, 2, 2)
    assert winter.peasants_for(revolt_tokens=1, extra_peasants=line.extra_peasants or 0) == 3


def test_ota_example_two_unsupplied_one_revolt() -> None:
    """Spec 6.8 Kai / 7.2 [§ Výsledek bitvy…]: Ota lacks 2 rice -> 1 revolt with 2 extra peasants."""
    line = winter.supply(default_pack(), rice=5, provinces=6, rice_loss=1)
    assert (line.rice_after_loss, line.unsupplied, line.revolts, line.extra_peasants) == (4, 2, 1, 2)


def test_an_unknown_row_says_so_instead_of_guessing() -> None:
    """Spec 7.2, 9: only rows 0, 2, 3 are known; the others are printed on the board."""
    line = winter.supply(default_pack(), rice=0, provinces=5, rice_loss=0)
    assert line.revolts is None and line.extra_peasants is None
    assert line.unknown is not None and "supply_table.u5" in line.unknown
    corrected = load({"supply_table.u5.revolts": 2, "supply_table.u5.extra_peasants": 3})
    assert winter.supply(corrected, rice=0, provinces=5, rice_loss=0).revolts == 2


def test_rice_floors_at_zero_and_revolts_are_capped_by_provinces() -> None:
    """A8: rice does not go below 0; A13: more revolts than provinces -> every province revolts."""
    # (A board whose row 2 said 3 revolts: the shipped row is locked, so the pack is built past load's check.)
    pack = parse(apply_overrides(shipped_raw(), {"supply_table.u2.revolts": 3}))
    line = winter.supply(pack, rice=1, provinces=2, rice_loss=4)
    assert line.rice_after_loss == 0 and line.unsupplied == 2 and line.revolts == 2


def test_revolt_order_and_who_draws() -> None:
    """Spec 7.1: revolts in the autumn turn order; 7.2: the left-hand neighbour draws."""
    assert winter.revolt_order(["c", "a", "b"], ["b", "c"]) == ["c", "b"]
    assert winter.left_neighbour(["a", "b", "c"], "c") == "a"


def test_the_supply_rows_the_rulebook_gives_stay_locked() -> None:
    """Spec 12 (the supply table: "editable rows; keep the known rows locked as confirmed"): a correction of row 2
    or 3 (the Ota/Kai and Petr examples, spec 7.2) or of row 0 (derived) is refused in one sentence; the unknown
    rows take the group's values. (Any value could be corrected until 2026-12-01.)"""
    for key in ("supply_table.u2.revolts", "supply_table.u3.extra_peasants", "supply_table.u0.revolts"):
        with pytest.raises(DataPackError, match=rf"^{key} is (confirmed|derived) .* stays as it is"):
            load({key: 5})
    assert load({"supply_table.u4.revolts": 2}).status("supply_table.u4.revolts").value == "corrected"
