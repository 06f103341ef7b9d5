"""Exact odds against Monte Carlo: how long each takes, and the ratio.

Fights: the rulebook's combat example 2 (Takeko and Mitsuhide against the green dragon, 12 health,
initiative 9) and four samurai against a red dragon. Prints, per fight, the exact time (median of
repeated runs, each from a cold chain), the time for 100,000 Monte-Carlo fights and their ratio.
Targets: example 2 exact in <= 50 ms; exact >= 100x faster than 100,000 Monte-Carlo fights.

    python benchmarks/odds.py [--fights 100000] [--repeats 15]
"""

from __future__ import annotations

import argparse
import statistics
import time

from games.fujikoro.combat import Combatant, DragonStats, Mode, start_dragon_fight
from games.fujikoro.gear import gear_from_json
from games.fujikoro.odds import exact_odds, monte_carlo
from games.fujikoro.pack import default_pack

PACK = default_pack()


def example_2():  # type: ignore[no-untyped-def]
    takeko = Combatant("Takeko", gear_from_json(
        {"board": "takeko", "helmet": ["MMMM"], "weapon_left": ["WWWMM"], "weapon_right": ["MMM"]}, PACK))
    mitsuhide = Combatant("Mitsuhide", gear_from_json(
        {"board": "mitsuhide", "monks": ["weapon", "action"], "helmet": ["MMW", "MW.", "W.."], "magic": ["helmet"],
         "weapon_left": ["WWWMM"], "weapon_right": ["TMM"]}, PACK),
        heroic_monk="wood", monk_from="action", blueprints={"helmet": ("MW", "W.")})
    dragon = DragonStats.from_figure(PACK.dragons["green_1"], PACK, mode=Mode.COMPETITIVE, players=3)
    return start_dragon_fight(dragon, [takeko, mitsuhide], PACK)


def red_four():  # type: ignore[no-untyped-def]
    boards = [
        {"helmet": ["MMWW", "WW.."], "monks": ["weapon"], "weapon_left": ["WWMMM"], "weapon_right": ["M.."]},
        {"helmet": ["MMM", "T.."], "weapon_left": ["WWMT", "M..."]},
        {"board": "masatsura", "helmet": ["MMMM", "WWWW"], "weapon_left": ["WMWM"]},
        {"board": "tomoe", "helmet": ["WWM"], "weapon_left": ["WWM"], "weapon_right": ["WWT"], "sandals": ["WWM"]},
    ]
    samurai = [Combatant(name, gear_from_json(b, PACK)) for name, b in zip(
        ["Ann", "Bo", "Cy", "Dee"], boards, strict=True)]
    dragon = DragonStats.from_figure(PACK.dragons["red_2"], PACK, mode=Mode.COMPETITIVE, players=4)
    return start_dragon_fight(dragon, samurai, PACK)


def measure(name: str, fight, fights: int, repeats: int) -> None:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        exact = exact_odds(fight, PACK)
        times.append(time.perf_counter() - start)
    exact_s = statistics.median(times)
    start = time.perf_counter()
    simulated = monte_carlo(fight, PACK, fights=fights, seed=1)
    mc_s = time.perf_counter() - start
    print(f"{name}")
    print(f"  exact:        p(defeated) = {exact.p_dragon_defeated:.4f}  median {exact_s * 1000:8.1f} ms"
          f"  (min {min(times) * 1000:.1f} ms, {repeats} runs, {exact.states} chain states)")
    print(f"  monte carlo:  p(defeated) = {simulated.p_dragon_defeated:.4f}  {fights} fights in {mc_s:8.1f} s")
    print(f"  ratio:        {mc_s / exact_s:,.0f}x")
    for who, p in exact.p_knocked_out.items():
        print(f"    {who:10s} knocked out: exact {p:.4f}  simulated {simulated.p_knocked_out[who]:.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fights", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    measure("Combat example 2 (Takeko + Mitsuhide vs green dragon, 12 health)", example_2(), args.fights,
            args.repeats)
    measure("Four samurai vs a red dragon (red_2)", red_four(), args.fights, args.repeats)


if __name__ == "__main__":
    main()
