"""The exact MDP solver's fused kernel (soft policy iteration and the objectives of its
policies in one compiled call, the ``fast`` extra) against the NumPy path, the reference:
policies and objectives equal to 1e-12 (iteration counts within one) on the benchmark tasks and on
random MDPs (dense, sparse with absorbing states, three objectives), cold and warm-started;
the errors the NumPy path raises; the ``kernel`` option and its fallbacks."""

from __future__ import annotations

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.bench import get_task
from paretosurf.problems.mdp import MDPExactSolver, RegularizedMDP, _fused
from paretosurf.problems.mdp.policy_iteration import soft_policy_iteration

RTOL = 1e-12


def dense_mdp(seed: int, n: int) -> RegularizedMDP:
    """Every transition possible (dense ``P``), three actions."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(n), size=(n, 3))
    return RegularizedMDP(P, rng.normal(size=(2, n, 3)), 0.95, rng.dirichlet(np.ones(n)), 0.3)


def absorbing_mdp(seed: int, n: int = 30) -> RegularizedMDP:
    """A random walk on a line whose two ends absorb (sparse ``P``), gamma 0.99."""
    rng = np.random.default_rng(seed)
    P = np.zeros((n, 2, n))
    for s in range(1, n - 1):
        P[s, 0, s - 1], P[s, 0, s + 1] = 0.8, 0.2
        P[s, 1, s - 1], P[s, 1, s + 1] = 0.2, 0.8
    P[0, :, 0] = P[n - 1, :, n - 1] = 1.0
    R = rng.normal(size=(2, n, 2))
    return RegularizedMDP(P, R, 0.99, np.ones(n) / n, 0.4)


def three_objective_mdp(seed: int) -> RegularizedMDP:
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(6), size=(6, 2))
    return RegularizedMDP(P, rng.normal(size=(3, 6, 2)), 0.9, np.ones(6) / 6, 0.5)


def problems() -> dict[str, RegularizedMDP]:
    return {
        "dst": get_task("dst").make_problem(),
        "fishwood": get_task("fishwood").make_problem(),
        "dense": dense_mdp(3, 12),
        "absorbing": absorbing_mdp(4),
        "three": three_objective_mdp(5),
    }


def weights_for(mdp: RegularizedMDP, count: int) -> np.ndarray:
    if mdp.n_objectives == 2:
        return np.linspace(0.0, 1.0, count)
    return np.random.default_rng(0).dirichlet(np.ones(mdp.n_objectives), size=count)


def assert_same(got: list[ps.Solution], want: list[ps.Solution]) -> None:
    for g, w in zip(got, want, strict=True):
        scale = max(1.0, float(np.abs(w.objectives).max()))
        np.testing.assert_allclose(g.objectives, w.objectives, rtol=RTOL, atol=RTOL * scale)
        np.testing.assert_allclose(g.state, w.state, rtol=0, atol=RTOL)
        # the stop at a change of 1e-13 may come one iteration apart (rounding near gamma 1)
        assert g.info["steps"] == w.info["steps"]
        assert abs(g.info["policy_iterations"] - w.info["policy_iterations"]) <= 1


@pytest.fixture()
def numba() -> None:
    pytest.importorskip("numba")


@pytest.mark.usefixtures("numba")
@pytest.mark.parametrize("name", ["dst", "fishwood", "dense", "absorbing", "three"])
def test_cold_and_warm_solves_equal_the_numpy_path(name: str) -> None:
    """Eleven weights from the reference policy, then moved a little and warm-started from
    the first solves' policies (as a SURF round is): the same policies, objectives and
    iterations, within one (NumPy's batched arithmetic and the kernel's per-slot loops round
    alike to about 1e-15)."""
    mdp = problems()[name]
    ref, fast = MDPExactSolver(mdp, kernel="numpy"), MDPExactSolver(mdp, kernel="numba")
    w = weights_for(mdp, 11)
    cold_ref, cold_fast = ref.solve_many(w, [None] * 11), fast.solve_many(w, [None] * 11)
    assert_same(cold_fast, cold_ref)
    moved = 0.97 * w + 0.03 * w[::-1]
    states = [s.state for s in cold_ref]
    assert_same(fast.solve_many(moved, states), ref.solve_many(moved, states))
    # and the optimum itself: the soft Bellman fixed point (closed form of the NumPy side's
    # own argmin on two objectives)
    if mdp.n_objectives == 2:
        np.testing.assert_allclose(cold_fast[3].state, mdp.argmin(float(w[3])), atol=1e-12)


@pytest.mark.usefixtures("numba")
def test_a_solve_that_does_not_converge_raises_as_numpy_does() -> None:
    mdp = dense_mdp(1, 8)
    rewards = mdp.R[0][None]
    start = np.log(mdp.ref_policy)[None]
    with pytest.raises(RuntimeError, match="did not converge") as want:
        soft_policy_iteration(mdp, rewards, start, max_iter=1)
    with pytest.raises(RuntimeError, match="did not converge") as got:
        _fused.fused_policy_iteration(mdp, rewards, start, tol=1e-13, floor=1e-10, max_iter=1)
    assert str(got.value) == str(want.value)


@pytest.mark.usefixtures("numba")
def test_a_surf_run_equals_the_numpy_run() -> None:
    """Fishwood's bench task with the exact solver, 8 rounds: the same front to 1e-12."""
    mdp = get_task("fishwood").make_problem()
    runs = [
        ps.surf(MDPExactSolver(mdp, kernel=k), 11, iterations=8, alpha=0.3, early_stopping=False)
        for k in ("numpy", "numba")
    ]
    np.testing.assert_allclose(runs[1].points, runs[0].points, rtol=RTOL, atol=RTOL)
    np.testing.assert_allclose(runs[1].weights, runs[0].weights, rtol=0, atol=1e-10)


def test_the_kernel_option_and_its_fallbacks(monkeypatch: pytest.MonkeyPatch) -> None:
    mdp = get_task("fishwood").make_problem()
    with pytest.raises(ValueError, match="kernel must be one of"):
        MDPExactSolver(mdp, kernel="fast")
    assert MDPExactSolver(mdp, kernel="numpy").kernel_in_use == "numpy"
    # a problem whose solve steps were replaced keeps them under "auto"
    replaced = get_task("fishwood").make_problem()
    calls = []
    flow = replaced._flow_matrices

    def counting(pi: np.ndarray) -> np.ndarray:
        calls.append(1)
        return flow(pi)

    replaced._flow_matrices = counting  # type: ignore[method-assign]
    solver = MDPExactSolver(replaced)
    assert solver.kernel_in_use == "numpy"
    solver.solve(0.5, None)
    assert calls
    # without numba: "auto" runs NumPy, "numba" names the extra
    monkeypatch.setattr(_fused, "_numba", None)
    with pytest.raises(ImportError, match=r'pip install "paretosurf\[fast\]"'):
        MDPExactSolver(mdp, kernel="numba")
    auto = MDPExactSolver(mdp)
    assert auto.kernel_in_use == "numpy"
    np.testing.assert_array_equal(
        auto.solve(0.4, None).state, MDPExactSolver(mdp, kernel="numpy").solve(0.4, None).state
    )
