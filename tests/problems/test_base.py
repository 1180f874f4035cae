"""The contract every problem shares: one keyword-only ``gradient_solver`` signature, defaults
held as class attributes, and a base class that says when a problem has only an exact solver."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from paretosurf.problems import (
    BiObjectiveProblem,
    EntropicBandit,
    GearToy,
    Quadratic,
    Quadratic1D,
    RegularizedMDP,
    deep_sea_treasure,
    fishwood,
)
from paretosurf.problems.mdp import MDPGradientSolver
from paretosurf.solvers import GradientState, InnerSolver


def _random_mdp() -> RegularizedMDP:
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(3), size=(3, 2))
    return RegularizedMDP(P, rng.normal(size=(2, 3, 2)), 0.9, np.ones(3) / 3, 0.5)


#: Every problem with a gradient solver, and its documented defaults (lr, optimizer).
PROBLEMS: dict[str, tuple[Callable[[], BiObjectiveProblem], float, str]] = {
    "quadratic": (
        lambda: Quadratic(np.diag([1.0, 4.0]), [1.0, 0.0], np.eye(2), [0.0, 1.0]),
        0.05,
        "adam",
    ),
    "quadratic1d": (lambda: Quadratic1D(1.0, 1.0, 3.0, 0.0), 0.05, "adam"),
    "gear": (lambda: GearToy(9), 0.1, "sgd"),
    "bandit": (EntropicBandit.paper_example, 0.05, "adam"),
    "mdp": (_random_mdp, 0.02, "adam"),
    "fishwood": (fishwood, 0.02, "adam"),
    "dst": (deep_sea_treasure, 0.02, "adam"),
}
NAMES = list(PROBLEMS)


class Line(BiObjectiveProblem):
    """A problem with an exact solver only."""

    def argmin(self, w: float) -> float:
        return w

    def objectives(self, x: Any) -> np.ndarray:
        return np.array([(1.0 - x) ** 2, x**2])


@pytest.fixture(params=NAMES)
def name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_every_gradient_solver_has_the_base_signature(name: str) -> None:
    problem = PROBLEMS[name][0]()
    base = inspect.signature(BiObjectiveProblem.gradient_solver)
    own = inspect.signature(type(problem).gradient_solver)
    assert list(own.parameters) == ["self", "steps", "lr", "optimizer", "init", "reset_optimizer"]
    assert own.parameters == base.parameters  # names, kinds, defaults and annotations
    for param in list(own.parameters.values())[1:]:
        assert param.kind is inspect.Parameter.KEYWORD_ONLY
    assert [p.default for p in list(own.parameters.values())[2:]] == [None, None, None, False]
    with pytest.raises(TypeError):
        problem.gradient_solver(5)  # type: ignore[misc]
    with pytest.raises(TypeError):
        problem.gradient_solver(steps=5, init_logits=None)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        problem.gradient_solver(steps=5, betas=(0.9, 0.99))  # type: ignore[call-arg]


def test_lr_and_optimizer_none_use_the_documented_defaults(name: str) -> None:
    make, lr, optimizer = PROBLEMS[name]
    problem = make()
    assert (type(problem).default_lr, type(problem).default_optimizer) == (lr, optimizer)
    solver: Any = problem.gradient_solver(steps=3)
    assert isinstance(solver, InnerSolver)
    assert (solver.rule.lr, solver.rule.optimizer) == (lr, optimizer)
    explicit: Any = problem.gradient_solver(steps=3, lr=lr, optimizer=optimizer)
    default_sol = solver.solve(0.3, None)
    explicit_sol = explicit.solve(0.3, None)
    np.testing.assert_array_equal(default_sol.objectives, explicit_sol.objectives)
    np.testing.assert_array_equal(default_sol.state.params, explicit_sol.state.params)
    other = "sgd" if optimizer == "adam" else "adam"
    custom: Any = problem.gradient_solver(steps=3, lr=lr / 2, optimizer=other)
    assert (custom.rule.lr, custom.rule.optimizer) == (lr / 2, other)


def test_init_is_an_array_or_a_callable_of_the_weight(name: str) -> None:
    problem = PROBLEMS[name][0]()
    default: Any = problem.gradient_solver(steps=1)
    shape = default.initial_state(0.3).params.shape
    fixed: Any = problem.gradient_solver(steps=1, init=np.full(shape, 0.25))
    np.testing.assert_array_equal(fixed.initial_state(0.3).params, np.full(shape, 0.25))
    per_weight: Any = problem.gradient_solver(steps=1, init=lambda w: np.full(shape, w))
    state = per_weight.initial_state(0.3)
    assert isinstance(state, GradientState)
    np.testing.assert_array_equal(state.params, np.full(shape, 0.3))
    assert per_weight.solve(0.3, None).info["steps"] == 1
    with pytest.raises(ValueError, match="init"):
        problem.gradient_solver(steps=1, init=np.zeros((*shape, 2)))
    with pytest.raises(ValueError, match="init"):
        problem.gradient_solver(steps=1, init=np.full(shape, np.nan))
    with pytest.raises(ValueError, match="init"):
        problem.gradient_solver(steps=1, init=lambda w: np.zeros(7)).initial_state(0.3)


def test_gear_toy_init_may_also_be_a_float() -> None:
    toy = GearToy(4)
    solver: Any = toy.gradient_solver(steps=1, init=0.2)
    np.testing.assert_array_equal(solver.initial_state(0.5).params, [0.2])
    scalar: Any = toy.gradient_solver(steps=1, init=lambda w: 1.0 - w)
    np.testing.assert_array_equal(scalar.initial_state(0.25).params, [0.75])
    with pytest.raises(TypeError, match="init"):
        toy.gradient_solver(steps=1, init=True)
    with pytest.raises(ValueError, match="init"):
        toy.gradient_solver(steps=1, init=float("inf"))


def test_the_base_class_has_only_an_exact_solver() -> None:
    line = Line()
    assert line.solver().solve(0.25, None).objectives.tolist() == [0.5625, 0.0625]
    with pytest.raises(NotImplementedError, match="Line has only an exact solver"):
        line.gradient_solver(steps=10)
    with pytest.raises(NotImplementedError, match="Line"):
        line.gradient_solver(steps=10, lr=0.1, optimizer="sgd", init=np.zeros(1))


def test_mdp_gradient_solver_keeps_adam_constants_in_its_constructor() -> None:
    mdp = _random_mdp()
    solver = MDPGradientSolver(mdp, steps=2, betas=(0.5, 0.9), eps=1e-6)
    assert solver.rule.betas == (0.5, 0.9) and solver.rule.eps == 1e-6
    assert (solver.rule.lr, solver.rule.optimizer) == (0.02, "adam")
    np.testing.assert_allclose(
        mdp.policy_from_logits(solver.initial_state(0.5).params), mdp.ref_policy, atol=1e-15
    )
