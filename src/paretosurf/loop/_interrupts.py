"""What an interrupted run says about its run folder: where it is saved and how to resume.

A run with a checkpoint folder that is interrupted (Ctrl-C) prints on stderr the round it is
saved after and that the same call with ``resume=True`` continues it
(:func:`interrupt_notice`, whose ``spell`` writes that option as a front end does); a run
whose executor lost its cluster adds the same to the
:class:`~paretosurf.executors.ExecutorLostError`. A front end that prints its own resume
command (``paretosurf run``, ``paretosurf llm``) turns the notice off with
:func:`without_interrupt_notice`.

SIGTERM, which schedulers (Slurm, Kubernetes, systemd) and ``kill`` send to stop a job, is
handled as Ctrl-C during a run with a checkpoint folder (:func:`sigterm_interrupts`): it
raises :class:`Terminated`, a ``KeyboardInterrupt``, in the run's main thread, so the run
stops the same way: its last checkpoint kept, the notice printed, the exception raised to
the caller. This holds only where SIGTERM still has its default action (ending the process
at once) when the run starts, and only in the main thread: a handler of your own (or
``SIG_IGN``) is left in place and decides alone what SIGTERM does.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

from paretosurf._utils.validation import Spelling, add_note, python_spelling, spell_options
from paretosurf.executors import ExecutorLostError

__all__ = [
    "Terminated",
    "exit_status",
    "interrupt_notice",
    "note_interruption",
    "sigterm_interrupts",
    "without_interrupt_notice",
]


class Terminated(KeyboardInterrupt):
    """The process received SIGTERM during a run with a checkpoint folder.

    A ``KeyboardInterrupt``: code that handles Ctrl-C handles it too. Uncaught, it ends a
    script with a traceback and exit status 1; ``paretosurf run`` exits with status 143
    (128 + SIGTERM), as a shell reports a process that SIGTERM ended.

    Examples
    --------
    >>> from paretosurf.loop._interrupts import Terminated
    >>> isinstance(Terminated(), KeyboardInterrupt)
    True
    """


def exit_status(exc: KeyboardInterrupt) -> int:
    """The exit status of a command stopped by ``exc``: 143 for SIGTERM (:class:`Terminated`),
    130 for Ctrl-C (128 plus the signal's number, as shells report them).

    Examples
    --------
    >>> from paretosurf.loop._interrupts import Terminated, exit_status
    >>> exit_status(Terminated()), exit_status(KeyboardInterrupt())
    (143, 130)
    """
    return 143 if isinstance(exc, Terminated) else 130


@contextlib.contextmanager
def sigterm_interrupts(active: bool = True) -> Iterator[None]:
    """Within this context SIGTERM raises :class:`Terminated` in the main thread, as Ctrl-C
    raises ``KeyboardInterrupt``; the handler in place before is put back afterwards.

    Nothing changes when ``active`` is false, off the main thread (which alone can set
    signal handlers), or where SIGTERM does not have its default action: a handler of your own, or
    ``SIG_IGN``, stays in place and alone decides what SIGTERM does (so a job that handles
    SIGTERM itself, or a framework that does, keeps doing so). A process forked within the
    context (a worker of :class:`~paretosurf.executors.ProcessExecutor`) still ends on
    SIGTERM, as it would have.

    Examples
    --------
    >>> import signal
    >>> from paretosurf.loop._interrupts import sigterm_interrupts
    >>> before = signal.getsignal(signal.SIGTERM)
    >>> with sigterm_interrupts():
    ...     pass
    >>> signal.getsignal(signal.SIGTERM) is before
    True
    """
    if (
        not active
        or not hasattr(signal, "SIGTERM")
        or threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return
    on_sigterm = _OnSigterm(os.getpid())
    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield
    finally:
        if signal.getsignal(signal.SIGTERM) is on_sigterm:  # (not one set meanwhile)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


class _OnSigterm:
    """The SIGTERM handler of :func:`sigterm_interrupts`: raises :class:`Terminated` in the
    process that set it (``owner``)."""

    def __init__(self, owner: int) -> None:
        self.owner = owner

    def __call__(self, signum: int, frame: Any) -> None:
        if os.getpid() != self.owner:  # a process forked meanwhile: ends, as it would have
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        raise Terminated("SIGTERM received")


def _default_sigterm_in_child() -> None:
    """In a process forked during a run (a worker of a process pool), SIGTERM's default
    action back: it ends the worker at once, even inside a long computation (the pool's
    shutdown terminates its workers with it), as it did before the run took SIGTERM."""
    if isinstance(signal.getsignal(signal.SIGTERM), _OnSigterm):
        with contextlib.suppress(ValueError, OSError):
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_default_sigterm_in_child)


#: Whether an interrupted run with a folder tells on stderr how to resume it.
_INTERRUPT_NOTICE: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "paretosurf_interrupt_notice", default=True
)


@contextlib.contextmanager
def without_interrupt_notice() -> Iterator[None]:
    """Within this context an interrupted run (Ctrl-C) does not print how to resume it: for
    front ends that print their own resume command.

    Examples
    --------
    >>> from paretosurf.loop._interrupts import without_interrupt_notice
    >>> with without_interrupt_notice():
    ...     pass
    """
    token = _INTERRUPT_NOTICE.set(False)
    try:
        yield
    finally:
        _INTERRUPT_NOTICE.reset(token)


def _saved(saved_rounds: int) -> str:
    return (
        f"is saved after round {saved_rounds}"
        if saved_rounds
        else "stopped before its first checkpoint"
    )


def interrupt_notice(
    exc: KeyboardInterrupt,
    label: str,
    folder: str,
    saved_rounds: int,
    spell: Spelling = python_spelling,
) -> str:
    """The line that tells how a run of ``label`` in ``folder``, stopped by ``exc`` with
    ``saved_rounds`` rounds in its last checkpoint, can be resumed, with the option that
    resumes it written as ``spell(name, value)`` (default: as a Python call writes it).

    Examples
    --------
    >>> from paretosurf.loop._interrupts import interrupt_notice
    >>> stop = KeyboardInterrupt()
    >>> interrupt_notice(stop, "SURF", "runs/surf", 3).split("; ")  # doctest: +NORMALIZE_WHITESPACE
    ['paretosurf: interrupted', "SURF's run in runs/surf is saved after round 3",
     'run the same call with resume=True to continue it']
    >>> cli = interrupt_notice(stop, "SURF", "runs/surf", 3, spell=lambda name, value: "--" + name)
    >>> cli.split("; ")[-1]
    'run the same call with --resume to continue it'
    """
    how = "terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted"
    return spell_options(
        f"paretosurf: {how}; {label}'s run in {folder} {_saved(saved_rounds)}; "
        "run the same call with {resume} to continue it",
        {"resume": True},
        spell,
    )


def note_interruption(exc: BaseException, label: str, folder: str, saved_rounds: int) -> None:
    """Tell how a run of ``label`` in ``folder``, stopped by ``exc`` with ``saved_rounds``
    rounds in its last checkpoint, can be resumed: on stderr for a ``KeyboardInterrupt``
    (Ctrl-C, or SIGTERM's :class:`Terminated`; unless :func:`without_interrupt_notice` is in
    effect), as :func:`interrupt_notice` spells it for a Python call; as a note of an
    :class:`~paretosurf.executors.ExecutorLostError`; other exceptions are left alone."""
    if isinstance(exc, KeyboardInterrupt) and _INTERRUPT_NOTICE.get():
        sys.stderr.write(f"\n{interrupt_notice(exc, label, folder, saved_rounds)}\n")
    elif isinstance(exc, ExecutorLostError):
        add_note(exc, f"{label}'s run in {folder} {_saved(saved_rounds)}")
