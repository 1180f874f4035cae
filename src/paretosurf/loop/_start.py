"""How a run starts: its parts set up from the call's options, then afresh from the user's
warm starts or from its saved checkpoint.

:class:`RunStart` is the part of the driver's runner (:func:`paretosurf.loop.run`) that
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

import numpy as np
from numpy.typing import NDArray

from paretosurf._utils.validation import (
    ExistingFileError,
    check_checkpoint_period,
    check_init_states,
    check_not_a_class,
)
from paretosurf.executors import LocalExecutor, solves_in
from paretosurf.findings import FrontEnds, ParetoWarning, find_ends
from paretosurf.loop._basin_probes import BasinProbes, RoundProbes, resolve_probes
from paretosurf.loop._checkpointing import Checkpointer
from paretosurf.loop._fixed_points import FixedPoints, reuses_fixed_points
from paretosurf.loop._kept_rounds import RoundKeeper
from paretosurf.loop._method import Method
from paretosurf.loop._options import FORCE
from paretosurf.loop._solving import RoundSolver
from paretosurf.loop._spacing import Spacing
from paretosurf.loop._spacing_options import MovingAverage, WeightMap
from paretosurf.loop._state import (
    Progress,
    RunParts,
    check_same_run,
    load_method_state,
    manifest,
    part,
)
from paretosurf.result import history_from_parts
from paretosurf.solvers import check_same_solver, check_state_shapes, solver_identity, users_solver
from paretosurf.storage import (
    DiskStates,
    RunFolder,
    StatePool,
    trusted_state_classes,
    warm_start_keys,
)

__all__ = ["RunStart"]


class RunStart(RunParts):
    """The set-up half of a run (a base of the driver's runner): sets the attributes of
    :class:`~paretosurf.loop._state.RunParts` from :func:`~paretosurf.loop.run`'s checked
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
        weight_bounds: tuple[float, float] | str | None,
        retries: int,
        allow_pickle: bool,
        checkpointer: Checkpointer,
        report: str = "auto",
        target: float | None = None,
        early_stopping: bool = False,
        probes: BasinProbes | str | bool | None = None,
    ) -> None:
        check_not_a_class(
            users_solver(solver),
            name="solver",
            what="a solver",
            methods=("solve", "solve_many", "__call__"),
        )
        check_checkpoint_period(checkpointer, has_folder=folder is not None)
        if report == "most-even" and not method.front_is_last_round:
            raise ValueError(
                f"report='most-even' needs a method whose points are its last "
                f"round's, one per slot; {method.label}'s are not"
            )
        self.method = method
        self.solver = solver
        #: The solver's name and public settings, taken before any solve (what ``run.json``
        #: records and a resume compares); ``None`` without a run folder, where nothing
        #: reads them (reading a solver's settings, through ``inspect.signature``, cost more
        #: than a short run's rounds).
        self.solver_identity: dict[str, Any] | None = (
            None if folder is None else solver_identity(solver)
        )
        self.executor: Any = LocalExecutor() if executor is None else executor
        self.folder = folder
        self.spacing = spacing
        self.average = MovingAverage(moving_average)
        if weight_bounds == "auto" and not method.verifies_ends:
            raise ValueError(
                f"weight_bounds='auto' needs a method that finds the front's ends before its "
                f"first round (SURF, ps.surf); {method.label} does not: give (lo, hi) or None"
            )
        self.weight_bounds = weight_bounds
        self.weight_map = WeightMap(weight_bounds if isinstance(weight_bounds, tuple) else None)
        self.ends = None
        self.extremes = None
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
            self.executor, solver, retries, checkpointer, self.disk, self.weight_map
        )
        #: The solves the run reuses rather than solve again (a deterministic solver's).
        self.fixed_points = self.solving.fixed = FixedPoints(reuses_fixed_points(solver))
        #: The run's basin probes (None: none), the ``probes`` option resolved for the solver
        #: (:func:`~paretosurf.loop.resolve_probes`); and whether it was "auto".
        self.probes: BasinProbes | None = None
        self.probes_auto = probes == "auto"
        self.use_probes(resolve_probes(probes, solver))
        self.progress = Progress()
        #: The candidates for the reported round (see :mod:`paretosurf.loop`).
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

    def use_probes(self, probes: BasinProbes | None) -> None:
        """Make the run's basin probes ``probes`` (``None``: none)."""
        self.probes = probes
        self.solving.probes = None if probes is None else RoundProbes(probes, self.solver)
        self.count_ends_in_probes()

    def count_ends_in_probes(self) -> None:
        """Count the evaluations the front's ends cost in the run's own spending, of which
        the probes may spend a share."""
        ends = getattr(self, "ends", None)
        if self.solving.probes is not None and ends is not None:
            self.solving.probes.ends_spent = max(int(ends.evaluations), 0)
        self._settings = None

    def settings(self) -> dict[str, Any]:
        """The method's settings and the loop's options that change results (fixed for the
        run, so computed once; ``probes`` only when the run probes)."""
        if self._settings is None:
            self._settings = {
                **self.method.settings(),
                "normalize": self.spacing.setting(),
                "moving_average": self.average.rate,
                "report": self.report,
                "weight_bounds": (
                    list(self.weight_bounds)
                    if isinstance(self.weight_bounds, tuple)
                    else self.weight_bounds
                ),
                **({"probes": self.probes.settings()} if self.probes is not None else {}),
            }
        return dict(self._settings)

    def _identity(self) -> dict[str, Any]:
        """:attr:`solver_identity`, which a run with a folder took at its set-up."""
        assert self.solver_identity is not None, "a run without a folder has no manifest"
        return self.solver_identity

    def manifest(self) -> dict[str, Any]:
        return manifest(
            self.method,
            self.settings(),
            self.solver,
            solver_settings=self._identity()["solver_settings"],
        )

    def begin(
        self,
        init_states: Sequence[Any] | None,
        *,
        resume: bool | str,
        overwrite: bool,
        iterations: int | None,
    ) -> None:
        """Start the run: resume the one its folder holds (``resume``; ``"force"``: even
        with another solver than it was saved with), replace it (``overwrite``) or refuse
        it; start afresh from ``init_states`` without one. A resumed run that already holds
        more rounds than ``iterations`` is returned as it is, with a
        :class:`~paretosurf.findings.ParetoWarning`."""
        folder = self.folder
        if folder is not None and folder.holds_run():
            if resume:
                # iterations=0 reads the saved run: no solve, so any solver will do
                self.restore(init_states, force=resume == FORCE, reading=iterations == 0)
            elif overwrite:
                folder.clear()
                self.start_fresh(init_states)
            else:
                raise ExistingFileError(
                    f"checkpoint folder {folder.path} already holds {folder.describe()}; pass "
                    "{resume} to continue it, {overwrite} to replace it, or use another folder",
                    resume=True,
                    overwrite=True,
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
        if self.method.verifies_ends:
            init_states = self.find_ends(init_states)
        if self.folder is not None and not created:
            manifest = self.manifest()
            if self.ends is not None:
                manifest["front_ends"] = self.ends.to_json()
            self.folder.create(manifest)
        self.method.start(warm_start_keys(self.pool, self.disk, init_states))

    def start_up(self, n_segments: int) -> list[Any] | None:
        """The solver's own start-up of the run's slots, at the first round's places
        ``i / n_segments`` in [0, 1]: its ``initial_states(weights)`` (a
        :class:`~paretosurf.solvers.StartUp`, run in this process; its solves and steps count
        in the run's), or ``None`` where it has no such method or declines (every slot then
        starts cold)."""
        initial_states = getattr(users_solver(self.solver), "initial_states", None)
        if not callable(initial_states):
            return None
        start = initial_states([i / n_segments for i in range(n_segments + 1)])
        if start is None:
            return None
        self.progress.n_solves += int(start.solves)
        self.progress.n_steps += int(start.steps)
        return list(start.states)

    def find_ends(self, init_states: Sequence[Any] | None) -> Sequence[Any] | None:
        """Find the front's ends before the first round (:func:`~paretosurf.findings.
        find_ends`; its solves run in this process and count in the run's solves), and set
        the run's units and bounds from them. Returns the first round's warm starts: the
        user's; else the solver's start-up (:meth:`start_up`), the ends' states for the end
        slots where the solver posed or approached its ends."""
        n_segments = int(getattr(self.method, "n_segments", 1))
        started = None if init_states is not None else self.start_up(n_segments)
        if started is not None:
            init_states = started

        def solve_weights(weights: Sequence[float], states: Sequence[Any]) -> list[Any]:
            return [self.solver.solve(float(w), s) for w, s in zip(weights, states, strict=True)]

        ends = find_ends(
            users_solver(self.solver),
            solve_weights,
            bounds=self.weight_bounds,
            normalize=self.spacing.option,
            n_segments=n_segments,
            init_states=init_states,
        )
        self.use_ends(ends)
        if ends is None:
            return init_states
        self.progress.n_solves += ends.solves
        if all(s is not None for s in ends.states):
            if started is not None:  # the ends approached from the start-up's ends
                return [ends.states[0], *started[1:-1], ends.states[1]]
            if init_states is None:
                return [ends.states[0], *self.starts_between(ends, n_segments), ends.states[1]]
        return init_states

    def starts_between(self, ends: FrontEnds, n_segments: int) -> list[Any]:
        """The first round's warm starts of the inner slots: the solver's
        ``start_between(a, b, t)`` on the segment between the ends' states, at the slots'
        places ``t = i / n_segments`` (``None``, the solver's cold start, where it has no such
        method or declines)."""
        between = getattr(users_solver(self.solver), "start_between", None)
        if not callable(between):
            return [None] * (n_segments - 1)
        a, b = ends.states
        return [between(a, b, i / n_segments) for i in range(1, n_segments)]

    def use_ends(self, ends: FrontEnds | None) -> None:
        """Measure the run in the units of the front's ``ends`` and solve within the bounds
        they give (``weight_bounds`` in the run's units; ``"auto"``: the bounds found)."""
        self.ends = ends
        if ends is None:
            return
        self.count_ends_in_probes()
        # the solver sees the ends before the first round's points, here as on resume (an
        # estimated ideal point then lies below them, whatever the corner solves from x0 found)
        self.observe(np.array(ends.points, dtype=np.float64))
        self.spacing.ends = ends.points
        bounds = ends.bounds if self.weight_bounds == "auto" else self.weight_bounds
        if bounds == (0.0, 1.0) or not isinstance(bounds, tuple):
            bounds = None
        self.weight_map.bounds = bounds
        self.weight_map.scales = ends.scales

    def restore(
        self, init_states: Sequence[Any] | None, *, force: bool = False, reading: bool = False
    ) -> None:
        """Continue the run saved in the folder; one stopped before its first checkpoint
        starts again from ``init_states`` (its solve log is kept).

        Another solver than the run was saved with
        (:func:`~paretosurf.solvers.check_same_solver`) and saved states that do not
        fit the solver (:func:`~paretosurf.solvers.check_state_shapes`) are refused
        unless ``force``; ``reading``: the call only reads the saved run (``iterations=0``),
        so neither is checked."""
        assert self.folder is not None
        where = f"checkpoint {self.folder.path}"
        saved_manifest = self.folder.manifest()
        if self.probes_auto and "probes" not in saved_manifest.get("settings", {}):
            self.use_probes(None)  # probes="auto" goes on as a run saved without probes ran
        self.method.adopt_saved(saved_manifest.get("settings", {}))
        check_same_run(saved_manifest, self.method, self.settings(), where)
        if not (force or reading):
            check_same_solver(
                saved_manifest, self._identity(), label=self.method.label, where=where
            )
        self.folder.prepare_resume()
        saved = self.folder.load() if self.folder.committed() else None
        self.folder.truncate_history(0 if saved is None else int(saved.meta["n_rounds"]))
        if saved is None:
            self.disk.resumed(None, None)  # no saved state names any of its folders
            self.start_fresh(init_states, created=True)
            return
        meta, arrays = saved.meta, saved.arrays
        ends = saved_manifest.get("front_ends")
        self.use_ends(None if ends is None else FrontEnds.from_json(ends))
        verified = meta.get("result", {}).get("front_ends")
        if "extremes_rounds" in meta and verified is not None:
            self.extremes = (int(meta["extremes_rounds"]), FrontEnds.from_json(verified))
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
        if history and not (force or reading):
            check_state_shapes(
                [self.pool.get(key) for key in self.pool.keys()],
                self.solver,
                history[-1].weights[0],
                label=self.method.label,
                where=where,
            )
        for record in history:  # the solver sees the saved rounds again, in order
            self.observe(record.points)
        self.average.load_meta(meta.get("averages", {}))
        self.checkpointer.saved_rounds = len(history)
        load_method_state(self.method, self.keeper, meta, arrays, history)
        if history:  # the coordinates the last round ended in (what the result measures in)
            self.fit_spacing()
        if "fixed_points" in meta:
            self.fixed_points.load_parts(meta["fixed_points"], part(arrays, "fixed_points/"))
        self.disk.resumed(self.pool, saved.fallback)
