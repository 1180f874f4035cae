"""The executor interface: solve tasks, their outcomes, :func:`execute`, and the in-process
executor.

Every executor runs :func:`execute` wherever its solves go; what differs is where (this
process, worker processes, Ray workers) and what happens when the process running a solve
dies.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import os
import signal
import socket
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from paretosurf._utils.validation import NamesOptions
from paretosurf.solvers import (
    InnerSolverError,
    Solution,
    Weight,
    as_solution,
    as_weight,
    format_weight,
)
from paretosurf.storage import load_state, save_state

__all__ = [
    "SOLVES_IN",
    "BaseExecutor",
    "Executor",
    "ExecutorLostError",
    "LocalExecutor",
    "ManagedExecutor",
    "OnDone",
    "SolveOutcome",
    "SolveTask",
    "SolveTimeoutError",
    "SolveTraceback",
    "execute",
    "raise_for",
    "solves_in",
]

FloatArray = NDArray[np.float64]
#: Called with each task's outcome as it finishes.
OnDone = Callable[["SolveOutcome"], None]


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the platform has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


@dataclass(frozen=True, init=False)
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
        :class:`~paretosurf.storage.StateFolder` that the solver's ``load_state`` reads.
    save_to : str, optional
        With a solver that keeps its states on disk: the folder to save the new state into
        (the outcome's solution then holds a :class:`~paretosurf.storage.StateFolder`).
    """

    slot: int
    weight: Weight
    state: Any = None
    save_to: str | None = None

    def __init__(
        self, slot: int, weight: Weight, state: Any = None, save_to: str | None = None
    ) -> None:
        # (the fields straight into the instance's dict: the __init__ a frozen dataclass
        # makes sets each through object.__setattr__, 2.5 times slower, and a round makes
        # N + 1 tasks)
        fields = self.__dict__
        fields["slot"] = slot
        fields["weight"] = weight
        fields["state"] = state
        fields["save_to"] = save_to


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
    logged : bool
        Whether the run's solve log holds this attempt already: a run driven by ask and tell
        (:class:`~paretosurf.Study`) replays, in each ask, the batches of the round that an
        earlier ask returned, and the log does not take them twice.
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
    logged: bool = False

    @property
    def ok(self) -> bool:
        """Whether the solve succeeded."""
        return self.solution is not None


#: Where an executor's solves run (its ``solves_in``): in this process; in other processes of
#: this machine (states travel through folders of this machine); on other machines too
#: (folders must be on a filesystem every node sees).
SOLVES_IN = ("process", "machine", "cluster")


@runtime_checkable
class Executor(Protocol):
    """Runs a round's solve tasks and returns their outcomes in task order.

    ``solve`` is the whole protocol: an object with only ``solve`` is an executor, and a run
    uses it as it is (its solves are taken to run on this machine, see :func:`solves_in`,
    and there is nothing to start or close). An executor that holds resources (worker
    processes, a Ray connection) or whose solves run elsewhere than in other processes of
    this machine is a :class:`ManagedExecutor` as well; :class:`BaseExecutor` gives the
    defaults of the rest.
    :class:`paretosurf.testing.ExecutorContract` checks an executor of your own.

    Examples
    --------
    >>> from paretosurf.executors import Executor, LocalExecutor, ManagedExecutor, execute
    >>> class SolveOnly:
    ...     def solve(self, solver, tasks, on_done=None):
    ...         return execute(solver, tasks, on_done)
    >>> isinstance(SolveOnly(), Executor), isinstance(SolveOnly(), ManagedExecutor)
    (True, False)
    >>> isinstance(LocalExecutor(), Executor), isinstance(LocalExecutor(), ManagedExecutor)
    (True, True)
    """

    def solve(
        self, solver: Any, tasks: Sequence[SolveTask], on_done: OnDone | None = None
    ) -> list[SolveOutcome]:  # pragma: no cover
        """Run ``tasks`` and return one :class:`SolveOutcome` per task, in order (a failed
        solve is an outcome with its error, never an exception); ``on_done(outcome)``, when
        given, is called once per task, as it finishes."""
        ...


@runtime_checkable
class ManagedExecutor(Executor, Protocol):
    """An :class:`Executor` with resources to start and close, that says where its solves
    run.

    A run calls :meth:`start` before its first round and, when that call returned ``True``,
    :meth:`close` at its end (an executor started beforehand, say as a context manager
    around several runs, stays open). :class:`LocalExecutor`,
    :class:`~paretosurf.executors.ProcessExecutor` and
    :class:`~paretosurf.executors.RayExecutor` are managed executors; :class:`BaseExecutor`
    gives the defaults (nothing to start, ``solves_in="machine"``).

    Attributes
    ----------
    solves_in : {"process", "machine", "cluster"}
        Where the solves run (:data:`SOLVES_IN`): the run keeps a disk-state solver's states
        in memory between checkpoints only for ``"process"``, and, for ``"cluster"``, needs
        a run folder that every node sees. A class attribute or a read-only property.

    Examples
    --------
    >>> from paretosurf.executors import ManagedExecutor, ProcessExecutor
    >>> pool = ProcessExecutor(2)
    >>> isinstance(pool, ManagedExecutor), pool.solves_in
    (True, 'machine')
    """

    @property
    def solves_in(self) -> str:  # pragma: no cover
        """Where the solves run: one of :data:`SOLVES_IN`."""
        ...

    def start(self) -> bool:  # pragma: no cover
        """Acquire the executor's resources; returns whether this call started them (the
        run then calls :meth:`close` at its end)."""
        ...

    def close(self) -> None:  # pragma: no cover
        """Release what :meth:`start` acquired (a second call does nothing)."""
        ...


def solves_in(executor: object) -> str:
    """Where ``executor``'s solves run: the ``solves_in`` of a :class:`ManagedExecutor`, and
    ``"machine"`` for an executor that does not say (one with only ``solve``).

    Raises
    ------
    ValueError
        If its ``solves_in`` is not one of :data:`SOLVES_IN`.

    Examples
    --------
    >>> from paretosurf.executors import LocalExecutor, solves_in
    >>> solves_in(LocalExecutor()), solves_in(object())
    ('process', 'machine')
    """
    where = getattr(executor, "solves_in", "machine")
    if where not in SOLVES_IN:
        raise ValueError(
            f"{type(executor).__name__}.solves_in must be one of {SOLVES_IN}, got {where!r}"
        )
    return str(where)


class ExecutorLostError(NamesOptions, RuntimeError):
    """The executor lost the machines its solves run on (a Ray cluster that went away), so
    the round cannot finish.

    Not a failed solve: retrying the round cannot help until the machines are back. A run
    with a run folder keeps its last checkpoint, and the same call with ``resume=True``
    continues it then. The options its message names (``{resume}``) are keywords, after
    ``address`` and ``slots``: ``str(error)`` spells them as a Python call writes them, and
    ``error.text(spell)`` as a front end does (see
    :class:`~paretosurf._utils.validation.NamesOptions`).

    Attributes
    ----------
    address : str or None
        The address of what was lost (a Ray cluster's GCS, ``"HOST:PORT"``).
    slots : tuple of int
        The slots whose solves had not finished.

    Examples
    --------
    >>> from paretosurf.executors import ExecutorLostError
    >>> err = ExecutorLostError("the Ray cluster at 10.0.0.1:6379 was lost",
    ...                         address="10.0.0.1:6379", slots=(2, 5))
    >>> isinstance(err, RuntimeError), err.slots
    (True, (2, 5))
    """

    def __init__(
        self,
        message: str,
        *,
        address: str | None = None,
        slots: Sequence[int] = (),
        **options: Any,
    ) -> None:
        super().__init__(self._name_options(message, options))
        self.address = address
        self.slots = tuple(slots)


class SolveTimeoutError(TimeoutError):
    """Raised inside a solve that ran longer than its executor's ``solve_timeout`` (by the
    SIGALRM handler of :func:`execute`). A failed outcome names it ``TimeoutError``."""


def failure(task: SolveTask, exc: BaseException, seconds: float) -> SolveOutcome:
    """The failed outcome of ``task`` that raised ``exc`` in this process."""
    name = "TimeoutError" if isinstance(exc, SolveTimeoutError) else type(exc).__name__
    return SolveOutcome(
        task.slot,
        task.weight,
        None,
        f"{name}: {exc}",
        "".join(traceback.format_exception(exc)),
        seconds,
        socket.gethostname(),
        os.getpid(),
    )


# ---------------------------------------------------------------------------- solve timeouts
def check_solve_timeout(value: object, *, name: str = "solve_timeout") -> float | None:
    """``value`` as a number of seconds > 0, or ``None`` (no limit).

    Raises
    ------
    TypeError
        If it is not a number (or is a bool).
    ValueError
        If it is not finite and > 0.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number of seconds > 0 or None (no limit), got {value!r}")
    seconds = float(value)
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(
            f"{name} must be a finite number of seconds > 0, or None for no limit, got {value!r}"
        )
    return int(seconds) if seconds.is_integer() else seconds


def seconds_text(seconds: float) -> str:
    """``5`` -> ``"5s"``, ``0.25`` -> ``"0.25s"``."""
    return f"{seconds:g}s"


def timeout_text(timeout: float, n: int = 1) -> str:
    """The limit of a call that solves ``n`` tasks, in words: ``"solve_timeout=5s"``, or
    ``"3 x solve_timeout=5s = 15s"`` for a ``solve_many`` batch of 3."""
    if n == 1:
        return f"solve_timeout={seconds_text(timeout)}"
    return f"{n} x solve_timeout={seconds_text(timeout)} = {seconds_text(n * timeout)}"


def overrun_text(timeout: float, n: int = 1) -> str:
    """``"the solve ran longer than solve_timeout=5s"`` (or the batch's)."""
    what = "the solve" if n == 1 else f"the solve_many call of {n} tasks"
    return f"{what} ran longer than {timeout_text(timeout, n)}"


def alarm_usable() -> bool:
    """Whether :func:`execute` can interrupt a solve here: the platform has SIGALRM and this is
    the main thread (the only one that runs Python signal handlers)."""
    return (
        hasattr(signal, "SIGALRM")
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )


#: Seconds between further interruptions of a solve that caught the first and went on.
_REFIRE = 1.0


@contextlib.contextmanager
def _interrupt_after(seconds: float, message: str) -> Iterator[None]:
    """Raise :class:`SolveTimeoutError` (``message``) in the block once ``seconds`` have
    passed, and every :data:`_REFIRE` seconds after that until the block ends; if the block
    swallows it and ends normally past the limit, raise it at its end. Main thread only.

    The SIGALRM handler and an ITIMER_REAL timer set outside are put back afterwards (an
    outside timer that came due meanwhile fires at once then)."""
    start = time.monotonic()
    deadline = start + seconds
    state = {"active": True, "fired": False}

    def on_alarm(signum: int, frame: Any) -> None:
        if not state["active"]:
            return
        left = deadline - time.monotonic()
        if left > 0.005:  # early, or a stale signal: wait for the rest
            signal.setitimer(signal.ITIMER_REAL, left)
            return
        state["fired"] = True
        signal.setitimer(signal.ITIMER_REAL, _REFIRE)
        raise SolveTimeoutError(message)

    outer = signal.getsignal(signal.SIGALRM)
    outer_delay, outer_interval = signal.getitimer(signal.ITIMER_REAL)
    signal.signal(signal.SIGALRM, on_alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        yield
        if state["fired"] or time.monotonic() >= deadline:  # it swallowed the interruption
            state["fired"] = True
            raise SolveTimeoutError(message)
    finally:
        state["active"] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL if outer is None else outer)
        if outer_delay > 0:
            left = outer_delay - (time.monotonic() - start)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), outer_interval)


def _deadline(timeout: float | None, n: int) -> contextlib.AbstractContextManager[None]:
    """The interruption of a call solving ``n`` tasks under ``timeout`` per task (none for
    ``None``)."""
    if timeout is None:
        return contextlib.nullcontext()
    return _interrupt_after(
        n * timeout, f"{overrun_text(timeout, n)} and was interrupted (in process {os.getpid()})"
    )


def _check(raw: object, task: SolveTask) -> Solution:
    """A solver's return value as a checked :class:`Solution` (raises InnerSolverError)."""
    sol = as_solution(raw, task.slot, task.weight)
    if not np.all(np.isfinite(sol.objectives)):
        raise InnerSolverError(
            f"inner solver returned non-finite objectives {sol.objectives.tolist()} for slot "
            f"{task.slot} (weight {format_weight(task.weight)})",
            slot=task.slot,
            weight=task.weight,
        )
    return sol


def _finite_solutions(raw: Sequence[object]) -> bool:
    """Whether every item of a ``solve_many`` batch is a :class:`Solution` with finite
    objectives, so that :func:`_check` would return each as it is: one ``isfinite`` over
    the batch's objectives instead of one per solution (numpy's per-call cost, paid N + 1
    times a round, was most of a round's checks). ``False`` sends the batch through
    :func:`_check` item by item, which names what is wrong."""
    if not all(isinstance(item, Solution) for item in raw):
        return False
    try:
        objectives = np.concatenate([item.objectives for item in raw])  # type: ignore[attr-defined]
        return bool(np.isfinite(objectives).all())
    except (TypeError, ValueError):
        return False


def _finish(solver: Any, task: SolveTask, sol: Solution) -> Solution:
    """Save the new state to disk when the task asks for it."""
    if task.save_to is not None:
        return Solution(sol.objectives, save_state(solver, sol.state, task.save_to), sol.info)
    return sol


def batches(solver: Any) -> bool:
    """Whether :func:`execute` hands ``solver`` a batch of tasks in one ``solve_many`` call."""
    return hasattr(solver, "solve_many")


def execute(
    solver: Any,
    tasks: Sequence[SolveTask],
    on_done: OnDone | None = None,
    *,
    timeout: float | None = None,
) -> list[SolveOutcome]:
    """Run ``tasks`` in this process; a solver failure becomes a failed outcome, not an
    exception.

    A solver with ``solve_many`` gets all tasks in one call (its failure fails them all);
    otherwise each task is solved on its own.

    Parameters
    ----------
    solver : object
        The inner solver (``solve``, maybe ``solve_many``, ``save_state``/``load_state``).
    tasks : sequence of SolveTask
        The tasks.
    on_done : callable, optional
        Called with each outcome as it is made.
    timeout : float, optional
        Seconds a task's solve may run (with the loading and saving of its states); a
        ``solve_many`` call of k tasks may run k times as long. A solve still running then
        is interrupted: a :class:`SolveTimeoutError` is raised inside it (SIGALRM), again
        every second if the solver catches it, and its outcome fails with
        ``"TimeoutError: the solve ran longer than solve_timeout=..."`` (a batch's fails
        all its tasks). Code stuck in C that never returns to Python cannot be interrupted
        this way (run it in :class:`~paretosurf.executors.ProcessExecutor`, which kills the
        worker). Needs the main thread of a platform with SIGALRM.

    Raises
    ------
    RuntimeError
        With ``timeout``, off the main thread or without SIGALRM (nothing is solved then).

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

    A solve that hangs, under a timeout:

    >>> import time
    >>> def hangs(w, state):
    ...     time.sleep(1000)
    >>> out = execute(ps.solvers.as_solver(hangs), [SolveTask(0, 0.5)], timeout=0.2)
    >>> out[0].error.startswith("TimeoutError: the solve ran longer than solve_timeout=0.2s")
    True
    """
    timeout = check_solve_timeout(timeout, name="timeout")
    if timeout is not None and not alarm_usable():
        where = (
            "this platform has no SIGALRM"
            if not hasattr(signal, "SIGALRM")
            else f"this is thread {threading.current_thread().name!r}, not the main thread"
        )
        raise RuntimeError(
            f"solve_timeout={seconds_text(timeout)} interrupts a solve in its own process "
            f"with SIGALRM, which only the main thread of a POSIX system receives, but "
            f"{where}: use ProcessExecutor(solve_timeout=...), which enforces the limit "
            "from outside the solve, or call from the main thread"
        )
    host, pid = socket.gethostname(), os.getpid()
    outcomes: list[SolveOutcome] = []
    if batches(solver) and len(tasks) > 0:
        start = time.perf_counter()
        seconds = 0.0
        done: list[Solution | Exception] = []
        try:
            with _deadline(timeout, len(tasks)):
                states = [load_state(solver, t.state) for t in tasks]
                weights = np.array([t.weight for t in tasks], dtype=np.float64)
                raw = list(solver.solve_many(weights, states))
                if len(raw) != len(tasks):
                    raise InnerSolverError(
                        f"solve_many returned {len(raw)} solutions for {len(tasks)} weights"
                    )
                seconds = (time.perf_counter() - start) / len(tasks)
                checked = _finite_solutions(raw)
                if checked and all(task.save_to is None for task in tasks):
                    done = raw  # (_check and _finish would return each as it is)
                else:
                    for task, item in zip(tasks, raw, strict=True):
                        try:
                            sol = item if checked else _check(item, task)
                            done.append(_finish(solver, task, sol))
                        except SolveTimeoutError:
                            raise
                        except Exception as exc:
                            done.append(exc)
        except Exception as exc:
            seconds = (time.perf_counter() - start) / len(tasks)
            done = [exc] * len(tasks)
        for task, item in zip(tasks, done, strict=True):
            outcome = (
                failure(task, item, seconds)
                if isinstance(item, Exception)
                # (by position: a round makes N + 1 of them)
                else SolveOutcome(task.slot, task.weight, item, None, None, seconds, host, pid)
            )
            outcomes.append(outcome)
            if on_done is not None:
                on_done(outcome)
        return outcomes
    for task in tasks:
        start = time.perf_counter()
        try:
            with _deadline(timeout, 1):
                raw_one = solver.solve(as_weight(task.weight), load_state(solver, task.state))
                sol = _finish(solver, task, _check(raw_one, task))
            outcome = SolveOutcome(
                task.slot, task.weight, sol, seconds=time.perf_counter() - start, host=host, pid=pid
            )
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


class SolveTraceback(Exception):
    """The traceback of a failed solve, formatted where the solve ran (another process or
    machine): the ``__cause__`` of the :class:`InnerSolverError` that reports it."""


def raise_for(
    outcome: SolveOutcome, attempt: int, *, what: str | None = None, kind: str = "solve"
) -> NoReturn:
    """Raise the :class:`InnerSolverError` of a failed outcome, naming what failed (by
    default the inner solve of its slot at its weight), the attempt and the original error;
    the ``kind``'s traceback (``"solve"``, or ``"job"`` for other work an executor ran) is the
    error's ``__cause__``."""
    how = "was killed" if outcome.killed else "failed"
    if what is None:
        what = f"the inner solve of slot {outcome.slot} (weight {format_weight(outcome.weight)})"
    error = InnerSolverError(
        f"{what} {how} on attempt {attempt}: {outcome.error}",
        slot=outcome.slot,
        weight=outcome.weight,
    )
    if outcome.traceback:
        raise error from SolveTraceback(
            f"the {kind}'s traceback (host {outcome.host}, pid {outcome.pid}):\n"
            f"{outcome.traceback.rstrip()}"
        )
    raise error


class BaseExecutor:
    """A base for executors: the rest of a :class:`ManagedExecutor` given its defaults,
    ``start``/``close`` (which do nothing here) and ``solves_in`` (``"machine"``), and the
    context-manager protocol; subclasses define ``solve``."""

    #: Where the solves run (see :class:`ManagedExecutor`).
    solves_in: str = "machine"

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

    def solve(
        self, solver: Any, tasks: Sequence[SolveTask], on_done: OnDone | None = None
    ) -> list[SolveOutcome]:  # pragma: no cover
        raise NotImplementedError


class LocalExecutor(BaseExecutor):
    """Solve every task in this process (all at once through ``solve_many`` when offered).

    Parameters
    ----------
    solve_timeout : float, optional
        Seconds a task's solve may run (with the loading and saving of its states; a
        ``solve_many`` call of k tasks: k times as long). A solve still running then is
        interrupted in this process: a ``TimeoutError`` is raised inside it through SIGALRM
        (again every second if the solver catches it and carries on), and its outcome fails
        with ``"TimeoutError: the solve ran longer than solve_timeout=..."`` and
        ``killed=False``: a failed attempt, which the run's ``retries`` retries and its solve
        log records. ``None`` (default): no limit.

    Notes
    -----
    The interruption needs SIGALRM (POSIX) and a run in the main thread: elsewhere a round
    with ``solve_timeout`` raises ``RuntimeError`` before solving. Code stuck in C that never
    returns to Python (a blocking system call that retries, a C loop) cannot be interrupted in
    its own process: use :class:`~paretosurf.executors.ProcessExecutor` with
    ``solve_timeout``, which kills the worker. The timer is ``ITIMER_REAL``; one set
    elsewhere in the process is suspended during each solve and put back afterwards.

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.problems import GearToy
    >>> res = ps.surf(GearToy(4).solver(), 6, iterations=2, executor=ps.LocalExecutor())
    >>> res.n_solves
    14
    >>> ps.LocalExecutor(solve_timeout=600)
    LocalExecutor(solve_timeout=600)
    """

    solves_in = "process"

    def __init__(self, *, solve_timeout: float | None = None) -> None:
        #: Seconds a solve may run (``None``: no limit).
        self.solve_timeout = check_solve_timeout(solve_timeout)

    def solve(
        self, solver: Any, tasks: Sequence[SolveTask], on_done: OnDone | None = None
    ) -> list[SolveOutcome]:
        """Run ``tasks`` here (see :func:`execute`)."""
        return execute(solver, tasks, on_done, timeout=self.solve_timeout)

    def __repr__(self) -> str:
        return f"LocalExecutor(solve_timeout={self.solve_timeout!r})"
