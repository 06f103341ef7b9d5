"""The state of a Shogun game: immutable, plain data (a new state per command).

Players are known by their colour. With the app's map (``mapped``) the state holds every province (owner,
armies, buildings, revolt tokens); without it (``mapped`` false) the table enters per-region counts and the
state holds those instead (``holdings``). Everything else - calendar, chests, rice, VP, the tower, the
round's cards and turn order, winter - is the same in both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.shogun.battle import Province
from games.shogun.bids import Bid
from games.shogun.scoring import PlayerScore, RegionCount
from games.shogun.tower import Tower

SEASONS = ("spring", "summer", "autumn", "winter")

# Phases, in the order a round goes through them (spec 2, 4, 7).
SETUP = "setup"  # starting provinces (map) and seeding the tower
LAY_OUT = "lay_out"  # step 1-2 (and the year's 4 events in spring)
EVENT = "event"  # step 4 (plans and bids are locked before it, step 3)
BIDS = "bids"  # step 5: reveal and pay
SPECIALS = "specials"  # step 5: take special cards in choosing order
ACTIONS = "actions"  # step 6
WINTER_SUPPLY = "winter_supply"  # 7.1
WINTER_REVOLTS = "winter_revolts"  # 7.2
SCORING = "scoring"  # 7.3
OVER = "over"


def season(round_number: int) -> str:
    return SEASONS[(round_number - 1) % 4] if round_number >= 1 else "setup"


def year(round_number: int) -> int:
    return 1 if round_number <= 4 else 2


@dataclass(frozen=True, slots=True)
class WinterRevolts:
    """One player's winter revolts: how many, extra peasants each, the drawn provinces (map) and those done."""

    count: int
    extra_peasants: int
    drawn: tuple[str, ...] = ()
    done: tuple[str, ...] = ()
    done_count: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "extra_peasants": self.extra_peasants, "drawn": list(self.drawn),
                "done": list(self.done), "done_count": self.done_count}


@dataclass(frozen=True, slots=True)
class State:
    players: tuple[str, ...]  # colours, seating order clockwise (first = oldest, starts the draft)
    names: Mapping[str, str]
    mapped: bool
    side: str
    regions: tuple[str, ...]
    round: int = 0
    phase: str = SETUP
    chests: Mapping[str, int] = field(default_factory=dict)
    rice: Mapping[str, int] = field(default_factory=dict)
    vp: Mapping[str, int] = field(default_factory=dict)
    supply: Mapping[str, int] = field(default_factory=dict)
    peasant_supply: int = 0
    buildings_left: Mapping[str, int] = field(default_factory=dict)
    tower: Tower = field(default_factory=Tower)
    tower_seeded: bool = False
    # the map (mapped games)
    provinces: Mapping[str, Province] = field(default_factory=dict)
    groups_left: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    # per-region counts (games without the map)
    holdings: Mapping[str, Mapping[str, RegionCount]] = field(default_factory=dict)
    # the year's and the round's cards
    events_used: tuple[str, ...] = ()
    events_face_up: tuple[str, ...] = ()
    event: str | None = None
    action_row: tuple[str, ...] = ()
    special_row: tuple[str, ...] = ()
    planned_owner: Mapping[str, str | None] = field(default_factory=dict)
    bids: Mapping[str, Bid] = field(default_factory=dict)
    choosing: tuple[str, ...] = ()
    spaces: Mapping[str, int] = field(default_factory=dict)  # player -> special card space (1-5)
    turn_order: tuple[str, ...] = ()
    autumn_order: tuple[str, ...] = ()
    position: int = 0  # 0-based action position while phase == ACTIONS
    actor: int = 0  # index into turn_order
    used: tuple[str, ...] = ()  # provinces whose card was laid this round (action or bid)
    done_actions: tuple[tuple[int, str, str], ...] = ()  # (position, player, what happened) this round
    # winter
    rice_loss: int | None = None
    winter: Mapping[str, WinterRevolts] = field(default_factory=dict)
    scores: tuple[Mapping[str, PlayerScore], ...] = ()  # one per scored winter
    # a throw's typo stays correctable: the state before it and the command
    before_throw: tuple[State, Mapping[str, Any]] | None = None
    warnings: tuple[str, ...] = ()
    randomisers: bool = True  # the app offers its seeded draws (rows, events, ties, the start, winter draws)

    def name(self, player: str | None) -> str:
        if player is None:
            return "nobody"
        return self.names.get(player, player)

    @property
    def season(self) -> str:
        return season(self.round)

    @property
    def current_player(self) -> str | None:
        if self.phase == ACTIONS and self.turn_order and self.mapped:
            return self.turn_order[self.actor]
        if self.phase == SPECIALS:
            return self.choosing[len(self.spaces)]
        if self.phase == SETUP and self.mapped and any(self.groups_left.values()):
            return draft_player(self)
        return None

    @property
    def current_action(self) -> str | None:
        if self.phase != ACTIONS or not self.mapped:
            return None
        return self.action_row[self.position] if self.position < len(self.action_row) else None

    def held(self, player: str) -> list[str]:
        return [pid for pid, p in self.provinces.items() if p.owner == player]

    def province_count(self, player: str) -> int:
        if self.mapped:
            return len(self.held(player))
        return sum(c.provinces for c in self.holdings.get(player, {}).values())


def draft_player(state: State) -> str | None:
    """Whose turn in the draft: seats in turns, clockwise from the first (oldest) player (spec 2.3)."""
    placed = {p: sum(1 for pid in state.provinces if state.provinces[pid].owner == p) for p in state.players}
    remaining = [p for p in state.players if state.groups_left.get(p)]
    if not remaining:
        return None
    fewest = min(placed[p] for p in remaining)
    return next(p for p in state.players if p in remaining and placed[p] == fewest)
