"""The common interface of the problems of ``M >= 2`` objectives: weight rows on the simplex,
:class:`ManyObjectiveProblem` and its exact inner solver :class:`ManyExactSolver`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.validation import (
    as_weight_array,
)
from paretosurf.adapters.scalarization import Scalarization
from paretosurf.problems._simplex import check_simplex
from paretosurf.problems.sampling import dense_front_sample
from paretosurf.solvers import Solution

__all__ = ["ManyExactSolver", "ManyObjectiveProblem", "unit_box_points", "weight_rows"]

FloatArray = NDArray[np.float64]


def weight_rows(
    weights: ArrayLike, n_objectives: int, *, name: str = "weights", batch: bool = False
) -> tuple[FloatArray, bool]:
    """Weights as validated simplex rows (B, M), and whether one weight was given.

    One weight: a vector of shape (M,), or for ``M = 2`` a scalar ``w`` meaning ``(w, 1 - w)``.
    A batch: shape (B, M), or for ``M = 2`` (and ``batch=True``) scalars of shape (B,). Rows
    are checked with :func:`~paretosurf.problems._simplex.check_simplex` and renormalised to
    sum to 1 exactly.

    Raises
    ------
    ValueError
        Naming ``name``: a wrong shape, or a row off the simplex.

    Examples
    --------
    >>> from paretosurf.problems.many import weight_rows
    >>> weight_rows([0.2, 0.3, 0.5], 3)[0].tolist(), weight_rows(0.25, 2)[0].tolist()
    ([[0.2, 0.3, 0.5]], [[0.25, 0.75]])
    >>> weight_rows([0.5, 0.5], 3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: weights must be a weight vector of shape (3,) or weight vectors of shape ... (2,)
    """
    m = n_objectives
    arr = np.asarray(weights, dtype=np.float64)
    if m == 2 and (arr.ndim == 0 or (batch and arr.ndim == 1)):
        w = as_weight_array(arr, name=name)
        rows = np.stack([np.atleast_1d(w), 1.0 - np.atleast_1d(w)], axis=1)
        return rows, arr.ndim == 0
    single = arr.ndim == 1 and not batch
    if not ((single and arr.shape == (m,)) or (arr.ndim == 2 and arr.shape[1] == m)):
        scalar = " (or scalars w in [0, 1] meaning (w, 1 - w))" if m == 2 else ""
        what = "weight vectors" if batch else f"a weight vector of shape ({m},) or weight vectors"
        raise ValueError(f"{name} must be {what} of shape (B, {m}){scalar}, got shape {arr.shape}")
    rows = check_simplex(np.atleast_2d(arr), name=name)
    return np.asarray(rows / rows.sum(axis=1, keepdims=True), dtype=np.float64), single


def unit_box_points(xs: ArrayLike, n_var: int) -> FloatArray:
    """``xs`` as decision vectors of ``[0, 1]^n_var``, shape (n_var,) or (B, n_var) (the
    DTLZ problems' decision space); a ``ValueError`` for another shape or a value outside.

    Examples
    --------
    >>> unit_box_points([0.5, 1.0], 2).tolist()
    [0.5, 1.0]
    """
    arr = np.asarray(xs, dtype=np.float64)
    if arr.ndim == 0 or arr.ndim > 2 or arr.shape[-1] != n_var:
        raise ValueError(f"x must have shape ({n_var},) or (B, {n_var}), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any((arr < 0) | (arr > 1)):
        raise ValueError("x must lie in [0, 1] (every entry finite)")
    return arr


def _batch(weights: ArrayLike, states: Sequence[Any], m: int) -> tuple[FloatArray, list[Any]]:
    """A solver's batch: weight rows (B, M) and one state per row, checked."""
    rows, _ = weight_rows(weights, m, batch=True)
    out = list(states)
    if len(out) != rows.shape[0]:
        raise ValueError(f"states must hold one entry per weight ({rows.shape[0]}), got {len(out)}")
    return rows, out


# ---------------------------------------------------------------------------------------------
# Common interface
# ---------------------------------------------------------------------------------------------
class ManyObjectiveProblem(ABC):
    """Base class of the ``M``-objective problems: an exact scalarized solve gives the rest.

    Subclasses set ``n_objectives`` and define :meth:`objectives` and :meth:`_solve_rows`
    (exact minimizers and their objective vectors for a batch of validated weight rows); the
    base class derives :meth:`argmin`, :meth:`front`, :meth:`solver` and
    :meth:`reference_front` from them. Weights are described in :mod:`paretosurf.problems.many`.
    """

    n_objectives: int
    #: The scalarization the exact solver minimizes (a kind of
    #: :class:`~paretosurf.adapters.Scalarization`, ideal point 0).
    scalarization: str = "linear"

    @abstractmethod
    def objectives(self, x: Any) -> FloatArray:
        """Objective vector ``h(x)``, shape (M,)."""

    @abstractmethod
    def _solve_rows(
        self, weights: FloatArray, states: Sequence[Any] | None = None
    ) -> tuple[list[Any], FloatArray]:
        """Exact minimizers (one per row) and their objectives (B, M) for weights (B, M)
        already validated; ``states`` are optional warm starts, one per row."""

    def objectives_many(self, xs: Any) -> FloatArray:
        """Objective vectors (B, M) of a batch of decisions."""
        return np.stack([self.objectives(x) for x in xs]).reshape(-1, self.n_objectives)

    def argmin(self, w: ArrayLike) -> Any:
        """The exact minimizer of ``sum_m w_m h_m`` for one weight vector ``w`` of shape (M,)."""
        rows, single = weight_rows(w, self.n_objectives, name="w")
        if not single:
            raise ValueError(
                f"w must be one weight vector of shape ({self.n_objectives},), got "
                f"shape {np.shape(w)}"
            )
        return self._solve_rows(rows)[0][0]

    def front(self, weights: ArrayLike) -> FloatArray:
        """Exact front points: weights (B, M) to points (B, M), or one (M,) vector to (M,)."""
        rows, single = weight_rows(weights, self.n_objectives)
        points = self._solve_rows(rows)[1]
        return points[0] if single else points

    def solver(self) -> ManyExactSolver:
        """The exact inner solver (see :class:`ManyExactSolver`)."""
        return ManyExactSolver(self)

    def reference_front(
        self, resolution: float = 0.01, *, max_points: int = 200_000, divisions: int | None = None
    ) -> FloatArray:
        """A dense sample (P, M) of the whole front, in the problem's objective units.

        Every front point lies within about ``resolution`` times the front's diameter of a
        sample point, however unevenly the weights map onto the front; see
        :func:`~paretosurf.problems.sampling.dense_front_sample` (``max_points``,
        ``divisions``).
        """
        return dense_front_sample(
            self._front_rows,
            self.n_objectives,
            resolution=resolution,
            max_points=max_points,
            divisions=divisions,
        )

    def _front_rows(self, weights: FloatArray) -> FloatArray:
        rows, _ = weight_rows(weights, self.n_objectives, batch=True)
        return self._solve_rows(rows)[1]

    def decision(self, state: Any) -> Any:
        """The decision a solver state stands for (the exact solver's state is the decision)."""
        return state

    def evaluate(self, state: Any) -> FloatArray:
        """Objective vector of a solver state or decision."""
        return np.asarray(self.objectives(self.decision(state)), dtype=np.float64)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n_objectives={self.n_objectives})"


class ManyExactSolver:
    """Exact inner solver of a :class:`ManyObjectiveProblem`; the state is the minimizer.

    ``solve(weight, state=None)`` takes a weight vector of shape (M,) on the simplex (for
    ``M = 2`` also a scalar ``w`` meaning ``(w, 1 - w)``); ``solve_many(weights, states)``
    takes (B, M) rows (for ``M = 2`` also (B,) scalars) and solves them in one batch.
    ``state`` is used as a warm start where the problem has one (the MDP's policy), ignored
    otherwise. ``info["steps"]`` is 1 (one exact solve).

    Raises
    ------
    ValueError
        For a weight of the wrong length or off the simplex.

    Examples
    --------
    >>> from paretosurf.problems.many import InvertedDTLZ2
    >>> solver = InvertedDTLZ2(3).solver()
    >>> sol = solver.solve([1.0, 0.0, 0.0])
    >>> sol.objectives.round(12).tolist(), sol.info["steps"]
    ([0.0, 1.0, 1.0], 1)
    >>> [s.objectives.round(3).tolist() for s in solver.solve_many([[0, 1, 0], [0, 0, 1]],
    ...                                                            [None, None])]
    [[1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    """

    def __init__(self, problem: ManyObjectiveProblem) -> None:
        self.problem = problem

    @property
    def n_objectives(self) -> int:
        """The problem's number of objectives (what :func:`paretosurf.surf_simplex` takes
        where it is not given)."""
        return self.problem.n_objectives

    @property
    def scalarization(self) -> Scalarization:
        """The scalarization the solver minimizes (the problem's ``scalarization``): the
        weighted sum, or for :class:`DTLZ2` the achievement scalarization with ideal point 0.
        The run's findings judge the points under it."""
        if self.problem.scalarization == "linear":
            return Scalarization("linear")
        return Scalarization(self.problem.scalarization, ideal=self.ideal, rho=0.0)

    @property
    def ideal(self) -> FloatArray | None:
        """The ideal point of the solver's scalarization (0), ``None`` for weighted sums."""
        return (
            None if self.problem.scalarization == "linear" else np.zeros(self.problem.n_objectives)
        )

    def solve(self, weight: ArrayLike, state: Any = None) -> Solution:
        """The exact solution at one weight vector."""
        rows, single = weight_rows(weight, self.problem.n_objectives, name="weight")
        if not single:
            raise ValueError(
                f"weight must be one weight vector of shape "
                f"({self.problem.n_objectives},), got shape {np.shape(weight)}"
            )
        xs, objs = self.problem._solve_rows(rows, [state])
        return Solution(objs[0], state=xs[0], info={"steps": 1})

    def solve_many(self, weights: ArrayLike, states: Sequence[Any]) -> list[Solution]:
        """Exact solutions at weights (B, M), one per row, solved together."""
        rows, states = _batch(weights, states, self.problem.n_objectives)
        xs, objs = self.problem._solve_rows(rows, states)
        return [Solution(objs[i], state=xs[i], info={"steps": 1}) for i in range(len(xs))]

    def __repr__(self) -> str:
        return f"ManyExactSolver({self.problem!r})"
