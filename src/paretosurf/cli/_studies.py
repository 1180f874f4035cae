"""What ``paretosurf ask``, ``tell`` and ``status`` share: the study folder argument, and the
library's errors about a study reported as the command line reports them."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from paretosurf._utils.validation import NamesOptions
from paretosurf.cli._common import UsageError
from paretosurf.cli._terms import _error_spelling, _in_cli_terms
from paretosurf.cli._types import _folder_path

__all__: list[str] = []


def _add_study_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir",
        type=_folder_path,
        metavar="DIR",
        help="the study's folder (its run folder)",
    )


def _study_spelling(name: str, value: Any) -> str | None:
    """An option a study's error names, on the command line: ``--failed MESSAGE`` for a failed
    solve, ``--set allow_pickle=true`` to start a study; the others as a run's errors spell
    them (:func:`~paretosurf.cli._terms._error_spelling`).

    Examples
    --------
    >>> from paretosurf.cli._studies import _study_spelling
    >>> _study_spelling("failed", "message"), _study_spelling("overwrite", True)
    ('--failed MESSAGE', '--overwrite')
    """
    if name == "failed":
        return "--failed MESSAGE"
    if name == "allow_pickle":
        return "--set allow_pickle=true"
    return _error_spelling(name, value)


def _message(exc: BaseException) -> str:
    """A study's error in command-line terms, with its notes."""
    text = exc.text(_study_spelling) if isinstance(exc, NamesOptions) else str(exc)
    return text + "".join(f"\n  {note}" for note in getattr(exc, "__notes__", ()))


def _report(command: str, exc: BaseException) -> int:
    """Print a study's error on stderr; the exit status (1)."""
    print(f"paretosurf {command}: error: {_message(exc)}", file=sys.stderr)
    return 1


def _guarded(command: str, body: Callable[[], int]) -> int:
    """Run ``body``, reporting a study's errors: a folder in use, a damaged folder, a failed
    solve (status 1); arguments a study refuses (a usage error, status 2)."""
    from paretosurf.solvers import InnerSolverError
    from paretosurf.storage import CheckpointError, FolderInUseError

    try:
        return body()
    except (FolderInUseError, CheckpointError, InnerSolverError) as exc:
        return _report(command, exc)
    except (ValueError, TypeError) as exc:
        raise UsageError(_in_cli_terms(exc)) from None


def _json_or_text(text: str) -> Any:
    """A ``--set`` value: JSON (``0.5``, ``[0.01, 0.99]``, ``true``), else the text itself
    (``auto``)."""
    import json

    try:
        return json.loads(text)
    except ValueError:
        return text
