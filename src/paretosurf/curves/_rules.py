"""Rule 1: weights evenly spaced in arc length, when the front's speed (or the front) is known.

With the traversal speed ``v(w) = ||d f_PF(w) / dw||``, the arc length ``s(w) = int_0^w v`` and
``Phi(w) = s(w) / s(1)``, the weights ``w_n = Phi^{-1}(n / N)`` give front points evenly spaced
in arc length. :class:`SpeedCDF` builds ``Phi`` from a vectorised speed by composite
Gauss-Legendre quadrature and inverts it by safeguarded Newton iteration, both accurate to about
1e-12 on smooth speeds; :func:`weights_from_speed` and :func:`weights_from_front` are the
one-call forms.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.monotone import QuantileMixin, check_quantiles, solve_increasing
from paretosurf._utils.validation import as_weight_array, check_positive_int

__all__ = [
    "CDFLike",
    "PiecewiseChebyshev",
    "SpeedCDF",
    "speed_from_front",
    "weights_from_front",
    "weights_from_speed",
]

FloatArray = NDArray[np.float64]
SpeedFunction = Callable[[FloatArray], ArrayLike]


@runtime_checkable
class CDFLike(Protocol):
    """What the library's CDF objects share (``ArcLengthCDF``, ``SpeedCDF``, closed forms)."""

    def __call__(self, w: ArrayLike) -> FloatArray: ...

    def derivative(self, w: ArrayLike) -> FloatArray: ...

    def inverse(self, q: ArrayLike) -> FloatArray: ...

    def quantile_weights(self, n_segments: int) -> FloatArray: ...


class SpeedCDF(QuantileMixin):
    """The arc-length CDF ``Phi`` of a known speed ``v(w)`` on [0, 1].

    Parameters
    ----------
    speed : callable
        Vectorised ``v(w)``: takes a float array of weights in [0, 1], returns an array of the
        same shape of finite, non-negative speeds, not zero everywhere.
    n_panels : int
        Number of equal panels of the composite Gauss-Legendre rule.
    order : int
        Gauss-Legendre nodes per panel.

    Raises
    ------
    ValueError
        If the speed is negative or non-finite anywhere it is sampled, or zero everywhere.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.curves._rules import SpeedCDF
    >>> phi = SpeedCDF(lambda w: 2 * w)            # Phi(w) = w**2
    >>> round(float(phi(0.5)), 12), round(float(phi.inverse(0.25)), 12)
    (0.25, 0.5)
    >>> float(phi.total_length)
    1.0
    """

    def __init__(self, speed: SpeedFunction, *, n_panels: int = 256, order: int = 20) -> None:
        if not callable(speed):
            raise TypeError(f"speed must be a vectorised callable v(w), got {type(speed).__name__}")
        self._speed = speed
        n_panels = check_positive_int(n_panels, name="n_panels")
        order = check_positive_int(order, name="order")
        self._nodes, self._gl_weights = np.polynomial.legendre.leggauss(order)
        self._edges = np.linspace(0.0, 1.0, n_panels + 1)
        a, b = self._edges[:-1], self._edges[1:]
        panel_integrals = self._integrate(a, b)
        self._cumulative = np.concatenate([[0.0], np.cumsum(panel_integrals)])
        total = float(self._cumulative[-1])
        if not total > 0.0:
            raise ValueError("speed must not be zero everywhere on [0, 1]")
        self.total_length = total

    def _evaluate_speed(self, w: FloatArray) -> FloatArray:
        v = np.asarray(self._speed(w), dtype=np.float64)
        if v.shape != w.shape:
            try:
                v = np.broadcast_to(v, w.shape).astype(np.float64)
            except ValueError:
                raise ValueError(
                    f"speed must return an array of the input's shape {w.shape}, got {v.shape}"
                ) from None
        if not np.all(np.isfinite(v)):
            raise ValueError("speed returned non-finite values")
        if np.any(v < 0):
            bad = w[v < 0][:5]
            raise ValueError(f"speed must be non-negative; negative at w = {bad.tolist()}")
        return v

    def _integrate(self, a: FloatArray, b: FloatArray) -> FloatArray:
        """``int_a^b v`` for arrays of intervals inside one panel each (Gauss-Legendre)."""
        half = 0.5 * (b - a)
        mid = 0.5 * (b + a)
        w = mid[:, None] + half[:, None] * self._nodes[None, :]
        v = self._evaluate_speed(w)
        return np.asarray(half * (v @ self._gl_weights), dtype=np.float64)

    def speed(self, w: ArrayLike) -> FloatArray:
        """The (unnormalized) speed ``v(w)``."""
        return self._evaluate_speed(np.asarray(w, dtype=np.float64))

    def arc_length(self, w: ArrayLike) -> FloatArray:
        """The arc length ``s(w) = int_0^w v``."""
        w_arr = as_weight_array(w)
        flat = w_arr.ravel()
        k = np.clip(np.searchsorted(self._edges, flat, side="right") - 1, 0, self._edges.size - 2)
        partial = self._integrate(self._edges[k], flat)
        return np.asarray(self._cumulative[k] + partial, dtype=np.float64).reshape(w_arr.shape)

    def __call__(self, w: ArrayLike) -> FloatArray:
        """``Phi(w) = s(w) / s(1)``."""
        return self.arc_length(w) / self.total_length

    def derivative(self, w: ArrayLike) -> FloatArray:
        """``Phi'(w) = v(w) / s(1)``."""
        return self.speed(w) / self.total_length

    def inverse(self, q: ArrayLike) -> FloatArray:
        """Solve ``Phi(w) = q`` by Newton's method safeguarded by bisection, vectorised."""
        q_arr = check_quantiles(q)
        target = q_arr.ravel() * self.total_length
        cum = self._cumulative
        # side="right" skips panels of zero length
        k = np.clip(np.searchsorted(cum, target, side="right") - 1, 0, cum.size - 2)
        lo, hi, base = self._edges[k], self._edges[k + 1], cum[k]
        span = cum[k + 1] - base
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = np.clip(np.where(span > 0, (target - base) / span, 0.5), 0.0, 1.0)
        w = solve_increasing(
            lambda x: base + self._integrate(lo, x),
            self._evaluate_speed,
            target,
            lo,
            hi,
            lo + (hi - lo) * frac,
        )
        flat_q = q_arr.ravel()
        w = np.where(flat_q == 0, 0.0, np.where(flat_q == 1, 1.0, w))
        return w.reshape(q_arr.shape)


class PiecewiseChebyshev:
    """Adaptive piecewise Chebyshev interpolant of a smooth, non-negative ``f`` on [0, 1].

    Used to make an expensive exact speed (one exact solve per evaluation) cheap to integrate
    and invert: wrap it once, then hand it to :class:`SpeedCDF`. numpy and scipy offer
    Chebyshev interpolation on one interval but no adaptive panelling, hence this class.

    Each panel carries the degree-``degree`` interpolant at Chebyshev points of the first kind.
    A panel is bisected until its three highest Chebyshev coefficients fall below
    ``rtol * max|f|``; refinement also stops at ``min_width``, or once bisection stops shrinking
    the coefficients (a floating-point noise plateau below ``1e-8 * max|f|``). ``f`` is called
    once per refinement round with all new nodes, so batched evaluation pays off. Values are
    clipped at 0 from below (``f`` is a speed).
    """

    def __init__(
        self,
        f: Any,
        *,
        degree: int = 24,
        n_panels: int = 16,
        rtol: float = 1e-11,
        min_width: float = 1.0 / 1024,
    ) -> None:
        k = np.arange(degree + 1)
        self._nodes = np.cos(np.pi * (k + 0.5) / (degree + 1))
        vander = np.polynomial.chebyshev.chebvander(self._nodes, degree)
        self._to_coefs = np.linalg.inv(vander)
        edges = np.linspace(0.0, 1.0, n_panels + 1)
        # (left, right, tail of the parent panel)
        pending = [(float(lo), float(hi), np.inf) for lo, hi in itertools.pairwise(edges)]
        done: list[tuple[float, float, FloatArray]] = []
        scale = 0.0
        self.n_evaluations = 0
        while pending:
            a = np.array([p[0] for p in pending])
            b = np.array([p[1] for p in pending])
            x = 0.5 * (a + b)[:, None] + 0.5 * (b - a)[:, None] * self._nodes[None, :]
            y = np.asarray(f(x.ravel()), dtype=np.float64).reshape(x.shape)
            self.n_evaluations += y.size
            scale = max(scale, float(np.max(np.abs(y))))
            coefs = y @ self._to_coefs.T  # (panels, degree + 1)
            tail = np.max(np.abs(coefs[:, -3:]), axis=1)
            nxt = []
            for i, (lo, hi, parent_tail) in enumerate(pending):
                plateau = tail[i] <= 1e-8 * scale and tail[i] > 0.25 * parent_tail
                if tail[i] <= rtol * scale or hi - lo <= min_width or plateau:
                    done.append((lo, hi, coefs[i]))
                else:
                    mid = 0.5 * (lo + hi)
                    nxt.extend([(lo, mid, float(tail[i])), (mid, hi, float(tail[i]))])
            pending = nxt
        done.sort(key=lambda t: t[0])
        self._left = np.array([d[0] for d in done])
        self._right = np.array([d[1] for d in done])
        self._coefs = np.stack([d[2] for d in done], axis=1)  # (degree + 1, panels)
        self.n_panels = len(done)

    def __call__(self, w: ArrayLike) -> FloatArray:
        w_arr = np.asarray(w, dtype=np.float64)
        flat = w_arr.ravel()
        k = np.clip(np.searchsorted(self._left, flat, side="right") - 1, 0, self.n_panels - 1)
        a, b = self._left[k], self._right[k]
        x = (2.0 * flat - a - b) / (b - a)
        val = np.polynomial.chebyshev.chebval(x, self._coefs[:, k], tensor=False)
        return np.asarray(np.maximum(val, 0.0), dtype=np.float64).reshape(w_arr.shape)


def weights_from_speed(speed: SpeedFunction, n_segments: int) -> FloatArray:
    """Rule 1 from a known speed: ``w_n = Phi^{-1}(n / N)`` with ``Phi`` the speed's CDF.

    Parameters
    ----------
    speed : callable
        Vectorised front speed ``v(w) >= 0`` on [0, 1] (any positive multiple works).
    n_segments : int
        N; the result has N + 1 weights.

    Returns
    -------
    ndarray, shape (N+1,)
        Increasing weights from 0 to 1.

    Examples
    --------
    >>> import paretosurf as ps
    >>> ps.weights_from_speed(lambda w: 3 * w**2, 2).round(10).tolist()   # Phi(w) = w**3
    [0.0, 0.793700526, 1.0]
    """
    return SpeedCDF(speed).quantile_weights(n_segments)


def _front_points(front: Callable[[FloatArray], ArrayLike], w: ArrayLike) -> FloatArray:
    """Evaluate a vectorised front at weights ``w`` and check the shape of what it returns.

    Every public function of this module that takes a ``front`` callable evaluates it here.

    Parameters
    ----------
    front : callable
        Vectorised ``f_PF``: weights of shape (K,) to points of shape (K, M), M >= 1. Points
        of shape (M, K) (one row per objective, as ``lambda w: [f1(w), f2(w)]`` returns) are
        accepted too when they cannot be mistaken for (K, M), that is when K != M, and are
        transposed; a square (K, K) result is read as (K, M).
    w : array_like
        The weights, flattened to shape (K,).

    Returns
    -------
    ndarray, shape (K, M)
        The front points, one row per weight.

    Raises
    ------
    TypeError
        If ``front`` is not callable.
    ValueError
        If ``front`` returns any other shape (for instance (K,), one number per weight, or
        a shape that matches neither (K, M) nor (M, K)), or non-numeric values.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.curves._rules import _front_points
    >>> w = np.array([0.0, 0.5, 1.0])
    >>> _front_points(lambda w: [(1 - w) ** 2, w**2], w).tolist()   # (M, K) -> (K, M)
    [[1.0, 0.0], [0.25, 0.25], [0.0, 1.0]]
    """
    if not callable(front):
        raise TypeError(
            f"front must be a vectorised callable w -> f_PF(w), got {type(front).__name__}"
        )
    flat = np.asarray(w, dtype=np.float64).ravel()
    k = flat.size
    raw = front(flat)
    try:
        values = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"front must return numbers of shape (K, M) = ({k}, M) for the K = {k} weights it "
            f"was given; could not read what it returned as a float array ({exc})"
        ) from None
    if values.ndim == 2 and values.shape[0] == k and values.shape[1] >= 1:
        return values
    if values.ndim == 2 and values.shape[1] == k and values.shape[0] >= 1:
        return np.ascontiguousarray(values.T)
    hint = (
        " (one number per weight: return the points, one objective per column)"
        if values.shape == (k,)
        else ""
    )
    raise ValueError(
        f"front must return points of shape (K, M) = ({k}, M) for the K = {k} weights it was "
        f"given (or (M, {k}), which is transposed), got shape {values.shape}{hint}; return "
        f"e.g. np.c_[f1(w), f2(w)]"
    )


def speed_from_front(
    front: Callable[[FloatArray], ArrayLike], *, step: float = 1e-3
) -> Callable[[FloatArray], FloatArray]:
    """The speed ``v(w) = ||f_PF'(w)||`` of a front by fourth-order central differences.

    The stencil ``w +- h, w +- 2h`` never leaves [0, 1]: ``h`` shrinks near the ends (and
    one-sided second-order differences are used at exactly 0 and 1).

    Parameters
    ----------
    front : callable
        Vectorised ``f_PF``: weights of shape (K,) to points of shape (K, M). A result of
        shape (M, K), one row per objective (``lambda w: [f1(w), f2(w)]``), is transposed
        when K != M; a square result is read as (K, M).
    step : float
        Largest difference step ``h``.

    Raises
    ------
    TypeError
        If ``front`` is not callable.
    ValueError
        When the speed is evaluated, if ``front`` returns neither (K, M) nor (M, K) points for
        the K weights it was given, e.g. one number per weight (shape (K,)).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.curves._rules import speed_from_front
    >>> speed = speed_from_front(lambda w: np.c_[w**2, 1 - w**2])   # |f'| = 2 sqrt(2) w
    >>> speed(np.array([0.5])).round(8).tolist()
    [1.41421356]
    """

    if not callable(front):
        raise TypeError(
            f"front must be a vectorised callable w -> f_PF(w), got {type(front).__name__}"
        )

    def speed(w: FloatArray) -> FloatArray:
        w_arr = np.asarray(w, dtype=np.float64)
        flat = w_arr.ravel()
        h = np.minimum(step, np.minimum(flat, 1.0 - flat) / 2.5)
        interior = h > 1e-7
        h_safe = np.where(interior, h, step)
        # One-sided second-order stencil where the central one would be too narrow.
        sign = np.where(flat < 0.5, 1.0, -1.0)
        stencil = np.stack(
            [
                flat - 2 * h_safe,
                flat - h_safe,
                flat + h_safe,
                flat + 2 * h_safe,
                flat,
                flat + sign * h_safe,
                flat + 2 * sign * h_safe,
            ],
        )
        stencil = np.clip(stencil, 0.0, 1.0)
        values = _front_points(front, stencil.ravel())
        values = values.reshape(stencil.shape[0], flat.size, -1)
        central = (values[0] - 8 * values[1] + 8 * values[2] - values[3]) / (12 * h_safe[:, None])
        one_sided = (
            sign[:, None] * (-3 * values[4] + 4 * values[5] - values[6]) / (2 * h_safe[:, None])
        )
        deriv = np.where(interior[:, None], central, one_sided)
        return np.asarray(np.linalg.norm(deriv, axis=1), dtype=np.float64).reshape(w_arr.shape)

    return speed


def weights_from_front(front: Callable[[FloatArray], ArrayLike], n_segments: int) -> FloatArray:
    """Rule 1 from a known front ``w -> f_PF(w)``: differentiate, integrate, invert.

    Parameters
    ----------
    front : callable
        Vectorised ``f_PF``: weights of shape (K,) to points of shape (K, M), as
        ``lambda w: np.c_[f1(w), f2(w)]`` returns. A result of shape (M, K), one row per
        objective (``lambda w: [f1(w), f2(w)]``), is transposed when K != M (``front`` is
        always called with K >= 7 weights); a square result is read as (K, M).
    n_segments : int
        N; the result has N + 1 weights.

    Returns
    -------
    ndarray, shape (N+1,)
        Increasing weights from 0 to 1.

    Raises
    ------
    TypeError
        If ``front`` is not callable.
    ValueError
        If ``front`` returns neither (K, M) nor (M, K) points for the K weights it was given,
        e.g. one number per weight (shape (K,)); the message names the shape received.

    Examples
    --------
    >>> import numpy as np
    >>> import paretosurf as ps
    >>> front = lambda w: np.c_[w**2, 1 - w**2]     # straight segment at speed ~ w
    >>> ps.weights_from_front(front, 2).round(8).tolist()
    [0.0, 0.70710678, 1.0]
    """
    return weights_from_speed(speed_from_front(front), n_segments)
