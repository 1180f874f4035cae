"""How a run starts: its parts set up from the call's options, then afresh from the user's
warm starts or from its saved checkpoint.

:class:`RunStart` is the part of the driver's runner (:func:`paretosurf.driver.run`) that
sets a run up: its parts (the state pool, the disk states, the round solver, the bookkeeping),
its settings and manifest, and its start: a fresh one (the folder created, the warm starts
added to the state pool), a resume (the saved run checked against this call, its states,
records, method state and the solver's observed points restored), or the refusal of a folder
that already holds a run.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from numpy.typing import NDArray

from paretosurf._validation import check_init_states
from paretosurf.checkpoint import Checkpointer
from paretosurf.executors import LocalExecutor, solves_in
from paretosurf.findings import ParetoWarning
from paretosurf.kept_rounds import RoundKeeper
from paretosurf.method import Method
from paretosurf.result import history_from_parts
from paretosurf.round_solving import RoundSolver
from paretosurf.run_folder import RunFolder
from paretosurf.run_state import Progress, RunParts, check_same_run, load_method_state, manifest
from paretosurf.solvers import users_solver
from paretosurf.spacing import Spacing
from paretosurf.spacing_options import MovingAverage
from paretosurf.states import DiskStates, StatePool, trusted_state_classes, warm_start_keys

__all__ = ["RunStart"]


class RunStart(RunParts):
    """The set-up half of a run (a base of the driver's runner): sets the attributes of
    :class:`~paretosurf.run_state.RunParts` from :func:`~paretosurf.driver.run`'s checked
    options, and starts or resumes the run."""

    #: Shows a round's points to a solver that follows them (from :class:`RunReporting`).
    observe: Callable[[Any], Any]

    def __init__(
        self,
        method: Method,
        solver: Any,
        executor: Any,
        folder: RunFolder | None,
        spacing: Spacing,
        moving_average: float | None,
        weight_bounds: tuple[float, float] | None,
        retries: int,
        allow_pickle: bool,
        checkpointer: Checkpointer,
        report: str = "auto",
        target: float | None = None,
        early_stopping: bool = False,
    ) -> None:
        if report == "most-even" and not method.front_is_last_round:
            raise ValueError(
                f"report='most-even' needs a method whose points are its last "
                f"round's, one per slot; {method.label}'s are not"
            )
        self.method = method
        self.solver = solver
        self.executor: Any = LocalExecutor() if executor is None else executor
        self.folder = folder
        self.spacing = spacing
        self.average = MovingAverage(moving_average)
        self.weight_bounds = weight_bounds
        self.allow_pickle = allow_pickle
        self.report = report
        #: The spacing target of the result (``None``: the front's default).
        self.target = target
        #: Whether the run ends once its points meet the target and its weights settled.
        self.early_stopping = early_stopping
        self.checkpointer = checkpointer
        checkpointer.start(folder)
        self.pool = StatePool()
        self.disk = DiskStates(solver, folder, in_process=solves_in(self.executor) == "process")
        self.solving = RoundSolver(
            self.executor, solver, retries, checkpointer, self.disk, weight_bounds
        )
        self.progress = Progress()
        #: The candidates for the reported round (see :mod:`paretosurf.kept_rounds`).
        self.keeper = RoundKeeper()
        #: The last round's solves whose info says success=False: (slot, message); and the
        #: info of each of its solves; and the objective evaluations each slot reported.
        self.unsuccessful: list[tuple[int, str]] = []
        self.last_infos: list[dict[str, Any]] = []
        self.evaluations: NDArray[Any] | None = None
        self._settings: dict[str, Any] | None = None
        if folder is None and self.disk.enabled and solves_in(self.executor) == "cluster":
            raise ValueError(
                "a solver that keeps its states in folders (save_state/load_state) on a "
                "cluster needs checkpoint=DIR on a filesystem every node sees: without it the "
                "states would live in a temporary folder of this machine only"
            )

    def settings(self) -> dict[str, Any]:
        """The method's settings and the loop's options that change results (fixed for the
        run, so computed once)."""
        if self._settings is None:
            self._settings = {
                **self.method.settings(),
                "normalize": self.spacing.setting(),
                "moving_average": self.average.rate,
                "report": self.report,
                "weight_bounds": (None if self.weight_bounds is None else list(self.weight_bounds)),
            }
        return dict(self._settings)

    def manifest(self) -> dict[str, Any]:
        return manifest(self.method, self.settings(), self.solver)

    def begin(
        self,
        init_states: Sequence[Any] | None,
        *,
        resume: bool,
        overwrite: bool,
        iterations: int | None,
    ) -> None:
        """Start the run: resume the one its folder holds (``resume``), replace it
        (``overwrite``) or refuse it; start afresh from ``init_states`` without one. A
        resumed run that already holds more rounds than ``iterations`` is returned as it is,
        with a :class:`~paretosurf.findings.ParetoWarning`."""
        folder = self.folder
        if folder is not None and folder.holds_run():
            if resume:
                self.restore(init_states)
            elif overwrite:
                folder.clear()
                self.start_fresh(init_states)
            else:
                raise FileExistsError(
                    f"checkpoint folder {folder.path} already holds {folder.describe()}; pass "
                    "resume=True to continue it, overwrite=True to replace it, or use another "
                    "folder"
                )
        else:
            self.start_fresh(init_states)
        done = len(self.progress.history)
        if iterations is not None and done > iterations > 0:  # (0 with resume: read the run)
            warnings.warn(
                f"{self.method.label}: the run in "
                f"{folder.path if folder else 'the checkpoint'} already holds {done} rounds, "
                f"more than iterations={iterations}; its result after {done} rounds is "
                "returned (a run cannot be shortened: start a new one for fewer)",
                ParetoWarning,
                stacklevel=5,  # the caller of the entry function that called run
            )

    def start_fresh(self, init_states: Sequence[Any] | None, *, created: bool = False) -> None:
        """Start the run from ``init_states``; ``created``: its folder already holds its
        manifest (a run resumed before its first checkpoint)."""
        check_init_states(init_states)
        if self.folder is not None and not created:
            self.folder.create(self.manifest())
        self.method.start(warm_start_keys(self.pool, self.disk, init_states))

    def restore(self, init_states: Sequence[Any] | None) -> None:
        """Continue the run saved in the folder; one stopped before its first checkpoint
        starts again from ``init_states`` (its solve log is kept)."""
        assert self.folder is not None
        where = f"checkpoint {self.folder.path}"
        check_same_run(self.folder.manifest(), self.method, self.settings(), where)
        self.folder.prepare_resume()
        saved = self.folder.load() if self.folder.committed() else None
        self.folder.truncate_history(0 if saved is None else int(saved.meta["n_rounds"]))
        if saved is None:
            self.disk.resumed(None, None)  # no saved state names any of its folders
            self.start_fresh(init_states, created=True)
            return
        meta, arrays = saved.meta, saved.arrays
        history = history_from_parts(saved.records)
        self.progress = Progress.from_meta(meta, history)
        self.pool = StatePool.from_parts(
            meta["pool"],
            arrays,
            root=self.folder.path,
            allow_pickle=self.allow_pickle,
            where=where,
            state_classes=trusted_state_classes(users_solver(self.solver)),
        )
        for record in history:  # the solver sees the saved rounds again, in order
            self.observe(record.points)
        self.average.load_meta(meta.get("averages", {}))
        self.checkpointer.saved_rounds = len(history)
        load_method_state(self.method, self.keeper, meta, arrays, history)
        self.disk.resumed(self.pool, saved.fallback)
