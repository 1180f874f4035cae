"""The loop every method runs in: rounds of solves, budget, records, checkpoints, resume.

A *method* (SURF, Uniform-w, OLS, ...) only decides where to solve: it subclasses
:class:`Method` and

- proposes the next :class:`Round` (the weights to solve, and which stored solver state
  warm-starts each of them),
- takes the round's :class:`RoundOutcome` (the points found and the keys of the new states),
- reports its current points (:meth:`Method.front`), and
- saves and restores its own state (JSON-able numbers plus arrays).

:func:`run` owns everything else, the same way for every method: solving a round's slots through
the executor, retries, timing, budget accounting (solves and steps), the
:class:`IterationRecord`, the callback, ``tol``, the progress bar, checkpoints and resuming from
them. It knows nothing about CDFs or scalarizations: what a method adds to its records and
result comes through :meth:`Method.record_extras` and :meth:`Method.result_extras`. Around the
loop:

- :class:`~paretosurf.checkpoint.Checkpointer`: when the run saves itself (after every round,
  or amortized over rounds too short to save each one), and the saving;
- :class:`~paretosurf.states.StatePool` (the states, by key: methods hold keys) and
  :class:`~paretosurf.states.DiskStates` (a disk-state solver's folders);
- :mod:`paretosurf.spacing_options`: ``weight_bounds`` and ``moving_average``;
- :func:`paretosurf.solver_findings.diagnose_run`: the result's findings;
- :mod:`paretosurf._validation`: the checks of the loop's options.

Adding a method is one class; ``baselines/uniform.py`` is the shortest example to copy.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import sys
import time
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypedDict

import numpy as np
from numpy.typing import NDArray

from paretosurf._progress import progress_bar
from paretosurf._validation import (
    check_moving_average,
    check_non_negative_int,
    check_run_options,
    check_weight_bounds,
)
from paretosurf.checkpoint import Checkpointer
from paretosurf.executors import (
    Executor,
    ExecutorLostError,
    LocalExecutor,
    SolveOutcome,
    SolveTask,
    raise_for,
    solves_in,
)
from paretosurf.findings import (
    STRUCTURAL,
    Finding,
    SurfWarning,
    check_target,
    is_quiet,
    success_and_message,
)
from paretosurf.kept_rounds import ReportedFront, RoundKeeper, check_report
from paretosurf.result import IterationRecord, SurfResult, history_from_parts, view_extras
from paretosurf.run_folder import RunFolder
from paretosurf.solver_findings import diagnose_run
from paretosurf.solvers import (
    SolverLike,
    as_solver,
    as_weight,
    count_steps,
    solver_name,
    users_solver,
)
from paretosurf.spacing import Spacing
from paretosurf.spacing_options import MovingAverage, anchor_rows, solved_weights
from paretosurf.states import DiskStates, StatePool, trusted_state_classes

# the driver's own public names (StatePool, Checkpointer, SurfWarning and the validators it
# imports stay importable from here for older code, but live in states, checkpoint, findings
# and _validation)
__all__ = [
    "Callback",
    "Method",
    "ReportedFront",
    "Round",
    "RoundOutcome",
    "RunOptions",
    "run",
    "run_notes",
    "without_interrupt_notice",
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
    def load_state_dict(
        self,
        meta: Mapping[str, Any],
        arrays: Mapping[str, NDArray[Any]],
        history: Sequence[IterationRecord],
    ) -> None:
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

    def record_extras(self) -> dict[str, Any]:
        """What the method adds to the round's :class:`IterationRecord`: keyword arguments of
        :meth:`IterationRecord.from_points` (SURF: its CDF ``cdf``, the round's estimate
        ``cdf_estimate`` and damping ``alpha``); default none."""
        return {}

    def result_extras(self) -> dict[str, Any]:
        """What the method adds to its result: keyword arguments of :class:`SurfResult`
        (SURF: its CDF ``cdf``); default none."""
        return {}

    def settle_options(self) -> dict[str, Any]:
        """Settings that would settle the weights in fewer rounds, named in the advice of a
        run whose weights were still moving when its iterations ran out (SURF with a fixed
        damping: ``{"alpha": "auto"}``); default none."""
        return {}

    @property
    def converged(self) -> bool:
        """Whether the method stopped because nothing is left to improve."""
        return False


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
    checkpoint_period: float | str | Checkpointer
    report: str
    target: float | None


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
    """One call of :func:`run`: the loop and the glue between the method, the solver, the
    executor, the state pool and the checkpointer."""

    def __init__(
        self,
        method: Method,
        solver: Any,
        executor: Any,
        folder: RunFolder | None,
        spacing: Spacing,
        moving_average: float | None,
        weight_bounds: tuple[float, float] | None,
        retries: int,
        allow_pickle: bool,
        checkpointer: Checkpointer,
        report: str = "auto",
        target: float | None = None,
    ) -> None:
        if report == "most-even" and not method.front_is_last_round:
            raise ValueError(
                f"report='most-even' needs a method whose points are its last "
                f"round's, one per slot; {method.label}'s are not"
            )
        self.method = method
        self.solver = solver
        self.executor: Any = LocalExecutor() if executor is None else executor
        self.folder = folder
        self.spacing = spacing
        self.average = MovingAverage(moving_average)
        self.weight_bounds = weight_bounds
        self.retries = retries
        self.allow_pickle = allow_pickle
        self.report = report
        #: The spacing target of the result (``None``: the front's default).
        self.target = target
        self.checkpointer = checkpointer
        checkpointer.start(folder)
        self.pool = StatePool()
        self.disk = DiskStates(solver, folder, in_process=solves_in(self.executor) == "process")
        self.progress = _Progress()
        #: The candidates for the reported round (see :mod:`paretosurf.kept_rounds`).
        self.keeper = RoundKeeper()
        #: The last round's solves whose info says success=False: (slot, message); and the
        #: info of each of its solves.
        self.unsuccessful: list[tuple[int, str]] = []
        self.last_infos: list[dict[str, Any]] = []
        self.postfix: dict[str, str] = {}
        self._settings: dict[str, Any] | None = None
        self.slots_done = self.slots_total = 0
        self.bar: Any = None

    # ------------------------------------------------------------------ set-up
    def settings(self) -> dict[str, Any]:
        """The method's settings and the loop's options that change results (fixed for the
        run, so computed once)."""
        if self._settings is None:
            self._settings = {
                **self.method.settings(),
                "normalize": self.spacing.setting(),
                "moving_average": self.average.rate,
                "report": self.report,
                "weight_bounds": (None if self.weight_bounds is None else list(self.weight_bounds)),
            }
        return dict(self._settings)

    def manifest(self) -> dict[str, Any]:
        notes = _RUN_NOTES.get()
        return {
            "method": self.method.name,
            "label": self.method.label,
            "settings": self.settings(),
            "solver": solver_name(self.solver),
            **({"notes": dict(notes)} if notes else {}),
        }

    def start_fresh(self, init_states: Sequence[Any] | None, *, created: bool = False) -> None:
        """Start the run from ``init_states``; ``created``: its folder already holds its
        manifest (a run resumed before its first checkpoint)."""
        if init_states is not None and (
            isinstance(init_states, (str, bytes)) or not isinstance(init_states, Sequence)
        ):
            raise TypeError(
                "init_states must be a sequence of warm starts (None for a cold "
                f"start) or None, got {type(init_states).__name__}"
            )
        if self.folder is not None and not created:
            self.folder.create(self.manifest())
        keys: list[int | None] | None = None
        if init_states is not None:
            keys = []
            seen: dict[int, int] = {}  # id of a state object -> its key
            for slot, state in enumerate(init_states):
                if state is None:
                    keys.append(None)
                elif id(state) in seen:
                    # one object given for several slots ([x0] * (n + 1)) is one warm start
                    # shared by them: each further slot gets its own copy (Pool.take), so
                    # that a solver updating its state in place cannot tie the slots together
                    keys.append(seen[id(state)])
                else:
                    key = seen[id(state)] = self.pool.add(state)
                    keys.append(key)
                    self.disk.add_warm_start(self.pool, key, state, slot)
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
            self.disk.resumed(None, None)  # no saved state names any of its folders
            self.start_fresh(init_states, created=True)
            return
        meta, arrays = saved.meta, saved.arrays
        history = history_from_parts(saved.records)
        self.progress = _Progress(
            history,
            int(meta["n_solves"]),
            int(meta["n_steps"]),
            bool(meta["converged"]),
            meta.get("stop_reason"),
            meta.get("n_objectives"),
        )
        self.pool = StatePool.from_parts(
            meta["pool"],
            arrays,
            root=self.folder.path,
            allow_pickle=self.allow_pickle,
            where=f"checkpoint {self.folder.path}",
            state_classes=trusted_state_classes(users_solver(self.solver)),
        )
        for record in history:  # the solver sees the saved rounds again, in order
            self.observe(record.points)
        self.average.load_meta(meta.get("averages", {}))
        self.checkpointer.saved_rounds = len(history)
        self.method.load_state_dict(meta["method_state"], _part(arrays, "method/"), history)
        if "kept_rounds" in meta:
            self.keeper.load_state_dict(meta["kept_rounds"], _part(arrays, "kept/"))
        else:  # saved with no candidates: the next round is the first that competes
            self.keeper.rounds = len(history)
        self.disk.resumed(self.pool, saved.fallback)

    def check_same_run(self, manifest: Mapping[str, Any]) -> None:
        assert self.folder is not None
        where = f"checkpoint {self.folder.path}"
        if manifest.get("method") != self.method.name:
            raise ValueError(
                f"{where} holds a {manifest.get('label', manifest.get('method'))} run; cannot "
                f"resume it as {self.method.label} (use another folder, or overwrite=True)"
            )
        # runs saved before the report option existed reported as "auto" does
        saved = {"report": "auto", **manifest.get("settings", {})}
        now = self.settings()
        diffs = [
            f"{key}: {saved.get(key, '(unset)')!r} in the checkpoint, "
            f"{now.get(key, '(unset)')!r} now"
            for key in sorted(set(saved) | set(now))
            if saved.get(key) != now.get(key)
        ]
        if diffs:
            raise ValueError(
                f"cannot resume the {self.method.label} run in {where} with other "
                "settings; differing: " + "; ".join(diffs)
            )

    # ------------------------------------------------------------------ one round
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
                raise ValueError(
                    f"the executor returned {len(outcomes)} outcomes for {len(batch)} tasks"
                )
            self.checkpointer.log(outcomes, index, call, attempt)
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

    def check_round(self, weights: FloatArray, rnd: Round) -> int:
        """The number of weights of the proposed round, after checking them."""
        n_weights = weights.shape[0] if weights.ndim else 0
        if weights.ndim not in (1, 2) or len(rnd.starts) != n_weights or n_weights == 0:
            raise ValueError(
                f"{self.method.label} proposed {n_weights} weights with "
                f"{len(rnd.starts)} warm starts"
            )
        if not (np.all(np.isfinite(weights)) and np.all((weights >= 0) & (weights <= 1))):
            raise ValueError(
                f"{self.method.label} proposed weights outside [0, 1]: {weights.tolist()}"
            )
        if weights.ndim == 2 and np.any(np.abs(weights.sum(axis=1) - 1.0) > 1e-9):
            raise ValueError(
                f"{self.method.label} proposed weight vectors off the simplex "
                f"(rows must sum to 1): {weights.tolist()}"
            )
        return n_weights

    def check_points(self, points: FloatArray, weights: FloatArray, index: int) -> None:
        """Refuse objective vectors of another number of objectives than the method's, or
        than the earlier rounds'."""
        m = points.shape[1]
        wanted = self.method.n_objectives
        if wanted is None and weights.ndim == 1:
            wanted = 2  # a scalar weight w trades off exactly two objectives
        if wanted is not None and m != wanted:
            what = (
                "the two objectives to trade off, both minimized"
                if wanted == 2
                else f"the {wanted} objectives to trade off, all minimized"
            )
            raise ValueError(
                f"{self.method.label} spaces points along a front of {wanted} objectives; the "
                f"solver returned {m} (objective vectors of shape ({m},)). Return {what}"
            )
        if self.progress.n_objectives is None:
            self.progress.n_objectives = m
        elif m != self.progress.n_objectives:
            raise ValueError(
                f"the solver returned {m} objectives in round {index}, but "
                f"{self.progress.n_objectives} before"
            )

    def solve_round(self, rnd: Round, index: int) -> tuple[RoundOutcome, float]:
        weights = np.asarray(rnd.weights, dtype=np.float64)
        n_weights = self.check_round(weights, rnd)
        # a candidate round for the report keeps its states as they were solved
        intact = (
            {k for k in self.keeper.keys() if k is not None} if self.reports_most_even() else set()
        )
        states = self.disk.starts(self.pool, rnd.starts, intact)
        slots = list(range(n_weights)) if rnd.slots is None else list(rnd.slots)
        solve_at = solved_weights(weights, self.weight_bounds)
        long_rounds = self.checkpointer.long_rounds
        self.slots_done, self.slots_total = 0, n_weights * rnd.repeats
        start = time.perf_counter()
        outcomes: list[SolveOutcome] = []
        for call in range(rnd.repeats):
            last = call == rnd.repeats - 1
            tasks = [
                SolveTask(
                    slot,
                    as_weight(w),
                    state,
                    self.disk.save_to(index, slot, call, last, long_rounds),
                )
                for slot, w, state in zip(slots, solve_at, states, strict=True)
            ]
            outcomes = self.run_tasks(tasks, index, call)
            states = [o.solution.state for o in outcomes if o.solution is not None]
            self.progress.n_solves += len(outcomes)
            self.progress.n_steps += count_steps(
                [o.solution for o in outcomes if o.solution is not None]
            )
        seconds = time.perf_counter() - start
        sols = [o.solution for o in outcomes if o.solution is not None]
        self.unsuccessful = [
            (slot, str(sol.info.get("message", "")))
            for slot, sol in zip(slots, sols, strict=False)
            if sol.info.get("success") is False
        ]
        self.last_infos = [s.info for s in sols]
        sizes = {s.objectives.size for s in sols}
        if len(sizes) != 1:
            raise ValueError(
                f"the solver returned objective vectors of sizes {sorted(sizes)} in round {index}"
            )
        points = np.stack([s.objectives for s in sols])
        self.check_points(points, weights, index)
        keys = [self.pool.add(s) for s in states]
        self.disk.solved(keys, slots, states, index)
        estimates = self.average(slots, weights, points)
        anchors = anchor_rows(weights)
        if anchors is not None:
            self.spacing.fit(estimates, anchors=anchors)
        else:
            front_weights, front_points, _ = self.method.front()
            self.spacing.fit(
                front_points, anchors=anchor_rows(np.asarray(front_weights, dtype=np.float64))
            )
        coordinates = self.spacing(estimates)
        return RoundOutcome(
            weights, points, keys, [s.info for s in sols], estimates, coordinates
        ), seconds

    def front(
        self, reported: ReportedFront | None = None
    ) -> tuple[FloatArray, FloatArray, FloatArray, list[int | None]]:
        """The method's points: weights as solved, objectives, their coordinates, keys; or
        those of ``reported``, an earlier round's (measured as the last round was)."""
        if reported is not None:
            return (
                solved_weights(np.array(reported.weights, dtype=np.float64), self.weight_bounds),
                reported.points,
                self.spacing(reported.points),
                reported.keys,
            )
        weights, points, keys = self.method.front()
        coords = points
        if points.ndim == 2 and points.shape[1] > 0:
            ends = anchor_rows(np.asarray(weights, dtype=np.float64))
            self.spacing.fit(points, anchors=ends)
            coords = self.spacing(points)
        return (
            solved_weights(np.array(weights, dtype=np.float64), self.weight_bounds),
            points,
            coords,
            keys,
        )

    def record(self, index: int, started: float, solve_seconds: float) -> IterationRecord:
        weights, points, coords, _ = self.front()
        ideal = self.observe(points)
        return IterationRecord.from_points(
            index,
            weights,
            points,
            coords=coords,
            seconds=time.perf_counter() - started,
            solve_seconds=solve_seconds,
            n_solves=self.progress.n_solves,
            n_steps=self.progress.n_steps,
            weight_change=self.method.weight_change(),
            ideal=ideal,
            **self.method.record_extras(),
        )

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
        diagnosed, diagnosed_coords = points, coords
        averaged = (
            None
            if reported is not None or points.ndim != 2
            else self.average.estimates(len(points), points.shape[1])
        )
        if averaged is not None:
            # with averaging the run's view of the front is the slots' averaged estimates:
            # their order and dominance, not one round's noise, tell whether it is sound
            diagnosed, diagnosed_coords = averaged, self.spacing(averaged)
        findings = diagnose_run(
            weights,
            diagnosed,
            diagnosed_coords,
            solver=self.solver,
            history=p.history,
            shown=shown,
            normalize=self.spacing.kind,
            moving_average=self.average.rate,
            ordered=self.method.ordered,
            aims_even=self.method.aims_even,
            method_findings=self.method.findings,
            infos=self.last_infos,
            unsuccessful=self.unsuccessful,
            target=self.target,
            stop_reason=p.stop_reason,
            convergence_change=self.method.convergence_change,
            settle_options=self.method.settle_options(),
        )
        collapsed = any(f.code in STRUCTURAL - {"reversed"} for f in findings)
        record = p.history[-1 if shown is None else shown] if p.history else None
        cv = math.nan if record is None else record.cv
        ratio = math.nan if record is None else record.gap_ratio
        success, message = success_and_message(
            self.method.label,
            len(weights),
            cv,
            ratio,
            findings,
            notes=() if reported is None else (reported.note,),
        )
        if not p.history:
            success, message = False, f"{self.method.label}: no round was run"
        return SurfResult(
            method=self.method.name,
            label=self.method.label,
            settings=self.settings(),
            weights=weights,
            points=points,
            states=[self.pool.get(k) for k in keys],
            history=p.history,
            n_solves=p.n_solves,
            n_steps=p.n_steps,
            converged=(p.converged or self.method.converged) and not collapsed,
            stop_reason=p.stop_reason or "not started",
            success=success,
            message=message,
            findings=findings,
            reported_round=shown,
            **self.method.result_extras(),
        )

    def state_parts(
        self, final: SurfResult | None = None
    ) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        """The run's state as a checkpoint saves it; ``final``: the finished run's result,
        whose success, message and findings the saved result then carries (an unfinished
        run's say so)."""
        assert self.folder is not None
        p = self.progress
        method_meta, method_arrays = self.method.state_dict()
        pool_meta, pool_arrays = self.pool.to_parts(root=self.folder.path)
        reported = self.reported_front()
        weights, points, _, keys = self.front(reported)
        view_meta = {
            "kind": "result",
            "method": self.method.name,
            "label": self.method.label,
            "settings": self.settings(),
            "n_solves": p.n_solves,
            "n_steps": p.n_steps,
            "converged": p.converged or self.method.converged,
            "stop_reason": p.stop_reason or "not finished",
            **view_extras(self.method.result_extras(), p.history),
            "state_keys": keys,
            "success": False,
            "reported_round": None if reported is None else reported.round,
            "message": (
                f"{self.method.label}: the run in {self.folder.path} was "
                f"stopped after round {len(p.history)} and can be resumed"
            ),
        }
        if final is not None:
            view_meta.update(
                success=final.success,
                message=final.message,
                findings=[f.to_dict() for f in final.findings],
                converged=final.converged,
                stop_reason=final.stop_reason,
            )
        meta = {
            "n_solves": p.n_solves,
            "n_steps": p.n_steps,
            "converged": p.converged,
            "stop_reason": p.stop_reason,
            "n_objectives": p.n_objectives,
            "averages": self.average.to_meta(),
            "method_state": method_meta,
            "pool": pool_meta,
            "result": view_meta,
        }
        arrays = {
            **{f"method/{k}": v for k, v in method_arrays.items()},
            **pool_arrays,
            "weights": weights,
            "points": points,
        }
        if self.reports_most_even():
            meta["kept_rounds"], kept_arrays = self.keeper.state_dict()
            arrays.update({f"kept/{k}": v for k, v in kept_arrays.items()})
        return meta, arrays

    def checkpoint(self, final: SurfResult | None = None) -> None:
        """Save the rounds run since the last checkpoint (see :meth:`Checkpointer.save`), the
        states of a disk-state solver still in memory into their folders first, and prune the
        folders no longer needed. Without a run folder only the state folders are looked
        after."""
        self.checkpointer.save(
            self.progress.history,
            lambda: self.state_parts(final),
            persist=lambda: self.disk.persist(self.pool),
            saved=lambda: self.disk.checkpointed(self.pool),
        )

    def finish(self, result: SurfResult | None) -> None:
        """Without a run folder, states on disk lived in a temporary folder: load the final
        ones into the result (if there is one) and delete it."""
        states = self.disk.finish(None if result is None else result.states)
        if result is not None and states is not None:
            result.states = states

    # ------------------------------------------------------------------ the loop
    def loop(
        self, iterations: int | None, tol: float | None, callback: Callback | None, bar: Any
    ) -> None:
        p = self.progress
        while p.stop_reason not in ("converged", "method", "callback"):
            if iterations is not None and len(p.history) >= iterations:
                p.stop_reason = "iterations"
                break
            started = time.perf_counter()
            self.checkpointer.round_started()
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
            self.checkpointer.round_ended()
            if self.checkpointer.due(len(p.history)):
                self.checkpoint()
            self.postfix = {"cv": f"{record.cv:.4f}", "gap_ratio": f"{record.gap_ratio:.3f}"}
            bar.update(1)
            bar.set_postfix(**self.postfix)
            if callback is not None and callback(record) is True:
                p.stop_reason = "callback"  # saved by the run's final checkpoint


def _part(arrays: Mapping[str, NDArray[Any]], prefix: str) -> dict[str, NDArray[Any]]:
    """The arrays whose names start with ``prefix``, without it."""
    return {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}


#: Whether an interrupted run with a folder tells on stderr how to resume it (a front end
#: with its own resume command, such as ``paretosurf run``, turns it off).
_INTERRUPT_NOTICE: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "paretosurf_interrupt_notice", default=True
)


#: Notes a front end records in the manifest of the runs it starts (see :func:`run_notes`).
_RUN_NOTES: contextvars.ContextVar[Mapping[str, Any] | None] = contextvars.ContextVar(
    "paretosurf_run_notes", default=None
)


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
    checkpoint_period: float | str | Checkpointer = "auto",
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
    checkpoint_period : "auto", float or Checkpointer
        Seconds of running between checkpoints; 0 saves after every round. ``"auto"``
        (default) saves every round that ends at least ``1 / CHECKPOINT_SHARE`` (100) times
        the last checkpoint's cost after it (the first: half a second into the run, see
        :data:`~paretosurf.checkpoint.FIRST_CHECKPOINT_SECONDS`): every round when solves
        take a second or more, every few rounds when they take milliseconds, so that
        checkpoints cost about 1% of the run, and a killed run loses at most that much
        solving. A :class:`~paretosurf.checkpoint.Checkpointer` sets a schedule of its own
        (those timings, a checkpoint every few rounds, a clock). The last round is always
        saved.
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
    check_run_options(
        tol=tol,
        checkpoint=checkpoint,
        resume=resume,
        overwrite=overwrite,
        callback=callback,
        executor=executor,
    )
    if iterations is not None:
        iterations = check_non_negative_int(iterations, name="iterations")
        if iterations == 0 and not resume:
            raise ValueError(
                "iterations must be at least 1 (0 would solve nothing; to read a "
                "saved run, use SurfResult.load)"
            )
    n_retries = check_non_negative_int(retries, name="retries")
    checkpointer = (
        checkpoint_period
        if isinstance(checkpoint_period, Checkpointer)
        else Checkpointer(checkpoint_period)
    )
    report = check_report(report)
    spacing = Spacing(normalize)
    rate = check_moving_average(moving_average)
    bounds = check_weight_bounds(weight_bounds)
    folder = RunFolder(checkpoint) if checkpoint is not None else None
    inner = as_solver(solver)
    runner = _Runner(
        method,
        inner,
        executor,
        folder,
        spacing,
        rate,
        bounds,
        n_retries,
        bool(allow_pickle),
        checkpointer,
        report,
        check_target(target),
    )
    if folder is None and runner.disk.enabled and solves_in(runner.executor) == "cluster":
        raise ValueError(
            "a solver that keeps its states in folders (save_state/load_state) on a cluster "
            "needs checkpoint=DIR on a filesystem every node sees: without it the states would "
            "live in a temporary folder of this machine only"
        )
    if folder is not None:
        folder.acquire()  # one process writes a run folder: held to the end
    try:
        return _run_holding(
            runner, iterations, tol, callback, progress, init_states, resume, overwrite
        )
    except BaseException:
        runner.finish(None)
        raise
    finally:
        if folder is not None:
            folder.release()


def _run_holding(
    runner: _Runner,
    iterations: int | None,
    tol: float | None,
    callback: Callback | None,
    progress: bool,
    init_states: Sequence[Any] | None,
    resume: bool,
    overwrite: bool,
) -> SurfResult:
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
                "folder"
            )
    else:
        runner.start_fresh(init_states)
    done = len(runner.progress.history)
    if iterations is not None and done > iterations > 0:  # (0 with resume: read the run)
        warnings.warn(
            f"{method.label}: the run in {folder.path if folder else 'the checkpoint'} already "
            f"holds {done} rounds, more than iterations={iterations}; its result after {done} "
            "rounds is returned (a run cannot be shortened: start a new one for fewer)",
            SurfWarning,
            stacklevel=4,
        )
    bar = progress_bar(
        progress,
        total=iterations,
        desc=method.label,
        unit="round",
        initial=done if iterations is None else min(done, iterations),
    )
    runner.bar = bar if progress else None
    start = getattr(runner.executor, "start", None)
    started = bool(start()) if callable(start) else False
    try:
        runner.loop(iterations, tol, callback, bar)
    except BaseException as exc:
        # the checkpoint stays as it was (the method may be half-way through a round); every
        # attempt made since it is still logged
        with contextlib.suppress(OSError):
            runner.checkpointer.write_solve_log()
        saved_rounds = runner.checkpointer.saved_rounds
        saved = (
            f"is saved after round {saved_rounds}"
            if saved_rounds
            else "stopped before its first checkpoint"
        )
        if isinstance(exc, KeyboardInterrupt) and folder is not None and (_INTERRUPT_NOTICE.get()):
            sys.stderr.write(
                f"\nparetosurf: interrupted; {method.label}'s run in {folder.path} {saved}; "
                "run the same call with resume=True to continue it\n"
            )
        elif isinstance(exc, ExecutorLostError) and folder is not None:
            exc.add_note(f"{method.label}'s run in {folder.path} {saved}")
        raise
    finally:
        bar.close()
        if folder is not None:
            folder.close()
        if started:
            runner.executor.close()
    if folder is not None and runner.progress.history:
        with folder.writing("the solver's state folders (states/)"):
            runner.disk.persist(runner.pool)  # the result's states are then the run's folders
    result = runner.result()
    if folder is not None and runner.progress.history:
        runner.checkpoint(final=result)
        folder.close()
    runner.finish(result)
    for finding in result.findings:
        if not is_quiet(finding, result.stop_reason):
            warnings.warn(f"{result.label}: {finding.message}", SurfWarning, stacklevel=3)
    return result
