"""The ends of a front in three or more objectives, verified after the run
(:mod:`paretosurf.findings._extremes`): each objective's end, solved from the reported point
where it is least, against the reported points.

The flat-end curve ``(t^2, 2 t^4 + t^2, (1 - t)^2)``, ``t`` in ``[0, 1]``: objective 3
flattens at its best (``t = 1``), and the floors of ``"asf"`` and ``"tchebycheff"`` keep every
weight from the last stretch of the curve; the runs reported success over 94% and 97% of it.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.adapters import Scalarization
from paretosurf.findings import (
    FrontEnds,
    extreme_slots,
    extremes_finding,
    solves_local_ends,
    verify_extremes,
)


def flat_end_curve(t: np.ndarray) -> np.ndarray:
    return np.c_[t**2, 2.0 * t**4 + t**2, (1.0 - t) ** 2]


def flat_end_objectives(x: np.ndarray) -> np.ndarray:
    """The curve at ``t = x[0]``, plus a distance term of the other variables (zero at 0.3)."""
    return flat_end_curve(np.array([x[0]]))[0] + np.sum((x[1:] - 0.3) ** 2)


def flat_end_solver(scalarization: Any = "asf") -> Any:
    x0 = np.random.default_rng(0).uniform(0.0, 1.0, 4)
    return ps.adapters.from_scipy(
        flat_end_objectives, x0=x0, bounds=[(0.0, 1.0)] * 4, scalarization=scalarization
    )


def curve_parameter(points: np.ndarray) -> np.ndarray:
    """``t`` of points on the curve (``f1 = t^2`` there)."""
    return np.sqrt(np.clip(points[:, 0], 0.0, None))


def lexicographic(points: list[list[float]]) -> FrontEnds:
    m = len(points)
    return FrontEnds(
        np.array(points, dtype=np.float64), ("lexicographic",) * m, (0.0,) * m, np.ones(m)
    )


# ------------------------------------------------------------------ the pieces


def test_extreme_slots_take_each_objectives_least_point_and_break_ties() -> None:
    points = np.array(
        [
            [0.0, 3.0, 1.0],  # objective 1 least here and at the next, with more of the others
            [0.0, 1.0, 2.0],
            [2.0, 0.0, 5.0],
            [1.0, 2.0, 0.0],
        ]
    )
    # ties on objective 1: scaled others 1 + 0.2 at slot 0, 1/3 + 0.4 at slot 1
    assert extreme_slots(points) == [1, 2, 3]


def test_solves_local_ends_reads_the_signature() -> None:
    class Local:
        def solve_end(self, objective: int, state: Any, *, local: bool = False) -> None:
            return None

    class Global:
        def solve_end(self, objective: int, state: Any) -> None:
            return None

    assert solves_local_ends(Local())
    assert not solves_local_ends(Global())
    assert not solves_local_ends(lambda w, s: None)
    assert solves_local_ends(flat_end_solver())


def test_an_end_beyond_the_points_of_a_curve_is_named_with_its_distance() -> None:
    t = np.linspace(0.0, 0.8, 9)
    points = np.c_[t, t, 1.0 - t]
    ends = lexicographic([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    finding = extremes_finding(points, points, ends, ends.points, curve=True)
    assert finding is not None and finding.code == "coverage"
    # the end (1, 1, 0) lies 0.2 * sqrt(3) beyond the last point; the spacing is 0.1 * sqrt(3)
    assert "2.0 spacings beyond the points where objective 3 is at its best" in finding.summary
    assert "objective 1" not in finding.summary  # that end is the first point
    # the whole segment: every end reached
    whole = np.c_[np.linspace(0, 1, 11), np.linspace(0, 1, 11), np.linspace(1, 0, 11)]
    assert extremes_finding(whole, whole, ends, ends.points, curve=True) is None
    # within a quarter of a spacing: reached
    near = lexicographic([[0.0, 0.0, 1.0]] * 2 + [[1.02, 1.02, -0.02]])
    assert extremes_finding(whole, whole, near, near.points, curve=True) is None


def test_an_end_a_point_dominates_is_no_finding() -> None:
    t = np.linspace(0.0, 0.8, 9)
    points = np.c_[t, t, 1.0 - t]
    # "ends" worse than a reported point: the solve stopped off the front
    ends = lexicographic([[0.0, 0.0, 1.5]] * 2 + [[0.9, 0.9, 0.5]])
    assert extremes_finding(points, points, ends, ends.points, curve=True) is None


def test_a_surface_missing_a_corner_is_named() -> None:
    # the simplex f1 + f2 + f3 = 1 on a lattice, less the points near the corner (0, 0, 1)
    lattice = (
        np.array([(i, j, 8 - i - j) for i in range(9) for j in range(9 - i)], dtype=np.float64)
        / 8.0
    )
    corners = lexicographic([[0.0, 0.5, 0.5], [0.5, 0.0, 0.5], [0.5, 0.5, 0.0]])
    assert extremes_finding(lattice, lattice, corners, corners.points, curve=False) is None
    missing = lattice[lattice[:, 2] <= 0.6]
    tip = lexicographic([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.5, 0.5, 0.0]])
    finding = extremes_finding(missing, missing, tip, tip.points, curve=False)
    assert finding is not None
    assert "objective 1" in finding.summary
    # the same corner with the lattice whole
    assert extremes_finding(lattice, lattice, tip, tip.points, curve=False) is None


def test_an_end_in_a_hole_of_evenly_spread_points_is_no_finding() -> None:
    """Evenly spread points leave holes of their own: the middle of a lattice triangle lies
    d / sqrt(3) = 0.58 spacings from its three points. An end there is covered; one a whole
    spacing beyond the lattice is not."""
    lattice = (
        np.array([(i, j, 8 - i - j) for i in range(9) for j in range(9 - i)], dtype=np.float64)
        / 8.0
    )
    spacing = float(np.mean(ps.metrics.nn_distances(lattice)))
    middle = np.array([13.0, 10.0, 1.0]) / 24.0  # the middle of (4, 4, 0), (5, 3, 0), (4, 3, 1)
    assert np.min(np.linalg.norm(lattice - middle, axis=1)) == pytest.approx(spacing / np.sqrt(3.0))
    inside = lexicographic([[0.0, 0.5, 0.5], [0.5, 0.0, 0.5], middle.tolist()])
    assert extremes_finding(lattice, lattice, inside, inside.points, curve=False) is None
    # the lattice less its row f3 = 0: the edge's middle lies one spacing beyond the points
    short = lattice[lattice[:, 2] > 0.0]
    edge = lexicographic([[0.0, 0.5, 0.5], [0.5, 0.0, 0.5], [0.5, 0.5, 0.0]])
    finding = extremes_finding(short, short, edge, edge.points, curve=False)
    assert finding is not None and "objective 3" in finding.summary


# ------------------------------------------------------------------ the adapter's local end


def test_local_end_solves_from_the_state_alone_to_the_closed_form_end() -> None:
    solver = flat_end_solver()
    start = np.array([0.9, 0.3, 0.3, 0.3])
    end = solver.solve_end(2, start, local=True)
    assert end is not None and end.info["starts"] == 1 and not end.info["global"]
    # objective 3 alone, then the others: t = 1, the distance term at zero
    np.testing.assert_allclose(end.objectives, flat_end_curve(np.array([1.0]))[0], atol=1e-2)
    assert end.objectives[2] <= 1e-6
    assert end.info["objective_calls"] > 0
    with pytest.raises(ValueError, match="needs the state"):
        solver.solve_end(2, None, local=True)


def test_verify_extremes_solves_one_end_per_point() -> None:
    solver = flat_end_solver()
    t = np.linspace(0.0, 0.9, 10)
    states = [np.r_[ti, 0.3, 0.3, 0.3] for ti in t]
    points = np.array([flat_end_objectives(s) for s in states])
    ends = verify_extremes(solver, points, states)
    assert ends is not None
    # objectives 1 and 2 are least at t = 0 (one solve), objective 3 at t = 0.9
    assert ends.solves == 2 and ends.points.shape == (3, 3)
    np.testing.assert_array_equal(ends.points[0], ends.points[1])
    np.testing.assert_allclose(ends.points[0], flat_end_curve(np.array([0.0]))[0], atol=1e-2)
    np.testing.assert_allclose(ends.points[2], flat_end_curve(np.array([1.0]))[0], atol=1e-2)
    assert ends.evaluations > 0
    assert verify_extremes(lambda w, s: None, points, states) is None


# ------------------------------------------------------------------ the runs


@pytest.mark.parametrize("kind", ["asf", "tchebycheff"])
def test_a_run_that_misses_a_flat_end_says_so(kind: str) -> None:
    """The floors keep the points from the curve's last stretch (judged by the closed form:
    t short of 1 by more than a quarter of a spacing); the run now says so."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf_simplex(flat_end_solver(kind), 21)
    t = curve_parameter(res.points)
    assert t.max() < 0.99  # the points do stop short of t = 1
    assert not res.success
    (coverage,) = [f for f in res.findings if f.code == "coverage"]
    assert "where objective 3 is at its best" in coverage.summary
    assert "floor" in coverage.message
    # the verified end is the curve's, and its solves are counted
    assert res.front_ends is not None
    np.testing.assert_allclose(res.front_ends.points[2], [1.0, 3.0, 0.0], atol=1e-2)
    assert res.n_evaluations is not None
    assert res.n_evaluations == res.front_ends.evaluations + sum(
        int(np.sum(r.evaluations)) for r in res.history
    )


def test_a_smaller_floor_reaches_the_end_and_succeeds() -> None:
    """The remedy the finding names: with a floor of 1e-8 the points reach the end."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf_simplex(flat_end_solver(Scalarization("asf", floor=1e-8)), 21)
    assert res.success, res.message
    t = curve_parameter(res.points)
    assert t.min() <= 0.01 and t.max() >= 0.995


def test_a_run_read_back_does_not_solve_its_ends_again(tmp_path: Path) -> None:
    counted = {"calls": 0}

    def objectives(x: np.ndarray) -> np.ndarray:
        counted["calls"] += 1
        return flat_end_objectives(x)

    def solver() -> Any:
        x0 = np.random.default_rng(0).uniform(0.0, 1.0, 4)
        return ps.adapters.from_scipy(
            objectives, x0=x0, bounds=[(0.0, 1.0)] * 4, scalarization="asf"
        )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf_simplex(solver(), 21, checkpoint=tmp_path / "run")
        reader = solver()
        counted["calls"] = 0
        again = ps.surf_simplex(reader, 21, checkpoint=tmp_path / "run", resume=True, iterations=0)
    assert counted["calls"] == 0
    assert [f.to_dict() for f in again.findings] == [f.to_dict() for f in res.findings]
    assert again.front_ends is not None and res.front_ends is not None
    np.testing.assert_array_equal(again.front_ends.points, res.front_ends.points)
    assert again.n_evaluations == res.n_evaluations


def test_a_solver_without_local_ends_is_not_verified() -> None:
    class Plane:
        """The exact front f1 + f2 + f3 = 1: the weight vector itself."""

        def solve(self, w: np.ndarray, state: Any) -> ps.Solution:
            return ps.Solution(np.asarray(w, dtype=np.float64))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf_simplex(Plane(), 15, 3, iterations=3)
    assert res.front_ends is None
    assert "coverage" not in [f.code for f in res.findings]


def test_on_dtlz2_the_verified_ends_are_its_corners_and_the_run_succeeds() -> None:
    """DTLZ2 (closed form: the unit sphere's octant): each objective's verified end lies on
    the sphere with that objective at 0, and the points reach them."""

    def dtlz2(x: np.ndarray) -> np.ndarray:
        g = float(np.sum((x[2:] - 0.5) ** 2))
        a, b = x[0] * np.pi / 2, x[1] * np.pi / 2
        return (1 + g) * np.array([np.cos(a) * np.cos(b), np.cos(a) * np.sin(b), np.sin(a)])

    solver = ps.adapters.from_scipy(
        dtlz2, x0=np.full(6, 0.5), bounds=[(0.0, 1.0)] * 6, scalarization="asf"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf_simplex(solver, 15)
    assert res.success, res.message
    assert res.front_ends is not None
    ends = res.front_ends.points
    np.testing.assert_allclose(np.linalg.norm(ends, axis=1), 1.0, atol=1e-4)
    np.testing.assert_allclose(np.diag(ends), 0.0, atol=1e-4)


CENTRES = np.eye(3)


def three_bowls(x: np.ndarray) -> np.ndarray:
    """Objective k: (1 + k) |x - e_k|^2; each flattens at its best (its corner of the front,
    objective k at 0 and each other objective j at (1 + j) * 2)."""
    return np.array([(1.0 + k) * np.sum((x - c) ** 2) for k, c in enumerate(CENTRES)])


def bowls_run(**options: Any) -> ps.Result:
    solver = ps.adapters.from_scipy(
        three_bowls, x0=np.full(3, 0.2), bounds=[(-1.0, 2.0)] * 3, scalarization="asf"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        return ps.surf_simplex(solver, 21, iterations=12, early_stopping=False, **options)


def test_a_surface_run_read_back_says_what_the_run_said(tmp_path: Path) -> None:
    """The corners of three bowls under "asf": the run's points stop short of the corner
    where objective 1 is at its best, judged against the closed form (the corner (0, 4, 6)
    in units of the front's ranges (2, 4, 6), more than half a spacing from every point).
    The run read back from its folder measures in the coordinates the run ended in: before,
    it measured the same ends in raw objectives and said 1.7 spacings instead of 1.1."""
    res = bowls_run(checkpoint=tmp_path / "run")
    again = bowls_run(checkpoint=tmp_path / "run", resume=True)
    assert [f.to_dict() for f in again.findings] == [f.to_dict() for f in res.findings]
    (coverage,) = [f for f in res.findings if f.code == "coverage"]
    assert "objective 1 is at its best" in coverage.summary
    ranges = np.array([2.0, 4.0, 6.0])
    scaled = res.points / ranges
    corner = np.array([0.0, 4.0, 6.0]) / ranges
    spacing = float(np.mean(ps.metrics.nn_distances(scaled)))
    assert np.min(np.linalg.norm(scaled - corner, axis=1)) > 0.5 * spacing
