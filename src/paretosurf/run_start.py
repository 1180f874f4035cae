"""How a run starts: afresh from the user's warm starts, or from its saved checkpoint.

:class:`RunStart` is the part of the driver's runner (:func:`paretosurf.driver.run`) that
sets a run up: its settings and manifest, a fresh start (the folder created, the warm starts
added to the state pool), or a resume (the saved run checked against this call, its states,
records, method state and the solver's observed points restored).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from paretosurf._validation import check_init_states
from paretosurf.result import history_from_parts
from paretosurf.run_state import Progress, RunParts, check_same_run, load_method_state, manifest
from paretosurf.solvers import users_solver
from paretosurf.states import StatePool, trusted_state_classes, warm_start_keys

__all__ = ["RunStart"]


class RunStart(RunParts):
    """The set-up half of a run (a base of the driver's runner, which sets the attributes
    of :class:`~paretosurf.run_state.RunParts`)."""

    #: Shows a round's points to a solver that follows them (from :class:`RunReporting`).
    observe: Callable[[Any], Any]

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
