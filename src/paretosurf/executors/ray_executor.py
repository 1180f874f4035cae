"""Solves as Ray tasks: on this machine's cores and GPUs, or across the nodes of a Ray cluster.

Each task of a round is one Ray task running :func:`~paretosurf.executors.execute` on that
task alone, with the executor's ``num_cpus``/``num_gpus`` (so Ray gives each solve its own
cores or device). A task whose worker process or node died is submitted again, up to
``max_retries`` times, by the executor rather than by Ray, so that each lost try is reported
(the outcome's ``lost``, a run's solve log); an exception of the solver is already captured in
the outcome, and is left to the run's own ``retries``. The
solver is put into the object store once (again only when its pickle changes), and each worker
unpickles it once and keeps it for the tasks that follow, as a local run keeps its one solver
(a solver that changes itself while solving, through an internal random generator say, then
gives results that depend on which worker ran which task: seed it from the weight or state).

Solver, tasks and outcomes travel as cloudpickle bytes rather than through Ray's zero-copy
serialization, which would hand back read-only numpy arrays: states then arrive as writable
copies, exactly as with :class:`~paretosurf.executors.ProcessExecutor`, and a deterministic
solver gives the same results, to the last bit, as :class:`~paretosurf.executors.LocalExecutor`.
Solvers and states defined in a script or notebook (``__main__``) travel by value.

Ray is the ``ray`` extra; it is imported by :meth:`RayExecutor.start`, never by
``import paretosurf``.
"""

from __future__ import annotations

import logging
import math
import numbers
import os
import pickle
import site
import sys
import sysconfig
from collections.abc import Mapping, Sequence
from typing import Any

from paretosurf._validation import check_non_negative_int
from paretosurf.executors.base import (
    OnDone,
    SolveOutcome,
    SolveTask,
    _Lifecycle,
    execute,
    failure,
    kept_solver,
    usable_cpus,
)

__all__ = ["RayExecutor"]


def _solve_remote(solver_ref: list[Any], task_blob: bytes) -> bytes:
    """The Ray task: one :class:`SolveTask` through :func:`execute`, its outcome pickled.

    ``solver_ref`` holds the reference to the pickled solver (in a list, so that Ray does not
    fetch it): a worker fetches and unpickles it only for its first task of that solver,
    which saves both, and the solver's own first-call set-up, on every later task."""
    import ray
    from ray import cloudpickle

    task = pickle.loads(task_blob)
    try:
        solver = kept_solver(solver_ref[0].hex(), lambda: pickle.loads(ray.get(solver_ref[0])))
    except Exception as exc:  # a module the solver needs is missing on this node, say
        return cloudpickle.dumps(failure(task, exc, 0.0))
    return cloudpickle.dumps(execute(solver, [task])[0])


#: Ray settings of a local instance started by the executor: without the dashboard (off)
#: nothing reads Ray's per-task events, timeline or metrics, and recording them costs every
#: task driver and worker time (about 0.06 ms a task here, 15% of Ray's overhead).
_LOCAL_SYSTEM_CONFIG = {"task_events_report_interval_ms": 0, "enable_timeline": False,
                        "enable_metrics_collection": False, "event_stats": False}


def _first_line(exc: BaseException) -> str:
    """The first non-empty line of ``exc``'s message (Ray's run to many lines)."""
    return next((line.strip() for line in str(exc).splitlines() if line.strip()), "")


def _check_resource(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number >= 0, got {value!r}")
    out = float(value)
    if not (math.isfinite(out) and out >= 0):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return int(out) if out.is_integer() else out


def _driver_path() -> str:
    """This process's own import folders (its ``sys.path`` less the standard library and the
    site-packages every interpreter has), as a ``PYTHONPATH`` for the workers of a Ray
    instance started on this machine."""
    paths = sysconfig.get_paths()
    own = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    own.update(site.getsitepackages())
    if site.ENABLE_USER_SITE and site.getusersitepackages():
        own.add(site.getusersitepackages())
    roots = [os.path.abspath(p) for p in own]
    folders: list[str] = []
    for entry in sys.path:
        folder = os.path.abspath(entry or os.curdir)
        if (os.path.isdir(folder) and folder not in folders
                and not any(folder == r or folder.startswith(r + os.sep) for r in roots)):
            folders.append(folder)
    return os.pathsep.join(folders)


class RayExecutor(_Lifecycle):
    """Run each task of a round as a Ray task, on this machine or on a Ray cluster.

    Parameters
    ----------
    address : str, optional
        ``None``: start a Ray instance on this machine (with all its CPUs, its workers importing
        from this process's ``sys.path``) when the executor starts, and shut it down when the
        executor that started it closes. ``"auto"`` (the
        cluster started by ``ray start`` on this machine), ``"HOST:PORT"`` or
        ``"ray://HOST:PORT"`` (Ray Client): join that cluster; closing only disconnects. When
        Ray is already initialized in this process, that instance is used, whatever
        ``address``, and left running.
    num_cpus, num_gpus : float
        Resources each solve reserves (fractions allowed, >= 0). With ``num_gpus=1`` Ray gives
        each solve its own GPU (``CUDA_VISIBLE_DEVICES``), so as many solves run at once as
        there are GPUs.
    max_retries : int
        How many times a task whose worker died (SIGKILL, out of memory, a lost node) is
        submitted again, >= 0. After that the outcome has ``killed=True`` and Ray's error
        text; the tries lost before are in its ``lost``.
    runtime_env : dict, optional
        Ray's runtime environment for the tasks (``{"pip": [...]}``,
        ``{"working_dir": "."}``, ``{"env_vars": {...}}``): what every node needs to import
        the solver.

    Notes
    -----
    Every node must be able to import ``paretosurf`` and the solver's module (install them,
    or ship them with ``runtime_env``). With a solver that keeps its states on disk
    (``save_state``/``load_state``), the workers read warm starts from and write new states to
    the run folder directly, so on a cluster the run folder (``checkpoint=``) must be on a
    filesystem every node sees under the same path (NFS, a shared volume).

    Examples
    --------
    >>> import paretosurf as ps
    >>> ps.RayExecutor(num_gpus=1)
    RayExecutor(address=None, num_cpus=1, num_gpus=1, max_retries=2)

    Used as ``ps.surf(solver, N, executor=ps.RayExecutor(address="auto", num_gpus=1))`` on a
    cluster started with ``ray start --head`` (see the README).
    """

    def __init__(self, address: str | None = None, *, num_cpus: float = 1,
                 num_gpus: float = 0, max_retries: int = 2,
                 runtime_env: Mapping[str, Any] | None = None) -> None:
        if address is not None and (not isinstance(address, str) or not address.strip()):
            raise ValueError(f"address must be None (a Ray instance on this machine), 'auto', "
                             f"'HOST:PORT' or 'ray://HOST:PORT', got {address!r}")
        if runtime_env is not None and not isinstance(runtime_env, Mapping):
            raise TypeError(f"runtime_env must be a dict or None, got "
                            f"{type(runtime_env).__name__}")
        self.address = address
        self.num_cpus = _check_resource(num_cpus, "num_cpus")
        self.num_gpus = _check_resource(num_gpus, "num_gpus")
        self.max_retries = check_non_negative_int(max_retries, name="max_retries")
        self.runtime_env = None if runtime_env is None else dict(runtime_env)
        self._ray: Any = None
        self._remote: Any = None
        self._owns = False
        self._solver: tuple[bytes, Any] | None = None   # the last solver's pickle, its ref

    # ------------------------------------------------------------------ the connection
    def start(self) -> bool:
        """Connect to Ray (starting a local instance for ``address=None``); returns whether
        this call initialized Ray (and so whether :meth:`close` shuts it down).

        Raises
        ------
        ImportError
            If Ray is not installed (``pip install 'paretosurf[ray]'``).
        ValueError
            If a Ray instance started here has fewer CPUs or GPUs than one task reserves.
        """
        if self._ray is not None and self._ray.is_initialized():
            return False
        try:
            import ray
        except ImportError as exc:
            raise ImportError("RayExecutor needs Ray, which is not installed: "
                              "pip install 'paretosurf[ray]'") from exc
        owns = not ray.is_initialized()
        self._solver = None               # a reference of another Ray session
        if owns and self.address is None:
            ray.init(address="local", num_cpus=max(usable_cpus(), math.ceil(self.num_cpus)),
                     include_dashboard=False, logging_level=logging.ERROR,
                     runtime_env={"env_vars": {"PYTHONPATH": _driver_path()}},
                     _system_config=_LOCAL_SYSTEM_CONFIG)
            self._check_fits(ray)
        elif owns:
            ray.init(address=self.address, logging_level=logging.ERROR)
        self._ray, self._owns = ray, owns
        self._remote = ray.remote(_solve_remote)
        return owns

    def _check_fits(self, ray: Any) -> None:
        have = ray.cluster_resources()
        for name, key, need in (("num_cpus", "CPU", self.num_cpus),
                                ("num_gpus", "GPU", self.num_gpus)):
            if need > have.get(key, 0):
                ray.shutdown()
                raise ValueError(
                    f"{name}={need} per task, but the Ray instance started on this machine has "
                    f"{have.get(key, 0):g} {key}s; lower {name} or join a cluster with address=")

    def close(self) -> None:
        """Shut down the Ray instance this executor started, or disconnect from the cluster it
        joined; a Ray instance initialized by someone else is left running."""
        ray, self._ray, self._remote, self._solver = self._ray, None, None, None
        if ray is not None and self._owns and ray.is_initialized():
            ray.shutdown()
        self._owns = False

    # ------------------------------------------------------------------ a round
    def solve(self, solver: Any, tasks: Sequence[SolveTask],
              on_done: OnDone | None = None) -> list[SolveOutcome]:
        """Run each task as a Ray task; one outcome per task, in task order."""
        tasks = list(tasks)
        if not tasks:
            return []
        self.start()
        ray = self._ray
        from ray import cloudpickle
        from ray.exceptions import RayError, RayTaskError

        try:
            solver_blob = cloudpickle.dumps(solver)
        except Exception as exc:
            raise TypeError(f"RayExecutor could not serialize the solver "
                            f"({type(solver).__name__}): {exc}") from exc
        # Ray itself retries nothing: a task whose worker died is resubmitted here, so that
        # each lost try is known (the outcome's ``lost``, the run's solve log)
        options: dict[str, Any] = {"num_cpus": self.num_cpus, "num_gpus": self.num_gpus,
                                   "max_retries": 0, "retry_exceptions": False}
        if self.runtime_env is not None:
            options["runtime_env"] = self.runtime_env
        remote = self._remote.options(**options)
        if self._solver is None or self._solver[0] != solver_blob:
            self._solver = (solver_blob, ray.put(solver_blob))
        solver_ref = [self._solver[1]]
        blobs = [cloudpickle.dumps(task) for task in tasks]
        refs = [remote.remote(solver_ref, blob) for blob in blobs]
        index = {ref: i for i, ref in enumerate(refs)}
        outcomes: list[SolveOutcome | None] = [None] * len(tasks)
        lost: list[list[SolveOutcome]] = [[] for _ in tasks]
        pending = list(refs)
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                if pending:  # and whatever else is done by now
                    more, pending = ray.wait(pending, num_returns=len(pending), timeout=0)
                    ready += more
                for ref in ready:
                    i = index[ref]
                    task = tasks[i]
                    try:
                        outcome: SolveOutcome = pickle.loads(ray.get(ref))
                    except RayTaskError as exc:  # raised outside the solve: loading the task
                        cause = getattr(exc, "cause", None) or exc
                        outcome = SolveOutcome(task.slot, task.weight, None,
                                               f"{type(cause).__name__}: {cause}", str(exc))
                    except RayError as exc:  # the worker or its node died
                        if len(lost[i]) < self.max_retries:
                            lost[i].append(SolveOutcome(
                                task.slot, task.weight, None, f"{type(exc).__name__}: the Ray "
                                f"worker running it died; run again: {_first_line(exc)}",
                                killed=True))
                            again = remote.remote(solver_ref, blobs[i])
                            index[again] = i
                            pending.append(again)
                            continue
                        outcome = SolveOutcome(
                            task.slot, task.weight, None,
                            f"{type(exc).__name__}: the Ray worker running it died "
                            f"{self.max_retries + 1} times (max_retries={self.max_retries}): "
                            f"{exc}", killed=True)
                    outcome.lost = tuple(lost[i])
                    outcomes[i] = outcome
                    if on_done is not None:
                        on_done(outcome)
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise
        return [o for o in outcomes if o is not None]

    def __repr__(self) -> str:
        return (f"RayExecutor(address={self.address!r}, num_cpus={self.num_cpus}, "
                f"num_gpus={self.num_gpus}, max_retries={self.max_retries})")
