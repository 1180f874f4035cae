"""Inner solvers from pymoo problems: a two-objective ``pymoo.core.problem.Problem`` solved per
weight with the scipy machinery of :func:`~paretosurf.adapters.from_scipy`.

The objectives are ``problem.evaluate(x)["F"]``, the bounds ``problem.xl``/``problem.xu``, the
inequality constraints ``G(x) <= 0`` go to scipy as ``-G(x) >= 0`` and the equalities
``H(x) = 0`` as they are. pymoo is imported only when :func:`from_pymoo` is called (it comes
with the ``dev`` extra).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf.adapters.scalarization import Scalarization
from paretosurf.adapters.scipy_solver import ScipySolver

__all__ = ["from_pymoo"]

FloatArray = NDArray[np.float64]


def from_pymoo(
    problem: Any,
    *,
    scalarization: str | Scalarization = "auto",
    method: str | None = None,
    steps: int | None = None,
    ideal: ArrayLike | None = None,
    rho: float | None = None,
    x0: ArrayLike | None = None,
    options: Mapping[str, Any] | None = None,
) -> ScipySolver:
    """An inner solver for a two-objective pymoo problem (scipy per weight, warm-started).

    Parameters
    ----------
    problem : pymoo.core.problem.Problem
        A problem with ``n_obj == 2`` (minimized, as pymoo has them), or more objectives for
        :func:`paretosurf.surf_simplex` (weight vectors). Its inequality
        constraints ``G <= 0`` and equality constraints ``H = 0`` are passed to scipy, whose
        default method is then ``"SLSQP"``. Gradients come from scipy's finite differences.
    scalarization, method, steps, ideal, rho, options
        As in :func:`~paretosurf.adapters.from_scipy`.
    x0 : array_like of shape (n_var,), optional
        Cold start; default the middle of the box ``(xl + xu) / 2`` (required when a bound
        is missing or infinite).

    Returns
    -------
    ScipySolver
        As :func:`~paretosurf.adapters.from_scipy` returns; picklable when the problem is.

    Raises
    ------
    ImportError
        If pymoo is not installed (``pip install paretosurf[dev]``).
    TypeError, ValueError
        If ``problem`` is not a pymoo Problem, has another number of objectives than 2, or
        on the arguments ``from_scipy`` refuses.

    Examples
    --------
    >>> import numpy as np
    >>> from pymoo.problems import get_problem
    >>> from paretosurf.adapters import from_pymoo
    >>> solver = from_pymoo(get_problem("zdt1", n_var=5))
    >>> sol = solver.solve(0.5, None)            # LS minimizer: f1 = ((1 - w) / (2 w))^2
    >>> np.round(sol.objectives, 4).tolist()
    [0.25, 0.5]
    """
    try:
        from pymoo.core.problem import Problem
    except ImportError as exc:  # pragma: no cover - pymoo is a dev dependency
        raise ImportError("from_pymoo needs pymoo: pip install paretosurf[dev]") from exc
    if not isinstance(problem, Problem):
        raise TypeError(
            f"problem must be a pymoo.core.problem.Problem, got {type(problem).__name__}"
        )
    if problem.n_obj < 2:
        raise ValueError(
            f"problem must have 2 or more objectives (n_obj >= 2), got n_obj = {problem.n_obj}"
        )
    n = int(problem.n_var)
    lb = _bound(problem.xl, n, -np.inf)
    ub = _bound(problem.xu, n, np.inf)
    if x0 is None:
        if not np.all(np.isfinite(lb) & np.isfinite(ub)):
            raise ValueError("x0 is required when the problem's box (xl, xu) is not finite")
        x0 = (lb + ub) / 2.0
    ev = _PymooEvaluator(problem)
    constraints: list[dict[str, Any]] = []
    if count_of(problem, "n_ieq_constr", "n_constr"):
        constraints.append({"type": "ineq", "fun": ev.inequalities})
    if count_of(problem, "n_eq_constr"):
        constraints.append({"type": "eq", "fun": ev.equalities})
    bounds = (
        None
        if np.all(np.isneginf(lb) & np.isposinf(ub))
        else list(zip(lb.tolist(), ub.tolist(), strict=True))
    )
    return ScipySolver(
        ev.objectives,
        x0,
        scalarization=scalarization,
        method=method,
        steps=steps,
        bounds=bounds,
        constraints=constraints,
        ideal=ideal,
        rho=rho,
        options=options,
    )


def _bound(value: Any, n: int, default: float) -> FloatArray:
    if value is None:
        return np.full(n, default)
    out = np.broadcast_to(np.asarray(value, dtype=np.float64), (n,)).copy()
    out[np.isnan(out)] = default
    return out


def count_of(problem: Any, *names: str) -> int:
    """The first of the attributes ``names`` that ``problem`` sets (a pymoo Problem's
    constraint counts under their names across versions), 0 when none is set."""
    for name in names:
        value = getattr(problem, name, None)
        if value is not None:
            return int(value)
    return 0


class _PymooEvaluator:
    """``F``, ``-G`` and ``H`` of a pymoo problem at ``x``, one evaluation per point (the last
    point's outputs are remembered, since scipy asks for objectives and constraints there)."""

    def __init__(self, problem: Any) -> None:
        self.problem = problem
        self._key: bytes | None = None
        self._out: dict[str, Any] = {}

    def _evaluate(self, x: FloatArray) -> dict[str, Any]:
        x = np.asarray(x, dtype=np.float64)
        key = x.tobytes()
        if key != self._key:
            self._out = self.problem.evaluate(x.copy(), return_as_dictionary=True)
            self._key = key
        return self._out

    def objectives(self, x: FloatArray) -> FloatArray:
        return np.asarray(self._evaluate(x)["F"], dtype=np.float64).reshape(-1)

    def inequalities(self, x: FloatArray) -> FloatArray:
        return -np.asarray(self._evaluate(x)["G"], dtype=np.float64).reshape(-1)

    def equalities(self, x: FloatArray) -> FloatArray:
        return np.asarray(self._evaluate(x)["H"], dtype=np.float64).reshape(-1)

    def __getstate__(self) -> dict[str, Any]:
        return {"problem": self.problem, "_key": None, "_out": {}}
