"""Simplex weight designs: sizes, sums, corners, determinism, and pymoo as independent truth."""

from __future__ import annotations

import importlib.util
import math
import sys

import numpy as np
import pytest

from paretosurf.surfaces._weights import (
    SUM_TOLERANCE,
    check_simplex_weights,
    energy_weights,
    lattice_partitions,
    lattice_size,
    random_simplex_weights,
    simplex_lattice,
)

HAS_PYMOO = importlib.util.find_spec("pymoo") is not None


def as_set(w: np.ndarray, h: int) -> set[tuple[int, ...]]:
    """Rows as integer counts (exact), for comparing designs as sets."""
    counts = np.rint(w * h).astype(int)
    np.testing.assert_allclose(counts / h, w, atol=1e-12)
    return {tuple(r) for r in counts.tolist()}


# ---------------------------------------------------------------------------- lattice
@pytest.mark.parametrize(("m", "h"), [(2, 1), (2, 7), (3, 1), (3, 4), (3, 12), (4, 5), (6, 3)])
def test_lattice_shape_sums_and_grid(m: int, h: int) -> None:
    w = simplex_lattice(m, h)
    assert w.shape == (math.comb(h + m - 1, m - 1), m) == (lattice_size(m, h), m)
    assert np.all(w >= 0)
    np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-14)
    counts = as_set(w, h)  # entries are multiples of 1/H
    assert len(counts) == w.shape[0]  # no duplicates
    assert all(sum(c) == h for c in counts)
    # every corner is there
    assert {tuple(h * np.eye(m, dtype=int)[i]) for i in range(m)} <= counts
    check_simplex_weights(w, m)


def test_lattice_is_every_composition() -> None:
    # brute force: all integer vectors in [0, H]^M summing to H
    m, h = 4, 4
    grid = np.stack(np.meshgrid(*[np.arange(h + 1)] * m, indexing="ij"), -1).reshape(-1, m)
    truth = {tuple(r) for r in grid[grid.sum(axis=1) == h].tolist()}
    assert as_set(simplex_lattice(m, h), h) == truth


def test_lattice_order_is_lexicographic() -> None:
    w = simplex_lattice(4, 3)
    rows = [tuple(r) for r in w.tolist()]
    assert rows == sorted(rows)
    assert rows[0] == (0.0, 0.0, 0.0, 1.0) and rows[-1] == (1.0, 0.0, 0.0, 0.0)
    np.testing.assert_array_equal(simplex_lattice(4, 3), w)  # deterministic


@pytest.mark.skipif(not HAS_PYMOO, reason="pymoo not installed")
@pytest.mark.parametrize(("m", "h"), [(2, 9), (3, 1), (3, 6), (3, 12), (4, 4), (5, 3)])
def test_lattice_matches_pymoo_das_dennis(m: int, h: int) -> None:
    from pymoo.util.ref_dirs import get_reference_directions

    theirs = get_reference_directions("das-dennis", m, n_partitions=h)
    ours = simplex_lattice(m, h)
    assert ours.shape == theirs.shape
    assert as_set(ours, h) == as_set(theirs, h)


def test_lattice_triangle_spacing() -> None:
    # M = 3: a triangular lattice of spacing sqrt(2)/H in the plane sum(w) = 1
    h = 5
    w = simplex_lattice(3, h)
    d = np.sqrt(((w[:, None] - w[None]) ** 2).sum(-1))
    np.fill_diagonal(d, np.inf)
    np.testing.assert_allclose(d.min(axis=1), np.sqrt(2) / h, rtol=1e-12)


@pytest.mark.parametrize(("m", "h"), [(2, 10), (3, 12), (3, 1), (4, 6), (7, 2)])
def test_lattice_partitions_inverts_size(m: int, h: int) -> None:
    assert lattice_partitions(lattice_size(m, h), m) == h


def test_lattice_partitions_names_nearest_sizes() -> None:
    with pytest.raises(
        ValueError,
        match=r"near 90 are 78 \(n_partitions=11\) and 91 "
        r"\(n_partitions=12\)",
    ):
        lattice_partitions(90, 3)
    with pytest.raises(ValueError, match=r"for 4 objectives .* 20 \(n_partitions=3\) and 35"):
        lattice_partitions(21, 4)
    with pytest.raises(ValueError, match="smallest lattice has 3 points"):
        lattice_partitions(2, 3)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: simplex_lattice(1, 3), ValueError, "n_objectives must be an integer >= 2"),
        (lambda: simplex_lattice(3, 0), ValueError, "n_partitions"),
        (lambda: simplex_lattice(3, 2.0), TypeError, "n_partitions"),
        (lambda: lattice_size(3, -1), ValueError, "n_partitions"),
        (lambda: lattice_partitions(0, 3), ValueError, "n_points"),
        (lambda: lattice_partitions(10, True), TypeError, "n_objectives"),
    ],
)
def test_lattice_bad_arguments(call, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------------------------------------- random
@pytest.mark.parametrize(("n", "m"), [(2, 2), (3, 3), (50, 3), (40, 5)])
def test_random_weights(n: int, m: int) -> None:
    w = random_simplex_weights(n, m, seed=4)
    assert w.shape == (n, m)
    np.testing.assert_array_equal(w[:m], np.eye(m))
    assert np.all(w >= 0)
    np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-12)
    check_simplex_weights(w, m)


def test_random_weights_seeded_and_from_the_documented_generator() -> None:
    a = random_simplex_weights(20, 3, seed=7)
    np.testing.assert_array_equal(a, random_simplex_weights(20, 3, seed=7))
    assert not np.array_equal(a, random_simplex_weights(20, 3, seed=8))
    expected = np.random.default_rng(7).dirichlet(np.ones(3), size=17)
    np.testing.assert_array_equal(a[3:], expected)
    gen = random_simplex_weights(20, 3, seed=np.random.default_rng(7))
    np.testing.assert_array_equal(gen, a)


def test_random_weights_are_uniform_on_the_simplex() -> None:
    # flat Dirichlet on the triangle: each marginal is Beta(1, 2), mean 1/3, P(w_1 > 1/2) = 1/4
    w = random_simplex_weights(20003, 3, seed=0)[3:]
    np.testing.assert_allclose(w.mean(axis=0), 1 / 3, atol=0.01)
    assert np.mean(w[:, 0] > 0.5) == pytest.approx(0.25, abs=0.015)


def test_random_weights_bad_arguments() -> None:
    with pytest.raises(ValueError, match="at least n_objectives = 4"):
        random_simplex_weights(3, 4)
    with pytest.raises(ValueError, match="n_objectives"):
        random_simplex_weights(3, 1)


# ---------------------------------------------------------------------------- energy
@pytest.mark.skipif(not HAS_PYMOO, reason="pymoo not installed")
def test_energy_weights() -> None:
    w = energy_weights(12, 3, seed=2)
    assert w.shape == (12, 3)
    assert np.all(w >= 0)
    np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-15)
    check_simplex_weights(w, 3)
    # the corners are among them, and the points are spread: no two within half the mean
    # nearest-neighbour distance
    for corner in np.eye(3):
        assert np.min(np.abs(w - corner).max(axis=1)) < 1e-6
    d = np.sqrt(((w[:, None] - w[None]) ** 2).sum(-1))
    np.fill_diagonal(d, np.inf)
    nn = d.min(axis=1)
    assert nn.min() > 0.5 * nn.mean()
    np.testing.assert_array_equal(w, energy_weights(12, 3, seed=2))  # deterministic


def test_energy_weights_without_pymoo(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [k for k in sys.modules if k == "pymoo" or k.startswith("pymoo.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pymoo", None)  # makes ``import pymoo`` fail
    with pytest.raises(ImportError, match=r'pip install "paretosurf\[many\]"'):
        energy_weights(10, 3)


def test_energy_weights_bad_arguments() -> None:
    with pytest.raises(ValueError, match="at least n_objectives = 3"):
        energy_weights(2, 3)
    with pytest.raises(TypeError, match="seed"):
        energy_weights(5, 3, seed=None)


# ---------------------------------------------------------------------------- checks
def test_check_simplex_weights_accepts_and_converts() -> None:
    w = check_simplex_weights([[1, 0], [0.25, 0.75]])
    assert w.dtype == np.float64 and w.shape == (2, 2)
    check_simplex_weights([[0.5, 0.5 + 0.5 * SUM_TOLERANCE]])  # within the tolerance


@pytest.mark.parametrize(
    ("weights", "kwargs", "match"),
    [
        ([0.5, 0.5], {}, "my_w must be a 2-D array"),
        ([[1.0]], {}, "my_w must be a 2-D array .* 2 columns"),
        (np.zeros((0, 3)), {}, "at least 1 row"),
        ([[0.5, 0.5]], {"n_objectives": 3}, "my_w must have 3 columns"),
        ([[0.5, np.nan], [0.5, 0.5]], {}, r"my_w must be finite; rows \[0\]"),
        ([[1.0, 0.0], [1.5, -0.5]], {}, r"my_w must be >= 0; rows \[1\]"),
        ([[1.0, 0.0], [0.3, 0.3]], {}, r"each row of my_w must sum to 1 .* rows \[1\]"),
        ([[0.5, 0.5 + 4 * SUM_TOLERANCE]], {}, "sum to 1"),
    ],
)
def test_check_simplex_weights_rejects(weights, kwargs, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        check_simplex_weights(weights, name="my_w", **kwargs)
