"""paretosurf.adapters: inner solvers from plain objectives (scipy, pymoo, torch), checked
against closed-form minimizers and fronts, not against the adapters' own output."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest
from scipy import spatial
from scipy.optimize import NonlinearConstraint

import paretosurf as ps
from paretosurf.adapters import Scalarization, from_pymoo, from_scipy, from_torch
from paretosurf.storage._states import encode_states
from support import needs_scipy_116_slsqp

# -- test problems (module level, so that solvers built on them pickle) --------------------

RNG = np.random.default_rng(7)
_A = RNG.normal(size=(3, 3))
Q1 = _A @ _A.T + 0.5 * np.eye(3)
Q2 = np.diag([4.0, 1.0, 0.25])
A = np.array([1.0, 0.0, -1.0])
B = np.array([-1.0, 2.0, 0.5])
X0 = np.zeros(3)


def quad(x: np.ndarray) -> np.ndarray:
    """Two convex quadratics ``(x - a)' Q1 (x - a)`` and ``(x - b)' Q2 (x - b)``."""
    return np.array([(x - A) @ Q1 @ (x - A), (x - B) @ Q2 @ (x - B)])


def quad_jac(x: np.ndarray) -> np.ndarray:
    return np.stack([2 * Q1 @ (x - A), 2 * Q2 @ (x - B)])


def quad_argmin(w: float) -> np.ndarray:
    """Closed-form minimizer of ``w h1 + (1 - w) h2``."""
    return np.linalg.solve(w * Q1 + (1 - w) * Q2, w * Q1 @ A + (1 - w) * Q2 @ B)


def zdt2(x: np.ndarray) -> np.ndarray:
    """ZDT2 (concave front f2 = 1 - f1^2 at g = 1, reached with x2..xn = 0) on [0, 1]^n."""
    g = 1.0 + 9.0 * np.mean(x[1:])
    return np.array([x[0], g * (1.0 - (x[0] / g) ** 2)])


N_ZDT = 8
ZDT_BOUNDS = [(0.0, 1.0)] * N_ZDT
ZDT_X0 = np.full(N_ZDT, 0.5)


def tchebycheff_f1(w: np.ndarray | float) -> np.ndarray:
    """Front point of f2 = 1 - f1^2 on the Tchebycheff ray from z = (0, 0): w f1 = (1 - w) f2,
    i.e. (1 - w) f1^2 + w f1 - (1 - w) = 0, for w in [0, 1)."""
    w = np.asarray(w, dtype=np.float64)
    return (-w + np.sqrt(w**2 + 4 * (1 - w) ** 2)) / (2 * (1 - w))


def three_objectives(x: np.ndarray) -> np.ndarray:
    return np.array([x[0], x[0] ** 2, 1.0])


# -- scalarizations ------------------------------------------------------------------------


def test_scalarization_values_match_the_formulas() -> None:
    h, z = np.array([2.0, 5.0]), np.array([1.0, 1.0])
    assert Scalarization("linear")(h, 0.3) == pytest.approx(0.3 * 2 + 0.7 * 5)
    tch = Scalarization("tchebycheff", ideal=z, rho=0.01)
    assert tch(h, 0.3) == pytest.approx(max(0.3 * 1, 0.7 * 4) + 0.01 * (0.3 * 1 + 0.7 * 4))
    mod = Scalarization("modified_tchebycheff", ideal=z, rho=0.0)
    assert mod(h, 0.3) == pytest.approx(max(1 / 0.7, 4 / 0.3))  # ray direction (1 - w, w)
    # zero coefficients at the ends are floored, so both ends stay finite and well defined
    assert np.all(np.isfinite([mod(h, 0.0), mod(h, 1.0), tch(h, 0.0), tch(h, 1.0)]))
    batch = np.array([[2.0, 5.0], [1.5, 1.5]])
    np.testing.assert_allclose(mod(batch, 0.3), [mod(batch[0], 0.3), mod(batch[1], 0.3)])


def test_tchebycheff_needs_an_ideal_and_bad_kinds_are_refused() -> None:
    with pytest.raises(ValueError, match="ideal"):
        Scalarization("tchebycheff")([1.0, 2.0], 0.5)
    with pytest.raises(ValueError, match="scalarization must be one of"):
        Scalarization("chebyshev")
    with pytest.raises(ValueError, match="rho"):
        Scalarization("tchebycheff", rho=-1.0)
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
        Scalarization("linear").coefficients(1.5)


# -- from_scipy: linear scalarization ------------------------------------------------------


@pytest.mark.parametrize("w", [0.0, 0.2, 0.5, 0.9, 1.0])
def test_linear_full_solve_reaches_the_closed_form_minimizer(w: float) -> None:
    solver = from_scipy(quad, X0, jac=quad_jac, options={"ftol": 1e-15, "gtol": 1e-12})
    sol = solver.solve(w, None)
    np.testing.assert_allclose(sol.state, quad_argmin(w), atol=1e-6)
    np.testing.assert_allclose(sol.objectives, quad(quad_argmin(w)), atol=1e-8)
    assert sol.info["success"] and sol.info["steps"] >= 1 and sol.info["nfev"] >= 1


def test_linear_with_finite_differences_and_slsqp_reach_it_too() -> None:
    for method in ("L-BFGS-B", "SLSQP"):
        sol = from_scipy(quad, X0, method=method).solve(0.4, None)
        np.testing.assert_allclose(sol.state, quad_argmin(0.4), atol=1e-4)


def test_k_step_solver_is_inexact_but_converges_under_warm_starts() -> None:
    solver = from_scipy(quad, X0, jac=quad_jac, steps=2)
    target = quad_argmin(0.3)
    sol = solver.solve(0.3, None)
    assert sol.info["steps"] <= 2
    errors = [np.linalg.norm(sol.state - target)]
    assert errors[0] > 1e-2  # two iterations do not solve it
    for _ in range(40):
        sol = solver.solve(0.3, sol.state)
        assert sol.info["steps"] <= 2
        errors.append(np.linalg.norm(sol.state - target))
    assert errors[-1] < 1e-5
    assert errors[10] < errors[0]


def test_warm_start_state_is_the_decision_vector_and_a_call_continues_from_it() -> None:
    solver = from_scipy(quad, X0, jac=quad_jac, steps=1)
    first = solver.solve(0.6, None)
    assert isinstance(first.state, np.ndarray) and first.state.dtype == np.float64
    assert first.state.shape == X0.shape
    np.testing.assert_allclose(quad(first.state), first.objectives)
    second = solver.solve(0.6, first.state)
    cold = solver.solve(0.6, None)
    np.testing.assert_array_equal(cold.state, first.state)  # deterministic cold start
    target = quad_argmin(0.6)
    assert np.linalg.norm(second.state - target) < np.linalg.norm(first.state - target)
    assert second.info["value"] < first.info["value"]


def test_surf_end_to_end_on_the_quadratic_pair() -> None:
    res = ps.surf(from_scipy(quad, X0, jac=quad_jac), 10, iterations=15)
    # the run's CV, in the coordinates it spaces the points in
    assert res.history[-1].cv < 0.02
    assert res.history[0].cv > 0.1  # uniform weights are uneven here: SURF did the work
    # every point is the closed-form LS minimizer of its weight
    for w, p in zip(res.weights, res.points, strict=True):
        np.testing.assert_allclose(p, quad(quad_argmin(w)), rtol=1e-4, atol=1e-8)


def test_baselines_accept_the_adapter_solvers() -> None:
    solver = from_scipy(quad, X0, jac=quad_jac)
    res = ps.methods.uniform(solver, 4, iterations=2)
    for w, p in zip(res.weights, res.points, strict=True):
        np.testing.assert_allclose(p, quad(quad_argmin(w)), rtol=1e-4, atol=1e-8)
    soup = ps.methods.soup(solver, 4, iterations=2)  # evaluates mixed decision vectors
    mid = (quad_argmin(0.0) + quad_argmin(1.0)) / 2
    np.testing.assert_allclose(soup.points[2], quad(mid), rtol=1e-4, atol=1e-8)


def test_a_scalarization_instance_carries_its_own_settings() -> None:
    sc = Scalarization("modified_tchebycheff", rho=0.0, floor=1e-3)
    solver = from_scipy(quad, X0, jac=quad_jac, scalarization=sc)
    assert solver.scalarization.rho == 0.0 and solver.scalarization.floor == 1e-3
    assert solver.ideal is not None  # estimated, as for the name
    with pytest.raises(ValueError, match="inside the Scalarization"):
        from_scipy(quad, X0, scalarization=sc, rho=0.1)


# -- from_scipy: Tchebycheff scalarizations ------------------------------------------------


def test_ideal_estimated_from_the_endpoints_is_just_below_the_minima() -> None:
    # true minima: 0 for both quadratics (at a and b) and for both ZDT2 objectives
    quad_solver = from_scipy(quad, X0, jac=quad_jac, scalarization="tchebycheff")
    zdt_solver = from_scipy(zdt2, ZDT_X0, bounds=ZDT_BOUNDS, scalarization="modified_tchebycheff")
    for solver in (quad_solver, zdt_solver):
        assert solver.ideal is not None
        assert np.all(solver.ideal < 0.0)
        assert np.all(solver.ideal > -1e-3)
    assert from_scipy(quad, X0).ideal is None  # linear needs none


@pytest.mark.parametrize("kind", ["tchebycheff", "modified_tchebycheff"])
def test_tchebycheff_reaches_the_concave_front_where_linear_gives_only_its_ends(kind: str) -> None:
    weights = np.linspace(0.0, 1.0, 11)
    linear = from_scipy(zdt2, ZDT_X0, bounds=ZDT_BOUNDS, scalarization="linear")
    lin_f1 = np.array([linear.solve(w, None).objectives[0] for w in weights[1:-1]])
    assert np.all((lin_f1 < 1e-6) | (lin_f1 > 1 - 1e-6))  # only the two extremes

    solver = from_scipy(zdt2, ZDT_X0, bounds=ZDT_BOUNDS, scalarization=kind)
    points = np.array([solver.solve(w, None).objectives for w in weights])
    # every point on the true front g = 1, f2 = 1 - f1^2
    np.testing.assert_allclose(points[:, 1], 1.0 - points[:, 0] ** 2, atol=1e-5)
    interior = (points[1:-1, 0] > 0.05) & (points[1:-1, 0] < 0.95)
    assert interior.sum() >= 7
    # monotone along the front: objective 1 non-increasing, objective 2 non-decreasing in w
    assert np.all(np.diff(points[:, 0]) <= 1e-7)
    assert np.all(np.diff(points[:, 1]) >= -1e-7)
    # w = 0 minimizes objective 2, w = 1 objective 1 (the library's orientation)
    np.testing.assert_allclose(points[0], [1.0, 0.0], atol=1e-5)
    np.testing.assert_allclose(points[-1], [0.0, 1.0], atol=1e-5)


@pytest.mark.parametrize("kind", ["tchebycheff", "modified_tchebycheff"])
def test_tchebycheff_point_lies_on_the_documented_ray(kind: str) -> None:
    # with z = (0, 0) and no augmentation the point solves w f1 = (1 - w) f2 on f2 = 1 - f1^2
    solver = from_scipy(
        zdt2,
        ZDT_X0,
        bounds=ZDT_BOUNDS,
        scalarization=kind,
        ideal=[0.0, 0.0],
        rho=0.0,
        options={"ftol": 1e-12},
    )
    for w in (0.1, 0.3, 0.5, 0.7, 0.95):
        f1 = solver.solve(w, None).objectives[0]
        assert f1 == pytest.approx(tchebycheff_f1(w), abs=1e-5)


@pytest.mark.parametrize("kind", ["tchebycheff", "modified_tchebycheff"])
def test_surf_with_tchebycheff_spaces_points_evenly_along_a_concave_front(kind: str) -> None:
    solver = from_scipy(zdt2, ZDT_X0, bounds=ZDT_BOUNDS, scalarization=kind, steps=3)
    res = ps.surf(solver, 10, iterations=20)
    points = res.points
    np.testing.assert_allclose(points[:, 1], 1.0 - points[:, 0] ** 2, atol=1e-5)
    assert ps.metrics.cv(points) < 0.01  # both objectives span [0, 1]: raw = normalized
    np.testing.assert_allclose(points[[0, -1]], [[1.0, 0.0], [0.0, 1.0]], atol=1e-5)


def test_tchebycheff_k_step_warm_starts_converge() -> None:
    solver = from_scipy(
        zdt2,
        ZDT_X0,
        bounds=ZDT_BOUNDS,
        scalarization="tchebycheff",
        ideal=[0.0, 0.0],
        rho=0.0,
        steps=2,
    )
    sol = solver.solve(0.5, None)
    for _ in range(25):
        sol = solver.solve(0.5, sol.state)
        assert sol.info["steps"] <= 2
    assert sol.objectives[0] == pytest.approx(tchebycheff_f1(0.5), abs=1e-4)


@pytest.mark.parametrize("method", ["SLSQP", "trust-constr"])
def test_tchebycheff_point_is_pareto_optimal_and_on_its_ray(method: str) -> None:
    # rho = 0, z = (0, 0): the point solves 0.3 h1 = 0.7 h2 (the ray) and is Pareto-optimal,
    # i.e. the objectives' gradients are antiparallel there (both quadratics are convex)
    solver = from_scipy(
        quad,
        X0,
        jac=quad_jac,
        scalarization="tchebycheff",
        method=method,
        ideal=[0.0, 0.0],
        rho=0.0,
    )
    sol = solver.solve(0.3, None)
    h1, h2 = sol.objectives
    assert 0.3 * h1 == pytest.approx(0.7 * h2, rel=1e-6)
    g1, g2 = quad_jac(sol.state)
    assert g1 @ g2 / (np.linalg.norm(g1) * np.linalg.norm(g2)) == pytest.approx(-1.0, abs=1e-6)


def test_user_constraints_carry_into_the_epigraph_form() -> None:
    # the quadratic pair with x0 + x1 + x2 <= -1; its point must respect it
    con = NonlinearConstraint(np.sum, -np.inf, -1.0)
    solver = from_scipy(
        quad,
        X0 - 1.0,
        jac=quad_jac,
        scalarization="tchebycheff",
        constraints=[con, {"type": "ineq", "fun": lambda x: 5.0 - x[0]}],
    )
    for w in (0.2, 0.8):
        sol = solver.solve(w, None)
        assert np.sum(sol.state) <= -1.0 + 1e-8
        assert sol.info["success"]


# -- pickling and process executors --------------------------------------------------------


def test_solvers_pickle_and_give_the_same_result() -> None:
    solvers = [
        from_scipy(quad, X0, jac=quad_jac),
        from_scipy(zdt2, ZDT_X0, bounds=ZDT_BOUNDS, scalarization="tchebycheff"),
        from_pymoo(_zdt1()),
        from_pymoo(ConstrainedPair()),
    ]
    for solver in solvers:
        clone = pickle.loads(pickle.dumps(solver))
        np.testing.assert_array_equal(
            clone.solve(0.4, None).objectives, solver.solve(0.4, None).objectives
        )


def test_process_executor_gives_the_local_result() -> None:
    solver = from_scipy(zdt2, ZDT_X0, bounds=ZDT_BOUNDS, scalarization="tchebycheff", steps=5)
    # alpha=0.3: the paper's damping keeps the 5-step solves converged within 3 rounds
    local = ps.surf(solver, 4, alpha=0.3, iterations=3)
    remote = ps.surf(solver, 4, alpha=0.3, iterations=3, executor=ps.ProcessExecutor(2))
    np.testing.assert_array_equal(remote.weights, local.weights)
    np.testing.assert_array_equal(remote.points, local.points)


# -- from_pymoo ----------------------------------------------------------------------------


def _zdt1() -> Any:
    problems = pytest.importorskip("pymoo.problems")
    return problems.get_problem("zdt1", n_var=6)


try:  # pymoo comes with the dev extra; its tests skip without it
    from pymoo.core.problem import ElementwiseProblem
except ImportError:  # pragma: no cover
    ElementwiseProblem = object


class ConstrainedPair(ElementwiseProblem):
    """|x|^2 and |x - 1|^2 on [-2, 2]^2 subject to G = x1 + x2 - 1 <= 0 (module level, so
    that it pickles)."""

    def __init__(self) -> None:
        pytest.importorskip("pymoo")
        super().__init__(n_var=2, n_obj=2, n_ieq_constr=1, xl=-2.0, xu=2.0)

    def _evaluate(self, x: np.ndarray, out: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        out["F"] = [x @ x, (x - 1) @ (x - 1)]
        out["G"] = [x[0] + x[1] - 1.0]


@pytest.mark.parametrize("w", [0.4, 0.5, 0.7, 0.9])
def test_pymoo_zdt1_matches_the_closed_form_linear_minimizer(w: float) -> None:
    # on ZDT1's front f2 = 1 - sqrt(f1), w f1 + (1 - w) f2 is least at f1 = ((1 - w) / 2w)^2
    sol = from_pymoo(_zdt1()).solve(w, None)
    f1 = min(1.0, ((1 - w) / (2 * w)) ** 2)
    np.testing.assert_allclose(sol.objectives, [f1, 1 - np.sqrt(f1)], atol=1e-5)
    np.testing.assert_allclose(sol.state[1:], 0.0, atol=1e-7)


def test_pymoo_constrained_problem_respects_its_constraint() -> None:
    solver = from_pymoo(ConstrainedPair())
    assert solver.method == "SLSQP"
    np.testing.assert_array_equal(solver.x0, [0.0, 0.0])  # the middle of the box
    for w in (0.1, 0.3, 0.5, 0.8):
        sol = solver.solve(w, None)
        assert sol.state.sum() - 1.0 <= 1e-8
        x = min(1.0 - w, 0.5)  # unconstrained minimizer (1 - w)(1, 1), cut at x1 + x2 = 1
        np.testing.assert_allclose(sol.state, [x, x], atol=1e-5)
    tch = from_pymoo(ConstrainedPair(), scalarization="tchebycheff")
    for w in (0.2, 0.6):
        assert tch.solve(w, None).state.sum() - 1.0 <= 1e-8


def test_pymoo_takes_many_objectives_and_refuses_one() -> None:
    problems = pytest.importorskip("pymoo.problems")
    core = pytest.importorskip("pymoo.core.problem")
    dtlz1 = problems.get_problem("dtlz1", n_var=4, n_obj=3)  # linear front sum f = 0.5
    solver = from_pymoo(dtlz1)
    sol = solver.solve(np.array([0.2, 0.3, 0.5]), None)
    assert sol.objectives.shape == (3,)
    assert abs(sol.objectives.sum() - 0.5) < 1e-4
    with pytest.raises(ValueError, match="n_obj"):
        from_pymoo(core.Problem(n_var=2, n_obj=1, xl=0.0, xu=1.0))
    with pytest.raises(TypeError, match="problem must be a pymoo"):
        from_pymoo(quad)


# -- bad inputs ----------------------------------------------------------------------------


def test_bad_inputs_are_refused_naming_the_argument() -> None:
    with pytest.raises(ValueError, match=r"objectives\(x0\) must return 2 or more values"):
        from_scipy(lambda x: np.array([x[0]]), [0.5])
    three = from_scipy(three_objectives, [0.5])  # three objectives need weight vectors
    with pytest.raises(ValueError, match="is for 2 objectives, but objectives"):
        three.solve(0.5, None)
    with pytest.raises(ValueError, match=r"objectives.*finite"):
        from_scipy(lambda x: np.array([np.nan, 1.0]), [0.5])
    with pytest.raises(ValueError, match="scalarization must be one of"):
        from_scipy(quad, X0, scalarization="chebyshev")
    with pytest.raises(ValueError, match=r"L-BFGS-B.*epigraph"):
        from_scipy(quad, X0, scalarization="tchebycheff", method="L-BFGS-B")
    with pytest.raises(ValueError, match="x0 must be finite"):
        from_scipy(quad, [0.0, np.inf, 0.0])
    with pytest.raises(ValueError, match="x0 must be a non-empty 1-D"):
        from_scipy(quad, [[0.0, 0.0, 0.0]])
    with pytest.raises(ValueError, match="x0 must lie within bounds"):
        from_scipy(quad, [3.0, 0.0, 0.0], bounds=[(0, 1)] * 3)
    with pytest.raises(ValueError, match="method must be one of"):
        from_scipy(quad, X0, method="newton")
    with pytest.raises(ValueError, match="cannot take constraints"):
        from_scipy(quad, X0, method="L-BFGS-B", constraints={"type": "ineq", "fun": np.sum})
    with pytest.raises(ValueError, match="cannot take bounds"):
        from_scipy(quad, X0, method="BFGS", bounds=[(-1, 1)] * 3)
    with pytest.raises(ValueError, match="steps or options"):
        from_scipy(quad, X0, steps=3, options={"maxiter": 5})
    with pytest.raises(ValueError, match="steps must be an integer >= 1"):
        from_scipy(quad, X0, steps=0)
    with pytest.raises(ValueError, match=r"jac\(x\) must return the \(2, 3\) Jacobian"):
        from_scipy(quad, X0, jac=lambda x: np.zeros(3))
    solver = from_scipy(quad, X0)
    with pytest.raises(ValueError, match="weight must lie in"):
        solver.solve(1.5, None)
    with pytest.raises(ValueError, match="state must be a finite decision vector"):
        solver.solve(0.5, np.zeros(2))


@pytest.mark.parametrize("kind", ["linear", "tchebycheff", "modified_tchebycheff"])
def test_ideal_without_one_entry_per_objective_is_refused_at_construction(kind: str) -> None:
    # before: accepted, then every solve failed with a numpy broadcasting error
    with pytest.raises(ValueError, match=r"^ideal has 3 entries .* returns 2 values"):
        from_scipy(quad, X0, scalarization=kind, ideal=[0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"Scalarization's ideal has 3 entries .* returns 2"):
        from_scipy(quad, X0, scalarization=Scalarization(kind, ideal=[-1.0, -1.0, -1.0]))
    with pytest.raises(ValueError, match=r"ideal has 2 entries .* returns 3 values"):
        from_scipy(three_objectives, [0.5], scalarization="asf", ideal=[-1.0, -1.0])
    # the right length is accepted and solves
    sol = from_scipy(quad, X0, scalarization=kind, ideal=[-1.0, -1.0]).solve(0.5, None)
    assert sol.objectives.shape == (2,) and np.all(np.isfinite(sol.objectives))


def test_pymoo_ideal_without_one_entry_per_objective_is_refused() -> None:
    with pytest.raises(ValueError, match=r"ideal has 3 entries .* returns 2 values"):
        from_pymoo(_zdt1(), scalarization="tchebycheff", ideal=[0.0, 0.0, 0.0])


def test_importing_the_adapters_imports_neither_torch_nor_pymoo() -> None:
    code = (
        "import sys, paretosurf.adapters; "
        "print(sorted(m for m in ('torch', 'pymoo') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- from_torch ----------------------------------------------------------------------------


@pytest.fixture
def torch() -> Any:
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    torch.manual_seed(0)
    return torch


def _least_squares(torch: Any) -> tuple[Any, ...]:
    rng = np.random.default_rng(3)
    x, y1, y2 = rng.normal(size=(20, 3)), rng.normal(size=20), rng.normal(size=20)
    xt, y1t, y2t = (torch.tensor(a) for a in (x, y1, y2))

    def losses(params: Any) -> Any:
        (theta,) = params
        pred = xt @ theta
        return torch.stack([((pred - y1t) ** 2).mean(), ((pred - y2t) ** 2).mean()])

    return x, y1, y2, losses


def test_torch_linear_scalarization_approaches_the_least_squares_optimum(torch: Any) -> None:
    x, y1, y2, losses = _least_squares(torch)
    theta = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    solver = from_torch([theta], losses, steps=100, optimizer="sgd", lr=0.1)
    for w in (0.2, 0.7):
        # w h1 + (1 - w) h2 = mean((X theta - (w y1 + (1 - w) y2))^2) + const
        target = np.linalg.lstsq(x, w * y1 + (1 - w) * y2, rcond=None)[0]
        sol = solver.solve(w, None)
        errors = [np.linalg.norm(sol.state["tensors"][0] - target)]
        for _ in range(2):
            sol = solver.solve(w, sol.state)  # warm starts continue towards the optimum
            errors.append(np.linalg.norm(sol.state["tensors"][0] - target))
        assert sol.info["steps"] == 100
        assert errors[2] < errors[0] and errors[2] < 1e-8
        expected = [np.mean((x @ target - y1) ** 2), np.mean((x @ target - y2) ** 2)]
        np.testing.assert_allclose(sol.objectives, expected, atol=1e-6)


def _mlp(torch: Any) -> tuple[Any, Any]:
    gen = torch.Generator().manual_seed(1)
    inputs = torch.randn(32, 2, generator=gen)
    t1, t2 = inputs.sum(1, keepdim=True), (inputs[:, :1] * inputs[:, 1:]).tanh()
    model = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))

    def losses(m: Any) -> Any:
        out = m(inputs)
        return torch.stack([((out - t1) ** 2).mean(), ((out - t2) ** 2).mean()])

    return model, losses


def test_torch_three_losses_with_weight_vectors(torch: Any) -> None:
    """A weight vector scalarizes three least-squares losses; their weighted sum is a least
    squares problem with the weighted target, solved in closed form."""
    rng = np.random.default_rng(5)
    x, ys = rng.normal(size=(20, 3)), rng.normal(size=(3, 20))
    xt, yt = torch.tensor(x), torch.tensor(ys)

    def losses(params: Any) -> Any:
        (theta,) = params
        return ((xt @ theta)[None, :] - yt).pow(2).mean(dim=1)

    theta = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    solver = from_torch([theta], losses, steps=300, optimizer="sgd", lr=0.1)
    w = np.array([0.2, 0.3, 0.5])
    sol = solver.solve(w, None)
    target = np.linalg.lstsq(x, w @ ys, rcond=None)[0]
    np.testing.assert_allclose(sol.state["tensors"][0], target, atol=1e-6)
    assert sol.objectives.shape == (3,)
    with pytest.raises(ValueError, match=r"shape \(2,\)"):  # a scalar weight: 2 losses
        from_torch([theta], losses, steps=1).solve(0.5, None)


def test_torch_budget_and_independent_states(torch: Any) -> None:
    model, losses = _mlp(torch)
    solver = from_torch(model, losses, steps=7, lr=1e-2)
    a = solver.solve(0.2, None)
    b = solver.solve(0.8, None)
    assert a.info["steps"] == b.info["steps"] == 7
    assert isinstance(a.info["loss"], float)
    # states are numpy arrays (fast to send to workers, saved without pickle)
    assert all(isinstance(t, np.ndarray) for t in a.state["tensors"])
    assert a.state["optimizer"]["state"]  # Adam's moments are kept
    b_before = copy.deepcopy(b.state)
    a.state["tensors"][0] += 1.0
    a.state["optimizer"]["state"]["0"]["exp_avg"] += 1.0
    for t, t0 in zip(b.state["tensors"], b_before["tensors"], strict=True):
        np.testing.assert_array_equal(t, t0)
    # solving from a state leaves that state untouched, and a cold start is the same each time
    solver.solve(0.8, b.state)
    for t, t0 in zip(b.state["tensors"], b_before["tensors"], strict=True):
        np.testing.assert_array_equal(t, t0)
    for key, moments in b_before["optimizer"]["state"].items():
        np.testing.assert_array_equal(
            b.state["optimizer"]["state"][key]["exp_avg"], moments["exp_avg"]
        )
    meta, _ = encode_states({"0": b.state})
    assert meta["pickled"] == []  # checkpoints need no pickle
    np.testing.assert_array_equal(
        solver.solve(0.2, None).objectives, solver.solve(0.2, None).objectives
    )
    # a warm start continues: more steps from the state lower the scalarized loss
    c = solver.solve(0.8, b.state)
    assert 0.8 * c.objectives[0] + 0.2 * c.objectives[1] < (
        0.8 * b.objectives[0] + 0.2 * b.objectives[1]
    )


def test_torch_solver_serves_the_soup_baseline(torch: Any) -> None:
    x, y1, y2, losses = _least_squares(torch)
    theta = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    solver = from_torch([theta], losses, steps=200, optimizer="sgd", lr=0.1)
    res = ps.methods.soup(solver, 2, iterations=2)
    ends = [np.linalg.lstsq(x, y, rcond=None)[0] for y in (y2, y1)]  # w = 0, w = 1
    mid = (ends[0] + ends[1]) / 2  # the mixed parameters at w = 1/2
    expected = [np.mean((x @ mid - y1) ** 2), np.mean((x @ mid - y2) ** 2)]
    np.testing.assert_allclose(res.points[1], expected, atol=1e-6)


def test_torch_evaluate_fn_gives_the_objectives(torch: Any) -> None:
    model, losses = _mlp(torch)
    solver = from_torch(model, losses, steps=3, evaluate_fn=lambda m: [1.0, 2.0])
    assert solver.solve(0.5, None).objectives.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("kind", ["tchebycheff", "modified_tchebycheff"])
def test_torch_tchebycheff_reaches_the_concave_front_point(kind: str, torch: Any) -> None:
    theta = torch.zeros(1, dtype=torch.float64, requires_grad=True)

    def losses(params: Any) -> Any:
        s = torch.sigmoid(params[0][0])
        return torch.stack([s, 1.0 - s**2])  # the concave front f2 = 1 - f1^2

    solver = from_torch(
        [theta], losses, steps=300, lr=0.02, scalarization=kind, ideal=[0.0, 0.0], rho=0.0
    )
    f1 = [solver.solve(w, None).objectives[0] for w in (0.2, 0.5, 0.8)]
    np.testing.assert_allclose(f1, tchebycheff_f1(np.array([0.2, 0.5, 0.8])), atol=1e-2)


def test_torch_bad_inputs(torch: Any) -> None:
    model, losses = _mlp(torch)
    with pytest.raises(ValueError, match="ideal"):
        from_torch(model, losses, steps=3, scalarization="tchebycheff")
    with pytest.raises(ValueError, match="optimizer must be"):
        from_torch(model, losses, steps=3, optimizer="lbfgs")
    with pytest.raises(TypeError, match="model_or_params"):
        from_torch("model", losses, steps=3)
    with pytest.raises(ValueError, match="steps must be"):
        from_torch(model, losses, steps=0)
    solver = from_torch(model, lambda m: torch.zeros(3, requires_grad=True), steps=1)
    with pytest.raises(ValueError, match=r"objectives_fn must return a tensor of shape \(2,\)"):
        solver.solve(0.5, None)
    three = from_torch(model, losses, steps=1, scalarization="tchebycheff", ideal=[0, 0, 0])
    with pytest.raises(ValueError, match=r"ideal has 3 entries.*trades off 2 objectives"):
        three.solve(0.5, None)


def test_torch_solver_runs_in_surf(torch: Any) -> None:
    model, losses = _mlp(torch)
    solver = from_torch(
        model, losses, steps=5, lr=1e-2, scalarization="modified_tchebycheff", ideal=[0.0, 0.0]
    )
    res = ps.surf(solver, 4, iterations=3)
    assert res.n_solves == 15 and np.all(np.isfinite(res.points))


def test_from_scipy_with_three_objectives_matches_the_closed_form() -> None:
    """Weight vectors on the simplex: the linear scalarization's minimizer of three
    quadratics is the weighted mean of their centres."""
    centres = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])

    def objectives(x: np.ndarray) -> np.ndarray:
        return np.sum((x[None, :] - centres) ** 2, axis=1)

    solver = from_scipy(objectives, np.zeros(2))
    w = np.array([0.2, 0.3, 0.5])
    sol = solver.solve(w, None)
    np.testing.assert_allclose(sol.state, w @ centres, atol=1e-6)
    np.testing.assert_allclose(sol.objectives, objectives(w @ centres), atol=1e-9)
    tch = from_scipy(objectives, np.zeros(2), scalarization="tchebycheff")
    assert tch.ideal is not None and tch.ideal.shape == (3,)
    got = tch.solve(w, None).objectives - tch.ideal
    coef = np.maximum(w, 1e-4)
    # the Tchebycheff minimizer balances the weighted excesses (up to the augmentation)
    assert np.ptp(coef * got) < 1e-3 * np.max(coef * got)
    with pytest.raises(ValueError, match="simplex"):
        solver.solve(np.array([0.5, 0.6, 0.0]), None)


# -- the achievement scalarization (weight vectors) -----------------------------------------


def sphere_shell(x: np.ndarray) -> np.ndarray:
    """Objectives ``f = x`` subject to ``||x|| >= 1`` (below): the front is the positive
    orthant of the unit sphere, concave."""
    return np.asarray(x, dtype=np.float64).copy()


SHELL = NonlinearConstraint(lambda x: float(x @ x), 1.0, np.inf)


@pytest.mark.parametrize("w", [[0.2, 0.3, 0.5], [0.6, 0.0, 0.4], [0.0, 0.0, 1.0]])
def test_asf_minimizer_lies_on_the_ray_along_the_weight_vector(w: list[float]) -> None:
    """On the unit sphere with ideal point 0 the ray along w meets the front at w / ||w||,
    also on an edge of the simplex (w_2 = 0: the boundary arc f_2 = 0) and at a corner."""
    lam = np.array(w)
    solver = from_scipy(
        sphere_shell,
        np.full(3, 0.6),
        scalarization="asf",
        ideal=np.zeros(3),
        bounds=[(0.0, 2.0)] * 3,
        constraints=[SHELL],
    )
    got = solver.solve(lam, None).objectives
    np.testing.assert_allclose(got, lam / np.linalg.norm(lam), atol=2e-3)


def test_tchebycheff_sends_an_edge_weight_to_a_vertex_where_asf_does_not() -> None:
    """Why "asf" exists: on the sphere, Tchebycheff coefficients max(w, floor) put the point of
    the edge weight (0.6, 0, 0.4) on a ray dominated by objective 2: the vertex e_2."""
    solver = from_scipy(
        sphere_shell,
        np.full(3, 0.6),
        scalarization="tchebycheff",
        ideal=np.zeros(3),
        bounds=[(0.0, 2.0)] * 3,
        constraints=[SHELL],
    )
    got = solver.solve(np.array([0.6, 0.0, 0.4]), None).objectives
    np.testing.assert_allclose(got, [0.0, 1.0, 0.0], atol=2e-3)


def test_asf_needs_a_weight_vector() -> None:
    asf = Scalarization("asf", ideal=[0.0, 0.0])
    with pytest.raises(ValueError, match="weight vectors"):
        asf([1.0, 2.0], 0.3)
    np.testing.assert_allclose(asf.coefficients([0.25, 0.75]), [4.0, 4.0 / 3.0])
    assert (
        Scalarization("asf", rho=0.0, ideal=[0.0, 0.0, 0.0])([1.0, 2.0, 3.0], [0.5, 0.25, 0.25])
        == 12.0
    )


@needs_scipy_116_slsqp
def test_asf_spreads_points_over_dtlz1_where_weighted_sums_collapse() -> None:
    """DTLZ1's front is the triangle sum f = 1/2, whose objectives reach 0 together: weighted
    sums reach only its corners, the achievement scalarization every point."""
    problems = pytest.importorskip("pymoo.problems")
    dtlz1 = problems.get_problem("dtlz1", n_var=5, n_obj=3)
    with pytest.warns(ps.ParetoWarning) as caught:
        linear = ps.surf_simplex(from_pymoo(dtlz1, scalarization="linear"), 15, 3, iterations=2)
    assert not linear.success and "collapsed" in linear.message
    assert any("scalarization='asf'" in str(w.message) for w in caught)
    res = ps.surf_simplex(from_pymoo(dtlz1, scalarization="asf"), 15, 3, iterations=3)
    assert res.success, res.message
    np.testing.assert_allclose(res.points.sum(axis=1), 0.5, atol=1e-4)
    assert ps.metrics.nn_cv(res.points) < 0.1
    # the default ("auto") sees the flat surface and takes the achievement scalarization
    auto = from_pymoo(dtlz1)
    assert auto.scalarization.kind == "asf", auto.scalarization_note
    same = ps.surf_simplex(auto, 15, 3, iterations=3)
    np.testing.assert_array_equal(same.points, res.points)


@pytest.mark.parametrize(
    ("name", "kind"),
    [("dtlz2", "asf"), ("c2dtlz2", "asf"), ("convex_dtlz2", "linear"), ("dtlz7", "linear")],
)
def test_auto_takes_asf_where_a_surface_is_concave_between_its_extremes(
    name: str, kind: str
) -> None:
    """``scalarization="auto"`` with three objectives: the weighted sum at the normal of the
    extreme points' plane lands on the plane on DTLZ2's sphere (and constrained C2-DTLZ2's),
    so the surface is concave there and the achievement scalarization is taken; on convex
    DTLZ2 (``sqrt(f1) + sqrt(f2) + f3 = 1``, which bulges towards the ideal point) and on
    DTLZ7 (whose pieces lie below the plane of its extremes) it stays linear. The note says
    why."""
    problems = pytest.importorskip("pymoo.problems")
    solver = from_pymoo(problems.get_problem(name, n_obj=3))
    assert solver.scalarization.kind == kind, solver.scalarization_note
    assert solver.scalarization_note.startswith(f"auto: {kind} (")
    if kind == "asf":
        # on the sphere the weighted sum at the normal (1/3, 1/3, 1/3) went to a vertex
        assert "stopped on or above the plane" in solver.scalarization_note


def test_asf_on_pymoo_dtlz2_leaves_no_slot_stuck_on_a_vertex() -> None:
    """pymoo's DTLZ2 (polar decision variables) has flat spots at its vertices where SLSQP
    stops whatever the weight; surf_simplex restarts such slots from a healthy neighbour's
    state, so the concave front ends evenly covered and nothing collapses (the CV of the
    rounds is not monotone here: 12 rounds reach about 0.1, 8 rounds 0.18-0.27 depending on
    the lattice's triangulation)."""
    problems = pytest.importorskip("pymoo.problems")
    dtlz2 = problems.get_problem("dtlz2", n_var=7, n_obj=3)
    res = ps.surf_simplex(from_pymoo(dtlz2, scalarization="asf"), 28, 3, iterations=12)
    assert res.success, res.message
    np.testing.assert_allclose(np.linalg.norm(res.points, axis=1), 1.0, atol=1e-4)
    assert ps.metrics.nn_cv(res.points) < 0.2


def test_the_defaults_reach_both_ends_of_a_convex_curve_in_mixed_units() -> None:
    """Three objectives in units 1e-3, 1 and 1e3 of which the first two never conflict: the
    front is a convex curve, ``t -> (t^2, 2 t^4 + t^2, (1 - t)^2)`` scaled, and its extreme
    points span no plane. The default keeps the weighted sum there, which reaches every
    point of a convex curve, its ends included. The achievement scalarization, tried as the
    default for such fronts, stopped 10% of the curve's length short of its ``t = 1`` end
    while the run reported success. Truth: the curve's closed form, swept densely."""
    scales = np.array([1e-3, 1.0, 1e3])

    def objectives(x: np.ndarray) -> np.ndarray:
        t, g = x[0], float(np.sum((x[1:] - 0.3) ** 2))
        return scales * np.array([t**2 + g, 2 * t**4 + t**2 + g, (1 - t) ** 2 + g])

    solver = from_scipy(objectives, x0=np.full(4, 0.5), bounds=[(0.0, 1.0)] * 4)
    assert solver.scalarization.kind == "linear", solver.scalarization_note
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf_simplex(solver, 21)
    assert res.success, res.message
    t = np.linspace(0.0, 1.0, 20001)
    curve = scales * np.c_[t**2, 2 * t**4 + t**2, (1 - t) ** 2]
    lo, span = curve.min(axis=0), np.ptp(curve, axis=0)
    unit = (curve - lo) / span
    arc = np.r_[0.0, np.cumsum(np.linalg.norm(np.diff(unit, axis=0), axis=1))]
    arc /= arc[-1]
    distance, index = spatial.cKDTree(unit).query((res.points - lo) / span)
    assert distance.max() < 1e-3  # on the curve
    covered = arc[index]
    np.testing.assert_allclose([covered.min(), covered.max()], [0.0, 1.0], atol=1e-3)
