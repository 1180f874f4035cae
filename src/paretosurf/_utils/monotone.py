"""Inversion of increasing functions on [0, 1], shared by every CDF class of the library.

No library routine inverts a *vectorised* monotone function to rounding accuracy with a
per-point bracket (scipy's scalar root finders work one target at a time), so this module does it
once: Newton's method safeguarded by bisection inside a bracket that always contains the root.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.validation import check_n_segments

FloatArray = NDArray[np.float64]

_EPS = float(np.finfo(float).eps)


def check_quantiles(q: ArrayLike) -> FloatArray:
    """``q`` as a float array of finite values in [0, 1], or a ``ValueError``."""
    q_arr = np.asarray(q, dtype=np.float64)
    if not np.all(np.isfinite(q_arr)) or np.any((q_arr < 0) | (q_arr > 1)):
        raise ValueError("q must lie in [0, 1]")
    return q_arr


def solve_increasing(
    fun: Callable[[FloatArray], FloatArray],
    slope: Callable[[FloatArray], FloatArray],
    target: FloatArray,
    lo: FloatArray,
    hi: FloatArray,
    guess: FloatArray,
    *,
    max_iter: int = 200,
) -> FloatArray:
    """Solve ``fun(w) = target`` elementwise for ``w`` in ``[lo, hi]``, ``fun`` non-decreasing.

    Each iteration shrinks the bracket with the sign of the residual and takes the Newton step
    when it stays strictly inside, else the midpoint. A residual at rounding level keeps the
    current point (so a linear piece is inverted exactly).
    """
    w = np.array(guess, dtype=np.float64)
    lo = np.array(lo, dtype=np.float64)
    hi = np.array(hi, dtype=np.float64)
    small = 2 * _EPS * np.maximum(1.0, np.abs(target))
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(max_iter):
            f = fun(w) - target
            converged = np.abs(f) <= small
            if converged.all():
                break
            below = f < 0
            lo[below] = w[below]
            hi[~below] = w[~below]
            step = w - f / slope(w)
            outside = ~((step > lo) & (step < hi))  # also catches NaN and inf
            step[outside] = 0.5 * (lo[outside] + hi[outside])
            step[converged] = w[converged]
            done = bool(np.all(np.abs(step - w) <= 4 * _EPS))
            w = step
            if done:
                break
    return w


class QuantileMixin:
    """``quantile_weights(N) = inverse(n / N)`` for any class with an ``inverse``."""

    __slots__ = ()

    def inverse(self, q: ArrayLike) -> FloatArray:  # pragma: no cover - overridden
        raise NotImplementedError

    def quantile_weights(self, n_segments: int) -> FloatArray:
        """Rule 1 weights ``w_n = Phi^{-1}(n / N)``, n = 0..N: strictly increasing from 0 to 1.

        Examples
        --------
        >>> import paretosurf as ps
        >>> ps.ArcLengthCDF.identity().quantile_weights(4).tolist()
        [0.0, 0.25, 0.5, 0.75, 1.0]
        """
        n = check_n_segments(n_segments)
        return self.inverse(np.arange(n + 1) / n)
