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
callback, ``tol``, the progress bar, checkpoints (after every round, or amortized over rounds
too short to save each one: see :data:`CHECKPOINT_SHARE`) and resuming from them. It knows
nothing about CDFs.

Solver states live in a :class:`StatePool` owned by the run; methods refer to them by integer
keys, so that the run decides how they are stored and copied (a state proposed for several
slots is deep-copied for all but the first).

Adding a method is one class; ``baselines/uniform.py`` is the shortest example to copy.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import inspect
import math
import numbers
import os
import shutil
import sys
import time
import warnings
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypedDict

import numpy as np
from numpy.typing import NDArray

from paretosurf._progress import progress_bar
from paretosurf._validation import check_non_negative_int
from paretosurf.cdf import ArcLengthCDF
from paretosurf.checkpoint import CheckpointError
from paretosurf.diagnostics import diagnose
from paretosurf.executors import (
    Executor,
    ExecutorLostError,
    LocalExecutor,
    SolveOutcome,
    SolveTask,
    raise_for,
)
from paretosurf.findings import (
    DEFAULT_TARGETS,
    Finding,
    SurfWarning,
    check_target,
    success_and_message,
    uneven_finding,
)
from paretosurf.kept_rounds import ReportedFront, RoundKeeper, check_report
from paretosurf.result import IterationRecord, SurfResult, history_from_parts
from paretosurf.run_folder import RunFolder
from paretosurf.solver_findings import revise, solver_findings
from paretosurf.solvers import (
    SolverLike,
    as_solver,
    as_weight,
    count_steps,
    solver_name,
    users_solver,
    weight_to_json,
)
from paretosurf.spacing import Spacing
from paretosurf.states import (
    StateFolder,
    copy_state_folder,
    decode_states,
    encode_states,
    folders_of,
    has_disk_states,
    load_state,
    save_state,
    trusted_state_classes,
)
from paretosurf.tempdirs import make_owned_tempdir, remove_owned_tempdir, sweep_stale

__all__ = [
    "Callback",
    "CheckpointError",
    "Method",
    "ReportedFront",
    "Round",
    "RoundOutcome",
    "RunOptions",
    "StatePool",
    "SurfWarning",
    "anchor_rows",
    "check_run_options",
    "moving_average_step",
    "run",
]

FloatArray = NDArray[np.float64]
#: The prefix of the temporary folders of a disk-state solver's states in a run without a
#: run folder (those of a killed run are swept by the next such run).
STATES_TEMP_PREFIX = "paretosurf-states-"


#: ``callback(record)``: called after every round; returning ``True`` stops the run.
Callback = Callable[[IterationRecord], "bool | None"]


# ---------------------------------------------------------------------------- rounds
@dataclass(frozen=True)
class Round:
    """One round a method asks for.

    Attributes
    ----------
    weights : ndarray, shape (R,) or (R, M)
        Weights to solve at: scalars in [0, 1] (two objectives), or weight vectors on the
        simplex (rows of M >= 2 non-negative entries summing to 1).
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
    >>> _ = pool.keep([b]); sorted(pool.keys())
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

    def take(self, keys: Sequence[int | None], intact: Set[int] = frozenset()) -> list[Any]:
        """Warm starts for a round: the states of ``keys``, a deep copy for every repeat use
        of one key, so that no two slots share a state object, and for every use of a key in
        ``intact``, whose state must stay as it was solved (a solver may update its warm
        start in place)."""
        used: set[int] = set()
        out = []
        for key in keys:
            state = self.get(key)
            if key is not None and (key in used or key in intact):
                state = copy.deepcopy(state)
            if key is not None:
                used.add(key)
            out.append(state)
        return out

    def keep(self, keys: Iterable[int | None]) -> list[Any]:
        """Forget every state not in ``keys``; returns the states forgotten."""
        live = {k for k in keys if k is not None}
        return [self._states.pop(key) for key in [k for k in self._states if k not in live]]

    def keys(self) -> list[int]:
        """Keys of the states kept."""
        return list(self._states)

    def replace(self, key: int, state: Any) -> None:
        """Store ``state`` under the existing ``key`` (a state moved to a folder, say)."""
        self.get(key)
        self._states[key] = state

    def to_parts(self, root: Path | None = None
                 ) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        """The pool as metadata and arrays (see :func:`paretosurf.states.encode_states`;
        folders below ``root`` are stored relative to it)."""
        meta, arrays = encode_states({str(k): v for k, v in self._states.items()},
                                     prefix="pool", root=root)
        return {"next_key": self._next, "states": meta}, arrays

    @classmethod
    def from_parts(cls, meta: Mapping[str, Any], arrays: Mapping[str, NDArray[Any]], *,
                   root: Path | None = None, allow_pickle: bool = False,
                   where: str = "the checkpoint",
                   state_classes: Mapping[str, type] | None = None) -> StatePool:
        """Inverse of :meth:`to_parts` (``state_classes``: dataclasses trusted as states, see
        :func:`paretosurf.states.decode_states`)."""
        pool = cls()
        states = decode_states(meta["states"], arrays, root=root, allow_pickle=allow_pickle,
                               where=where, state_classes=state_classes or {})
        pool._states = {int(k): v for k, v in states.items()}
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
    #: Whether :meth:`front` is the last round's points, one per slot, so that an earlier
    #: round's could be reported instead (the run's ``report="most-even"``).
    front_is_last_round: ClassVar[bool] = False
    #: Whether the method aims at evenly spaced points (SURF): a result less even than the
    #: run's ``target`` then fails; for the others, unevenness is advice.
    aims_even: ClassVar[bool] = False

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
        """The method's own state: JSON-able values and named arrays (containers of its own,
        not ones it goes on changing)."""

    @abstractmethod
    def load_state_dict(self, meta: Mapping[str, Any], arrays: Mapping[str, NDArray[Any]],
                        history: Sequence[IterationRecord]) -> None:
        """Restore what :meth:`state_dict` returned (``history``: the run's records so far,
        for methods whose data are the past rounds, such as UMOD)."""

    def live_keys(self) -> list[int | None]:
        """Keys of the states the method may still propose or report (default: those of
        :meth:`front`); the run forgets the others."""
        return self.front()[2]

    def convergence_change(self) -> float:
        """The change ``tol`` compares with (default :meth:`weight_change`; a damped method
        gives the undamped one, so that a small damping does not pass for convergence)."""
        return self.weight_change()

    def findings(self) -> list[Finding]:
        """What the method itself knows is not as asked (fewer points than requested, say),
        added to the diagnosis of its points (default: nothing)."""
        return []

    def weight_change(self) -> float:
        """How far the next round's weights move from this round's (``nan`` if the notion
        does not apply); ``tol`` compares with it unless :meth:`convergence_change` says
        otherwise."""
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
#: Rounds whose solves take at least this many seconds are flushed to the disk (fsync) when
#: checkpointed; shorter ones are only renamed into place, which a killed process cannot
#: break, and a crash of the whole machine loses at most a few seconds of solving. After a
#: round this long, a disk-state solver's states are also written to their folders as each is
#: solved (after shorter ones, they wait in memory for the checkpoint that keeps them).
DURABLE_ROUND_SECONDS = 0.5

#: ``checkpoint_period="auto"``: checkpoints take about this share of the solve time at most.
#: After a checkpoint that took ``c`` seconds, the next is written once the rounds since it
#: have taken ``c / CHECKPOINT_SHARE`` seconds. Rounds longer than that (any solve of a second
#: or more) are each saved; rounds of a few milliseconds are saved every few rounds, so a
#: killed run loses at most ``c / CHECKPOINT_SHARE`` seconds of solving. (Ray Tune's "auto"
#: experiment checkpoint period is the same idea.)
CHECKPOINT_SHARE = 0.01

#: What the first checkpoint is expected to cost, before one has been measured: a small run's
#: checkpoint takes a few milliseconds, so the first is written once the rounds have taken
#: ``FIRST_CHECKPOINT_SECONDS / CHECKPOINT_SHARE`` (half a second): after the first round of
#: any run whose solves take that long, and not at all before the end of a run of
#: millisecond rounds that would otherwise pay for two checkpoints instead of one.
FIRST_CHECKPOINT_SECONDS = 0.005


class RunOptions(TypedDict, total=False):
    """The keywords of :func:`run` that every method's entry point passes on (see :func:`run`
    for their meaning): ``executor``, ``checkpoint``, ``resume``, ``overwrite``,
    ``callback``, ``progress``, ``normalize``, ``moving_average``, ``weight_bounds``,
    ``retries``, ``allow_pickle``, ``checkpoint_period``, ``report``, ``target``."""

    executor: Executor | None
    checkpoint: str | Path | None
    resume: bool
    overwrite: bool
    callback: Callback | None
    progress: bool
    normalize: Any
    moving_average: float | None
    weight_bounds: tuple[float, float] | None
    retries: int
    allow_pickle: bool
    checkpoint_period: float | str
    report: str
    target: float | None


def check_checkpoint_period(period: object) -> float | None:
    """``checkpoint_period`` as seconds of solving between checkpoints, ``None`` for "auto".

    Examples
    --------
    >>> from paretosurf.driver import check_checkpoint_period
    >>> check_checkpoint_period("auto") is None, check_checkpoint_period(0)
    (True, 0.0)
    """
    if period == "auto":
        return None
    if isinstance(period, bool) or not isinstance(period, numbers.Real) or not (
            math.isfinite(float(period)) and float(period) >= 0):
        raise ValueError("checkpoint_period must be 'auto' or a number of seconds >= 0 (0: "
                         f"save after every round), got {period!r}")
    return float(period)


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


def anchor_rows(weights: FloatArray) -> list[int] | None:
    """The rows of a round's weights that solve a single objective (the "endpoints" whose
    ideal and nadir ``normalize="endpoints"`` reads): the first and last of scalar weights
    running from 0 to 1 (``None`` when the ends are not there), or the corners ``e_m`` of
    weight vectors, one per objective (all rows when a corner is missing: then the ideal and
    nadir are those of all the points).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.driver import anchor_rows
    >>> anchor_rows(np.array([0.0, 0.5, 1.0])), anchor_rows(np.array([0.2, 1.0]))
    ([0, 2], None)
    >>> anchor_rows(np.array([[0.5, 0.5, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]]))
    [2, 3, 1]
    >>> anchor_rows(np.array([[0.5, 0.5, 0], [0, 0, 1]]))
    [0, 1]
    """
    if weights.ndim == 1:
        if weights.size >= 2 and weights[0] == 0.0 and weights[-1] == 1.0:
            return [0, weights.size - 1]
        return None
    if weights.ndim != 2 or weights.shape[0] == 0:
        return None
    rows = []
    for m in range(weights.shape[1]):
        hits = np.flatnonzero(weights[:, m] == 1.0)
        if hits.size == 0:
            return list(range(weights.shape[0]))
        rows.append(int(hits[0]))
    return rows


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


def moving_average_step(point: FloatArray, weight: float | FloatArray,
                        previous: FloatArray | None, rate: float,
                        spacing: float) -> FloatArray:
    """One step of a slot's moving average of its objectives.

    ``previous`` holds the slot's average followed by the weight it was at (``None`` on its
    first round); a weight vector moves by its largest change in any component. The new
    estimate enters with the share ``rate`` while the slot's weight stays, and
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
    w = np.atleast_1d(np.asarray(weight, dtype=np.float64))
    moved = min(1.0, float(np.max(np.abs(w - previous[-w.size:]))) / spacing)
    share = rate + (1.0 - rate) * moved
    return np.asarray(share * point + (1.0 - share) * previous[:-w.size], dtype=np.float64)


class _MapExecutor:
    """An executor with only the older ``map(solver, weights, states[, slots=])``: a round
    that raises fails every one of its tasks."""

    def __init__(self, executor: Any) -> None:
        self.executor = executor
        try:
            params = inspect.signature(executor.map).parameters
            self.takes_slots = "slots" in params or any(
                p.kind is p.VAR_KEYWORD for p in params.values())
        except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
            self.takes_slots = False

    def solve(self, solver: Any, tasks: Sequence[SolveTask],
              on_done: Any = None) -> list[SolveOutcome]:
        weights = np.array([t.weight for t in tasks], dtype=np.float64)
        states = [load_state(solver, t.state) for t in tasks]
        start = time.perf_counter()
        try:
            if self.takes_slots:
                sols = self.executor.map(solver, weights, states, slots=[t.slot for t in tasks])
            else:
                sols = self.executor.map(solver, weights, states)
            if len(sols) != len(tasks):
                raise ValueError(f"the executor returned {len(sols)} solutions for "
                                 f"{len(tasks)} weights")
        except Exception as exc:
            seconds = (time.perf_counter() - start) / max(len(tasks), 1)
            return [SolveOutcome(t.slot, t.weight, None, f"{type(exc).__name__}: {exc}",
                                 None, seconds) for t in tasks]
        seconds = (time.perf_counter() - start) / max(len(tasks), 1)
        out = []
        for task, sol in zip(tasks, sols, strict=True):
            if task.save_to is not None:
                sol = type(sol)(sol.objectives, save_state(solver, sol.state, task.save_to),
                                sol.info)
            out.append(SolveOutcome(task.slot, task.weight, sol, seconds=seconds))
        return out


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

    def __init__(self, method: Method, solver: Any, executor: Any,
                 folder: RunFolder | None, spacing: Spacing, moving_average: float | None,
                 weight_bounds: tuple[float, float] | None, retries: int,
                 allow_pickle: bool, checkpoint_period: float | None,
                 report: str = "auto", target: float | None = None) -> None:
        if report == "most-even" and not method.front_is_last_round:
            raise ValueError(f"report='most-even' needs a method whose points are its last "
                             f"round's, one per slot; {method.label}'s are not")
        self.report = report
        #: The spacing target of the result (``None``: the front's default).
        self.target = target
        #: The candidates for the reported round (see :mod:`paretosurf.kept_rounds`).
        self.keeper = RoundKeeper()
        #: The last round's solves whose info says success=False: (slot, message); and the
        #: info of each of its solves.
        self.unsuccessful: list[tuple[int, str]] = []
        self.last_infos: list[dict[str, Any]] = []
        self.postfix: dict[str, str] = {}
        self._settings: dict[str, Any] | None = None
        self.slots_done = self.slots_total = 0
        self.method = method
        self.spacing = spacing
        self.moving_average = moving_average
        self.weight_bounds = weight_bounds
        self.retries = retries
        self.allow_pickle = allow_pickle
        self.averages: dict[int, FloatArray] = {}
        self.solver = solver
        given = LocalExecutor() if executor is None else executor
        self.executor: Any = given if callable(getattr(given, "solve", None)) else \
            _MapExecutor(given)
        self.lifecycle = given
        #: Whether solves run in this process (states then need no folder to reach them).
        self.in_process = isinstance(given, LocalExecutor)
        self.folder = folder
        #: Seconds of running between checkpoints (``None``: "auto", see CHECKPOINT_SHARE).
        self.period = checkpoint_period
        #: Rounds saved by the last checkpoint; the seconds the rounds since it took; what the
        #: last checkpoint cost; the solve-log lines not written yet.
        self.saved_rounds = 0
        self.unsaved_seconds = 0.0
        self.last_round_seconds = 0.0
        self.checkpoint_seconds: float | None = None
        self.unsaved_solves: list[dict[str, Any]] = []
        #: The folder (by round, ``-1`` for the warm starts, and slot) of each kept state of a
        #: disk-state solver that is still in memory only (returned in this process, or given
        #: as a warm start, and not checkpointed yet).
        self.unsaved_states: dict[int, tuple[int, int]] = {}
        #: States just saved by a checkpoint, still in memory: the next round starts from
        #: them instead of reading their folders back.
        self.resident: dict[int, Any] = {}
        self.pool = StatePool()
        self.progress = _Progress()
        self.disk = has_disk_states(solver)
        #: Where a disk-state solver's folders go (made on first use: the run folder's
        #: ``states/``, or without one a temporary folder the run deletes at its end).
        self.temp_root: Path | None = None
        self.state_root: Path | None = None
        #: The state folders named by the last saved state: kept until the checkpoint after
        #: it, so that the state before the newest (the fallback) never names a pruned one.
        self.fallback_folders: set[Path] = set()
        self.bar: Any = None

    # ------------------------------------------------------------------ set-up
    def settings(self) -> dict[str, Any]:
        """The method's settings and the loop's options that change results (fixed for the
        run, so computed once)."""
        if self._settings is None:
            self._settings = {
                **self.method.settings(), "normalize": self.spacing.setting(),
                "moving_average": self.moving_average, "report": self.report,
                "weight_bounds": (None if self.weight_bounds is None
                                  else list(self.weight_bounds))}
        return dict(self._settings)

    def manifest(self) -> dict[str, Any]:
        notes = _RUN_NOTES.get()
        return {"method": self.method.name, "label": self.method.label,
                "settings": self.settings(), "solver": solver_name(self.solver),
                **({"notes": dict(notes)} if notes else {})}

    def solved_weights(self, weights: FloatArray) -> FloatArray:
        """The weights the solver sees: ``lo + (hi - lo) * w`` with ``weight_bounds`` (for weight
        vectors, whose components then range over ``[lo, hi]``, ``hi`` must be
        ``1 - (M - 1) * lo`` so that they still sum to 1)."""
        if self.weight_bounds is None:
            return weights
        lo, hi = self.weight_bounds
        if weights.ndim == 2:
            m = weights.shape[1]
            if not math.isclose(hi, 1.0 - (m - 1) * lo, rel_tol=0.0, abs_tol=1e-12):
                raise ValueError(
                    f"weight_bounds=({lo}, {hi}) for weight vectors of {m} objectives must be "
                    f"(lo, 1 - {m - 1} * lo) = ({lo}, {1.0 - (m - 1) * lo:.12g}) so that "
                    "the solved weights still sum to 1")
        out = lo + (hi - lo) * weights
        out[weights == 0.0], out[weights == 1.0] = lo, hi
        return np.asarray(out, dtype=np.float64)

    def start_fresh(self, init_states: Sequence[Any] | None, *, created: bool = False) -> None:
        """Start the run from ``init_states``; ``created``: its folder already holds its
        manifest (a run resumed before its first checkpoint)."""
        if init_states is not None and (isinstance(init_states, (str, bytes))
                                        or not isinstance(init_states, Sequence)):
            raise TypeError("init_states must be a sequence of warm starts (None for a cold "
                            f"start) or None, got {type(init_states).__name__}")
        if self.folder is not None and not created:
            self.folder.create(self.manifest())
        keys: list[int | None] | None = None
        if init_states is not None:
            keys = []
            seen: dict[int, int] = {}    # id of a state object -> its key
            for slot, state in enumerate(init_states):
                if state is None:
                    keys.append(None)
                    continue
                if id(state) in seen:
                    # one object given for several slots ([x0] * (n + 1)) is one warm start
                    # shared by them: each further slot gets its own copy (Pool.take), so
                    # that a solver updating its state in place cannot tie the slots together
                    keys.append(seen[id(state)])
                    continue
                key = seen[id(state)] = self.pool.add(state)
                keys.append(key)
                if (self.disk and isinstance(state, StateFolder) and self.folder is not None
                        and not _inside(state.path, self.folder.path)):
                    # a run folder holds every state it names: a copy of a warm start kept
                    # elsewhere (it may be moved, or deleted, while the run goes on)
                    self.pool.replace(key, copy_state_folder(state, self.state_folder(-1, slot)))
                elif self.disk and not isinstance(state, StateFolder):
                    if self.in_process:
                        self.unsaved_states[key] = (-1, slot)    # saved if checkpointed
                    else:
                        self.pool.replace(key, save_state(self.solver, state,
                                                          self.state_folder(-1, slot)))
        self.method.start(keys)

    def restore(self, init_states: Sequence[Any] | None) -> None:
        """Continue the run saved in the folder; one stopped before its first checkpoint
        starts again from ``init_states`` (its solve log is kept)."""
        assert self.folder is not None
        self.check_same_run(self.folder.manifest())
        self.folder.prepare_resume()
        saved = self.folder.load() if self.folder.committed() else None
        self.folder.truncate_history(0 if saved is None else int(saved.meta["n_rounds"]))
        if saved is None:
            if self.disk and (self.folder.path / "states").is_dir():
                self.state_root = self.folder.states_folder()
                self.prune_state_folders(stale=True)    # no saved state names any of them
            self.start_fresh(init_states, created=True)
            return
        meta, arrays = saved.meta, saved.arrays
        history = history_from_parts(saved.records)
        self.progress = _Progress(history, int(meta["n_solves"]), int(meta["n_steps"]),
                                  bool(meta["converged"]), meta.get("stop_reason"),
                                  meta.get("n_objectives"))
        self.pool = StatePool.from_parts(
            meta["pool"], arrays, root=self.folder.path, allow_pickle=self.allow_pickle,
            where=f"checkpoint {self.folder.path}",
            state_classes=trusted_state_classes(users_solver(self.solver)))
        # the older state file names its folders until the next checkpoint replaces it
        older = (set() if saved.fallback is None else
                 folders_of(saved.fallback["pool"]["states"], self.folder.path))
        self.fallback_folders = older | self.pool_folders()
        for record in history:          # the solver sees the saved rounds again, in order
            self.observe(record.points)
        self.averages = {int(k): np.asarray(v, dtype=np.float64)
                         for k, v in meta.get("averages", {}).items()}
        self.saved_rounds = len(history)
        prefix = "method/"
        method_arrays = {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}
        self.method.load_state_dict(meta["method_state"], method_arrays, history)
        if "kept_rounds" in meta:
            prefix = "kept/"
            self.keeper.load_state_dict(meta["kept_rounds"], {
                k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)})
        else:       # saved with no candidates: the next round is the first that competes
            self.keeper.rounds = len(history)
        if self.disk and (self.folder.path / "states").is_dir():
            # folders a killed run wrote after its last checkpoint, or half wrote, name no
            # saved state: they go (the states of both state files stay)
            self.state_root = self.folder.states_folder()
            self.prune_state_folders(stale=True)
        # the next checkpoint replaces the older state file: the newest one is the fallback
        self.fallback_folders = self.pool_folders()

    def check_same_run(self, manifest: Mapping[str, Any]) -> None:
        assert self.folder is not None
        where = f"checkpoint {self.folder.path}"
        if manifest.get("method") != self.method.name:
            raise ValueError(
                f"{where} holds a {manifest.get('label', manifest.get('method'))} run; cannot "
                f"resume it as {self.method.label} (use another folder, or overwrite=True)")
        # runs saved before the report option existed reported as "auto" does
        saved = {"report": "auto", **manifest.get("settings", {})}
        now = self.settings()
        diffs = [f"{key}: {saved.get(key, '(unset)')!r} in the checkpoint, "
                 f"{now.get(key, '(unset)')!r} now"
                 for key in sorted(set(saved) | set(now)) if saved.get(key) != now.get(key)]
        if diffs:
            raise ValueError(f"cannot resume the {self.method.label} run in {where} with other "
                             "settings; differing: " + "; ".join(diffs))

    # ------------------------------------------------------------------ one round
    def save_folder(self, index: int, slot: int, call: int, last: bool) -> str | None:
        """Where a task of round ``index`` saves its new state (disk states only)."""
        if not self.disk:
            return None
        return str(self.state_folder(index, slot, None if last else call))

    def state_folder(self, index: int, slot: int, call: int | None = None) -> Path:
        """The folder of the state that round ``index`` (``-1``: the warm starts) left in
        ``slot`` (``call``: after that call of a round of several)."""
        group = "init" if index < 0 else f"round-{index:06d}"
        name = f"slot-{slot:02d}" if call is None else f"slot-{slot:02d}-call-{call}"
        return self.states_root() / group / name

    def states_root(self) -> Path:
        """The folder of the state folders, made (and, in a run folder, recorded as the
        run's own) on first use."""
        if self.state_root is None:
            if self.folder is not None:
                self.state_root = self.folder.states_folder()
            else:
                sweep_stale(STATES_TEMP_PREFIX)
                self.temp_root = self.state_root = make_owned_tempdir(STATES_TEMP_PREFIX)
        return self.state_root

    def run_tasks(self, tasks: list[SolveTask], index: int, call: int) -> list[SolveOutcome]:
        """Solve ``tasks``, retrying failed ones up to ``retries`` times; every attempt is
        logged. Raises the last failure's :class:`InnerSolverError` when retries run out."""
        results: dict[int, SolveOutcome] = {}
        pending = list(range(len(tasks)))
        attempt = 0
        while pending:
            attempt += 1
            batch = [tasks[i] for i in pending]
            outcomes = self.executor.solve(self.solver, batch, self.on_done)
            if len(outcomes) != len(batch):
                raise ValueError(f"the executor returned {len(outcomes)} outcomes for "
                                 f"{len(batch)} tasks")
            self.log(outcomes, index, call, attempt)
            failed = []
            for i, outcome in zip(pending, outcomes, strict=True):
                if outcome.ok:
                    results[i] = outcome
                else:
                    failed.append((i, outcome))
            if failed and attempt > self.retries:
                raise_for(failed[0][1], attempt)
            pending = [i for i, _ in failed]
        return [results[i] for i in range(len(tasks))]

    def on_done(self, outcome: SolveOutcome) -> None:
        if self.bar is not None and outcome.ok:
            self.slots_done += 1
            self.bar.set_postfix(**self.postfix, slots=f"{self.slots_done}/{self.slots_total}")

    def log(self, outcomes: Sequence[SolveOutcome], index: int, call: int,
            attempt: int) -> None:
        """Keep one solve-log line per attempt, written with the round's checkpoint: the
        tries an executor lost to a dying worker and ran again (``killed``), then the
        outcome."""
        if self.folder is None:
            return
        now = time.time()
        self.unsaved_solves.extend([
            {"round": index, "call": call, "attempt": attempt, "slot": o.slot,
             "weight": o.weight if type(o.weight) is float else weight_to_json(o.weight),
             "objectives": None if o.solution is None else o.solution.objectives.tolist(),
             "seconds": float(o.seconds), "host": o.host, "pid": o.pid, "error": o.error,
             "killed": o.killed, "time": now,
             **({"traceback": o.traceback} if o.traceback else {})}
            for outcome in outcomes for o in (*outcome.lost, outcome)])

    def solve_round(self, rnd: Round, index: int) -> tuple[RoundOutcome, float]:
        weights = np.asarray(rnd.weights, dtype=np.float64)
        n_weights = weights.shape[0] if weights.ndim else 0
        if weights.ndim not in (1, 2) or len(rnd.starts) != n_weights or n_weights == 0:
            raise ValueError(f"{self.method.label} proposed {n_weights} weights with "
                             f"{len(rnd.starts)} warm starts")
        if not (np.all(np.isfinite(weights)) and np.all((weights >= 0) & (weights <= 1))):
            raise ValueError(f"{self.method.label} proposed weights outside [0, 1]: "
                             f"{weights.tolist()}")
        if weights.ndim == 2 and np.any(np.abs(weights.sum(axis=1) - 1.0) > 1e-9):
            raise ValueError(f"{self.method.label} proposed weight vectors off the simplex "
                             f"(rows must sum to 1): {weights.tolist()}")
        if self.unsaved_states:
            # a state in memory that starts several slots goes to its folder first: each
            # further slot then reads its own copy back (as from a checkpoint), and no state
            # of a disk-state solver is ever deep-copied
            counts = Counter(k for k in rnd.starts if k is not None)
            self.persist_states([k for k, n in counts.items() if n > 1])
        # a candidate round for the report keeps its states as they were solved (folder
        # states are read anew for every use)
        intact = ({k for k in self.keeper.keys() if k is not None}
                  if self.reports_most_even() and not self.disk else set())
        states = self.pool.take(rnd.starts, intact)
        for i, key in enumerate(rnd.starts):     # a first use; repeats read the folder
            if key is not None and key in self.resident:
                states[i] = self.resident.pop(key)
        self.resident.clear()
        slots = list(range(n_weights)) if rnd.slots is None else list(rnd.slots)
        # in this process, a disk-state solver's new states from short rounds stay in memory
        # until the checkpoint that keeps them (which, amortized, most rounds do not reach);
        # after a long round, each is written to its folder as soon as it is solved
        to_folders = not (self.disk and self.in_process) or (
            self.last_round_seconds >= DURABLE_ROUND_SECONDS)
        solve_at = self.solved_weights(weights)
        self.slots_done, self.slots_total = 0, n_weights * rnd.repeats
        start = time.perf_counter()
        outcomes: list[SolveOutcome] = []
        for call in range(rnd.repeats):
            last = call == rnd.repeats - 1
            tasks = [SolveTask(slot, as_weight(w), state,
                               self.save_folder(index, slot, call, last) if to_folders
                               else None)
                     for slot, w, state in zip(slots, solve_at, states, strict=True)]
            outcomes = self.run_tasks(tasks, index, call)
            states = [o.solution.state for o in outcomes if o.solution is not None]
            self.progress.n_solves += len(outcomes)
            self.progress.n_steps += count_steps([o.solution for o in outcomes
                                                  if o.solution is not None])
        seconds = time.perf_counter() - start
        sols = [o.solution for o in outcomes if o.solution is not None]
        self.unsuccessful = [(slot, str(sol.info.get("message", "")))
                             for slot, sol in zip(slots, sols, strict=False)
                             if sol.info.get("success") is False]
        self.last_infos = [s.info for s in sols]
        sizes = {s.objectives.size for s in sols}
        if len(sizes) != 1:
            raise ValueError(f"the solver returned objective vectors of sizes {sorted(sizes)} "
                             f"in round {index}")
        points = np.stack([s.objectives for s in sols])
        m = points.shape[1]
        wanted = self.method.n_objectives
        if wanted is None and weights.ndim == 1:
            wanted = 2                  # a scalar weight w trades off exactly two objectives
        if wanted is not None and m != wanted:
            what = ("the two objectives to trade off, both minimized" if wanted == 2 else
                    f"the {wanted} objectives to trade off, all minimized")
            raise ValueError(
                f"{self.method.label} spaces points along a front of {wanted} objectives; the "
                f"solver returned {m} (objective vectors of shape ({m},)). Return {what}")
        if self.progress.n_objectives is None:
            self.progress.n_objectives = m
        elif m != self.progress.n_objectives:
            raise ValueError(f"the solver returned {m} objectives in round {index}, but "
                             f"{self.progress.n_objectives} before")
        keys = [self.pool.add(s) for s in states]
        if self.disk:
            self.unsaved_states.update(
                (key, (index, slot)) for key, slot, s in zip(keys, slots, states, strict=True)
                if s is not None and not isinstance(s, StateFolder))
        estimates = self.average(slots, weights, points)
        anchors = anchor_rows(weights)
        if anchors is not None:
            self.spacing.fit(estimates, anchors=anchors)
        else:
            front_weights, front_points, _ = self.method.front()
            self.spacing.fit(front_points,
                             anchors=anchor_rows(np.asarray(front_weights, dtype=np.float64)))
        coordinates = self.spacing(estimates)
        return RoundOutcome(weights, points, keys, [s.info for s in sols], estimates,
                            coordinates), seconds

    def average(self, slots: Sequence[int], weights: FloatArray,
                points: FloatArray) -> FloatArray:
        """Each slot's objectives averaged across rounds (see :func:`moving_average`)."""
        rate = self.moving_average
        if rate is None:
            return points
        out = np.empty_like(points)
        # one average gap between weights (for weight vectors, of a lattice of that size)
        spacing = (1.0 / max(len(slots) - 1, 1) if weights.ndim == 1 else
                   len(slots) ** (-1.0 / max(weights.shape[1] - 1, 1)))
        for i, slot in enumerate(slots):
            previous = self.averages.get(slot)
            out[i] = moving_average_step(points[i], weights[i], previous, rate, spacing)
            self.averages[slot] = np.append(out[i], weights[i])
        return out

    def front(self, reported: ReportedFront | None = None
              ) -> tuple[FloatArray, FloatArray, FloatArray, list[int | None]]:
        """The method's points: weights as solved, objectives, their coordinates, keys; or
        those of ``reported``, an earlier round's (measured as the last round was)."""
        if reported is not None:
            return (self.solved_weights(np.array(reported.weights, dtype=np.float64)),
                    reported.points, self.spacing(reported.points), reported.keys)
        weights, points, keys = self.method.front()
        coords = points
        if points.ndim == 2 and points.shape[1] > 0:
            ends = anchor_rows(np.asarray(weights, dtype=np.float64))
            self.spacing.fit(points, anchors=ends)
            coords = self.spacing(points)
        return self.solved_weights(np.array(weights, dtype=np.float64)), points, coords, keys

    def record(self, index: int, started: float, solve_seconds: float) -> IterationRecord:
        weights, points, coords, _ = self.front()
        estimate, alpha = self.method.cdf_update()
        ideal = self.observe(points)
        return IterationRecord.from_points(
            index, weights, points, coords=coords, cdf=self.method.cdf,
            seconds=time.perf_counter() - started, solve_seconds=solve_seconds,
            n_solves=self.progress.n_solves, n_steps=self.progress.n_steps,
            weight_change=self.method.weight_change(), cdf_estimate=estimate, alpha=alpha,
            ideal=ideal)

    def observe(self, points: FloatArray) -> FloatArray | None:
        """Show a round's points to a solver that follows them (``observe(points)``: a
        Tchebycheff scalarization moves its ideal point below every value found); returns
        its ideal point then, if it has one. Called in this process, in round order, and
        again for every saved round on resume, so that a resumed run's solver is as the
        uninterrupted run's."""
        observe = getattr(self.solver, "observe", None)
        if not callable(observe) or points.ndim != 2 or points.shape[1] == 0:
            return None
        observe(np.array(points, dtype=np.float64))
        ideal = getattr(self.solver, "ideal", None)
        return None if ideal is None else np.array(ideal, dtype=np.float64)

    # ------------------------------------------------------------------ results and saves
    def reports_most_even(self) -> bool:
        """Whether the result reports the most even of the last rounds (the ``report``
        option; "auto": with three or more objectives)."""
        if self.report == "last" or not self.method.front_is_last_round:
            return False
        if self.report == "most-even":
            return True
        m = self.progress.n_objectives
        return m is not None and m >= 3

    def reported_front(self) -> ReportedFront | None:
        """The earlier round the result reports, or ``None`` for the method's front."""
        return self.keeper.reported() if self.reports_most_even() else None

    def live_keys(self) -> list[int | None]:
        """The keys of the states the run keeps: the method's and the candidate rounds'."""
        keys = self.method.live_keys()
        return [*keys, *self.keeper.keys()] if self.reports_most_even() else keys

    def result(self) -> SurfResult:
        reported = self.reported_front()
        weights, points, coords, keys = self.front(reported)
        shown = None if reported is None else reported.round
        p = self.progress
        findings = []
        diagnosed, diagnosed_coords = points, coords
        if (reported is None and self.moving_average is not None and points.ndim == 2
                and set(self.averages) == set(range(len(points)))):
            # with averaging the run's view of the front is the slots' averaged estimates:
            # their order and dominance, not one round's noise, tell whether it is sound
            m = points.shape[1]
            diagnosed = np.stack([self.averages[slot][:m] for slot in range(len(points))])
            diagnosed_coords = self.spacing(diagnosed)
        if p.history:
            # a jump shows in the history too (a slot whose point crosses a gap, round to
            # round); a point beaten at its own weight is unconverged only under weighted sums
            scalarization, ideal = declared_scalarization(self.solver)
            findings = diagnose(weights, diagnosed, diagnosed_coords,
                                normalize=self.spacing.kind,
                                moving_average=self.moving_average,
                                ordered=self.method.ordered,
                                history=p.history if shown is None else p.history[:shown + 1],
                                weighted_sum=scalarization == "linear",
                                aims_even=self.method.aims_even,
                                scalarization=scalarization, ideal=ideal)
            if not any(f.code in ("constant", "stuck") for f in findings):   # (no front)
                findings += self.method.findings()
            extra = solver_findings(
                weights, diagnosed, diagnosed_coords,
                history=p.history if shown is None else p.history[:shown + 1],
                infos=self.last_infos if reported is None else [],
                scalarization=scalarization, ideal=ideal,
                aims_even=self.method.aims_even, found=findings)
            findings = [*revise(findings, extra), *extra]
            if reported is None and self.unsuccessful:
                findings += _unsuccessful(self.unsuccessful, len(weights))
            findings += _ideal_beaten(self.solver)
            findings += self.spacing_findings(shown, findings)
            if (reported is None and p.stop_reason == "iterations" and weights.ndim == 1
                    and not any(f.code in ("jump", "uneven", "no_minimizer", "stuck")
                                for f in findings)):
                findings += _unsettled(self.method.convergence_change(), len(weights),
                                       self.method.settings().get("alpha"))
        collapsed = any(f.code in STRUCTURAL - {"reversed"} for f in findings)
        record = p.history[-1 if shown is None else shown] if p.history else None
        cv = math.nan if record is None else record.cv
        ratio = math.nan if record is None else record.gap_ratio
        success, message = success_and_message(
            self.method.label, len(weights), cv, ratio, findings,
            notes=() if reported is None else (reported.note,))
        if not p.history:
            success, message = False, f"{self.method.label}: no round was run"
        return SurfResult(
            method=self.method.name, label=self.method.label,
            settings=self.settings(), weights=weights, points=points,
            states=[self.pool.get(k) for k in keys], cdf=self.method.cdf,
            history=p.history, n_solves=p.n_solves, n_steps=p.n_steps,
            converged=(p.converged or self.method.converged) and not collapsed,
            stop_reason=p.stop_reason or "not started", success=success, message=message,
            findings=findings, reported_round=shown)

    def spacing_findings(self, shown: int | None,
                         findings: Sequence[Finding] = ()) -> list[Finding]:
        """The ``uneven`` finding when the reported round (``shown``; ``None``: the last) is
        less even than the run's target; none beside a finding that already says why the
        points cannot be even (a jump, a collapse: ``STRUCTURAL``)."""
        history = self.progress.history
        if not history or any(f.code in STRUCTURAL for f in findings):
            return []
        upto = history if shown is None else history[:shown + 1]
        surface = np.ndim(upto[-1].weights) == 2
        target = self.target if self.target is not None else DEFAULT_TARGETS[
            "surface" if surface else "curve"]
        found = uneven_finding(
            upto[-1].gap_ratio, target, surface=surface, aims_even=self.method.aims_even,
            out_of_rounds=self.progress.stop_reason == "iterations",
            ratios=[r.gap_ratio for r in upto], rounds=len(history))
        return [] if found is None else [found]

    def save_state(self, final: SurfResult | None = None) -> None:
        """Checkpoint the run; ``final``: the finished run's result, whose success, message
        and findings the saved result then carries (an unfinished run's say so)."""
        assert self.folder is not None
        p = self.progress
        method_meta, method_arrays = self.method.state_dict()
        pool_meta, pool_arrays = self.pool.to_parts(root=self.folder.path)
        reported = self.reported_front()
        weights, points, _, keys = self.front(reported)
        cdf = self.method.cdf
        view_meta = {"kind": "result", "method": self.method.name, "label": self.method.label,
                     "settings": self.settings(), "n_solves": p.n_solves,
                     "n_steps": p.n_steps,
                     "converged": p.converged or self.method.converged,
                     "stop_reason": p.stop_reason or "not finished",
                     "cdf": (None if cdf is None else "last record"
                             if p.history and cdf is p.history[-1].cdf else cdf.to_dict()),
                     "state_keys": keys, "success": False,
                     "reported_round": None if reported is None else reported.round,
                     "message": (f"{self.method.label}: the run in {self.folder.path} was "
                                 f"stopped after round {len(p.history)} and can be resumed")}
        if final is not None:
            view_meta.update(success=final.success, message=final.message,
                             findings=[f.to_dict() for f in final.findings],
                             converged=final.converged, stop_reason=final.stop_reason)
        view_arrays = {"weights": weights, "points": points}
        meta = {"n_solves": p.n_solves, "n_steps": p.n_steps, "converged": p.converged,
                "stop_reason": p.stop_reason, "n_objectives": p.n_objectives,
                "averages": {str(k): v.tolist() for k, v in self.averages.items()},
                "method_state": method_meta, "pool": pool_meta, "result": view_meta}
        arrays = {**{f"method/{k}": v for k, v in method_arrays.items()}, **pool_arrays,
                  **view_arrays}
        if self.reports_most_even():
            meta["kept_rounds"], kept_arrays = self.keeper.state_dict()
            arrays.update({f"kept/{k}": v for k, v in kept_arrays.items()})
        self.folder.save_state(len(p.history), meta, arrays)

    def checkpoint_due(self) -> bool:
        """Whether the rounds since the last checkpoint have run long enough for the next one
        (see :data:`CHECKPOINT_SHARE`)."""
        if self.period is not None:
            wait = self.period
        elif self.checkpoint_seconds is None:
            wait = FIRST_CHECKPOINT_SECONDS / CHECKPOINT_SHARE
        else:
            wait = self.checkpoint_seconds / CHECKPOINT_SHARE
        return self.unsaved_seconds >= wait

    def checkpoint(self, final: SurfResult | None = None) -> None:
        """Save the rounds run since the last checkpoint: their solve-log lines and history
        lines, then the state (and the states of a disk-state solver still in memory into
        their folders, and the folders no longer needed pruned). Without a run folder only the
        state folders are looked after."""
        started = time.perf_counter()
        if self.folder is not None:
            with self.folder.writing("the solver's state folders (states/)"):
                self.persist_states()    # (without a run folder, they may stay in memory)
            if self.unsaved_seconds > 0:
                # fsync only rounds that cost more to redo than to sync
                self.folder.durable = self.unsaved_seconds >= DURABLE_ROUND_SECONDS
            self.write_solve_log()
            self.folder.append_rounds(self.saved_rounds, [
                (r.scalars(), r.arrays()) for r in self.progress.history[self.saved_rounds:]])
            self.save_state(final)
        self.saved_rounds = len(self.progress.history)
        self.prune_state_folders()
        if self.folder is not None:
            self.fallback_folders = self.pool_folders()   # the state just saved names these
        self.unsaved_seconds = 0.0
        self.checkpoint_seconds = time.perf_counter() - started

    def write_solve_log(self) -> None:
        """Append the solve-log lines kept since the last write."""
        if self.folder is not None and self.unsaved_solves:
            self.folder.append_solves(self.unsaved_solves)
            self.unsaved_solves = []

    def persist_states(self, keys: Iterable[int] | None = None) -> None:
        """Save into their folders the kept states of a disk-state solver that are still in
        memory (returned in this process in rounds that were not checkpointed): all of them,
        or those of ``keys``. They stay in memory for the next round's first use."""
        kept = set(self.pool.keys())
        for key in list(self.unsaved_states) if keys is None else list(keys):
            where = self.unsaved_states.pop(key, None)
            if where is not None and key in kept:
                self.resident[key] = state = self.pool.get(key)
                self.pool.replace(key, save_state(self.solver, state,
                                                  self.state_folder(*where)))

    def pool_folders(self) -> set[Path]:
        """The state folders the pool names."""
        return {Path(st.path) for st in (self.pool.get(k) for k in self.pool.keys())
                if isinstance(st, StateFolder)}

    def prune_state_folders(self, *, stale: bool = False) -> None:
        """Delete the state folders that neither the pool nor the state saved before the last
        one names (so a state file never names a pruned folder); only the run's own
        ``states/`` is touched. ``stale``: also the temporary folders of saves a killed run
        left half done (on resume, when no one else writes the folder)."""
        if self.state_root is None or not self.state_root.is_dir():
            return
        kept = self.pool_folders() | self.fallback_folders
        for group in self.state_root.iterdir():
            if not group.is_dir() or not (group.name.startswith("round-")
                                          or group.name == "init"):
                continue
            for folder in group.iterdir():
                if not folder.is_dir() or folder in kept:
                    continue
                if stale or not folder.name.startswith("."):
                    shutil.rmtree(folder, ignore_errors=True)
            if not any(group.iterdir()):
                group.rmdir()

    def finish(self, result: SurfResult | None) -> None:
        """Without a run folder, states on disk lived in a temporary folder: load the final
        ones into the result (if there is one) and delete it."""
        if self.temp_root is None:
            return
        try:
            if result is not None:
                result.states = [load_state(self.solver, st) for st in result.states]
        finally:
            remove_owned_tempdir(self.temp_root)
            self.temp_root = None

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
            record = self.record(index, started, solve_seconds)
            if self.reports_most_even():
                self.keeper.tell(*self.method.front(), record.gap_ratio)
            self.pool.keep(self.live_keys())
            p.history.append(record)
            if tol is not None and self.method.convergence_change() < tol:
                p.converged = True
                p.stop_reason = "converged"
            self.last_round_seconds = time.perf_counter() - started
            self.unsaved_seconds += self.last_round_seconds
            if self.checkpoint_due():
                self.checkpoint()
            self.postfix = {"cv": f"{record.cv:.4f}", "gap_ratio": f"{record.gap_ratio:.3f}"}
            bar.update(1)
            bar.set_postfix(**self.postfix)
            if callback is not None and callback(record) is True:
                p.stop_reason = "callback"     # saved by the run's final checkpoint


def _inside(path: str | Path, folder: Path) -> bool:
    """Whether ``path`` lies inside ``folder`` (symbolic links resolved)."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(folder))


def _unsuccessful(failed: list[tuple[int, str]], n_points: int) -> list[Finding]:
    """The finding that solves of the last round reported failure (``info["success"]``)."""
    slot, message = failed[0]
    said = f": slot {slot} says {message!r}" if message else f" (slot {slot})"
    return [Finding("unsuccessful", f"{len(failed)} of the last round's {n_points} solves "
                    f"report failure (info['success'] is False){said}; their points may be "
                    "far from the optimum at their weights",
                    remedy="check the solver's settings (more iterations, a looser "
                           "tolerance; a smooth optimizer on a non-smooth objective fails so)",
                    slots=tuple(s for s, _ in failed),
                    summary=f"{len(failed)} of {n_points} solves reported failure")]


def declared_scalarization(solver: Any) -> tuple[str, FloatArray | None]:
    """The scalarization a solver says it minimizes and its ideal point: its ``scalarization``
    attribute's ``kind`` (a :class:`~paretosurf.adapters.Scalarization`, or a plain callable's
    attribute of that name) and its ``ideal`` (or the scalarization's); a solver that says
    nothing minimizes the weighted sum, as the paper's solvers do."""
    for obj in (solver, users_solver(solver)):
        sc = getattr(obj, "scalarization", None)
        kind = getattr(sc, "kind", sc)
        if isinstance(kind, str):
            ideal = getattr(obj, "ideal", None)
            if ideal is None:
                ideal = getattr(sc, "ideal", None)
            return kind, None if ideal is None else np.asarray(ideal, dtype=np.float64)
    return "linear", None


def _ideal_beaten(solver: Any) -> list[Finding]:
    """The finding that the run found points below the ideal point the user gave a
    Tchebycheff scalarization (its ``ideal_beaten``: the objectives concerned)."""
    beaten = tuple(getattr(solver, "ideal_beaten", ()) or ())
    if not beaten or not getattr(solver, "ideal_given", False):
        return []
    which = " and ".join(f"objective {m + 1}" for m in beaten)
    return [Finding(
        "ideal", f"the run found points below the ideal point given to the solver in {which}: "
        "a Tchebycheff scalarization spaces and reaches the front only from an ideal point at "
        "or below every objective value, so its points are not what the weights ask for",
        remedy="let the solver estimate its ideal point (ideal=None), or give one below "
               "every objective value", summary=f"points below the given ideal in {which}")]


#: Findings that say why a front's points cannot be even (no ``uneven`` finding beside them).
STRUCTURAL = frozenset({"constant", "reversed", "collapsed", "jump", "unconverged", "stuck",
                        "no_minimizer", "local_minima"})
#: Findings said in the result's message and findings only, not warned: a short budget
#: is often chosen on purpose (a first look, a test), and the message says what it cost.
QUIET_FINDINGS = frozenset({"unsettled"})
def _quiet(finding: Finding, stop_reason: str) -> bool:
    """Whether ``finding`` is said in the result's message and findings only, not warned: a
    budget that ran out (``unsettled``, and ``uneven`` after the iterations ran out: a short
    run is often chosen on purpose), and a baseline's unevenness (it does not aim at it)."""
    return finding.code in QUIET_FINDINGS or (finding.code == "uneven" and (
        not finding.fatal or stop_reason in ("iterations", "callback")))


#: A run stopped by its iterations whose next full step would still move a weight by more
#: than this share of the even spacing 1 / N is reported as not settled.
UNSETTLED_SHARE = 0.25


def _unsettled(change: float, n_points: int, alpha: Any = None) -> list[Finding]:
    """The advice that the weights were still moving when the iterations ran out; ``alpha``:
    the method's damping setting (``None`` for a method without one), which decides whether
    ``alpha='auto'`` is worth naming."""
    spacing = 1.0 / max(n_points - 1, 1)
    if not math.isfinite(change) or change <= UNSETTLED_SHARE * spacing:
        return []
    remedy = "run more rounds ({resume} with more {iterations})"
    options: dict[str, Any] = {"resume": True, "iterations": None}
    if alpha is not None and alpha != "auto":
        remedy += " or {alpha}"
        options["alpha"] = "auto"
    return [Finding("unsettled", f"the weights were still moving when the iterations ran "
                    f"out: a full step would move one by {change:.3g} ({change / spacing:.0%} "
                    "of the even spacing), so the points are not yet as even as they will be",
                    fatal=False, remedy=remedy, options=options,
                    summary=f"the weights were still moving ({change / spacing:.0%} of the "
                            "even spacing)")]


#: Whether an interrupted run with a folder tells on stderr how to resume it (a front end
#: with its own resume command, such as ``paretosurf run``, turns it off).
_INTERRUPT_NOTICE: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "paretosurf_interrupt_notice", default=True)


#: Notes a front end records in the manifest of the runs it starts (see :func:`run_notes`).
_RUN_NOTES: contextvars.ContextVar[Mapping[str, Any] | None] = contextvars.ContextVar(
    "paretosurf_run_notes", default=None)


@contextlib.contextmanager
def run_notes(notes: Mapping[str, Any]) -> Iterator[None]:
    """Within this context, a new run records ``notes`` (JSON-able) in its folder's
    ``run.json`` under ``"notes"``: for front ends that keep settings of their own with the
    run (``paretosurf run`` keeps its command line's). Resuming does not check them."""
    token = _RUN_NOTES.set(dict(notes))
    try:
        yield
    finally:
        _RUN_NOTES.reset(token)


@contextlib.contextmanager
def without_interrupt_notice() -> Iterator[None]:
    """Within this context an interrupted run (Ctrl-C) does not print how to resume it: for
    front ends that print their own resume command."""
    token = _INTERRUPT_NOTICE.set(False)
    try:
        yield
    finally:
        _INTERRUPT_NOTICE.reset(token)


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
    retries: int = 1,
    allow_pickle: bool = False,
    checkpoint_period: float | str = "auto",
    report: str = "auto",
    target: float | None = None,
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
        Round limit (at least 1), counting the rounds already in a resumed checkpoint;
        ``None``: until the method finishes (its :meth:`Method.propose` returns ``None``).
        With ``resume``, 0 returns the saved run's result without solving.
    init_states : sequence, optional
        Warm starts for the first round; the method says how many it takes.
    tol : float, optional
        Stop once :meth:`Method.weight_change` drops below ``tol``.
    executor : Executor, optional
        Runs a round's solves (default :class:`~paretosurf.executors.LocalExecutor`).
    checkpoint : path, optional
        Run folder; the run is saved there after every round, or after every few rounds when
        they are short (see ``checkpoint_period`` and :mod:`paretosurf.checkpoint`).
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
        Called with each round's :class:`IterationRecord` after the round (and its checkpoint,
        if one is due); returning ``True`` stops the run.
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
    retries : int
        How many times a failed solve (an exception, non-finite objectives, a killed worker)
        is tried again, on its own, before the run stops with an error naming the slot, the
        weight, the attempt and the original error; the last checkpoint stays as it was.
    allow_pickle : bool
        Let ``resume`` unpickle solver states that nothing else could store (see
        :mod:`paretosurf.states`). Unpickling runs code: only for folders you trust.
    checkpoint_period : "auto" or float
        Seconds of running between checkpoints; 0 saves after every round. ``"auto"``
        (default) saves every round that ends at least ``1 / CHECKPOINT_SHARE`` (100) times
        the last checkpoint's cost after it (the first: half a second into the run, see
        ``FIRST_CHECKPOINT_SECONDS``): every round when solves take a second or more, every
        few rounds when they take milliseconds, so that checkpoints cost about 1% of the run,
        and a killed run loses at most that much solving. The last round is always saved.
    report : {"auto", "last", "most-even"}
        Which round's weights, points and states the result reports: the last, or the most
        even of the last :data:`~paretosurf.kept_rounds.KEEP_ROUNDS` (the lowest largest over
        smallest gap of the round's own points, not their ``moving_average``, in the run's
        coordinates: the records' ``gap_ratio``; the states of the candidate rounds are kept
        until then). ``"auto"`` (default): the
        most even with three or more objectives (whose layouts swing now and then), the last
        otherwise. ``"most-even"`` suits solvers whose solutions, not only their estimates,
        vary from call to call (deep RL): with points that are exact solutions plus
        evaluation noise it would choose on the noise, and the result's figures would flatter
        it. Only methods whose points are the last round's, one per slot (SURF, Uniform-w,
        Random-w, UMOD), report an earlier round; the others always report their front.

    target : float, optional
        The spacing the result must reach: the largest gap over the smallest, between
        consecutive points (two objectives) or nearest neighbours (a surface), in the run's
        coordinates (``normalize``), measured on the reported round. Default: 2 on a curve,
        3 on a surface. A method that aims at even spacing (SURF) fails (``success=False``,
        finding ``"uneven"``) above it, naming how many more rounds its recent progress
        suggests; for the others, unevenness is advice. Not a setting of the run: resuming
        may change it.

    Solver states. A solver with ``save_state(state, folder)`` and ``load_state(folder)``
    keeps its states as folders: in ``checkpoint``'s ``states/`` (the result's ``states`` are
    then :class:`~paretosurf.states.StateFolder` paths there), or, without a checkpoint, in a
    temporary folder that the run deletes after loading the final states into the result.
    Solve tasks get folder paths, so nothing model-sized is pickled on its way to a worker.

    Interrupting (Ctrl-C) leaves the last checkpoint, and says how to resume from it; the
    attempts of the rounds after it are still logged in ``solves.jsonl``. A run closes the
    executor's resources (worker pools) that it started itself.

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
        if iterations == 0 and not resume:
            raise ValueError("iterations must be at least 1 (0 would solve nothing; to read a "
                             "saved run, use SurfResult.load)")
    n_retries = check_non_negative_int(retries, name="retries")
    period = check_checkpoint_period(checkpoint_period)
    report = check_report(report)
    spacing = Spacing(normalize)
    rate = check_moving_average(moving_average)
    bounds = check_weight_bounds(weight_bounds)
    folder = RunFolder(checkpoint) if checkpoint is not None else None
    inner = as_solver(solver)
    if (folder is None and has_disk_states(inner)
            and getattr(executor, "address", None) not in (None, "local")):
        raise ValueError(
            "a solver that keeps its states in folders (save_state/load_state) on a cluster "
            "needs checkpoint=DIR on a filesystem every node sees: without it the states would "
            "live in a temporary folder of this machine only")
    runner = _Runner(method, inner, executor, folder, spacing, rate, bounds,
                     n_retries, bool(allow_pickle), period, report, check_target(target))
    if folder is not None:
        folder.acquire()               # one process writes a run folder: held to the end
    try:
        return _run_holding(runner, iterations, tol, callback, progress, init_states, resume,
                            overwrite)
    except BaseException:
        runner.finish(None)
        raise
    finally:
        if folder is not None:
            folder.release()


def _run_holding(runner: _Runner, iterations: int | None, tol: float | None,
                 callback: Callback | None, progress: bool,
                 init_states: Sequence[Any] | None, resume: bool,
                 overwrite: bool) -> SurfResult:
    """:func:`run` once its options are checked and its run folder (if any) is held."""
    method, folder = runner.method, runner.folder
    if folder is not None and folder.holds_run():
        if resume:
            runner.restore(init_states)
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
    if iterations is not None and done > iterations > 0:    # (0 with resume: read the run)
        warnings.warn(
            f"{method.label}: the run in {folder.path if folder else 'the checkpoint'} already "
            f"holds {done} rounds, more than iterations={iterations}; its result after {done} "
            "rounds is returned (a run cannot be shortened: start a new one for fewer)",
            SurfWarning, stacklevel=4)
    bar = progress_bar(progress, total=iterations, desc=method.label, unit="round",
                       initial=done if iterations is None else min(done, iterations))
    runner.bar = bar if progress else None
    start = getattr(runner.lifecycle, "start", None)
    started = bool(start()) if callable(start) else False
    try:
        runner.loop(iterations, tol, callback, bar)
    except BaseException as exc:
        # the checkpoint stays as it was (the method may be half-way through a round); every
        # attempt made since it is still logged
        with contextlib.suppress(OSError):
            runner.write_solve_log()
        saved = (f"is saved after round {runner.saved_rounds}" if runner.saved_rounds
                 else "stopped before its first checkpoint")
        if isinstance(exc, KeyboardInterrupt) and folder is not None and (
                _INTERRUPT_NOTICE.get()):
            sys.stderr.write(
                f"\nparetosurf: interrupted; {method.label}'s run in {folder.path} {saved}; "
                "run the same call with resume=True to continue it\n")
        elif isinstance(exc, ExecutorLostError) and folder is not None:
            exc.add_note(f"{method.label}'s run in {folder.path} {saved}")
        raise
    finally:
        bar.close()
        if folder is not None:
            folder.close()
        if started:
            runner.lifecycle.close()
    if folder is not None and runner.progress.history:
        with folder.writing("the solver's state folders (states/)"):
            runner.persist_states()    # the result's states are then the run's folders
    result = runner.result()
    if folder is not None and runner.progress.history:
        runner.checkpoint(final=result)
        folder.close()
    runner.finish(result)
    for finding in result.findings:
        if not _quiet(finding, result.stop_reason):
            warnings.warn(f"{result.label}: {finding.message}", SurfWarning, stacklevel=3)
    return result

