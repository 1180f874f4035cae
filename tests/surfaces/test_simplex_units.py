"""SURF-simplex spaces its points as evenly in the coordinates it is asked to space them in,
raw or normalized: checked on random convex quadratics whose raw objectives span ranges up to
22 times apart (seeds 16 to 30, used for no choice of the method's settings), each run once
with ``normalize="endpoints"`` (measured in the coordinates normalized by the corner
solutions) and once with ``normalize="none"`` (measured in the raw objectives), against
each other and against the figures the method reached before its layout handled surfaces
narrower than the spacing (commit 12ae654)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import paretosurf as ps
from paretosurf import metrics
from paretosurf.problems import QuadraticM

SEEDS = tuple(range(16, 31))
#: Mean over SEEDS of the result's nearest-neighbour CV and max/min before (12ae654), in the
#: run's own coordinates: normalized ("endpoints") and raw ("none").
BEFORE = {"endpoints": (0.144, 2.19), "none": (0.158, 2.29)}
#: ... and the largest over the seeds in raw coordinates (seed 21, a surface narrower than
#: the spacing along most of its length).
BEFORE_WORST_RAW = (0.317, 4.66)


@pytest.fixture(scope="module")
def spread() -> dict[tuple[int, str], tuple[float, float, bool]]:
    """(seed, normalize) -> nn CV and max/min of the result, in that run's coordinates, and
    whether the run says it succeeded."""
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        for seed in SEEDS:
            problem = QuadraticM.random(3, 5, seed=seed)
            corners = problem.front(np.eye(3))
            ideal, nadir = corners.min(axis=0), corners.max(axis=0)
            for mode in ("endpoints", "none"):
                res = ps.surf_simplex(problem.solver(), 91, 3, iterations=20, normalize=mode)
                pts = (
                    (res.points - ideal) / (nadir - ideal) if mode == "endpoints" else (res.points)
                )
                out[seed, mode] = (metrics.nn_cv(pts), metrics.nn_ratio(pts), res.success)
    return out


def _mean(spread: dict[tuple[int, str], tuple[float, float, bool]], mode: str) -> np.ndarray:
    return np.mean([spread[seed, mode][:2] for seed in SEEDS], axis=0)


def _worst(spread: dict[tuple[int, str], tuple[float, float, bool]], mode: str) -> np.ndarray:
    return np.max([spread[seed, mode][:2] for seed in SEEDS], axis=0)


def test_the_fronts_are_anisotropic() -> None:
    """The raw objectives' ranges differ by factors of 1.2 to 22 over these seeds."""
    spans = np.array(
        [np.ptp(QuadraticM.random(3, 5, seed=s).front(np.eye(3)), axis=0) for s in SEEDS]
    )
    ratio = spans.max(axis=1) / spans.min(axis=1)
    assert ratio.max() > 20 and np.median(ratio) > 2


def test_raw_coordinates_are_spaced_about_as_evenly_as_normalized_ones(
    spread: dict[tuple[int, str], tuple[float, float, bool]],
) -> None:
    """On average as even; seed by seed, a raw run much less even than the normalized ones'
    worst (seed 21's surface, narrower than the spacing) says so (``success=False``; how
    uneven it may be at most is :func:`test_neither_is_less_even_than_before`'s). Which
    normalized run ends least even moves with numpy's version (2.2 and 2.4 differ in the last
    bits), so the raw runs are not held to it alone."""
    raw, normal = _mean(spread, "none"), _mean(spread, "endpoints")
    assert raw[0] <= 1.2 * normal[0]  # nn CV
    assert raw[1] <= 1.2 * normal[1]  # nn max/min
    worst_normal = _worst(spread, "endpoints")
    for seed in SEEDS:
        cv, ratio, success = spread[seed, "none"]
        if cv > 1.5 * worst_normal[0] or ratio > 1.5 * worst_normal[1]:
            assert not success, (seed, cv, ratio)


def test_neither_is_less_even_than_before(
    spread: dict[tuple[int, str], tuple[float, float, bool]],
) -> None:
    for mode, (cv, ratio) in BEFORE.items():
        now = _mean(spread, mode)
        assert now[0] <= cv and now[1] <= ratio, (mode, now)
    worst = _worst(spread, "none")
    assert worst[0] <= 0.8 * BEFORE_WORST_RAW[0] and worst[1] <= BEFORE_WORST_RAW[1]
