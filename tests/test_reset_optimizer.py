"""``reset_optimizer=True``: every call starts with fresh Adam moments (as the paper's code
does); by default a slot's moments carry over."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from paretosurf.bench import get_task
from paretosurf.problems import GearToy
from paretosurf.problems.gym import fishwood
from paretosurf.solvers import GradientState


def fresh_copy(state: GradientState) -> GradientState:
    return GradientState(state.params.copy(), np.zeros_like(state.m), np.zeros_like(state.v), 0)


def gear_adam(**kw):
    return GearToy(9).gradient_solver(steps=7, optimizer="adam", **kw)


def fishwood_adam(**kw):
    return fishwood().gradient_solver(steps=7, **kw)


@pytest.mark.parametrize("make", [gear_adam, fishwood_adam],
                         ids=["GradientSolver", "MDPGradientSolver"])
def test_reset_call_equals_a_cold_start_from_the_same_parameters(make) -> None:
    carried, reset = make(), make(reset_optimizer=True)
    first = carried.solve(0.3, None).state
    assert first.t == 7 and np.any(first.m != 0)
    again = reset.solve(0.3, first)
    cold = carried.solve(0.3, fresh_copy(first))
    np.testing.assert_array_equal(again.state.params, cold.state.params)
    np.testing.assert_array_equal(again.objectives, cold.objectives)
    assert again.state.t == 7  # counted from the call's start
    # carried moments continue: a different step, and the step count goes on
    cont = carried.solve(0.3, first)
    assert cont.state.t == 14 and not np.array_equal(cont.state.params, cold.state.params)


def test_batched_mdp_solves_reset_every_slot() -> None:
    solver = fishwood().gradient_solver(steps=5, reset_optimizer=True)
    plain = fishwood().gradient_solver(steps=5)
    states = [s.state for s in plain.solve_many([0.2, 0.8], [None, None])]
    batched = solver.solve_many([0.2, 0.8], states)
    for w, st, sol in zip([0.2, 0.8], states, batched, strict=True):
        np.testing.assert_allclose(sol.state.params, plain.solve(w, fresh_copy(st)).state.params,
                                   rtol=1e-12, atol=1e-14)


def test_task_passes_the_setting_to_its_solver() -> None:
    task = dataclasses.replace(get_task("gear"), reset_optimizer=True)
    assert task.solver(task.make_problem(), "gradient").rule.reset is True
    assert get_task("gear").solver(task.make_problem(), "gradient").rule.reset is False
    with pytest.raises(TypeError, match="reset_optimizer must be a bool"):
        GearToy(9).gradient_solver(steps=3, reset_optimizer="yes")  # type: ignore[arg-type]
