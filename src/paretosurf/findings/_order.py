"""The order weighted sums guarantee: as ``w`` (the weight on objective 1) grows, objective 1
falls and objective 2 rises. Nearly every pair in the reverse order is a maximizing solver
(``reversed``), both objectives falling (or both rising) one objective's flipped sign (also
``reversed``), and some pairs out of order noise or unconverged solves (``noisy``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from paretosurf.findings._common import FloatArray
from paretosurf.findings._finding import Finding

if TYPE_CHECKING:
    from paretosurf.findings._evidence import CurveEvidence

#: Steps against the order weighted sums guarantee smaller than this fraction of an
#: objective's range are solver tolerance, not noise.
ORDER_TOL = 1e-6
#: Weights closer than this are too close for their points' order to mean anything.
SEPARATED_WEIGHTS = 1e-6
#: When at least this share of the neighbouring pairs is in the reverse order (objective 1
#: rising and objective 2 falling with w), the solver maximizes or swaps the weight.
REVERSED_SHARE = 0.75


def check_reversed(ev: CurveEvidence) -> list[Finding]:
    """``reversed``: at least :data:`REVERSED_SHARE` of the pairs at separated weights (and
    two) in the reverse order (a maximizing solver, or the weight on objective 2)."""
    p, reversed_order = ev.p, ev.reversed_order
    if not reversed_order >= max(2, REVERSED_SHARE * int(np.sum(ev.separated))):
        return []
    return [
        Finding(
            "reversed",
            f"objective 1 rises and objective 2 falls with w on {reversed_order} "
            f"of {p - 1} neighbouring pairs, the reverse of the order weighted sums of "
            "minimized objectives give: the solver looks like it maximizes (return costs, "
            "e.g. negated rewards) or puts w on objective 2 (it must minimize "
            "w * f1 + (1 - w) * f2)",
            remedy="return costs (minimized; negate rewards) and minimize w * f1 + (1 - w) * f2",
            summary="objectives in the reverse order: a maximizing solver?",
        ),
    ]


def check_flipped(ev: CurveEvidence) -> list[Finding]:
    """``reversed``: an objective whose sign looks flipped (:func:`_flipped_objective`)."""
    flipped = _flipped_objective(ev.points, ev.ranges, ev.separated) if ev.ordered else None
    return [] if flipped is None else [_flipped_finding(ev.weights, flipped)]


def check_noisy(ev: CurveEvidence) -> list[Finding]:
    """``noisy``: pairs out of order where the points have not collapsed, other than the pairs
    beside points in local minima (out of order for that reason)."""
    wrong = ev.wrong_order
    if ev.local and wrong:
        pairs_apart = ev.separated.copy()
        for i in ev.local:
            pairs_apart[max(i - 1, 0) : i + 1] = False
        wrong, _ = _out_of_order(ev.points, ev.ranges, pairs_apart)
    if not wrong or ev.collapsed:
        return []
    p, moving_average = ev.p, ev.moving_average
    remedy = (
        f"average longer (a moving_average rate below {moving_average:g}), "
        "estimate the objectives from more samples per call, or use more "
        "steps per call"
        if moving_average is not None
        else "average them across rounds with moving_average=0.2, or use more steps per call"
    )
    return [
        Finding(
            "noisy",
            f"objective estimates look noisy or unconverged: {wrong} of {p - 1} "
            "neighbouring pairs are out of the order weighted sums guarantee (objective 1 "
            f"falling and objective 2 rising with w); {remedy}",
            remedy=(
                "a lower {moving_average}, more samples or steps per call"
                if moving_average is not None
                else "{moving_average}, or more steps per call"
            ),
            options={"moving_average": 0.2 if moving_average is None else moving_average / 2},
            summary=f"{wrong} of {p - 1} neighbouring pairs out of order",
        )
    ]


def _out_of_order(
    points: FloatArray, ranges: FloatArray, separated: NDArray[np.bool_]
) -> tuple[int, int]:
    """Among neighbouring pairs at ``separated`` weights: how many have objective 1 rising or
    objective 2 falling with the weight, and how many both (the reverse order)."""
    rise = np.diff(points[:, 0]) > ORDER_TOL * ranges[0]
    fall = np.diff(points[:, 1]) < -ORDER_TOL * ranges[1]
    return int(np.sum((rise | fall) & separated)), int(np.sum(rise & fall & separated))


@dataclass(frozen=True)
class _Flipped:
    """An objective returned with its sign flipped: ``objective`` (0 or 1) moves with ``w``
    the way the other one does, on ``pairs`` of ``compared`` neighbouring pairs."""

    objective: int
    pairs: int
    compared: int


def _flipped_objective(
    points: FloatArray, ranges: FloatArray, separated: NDArray[np.bool_]
) -> _Flipped | None:
    """The objective whose sign looks flipped, or ``None``.

    Weighted sums of two minimized objectives trade one against the other: as ``w`` (the
    weight on objective 1) grows, objective 1 falls and objective 2 rises. When nearly every
    neighbouring pair (at least :data:`REVERSED_SHARE` of the pairs at separated weights, and
    two) has both objectives *falling*, objective 2 is returned with its sign flipped (a
    reward returned as is, or a loss negated): the solver minimizes its cost, and the run is
    handed the reward. Both *rising*: objective 1 is. A multimodal problem's points (a few
    above the front, the others on it) or noisy ones are out of order on some pairs, not on
    nearly all in one direction.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.linspace(0, 1, 6)
    >>> pts = np.c_[(1 - w) ** 2, -(w**2)]              # objective 2 returned negated
    >>> _flipped_objective(pts, np.ptp(pts, axis=0), np.ones(5, dtype=bool))
    _Flipped(objective=1, pairs=5, compared=5)
    >>> ok = np.c_[(1 - w) ** 2, w**2]
    >>> _flipped_objective(ok, np.ptp(ok, axis=0), np.ones(5, dtype=bool)) is None
    True
    """
    step = np.diff(points, axis=0)
    tol = ORDER_TOL * np.where(ranges > 0, ranges, 1.0)
    compared = int(np.sum(separated))
    falls = int(np.sum((step[:, 0] < -tol[0]) & (step[:, 1] < -tol[1]) & separated))
    rises = int(np.sum((step[:, 0] > tol[0]) & (step[:, 1] > tol[1]) & separated))
    need = max(2, REVERSED_SHARE * compared)
    if falls >= need:
        return _Flipped(1, falls, compared)
    if rises >= need:
        return _Flipped(0, rises, compared)
    return None


def _flipped_finding(weights: FloatArray, flipped: _Flipped) -> Finding:
    """The ``reversed`` finding of an objective whose sign looks flipped
    (:func:`_flipped_objective`)."""
    m = flipped.objective + 1
    other = 3 - m
    direction = "fall" if m == 2 else "rise"
    best = "w = 1" if m == 2 else "w = 0"
    return Finding(
        "reversed",
        f"objectives 1 and 2 both {direction} as w grows on {flipped.pairs} of "
        f"{flipped.compared} neighbouring pairs, so the point at {best} beats the others in "
        "both and there is no trade-off to spread points along; weighted sums of two "
        f"minimized objectives trade one against the other (objective {other} "
        f"{'falls' if other == 1 else 'rises'} as objective {m} "
        f"{'rises' if m == 2 else 'falls'}), so objective {m} looks returned with its sign "
        "flipped: a reward (to be maximized) returned as is, or a loss negated, while the "
        "solver minimizes its cost",
        remedy=f"negate objective {m} where the solver returns it (return its cost, the "
        "negated reward, so that both objectives are minimized)",
        summary=f"objective {m} reversed: its sign looks flipped",
    )
