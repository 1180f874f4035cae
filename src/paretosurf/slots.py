"""Methods with N + 1 persistent slots, every slot solved every round (SURF, Uniform-w,
Random-w, UMOD): the slots' warm starts, the warm-start rule, and the last round's points.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paretosurf._validation import check_n_segments
from paretosurf.driver import Method, Round, RoundOutcome, StatePool

__all__ = ["WARM_STARTS", "SlotMethod", "check_warm_start", "nearest_keys", "rescue_keys"]

FloatArray = NDArray[np.float64]
#: Warm-start rules: each slot continues from its own previous solution ("slot", Algorithm 1),
#: from the previous solution whose weight is closest to its new weight ("nearest"), or from
#: its own unless another previous point dominates that solution's point ("rescue").
WARM_STARTS = ("slot", "nearest", "rescue")


def check_warm_start(warm_start: object) -> str:
    """``warm_start`` if it is one of :data:`WARM_STARTS`, else a ``ValueError``."""
    if warm_start not in WARM_STARTS:
        raise ValueError(f"warm_start must be one of {WARM_STARTS}, got {warm_start!r}")
    return str(warm_start)


def nearest_keys(
    keys: Sequence[int | None], previous: FloatArray, weights: FloatArray
) -> list[int | None]:
    """For each new weight, the state key of the previous slot whose weight was closest.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.slots import nearest_keys
    >>> nearest_keys([10, 11, 12], np.array([0, 0.2, 1]), np.array([0, 0.7, 1]))
    [10, 12, 12]
    """
    nearest = weight_distances(weights, previous).argmin(axis=1)
    return [keys[i] for i in nearest.tolist()]


def weight_distances(new: FloatArray, old: FloatArray) -> FloatArray:
    """Distances ``(len(new), len(old))`` between scalar weights, or Euclidean distances
    between weight vectors."""
    gaps = np.abs(
        np.asarray(new, dtype=np.float64)[:, None] - np.asarray(old, dtype=np.float64)[None, :]
    )
    return np.sqrt(np.sum(gaps**2, axis=2)) if gaps.ndim == 3 else gaps


def rescue_keys(
    keys: Sequence[int | None], previous: FloatArray, points: FloatArray, weights: FloatArray
) -> list[int | None]:
    """For each slot, its own state key unless another previous point dominates its point;
    then the key of the dominating solution whose weight is closest to the slot's new weight.

    A dominated point is the optimum of no weighted sum, whatever the scale of either
    objective, so its solution is a poor start for any weight: the solver got stuck there (as
    noisy deep-RL solvers now and then do). Dominance needs no assumption about how the
    solver weighs the objectives, unlike a ranking by weighted sums of the reported points
    (which goes wrong when the solver scalarizes rescaled objectives, or a Tchebycheff
    function).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.slots import rescue_keys
    >>> points = np.array([[1.0, 0.0], [0.9, 0.9], [0.5, 0.5], [0.0, 1.0]])  # 1 is dominated
    >>> rescue_keys([10, 11, 12, 13], np.array([0, 0.3, 0.6, 1]), points,
    ...             np.array([0, 0.2, 0.6, 1]))
    [10, 12, 12, 13]
    """
    pts = np.asarray(points, dtype=np.float64)
    # dominates[j, i]: point j is no worse than point i in every objective, better in one
    no_worse = np.all(pts[:, None, :] <= pts[None, :, :], axis=2)
    better = np.any(pts[:, None, :] < pts[None, :, :], axis=2)
    dominates = no_worse & better
    gaps = weight_distances(weights, previous)
    starts = list(keys)
    for i in np.flatnonzero(dominates.any(axis=0)).tolist():
        rescuers = np.flatnonzero(dominates[:, i])
        starts[i] = keys[int(rescuers[gaps[i, rescuers].argmin()])]
    return starts


class SlotMethod(Method):
    """Shared base of the methods with N + 1 persistent slots, all solved every round (SURF,
    Uniform-w, Random-w, UMOD).

    A subclass provides the weights of the next round through :meth:`next_weights` and updates
    its own state in :meth:`update`; this class keeps the slots' state keys, the last round's
    weights and points, and applies the warm-start rule.
    """

    front_is_last_round = True

    def __init__(self, n_segments: int, *, warm_start: str = "slot") -> None:
        self.n_segments = check_n_segments(n_segments)
        self.warm_start = check_warm_start(warm_start)
        self.keys: list[int | None] = [None] * (self.n_segments + 1)
        self.last_weights: FloatArray | None = None
        self.last_points: FloatArray | None = None

    # ------------------------------------------------------------------ subclass hooks
    def next_weights(self) -> FloatArray:
        """Weights of the next round: increasing from exactly 0 to exactly 1, or weight
        vectors of shape (N + 1, M) on the simplex."""
        raise NotImplementedError

    def update(self, weights: FloatArray, coordinates: FloatArray) -> None:
        """Learn from the round just solved (before the slots' keys move on): ``coordinates``
        are its points in the coordinates the run measures distances in."""

    # ------------------------------------------------------------------ Method hooks
    def start(self, init_keys: list[int | None] | None) -> None:
        if init_keys is not None:
            if len(init_keys) != self.n_segments + 1:
                raise ValueError(
                    f"init_states must hold one state per slot "
                    f"({self.n_segments + 1}), got {len(init_keys)}"
                )
            self.keys = list(init_keys)

    def propose(self) -> Round:
        weights = self.next_weights()
        starts = self.keys
        if self.warm_start == "nearest" and self.last_weights is not None:
            starts = nearest_keys(self.keys, self.last_weights, weights)
        elif (
            self.warm_start == "rescue"
            and self.last_weights is not None
            and self.last_points is not None
            and self.last_points.size
        ):
            starts = rescue_keys(self.keys, self.last_weights, self.last_points, weights)
        return Round(weights, starts)

    def tell(self, outcome: RoundOutcome, pool: StatePool) -> None:
        assert outcome.coordinates is not None
        self.update(outcome.weights, outcome.coordinates)
        self.keys = list(outcome.keys)
        self.last_weights = outcome.weights
        self.last_points = outcome.points

    def front(self) -> tuple[FloatArray, FloatArray, list[int | None]]:
        if self.last_weights is None or self.last_points is None:
            return self.next_weights(), np.empty((self.n_segments + 1, 0)), self.keys
        return self.last_weights, self.last_points, self.keys

    def weight_change(self) -> float:
        if self.last_weights is None:
            return math.nan
        return float(np.max(np.abs(self.next_weights() - self.last_weights)))

    def slot_state(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        """The slots' part of :meth:`state_dict`."""
        arrays = {}
        if self.last_weights is not None and self.last_points is not None:
            arrays = {"last_weights": self.last_weights, "last_points": self.last_points}
        return {"keys": list(self.keys)}, arrays

    def load_slot_state(self, meta: Mapping[str, Any], arrays: Mapping[str, NDArray[Any]]) -> None:
        """Inverse of :meth:`slot_state`."""
        self.keys = list(meta["keys"])
        if "last_weights" in arrays:
            self.last_weights = np.asarray(arrays["last_weights"], dtype=np.float64)
            self.last_points = np.asarray(arrays["last_points"], dtype=np.float64)
