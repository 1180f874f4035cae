"""``paretosurf demo``: SURF, Uniform-w and Random-w with the exact inner solver on a few
benchmark tasks (:data:`DEMO_TASKS`), through the benchmark runner; per task it writes what
``paretosurf bench`` writes, then a SURF vs Uniform-w summary."""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from paretosurf.cli._common import Command
from paretosurf.cli._types import _alpha, _folder_path, _int_at_least, _name_list, _task_names

if TYPE_CHECKING:
    from paretosurf.bench.runner import TaskReport

__all__ = ["COMMAND", "DEMO_METHODS", "DEMO_TASKS", "demo_summary", "run_demo"]

#: Tasks of ``paretosurf demo``, in order (names of :data:`paretosurf.bench.TASKS`).
DEMO_TASKS: tuple[str, ...] = ("dst", "gear", "bandit")

#: Methods of ``paretosurf demo`` (names of :data:`paretosurf.bench.METHODS`).
DEMO_METHODS: tuple[str, ...] = ("surf", "uniform", "random")


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
        from paretosurf._utils.validation import check_alpha

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


#: The ``demo`` subcommand.
COMMAND = Command(
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
