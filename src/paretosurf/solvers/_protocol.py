"""Inner solvers: the protocol SURF calls, adapters, and a generic K-step gradient solver.

An inner solver solves (exactly or approximately) the linearly scalarized problem
``min_u w * h1(u) + (1 - w) * h2(u)`` for one weight ``w`` (the weight on objective 1),
starting from a warm start ``state`` (``None`` on a slot's first call), and returns a
:class:`Solution`. Anything with a ``solve(weight, state)`` method qualifies, and so does a plain
callable ``(weight, state) -> Solution``. A solver may also offer
``solve_many(weights, states) -> list[Solution]`` for vectorised or batched solves, and
``probe_start(rng) -> state`` for the run's basin probes (:class:`InnerSolver`).
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.validation import check_positive, check_positive_int

__all__ = [
    "BatchSolver",
    "GradientSolver",
    "GradientState",
    "InnerSolver",
    "InnerSolverError",
    "Solution",
    "SolverLike",
    "StepRule",
    "Weight",
    "add_evaluations",
    "as_solution",
    "as_solver",
    "as_weight",
    "count_steps",
    "format_weight",
    "solver_name",
    "users_solver",
    "weight_to_json",
]

FloatArray = NDArray[np.float64]
#: A weight as the driver hands it to a solver: a float in [0, 1] (two objectives, the weight
#: on objective 1) or a vector of shape (M,) on the simplex (M >= 3 objectives).
Weight = float | FloatArray


def format_weight(weight: Weight) -> str:
    """A weight for messages: ``0.25`` or ``[0.2, 0.3, 0.5]``.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.solvers import format_weight
    >>> format_weight(0.25), format_weight(np.array([0.2, 0.3, 0.5]))
    ('0.25', '[0.2, 0.3, 0.5]')
    """
    arr = np.asarray(weight, dtype=np.float64)
    if arr.ndim == 0:
        return f"{float(arr):.6g}"
    return "[" + ", ".join(f"{float(v):.6g}" for v in arr.ravel()) + "]"


def weight_to_json(weight: Weight) -> float | list[float]:
    """A weight as a JSON value (a float, or a list for a weight vector)."""
    arr = np.asarray(weight, dtype=np.float64)
    return float(arr) if arr.ndim == 0 else [float(v) for v in arr.ravel()]


def as_weight(weight: object) -> Weight:
    """The weight a solver receives: a Python float for a scalar, a float64 copy for a
    vector (so that a solver may keep or change it without touching the run's arrays)."""
    arr = np.array(weight, dtype=np.float64)
    return float(arr) if arr.ndim == 0 else arr


@dataclass
class Solution:
    """What an inner solver returns for one weight.

    Attributes
    ----------
    objectives : ndarray, shape (M,)
        The objective vector ``h(u)`` of the solution (minimized).
    state : object
        Whatever the solver needs to warm-start the next solve of this slot (parameters,
        optimizer moments, a checkpoint path...). Must be picklable for checkpoints.
    info : dict
        Free-form diagnostics. The key ``"steps"`` (an integer >= 0), when present, is
        summed into the run's budget accounting; ``"success": False`` (with an optional
        ``"message"``) in the last round's solves is named among the result's findings.

    Examples
    --------
    >>> from paretosurf import Solution
    >>> sol = Solution([1.0, 2.0], state={"x": 3}, info={"steps": 10})
    >>> sol.objectives.tolist(), sol.info["steps"]
    ([1.0, 2.0], 10)
    """

    objectives: FloatArray
    state: Any = None
    info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        raw = self.objectives
        # (a float vector, the common case, is kept as it is, as np.asarray would keep it:
        # its checks are skipped, which a round of N + 1 solves pays N + 1 times)
        if not (type(raw) is np.ndarray and raw.dtype == np.float64 and raw.ndim == 1):
            raw = np.asarray(raw)
            if raw.dtype.kind not in "biuf" and not (
                raw.dtype.kind == "O" and all(isinstance(v, numbers.Real) for v in raw.flat)
            ):
                # numpy would turn "1.5" into 1.5 and an object array into whatever it holds
                raise TypeError(
                    f"Solution.objectives must be numbers (a vector of floats), got "
                    f"{self.objectives!r} (dtype {raw.dtype})"
                )
            self.objectives = np.atleast_1d(np.asarray(raw, dtype=np.float64))
            if self.objectives.ndim != 1:
                raise ValueError(
                    f"Solution.objectives must be a 1-D vector, got shape {self.objectives.shape}"
                )
        if not isinstance(self.info, dict):
            if not isinstance(self.info, Mapping):
                raise TypeError(f"Solution.info must be a dict, got {type(self.info).__name__}")
            self.info = dict(self.info)
        steps = self.info.get("steps")
        if steps is not None and not (
            isinstance(steps, (int, np.integer)) and not isinstance(steps, bool) and steps >= 0
        ):
            raise ValueError(
                f"Solution.info['steps'] must be an integer >= 0 (the inner "
                f"steps this solve took), got {steps!r}"
            )


@runtime_checkable
class InnerSolver(Protocol):
    """Protocol of an inner solver: ``solve(weight, state) -> Solution``.

    ``state`` is the warm start: ``None`` on a slot's first call, then the state of the
    slot's last solution (or another slot's, by the method's warm-start rule).

    Optional methods the run uses when a solver has them (a plain callable's attributes
    count too):

    - ``solve_many(weights, states) -> list[Solution]``: a round's solves at once
      (:class:`BatchSolver`);
    - ``probe_start(rng) -> state``: a fresh starting state drawn with the
      :class:`numpy.random.Generator` ``rng`` (the same state for the same generator
      state), or ``None`` for none. With it the run's basin probes (the ``probes`` option,
      :mod:`paretosurf.loop`) solve a few slots a round again from such starts and
      keep a probe whose point scores lower at the slot's weight. A solver without it, or
      whose ``probe_start`` returns ``None`` at the run's start, is not probed.
      :class:`~paretosurf.adapters.ScipySolver` draws a point of its box;
    - ``screen_starts(rng, count) -> (states, values, calls) | None``: ``count`` starts
      spread over the solver's domain with the objectives at each (``inf`` rows where
      they are not finite). A first round whose points collapsed (a flat start) probes
      each slot from the screened start that scores best at its weight instead of a
      ``probe_start`` draw. :class:`~paretosurf.adapters.ScipySolver` screens a
      scrambled Sobol sample of its box;
    - ``recombine(state_a, state_b, rng) -> state | None``: a start mixed from two
      states. On a surface (weight vectors) the probes then also solve one or two slots
      a round whose weight weighs every objective but whose point holds one at its least
      over the round's points, from mixes of two other slots' states (the best-scoring at
      the slot's weight and one lower than it in some objective), the lowest-scoring of
      several mixes where the solver has ``evaluate(state) -> objectives``.
      :class:`~paretosurf.adapters.ScipySolver` takes each variable from either state;
    - ``initial_states(weights) -> StartUp | None``: the first round's warm starts for a
      two-objective run given no ``init_states`` (``weights``: the first round's places
      ``i / N`` in [0, 1]), made before the first round, with the solves and steps that
      cost (:class:`~paretosurf.solvers.StartUp`, counted in the run's); ``None`` starts
      every slot cold. The MDP gradient solvers warm the ends up as the paper's protocol
      does (:func:`~paretosurf.solvers.gradient_starts`);
    - ``save_state(state, folder)`` and ``load_state(folder)``: states kept as folders
      (:mod:`paretosurf.storage`);
    - ``observe(points)``: the round's points, after each round (an ideal point that
      follows them), and ``scalarization``: the scalarization it minimizes (weighted sums
      when it says none), which the run's checks score points with.

    Examples
    --------
    >>> import numpy as np
    >>> import paretosurf as ps
    >>> class Quadratics:
    ...     def solve(self, w, state):
    ...         x = w                              # minimizes w (x - 1)^2 + (1 - w) x^2
    ...         return ps.Solution([(x - 1) ** 2, x**2], state=x)
    ...     def probe_start(self, rng):
    ...         return float(rng.uniform(0.0, 1.0))
    >>> isinstance(Quadratics(), ps.InnerSolver)
    True
    >>> res = ps.surf(Quadratics(), 4, iterations=2)
    >>> res.settings["probes"]["per_round"]
    2
    """

    def solve(self, weight: float, state: Any) -> Solution:  # pragma: no cover - protocol
        ...


@runtime_checkable
class BatchSolver(Protocol):
    """Protocol of a solver that solves several weights in one call (vectorised, batched on a
    GPU...): ``solve_many(weights, states) -> list[Solution]``, one per weight, in order."""

    def solve_many(
        self, weights: FloatArray, states: Sequence[Any]
    ) -> Sequence[Solution]:  # pragma: no cover - protocol
        ...


#: What the library accepts as an inner solver: an :class:`InnerSolver`, a
#: :class:`BatchSolver`, or a plain callable ``(weight, state) -> Solution | (objectives, state)``.
SolverLike = InnerSolver | BatchSolver | Callable[[float, Any], Any]


class InnerSolverError(RuntimeError):
    """An inner solve failed or returned an unusable result; names the slot and weight."""

    def __init__(self, message: str, *, slot: int | None = None, weight: Weight | None = None):
        super().__init__(message)
        self.slot = slot
        self.weight = weight


class _CallableSolver:
    """Adapter giving a plain callable the :class:`InnerSolver` interface."""

    def __init__(self, fn: Callable[[float, Any], Any]) -> None:
        self._fn = fn

    def solve(self, weight: float, state: Any) -> Any:
        return self._fn(weight, state)


class _CallableDiskSolver(_CallableSolver):
    """A callable object that keeps its states on disk: its ``save_state`` and
    ``load_state`` stay visible through the adapter."""

    def save_state(self, state: Any, folder: Any) -> None:
        self._fn.save_state(state, folder)  # type: ignore[attr-defined]

    def load_state(self, folder: Any) -> Any:
        return self._fn.load_state(folder)  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"CallableSolver({getattr(self._fn, '__name__', repr(self._fn))})"


def as_solver(solver: object) -> InnerSolver | BatchSolver:
    """Return an object with ``solve`` and/or ``solve_many`` (a callable gets ``solve``).

    Raises
    ------
    TypeError
        If ``solver`` has neither method and is not callable.
    """
    if callable(getattr(solver, "solve", None)) or callable(getattr(solver, "solve_many", None)):
        return cast("InnerSolver | BatchSolver", solver)
    if callable(solver):
        if callable(getattr(solver, "save_state", None)) and callable(
            getattr(solver, "load_state", None)
        ):
            return _CallableDiskSolver(solver)
        return _CallableSolver(solver)
    raise TypeError(
        "solver must have a solve(weight, state) or solve_many(weights, states) method or be "
        "a callable "
        f"(weight, state) -> Solution; got {type(solver).__name__}"
    )


def users_solver(solver: object) -> object:
    """The object the user passed as the solver (a plain callable that :func:`as_solver`
    wrapped, or the solver itself)."""
    return solver._fn if isinstance(solver, _CallableSolver) else solver


def solver_objectives(solver: object, n_objectives: int | None, *, caller: str) -> int:
    """The number of objectives a many-objective run solves: ``n_objectives`` where given,
    else the one the solver declares (its ``n_objectives`` attribute, as the adapters and
    the bundled problems' solvers have).

    Raises
    ------
    TypeError
        Where ``n_objectives`` is not given and the solver declares none.
    ValueError
        Where both are known and differ (weights of one size solved by a solver of
        another would give points of the wrong shape, or none).

    Examples
    --------
    >>> import numpy as np
    >>> import paretosurf as ps
    >>> from paretosurf.solvers import solver_objectives
    >>> solver = ps.adapters.from_scipy(lambda x: np.array([x[0] ** 2, (x[0] - 1) ** 2,
    ...                                                     x[1] ** 2]), np.zeros(2))
    >>> solver_objectives(solver, None, caller="surf_simplex")
    3
    >>> solver_objectives(lambda w, state: 1 - w, None, caller="surf_simplex")
    Traceback (most recent call last):
    ...
    TypeError: surf_simplex() needs n_objectives: the solver (function) does not say how ...
    """
    declared = getattr(users_solver(solver), "n_objectives", None)
    if isinstance(declared, bool) or not isinstance(declared, numbers.Integral):
        declared = None
    if n_objectives is None:
        if declared is None:
            raise TypeError(
                f"{caller}() needs n_objectives: the solver ({type(users_solver(solver)).__name__})"
                " does not say how many objectives it has (no n_objectives attribute); pass "
                f"it, as in {caller}(solver, 28, 3)"
            )
        return int(declared)
    if declared is not None and int(declared) != n_objectives:
        raise ValueError(
            f"{caller}(): n_objectives={n_objectives!r}, but the solver has {int(declared)} "
            "objectives (its n_objectives); leave n_objectives out to use the solver's"
        )
    return n_objectives


def solver_name(solver: object) -> str:
    """``module:qualname`` of the user's solver: of its class, or of the function itself for
    a plain function (a run folder records it, and refuses to continue under another).

    Examples
    --------
    >>> from paretosurf.solvers import as_solver, solver_name
    >>> def my_solver(w, state):
    ...     return [w, 1 - w]
    >>> solver_name(as_solver(my_solver)).endswith(":my_solver")
    True
    """
    inner = users_solver(solver)
    owner = inner if inspect.isroutine(inner) else type(inner)
    return (
        f"{getattr(owner, '__module__', None) or '?'}:"
        f"{getattr(owner, '__qualname__', None) or type(owner).__qualname__}"
    )


def as_solution(raw: object, slot: int, weight: Weight) -> Solution:
    """A solver's return value as a :class:`Solution`: a Solution as is, a tuple
    ``(objectives, state[, info])`` converted; anything else an :class:`InnerSolverError`
    naming the slot and weight."""
    if isinstance(raw, Solution):
        return raw
    if isinstance(raw, tuple) and len(raw) in (2, 3) and np.ndim(raw[0]) == 0:
        raise InnerSolverError(
            f"inner solver returned the tuple {raw!r} for slot {slot} (weight "
            f"{format_weight(weight)}): a tuple is read as (objectives, state[, info]), so its "
            "first item must be the vector of objectives; return Solution([f1, f2], state) "
            "or ([f1, f2], state)",
            slot=slot,
            weight=weight,
        )
    if isinstance(raw, tuple) and len(raw) in (2, 3):
        try:
            return Solution(*raw)
        except (TypeError, ValueError) as exc:
            raise InnerSolverError(
                f"inner solver returned a tuple that is not (objectives, state[, info]) for "
                f"slot {slot} (weight {format_weight(weight)}): {exc}",
                slot=slot,
                weight=weight,
            ) from exc
    raise InnerSolverError(
        f"inner solver returned {type(raw).__name__} for slot {slot} (weight "
        f"{format_weight(weight)}); "
        "expected a Solution(objectives, state, info) or a tuple (objectives, state)",
        slot=slot,
        weight=weight,
    )


def count_steps(solutions: Sequence[Solution]) -> int:
    """Inner steps the solutions report (``info["steps"]``, 0 where absent)."""
    return sum(int(s.info.get("steps", 0)) for s in solutions)


def add_evaluations(
    spent: list[int] | None, solutions: Sequence[Solution | None]
) -> list[int] | None:
    """``spent`` plus the objective evaluations each solution reports
    (``info["objective_calls"]``, else ``info["nfev"]``), slot by slot; ``None`` once one
    reports neither (a count that misses solves would mislead).

    Examples
    --------
    >>> import paretosurf as ps
    >>> add_evaluations([1, 2], [ps.Solution([0.0, 1.0], info={"objective_calls": 5}),
    ...                          ps.Solution([1.0, 0.0], info={"nfev": 3})])
    [6, 5]
    >>> add_evaluations([1, 2], [ps.Solution([0.0, 1.0]), None]) is None
    True
    """
    if spent is None or len(spent) != len(solutions):
        return None
    out = []
    for total, sol in zip(spent, solutions, strict=True):
        info = {} if sol is None else sol.info
        count = info.get("objective_calls", info.get("nfev"))
        if count is None:
            return None
        out.append(total + int(count))
    return out


@dataclass
class GradientState:
    """Warm start of :class:`GradientSolver`: parameters and optimizer moments."""

    params: FloatArray
    m: FloatArray
    v: FloatArray
    t: int = 0


class StepRule:
    """A first-order update: plain gradient steps ("sgd") or Adam with bias correction.

    Shared by every K-step solver of the library. :meth:`apply` works on a batch of slots at
    once: ``params`` of shape ``(B, ...)`` with per-slot step counters ``t`` of shape ``(B,)``,
    or a single slot with a scalar ``t``.

    Parameters
    ----------
    lr : float
        Step size.
    optimizer : {"adam", "sgd"}
    betas : tuple of float
        Adam's moment decay rates, each in [0, 1).
    eps : float
        Adam's denominator guard.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.solvers import StepRule
    >>> rule = StepRule(lr=0.1, optimizer="sgd")
    >>> x, m, v, t = rule.apply(np.array([1.0]), np.array([2.0]), 0.0, 0.0, 0)
    >>> x.tolist()                                   # 1 - 0.1 * 2
    [0.8]
    """

    def __init__(
        self,
        lr: float,
        optimizer: str = "adam",
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        *,
        reset: bool = False,
    ) -> None:
        self.lr = check_positive(lr, name="lr")
        if not isinstance(reset, bool):
            raise TypeError(f"reset_optimizer must be a bool, got {reset!r}")
        self.reset = reset
        if optimizer not in ("adam", "sgd"):
            raise ValueError(f"optimizer must be 'adam' or 'sgd', got {optimizer!r}")
        self.optimizer = optimizer
        b1, b2 = (float(b) for b in betas)
        if not (0.0 <= b1 < 1.0 and 0.0 <= b2 < 1.0):
            raise ValueError(f"betas must lie in [0, 1), got {betas}")
        self.betas = (b1, b2)
        self.eps = check_positive(eps, name="eps")

    def begin(self, m: FloatArray, v: FloatArray, t: Any) -> tuple[FloatArray, FloatArray, Any]:
        """The optimizer state a call starts from: the warm start's, or (``reset``) zero
        moments and step count."""
        if not self.reset:
            return m, v, t
        return np.zeros_like(m), np.zeros_like(v), np.zeros_like(t) if np.ndim(t) else 0

    def apply(
        self, params: FloatArray, grad: FloatArray, m: FloatArray, v: FloatArray, t: Any
    ) -> tuple[FloatArray, FloatArray, FloatArray, Any]:
        """One step; returns the new ``(params, m, v, t)``."""
        if self.optimizer == "sgd":
            return params - self.lr * grad, m, v, t
        b1, b2 = self.betas
        t = t + 1
        m = b1 * m + (1.0 - b1) * grad
        v = b2 * v + (1.0 - b2) * grad * grad
        correct1: Any
        correct2: Any
        ndim = getattr(t, "ndim", 0)  # numpy arrays and torch tensors alike
        if ndim == 0:
            correct1, correct2 = 1.0 - b1 ** int(t), 1.0 - b2 ** int(t)
        else:  # one step counter per slot of a batch
            tt = t.reshape(tuple(t.shape) + (1,) * (params.ndim - ndim))
            correct1, correct2 = 1.0 - b1**tt, 1.0 - b2**tt
        scaled = v / correct2
        root = np.sqrt(scaled) if isinstance(scaled, np.ndarray) else scaled.sqrt()
        step = (m / correct1) / (root + self.eps)
        return params - self.lr * step, m, v, t


class GradientSolver:
    """K warm-started first-order steps on a scalarized objective (an inexact inner solver).

    Parameters
    ----------
    objectives : callable
        ``objectives(params) -> (M,)`` objective vector (minimized).
    gradients : callable
        ``gradients(params) -> (M, P)`` Jacobian of the objectives, or ``(2, ...)`` arrays of
        any parameter shape; the step uses ``w * g1 + (1 - w) * g2``.
    init : callable or array_like
        Initial parameters for a slot's first call: an array, or ``init(weight) -> array``.
    steps : int
        Number of steps K per call.
    lr : float
        Step size.
    optimizer : {"adam", "sgd"}
        Adam keeps its moments in the warm-start state, so a slot continues where it stopped.
    project : callable, optional
        ``project(params) -> params`` applied after each step (projected gradient descent).
    reset_optimizer : bool
        Start every call with fresh Adam moments (zero moments, step count 0), as the paper's
        code does; by default a slot's moments carry over from its previous call.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.solvers import GradientSolver
    >>> f = lambda x: np.array([(x[0] - 1) ** 2, x[0] ** 2])
    >>> g = lambda x: np.array([[2 * (x[0] - 1)], [2 * x[0]]])
    >>> solver = GradientSolver(f, g, init=np.zeros(1), steps=200, lr=0.1, optimizer="sgd")
    >>> sol = solver.solve(0.25, None)              # LS optimum is x = w = 0.25
    >>> round(float(sol.state.params[0]), 6), sol.info["steps"]
    (0.25, 200)
    """

    def __init__(
        self,
        objectives: Callable[[FloatArray], ArrayLike],
        gradients: Callable[[FloatArray], ArrayLike],
        init: Callable[[float], ArrayLike] | ArrayLike,
        *,
        steps: int,
        lr: float,
        optimizer: str = "adam",
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        project: Callable[[FloatArray], FloatArray] | None = None,
        reset_optimizer: bool = False,
    ) -> None:
        self.steps = check_positive_int(steps, name="steps")
        self.rule = StepRule(lr, optimizer, betas, eps, reset=reset_optimizer)
        self._objectives = objectives
        self._gradients = gradients
        self._init = init
        self._project = project

    def initial_state(self, weight: float) -> GradientState:
        """The state a slot starts from when it has no warm start."""
        init = self._init(weight) if callable(self._init) else self._init
        params = np.array(init, dtype=np.float64, copy=True)
        return GradientState(params, np.zeros_like(params), np.zeros_like(params), 0)

    def solve(self, weight: float, state: GradientState | None) -> Solution:
        """Run ``steps`` steps on ``w * h1 + (1 - w) * h2`` from ``state``."""
        st = self.initial_state(weight) if state is None else state
        x = st.params.copy()
        m, v, t = self.rule.begin(st.m.copy(), st.v.copy(), st.t)
        for _ in range(self.steps):
            jac = np.asarray(self._gradients(x), dtype=np.float64)
            g = (weight * jac[0] + (1.0 - weight) * jac[1]).reshape(x.shape)
            x, m, v, t = self.rule.apply(x, g, m, v, t)
            if self._project is not None:
                x = self._project(x)
        objectives = np.asarray(self._objectives(x), dtype=np.float64)
        return Solution(objectives, GradientState(x, m, v, int(t)), {"steps": self.steps})

    def interpolate(self, state0: GradientState, state1: GradientState, t: float) -> GradientState:
        """Parameters mixed linearly, ``(1 - t) * params0 + t * params1``, with fresh optimizer
        moments (used by the Soup baseline)."""
        params = (1.0 - t) * state0.params + t * state1.params
        return GradientState(params, np.zeros_like(params), np.zeros_like(params), 0)

    def evaluate(self, state: GradientState) -> FloatArray:
        """Objective vector at a state's parameters."""
        return np.asarray(self._objectives(state.params), dtype=np.float64)
