"""The ends of a multimodal or flat-started problem, found globally, and the first round
started between them (``ScipySolver.solve_end`` from several starts, a global search where
they disagree, ``start_between``): the adapters' defaults reach ZDT4's front from a random
start and a front whose start is flat. Checked against the problems' own definitions (ZDT4's
``g = 1`` on its front, the closed-form ends of ZDT6 and of a quadratic pair), never against
the runs' output."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.adapters.global_search import global_minimum

FloatArray = np.ndarray


def quiet_surf(solver: Any, n_points: int, **options: Any) -> ps.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        return ps.surf(solver, n_points, **options)


def zdt4_g(points: FloatArray) -> FloatArray:
    """ZDT4's g from its points (``f2 = g (1 - sqrt(f1 / g))``, a quadratic in sqrt(g))."""
    f1, f2 = np.asarray(points, dtype=np.float64).T
    return np.asarray(((np.sqrt(f1) + np.sqrt(f1 + 4.0 * f2)) / 2.0) ** 2)


# ------------------------------------------------------------------------- global search
def test_global_minimum_finds_the_global_basin_of_a_separable_rastrigin() -> None:
    """Four variables, 10 local minima each within the box: a local solve from the box's
    corner stops in a local one; the search lands in the global basin."""

    def f(x: FloatArray) -> float:
        return float(np.sum(x**2 - 10.0 * np.cos(2.0 * np.pi * x)) + 10.0 * x.size)

    lo, hi = np.full(4, -5.12), np.full(4, 5.12)
    x, calls = global_minimum(f, lo, hi, seed=3, evaluations=8000)
    assert np.all(np.abs(x) < 0.5)  # every variable in the basin of 0
    assert 0 < calls <= 8000 + 100
    again, _ = global_minimum(f, lo, hi, seed=3, evaluations=8000)
    np.testing.assert_array_equal(x, again)  # seeded


def test_global_minimum_without_pymoo_uses_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    import paretosurf.adapters.global_search as gs

    def no_pymoo(*args: Any) -> None:
        raise ImportError("pymoo")

    monkeypatch.setattr(gs, "_pymoo_ga", no_pymoo)
    x, calls = global_minimum(
        lambda x: float(np.sum((x - 0.3) ** 2)), np.zeros(3), np.ones(3), seed=0, evaluations=3000
    )
    np.testing.assert_allclose(x, 0.3, atol=0.05)
    assert calls > 0


# ------------------------------------------------------------------------- the ends
def test_zdt1s_ends_agree_from_every_start_and_need_no_global_search() -> None:
    problems = pytest.importorskip("pymoo.problems")
    solver = ps.adapters.from_pymoo(problems.get_problem("zdt1", n_var=10))
    for k, end in ((0, [0.0, 1.0]), (1, [1.0, 0.0])):
        sol = solver.solve_end(k)
        assert sol.info["global"] is False and sol.info["starts"] == 2
        np.testing.assert_allclose(sol.objectives, end, atol=2e-3)


def test_zdt4s_ends_from_a_random_start_are_global() -> None:
    """From a random start the local end solves stop on local fronts (g about 50 to 150);
    they disagree, and the global search finds g = 1 at both ends."""
    problems = pytest.importorskip("pymoo.problems")
    prob = problems.get_problem("zdt4", n_var=5)
    x0 = prob.xl + (prob.xu - prob.xl) * np.random.default_rng(0).random(5)
    solver = ps.adapters.from_pymoo(prob, x0=x0)
    for k in (0, 1):
        sol = solver.solve_end(k)
        assert sol.info["global"] is True
        assert zdt4_g(sol.objectives[None, :])[0] < 1.0 + 1e-6
        # f1 = x1 = 0; f2 = 0 at x1 = 1, g = 1: each within the hold of 1e-6 of how far the
        # solve moved it from x0
        moved = solver.evaluate(x0)[k]
        assert sol.objectives[k] <= 2e-6 * moved


def test_zdt6s_end_from_its_flat_start_is_the_least_f1() -> None:
    """ZDT6 from the box centre: objective 1's gradient vanishes there, so a local solve of
    f1 alone stays at f1 = 1, or (testing its stationary start) reaches the bottom of a hump
    near it; the true least lies on the first hump of ``sin^6``, near
    ``x1 = 1/12`` (found here by a fine grid)."""
    problems = pytest.importorskip("pymoo.problems")
    solver = ps.adapters.from_pymoo(problems.get_problem("zdt6", n_var=10))
    local = solver.solve(1.0, None).objectives[0]  # leaves the flat start for a hump's bottom
    sol = solver.solve_end(0)
    assert sol.info["global"] is True
    x1 = np.linspace(0.0, 1.0 / 6.0, 200_001)  # the first hump, where the least lies
    f1 = 1.0 - np.exp(-4.0 * x1) * np.sin(6.0 * np.pi * x1) ** 6
    assert sol.objectives[0] == pytest.approx(f1.min(), abs=1e-6)  # (0.2808, not 1)
    assert local > f1.min() + 0.1  # (measured: 0.8104, the bottom of the third hump)
    assert sol.state[0] == pytest.approx(x1[np.argmin(f1)], abs=1e-3)


def test_constrained_problems_keep_the_best_local_end() -> None:
    """No global search under the user's constraints (the search knows only the box)."""

    def objectives(x: FloatArray) -> FloatArray:
        return np.array([x[0] + np.sin(5 * x[1]), (1 - x[0]) + x[1] ** 2])

    cons = [{"type": "ineq", "fun": lambda x: 1.5 - x[0] - x[1]}]
    solver = ps.adapters.from_scipy(
        objectives, x0=[0.5, 0.5], bounds=[(0, 1), (-2, 2)], constraints=cons
    )
    for k in (0, 1):
        assert solver.solve_end(k).info["global"] is False


# ------------------------------------------------------------------------- between the ends
def test_start_between_interpolates_within_the_box_and_keeps_the_constraints() -> None:
    def objectives(x: FloatArray) -> FloatArray:
        return np.array([np.log(x[0]), (x[0] - 1.0) ** 2 + x[1] ** 2])

    solver = ps.adapters.from_scipy(
        objectives, x0=[0.5, 0.0], bounds=[(0.1, 2), (-1, 1)], scalarization="linear"
    )
    np.testing.assert_allclose(solver.start_between([0.5, -1.0], [1.5, 1.0], 0.25), [0.75, -0.5])
    np.testing.assert_allclose(solver.start_between([0.5, -1.0], [3.0, 1.0], 1.0), [2.0, 1.0])
    # a point that breaks the user's constraints while x0 keeps them
    cons = [{"type": "ineq", "fun": lambda x: 0.2 - abs(x[1])}]
    kept = ps.adapters.from_scipy(
        objectives,
        x0=[0.5, 0.0],
        bounds=[(0.1, 2), (-1, 1)],
        constraints=cons,
        scalarization="linear",
    )
    assert kept.start_between([0.5, -1.0], [0.5, 1.0], 0.2) is None  # x2 = -0.6
    np.testing.assert_allclose(kept.start_between([0.5, -1.0], [0.5, 1.0], 0.5), [0.5, 0.0])


def test_the_first_round_starts_between_the_ends_states() -> None:
    """Every inner slot's first solve starts on the segment between the two ends' states,
    at its place along it (the solver records the starts it is given)."""
    problems = pytest.importorskip("pymoo.problems")
    solver = ps.adapters.from_pymoo(problems.get_problem("zdt1", n_var=6))
    seen: dict[float, Any] = {}
    solve = solver.solve

    def recording(w: float, state: Any) -> ps.Solution:
        seen.setdefault(float(w), None if state is None else np.array(state))
        return solve(w, state)

    solver.solve = recording  # type: ignore[method-assign]
    res = quiet_surf(solver, 6, iterations=1, probes=False)
    a, b = (np.asarray(s) for s in res.front_ends.states)
    weights = sorted(seen)
    assert len(weights) == 7
    for i, w in enumerate(weights[1:-1], start=1):
        np.testing.assert_allclose(seen[w], a + (i / 6) * (b - a), atol=1e-12)


# ------------------------------------------------------------------------- whole runs
def test_zdt4_from_a_random_start_reaches_its_front_with_the_defaults() -> None:
    """Before: every point on a local front (g about 100, ``local_minima``). Now every point
    has g = 1, and the run says so."""
    problems = pytest.importorskip("pymoo.problems")
    prob = problems.get_problem("zdt4", n_var=5)
    x0 = prob.xl + (prob.xu - prob.xl) * np.random.default_rng(0).random(5)
    res = quiet_surf(ps.adapters.from_pymoo(prob, x0=x0), 11, iterations=10)
    g = zdt4_g(res.points)
    assert np.all(g < 1.0 + 1e-5)
    f1 = np.sort(res.points[:, 0])
    assert f1[0] < 1e-4 and f1[-1] > 1 - 1e-4  # end to end
    assert res.success, [f.line() for f in res.findings]


def shrunk(x: FloatArray) -> FloatArray:
    """A dead zone around the origin: ``x`` pulled 0.5 towards it (0 inside the ball)."""
    r = float(np.linalg.norm(x))
    return x * max(0.0, 1.0 - 0.5 / r) if r > 0 else np.zeros_like(x)


C1 = np.array([1.5, 1.0, 1.2])
C2 = np.array([-1.0, 1.4, 1.1])


def flat_start_objectives(x: FloatArray) -> FloatArray:
    y = shrunk(x)
    return np.array([np.sum((y - C1) ** 2), np.sum((y - C2) ** 2)])


@pytest.mark.parametrize("scalarization", ["linear", "tchebycheff"])
def test_a_flat_start_reaches_the_whole_front(scalarization: str) -> None:
    """Both objectives are constant around ``x0 = 0`` (every gradient zero there): the local
    solves from x0 do not move. The front is ``y`` on the segment from C1 to C2:
    ``f1 = t^2 D``, ``f2 = (1 - t)^2 D``, D the squared distance."""
    solver = ps.adapters.from_scipy(
        flat_start_objectives, x0=np.zeros(3), bounds=[(-3, 3)] * 3, scalarization=scalarization
    )
    assert np.all(solver.solve(0.5, None).state == 0.0)  # stuck at the flat start
    res = quiet_surf(solver, 8, iterations=12)
    d = float(np.sum((C2 - C1) ** 2))
    t = np.sqrt(res.points[:, 0] / d)
    np.testing.assert_allclose(res.points[:, 1], (1 - t) ** 2 * d, atol=1e-4 * d)
    assert res.points[:, 0].min() < 0.01 * d and res.points[:, 1].min() < 0.05 * d
    assert res.success, [f.line() for f in res.findings]


@pytest.mark.parametrize(("warm_start", "code"), [("slot", "local_minima"), ("best", "jump")])
def test_zdt6_under_weighted_sums_names_the_non_convex_front(warm_start: str, code: str) -> None:
    """ZDT6's front is concave: weighted sums reach only its ends. Slots that keep their own
    warm starts stop in local minima between (humps of f1); with ``warm_start="best"``
    they reach the ends and the front jumps between them. Either way the
    run says so, and points to the Tchebycheff scalarization, rather than calling the solver
    stuck."""
    problems = pytest.importorskip("pymoo.problems")
    res = quiet_surf(
        ps.adapters.from_pymoo(problems.get_problem("zdt6", n_var=6), scalarization="linear"),
        11,
        iterations=6,
        warm_start=warm_start,
    )
    codes = [f.code for f in res.findings]
    assert not res.success
    assert "stuck" not in codes and code in codes, codes
    named = next(f for f in res.findings if f.code == code)
    assert "tchebycheff" in (named.remedy or "").lower()
    if code == "jump":  # only the ends are reached: f1's least and f2's
        assert np.ptp(res.points[:, 0]) > 0.7 and len(np.unique(res.points.round(6), axis=0)) < 8


# ------------------------------------------------------------------------- scalarization="auto"
def concave(x: FloatArray) -> FloatArray:
    """A concave front: ``f2 = 1 - f1^2`` for ``f1 = x1`` in [0, 1] (and x2 adds to both)."""
    return np.array([x[0] + x[1] ** 2, 1.0 - x[0] ** 2 + x[1] ** 2])


def convex(x: FloatArray) -> FloatArray:
    return np.array([x[0] ** 2 + x[1] ** 2, (x[0] - 1.0) ** 2 + x[1] ** 2])


def test_auto_takes_the_weighted_sum_on_a_convex_front_and_tchebycheff_on_a_concave_one() -> None:
    box = [(0.0, 1.0), (-1.0, 1.0)]
    assert ps.adapters.from_scipy(convex, x0=[0.5, 0.5], bounds=box).scalarization.kind == (
        "linear"
    )
    solver = ps.adapters.from_scipy(concave, x0=[0.5, 0.5], bounds=box)
    assert solver.scalarization.kind == "tchebycheff"
    assert "non-convex" in solver.scalarization_note
    np.testing.assert_array_less(solver.ideal, np.full(2, 1e-12))  # below the ends
    # the whole concave front, end to end and evenly (weighted sums reach only its ends)
    res = quiet_surf(solver, 8, iterations=20)
    f1, f2 = res.points.T
    np.testing.assert_allclose(f2, 1.0 - f1**2, atol=1e-6)
    assert f1.min() < 1e-6 and f1.max() > 1 - 1e-6
    assert res.success, [f.line() for f in res.findings]
    # the same problem under the weighted sum: only the ends
    linear = quiet_surf(
        ps.adapters.from_scipy(concave, x0=[0.5, 0.5], bounds=box, scalarization="linear"),
        8,
        iterations=5,
    )
    assert not linear.success


def test_auto_counts_its_calls_in_the_run_and_solves_no_end_twice() -> None:
    calls = [0]

    def counted(x: FloatArray) -> FloatArray:
        calls[0] += 1
        return concave(x)

    solver = ps.adapters.from_scipy(counted, x0=[0.5, 0.5], bounds=[(0.0, 1.0), (-1.0, 1.0)])
    made = calls[0]
    assert made > 10  # the ends and the chord test, when made
    res = quiet_surf(solver, 6, iterations=4)
    assert res.n_evaluations == calls[0] - 1  # all but objectives(x0), which checks x0
    again = solver.solve_end(0)
    assert again.info["objective_calls"] == 0  # found before: not solved again


def test_auto_without_a_box_or_with_three_objectives_is_the_weighted_sum() -> None:
    unboxed = ps.adapters.from_scipy(concave, x0=[0.5, 0.5])
    assert unboxed.scalarization.kind == "linear" and "no finite box" in unboxed.scalarization_note

    def three(x: FloatArray) -> FloatArray:
        return np.array([x[0] ** 2, (x[0] - 1) ** 2, x[1] ** 2 + 1])

    assert ps.adapters.from_scipy(three, x0=[0.5, 0.5], bounds=[(0, 1)] * 2).scalarization.kind == (
        "linear"
    )


def test_auto_refuses_an_ideal_and_keeps_a_method_that_solves_no_epigraph() -> None:
    box = [(0.0, 1.0), (-1.0, 1.0)]
    with pytest.raises(ValueError, match="name it"):
        ps.adapters.from_scipy(concave, x0=[0.5, 0.5], bounds=box, ideal=[-1.0, -1.0])
    kept = ps.adapters.from_scipy(concave, x0=[0.5, 0.5], bounds=box, method="L-BFGS-B")
    assert kept.scalarization.kind == "linear" and "L-BFGS-B" in kept.scalarization_note


def test_zdt2_reaches_its_concave_front_with_from_pymoos_defaults() -> None:
    problems = pytest.importorskip("pymoo.problems")
    solver = ps.adapters.from_pymoo(problems.get_problem("zdt2", n_var=6))
    assert solver.scalarization.kind == "tchebycheff"
    res = quiet_surf(solver, 10, iterations=10)
    f1, f2 = res.points.T
    np.testing.assert_allclose(f2, 1.0 - f1**2, atol=1e-5)  # g = 1: on the front
    assert f1.min() < 1e-5 and f1.max() > 1 - 1e-5
    assert res.success, [f.line() for f in res.findings]


# ------------------------------------------------------------------------- runs that cannot move
def test_a_weighted_sum_run_whose_points_stay_put_ends_early() -> None:
    """ZDT6 under weighted sums: from the first rounds on no point moves (ends and local
    minima) while the weights do; the run ends with ``stop_reason="stuck"`` instead of
    spending its 30 rounds, and still says why."""
    problems = pytest.importorskip("pymoo.problems")
    from paretosurf.loop._driver import STUCK_STOP_ROUNDS

    def solver() -> Any:
        return ps.adapters.from_pymoo(problems.get_problem("zdt6", n_var=6), scalarization="linear")

    # (the probes, on by default, move one stuck slot across to an end every few rounds:
    # the points then do not stay put)
    res = quiet_surf(solver(), 11, iterations=30, warm_start="slot", probes=False)
    assert res.stop_reason == "stuck"
    assert STUCK_STOP_ROUNDS <= len(res.history) < 30
    assert "local_minima" in [f.code for f in res.findings] and not res.success
    last = res.history[-STUCK_STOP_ROUNDS:]
    assert all(np.array_equal(r.points, last[-1].points) for r in last)  # really frozen
    full = quiet_surf(solver(), 11, iterations=12, early_stopping=False, probes=False)
    assert full.stop_reason == "iterations" and len(full.history) == 12


def test_an_exact_solver_on_a_front_of_few_points_is_not_stopped_as_stuck() -> None:
    """Three Pareto points, each the weighted sum's minimizer over a range of weights: the
    points stay put as the weights move, but none is beaten at its weight, so the run is
    not stuck (it stops as its own rules say)."""
    front = np.array([[0.0, 1.0], [0.3, 0.3], [1.0, 0.0]])

    def solve(w: float, state: Any) -> ps.Solution:
        values = w * front[:, 0] + (1.0 - w) * front[:, 1]
        return ps.Solution(front[int(np.argmin(values))], state=None)

    res = quiet_surf(solve, 6, iterations=15)
    assert res.stop_reason != "stuck"


def test_an_end_start_outside_the_objectives_domain_is_skipped() -> None:
    """The objectives are NaN where x1 > 0.8 (inside the box): an end solve from a start
    there gives no finite end, and the ends from the other starts decide (before, comparing
    them failed with an empty argmin). The front: x1 in [0, 0.7], x2 = 0."""

    def objectives(x: FloatArray) -> FloatArray:
        if x[0] > 0.8:
            return np.array([np.nan, np.nan])
        return np.array([x[0] ** 2 + x[1] ** 2, (x[0] - 0.7) ** 2 + x[1] ** 2])

    solver = ps.adapters.from_scipy(objectives, x0=[0.3, 0.3], bounds=[(0, 1), (-1, 1)])
    for k, end in ((0, [0.0, 0.49]), (1, [0.49, 0.0])):
        sol = solver.solve_end(k)
        # (within the hold: the end's own objective within 1e-6 of its scale, 1.8e-7 here,
        # lets x1 = 4e-4 and moves the other by 6e-4)
        np.testing.assert_allclose(sol.objectives, end, atol=1e-3)
        assert sol.objectives[k] < 1e-6
    res = quiet_surf(solver, 6, iterations=10)
    t = np.sqrt(res.points[:, 0])  # x1 on the front
    np.testing.assert_allclose(res.points[:, 1], (t - 0.7) ** 2, atol=1e-6)
    assert res.success, [f.line() for f in res.findings]
