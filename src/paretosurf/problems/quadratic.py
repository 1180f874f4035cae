"""Analytic quadratic bi-objective problems: exact fronts, speeds and arc-length CDFs.

Three problems whose linear-scalarization (LS) path is known in closed form (paper, appendix
"Closed-form Phi for Quadratic Problems" and the "Quadratic gear toy"):

* :class:`Quadratic` -- ``h_m(x) = (x - b_m)^T Q_m (x - b_m)`` in ``n`` dimensions, with the
  exact minimizer ``x*_w``, front and front speed ``v(w) = ||d f_PF / dw||``;
* :class:`Quadratic1D` -- its one-dimensional case, whose arc-length CDF ``Phi`` has a closed
  form (an ``asinh`` formula when ``q2 = q1``, a rational antiderivative otherwise);
* :class:`GearToy` -- a fixed front ``((1 - x)^2, x^2)`` traversed by LS at a speed set by a
  "gear" parameter ``p``, the paper's test of how the first CDF reconstruction depends on the
  speed's condition number while SURF's final error does not.

All objectives are minimized and ``w`` is the weight on objective 1.
"""

from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.monotone import QuantileMixin, check_quantiles, solve_increasing
from paretosurf._utils.validation import check_positive
from paretosurf.problems.base import BiObjectiveProblem, InitParams, as_weight_array
from paretosurf.solvers import GradientSolver

__all__ = [
    "ClosedFormCDF",
    "GearToy",
    "GearToyCDF",
    "Quadratic",
    "Quadratic1D",
    "Quadratic1DCDF",
]

FloatArray = NDArray[np.float64]

_SQRT2 = math.sqrt(2.0)
#: ``z(w)`` of the rationalizing substitution at ``w = 0`` and ``w = 1`` (``-/+ (sqrt 2 - 1)``).
_Z0 = -(_SQRT2 - 1.0)
_Z1 = _SQRT2 - 1.0


# ---------------------------------------------------------------------------------------------
# Closed-form CDFs
# ---------------------------------------------------------------------------------------------
class ClosedFormCDF(QuantileMixin, ABC):
    """An arc-length CDF ``Phi(w) = s(w) / s(1)`` known in closed form.

    Same interface as :class:`paretosurf.SpeedCDF` (``__call__``, ``inverse``,
    ``quantile_weights``, ``derivative``, ``speed``, ``arc_length``, ``total_length``), but
    ``Phi`` is evaluated from a formula rather than by quadrature. Subclasses define ``_phi``
    (on validated weights) and ``_speed``; the inverse is a safeguarded Newton iteration on the
    closed form, accurate to about 1e-14 in ``w``.
    """

    #: Exact arc length ``s(1)`` of the whole front.
    total_length: float

    @abstractmethod
    def _phi(self, w: FloatArray) -> FloatArray:
        """``Phi`` at weights already checked to lie in [0, 1]."""

    @abstractmethod
    def _speed(self, w: FloatArray) -> FloatArray:
        """Front speed ``v(w)`` at weights already checked to lie in [0, 1]."""

    def __call__(self, w: ArrayLike) -> FloatArray:
        """``Phi(w)``, same shape as ``w`` (weights in [0, 1])."""
        return self._phi(as_weight_array(w))

    def speed(self, w: ArrayLike) -> FloatArray:
        """The front speed ``v(w) = ||f_PF'(w)||`` (not normalized)."""
        return self._speed(as_weight_array(w))

    def derivative(self, w: ArrayLike) -> FloatArray:
        """``Phi'(w) = v(w) / s(1)``."""
        return self.speed(w) / self.total_length

    def arc_length(self, w: ArrayLike) -> FloatArray:
        """The arc length ``s(w) = s(1) * Phi(w)`` traversed up to ``w``."""
        return self(w) * self.total_length

    def inverse(self, q: ArrayLike) -> FloatArray:
        """Solve ``Phi(w) = q`` (vectorised) by Newton's method safeguarded by bisection.

        Raises
        ------
        ValueError
            If some ``q`` is not a finite number in [0, 1].
        """
        q_arr = check_quantiles(q)
        target = q_arr.ravel()
        w = solve_increasing(
            self._phi,
            lambda x: self._speed(x) / self.total_length,
            target,
            np.zeros_like(target),
            np.ones_like(target),
            target,
        )
        w = np.where(target == 0, 0.0, np.where(target == 1, 1.0, w))
        return w.reshape(q_arr.shape)


def _asinh_arc(t: FloatArray) -> FloatArray:
    """``t sqrt(1 + t^2) + asinh(t)``: twice an antiderivative of ``sqrt(1 + t^2)``."""
    return np.asarray(t * np.sqrt(1.0 + t * t) + np.arcsinh(t), dtype=np.float64)


def _z_of_w(w: FloatArray) -> FloatArray:
    """The paper's ``z(w) = t / (1 + sqrt(1 + t^2))`` with ``t = 2w - 1``."""
    t = 2.0 * w - 1.0
    return np.asarray(t / (1.0 + np.sqrt(1.0 + t * t)), dtype=np.float64)


def _g_antiderivative(z: FloatArray, r: float) -> FloatArray:
    """An antiderivative ``G_r`` of ``-4 sqrt(2) (1 + z^2)^2 / l_r(z)^3`` (paper eq. Iwr_Gr).

    ``l_r(z) = (r + 1) z^2 + 2 (r - 1) z - (r + 1) = (r + 1)(z - a)(z - b)`` has two real roots
    with ``a * b = -1``, both outside ``[z0, z1]`` for every ``r > 0``. Partial fractions with
    third-order poles: near a root ``p`` (other root ``o``), ``(1 + z^2)^2 / l_r^3 = g(z) /
    (z - p)^3`` with ``g(z) = (1 + z^2)^2 / ((r + 1)^3 (z - o)^3)``, so the coefficients of
    ``(z - p)^-3, (z - p)^-2, (z - p)^-1`` are ``g(p), g'(p), g''(p) / 2`` and the
    antiderivative is ``-A3 / (2 (z - p)^2) - A2 / (z - p) + A1 log|z - p|``.
    """
    s = math.sqrt(2.0 * (r * r + 1.0))
    # Compute the root without cancellation and get the other one from a * b = -1.
    if r >= 1.0:
        b = -((r - 1.0) + s) / (r + 1.0)
        a = -1.0 / b
    else:
        a = ((1.0 - r) + s) / (r + 1.0)
        b = -1.0 / a
    c = (r + 1.0) ** 3
    total = np.zeros_like(z)
    for p, o in ((a, b), (b, a)):
        e = p - o
        num = (1.0 + p * p) ** 2  # (1 + z^2)^2 and its first two derivatives at p
        num1 = 4.0 * p * (1.0 + p * p)
        num2 = 4.0 + 12.0 * p * p
        a3 = num / (c * e**3)
        a2 = (num1 / e**3 - 3.0 * num / e**4) / c
        a1 = (num2 / e**3 - 6.0 * num1 / e**4 + 12.0 * num / e**5) / (2.0 * c)
        d = z - p
        total = total - a3 / (2.0 * d * d) - a2 / d + a1 * np.log(np.abs(d))
    return np.asarray(-4.0 * _SQRT2 * total, dtype=np.float64)


def _integral_i(w: FloatArray, r: float) -> FloatArray:
    """``I(w; r) = int_0^w sqrt((1 - u)^2 + u^2) / (u + (1 - u) r)^3 du`` for ``r >= 1``."""
    if r == 1.0:
        # I(w; 1) = 2 sqrt(2) / 8 * int_{-1}^{2w-1} sqrt(1 + t^2) dt = [F]_{-1}^{2w-1} / (4 sqrt 2).
        # (The paper's intermediate display has 1 / (2 sqrt 2) here, a factor 2 that cancels
        # in Phi; the value below matches quadrature.)
        return np.asarray(
            (_asinh_arc(2.0 * w - 1.0) - _asinh_arc(np.array(-1.0))) / (4.0 * _SQRT2),
            dtype=np.float64,
        )
    g0 = _g_antiderivative(np.array(_Z0), r)
    return np.asarray(_g_antiderivative(_z_of_w(w), r) - g0, dtype=np.float64)


class Quadratic1DCDF(ClosedFormCDF):
    """Closed-form ``Phi`` of the 1-D quadratic problem (paper eq. Farc_cases).

    With ``r = q2 / q1``, the front speed is ``v(w) = scale * sqrt((1 - w)^2 + w^2) /
    (w + (1 - w) r)^3`` and ``Phi(w) = I(w; r) / I(1; r)``: the ``asinh`` formula when
    ``r = 1``, ``(G_r(z(w)) - G_r(z0)) / (G_r(z1) - G_r(z0))`` when ``r > 1``, and the symmetry
    ``Phi(w; r) = 1 - Phi(1 - w; 1 / r)`` when ``r < 1``.

    Parameters
    ----------
    ratio : float
        ``r = q2 / q1 > 0``.
    scale : float
        Positive factor of the speed (``2 q2^2 (b1 - b2)^2 / q1`` for the problem); it sets
        ``speed`` and ``total_length`` but not ``Phi``.

    Examples
    --------
    >>> from paretosurf.problems.quadratic import Quadratic1DCDF
    >>> phi = Quadratic1DCDF(1.0)                 # symmetric case: Phi(1/2) = 1/2
    >>> round(float(phi(0.5)), 12), round(float(phi.inverse(0.5)), 12)
    (0.5, 0.5)
    >>> phi = Quadratic1DCDF(4.0)                 # q2 > q1: the front is swept late
    >>> bool(phi(0.5) < 0.5)
    True
    """

    def __init__(self, ratio: float, scale: float = 1.0) -> None:
        self.ratio = check_positive(ratio, name="ratio")
        self.scale = check_positive(scale, name="scale")
        r = self.ratio
        big = r if r >= 1.0 else 1.0 / r
        self._big = big  # the ratio >= 1 on which the formula is evaluated
        self._norm = float(_integral_i(np.array(1.0), big)[()])  # I(1; big)
        # I(1; r) = I(1; 1/r) / r^3 (substitute u -> 1 - u).
        integral_1 = self._norm if r >= 1.0 else self._norm / r**3
        self.total_length = self.scale * integral_1

    def _phi(self, w: FloatArray) -> FloatArray:
        if self.ratio >= 1.0:
            return np.asarray(_integral_i(w, self._big) / self._norm, dtype=np.float64)
        return np.asarray(1.0 - _integral_i(1.0 - w, self._big) / self._norm, dtype=np.float64)

    def _speed(self, w: FloatArray) -> FloatArray:
        r = self.ratio
        return np.asarray(
            self.scale * np.sqrt((1.0 - w) ** 2 + w**2) / (w + (1.0 - w) * r) ** 3, dtype=np.float64
        )

    def __repr__(self) -> str:
        return f"Quadratic1DCDF(ratio={self.ratio!r}, scale={self.scale!r})"


class GearToyCDF(ClosedFormCDF):
    """Closed-form ``Phi`` of :class:`GearToy`: ``Phi(w) = S(x*_w) / S(1)``.

    ``S(x) = int_0^x 2 sqrt((1 - y)^2 + y^2) dy = (F(2x - 1) - F(-1)) / (2 sqrt 2)`` with
    ``F(t) = t sqrt(1 + t^2) + asinh(t)`` is the arc length of ``((1 - y)^2, y^2)`` up to ``x``.

    Examples
    --------
    >>> from paretosurf.problems.quadratic import GearToyCDF
    >>> phi = GearToyCDF(9.0)                     # x*_w = 1/2 at w = 1 / (sqrt(p) + 1)
    >>> round(float(phi(0.25)), 12)
    0.5
    >>> round(float(phi.total_length), 10)        # 1 + asinh(1) / sqrt(2), whatever p
    1.6232252401
    """

    def __init__(self, p: float) -> None:
        self.p = check_positive(p, name="p")
        self._root_p = math.sqrt(self.p)
        self._f_minus1 = float(_asinh_arc(np.array(-1.0)))
        self.total_length = float(self._s_of_x(np.array(1.0)))

    def _s_of_x(self, x: FloatArray) -> FloatArray:
        return np.asarray(
            (_asinh_arc(2.0 * x - 1.0) - self._f_minus1) / (2.0 * _SQRT2), dtype=np.float64
        )

    def _phi(self, w: FloatArray) -> FloatArray:
        return self._s_of_x(_gear_x(w, self._root_p)) / self.total_length

    def _speed(self, w: FloatArray) -> FloatArray:
        return _gear_speed(w, self._root_p)

    def __repr__(self) -> str:
        return f"GearToyCDF(p={self.p!r})"


# ---------------------------------------------------------------------------------------------
# n-dimensional quadratic problem
# ---------------------------------------------------------------------------------------------
def _as_spd(q: ArrayLike, name: str) -> FloatArray:
    arr = np.asarray(q, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] < 1:
        raise ValueError(f"{name} must be a square (n, n) matrix, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    if not np.allclose(arr, arr.T, rtol=1e-10, atol=1e-12 * float(np.max(np.abs(arr)))):
        raise ValueError(f"{name} must be symmetric")
    arr = 0.5 * (arr + arr.T)
    try:
        np.linalg.cholesky(arr)
    except np.linalg.LinAlgError:
        raise ValueError(f"{name} must be positive definite") from None
    return arr


def _as_vector(b: ArrayLike, name: str, n: int) -> FloatArray:
    arr = np.asarray(b, dtype=np.float64)
    if arr.shape != (n,):
        raise ValueError(f"{name} must be a vector of shape ({n},), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    return arr


class Quadratic(BiObjectiveProblem):
    """``h_m(x) = (x - b_m)^T Q_m (x - b_m)``, m = 1, 2, with ``Q_m`` symmetric positive definite.

    The scalarized problem ``w h1 + (1 - w) h2`` is strongly convex with the unique minimizer
    ``x*_w = Sigma(w)^{-1} (w Q1 b1 + (1 - w) Q2 b2)``, ``Sigma(w) = w Q1 + (1 - w) Q2``.
    With ``P(w) = Sigma(w)^{-1} w Q1`` and ``d = b1 - b2``, ``x*_w = b2 + P(w) d`` and
    ``P'(w) = Sigma(w)^{-1} (Q1 (I - P) + Q2 P)``, which give the exact front speed.

    Parameters
    ----------
    Q1, Q2 : array_like, shape (n, n)
        Symmetric positive definite matrices.
    b1, b2 : array_like, shape (n,)
        Minimizers of ``h1`` and ``h2``; they must differ (otherwise the front is one point).

    Raises
    ------
    ValueError
        On a non-square, non-symmetric or non-positive-definite matrix, a vector of the wrong
        shape, non-finite entries, or ``b1 == b2``.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.quadratic import Quadratic
    >>> prob = Quadratic(np.eye(2), [1.0, 0.0], np.diag([1.0, 4.0]), [0.0, 1.0])
    >>> prob.argmin(0.5).round(6).tolist()
    [0.5, 0.8]
    >>> prob.front([0.0, 1.0]).round(6).tolist()   # (h1, h2) at the two ends
    [[2.0, 0.0], [0.0, 5.0]]
    """

    #: ``gradient_solver`` defaults.
    default_lr: ClassVar[float] = 0.05
    default_optimizer: ClassVar[str] = "adam"

    def __init__(self, Q1: ArrayLike, b1: ArrayLike, Q2: ArrayLike, b2: ArrayLike) -> None:
        self.Q1 = _as_spd(Q1, "Q1")
        n = self.Q1.shape[0]
        self.Q2 = _as_spd(Q2, "Q2")
        if self.Q2.shape != (n, n):
            raise ValueError(f"Q2 must have the shape of Q1, {(n, n)}, got {self.Q2.shape}")
        self.b1 = _as_vector(b1, "b1", n)
        self.b2 = _as_vector(b2, "b2", n)
        if np.array_equal(self.b1, self.b2):
            raise ValueError("b1 and b2 must differ (with b1 == b2 the front is a single point)")
        self.n_dim = n

    # -- core ------------------------------------------------------------------------------
    def _paths(self, w: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """For flat weights (K,): ``P(w) d``, ``(I - P(w)) d`` and ``P'(w) d``, each (K, n)."""
        d = self.b1 - self.b2
        sigma = w[:, None, None] * self.Q1 + (1.0 - w)[:, None, None] * self.Q2
        pd = np.linalg.solve(sigma, (w[:, None] * (self.Q1 @ d))[..., None])[..., 0]
        qd = d[None, :] - pd
        rhs = qd @ self.Q1 + pd @ self.Q2  # Q1 (I - P) d + Q2 P d (Q symmetric)
        dpd = np.linalg.solve(sigma, rhs[..., None])[..., 0]
        return (
            np.asarray(pd, dtype=np.float64),
            np.asarray(qd, dtype=np.float64),
            np.asarray(dpd, dtype=np.float64),
        )

    def argmin(self, w: float) -> FloatArray:
        """``x*_w = (w Q1 + (1 - w) Q2)^{-1} (w Q1 b1 + (1 - w) Q2 b2)``."""
        wf = float(as_weight_array(w))
        sigma = wf * self.Q1 + (1.0 - wf) * self.Q2
        rhs = wf * (self.Q1 @ self.b1) + (1.0 - wf) * (self.Q2 @ self.b2)
        return np.asarray(np.linalg.solve(sigma, rhs), dtype=np.float64)

    def objectives(self, x: ArrayLike) -> FloatArray:
        """``(h1(x), h2(x))``."""
        xa = np.asarray(x, dtype=np.float64).reshape(self.n_dim)
        e1, e2 = xa - self.b1, xa - self.b2
        return np.array([e1 @ self.Q1 @ e1, e2 @ self.Q2 @ e2], dtype=np.float64)

    def gradients(self, x: ArrayLike) -> FloatArray:
        """Stacked gradients ``(2 Q1 (x - b1), 2 Q2 (x - b2))``, shape (2, n)."""
        xa = np.asarray(x, dtype=np.float64).reshape(self.n_dim)
        return np.stack([2.0 * self.Q1 @ (xa - self.b1), 2.0 * self.Q2 @ (xa - self.b2)])

    def front(self, w: ArrayLike) -> FloatArray:
        """``f_PF(w) = (d^T (I-P)^T Q1 (I-P) d, d^T P^T Q2 P d)``: weights (K,) to (K, 2)."""
        flat = np.atleast_1d(as_weight_array(w)).ravel()
        pd, qd, _ = self._paths(flat)
        f1 = np.einsum("ki,ij,kj->k", qd, self.Q1, qd)
        f2 = np.einsum("ki,ij,kj->k", pd, self.Q2, pd)
        return np.stack([f1, f2], axis=1)

    def speed(self, w: ArrayLike) -> FloatArray:
        """Exact front speed ``||f_PF'(w)||`` with ``f_PF' = (-2 ((I-P)d)^T Q1 P'd,
        2 (Pd)^T Q2 P'd)``; same shape as ``w``."""
        w_arr = as_weight_array(w)
        pd, qd, dpd = self._paths(w_arr.ravel())
        df1 = -2.0 * np.einsum("ki,ij,kj->k", qd, self.Q1, dpd)
        df2 = 2.0 * np.einsum("ki,ij,kj->k", pd, self.Q2, dpd)
        return np.asarray(np.hypot(df1, df2), dtype=np.float64).reshape(w_arr.shape)

    def gradient_solver(
        self,
        *,
        steps: int,
        lr: float | None = None,
        optimizer: str | None = None,
        init: InitParams | None = None,
        reset_optimizer: bool = False,
    ) -> GradientSolver:
        """K warm-started gradient steps on ``w h1 + (1 - w) h2``.

        The signature and parameters are those of :meth:`BiObjectiveProblem.gradient_solver`.
        Defaults: ``lr = 0.05``, Adam. Plain gradient descent (``"sgd"``) converges for
        ``lr < 1 / lambda_max``, ``lambda_max`` the largest eigenvalue of ``Q1`` and ``Q2``.
        ``init`` is a point of shape ``(n,)`` (or ``init(w)`` returning one); default
        ``(b1 + b2) / 2``.

        Examples
        --------
        >>> import numpy as np
        >>> from paretosurf.problems.quadratic import Quadratic
        >>> prob = Quadratic(np.eye(2), [1.0, 0.0], np.eye(2), [0.0, 1.0])
        >>> sol = prob.gradient_solver(steps=500, lr=0.1, optimizer="sgd").solve(0.25, None)
        >>> np.round(sol.state.params, 6).tolist()
        [0.25, 0.75]
        """
        return self._first_order_solver(
            self.objectives,
            self.gradients,
            init,
            0.5 * (self.b1 + self.b2),
            steps=steps,
            lr=lr,
            optimizer=optimizer,
            reset_optimizer=reset_optimizer,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n_dim={self.n_dim})"


def _check_real(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    out = float(value)
    if not math.isfinite(out):
        raise ValueError(f"{name} must be finite, got {out}")
    return out


class Quadratic1D(Quadratic):
    """``h1(x) = q1 (x - b1)^2``, ``h2(x) = q2 (x - b2)^2`` on the real line, closed-form ``Phi``.

    The minimizer is ``x*_w = (w q1 b1 + (1 - w) q2 b2) / D(w)``, ``D(w) = w q1 + (1 - w) q2``;
    the front is ``(q1 q2^2 (1-w)^2, q2 q1^2 w^2) (b2 - b1)^2 / D^2`` and its exact speed is
    ``v(w) = 2 q1^2 q2^2 (b2 - b1)^2 sqrt((1 - w)^2 + w^2) / D(w)^3``. ``cdf()`` is the paper's
    closed form (eq. Farc_cases), which depends only on ``r = q2 / q1``. Solutions (states) are
    arrays of shape (1,), as for :class:`Quadratic`.

    Parameters
    ----------
    q1, q2 : float
        Positive curvatures.
    b1, b2 : float
        Distinct minimizers of ``h1`` and ``h2``.

    Examples
    --------
    >>> from paretosurf.problems.quadratic import Quadratic1D
    >>> prob = Quadratic1D(1.0, 1.0, 3.0, 0.0)
    >>> prob.front([0.0, 1.0]).round(6).tolist()
    [[1.0, 0.0], [0.0, 3.0]]
    >>> w = prob.cdf().quantile_weights(4)       # Rule 1 weights, closed-form Phi^{-1}
    >>> [round(float(v), 6) for v in prob.cdf()(w)]
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """

    def __init__(self, q1: float, b1: float, q2: float, b2: float) -> None:
        self.q1 = check_positive(q1, name="q1")
        self.q2 = check_positive(q2, name="q2")
        self.b1_scalar = _check_real(b1, "b1")
        self.b2_scalar = _check_real(b2, "b2")
        if self.b1_scalar == self.b2_scalar:
            raise ValueError(f"b1 and b2 must differ, got b1 = b2 = {self.b1_scalar}")
        super().__init__([[self.q1]], [self.b1_scalar], [[self.q2]], [self.b2_scalar])
        self.ratio = self.q2 / self.q1
        self._closed_cdf = Quadratic1DCDF(
            self.ratio, 2.0 * self.q2**2 * (self.b1_scalar - self.b2_scalar) ** 2 / self.q1
        )

    def _denominator(self, w: FloatArray) -> FloatArray:
        return np.asarray(w * self.q1 + (1.0 - w) * self.q2, dtype=np.float64)

    def front(self, w: ArrayLike) -> FloatArray:
        """Closed-form front: weights (K,) to points (K, 2)."""
        flat = np.atleast_1d(as_weight_array(w)).ravel()
        d2 = (self.b2_scalar - self.b1_scalar) ** 2
        den2 = self._denominator(flat) ** 2
        f1 = self.q1 * self.q2**2 * (1.0 - flat) ** 2 * d2 / den2
        f2 = self.q2 * self.q1**2 * flat**2 * d2 / den2
        return np.stack([f1, f2], axis=1)

    def speed(self, w: ArrayLike) -> FloatArray:
        """Exact speed ``2 q1^2 q2^2 (b2 - b1)^2 sqrt((1 - w)^2 + w^2) / D(w)^3``."""
        w_arr = as_weight_array(w)
        d2 = (self.b2_scalar - self.b1_scalar) ** 2
        scale = 2.0 * self.q1**2 * self.q2**2 * d2
        return np.asarray(
            scale * np.sqrt((1.0 - w_arr) ** 2 + w_arr**2) / self._denominator(w_arr) ** 3,
            dtype=np.float64,
        )

    # The closed form has SpeedCDF's interface; base.cdf() is annotated with SpeedCDF itself.
    def cdf(self) -> Quadratic1DCDF:
        """The closed-form arc-length CDF (:class:`Quadratic1DCDF`)."""
        return self._closed_cdf

    def __repr__(self) -> str:
        return (
            f"Quadratic1D(q1={self.q1!r}, b1={self.b1_scalar!r}, q2={self.q2!r}, "
            f"b2={self.b2_scalar!r})"
        )


# ---------------------------------------------------------------------------------------------
# Gear toy
# ---------------------------------------------------------------------------------------------
def _gear_x(w: FloatArray, root_p: float) -> FloatArray:
    """``x*_w = sqrt(p) w / (1 + (sqrt(p) - 1) w)``."""
    return np.asarray(root_p * w / (1.0 + (root_p - 1.0) * w), dtype=np.float64)


def _gear_speed(w: FloatArray, root_p: float) -> FloatArray:
    """``2 sqrt((1 - x)^2 + x^2) dx/dw`` with ``dx/dw = sqrt(p) / (1 + (sqrt(p) - 1) w)^2``."""
    x = _gear_x(w, root_p)
    dxdw = root_p / (1.0 + (root_p - 1.0) * w) ** 2
    return np.asarray(2.0 * np.sqrt((1.0 - x) ** 2 + x**2) * dxdw, dtype=np.float64)


class GearToy(BiObjectiveProblem):
    """The paper's quadratic gear toy: a fixed front traversed at a speed set by ``p``.

    The reported objectives are ``bar-h(x) = ((1 - x)^2, x^2)``, ``x in [0, 1]``: the front is
    the same curve for every ``p``. The scalarized problem actually solved is different,
    ``min_x w h1^p(x) + (1 - w) h2(x)`` with ``h1^p(x) = sqrt(p) / 2 (x - 1)^2`` and
    ``h2(x) = x^2 / 2``, whose solution is ``x*_w = sqrt(p) w / (1 + (sqrt(p) - 1) w)``.

    Why the reported objectives differ from the scalarized ones: ``h1^p = sqrt(p)/2 * bar-h1``
    and ``h2 = bar-h2 / 2`` are positive rescalings of ``bar-h``, so both pairs have the same
    Pareto set ``[0, 1]`` and LS at weight ``w`` on ``(h1^p, h2)`` is LS at the re-mapped weight
    ``sqrt(p) w / (sqrt(p) w + 1 - w)`` on ``bar-h``. Reporting ``bar-h`` keeps one front curve,
    with arc length ``s(1) = 1 + asinh(1) / sqrt(2)`` and bounded curvature, for every ``p``,
    while the "gear" ``p`` changes only *where* along it each weight lands: the speed
    ``v(w) = 2 sqrt((1 - x)^2 + x^2) dx/dw`` has ``v_max / v_min`` of order ``p``. The first
    chord-length reconstruction of ``Phi`` therefore degrades with ``p`` while SURF's final
    error should not (paper, "Quadratic gear toy"). An inner solver must weigh the scalarized
    pair and report ``bar-h``, as :meth:`solver` and :meth:`gradient_solver` do. For ``p = 1``
    the front and ``Phi`` are those of ``Quadratic1D(1, 1, 1, 0)``.

    Parameters
    ----------
    p : float
        Gear parameter, ``p > 0`` (the paper uses ``p = 1..10``; ``p = 1`` is uniform-friendly).

    Examples
    --------
    >>> from paretosurf.problems.quadratic import GearToy
    >>> toy = GearToy(9)
    >>> round(toy.argmin(0.25), 12)               # x*_w = 3 w / (1 + 2 w)
    0.5
    >>> toy.front([0.0, 0.25, 1.0]).round(6).tolist()
    [[1.0, 0.0], [0.25, 0.25], [0.0, 1.0]]
    """

    #: ``gradient_solver`` defaults.
    default_lr: ClassVar[float] = 0.1
    default_optimizer: ClassVar[str] = "sgd"

    def __init__(self, p: float) -> None:
        self.p = check_positive(p, name="p")
        self._root_p = math.sqrt(self.p)
        self._closed_cdf = GearToyCDF(self.p)

    def argmin(self, w: float) -> float:
        """``x*_w = sqrt(p) w / (1 + (sqrt(p) - 1) w)``."""
        return float(_gear_x(as_weight_array(w), self._root_p))

    def objectives(self, x: Any) -> FloatArray:
        """The reported objectives ``bar-h(x) = ((1 - x)^2, x^2)`` (a scalar or size-1 ``x``)."""
        xf = float(np.asarray(x, dtype=np.float64).reshape(()))
        return np.array([(1.0 - xf) ** 2, xf**2], dtype=np.float64)

    def scalarized_objectives(self, x: Any) -> FloatArray:
        """The objectives LS actually weighs: ``(sqrt(p) / 2 (x - 1)^2, x^2 / 2)``."""
        xf = float(np.asarray(x, dtype=np.float64).reshape(()))
        return np.array([0.5 * self._root_p * (xf - 1.0) ** 2, 0.5 * xf**2], dtype=np.float64)

    def scalarized_gradients(self, x: Any) -> FloatArray:
        """Gradients of the scalarized objectives, ``[[sqrt(p) (x - 1)], [x]]``, shape (2, 1)."""
        xf = float(np.asarray(x, dtype=np.float64).reshape(()))
        return np.array([[self._root_p * (xf - 1.0)], [xf]], dtype=np.float64)

    def front(self, w: ArrayLike) -> FloatArray:
        """``bar-h(x*_w)``: weights (K,) to points (K, 2)."""
        x = _gear_x(np.atleast_1d(as_weight_array(w)).ravel(), self._root_p)
        return np.stack([(1.0 - x) ** 2, x**2], axis=1)

    def speed(self, w: ArrayLike) -> FloatArray:
        """Exact speed ``2 sqrt((1 - x)^2 + x^2) dx/dw`` at ``x = x*_w``."""
        return _gear_speed(as_weight_array(w), self._root_p)

    # The closed form has SpeedCDF's interface; base.cdf() is annotated with SpeedCDF itself.
    def cdf(self) -> GearToyCDF:
        """The closed-form arc-length CDF (:class:`GearToyCDF`)."""
        return self._closed_cdf

    def gradient_solver(
        self,
        *,
        steps: int,
        lr: float | None = None,
        optimizer: str | None = None,
        init: InitParams | None = None,
        reset_optimizer: bool = False,
    ) -> GradientSolver:
        """K warm-started gradient steps on the geared scalarization, reporting ``bar-h``.

        The signature and parameters are those of :meth:`BiObjectiveProblem.gradient_solver`.
        Defaults: ``lr = 0.1``, plain gradient descent (``"sgd"``), which converges for
        ``lr < 2 / max(1, sqrt(p))``. ``init`` is a slot's starting ``x``: a float or an array
        of shape ``(1,)``, or ``init(w)`` returning one; default ``0.5``.

        Examples
        --------
        >>> from paretosurf.problems.quadratic import GearToy
        >>> sol = GearToy(9).gradient_solver(steps=300).solve(0.25, None)
        >>> round(float(sol.state.params[0]), 6), sol.objectives.round(6).tolist()
        (0.5, [0.25, 0.25])
        """
        start: InitParams | None = init
        if isinstance(init, numbers.Real):
            start = [_check_real(init, "init")]
        elif callable(init):
            fn = init

            def scalar_start(w: float) -> FloatArray:
                x = np.asarray(fn(w), dtype=np.float64)
                return x.reshape(1) if x.size == 1 else x  # other sizes: the check names init

            start = scalar_start
        return self._first_order_solver(
            self.objectives,
            self.scalarized_gradients,
            start,
            np.array([0.5]),
            steps=steps,
            lr=lr,
            optimizer=optimizer,
            reset_optimizer=reset_optimizer,
        )

    def __repr__(self) -> str:
        return f"GearToy(p={self.p!r})"
