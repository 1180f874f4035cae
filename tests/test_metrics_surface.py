"""Surface metrics (nearest-neighbour spacing, covering radius) against independent truth:
brute-force pairwise distances and the known geometry of square and triangular lattices."""

from __future__ import annotations

import numpy as np
import pytest

from paretosurf import metrics


def brute_nn(points: np.ndarray) -> np.ndarray:
    """Nearest-other-point distances from the full pairwise distance matrix."""
    d = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
    np.fill_diagonal(d, np.inf)
    return d.min(axis=1)


def brute_covering(points: np.ndarray, reference: np.ndarray) -> float:
    d = np.sqrt(((reference[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
    return float(d.min(axis=1).max())


def triangle_lattice(n: int, a: float = 1.0) -> np.ndarray:
    """Triangular lattice of spacing ``a`` filling the equilateral triangle of side ``n a``."""
    rows = [(i, j) for j in range(n + 1) for i in range(n + 1 - j)]
    ij = np.array(rows, dtype=float)
    return a * np.c_[ij[:, 0] + ij[:, 1] / 2, ij[:, 1] * np.sqrt(3) / 2]


def square_lattice(n: int, h: float = 1.0) -> np.ndarray:
    g = np.arange(n + 1) * h
    return np.stack(np.meshgrid(g, g), axis=-1).reshape(-1, 2)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("m", [2, 3, 5])
def test_nn_distances_match_brute_force(seed: int, m: int) -> None:
    rng = np.random.default_rng(seed)
    pts = rng.normal(size=(40, m))
    np.testing.assert_allclose(metrics.nn_distances(pts), brute_nn(pts), rtol=1e-12)


def test_summaries_from_definitions() -> None:
    rng = np.random.default_rng(11)
    pts = rng.uniform(size=(30, 3))
    d = brute_nn(pts)
    mean = d.sum() / d.size
    std = np.sqrt(((d - mean) ** 2).sum() / d.size)  # population std
    assert metrics.nn_cv(pts) == pytest.approx(std / mean, rel=1e-12)
    assert metrics.nn_ratio(pts) == pytest.approx(d.max() / d.min(), rel=1e-12)
    assert metrics.nn_min_ratio(pts) == pytest.approx(d.min() / mean, rel=1e-12)


@pytest.mark.parametrize("n", [1, 4, 9])
def test_triangular_lattice_is_perfect(n: int) -> None:
    pts = triangle_lattice(n, a=0.3)
    np.testing.assert_allclose(metrics.nn_distances(pts), 0.3, rtol=1e-12)
    assert metrics.nn_cv(pts) == pytest.approx(0.0, abs=1e-12)
    assert metrics.nn_ratio(pts) == pytest.approx(1.0, abs=1e-12)
    assert metrics.nn_min_ratio(pts) == pytest.approx(1.0, abs=1e-12)


def test_square_lattice_is_perfect_in_3d() -> None:
    g = np.arange(4.0)
    cube = np.stack(np.meshgrid(g, g, g), axis=-1).reshape(-1, 3)
    assert metrics.nn_cv(cube) == 0.0
    assert metrics.nn_ratio(cube) == 1.0
    assert metrics.nn_min_ratio(cube) == 1.0


def test_coincident_points() -> None:
    pts = [[0, 0, 1], [0, 0, 1], [1, 0, 0], [0, 1, 0]]
    assert metrics.nn_distances(pts)[:2].tolist() == [0.0, 0.0]
    assert metrics.nn_ratio(pts) == np.inf
    assert metrics.nn_min_ratio(pts) == 0.0
    same = [[1.0, 2.0], [1.0, 2.0]]
    assert np.isnan(metrics.nn_cv(same))
    assert np.isnan(metrics.nn_min_ratio(same))


def test_covering_radius_of_triangular_lattice_is_circumradius() -> None:
    a, n = 0.25, 4
    pts = triangle_lattice(n, a)
    # a 3x finer lattice over the same triangle holds every small triangle's centroid, which
    # are the farthest points from the lattice: distance a / sqrt(3)
    fine = triangle_lattice(3 * n, a / 3)
    assert metrics.covering_radius(pts, fine) == pytest.approx(a / np.sqrt(3), rel=1e-12)
    # a dense random sample of the triangle (barycentric) comes close to it from below
    rng = np.random.default_rng(0)
    bary = rng.dirichlet(np.ones(3), size=20000)
    corners = np.array([[0.0, 0.0], [n * a, 0.0], [n * a / 2, n * a * np.sqrt(3) / 2]])
    sample = bary @ corners
    r = metrics.covering_radius(pts, sample)
    assert r == pytest.approx(brute_covering(pts, sample), rel=1e-12)
    assert 0.97 * a / np.sqrt(3) < r <= a / np.sqrt(3) + 1e-12


def test_covering_radius_of_square_lattice_against_fine_grid() -> None:
    h = 0.5
    pts = square_lattice(4, h)
    grid = square_lattice(4 * 20, h / 20)  # holds the cell centres
    assert metrics.covering_radius(pts, grid) == pytest.approx(h / np.sqrt(2), rel=1e-12)
    assert metrics.covering_radius(pts, pts) == 0.0


def test_covering_radius_matches_brute_force_in_3d() -> None:
    rng = np.random.default_rng(3)
    pts, ref = rng.uniform(size=(25, 3)), rng.uniform(size=(500, 3))
    assert metrics.covering_radius(pts, ref) == pytest.approx(brute_covering(pts, ref), rel=1e-12)


def test_permutation_invariance() -> None:
    rng = np.random.default_rng(5)
    pts, ref = rng.uniform(size=(50, 3)), rng.uniform(size=(300, 3))
    perm = rng.permutation(50)
    np.testing.assert_allclose(
        metrics.nn_distances(pts[perm]), metrics.nn_distances(pts)[perm], rtol=1e-14
    )
    for f in (metrics.nn_cv, metrics.nn_ratio, metrics.nn_min_ratio):
        assert f(pts[perm]) == pytest.approx(f(pts), rel=1e-12)
    assert metrics.covering_radius(pts[perm], ref[rng.permutation(300)]) == pytest.approx(
        metrics.covering_radius(pts, ref), rel=1e-14
    )


@pytest.mark.parametrize("scale", [1e-3, 0.5, 7.0])
def test_scaling(scale: float) -> None:
    rng = np.random.default_rng(9)
    pts, ref = rng.uniform(size=(40, 3)), rng.uniform(size=(400, 3))
    shift = np.array([3.0, -1.0, 2.0])
    moved = scale * pts + shift
    np.testing.assert_allclose(
        metrics.nn_distances(moved), scale * metrics.nn_distances(pts), rtol=1e-9
    )
    for f in (metrics.nn_cv, metrics.nn_ratio, metrics.nn_min_ratio):
        assert f(moved) == pytest.approx(f(pts), rel=1e-9)
    assert metrics.covering_radius(moved, scale * ref + shift) == pytest.approx(
        scale * metrics.covering_radius(pts, ref), rel=1e-9
    )


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: metrics.nn_distances([1.0, 2.0, 3.0]), "2-D"),
        (lambda: metrics.nn_cv([[0.0, 1.0]]), "at least 2"),
        (lambda: metrics.nn_ratio([[0.0, 1.0], [np.nan, 0.0]]), "finite"),
        (lambda: metrics.nn_min_ratio(np.zeros((3, 2, 2))), "2-D"),
        (lambda: metrics.covering_radius([[0, 0], [1, 1]], [[0, 0, 0]]), "objectives"),
        (lambda: metrics.covering_radius([[0, 0]], [[0, 0]]), "at least 2"),
        (lambda: metrics.covering_radius([[0, 0], [1, 1]], [[np.inf, 0]]), "reference"),
        (lambda: metrics.covering_radius([[0, 0], [1, 1]], np.zeros((0, 2))), "at least 1"),
    ],
)
def test_bad_input(call, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
