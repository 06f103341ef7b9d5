"""Battle odds from the tower model (spec 12.3): exact, Monte Carlo, brute force, the fit and the track record."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from games.shogun.battle import ATTACKER, DEFENDER, DRAW, BattleSetup, judge
from games.shogun.odds import TowerModel, exact_odds, fit, log_likelihood, monte_carlo, track_record
from games.shogun.pack import TowerPrior
from games.shogun.tower import Throw

MODEL = TowerModel(2 / 3, 1 / 3)


def test_the_specs_illustration() -> None:
    """Spec 12.3: p = 2/3, q = 1/3, empty tower, no greens: 4 attackers vs 3 defenders -> attacker 55.6 %,
    draw 27.1 %, defender 17.3 %."""
    setup = BattleSetup("attack", attacker="blue", defender="red", moved=4, target_armies=3, revolt_tokens=1)
    odds = exact_odds(setup, {}, {}, MODEL)
    assert (round(odds.p_attacker, 3), round(odds.p_draw, 3), round(odds.p_defender, 3)) == (0.556, 0.271, 0.173)


def _binomial(n: int, p: float, k: int) -> float:
    return math.comb(n, k) * p**k * (1 - p) ** (n - k)


def _brute_force(setup: BattleSetup, tray: dict[str, int], inside: dict[str, int],
                 model: TowerModel) -> dict[str, float]:
    """Every way the cubes can fall, each counted by judge() - the independent check on the formulas."""
    thrown = dict(setup.added())
    for c, n in tray.items():
        thrown[c] = thrown.get(c, 0) + n
    colours = [setup.attacker or "", setup.defender or "", "green"]
    ranges = [[(x, y) for x in range(thrown.get(c, 0) + 1) for y in range(inside.get(c, 0) + 1)] if c else [(0, 0)]
              for c in colours]
    totals = {ATTACKER: 0.0, DRAW: 0.0, DEFENDER: 0.0}
    for combo in itertools.product(*ranges):
        p = 1.0
        for c, (x, y) in zip(colours, combo, strict=True):
            if c:
                p *= _binomial(thrown.get(c, 0), model.p, x) * _binomial(inside.get(c, 0), model.q, y)
        a, d, g = (x + y for x, y in combo)
        attacking = g if setup.kind == "revolt" else a
        totals[judge(setup.kind, attacking, d, g, greens_count=setup.greens_take_part, a4_losses=setup.a4_losses)] += p
    return totals


SETUPS = [
    (BattleSetup("attack", attacker="blue", defender="red", moved=3, target_armies=2), {"green": 1}, {"green": 2}),
    (BattleSetup("attack", attacker="blue", defender="red", moved=2, target_armies=2, a4_losses="own_first"),
     {}, {"green": 2, "red": 1}),
    (BattleSetup("attack", attacker="blue", defender="red", moved=3, target_armies=1, revolt_tokens=2),
     {"green": 1}, {"blue": 1}),
    (BattleSetup("neutral", attacker="blue", defender=None, moved=2), {}, {"green": 2, "blue": 1}),
    (BattleSetup("revolt", defender="red", target_armies=3, revolt_tokens=1, winter_extra_peasants=2), {"red": 1},
     {"green": 1}),
]


@pytest.mark.parametrize("setup, tray, inside", SETUPS)
def test_exact_odds_equal_brute_force_enumeration(setup: BattleSetup, tray: dict[str, int],
                                                   inside: dict[str, int]) -> None:
    """Spec 12.3 (the model) with the counting rules of 6.4 and A4: the cumulative-sum formulas agree with
    enumerating every outcome."""
    exact = exact_odds(setup, tray, inside, MODEL)
    brute = _brute_force(setup, tray, inside, MODEL)
    assert exact.p_attacker == pytest.approx(brute[ATTACKER], abs=1e-12)
    assert exact.p_draw == pytest.approx(brute[DRAW], abs=1e-12)
    assert exact.p_defender == pytest.approx(brute[DEFENDER], abs=1e-12)


@pytest.mark.parametrize("setup, tray, inside", SETUPS)
def test_monte_carlo_of_the_same_model_agrees(setup: BattleSetup, tray: dict[str, int],
                                               inside: dict[str, int]) -> None:
    exact = exact_odds(setup, tray, inside, MODEL)
    simulated = monte_carlo(setup, tray, inside, MODEL, battles=60_000, seed=3)
    for winner in (ATTACKER, DRAW, DEFENDER):
        assert simulated.of(winner) == pytest.approx(exact.of(winner), abs=0.01)


def _synthetic_throws(p: float, q: float, n: int, seed: int) -> list[Throw]:
    rng = random.Random(seed)
    throws = []
    for i in range(n):
        thrown = {"blue": rng.randint(0, 8), "red": rng.randint(0, 8), "green": rng.randint(0, 3)}
        inside = {c: rng.randint(0, 6) for c in thrown}
        out = {c: sum(rng.random() < p for _ in range(thrown[c])) + sum(rng.random() < q for _ in range(inside[c]))
               for c in thrown}
        throws.append(Throw("battle", str(i), thrown, {}, inside, out))
    return throws


def test_the_fit_recovers_the_parameters_that_made_the_throws() -> None:
    """Spec 12.3: p and q fitted by maximum likelihood from the group's own throws."""
    prior = TowerPrior(0.5, 0.5, "assumed", 5)
    throws = _synthetic_throws(0.7, 0.25, 300, seed=11)
    model = fit(throws, prior)
    assert model.fitted_from_n_throws == 300 and model.status.startswith("assumed")
    assert model.p == pytest.approx(0.7, abs=0.03) and model.q == pytest.approx(0.25, abs=0.04)
    # it is a maximum: nudging either parameter lowers the likelihood
    best = log_likelihood(throws, model)
    for dp, dq in ((0.02, 0), (-0.02, 0), (0, 0.02), (0, -0.02)):
        assert log_likelihood(throws, TowerModel(model.p + dp, model.q + dq)) < best


def test_too_few_throws_keep_the_assumed_values() -> None:
    prior = TowerPrior(0.6667, 0.3333, "assumed", 5)
    model = fit(_synthetic_throws(0.9, 0.9, 4, seed=1), prior)
    assert (model.p, model.q, model.fitted_from_n_throws) == (0.6667, 0.3333, 0)


def test_the_track_record_sets_predictions_against_outcomes() -> None:
    """Spec 12.3: the model's own track record (predicted vs observed) beside any odds."""
    throws = [Throw("battle", "Kozuke", {"blue": 4, "yellow": 3}, {}, {}, {"blue": 3, "yellow": 1},
                    {"p_attacker": 0.5, "p_draw": 0.3, "p_defender": 0.2}, ATTACKER),
              Throw("battle", "Mikawa", {"red": 4, "green": 2}, {}, {}, {"red": 1, "green": 2},
                    {"p_attacker": 0.25, "p_draw": 0.25, "p_defender": 0.5}, DEFENDER)]
    record = track_record(throws, MODEL)
    assert record.battles == 2
    assert record.mean_p_of_observed == pytest.approx((0.5 + 0.5) / 2)
    assert record.cubes_observed == 7
    assert record.cubes_expected == pytest.approx(13 * 2 / 3)
    assert record.brier == pytest.approx(((0.5**2 + 0.3**2 + 0.2**2) + (0.25**2 + 0.25**2 + 0.5**2)) / 2)
