"""Soup baseline: exact endpoints, interpolated interior, off-front mixtures, budget, errors.

Truth is computed independently: the quadratics' endpoint minimizers are ``b2`` (at ``w = 0``)
and ``b1`` (at ``w = 1``), objectives by the formula ``(x - b)^T Q (x - b)``, and the exact
front from the closed-form ``Quadratic.front``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.methods._soup import Interpolable, linear_interpolate, soup
from paretosurf.problems import Quadratic

Q1 = np.diag([1.0, 2.0, 0.5])
Q2 = np.diag([3.0, 0.5, 4.0])
B1 = np.array([1.0, 0.0, -1.0])
B2 = np.array([0.0, 2.0, 1.0])


def h(x: np.ndarray) -> np.ndarray:
    return np.array([(x - B1) @ Q1 @ (x - B1), (x - B2) @ Q2 @ (x - B2)])


@pytest.fixture
def prob() -> Quadratic:
    return Quadratic(Q1, B1, Q2, B2)


def test_endpoints_exact_and_interior_is_the_evaluated_mixture(prob: Quadratic) -> None:
    res = soup(prob.solver(), 5, iterations=1, evaluate=prob.objectives)
    np.testing.assert_allclose(res.weights, np.arange(6) / 5, atol=0)
    np.testing.assert_allclose(res.states[0], B2, atol=1e-12)  # argmin of h2 alone
    np.testing.assert_allclose(res.states[-1], B1, atol=1e-12)  # argmin of h1 alone
    np.testing.assert_allclose(res.points[0], [h(B2)[0], 0.0], atol=1e-12)
    np.testing.assert_allclose(res.points[-1], [0.0, h(B1)[1]], atol=1e-12)
    for n in range(1, 5):
        t = n / 5
        x = (1 - t) * B2 + t * B1
        np.testing.assert_allclose(res.states[n], x, atol=1e-12)
        np.testing.assert_allclose(res.points[n], h(x), atol=1e-12)


def test_interpolated_points_are_dominated_off_the_front(prob: Quadratic) -> None:
    res = soup(prob.solver(), 4, iterations=1, evaluate=prob.objectives)
    front = prob.front(np.linspace(0, 1, 4001))
    for y in res.points[1:-1]:
        # the best front point dominating y by a margin delta in both objectives; since no
        # Pareto point is dominated by it, every front point is >= delta away (max norm) from y
        margins = np.min(y - front, axis=1)
        delta = float(np.max(margins))
        assert delta > 0.05
        dist = float(np.min(np.linalg.norm(front - y, axis=1)))
        assert dist >= delta


def test_equal_isotropic_curvatures_put_the_soup_on_the_front() -> None:
    # with Q1 = Q2 = c I the LS minimizer is w b1 + (1 - w) b2: the mixture IS the solution
    prob = Quadratic(2 * np.eye(3), B1, 2 * np.eye(3), B2)
    res = soup(prob.solver(), 6, iterations=1, evaluate=prob.objectives)
    np.testing.assert_allclose(res.points, prob.front(np.arange(7) / 6), atol=1e-12)


class CountingSolver:
    """Exact endpoint solutions of the quadratics; state = (x, number of calls so far)."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, Any]] = []
        self.batches = 0

    def solve(self, w: float, state: Any) -> ps.Solution:
        self.calls.append((w, state))
        depth = state[1] + 1 if isinstance(state, tuple) else 0
        x = B1 if w == 1.0 else B2
        return ps.Solution(h(x), state=(x, depth), info={"steps": 3})

    def solve_many(self, weights: np.ndarray, states: list[Any]) -> list[ps.Solution]:
        self.batches += 1
        return [self.solve(float(w), s) for w, s in zip(weights, states, strict=True)]


def test_budget_is_two_slots_times_iterations() -> None:
    solver = CountingSolver()
    res = soup(
        solver,
        4,
        iterations=7,
        init_states=["s0", "s1"],
        interpolate=lambda a, b, t: (1 - t) * a[0] + t * b[0],
        evaluate=h,
    )
    assert res.n_solves == len(solver.calls) == 14 and res.n_steps == 42
    assert solver.batches == 7
    assert [w for w, _ in solver.calls] == [0.0, 1.0] * 7
    assert [s for _, s in solver.calls[:2]] == ["s0", "s1"]
    # each endpoint continues its own warm-start chain
    assert solver.calls[12][1][1] == 5 and solver.calls[13][1][1] == 5
    np.testing.assert_allclose(solver.calls[13][1][0], B1)
    assert len(res.history) == 7
    assert all(r.weights.tolist() == [0.0, 1.0] for r in res.history[:-1])
    assert res.history[-1].weights.size == 5 and res.history[-1].n_solves == 14
    np.testing.assert_allclose(res.points[2], h(0.5 * (B1 + B2)), atol=1e-12)


def test_gradient_solver_with_parameter_interpolation(prob: Quadratic) -> None:
    solver = prob.gradient_solver(steps=20, lr=0.05, optimizer="sgd")
    res = soup(
        solver,
        3,
        iterations=30,
        interpolate=lambda a, b, t: (1 - t) * a.params + t * b.params,
        evaluate=prob.objectives,
    )
    assert res.n_solves == 60 and res.n_steps == 60 * 20
    np.testing.assert_allclose(res.states[0].params, B2, atol=1e-8)
    np.testing.assert_allclose(res.states[-1].params, B1, atol=1e-8)
    np.testing.assert_allclose(res.points[1], h((2 * B2 + B1) / 3), atol=1e-6)


class MixingSolver(CountingSolver):
    """A solver that offers the Interpolable protocol itself (mixes in a warped way)."""

    def interpolate(self, s0: Any, s1: Any, t: float) -> np.ndarray:
        return (1 - t**2) * s0[0] + t**2 * s1[0]

    def evaluate(self, state: np.ndarray) -> np.ndarray:
        return h(state)


def test_protocol_from_solver_and_from_interpolator() -> None:
    solver = MixingSolver()
    assert isinstance(solver, Interpolable)
    res = soup(solver, 2, iterations=1)
    np.testing.assert_allclose(res.states[1], 0.75 * B2 + 0.25 * B1)

    class Linear:
        def interpolate(self, s0: Any, s1: Any, t: float) -> np.ndarray:
            return (1 - t) * s0[0] + t * s1[0]

    # an interpolator's method wins over the solver's; evaluate still comes from the solver
    res = soup(MixingSolver(), 2, iterations=1, interpolator=Linear())
    np.testing.assert_allclose(res.states[1], 0.5 * (B1 + B2))
    np.testing.assert_allclose(res.points[1], h(0.5 * (B1 + B2)))


def test_linear_interpolate_default_on_array_states(prob: Quadratic) -> None:
    np.testing.assert_allclose(linear_interpolate(np.zeros(2), np.ones(2), 0.3), [0.3, 0.3])
    res = soup(
        prob.solver(), 2, iterations=1, evaluate=prob.objectives, init_states=[None, None, None]
    )
    np.testing.assert_allclose(res.states[1], 0.5 * (B1 + B2), atol=1e-12)


def test_progress_bar(prob: Quadratic, capsys: pytest.CaptureFixture[str]) -> None:
    soup(prob.solver(), 2, iterations=2, evaluate=prob.objectives, progress=True)
    assert "Soup" in capsys.readouterr().err


def test_bad_input(prob: Quadratic) -> None:
    exact = prob.solver()
    with pytest.raises(ValueError, match="n_segments"):
        soup(exact, 0, evaluate=prob.objectives)
    with pytest.raises(ValueError, match="iterations"):
        soup(exact, 3, iterations=0, evaluate=prob.objectives)
    with pytest.raises(TypeError, match="evaluate"):
        soup(exact, 3)
    with pytest.raises(TypeError, match="interpolate must be callable"):
        soup(exact, 3, interpolate=1.0, evaluate=prob.objectives)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="interpolator must have"):
        soup(exact, 3, interpolator=object(), evaluate=prob.objectives)
    with pytest.raises(ValueError, match="init_states"):
        soup(exact, 3, init_states=[None] * 3, evaluate=prob.objectives)
    with pytest.raises(TypeError, match="numeric array states"):
        soup(
            lambda w, s: ps.Solution([w, 1 - w], state={"w": w}),
            3,
            iterations=1,
            evaluate=lambda s: [0.0, 1.0],
        )
    with pytest.raises(ValueError, match="shapes"):
        linear_interpolate(np.zeros(2), np.zeros(3), 0.5)


def test_evaluate_failures_name_slot_and_weight(prob: Quadratic) -> None:
    exact = prob.solver()
    with pytest.raises(ps.InnerSolverError, match=r"slot 1 \(weight 0\.25\).*finite") as info:
        soup(exact, 4, iterations=1, evaluate=lambda x: [np.nan, 1.0])
    assert info.value.slot == 1 and info.value.weight == 0.25
    with pytest.raises(ps.InnerSolverError, match="expected 2 finite objectives"):
        soup(exact, 4, iterations=1, evaluate=lambda x: [1.0, 2.0, 3.0])

    def boom(x: Any) -> Any:
        raise RuntimeError("no simulator")

    with pytest.raises(ps.InnerSolverError, match=r"evaluate raised RuntimeError.*slot 1"):
        soup(exact, 2, iterations=1, evaluate=boom)
    with pytest.raises(ps.InnerSolverError, match=r"interpolate raised.*slot 1"):
        soup(exact, 2, iterations=1, evaluate=prob.objectives, interpolate=lambda a, b, t: boom(a))


def test_gradient_solver_offers_the_soup_protocol(prob: Quadratic) -> None:
    solver = prob.gradient_solver(steps=400, lr=0.05)
    res = soup(solver, 4, iterations=3)
    end0 = solver.solve(0.0, None).state
    for _ in range(2):
        end0 = solver.solve(0.0, end0).state
    end1 = solver.solve(1.0, None).state
    for _ in range(2):
        end1 = solver.solve(1.0, end1).state
    mid = 0.5 * (end0.params + end1.params)
    np.testing.assert_allclose(res.points[2], prob.objectives(mid), rtol=1e-12)
    assert res.n_solves == 6
