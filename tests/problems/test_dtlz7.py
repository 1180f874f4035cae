"""DTLZ7: its front sample checked by pairwise dominance, by counting its pieces, against the
objectives at optimal decisions, and its exact solver against brute force."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from paretosurf.problems import DTLZ7


def test_front_sample_is_mutually_non_dominated() -> None:
    front = DTLZ7(3).pareto_front(61)
    le = np.all(front[:, None, :] <= front[None, :, :], axis=-1)
    lt = np.any(front[:, None, :] < front[None, :, :], axis=-1)
    dominates = le & lt
    assert not dominates.any()


def test_front_has_four_pieces() -> None:
    n = 201
    front = DTLZ7(3).pareto_front(n)
    # neighbours on the grid lie within one step in (f1, f2); the gaps are wider than 0.3
    pos = front[:, :2]
    pairs = cKDTree(pos).query_pairs(r=1.5 / (n - 1), output_type="ndarray")
    graph = np.zeros((len(pos), len(pos)), dtype=bool)
    graph[pairs[:, 0], pairs[:, 1]] = True
    n_pieces, labels = connected_components(graph, directed=False)
    assert n_pieces == 4
    sizes = np.bincount(labels)
    assert sizes.min() > 100


def test_objectives_at_optimal_decisions_match_the_surface() -> None:
    prob = DTLZ7(3, n_distance=5)
    rng = np.random.default_rng(0)
    x = np.zeros((50, prob.n_var))
    x[:, :2] = rng.random((50, 2))
    f = prob.objectives_many(x)
    f1, f2 = x[:, 0], x[:, 1]
    f3 = 2 * (3 - f1 / 2 * (1 + np.sin(3 * np.pi * f1)) - f2 / 2 * (1 + np.sin(3 * np.pi * f2)))
    np.testing.assert_allclose(f, np.column_stack([f1, f2, f3]), rtol=0, atol=1e-12)
    # a distance variable above 0 makes the last objective worse
    y = x.copy()
    y[:, 2] = 0.5
    assert np.all(prob.objectives_many(y)[:, 2] > f[:, 2])


def test_exact_solver_beats_brute_force() -> None:
    prob = DTLZ7(3, n_distance=2)
    grid = np.linspace(0, 1, 401)
    a, b = np.meshgrid(grid, grid, indexing="ij")
    x = np.zeros((a.size, prob.n_var))
    x[:, 0], x[:, 1] = a.ravel(), b.ravel()
    values = prob.objectives_many(x)
    for w in ([0.2, 0.3, 0.5], [0.6, 0.1, 0.3], [1 / 3, 1 / 3, 1 / 3]):
        best = float(np.min(values @ np.array(w)))
        got = float(np.array(w) @ prob.front(np.array(w)))
        assert got <= best + 1e-12
        assert got == pytest.approx(best, abs=1e-3)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="n_objectives"):
        DTLZ7(1)
    with pytest.raises(ValueError, match="x must lie in"):
        DTLZ7(3).objectives(np.full(22, 2.0))
