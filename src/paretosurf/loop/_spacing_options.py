"""The run's spacing options that act on weights and points between the solver and the
method: ``weight_bounds`` (the weights the solver sees) and ``moving_average`` (each slot's
objectives averaged across rounds), and the anchor rows that ``normalize="endpoints"`` reads.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "MovingAverage",
    "WeightMap",
    "anchor_rows",
    "moving_average_step",
    "solved_weights",
    "solver_weights",
]

FloatArray = NDArray[np.float64]


def anchor_rows(weights: FloatArray) -> list[int] | None:
    """The rows of a round's weights that solve a single objective (the "endpoints" whose
    ideal and nadir ``normalize="endpoints"`` reads): the first and last of scalar weights
    running from 0 to 1 (``None`` when the ends are not there), or the corners ``e_m`` of
    weight vectors, one per objective (all rows when a corner is missing: then the ideal and
    nadir are those of all the points).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.loop._spacing_options import anchor_rows
    >>> anchor_rows(np.array([0.0, 0.5, 1.0])), anchor_rows(np.array([0.2, 1.0]))
    ([0, 2], None)
    >>> anchor_rows(np.array([[0.5, 0.5, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]]))
    [2, 3, 1]
    >>> anchor_rows(np.array([[0.5, 0.5, 0], [0, 0, 1]]))
    [0, 1]
    """
    if weights.ndim == 1:
        if weights.size >= 2 and weights[0] == 0.0 and weights[-1] == 1.0:
            return [0, weights.size - 1]
        return None
    if weights.ndim != 2 or weights.shape[0] == 0:
        return None
    rows = []
    for m in range(weights.shape[1]):
        hits = np.flatnonzero(weights[:, m] == 1.0)
        if hits.size == 0:
            return list(range(weights.shape[0]))
        rows.append(int(hits[0]))
    return rows


def solved_weights(weights: FloatArray, bounds: tuple[float, float] | None) -> FloatArray:
    """The weights the solver sees: ``lo + (hi - lo) * w`` with ``bounds = (lo, hi)`` (the
    run's ``weight_bounds``; for weight vectors, whose components then range over
    ``[lo, hi]``, ``hi`` must be ``1 - (M - 1) * lo`` so that they still sum to 1).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.loop._spacing_options import solved_weights
    >>> solved_weights(np.array([0.0, 0.5, 1.0]), (0.1, 0.9)).tolist()
    [0.1, 0.5, 0.9]
    """
    if bounds is None:
        return weights
    lo, hi = bounds
    if weights.ndim == 2:
        m = weights.shape[1]
        if not math.isclose(hi, 1.0 - (m - 1) * lo, rel_tol=0.0, abs_tol=1e-12):
            raise ValueError(
                f"weight_bounds=({lo}, {hi}) for weight vectors of {m} objectives must be "
                f"(lo, 1 - {m - 1} * lo) = ({lo}, {1.0 - (m - 1) * lo:.12g}) so that "
                "the solved weights still sum to 1"
            )
    out = lo + (hi - lo) * weights
    out[weights == 0.0], out[weights == 1.0] = lo, hi
    return np.asarray(out, dtype=np.float64)


def solver_weights(
    weights: FloatArray, bounds: tuple[float, float], scales: FloatArray
) -> FloatArray:
    """The weights the solver sees for method weights ``weights`` (on objective 1, in
    [0, 1]): mapped into ``bounds`` in the run's units, then from the run's units (objectives
    divided by ``scales``) to the raw objectives' weights. Ends map to ends: ``0 -> lo``
    and ``1 -> hi`` in the run's units.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.loop._spacing_options import solver_weights
    >>> solver_weights(np.array([0.0, 1.0]), (0.1, 0.9), np.ones(2)).tolist()
    [0.1, 0.9]
    >>> # objective 2 in units 1000 times smaller: an even weight in the run's units puts
    >>> # 1000 times more raw weight on objective 1
    >>> float(solver_weights(np.array([0.5]), (0.0, 1.0), np.array([1.0, 1e-3]))[0])
    0.000999000999000999
    """
    lo, hi = bounds
    u = lo + (hi - lo) * np.asarray(weights, dtype=np.float64)
    u[weights == 0.0], u[weights == 1.0] = lo, hi
    a = u / scales[0]
    b = (1.0 - u) / scales[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(a + b > 0, a / np.where(a + b > 0, a + b, 1.0), u)
    out[u == 0.0], out[u == 1.0] = 0.0, 1.0
    return np.asarray(out, dtype=np.float64)


class WeightMap:
    """The weights a run's solver sees for its method's weights: the ``weight_bounds``
    (``None``: the weights as they are), in the run's units where the objectives' ``scales``
    are known (:func:`solver_weights`, scalar weights), else raw (:func:`solved_weights`).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.loop._spacing_options import WeightMap
    >>> WeightMap((0.1, 0.9))(np.array([0.0, 0.5, 1.0])).tolist()
    [0.1, 0.5, 0.9]
    >>> WeightMap(None)(np.array([0.25])).tolist()
    [0.25]
    """

    def __init__(
        self, bounds: tuple[float, float] | None, scales: FloatArray | None = None
    ) -> None:
        self.bounds = bounds
        self.scales = scales

    def __call__(self, weights: FloatArray) -> FloatArray:
        if self.bounds is None:
            return weights
        if self.scales is not None and weights.ndim == 1:
            return solver_weights(weights, self.bounds, self.scales)
        return solved_weights(weights, self.bounds)


def moving_average_step(
    point: FloatArray,
    weight: float | FloatArray,
    previous: FloatArray | None,
    rate: float,
    spacing: float,
) -> FloatArray:
    """One step of a slot's moving average of its objectives.

    ``previous`` holds the slot's average followed by the weight it was at (``None`` on its
    first round); a weight vector moves by its largest change in any component. The new
    estimate enters with the share ``rate`` while the slot's weight stays, and
    with a share growing linearly to 1 as the weight moves by up to ``spacing`` (one average
    gap between weights): an average over points at other weights would place this one where
    the slot was, not where it is.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.loop._spacing_options import moving_average_step
    >>> old = np.array([1.0, 1.0, 0.5])                   # average (1, 1) at weight 0.5
    >>> moving_average_step(np.array([0.0, 0.0]), 0.5, old, 0.2, 0.1).tolist()
    [0.8, 0.8]
    >>> moving_average_step(np.array([0.0, 0.0]), 0.7, old, 0.2, 0.1).tolist()   # moved
    [0.0, 0.0]
    """
    if previous is None:
        return np.array(point, dtype=np.float64)
    w = np.atleast_1d(np.asarray(weight, dtype=np.float64))
    moved = min(1.0, float(np.max(np.abs(w - previous[-w.size :]))) / spacing)
    share = rate + (1.0 - rate) * moved
    return np.asarray(share * point + (1.0 - share) * previous[: -w.size], dtype=np.float64)


class MovingAverage:
    """Each slot's objectives averaged across rounds (the run's ``moving_average``).

    Parameters
    ----------
    rate : float or None
        The rate in (0, 1] of :func:`moving_average_step`; ``None``: no averaging (the
        estimates are the round's points).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.loop._spacing_options import MovingAverage
    >>> avg = MovingAverage(0.5)
    >>> w = np.array([0.0, 1.0])
    >>> _ = avg([0, 1], w, np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> avg([0, 1], w, np.array([[1.0, 1.0], [1.0, 1.0]])).tolist()
    [[0.5, 1.0], [1.0, 0.5]]
    """

    def __init__(self, rate: float | None) -> None:
        self.rate = rate
        #: Per slot: its average followed by the weight it was at.
        self.averages: dict[int, FloatArray] = {}

    def __call__(self, slots: Sequence[int], weights: FloatArray, points: FloatArray) -> FloatArray:
        """The round's estimates: each slot's point averaged with its earlier ones."""
        rate = self.rate
        if rate is None:
            return points
        out = np.empty_like(points)
        # one average gap between weights (for weight vectors, of a lattice of that size)
        spacing = (
            1.0 / max(len(slots) - 1, 1)
            if weights.ndim == 1
            else len(slots) ** (-1.0 / max(weights.shape[1] - 1, 1))
        )
        for i, slot in enumerate(slots):
            previous = self.averages.get(slot)
            out[i] = moving_average_step(points[i], weights[i], previous, rate, spacing)
            self.averages[slot] = np.append(out[i], weights[i])
        return out

    def estimates(self, n_points: int, n_objectives: int) -> FloatArray | None:
        """The averaged points of slots ``0..n_points-1``, or ``None`` without averaging or
        when those are not exactly the slots averaged."""
        if self.rate is None or set(self.averages) != set(range(n_points)):
            return None
        return np.stack([self.averages[slot][:n_objectives] for slot in range(n_points)])

    def to_meta(self) -> dict[str, list[float]]:
        """The averages, JSON-able."""
        return {str(k): v.tolist() for k, v in self.averages.items()}

    def load_meta(self, meta: Mapping[str, Any]) -> None:
        """Inverse of :meth:`to_meta`."""
        self.averages = {int(k): np.asarray(v, dtype=np.float64) for k, v in meta.items()}
