"""Soup: solve only the two endpoints, then interpolate their solutions (no further solves).

"Rewarded soups" (Rame et al.) build the intermediate trade-offs by merging the two endpoint
solutions: the state at slot ``n`` is ``interpolate(u_0, u_1, t)`` with ``t = w_n = n / N``
(``t = 0`` gives the ``w = 0`` solution ``u_0``, ``t = 1`` the ``w = 1`` solution ``u_1``), and
its objectives are ``evaluate(state)``. The endpoints get the full per-slot budget of a SURF run
(``iterations`` warm-started inner-solver calls each); the interior costs no solve at all.

The interpolation must happen in a space where mixing makes sense: parameters for a quadratic
problem, logits or probabilities for a bandit, occupancy measures for an MDP, adapter weights for
an LLM. A problem or solver supplies it through the :class:`Interpolable` protocol; for states
that are numeric arrays, :func:`linear_interpolate` is the default and only ``evaluate`` is
needed. Mixed solutions are generally *not* Pareto optimal (the Pareto set is not a straight
segment), which is what this baseline measures.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._validation import check_n_segments, check_positive_int
from paretosurf.baselines.ols import endpoint_states
from paretosurf.cdf import ArcLengthCDF
from paretosurf.solvers import InnerSolverError, Solution, as_solver, count_steps, solve_slots
from paretosurf.surf import IterationRecord, SurfResult, SurfState

__all__ = ["Interpolable", "linear_interpolate", "soup"]

FloatArray = NDArray[np.float64]


@runtime_checkable
class Interpolable(Protocol):
    """What Soup needs besides the solver: mixing two solutions and evaluating a mixture.

    ``interpolate(state0, state1, t)`` returns the solution ``t`` of the way from ``state0``
    (the ``w = 0`` solution) to ``state1`` (the ``w = 1`` solution), ``t in [0, 1]``;
    ``evaluate(state)`` returns its objective vector (minimized), shape (M,). A solver or a
    problem may implement both methods; :func:`soup` also takes them as separate callables.
    """

    def interpolate(self, state0: Any, state1: Any, t: float) -> Any:  # pragma: no cover
        ...

    def evaluate(self, state: Any) -> ArrayLike:  # pragma: no cover
        ...


def linear_interpolate(state0: Any, state1: Any, t: float) -> FloatArray:
    """``(1 - t) * state0 + t * state1`` for numeric array (or scalar) states of one shape.

    Raises
    ------
    TypeError
        If a state is not numeric (e.g. an object holding parameters and optimizer moments):
        pass ``interpolate=`` to :func:`soup` instead.
    ValueError
        If the two states have different shapes.

    Examples
    --------
    >>> from paretosurf.baselines.soup import linear_interpolate
    >>> linear_interpolate([0.0, 2.0], [1.0, 4.0], 0.25).tolist()
    [0.25, 2.5]
    """
    arrays = []
    for name, s in (("state0", state0), ("state1", state1)):
        try:
            arr = np.asarray(s, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"soup's default linear interpolation needs numeric array states; {name} is a "
                f"{type(s).__name__}. Pass interpolate=(state0, state1, t) -> state, or give the "
                "solver an interpolate method"
            ) from None
        arrays.append(arr)
    a, b = arrays
    if a.shape != b.shape:
        raise ValueError(f"cannot interpolate states of shapes {a.shape} and {b.shape}")
    return np.asarray((1.0 - t) * a + t * b, dtype=np.float64)


def _resolve(
    name: str, explicit: Callable[..., Any] | None, interpolator: Any, solver: Any
) -> Callable[..., Any] | None:
    """The explicit callable, else ``interpolator.<name>``, else ``solver.<name>``, else None."""
    if explicit is not None:
        if not callable(explicit):
            raise TypeError(f"{name} must be callable, got {type(explicit).__name__}")
        return explicit
    for source in (interpolator, solver):
        method = getattr(source, name, None) if source is not None else None
        if callable(method):
            return method
    return None


def soup(
    solver: Any,
    n_segments: int,
    *,
    iterations: int = 30,
    interpolate: Callable[[Any, Any, float], Any] | None = None,
    evaluate: Callable[[Any], ArrayLike] | None = None,
    interpolator: Any = None,
    init_states: Sequence[Any] | None = None,
    progress: bool = False,
) -> SurfResult:
    """Soup: solve ``w = 0`` and ``w = 1``, then interpolate the solutions at ``w = n / N``.

    Parameters
    ----------
    solver : object or callable
        Inner solver, as for :func:`paretosurf.surf`.
    n_segments : int
        N >= 1: the result has N + 1 points, at ``w_n = n / N``.
    iterations : int
        Warm-started inner-solver calls for each endpoint (>= 1): the per-slot budget of an
        ``iterations``-iteration SURF run. The whole run makes ``2 * iterations`` calls.
    interpolate : callable, optional
        ``interpolate(state0, state1, t) -> state``, the mixture ``t`` of the way from the
        ``w = 0`` solution to the ``w = 1`` one. Default: ``interpolator.interpolate``, else
        ``solver.interpolate``, else :func:`linear_interpolate` (numeric array states).
    evaluate : callable, optional
        ``evaluate(state) -> objectives``. Default: ``interpolator.evaluate``, else
        ``solver.evaluate``; one of the three is required.
    interpolator : Interpolable or object, optional
        An object with ``interpolate`` and/or ``evaluate`` methods (e.g. a problem).
    init_states : sequence, optional
        Warm starts of the two endpoint solves: 2 states, or N + 1 as for
        :func:`paretosurf.surf` (first and last used).
    progress : bool
        Show a progress bar over the endpoint iterations.

    Returns
    -------
    SurfResult
        ``weights = n / N``; ``points[0]`` and ``points[N]`` are the solver's endpoint
        objectives, ``points[n]`` for ``0 < n < N`` is ``evaluate(interpolate(u_0, u_1, n / N))``;
        ``states`` are the corresponding states. ``history`` has one record per round of
        endpoint solves: the records before the last hold only the two endpoints (weights
        ``[0, 1]``), the last holds all N + 1 points. ``weight_change`` is ``nan`` and ``cdf``
        the identity (the weights are fixed).

    Raises
    ------
    ValueError, TypeError
        On invalid arguments, a missing ``evaluate``, or states the interpolation cannot mix.
    paretosurf.solvers.InnerSolverError
        If the solver, ``interpolate`` or ``evaluate`` raises, or returns non-finite objectives
        (or objectives of another size than the solver's); names the slot and weight.

    Examples
    --------
    Quadratics ``h_m(x) = (x - b_m)^T Q_m (x - b_m)`` with ``Q1 != Q2``: the mixed parameter is
    dominated by a Pareto point, while the endpoints are exact:

    >>> import numpy as np
    >>> from paretosurf.problems import Quadratic
    >>> from paretosurf.baselines.soup import soup
    >>> prob = Quadratic(np.eye(2), [1.0, 0.0], np.diag([1.0, 9.0]), [0.0, 1.0])
    >>> res = soup(prob.solver(), 2, iterations=1, evaluate=prob.objectives)
    >>> res.states[1].tolist(), res.points[1].tolist()   # midpoint of b2 and b1
    ([0.5, 0.5], [0.5, 2.5])
    >>> front = prob.front(np.linspace(0, 1, 2001))
    >>> bool(np.any(np.all(front < res.points[1] - 0.05, axis=1)))
    True
    """
    n = check_n_segments(n_segments)
    total = check_positive_int(iterations, name="iterations")
    starts = endpoint_states(init_states, n)
    inner = as_solver(solver)
    if interpolator is not None and not any(
        callable(getattr(interpolator, m, None)) for m in ("interpolate", "evaluate")
    ):
        raise TypeError("interpolator must have an interpolate(state0, state1, t) and/or an "
                        f"evaluate(state) method, got {type(interpolator).__name__}")
    mix = _resolve("interpolate", interpolate, interpolator, solver) or linear_interpolate
    value = _resolve("evaluate", evaluate, interpolator, solver)
    if value is None:
        raise TypeError(
            "soup needs evaluate(state) -> objectives: pass evaluate=, an interpolator with an "
            "evaluate method, or a solver with one"
        )

    weights = np.arange(n + 1, dtype=np.float64) / n
    ends = np.array([0.0, 1.0])
    history: list[IterationRecord] = []
    n_solves = 0
    n_steps = 0
    states = starts
    sols: list[Solution] = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc="Soup", unit="iter")
    start = solve_seconds = 0.0
    try:
        for it in range(total):
            start = time.perf_counter()
            sols = solve_slots(inner, ends, states, slots=[0, n])
            solve_seconds = time.perf_counter() - start
            states = [s.state for s in sols]
            n_solves += 2
            n_steps += count_steps(sols)
            if it < total - 1:
                points = np.stack([s.objectives for s in sols])
                history.append(IterationRecord.from_points(
                    it, ends.copy(), points, cdf=ArcLengthCDF.identity(),
                    seconds=time.perf_counter() - start, solve_seconds=solve_seconds,
                    n_solves=n_solves, n_steps=n_steps))
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    all_states, points = _mix(sols, weights, mix, value)
    history.append(IterationRecord.from_points(
        total - 1, weights.copy(), points, cdf=ArcLengthCDF.identity(),
        seconds=time.perf_counter() - start, solve_seconds=solve_seconds, n_solves=n_solves,
        n_steps=n_steps))

    final = SurfState(
        n_segments=n,
        alpha=1.0,
        cdf=ArcLengthCDF.identity(),
        states=all_states,
        history=history,
        n_solves=n_solves,
        n_steps=n_steps,
        refine=False,
    )
    return SurfResult(final)


def _mix(
    sols: Sequence[Solution],
    weights: FloatArray,
    mix: Callable[[Any, Any, float], Any],
    value: Callable[[Any], ArrayLike],
) -> tuple[list[Any], FloatArray]:
    """States and objectives of all N + 1 slots from the two endpoint solutions."""
    first, last = sols
    n = weights.size - 1
    size = first.objectives.size
    states: list[Any] = [first.state]
    rows: list[FloatArray] = [first.objectives]
    for slot in range(1, n):
        t = float(weights[slot])
        if mix is linear_interpolate:
            state = mix(first.state, last.state, t)  # its TypeError/ValueError explain the fix
        else:
            try:
                state = mix(first.state, last.state, t)
            except Exception as exc:
                raise InnerSolverError(
                    f"soup's interpolate raised {type(exc).__name__} for slot {slot} "
                    f"(weight {t:.6g}): {exc}", slot=slot, weight=t) from exc
        try:
            obj = np.atleast_1d(np.asarray(value(state), dtype=np.float64))
        except Exception as exc:
            raise InnerSolverError(
                f"soup's evaluate raised {type(exc).__name__} for slot {slot} "
                f"(weight {t:.6g}): {exc}", slot=slot, weight=t) from exc
        if obj.shape != (size,) or not np.all(np.isfinite(obj)):
            raise InnerSolverError(
                f"soup's evaluate returned {obj.tolist()} for slot {slot} (weight {t:.6g}); "
                f"expected {size} finite objectives", slot=slot, weight=t)
        states.append(state)
        rows.append(obj)
    states.append(last.state)
    rows.append(last.objectives)
    return states, np.stack(rows)
