"""Bids and turn order (spec 4.5)."""

from __future__ import annotations

import pytest

from games.shogun import bids
from games.shogun.bids import Bid, BidError, choosing_order


def test_everybody_pays_and_the_choosing_order_ranks_bids() -> None:
    """Spec 4.5: each pays their own bid; 4, 3, 2, 1, then province cards, then 0, then no bid."""
    players = ["a", "b", "c", "d", "e"]
    placed = {"a": Bid("chests", 0), "b": Bid("province", 0, "Aki"), "c": Bid("chests", 1), "d": Bid("none"),
              "e": Bid("chests", 4)}
    result = bids.settle(players, placed, {p: 5 for p in players})
    assert result.groups == (("e",), ("c",), ("b",), ("a",), ("d",))
    assert result.paid == {"a": 0, "b": 0, "c": 1, "d": 0, "e": 4}
    assert result.chests_after["e"] == 1


def test_equal_bids_are_shuffled_or_entered() -> None:
    """Spec 4.5 and A14: equal bids (two province cards too) are ordered by shuffled daimyo cards."""
    groups = [("a", "b"), ("c",)]
    assert bids.choosing_order(groups, tie_orders=[["b", "a"]]) == ["b", "a", "c"]
    drawn = bids.choosing_order(groups, seed=4)
    assert sorted(drawn[:2]) == ["a", "b"] and drawn == bids.choosing_order(groups, seed=4)
    with pytest.raises(BidError, match="bid the same"):
        bids.choosing_order(groups)


def test_turn_order_comes_from_the_spaces_not_the_choosing_order() -> None:
    """Spec 4.5 item 4: the order of the spaces that hold daimyo cards, space 1 first; empty spaces skipped."""
    assert bids.turn_order({"first_chooser": 5, "second": 1, "third": 3}) == ["second", "third", "first_chooser"]


def test_a_bid_above_cash_is_refused_or_warned() -> None:
    """A10 (assumed): refuse by default; the calculator can warn instead."""
    with pytest.raises(BidError, match="holds 1"):
        bids.settle(["a"], {"a": Bid("chests", 3)}, {"a": 1})
    warned = bids.settle(["a"], {"a": Bid("chests", 3)}, {"a": 1}, above_cash="warn")
    assert warned.warnings and warned.chests_after == {"a": 0}


@pytest.mark.parametrize("tie_orders", [5, "blue red", [["blue", 3]], [5]])
def test_a_tie_order_that_is_no_list_of_players_is_refused_in_one_sentence(tie_orders: object) -> None:
    """Bad input: one sentence naming the field, not a TypeError (2026-12-01)."""
    with pytest.raises(BidError, match=r"^tie_orders: expected one list of players per tied group"):
        choosing_order([["blue", "red"]], tie_orders=tie_orders)  # type: ignore[arg-type]
