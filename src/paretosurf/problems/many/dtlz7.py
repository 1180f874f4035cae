"""DTLZ7: a disconnected front of ``2^(M-1)`` pieces (:class:`DTLZ7`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import moocore
import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import minimize_scalar

from paretosurf._utils.validation import check_positive, check_positive_int
from paretosurf.problems.many.base import FloatArray, ManyObjectiveProblem, unit_box_points

__all__ = ["DTLZ7"]

#: Grid of the exact solver's 1-D searches (each bracket is then refined by Brent's method).
_GRID = 2001


class DTLZ7(ManyObjectiveProblem):
    """DTLZ7 (Deb, Thiele, Laumanns and Zitzler): a front of ``2^(M-1)`` disconnected pieces.

    The decision ``x`` lies in ``[0, 1]^(M - 1 + k)``: ``M - 1`` position variables and ``k``
    distance variables. With ``g = 1 + 9/k * sum_{i >= M} x_i``,

    ``f_i = x_i`` for ``i < M``,
    ``h = M - sum_{i < M} f_i / (1 + g) * (1 + sin(3 pi f_i))``,
    ``f_M = (1 + g) h``.

    ``f_M = (1 + g) M - sum_{i<M} f_i (1 + sin(3 pi f_i))`` grows with ``g``, so the Pareto set
    has every distance variable at 0 (``g = 1``), and the front is the non-dominated part of
    the surface ``f_M = 2 (M - sum_{i<M} f_i / 2 (1 + sin(3 pi f_i)))`` over ``[0, 1]^(M-1)``.
    Along each position axis the curve ``t (1 + sin(3 pi t))`` has two rising stretches that
    are non-dominated, ``t in [0, 0.2514]`` and ``t in [0.6316, 0.8594]`` (to 4 digits), so the
    front has ``2^(M-1)`` pieces: 4 for ``M = 3``.

    Its exact solver minimizes the weighted sum ``sum_m w_m f_m`` (linear scalarization,
    which only reaches the convex parts of the pieces): with ``g = 1`` it splits into one 1-D
    problem per position variable, ``min_t w_i t - w_M t (1 + sin(3 pi t))`` on ``[0, 1]``,
    solved globally on a grid refined by Brent's method. :meth:`pareto_front` gives a dense
    sample of the whole front for IGD and coverage metrics.

    Parameters
    ----------
    n_objectives : int
        ``M >= 2`` (default 3).
    n_distance : int
        ``k >= 1`` distance variables (default 20, the original's).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.many import DTLZ7
    >>> prob = DTLZ7(3)
    >>> x = np.zeros(prob.n_var)
    >>> x[:2] = [0.2, 0.7]                     # on the front: the distance variables at 0
    >>> prob.objectives(x).round(4).tolist()   # f3 = 2 (3 - sum f_i / 2 (1 + sin(3 pi f_i)))
    [0.2, 0.7, 4.6935]
    >>> front = prob.pareto_front(101)
    >>> front.shape[1], bool(np.all(front[:, 2] <= 6.0))
    (3, True)
    """

    def __init__(self, n_objectives: int = 3, n_distance: int = 20) -> None:
        m = check_positive_int(n_objectives, name="n_objectives")
        if m < 2:
            raise ValueError(f"n_objectives must be >= 2, got {m}")
        self.n_objectives = m
        self.n_distance = check_positive_int(n_distance, name="n_distance")
        self.n_var = m - 1 + self.n_distance

    # -- objectives -------------------------------------------------------------------------

    def _check_x(self, xs: ArrayLike) -> FloatArray:
        return unit_box_points(xs, self.n_var)

    def distance(self, xs: ArrayLike) -> FloatArray:
        """``g(x) = 1 + 9/k * sum`` of the distance variables (1 on the Pareto set)."""
        arr = self._check_x(xs)
        tail = arr[..., self.n_objectives - 1 :]
        return np.asarray(1.0 + 9.0 * tail.mean(axis=-1), dtype=np.float64)

    def objectives(self, x: ArrayLike) -> FloatArray:
        """``(f_1, ..., f_M)`` at one decision of shape (n_var,)."""
        arr = self._check_x(x)
        if arr.ndim != 1:
            raise ValueError(f"x must have shape ({self.n_var},), got shape {arr.shape}")
        return self.objectives_many(arr[None])[0]

    def objectives_many(self, xs: ArrayLike) -> FloatArray:
        """Objective vectors (B, M) of decisions (B, n_var)."""
        arr = np.atleast_2d(self._check_x(xs))
        m = self.n_objectives
        f = arr[:, : m - 1]
        g = self.distance(arr)
        h = m - np.sum(f / (1.0 + g)[:, None] * (1.0 + np.sin(3.0 * math.pi * f)), axis=1)
        return np.asarray(np.column_stack([f, (1.0 + g) * h]), dtype=np.float64)

    @staticmethod
    def surface(f: ArrayLike, n_objectives: int = 3) -> FloatArray:
        """The last objective on the Pareto set (``g = 1``) over position values ``f`` of
        shape (..., M - 1): ``2 (M - sum_i f_i / 2 (1 + sin(3 pi f_i)))``."""
        pos = np.asarray(f, dtype=np.float64)
        return np.asarray(
            2.0 * n_objectives - np.sum(pos * (1.0 + np.sin(3.0 * math.pi * pos)), axis=-1),
            dtype=np.float64,
        )

    # -- the front --------------------------------------------------------------------------

    def pareto_front(self, n: int = 201) -> FloatArray:
        """A dense sample (P, M) of the front: a grid of ``n`` values per position variable
        on ``[0, 1]`` (``n^(M-1)`` points) lifted to the surface ``g = 1``
        (:meth:`surface`), then its non-dominated points (moocore's filter).

        Every front point lies within about ``1 / (n - 1)`` (in the position objectives, and
        the surface's slope times that in ``f_M``) of a sample point.
        """
        n = check_positive_int(n, name="n")
        if n < 2:
            raise ValueError(f"n must be >= 2, got {n}")
        m = self.n_objectives
        axes = np.meshgrid(*([np.linspace(0.0, 1.0, n)] * (m - 1)), indexing="ij")
        pos = np.stack([a.reshape(-1) for a in axes], axis=1)
        points = np.column_stack([pos, self.surface(pos, m)])
        return np.asarray(points[moocore.is_nondominated(points)], dtype=np.float64)

    def reference_front(
        self, resolution: float = 0.01, *, max_points: int = 200_000, divisions: int | None = None
    ) -> FloatArray:
        """A dense sample of the whole front (:meth:`pareto_front` with a grid step of about
        ``resolution``); weighted sums reach only the convex parts, so the sample does not
        come from the exact solver. ``divisions`` is not used; ``max_points`` caps the grid."""
        step = check_positive(resolution, name="resolution")
        n = math.ceil(1.0 / step) + 1
        cap = int(max_points ** (1.0 / (self.n_objectives - 1)))
        return self.pareto_front(max(2, min(n, cap)))

    # -- the exact (weighted-sum) solver ----------------------------------------------------

    def _solve_rows(
        self, weights: FloatArray, states: Sequence[Any] | None = None
    ) -> tuple[list[Any], FloatArray]:
        m = self.n_objectives
        grid = np.linspace(0.0, 1.0, _GRID)
        curve = grid * (1.0 + np.sin(3.0 * math.pi * grid))
        xs = np.zeros((weights.shape[0], self.n_var))
        for b, w in enumerate(weights):
            for i in range(m - 1):
                xs[b, i] = _argmin_1d(w[i], w[m - 1], grid, curve)
        return list(xs), self.objectives_many(xs)

    def __repr__(self) -> str:
        return f"DTLZ7(n_objectives={self.n_objectives}, n_distance={self.n_distance})"


def _argmin_1d(a: float, c: float, grid: FloatArray, curve: FloatArray) -> float:
    """The global minimizer on ``[0, 1]`` of ``a t - c t (1 + sin(3 pi t))`` (``a, c >= 0``):
    the best grid point, refined by Brent's method within its neighbouring grid cells."""
    values = a * grid - c * curve
    j = int(np.argmin(values))
    lo, hi = grid[max(j - 1, 0)], grid[min(j + 1, grid.size - 1)]
    res = minimize_scalar(
        lambda t: a * t - c * t * (1.0 + math.sin(3.0 * math.pi * t)),
        bounds=(lo, hi),
        method="bounded",
        options={"xatol": 1e-12},
    )
    return float(res.x) if res.fun <= values[j] else float(grid[j])
