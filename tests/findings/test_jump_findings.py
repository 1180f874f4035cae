"""Jumps of the front are found whatever their share of it, and a collapse names only findings
that are there: a disconnected front, a slot flipping across its gap from round to round, and
the local minima weighted sums stop in on a concave front."""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.findings import Finding, diagnose
from paretosurf.testing import gear_curve
from support import gear_x

#: The front x -> (x^2, (1 - x)^2) with x in [0, 0.4] and [0.6, 1]: a penalty dominates the
#: points in between, so the front is disconnected, and weighted sums jump across at w = 0.5.
GRID = np.linspace(0.0, 1.0, 20001)
F1 = GRID**2
F2 = (1 - GRID) ** 2 + 1.0 * ((GRID > 0.4) & (GRID < 0.6))


def disconnected(w: float, state: Any) -> ps.Solution:
    """The exact weighted-sum solver of the disconnected front, by search over the grid."""
    i = int(np.argmin(w * F1 + (1 - w) * F2))
    return ps.Solution([F1[i], F2[i]], i)


def codes(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings]


def test_a_slot_flipping_across_a_gap_from_round_to_round_is_a_jump() -> None:
    # SURF cannot fill the gap: the slot nearest it flips between w < 0.5 and w > 0.5
    # every round; one round alone shows a gap 1.9 times the median, 19% of the front
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf(disconnected, 10, iterations=30)
    last = diagnose(res.weights, res.points, res.points, normalize="none")
    assert "jump" not in codes(last)  # one round does not show it
    found = diagnose(res.weights, res.points, res.points, normalize="none", history=res.history)
    assert codes(found) == ["jump"] and found[0].fatal
    text = found[0].message
    assert "flips across the gap" in text and "more rounds will not settle it" in text
    assert "tchebycheff" in text
    # the gap reported is the one at w = 0.5, between the two pieces of the front
    low, high = map(float, re.findall(r"between weights ([0-9.]+) and ([0-9.]+)", text)[0])
    assert low < 0.5 < high


def test_the_run_reports_the_jump_its_history_shows() -> None:
    """``ps.surf`` diagnoses with its history: the run is not a success, and it does not
    advise more rounds, which cannot settle a slot that flips across the gap."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ps.ParetoWarning)
        res = ps.surf(disconnected, 10, iterations=30)
    assert codes(res.findings) == ["jump"] and not res.success
    assert "more rounds will not settle it" in next(
        f.message for f in res.findings if f.code == "jump"
    )
    assert any("jump" in str(w.message) for w in caught)


def test_a_gap_at_nearly_one_weight_is_a_jump_whatever_its_share() -> None:
    # the disconnected front with both ends of its gap at w = 0.5 (within 1e-6), as a
    # Tchebycheff solver puts them: a gap 1.9 times the median and 19% of the front
    x = np.array([1.0, 0.9, 0.8, 0.7, 0.6, 0.4, 0.3, 0.2, 0.1, 0.0])
    w = np.array([0.0, 0.1, 0.2, 0.3, 0.5, 0.5 + 1e-6, 0.7, 0.8, 0.9, 1.0])
    pts = np.c_[x**2, (1 - x) ** 2]
    gaps = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    assert gaps[4] < 0.2 * gaps.sum() and gaps[4] < 2 * np.median(gaps)
    found = diagnose(w, pts, pts, normalize="none")
    assert codes(found) == ["jump"]
    assert "between weights 0.5 and 0.500001 (17% of its length)" in found[0].message
    assert "tchebycheff" in found[0].message
    # a solver that does not minimize the weighted sum: the front is disconnected there
    other = diagnose(w, pts, pts, normalize="none", weighted_sum=False)
    assert codes(other) == ["jump"] and "disconnected" in other[0].message
    # the same points, with weights that move with them, are a smooth front's
    smooth = diagnose(1 - x, pts, pts, normalize="none")
    assert smooth == []


def test_smooth_and_noisy_fronts_show_no_jump_with_their_history() -> None:
    rng = np.random.default_rng(0)

    def noisy(w: float, state: Any) -> ps.Solution:
        return ps.Solution(gear_curve(gear_x(w)) + 0.01 * rng.standard_normal(2))

    solvers = [
        ps.problems.GearToy(9).solver(),
        ps.problems.GearToy(2).gradient_solver(steps=3),
        noisy,
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        for solver in solvers:
            for alpha in (0.3, 1.0):
                res = ps.surf(solver, 20, iterations=15, alpha=alpha)
                found = diagnose(
                    res.weights, res.points, res.points, normalize="none", history=res.history
                )
                assert "jump" not in codes(found), (alpha, found)


def test_tnk_under_tchebycheff_reports_its_jumps() -> None:
    pytest.importorskip("pymoo")
    from pymoo.problems import get_problem

    solver = ps.adapters.from_pymoo(get_problem("tnk"), scalarization="tchebycheff")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)  # (the driver does not pass both)
        # without basin probes: at weight 0.66 a probe finds the Tchebycheff optimum across
        # the gap from slot 8's point, and SURF then moves that slot's weight onto a local
        # piece of TNK's wavy boundary, where it ends dominated (the jump is still reported)
        res = ps.surf(solver, 10, iterations=60, probes=False, warm_start="slot")
    coords = ps.spacing.Spacing("endpoints")
    coords.fit(res.points)
    found = diagnose(
        res.weights,
        res.points,
        coords(res.points),
        normalize="endpoints",
        history=res.history,
        weighted_sum=False,
    )
    assert codes(found) == ["jump"]
    assert len(re.findall(r"\(\d+% of its length\)", found[0].message)) == 2  # both gaps
    # the one-piece layout ("slot") reports no pieces and does not cover them evenly
    assert res.pieces is None
    assert not res.success
    # laid out by pieces ("best"), the run reports them: each gap the finding names lies
    # between two of them
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        laid = ps.surf(solver, 10, iterations=60, warm_start="best")
    assert laid.pieces is not None and len(laid.pieces) >= 2
    seen = diagnose(
        laid.weights,
        laid.points,
        coords(laid.points),
        normalize="endpoints",
        history=laid.history,
        weighted_sum=False,
    )
    breaks = {p.last for p in laid.pieces[:-1]}
    for finding in seen:
        if finding.code == "jump":
            assert set(finding.slots[0::2]) <= breaks


# ----------------------------------------------------- a collapse names what is found below
#: the causes the collapsed finding names, and the finding each refers to
_CAUSES = {
    "an endpoint is only weakly Pareto-optimal": "endpoint",
    "the front has a jump": "jump",
    "not optimal at their own weights (see": "unconverged",
}


def assert_collapse_refers_to_present_findings(found: list[Finding]) -> None:
    collapsed = next(f for f in found if f.code == "collapsed")
    named = {code for text, code in _CAUSES.items() if text in collapsed.message}
    assert named <= set(codes(found)), (named, codes(found))


def concave_local_minima() -> tuple[np.ndarray, np.ndarray]:
    """ZDT2 under weighted sums, as L-BFGS-B leaves it: every slot at one end of the concave
    front (1 - f1^2), most of them in the local minimum at the wrong end for their weight."""
    w = np.r_[0.001, 0.2310321 + 1e-13 * np.arange(9), 0.999]
    pts = np.array([[1.0, 0.0]] * 3 + [[0.0, 1.0]] * 8)
    pts[[5, 6, 8], 1] += [7e-8, 2e-7, 1.2e-7]  # L-BFGS-B's tolerance
    return w, pts


def test_local_minima_of_a_concave_front_are_a_jump_not_short_solves() -> None:
    w, pts = concave_local_minima()
    found = diagnose(w, pts, pts, normalize="none")
    assert codes(found)[:2] == ["collapsed", "jump"] and "unconverged" not in codes(found)
    assert_collapse_refers_to_present_findings(found)
    jump = next(f for f in found if f.code == "jump").message
    assert "local minima" in jump and "tchebycheff" in jump
    assert "more steps per call" not in jump and "more rounds" not in jump


def test_zdt2_under_weighted_sums_leads_with_tchebycheff() -> None:
    pytest.importorskip("pymoo")
    from pymoo.problems import get_problem

    solver = ps.adapters.from_pymoo(get_problem("zdt2", n_var=5), scalarization="linear")
    with pytest.warns(ps.ParetoWarning):
        res = ps.surf(solver, 10, iterations=30, weight_bounds=(1e-3, 1 - 1e-3))
    assert "jump" in codes(res.findings) and "unconverged" not in codes(res.findings)
    assert_collapse_refers_to_present_findings(res.findings)
    assert not res.success and not res.converged


def test_a_collapse_next_to_a_short_solve_does_not_point_to_a_jump() -> None:
    # as above, but the slot next to the gap stopped short of the far end (on the front, on
    # no other slot's point): that is a solve to finish, not a jump
    w, pts = concave_local_minima()
    pts[3] = [1e-3, 1 - 1e-6]
    found = diagnose(w, pts, pts, normalize="none")
    assert {"collapsed", "unconverged"} <= set(codes(found)) and "jump" not in codes(found)
    assert_collapse_refers_to_present_findings(found)


def test_a_steep_stretch_at_evenly_spaced_weights_is_not_a_jump() -> None:
    """Uniform-w's even weights leave a large gap where the front is steep in the weight
    (continuous, reached by every weight there): no finding of a jump."""
    t = np.linspace(0.0, 1.0, 11)
    x = 1.0 / (1.0 + np.exp(-40.0 * (t - 0.5)))  # the point moves fast near w = 0.5
    pts = np.c_[x**2, (1 - x) ** 2]
    gaps = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    assert gaps.max() > 0.4 * gaps.sum() and gaps.max() > 50 * np.median(gaps)
    assert "jump" not in codes(diagnose(t, pts, pts, normalize="none"))
