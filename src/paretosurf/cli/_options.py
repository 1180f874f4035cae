"""The options ``paretosurf bench`` and ``paretosurf run`` share (the gradient solver's
``--device``, ``--report``, the executor's) and the checks that refuse combinations no run
would use, before anything is computed."""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
from collections.abc import Sequence
from typing import Any

from paretosurf.cli._common import UsageError
from paretosurf.cli._types import _int_at_least, _positive_seconds

#: Executors of ``paretosurf run``.
EXECUTORS = ("local", "processes", "ray")
#: Worker processes of ``--executor processes`` when ``--workers`` is not given.
DEFAULT_WORKERS = 2


def _add_task_argument(parser: argparse.ArgumentParser) -> None:
    """The benchmark task, the first argument of ``run`` and ``bench``."""
    from paretosurf.bench.tasks import TASKS

    parser.add_argument(
        "task",
        metavar="TASK",
        choices=list(TASKS),
        help=f"benchmark task, one of: {', '.join(TASKS)}",
    )


def _add_steps_option(parser: argparse.ArgumentParser) -> None:
    """``--steps``: the gradient solver's budget per call."""
    parser.add_argument(
        "--steps",
        type=_int_at_least(1),
        default=None,
        metavar="K",
        help="the gradient solver's budget per call: Adam steps, or training "
        "episodes for mountaincar's DQN (default: the task's K)",
    )


def _add_plots_option(parser: argparse.ArgumentParser) -> None:
    """``--no-plots``."""
    parser.add_argument("--no-plots", dest="plots", action="store_false", help="skip the figures")


def _add_device_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--device",
        default=None,
        metavar="DEV",
        help="torch device of the gradient solver: cpu, cuda or cuda:N (the "
        "MDP tasks' K-step solver and mountaincar's DQN; default: numpy "
        "for the MDPs, the CPU for the DQN)",
    )


def _add_report_option(parser: argparse.ArgumentParser) -> None:
    from paretosurf.loop import REPORT_CHOICES

    parser.add_argument(
        "--report",
        choices=REPORT_CHOICES,
        default=None,
        help="which round the results of methods with slots hold: the last, "
        "or the most even of the last five ('auto': the most even with "
        "3+ objectives; default: the task's, most-even on mountaincar)",
    )


def _with_options(task: Any, args: argparse.Namespace) -> Any:
    """The task with the command line's --alpha, --report and --device."""
    if args.alpha is not None:
        task = dataclasses.replace(task, alpha=args.alpha)
    if args.report is not None:
        task = dataclasses.replace(task, report=args.report)
    if getattr(args, "device", None) is not None:
        task = dataclasses.replace(task, device=args.device)
    return task


def _add_executor_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--executor",
        choices=EXECUTORS,
        default="local",
        help="where the solves run: this process, a pool of --workers local "
        "processes, or Ray (default: %(default)s)",
    )
    parser.add_argument(
        "--workers",
        type=_int_at_least(1),
        default=None,
        metavar="W",
        help=f"worker processes of --executor processes (default: {DEFAULT_WORKERS})",
    )
    parser.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="Ray cluster to join with --executor ray ('auto' or "
        "'ray://host:port'; default: a local Ray instance)",
    )
    parser.add_argument(
        "--solve-timeout",
        type=_positive_seconds,
        default=None,
        metavar="SECONDS",
        help="a solve that runs longer fails, and is retried like any failed "
        "solve (default: no limit)",
    )


def _executor(args: argparse.Namespace) -> Any:
    from paretosurf import executors

    _check_executor_options(args, workers=False)
    timeout = args.solve_timeout
    if args.executor == "processes":
        return executors.ProcessExecutor(
            DEFAULT_WORKERS if args.workers is None else args.workers, solve_timeout=timeout
        )
    if args.executor == "ray":
        return executors.RayExecutor(address=args.address, solve_timeout=timeout)
    return executors.LocalExecutor(solve_timeout=timeout)


def _check_solver_options(args: argparse.Namespace, task: Any) -> None:
    """Refuse ``--steps`` with the exact solver (it only sets the gradient solver's budget)
    and ``--solver exact`` on a task that has none."""
    if args.solver == "exact" and task.make_solver is not None:
        raise UsageError(
            f"--solver exact: task {task.name!r} has no exact solver; use "
            "--solver gradient (its budget per call: --steps)"
        )
    if args.solver == "exact" and args.steps is not None:
        raise UsageError(
            "--steps sets the gradient solver's budget per call; it cannot be "
            "used with --solver exact"
        )
    device = getattr(args, "device", None)
    if device is None:
        return
    if args.solver == "exact":
        raise UsageError(
            "--device sets where the gradient solver runs; it cannot be used with "
            "--solver exact (numpy)"
        )
    if getattr(args, "ablation", False):
        raise UsageError("--device cannot be used with --ablation (its solvers run in numpy)")
    if not task.takes_device(task.make_problem()):
        raise UsageError(
            f"--device: task {task.name!r}'s gradient solver runs in numpy only; "
            "--device applies to the MDP tasks (dst, dst-convex, fishwood) and "
            "mountaincar"
        )
    from paretosurf._utils.validation import check_torch_device

    try:
        check_torch_device(device, numpy_backend=False)
    except (TypeError, ValueError, ImportError) as exc:
        raise UsageError(f"--device {device}: {exc}") from None


def _damped(method: str) -> bool:
    """Whether ``method`` takes ``--alpha`` (a damping factor): its entry function in the
    registry (:data:`paretosurf.methods.METHODS`) takes ``alpha``."""
    from paretosurf.methods import get_method

    return get_method(method).takes("alpha")


def _check_method_options(args: argparse.Namespace, methods: Sequence[str]) -> None:
    """Refuse ``--alpha`` when none of ``methods`` is damped and ``--report`` when none of
    them has slots: no method would use them.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line: ``alpha``, ``report`` and ``method`` (``paretosurf run``)
        or ``methods`` (``paretosurf bench``).
    methods : sequence of str
        The methods that will run (names of :data:`paretosurf.bench.METHODS`).

    Raises
    ------
    UsageError
        Naming the option and what to do instead.
    """
    from paretosurf.bench.runner import METHODS

    one = getattr(args, "method", None)
    if args.alpha is not None and not any(_damped(m) for m in methods):
        if one is not None:
            raise UsageError(
                f"--alpha sets SURF's damping factor, and --method {one} has "
                "none; drop --alpha, or run SURF (--method surf)"
            )
        raise UsageError(
            f"--alpha sets SURF's damping factor, and --methods "
            f"{','.join(methods)} has no SURF; drop --alpha, or add surf to "
            "--methods"
        )
    if args.report is not None and not any(METHODS[m].slots for m in methods):
        whose = (
            f"{one}'s points are"
            if one is not None
            else f"the points of --methods {','.join(methods)} are"
        )
        with_slots = ", ".join(name for name, spec in METHODS.items() if spec.slots)
        raise UsageError(
            f"--report {args.report}: {whose} not one round's, so there is no "
            f"round to choose (only methods with slots report one: "
            f"{with_slots}); drop --report"
        )


def _installed(module: str) -> bool:
    """Whether ``module`` can be imported (found, not imported)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _check_ray_installed(address: str | None) -> None:
    """Refuse ``--executor ray`` without Ray, and ``--address ray://...`` without the Ray
    Client (the ``ray[client]`` extra), before anything runs."""
    if not _installed("ray"):
        raise UsageError(
            "--executor ray needs Ray, which is not installed: pip install 'paretosurf[ray]'"
        )
    if address is not None and address.strip().startswith("ray://") and not _installed("grpc"):
        raise UsageError(
            f"--address {address} connects through the Ray Client, which is not installed "
            "(Ray's 'client' extra): pip install 'ray[client]', or run on a node of the "
            "cluster with --address auto"
        )


def _check_executor_options(args: argparse.Namespace, *, workers: bool = True) -> None:
    """Refuse ``--address`` without ``--executor ray`` and, with ``workers``, ``--workers``
    without ``--executor processes`` (they would be ignored); and ``--executor ray`` where
    Ray (or, for a ``ray://`` address, its client) is not installed."""
    if args.address is not None and args.executor != "ray":
        raise UsageError("--address needs --executor ray")
    if workers and args.workers is not None and args.executor != "processes":
        raise UsageError(
            f"--workers sets the size of the pool of --executor processes; it "
            f"cannot be used with --executor {args.executor} (pass --executor "
            "processes with it, or drop --workers)"
        )
    if args.executor == "ray":
        _check_ray_installed(args.address)
