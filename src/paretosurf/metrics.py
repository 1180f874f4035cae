"""Quality indicators for a set of front points: coverage (HV, IGD) and uniformity (CV, gaps).

All objectives are minimized. Uniformity metrics take the points *in weight order*
(consecutive rows are neighbours on the front), as SURF returns them.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import moocore
import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._validation import as_front_points, check_positive_int

__all__ = [
    "cdf_error",
    "cv",
    "front_distance",
    "gap_ratio",
    "hypervolume",
    "igd",
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
    return np.asarray(np.min(np.linalg.norm(p[:, None, :] - nearest, axis=2), axis=1),
                      dtype=np.float64)
