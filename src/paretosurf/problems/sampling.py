"""Dense samples of a Pareto front given by its weight-to-front map, for any number of objectives.

A plain weight lattice covers the front badly when the map ``w -> f_PF(w)`` is distorted: a
region of the front reached from a tiny region of the simplex gets almost no lattice point.
:func:`dense_front_sample` starts from a Das-Dennis lattice of weights, triangulates it
(Freudenthal's triangulation of the staircase the lattice forms in cumulative coordinates), maps
the vertices through the front, and bisects every simplex whose mapped vertices are further apart
than ``resolution`` times the front's diameter, at the midpoint of its longest *mapped* edge,
until none is. The refinement is therefore anisotropic: it follows the map, not the simplex.
"""

from __future__ import annotations

import itertools
import math
import numbers
import warnings
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.validation import check_positive
from paretosurf.surfaces import simplex_lattice

__all__ = ["dense_front_sample"]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

#: Edges shorter than this in weight space are not bisected further: a front that jumps there
#: (a discontinuous weight-to-front map, e.g. an unregularized MDP) cannot be filled in.
MIN_WEIGHT_EDGE = 1e-9

#: Default lattice divisions by number of objectives (lattices of 33, 91, 84 and 70 weights).
_DEFAULT_DIVISIONS = {2: 32, 3: 12, 4: 6, 5: 4}


def _lattice_simplices(n_objectives: int, divisions: int) -> tuple[FloatArray, IntArray]:
    """The Das-Dennis lattice (:func:`~paretosurf.surfaces.simplex_lattice`) and a
    triangulation of the simplex by its points.

    In cumulative coordinates ``y_j = k_0 + ... + k_{j-1}`` (``j = 1..M-1``) the lattice is the
    integer points of the staircase ``0 <= y_1 <= ... <= y_{M-1} <= H``, which is a union of
    simplices of Freudenthal's triangulation of the unit cubes (its hyperplanes ``y_i = y_j``
    are hyperplanes of that triangulation). Returns the weights (P, M) and the simplices
    (K, M) as row indices into them; ``K = H^(M-1)``.
    """
    m, h = n_objectives, divisions
    weights = simplex_lattice(m, h)
    counts = np.rint(weights * h).astype(np.int64)
    index = {tuple(int(v) for v in row): i for i, row in enumerate(counts)}
    d = m - 1
    simplices: list[list[int]] = []
    perms = list(itertools.permutations(range(d)))
    for corner in itertools.product(range(h), repeat=d):
        for perm in perms:
            y = list(corner)
            path = [tuple(y)]
            for axis in perm:
                y[axis] += 1
                path.append(tuple(y))
            if not all(_in_staircase(p, h) for p in path):
                continue
            simplices.append([index[_counts_of(p, h)] for p in path])
    return weights, np.array(simplices, dtype=np.int64).reshape(-1, m)


def _in_staircase(y: tuple[int, ...], h: int) -> bool:
    return y[0] >= 0 and y[-1] <= h and all(a <= b for a, b in itertools.pairwise(y))


def _counts_of(y: tuple[int, ...], h: int) -> tuple[int, ...]:
    full = (0, *y, h)
    return tuple(b - a for a, b in itertools.pairwise(full))


def _evaluate(
    front: Callable[[FloatArray], ArrayLike], weights: FloatArray, dim: int | None
) -> FloatArray:
    points = np.asarray(front(weights), dtype=np.float64)
    if (
        points.ndim != 2
        or points.shape[0] != weights.shape[0]
        or (dim is not None and points.shape[1] != dim)
    ):
        want = f"({weights.shape[0]}, {'d' if dim is None else dim})"
        raise ValueError(
            f"front must map weights of shape {weights.shape} to points of shape "
            f"{want}, got shape {points.shape}"
        )
    if not np.all(np.isfinite(points)):
        raise ValueError("front returned non-finite points")
    return points


def _adaptive_sample(
    front: Callable[[FloatArray], ArrayLike],
    n_objectives: int,
    *,
    resolution: float,
    max_points: int,
    divisions: int | None,
) -> tuple[FloatArray, FloatArray]:
    """Weights (P, M) and front points (P, d) of the refined triangulation (not deduplicated)."""
    m = _check_int(n_objectives, "n_objectives", minimum=2)
    res = check_positive(resolution, name="resolution")
    cap = _check_int(max_points, "max_points", minimum=1)
    h = (
        _DEFAULT_DIVISIONS.get(m, 2)
        if divisions is None
        else _check_int(divisions, "divisions", minimum=1)
    )
    weights, simplices = _lattice_simplices(m, h)
    if weights.shape[0] > cap:
        raise ValueError(
            f"the initial lattice has {weights.shape[0]} weights, more than "
            f"max_points = {cap}; lower divisions or raise max_points"
        )
    points = _evaluate(front, weights, None)
    diameter = _diameter(points)
    if diameter == 0.0:  # the front is a single point
        return weights, points
    tol = res * diameter
    edges = np.array(list(itertools.combinations(range(m), 2)), dtype=np.int64)  # (E, 2)
    known = np.empty(0, dtype=np.int64)  # sorted edge keys already bisected
    known_mid = np.empty(0, dtype=np.int64)  # their midpoints' indices
    w_all, f_all = [weights], [points]
    n_points = weights.shape[0]
    w_cat, f_cat = weights, points
    active = simplices
    while active.shape[0]:
        ends = active[:, edges]  # (K, E, 2)
        mapped = np.linalg.norm(f_cat[ends[..., 0]] - f_cat[ends[..., 1]], axis=-1)
        span = np.linalg.norm(w_cat[ends[..., 0]] - w_cat[ends[..., 1]], axis=-1)
        mapped = np.where(span >= MIN_WEIGHT_EDGE, mapped, 0.0)
        longest = np.argmax(mapped, axis=1)
        refine = mapped[np.arange(active.shape[0]), longest] > tol
        if not refine.any():
            break
        active, longest = active[refine], longest[refine]
        pick = ends[refine, longest]  # (K, 2) endpoints of the edge to bisect
        lo, hi = np.minimum(pick[:, 0], pick[:, 1]), np.maximum(pick[:, 0], pick[:, 1])
        keys = lo * np.int64(cap + 1) + hi
        uniq, inverse = np.unique(keys, return_inverse=True)
        pos = np.clip(np.searchsorted(known, uniq), 0, max(known.size - 1, 0))
        seen = known.size > 0
        found = (known[pos] == uniq) if seen else np.zeros(uniq.size, dtype=bool)
        mid = np.empty(uniq.size, dtype=np.int64)
        if seen:
            mid[found] = known_mid[pos[found]]
        new = np.flatnonzero(~found)
        if n_points + new.size > cap:
            warnings.warn(
                f"dense_front_sample stopped at {n_points} points: refining to resolution "
                f"{res:g} needs more than max_points = {cap}",
                RuntimeWarning,
                stacklevel=3,
            )
            break
        new_lo, new_hi = uniq[new] // (cap + 1), uniq[new] % (cap + 1)
        new_w = 0.5 * (w_cat[new_lo] + w_cat[new_hi])
        mid[new] = n_points + np.arange(new.size)
        if new.size:
            w_all.append(new_w)
            f_all.append(_evaluate(front, new_w, points.shape[1]))
            n_points += new.size
            w_cat, f_cat = np.concatenate(w_all), np.concatenate(f_all)
            w_all, f_all = [w_cat], [f_cat]
            order = np.argsort(np.r_[known, uniq[new]], kind="stable")
            known = np.r_[known, uniq[new]][order]
            known_mid = np.r_[known_mid, mid[new]][order]
        mids = mid[inverse]
        rows = np.arange(active.shape[0])
        child_a, child_b = active.copy(), active.copy()
        child_a[rows, edges[longest, 0]] = mids  # replace one end of the edge ...
        child_b[rows, edges[longest, 1]] = mids  # ... or the other
        active = np.concatenate([child_a, child_b])
    return w_cat, f_cat


def dense_front_sample(
    front: Callable[[FloatArray], ArrayLike],
    n_objectives: int,
    *,
    resolution: float = 0.01,
    max_points: int = 200_000,
    divisions: int | None = None,
) -> FloatArray:
    """A dense sample of a whole Pareto front, adapted to how the weights map onto it.

    Starts from a Das-Dennis lattice of weights with ``divisions`` divisions, triangulated into
    ``divisions^(M-1)`` simplices, and evaluates ``front`` at its points. Then, level by level,
    every simplex whose mapped vertices are further apart than ``resolution * D`` is bisected at
    the midpoint (in weight space) of its longest mapped edge; ``D`` is the diameter of the
    front points of the initial lattice (which holds the simplex's corners). Edges shorter than
    ``1e-9`` in weight space are not bisected (a front that jumps there stays a gap). For a
    continuous map, every front point is then within about ``resolution * D`` of the sample.

    Parameters
    ----------
    front : callable
        ``front(weights) -> points``: weights of shape (B, M) on the simplex to front points of
        shape (B, d) (vectorised; called once per refinement level on the new weights only).
    n_objectives : int
        ``M >= 2``, the length of a weight vector.
    resolution : float
        Target spacing as a fraction of the front's diameter, > 0.
    max_points : int
        Cap on the number of front evaluations; when refining further would pass it, the
        refinement stops with a ``RuntimeWarning`` and the sample is coarser than asked.
    divisions : int, optional
        Divisions of the initial lattice; default 32, 12, 6, 4 and 2 for M = 2, 3, 4, 5 and
        more (33, 91, 84, 70, ... weights).

    Returns
    -------
    ndarray, shape (P, d)
        The distinct front points (in the order first evaluated).

    Raises
    ------
    ValueError
        On a bad argument, or when ``front`` returns points of the wrong shape or non-finite.

    Examples
    --------
    A front traversed very unevenly: ``(1 - x, x^2)`` with ``x = w_1^8``.

    >>> import numpy as np
    >>> from paretosurf.problems.sampling import dense_front_sample
    >>> front = lambda w: np.stack([1 - w[:, 0] ** 8, w[:, 0] ** 16], axis=1)
    >>> pts = dense_front_sample(front, 2, resolution=0.01)
    >>> pts = pts[np.argsort(pts[:, 0])]
    >>> bool(np.max(np.linalg.norm(np.diff(pts, axis=0), axis=1)) <= 0.01 * np.sqrt(2))
    True
    """
    _, points = _adaptive_sample(
        front, n_objectives, resolution=resolution, max_points=max_points, divisions=divisions
    )
    _, first = np.unique(points, axis=0, return_index=True)
    return np.asarray(points[np.sort(first)], dtype=np.float64)


def _diameter(points: FloatArray) -> float:
    """Largest distance between two of the points (in blocks of rows, to bound memory)."""
    sq = np.einsum("ij,ij->i", points, points)
    best = 0.0
    for start in range(0, points.shape[0], 512):
        block = points[start : start + 512]
        d2 = sq[start : start + 512, None] + sq[None, :] - 2.0 * block @ points.T
        best = max(best, float(np.max(d2)))
    return math.sqrt(max(best, 0.0))


def _check_int(value: object, name: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if int(value) < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)
