"""What an interrupted run says about its run folder: where it is saved and how to resume.

A run with a checkpoint folder that is interrupted (Ctrl-C) prints on stderr the round it is
saved after and that the same call with ``resume=True`` continues it; a run whose executor
lost its cluster adds the same to the :class:`~paretosurf.executors.ExecutorLostError`. A
front end that prints its own resume command (``paretosurf run``) turns the notice off with
:func:`without_interrupt_notice`.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
from collections.abc import Iterator

from paretosurf.executors import ExecutorLostError

__all__ = ["note_interruption", "without_interrupt_notice"]

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
    >>> from paretosurf.interrupts import without_interrupt_notice
    >>> with without_interrupt_notice():
    ...     pass
    """
    token = _INTERRUPT_NOTICE.set(False)
    try:
        yield
    finally:
        _INTERRUPT_NOTICE.reset(token)


def note_interruption(exc: BaseException, label: str, folder: str, saved_rounds: int) -> None:
    """Tell how a run of ``label`` in ``folder``, stopped by ``exc`` with ``saved_rounds``
    rounds in its last checkpoint, can be resumed: on stderr for a ``KeyboardInterrupt``
    (unless :func:`without_interrupt_notice` is in effect), as a note of an
    :class:`~paretosurf.executors.ExecutorLostError`; other exceptions are left alone."""
    saved = (
        f"is saved after round {saved_rounds}"
        if saved_rounds
        else "stopped before its first checkpoint"
    )
    if isinstance(exc, KeyboardInterrupt) and _INTERRUPT_NOTICE.get():
        sys.stderr.write(
            f"\nparetosurf: interrupted; {label}'s run in {folder} {saved}; "
            "run the same call with resume=True to continue it\n"
        )
    elif isinstance(exc, ExecutorLostError):
        exc.add_note(f"{label}'s run in {folder} {saved}")
