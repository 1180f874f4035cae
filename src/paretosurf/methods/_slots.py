"""Methods with N + 1 persistent slots, every slot solved every round (SURF, Uniform-w,
Random-w, UMOD): the slots' warm starts, the warm-start rule, and the last round's points.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.spatial import cKDTree

from paretosurf._utils.validation import check_n_segments
from paretosurf.adapters.scalarization import (
    Scalarization,
    scoring_scalarization,
    solver_scalarization,
)
from paretosurf.findings import WEIGHT_TOL
from paretosurf.loop import Method, Round, RoundOutcome
from paretosurf.storage import StatePool

__all__ = [
    "RESOLVED_SPACING",
    "SETTLED_SPACING",
    "WARM_STARTS",
    "SlotMethod",
    "best_keys",
    "check_warm_start",
    "local_spacing",
    "nearest_keys",
    "nearest_rows",
    "rescue_keys",
    "solver_scalarization",
]

FloatArray = NDArray[np.float64]
#: Warm-start rules: each slot continues from its own previous solution ("slot", Algorithm 1),
#: from the previous solution whose weight is closest to its new weight ("nearest"), or from
#: its own unless another previous point dominates that solution's point ("rescue"), or from
#: the previous solution whose point scores best at its new weight under the solver's
#: scalarization ("best", :func:`best_keys`).
WARM_STARTS = ("slot", "nearest", "rescue", "best")
#: "best": another slot's state replaces a slot's own only when its point scores lower at the
#: new weight by more than this share of the spread of the points' values there (ties, and
#: a solver's last digits, keep the slot's own state).
BEST_MARGIN = 1e-9
#: "best": points whose values at the new weight are within this share of the spread of the
#: least tie, and the first of them (the lowest slot) is the candidate. Mirror-image points
#: (DTLZ7's corners e1 and e2 at the corner e3, 4e-8 of the spread apart) otherwise took turns
#: being the least with the BLAS thread count the solver's LAPACK calls ran on, and the warm
#: starts with them; the rule still tells apart points 1e-6 of the spread apart.
BEST_TIE = 2e-7
#: "nearest" (and the fallback of "best"): previous weights within this distance of the
#: closest to a new weight count as closest, and the first of them (the lowest slot) is
#: taken. A layout of mirror-symmetric weights puts a new weight midway between two previous
#: ones; the solver's noise, which a nearly collapsed edge amplifies to 1e-4 in the weights,
#: chose between them by the last bits.
NEAREST_TIE = 1e-3
#: A source of the solver's scalarization for "best": a Scalarization, or a function returning
#: the current one (a Tchebycheff solver's ideal point moves over the run), or None.
ScalarizationSource = Scalarization | Callable[[], "Scalarization | None"] | None


def best_keys(
    keys: Sequence[int | None],
    points: FloatArray,
    weights: FloatArray,
    scalarization: Scalarization | None,
    fallback: Sequence[int] | None = None,
) -> list[int | None]:
    """For each new weight, the key of the previous solution whose point scores lowest there
    under ``scalarization`` (the slot's own key unless another scores lower by more than
    ``BEST_MARGIN`` of the spread of the values; weighted sums when ``scalarization`` is
    ``None``; a Tchebycheff kind without an ideal point uses the best values less the
    adapters' margin). ``fallback[i]``: the previous solution new weight ``i`` keeps on a
    tie instead of slot ``i``'s own (:func:`paretosurf.surf_simplex` passes the nearest
    weight's, as its slots move between edges and faces).

    A slot whose solution sits in a poor basin (a local minimum of a multimodal scalarized
    problem, or a piece of a disconnected front that is no longer its weight's) then starts
    from the solution that is best at its weight, whose basin the solve can improve on.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.adapters import Scalarization
    >>> from paretosurf.methods._slots import best_keys
    >>> points = np.array([[1.0, 0.0], [0.9, 0.9], [0.0, 1.0]])   # slot 1 is stuck high
    >>> best_keys([10, 11, 12], points, np.array([0.0, 0.6, 1.0]), None)
    [10, 12, 12]
    >>> tch = Scalarization("tchebycheff", ideal=[0.0, 0.0], rho=0.0)
    >>> best_keys([10, 11, 12], points, np.array([0.0, 0.5, 1.0]), tch)  # slot 1 on its ray
    [10, 11, 12]

    At ``w = 0`` only objective 2 counts: a point lower in it by a hair but worse in
    objective 1 (weakly Pareto-optimal, on the flat face of ``w = 0``'s minimizers) does not
    replace the end's own solution; a point that dominates it does:

    >>> weights = np.array([0.0, 0.5, 1.0])
    >>> face = np.array([[1.0, 0.0], [1.2, -1e-6], [0.0, 1.0]])
    >>> best_keys([10, 11, 12], face, weights, None)
    [10, 10, 12]
    >>> better = np.array([[1.0, 0.0], [0.9, -1e-6], [0.0, 1.0]])
    >>> best_keys([10, 11, 12], better, weights, None)
    [11, 11, 12]
    """
    pts = np.asarray(points, dtype=np.float64)
    sc = scoring_scalarization(scalarization, pts)
    own = list(range(len(keys))) if fallback is None else [int(k) for k in fallback]
    default = [keys[k] for k in own]
    starts = list(default)
    for i, w in enumerate(np.asarray(weights, dtype=np.float64)):
        try:
            values = np.asarray(sc(pts, w), dtype=np.float64)
        except ValueError:  # a weight this scalarization does not take
            return default
        spread = float(values.max() - values.min())
        # points that score the least up to BEST_TIE of the spread tie: the first of them
        # (the lowest slot), not the one the solver's last digits favour
        j = int(np.flatnonzero(values <= values.min() + BEST_TIE * spread)[0])
        k = own[i]
        if k >= len(values) or not values[j] < values[k] - BEST_MARGIN * spread:
            continue
        # at an end weight the scalarization ignores every objective but one, whose
        # minimizers may form a flat face: a score there cannot tell the front's end from a
        # weakly Pareto-optimal point beside it, so only a point that dominates the slot's
        # own replaces it
        if _at_corner(w) and not _dominates(pts[j], pts[k]):
            continue
        starts[i] = keys[j]
    return starts


def _at_corner(weight: FloatArray) -> bool:
    """Whether ``weight`` is an end of two objectives' weights, ``w = 0`` or ``w = 1``.
    (Weight vectors on a surface's edges are left to the scores: the surfaces' Tchebycheff
    kinds floor a zero component, and a slot stuck on an edge must take a better piece's
    state.)"""
    w = np.asarray(weight, dtype=np.float64)
    return bool(w.ndim == 0 and w in (0.0, 1.0))


def _dominates(a: FloatArray, b: FloatArray) -> bool:
    """Whether point ``a`` is no worse than ``b`` in every objective and better in one."""
    return bool(np.all(a <= b) and np.any(a < b))


#: A method's weights count as settled (:meth:`SlotMethod.settled`, the early stop) once a
#: full step would move none of them by this share of its distance to its nearest other
#: weight or more: a gap ratio within about 5% of its fixed point's on a smooth front.
SETTLED_SPACING = 0.02
#: Weights closer than this to their nearest other weight are at the limit of what floating
#: point (and a solver computing ``1 - w``) resolves (the ``precision`` finding's tolerance,
#: :data:`paretosurf.findings.WEIGHT_TOL`): :meth:`SlotMethod.settle_share` leaves them
#: out, as their moves are rounding.
RESOLVED_SPACING = WEIGHT_TOL


def local_spacing(weights: FloatArray) -> FloatArray:
    """Each weight's distance to its nearest other weight (scalar weights or weight vectors,
    one per row); ``0`` where two weights coincide.

    Examples
    --------
    >>> import numpy as np
    >>> local_spacing(np.array([0.0, 0.1, 0.5, 1.0])).tolist()
    [0.1, 0.1, 0.4, 0.5]
    >>> local_spacing(np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])).round(3).tolist()
    [0.707, 0.707, 0.707]
    """
    w = np.asarray(weights, dtype=np.float64)
    if len(w) < 2:
        return np.full(len(w), np.inf)
    if w.ndim == 1:
        near = _scalar_spacing(w)
        if near is not None:
            return near
    rows = w.reshape(len(w), -1)
    nearest, _ = cKDTree(rows).query(rows, k=2)
    return np.asarray(nearest[:, 1], dtype=np.float64)


def _scalar_spacing(w: FloatArray) -> FloatArray | None:
    """:func:`local_spacing` of scalar weights without a k-d tree (whose set-up cost more
    than a small run's round): in sorted order each weight's nearest other weight is its
    predecessor or its successor. The tree's distance, ``sqrt((a - b)^2)``, is ``|a - b|``
    exactly in binary floating point unless the square underflows or overflows: ``None``
    (use the tree) for weights that are not finite or lie closer than ``1e-150`` but apart."""
    if not np.all(np.isfinite(w)):
        return None
    order = np.argsort(w, kind="stable")
    gaps = np.diff(w[order])
    if np.any((gaps > 0) & (gaps < 1e-150)) or np.any(gaps > 1e150):
        return None
    near = np.empty(len(w))
    near[order[0]], near[order[-1]] = gaps[0], gaps[-1]
    near[order[1:-1]] = np.minimum(gaps[:-1], gaps[1:])
    return near


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
    >>> from paretosurf.methods._slots import nearest_keys
    >>> nearest_keys([10, 11, 12], np.array([0, 0.2, 1]), np.array([0, 0.7, 1]))
    [10, 12, 12]
    """
    return [keys[i] for i in nearest_rows(weights, previous)]


def nearest_rows(new: FloatArray, old: FloatArray) -> list[int]:
    """For each new weight, the row of the closest old weight; old weights within
    :data:`NEAREST_TIE` of the closest count as closest too, and the first of them is taken.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.methods._slots import nearest_rows
    >>> nearest_rows(np.array([0.5, 0.9]), np.array([0.4, 0.6 - 1e-9, 1.0]))
    [0, 2]
    """
    dist = weight_distances(new, old)
    if dist.shape[1] == 0:
        return [0] * dist.shape[0]
    near = dist <= dist.min(axis=1, keepdims=True) + NEAREST_TIE
    return np.argmax(near, axis=1).tolist()


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
    >>> from paretosurf.methods._slots import rescue_keys
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
    #: With ``warm_start="best"``, a new weight whose best-scoring previous solution ties
    #: keeps the nearest previous weight's (instead of its slot's own).
    best_ties_nearest = False

    def __init__(
        self,
        n_segments: int,
        *,
        warm_start: str = "slot",
        scalarization: ScalarizationSource = None,
    ) -> None:
        self.n_segments = check_n_segments(n_segments)
        self.warm_start = check_warm_start(warm_start)
        self._scalarization = scalarization
        self.keys: list[int | None] = [None] * (self.n_segments + 1)
        self.last_weights: FloatArray | None = None
        self.last_points: FloatArray | None = None

    def current_scalarization(self) -> Scalarization | None:
        """The solver's scalarization now (``None``: not declared; see
        :func:`solver_scalarization`)."""
        source = self._scalarization
        return source() if callable(source) and not isinstance(source, Scalarization) else source

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
        elif (
            self.warm_start == "best"
            and self.last_points is not None
            and self.last_points.size
            and len(self.last_points) == len(weights)
        ):
            fallback = None
            if self.last_weights is not None and self.best_ties_nearest:
                fallback = nearest_rows(weights, self.last_weights)
            starts = best_keys(
                self.keys, self.last_points, weights, self.current_scalarization(), fallback
            )
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

    def full_step_weights(self) -> FloatArray | None:
        """The weights the next round would take without damping (default: those it takes,
        :meth:`next_weights`); ``None`` before the first round."""
        return None if self.last_weights is None else self.next_weights()

    def convergence_change(self) -> float:
        """How far a full step would move the weights (max over slots and components)."""
        full = self.full_step_weights()
        if full is None or self.last_weights is None:
            return math.nan
        return float(np.max(np.abs(full - self.last_weights)))

    def settled(self) -> bool:
        """Whether a full step would move every weight by less than :data:`SETTLED_SPACING`
        of its own spacing (the distance to its nearest other weight): measured per weight,
        so that weights crowded near one end (objectives of very different scales) count as
        settled only once they stopped moving at their own scale."""
        full = self.full_step_weights()
        if full is None or self.last_weights is None:
            return False
        moved = np.abs(np.asarray(full) - self.last_weights)
        if moved.ndim == 2:
            moved = np.linalg.norm(moved, axis=1)
        return bool(np.all(moved < SETTLED_SPACING * local_spacing(self.last_weights)))

    def settle_share(self) -> float:
        """The largest share of its own spacing (the distance to its nearest other weight)
        by which a full step would move a weight, among the weights spaced by more than
        :data:`RESOLVED_SPACING` (``0`` when there are none; ``nan`` before the first round):
        the measure :meth:`settled` holds below :data:`SETTLED_SPACING`, for the advice that
        the weights were still moving when the iterations ran out."""
        full = self.full_step_weights()
        if full is None or self.last_weights is None:
            return math.nan
        moved = np.abs(np.asarray(full) - self.last_weights)
        if moved.ndim == 2:
            moved = np.linalg.norm(moved, axis=1)
        spacing = local_spacing(self.last_weights)
        resolved = spacing > RESOLVED_SPACING
        if not np.any(resolved):
            return 0.0
        return float(np.max(moved[resolved] / spacing[resolved]))

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
