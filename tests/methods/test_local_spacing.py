"""Each weight's distance to its nearest other weight (:func:`local_spacing`): scalar weights
sorted instead of a k-d tree, to the last bit of the tree's distances."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import cKDTree

from paretosurf.methods._slots import local_spacing


def _tree_spacing(weights: np.ndarray) -> np.ndarray:
    """The reference: a k-d tree's nearest other row."""
    rows = weights.reshape(len(weights), -1)
    nearest, _ = cKDTree(rows).query(rows, k=2)
    return np.asarray(nearest[:, 1], dtype=np.float64)


@pytest.mark.parametrize("kind", range(4))
def test_scalar_weights_match_the_tree(kind: int) -> None:
    rng = np.random.default_rng(kind)
    for _ in range(500):
        n = int(rng.integers(2, 40))
        if kind == 0:
            w = rng.random(n)  # unsorted
        elif kind == 1:
            w = np.sort(rng.random(n)) ** int(rng.integers(1, 40))  # crowded at 0
        elif kind == 2:
            w = np.linspace(0.0, 1.0, n)
            w[1:-1] += rng.normal(0.0, 1e-9, n - 2)
        else:
            w = rng.integers(0, 5, n) / 4.0  # coinciding weights
        np.testing.assert_array_equal(local_spacing(w), _tree_spacing(w))


def test_weights_too_close_to_square_go_to_the_tree() -> None:
    """Below 1e-150 apart the tree's squared distance underflows (to 0): the same answer."""
    w = np.array([0.0, 1e-300, 0.5, 1.0])
    np.testing.assert_array_equal(local_spacing(w), _tree_spacing(w))
    assert local_spacing(w)[0] == 0.0


def test_weight_vectors_and_single_weights() -> None:
    v = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    np.testing.assert_array_equal(local_spacing(v), _tree_spacing(v))
    assert local_spacing(np.array([0.5])).tolist() == [np.inf]
