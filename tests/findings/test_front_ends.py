"""The front's ends, verified before the first round: a run either covers the front from end
to end or says ``coverage``; ``weight_bounds`` act in the run's units; ``"auto"`` finds
bounds that clip nothing. Every check is against closed forms computed here."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.findings._front_ends import FrontEnds, coverage_finding, find_ends
from paretosurf.loop._spacing_options import solver_weights
from paretosurf.testing import assert_same_result

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import whole_front_bank as bank

N_VARS = 10
BOX = [(0.0, 1.0)] * N_VARS


def zdt1_in_other_units(x: np.ndarray) -> np.ndarray:
    """ZDT1 with f2 in units 1000 times smaller: front f2 = 1000 (1 - sqrt(f1))."""
    g = 1.0 + 9.0 * np.mean(x[1:])
    return np.array([x[0], 1000.0 * g * (1.0 - np.sqrt(x[0] / g))])


def quiet_surf(solver: Any, **kwargs: Any) -> ps.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        return ps.surf(solver, **kwargs)


def covered(points: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The share of each objective's true range [lo, hi] that ``points`` span."""
    return np.ptp(points, axis=0) / (hi - lo)


class RidgePath:
    """The bank's ill-conditioned ridge path (``benchmarks/whole_front_bank.py``), solved
    exactly; its ends in closed form (at w = 0 x = 0, at w = 1 the least-squares solution)."""

    def __init__(self, cond: float = 1e5, seed: int = 0) -> None:
        self.problem = bank.RidgeProblem.make(condition=cond, seed=seed)
        self.solve = self.problem.solver()

    def true_ends(self) -> tuple[np.ndarray, np.ndarray]:
        """(end at w = 0, end at w = 1), in closed form."""
        return self.problem.front(np.array([0.0, 1.0]))[0], self.problem.front(np.array([1.0]))[0]


# ------------------------------------------------------------------ the run's units
def test_a_bound_in_the_runs_units_is_a_raw_bound_on_the_scaled_objectives() -> None:
    scales = np.array([2.0, 5e3])
    w = np.array([0.0, 0.1, 0.5, 0.9, 1.0])
    raw = solver_weights(w, (0.0, 1.0), scales)
    # w h1 / s1 + (1 - w) h2 / s2 is proportional to raw h1 + (1 - raw) h2
    ratio = (w[1:-1] / scales[0]) / ((1 - w[1:-1]) / scales[1])
    np.testing.assert_allclose(raw[1:-1] / (1 - raw[1:-1]), ratio, rtol=1e-9)
    assert raw[0] == 0.0 and raw[-1] == 1.0
    assert np.all(np.diff(raw) > 0)
    bounded = solver_weights(w, (0.01, 0.99), scales)
    np.testing.assert_allclose(
        bounded[[0, -1]], solver_weights(np.array([0.01, 0.99]), (0, 1), scales)
    )


def test_ends_round_trip_as_json_and_in_a_saved_result(tmp_path: Path) -> None:
    solver = ps.adapters.from_scipy(zdt1_in_other_units, np.full(N_VARS, 0.5), bounds=BOX)
    res = quiet_surf(solver, n_points=6, iterations=3)
    assert res.front_ends is not None
    back = FrontEnds.from_json(res.front_ends.to_json())
    np.testing.assert_array_equal(back.points, res.front_ends.points)
    res.save(tmp_path / "r")
    loaded = ps.Result.load(tmp_path / "r")
    assert loaded.front_ends is not None and loaded.front_ends.how == res.front_ends.how
    assert loaded.n_evaluations == res.n_evaluations


# ------------------------------------------------------------------ adapters pose their ends
def test_the_adapters_end_is_the_pareto_end_of_a_flat_face() -> None:
    solver = ps.adapters.from_scipy(zdt1_in_other_units, np.full(N_VARS, 0.5), bounds=BOX)
    # objective 1 alone leaves f2 anywhere on the face f1 = 0 (here g stays 5.5) ...
    assert solver.solve(1.0, None).objectives[1] > 5000
    # ... the end posed lexicographically is the front's: f1 = 0, f2 = 1000 (g = 1)
    end = solver.solve_end(0)
    assert end is not None
    assert end.objectives[0] <= 1e-6
    assert end.objectives[1] == pytest.approx(1000.0, rel=1e-3)
    assert solver.solve_end(1).objectives.tolist() == pytest.approx([1.0, 0.0], abs=1e-2)


def test_an_unbounded_variable_poses_no_end() -> None:
    solver = ps.adapters.from_scipy(lambda x: np.array([x[0] ** 2, (x[0] - 1) ** 2]), [0.5])
    assert solver.solve_end(0) is None


def test_objectives_in_other_units_reach_the_whole_front_without_bounds() -> None:
    solver = ps.adapters.from_scipy(zdt1_in_other_units, np.full(N_VARS, 0.5), bounds=BOX)
    res = quiet_surf(solver, n_points=21, iterations=30)
    f1, f2 = res.points.T
    assert res.success, res.message
    np.testing.assert_allclose(f2, 1000 * (1 - np.sqrt(f1)), rtol=1e-3, atol=0.5)  # on front
    assert covered(res.points, np.zeros(2), np.array([1.0, 1000.0])).min() >= 0.99


@pytest.mark.parametrize("bounds", [(1e-3, 0.999), "auto"])
def test_bounds_in_the_runs_units_clip_nothing_where_raw_bounds_clipped_half(
    bounds: Any,
) -> None:
    # raw bounds (1e-3, 0.999) stopped at f1 = 0.25: half of f2's range was lost, with
    # success=True; in the run's units the same bounds reach the whole front
    solver = ps.adapters.from_scipy(zdt1_in_other_units, np.full(N_VARS, 0.5), bounds=BOX)
    res = quiet_surf(solver, n_points=21, iterations=30, weight_bounds=bounds)
    assert res.success, res.message
    assert covered(res.points, np.zeros(2), np.array([1.0, 1000.0])).min() >= 0.95


def test_bounds_that_clip_the_front_fail_with_coverage_and_the_shares() -> None:
    solver = ps.adapters.from_scipy(zdt1_in_other_units, np.full(N_VARS, 0.5), bounds=BOX)
    res = quiet_surf(solver, n_points=11, iterations=12, weight_bounds=(0.2, 0.8))
    assert not res.success
    (f,) = [f for f in res.findings if f.code == "coverage"]
    assert f.fatal and "weight_bounds=(0.2, 0.8)" in f.message
    assert f.remedy_text() == "weight_bounds='auto' (or no bounds)"
    # the shares it names are those of the points against the true ranges
    assert res.front_ends is not None
    ends = res.front_ends.points
    share = covered(res.points, ends.min(axis=0), ends.max(axis=0))
    assert f"{100 * share[0]:.0f}% of objective 1" in f.message
    assert f"{100 * share[1]:.0f}% of objective 2" in f.message
    assert share.min() < 0.95


# ------------------------------------------------------------------ a user's own solver
def test_a_ridge_path_with_habitual_bounds_covers_its_front_or_says_so() -> None:
    path = RidgePath()
    lo_end, hi_end = path.true_ends()
    lo = np.minimum(lo_end, hi_end)
    hi = np.maximum(lo_end, hi_end)
    for bounds in [(1e-3, 0.999), "auto"]:
        res = quiet_surf(path.solve, n_points=21, iterations=30, weight_bounds=bounds)
        if res.success:  # never a success on part of the front
            assert covered(res.points, lo, hi).min() >= 0.95, bounds
    # a milder ridge path: "auto" reaches it all, and succeeds
    path = RidgePath(cond=1e3)
    lo_end, hi_end = path.true_ends()
    lo = np.minimum(lo_end, hi_end)
    hi = np.maximum(lo_end, hi_end)
    res = quiet_surf(path.solve, n_points=21, iterations=30, weight_bounds="auto")
    assert res.success, res.message
    assert covered(res.points, lo, hi).min() >= 0.95
    assert res.front_ends is not None and res.front_ends.how == ("approach", "approach")
    # the approached ends are the closed-form ends, within a share of a spacing
    ends = res.front_ends.points
    span = hi - lo
    assert np.max(np.abs((ends[0] - lo_end) / span)) < 0.25 / 20
    assert np.max(np.abs((ends[1] - hi_end) / span)) < 0.25 / 20


def test_raw_bounds_that_clip_a_plain_solvers_front_are_found() -> None:
    path = RidgePath(seed=3)
    res = quiet_surf(path.solve, n_points=11, iterations=15, weight_bounds=(0.3, 0.7))
    assert not res.success
    assert "coverage" in {f.code for f in res.findings}


def test_an_end_without_a_minimizer_is_a_limit_and_the_run_goes_on() -> None:
    def solve(w: float, state: Any) -> ps.Solution:
        # min w / x + (1 - w) x^2 over x > 0: x = (w / (2 (1 - w)))^(1/3), which runs
        # away as w -> 1 (objective 1 only approaches 0); at w = 1 no minimizer
        if w >= 1.0:
            return ps.Solution([0.0, np.inf])
        x = max((w / (2.0 * (1.0 - w))) ** (1.0 / 3.0), 1e-6)
        return ps.Solution([1.0 / x, x * x], state=x)

    res = quiet_surf(solve, n_points=8, iterations=6, weight_bounds="auto")
    assert res.front_ends is not None
    assert res.front_ends.how[1] == "limit"
    assert res.front_ends.how[0] == "approach"
    assert np.all(np.isfinite(res.points))


def test_a_short_end_solve_is_named_against_the_solvers_own_end() -> None:
    class ShortAtZero:
        """Exact on (1 - x)^2, x^2 (x = w) except that no solve gets below x = 0.3."""

        def solve(self, w: float, state: Any) -> ps.Solution:
            x = max(w, 0.3)
            return ps.Solution([(1 - x) ** 2, x**2], state=x)

        def solve_end(self, objective: int, state: Any) -> ps.Solution:
            x = 1.0 if objective == 0 else 0.0
            return ps.Solution([(1 - x) ** 2, x**2], state=x)

    res = quiet_surf(ShortAtZero(), n_points=11, iterations=8)
    assert not res.success
    (f,) = [f for f in res.findings if f.code == "coverage"]
    assert "stopped short" in f.message and f.slots == (0,)


def test_a_finding_only_where_an_end_lies_beyond_a_spacing() -> None:
    ends = FrontEnds(
        np.array([[1.0, 0.0], [0.0, 1.0]]), ("approach", "approach"), (0, 0), np.ones(2)
    )
    t = np.linspace(0.0, 1.0, 11)
    whole = np.c_[1 - t, t]
    assert coverage_finding(whole, whole, ends, ends.points, bounds=None) is None
    # the ends just inside half a spacing: still covered
    inner = np.c_[1 - (0.04 + 0.92 * t), 0.04 + 0.92 * t]
    assert coverage_finding(inner, inner, ends, ends.points, bounds=None) is None
    short = np.c_[1 - 0.8 * t, 0.8 * t]
    f = coverage_finding(short, short, ends, ends.points, bounds=None)
    assert f is not None and f.slots == (10,)
    # an end that is a limit (no minimizer) is not held against the run
    limit = FrontEnds(ends.points, ("approach", "limit"), (0, 0), np.ones(2))
    assert coverage_finding(short, short, limit, ends.points, bounds=None) is None


def test_find_ends_needs_nothing_without_bounds_or_solve_end() -> None:
    def never(ws: Any, states: Any) -> Any:
        raise AssertionError("no solve expected")

    assert find_ends(None, never, bounds=None, normalize="endpoints", n_segments=4) is None


# ------------------------------------------------------------------ options and resume
def test_weight_bounds_options_are_checked() -> None:
    solver = RidgePath().solve
    with pytest.raises(ValueError, match="weight_bounds"):
        ps.surf(solver, 4, iterations=1, weight_bounds="automatic")
    with pytest.raises(ValueError, match="weight_bounds='auto'"):
        ps.methods.uniform(solver, 4, iterations=1, weight_bounds="auto")


def test_a_resumed_run_with_ends_is_the_uninterrupted_run(tmp_path: Path) -> None:
    def make() -> Any:
        return ps.adapters.from_scipy(zdt1_in_other_units, np.full(N_VARS, 0.5), bounds=BOX)

    # (probes off: this checks the ends; resume with probes is checked with the probes)
    full = quiet_surf(make(), n_points=11, iterations=6, early_stopping=False, probes=False)
    folder = tmp_path / "run"
    quiet_surf(
        make(),
        n_points=11,
        iterations=3,
        early_stopping=False,
        probes=False,
        checkpoint=folder,
        checkpoint_period=0,
    )
    resumed = quiet_surf(
        make(),
        n_points=11,
        iterations=6,
        early_stopping=False,
        probes=False,
        checkpoint=folder,
        resume=True,
    )
    assert_same_result(full, resumed)
    assert resumed.front_ends is not None and full.front_ends is not None
    np.testing.assert_array_equal(resumed.front_ends.points, full.front_ends.points)
    assert resumed.n_evaluations == full.n_evaluations


def test_a_constrained_design_reaches_its_known_ends_within_its_constraints() -> None:
    # Binh and Korn's problem (docs/guide/constrained.md): the front runs from (0, 50) to
    # (136, 4); every point feasible
    def objectives(v: np.ndarray) -> np.ndarray:
        x, y = v
        return np.array([4 * x**2 + 4 * y**2, (x - 5) ** 2 + (y - 5) ** 2])

    def g1(v: np.ndarray) -> float:
        return float(25 - (v[0] - 5) ** 2 - v[1] ** 2)

    def g2(v: np.ndarray) -> float:
        return float((v[0] - 8) ** 2 + (v[1] + 3) ** 2 - 7.7)

    solver = ps.adapters.from_scipy(
        objectives,
        x0=[1.0, 1.0],
        bounds=[(0, 5), (0, 3)],
        constraints=[{"type": "ineq", "fun": g1}, {"type": "ineq", "fun": g2}],
    )
    res = quiet_surf(solver, n_points=21)
    assert res.success, res.message
    np.testing.assert_allclose(res.points[0], [136.0, 4.0], atol=1e-3)
    np.testing.assert_allclose(res.points[-1], [0.0, 50.0], atol=1e-3)
    for x in res.states:
        assert g1(x) >= -1e-6 and g2(x) >= -1e-6
    # on BNH's front x = y on [0, 3], then y = 3: f2 follows from f1 in closed form
    f1, f2 = res.points.T
    t = np.sqrt(f1[f1 <= 72] / 8)  # x = y = t
    np.testing.assert_allclose(f2[f1 <= 72], 2 * (t - 5) ** 2, rtol=1e-4, atol=1e-3)
