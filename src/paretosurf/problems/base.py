"""Common interface of the library's bi-objective test problems.

A problem knows its exact linear-scalarization solution ``argmin(w)``, its objectives, and
hence its Pareto front ``front(w) = h(argmin(w))``; from the front speed ``speed(w)`` it derives
the true arc-length CDF (``cdf()``), the Rule 1 weights and a dense reference front for IGD.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._validation import as_weight_array, check_n_segments
from paretosurf.rules import CDFLike, SpeedCDF, speed_from_front
from paretosurf.solvers import GradientState, Solution

__all__ = ["BiObjectiveProblem", "ExactSolver", "as_weight_array"]

FloatArray = NDArray[np.float64]


class BiObjectiveProblem(ABC):
    """Base class: subclasses define ``argmin``, ``objectives`` and ideally ``speed``.

    Conventions: both objectives are minimized and ``w`` weighs objective 1, i.e. the scalarized
    problem is ``min_x w * h1(x) + (1 - w) * h2(x)``.
    """

    n_objectives: int = 2

    @abstractmethod
    def argmin(self, w: float) -> Any:
        """The exact minimizer of the scalarized problem at weight ``w``."""

    @abstractmethod
    def objectives(self, x: Any) -> FloatArray:
        """Objective vector ``h(x)``, shape (M,)."""

    def front(self, w: ArrayLike) -> FloatArray:
        """Pareto front ``f_PF(w)``: weights of shape (K,) to points of shape (K, M)."""
        w_arr = np.atleast_1d(as_weight_array(w))
        return np.stack([self.objectives(self.argmin(float(x))) for x in w_arr.ravel()])

    def speed(self, w: ArrayLike) -> FloatArray:
        """Front speed ``v(w) = ||f_PF'(w)||`` (default: numerical differentiation)."""
        return speed_from_front(self.front)(np.asarray(w, dtype=np.float64))

    @cached_property
    def _speed_cdf(self) -> SpeedCDF:
        return SpeedCDF(self.speed)

    def cdf(self) -> CDFLike:
        """The true arc-length CDF ``Phi`` (callable, with ``derivative``, ``inverse`` and
        ``quantile_weights``); by default integrated from :meth:`speed`."""
        return self._speed_cdf

    def optimal_weights(self, n_segments: int) -> FloatArray:
        """Rule 1 weights ``Phi^{-1}(n / N)`` for this problem."""
        return self.cdf().quantile_weights(check_n_segments(n_segments))

    def reference_front(self, n_points: int = 1001) -> FloatArray:
        """``n_points`` exact front points evenly spaced in arc length (for IGD)."""
        return self.front(self.optimal_weights(check_n_segments(n_points - 1, name="n_points - 1")))

    def solver(self) -> ExactSolver:
        """An inner solver returning the exact scalarized solution (ignores warm starts)."""
        return ExactSolver(self)

    # ------------------------------------------------------------ solution interpolation
    def decision(self, state: Any) -> Any:
        """The decision variable ``objectives`` takes, from a solver state: the exact solver's
        state as is, a gradient solver's parameters (subclasses map logits to policies)."""
        return state.params if isinstance(state, GradientState) else state

    def interpolate(self, state0: Any, state1: Any, t: float) -> Any:
        """The solution ``t`` of the way from ``state0`` to ``state1`` (used by the Soup
        baseline): linear in the decision variables unless a subclass knows better (MDPs
        mix occupancy measures)."""
        x0 = np.asarray(self.decision(state0), dtype=np.float64)
        x1 = np.asarray(self.decision(state1), dtype=np.float64)
        return (1.0 - t) * x0 + t * x1

    def evaluate(self, state: Any) -> FloatArray:
        """Objective vector of a solver state or decision variable."""
        return np.asarray(self.objectives(self.decision(state)), dtype=np.float64)


class ExactSolver:
    """Inner solver that calls a problem's exact ``argmin``; the state is the minimizer."""

    def __init__(self, problem: BiObjectiveProblem) -> None:
        self.problem = problem

    def solve(self, weight: float, state: Any = None) -> Solution:
        x = self.problem.argmin(float(weight))
        return Solution(self.problem.objectives(x), state=x, info={"steps": 1})

    def solve_many(self, weights: Sequence[float], states: Sequence[Any]) -> list[Solution]:
        return [self.solve(float(w), s) for w, s in zip(weights, states, strict=True)]

    def __repr__(self) -> str:
        return f"ExactSolver({self.problem!r})"
