"""Fronts that are curves in three or more objectives: order the points along the curve and
lay weights out evenly by arc length along it.

Where two objectives never conflict (DTLZ5, DTLZ6) the front of M = 3 objectives is a curve,
not a surface: whole bands of the weight simplex reach one stretch of it, and no layout of
the simplex spaces the points evenly along it. Along a curve the problem is SURF's own (one
parameter, arc length), and the weights that reach it are known from the solves:

- :func:`curve_positions` orders a round's points along the curve they lie on, by the
  longest path of their minimum spanning tree (the curve's chain of nearest neighbours;
  scipy's ``minimum_spanning_tree`` and ``shortest_path``), and gives each its arc-length
  position: the chord lengths summed along that path. A point off the path (a short branch
  of the tree, or a duplicate) takes the position of the path's point nearest to it.
- :func:`curve_ends` gives the weights that reached the curve's two ends. On the segment
  between them (:func:`segment_weights`, :func:`segment_parameter`) every weight reaches
  the curve, and its point runs from one end to the other as the weight moves along it: one
  parameter, on which :func:`paretosurf.surf_simplex` runs SURF's own arc-length CDF.

No library orders scattered points along a curve by their spanning tree's longest path,
hence the code here (scipy gives the tree and the paths).

Examples
--------
>>> import numpy as np
>>> from paretosurf.surfaces import curve_ends, curve_positions
>>> t = np.array([0.0, 0.1, 0.2, 0.9, 1.0])              # crowded at one end
>>> points = np.c_[t, t, 1.0 - t]
>>> weights = np.c_[t, np.zeros(5), 1.0 - t]              # the weight that reached each
>>> np.round(curve_positions(points) / np.sqrt(3.0), 6)
array([0. , 0.1, 0.2, 0.9, 1. ])
>>> curve_ends(weights, points)
array([[0., 0., 1.],
       [1., 0., 0.]])
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.sparse.csgraph import minimum_spanning_tree, shortest_path
from scipy.spatial import cKDTree
from scipy.spatial.distance import pdist, squareform

from paretosurf.curves import chord_lengths

__all__ = [
    "CURVE_MERGE_SLACK",
    "CURVE_TIE",
    "END_TOLERANCE",
    "curve_end_bands",
    "curve_end_shortfall",
    "curve_end_status",
    "curve_ends",
    "curve_positions",
    "merge_curve_rounds",
    "segment_parameter",
    "segment_weights",
]

FloatArray = NDArray[np.float64]

#: Points closer than this share of the curve's extent (the largest distance between two
#: points) are one point of the curve: their positions are equal.
CURVE_TIE = 1e-9
#: :func:`merge_curve_rounds`: the two rounds' points are one curve while the path through
#: them all is at most this share longer than the path through the current round's alone.
CURVE_MERGE_SLACK = 0.05
#: :func:`curve_end_status`: an end the points stop short of by more than this share of
#: their mean spacing along the curve is lost.
END_TOLERANCE = 0.25


def _distinct(points: FloatArray) -> tuple[FloatArray, NDArray[np.intp]]:
    """The distinct rows of ``points`` (to :data:`CURVE_TIE` of their extent) and, for each
    row, the index of its distinct row; the first of each group stands for it."""
    extent = float(np.max(pdist(points))) if len(points) > 1 else 0.0
    if extent <= 0.0:
        return points[:1], np.zeros(len(points), dtype=np.intp)
    tree = cKDTree(points)
    label = np.full(len(points), -1, dtype=np.intp)
    kept: list[int] = []
    for i in range(len(points)):
        if label[i] >= 0:
            continue
        label[tree.query_ball_point(points[i], CURVE_TIE * extent)] = len(kept)
        kept.append(i)
    return points[kept], label


def curve_positions(points: FloatArray) -> FloatArray:
    """Arc-length position of each point along the curve the points lie on.

    Parameters
    ----------
    points : ndarray, shape (P, M)
        Points on (or near) a curve, in the coordinates the spacing is measured in.

    Returns
    -------
    ndarray, shape (P,)
        Positions from 0 (one end of the curve) to the length of the chain of points along
        the longest path of their minimum spanning tree; coincident points share a position,
        and a point off that path takes the position of the path's point nearest to it.
        Position 0 is the end of the path whose point comes first in ``points``.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.surfaces import curve_positions
    >>> t = np.array([0.5, 0.0, 1.0, 0.25])   # in any order; chords of a helix of speed sqrt(2)
    >>> np.round(curve_positions(np.c_[np.cos(t), np.sin(t), t]), 3)
    array([0.706, 0.   , 1.41 , 0.353])
    """
    x = np.asarray(points, dtype=np.float64)
    if x.ndim != 2 or len(x) == 0:
        raise ValueError(f"points must be a non-empty 2-D array, got shape {np.shape(points)}")
    distinct, label = _distinct(x)
    n = len(distinct)
    if n == 1:
        return np.zeros(len(x))
    distances = squareform(pdist(distinct))
    tree = minimum_spanning_tree(distances)
    hops = shortest_path(tree, directed=False)
    # the tree's longest path (its diameter): from the farthest vertex of vertex 0 to the
    # vertex farthest from that one
    start = int(np.argmax(hops[0]))
    end = int(np.argmax(hops[start]))
    if start > end:  # the same path whatever vertex the search began at
        start, end = end, start
    _, predecessors = shortest_path(tree, directed=False, indices=start, return_predecessors=True)
    path = [end]
    while path[-1] != start:
        path.append(int(predecessors[path[-1]]))
    path.reverse()
    chain = distinct[path]
    along = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(chain, axis=0), axis=1))])
    position = np.empty(n)
    position[path] = along
    off = np.setdiff1d(np.arange(n), path)
    if off.size:
        position[off] = along[cKDTree(chain).query(distinct[off])[1]]
    return np.asarray(position[label], dtype=np.float64)


def curve_end_bands(weights: FloatArray, points: FloatArray) -> tuple[FloatArray, FloatArray]:
    """For each end of the curve the ``points`` lie on, the weights that reached it.

    Parameters
    ----------
    weights : ndarray, shape (P, M)
        The weight vectors solved.
    points : ndarray, shape (P, M)
        The points they reached (on a curve), in the coordinates the spacing is measured in.

    Returns
    -------
    tuple of two ndarrays, shapes (K0, M) and (K1, M)
        The weights whose points lie at position 0 of :func:`curve_positions`, then those at
        its largest position; each ordered by their distance to the weights of the next
        position inwards, nearest first. Where a stretch of the simplex maps onto one end (a
        band), the first weight lies at the band's border and the later ones deeper in it.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.surfaces import curve_end_bands
    >>> t = np.array([0.0, 0.0, 0.5, 1.0])
    >>> points = np.c_[t, t, 1.0 - t]
    >>> weights = np.array([[0.0, 0, 1], [0.1, 0, 0.9], [0.5, 0, 0.5], [1.0, 0, 0]])
    >>> first, last = curve_end_bands(weights, points)
    >>> first                              # the border of the band first
    array([[0.1, 0. , 0.9],
           [0. , 0. , 1. ]])
    >>> last
    array([[1., 0., 0.]])
    """
    w = np.asarray(weights, dtype=np.float64)
    x = np.asarray(points, dtype=np.float64)
    if w.shape != x.shape or w.ndim != 2 or len(w) == 0:
        raise ValueError(
            f"weights and points must be non-empty 2-D arrays of one shape, got {w.shape} "
            f"and {x.shape}"
        )
    position = curve_positions(x)
    levels = np.unique(position)
    if levels.size < 2:
        return w[:1].copy(), w[:1].copy()
    bands = []
    for end, inward in ((levels[0], levels[1]), (levels[-1], levels[-2])):
        at_end = w[position == end]
        nearest = np.min(
            np.linalg.norm(at_end[:, None, :] - w[position == inward][None, :, :], axis=2), axis=1
        )
        bands.append(at_end[np.argsort(nearest, kind="stable")])
    return bands[0], bands[1]


def curve_ends(weights: FloatArray, points: FloatArray) -> FloatArray:
    """The weights that reached the two ends of the curve the ``points`` lie on.

    Parameters
    ----------
    weights : ndarray, shape (P, M)
        The weight vectors solved.
    points : ndarray, shape (P, M)
        The points they reached (on a curve), in the coordinates the spacing is measured in.

    Returns
    -------
    ndarray, shape (2, M)
        The weight of the point at position 0 of :func:`curve_positions` and the weight of
        the point at its largest position. Where several weights reached one end (a stretch
        of the simplex that maps onto it), the one nearest to the weights of the next
        position inwards is taken (the first of :func:`curve_end_bands`): the segment
        between the two ends then crosses the least of that stretch. Every weight on the
        segment reaches the curve, and, as the weight moves along it, its point runs from
        one end to the other (where the solutions move continuously with the weight), which
        is what :func:`paretosurf.surf_simplex` lays its points out along on such a front.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.surfaces import curve_ends
    >>> t = np.array([0.0, 0.0, 0.5, 1.0])
    >>> points = np.c_[t, t, 1.0 - t]
    >>> weights = np.array([[0.0, 0, 1], [0.1, 0, 0.9], [0.5, 0, 0.5], [1.0, 0, 0]])
    >>> curve_ends(weights, points)       # two weights reached the first end
    array([[0.1, 0. , 0.9],
           [1. , 0. , 0. ]])
    """
    first, last = curve_end_bands(weights, points)
    return np.stack([first[0], last[0]])


def curve_end_status(points: FloatArray, end: FloatArray) -> str:
    """Whether the ``points`` on a curve still reach a known ``end`` of it.

    Parameters
    ----------
    points : ndarray, shape (P, M)
        A round's points along the curve, in the coordinates the spacing is measured in.
    end : ndarray, shape (M,)
        A point an earlier round reached at one end of the curve, in the same coordinates.

    Returns
    -------
    str
        ``"passed"`` where the points run beyond ``end`` (it lies inside their path) or one
        of them dominates it (it was no point of the front; the coordinates must order each
        objective as the objectives do, as an affine normalization does); ``"reached"``
        where their end lies within :data:`END_TOLERANCE` of their mean spacing of it; and
        ``"lost"`` where they stop short of it by more: a stretch of the curve they no longer
        cover.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.surfaces import curve_end_status
    >>> t = np.linspace(0.0, 1.0, 11)
    >>> points = np.c_[t, t, 1.0 - t]
    >>> curve_end_status(points, np.array([0.0, 0.0, 1.0]))
    'reached'
    >>> curve_end_status(points[2:], np.array([0.0, 0.0, 1.0]))
    'lost'
    >>> curve_end_status(points, np.array([0.15, 0.15, 0.85]))
    'passed'
    >>> curve_end_status(points, np.array([0.0, 0.0, 1.5]))     # (0, 0, 1) is better
    'passed'
    """
    x = np.asarray(points, dtype=np.float64)
    e = np.asarray(end, dtype=np.float64).reshape(1, -1)
    if x.ndim != 2 or len(x) == 0 or e.shape[1] != x.shape[1]:
        raise ValueError(
            f"points must be a non-empty (P, M) array and end an (M,) vector, got shapes "
            f"{np.shape(points)} and {np.shape(end)}"
        )
    if np.any(np.all(x <= e, axis=1) & np.any(x < e, axis=1)):
        return "passed"
    # the end first: where the path through all of them starts there, position 0 is its own
    position = curve_positions(np.vstack([e, x]))
    if position[0] > 0.0:
        return "passed"
    short = float(np.min(np.linalg.norm(x - e, axis=1)))
    spacing = float(np.ptp(position[1:])) / max(len(x) - 1, 1)  # the points' own path
    return "reached" if short <= END_TOLERANCE * spacing else "lost"


def curve_end_shortfall(points: FloatArray, end: FloatArray) -> float | None:
    """How far the ``points`` on a curve stop short of its ``end``, in their mean spacing
    along their path, where they no longer reach it (:func:`curve_end_status` ``"lost"``);
    ``None`` where they reach it or run beyond it.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.surfaces import curve_end_shortfall
    >>> t = np.linspace(0.0, 0.8, 9)
    >>> round(curve_end_shortfall(np.c_[t, t, 1.0 - t], np.array([1.0, 1.0, 0.0])), 6)
    2.0
    >>> curve_end_shortfall(np.c_[t, t, 1.0 - t], np.array([0.0, 0.0, 1.0])) is None
    True
    """
    x = np.asarray(points, dtype=np.float64)
    if len(x) < 2 or curve_end_status(x, end) != "lost":
        return None
    spacing = float(np.max(curve_positions(x))) / (len(x) - 1)
    if not spacing > 0.0:
        return None
    return float(np.min(np.linalg.norm(x - np.asarray(end, dtype=np.float64), axis=1))) / spacing


def segment_parameter(weights: FloatArray, ends: FloatArray) -> FloatArray:
    """Where ``weights`` lie along the segment from ``ends[0]`` (0) to ``ends[1]`` (1): their
    projections onto it, clipped to [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.surfaces import segment_parameter, segment_weights
    >>> ends = np.array([[0.0, 0.0, 1.0], [0.5, 0.5, 0.0]])
    >>> segment_parameter(segment_weights(np.array([0.0, 0.25, 1.0]), ends), ends)
    array([0.  , 0.25, 1.  ])
    """
    a, b = np.asarray(ends, dtype=np.float64)
    span = b - a
    length = float(span @ span)
    if length <= 0.0:
        return np.zeros(len(weights))
    at = (np.asarray(weights, dtype=np.float64) - a) @ span / length
    return np.asarray(np.clip(at, 0.0, 1.0), dtype=np.float64)


def segment_weights(at: FloatArray, ends: FloatArray) -> FloatArray:
    """The weight vectors at parameters ``at`` (in [0, 1]) along the segment between the two
    weight vectors ``ends``: convex combinations, so on the simplex."""
    a, b = np.asarray(ends, dtype=np.float64)
    t = np.asarray(at, dtype=np.float64)[:, None]
    out = np.clip((1.0 - t) * a + t * b, 0.0, None)
    return np.asarray(out / out.sum(axis=1, keepdims=True), dtype=np.float64)


def _path_length(at: FloatArray, points: FloatArray) -> float:
    """Length of the path through ``points`` in the order of their parameters ``at``."""
    return float(np.sum(chord_lengths(points[np.argsort(at, kind="stable")])))


def merge_curve_rounds(
    at: FloatArray,
    points: FloatArray,
    earlier_at: FloatArray,
    earlier_points: FloatArray,
    *,
    slack: float = CURVE_MERGE_SLACK,
) -> tuple[FloatArray, FloatArray]:
    """The current round's points along a curve with an earlier round's added, where both
    lie on one curve: more knots for SURF's arc-length CDF along the segment of weights.

    Where the weights' map onto the curve is steep near an end (DTLZ6 under ASF weights:
    one hundredth of the segment reaches one chord of the curve, the next half of it the
    next chord), the CDF interpolated between one round's knots misplaces the point inside
    that steep stretch, and the damped iteration creeps towards it by a constant share a
    round (CV falling by 0.8x a round for 20 rounds). The earlier round's knots inside the
    stretch measure its arc length there, and the next quantile lands on it.

    Parameters
    ----------
    at, points : ndarray, shapes (P,) and (P, K)
        The current round's parameters along the segment of weights and its points, in
        the coordinates the spacing is measured in.
    earlier_at, earlier_points : ndarray, shapes (Q,) and (Q, K)
        An earlier round's, in the same coordinates.
    slack : float, default CURVE_MERGE_SLACK
        The rounds are merged only while the path through all their points, in the order
        of their parameters, is at most this share longer than the current round's path:
        points that zigzag (a solver's noise, or a curve that moved) are not one curve.

    Returns
    -------
    at, points : ndarray
        The current round's, followed by the earlier round's whose parameter is not within
        :data:`CURVE_TIE` of a current one (a weight solved again gives no new knot); the
        current round's alone where the rounds are not one curve.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.surfaces import merge_curve_rounds
    >>> circle = lambda t: np.c_[np.cos(t), np.sin(t)]      # arc length t (radians)
    >>> at, points = merge_curve_rounds(
    ...     np.array([0.0, 0.5, 1.0]), circle(np.array([0.0, 0.5, 1.0])),
    ...     np.array([0.0, 0.25]), circle(np.array([0.0, 0.25])))
    >>> at.tolist()
    [0.0, 0.5, 1.0, 0.25]
    >>> noisy = circle(np.array([0.0, 0.25])) + [[0.0, 0.0], [0.2, 0.0]]
    >>> merge_curve_rounds(np.array([0.0, 0.5, 1.0]), circle(np.array([0.0, 0.5, 1.0])),
    ...                    np.array([0.0, 0.25]), noisy)[0].tolist()
    [0.0, 0.5, 1.0]
    """
    at = np.asarray(at, dtype=np.float64)
    points = np.asarray(points, dtype=np.float64)
    earlier_at = np.asarray(earlier_at, dtype=np.float64)
    earlier_points = np.asarray(earlier_points, dtype=np.float64)
    if len(at) < 2 or len(earlier_at) == 0:
        return at, points
    ordered = np.sort(at)
    # the nearest current parameter of each earlier one
    where = np.clip(np.searchsorted(ordered, earlier_at), 1, len(ordered) - 1)
    nearest = np.minimum(
        np.abs(earlier_at - ordered[where - 1]), np.abs(earlier_at - ordered[where])
    )
    new = nearest > CURVE_TIE
    if not new.any():
        return at, points
    merged_at = np.concatenate((at, earlier_at[new]))
    merged = np.concatenate((points, earlier_points[new]))
    if _path_length(merged_at, merged) > (1.0 + slack) * _path_length(at, points):
        return at, points
    return merged_at, merged
