"""Battles and revolts (spec 6.2-6.7): what goes into the tower, how the tray is counted, what follows.

One battle is a :class:`BattleSetup` (before the throw) and the tray counts after it. :func:`judge` is the
one counting rule (the odds use the same rule); :func:`resolve` gives winner, losses, survivors, what goes
back to which supply, what stays in the tray, and what the province looks like afterwards.

Kinds: ``attack`` (player against player), ``neutral`` (player against a province with no armies),
``revolt`` (peasants against the owner: at tax/rice time or in winter). In a revolt the owner is the
defender and the peasants are the attacking side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.shogun.pack import GREEN
from games.shogun.tower import Counts, Tower, TowerError, add, clean

KINDS = ("attack", "neutral", "revolt")
ATTACKER, DEFENDER, DRAW = "attacker", "defender", "draw"


class BattleError(ValueError):
    """A battle that cannot be set up as given; one sentence naming the field."""


@dataclass(frozen=True, slots=True)
class BattleSetup:
    kind: str
    defender: str | None  # the owner of the target (None: neutral)
    attacker: str | None = None  # None in a revolt
    moved: int = 0
    source_armies: int = 0
    target_armies: int = 0
    revolt_tokens: int = 0
    buildings: tuple[str, ...] = ()
    attack_extra: int = 0  # the "+1 army attacking" cube actually thrown (0 or 1)
    defence_extra: int = 0  # the "+1 army defending" cube actually thrown
    winter_extra_peasants: int = 0
    neutral_greens: int = 1  # a neutral province throws 1 green (spec 6.3)
    #: Peasant cubes the supply lacks (spec 1: 20 of them; spec 9: warn when a component runs out): thrown in as
    #: many fewer.
    greens_missing: int = 0
    a4_losses: str = "greens_first"
    #: A3: in a revolt the owner puts down, the owner loses as many cubes as the greens in the tray
    #: ("greens_in_tray", the spec's reading) or as the greens thrown in ("greens_thrown").
    a3_owner_loses: str = "greens_in_tray"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise BattleError(f"kind: expected one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.kind in ("attack", "neutral"):
            if not self.attacker:
                raise BattleError("attacker: an attack needs the attacking colour")
            if self.moved < 1:
                raise BattleError(f"moved: at least 1 army must move in to attack, got {self.moved}")
            if self.source_armies and self.moved > self.source_armies - 1:
                raise BattleError(f"moved: at least one army stays behind, so at most {self.source_armies - 1} "
                                  f"of {self.source_armies} can move (spec 5, Moving)")
        if self.kind == "attack":
            if not self.defender or self.defender == self.attacker:
                raise BattleError("defender: an attack needs another player's colour as defender")
            if self.target_armies < 1:
                raise BattleError("target.armies: a province of another player holds at least 1 army "
                                  "(a province with none is neutral, spec 6.2)")
        if self.kind == "neutral" and (self.target_armies or self.revolt_tokens):
            raise BattleError("target: a neutral province holds no armies and no revolt tokens (spec 6.4)")
        if self.kind == "revolt" and not self.defender:
            raise BattleError("defender: a revolt needs the owner's colour")

    @property
    def greens_take_part(self) -> bool:
        """Peasants fight for the defender only if the province has no revolt token (spec 6.4); they are the
        defender of a neutral province and the attackers of a revolt."""
        return self.kind != "attack" or self.revolt_tokens == 0

    def added(self) -> dict[str, int]:
        """The cubes that go into the tower from outside (the tray goes in too; spec 6.3, 6.7)."""
        added: dict[str, int] = {}
        if self.kind == "attack":
            assert self.attacker and self.defender
            added[self.attacker] = self.moved + self.attack_extra
            added[self.defender] = self.target_armies + self.defence_extra
        elif self.kind == "neutral":
            assert self.attacker
            added[self.attacker] = self.moved + self.attack_extra
            added[GREEN] = max(0, self.neutral_greens - self.greens_missing)
        else:
            assert self.defender
            added[self.defender] = self.target_armies
            added[GREEN] = max(0, self.revolt_tokens + self.winter_extra_peasants - self.greens_missing)
        return clean(added)

    def what_goes_in(self, tray: Counts) -> str:
        """One line for the battle helper: what to throw in."""
        parts = [f"{n} {c}" for c, n in sorted(self.added().items())]
        tray_parts = [f"{n} {c}" for c, n in sorted(clean(tray).items())]
        text = "throw in at once: " + (", ".join(parts) or "nothing")
        return text + (f", plus the tray ({', '.join(tray_parts)})" if tray_parts else ", plus the tray (empty)")


def judge(kind: str, attacking: int, own_defending: int, greens: int, *, greens_count: bool,
          a4_losses: str = "greens_first") -> str:
    """The counting rule (spec 6.4-6.6, A4). ``attacking`` is the attacker's colour in the tray (the peasants'
    greens in a revolt), ``own_defending`` the defender's colour (the owner's in a revolt), ``greens`` the
    greens in the tray (counted for the defender of an attack only if ``greens_count``).

    Only greens out (no cube of either player side) is a draw; a defender who would win but keeps no cube of
    their own (A4) is a draw too."""
    if kind == "revolt":
        peasants, owner = greens, own_defending
        if owner > peasants:
            return DEFENDER
        return ATTACKER if peasants > owner and owner > 0 else DRAW
    if kind == "neutral":
        if attacking > greens:
            return ATTACKER
        return DEFENDER if greens > attacking > 0 else DRAW
    counted_greens = greens if greens_count else 0
    defending = own_defending + counted_greens
    if attacking > defending:
        return ATTACKER
    if defending > attacking and _defender_keeps(attacking, own_defending, counted_greens, a4_losses) > 0:
        return DEFENDER
    return DRAW


def _defender_keeps(attacking: int, own: int, greens: int, a4_losses: str) -> int:
    lost = max(0, attacking - greens) if a4_losses == "greens_first" else min(own, attacking)
    return max(0, own - lost)


@dataclass(frozen=True, slots=True)
class Province:
    owner: str | None
    armies: int
    buildings: tuple[str, ...] = ()
    revolt_tokens: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"owner": self.owner, "armies": self.armies, "buildings": list(self.buildings),
                "revolt_tokens": self.revolt_tokens}


@dataclass(frozen=True, slots=True)
class BattleResult:
    setup: BattleSetup
    thrown: Counts
    attacking: int
    defending: int
    winner: str
    returned_to_supply: Counts
    source_after: int
    target_after: Province
    tower: Tower
    warnings: tuple[str, ...] = field(default=())

    @property
    def province_changed_hands(self) -> bool:
        return self.target_after.owner != self.setup.defender

    def to_json(self) -> dict[str, Any]:
        return {
            "thrown": dict(sorted(self.thrown.items())),
            "count": {"attacker": self.attacking, "defender": self.defending},
            "winner": self.winner,
            "returned_to_supply": dict(sorted(self.returned_to_supply.items())),
            "source_after": {"armies": self.source_after},
            "target_after": self.target_after.to_json(),
            "tray_after": dict(sorted(self.tower.tray.items())),
            "tower_inside_after": dict(sorted(self.tower.inside.items())),
        }


def resolve(setup: BattleSetup, tower: Tower, out: Counts, *, add_token_if_held: bool = False,
            prediction: Mapping[str, float] | None = None, label: str = "") -> BattleResult:
    """Throw, count and settle one battle (spec 6.5, 6.6). ``out`` is what the table counted in the tray.
    ``add_token_if_held``: a revolt at tax/rice time (or in winter, A12) adds a revolt token when put down."""
    try:
        thrown_tower = tower.throw(setup.added(), out, label=label, prediction=prediction)
    except TowerError as error:
        raise BattleError(str(error)) from None
    thrown = add(setup.added(), tower.tray)
    tray = thrown_tower.tray
    green = tray.get(GREEN, 0)
    returned: dict[str, int] = {}
    source_after = setup.source_armies - setup.moved if setup.kind != "revolt" else 0
    buildings = setup.buildings
    if setup.kind == "revolt":
        owner = setup.defender
        assert owner is not None
        own = tray.get(owner, 0)
        winner = judge("revolt", green, own, green, greens_count=True)
        returned[GREEN] = green
        if winner == DEFENDER:
            # A3: as many as the greens in the tray, or (the other reading) as the greens thrown in.
            lost = green if setup.a3_owner_loses == "greens_in_tray" else min(own, setup.added().get(GREEN, 0))
            returned[owner] = lost
            tokens = setup.revolt_tokens + (1 if add_token_if_held else 0)
            after = Province(owner, own - lost, buildings, tokens)
        else:
            returned[owner] = own
            after = Province(None, 0, (), 0)
        attacking, defending = green, own
    else:
        attacker = setup.attacker
        assert attacker is not None
        defender = setup.defender if setup.kind == "attack" else None
        a = tray.get(attacker, 0)
        own = tray.get(defender, 0) if defender else 0
        counted = green if setup.greens_take_part else 0
        winner = judge(setup.kind, a, own, green, greens_count=setup.greens_take_part, a4_losses=setup.a4_losses)
        if setup.greens_take_part:
            returned[GREEN] = green  # peasants that took part go back, winners too (spec 6.5)
        attacking, defending = a, own + counted
        if winner == ATTACKER:
            if defender:
                returned[defender] = own
            returned[attacker] = defending
            after = Province(attacker, a - defending, buildings, setup.revolt_tokens)
        elif winner == DEFENDER:
            returned[attacker] = a
            if defender:
                kept = _defender_keeps(a, own, counted, setup.a4_losses)
                returned[defender] = own - kept
                after = Province(defender, kept, buildings, setup.revolt_tokens)
            else:
                after = Province(None, 0, (), 0)
        else:
            returned[attacker] = a
            if defender:
                returned[defender] = own
            after = Province(None, 0, (), 0)
    returned = clean(returned)
    final_tower = thrown_tower.take_from_tray(returned)
    to_province = after.armies if after.owner is not None else 0
    if to_province:
        assert after.owner is not None
        final_tower = final_tower.take_from_tray({after.owner: to_province})
    final_tower = final_tower.with_outcome(winner)
    return BattleResult(setup, thrown, attacking, defending, winner, returned, source_after, after, final_tower)


def supply_changes(result: BattleResult) -> dict[str, int]:
    """What each supply gains (the returned cubes) - the extra privilege cubes left it (A5)."""
    change = dict(result.returned_to_supply)
    s = result.setup
    if s.attack_extra and s.attacker:
        change[s.attacker] = change.get(s.attacker, 0) - s.attack_extra
    if s.defence_extra and s.defender:
        change[s.defender] = change.get(s.defender, 0) - s.defence_extra
    return change


def describe(result: BattleResult, names: Mapping[str, str] | None = None) -> str:
    names = names or {}
    s = result.setup

    def n(colour: str | None) -> str:
        return names.get(colour or "", colour or "the peasants")

    if s.kind == "revolt":
        who = {ATTACKER: "the peasants win", DEFENDER: f"{n(s.defender)} puts it down", DRAW: "a draw"}[result.winner]
        return f"revolt: {result.defending} {n(s.defender)} against {result.attacking} peasants, {who}"
    other = n(s.defender) if s.kind == "attack" else "the peasants"
    who = {ATTACKER: f"{n(s.attacker)} wins", DEFENDER: f"{other} hold", DRAW: "a draw"}[result.winner]
    return f"{n(s.attacker)} {result.attacking} against {other} {result.defending}: {who}"


def buildings_list(value: Any, field_name: str) -> tuple[str, ...]:
    """Buildings as given in JSON: a list of types, or {type: count} with counts 0/1."""
    if value is None:
        return ()
    if isinstance(value, Mapping):
        items: Sequence[Any] = [k for k, v in value.items() for _ in range(v if isinstance(v, int) else 0)]
    elif isinstance(value, list):
        items = value
    else:
        raise BattleError(f"{field_name}: expected a list of building types, got {value!r}")
    out: list[str] = []
    for item in items:
        if item not in ("castle", "temple", "theatre"):
            raise BattleError(f"{field_name}: {item!r} is not castle, temple or theatre")
        if item in out:
            raise BattleError(f"{field_name}: a province holds at most one {item} (spec 5)")
        out.append(item)
    return tuple(out)
