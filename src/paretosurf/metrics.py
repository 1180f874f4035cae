"""Quality indicators for a set of front points: coverage (HV, IGD) and uniformity (CV, gaps).

All objectives are minimized. The curve uniformity metrics (:func:`segment_lengths`,
:func:`cv`, :func:`gap_ratio`) take the points *in weight order* (consecutive rows are
neighbours on the front), as SURF returns them. The surface metrics (:func:`nn_distances`,
:func:`nn_cv`, :func:`nn_ratio`, :func:`nn_min_ratio`, :func:`covering_radius`) take a point
set of any dimension in any order: they measure spacing by nearest-neighbour distances.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import moocore
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.spatial import cKDTree

from paretosurf._utils.validation import as_front_points, check_positive_int

__all__ = [
    "cdf_error",
    "covering_radius",
    "cv",
    "front_distance",
    "gap_ratio",
    "hypervolume",
    "igd",
    "nn_cv",
    "nn_distances",
    "nn_min_ratio",
    "nn_ratio",
    "segment_lengths",
]

FloatArray = NDArray[np.float64]


def segment_lengths(points: ArrayLike, /) -> FloatArray:
    """Euclidean lengths of the N gaps between consecutive points.

    Parameters
    ----------
    points : array_like, shape (N+1, M)
        Points in weight order.

    Returns
    -------
    ndarray, shape (N,)

    Examples
    --------
    >>> from paretosurf import metrics
    >>> metrics.segment_lengths([[0, 0], [3, 4], [3, 5]]).tolist()
    [5.0, 1.0]
    """
    p = as_front_points(points, name="points")
    return np.linalg.norm(np.diff(p, axis=0), axis=1)


def cv(points: ArrayLike, /) -> float:
    """Coefficient of variation of the gaps: population std / mean (0 is perfectly even).

    The gaps are those between consecutive rows, in the coordinates and the order given:
    sort the points along the front first. A result's ``res.cv`` measures the same in the
    run's coordinates (normalized by the endpoints by default), so on objectives of
    different scales ``cv(res.points)`` differs from it.

    Examples
    --------
    >>> from paretosurf import metrics
    >>> metrics.cv([[0, 0], [1, 0], [2, 0]])
    0.0
    >>> round(metrics.cv([[0, 0], [1, 0], [4, 0]]), 6)      # gaps 1 and 3
    0.5
    """
    return cv_of_gaps(segment_lengths(points))


def cv_of_gaps(gaps: FloatArray) -> float:
    """CV of precomputed gap lengths (``nan`` if they are all zero)."""
    mean = float(gaps.sum()) / gaps.size
    if mean == 0.0:
        return float("nan")
    return math.sqrt(float(((gaps - mean) ** 2).sum()) / gaps.size) / mean


def gap_ratio(points: ArrayLike, /) -> float:
    """Largest gap / smallest gap (1 is perfectly even; ``inf`` if two points coincide).

    Examples
    --------
    >>> from paretosurf import metrics
    >>> metrics.gap_ratio([[0, 0], [1, 0], [4, 0]])
    3.0
    """
    return gap_ratio_of_gaps(segment_lengths(points))


def gap_ratio_of_gaps(gaps: FloatArray) -> float:
    """Gap ratio of precomputed gap lengths (``inf`` if one is zero)."""
    smallest = float(gaps.min())
    if smallest == 0.0:
        return float("inf")
    return float(gaps.max()) / smallest


def hypervolume(points: ArrayLike, /, ref: ArrayLike) -> float:
    """Hypervolume dominated by ``points`` and bounded by ``ref`` (minimization), via moocore.

    Points that do not strictly dominate ``ref`` contribute nothing.

    Examples
    --------
    >>> from paretosurf import metrics
    >>> metrics.hypervolume([[1, 2], [2, 1]], ref=[3, 3])
    3.0
    """
    p = as_front_points(points, name="points", min_points=1)
    r = np.asarray(ref, dtype=np.float64)
    if r.shape != (p.shape[1],) or not np.all(np.isfinite(r)):
        raise ValueError(f"ref must be a finite vector of length {p.shape[1]}, got {r.tolist()}")
    return float(moocore.hypervolume(p, ref=r))


def igd(points: ArrayLike, /, reference_front: ArrayLike) -> float:
    """Inverted generational distance: mean distance from each reference point to ``points``.

    Examples
    --------
    >>> from paretosurf import metrics
    >>> round(metrics.igd([[0, 1], [1, 0]], [[0, 1], [0.5, 0.5], [1, 0]]), 6)
    0.235702
    """
    p = as_front_points(points, name="points", min_points=1)
    ref = as_front_points(reference_front, name="reference_front", min_points=1)
    if ref.shape[1] != p.shape[1]:
        raise ValueError(
            f"reference_front has {ref.shape[1]} objectives but points have {p.shape[1]}"
        )
    return float(moocore.igd(p, ref=ref))


def cdf_error(
    cdf_a: Callable[[FloatArray], ArrayLike],
    cdf_b: Callable[[FloatArray], ArrayLike],
    /,
    *,
    n_grid: int = 20001,
) -> float:
    """Sup-norm distance ``max_w |Phi_a(w) - Phi_b(w)|`` on a uniform grid of [0, 1].

    Both arguments are vectorised callables on [0, 1] (for example an
    :class:`~paretosurf.ArcLengthCDF` and a problem's ``cdf()``). Knots of either argument, when
    it exposes ``knots``, are added to the grid.

    Examples
    --------
    >>> import paretosurf as ps
    >>> ps.metrics.cdf_error(ps.ArcLengthCDF.identity(), lambda w: w**2)
    0.25
    """
    n = check_positive_int(n_grid, name="n_grid")
    grid = np.linspace(0.0, 1.0, max(n, 2))
    extra = [np.asarray(c.knots) for c in (cdf_a, cdf_b) if hasattr(c, "knots")]
    if extra:
        grid = np.union1d(grid, np.concatenate(extra))
    diff = np.asarray(cdf_a(grid), dtype=np.float64) - np.asarray(cdf_b(grid), dtype=np.float64)
    return float(np.max(np.abs(diff)))


def front_distance(points: ArrayLike, /, reference_front: ArrayLike) -> FloatArray:
    """Distance of each point to the polyline through ``reference_front`` (in its order).

    With a dense exact front as reference, this tells how far a method's points lie off the
    front (a dominated point has a positive distance).

    Examples
    --------
    >>> from paretosurf import metrics
    >>> metrics.front_distance([[1, 1], [0, 1]], [[0, 1], [1, 0]]).round(6).tolist()
    [0.707107, 0.0]
    """
    p = as_front_points(points, name="points", min_points=1)
    ref = as_front_points(reference_front, name="reference_front", min_points=2)
    if ref.shape[1] != p.shape[1]:
        raise ValueError(
            f"reference_front has {ref.shape[1]} objectives but points have {p.shape[1]}"
        )
    a, seg = ref[:-1], np.diff(ref, axis=0)
    length2 = np.einsum("ij,ij->i", seg, seg)
    rel = p[:, None, :] - a[None, :, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(length2 > 0, np.einsum("pij,ij->pi", rel, seg) / length2, 0.0)
    t = np.clip(t, 0.0, 1.0)
    nearest = a[None, :, :] + t[..., None] * seg[None, :, :]
    return np.asarray(
        np.min(np.linalg.norm(p[:, None, :] - nearest, axis=2), axis=1), dtype=np.float64
    )


# ---------------------------------------------------------------------------- surfaces
def nn_distances(points: ArrayLike, /) -> FloatArray:
    """Euclidean distance from each point to its nearest *other* point.

    The spacing of a point set of any dimension, in any order (a k-d tree,
    :class:`scipy.spatial.cKDTree`). A point that coincides with another has distance 0.

    Parameters
    ----------
    points : array_like, shape (P, M)
        Finite points, P >= 2, in any order.

    Returns
    -------
    ndarray, shape (P,)

    Raises
    ------
    ValueError
        If ``points`` is not a finite 2-D array of at least 2 rows.

    Examples
    --------
    >>> from paretosurf import metrics
    >>> metrics.nn_distances([[0, 0], [3, 4], [3, 5]]).tolist()
    [5.0, 1.0, 1.0]
    """
    p = as_front_points(points, name="points", min_points=2)
    dist, _ = cKDTree(p).query(p, k=2)
    # column 0 is the point itself (or a duplicate, both at distance 0); column 1 the nearest
    # other point
    return np.asarray(dist[:, 1], dtype=np.float64)


def nn_cv(points: ArrayLike, /) -> float:
    """Coefficient of variation of the nearest-neighbour distances: population std / mean.

    0 for a perfect lattice (every point as close to its nearest neighbour as any other);
    ``nan`` if all points coincide. Invariant under permutations, translations, rotations and
    scaling of the points.

    Parameters
    ----------
    points : array_like, shape (P, M)
        Finite points, P >= 2, in any order.

    Returns
    -------
    float

    Examples
    --------
    A square lattice and a triangular lattice are perfectly even:

    >>> import numpy as np
    >>> from paretosurf import metrics
    >>> square = [[i, j] for i in range(3) for j in range(3)]
    >>> metrics.nn_cv(square)
    0.0
    >>> triangle = [[i + j / 2, j * np.sqrt(3) / 2] for j in range(3) for i in range(3 - j)]
    >>> round(metrics.nn_cv(triangle), 12)
    0.0
    >>> round(metrics.nn_cv([[0, 0], [1, 0], [4, 0]]), 6)   # distances 1, 1, 3
    0.565685
    """
    return cv_of_gaps(nn_distances(points))


def nn_ratio(points: ArrayLike, /) -> float:
    """Largest / smallest nearest-neighbour distance (1 is perfectly even).

    ``inf`` if two points coincide.

    Parameters
    ----------
    points : array_like, shape (P, M)
        Finite points, P >= 2, in any order.

    Returns
    -------
    float

    Examples
    --------
    >>> from paretosurf import metrics
    >>> metrics.nn_ratio([[i, j] for i in range(3) for j in range(3)])   # square lattice
    1.0
    >>> metrics.nn_ratio([[0, 0], [1, 0], [4, 0]])
    3.0
    >>> metrics.nn_ratio([[0, 0], [0, 0], [1, 0]])
    inf
    """
    return gap_ratio_of_gaps(nn_distances(points))


def nn_min_ratio(points: ArrayLike, /) -> float:
    """Smallest nearest-neighbour distance / mean nearest-neighbour distance.

    1 for a perfect lattice, 0 if two points coincide, ``nan`` if all points coincide. "No two
    points closer than a fifth of the mean spacing" is ``nn_min_ratio(points) >= 0.2``.

    Parameters
    ----------
    points : array_like, shape (P, M)
        Finite points, P >= 2, in any order.

    Returns
    -------
    float

    Examples
    --------
    >>> from paretosurf import metrics
    >>> metrics.nn_min_ratio([[i, j] for i in range(3) for j in range(3)])   # square lattice
    1.0
    >>> metrics.nn_min_ratio([[0, 0], [1, 0], [4, 0]])      # 1 / mean(1, 1, 3)
    0.6
    """
    d = nn_distances(points)
    mean = float(d.sum()) / d.size
    if mean == 0.0:
        return float("nan")
    return float(d.min()) / mean


def covering_radius(points: ArrayLike, /, reference: ArrayLike) -> float:
    """Largest distance from a reference point to its nearest point of ``points``.

    With a dense sample of the true front as ``reference``, this is the radius of the largest
    hole the points leave on the front: every front point lies within this distance of some
    point (up to the sampling error of ``reference``). For a lattice covering a region
    sampled densely, it is the lattice's circumradius: ``h / sqrt(2)`` for a square lattice
    of spacing ``h``, ``a / sqrt(3)`` for a triangular lattice of spacing ``a``.

    Parameters
    ----------
    points : array_like, shape (P, M)
        Finite points, P >= 2, in any order.
    reference : array_like, shape (R, M)
        Finite reference points (R >= 1), for example a dense sample of the true front.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If either array is not finite and 2-D, ``points`` has fewer than 2 rows, or the two
        have different numbers of objectives.

    Examples
    --------
    A square lattice of spacing 1 against a grid of step 1/10 over the same square: the
    farthest grid points are the cell centres, at ``sqrt(2) / 2`` from the lattice.

    >>> import numpy as np
    >>> from paretosurf import metrics
    >>> square = [[i, j] for i in range(3) for j in range(3)]
    >>> grid = np.stack(np.meshgrid(np.linspace(0, 2, 21), np.linspace(0, 2, 21)), -1)
    >>> round(metrics.covering_radius(square, grid.reshape(-1, 2)), 6)
    0.707107
    """
    p = as_front_points(points, name="points", min_points=2)
    ref = as_front_points(reference, name="reference", min_points=1)
    if ref.shape[1] != p.shape[1]:
        raise ValueError(f"reference has {ref.shape[1]} objectives but points have {p.shape[1]}")
    dist, _ = cKDTree(p).query(ref, k=1)
    return float(np.max(dist))
