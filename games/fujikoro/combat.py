"""Combat: a fight against a dragon, or between two samurai (EN p.10-12, coop p.15).

A :class:`Fight` is one immutable snapshot; each action (a heroic monk's throw, a samurai's roll, the
dragon's roll, a retreat or surrender) is validated and returns the next snapshot with a line for
the fight log. Rejected actions raise :class:`CombatError` with one sentence naming the rule.

The fight only needs the combatants' gear; where the cubes came from and where the samurai stand
is the session's business. Dice come from any source as a :class:`companion.dice.DiceRoll`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from companion.dice import DiceRoll, DiceSource, roll
from games.fujikoro.gear import (
    WEAPON_MAGIC,
    Cell,
    Gear,
    GearError,
    Weapon,
    absorb_options,
    break_options,
    check_weapons,
    contains,
    forced_removals,
    gear_from_json,
    inspect,
    least_loss_breaks,
    pattern_cubes,
    sandals_weapon,
)
from games.fujikoro.pack import BoardSpec, DataPack, Dragon, Material

DRAGON = "dragon"
BREAK_ORDER = ("tooth", "metal", "wood")  # broken icons of one roll are resolved in this order
RESOURCE_DIE = {"wood": Material.WOOD, "metal": Material.METAL, "tooth": Material.TOOTH}


class CombatError(ValueError):
    """An action the rules do not allow now; the message says which rule."""


class Mode(enum.StrEnum):
    COMPETITIVE = "competitive"
    COOP = "coop"


class Status(enum.StrEnum):
    IN = "in"
    KNOCKED_OUT = "knocked_out"
    RETREATED = "retreated"
    SURRENDERED = "surrendered"


class Outcome(enum.StrEnum):
    DRAGON_DEFEATED = "dragon_defeated"
    SAMURAI_LOST = "samurai_lost"          # every samurai knocked out or retreated
    SAMURAI_WON = "samurai_won"            # samurai combat: the other one lost or surrendered


@dataclass(frozen=True, slots=True)
class DragonStats:
    """The dragon in this fight: a figure from the data pack, or stats typed in."""

    name: str
    colour: str | None
    initiative: int
    health: int
    dice: int
    legendary: bool
    vp: int
    coop_teeth: int
    die: str = "tooth"  # what it rolls: white dragon-tooth dice; a scenario 4 Monk rolls wooden dice

    @classmethod
    def from_figure(cls, dragon: Dragon, pack: DataPack, *, mode: Mode, players: int, scenario: int = 0,
                    ) -> DragonStats:
        info = pack.colours[dragon.colour]
        label = "Legendary Dragon" if dragon.is_legendary else f"{dragon.colour} dragon {dragon.id.rsplit('_', 1)[-1]}"
        return cls(
            name=label, colour=dragon.colour, initiative=dragon.initiative,
            health=pack.dragon_health(dragon, mode=mode.value, players=players, scenario=scenario),
            dice=info.dice, legendary=dragon.is_legendary, vp=info.vp, coop_teeth=info.coop_teeth,
        )


@dataclass(frozen=True, slots=True)
class Fighter:
    """One samurai in the fight, with the gear as it is now."""

    name: str
    gear: Gear
    status: Status = Status.IN
    heroic_monk: str | None = None          # resource thrown: wood / metal / tooth / "none"; None: no monk
    monk_from: str = "backpack"             # the monk spot the heroic monk leaves (its ability is lost)
    blueprints: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # kind -> pattern
    teeth: int = 0                          # dragon teeth received in this fight
    vp: int = 0                             # VP received in this fight
    broke_this_turn: bool = False           # a weapon broke in the last roll: retreat / surrender allowed
    magic_used: frozenset[str] = frozenset()  # gear whose magical cube absorbed damage (it may come back)

    @property
    def is_in(self) -> bool:
        return self.status is Status.IN


@dataclass(frozen=True, slots=True)
class Fight:
    mode: Mode
    dragon: DragonStats | None              # None in a samurai combat
    fighters: tuple[Fighter, ...]           # the attacker first, then joiners in turn order
    order: tuple[str, ...]                  # names and "dragon", fixed for the whole combat
    health: int                             # the dragon's health now (dragon fights)
    turn: int = 0                           # index into order of who acts next
    round: int = 1
    pending_monks: tuple[str, ...] = ()     # heroic monks still to throw, in turn order
    outcome: Outcome | None = None
    winner: str | None = None               # samurai combat
    teeth_pool: int = 0                     # coop: teeth the group splits
    first_action: bool = True               # the fight was the attacker's first action
    log: tuple[str, ...] = ()
    least_loss: bool = True                 # unchosen broken cubes: fewest lost for the roll (False: cube by cube)

    # -- queries ------------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def is_samurai_combat(self) -> bool:
        return self.dragon is None

    def fighter(self, name: str) -> Fighter:
        for f in self.fighters:
            if f.name == name:
                return f
        raise CombatError(f"{name} is not in this fight")

    def whose_turn(self) -> str | None:
        """Who acts next: a samurai's name, "dragon", "monk:NAME" for a heroic monk, or None at the end."""
        if self.is_over:
            return None
        if self.pending_monks:
            return f"monk:{self.pending_monks[0]}"
        return self.order[self.turn]

    def attacker_may_continue(self) -> bool:
        """EN p.11: the active player goes on if the fight was their first action and their samurai survived.

        Knocked out (EN p.11, p.12) or surrendered (lost the samurai combat, EN p.12) ends the turn; a
        samurai who retreated from a dragon with a broken weapon survived it.
        """
        return self.is_over and self.first_action and self.fighters[0].status in (Status.IN, Status.RETREATED)

    def usable_weapons(self, name: str, pack: DataPack) -> list[Weapon]:
        return usable_weapons(self.fighter(name).gear, pack)

    def dice_to_roll(self, name: str, pack: DataPack) -> list[tuple[str, list[str]]]:
        """Per usable weapon (in rolling order), the dice kinds: one per cube, plus magic if magical."""
        out: list[tuple[str, list[str]]] = []
        for weapon in self.usable_weapons(name, pack):
            kinds = [kind for kind in ("magic", "tooth", "metal", "wood") for _ in range(weapon.dice.get(kind, 0))]
            out.append((weapon.hand, kinds))
        return out

    def helmet_strength(self, name: str, pack: DataPack) -> int:
        return inspect(self.fighter(name).gear, pack).helmet_strength

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode.value,
            "dragon": None if self.dragon is None else {
                "name": self.dragon.name, "colour": self.dragon.colour, "initiative": self.dragon.initiative,
                "health": self.dragon.health, "dice": self.dragon.dice, "legendary": self.dragon.legendary,
                "vp": self.dragon.vp, "coop_teeth": self.dragon.coop_teeth, "die": self.dragon.die,
            },
            "fighters": [{
                "name": f.name, "gear": f.gear.to_json(), "status": f.status.value, "heroic_monk": f.heroic_monk,
                "monk_from": f.monk_from, "blueprints": {k: list(v) for k, v in f.blueprints.items()},
                "teeth": f.teeth, "vp": f.vp, "broke_this_turn": f.broke_this_turn,
                "magic_used": sorted(f.magic_used),
            } for f in self.fighters],
            "order": list(self.order), "health": self.health, "turn": self.turn, "round": self.round,
            "pending_monks": list(self.pending_monks),
            "outcome": None if self.outcome is None else self.outcome.value, "winner": self.winner,
            "teeth_pool": self.teeth_pool, "first_action": self.first_action, "log": list(self.log),
            "whose_turn": self.whose_turn(), "least_loss": self.least_loss,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], pack: DataPack) -> Fight:
        d = data.get("dragon")
        dragon = None if d is None else DragonStats(
            name=d["name"], colour=d["colour"], initiative=d["initiative"], health=d["health"], dice=d["dice"],
            legendary=d["legendary"], vp=d["vp"], coop_teeth=d["coop_teeth"], die=d.get("die", "tooth"))
        fighters = tuple(Fighter(
            name=f["name"], gear=gear_from_json(f["gear"], pack), status=Status(f["status"]),
            heroic_monk=f["heroic_monk"], monk_from=f["monk_from"],
            blueprints={k: tuple(v) for k, v in f["blueprints"].items()}, teeth=f["teeth"], vp=f["vp"],
            broke_this_turn=f["broke_this_turn"], magic_used=frozenset(f["magic_used"]),
        ) for f in data["fighters"])
        return cls(
            mode=Mode(data["mode"]), dragon=dragon, fighters=fighters, order=tuple(data["order"]),
            health=data["health"], turn=data["turn"], round=data["round"],
            pending_monks=tuple(data["pending_monks"]),
            outcome=None if data["outcome"] is None else Outcome(data["outcome"]), winner=data["winner"],
            teeth_pool=data["teeth_pool"], first_action=data["first_action"], log=tuple(data["log"]),
            least_loss=bool(data.get("least_loss", True)),
        )


# --------------------------------------------------------------------------------------------
# Setting up


@dataclass(frozen=True, slots=True)
class Combatant:
    """A samurai as they enter the fight."""

    name: str
    gear: Gear
    heroic_monk: str | None = None
    monk_from: str = "backpack"
    blueprints: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def start_dragon_fight(
    dragon: DragonStats,
    samurai: Sequence[Combatant],
    pack: DataPack,
    *,
    mode: Mode = Mode.COMPETITIVE,
    dragon_attacks: bool = False,
    damage_tokens: int = 0,
    first_action: bool = True,
    joining_allowed: bool = True,
) -> Fight:
    """A dragon fight (EN p.10): the attacker first, then joiners in turn order from the attacker's left.

    ``dragon_attacks``: a dragon moved onto the samurai (coop), so the samurai defend and win ties.
    ``damage_tokens``: permanent damage already on this dragon.
    """
    if not samurai:
        raise CombatError("a fight needs at least one samurai")
    if len(samurai) > 1 and not joining_allowed:
        raise CombatError("in this scenario nobody may join a dragon fight")
    _unique_names(samurai)
    for s in samurai:
        _check_monk(s, dragon)
    health = dragon.health - damage_tokens
    if health <= 0:
        raise CombatError(f"{damage_tokens} permanent damage tokens leave the {dragon.name} no health")
    fighters = [_enter(s, pack) for s in samurai]
    defender_is_dragon = not dragon_attacks
    order = _initiative_order(fighters, pack, dragon.initiative, defender_is_dragon)
    monks = tuple(f.name for f in fighters if f.heroic_monk not in (None, "none"))
    shouts = [f.name for f in fighters if f.heroic_monk == "none"]
    log = [f"Fight: {', '.join(s.name for s in samurai)} against the {dragon.name} "
           f"(health {health}, initiative {dragon.initiative}). Order: {', '.join(order)}."]
    log += [f"{name}'s heroic monk shouts at the dragon." for name in shouts]
    return Fight(mode=mode, dragon=dragon, fighters=tuple(fighters), order=order, health=health,
                 pending_monks=monks, first_action=first_action, log=tuple(log))


def start_samurai_fight(attacker: Combatant, defender: Combatant, pack: DataPack, *, peaceful: bool = False,
                        first_action: bool = True) -> Fight:
    """Samurai against samurai (EN p.12): no joiners, no monks, the defender wins ties."""
    if peaceful:
        raise CombatError("in the peaceful variant samurai do not fight each other")
    _unique_names([attacker, defender])
    if attacker.heroic_monk is not None or defender.heroic_monk is not None:
        raise CombatError("heroic monks distract dragons, so they can never be used in samurai combat (EN p.10, p.12)")
    a, d = _enter(attacker, pack), _enter(defender, pack)
    ia = inspect(a.gear, pack).initiative
    idf = inspect(d.gear, pack).initiative
    order = (a.name, d.name) if ia > idf else (d.name, a.name)
    log = (f"Samurai combat: {a.name} (initiative {ia}) attacks {d.name} (initiative {idf}). "
           f"{order[0]} rolls first.",)
    return Fight(mode=Mode.COMPETITIVE, dragon=None, fighters=(a, d), order=order, health=0,
                 first_action=first_action, log=log)


def _unique_names(samurai: Sequence[Combatant]) -> None:
    names = [s.name for s in samurai]
    if len(set(names)) != len(names) or DRAGON in names:
        raise CombatError("every samurai in a fight needs its own name (and none may be called dragon)")


def _check_monk(s: Combatant, dragon: DragonStats) -> None:
    if s.heroic_monk is None:
        return
    if dragon.legendary:
        raise CombatError("a heroic monk is sent only against a non-Legendary Dragon (EN p.10)")
    if s.heroic_monk not in (*RESOURCE_DIE, "none"):
        raise CombatError(f"{s.name}'s heroic monk can throw wood, metal or tooth, or shout (none), "
                          f"not {s.heroic_monk!r}")


def _enter(s: Combatant, pack: DataPack) -> Fighter:
    gear = s.gear
    if s.heroic_monk is not None and s.monk_from in gear.monks:
        # The monk and its ability vanish before the rest of the combat (EN p.10).
        gear = replace(gear, monks=gear.monks - {s.monk_from})
        if s.monk_from == "weapon":
            gear = _make_legal(gear, pack)
    return Fighter(name=s.name, gear=gear, heroic_monk=s.heroic_monk, monk_from=s.monk_from,
                   blueprints=dict(s.blueprints))


def _make_legal(gear: Gear, pack: DataPack) -> Gear:
    spec = pack.board(gear.board)
    fix = forced_removals(gear, pack)[0]
    if not fix:
        return gear
    plane = {c: m for c, m in gear.weapon_plane(spec).items() if c not in fix}
    return gear.with_weapon_plane(plane, spec)


def _initiative_order(fighters: Sequence[Fighter], pack: DataPack, dragon_initiative: int,
                      dragon_defends: bool) -> tuple[str, ...]:
    """EN p.10: heroic monk senders first; highest initiative first; the defender wins ties;
    ties between samurai by turn order from the active player (the list order)."""
    entries: list[tuple[int, int, int, int, str]] = []
    for position, f in enumerate(fighters):
        sent = f.heroic_monk is not None
        value = inspect(f.gear, pack).initiative
        # samurai lose ties to a defending dragon and win them when they defend
        entries.append((0 if sent else 1, -value, 1 if dragon_defends else 0, position, f.name))
    entries.append((1, -dragon_initiative, 0 if dragon_defends else 1, -1, DRAGON))
    return tuple(e[4] for e in sorted(entries))


# --------------------------------------------------------------------------------------------
# Actions


def monk_throw(fight: Fight, name: str, throw: DiceRoll) -> Fight:
    """The heroic monk throws a backpack resource: one die of its colour, damage to the dragon."""
    _not_over(fight)
    if not fight.pending_monks or fight.pending_monks[0] != name:
        expected = fight.whose_turn()
        raise CombatError(f"it is not {name}'s heroic monk's throw now; next: {expected}")
    fighter = fight.fighter(name)
    kind = str(fighter.heroic_monk)
    if len(throw.dice) != 1 or throw.dice[0].kind != kind:
        raise CombatError(f"{name}'s heroic monk throws {kind}: roll exactly one {kind} die")
    assert fight.dragon is not None
    health = fight.health - throw.hits
    line = (f"{name}'s heroic monk throws {kind}: {throw.describe()}; "
            f"the {fight.dragon.name} has {max(health, 0)} health.")
    fight = replace(fight, health=health, pending_monks=fight.pending_monks[1:], log=fight.log + (line,))
    return _check_dragon_defeated(fight)


@dataclass(frozen=True, slots=True)
class WeaponRoll:
    """The dice rolled for one weapon, and optionally which cubes the broken icons take."""

    hand: str
    dice: DiceRoll
    breaks: tuple[Cell, ...] = ()   # weapon-plane cells chosen by the player; default: the suggested repair


def samurai_roll(fight: Fight, name: str, rolls: Sequence[WeaponRoll], pack: DataPack) -> Fight:
    """A samurai's turn: one roll per usable weapon, one after the other (EN p.11)."""
    _not_over(fight)
    if fight.whose_turn() != name:
        raise CombatError(f"it is not {name}'s roll; next: {fight.whose_turn()}")
    fight = _clear_breaks(fight)
    fighter = fight.fighter(name)
    available = {hand: kinds for hand, kinds in fight.dice_to_roll(name, pack)}
    hands = [r.hand for r in rolls]
    if len(set(hands)) != len(hands):
        raise CombatError(f"{name} rolls once for each weapon")
    gear = fighter.gear
    total = 0
    broke = False
    lines: list[str] = []
    cells_by_hand = {w.hand: w.cells for w in usable_weapons(gear, pack)}
    for weapon_roll in rolls:
        if weapon_roll.hand not in available:
            usable = ", ".join(available) or "none"
            raise CombatError(f"{name} has no usable {weapon_roll.hand} weapon (usable: {usable})")
        _check_dice_subset(name, weapon_roll, available[weapon_roll.hand])
        total += weapon_roll.dice.hits
        lines.append(f"{name} rolls {weapon_roll.dice.describe()} with the {_hand_name(weapon_roll.hand)}")
        broken_kinds = [kind for kind in BREAK_ORDER for _ in range(weapon_roll.dice.broken(kind))]
        if weapon_roll.hand == "sandals":
            gear = break_sandals(gear, broken_kinds, pack)
            broke = broke or bool(broken_kinds)
            continue
        cells = set(cells_by_hand[weapon_roll.hand])
        chosen = list(weapon_roll.breaks)
        spec = pack.board(gear.board)
        for i, kind in enumerate(broken_kinds):
            material = RESOURCE_DIE[kind]
            if not chosen and fight.least_loss:
                # The cubes nobody chose: the fewest lost for the rest of this roll (EN p.12), one step each.
                before = set(gear.weapon_plane(spec))
                path = least_loss_breaks(gear, [RESOURCE_DIE[k] for k in broken_kinds[i:]], pack, within=cells,
                                         blueprint=fighter.blueprints.get("weapon"))
                for step_kind, after in zip(broken_kinds[i:], path, strict=True):
                    plane = set(after.weapon_plane(spec))
                    removed = before - plane
                    cells -= removed
                    lines.append(f"{name}'s weapon loses {step_kind}" + (
                        f" and {len(removed) - 1} more cube(s) to stay legal" if len(removed) > 1 else ""))
                    before, gear = plane, after
                broke = True
                break
            gear, removed = _break_one(gear, material, cells, chosen, fighter, pack)
            cells -= removed
            broke = True
            lines.append(f"{name}'s weapon loses {kind}" + (
                f" and {len(removed) - 1} more cube(s) to stay legal" if len(removed) > 1 else ""))
    fighter = replace(fighter, gear=gear, broke_this_turn=broke and not _usable_after(gear, pack))
    fight = _replace_fighter(fight, fighter)
    if fight.dragon is not None:
        health = fight.health - total
        lines.append(f"The {fight.dragon.name} takes {total} damage: {max(health, 0)} health left.")
        fight = replace(fight, health=health, log=fight.log + tuple(lines))
        fight = _check_dragon_defeated(fight)
    else:
        fight = replace(fight, log=fight.log + tuple(lines))
        fight = _hit_samurai(fight, _opponent(fight, name), total, {}, pack)
    return _advance(fight)


def usable_weapons(gear: Gear, pack: DataPack) -> list[Weapon]:
    """The weapons a samurai may roll now, in rolling order (Tomoe's sandals last)."""
    spec = pack.board(gear.board)
    weapons = [w for w in check_weapons(gear.weapon_plane(spec), spec, gear.monks, gear.magic).weapons if w.usable]
    sandals = usable_sandals_weapon(gear, spec)
    if sandals is not None:
        weapons.append(sandals)
    return weapons


def _usable_after(gear: Gear, pack: DataPack) -> bool:
    return bool(usable_weapons(gear, pack))


def _hand_name(hand: str) -> str:
    return {"left": "left weapon", "right": "right weapon", "two": "two-handed weapon",
            "sandals": "sandals"}.get(hand, hand)


def _check_dice_subset(name: str, weapon_roll: WeaponRoll, kinds: Sequence[str]) -> None:
    allowed: dict[str, int] = {}
    for kind in kinds:
        allowed[kind] = allowed.get(kind, 0) + 1
    for die in weapon_roll.dice.dice:
        allowed[die.kind] = allowed.get(die.kind, 0) - 1
        if allowed[die.kind] < 0:
            raise CombatError(f"{name}'s {_hand_name(weapon_roll.hand)} has no {die.kind} die to roll "
                              f"(one die per cube: {', '.join(kinds)})")


def _break_one(gear: Gear, material: Material, cells: set[Cell], chosen: list[Cell], fighter: Fighter,
               pack: DataPack) -> tuple[Gear, set[Cell]]:
    """Take one ``material`` cube from the rolled weapon, then make the weapons legal again."""
    spec = pack.board(gear.board)
    before = set(gear.weapon_plane(spec))
    blueprint = fighter.blueprints.get("weapon")
    options = break_options(gear, material, pack, within=cells, blueprint=blueprint)
    if not options:
        # A broken icon on a die whose cube already left the weapon: nothing more to take.
        return gear, set()
    pick = options[0]
    if chosen:
        wanted = chosen.pop(0)
        matching = [o for o in options if o.broken == wanted]
        if not matching:
            raise CombatError(f"cell {list(wanted)} holds no {material.die} cube of this weapon")
        pick = matching[0]
    after = set(pick.gear.weapon_plane(spec))
    return pick.gear, before - after


def break_sandals(gear: Gear, broken_kinds: Sequence[str], pack: DataPack) -> Gear:
    """Tomoe's sandals used as a weapon lose a cube of the die's colour per broken icon."""
    return _break_sandals(gear, tuple(broken_kinds), pack) if broken_kinds else gear


@lru_cache(maxsize=1 << 12)
def _break_sandals(gear: Gear, broken_kinds: tuple[str, ...], pack: DataPack) -> Gear:
    cubes = gear.cubes("sandals")
    for kind in broken_kinds:
        material = RESOURCE_DIE[kind]
        for cell in sorted(cubes):
            if cubes[cell] is material:
                del cubes[cell]
                break
    return gear.with_grid("sandals", cubes, pack.board(gear.board))


def usable_sandals_weapon(gear: Gear, spec: BoardSpec) -> Weapon | None:
    """Tomoe's sandals as a third one-handed weapon, when they are usable (EN Appendix A)."""
    if not spec.sandals_as_weapon:
        return None
    sandals = gear.cubes("sandals")
    if not sandals:
        return None
    weapon = sandals_weapon(sandals, spec)
    return weapon if weapon.usable else None


def dragon_roll(fight: Fight, dice: DiceRoll, pack: DataPack, *,
                removals: Mapping[str, Iterable[Cell]] | None = None, use_magic: Iterable[str] = ()) -> Fight:
    """The dragon's roll hits every samurai still in (EN p.11); helmets absorb, broken icons give teeth.

    ``removals`` names the helmet cells a player chooses to remove (default: the suggested removal);
    ``use_magic`` lists the players whose chosen removal includes the helmet's magical cube.
    """
    _not_over(fight)
    if fight.dragon is None:
        raise CombatError("there is no dragon in a samurai combat")
    if fight.whose_turn() != DRAGON:
        raise CombatError(f"it is not the dragon's roll; next: {fight.whose_turn()}")
    if any(d.kind != fight.dragon.die for d in dice.dice) or len(dice.dice) != fight.dragon.dice:
        kind = "white dragon-tooth" if fight.dragon.die == "tooth" else fight.dragon.die
        raise CombatError(f"the {fight.dragon.name} rolls exactly {fight.dragon.dice} {kind} dice")
    dragon = fight.dragon
    fight = _clear_breaks(fight)
    broken = dice.broken()
    fight = replace(fight, log=fight.log + (f"The {dragon.name} rolls {dice.describe()}.",))
    involved = [f.name for f in fight.fighters if f.is_in]
    chosen = {k: frozenset(v) for k, v in (removals or {}).items()}
    magic_choice = set(use_magic)
    for name in involved:
        fight = _hit_samurai(fight, name, dice.hits, {"cells": chosen.get(name), "magic": name in magic_choice},
                             pack)
    if broken and dragon.die != "tooth":
        # EN Appendix B scenario 4: a broken result on the Monk's wooden dice gives the player 1 wood.
        fight = replace(fight, log=fight.log + (f"{broken} broken wooden dice: {', '.join(involved)} "
                                                f"each take {broken} wood.",))
    elif broken:
        if fight.mode is Mode.COOP:
            fight = replace(fight, teeth_pool=fight.teeth_pool + broken,
                            log=fight.log + (f"{broken} dragon tooth(s) broke off: the group splits them.",))
        else:
            fighters = tuple(replace(f, teeth=f.teeth + broken) if f.name in involved else f
                             for f in fight.fighters)
            fight = replace(fight, fighters=fighters,
                            log=fight.log + (f"{broken} dragon tooth(s) broke off: "
                                             f"{', '.join(involved)} each take {broken}.",))
    fight = _check_samurai_lost(fight)
    return _advance(fight)


def _hit_samurai(fight: Fight, name: str, hits: int, choice: Mapping[str, Any], pack: DataPack) -> Fight:
    fighter = fight.fighter(name)
    if hits <= 0 or not fighter.is_in:
        return fight
    gear = fighter.gear
    spec = pack.board(gear.board)
    helmet = gear.cubes("helmet")
    magic = "helmet" in gear.magic
    options = absorb_options(helmet, hits, pack, magic=magic, blueprint=fighter.blueprints.get("helmet"))
    cells = choice.get("cells")
    pick = options[0]
    if cells is not None:
        want_magic = bool(choice.get("magic"))
        matching = [o for o in options if o.cells == cells and o.magic_used == want_magic]
        if not matching:
            raise CombatError(f"removing those cubes from {name}'s helmet does not absorb exactly what is "
                              "needed; choose one of the offered removals")
        pick = matching[0]
    knocked_out = pick.absorbed < hits
    remaining = {c: m for c, m in helmet.items() if c not in pick.cells}
    new_magic = gear.magic
    used = fighter.magic_used
    if pick.magic_used:
        new_magic = new_magic - {"helmet"}
        used = used | {"helmet"}
    elif pick.magic_lost:
        new_magic = new_magic - {"helmet"}
    gear = replace(gear.with_grid("helmet", remaining, spec), magic=new_magic)
    line = f"{name} takes {hits} damage: {pick.describe(helmet)}."
    status = fighter.status
    if knocked_out:
        status = Status.KNOCKED_OUT
        line = f"{name} takes {hits} damage with {pick.absorbed} helmet left and is knocked out."
    fighter = replace(fighter, gear=gear, status=status, magic_used=used)
    fight = _replace_fighter(fight, fighter)
    fight = replace(fight, log=fight.log + (line,))
    if fight.is_samurai_combat and knocked_out:
        winner = _opponent(fight, name)
        fight = replace(fight, outcome=Outcome.SAMURAI_WON, winner=winner,
                        log=fight.log + (f"{winner} wins and may steal one item from {name}'s backpack.",))
        fight = _finish(fight)
    return fight


def retreat(fight: Fight, name: str, pack: DataPack) -> Fight:
    """EN p.11: only right after one's own roll broke the last usable weapon."""
    _not_over(fight)
    fighter = fight.fighter(name)
    if fight.is_samurai_combat:
        raise CombatError("in samurai combat you surrender instead of retreating")
    if not fighter.is_in:
        raise CombatError(f"{name} is no longer in the fight")
    if not fighter.broke_this_turn:
        raise CombatError(f"{name} may retreat only right after their own roll broke their last usable weapon")
    fight = _replace_fighter(fight, replace(fighter, status=Status.RETREATED, broke_this_turn=False))
    fight = replace(fight, log=fight.log + (f"{name} retreats to the space they came from.",))
    fight = _check_samurai_lost(fight)
    if not fight.is_over and fight.whose_turn() == name:
        fight = _advance(fight)
    return fight


def surrender(fight: Fight, name: str, pack: DataPack) -> Fight:
    """EN p.12: in samurai combat, only right after one's own roll broke the last usable weapon."""
    _not_over(fight)
    if not fight.is_samurai_combat:
        raise CombatError("surrender is for samurai combat; against a dragon you retreat")
    fighter = fight.fighter(name)
    if not fighter.broke_this_turn:
        raise CombatError(f"{name} may surrender only right after their own roll broke their last usable weapon")
    winner = _opponent(fight, name)
    fight = _replace_fighter(fight, replace(fighter, status=Status.SURRENDERED, broke_this_turn=False))
    fight = replace(fight, outcome=Outcome.SAMURAI_WON, winner=winner,
                    log=fight.log + (f"{name} surrenders; {winner} may steal one item from their backpack.",))
    return _finish(fight)


def _opponent(fight: Fight, name: str) -> str:
    return next(f.name for f in fight.fighters if f.name != name)


def _not_over(fight: Fight) -> None:
    if fight.is_over:
        raise CombatError("the fight is over")


def _replace_fighter(fight: Fight, fighter: Fighter) -> Fight:
    return replace(fight, fighters=tuple(fighter if f.name == fighter.name else f for f in fight.fighters))


def _advance(fight: Fight) -> Fight:
    """Move to the next combatant still in the fight; a new round starts after the last."""
    if fight.is_over:
        return fight
    n = len(fight.order)
    turn, rnd = fight.turn, fight.round
    for _ in range(n):
        turn += 1
        if turn == n:
            turn, rnd = 0, rnd + 1
        who = fight.order[turn]
        if who == DRAGON or fight.fighter(who).is_in:
            break
    return replace(fight, turn=turn, round=rnd)


def _clear_breaks(fight: Fight) -> Fight:
    """The chance to retreat or surrender passes once the next combatant rolls."""
    if not any(f.broke_this_turn for f in fight.fighters):
        return fight
    return replace(fight, fighters=tuple(replace(f, broke_this_turn=False) for f in fight.fighters))


def _check_dragon_defeated(fight: Fight) -> Fight:
    if fight.dragon is None or fight.health > 0:
        return fight
    dragon = fight.dragon
    winners = [f for f in fight.fighters if f.is_in]
    if dragon.die != "tooth":
        # EN Appendix B scenario 4: a conquered Monk goes on the Player Board; no VP, no tooth.
        fight = replace(fight, health=0, outcome=Outcome.DRAGON_DEFEATED, log=fight.log + (
            f"The {dragon.name} is conquered by {', '.join(f.name for f in winners)} and joins their Player Board.",))
        return _finish(fight)
    if fight.mode is Mode.COOP:
        fighters = fight.fighters
        pool = fight.teeth_pool + dragon.coop_teeth
        line = (f"The {dragon.name} is defeated! {', '.join(f.name for f in winners)} share "
                f"{dragon.coop_teeth} dragon teeth (with the fight's broken teeth: {pool}).")
    else:
        fighters = tuple(replace(f, vp=f.vp + dragon.vp, teeth=f.teeth + 1) if f.is_in else f
                         for f in fight.fighters)
        pool = fight.teeth_pool
        line = (f"The {dragon.name} is defeated! {', '.join(f.name for f in winners)} each receive "
                f"{dragon.vp} VP and a dragon tooth.")
    fight = replace(fight, health=0, fighters=fighters, teeth_pool=pool, outcome=Outcome.DRAGON_DEFEATED,
                    log=fight.log + (line,))
    return _finish(fight)


def _check_samurai_lost(fight: Fight) -> Fight:
    if fight.is_over or fight.dragon is None or any(f.is_in for f in fight.fighters):
        return fight
    line = f"Every samurai is out; the {fight.dragon.name} heals fully."
    return _finish(replace(fight, outcome=Outcome.SAMURAI_LOST, log=fight.log + (line,)))


def _finish(fight: Fight) -> Fight:
    """After the fight: magic comes back to gear that still matches its blueprint (EN p.9)."""
    fighters = []
    for f in fight.fighters:
        gear = f.gear
        for kind in ("helmet", "sandals", "weapon"):
            pattern = f.blueprints.get(kind)
            if not pattern:
                continue
            has_magic = bool(gear.magic & ({kind} if kind != "weapon" else WEAPON_MAGIC))
            if has_magic:
                continue
            cubes = gear.cubes(kind) if kind != "weapon" else gear.weapon_plane()
            if cubes and contains(cubes, pattern_cubes(pattern)):
                gear = replace(gear, magic=gear.magic | {kind})
        fighters.append(replace(f, gear=gear, broke_this_turn=False))
    return replace(fight, fighters=tuple(fighters))


# --------------------------------------------------------------------------------------------
# Rolling for whoever acts next


def roll_for_turn(fight: Fight, pack: DataPack, *, seed: int, dice: Mapping[str, Any] | None = None) -> Fight:
    """Let the app roll for whoever acts next (the dragon player by default), seeded and replayable."""
    faces = dice or pack.dice
    who = fight.whose_turn()
    if who is None:
        raise CombatError("the fight is over")
    if who.startswith("monk:"):
        name = who.removeprefix("monk:")
        kind = str(fight.fighter(name).heroic_monk)
        return monk_throw(fight, name, roll([kind], faces, seed=seed))
    if who == DRAGON:
        assert fight.dragon is not None
        return dragon_roll(fight, roll(["tooth"] * fight.dragon.dice, faces, seed=seed), pack)
    rolls = []
    for i, (hand, kinds) in enumerate(fight.dice_to_roll(who, pack)):
        rolls.append(WeaponRoll(hand, roll(kinds, faces, seed=seed * 7 + i, source=DiceSource.APP)))
    return samurai_roll(fight, who, rolls, pack)


#: The fields combatant_from_json reads (``fujikoro odds`` refuses others in its input).
SAMURAI_FIELDS = frozenset({"name", "gear", "heroic_monk", "monk_from", "blueprints"})


def combatant_from_json(data: Mapping[str, Any], pack: DataPack) -> Combatant:
    """A samurai in the ``fujikoro odds`` input: name, gear (gear-inspect input), heroic_monk, blueprints."""
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise CombatError("every samurai needs a name")
    try:
        gear = gear_from_json(data.get("gear", {}), pack)
    except GearError as error:
        raise CombatError(f"{name}'s gear: {error}") from None
    monk = data.get("heroic_monk")
    if monk is not None and monk not in (*RESOURCE_DIE, "none"):
        raise CombatError(f"{name}: heroic_monk is wood, metal, tooth, none or null, not {monk!r}")
    monk_from = data.get("monk_from", "backpack")
    blueprints = data.get("blueprints", {})
    if not isinstance(blueprints, dict):
        raise CombatError(f"{name}: blueprints maps helmet / weapon / sandals to a pattern")
    return Combatant(name=name, gear=gear, heroic_monk=monk, monk_from=str(monk_from),
                     blueprints={str(k): tuple(v) for k, v in blueprints.items()})


__all__ = [
    "DRAGON", "CombatError", "Combatant", "DragonStats", "Fight", "Fighter", "Mode", "Outcome", "Status",
    "WeaponRoll", "combatant_from_json", "dragon_roll", "monk_throw", "retreat", "roll_for_turn",
    "samurai_roll", "start_dragon_fight", "start_samurai_fight", "surrender",
]
