"""The loop every method runs in: rounds of solves, budget, records, checkpoints, resume.

A *method* (SURF, Uniform-w, OLS, ...) only decides where to solve: it subclasses
:class:`~paretosurf.loop.Method` (in :mod:`paretosurf.loop`, importable from here) and

- proposes the next :class:`Round` (the weights to solve, and which stored solver state
  warm-starts each of them),
- takes the round's :class:`RoundOutcome` (the points found and the keys of the new states),
- reports its current points (:meth:`Method.front`), and
- saves and restores its own state (JSON-able numbers plus arrays).

:func:`run` owns everything else, the same way for every method: the
:class:`IterationRecord`, the callback, ``tol`` and the early stop, the progress bar,
checkpoints and resuming from them. It knows nothing about CDFs or scalarizations: what a
method adds to its records and result comes through :meth:`Method.record_extras` and
:meth:`Method.result_extras`. Around the loop:

- :class:`~paretosurf.loop.RunStart`: the runner's parts set up from the checked options,
  and the run's start (afresh, resumed, or a folder that holds a run refused);
- :class:`~paretosurf.loop.RunReporting`: the front as the run measures it, each
  round's record, the round the result reports, the result and what a checkpoint saves;
- :class:`~paretosurf.loop.RoundSolver`: a round's solves through the executor,
  retries, the budget counts, and the points in the run's coordinates;
- :class:`~paretosurf.loop.Checkpointer`: when the run saves itself (after every round,
  or amortized over rounds too short to save each one), and the saving;
- :class:`~paretosurf.storage.StatePool` (the states, by key: methods hold keys) and
  :class:`~paretosurf.storage.DiskStates` (a disk-state solver's folders);
- :mod:`paretosurf.loop`: ``weight_bounds`` and ``moving_average``;
- :mod:`paretosurf.loop`: the run's bookkeeping, what its checkpoints hold and how it
  resumes, and its result (with :func:`paretosurf.findings.diagnose_run`'s findings);
- :mod:`paretosurf.loop`: what an interrupted run says about resuming it;
- :mod:`paretosurf._utils.validation` and :mod:`paretosurf.loop`: the checks, and the
  loop options (:class:`RunOptions`) with their one description.

Adding a method is one class; ``baselines/uniform.py`` is the shortest example to copy.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from paretosurf._utils.progress import progress_bar
from paretosurf._utils.validation import (
    check_iterations,
    check_moving_average,
    check_non_negative_int,
    check_run_options,
    check_weight_bounds,
)
from paretosurf.executors import Executor
from paretosurf.findings import (
    LOCAL_ROUNDS,
    ParetoWarning,
    check_target,
    declared_scalarization,
    frozen_and_beaten,
    is_quiet,
    spacing_target,
)
from paretosurf.loop._basin_probes import PROBED, BasinProbes, check_probes
from paretosurf.loop._checkpointing import Checkpointer
from paretosurf.loop._interrupts import (
    note_interruption,
    sigterm_interrupts,
    without_interrupt_notice,
)
from paretosurf.loop._kept_rounds import ReportedFront, check_report
from paretosurf.loop._method import Method, Round, RoundOutcome
from paretosurf.loop._options import Callback, RunOptions, document_loop_options
from paretosurf.loop._reporting import RunReporting
from paretosurf.loop._spacing import Spacing
from paretosurf.loop._start import RunStart
from paretosurf.loop._state import run_notes
from paretosurf.result import IterationRecord, Result
from paretosurf.solvers import SolverLike, as_solver
from paretosurf.storage import RunFolder

# the driver's own public names, and the method interface it runs (Method, Round and
# RoundOutcome live in paretosurf.loop, RunOptions and Callback in paretosurf.loop,
# run_notes in paretosurf.loop; StatePool, Checkpointer and the validators it imports
# stay importable from here for older code)
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
#: A run whose points were one and the same point for this many rounds in a row (the basin
#: probes had their chance in each) ends early: more rounds would not find a front.
ONE_POINT_ROUNDS = 5
#: A weighted-sum run whose points did not change for this many rounds in a row while its
#: weights moved, with some point beaten at its own weight, ends early: its solves return
#: where they started (stuck, or in local minima the basin probes did not leave).
STUCK_STOP_ROUNDS = 8


def stays_one_point(rounds: Sequence[Any], needed: int = ONE_POINT_ROUNDS) -> bool:
    """Whether each of the last ``needed`` rounds' points (arrays of shape (P, M), oldest
    first) is a single point (every slot's objectives equal, up to rounding) and that point
    stayed where it was.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.loop._driver import stays_one_point
    >>> same = [np.ones((3, 2))] * 5
    >>> stays_one_point(same), stays_one_point(same[:4])
    (True, False)
    >>> stays_one_point([*same[:4], np.array([[1.0, 1.0], [1.0, 1.0], [0.5, 2.0]])])
    False
    """
    if len(rounds) < needed:
        return False
    recent = [np.asarray(points, dtype=np.float64) for points in rounds[-needed:]]
    if any(p.ndim != 2 or len(p) < 2 for p in recent):
        return False
    point = recent[-1][0]
    level = 1e-12 * np.maximum(np.abs(point), 1.0)
    return all(bool(np.all(np.abs(p - point) <= level)) for p in recent)


class _Runner(RunStart, RunReporting):
    """One call of :func:`run`: the loop and the glue between the method, the round solver,
    the state pool and the checkpointer (set up by :class:`RunStart`, reported by
    :class:`RunReporting`)."""

    # ------------------------------------------------------------------ one round
    def solve_round(self, rnd: Round, index: int) -> tuple[RoundOutcome, float]:
        """Solve ``rnd`` (see :meth:`RoundSolver.solve`); a candidate round for the report
        keeps its states as they were solved."""
        intact = (
            {k for k in self.keeper.keys() if k is not None} if self.reports_most_even() else set()
        )
        solved = self.solving.solve(
            rnd, index, self.method, self.pool, self.progress, self.average, self.spacing, intact
        )
        self.unsuccessful, self.evaluations = solved.unsuccessful, solved.evaluations
        self.last_infos = list(solved.outcome.infos)
        return solved.outcome, solved.seconds

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

    def stays_stuck(self) -> bool:
        """Whether a weighted-sum run's last :data:`STUCK_STOP_ROUNDS` rounds kept every
        point while the weights moved, with a point beaten at its own weight
        (:func:`~paretosurf.findings.frozen_and_beaten`): more rounds would return the
        same points."""
        history = self.progress.history
        if len(history) < STUCK_STOP_ROUNDS or declared_scalarization(self.solver)[0] != "linear":
            return False
        return frozen_and_beaten(
            [
                (self.weight_map(np.array(r.weights, dtype=np.float64)), r.points)
                for r in history[-STUCK_STOP_ROUNDS:]
            ]
        )

    def checkpoint(self, final: Result | None = None) -> None:
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

    def finish(self, result: Result | None) -> None:
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
        final = (
            "converged",
            "method",
            "callback",
            *(("done", "one_point", "stuck") if self.early_stopping else ()),
        )
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
            elif self.early_stopping and stays_one_point(
                [r.points for r in p.history[-ONE_POINT_ROUNDS:]]
            ):
                p.stop_reason = "one_point"  # no front to refine: the findings say why
            elif self.early_stopping and self.stays_stuck():
                p.stop_reason = "stuck"  # the findings say why (stuck, local minima)
            self.checkpointer.round_ended()
            if self.checkpointer.due(len(p.history)):
                self.checkpoint()
            self.solving.postfix = {
                "cv": f"{record.cv:.4f}",
                "gap_ratio": f"{record.gap_ratio:.3f}",
            }
            bar.update(1)
            bar.set_postfix(**self.solving.postfix)
            if callback is not None and callback(record) is True:
                p.stop_reason = "callback"  # saved by the run's final checkpoint


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
    resume: bool | Literal["force"] = False,
    overwrite: bool = False,
    callback: Callback | None = None,
    progress: bool = False,
    normalize: Any = "endpoints",
    moving_average: float | None = None,
    weight_bounds: tuple[float, float] | str | None = None,
    retries: int = 1,
    allow_pickle: bool = False,
    checkpoint_period: float | str | Checkpointer = "auto",
    report: str = "auto",
    target: float | None = None,
    early_stopping: bool = True,
    probes: BasinProbes | str | bool | None = "auto",
) -> Result:
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
    Result
        With ``success`` and ``message``; each problem :func:`paretosurf.findings.diagnose`
        finds in the final points is also raised as a :class:`ParetoWarning`.

    Notes
    -----
    Solver states. A solver with ``save_state(state, folder)`` and ``load_state(folder)``
    keeps its states as folders: in ``checkpoint``'s ``states/`` (the result's ``states`` are
    then :class:`~paretosurf.storage.StateFolder` paths there), or, without a checkpoint, in a
    temporary folder that the run deletes after loading the final states into the result.
    Solve tasks get folder paths, so nothing model-sized is pickled on its way to a worker.

    Interrupting (Ctrl-C) leaves the last checkpoint, and says how to resume from it; the
    attempts of the rounds after it are still logged in ``solves.jsonl``, which gets each
    attempt as its solves return. SIGTERM stops a run with a checkpoint the same way (it
    raises :class:`~paretosurf.loop.Terminated`, a ``KeyboardInterrupt``), unless a
    handler of your own for it is in place (:func:`~paretosurf.loop.sigterm_interrupts`).
    A run closes the executor's resources (worker pools) that it started itself.

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.loop._driver import run
    >>> from paretosurf.methods import FixedWeightsMethod
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
        allow_pickle=allow_pickle,
        early_stopping=early_stopping,
    )
    iterations = check_iterations(iterations, resume=resume)
    checkpointer = (
        checkpoint_period
        if isinstance(checkpoint_period, Checkpointer)
        else Checkpointer(checkpoint_period)
    )
    folder = RunFolder(checkpoint) if checkpoint is not None else None
    runner = _Runner(
        method,
        as_solver(solver),
        executor,
        folder,
        Spacing(normalize),
        check_moving_average(moving_average),
        check_weight_bounds(weight_bounds),
        check_non_negative_int(retries, name="retries"),
        bool(allow_pickle),
        checkpointer,
        check_report(report),
        check_target(target),
        bool(early_stopping),
        probes=check_probes(probes),
    )
    if folder is not None:
        folder.acquire()  # one process writes a run folder: held to the end
    try:
        with sigterm_interrupts(folder is not None):  # SIGTERM stops it as Ctrl-C does
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
    resume: bool | Literal["force"],
    overwrite: bool,
) -> Result:
    """:func:`run` once its options are checked and its run folder (if any) is held."""
    method, folder = runner.method, runner.folder
    runner.begin(init_states, resume=resume, overwrite=overwrite, iterations=iterations)
    done = len(runner.progress.history)
    bar = progress_bar(
        progress,
        total=iterations,
        desc=method.label,
        unit="round",
        initial=done if iterations is None else min(done, iterations),
    )
    runner.solving.bar = bar if progress else None
    start = getattr(runner.executor, "start", None)
    started = bool(start()) if callable(start) else False
    try:
        runner.loop(iterations, tol, callback, bar)
    except BaseException as exc:
        # the checkpoint stays as it was (the method may be half-way through a round); every
        # attempt made since it is in the solve log already (written as the solves returned)
        if folder is not None:
            note_interruption(exc, method.label, str(folder.path), runner.checkpointer.saved_rounds)
        raise
    finally:
        bar.close()
        if folder is not None:
            folder.close()
        close = getattr(runner.executor, "close", None)
        if started and callable(close):  # a start without a close has nothing to release
            close()
    if folder is not None and runner.progress.history:
        with folder.writing("the solver's state folders (states/)"):
            runner.disk.persist(runner.pool)  # the result's states are then the run's folders
    result = runner.result()
    if folder is not None and runner.progress.history:
        runner.checkpoint(final=result)
        folder.close()
    runner.finish(result)
    for finding in result.findings:
        if not is_quiet(finding, result.stop_reason) and finding.code != PROBED:
            warnings.warn(f"{result.label}: {finding.message}", ParetoWarning, stacklevel=3)
    return result
