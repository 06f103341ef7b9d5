"""Exact odds of a dragon fight, and a Monte-Carlo simulation of the full rules to check them.

The policy both use (documented in the app and in ``fujikoro odds --help``): every samurai rolls
every die they may; a helmet takes the suggested removal (:func:`games.fujikoro.gear.absorb_options`);
the broken icons of a roll take the cubes that lose the fewest in all, then leave the best weapons
(the least-loss choice, :func:`games.fujikoro.gear.least_loss_breaks`, the same default as a fight);
nobody retreats.

The exact method is a Markov chain over fight states. A state is the dragon's health and each
samurai's status and gear; whose turn it is runs round a ring. Every roll either changes the state
to a strictly "smaller" one (less health, fewer cubes, fewer samurai standing) or leaves it as it
is, so the only cycles are rounds in which nothing changes. For each state the values at the ring's
turns satisfy ``V_i = R_i + q_i V_(i+1)``, ``q_i`` the chance that turn i changes nothing and ``R_i``
the value of the changed outcomes; the ring closes and is solved in closed form.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np

from games.fujikoro.combat import (
    BREAK_ORDER,
    DRAGON,
    RESOURCE_DIE,
    Fight,
    Mode,
    Outcome,
    Status,
    break_sandals,
    roll_for_turn,
    usable_sandals_weapon,
)
from games.fujikoro.gear import Gear, absorb_options, check_weapons, least_loss_breaks
from games.fujikoro.pack import DataPack, Die

Vector = tuple[float, ...]  # (p_defeated, p_ko per samurai..., p_defeated_and_standing per samurai...)


class OddsError(ValueError):
    """Odds that cannot be computed: a samurai fight, or a fight that can never end."""


@dataclass(frozen=True, slots=True)
class Odds:
    p_dragon_defeated: float
    p_knocked_out: Mapping[str, float]
    expected_vp: Mapping[str, float]
    method: str
    states: int = 0
    fights: int = 0
    #: The chance the fight never ends: nobody left can hurt the other side (dice edited so that no face hits);
    #: the other figures then do not add up to 1.
    p_no_end: float = 0.0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "p_dragon_defeated": round(self.p_dragon_defeated, 6),
            "p_knocked_out": {k: round(v, 6) for k, v in self.p_knocked_out.items()},
            "expected_vp": {k: round(v, 4) for k, v in self.expected_vp.items()},
            "method": self.method,
            "policy": POLICY,
        }
        if self.states:
            out["states"] = self.states
        if self.fights:
            out["fights"] = self.fights
        if round(self.p_no_end, 6) > 0:
            out["p_no_end"] = round(self.p_no_end, 6)
        return out


# --------------------------------------------------------------------------------------------
# Dice distributions


POLICY = {
    "dice": "every samurai rolls every die they may",
    "helmet": "the suggested removal",
    "broken": "least_loss: the cubes that lose the fewest in all for the roll, then the best weapons left (EN p.12)",
    "retreat": "nobody retreats",
}

Outcomes = tuple[tuple[float, int, tuple[int, ...]], ...]  # (p, hits, broken per kind in KINDS order)
KINDS = ("wood", "metal", "tooth", "magic")


def _die_outcomes(die: Die) -> dict[tuple[int, int], float]:
    out: dict[tuple[int, int], float] = {}
    for face in die.faces:
        key = (face.hits, int(face.broken))
        out[key] = out.get(key, 0.0) + 1 / len(die.faces)
    return out


def dice_distribution(counts: Mapping[str, int], dice: Mapping[str, Die]) -> Outcomes:
    """The joint distribution of total hits and broken icons per kind for a handful of dice."""
    table: dict[tuple[int, tuple[int, ...]], float] = {(0, (0, 0, 0, 0)): 1.0}
    for k, kind in enumerate(KINDS):
        per_die = _die_outcomes(dice[kind])
        for _ in range(counts.get(kind, 0)):
            nxt: dict[tuple[int, tuple[int, ...]], float] = {}
            for (hits, broken), p in table.items():
                for (h, b), q in per_die.items():
                    nb = broken if not b else broken[:k] + (broken[k] + 1,) + broken[k + 1:]
                    key = (hits + h, nb)
                    nxt[key] = nxt.get(key, 0.0) + p * q
            table = nxt
    return tuple((p, hits, broken) for (hits, broken), p in table.items())


# --------------------------------------------------------------------------------------------
# The chain, decoupled
#
# Samurai interact only through the dragon: its roll hits every helmet alike (so it alone decides
# when each samurai is knocked out), and the samurai's hits add up on its health. Given the turns
# at which the samurai are knocked out, their damage processes are independent, and because damage
# only adds up, "the dragon is defeated before moment x" is just "the damage dealt before x reaches
# its health". So the chain splits in two small ones:
#   * the dragon's chain over the helmets of the samurai still standing -> the distribution of the
#     vector of knock-out turns (K);
#   * one chain per samurai over (weapon, damage dealt, capped at the health) -> the distribution of
#     the damage after m rolls, D_i(m);
# and P(dragon defeated before x | K) = P(sum_i D_i(rolls of i before x) >= health), a convolution.
# The dragon's chain is followed until the chance that anyone is still standing is below TAIL.

TAIL = 1e-13
NEVER = 10**9  # "never knocked out" as a turn number


class _Chain:
    """Transition functions with caches; one instance per odds question (a pack and dice faces)."""

    def __init__(self, pack: DataPack, dice: Mapping[str, Die], mode: Mode, dragon_dice: int, vp: int,
                 blueprints: Sequence[Mapping[str, tuple[str, ...]]]) -> None:
        self.pack = pack
        self.dice = dice
        self.mode = mode
        self.vp = vp if mode is Mode.COMPETITIVE else 0
        self.blueprints = blueprints
        merged: dict[int, float] = {}
        for p, hits, _ in dice_distribution({"tooth": dragon_dice}, dice):
            merged[hits] = merged.get(hits, 0.0) + p
        self.dragon_hits = tuple((p, hits) for hits, p in sorted(merged.items()))
        self.roll_cache: dict[tuple[int, Gear], tuple[tuple[float, int, Gear], ...]] = {}
        self.hit_cache: dict[tuple[int, Gear, int], tuple[bool, Gear]] = {}
        self.states = 0
        # Gear states of the damage chains, numbered: ints hash faster than whole boards.
        self.ids: dict[Gear, int] = {}
        self.by_id: list[Gear] = []
        self.id_rolls: dict[tuple[int, int], tuple[tuple[float, int, int], ...]] = {}
        self.cap = 1  # damage beyond the dragon's health changes nothing: hits are counted up to this

    def gear_id(self, gear: Gear) -> int:
        found = self.ids.get(gear)
        if found is None:
            found = self.ids[gear] = len(self.by_id)
            self.by_id.append(gear)
        return found

    def rolls_by_id(self, index: int, gid: int) -> tuple[tuple[float, int, int], ...]:
        key = (index, gid)
        cached = self.id_rolls.get(key)
        if cached is None:
            merged: dict[tuple[int, int], float] = {}
            for p, hits, after in self.samurai_outcomes(index, self.by_id[gid]):
                k2 = (min(hits, self.cap), self.gear_id(after))
                merged[k2] = merged.get(k2, 0.0) + p
            cached = self.id_rolls[key] = tuple((p, hits, g) for (hits, g), p in merged.items())
        return cached

    # -- a samurai's roll: (p, hits, gear after) -------------------------------------------
    def samurai_outcomes(self, index: int, gear: Gear) -> tuple[tuple[float, int, Gear], ...]:
        key = (index, gear)
        cached = self.roll_cache.get(key)
        if cached is not None:
            return cached
        spec = self.pack.board(gear.board)
        check = check_weapons(gear.weapon_plane(spec), spec, gear.monks, gear.magic)
        usable = [w for w in check.weapons if w.usable]
        results: dict[tuple[int, Gear], float] = {(0, gear): 1.0}
        blueprint = self.blueprints[index].get("weapon")
        if spec.sandals_as_weapon:
            sandals = usable_sandals_weapon(gear, spec)
            if sandals is not None:
                usable.append(sandals)
        for weapon in usable:
            outcomes = dice_distribution(weapon.dice, self.dice)
            nxt: dict[tuple[int, Gear], float] = {}
            for (hits_so_far, g), p in results.items():
                for q, hits, broken in outcomes:
                    if weapon.hand == "sandals":
                        after = break_sandals(g, _broken_kinds(broken), self.pack)
                    else:
                        after = _apply_breaks(g, weapon.cells, broken, self.pack, blueprint)
                    key2 = (hits_so_far + hits, after)
                    nxt[key2] = nxt.get(key2, 0.0) + p * q
            results = nxt
        out = tuple((p, hits, _inert(g, self.pack)) for (hits, g), p in results.items())
        self.roll_cache[key] = out
        return out

    # -- the dragon's hit on one samurai: (knocked out, gear after) -------------------------
    def take_hit(self, index: int, gear: Gear, hits: int) -> tuple[bool, Gear]:
        key = (index, gear, hits)
        cached = self.hit_cache.get(key)
        if cached is not None:
            return cached
        spec = self.pack.board(gear.board)
        magic = "helmet" in gear.magic
        helmet = gear.cubes("helmet")
        best = absorb_options(helmet, hits, self.pack, magic=magic,
                              blueprint=self.blueprints[index].get("helmet"))[0]
        ko = best.absorbed < hits
        new_magic = gear.magic - {"helmet"} if (best.magic_used or best.magic_lost) else gear.magic
        after = replace(gear.with_grid("helmet", best.remaining, spec), magic=new_magic)
        result = (ko, after)
        self.hit_cache[key] = result
        return result

    # -- per samurai: damage after m rolls --------------------------------------------------
    def damage_table(self, index: int, gear: Gear, cap: int, rolls: int | None) -> list[list[float]]:
        """D_i(m) for m = 0 .. rolls, each a list over damage 0 .. cap (cap = at least the health).

        ``rolls=None``: go on until the samurai has surely dealt all they can (their weapon is
        spent, or the cap is reached), up to the TAIL; the last row is then D_i(infinity).
        The chain over (weapon state, damage dealt) is one fixed matrix, applied once per roll.
        """
        start = self.gear_id(_inert(gear, self.pack))
        # Every weapon state this samurai can reach, numbered 0..w-1.
        order = [start]
        seen = {start}
        for gid in order:
            for _, _, after in self.rolls_by_id(index, gid):
                if after not in seen:
                    seen.add(after)
                    order.append(after)
        local = {gid: k for k, gid in enumerate(order)}
        width = cap + 1
        size = len(order) * width
        matrix = np.zeros((size, size))
        below_cap = np.arange(cap)
        for gid in order:
            row = local[gid] * width
            for p, hits, after in self.rolls_by_id(index, gid):
                col = local[after] * width
                np.add.at(matrix, (col + np.minimum(cap, below_cap + hits), row + below_cap), p)
            matrix[row + cap, row + cap] = 1.0  # the cap is reached: nothing more matters
        state = np.zeros(size)
        state[local[start] * width] = 1.0
        table = [[1.0] + [0.0] * cap]
        moving = np.ones(size, dtype=bool)
        for gid in order:
            can_change = any(hits or after != gid for _, hits, after in self.rolls_by_id(index, gid))
            base = local[gid] * width
            moving[base: base + width] = can_change
            moving[base + cap] = False
        done = 0
        while rolls is None or done < rolls:
            state = matrix @ state
            done += 1
            self.states += int(np.count_nonzero(state))
            table.append([float(x) for x in state.reshape(len(order), width).sum(axis=0)])
            if rolls is None and float(state[moving].sum()) < TAIL:
                break
            if done > 100_000:
                raise OddsError("a samurai's damage never settles; check the dice faces")
        return table

    # -- the dragon's side: distribution of knock-out turns ----------------------------------
    def knockout_turns(self, gears: Sequence[Gear | None]) -> dict[tuple[int, ...], float]:
        """P(K) for K = the dragon turn (1, 2, ...) at which each samurai falls; NEVER if they stand.

        ``None`` for a samurai already out of the fight (it gets turn 0). A state of the dragon's
        chain holds, per samurai, the id of the helmet left (>= 0) or -(turn + 1) once knocked out.
        """
        helmet_ids: dict[Gear, int] = {}
        helmets: list[Gear] = []
        hits_values = [hits for _, hits in self.dragon_hits]
        rows: dict[tuple[int, int], list[int]] = {}  # (samurai, helmet id) -> next id per hit value; -1: out

        def hid(gear: Gear) -> int:
            found = helmet_ids.get(gear)
            if found is None:
                found = helmet_ids[gear] = len(helmets)
                helmets.append(gear)
            return found

        def row(j: int, state: int) -> list[int]:
            found = rows.get((j, state))
            if found is None:
                found = []
                for hits in hits_values:
                    if hits == 0:
                        found.append(state)
                        continue
                    knocked, after = self.take_hit(j, helmets[state], hits)
                    found.append(-1 if knocked else hid(after))
                rows[(j, state)] = found
            return found

        start = tuple(-1 if g is None else hid(_helmet_only(g)) for g in gears)
        frontier: dict[tuple[int, ...], float] = {start: 1.0}
        done: dict[tuple[int, ...], float] = {}
        turn = 0
        stuck = all(h == 0 for h in hits_values)
        probabilities = [p for p, _ in self.dragon_hits]
        while frontier and not stuck:
            turn += 1
            out_now = -(turn + 1)
            nxt: dict[tuple[int, ...], float] = {}
            for state, p in frontier.items():
                lookups = [None if s < 0 else row(j, s) for j, s in enumerate(state)]
                for h, q in enumerate(probabilities):
                    key = tuple(
                        s if lk is None else (out_now if lk[h] < 0 else lk[h])
                        for s, lk in zip(state, lookups, strict=True)
                    )
                    nxt[key] = nxt.get(key, 0.0) + p * q
            frontier = {}
            standing = 0.0
            for state, p in nxt.items():
                if all(s < 0 for s in state):
                    k = tuple(-s - 1 for s in state)
                    done[k] = done.get(k, 0.0) + p
                else:
                    frontier[state] = p
                    standing += p
            self.states += len(frontier)
            if standing < TAIL:
                break
        for state, p in frontier.items():
            k = tuple(NEVER if s >= 0 else -s - 1 for s in state)
            done[k] = done.get(k, 0.0) + p
        return done


def _helmet_only(gear: Gear) -> Gear:
    """What the dragon's chain needs of a samurai: the helmet and its magic (weapons dropped)."""
    empty_left = tuple("." * len(row) for row in gear.weapon_left)
    empty_right = tuple("." * len(row) for row in gear.weapon_right)
    return replace(gear, weapon_left=empty_left, weapon_right=empty_right, magic=gear.magic & {"helmet"})


@lru_cache(maxsize=1 << 14)
def _inert(gear: Gear, pack: DataPack) -> Gear:
    """A samurai with no usable weapon left deals no more damage: forget the cubes (fewer states)."""
    spec = pack.board(gear.board)
    if any(w.usable for w in check_weapons(gear.weapon_plane(spec), spec, gear.monks, gear.magic).weapons):
        return gear
    if spec.sandals_as_weapon and usable_sandals_weapon(gear, spec) is not None:
        return gear
    empty_left = tuple("." * len(row) for row in gear.weapon_left)
    empty_right = tuple("." * len(row) for row in gear.weapon_right)
    return replace(gear, weapon_left=empty_left, weapon_right=empty_right, helmet=(), magic=frozenset())


def _at_least(rows: Sequence[Sequence[float]], health: int) -> float:
    """P(sum of independent damages >= health), each damage capped at or above the health."""
    total = np.ones(1)
    for row in rows:
        total = np.convolve(total, np.asarray(row))
        if total.size > health + 1:
            total[health] = total[health:].sum()
            total = total[: health + 1]
    return float(total[health]) if total.size > health else 0.0


def _add(acc: list[float], p: float, vector: Sequence[float]) -> None:
    for k, v in enumerate(vector):
        acc[k] += p * v


@lru_cache(maxsize=65536)
def _apply_breaks_cached(gear: Gear, cells: frozenset[tuple[int, int]], broken: tuple[int, ...],
                         pack: DataPack, blueprint: tuple[str, ...] | None) -> Gear:
    # The same default as a fight without chosen cubes: the fewest cubes lost for the whole roll (EN p.12).
    path = least_loss_breaks(gear, [RESOURCE_DIE[kind] for kind in _broken_kinds(broken)], pack, within=cells,
                             blueprint=blueprint)
    return path[-1] if path else gear


def _broken_kinds(broken: tuple[int, ...]) -> list[str]:
    """Broken icons in the order the combat engine resolves them (BREAK_ORDER)."""
    counts = dict(zip(KINDS, broken, strict=True))
    return [kind for kind in BREAK_ORDER for _ in range(counts[kind])]


def _apply_breaks(gear: Gear, cells: frozenset[tuple[int, int]], broken: tuple[int, ...], pack: DataPack,
                  blueprint: tuple[str, ...] | None) -> Gear:
    if not any(broken[:3]):
        return gear
    return _apply_breaks_cached(gear, cells, broken, pack, blueprint)


# --------------------------------------------------------------------------------------------
# Public entry points


def exact_odds(fight: Fight, pack: DataPack, *, dice: Mapping[str, Die] | None = None) -> Odds:
    """The exact odds from this moment of the fight on, under the documented policy."""
    if fight.dragon is None:
        raise OddsError("odds are computed for dragon fights")
    faces = dice or pack.dice
    names = [f.name for f in fight.fighters]
    n = len(names)
    chain = _Chain(pack, faces, fight.mode, fight.dragon.dice, fight.dragon.vp,
                   [f.blueprints for f in fight.fighters])
    if fight.is_over:
        defeated = fight.outcome is Outcome.DRAGON_DEFEATED
        vector = (1.0 if defeated else 0.0,
                  *(1.0 if f.status is Status.KNOCKED_OUT else 0.0 for f in fight.fighters),
                  *(1.0 if defeated and f.status is Status.IN else 0.0 for f in fight.fighters))
        return _odds(vector, names, chain.vp, "exact")
    # Heroic monks still to throw: a distribution of the health the fight starts from.
    healths: dict[int, float] = {fight.health: 1.0}
    for name in fight.pending_monks:
        kind = str(fight.fighter(name).heroic_monk)
        nxt: dict[int, float] = {}
        for p, hits, _ in dice_distribution({kind: 1}, faces):
            for h, q in healths.items():
                nxt[h - hits] = nxt.get(h - hits, 0.0) + p * q
        healths = nxt
    cap = max(1, max(healths))
    chain.cap = cap
    length = len(fight.order)
    rel = {who: (i - fight.turn) % length for i, who in enumerate(fight.order)}
    rel_dragon = rel[DRAGON]
    first = [1 if rel[name] < rel_dragon else 0 for name in names]  # rolls before the first dragon turn
    gears = [f.gear if f.status is Status.IN else None for f in fight.fighters]
    turns = chain.knockout_turns(gears)
    longest = max((t for k in turns for t in k if t < NEVER), default=0)
    horizon = longest + 1
    # A samurai never knocked out (more than a TAIL of chance) keeps rolling: follow their damage
    # until it settles, so the last row is the damage they can ever deal.
    never = [sum(p for k, p in turns.items() if k[i] >= NEVER) for i in range(n)]
    tables = [
        [[1.0]] if g is None else chain.damage_table(i, g, cap, None if never[i] > TAIL else horizon)
        for i, g in enumerate(gears)
    ]

    def rolls_before(i: int, dragon_turn: int, k: tuple[int, ...]) -> int:
        """Rolls samurai i makes before the dragon's turn number ``dragon_turn`` (inclusive-exclusive)."""
        if gears[i] is None:
            return 0
        own_end = k[i]
        last = min(dragon_turn, own_end)
        count = last - 1 + first[i]
        return max(0, min(count, len(tables[i]) - 1))

    def p_reached(k: tuple[int, ...], dragon_turn: int, health: int) -> float:
        rows = [tables[i][rolls_before(i, dragon_turn, k)] for i in range(n)]
        return _at_least(rows, health)

    acc = [0.0] * (1 + 2 * n)
    no_end = 0.0
    memo: dict[tuple[tuple[int, ...], int], float] = {}
    for health, ph in healths.items():
        if health <= 0:
            _add(acc, ph, (1.0, *(1.0 if f.status is Status.KNOCKED_OUT else 0.0 for f in fight.fighters),
                           *(1.0 if f.status is Status.IN else 0.0 for f in fight.fighters)))
            continue
        for k, pk in turns.items():
            def reached(dragon_turn: int, k: tuple[int, ...] = k, health: int = health) -> float:
                key = (tuple(rolls_before(i, dragon_turn, k) for i in range(n)), health)
                value = memo.get(key)
                if value is None:
                    value = p_reached(k, dragon_turn, health)
                    memo[key] = value
                return value

            p_def = reached(NEVER)
            ko = []
            win = []
            for j, f in enumerate(fight.fighters):
                if f.status is Status.KNOCKED_OUT:
                    ko.append(1.0)
                    win.append(0.0)
                elif f.status is not Status.IN:
                    ko.append(0.0)
                    win.append(0.0)
                elif k[j] >= NEVER:
                    ko.append(0.0)
                    win.append(p_def)
                else:
                    before = reached(k[j])
                    ko.append(1.0 - before)
                    win.append(before)
            _add(acc, ph * pk, (p_def, *ko, *win))
            if any(f.status is Status.IN and k[j] >= NEVER for j, f in enumerate(fight.fighters)):
                no_end += ph * pk * (1.0 - p_def)  # a samurai never knocked out, a dragon never defeated
    return _odds(tuple(acc), names, chain.vp, "exact", states=chain.states, p_no_end=no_end)


def _odds(vector: Vector, names: Sequence[str], vp: int, method: str, *, states: int = 0, fights: int = 0,
          p_no_end: float = 0.0) -> Odds:
    n = len(names)
    return Odds(
        p_dragon_defeated=vector[0],
        p_knocked_out={name: vector[1 + k] for k, name in enumerate(names)},
        expected_vp={name: vp * vector[1 + n + k] for k, name in enumerate(names)},
        method=method, states=states, fights=fights, p_no_end=p_no_end,
    )


def monte_carlo(fight: Fight, pack: DataPack, *, fights: int, seed: int = 0,
                dice: Mapping[str, Any] | None = None) -> Odds:
    """Play the fight out ``fights`` times with the combat engine itself (the full rules) and count."""
    if fight.dragon is None:
        raise OddsError("odds are computed for dragon fights")
    names = [f.name for f in fight.fighters]
    rng = random.Random(seed)
    defeated = 0
    ko = dict.fromkeys(names, 0)
    vp = dict.fromkeys(names, 0)
    endless = 0
    for _ in range(fights):
        f = fight
        turns = 0
        while not f.is_over and turns < MAX_TURNS:
            f = roll_for_turn(f, pack, seed=rng.getrandbits(48), dice=dice)
            turns += 1
        endless += not f.is_over  # (counted as a fight that never ends)
        defeated += f.outcome is Outcome.DRAGON_DEFEATED
        for fighter in f.fighters:
            ko[fighter.name] += fighter.status is Status.KNOCKED_OUT
            vp[fighter.name] += fighter.vp
    return Odds(
        p_dragon_defeated=defeated / fights,
        p_knocked_out={k: v / fights for k, v in ko.items()},
        expected_vp={k: v / fights for k, v in vp.items()},
        method="monte_carlo", fights=fights, p_no_end=endless / fights,
    )


#: A fight played out by monte_carlo that has not ended after this many turns is taken as one that never ends
#: (real fights end in a few dozen: every turn a hit is likely on one side or the other).
MAX_TURNS = 10_000


__all__ = ["Odds", "OddsError", "dice_distribution", "exact_odds", "monte_carlo"]
