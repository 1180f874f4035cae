"""The fast paths of the end-of-run checks give what the plain computations give, bit for bit.

Each check below once compared every pair of points (or scanned every point an earlier round
found for each slot); the fast paths sort instead. The references here are those plain
computations, run on random sets with ties, coinciding points, signed zeros and points off
the front.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from paretosurf.findings._dominated import (
    TIE_TOL,
    _beaten_by_any,
    _dominated_by_earlier,
    _weakly_dominated,
)
from paretosurf.findings._local_minima import LOCAL_MARGIN, local_minimum_slots
from paretosurf.findings._stuck import _stuck


def _pairwise_weakly_dominated(points: np.ndarray, ranges: np.ndarray) -> np.ndarray:
    """The reference: every pair of rows compared."""
    tie = TIE_TOL * np.where(ranges > 0, ranges, 1.0)
    better_or_tie = np.all(points[None, :, :] <= points[:, None, :] + tie, axis=2)
    strictly = np.any(points[None, :, :] < points[:, None, :] - tie, axis=2)
    beaten = better_or_tie & strictly
    np.fill_diagonal(beaten, False)
    return np.asarray(beaten.any(axis=1), dtype=bool)


def _random_points(rng: np.random.Generator, n: int, kind: int) -> np.ndarray:
    """Two-objective points of several kinds: a small integer lattice (ties everywhere),
    uniform noise, a convex front with points nudged by a tie, and signed zeros."""
    if kind == 0:
        return rng.integers(0, 4, size=(n, 2)).astype(float)
    if kind == 1:
        return rng.random((n, 2))
    if kind == 2:
        w = np.sort(rng.random(n))
        points = np.c_[(1 - w) ** 2, w**2]
        points[rng.random(n) < 0.3] += 1e-10
        return points
    points = rng.integers(0, 2, size=(n, 2)).astype(float) * 1e-9
    points[rng.random((n, 2)) < 0.5] *= -1.0
    return points + rng.integers(0, 2, size=(n, 2))


@pytest.mark.parametrize("kind", range(4))
def test_weakly_dominated_matches_the_pairwise_test(kind: int) -> None:
    rng = np.random.default_rng(kind)
    for _ in range(300):
        points = _random_points(rng, int(rng.integers(1, 30)), kind)
        ranges = np.ptp(points, axis=0)
        expected = _pairwise_weakly_dominated(points, ranges)
        np.testing.assert_array_equal(_weakly_dominated(points, ranges), expected)


@pytest.mark.parametrize("kind", range(4))
def test_beaten_by_any_matches_a_scan_of_the_points_seen(kind: int) -> None:
    rng = np.random.default_rng(10 + kind)
    for _ in range(300):
        points = _random_points(rng, int(rng.integers(1, 20)), kind)
        seen = _random_points(rng, int(rng.integers(1, 40)), kind)
        margin = 0.05 * np.ptp(points, axis=0) * float(rng.integers(0, 2))
        candidates = sorted(rng.choice(len(points), size=rng.integers(0, len(points) + 1)))
        expected = [i for i in candidates if np.any(np.all(seen < points[i] - margin, axis=1))]
        assert _beaten_by_any(seen, points, candidates, margin) == expected


def test_an_earlier_round_still_names_the_point_that_beats_each_slot() -> None:
    """The fast test only picks the slots; the finding names the point the scan picks: of
    those that beat the slot by the margin, the nearest in the sum of the objectives."""
    w = np.linspace(0.0, 1.0, 7)
    front = np.c_[(1.0 - w) ** 2, w**2]
    final = front + np.array([0.0, 0.0, 0.2, 0.0, 0.3, 0.0, 0.0])[:, None]
    history = [SimpleNamespace(weights=w, points=front), SimpleNamespace(weights=w, points=final)]
    (found,) = _dominated_by_earlier(final, history, range(1, 6), None)
    assert found.slots == (2, 4)
    ranges = np.ptp(final, axis=0)
    seen = np.vstack([front, final])
    for i in (2, 4):
        better = seen[np.all(seen < final[i] - 0.05 * ranges, axis=1)]
        best = better[np.argmin(np.sum((better - final[i]) / ranges, axis=1))]
        assert f"slot {i} by {np.array2string(best, precision=4, separator=', ')}" in found.message


def test_local_minima_of_a_converged_run_need_only_the_last_round() -> None:
    """Where no slot lags in the last round, the answer is none whatever the earlier rounds;
    where one does, the rounds before still decide."""
    w = np.linspace(0.0, 1.0, 5)
    front = np.c_[(1 - w) ** 2, w**2]
    stuck = front.copy()
    stuck[2] += 0.2
    rounds = [SimpleNamespace(weights=w, points=p) for p in (stuck, stuck, front)]
    assert local_minimum_slots(w, front, rounds) == []
    assert local_minimum_slots(w, stuck, [SimpleNamespace(weights=w, points=stuck)] * 3) == [2]
    # (lagging in the last round only: a lag that did not last is no local minimum)
    lagging = [SimpleNamespace(weights=w, points=p) for p in (front, front, stuck)]
    assert local_minimum_slots(w, stuck, lagging) == []
    assert LOCAL_MARGIN < 0.2


def test_stuck_slots_are_found_with_the_lagging_points_given_or_not() -> None:
    """Four of eight slots that never left one point off the front, which a weighted sum beats: the
    ``stuck`` finding names them, whether the lagging points come from the evidence or are
    computed here."""
    w = np.linspace(0.0, 1.0, 8)
    points = np.c_[(1 - w) ** 2, w**2]
    points[[2, 3, 4, 5]] = [0.6, 0.6]
    history = [SimpleNamespace(weights=w, points=points)] * 3
    ranges = np.ptp(points, axis=0)
    found = _stuck(w, points, ranges, history, True)
    given = _stuck(w, points, ranges, history, True, own_lagging=lambda: [2, 3, 4, 5])
    assert found is not None and given is not None
    assert found.slots == given.slots == (2, 3, 4, 5)
    assert found.message == given.message
