"""How a run driven by ask and tell reads its solves: from the results told into its folder.

A :class:`~paretosurf.jobs.Study` runs the ordinary loop (:func:`paretosurf.loop.run`,
through the method's entry function) on its run folder, resumed from the folder's last
checkpoint at each ask, with two stand-ins:

- :class:`ToldExecutor`, the run's executor, answers each round's solve tasks (and those of
  retries, repeated calls and basin probes, which reach the executor the same way) from the
  results told for them; and
- :class:`ToldResults`, the run's solver, answers the solves the loop makes before the first
  round (the approach to the front's ends, :func:`~paretosurf.findings.find_ends`, which
  calls the solver itself) the same way, one at a time, as each depends on the last.

Where a batch of tasks is not all told, its tasks are written to the folder (``asked.json``)
and :class:`Asked` stops the run, before anything of the round is saved: the run keeps its
last checkpoint, and the next ask resumes from it and replays the told results. The run's
decisions are the same as if the solves had run in it, so a run driven by ask and tell and
one driven by :func:`paretosurf.surf` with the same solver give the same result.

Each batch is keyed by the phase (``"round"``, or ``"ends"`` before round 0), the round and
its number among the batches the round asked (``ask``: 0 for the round's solves, then one
for each retry, repeated call or probe), so that a replay finds its told results again.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from paretosurf.executors import BaseExecutor, OnDone, SolveOutcome, SolveTask
from paretosurf.jobs._files import (
    as_json_value,
    batch_folder,
    read_tell,
    tell_path,
    write_asked,
)
from paretosurf.result import IterationRecord
from paretosurf.solvers import TOLD_SOLVER, InnerSolverError, Solution, Weight, format_weight
from paretosurf.storage import CheckpointError, RunFolder, decode_states, encode_states

__all__ = ["Answers", "Asked", "AskedTask", "ToldExecutor", "ToldResults"]

#: The error a failed solve that was told as failed reports (``"SolveFailed: message"``).
FAILED = "SolveFailed"
#: The file, in a batch's folder of told results, that says the run logged the batch's
#: attempts in its solve log (``solves.jsonl``): a later ask's replay of it is not logged.
LOGGED = ".logged"


@dataclass(frozen=True, eq=False)
class AskedTask:
    """One solve a run driven by ask and tell waits for (:meth:`paretosurf.Study.ask`).

    Attributes
    ----------
    slot : int
        The slot to tell its result for (:meth:`paretosurf.Study.tell`).
    weight : float or ndarray
        The weight to solve at: ``w`` in [0, 1], the weight on objective 1 (two objectives),
        or a weight vector of shape (M,) on the simplex.
    state : object
        The warm start: the state told with the slot's last result (a path, a JSON value,
        arrays...), ``None`` for a cold start.
    round : int or None
        The round the solve is for; ``None`` for a solve of the front's ends, before round 0.
    ask : int
        Which of the round's batches it belongs to: 0 for the round's solves, then one for
        each retry of a failed solve, repeated call or basin probe.
    phase : {"round", "ends"}
        ``"ends"``: a solve of the approach to the front's ends (``weight_bounds``), made
        before round 0, one at a time.

    Examples
    --------
    >>> from paretosurf.jobs import AskedTask
    >>> task = AskedTask(slot=3, weight=0.25, state="ckpt/slot-3", round=2, ask=0)
    >>> task.to_json()
    {'phase': 'round', 'round': 2, 'ask': 0, 'slot': 3, 'weight': 0.25, 'state': 'ckpt/slot-3'}
    """

    slot: int
    weight: Weight
    state: Any = None
    round: int | None = 0
    ask: int = 0
    phase: str = "round"

    @property
    def n_objectives(self) -> int:
        """The number of objectives its result has (the weight vector's length; 2 for a
        weight ``w``)."""
        return int(np.size(self.weight)) if np.ndim(self.weight) else 2

    def to_json(self) -> dict[str, Any]:
        """The task as JSON values (what ``paretosurf ask`` prints); a state that is not a
        JSON value (an object of Python code) is shown as its ``repr``."""
        try:
            state = as_json_value(self.state)
        except TypeError:
            state = repr(self.state)
        return {
            "phase": self.phase,
            "round": self.round,
            "ask": self.ask,
            "slot": self.slot,
            "weight": as_json_value(self.weight),
            "state": state,
        }

    def __repr__(self) -> str:
        where = "the front's ends" if self.phase == "ends" else f"round {self.round}"
        return (
            f"AskedTask(slot={self.slot}, weight={format_weight(self.weight)}, "
            f"state={self.state!r}, {where}, ask {self.ask})"
        )


class Asked(BaseException):
    """Stops a run driven by ask and tell where a batch of its solves is not all told; holds
    the tasks still waiting. A ``BaseException``: the loop's handlers of failed solves (an
    approach to the front's ends treats a raising solve as the end's limit) let it through.
    """

    def __init__(self, tasks: Sequence[AskedTask]) -> None:
        super().__init__(f"{len(tasks)} task(s) wait for their results")
        self.tasks = list(tasks)


def _where(phase: str, round: int | None, ask: int) -> str:
    """A batch in words: ``"round 3"``, ``"round 3 (ask 1)"``, ``"the front's ends (ask 2)"``."""
    if phase == "ends":
        return f"the front's ends (ask {ask})"
    return f"round {round}" if ask == 0 else f"round {round} (ask {ask})"


class Answers:
    """The results told into a study's folder, as one ask's run reads them.

    Parameters
    ----------
    root : Path
        The study's run folder.
    study_id : callable
        Returns the study's id (recording the study on first use): the told results must
        carry it.
    allow_pickle : bool
        Whether states that only pickle could store are read (the run's ``allow_pickle``).
    """

    def __init__(self, root: Path, study_id: Callable[[], str], *, allow_pickle: bool) -> None:
        self.root = root
        self._study_id = study_id
        self.study: str | None = None
        self.allow_pickle = allow_pickle
        #: The round the run solves (``None``: the first round this ask reaches, read from the
        #: folder), the batch of it it is at, and the solves of the front's ends so far.
        self.round: int | None = None
        self.ask = 0
        self.ends_ask = 0
        #: The folders of the batches this ask returned whole: the run logs their attempts
        #: as soon as it has them, so the next batch asked marks them logged
        #: (:data:`LOGGED`), and a later ask's replay of them is not logged again.
        self._returned: list[Path] = []

    def next_round(self, record: IterationRecord) -> None:
        """The run's callback: round ``record.iteration`` is done, the next one begins."""
        self.round = int(record.iteration) + 1
        self.ask = 0

    def solve_round(self, tasks: Sequence[SolveTask]) -> list[SolveOutcome]:
        """The told outcomes of the run's next batch of round tasks (raises :class:`Asked`
        where some are not told)."""
        if self.round is None:
            # the run resumed from the folder's newest checkpoint, which it holds: its
            # first round is the one after the rounds that checkpoint saved
            self.round = RunFolder(self.root).n_rounds()
        outcomes = self.answer("round", self.round, self.ask, tasks)
        self.ask += 1
        return outcomes

    def solve_end(self, weight: float, state: Any) -> Solution:
        """The told solution of the next solve of the front's ends (slot 0 near ``w = 0``,
        1 near ``w = 1``); a solve told as failed raises :class:`InnerSolverError`."""
        slot = 0 if float(weight) < 0.5 else 1
        (outcome,) = self.answer("ends", None, self.ends_ask, [SolveTask(slot, weight, state)])
        self.ends_ask += 1
        if outcome.solution is None:
            raise InnerSolverError(
                f"the solve of the front's end at weight {format_weight(weight)} failed: "
                f"{outcome.error}",
                slot=slot,
                weight=weight,
            )
        return outcome.solution

    def answer(
        self, phase: str, round: int | None, ask: int, tasks: Sequence[SolveTask]
    ) -> list[SolveOutcome]:
        """The told outcome of each of ``tasks``; where some are not told, the batch is
        written to the folder and :class:`Asked` raised with the tasks still waiting."""
        if self.study is None:
            self.study = self._study_id()
        for folder in self._returned:  # the run has logged them since they were returned
            (folder / LOGGED).touch()
        self._returned.clear()
        slots = [t.slot for t in tasks]
        if len(set(slots)) != len(slots):
            raise RuntimeError(  # pragma: no cover - the loop asks each slot once per batch
                f"{_where(phase, round, ask)} asks slots {slots}, some twice; a study keys "
                "each told result by its slot"
            )
        found: list[SolveOutcome | None] = []
        for task in tasks:
            path = tell_path(self.root, phase, round, ask, task.slot)
            told = read_tell(path)
            found.append(None if told is None else self.outcome(task, *told, path=path))
        if any(o is None for o in found):
            self.write_asked(phase, round, ask, tasks, [o is not None for o in found])
            raise Asked(
                [
                    AskedTask(t.slot, t.weight, t.state, round, ask, phase)
                    for t, o in zip(tasks, found, strict=True)
                    if o is None
                ]
            )
        folder = batch_folder(self.root, phase, round, ask)
        if (folder / LOGGED).exists():  # returned by an earlier ask, which logged it
            return [dataclasses.replace(o, logged=True) for o in found if o is not None]
        self._returned.append(folder)
        return [o for o in found if o is not None]

    def outcome(
        self, task: SolveTask, record: Mapping[str, Any], arrays: Mapping[str, Any], *, path: Path
    ) -> SolveOutcome:
        """The outcome of ``task`` told in ``record`` (read from ``path``)."""
        if record.get("study") != self.study:
            raise CheckpointError(
                f"{path} was told for another study (id {record.get('study')}; this folder's "
                f"is {self.study}): it was copied in; move it away"
            )
        asked = as_json_value(task.weight)
        if record.get("weight") != asked:
            raise CheckpointError(
                f"{path} holds a result told for slot {task.slot} at weight "
                f"{record.get('weight')!r}, but the run asks weight {asked!r} there: the told "
                "results do not belong to this run (was the folder's run replaced?); move "
                f"{path.parent} away to be asked again"
            )
        seconds = record.get("seconds")
        common: dict[str, Any] = {
            "seconds": float(seconds) if isinstance(seconds, (int, float)) else 0.0,
            "host": str(record.get("host", "")),
            "pid": int(record.get("pid", 0)),
        }
        if record.get("failed") is not None:
            error = f"{FAILED}: {record['failed']}"
            return SolveOutcome(task.slot, task.weight, None, error, **common)
        state = decode_states(
            {"entries": {"state": record["state"]}},
            arrays,
            root=self.root,
            allow_pickle=self.allow_pickle,
            where=str(path),
        )["state"]
        solution = Solution(record["objectives"], state, dict(record.get("info") or {}))
        return SolveOutcome(task.slot, task.weight, solution, **common)

    def write_asked(
        self,
        phase: str,
        round: int | None,
        ask: int,
        tasks: Sequence[SolveTask],
        told: Sequence[bool],
    ) -> None:
        """Record the batch ``tasks`` as the one asked, with their warm starts."""
        meta, arrays = encode_states(
            {str(i): t.state for i, t in enumerate(tasks)}, prefix="start", root=self.root
        )
        write_asked(
            self.root,
            {
                "study": self.study,
                "phase": phase,
                "round": round,
                "ask": ask,
                "allow_pickle": self.allow_pickle,
                "tasks": [
                    {"slot": t.slot, "weight": as_json_value(t.weight), "told": bool(k)}
                    for t, k in zip(tasks, told, strict=True)
                ],
                "states": meta,
            },
            arrays,
        )


class ToldExecutor(BaseExecutor):
    """The executor of a run driven by ask and tell: each task's outcome is the result told
    for it (:class:`Answers`); a batch not all told stops the run (:class:`Asked`).

    Its solves run wherever the user runs them: ``solves_in="cluster"``.
    """

    solves_in = "cluster"

    def __init__(self, answers: Answers) -> None:
        self.answers = answers

    def solve(
        self, solver: Any, tasks: Sequence[SolveTask], on_done: OnDone | None = None
    ) -> list[SolveOutcome]:
        """The told outcomes of ``tasks``, in order."""
        outcomes = self.answers.solve_round(tasks)
        if on_done is not None:
            for outcome in outcomes:
                on_done(outcome)
        return outcomes

    def __repr__(self) -> str:
        return "ToldExecutor()"


class ToldResults:
    """The solver of a run driven by ask and tell: it computes nothing. The solves before
    the first round (the approach to the front's ends) are answered from the told results
    (:meth:`Answers.solve_end`); the rounds' solves never reach it (:class:`ToldExecutor`).

    It declares what the study was told the user's solver declares (``declared``: its
    ``scalarization``, its ``probe_start``), so that the run decides as it would with that
    solver. A run folder records it as :data:`~paretosurf.solvers.TOLD_SOLVER`, which any
    solver may continue (:func:`~paretosurf.solvers.check_same_solver`).
    """

    def __init__(self, answers: Answers, declared: Mapping[str, Any] | None = None) -> None:
        self._answers = answers
        for name, value in (declared or {}).items():
            setattr(self, name, value)

    def solve(self, weight: float, state: Any) -> Solution:
        """The told result of the next solve of the front's ends."""
        w = float(weight)
        if not math.isfinite(w):  # pragma: no cover - the loop asks finite weights
            raise ValueError(f"weight must be finite, got {weight!r}")
        return self._answers.solve_end(w, state)

    def __repr__(self) -> str:
        return "ToldResults()"


# the name the run folder records (solver_name: module:qualname), which any solver continues
ToldResults.__module__, ToldResults.__qualname__ = TOLD_SOLVER.split(":")
