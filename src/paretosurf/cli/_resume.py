"""``paretosurf run --checkpoint DIR``'s run folders: the command-line settings recorded with
the run, the check that ``--resume`` continues it with the same ones, and the command line
that resumes it."""

from __future__ import annotations

import argparse
import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from paretosurf.cli._common import UsageError, _check_output_folder
from paretosurf.cli._options import _damped
from paretosurf.cli._terms import _damaged, _in_cli_terms, _setting_spelling

__all__ = ["RUN_NOTES_KEY", "RUN_OUTPUT", "RUN_SETTINGS_FILE"]

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
    from paretosurf.storage import CheckpointError, RunFolder

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


def _prepare_checkpoint(args: argparse.Namespace, task: Any) -> tuple[bool, int]:
    """Check ``--checkpoint`` before solving: a folder that holds a run needs ``--resume`` or
    ``--overwrite``, and ``--resume`` the settings the run was started with.

    Returns whether the folder held a run and how many rounds it had saved (0 unless
    resumed). Raises :class:`UsageError` for a folder that holds a run without ``--resume``
    or ``--overwrite``, a damaged one, or one started with other settings.
    """
    from paretosurf.storage import CheckpointError, RunFolder

    path: Path = args.checkpoint
    _check_output_folder(path, "--checkpoint")
    folder = RunFolder(path)
    held = folder.holds_run()
    if held and not (args.resume or args.overwrite):
        run = _in_cli_terms(folder.describe(_setting_spelling))
        raise UsageError(
            f"--checkpoint {path} already holds {run}; pass --resume to continue it, "
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


def _rounds_kept(path: Path) -> int:
    """Rounds saved in the run folder ``path`` (0 if none, or if it cannot be read)."""
    from paretosurf.storage import CheckpointError, RunFolder

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
