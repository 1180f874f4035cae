"""One job on several processes: the launcher of a slot that trains on several devices.

:func:`run_ranks` starts ``processes`` fresh Python processes (the ``spawn`` start method) on
this machine, each with the environment variables that ``torchrun`` sets (``MASTER_ADDR``,
``MASTER_PORT``, ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``), and calls
``fn(rank, *args)`` in each. Accelerate (inside TRL's trainers) reads these variables and
joins the processes into one ``torch.distributed`` group: NCCL on CUDA GPUs (rank ``r`` on
``cuda:r`` of the devices the process sees), gloo on the CPU (a trainer with
``use_cpu=True`` and ``WORLD_SIZE > 1`` is Accelerate's ``MULTI_CPU``, which reads ``RANK``,
``WORLD_SIZE``, ``LOCAL_RANK`` and ``LOCAL_WORLD_SIZE``; with ``OMP_NUM_THREADS`` unset it
gives each process ``physical cores / processes`` threads).

The launcher, not the job, watches for failures:

- a process that raises writes its traceback, and :func:`run_ranks` raises
  :class:`RankError` with it (the first rank that failed; the others fail after it, waiting
  on the one that is gone);
- a process that dies without raising (a signal, the out-of-memory killer, ``os._exit``) is
  reported with its exit code or signal;
- as soon as one process has failed, the others are stopped (SIGTERM, then SIGKILL after
  ``grace`` seconds): a process blocked in a collective operation with a dead peer is never
  left waiting;
- with ``timeout``, a job that runs longer is stopped and ``TimeoutError`` raised;
- the processes die with the process that started them (``PR_SET_PDEATHSIG`` on Linux, and
  a thread in each that ends it once its parent is gone), and an exception in the caller
  (``KeyboardInterrupt`` included) stops them before it propagates: no process outlives a
  call.

``fn`` and ``args`` must pickle (``fn`` a function or method importable by name). Nothing here
imports torch: a job that does not need it starts in the time Python takes.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import socket
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["RankError", "free_port", "rank_environment", "run_ranks"]

#: ``prctl`` option: the signal a process gets when the thread that started it ends.
_PR_SET_PDEATHSIG = 1
#: Seconds between a process's checks that its parent is alive.
_POLL = 0.5


class RankError(RuntimeError):
    """A process of a :func:`run_ranks` job failed.

    Attributes
    ----------
    rank : int
        The first process that failed.
    worker_traceback : str or None
        Its traceback, as it printed it (``None`` when it died without raising: a signal,
        ``os._exit``).
    exitcode : int or None
        Its exit code (negative: the signal that ended it).
    """

    def __init__(
        self, message: str, *, rank: int, worker_traceback: str | None, exitcode: int | None
    ) -> None:
        super().__init__(message)
        self.rank = rank
        self.worker_traceback = worker_traceback
        self.exitcode = exitcode


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` that nothing listens on now (the OS's choice).

    Examples
    --------
    >>> from paretosurf.llm.distributed import free_port
    >>> 0 < free_port() < 65536
    True
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def rank_environment(
    rank: int, processes: int, port: int, host: str = "127.0.0.1"
) -> dict[str, str]:
    """The environment variables of process ``rank`` of a one-machine job, as ``torchrun``
    sets them (and Accelerate reads them).

    Examples
    --------
    >>> from paretosurf.llm.distributed import rank_environment
    >>> env = rank_environment(1, 2, 29500)
    >>> env["RANK"], env["LOCAL_RANK"], env["WORLD_SIZE"], env["MASTER_PORT"]
    ('1', '1', '2', '29500')
    """
    return {
        "MASTER_ADDR": host,
        "MASTER_PORT": str(port),
        "RANK": str(rank),
        "LOCAL_RANK": str(rank),
        "GROUP_RANK": "0",
        "WORLD_SIZE": str(processes),
        "LOCAL_WORLD_SIZE": str(processes),
    }


def run_ranks(
    fn: Callable[..., Any],
    args: Sequence[Any] = (),
    *,
    processes: int,
    timeout: float | None = None,
    grace: float = 5.0,
    env: Mapping[str, str] | None = None,
) -> None:
    """Run ``fn(rank, *args)`` in ``processes`` new processes as one distributed job; return
    when every one has returned.

    Parameters
    ----------
    fn : callable
        Importable by name in a fresh interpreter (a module-level function, or a method of
        an object that pickles); what it returns is dropped (write results to files).
    args : sequence
        Further arguments of ``fn``; they must pickle.
    processes : int
        How many processes (ranks ``0 .. processes - 1``), >= 1.
    timeout : float, optional
        Seconds the whole job may take; then every process is stopped and ``TimeoutError``
        raised. Default: no limit.
    grace : float
        Seconds a process gets to end after SIGTERM before it is killed.
    env : mapping, optional
        Further environment variables of every process.

    Raises
    ------
    RankError
        When a process raises or dies: its rank, its traceback and exit code.
    TimeoutError
        When the job runs past ``timeout``.

    Examples
    --------
    >>> from paretosurf.llm.distributed import run_ranks
    >>> run_ranks(print, ("hello",), processes=2)  # doctest: +SKIP
    0 hello
    1 hello
    """
    if isinstance(processes, bool) or not isinstance(processes, int) or processes < 1:
        raise ValueError(f"processes must be an integer >= 1, got {processes!r}")
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be > 0 seconds or None, got {timeout!r}")
    # pickled here: what does not pickle fails now, and what does not unpickle in a rank
    # fails there with a traceback (not in multiprocessing's start-up, which keeps none)
    payload = pickle.dumps((fn, tuple(args)))
    context = multiprocessing.get_context("spawn")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="paretosurf-ranks-") as tmp:
        reports = Path(tmp)
        procs: list[Any] = []
        try:
            for rank in range(processes):
                variables = {**(env or {}), **rank_environment(rank, processes, port)}
                proc = context.Process(
                    target=_rank_main,
                    args=(payload, rank, variables, str(reports), os.getpid()),
                    name=f"paretosurf-rank-{rank}",
                )
                proc.start()
                procs.append(proc)
            _wait(procs, reports, timeout)
        finally:
            _stop(procs, grace)


def _wait(procs: list[Any], reports: Path, timeout: float | None) -> None:
    """Wait until every process has ended well; raise at the first that did not (or at the
    timeout)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    running = {proc.sentinel: rank for rank, proc in enumerate(procs)}
    while running:
        left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
        ready = multiprocessing.connection.wait(list(running), timeout=left)
        if not ready:
            raise TimeoutError(
                f"the {len(procs)} processes of a distributed job ran past its timeout of "
                f"{timeout:g} s and were stopped"
            )
        for sentinel in ready:
            rank = running.pop(sentinel)
            procs[rank].join()
            if procs[rank].exitcode != 0 or not (reports / f"{rank}.done").exists():
                raise _failure(procs, reports, rank)  # the caller then stops the others


def _failure(procs: list[Any], reports: Path, first: int) -> RankError:
    """The error of a failed job whose process ``first`` was found ended badly first: the
    earliest traceback written, unless ``first`` died without one (killed, say), which the
    others' errors then only follow."""
    written = {}
    for rank in range(len(procs)):
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            report = json.loads((reports / f"{rank}.error").read_text())
            written[rank] = (float(report["time"]), str(report["traceback"]))
    n = len(procs)
    rank = min(written, key=lambda r: written[r]) if first in written else first
    others = sorted(r for r in written if r != rank)
    also = (
        f" (then rank {', '.join(map(str, others))} failed too: "
        f"{_last_line(written[others[0]][1])})"
        if others
        else ""
    )
    if rank in written:
        text = written[rank][1]
        return RankError(
            f"rank {rank} of the {n} processes of a distributed job failed: "
            f"{_last_line(text)}{also}\n\nTraceback of rank {rank}:\n{text}",
            rank=rank,
            worker_traceback=text,
            exitcode=procs[rank].exitcode,
        )
    code = procs[rank].exitcode
    if code is not None and code < 0:
        try:
            how = f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"was killed by signal {-code}"
    elif code == 0:
        how = "exited before its work was done (os._exit or sys.exit(0) mid-job)"
    else:
        how = f"exited with code {code} without a Python traceback"
    return RankError(
        f"rank {rank} of the {n} processes of a distributed job {how}{also}; the others "
        "were stopped",
        rank=rank,
        worker_traceback=None,
        exitcode=code,
    )


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else "an error"


def _stop(procs: list[Any], grace: float) -> None:
    """End every process still alive: SIGTERM, ``grace`` seconds, SIGKILL; then reap all."""
    alive = [p for p in procs if p.is_alive()]
    for proc in alive:
        with contextlib.suppress(OSError):
            proc.terminate()
    deadline = time.monotonic() + grace
    for proc in alive:
        proc.join(max(deadline - time.monotonic(), 0.0))
    for proc in alive:
        if proc.is_alive():
            with contextlib.suppress(OSError):
                proc.kill()
    for proc in procs:
        with contextlib.suppress(AssertionError, ValueError):  # one that never started
            proc.join()


def _rank_main(
    payload: bytes, rank: int, variables: Mapping[str, str], reports: str, parent: int
) -> None:
    """A process of the job: die with ``parent``, take the rank's environment, run
    ``fn(rank, *args)`` (``payload`` their pickle), and leave ``<rank>.done`` (or
    ``<rank>.error`` with the traceback) in ``reports``."""
    _die_with_parent(parent)
    os.environ.update(variables)
    folder = Path(reports)
    try:
        fn, args = pickle.loads(payload)
        fn(rank, *args)
    except BaseException:  # reported to the parent, whatever it was
        report = {"time": time.time(), "traceback": traceback.format_exc()}
        tmp = folder / f".{rank}.error.tmp"
        tmp.write_text(json.dumps(report))
        os.replace(tmp, folder / f"{rank}.error")
        sys.stderr.flush()
        os._exit(1)
    _teardown()
    (folder / f"{rank}.done").touch()


def _teardown() -> None:
    """Leave the process group cleanly if the job started one (and torch is loaded)."""
    dist = sys.modules.get("torch.distributed")
    if dist is None:
        return
    with contextlib.suppress(Exception):
        if dist.is_available() and dist.is_initialized():
            dist.destroy_process_group()


def _die_with_parent(parent: int) -> None:
    """End this process when ``parent`` ends: the kernel's SIGKILL (Linux) and a thread that
    polls the parent's id elsewhere."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # it ended before we got here
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(_POLL)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="paretosurf-parent-watch").start()
