"""The weights :func:`paretosurf.surf_simplex` proposes: distinct in every round whatever the
number of points, and each slot kept in its place from round to round (each corner continues
from its own solution)."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf import metrics
from paretosurf.methods._surf_simplex import SurfSimplexMethod, _apart
from paretosurf.problems import QuadraticM
from paretosurf.surfaces._estimate import (
    FaceMap,
    face_mesh,
    face_samples,
    farthest_points,
    interior_of,
)


def flat(m: int) -> Any:
    """The front of ``h_k(x) = |x - e_k|^2 / 2``: the point solved at ``w`` is ``x = w``."""
    corners = np.eye(m)

    def solver(w: np.ndarray, state: object) -> ps.Solution:
        return ps.Solution(0.5 * ((w[None, :] - corners) ** 2).sum(axis=1), w)

    return solver


def distinct(weights: np.ndarray) -> int:
    return len({tuple(row) for row in np.round(weights, 12).tolist()})


# ---------------------------------------------------------------------------- distinct weights
@pytest.mark.parametrize(
    ("n_points", "m", "iterations"),
    [
        (100, 3, 2),  # 96 distinct in round 0 before the mesh grew with the points
        (400, 3, 2),  # 153 distinct
        (35, 4, 2),  # a lattice size: the layout of round 1
        (5, 4, 3),
        (7, 4, 3),
        (13, 4, 3),
        (4, 3, 3),
        (8, 3, 3),  # faces with few points
    ],
)
def test_every_round_solves_distinct_weights(n_points: int, m: int, iterations: int) -> None:
    # every round of a fixed schedule at the paper's damping (no early stop)
    res = ps.surf_simplex(
        flat(m), n_points, m, iterations=iterations, alpha=0.3, early_stopping=False
    )
    assert len(res.history) == iterations
    for record in res.history:
        assert distinct(record.weights) == n_points
    assert res.success, res.message


@pytest.mark.parametrize(
    ("n_points", "m"),
    [
        (70, 3),
        (1000, 3),
        (400, 4),
        (700, 4),  # 396 and 611: more points in the tetrahedron than its mesh held
    ],
)
def test_round_zero_has_distinct_weights_for_any_size(n_points: int, m: int) -> None:
    assert distinct(SurfSimplexMethod(n_points, m).next_weights()) == n_points


def test_no_two_weights_of_a_round_coincide_on_a_distorted_front() -> None:
    """Round 1 here shortened a move (the trust region) to the distance of the nearest solved
    weight, toward it, and the point there kept its weight: two weights 2.6e-7 apart (max/min
    of the round's points 857000)."""
    problem = QuadraticM.random(3, 5, seed=2)
    corners = problem.front(np.eye(3))
    res = ps.surf_simplex(
        problem.solver(), 91, 3, iterations=2, normalize=(corners.min(axis=0), corners.max(axis=0))
    )
    for record in res.history:
        gaps = metrics.nn_distances(record.weights)
        assert gaps.min() > 1e-3 * np.median(gaps)
    assert res.history[1].gap_ratio < 1000


def test_a_move_that_ends_on_another_point_is_not_made() -> None:
    start = np.array([[0.2, 0.2, 0.6], [0.4, 0.3, 0.3], [0.3, 0.5, 0.2]])
    solved = np.vstack([np.eye(3), start])
    fixed = np.array([[0.5, 0.5, 0.0]])
    onto_held = np.array([[0.2, 0.2, 0.6], [0.2 + 1e-9, 0.2, 0.6 - 1e-9], [0.3, 0.4, 0.3]])
    np.testing.assert_array_equal(
        _apart(onto_held, start, fixed, solved), [start[0], start[1], onto_held[2]]
    )
    onto_fixed = np.array([[0.25, 0.2, 0.55], [0.4, 0.3, 0.3], [0.5, 0.5 - 1e-9, 1e-9]])
    np.testing.assert_array_equal(
        _apart(onto_fixed, start, fixed, solved), [onto_fixed[0], start[1], start[2]]
    )
    # a chain: 2 moves onto 1's start, 1 onto 0's (held): both go back
    chain = np.array([start[0], start[0] + 1e-9 * np.array([1, -1, 0]), start[1]])
    np.testing.assert_array_equal(_apart(chain, start, fixed, solved), start)


def test_farthest_points_never_returns_a_sample_twice() -> None:
    """Nine triangles give nine new points at most, all distinct and none of the fixed ones;
    a collapsed estimate (every sample mapped to one point) still gives distinct weights."""
    fmap = FaceMap(np.eye(3), np.eye(3))
    samples = face_samples(fmap, subdivisions=3)
    got = farthest_points(fmap, samples, np.eye(3), 9)
    assert distinct(got) == 9
    with pytest.raises(ValueError, match="fewer than 10 new points"):
        farthest_points(fmap, samples, np.eye(3), 10)
    collapsed = FaceMap(np.eye(3), np.zeros((3, 3)))
    samples = face_samples(collapsed, subdivisions=3)
    assert distinct(farthest_points(collapsed, samples, np.eye(3), 9)) == 9


@pytest.mark.parametrize("k", [3, 4])
def test_the_mesh_grows_with_the_points_asked_for(k: int) -> None:
    corners = np.eye(k)
    default = len(face_mesh(corners)[1])
    assert len(face_mesh(corners, min_simplices=default)[1]) == default  # unchanged
    fmap = FaceMap(corners, corners)
    for wanted in (default + 1, 500):
        nodes, simplices = face_mesh(corners, min_simplices=wanted)
        assert len(simplices) >= wanted
        assert distinct(nodes[simplices].mean(axis=1)) == len(simplices)
        # the layout's samples are the centroids of the same mesh's simplices
        samples = face_samples(fmap, min_samples=wanted)
        assert len(samples.weights) == len(simplices)
        assert distinct(samples.weights) == len(simplices)


# ---------------------------------------------------------------------------- slot order
@pytest.mark.parametrize(("n_points", "m"), [(10, 3), (12, 3), (20, 4), (22, 4)])
def test_each_corner_continues_from_its_own_solution(n_points: int, m: int) -> None:
    """With ``warm_start="slot"`` every solve starts from its slot's last state; the state
    here records the weight it was solved at. Lattice sizes (10, 20) start from the
    Das-Dennis lattice, which lists the corners from e_M down to e_1."""
    problem = QuadraticM.random(m, 5, seed=0)
    exact = problem.solver()
    calls: list[tuple[tuple[float, ...], object]] = []

    def solver(w: np.ndarray, state: object) -> ps.Solution:
        key = tuple(np.asarray(w, dtype=np.float64).tolist())
        calls.append((key, state))
        return ps.Solution(exact.solve(w).objectives, key)

    res = ps.surf_simplex(solver, n_points, m, iterations=3, warm_start="slot")
    corner_calls = [(w, s) for w, s in calls if max(w) == 1.0]
    assert len(corner_calls) == 3 * m
    assert sum(s is None for _, s in corner_calls) == m  # round 0 starts cold
    assert all(s == w for w, s in corner_calls if s is not None)
    for record in res.history:
        np.testing.assert_array_equal(record.weights[:m], np.eye(m))


def test_a_crowded_point_restarts_in_its_own_slot(monkeypatch: pytest.MonkeyPatch) -> None:
    """A point inside a face that landed on another restarts in the largest hole; every other
    point of the face keeps its slot (before, the slots after it each took the next one's
    point, and with ``warm_start="slot"`` its neighbour's state)."""
    module = importlib.import_module("paretosurf.methods._surf_simplex")
    # surf_simplex is the function
    method = SurfSimplexMethod(28, 3)
    weights = method.next_weights()  # the lattice, 10 inside
    inside = np.flatnonzero(interior_of(weights, (0, 1, 2)))
    first, second = inside[1], inside[4]
    weights[second] = weights[first] + np.array([1e-4, -1e-4, 0.0])
    starts: list[np.ndarray] = []
    real = module.restricted_cvt

    def spy(fmap: Any, samples: Any, fixed: Any, start: Any) -> Any:
        starts.append(start.copy())
        return real(fmap, samples, fixed, start)

    monkeypatch.setattr(module, "restricted_cvt", spy)
    method._layout(weights, weights.copy())  # the flat front f(w) = w
    (start,) = starts
    assert len(start) == len(inside)
    same = np.all(start == weights[inside], axis=1)
    assert not same[4] and same.sum() == len(inside) - 1
    assert np.min(np.linalg.norm(start[4] - weights[inside[[1]]], axis=1)) > 0.05


# ---------------------------------------------------------------------------- messages
@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((10, 3.0), "n_objectives must be an integer >= 2, got 3.0"),
        ((10, True), "n_objectives must be an integer >= 2"),
        ((10.0, 3), "n_points must be an integer >= n_objectives = 3, got 10.0"),
    ],
)
def test_sizes_that_are_not_integers_are_refused_with_their_minimum(
    args: tuple[Any, Any], match: str
) -> None:
    with pytest.raises(TypeError, match=match):
        ps.surf_simplex(flat(3), *args)
