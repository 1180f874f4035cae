"""GPU jobs of the LLM protocol that are not a round's solves (a warm-start epoch, the
assessment of an adapter), run by the executor where it runs solves: this process, its worker
processes and their GPUs, or Ray tasks."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from paretosurf.executors import OnDone, SolveOutcome, SolveTask, raise_for
from paretosurf.solvers import Solution

__all__ = ["JOB_TRIES", "AssessmentJob", "run_jobs", "solver_assessment"]

#: Tries of a warm-start epoch or of an adapter's assessment whose job failed (as the methods'
#: default ``retries=1``: one more try); an executor also reruns a job whose worker died.
JOB_TRIES = 2


def run_jobs(
    executor: Any,
    solver: Any,
    tasks: Sequence[SolveTask],
    names: Sequence[str],
    on_done: OnDone | None = None,
) -> list[Solution]:
    """The solutions of ``tasks``, run by ``executor`` where it runs solves, all at once; a
    failed task is tried again, up to :data:`JOB_TRIES` tries in all.

    Parameters
    ----------
    executor : Executor
        Runs the tasks (:class:`paretosurf.executors.Executor`).
    solver : object
        What each task's ``solve(weight, state)`` is called on, where the task runs.
    tasks : sequence of SolveTask
        The jobs.
    names : sequence of str
        What each job is, for the error of one that failed every try.
    on_done : callable, optional
        Called in this process with each successful outcome as it comes back (a job's
        result written at once, so that an interrupted batch keeps the jobs done).

    Raises
    ------
    InnerSolverError
        Naming the job (its entry in ``names``), the attempt and the error, with the traceback
        from where it ran as its ``__cause__``, if a task failed every try.

    Examples
    --------
    >>> from paretosurf.executors import LocalExecutor, SolveTask
    >>> from paretosurf.llm._jobs import run_jobs
    >>> from paretosurf.testing import GearKStep
    >>> sols = run_jobs(LocalExecutor(), GearKStep(), [SolveTask(0, 0.5)], ["a job"])
    >>> sols[0].objectives.shape
    (2,)
    """

    def done(outcome: SolveOutcome) -> None:
        if on_done is not None and outcome.solution is not None:
            on_done(outcome)

    solutions: dict[int, Solution] = {}
    todo = list(range(len(tasks)))
    failed: list[tuple[int, SolveOutcome]] = []
    for _ in range(JOB_TRIES):
        outcomes = executor.solve(solver, [tasks[i] for i in todo], done)
        failed = []
        for i, outcome in zip(todo, outcomes, strict=True):
            if outcome.solution is not None:
                solutions[i] = outcome.solution
            else:
                failed.append((i, outcome))
        todo = [i for i, _ in failed]
        if not todo:
            return [solutions[i] for i in range(len(tasks))]
    i, outcome = failed[0]
    raise_for(outcome, JOB_TRIES, what=names[i], kind="job")


def solver_assessment(solver: Any, state: Any) -> dict[str, Any]:
    """``solver.assess(state)``, or the objectives of ``solver.evaluate(state)``."""
    if callable(getattr(solver, "assess", None)):
        return dict(solver.assess(state))
    return {"objectives": np.asarray(solver.evaluate(state), dtype=np.float64)}


def _own_objectives(found: Mapping[str, Any]) -> Any:
    return found.get("objectives")


class AssessmentJob:
    """A solver whose ``solve(weight, state)`` trains nothing: it assesses the adapter
    ``state`` with ``assess(solver, state)`` (default :func:`solver_assessment`), so that an
    executor runs the assessment where it runs solves (a worker's GPU, a Ray GPU task). The
    solution holds what ``assess`` found in ``info["assessment"]`` and no state (nothing to
    send back); its objectives, ``objectives(found)``, have non-finite values replaced by 0
    (the executor's check of a solve's objectives is not for an assessment, which reports
    them as they are).

    ``assess`` and ``objectives`` are module-level functions, so that the job pickles to
    worker processes.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.llm._jobs import AssessmentJob
    >>> class Evaluates:
    ...     def evaluate(self, state):
    ...         return np.array([state, np.nan])
    >>> sol = AssessmentJob(Evaluates()).solve(0.5, 2.0)
    >>> sol.objectives.tolist(), sol.info["assessment"]["objectives"].tolist()
    ([2.0, 0.0], [2.0, nan])
    """

    def __init__(
        self,
        solver: Any,
        assess: Callable[[Any, Any], dict[str, Any]] = solver_assessment,
        objectives: Callable[[Mapping[str, Any]], Any] = _own_objectives,
    ) -> None:
        self.solver = solver
        self.assess = assess
        self.objectives = objectives

    def solve(self, weight: float, state: Any) -> Solution:
        found = self.assess(self.solver, state)
        values = self.objectives(found)
        values = np.nan_to_num(np.asarray(values if values is not None else [0.0, 0.0]))
        return Solution(values.astype(np.float64), None, {"assessment": found})

    def save_state(self, state: Any, folder: Path) -> None:
        self.solver.save_state(state, folder)

    def load_state(self, folder: Path) -> Any:
        return self.solver.load_state(folder)
