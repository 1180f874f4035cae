"""Points spread over the pieces of a disconnected surface along the solver's rays
(:mod:`paretosurf.surfaces._rays`): the ray weights against the scalarization's own terms, the
evidence of gaps, and whole runs with exact Tchebycheff solves on DTLZ7's front (four pieces)
and on a connected front."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import paretosurf as ps
from dtlz7_runs import true_piece
from paretosurf.adapters import Scalarization
from paretosurf.loop._driver import run
from paretosurf.methods._surf_simplex import SurfSimplexMethod
from paretosurf.metrics import nn_ratio
from paretosurf.problems import DTLZ7
from paretosurf.surfaces._pieces import pieces_of_labels
from paretosurf.surfaces._rays import (
    EXPLORE_ROUNDS,
    current_coordinates,
    off_ray,
    ray_directions,
    ray_weights,
)
from paretosurf.testing import assert_same_result


@pytest.mark.parametrize("kind", ["tchebycheff", "modified_tchebycheff", "asf"])
def test_a_ray_weight_puts_its_point_on_the_ray(kind: str) -> None:
    """The scalarization's own terms ``c_m(w) (q_m - z_m)`` are equal at the ray weight of
    ``q``: the point is where a solve at that weight lands."""
    rng = np.random.default_rng(0)
    z = rng.normal(size=3)
    q = z + rng.uniform(0.2, 5.0, size=(50, 3))
    scale = rng.uniform(0.5, 3.0, size=3)
    w = ray_weights(ray_directions(q, z, scale), scale, kind)
    assert np.allclose(w.sum(axis=1), 1.0) and np.all(w > 0)
    sc = Scalarization(kind, ideal=z, rho=0.0, floor=1e-9)
    terms = np.stack([sc.coefficients(wi) * (qi - z) for wi, qi in zip(w, q, strict=True)])
    assert np.allclose(np.ptp(terms, axis=1) / terms.mean(axis=1), 0.0, atol=1e-9)


def test_off_ray_flags_points_a_solve_left_its_ray_for() -> None:
    rng = np.random.default_rng(1)
    z = np.zeros(3)
    w = rng.dirichlet(np.ones(3), size=20)
    on = 1.0 / w  # Tchebycheff: w_m q_m equal
    off = on.copy()
    off[:, 0] *= 1.5
    tch = Scalarization("tchebycheff", ideal=z, floor=1e-6)
    assert not off_ray(on, w, tch).any()
    assert off_ray(off, w, tch).all()
    asf = Scalarization("asf", ideal=z, floor=1e-6)
    assert not off_ray(w, w, asf).any()  # asf: q_m / w_m equal


def test_current_coordinates_maps_earlier_points_affinely_or_gives_up() -> None:
    rng = np.random.default_rng(2)
    raw = rng.uniform(size=(10, 3))
    lo, span = np.array([0.1, -1.0, 2.0]), np.array([2.0, 0.5, 4.0])
    earlier = rng.uniform(size=(5, 3))
    got = current_coordinates(earlier, raw, (raw - lo) / span)
    assert got is not None and np.allclose(got, (earlier - lo) / span)
    assert current_coordinates(earlier, raw, np.sqrt(raw)) is None
    # coordinates of another dimension (a callable normalization): no affine map per column
    assert current_coordinates(earlier, raw, raw[:, :2]) is None
    assert current_coordinates(earlier, raw, np.c_[raw, raw[:, :1]]) is None


class FrontOracle:
    """Exact (augmented) Tchebycheff solves over a dense sample of a front: each solve
    returns the sample point that scores best at its weight, whatever the start."""

    def __init__(self, front: np.ndarray) -> None:
        self.front = front
        ideal = front.min(axis=0) - 1e-6 * np.ptp(front, axis=0)
        self.scalarization = Scalarization("tchebycheff", ideal=ideal)

    def __call__(self, weight: np.ndarray, state: object) -> ps.Solution:
        i = int(np.argmin(self.scalarization(self.front, weight)))
        return ps.Solution(self.front[i].copy(), i)


def _run(
    front: np.ndarray, rounds: int, warm_start: str = "best", **options: object
) -> tuple[ps.Result, SurfSimplexMethod]:
    solver = FrontOracle(front)
    method = SurfSimplexMethod(28, 3, warm_start=warm_start, scalarization=solver.scalarization)
    res = run(method, solver, iterations=rounds, **options)  # type: ignore[arg-type]
    return res, method


@pytest.fixture(scope="module")
def dtlz7_front() -> np.ndarray:
    return DTLZ7(3).pareto_front(121)


def test_dtlz7_points_spread_evenly_over_all_four_pieces(dtlz7_front: np.ndarray) -> None:
    res, method = _run(dtlz7_front, 30)
    assert method.ray_mode
    assert res.success, res.message
    # spaced evenly in the run's coordinates: ideal and nadir of the corners' points
    corners = res.points[res.weights.max(axis=1) == 1.0]
    low, high = corners.min(axis=0), corners.max(axis=0)
    assert nn_ratio((res.points - low) / (high - low)) <= 3.0
    # the reported pieces are DTLZ7's four, none mixed, each with points in proportion
    assert res.pieces is not None and len(res.pieces) == 4
    truth = true_piece(res.points)
    assert sorted(len(set(truth[list(p.members)].tolist())) for p in res.pieces) == [1] * 4
    assert sorted(set(truth.tolist())) == [0, 1, 2, 3]
    assert min(p.share for p in res.pieces) >= 3


def test_the_weight_simplex_layout_alone_crowds_the_rims(dtlz7_front: np.ndarray) -> None:
    """The rounds before the switch, laid out on the weight simplex, leave the same solves
    uneven (gaps bridged, rims crowded): the rays are what evens them out."""
    res, _ = _run(dtlz7_front, EXPLORE_ROUNDS, early_stopping=False)
    ratios = [h.gap_ratio for h in res.history]
    assert min(ratios) > 3.0


def test_warm_starts_that_keep_their_basins_keep_the_weight_simplex(
    dtlz7_front: np.ndarray,
) -> None:
    """Only "best" moves to the rays: solves that keep their neighbours' basins find few of
    the pieces, and an even layout over those would pass for the whole front."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)  # the layout there is uneven
        _, method = _run(
            dtlz7_front, EXPLORE_ROUNDS + 3, warm_start="nearest", early_stopping=False
        )
    assert not method.ray_mode


def test_a_connected_surface_stays_on_the_weight_simplex() -> None:
    """No ray meets a gap on the sphere's octant: the layout never switches."""
    rng = np.random.default_rng(3)
    sphere = np.abs(rng.normal(size=(20000, 3)))
    sphere /= np.linalg.norm(sphere, axis=1, keepdims=True)
    res, method = _run(sphere, 14, early_stopping=False)
    assert not method.ray_mode
    assert res.pieces is None


def test_a_resumed_ray_layout_run_ends_as_an_uninterrupted_one(
    dtlz7_front: np.ndarray, tmp_path: Path
) -> None:
    whole, _ = _run(dtlz7_front, 14, early_stopping=False)
    _run(dtlz7_front, 11, early_stopping=False, checkpoint=tmp_path / "run")
    resumed, method = _run(
        dtlz7_front, 14, early_stopping=False, checkpoint=tmp_path / "run", resume=True
    )
    assert method.ray_mode
    assert len(resumed.history) == len(whole.history) == 14
    # as uninterrupted, bit for bit: weights, points, states, counts, CDF, every record
    assert_same_result(resumed, whole)
    assert resumed.pieces == whole.pieces


def test_records_measure_the_spacing_within_the_pieces() -> None:
    """Two evenly spaced islands and a lone point: the spacing is each point's distance to
    its nearest neighbour in its own piece (the lone point has none), not across the gaps."""
    grid = np.array([[x, y, 0.0] for x in range(3) for y in range(3)], dtype=float)
    points = np.vstack([grid, grid + np.array([10.0, 0.0, 0.0]), [[4.0, 4.0, 0.0]]])
    weights = np.full((len(points), 3), 1 / 3)
    pieces = pieces_of_labels(points, np.array([0] * 9 + [1] * 9 + [2]))
    timing = {"seconds": 0.0, "solve_seconds": 0.0, "n_solves": 1, "n_steps": 1}
    record = ps.IterationRecord.from_points(0, weights, points, pieces=pieces, **timing)
    assert record.gap_ratio == pytest.approx(1.0) and record.cv == pytest.approx(0.0)
    whole = ps.IterationRecord.from_points(0, weights, points, **timing)
    assert whole.gap_ratio == pytest.approx(nn_ratio(points)) and whole.gap_ratio > 2
