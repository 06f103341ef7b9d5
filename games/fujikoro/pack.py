"""The game-data pack: every number the app knows about Fuji Koro, each with how sure we are of it.

The shipped pack is ``games/fujikoro/data/fujikoro.toml``; the machinery (statuses, corrections,
dotted keys) is the kernel's :mod:`games.fujikoro.pack`. A group's corrections are a flat mapping of
dotted keys to values (``{"dragons.green_2.health": 11}``) layered on top; this module merges and
validates, the edges read and write the override file. Errors name the field path and the bad value.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.datapack import DataPackError as DataPackError
from companion.datapack import Reader, check_int, read_toml_resource
from companion.datapack import Status as Status
from companion.datapack import apply_overrides as apply_overrides
from companion.datapack import find as find
from companion.datapack import is_leaf as is_leaf
from companion.datapack import iter_leaves as iter_leaves
from companion.datapack import parse_toml as parse_toml
from companion.datapack import parse_value as parse_value
from companion.dice import Die as Die
from companion.dice import Face as Face
from companion.dice import parse_face as parse_face
from companion.dice import parse_faces as parse_faces

FORMAT = 1
PACK_RESOURCE = "fujikoro.toml"


class Material(enum.StrEnum):
    """A resource cube; the value is the letter used in grids and patterns."""

    WOOD = "W"
    METAL = "M"
    TOOTH = "T"

    @property
    def die(self) -> str:
        return {"W": "wood", "M": "metal", "T": "tooth"}[self.value]


class CountdownEvent(enum.StrEnum):
    LAVA = "lava"
    ROPE = "rope"
    NOTHING = "nothing"
    END = "end"


class Hands(enum.StrEnum):
    BOTH = "both"
    ONE = "one"
    TWO = "two"


DIE_KINDS = ("wood", "metal", "tooth", "magic")
COLOURS = ("blue", "green", "red", "legendary")
GEAR_KINDS = ("helmet", "weapon", "sandals")


@dataclass(frozen=True, slots=True)
class ColourInfo:
    colour: str
    name: str
    size: str
    dice: int
    vp: int
    coop_teeth: int
    trophy_vp: int


@dataclass(frozen=True, slots=True)
class Dragon:
    id: str
    colour: str
    initiative: int
    health: int
    health_2p: int | None
    health_solo: int | None

    @property
    def is_legendary(self) -> bool:
        return self.colour == "legendary"


@dataclass(frozen=True, slots=True)
class CountdownSpace:
    event: CountdownEvent
    lava: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class CoopTrack:
    rounds_solo: int
    rounds_group: int
    final_rounds: int
    adventure_token_reduction: int
    lives: int

    def start(self, players: int, adventure_tokens: bool) -> int:
        rounds = self.rounds_solo if players == 1 else self.rounds_group
        return rounds - (self.adventure_token_reduction if adventure_tokens else 0)


@dataclass(frozen=True, slots=True)
class ShogunTracks:
    """VP per spot, highest first; the last spot is what leftover tokens score at the end."""

    palace: Mapping[str, tuple[int, ...]]
    foot: Mapping[str, tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class Scenario:
    number: int
    name: str
    modes: tuple[str, ...]
    threshold: int
    extras: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class BoardSpec:
    """The limits of one player board: the symmetric one or an asymmetric character."""

    name: str
    helmet_grid: tuple[int, int]
    sandals_grid: tuple[int, int]
    weapon_left_grid: tuple[int, int]
    weapon_right_grid: tuple[int, int]
    helmet_max: int
    sandals_max: int
    sandals_complete: int
    one_handed_max: int
    two_handed_max: int
    hands: Hands
    right_grid_needs_monk: bool
    usable_wood_one_handed: int
    usable_wood_two_handed: int
    action_discs: int
    monk_spots: int
    scroll_slots: int
    second_scroll_needs_monk: bool
    backpack: int
    second_backpack: int
    second_backpack_needs_monk: bool
    move_steps: int
    sandals_as_weapon: bool


COOP_HEALTH_CHOICES = ("standard", "two_player", "solo")
#: Scenario 2's dragon sets: each dragon in at most one set, or in a set of each kind (EN Appendix B says neither).
TROPHY_SETS_CHOICES = ("disjoint", "one_of_each_kind")


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """Readings of rules the rulebooks leave unclear (``[rules]``); a pack without the section (one stored
    with a game saved before these options existed) gets these defaults: the readings the app used then, so that
    such a game replays as it was played. The shipped pack may read otherwise (``coop_health_3_to_6``: "solo"
    since 2026-12-01, by EN p.11)."""

    coop_health_3_to_6: str = "standard"
    scenario_3_back_to: int = 0
    ronin_round_track: bool = False
    escape_when_rope_appears: bool = False
    scenario_2_sets: str = "disjoint"


@dataclass(frozen=True, slots=True)
class PatternCard:
    """A gear card or a Magical Blueprint: a pattern of cubes the gear must contain."""

    id: str
    kind: str
    pattern: tuple[str, ...]
    bonus: str | None


@dataclass(frozen=True, slots=True, eq=False)
class DataPack:
    """The whole validated pack. Compared and hashed by identity: a pack never changes once loaded,
    which lets the pure rules functions cache their results per pack."""

    version: str
    cube_strength: Mapping[str, int]
    dice: Mapping[str, Die]
    colours: Mapping[str, ColourInfo]
    dragons: Mapping[str, Dragon]
    health_track_max: int
    countdown: tuple[CountdownSpace, ...]
    lava_numbers: tuple[int, ...]
    coop: CoopTrack
    shogun: ShogunTracks
    scoring: Mapping[str, int]
    mirror_matches: bool
    scenarios: Mapping[int, Scenario]
    boards: Mapping[str, BoardSpec]
    gear_cards: Mapping[str, PatternCard]
    blueprints: Mapping[str, PatternCard]
    raw: Mapping[str, Any]
    rules: RuleOptions = RuleOptions()

    def board(self, name: str) -> BoardSpec:
        try:
            return self.boards[name.lower()]
        except KeyError:
            known = ", ".join(sorted(self.boards))
            raise DataPackError(f"unknown board {name!r}; known boards: {known}") from None

    def strength(self, material: Material) -> int:
        return self.cube_strength[material.die]

    def dragon_health(self, dragon: Dragon, *, mode: str, players: int, scenario: int = 0) -> int:
        """The health to set on the track for this figure (EN p.11, p.15; Appendix B scenario 1)."""
        solo_rule = bool(self.scenarios[scenario].extras.get("solo_health")) if scenario in self.scenarios else False
        if mode == "coop" and players == 1 or solo_rule:
            if dragon.health_solo is not None:
                return dragon.health_solo
        elif mode == "coop" and players == 2 or mode == "coop" and self.rules.coop_health_3_to_6 == "two_player":
            if dragon.health_2p is not None:
                return dragon.health_2p
        elif mode == "coop" and self.rules.coop_health_3_to_6 == "solo":
            if dragon.health_solo is not None:
                return dragon.health_solo
        elif mode == "competitive" and players == 2 and dragon.is_legendary and dragon.health_2p is not None:
            return dragon.health_2p
        return dragon.health


# --------------------------------------------------------------------------------------------
# Raw access: the TOML as nested dicts whose leaves are {value, status, source}.


def shipped_raw() -> dict[str, Any]:
    """The shipped pack as parsed TOML (read from the installed package, never written)."""
    return read_toml_resource("games.fujikoro.data", PACK_RESOURCE, origin="the shipped data pack")


# --------------------------------------------------------------------------------------------
# Validation: raw -> typed model.


class _Reader(Reader):
    """The kernel's reader over Fuji Koro's pack (no unknown values), with values a pack may leave out
    and a board's grid sizes."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        super().__init__(raw, frozenset({Status.CONFIRMED, Status.DERIVED, Status.ASSUMED}))

    def integer(self, path: str, *, minimum: int | None = 0, maximum: int | None = None,
                optional: bool = False) -> Any:
        if optional and not self.has(path):
            return None
        return super().integer(path, minimum=minimum, maximum=maximum)

    def grid(self, path: str) -> tuple[int, int]:
        rows_cols = self.int_list(path, minimum=1)
        if len(rows_cols) != 2:
            raise DataPackError(f"{path}: expected [rows, columns], got {list(rows_cols)!r}")
        return rows_cols[0], rows_cols[1]


_PATTERN_LETTERS = frozenset("WMT.")


def parse_pattern(path: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(row, str) for row in value):
        raise DataPackError(f"{path}: expected a list of rows such as [\"WM\", \"M.\"], got {value!r}")
    for row in value:
        bad = set(row) - _PATTERN_LETTERS
        if bad:
            raise DataPackError(f"{path}: unknown cell {sorted(bad)[0]!r} in row {row!r}; use W, M, T or .")
    if not any(ch != "." for row in value for ch in row):
        raise DataPackError(f"{path}: the pattern has no cubes")
    return tuple(value)


_BOARD_INT_FIELDS = (
    "helmet_max", "sandals_max", "sandals_complete", "one_handed_max", "two_handed_max",
    "usable_wood_one_handed", "usable_wood_two_handed", "action_discs", "monk_spots",
    "scroll_slots", "backpack", "second_backpack", "move_steps",
)
_BOARD_BOOL_FIELDS = (
    "right_grid_needs_monk", "second_scroll_needs_monk", "second_backpack_needs_monk", "sandals_as_weapon",
)
_BOARD_GRID_FIELDS = ("helmet_grid", "sandals_grid", "weapon_left_grid", "weapon_right_grid")


def _resolve_board(raw_boards: Mapping[str, Any], name: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    if name in seen:
        raise DataPackError(f"boards.{name}.inherits: circular inheritance through {' -> '.join(seen)}")
    node = raw_boards.get(name)
    if not isinstance(node, dict):
        raise DataPackError(f"boards.{seen[-1] if seen else name}.inherits: unknown board {name!r}")
    parent = node.get("inherits")
    resolved: dict[str, Any] = {}
    if parent is not None:
        if not isinstance(parent, str):
            raise DataPackError(f"boards.{name}.inherits: expected a board name, got {parent!r}")
        resolved = _resolve_board(raw_boards, parent, (*seen, name))
    resolved.update({k: v for k, v in node.items() if k != "inherits"})
    return resolved


def parse(raw: Mapping[str, Any]) -> DataPack:
    """Validate a raw pack (shipped, or shipped plus overrides) into the typed model."""
    r = _Reader(raw)
    fmt = raw.get("meta", {}).get("format") if isinstance(raw.get("meta"), dict) else None
    if fmt != FORMAT:
        raise DataPackError(f"meta.format: this app reads format {FORMAT}, got {fmt!r}")
    version = raw["meta"].get("version")
    if not isinstance(version, str):
        raise DataPackError(f"meta.version: expected text, got {version!r}")

    strength = {kind: r.integer(f"cubes.{kind}", minimum=1) for kind in DIE_KINDS}

    dice: dict[str, Die] = {}
    for kind in DIE_KINDS:
        faces = parse_faces(f"dice.{kind}.faces", r.leaf(f"dice.{kind}.faces"))
        dice[kind] = Die(kind, r.text(f"dice.{kind}.colour"), r.integer(f"dice.{kind}.in_box", minimum=1), faces)

    colours = {
        c: ColourInfo(
            colour=c,
            name=r.text(f"colours.{c}.name"),
            size=r.text(f"colours.{c}.size"),
            dice=r.integer(f"colours.{c}.dice", minimum=1),
            vp=r.integer(f"colours.{c}.vp"),
            coop_teeth=r.integer(f"colours.{c}.coop_teeth"),
            trophy_vp=r.integer(f"colours.{c}.trophy_vp"),
        )
        for c in COLOURS
    }

    dragons: dict[str, Dragon] = {}
    for dragon_id in r.section("dragons"):
        p = f"dragons.{dragon_id}"
        dragons[dragon_id] = Dragon(
            id=dragon_id,
            colour=r.text(f"{p}.colour", COLOURS),
            initiative=r.integer(f"{p}.initiative"),
            health=r.integer(f"{p}.health", minimum=1),
            health_2p=r.integer(f"{p}.health_2p", minimum=1, optional=True),
            health_solo=r.integer(f"{p}.health_solo", minimum=1, optional=True),
        )
    if len(dragons) != 13:
        raise DataPackError(f"dragons: the box has 13 dragon figures, the pack lists {len(dragons)}")

    countdown = _parse_countdown(r)
    lava_numbers = r.int_list("countdown.competitive.lava_numbers", minimum=1)
    coop = CoopTrack(
        rounds_solo=r.integer("countdown.coop.rounds_solo", minimum=1),
        rounds_group=r.integer("countdown.coop.rounds_group", minimum=1),
        final_rounds=r.integer("countdown.coop.final_rounds", minimum=1),
        adventure_token_reduction=r.integer("countdown.coop.adventure_token_reduction"),
        lives=r.integer("countdown.coop.lives", minimum=1),
    )
    shogun = ShogunTracks(
        palace={k: _descending(f"shogun.palace.{k}", r) for k in r.section("shogun.palace")},
        foot={k: _descending(f"shogun.foot.{k}", r) for k in r.section("shogun.foot")},
    )
    for track in ("helmet", "weapon", "sandals", "monks", "teeth"):
        if track not in shogun.palace:
            raise DataPackError(f"shogun.palace.{track}: missing value")

    scoring = {k: r.integer(f"scoring.{k}", minimum=None) for k in r.section("scoring") if k != "mirror_matches"}
    for needed in ("final_chapter_vp", "explore_level_2", "explore_level_3", "scroll"):
        if needed not in scoring:
            raise DataPackError(f"scoring.{needed}: missing value")

    scenarios: dict[int, Scenario] = {}
    for key in r.section("scenarios"):
        p = f"scenarios.{key}"
        if not key.isdigit() or not 0 <= int(key) <= 8:
            raise DataPackError(f"{p}: scenarios are numbered 0 (base game) to 8, got {key!r}")
        modes = r.leaf(f"{p}.modes")
        if not isinstance(modes, list) or not modes or not set(modes) <= {"competitive", "coop"}:
            raise DataPackError(f"{p}.modes: expected a list of competitive / coop, got {modes!r}")
        extras = {k: r.leaf(f"{p}.{k}") for k in r.section(p) if k not in {"name", "modes", "threshold"}}
        threshold = r.integer(f"{p}.threshold", minimum=1)
        scenarios[int(key)] = Scenario(int(key), r.text(f"{p}.name"), tuple(modes), threshold, extras)
    if 0 not in scenarios:
        raise DataPackError("scenarios.0: the base game is missing")

    boards = _parse_boards(raw)
    cards = _parse_cards(r, "gear_cards", with_bonus=True)
    blueprints = _parse_cards(r, "blueprints", with_bonus=False)

    rules = _parse_rules(r) if isinstance(raw.get("rules"), dict) else RuleOptions()

    return DataPack(
        version=version,
        cube_strength=strength,
        dice=dice,
        colours=colours,
        dragons=dragons,
        health_track_max=r.integer("dragon_rules.health_track_max", minimum=1),
        countdown=countdown,
        lava_numbers=lava_numbers,
        coop=coop,
        shogun=shogun,
        scoring=scoring,
        mirror_matches=r.boolean("scoring.mirror_matches"),
        scenarios=scenarios,
        boards=boards,
        gear_cards=cards,
        blueprints=blueprints,
        raw=raw,
        rules=rules,
    )


def _parse_rules(r: _Reader) -> RuleOptions:
    default = RuleOptions()
    section = r.section("rules")
    back_to = r.integer("rules.scenario_3_back_to", optional=True)
    if back_to is not None and back_to not in (0, 1):
        raise DataPackError(f"rules.scenario_3_back_to: expected 0 or 1, got {back_to!r}")
    return RuleOptions(
        coop_health_3_to_6=r.text("rules.coop_health_3_to_6", COOP_HEALTH_CHOICES)
        if "coop_health_3_to_6" in section
        else default.coop_health_3_to_6,
        scenario_3_back_to=default.scenario_3_back_to if back_to is None else back_to,
        ronin_round_track=r.boolean("rules.ronin_round_track")
        if "ronin_round_track" in section
        else default.ronin_round_track,
        escape_when_rope_appears=r.boolean("rules.escape_when_rope_appears")
        if "escape_when_rope_appears" in section
        else default.escape_when_rope_appears,
        scenario_2_sets=r.text("rules.scenario_2_sets", TROPHY_SETS_CHOICES)
        if "scenario_2_sets" in section
        else default.scenario_2_sets,
    )


def _descending(path: str, r: _Reader) -> tuple[int, ...]:
    spots = r.int_list(path)
    if any(a < b for a, b in zip(spots, spots[1:], strict=False)):
        raise DataPackError(f"{path}: a Shogun track descends from the highest spot, got {list(spots)!r}")
    return spots


def _parse_countdown(r: _Reader) -> tuple[CountdownSpace, ...]:
    path = "countdown.competitive.spaces"
    spaces = r.leaf(path)
    if not isinstance(spaces, list) or len(spaces) != 8:
        raise DataPackError(f"{path}: expected 8 spaces, got {spaces!r}")
    parsed: list[CountdownSpace] = []
    for i, space in enumerate(spaces):
        p = f"{path}[{i}]"
        if not isinstance(space, dict) or "event" not in space:
            raise DataPackError(f"{p}: expected a table with an event (lava, rope, nothing or end), got {space!r}")
        try:
            event = CountdownEvent(space["event"])
        except ValueError:
            raise DataPackError(f"{p}.event: expected lava, rope, nothing or end, got {space['event']!r}") from None
        lava = space.get("lava", [])
        if event is CountdownEvent.LAVA and (not isinstance(lava, list) or not lava):
            raise DataPackError(f"{p}.lava: a lava space needs the lava numbers that erupt, got {lava!r}")
        parsed.append(CountdownSpace(event, tuple(check_int(f"{p}.lava[{j}]", n, 1) for j, n in enumerate(lava))))
    if parsed[-1].event is not CountdownEvent.END:
        raise DataPackError(f"{path}[7].event: the last countdown space ends the game, got {parsed[-1].event.value!r}")
    return tuple(parsed)


def _parse_boards(raw: Mapping[str, Any]) -> dict[str, BoardSpec]:
    raw_boards = raw.get("boards")
    if not isinstance(raw_boards, dict) or "symmetric" not in raw_boards:
        raise DataPackError("boards.symmetric: missing section")
    boards: dict[str, BoardSpec] = {}
    for name in raw_boards:
        resolved = _Reader({"boards": {name: _resolve_board(raw_boards, name)}})
        p = f"boards.{name}"
        fields: dict[str, Any] = {"name": name}
        for f in _BOARD_GRID_FIELDS:
            fields[f] = resolved.grid(f"{p}.{f}")
        for f in _BOARD_INT_FIELDS:
            fields[f] = resolved.integer(f"{p}.{f}")
        for f in _BOARD_BOOL_FIELDS:
            fields[f] = resolved.boolean(f"{p}.{f}")
        fields["hands"] = Hands(resolved.text(f"{p}.hands", tuple(h.value for h in Hands)))
        spec = BoardSpec(**fields)
        if spec.weapon_left_grid[0] != spec.weapon_right_grid[0]:
            rows = spec.weapon_left_grid[0]
            raise DataPackError(f"{p}.weapon_right_grid: must have as many rows as the left grid ({rows})")
        boards[name] = spec
    return boards


def _parse_cards(r: _Reader, section: str, *, with_bonus: bool) -> dict[str, PatternCard]:
    cards: dict[str, PatternCard] = {}
    for card_id in r.section(section):
        p = f"{section}.{card_id}"
        cards[card_id] = PatternCard(
            id=card_id,
            kind=r.text(f"{p}.kind", GEAR_KINDS),
            pattern=parse_pattern(f"{p}.pattern", r.leaf(f"{p}.pattern")),
            bonus=r.text(f"{p}.bonus") if with_bonus else None,
        )
    return cards


def load(overrides: Mapping[str, Any] | None = None) -> DataPack:
    """The shipped pack with a group's overrides on top, validated."""
    raw = shipped_raw()
    if overrides:
        raw = apply_overrides(raw, overrides)
    return parse(raw)


_DEFAULT: DataPack | None = None


def default_pack() -> DataPack:
    """The shipped pack without overrides (cached: it never changes while the app runs)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load()
    return _DEFAULT
