"""The library's messages in command-line terms: the options a Python call passes
(``resume=True``, ``alpha=0.5``) spelled as the command's (``--resume``, ``--alpha 0.5``).

What names options carries them: a finding's remedy (:meth:`~paretosurf.findings.Finding.
remedy_text`), a library error that names them (an :class:`~paretosurf._utils.validation.
OptionError`, a :class:`~paretosurf.storage.CheckpointError`..., each a
:class:`~paretosurf._utils.validation.NamesOptions`: :meth:`~paretosurf._utils.validation.
NamesOptions.text`), a run folder's description
(:meth:`~paretosurf.storage.RunFolder.describe`); each is spelled here from its options,
with no rewriting of its text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from paretosurf._utils.validation import FORCE, NamesOptions, python_spelling

#: How the command line names the settings a run is saved with, where a refusal to resume it
#: names the ones that differ (``alpha (--alpha)``); the budget settings of OLS and Soup are
#: the command's ``--iterations``.
_SETTING_FLAGS = {
    "n_segments": "--n",
    "alpha": "--alpha",
    "report": "--report",
    "seed": "--seed",
    "iterations": "--iterations",
    "max_solves": "--iterations",
    "calls_per_solve": "--iterations",
}


def _error_spelling(name: str, value: Any) -> str | None:
    """An option that a library error names, on the command line: ``--resume`` and
    ``--overwrite``; a saved run's setting (named alone) with its flag, ``alpha (--alpha)``;
    ``None`` for ``resume='force'``, which the command line lacks (an error's hint through it
    is left out, and a message that names it shows it as the Python API writes it); any
    other as the Python API writes it.

    Examples
    --------
    >>> from paretosurf.cli._terms import _error_spelling
    >>> _error_spelling("overwrite", True), _error_spelling("n_segments", None)
    ('--overwrite', 'n_segments (--n)')
    >>> _error_spelling("resume", "force") is None, _error_spelling("lr", None)
    (True, 'lr')
    """
    if name in ("resume", "overwrite") and value is True:
        return f"--{name}"
    if name == "resume" and value == FORCE:
        return None
    flag = _SETTING_FLAGS.get(name)
    if flag is not None and value is None:
        return f"{name} ({flag})"
    return python_spelling(name, value)


def _setting_spelling(name: str, value: Any) -> str:
    """A saved run's setting in the description of its folder
    (:meth:`~paretosurf.storage.RunFolder.describe`): its budget of rounds as the
    command's ``--iterations N``, the others as the method's keywords (``alpha=0.3``)."""
    if name == "iterations" and isinstance(value, int) and not isinstance(value, bool):
        return f"--iterations {value}"
    return f"{name}={value!r}"


def _in_cli_terms(error: BaseException | str) -> str:
    """A library error about a run folder or its settings, in command-line terms.

    An error whose message names options (a
    :class:`~paretosurf._utils.validation.NamesOptions`: an
    :class:`~paretosurf._utils.validation.OptionError`, a
    :class:`~paretosurf.storage.CheckpointError`...) spells them as the command line does
    (:func:`_error_spelling`: ``--resume``, ``--overwrite``), and leaves out its hint through
    ``resume='force'``, which the command line lacks. Any other error, or a message, is shown
    as it is. Results' findings are spelled per front end too (see :func:`_result_lines`).

    Examples
    --------
    >>> from paretosurf._utils.validation import Hint, OptionError
    >>> from paretosurf.cli._terms import _in_cli_terms
    >>> _in_cli_terms(OptionError("use another folder, or {overwrite}", overwrite=True))
    'use another folder, or --overwrite'
    >>> force = Hint(" (or {resume})", {"resume": "force"})
    >>> err = OptionError("start a new run with {overwrite}", force, overwrite=True)
    >>> str(err), _in_cli_terms(err)
    ("start a new run with overwrite=True (or resume='force')", 'start a new run with --overwrite')
    """
    if isinstance(error, NamesOptions):
        return error.text(_error_spelling)
    return str(error)


def _damaged(exc: Exception) -> str:
    """The message of a :class:`~paretosurf.storage.CheckpointError`, in CLI terms, with
    the remedy of a new run where it names none."""
    message = _in_cli_terms(exc)
    if not (isinstance(exc, NamesOptions) and "overwrite" in exc.options):
        message += " (start a new run there with --overwrite, or use another folder)"
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
