"""SURF on the gear toy: the final CDF error is O(1/N^2) whatever the gear, the first is not.

Paper, appendix "Quadratic gear toy": the front ``((1 - x)^2, x^2)`` is fixed while the gear
``p`` sets how unevenly LS traverses it (``v_max / v_min = p``). The first chord-length
reconstruction ``Phi~_0`` (from uniform weights) has an error growing with ``p``; after
refinement the error reaches the ``O(N^-2)`` discretization floor with a constant independent
of ``p``.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.problems.quadratic import GearToy

GEARS = range(1, 11)
SIZES = (10, 20, 40)

# Measured max over p = 1..10 of N^2 * ||Phi_T - Phi||_inf after 40 iterations (alpha 0.3):
# 0.038 (N = 10), 0.020 (N = 20), 0.016 (N = 40), and 0.010-0.016 for p = 1. C = 0.06 leaves
# about 1.6x margin over the worst case. The paper's bound l^2 s(1)^3 / (6 N^2) with l = sqrt(2),
# s(1) = 1 + asinh(1)/sqrt(2) gives C = 1.43: the same order in N, a looser constant. For
# comparison, N^2 * ||Phi~_0 - Phi|| reaches 0.71 (N = 10, p = 10).
FINAL_C = 0.06


@pytest.fixture(scope="module")
def errors() -> dict[tuple[int, int], tuple[float, float]]:
    """(N, p) -> (first reconstruction error, final error), exact inner solver."""
    out = {}
    for n in SIZES:
        for p in GEARS:
            toy = GearToy(p)
            truth = toy.cdf()
            # the paper's fixed schedule: 40 rounds, no early stop
            final = ps.surf(toy.solver(), n, alpha=0.3, iterations=40, early_stopping=False)
            first = ps.surf(toy.solver(), n, alpha=1.0, iterations=1)  # history[0].cdf = Phi~_0
            out[(n, p)] = (
                ps.metrics.cdf_error(first.history[0].cdf, truth),
                ps.metrics.cdf_error(final.cdf, truth),
            )
    return out


@pytest.mark.parametrize("n", SIZES)
def test_final_cdf_error_is_order_inverse_n_squared_for_every_gear(
    errors: dict[tuple[int, int], tuple[float, float]], n: int
) -> None:
    finals = np.array([errors[(n, p)][1] for p in GEARS])
    assert np.all(finals <= FINAL_C / n**2), finals * n**2
    # ... and refinement beats the first reconstruction once the gear is uneven.
    firsts = np.array([errors[(n, p)][0] for p in GEARS])
    assert np.all(finals[3:] < firsts[3:] / 2)


@pytest.mark.parametrize("n", SIZES)
def test_first_reconstruction_error_grows_with_gear(
    errors: dict[tuple[int, int], tuple[float, float]], n: int
) -> None:
    e1, e4, e9 = (errors[(n, p)][0] for p in (1, 4, 9))
    assert e1 < e4 < e9
    slope = np.polyfit(list(GEARS), [errors[(n, p)][0] for p in GEARS], 1)[0]
    assert slope > 0
    # The final error varies much less with the gear than the first one does.
    f1, f9 = errors[(n, 1)][1], errors[(n, 9)][1]
    assert f9 / f1 < e9 / e1 / 3


def test_first_reconstruction_is_phi_tilde_zero_with_alpha_one() -> None:
    # With alpha = 1, Phi_1 = Phi~_0: the chord-length CDF of the uniform-weight points.
    toy = GearToy(9)
    res = ps.surf(toy.solver(), 10, alpha=1.0, iterations=1)
    w = np.linspace(0.0, 1.0, 11)
    manual = ps.ArcLengthCDF.from_front(w, toy.front(w))
    grid = np.linspace(0.0, 1.0, 1001)
    np.testing.assert_allclose(res.history[0].cdf(grid), manual(grid), atol=1e-14)


def test_k_step_gradient_solver_cv_decreases_to_uniform() -> None:
    toy = GearToy(9)
    # K = 5 SGD steps per outer iteration, slots starting from x = w (gear unknown).
    solver = toy.gradient_solver(steps=5, lr=0.1, init=lambda w: w)
    res = ps.surf(solver, 10, alpha=0.3, iterations=30, early_stopping=False)
    cv = np.array([h.cv for h in res.history])
    block_means = cv.reshape(6, 5).mean(axis=1)
    assert np.all(np.diff(block_means) < 0), block_means
    assert cv[-1] < 0.05
    assert cv[-1] < cv[0] / 10
    uniform_cv = ps.methods.uniform(toy.solver(), 10, iterations=1).history[0].cv
    assert cv[-1] < uniform_cv / 10
    assert res.n_steps == 30 * 11 * 5


def test_k_step_gradient_solver_with_large_k_matches_exact_run() -> None:
    toy = GearToy(9)
    exact = ps.surf(toy.solver(), 10, alpha=0.3, iterations=15)
    # 400 SGD steps at lr 0.1 contract the error by at most 0.9^400 ~ 1e-18 per call.
    inexact = ps.surf(toy.gradient_solver(steps=400, lr=0.1), 10, alpha=0.3, iterations=15)
    np.testing.assert_allclose(inexact.weights, exact.weights, atol=1e-6)
    np.testing.assert_allclose(inexact.points, exact.points, atol=1e-6)


def test_tol_is_met_only_near_the_fixed_point_whatever_alpha():
    # a small alpha takes steps alpha times shorter: they must not pass for convergence
    solver = GearToy(9).solver()
    slow = ps.surf(solver, 20, iterations=50, alpha=0.05, tol=1e-2)
    assert slow.stop_reason != "converged" or slow.gap_ratio < 1.5
    assert slow.history[5].weight_change < 1e-2  # the damped step alone would have stopped
    fast = ps.surf(solver, 20, iterations=50, alpha=1.0, tol=1e-3)
    assert fast.stop_reason == "converged" and fast.gap_ratio < 1.05


def test_a_run_stopped_before_its_target_fails_and_says_how_many_more_rounds():
    solver = GearToy(9).solver()
    # the paper's damping, whose rate of progress the estimate below is measured on: the
    # excess of the gap ratio over 1 shrinks by a factor fitted over the rounds (7.45, 3.85,
    # 2.55: about 0.49 a round)
    target, rounds = 2.0, 3  # (the default target of a curve)
    short = ps.surf(solver, 20, alpha=0.3, iterations=rounds)  # no ParetoWarning: errors
    (uneven,) = short.findings
    assert uneven.code == "uneven" and not short.success and short.gap_ratio > target
    # the gap ratio, computed here: the largest chord over the smallest, in the coordinates
    # the run measures in (each objective over the range of the front's two ends)
    ends = short.points[[0, -1]]
    coords = (short.points - ends.min(axis=0)) / np.ptp(ends, axis=0)
    chords = np.linalg.norm(np.diff(coords, axis=0), axis=1)
    ratio = chords.max() / chords.min()
    # the rounds still needed, estimated here: the excess over 1 shrinks by the geometric
    # mean of its round-to-round factors, until it is the target's
    excess = [r.gap_ratio - 1.0 for r in short.history]
    factor = (excess[-1] / excess[0]) ** (1.0 / (len(excess) - 1))
    more = math.ceil(math.log((target - 1.0) / excess[-1]) / math.log(factor))
    assert more == 1
    # the message carries those facts: the ratio, the target, the rounds run, the rounds
    # still needed; the remedy the rounds to add and how (resume with more iterations)
    (summary,) = [line for line in short.message.splitlines() if line.startswith("uneven")]
    said = re.search(r"gap ratio (\S+) > target (\S+) after (\d+) rounds; ~(\d+) more", summary)
    assert said is not None, summary
    assert float(said[1]) == pytest.approx(ratio, abs=0.005)
    assert (float(said[2]), int(said[3]), int(said[4])) == (target, rounds, more)
    remedy = uneven.remedy_text()
    assert re.search(rf"\babout {more} more round\b", remedy)  # (one round: no plural)
    assert "resume=True" in remedy and "more iterations" in remedy
    # ... and the estimate holds: that many rounds more reach the target
    assert ps.surf(solver, 20, alpha=0.3, iterations=rounds + more).gap_ratio <= target
    # a looser target is met already; after one or two rounds there is no rate to fit (a
    # single factor says nothing of how steady it is)
    assert ps.surf(solver, 20, alpha=0.3, iterations=2, target=4).success
    for rounds in (1, 2):
        few = ps.surf(solver, 20, alpha=0.3, iterations=rounds).findings[0]
        assert "too few to tell" in few.message and "about" not in few.remedy_text()


def test_a_run_stopped_with_its_weights_still_moving_says_so_without_warning():
    solver = GearToy(9).solver()
    short = ps.surf(solver, 20, alpha=0.3, iterations=5)  # no ParetoWarning: the suite errors
    assert [f.code for f in short.findings] == ["unsettled"]
    assert short.success and "still moving" in short.message
    assert "alpha='auto'" in short.findings[0].remedy_text()  # the remedy a fixed alpha has
    # ... and not where it is the setting already, or the method has no damping
    umod = ps.methods.umod(solver, 20, iterations=2)
    assert [f.code for f in umod.findings] == ["unsettled"]
    assert "alpha" not in umod.findings[0].remedy_text()
    assert [f.code for f in ps.surf(solver, 20, alpha=0.3, iterations=30).findings] == []
    # the defaults (alpha="auto", early_stopping) end settled: nothing to report either
    assert [f.code for f in ps.surf(solver, 20, iterations=30).findings] == []
