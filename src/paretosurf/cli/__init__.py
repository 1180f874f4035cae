"""The ``paretosurf`` command.

Subcommands live in a registry (:data:`COMMANDS`): each is a :class:`Command` with a name, a
one-line help, a function that adds its arguments to an :mod:`argparse` subparser and a function
that runs it and returns the exit status. A new subcommand is a module that defines its
:class:`Command` and one :func:`register` call; :func:`main` builds the parser from the
registry.

``paretosurf demo`` runs SURF, Uniform-w and Random-w with the exact inner solver on a few
benchmark tasks (:data:`DEMO_TASKS`) through the benchmark runner and writes, per task, what
``paretosurf bench`` writes. ``paretosurf bench TASK`` runs the benchmark methods over seeds
(:func:`paretosurf.bench.run_task`), and ``paretosurf bench TASK --ablation`` runs the paper's
SURF ablation (:func:`paretosurf.bench.ablation.run_ablation`). All scoring, tables and figures
live in :mod:`paretosurf.bench`.

One module per subcommand (``_demo``, ``_bench``, ``_run``, ``_llm``, and ``_ask``, ``_tell``,
``_status``, which drive a :class:`~paretosurf.Study` from a shell), over the options and
checks they share (``_types``: the options' types; ``_options``: the options of ``bench`` and
``run``; ``_common``; ``_resume``: ``run``'s run folders; ``_studies``: a study's folder and
errors) and the spelling of the library's messages in command-line terms (``_terms``: from
the options each error names, with no rewriting of text).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from paretosurf.cli import _ask, _bench, _demo, _llm, _run, _status, _tell
from paretosurf.cli._bench import BENCH_SEEDS as BENCH_SEEDS
from paretosurf.cli._common import Command, UsageError
from paretosurf.cli._demo import DEMO_METHODS, DEMO_TASKS, demo_summary, run_demo
from paretosurf.cli._options import DEFAULT_WORKERS as DEFAULT_WORKERS
from paretosurf.cli._options import EXECUTORS as EXECUTORS
from paretosurf.cli._options import _with_options as _with_options
from paretosurf.cli._resume import RUN_NOTES_KEY as RUN_NOTES_KEY
from paretosurf.cli._resume import RUN_OUTPUT as RUN_OUTPUT
from paretosurf.cli._resume import RUN_SETTINGS_FILE
from paretosurf.cli._terms import _in_cli_terms as _in_cli_terms
from paretosurf.cli._terms import _result_lines as _result_lines

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


register(_demo.COMMAND)
register(_bench.COMMAND)
register(_run.COMMAND)
register(_llm.COMMAND)
register(_ask.COMMAND)
register(_tell.COMMAND)
register(_status.COMMAND)


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
