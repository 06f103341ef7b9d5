"""Gear rules: helmets, sandals and weapons on a player board (EN p.7-9 and Appendix A).

Owns the gear model (grids of cubes), legality with problems in plain words, strength, weapon
pieces, length and initiative, matching against gear cards and Magical Blueprints, and damage:
which cubes to remove to absorb N damage, and the forced removals that make broken weapons legal.

Grids are rows of letters: ``W`` wood, ``M`` metal, ``T`` dragon tooth, ``.`` empty. The left weapon
grid's last column touches the right grid's first column in the same row, so the two weapon grids
form one plane ("weapon plane") whose columns ``0 .. L-1`` are the left grid.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from games.fujikoro.pack import BoardSpec, DataPack, Hands, Material

Cell = tuple[int, int]
Cubes = Mapping[Cell, Material]

GRIDS = ("helmet", "sandals", "weapon_left", "weapon_right")
MONK_SPOTS = ("weapon", "backpack", "scroll", "action")
MAGIC_PLACES = ("helmet", "sandals", "weapon", "weapon_left", "weapon_right")
_LETTERS = {m.value: m for m in Material}


class GearError(ValueError):
    """Gear input that cannot be read: an unknown letter, board, monk spot, or a grid too large."""


# --------------------------------------------------------------------------------------------
# The model


@dataclass(frozen=True, slots=True)
class Gear:
    """What sits on one player board: four grids of cubes, the monks placed, the magical cubes."""

    board: str
    helmet: tuple[str, ...]
    sandals: tuple[str, ...]
    weapon_left: tuple[str, ...]
    weapon_right: tuple[str, ...]
    monks: frozenset[str] = frozenset()
    magic: frozenset[str] = frozenset()

    def grid(self, name: str) -> tuple[str, ...]:
        rows: tuple[str, ...] = getattr(self, name)
        return rows

    def cubes(self, name: str) -> dict[Cell, Material]:
        return grid_cubes(self.grid(name))

    def weapon_plane(self, spec: BoardSpec | None = None) -> dict[Cell, Material]:
        """Both weapon grids as one plane: the right grid's columns follow the left grid's.

        Without ``spec`` the left grid's own width is used (grids read by :func:`gear_from_json`
        are always padded to the board's size).
        """
        plane = grid_cubes(self.weapon_left)
        if spec is not None:
            offset = spec.weapon_left_grid[1]
        else:
            offset = len(self.weapon_left[0]) if self.weapon_left else 0
        for (r, c), material in grid_cubes(self.weapon_right).items():
            plane[(r, c + offset)] = material
        return plane

    def with_weapon_plane(self, plane: Cubes, spec: BoardSpec) -> Gear:
        rows, left_cols = spec.weapon_left_grid
        right_cols = spec.weapon_right_grid[1]
        left = {cell: m for cell, m in plane.items() if cell[1] < left_cols}
        right = {(r, c - left_cols): m for (r, c), m in plane.items() if c >= left_cols}
        return replace(self, weapon_left=render(left, rows, left_cols), weapon_right=render(right, rows, right_cols))

    def with_grid(self, name: str, cubes: Cubes, spec: BoardSpec) -> Gear:
        rows, cols = grid_shape(spec, name)
        changes: dict[str, Any] = {name: render(cubes, rows, cols)}
        new: Gear = replace(self, **changes)
        return new

    def to_json(self) -> dict[str, Any]:
        return {
            "board": self.board,
            "monks": sorted(self.monks),
            "helmet": list(self.helmet),
            "sandals": list(self.sandals),
            "weapon_left": list(self.weapon_left),
            "weapon_right": list(self.weapon_right),
            "magic": sorted(self.magic),
        }


def grid_cubes(rows: Sequence[str]) -> dict[Cell, Material]:
    return {(r, c): _LETTERS[ch] for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "."}


def render(cubes: Cubes, rows: int, cols: int) -> tuple[str, ...]:
    return tuple("".join(cubes[(r, c)].value if (r, c) in cubes else "." for c in range(cols)) for r in range(rows))


def grid_shape(spec: BoardSpec, name: str) -> tuple[int, int]:
    shape: tuple[int, int] = getattr(spec, f"{name}_grid")
    return shape


def gear_from_json(data: Any, pack: DataPack) -> Gear:
    """Read the ``fujikoro gear inspect`` input; a grid may be smaller than the board's (padded)."""
    if not isinstance(data, dict):
        raise GearError(f"expected a JSON object with the gear, got {type(data).__name__}")
    board_name = data.get("board", "symmetric")
    if not isinstance(board_name, str) or board_name.lower() not in pack.boards:
        known = ", ".join(sorted(pack.boards))
        raise GearError(f"unknown board {board_name!r}; use one of {known}")
    spec = pack.board(board_name)
    grids: dict[str, tuple[str, ...]] = {}
    for name in GRIDS:
        grids[name] = _read_grid(name, data.get(name, []), grid_shape(spec, name))
    monks = _read_names("monks", data.get("monks", []), MONK_SPOTS)
    magic = _read_names("magic", data.get("magic", []), MAGIC_PLACES)
    return Gear(board=spec.name, monks=monks, magic=magic, **grids)


def _read_grid(name: str, rows: Any, shape: tuple[int, int]) -> tuple[str, ...]:
    max_rows, max_cols = shape
    if rows is None:
        rows = []
    if not isinstance(rows, list) or not all(isinstance(row, str) for row in rows):
        raise GearError(f"{name}: expected a list of rows such as [\"WM..\"], got {rows!r}")
    if len(rows) > max_rows:
        raise GearError(f"{name}: {len(rows)} rows given; this board's {name} grid has {max_rows}")
    for i, row in enumerate(rows):
        bad = set(row) - set("WMT.")
        if bad:
            raise GearError(f"{name} row {i + 1}: unknown cell {sorted(bad)[0]!r}; use W, M, T or .")
        if len(row) > max_cols:
            raise GearError(f"{name} row {i + 1} has {len(row)} cells; this board's {name} grid has {max_cols} columns")
    padded = [row.ljust(max_cols, ".") for row in rows] + ["." * max_cols] * (max_rows - len(rows))
    return tuple(padded)


def _read_names(key: str, value: Any, allowed: tuple[str, ...]) -> frozenset[str]:
    if value is None:
        return frozenset()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise GearError(f"{key}: expected a list of names, got {value!r}")
    for item in value:
        if item not in allowed:
            raise GearError(f"{key}: unknown {item!r}; use {', '.join(allowed)}")
    return frozenset(value)


# --------------------------------------------------------------------------------------------
# Shapes


def strength(cubes: Cubes, pack: DataPack, *, magic: bool = False) -> int:
    return sum(pack.strength(m) for m in cubes.values()) + (pack.cube_strength["magic"] if magic else 0)


def pieces(cubes: Cubes) -> list[frozenset[Cell]]:
    """Orthogonally connected groups of cubes, in reading order of their first cell."""
    seen: set[Cell] = set()
    groups: list[frozenset[Cell]] = []
    for start in sorted(cubes):
        if start in seen:
            continue
        group = {start}
        stack = [start]
        while stack:
            r, c = stack.pop()
            for nxt in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if nxt in cubes and nxt not in group:
                    group.add(nxt)
                    stack.append(nxt)
        seen |= group
        groups.append(frozenset(group))
    return groups


def length(cells: Iterable[Cell]) -> int:
    """The longest straight unbroken line of cubes, horizontal or vertical."""
    cellset = set(cells)
    best = 0
    for r, c in cellset:
        if (r, c - 1) not in cellset:
            n = 0
            while (r, c + n) in cellset:
                n += 1
            best = max(best, n)
        if (r - 1, c) not in cellset:
            n = 0
            while (r + n, c) in cellset:
                n += 1
            best = max(best, n)
    return best


def rotate(cubes: Cubes, quarter_turns: int) -> dict[Cell, Material]:
    """The shape turned clockwise, moved back so its bounding box starts at (0, 0)."""
    out: dict[Cell, Material] = dict(cubes)
    for _ in range(quarter_turns % 4):
        out = {(c, -r): m for (r, c), m in out.items()}
    return normalise(out)


def mirror(cubes: Cubes) -> dict[Cell, Material]:
    return normalise({(r, -c): m for (r, c), m in cubes.items()})


def normalise(cubes: Cubes) -> dict[Cell, Material]:
    if not cubes:
        return {}
    top = min(r for r, _ in cubes)
    left = min(c for _, c in cubes)
    return {(r - top, c - left): m for (r, c), m in cubes.items()}


def pattern_cubes(pattern: Sequence[str]) -> dict[Cell, Material]:
    return grid_cubes(pattern)


def orientations(pattern: Cubes, *, mirrors: bool) -> list[dict[Cell, Material]]:
    shapes: list[dict[Cell, Material]] = []
    bases = [dict(pattern), mirror(pattern)] if mirrors else [dict(pattern)]
    for base in bases:
        for turns in range(4):
            shape = rotate(base, turns)
            if shape not in shapes:
                shapes.append(shape)
    return shapes


def contains(cubes: Cubes, pattern: Cubes, *, mirrors: bool = False) -> bool:
    """Whether the gear holds the pattern in some orientation, extra cubes allowed (EN p.8)."""
    if not pattern or len(pattern) > len(cubes):
        return False
    for shape in orientations(pattern, mirrors=mirrors):
        anchor, anchor_material = min(shape.items())
        for (r, c), material in cubes.items():
            if material is not anchor_material:
                continue
            dr, dc = r - anchor[0], c - anchor[1]
            if all(cubes.get((pr + dr, pc + dc)) is m for (pr, pc), m in shape.items()):
                return True
    return False


# --------------------------------------------------------------------------------------------
# Weapons


@dataclass(frozen=True, slots=True)
class Weapon:
    cells: frozenset[Cell]
    hand: str  # "left", "right", "two"
    cubes: int
    wood: int
    length: int
    legal: bool
    usable: bool
    magical: bool
    dice: Mapping[str, int]

    def initiative(self, pack: DataPack) -> int:
        return self.length + (pack.cube_strength["magic"] if self.magical else 0)


@dataclass(frozen=True, slots=True)
class WeaponCheck:
    weapons: tuple[Weapon, ...]
    problems: tuple[str, ...]

    @property
    def legal(self) -> bool:
        return not self.problems


_HAND_WORDS = {"left": "the left-grid weapon", "right": "the right-grid weapon", "two": "the two-handed weapon"}


def check_weapons(plane: Cubes, spec: BoardSpec, monks: frozenset[str], magic: frozenset[str]) -> WeaponCheck:
    """Split the weapon plane into weapons and judge each against the board's limits (EN p.7)."""
    return _check_weapons(frozenset(plane.items()), spec, monks, magic)


@lru_cache(maxsize=1 << 16)
def _check_weapons(items: frozenset[tuple[Cell, Material]], spec: BoardSpec, monks: frozenset[str],
                   magic: frozenset[str]) -> WeaponCheck:
    plane = dict(items)
    left_cols = spec.weapon_left_grid[1]
    groups = pieces(plane)
    hands: list[str] = []
    for cells in groups:
        sides = {c < left_cols for _, c in cells}
        hands.append("two" if len(sides) == 2 else ("left" if True in sides else "right"))
    problems: list[str] = []
    bad: set[int] = set()

    def flag(indices: Iterable[int], text: str) -> None:
        bad.update(indices)
        if text not in problems:
            problems.append(text)

    needs_monk = spec.right_grid_needs_monk and "weapon" not in monks
    for i, (cells, hand) in enumerate(zip(groups, hands, strict=True)):
        n = len(cells)
        if needs_monk and hand != "left":
            flag([i], "the right weapon grid holds cubes but no monk unlocks it")
        if hand == "two":
            if spec.hands is Hands.ONE:
                flag([i], f"a {spec.name.capitalize()} board can only hold one-handed weapons; "
                          "this weapon spans both grids")
            if n > spec.two_handed_max:
                flag([i], f"the two-handed weapon has {n} cubes; at most {spec.two_handed_max}")
        else:
            if spec.hands is Hands.TWO:
                flag([i], f"a {spec.name.capitalize()} board can only hold a two-handed weapon; "
                          f"{_HAND_WORDS[hand]} lies in one grid")
            if n > spec.one_handed_max:
                flag([i], f"{_HAND_WORDS[hand]} has {n} cubes; at most {spec.one_handed_max}")
    two = [i for i, h in enumerate(hands) if h == "two"]
    if len(two) > 1:
        flag(two, f"there are {len(two)} two-handed weapons; at most one")
    if two and len(groups) > len(two):
        flag(range(len(groups)), "a two-handed weapon cannot be kept together with a one-handed weapon")
    for side in ("left", "right"):
        in_side = [i for i, h in enumerate(hands) if h == side]
        if len(in_side) > 1:
            flag(in_side, f"the {side} weapon grid holds {len(in_side)} separate weapons; at most one")

    magical_index = _magical_weapon(hands, magic)
    weapons: list[Weapon] = []
    for i, (cells, hand) in enumerate(zip(groups, hands, strict=True)):
        materials = [plane[cell] for cell in cells]
        wood = materials.count(Material.WOOD)
        need = spec.usable_wood_two_handed if hand == "two" else spec.usable_wood_one_handed
        legal = i not in bad
        dice = {m.die: materials.count(m) for m in Material if materials.count(m)}
        if i == magical_index:
            dice["magic"] = 1
        weapons.append(Weapon(
            cells=cells, hand=hand, cubes=len(cells), wood=wood, length=length(cells),
            legal=legal, usable=legal and wood >= need, magical=i == magical_index, dice=dice,
        ))
    return WeaponCheck(tuple(weapons), tuple(problems))


def _magical_weapon(hands: Sequence[str], magic: frozenset[str]) -> int | None:
    """Which weapon carries the magical cube: named by grid, or "weapon" = the two-handed or left one."""
    for place, hand in (("weapon_left", "left"), ("weapon_right", "right")):
        if place in magic and hand in hands:
            return hands.index(hand)
    if "weapon" in magic:
        for hand in ("two", "left", "right"):
            if hand in hands:
                return hands.index(hand)
    return None


def initiative(check: WeaponCheck, pack: DataPack, sandals_weapon: Weapon | None = None) -> int:
    """The longest usable weapon's length, +4 when magical (EN p.10); 0 without a usable weapon."""
    usable = [w for w in check.weapons if w.usable]
    if sandals_weapon is not None and sandals_weapon.usable:
        usable.append(sandals_weapon)
    return max((w.initiative(pack) for w in usable), default=0)


# --------------------------------------------------------------------------------------------
# Whole-board report (the `fujikoro gear inspect` contract)


@dataclass(frozen=True, slots=True)
class GearReport:
    gear: Gear
    helmet_cubes: int
    helmet_strength: int
    helmet_legal: bool
    sandals_cubes: int
    sandals_strength: int
    sandals_complete: bool
    sandals_legal: bool
    weapons: WeaponCheck
    sandals_weapon: Weapon | None
    initiative: int
    problems: tuple[str, ...]
    gear_cards: tuple[str, ...]
    blueprints: tuple[str, ...]

    @property
    def legal(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "board": self.gear.board,
            "helmet": {"cubes": self.helmet_cubes, "strength": self.helmet_strength, "legal": self.helmet_legal,
                       "magical": "helmet" in self.gear.magic},
            "sandals": {"cubes": self.sandals_cubes, "strength": self.sandals_strength,
                        "complete": self.sandals_complete, "legal": self.sandals_legal,
                        "magical": "sandals" in self.gear.magic},
            "weapons": [_weapon_json(w) for w in self.weapons.weapons],
            "initiative": self.initiative,
            "legal": self.legal,
            "problems": list(self.problems),
            "matches": {"gear_cards": list(self.gear_cards), "blueprints": list(self.blueprints)},
        }
        if self.sandals_weapon is not None:
            out["sandals_weapon"] = _weapon_json(self.sandals_weapon)
        return out


def _weapon_json(w: Weapon) -> dict[str, Any]:
    return {"hand": w.hand, "cubes": w.cubes, "wood": w.wood, "legal": w.legal, "usable": w.usable,
            "length": w.length, "magical": w.magical, "dice": dict(w.dice)}


def inspect(gear: Gear, pack: DataPack) -> GearReport:
    spec = pack.board(gear.board)
    problems: list[str] = []
    helmet = gear.cubes("helmet")
    sandals = gear.cubes("sandals")
    helmet_legal = len(helmet) <= spec.helmet_max
    if not helmet_legal:
        problems.append(f"the helmet has {len(helmet)} cubes; at most {spec.helmet_max}")
    sandals_legal = len(sandals) <= spec.sandals_max
    if not sandals_legal:
        problems.append(f"the sandals have {len(sandals)} cubes; at most {spec.sandals_max}")
    for place, cubes in (("helmet", helmet), ("sandals", sandals)):
        if place in gear.magic and not cubes:
            problems.append(f"a magical cube sits on the {place}, but the {place} are empty"
                            if place == "sandals" else "a magical cube sits on the helmet, but the helmet is empty")
    plane = gear.weapon_plane(spec)
    check = check_weapons(plane, spec, gear.monks, gear.magic)
    problems.extend(check.problems)
    if gear.magic & {"weapon", "weapon_left", "weapon_right"} and not any(w.magical for w in check.weapons):
        problems.append("a magical cube sits on a weapon that does not exist")
    third_weapon = sandals_weapon(sandals, spec) if spec.sandals_as_weapon and sandals else None
    return GearReport(
        gear=gear,
        helmet_cubes=len(helmet),
        helmet_strength=strength(helmet, pack, magic="helmet" in gear.magic and bool(helmet)),
        helmet_legal=helmet_legal,
        sandals_cubes=len(sandals),
        sandals_strength=strength(sandals, pack, magic="sandals" in gear.magic and bool(sandals)),
        sandals_complete=len(sandals) >= spec.sandals_complete,
        sandals_legal=sandals_legal,
        weapons=check,
        sandals_weapon=third_weapon,
        initiative=initiative(check, pack, third_weapon),
        problems=tuple(problems),
        gear_cards=matching_cards(gear, pack, pack.gear_cards),
        blueprints=matching_cards(gear, pack, pack.blueprints),
    )


def sandals_weapon(sandals: Cubes, spec: BoardSpec) -> Weapon:
    """Tomoe's sandals as a third one-handed weapon (EN Appendix A)."""
    connected = len(pieces(sandals)) == 1
    materials = list(sandals.values())
    wood = materials.count(Material.WOOD)
    return Weapon(
        cells=frozenset(sandals), hand="sandals", cubes=len(sandals), wood=wood, length=length(sandals),
        legal=connected, usable=connected and wood >= spec.usable_wood_one_handed, magical=False,
        dice={m.die: materials.count(m) for m in Material if materials.count(m)},
    )


def gear_plane(gear: Gear, kind: str, spec: BoardSpec) -> dict[Cell, Material]:
    return gear.weapon_plane(spec) if kind == "weapon" else gear.cubes(kind)


def matching_cards(gear: Gear, pack: DataPack, cards: Mapping[str, Any]) -> tuple[str, ...]:
    spec = pack.board(gear.board)
    planes = {kind: gear_plane(gear, kind, spec) for kind in ("helmet", "weapon", "sandals")}
    return tuple(
        card.id for card in cards.values()
        if contains(planes[card.kind], pattern_cubes(card.pattern), mirrors=pack.mirror_matches)
    )


# --------------------------------------------------------------------------------------------
# Damage to a helmet or sandals


@dataclass(frozen=True, slots=True)
class Removal:
    """One way to absorb damage: the cubes taken out (and maybe the magical cube)."""

    cells: frozenset[Cell]
    magic_used: bool
    absorbed: int
    waste: int
    magic_lost: bool          # the magical cube goes because the gear no longer matches its blueprint
    strength_lost: int        # absorbed + 4 if the magic is lost as a consequence
    remaining: Mapping[Cell, Material] = field(default_factory=dict)

    def describe(self, cubes: Cubes) -> str:
        names = {Material.WOOD: "wood", Material.METAL: "metal", Material.TOOTH: "tooth"}
        counts: dict[str, int] = {}
        for cell in sorted(self.cells):
            counts[names[cubes[cell]]] = counts.get(names[cubes[cell]], 0) + 1
        parts = [f"{n} {k}" for k, n in counts.items()]
        if self.magic_used:
            parts.insert(0, "the magical cube")
        text = "remove " + (" and ".join(parts) if parts else "nothing")
        if self.waste:
            text += f" ({self.waste} wasted)"
        if self.magic_lost:
            text += "; the magic is lost"
        return text


def absorb_options(
    cubes: Cubes,
    damage: int,
    pack: DataPack,
    *,
    magic: bool = False,
    blueprint: Sequence[str] | None = None,
) -> list[Removal]:
    """Every minimal way to absorb ``damage`` (EN p.7, p.11), best first.

    A removal is minimal when taking any one piece out of it would no longer absorb the damage.
    ``blueprint`` is the pattern the magical cube depends on: a removal that breaks the match loses
    the magic too (the Mitsuhide example, EN p.9). With magic but no known blueprint, any cube removed
    is assumed to break the match. If the gear cannot absorb the damage, the one option is everything.
    Best = least strength lost (magic lost counts 4), then least waste, then fewest cubes.
    """
    if damage <= 0:
        return [Removal(frozenset(), False, 0, 0, False, 0, dict(cubes))]
    magic_value = pack.cube_strength["magic"]
    total = strength(cubes, pack, magic=magic)
    if total < damage:
        return [Removal(frozenset(cubes), magic, total, 0, False, total, {})]
    by_material: dict[Material, list[Cell]] = {m: sorted(c for c, x in cubes.items() if x is m) for m in Material}
    pattern = pattern_cubes(blueprint) if blueprint else None
    options: list[Removal] = []
    counts_ranges = [range(len(by_material[m]) + 1) for m in Material]
    for use_magic in ([False, True] if magic else [False]):
        for counts in itertools.product(*counts_ranges):
            pieces_values = [pack.strength(m) for m, n in zip(Material, counts, strict=True) for _ in range(n)]
            if use_magic:
                pieces_values.append(magic_value)
            absorbed = sum(pieces_values)
            if absorbed < damage or not pieces_values or absorbed - min(pieces_values) >= damage:
                continue
            options.append(_best_cells(cubes, by_material, counts, use_magic, absorbed, damage, magic, pattern, pack))
    options.sort(key=lambda o: (o.strength_lost, o.waste, len(o.cells) + o.magic_used, sorted(o.cells)))
    return options


def _best_cells(
    cubes: Cubes,
    by_material: Mapping[Material, list[Cell]],
    counts: Sequence[int],
    use_magic: bool,
    absorbed: int,
    damage: int,
    magic: bool,
    pattern: Cubes | None,
    pack: DataPack,
) -> Removal:
    """Among the cells of the given materials, a choice that keeps the blueprint match if one does.

    Keeping the match matters even when the magical cube itself absorbs: after the fight the magic
    comes back only if the gear still matches (EN p.9 example 2).
    """
    choices = [itertools.combinations(by_material[m], n) for m, n in zip(Material, counts, strict=True)]
    first: Removal | None = None
    for combo in itertools.product(*choices):
        cells = frozenset(c for group in combo for c in group)
        remaining = {c: m for c, m in cubes.items() if c not in cells}
        keeps = not cells or (pattern is not None and contains(remaining, pattern, mirrors=pack.mirror_matches))
        magic_lost = magic and not use_magic and not keeps
        removal = Removal(cells, use_magic, absorbed, absorbed - damage, magic_lost,
                          absorbed + (pack.cube_strength["magic"] if magic_lost else 0), remaining)
        if keeps or not magic:
            return removal
        if first is None:
            first = removal
    assert first is not None
    return first


# --------------------------------------------------------------------------------------------
# Damage to weapons: a broken icon takes a cube, then the weapons must be made legal again


def forced_removals(gear: Gear, pack: DataPack, *, limit: int = 3) -> list[frozenset[Cell]]:
    """The smallest sets of weapon cubes whose removal makes the weapons legal (EN p.7 and p.11).

    Cubes are only removed, never rearranged. Cubes in a right grid that lost its monk always go.
    Sets are in weapon-plane coordinates, best first (see :func:`repair_score`).
    """
    spec = pack.board(gear.board)
    plane = gear.weapon_plane(spec)
    must: set[Cell] = set()
    if spec.right_grid_needs_monk and "weapon" not in gear.monks:
        must = {cell for cell in plane if cell[1] >= spec.weapon_left_grid[1]}
    base = {c: m for c, m in plane.items() if c not in must}
    if check_weapons(base, spec, gear.monks, gear.magic).legal:
        return [frozenset(must)]
    check = check_weapons(base, spec, gear.monks, gear.magic)
    candidates = sorted(c for w in check.weapons if not w.legal for c in w.cells)
    found: list[frozenset[Cell]] = []
    for k in range(1, min(limit, len(candidates)) + 1):
        for combo in itertools.combinations(candidates, k):
            rest = {c: m for c, m in base.items() if c not in combo}
            if check_weapons(rest, spec, gear.monks, gear.magic).legal:
                found.append(frozenset(combo) | must)
        if found:
            break
    if not found:
        found = [frozenset(_greedy_fix(base, spec, gear)) | must]
    found.sort(key=lambda cells: (_worse(repair_score({c: m for c, m in plane.items() if c not in cells}, gear, pack)),
                                  sorted(cells)))
    return found


def _greedy_fix(plane: Cubes, spec: BoardSpec, gear: Gear) -> set[Cell]:
    """Fallback for tangles no small removal fixes: drop whole illegal weapons, smallest first."""
    removed: set[Cell] = set()
    rest = dict(plane)
    while True:
        check = check_weapons(rest, spec, gear.monks, gear.magic)
        if check.legal:
            return removed
        worst = min((w for w in check.weapons if not w.legal), key=lambda w: (w.cubes, sorted(w.cells)))
        removed |= worst.cells
        for cell in worst.cells:
            del rest[cell]


def repair_score(plane: Cubes, gear: Gear, pack: DataPack) -> tuple[float, int, int]:
    """How good the weapons left after a repair are: expected hits of usable weapons, cubes kept, initiative."""
    spec = pack.board(gear.board)
    check = check_weapons(plane, spec, gear.monks, gear.magic)
    expected = 0.0
    for weapon in check.weapons:
        if weapon.usable:
            expected += sum(pack.dice[kind].mean_hits * n for kind, n in weapon.dice.items())
    return expected, len(plane), initiative(check, pack)


def _worse(score: tuple[float, int, int]) -> tuple[float, int, int]:
    """A sort key that puts the better repair first."""
    return -score[0], -score[1], -score[2]


@dataclass(frozen=True, slots=True)
class BreakOption:
    """One way to lose a cube to a broken icon: the cube chosen, the forced removals, the result."""

    broken: Cell
    forced: frozenset[Cell]
    gear: Gear


def break_options(gear: Gear, material: Material, pack: DataPack, *, within: Iterable[Cell] | None = None,
                  blueprint: Sequence[str] | None = None) -> list[BreakOption]:
    """Every choice of a ``material`` cube to lose (from the weapon ``within``, if given), best first.

    After the cube goes, the weapons are made legal with the best forced removal; a magical weapon
    keeps its magic only while it still matches ``blueprint`` (EN p.9; unknown blueprint: lost).
    """
    return list(_break_options(gear, material, pack, None if within is None else frozenset(within),
                               None if blueprint is None else tuple(blueprint)))


@lru_cache(maxsize=1 << 14)
def _break_options(gear: Gear, material: Material, pack: DataPack, within: frozenset[Cell] | None,
                   blueprint: tuple[str, ...] | None) -> tuple[BreakOption, ...]:
    spec = pack.board(gear.board)
    plane = gear.weapon_plane(spec)
    pool = set(within) if within is not None else set(plane)
    options: list[BreakOption] = []
    for cell in sorted(c for c in pool if plane.get(c) is material):
        after = gear.with_weapon_plane({c: m for c, m in plane.items() if c != cell}, spec)
        forced = forced_removals(after, pack)[0]
        kept = {c: m for c, m in after.weapon_plane(spec).items() if c not in forced}
        fixed = after.with_weapon_plane(kept, spec)
        if fixed.magic & WEAPON_MAGIC and not (blueprint and contains(kept, pattern_cubes(blueprint),
                                                                         mirrors=pack.mirror_matches)):
            fixed = replace(fixed, magic=fixed.magic - WEAPON_MAGIC)
        options.append(BreakOption(cell, forced, fixed))
    options.sort(key=lambda o: (_worse(repair_score(o.gear.weapon_plane(spec), o.gear, pack)), len(o.forced),
                                o.broken))
    return tuple(options)


WEAPON_MAGIC = frozenset({"weapon", "weapon_left", "weapon_right"})


def least_loss_breaks(gear: Gear, materials: Sequence[Material], pack: DataPack, *,
                      within: Iterable[Cell] | None = None, blueprint: Sequence[str] | None = None) -> tuple[Gear, ...]:
    """The default choice of cubes for the broken icons of one weapon's roll: the fewest cubes lost in all.

    EN p.12: the player chooses which cube of the die's colour each broken icon removes, and then
    removes cubes (without rearranging) until the weapons are legal (EN p.7). Choosing cube by cube
    can leave a weapon illegal and cost more cubes later in the same roll (combat example 2: Takeko's
    2 wood and 1 metal cost 5 cubes that way, 3 when chosen well), so the whole roll is chosen at
    once: fewest cubes lost, then the best weapons left (:func:`repair_score`). Returns the gear after
    each icon, in order (unchanged for an icon whose colour has already left the weapon).
    """
    return _least_loss(gear, tuple(materials), pack, None if within is None else frozenset(within),
                       None if blueprint is None else tuple(blueprint))


@lru_cache(maxsize=1 << 14)
def _least_loss(gear: Gear, materials: tuple[Material, ...], pack: DataPack, within: frozenset[Cell] | None,
                blueprint: tuple[str, ...] | None) -> tuple[Gear, ...]:
    if not materials:
        return ()
    spec = pack.board(gear.board)
    options = _break_options(gear, materials[0], pack, within, blueprint)
    if not options:
        return (gear, *_least_loss(gear, materials[1:], pack, within, blueprint))
    best: tuple[tuple[Any, ...], tuple[Gear, ...]] | None = None
    for option in options:
        plane = option.gear.weapon_plane(spec)
        rest_within = None if within is None else within & frozenset(plane)
        path = (option.gear, *_least_loss(option.gear, materials[1:], pack, rest_within, blueprint))
        final = path[-1]
        final_plane = final.weapon_plane(spec)
        key = (-len(final_plane), _worse(repair_score(final_plane, final, pack)))
        if best is None or key < best[0]:
            best = (key, path)
    assert best is not None
    return best[1]


def apply_break(gear: Gear, material: Material, pack: DataPack, *, within: Iterable[Cell] | None = None,
                blueprint: Sequence[str] | None = None) -> Gear:
    """The default repair after a broken icon: the best of :func:`break_options` (unchanged if none)."""
    options = break_options(gear, material, pack, within=within, blueprint=blueprint)
    return options[0].gear if options else gear



# --------------------------------------------------------------------------------------------
# Rest & Craft: cubes move between the backpack and one type of gear


MATERIAL_NAMES = {Material.WOOD: "wood", Material.METAL: "metal", Material.TOOTH: "dragon tooth"}


class CraftError(ValueError):
    """A craft the backpack cannot pay for, or a waste cube that was not returned."""


@dataclass(frozen=True, slots=True)
class CraftResult:
    backpack: Counter[Material]
    wasted: Material | None


def craft(
    before: Counter[Material],
    after: Counter[Material],
    backpack: Counter[Material],
    *,
    waste: Material | None = None,
) -> CraftResult:
    """The backpack after crafting one gear from ``before`` to ``after`` (EN p.7 Rest & Craft).

    Cubes the new gear needs come from the backpack; cubes taken off go back to it, but if any do,
    one of them is waste and returns to the supply (``waste`` says which; default the cheapest).
    """
    needed = after - before
    returned = before - after
    for material, n in needed.items():
        if backpack[material] < n:
            raise CraftError(f"the backpack has {backpack[material]} {MATERIAL_NAMES[material]}; "
                             f"the new gear needs {n}")
    result = backpack - needed + returned
    wasted: Material | None = None
    if returned:
        if waste is not None and not returned[waste]:
            raise CraftError(f"the wasted cube must be one taken off the gear; no {MATERIAL_NAMES[waste]} was")
        wasted = waste if waste is not None else min(returned, key=lambda m: "WMT".index(m.value))
        result[wasted] -= 1
    return CraftResult(+result, wasted)
