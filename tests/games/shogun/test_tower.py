"""The tower's bookkeeping (spec 6.1, 2.5, 12.1 item 6): exact contents by conservation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.shogun.tower import Tower, TowerError, add, audit

COLOURS = ("blue", "red", "green")


def test_inside_after_is_inside_before_plus_thrown_minus_out() -> None:
    """Spec 6.1: inside_after[c] = inside_before[c] + thrown[c] - out[c]; the tray goes in with the throw."""
    tower = Tower(inside={"blue": 1}, tray={"red": 2})
    after = tower.throw({"blue": 3, "green": 1}, {"blue": 2, "red": 1})
    assert after.inside == {"blue": 2, "red": 1, "green": 1}
    assert after.tray == {"blue": 2, "red": 1}
    assert after.throws[-1].thrown == {"blue": 3, "red": 2, "green": 1}


def test_more_out_than_went_in_or_was_inside_is_refused() -> None:
    with pytest.raises(TowerError, match=r"out.green: 2 cube\(s\) counted in the tray, but only 1 went in and 0"):
        Tower().throw({"green": 1}, {"green": 2})
    with pytest.raises(TowerError, match="expected a whole number"):
        Tower().throw({"green": 1}, {"green": -1})


def test_cubes_that_fall_out_by_themselves_wait_in_the_tray() -> None:
    """Spec 6.1: cubes that fall out between battles stay in the tray and go in with the next battle."""
    tower = Tower(inside={"red": 2}).fell_out({"red": 1})
    assert tower.inside == {"red": 1} and tower.tray == {"red": 1}
    assert tower.throws[-1].kind == "fell_out" and tower.throws[-1].observations() == []
    with pytest.raises(TowerError, match="only 1 were inside"):
        tower.fell_out({"red": 2})


def test_the_audit_adds_board_supply_inside_and_tray() -> None:
    """Spec 12.1 item 6: board + supply + inside + tray = 62 per player colour, 20 green (spec 1)."""
    tower = Tower(inside={"blue": 3, "green": 2}, tray={"blue": 1})
    lines = audit(("blue", "green"), {"blue": 20}, {"blue": 38, "green": 18}, tower, {"blue": 62, "green": 20})
    assert [(line.colour, line.total, line.ok) for line in lines] == [("blue", 62, True), ("green", 20, True)]


throw_step = st.tuples(
    st.sampled_from(["throw", "fell_out", "take"]),
    st.fixed_dictionaries({c: st.integers(0, 6) for c in COLOURS}),
    st.fixed_dictionaries({c: st.integers(0, 20) for c in COLOURS}),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(throw_step, max_size=30))
def test_cubes_are_conserved_over_any_sequence_of_throws(
    steps: list[tuple[str, dict[str, int], dict[str, int]]],
) -> None:
    """Spec 6.1: whatever the table enters (if it can be true), outside + inside + tray never changes, and an
    entry that cannot be true changes nothing."""
    outside = {"blue": 30, "red": 30, "green": 20}
    tower = Tower()
    for kind, amount, wanted in steps:
        before = (dict(outside), tower)
        try:
            if kind == "throw":
                added = {c: min(amount[c], outside[c]) for c in COLOURS}
                outside = {c: outside[c] - added[c] for c in COLOURS}
                # the counted tray is what the table says, capped by nothing: impossible counts are refused
                tower = tower.throw(added, {c: min(wanted[c], 12) for c in COLOURS})
            elif kind == "fell_out":
                tower = tower.fell_out({c: min(amount[c], 3) for c in COLOURS})
            else:
                taken = {c: min(amount[c], tower.tray.get(c, 0)) for c in COLOURS}
                tower = tower.take_from_tray(taken)
                outside = dict(add(outside, taken))
        except TowerError:
            outside, tower = before
        for c in COLOURS:
            total = outside.get(c, 0) + tower.inside.get(c, 0) + tower.tray.get(c, 0)
            assert total == {"blue": 30, "red": 30, "green": 20}[c]
            assert tower.inside.get(c, 0) >= 0 and tower.tray.get(c, 0) >= 0
