"""A ``solve_many`` batch's solutions are checked at once where all are finite, and one by one
otherwise: a non-finite or malformed solution fails its own task only, named as before."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.executors import SolveTask, execute


class Batch:
    """Returns ``items`` for a batch, whatever the weights."""

    def __init__(self, items: list[Any]) -> None:
        self.items = items

    def solve_many(self, weights: Any, states: Any) -> list[Any]:
        return list(self.items)


def _run(items: list[Any]) -> list[Any]:
    tasks = [SolveTask(i, i / max(len(items) - 1, 1)) for i in range(len(items))]
    return execute(Batch(items), tasks)


def test_a_finite_batch_keeps_its_solutions() -> None:
    sols = [ps.Solution([1.0 - w, w], state=w) for w in (0.0, 0.5, 1.0)]
    out = _run(sols)
    assert [o.ok for o in out] == [True] * 3
    assert all(o.solution is s for o, s in zip(out, sols, strict=True))
    assert [o.slot for o in out] == [0, 1, 2] and out[1].weight == 0.5


def test_a_non_finite_solution_fails_its_task_only() -> None:
    out = _run([ps.Solution([0.0, 1.0]), ps.Solution([np.nan, 0.5]), ps.Solution([1.0, 0.0])])
    assert [o.ok for o in out] == [True, False, True]
    assert (
        out[1].error is not None and "non-finite objectives [nan, 0.5] for slot 1" in out[1].error
    )


def test_a_tuple_in_a_batch_is_converted_and_a_bad_item_named() -> None:
    out = _run([([0.0, 1.0], "s"), ps.Solution([0.5, 0.5]), "no solution"])
    assert out[0].ok and out[0].solution is not None and out[0].solution.state == "s"
    assert out[1].ok and not out[2].ok
    assert out[2].error is not None and "returned str for slot 2" in out[2].error


def test_tasks_compare_and_copy_as_dataclasses() -> None:
    import dataclasses
    import pickle

    task = SolveTask(3, 0.25, state={"x": 1})
    assert task == SolveTask(3, 0.25, {"x": 1}, None)
    assert pickle.loads(pickle.dumps(task)) == task
    assert dataclasses.replace(task, save_to="f").save_to == "f"
    assert repr(task) == "SolveTask(slot=3, weight=0.25, state={'x': 1}, save_to=None)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        task.slot = 4  # type: ignore[misc]
