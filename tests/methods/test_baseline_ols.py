"""OLS baseline: corner weights, optimistic priorities, CCS recovery, budget, errors.

Reference values are computed independently of the implementation: the convex coverage set of a
finite candidate set by intersecting, for each candidate, the weight intervals where its
scalarized value is no worse than every other candidate's; corner weights by brute force over
pairwise line intersections; the optimistic bound by scipy's LP solver (Roijers' formulation).
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pytest
from scipy.optimize import linprog

import paretosurf as ps
from paretosurf.methods._ols import corner_priorities, ols
from paretosurf.problems import Quadratic, Quadratic1D


# ------------------------------------------------------------------ independent references
def ccs_intervals(cands: np.ndarray) -> dict[int, tuple[float, float]]:
    """Candidate index -> [lo, hi] of weights where it minimizes w p1 + (1 - w) p2, for the
    candidates where that interval has positive length (the CCS vertices)."""
    out = {}
    for i, p in enumerate(cands):
        lo, hi = 0.0, 1.0
        for j, q in enumerate(cands):
            if j == i:
                continue
            a = q[1] - p[1]  # L_q(w) - L_p(w) = a + b w >= 0
            b = (q[0] - p[0]) - (q[1] - p[1])
            if b > 0:
                lo = max(lo, -a / b)
            elif b < 0:
                hi = min(hi, -a / b)
            elif a < 0:
                lo, hi = 1.0, 0.0
        if hi - lo > 1e-9:
            out[i] = (lo, hi)
    return out


def envelope(points: np.ndarray, w: float | np.ndarray) -> np.ndarray:
    w = np.asarray(w, dtype=float)
    return np.min(w[..., None] * points[:, 0] + (1 - w[..., None]) * points[:, 1], axis=-1)


def brute_corners(points: np.ndarray) -> np.ndarray:
    """Pairwise line intersections in (0, 1) that lie on the lower envelope."""
    found = []
    for i in range(len(points)):
        for j in range(i + 1, len(points)):
            si, sj = points[i, 0] - points[i, 1], points[j, 0] - points[j, 1]
            if si == sj:
                continue
            w = (points[j, 1] - points[i, 1]) / (si - sj)
            if not 1e-9 < w < 1 - 1e-9:
                continue
            value = points[i, 1] + si * w
            if value <= envelope(points, w) + 1e-12:
                found.append(w)
    out = np.sort(np.asarray(found, dtype=float))
    if out.size:
        out = out[np.concatenate([[True], np.diff(out) > 1e-9])]
    return out


def lp_priority(points: np.ndarray, solved: np.ndarray, wc: float) -> float:
    """V(w_c) - min_q {w_c q1 + (1 - w_c) q2 : s q1 + (1 - s) q2 >= V(s) for solved s}."""
    a_ub = -np.stack([solved, 1 - solved], axis=1)
    b_ub = -envelope(points, solved)
    lp = linprog([wc, 1 - wc], A_ub=a_ub, b_ub=b_ub, bounds=[(None, None)] * 2, method="highs")
    assert lp.status == 0
    return float(envelope(points, wc) - lp.fun)


class DiscreteSolver:
    """Exact solver over a finite candidate set; records every call."""

    def __init__(self, cands: np.ndarray) -> None:
        self.cands = cands
        self.calls: list[tuple[float, object]] = []

    def solve(self, w: float, state: object) -> ps.Solution:
        self.calls.append((w, state))
        k = int(np.argmin(w * self.cands[:, 0] + (1 - w) * self.cands[:, 1]))
        return ps.Solution(self.cands[k], state=("cand", k), info={"steps": 1})


def random_candidates(seed: int) -> np.ndarray:
    """A convex front sampled irregularly, plus dominated and near-front clutter."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0, 1, 15))
    front = np.stack([x, (1 - np.sqrt(x)) ** 2 + 0.3 * (1 - x)], axis=1)
    clutter = front[rng.integers(0, 15, 40)] + rng.uniform(0.0, 0.3, (40, 2))
    return np.concatenate([front, clutter, rng.uniform(0.5, 1.5, (10, 2))])


# ------------------------------------------------------------------ tests
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ols_recovers_the_discrete_ccs_and_visits_its_corners(seed: int) -> None:
    cands = random_candidates(seed)
    truth = ccs_intervals(cands)
    k = len(truth)
    assert k >= 5  # a non-trivial CCS
    true_corners = np.sort([lo for lo, _ in truth.values() if lo > 0])
    assert true_corners.size == k - 1

    solver = DiscreteSolver(cands)
    with pytest.warns(ps.ParetoWarning, match=f"found {k} of the 101 points asked for"):
        res = ols(solver, 100)
    assert res.converged
    # exactly the supported points, in weight order, each found where it is optimal
    ccs = cands[sorted(truth, key=lambda i: truth[i][0])]
    np.testing.assert_array_equal(res.points, ccs)
    assert res.weights[0] == 0.0 and res.weights[-1] == 1.0
    assert np.all(np.diff(res.weights) > 0)
    for w, p in zip(res.weights, res.points, strict=True):
        (idx,) = np.flatnonzero(np.all(cands == p, axis=1))
        lo, hi = truth[int(idx)]
        assert lo - 1e-12 <= w <= hi + 1e-12
    # every true corner weight is visited; 2K - 1 solves in all (K - 2 finds, K - 1 checks)
    visited = np.array([w for w, _ in solver.calls])
    for wc in true_corners:
        assert np.min(np.abs(visited - wc)) < 1e-12
    assert res.n_solves == len(solver.calls) == 2 * k - 1 == res.n_steps
    assert len(res.history) == 2 * k - 2
    assert res.n_segments == k - 1 and len(res.states) == k
    np.testing.assert_array_equal(res.history[-1].points, res.points)


def test_ols_visits_corners_in_order_of_the_lp_priority() -> None:
    cands = random_candidates(3)
    solver = DiscreteSolver(cands)
    with pytest.warns(ps.ParetoWarning, match="points asked for"):
        res = ols(solver, 100)
    visited = [w for w, _ in solver.calls]
    assert visited[:2] == [0.0, 1.0]
    for k in range(2, len(visited)):
        known = res.history[k - 2].points  # accepted before visit k
        solved = np.array(visited[:k])
        corners = brute_corners(known)
        prio = np.array([lp_priority(known, solved, wc) for wc in corners])
        j = int(np.argmin(np.abs(corners - visited[k])))
        assert abs(corners[j] - visited[k]) < 1e-9  # a corner of the current envelope
        assert prio[j] >= prio.max() - 1e-9 and prio[j] > 1e-9


@pytest.mark.parametrize("seed", range(5))
def test_corner_priorities_match_brute_force_and_lp(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0, 1, 6))
    points = np.concatenate([np.stack([x, (1 - x) ** 2], axis=1), rng.uniform(0.5, 1, (3, 2))])
    corners, prio = corner_priorities(points, np.array([0.0, 1.0]))
    np.testing.assert_allclose(corners, brute_corners(points), atol=1e-12)
    solved = np.concatenate([[0.0, 1.0], rng.uniform(0, 1, 3), corners[:1]])
    corners, prio = corner_priorities(points, solved)
    expected = [lp_priority(points, solved, wc) for wc in corners]
    np.testing.assert_allclose(prio, expected, atol=1e-9)
    assert prio[0] == 0.0  # a solved corner has nothing left to gain
    assert np.all(prio >= 0)


def test_smooth_convex_front_gives_n_plus_one_distinct_points() -> None:
    prob = Quadratic1D(1.0, 1.0, 3.0, 0.0)
    calls: list[float] = []

    def solver(w: float, state: object) -> ps.Solution:
        calls.append(w)
        return prob.solver().solve(w, state)

    res = ols(solver, 8)
    assert res.points.shape == (9, 2) and not res.converged
    assert res.n_solves == 9 == len(calls)  # on a strictly convex front every visit finds
    np.testing.assert_allclose(res.points, prob.front(res.weights), atol=1e-12)
    assert np.min(ps.metrics.segment_lengths(res.points)) > 1e-3
    assert np.all(np.diff(res.points[:, 0]) < 0)  # ordered along the front
    # first corner: where w * h1(w=0 point) = (1 - w) * h2(w=1 point)
    a, b = prob.front(0.0)[0, 0], prob.front(1.0)[0, 1]
    assert calls[:2] == [0.0, 1.0] and calls[2] == pytest.approx(b / (a + b), abs=1e-14)


class ChainSolver:
    """Gear-toy front; the state counts calls so warm-start chains are visible."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, Any]] = []

    def solve(self, w: float, state: Any) -> ps.Solution:
        self.calls.append((w, state))
        x = 3 * w / (1 + 2 * w)
        depth = state[1] + 1 if isinstance(state, tuple) else 0
        return ps.Solution([(1 - x) ** 2, x**2], state=(w, depth), info={"steps": 7})


@pytest.mark.parametrize(("max_solves", "expected"), [(10, 9), (12, 12), (None, 15)])
def test_budget_counts_calls_and_warm_starts_chain(max_solves: int | None, expected: int) -> None:
    solver = ChainSolver()
    budget_cut = (
        pytest.warns(ps.ParetoWarning, match="budget")
        if expected < 15
        else (contextlib.nullcontext())
    )
    with budget_cut:
        res = ols(solver, 4, calls_per_solve=3, max_solves=max_solves, init_states=["a", "b"])
    assert res.n_solves == len(solver.calls) == expected and res.n_steps == 7 * expected
    assert len(res.points) == expected // 3
    # endpoints: init states, then each call continues its own endpoint's chain
    assert [s for _, s in solver.calls[:2]] == ["a", "b"]
    assert solver.calls[4][1] == (0.0, 1) and solver.calls[5][1] == (1.0, 1)
    # a corner starts from the accepted point found nearest to it, then chains its own state
    for v in range(2, expected // 3):
        block = solver.calls[3 * v : 3 * v + 3]
        wc = block[0][0]
        assert {w for w, _ in block} == {wc}
        earlier = [w for w, _ in solver.calls[: 3 * v : 3]] + [1.0]
        nearest = min(earlier, key=lambda e: abs(e - wc))
        start_w, depth = block[0][1]
        assert start_w == nearest
        assert block[1][1] == (wc, depth + 1) and block[2][1] == (wc, depth + 2)


def test_inexact_gradient_solver_with_calls_per_solve() -> None:
    prob = Quadratic(np.eye(2), [1.0, 0.0], np.diag([1.0, 4.0]), [0.0, 1.0])
    solver = prob.gradient_solver(steps=10, lr=0.05, optimizer="sgd")
    res = ols(solver, 4, calls_per_solve=30)
    assert len(res.points) == 5 and res.n_solves == 5 * 30 and res.n_steps == 5 * 30 * 10
    np.testing.assert_allclose(res.points, prob.front(res.weights), atol=1e-6)


def test_n_segments_one_and_degenerate_front() -> None:
    res = ols(lambda w, s: ps.Solution([1 - w, w]), 1)
    assert res.weights.tolist() == [0.0, 1.0] and res.n_solves == 2 and res.success
    with pytest.warns(ps.ParetoWarning, match="the same point for every weight"):
        flat = ols(lambda w, s: ps.Solution([1.0, 2.0]), 5)  # a single-point "front"
    assert flat.n_solves == 2 and flat.stop_reason == "method"
    assert not flat.converged and not flat.success  # a collapsed front never converges
    assert flat.points.tolist() == [[1.0, 2.0], [1.0, 2.0]]


def test_init_states_of_length_n_plus_one_use_the_ends() -> None:
    solver = ChainSolver()
    ols(solver, 3, init_states=["first", "x", "y", "last"])
    assert [s for _, s in solver.calls[:2]] == ["first", "last"]


def test_progress_bar(capsys: pytest.CaptureFixture[str]) -> None:
    ols(ChainSolver(), 3, progress=True)
    assert "OLS" in capsys.readouterr().err


def test_bad_input() -> None:
    solver = ChainSolver()
    with pytest.raises(ValueError, match="n_segments"):
        ols(solver, 0)
    with pytest.raises(ValueError, match="epsilon"):
        ols(solver, 3, epsilon=-1.0)
    with pytest.raises(ValueError, match="epsilon"):
        ols(solver, 3, epsilon=float("nan"))
    with pytest.raises(TypeError, match="epsilon"):
        ols(solver, 3, epsilon="small")
    with pytest.raises(ValueError, match="calls_per_solve"):
        ols(solver, 3, calls_per_solve=0)
    with pytest.raises(ValueError, match=r"max_solves must be at least 2 \* calls_per_solve = 4"):
        ols(solver, 3, calls_per_solve=2, max_solves=3)
    with pytest.raises(ValueError, match="init_states must hold 2 states"):
        ols(solver, 3, init_states=[None] * 3)
    with pytest.raises(TypeError, match="solver"):
        ols(42, 3)
    with pytest.raises(ValueError, match="2 objectives"):
        ols(lambda w, s: ps.Solution([w, 1 - w, 0.0]), 3)
    with pytest.raises(ValueError, match="solved_weights"):
        corner_priorities([[1.0, 0.0], [0.0, 1.0]], [0.2, 1.0])
    with pytest.raises(ValueError, match="points"):
        corner_priorities([[1.0, 0.0, 2.0]], [0.0, 1.0])


def test_solver_failure_names_visit_and_weight() -> None:
    def solver(w: float, s: object) -> ps.Solution:
        if 0 < w < 1:
            raise RuntimeError("diverged")
        return ps.Solution([1 - w, w])

    with pytest.raises(ps.InnerSolverError, match=r"slot 2 \(weight 0\.5\).*diverged") as info:
        ols(solver, 3)
    assert info.value.weight == 0.5


def test_result_with_growing_point_set_saves_and_loads(tmp_path) -> None:
    from paretosurf.problems import Quadratic1D

    res = ols(Quadratic1D(1.0, 0.0, 3.0, 1.0).solver(), 6)
    res.save(tmp_path / "ols")
    back = ps.Result.load(tmp_path / "ols")
    assert len(back.history) == len(res.history)
    for a, b in zip(back.history, res.history, strict=True):
        np.testing.assert_array_equal(a.points, b.points)
        np.testing.assert_array_equal(a.weights, b.weights)


def test_fewer_points_than_asked_say_so():
    def concave(w: float, state: Any) -> ps.Solution:  # weighted sums reach the two ends
        x = 1.0 if w < 0.5 else 0.0
        return ps.Solution([x, 1 - x * x], x)

    with pytest.warns(ps.ParetoWarning, match="found 2 of the 7 points asked for"):
        res = ols(concave, 6)
    assert [f.code for f in res.findings] == ["fewer"]
    assert res.success and res.converged  # advice: the CCS itself is complete


def test_budget_cut_says_so_and_a_full_front_does_not():
    solver = Quadratic(np.eye(2), [1.0, 0.0], np.diag([1.0, 4.0]), [0.0, 1.0]).solver()
    with pytest.warns(ps.ParetoWarning, match="max_solves"):
        cut = ols(solver, 8, max_solves=4)
    assert len(cut.points) < 9 and [
        f.code for f in cut.findings if f.fatal or f.code != "uneven"
    ] == ["fewer"]
    full = ols(solver, 8)
    assert len(full.points) == 9 and all(f.code == "uneven" for f in full.findings)
    # OLS does not aim at even spacing: its unevenness only advises SURF
    assert full.success and all(not f.fatal and "SURF" in f.remedy for f in full.findings)


def test_iterations_is_refused_with_the_budget_to_use():
    with pytest.raises(TypeError, match="max_solves"):
        ols(lambda w, s: ps.Solution([1 - w, w]), 4, iterations=3)  # type: ignore[call-arg]
