"""Where a round's solves run: in this process, in a pool of local processes, or on Ray.

A round is a list of :class:`SolveTask` (slot, weight, warm start, and where to save the new
state when the solver keeps its states on disk). An executor runs them with
``solve(solver, tasks, on_done=None) -> list[SolveOutcome]``: one outcome per task, in order,
each with the solution or the error, the seconds it took and the host and process it ran on.
A failing solve does not raise: the run decides what to retry (its ``retries``) and logs every
attempt. ``on_done(outcome)``, when given, is called as each task finishes (progress
displays).

:func:`execute` runs tasks in the calling process, and every executor runs it wherever the
solves go: it loads warm starts saved on disk, calls the solver (its ``solve_many`` for a batch
when it has one), checks the results, and saves new states to disk.

- :class:`LocalExecutor` (the default): this process.
- :class:`ProcessExecutor`: a pool of local worker processes, kept for the whole run; a worker
  killed by a signal or the out-of-memory killer is replaced and its task resubmitted.
- :class:`RayExecutor` (the ``ray`` extra): Ray tasks on this machine or a cluster, each with
  its own CPUs or GPU; Ray reruns a task whose worker died.
- :class:`SlurmExecutor` (the ``slurm`` extra, on submitit): each round a SLURM job array,
  one job per solve with its own CPUs, GPUs, memory and time limit; a job that ended without a
  result is submitted again. Jobs outlive the driver: a driver started again over the same
  folder collects them instead of submitting them again.

Every executor takes ``solve_timeout`` (seconds; ``None``, the default, for no limit): a
solve that runs longer comes back as a failed outcome whose error starts
``"TimeoutError: the solve ran longer than solve_timeout=..."``, which the run retries like
any failed solve (its ``retries``). A ``solve_many`` call of k tasks may run k times as long.
:class:`LocalExecutor` interrupts the solve in this process (SIGALRM: the main thread of a
POSIX system; code stuck in C cannot be interrupted so); :class:`ProcessExecutor` interrupts
it in its worker and kills the worker if it has not returned two seconds later;
:class:`RayExecutor` interrupts it in its Ray worker and cancels the Ray task (``force=True``)
if it has not returned two seconds later; :class:`SlurmExecutor` interrupts it in its job and
cancels the job (``scancel``) if it has not returned two seconds later.

Worker processes of :class:`ProcessExecutor` die with the process that started them, however
it ends (SIGKILL included), and the temporary folders of a killed run are removed by the next
one (:mod:`paretosurf.storage`). :class:`RayExecutor` raises :class:`ExecutorLostError`, with
a message naming the cluster and the unfinished tasks, when its Ray cluster goes away during
a round.

The :class:`Executor` protocol is ``solve`` alone: an executor of your own needs nothing
else, and ``isinstance(obj, Executor)`` holds for any object with it (its solves are then
taken to run on this machine). The :class:`ManagedExecutor` protocol adds the rest, which the
library's executors have: resources (worker processes, a Ray connection) acquired in
``start()`` and released in ``close()`` (a run starts its executor and closes it at its end
when that start acquired them; they are context managers too), and where the solves run
(``solves_in``: ``"process"``, ``"machine"`` or ``"cluster"``), which decides how a
disk-state solver's states reach them.
:class:`BaseExecutor` gives the defaults of the managed part, and
:class:`paretosurf.testing.ExecutorContract` is the pytest suite that checks an executor of
your own keeps the contract.

Modules: :mod:`~paretosurf.executors.base` (tasks, outcomes, :func:`execute`, the in-process
executor), :mod:`~paretosurf.executors.process`, :mod:`~paretosurf.executors.ray_executor`,
:mod:`~paretosurf.executors.slurm`.
"""

from paretosurf.executors.base import (
    SOLVES_IN,
    BaseExecutor,
    Executor,
    ExecutorLostError,
    LocalExecutor,
    ManagedExecutor,
    OnDone,
    SolveOutcome,
    SolveTask,
    SolveTimeoutError,
    SolveTraceback,
    execute,
    raise_for,
    solves_in,
)
from paretosurf.executors.process import ProcessExecutor
from paretosurf.executors.ray_executor import RayExecutor
from paretosurf.executors.slurm import SlurmExecutor

__all__ = [
    "SOLVES_IN",
    "BaseExecutor",
    "Executor",
    "ExecutorLostError",
    "LocalExecutor",
    "ManagedExecutor",
    "OnDone",
    "ProcessExecutor",
    "RayExecutor",
    "SlurmExecutor",
    "SolveOutcome",
    "SolveTask",
    "SolveTimeoutError",
    "SolveTraceback",
    "execute",
    "raise_for",
    "solves_in",
]
