"""SURF remembers the weights that reached the front's end points (paretosurf.curves._flat_ends).

The truth used here: on ZDT1's front ``f2 = 1 - sqrt(f1)`` the weighted sum
``w f1 + (1 - w) f2`` is minimized at ``f1 = ((1 - w) / (2 w))^2`` clipped to [0, 1], so every
weight up to 1/3 gives the end point (1, 0): the arc-length CDF is flat on [0, 1/3].
"""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.curves._cdf import ArcLengthCDF
from paretosurf.curves._flat_ends import EndReach, end_runs, update_reach, with_end_knots
from paretosurf.testing import assert_same_result

surf_module = importlib.import_module("paretosurf.methods._surf")

THRESHOLD = 1.0 / 3.0  # every weight up to it reaches (1, 0)


def zdt1_exact(w: float, state: object) -> ps.Solution:
    f1 = 1.0 if w <= THRESHOLD else min(1.0, ((1.0 - w) / (2.0 * w)) ** 2)
    return ps.Solution(np.array([f1, 1.0 - np.sqrt(f1)]))


def first_round_at(res: ps.Result, gap: float) -> int:
    return next(i for i, r in enumerate(res.history) if r.gap_ratio <= gap)


def test_end_runs_finds_the_points_that_coincide_with_each_end() -> None:
    assert end_runs(np.array([True, True, False, False, True])) == (2, 4)
    assert end_runs(np.array([False, False])) == (0, 2)
    assert end_runs(np.array([True, True])) == (2, 2)  # every point the same


def test_reach_is_the_largest_weight_that_reached_the_end_and_is_kept_until_contradicted() -> None:
    w = np.linspace(0.0, 1.0, 9)
    pts = np.array([zdt1_exact(float(v), None).objectives for v in w])
    same = np.linalg.norm(np.diff(pts, axis=0), axis=1) <= 1e-12
    seen = update_reach(None, w, pts, same, 1e-9)
    # the largest of the weights k / 8 at or below 1/3
    assert seen.low == pytest.approx(0.25)
    assert seen.high == 1.0
    # a later round whose weights skip the stretch keeps the evidence
    w2 = np.array([0.0, 0.3, 0.5, 0.75, 1.0])
    pts2 = np.array([zdt1_exact(float(v), None).objectives for v in w2])
    same2 = np.linalg.norm(np.diff(pts2, axis=0), axis=1) <= 1e-12
    assert update_reach(seen, w2, pts2, same2, 1e-9).low == pytest.approx(0.3)
    # ... and a weight inside the remembered stretch that reaches another point replaces it
    moved = pts2.copy()
    moved[1] = [0.9, 0.05]
    kept = update_reach(seen, np.array([0.0, 0.2, 0.5, 0.75, 1.0]), moved, np.zeros(4, bool), 1e-9)
    assert kept.low == 0.0
    # ... as does an end point that moved (the solver's map changed)
    shifted = np.add(pts2, [0.1, 0.0])
    assert update_reach(seen, w2, shifted, np.zeros(4, bool), 1e-9).low == 0.0


def test_end_knots_keep_every_chord_and_the_cdf_at_the_round_weights() -> None:
    rng = np.random.default_rng(3)
    w = np.array([0.0, 0.2, 0.4, 0.55, 0.7, 0.9, 1.0])
    pts = np.cumsum(rng.uniform(0.1, 1.0, size=(7, 2)) * [1, -1], axis=0)
    pts[1] = pts[0]  # the low end reached by w = 0.2
    pts[5] = pts[6]  # the high end reached by w = 0.9
    chords = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    same = chords == 0.0
    reach = EndReach(0.3, 0.8, tuple(pts[0]), tuple(pts[-1]))
    breaks = [1, 3, 4]
    w2, p2, b2 = with_end_knots(w, pts, same, reach, breaks)
    assert w2.tolist() == [0.0, 0.2, 0.3, 0.4, 0.55, 0.7, 0.8, 0.9, 1.0]
    chords2 = np.linalg.norm(np.diff(p2, axis=0), axis=1)
    # the carried chord indices name chords of the same lengths, and no length was added
    np.testing.assert_allclose(chords2[b2], chords[breaks])
    assert chords2.sum() == pytest.approx(chords.sum())
    # the CDF at the round's own weights is the same: a fixed point of SURF stays one
    before = ArcLengthCDF.from_front(w, pts)
    after = ArcLengthCDF.from_front(w2, p2)
    # (to the floor the CDF puts under chords of no length)
    np.testing.assert_allclose(after(w), before(w), atol=1e-6)
    # and it is flat on the remembered stretches, where before it rose
    np.testing.assert_allclose(after(np.array([0.25, 0.3])), [0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(after(np.array([0.8, 0.85])), [1.0, 1.0], atol=1e-6)
    assert before(np.array([0.3]))[0] > 0.01 and before(np.array([0.8]))[0] < 0.99


@pytest.mark.parametrize("n_segments", [8, 20])
def test_remembered_ends_reach_even_spacing_in_fewer_rounds(
    n_segments: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = {"iterations": 20, "early_stopping": False}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        remembered = ps.surf(zdt1_exact, n_segments, **options)
        monkeypatch.setattr(surf_module, "with_end_knots", lambda w, c, s, r, b: (w, c, list(b)))
        forgotten = ps.surf(zdt1_exact, n_segments, **options)
    assert first_round_at(remembered, 1.01) < first_round_at(forgotten, 1.01)
    reached = first_round_at(remembered, 1.05)
    # once even, the weights stay out of the flat stretch: no relapse
    assert max(r.gap_ratio for r in remembered.history[reached:]) <= 1.05
    # every interior point of the result is on the front and off the end
    assert remembered.success
    assert np.all(remembered.weights[1:-1] > THRESHOLD)


def test_a_resumed_run_remembers_the_ends_as_the_uninterrupted_run(tmp_path: object) -> None:
    folder = f"{tmp_path}/run"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        whole = ps.surf(zdt1_exact, 8, iterations=7, early_stopping=False)
        ps.surf(zdt1_exact, 8, iterations=3, early_stopping=False, checkpoint=folder)
        resumed = ps.surf(
            zdt1_exact, 8, iterations=7, early_stopping=False, checkpoint=folder, resume=True
        )
    assert_same_result(resumed, whole)


def test_a_tchebycheff_solver_whose_first_solves_coincide_is_not_pinned_by_them() -> None:
    """Inexact first solves that coincide (three L-BFGS-B steps from one start) are not a
    flat stretch of the front: once the end point moves, the memory is dropped and the run
    still spaces its points evenly."""

    def zdt2(x: np.ndarray) -> np.ndarray:
        g = 1.0 + 9.0 * np.mean(x[1:])
        return np.array([x[0], g * (1.0 - (x[0] / g) ** 2)])

    solver = ps.adapters.from_scipy(
        zdt2, np.full(5, 0.5), bounds=[(0.0, 1.0)] * 5, scalarization="tchebycheff", steps=3
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf(solver, 10, iterations=20)
    assert ps.metrics.cv(res.points) < 0.01
