"""Solves that start on a flat spot: the box screened for the ends, the corners and a flat
start's probes, and probe starts recombined from two slots' states (pymoo's DTLZ4, whose
position variables enter as ``x^100``: flat over most of the box, the centre included).

Every figure is checked against the closed forms of the fronts (DTLZ4's is DTLZ2's: the
unit sphere's positive part), never against a run's own figures.
"""

from __future__ import annotations

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.adapters import from_scipy
from paretosurf.findings import lies_on_curve
from paretosurf.findings._degenerate import on_boundary
from paretosurf.loop._basin_probes import ProbeTally

pymoo_problems = pytest.importorskip("pymoo.problems")


def flat_circle(x: np.ndarray) -> np.ndarray:
    """Two objectives on [0, 1]^3: a quarter circle reached through ``x0^60``, flat near the
    box centre (``0.5^60`` is 9e-19)."""
    theta = x[0] ** 60 * np.pi / 2
    g = float(np.sum((x[1:] - 0.5) ** 2))
    return (1 + g) * np.array([np.cos(theta), np.sin(theta)])


def test_an_end_on_the_far_side_of_a_flat_spot_is_found() -> None:
    solver = from_scipy(flat_circle, x0=np.full(3, 0.5), bounds=[(0.0, 1.0)] * 3)
    end = solver.solve_end(0)  # objective 1 least: theta = pi / 2, the point (0, 1)
    assert end is not None
    assert end.objectives == pytest.approx([0.0, 1.0], abs=1e-6)
    assert end.info["screened"] is True
    # the other end needs no screen: the start is already at its least
    other = solver.solve_end(1)
    assert other is not None and other.objectives == pytest.approx([1.0, 0.0], abs=1e-6)
    assert other.info["screened"] is False


def test_ends_that_local_solves_reach_are_not_solved_again() -> None:
    def bowl(x: np.ndarray) -> np.ndarray:
        return np.array([x[0] ** 2 + x[1] ** 2, (x[0] - 1) ** 2 + x[1] ** 2])

    solver = from_scipy(bowl, x0=[0.3, 0.4], bounds=[(-1.0, 2.0)] * 2)
    ends = [solver.solve_end(k) for k in (0, 1)]
    assert all(e is not None and e.info["screened"] is False for e in ends)
    assert ends[0].objectives == pytest.approx([0.0, 1.0], abs=2e-3)


def test_the_screen_spreads_over_the_box_and_drops_infeasible_points() -> None:
    def objectives(x: np.ndarray) -> np.ndarray:
        return np.array([x[0], 1.0 - x[0] + x[1] ** 2])

    solver = from_scipy(
        objectives,
        x0=[0.2, 0.2],
        bounds=[(0.0, 1.0), (-1.0, 1.0)],
        constraints=[{"type": "ineq", "fun": lambda x: 1.0 - x[0] - x[1]}],
    )
    states, values, calls = solver.screen_starts(np.random.default_rng(0), 100)
    assert states.shape == (128, 2) and values.shape == (128, 2) and calls == 128
    assert np.all((states[:, 0] >= 0) & (states[:, 0] <= 1) & (np.abs(states[:, 1]) <= 1))
    # a scrambled Sobol sample fills each eighth of a variable's range with 16 points
    counts = np.histogram(states[:, 0], bins=8, range=(0.0, 1.0))[0]
    assert counts.tolist() == [16] * 8
    broken = states[:, 0] + states[:, 1] > 1.0
    assert np.all(np.isinf(values[broken])) and np.all(np.isfinite(values[~broken]))
    again = solver.screen_starts(np.random.default_rng(0), 100)
    assert np.array_equal(again[0], states)
    assert from_scipy(objectives, x0=[0.2, 0.2]).screen_starts(np.random.default_rng(0), 8) is None


def test_recombined_starts_take_each_variable_from_one_state() -> None:
    solver = from_scipy(flat_circle, x0=np.full(3, 0.5), bounds=[(0.0, 1.0)] * 3)
    a, b = np.array([0.1, 0.2, 0.3]), np.array([0.9, 0.8, 0.7])
    rng = np.random.default_rng(5)
    mixes = [solver.recombine(a, b, rng) for _ in range(40)]
    mixed = [m for m in mixes if m is not None]
    assert len(mixed) > 20
    for m in mixed:
        assert np.all((m == a) | (m == b))
        assert not np.array_equal(m, a) and not np.array_equal(m, b)


def dtlz4(n_obj: int) -> object:
    return pymoo_problems.get_problem("dtlz4", n_var=n_obj + 9, n_obj=n_obj)


def test_dtlz4_corners_give_the_true_ideal_point_and_no_units() -> None:
    solver = ps.adapters.from_pymoo(dtlz4(3), scalarization="asf")
    sc = solver.scalarization
    assert sc.ideal == pytest.approx(np.zeros(3), abs=1e-4)
    # the corner solves that stopped on the flat spot agree in an objective they never
    # moved; the box shows the objectives share their units
    assert sc.scales is None
    # ASF's minimizer at the middle weight lies on the ray through (1, 1, 1)
    start = np.full(12, 0.5)
    start[:2] = 0.98
    found = solver.solve(np.full(3, 1 / 3), start).objectives
    assert found == pytest.approx(np.full(3, 1 / np.sqrt(3)), abs=1e-4)


@pytest.mark.filterwarnings("ignore::paretosurf.ParetoWarning")
def test_dtlz4_with_two_objectives_leaves_its_flat_start() -> None:
    res = ps.surf(ps.adapters.from_pymoo(dtlz4(2), scalarization="modified_tchebycheff"), 21)
    pts = res.points
    # every point on the quarter circle; before the box was screened, 3 distinct points
    assert np.linalg.norm(pts, axis=1) == pytest.approx(np.ones(len(pts)), abs=1e-6)
    distinct = np.unique(np.round(pts, 4), axis=0)
    assert len(distinct) >= 15
    angles = np.arctan2(distinct[:, 1], distinct[:, 0])
    assert angles.min() < 0.05 and angles.max() > np.pi / 2 - 0.05
    codes = {f.code for f in res.findings}
    assert "probed" in codes
    # a gap along the circle wider than an eighth of it is reported
    if np.max(np.diff(np.sort(angles))) > np.pi / 8:
        assert not res.success and "uneven" in codes


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::paretosurf.ParetoWarning")
def test_dtlz4_surface_points_cover_the_whole_surface() -> None:
    res = ps.surf_simplex(ps.adapters.from_pymoo(dtlz4(3), scalarization="asf"), 28, 3)
    pts = res.points
    assert np.linalg.norm(pts, axis=1) == pytest.approx(np.ones(len(pts)), abs=1e-6)
    # points inside the surface: every objective above 0.05 (on the sphere's octant); 28
    # evenly spread points put 10 there (before the box was screened and states mixed,
    # every point sat on one vertex)
    inside = int(np.sum(np.all(pts > 0.05, axis=1)))
    assert inside >= 6
    # IGD against the octant of the unit sphere (a lattice of 1,891 directions): DTLZ2's run
    # of the same size, whose solves reach the front from the start, gets 0.116
    lattice = np.array([(i, j, 60 - i - j) for i in range(61) for j in range(61 - i)], float)
    sphere = lattice / np.linalg.norm(lattice, axis=1, keepdims=True)
    igd = float(np.mean(np.min(np.linalg.norm(sphere[:, None] - pts[None], axis=2), axis=1)))
    assert igd < 0.15
    if res.success:
        assert ps.metrics.nn_cv(pts) < 0.3
    else:
        assert {"collapsed", "uneven", "oscillating"} & {f.code for f in res.findings}


def test_points_along_a_surfaces_edges_are_no_curve_front() -> None:
    t = np.linspace(0.05, 0.95, 12)
    edges = np.r_[
        np.c_[np.cos(t * np.pi / 2), np.sin(t * np.pi / 2), 0 * t],
        np.c_[np.cos(t * np.pi / 2), 0 * t, np.sin(t * np.pi / 2)],
    ]
    assert on_boundary(edges)
    assert not lies_on_curve(edges)
    curve = np.c_[np.cos(t) / np.sqrt(2), np.cos(t) / np.sqrt(2), np.sin(t)]
    assert lies_on_curve(curve) and not on_boundary(curve)


def test_the_probe_tally_keeps_the_screen() -> None:
    tally = ProbeTally(rounds=1, solves=28, evaluations=4000, screened=2048)
    assert ProbeTally.from_meta(tally.to_meta()) == tally
    assert ProbeTally.from_meta({"rounds": 1}).screened == 0
