"""Degenerate fronts (``paretosurf.findings.degenerate_finding``): points of three objectives
on a curve are named ``degenerate``, with the objectives that do not conflict where that is
the cause, and surfaces are not.

Truth comes from the fronts' definitions: a DTLZ5-like curve whose first two objectives are
equal (so never conflict), a curve on which every pair of objectives conflicts, and DTLZ2's
sphere and a flat simplex (surfaces)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.findings import (
    conflict_free_pairs,
    curve_share,
    degenerate_finding,
    diagnose_surface,
)


def dtlz5_curve(t: np.ndarray) -> np.ndarray:
    """DTLZ5's front: objectives 1 and 2 equal, a quarter circle in the plane f1 = f2."""
    return np.c_[np.cos(t) / np.sqrt(2), np.cos(t) / np.sqrt(2), np.sin(t)]


def curve_solver(w: np.ndarray, state: object) -> ps.Solution:
    """The exact Tchebycheff minimizer (ideal point 0) on DTLZ5's curve for weight vector
    ``w``: ``max(w1, w2) cos(t) / sqrt(2) = w3 sin(t)``."""
    w = np.asarray(w, dtype=float)
    t = np.arctan2(max(w[0], w[1]), np.sqrt(2) * w[2])
    return ps.Solution(dtlz5_curve(np.array([t]))[0], state=float(t))


def test_objectives_that_never_conflict_are_found() -> None:
    rng = np.random.default_rng(0)
    f = dtlz5_curve(np.sort(rng.random(20)) * np.pi / 2)
    assert conflict_free_pairs(f) == [(0, 1)]
    # a tolerance's noise does not make them conflict; a real conflict does
    noisy = f + rng.normal(scale=1e-5, size=f.shape)
    assert conflict_free_pairs(noisy) == [(0, 1)]
    crossed = f.copy()
    crossed[0, 0], crossed[-1, 0] = crossed[-1, 0], crossed[0, 0]
    assert conflict_free_pairs(crossed) == []


def test_a_curve_on_which_every_pair_conflicts_is_found_by_its_shape() -> None:
    t = np.linspace(0.0, 1.0, 25)
    f = np.c_[t, 1.0 - t, 4.0 * (t - 0.5) ** 2]  # mutually non-dominated, each pair conflicts
    assert conflict_free_pairs(f) == []
    assert curve_share(f) == pytest.approx(1.0)
    finding = degenerate_finding(f)
    assert finding is not None and finding.summary == "the points lie on a curve"
    assert not finding.fatal  # the cause; the symptoms (uneven, collapsed) fail the run


@pytest.mark.parametrize("n", [15, 28, 91])
def test_surfaces_are_not_degenerate(n: int) -> None:
    rng = np.random.default_rng(n)
    sphere = np.abs(rng.normal(size=(n, 3)))
    sphere /= np.linalg.norm(sphere, axis=1, keepdims=True)
    assert degenerate_finding(sphere) is None
    k = 6
    grid = np.array([(i, j, k - i - j) for i in range(k + 1) for j in range(k + 1 - i)]) / k
    assert degenerate_finding(grid) is None
    assert degenerate_finding(np.eye(3)) is None  # too few points to judge


def test_four_objectives_with_two_pairs_that_move_together() -> None:
    t = np.linspace(0.0, 1.0, 12)
    f = np.c_[t, t**2, 1.0 - t, (1.0 - t) ** 3]
    finding = degenerate_finding(f)
    assert finding is not None
    assert "objectives 1 and 2 do not conflict" in finding.message
    assert "objectives 3 and 4 do not conflict" in finding.message
    assert "lie on a curve in 4 objectives" in finding.message  # one parameter, t


def test_a_surf_simplex_run_on_a_curve_names_it() -> None:
    """SURF-simplex on DTLZ5's curve (an exact Tchebycheff solver): the run's points lie on
    the curve, and the result says the front is a curve whose objectives 1 and 2 do not
    conflict; on DTLZ2's sphere it does not."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf_simplex(curve_solver, 15, 3, iterations=4)
    np.testing.assert_allclose(res.points[:, 0], res.points[:, 1])
    codes = [f.code for f in res.findings]
    assert "degenerate" in codes
    (finding,) = [f for f in res.findings if f.code == "degenerate"]
    assert "objectives 1 and 2 do not conflict" in finding.message
    assert finding.summary.startswith("the points lie on a curve")
    surface = ps.problems.many.DTLZ2(n_objectives=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        sphere = ps.surf_simplex(surface.solver(), 15, 3, iterations=4)
    assert "degenerate" not in [f.code for f in sphere.findings]


def test_diagnose_surface_says_the_cause_first() -> None:
    w = np.array(
        [[1, 0, 0], [0, 1, 0], [0, 0, 1]] + [[a, a, 1 - 2 * a] for a in (0.1, 0.2, 0.3, 0.4)]
    )
    f = np.array([curve_solver(row, None).objectives for row in w])
    codes = [x.code for x in diagnose_surface(w.astype(float), f, f)]
    assert codes[0] == "degenerate"


def test_an_objective_that_varies_by_rounding_only_is_constant_not_a_direction() -> None:
    """DTLZ4 from its default start: the solves reach objective values of ``1e-30`` in one
    objective (``x^100`` of a variable stuck at 0.5); divided by that range they would look
    like a direction of the set and make pairs that never conflict."""
    rng = np.random.default_rng(3)
    t = rng.random(12) * np.pi / 2
    f = np.c_[np.cos(t), np.sin(t), rng.random(12) * 1e-30]
    assert conflict_free_pairs(f) == []
    finding = degenerate_finding(f)  # the points do lie on a curve, by their shape
    assert finding is not None and finding.summary == "the points lie on a curve"


def test_four_objectives_on_a_surface_name_its_dimension() -> None:
    u, v = (a.ravel() for a in np.meshgrid(np.linspace(0, 1, 5), np.linspace(0, 1, 5)))
    keep = u + v <= 1.0
    u, v = u[keep], v[keep]
    f = np.c_[u, 2 * u, v, 1.0 - u - v]  # objectives 1 and 2 move together
    finding = degenerate_finding(f)
    assert finding is not None
    assert "lie on a set of dimension 2 in 4 objectives" in finding.message
