"""SURF (Algorithm 1): Pareto points evenly spaced along the front from any scalarized solver.

Each round picks ``w_n = Phi_t^{-1}(n / N)``, runs the inner solver once per slot (warm-started
from the slot's previous state), rebuilds ``Phi~_t`` from the chord lengths of the new points and
damps it in: ``Phi_{t+1} = alpha * Phi~_t + (1 - alpha) * Phi_t``.

:class:`SurfMethod` is SURF as a method of the driver (:mod:`paretosurf.loop`), which runs
the rounds, counts the budget, records, checkpoints and resumes; :func:`surf` is the entry point.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from paretosurf._utils.validation import check_alpha, check_non_negative_int
from paretosurf.curves import (
    DUPLICATE_TOL,
    RAY_TOL,
    ArcLengthCDF,
    EndReach,
    Piece,
    allocate,
    chord_lengths,
    find_breaks,
    limit_end_weight,
    nondominated,
    pieces_from_breaks,
    ray_offsets,
    resolved_offsets,
    update_reach,
    with_end_knots,
)
from paretosurf.loop import (
    Round,
    RoundOutcome,
    RunOptions,
    check_options,
    document_loop_options,
    offers_probe_starts,
    run,
)
from paretosurf.methods._size import segments_from, size_keyword
from paretosurf.methods._slots import ScalarizationSource, SlotMethod, solver_scalarization
from paretosurf.result import IterationRecord, Result
from paretosurf.solvers import SolverLike
from paretosurf.storage import StatePool

if TYPE_CHECKING:  # pragma: no cover - typing only
    from typing import Unpack

__all__ = ["CDFRefinement", "SurfMethod", "auto_warm_start", "surf"]

#: ``alpha="auto"``: the damping's range, and the factor by which the CDF change must shrink
#: from one round to the next for the damping to grow.
AUTO_ALPHA_MAX = 1.0
AUTO_ALPHA_MIN = 0.3
AUTO_CONTRACTION = 0.9
#: ... and by which it must shrink for the damping to double again after a back-off.
AUTO_FAST = 0.7
#: ... and the change, relative to the first round's, below which the CDF counts as settled
#: (the damping is then the minimum).
AUTO_SETTLED = 0.02
#: ... and, once settled, the rounds of growing change after which the damping is halved below
#: the minimum (down to AUTO_ALPHA_FLOOR): a fixed point that alpha = 0.3 overshoots.
AUTO_DRIFT_ROUNDS = 3
AUTO_ALPHA_FLOOR = 0.05
#: ... and, against a cycle of full and half steps (full steps overshoot, half steps
#: contract, full steps again...): a back-off from the damping that backed off at most this
#: many rounds before caps the damping at half of it, until AUTO_CALM_ROUNDS rounds in a row
#: contract fast.
AUTO_CYCLE_ROUNDS = 3
AUTO_CALM_ROUNDS = 3
#: ... and, once settled, the rounds in a row whose change exceeds the change two rounds
#: before (a swing of period two that does not die down: the damping overshoots every other
#: round) after which the damping is halved below the minimum, as for AUTO_DRIFT_ROUNDS.
AUTO_SWING_ROUNDS = 2
AUTO_GRID = 1025
#: The rounds whose points SURF merges into the non-dominated points seen before at most this
#: many rounds late (where no chord breaks sooner): sorting them all every round made a
#: round's cost grow with the rounds run.
UNSEEN_ROUNDS = 32
#: Pieces: an end of a piece that no evidence confirms (a corner solution or points that
#: coincide there) is probed this share of the way into the gap's weight interval, so that
#: the piece's points reach its true end.
PROBE_SHARE = 1.0 / 3.0
#: ... unless the solver's scalarization is Tchebycheff and the end is a limit that no weight
#: reaches on its own (:func:`~paretosurf.curves.limit_end_weight`): its end slot then goes
#: this share of the way from the piece's outermost weight to the weight estimated to reach
#: the end, which stays inside the piece as long as the estimate is not off by more than
#: the rest of the way (a probe into the gap lands on the point across it: a duplicate).
END_APPROACH = 0.5
#: ... until it is within this share of the weight between the piece's two outermost slots:
#: the end slot then stays (its point within about that share of a gap of the end), so that
#: the weights settle and no slot goes on towards the tie, where a solve may land across.
END_CLOSE = 0.05

FloatArray = NDArray[np.float64]

#: The grids of ``alpha="auto"`` made so far, by size (:data:`AUTO_GRID`).
_GRIDS: dict[int, FloatArray] = {}


def _auto_grid() -> FloatArray:
    """``np.linspace(0, 1, AUTO_GRID)``, made once (read-only)."""
    grid = _GRIDS.get(AUTO_GRID)
    if grid is None:
        grid = np.linspace(0.0, 1.0, AUTO_GRID)
        grid.setflags(write=False)
        _GRIDS[AUTO_GRID] = grid
    return grid


class CDFRefinement:
    """SURF's estimate of one arc-length CDF, refined round by round: ``Phi_{t+1} = alpha *
    Phi~_t + (1 - alpha) * Phi_t``, with ``Phi~_t`` rebuilt from the chord lengths of the
    round's points and ``alpha`` fixed or chosen per round (``"auto"``).

    :class:`SurfMethod` holds one for the front; :mod:`paretosurf.surf_simplex` one per edge of
    the weight simplex, so that every edge of a surface gets exactly SURF's points.

    Parameters
    ----------
    alpha : float or "auto"
        Damping factor in (0, 1], or ``"auto"`` (see :func:`surf`).
    at_weights : bool, default True
        With ``"auto"``: measure the CDF's change at the round's weights too, and halve the
        damping once settled when the change swings with period two (see
        :meth:`_auto_alpha`): for weights that crowd near an end, as on ill-conditioned
        paths. The edges of a surface (:mod:`paretosurf.surf_simplex`) keep the grid alone.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.methods._surf import CDFRefinement
    >>> refine = CDFRefinement(1.0)
    >>> w = np.linspace(0, 1, 5)
    >>> refine.update(w, np.c_[w ** 2, 1 - w ** 2])       # points crowd at w = 0
    >>> refine.cdf.quantile_weights(2).round(3).tolist()
    [0.0, 0.707, 1.0]
    """

    def __init__(self, alpha: float | str = 0.3, *, at_weights: bool = True) -> None:
        if isinstance(alpha, str) and alpha != "auto":
            raise ValueError(f"alpha must be a number in (0, 1] or 'auto', got {alpha!r}")
        self.auto = alpha == "auto"
        self.at_weights = at_weights
        #: The damping of the last update (with "auto": chosen round by round).
        self.alpha = AUTO_ALPHA_MAX if self.auto else check_alpha(alpha)
        self._residual = math.nan  # auto: the last round's ||Phi~_t - Phi_t||_inf
        self._first_residual = math.nan
        self._growths = 0  # auto: rounds in a row whose residual grew
        self._round = 0  # auto: updates so far
        self._ceiling = AUTO_ALPHA_MAX  # auto: the largest damping allowed now
        self._calm = 0  # auto: rounds in a row whose residual contracted fast
        self._before = math.nan  # auto: the residual two rounds before
        self._swings = 0  # auto: rounds in a row whose residual exceeded it
        self._backoff = (-1, math.nan)  # auto: the round and damping of the last back-off
        #: The current CDF ``Phi_t`` and the last estimate ``Phi~_t`` (None before any).
        self.cdf = ArcLengthCDF.identity()
        self.estimate: ArcLengthCDF | None = None

    def setting(self) -> float | str:
        """``alpha`` as the user gave it."""
        return "auto" if self.auto else self.alpha

    def update(
        self, weights: FloatArray, coordinates: FloatArray, breaks: Sequence[int] = ()
    ) -> None:
        """Refine the CDF from points at increasing ``weights`` (from 0 to 1) with the given
        ``coordinates`` (rows in weight order); ``breaks``: chords across gaps of the front
        (:func:`paretosurf.curves.find_breaks`), which count as no arc length."""
        # Chord lengths, and the new CDF from them: weights come from quantile_weights and
        # points were checked finite, so the public constructor's validation is skipped.
        gaps = chord_lengths(coordinates)
        if len(breaks):
            gaps[np.asarray(breaks, dtype=np.intp)] = 0.0
        self.estimate = ArcLengthCDF._from_chords(weights, gaps)
        if self.auto:
            self.alpha = self._auto_alpha(self.estimate, weights if self.at_weights else None)
        self.cdf = self.cdf.mix(self.estimate, self.alpha)

    def _auto_alpha(self, estimate: ArcLengthCDF, weights: FloatArray | None = None) -> float:
        """The safeguarded damping of ``alpha="auto"``: full steps while the change of the CDF
        estimate, ``r_t = ||Phi~_t - Phi_t||_inf``, contracts; halved (down to the paper's
        0.3) when it does not, doubled again (up to 1) when it contracts. A back-off from
        the damping that backed off ``AUTO_CYCLE_ROUNDS`` rounds before or fewer (full steps
        overshoot, half steps contract, full steps overshoot again) caps it at half of that
        until ``AUTO_CALM_ROUNDS`` rounds in a row contract fast. The change is measured on a
        grid of weights and at the round's ``weights``.

        A fixed-point iteration whose residual stops contracting is overshooting (the
        concave DST map oscillates at alpha = 1); at the floor the scheme is the paper's
        damped iteration with alpha = 0.3, whose convergence guarantee it keeps. Once the CDF
        has settled, a change that grows ``AUTO_DRIFT_ROUNDS`` rounds in a row is an
        overshoot that even 0.3 does not damp, and so is one that exceeds the change two rounds
        before ``AUTO_SWING_ROUNDS`` rounds in a row (a swing of period two that does not
        die down, as on ill-conditioned ridge paths once settled). On DST's concave map with
        N = 15 the first interior weight oscillates with a growing amplitude at alpha = 0.3,
        and the CV climbs from 0.0000 to 0.003 over 20 rounds. The damping is then halved
        further, down to ``AUTO_ALPHA_FLOOR``, and doubled back to 0.3 when the change
        contracts.
        """
        # (on a grid and at the round's weights: where weights crowd, as within 1e-8 of an
        # end on an ill-conditioned problem, a grid alone misses the change)
        # (the largest difference over the grid and the weights; the union of the two would
        # only sort the points and drop the repeated ones, which changes no maximum)
        grid = _auto_grid()
        if weights is not None:
            grid = np.concatenate((grid, np.clip(np.asarray(weights, dtype=np.float64), 0.0, 1.0)))
        residual = float(np.abs(estimate._value(grid) - self.cdf._value(grid)).max())
        previous, self._residual = self._residual, residual
        before, self._before = self._before, previous
        if not math.isfinite(previous):  # the first update: the estimate replaces Phi_0
            self._first_residual = residual
            self._growths = 0
            return AUTO_ALPHA_MAX
        self._growths = self._growths + 1 if residual > previous else 0
        self._round += 1
        fast = residual <= AUTO_FAST * previous
        self._calm = self._calm + 1 if fast else 0
        # (nan: False; only where the change is measured at the weights)
        self._swings = self._swings + 1 if self.at_weights and residual > before else 0
        if self._calm >= AUTO_CALM_ROUNDS and self._ceiling < AUTO_ALPHA_MAX:
            self._ceiling, self._calm = min(AUTO_ALPHA_MAX, 2.0 * self._ceiling), 0
        if residual <= AUTO_SETTLED * self._first_residual:
            # settled: what changes now is mostly the solver's noise, which damping averages
            if self._growths >= AUTO_DRIFT_ROUNDS or self._swings >= AUTO_SWING_ROUNDS:
                self._swings = 0
                return max(AUTO_ALPHA_FLOOR, 0.5 * self.alpha)
            if fast:
                return min(AUTO_ALPHA_MIN, 2.0 * self.alpha)
            return min(self.alpha, AUTO_ALPHA_MIN)
        if fast:
            return min(self._ceiling, 2.0 * self.alpha)
        if residual <= AUTO_CONTRACTION * previous:
            return self.alpha
        last_round, last_alpha = self._backoff
        if self._round - last_round <= AUTO_CYCLE_ROUNDS and last_alpha == self.alpha:
            self._ceiling = max(AUTO_ALPHA_MIN, 0.5 * self.alpha)  # a cycle: stay below
        self._backoff = (self._round, self.alpha)
        return max(AUTO_ALPHA_MIN, 0.5 * self.alpha)

    def auto_state(self) -> dict[str, Any] | None:
        """The state of ``alpha="auto"`` (JSON-able), ``None`` for a fixed alpha."""
        if not self.auto:
            return None
        return {
            "alpha": self.alpha,
            "residual": self._residual,
            "first_residual": self._first_residual,
            "growths": self._growths,
            "round": self._round,
            "ceiling": self._ceiling,
            "calm": self._calm,
            "before": None if math.isnan(self._before) else self._before,
            "swings": self._swings,
            "backoff": [
                self._backoff[0],
                None if math.isnan(self._backoff[1]) else self._backoff[1],
            ],
        }

    def restore(
        self,
        cdf: ArcLengthCDF | None,
        estimate: ArcLengthCDF | None,
        auto: Mapping[str, Any] | None,
    ) -> None:
        """Inverse of :attr:`cdf`, :attr:`estimate` and :meth:`auto_state`."""
        self.cdf = ArcLengthCDF.identity() if cdf is None else cdf
        self.estimate = estimate
        if self.auto and auto is not None:
            self.alpha = float(auto["alpha"])
            residual = auto["residual"]
            self._residual = math.nan if residual is None else float(residual)
            first = auto.get("first_residual")
            self._first_residual = math.nan if first is None else float(first)
            self._growths = int(auto.get("growths", 0))
            # (runs saved before the cycle guard existed start it afresh)
            self._round = int(auto.get("round", 0))
            self._ceiling = float(auto.get("ceiling", AUTO_ALPHA_MAX))
            self._calm = int(auto.get("calm", 0))
            before = auto.get("before")
            self._before = math.nan if before is None else float(before)
            self._swings = int(auto.get("swings", 0))
            backoff = auto.get("backoff", [-1, None])
            self._backoff = (
                int(backoff[0]),
                math.nan if backoff[1] is None else float(backoff[1]),
            )


class SurfMethod(SlotMethod):
    """SURF as a method of the driver: weights ``Phi_t^{-1}(n / N)``, ``Phi`` refined from the
    chord lengths of every round's points and damped with ``alpha``.

    Parameters
    ----------
    n_segments : int
        N >= 1 (N + 1 slots).
    alpha : float or "auto"
        Damping factor in (0, 1], or ``"auto"`` (see :func:`surf`).
    warm_start : {"slot", "nearest", "rescue", "best"}
        See :func:`surf`. With ``"best"`` the weights are laid out by pieces where the front
        breaks (:attr:`lays_out_pieces`).
    """

    name = "surf"
    label = "SURF"
    aims_even = True
    verifies_ends = True

    def __init__(
        self,
        n_segments: int,
        *,
        alpha: float | str = "auto",
        warm_start: str = "slot",
        scalarization: ScalarizationSource = None,
    ) -> None:
        super().__init__(n_segments, warm_start=warm_start, scalarization=scalarization)
        self.refinement = CDFRefinement(alpha)
        self._next: FloatArray | None = None
        self._guess: FloatArray | None = None
        #: The last :meth:`full_step_weights` of the one-piece rule, with the estimate and
        #: the weights it was computed from.
        self._full_step: tuple[ArcLengthCDF, FloatArray, FloatArray] | None = None
        #: The last round's pieces (empty while the front is one piece), the chords between
        #: them, and per piece whether its first and last points are confirmed ends.
        self.pieces: list[Piece] = []
        self._breaks: list[int] = []
        #: Whether the weights follow the pieces (with warm_start="best" only: see
        #: :func:`surf`); otherwise the pieces are found and reported only.
        self.lays_out_pieces = self.warm_start == "best"
        #: Whether the warm-start rule was chosen for the solver (``warm_start="auto"``):
        #: a resumed run then takes the rule it was saved with.
        self.warm_start_chosen = False
        self._ends: list[tuple[bool, bool, int, int]] = []
        self._rays: FloatArray | None = None
        self._ray_weights: FloatArray | None = None
        #: The last round's ideal point of each solve, under a Tchebycheff scalarization
        #: (for the ends of pieces that are limits); else ``None``.
        self._ray_ideals: FloatArray | None = None
        #: The next round's slots that approach a limit end of a piece, and the last round's
        #: slot at that end (its state starts them).
        self._approach: dict[int, int] = {}
        #: The weights known, from every round so far, to reach each end's point (see
        #: :mod:`paretosurf.curves`); ``None`` before the first round.
        self.end_reach: EndReach | None = None
        self._reach_ideal: FloatArray | None = None
        self._same: NDArray[np.bool_] = np.zeros(0, dtype=bool)  # the last round's zero chords
        #: The non-dominated points of every round so far (two objectives): a chord between
        #: two points whose box holds one crosses no gap (:func:`~paretosurf.curves.
        #: filled_chords`). Rebuilt from the history on resuming. Kept as the non-dominated
        #: points of the rounds up to some round and the later rounds' points, merged only
        #: where a chord breaks (:meth:`_seen_points`).
        self._seen: FloatArray = np.zeros((0, 2))
        self._unseen: list[FloatArray] = []

    @property
    def auto(self) -> bool:
        """Whether the damping is chosen per round (``alpha="auto"``)."""
        return self.refinement.auto

    @property
    def alpha(self) -> float:
        """The damping of the last update."""
        return self.refinement.alpha

    def settings(self) -> dict[str, Any]:
        return {
            "n_segments": self.n_segments,
            "alpha": self.refinement.setting(),
            "warm_start": self.warm_start,
        }

    def adopt_saved(self, saved: Mapping[str, Any]) -> None:
        """A run whose ``warm_start`` was left to ``"auto"`` resumes with the rule it was
        saved with, where ``"auto"`` could have chosen it (runs saved before ``"auto"`` was
        the default kept their own slots'); another rule saved must be given again."""
        rule = saved.get("warm_start")
        if self.warm_start_chosen and rule in AUTO_WARM_STARTS and rule != self.warm_start:
            self.warm_start = str(rule)
            self.lays_out_pieces = self.warm_start == "best"

    @property
    def cdf(self) -> ArcLengthCDF:
        """The current estimate of the arc-length CDF, ``Phi_{t+1}``."""
        return self.refinement.cdf

    def record_extras(self) -> dict[str, Any]:
        """The CDF, the round's estimate ``Phi~_t`` and damping: records store the estimate
        instead of the whole CDF, whose knots accumulate round after round; and the round's
        pieces where the front breaks, when the weights are laid out by them
        (:attr:`lays_out_pieces`: otherwise a record measures every gap, as the
        one-piece rule spaces them)."""
        out: dict[str, Any] = {
            "cdf": self.cdf,
            "cdf_estimate": self.refinement.estimate,
            "alpha": self.alpha,
        }
        if self.pieces and self.lays_out_pieces:
            out["pieces"] = list(self.pieces)
        return out

    def result_extras(self) -> dict[str, Any]:
        # (the result's pieces are those of the round it reports, from its record)
        return {"cdf": self.cdf}

    def settle_options(self) -> dict[str, Any]:
        """A fixed damping settles in fewer rounds with ``alpha="auto"``."""
        return {} if self.auto else {"alpha": "auto"}

    def next_weights(self) -> FloatArray:
        if self._next is None:
            if self.pieces and self.lays_out_pieces:
                self._next, self._approach = self._piece_weights(self.cdf)
            else:
                n = self.n_segments
                # The weights solved before the last round start Newton's method well once
                # the CDF settles; the inverse is exact to rounding from any start.
                self._next, self._approach = (
                    self.cdf._inverse(np.arange(n + 1) / n, self._guess),
                    {},
                )
        return self._next.copy()

    def _piece_weights(self, cdf: ArcLengthCDF) -> tuple[FloatArray, dict[int, int]]:
        """The weights that spread the N + 1 points by arc length within the last round's
        pieces under ``cdf``: each piece's share of the points evenly spaced between its
        ends (each end at a weight that reached it; for an end that only a limit of weights
        reaches, part of the way to the weight estimated to reach it; else a probe into the
        gap while no evidence confirms it), its interior points at the arc-length levels of
        the piece, read off ``cdf`` between the ends' weights. Also returns the slots that
        approach a limit end, each with the last round's slot at that end."""
        w = self.last_weights
        assert w is not None
        out: list[float] = []
        approach: dict[int, int] = {}  # new slot -> the old slot whose piece end it follows
        last = len(self.pieces) - 1
        for k, piece in enumerate(self.pieces):
            a, b = piece.first, piece.last
            start_ok, end_ok, first, final = self._ends[k]
            lo = 0.0 if k == 0 else float(w[first])
            hi = 1.0 if k == last else float(w[final])
            n = piece.share
            if k > 0 and not start_ok:
                limit = self._limit_weight(a, a + 1, a - 1) if a < b else None
                if limit is not None and w[a - 1] < limit < lo:
                    if lo - limit > END_CLOSE * (w[a + 1] - w[a]):
                        lo -= END_APPROACH * (lo - limit)
                    approach[len(out)] = a
                else:
                    lo -= PROBE_SHARE * (w[a] - w[a - 1])
            if k < last and not end_ok:
                limit = self._limit_weight(b, b - 1, b + 1) if a < b else None
                if limit is not None and hi < limit < w[b + 1]:
                    if limit - hi > END_CLOSE * (w[b] - w[b - 1]):
                        hi += END_APPROACH * (limit - hi)
                    approach[len(out) + max(n, 1) - 1] = b
                else:
                    hi += PROBE_SHARE * (w[b + 1] - w[b])
            if n == 1:
                out.append(lo if k == 0 else hi if k == last else 0.5 * (lo + hi))
                approach.pop(len(out) - 1, None)  # (one point between both ends: no end's)
                continue
            inner = np.linspace(0.0, 1.0, n)[1:-1]
            if inner.size:
                # the weights that reached the piece's end points, nearest its inside (at the
                # ends of the whole front, the first and last weight stay 0 and 1)
                lo_in = float(w[first]) if k == 0 else lo
                hi_in = float(w[final]) if k == last else hi
                f_lo, f_hi = cdf(np.array([lo_in, hi_in]))
                q = f_lo + (f_hi - f_lo) * inner
                out.extend([lo, *np.clip(cdf._inverse(q, None), lo_in, hi_in).tolist(), hi])
            else:
                out.extend([lo, hi])
        weights = np.asarray(out, dtype=np.float64)
        if weights.size != self.n_segments + 1 or np.any(np.diff(weights) <= 0):
            # (a degenerate layout: fall back to the one-piece rule)
            n = self.n_segments
            return self.cdf._inverse(np.arange(n + 1) / n, self._guess), {}
        weights[0], weights[-1] = 0.0, 1.0
        return weights, approach

    def propose(self) -> Round:
        """The next round, as every slot method proposes it, except that a slot approaching
        the limit end of a piece (:func:`~paretosurf.curves.limit_end_weight`) starts from
        that piece's end point: at its new weight the point across the gap may score lower
        than the piece's own end (which lay at a weight further from the tie), and a solve
        started there stays across the gap."""
        rnd = super().propose()
        if not self._approach or len(self.keys) != len(rnd.weights):
            return rnd
        starts = list(rnd.starts)
        for slot, old in self._approach.items():
            starts[slot] = self.keys[old]
        return dataclasses.replace(rnd, starts=starts)

    def _limit_weight(self, end: int, inner: int, across: int) -> float | None:
        """:func:`~paretosurf.curves.limit_end_weight` of the last round's points at the
        slots ``end``, ``inner`` (its neighbour inside the piece) and ``across``, or ``None``
        without a Tchebycheff ray for each of them (another scalarization) or where ``end``
        and ``inner`` coincide."""
        points, ideals = self.last_points, self._ray_ideals
        if points is None or ideals is None or np.array_equal(points[end], points[inner]):
            return None
        return limit_end_weight(points[end], points[inner], points[across], ideals[end])

    def full_step_weights(self) -> FloatArray | None:
        """The weights a full step (alpha = 1) would take: :meth:`convergence_change` and
        :meth:`settled` measure the distance to the fixed point with them, whatever the
        damping (the damped step is alpha times shorter, and would let a small alpha stop
        far from it)."""
        estimate = self.refinement.estimate
        if estimate is None or self.last_weights is None:
            return None
        if self.pieces and self.lays_out_pieces:
            return self._piece_weights(estimate)[0]
        # (kept for the estimate and weights it was computed from: the early stop asks each
        # round, and the result's findings ask twice more at the end)
        kept = self._full_step
        if kept is not None and kept[0] is estimate and kept[1] is self.last_weights:
            return kept[2].copy()
        full = estimate._inverse(
            np.arange(self.n_segments + 1) / self.n_segments, self.last_weights
        )
        self._full_step = (estimate, self.last_weights, full)
        return full.copy()

    def suspected_gaps(self) -> list[int]:
        """The breaks between the pieces its last round found (see
        :meth:`~paretosurf.loop.Method.suspected_gaps`)."""
        return list(self._breaks)

    def tell(self, outcome: RoundOutcome, pool: StatePool) -> None:
        """Find where the round's points break into pieces (see :mod:`paretosurf.curves`),
        then learn from the round as every slot method does."""
        assert outcome.coordinates is not None
        weights = np.asarray(outcome.weights, dtype=np.float64)
        coords = outcome.coordinates
        chords = chord_lengths(coords)
        offsets = None
        if weights.ndim == 1 and outcome.points.shape[1] == 2:
            offsets = self._ray_offsets(weights, outcome.points, outcome.infos, coords)
            self._rays = self._ray_weights
        else:
            self._rays = None
            self._ray_ideals = None
        if weights.ndim == 1 and outcome.points.shape[1] == 2:
            points = np.asarray(outcome.points, dtype=np.float64)
            # (what every round found: a chord whose box holds a point is no gap) The points
            # found before can only take breaks away (each fills chords, none makes one): where
            # the round's own points leave none, there is none to take away, and the points
            # found before are not needed; most rounds break nowhere.
            self._breaks = find_breaks(
                weights, coords, offsets=offsets, points=points, chords=chords
            )
            if self._breaks:
                self._breaks = find_breaks(
                    weights,
                    coords,
                    offsets=offsets,
                    points=points,
                    seen=self._seen_points(),
                    chords=chords,
                )
            self._unseen.append(points.copy())
            if len(self._unseen) >= UNSEEN_ROUNDS:
                self._seen_points()
        else:
            self._breaks = []
        same = chords <= DUPLICATE_TOL * max(float(chords.sum()), 1e-300)
        if weights.ndim == 1 and len(weights) >= 2:
            # (what a solver whose scalarization follows its ideal point showed before the
            # point moved no longer holds)
            sc = self.current_scalarization()
            ideal = None if sc is None or sc.ideal is None else np.asarray(sc.ideal, dtype=float)
            same_map = (ideal is None and self._reach_ideal is None) or (
                ideal is not None
                and self._reach_ideal is not None
                and np.array_equal(ideal, self._reach_ideal)
            )
            points = np.asarray(outcome.points, dtype=np.float64)
            extent = float(np.linalg.norm(np.ptp(points, axis=0))) if len(points) else 0.0
            self.end_reach = update_reach(
                self.end_reach if same_map else None,
                weights,
                points,
                same,
                DUPLICATE_TOL * extent,
            )
            self._reach_ideal = ideal
        self._same = same
        super().tell(outcome, pool)
        spans = pieces_from_breaks(self._breaks, len(weights)) if self._breaks else []
        lengths = [float(chords[a:b].sum()) for a, b in spans]
        if self.lays_out_pieces:
            before = [piece.share for piece in self.pieces]
            shares = allocate(lengths, self.n_segments + 1, previous=before) if spans else []
        else:
            # the weights follow the one-piece rule: each piece keeps the points it has
            shares = [b - a + 1 for a, b in spans]
        self.pieces = [
            Piece(a, b, length, share)
            for (a, b), length, share in zip(spans, lengths, shares, strict=True)
        ]
        self._ends = []
        for a, b in spans:
            # the weights nearest the piece's inside that reached its end points
            first, last = a, b
            while first < last and same[first]:
                first += 1
            while last > first and same[last - 1]:
                last -= 1
            self._ends.append(
                (
                    first > a or (offsets is not None and bool(offsets[a] < -RAY_TOL)),
                    last < b or (offsets is not None and bool(offsets[b] > RAY_TOL)),
                    first,
                    last,
                )
            )
        self._next = None

    def _seen_points(self) -> FloatArray:
        """The non-dominated points of every round so far (:attr:`_seen` with the rounds' points
        not yet merged into it): :func:`~paretosurf.curves.nondominated` of the points of the
        rounds before and the later rounds' points is that of all the points, to the last bit
        (the rows it drops from the first are dropped from all, and those it keeps come in the
        same order), so that merging them late, and a few rounds at a time, changes nothing."""
        if self._unseen:
            self._seen = nondominated(np.concatenate((self._seen, *self._unseen)))
            self._unseen = []
        return self._seen

    def _ray_offsets(
        self,
        weights: FloatArray,
        points: FloatArray,
        infos: Sequence[Mapping[str, Any]],
        coords: FloatArray | None = None,
    ) -> FloatArray | None:
        """:func:`~paretosurf.curves.ray_offsets` of the round's points under the solver's
        Tchebycheff scalarization (with each solve's ideal point, else the solver's), less
        those that show no gap at the run's resolution in the points' ``coords``
        (:func:`~paretosurf.curves.resolved_offsets`), or ``None`` for another
        scalarization or none declared."""
        sc = self.current_scalarization()
        self._ray_weights = None
        self._ray_ideals = None
        if sc is None or sc.kind not in ("tchebycheff", "modified_tchebycheff"):
            return None
        ideals = []
        for i in range(len(weights)):
            z = infos[i].get("ideal") if i < len(infos) else None
            z = sc.ideal if z is None else z
            if z is None or np.size(z) != 2:
                return None
            ideals.append(np.asarray(z, dtype=np.float64))
        coefficients = np.stack([sc.coefficients(float(w)) for w in weights])
        z = np.stack(ideals)
        excess = points - z
        total = excess.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            # the weight whose ray passes through each point: w (h1 - z1) = (1 - w) (h2 - z2)
            rays = np.where(total > 0, excess[:, 1] / np.where(total > 0, total, 1.0), weights)
        self._ray_weights = np.clip(rays, 0.0, 1.0)
        self._ray_ideals = z
        offsets = ray_offsets(weights, points, coefficients, z)
        if coords is None:
            return offsets
        return resolved_offsets(offsets, points, coords, coefficients, z)

    def update(self, weights: FloatArray, coordinates: FloatArray) -> None:
        # Laid out by pieces, the chords across gaps count as no arc length; otherwise the
        # one-piece rule stays exactly as on a connected front.
        breaks = list(self._breaks) if self.lays_out_pieces else []
        if self.end_reach is not None and np.ndim(weights) == 1:
            # the flat stretches at the ends that earlier rounds saw (paretosurf.curves)
            weights, coordinates, breaks = with_end_knots(
                weights, coordinates, self._same, self.end_reach, breaks
            )
        self.refinement.update(weights, coordinates, breaks)
        self._guess = self.last_weights
        self._next = None

    def state_dict(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        meta, arrays = self.slot_state()  # the CDF is rebuilt from the history
        auto = self.refinement.auto_state()
        if auto is not None:
            meta["auto_alpha"] = auto
        if self._next is not None:
            arrays["next_weights"] = self._next
        if self.end_reach is not None:
            meta["end_reach"] = [
                self.end_reach.low,
                self.end_reach.high,
                list(self.end_reach.low_point),
                list(self.end_reach.high_point),
            ]
            if self._reach_ideal is not None:
                arrays["reach_ideal"] = self._reach_ideal
        if self.pieces:
            meta["pieces"] = [p.to_dict() for p in self.pieces]
            meta["breaks"] = list(self._breaks)
            meta["piece_ends"] = [list(e) for e in self._ends]
            if self._rays is not None:
                arrays["ray_weights"] = self._rays
            if self._ray_ideals is not None:
                arrays["ray_ideals"] = self._ray_ideals
            if self._approach:
                meta["approach"] = [[k, v] for k, v in sorted(self._approach.items())]
        return meta, arrays

    def load_state_dict(
        self,
        meta: Mapping[str, Any],
        arrays: Mapping[str, NDArray[Any]],
        history: Sequence[IterationRecord],
    ) -> None:
        self.load_slot_state(meta, arrays)
        found = [
            np.asarray(r.points, dtype=np.float64)
            for r in history
            if np.ndim(r.weights) == 1 and np.shape(r.points)[1:] == (2,)
        ]
        self._seen = nondominated(np.vstack(found)) if found else np.zeros((0, 2))
        self._unseen = []
        last = history[-1] if history else None
        self.refinement.restore(
            None if last is None else last.cdf,
            None if last is None else last.cdf_estimate,
            meta.get("auto_alpha"),
        )
        self._next = (
            np.asarray(arrays["next_weights"], dtype=np.float64)
            if "next_weights" in arrays
            else None
        )
        self.pieces = [Piece.from_dict(p) for p in meta.get("pieces", [])]
        self._breaks = [int(b) for b in meta.get("breaks", [])]
        self._ends = [
            (bool(a), bool(b), int(c), int(d)) for a, b, c, d in meta.get("piece_ends", [])
        ]
        self._rays = (
            np.asarray(arrays["ray_weights"], dtype=np.float64) if "ray_weights" in arrays else None
        )
        self._approach = {int(k): int(v) for k, v in meta.get("approach", [])}
        self._ray_ideals = (
            np.asarray(arrays["ray_ideals"], dtype=np.float64) if "ray_ideals" in arrays else None
        )
        reach = meta.get("end_reach")  # (runs saved before it was kept start without it)
        self.end_reach = (
            None
            if reach is None
            else EndReach(
                float(reach[0]),
                float(reach[1]),
                tuple(float(v) for v in reach[2]),
                tuple(float(v) for v in reach[3]),
            )
        )
        self._reach_ideal = (
            np.asarray(arrays["reach_ideal"], dtype=np.float64) if "reach_ideal" in arrays else None
        )


#: The rules ``warm_start="auto"`` chooses from (:func:`auto_warm_start`).
AUTO_WARM_STARTS = ("slot", "best")


def auto_warm_start(solver: SolverLike) -> str:
    """The warm-start rule ``warm_start="auto"`` takes for ``solver``: ``"best"`` for a
    solver that offers fresh starts in a known box (``probe_start``) and solves a
    Tchebycheff-type scalarization, ``"slot"`` otherwise.

    A local solve of a Tchebycheff scalarization stops in the basin its start lies in, and on
    a front whose decisions fold (ZDT6, where each hump of ``f1`` holds a basin) a slot's
    own solution may lie in a basin that no longer holds its weight's point: the point of
    another slot that scores lower at its weight is then the better start. Under weighted
    sums the slots' own solutions are kept: there a neighbour's solution scores lower at
    a slot's weight mostly by the last digits of an inexact solve, and switching to it
    every round keeps the points from settling.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.adapters import from_scipy
    >>> def concave(x):
    ...     return np.array([x[0], 1 - x[0] ** 2 + x[1] ** 2])
    >>> box = [(0, 1), (-1, 1)]
    >>> auto_warm_start(from_scipy(concave, x0=[0.5, 0.5], bounds=box))
    'best'
    >>> auto_warm_start(from_scipy(concave, x0=[0.5, 0.5], bounds=box, scalarization="linear"))
    'slot'
    >>> def bowls(x):
    ...     return np.array([x @ x, (x - 1) @ (x - 1)])
    >>> auto_warm_start(from_scipy(bowls, x0=[0.5, 0.5], scalarization="tchebycheff"))  # no box
    'slot'
    """
    declared = solver_scalarization(solver)()
    if declared is None or not declared.needs_ideal:
        return "slot"
    return "best" if offers_probe_starts(solver) else "slot"


@size_keyword
@document_loop_options
def surf(
    solver: SolverLike,
    n_segments: int | None = None,
    *,
    n_points: int | None = None,
    alpha: float | str = "auto",
    iterations: int = 30,
    tol: float | None = None,
    init_states: Sequence[Any] | None = None,
    warm_start: str = "auto",
    **options: Unpack[RunOptions],
) -> Result:
    """Find N+1 Pareto points evenly spaced in arc length along the front (SURF).

    Parameters
    ----------
    solver : object or callable
        Inner solver of ``min_u w * h1(u) + (1 - w) * h2(u)`` (objectives minimized; ``w`` is
        the weight on objective 1): an object with ``solve(weight, state) -> Solution``
        (optionally ``solve_many(weights, states)``), or a callable ``(weight, state)``
        returning a :class:`~paretosurf.Solution` or a tuple ``(objectives, state)``.
        ``state`` is the slot's warm start, ``None`` on its first call.
    n_segments : int
        N >= 1; the run returns N + 1 points, slot 0 at ``w = 0`` and slot N at ``w = 1``.
    n_points : int, optional
        N + 1 >= 2, instead of the positional N (the size argument every method shares with
        :func:`~paretosurf.surf_simplex`): ``surf(solver, n_points=11)`` is
        ``surf(solver, 10)``. The size given by name as ``n_segments=10`` works, with a
        :class:`DeprecationWarning`, until 0.2.
    alpha : float or "auto", default "auto"
        Damping factor in (0, 1] of ``Phi_{t+1} = alpha * Phi~_t + (1 - alpha) * Phi_t``
        (the paper's protocol: ``alpha=0.3``), or ``"auto"``: a safeguarded choice per
        round, recorded as ``history[t].alpha``. It takes full steps (``alpha = 1``) while
        the change ``||Phi~_t - Phi_t||_inf`` contracts from round to round (by 10% or
        more), halves alpha when the change does not contract, and
        doubles it again when it does, not below the paper's 0.3: on a front where full
        steps oscillate it falls back to the damped iteration and its guarantee. Once the
        CDF has settled, a change that grows three rounds in a row, or exceeds the change two
        rounds before twice in a row (an overshoot that 0.3 does not damp), halves it further,
        down to 0.05. The change is measured on a grid of weights and at the round's weights
        (where weights crowd within 1e-8 of an end, a grid alone sees none). It needs fewer
        rounds where the weight-to-front map is smooth (see ``benchmarks/bench_auto_alpha.py``
        and, for ill-conditioned ridge paths, ``benchmarks/bench_auto_alpha_ridge.py``).
    iterations : int
        Most rounds (outer iterations; each solves every slot once): with
        ``early_stopping`` (default) the run ends before once its points meet ``target`` and
        its weights have settled. With ``resume``, the rounds already in the checkpoint
        count. ``0`` runs no solve.
    tol : float, optional
        Stop early once a full step (alpha = 1) would move the weights by less than ``tol``
        (max over slots): the weights are then near SURF's fixed point whatever ``alpha``.
        (The damped step, ``history[t].weight_change``, is about alpha times shorter.)
    init_states : sequence, optional
        N + 1 warm starts for the first round (default ``None`` for each slot). They are
        handed to the solver as given: a solver that updates its state in place changes the
        objects passed here (pass copies to keep them). One object given for several slots
        reaches the first of them itself and the others as copies.
    warm_start : {"auto", "slot", "nearest", "rescue", "best"}
        "auto" (default): "best" for a solver of a Tchebycheff-type scalarization that
        offers fresh starts in a known box (``probe_start``:
        :func:`~paretosurf.adapters.from_scipy` with bounds,
        :func:`~paretosurf.adapters.from_pymoo`), so that a slot left in a local basin of
        its scalarization (ZDT6, whose first objective has a basin per hump) continues from
        another slot's solution that scores lower at its weight; "slot" otherwise
        (:func:`auto_warm_start`). The choice is recorded in ``res.settings``; a resumed
        run keeps the rule it was saved with.
        "slot" (Algorithm 1's rule): each slot continues from its own previous solution.
        "nearest": each slot continues from the previous solution whose weight is closest to
        its new weight (a deep copy where two slots share one). It helps solvers that move
        slowly across weights, where a slot whose weight jumped is better started from a
        neighbour that already solved near its new weight; it hurts where a slot's own
        history matters more than its weight (see the README's measurements). Use it only if
        solver states can be deep-copied and shared (not, e.g., a path the solver overwrites).
        "rescue": each slot continues from its own previous solution, unless another slot's
        point dominates that solution's point; it then continues from the dominating solution
        whose weight is closest to its new weight. A dominated point is the optimum of no
        weighted sum, so its solution is a poor start for any weight: this hands a slot stuck
        in a poor local optimum (as noisy deep-RL solvers leave now and then) a neighbour's
        better solution, at no extra solve. With solvers that converge it is "slot". States
        are shared as with "nearest".
        "best": each slot continues from the previous solution whose point scores best at its
        new weight under the solver's declared scalarization (weighted sums when it declares
        none; :func:`paretosurf.methods.best_keys`). Where the front breaks into pieces
        (``res.pieces``), SURF then also lays its weights out by pieces: the N + 1 points
        spread by arc length within the pieces, each piece's ends covered, the gaps between
        pieces counting as no length (:mod:`paretosurf.curves`); a slot moved onto another
        piece starts from a solution on that piece. With the other rules the pieces are
        found and reported, but the weights follow the one-piece rule: a slot that keeps its
        own solution cannot follow its weight across a gap, and a layout by pieces would pile
        slots onto the pieces' ends. States are shared as with "nearest".
    **options
        The loop options below, shared by every method's entry function. ``normalize`` sets
        the coordinates in which the points are spaced evenly; with ``weight_bounds``,
        ``cdf`` is a function of the position ``(w - lo) / (hi - lo)``.
    <loop options>

    Returns
    -------
    Result
        ``success`` and ``message`` say whether the points are what was asked for; each
        problem found (dominated or collapsed points, a weakly Pareto-optimal endpoint, a front
        that weighted sums cannot cross, noisy estimates, constant or badly scaled objectives)
        is also raised as a :class:`~paretosurf.ParetoWarning` naming the remedy.

    Raises
    ------
    ValueError, TypeError
        On invalid arguments, naming the argument and the allowed values.
    FileExistsError
        If ``checkpoint`` holds another run and neither ``resume`` nor ``overwrite`` is given.
    paretosurf.solvers.InnerSolverError
        If the solver raises or returns non-finite objectives (names the slot and weight).

    Examples
    --------
    Points on the front ``((1 - x)^2, x^2)`` when the solver's own weighting is lopsided:

    >>> import numpy as np
    >>> import paretosurf as ps
    >>> def solver(w, state):                       # exact minimizer of a lopsided LS problem
    ...     x = 3 * w / (1 + 2 * w)
    ...     return ps.Solution([(1 - x) ** 2, x ** 2], state=x)
    >>> res = ps.surf(solver, 10, iterations=30)
    >>> res.points.shape, float(res.weights[0]), float(res.weights[-1])
    ((11, 2), 0.0, 1.0)
    >>> bool(ps.metrics.cv(res.points) < 0.01 < res.history[0].cv)
    True

    ``n_points=11`` is the same run as the positional ``10``:

    >>> ps.surf(solver, n_points=11, iterations=30).weights.tolist() == res.weights.tolist()
    True
    """
    n = segments_from(n_segments, n_points, where="surf")
    check_options(surf, options)
    chosen = warm_start == "auto"
    if chosen:
        warm_start = auto_warm_start(solver)
    method = SurfMethod(
        n,
        alpha=alpha,
        warm_start=warm_start,
        scalarization=solver_scalarization(solver),
    )
    method.warm_start_chosen = chosen
    total = check_non_negative_int(iterations, name="iterations")
    return run(method, solver, iterations=total, init_states=init_states, tol=tol, **options)
