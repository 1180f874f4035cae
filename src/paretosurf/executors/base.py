"""The executor interface: solve tasks, their outcomes, :func:`execute`, and the in-process
executor.

Every executor runs :func:`execute` wherever its solves go; what differs is where (this
process, worker processes, Ray workers) and what happens when the process running a solve
dies.
"""

from __future__ import annotations

import os
import socket
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from paretosurf.solvers import (
    InnerSolverError,
    Solution,
    Weight,
    as_solution,
    as_weight,
    format_weight,
)
from paretosurf.states import load_state, save_state

__all__ = [
    "Executor",
    "LocalExecutor",
    "OnDone",
    "SolveOutcome",
    "SolveTask",
    "execute",
    "map_with",
    "raise_for",
]

FloatArray = NDArray[np.float64]
#: Called with each task's outcome as it finishes.
OnDone = Callable[["SolveOutcome"], None]


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the platform has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


@dataclass(frozen=True)
class SolveTask:
    """One inner solve of a round.

    Attributes
    ----------
    slot : int
        The slot (named in messages and logs).
    weight : float or ndarray
        The weight to solve at: a float in [0, 1] (two objectives), or a weight vector of
        shape (M,) on the simplex.
    state : object
        The warm start: a state, ``None`` (cold start), or a
        :class:`~paretosurf.states.StateFolder` that the solver's ``load_state`` reads.
    save_to : str, optional
        With a solver that keeps its states on disk: the folder to save the new state into
        (the outcome's solution then holds a :class:`~paretosurf.states.StateFolder`).
    """

    slot: int
    weight: Weight
    state: Any = None
    save_to: str | None = None


@dataclass
class SolveOutcome:
    """What became of one :class:`SolveTask`.

    Attributes
    ----------
    slot, weight :
        The task's.
    solution : Solution or None
        The solution (checked: finite objectives), or ``None`` if the solve failed.
    error : str or None
        ``"ExceptionType: message"`` of the failure.
    traceback : str or None
        The failure's traceback, formatted where it happened.
    seconds : float
        Wall time of the solve (a batch's time shared evenly among its tasks).
    host : str
        Host name of the machine that ran it; ``pid`` its process.
    killed : bool
        Whether the process running it died (SIGKILL, out of memory) rather than the solver
        raising.
    lost : tuple of SolveOutcome
        Earlier tries of this task that the executor lost to a dying worker and ran again
        (:class:`~paretosurf.executors.ProcessExecutor`,
        :class:`~paretosurf.executors.RayExecutor`), oldest first: each has ``killed=True``,
        the error, and the host and process that ran it (``pid`` 0 where the executor cannot
        tell). A run's solve log has a line for each.
    """

    slot: int
    weight: Weight
    solution: Solution | None
    error: str | None = None
    traceback: str | None = None
    seconds: float = 0.0
    host: str = ""
    pid: int = 0
    killed: bool = False
    lost: tuple[SolveOutcome, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the solve succeeded."""
        return self.solution is not None


@runtime_checkable
class Executor(Protocol):
    """Runs a round's solve tasks and returns their outcomes in task order."""

    def solve(self, solver: Any, tasks: Sequence[SolveTask],
              on_done: OnDone | None = None) -> list[SolveOutcome]:  # pragma: no cover
        ...


def failure(task: SolveTask, exc: BaseException, seconds: float) -> SolveOutcome:
    """The failed outcome of ``task`` that raised ``exc`` in this process."""
    return SolveOutcome(task.slot, task.weight, None, f"{type(exc).__name__}: {exc}",
                        "".join(traceback.format_exception(exc)), seconds,
                        socket.gethostname(), os.getpid())


def _check(raw: object, task: SolveTask) -> Solution:
    """A solver's return value as a checked :class:`Solution` (raises InnerSolverError)."""
    sol = as_solution(raw, task.slot, task.weight)
    if not np.all(np.isfinite(sol.objectives)):
        raise InnerSolverError(
            f"inner solver returned non-finite objectives {sol.objectives.tolist()} for slot "
            f"{task.slot} (weight {format_weight(task.weight)})", slot=task.slot,
            weight=task.weight)
    return sol


def _finish(solver: Any, task: SolveTask, sol: Solution) -> Solution:
    """Save the new state to disk when the task asks for it."""
    if task.save_to is not None:
        return Solution(sol.objectives, save_state(solver, sol.state, task.save_to), sol.info)
    return sol


def batches(solver: Any) -> bool:
    """Whether :func:`execute` hands ``solver`` a batch of tasks in one ``solve_many`` call."""
    return hasattr(solver, "solve_many")


def execute(solver: Any, tasks: Sequence[SolveTask],
            on_done: OnDone | None = None) -> list[SolveOutcome]:
    """Run ``tasks`` in this process; a solver failure becomes a failed outcome, not an
    exception.

    A solver with ``solve_many`` gets all tasks in one call (its failure fails them all);
    otherwise each task is solved on its own.

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.executors import SolveTask, execute
    >>> def solver(w, state):
    ...     if w > 0.9:
    ...         raise ValueError("diverged")
    ...     return ps.Solution([1 - w, w])
    >>> out = execute(ps.solvers.as_solver(solver), [SolveTask(0, 0.5), SolveTask(1, 1.0)])
    >>> out[0].solution.objectives.tolist(), out[1].ok, out[1].error
    ([0.5, 0.5], False, 'ValueError: diverged')
    """
    host, pid = socket.gethostname(), os.getpid()
    outcomes: list[SolveOutcome] = []
    if batches(solver) and len(tasks) > 0:
        start = time.perf_counter()
        try:
            states = [load_state(solver, t.state) for t in tasks]
            weights = np.array([t.weight for t in tasks], dtype=np.float64)
            raw = list(solver.solve_many(weights, states))
            if len(raw) != len(tasks):
                raise InnerSolverError(f"solve_many returned {len(raw)} solutions for "
                                       f"{len(tasks)} weights")
        except Exception as exc:
            seconds = (time.perf_counter() - start) / len(tasks)
            outcomes = [failure(t, exc, seconds) for t in tasks]
            for outcome in outcomes:
                if on_done is not None:
                    on_done(outcome)
            return outcomes
        seconds = (time.perf_counter() - start) / len(tasks)
        for task, item in zip(tasks, raw, strict=True):
            try:
                outcome = SolveOutcome(task.slot, task.weight,
                                       _finish(solver, task, _check(item, task)),
                                       seconds=seconds, host=host, pid=pid)
            except Exception as exc:
                outcome = failure(task, exc, seconds)
            outcomes.append(outcome)
            if on_done is not None:
                on_done(outcome)
        return outcomes
    for task in tasks:
        start = time.perf_counter()
        try:
            raw_one = solver.solve(as_weight(task.weight), load_state(solver, task.state))
            sol = _finish(solver, task, _check(raw_one, task))
            outcome = SolveOutcome(task.slot, task.weight, sol,
                                   seconds=time.perf_counter() - start, host=host, pid=pid)
        except Exception as exc:
            outcome = failure(task, exc, time.perf_counter() - start)
        outcomes.append(outcome)
        if on_done is not None:
            on_done(outcome)
    return outcomes


#: In a worker (a process of ProcessExecutor or RayExecutor): the solver it loaded last, and
#: its token.
_KEPT_SOLVER: tuple[str, Any] | None = None


def kept_solver(token: str, load: Callable[[], Any]) -> Any:
    """In a worker: the solver of ``token``, loaded by ``load()`` only when the worker does not
    hold it already (the worker keeps one, as a local run keeps its one solver). Errors of
    ``load`` propagate, and nothing is kept then."""
    global _KEPT_SOLVER
    if _KEPT_SOLVER is None or _KEPT_SOLVER[0] != token:
        _KEPT_SOLVER = (token, load())
    return _KEPT_SOLVER[1]


def raise_for(outcome: SolveOutcome, attempt: int) -> None:
    """Raise the :class:`InnerSolverError` of a failed outcome, naming slot, weight, attempt
    and the original error."""
    how = "was killed" if outcome.killed else "failed"
    raise InnerSolverError(
        f"the inner solve of slot {outcome.slot} (weight {format_weight(outcome.weight)}) "
        f"{how} on "
        f"attempt {attempt}: {outcome.error}"
        + (f"\n--- traceback of the solve (host {outcome.host}, pid {outcome.pid}) ---\n"
           f"{outcome.traceback}" if outcome.traceback else ""),
        slot=outcome.slot, weight=outcome.weight)


def map_with(executor: Any, solver: Any, weights: FloatArray, states: Sequence[Any],
             slots: Sequence[int] | None = None) -> list[Solution]:
    """``executor.solve`` as a list of solutions (the form of the older ``map`` protocol)."""
    ids = list(range(len(weights))) if slots is None else list(slots)
    tasks = [SolveTask(i, as_weight(w), s) for i, w, s in zip(ids, weights, states, strict=True)]
    out = []
    for outcome in executor.solve(solver, tasks):
        if outcome.solution is None:
            raise_for(outcome, 1)
        assert outcome.solution is not None
        out.append(outcome.solution)
    return out


class _Lifecycle:
    """``start``/``close``, the context-manager protocol, and the older ``map`` for the
    executors of this package (subclasses define ``solve``)."""

    def start(self) -> bool:
        """Acquire the executor's resources; returns whether this call started them."""
        return False

    def close(self) -> None:
        """Release the executor's resources (it can be started again)."""

    def __enter__(self) -> Any:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def solve(self, solver: Any, tasks: Sequence[SolveTask],
              on_done: OnDone | None = None) -> list[SolveOutcome]:  # pragma: no cover
        raise NotImplementedError

    def map(self, solver: Any, weights: FloatArray, states: Sequence[Any], *,
            slots: Sequence[int] | None = None) -> list[Solution]:
        """Solutions of one round, raising :class:`InnerSolverError` on the first failure."""
        return map_with(self, solver, weights, states, slots)


class LocalExecutor(_Lifecycle):
    """Solve every task in this process (all at once through ``solve_many`` when offered).

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.problems import GearToy
    >>> res = ps.surf(GearToy(4).solver(), 6, iterations=2, executor=ps.LocalExecutor())
    >>> res.n_solves
    14
    """

    def solve(self, solver: Any, tasks: Sequence[SolveTask],
              on_done: OnDone | None = None) -> list[SolveOutcome]:
        """Run ``tasks`` here (see :func:`execute`)."""
        return execute(solver, tasks, on_done)

    def __repr__(self) -> str:
        return "LocalExecutor()"
