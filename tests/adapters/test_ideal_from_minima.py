"""The estimated ideal point of the scalarizations with ``1 / w`` coefficients (``"asf"``,
``"modified_tchebycheff"``) takes no margin from the other objectives' values at the solves of
each objective alone: a margin that grows with values far off the front blinds the
achievement scalarization's corner solves, and the same problem in other units failed."""

from __future__ import annotations

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.adapters import from_pymoo, from_scipy
from paretosurf.adapters.scalarization import (
    IDEAL_MARGIN_ABS,
    IDEAL_MARGIN_REL,
    RECIPROCAL_KINDS,
    IdealPoint,
)
from support import scaled_pymoo_problem


def test_the_margin_ignores_the_other_objectives_at_the_minima() -> None:
    near = IdealPoint.from_minima([[0.0, 1.0, 2.0], [1.0, 0.5, 2.0], [1.0, 1.0, -1.0]])
    far = IdealPoint.from_minima([[0.0, 1e4, 3e5], [7e3, 0.5, 2e6], [1e5, 4e4, -1.0]])
    assert near.value is not None and far.value is not None
    np.testing.assert_array_equal(near.value, far.value)
    best = np.array([0.0, 0.5, -1.0])
    np.testing.assert_allclose(far.value, best - IDEAL_MARGIN_ABS * np.maximum(1.0, abs(best)))
    # with the solves' start, each objective's own descent sets its margin
    start = [2.0, 3.0, 1.0]
    near = IdealPoint.from_minima([[0.0, 1.0, 2.0], [1.0, 0.5, 2.0], [1.0, 1.0, -1.0]], start=start)
    far = IdealPoint.from_minima([[0.0, 1e4, 3e5], [7e3, 0.5, 2e6], [1e5, 4e4, -1.0]], start=start)
    assert near.value is not None and far.value is not None
    np.testing.assert_array_equal(near.value, far.value)
    descent = np.array(start) - best
    expected = best - (IDEAL_MARGIN_REL * descent + IDEAL_MARGIN_ABS * np.maximum(1.0, abs(best)))
    np.testing.assert_allclose(far.value, expected, rtol=0, atol=1e-15)
    # corners on the front (lexicographic ends) keep their spread's margin
    ends = IdealPoint.from_corners([[0.0, 1e4], [7e3, 0.5]])
    assert ends.value is not None
    assert ends.value[0] == pytest.approx(-(IDEAL_MARGIN_REL * 7e3 + IDEAL_MARGIN_ABS))


def test_the_first_observation_gives_the_margin_its_range_and_later_ones_keep_it() -> None:
    z = IdealPoint.from_minima([[0.0, 50.0], [40.0, 1.0]])
    assert z.observe([[0.0, 3.0], [2.0, 1.0], [1.0, 2.0]]) is True
    best, worst = np.array([0.0, 1.0]), np.array([2.0, 3.0])
    expected = best - (IDEAL_MARGIN_REL * (worst - best) + IDEAL_MARGIN_ABS)
    assert z.value is not None
    np.testing.assert_allclose(z.value, expected, rtol=0, atol=1e-15)
    # values above it and within the range move nothing
    assert z.observe([[0.5, 1.5], [1.5, 2.5]]) is False
    np.testing.assert_array_equal(z.value, expected)


@pytest.mark.parametrize("kind", ["linear", "tchebycheff", *RECIPROCAL_KINDS])
def test_each_kind_takes_its_estimate(kind: str) -> None:
    values = [[0.0, 30.0], [20.0, 1.0]]
    z = IdealPoint.for_kind(values, kind)
    reference = (
        IdealPoint.from_minima(values)
        if kind in RECIPROCAL_KINDS
        else IdealPoint.from_corners(values)
    )
    assert z.value is not None and reference.value is not None
    np.testing.assert_array_equal(z.value, reference.value)


def test_an_asf_adapter_starts_just_below_each_objectives_own_minimum() -> None:
    def bowls(x: np.ndarray) -> np.ndarray:
        # each objective minimized alone leaves the others far off (1e3 times the front's)
        return np.array(
            [x[0] ** 2 + 1e3 * x[2] ** 2, (x[0] - 1) ** 2 + x[1] ** 2, x[1] ** 2 + (x[2] - 1) ** 2]
        )

    solver = from_scipy(bowls, np.zeros(3), scalarization="asf")
    assert solver.ideal is not None
    # each objective's minimum is 0 and its solve started at (0, 1, 1): the margin is the
    # objective's own descent's, whatever the others reached (1e3 in f1)
    descent = bowls(np.zeros(3))
    expected = -(IDEAL_MARGIN_REL * descent + IDEAL_MARGIN_ABS)
    np.testing.assert_allclose(solver.ideal, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("factors", [(100.0, 100.0, 100.0), (100.0, 10.0, 1.0)])
def test_dtlz1_in_other_units_is_spread_as_in_its_own(factors: tuple[float, float, float]) -> None:
    """DTLZ1 (the plane sum f = 1/2 over a multimodal distance function) with its objectives
    in other units: the same success, points on the plane and evenly spread as in its own
    units. With the margin taken from the corner solves (their third objective 1,162 times
    the front's extent in these units) every corner solve of ASF stopped off the front, and
    the run failed (``collapsed``, ``dominated``, ``local_minima``)."""
    problems = pytest.importorskip("pymoo.problems")
    scale = np.asarray(factors)
    problem = scaled_pymoo_problem(problems.get_problem("dtlz1", n_var=7, n_obj=3), factors)
    res = ps.surf_simplex(from_pymoo(problem, scalarization="asf"), 28, 3, progress=False)
    assert res.success, res.message
    own = res.points / scale
    np.testing.assert_allclose(own.sum(axis=1), 0.5, atol=1e-3)  # on the plane
    # every corner of the triangle reached, in the problem's own units
    for m in range(3):
        assert own[:, m].max() == pytest.approx(0.5, abs=1e-3)
    assert ps.metrics.nn_cv(own) < 0.1
