"""The estimate of a Pareto surface that :func:`paretosurf.surf_simplex` lays its points out
on (:mod:`paretosurf.surfaces._estimate`), checked against independent truth: scipy's own piecewise
linear interpolator, closed-form areas and volumes, a least-squares fit per point, and the
fixed point of Lloyd's iterations on a flat triangle (a lattice)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.interpolate import LinearNDInterpolator

from paretosurf.surfaces._estimate import (
    INTERIOR_MARGIN,
    FaceMap,
    face_mesh,
    face_samples,
    interior_of,
    mesh_samples,
    quadratic_pull_back,
    restricted_cvt,
    simplex_volumes,
)
from paretosurf.surfaces._weights import simplex_lattice


def _weights(k: int, n: int, seed: int) -> np.ndarray:
    """The face's corners, points on its boundary and inside it."""
    rng = np.random.default_rng(seed)
    inside = rng.dirichlet(np.ones(k), size=n)
    rim = rng.dirichlet(np.ones(k - 1), size=n // 4)
    rim = np.insert(rim, 0, 0.0, axis=1)[:, rng.permutation(k)]
    return np.vstack([np.eye(k), rim, inside])


@pytest.mark.parametrize(("k", "seed"), [(3, 0), (3, 1), (4, 2)])
def test_face_map_is_scipys_linear_interpolation(k: int, seed: int) -> None:
    """The cached triangulation with barycentric coordinates gives scipy's
    LinearNDInterpolator (which the map used to rebuild and query on every call), at random
    weights, on the face's boundary and at the solved weights themselves."""
    weights = _weights(k, 40, seed)
    rng = np.random.default_rng(seed + 10)
    coords = rng.normal(size=(len(weights), k))
    fmap = FaceMap(weights, coords)
    queries = np.vstack([_weights(k, 60, seed + 20), weights])
    reference = LinearNDInterpolator(weights[:, :-1], coords)(queries[:, :-1])
    inside = np.all(np.isfinite(reference), axis=1)
    assert inside.mean() > 0.95
    np.testing.assert_allclose(fmap(queries)[inside], reference[inside], rtol=0, atol=1e-12)
    np.testing.assert_allclose(fmap(weights), coords, rtol=0, atol=1e-12)


def test_face_map_along_an_edge_is_the_polyline() -> None:
    t = np.array([0.0, 0.3, 1.0])
    fmap = FaceMap(np.c_[t, 1 - t], np.array([[0.0, 1.0], [0.3, 0.2], [1.0, 0.0]]))
    got = fmap(np.array([[0.15, 0.85], [0.65, 0.35]]))
    np.testing.assert_allclose(got, [[0.15, 0.6], [0.65, 0.1]], atol=1e-15)
    assert fmap.measure() == pytest.approx(math.hypot(0.3, 0.8) + math.hypot(0.7, 0.2))


def test_the_measure_is_the_area_or_volume() -> None:
    """A linear map scales the face: twice the triangle of unit corners has area 2 sqrt(3),
    twice the tetrahedron volume 8/3; the octant of the unit sphere (area pi/2) is
    approached from below by the flat triangles between its points."""
    assert FaceMap(np.eye(3), 2 * np.eye(3)).measure() == pytest.approx(2 * math.sqrt(3))
    assert FaceMap(np.eye(4), 2 * np.eye(4)).measure() == pytest.approx(8 / 3)
    w = simplex_lattice(3, 40)
    sphere = FaceMap(w, w / np.linalg.norm(w, axis=1, keepdims=True)).measure()
    assert 0.995 * math.pi / 2 < sphere < math.pi / 2


@pytest.mark.parametrize("k", [3, 4])
def test_samples_split_the_estimated_surface(k: int) -> None:
    """Each sample sits where the map sends its weight, the masses add up to the measure,
    and they are those of the mesh of :func:`face_mesh` mapped point by point."""
    weights = _weights(k, 30, 3)
    coords = np.random.default_rng(4).normal(size=(len(weights), k)) + 3 * weights
    fmap = FaceMap(weights, coords)
    samples = face_samples(fmap, subdivisions=3)
    nodes, simplices = face_mesh(weights, subdivisions=3)
    assert len(samples.mass) == len(simplices) >= len(fmap.simplices) * 3 ** (k - 1)
    np.testing.assert_allclose(samples.coords, fmap(samples.weights), atol=1e-12)
    assert samples.mass.sum() == pytest.approx(fmap.measure(), rel=1e-12)
    meshed = mesh_samples(fmap, nodes, simplices)
    np.testing.assert_allclose(meshed.weights, samples.weights, atol=1e-12)
    np.testing.assert_allclose(meshed.coords, samples.coords, atol=1e-12)
    # (the lattice's triangulation of a tetrahedron has flat pieces: their mapped Gram
    # determinants are rounding noise, whose square root is about 1e-8)
    np.testing.assert_allclose(meshed.mass, samples.mass, rtol=1e-9, atol=1e-6 * samples.mass.max())


def _fit_one(
    target: np.ndarray, coords: np.ndarray, weights: np.ndarray, count: int
) -> np.ndarray | None:
    """The quadratic fit of one target, as the pull-back computed it point by point."""
    d = weights.shape[1] - 1
    dist = np.linalg.norm(coords - target, axis=1)
    idx = np.argsort(dist, kind="stable")[:count]
    near = coords[idx]
    _, _, vt = np.linalg.svd(near - near.mean(axis=0), full_matrices=False)
    u = (near - target) @ vt[:d].T
    cols = [np.ones(count)] + [u[:, i] for i in range(d)]
    cols += [u[:, i] * u[:, j] for i in range(d) for j in range(i, d)]
    wts = 1.0 / (1.0 + (dist[idx] / dist[idx][-1]) ** 2)
    sol = np.linalg.lstsq(
        np.stack(cols, axis=1) * wts[:, None], weights[idx] * wts[:, None], rcond=None
    )[0][0]
    return sol / sol.sum() if np.all(sol > 0) else None


@pytest.mark.parametrize("k", [3, 4])
def test_quadratic_pull_back_fits_each_target_by_least_squares(k: int) -> None:
    """The stacked fits give each target's own weighted least-squares fit."""
    rng = np.random.default_rng(5)
    weights = rng.dirichlet(np.ones(k), size=60)
    coords = np.c_[weights[:, :-1] ** 2 + weights[:, :-1], np.zeros(60)]  # a bent sheet
    coords = np.c_[coords, rng.normal(scale=1e-3, size=(60, k + 1 - coords.shape[1]))]
    targets = coords[rng.choice(60, 15, replace=False)] + 1e-3
    fallback = np.full((15, k), 1.0 / k)
    got = quadratic_pull_back(targets, coords, weights, fallback)
    count = max(10, (1 + (k - 1) + (k - 1) * k // 2) + 4)
    for g in range(15):
        want = _fit_one(targets[g], coords, weights, count)
        np.testing.assert_allclose(
            got[g], fallback[g] if want is None else want, rtol=0, atol=1e-10
        )


def test_lloyds_fixed_point_on_a_flat_triangle_is_the_lattice() -> None:
    """On a flat triangle whose boundary points are the lattice's, the lattice's inner points
    have regular hexagons as cells: Lloyd's iterations started near them come back."""
    lattice = simplex_lattice(3, 9)
    inner = interior_of(lattice, (0, 1, 2))
    fmap = FaceMap(lattice, lattice @ np.array([[1.0, 0.0], [0.5, math.sqrt(3) / 2], [0.0, 0.0]]))
    rng = np.random.default_rng(6)
    start = lattice[inner] + rng.normal(scale=0.01, size=(inner.sum(), 3)) * [1, 1, 0]
    start[:, 2] = 1.0 - start[:, :2].sum(axis=1)
    samples = face_samples(fmap, subdivisions=24)
    got = restricted_cvt(fmap, samples, lattice[~inner], start, iterations=200)
    spacing = 1.0 / 9
    off = np.linalg.norm(fmap(start) - fmap(lattice[inner]), axis=1)
    moved = np.linalg.norm(fmap(got) - fmap(lattice[inner]), axis=1)
    assert off.max() > 0.25 * spacing and moved.max() < 0.08 * spacing
    assert np.all(got > INTERIOR_MARGIN / 3 - 1e-15)


def test_simplex_volumes_are_gram_determinants() -> None:
    pts = np.array([[0.0, 0, 0], [3, 0, 0], [0, 4, 0], [0, 0, 5]])
    assert simplex_volumes(pts, np.array([[0, 1, 2, 3]]))[0] == pytest.approx(10.0)
    assert simplex_volumes(pts, np.array([[0, 1, 2]]))[0] == pytest.approx(6.0)


def test_a_sliver_of_points_a_rounding_error_off_an_edge_interpolates_along_it() -> None:
    """A face's points on its edge ``w2 = 0`` and one a rounding error inside it (6.7e-13,
    as a solver's weight there) make a triangle of no area in the chart, whose barycentric
    coordinates are undefined: the estimate there was NaN, and SURF-simplex's layout failed
    on it (``data must be finite``). Along the edge, objectives equal to the weights are
    interpolated exactly."""
    w = np.array(
        [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.242666641, 6.71513351e-13, 0], [0.1399599, 0, 0],
         [0.3, 0.3, 0.4]]
    )  # fmt: skip
    w[:, 2] = 1.0 - w[:, :2].sum(axis=1)
    fmap = FaceMap(w, w.copy())
    transforms = fmap._delaunay.transform.reshape(len(fmap.simplices), -1)
    assert not np.all(np.isfinite(transforms))  # the sliver is there
    q = np.array([[0.18613986, 0.0, 0.0], [0.2, 0.0, 0.0], [0.5, 0.0, 0.0], [0.2, 0.3, 0.0]])
    q[:, 2] = 1.0 - q[:, :2].sum(axis=1)
    np.testing.assert_allclose(fmap(q), q, atol=1e-9)
