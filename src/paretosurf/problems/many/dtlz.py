"""DTLZ2-style fronts in closed form: :class:`InvertedDTLZ2` (convex, ``r * (1 - u)``) and
:class:`DTLZ2` (the unit-sphere octant)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from paretosurf._utils.validation import (
    check_non_negative_int,
    check_positive_int,
)
from paretosurf.problems.many.base import FloatArray, ManyObjectiveProblem, unit_box_points

__all__ = ["DTLZ2", "InvertedDTLZ2"]


class InvertedDTLZ2(ManyObjectiveProblem):
    """A convex DTLZ2-style problem: ``f_m(x) = r_m (1 + g(x)) (1 - u_m(x))``.

    The decision ``x`` lies in ``[0, 1]^(M - 1 + n_distance)``. The first ``M - 1`` (position)
    variables give DTLZ2's point on the positive orthant of the unit sphere, with
    ``theta_i = x_i pi / 2``: ``u_1 = cos theta_1 ... cos theta_{M-1}``, ``u_m = cos theta_1 ...
    cos theta_{M-m} sin theta_{M-m+1}`` (``u_M = sin theta_1``); the others (distance variables)
    give ``g(x) = sum (x_i - 1/2)^2``. Since ``1 - u_m >= 0``, ``g = 0`` is optimal and the
    Pareto front is ``{r * (1 - u)}``, a convex piece of a sphere (an ellipsoid for unequal
    radii) facing the origin. The scalarized minimizer maximizes ``(r * w) . u`` on the sphere:

    ``u(w) = (r * w) / ||r * w||``, ``f_PF(w) = r - r^2 * w / ||r * w||`` (elementwise).

    Parameters
    ----------
    n_objectives : int
        ``M >= 2``.
    radii : array_like, shape (M,), optional
        Positive scales ``r_m`` of the objectives; default all ones.
    n_distance : int
        Number of distance variables, >= 0.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.many import InvertedDTLZ2
    >>> prob = InvertedDTLZ2(3)
    >>> w = np.ones(3) / 3
    >>> prob.front(w).round(6).tolist()                   # 1 - 1/sqrt(3) each
    [0.42265, 0.42265, 0.42265]
    >>> x = prob.argmin(w)
    >>> x.shape, bool(np.allclose(prob.objectives(x), prob.front(w)))
    ((7,), True)
    """

    def __init__(
        self, n_objectives: int = 3, radii: ArrayLike | None = None, n_distance: int = 5
    ) -> None:
        m = check_positive_int(n_objectives, name="n_objectives")
        if m < 2:
            raise ValueError(f"n_objectives must be >= 2, got {m}")
        r = np.ones(m) if radii is None else np.array(radii, dtype=np.float64)
        if r.shape != (m,) or not np.all(np.isfinite(r)) or np.any(r <= 0):
            raise ValueError(f"radii must be {m} positive finite numbers, got {radii!r}")
        self.n_objectives = m
        self.radii = r
        self.n_distance = check_non_negative_int(n_distance, name="n_distance")
        self.n_var = m - 1 + self.n_distance

    def _check_x(self, xs: ArrayLike) -> FloatArray:
        return unit_box_points(xs, self.n_var)

    def sphere_point(self, xs: ArrayLike) -> FloatArray:
        """DTLZ2's ``u(x)`` on the unit sphere, shape (M,) or (B, M)."""
        arr = self._check_x(xs)
        theta = 0.5 * math.pi * arr[..., : self.n_objectives - 1]
        m = self.n_objectives
        cos, sin = np.cos(theta), np.sin(theta)
        u = np.empty((*arr.shape[:-1], m))
        for k in range(m):  # u_{k+1}: cos theta_1 ... cos theta_{M-1-k} (times sin theta_{M-k})
            u[..., k] = np.prod(cos[..., : m - 1 - k], axis=-1)
            if k > 0:
                u[..., k] *= sin[..., m - 1 - k]
        return u

    def distance(self, xs: ArrayLike) -> FloatArray:
        """``g(x) = sum (x_i - 1/2)^2`` over the distance variables."""
        arr = self._check_x(xs)
        return np.asarray(
            np.sum((arr[..., self.n_objectives - 1 :] - 0.5) ** 2, axis=-1), dtype=np.float64
        )

    def objectives(self, x: ArrayLike) -> FloatArray:
        """``f_m = r_m (1 + g) (1 - u_m)``, shape (M,)."""
        arr = self._check_x(x)
        if arr.ndim != 1:
            raise ValueError(f"x must have shape ({self.n_var},), got shape {arr.shape}")
        return self.objectives_many(arr[None])[0]

    def objectives_many(self, xs: ArrayLike) -> FloatArray:
        """Objective vectors (B, M) of decisions (B, n_var)."""
        arr = np.atleast_2d(self._check_x(xs))
        g = self.distance(arr)
        return np.asarray(
            self.radii * (1.0 + g)[:, None] * (1.0 - self.sphere_point(arr)), dtype=np.float64
        )

    def decision_from_sphere(self, u: ArrayLike) -> FloatArray:
        """The decisions (B, n_var) whose sphere points are the rows of ``u`` (non-negative
        unit vectors, B x M), with the distance variables at 1/2 (``g = 0``).

        Inverts DTLZ2's map: ``theta_i = atan2(u_{M-i+1}, ||(u_1, ..., u_{M-i})||)``.
        """
        ua = np.atleast_2d(np.asarray(u, dtype=np.float64))
        m = self.n_objectives
        x = np.full((ua.shape[0], self.n_var), 0.5)
        for i in range(1, m):
            theta = np.arctan2(ua[:, m - i], np.linalg.norm(ua[:, : m - i], axis=1))
            x[:, i - 1] = np.clip(theta / (0.5 * math.pi), 0.0, 1.0)
        return x

    def _solve_rows(
        self, weights: FloatArray, states: Sequence[Any] | None = None
    ) -> tuple[list[Any], FloatArray]:
        rw = self.radii * weights
        norm = np.linalg.norm(rw, axis=1, keepdims=True)
        u = rw / norm
        # 1 - u_m = sum_{k != m} rw_k^2 / (|rw| (|rw| + rw_m)), free of cancellation near e_m
        sq = rw * rw
        others = np.stack(
            [np.delete(sq, m, axis=1).sum(axis=1) for m in range(self.n_objectives)], axis=1
        )
        front = self.radii * others / (norm * (norm + rw))
        return list(self.decision_from_sphere(u)), np.asarray(front, dtype=np.float64)

    def __repr__(self) -> str:
        return (
            f"InvertedDTLZ2(n_objectives={self.n_objectives}, radii={self.radii.tolist()}, "
            f"n_distance={self.n_distance})"
        )


class DTLZ2(InvertedDTLZ2):
    """DTLZ2: ``f_m(x) = r_m (1 + g(x)) u_m(x)``, a concave front, solved by its achievement
    scalarization.

    The decision, ``u(x)`` and ``g(x)`` are those of :class:`InvertedDTLZ2`; the Pareto front is
    ``{r * u}``, the positive orthant of the unit sphere (an ellipsoid for unequal radii),
    bulging away from the origin. Weighted sums reach only its corners. Its exact solver
    minimizes the achievement scalarization ``max_m f_m / w_m`` (``scalarization="asf"`` of
    :mod:`paretosurf.adapters`, ideal point 0), whose minimizer is the front point on the ray
    along ``w``:

    ``f_PF(w) = w / ||w / r||``.

    The corner ``e_m`` gives ``r_m e_m`` (objective ``m`` at its worst, the others at 0) and
    the edge ``w_m = 0`` the boundary curve ``f_m = 0``: the layout
    :func:`paretosurf.surf_simplex` spreads points over.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.many import DTLZ2
    >>> prob = DTLZ2(3)
    >>> prob.front(np.ones(3) / 3).round(6).tolist()      # 1/sqrt(3) each
    [0.57735, 0.57735, 0.57735]
    >>> x = prob.argmin([0.5, 0.5, 0.0])
    >>> prob.objectives(x).round(6).tolist()
    [0.707107, 0.707107, 0.0]
    """

    scalarization = "asf"

    def objectives_many(self, xs: ArrayLike) -> FloatArray:
        """Objective vectors (B, M) of decisions (B, n_var)."""
        arr = np.atleast_2d(self._check_x(xs))
        g = self.distance(arr)
        return np.asarray(
            self.radii * (1.0 + g)[:, None] * self.sphere_point(arr), dtype=np.float64
        )

    def argmin(self, w: ArrayLike) -> Any:
        """The minimizer of the achievement scalarization ``max_m f_m / w_m`` for one weight
        vector ``w`` of shape (M,): the decision of the front point on the ray along ``w``."""
        return super().argmin(w)

    def _solve_rows(
        self, weights: FloatArray, states: Sequence[Any] | None = None
    ) -> tuple[list[Any], FloatArray]:
        scaled = weights / self.radii
        u = scaled / np.linalg.norm(scaled, axis=1, keepdims=True)
        return list(self.decision_from_sphere(u)), np.asarray(self.radii * u, dtype=np.float64)

    def __repr__(self) -> str:
        return (
            f"DTLZ2(n_objectives={self.n_objectives}, radii={self.radii.tolist()}, "
            f"n_distance={self.n_distance})"
        )
