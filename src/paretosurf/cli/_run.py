"""``paretosurf run TASK``: one method on a benchmark task, its solves on this process, local
worker processes or a Ray cluster, with ``--checkpoint DIR`` saved after every round and
continued with ``--resume``."""

from __future__ import annotations

import argparse
import dataclasses
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
from paretosurf.cli._resume import (
    RUN_NOTES_KEY,
    RUN_OUTPUT,
    _kept_after_failure,
    _prepare_checkpoint,
    _resume_command,
    _rounds_kept,
    _run_settings,
)
from paretosurf.cli._terms import _damaged, _in_cli_terms, _result_lines
from paretosurf.cli._types import (
    _alpha,
    _checkpoint_period,
    _folder_path,
    _int_at_least,
    _method_name,
    _method_names,
    _ratio_above_one,
)

__all__ = ["COMMAND"]


def _configure_run(parser: argparse.ArgumentParser) -> None:
    from paretosurf.bench.tasks import SOLVER_KINDS

    _add_task_argument(parser)
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
    _add_steps_option(parser)
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
    _add_plots_option(parser)


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


def _run_run_command(args: argparse.Namespace) -> int:
    from paretosurf.bench import get_task, run_task, write_report
    from paretosurf.bench.runner import METHODS
    from paretosurf.solvers import InnerSolverError
    from paretosurf.storage import CheckpointError

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
    from paretosurf.executors import ExecutorLostError
    from paretosurf.loop import run_notes, without_interrupt_notice
    from paretosurf.storage import CheckpointWriteError, FolderInUseError

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
        from paretosurf.loop import Terminated, exit_status

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
        print(f"paretosurf run: error: {_in_cli_terms(exc)}{saved}", file=sys.stderr)
        return 1
    except FolderInUseError as exc:
        raise UsageError(f"--checkpoint {args.checkpoint}: {exc}") from None
    except CheckpointError as exc:
        raise UsageError(_damaged(exc)) from None
    except FileExistsError as exc:
        raise UsageError(_in_cli_terms(exc)) from None
    except ValueError as exc:
        if not (held and args.resume):
            raise
        raise UsageError(_in_cli_terms(exc)) from None  # the library's resume checks
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


#: The ``run`` subcommand.
COMMAND = Command(
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
