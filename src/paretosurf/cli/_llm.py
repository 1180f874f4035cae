"""``paretosurf llm --config FILE``: the paper's LLM alignment protocol (Table 2) from a
config file (:mod:`paretosurf.llm.config`), each stage resumable; and after a run,
``paretosurf llm assess DIR`` (its adapters assessed again, sample completions:
:mod:`paretosurf.llm.assess`) and ``paretosurf llm export DIR`` (a folder per front point:
:mod:`paretosurf.llm.export`)."""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from paretosurf.cli._common import Command, UsageError, _progress_to_stderr
from paretosurf.cli._options import EXECUTORS
from paretosurf.cli._types import _folder_path, _gpu_count, _int_at_least

__all__ = ["COMMAND"]


def _configure_llm(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
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
    _add_executor_arguments(parser, "the slots of a round", "slots")
    parser.add_argument(
        "--plan", action="store_true", help="print the stages and their training budget, and stop"
    )
    after = parser.add_subparsers(
        dest="llm_command",
        metavar="{assess,export}",
        title="after a run",
        description="paretosurf llm assess|export DIR --help for their options",
    )
    for name, help_text, description, configure, run in (
        (
            "assess",
            "assess a run's saved adapters again and write sample completions",
            "Load every final adapter of the protocol run in DIR (each method and slot) and "
            "estimate its two mean rewards, its KL to the base model and its objectives on "
            "the evaluation prompts, with the solver of the run's config; write "
            "DIR/assess/samples.jsonl (sample completions with their prompts and rewards), "
            "assessment.json and table.md. Resumable: an adapter assessed before (same files, "
            "same settings) is not assessed again.",
            _configure_assess,
            _run_assess_command,
        ),
        (
            "export",
            "a folder per front point: adapter (or merged model), weight, objectives, card",
            "Write a folder per front point (method, slot) of the protocol run in DIR: its "
            "adapter, or with --merged the whole model with the adapter merged into the base "
            "weights, front_point.json (weight, objectives, rewards, base model, run) and a "
            "model card, README.md.",
            _configure_export,
            _run_export_command,
        ),
    ):
        child = after.add_parser(name, help=help_text, description=description)
        configure(child)
        child.set_defaults(_run=run, _parser=child)


#: The loggers whose INFO lines ``paretosurf llm`` shows on stderr: each solve's plan of steps
#: and checkpoints (a resume is a warning, shown anyway).
SHOWN_LOGGERS = ("paretosurf.llm",)


@contextlib.contextmanager
def showing_llm_logs() -> Iterator[None]:
    """While the command runs, show the INFO lines of :data:`SHOWN_LOGGERS` on stderr, as the
    command's own lines, unless the program configured logging itself (the root logger has a
    handler). Worker processes forked meanwhile inherit it."""
    if logging.getLogger().handlers:
        yield
        return
    loggers = [logging.getLogger(name) for name in SHOWN_LOGGERS]
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)


def _run_llm_command(args: argparse.Namespace) -> int:
    from paretosurf.llm.config import load_config
    from paretosurf.llm.protocol import format_table, run_protocol
    from paretosurf.llm.protocol_run import record_run

    if args.config is None:
        raise UsageError(
            "the following arguments are required: --config (or, after a run, one of the "
            "subcommands assess, export)"
        )
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
        solver = config.build_solver(
            out / "work", kind=args.executor, gpus_per_slot=args.gpus_per_slot
        )
    except (ValueError, TypeError, FileNotFoundError, ImportError) as exc:
        raise UsageError(f"{args.config}: {exc}") from None
    from paretosurf.loop import without_interrupt_notice

    record_run(out, config, args.config)  # for paretosurf llm assess|export DIR
    try:
        # the command prints its own resume command, not the library's notice (a Python call's)
        with without_interrupt_notice(), showing_llm_logs():
            report = run_protocol(
                solver,
                out,
                protocol=protocol,
                executor=executor,
                log=_progress_to_stderr,
                progress=sys.stderr.isatty(),
            )
    except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM during a run with a checkpoint
        from paretosurf.loop import Terminated, exit_status

        how = "terminated (SIGTERM)" if isinstance(stop, Terminated) else "interrupted"
        print(
            f"{how}; every finished round is saved in {out}. Resume with:\n"
            f"  paretosurf llm --config {args.config} --out {out}",
            file=sys.stderr,
        )
        return exit_status(stop)
    table = out / "table.md"  # what the run wrote, notes included
    print(table.read_text().rstrip() if table.is_file() else format_table(report))
    return 0


# ---------------------------------------------------------------------------- after a run
def _samples(text: str) -> int | None:
    if text == "all":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be an integer >= 0 or 'all', got {text!r}"
        ) from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0 or 'all', got {value}")
    return value


_samples.__name__ = "samples"


def _methods(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",")]
    if not text.strip() or not all(names) or len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(
            f"must be a comma-separated list of distinct methods (Uniform-w, SURF, Soup), "
            f"got {text!r}"
        )
    return names


_methods.__name__ = "methods"


def _add_run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", type=_folder_path, metavar="DIR", help="the protocol run folder")
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        metavar="FILE",
        help="the config the run was made with (default: the one it recorded in DIR/run.json)",
    )
    parser.add_argument(
        "--methods",
        type=_methods,
        default=None,
        metavar="M[,M]",
        help="only these methods (default: all of the run's: Uniform-w, SURF, Soup)",
    )


def _add_executor_arguments(parser: argparse.ArgumentParser, what: str, jobs: str) -> None:
    """``--executor``, ``--workers`` and ``--gpus-per-slot``: where ``what`` run."""
    parser.add_argument(
        "--executor",
        choices=EXECUTORS,
        default=None,
        help=f"where {what} run: this process, a pool of --workers local processes, or Ray "
        "(default: the config's [executor] kind, else local)",
    )
    parser.add_argument(
        "--workers",
        type=_int_at_least(1),
        default=None,
        metavar="W",
        help=f"{jobs} side by side with --executor processes (default: the "
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


def _configure_assess(parser: argparse.ArgumentParser) -> None:
    _add_run_arguments(parser)
    _add_executor_arguments(parser, "the adapters' assessments", "assessments")
    parser.add_argument(
        "--samples",
        type=_samples,
        default=8,
        metavar="N",
        help="sample completions per adapter in samples.jsonl, or 'all' (default 8; the "
        "records in DIR/assess/points keep every one)",
    )
    parser.add_argument(
        "--force", action="store_true", help="assess again the adapters assessed before"
    )


def _configure_export(parser: argparse.ArgumentParser) -> None:
    _add_run_arguments(parser)
    parser.add_argument(
        "--out",
        type=_folder_path,
        default=None,
        metavar="OUT",
        help="where the points' folders go (default: DIR/export)",
    )
    parser.add_argument(
        "--merged",
        action="store_true",
        help="write whole models, each adapter merged into the base weights (loads the base "
        "model on the CPU), instead of the adapters",
    )
    parser.add_argument(
        "--dtype",
        choices=("float32", "bfloat16", "float16"),
        default=None,
        help="dtype of the merged models (default: the config's solver dtype, else float32)",
    )


def _open_run(args: argparse.Namespace) -> tuple[Any, Any]:
    """The run folder and its config (``--config``, else the one the run recorded; for
    ``export``, ``None`` where neither exists: ``assess`` needs one)."""
    from paretosurf.llm.protocol_run import NotAProtocolRun, ProtocolRun

    try:
        run = ProtocolRun.open(args.dir)
        run.points(args.methods)  # the methods checked before anything is loaded
        config = (
            run.config(args.config)
            if args.config is not None or run.record() is not None or args.llm_command == "assess"
            else None
        )
    except (NotAProtocolRun, ValueError, TypeError, OSError) as exc:
        raise UsageError(str(exc)) from None
    return run, config


def _run_assess_command(args: argparse.Namespace) -> int:
    from paretosurf.llm.assess import assess_run

    run, config = _open_run(args)
    source = args.config or run.folder / "run.json"
    try:
        executor = config.build_executor(
            kind=args.executor, workers=args.workers, gpus_per_slot=args.gpus_per_slot
        )
        config.apply_torch_threads()
        solver = config.build_solver(run.folder / "work")
    except (ValueError, TypeError, FileNotFoundError, ImportError) as exc:
        raise UsageError(f"{source}: {exc}") from None
    from paretosurf.executors import LocalExecutor

    try:
        assessment = assess_run(
            solver,
            run,
            methods=args.methods,
            samples=args.samples,
            force=args.force,
            log=_progress_to_stderr,
            # a local executor: one after another in this process, as without one
            executor=None if isinstance(executor, LocalExecutor) else executor,
        )
    except KeyboardInterrupt:
        print(
            f"interrupted; the adapters assessed so far are kept in {run.folder / 'assess'}. "
            f"Resume with:\n  paretosurf llm assess {run.folder}",
            file=sys.stderr,
        )
        return 130
    print(assessment.table)
    print(
        f"assessed {assessment.assessed} adapter(s), {len(assessment.records)} in all; "
        f"samples: {assessment.folder / 'samples.jsonl'}",
        file=sys.stderr,
    )
    return 0


def _run_export_command(args: argparse.Namespace) -> int:
    from paretosurf.llm.export import export_run

    run, config = _open_run(args)
    try:
        folders = export_run(
            run,
            args.out,
            merged=args.merged,
            methods=args.methods,
            config=config,
            dtype=args.dtype,
            log=_progress_to_stderr,
        )
    except (ValueError, FileExistsError) as exc:
        raise UsageError(str(exc)) from None
    where = folders[0].parent if folders else args.out
    print(f"exported {len(folders)} point(s) to {where}", file=sys.stderr)
    for folder in folders:
        print(folder)
    return 0


#: The ``llm`` subcommand.
COMMAND = Command(
    name="llm",
    help="the paper's LLM protocol (Table 2) from a config file: warm start, Uniform-w, SURF, Soup",
    description=(
        "Run the paper's multi-objective LLM alignment protocol with the policy, rewards and "
        "prompts of --config: a shared w = 0.5 warm start, Uniform-w, SURF from Uniform-w's "
        "epoch-5 adapters (endpoints reused) and Soup, each stage resumable; writes every "
        "adapter, table.md, results.json and front.png into the run folder. After a run, "
        "'paretosurf llm assess DIR' assesses its adapters again and writes sample "
        "completions, and 'paretosurf llm export DIR' writes a folder per front point. Needs "
        "the llm extra (pip install 'paretosurf[llm]')."
    ),
    configure=_configure_llm,
    run=_run_llm_command,
)
