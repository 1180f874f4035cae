"""Fronts that are curves (``paretosurf.surfaces.curve_positions``, ``curve_ends``,
``segment_parameter``, ``segment_weights``): positions along a curve against its arc length
in closed form, ends against the weights that reached them, and the segment's invariants."""

from __future__ import annotations

import numpy as np
import pytest

from paretosurf.surfaces import curve_ends, curve_positions, segment_parameter, segment_weights


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
