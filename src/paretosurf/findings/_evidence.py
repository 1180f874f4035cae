"""The evidence the checks of a run's points read (:func:`~paretosurf.findings.diagnose`): the
points as the run reports them, the run's options, and what several checks derive from them.

Each derived value is computed once, at its first use: a check that ends the diagnosis early
(a stuck solver, reversed objectives) spares the later checks' work, and a check reads what an
earlier one decided (the ends that left the front, the slots in local minima) from here rather
than from the earlier check's findings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf.curves import RESOLVED_GAP, Jump, find_jumps
from paretosurf.findings._collapse import RELATIVE_TOL, WEIGHT_TOL, _distinct
from paretosurf.findings._common import FloatArray, _Round
from paretosurf.findings._dominated import _weakly_dominated
from paretosurf.findings._ends import _flat_ends, _Runaway, _runaway_ends, _tied_and_beaten
from paretosurf.findings._jumps import STUCK_TOL, _local_minima_of_front
from paretosurf.findings._local_minima import _local_slots
from paretosurf.findings._order import ORDER_TOL, SEPARATED_WEIGHTS, _out_of_order
from paretosurf.findings._stuck import _beaten_at_own_weight, _linear_lagging


@dataclass(frozen=True, eq=False, kw_only=True)
class Evidence:
    """What every check reads, on a curve or a surface: the arguments of
    :func:`~paretosurf.findings.diagnose` (``weighted_sum`` as decided by ``scalarization``
    where that is given; ``normalize`` ``None`` where it is not known, as for
    :func:`~paretosurf.findings.diagnose_surface`), and the values the checks share."""

    weights: FloatArray
    points: FloatArray
    coords: FloatArray
    normalize: str | None = None
    moving_average: float | None = None
    ordered: bool = True
    history: Sequence[_Round] | None = None
    weighted_sum: bool = True
    aims_even: bool = True
    scalarization: str | None = None
    ideal: ArrayLike | None = None
    scales: ArrayLike | None = None

    @property
    def p(self) -> int:
        """The number of points."""
        return len(self.points)

    @property
    def kind(self) -> str | None:
        """The solver's scalarization kind (``None``: not known)."""
        if self.scalarization is not None:
            return self.scalarization
        return "linear" if self.weighted_sum else None

    @property
    def units(self) -> tuple[ArrayLike | None, ArrayLike | None]:
        """The solver's ideal point and scales, which its scalarization measures in."""
        return self.ideal, self.scales

    @cached_property
    def ranges(self) -> FloatArray:
        """Each objective's range over the points."""
        return self.points.max(axis=0) - self.points.min(axis=0)

    @cached_property
    def constant(self) -> NDArray[np.intp]:
        """The objectives that do not vary over the points (a range within 1e-12 of their
        magnitude, ``max(|f|, 1)``)."""
        level = np.maximum(np.abs(self.points).max(axis=0), 1.0)
        return np.flatnonzero(self.ranges <= 1e-12 * level)

    @cached_property
    def weak(self) -> NDArray[np.bool_]:
        """Which points another point weakly dominates (beyond a tie)."""
        return _weakly_dominated(self.points, self.ranges)

    @cached_property
    def own_weight_lagging(self) -> list[int]:
        """The points another point beats at their own weight in the weighted sum, by more
        than 1e-3 of its range (:func:`~paretosurf.findings._stuck._linear_lagging`): the
        ``stuck`` check and :attr:`CurveEvidence.lagging` read it (a comparison of every
        pair of points, made once)."""
        return _linear_lagging(self.weights, self.points, self.ranges)

    @cached_property
    def runaway(self) -> list[_Runaway]:
        """The end slots whose points ran, over the history, along a problem without a
        minimizer (:func:`~paretosurf.findings._ends._runaway_ends`): their gaps and their
        order are no jump, flat face or short solve, and the remedy is to solve inside the
        ends."""
        return _runaway_ends(self.weights, self.points, self.ranges, self.history)

    @cached_property
    def running(self) -> set[int]:
        """The slots of :attr:`runaway`."""
        return {r.slot for r in self.runaway}


class CurveEvidence(Evidence):
    """The evidence of a curve: two objectives at increasing scalar weights."""

    @cached_property
    def gaps(self) -> FloatArray:
        """The distances between consecutive points, in the run's coordinates."""
        return np.linalg.norm(np.diff(self.coords, axis=0), axis=1)

    @cached_property
    def extent(self) -> float:
        """The front's length: the sum of the gaps."""
        return float(np.sum(self.gaps))

    @cached_property
    def tol(self) -> float:
        """Distances below this are zero: :data:`RELATIVE_TOL` of the front's length."""
        return RELATIVE_TOL * max(self.extent, 1e-300)

    @cached_property
    def distinct(self) -> int:
        """The number of distinct points (consecutive points within :attr:`tol` are one)."""
        return _distinct(self.coords, self.tol)

    @cached_property
    def close(self) -> NDArray[np.bool_]:
        """Which consecutive weights lie within :data:`WEIGHT_TOL` of each other."""
        return np.diff(self.weights) < WEIGHT_TOL

    @cached_property
    def apart(self) -> NDArray[np.bool_]:
        """Which consecutive points lie :data:`RESOLVED_GAP` of the mean gap apart or more."""
        return self.gaps >= RESOLVED_GAP * self.extent / (self.p - 1)

    @cached_property
    def close_weights(self) -> int:
        """Consecutive weights within :data:`WEIGHT_TOL` whose points are not well apart.
        (Weights that close whose points are still well apart are no collapse: objectives of
        very different scales put an even spread of points at weights that differ by 1e-12,
        the limit of floating-point resolution.)"""
        return int(np.sum(self.close & ~self.apart))

    @cached_property
    def collapsed(self) -> bool:
        """Whether the points have collapsed: fewer distinct points than slots, or
        :attr:`close_weights`."""
        return self.distinct < self.p or self.close_weights > 0

    @cached_property
    def gap_jumps(self) -> list[Jump]:
        """Every gap the jump criterion calls a jump
        (:func:`~paretosurf.curves.find_jumps`), before the ends and the short solves
        are told apart from the front's jumps."""
        return find_jumps(
            self.weights, self.gaps, self.extent, self.points, self.ranges, self.history
        )

    @cached_property
    def resolved_close(self) -> int:
        """Consecutive weights within :data:`WEIGHT_TOL` whose points are well apart, other
        than across a jump (apart too, but no matter of precision)."""
        resolved = self.close & self.apart
        resolved[[j.i for j in self.gap_jumps]] = False
        return int(np.sum(resolved))

    @cached_property
    def separated(self) -> NDArray[np.bool_]:
        """Which consecutive weights lie :data:`SEPARATED_WEIGHTS` apart or more (the order of
        points at nearly one weight is the solver's tolerance, not noise)."""
        return np.diff(self.weights) >= SEPARATED_WEIGHTS

    @cached_property
    def out_of_order(self) -> tuple[int, int]:
        """The pairs at separated weights out of the order weighted sums guarantee, and those
        in the reverse order (none for points that need not be ordered)."""
        if not self.ordered:
            return 0, 0
        return _out_of_order(self.points, self.ranges, self.separated)

    @property
    def wrong_order(self) -> int:
        """The pairs out of order (:attr:`out_of_order`)."""
        return self.out_of_order[0]

    @property
    def reversed_order(self) -> int:
        """The pairs in the reverse order (:attr:`out_of_order`)."""
        return self.out_of_order[1]

    @cached_property
    def flat(self) -> list[int]:
        """The ends that left the front along one objective
        (:func:`~paretosurf.findings._ends._flat_ends`): at that weight the scalarized problem
        ignores the other objective, and the gap beside such an end is no jump of the front."""
        return _flat_ends(self.weights, self.gaps, self.extent, self.points, self.ranges)

    @cached_property
    def endpoints(self) -> list[int]:
        """The ends the ``endpoint`` finding names: weakly dominated ends (with noisy points, an
        end beaten in its own objective, the one its weight keeps, is likely noise: only one
        that another point ties there and beats in the other stopped on a flat face) and the
        :attr:`flat` ends, other than those running away."""
        p, weak, points, ranges = self.p, self.weak, self.points, self.ranges
        ends = [
            i
            for i in (0, p - 1)
            if weak[i]
            and (not self.wrong_order or _tied_and_beaten(points, i, 1 if i == 0 else 0, ranges))
        ]
        return sorted((set(ends) | set(self.flat)) - self.running)

    @cached_property
    def jumps(self) -> list[Jump]:
        """The gaps the front jumps across, less those beside a :attr:`flat` end or an end
        running away."""
        p, said = self.p, set(self.flat) | self.running
        return [j for j in self.gap_jumps if {0: 0, p - 2: p - 1}.get(j.i) not in said]

    @cached_property
    def lagging(self) -> list[int]:
        """The points another point beats at their own weight in the weighted sum (only for a
        solver that minimizes it, and points that come from it), other than ends running
        away."""
        if not (self.ordered and self.weighted_sum):
            return []
        beaten = (
            self.own_weight_lagging  # (the same function for scalar weights)
            if self.weights.ndim == 1
            else _beaten_at_own_weight(self.weights, self.points, self.ranges)
        )
        return [i for i in beaten if i not in self.running]

    @cached_property
    def front_minima(self) -> list[int]:
        """The :attr:`lagging` points on a point another weight reaches optimally: they
        converged, to a local minimum of a non-convex front, where a short solve would stop
        anywhere (:func:`~paretosurf.findings._jumps._local_minima_of_front`)."""
        tol = STUCK_TOL * max(self.extent, 1e-300)
        return _local_minima_of_front(self.weights, self.coords, self.lagging, tol)

    @cached_property
    def local(self) -> list[int]:
        """The slots whose points other points beat round after round while they stay put:
        local minima of the solver's problem
        (:func:`~paretosurf.findings.local_minimum_slots`), other than the slots running
        away, the :attr:`endpoints` and the :attr:`front_minima`. A gap beside one says
        nothing about the front, and they are no short solves."""
        said = self.running | set(self.endpoints) | set(self.front_minima)
        kind = self.kind if self.ordered else None
        return _local_slots(self.weights, self.points, self.history, kind, self.units, said)

    @cached_property
    def short(self) -> list[Jump]:
        """The :attr:`jumps` beside a point that stopped short: :attr:`lagging`, but neither
        one of the :attr:`front_minima` nor :attr:`local`."""
        stopped = set(self.lagging) - set(self.front_minima) - set(self.local)
        return [j for j in self.jumps if {j.i, j.i + 1} & stopped]

    @cached_property
    def real(self) -> list[Jump]:
        """The front's jumps: the :attr:`jumps` other than the :attr:`short` ones and those
        beside a point in a local minimum."""
        local = set(self.local)
        return [j for j in self.jumps if j not in self.short and not {j.i, j.i + 1} & local]

    @cached_property
    def unconverged(self) -> list[int]:
        """The :attr:`lagging` points other than the :attr:`local` ones."""
        return [i for i in self.lagging if i not in self.local]


class SurfaceEvidence(Evidence):
    """The evidence of a surface: M >= 3 objectives at weight vectors on the simplex."""

    @cached_property
    def endpoints(self) -> list[int]:
        """The corner slots the ``endpoint`` finding names: corners of the simplex (other than
        those running away) that another point ties in their own objective and beats in
        another, so that they stopped on the flat face the corner's weight leaves (a corner
        beaten in its own objective fell short: noise, too few steps, and is judged as the
        other points are)."""
        weights, points, ranges, weak = self.weights, self.points, self.ranges, self.weak
        corners = [i for i in range(self.p) if np.max(weights[i]) == 1.0 and i not in self.running]
        return [
            i
            for i in corners
            if weak[i]
            and _tied_and_beaten(points, i, int(np.argmax(weights[i])), ranges, own_tol=ORDER_TOL)
        ]

    @cached_property
    def local(self) -> list[int]:
        """The slots in local minima of the solver's problem
        (:func:`~paretosurf.findings.local_minimum_slots`), other than the slots running away
        and the :attr:`endpoints`."""
        said = self.running | set(self.endpoints)
        return _local_slots(self.weights, self.points, self.history, self.kind, self.units, said)
