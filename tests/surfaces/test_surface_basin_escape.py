"""surf_simplex with warm_start="best" on a disconnected surface (DTLZ7, four pieces) and
local solves: each slot starts from the previous solution that scores best at its new weight
under the solver's own scalarization, so the points leave the piece their neighbours' basin
holds them on."""

from __future__ import annotations

import numpy as np
import pytest

import paretosurf as ps
from dtlz7_runs import dtlz7_run, true_piece
from paretosurf.adapters import Scalarization
from paretosurf.methods._slots import best_keys
from paretosurf.methods._surf_simplex import SurfSimplexMethod
from paretosurf.problems import DTLZ7


def _pieces_reached(points: np.ndarray, front: np.ndarray) -> set[int]:
    dist = np.min(np.linalg.norm(points[:, None, :] - front[None], axis=2), axis=1)
    return set(true_piece(points[dist <= 1e-2]).tolist())


@pytest.fixture(scope="module")
def runs() -> dict[str, tuple[ps.Result, object, np.ndarray]]:
    front = DTLZ7(3, n_distance=2).pareto_front(201)
    return {rule: (*dtlz7_run(rule), front) for rule in ("nearest", "best")}


def test_best_reaches_every_piece_where_nearest_stays_on_one(runs) -> None:  # type: ignore[no-untyped-def]
    near, _, front = runs["nearest"]
    best, _, _ = runs["best"]
    assert len(_pieces_reached(near.points, front)) == 1
    assert _pieces_reached(best.points, front) == {0, 1, 2, 3}


def test_no_point_is_beaten_at_its_own_weight_by_a_start_it_could_take(runs) -> None:  # type: ignore[no-untyped-def]
    """What "best" guarantees: each slot starts from the solution that scores best at its
    new weight among those the run kept, and a solve never ends higher than its start, so
    no final point is beaten at its own weight by a point of the round before (its
    candidates), under the solver's Tchebycheff value. (A point another slot found in the
    same round was no candidate: with two BLAS threads one such point beats one other by
    0.7% of the spread.)"""
    res, solver, _ = runs["best"]
    sc = solver.scalarization  # type: ignore[attr-defined]
    before = np.asarray(res.history[-2].points)
    own = np.array([float(sc(p, w)) for p, w in zip(res.points, res.weights, strict=True)])
    candidates = np.array([[float(sc(p, w)) for p in before] for w in res.weights])
    spread = candidates.max(axis=1) - candidates.min(axis=1)
    assert np.all(own <= candidates.min(axis=1) + 1e-6 * np.maximum(spread, 1e-300))
    # and most are beaten by no point of their own round either
    final = np.array([[float(sc(p, w)) for p in res.points] for w in res.weights])
    beaten = own > final.min(axis=1) + 1e-6 * (final.max(axis=1) - final.min(axis=1))
    assert beaten.sum() <= 0.1 * len(own)


def test_best_scores_with_the_declared_scalarization() -> None:
    """A slot whose point another point beats under Tchebycheff, but not under weighted
    sums, starts from that other point's state."""
    sc = Scalarization("tchebycheff", ideal=[0.0, 0.0, 0.0], rho=0.0)
    weights = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1 / 3, 1 / 3, 1 / 3]])
    # slot 3's point (0.1, 0.1, 1.0): weighted sum 0.4 at its weight, Tchebycheff 1/3;
    # slot 0's point (0.5, 0.5, 0.5): weighted sum 0.5, Tchebycheff 1/6
    points = np.array([[0.5, 0.5, 0.5], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0], [0.1, 0.1, 1.0]])
    assert float(np.dot(weights[3], points[3])) < float(np.dot(weights[3], points[0]))
    assert float(sc(points[0], weights[3])) < float(sc(points[3], weights[3]))
    starts = {}
    for label, source in (("tchebycheff", sc), ("none", None)):
        method = SurfSimplexMethod(4, 3, warm_start="best", scalarization=source)
        method.keys = [10, 11, 12, 13]
        method.last_weights, method.last_points = weights, points
        method._next = weights.copy()  # the same weights again
        starts[label] = list(method.propose().starts)
    assert starts["tchebycheff"][3] == 10
    assert starts["none"][3] == 13


def test_a_tie_keeps_the_fallback_start_not_the_slots_own() -> None:
    """Slots of a surface move between edges and faces: on a tie ``best`` keeps the start
    the nearest weight gives (``fallback``), and a clearly better point still wins."""
    points = np.array([[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]])
    weights = np.array([[0.5, 0.5], [0.9, 0.1], [0.1, 0.9]])
    # at (0.5, 0.5) every point scores 0.5 (a tie): weight 0 keeps its fallback, point 2's
    # key, or without one its own; at (0.9, 0.1) point 0 scores 0.1, below the fallback's
    # (point 1, 0.5); at (0.1, 0.9) point 2 scores 0.1, the best
    assert best_keys([10, 11, 12], points, weights, None, fallback=[2, 1, 2]) == [12, 10, 12]
    assert best_keys([10, 11, 12], points, weights, None) == [10, 10, 12]
