"""The contract suite of an executor (:class:`ExecutorContract`)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from paretosurf.executors import (
    SOLVES_IN,
    Executor,
    ManagedExecutor,
    SolveOutcome,
    SolveTask,
)
from paretosurf.methods import surf
from paretosurf.testing._same_result import assert_same_result
from paretosurf.testing._solvers import GearKStep, QuadraticSolver


class ExecutorContract:
    """The contract suite of an executor: subclass it in a test module and define the
    fixture ``executor`` (an :class:`~paretosurf.executors.Executor`, a fresh one for each
    test). Every check compares with an independent truth: the solver called directly in
    this process, and a run in :class:`~paretosurf.executors.LocalExecutor`.

    It checks that ``solve`` returns one outcome per task, in task order, each holding what
    the solver gives for that task's weight and warm start; that a solve that raises comes
    back as a failed outcome with its error while the other tasks of the round succeed; that
    ``on_done`` is called exactly once per task; that an empty round returns ``[]``; that a
    :class:`~paretosurf.executors.ManagedExecutor` says where its solves run, starts
    (returning a bool), closes (twice, too) and starts again; and that a whole
    :func:`paretosurf.surf` run through it equals the run in this process, to the last bit.
    The solvers (:class:`QuadraticSolver`, :class:`GearKStep`) are defined in this module,
    so they pickle for executors that run solves in other processes or on other machines.

    Class attributes tune the run: :attr:`n_points` and :attr:`rounds`.

    Examples
    --------
    In a test module (the executor's class must be importable by its workers, if it has any):

    .. code-block:: python

        import pytest
        from paretosurf.testing import ExecutorContract
        from mypackage import MyExecutor

        class TestMyExecutor(ExecutorContract):
            @pytest.fixture
            def executor(self):
                return MyExecutor(workers=2)

    The library's executors run it so (``tests/executors/test_executor_contract.py``). A check can
    also be called directly, outside pytest (it raises ``AssertionError`` on a breach):

    >>> from paretosurf.executors import LocalExecutor
    >>> from paretosurf.testing import ExecutorContract
    >>> ExecutorContract().test_one_outcome_per_task_in_task_order(LocalExecutor())
    """

    #: Points of the whole run, and its rounds.
    n_points: int = 5
    rounds: int = 3

    @pytest.fixture
    def executor(self) -> Executor:
        """The executor under test; override it."""
        raise NotImplementedError("define the fixture `executor` returning the executor")

    # -- helpers
    @contextlib.contextmanager
    def in_use(self, executor: Executor) -> Iterator[Executor]:
        """``executor`` started as a run starts it: a
        :class:`~paretosurf.executors.ManagedExecutor` is started, and closed at the end when
        that start acquired its resources."""
        started = executor.start() if isinstance(executor, ManagedExecutor) else False
        try:
            yield executor
        finally:
            if started and isinstance(executor, ManagedExecutor):
                executor.close()

    def tasks(self) -> list[SolveTask]:
        """A round whose slots, weights and warm starts all differ, slots out of order: an
        outcome in the wrong place or solved from the wrong task shows."""
        return [
            SolveTask(3, 0.9, state=0.2),
            SolveTask(0, 0.1),
            SolveTask(2, 0.6, state=0.75),
            SolveTask(1, 0.3, state=0.05),
        ]

    def solve(
        self,
        executor: Executor,
        solver: Any,
        tasks: list[SolveTask],
        on_done: Callable[[SolveOutcome], None] | None = None,
    ) -> list[SolveOutcome]:
        """``executor.solve`` of a started executor; raising is a breach of the contract."""
        with self.in_use(executor):
            try:
                outcomes = executor.solve(solver, tasks, on_done)
            except Exception as exc:
                raise AssertionError(
                    f"{type(executor).__name__}.solve raised {type(exc).__name__}: {exc} "
                    "(a failed solve must come back as an outcome with its error)"
                ) from exc
        assert isinstance(outcomes, list), (
            f"{type(executor).__name__}.solve returned {type(outcomes).__name__}, not a list"
        )
        return outcomes

    def assert_solved(self, outcome: SolveOutcome, task: SolveTask, solver: Any) -> None:
        """``outcome`` is ``task``'s, holding what ``solver`` gives for it here."""
        assert isinstance(outcome, SolveOutcome), f"not a SolveOutcome: {outcome!r}"
        assert (outcome.slot, outcome.weight) == (task.slot, task.weight), (
            f"the outcome of slot {outcome.slot} (weight {outcome.weight}) where slot "
            f"{task.slot} (weight {task.weight}) belongs"
        )
        assert outcome.ok and outcome.error is None, (
            f"the solve of slot {task.slot} failed: {outcome.error}"
        )
        assert outcome.solution is not None
        truth = solver.solve(task.weight, task.state)
        np.testing.assert_array_equal(
            outcome.solution.objectives,
            truth.objectives,
            err_msg=f"slot {task.slot}: not the objectives the solver gives for this task",
        )
        assert outcome.solution.state == truth.state, (
            f"slot {task.slot}: state {outcome.solution.state!r}, the solver gives {truth.state!r}"
        )

    # -- the contract
    def test_one_outcome_per_task_in_task_order(self, executor: Executor) -> None:
        tasks = self.tasks()
        outcomes = self.solve(executor, QuadraticSolver(), tasks)
        assert len(outcomes) == len(tasks), f"{len(outcomes)} outcomes for {len(tasks)} tasks"
        for outcome, task in zip(outcomes, tasks, strict=True):
            self.assert_solved(outcome, task, QuadraticSolver())

    def test_a_failed_solve_is_an_outcome_and_the_others_succeed(self, executor: Executor) -> None:
        solver = QuadraticSolver(fail_at=(0.5,))
        tasks = [SolveTask(0, 0.2), SolveTask(1, 0.5, state=0.3), SolveTask(2, 0.8)]
        outcomes = self.solve(executor, solver, tasks)
        assert len(outcomes) == len(tasks), f"{len(outcomes)} outcomes for {len(tasks)} tasks"
        failed = outcomes[1]
        assert isinstance(failed, SolveOutcome) and (failed.slot, failed.weight) == (1, 0.5)
        assert not failed.ok and failed.solution is None, "the failing solve came back solved"
        assert isinstance(failed.error, str) and failed.error.startswith("ValueError"), (
            f"the error of the failed solve: {failed.error!r}"
        )
        assert "no solution at weight 0.5" in failed.error
        for i in (0, 2):
            self.assert_solved(outcomes[i], tasks[i], QuadraticSolver())

    def test_on_done_is_called_once_per_task(self, executor: Executor) -> None:
        solver = QuadraticSolver(fail_at=(0.6,))  # a failed task finishes too
        tasks = self.tasks()
        seen: list[SolveOutcome] = []
        outcomes = self.solve(executor, solver, tasks, seen.append)
        assert all(isinstance(o, SolveOutcome) for o in seen), "on_done got a non-outcome"
        assert sorted(o.slot for o in seen) == sorted(t.slot for t in tasks), (
            f"on_done was called for slots {[o.slot for o in seen]}, the tasks' are "
            f"{[t.slot for t in tasks]}"
        )
        assert [o.ok for o in outcomes] == [t.weight != 0.6 for t in tasks]
        assert {o.slot: o.ok for o in seen} == {o.slot: o.ok for o in outcomes}

    def test_an_empty_round_returns_an_empty_list(self, executor: Executor) -> None:
        seen: list[SolveOutcome] = []
        solver = QuadraticSolver()
        assert self.solve(executor, solver, [], seen.append) == []
        assert seen == [] and solver.calls == 0

    def test_where_the_solves_run_is_known(self, executor: Executor) -> None:
        where = getattr(executor, "solves_in", "machine")  # an executor with only solve
        assert where in SOLVES_IN, f"solves_in is {where!r}, not one of {SOLVES_IN}"

    def test_a_managed_executor_starts_and_closes(self, executor: Executor) -> None:
        if not isinstance(executor, ManagedExecutor):
            pytest.skip("not a ManagedExecutor: nothing to start or close")
        assert executor.solves_in in SOLVES_IN, (
            f"solves_in is {executor.solves_in!r}, not one of {SOLVES_IN}"
        )

        def close(what: str) -> None:
            try:
                executor.close()
            except Exception as exc:
                raise AssertionError(
                    f"{what} of {type(executor).__name__} raised {type(exc).__name__}: {exc}"
                ) from exc

        tasks = self.tasks()[:2]
        for _ in range(2):  # a second run starts it again
            started = executor.start()
            try:
                assert isinstance(started, bool), f"start() returned {started!r}, not a bool"
                outcomes = executor.solve(QuadraticSolver(), tasks)
                assert len(outcomes) == len(tasks)
                for outcome, task in zip(outcomes, tasks, strict=True):
                    self.assert_solved(outcome, task, QuadraticSolver())
            finally:
                close("close() after start()")
            close("a second close()")  # closing again does nothing

    def test_a_run_gives_the_local_result(self, executor: Executor) -> None:
        local = surf(GearKStep(), n_points=self.n_points, iterations=self.rounds)
        res = surf(GearKStep(), n_points=self.n_points, iterations=self.rounds, executor=executor)
        assert_same_result(res, local)
