"""The arc-length CDF ``Phi`` of a Pareto front, as SURF estimates and refines it.

``Phi(w) = s(w) / s(1)`` is the fraction of the front's arc length traversed by the
linear-scalarization path up to weight ``w``. SURF rebuilds an estimate ``Phi~`` from the
cumulative chord lengths between consecutive front points (monotone PCHIP interpolation) and
damps it into the running estimate: ``Phi_{t+1} = alpha * Phi~_t + (1 - alpha) * Phi_t``.

:class:`ArcLengthCDF` stores every such function *exactly* as one piecewise cubic Hermite
spline: a PCHIP interpolant is a cubic on each interval between its knots, so a convex
combination of two of them is a cubic on each interval of the union of their knots and is
determined by its values and slopes there. The mixture therefore never needs a resampling grid
and its inverse is exact up to floating-point rounding. So that the knots do not pile up round
after round (each estimate brings N + 1), each mixture drops the knots it no longer needs: a
damped CDF stays within ``KNOT_PRUNE_TOL`` (1e-13) of the exact mixture of its estimates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.monotone import QuantileMixin, check_quantiles, solve_increasing
from paretosurf._utils.validation import as_front_points, as_weight_array, as_weights, check_alpha

__all__ = ["ArcLengthCDF"]

FloatArray = NDArray[np.float64]

#: Knots of a mixture closer than this are merged (the later one is dropped). The error this
#: introduces is of order ``gap**2`` times the jump in the second derivative: far below 1e-20.
_KNOT_MERGE_TOL = 1e-13

#: Knot pruning of :meth:`ArcLengthCDF.mix` (see :func:`prune_knots`): a mixture with damping
#: ``alpha`` may move by at most ``alpha * KNOT_PRUNE_TOL`` (sup norm) when it drops knots, so
#: that a CDF damped round after round stays within ``KNOT_PRUNE_TOL`` of the exact mixture of
#: its estimates (each round's error is damped by ``1 - alpha`` in the next). 0 disables it.
#:
#: Why 1e-13. A knot of an estimate ``k`` rounds old weighs ``alpha (1 - alpha)^k`` in the
#: mixture, so it can go after about ``log(C / tol) / alpha`` rounds: the tolerance sets the
#: knot count only through its logarithm. Measured with N = 1000 and alpha = 0.3 (unpruned,
#: the count grows by N + 1 a round, to 199,802 knots after 200 rounds): with estimates from
#: points with noise as large as their chords, the count settles at 41k, 35k, 30k, 24k and 19k
#: knots for a tolerance of 1e-14, 1e-13, 1e-12, 1e-11 and 1e-10; on a converging exact run it
#: peaks at 13.6, 9.4, 5.9, 3.4 and 1.8 times N + 1 (round 20 or so) and settles near N + 1.
#: At 1e-10 the mixture already drops knots of the estimates themselves, and the fixed point
#: moves (SURF's final CV on Quadratic1D(1, 1, 4, 0), N = 1000: 9e-10 against 1.5e-13
#: unpruned); at 1e-13 it ends where the unpruned run ends. 1e-13 is also the accuracy to which
#: the tests hold a mixture exact, and far above the rounding of the removal test itself
#: (~1e-16; at the smallest "auto" damping, 0.05, a round may move the CDF by 5e-15). Each
#: mixture makes one pruning pass, the next round's the next: splitting the budget among 2, 4
#: or 8 passes per mixture left more knots, not fewer (N = 200, noisy: 40, 42 and 44 times
#: N + 1 against 38.5).
KNOT_PRUNE_TOL = 1e-13

#: Relative floor on chord lengths when a CDF is rebuilt from front points. Coincident points
#: (zero chords) would make ``Phi~`` flat on an interval and hence not invertible; each chord is
#: raised to at least this fraction of the mean chord, so the rebuilt CDF stays strictly
#: increasing. Chords above the floor are left unchanged.
CHORD_FLOOR = 1e-6


class ArcLengthCDF(QuantileMixin):
    """A strictly increasing CDF on ``[0, 1]`` with ``Phi(0) = 0`` and ``Phi(1) = 1``.

    Stored as a C1 piecewise cubic Hermite spline: knots ``x`` (``0 = x_0 < ... < x_K = 1``),
    values ``y = Phi(x)`` and slopes ``d = Phi'(x)``. Build one with :meth:`identity`,
    :meth:`from_front` or :meth:`from_knots`; combine with :meth:`mix`.

    Examples
    --------
    >>> import numpy as np
    >>> import paretosurf as ps
    >>> w = np.linspace(0.0, 1.0, 5)
    >>> points = np.c_[w**2, 1 - w**2]          # a straight front traversed at speed ~ w
    >>> phi = ps.ArcLengthCDF.from_front(w, points)
    >>> float(phi(0.5))                          # arc fraction at w = 0.5 is exactly 0.25
    0.25
    >>> float(phi.inverse(0.25))
    0.5
    >>> mixed = ps.ArcLengthCDF.identity().mix(phi, alpha=0.3)
    >>> round(float(mixed(0.5)), 12)             # 0.3 * 0.25 + 0.7 * 0.5
    0.425
    """

    __slots__ = ("_d", "_x", "_y")

    def __init__(self, x: ArrayLike, y: ArrayLike, d: ArrayLike) -> None:
        x_arr = np.asarray(x, dtype=np.float64)
        y_arr = np.asarray(y, dtype=np.float64)
        d_arr = np.asarray(d, dtype=np.float64)
        if x_arr.ndim != 1 or x_arr.shape != y_arr.shape or x_arr.shape != d_arr.shape:
            raise ValueError("knots, values and slopes must be 1-D arrays of equal length")
        if x_arr.size < 2:
            raise ValueError("an ArcLengthCDF needs at least two knots")
        if not (
            np.all(np.isfinite(x_arr)) and np.all(np.isfinite(y_arr)) and np.all(np.isfinite(d_arr))
        ):
            raise ValueError("knots, values and slopes must be finite")
        if x_arr[0] != 0.0 or x_arr[-1] != 1.0 or np.any(np.diff(x_arr) <= 0):
            raise ValueError("knots must increase strictly from 0 to 1")
        if y_arr[0] != 0.0 or y_arr[-1] != 1.0 or np.any(np.diff(y_arr) <= 0):
            raise ValueError("values must increase strictly from Phi(0)=0 to Phi(1)=1")
        if np.any(d_arr < 0):
            raise ValueError("slopes of a CDF must be non-negative")
        self._x = x_arr
        self._y = y_arr
        self._d = d_arr

    @classmethod
    def _trusted(cls, x: FloatArray, y: FloatArray, d: FloatArray) -> ArcLengthCDF:
        """Build from arrays the library itself produced (skips the checks of ``__init__``)."""
        out = cls.__new__(cls)
        out._x, out._y, out._d = x, y, d
        return out

    # ------------------------------------------------------------------ constructors
    @classmethod
    def identity(cls) -> ArcLengthCDF:
        """The uniform CDF ``Phi_0(w) = w`` that SURF starts from.

        Examples
        --------
        >>> import paretosurf as ps
        >>> ps.ArcLengthCDF.identity().quantile_weights(4).tolist()
        [0.0, 0.25, 0.5, 0.75, 1.0]
        """
        # (the checks of __init__ hold for these constants: skipped, as SURF starts here
        # once a run)
        return cls._trusted(np.array([0.0, 1.0]), np.array([0.0, 1.0]), np.array([1.0, 1.0]))

    @classmethod
    def from_knots(cls, x: ArrayLike, y: ArrayLike) -> ArcLengthCDF:
        """Monotone PCHIP interpolant of increasing data ``(x, y)`` with ``x`` spanning [0, 1].

        ``y`` is normalized so that ``Phi(0) = 0`` and ``Phi(1) = 1``. The slopes are
        Fritsch-Carlson's with the three-point shape-preserving end rule (the paper's
        Algorithm 2, identical to :class:`scipy.interpolate.PchipInterpolator`; see
        :func:`pchip_slopes`).

        Parameters
        ----------
        x : array_like, shape (K,)
            Strictly increasing knots with ``x[0] == 0`` and ``x[-1] == 1``.
        y : array_like, shape (K,)
            Strictly increasing values.
        """
        x_arr = as_weights(x, name="x")
        y_arr = np.asarray(y, dtype=np.float64)
        if y_arr.shape != x_arr.shape:
            raise ValueError(f"y must have shape {x_arr.shape}, got {y_arr.shape}")
        if not np.all(np.isfinite(y_arr)) or np.any(np.diff(y_arr) <= 0):
            raise ValueError("y must be finite and strictly increasing")
        return cls._pchip(x_arr, y_arr)

    @classmethod
    def _pchip(cls, x: FloatArray, y: FloatArray) -> ArcLengthCDF:
        """PCHIP interpolant of validated, strictly increasing data, normalized to [0, 1]."""
        y = (y - y[0]) / (y[-1] - y[0])
        y[0], y[-1] = 0.0, 1.0
        return cls._trusted(x, y, pchip_slopes(x, y))

    @classmethod
    def _from_chords(cls, weights: FloatArray, chords: FloatArray) -> ArcLengthCDF:
        """:meth:`from_front` from validated weights and chord lengths (the SURF loop's path)."""
        s = np.empty(weights.size)
        s[0] = 0.0
        np.cumsum(floor_chords(chords), out=s[1:])
        return cls._pchip(weights, s)

    @classmethod
    def from_front(cls, weights: ArrayLike, points: ArrayLike) -> ArcLengthCDF:
        """Rebuild ``Phi~`` from front points by cumulative chord length and PCHIP.

        Parameters
        ----------
        weights : array_like, shape (N+1,)
            Strictly increasing weights with ``weights[0] == 0`` and ``weights[-1] == 1``.
        points : array_like, shape (N+1, M)
            Objective vectors solved at ``weights``, in the same order.

        Returns
        -------
        ArcLengthCDF
            ``Phi~(w) = s~(w) / s~(1)``, where ``s~(w_n)`` is the cumulative chord length.
            Chords shorter than ``CHORD_FLOOR`` times the mean chord are raised to it, so
            coincident points still give a strictly increasing CDF; if all points coincide
            the result is the identity.

        Examples
        --------
        >>> import paretosurf as ps
        >>> phi = ps.ArcLengthCDF.from_front([0, 0.5, 1], [[0, 1], [0, 1], [1, 0]])
        >>> bool(phi(0.5) < 1e-5)          # first chord has zero length
        True
        """
        w = as_weights(weights, name="weights")
        pts = as_front_points(points, n_points=w.size, name="points")
        return cls._from_chords(w, np.linalg.norm(np.diff(pts, axis=0), axis=1))

    # ------------------------------------------------------------------ evaluation
    @property
    def knots(self) -> FloatArray:
        """Knots ``x`` of the Hermite representation (read-only copy)."""
        return self._x.copy()

    @property
    def values(self) -> FloatArray:
        """``Phi`` at the knots (read-only copy)."""
        return self._y.copy()

    @property
    def slopes(self) -> FloatArray:
        """``Phi'`` at the knots (read-only copy)."""
        return self._d.copy()

    def _locate(self, w: FloatArray) -> tuple[NDArray[np.intp], FloatArray, FloatArray]:
        """For weights in [0, 1]: the knot interval ``k`` each lies in, its place ``t`` in
        [0, 1] within it and the interval's width ``h``."""
        x = self._x
        k = np.minimum(np.maximum(np.searchsorted(x, w, side="right") - 1, 0), x.size - 2)
        x0 = x[k]
        h = x[k + 1] - x0
        return k, (w - x0) / h, h

    def _evaluate(self, w: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``(Phi(w), Phi'(w))`` at weights already known to lie in [0, 1]."""
        y, d = self._y, self._d
        k, t, h = self._locate(w)
        k1 = k + 1
        y0, y1, d0, d1 = y[k], y[k1], d[k], d[k1]
        u = 1.0 - t
        tu = t * u
        value = y0 + t * t * (3.0 - 2.0 * t) * (y1 - y0) + tu * h * (u * d0 - t * d1)
        slope = 6.0 * tu * (y1 - y0) / h + u * (1.0 - 3.0 * t) * d0 + t * (3.0 * t - 2.0) * d1
        return value, slope

    def _value(self, w: FloatArray) -> FloatArray:
        """``Phi(w)`` at weights already known to lie in [0, 1]: the value of
        :meth:`_evaluate`, the same arithmetic, without the slope."""
        y, d = self._y, self._d
        k, t, h = self._locate(w)
        k1 = k + 1
        y0, d0, d1 = y[k], d[k], d[k1]
        u = 1.0 - t
        return np.asarray(
            y0 + t * t * (3.0 - 2.0 * t) * (y[k1] - y0) + t * u * h * (u * d0 - t * d1),
            dtype=np.float64,
        )

    def _slope(self, w: FloatArray) -> FloatArray:
        return self._evaluate(w)[1]

    def __call__(self, w: ArrayLike) -> FloatArray:
        """Evaluate ``Phi(w)`` for ``w`` in [0, 1] (vectorised)."""
        return self._value(as_weight_array(w))

    def derivative(self, w: ArrayLike) -> FloatArray:
        """Evaluate the density ``Phi'(w)`` (proportional to the estimated front speed)."""
        return self._slope(as_weight_array(w))

    def inverse(self, q: ArrayLike, *, guess: ArrayLike | None = None) -> FloatArray:
        """Solve ``Phi(w) = q`` for ``q`` in [0, 1], to within floating-point rounding.

        The knot interval is found from the knot values; inside it the cubic is solved by
        Newton's method safeguarded by bisection, vectorised over all ``q``. ``guess`` (same
        shape as ``q``, e.g. the previous iteration's weights) only speeds this up.

        Raises
        ------
        ValueError
            If any ``q`` is outside [0, 1] or not finite.
        """
        q_arr = check_quantiles(q)
        guess_arr = None if guess is None else np.asarray(guess, dtype=np.float64).ravel()
        return self._inverse(q_arr.ravel(), guess_arr).reshape(q_arr.shape)

    def _inverse(self, flat: FloatArray, guess: FloatArray | None) -> FloatArray:
        """:meth:`inverse` of a validated 1-D ``q`` (and optional starting weights)."""
        x, y, d = self._x, self._y, self._d
        k = np.clip(np.searchsorted(y, flat, side="right") - 1, 0, x.size - 2)
        # On its knot interval each target solves one monotone cubic in t = (w - x_k) / h:
        # c1 t + c2 t^2 + c3 t^3 = q - y_k (the Hermite form expanded).
        x0 = x[k]
        h = x[k + 1] - x0
        dy = y[k + 1] - y[k]
        c1, m1 = h * d[k], h * d[k + 1]
        c2, c3 = 3.0 * dy - 2.0 * c1 - m1, c1 + m1 - 2.0 * dy
        rhs = flat - y[k]
        t = rhs / dy
        if guess is not None:
            t_guess = (guess - x0) / h
            t = np.where((t_guess > 0) & (t_guess < 1), t_guess, t)
        # Plain Newton steps kept inside [0, 1] settle almost every target in two or three
        # steps; any target they leave unsettled gets the safeguarded solver.
        small = 4 * np.finfo(float).eps
        c2x2, c3x3 = 2.0 * c2, 3.0 * c3
        with np.errstate(divide="ignore", invalid="ignore"):
            for _ in range(6):
                residual = t * (c1 + t * (c2 + t * c3)) - rhs
                if np.abs(residual).max() <= small:
                    break
                t = np.clip(t - residual / (c1 + t * (c2x2 + t * c3x3)), 0.0, 1.0)
            else:
                t = solve_increasing(
                    lambda u: u * (c1 + u * (c2 + u * c3)),
                    lambda u: c1 + u * (2.0 * c2 + 3.0 * u * c3),
                    rhs,
                    np.zeros_like(t),
                    np.ones_like(t),
                    np.nan_to_num(t, nan=0.5),
                )
        w = np.minimum(x0 + t * h, x[k + 1])
        # Phi(0) = 0 and Phi(1) = 1 exactly: where Phi is flat at an end (zero slope), the
        # cubic is solved only to rounding, which would put the first weight at ~1e-5.
        w[flat == 0.0] = 0.0
        w[flat == 1.0] = 1.0
        return w

    # ------------------------------------------------------------------ algebra
    def mix(self, other: ArcLengthCDF, alpha: float) -> ArcLengthCDF:
        """The damped update ``alpha * other + (1 - alpha) * self``, represented exactly up to
        ``alpha * KNOT_PRUNE_TOL``.

        The mixture is a cubic on each interval of the union of both knot sets; of those knots,
        :func:`prune_knots` drops the ones it no longer needs, moving it by at most ``alpha *
        KNOT_PRUNE_TOL`` (sup norm). A CDF damped round after round, ``Phi_{t+1} = alpha_t
        Phi~_t + (1 - alpha_t) Phi_t``, therefore differs from the exact mixture of its
        estimates by at most ``KNOT_PRUNE_TOL * (1 - prod_t (1 - alpha_t)) < KNOT_PRUNE_TOL``
        whatever the number of rounds and the dampings (the error ``e_t`` of each round is
        damped like the CDF: ``e_{t+1} <= (1 - alpha_t) e_t + alpha_t KNOT_PRUNE_TOL``). The
        knot count stays bounded: an estimate's knots go once its weight in the mixture has
        decayed so far that they no longer matter (about ``log(C / KNOT_PRUNE_TOL) / alpha``
        rounds), and at once where the estimates agree, as they do once SURF settles.

        Parameters
        ----------
        other : ArcLengthCDF
            The fresh estimate ``Phi~_t``.
        alpha : float
            Damping factor in (0, 1]; ``alpha = 1`` returns ``other``.
        """
        if not isinstance(other, ArcLengthCDF):
            raise TypeError(f"other must be an ArcLengthCDF, got {type(other).__name__}")
        a = check_alpha(alpha)
        if a == 1.0:
            return other
        # Each side is known exactly at its own knots; evaluate it only at the other's knots.
        b = 1.0 - a
        x = np.concatenate((self._x, other._x))
        other_y, other_d = other._evaluate(self._x)
        self_y, self_d = self._evaluate(other._x)
        y = np.concatenate((b * self._y + a * other_y, b * self_y + a * other._y))
        d = np.concatenate((b * self._d + a * other_d, b * self_d + a * other._d))
        order = np.argsort(x, kind="stable")
        x = x[order]
        keep = merge_mask(x)
        order = order[keep]
        x, y, d = x[keep], y[order], d[order]
        x[-1], y[0], y[-1] = 1.0, 0.0, 1.0
        np.maximum(d, 0.0, out=d)
        if KNOT_PRUNE_TOL > 0.0:
            x, y, d = prune_knots(x, y, d, a * KNOT_PRUNE_TOL)
        return ArcLengthCDF._trusted(x, y, d)

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict[str, list[float]]:
        """A JSON-serialisable dict; :meth:`from_dict` restores the identical CDF."""
        return {"knots": self._x.tolist(), "values": self._y.tolist(), "slopes": self._d.tolist()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ArcLengthCDF:
        """Inverse of :meth:`to_dict`."""
        return cls(data["knots"], data["values"], data["slopes"])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ArcLengthCDF):
            return NotImplemented
        return bool(
            np.array_equal(self._x, other._x)
            and np.array_equal(self._y, other._y)
            and np.array_equal(self._d, other._d)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ArcLengthCDF(n_knots={self._x.size})"


def floor_chords(chords: FloatArray) -> FloatArray:
    """Raise each chord to at least ``CHORD_FLOOR`` times the mean chord (all equal if all zero)."""
    mean = float(chords.sum()) / chords.size if chords.size else 0.0
    if mean <= 0.0:
        return np.ones_like(chords)
    return np.maximum(chords, CHORD_FLOOR * mean)


def merge_mask(x: FloatArray) -> NDArray[np.bool_]:
    """Mask of sorted knots to keep: drop those closer than ``_KNOT_MERGE_TOL`` to their
    predecessor (so 0 stays; the last kept knot is then set to exactly 1 by the caller)."""
    keep = np.empty(x.size, dtype=bool)
    keep[0] = True
    np.greater_equal(x[1:] - x[:-1], _KNOT_MERGE_TOL, out=keep[1:])
    return keep


def prune_knots(
    x: FloatArray, y: FloatArray, d: FloatArray, tol: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Drop interior knots of a monotone Hermite spline that it does not need, moving it by at
    most ``tol`` (sup norm over [0, 1], up to rounding).

    An interior knot ``m`` between its neighbours ``a < m < b`` can go when the one cubic on
    ``[a, b]`` with the values and slopes at ``a`` and ``b`` reproduces the spline's value and
    slope at ``m``: with mismatches ``dy`` and ``dd`` there, the spline minus that cubic is, on
    ``[a, m]``, the Hermite cubic with zero data at ``a`` and ``(dy, dd)`` at ``m``, of size at
    most ``|dy| + 4/27 (m - a) |dd|`` (likewise on ``[m, b]``). A knot is dropped when
    ``|dy| + 4/27 max(m - a, b - m) |dd| <= tol`` and the merged cubic is monotone, both end
    slopes in ``[0, 3 (y_b - y_a) / (b - a)]`` (Fritsch and Carlson's sufficient condition), so
    that the exact inverse stays valid. The knots dropped are never adjacent (every other one
    of each run of droppable knots), so that each one's test still holds for the result, and
    each part of [0, 1] is moved by at most one dropped knot's error. The end knots 0 and 1 stay,
    the values kept stay strictly increasing, and values and slopes at the kept knots are
    unchanged. One call makes one pass: a run of ``r`` droppable knots loses about ``r / 2``.

    Parameters
    ----------
    x, y, d : ndarray, shape (K,)
        Knots, values and non-negative slopes of a monotone C1 piecewise cubic.
    tol : float
        The most the spline may move.

    Returns
    -------
    x, y, d : ndarray
        The knots kept, with their values and slopes.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.curves._cdf import prune_knots
    >>> x = np.linspace(0.0, 1.0, 5)             # Phi(w) = w^2 is one cubic on [0, 1]
    >>> x_kept, _, _ = prune_knots(x, x**2, 2 * x, 1e-14)
    >>> x_kept.tolist()                           # every other knot goes in one pass
    [0.0, 0.5, 1.0]
    >>> prune_knots(x_kept, x_kept**2, 2 * x_kept, 1e-14)[0].tolist()
    [0.0, 1.0]
    """
    if x.size <= 2:
        return x, y, d
    xa, xm, xb = x[:-2], x[1:-1], x[2:]
    ya, da, db = y[:-2], d[:-2], d[2:]
    h = xb - xa
    dy = y[2:] - ya
    left, right = xm - xa, xb - xm
    t, u = left / h, right / h
    tu = t * u
    # the merged cubic's value and slope at m (the Hermite form of _evaluate)
    value = ya + t * t * (3.0 - 2.0 * t) * dy + tu * h * (u * da - t * db)
    slope = 6.0 * tu * dy / h + u * (1.0 - 3.0 * t) * da + t * (3.0 * t - 2.0) * db
    error = np.abs(value - y[1:-1]) + (4.0 / 27.0) * np.maximum(left, right) * np.abs(
        slope - d[1:-1]
    )
    droppable = (error <= tol) & (da * h <= 3.0 * dy) & (db * h <= 3.0 * dy)
    if not droppable.any():
        return x, y, d
    # every other knot of each run of droppable ones, from the first of the run
    index = np.arange(droppable.size)
    starts = droppable.copy()
    starts[1:] &= ~droppable[:-1]
    first = np.maximum.accumulate(np.where(starts, index, 0))
    keep = np.ones(x.size, dtype=bool)
    keep[1:-1] = ~droppable | ((index - first) % 2 == 1)
    return x[keep], y[keep], d[keep]


def pchip_slopes(x: FloatArray, y: FloatArray) -> FloatArray:
    """Fritsch-Carlson PCHIP slopes of strictly increasing data (the paper's Algorithm 2).

    Interior slopes are the weighted harmonic means of the neighbouring secants; end slopes use
    the three-point formula, set to 0 if its sign differs from the end secant and capped at
    three times that secant. For strictly increasing data this is exactly what
    :class:`scipy.interpolate.PchipInterpolator` computes (the tests check it); it is written
    out here because the SURF loop needs only the knot slopes, and building scipy's piecewise
    polynomial object costs more than the rest of an outer iteration together.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.curves._cdf import pchip_slopes
    >>> pchip_slopes(np.array([0.0, 0.5, 1.0]), np.array([0.0, 0.25, 1.0])).tolist()
    [0.0, 0.75, 2.0]
    """
    h = x[1:] - x[:-1]
    delta = (y[1:] - y[:-1]) / h
    if x.size == 2:
        return np.array([delta[0], delta[0]])
    slopes = np.empty(x.size)
    w1 = 2.0 * h[1:] + h[:-1]
    w2 = h[1:] + 2.0 * h[:-1]
    slopes[1:-1] = (w1 + w2) / (w1 / delta[:-1] + w2 / delta[1:])
    ends = [float(v) for v in (h[0], h[1], delta[0], delta[1], h[-1], h[-2], delta[-1], delta[-2])]
    for end, (h0, h1, d0, d1) in ((0, ends[:4]), (-1, ends[4:])):
        m = ((2.0 * h0 + h1) * d0 - h0 * d1) / (h0 + h1)
        slopes[end] = 0.0 if m * d0 <= 0 else min(m, 3.0 * d0)
    return slopes
