"""Every finding code of the registry (``paretosurf.findings.TITLES``) fires on a case built
to provoke it, and stays quiet on the case's healthy twin.

Each case is one function of ``provoked``: ``True`` runs a small problem (``ps.surf``,
``ps.surf_simplex`` or a baseline) with the property that causes the finding, ``False`` the
same run without that property and nothing else changed (a constant objective
against a varying one, a weak end point against a proper one, a given ideal point above the
front against one below it, ...). So the finding is shown to come from that property: it is
there with it and gone without it. Where the construction makes the cause checkable
independently of the library (a point dominated by another, weights within 1e-9, objectives
below the given ideal point), the case asserts that too, from the points and closed forms,
not from the finding's text.

:data:`CASES` is keyed by code; a code added to the registry without a case here fails
:func:`test_every_registry_code_has_a_provoking_case`. The solvers are exact or cheap (closed
forms, argmins over a grid, a few numpy gradient steps), so that the whole file runs in
seconds.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.findings import TITLES

FloatArray = np.ndarray


def quiet(method: Callable[..., ps.Result], *args: Any, **kwargs: Any) -> ps.Result:
    """``method(*args, **kwargs)`` with the result's findings not warned (the cases read
    them from the result)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        return method(*args, **kwargs)


def codes(res: ps.Result) -> list[str]:
    return [f.code for f in res.findings]


def convex_point(x: float | FloatArray) -> FloatArray:
    """The strictly convex front ((1 - x)^2, x^2); the weighted sum
    w (1 - x)^2 + (1 - w) x^2 is minimized at x = w."""
    return np.array([(1 - x) ** 2, x**2], dtype=float)


def convex(w: float, state: object) -> ps.Solution:
    """The exact solver of :func:`convex_point` (ignores its warm start)."""
    return ps.Solution(convex_point(w), w)


def dominates(a: FloatArray, b: FloatArray) -> bool:
    return bool(np.all(a <= b) and np.any(a < b))


def endpoint_ratio(points: FloatArray) -> float:
    """The largest chord over the smallest between consecutive points, in coordinates
    divided by the end points' ranges (computed here from the points)."""
    ends = points[[0, -1]]
    lo, span = ends.min(axis=0), np.ptp(ends, axis=0)
    x = (points - lo) / np.where(span > 0, span, 1.0)
    chords = np.linalg.norm(np.diff(x, axis=0), axis=1)
    return float(chords.max() / chords.min())


#: The decision grid of the curves solved by search: the argmin over it is exact there.
GRID = np.linspace(0.0, 1.0, 20001)


def grid_solver(f1: FloatArray, f2: FloatArray) -> Callable[[float, object], ps.Solution]:
    """The exact weighted-sum solver of the curve (f1, f2) over :data:`GRID`."""

    def solve(w: float, state: object) -> ps.Solution:
        i = int(np.argmin(w * f1 + (1 - w) * f2))
        return ps.Solution([f1[i], f2[i]], i)

    return solve


# ------------------------------------------------------------------ the objectives' ranges
def constant(provoked: bool) -> ps.Result:
    """Objective 2 returned as the constant 0.5 (no trade-off) against x^2."""

    def solver(w: float, state: object) -> ps.Solution:
        x = w
        return ps.Solution([(1 - x) ** 2, 0.5 if provoked else x**2], x)

    res = quiet(ps.surf, solver, 8, iterations=5)
    assert (np.ptp(res.points[:, 1]) == 0) == provoked
    return res


def scale(provoked: bool) -> ps.Result:
    """``normalize="none"`` on ((1 - x)^2, k x^2), solved exactly (x = w / (w + (1 - w) k)):
    k = 1e4 (ranges 1 and 1e4) against k = 1."""
    k = 1e4 if provoked else 1.0

    def solver(w: float, state: object) -> ps.Solution:
        x = w / (w + (1 - w) * k)
        return ps.Solution([(1 - x) ** 2, k * x**2], x)

    res = quiet(ps.surf, solver, 8, iterations=10, normalize="none")
    ranges = np.ptp(res.points, axis=0)
    assert (ranges.max() / ranges.min() > 1e3) == provoked
    return res


# ----------------------------------------------------------------- points that are not distinct
def collapsed(provoked: bool) -> ps.Result:
    """The exact weighted-sum solver of the concave front (t, 1 - t^2), whose weighted sums
    are minimized at an end (t = 1 for w < 1/2, t = 0 above): every slot on one of two
    points; the twin is the convex front (t, (1 - t)^2)."""
    f2 = 1 - GRID**2 if provoked else (1 - GRID) ** 2
    res = quiet(ps.surf, grid_solver(GRID, f2), 8, iterations=10)
    assert (len(np.unique(res.points, axis=0)) == 2) == provoked
    return res


def precision(provoked: bool) -> ps.Result:
    """(a x^2, b (1 - x)^2) with a = 1e-6, b = 1e6, solved exactly: the weights that space its
    points evenly crowd within 1e-9 of each other; the twin has a = b = 1."""
    a, b = (1e-6, 1e6) if provoked else (1.0, 1.0)

    def solver(w: float, state: object) -> ps.Solution:
        x = (1 - w) * b / (w * a + (1 - w) * b)
        return ps.Solution([a * x**2, b * (1 - x) ** 2], x)

    res = quiet(ps.surf, solver, 10, iterations=30)
    assert (np.min(np.diff(res.weights)) < 1e-9) == provoked
    if provoked:  # the points stay apart: it is no collapse
        assert len(np.unique(res.points, axis=0)) == len(res.points)
    return res


# ------------------------------------------------------------------------ jumps and short solves
def jump(provoked: bool) -> ps.Result:
    """The exact weighted-sum solver of (t^2, (1 - t)^2 + p) with p = 1 on 0.4 < t < 0.6
    (those points dominated by t = 0.4's: the front falls into two pieces, which weighted
    sums jump across at w = 1/2); the twin has p = 0, the connected front."""
    hole = (GRID > 0.4) & (GRID < 0.6)
    f1, f2 = GRID**2, (1 - GRID) ** 2 + (1.0 if provoked else 0.0) * hole
    if provoked:  # every point in the hole is dominated by the piece end t = 0.4
        at = int(np.searchsorted(GRID, 0.4))
        assert np.all(f1[hole] >= f1[at]) and np.all(f2[hole] > f2[at])
    return quiet(ps.surf, grid_solver(f1, f2), 10, iterations=10)


def unconverged(provoked: bool) -> ps.Result:
    """Deep Sea Treasure (the paper's DST) under SURF's damping alpha = 0.3: 20 gradient steps
    a call leave points behind their moving weights (from cold starts: the solver's own
    start-up of the paper's protocol would warm the ends up first); the twin is the
    problem's exact solver."""
    dst = ps.problems.deep_sea_treasure()
    solver = dst.gradient_solver(steps=20) if provoked else dst.solver()
    res = quiet(ps.surf, solver, 8, alpha=0.3, iterations=10, init_states=[None] * 9)
    # the truth: the exact minimizers at the run's weights, from the problem's front
    exact = dst.front(res.weights)
    w = np.c_[res.weights, 1 - res.weights]
    excess = np.sum(w * (res.points - exact), axis=1) / np.ptp(exact, axis=0).max()
    assert (excess.max() > 1e-3) == provoked
    return res


def coverage(provoked: bool) -> ps.Result:
    """The exact solver of ((1 - x)^2, x^2) with its own end solves (``solve_end``), except
    that no solve of a weight gets below x = 0.3: the end (1, 0) at w = 0 is left out; the
    twin solves every weight exactly."""

    class Solver:
        def solve(self, w: float, state: object) -> ps.Solution:
            x = max(w, 0.3) if provoked else w
            return ps.Solution(convex_point(x), state=x)

        def solve_end(self, objective: int, state: object) -> ps.Solution:
            x = 1.0 if objective == 0 else 0.0
            return ps.Solution(convex_point(x), state=x)

    res = quiet(ps.surf, Solver(), 10, iterations=8)
    # the end at w = 0 is (1, 0); the points' spacing is about 1/10 of the front
    missed = float(np.min(np.linalg.norm(res.points - [1.0, 0.0], axis=1)))
    assert (missed > 0.2) == provoked
    return res


# ---------------------------------------------------------------------------------- the ends
def endpoint(provoked: bool) -> ps.Result:
    """ZDT1's front f2 = 1 - sqrt(f1), solved exactly for w < 1; at w = 1 the problem min f1
    leaves f2 free and the solver stops at f2 = 5.5 (only weakly Pareto-optimal); the twin
    returns the end (0, 1) there."""

    def solver(w: float, state: object) -> ps.Solution:
        if w == 1.0:
            return ps.Solution([0.0, 5.5 if provoked else 1.0])
        x = min(((1 - w) / (2 * w)) ** 2, 1.0) if w > 0 else 1.0
        return ps.Solution([x, 1 - math.sqrt(x)])

    res = quiet(ps.surf, solver, 10, iterations=15)
    end, others = res.points[-1], res.points[:-1]
    # the end is the least in objective 1 (0); the weak one is worse in objective 2 than
    # every other point, by more than the front's whole range there
    assert end[0] == 0.0 and np.all(others[:, 0] > 0.0)
    assert (end[1] > others[:, 1].max() + 1.0) == provoked
    return res


class Logistic:
    """Logistic regression with Adam (20 steps of lr 0.1 a call, warm-started): f1 the mean
    logistic loss, f2 the squared norm of the weights. The data are separable with margin 0.2
    (labels ``sign(x . u)``), so at w = 1 the loss falls towards 0 as the weights run off
    along u: no minimizer there. ``flip`` labels flipped make the data not separable."""

    def __init__(self, flip: int = 0) -> None:
        rng = np.random.default_rng(0)
        x = rng.normal(size=(200, 2))
        self.u = np.array([1.0, 0.5]) / math.hypot(1.0, 0.5)
        keep = np.abs(x @ self.u) >= 0.2
        self.x, self.y = x[keep][:40], np.sign(x[keep][:40] @ self.u)
        self.y[:flip] = -self.y[:flip]

    def loss(self, theta: FloatArray) -> float:
        return float(np.mean(np.logaddexp(0.0, -self.y * (self.x @ theta))))

    def solve(self, w: float, state: Any) -> ps.Solution:
        lam = np.array([w, 1.0 - w])
        s = np.zeros(7) if state is None else np.array(state, dtype=float)
        theta, m, v, t = s[0:2], s[2:4], s[4:6], s[6]
        for _ in range(20):
            z = self.y * (self.x @ theta)
            grad = -(self.x * (self.y / (1.0 + np.exp(z)))[:, None]).mean(axis=0)
            g = lam @ np.stack([grad, 2 * theta])
            t += 1
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            theta = theta - 0.1 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
        return ps.Solution([self.loss(theta), float(theta @ theta)], np.r_[theta, m, v, t])


def no_minimizer(provoked: bool) -> ps.Result:
    """:class:`Logistic` on separable data; the twin flips one label (the data are then not
    separable and the loss at w = 1 has a minimizer)."""
    solver = Logistic(flip=0 if provoked else 1)
    # the truth: along u the loss falls towards 0 on separable data, and rises on the twin's
    falls = solver.loss(100 * solver.u) < solver.loss(10 * solver.u) < solver.loss(solver.u)
    assert falls == provoked
    res = quiet(ps.surf, solver, 8, iterations=10)
    if provoked:  # the w = 1 slot ran off: its loss fell and its norm grew in every round
        end = np.array([r.points[-1] for r in res.history])
        assert np.all(np.diff(end[:, 0]) < 0) and np.all(np.diff(end[:, 1]) > 0)
    return res


# ----------------------------------------------------------------- dominated and out of order
def dominated(provoked: bool) -> ps.Result:
    """Uniform-w on the convex front, the slot at w = 1/2 returned 0.5 above it in both
    objectives ((0.75, 0.75), beaten by (0.5625, 0.0625) at w = 1/4); the twin is exact."""

    def solver(w: float, state: object) -> ps.Solution:
        bad = provoked and abs(w - 0.5) < 1e-12
        return ps.Solution(convex_point(w) + (0.5 if bad else 0.0), w)

    res = quiet(ps.methods.uniform, solver, 4, iterations=1)
    beaten = [
        i
        for i, p in enumerate(res.points)
        if any(dominates(q, p) for j, q in enumerate(res.points) if j != i)
    ]
    assert beaten == ([2] if provoked else [])
    return res


def noisy(provoked: bool) -> ps.Result:
    """The exact solver of the convex front with seeded Gaussian noise (sd 0.02) on every
    evaluation: neighbouring points out of the order weighted sums guarantee; the twin has
    no noise."""
    rng = np.random.default_rng(0)

    def solver(w: float, state: object) -> ps.Solution:
        return ps.Solution(convex_point(w) + (0.02 * rng.standard_normal(2) if provoked else 0), w)

    res = quiet(ps.surf, solver, 20, iterations=10)
    # objective 1 must not rise with w, nor objective 2 fall
    out_of_order = np.any(np.diff(res.points[:, 0]) > 0) or np.any(np.diff(res.points[:, 1]) < 0)
    assert out_of_order == provoked
    return res


def reversed_(provoked: bool) -> ps.Result:
    """A solver that returns rewards 1 - (1 - x)^2, 1 - x^2 (to be maximized) instead of the
    costs (1 - x)^2, x^2 at x = w: objective 1 rises with w on every pair."""

    def solver(w: float, state: object) -> ps.Solution:
        f = convex_point(w)
        return ps.Solution(1 - f if provoked else f, w)

    res = quiet(ps.surf, solver, 6, iterations=5)
    assert bool(np.all(np.diff(res.points[:, 0]) > 0)) == provoked
    return res


# ---------------------------------------------------------------------------------- the solver
def stuck(provoked: bool) -> ps.Result:
    """20 gradient steps a call on w (x - 1)^2 + (1 - w)(x + 1)^2 from x = 0 (warm-started),
    with a learning rate of 0 (the solver never moves: every weight gets (1, 1)) against 0.25
    (each step halves the distance to the minimizer x = 2 w - 1)."""
    lr = 0.0 if provoked else 0.25

    def solver(w: float, state: object) -> ps.Solution:
        x = 0.0 if state is None else float(state)
        for _ in range(20):
            x -= lr * (2 * w * (x - 1) + 2 * (1 - w) * (x + 1))
        return ps.Solution([(x - 1) ** 2, (x + 1) ** 2], x)

    res = quiet(ps.surf, solver, 6, iterations=5)
    assert (res.points.tolist() == [[1.0, 1.0]] * 7) == provoked
    return res


#: The multimodal part of the local-minima problem: h(y) = A (1 - cos 2 pi y) + C y^2, global
#: minimum 0 at y = 0, a local minimum near every integer n, about C n^2 high; gradient
#: descent with a step below 1 / max h'' never leaves the basin it starts in.
A, C, STEP_Y = 0.5, 0.3, 0.04


class Basins:
    """Objectives (x^2, (1 - x)^2) + h(y), 30 gradient steps a call on the weighted sum from
    the warm start: x reaches its minimizer, y the local minimum of its basin, both
    objectives about C n^2 above the front in basin n. ``probe_start`` draws a start in
    basin 0 (for basin probes)."""

    def h(self, y: float) -> tuple[float, float]:
        return (
            A * (1 - math.cos(2 * math.pi * y)) + C * y * y,
            2 * math.pi * A * math.sin(2 * math.pi * y) + 2 * C * y,
        )

    def solve(self, w: float, state: Any) -> ps.Solution:
        s = np.array(state if state is not None else [0.5, 0.0], dtype=float)
        for _ in range(30):
            s[0] -= 0.25 * (2 * w * s[0] - 2 * (1 - w) * (1 - s[0]))
            s[1] -= STEP_Y * self.h(float(s[1]))[1]
        return ps.Solution(np.array([s[0] ** 2, (1 - s[0]) ** 2]) + self.h(float(s[1]))[0], s)


class ProbedBasins(Basins):
    def probe_start(self, rng: np.random.Generator) -> FloatArray:
        return np.array([0.5, rng.uniform(-0.2, 0.2)])


#: The y of each slot's start: slots 2, 5 and 6 in basins 1, -1 and 2 (provoked), or every
#: slot within 0.2 of 0, in basin 0 (the twin).
BAD_STARTS = [0.1, 0.0, 1.1, -0.1, 0.2, -0.9, 2.1, 0.0, -0.1]
GOOD_STARTS = [0.1, 0.0, 0.1, -0.1, 0.2, -0.1, 0.1, 0.0, -0.1]


def local_minima(provoked: bool) -> ps.Result:
    """:class:`Basins` with three slots started in other basins than 0 (they stay in their
    local minima); the twin starts every slot in basin 0."""
    starts = BAD_STARTS if provoked else GOOD_STARTS
    res = quiet(ps.surf, Basins(), 8, iterations=8, init_states=[[0.5, y] for y in starts])
    basins = {i for i, s in enumerate(res.states) if round(float(s[1])) != 0}
    assert basins == ({2, 5, 6} if provoked else set())
    if provoked:
        found = next(f for f in res.findings if f.code == "local_minima")
        assert set(found.slots) == basins
    return res


def probed(provoked: bool) -> ps.Result:
    """:class:`ProbedBasins` with basin probes on (``probes=True``): a probe from basin 0
    scores lower than a slot in a poorer basin and replaces it; with every slot in basin 0
    (the twin) no probe scores lower."""
    starts = BAD_STARTS if provoked else GOOD_STARTS
    res = quiet(
        ps.surf,
        ProbedBasins(),
        8,
        iterations=12,
        probes=True,
        init_states=[[0.5, y] for y in starts],
    )
    # the probes left no slot outside basin 0, and moved the three that started elsewhere
    assert all(round(float(s[1])) == 0 for s in res.states)
    if provoked:
        (found,) = [f for f in res.findings if f.code == "probed"]
        assert set(found.slots) == {2, 5, 6} and not found.fatal
    return res


def non_finite(provoked: bool) -> ps.Result:
    """L-BFGS-B (``from_scipy``) on (x - log x, (x - 3)^2), NaN for x <= 0, each solve
    started from x = 3: near w = 1 its quasi-Newton step from x = 2 (after a first step of
    length 1) goes to x = -1, outside the domain. The twin bounds the variable to x >= 1e-6
    (the minimizers, in [1, 3], are the same)."""
    met = [0]

    def objectives(x: FloatArray) -> FloatArray:
        with np.errstate(invalid="ignore", divide="ignore"):
            f = np.array([x[0] - np.log(x[0]), (x[0] - 3.0) ** 2])
        met[0] += not np.all(np.isfinite(f))
        return f

    bounds = None if provoked else [(1e-6, None)]
    inner = ps.adapters.from_scipy(objectives, np.array([3.0]), bounds=bounds)
    nan_at: dict[float, int] = {}

    def solver(w: float, state: object) -> ps.Solution:
        met[0] = 0
        sol = inner.solve(w, None)  # every solve from x = 3
        nan_at[w] = met[0]
        return sol

    res = quiet(ps.surf, solver, 8, iterations=5)
    # the slots whose solves met NaN (counted here, in the objectives)
    expected = tuple(i for i, w in enumerate(res.weights) if nan_at[float(w)] > 0)
    assert bool(expected) == provoked
    if provoked:
        (found,) = [f for f in res.findings if f.code == "non_finite"]
        assert found.slots == expected and found.fatal
    return res


def unsuccessful(provoked: bool) -> ps.Result:
    """A solver whose solves at 0.4 < w < 0.6 say ``info["success"] = False`` (with damping
    0.3 the middle weight stays in that band); the twin's say True."""

    def solver(w: float, state: object) -> ps.Solution:
        ok = not (provoked and 0.4 < w < 0.6)
        return ps.Solution(convex_point(w), w, {"success": ok, "message": "" if ok else "failed"})

    res = quiet(ps.surf, solver, 4, alpha=0.3, iterations=2)
    assert 0.4 < res.weights[2] < 0.6
    return res


def tchebycheff_ideal(ideal: list[float] | None) -> tuple[ps.Result, Any]:
    """SLSQP (``from_scipy``) on the Tchebycheff scalarization of ((x - 1)^2, (x + 1)^2),
    x in [-2, 2], from the ``ideal`` point given (``None``: estimated by the solver and moved
    by the run). Objective 1's least value is 0 (at x = 1), objective 2's 0 (at x = -1)."""

    def objectives(x: FloatArray) -> FloatArray:
        return np.array([(x[0] - 1.0) ** 2, (x[0] + 1.0) ** 2])

    solver = ps.adapters.from_scipy(
        objectives, [0.0], scalarization="tchebycheff", ideal=ideal, bounds=[(-2.0, 2.0)]
    )
    return quiet(ps.surf, solver, 6, iterations=5), solver


def ideal(provoked: bool) -> ps.Result:
    """The ideal point given as (0.5, -0.1), above objective 1's least value 0 (the run's end
    solve finds it), against (-0.1, -0.1), below every value."""
    given = [0.5, -0.1] if provoked else [-0.1, -0.1]
    res, solver = tchebycheff_ideal(given)
    assert solver.ideal_given
    # the objectives the run saw below the given point (its points and its end solves')
    seen = np.vstack([res.points, *([] if res.front_ends is None else [res.front_ends.points])])
    below = tuple(int(m) for m in np.flatnonzero(seen.min(axis=0) < given))
    assert below == ((0,) if provoked else ())
    if provoked:
        (found,) = [f for f in res.findings if f.code == "ideal"]
        assert "objective 1" in found.message and "objective 2" not in found.message
    return res


def ideal_estimated(provoked: bool) -> ps.Result:
    """The same run with the ideal point (0.5, -0.1) given, against none given: the solver's
    estimate, which the run moves below every value it finds, is never beaten."""
    res, solver = tchebycheff_ideal([0.5, -0.1] if provoked else None)
    assert solver.ideal_given == provoked
    return res


# ------------------------------------------------------------------------------- the spacing
def uneven(provoked: bool) -> ps.Result:
    """SURF on the gear toy (exact) with the paper's damping alpha = 0.3, stopped after 3
    rounds (gap ratio about 2.55, above the target 2) against 4 (about 1.94)."""
    res = quiet(
        ps.surf, ps.problems.GearToy(9).solver(), 20, alpha=0.3, iterations=3 if provoked else 4
    )
    assert (endpoint_ratio(res.points) > 2.0) == provoked
    return res


def unsettled(provoked: bool) -> ps.Result:
    """The same gear-toy run stopped after 5 rounds (the target met, the weights still
    moving by more than a quarter of the even spacing 1/20 against where they settle)
    against 30 rounds (it stops early, settled)."""
    solver = ps.problems.GearToy(9).solver()
    res = quiet(ps.surf, solver, 20, alpha=0.3, iterations=5 if provoked else 30)
    assert endpoint_ratio(res.points) <= 2.0
    settled = quiet(ps.surf, solver, 20, alpha=0.3, iterations=60)
    assert settled.stop_reason == "done"
    moved = float(np.max(np.abs(res.weights - settled.weights)))
    assert (moved > 0.25 / 20) == provoked
    return res


class RidgePath:
    """The exact solver of a ridge path, ||A x - b||^2 / n and ||x||^2, A of condition number
    1e4: most of the front's length lies at weights within 1e-4 of 1, so SURF's weights crowd
    there, where moves far below the even spacing are large against their own spacing."""

    def __init__(self) -> None:
        rng = np.random.default_rng(0)
        n, d = 40, 10
        u = np.linalg.qr(rng.standard_normal((n, n)))[0][:, :d]
        v = np.linalg.qr(rng.standard_normal((d, d)))[0]
        self.a = u @ np.diag(np.logspace(0.0, -4.0, d) * math.sqrt(n)) @ v.T
        self.b = rng.standard_normal(n)
        self.n, self.d = n, d

    def __call__(self, w: float, state: object) -> ps.Solution:
        lhs = w * self.a.T @ self.a / self.n + (1 - w) * np.eye(self.d)
        x = np.linalg.solve(lhs, w * self.a.T @ self.b / self.n)
        r = self.a @ x - self.b
        return ps.Solution([r @ r / self.n, x @ x], x)


def unsettled_crowded(provoked: bool) -> ps.Result:
    """:class:`RidgePath` stopped after 22 rounds, its crowded weights within 1e-3 of where
    they settle (below a quarter of the even spacing) but several percent of their own
    spacing away, against 60 rounds (it stops early)."""
    solver = RidgePath()
    res = quiet(ps.surf, solver, n_points=21, iterations=22 if provoked else 60)
    settled = quiet(ps.surf, solver, n_points=21, iterations=60)
    assert settled.stop_reason == "done"
    moved = np.abs(settled.weights - res.weights)
    assert moved.max() < 0.25 / 20  # little against the even spacing
    gaps = np.diff(settled.weights)
    own = np.minimum(np.r_[np.inf, gaps], np.r_[gaps, np.inf])
    assert (np.max((moved / own)[own > 1e-9]) > 0.05) == provoked
    return res


def alternating(provoked: bool) -> Callable[[float, object], ps.Solution]:
    """The exact solver of the convex front on every other call of a slot; on the calls in
    between (provoked) it returns the point of weight w^2 instead: a point at a weight that
    depends on the slot's start (its state counts the calls)."""

    def solver(w: float, state: object) -> ps.Solution:
        k = 0 if state is None else int(state)
        x = w**2 if provoked and k % 2 else w
        return ps.Solution(convex_point(x), k + 1)

    return solver


def oscillating(provoked: bool) -> ps.Result:
    """SURF with :func:`alternating`: the spacing swings from round to round instead of
    settling; the twin is exact on every call."""
    res = quiet(ps.surf, alternating(provoked), 8, iterations=12)
    # the swing, measured here from the last 8 rounds' points
    ratios = np.array([endpoint_ratio(np.asarray(r.points)) for r in res.history[-8:]])
    steps = np.diff(np.log(ratios))
    swings = ratios.max() > 1.5 * ratios.min() and np.sum(steps[1:] * steps[:-1] < 0) >= 3
    assert swings == provoked
    return res


# ------------------------------------------------------------------------------- surfaces
def dtlz5_curve(w: FloatArray, state: object) -> ps.Solution:
    """The exact Tchebycheff minimizer (ideal 0) on DTLZ5's front, the quarter circle
    (cos t / sqrt 2, cos t / sqrt 2, sin t): objectives 1 and 2 equal."""
    w = np.asarray(w, dtype=float)
    t = np.arctan2(max(w[0], w[1]), math.sqrt(2) * w[2])
    return ps.Solution([math.cos(t) / math.sqrt(2), math.cos(t) / math.sqrt(2), math.sin(t)], t)


def sphere(w: FloatArray, state: object) -> ps.Solution:
    """The exact Tchebycheff minimizer (ideal 0) on the octant of the unit sphere (DTLZ2's
    front, a surface): w_m f_m equal for every m, so f is 1 / w normalized."""
    f = 1.0 / (np.asarray(w, dtype=float) + 1e-12)
    return ps.Solution(f / np.linalg.norm(f), None)


class Tchebycheff3:
    """A three-objective solver that says it minimizes the Tchebycheff scalarization from
    the ideal point 0, as ``front`` does."""

    scalarization = ps.adapters.Scalarization("tchebycheff", ideal=[0.0, 0.0, 0.0])

    def __init__(self, front: Callable[[FloatArray, object], ps.Solution]) -> None:
        self.front = front

    def solve(self, w: FloatArray, state: object) -> ps.Solution:
        return self.front(w, state)


def degenerate(provoked: bool) -> ps.Result:
    """SURF-simplex (three objectives) on DTLZ5's curve, a front of dimension 1 < M - 1
    whose objectives 1 and 2 never conflict; the twin is the sphere, a surface."""
    solver = Tchebycheff3(dtlz5_curve if provoked else sphere)
    res = quiet(ps.surf_simplex, solver, 15, 3, iterations=4)
    assert bool(np.allclose(res.points[:, 0], res.points[:, 1])) == provoked
    return res


# ---------------------------------------------------------------------------------- baselines
def fewer(provoked: bool) -> ps.Result:
    """OLS on the convex front (exact) with a budget of 4 solves for 9 points, against no
    budget (it finds all 9)."""
    res = quiet(ps.methods.ols, convex, 8, max_solves=4 if provoked else None)
    assert (len(res.points) < 9) == provoked
    return res


#: The cases, keyed by the code they provoke (a code may have several: ways to reach it).
CASES: dict[str, tuple[Callable[[bool], ps.Result], ...]] = {
    "constant": (constant,),
    "scale": (scale,),
    "collapsed": (collapsed,),
    "jump": (jump,),
    "endpoint": (endpoint,),
    "dominated": (dominated,),
    "noisy": (noisy,),
    "unconverged": (unconverged,),
    "reversed": (reversed_,),
    "precision": (precision,),
    "fewer": (fewer,),
    "unsuccessful": (unsuccessful,),
    "unsettled": (unsettled, unsettled_crowded),
    "uneven": (uneven,),
    "ideal": (ideal, ideal_estimated),
    "stuck": (stuck,),
    "no_minimizer": (no_minimizer,),
    "non_finite": (non_finite,),
    "local_minima": (local_minima,),
    "oscillating": (oscillating,),
    "degenerate": (degenerate,),
    "coverage": (coverage,),
    "probed": (probed,),
}

ALL = [
    pytest.param(code, build, id=build.__name__.rstrip("_"))
    for code, builds in CASES.items()
    for build in builds
]


def test_every_registry_code_has_a_provoking_case() -> None:
    assert set(CASES) == set(TITLES)
    assert all(CASES.values())


@pytest.mark.parametrize(("code", "build"), ALL)
def test_the_provoked_case_fires_its_code(code: str, build: Callable[[bool], ps.Result]) -> None:
    res = build(True)
    assert code in codes(res), res.message
    assert set(codes(res)) <= set(TITLES), "a code the registry lacks"


@pytest.mark.parametrize(("code", "build"), ALL)
def test_the_healthy_twin_keeps_it_quiet(code: str, build: Callable[[bool], ps.Result]) -> None:
    res = build(False)
    assert code not in codes(res), res.message
    assert res.success, res.message  # healthy: at most advice
