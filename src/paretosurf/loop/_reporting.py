"""What a run reports: its points, each round's record, its result and its saved parts.

:class:`RunReporting` is the part of the driver's runner (:func:`paretosurf.loop.run`) that
reads the method, the spacing and the state pool without changing the run: the front as the
run measures it (weights as solved, objectives, coordinates), the
:class:`~paretosurf.result.IterationRecord` of a round, the round the result reports (the
``report`` option), the :class:`~paretosurf.result.Result`, and what a checkpoint saves.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paretosurf.findings import (
    FrontEnds,
    coverage_finding,
    curve_coverage_finding,
    extremes_finding,
    verify_extremes,
)
from paretosurf.loop._kept_rounds import ReportedFront
from paretosurf.loop._state import RunParts, run_parts, run_result
from paretosurf.result import IterationRecord, Result
from paretosurf.solvers import users_solver

__all__ = ["RunReporting"]

FloatArray = NDArray[np.float64]


class RunReporting(RunParts):
    """The reporting half of a run (a base of the driver's runner, whose attributes of
    :class:`~paretosurf.loop._state.RunParts` :class:`~paretosurf.loop.RunStart` sets)."""

    #: The method's settings and the loop options that change results (from the runner).
    settings: Callable[[], dict[str, Any]]

    def front(
        self, reported: ReportedFront | None = None
    ) -> tuple[FloatArray, FloatArray, FloatArray, list[int | None]]:
        """The method's points: weights as solved, objectives, their coordinates, keys; or
        those of ``reported``, an earlier round's (measured as the last round was)."""
        if reported is not None:
            return (
                self.weight_map(np.array(reported.weights, dtype=np.float64)),
                reported.points,
                self.spacing(reported.points),
                reported.keys,
            )
        weights, points, keys = self.fit_spacing()
        coords = points
        if points.ndim == 2 and points.shape[1] > 0:
            coords = self.spacing(points)
        return (
            self.weight_map(np.array(weights, dtype=np.float64)),
            points,
            coords,
            keys,
        )

    def record(self, index: int, started: float, solve_seconds: float) -> IterationRecord:
        weights, points, coords, _ = self.front()
        ideal = self.observe(points)
        return IterationRecord.from_points(
            index,
            weights,
            points,
            coords=coords,
            seconds=time.perf_counter() - started,
            solve_seconds=solve_seconds,
            n_solves=self.progress.n_solves,
            n_steps=self.progress.n_steps,
            weight_change=self.method.weight_change(),
            ideal=ideal,
            evaluations=self.evaluations,
            **self.method.record_extras(),
        )

    def observe(self, points: FloatArray) -> FloatArray | None:
        """Show a round's points to a solver that follows them (``observe(points)``: a
        Tchebycheff scalarization moves its ideal point below every value found); returns
        its ideal point then, if it has one. Called in this process, in round order, and
        again for every saved round on resume, so that a resumed run's solver is as the
        uninterrupted run's."""
        observe = getattr(self.solver, "observe", None)
        if not callable(observe) or points.ndim != 2 or points.shape[1] == 0:
            return None
        if observe(np.array(points, dtype=np.float64)) is not False:
            self.fixed_points.forget()  # (the solves remembered were made under the old one)
        ideal = getattr(self.solver, "ideal", None)
        return None if ideal is None else np.array(ideal, dtype=np.float64)

    # ------------------------------------------------------------------ results and saves
    def reports_most_even(self) -> bool:
        """Whether the result reports the most even of the last rounds (the ``report``
        option; "auto": with three or more objectives)."""
        if self.report == "last" or not self.method.front_is_last_round:
            return False
        if self.report == "most-even":
            return True
        m = self.progress.n_objectives
        return m is not None and m >= 3

    def reported_front(self) -> ReportedFront | None:
        """The earlier round the result reports, or ``None`` for the method's front."""
        return self.keeper.reported() if self.reports_most_even() else None

    def live_keys(self) -> list[int | None]:
        """The keys of the states the run keeps: the method's and the candidate rounds'."""
        keys = self.method.live_keys()
        return [*keys, *self.keeper.keys()] if self.reports_most_even() else keys

    def result(self) -> Result:
        reported = self.reported_front()
        weights, points, coords, keys = self.front(reported)
        averaged = (
            None
            if reported is not None or points.ndim != 2
            else self.average.estimates(len(points), points.shape[1])
        )
        states = [self.pool.get(k) for k in keys]
        ends = self.verified_ends(points, states)
        return run_result(
            self.method,
            self.progress,
            front=(weights, points, coords),
            states=states,
            reported=reported,
            averaged=None if averaged is None else (averaged, self.spacing(averaged)),
            solver=self.solver,
            settings=self.settings(),
            normalize=self.spacing.kind,
            moving_average=self.average.rate,
            infos=self.last_infos,
            unsuccessful=self.unsuccessful,
            target=self.target,
            front_ends=ends,
            coverage=self.coverage(points, coords, ends),
        )

    def verified_ends(self, points: FloatArray, states: list[Any]) -> FrontEnds | None:
        """The front's ends the result is held to: with two objectives, those found before
        the first round; with three or more, each objective's end solved from the reported
        point where it is least (:func:`~paretosurf.findings.verify_extremes`, for a method
        that :attr:`~paretosurf.loop.Method.verifies_extremes` and a solver that poses ends
        from a state), once per number of rounds: the solves run in this process, count in
        the run's, and a checkpoint keeps the ends (a run read back does not solve them
        again)."""
        if points.ndim != 2 or points.shape[1] < 3:
            return self.ends
        rounds = len(self.progress.history)
        if self.extremes is not None and self.extremes[0] == rounds:
            return self.extremes[1]
        if not self.method.verifies_extremes or rounds == 0:
            return None
        ends = verify_extremes(users_solver(self.solver), points, states)
        if ends is None:
            return None
        self.extremes = (rounds, ends)
        self.progress.n_solves += ends.solves
        return ends

    def coverage(
        self, points: FloatArray, coords: FloatArray, ends: FrontEnds | None = None
    ) -> list[Any]:
        """The ``coverage`` findings of the reported points against the front's ends (see
        :func:`~paretosurf.findings.coverage_finding`; in three or more objectives, against
        the ends of a curve the method knows, :func:`~paretosurf.findings.
        curve_coverage_finding`, and against the ``ends`` verified after the run,
        :func:`~paretosurf.findings.extremes_finding`)."""
        if points.ndim != 2 or len(points) < 2:
            return []
        if points.shape[1] >= 3:
            found = []
            known = self.method.known_ends()
            curve = known is not None and known.shape[1] == points.shape[1]
            if curve:
                assert known is not None
                short = curve_coverage_finding(points, coords, known, self.spacing(known))
                if short is not None:
                    found.append(short)
            if ends is not None and ends.points.shape[1] == points.shape[1] and not found:
                beyond = extremes_finding(
                    points, coords, ends, self.spacing(ends.points), curve=curve
                )
                if beyond is not None:
                    found.append(beyond)
            return found
        if self.ends is None or points.shape[1] != 2:
            return []
        finding = coverage_finding(
            points,
            coords,
            self.ends,
            self.spacing(self.ends.points),
            bounds=self.weight_bounds,
        )
        return [] if finding is None else [finding]

    def state_parts(
        self, final: Result | None = None
    ) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        """The run's state as a checkpoint saves it (see :func:`~paretosurf.loop.
        run_parts`)."""
        assert self.folder is not None
        reported = self.reported_front()
        weights, points, _, keys = self.front(reported)
        return run_parts(
            self.method,
            self.progress,
            self.pool,
            root=self.folder.path,
            settings=self.settings(),
            averages=self.average.to_meta(),
            front=(weights, points, keys),
            reported_round=None if reported is None else reported.round,
            keeper=self.keeper if self.reports_most_even() else None,
            final=final,
            front_ends=self.ends if self.extremes is None else self.extremes[1],
            extremes_rounds=None if self.extremes is None else self.extremes[0],
            fixed_points=self.fixed_points.to_parts(),
        )
