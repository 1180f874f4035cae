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

With ``solve_timeout``, a worker interrupts a solve that runs past its limit (as
:class:`~paretosurf.executors.LocalExecutor` does) and the pool kills a worker whose solve has
not come back :data:`KILL_GRACE` seconds after that (code stuck in C): the unit comes back as a
failed ``TimeoutError`` outcome (``killed=True``), charged to nobody's ``max_retries`` and not
run again by the executor (the run's ``retries`` decides), and the other units the broken pool
lost are run again without charge.

Workers die with the process that started them, however it ends: on Linux the kernel sends
them SIGKILL when it dies (``PR_SET_PDEATHSIG``), and on every platform a thread in each
worker ends it within about half a second of finding its parent gone. The folder of the pickled
solver is one of :mod:`paretosurf.storage`: the folder of a run that was killed is removed by
the next :meth:`ProcessExecutor.start` on the machine.

With ``gpus_per_worker``, each worker process gets GPUs of its own: worker ``i`` (in the order
the workers start) sets ``CUDA_VISIBLE_DEVICES`` to the ``i``-th group of ``gpus_per_worker``
devices before anything in it can initialize CUDA, so one node's GPUs run one slot each side
by side (:func:`visible_devices` says which GPUs there are to divide).
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import multiprocessing
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import numpy as np

from paretosurf._utils.validation import check_non_negative_int, check_positive_int
from paretosurf.executors.base import (
    BaseExecutor,
    OnDone,
    SolveOutcome,
    SolveTask,
    alarm_usable,
    batches,
    check_solve_timeout,
    execute,
    failure,
    kept_solver,
    overrun_text,
    usable_cpus,
)
from paretosurf.storage import make_owned_tempdir, remove_owned_tempdir, sweep_stale

__all__ = ["CUDA_VARIABLE", "ProcessExecutor", "device_groups", "visible_devices"]

#: In a worker process: where it reports the units of work it starts, as
#: ``(unit, pid, stage)``: stage 0 when the unit arrives, 1 when its solve begins (the solver
#: loaded).
_STARTED: Any = None

#: Seconds the pool waits, after a solve's ``solve_timeout`` ran out, for the worker to
#: interrupt it and report back before killing the worker.
KILL_GRACE = 2.0
#: Seconds between the pool's checks of deadlines (and the workers' checks of their parent).
_POLL = 0.5
#: The prefix of the folders of pickled solvers (in the temporary folder).
SOLVER_PREFIX = "paretosurf-solver-"
#: ``prctl`` option: the signal a process gets when its parent (the thread that forked it)
#: dies.
_PR_SET_PDEATHSIG = 1
#: The variable that tells CUDA (and every library built on it) which GPUs a process may use.
CUDA_VARIABLE = "CUDA_VISIBLE_DEVICES"
#: In a worker process: why it could not take the GPUs given to it (its solves fail with this).
_DEVICE_ERROR: str | None = None


#: The variables that BLAS and OpenMP libraries read, when they load, for their thread count.
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
)


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


def visible_devices() -> list[str] | None:
    """The GPUs this process may use, as values for ``CUDA_VISIBLE_DEVICES``.

    The entries of this process's own ``CUDA_VISIBLE_DEVICES`` where it is set (``""``: no
    GPU), else the indices that ``nvidia-smi`` lists, else ``None``: this process cannot tell
    (no variable and no ``nvidia-smi``). CUDA is never initialized here, so a pool forked
    afterwards can still use its GPUs.

    Examples
    --------
    On a node whose job was given GPUs 2 and 3:

    >>> import os
    >>> from unittest import mock
    >>> from paretosurf.executors.process import visible_devices
    >>> with mock.patch.dict(os.environ, {"CUDA_VISIBLE_DEVICES": "2,3"}):
    ...     visible_devices()
    ['2', '3']
    """
    value = os.environ.get(CUDA_VARIABLE)
    if value is not None:
        return [d.strip() for d in value.split(",") if d.strip()]
    try:
        listed = subprocess.run(
            ["nvidia-smi", "--query-gpu=index", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if listed.returncode != 0:
        return None
    return [line.strip() for line in listed.stdout.splitlines() if line.strip()]


def _device_name(value: object, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer, str)):
        raise TypeError(
            f"{where} must be a GPU index (an integer >= 0) or a GPU UUID string, got {value!r}"
        )
    name = str(value).strip()
    if not name or "," in name or (not isinstance(value, str) and int(value) < 0):
        raise ValueError(
            f"{where} must be a GPU index (an integer >= 0) or one GPU UUID, got {value!r}"
        )
    return name


def device_groups(
    max_workers: int, gpus_per_worker: int, devices: Sequence[int | str] | None = None
) -> tuple[tuple[str, ...], ...]:
    """The GPUs of each worker: ``max_workers`` groups of ``gpus_per_worker`` devices, taken
    in order from ``devices`` (default: :func:`visible_devices`).

    Raises
    ------
    ValueError
        When there are too few devices, ``devices`` repeats one or names one this process
        cannot see (checked where :func:`visible_devices` can tell), or no GPU is found.

    Examples
    --------
    On a node of 4 GPUs (``CUDA_VISIBLE_DEVICES=0,1,2,3``):

    >>> import os
    >>> from unittest import mock
    >>> from paretosurf.executors.process import device_groups
    >>> with mock.patch.dict(os.environ, {"CUDA_VISIBLE_DEVICES": "0,1,2,3"}):
    ...     device_groups(2, 2)
    ...     device_groups(2, 1, devices=[3, 1])
    (('0', '1'), ('2', '3'))
    (('3',), ('1',))
    >>> with mock.patch.dict(os.environ, {"CUDA_VISIBLE_DEVICES": "0,1,2,3"}):
    ...     device_groups(5, 1)
    Traceback (most recent call last):
    ...
    ValueError: max_workers=5 workers with gpus_per_worker=1 need 5 GPUs, but this process sees 4 (CUDA_VISIBLE_DEVICES=0,1,2,3); lower max_workers or gpus_per_worker
    """  # noqa: E501
    visible = visible_devices()
    seen = (
        "CUDA_VISIBLE_DEVICES=" + os.environ[CUDA_VARIABLE]
        if CUDA_VARIABLE in os.environ
        else "nvidia-smi"
    )
    if devices is None:
        if visible is None:
            raise ValueError(
                "gpus_per_worker: cannot tell which GPUs this machine has "
                "(CUDA_VISIBLE_DEVICES is not set and nvidia-smi is not found); "
                "name them with devices=[0, 1, ...] or set CUDA_VISIBLE_DEVICES"
            )
        if not visible:
            raise ValueError(
                f"gpus_per_worker={gpus_per_worker}, but this process sees no GPU "
                f"({seen}); drop gpus_per_worker to run on the CPU"
            )
        names, source = list(visible), f"this process sees {len(visible)} ({seen})"
    else:
        if isinstance(devices, (str, bytes)) or not isinstance(devices, Sequence):
            raise TypeError(f"devices must be a list of GPU indices or UUIDs, got {devices!r}")
        names = [_device_name(d, f"devices[{i}]") for i, d in enumerate(devices)]
        twice = sorted({d for d in names if names.count(d) > 1})
        if twice:
            raise ValueError(
                f"devices names GPU {twice[0]} more than once: each worker's GPUs must be its own"
            )
        if visible is not None:
            unseen = [d for d in names if d not in visible]
            if unseen:
                raise ValueError(
                    f"devices names GPU {unseen[0]}, which this process cannot "
                    f"see ({seen} lists {','.join(visible) or 'none'})"
                )
        source = f"devices= names {len(names)} ({','.join(names)})"
    need = max_workers * gpus_per_worker
    if need > len(names):
        raise ValueError(
            f"max_workers={max_workers} workers with gpus_per_worker="
            f"{gpus_per_worker} need {need} GPUs, but {source}; lower max_workers "
            "or gpus_per_worker" + ("" if devices is None else ", or give more devices")
        )
    return tuple(
        tuple(names[i * gpus_per_worker : (i + 1) * gpus_per_worker]) for i in range(max_workers)
    )


def _take_devices(groups: tuple[tuple[str, ...], ...], counter: Any) -> None:
    """In a new worker: take the next group of GPUs (the ``counter``-th of the pool's workers)
    and show only those to CUDA; note in :data:`_DEVICE_ERROR` why that is impossible."""
    global _DEVICE_ERROR
    with counter.get_lock():
        index = counter.value
        counter.value += 1
    if index >= len(groups):  # more workers than groups: never, as the pool is sized
        _DEVICE_ERROR = f"worker {index} of a pool of {len(groups)} has no GPUs of its own"
        return
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None)
    bad_fork = getattr(cuda, "_is_in_bad_fork", None)
    if (callable(bad_fork) and bad_fork()) or (cuda is not None and cuda.is_initialized()):
        _DEVICE_ERROR = (
            "this worker process was forked from a process that had already initialized "
            "CUDA, so it cannot take the GPUs given to it (CUDA_VISIBLE_DEVICES="
            f"{','.join(groups[index])}): start the pool with multiprocessing's 'spawn' "
            "method (multiprocessing.set_start_method('spawn') before the run), or use CUDA "
            "in the calling process only after the run"
        )
        return
    os.environ[CUDA_VARIABLE] = ",".join(groups[index])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's process: alive
        return True
    return True


def _watch_parent(parent: int, ppid: int) -> None:
    """A worker's watchdog: end the process once its parent is gone (``os.getppid()`` changes
    when the parent dies and the worker is adopted; ``parent``, the process that started the
    pool, is watched as well where it is not the worker's parent, as under forkserver)."""
    if hasattr(signal, "pthread_sigmask") and hasattr(signal, "SIGALRM"):
        # the alarm that interrupts a solve is for the main thread, never this one
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    while True:
        time.sleep(_POLL)
        if os.getppid() != ppid or (parent != ppid and not _alive(parent)):
            os._exit(1)


def _die_with_parent(parent: int, kernel: bool) -> None:
    """Make this worker die with ``parent``: ``PR_SET_PDEATHSIG`` (Linux, when ``kernel``:
    it fires when the *thread* that forked the worker ends, so only for a fork from a thread
    that lives as long as the process) and a watchdog thread everywhere."""
    if kernel and sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    ppid = os.getppid()
    if ppid != parent and not _alive(parent):  # it died before we got here
        os._exit(1)
    threading.Thread(
        target=_watch_parent, args=(parent, ppid), daemon=True, name="paretosurf-parent-watch"
    ).start()


def _init_worker(
    started: Any,
    threads: int | None,
    parent: int | None = None,
    main_thread: int | None = None,
    method: str | None = None,
    devices: tuple[tuple[tuple[str, ...], ...], Any] | None = None,
) -> None:
    """Pool initializer: keep the report queue, take this worker's GPUs (``devices``: the
    groups of GPUs and the pool's counter of started workers), die with ``parent`` (the
    process that started the pool; ``main_thread`` its main thread's id, ``method`` the start
    method), hold the thread pools to ``threads`` (unless ``None``), and leave Ctrl-C to the
    parent (which shuts the pool down)."""
    global _STARTED
    _STARTED = started
    if devices is not None:
        _take_devices(*devices)
    if parent is not None:
        # forked from the parent's main thread (its id survives the fork), or by the
        # single-threaded fork server: the kernel's signal is safe to ask for
        kernel = (
            method == "fork" and threading.get_ident() == main_thread
        ) or method == "forkserver"
        _die_with_parent(parent, kernel)
    if threads is not None:
        limit_threads(threads)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_unit(
    unit: int, solver_file: tuple[str, str], tasks: list[SolveTask], timeout: float | None = None
) -> list[SolveOutcome]:
    """Run one unit of work in a worker: report it started, get the solver, report its solve
    begins, execute (interrupting it past ``timeout`` per task where this worker can).

    ``solver_file`` is ``(token, path)`` of the pickled solver: a worker reads and unpickles
    it only for its first unit of that solver and keeps it for the units that follow (a
    solver holding a data set is then not shipped and unpickled for every task)."""
    if _STARTED is not None:
        _STARTED.put((unit, os.getpid(), 0))
    token, path = solver_file
    if _DEVICE_ERROR is not None:
        return [failure(task, RuntimeError(_DEVICE_ERROR), 0.0) for task in tasks]

    def load() -> Any:
        with open(path, "rb") as fh:
            return pickle.load(fh)

    try:
        solver = kept_solver(token, load)
    except Exception as exc:
        return [failure(task, exc, 0.0) for task in tasks]
    if _STARTED is not None:
        _STARTED.put((unit, os.getpid(), 1))
    outcomes = execute(solver, tasks, timeout=timeout if alarm_usable() else None)
    if _STARTED is not None:  # before the result: a pool that breaks now loses it, not a suspect
        _STARTED.put((unit, os.getpid(), 2))
    return outcomes


class ProcessExecutor(BaseExecutor):
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
    solve_timeout : float, optional
        Seconds a task's solve may run in its worker, counted from when the worker begins it
        (not from submission; loading the solver in a worker is not counted), with the
        loading and saving of its states; a ``solve_many`` chunk of k tasks may run k times as
        long. The worker interrupts a solve still running then (SIGALRM, as
        :class:`~paretosurf.executors.LocalExecutor` does: ``killed=False``), and the pool
        kills a worker whose solve has not come back :data:`KILL_GRACE` (2) seconds after its
        limit (code stuck in C): its outcome fails with ``"TimeoutError: the solve ran longer
        than solve_timeout=..."`` and ``killed=True``, it is not charged to ``max_retries``
        nor run again here (the run's ``retries`` retries it), and the tasks that the killed
        worker's pool lost run again without charge. ``None`` (default): no limit.
    gpus_per_worker : int, optional
        GPUs of each worker process, its own: worker ``i`` (in the order the workers start)
        sees only the ``i``-th group of ``gpus_per_worker`` of ``devices`` through
        ``CUDA_VISIBLE_DEVICES`` (inside it they are ``cuda:0``, ``cuda:1``, ...), so that
        ``max_workers`` slots train side by side, one per GPU with ``gpus_per_worker=1``.
        ``max_workers * gpus_per_worker`` must not exceed the devices. A worker that replaces
        a dead one gets its GPUs back. ``None`` (default): the workers see the GPUs this
        process sees.
    devices : list of int or str, optional
        The GPUs to divide among the workers, as ``CUDA_VISIBLE_DEVICES`` names them (indices,
        or UUIDs ``GPU-...``/``MIG-...``); implies ``gpus_per_worker=1`` unless that is
        given. Default: the GPUs this process may use (:func:`visible_devices`: its own
        ``CUDA_VISIBLE_DEVICES``, else those ``nvidia-smi`` lists). Devices this process
        cannot see are refused where it can tell.

    Notes
    -----
    The pool uses the platform's default start method. With ``gpus_per_worker`` the workers
    must initialize CUDA themselves: a worker forked (Linux's default) from a process that had
    already initialized CUDA cannot use its GPUs, and its solves fail saying so (call
    ``multiprocessing.set_start_method("spawn")`` first, or use CUDA in the calling process
    only after the run). Ctrl-C in the calling process shuts
    the pool down (pending tasks cancelled, workers terminated) and the ``KeyboardInterrupt``
    propagates; workers themselves ignore Ctrl-C.

    Workers die with the process that started the pool, however it ends: SIGKILL from the
    kernel on Linux (``PR_SET_PDEATHSIG``, for workers forked by the main thread), and a
    watchdog thread in each worker that ends it within about half a second of its parent's
    end. The pickled solver lives in a folder ``paretosurf-solver-*`` of the temporary folder
    that this process holds locked (:mod:`paretosurf.storage`); :meth:`start` removes those
    of processes that are gone (a run killed by SIGKILL or SIGTERM cannot remove its own).

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.problems import GearToy
    >>> with ps.ProcessExecutor(2) as pool:
    ...     res = ps.surf(GearToy(4).solver(), 6, iterations=2, executor=pool)
    >>> res.n_solves
    14
    >>> ps.ProcessExecutor(4, solve_timeout=3600)
    ProcessExecutor(max_workers=4, max_retries=2, threads_per_worker=None, solve_timeout=3600)

    One slot per GPU, here on a node of 8 GPUs (or on the GPUs of ``devices``):

    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7"}):
    ...     ps.ProcessExecutor(8, gpus_per_worker=1).worker_devices[:3]
    ...     ps.ProcessExecutor(2, devices=[4, 5]).worker_devices
    (('0',), ('1',), ('2',))
    (('4',), ('5',))
    """

    def __init__(
        self,
        max_workers: int = 2,
        *,
        max_retries: int = 2,
        threads_per_worker: int | str | None = None,
        solve_timeout: float | None = None,
        gpus_per_worker: int | None = None,
        devices: Sequence[int | str] | None = None,
    ) -> None:
        self.max_workers = check_positive_int(max_workers, name="max_workers")
        if gpus_per_worker is not None:
            gpus_per_worker = check_positive_int(gpus_per_worker, name="gpus_per_worker")
        elif devices is not None:
            gpus_per_worker = 1
        #: GPUs of each worker (``None``: the workers see the GPUs this process sees).
        self.gpus_per_worker: int | None = gpus_per_worker
        #: The ``CUDA_VISIBLE_DEVICES`` of each worker, in the order the workers start
        #: (``None`` without ``gpus_per_worker``).
        self.worker_devices: tuple[tuple[str, ...], ...] | None = (
            None
            if gpus_per_worker is None
            else device_groups(self.max_workers, gpus_per_worker, devices)
        )
        self.max_retries = check_non_negative_int(max_retries, name="max_retries")
        if threads_per_worker == "auto":
            threads_per_worker = max(1, usable_cpus() // self.max_workers)
        elif threads_per_worker is not None:
            if isinstance(threads_per_worker, str):
                raise ValueError(
                    "threads_per_worker must be a positive integer, 'auto' or "
                    f"None, got {threads_per_worker!r}"
                )
            threads_per_worker = check_positive_int(threads_per_worker, name="threads_per_worker")
        #: Threads of each worker's BLAS, OpenMP and torch pools (None: left as they are).
        self.threads_per_worker: int | None = threads_per_worker
        #: Seconds a solve may run (``None``: no limit).
        self.solve_timeout = check_solve_timeout(solve_timeout)
        self._pool: ProcessPoolExecutor | None = None
        self._started: Any = None
        self._units = itertools.count()
        #: The last solver's pickle and its file ``(token, path)``, in a folder of its own.
        self._solver: tuple[bytes, tuple[str, str]] | None = None
        self._folder: str | None = None

    # ------------------------------------------------------------------ the pool
    def start(self) -> bool:
        """Start the worker pool; returns ``False`` if it was already running.

        Also removes the solver folders (``paretosurf-solver-*``) that processes now gone left
        in the temporary folder."""
        if self._pool is not None:
            return False
        with contextlib.suppress(OSError):
            sweep_stale(SOLVER_PREFIX)
        self._open_pool()
        return True

    def _open_pool(self) -> None:
        context = multiprocessing.get_context()
        self._started = context.SimpleQueue()
        devices = (
            None if self.worker_devices is None else (self.worker_devices, context.Value("i", 0))
        )
        initargs = (
            self._started,
            self.threads_per_worker,
            os.getpid(),
            threading.main_thread().ident,
            context.get_start_method(),
            devices,
        )
        self._pool = ProcessPoolExecutor(
            max_workers=self.max_workers,
            mp_context=context,
            initializer=_init_worker,
            initargs=initargs,
        )

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
                self._folder = str(make_owned_tempdir(SOLVER_PREFIX))
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
            remove_owned_tempdir(Path(folder))

    def _close_queue(self) -> None:
        queue, self._started = self._started, None
        if queue is not None:
            queue.close()

    def _restart(self) -> None:
        """Replace a broken pool by a fresh one (the solver's file stays)."""
        self._close_pool()
        self._open_pool()

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

    def _drain(
        self,
        known: dict[int, list[int]],
        started: dict[int, int],
        solving: dict[int, float] | None = None,
        finished: set[int] | None = None,
    ) -> None:
        """Move the workers' reports into ``started`` (unit -> pid), for this round's units,
        into ``solving`` when each unit's solve began (unit -> this process's
        ``time.monotonic()`` when it learnt of it: never earlier than the truth), and into
        ``finished`` once a unit's solves returned (its result may still be lost in transit)."""
        queue = self._started
        now = time.monotonic()
        while queue is not None and not queue.empty():
            unit, pid, stage = queue.get()
            if unit in known:
                started[unit] = pid
                if stage == 1 and solving is not None:
                    solving.setdefault(unit, now)
                elif stage == 2 and finished is not None:
                    finished.add(unit)

    def _kill_worker(self, pid: int) -> None:
        """SIGKILL the pool's worker ``pid`` (one that has exited already is left alone)."""
        processes = getattr(self._pool, "_processes", None)
        if isinstance(processes, dict):
            process = processes.get(pid)
            if process is not None:
                process.kill()
            return
        with contextlib.suppress(ProcessLookupError):  # no worker table: by its pid
            os.kill(pid, signal.SIGKILL)

    # ------------------------------------------------------------------ a round
    def solve(
        self, solver: Any, tasks: Sequence[SolveTask], on_done: OnDone | None = None
    ) -> list[SolveOutcome]:
        """Run ``tasks`` in the worker processes; one outcome per task, in task order."""
        tasks = list(tasks)
        if not tasks:
            return []
        self.start()
        try:
            blob = pickle.dumps(solver, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            raise TypeError(
                f"ProcessExecutor needs a solver that pickles (a module-level "
                f"class or function), got {type(solver).__name__}: {exc}"
            ) from exc
        n = len(tasks)
        if batches(solver):
            groups = [
                c.tolist() for c in np.array_split(np.arange(n), min(self.max_workers, n)) if c.size
            ]
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

    def _solve_units(
        self,
        solver_file: tuple[str, str],
        tasks: list[SolveTask],
        units: dict[int, list[int]],
        outcomes: list[SolveOutcome | None],
        on_done: OnDone | None,
    ) -> None:
        kills = dict.fromkeys(units, 0)
        pids: dict[int, int] = {}
        queue = list(units)  # run side by side
        alone: deque[int] = deque()  # suspects of a worker's death, run one at a time
        blind = 0  # deaths with no unit running (idle worker, start-up failure)
        lost_tries: dict[int, list[SolveOutcome]] = {}  # task -> its tries a broken pool lost
        host = socket.gethostname()

        def lose(unit: int, why: str) -> None:
            """Note the try of ``unit`` that a broken pool lost (it runs again)."""
            for i in units[unit]:
                lost_tries.setdefault(i, []).append(
                    SolveOutcome(
                        tasks[i].slot,
                        tasks[i].weight,
                        None,
                        f"BrokenProcessPool: {why}; run again",
                        host=host,
                        pid=pids.get(unit, 0),
                        killed=True,
                    )
                )

        def give_up(unit: int, why: str) -> None:
            for i in units[unit]:
                task = tasks[i]
                outcome = SolveOutcome(
                    task.slot,
                    task.weight,
                    None,
                    f"BrokenProcessPool: {why} ({kills[unit]} times in all, "
                    f"max_retries={self.max_retries})",
                    host=host,
                    pid=pids.get(unit, 0),
                    killed=True,
                )
                outcomes[i] = outcome
                if on_done is not None:
                    on_done(outcome)

        while queue or alone:
            if alone:
                batch = [alone.popleft()]
            else:
                batch, queue = queue, []
            lost, started, returned, timed_out = self._run_batch(
                solver_file, tasks, units, batch, outcomes, on_done
            )
            if not lost and not timed_out:
                continue
            self._restart()  # a killed worker broke the pool, whoever killed it
            pids.update(started)
            if timed_out:  # this executor killed them: the others are innocent
                for unit in lost:
                    lose(
                        unit,
                        "the pool broke when a worker running a solve past "
                        "solve_timeout beside it was killed",
                    )
                queue = lost + queue
                continue
            for unit in returned:  # solved, but the broken pool lost the result
                lose(
                    unit,
                    "its solve returned but the result was lost when a worker process "
                    "beside it died",
                )
            suspects = [u for u in lost if u in started and u not in returned]
            innocent = [u for u in lost if u not in suspects]
            if len(suspects) == 1:
                unit = suspects[0]
                kills[unit] += 1
                died = (
                    f"the worker process running it (pid {started[unit]}) died "
                    "abruptly, killed by a signal such as SIGKILL or by the "
                    "out-of-memory killer"
                )
                if kills[unit] > self.max_retries:
                    give_up(unit, died)
                else:
                    lose(unit, died)
                    alone.append(unit)
                queue = innocent + queue
            elif suspects:
                for unit in suspects:
                    lose(
                        unit,
                        f"a worker process died abruptly while this ran in pid "
                        f"{started[unit]} beside other tasks (each now runs alone)",
                    )
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

    def _run_batch(
        self,
        solver_file: tuple[str, str],
        tasks: list[SolveTask],
        units: dict[int, list[int]],
        batch: list[int],
        outcomes: list[SolveOutcome | None],
        on_done: OnDone | None,
    ) -> tuple[list[int], dict[int, int], set[int], list[int]]:
        """Submit ``batch``'s units and collect them as they complete, killing the worker of a
        unit past its deadline. Returns the units lost to a broken pool, which of them had
        started (unit -> worker pid), which of those had returned from their solves (their
        results were lost in transit: they cannot have killed their worker), and the units
        whose workers were killed for their deadline (their outcomes are set)."""
        assert self._pool is not None
        futures: dict[Future[list[SolveOutcome]], int] = {}
        lost: list[int] = []
        started: dict[int, int] = {}
        solving: dict[int, float] = {}
        finished: set[int] = set()
        timed_out: list[int] = []
        timeout = self.solve_timeout
        for unit in batch:
            try:
                fut = self._pool.submit(
                    _run_unit, unit, solver_file, [tasks[i] for i in units[unit]], timeout
                )
            except BrokenProcessPool:  # the pool broke before this round got to it
                lost.append(unit)
                continue
            futures[fut] = unit

        def deadline(unit: int) -> float:
            assert timeout is not None
            return solving[unit] + timeout * len(units[unit]) + KILL_GRACE

        pending = set(futures)
        while pending:
            wait_for = None
            if timeout is not None:
                running = [deadline(futures[f]) for f in pending if futures[f] in solving]
                wait_for = min([_POLL, *(max(0.0, d - time.monotonic()) for d in running)])
            done, pending = wait(pending, timeout=wait_for, return_when=FIRST_COMPLETED)
            self._drain(units, started, solving, finished)
            for fut in sorted(done, key=futures.__getitem__):
                unit = futures[fut]
                try:
                    part = fut.result()
                except BrokenProcessPool:
                    lost.append(unit)
                    continue
                except Exception as exc:  # the task or its result did not pickle
                    part = [failure(tasks[i], exc, 0.0) for i in units[unit]]
                for i, outcome in zip(units[unit], part, strict=True):
                    outcomes[i] = outcome
                    if on_done is not None:
                        on_done(outcome)
            if timeout is None:
                continue
            now = time.monotonic()
            for fut in sorted(pending, key=futures.__getitem__):
                unit = futures[fut]
                if unit not in solving or now < deadline(unit):
                    continue
                pending.discard(fut)  # its future fails with the broken pool: ignored
                pid = started[unit]
                self._kill_worker(pid)
                timed_out.append(unit)
                n = len(units[unit])
                for i in units[unit]:
                    outcome = SolveOutcome(
                        tasks[i].slot,
                        tasks[i].weight,
                        None,
                        f"TimeoutError: {overrun_text(timeout, n)} and did not return "
                        f"{KILL_GRACE:g}s after it was interrupted; its worker process (pid "
                        f"{pid}) was killed (SIGKILL)",
                        seconds=(now - solving[unit]) / n,
                        host=socket.gethostname(),
                        pid=pid,
                        killed=True,
                    )
                    outcomes[i] = outcome
                    if on_done is not None:
                        on_done(outcome)
        if lost:
            self._drain(units, started, finished=finished)
        lost.sort(key=batch.index)
        return (
            lost,
            {u: pid for u, pid in started.items() if u in lost},
            finished.intersection(lost),
            timed_out,
        )

    def __repr__(self) -> str:
        gpus = (
            ""
            if self.worker_devices is None
            else f", gpus_per_worker={self.gpus_per_worker}, devices="
            f"{[d for group in self.worker_devices for d in group]!r}"
        )
        return (
            f"ProcessExecutor(max_workers={self.max_workers}, max_retries="
            f"{self.max_retries}, threads_per_worker={self.threads_per_worker}, "
            f"solve_timeout={self.solve_timeout!r}{gpus})"
        )
