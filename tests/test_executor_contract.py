"""The executor contract: an executor of a user's own, written against the
:class:`~paretosurf.executors.Executor` protocol alone, runs a round as the library's do."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from conftest import GearKStep
from paretosurf.executors import Executor, SolveOutcome, SolveTask, execute, solves_in

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
    assert isinstance(ps.LocalExecutor(), Executor)
    assert isinstance(ps.ProcessExecutor(1), Executor)
    assert not isinstance(OnlySolve(), Executor)  # (the run gives it the defaults)
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
