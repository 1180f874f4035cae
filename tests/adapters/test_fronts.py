"""Fronts the paper's toys are not: ZDT1 (convex, weakly Pareto end) and ZDT2 (concave)
through ``ps.adapters.from_scipy``, the figures the library promises on them."""

from __future__ import annotations

import warnings

import moocore
import numpy as np
import pytest

import paretosurf as ps

N_VARS = 30
BOX = [(0.0, 1.0)] * N_VARS


def zdt1(x: np.ndarray) -> np.ndarray:
    g = 1.0 + 9.0 * np.mean(x[1:])
    return np.array([x[0], g * (1.0 - np.sqrt(x[0] / g))])


def zdt2(x: np.ndarray) -> np.ndarray:
    g = 1.0 + 9.0 * np.mean(x[1:])
    return np.array([x[0], g * (1.0 - (x[0] / g) ** 2)])


def test_zdt1_is_spread_evenly_once_the_endpoints_are_kept_inside() -> None:
    solver = ps.adapters.from_scipy(zdt1, np.full(N_VARS, 0.5), bounds=BOX)
    res = ps.surf(solver, 20, iterations=30, weight_bounds=(1e-3, 1 - 1e-3))
    assert res.cv <= 0.02 and res.success
    f1, f2 = res.points.T
    np.testing.assert_allclose(f2, 1 - np.sqrt(f1), atol=1e-6)  # on the true front
    # and the true front's points are evenly spaced (independent of the run's own metric)
    assert ps.metrics.cv(np.c_[f1, 1 - np.sqrt(f1)]) <= 0.02


def test_zdt1_at_exactly_w_1_starts_from_the_adapters_pareto_end() -> None:
    # objective 1 alone leaves ZDT1's f2 anywhere on the face f1 = 0; the adapter poses
    # the front's end lexicographically (solve_end), and the w = 1 slot starts there
    solver = ps.adapters.from_scipy(zdt1, np.full(N_VARS, 0.5), bounds=BOX)
    assert solver.solve(1.0, None).objectives[1] > 5.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = ps.surf(solver, 20, iterations=30)
    assert res.success, res.message
    f1, f2 = res.points.T
    assert f1[-1] <= 1e-6 and f2[-1] == pytest.approx(1.0, abs=2e-3)  # the Pareto end
    np.testing.assert_allclose(f2, 1 - np.sqrt(f1), atol=1e-6)


def test_zdt2_with_tchebycheff_reaches_the_whole_concave_front_evenly() -> None:
    solver = ps.adapters.from_scipy(
        zdt2, np.full(N_VARS, 0.5), bounds=BOX, scalarization="tchebycheff"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = ps.surf(solver, 20, iterations=30)
    assert res.cv <= 0.05 and res.gap_ratio <= 1.5 and res.success
    f1, f2 = res.points.T
    np.testing.assert_allclose(f2, 1 - f1**2, atol=1e-6)  # every point Pareto-optimal
    assert moocore.is_nondominated(res.points).all()
    # from one end to the other: the ends as the end solves give them, each objective within
    # LEXICOGRAPHIC_TOL (1e-6) of how far it moved from x0 (f2: 5.45, so f1 = 1 - 2.7e-6)
    assert f1.min() <= 1e-6 and f1.max() >= 1 - 1e-5


def test_zdt2_with_weighted_sums_warns_that_they_cannot_cross_the_front() -> None:
    solver = ps.adapters.from_scipy(zdt2, np.full(N_VARS, 0.5), bounds=BOX, scalarization="linear")
    with pytest.warns(ps.ParetoWarning) as caught:
        res = ps.surf(solver, 20, iterations=30)
    messages = " ".join(str(w.message) for w in caught)
    assert "weighted sums cannot reach" in messages and "tchebycheff" in messages
    assert not res.success and not res.converged
