"""normalize=: the coordinates distances are measured in; units must not change what is found."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.loop._spacing import Spacing
from paretosurf.methods import umod, uniform
from paretosurf.problems import Quadratic
from support import gear_solver


def scaled(problem: Quadratic, factor: float) -> Any:
    """The problem's exact solver with objective 1 in other units (times ``factor``).

    The LS minimizer of ``w * factor * h1 + (1 - w) * h2`` is the original one at the weight
    ``w' = w factor / (w factor + 1 - w)``."""

    def solve(w: float, state: Any) -> ps.Solution:
        inner = w * factor / (w * factor + 1 - w)
        x = problem.argmin(inner)
        return ps.Solution(problem.objectives(x) * [factor, 1.0], state=x)

    return solve


@pytest.fixture
def problem() -> Quadratic:
    return Quadratic(np.diag([1.0, 4.0]), [1.0, 0.0], np.diag([6.0, 0.5]), [0.0, 1.0])


def test_changing_an_objectives_units_does_not_change_what_surf_finds(problem) -> None:
    found = [
        ps.surf(scaled(problem, f), 10, iterations=40, early_stopping=False)
        for f in (1.0, 1e3, 1e-2)
    ]
    for res in found[1:]:
        # the same solutions, up to SURF's discretization floor: the weights that reach
        # them differ, and with them the CDF's interpolation error
        np.testing.assert_allclose(np.stack(res.states), np.stack(found[0].states), atol=1e-3)
        assert res.cv == pytest.approx(found[0].cv, abs=1e-3) and res.success
    # in raw coordinates the units do change the solutions (the test can fail)
    raw = ps.surf(scaled(problem, 1e3), 10, iterations=40, normalize="none")
    assert np.max(np.abs(np.stack(raw.states) - np.stack(found[0].states))) > 0.05


def test_endpoints_normalization_equals_the_fixed_one_with_the_true_ideal_and_nadir(
    problem,
) -> None:
    ends = problem.front(np.array([0.0, 1.0]))
    fixed = ps.surf(problem.solver(), 8, iterations=20, normalize=(ends.min(0), ends.max(0)))
    auto = ps.surf(problem.solver(), 8, iterations=20)
    np.testing.assert_allclose(fixed.weights, auto.weights, atol=1e-12)
    assert fixed.settings["normalize"] == [ends.min(0).tolist(), ends.max(0).tolist()]


def test_a_callable_spaces_points_by_the_coordinates_it_returns(problem) -> None:
    res = ps.surf(problem.solver(), 10, iterations=40, normalize=lambda p: p[:, :1])
    gaps = np.diff(res.points[:, 0])  # evenly spaced in objective 1 alone
    assert np.max(np.abs(gaps)) / np.min(np.abs(gaps)) < 1.02
    assert res.settings["normalize"].startswith("callable")


def test_records_measure_cv_in_the_runs_coordinates(problem) -> None:
    res = uniform(scaled(problem, 1e3), 6, iterations=1)
    spacing = Spacing("endpoints")
    spacing.fit(res.points)
    assert res.history[0].cv == pytest.approx(ps.metrics.cv(spacing(res.points)), rel=1e-12)
    raw = uniform(scaled(problem, 1e3), 6, iterations=1, normalize="none")
    assert raw.history[0].cv == pytest.approx(ps.metrics.cv(raw.points), rel=1e-12)


def test_umod_spreads_points_in_the_runs_coordinates(problem) -> None:
    res = umod(problem.solver(), 8, iterations=30, normalize=lambda p: p[:, :1])
    gaps = np.abs(np.diff(res.points[:, 0]))  # max-min in objective 1 alone
    assert gaps.max() / gaps.min() < 1.2


def test_ridge_regression_on_diabetes_is_spread_evenly() -> None:
    """||beta||^2 (about 1e6) swamps the MSE (about 3e3) in raw coordinates; normalized by the
    endpoints, SURF spreads the exact ridge path evenly (CV <= 0.01)."""
    datasets = pytest.importorskip("sklearn.datasets")
    x, y = datasets.load_diabetes(return_X_y=True)
    y = y - y.mean()
    n, d = x.shape
    gram, xty = x.T @ x / n, x.T @ y / n

    def ridge(w: float, state: Any) -> ps.Solution:
        beta = np.linalg.solve(w * gram + (1 - w) * np.eye(d), w * xty)
        return ps.Solution([np.mean((x @ beta - y) ** 2), beta @ beta], state=beta)

    res = ps.surf(ridge, 20, iterations=30)
    assert res.cv <= 0.01 and res.success
    raw = ps.surf(ridge, 20, iterations=30, normalize="none")
    # raw spacing puts most points on one leg: the MSE barely moves over most of them
    mse = raw.points[:, 0]
    assert np.sum(mse - mse.min() < 0.05 * (mse.max() - mse.min())) >= 14


@pytest.mark.parametrize(
    ("normalize", "error", "match"),
    [
        ("unit", ValueError, "normalize must be one of"),
        (3, TypeError, "normalize must be"),
        (([0.0, 0.0], [1.0, 0.0]), ValueError, "nadir > ideal"),
        (([0.0], [1.0, 1.0]), ValueError, "two finite vectors"),
    ],
)
def test_bad_normalize_is_refused(normalize: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        ps.surf(gear_solver, 4, iterations=1, normalize=normalize)


def test_a_callable_returning_the_wrong_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="one row per point"):
        ps.surf(gear_solver, 4, iterations=1, normalize=lambda p: p[:2])


def test_resuming_under_another_normalization_is_refused(tmp_path) -> None:
    ps.surf(gear_solver, 4, iterations=2, checkpoint=tmp_path)
    with pytest.raises(ValueError, match="normalize: 'endpoints' in the checkpoint, 'none' now"):
        ps.surf(gear_solver, 4, iterations=3, checkpoint=tmp_path, resume=True, normalize="none")


def test_an_objective_the_anchors_missed_is_measured_by_the_points() -> None:
    """Corner solves that stopped on a flat spot span 5e-106 of an objective the points span
    2.9 in: the coordinates took that span and reached 1e106 (a surface run then crashed on
    an infinite area). The points' extent measures such an objective; the others keep the
    anchors' ideal and nadir."""
    front = np.array(
        [
            [0.0, 3.6, 0.0],  # the corners: the third objective 0 up to 5e-106
            [5.1, 0.0, 5e-106],
            [2.0, 2.0, 0.0],
            [1.0, 1.0, 2.9],
            [0.5, 2.5, 1.2],
        ]
    )
    spacing = Spacing("endpoints")
    spacing.fit(front, anchors=[0, 1, 2])
    coords = spacing(front)
    np.testing.assert_allclose(coords[:, 2], front[:, 2] / 2.9)
    np.testing.assert_allclose(coords[:, :2], front[:, :2] / np.array([5.1, 3.6]))
    # anchors that span the objective by a thousandth of the points' extent: theirs is kept
    front[1, 2] = 2.9e-3
    spacing.fit(front, anchors=[0, 1, 2])
    assert spacing.scale is not None and spacing.scale[2] == pytest.approx(2.9e-3)


def test_convex_dtlz4_by_weighted_sums_fails_with_its_findings() -> None:
    """pymoo's convex DTLZ4 with the adapter's default scalarization (weighted sums with
    three objectives): the corner solves stop on DTLZ4's flat spots and the run crashed in
    its fourth round ("cannot convert float NaN to integer"). It now ends and says why."""
    problems = pytest.importorskip("pymoo.problems")
    problem = problems.get_problem("convex_dtlz4", n_obj=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf_simplex(ps.adapters.from_pymoo(problem), 28, iterations=4)
    assert not res.success
    assert np.all(np.isfinite(res.points))
    assert {f.code for f in res.findings} & {"collapsed", "degenerate", "endpoint"}
