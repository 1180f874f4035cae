"""GPU jobs of the LLM protocol that are not a round's solves (a warm-start epoch, the
assessment of an adapter), run by the executor where it runs solves: this process, its worker
processes and their GPUs, or Ray tasks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from paretosurf.executors import OnDone, SolveOutcome, SolveTask, raise_for
from paretosurf.solvers import Solution

__all__ = ["JOB_TRIES", "run_jobs"]

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
