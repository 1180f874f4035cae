"""The loop every method runs in: rounds of solves, budget, records, checkpoints, resume.

A *method* (SURF, Uniform-w, OLS, ...) only decides where to solve: it subclasses
:class:`Method` and

- proposes the next :class:`Round` (the weights to solve, and which stored solver state
  warm-starts each of them),
- takes the round's :class:`RoundOutcome` (the points found and the keys of the new states),
- reports its current points (:meth:`Method.front`), and
- saves and restores its own state (JSON-able numbers plus arrays).

:func:`run` owns everything else, the same way for every method: solving a round's slots through
the executor, timing, budget accounting (solves and steps), the :class:`IterationRecord`, the
callback, ``tol``, the progress bar, a checkpoint after every round and resuming from it. It
knows nothing about CDFs.

Solver states live in a :class:`StatePool` owned by the run; methods refer to them by integer
keys, so that the run decides how they are stored and copied (a state proposed for several
slots is deep-copied for all but the first).

Adding a method is one class; ``baselines/uniform.py`` is the shortest example to copy.
"""

from __future__ import annotations

import copy
import inspect
import math
import numbers
import time
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypedDict

import numpy as np
from numpy.typing import NDArray

from paretosurf._progress import progress_bar
from paretosurf._validation import check_non_negative_int
from paretosurf.cdf import ArcLengthCDF
from paretosurf.checkpoint import CheckpointError, RunFolder, decode_pickled, encode_pickled
from paretosurf.diagnostics import SurfWarning, diagnose, summary
from paretosurf.executors import Executor, LocalExecutor
from paretosurf.result import IterationRecord, SurfResult, history_from_parts
from paretosurf.solvers import Solution, SolverLike, as_solver, count_steps
from paretosurf.spacing import Spacing

__all__ = [
    "Callback",
    "CheckpointError",
    "Method",
    "Round",
    "RoundOutcome",
    "RunOptions",
    "StatePool",
    "SurfWarning",
    "check_run_options",
    "moving_average_step",
    "run",
]

FloatArray = NDArray[np.float64]
#: ``callback(record)``: called after every round; returning ``True`` stops the run.
Callback = Callable[[IterationRecord], "bool | None"]


# ---------------------------------------------------------------------------- rounds
@dataclass(frozen=True)
class Round:
    """One round a method asks for.

    Attributes
    ----------
    weights : ndarray, shape (R,)
        Weights in [0, 1] to solve at.
    starts : sequence of int or None, length R
        For each weight, the key of the stored state that warm-starts it (``None``: the
        solver's cold start).
    slots : sequence of int, optional
        Slot numbers named in error messages (default ``0..R-1``).
    repeats : int
        Consecutive calls per weight, each warm-started from the previous call's state; the
        last call's solution is reported, every call is counted in the budget (OLS gives a
        K-step solver several calls per visited weight this way).
    """

    weights: FloatArray
    starts: Sequence[int | None]
    slots: Sequence[int] | None = None
    repeats: int = 1


@dataclass
class RoundOutcome:
    """What a round found: the points at the round's weights and the keys of the new states.

    ``points`` has shape (R, M), the objectives the solver returned; ``keys[i]`` is the pool
    key of the state of ``weights[i]``; ``infos`` the solvers' ``Solution.info`` dicts.
    ``estimates`` are the points averaged across rounds per slot (the run's
    ``moving_average``; equal to ``points`` without it) and ``coordinates`` the estimates in
    the coordinates distances are measured in (the run's ``normalize``): a method that spaces
    points uses ``coordinates``.
    """

    weights: FloatArray
    points: FloatArray
    keys: list[int]
    infos: list[dict[str, Any]] = field(default_factory=list)
    estimates: FloatArray | None = None
    coordinates: FloatArray | None = None

    def __post_init__(self) -> None:
        if self.estimates is None:
            self.estimates = self.points
        if self.coordinates is None:
            self.coordinates = self.estimates


class StatePool:
    """The run's solver states, by integer key (methods hold keys, never states).

    Examples
    --------
    >>> from paretosurf.driver import StatePool
    >>> pool = StatePool()
    >>> a, b = pool.add([1.0]), pool.add([2.0])
    >>> starts = pool.take([a, a, None])          # the second use of `a` is a copy
    >>> starts[0] is pool.get(a), starts[1] is pool.get(a), starts[1] == [1.0], starts[2]
    (True, False, True, None)
    >>> pool.keep([b]); sorted(pool.keys())
    [1]
    """

    def __init__(self) -> None:
        self._states: dict[int, Any] = {}
        self._next = 0

    def add(self, state: Any) -> int:
        """Store ``state``; returns its new key."""
        key = self._next
        self._states[key] = state
        self._next += 1
        return key

    def get(self, key: int | None) -> Any:
        """The state stored under ``key`` (``None`` for ``None``)."""
        if key is None:
            return None
        try:
            return self._states[key]
        except KeyError:
            raise KeyError(f"no solver state with key {key} is kept (kept: "
                           f"{sorted(self._states)}); a method proposed a state it had "
                           "released") from None

    def take(self, keys: Sequence[int | None]) -> list[Any]:
        """Warm starts for a round: the states of ``keys``, a deep copy for every repeat use
        of one key, so that no two slots share a state object."""
        used: set[int] = set()
        out = []
        for key in keys:
            state = self.get(key)
            if key is not None and key in used:
                state = copy.deepcopy(state)
            if key is not None:
                used.add(key)
            out.append(state)
        return out

    def keep(self, keys: Iterable[int | None]) -> None:
        """Forget every state not in ``keys``."""
        live = {k for k in keys if k is not None}
        for key in [k for k in self._states if k not in live]:
            del self._states[key]

    def keys(self) -> list[int]:
        """Keys of the states kept."""
        return list(self._states)

    def to_parts(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        """The pool as metadata and arrays (states pickled)."""
        return {"next_key": self._next}, {"pool_pickle": encode_pickled(self._states)}

    @classmethod
    def from_parts(cls, meta: Mapping[str, Any], arrays: Mapping[str, NDArray[Any]]
                   ) -> StatePool:
        """Inverse of :meth:`to_parts`."""
        pool = cls()
        pool._states = dict(decode_pickled(arrays["pool_pickle"]))
        pool._next = int(meta["next_key"])
        return pool


# ---------------------------------------------------------------------------- methods
class Method(ABC):
    """A multi-objective method run by :func:`run`: it only decides where to solve.

    Subclasses set :attr:`name` and :attr:`label` and implement the abstract hooks; see
    ``baselines/uniform.py`` for the shortest complete example.
    """

    #: Short name, recorded in checkpoints and results (``"surf"``).
    name: ClassVar[str]
    #: Display name (``"SURF"``).
    label: ClassVar[str]
    #: Number of objectives the method handles (``None``: any).
    n_objectives: ClassVar[int | None] = 2
    #: Whether the points come from scalarized solves at their weights, so that objective 1
    #: falls and objective 2 rises with the weight (False for interpolated points).
    ordered: ClassVar[bool] = True

    @abstractmethod
    def settings(self) -> dict[str, Any]:
        """Every setting of the method, JSON-able. A checkpoint records them and refuses to
        resume under different ones."""

    @abstractmethod
    def start(self, init_keys: list[int | None] | None) -> None:
        """Begin a fresh run; ``init_keys`` are the pool keys of the user's ``init_states``
        (``None`` entries: no warm start), or ``None`` when none were given."""

    @abstractmethod
    def propose(self) -> Round | None:
        """The next round, or ``None`` when the method has finished."""

    @abstractmethod
    def tell(self, outcome: RoundOutcome, pool: StatePool) -> None:
        """Take the round's points and new state keys (``pool`` gives access to the states,
        for methods that build states themselves, such as Soup)."""

    @abstractmethod
    def front(self) -> tuple[FloatArray, FloatArray, list[int | None]]:
        """The method's current points: ``(weights, points, state keys)``, ordered by weight.
        Before any round, ``points`` has shape ``(P, 0)``."""

    @abstractmethod
    def state_dict(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        """The method's own state: JSON-able values and named arrays."""

    @abstractmethod
    def load_state_dict(self, meta: Mapping[str, Any], arrays: Mapping[str, NDArray[Any]],
                        history: Sequence[IterationRecord]) -> None:
        """Restore what :meth:`state_dict` returned (``history``: the run's records so far,
        for methods whose data are the past rounds, such as UMOD)."""

    def live_keys(self) -> list[int | None]:
        """Keys of the states the method may still propose or report (default: those of
        :meth:`front`); the run forgets the others."""
        return self.front()[2]

    def weight_change(self) -> float:
        """How far the next round's weights move from this round's (``nan`` if the notion
        does not apply); ``tol`` compares with it."""
        return math.nan

    @property
    def cdf(self) -> ArcLengthCDF | None:
        """The method's estimate of the arc-length CDF, if it makes one."""
        return None

    def cdf_update(self) -> tuple[ArcLengthCDF | None, float]:
        """The last round's CDF estimate and damping, when :attr:`cdf` is the previous round's
        CDF mixed with that estimate (SURF); ``(None, nan)`` otherwise. Records store the
        estimate instead of the whole CDF, whose knots accumulate round after round."""
        return None, math.nan

    @property
    def converged(self) -> bool:
        """Whether the method stopped because nothing is left to improve."""
        return False


# ---------------------------------------------------------------------------- the loop
class RunOptions(TypedDict, total=False):
    """The keywords of :func:`run` that every method's entry point passes on (see :func:`run`
    for their meaning): ``executor``, ``checkpoint``, ``resume``, ``overwrite``,
    ``callback``, ``progress``, ``normalize``, ``moving_average``, ``weight_bounds``."""

    executor: Executor | None
    checkpoint: str | Path | None
    resume: bool
    overwrite: bool
    callback: Callback | None
    progress: bool
    normalize: Any
    moving_average: float | None
    weight_bounds: tuple[float, float] | None


def check_run_options(
    *, tol: object = None, checkpoint: object = None, resume: object = False,
    overwrite: object = False, callback: object = None, executor: object = None,
) -> None:
    """Validate the loop keywords every method takes (raises ``ValueError``/``TypeError``)."""
    if tol is not None and (isinstance(tol, bool) or not isinstance(tol, (int, float))
                            or not (tol > 0 and math.isfinite(tol))):
        raise ValueError(f"tol must be a finite number > 0 or None, got {tol!r}")
    if resume and checkpoint is None:
        raise ValueError("resume=True needs a checkpoint folder")
    if overwrite and checkpoint is None:
        raise ValueError("overwrite=True needs a checkpoint folder")
    if resume and overwrite:
        raise ValueError("pass resume=True (continue the run in the checkpoint folder) or "
                         "overwrite=True (replace it), not both")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable, got {type(callback).__name__}")
    if executor is not None and not callable(getattr(executor, "map", None)):
        raise TypeError("executor must have a map(solver, weights, states) method")


def check_weight_bounds(weight_bounds: object) -> tuple[float, float] | None:
    """``weight_bounds`` as ``(lo, hi)`` with ``0 <= lo < hi <= 1``, or ``None``."""
    if weight_bounds is None:
        return None
    try:
        lo, hi = (float(v) for v in weight_bounds)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise TypeError("weight_bounds must be a pair (lo, hi) of weights or None, got "
                        f"{weight_bounds!r}") from None
    if not (0.0 <= lo < hi <= 1.0):
        raise ValueError(f"weight_bounds must satisfy 0 <= lo < hi <= 1, got ({lo}, {hi})")
    return lo, hi


def check_moving_average(rate: object) -> float | None:
    """The moving-average rate in (0, 1], or ``None``."""
    if rate is None:
        return None
    if isinstance(rate, bool) or not isinstance(rate, numbers.Real) or not (
            0.0 < float(rate) <= 1.0):
        raise ValueError(f"moving_average must be a rate in (0, 1] (the weight of the newest "
                         f"estimate) or None, got {rate!r}")
    return float(rate)


def moving_average_step(point: FloatArray, weight: float, previous: FloatArray | None,
                        rate: float, spacing: float) -> FloatArray:
    """One step of a slot's moving average of its objectives.

    ``previous`` holds the slot's average and the weight it was at (``None`` on its first
    round). The new estimate enters with the share ``rate`` while the slot's weight stays, and
    with a share growing linearly to 1 as the weight moves by up to ``spacing`` (one average
    gap between weights): an average over points at other weights would place this one where
    the slot was, not where it is.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.driver import moving_average_step
    >>> old = np.array([1.0, 1.0, 0.5])                   # average (1, 1) at weight 0.5
    >>> moving_average_step(np.array([0.0, 0.0]), 0.5, old, 0.2, 0.1).tolist()
    [0.8, 0.8]
    >>> moving_average_step(np.array([0.0, 0.0]), 0.7, old, 0.2, 0.1).tolist()   # moved
    [0.0, 0.0]
    """
    if previous is None:
        return np.array(point, dtype=np.float64)
    moved = min(1.0, abs(weight - float(previous[-1])) / spacing)
    share = rate + (1.0 - rate) * moved
    return np.asarray(share * point + (1.0 - share) * previous[:-1], dtype=np.float64)


def _takes_slots(executor: Any) -> bool:
    try:
        params = inspect.signature(executor.map).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False
    return "slots" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


@dataclass
class _Progress:
    """The run's bookkeeping (everything but the method and the states)."""

    history: list[IterationRecord] = field(default_factory=list)
    n_solves: int = 0
    n_steps: int = 0
    converged: bool = False
    stop_reason: str | None = None
    n_objectives: int | None = None


class _Runner:
    """One call of :func:`run`."""

    def __init__(self, method: Method, solver: Any, executor: Executor | None,
                 folder: RunFolder | None, spacing: Spacing, moving_average: float | None,
                 weight_bounds: tuple[float, float] | None) -> None:
        self.method = method
        self.spacing = spacing
        self.moving_average = moving_average
        self.weight_bounds = weight_bounds
        self.averages: dict[int, FloatArray] = {}
        self.solver = solver
        self.executor: Any = LocalExecutor() if executor is None else executor
        self.pass_slots = _takes_slots(self.executor)
        self.folder = folder
        self.pool = StatePool()
        self.progress = _Progress()

    # ------------------------------------------------------------------ set-up
    def settings(self) -> dict[str, Any]:
        """The method's settings and the loop's options that change results."""
        return {**self.method.settings(), "normalize": self.spacing.setting(),
                "moving_average": self.moving_average,
                "weight_bounds": None if self.weight_bounds is None else list(self.weight_bounds)}

    def manifest(self) -> dict[str, Any]:
        return {"method": self.method.name, "label": self.method.label,
                "settings": self.settings()}

    def solved_weights(self, weights: FloatArray) -> FloatArray:
        """The weights the solver sees: ``lo + (hi - lo) * w`` with ``weight_bounds``."""
        if self.weight_bounds is None:
            return weights
        lo, hi = self.weight_bounds
        out = lo + (hi - lo) * weights
        out[weights == 0.0], out[weights == 1.0] = lo, hi
        return np.asarray(out, dtype=np.float64)

    def start_fresh(self, init_states: Sequence[Any] | None) -> None:
        if init_states is not None and (isinstance(init_states, (str, bytes))
                                        or not isinstance(init_states, Sequence)):
            raise TypeError("init_states must be a sequence of warm starts (None for a cold "
                            f"start) or None, got {type(init_states).__name__}")
        keys = None if init_states is None else [None if s is None else self.pool.add(s)
                                                 for s in init_states]
        self.method.start(keys)
        if self.folder is not None:
            self.folder.create(self.manifest())

    def restore(self) -> None:
        assert self.folder is not None
        saved = self.folder.load()
        self.check_same_run(saved.manifest)
        meta, arrays = saved.meta, saved.arrays
        self.folder.truncate_history(int(meta["n_rounds"]))
        history = history_from_parts(saved.records)
        self.progress = _Progress(history, int(meta["n_solves"]), int(meta["n_steps"]),
                                  bool(meta["converged"]), meta.get("stop_reason"),
                                  meta.get("n_objectives"))
        self.pool = StatePool.from_parts(meta["pool"], arrays)
        self.averages = {int(k): np.asarray(v, dtype=np.float64)
                         for k, v in meta.get("averages", {}).items()}
        prefix = "method/"
        method_arrays = {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}
        self.method.load_state_dict(meta["method_state"], method_arrays, history)

    def check_same_run(self, manifest: Mapping[str, Any]) -> None:
        assert self.folder is not None
        where = f"checkpoint {self.folder.path}"
        if manifest.get("method") != self.method.name:
            raise ValueError(
                f"{where} holds a {manifest.get('label', manifest.get('method'))} run; cannot "
                f"resume it as {self.method.label} (use another folder, or overwrite=True)")
        saved = manifest.get("settings", {})
        now = self.settings()
        diffs = [f"{key}: {saved.get(key, '(unset)')!r} in the checkpoint, "
                 f"{now.get(key, '(unset)')!r} now"
                 for key in sorted(set(saved) | set(now)) if saved.get(key) != now.get(key)]
        if diffs:
            raise ValueError(f"cannot resume the {self.method.label} run in {where} with other "
                             "settings; differing: " + "; ".join(diffs))

    # ------------------------------------------------------------------ one round
    def solve_round(self, rnd: Round, index: int) -> tuple[RoundOutcome, float]:
        weights = np.asarray(rnd.weights, dtype=np.float64)
        if weights.ndim != 1 or len(rnd.starts) != weights.size or weights.size == 0:
            raise ValueError(f"{self.method.label} proposed {weights.size} weights with "
                             f"{len(rnd.starts)} warm starts")
        if not (np.all(np.isfinite(weights)) and np.all((weights >= 0) & (weights <= 1))):
            raise ValueError(f"{self.method.label} proposed weights outside [0, 1]: "
                             f"{weights.tolist()}")
        states = self.pool.take(rnd.starts)
        slots = list(range(weights.size)) if rnd.slots is None else list(rnd.slots)
        solve_at = self.solved_weights(weights)
        start = time.perf_counter()
        solutions: list[Solution] = []
        for _ in range(rnd.repeats):
            if self.pass_slots:
                solutions = self.executor.map(self.solver, solve_at, states, slots=slots)
            else:
                solutions = self.executor.map(self.solver, solve_at, states)
            if len(solutions) != weights.size:
                raise ValueError(f"the executor returned {len(solutions)} solutions for "
                                 f"{weights.size} weights")
            states = [s.state for s in solutions]
            self.progress.n_solves += len(solutions)
            self.progress.n_steps += count_steps(solutions)
        seconds = time.perf_counter() - start
        points = np.stack([s.objectives for s in solutions])
        m = points.shape[1]
        wanted = self.method.n_objectives
        if wanted is not None and m != wanted:
            raise ValueError(
                f"{self.method.label} spaces points along a front of {wanted} objectives; the "
                f"solver returned {m} (objective vectors of shape ({m},)). Return the two "
                "objectives to trade off, both minimized")
        if self.progress.n_objectives is None:
            self.progress.n_objectives = m
        elif m != self.progress.n_objectives:
            raise ValueError(f"the solver returned {m} objectives in round {index}, but "
                             f"{self.progress.n_objectives} before")
        keys = [self.pool.add(s) for s in states]
        estimates = self.average(slots, weights, points)
        if weights.size >= 2 and weights[0] == 0.0 and weights[-1] == 1.0:
            self.spacing.fit(estimates)
        else:
            self.spacing.fit(self.method.front()[1])
        coordinates = self.spacing(estimates)
        return RoundOutcome(weights, points, keys, [s.info for s in solutions], estimates,
                            coordinates), seconds

    def average(self, slots: Sequence[int], weights: FloatArray,
                points: FloatArray) -> FloatArray:
        """Each slot's objectives averaged across rounds (see :func:`moving_average`)."""
        rate = self.moving_average
        if rate is None:
            return points
        out = np.empty_like(points)
        spacing = 1.0 / max(len(slots) - 1, 1)
        for i, slot in enumerate(slots):
            previous = self.averages.get(slot)
            out[i] = moving_average_step(points[i], weights[i], previous, rate, spacing)
            self.averages[slot] = np.append(out[i], weights[i])
        return out

    def front(self) -> tuple[FloatArray, FloatArray, FloatArray, list[int | None]]:
        """The method's points: weights as solved, objectives, their coordinates, keys."""
        weights, points, keys = self.method.front()
        coords = points
        if points.ndim == 2 and points.shape[1] > 0:
            self.spacing.fit(points)
            coords = self.spacing(points)
        return self.solved_weights(np.array(weights, dtype=np.float64)), points, coords, keys

    def record(self, index: int, started: float, solve_seconds: float) -> IterationRecord:
        weights, points, coords, _ = self.front()
        estimate, alpha = self.method.cdf_update()
        return IterationRecord.from_points(
            index, weights, points, coords=coords, cdf=self.method.cdf,
            seconds=time.perf_counter() - started, solve_seconds=solve_seconds,
            n_solves=self.progress.n_solves, n_steps=self.progress.n_steps,
            weight_change=self.method.weight_change(), cdf_estimate=estimate, alpha=alpha)

    # ------------------------------------------------------------------ results and saves
    def result(self) -> SurfResult:
        weights, points, coords, keys = self.front()
        p = self.progress
        findings = []
        if p.history:
            findings = diagnose(weights, points, coords, normalize=self.spacing.kind,
                                moving_average=self.moving_average,
                                ordered=self.method.ordered)
        collapsed = any(f.code in ("collapsed", "jump", "constant") for f in findings)
        cv = p.history[-1].cv if p.history else math.nan
        ratio = p.history[-1].gap_ratio if p.history else math.nan
        success, message = summary(self.method.label, len(weights), cv, ratio, findings)
        if not p.history:
            success, message = False, f"{self.method.label}: no round was run"
        return SurfResult(
            method=self.method.name, label=self.method.label,
            settings=self.settings(), weights=weights, points=points,
            states=[self.pool.get(k) for k in keys], cdf=self.method.cdf,
            history=p.history, n_solves=p.n_solves, n_steps=p.n_steps,
            converged=(p.converged or self.method.converged) and not collapsed,
            stop_reason=p.stop_reason or "not started", success=success, message=message,
            findings=findings)

    def save_state(self) -> None:
        assert self.folder is not None
        p = self.progress
        method_meta, method_arrays = self.method.state_dict()
        pool_meta, pool_arrays = self.pool.to_parts()
        view_meta, view_arrays = self.result().summary_parts()
        view_meta["state_keys"] = self.method.front()[2]
        meta = {"n_solves": p.n_solves, "n_steps": p.n_steps, "converged": p.converged,
                "stop_reason": p.stop_reason, "n_objectives": p.n_objectives,
                "averages": {str(k): v.tolist() for k, v in self.averages.items()},
                "method_state": method_meta, "pool": pool_meta, "result": view_meta}
        arrays = {**{f"method/{k}": v for k, v in method_arrays.items()}, **pool_arrays,
                  **view_arrays}
        self.folder.save_state(len(p.history), meta, arrays)

    # ------------------------------------------------------------------ the loop
    def loop(self, iterations: int | None, tol: float | None, callback: Callback | None,
             bar: Any) -> None:
        p = self.progress
        while p.stop_reason not in ("converged", "method", "callback"):
            if iterations is not None and len(p.history) >= iterations:
                p.stop_reason = "iterations"
                break
            started = time.perf_counter()
            rnd = self.method.propose()
            if rnd is None:
                p.stop_reason = "method"
                break
            index = len(p.history)
            outcome, solve_seconds = self.solve_round(rnd, index)
            self.method.tell(outcome, self.pool)
            self.pool.keep(self.method.live_keys())
            record = self.record(index, started, solve_seconds)
            p.history.append(record)
            if tol is not None and record.weight_change < tol:
                p.converged = True
                p.stop_reason = "converged"
            if self.folder is not None:
                self.folder.append_round(index, record.scalars(), record.arrays())
                self.save_state()
            bar.update(1)
            bar.set_postfix(cv=f"{record.cv:.4f}", gap_ratio=f"{record.gap_ratio:.3f}")
            if callback is not None and callback(record) is True:
                p.stop_reason = "callback"
                if self.folder is not None:
                    self.save_state()


def run(
    method: Method,
    solver: SolverLike,
    *,
    iterations: int | None,
    init_states: Sequence[Any] | None = None,
    tol: float | None = None,
    executor: Executor | None = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    overwrite: bool = False,
    callback: Callback | None = None,
    progress: bool = False,
    normalize: Any = "endpoints",
    moving_average: float | None = None,
    weight_bounds: tuple[float, float] | None = None,
) -> SurfResult:
    """Run ``method`` with ``solver`` until it finishes, converges, is stopped, or has done
    ``iterations`` rounds.

    Parameters
    ----------
    method : Method
        What decides the weights (a fresh instance; its settings are checked on resume).
    solver : object or callable
        The inner solver (see :func:`paretosurf.surf`).
    iterations : int or None
        Round limit, counting the rounds already in a resumed checkpoint; ``None``: until the
        method finishes (its :meth:`Method.propose` returns ``None``).
    init_states : sequence, optional
        Warm starts for the first round; the method says how many it takes.
    tol : float, optional
        Stop once :meth:`Method.weight_change` drops below ``tol``.
    executor : Executor, optional
        Runs a round's solves (default :class:`~paretosurf.executors.LocalExecutor`).
    checkpoint : path, optional
        Run folder; the run is saved there after every round (see
        :mod:`paretosurf.checkpoint`).
    resume : bool
        Continue the run saved in ``checkpoint`` (a fresh run if the folder holds none). The
        method and every setting must match the saved ones. A run that had converged, finished
        or been stopped by its callback returns its result without solving again; one that
        reached its round limit continues up to ``iterations``.
    overwrite : bool
        Replace a run already saved in ``checkpoint`` (its files only; other files in the
        folder are left alone). Without ``resume`` or ``overwrite``, a folder holding a run is
        refused.
    callback : callable, optional
        Called with each round's :class:`IterationRecord` after the round is saved; returning
        ``True`` stops the run.
    progress : bool
        Show a progress bar with the current CV and gap ratio.
    normalize : {"endpoints", "none"}, (ideal, nadir) or callable
        The coordinates distances are measured in, by the method (SURF's chords, UMOD's
        surrogate) and by the records' CV and gap ratio; see :mod:`paretosurf.spacing`.
    moving_average : float, optional
        Rate in (0, 1] of an exponential moving average of each slot's objectives across
        rounds, ``avg = rate * new + (1 - rate) * avg`` while the slot's weight stays put (the
        new estimate's share grows to 1 as the weight moves by one average gap, see
        :func:`moving_average_step`): the method updates its weights from the averages, the
        history keeps the raw estimates. For noisy objective estimates.
    weight_bounds : (lo, hi), optional
        Solve at ``lo + (hi - lo) * w`` instead of ``w``: keeps the solves off the ends of
        [0, 1], where a scalarized problem that ignores one objective may return a weakly
        Pareto-optimal point. The result's and records' weights are those solved at.

    Returns
    -------
    SurfResult
        With ``success`` and ``message``; each problem :func:`paretosurf.diagnostics.diagnose`
        finds in the final points is also raised as a :class:`SurfWarning`.

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.driver import run
    >>> from paretosurf.baselines.uniform import FixedWeights
    >>> res = run(FixedWeights(4), lambda w, s: ps.Solution([1 - w, w]), iterations=2)
    >>> res.weights.tolist(), res.n_solves, res.stop_reason
    ([0.0, 0.25, 0.5, 0.75, 1.0], 10, 'iterations')
    """
    check_run_options(tol=tol, checkpoint=checkpoint, resume=resume, overwrite=overwrite,
                      callback=callback, executor=executor)
    if iterations is not None:
        iterations = check_non_negative_int(iterations, name="iterations")
    spacing = Spacing(normalize)
    rate = check_moving_average(moving_average)
    bounds = check_weight_bounds(weight_bounds)
    folder = RunFolder(checkpoint) if checkpoint is not None else None
    runner = _Runner(method, as_solver(solver), executor, folder, spacing, rate, bounds)
    if folder is not None and folder.holds_run():
        if resume:
            runner.restore()
        elif overwrite:
            folder.clear()
            runner.start_fresh(init_states)
        else:
            raise FileExistsError(
                f"checkpoint folder {folder.path} already holds {folder.describe()}; pass "
                "resume=True to continue it, overwrite=True to replace it, or use another "
                "folder")
    else:
        runner.start_fresh(init_states)
    done = len(runner.progress.history)
    bar = progress_bar(progress, total=iterations, desc=method.label, unit="round",
                       initial=done if iterations is None else min(done, iterations))
    try:
        runner.loop(iterations, tol, callback, bar)
    finally:
        bar.close()
    result = runner.result()
    for finding in result.findings:
        warnings.warn(f"{result.label}: {finding.message}", SurfWarning, stacklevel=2)
    return result

