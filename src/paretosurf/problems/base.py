"""Common interface of the library's bi-objective test problems.

A problem knows its exact linear-scalarization solution ``argmin(w)``, its objectives, and
hence its Pareto front ``front(w) = h(argmin(w))``; from the front speed ``speed(w)`` it derives
the true arc-length CDF (``cdf()``), the Rule 1 weights and a dense reference front for IGD.
Every problem offers an exact inner solver, ``solver()``, and those with an iterative one offer
it through the one signature every problem shares, ``gradient_solver(*, steps, lr=None,
optimizer=None, init=None)``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.validation import as_weight_array, check_n_segments
from paretosurf.curves import CDFLike, SpeedCDF, speed_from_front
from paretosurf.solvers import GradientSolver, GradientState, InnerSolver, Solution

__all__ = ["BiObjectiveProblem", "ExactSolver", "InitParams", "as_weight_array"]

FloatArray = NDArray[np.float64]

#: What ``gradient_solver(init=...)`` takes: a slot's initial parameters, or a callable
#: ``init(weight)`` returning them.
InitParams = ArrayLike | Callable[[float], ArrayLike]


def as_initial_params(
    init: InitParams | None, default: FloatArray
) -> FloatArray | Callable[[float], FloatArray]:
    """A gradient solver's ``init``, checked against the shape of ``default``.

    ``None`` gives ``default``; an array gives a finite float64 copy of the shape of
    ``default``; a callable gives a callable whose results are checked the same way.

    Raises
    ------
    ValueError
        If ``init`` (or what it returns) is not finite or has another shape.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.base import as_initial_params
    >>> as_initial_params([1, 2], np.zeros(2)).tolist()
    [1.0, 2.0]
    >>> as_initial_params(lambda w: [w, 1 - w], np.zeros(2))(0.25).tolist()
    [0.25, 0.75]
    >>> as_initial_params([1.0], np.zeros(2))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: init must be a finite array of shape (2,) (...), got shape (1,)
    """
    if init is None:
        return default
    if callable(init):
        fn = init

        def start(weight: float) -> FloatArray:
            return _check_initial_params(fn(weight), default.shape)

        return start
    return _check_initial_params(init, default.shape)


def _check_initial_params(value: ArrayLike, shape: tuple[int, ...]) -> FloatArray:
    arr = np.array(value, dtype=np.float64)
    if arr.shape != shape or not np.all(np.isfinite(arr)):
        raise ValueError(
            f"init must be a finite array of shape {shape} (a slot's initial parameters), "
            f"got shape {arr.shape}"
        )
    return arr


class BiObjectiveProblem(ABC):
    """Base class: subclasses define ``argmin``, ``objectives`` and ideally ``speed``.

    Conventions: both objectives are minimized and ``w`` weighs objective 1, i.e. the scalarized
    problem is ``min_x w * h1(x) + (1 - w) * h2(x)``.
    """

    n_objectives: int = 2
    #: The step size and optimizer ``gradient_solver`` uses for ``lr=None`` and
    #: ``optimizer=None``; set by every problem that has a gradient solver.
    default_lr: ClassVar[float]
    default_optimizer: ClassVar[str]

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

    def gradient_solver(
        self,
        *,
        steps: int,
        lr: float | None = None,
        optimizer: str | None = None,
        init: InitParams | None = None,
        reset_optimizer: bool = False,
    ) -> InnerSolver:
        """An inexact inner solver: ``steps`` warm-started first-order steps per call.

        The signature every problem shares. A solver state is a
        :class:`paretosurf.solvers.GradientState` (parameters and optimizer moments), so a slot
        continues where its last call stopped.

        Parameters
        ----------
        steps : int
            K, the steps per call (reported as ``info["steps"]``).
        lr : float, optional
            Step size; ``None``: the problem's :attr:`default_lr`.
        optimizer : {"adam", "sgd"}, optional
            ``None``: the problem's :attr:`default_optimizer`.
        init : array_like or callable, optional
            A slot's initial parameters when it has no warm start: an array, or
            ``init(weight)`` returning one. Each problem documents its parameters and default.
        reset_optimizer : bool
            Start every call with fresh Adam moments, as the paper's code does; by default a
            slot's moments carry over from its previous call.

        Returns
        -------
        InnerSolver

        Raises
        ------
        NotImplementedError
            Here, in the base class: a problem without a gradient solver has only the exact
            one, :meth:`solver`.

        Examples
        --------
        >>> import numpy as np
        >>> from paretosurf.problems import BiObjectiveProblem, GearToy
        >>> GearToy(9).gradient_solver(steps=10).rule.lr == GearToy.default_lr
        True
        >>> class Line(BiObjectiveProblem):
        ...     def argmin(self, w):
        ...         return w
        ...     def objectives(self, x):
        ...         return np.array([(1 - x) ** 2, x**2])
        >>> Line().gradient_solver(steps=10)
        Traceback (most recent call last):
        ...
        NotImplementedError: Line has only an exact solver (solver()), no gradient_solver
        """
        raise NotImplementedError(
            f"{type(self).__name__} has only an exact solver (solver()), no gradient_solver"
        )

    def _step_options(self, lr: float | None, optimizer: str | None) -> tuple[float, str]:
        """``(lr, optimizer)`` with ``None`` replaced by the problem's defaults."""
        return (
            self.default_lr if lr is None else lr,
            self.default_optimizer if optimizer is None else optimizer,
        )

    def _first_order_solver(
        self,
        objectives: Callable[[FloatArray], ArrayLike],
        gradients: Callable[[FloatArray], ArrayLike],
        init: InitParams | None,
        default_init: FloatArray,
        *,
        steps: int,
        lr: float | None,
        optimizer: str | None,
        reset_optimizer: bool = False,
    ) -> GradientSolver:
        """The :class:`~paretosurf.solvers.GradientSolver` behind ``gradient_solver``: the
        problem's defaults filled in, ``init`` checked against the shape of ``default_init``."""
        lr_value, optimizer_name = self._step_options(lr, optimizer)
        return GradientSolver(
            objectives,
            gradients,
            as_initial_params(init, default_init),
            steps=steps,
            lr=lr_value,
            optimizer=optimizer_name,
            reset_optimizer=reset_optimizer,
        )

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
