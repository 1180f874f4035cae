"""``paretosurf llm --config FILE``: the paper's LLM alignment protocol (Table 2) from a
config file (:mod:`paretosurf.llm.config`), each stage resumable."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from paretosurf.cli._common import Command, UsageError, _progress_to_stderr
from paretosurf.cli._options import EXECUTORS
from paretosurf.cli._types import _folder_path, _gpu_count, _int_at_least

__all__ = ["COMMAND"]


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
    from paretosurf.loop import without_interrupt_notice

    try:
        # the command prints its own resume command, not the library's notice (a Python call's)
        with without_interrupt_notice():
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


#: The ``llm`` subcommand.
COMMAND = Command(
    name="llm",
    help="the paper's LLM protocol (Table 2) from a config file: warm start, Uniform-w, SURF, Soup",
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
