"""Knot pruning of ArcLengthCDF.mix: the damped CDF keeps a bounded number of knots and stays
within KNOT_PRUNE_TOL of the exact mixture of its estimates, monotone and exactly invertible.

The truth the tests compare with is computed without ``mix``: the exact mixture is carried
pointwise on a dense grid (``alpha * Phi~(grid) + (1 - alpha) * previous``), a spline's own
values are evaluated before it is pruned, and the inverse is checked against brentq.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

import paretosurf as ps
from paretosurf.curves import _cdf as cdf_module
from paretosurf.curves._cdf import KNOT_PRUNE_TOL, ArcLengthCDF, prune_knots
from paretosurf.problems.quadratic import GearToy
from paretosurf.result import IterationRecord

#: Rounding of the pointwise reference and of the spline evaluation, on values in [0, 1].
ROUNDING = 1e-15


def front(w: np.ndarray, bend: float = 1.7) -> np.ndarray:
    """A bent front whose arc length is traversed unevenly by ``w``."""
    theta = np.pi / 2 * w**bend
    return np.c_[np.cos(theta), np.sin(theta)] * (1 + 0.3 * w[:, None])


def alpha_schedule(name: str) -> Callable[[int], float]:
    """A damping per round: fixed, or varying as ``alpha="auto"`` varies it (full steps first,
    then halved and doubled between its floor and 1)."""
    if name == "auto-like":
        steps = [1.0, 1.0, 0.5, 1.0, 0.5, 0.3, 0.3, 0.15, 0.3, 0.075, 0.05, 0.1, 0.2, 0.3]
        return lambda t: steps[t] if t < len(steps) else steps[3 + t % (len(steps) - 3)]
    return lambda t: float(name)


def surf_like(
    n: int,
    rounds: int,
    alpha: Callable[[int], float],
    *,
    noise: float,
    moving: bool = False,
    seed: int = 0,
    grid: np.ndarray | None = None,
) -> tuple[ArcLengthCDF, list[int], list[float]]:
    """SURF's refinement without a solver: each round's estimate is rebuilt from points at
    ``Phi^{-1}(n / N)`` (with noise of ``noise`` times a mean chord, or on a front that moves),
    and damped in. Returns the CDF, its knot count after each round and, where ``grid`` is
    given, its distance on the grid from the exact mixture after each round, less the bound."""
    rng = np.random.default_rng(seed)
    phi = ArcLengthCDF.identity()
    exact = None if grid is None else grid.copy()  # Phi_0(w) = w, pointwise
    carried = 0.0  # the bound's factor 1 - prod(1 - alpha)
    counts, excess = [], []
    for t in range(rounds):
        w = phi.quantile_weights(n)
        points = front(w, 1.7 + 0.5 * math.sin(t / 7) if moving else 1.7)
        points = points + noise * rng.standard_normal(points.shape) / n
        estimate = ArcLengthCDF.from_front(w, points)
        a = alpha(t)
        phi = phi.mix(estimate, a)
        counts.append(phi.knots.size)
        if grid is not None and exact is not None:
            exact = a * estimate(grid) + (1 - a) * exact
            carried = a + (1 - a) * carried
            distance = float(np.max(np.abs(phi(grid) - exact)))
            excess.append(distance - (KNOT_PRUNE_TOL * carried + ROUNDING))
    return phi, counts, excess


# ------------------------------------------------------------------ one pass of prune_knots
mixtures = st.tuples(
    st.integers(min_value=0, max_value=2**32 - 1),  # seed of the fronts
    st.integers(min_value=2, max_value=30),  # points per front
    st.integers(min_value=1, max_value=6),  # fronts mixed
    st.floats(0.05, 0.9),  # damping
)


def random_mixture(seed: int, n: int, k: int, alpha: float) -> ArcLengthCDF:
    rng = np.random.default_rng(seed)
    phi = ArcLengthCDF.identity()
    for _ in range(k):
        w = np.unique(np.r_[0.0, rng.uniform(0, 1, n - 1), 1.0])
        chords = rng.exponential(size=w.size - 1) ** 2 * (rng.uniform(size=w.size - 1) > 0.2)
        points = np.c_[np.cumsum(np.r_[0.0, chords]), np.zeros(w.size)]
        phi = phi.mix(ArcLengthCDF.from_front(w, points), alpha)
    return phi


@settings(max_examples=80, deadline=None)
@given(mixtures, st.sampled_from([1e-13, 1e-9, 1e-5, 1e-3, 1e-1]))
def test_one_pass_moves_the_spline_by_at_most_tol_and_keeps_it_monotone(spec, tol) -> None:
    phi = random_mixture(*spec)
    x, y, d = phi.knots, phi.values, phi.slopes
    x2, y2, d2 = prune_knots(x, y, d, tol)
    pruned = ArcLengthCDF(x2, y2, d2)  # the public constructor checks the invariants
    # kept knots keep their values and slopes; the ends stay
    kept = np.isin(x, x2)
    assert kept[0] and kept[-1] and kept.sum() == x2.size
    np.testing.assert_array_equal(y[kept], y2)
    np.testing.assert_array_equal(d[kept], d2)
    # no two neighbours go in one pass
    assert not np.any(~kept[1:] & ~kept[:-1])
    # within tol of the spline before pruning: at its knots, between them and at random points
    grid = np.unique(np.r_[x, 0.5 * (x[1:] + x[:-1]), np.linspace(0, 1, 4001)])
    assert np.max(np.abs(pruned(grid) - phi(grid))) <= tol + ROUNDING
    # and still a CDF: non-decreasing with non-negative slope everywhere
    fine = np.unique(np.r_[grid, np.linspace(0, 1, 40001)])
    assert np.all(np.diff(pruned(fine)) >= -ROUNDING)  # points 1e-17 apart round either way
    assert np.all(pruned.derivative(fine) >= -1e-9 * max(1.0, float(d2.max())))


def test_a_spline_that_is_one_cubic_loses_every_interior_knot() -> None:
    # Phi(w) = 3w^2 - 2w^3 sampled at 65 knots: one cubic, so pass after pass halves the knots
    x = np.linspace(0.0, 1.0, 65)
    y, d = 3 * x**2 - 2 * x**3, 6 * x * (1 - x)
    sizes = [x.size]
    while sizes[-1] > 2:
        x, y, d = prune_knots(x, y, d, 1e-15)
        sizes.append(x.size)
    assert sizes == [65, 33, 17, 9, 5, 3, 2]
    assert x.tolist() == [0.0, 1.0] and d.tolist() == [0.0, 0.0]


def test_a_needed_knot_stays() -> None:
    # the PCHIP of a kinked CDF needs its middle knot at any tolerance below the kink's size
    phi = ArcLengthCDF.from_knots([0.0, 0.5, 1.0], [0.0, 0.9, 1.0])
    x, _, _ = prune_knots(phi.knots, phi.values, phi.slopes, 1e-3)
    assert x.tolist() == [0.0, 0.5, 1.0]


def test_a_merge_that_would_not_be_monotone_is_refused() -> None:
    # one cubic on [0, 1] with slope 4 (above 3 times the secant) at 0: exact, but refused
    x = np.array([0.0, 0.5, 1.0])
    c = np.polynomial.Polynomial([0.0, 4.0, -6.0, 3.0])  # 4w - 6w^2 + 3w^3, increasing
    y, d = c(x), c.deriv()(x)
    assert np.all(np.diff(y) > 0) and np.all(d >= 0)
    assert prune_knots(x, y, d, 1e-3)[0].tolist() == [0.0, 0.5, 1.0]


# ------------------------------------------------------------------ the damped CDF, round by round
@pytest.mark.parametrize(
    ("schedule", "noise", "moving"),
    [
        ("0.3", 1.0, False),  # noisy points
        ("0.3", 0.0, True),  # a front that moves round by round
        ("auto-like", 0.3, False),
        ("0.05", 0.0, False),  # the smallest "auto" damping
    ],
)
def test_damped_cdf_stays_within_the_documented_bound_of_the_exact_mixture(
    schedule: str, noise: float, moving: bool
) -> None:
    n, rounds = 40, 200
    grid = np.unique(np.r_[np.linspace(0, 1, 20001), np.linspace(0, 1, n + 1)])
    _, counts, excess = surf_like(
        n, rounds, alpha_schedule(schedule), noise=noise, moving=moving, grid=grid
    )
    assert max(excess) <= 0.0
    # ... while pruning (an unpruned mixture keeps every estimate's interior knots; at
    # alpha = 0.05 an estimate's knots take about 20 times as many rounds to go as at 1)
    unpruned = 2 + (n - 1) * rounds
    assert counts[-1] < 0.75 * unpruned


@pytest.mark.parametrize("schedule", ["0.3", "1.0", "auto-like", "0.1"])
@pytest.mark.parametrize("noise", [0.0, 1.0])
def test_knot_count_stays_bounded(schedule: str, noise: float) -> None:
    n, rounds = 60, 300
    alpha = alpha_schedule(schedule)
    _, counts, _ = surf_like(n, rounds, alpha, noise=noise, moving=noise == 0.0, seed=1)
    # An estimate k rounds old weighs alpha (1 - alpha)^k in the mixture; a knot of it whose
    # removal would move that estimate by at most ~1 (values lie in [0, 1]) goes once
    # (1 - alpha)^k < KNOT_PRUNE_TOL (the budget alpha * KNOT_PRUNE_TOL carries the same alpha),
    # so at most the last K estimates' knots remain, K = log(1 / tol) / -log(1 - alpha_min),
    # plus a few rounds in which runs of droppable knots are halved.
    alpha_min = min(alpha(t) for t in range(rounds))
    k = math.log(1 / KNOT_PRUNE_TOL) / -math.log(1 - alpha_min) if alpha_min < 1 else 0.0
    assert max(counts) <= (n + 1) * (k + 5)
    # ... and the count is flat once settled: the last 100 rounds add nothing to the 100
    # before them (unpruned, each round adds N - 1 knots: 5900 over 100 rounds)
    assert max(counts[200:]) <= max(counts[100:200]) + (n + 1)
    if schedule == "1.0":
        assert set(counts) == {n + 1}


def test_pruned_cdf_is_a_cdf_and_its_inverse_round_trips() -> None:
    n = 50
    phi, counts, _ = surf_like(n, 150, alpha_schedule("0.3"), noise=1.0, seed=3)
    assert counts[-1] < (2 + (n - 1) * 150) / 2  # pruned
    x, y, d = phi.knots, phi.values, phi.slopes
    assert x[0] == 0.0 and x[-1] == 1.0 and y[0] == 0.0 and y[-1] == 1.0
    assert np.all(np.diff(x) > 0) and np.all(np.diff(y) > 0) and np.all(d >= 0)
    assert phi(0.0) == 0.0 and phi(1.0) == 1.0
    fine = np.linspace(0, 1, 200001)
    assert np.all(np.diff(phi(fine)) >= 0)
    weights = phi.quantile_weights(n)
    assert weights[0] == 0.0 and weights[-1] == 1.0 and np.all(np.diff(weights) > 0)
    np.testing.assert_allclose(phi(weights), np.arange(n + 1) / n, atol=1e-14)
    q = np.random.default_rng(4).uniform(0, 1, 40)
    reference = [
        brentq(lambda w, qq=qq: float(phi(w)) - qq, 0, 1, xtol=1e-15, rtol=1e-15) for qq in q
    ]
    np.testing.assert_allclose(phi.inverse(q), reference, atol=1e-12)
    w = np.random.default_rng(5).uniform(0, 1, 1000)
    np.testing.assert_allclose(phi.inverse(phi(w)), w, atol=1e-9)


# ------------------------------------------------------------------ SURF itself
def surf_runs(
    alpha: float | str, n: int, iterations: int, monkeypatch: pytest.MonkeyPatch
) -> tuple[ps.Result, ps.Result]:
    """The same SURF run with pruning and without, every round of it (no early stop)."""
    kw = {"alpha": alpha, "iterations": iterations, "early_stopping": False}
    pruned = ps.surf(GearToy(5).solver(), n, **kw)
    with monkeypatch.context() as patch:
        patch.setattr(cdf_module, "KNOT_PRUNE_TOL", 0.0)
        exact = ps.surf(GearToy(5).solver(), n, **kw)
    return pruned, exact


def cdf_of(record: ps.Result | IterationRecord) -> ArcLengthCDF:
    assert record.cdf is not None
    return record.cdf


@pytest.mark.parametrize("alpha", [0.3, "auto"])
def test_settled_surf_run_keeps_few_knots_and_ends_where_the_exact_run_ends(
    alpha: float | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    n = 50
    pruned, exact = surf_runs(alpha, n, 100, monkeypatch)
    # settled: little more than one estimate's knots, where the exact mixture keeps dozens
    assert cdf_of(pruned).knots.size <= 2 * (n + 1)
    assert cdf_of(exact).knots.size > 20 * (n + 1)
    np.testing.assert_allclose(pruned.weights, exact.weights, atol=1e-11)
    np.testing.assert_allclose(pruned.points, exact.points, atol=1e-11)
    grid = np.linspace(0, 1, 20001)
    np.testing.assert_allclose(cdf_of(pruned)(grid), cdf_of(exact)(grid), atol=1e-11)


def test_resumed_run_equals_the_uninterrupted_one_bit_for_bit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    n, total, cut = 10, 50, 30
    solver = GearToy(5).solver()
    fixed = {"alpha": 0.3, "early_stopping": False}  # every round, resumed mid-way
    full = ps.surf(solver, n, iterations=total, **fixed)
    ps.surf(solver, n, iterations=cut, checkpoint=tmp_path / "run", checkpoint_period=0, **fixed)
    resumed = ps.surf(
        solver, n, iterations=total, checkpoint=tmp_path / "run", resume=True, **fixed
    )
    assert resumed.cdf == full.cdf
    np.testing.assert_array_equal(resumed.weights, full.weights)
    for a, b in zip(resumed.history, full.history, strict=True):
        assert a.cdf == b.cdf
    # pruning was at work on both sides of the interruption
    _, exact = surf_runs(0.3, n, total, monkeypatch)
    for t in (cut - 1, total - 1):
        assert cdf_of(full.history[t]).knots.size < cdf_of(exact.history[t]).knots.size
