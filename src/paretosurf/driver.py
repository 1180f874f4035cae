"""The loop every method runs in: rounds of solves, budget, records, checkpoints, resume.

A *method* (SURF, Uniform-w, OLS, ...) only decides where to solve: it subclasses
:class:`~paretosurf.method.Method` (in :mod:`paretosurf.method`, importable from here) and

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
- :mod:`paretosurf.run_state`: the run's bookkeeping, what its checkpoints hold and how it
  resumes, and its result (with :func:`paretosurf.solver_findings.diagnose_run`'s findings);
- :mod:`paretosurf._validation` and :mod:`paretosurf.loop_options`: the checks and the
  descriptions of the loop's options.

Adding a method is one class; ``baselines/uniform.py`` is the shortest example to copy.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypedDict

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
from paretosurf.diagnostics import LOCAL_ROUNDS
from paretosurf.executors import (
    Executor,
    ExecutorLostError,
    LocalExecutor,
    SolveOutcome,
    SolveTask,
    raise_for,
    solves_in,
)
from paretosurf.findings import ParetoWarning, check_target, is_quiet, spacing_target
from paretosurf.kept_rounds import ReportedFront, RoundKeeper, check_report
from paretosurf.loop_options import document_loop_options
from paretosurf.method import Method, Round, RoundOutcome, check_points, check_round
from paretosurf.result import IterationRecord, SurfResult, history_from_parts
from paretosurf.run_folder import RunFolder
from paretosurf.run_state import (
    Progress,
    check_same_run,
    load_method_state,
    manifest,
    run_notes,
    run_parts,
    run_result,
)
from paretosurf.solvers import (
    SolverLike,
    add_evaluations,
    as_solver,
    as_weight,
    count_steps,
    users_solver,
)
from paretosurf.spacing import Spacing
from paretosurf.spacing_options import MovingAverage, anchor_rows, solved_weights
from paretosurf.states import DiskStates, StatePool, trusted_state_classes

# the driver's own public names, and the method interface it runs (Method, Round and
# RoundOutcome live in paretosurf.method, run_notes in paretosurf.run_state; StatePool,
# Checkpointer and the validators it imports stay importable from here for older code, but
# live in states, checkpoint and _validation)
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
#: The fewest rounds after which a run may stop early: those the local-minima check reads.
EARLY_STOP_ROUNDS = LOCAL_ROUNDS


#: ``callback(record)``: called after every round; returning ``True`` stops the run.
Callback = Callable[[IterationRecord], "bool | None"]


class RunOptions(TypedDict, total=False):
    """The keywords of :func:`run` that every method's entry point passes on (see :func:`run`
    for their meaning): ``executor``, ``checkpoint``, ``resume``, ``overwrite``,
    ``callback``, ``progress``, ``normalize``, ``moving_average``, ``weight_bounds``,
    ``retries``, ``allow_pickle``, ``checkpoint_period``, ``report``, ``target``,
    ``early_stopping``."""

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
    early_stopping: bool


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
        early_stopping: bool = False,
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
        #: Whether the run ends once its points meet the target and its weights settled.
        self.early_stopping = early_stopping
        self.checkpointer = checkpointer
        checkpointer.start(folder)
        self.pool = StatePool()
        self.disk = DiskStates(solver, folder, in_process=solves_in(self.executor) == "process")
        self.progress = Progress()
        #: The candidates for the reported round (see :mod:`paretosurf.kept_rounds`).
        self.keeper = RoundKeeper()
        #: The last round's solves whose info says success=False: (slot, message); and the
        #: info of each of its solves.
        self.unsuccessful: list[tuple[int, str]] = []
        self.last_infos: list[dict[str, Any]] = []
        #: The objective evaluations each solve of the last round reported (None: unknown).
        self.evaluations: NDArray[np.int64] | None = None
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
        return manifest(self.method, self.settings(), self.solver)

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
        where = f"checkpoint {self.folder.path}"
        check_same_run(self.folder.manifest(), self.method, self.settings(), where)
        self.folder.prepare_resume()
        saved = self.folder.load() if self.folder.committed() else None
        self.folder.truncate_history(0 if saved is None else int(saved.meta["n_rounds"]))
        if saved is None:
            self.disk.resumed(None, None)  # no saved state names any of its folders
            self.start_fresh(init_states, created=True)
            return
        meta, arrays = saved.meta, saved.arrays
        history = history_from_parts(saved.records)
        self.progress = Progress.from_meta(meta, history)
        self.pool = StatePool.from_parts(
            meta["pool"],
            arrays,
            root=self.folder.path,
            allow_pickle=self.allow_pickle,
            where=where,
            state_classes=trusted_state_classes(users_solver(self.solver)),
        )
        for record in history:  # the solver sees the saved rounds again, in order
            self.observe(record.points)
        self.average.load_meta(meta.get("averages", {}))
        self.checkpointer.saved_rounds = len(history)
        load_method_state(self.method, self.keeper, meta, arrays, history)
        self.disk.resumed(self.pool, saved.fallback)

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

    def solve_round(self, rnd: Round, index: int) -> tuple[RoundOutcome, float]:
        weights = check_round(rnd, self.method.label)
        n_weights = len(weights)
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
        spent: list[int] | None = [0] * len(slots)
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
            spent = add_evaluations(spent, [o.solution for o in outcomes])
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
        self.evaluations = None if spent is None else np.asarray(spent, dtype=np.int64)
        sizes = {s.objectives.size for s in sols}
        if len(sizes) != 1:
            raise ValueError(
                f"the solver returned objective vectors of sizes {sorted(sizes)} in round {index}"
            )
        points = np.stack([s.objectives for s in sols])
        self.progress.n_objectives = check_points(
            points, weights, self.method, index, self.progress.n_objectives
        )
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

    def done(self, record: IterationRecord) -> bool:
        """Whether a method that aims for even spacing may stop after ``record``'s round: its
        points meet the spacing target (the one success asks for), its weights settled, every
        solve of the round succeeded, and the run has the rounds the local-minima check
        reads (:data:`EARLY_STOP_ROUNDS`, up to the round the result reports)."""
        if (
            not self.method.aims_even
            or len(self.progress.history) < EARLY_STOP_ROUNDS
            or self.unsuccessful
            or not self.method.settled()
        ):
            return False
        reported = self.reported_front()
        if reported is not None and reported.round + 1 < EARLY_STOP_ROUNDS:
            return False  # the round the result would report has too short a history
        target = spacing_target(self.target, surface=np.ndim(record.weights) == 2)
        return bool(record.gap_ratio <= target)

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
            evaluations=self.evaluations,
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
        averaged = (
            None
            if reported is not None or points.ndim != 2
            else self.average.estimates(len(points), points.shape[1])
        )
        return run_result(
            self.method,
            self.progress,
            front=(weights, points, coords),
            states=[self.pool.get(k) for k in keys],
            reported=reported,
            averaged=None if averaged is None else (averaged, self.spacing(averaged)),
            solver=self.solver,
            settings=self.settings(),
            normalize=self.spacing.kind,
            moving_average=self.average.rate,
            infos=self.last_infos,
            unsuccessful=self.unsuccessful,
            target=self.target,
        )

    def state_parts(
        self, final: SurfResult | None = None
    ) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        """The run's state as a checkpoint saves it (see :func:`~paretosurf.run_state.
        run_parts`)."""
        assert self.folder is not None
        reported = self.reported_front()
        weights, points, _, keys = self.front(reported)
        return run_parts(
            self.method,
            self.progress,
            self.pool,
            root=self.folder.path,
            settings=self.settings(),
            averages=self.average.to_meta(),
            front=(weights, points, keys),
            reported_round=None if reported is None else reported.round,
            keeper=self.keeper if self.reports_most_even() else None,
            final=final,
        )

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
        final = ("converged", "method", "callback", *(("done",) if self.early_stopping else ()))
        while p.stop_reason not in final:
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
            elif self.early_stopping and self.done(record):
                p.stop_reason = "done"
            self.checkpointer.round_ended()
            if self.checkpointer.due(len(p.history)):
                self.checkpoint()
            self.postfix = {"cv": f"{record.cv:.4f}", "gap_ratio": f"{record.gap_ratio:.3f}"}
            bar.update(1)
            bar.set_postfix(**self.postfix)
            if callback is not None and callback(record) is True:
                p.stop_reason = "callback"  # saved by the run's final checkpoint


#: Whether an interrupted run with a folder tells on stderr how to resume it (a front end
#: with its own resume command, such as ``paretosurf run``, turns it off).
_INTERRUPT_NOTICE: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "paretosurf_interrupt_notice", default=True
)


@contextlib.contextmanager
def without_interrupt_notice() -> Iterator[None]:
    """Within this context an interrupted run (Ctrl-C) does not print how to resume it: for
    front ends that print their own resume command."""
    token = _INTERRUPT_NOTICE.set(False)
    try:
        yield
    finally:
        _INTERRUPT_NOTICE.reset(token)


@document_loop_options
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
    early_stopping: bool = True,
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
    <loop options>

    Returns
    -------
    SurfResult
        With ``success`` and ``message``; each problem :func:`paretosurf.diagnostics.diagnose`
        finds in the final points is also raised as a :class:`ParetoWarning`.

    Notes
    -----
    Solver states. A solver with ``save_state(state, folder)`` and ``load_state(folder)``
    keeps its states as folders: in ``checkpoint``'s ``states/`` (the result's ``states`` are
    then :class:`~paretosurf.states.StateFolder` paths there), or, without a checkpoint, in a
    temporary folder that the run deletes after loading the final states into the result.
    Solve tasks get folder paths, so nothing model-sized is pickled on its way to a worker.

    Interrupting (Ctrl-C) leaves the last checkpoint, and says how to resume from it; the
    attempts of the rounds after it are still logged in ``solves.jsonl``. A run closes the
    executor's resources (worker pools) that it started itself.

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.driver import run
    >>> from paretosurf.baselines import FixedWeightsMethod
    >>> res = run(FixedWeightsMethod(4), lambda w, s: ps.Solution([1 - w, w]), iterations=2)
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
        bool(early_stopping),
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
            ParetoWarning,
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
            warnings.warn(f"{result.label}: {finding.message}", ParetoWarning, stacklevel=3)
    return result
