"""The K-step MDP solver's fused kernel (numba, the ``fast`` extra) against the NumPy step.

The NumPy step (``MDPModel._policy_gradients`` and ``StepRule.apply``) is the reference: the
kernel's gradients at one step, and whole solves and short SURF runs on Deep Sea Treasure and
Fishwood, must equal it to 1e-12 (relative), on each of its solve paths (banded with absorbing
states split off, one dense LU per slot, two small dense solves) and options (Adam with carried
or reset moments, SGD). The ``kernel`` option is checked too, with and without numba.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.bench import get_task
from paretosurf.problems.mdp import MDPGradientSolver, RegularizedMDP, _fused
from paretosurf.problems.mdp import model as mdp_model

RTOL = 1e-12


def numpy_exp_is_libm() -> bool:
    """Whether NumPy's float64 ``exp`` and ``log`` are the C library's, as the kernel's are
    (NumPy's own SIMD versions, on AVX-512 machines unless ``NPY_DISABLE_CPU_FEATURES``
    turns them off as ``make test`` does, round a few values differently)."""
    x = np.random.default_rng(0).uniform(-30, 30, 2000)
    return bool(
        np.array_equal(np.exp(x), [math.exp(v) for v in x])
        and np.array_equal(np.log(np.abs(x)), [math.log(abs(v)) for v in x])
    )


def assert_close(got: np.ndarray, want: np.ndarray) -> None:
    """Equal to ``RTOL`` relative to the array's scale."""
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * max(1.0, np.abs(want).max()))


def rewards_of(mdp: RegularizedMDP, slots: int) -> np.ndarray:
    """One scalarized reward (B, S, A) per slot, weights evenly from 0 to 1."""
    w = np.linspace(0, 1, slots)[:, None, None]
    return np.asarray(w * mdp.R[0] + (1 - w) * mdp.R[1])


def absorbing_mdp(
    seed: int, *, actions: int = 3, scale: str = "normalized", n: int = 40
) -> RegularizedMDP:
    """A noisy corridor ending in two absorbing states (banded, two states split off)."""
    rng = np.random.default_rng(seed)
    P = np.zeros((n, actions, n))
    for s in range(n - 2):
        for a in range(actions):
            P[s, a, min(max(s + a - 1, 0), n - 1)] += 0.7
            P[s, a, int(rng.integers(max(s - 3, 0), min(s + 4, n)))] += 0.3
    P[n - 2, :, n - 2] = P[n - 1, :, n - 1] = 1.0
    R = rng.normal(size=(2, n, actions))
    return RegularizedMDP(P, R, 0.99, rng.dirichlet(np.ones(n)), 0.4, scale=scale)


def dense_mdp(seed: int, n: int) -> RegularizedMDP:
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(n), size=(n, 3))
    return RegularizedMDP(P, rng.normal(size=(2, n, 3)), 0.95, rng.dirichlet(np.ones(n)), 0.3)


# ------------------------------------------------------------------ the option, without numba
def test_kernel_option_is_checked() -> None:
    mdp = get_task("fishwood").make_problem()
    with pytest.raises(ValueError, match="kernel must be one of"):
        MDPGradientSolver(mdp, steps=1, kernel="fast")
    with pytest.raises(TypeError, match="kernel must be one of"):
        MDPGradientSolver(mdp, steps=1, kernel=1)  # type: ignore[arg-type]
    solver = MDPGradientSolver(mdp, steps=1, kernel="numpy")
    assert solver.kernel == "numpy" and solver.kernel_in_use == "numpy"


def test_numba_missing_names_the_extra_and_auto_falls_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_fused, "_numba", None)
    mdp = get_task("fishwood").make_problem()
    with pytest.raises(ImportError, match=r'pip install "paretosurf\[fast\]"'):
        MDPGradientSolver(mdp, steps=1, kernel="numba")
    auto = MDPGradientSolver(mdp, steps=3, kernel="auto")
    assert auto.kernel_in_use == "numpy"
    ref = MDPGradientSolver(mdp, steps=3, kernel="numpy")
    np.testing.assert_array_equal(
        auto.solve(0.4, None).state.params, ref.solve(0.4, None).state.params
    )


def test_without_numba_the_module_imports_and_the_error_names_the_extra() -> None:
    """numba made unimportable in a fresh interpreter: the package and the kernel's module
    import, "auto" runs NumPy, "numba" is refused with the install command."""
    code = (
        "import sys; sys.modules['numba'] = None\n"
        "import numpy as np\n"
        "from paretosurf.problems.mdp import MDPGradientSolver, RegularizedMDP\n"
        "P = np.full((2, 2, 2), 0.5)\n"
        "mdp = RegularizedMDP(P, np.ones((2, 2, 2)), 0.9, np.full(2, 0.5), 0.5)\n"
        "print(MDPGradientSolver(mdp, steps=2).kernel_in_use)\n"
        "try:\n"
        "    MDPGradientSolver(mdp, steps=2, kernel='numba')\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert lines[0] == "numpy"
    assert 'pip install "paretosurf[fast]"' in lines[1]


def test_auto_keeps_a_replaced_gradient_step() -> None:
    """A problem whose step was replaced (as benchmarks do) keeps it under "auto"."""
    mdp = get_task("fishwood").make_problem()
    calls = []
    step = mdp._policy_gradients

    def counting(logits: np.ndarray, rewards: np.ndarray) -> np.ndarray:
        calls.append(1)
        return step(logits, rewards)

    mdp._policy_gradients = counting
    solver = MDPGradientSolver(mdp, steps=4)
    assert solver.kernel_in_use == "numpy"
    solver.solve(0.5, None)
    assert len(calls) == 4


# ------------------------------------------------------------------ the kernel (needs numba)
@pytest.fixture()
def numba() -> None:
    pytest.importorskip("numba")


@pytest.mark.usefixtures("numba")
@pytest.mark.parametrize("name", ["dst", "fishwood"])
def test_task_gradients_equal_the_numpy_step(name: str) -> None:
    mdp = get_task(name).make_problem()
    theta = np.random.default_rng(0).normal(size=(16, mdp.n_states, mdp.n_actions))
    rewards = rewards_of(mdp, 16)
    want = mdp._policy_gradients(theta, rewards[:, None])[:, 0]
    assert_close(_fused.fused_policy_gradients(mdp, theta, rewards), want)


@pytest.mark.usefixtures("numba")
@pytest.mark.parametrize(
    ("case", "path"),
    [
        ("absorbing", _fused.BAND),  # two absorbing states split off
        ("absorbing-discounted", _fused.BAND),
        ("many-actions", _fused.BAND),  # 11 actions: NumPy's pairwise sums over actions
        ("dense-30", _fused.LU_ONCE),  # one dense LU per slot
        ("dense-6", _fused.LU_TWICE),  # two small dense solves
        ("long", _fused.BAND),  # 300 states: pairwise sums over states beyond 128
    ],
)
def test_each_solve_path_equals_the_numpy_step(case: str, path: int) -> None:
    mdp = {
        "absorbing": lambda: absorbing_mdp(1),
        "absorbing-discounted": lambda: absorbing_mdp(2, scale="discounted"),
        "many-actions": lambda: absorbing_mdp(3, actions=11),
        "dense-30": lambda: dense_mdp(4, 30),
        "dense-6": lambda: dense_mdp(5, 6),
        "long": lambda: absorbing_mdp(6, n=300),
    }[case]()
    assert _fused.FusedModel.of(mdp).mode == path
    theta = np.random.default_rng(7).normal(size=(5, mdp.n_states, mdp.n_actions)) * 2
    rewards = rewards_of(mdp, 5)
    want = mdp._policy_gradients(theta, rewards[:, None])[:, 0]
    assert_close(_fused.fused_policy_gradients(mdp, theta, rewards), want)


@pytest.mark.usefixtures("numba")
def test_the_kernel_follows_the_step_s_path_switches(monkeypatch: pytest.MonkeyPatch) -> None:
    """The thresholds the NumPy step reads (moved as other tests move them) move both."""
    mdp = absorbing_mdp(8)
    monkeypatch.setattr(mdp, "_band", lambda: None)
    assert _fused.FusedModel.of(mdp).mode == _fused.LU_ONCE
    monkeypatch.setattr(mdp_model, "LU_MIN_STATES", 10**9)
    monkeypatch.setattr(mdp, "_sparse", False)
    fused = _fused.FusedModel.of(mdp)
    assert fused.mode == _fused.LU_TWICE and not fused.sparse
    theta = np.random.default_rng(9).normal(size=(3, mdp.n_states, mdp.n_actions))
    rewards = rewards_of(mdp, 3)
    want = mdp._policy_gradients(theta, rewards[:, None])[:, 0]
    assert_close(_fused.fused_policy_gradients(mdp, theta, rewards), want)


@pytest.mark.usefixtures("numba")
@pytest.mark.parametrize("name", ["dst", "fishwood"])
@pytest.mark.parametrize(
    "options",
    [{"reset_optimizer": True}, {"reset_optimizer": False}, {"optimizer": "sgd", "lr": 0.01}],
)
def test_k_step_solves_equal_the_numpy_solver(name: str, options: dict[str, object]) -> None:
    task = get_task(name)
    mdp = task.make_problem()
    kwargs: dict[str, object] = {"lr": task.lr, **options}
    w = np.linspace(0, 1, 6)
    sols = {}
    for kernel in ("numpy", "numba"):
        solver = MDPGradientSolver(mdp, steps=40, kernel=kernel, **kwargs)  # type: ignore[arg-type]
        assert solver.kernel_in_use == kernel
        first = solver.solve_many(w, [None] * 6)
        sols[kernel] = solver.solve_many(w, [s.state for s in first])  # warm: moments carry
    for a, b in zip(sols["numba"], sols["numpy"], strict=True):
        for got, want in (
            (a.state.params, b.state.params),
            (a.state.m, b.state.m),
            (a.state.v, b.state.v),
            (a.objectives, b.objectives),
        ):
            assert_close(got, want)
        assert a.state.t == b.state.t and a.info == b.info


@pytest.mark.usefixtures("numba")
@pytest.mark.filterwarnings("ignore::paretosurf.ParetoWarning")  # (runs cut short)
@pytest.mark.parametrize(("name", "rounds"), [("dst", 2), ("fishwood", 4)])
def test_short_surf_runs_equal_the_numpy_runs(name: str, rounds: int) -> None:
    """The paper's protocol (DST: 500 warm-up steps, interior slots from the w = 1 end).

    With NumPy's SIMD ``exp`` the two differ by rounding at each step, which DST's 1,200
    steps (gamma = 0.999) amplify to about 1e-8: then only that is checked."""
    task = get_task(name)
    results = {}
    for kernel in ("numpy", "numba"):
        mdp = task.make_problem()
        solver = MDPGradientSolver(
            mdp,
            steps=task.steps,
            lr=task.lr,
            reset_optimizer=task.reset_optimizer,
            kernel=kernel,
        )
        results[kernel] = ps.surf(solver, task.n_segments, iterations=rounds, alpha=task.alpha)
    got, want = results["numba"], results["numpy"]
    if numpy_exp_is_libm():
        assert_close(got.points, want.points)
        assert_close(np.asarray(got.weights), np.asarray(want.weights))
    else:  # pragma: no cover - depends on the machine and NumPy's settings
        np.testing.assert_allclose(got.points, want.points, rtol=1e-6, atol=1e-9)
