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

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.validation import check_n_segments, check_positive_int
from paretosurf.loop import (
    Method,
    Round,
    RoundOutcome,
    RunOptions,
    check_options,
    document_loop_options,
    run,
)
from paretosurf.methods._endpoints import endpoint_keys
from paretosurf.methods._size import segments_from, size_keyword
from paretosurf.result import IterationRecord, Result
from paretosurf.solvers import InnerSolverError, SolverLike
from paretosurf.storage import StatePool

if TYPE_CHECKING:  # pragma: no cover - typing only
    from typing import Unpack

__all__ = ["Interpolable", "SoupMethod", "linear_interpolate", "soup"]

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
    >>> from paretosurf.methods._soup import linear_interpolate
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


class SoupMethod(Method):
    """Soup as a method of the driver: ``iterations`` rounds solving only ``w = 0`` and
    ``w = 1`` (each warm-started from the previous round), then the interior slots mixed from
    the endpoint solutions without a solve.

    Parameters
    ----------
    n_segments : int
        N >= 1 (N + 1 points at ``w = n / N``).
    iterations : int
        Endpoint rounds (>= 1).
    interpolate : callable
        ``interpolate(state0, state1, t) -> state``.
    evaluate : callable
        ``evaluate(state) -> objectives``.
    """

    name = "soup"
    label = "Soup"
    n_objectives = None  # the weights do not depend on the objectives
    ordered = False  # interior points are mixtures, not scalarized solutions

    def __init__(
        self,
        n_segments: int,
        *,
        iterations: int,
        interpolate: Callable[[Any, Any, float], Any],
        evaluate: Callable[[Any], ArrayLike],
    ) -> None:
        self.n_segments = check_n_segments(n_segments)
        self.iterations = check_positive_int(iterations, name="iterations")
        self._mix = interpolate
        self._value = evaluate
        self.ends: list[int | None] = [None, None]
        self.end_points = np.empty((2, 0))
        self.rounds = 0
        self.keys: list[int | None] | None = None
        self.points: FloatArray | None = None

    def settings(self) -> dict[str, Any]:
        return {"n_segments": self.n_segments, "iterations": self.iterations}

    def start(self, init_keys: list[int | None] | None) -> None:
        self.ends = endpoint_keys(init_keys, self.n_segments)

    def propose(self) -> Round | None:
        if self.rounds >= self.iterations:
            return None
        return Round(np.array([0.0, 1.0]), self.ends, slots=[0, self.n_segments])

    def tell(self, outcome: RoundOutcome, pool: StatePool) -> None:
        self.ends = list(outcome.keys)
        self.end_points = outcome.points
        self.rounds += 1
        if self.rounds == self.iterations:
            weights = np.arange(self.n_segments + 1, dtype=np.float64) / self.n_segments
            states, self.points = _mix(
                pool.get(self.ends[0]),
                pool.get(self.ends[1]),
                outcome.points,
                weights,
                self._mix,
                self._value,
            )
            self.keys = [self.ends[0], *(pool.add(st) for st in states), self.ends[1]]

    def front(self) -> tuple[FloatArray, FloatArray, list[int | None]]:
        if self.keys is not None and self.points is not None:
            weights = np.arange(self.n_segments + 1, dtype=np.float64) / self.n_segments
            return weights, self.points, self.keys
        return np.array([0.0, 1.0]), self.end_points, self.ends

    def state_dict(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        arrays = {"end_points": self.end_points}
        if self.points is not None:
            arrays["points"] = self.points
        return {
            "ends": list(self.ends),
            "rounds": self.rounds,
            "keys": None if self.keys is None else list(self.keys),
        }, arrays

    def load_state_dict(
        self,
        meta: Mapping[str, Any],
        arrays: Mapping[str, NDArray[Any]],
        history: Sequence[IterationRecord],
    ) -> None:
        self.ends = list(meta["ends"])
        self.rounds = int(meta["rounds"])
        self.keys = None if meta["keys"] is None else list(meta["keys"])
        self.end_points = np.asarray(arrays["end_points"], dtype=np.float64)
        self.points = np.asarray(arrays["points"], dtype=np.float64) if "points" in arrays else None


@size_keyword
@document_loop_options
def soup(
    solver: SolverLike,
    n_segments: int | None = None,
    *,
    n_points: int | None = None,
    iterations: int = 30,
    interpolate: Callable[[Any, Any, float], Any] | None = None,
    evaluate: Callable[[Any], ArrayLike] | None = None,
    interpolator: Any = None,
    init_states: Sequence[Any] | None = None,
    **options: Unpack[RunOptions],
) -> Result:
    """Soup: solve ``w = 0`` and ``w = 1``, then interpolate the solutions at ``w = n / N``.

    Parameters
    ----------
    solver : object or callable
        Inner solver, as for :func:`paretosurf.surf`.
    n_segments : int
        N >= 1: the result has N + 1 points, at ``w_n = n / N``.
    n_points : int, optional
        N + 1, instead of the positional N (as for :func:`~paretosurf.surf`; ``n_segments=``
        by name warns).
    iterations : int
        Warm-started inner-solver calls for each endpoint (>= 1): the per-slot budget of an
        ``iterations``-round SURF run. The whole run makes ``2 * iterations`` calls.
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
    **options
        The loop options below, shared by every method's entry function. A round solves the
        two endpoints.
    <loop options>

    Returns
    -------
    Result
        ``weights = n / N``; ``points[0]`` and ``points[N]`` are the solver's endpoint
        objectives, ``points[n]`` for ``0 < n < N`` is ``evaluate(interpolate(u_0, u_1, n / N))``;
        ``states`` are the corresponding states. ``history`` has one record per round of
        endpoint solves: the records before the last hold only the two endpoints (weights
        ``[0, 1]``), the last holds all N + 1 points. ``weight_change`` is ``nan`` and ``cdf``
        is ``None``.

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
    >>> from paretosurf.methods._soup import soup
    >>> prob = Quadratic(np.eye(2), [1.0, 0.0], np.diag([1.0, 9.0]), [0.0, 1.0])
    >>> res = soup(prob.solver(), 2, iterations=1, evaluate=prob.objectives)
    >>> res.states[1].tolist(), res.points[1].tolist()   # midpoint of b2 and b1
    ([0.5, 0.5], [0.5, 2.5])
    >>> front = prob.front(np.linspace(0, 1, 2001))
    >>> bool(np.any(np.all(front < res.points[1] - 0.05, axis=1)))
    True
    """
    n_segments = segments_from(n_segments, n_points, where="soup")
    check_options(soup, options)
    check_n_segments(n_segments)
    check_positive_int(iterations, name="iterations")
    if interpolator is not None and not any(
        callable(getattr(interpolator, m, None)) for m in ("interpolate", "evaluate")
    ):
        raise TypeError(
            "interpolator must have an interpolate(state0, state1, t) and/or an "
            f"evaluate(state) method, got {type(interpolator).__name__}"
        )
    mix = _resolve("interpolate", interpolate, interpolator, solver) or linear_interpolate
    value = _resolve("evaluate", evaluate, interpolator, solver)
    if value is None:
        raise TypeError(
            "soup needs evaluate(state) -> objectives: pass evaluate=, an interpolator with an "
            "evaluate method, or a solver with one"
        )
    method = SoupMethod(n_segments, iterations=iterations, interpolate=mix, evaluate=value)
    return run(method, solver, iterations=None, init_states=init_states, **options)


def _mix(
    state0: Any,
    state1: Any,
    end_points: FloatArray,
    weights: FloatArray,
    mix: Callable[[Any, Any, float], Any],
    value: Callable[[Any], ArrayLike],
) -> tuple[list[Any], FloatArray]:
    """States of the interior slots and the objectives of all N + 1 slots, from the two
    endpoint solutions."""
    n = weights.size - 1
    size = end_points.shape[1]
    states: list[Any] = []
    rows: list[FloatArray] = [end_points[0]]
    for slot in range(1, n):
        t = float(weights[slot])
        if mix is linear_interpolate:
            state = mix(state0, state1, t)  # its TypeError/ValueError explain the fix
        else:
            try:
                state = mix(state0, state1, t)
            except Exception as exc:
                raise InnerSolverError(
                    f"soup's interpolate raised {type(exc).__name__} for slot {slot} "
                    f"(weight {t:.6g}): {exc}",
                    slot=slot,
                    weight=t,
                ) from exc
        try:
            obj = np.atleast_1d(np.asarray(value(state), dtype=np.float64))
        except Exception as exc:
            raise InnerSolverError(
                f"soup's evaluate raised {type(exc).__name__} for slot {slot} "
                f"(weight {t:.6g}): {exc}",
                slot=slot,
                weight=t,
            ) from exc
        if obj.shape != (size,) or not np.all(np.isfinite(obj)):
            raise InnerSolverError(
                f"soup's evaluate returned {obj.tolist()} for slot {slot} (weight {t:.6g}); "
                f"expected {size} finite objectives",
                slot=slot,
                weight=t,
            )
        states.append(state)
        rows.append(obj)
    rows.append(end_points[1])
    return states, np.stack(rows)
