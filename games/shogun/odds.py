"""Battle odds before the throw, from a tower model the group fits from its own throws (spec 12.3).

The model (its parameters are assumptions, not rules): every cube thrown in falls through with probability
``p``; every cube already stuck inside is knocked out with probability ``q``; all independently. A colour's
count in the tray is then ``Binomial(thrown, p) + Binomial(inside, q)``; the exact win/draw/loss
probabilities follow from the counting rule of :func:`games.shogun.battle.judge` with a few cumulative
sums. :func:`monte_carlo` simulates the same model and applies ``judge`` itself (the check on the exact
formulas). :func:`fit` finds ``p`` and ``q`` by maximum likelihood (EM on the hidden split of each colour's
count into fell-through and knocked-out cubes); :func:`track_record` sets the odds the app showed before
each throw against what happened.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from games.shogun.battle import ATTACKER, DEFENDER, DRAW, BattleSetup, judge
from games.shogun.pack import GREEN, TowerPrior
from games.shogun.tower import Counts, Throw, add

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class TowerModel:
    p: float
    q: float
    status: str = "assumed"
    fitted_from_n_throws: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"p": round(self.p, 4), "q": round(self.q, 4), "status": self.status,
                "fitted_from_n_throws": self.fitted_from_n_throws}


@dataclass(frozen=True, slots=True)
class Odds:
    p_attacker: float
    p_draw: float
    p_defender: float
    model: TowerModel

    def to_json(self) -> dict[str, Any]:
        return {"p_attacker": self.p_attacker, "p_draw": self.p_draw, "p_defender": self.p_defender,
                "model": self.model.to_json()}

    def of(self, winner: str) -> float:
        return {ATTACKER: self.p_attacker, DRAW: self.p_draw, DEFENDER: self.p_defender}[winner]


def _binomial(n: int, p: float) -> FloatArray:
    k = np.arange(n + 1)
    if p <= 0.0 or p >= 1.0:
        pmf = np.zeros(n + 1)
        pmf[0 if p <= 0.0 else n] = 1.0
        return pmf
    log_c = np.array([math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in range(n + 1)])
    return np.asarray(np.exp(log_c + k * math.log(p) + (n - k) * math.log1p(-p)), dtype=np.float64)


def count_pmf(thrown: int, inside: int, model: TowerModel) -> FloatArray:
    """P(k cubes of one colour in the tray) = Binomial(thrown, p) * Binomial(inside, q)."""
    return np.asarray(np.convolve(_binomial(thrown, model.p), _binomial(inside, model.q)), dtype=np.float64)


def _gt(x: FloatArray, y: FloatArray) -> float:
    """P(X > Y) for independent X, Y with pmfs x, y."""
    cdf_y = np.cumsum(y)
    # P(X = k) * P(Y <= k - 1)
    below = np.concatenate(([0.0], cdf_y))[: len(x)]
    if len(x) > len(below):
        below = np.concatenate((below, np.full(len(x) - len(below), 1.0)))
    return float(np.dot(x, below))


def _sides(setup: BattleSetup, tray: Counts, inside: Counts, model: TowerModel) -> tuple[FloatArray, FloatArray,
                                                                                        FloatArray]:
    thrown = add(setup.added(), tray)

    def pmf(colour: str | None) -> FloatArray:
        if colour is None:
            return np.array([1.0])
        return count_pmf(thrown.get(colour, 0), inside.get(colour, 0), model)

    attacker = setup.attacker if setup.kind != "revolt" else None
    defender = setup.defender if setup.kind != "neutral" else None
    return pmf(attacker), pmf(defender), pmf(GREEN)


def exact_odds(setup: BattleSetup, tray: Counts, inside: Counts, model: TowerModel) -> Odds:
    """Exact probabilities of attacker win / draw / defender win before the throw (in a revolt the
    attacker is the peasants)."""
    a, d, g = _sides(setup, tray, inside, model)
    if setup.kind == "revolt":
        owner_wins = _gt(d, g)
        peasants = _gt(g, d) - d[0] * (1.0 - g[0])  # the owner with no cube out: a draw (spec 6.4)
        return _odds(peasants, owner_wins, model)
    if setup.kind == "neutral":
        attacker = _gt(a, g)
        peasants = _gt(g, a) - a[0] * (1.0 - g[0])
        return _odds(attacker, peasants, model)
    if not setup.greens_take_part:
        g = np.array([1.0])
    total = np.asarray(np.convolve(d, g), dtype=np.float64)
    attacker = _gt(a, total)
    if setup.a4_losses == "greens_first":
        # wins on count but keeps no own cube only when none of its own came out: P(D_own = 0, G > A)
        defender = _gt(total, a) - d[0] * _gt(g, a)
    else:
        defender = _gt(d, a)
    return _odds(attacker, defender, model)


def _odds(attacker: float, defender: float, model: TowerModel) -> Odds:
    attacker, defender = max(0.0, float(attacker)), max(0.0, float(defender))
    return Odds(attacker, max(0.0, 1.0 - attacker - defender), defender, model)


def monte_carlo(setup: BattleSetup, tray: Counts, inside: Counts, model: TowerModel, *, battles: int = 100_000,
                seed: int = 0) -> Odds:
    """The same model simulated: sample every colour's count, count with :func:`judge`."""
    rng = np.random.default_rng(seed)
    thrown = add(setup.added(), tray)

    def sample(colour: str | None) -> npt.NDArray[np.int64]:
        if colour is None:
            return np.zeros(battles, dtype=np.int64)
        return np.asarray(rng.binomial(thrown.get(colour, 0), model.p, battles)
                          + rng.binomial(inside.get(colour, 0), model.q, battles), dtype=np.int64)

    attacker = sample(setup.attacker if setup.kind != "revolt" else None)
    defender = sample(setup.defender if setup.kind != "neutral" else None)
    greens = sample(GREEN)
    # judge() on every distinct outcome once, then count (the same rule as a real battle)
    keys, counts = np.unique(np.stack([attacker, defender, greens]), axis=1, return_counts=True)
    wins = {ATTACKER: 0, DRAW: 0, DEFENDER: 0}
    for (a, d, g), n in zip(keys.T.tolist(), counts.tolist(), strict=True):
        attacking = g if setup.kind == "revolt" else a
        wins[judge(setup.kind, attacking, d, g, greens_count=setup.greens_take_part,
                   a4_losses=setup.a4_losses)] += n
    return Odds(wins[ATTACKER] / battles, wins[DRAW] / battles, wins[DEFENDER] / battles, model)


# ---- fitting ---------------------------------------------------------------------------------


def observations(throws: Iterable[Throw]) -> list[tuple[int, int, int]]:
    return [obs for throw in throws for obs in throw.observations()]


def fit(throws: Sequence[Throw], prior: TowerPrior, *, iterations: int = 500, tolerance: float = 1e-9) -> TowerModel:
    """Maximum-likelihood ``p`` and ``q`` from recorded throws (EM). Below ``prior.min_throws_to_fit`` usable
    throws, or when no cube was ever inside, the prior's value is kept for what the record cannot tell."""
    usable = [t for t in throws if t.kind != "fell_out"]
    if len(usable) < prior.min_throws_to_fit:
        return TowerModel(prior.p, prior.q, prior.status, 0)
    obs = np.array([o for o in observations(usable) if o[0] + o[1] > 0], dtype=np.int64).reshape(-1, 3)
    t, i, o = obs[:, 0], obs[:, 1], obs[:, 2]
    total_t, total_i = int(t.sum()), int(i.sum())
    width = int(min(t.max(initial=0), o.max(initial=0))) + 1
    x = np.arange(width)[None, :]
    valid = (x >= np.maximum(0, o - i)[:, None]) & (x <= np.minimum(t, o)[:, None])
    xs = np.where(valid, x, 0)
    ys = np.where(valid, o[:, None] - x, 0)
    lg = np.vectorize(math.lgamma)
    log_comb = (lg(t[:, None] + 1) - lg(xs + 1) - lg(t[:, None] - xs + 1)
                + lg(i[:, None] + 1) - lg(ys + 1) - lg(i[:, None] - ys + 1))
    p = min(max(prior.p, 1e-3), 1 - 1e-3)
    q = min(max(prior.q, 1e-3), 1 - 1e-3)
    for _ in range(iterations):
        log_w = (log_comb + xs * math.log(p) + (t[:, None] - xs) * math.log1p(-p)
                 + ys * math.log(q) + (i[:, None] - ys) * math.log1p(-q))
        log_w = np.where(valid, log_w, -np.inf)
        log_w -= log_w.max(axis=1, keepdims=True)
        w = np.exp(log_w)
        w /= w.sum(axis=1, keepdims=True)
        fell = float((w * xs).sum())
        knocked = float((w * ys).sum())
        new_p = min(max(fell / total_t, 1e-6), 1 - 1e-6) if total_t else p
        new_q = min(max(knocked / total_i, 1e-6), 1 - 1e-6) if total_i else q
        done = abs(new_p - p) < tolerance and abs(new_q - q) < tolerance
        p, q = new_p, new_q
        if done:
            break
    return TowerModel(p, q if total_i else prior.q, "assumed (fitted)", len(usable))


def log_likelihood(throws: Sequence[Throw], model: TowerModel) -> float:
    total = 0.0
    for t, i, o in observations(throws):
        pmf = count_pmf(t, i, model)
        total += math.log(max(float(pmf[o]), 1e-300)) if o < len(pmf) else -690.0
    return total


@dataclass(frozen=True, slots=True)
class TrackRecord:
    battles: int
    mean_p_of_observed: float | None
    brier: float | None
    cubes_expected: float
    cubes_observed: int
    lines: tuple[dict[str, Any], ...]

    def to_json(self) -> dict[str, Any]:
        return {"battles": self.battles, "mean_p_of_observed": self.mean_p_of_observed, "brier": self.brier,
                "cubes_out_expected": round(self.cubes_expected, 2), "cubes_out_observed": self.cubes_observed,
                "lines": list(self.lines)}


def track_record(throws: Sequence[Throw], model: TowerModel) -> TrackRecord:
    """Predicted vs observed: for each battle, the probability the app gave (before the throw) to what
    happened; for every throw, cubes out expected by ``model`` vs counted."""
    lines: list[dict[str, Any]] = []
    p_obs: list[float] = []
    brier: list[float] = []
    expected = 0.0
    observed = 0
    for throw in throws:
        for t, i, o in throw.observations():
            expected += t * model.p + i * model.q
            observed += o
        if throw.prediction is not None and throw.outcome is not None:
            pred = throw.prediction
            p = float(pred.get(f"p_{throw.outcome}", 0.0))
            p_obs.append(p)
            brier.append(sum((float(pred.get(f"p_{w}", 0.0)) - (1.0 if w == throw.outcome else 0.0)) ** 2
                             for w in (ATTACKER, DRAW, DEFENDER)))
            lines.append({"battle": throw.label, "predicted": dict(pred), "observed": throw.outcome})
    return TrackRecord(len(p_obs), sum(p_obs) / len(p_obs) if p_obs else None,
                       sum(brier) / len(brier) if brier else None, expected, observed, tuple(lines))
