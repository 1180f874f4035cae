"""Honest results: each degenerate case raises its ParetoWarning with the remedy, fails
``success``, and never reports convergence on a collapsed front; valid cases do not warn."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.findings import diagnose
from paretosurf.loop._spacing_options import solver_weights
from paretosurf.methods import ols, umod, uniform
from paretosurf.problems import GearToy, Quadratic
from paretosurf.testing import GearKStep, gear_curve
from support import gear_solver, gear_x


def concave(w: float, state: Any) -> ps.Solution:
    """Exact LS minimizer on the concave front (x, 1 - x^2): always an end of it."""
    x = 1.0 if w < 0.5 else 0.0  # w x + (1 - w)(1 - x^2) is concave in x
    return ps.Solution([x, 1 - x * x], state=x)


def zdt1_like(w: float, state: Any) -> ps.Solution:
    """ZDT1's front f2 = 1 - sqrt(f1) reached exactly for w < 1; at exactly w = 1 the
    scalarized problem min f1 leaves g free and the solver keeps g = 5.5 (weakly Pareto)."""
    if w == 1.0:
        return ps.Solution([0.0, 5.5])
    x = min(((1 - w) / (2 * w)) ** 2, 1.0) if w > 0 else 1.0
    return ps.Solution([x, 1 - math.sqrt(x)])


def test_valid_runs_do_not_warn_and_succeed() -> None:
    problems = [
        GearToy(9).solver(),
        GearToy(2).gradient_solver(steps=20),
        Quadratic(np.diag([1.0, 4.0]), [1.0, 0.0], np.diag([6.0, 0.5]), [0.0, 1.0]).solver(),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for solver in problems:
            res = ps.surf(solver, 10, iterations=30)
            assert res.success and res.findings == [], res.message
            assert res.message.startswith("SURF: 11 points, CV")
        for method in (uniform, umod, ols):
            assert method(gear_solver, 8).success


def test_a_concave_front_collapses_onto_a_jump_and_never_converges() -> None:
    with pytest.warns(ps.ParetoWarning) as caught:
        res = ps.surf(concave, 19, iterations=30, tol=1e-6)
    codes = {f.code for f in res.findings}
    assert {"collapsed", "jump"} <= codes
    assert not res.converged and not res.success
    text = " ".join(str(w.message) for w in caught)
    assert "tchebycheff" in text and "collapsed" in text
    assert len(np.unique(res.points, axis=0)) == 2


def test_a_weakly_pareto_endpoint_is_named_and_weight_bounds_remove_it() -> None:
    with pytest.warns(ps.ParetoWarning) as caught:
        res = ps.surf(zdt1_like, 20, iterations=30)
    assert any(
        "w = 1 is only weakly Pareto" in str(w.message) and "weight_bounds" in str(w.message)
        for w in caught
    )
    assert not res.success and "endpoint" in {f.code for f in res.findings}
    assert res.points[-1].tolist() == [0.0, 5.5]
    bounded = ps.surf(zdt1_like, 20, iterations=30, weight_bounds=(1e-3, 1 - 1e-3))
    assert bounded.success and bounded.cv < 0.03
    # the bounds act in the run's units: the objectives divided by their ranges
    assert bounded.front_ends is not None
    solved = solver_weights(np.array([0.0, 1.0]), (1e-3, 1 - 1e-3), bounded.front_ends.scales)
    assert bounded.weights[[0, -1]].tolist() == solved.tolist()
    np.testing.assert_allclose(bounded.points[:, 1], 1 - np.sqrt(bounded.points[:, 0]))


def test_dominated_points_are_named() -> None:
    def bad_slot(w: float, state: Any) -> ps.Solution:
        point = gear_curve(gear_x(w))
        return ps.Solution(point + (0.2 if abs(w - 0.5) < 1e-9 else 0.0))

    with pytest.warns(ps.ParetoWarning) as caught:
        res = uniform(bad_slot, 4, iterations=1)
    assert any("1 of 5 points are dominated by others (slots 2)" in str(w.message) for w in caught)
    assert not res.success


def test_noisy_estimates_point_to_the_moving_average() -> None:
    rng = np.random.default_rng(0)

    def noisy(w: float, state: Any) -> ps.Solution:
        return ps.Solution(gear_curve(gear_x(w)) + 0.02 * rng.standard_normal(2))

    with pytest.warns(ps.ParetoWarning) as caught:
        res = ps.surf(noisy, 20, iterations=10)
    assert "noisy" in {f.code for f in res.findings}
    assert any("moving_average=0.2" in str(w.message) for w in caught)
    assert "endpoint" not in {f.code for f in res.findings}  # noise, not a flat face


def test_constant_objectives_are_named() -> None:
    with pytest.warns(ps.ParetoWarning, match=r"objective 1 \(= 3\) does not vary"):
        res = ps.surf(lambda w, s: ps.Solution([3.0, w]), 4, iterations=2)
    assert not res.success and not res.converged


def test_badly_scaled_raw_objectives_advise_normalizing() -> None:
    def lopsided(w: float, state: Any) -> ps.Solution:
        return ps.Solution(gear_curve(gear_x(w)) * [1.0, 1e4])

    with pytest.warns(ps.ParetoWarning, match="normalize='endpoints'"):
        res = ps.surf(lopsided, 8, iterations=10, normalize="none")
    assert res.success  # advice: the raw coordinates were asked for
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ps.surf(lopsided, 8, iterations=10).success


def test_result_keeps_success_and_findings_through_save_and_load(tmp_path) -> None:
    with pytest.warns(ps.ParetoWarning):
        res = ps.surf(concave, 9, iterations=10, checkpoint=tmp_path / "run")
    for back in (ps.Result.load(tmp_path / "run"), _saved(res, tmp_path / "file")):
        assert back.success is False and back.message == res.message
        assert [f.code for f in back.findings] == [f.code for f in res.findings]


def _saved(res: ps.Result, path: Any) -> ps.Result:
    res.save(path)
    return ps.Result.load(path)


def test_diagnose_on_hand_made_points() -> None:
    w = np.linspace(0, 1, 6)
    front = gear_curve(w)  # h1 falling, h2 rising with w
    assert diagnose(w, front, front, normalize="none") == []
    dominated = front.copy()
    dominated[2] += 0.3
    codes = [f.code for f in diagnose(w, dominated, dominated, normalize="none")]
    assert "dominated" in codes
    unordered = front[[0, 2, 1, 3, 4, 5]]
    assert "noisy" in [f.code for f in diagnose(w, unordered, unordered, normalize="none")]
    # interpolated points (Soup) are not expected in order
    assert diagnose(w, unordered, unordered, normalize="none", ordered=False) == []


def test_moving_average_brings_noisy_weights_closer_to_even_spacing() -> None:
    """With noisy objective estimates, averaging them across rounds spaces the true points
    more evenly (measured on the noise-free front at the final weights, over 4 seeds)."""

    def true_cv(res: ps.Result) -> float:
        return ps.metrics.cv(gear_curve(gear_x(res.weights)))

    def run(rate: float | None, seed: int) -> float:
        rng = np.random.default_rng(seed)

        def noisy(w: float, state: Any) -> ps.Solution:
            return ps.Solution(gear_curve(gear_x(w)) + 0.01 * rng.standard_normal(2))

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ps.ParetoWarning)
            return true_cv(
                ps.surf(noisy, 20, alpha=1.0, iterations=30, moving_average=rate, normalize="none")
            )

    plain = np.mean([run(None, s) for s in range(6)])
    averaged = np.mean([run(0.2, s) for s in range(6)])
    assert averaged < 0.85 * plain


def test_moving_average_keeps_raw_estimates_in_the_history_and_resumes(tmp_path) -> None:
    full = ps.surf(GearKStep(), 6, iterations=6, moving_average=0.3)
    solver = GearKStep()
    for r in full.history:  # records hold what the solver returned
        np.testing.assert_allclose(
            r.points, np.stack([solver.evaluate(x) for x in _states_of(r, full)]), atol=1e-15
        )
    ps.surf(GearKStep(), 6, iterations=3, moving_average=0.3, checkpoint=tmp_path)
    back = ps.surf(
        GearKStep(), 6, iterations=6, moving_average=0.3, checkpoint=tmp_path, resume=True
    )
    np.testing.assert_array_equal(back.weights, full.weights)
    np.testing.assert_array_equal(back.points, full.points)


def _states_of(record: ps.IterationRecord, res: ps.Result) -> list[float]:
    """The decision x of each point of a gear-toy record, from its objective h2 = x^2."""
    return list(np.sqrt(record.points[:, 1]))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"moving_average": 0.0}, ValueError, "moving_average"),
        ({"moving_average": 1.5}, ValueError, "moving_average"),
        ({"weight_bounds": (0.5, 0.2)}, ValueError, "weight_bounds"),
        ({"weight_bounds": 0.1}, TypeError, "weight_bounds"),
    ],
)
def test_bad_loop_options(kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        ps.surf(gear_solver, 4, iterations=1, **kwargs)


# ----------------------------------------------------------------- solvers used the wrong way
def test_maximizing_or_swapped_solver_is_reported_as_reversed_not_noisy():
    def swapped(w: float, state: object) -> ps.Solution:  # w on objective 2
        return ps.Solution([w**2, (1 - w) ** 2], w)

    def maximizing(w: float, state: object) -> ps.Solution:  # returns rewards
        return ps.Solution([1 - (1 - w) ** 2, 1 - w**2], w)

    for solver in (swapped, maximizing):
        with pytest.warns(ps.ParetoWarning, match="maximizes"):
            res = ps.surf(solver, 6, iterations=5)
        assert [f.code for f in res.findings] == ["reversed"]
        assert not res.success


def test_a_few_noisy_pairs_are_not_reversed():
    w = np.linspace(0, 1, 11)
    pts = np.c_[(1 - w) ** 2, w**2]
    pts[[3, 4]] = pts[[4, 3]]  # one swapped pair: out of order, noise
    codes = [f.code for f in diagnose(w, pts, pts, normalize="none")]
    assert "reversed" not in codes and "noisy" in codes


def test_weights_crowded_by_objective_scales_are_resolved_not_collapsed():
    a, b = 1e-6, 1e6  # the exact minimizer of w a x^2 + (1 - w) b (1 - x)^2

    def solver(w: float, state: object) -> ps.Solution:
        x = (1 - w) * b / (w * a + (1 - w) * b)
        return ps.Solution([a * x**2, b * (1 - x) ** 2], x)

    with pytest.warns(ps.ParetoWarning, match="floating-point resolution"):
        res = ps.surf(solver, 10, iterations=30)
    assert [f.code for f in res.findings] == ["precision"]
    assert res.success  # advice only
    assert np.min(np.diff(res.weights)) < 1e-9  # the weights do crowd
    assert res.history[-1].cv < 0.1  # and the points are even


def test_flat_endpoint_is_found_despite_noise_elsewhere():
    # ZDT1-like: the point at w = 1 stops on the flat face f1 = 0 far up in f2, and one
    # interior pair is out of order (solver tolerance)
    w = np.array([0, 0.2, 0.4, 0.6, 0.8, 0.9999, 1 - 1e-7, 1.0])
    f1 = np.array([1, 0.64, 0.36, 0.16, 0.04, 1e-5, 1.1e-5, 0.0])
    f2 = np.array([0, 0.2, 0.4, 0.6, 0.8, 0.997, 0.996, 5.5])
    pts = np.c_[f1, f2]
    lo, hi = pts[[0, -1]].min(axis=0), pts[[0, -1]].max(axis=0)
    codes = [f.code for f in diagnose(w, pts, (pts - lo) / (hi - lo), normalize="endpoints")]
    assert "endpoint" in codes and "noisy" in codes


def test_noisy_solver_endpoints_are_not_flagged():
    w = np.linspace(0, 1, 11)
    noisy = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        pts = np.c_[(1 - w) ** 2, w**2] + 0.02 * rng.normal(size=(11, 2))
        codes = [f.code for f in diagnose(w, pts, pts, normalize="none")]
        assert "endpoint" not in codes
        noisy += "noisy" in codes
    assert noisy >= 8


def test_with_moving_averages_the_averaged_estimates_are_diagnosed():
    # exact solutions, noisy evaluations: averaging is the remedy the noise check names,
    # so with it the check must look at the averages, not at one round's noise
    def run(seed: int, rate: float | None) -> ps.Result:
        rng = np.random.default_rng(seed)

        def solver(w: float, state: Any) -> ps.Solution:
            x = 3 * w / (1 + 2 * w)
            return ps.Solution(np.array([(1 - x) ** 2, x**2]) + 0.003 * rng.standard_normal(2), x)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ps.ParetoWarning)
            return ps.surf(solver, 20, iterations=30, moving_average=rate)

    raw = sum(run(seed, None).success for seed in range(10))
    averaged = [run(seed, 0.2) for seed in range(10)]
    assert sum(r.success for r in averaged) >= raw + 3
    for r in averaged:
        for f in r.findings:
            assert "moving_average=0.2" not in f.message  # the remedy already in use


def test_a_gap_next_to_an_unconverged_point_is_not_called_a_jump():
    # Deep Sea Treasure's front is reached by weighted sums (the exact solver spreads it);
    # 20 Adam steps a call leave points that others beat at their own weights
    dst = ps.problems.deep_sea_treasure()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        # the paper's damping: its small steps leave the 20-step solves behind the weights
        # (cold starts: without the solver's start-up, which warms the ends up first)
        short = ps.surf(
            dst.gradient_solver(steps=20), 8, alpha=0.3, iterations=10, init_states=[None] * 9
        )
    codes = [f.code for f in short.findings]
    assert "unconverged" in codes and "jump" not in codes
    assert not short.converged and not short.success
    # (rounds enough for the exact run to stop early: after 10 its weights still move, which
    # the result advises)
    exact = ps.surf(dst.solver(), 8, iterations=30)
    assert exact.stop_reason == "done" and exact.findings == []


def test_a_dominated_endpoint_is_reported():
    w = np.array([0.0, 0.5, 1.0])
    pts = np.array([[133.37, 10.25], [131.73, 57.76], [133.51, 132.86]])  # w = 1 beaten
    codes = [f.code for f in diagnose(w, pts, pts, normalize="none")]
    assert "dominated" in codes and "endpoint" not in codes


def test_noisy_surface_corners_are_not_called_flat_faces():
    from paretosurf.findings import diagnose_surface

    anchors = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    w = np.array(
        [
            [1, 0, 0],
            [0, 1, 0],
            [0, 0, 1],
            [0.5, 0.5, 0],
            [0.5, 0, 0.5],
            [0, 0.5, 0.5],
            [1 / 3, 1 / 3, 1 / 3],
        ]
    )
    x = w @ anchors
    exact = np.stack([np.sum((x - a) ** 2, axis=1) for a in anchors], axis=1)
    noisy = exact.copy()
    noisy[0, 0] += 0.3  # corner 0 falls short in its own objective
    noisy[0, 1:] += 0.3
    codes = [f.code for f in diagnose_surface(w, noisy, noisy)]
    assert "endpoint" not in codes and "dominated" in codes
    flat = exact.copy()
    flat[0, 1:] += 0.3  # corner 0 optimal in its own objective, worse in the others
    flat = np.vstack([flat, exact[0]])
    w_flat = np.vstack([w, [0.999, 0.0005, 0.0005]])
    assert "endpoint" in [f.code for f in diagnose_surface(w_flat, flat, flat)]
