"""What every subcommand of ``paretosurf`` shares: the :class:`Command` record a subcommand is,
the :class:`UsageError` it raises for arguments that do not fit together, and the checks of
output folders."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Command", "UsageError"]


class UsageError(ValueError):
    """Arguments that parse but do not fit together; :func:`main` exits with status 2."""


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
