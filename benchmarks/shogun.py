"""Shogun's battle odds: exact against a Monte Carlo of the same tower model, and the model's fit time.

Battle: 20 attacking cubes against 20 defenders (no revolt token, so the greens help the defender) with a
full tower - cubes of every colour stuck inside and a tray waiting (see FULL_TOWER). Prints the exact time
(median of repeated runs), the time for N Monte-Carlo battles of the same model and their ratio, then the
time of the maximum-likelihood fit on 200 recorded throws (synthetic, made by the model with known p, q).
Target: exact <= 10 ms.

    python benchmarks/shogun.py [--battles 100000] [--repeats 25] [--throws 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from games.shogun.battle import BattleSetup
from games.shogun.odds import TowerModel, exact_odds, fit, monte_carlo
from games.shogun.pack import TowerPrior, default_pack
from games.shogun.tower import Throw

MODEL = TowerModel(2 / 3, 1 / 3)
BATTLE = BattleSetup("attack", attacker="blue", defender="red", moved=20, source_armies=25, target_armies=20)
# A full tower: what a long game leaves stuck inside, and a tray from cubes that fell out by themselves.
FULL_TOWER = {"blue": 14, "red": 14, "yellow": 12, "purple": 12, "black": 12, "green": 10}
TRAY = {"blue": 2, "red": 1, "green": 2, "yellow": 1}


def synthetic_throws(n: int, p: float, q: float, seed: int) -> list[Throw]:
    rng = random.Random(seed)
    throws = []
    for i in range(n):
        thrown = {c: rng.randint(0, 10) for c in ("blue", "red", "yellow", "green")}
        inside = {c: rng.randint(0, 12) for c in thrown}
        out = {c: sum(rng.random() < p for _ in range(thrown[c])) + sum(rng.random() < q for _ in range(inside[c]))
               for c in thrown}
        throws.append(Throw("battle", str(i), thrown, {}, inside, out))
    return throws


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--battles", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=25)
    parser.add_argument("--throws", type=int, default=200)
    args = parser.parse_args()

    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        exact = exact_odds(BATTLE, TRAY, FULL_TOWER, MODEL)
        times.append(time.perf_counter() - start)
    exact_s = statistics.median(times)
    start = time.perf_counter()
    simulated = monte_carlo(BATTLE, TRAY, FULL_TOWER, MODEL, battles=args.battles, seed=1)
    mc_s = time.perf_counter() - start
    print("20 against 20 with a full tower (greens help the defender), p = 2/3, q = 1/3")
    print(f"  exact:        attacker {exact.p_attacker:.4f}  draw {exact.p_draw:.4f}  defender {exact.p_defender:.4f}"
          f"  median {exact_s * 1000:7.3f} ms (min {min(times) * 1000:.3f} ms, {args.repeats} runs; target <= 10 ms)")
    print(f"  monte carlo:  attacker {simulated.p_attacker:.4f}  draw {simulated.p_draw:.4f}  "
          f"defender {simulated.p_defender:.4f}  {args.battles} battles in {mc_s * 1000:8.1f} ms")
    print(f"  ratio:        {mc_s / exact_s:,.0f}x")

    throws = synthetic_throws(args.throws, 0.7, 0.25, seed=7)
    prior = default_pack().tower_prior
    fit_times = []
    for _ in range(5):
        start = time.perf_counter()
        model = fit(throws, TowerPrior(prior.p, prior.q, prior.status, prior.min_throws_to_fit))
        fit_times.append(time.perf_counter() - start)
    print(f"tower-model fit on {args.throws} throws (made with p = 0.70, q = 0.25): p = {model.p:.3f}, "
          f"q = {model.q:.3f}, median {statistics.median(fit_times) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
