"""Solves in a pool of local worker processes, kept for the whole run and restarted when a
worker dies.

The solver is pickled once per round into a file (written again only when the pickle changes),
and each worker unpickles it once and keeps it for the units that follow, as a local run keeps
its one solver: a solver holding a model or a data set is neither shipped nor unpickled for
every task. A deterministic solver (its result depends on the weight and the warm start only)
gives the same results, to the last bit, as :class:`LocalExecutor`; one that changes itself
while solving (an internal random generator, say) gives results that depend on which worker ran
which task, so seed such a solver from the weight or the state.

A worker killed by a signal (SIGKILL, the out-of-memory killer) breaks a
``concurrent.futures`` pool: every unfinished future fails with ``BrokenProcessPool``. The
executor then starts a new pool and resubmits the lost work. Workers report each unit of work
they start, so only units that were running when the pool broke are suspected; a lone suspect
is charged one attempt, and several suspects are rerun one at a time, so that the next death
names its culprit. A unit that kills its worker more than ``max_retries`` times comes back as a
``killed`` outcome; the run's own ``retries`` then decides.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import pickle
import shutil
import signal
import socket
import sys
import tempfile
import uuid
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import numpy as np

from paretosurf._validation import check_non_negative_int, check_positive_int
from paretosurf.executors.base import (
    OnDone,
    SolveOutcome,
    SolveTask,
    _Lifecycle,
    batches,
    execute,
    failure,
    kept_solver,
    usable_cpus,
)

__all__ = ["ProcessExecutor"]

#: In a worker process: where it reports the units of work it starts.
_STARTED: Any = None


#: The variables that BLAS and OpenMP libraries read, when they load, for their thread count.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def limit_threads(threads: int) -> None:
    """Hold this process's BLAS, OpenMP and torch thread pools to ``threads`` threads: those
    already loaded (inherited from a forked parent) through threadpoolctl, those loaded later
    through the variables they read when they load."""
    for name in THREAD_VARIABLES:
        os.environ[name] = str(threads)
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=threads)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)


def _init_worker(started: Any, threads: int | None) -> None:
    """Pool initializer: keep the report queue, hold the thread pools to ``threads`` (unless
    ``None``), and leave Ctrl-C to the parent (which shuts the pool down)."""
    global _STARTED
    _STARTED = started
    if threads is not None:
        limit_threads(threads)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_unit(unit: int, solver_file: tuple[str, str],
              tasks: list[SolveTask]) -> list[SolveOutcome]:
    """Run one unit of work in a worker: report it started, get the solver, execute.

    ``solver_file`` is ``(token, path)`` of the pickled solver: a worker reads and unpickles
    it only for its first unit of that solver and keeps it for the units that follow (a
    solver holding a data set is then not shipped and unpickled for every task)."""
    if _STARTED is not None:
        _STARTED.put((unit, os.getpid()))
    token, path = solver_file

    def load() -> Any:
        with open(path, "rb") as fh:
            return pickle.load(fh)

    try:
        solver = kept_solver(token, load)
    except Exception as exc:
        return [failure(task, exc, 0.0) for task in tasks]
    return execute(solver, tasks)


class ProcessExecutor(_Lifecycle):
    """Spread tasks over ``max_workers`` local processes (the solver must be picklable).

    The pool is created once, by :meth:`start` (or the first round), and kept for the whole
    run, and each worker keeps the solver it unpickled until the solver changes, so a
    solver's start-up (imports, models) is paid once per worker. A run closes the
    pool it started; use the executor as a context manager to keep one pool across runs.

    A solver with ``solve_many`` gets contiguous chunks of a round, one per worker, each in one
    ``solve_many`` call; any other solver gets one task per submission, so that a slow slot
    holds up no other and a killed worker loses only its own task. ``on_done`` is called as
    each task or chunk completes; outcomes come back in task order.

    Parameters
    ----------
    max_workers : int
        Worker processes, >= 1.
    max_retries : int
        How many times a task (or chunk) whose worker died is resubmitted, >= 0. After that
        its outcome has ``killed=True`` and an error naming what happened. The tries lost
        are in the outcome's ``lost`` (and in a run's solve log).
    threads_per_worker : int, "auto" or None
        Threads each worker's BLAS, OpenMP and torch pools may use. ``None`` (default)
        leaves them as the workers inherit them, so that a deterministic solver gives
        :class:`LocalExecutor`'s results to the last bit. ``"auto"``: the usable CPUs divided
        among the workers (at least 1), so that the workers do not oversubscribe the cores
        (numpy's BLAS alone starts one thread per core in every process); a BLAS routine
        whose rounding depends on its thread count may then give results that differ from a
        local run's in the last bits (a scipy solver's weights moved by 1e-10 with 1 thread
        per worker against 2 locally).

    Notes
    -----
    The pool uses the platform's default start method. Ctrl-C in the calling process shuts
    the pool down (pending tasks cancelled, workers terminated) and the ``KeyboardInterrupt``
    propagates; workers themselves ignore Ctrl-C.

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.problems import GearToy
    >>> with ps.ProcessExecutor(2) as pool:
    ...     res = ps.surf(GearToy(4).solver(), 6, iterations=2, executor=pool)
    >>> res.n_solves
    14
    """

    def __init__(self, max_workers: int = 2, *, max_retries: int = 2,
                 threads_per_worker: int | str | None = None) -> None:
        self.max_workers = check_positive_int(max_workers, name="max_workers")
        self.max_retries = check_non_negative_int(max_retries, name="max_retries")
        if threads_per_worker == "auto":
            threads_per_worker = max(1, usable_cpus() // self.max_workers)
        elif threads_per_worker is not None:
            if isinstance(threads_per_worker, str):
                raise ValueError("threads_per_worker must be a positive integer, 'auto' or "
                                 f"None, got {threads_per_worker!r}")
            threads_per_worker = check_positive_int(threads_per_worker,
                                                    name="threads_per_worker")
        #: Threads of each worker's BLAS, OpenMP and torch pools (None: left as they are).
        self.threads_per_worker: int | None = threads_per_worker
        self._pool: ProcessPoolExecutor | None = None
        self._started: Any = None
        self._units = itertools.count()
        #: The last solver's pickle and its file ``(token, path)``, in a folder of its own.
        self._solver: tuple[bytes, tuple[str, str]] | None = None
        self._folder: str | None = None

    # ------------------------------------------------------------------ the pool
    def start(self) -> bool:
        """Start the worker pool; returns ``False`` if it was already running."""
        if self._pool is not None:
            return False
        context = multiprocessing.get_context()
        self._started = context.SimpleQueue()
        self._pool = ProcessPoolExecutor(max_workers=self.max_workers, mp_context=context,
                                         initializer=_init_worker,
                                         initargs=(self._started, self.threads_per_worker))
        return True

    def close(self) -> None:
        """Shut the pool down (waiting for running tasks; pending ones are cancelled)."""
        self._close_pool()
        self._remove_solver_file()

    def _close_pool(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        self._close_queue()

    def _solver_file(self, blob: bytes) -> tuple[str, str]:
        """``(token, path)`` of a file holding ``blob`` (written again only when it changes)."""
        if self._solver is None or self._solver[0] != blob:
            if self._folder is None:
                self._folder = tempfile.mkdtemp(prefix="paretosurf-solver-")
            token = uuid.uuid4().hex
            path = os.path.join(self._folder, f"{token}.pkl")
            with open(path, "wb") as fh:
                fh.write(blob)
            if self._solver is not None:
                with contextlib.suppress(OSError):
                    os.unlink(self._solver[1][1])
            self._solver = (blob, (token, path))
        return self._solver[1]

    def _remove_solver_file(self) -> None:
        folder, self._folder, self._solver = self._folder, None, None
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)

    def _close_queue(self) -> None:
        queue, self._started = self._started, None
        if queue is not None:
            queue.close()

    def _restart(self) -> None:
        """Replace a broken pool by a fresh one (the solver's file stays)."""
        self._close_pool()
        self.start()

    def _abort(self) -> None:
        """Shut the pool down now: cancel pending tasks and terminate the workers, so that
        Ctrl-C does not wait for running solves."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # ProcessPoolExecutor has no public way to stop running tasks before Python 3.14
        # (terminate_workers); its worker table is the way in until then.
        workers = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in workers:
            process.terminate()
        for process in workers:
            process.join(timeout=5)
        self._close_queue()

    def _drain(self, known: dict[int, list[int]], started: dict[int, int]) -> None:
        """Move the workers' start reports into ``started`` (unit -> pid), for this round's
        units."""
        queue = self._started
        while queue is not None and not queue.empty():
            unit, pid = queue.get()
            if unit in known:
                started[unit] = pid

    # ------------------------------------------------------------------ a round
    def solve(self, solver: Any, tasks: Sequence[SolveTask],
              on_done: OnDone | None = None) -> list[SolveOutcome]:
        """Run ``tasks`` in the worker processes; one outcome per task, in task order."""
        tasks = list(tasks)
        if not tasks:
            return []
        self.start()
        try:
            blob = pickle.dumps(solver, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            raise TypeError(f"ProcessExecutor needs a solver that pickles (a module-level "
                            f"class or function), got {type(solver).__name__}: {exc}") from exc
        n = len(tasks)
        if batches(solver):
            groups = [c.tolist() for c in np.array_split(np.arange(n), min(self.max_workers, n))
                      if c.size]
        else:
            groups = [[i] for i in range(n)]
        units = {next(self._units): group for group in groups}
        outcomes: list[SolveOutcome | None] = [None] * n
        try:
            self._solve_units(self._solver_file(blob), tasks, units, outcomes, on_done)
        except BaseException:
            self._abort()
            raise
        assert all(o is not None for o in outcomes)
        return [o for o in outcomes if o is not None]

    def _solve_units(self, solver_file: tuple[str, str], tasks: list[SolveTask],
                     units: dict[int, list[int]],
                     outcomes: list[SolveOutcome | None], on_done: OnDone | None) -> None:
        kills = dict.fromkeys(units, 0)
        pids: dict[int, int] = {}
        queue = list(units)       # run side by side
        alone: deque[int] = deque()  # suspects of a worker's death, run one at a time
        blind = 0                 # deaths with no unit running (idle worker, start-up failure)
        lost_tries: dict[int, list[SolveOutcome]] = {}  # task -> its tries a broken pool lost
        host = socket.gethostname()

        def lose(unit: int, why: str) -> None:
            """Note the try of ``unit`` that a broken pool lost (it runs again)."""
            for i in units[unit]:
                lost_tries.setdefault(i, []).append(SolveOutcome(
                    tasks[i].slot, tasks[i].weight, None, f"BrokenProcessPool: {why}; run "
                    "again", host=host, pid=pids.get(unit, 0), killed=True))

        def give_up(unit: int, why: str) -> None:
            for i in units[unit]:
                task = tasks[i]
                outcome = SolveOutcome(
                    task.slot, task.weight, None,
                    f"BrokenProcessPool: {why} ({kills[unit]} times in all, "
                    f"max_retries={self.max_retries})",
                    host=host, pid=pids.get(unit, 0), killed=True)
                outcomes[i] = outcome
                if on_done is not None:
                    on_done(outcome)

        while queue or alone:
            if alone:
                batch = [alone.popleft()]
            else:
                batch, queue = queue, []
            lost, started = self._run_batch(solver_file, tasks, units, batch, outcomes,
                                            on_done)
            if not lost:
                continue
            self._restart()
            pids.update(started)
            suspects = [u for u in lost if u in started]
            innocent = [u for u in lost if u not in started]
            if len(suspects) == 1:
                unit = suspects[0]
                kills[unit] += 1
                died = (f"the worker process running it (pid {started[unit]}) died "
                        "abruptly, killed by a signal such as SIGKILL or by the "
                        "out-of-memory killer")
                if kills[unit] > self.max_retries:
                    give_up(unit, died)
                else:
                    lose(unit, died)
                    alone.append(unit)
                queue = innocent + queue
            elif suspects:
                for unit in suspects:
                    lose(unit, f"a worker process died abruptly while this ran in pid "
                               f"{started[unit]} beside other tasks (each now runs alone)")
                alone.extend(suspects)
                queue = innocent + queue
            else:
                blind += 1
                if blind > self.max_retries:
                    for unit in lost:
                        kills[unit] = blind
                        give_up(unit, "the worker processes died before running it")
                else:
                    queue = lost + queue
        for i, tries in lost_tries.items():
            outcome = outcomes[i]
            if outcome is not None:
                outcome.lost = tuple(tries)

    def _run_batch(self, solver_file: tuple[str, str], tasks: list[SolveTask],
                   units: dict[int, list[int]],
                   batch: list[int], outcomes: list[SolveOutcome | None],
                   on_done: OnDone | None) -> tuple[list[int], dict[int, int]]:
        """Submit ``batch``'s units and collect them as they complete. Returns the units lost
        to a broken pool and which units had started (unit -> worker pid)."""
        assert self._pool is not None
        futures: dict[Future[list[SolveOutcome]], int] = {}
        lost: list[int] = []
        started: dict[int, int] = {}
        for unit in batch:
            try:
                fut = self._pool.submit(_run_unit, unit, solver_file,
                                        [tasks[i] for i in units[unit]])
            except BrokenProcessPool:  # the pool broke before this round got to it
                lost.append(unit)
                continue
            futures[fut] = unit
        for fut in as_completed(futures):
            unit = futures[fut]
            try:
                part = fut.result()
            except BrokenProcessPool:
                lost.append(unit)
                continue
            except Exception as exc:  # the task or its result did not pickle
                part = [failure(tasks[i], exc, 0.0) for i in units[unit]]
            self._drain(units, started)
            for i, outcome in zip(units[unit], part, strict=True):
                outcomes[i] = outcome
                if on_done is not None:
                    on_done(outcome)
        if lost:
            self._drain(units, started)
        lost.sort(key=batch.index)
        return lost, {u: pid for u, pid in started.items() if u in lost}

    def __repr__(self) -> str:
        return (f"ProcessExecutor(max_workers={self.max_workers}, max_retries="
                f"{self.max_retries}, threads_per_worker={self.threads_per_worker})")
