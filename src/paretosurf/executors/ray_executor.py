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

With ``solve_timeout``, each Ray task interrupts its solve past the limit (as
:class:`~paretosurf.executors.LocalExecutor` does), and the executor cancels
(``ray.cancel(ref, force=True)``, which ends the worker process) a task whose solve has not come
back :data:`KILL_GRACE` seconds after that. A task's clock starts when its solve begins on its
worker, not when it is submitted (a task waiting for a free GPU is not running): each task
tells a small actor of the executor (``num_cpus=0``) when it begins.

While it waits for a round, the executor checks every second that the cluster is there: a TCP
connection to its GCS (the head's global control store) and to the raylet of this machine's
node, the addresses Ray gives (about 0.3 ms each on one machine). When either has not
answered for :data:`LOST_AFTER` seconds, or Ray's own calls fail for a lost connection, the
round ends with :class:`~paretosurf.executors.ExecutorLostError`, naming the cluster and the
unfinished tasks, well before Ray itself ends the process (with exit code 1 and no message,
60 seconds after it loses the GCS). The run folder keeps its last checkpoint; once the cluster
is back, the same call with ``resume=True`` continues the run.

Ray is the ``ray`` extra; it is imported by :meth:`RayExecutor.start`, never by
``import paretosurf``.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
import numbers
import os
import pickle
import site
import socket
import sys
import sysconfig
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from paretosurf._utils.validation import check_non_negative_int
from paretosurf.executors.base import (
    BaseExecutor,
    ExecutorLostError,
    OnDone,
    SolveOutcome,
    SolveTask,
    alarm_usable,
    check_solve_timeout,
    execute,
    failure,
    kept_solver,
    overrun_text,
    usable_cpus,
)
from paretosurf.solvers import format_weight

__all__ = ["RayExecutor"]

#: Seconds the executor waits, after a solve's ``solve_timeout`` ran out, for its Ray task to
#: interrupt it and return before cancelling the task (``force=True``).
KILL_GRACE = 2.0
#: Seconds the GCS or this node's raylet may go unanswered before the cluster counts as lost
#: (Ray itself ends a driver 60 seconds after it loses the GCS).
LOST_AFTER = 10.0
#: Seconds between two checks of the cluster and of the tasks' deadlines while waiting.
_SLICE = 1.0
#: Seconds a TCP connection to the GCS or a raylet may take before it counts as unanswered.
_CONNECT_TIMEOUT = 1.0


def _solve_remote(
    solver_ref: list[Any],
    task_blob: bytes,
    board: Any = None,
    key: str | None = None,
    timeout: float | None = None,
) -> bytes:
    """The Ray task: one :class:`SolveTask` through :func:`execute`, its outcome pickled.

    ``solver_ref`` holds the reference to the pickled solver (in a list, so that Ray does not
    fetch it): a worker fetches and unpickles it only for its first task of that solver,
    which saves both, and the solver's own first-call set-up, on every later task. With a
    ``timeout``, the task tells ``board`` (the executor's :func:`_board` actor) under ``key``
    when its solve begins, and interrupts the solve past the limit where it can."""
    import ray
    from ray import cloudpickle

    task = pickle.loads(task_blob)
    try:
        solver = kept_solver(solver_ref[0].hex(), lambda: pickle.loads(ray.get(solver_ref[0])))
    except Exception as exc:  # a module the solver needs is missing on this node, say
        return cloudpickle.dumps(failure(task, exc, 0.0))
    if board is not None:
        board.started.remote(key, socket.gethostname(), os.getpid())
    interrupt = timeout if timeout is not None and alarm_usable() else None
    return cloudpickle.dumps(execute(solver, [task], timeout=interrupt)[0])


def _board_class() -> type:
    """The class of the actor that records when each task's solve began (on its own clock,
    so that the clocks of other nodes do not matter). Defined in a function, so that Ray ships
    it by value: the actor needs nothing installed on its node."""

    class StartBoard:
        def __init__(self) -> None:
            self.since: dict[str, tuple[float, str, int]] = {}

        def started(self, key: str, host: str, pid: int) -> None:
            self.since[key] = (time.monotonic(), host, pid)

        def elapsed(self, keys: list[str]) -> list[tuple[float, str, int] | None]:
            now = time.monotonic()
            return [
                None
                if k not in self.since
                else (now - self.since[k][0], self.since[k][1], self.since[k][2])
                for k in keys
            ]

        def forget(self, keys: list[str]) -> None:
            for k in keys:
                self.since.pop(k, None)

    return StartBoard


def _parse_address(address: str) -> tuple[str, int] | None:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return None
    return host.strip("[]"), int(port)


def _answers(target: tuple[str, int]) -> bool:
    """Whether a TCP connection to ``target`` opens within :data:`_CONNECT_TIMEOUT`."""
    try:
        with socket.create_connection(target, timeout=_CONNECT_TIMEOUT):
            return True
    except OSError:
        return False


class _ClusterWatch:
    """Tells whether the Ray cluster is still there: TCP connections to its GCS and to the
    raylet of this machine's node (those that answered once), at most every :data:`_SLICE`
    seconds; lost once one has not answered for :data:`LOST_AFTER` seconds."""

    def __init__(self, ray: Any) -> None:
        self.targets: list[tuple[str, tuple[str, int]]] = []
        self.gcs: str | None = None
        try:
            client = ray.util.client.ray.is_connected()
        except Exception:
            client = False
        if not client:  # Ray Client: the server's connection tells (ConnectionError)
            with contextlib.suppress(Exception):
                self.gcs = str(ray.get_runtime_context().gcs_address)
                gcs = _parse_address(self.gcs)
                if gcs is not None:
                    self.targets.append(("the GCS", gcs))
            with contextlib.suppress(Exception):
                node = ray.get_runtime_context().get_node_id()
                for info in ray.nodes():
                    if info.get("NodeID") == node and info.get("Alive"):
                        self.targets.append(
                            (
                                "the raylet of this machine's node",
                                (str(info["NodeManagerAddress"]), int(info["NodeManagerPort"])),
                            )
                        )
        self.targets = [t for t in self.targets if _answers(t[1])]
        self.down: dict[str, float] = {}
        self.last = time.monotonic()

    def lost(self, *, now_: bool = False) -> str | None:
        """What was lost (``"the GCS (HOST:PORT) has not answered for 10s"``), or ``None``.
        With ``now_``: check at once, and count any target that does not answer as lost."""
        now = time.monotonic()
        if not now_ and now - self.last < _SLICE:
            return None
        self.last = now
        for what, target in self.targets:
            if _answers(target):
                self.down.pop(what, None)
                continue
            since = self.down.setdefault(what, now)
            if now_ or now - since >= LOST_AFTER:
                return (
                    f"{what} ({target[0]}:{target[1]}) has not answered for "
                    f"{max(now - since, 0):.0f}s"
                )
        return None


#: Ray settings of a local instance started by the executor: without the dashboard (off)
#: nothing reads Ray's per-task events, timeline or metrics, and recording them costs every
#: task driver and worker time (about 0.06 ms a task here, 15% of Ray's overhead).
_LOCAL_SYSTEM_CONFIG = {
    "task_events_report_interval_ms": 0,
    "enable_timeline": False,
    "enable_metrics_collection": False,
    "event_stats": False,
}


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
        if (
            os.path.isdir(folder)
            and folder not in folders
            and not any(folder == r or folder.startswith(r + os.sep) for r in roots)
        ):
            folders.append(folder)
    return os.pathsep.join(folders)


class _Deadlines:
    """The hard deadlines of a round's tasks: asks the executor's board actor, at most every
    :data:`_SLICE` seconds and without waiting for its answer, how long each pending task's
    solve has been running, and cancels those past ``solve_timeout`` + :data:`KILL_GRACE`."""

    def __init__(self, executor: RayExecutor, board: Any) -> None:
        self.executor, self.board = executor, board
        self.asked: tuple[Any, list[Any]] | None = None  # the question in flight, its refs
        self.last = time.monotonic()

    def overdue(
        self,
        pending: list[Any],
        keys: dict[Any, str],
        tasks: list[SolveTask],
        index: dict[Any, int],
    ) -> list[tuple[Any, SolveOutcome]]:
        """Cancel the pending tasks past their deadline (``force=True``); their outcomes."""
        ray, timeout = self.executor._ray, self.executor.solve_timeout
        assert timeout is not None
        if self.board is None:
            return []
        if self.asked is None:
            if time.monotonic() - self.last < _SLICE:
                return []
            self.last = time.monotonic()
            refs = list(pending)
            self.asked = (self.board.elapsed.remote([keys[ref] for ref in refs]), refs)
        answer, refs = self.asked
        if not ray.wait([answer], timeout=0)[0]:  # not yet: ask again once answered
            return []
        self.asked = None
        try:
            since = ray.get(answer)
        except Exception:  # the board's node is gone, say: the tasks' own interruption stays
            self.board = self.executor._board = None
            return []
        out = []
        live = set(pending)
        for ref, info in zip(refs, since, strict=True):
            if ref not in live or info is None or info[0] < timeout + KILL_GRACE:
                continue
            seconds, host, pid = info
            ray.cancel(ref, force=True)
            task = tasks[index[ref]]
            out.append(
                (
                    ref,
                    SolveOutcome(
                        task.slot,
                        task.weight,
                        None,
                        f"TimeoutError: {overrun_text(timeout)} and did not return {KILL_GRACE:g}s "
                        f"after it was interrupted; its Ray task was cancelled (force=True, "
                        f"which ends its worker process {pid} on {host})",
                        seconds=seconds,
                        host=host,
                        pid=pid,
                        killed=True,
                    ),
                )
            )
        return out


class RayExecutor(BaseExecutor):
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
        there are GPUs. A solve that reserves GPUs runs in a worker process of its own, which
        ends with it (Ray's ``max_calls=1``, its default for GPU functions): Ray sets
        ``CUDA_VISIBLE_DEVICES`` for each task, and a reused worker whose CUDA had already
        started would go on using the GPU of its previous task. Such a worker so loads the
        solver (and its model) for every solve.
    max_retries : int
        How many times a task whose worker died (SIGKILL, out of memory, a lost node) is
        submitted again, >= 0. After that the outcome has ``killed=True`` and Ray's error
        text; the tries lost before are in its ``lost``.
    runtime_env : dict, optional
        Ray's runtime environment for the tasks (``{"pip": [...]}``,
        ``{"working_dir": "."}``, ``{"env_vars": {...}}``): what every node needs to import
        the solver.
    solve_timeout : float, optional
        Seconds a task's solve may run, counted from when its solve begins on its worker
        (not from submission: a task waiting for resources is not running; loading the solver
        on a worker is not counted), with the loading and saving of its states. The task
        interrupts a solve still running then (SIGALRM, as
        :class:`~paretosurf.executors.LocalExecutor` does: ``killed=False``), and the
        executor cancels a task that has not come back :data:`KILL_GRACE` (2) seconds after
        its limit (``ray.cancel(ref, force=True)``, which ends its worker process: code stuck
        in C): its outcome fails with ``"TimeoutError: the solve ran longer than
        solve_timeout=..."`` and ``killed=True``, and is not submitted again here (the run's
        ``retries`` retries it). ``None`` (default): no limit.

    Notes
    -----
    Every node must be able to import ``paretosurf`` and the solver's module (install them,
    or ship them with ``runtime_env``). With a solver that keeps its states on disk
    (``save_state``/``load_state``), the workers read warm starts from and write new states to
    the run folder directly, so on a cluster the run folder (``checkpoint=``) must be on a
    filesystem every node sees under the same path (NFS, a shared volume).

    While it waits for a round, the executor checks every second that the cluster is still
    there (TCP connections to the GCS and to this machine's raylet). When the cluster is lost
    (one of them has not answered for :data:`LOST_AFTER` seconds, or Ray reports a lost
    connection), :meth:`solve` raises :class:`~paretosurf.executors.ExecutorLostError`
    naming the cluster and the unfinished tasks, rather than leaving Ray to end the process
    with exit code 1 and no message; the run folder keeps its last checkpoint, and the same
    call with ``resume=True`` continues the run once the cluster is back.

    Examples
    --------
    >>> import paretosurf as ps
    >>> ps.RayExecutor(num_gpus=1)
    RayExecutor(address=None, num_cpus=1, num_gpus=1, max_retries=2, solve_timeout=None)

    Used as ``ps.surf(solver, N, executor=ps.RayExecutor(address="auto", num_gpus=1))`` on a
    cluster started with ``ray start --head`` (see the README).
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        num_cpus: float = 1,
        num_gpus: float = 0,
        max_retries: int = 2,
        runtime_env: Mapping[str, Any] | None = None,
        solve_timeout: float | None = None,
    ) -> None:
        if address is not None and (not isinstance(address, str) or not address.strip()):
            raise ValueError(
                f"address must be None (a Ray instance on this machine), 'auto', "
                f"'HOST:PORT' or 'ray://HOST:PORT', got {address!r}"
            )
        if runtime_env is not None and not isinstance(runtime_env, Mapping):
            raise TypeError(f"runtime_env must be a dict or None, got {type(runtime_env).__name__}")
        self.address = address
        self.num_cpus = _check_resource(num_cpus, "num_cpus")
        self.num_gpus = _check_resource(num_gpus, "num_gpus")
        self.max_retries = check_non_negative_int(max_retries, name="max_retries")
        self.runtime_env = None if runtime_env is None else dict(runtime_env)
        #: Seconds a solve may run (``None``: no limit).
        self.solve_timeout = check_solve_timeout(solve_timeout)
        self._ray: Any = None
        self._remote: Any = None
        self._owns = False
        self._solver: tuple[bytes, Any] | None = None  # the last solver's pickle, its ref
        self._watch: _ClusterWatch | None = None
        self._board: Any = None  # the actor of start times
        self._lost = False  # the cluster went away
        self._keys = (f"{uuid.uuid4().hex[:8]}-{i}" for i in itertools.count())

    @property
    def solves_in(self) -> str:  # type: ignore[override]
        """``"machine"`` for a Ray instance of this machine (``address=None`` or
        ``"local"``), ``"cluster"`` otherwise (see :class:`~paretosurf.executors.Executor`)."""
        return "machine" if self.address in (None, "local") else "cluster"

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
            raise ImportError(
                "RayExecutor needs Ray, which is not installed: pip install 'paretosurf[ray]'"
            ) from exc
        owns = not ray.is_initialized()
        self._solver = None  # a reference of another Ray session
        if owns and self.address is None:
            ray.init(
                address="local",
                num_cpus=max(usable_cpus(), math.ceil(self.num_cpus)),
                include_dashboard=False,
                logging_level=logging.ERROR,
                runtime_env={"env_vars": {"PYTHONPATH": _driver_path()}},
                _system_config=_LOCAL_SYSTEM_CONFIG,
            )
            self._check_fits(ray)
        elif owns:
            ray.init(address=self.address, logging_level=logging.ERROR)
        self._ray, self._owns = ray, owns
        # GPU solves in fresh workers: CUDA reads CUDA_VISIBLE_DEVICES once, when it starts
        self._remote = ray.remote(max_calls=1 if self.num_gpus > 0 else 0)(_solve_remote)
        self._watch, self._board, self._lost = _ClusterWatch(ray), None, False
        return owns

    def _check_fits(self, ray: Any) -> None:
        have = ray.cluster_resources()
        for name, key, need in (
            ("num_cpus", "CPU", self.num_cpus),
            ("num_gpus", "GPU", self.num_gpus),
        ):
            if need > have.get(key, 0):
                ray.shutdown()
                raise ValueError(
                    f"{name}={need} per task, but the Ray instance started on this machine has "
                    f"{have.get(key, 0):g} {key}s; lower {name} or join a cluster with address="
                )

    def close(self) -> None:
        """Shut down the Ray instance this executor started, or disconnect from the cluster it
        joined; a Ray instance initialized by someone else is left running."""
        ray, self._ray, self._remote, self._solver = self._ray, None, None, None
        board, self._board, self._watch = self._board, None, None
        if ray is not None and board is not None and not self._lost and not self._owns:
            with contextlib.suppress(Exception):
                ray.kill(board)
        if ray is not None and self._owns and ray.is_initialized():
            ray.shutdown()
        self._owns = False

    # ------------------------------------------------------------------ a round
    def solve(
        self, solver: Any, tasks: Sequence[SolveTask], on_done: OnDone | None = None
    ) -> list[SolveOutcome]:
        """Run each task as a Ray task; one outcome per task, in task order."""
        tasks = list(tasks)
        if not tasks:
            return []
        self.start()
        ray = self._ray
        from ray import cloudpickle
        from ray.exceptions import LocalRayletDiedError, RayError, RayTaskError

        try:
            solver_blob = cloudpickle.dumps(solver)
        except Exception as exc:
            raise TypeError(
                f"RayExecutor could not serialize the solver ({type(solver).__name__}): {exc}"
            ) from exc
        # Ray itself retries nothing: a task whose worker died is resubmitted here, so that
        # each lost try is known (the outcome's ``lost``, the run's solve log)
        options: dict[str, Any] = {
            "num_cpus": self.num_cpus,
            "num_gpus": self.num_gpus,
            "max_retries": 0,
            "retry_exceptions": False,
        }
        if self.runtime_env is not None:
            options["runtime_env"] = self.runtime_env
        remote = self._remote.options(**options)
        if self._solver is None or self._solver[0] != solver_blob:
            self._solver = (solver_blob, ray.put(solver_blob))
        solver_ref = [self._solver[1]]
        timeout = self.solve_timeout
        board = self._start_board() if timeout is not None else None
        blobs = [cloudpickle.dumps(task) for task in tasks]
        index: dict[Any, int] = {}
        keys: dict[Any, str] = {}

        def submit(i: int) -> Any:
            key = next(self._keys)
            ref = remote.remote(solver_ref, blobs[i], board, key, timeout)
            index[ref], keys[ref] = i, key
            return ref

        outcomes: list[SolveOutcome | None] = [None] * len(tasks)
        lost: list[list[SolveOutcome]] = [[] for _ in tasks]
        pending = [submit(i) for i in range(len(tasks))]

        def finish(i: int, outcome: SolveOutcome) -> None:
            outcome.lost = tuple(lost[i])
            outcomes[i] = outcome
            if on_done is not None:
                on_done(outcome)

        deadlines = None if board is None else _Deadlines(self, board)
        try:
            while pending:
                ready, pending = self._wait(pending, tasks, index)
                if ready and pending:  # and whatever else is done by now
                    more, pending = self._wait(pending, tasks, index, slice_=0)
                    ready += more
                self._check_cluster(pending, tasks, index)
                if deadlines is not None and pending:
                    for ref, late in deadlines.overdue(pending, keys, tasks, index):
                        pending.remove(ref)
                        finish(index[ref], late)
                for ref in ready:
                    i = index[ref]
                    task = tasks[i]
                    try:
                        outcome: SolveOutcome = pickle.loads(ray.get(ref))
                    except RayTaskError as exc:  # raised outside the solve: loading the task
                        cause = getattr(exc, "cause", None) or exc
                        outcome = SolveOutcome(
                            task.slot,
                            task.weight,
                            None,
                            f"{type(cause).__name__}: {cause}",
                            str(exc),
                        )
                    except LocalRayletDiedError as exc:
                        raise self._lost_error(
                            [*pending, ref], tasks, index, _first_line(exc)
                        ) from exc
                    except RayError as exc:  # the worker or its node died
                        if len(lost[i]) < self.max_retries:
                            lost[i].append(
                                SolveOutcome(
                                    task.slot,
                                    task.weight,
                                    None,
                                    f"{type(exc).__name__}: the Ray "
                                    f"worker running it died; run again: {_first_line(exc)}",
                                    killed=True,
                                )
                            )
                            pending.append(submit(i))
                            continue
                        outcome = SolveOutcome(
                            task.slot,
                            task.weight,
                            None,
                            f"{type(exc).__name__}: the Ray worker running it died "
                            f"{self.max_retries + 1} times (max_retries={self.max_retries}): "
                            f"{exc}",
                            killed=True,
                        )
                    finish(i, outcome)
        except ExecutorLostError:
            self._lost = True  # a dead cluster may never answer a cancel: none sent
            raise
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise
        finally:
            if board is not None and not self._lost:
                with contextlib.suppress(Exception):
                    board.forget.remote(list(keys.values()))
        return [o for o in outcomes if o is not None]

    # ------------------------------------------------------------------ deadlines, the cluster
    def _start_board(self) -> Any:
        """The actor that records when each task's solve began (made on first use)."""
        if self._board is None:
            actor = self._ray.remote(num_cpus=0, max_restarts=0)(_board_class())
            self._board = actor.remote()
        return self._board

    def _wait(
        self,
        pending: list[Any],
        tasks: list[SolveTask],
        index: dict[Any, int],
        slice_: float = _SLICE,
    ) -> tuple[list[Any], list[Any]]:
        """``ray.wait`` for one of ``pending`` (all that are ready when ``slice_`` is 0) for at
        most ``slice_`` seconds; a lost connection to the cluster raises
        :class:`ExecutorLostError`."""
        ray = self._ray
        from ray.exceptions import RaySystemError, RpcError

        try:
            return ray.wait(pending, num_returns=1 if slice_ else len(pending), timeout=slice_)
        except ConnectionError as exc:  # Ray Client lost its server
            raise self._lost_error(pending, tasks, index, _first_line(exc)) from exc
        except (RaySystemError, RpcError) as exc:
            watch = self._watch
            why = None if watch is None else watch.lost(now_=True)
            if watch is not None and watch.targets and why is None:
                raise  # the cluster answers: something else
            raise self._lost_error(pending, tasks, index, why or _first_line(exc)) from exc

    def _check_cluster(
        self, pending: list[Any], tasks: list[SolveTask], index: dict[Any, int]
    ) -> None:
        """Raise :class:`ExecutorLostError` once the cluster is lost (checked at most every
        :data:`_SLICE` seconds)."""
        why = None if self._watch is None else self._watch.lost()
        if why is not None:
            raise self._lost_error(pending, tasks, index, why)

    def _lost_error(
        self, pending: list[Any], tasks: list[SolveTask], index: dict[Any, int], why: str
    ) -> ExecutorLostError:
        self._lost = True
        gcs = None if self._watch is None else self._watch.gcs
        if self.address is None:
            what = "the Ray instance this executor started on this machine" + (
                f" (GCS {gcs})" if gcs else ""
            )
        else:
            what = f"the Ray cluster at {self.address}" + (
                f" (GCS {gcs})" if gcs and gcs != self.address else ""
            )
        slots = sorted({index[ref] for ref in pending if ref in index})
        unfinished = ", ".join(
            f"{tasks[i].slot} (weight {format_weight(tasks[i].weight)})" for i in slots
        )
        return ExecutorLostError(
            f"{what} was lost: {why}. The solves of slots {unfinished} had not finished. "
            "The run folder (checkpoint=) keeps the run's last checkpoint: once the cluster is "
            "back, the same call with {resume} continues it",
            address=gcs or self.address,
            slots=[tasks[i].slot for i in slots],
            resume=True,
        )

    def __repr__(self) -> str:
        return (
            f"RayExecutor(address={self.address!r}, num_cpus={self.num_cpus}, "
            f"num_gpus={self.num_gpus}, max_retries={self.max_retries}, "
            f"solve_timeout={self.solve_timeout!r})"
        )
