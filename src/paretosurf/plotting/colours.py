"""What the points of a plot are coloured by: their weight, or their position along the front
when the weights cluster (:func:`weights_cluster`); weight vectors as RGB
(:func:`weight_colors`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from paretosurf.plotting._checks import FloatArray

__all__ = ["weight_colors", "weights_cluster"]

#: Label of the colour bar of :func:`plot_fronts` and :func:`plot_front` when points are
#: coloured by their weight.
WEIGHT_LABEL = "weight w on objective 1"

#: Colour bar label when points are coloured by the arc-length fraction of their projection
#: onto the reference front.
POSITION_LABEL = "arc-length position on the front"

#: Colour bar label when points are coloured by their cumulative chord-length fraction (no
#: reference front).
CHORD_POSITION_LABEL = "chord-length position along the points"

#: What points can be coloured by (``color_by``).
COLOR_BY = ("auto", "weight", "position")

#: Weights cluster when a closed interval of width ``CLUSTER_WIDTH`` holds more than
#: ``CLUSTER_FRACTION`` of them (see :func:`weights_cluster`).
CLUSTER_WIDTH = 0.05
CLUSTER_FRACTION = 0.5


def weights_cluster(weights: ArrayLike, /) -> bool:
    """Whether the weights cluster, so that colouring points by weight would hide them.

    The weights cluster when some closed interval of width ``CLUSTER_WIDTH = 0.05`` (5 % of
    the weight range [0, 1]) holds more than ``CLUSTER_FRACTION = 0.5`` of them: at least
    ``P // 2 + 1`` of the P weights. Such points get colours within 5 % of the colour map, which
    the eye cannot tell apart. Evenly spaced weights ``n / N`` never cluster (a window of width
    0.05 holds at most ``0.05 N + 1`` of the ``N + 1`` weights); SURF's weights on a front
    whose speed ``v(w)`` is concentrated in a narrow range of ``w`` (Deep Sea Treasure) do.

    Parameters
    ----------
    weights : array_like, shape (P,) or (P, 2)
        Finite weights, in any order; or weight vectors of two components (M = 2, as
        :func:`paretosurf.surf_simplex` gives), which stand for their first component, the
        weight on objective 1. Fewer than 2 weights never cluster.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.plotting import weights_cluster
    >>> weights_cluster(np.linspace(0, 1, 201))           # evenly spaced: never
    False
    >>> weights_cluster([0.0, 0.5, 0.96, 0.97, 0.98, 0.99, 1.0])   # 5 of 7 within 0.04
    True
    >>> weights_cluster([0.0, 0.25, 0.5, 0.98, 0.99, 1.0])          # 3 of 6: just half
    False
    >>> weights_cluster([[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]])       # M = 2 weight vectors
    False
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim == 2 and w.shape[1] == 2:
        from paretosurf.surfaces import check_simplex_weights

        w = check_simplex_weights(w, 2, name="weights")[:, 0]
    if w.ndim != 1:
        more = (
            f" (weight vectors of M = {w.shape[1]} objectives colour surface plots by "
            f"weight_colors)"
            if w.ndim == 2 and w.shape[1] >= 3
            else ""
        )
        raise ValueError(
            f"weights must be a 1-D array or weight vectors of 2 components, got "
            f"shape {w.shape}{more}"
        )
    if not np.all(np.isfinite(w)):
        raise ValueError("weights must be finite")
    if w.size < 2:
        return False
    w = np.sort(w)
    # most weights in a window [w_i, w_i + width] (a densest window starts at a weight)
    inside = np.searchsorted(w, w + CLUSTER_WIDTH, side="right") - np.arange(w.size)
    return bool(int(inside.max()) > CLUSTER_FRACTION * w.size)


def _chord_position(points: FloatArray) -> FloatArray:
    """Cumulative chord length from the first point, as a fraction of the total (all 0 if the
    points coincide)."""
    cum = np.concatenate(([0.0], np.cumsum(np.linalg.norm(np.diff(points, axis=0), axis=1))))
    total = float(cum[-1])
    return cum / total if total > 0 else np.zeros_like(cum)


def _front_position(points: FloatArray, reference: FloatArray | None) -> FloatArray:
    """Position in [0, 1] of each point along the front.

    With a reference front (a polyline), the arc length from its first point to the point's
    nearest point on it, as a fraction of its length; without one (or with a reference of zero
    length), the points' own cumulative chord-length fraction.
    """
    if reference is None:
        return _chord_position(points)
    start, step = reference[:-1], np.diff(reference, axis=0)
    lengths = np.linalg.norm(step, axis=1)
    total = float(lengths.sum())
    if total == 0.0:
        return _chord_position(points)
    sq = lengths**2
    safe = np.where(sq > 0, sq, 1.0)
    before = np.concatenate(([0.0], np.cumsum(lengths)))
    along = np.empty(points.shape[0])
    chunk = max(1, 1_000_000 // lengths.size)  # bound the (points, segments) temporaries
    for lo in range(0, points.shape[0], chunk):
        block = points[lo : lo + chunk]
        # parameter t in [0, 1] of each segment's point nearest to each point: (P, R-1)
        rel = block[:, None, :] - start[None, :, :]
        t = np.where(sq > 0, np.clip(np.einsum("prk,rk->pr", rel, step) / safe, 0.0, 1.0), 0.0)
        gap = rel - t[:, :, None] * step[None, :, :]
        nearest = np.argmin(np.einsum("prk,prk->pr", gap, gap), axis=1)
        along[lo : lo + chunk] = (
            before[nearest] + t[np.arange(block.shape[0]), nearest] * lengths[nearest]
        )
    return np.clip(along / total, 0.0, 1.0)


def _colour_mode(
    color_by: object, weights: Sequence[FloatArray | None], reference: FloatArray | None
) -> tuple[str | None, str]:
    """``(mode, colour bar label)``: mode ``"weight"``, ``"position"`` or None (no colours:
    colouring by weight with no weights known)."""
    if not isinstance(color_by, str) or color_by not in COLOR_BY:
        raise ValueError(f"color_by must be one of {COLOR_BY}, got {color_by!r}")
    known = [w for w in weights if w is not None]
    mode: str | None = color_by
    if color_by == "auto":
        mode = "position" if any(weights_cluster(w) for w in known) else "weight" if known else None
    elif color_by == "weight" and not known:
        mode = None
    if mode == "position":
        return mode, CHORD_POSITION_LABEL if reference is None else POSITION_LABEL
    return mode, WEIGHT_LABEL


def _colour_values(
    mode: str | None, weights: FloatArray | None, points: FloatArray, reference: FloatArray | None
) -> FloatArray | None:
    """What each point's fill colour encodes (None: the method's own colour)."""
    if mode == "position":
        return _front_position(points, reference)
    if mode == "weight":
        return weights
    return None


def weight_colors(weights: ArrayLike, /) -> FloatArray:
    """RGB colour of each weight vector: its first three components.

    For M = 3 the colour is the weight itself (objective 1 red, 2 green, 3 blue: the corners
    are pure red, green and blue, the centre a mid grey). For M > 3 the first three
    components are divided by their sum (a weight with nothing on the first three objectives
    is black). Values are clipped to [0, 1].

    Parameters
    ----------
    weights : array_like, shape (P, M)
        Weight vectors on the simplex, M >= 3.

    Returns
    -------
    ndarray, shape (P, 3)

    Examples
    --------
    >>> from paretosurf.plotting import weight_colors
    >>> weight_colors([[1, 0, 0], [0.2, 0.3, 0.5]]).tolist()
    [[1.0, 0.0, 0.0], [0.2, 0.3, 0.5]]
    >>> weight_colors([[0.25, 0.25, 0.0, 0.5]]).tolist()      # M = 4: first three rescaled
    [[0.5, 0.5, 0.0]]
    """
    from paretosurf.surfaces import check_simplex_weights

    w = check_simplex_weights(weights, name="weights")
    if w.shape[1] < 3:
        raise ValueError(f"weights must have at least 3 columns to colour by, got {w.shape[1]}")
    rgb = w[:, :3].copy()
    if w.shape[1] > 3:
        total = rgb.sum(axis=1, keepdims=True)
        rgb = np.divide(rgb, total, out=np.zeros_like(rgb), where=total > 0)
    return np.clip(rgb, 0.0, 1.0)
