"""The executor contract: an executor of a user's own, written against the
:class:`~paretosurf.executors.Executor` protocol alone, runs a round as the library's do; the
shipped :class:`~paretosurf.testing.ExecutorContract` passes on the library's executors and
on one with only ``solve``, and fails on executors that break it."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.executors import (
    Executor,
    ManagedExecutor,
    SolveOutcome,
    SolveTask,
    execute,
    solves_in,
)
from paretosurf.testing import ExecutorContract, GearKStep

N = 4


class OnlySolve:
    """A user's executor: ``solve`` and nothing else (no start, close, solves_in or map)."""

    def __init__(self) -> None:
        self.rounds = 0

    def solve(
        self, solver: Any, tasks: Sequence[SolveTask], on_done: Any = None
    ) -> list[SolveOutcome]:
        self.rounds += 1
        return [execute(solver, [task], on_done)[0] for task in tasks]


class Neither:
    """Neither ``solve`` nor the older ``map``."""

    def run(self, solver: Any, tasks: Sequence[SolveTask]) -> list[SolveOutcome]:
        raise AssertionError("never called")


def test_an_executor_with_only_solve_runs_a_surf_round() -> None:
    local = ps.surf(GearKStep(), N, iterations=1, executor=ps.LocalExecutor())
    own = OnlySolve()
    res = ps.surf(GearKStep(), N, iterations=1, executor=own)
    assert own.rounds == 1 and res.n_solves == local.n_solves == N + 1
    np.testing.assert_array_equal(res.weights, local.weights)
    np.testing.assert_array_equal(res.points, local.points)
    np.testing.assert_array_equal(
        res.history[0].cdf(np.linspace(0, 1, 11)), local.history[0].cdf(np.linspace(0, 1, 11))
    )


def test_an_executor_with_only_solve_runs_a_whole_run_with_a_folder(tmp_path) -> None:
    local = ps.surf(GearKStep(), N, iterations=3)
    res = ps.surf(
        GearKStep(), N, iterations=3, executor=OnlySolve(), checkpoint=tmp_path, checkpoint_period=0
    )
    np.testing.assert_array_equal(res.points, local.points)
    assert res.success == local.success and res.message == local.message


def test_an_executor_with_neither_solve_nor_map_is_refused() -> None:
    with pytest.raises(
        TypeError,
        match=r"executor must have a solve\(solver, tasks, "
        r"on_done=None\) method .* Neither has none",
    ):
        ps.surf(GearKStep(), N, iterations=1, executor=Neither())


def test_the_library_executors_follow_the_protocol() -> None:
    for executor in (ps.LocalExecutor(), ps.ProcessExecutor(1), ps.RayExecutor()):
        assert isinstance(executor, Executor) and isinstance(executor, ManagedExecutor)
    assert isinstance(OnlySolve(), Executor)  # solve is the whole protocol
    assert not isinstance(OnlySolve(), ManagedExecutor)  # (the run gives it the defaults)
    assert not isinstance(Neither(), Executor)
    assert solves_in(ps.LocalExecutor()) == "process"
    assert solves_in(ps.ProcessExecutor(1)) == "machine"
    assert solves_in(OnlySolve()) == "machine"


def test_where_a_ray_executor_solves_follows_its_address() -> None:
    pytest.importorskip("ray")
    assert solves_in(ps.RayExecutor()) == "machine"
    assert solves_in(ps.RayExecutor(address="auto")) == "cluster"


def test_a_bad_solves_in_is_refused() -> None:
    class Odd(OnlySolve):
        solves_in = "moon"

    with pytest.raises(ValueError, match="solves_in must be one of"):
        ps.surf(GearKStep(), N, iterations=1, executor=Odd())


# ---------------------------------------------------------------------------- the contract
class TestLocalExecutor(ExecutorContract):
    @pytest.fixture
    def executor(self) -> Executor:
        return ps.LocalExecutor()


class TestProcessExecutor(ExecutorContract):
    @pytest.fixture
    def executor(self) -> Iterator[Executor]:
        pool = ps.ProcessExecutor(max_workers=2)
        yield pool
        pool.close()


class TestAnExecutorWithOnlySolve(ExecutorContract):
    @pytest.fixture
    def executor(self) -> Executor:
        return OnlySolve()


@pytest.mark.slow
class TestRayExecutor(ExecutorContract):
    @pytest.fixture
    def executor(self) -> Iterator[Executor]:
        pytest.importorskip("ray")
        ray_executor = ps.RayExecutor(num_cpus=1)
        yield ray_executor
        ray_executor.close()


# ---------------------------------------------------------------------------- broken executors
class Reversed(OnlySolve):
    """Returns the outcomes in reverse order."""

    def solve(self, solver: Any, tasks: Sequence[SolveTask], on_done: Any = None) -> Any:
        return execute(solver, tasks, on_done)[::-1]


class DropsLast(OnlySolve):
    """Loses the last outcome."""

    def solve(self, solver: Any, tasks: Sequence[SolveTask], on_done: Any = None) -> Any:
        return execute(solver, tasks, on_done)[:-1]


class Raises(OnlySolve):
    """Lets a solver's error through instead of returning a failed outcome."""

    def solve(self, solver: Any, tasks: Sequence[SolveTask], on_done: Any = None) -> Any:
        outcomes = []
        for task in tasks:
            sol = solver.solve(task.weight, task.state)
            outcomes.append(SolveOutcome(task.slot, task.weight, sol))
            if on_done is not None:
                on_done(outcomes[-1])
        return outcomes


class FailsTheRound(OnlySolve):
    """Fails every task of a round in which one solve fails."""

    def solve(self, solver: Any, tasks: Sequence[SolveTask], on_done: Any = None) -> Any:
        outcomes = execute(solver, tasks)
        bad = next((o for o in outcomes if not o.ok), None)
        if bad is not None:
            outcomes = [dataclasses.replace(o, solution=None, error=bad.error) for o in outcomes]
        for outcome in outcomes:
            if on_done is not None:
                on_done(outcome)
        return outcomes


class ForgetsTheError(OnlySolve):
    """Returns a failed outcome without its error."""

    def solve(self, solver: Any, tasks: Sequence[SolveTask], on_done: Any = None) -> Any:
        return [dataclasses.replace(o, error=None) for o in execute(solver, tasks, on_done)]


class Silent(OnlySolve):
    """Never calls ``on_done``."""

    def solve(self, solver: Any, tasks: Sequence[SolveTask], on_done: Any = None) -> Any:
        return execute(solver, tasks)


class CallsOnDoneTwice(OnlySolve):
    """Calls ``on_done`` twice per task."""

    def solve(self, solver: Any, tasks: Sequence[SolveTask], on_done: Any = None) -> Any:
        outcomes = execute(solver, tasks, on_done)
        for outcome in outcomes:
            if on_done is not None:
                on_done(outcome)
        return outcomes


class ColdStarts(OnlySolve):
    """Drops the tasks' warm starts."""

    def solve(self, solver: Any, tasks: Sequence[SolveTask], on_done: Any = None) -> Any:
        return execute(solver, [dataclasses.replace(t, state=None) for t in tasks], on_done)


class NoneForNothing(OnlySolve):
    """Returns ``None`` for an empty round."""

    def solve(self, solver: Any, tasks: Sequence[SolveTask], on_done: Any = None) -> Any:
        return execute(solver, tasks, on_done) if tasks else None


class StartsWithoutSaying(ps.LocalExecutor):
    """``start`` returns ``None``, not a bool."""

    def start(self) -> Any:
        return None


class ClosesOnce(ps.LocalExecutor):
    """A second ``close`` raises."""

    closed = False

    def close(self) -> None:
        if self.closed:
            raise RuntimeError("already closed")
        self.closed = True


class OnTheMoon(OnlySolve):
    solves_in = "moon"


class RepeatsTheFirstRound(OnlySolve):
    """Solves its first round right, then answers every later round of the same slots with
    the first round's outcomes (a cache keyed by slot): each single round it is given looks
    right, a whole run does not."""

    def __init__(self) -> None:
        super().__init__()
        self.first: dict[int, SolveOutcome] = {}

    def solve(self, solver: Any, tasks: Sequence[SolveTask], on_done: Any = None) -> Any:
        outcomes = [self.first.get(t.slot) or execute(solver, [t])[0] for t in tasks]
        for outcome in outcomes:
            self.first.setdefault(outcome.slot, outcome)
            if on_done is not None:
                on_done(outcome)
        return outcomes


@pytest.mark.parametrize(
    ("broken", "check"),
    [
        (Reversed, "test_one_outcome_per_task_in_task_order"),
        (DropsLast, "test_one_outcome_per_task_in_task_order"),
        (ColdStarts, "test_one_outcome_per_task_in_task_order"),
        (DropsLast, "test_a_failed_solve_is_an_outcome_and_the_others_succeed"),
        (Raises, "test_a_failed_solve_is_an_outcome_and_the_others_succeed"),
        (FailsTheRound, "test_a_failed_solve_is_an_outcome_and_the_others_succeed"),
        (ForgetsTheError, "test_a_failed_solve_is_an_outcome_and_the_others_succeed"),
        (Silent, "test_on_done_is_called_once_per_task"),
        (CallsOnDoneTwice, "test_on_done_is_called_once_per_task"),
        (NoneForNothing, "test_an_empty_round_returns_an_empty_list"),
        (OnTheMoon, "test_where_the_solves_run_is_known"),
        (StartsWithoutSaying, "test_a_managed_executor_starts_and_closes"),
        (ClosesOnce, "test_a_managed_executor_starts_and_closes"),
        (ColdStarts, "test_a_run_gives_the_local_result"),
        (RepeatsTheFirstRound, "test_a_run_gives_the_local_result"),
    ],
)
def test_the_contract_fails_a_broken_executor(broken: type, check: str) -> None:
    # a broken executor may make a run warn (RepeatsTheFirstRound's points never move): the
    # check must still fail on the results
    with pytest.raises(AssertionError), warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        getattr(ExecutorContract(), check)(broken())


def test_every_check_fails_on_some_broken_executor() -> None:
    """Each check of the contract is shown above to fail on an executor built to break it (a
    new check needs one)."""
    table = test_the_contract_fails_a_broken_executor.pytestmark[0].args[1]
    checks = {name for name in dir(ExecutorContract) if name.startswith("test_")}
    assert {check for _, check in table} == checks


@pytest.mark.parametrize(
    "check",
    [
        name
        for name in dir(ExecutorContract)
        if name.startswith("test_") and name != "test_a_run_gives_the_local_result"
    ],
)
def test_only_a_whole_run_shows_an_executor_that_repeats_a_round(check: str) -> None:
    """:class:`RepeatsTheFirstRound` passes every check of one round: the whole run's check
    is the one that fails it (above), to the last bit of the results."""
    executor = ps.LocalExecutor() if "managed" in check else RepeatsTheFirstRound()
    getattr(ExecutorContract(), check)(executor)


def test_the_start_and_close_check_skips_an_executor_with_only_solve() -> None:
    """Not passed unchecked: skipped, with the reason."""
    with pytest.raises(pytest.skip.Exception, match="not a ManagedExecutor"):
        ExecutorContract().test_a_managed_executor_starts_and_closes(OnlySolve())


@pytest.mark.parametrize(
    "check", [name for name in dir(ExecutorContract) if name.startswith("test_")]
)
def test_each_check_passes_on_the_in_process_executor(check: str) -> None:
    """The other side of the test above: the same check on an honest executor (called the
    same way) passes, so it is the breakage that fails it."""
    if check == "test_a_managed_executor_starts_and_closes":
        getattr(ExecutorContract(), check)(ps.LocalExecutor())
    else:
        getattr(ExecutorContract(), check)(OnlySolve())
