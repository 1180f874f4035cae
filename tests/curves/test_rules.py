"""Rule 1 from a speed or a front, against closed-form inverses."""

from __future__ import annotations

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.curves._rules import SpeedCDF, speed_from_front


@pytest.mark.parametrize("n", [1, 5, 40])
def test_polynomial_speed_has_closed_form_inverse(n: int) -> None:
    # v = 3 w^2 -> Phi = w^3 -> w_n = (n/N)^(1/3)
    w = ps.weights_from_speed(lambda w: 3 * w**2, n)
    np.testing.assert_allclose(w, (np.arange(n + 1) / n) ** (1 / 3), atol=1e-10)


def test_smooth_positive_speed_matches_closed_form() -> None:
    # v = 1 + cos(2 pi w)/2 -> s = w + sin(2 pi w)/(4 pi), s(1) = 1
    def phi(w: np.ndarray) -> np.ndarray:
        return w + np.sin(2 * np.pi * w) / (4 * np.pi)

    cdf = SpeedCDF(lambda w: 1 + np.cos(2 * np.pi * w) / 2)
    x = np.linspace(0, 1, 1001)
    np.testing.assert_allclose(cdf(x), phi(x), atol=1e-13)
    weights = cdf.quantile_weights(30)
    np.testing.assert_allclose(phi(weights), np.arange(31) / 30, atol=1e-12)
    assert cdf.total_length == pytest.approx(1.0, abs=1e-13)


def test_speed_with_zero_interval_is_still_inverted() -> None:
    # v = 0 on [0.4, 0.6]: Phi is flat there; quantiles avoid the flat part except at its ends.
    cdf = SpeedCDF(lambda w: np.where(np.abs(w - 0.5) < 0.1, 0.0, 1.0), n_panels=10)
    w = cdf.quantile_weights(4)
    np.testing.assert_allclose(cdf(w), np.arange(5) / 4, atol=1e-12)
    assert np.all(np.diff(w) >= 0)


def test_weights_from_front_on_quarter_circle_is_uniform() -> None:
    front = lambda w: np.c_[np.cos(np.pi * w / 2), np.sin(np.pi * w / 2)]  # noqa: E731
    np.testing.assert_allclose(ps.weights_from_front(front, 8), np.linspace(0, 1, 9), atol=1e-10)


def test_weights_from_front_matches_weights_from_speed() -> None:
    # f(w) = (w^2, (1-w)^3): speed sqrt(4w^2 + 9(1-w)^4)
    front = lambda w: np.c_[w**2, (1 - w) ** 3]  # noqa: E731
    speed = lambda w: np.sqrt(4 * w**2 + 9 * (1 - w) ** 4)  # noqa: E731
    np.testing.assert_allclose(
        ps.weights_from_front(front, 12), ps.weights_from_speed(speed, 12), atol=1e-9
    )
    x = np.array([0.0, 1e-9, 0.001, 0.3, 0.999, 1.0])
    np.testing.assert_allclose(speed_from_front(front)(x), speed(x), rtol=1e-5)


def test_front_returning_one_row_per_objective_gives_the_same_weights() -> None:
    # (M, K) instead of (K, M): was silently reshaped into wrong weights [0, .574, .774, ...]
    by_point = ps.weights_from_front(lambda w: np.c_[(1 - w) ** 2, w**2], 4)
    by_objective = ps.weights_from_front(lambda w: [(1 - w) ** 2, w**2], 4)
    np.testing.assert_allclose(by_point, [0.0, 0.22618042, 0.5, 0.77381958, 1.0], atol=1e-8)
    np.testing.assert_allclose(by_objective, by_point, rtol=0, atol=1e-12)
    # three objectives, given as an (M, K) array
    front3 = lambda w: np.stack([w**2, (1 - w) ** 3, w])  # noqa: E731
    np.testing.assert_allclose(
        ps.weights_from_front(front3, 6),
        ps.weights_from_front(lambda w: front3(w).T, 6),
        rtol=0,
        atol=1e-12,
    )
    x = np.array([0.0, 0.25, 0.7, 1.0])
    np.testing.assert_allclose(
        speed_from_front(lambda w: [(1 - w) ** 2, w**2])(x),
        speed_from_front(lambda w: np.c_[(1 - w) ** 2, w**2])(x),
        rtol=0,
        atol=1e-12,
    )


@pytest.mark.parametrize(
    ("front", "match"),
    [
        (lambda w: w**2, r"got shape \(\d+,\) \(one number per weight"),
        (lambda w: np.zeros((3, 2)), r"shape \(K, M\) = \((\d+), M\).*got shape \(3, 2\)"),
        (lambda w: np.zeros((w.size, 2, 1)), r"got shape \(\d+, 2, 1\)"),
        (lambda w: np.float64(1.0), r"got shape \(\)"),
    ],
)
def test_front_of_a_wrong_shape_raises_naming_the_shapes(front, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ps.weights_from_front(front, 4)
    with pytest.raises(ValueError, match=match):
        speed_from_front(front)(np.array([0.5]))


def test_front_must_be_callable() -> None:
    with pytest.raises(TypeError, match="front must be a vectorised callable"):
        ps.weights_from_front(3.0, 4)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="front must be a vectorised callable"):
        speed_from_front(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("speed", "match"),
    [
        (lambda w: w - 0.5, "non-negative"),
        (lambda w: np.zeros_like(w), "zero everywhere"),
        (lambda w: np.full_like(w, np.nan), "non-finite"),
        (lambda w: np.ones(3), "shape"),
    ],
)
def test_bad_speed_raises(speed, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ps.weights_from_speed(speed, 4)


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="speed"):
        ps.weights_from_speed(3.0, 4)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n_segments"):
        ps.weights_from_speed(lambda w: np.ones_like(w), 0)


def test_piecewise_chebyshev_reproduces_a_sharp_speed() -> None:
    from paretosurf.curves._rules import PiecewiseChebyshev

    calls = []

    def f(w: np.ndarray) -> np.ndarray:
        calls.append(w.size)
        return np.exp(3 * w) / (1e-3 + (w - 0.3) ** 2)  # peak of height 1e3 at w = 0.3

    approx = PiecewiseChebyshev(f)
    used = sum(calls)
    x = np.linspace(0, 1, 20001)
    np.testing.assert_allclose(approx(x), f(x), rtol=1e-8, atol=1e-9 * f(x).max())
    assert used == approx.n_evaluations < 2000  # far fewer evaluations than a dense table
    # integrates like the function itself
    exact = SpeedCDF(f, n_panels=2048)
    np.testing.assert_allclose(SpeedCDF(approx)(x[::100]), exact(x[::100]), atol=1e-10)
