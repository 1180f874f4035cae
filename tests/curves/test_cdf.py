"""ArcLengthCDF: PCHIP rebuild, exact damped mixture, exact inverse, degenerate fronts."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq

import paretosurf as ps
from paretosurf.curves._cdf import CHORD_FLOOR


def paper_pchip_slopes(w: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The paper's Algorithm 2 slope rule, written out independently of scipy."""
    n = w.size - 1
    h = np.diff(w)
    delta = np.diff(s) / h
    if n == 1:
        return np.array([delta[0], delta[0]])
    m = np.zeros(n + 1)
    for k in range(1, n):
        if delta[k - 1] * delta[k] <= 0:
            m[k] = 0.0
        else:
            w1 = 2 * h[k] + h[k - 1]
            w2 = h[k] + 2 * h[k - 1]
            m[k] = (w1 + w2) / (w1 / delta[k - 1] + w2 / delta[k])

    def end(h0: float, h1: float, d0: float, d1: float) -> float:
        e = ((2 * h0 + h1) * d0 - h0 * d1) / (h0 + h1)
        if e * d0 <= 0:
            return 0.0
        if abs(e) > 3 * abs(d0):
            return 3 * d0
        return e

    m[0] = end(h[0], h[1], delta[0], delta[1])
    m[n] = end(h[n - 1], h[n - 2], delta[n - 1], delta[n - 2])
    return m


def hermite(w: np.ndarray, s: np.ndarray, m: np.ndarray, x: np.ndarray) -> np.ndarray:
    k = np.clip(np.searchsorted(w, x, side="right") - 1, 0, w.size - 2)
    h = w[k + 1] - w[k]
    t = (x - w[k]) / h
    return (
        (2 * t**3 - 3 * t**2 + 1) * s[k]
        + (t**3 - 2 * t**2 + t) * h * m[k]
        + (-2 * t**3 + 3 * t**2) * s[k + 1]
        + (t**3 - t**2) * h * m[k + 1]
    )


def random_front(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    w = np.concatenate([[0.0], np.sort(rng.uniform(0, 1, n - 1)), [1.0]])
    theta = np.pi / 2 * w**1.7
    return w, np.c_[np.cos(theta), np.sin(theta)] * (1 + 0.3 * w[:, None])


def test_identity_is_uniform() -> None:
    phi = ps.ArcLengthCDF.identity()
    x = np.linspace(0, 1, 101)
    np.testing.assert_allclose(phi(x), x, atol=1e-15)
    np.testing.assert_allclose(phi.inverse(x), x, atol=1e-15)
    assert phi.quantile_weights(4).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]


@pytest.mark.parametrize("n", [1, 2, 3, 7, 20])
def test_from_front_matches_paper_algorithm_2(n: int) -> None:
    rng = np.random.default_rng(n)
    w, pts = random_front(rng, n)
    s = np.concatenate([[0], np.cumsum(np.linalg.norm(np.diff(pts, axis=0), axis=1))])
    m = paper_pchip_slopes(w, s)
    x = np.linspace(0, 1, 2001)
    expected = hermite(w, s, m, x) / s[-1]
    np.testing.assert_allclose(ps.ArcLengthCDF.from_front(w, pts)(x), expected, atol=1e-12)


def test_chord_lengths_give_exact_values_at_knots() -> None:
    w = np.array([0.0, 0.2, 0.7, 1.0])
    pts = np.array([[0.0, 0.0], [3.0, 4.0], [3.0, 5.0], [3.0, 9.0]])  # chords 5, 1, 4
    phi = ps.ArcLengthCDF.from_front(w, pts)
    np.testing.assert_allclose(phi(w), [0.0, 0.5, 0.6, 1.0], atol=1e-15)


def test_mixture_is_exact_after_many_updates() -> None:
    rng = np.random.default_rng(0)
    alpha = 0.3
    running = ps.ArcLengthCDF.identity()
    components = [(1.0, ps.ArcLengthCDF.identity())]
    for _ in range(30):
        w, pts = random_front(rng, 12)
        fresh = ps.ArcLengthCDF.from_front(w, pts)
        running = running.mix(fresh, alpha)
        components = [(c * (1 - alpha), f) for c, f in components] + [(alpha, fresh)]
    x = rng.uniform(0, 1, 5000)
    explicit = sum(c * f(x) for c, f in components)
    np.testing.assert_allclose(running(x), explicit, atol=1e-13)
    explicit_slope = sum(c * f.derivative(x) for c, f in components)
    np.testing.assert_allclose(running.derivative(x), explicit_slope, atol=1e-11)


def test_inverse_accurate_to_1e10_against_brentq() -> None:
    rng = np.random.default_rng(1)
    phi = ps.ArcLengthCDF.identity()
    for _ in range(10):
        phi = phi.mix(ps.ArcLengthCDF.from_front(*random_front(rng, 9)), 0.5)
    q = np.concatenate([[0.0, 1.0, 1e-12, 1 - 1e-12], rng.uniform(0, 1, 200)])
    w = phi.inverse(q)
    ref = [0.0, 1.0] + [
        brentq(lambda x, qq=qq: float(phi(x)) - qq, 0, 1, xtol=1e-15, rtol=1e-15) for qq in q[2:]
    ]
    np.testing.assert_allclose(w, ref, atol=1e-10)
    np.testing.assert_allclose(phi(w), q, atol=1e-14)


def test_quantile_weights_strictly_increasing_with_fixed_ends() -> None:
    rng = np.random.default_rng(2)
    phi = ps.ArcLengthCDF.from_front(*random_front(rng, 6))
    w = phi.quantile_weights(50)
    assert w[0] == 0.0 and w[-1] == 1.0
    assert np.all(np.diff(w) > 0)
    np.testing.assert_allclose(phi(w), np.arange(51) / 50, atol=1e-14)


def test_cdf_is_monotone_and_slopes_non_negative() -> None:
    rng = np.random.default_rng(3)
    phi = ps.ArcLengthCDF.identity()
    for _ in range(5):
        phi = phi.mix(ps.ArcLengthCDF.from_front(*random_front(rng, 8)), 0.3)
    x = np.linspace(0, 1, 100001)
    assert np.all(np.diff(phi(x)) >= 0)
    assert np.all(phi.derivative(x) >= -1e-12)


@pytest.mark.parametrize("alpha", [0.3, 1.0])
def test_coincident_points_still_invertible(alpha: float) -> None:
    w = np.linspace(0, 1, 6)
    pts = np.array([[0, 1], [0, 1], [0, 1], [0.5, 0.5], [1, 0], [1, 0]], dtype=float)
    phi = ps.ArcLengthCDF.identity().mix(ps.ArcLengthCDF.from_front(w, pts), alpha)
    x = np.linspace(0, 1, 2001)
    assert np.all(np.diff(phi(x)) > 0)
    weights = phi.quantile_weights(5)
    assert np.all(np.diff(weights) > 0) and weights[0] == 0 and weights[-1] == 1
    np.testing.assert_allclose(phi(weights), np.linspace(0, 1, 6), atol=1e-12)
    if alpha == 1.0:
        # flat parts carry only the floor's mass
        assert phi(0.4) < 10 * CHORD_FLOOR


def test_all_points_coincide_gives_identity() -> None:
    w = np.linspace(0, 1, 5)
    phi = ps.ArcLengthCDF.from_front(w, np.ones((5, 2)))
    np.testing.assert_allclose(phi(np.linspace(0, 1, 11)), np.linspace(0, 1, 11), atol=1e-15)


def test_serialisation_round_trip() -> None:
    rng = np.random.default_rng(4)
    phi = ps.ArcLengthCDF.identity().mix(ps.ArcLengthCDF.from_front(*random_front(rng, 5)), 0.4)
    assert ps.ArcLengthCDF.from_dict(phi.to_dict()) == phi


@pytest.mark.parametrize(
    ("weights", "points", "match"),
    [
        ([0, 0.5, 1], [[0, 0], [1, 1]], "3 rows"),
        ([0, 0.6, 0.5, 1], np.zeros((4, 2)), "strictly increasing"),
        ([0, 0.5, 1.2], np.zeros((3, 2)), r"\[0, 1\]"),
        ([0.1, 0.5, 1], np.zeros((3, 2)), "start at 0"),
        ([0, 0.5, 1], [[0, 0], [np.nan, 1], [1, 1]], "finite"),
        ([0, 0.5, 1], [0, 1, 2], "2-D"),
    ],
)
def test_from_front_rejects_bad_input(weights, points, match) -> None:
    with pytest.raises(ValueError, match=match):
        ps.ArcLengthCDF.from_front(weights, points)


@pytest.mark.parametrize("alpha", [0.0, -0.1, 1.5, float("nan")])
def test_mix_rejects_bad_alpha(alpha: float) -> None:
    with pytest.raises(ValueError, match="alpha"):
        ps.ArcLengthCDF.identity().mix(ps.ArcLengthCDF.identity(), alpha)


def test_bad_quantile_arguments() -> None:
    phi = ps.ArcLengthCDF.identity()
    with pytest.raises(ValueError, match="n_segments"):
        phi.quantile_weights(0)
    with pytest.raises(TypeError, match="n_segments"):
        phi.quantile_weights(2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"q must lie in \[0, 1\]"):
        phi.inverse([0.5, 1.2])


def test_evaluation_outside_unit_interval_raises() -> None:
    phi = ps.ArcLengthCDF.identity()
    with pytest.raises(ValueError, match=r"w must lie in \[0, 1\]"):
        phi(1.5)
    with pytest.raises(ValueError, match=r"w must lie in \[0, 1\]"):
        phi.derivative([-0.1, 0.5])


@pytest.mark.parametrize("seed", range(6))
def test_pchip_slopes_equal_scipy(seed: int) -> None:
    from scipy.interpolate import PchipInterpolator

    from paretosurf.curves._cdf import pchip_slopes

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    x = np.concatenate([[0.0], np.sort(rng.uniform(0, 1, n - 1)), [1.0]])
    y = np.cumsum(rng.exponential(size=n + 1) ** 3)  # strictly increasing, very uneven
    np.testing.assert_allclose(
        pchip_slopes(x, y), PchipInterpolator(x, y).derivative()(x), rtol=1e-12, atol=1e-12 * y[-1]
    )


def test_warm_guess_does_not_change_the_inverse() -> None:
    rng = np.random.default_rng(11)
    phi = ps.ArcLengthCDF.identity()
    for _ in range(6):
        phi = phi.mix(ps.ArcLengthCDF.from_front(*random_front(rng, 10)), 0.3)
    q = np.linspace(0, 1, 31)
    cold = phi.inverse(q)
    for guess in (cold, rng.uniform(0, 1, 31), np.full(31, 2.0)):
        np.testing.assert_allclose(phi.inverse(q, guess=guess), cold, atol=1e-14)
