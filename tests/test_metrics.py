"""Metrics against independent computations (pymoo, brute force, definitions)."""

from __future__ import annotations

import numpy as np
import pytest

import paretosurf as ps
from paretosurf import metrics


def random_front(rng: np.random.Generator, n: int, m: int = 2) -> np.ndarray:
    x = rng.dirichlet(np.ones(m), size=n)
    return x ** rng.uniform(0.5, 2.0)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("m", [2, 3])
def test_hypervolume_matches_pymoo(seed: int, m: int) -> None:
    hv_pymoo = pytest.importorskip("pymoo.indicators.hv")
    rng = np.random.default_rng(seed)
    pts = random_front(rng, 30, m)
    ref = np.full(m, 1.2)
    assert metrics.hypervolume(pts, ref=ref) == pytest.approx(
        hv_pymoo.HV(ref_point=ref)(pts), rel=1e-10
    )


def test_hypervolume_two_points_by_hand() -> None:
    # union of [1,3]x[2,3] and [2,3]x[1,3] has area 2 + 2 - 1
    assert metrics.hypervolume([[1, 2], [2, 1]], ref=[3, 3]) == pytest.approx(3.0)


@pytest.mark.parametrize("seed", range(5))
def test_igd_matches_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pts, ref = random_front(rng, 12), random_front(rng, 300)
    brute = np.mean([np.min(np.linalg.norm(pts - r, axis=1)) for r in ref])
    assert metrics.igd(pts, ref) == pytest.approx(brute, rel=1e-12)


def test_cv_and_gap_ratio_from_definitions() -> None:
    rng = np.random.default_rng(0)
    pts = np.cumsum(rng.uniform(0.1, 1, size=(10, 2)), axis=0)
    gaps = np.array([np.hypot(*(pts[i + 1] - pts[i])) for i in range(9)])
    np.testing.assert_allclose(metrics.segment_lengths(pts), gaps, rtol=1e-14)
    mean = gaps.sum() / 9
    std = np.sqrt(((gaps - mean) ** 2).sum() / 9)
    assert metrics.cv(pts) == pytest.approx(std / mean, rel=1e-12)
    assert metrics.gap_ratio(pts) == pytest.approx(gaps.max() / gaps.min(), rel=1e-14)


def test_even_points_are_perfect() -> None:
    pts = np.c_[np.linspace(0, 1, 7), np.linspace(1, 0, 7)]
    assert metrics.cv(pts) == pytest.approx(0.0, abs=1e-14)
    assert metrics.gap_ratio(pts) == pytest.approx(1.0, abs=1e-12)


def test_coincident_points() -> None:
    pts = [[0, 1], [0, 1], [1, 0]]
    assert metrics.gap_ratio(pts) == np.inf
    assert np.isnan(metrics.cv([[0, 1], [0, 1]]))


def test_cdf_error_sup_norm() -> None:
    # max |w - w^2| = 1/4 at w = 1/2
    assert metrics.cdf_error(ps.ArcLengthCDF.identity(), lambda w: w**2) == pytest.approx(0.25)
    assert metrics.cdf_error(lambda w: w, lambda w: w) == 0.0


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: metrics.cv([1, 2, 3]), "2-D"),
        (lambda: metrics.gap_ratio([[0, 0]]), "at least 2"),
        (lambda: metrics.hypervolume([[0, 0]], ref=[1, 1, 1]), "length 2"),
        (lambda: metrics.igd([[0, 0]], [[0, 0, 0]]), "objectives"),
        (lambda: metrics.hypervolume([[np.inf, 0]], ref=[1, 1]), "finite"),
    ],
)
def test_bad_input(call, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()


def test_front_distance_against_dense_sampling() -> None:
    rng = np.random.default_rng(7)
    theta = np.linspace(0, np.pi / 2, 50)
    ref = np.c_[np.cos(theta), np.sin(theta)]
    pts = rng.uniform(0, 1.2, size=(20, 2))
    # independent: distance to a very dense sampling of the same polyline
    dense = np.concatenate([np.linspace(ref[i], ref[i + 1], 400) for i in range(49)])
    brute = np.min(np.linalg.norm(pts[:, None] - dense[None], axis=2), axis=1)
    np.testing.assert_allclose(metrics.front_distance(pts, ref), brute, atol=2e-5)
    assert np.all(metrics.front_distance(ref, ref) < 1e-15)
