"""Shogun's data pack: the map, the supply table, the events, the tower model, the rule options (spec 9, 12.4).

The shipped pack is ``games/shogun/data/shogun.toml``; every value carries a status (``companion.datapack``).
Values the pack marks ``unknown`` are placeholders: the typed model holds ``None`` for them and the rules ask
the table (or the calculators say "unknown") instead of guessing. A group's corrections are a flat mapping
of dotted keys (``{"sides.sun.provinces.settsu.tax": 6}``) layered on top.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from companion.datapack import (
    DataPackError,
    Reader,
    Status,
    apply_overrides,
    check_int,
    find,
    is_leaf,
    leaf_status,
)

PACK_RESOURCE = "shogun.toml"
GREEN = "green"
ACTIONS = ("castle", "temple", "theatre", "rice", "taxes", "deploy5", "deploy3", "deploy1", "battle_a", "battle_b")
BUILDINGS = ("castle", "temple", "theatre")
SPECIALS = ("chest_plus_1", "rice_plus_1", "six_armies", "attack_plus_1", "defence_plus_1")
SIDES = ("sun", "moon")


@dataclass(frozen=True, slots=True)
class Province:
    id: str
    name: str
    region: str
    tax: int
    rice: int
    sites: int
    light_bordered: bool
    neighbours: frozenset[str]
    sea_links: frozenset[str]

    @property
    def adjacent(self) -> frozenset[str]:
        """Land neighbours and provinces joined by a dashed sea line (spec 5, Moving)."""
        return self.neighbours | self.sea_links


@dataclass(frozen=True, slots=True)
class BoardSide:
    name: str
    regions: tuple[str, ...]
    provinces: Mapping[str, Province]

    def in_play(self, light_bordered_in_play: bool) -> tuple[str, ...]:
        return tuple(p.id for p in self.provinces.values() if light_bordered_in_play or not p.light_bordered)


@dataclass(frozen=True, slots=True)
class PlayerCount:
    chests: int
    seats: int
    light_bordered_in_play: bool


@dataclass(frozen=True, slots=True)
class SupplyRow:
    """One row of the board's supply table; ``None`` where the pack marks the value unknown."""

    unsupplied: int
    revolts: int | None
    extra_peasants: int | None
    candidate: str = ""

    @property
    def known(self) -> bool:
        return self.revolts is not None and self.extra_peasants is not None


@dataclass(frozen=True, slots=True)
class EventCard:
    id: str
    text: str
    text_known: bool
    rice_loss: int | None
    tax_cap: int | None = None


@dataclass(frozen=True, slots=True)
class TowerPrior:
    p: float
    q: float
    status: str
    min_throws_to_fit: int


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """The defaults for the ambiguities A1-A15 (spec 10); each can be corrected like any value."""

    a1_reveal: str = "just_before"
    a2_income_when_revolt_won: bool = True
    a2_income_when_revolt_lost: bool = False
    a3_owner_loses: str = "greens_in_tray"
    a4_losses: str = "greens_first"
    a5_extra_cube_from: str = "supply"
    a6_attack_bonus_vs_neutral: bool = True
    a7_seed_greens_out: str = "peasant_supply"
    a8_rice_floor_zero: bool = True
    a9_majority_needs_building: bool = True
    a10_bid_above_cash: str = "refuse"
    a11_full_tie: str = "shared"
    a12_winter_token: bool = True
    a13_more_revolts_than_provinces: str = "all"
    a14_province_bids_tie: str = "shuffle"
    a15_winter_draw_from: str = "all_provinces"


_OPTION_CHOICES: dict[str, tuple[str, ...]] = {
    "a1_reveal": ("just_before", "one_per_action"),
    "a3_owner_loses": ("greens_in_tray", "greens_thrown"),
    "a4_losses": ("greens_first", "own_first"),
    "a5_extra_cube_from": ("supply",),
    "a7_seed_greens_out": ("peasant_supply",),
    "a10_bid_above_cash": ("refuse", "warn"),
    "a11_full_tie": ("shared",),
    "a13_more_revolts_than_provinces": ("all",),
    "a14_province_bids_tie": ("shuffle",),
    "a15_winter_draw_from": ("all_provinces",),
}


@dataclass(frozen=True, slots=True)
class Scoring:
    province: int = 1
    building: int = 1
    castle_majority: int = 3
    temple_majority: int = 2
    theatre_majority: int = 1
    tie_penalty: int = 1

    def majority(self, building: str) -> int:
        return {"castle": self.castle_majority, "temple": self.temple_majority,
                "theatre": self.theatre_majority}[building]


@dataclass(frozen=True, slots=True)
class Pack:
    version: str
    raw: Mapping[str, Any]
    cubes_per_colour: int
    peasant_cubes: int
    chests_in_box: int
    building_tokens: Mapping[str, int]
    revolt_tokens: int
    colours: tuple[str, ...]
    player_counts: Mapping[int, PlayerCount]
    army_groups: tuple[int, ...]
    presets: Mapping[int, tuple[tuple[str, str, int], ...] | None]
    seed_per_player: int
    seed_green: int
    tower_prior: TowerPrior
    action_names: Mapping[str, str]
    action_costs: Mapping[str, int]
    special_names: Mapping[str, str]
    scoring: Scoring
    supply_table: tuple[SupplyRow, ...]
    events: Mapping[str, EventCard]
    options: RuleOptions
    sides: Mapping[str, BoardSide]

    def supply_row(self, unsupplied: int) -> SupplyRow:
        """The supply-table row for a shortfall; the last row holds for anything larger (spec 7.2)."""
        if unsupplied < 0:
            raise DataPackError(f"unsupplied provinces cannot be negative, got {unsupplied}")
        return self.supply_table[min(unsupplied, len(self.supply_table) - 1)]

    def players(self, count: int) -> PlayerCount:
        try:
            return self.player_counts[count]
        except KeyError:
            raise DataPackError(f"Shogun is for 3 to 5 players, not {count}") from None

    def status(self, key: str) -> Status:
        return Reader(self.raw).status(key)


def shipped_raw() -> dict[str, Any]:
    text = resources.files("games.shogun.data").joinpath(PACK_RESOURCE).read_text(encoding="utf-8")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise DataPackError(f"the shipped Shogun data pack is not valid TOML: {error}") from None


def load(overrides: Mapping[str, Any] | None = None) -> Pack:
    """The shipped pack with a group's corrections on top, checked. The supply table's rows the rulebook's own
    examples give (confirmed, or derived from them) stay locked (spec 12: "keep the known rows locked as
    confirmed"); the unknown rows are the group's to enter."""
    raw = shipped_raw()
    if overrides:
        for key in overrides:
            if key.startswith("supply_table."):
                node = find(raw, key)
                if is_leaf(node) and leaf_status(node) in (Status.CONFIRMED, Status.DERIVED):
                    raise DataPackError(f"{key} is {leaf_status(node).value} ({node.get('source', 'spec 7.2')}) and "
                                        "stays as it is; correct the unknown rows of the supply table")
        raw = apply_overrides(raw, overrides)
    return parse(raw)


_DEFAULT: Pack | None = None


def default_pack() -> Pack:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load()
    return _DEFAULT


def parse(raw: Mapping[str, Any]) -> Pack:
    """Raw pack -> typed model; a one-sentence :class:`DataPackError` naming the field for any bad value."""
    r = Reader(raw)
    meta = r.section("meta")
    version = str(meta.get("version", "0"))
    colours = r.text_list("components.colours")
    if len(colours) != 5 or len(set(colours)) != 5 or GREEN in colours:
        raise DataPackError(f"components.colours: expected 5 different colour names other than green, got {colours!r}")
    counts = {n: PlayerCount(r.integer(f"players.p{n}.chests"), r.integer(f"players.p{n}.seats", minimum=1, maximum=9),
                             r.boolean(f"players.p{n}.light_bordered_in_play")) for n in (3, 4, 5)}
    groups = r.int_list("army_groups.sizes", minimum=1)
    if len(groups) != 9:
        raise DataPackError(f"army_groups.sizes: expected 9 numbers (one per seat), got {len(groups)}")
    actions = {a: r.text(f"actions.{a}.name") for a in ACTIONS}
    costs = {a: r.integer(f"actions.{a}.cost") for a in ACTIONS}
    specials = {s: r.text(f"specials.{s}") for s in SPECIALS}
    scoring = Scoring(**{name: r.integer(f"scoring.{name}") for name in Scoring.__dataclass_fields__})
    sides = {name: _parse_side(r, name) for name in SIDES}
    presets = {n: _parse_preset(r, n, sides) for n in (3, 4, 5)}
    return Pack(
        version=version,
        raw=raw,
        cubes_per_colour=r.integer("components.army_cubes_per_colour", minimum=1),
        peasant_cubes=r.integer("components.peasant_cubes", minimum=1),
        chests_in_box=r.integer("components.chests_in_box"),
        building_tokens={b: r.integer(f"components.{b}s") for b in BUILDINGS},
        revolt_tokens=r.integer("components.revolt_tokens"),
        colours=colours,
        player_counts=counts,
        army_groups=groups,
        presets=presets,
        seed_per_player=r.integer("tower.seed_per_player"),
        seed_green=r.integer("tower.seed_green"),
        tower_prior=TowerPrior(r.number("tower_model.p", low=0.0, high=1.0),
                               r.number("tower_model.q", low=0.0, high=1.0),
                               r.status("tower_model.p").value, r.integer("tower_model.min_throws_to_fit")),
        action_names=actions,
        action_costs=costs,
        special_names=specials,
        scoring=scoring,
        supply_table=_parse_supply(r),
        events=_parse_events(r),
        options=_parse_options(r),
        sides=sides,
    )


def _parse_supply(r: Reader) -> tuple[SupplyRow, ...]:
    section = r.section("supply_table")
    rows: list[SupplyRow] = []
    for n in range(len(section)):
        key = f"supply_table.u{n}"
        if f"u{n}" not in section:
            raise DataPackError(f"{key}: the supply table needs rows u0, u1, ... without gaps")
        revolts = r.known_integer(f"{key}.revolts")
        extra = r.known_integer(f"{key}.extra_peasants")
        candidate = "" if revolts is not None and extra is not None else (
            f"{r.node(f'{key}.revolts').get('source', '')}; {r.node(f'{key}.extra_peasants').get('source', '')}")
        rows.append(SupplyRow(n, revolts, extra, candidate))
    if not rows:
        raise DataPackError("supply_table: at least the row u0 is needed")
    return tuple(rows)


def _parse_events(r: Reader) -> dict[str, EventCard]:
    events: dict[str, EventCard] = {}
    for event_id, node in r.section("events").items():
        p = f"events.{event_id}"
        if not isinstance(node, dict):
            raise DataPackError(f"{p}: expected a section")
        tax_cap = r.known_integer(f"{p}.tax_cap") if "tax_cap" in node else None
        events[event_id] = EventCard(event_id, r.text(f"{p}.text"), r.status(f"{p}.text") is not Status.UNKNOWN,
                                     r.known_integer(f"{p}.rice_loss"), tax_cap)
    if len(events) != 12:
        raise DataPackError(f"events: expected the 12 event cards (spec 1), got {len(events)}")
    return events


def _parse_options(r: Reader) -> RuleOptions:
    values: dict[str, Any] = {}
    for name, default in RuleOptions.__dataclass_fields__.items():
        path = f"rule_options.{name}"
        if isinstance(default.default, bool):
            values[name] = r.boolean(path)
        else:
            values[name] = r.text(path, _OPTION_CHOICES.get(name))
    return RuleOptions(**values)


def _parse_side(r: Reader, side: str) -> BoardSide:
    regions = r.text_list(f"sides.{side}.regions")
    if len(set(regions)) != len(regions):
        raise DataPackError(f"sides.{side}.regions: region names must differ, got {regions!r}")
    provinces: dict[str, Province] = {}
    for pid in r.section(f"sides.{side}.provinces"):
        p = f"sides.{side}.provinces.{pid}"
        region = r.text(f"{p}.region")
        if region not in regions:
            raise DataPackError(f"{p}.region: {region!r} is not one of the side's regions ({', '.join(regions)})")
        provinces[pid] = Province(
            id=pid, name=r.text(f"{p}.name"), region=region,
            tax=r.integer(f"{p}.tax", maximum=20), rice=r.integer(f"{p}.rice", maximum=20),
            sites=r.integer(f"{p}.sites", minimum=1, maximum=3), light_bordered=r.boolean(f"{p}.light_bordered"),
            neighbours=frozenset(r.text_list(f"{p}.neighbours")) if r.leaf(f"{p}.neighbours") else frozenset(),
            sea_links=frozenset(r.text_list(f"{p}.sea_links")) if r.leaf(f"{p}.sea_links") else frozenset(),
        )
    for pid, province in provinces.items():
        for kind, others in (("neighbours", province.neighbours), ("sea_links", province.sea_links)):
            for other in sorted(others):
                path = f"sides.{side}.provinces.{pid}.{kind}"
                if other not in provinces:
                    raise DataPackError(f"{path}: {other!r} is not a province of the {side} side")
                if other == pid:
                    raise DataPackError(f"{path}: a province cannot neighbour itself")
                back = provinces[other].neighbours if kind == "neighbours" else provinces[other].sea_links
                if pid not in back:
                    raise DataPackError(f"{path}: lists {other!r}, but {other!r} does not list {pid!r} back")
    return BoardSide(side, regions, provinces)


def _parse_preset(r: Reader, n: int, sides: Mapping[str, BoardSide]) -> tuple[tuple[str, str, int], ...] | None:
    """A preset start: [[seat player index, province, armies], ...]; None while unknown or empty."""
    path = f"presets.p{n}"
    if r.status(path) is Status.UNKNOWN:
        return None
    value = r.leaf(path)
    if not isinstance(value, list) or not value:
        return None
    out: list[tuple[str, str, int]] = []
    for i, item in enumerate(value):
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[1], str)):
            raise DataPackError(f"{path}[{i}]: expected [player number, province, armies], got {item!r}")
        player = check_int(f"{path}[{i}][0]", item[0], 1, n)
        armies = check_int(f"{path}[{i}][2]", item[2], 1)
        if not any(item[1] in side.provinces for side in sides.values()):
            raise DataPackError(f"{path}[{i}][1]: {item[1]!r} is not a province of either side")
        out.append((str(player), item[1], armies))
    return tuple(out)


def what_to_check_first(pack: Pack) -> list[str]:
    """For a group that owns the box: the values to enter from the board and cards first, most useful first."""
    lines: list[str] = []
    unknown_rows = [row.unsupplied for row in pack.supply_table if not row.known]
    if unknown_rows:
        lines.append(f"supply table rows {', '.join(map(str, unknown_rows))} (printed on the board; winter needs them)")
    unknown_losses = [e.id for e in pack.events.values() if e.rice_loss is None]
    if unknown_losses:
        lines.append(f"the rice loss of {len(unknown_losses)} event cards (lower half of each card)")
    lines.append("the map of the side you play: each province's region, tax, rice, building sites, neighbours "
                 "and sea links (all assumed; province cards and the board)")
    lines.append("the army group sizes printed on the personal boards (army_groups.sizes, assumed)")
    if all(preset is None for preset in pack.presets.values()):
        lines.append("the preset starting provinces of the appendix (unknown; the draft works without them)")
    return lines
