"""Fronts that are curves (``paretosurf.surfaces.curve_positions``, ``curve_ends``,
``segment_parameter``, ``segment_weights``, ``merge_curve_rounds``): positions along a curve
against its arc length in closed form, ends against the weights that reached them, the
segment's invariants, and the quantiles of SURF's CDF from two rounds' knots against a steep
map's closed form."""

from __future__ import annotations

import numpy as np
import pytest

from paretosurf.methods._surf import CDFRefinement
from paretosurf.surfaces import (
    CURVE_MERGE_SLACK,
    CURVE_TIE,
    END_TOLERANCE,
    curve_end_bands,
    curve_end_status,
    curve_ends,
    curve_positions,
    merge_curve_rounds,
    segment_parameter,
    segment_weights,
)


def helix(t: np.ndarray) -> np.ndarray:
    """A helix of speed sqrt(2): its arc length from 0 is ``sqrt(2) t``."""
    return np.c_[np.cos(t), np.sin(t), t]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_positions_are_arc_lengths_in_any_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0.0, 3.0, 200))
    t[0], t[-1] = 0.0, 3.0
    shuffled = rng.permutation(200)
    position = curve_positions(helix(t[shuffled]))
    # one of the two ends is 0; the chords of a dense sample are the arc length to 1e-4
    truth = np.sqrt(2.0) * t[shuffled]
    if position[shuffled.tolist().index(0)] != 0.0:
        truth = truth.max() - truth
    np.testing.assert_allclose(position, truth, atol=1e-3 * truth.max())


def test_duplicates_and_a_point_off_the_path_take_a_position_of_the_path() -> None:
    t = np.linspace(0.0, 1.0, 11)
    points = np.c_[t, 1.0 - t, t**2]
    doubled = np.vstack([points, points[4]])  # a solve that landed on another's point
    position = curve_positions(doubled)
    assert position[-1] == position[4]
    # a branch of the tree: off the curve at right angles to it (its tangent is (1, -1, 2t))
    off = np.vstack([points, points[6] + [0.007, 0.007, 0.0]])
    position = curve_positions(off)
    assert position[-1] == position[6]
    # positions increase along the curve (monotone), from 0
    assert position[0] == 0.0 and np.all(np.diff(position[:11]) > 0)


def test_one_point_and_bad_shapes() -> None:
    np.testing.assert_array_equal(curve_positions(np.ones((3, 3))), np.zeros(3))
    with pytest.raises(ValueError, match="non-empty 2-D"):
        curve_positions(np.ones(3))
    with pytest.raises(ValueError, match="one shape"):
        curve_ends(np.ones((3, 3)), np.ones((2, 3)))


def test_the_ends_are_the_weights_nearest_the_inside_among_those_that_reached_them() -> None:
    """A plateau: three weights reach the end (0, 0, 1); the one nearest the weights of
    the next point inwards is the end, so the segment crosses the least of the plateau."""
    t = np.array([0.0, 0.0, 0.0, 0.3, 0.6, 1.0])
    points = np.c_[t, t, 1.0 - t]
    weights = np.array(
        [
            [0.0, 0.0, 1.0],
            [0.05, 0.05, 0.9],
            [0.1, 0.1, 0.8],
            [0.2, 0.2, 0.6],
            [0.3, 0.3, 0.4],
            [0.5, 0.5, 0.0],
        ]
    )
    ends = curve_ends(weights, points)
    np.testing.assert_array_equal(ends, weights[[2, 5]])


def test_the_bands_run_from_their_border_into_the_band() -> None:
    """The same plateau: the band of the end (0, 0, 1) lists its three weights by their
    distance to the next weight inwards, the border first; the other end's band is its one
    weight; curve_ends takes each band's first."""
    t = np.array([0.0, 0.0, 0.0, 0.3, 0.6, 1.0])
    points = np.c_[t, t, 1.0 - t]
    weights = np.array(
        [
            [0.0, 0.0, 1.0],
            [0.1, 0.1, 0.8],
            [0.05, 0.05, 0.9],
            [0.2, 0.2, 0.6],
            [0.3, 0.3, 0.4],
            [0.5, 0.5, 0.0],
        ]
    )
    first, last = curve_end_bands(weights, points)
    np.testing.assert_array_equal(first, weights[[1, 2, 0]])
    np.testing.assert_array_equal(last, weights[[5]])
    np.testing.assert_array_equal(curve_ends(weights, points), np.stack([first[0], last[0]]))


@pytest.mark.parametrize("seed", [0, 1])
def test_an_end_is_lost_where_the_points_stop_short_of_it_by_a_share_of_their_spacing(
    seed: int,
) -> None:
    """Points along a helix from t = 0 to t = 1 (eleven, in any order; spacing 0.1 in t):
    a known end at t = -s lies beyond their end by s (in t), so it is reached for
    s <= END_TOLERANCE * 0.1 and lost beyond; a known end inside their path (t = 0.15)
    was passed. The arc length is sqrt(2) t at both the points' spacing and the distance."""
    rng = np.random.default_rng(seed)
    t = rng.permutation(np.linspace(0.0, 1.0, 11))
    points = helix(t)
    for s, status in [
        (0.0, "reached"),
        (0.8 * END_TOLERANCE * 0.1, "reached"),
        (1.2 * END_TOLERANCE * 0.1, "lost"),
        (0.3, "lost"),
    ]:
        assert curve_end_status(points, helix(np.array([-s]))[0]) == status, s
        assert curve_end_status(points, helix(np.array([1.0 + s]))[0]) == status, s
    assert curve_end_status(points, helix(np.array([0.15]))[0]) == "passed"
    with pytest.raises(ValueError, match="end"):
        curve_end_status(points, np.ones(2))


def test_segment_weights_stay_on_the_simplex_and_invert_the_parameter() -> None:
    rng = np.random.default_rng(5)
    ends = rng.dirichlet(np.ones(4), size=2)
    at = np.sort(rng.random(50))
    w = segment_weights(at, ends)
    assert np.all(w >= 0.0)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    np.testing.assert_allclose(segment_parameter(w, ends), at, atol=1e-12)
    # a weight off the segment projects onto it, clipped to the ends
    np.testing.assert_allclose(segment_parameter(ends[[1, 0]] * 2 - ends[[0, 1]], ends), [1, 0])
    same = np.repeat(ends[:1], 2, axis=0)
    np.testing.assert_array_equal(segment_parameter(w, same), np.zeros(50))


def steep(t: np.ndarray) -> np.ndarray:
    """A straight curve reached steeply near ``t = 0``: arc length ``sqrt(t)``."""
    return np.c_[np.sqrt(t), np.zeros_like(t), np.zeros_like(t)]


def quantile_error(at: np.ndarray, points: np.ndarray, n: int) -> float:
    """Largest relative error of the n - 1 interior quantiles of SURF's CDF estimated (one
    full step) from the knots ``at`` against the steep map's own, ``t = (k / n)^2``: near
    ``t = 0``, where the map is steep, the error is a share of the small ``t`` itself."""
    order = np.argsort(at, kind="stable")
    refine = CDFRefinement(1.0)
    refine.update(at[order], points[order])
    truth = np.linspace(0.0, 1.0, n + 1)[1:-1] ** 2
    return float(np.max(np.abs(refine.cdf.quantile_weights(n)[1:-1] - truth) / truth))


def test_an_earlier_rounds_knots_place_the_quantiles_of_a_steep_map() -> None:
    # the current round near the fixed point of the damped iteration, the earlier one a
    # step behind it (inside the steep stretch), as SURF's rounds approach it
    n = 8
    now = np.linspace(0.0, 1.0, n + 1) ** 2 * 1.3
    now[-1] = 1.0
    before = np.linspace(0.0, 1.0, n + 1) ** 2 * 0.8
    at, points = merge_curve_rounds(now, steep(now), before, steep(before))
    # the current knots first, then the earlier ones not tied to them (t = 0 is)
    np.testing.assert_array_equal(at[: n + 1], now)
    np.testing.assert_array_equal(np.sort(at[n + 1 :]), before[1:])
    alone = quantile_error(now, steep(now), n)
    merged = quantile_error(at, points, n)
    assert alone > 0.05  # the round alone misplaces the first quantile by 6% of it
    assert merged < 0.5 * alone, (merged, alone)


def test_rounds_that_are_not_one_curve_are_not_merged() -> None:
    t = np.linspace(0.0, 1.0, 6)
    before = np.linspace(0.05, 0.95, 5)
    # a solver's noise: the earlier points zigzag off the current ones' line
    noisy = steep(before) + np.c_[np.zeros(5), np.resize([0.1, -0.1], 5), np.zeros(5)]
    at, points = merge_curve_rounds(t, steep(t), before, noisy)
    np.testing.assert_array_equal(at, t)
    np.testing.assert_array_equal(points, steep(t))
    # noise well inside the slack is one curve
    quiet = steep(before) + np.c_[np.zeros(5), np.resize([1e-4, -1e-4], 5), np.zeros(5)]
    assert len(merge_curve_rounds(t, steep(t), before, quiet)[0]) == 11
    # the slack is the share by which the path may lengthen
    assert 0.0 < CURVE_MERGE_SLACK < 0.5


def test_parameters_solved_again_add_no_knot() -> None:
    t = np.linspace(0.0, 1.0, 5)
    at, points = merge_curve_rounds(t, steep(t), t + 0.5 * CURVE_TIE, steep(t) + 1e-3)
    np.testing.assert_array_equal(at, t)
    np.testing.assert_array_equal(points, steep(t))
    # fewer than two current knots, or no earlier ones: the round alone
    assert len(merge_curve_rounds(t[:1], steep(t[:1]), t, steep(t))[0]) == 1
    assert len(merge_curve_rounds(t, steep(t), t[:0], steep(t[:0]))[0]) == 5
