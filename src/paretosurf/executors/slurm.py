"""Solves as SLURM jobs through submitit: each round one job array, each solve one job with
its own CPUs, GPUs, memory and time limit; the jobs outlive the process that submitted them.

Each task of a round is one job (one element of a job array, ``sbatch --array``) that runs
:func:`~paretosurf.executors.execute` on that task alone, in a fresh Python process on a node
of the cluster: it loads the solver pickled once per round into the executor's folder, loads
the task's warm start (a state folder of the run folder for a solver with
``save_state``/``load_state``), solves, saves the new state, and leaves its outcome in the
folder, where the executor collects it. A solve that raises is a failed outcome, as on every
executor; a job that ends without a result (killed by a signal, a failed node, out of memory,
cancelled, preempted) is submitted again, up to ``max_retries`` times, and its earlier tries
are the outcome's ``lost`` (a preempted job is cancelled first, so that SLURM's requeue of it
cannot run the solve twice; one that SLURM requeued already runs again under its id, and is
waited for).

**Jobs that outlive the driver.** Every job submitted is recorded, as one line of JSON, in
``FOLDER/jobs.jsonl`` (appended, flushed and synced before the executor waits for it): the
job's id and its task's identity, a digest of the slot, the weight, the warm start, where its
state goes and the solver's pickle. A new executor over the same folder, in a driver started
again after the first was killed (a logout on the login node, a SIGKILL, a driver job that
reached its time limit), asked to solve a task recorded there collects the job instead of
submitting it again: its result when it finished meanwhile, or the job itself while it runs.
A job that failed, ended without a result or is unknown to SLURM is submitted again. A run
with ``checkpoint=DIR`` resumed with ``resume=True`` (the same call) so picks up the round
that was in flight, states on disk included: a job of a solver that keeps its states in folders
(``save_state``/``load_state``) saves its new state into the executor's folder
(``FOLDER/job-states/``), and the executor places it in the run folder (as hard links where the
filesystem allows) when it collects the result, so a job that finished while no driver ran
keeps its state through the resume, which deletes the run folder's state folders written after
its last checkpoint. Each decision is logged (``logging.getLogger("paretosurf.executors.slurm")``,
level INFO).

submitit is the ``slurm`` extra; it is imported by :meth:`SlurmExecutor.start`, never by
``import paretosurf``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import numbers
import os
import pickle
import shutil
import signal
import socket
import sys
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from paretosurf._utils.processes import process_alive
from paretosurf._utils.validation import (
    check_flag,
    check_non_negative_int,
    check_positive,
    check_positive_int,
)
from paretosurf.executors.base import (
    BaseExecutor,
    OnDone,
    SolveOutcome,
    SolveTask,
    alarm_usable,
    check_solve_timeout,
    execute,
    failure,
    kept_solver,
    overrun_text,
    seconds_text,
)
from paretosurf.solvers import format_weight
from paretosurf.storage import StateFolder, atomic_write, copy_state_folder

__all__ = ["JOB_STATES", "JOURNAL", "KILL_GRACE", "SlurmExecutor"]

_LOG = logging.getLogger(__name__)

#: The journal of the jobs an executor submitted, in its folder (JSON lines, appended).
JOURNAL = "jobs.jsonl"
#: The folder, in the executor's, where each job of a disk-state solver saves its new state
#: (``JOB_STATES/RUN``, by the job's submission): the executor places it at the task's
#: ``save_to`` in the run folder when it collects the result, and deletes the folders of the
#: jobs in its journal when a run closes the executor without an error. (Not ``states``: the
#: executor's folder may be the run folder itself, whose ``states/`` the run keeps.)
JOB_STATES = "job-states"
#: Seconds the executor waits, after a solve's ``solve_timeout`` ran out, for its job to
#: interrupt it and return before cancelling the job.
KILL_GRACE = 2.0
#: Seconds a SLURM job that ended may take to show its result file (a shared filesystem's
#: caches) before it counts as ended without one.
RESULT_GRACE = 15.0
#: Seconds between two queries of SLURM's accounting (``sacct``) for the jobs' states.
SACCT_EVERY = 30.0
#: The clusters the executor runs on: SLURM, processes of this machine (submitit's local
#: executor, for tests), or this process when each result is collected (submitit's debug
#: executor, for a debugger).
CLUSTERS = ("slurm", "local", "debug")
#: SLURM job states of a job that has not ended (``sacct``'s ``State``).
_IN_FLIGHT = frozenset(
    {
        "PENDING",
        "CONFIGURING",
        "RUNNING",
        "COMPLETING",
        "REQUEUED",
        "REQUEUE_FED",
        "REQUEUE_HOLD",
        "RESIZING",
        "SUSPENDED",
        "SIGNALING",
        "STAGE_OUT",
        "READY",
    }
)
#: The version of the journal's lines.
_JOURNAL_VERSION = 1


# ---------------------------------------------------------------------------- in the job
def _run_job(
    solver_file: str, token: str, task: SolveTask, timeout: float | None, started: str
) -> SolveOutcome:
    """The job: one :class:`SolveTask` through :func:`execute`, in a process of a node.

    Loads the pickled solver (a failure to load it fails the solve), writes ``started`` (the
    host, process and time at which the solve begins, which the executor's hard deadline
    counts from), and interrupts the solve past ``timeout`` where it can (SIGALRM)."""

    def load() -> Any:
        with open(solver_file, "rb") as fh:
            return pickle.load(fh)

    try:
        solver = kept_solver(token, load)
    except Exception as exc:  # a module the solver needs is missing on this node, say
        return failure(task, exc, 0.0)
    note = json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "time": time.time()})
    with contextlib.suppress(OSError):
        atomic_write(Path(started), lambda fh: fh.write(note), "w", sync=False)
    interrupt = timeout if timeout is not None and alarm_usable() else None
    return execute(solver, [task], timeout=interrupt)[0]


# ---------------------------------------------------------------------------- identities
def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _fingerprint(value: Any, fallback: bytes | None = None) -> str:
    """A digest of ``value``'s pickle: the standard one where it pickles (classes by name, so
    the same solver built again in another process has the same digest), else ``fallback``
    (its cloudpickle)."""
    try:
        return _digest(pickle.dumps(value, protocol=4))
    except Exception:
        if fallback is None:
            import cloudpickle

            fallback = cloudpickle.dumps(value)
        return _digest(fallback)


def _canonical(value: Any, depth: int = 0) -> Any:
    """``value`` in a form that JSON writes the same for equal values, whatever their types
    (a float and numpy's, a list and the tuple it was saved from, as a checkpoint may give a
    resumed run): numbers to the last bit, numeric arrays by dtype, shape and a digest of their
    bytes, sequences and string-keyed dicts item by item; anything else by its pickle's
    digest."""
    if value is None or isinstance(value, (bool, np.bool_, str)):
        return bool(value) if isinstance(value, np.bool_) else value
    if isinstance(value, numbers.Integral):
        return ["int", int(value)]
    if isinstance(value, numbers.Real):
        return ["float", float(value).hex()]
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        data = np.ascontiguousarray(value).tobytes()
        return ["array", value.dtype.str, list(value.shape), _digest(data)]
    if depth < 8 and isinstance(value, (list, tuple)):
        return ["seq", [_canonical(v, depth + 1) for v in value]]
    if depth < 8 and isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return ["map", [[k, _canonical(value[k], depth + 1)] for k in sorted(value)]]
    return ["pickle", _fingerprint(value)]


def _state_key(state: Any) -> str:
    """The identity of a warm start: a state folder by its path, a state in memory by its
    value (:func:`_canonical`).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.executors.slurm import _state_key
    >>> _state_key(0.25) == _state_key(np.float64(0.25)), _state_key(0.25) == _state_key(0.5)
    (True, False)
    >>> _state_key([np.zeros(2), 1]) == _state_key((np.zeros(2), 1))
    True
    """
    if state is None:
        return "none"
    if isinstance(state, StateFolder):
        return f"folder:{state.path}"
    return "value:" + _digest(json.dumps(_canonical(state)).encode())


def _weight_value(weight: Any) -> float | list[float]:
    if isinstance(weight, np.ndarray):
        return [float(w) for w in weight.ravel()]
    return float(weight)


def _task_key(task: SolveTask, solver: str) -> str:
    """The identity of a solve: its slot, weight (to the last bit), warm start, the folder its
    state goes to and its solver's fingerprint."""
    weight = _weight_value(task.weight)
    bits = [float(w).hex() for w in weight] if isinstance(weight, list) else float(weight).hex()
    text = json.dumps([task.slot, bits, _state_key(task.state), task.save_to, solver])
    return _digest(text.encode())[:32]


# ---------------------------------------------------------------------------- the journal
class _Journal:
    """The executor's record of the jobs it submitted: one JSON line per job, appended,
    flushed and synced before the executor waits for the job."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, dict[str, Any]]:
        """The latest record of each task key (lines that do not parse, as the last line of a
        driver killed while writing it, are skipped)."""
        out: dict[str, dict[str, Any]] = {}
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return out
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if (
                isinstance(record, dict)
                and record.get("v") == _JOURNAL_VERSION
                and isinstance(record.get("key"), str)
                and isinstance(record.get("job_id"), str)
            ):
                out[record["key"]] = record
        return out

    def append(self, records: Sequence[Mapping[str, Any]]) -> None:
        text = "".join(json.dumps(dict(r), allow_nan=False) + "\n" for r in records)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())


@dataclass
class _Live:
    """A job the executor waits for."""

    job: Any  # the submitit Job
    job_id: str
    run: str  # the submission's token (names its started file)
    reattached: bool = False
    #: This process's ``time.monotonic()`` when the solve began (``None``: not yet seen).
    began: float | None = None
    host: str = ""
    pid: int = 0
    #: This process's ``time.monotonic()`` when the job was first seen ended without a
    #: result.
    ended: float | None = None


def _cmdline(pid: int) -> bytes | None:
    """The command line of process ``pid`` (``b""`` for a zombie), or ``None`` where this
    platform cannot tell (no ``/proc``)."""
    if not os.path.isdir("/proc/self"):
        return None
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def _last_line(text: str | None) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _log_tail(path: Path, size: int = 4096) -> str:
    """The last ``size`` bytes of the log ``path`` (``""`` if there is none)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - size))
            return fh.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


class SlurmExecutor(BaseExecutor):
    """Run each round as a SLURM job array through submitit, one job per solve.

    Parameters
    ----------
    folder : path
        The executor's folder, on a filesystem that the login node and every compute node
        see under the same path (a home or project folder, not ``/tmp``): the pickled solver
        (``solvers/``), submitit's job files and logs (``jobs/JOB_ID/``), the solves' start
        notes (``started/``), the journal of the jobs submitted (``jobs.jsonl``) and, for a
        solver that keeps its states in folders, the states the jobs saved (``job-states/``,
        deleted when a run ends without an error). Reuse it to resume a run; it is never
        emptied otherwise (delete it once the run is done).
    partition : str, optional
        The SLURM partition (``--partition``); default: the cluster's default.
    gpus_per_solve : int
        GPUs each job gets (``--gpus-per-node``), >= 0; SLURM sets ``CUDA_VISIBLE_DEVICES``
        in the job, so the solver uses ``cuda:0``.
    cpus_per_solve : int
        CPUs each job gets (``--cpus-per-task``), >= 1.
    mem_gb : float, optional
        Memory of each job in GB (``--mem``); default: the partition's.
    time_min : int
        Each job's time limit in minutes (``--time``), >= 1: SLURM ends a job past it, and
        the solve fails (submitit interrupts it 90 seconds before the limit). Must exceed
        ``solve_timeout``.
    solve_timeout : float, optional
        Seconds a solve may run, counted from when it begins in its job (not while the job
        waits in the queue, nor while it loads the solver), with the loading and saving of its
        states. The job interrupts a solve still running then (SIGALRM, as
        :class:`~paretosurf.executors.LocalExecutor` does: ``killed=False``), and the
        executor cancels a job whose solve has not come back :data:`KILL_GRACE` (2) seconds
        after its limit (``scancel``: code stuck in C): its outcome fails with
        ``"TimeoutError: the solve ran longer than solve_timeout=..."`` and ``killed=True``,
        and is not submitted again here (the run's ``retries`` retries it). ``None``
        (default): no limit but ``time_min``.
    max_retries : int
        How many times a solve whose job ended without a result is submitted again, >= 0.
        After that its outcome has ``killed=True`` and says how the job ended; the tries lost
        before are in its ``lost`` (and in a run's solve log).
    cluster : {None, "slurm", "local", "debug"}
        ``None`` or ``"slurm"``: submit with ``sbatch`` (the machine must have SLURM's
        commands). ``"local"``: run the jobs as processes of this machine (submitit's local
        executor), to test a set-up without a cluster; resources other than the time limit
        are not enforced. ``"debug"``: run each job in this process when the executor
        collects it (submitit's debug executor), to step into a solve with a debugger; no
        journal, retries or hard deadline.
    slurm_additional_parameters : dict, optional
        Further ``#SBATCH`` options, by their long name without dashes (``{"account":
        "proj42", "qos": "high", "constraint": "a100"}``).
    setup : list of str, optional
        Shell lines each job runs before Python starts (``["module load cuda/12.1",
        "source ~/venv/bin/activate"]``).
    poll_interval : float, optional
        Seconds between two checks of the jobs' result files: default 1 (``"local"``) or
        5 (SLURM; SLURM's accounting is asked for the jobs' states every
        :data:`SACCT_EVERY` seconds).
    reattach : bool
        Whether a task recorded in the folder's journal is collected rather than submitted
        again (default ``True``). A task is the same when its slot, weight, warm start, state
        folder and solver's pickle are; use a new folder to solve the same tasks again.

    Notes
    -----
    Every node must import ``paretosurf`` and whatever the solver's pickle names: install
    them in an environment on the shared filesystem, and run the driver with that
    environment's Python (the jobs start the driver's ``sys.executable``). The solver
    travels as cloudpickle (a class defined in the driver's script, by value). A driver
    started anew recognises its predecessor's solves by the solver's standard pickle (classes
    by name): build the solver the same way, and keep in it nothing that pickles differently
    each time. With a solver that keeps its states on disk (``save_state``/``load_state``) the
    jobs read and write them in the run folder directly, so ``checkpoint=DIR`` must be on the
    shared filesystem too. Whether a folder is shared cannot be checked from the login node: a
    job whose folder its node cannot see fails without a log, and comes back as ended without
    a result.

    The driver (the process running ``ps.surf``) only submits and waits, so it may run on a
    login node; when it is killed, its jobs go on. Start it again with ``resume=True`` and the
    same ``folder``: finished jobs are collected, running ones waited for, lost ones
    submitted again. With states on disk, each job saves its state into ``folder`` and the
    executor places it in the run folder as it collects the job, so the resume (which deletes
    the run folder's state folders written after its last checkpoint) loses no finished job's
    state: the rounds replayed after the last checkpoint collect their jobs again. Ctrl-C leaves the round's jobs running too (the log names them; cancel
    them with ``scancel``). A job that SLURM requeues (preemption) keeps its id and is waited
    for; jobs' states come from SLURM's accounting (``sacct``). With ``cluster="local"``, jobs
    are child processes of the driver: they survive a SIGKILL of the driver alone, not a
    hangup of its terminal nor the end of the machine.

    Examples
    --------
    >>> from paretosurf.executors import SlurmExecutor
    >>> SlurmExecutor("/shared/me/jobs", partition="gpu", gpus_per_solve=1, time_min=120)
    SlurmExecutor('/shared/me/jobs', cluster='slurm', partition='gpu', gpus_per_solve=1, cpus_per_solve=1, mem_gb=None, time_min=120, max_retries=2, solve_timeout=None)

    A run whose solves go to the cluster, saved on the shared filesystem (``resume=True``
    continues it after the driver was killed):

    .. code-block:: python

        with ps.SlurmExecutor("/shared/me/jobs", gpus_per_solve=1) as slurm:
            res = ps.surf(solver, n_points=21, executor=slurm, checkpoint="/shared/me/run",
                          resume=True)
    """  # noqa: E501

    def __init__(
        self,
        folder: str | os.PathLike[str],
        *,
        partition: str | None = None,
        gpus_per_solve: int = 0,
        cpus_per_solve: int = 1,
        mem_gb: float | None = None,
        time_min: int = 60,
        solve_timeout: float | None = None,
        max_retries: int = 2,
        cluster: str | None = None,
        slurm_additional_parameters: Mapping[str, Any] | None = None,
        setup: Sequence[str] | None = None,
        poll_interval: float | None = None,
        reattach: bool = True,
    ) -> None:
        if not isinstance(folder, (str, os.PathLike)) or not os.fspath(folder):
            raise TypeError(f"folder must be a path (str or os.PathLike), got {folder!r}")
        if cluster not in (None, *CLUSTERS):
            raise ValueError(
                f"cluster must be None or 'slurm' (submit with sbatch), 'local' (processes "
                f"of this machine) or 'debug' (this process), got {cluster!r}"
            )
        if partition is not None and (not isinstance(partition, str) or not partition.strip()):
            raise ValueError(f"partition must be a partition's name or None, got {partition!r}")
        if slurm_additional_parameters is not None and not isinstance(
            slurm_additional_parameters, Mapping
        ):
            raise TypeError(
                "slurm_additional_parameters must be a dict of #SBATCH options or None, got "
                f"{type(slurm_additional_parameters).__name__}"
            )
        if setup is not None and (
            isinstance(setup, str) or not all(isinstance(line, str) for line in setup)
        ):
            raise TypeError(f"setup must be a list of shell lines (str), got {setup!r}")
        #: The executor's folder (absolute).
        self.folder = Path(folder).expanduser().absolute()
        #: Where the jobs run: ``"slurm"``, ``"local"`` or ``"debug"``.
        self.cluster: str = "slurm" if cluster is None else cluster
        self.partition = partition
        self.gpus_per_solve = check_non_negative_int(gpus_per_solve, name="gpus_per_solve")
        self.cpus_per_solve = check_positive_int(cpus_per_solve, name="cpus_per_solve")
        self.mem_gb = None if mem_gb is None else check_positive(mem_gb, name="mem_gb")
        self.time_min = check_positive_int(time_min, name="time_min")
        #: Seconds a solve may run (``None``: no limit but ``time_min``).
        self.solve_timeout = check_solve_timeout(solve_timeout)
        if self.solve_timeout is not None and self.solve_timeout >= 60 * self.time_min:
            raise ValueError(
                f"solve_timeout={seconds_text(self.solve_timeout)} does not fit in the jobs' "
                f"time limit time_min={self.time_min} ({60 * self.time_min}s): raise time_min"
            )
        self.max_retries = check_non_negative_int(max_retries, name="max_retries")
        self.slurm_additional_parameters = (
            None if slurm_additional_parameters is None else dict(slurm_additional_parameters)
        )
        self.setup = None if setup is None else list(setup)
        if poll_interval is None:
            poll_interval = 5.0 if self.cluster == "slurm" else 1.0
        self.poll_interval = check_positive(poll_interval, name="poll_interval")
        self.reattach = check_flag(reattach, name="reattach")
        self._executor: Any = None  # submitit's
        self._journal = _Journal(self.folder / JOURNAL)
        self._sacct_at = -float("inf")
        #: The last solver's cloudpickle digest and its fingerprint (see :func:`_fingerprint`).
        self._fingerprint: tuple[str, str] | None = None

    @property
    def solves_in(self) -> str:  # type: ignore[override]
        """``"cluster"`` for SLURM (the run folder must be on a filesystem every node sees),
        ``"machine"`` for ``cluster="local"``, ``"process"`` for ``cluster="debug"`` (see
        :class:`~paretosurf.executors.ManagedExecutor`)."""
        return {"slurm": "cluster", "local": "machine", "debug": "process"}[self.cluster]

    # ------------------------------------------------------------------ start and close
    def start(self) -> bool:
        """Set up submitit's executor; returns ``False`` if it was set up already.

        Raises
        ------
        ImportError
            If submitit is not installed (``pip install "paretosurf[slurm]"``).
        RuntimeError
            For SLURM, on a machine without its commands (``sbatch``, ``srun``).
        """
        if self._executor is not None:
            return False
        try:
            import submitit
        except ImportError as exc:
            raise ImportError(
                "SlurmExecutor needs submitit, which is not installed: "
                'pip install "paretosurf[slurm]"'
            ) from exc
        if self.cluster == "slurm":
            missing = [cmd for cmd in ("sbatch", "srun") if shutil.which(cmd) is None]
            if missing:
                raise RuntimeError(
                    f"SlurmExecutor found no SLURM on this machine ({' and '.join(missing)} "
                    "not on PATH): run the driver on a login node of the cluster, or pass "
                    "cluster='local' to run the jobs as processes of this machine (for tests)"
                )
        self.folder.mkdir(parents=True, exist_ok=True)
        executor = submitit.AutoExecutor(folder=self.folder / "jobs" / "%j", cluster=self.cluster)
        params: dict[str, Any] = {
            "name": "paretosurf",
            "timeout_min": self.time_min,
            "nodes": 1,
            "tasks_per_node": 1,
            "cpus_per_task": self.cpus_per_solve,
        }
        if self.gpus_per_solve:
            params["gpus_per_node"] = self.gpus_per_solve
        if self.mem_gb is not None:
            params["mem_gb"] = self.mem_gb
        if self.partition is not None:
            params["slurm_partition"] = self.partition
        if self.slurm_additional_parameters:
            params["slurm_additional_parameters"] = dict(self.slurm_additional_parameters)
        if self.setup:
            params["slurm_setup"] = list(self.setup)
        executor.update_parameters(**params)
        if self.cluster == "local":
            # submitit waits 0.2 s between two submissions, to spare a cluster's scheduler;
            # local processes have none to spare
            inner = getattr(executor, "_executor", None)
            if inner is not None and hasattr(inner, "_throttling"):
                inner._throttling = 0.0
        self._executor = executor
        return True

    def close(self) -> None:
        """Forget submitit's executor (no job is running outside :meth:`solve`). Closed
        without an error in flight (a run that ended), also delete the states the jobs of its
        journal saved in the executor's folder (``job-states/RUN``; nothing else there): the
        run folder holds those it keeps. Closed while an error propagates (Ctrl-C, a failed
        run), keep them: a driver started again collects the jobs, states included."""
        self._executor = None
        root = self.folder / JOB_STATES
        if sys.exc_info()[1] is not None or not root.is_dir():
            return
        for record in self._journal.read().values():
            run = str(record.get("run", ""))
            if run and Path(run).name == run:  # a token of this executor's, not a path
                shutil.rmtree(root / run, ignore_errors=True)
        with contextlib.suppress(OSError):
            root.rmdir()  # once empty

    # ------------------------------------------------------------------ a round
    def solve(
        self, solver: Any, tasks: Sequence[SolveTask], on_done: OnDone | None = None
    ) -> list[SolveOutcome]:
        """Run each task as a job of one job array (collecting those of the folder's journal);
        one outcome per task, in task order."""
        tasks = list(tasks)
        if not tasks:
            return []
        self.start()
        import cloudpickle

        try:
            blob = cloudpickle.dumps(solver)
        except Exception as exc:
            raise TypeError(
                f"SlurmExecutor could not serialize the solver ({type(solver).__name__}): {exc}"
            ) from exc
        token = _digest(blob)
        solver_file = self.folder / "solvers" / f"{token}.pkl"
        if not solver_file.is_file():
            atomic_write(solver_file, lambda fh: fh.write(blob))
        durable = self.cluster != "debug"
        if self._fingerprint is None or self._fingerprint[0] != token:
            self._fingerprint = (token, _fingerprint(solver, blob) if durable else token)
        fingerprint = self._fingerprint[1]
        keys = [_task_key(task, fingerprint) for task in tasks] if durable else []
        outcomes: list[SolveOutcome | None] = [None] * len(tasks)
        lost: list[list[SolveOutcome]] = [[] for _ in tasks]

        def finish(i: int, outcome: SolveOutcome) -> None:
            outcome = dataclasses.replace(outcome, lost=tuple(lost[i]))
            outcomes[i] = outcome
            if on_done is not None:
                on_done(outcome)

        live: dict[int, _Live] = {}
        fresh = list(range(len(tasks)))
        if durable and self.reattach:
            fresh = self._collect_recorded(tasks, keys, finish, live)

        def submit(indices: list[int]) -> None:
            live.update(self._submit(str(solver_file), token, fingerprint, tasks, keys, indices))

        try:
            if fresh:
                submit(fresh)
            self._wait(tasks, live, lost, finish, submit)
        except BaseException:
            if live and durable:
                _LOG.warning(
                    "left running: jobs %s (slots %s); a driver started again over %s "
                    "collects them (ps.surf(..., resume=True)); %s cancels them",
                    ", ".join(e.job_id for e in live.values()),
                    ", ".join(str(tasks[i].slot) for i in live),
                    self.folder,
                    "scancel" if self.cluster == "slurm" else "kill -INT (the job ids are pids)",
                )
            raise
        assert all(o is not None for o in outcomes)
        return [o for o in outcomes if o is not None]

    def _submit(
        self,
        solver_file: str,
        token: str,
        fingerprint: str,
        tasks: list[SolveTask],
        keys: list[str],
        indices: list[int],
    ) -> dict[int, _Live]:
        """Submit the tasks ``indices`` as one job array and record the jobs in the journal."""
        runs = [uuid.uuid4().hex for _ in indices]
        started = [str(self._started_file(run)) for run in runs]
        (self.folder / "started").mkdir(parents=True, exist_ok=True)
        n = len(indices)
        jobs = self._executor.map_array(
            _run_job,
            [solver_file] * n,
            [token] * n,
            [self._sent(tasks[i], run) for i, run in zip(indices, runs, strict=True)],
            [self.solve_timeout] * n,
            started,
        )
        live = {
            i: _Live(job, str(job.job_id), run)
            for i, job, run in zip(indices, jobs, runs, strict=True)
        }
        if self.cluster != "debug":
            driver = f"{socket.gethostname()}:{os.getpid()}"
            now = time.time()
            self._journal.append(
                [
                    {
                        "v": _JOURNAL_VERSION,
                        "key": keys[i],
                        "job_id": live[i].job_id,
                        "cluster": self.cluster,
                        "run": live[i].run,
                        "slot": tasks[i].slot,
                        "weight": _weight_value(tasks[i].weight),
                        "state": _state_key(tasks[i].state),
                        "save_to": tasks[i].save_to,
                        "solver": fingerprint,
                        "time": now,
                        "driver": driver,
                    }
                    for i in indices
                ]
            )
        _LOG.info(
            "submitted %d solve(s) as job(s) %s (slots %s)",
            n,
            ", ".join(live[i].job_id for i in indices),
            ", ".join(str(tasks[i].slot) for i in indices),
        )
        return live

    def _collect_recorded(
        self,
        tasks: list[SolveTask],
        keys: list[str],
        finish: Any,
        live: dict[int, _Live],
    ) -> list[int]:
        """Take over the jobs of the journal that solve ``tasks``: a result is collected
        (``finish``), a job still running joins ``live``. Returns the tasks to submit."""
        recorded = self._journal.read()
        found: dict[int, _Live] = {}
        for i, key in enumerate(keys):
            record = recorded.get(key)
            if record is None or record.get("cluster") != self.cluster:
                continue
            run = str(record.get("run", ""))
            found[i] = _Live(self._job(record["job_id"]), record["job_id"], run, reattached=True)
        if not found:
            return list(range(len(tasks)))
        if self.cluster == "slurm":
            self._sacct(force=True)
        fresh = []
        for i in range(len(tasks)):
            entry = found.get(i)
            if entry is None:
                fresh.append(i)
                continue
            what = (
                f"job {entry.job_id} of slot {tasks[i].slot} (weight "
                f"{format_weight(tasks[i].weight)}), recorded in {self._journal.path}"
            )
            if entry.job.paths.result_pickle.exists():
                outcome = self._result(entry, tasks[i])
                if outcome.ok and self._states_there(outcome):
                    _LOG.info("collected the result of %s: it finished", what)
                    finish(i, outcome)
                    continue
                why = "its state folder is gone" if outcome.ok else f"it failed: {outcome.error}"
                _LOG.info("submitting again the solve of %s: %s", what, why)
            elif self._alive(entry, recorded=True):
                _LOG.info("reattached to %s: it is still running", what)
                live[i] = entry
                continue
            else:
                _LOG.info("submitting again the solve of %s: it ended without a result", what)
                if self.cluster == "slurm":  # a preempted job that SLURM would requeue
                    self._cancel(entry)
            fresh.append(i)
        return fresh

    @staticmethod
    def _states_there(outcome: SolveOutcome) -> bool:
        state = None if outcome.solution is None else outcome.solution.state
        return not isinstance(state, StateFolder) or os.path.isdir(state.path)

    def _wait(
        self,
        tasks: list[SolveTask],
        live: dict[int, _Live],
        lost: list[list[SolveOutcome]],
        finish: Any,
        submit: Any,
    ) -> None:
        """Collect the ``live`` jobs as they finish; submit again those that ended without a
        result; cancel those past their hard deadline."""
        timeout = self.solve_timeout
        while live:
            if self.cluster == "slurm":
                self._sacct()
            now = time.monotonic()
            again: list[int] = []
            for i in sorted(live):
                entry, task = live[i], tasks[i]
                if self.cluster == "debug":
                    del live[i]
                    finish(i, self._result(entry, task))
                    continue
                # before the result file, which a job writes before it ends
                alive = self._alive(entry, recorded=entry.reattached)
                if entry.job.paths.result_pickle.exists():
                    del live[i]
                    finish(i, self._result(entry, task))
                    continue
                self._note_start(entry, now)
                if not alive:
                    grace = RESULT_GRACE if self.cluster == "slurm" else 0.0
                    if entry.ended is None:
                        entry.ended = now
                    if now - entry.ended < grace:
                        continue
                    del live[i]
                    why = self._why_ended(entry)
                    if self.cluster == "slurm":  # a preempted job that SLURM would requeue
                        self._cancel(entry)
                    try_ = SolveOutcome(
                        task.slot, task.weight, None, host=entry.host, pid=entry.pid, killed=True
                    )
                    if len(lost[i]) < self.max_retries:
                        try_.error = f"UncompletedJobError: {why}; submitted again"
                        lost[i].append(try_)
                        _LOG.info("slot %s: %s; submitting it again", task.slot, why)
                        again.append(i)
                    else:
                        try_.error = (
                            f"UncompletedJobError: {why} ({len(lost[i]) + 1} times in all, "
                            f"max_retries={self.max_retries})"
                        )
                        finish(i, try_)
                    continue
                if timeout is not None and entry.began is not None:
                    if now >= entry.began + timeout + KILL_GRACE:
                        del live[i]
                        self._cancel(entry)
                        finish(
                            i,
                            SolveOutcome(
                                task.slot,
                                task.weight,
                                None,
                                f"TimeoutError: {overrun_text(timeout)} and did not return "
                                f"{KILL_GRACE:g}s after it was interrupted; its job "
                                f"{entry.job_id} was cancelled",
                                seconds=now - entry.began,
                                host=entry.host,
                                pid=entry.pid,
                                killed=True,
                            ),
                        )
            if again:
                submit(again)
            if live:
                time.sleep(self.poll_interval)

    # ------------------------------------------------------------------ jobs
    def _started_file(self, run: str) -> Path:
        return self.folder / "started" / f"{run}.json"

    def _sent(self, task: SolveTask, run: str) -> SolveTask:
        """``task`` as its job ``run`` gets it: a new state goes to the executor's folder
        (:data:`JOB_STATES`), from which :meth:`_result` places it at the task's ``save_to``."""
        if task.save_to is None:
            return task
        return dataclasses.replace(task, save_to=str(self.folder / JOB_STATES / run))

    def _placed(self, outcome: SolveOutcome, task: SolveTask) -> SolveOutcome:
        """``outcome`` with the state its job saved in the executor's folder placed at the
        task's ``save_to`` (hard links where the filesystem allows; the job's copy stays, so a
        driver started again can place it again). A job's state folder that is gone is left
        as it is (:meth:`_states_there` says so)."""
        sol = outcome.solution
        state = None if sol is None else sol.state
        if (
            sol is None
            or task.save_to is None
            or not isinstance(state, StateFolder)
            or not Path(state.path).is_relative_to(self.folder / JOB_STATES)
            or not os.path.isdir(state.path)
        ):
            return outcome
        try:
            placed = copy_state_folder(state, task.save_to, link=True)
        except OSError as exc:
            return failure(task, exc, outcome.seconds)
        return dataclasses.replace(outcome, solution=dataclasses.replace(sol, state=placed))

    def _job(self, job_id: str) -> Any:
        """submitit's job ``job_id`` of this executor's folder, rebuilt from its id."""
        folder = self.folder / "jobs" / "%j"
        if self.cluster == "local":
            from submitit.local.local import LocalJob

            return LocalJob(folder=folder, job_id=job_id)
        from submitit.slurm.slurm import SlurmJob

        return SlurmJob(folder=folder, job_id=job_id)

    def _note_start(self, entry: _Live, now: float) -> None:
        """Read when ``entry``'s solve began, from its started file, once it is there: a job
        of this executor began when the file was first seen (never earlier than the truth,
        whatever the nodes' clocks), a job of an earlier driver when the file says."""
        if entry.began is not None or not entry.run:
            return
        try:
            note = json.loads(self._started_file(entry.run).read_text())
        except (OSError, ValueError):
            return
        if not isinstance(note, dict):
            return
        entry.host = str(note.get("host", ""))
        with contextlib.suppress(TypeError, ValueError):
            entry.pid = int(note.get("pid", 0))
        entry.began = now
        if entry.reattached:
            with contextlib.suppress(TypeError, ValueError):
                entry.began = now - max(0.0, time.time() - float(note.get("time", time.time())))

    def _sacct(self, force: bool = False) -> None:
        """Ask SLURM's accounting for the states of the jobs (every :data:`SACCT_EVERY`
        seconds, or now with ``force``)."""
        now = time.monotonic()
        if not force and now - self._sacct_at < SACCT_EVERY:
            return
        self._sacct_at = now
        from submitit.slurm.slurm import SlurmJob

        SlurmJob.watcher.update()

    def _slurm_state(self, entry: _Live) -> str:
        from submitit.slurm.slurm import SlurmJob

        state = SlurmJob.watcher.get_state(entry.job_id, mode="cache")
        return (str(state).split() or ["UNKNOWN"])[0].upper()

    def _alive(self, entry: _Live, *, recorded: bool = False) -> bool:
        """Whether ``entry``'s job has not ended. ``recorded``: a job of an earlier driver, of
        which SLURM must know (one that its accounting does not know is gone)."""
        if self.cluster == "debug":
            return False
        if self.cluster == "slurm":
            state = self._slurm_state(entry)
            return state in _IN_FLIGHT or (state == "UNKNOWN" and not recorded)
        process = getattr(entry.job, "_process", None)
        if process is not None:  # submitted by this process
            return bool(process.poll() is None)
        try:
            pid = int(entry.job_id)
        except ValueError:
            return False
        cmdline = _cmdline(pid)
        if cmdline is None:  # no /proc: the process's existence
            return process_alive(pid)
        # the job's controller (a process of another command with the same id is not)
        return b"submitit.local._local" in cmdline and os.fsencode(str(self.folder)) in cmdline

    def _why_ended(self, entry: _Live) -> str:
        """How ``entry``'s job ended without a result, in words."""
        where = f" on {entry.host}" if entry.host else ""
        if self.cluster == "slurm":
            state = self._slurm_state(entry)
            what = f"SLURM job {entry.job_id}{where} ended without a result (state {state})"
        else:
            what = (
                f"job {entry.job_id}{where} ended without a result (its process died: killed "
                "by a signal, out of memory, or it could not start)"
            )
        last = _last_line(_log_tail(entry.job.paths.stderr))
        if last:
            what += f"; the last line of its log: {last}"
        return what

    def _cancel(self, entry: _Live) -> None:
        """Cancel ``entry``'s job (``scancel``; SIGINT to a local job's process)."""
        with contextlib.suppress(Exception):
            if self.cluster == "slurm" or getattr(entry.job, "_process", None) is not None:
                entry.job.cancel(check=False)
            elif self._alive(entry):
                os.kill(int(entry.job_id), signal.SIGINT)

    def _result(self, entry: _Live, task: SolveTask) -> SolveOutcome:
        """The outcome that ``entry``'s job left (a job that failed outside the solve: a
        failed outcome with its traceback)."""
        try:
            if self.cluster == "debug":
                kind, value = "success", entry.job.result()
            else:
                from submitit.core.utils import pickle_load

                kind, value = pickle_load(entry.job.paths.result_pickle)
        except Exception as exc:
            outcome = failure(task, exc, 0.0)
            outcome.error = f"{outcome.error} (reading the result of job {entry.job_id})"
            return outcome
        if kind == "success" and isinstance(value, SolveOutcome):
            if (value.slot, _weight_value(value.weight)) == (
                task.slot,
                _weight_value(task.weight),
            ):
                return self._placed(value, task)
            value = f"job {entry.job_id} returned the outcome of slot {value.slot}"
        text = str(value)
        return SolveOutcome(
            task.slot,
            task.weight,
            None,
            f"FailedJobError: job {entry.job_id} failed outside the solve: "
            f"{_last_line(text) or 'no message'}",
            text if kind != "success" else None,
            host=entry.host,
            pid=entry.pid,
        )

    def __repr__(self) -> str:
        return (
            f"SlurmExecutor({str(self.folder)!r}, cluster={self.cluster!r}, "
            f"partition={self.partition!r}, gpus_per_solve={self.gpus_per_solve}, "
            f"cpus_per_solve={self.cpus_per_solve}, mem_gb={self.mem_gb!r}, "
            f"time_min={self.time_min}, max_retries={self.max_retries}, "
            f"solve_timeout={self.solve_timeout!r})"
        )
