"""The shared simplex check: one function, one tolerance, every problem."""

from __future__ import annotations

import re

import numpy as np
import pytest

from paretosurf.problems import EntropicBandit, RegularizedMDP, TabularModel
from paretosurf.problems._simplex import SIMPLEX_TOL, check_simplex


def test_simplex_tolerance_is_one_named_constant() -> None:
    assert SIMPLEX_TOL == 1e-8


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_check_simplex_accepts_rows_within_the_tolerance(sign: float) -> None:
    delta = sign * 0.9 * SIMPLEX_TOL
    p = np.array([[0.25, 0.75], [0.5, 0.5 + delta], [1.0, 0.0]])
    out = check_simplex(p, name="policy")
    assert out is p
    check_simplex(p[1], name="policy")
    check_simplex(np.array([0.3, 0.7 + delta]), name="ref_policy", positive=True)


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("arg", ["policy", "rho", "weights"])
def test_check_simplex_rejects_rows_beyond_the_tolerance(sign: float, arg: str) -> None:
    delta = sign * 1.5 * SIMPLEX_TOL
    p = np.array([[0.25, 0.75], [0.5, 0.5 + delta]])
    worst = f"1 {'+' if sign > 0 else '-'} 1.5e-08"
    with pytest.raises(ValueError, match=rf"^{arg} must sum to 1 .*{re.escape(worst)}$"):
        check_simplex(p, name=arg)
    with pytest.raises(ValueError, match=rf"^{arg} must sum to 1 .*it sums to"):
        check_simplex(p[1], name=arg)


@pytest.mark.parametrize(
    "p, positive, message",
    [
        ([0.5, np.nan], False, "must be finite"),
        ([0.5, np.inf], False, "must be finite"),
        ([1.5, -0.5], False, "must be non-negative"),
        ([1.0, 0.0], True, "must be strictly positive"),
        ([[0.5, 0.5], [0.4, 0.4]], False, "must sum to 1"),
    ],
)
def test_check_simplex_names_the_argument(p: list, positive: bool, message: str) -> None:
    with pytest.raises(ValueError, match=f"^my_arg {message}"):
        check_simplex(np.array(p), name="my_arg", positive=positive)


def test_problems_share_the_tolerance() -> None:
    near, far = 0.5 * SIMPLEX_TOL, 2.0 * SIMPLEX_TOL
    # RegularizedMDP: transition rows, initial distribution, reference policy, policies
    P = np.full((2, 2, 2), 0.5)
    R = np.arange(8.0).reshape(2, 2, 2)
    ref = [[0.5, 0.5 + near]] * 2
    RegularizedMDP(P + np.array([0.0, near]), R, 0.9, [0.5, 0.5 + near], 1.0, ref)
    with pytest.raises(ValueError, match=r"^P must sum to 1"):
        RegularizedMDP(P + np.array([0.0, far]), R, 0.9, [0.5, 0.5], 1.0)
    with pytest.raises(ValueError, match=r"^rho must sum to 1"):
        RegularizedMDP(P, R, 0.9, [0.5, 0.5 + far], 1.0)
    with pytest.raises(ValueError, match=r"^ref_policy must sum to 1"):
        RegularizedMDP(P, R, 0.9, [0.5, 0.5], 1.0, [[0.5, 0.5 + far]] * 2)
    mdp = RegularizedMDP(P, R, 0.9, [0.5, 0.5], 1.0)
    mdp.objectives(np.array([[0.5, 0.5 + near], [1.0, 0.0]]))
    with pytest.raises(ValueError, match=r"^policy must sum to 1"):
        mdp.objectives(np.array([[0.5, 0.5 + far], [1.0, 0.0]]))
    # weight vectors of a three-objective MDP
    mdp3 = RegularizedMDP(P, np.arange(12.0).reshape(3, 2, 2), 0.9, [0.5, 0.5], 1.0)
    mdp3.solve_weights([[0.2, 0.3, 0.5 + near]])
    with pytest.raises(ValueError, match=r"^weights must sum to 1.*simplex"):
        mdp3.solve_weights([[0.2, 0.3, 0.5 + far]])
    # EntropicBandit: reference policy and policies
    bandit = EntropicBandit([1.0, 0.0], [0.0, 1.0], 1.0, [0.5, 0.5 + near])
    bandit.objectives([0.5, 0.5 + near])
    with pytest.raises(ValueError, match=r"^ref_policy must sum to 1"):
        EntropicBandit([1.0, 0.0], [0.0, 1.0], 1.0, [0.5, 0.5 + far])
    with pytest.raises(ValueError, match=r"^x must sum to 1"):
        bandit.objectives([0.5, 0.5 + far])
    # TabularModel: transition rows, initial distribution, policies
    labels = (("a", "b"), ("stay", "move"), ("r1", "r2"))
    model = TabularModel(P + np.array([0.0, near]), R, np.array([0.5, 0.5 + near]), *labels)
    model.discounted_returns([[0.5, 0.5 + near], [1.0, 0.0]], 0.9)
    with pytest.raises(ValueError, match=r"^P must sum to 1"):
        TabularModel(P + np.array([0.0, far]), R, np.array([0.5, 0.5]), *labels)
    with pytest.raises(ValueError, match=r"^rho must sum to 1"):
        TabularModel(P, R, np.array([0.5, 0.5 + far]), *labels)
    with pytest.raises(ValueError, match=r"^policy must sum to 1"):
        model.discounted_returns([[0.5, 0.5 + far], [1.0, 0.0]], 0.9)
