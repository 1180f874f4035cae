"""The ``paretosurf`` command.

Subcommands live in a registry (:data:`COMMANDS`): each is a :class:`Command` with a name, a
one-line help, a function that adds its arguments to an :mod:`argparse` subparser and a function
that runs it and returns the exit status. A new subcommand is one :func:`register` call;
:func:`main` builds the parser from the registry.

``paretosurf demo`` runs SURF, Uniform-w and Random-w with the exact inner solver on a few
benchmark tasks (:data:`DEMO_TASKS`) through the benchmark runner and writes, per task, what
``paretosurf bench`` writes. ``paretosurf bench TASK`` runs the benchmark methods over seeds
(:func:`paretosurf.bench.run_task`), and ``paretosurf bench TASK --ablation`` runs the paper's
SURF ablation (:func:`paretosurf.bench.ablation.run_ablation`). All scoring, tables and figures
live in :mod:`paretosurf.bench`.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import math
import os
import re
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from paretosurf.bench.runner import TaskReport

__all__ = [
    "COMMANDS",
    "DEMO_METHODS",
    "DEMO_TASKS",
    "RUN_SETTINGS_FILE",
    "Command",
    "UsageError",
    "build_parser",
    "demo_summary",
    "main",
    "register",
    "run_demo",
]

#: Tasks of ``paretosurf demo``, in order (names of :data:`paretosurf.bench.TASKS`).
DEMO_TASKS: tuple[str, ...] = ("dst", "gear", "bandit")

#: Methods of ``paretosurf demo`` (names of :data:`paretosurf.bench.METHODS`).
DEMO_METHODS: tuple[str, ...] = ("surf", "uniform", "random")

#: Seeds of ``paretosurf bench`` when ``--seeds`` is not given.
BENCH_SEEDS = 8


class UsageError(ValueError):
    """Arguments that parse but do not fit together; :func:`main` exits with status 2."""


# ---------------------------------------------------------------------------- registry
@dataclass(frozen=True)
class Command:
    """One ``paretosurf`` subcommand.

    Attributes
    ----------
    name : str
        What the user types (``paretosurf NAME ...``).
    help : str
        One line for ``paretosurf --help``.
    configure : callable
        Adds the subcommand's arguments to its :class:`argparse.ArgumentParser`.
    run : callable
        Runs the subcommand with the parsed arguments; returns the exit status.
    description : str
        Longer text for ``paretosurf NAME --help`` (default: ``help``).
    """

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    description: str = ""


#: The subcommands, by name, in the order ``--help`` lists them.
COMMANDS: dict[str, Command] = {}


def register(command: Command) -> Command:
    """Add ``command`` to :data:`COMMANDS` (a name may be registered once)."""
    if not isinstance(command, Command):
        raise TypeError(f"command must be a Command, got {type(command).__name__}")
    if command.name in COMMANDS:
        raise ValueError(f"a subcommand named {command.name!r} is already registered")
    COMMANDS[command.name] = command
    return command


# ---------------------------------------------------------------------------- argument types
def _int_at_least(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be an integer >= {minimum}, got {text!r}"
            ) from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}, got {value}")
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse


def _number_or_auto(what: str, valid: Callable[[float], bool]) -> Callable[[str], float | str]:
    """Parse ``'auto'`` or a number for which ``valid`` holds (``what`` names the range)."""

    def parse(text: str) -> float | str:
        if text == "auto":
            return text
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what} or 'auto', got {text!r}") from None
        if not valid(value):
            raise argparse.ArgumentTypeError(f"must be {what}, got {value}")
        return value

    parse.__name__ = f"{what} or 'auto'"
    return parse


_alpha = _number_or_auto("a number in (0, 1]", lambda v: 0.0 < v <= 1.0)
_checkpoint_period = _number_or_auto(
    "a number of seconds >= 0", lambda v: math.isfinite(v) and v >= 0.0
)


def _number(
    what: str, valid: Callable[[float], bool], *, whole_as_int: bool = False
) -> Callable[[str], float]:
    """A parser of finite numbers that satisfy ``valid`` (``what`` names them in errors);
    with ``whole_as_int`` a whole number comes back as an int."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
        if not (math.isfinite(value) and valid(value)):
            raise argparse.ArgumentTypeError(f"must be {what}, got {value:g}")
        return int(value) if whole_as_int and value.is_integer() else value

    parse.__name__ = what
    return parse


_ratio_above_one = _number("a number > 1", lambda v: v > 1)
_positive_seconds = _number("a number of seconds > 0", lambda v: v > 0)
#: A number of GPUs >= 0 (an int when whole).
_gpu_count = _number("a number of GPUs >= 0", lambda v: v >= 0, whole_as_int=True)


def _folder_path(text: str) -> Path:
    """A folder option's path; an empty (or blank) one is refused: ``Path("")`` is the
    working directory, which a run would then fill (pass ``.`` to mean it)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            f"{text!r} names no folder (it would be the working directory; pass . if you mean it)"
        )
    return Path(text)


_folder_path.__name__ = "folder"


def _name_list(
    what: str,
    valid: Callable[[], Sequence[str]],
    resolve: Callable[[str], str] = str,
) -> Callable[[str], list[str]]:
    """Parse ``a,b,c`` into names from ``valid()``, each after ``resolve`` (an alias to its
    name); unknown, repeated or no names are errors."""

    def parse(text: str) -> list[str]:
        known = list(valid())
        names = [resolve(part.strip()) for part in text.split(",")]
        if not text.strip() or any(not name for name in names):
            raise argparse.ArgumentTypeError(
                f"must be a comma-separated list of {what}s from {', '.join(known)}; got {text!r}"
            )
        unknown = [name for name in names if name not in known]
        if unknown:
            raise argparse.ArgumentTypeError(
                f"unknown {what}(s) {', '.join(map(repr, unknown))}; choose from {', '.join(known)}"
            )
        if len(set(names)) != len(names):
            raise argparse.ArgumentTypeError(f"repeated {what} in {text!r}")
        return names

    parse.__name__ = f"list of {what}s"
    return parse


def _task_names() -> list[str]:
    from paretosurf.bench.tasks import TASKS

    return list(TASKS)


def _exact_task_names() -> list[str]:
    """Tasks with an exact inner solver (a task with its own solver, deep RL, has none)."""
    from paretosurf.bench.tasks import TASKS

    return [name for name, task in TASKS.items() if task.make_solver is None]


def _demo_task_list(text: str) -> list[str]:
    """Parse ``--tasks`` of ``paretosurf demo``: known tasks that have an exact solver."""
    names = _name_list("task", _task_names)(text)
    inexact = [name for name in names if name not in _exact_task_names()]
    if inexact:
        raise argparse.ArgumentTypeError(
            f"task(s) {', '.join(map(repr, inexact))} have no exact solver, which the demo "
            f"runs every method with; choose from {', '.join(_exact_task_names())}"
        )
    return names


_demo_task_list.__name__ = "list of tasks"


def _method_names() -> list[str]:
    from paretosurf.bench.runner import METHODS

    return list(METHODS)


def _method_name(text: str) -> str:
    """The benchmark method ``text`` names: its own name, or an alias the registry knows it
    by (``uniform_random``, the entry function of ``random``). Any other text is returned
    as it is, for the caller's choices to refuse.

    Examples
    --------
    >>> from paretosurf.cli import _method_name
    >>> _method_name("uniform_random"), _method_name("ols"), _method_name("nope")
    ('random', 'ols', 'nope')
    """
    from paretosurf.methods import get_method

    try:
        name = get_method(text).name
    except KeyError:
        return text
    return name if name in _method_names() else text


_method_name.__name__ = "method"


def _progress_to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _check_output_folder(path: Path, option: str) -> None:
    """Refuse, before anything is computed, an output folder that cannot be written.

    ``path`` must be a writable folder, or not exist yet under a writable folder (the
    nearest one that exists), so that the run's files can be written once it is done.

    Raises
    ------
    UsageError
        Naming ``option`` and the reason.
    """
    if path.exists() and not path.is_dir():
        raise UsageError(f"{option} {path}: exists and is not a folder")
    existing = path
    while not existing.exists():
        parent = existing.parent
        if parent == existing:
            break
        existing = parent
    if not existing.is_dir():
        raise UsageError(f"{option} {path}: cannot create it, {existing} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        what = "is not writable" if existing == path else f"cannot be created in {existing}"
        raise UsageError(f"{option} {path}: {what} (permission denied)")


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
    from paretosurf._validation import check_torch_device

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


# ---------------------------------------------------------------------------- demo
def run_demo(
    out: str | Path,
    *,
    tasks: Sequence[str] | None = None,
    n_segments: int | None = None,
    iterations: int | None = None,
    alpha: float | None = None,
    seed: int = 0,
    plots: bool = True,
    stream: TextIO | None = None,
) -> dict[str, TaskReport]:
    """Run :data:`DEMO_METHODS` with the exact inner solver on each demo task.

    For each task, :func:`paretosurf.bench.run_task` (one seed) and
    :func:`paretosurf.bench.write_report` into ``out/<task>`` (``results.json``, ``table.md``,
    figures), printing its table; then the summary of :func:`demo_summary`, also written to
    ``out/summary.md``, and the output folder.

    Parameters
    ----------
    out : path
        Output folder (created if missing; files in it are overwritten).
    tasks : sequence of str, optional
        Task names (default :data:`DEMO_TASKS`, read at call time).
    n_segments, iterations : int, optional
        Override each task's N and outer iterations.
    alpha : float, optional
        Override each task's SURF damping factor.
    seed : int
        Seed of the run (Random-w draws its weights from it).
    plots : bool
        Whether to draw the figures.
    stream : text file, optional
        Where the tables go (default ``sys.stdout``).

    Returns
    -------
    dict
        Task name to its :class:`~paretosurf.bench.TaskReport`.

    Examples
    --------
    >>> import io, tempfile
    >>> from paretosurf.cli import run_demo
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     reports = run_demo(tmp, tasks=["gear"], n_segments=4, iterations=3, plots=False,
    ...                        stream=io.StringIO())
    >>> [r.results["surf"][0].n_solves for r in reports.values()]
    [15]
    """
    from paretosurf.bench import get_task, run_task, write_report

    names = list(DEMO_TASKS if tasks is None else tasks)
    if not names:
        raise ValueError("tasks must name at least one task")
    chosen = [get_task(name) for name in names]
    inexact = [task.name for task in chosen if task.make_solver is not None]
    if inexact:
        raise ValueError(
            f"task(s) {', '.join(map(repr, inexact))} have no exact solver, which "
            "the demo runs every method with"
        )
    if alpha is not None:
        from paretosurf._validation import check_alpha

        a = check_alpha(alpha)
        chosen = [dataclasses.replace(task, alpha=a) for task in chosen]
    out_stream = stream if stream is not None else sys.stdout
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    reports: dict[str, TaskReport] = {}
    for task in chosen:
        report = run_task(
            task,
            methods=DEMO_METHODS,
            seeds=[seed],
            solver_kind="exact",
            n_segments=n_segments,
            iterations=iterations,
        )
        out_stream.write("\n")
        write_report(report, root / task.name, plots=plots, stream=out_stream)
        reports[task.name] = report
    summary = demo_summary(reports)
    (root / "summary.md").write_text(summary + "\n")
    out_stream.write("\n" + summary + "\n")
    out_stream.write(f"\nwrote {root.resolve()}\n")
    return reports


def _ratio(a: float, b: float) -> str:
    if not (math.isfinite(a) and math.isfinite(b)):
        return "-"
    if b == 0:
        return "inf" if a > 0 else "-"
    return f"{a / b:.3g}"


def demo_summary(reports: dict[str, TaskReport]) -> str:
    """A Markdown table: per task, SURF's and Uniform-w's CV and gap ratio and their ratios
    (Uniform-w / SURF: how many times more uneven fixed uniform weights are).

    Examples
    --------
    >>> import io, tempfile
    >>> from paretosurf.cli import demo_summary, run_demo
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     reports = run_demo(tmp, tasks=["gear"], n_segments=4, iterations=3, plots=False,
    ...                        stream=io.StringIO())
    >>> demo_summary(reports).splitlines()[4].split(" | ")[:2]
    ['| gear', '4']
    """
    lines = [
        "**Summary**: SURF vs Uniform-w with the same budget (CV: std/mean of the gaps between "
        "consecutive points, 0 = even; gap ratio: largest/smallest gap, 1 = even).",
        "",
        "| task | N | CV SURF | CV Uniform-w | CV Uniform-w / SURF | gap ratio SURF | "
        "gap ratio Uniform-w | gap ratio Uniform-w / SURF |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, report in reports.items():
        sc = {m: report.scores[m][0] for m in ("surf", "uniform") if m in report.scores}
        if len(sc) < 2:
            continue
        cv_s, cv_u = sc["surf"]["cv"], sc["uniform"]["cv"]
        gr_s, gr_u = sc["surf"]["gap_ratio"], sc["uniform"]["gap_ratio"]
        lines.append(
            f"| {name} | {report.n_segments} | {cv_s:.4g} | {cv_u:.4g} | "
            f"{_ratio(cv_u, cv_s)} | {gr_s:.4g} | {gr_u:.4g} | {_ratio(gr_u, gr_s)} |"
        )
    return "\n".join(lines)


def _task_defaults(names: Sequence[str], attribute: str) -> str:
    from paretosurf.bench.tasks import TASKS

    return ", ".join(f"{n} {getattr(TASKS[n], attribute)}" for n in names if n in TASKS)


def _configure_demo(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        default="demo-output",
        type=_folder_path,
        metavar="DIR",
        help="output folder (default: %(default)s)",
    )
    parser.add_argument(
        "--tasks",
        type=_demo_task_list,
        default=None,
        metavar="LIST",
        help=f"comma-separated tasks (default: {','.join(DEMO_TASKS)})",
    )
    parser.add_argument(
        "--n",
        type=_int_at_least(2),
        default=None,
        metavar="N",
        help="segments: N + 1 points per method (integer >= 2; default: the "
        f"task's own, {_task_defaults(DEMO_TASKS, 'n_segments')})",
    )
    parser.add_argument(
        "--iterations",
        type=_int_at_least(1),
        default=None,
        metavar="T",
        help="outer iterations (solves per slot) of every method (integer >= 1;"
        f" default: the task's own, "
        f"{_task_defaults(DEMO_TASKS, 'iterations')})",
    )
    parser.add_argument(
        "--alpha",
        type=_alpha,
        default=None,
        help="SURF's damping factor in (0, 1] or 'auto' (default: the task's own, 0.3)",
    )
    parser.add_argument(
        "--seed",
        type=_int_at_least(0),
        default=0,
        metavar="S",
        help="seed of the Random-w baseline (default: %(default)s)",
    )
    parser.add_argument("--no-plots", dest="plots", action="store_false", help="skip the figures")


def _run_demo_command(args: argparse.Namespace) -> int:
    run_demo(
        args.out,
        tasks=args.tasks,
        n_segments=args.n,
        iterations=args.iterations,
        alpha=args.alpha,
        seed=args.seed,
        plots=args.plots,
    )
    return 0


register(
    Command(
        name="demo",
        help="compare SURF with uniform and random weights on toy problems (a few seconds)",
        description=(
            "Run SURF, Uniform-w and Random-w with the same budget and the exact inner solver on "
            f"benchmark tasks with known fronts ({', '.join(DEMO_TASKS)} by default), through the "
            "benchmark runner of `paretosurf bench`: per task, print the table (HV, IGD, CV, gap "
            "ratio, distance to the front, seconds, solver calls) and write results.json, table.md "
            "and figures into --out/<task>; then print a SURF vs Uniform-w summary."
        ),
        configure=_configure_demo,
        run=_run_demo_command,
    )
)


# ---------------------------------------------------------------------------- bench
def _configure_bench(parser: argparse.ArgumentParser) -> None:
    from paretosurf.bench.runner import METHODS
    from paretosurf.bench.tasks import SOLVER_KINDS, TASKS

    parser.add_argument(
        "task",
        metavar="TASK",
        choices=list(TASKS),
        help=f"benchmark task, one of: {', '.join(TASKS)}",
    )
    parser.add_argument(
        "--methods",
        type=_name_list("method", _method_names, _method_name),
        default=None,
        metavar="LIST",
        help=f"comma-separated methods (default: all, {','.join(METHODS)})",
    )
    parser.add_argument(
        "--seeds",
        type=_int_at_least(1),
        default=None,
        metavar="S",
        help=f"number of seeds 0..S-1 (default: {BENCH_SEEDS})",
    )
    parser.add_argument(
        "--n",
        type=_int_at_least(2),
        default=None,
        metavar="N",
        help="segments: N + 1 points (default: the task's N; with --ablation "
        "the N held fixed in panels (b) and (c), default 15)",
    )
    parser.add_argument(
        "--iterations",
        type=_int_at_least(1),
        default=None,
        metavar="T",
        help="outer iterations, i.e. solver calls per slot (default: the "
        "task's; with --ablation 30)",
    )
    parser.add_argument(
        "--solver",
        choices=SOLVER_KINDS,
        default="gradient",
        help="inner solver: the task's K-step gradient solver (the paper's "
        "budget; mountaincar: the soft DQN) or the exact one (default: "
        "%(default)s)",
    )
    parser.add_argument(
        "--steps",
        type=_int_at_least(1),
        default=None,
        metavar="K",
        help="the gradient solver's budget per call: Adam steps, or training "
        "episodes for mountaincar's DQN (default: the task's K)",
    )
    _add_device_option(parser)
    parser.add_argument(
        "--alpha",
        type=_alpha,
        default=None,
        metavar="A",
        help="SURF's damping, a number in (0, 1] or 'auto' (default: the task's, the paper's 0.3)",
    )
    _add_report_option(parser)
    parser.add_argument(
        "--out",
        type=_folder_path,
        default=None,
        metavar="DIR",
        help="output folder (default: bench-output/TASK-SOLVER, with "
        "--ablation bench-output/TASK-ablation[-exact])",
    )
    parser.add_argument("--no-plots", dest="plots", action="store_false", help="skip the figures")
    _add_executor_options(parser)
    parser.add_argument(
        "--ablation",
        action="store_true",
        help="run the SURF ablation instead: error ||Phi_t - Phi||_inf per "
        "outer iteration for N in {5,10,15,25,50}, alpha in "
        "{0.2,0.3,0.5,0.9}, K in {10,30,100} (gradient solver), and the "
        "final error vs N in 4..20 with the exact solver; writes "
        "ablation.json, ablation.md and ablation.png",
    )


def _run_bench_command(args: argparse.Namespace) -> int:
    from paretosurf.bench import get_task, run_task, write_report
    from paretosurf.bench.runner import METHODS

    task = get_task(args.task)
    _check_solver_options(args, task)
    if args.ablation:
        return _run_ablation(args, task)
    _check_executor_options(args)
    methods = args.methods or tuple(METHODS)
    _check_method_options(args, methods)
    task = _with_options(task, args)
    out = args.out if args.out is not None else Path("bench-output") / f"{task.name}-{args.solver}"
    _check_output_folder(out, "--out")

    executor = _executor(args)
    try:
        report = run_task(
            task,
            methods=methods,
            seeds=args.seeds or BENCH_SEEDS,
            solver_kind=args.solver,
            n_segments=args.n,
            iterations=args.iterations,
            progress=_progress_to_stderr,
            steps=args.steps,
            loop={"executor": executor},
        )
    finally:
        close = getattr(executor, "close", None)
        if callable(close):
            close()
    written = write_report(report, out, plots=args.plots, stream=sys.stdout)
    _progress_to_stderr(f"wrote {', '.join(p.name for p in written)} to {out.resolve()}")
    return 0


def _run_ablation(args: argparse.Namespace, task: Any) -> int:
    from paretosurf.bench.ablation import run_ablation, write_ablation

    extra = [
        flag
        for flag, value in (
            ("--methods", args.methods),
            ("--seeds", args.seeds),
            ("--alpha", args.alpha),
            ("--report", args.report),
            ("--steps", args.steps),
            ("--executor", None if args.executor == "local" else args.executor),
            ("--workers", args.workers),
            ("--address", args.address),
            ("--solve-timeout", args.solve_timeout),
        )
        if value is not None
    ]
    if extra:
        raise UsageError(
            f"{' and '.join(extra)} cannot be used with --ablation (it runs "
            "SURF alone, seed 0, over its own alphas and steps K, in this "
            "process)"
        )
    suffix = "" if args.solver == "gradient" else f"-{args.solver}"
    out = (
        args.out if args.out is not None else Path("bench-output") / f"{task.name}-ablation{suffix}"
    )
    _check_output_folder(out, "--out")
    options: dict[str, Any] = {}
    if args.n is not None:
        options["n_fixed"] = args.n
    if args.iterations is not None:
        options["iterations"] = args.iterations
    report = run_ablation(task, solver_kind=args.solver, progress=_progress_to_stderr, **options)
    written = write_ablation(report, out, plots=args.plots, stream=sys.stdout)
    _progress_to_stderr(f"wrote {', '.join(p.name for p in written)} to {out.resolve()}")
    return 0


register(
    Command(
        name="bench",
        help="run SURF and the baselines on a benchmark task (the paper's tables and figures)",
        description=(
            "Run the benchmark methods (SURF, Uniform-w, Random-w, OLS, UMOD, Soup) on TASK over "
            "seeds with the same inner solver and budget; print a progress line per run to stderr "
            "and the Markdown table (mean +- std over seeds) to stdout, and write results.json, "
            "table.md and figures into --out. With --ablation, run the paper's SURF ablation on "
            "TASK instead (any task; DST takes a minute or two): --n sets the N held fixed, "
            "--iterations the outer iterations, --solver exact runs panels (a) and (b) with the "
            "exact solver and skips (c)."
        ),
        configure=_configure_bench,
        run=_run_bench_command,
    )
)


# ---------------------------------------------------------------------------- run
#: Executors of ``paretosurf run``.
EXECUTORS = ("local", "processes", "ray")
#: Worker processes of ``--executor processes`` when ``--workers`` is not given.
DEFAULT_WORKERS = 2


def _configure_run(parser: argparse.ArgumentParser) -> None:
    from paretosurf.bench.tasks import SOLVER_KINDS, TASKS

    parser.add_argument(
        "task",
        metavar="TASK",
        choices=list(TASKS),
        help=f"benchmark task, one of: {', '.join(TASKS)}",
    )
    parser.add_argument(
        "--method",
        type=_method_name,
        choices=_method_names(),
        default="surf",
        help="method to run (default: %(default)s; uniform_random is random)",
    )
    parser.add_argument(
        "--solver",
        choices=SOLVER_KINDS,
        default="gradient",
        help="inner solver: the task's K-step gradient solver or the exact "
        "one (default: %(default)s)",
    )
    parser.add_argument(
        "--steps",
        type=_int_at_least(1),
        default=None,
        metavar="K",
        help="the gradient solver's budget per call: Adam steps, or training "
        "episodes for mountaincar's DQN (default: the task's K)",
    )
    _add_device_option(parser)
    parser.add_argument(
        "--n",
        type=_int_at_least(1),
        default=None,
        metavar="N",
        help="segments: N + 1 points (default: the task's N)",
    )
    parser.add_argument(
        "--iterations",
        type=_int_at_least(1),
        default=None,
        metavar="T",
        help="rounds (default: the task's)",
    )
    parser.add_argument(
        "--alpha",
        type=_alpha,
        default=None,
        metavar="A",
        help="SURF's damping factor, or 'auto' (default: the task's)",
    )
    _add_report_option(parser)
    parser.add_argument(
        "--seed",
        type=_int_at_least(0),
        default=0,
        metavar="S",
        help="seed of the task's initial states and of random baselines (default: %(default)s)",
    )
    _add_executor_options(parser)
    parser.add_argument(
        "--checkpoint",
        type=_folder_path,
        default=None,
        metavar="DIR",
        help="run folder: the run is saved there after every round, with a "
        "log of every solve (solves.jsonl)",
    )
    parser.add_argument(
        "--checkpoint-period",
        type=_checkpoint_period,
        default=None,
        metavar="SECONDS",
        help="seconds of running between checkpoints of "
        "--checkpoint (0: every round); 'auto' saves every round unless rounds "
        "are so short that this would cost over 1%% of the run (default: "
        "auto)",
    )
    again = parser.add_mutually_exclusive_group()
    again.add_argument(
        "--resume",
        action="store_true",
        help="continue the run saved in --checkpoint (with the settings it was started with)",
    )
    again.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the run saved in --checkpoint (its files only)",
    )
    parser.add_argument(
        "--target",
        type=_ratio_above_one,
        default=None,
        metavar="R",
        help="the spacing the result must reach: the largest gap over the "
        "smallest (default: 2 on a curve, 3 on a surface)",
    )
    parser.add_argument(
        "--out",
        type=_folder_path,
        default=None,
        metavar="DIR",
        help="where the table, results.json and figures go (default: the "
        "folder 'output' in --checkpoint, else run-output/TASK-METHOD); "
        "files there that paretosurf did not write are never replaced",
    )
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
    from paretosurf.kept_rounds import REPORT_CHOICES

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


#: Where ``paretosurf run --checkpoint DIR`` records the command-line settings the run was
#: started with: under this key of the notes in ``DIR/run.json`` (the method's settings are
#: the run's own); ``--resume`` refuses other ones.
RUN_NOTES_KEY = "paretosurf run"
#: The file in which earlier versions recorded them (still read when resuming their folders).
RUN_SETTINGS_FILE = "command.json"
_RUN_SETTINGS_FORMAT = "paretosurf run"
#: The folder of a ``--checkpoint DIR`` that takes the results when ``--out`` is not given.
RUN_OUTPUT = "output"

#: How each recorded setting is named on the command line, in the order messages list them.
_RUN_OPTIONS = {
    "task": "TASK",
    "method": "--method",
    "solver": "--solver",
    "steps": "--steps",
    "seed": "--seed",
    "n": "--n",
    "alpha": "--alpha",
    "report": "--report",
}

#: The start of the line the library prints on Ctrl-C (it names the Python API's
#: ``resume=True``); the command prints its own with the command line that resumes.


def _run_settings(args: argparse.Namespace, task: Any) -> dict[str, Any]:
    """The settings of ``paretosurf run`` that decide its results, as they take effect (the
    task's defaults filled in): task, method, solver, seed and N always; the gradient
    solver's steps, SURF's alpha and (methods with slots) the reported round where they
    apply. ``task`` is the task with ``--alpha`` and ``--report`` applied."""
    from paretosurf.bench.runner import METHODS

    settings: dict[str, Any] = {
        "task": task.name,
        "method": args.method,
        "solver": args.solver,
        "seed": args.seed,
        "n": task.n_segments if args.n is None else args.n,
    }
    if args.solver == "gradient":
        settings["steps"] = task.steps if args.steps is None else args.steps
    if _damped(args.method):
        settings["alpha"] = task.alpha
    if METHODS[args.method].slots:
        settings["report"] = task.report
    return settings


def _read_run_settings(folder: Path) -> dict[str, Any] | None:
    """The command-line settings recorded with the run in ``folder`` (``None``: none, a
    folder of Python code or of a version that recorded none)."""
    from paretosurf.checkpoint import CheckpointError
    from paretosurf.run_folder import RunFolder

    try:
        notes = RunFolder(folder).manifest().get("notes") or {}
    except CheckpointError as exc:
        raise UsageError(_damaged(exc)) from None
    if isinstance(notes, dict) and isinstance(notes.get(RUN_NOTES_KEY), dict):
        return dict(notes[RUN_NOTES_KEY])
    path = folder / RUN_SETTINGS_FILE  # recorded by an earlier version
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
        if data.get("format") != _RUN_SETTINGS_FORMAT or not isinstance(data["settings"], dict):
            raise ValueError("not a record of paretosurf run's settings")
        settings: dict[str, Any] = data["settings"]
    except (OSError, ValueError, KeyError, AttributeError) as exc:
        raise UsageError(
            f"cannot read {path} ({exc}); delete it to resume without checking "
            "the command-line settings"
        ) from None
    return settings


def _shown(value: Any) -> str:
    return "(not used)" if value is None else str(value)


def _check_run_settings(
    args: argparse.Namespace, saved: Mapping[str, Any], given: Mapping[str, Any]
) -> None:
    """Refuse to resume a run with other settings than it was started with."""
    diffs = [
        f"{flag}: {_shown(saved.get(key))} in the checkpoint, {_shown(given.get(key))} given"
        for key, flag in _RUN_OPTIONS.items()
        if saved.get(key) != given.get(key)
    ]
    if diffs:
        raise UsageError(
            f"--checkpoint {args.checkpoint} holds a run started with other settings; "
            f"differing: {'; '.join(diffs)}. Resume it with:\n  "
            f"{_resume_command(args, saved)}\n(or start a new run there with --overwrite)"
        )


def _resume_command(args: argparse.Namespace, saved: Mapping[str, Any] | None = None) -> str:
    """The command line that continues an interrupted ``paretosurf run``: with its own
    options, or with the ``saved`` settings (:func:`_run_settings`) where given (the task's
    defaults left out)."""
    from paretosurf.bench.tasks import TASKS

    values: dict[str, Any] = {
        "task": args.task,
        "method": args.method,
        "solver": args.solver,
        "seed": args.seed,
        "n": args.n,
        "steps": args.steps,
        "alpha": args.alpha,
        "report": args.report,
    }
    if saved is not None:
        task = TASKS.get(str(saved.get("task")))
        defaults = (
            {}
            if task is None
            else {
                "n": task.n_segments,
                "steps": task.steps,
                "alpha": task.alpha,
                "report": task.report,
            }
        )
        values = {key: saved.get(key) for key in values}
        for key, default in defaults.items():
            if values[key] == default:
                values[key] = None
    parts = [
        "paretosurf",
        "run",
        str(values["task"]),
        "--method",
        str(values["method"]),
        "--solver",
        str(values["solver"]),
        "--seed",
        str(values["seed"]),
        "--executor",
        args.executor,
    ]
    for flag, value in (
        ("--n", values["n"]),
        ("--iterations", args.iterations),
        ("--steps", values["steps"]),
        ("--device", args.device),
        ("--alpha", values["alpha"]),
        ("--report", values["report"]),
        ("--workers", args.workers),
        ("--address", args.address),
        ("--solve-timeout", getattr(args, "solve_timeout", None)),
        ("--target", getattr(args, "target", None)),
        ("--out", args.out),
        (
            "--checkpoint-period",
            None if args.checkpoint_period == "auto" else args.checkpoint_period,
        ),
    ):
        if value is not None:
            parts += [flag, str(value)]
    if not args.plots:
        parts.append("--no-plots")
    parts += ["--checkpoint", str(args.checkpoint), "--resume"]
    return shlex.join(parts)


def _in_cli_terms(message: str) -> str:
    """A library error about a run folder or its settings (which names the Python API's
    ``resume=True``, ``overwrite=True`` and the settings that differ) in command-line terms.
    Results' findings need no such rewriting: their remedies are spelled per front end (see
    :func:`_result_lines`)."""
    from paretosurf.solver_identity import FORCE_HINT, SHAPE_FORCE_HINT

    # the command line has no resume="force"
    message = message.replace(FORCE_HINT, "").replace(SHAPE_FORCE_HINT, "")
    message = message.replace("resume=True", "--resume").replace("overwrite=True", "--overwrite")
    message = re.sub(r"\biterations=(\d+)", r"--iterations \1", message)
    for key, flag in (
        ("n_segments", "--n"),
        ("alpha", "--alpha"),
        ("report", "--report"),
        ("seed", "--seed"),
        ("iterations", "--iterations"),
        ("max_solves", "--iterations"),
        ("calls_per_solve", "--iterations"),
    ):
        message = re.sub(rf"(differing: |; ){key}(?=: )", rf"\g<1>{key} ({flag})", message)
    return message


#: How the command line spells the run options that findings' remedies name (the others are
#: options of the Python API, spelled as such).
_CLI_OPTIONS = {
    "iterations": "--iterations",
    "alpha": "--alpha {value}",
    "report": "--report {value}",
    "n_segments": "--n {value}",
    "target": "--target {value}",
}


def _cli_spelling(resumable: bool) -> Callable[[str, Any], str]:
    """The spelling of a finding's options on the command line: ``--resume`` (a new run with
    more rounds where the run cannot be resumed), ``--alpha auto``; options the command line
    lacks as the Python API writes them."""
    from paretosurf.findings import python_spelling

    def spell(name: str, value: Any) -> str:
        if name == "resume":
            return "--resume" if resumable else "a new run"
        flag = _CLI_OPTIONS.get(name)
        if flag is None:
            return f"{python_spelling(name, value)} (Python API)"
        return flag.format(value=value)

    return spell


def _result_lines(result: Any, *, resumable: bool) -> str:
    """The result's message, then each finding's remedy in the command line's terms."""
    spell = _cli_spelling(resumable)
    lines = [result.message]
    for finding in result.findings:
        remedy = finding.remedy_text(spell)
        if remedy:
            lines.append(f"  {finding.code} ({finding.severity}): {remedy}")
    return "\n".join(lines)


def _damaged(exc: Exception) -> str:
    """The message of a :class:`~paretosurf.checkpoint.CheckpointError`, in CLI terms."""
    message = _in_cli_terms(str(exc))
    if "--overwrite" not in message:
        message += " (start a new run there with --overwrite, or use another folder)"
    return message


def _prepare_checkpoint(args: argparse.Namespace, task: Any) -> tuple[bool, int]:
    """Check ``--checkpoint`` before solving: a folder that holds a run needs ``--resume`` or
    ``--overwrite``, and ``--resume`` the settings the run was started with.

    Returns whether the folder held a run and how many rounds it had saved (0 unless
    resumed). Raises :class:`UsageError` for a folder that holds a run without ``--resume``
    or ``--overwrite``, a damaged one, or one started with other settings.
    """
    from paretosurf.checkpoint import CheckpointError
    from paretosurf.run_folder import RunFolder

    path: Path = args.checkpoint
    _check_output_folder(path, "--checkpoint")
    folder = RunFolder(path)
    held = folder.holds_run()
    if held and not (args.resume or args.overwrite):
        raise UsageError(
            f"--checkpoint {path} already holds "
            f"{_in_cli_terms(folder.describe())}; pass --resume to continue it, "
            "--overwrite to replace it, or use another folder"
        )
    if held and args.resume:
        saved = _read_run_settings(path)
        if saved is not None:
            _check_run_settings(args, saved, _run_settings(args, task))
        try:
            return True, folder.n_rounds()
        except CheckpointError as exc:
            raise UsageError(_damaged(exc)) from None
    return held, 0


def _check_report_folder(out: Path) -> None:
    """Refuse, before solving, an ``--out`` holding files of the report's names that
    paretosurf did not write."""
    from paretosurf.bench.runner import foreign_report_files

    foreign = foreign_report_files(out)
    if foreign:
        raise UsageError(
            f"--out {out} holds {', '.join(foreign)}, which paretosurf did not "
            "write; it writes over no file of yours: choose another --out, or "
            "move them"
        )


def _rounds_kept(path: Path) -> int:
    """Rounds saved in the run folder ``path`` (0 if none, or if it cannot be read)."""
    from paretosurf.checkpoint import CheckpointError
    from paretosurf.run_folder import RunFolder

    folder = RunFolder(path)
    try:
        return folder.n_rounds() if folder.holds_run() else 0
    except CheckpointError:
        return 0


def _kept_after_failure(args: argparse.Namespace) -> str:
    """What a failed run left in ``--checkpoint`` and the command that continues it once the
    solver is fixed."""
    rounds = _rounds_kept(args.checkpoint)
    if rounds:
        kept = (
            f"the run's last checkpoint, after round {rounds}, is kept in "
            f"{args.checkpoint}; once the solver is fixed, resume it with"
        )
    else:
        kept = (
            f"no round of the run was saved in {args.checkpoint} yet; once the solver is "
            "fixed, start it again there with"
        )
    return f"{kept}:\n  {_resume_command(args)}"


def _run_run_command(args: argparse.Namespace) -> int:
    from paretosurf.bench import get_task, run_task, write_report
    from paretosurf.bench.runner import METHODS
    from paretosurf.checkpoint import CheckpointError
    from paretosurf.solvers import InnerSolverError

    if args.resume and args.checkpoint is None:
        raise UsageError("--resume needs --checkpoint")
    if args.overwrite and args.checkpoint is None:
        raise UsageError("--overwrite needs --checkpoint")
    if args.checkpoint_period is not None and args.checkpoint is None:
        raise UsageError(
            "--checkpoint-period sets how often the run is saved in --checkpoint "
            "DIR; it needs --checkpoint"
        )
    task = get_task(args.task)
    _check_solver_options(args, task)
    _check_method_options(args, [args.method])
    _check_executor_options(args)
    task = _with_options(task, args)
    out = Path(
        args.out
        or (
            args.checkpoint / RUN_OUTPUT
            if args.checkpoint is not None
            else Path("run-output") / f"{task.name}-{args.method}"
        )
    )
    _check_output_folder(out, "--out")
    _check_report_folder(out)
    held, saved_rounds = (False, 0) if args.checkpoint is None else _prepare_checkpoint(args, task)
    executor = _executor(args)
    terminal = sys.stderr.isatty()

    def report_round(record: Any) -> None:
        print(
            f"round {record.iteration + 1}: CV {record.cv:.4g}, gap ratio "
            f"{record.gap_ratio:.4g}, {record.seconds:.2f} s; {record.n_solves} solves so "
            "far",
            file=sys.stderr,
            flush=True,
        )

    loop: dict[str, Any] = {
        "executor": executor,
        "checkpoint": args.checkpoint,
        "resume": args.resume,
        "overwrite": args.overwrite,
        "progress": terminal,
        "checkpoint_period": ("auto" if args.checkpoint_period is None else args.checkpoint_period),
    }
    if args.target is not None:
        loop["target"] = args.target
    if not terminal:
        loop["callback"] = report_round
    from paretosurf.driver import run_notes, without_interrupt_notice
    from paretosurf.executors import ExecutorLostError
    from paretosurf.run_folder import CheckpointWriteError, FolderInUseError

    notes = {} if args.checkpoint is None else {RUN_NOTES_KEY: _run_settings(args, task)}
    try:
        with without_interrupt_notice(), run_notes(notes):
            report = run_task(
                task,
                methods=[args.method],
                seeds=[args.seed],
                solver_kind=args.solver,
                n_segments=args.n,
                iterations=args.iterations,
                loop=loop,  # type: ignore[arg-type]
                steps=args.steps,
            )
    except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM during a run with --checkpoint
        from paretosurf.interrupts import Terminated, exit_status

        how = "terminated (SIGTERM)" if isinstance(stop, Terminated) else "interrupted"
        if args.checkpoint is not None:
            rounds = _rounds_kept(args.checkpoint)
            where = (
                f"the run in {args.checkpoint} is saved after round {rounds}"
                if rounds
                else f"the run in {args.checkpoint} stopped before its first checkpoint"
            )
            print(f"{how}; {where}. Resume it with:\n  {_resume_command(args)}", file=sys.stderr)
        else:
            print(f"{how} (no --checkpoint: nothing was saved)", file=sys.stderr)
        return exit_status(stop)
    except (InnerSolverError, CheckpointWriteError, ExecutorLostError) as exc:
        saved = "" if args.checkpoint is None else "\n" + _kept_after_failure(args)
        print(f"paretosurf run: error: {_in_cli_terms(str(exc))}{saved}", file=sys.stderr)
        return 1
    except FolderInUseError as exc:
        raise UsageError(f"--checkpoint {args.checkpoint}: {exc}") from None
    except CheckpointError as exc:
        raise UsageError(_damaged(exc)) from None
    except FileExistsError as exc:
        raise UsageError(_in_cli_terms(str(exc))) from None
    except ValueError as exc:
        if not (held and args.resume):
            raise
        raise UsageError(_in_cli_terms(str(exc))) from None  # the library's resume checks
    result = report.results[args.method][0]
    rounds = len(result.history)
    if METHODS[args.method].slots and rounds != report.iterations:
        if saved_rounds > report.iterations:
            print(
                f"note: {args.checkpoint} already held {saved_rounds} rounds, more than the "
                f"{report.iterations} asked for: nothing was solved, and the results are "
                f"those of its {rounds} rounds",
                file=sys.stderr,
            )
        report = dataclasses.replace(report, iterations=rounds)
    written = write_report(report, out, plots=args.plots, stream=sys.stdout)
    print(_result_lines(result, resumable=args.checkpoint is not None), file=sys.stderr)
    _progress_to_stderr(f"wrote {', '.join(p.name for p in written)} to {Path(out).resolve()}")
    return 0


register(
    Command(
        name="run",
        help="run one method on a benchmark task, on any executor, with checkpoints",
        description=(
            "Run one method (SURF by default) on TASK with the task's settings, the solves on "
            "this process, local worker processes or a Ray cluster. With --checkpoint DIR the run "
            "is saved after every round, or every few rounds when rounds take milliseconds (see "
            "--checkpoint-period), and every solve is logged in DIR/solves.jsonl; a killed or "
            "interrupted run continues with --resume. Shows a progress bar on a terminal and a "
            "line per round otherwise; ends with the run's table and figures."
        ),
        configure=_configure_run,
        run=_run_run_command,
    )
)


# ---------------------------------------------------------------------------- llm
def _configure_llm(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        required=True,
        metavar="FILE",
        help="YAML or TOML file: model, rewards, prompts, solver, protocol, "
        "executor (see paretosurf.llm.config)",
    )
    parser.add_argument(
        "--out",
        type=_folder_path,
        default=None,
        metavar="DIR",
        help="run folder (default: the config's 'out'); run again to resume",
    )
    parser.add_argument(
        "--executor",
        choices=EXECUTORS,
        default=None,
        help="where the slots of a round run: this process, a pool of "
        "--workers local processes, or Ray (default: the config's "
        "[executor] kind, else local)",
    )
    parser.add_argument(
        "--workers",
        type=_int_at_least(1),
        default=None,
        metavar="W",
        help="slots side by side with --executor processes (default: the "
        "config's [executor] workers, else one per --gpus-per-slot GPUs "
        "of this machine, else 2)",
    )
    parser.add_argument(
        "--gpus-per-slot",
        type=_gpu_count,
        default=None,
        metavar="G",
        help="GPUs each slot gets to itself: each worker process sees its own "
        "through CUDA_VISIBLE_DEVICES (processes), or each Ray task "
        "reserves G GPUs (ray; fractions allowed) (default: the config's "
        "[executor] gpus_per_slot, else 0: no GPU of its own)",
    )
    parser.add_argument(
        "--plan", action="store_true", help="print the stages and their training budget, and stop"
    )


def _run_llm_command(args: argparse.Namespace) -> int:
    from paretosurf.llm.config import load_config
    from paretosurf.llm.protocol import format_table, run_protocol

    try:
        config = load_config(args.config)
        protocol = config.build_protocol()
        # checked before anything is trained (and by --plan); no pool is started here
        executor = config.build_executor(
            kind=args.executor, workers=args.workers, gpus_per_slot=args.gpus_per_slot
        )
    except (ValueError, TypeError, ImportError) as exc:
        raise UsageError(str(exc)) from None
    out = args.out or Path(config.out)
    print(
        f"model {config.model}; N = {protocol.n_segments}; slot-epochs: "
        f"{protocol.budget_text()}; executor {executor!r}",
        file=sys.stderr,
    )
    if args.plan:
        return 0
    try:
        config.apply_torch_threads()
        solver = config.build_solver(out / "work")
    except (ValueError, TypeError, FileNotFoundError, ImportError) as exc:
        raise UsageError(f"{args.config}: {exc}") from None
    try:
        report = run_protocol(
            solver,
            out,
            protocol=protocol,
            executor=executor,
            log=_progress_to_stderr,
            progress=sys.stderr.isatty(),
        )
    except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM during a run with a checkpoint
        from paretosurf.interrupts import Terminated, exit_status

        how = "terminated (SIGTERM)" if isinstance(stop, Terminated) else "interrupted"
        print(
            f"{how}; every finished round is saved in {out}. Resume with:\n"
            f"  paretosurf llm --config {args.config} --out {out}",
            file=sys.stderr,
        )
        return exit_status(stop)
    print(format_table(report))
    _plot_llm_training(out)
    return 0


def _plot_llm_training(out: Path) -> None:
    """Save the training curves of every solve of the run (per slot and round) as
    ``training.png`` beside the front; a run without logs gets a note instead."""
    from paretosurf.llm.training_log import plot_training_curves

    try:
        fig = plot_training_curves(out / "work", path=out / "training.png")
    except (FileNotFoundError, ValueError) as exc:
        print(f"no training curves: {exc}", file=sys.stderr)
        return
    import matplotlib.pyplot as plt

    plt.close(fig)
    print(f"training curves: {out / 'training.png'}", file=sys.stderr)


register(
    Command(
        name="llm",
        help="the paper's LLM protocol (Table 2) from a config file: warm start, Uniform-w, "
        "SURF, Soup",
        description=(
            "Run the paper's multi-objective LLM alignment protocol with the policy, rewards and "
            "prompts of --config: a shared w = 0.5 warm start, Uniform-w, SURF from Uniform-w's "
            "epoch-5 adapters (endpoints reused) and Soup, each stage resumable; writes every "
            "adapter, table.md, results.json and front.png into the run folder. Needs the llm "
            "extra (pip install 'paretosurf[llm]')."
        ),
        configure=_configure_llm,
        run=_run_llm_command,
    )
)


# ---------------------------------------------------------------------------- entry point
def build_parser() -> argparse.ArgumentParser:
    """The ``paretosurf`` argument parser, with one subparser per registered command.

    Examples
    --------
    >>> from paretosurf.cli import build_parser
    >>> args = build_parser().parse_args(["demo", "--n", "8", "--no-plots"])
    >>> args.command, args.n, args.iterations, args.plots
    ('demo', 8, None, False)
    >>> args = build_parser().parse_args(["bench", "gear", "--methods", "surf,ols"])
    >>> args.task, args.methods, args.solver
    ('gear', ['surf', 'ols'], 'gradient')
    """
    from paretosurf._version import __version__

    parser = argparse.ArgumentParser(
        prog="paretosurf",
        description="Pareto-optimal solutions spread evenly along the Pareto front (SURF).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS.values():
        child = sub.add_parser(
            command.name, help=command.help, description=command.description or command.help
        )
        command.configure(child)
        child.set_defaults(_run=command.run, _parser=child)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``paretosurf`` command with ``argv`` (default ``sys.argv[1:]``).

    Returns the exit status. Bad arguments, ``--help`` and ``--version`` exit through
    :class:`SystemExit` as :mod:`argparse` does (status 2 for bad arguments, also for a
    :class:`UsageError` raised by a command; 0 otherwise). An :class:`OSError` (say, an
    output folder that cannot be written) is reported on stderr with status 1.
    """
    parser = build_parser()
    args = parser.parse_args(None if argv is None else [str(a) for a in argv])
    try:
        status: int = args._run(args)
    except UsageError as exc:
        args._parser.error(str(exc))
    except OSError as exc:
        print(f"paretosurf {args.command}: error: {exc}", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
