"""from_scipy: Jacobians of the wrong shape, SLSQP's tolerance on objectives of small scale,
and the achievement scalarization with two objectives; checked against closed forms."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from scipy.optimize import LinearConstraint

import paretosurf as ps
from paretosurf.adapters import Scalarization, from_scipy, scipy_solver

# -- the Jacobian's shape ------------------------------------------------------------------

A = np.array([-1.0, 0.0, 1.0])
B = np.array([1.0, 2.0, -0.5])


def squares(x: np.ndarray) -> np.ndarray:
    """``(|x - a|^2, |x - b|^2)``: the minimizer of ``w h1 + (1 - w) h2`` is ``w a + (1 - w) b``."""
    return np.array([np.sum((x - A) ** 2), np.sum((x - B) ** 2)])


def squares_jac(x: np.ndarray) -> np.ndarray:
    return np.stack([2 * (x - A), 2 * (x - B)])


def test_a_transposed_jacobian_is_refused_naming_both_shapes() -> None:
    # before: reshaped (3, 2) -> (2, 3) silently, and SLSQP/L-BFGS-B stopped ABNORMAL far off
    with pytest.raises(
        ValueError,
        match=r"must return the \(2, 3\) Jacobian.*got shape "
        r"\(3, 2\) \(the transpose",
    ):
        from_scipy(squares, np.zeros(3), jac=lambda x: squares_jac(x).T)
    with pytest.raises(ValueError, match=r"\(2, 3\) Jacobian.*got shape \(6,\)"):
        from_scipy(squares, np.zeros(3), jac=lambda x: squares_jac(x).ravel())


def test_a_jacobian_that_goes_wrong_after_construction_is_refused_in_the_solve() -> None:
    calls = {"n": 0}

    def flipping(x: np.ndarray) -> np.ndarray:
        calls["n"] += 1
        return squares_jac(x) if calls["n"] == 1 else squares_jac(x).T

    solver = from_scipy(squares, np.zeros(3), jac=flipping)
    with pytest.raises(ValueError, match=r"got shape \(3, 2\)"):
        solver.solve(0.3, None)


def test_the_right_jacobian_reaches_the_closed_form_minimizer() -> None:
    sol = from_scipy(squares, np.zeros(3), jac=squares_jac).solve(0.3, None)
    np.testing.assert_allclose(sol.state, 0.3 * A + 0.7 * B, atol=1e-6)
    assert sol.info["success"]


# -- SLSQP's tolerance on objectives of small scale ------------------------------------------

N_ASSETS = 8
_RNG = np.random.default_rng(20240611)
MU = _RNG.uniform(0.05, 0.15, N_ASSETS)
_F = _RNG.normal(size=(N_ASSETS, N_ASSETS))
_COV = _F @ _F.T + 0.1 * np.eye(N_ASSETS)
SIGMA = 0.01 + 0.04 * (_COV / np.max(np.diag(_COV)))  # variances ~0.01-0.05, still SPD
SUM_TO_ONE = LinearConstraint(np.ones((1, N_ASSETS)), 1.0, 1.0)
BOX = [(0.0, 1.0)] * N_ASSETS


def portfolio(x: np.ndarray) -> np.ndarray:
    """Mean-variance portfolio: (-mean return, variance), both minimized."""
    return np.array([-MU @ x, x @ SIGMA @ x])


def portfolio_argmin(w: float) -> np.ndarray:
    """Exact minimizer of ``w (-mu'x) + (1 - w) x' Sigma x`` on the simplex, by enumerating
    the supports ``S``: the KKT system ``2 (1 - w) Sigma_SS x_S = w mu_S + nu``, ``sum x_S =
    1``, with ``x_S >= 0`` and non-negative multipliers off ``S``."""
    if w == 1.0:  # a linear program: all in the asset of largest mean
        return np.eye(N_ASSETS)[int(np.argmax(MU))]
    for size in range(1, N_ASSETS + 1):
        for support in itertools.combinations(range(N_ASSETS), size):
            s = list(support)
            kkt = np.zeros((size + 1, size + 1))
            kkt[:size, :size] = 2 * (1 - w) * SIGMA[np.ix_(s, s)]
            kkt[:size, size] = -1.0
            kkt[size, :size] = 1.0
            sol = np.linalg.solve(kkt, np.append(w * MU[s], 1.0))
            x = np.zeros(N_ASSETS)
            x[s] = sol[:size]
            multipliers = 2 * (1 - w) * SIGMA @ x - w * MU - sol[size]
            if x.min() >= -1e-12 and multipliers.min() >= -1e-12:
                return x
    raise AssertionError(f"no support satisfies the KKT conditions at w = {w}")


def test_portfolio_exact_minimizer_is_optimal() -> None:
    # the reference is itself checked: no feasible random portfolio does better
    rng = np.random.default_rng(0)
    trial = rng.dirichlet(np.full(N_ASSETS, 0.3), size=2000)
    for w in (0.0, 0.4, 0.9):
        best = float(np.array([w, 1 - w]) @ portfolio(portfolio_argmin(w)))
        values = -w * trial @ MU + (1 - w) * np.einsum("ij,jk,ik->i", trial, SIGMA, trial)
        assert best <= values.min() + 1e-12


def test_slsqp_with_constraints_converges_on_objectives_of_small_scale() -> None:
    """Before: scipy's absolute ftol=1e-6 stopped the warm-started SLSQP calls where they
    started (the objectives change by ~1e-7 between rounds): points up to 3% of the front's
    extent off their optima and CV 0.2, with success=True. The problem is now scaled, so that
    the default tolerance is relative: points within 3e-4 of the extent, CV 0.03."""
    solver = from_scipy(
        portfolio, np.full(N_ASSETS, 1 / N_ASSETS), bounds=BOX, constraints=SUM_TO_ONE
    )
    assert solver.method == "SLSQP"
    # alpha="auto" alternates full and half steps on this front (0.0068 of weight change a
    # round, CV 0.06 after 40 rounds): the damped iteration is what converges here
    res = ps.surf(solver, 10, iterations=15, alpha=0.3)
    exact = np.array([portfolio(portfolio_argmin(float(w))) for w in res.weights])
    extent = np.ptp(exact, axis=0)
    assert np.all(np.abs(res.points - exact) <= 1e-3 * extent)
    assert res.success and res.cv < 0.05


def test_the_users_ftol_still_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []
    real = scipy_solver.minimize

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(dict(kwargs["options"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(scipy_solver, "minimize", spy)
    x0 = np.full(N_ASSETS, 1 / N_ASSETS)
    linear = {"scalarization": "linear"}  # ("auto" would solve the ends when made)
    from_scipy(portfolio, x0, bounds=BOX, constraints=SUM_TO_ONE, **linear).solve(0.5, None)
    from_scipy(
        portfolio, x0, bounds=BOX, constraints=SUM_TO_ONE, options={"ftol": 1e-3}, **linear
    ).solve(0.5, None)
    from_scipy(squares, np.zeros(3)).solve(0.5, None)  # L-BFGS-B: scipy's own at w = 0.5
    from_scipy(squares, np.zeros(3)).solve(0.999, None)  # ... per the lighter coefficient
    from_scipy(squares, np.zeros(3), options={"ftol": 1e-3}).solve(0.999, None)
    assert [o.get("ftol") for o in seen] == pytest.approx(
        [1e-9, 1e-3, 2.220446049250313e-09, 2.220446049250313e-09 * 0.001 / 0.999, 1e-3]
    )  # SLSQP_FTOL, yours, scipy's, scipy's relative to the larger coefficient, yours


def zdt1(x: np.ndarray) -> np.ndarray:
    g = 1.0 + 9.0 * np.mean(x[1:])
    return np.array([x[0], g * (1.0 - np.sqrt(x[0] / g))])


@pytest.mark.parametrize("w", [0.001, 0.5, 0.999])
def test_a_lopsided_weight_still_reaches_the_front(w: float) -> None:
    """ZDT1's weighted sum at w = 0.999 barely weighs f2: with L-BFGS-B's absolute
    reduction test the solve stopped with f2 at 5.5 (g far above 1) and success=True. The
    minimizer is closed-form: g = 1 and f1 = ((1 - w) / (2 w))^2."""
    sol = from_scipy(zdt1, np.full(30, 0.5), bounds=[(0.0, 1.0)] * 30).solve(w, None)
    f1, f2 = sol.objectives
    assert f2 == pytest.approx(1.0 - np.sqrt(f1), abs=1e-3)  # on the front (g = 1)
    assert f1 == pytest.approx(min(((1 - w) / (2 * w)) ** 2, 1.0), abs=1e-3)


def test_linear_and_epigraph_slsqp_share_the_scale() -> None:
    """One scale serves both forms: the largest floored term at the start, never 0."""
    lin, tch = Scalarization("linear"), Scalarization("tchebycheff", ideal=[-1.0, -1.0])
    h = np.array([0.0, 0.02])
    # w = 1 at objective 1's minimum (0): the floor keeps objective 2's size in the scale
    assert scipy_solver._problem_scale(lin, lin.coefficients(1.0), h) == pytest.approx(2e-6)
    assert scipy_solver._problem_scale(lin, lin.coefficients(0.5), h) == pytest.approx(0.01)
    assert scipy_solver._problem_scale(lin, lin.coefficients(0.5), np.zeros(2)) == 1.0
    assert scipy_solver._problem_scale(tch, tch.coefficients(0.5), h) == pytest.approx(0.51)


# -- the achievement scalarization with two objectives ----------------------------------------


def test_asf_with_two_objectives_is_refused_at_construction() -> None:
    # before: accepted, then every solve of ps.surf (scalar weights) failed, after a retry
    for scalarization in ("asf", Scalarization("asf", ideal=[-1.0, -1.0])):
        with pytest.raises(
            ValueError,
            match=r"'asf' needs three or more objectives.*"
            r"'modified_tchebycheff'",
        ):
            from_scipy(squares, np.zeros(3), scalarization=scalarization)


def test_modified_tchebycheff_solves_what_asf_would_for_two_objectives() -> None:
    """The remedy the refusal names: for two objectives the coefficients of 'asf' with the
    weight vector [1 - w, w] are those of 'modified_tchebycheff' with the scalar weight w."""
    asf = Scalarization("asf", ideal=[0.0, 0.0])
    mod = Scalarization("modified_tchebycheff", ideal=[0.0, 0.0])
    for w in (0.0, 1e-5, 0.3, 0.5, 0.9, 1.0):
        np.testing.assert_allclose(asf.coefficients([1 - w, w]), mod.coefficients(w))
    res = ps.surf(
        from_scipy(squares, np.zeros(3), scalarization="modified_tchebycheff"), 6, iterations=3
    )
    assert res.points.shape == (7, 2)
