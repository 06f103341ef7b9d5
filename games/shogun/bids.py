"""Bids and turn order (spec 4.5): everybody pays their own bid; the choosing order; the turn order from the
special cards' spaces (not from the choosing order)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


class BidError(ValueError):
    """A bid that cannot be (one sentence naming the player)."""


@dataclass(frozen=True, slots=True)
class Bid:
    kind: str  # "chests" | "province" | "none"
    chests: int = 0
    province: str | None = None

    @property
    def rank(self) -> int:
        """Higher first: chests 4..1 (8..5), a province card (4, after 1 and before 0, spec 4.5), 0 (3), none."""
        if self.kind == "chests":
            return 4 + self.chests if self.chests > 0 else 3
        return 4 if self.kind == "province" else 0

    def to_json(self) -> dict[str, Any]:
        if self.kind == "chests":
            return {"war_chest_card": self.chests}
        if self.kind == "province":
            return {"province_card": self.province}
        return {"none": True}

    def text(self) -> str:
        return {"chests": f"{self.chests} chest(s)", "province": f"a province card ({self.province})",
                "none": "no bid"}[self.kind]


def parse_bid(player: str, value: Any) -> Bid:
    """{"war_chest_card": n} | {"province_card": name} | {"none": true} (also {"chests": n}, {"province": id})."""
    if not isinstance(value, Mapping):
        raise BidError(f"bids.{player}: expected an object such as {{\"war_chest_card\": 2}}, got {value!r}")
    chests = value.get("war_chest_card", value.get("chests"))
    province = value.get("province_card", value.get("province"))
    if chests is not None:
        if isinstance(chests, bool) or not isinstance(chests, int) or not 0 <= chests <= 4:
            raise BidError(f"bids.{player}.war_chest_card: a war chest card shows 0 to 4 chests, got {chests!r}")
        return Bid("chests", chests)
    if province is not None:
        if not isinstance(province, str) or not province:
            raise BidError(f"bids.{player}.province_card: expected a province name, got {province!r}")
        return Bid("province", 0, province)
    if value.get("none") is True or not value:
        return Bid("none")
    raise BidError(f"bids.{player}: expected war_chest_card, province_card or none, got {dict(value)!r}")


@dataclass(frozen=True, slots=True)
class BidResult:
    groups: tuple[tuple[str, ...], ...]  # equal bids together, best first; order inside a group is open
    paid: Mapping[str, int]
    chests_after: Mapping[str, int]
    warnings: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"choosing_order_groups": [list(g) for g in self.groups], "paid_to_bank": dict(self.paid),
                "chests_after": dict(self.chests_after), "warnings": list(self.warnings)}


def settle(players: Sequence[str], bids: Mapping[str, Bid], chests_before: Mapping[str, int], *,
           above_cash: str = "refuse") -> BidResult:
    """Everybody pays the value of their own bid to the bank at once; group the choosing order."""
    warnings: list[str] = []
    paid: dict[str, int] = {}
    after: dict[str, int] = {}
    for p in players:
        bid = bids.get(p, Bid("none"))
        cash = chests_before.get(p, 0)
        if bid.chests > cash:
            message = f"{p} bids {bid.chests} chest(s) but holds {cash} (A10)"
            if above_cash == "refuse":
                raise BidError(message + "; a bid above your chests is not allowed")
            warnings.append(message)
        paid[p] = min(bid.chests, cash)
        after[p] = cash - paid[p]
    ranks = sorted({bids.get(p, Bid("none")).rank for p in players}, reverse=True)
    groups = tuple(tuple(p for p in players if bids.get(p, Bid("none")).rank == r) for r in ranks)
    return BidResult(groups, paid, after, tuple(warnings))


def choosing_order(groups: Sequence[Sequence[str]], *, seed: int | None = None,
                   tie_orders: Sequence[Sequence[str]] = ()) -> list[str]:
    """Equal bids are ordered at random (shuffled daimyo cards): by the table's result in ``tie_orders`` (one
    list per tied group, in group order), else by a seeded shuffle."""
    if isinstance(seed, bool) or not isinstance(seed, int | None):
        raise BidError(f"seed: expected a whole number (or none), got {seed!r}")
    if isinstance(tie_orders, str | bytes) or not isinstance(tie_orders, Sequence) or any(
            isinstance(t, str | bytes) or not isinstance(t, Sequence) or not all(isinstance(p, str) for p in t)
            for t in tie_orders):
        raise BidError(f"tie_orders: expected one list of players per tied group, best first, got {tie_orders!r}")
    rng = random.Random(seed)
    given = [list(t) for t in tie_orders]
    order: list[str] = []
    for group in groups:
        if len(group) == 1:
            order.extend(group)
            continue
        match = next((t for t in given if sorted(t) == sorted(group)), None)
        if match is not None:
            order.extend(match)
        elif seed is not None:
            shuffled = list(group)
            rng.shuffle(shuffled)
            order.extend(shuffled)
        else:
            raise BidError(f"{', '.join(group)} bid the same: give their order (shuffled daimyo cards) or let the "
                           "app draw it")
    return order


def ties(groups: Sequence[Sequence[str]]) -> list[list[str]]:
    return [list(g) for g in groups if len(g) > 1]


def turn_order(spaces: Mapping[str, int]) -> list[str]:
    """Turn order = the order of the spaces holding daimyo cards, space 1 first (spec 4.5 item 4)."""
    return sorted(spaces, key=lambda p: spaces[p])
