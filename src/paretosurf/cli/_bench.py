"""``paretosurf bench TASK``: the benchmark methods over seeds
(:func:`paretosurf.bench.run_task`), or with ``--ablation`` the paper's SURF ablation
(:func:`paretosurf.bench.ablation.run_ablation`). All scoring, tables and figures live in
:mod:`paretosurf.bench`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from paretosurf.cli._common import Command, UsageError, _check_output_folder, _progress_to_stderr
from paretosurf.cli._options import (
    _add_device_option,
    _add_executor_options,
    _add_plots_option,
    _add_report_option,
    _add_steps_option,
    _add_task_argument,
    _check_executor_options,
    _check_method_options,
    _check_solver_options,
    _executor,
    _with_options,
)
from paretosurf.cli._types import (
    _alpha,
    _folder_path,
    _int_at_least,
    _method_name,
    _method_names,
    _name_list,
)

__all__ = ["BENCH_SEEDS", "COMMAND"]

#: Seeds of ``paretosurf bench`` when ``--seeds`` is not given.
BENCH_SEEDS = 8


def _configure_bench(parser: argparse.ArgumentParser) -> None:
    from paretosurf.bench.runner import METHODS
    from paretosurf.bench.tasks import SOLVER_KINDS

    _add_task_argument(parser)
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
    _add_steps_option(parser)
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
    _add_plots_option(parser)
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


#: The ``bench`` subcommand.
COMMAND = Command(
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
