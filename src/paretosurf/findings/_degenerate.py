"""Degenerate fronts: points of M >= 3 objectives that lie on a set of lower dimension than
M - 1, a curve in three objectives (DTLZ5, DTLZ6, or any problem where two objectives do not
conflict).

SURF-simplex lays its weights out over a simplex of dimension M - 1 and spaces its points
as if they covered a surface of that dimension. On a curve, whole bands of weights reach
one stretch of it, and no layout of the simplex spaces the points evenly along it: the run
reports them ``collapsed`` or ``uneven``, which names the symptom, not the cause. This
module names the cause:

- :func:`conflict_free_pairs`: pairs of objectives that never conflict among the points
  (wherever one is smaller, so is the other, up to a tolerance): on the front they move
  together, so it has at most M - 2 dimensions;
- :func:`curve_share`: the share of the points whose nearest neighbours lie along one
  direction (a local principal-component test), for curves on which every pair of
  objectives conflicts;
- :func:`degenerate_finding`: the ``degenerate`` finding, with the objectives that do not
  conflict where that is the cause. Points on a curve may also be the reach of stuck
  solves on a surface (DTLZ4's variables on their flat spot), and the finding says both.

Examples
--------
A curve of DTLZ5's kind (objectives 1 and 2 equal on the front):

>>> import numpy as np
>>> from paretosurf.findings import conflict_free_pairs, degenerate_finding
>>> t = np.linspace(0.0, np.pi / 2, 15)
>>> f = np.c_[np.cos(t) / np.sqrt(2), np.cos(t) / np.sqrt(2), np.sin(t)]
>>> conflict_free_pairs(f)
[(0, 1)]
>>> degenerate_finding(f).code
'degenerate'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from paretosurf.findings._finding import Finding
from paretosurf.surfaces import curve_end_shortfall

if TYPE_CHECKING:
    from paretosurf.findings._evidence import Evidence

FloatArray = NDArray[np.float64]

#: Differences in an objective below this share of its range over the points are ties: two
#: objectives conflict only where one is better by more than this and the other worse by
#: more than this (solves stop a tolerance from the front).
CONFLICT_TOL = 1e-3
#: A point's neighbourhood is one-dimensional where the second singular value of its
#: nearest neighbours' offsets is below this share of the first.
CURVE_RATIO = 0.25
#: ... and the points lie on a curve where at least this share of them has such a
#: neighbourhood.
CURVE_SHARE = 0.9
#: :func:`paretosurf.surf_simplex` lays its points out along a curve once the points of this
#: many rounds in a row lie on one (:func:`lies_on_curve`).
CURVE_ROUNDS = 3
#: The fewest distinct points from which the shape of the points is judged.
MIN_POINTS = 6


#: An objective whose range over the points is below this share of the largest range is
#: constant (DTLZ4 from its default start: ``1e-30`` against 1), not a direction of the set.
CONSTANT_SHARE = 1e-9


#: Points lie along a surface's edges (:func:`on_boundary`) rather than on a front that is a
#: curve when more than this share of them hold some objective at its least.
BOUNDARY_SHARE = 0.5


def _distinct_scaled(points: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The distinct finite rows of ``points`` divided by each objective's range, and those
    ranges (0 for a constant objective, :data:`CONSTANT_SHARE`, whose column is 0)."""
    x = np.asarray(points, dtype=np.float64)
    x = x[np.all(np.isfinite(x), axis=1)]
    if not len(x):
        return x, np.ones(np.shape(points)[1])
    ranges = np.ptp(x, axis=0)
    ranges = np.where(ranges > CONSTANT_SHARE * ranges.max(), ranges, 0.0)
    scaled = np.where(ranges > 0, x / np.where(ranges > 0, ranges, 1.0), 0.0)
    # rows that coincide to the tolerance are one point
    keys = np.round(scaled / CONFLICT_TOL).astype(np.int64)
    _, first = np.unique(keys, axis=0, return_index=True)
    return np.asarray(scaled[np.sort(first)], dtype=np.float64), ranges


def conflict_free_pairs(points: FloatArray) -> list[tuple[int, int]]:
    """Pairs ``(i, j)``, ``i < j``, of objectives that do not conflict among the ``points``:
    both vary, and no two points have one better by more than :data:`CONFLICT_TOL` of its
    range while the other is worse by more than that. Empty with fewer than
    :data:`MIN_POINTS` distinct points (too few to tell).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.findings import conflict_free_pairs
    >>> t = np.linspace(0, 1, 8)
    >>> conflict_free_pairs(np.c_[t, 2 * t**2, 1 - t])      # objectives 1 and 2 agree
    [(0, 1)]
    >>> u, v = np.meshgrid(t, t)
    >>> conflict_free_pairs(np.c_[u.ravel(), v.ravel(), 2 - u.ravel() - v.ravel()])
    []
    """
    x, ranges = _distinct_scaled(points)
    if len(x) < MIN_POINTS or x.ndim != 2:
        return []
    m = x.shape[1]
    diff = x[:, None, :] - x[None, :, :]  # (P, P, M): row a minus row b per objective
    better = diff < -CONFLICT_TOL
    worse = diff > CONFLICT_TOL
    out = []
    for i in range(m):
        for j in range(i + 1, m):
            if ranges[i] <= 0 or ranges[j] <= 0:
                continue
            if not np.any((better[:, :, i] & worse[:, :, j]) | (worse[:, :, i] & better[:, :, j])):
                out.append((i, j))
    return out


def curve_share(points: FloatArray, neighbours: int = 4) -> float:
    """The share of the distinct ``points`` (in units of each objective's range) whose
    ``neighbours`` nearest other points lie along one direction: the second singular value
    of their offsets from the point is below :data:`CURVE_RATIO` of the first. About 1 for
    points along a curve, about 0 for points spread over a surface; ``nan`` with fewer
    than :data:`MIN_POINTS` distinct points.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.findings import curve_share
    >>> t = np.linspace(0, 1, 12)
    >>> curve_share(np.c_[np.cos(t), np.sin(t), t])            # a helix's arc
    1.0
    >>> u, v = np.meshgrid(t, t)
    >>> curve_share(np.c_[u.ravel(), v.ravel(), 2 - u.ravel() - v.ravel()]) < 0.1
    True
    """
    x, _ = _distinct_scaled(points)
    if len(x) < MIN_POINTS:
        return float("nan")
    from scipy.spatial import cKDTree

    k = min(neighbours, len(x) - 1)
    _, idx = cKDTree(x).query(x, k=k + 1)
    linear = 0
    for row, near in enumerate(idx):
        offsets = x[near[1:]] - x[row]
        s = np.linalg.svd(offsets, compute_uv=False)
        linear += bool(s[0] > 0 and (len(s) < 2 or s[1] < CURVE_RATIO * s[0]))
    return linear / len(x)


def degenerate_finding(points: FloatArray) -> Finding | None:
    """The ``degenerate`` finding where the points of M >= 3 objectives lie on a set of lower
    dimension than M - 1 (the front's own shape, or the reach of stuck solves): two
    objectives that do not conflict (:func:`conflict_free_pairs`), or, in three objectives,
    points along a curve (:func:`curve_share` at least :data:`CURVE_SHARE`); ``None``
    otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.findings import degenerate_finding
    >>> t = np.linspace(0, 1, 10)
    >>> print(degenerate_finding(np.c_[t, t**2, 1 - t]).summary)
    the points lie on a curve: objectives 1 and 2 do not conflict
    >>> degenerate_finding(np.eye(3)) is None                  # too few points to tell
    True
    """
    x = np.asarray(points, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] < 3:
        return None
    m = x.shape[1]
    pairs = conflict_free_pairs(x)
    if pairs:
        groups = _conflict_free_groups(pairs)
        named = "; ".join(_objectives(sorted(g)) + " do not conflict" for g in groups)
        dimension = m - 1 - sum(len(g) - 1 for g in groups)
        shape = "a curve" if dimension == 1 else f"a set of dimension {max(dimension, 0)}"
        cause = (
            f"{named}: wherever one of them is lower over the points, so is the other, so the "
            f"points lie on {shape} in {m} objectives, not on a surface of dimension "
            f"{m - 1}"
        )
    elif m == 3 and curve_share(x) >= CURVE_SHARE:
        shape = "a curve"
        cause = (
            "the points lie along a curve (each point's nearest neighbours lie along one "
            "direction), not over a surface of dimension 2"
        )
    else:
        return None
    if shape == "a curve":
        layout = (
            "SURF-simplex then spaces its points by arc length along the curve (once the points "
            f"of {CURVE_ROUNDS} rounds in a row lie on it), between the weights "
            "that reached its ends; layouts of the whole weight simplex (the other methods) "
            "send whole bands of weights to one stretch of it"
        )
        remedy = (
            "where the front should be a surface, the solves are stuck: other starts or a "
            "global inner solver; where it is a curve, nothing (with ps.surf_simplex), or the "
            "objectives that conflict solved as a problem of fewer objectives"
        )
    else:
        layout = (
            f"SURF-simplex lays its weights out over a simplex of dimension {m - 1}, so on "
            "such a front whole bands of weights reach one stretch of it and no layout spaces "
            "the points evenly over it"
        )
        remedy = (
            "where the front is of lower dimension, solve the objectives that conflict as a "
            "problem of fewer objectives (those that do not conflict summed into one); where "
            "the solves are stuck, other starts or a global inner solver"
        )
    return Finding(
        "degenerate",
        f"the points are degenerate: {cause}. Either the front itself is {shape} "
        "(objectives that never conflict, as DTLZ5's first two) or the solves reach only "
        f"{shape} of it (variables stuck on a flat spot). {layout}",
        remedy=remedy,
        fatal=False,
        summary=f"the points lie on {shape}" + (f": {named}" if pairs else ""),
    )


def curve_coverage_finding(
    points: FloatArray, coords: FloatArray, ends: FloatArray, ends_coords: FloatArray
) -> Finding | None:
    """The ``coverage`` finding where points along a curve stop short of an end of it that
    an earlier round reached; ``None`` where they reach both.

    Parameters
    ----------
    points : ndarray, shape (P, M)
        The reported points (on a curve), raw.
    coords : ndarray, shape (P, M)
        The same points in the coordinates their spacing is measured in.
    ends : ndarray, shape (2, M)
        The raw points the run reached at the curve's two ends.
    ends_coords : ndarray, shape (2, M)
        The same ends in the coordinates of ``coords``.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.findings import curve_coverage_finding
    >>> t = np.linspace(0.0, 1.0, 11)
    >>> points = np.c_[t, t, 1.0 - t]
    >>> ends = points[[0, -1]]
    >>> curve_coverage_finding(points, points, ends, ends) is None
    True
    >>> print(curve_coverage_finding(points[:-2], points[:-2], ends, ends).summary)
    the points stop 2.0 spacings short of the curve's end at (1, 1, 0)
    """
    x = np.asarray(coords, dtype=np.float64)
    if x.ndim != 2 or len(x) < 2:
        return None
    short = []
    for end, end_coords in zip(np.asarray(ends), np.asarray(ends_coords), strict=True):
        spacings = curve_end_shortfall(x, end_coords)
        if spacings is not None:
            short.append((end, spacings))
    if not short:
        return None
    # the end's coordinates to six digits, rounding-level values shown as 0
    parts = [
        f"the points stop {spacings:.1f} spacings short of the curve's end at ("
        + ", ".join(f"{v if abs(v) > 1e-12 * np.max(np.abs(end)) else 0.0:.6g}" for v in end)
        + ")"
        for end, spacings in short
    ]
    return Finding(
        "coverage",
        "; ".join(parts) + ", which an earlier round reached: the weights at that end of the "
        "curve's segment stopped reaching it (the solver, started from another state, landed "
        "short of it), and the stretch beyond is missing",
        remedy="more steps per call or a tighter tolerance; other starts or a global inner solver",
        slots=(),
        summary="; ".join(parts),
    )


def _conflict_free_groups(pairs: list[tuple[int, int]]) -> list[set[int]]:
    """The objectives that move together, as groups: a pair chains into a group."""
    groups: list[set[int]] = []
    for i, j in pairs:
        joined = [g for g in groups if i in g or j in g]
        merged = {i, j}.union(*joined)
        groups = [g for g in groups if g not in joined] + [merged]
    return groups


def on_boundary(scaled: FloatArray) -> bool:
    """Whether most of the distinct points ``scaled`` (each objective over its range) hold
    some objective at its least over them (within :data:`CONFLICT_TOL`): points along the
    edges of a surface, where solves leave one objective at its best (DTLZ4's position
    variables on their flat spot, one each), not on a front that is a curve, whose points
    hold an objective at its least only at the curve's ends.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.linspace(0, 1, 9)[1:-1]
    >>> edges = np.r_[np.c_[t, 1 - t, 0 * t], np.c_[t, 0 * t, 1 - t]]
    >>> bool(on_boundary(edges)), bool(on_boundary(np.c_[t, t, 1 - t]))
    (True, False)
    """
    x = np.asarray(scaled, dtype=np.float64)
    if len(x) == 0:
        return False
    at_least = np.any(x <= x.min(axis=0) + CONFLICT_TOL, axis=1)
    return bool(np.count_nonzero(at_least) > BOUNDARY_SHARE * len(x))


def lies_on_curve(points: FloatArray) -> bool:
    """Whether points of M >= 3 objectives lie on a curve: the objectives that do not
    conflict (:func:`conflict_free_pairs`) leave one dimension, or each point's nearest
    neighbours lie along one direction (:func:`curve_share` at least :data:`CURVE_SHARE`).
    ``False`` with fewer than :data:`MIN_POINTS` distinct points or fewer than three
    objectives, and where an objective does not vary over the points: solves that leave an
    objective at its best (DTLZ4's variables at their flat start) reach a curve of the
    front's boundary, not a front that is a curve.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.findings import lies_on_curve
    >>> t = np.linspace(0, 1, 10)
    >>> lies_on_curve(np.c_[t, t**2, 1 - t]), lies_on_curve(np.c_[t, t**2, 1 - t, t[::-1] ** 3])
    (True, True)
    >>> u, v = np.meshgrid(t, t)
    >>> lies_on_curve(np.c_[u.ravel(), v.ravel(), 2 - u.ravel() - v.ravel()])
    False
    """
    x = np.asarray(points, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] < 3:
        return False
    scaled, ranges = _distinct_scaled(x)
    if np.any(ranges == 0.0):
        return False
    if on_boundary(scaled):
        return False
    pairs = conflict_free_pairs(x)
    if pairs and x.shape[1] - 1 - sum(len(g) - 1 for g in _conflict_free_groups(pairs)) <= 1:
        return True
    share = curve_share(x)
    return bool(share >= CURVE_SHARE)  # NaN (too few points) compares False


def check_degenerate(ev: Evidence) -> list[Finding]:
    """``degenerate`` (advice; surfaces): the points lie on a set of lower dimension than
    M - 1 (:func:`degenerate_finding`), the cause of what follows (``collapsed``, ``uneven``),
    said first."""
    degenerate = degenerate_finding(ev.points)
    return [] if degenerate is None else [degenerate]


def _objectives(indices: list[int]) -> str:
    """``objectives 1 and 2`` (1-based) for 0-based ``indices``."""
    names = [str(i + 1) for i in indices]
    return "objectives " + (", ".join(names[:-1]) + " and " + names[-1])
