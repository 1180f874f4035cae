"""Solving one round of a run: its slots through the executor, retries, the budget counts,
and the round's points measured in the run's coordinates.

:class:`RoundSolver` is the part of :func:`paretosurf.loop.run` that talks to the executor:
it turns a method's :class:`~paretosurf.loop.Round` into solve tasks (``repeats`` calls per
slot, each warm-started from the last), retries failed solves (but not those a retry would
fail the same way: :func:`not_retried`), logs every attempt through the
:class:`~paretosurf.loop.Checkpointer` as the solves return, counts solves, steps and
objective evaluations, checks the points and hands back a
:class:`~paretosurf.loop.RoundOutcome`.
With basin probes (the ``probes`` option), a few slots are then solved again from fresh
starts, and a probe that scores lower takes its slot's place (:mod:`paretosurf.loop`).
"""

from __future__ import annotations

import dataclasses
import os
import re
import socket
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paretosurf._utils.validation import check_objective_sizes
from paretosurf.executors import SolveOutcome, SolveTask, raise_for
from paretosurf.loop._basin_probes import RoundProbes
from paretosurf.loop._checkpointing import Checkpointer
from paretosurf.loop._fixed_points import FixedPoints
from paretosurf.loop._method import Method, Round, RoundOutcome, check_points, check_round
from paretosurf.loop._spacing import Spacing
from paretosurf.loop._spacing_options import MovingAverage, WeightMap, anchor_rows
from paretosurf.loop._state import Progress
from paretosurf.solvers import add_evaluations, as_weight, count_steps, users_solver
from paretosurf.storage import DiskStates, StatePool

__all__ = ["RoundSolver", "SolvedRound", "not_retried"]

#: A frame of a traceback as :func:`traceback.format_exception` writes it: its file, function.
_FRAME = re.compile(r'^\s*File "([^"]*)", line \d+, in (\S+)', re.MULTILINE)
#: The library's code that calls a solver and checks what it returns (a solve's traceback
#: names the file of the machine that ran it, wherever the library is installed there).
_CALLING_CODE = re.compile(
    r"[\\/]paretosurf[\\/](?:solvers[\\/]_protocol\.py|executors[\\/]base\.py)$"
)


def not_retried(outcome: SolveOutcome, solver: object = None) -> str | None:
    """Why a retry of ``outcome``'s failed solve would fail the same way, or ``None`` if it
    may succeed.

    Not retried: what the solver returned is not a solution (neither a
    :class:`~paretosurf.Solution` nor an ``(objectives, state)`` tuple, or a
    ``solve_many`` returning another number of solutions than weights), a ``Solution``
    that paretosurf refused (objectives that are not numbers or not a vector, a malformed
    ``info``), and a ``TypeError`` raised where paretosurf calls the solver (it does not
    take ``(weight, state)``; ``solver``, when given, is named if it is a class rather than
    an instance). Retried: an error raised in the solver's own code, non-finite objectives,
    a timeout, a killed worker.

    Examples
    --------
    >>> from paretosurf.executors import SolveOutcome
    >>> from paretosurf.loop._solving import not_retried
    >>> failed = SolveOutcome(0, 0.5, None, "InnerSolverError: inner solver returned str "
    ...                       "for slot 0 (weight 0.5); expected a Solution(objectives, state, "
    ...                       "info) or a tuple (objectives, state)")
    >>> not_retried(failed)
    'what the solver returned is not a solution'
    >>> not_retried(SolveOutcome(0, 0.5, None, "ValueError: diverged")) is None
    True
    """
    error = outcome.error
    if outcome.ok or outcome.killed or error is None:
        return None
    if error.startswith("InnerSolverError: inner solver returned ") and "non-finite" not in error:
        return "what the solver returned is not a solution"
    if error.startswith("InnerSolverError: solve_many returned "):
        return "solve_many must return one solution per weight"
    kind = error.split(":", 1)[0]
    frames = _FRAME.findall(outcome.traceback or "")
    if kind not in ("TypeError", "ValueError") or not frames:
        return None
    where, function = frames[-1]  # the innermost frame: where it was raised
    if not _CALLING_CODE.search(where):
        return None  # in the solver's own code
    if function == "__post_init__":
        return "the solver's Solution is malformed"
    if kind != "TypeError":
        return None
    if isinstance(solver, type):
        return (
            f"the solver is the class {solver.__qualname__}, not an instance of it: pass "
            f"{solver.__qualname__}(...)"
        )
    return "the solver cannot be called as solve(weight, state) (or solve_many(weights, states))"


@dataclass
class SolvedRound:
    """A solved round: what the method learns (``outcome``) and what the run reports."""

    outcome: RoundOutcome
    #: Wall-clock seconds of the solves (retries included).
    seconds: float
    #: The solves whose info says ``success=False``: (slot, message).
    unsuccessful: list[tuple[int, str]] = field(default_factory=list)
    #: The objective evaluations each slot spent over the round's calls (None: unknown).
    evaluations: NDArray[np.int64] | None = None


class RoundSolver:
    """Solves rounds with ``solver`` through ``executor``.

    Parameters
    ----------
    executor : Executor
        Runs the solve tasks (:class:`paretosurf.executors.Executor`).
    solver : object
        The inner solver (as :func:`paretosurf.solvers.as_solver` returns it).
    retries : int
        How many times a failed solve is tried again before the run stops (a solve that a
        retry would fail the same way, :func:`not_retried`, stops it at once).
    checkpointer : Checkpointer
        Logs every attempt (``solves.jsonl``) and says whether rounds are long.
    disk : DiskStates
        Where a disk-state solver's states go.
    weight_map : WeightMap
        The weights the solver sees for the method's (the ``weight_bounds`` option).
    """

    def __init__(
        self,
        executor: Any,
        solver: Any,
        retries: int,
        checkpointer: Checkpointer,
        disk: DiskStates,
        weight_map: WeightMap,
    ) -> None:
        self.executor = executor
        self.solver = solver
        self.retries = retries
        self.checkpointer = checkpointer
        self.disk = disk
        self.weight_map = weight_map
        #: The progress bar to tick per finished solve (None: none shown), and its postfix.
        self.bar: Any = None
        self.postfix: dict[str, str] = {}
        self.slots_done = self.slots_total = 0
        #: The run's basin probes (None: none; see :mod:`paretosurf.loop`).
        self.probes: RoundProbes | None = None
        #: The solves taken from what the run remembers rather than solved again.
        self.fixed = FixedPoints(enabled=False)

    def run_tasks(self, tasks: list[SolveTask], index: int, call: int) -> list[SolveOutcome]:
        """Solve ``tasks``, retrying failed ones up to ``retries`` times; every attempt is
        logged as the executor returns it. Raises the last failure's
        :class:`InnerSolverError` when retries run out, and at once for a failure that a
        retry would repeat (:func:`not_retried`), saying so."""
        results: dict[int, SolveOutcome] = {}
        pending = list(range(len(tasks)))
        attempt = 0
        while pending:
            attempt += 1
            batch = [tasks[i] for i in pending]
            # (without a progress bar there is nothing to tick per solve)
            on_done = self.on_done if self.bar is not None else None
            outcomes = self.executor.solve(self.solver, batch, on_done)
            if len(outcomes) != len(batch):
                raise ValueError(
                    f"the executor returned {len(outcomes)} outcomes for {len(batch)} tasks"
                )
            self.checkpointer.log(outcomes, index, call, attempt)
            if attempt == 1 and all(outcome.ok for outcome in outcomes):
                return list(outcomes)  # (every solve of the round succeeded at once)
            failed = []
            for i, outcome in zip(pending, outcomes, strict=True):
                if outcome.ok:
                    results[i] = outcome
                else:
                    failed.append((i, outcome))
            for _, outcome in failed:
                why = not_retried(outcome, users_solver(self.solver))
                if why is not None:
                    raise_for(
                        dataclasses.replace(
                            outcome,
                            error=f"{outcome.error}; not retried, as a retry would fail "
                            f"the same way: {why}",
                        ),
                        attempt,
                    )
            if failed and attempt > self.retries:
                raise_for(failed[0][1], attempt)
            pending = [i for i, _ in failed]
        return [results[i] for i in range(len(tasks))]

    def solve_tasks(self, tasks: list[SolveTask], index: int, call: int) -> list[SolveOutcome]:
        """:meth:`run_tasks`, less the tasks whose solve the run remembers (a deterministic
        solver's fixed points, :class:`~paretosurf.loop.FixedPoints`): those take the
        remembered solution in this process, spend nothing, and have their line in the solve
        log (0 seconds); the solves that return their start are remembered."""
        if not self.fixed.enabled:
            return self.run_tasks(tasks, index, call)
        recalled = [self.fixed.recall(task.weight, task.state) for task in tasks]
        pending = [task for task, found in zip(tasks, recalled, strict=True) if found is None]
        solved = iter(self.run_tasks(pending, index, call) if pending else [])
        here = (socket.gethostname(), os.getpid())
        outcomes, reused = [], []
        for task, found in zip(tasks, recalled, strict=True):
            if found is None:
                outcome = next(solved)
                self.fixed.remember(task.weight, task.state, outcome.solution)
            else:
                outcome = SolveOutcome(task.slot, task.weight, found, host=here[0], pid=here[1])
                reused.append(outcome)
            outcomes.append(outcome)
        if reused:
            self.checkpointer.log(reused, index, call, 1)
        return outcomes

    def run_probes(self, tasks: list[SolveTask], index: int, call: int) -> list[SolveOutcome]:
        """Solve basin probes' ``tasks`` once each (a failed probe is dropped, not retried);
        every attempt is logged with ``"probe": true``."""
        outcomes = self.executor.solve(self.solver, tasks, None)
        if len(outcomes) != len(tasks):
            raise ValueError(
                f"the executor returned {len(outcomes)} outcomes for {len(tasks)} tasks"
            )
        self.checkpointer.log(outcomes, index, call, 1, probe=True)
        return list(outcomes)

    def on_done(self, outcome: SolveOutcome) -> None:
        """Tick the progress bar for a finished solve."""
        if self.bar is not None and outcome.ok:
            self.slots_done += 1
            self.bar.set_postfix(**self.postfix, slots=f"{self.slots_done}/{self.slots_total}")

    def solve(
        self,
        rnd: Round,
        index: int,
        method: Method,
        pool: StatePool,
        progress: Progress,
        average: MovingAverage,
        spacing: Spacing,
        intact: set[int],
    ) -> SolvedRound:
        """Solve round ``index`` of ``method``: its slots ``rnd.repeats`` times each, the new
        states into ``pool`` (keys in the outcome), the budget into ``progress``, and the
        points measured by ``spacing`` (after the moving ``average``). ``intact``: keys
        whose states must stay as they are (candidate rounds of the report)."""
        weights = check_round(rnd, method.label)
        states = self.disk.starts(pool, rnd.starts, intact)
        slots = list(range(len(weights))) if rnd.slots is None else list(rnd.slots)
        solve_at = self.weight_map(weights)
        long_rounds = self.checkpointer.long_rounds
        self.slots_done, self.slots_total = 0, len(weights) * rnd.repeats
        start = time.perf_counter()
        outcomes: list[SolveOutcome] = []
        spent: list[int] | None = [0] * len(slots)
        # the weights the solver receives (as_weight: Python floats for scalar weights, a
        # copy of each weight vector for each call)
        scalar = solve_at.ndim == 1
        given = solve_at.tolist() if scalar else [as_weight(w) for w in solve_at]
        disk = self.disk
        for call in range(rnd.repeats):
            last = call == rnd.repeats - 1
            if call and not scalar:
                given = [as_weight(w) for w in solve_at]
            if disk.enabled:
                tasks = [
                    SolveTask(slot, w, state, disk.save_to(index, slot, call, last, long_rounds))
                    for slot, w, state in zip(slots, given, states, strict=True)
                ]
            else:  # (states in memory: nowhere to save them)
                tasks = [
                    SolveTask(slot, w, state, None)
                    for slot, w, state in zip(slots, given, states, strict=True)
                ]
            outcomes = self.solve_tasks(tasks, index, call)
            solutions = [o.solution for o in outcomes if o.solution is not None]
            states = [s.state for s in solutions]
            spent = add_evaluations(spent, [o.solution for o in outcomes])
            progress.n_solves += len(outcomes)
            progress.n_steps += count_steps(solutions)
        seconds = time.perf_counter() - start
        sols = [o.solution for o in outcomes if o.solution is not None]
        sizes = {s.objectives.size for s in sols}
        if len(sizes) != 1:
            # (one size: check_objective_sizes has nothing to say, and would only measure
            # every solution again)
            wanted = method.n_objectives or (2 if np.ndim(weights) == 1 else None)
            check_objective_sizes(
                outcomes, expected=progress.n_objectives or wanted, label=method.label, index=index
            )
            raise ValueError(
                f"the solver returned objective vectors of sizes {sorted(sizes)} in round {index}"
            )
        if self.probes is not None:  # fresh starts for a few slots (paretosurf.loop)
            outcomes, spent = self.probes.probe(
                index=index,
                slots=slots,
                weights=solve_at.tolist() if scalar else [as_weight(w) for w in solve_at],
                outcomes=outcomes,
                spent=spent,
                repeats=rnd.repeats,
                progress=progress,
                tally=progress.probes,
                solve=self.run_probes,
                suspects=method.suspected_gaps(),
            )
            sols = [o.solution for o in outcomes if o.solution is not None]
            states = [s.state for s in sols]
            seconds = time.perf_counter() - start
        points = (
            # (np.array of vectors of one size, as checked above, is np.stack's array, made in
            # C: np.stack checks and reshapes each vector in Python, 3 times slower)
            np.array([s.objectives for s in sols])
            if self.probes is None
            else np.stack([s.objectives for s in sols])
        )
        progress.n_objectives = check_points(points, weights, method, index, progress.n_objectives)
        keys = [pool.add(s) for s in states]
        self.disk.solved(keys, slots, states, index)
        estimates = average(slots, weights, points)
        anchors = anchor_rows(weights)
        if anchors is not None:
            spacing.fit(estimates, anchors=anchors)
        else:
            front_weights, front_points, _ = method.front()
            spacing.fit(
                front_points, anchors=anchor_rows(np.asarray(front_weights, dtype=np.float64))
            )
        infos = [s.info for s in sols]
        return SolvedRound(
            RoundOutcome(weights, points, keys, infos, estimates, spacing(estimates)),
            seconds,
            unsuccessful=[
                (slot, str(sol.info.get("message", "")))
                for slot, sol in zip(slots, sols, strict=False)
                if sol.info.get("success") is False
            ],
            evaluations=None if spent is None else np.asarray(spent, dtype=np.int64),
        )
