"""UMOD baseline: max-min spacing through a surrogate, budget, determinism, projection, errors."""

from __future__ import annotations

import importlib.util
import itertools
import math

import numpy as np
import pytest
from scipy.optimize import brentq, minimize

import paretosurf as ps
from paretosurf.methods._umod import (
    _softmin_and_gradient,
    angles_to_weights,
    max_min_ascent,
    project_angles,
    umod,
    weights_to_angles,
)
from paretosurf.testing import gear_curve as curve
from support import gear_x

HALF_PI = math.pi / 2
HAS_TORCH = importlib.util.find_spec("torch") is not None


class GearSolver:
    """Exact gear-toy LS solver recording every call; states say (iteration, slot)."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, object]] = []

    def solve(self, w: float, state: object) -> ps.Solution:
        self.calls.append((w, state))
        n_prev = 0 if state is None else state[1] + 1  # type: ignore[index]
        return ps.Solution(curve(gear_x(w)), state=(w, n_prev), info={"steps": 3})


def min_pairwise(points: np.ndarray) -> float:
    d = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    return float(d[np.triu_indices(len(points), 1)].min())


def best_min_distance(n_segments: int) -> float:
    """Largest achievable min distance of N+1 points on the curve with both ends included.

    Chord length from a point grows monotonically along this curve (it turns by 90 degrees
    only), so the max-min design has N equal chords; find that chord by bisection on the end
    position of N greedy chord steps from x = 0.
    """

    def gap(y: float, start: np.ndarray, d: float) -> float:
        return float(np.linalg.norm(curve(y) - start)) - d

    def end_after(d: float) -> float:
        x = 0.0
        for _ in range(n_segments):
            start = curve(x)
            if gap(1.0, start, d) < 0:
                return 2.0  # ran off the end: d is too large
            x = brentq(gap, x, 1.0, args=(start, d), xtol=1e-15)
        return x

    return brentq(lambda d: end_after(d) - 1.0, 1e-6, math.sqrt(2), xtol=1e-14)


# ------------------------------------------------------------------------------ the map
def test_angle_weight_map_closed_form() -> None:
    theta = np.linspace(0.0, HALF_PI, 13)
    w = angles_to_weights(theta)
    assert w[0] == 0.0 and w[-1] == 1.0 and np.all(np.diff(w) > 0)
    # w / (1 - w) = tan(theta) and symmetry w(pi/2 - theta) = 1 - w(theta)
    assert np.allclose(w[1:-1] / (1 - w[1:-1]), np.tan(theta[1:-1]), rtol=1e-12)
    assert np.allclose(w + w[::-1], 1.0, atol=1e-15)
    assert np.allclose(weights_to_angles(w), theta, atol=1e-15)
    with pytest.raises(ValueError, match="theta"):
        angles_to_weights([-0.1])
    with pytest.raises(ValueError, match="weights"):
        weights_to_angles([1.5])


# ------------------------------------------------------------------------------ projection
@pytest.mark.parametrize("seed", range(5))
def test_projection_matches_constrained_least_squares(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, gap = 6, 0.05
    theta = np.concatenate([[0.0], rng.uniform(-0.3, 1.9, n - 1), [HALF_PI]])
    got = project_angles(theta, gap)

    # Independent: SLSQP on min ||t - theta||^2 over the interior, t_{i+1} - t_i >= gap.
    def full(z: np.ndarray) -> np.ndarray:
        return np.concatenate([[0.0], z, [HALF_PI]])

    res = minimize(
        lambda z: float(np.sum((z - theta[1:-1]) ** 2)),
        np.linspace(0.2, 1.3, n - 1),
        method="SLSQP",
        constraints=[{"type": "ineq", "fun": lambda z: np.diff(full(z)) - gap}],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    assert res.success
    assert got[0] == 0.0 and got[-1] == HALF_PI
    assert np.all(np.diff(got) >= gap - 1e-12)
    assert np.allclose(got, full(res.x), atol=1e-6)


def test_projection_keeps_feasible_angles() -> None:
    theta = np.array([0.0, 0.2, 0.9, 1.0, HALF_PI])
    assert np.array_equal(project_angles(theta, 0.05), theta)
    with pytest.raises(ValueError, match="min_gap"):
        project_angles(theta, HALF_PI / 4)  # N * gap must stay below pi / 2


# ------------------------------------------------------------------------------ soft-min
def test_softmin_gradient_matches_finite_differences() -> None:
    theta = np.array([0.0, 0.3, 0.5, 1.1, HALF_PI])

    def pred(t: np.ndarray) -> np.ndarray:
        return curve(gear_x(angles_to_weights(t)))

    def value(t: np.ndarray) -> float:
        return _softmin_and_gradient(pred(t), np.zeros((t.size, 2)), 0.05)[0]

    h = 1e-6
    lo, hi = np.clip(theta - h, 0, HALF_PI), np.clip(theta + h, 0, HALF_PI)
    jac = (pred(hi) - pred(lo)) / (hi - lo)[:, None]  # each point depends on its angle
    _, grad = _softmin_and_gradient(pred(theta), jac, 0.05)
    for i in range(1, 4):
        e = np.zeros_like(theta)
        e[i] = h
        fd = (value(theta + e) - value(theta - e)) / (2 * h)
        assert grad[i] == pytest.approx(fd, rel=1e-5, abs=1e-8)
    # The soft minimum is below the hard minimum and within tau * log(#pairs) of it.
    v = value(theta)
    hard = min_pairwise(pred(theta))
    assert hard - 0.05 * math.log(10) - 1e-12 <= v <= hard


def test_max_min_ascent_on_known_curve_reaches_equal_chords() -> None:
    # Exact model of the gear toy: the ascent alone should reach the max-min design.
    def pred(t: np.ndarray) -> np.ndarray:
        return curve(gear_x(angles_to_weights(t)))

    def jac(t: np.ndarray) -> np.ndarray:
        h = 1e-7
        lo, hi = np.clip(t - h, 0, HALF_PI), np.clip(t + h, 0, HALF_PI)
        return (pred(hi) - pred(lo)) / (hi - lo)[:, None]

    n = 6
    t = max_min_ascent(np.linspace(0, HALF_PI, n + 1), pred, jac, lr=0.05, steps=1500, min_gap=1e-3)
    assert min_pairwise(pred(t)) == pytest.approx(best_min_distance(n), rel=2e-3)


# ------------------------------------------------------------------------------ the run
def test_umod_spreads_gear_toy_points() -> None:
    n, iters = 10, 15
    solver = GearSolver()
    res = umod(solver, n, iterations=iters)
    first, last = min_pairwise(res.history[0].points), min_pairwise(res.points)
    best = best_min_distance(n)
    assert last > 1.5 * first  # clearly better than the initial design
    assert 0.97 * best <= last <= best * (1 + 1e-9)  # near, and never above, the max-min value
    assert res.history[-1].cv < 0.5 * res.history[0].cv
    # Better spread than evenly spaced weights with the same budget.
    uni = ps.methods.uniform(GearSolver(), n, iterations=1)
    assert min_pairwise(res.points) > 1.5 * min_pairwise(uni.points)


def test_weights_endpoints_points_and_budget() -> None:
    n, iters = 6, 5
    solver = GearSolver()
    init = [("init", -1)] * (n + 1)
    res = umod(solver, n, iterations=iters, init_states=init)
    assert len(res.history) == iters and len(solver.calls) == iters * (n + 1)
    assert res.n_solves == iters * (n + 1) and res.n_steps == 3 * iters * (n + 1)
    assert [r.n_solves for r in res.history] == [(t + 1) * (n + 1) for t in range(iters)]
    for t, rec in enumerate(res.history):
        calls = solver.calls[t * (n + 1) : (t + 1) * (n + 1)]
        w = np.array([c[0] for c in calls])
        assert np.array_equal(rec.weights, w)  # weights are the ones solved
        assert w[0] == 0.0 and w[-1] == 1.0 and np.all(np.diff(w) > 0)
        assert np.allclose(rec.points, curve(gear_x(w)), atol=1e-15)
        # warm starts: slot states chain from init_states, iteration by iteration
        expected = init if t == 0 else [(wp, t - 1) for wp in res.history[t - 1].weights]
        assert [c[1] for c in calls] == expected
    # iteration 0 solves at the evenly spaced angles
    assert np.allclose(res.history[0].weights, angles_to_weights(np.linspace(0, HALF_PI, n + 1)))
    assert np.array_equal(res.weights, res.history[-1].weights)
    # weight_change reports the move to the next round's weights; UMOD makes no CDF
    assert res.cdf is None
    for before, after in itertools.pairwise(res.history):
        assert before.weight_change == float(np.max(np.abs(after.weights - before.weights)))


def test_same_seed_same_result_and_zero_iterations() -> None:
    a = umod(GearSolver(), 5, iterations=4, seed=1)
    b = umod(GearSolver(), 5, iterations=4, seed=1)
    for ra, rb in zip(a.history, b.history, strict=True):
        assert np.array_equal(ra.weights, rb.weights) and np.array_equal(ra.points, rb.points)
    with pytest.raises(ValueError, match="iterations must be at least 1"):
        umod(GearSolver(), 5, iterations=0)


def test_one_segment_and_callback_stop(tmp_path) -> None:
    res = umod(GearSolver(), 1, iterations=3)
    assert all(r.weights.tolist() == [0.0, 1.0] for r in res.history)
    seen: list[int] = []

    def stop_after_two(record: ps.IterationRecord) -> bool:
        seen.append(record.iteration)
        return record.iteration == 2

    res = umod(GearSolver(), 4, iterations=10, callback=stop_after_two)
    assert seen == [0, 1, 2] and res.n_solves == 15
    res.save(tmp_path / "umod")
    back = ps.Result.load(tmp_path / "umod")
    assert np.array_equal(back.weights, res.weights) and back.n_solves == 15


def test_tchebycheff_solver_path() -> None:
    prefs: list[np.ndarray] = []

    def mtche(pref: np.ndarray, state: object) -> ps.Solution:
        # argmin_x max((1-x)^2 / l1, x^2 / l2) with ideal point 0: (1-x)/x = sqrt(l1/l2)
        prefs.append(pref)
        l1, l2 = pref
        x = math.sqrt(l2) / (math.sqrt(l1) + math.sqrt(l2))
        return ps.Solution(curve(x), state=x)

    n = 8
    res = umod(None, n, iterations=20, tchebycheff_solver=mtche)
    assert np.allclose(prefs[0], [1.0, 0.0]) and np.allclose(prefs[n], [0.0, 1.0])
    assert all(p.min() >= 0 and p.sum() == pytest.approx(1.0) for p in prefs)
    assert np.allclose(res.points[0], [1.0, 0.0]) and np.allclose(res.points[-1], [0.0, 1.0])
    assert min_pairwise(res.points) >= 0.97 * best_min_distance(n)
    with pytest.raises(ValueError, match="tchebycheff_solver"):
        umod(GearSolver(), 4, tchebycheff_solver=mtche)


@pytest.mark.skipif(not HAS_TORCH, reason="torch not installed")
def test_mlp_surrogate_runs_and_is_seeded() -> None:
    a = umod(GearSolver(), 4, iterations=3, surrogate="mlp", surrogate_steps=200, seed=0)
    b = umod(GearSolver(), 4, iterations=3, surrogate="mlp", surrogate_steps=200, seed=0)
    assert np.array_equal(a.weights, b.weights)
    assert a.weights[0] == 0.0 and a.weights[-1] == 1.0 and np.all(np.diff(a.weights) > 0)
    assert min_pairwise(a.points) > 1.3 * min_pairwise(a.history[0].points)


# ------------------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    ("kwargs", "exc", "name"),
    [
        ({"n_segments": 0}, ValueError, "n_segments"),
        ({"n_segments": 2.5}, TypeError, "n_segments"),
        ({"n_segments": True}, TypeError, "n_segments"),
        ({"iterations": -1}, ValueError, "iterations"),
        ({"iterations": 2.0}, TypeError, "iterations"),
        ({"lr": 0.0}, ValueError, "lr"),
        ({"lr": -1.0}, ValueError, "lr"),
        ({"lr": math.nan}, ValueError, "lr"),
        ({"lr": "big"}, TypeError, "lr"),
        ({"min_gap": 0.0}, ValueError, "min_gap"),
        ({"min_gap": -0.01}, ValueError, "min_gap"),
        ({"min_gap": HALF_PI / 4}, ValueError, "min_gap"),  # N = 4: needs < pi / 8
        ({"min_gap": math.inf}, ValueError, "min_gap"),
        ({"min_gap": "small"}, TypeError, "min_gap"),
        ({"surrogate": "gp"}, ValueError, "surrogate"),
        ({"surrogate_steps": -1}, ValueError, "surrogate_steps"),
        ({"temperature": 0.0}, ValueError, "temperature"),
        ({"init_states": [None] * 3}, ValueError, "init_states"),
        ({"callback": 3}, TypeError, "callback"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs: dict, exc: type, name: str) -> None:
    args = {"n_segments": 4, **kwargs}
    n = args.pop("n_segments")
    with pytest.raises(exc, match=name):
        umod(GearSolver(), n, **args)


def test_bad_solver() -> None:
    with pytest.raises(TypeError, match="solver"):
        umod(42, 4)
    with pytest.raises(TypeError, match="tchebycheff_solver"):
        umod(None, 4, tchebycheff_solver=42)
