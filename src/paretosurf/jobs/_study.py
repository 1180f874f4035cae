"""``Study``: a run of any method driven from outside, by asking for its solves and telling
their results, durably, through its run folder.

A study is a run folder (``checkpoint=DIR``) and the method's arguments. :meth:`Study.ask`
resumes the run from the folder with the told results as its solves
(:mod:`paretosurf.jobs`), and returns the solves the run waits for;
:meth:`Study.tell` writes one result into the folder, at once, as a file of its own; once a
round's results are all told, the next ask takes the run on to the next round. The loop is
the one every method runs in (:func:`paretosurf.loop.run`), through the method's own entry
function: what a round proposes, its retries, budget, records, checkpoints and findings are
those of :func:`paretosurf.surf`, and :meth:`Study.result` is its :class:`~paretosurf.Result`.
"""

from __future__ import annotations

import inspect
import json
import math
import numbers
import operator
import socket
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from paretosurf._utils.validation import NamesOptions, add_note
from paretosurf.adapters import Scalarization
from paretosurf.jobs._answers import Answers, Asked, AskedTask, ToldExecutor, ToldResults
from paretosurf.jobs._files import (
    as_json_value,
    read_asked,
    read_asked_states,
    read_study,
    read_tell,
    round_folder,
    tell_path,
    write_asked,
    write_study,
    write_tell,
)
from paretosurf.loop import LOOP_OPTIONS, Checkpointer
from paretosurf.methods import MethodInfo, get_method
from paretosurf.result import Result
from paretosurf.solvers import InnerSolverError, Solution
from paretosurf.storage import RunFolder, decode_states, encode_states

__all__ = ["Study", "StudyStatus", "TellError"]

#: The loop options a study sets itself, and why.
OWN_OPTIONS = {
    "executor": "its solves are told, not run by an executor",
    "checkpoint": "its folder is the run folder",
    "resume": "each ask continues the run in its folder",
    "overwrite": "start a new study in another folder",
    "callback": "the run goes on only inside ask()",
    "checkpoint_period": "it saves the run after every round",
    "progress": "its rounds go on one ask at a time",
    "tchebycheff_solver": "UMOD would call that solver in this process; a study's solves are told",
}
#: Options that may be Python objects (functions): kept in memory, not in the study's folder,
#: so they are given again each time the study is opened to ask.
LIVE_OPTIONS = ("evaluate", "interpolate", "interpolator", "normalize", "probe_start")


class TellError(NamesOptions, ValueError):
    """A told result the study refuses: for a slot that was not asked, or told already, or
    with the wrong number of objectives, or non-finite ones. Nothing is written.

    Its message may name options as ``{name}`` fields (the ``{failed}`` of a failed solve),
    which ``str(error)`` spells as a Python call writes them and ``error.text(spell)`` as a
    front end does (:class:`~paretosurf._utils.validation.NamesOptions`).

    Examples
    --------
    >>> from paretosurf.jobs import TellError
    >>> err = TellError("tell a solve that failed with {failed}", failed="message")
    >>> str(err)
    "tell a solve that failed with failed='message'"
    >>> err.text(lambda name, value: "--failed MESSAGE")
    'tell a solve that failed with --failed MESSAGE'
    """

    def __init__(self, template: str, /, **options: Any) -> None:
        super().__init__(self._name_options(template, options))


def _plain(value: Any) -> Any:
    """``value`` as JSON stores it (lists for tuples and arrays, plain numbers), or raise
    :class:`TypeError`."""
    return json.loads(json.dumps(as_json_value(value), allow_nan=True))


def _scalarization_json(value: Any) -> dict[str, Any] | None:
    """The declared scalarization as JSON: a :class:`~paretosurf.adapters.Scalarization`,
    its kind's name, or such a dict."""
    if value is None:
        return None
    if isinstance(value, str):
        value = Scalarization(value)
    if isinstance(value, Mapping):
        value = Scalarization(**dict(value))
    if not isinstance(value, Scalarization):
        raise TypeError(
            "scalarization must be a paretosurf.adapters.Scalarization, its kind "
            f"('linear', 'tchebycheff', ...) or None, got {type(value).__name__}"
        )
    return {
        "kind": value.kind,
        "ideal": None if value.ideal is None else as_json_value(value.ideal),
        "rho": float(value.rho),
        "floor": float(value.floor),
        "scales": None if value.scales is None else as_json_value(value.scales),
    }


@dataclass(frozen=True)
class StudyStatus:
    """Where a study stands (:meth:`Study.status`), read from its folder.

    Attributes
    ----------
    path : Path
        The study's folder.
    method : str
        The method's label (``"SURF"``).
    finished : bool
        Whether the run has finished (as its last ask found).
    rounds : int
        The rounds the run folder has saved.
    phase : str or None
        What is asked: ``"round"``, ``"ends"`` (the front's ends, before round 0),
        ``"finished"``, or ``None`` (nothing yet).
    round, ask : int or None
        The round asked and its batch (``ask``: 0 for the round's solves, then one per retry,
        repeated call or probe).
    told, waiting : tuple of int
        The slots of the batch asked whose results are told, and those still waiting.
    front : Result or None
        The run's result as its folder saved it last (the front so far: weights and points
        after the last saved round; the final result once finished); ``None`` before its
        first round.
    """

    path: Path
    method: str
    finished: bool
    rounds: int
    phase: str | None
    round: int | None
    ask: int | None
    told: tuple[int, ...] = ()
    waiting: tuple[int, ...] = ()
    front: Result | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        """The status as JSON values (``paretosurf status --json``)."""
        front = self.front
        return {
            "path": str(self.path),
            "method": self.method,
            "finished": self.finished,
            "rounds": self.rounds,
            "phase": self.phase,
            "round": self.round,
            "ask": self.ask,
            "told": list(self.told),
            "waiting": list(self.waiting),
            "front": None
            if front is None
            else {
                "weights": as_json_value(front.weights),
                "points": as_json_value(front.points),
                "stop_reason": front.stop_reason,
                "success": bool(front.success),
                "message": front.message,
            },
        }

    def __str__(self) -> str:
        lines = [f"study in {self.path}: {self.method}, {self.rounds} round(s) saved"]
        if self.finished:
            lines.append("finished: nothing is asked")
        elif self.phase is None:
            lines.append("nothing asked yet")
        else:
            where = "the front's ends" if self.phase == "ends" else f"round {self.round}"
            total = len(self.told) + len(self.waiting)
            lines.append(
                f"asked: {where}, ask {self.ask}: {len(self.told)} of {total} told"
                + (
                    f"; waiting for slot(s) {', '.join(map(str, self.waiting))}"
                    if self.waiting
                    else ""
                )
            )
        front = self.front
        if front is None:
            lines.append("no round saved yet")
            return "\n".join(lines)
        title = "result" if self.finished else f"front after round {len(front.history) - 1}"
        lines.append(f"{title}: {len(front.points)} point(s)")
        if self.finished:
            lines.append(f"  {front.message}")
        for w, p in zip(front.weights, front.points, strict=True):
            weight = f"{float(w):.6g}" if np.ndim(w) == 0 else " ".join(f"{v:.4g}" for v in w)
            lines.append(f"  w = {weight:<10}  " + "  ".join(f"{v:.6g}" for v in p))
        return "\n".join(lines)


class Study:
    """A run of any method of :data:`paretosurf.methods.METHODS` whose solves run outside:
    ask for them, tell their results, from any process or machine that sees the folder.

    Parameters
    ----------
    path : path
        The study's run folder (made if needed). A folder that holds a study is opened: give
        ``path`` alone (with the options that are Python functions, see below), or the same
        method and arguments it was started with. A folder holding a run started by the
        method's entry function (``ps.surf(..., checkpoint=path)``) is continued, given its
        method and arguments.
    method : str, optional
        The method's name in :data:`~paretosurf.methods.METHODS` (``"surf"``, ``"uniform"``,
        ``"surf_simplex"``...), to start a study.
    n_points : int, optional
        The number of points (as the entry functions take it).
    scalarization : Scalarization or str, optional
        What the user's solver minimizes, where it is not a weighted sum (as the solver's
        ``scalarization`` attribute would declare it, :class:`~paretosurf.adapters.
        Scalarization`): the method and the findings read it.
    probe_start : callable, optional
        ``probe_start(rng) -> state``, the fresh starts of the basin probes (the ``probes``
        loop option) the user's solver would offer; the probes' solves are then asked as
        tasks too. Without it a study's run makes no probes.
    **options
        The method's own arguments (``alpha``, ``iterations``, ``seed``...) and the loop
        options (``weight_bounds``, ``normalize``, ``retries``, ``target``...), as the
        entry function takes them. They are recorded in the folder (``study.json``) as
        JSON; those that are Python functions (Soup's ``evaluate`` and ``interpolate``, a
        callable ``normalize``, ``probe_start``) are not, and are given again each time the
        study is opened to ask. A study sets ``executor``, ``checkpoint``, ``resume``,
        ``callback`` and ``checkpoint_period`` itself.

    Notes
    -----
    Each :meth:`ask` resumes the run from its folder's last checkpoint (saved after every
    round) and replays the results told since, with :class:`~paretosurf.jobs.ToldExecutor`
    as its executor: the run decides exactly as if the solves had run inside it, so the
    result is the one :func:`paretosurf.surf` (or the method's entry function) gives with
    a solver that returns the same results, and either can continue the other's folder.
    A round's retries of failed solves (``failed=`` tells), repeated calls and basin probes
    are asked as further batches of the round (``ask`` 1, 2...). With ``weight_bounds``,
    the solves that find the front's ends come first, asked one at a time (each depends on
    the last). A solver's own end solves (``solve_end``) and states kept in folders by
    ``save_state``/``load_state`` are not asked: a state told is kept as it is (a path, a
    JSON value, arrays), and handed back as the slot's warm start.

    Examples
    --------
    A run of SURF whose solves are computed outside the loop (here by the closed-form
    solution of a lopsided problem, where a program of your own would run):

    >>> import tempfile
    >>> import paretosurf as ps
    >>> def solve(w):
    ...     x = 3 * w / (1 + 2 * w)
    ...     return [(1 - x) ** 2, x ** 2]
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     study = ps.Study(folder, "surf", n_points=6, iterations=12)
    ...     tasks = study.ask()
    ...     first = [(t.slot, t.weight) for t in tasks[:3]]
    ...     while tasks:
    ...         for task in tasks:
    ...             study.tell(task.slot, solve(task.weight))
    ...         tasks = study.ask()
    ...     res = study.result()
    >>> first
    [(0, 0.0), (1, 0.2), (2, 0.4)]
    >>> res.success, len(res.points)
    (True, 6)

    It is the run :func:`paretosurf.surf` makes with that solver:

    >>> from paretosurf.testing import assert_same_result
    >>> assert_same_result(res, ps.surf(lambda w, s: ps.Solution(solve(w)), n_points=6,
    ...                                 iterations=12))
    """

    def __init__(
        self,
        path: str | Path,
        method: str | None = None,
        n_points: int | None = None,
        *,
        scalarization: Scalarization | str | None = None,
        probe_start: Callable[[Any], Any] | None = None,
        **options: Any,
    ) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise NotADirectoryError(f"a study's path must be a folder, but {self.path} is a file")
        live: dict[str, Any] = {}
        for name in [k for k in options if k in LIVE_OPTIONS]:
            try:
                _plain(options[name])
            except TypeError:
                live[name] = options.pop(name)  # a function: kept in memory
        if probe_start is not None:
            if not callable(probe_start):
                raise TypeError(f"probe_start must be callable (rng) -> state, got {probe_start!r}")
            live["probe_start"] = probe_start
        saved = read_study(self.path)
        starting = (
            method is not None or n_points is not None or scalarization is not None or options
        )
        if saved is None:
            if method is None:
                raise ValueError(self._no_study_message())
            self._record = self._new_record(method, n_points, scalarization, options, live)
            self._recorded = False
        else:
            self._record = saved
            self._recorded = True
            if starting:
                if method is None:
                    raise ValueError(
                        f"{self.path} holds a study of {saved['method']}: open it with its path "
                        "alone, or with the method and arguments it was started with"
                    )
                given = self._new_record(method, n_points, scalarization, options, live)
                self._check_same(saved, given)
            extra = sorted(set(live) - set(saved.get("live", ())))
            if extra:
                raise ValueError(
                    f"the study in {self.path} was started without {', '.join(extra)}; a "
                    "study keeps the options it was started with"
                )
        self._live = live
        self.info: MethodInfo = get_method(str(self._record["method"]))

    # ------------------------------------------------------------------ the record
    def _no_study_message(self) -> str:
        folder = RunFolder(self.path)
        if folder.holds_run():
            return (
                f"{self.path} holds {folder.describe()} started without a study: open it as "
                "one with the method and the arguments it was started with "
                "(ps.Study(path, 'surf', n_points=..., ...))"
            )
        return (
            f"{self.path} holds no study: start one with a method and its size, "
            "ps.Study(path, 'surf', n_points=11) (paretosurf ask PATH --method surf "
            "--n-points 11)"
        )

    @staticmethod
    def _new_record(
        method: str,
        n_points: int | None,
        scalarization: Any,
        options: Mapping[str, Any],
        live: Mapping[str, Any],
    ) -> dict[str, Any]:
        """The study's record from its arguments, checked; ``live``: the options kept in
        memory (their names are recorded)."""
        if not isinstance(method, str):
            raise TypeError(f"method must be a method's name (a str), got {method!r}")
        try:
            info = get_method(method)
        except KeyError as exc:
            raise ValueError(str(exc.args[0])) from None
        params = inspect.signature(info.entry).parameters
        takes = {
            name
            for name, p in params.items()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and name != "solver"
        }
        arguments: dict[str, Any] = {}
        if n_points is not None:
            if "n_points" not in takes:
                raise TypeError(f"{info.name} takes no n_points (give its own size arguments)")
            arguments["n_points"] = n_points
        for name, value in options.items():
            if name in OWN_OPTIONS:
                raise TypeError(f"a study sets {name} itself: {OWN_OPTIONS[name]}")
            if name not in takes and name not in LOOP_OPTIONS:
                raise TypeError(
                    f"{info.entry.__name__}() takes no argument {name!r}; it takes "
                    f"{', '.join(sorted(takes - set(OWN_OPTIONS)))} and the loop options "
                    f"{', '.join(sorted(LOOP_OPTIONS - set(OWN_OPTIONS)))}"
                )
            if name == "probes" and value not in ("auto", False, None):
                raise ValueError(
                    f"probes={value!r}: a study's basin probes draw their starts from "
                    "probe_start=...; give probe_start and keep probes='auto' (the default)"
                )
            arguments[name] = value
        for name in live:
            if name != "probe_start" and name not in takes and name not in LOOP_OPTIONS:
                raise TypeError(f"{info.entry.__name__}() takes no argument {name!r}")
        plain: dict[str, Any] = {}
        for name, value in arguments.items():
            try:
                plain[name] = _plain(value)
            except TypeError:
                raise TypeError(
                    f"{name}={value!r} cannot be recorded in the study's folder (study.json, "
                    "as JSON): give it as numbers, strings, lists or dicts (an int seed, a "
                    "path as a state)"
                ) from None
        return {
            "study": uuid.uuid4().hex,
            "method": info.name,
            "arguments": plain,
            "scalarization": _scalarization_json(scalarization),
            "live": sorted(live),
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "host": socket.gethostname(),
        }

    def _check_same(self, saved: Mapping[str, Any], given: Mapping[str, Any]) -> None:
        """Refuse to open the study ``saved`` with other arguments than it was started with
        (the Python functions given are checked by name only, when it asks)."""
        differing = []
        for key in ("method", "arguments", "scalarization"):
            before, now = saved.get(key), given.get(key)
            if key == "arguments":
                before, now = dict(before or {}), dict(now or {})
                for name in sorted(set(before) | set(now)):
                    if before.get(name, "(unset)") != now.get(name, "(unset)"):
                        differing.append(
                            f"{name}: {before.get(name, '(unset)')!r} in the study, "
                            f"{now.get(name, '(unset)')!r} now"
                        )
            elif before != now:
                differing.append(f"{key}: {before!r} in the study, {now!r} now")
        if differing:
            raise ValueError(
                f"the study in {self.path} was started with other arguments; differing: "
                f"{'; '.join(differing)}. Open it with its path alone, or start a new study "
                "in another folder"
            )

    def _study_id(self) -> str:
        """The study's id, recording the study in its folder first if it is not yet (when
        its run is about to ask, its arguments checked by the entry function)."""
        if not self._recorded:
            try:
                write_study(self.path, self._record)
            except FileExistsError:
                saved = read_study(self.path)
                assert saved is not None
                self._check_same(saved, {**self._record, "study": saved["study"]})
                self._record = saved
            self._recorded = True
        return str(self._record["study"])

    @property
    def method(self) -> str:
        """The method's name (``"surf"``)."""
        return self.info.name

    @property
    def arguments(self) -> dict[str, Any]:
        """The method's arguments and the loop options the study was started with, as
        recorded (JSON values; the Python functions given are left out)."""
        return dict(self._record.get("arguments", {}))

    @property
    def allow_pickle(self) -> bool:
        """Whether states that only pickle could store are taken (the ``allow_pickle``
        loop option the study was started with)."""
        return bool(self.arguments.get("allow_pickle", False))

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.arguments.items())
        return f"Study({str(self.path)!r}, {self.method!r}{', ' if shown else ''}{shown})"

    # ------------------------------------------------------------------ the run
    def _drive(self) -> Result:
        """Run the method's entry function on the folder with the told results as its
        solves: the run's result if it finishes; :class:`Asked` where it waits."""
        missing = sorted(set(self._record.get("live", ())) - set(self._live))
        if missing:
            raise ValueError(
                f"the study in {self.path} was started with {', '.join(missing)}, a Python "
                "function kept out of its folder: open it with the same "
                f"{', '.join(f'{m}=...' for m in missing)} to ask"
            )
        answers = Answers(self.path, self._study_id, allow_pickle=self.allow_pickle)
        declared: dict[str, Any] = {}
        if self._record.get("scalarization") is not None:
            declared["scalarization"] = Scalarization(**self._record["scalarization"])
        if "probe_start" in self._live:
            declared["probe_start"] = self._live["probe_start"]
        options = {k: v for k, v in self._live.items() if k != "probe_start"}
        result: Result = self.info.entry(
            ToldResults(answers, declared),
            **self.arguments,
            **options,
            executor=ToldExecutor(answers),
            checkpoint=self.path,
            resume=True,
            callback=answers.next_round,
            checkpoint_period=Checkpointer(every=1),
        )
        return result

    def ask(self) -> list[AskedTask]:
        """The solves the run waits for: the round's tasks not yet told (none once the run
        has finished).

        The run goes on from its folder as far as the results told allow: a round whose
        results are all told is completed, saved, and the next one proposed. Its tasks
        (slot, weight, warm start) are also written to the folder (``asked.json``), where
        :meth:`pending` and other processes read them.

        Returns
        -------
        list of AskedTask
            Each with the ``slot`` to tell, the ``weight`` to solve at and the warm start
            (``state``): the state told with the slot's last result (``None`` at first).

        Raises
        ------
        paretosurf.InnerSolverError
            If a slot's solve was told failed more times than the run's ``retries`` allow
            (:meth:`retry_round` asks the round again).
        paretosurf.storage.FolderInUseError
            If another process is asking (or running the folder's run) at the moment.
        """
        try:
            result = self._drive()
        except Asked as asked:
            return list(asked.tasks)
        except InnerSolverError as exc:
            add_note(
                exc,
                f"a solve told failed stopped the run in {self.path}: study.retry_round() "
                "(paretosurf ask DIR --retry-round) asks its round again, every slot afresh",
            )
            raise
        self._finished(result)
        return []

    def _finished(self, result: Result) -> None:
        """Record that the run has finished (what :meth:`status` and :meth:`tell` read)."""
        self._study_id()
        write_asked(
            self.path,
            {
                "study": self._record["study"],
                "phase": "finished",
                "round": None,
                "ask": None,
                "allow_pickle": self.allow_pickle,
                "stop_reason": result.stop_reason,
                "tasks": [],
                "states": {"entries": {}, "pickled": []},
            },
            {},
        )

    def pending(self) -> list[AskedTask]:
        """The tasks of the last ask whose results are not told yet, with their warm starts,
        read from the folder (nothing runs: a worker process can read its task here)."""
        found = read_asked_states(self.path)
        if found is None:
            return []
        meta, arrays = found
        if meta.get("phase") == "finished":
            return []
        states = decode_states(
            meta["states"],
            arrays,
            root=self.path,
            allow_pickle=bool(meta.get("allow_pickle", False)),
            where=str(self.path / "asked.json"),
        )
        phase, rnd, ask = str(meta["phase"]), meta.get("round"), int(meta["ask"])
        out = []
        for i, task in enumerate(meta["tasks"]):
            if read_tell(tell_path(self.path, phase, rnd, ask, task["slot"])) is not None:
                continue
            weight = task["weight"]
            out.append(
                AskedTask(
                    int(task["slot"]),
                    np.asarray(weight, dtype=np.float64) if isinstance(weight, list) else weight,
                    states[str(i)],
                    rnd,
                    ask,
                    phase,
                )
            )
        return out

    def tell(
        self,
        slot: int,
        objectives: Any = None,
        state: Any = None,
        *,
        round: int | None = None,
        failed: str | None = None,
        info: Mapping[str, Any] | None = None,
        seconds: float | None = None,
    ) -> None:
        """Record the result of one asked solve, at once, in its own file of the folder.

        Any process may tell, in any order, several at once: each result is its own file,
        written exclusively, so none is lost and none is told twice.

        Parameters
        ----------
        slot : int
            The task's slot (:attr:`AskedTask.slot`).
        objectives : array_like or Solution
            The objective vector (minimized), of the task's number of objectives; or a
            :class:`~paretosurf.Solution`, whose state and info are told with it.
        state : object, optional
            The warm start of the slot's next solve: a path (a checkpoint your solver
            wrote), a JSON value, numpy arrays, dataclasses of them... It is kept as it is
            and handed back with the slot's next task (states only pickle could store need
            the study's ``allow_pickle=True``).
        round : int, optional
            The round the result is for, checked against the one asked.
        failed : str, optional
            The solve failed: its message, instead of objectives. The run retries the slot
            by its rules (``retries``, default one more try), as a further batch of the
            round, and stops with :class:`~paretosurf.InnerSolverError` beyond them.
        info : dict, optional
            The solve's diagnostics, as a :class:`~paretosurf.Solution`'s (``"steps"``,
            ``"success"``, ``"message"``...), JSON values.
        seconds : float, optional
            The solve's wall time, for the run's solve log.

        Raises
        ------
        TellError
            Nothing asked, a slot not asked (or not in the round given), a result told
            already, the wrong number of objectives, non-finite ones, or both or neither of
            ``objectives`` and ``failed``.
        """
        if isinstance(objectives, Solution):
            if state is not None or info is not None:
                raise TypeError("a Solution is told with its own state and info: give no other")
            objectives, state, info = objectives.objectives, objectives.state, objectives.info
        asked = read_asked(self.path)
        if asked is None:
            raise TellError(
                f"nothing is asked in {self.path} yet: ask() first (paretosurf ask {self.path})"
            )
        phase = str(asked["phase"])
        if phase == "finished":
            raise TellError(f"the run in {self.path} has finished: nothing is asked")
        rnd, ask = asked.get("round"), int(asked["ask"])
        where = "the front's ends" if phase == "ends" else f"round {rnd}"
        if round is not None:
            number = _index(round, "round")
            if phase == "ends":
                raise TellError(
                    f"round {number} is not asked: the front's ends are, before round 0"
                )
            if number != rnd:
                done = " (it is complete)" if number < int(rnd or 0) else ""
                raise TellError(f"round {number} is not the round asked{done}: round {rnd} is")
        slot = _index(slot, "slot")
        tasks = {int(t["slot"]): t for t in asked["tasks"]}
        if slot not in tasks:
            raise TellError(
                f"slot {slot} was not asked in {where}: the slots asked are "
                f"{', '.join(map(str, sorted(tasks)))}"
            )
        weight = tasks[slot]["weight"]
        record: dict[str, Any] = {
            "study": asked["study"],
            "phase": phase,
            "round": rnd,
            "ask": ask,
            "slot": slot,
            "weight": weight,
            "objectives": None,
            "failed": None,
            "info": {},
            "state": {"value": None},
            "seconds": _seconds(seconds),
        }
        arrays: dict[str, Any] = {}
        if failed is not None:
            if objectives is not None:
                raise TellError(
                    "tell either the objectives or {failed}, not both", failed="message"
                )
            if not isinstance(failed, str) or not failed.strip():
                raise TellError(f"failed must be the failure's message (a str), got {failed!r}")
            record["failed"] = failed
        else:
            if objectives is None:
                raise TellError(
                    f"tell slot {slot}'s objectives, or {{failed}} for a solve that failed",
                    failed="message",
                )
            m = len(weight) if isinstance(weight, list) else 2
            record["objectives"], record["info"] = _checked(objectives, info, m, slot, where)
            meta, arrays = encode_states({"state": state}, root=self.path)
            if meta["pickled"] and not bool(asked.get("allow_pickle", False)):
                raise TellError(
                    f"slot {slot}'s state ({type(state).__name__}) can be stored only by "
                    "pickle: tell a path, a JSON value or numpy arrays, or start the study "
                    "with {allow_pickle}",
                    allow_pickle=True,
                )
            record["state"] = meta["entries"]["state"]
        path = tell_path(self.path, phase, rnd, ask, slot)
        try:
            write_tell(path, record, arrays)
        except FileExistsError:
            raise TellError(
                f"slot {slot} of {where} was told already ({path}): a result is told once"
            ) from None

    def result(self) -> Result:
        """The run's :class:`~paretosurf.Result` once it has finished: the one the
        method's entry function gives (its findings raised again as warnings).

        Raises
        ------
        RuntimeError
            If the run waits for results still (:meth:`ask` lists them).
        """
        try:
            result = self._drive()
        except Asked as asked:
            first = asked.tasks[0] if asked.tasks else None
            where = (
                "the front's ends"
                if first is None or first.phase == "ends"
                else f"round {first.round}"
            )
            raise RuntimeError(
                f"the run in {self.path} has not finished: {where} waits for "
                f"{len(asked.tasks)} result(s) (slots "
                f"{', '.join(str(t.slot) for t in asked.tasks)}); tell them, then ask again"
            ) from None
        self._finished(result)
        return result

    def retry_round(self) -> Path | None:
        """Ask the round asked last again from its start, every slot afresh: its told results
        are set aside (their folder renamed ``round-NNNNNN.retried-K``). For a run stopped by
        a solve told failed beyond its retries. Returns where they went (``None``: none were
        told)."""
        with RunFolder(self.path):  # no ask meanwhile
            asked = read_asked(self.path)
            if asked is None or asked.get("phase") == "finished":
                return None
            folder = round_folder(self.path, str(asked["phase"]), asked.get("round"))
            if not folder.exists():
                return None
            k = 1
            while folder.with_name(f"{folder.name}.retried-{k}").exists():
                k += 1
            target = folder.with_name(f"{folder.name}.retried-{k}")
            folder.rename(target)
            return target

    def status(self) -> StudyStatus:
        """Where the study stands, read from its folder (nothing runs): the round asked, its
        slots told and waiting, and the front so far."""
        folder = RunFolder(self.path)
        rounds = folder.n_rounds() if folder.holds_run() else 0
        front: Result | None = None
        if rounds:
            front = Result.load(self.path, allow_pickle=self.allow_pickle)
        asked = read_asked(self.path)
        phase = None if asked is None else str(asked["phase"])
        if asked is not None and phase == "round" and int(asked["round"]) < rounds:
            asked, phase = None, None  # the run went on without the study (ps.surf)
        told: list[int] = []
        waiting: list[int] = []
        rnd = ask = None
        if asked is not None and phase != "finished":
            rnd, ask = asked.get("round"), int(asked["ask"])
            for task in asked["tasks"]:
                slot = int(task["slot"])
                path = tell_path(self.path, str(phase), rnd, ask, slot)
                (told if read_tell(path) is not None else waiting).append(slot)
        return StudyStatus(
            self.path,
            self.info.label,
            phase == "finished",
            rounds,
            phase,
            rnd,
            ask,
            tuple(told),
            tuple(waiting),
            front,
        )


def _index(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise TellError(f"{name} must be an integer, got {value!r}")
    try:
        number = operator.index(value)
    except TypeError:
        raise TellError(f"{name} must be an integer, got {value!r}") from None
    if number < 0:
        raise TellError(f"{name} must be >= 0, got {number}")
    return number


def _seconds(value: Any) -> float | None:
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not (math.isfinite(value) and float(value) >= 0)
    ):
        raise TellError(f"seconds must be a number of seconds >= 0, got {value!r}")
    return float(value)


def _checked(
    objectives: Any, info: Any, m: int, slot: int, where: str
) -> tuple[list[float], dict[str, Any]]:
    """The told objectives (``m`` finite numbers) and info (JSON values), as JSON."""
    try:
        solution = Solution(objectives, None, {} if info is None else info)
    except (TypeError, ValueError) as exc:
        raise TellError(f"slot {slot}'s result is not one the run takes: {exc}") from None
    values = solution.objectives
    if values.size != m:
        raise TellError(
            f"slot {slot} of {where} has {m} objectives; {values.size} were told "
            f"({values.tolist()})"
        )
    if not np.all(np.isfinite(values)):
        raise TellError(
            f"slot {slot} of {where} was told non-finite objectives {values.tolist()}: tell a "
            "solve that failed with {failed} (the run retries it by its rules)",
            failed="message",
        )
    if not isinstance(solution.info, Mapping):
        raise TellError(f"info must be a dict, got {type(solution.info).__name__}")
    try:
        plain_info = _plain(dict(solution.info))
    except TypeError:
        raise TellError(
            f"slot {slot}'s info must hold JSON values (numbers, strings, lists, dicts), got "
            f"{solution.info!r}"
        ) from None
    return [float(v) for v in values], plain_info
