"""When a run saves itself: the loop's checkpoint schedule and the saving it does.

A run with a run folder (``checkpoint=DIR``) hands each round's records, its state and its
solve log to a :class:`Checkpointer`, which decides when to write them
(``checkpoint_period``) and writes them, in order, through the run folder
(:mod:`paretosurf.storage`), whose files the codec of :mod:`paretosurf.storage` writes
atomically. The schedule is the loop's business; the files know nothing of it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from numpy.typing import NDArray

from paretosurf.solvers import weight_to_json

if TYPE_CHECKING:  # pragma: no cover - typing only
    from paretosurf.storage import RunFolder

__all__ = [
    "CHECKPOINT_SHARE",
    "DURABLE_ROUND_SECONDS",
    "FIRST_CHECKPOINT_SECONDS",
    "Checkpointer",
]


#: Rounds whose solves take at least this many seconds are flushed to the disk (fsync) when
#: checkpointed; shorter ones are only renamed into place, which a killed process cannot
#: break, and a crash of the whole machine loses at most a few seconds of solving. After a
#: round this long, a disk-state solver's states are also written to their folders as each is
#: solved (after shorter ones, they wait in memory for the checkpoint that keeps them).
DURABLE_ROUND_SECONDS = 0.5

#: ``checkpoint_period="auto"``: checkpoints take about this share of the solve time at most.
#: After a checkpoint that took ``c`` seconds, the next is written once the rounds since it
#: have taken ``c / CHECKPOINT_SHARE`` seconds. Rounds longer than that (any solve of a second
#: or more) are each saved; rounds of a few milliseconds are saved every few rounds, so a
#: killed run loses at most ``c / CHECKPOINT_SHARE`` seconds of solving. (Ray Tune's "auto"
#: experiment checkpoint period is the same idea.)
CHECKPOINT_SHARE = 0.01

#: What the first checkpoint is expected to cost, before one has been measured: a small run's
#: checkpoint takes a few milliseconds, so the first is written once the rounds have taken
#: ``FIRST_CHECKPOINT_SECONDS / CHECKPOINT_SHARE`` (half a second): after the first round of
#: any run whose solves take that long, and not at all before the end of a run of
#: millisecond rounds that would otherwise pay for two checkpoints instead of one.
FIRST_CHECKPOINT_SECONDS = 0.005


class Checkpointer:
    """When a run saves itself, and the saving: the rounds' records since the last
    checkpoint, then the run's state, into its run folder; and the run's solve log, a line
    per attempt appended as the solves return.

    A run makes one from its ``checkpoint_period`` ("auto" or seconds); pass one as
    ``checkpoint_period`` for a schedule of your own (the timings below, or a checkpoint
    every few rounds). Its clock times the rounds and the checkpoints.

    Parameters
    ----------
    period : "auto" or float
        Seconds of solving between checkpoints (0: after every round); ``"auto"``: after
        rounds that took ``1 / share`` times the last checkpoint's cost.
    share : float
        ``"auto"``: the share of the run that checkpoints may take (default
        :data:`CHECKPOINT_SHARE`).
    first_seconds : float
        ``"auto"``: the expected cost of the first checkpoint, before one is measured
        (default :data:`FIRST_CHECKPOINT_SECONDS`).
    durable_seconds : float
        Rounds at least this long are flushed to the disk when saved, and a disk-state
        solver's states are written to their folders as solved after them (default
        :data:`DURABLE_ROUND_SECONDS`).
    every : int, optional
        Save after every ``every``-th round instead (rounds counted from the run's start).
    clock : callable
        Seconds, for timing (default :func:`time.perf_counter`).

    Examples
    --------
    >>> import itertools
    >>> from paretosurf.loop._checkpointing import Checkpointer
    >>> ticks = itertools.count(0.0, 0.25)          # every reading of the clock: 0.25 s later
    >>> saver = Checkpointer(share=1.0, first_seconds=1.0, clock=lambda: next(ticks))
    >>> saver.start(None)
    >>> due = []
    >>> for n in range(1, 7):
    ...     saver.round_started(); saver.round_ended()
    ...     due.append(saver.due(n))
    ...     if due[-1]:
    ...         saver.save([None] * n, lambda: ({}, {}))
    >>> due                   # the first after 1 s of rounds; then every 0.25 s (its cost)
    [False, False, False, True, True, True]
    """

    def __init__(
        self,
        period: float | str = "auto",
        *,
        share: float = CHECKPOINT_SHARE,
        first_seconds: float = FIRST_CHECKPOINT_SECONDS,
        durable_seconds: float = DURABLE_ROUND_SECONDS,
        every: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if period != "auto" and (
            isinstance(period, (bool, str))
            or not (isinstance(period, (int, float)) and math.isfinite(period) and period >= 0)
        ):
            raise ValueError(
                "checkpoint_period must be 'auto' or a number of seconds >= 0 "
                f"(0: save after every round), got {period!r}"
            )
        if every is not None and (
            isinstance(every, bool) or not isinstance(every, int) or every < 1
        ):
            raise ValueError(f"every must be an integer >= 1 or None, got {every!r}")
        #: Seconds of running between checkpoints (``None``: "auto").
        self.period = None if period == "auto" else float(period)
        self.share = float(share)
        self.first_seconds = float(first_seconds)
        self.durable_seconds = float(durable_seconds)
        self.every = every
        self.clock = clock
        self.start(None)

    def start(self, folder: RunFolder | None, saved_rounds: int = 0) -> None:
        """Begin a run saved in ``folder`` (``None``: none; only the solve log's and the
        schedule's bookkeeping then), which holds ``saved_rounds`` rounds."""
        self.folder = folder
        #: Rounds saved by the last checkpoint; the seconds the rounds since it took; the
        #: last round's; what the last checkpoint cost.
        self.saved_rounds = saved_rounds
        self.unsaved_seconds = 0.0
        self.last_round_seconds = 0.0
        self.checkpoint_seconds: float | None = None
        self._round_start = 0.0

    def round_started(self) -> None:
        """A round begins (its time counts towards the next checkpoint)."""
        self._round_start = self.clock()

    def round_ended(self) -> None:
        """The round begun last has ended."""
        self.last_round_seconds = self.clock() - self._round_start
        self.unsaved_seconds += self.last_round_seconds

    @property
    def long_rounds(self) -> bool:
        """Whether the last round took ``durable_seconds`` or more."""
        return self.last_round_seconds >= self.durable_seconds

    def due(self, n_rounds: int) -> bool:
        """Whether the rounds since the last checkpoint have run long enough for the next one
        (``n_rounds``: the rounds run so far)."""
        if self.every is not None:
            return n_rounds % self.every == 0
        if self.period is not None:
            wait = self.period
        elif self.checkpoint_seconds is None:
            wait = self.first_seconds / self.share
        else:
            wait = self.checkpoint_seconds / self.share
        return self.unsaved_seconds >= wait

    def log(
        self, outcomes: Sequence[Any], index: int, call: int, attempt: int, *, probe: bool = False
    ) -> None:
        """Append one solve-log line per attempt of ``outcomes``
        (:class:`~paretosurf.executors.SolveOutcome`) to the run folder's ``solves.jsonl`` at
        once, flushed to the operating system (a process killed afterwards loses none of them;
        the next checkpoint flushes them to the disk): the tries an executor lost to a dying
        worker and ran again (``killed``), then the outcome. ``probe``: the solves of basin
        probes (:mod:`paretosurf.loop`), whose lines say ``"probe": true``. An outcome the
        log holds already (``logged``: a study's replayed batch) is left out."""
        if self.folder is None:
            return
        now = time.time()
        self.folder.append_solves(
            [
                {
                    "round": index,
                    "call": call,
                    "attempt": attempt,
                    "slot": o.slot,
                    "weight": o.weight if type(o.weight) is float else weight_to_json(o.weight),
                    "objectives": None if o.solution is None else o.solution.objectives.tolist(),
                    "seconds": float(o.seconds),
                    "host": o.host,
                    "pid": o.pid,
                    "error": o.error,
                    "killed": o.killed,
                    "time": now,
                    **({"traceback": o.traceback} if o.traceback else {}),
                    **({"probe": True} if probe else {}),
                }
                for outcome in outcomes
                if not outcome.logged
                for o in (*outcome.lost, outcome)
            ]
        )

    def save(
        self,
        records: Sequence[Any],
        state: Callable[[], tuple[dict[str, Any], dict[str, NDArray[Any]]]],
        persist: Callable[[], None] = lambda: None,
        saved: Callable[[], None] = lambda: None,
    ) -> None:
        """Checkpoint the run whose ``records`` (:class:`~paretosurf.IterationRecord`) are
        these: ``persist()`` the states still in memory, flush the solve log (written as the
        solves returned) to the disk when the rounds are long enough to sync, then write the
        records since the last checkpoint, then the state (``state()``: metadata and
        arrays); ``saved()`` follows (pruning what the saved state no longer names). Without
        a run folder only ``saved()`` runs."""
        started = self.clock()
        if self.folder is not None:
            with self.folder.writing("the solver's state folders (states/)"):
                persist()
            if self.unsaved_seconds > 0:
                # fsync only rounds that cost more to redo than to sync
                self.folder.durable = self.unsaved_seconds >= self.durable_seconds
            self.folder.sync_solves()
            self.folder.append_rounds(
                self.saved_rounds, [(r.scalars(), r.arrays()) for r in records[self.saved_rounds :]]
            )
            meta, arrays = state()
            self.folder.save_state(len(records), meta, arrays)
        self.saved_rounds = len(records)
        saved()
        self.unsaved_seconds = 0.0
        self.checkpoint_seconds = self.clock() - started
