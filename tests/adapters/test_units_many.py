"""The adapters' units with three or more objectives (issue 42): the scalarizations of
``from_scipy`` and ``from_pymoo`` measure the objectives in units taken from the corner
solves, so that an objective in other units (times 100, or 1e-3 and 1e3) gives the same run.

Judged against DTLZ2's analytic front (the unit sphere's positive octant, whose extent is 1 in
every objective) and against the Pareto set of three quadratics (the triangle of their
minimizers), never against a run's own figures.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from scipy.spatial import cKDTree

import paretosurf as ps
from paretosurf.adapters import Scalarization, from_pymoo, from_scipy
from paretosurf.surfaces import ray_directions, ray_weights
from support import scaled_pymoo_problem

FloatArray = NDArray[np.float64]

N_VAR = 5


def dtlz2(x: FloatArray) -> FloatArray:
    """DTLZ2 with three objectives (pymoo's form: ``g`` over the last variables)."""
    g = float(np.sum((x[2:] - 0.5) ** 2))
    a, b = 0.5 * np.pi * x[0], 0.5 * np.pi * x[1]
    r = 1.0 + g
    return np.array([r * np.cos(a) * np.cos(b), r * np.cos(a) * np.sin(b), r * np.sin(a)])


def scaled_dtlz2(scale: FloatArray) -> Any:
    def objectives(x: FloatArray) -> FloatArray:
        return scale * dtlz2(x)

    return objectives


def scipy_solver(scale: FloatArray, kind: str) -> ps.adapters.ScipySolver:
    return from_scipy(
        scaled_dtlz2(scale),
        np.full(N_VAR, 0.5),
        bounds=[(0.0, 1.0)] * N_VAR,
        scalarization=kind,
    )


def nn_distances(points: FloatArray) -> FloatArray:
    return np.asarray(cKDTree(points).query(points, k=2)[0][:, 1], dtype=np.float64)


def quiet_run(solver: Any, n_points: int, iterations: int) -> ps.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        return ps.surf_simplex(solver, n_points, 3, iterations=iterations)


def check_on_sphere_and_spread(res: ps.Result, scale: FloatArray) -> FloatArray:
    """The points, unscaled, on DTLZ2's front, distinct and spread; returns them."""
    unscaled = res.points / scale
    np.testing.assert_allclose(np.linalg.norm(unscaled, axis=1), 1.0, atol=1e-4)
    assert np.all(unscaled >= -1e-6)
    gaps = nn_distances(unscaled)
    # 15 points over the octant (area pi / 2): an even spread has gaps near 0.35
    assert gaps.min() > 0.15, gaps.round(3).tolist()
    assert gaps.max() / gaps.min() < 2.5, gaps.round(3).tolist()
    assert not any(f.code in ("collapsed", "stuck") for f in res.findings)
    return unscaled


# --------------------------------------------------------------------------- the units
@pytest.mark.parametrize("kind", ["linear", "tchebycheff", "asf"])
@pytest.mark.parametrize("scale", [[100.0, 1.0, 1.0], [1e-3, 1.0, 1e3]])
def test_units_are_the_fronts_extent_in_any_units(kind: str, scale: list[float]) -> None:
    """DTLZ2's front reaches from 0 to 1 in every objective: the units are that extent,
    times the objective's scale (the corner solves stop anywhere on a flat face, the
    extreme points do not)."""
    s = np.array(scale)
    solver = scipy_solver(s, kind)
    units = solver.scalarization.scales
    assert units is not None
    np.testing.assert_allclose(units / s, 1.0, rtol=1e-3)
    assert solver.scalarization.kind == kind


@pytest.mark.parametrize("scale", [[1.0, 1.0, 1.0], [1.0, 1.0, 30.0]])
def test_objectives_of_commensurate_scales_keep_their_raw_units(scale: list[float]) -> None:
    """Scales within :data:`UNITS_RATIO` of one another keep the raw units (which the
    layout copes with); DTLZ2's own are equal, so the raw units of the unscaled problem
    are the units of the scaled one above."""
    from paretosurf.adapters.scipy_solver import UNITS_RATIO

    assert max(scale) / min(scale) < UNITS_RATIO
    assert scipy_solver(np.array(scale), "asf").scalarization.scales is None


def test_a_scalarization_instance_is_solved_as_given() -> None:
    solver = from_scipy(
        dtlz2,
        np.full(N_VAR, 0.5),
        bounds=[(0.0, 1.0)] * N_VAR,
        scalarization=Scalarization("asf", ideal=np.zeros(3) - 1e-6),
    )
    assert solver.scalarization.scales is None
    solver = scipy_solver(np.array([100.0, 1.0, 1.0]), "asf")
    given = from_scipy(
        scaled_dtlz2(np.array([100.0, 1.0, 1.0])),
        np.full(N_VAR, 0.5),
        bounds=[(0.0, 1.0)] * N_VAR,
        scalarization=Scalarization("asf", ideal=solver.ideal),
    )
    assert given.scalarization.scales is None


def test_linear_scales_weigh_weight_vectors_not_the_scalar_weight() -> None:
    lin = Scalarization("linear", scales=[2.0, 4.0, 8.0])
    np.testing.assert_allclose(lin.coefficients([0.5, 0.25, 0.25]), [0.25, 0.0625, 0.03125])
    assert lin([2.0, 4.0, 8.0], [0.5, 0.25, 0.25]) == pytest.approx(1.0)
    # the scalar weight of two objectives: the paper's weighted sum of the raw objectives
    assert Scalarization("linear", scales=[2.0, 4.0]).coefficients(0.25).tolist() == [0.25, 0.75]


@pytest.mark.parametrize("kind", ["tchebycheff", "asf"])
def test_ray_weights_in_units_reach_their_points(kind: str) -> None:
    """The weight :func:`ray_weights` gives for a point, solved by the scalarization in
    units, puts the point on its ray: the terms agree (Tchebycheff) or the point lies along
    the weight times the units (ASF)."""
    q, z = np.array([[0.6, 0.2, 0.9]]), np.array([-0.1, -0.1, -0.1])
    units = np.array([100.0, 1.0, 1e-3])
    pts = q * units
    scale = np.array([2.0, 0.5, 1.0])
    w = ray_weights(ray_directions(pts, z * units, scale), scale, kind, units)[0]
    sc = Scalarization(kind, ideal=z * units, rho=0.0, scales=units)
    terms = sc.coefficients(w) * (pts[0] - z * units)
    np.testing.assert_allclose(terms, terms.max(), rtol=1e-9)


# --------------------------------------------------------------------------- runs
def test_pymoo_dtlz2_with_f1_times_100_runs_as_the_unscaled_one() -> None:
    """A pymoo DTLZ2 whose ``f1`` is multiplied by 100: in raw units its weights sent the
    points to one corner (``collapsed``); in the corner solves' units the run solves the
    same problems as on the unscaled DTLZ2 (its first round's points equal, times 100 in
    ``f1``) and ends spread evenly over the same front."""
    pytest.importorskip("pymoo")
    from pymoo.problems import get_problem

    base = get_problem("dtlz2", n_var=N_VAR, n_obj=3)
    results = {}
    for name, scale in (("unscaled", np.ones(3)), ("scaled", np.array([100.0, 1.0, 1.0]))):
        problem = scaled_pymoo_problem(base, scale)
        res = quiet_run(from_pymoo(problem, scalarization="asf"), 15, 6)
        assert res.success, res.message
        results[name] = (check_on_sphere_and_spread(res, scale), res, scale)
    (p0, r0, _), (p1, r1, s1) = results["unscaled"], results["scaled"]
    np.testing.assert_allclose(r1.history[0].points / s1, r0.history[0].points, atol=1e-5)
    g0, g1 = nn_distances(p0), nn_distances(p1)
    assert abs(np.median(g1) / np.median(g0) - 1.0) < 0.1


def test_scipy_dtlz2_in_units_1e3_apart_spreads_over_the_front() -> None:
    """Objectives in units 1e-3, 1 and 1e3 (six orders of magnitude apart), ASF: the points
    lie on the front and spread over it as on the unscaled problem."""
    scale = np.array([1e-3, 1.0, 1e3])
    res = quiet_run(scipy_solver(scale, "asf"), 15, 6)
    assert res.success, res.message
    unscaled = check_on_sphere_and_spread(res, scale)
    # every part of the octant is reached: each objective spans (nearly) 0 to 1
    assert np.all(unscaled.min(axis=0) < 1e-3) and np.all(unscaled.max(axis=0) > 1.0 - 1e-3)


@pytest.mark.parametrize("kind", ["linear", "tchebycheff"])
def test_quadratics_in_units_1e3_apart_spread_over_the_triangle(kind: str) -> None:
    """Three quadratics ``s_m |x - a_m|^2 / 2`` with ``s = (1e-3, 1, 1e3)``: weighted sums
    in raw units put nearly every point at ``a_3``, where the large objective is least; in
    the corner solves' units the minimizers spread over the Pareto set, the triangle of the
    ``a_m`` (checked in barycentric coordinates)."""
    anchors = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    scale = np.array([1e-3, 1.0, 1e3])

    def objectives(x: FloatArray) -> FloatArray:
        return 0.5 * scale * np.sum((x[None, :] - anchors) ** 2, axis=1)

    solver = from_scipy(
        objectives,
        np.array([0.3, 0.3]),
        bounds=[(-1.0, 2.0)] * 2,
        scalarization=kind,
    )
    res = quiet_run(solver, 15, 6)
    assert res.success, res.message
    states = np.array([np.asarray(s, dtype=np.float64) for s in res.states])
    # barycentric coordinates in the triangle (0, 0), (1, 0), (0, 1): (1 - x - y, x, y)
    bary = np.column_stack([1.0 - states.sum(axis=1), states])
    assert np.all(bary >= -1e-4), bary.round(4).tolist()
    np.testing.assert_allclose(res.points, [objectives(x) for x in states], rtol=1e-9)
    # spread over the triangle: in the objectives over their scales, no two points close
    gaps = nn_distances(res.points / scale)
    assert gaps.max() / gaps.min() < 3.0, gaps.round(3).tolist()


def dtlz4_scaled(scale: FloatArray) -> Any:
    """pymoo's DTLZ4 form (``x^100`` in the angles) with its objectives times ``scale``."""

    def objectives(x: FloatArray) -> FloatArray:
        g = float(np.sum((x[2:] - 0.5) ** 2))
        a, b = 0.5 * np.pi * x[0] ** 100, 0.5 * np.pi * x[1] ** 100
        r = 1.0 + g
        return scale * np.array(
            [r * np.cos(a) * np.cos(b), r * np.cos(a) * np.sin(b), r * np.sin(a)]
        )

    return objectives


def test_an_extent_out_of_line_with_the_box_takes_the_boxs_ranges() -> None:
    """DTLZ4's corner solves from the middle of the box stop on its flat spot and never move
    its second objective (1e-30 at every corner): the extent estimated from them was 1e-29
    for an objective whose range over the box is 10, every point of the run then went to
    one corner (``stuck``). Its share of the box far out of line with the others', the
    units are the box's ranges: in proportion to the scales, as the front's extents are."""
    scale = np.array([1.0, 10.0, 100.0])
    solver = from_scipy(
        dtlz4_scaled(scale),
        np.full(N_VAR, 0.5),
        bounds=[(0.0, 1.0)] * N_VAR,
        scalarization="asf",
    )
    units = solver.scalarization.scales
    assert units is not None and np.all(np.isfinite(units))
    ratio = (units / units[0]) / (scale / scale[0])
    assert np.all((ratio > 0.5) & (ratio < 2.0)), units
