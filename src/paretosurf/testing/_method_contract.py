"""The contract suite of a method (:class:`MethodContract`) and the method under test
(:class:`Candidate`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paretosurf.executors import ProcessExecutor
from paretosurf.findings import DEFAULT_TARGETS
from paretosurf.loop import Method, run
from paretosurf.result import IterationRecord, Result
from paretosurf.solvers import InnerSolverError
from paretosurf.storage import RunFolder
from paretosurf.testing._same_result import assert_same_result
from paretosurf.testing._solvers import (
    BowlKStep,
    FailingSolver,
    GearKStep,
    Interrupt,
    interrupt_after,
)


@dataclass(frozen=True)
class Candidate:
    """A method under test: how to run it with the budget of some rounds.

    Attributes
    ----------
    name : str
        The name its results record (``Method.name``).
    run : callable
        ``run(solver, n_points, n_objectives, *, rounds, **keywords) -> Result``: a run of
        ``n_points`` points (at most) with the budget of ``rounds`` rounds; ``keywords`` are
        loop options and ``init_states``. Every :class:`paretosurf.methods.MethodInfo` is
        such a callable.
    simplex : bool
        Whether it handles three objectives (weights on the simplex); else two.
    keywords : mapping
        Keywords of every run (a ``seed``, so that two runs give the same result).
    """

    name: str
    run: Callable[..., Result]
    simplex: bool = False
    keywords: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, make: Callable[[int, int], Method], *, simplex: bool = False) -> Candidate:
        """The candidate of a :class:`~paretosurf.Method` subclass: ``make(n_points,
        n_objectives)`` builds a fresh instance, run by :func:`paretosurf.run`."""

        def run_it(
            solver: Any, n_points: int, n_objectives: int = 2, *, rounds: int, **keywords: Any
        ) -> Result:
            return run(make(n_points, n_objectives), solver, iterations=rounds, **keywords)

        return cls(make(2 if not simplex else 3, 2 if not simplex else 3).name, run_it, simplex)

    @classmethod
    def from_registry(cls, name: str) -> Candidate:
        """The registry's method ``name`` (:func:`paretosurf.methods.get_method`)."""
        from paretosurf.methods import get_method

        info = get_method(name)
        return cls(info.name, info, info.simplex, {"seed": 0} if info.takes("seed") else {})


def _no_constant(name: str) -> Any:
    raise AssertionError(f"the saved result holds {name}, which strict JSON has not")


class MethodContract:
    """The contract suite: subclass it in a test module and define the fixture ``method``
    (a :class:`Candidate`). Tiny problems, a few rounds each.

    Class attributes tune it: :attr:`n_points` and :attr:`rounds` for the runs,
    :attr:`early_stop_rounds` for the run that may stop early, :attr:`check_processes` to
    skip the process-pool test (it starts two processes).

    A check that does not apply to the method skips with its reason (never passes without
    checking): the early-stop test for a method that did not stop early, the process-pool
    test with ``check_processes = False``.
    """

    #: Points of the runs with two objectives, and with three.
    n_points: tuple[int, int] = (5, 6)
    #: Other numbers of points, which resuming a run of :attr:`n_points` must refuse (10:
    #: a lattice size for three objectives, as Das-Dennis needs).
    other_n_points: tuple[int, int] = (6, 10)
    #: Rounds of budget of each run.
    rounds: int = 3
    #: Rounds of budget of the run whose early stop (``stop_reason == "done"``) is checked.
    early_stop_rounds: int = 20
    #: Whether to compare a run in a pool of two processes with one in this process.
    check_processes: bool = True

    @pytest.fixture
    def method(self) -> Candidate:
        """The method under test; override it."""
        raise NotImplementedError("define the fixture `method` returning a Candidate")

    # -- helpers
    def solver(self, method: Candidate) -> Any:
        return BowlKStep() if method.simplex else GearKStep()

    def size(self, method: Candidate) -> tuple[int, int]:
        return (self.n_points[1], 3) if method.simplex else (self.n_points[0], 2)

    def go(self, method: Candidate, solver: Any = None, **keywords: Any) -> Result:
        n, m = self.size(method)
        keywords = {"rounds": self.rounds, **method.keywords, **keywords}
        return method.run(self.solver(method) if solver is None else solver, n, m, **keywords)

    # -- the contract
    def test_budget_counts_every_solver_call(self, method: Candidate) -> None:
        solver = self.solver(method)
        res = self.go(method, solver)
        assert res.n_solves == solver.calls > 0, (
            f"the result counts {res.n_solves} solves, the solver was called {solver.calls} times"
        )
        assert res.n_steps == solver.steps * solver.calls, (
            f"the result counts {res.n_steps} steps, the solver took {solver.steps * solver.calls}"
        )
        budget = self.rounds * self.size(method)[0]
        assert solver.calls <= budget, (
            f"{solver.calls} solves, over the budget of {self.rounds} rounds ({budget})"
        )
        counts = [r.n_solves for r in res.history]
        assert counts == sorted(counts) and counts[-1] == res.n_solves, (
            f"the records count {counts} solves, the result {res.n_solves}"
        )
        assert [r.iteration for r in res.history] == list(range(len(res.history))), (
            "the records are not rounds 0, 1, ..."
        )

    def test_result_is_consistent(self, method: Candidate) -> None:
        solver = self.solver(method)
        res = self.go(method, solver)
        n, m = self.size(method)
        w, pts = res.weights, res.points
        assert res.method == method.name, f"the result's method is {res.method!r}"
        assert pts.shape == (len(w), m) and len(res.states) == len(w) <= n, (
            f"{len(w)} weights, points of shape {pts.shape} and {len(res.states)} states "
            f"(at most {n} points of {m} objectives)"
        )
        assert np.isfinite(pts).all(), "points not finite"
        # independent check: the objectives of each returned state are the returned point
        np.testing.assert_allclose(
            np.stack([solver.evaluate(s) for s in res.states]),
            pts,
            rtol=0,
            atol=1e-12,
            err_msg="the returned states are not the returned points'",
        )
        if m == 2:
            assert w[0] == 0.0 and w[-1] == 1.0 and np.all(np.diff(w) > 0), (
                f"weights not increasing from 0 to 1: {w.tolist()}"
            )
        else:
            np.testing.assert_allclose(
                w.sum(axis=1), 1.0, atol=1e-12, err_msg="weights off the simplex"
            )
            assert (w >= 0).all(), "negative weights"
        assert res.stop_reason in (
            "iterations",
            "method",
            "converged",
            "done",
            "one_point",
            "stuck",
        ), f"stop_reason {res.stop_reason!r} of a run that was not stopped"
        # the result holds the weights and points of the round it reports
        reported = res.history[-1 if res.reported_round is None else res.reported_round]
        np.testing.assert_array_equal(
            res.weights, reported.weights, err_msg="not the weights of the reported round"
        )
        np.testing.assert_array_equal(
            res.points, reported.points, err_msg="not the points of the reported round"
        )

    def test_an_early_stop_meets_the_target(self, method: Candidate) -> None:
        res = self.go(method, rounds=self.early_stop_rounds, early_stopping=True)
        if res.stop_reason != "done":
            pytest.skip(
                f"{method.name} did not stop early in {self.early_stop_rounds} rounds "
                f"(stop_reason {res.stop_reason!r}): no early stop to check"
            )
        target = DEFAULT_TARGETS["curve" if self.size(method)[1] == 2 else "surface"]
        assert res.history[-1].gap_ratio <= target, (
            f"stopped early ('done') with a gap ratio of {res.history[-1].gap_ratio}, "
            f"above the target {target}"
        )

    def test_same_input_same_result(self, method: Candidate) -> None:
        assert_same_result(self.go(method), self.go(method))

    def test_callback_returning_true_stops_after_that_round(self, method: Candidate) -> None:
        seen: list[int] = []

        def stop_second(record: IterationRecord) -> bool:
            seen.append(record.iteration)
            return record.iteration == 1

        res = self.go(method, callback=stop_second)
        assert seen == [0, 1] and len(res.history) == 2 and res.stop_reason == "callback", (
            f"a callback returning True after round 1: called after rounds {seen}, "
            f"{len(res.history)} rounds run, stop_reason {res.stop_reason!r}"
        )

    @pytest.mark.parametrize(
        ("keywords", "error", "match"),
        [
            ({"callback": 3}, TypeError, "callback"),
            ({"resume": True}, ValueError, "checkpoint"),
            ({"overwrite": True}, ValueError, "checkpoint"),
            ({"executor": object()}, TypeError, "executor"),
            ({"init_states": [None] * 3}, ValueError, "init_states"),
            ({"retries": -1}, ValueError, "retries"),
        ],
    )
    def test_bad_loop_keywords_are_refused(
        self, method: Candidate, keywords: dict[str, Any], error: type[Exception], match: str
    ) -> None:
        solver = self.solver(method)
        with pytest.raises(error, match=match):
            self.go(method, solver, **keywords)
        assert solver.calls == 0, f"{solver.calls} solves before the refusal"

    def test_killed_run_resumes_to_the_uninterrupted_result(
        self, method: Candidate, tmp_path: Path
    ) -> None:
        full = self.go(method)
        killed = self.solver(method)
        with pytest.raises(Interrupt):
            self.go(
                method,
                killed,
                checkpoint=tmp_path,
                callback=interrupt_after(2),
                checkpoint_period=0,
            )
        again = self.solver(method)
        resumed = self.go(method, again, checkpoint=tmp_path, resume=True)
        assert_same_result(resumed, full)
        assert killed.calls + again.calls == full.n_solves  # no round solved twice
        assert_same_result(Result.load(tmp_path), full)  # the folder holds the result

    def test_resuming_a_finished_run_solves_nothing(
        self, method: Candidate, tmp_path: Path
    ) -> None:
        done = self.go(method, checkpoint=tmp_path)
        never = self.solver(method)  # the run's solver (another would be refused), made to fail
        never.solve = FailingSolver().solve
        try:
            again = self.go(method, never, checkpoint=tmp_path, resume=True)
        except InnerSolverError as exc:  # the driver's word for the failing solve
            raise AssertionError(f"resuming the finished run solved again: {exc}") from exc
        assert_same_result(again, done)

    def test_resuming_with_other_settings_is_refused(
        self, method: Candidate, tmp_path: Path
    ) -> None:
        self.go(method, checkpoint=tmp_path, callback=lambda r: True)
        m = self.size(method)[1]
        other = self.other_n_points[1 if method.simplex else 0]
        with pytest.raises(ValueError, match="in the checkpoint"):
            method.run(
                self.solver(method),
                other,
                m,
                rounds=self.rounds,
                checkpoint=tmp_path,
                resume=True,
                **method.keywords,
            )

    def test_a_folder_holding_a_run_is_never_overwritten_by_accident(
        self, method: Candidate, tmp_path: Path
    ) -> None:
        first = self.go(method, checkpoint=tmp_path)
        (tmp_path / "notes.txt").write_text("mine")
        with pytest.raises(FileExistsError, match=str(tmp_path)):
            self.go(method, checkpoint=tmp_path)
        assert_same_result(Result.load(tmp_path), first)  # untouched
        short = self.go(
            method, checkpoint=tmp_path, overwrite=True, callback=lambda r: r.iteration == 0
        )
        notes = tmp_path / "notes.txt"  # not a file of the run: left alone
        assert notes.is_file() and notes.read_text() == "mine", "overwrite removed notes.txt"
        assert len(short.history) == 1
        assert_same_result(Result.load(tmp_path), short)
        assert RunFolder(tmp_path).n_rounds() == 1

    def test_save_and_load_round_trip(self, method: Candidate, tmp_path: Path) -> None:
        res = self.go(method)
        json_path, _ = res.save(tmp_path / "run")
        meta = json.loads(json_path.read_text(), parse_constant=_no_constant)  # strict JSON
        assert meta["method"] == method.name, f"saved as method {meta['method']!r}"
        assert meta["settings"] == res.settings, (
            f"the settings {res.settings} were saved as {meta['settings']}"
        )
        assert_same_result(Result.load(tmp_path / "run"), res)

    def test_process_executor_gives_the_local_result(self, method: Candidate) -> None:
        if not self.check_processes:
            pytest.skip("check_processes is False")
        assert_same_result(self.go(method, executor=ProcessExecutor(2)), self.go(method))
