"""The run's spacing: the target it must reach, and the findings of a spacing that misses it
(``uneven``), swings from round to round instead of settling (``oscillating``), or was still
moving when the iterations ran out (``unsettled``).

:func:`uneven_finding` estimates how many more rounds would reach the target from the rate at
which the spacing contracted over the last rounds (:func:`contraction_rate`); a spacing that
swings promises nothing, and :func:`oscillating_finding` names it instead.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

from paretosurf.findings._finding import Finding

#: The spacing target when the user sets none: the largest gap over the smallest on a curve
#: (two objectives), the largest nearest-neighbour distance over the smallest on a surface.
DEFAULT_TARGETS = {"curve": 2.0, "surface": 3.0}


def spacing_target(target: float | None, *, surface: bool) -> float:
    """The spacing a result must reach: ``target``, or the default of its kind
    (:data:`DEFAULT_TARGETS`: a curve's gap ratio or a surface's nearest-neighbour max/min).

    Examples
    --------
    >>> spacing_target(None, surface=True), spacing_target(1.5, surface=False)
    (3.0, 1.5)
    """
    return DEFAULT_TARGETS["surface" if surface else "curve"] if target is None else target


def check_target(target: object) -> float | None:
    """``target`` as a number > 1, or ``None`` (the default of the front's kind).

    Examples
    --------
    >>> from paretosurf.findings import check_target
    >>> check_target(2), check_target(None)
    (2.0, None)
    """
    if target is None:
        return None
    if (
        isinstance(target, bool)
        or not isinstance(target, (int, float))
        or not (math.isfinite(target) and target > 1.0)
    ):
        raise ValueError(
            "target must be a number > 1 (the largest gap over the smallest "
            f"that counts as even; 1 is perfectly even) or None, got {target!r}"
        )
    return float(target)


#: The rounds over which :func:`uneven_finding` measures how fast the spacing improves.
CONTRACTION_ROUNDS = 5
#: The one-sided confidence with which the fitted contraction rate must be below 1 for a
#: result to say how many more rounds would reach the target ...
CONTRACTION_CONFIDENCE = 0.9
#: ... and the largest fitted rate that counts as progress (slower: no estimate).
CONTRACTION_MAX = 0.98
#: Student's t at :data:`CONTRACTION_CONFIDENCE` (one-sided) by degrees of freedom, for the
#: fits of three to eight rounds (``scipy.stats.t.ppf(0.9, df)``).
_STUDENT_T90 = {1: 3.0777, 2: 1.8856, 3: 1.6377, 4: 1.5332, 5: 1.4759, 6: 1.4398}


def contraction_rate(
    ratios: Sequence[float], rounds: int = CONTRACTION_ROUNDS + 1
) -> tuple[float, float] | None:
    """The factor by which the excess of the gap ratio over 1 shrinks per round, fitted over
    the last ``rounds`` ratios (at most 8; a least-squares line through the logarithms of the
    excesses), and the upper end of its one-sided :data:`CONTRACTION_CONFIDENCE` confidence
    interval (Student's t on the slope's standard error); ``None`` with fewer than three
    usable rounds.

    The excess of a contracting fixed-point iteration shrinks geometrically, so that its
    logarithm falls on a line; one that swings from round to round scatters about the line,
    which widens the interval past 1.

    Examples
    --------
    >>> from paretosurf.findings import contraction_rate
    >>> rate, upper = contraction_rate([9.0, 5.0, 3.0, 2.0])     # the excess halves
    >>> round(rate, 6), round(upper, 6)
    (0.5, 0.5)
    >>> rate, upper = contraction_rate([5.5, 1.6, 5.5, 1.6, 5.5, 3.0])   # swings
    >>> upper > 1.0
    True
    """
    excess = [r - 1.0 for r in ratios[-min(rounds, 8) :] if math.isfinite(r)]
    points = [(t, math.log(e)) for t, e in enumerate(excess) if e > 0]
    n = len(points)
    if n < 3:
        return None
    mt = sum(t for t, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((t - mt) ** 2 for t, _ in points)
    slope = sum((t - mt) * (y - my) for t, y in points) / sxx
    residual = sum((y - my - slope * (t - mt)) ** 2 for t, y in points)
    se = math.sqrt(residual / (n - 2) / sxx)
    upper = slope + _STUDENT_T90[n - 2] * se
    return math.exp(slope), math.exp(min(upper, 700.0))


def _rounds_to_target(ratios: Sequence[float], target: float) -> int | None:
    """How many more rounds the spacing's recent improvement suggests before the largest gap
    over the smallest reaches ``target``: its excess over 1 shrinks round after round by the
    factor :func:`contraction_rate` fits over the last rounds; ``None`` unless the ratio fell
    in all but at most one of those rounds and the factor is below :data:`CONTRACTION_MAX`
    and below 1 with :data:`CONTRACTION_CONFIDENCE` (a spacing that swings from round to
    round promises nothing)."""
    fitted = contraction_rate(ratios)
    last = ratios[-1] - 1.0 if ratios and math.isfinite(ratios[-1]) else math.nan
    if fitted is None or not last > target - 1.0:
        return None
    recent = list(ratios[-(CONTRACTION_ROUNDS + 1) :])
    if sum(1 for a, b in itertools.pairwise(recent) if not b < a) > 1:
        return None  # not a steady descent: a fit through a swing promises nothing
    rate, upper = fitted
    if not (0.0 < rate < CONTRACTION_MAX and upper < 1.0):
        return None
    # (less a hair: a fitted rate of 0.5 is 0.5 to rounding)
    return max(1, math.ceil(math.log((target - 1.0) / last) / math.log(rate) - 1e-9))


#: ``oscillating``: the last rounds judged (their gap ratios) ...
OSCILLATION_ROUNDS = 8
#: ... of whose round-to-round changes at least this share turn direction (a steady descent
#: turns none; a swing of period two, every round; noise, two in three on average) ...
OSCILLATION_TURNS = 0.5
#: ... spread over at least this factor (largest over smallest) ...
OSCILLATION_SPREAD = 1.5


def _swing(ratios: Sequence[float], target: float) -> tuple[int, int] | None:
    """``(turns, chances)`` of the last :data:`OSCILLATION_ROUNDS` ratios when they swing
    (see :func:`oscillating_finding`), else ``None``."""
    last = list(ratios[-OSCILLATION_ROUNDS:])
    if len(last) < OSCILLATION_ROUNDS or not all(math.isfinite(r) and r > 0 for r in last):
        return None
    if max(last) <= target or max(last) < OSCILLATION_SPREAD * min(last):
        return None  # (swings within the target cost nothing)
    steps = [math.log(b / a) for a, b in itertools.pairwise(last)]
    turns = sum(1 for a, b in itertools.pairwise(steps) if a * b < 0)
    if turns < OSCILLATION_TURNS * (len(steps) - 1):
        return None
    fitted = contraction_rate(last, OSCILLATION_ROUNDS)
    if fitted is not None and fitted[1] < 1.0:
        return None  # it contracts all the same
    return turns, len(steps) - 1


def oscillating_finding(
    ratios: Sequence[float],
    ratio: float,
    target: float,
    *,
    surface: bool,
    aims_even: bool,
    report: str | None = None,
    moving_average: float | None = None,
) -> Finding | None:
    """The ``oscillating`` finding of a run whose spacing swings from round to round instead
    of settling, or ``None``.

    Over the last :data:`OSCILLATION_ROUNDS` rounds the gap ratio (``ratios``: every
    round's, oldest first) turns direction on at least :data:`OSCILLATION_TURNS` of the
    rounds, spreads over a factor :data:`OSCILLATION_SPREAD` or more, rises above ``target``
    in at least one of them, and shows no contraction that :func:`contraction_rate` tells
    with confidence. The weights then chase points that do not follow them smoothly (a K-step
    solver whose point at a weight depends on where it starts, a non-smooth objective,
    noise): more rounds do not settle them, and no count of further rounds is promised.

    Parameters
    ----------
    ratios : sequence of float
        The gap ratio of every round run, oldest first.
    ratio, target : float
        The reported round's gap ratio and the target.
    surface : bool
        Whether the ratios are of a surface (nearest-neighbour max/min).
    aims_even : bool
        Whether the method aims at even spacing: then a reported round above ``target``
        fails the result; otherwise (or when the reported round is even) it advises.
    report, moving_average
        The run's options: the remedy names ``report="most-even"`` unless the run reports
        so already, and ``moving_average=0.2`` (half the run's rate when it averages).

    Examples
    --------
    >>> from paretosurf.findings import oscillating_finding
    >>> swing = [30.0, 9.0, 1.6, 5.5, 1.7, 5.1, 1.6, 4.9, 1.8, 4.9]
    >>> f = oscillating_finding(swing, 4.9, 2.0, surface=False, aims_even=True)
    >>> f.fatal, f.summary
    (True, 'gap ratio swings 1.6-5.5, not settling; 4.9 > target 2')
    >>> for part in f.remedy_text().split(" or "):
    ...     print(part)
    report the most even round (report='most-even')
    average the points across rounds (moving_average=0.2)
    >>> oscillating_finding([9.0, 5.0, 3.0, 2.0, 1.5, 1.25, 1.12, 1.06], 1.06, 2.0,
    ...                     surface=False, aims_even=True) is None
    True
    """
    swing = _swing(ratios, target)
    if swing is None:
        return None
    turns, chances = swing
    last = list(ratios[-OSCILLATION_ROUNDS:])
    lo, hi = min(last), max(last)
    what = "nearest-neighbour max/min" if surface else "gap ratio"
    short = "nn max/min" if surface else "gap ratio"
    fatal = aims_even and math.isfinite(ratio) and ratio > target
    seen = ", ".join(f"{r:.3g}" for r in last)
    detail = (
        f"the {what} swings from round to round instead of settling: over the last "
        f"{len(last)} rounds it went {seen} (turning {turns} of {chances} times, with no "
        "contraction the history shows with confidence); the weights chase points that do "
        "not follow them smoothly (a solver of a few steps whose point at a weight depends "
        "on where it starts, a non-smooth objective, or noise), so more rounds will not "
        "settle them"
    )
    options: dict[str, Any] = {}
    parts = []
    if report != "most-even":
        parts.append("report the most even round ({report})")
        options["report"] = "most-even"
    parts.append("average the points across rounds ({moving_average})")
    options["moving_average"] = 0.2 if moving_average is None else moving_average / 2
    remedy = " or ".join(parts)
    if fatal:
        return Finding(
            "oscillating",
            f"{detail}; the reported round's {what} {ratio:.3g} is above the target {target:g}",
            remedy=remedy,
            options=options,
            summary=(
                f"{short} swings {lo:.2g}-{hi:.2g}, not settling; {ratio:.3g} > target {target:g}"
            ),
        )
    return Finding(
        "oscillating",
        f"{detail}; the reported round's {what} {ratio:.3g} is within the target "
        f"{target:g}, but the rounds around it are not",
        fatal=False,
        remedy=remedy,
        options=options,
        summary=f"{short} swings {lo:.2g}-{hi:.2g} from round to round",
    )


def uneven_finding(
    ratio: float,
    target: float,
    *,
    surface: bool,
    aims_even: bool,
    out_of_rounds: bool,
    ratios: Sequence[float] = (),
    rounds: int = 0,
) -> Finding | None:
    """The ``uneven`` finding of a result whose largest gap over the smallest (``ratio``: of
    consecutive points on a curve, of nearest neighbours on a surface) is above ``target``,
    or ``None``.

    Parameters
    ----------
    ratio, target : float
        The measured ratio and the target.
    surface : bool
        Whether the points spread over a surface (nearest-neighbour distances).
    aims_even : bool
        Whether the method aims at even spacing (SURF): then the result fails; a baseline
        is only advised to use SURF.
    out_of_rounds : bool
        Whether the run stopped because its iterations ran out.
    ratios : sequence of float
        The ratio of every round so far, oldest first (the estimate of the rounds still
        needed reads the last few).
    rounds : int
        Rounds run.

    Examples
    --------
    >>> from paretosurf.findings import uneven_finding
    >>> f = uneven_finding(3.0, 2.0, surface=False, aims_even=True, out_of_rounds=True,
    ...                    ratios=[9.0, 5.0, 3.0], rounds=3)
    >>> f.fatal, f.summary
    (True, 'gap ratio 3 > target 2 after 3 rounds; ~1 more')
    """
    if not math.isfinite(ratio) or ratio <= target:
        return None
    what = "nearest-neighbour max/min" if surface else "gap ratio"
    detail = (
        f"the largest {'nearest-neighbour distance' if surface else 'gap'} is "
        f"{ratio:.3g} times the smallest, above the target {target:g}"
    )
    if not aims_even:
        return Finding(
            "uneven",
            f"{detail}: the method does not aim at even spacing",
            fatal=False,
            summary=f"{what} {ratio:.3g} > {target:g}",
            remedy="SURF spaces the points evenly (ps.surf, or ps.surf_simplex for three or "
            "more objectives)",
        )
    more = _rounds_to_target(ratios, target) if out_of_rounds else None
    if out_of_rounds:
        if more is not None:
            detail += (
                f"; the iterations ran out after {rounds} rounds, and at the rate the "
                "spacing improved over the last rounds (a steady contraction fitted to them) "
                f"about {more} more would reach it"
            )
            remedy = (
                f"run about {more} more round{'s' if more != 1 else ''} "
                "({resume} with more {iterations})"
            )
            short = f"; ~{more} more"
        elif len(ratios) < 3:
            detail += (
                f"; the iterations ran out after {rounds} round"
                f"{'s' if rounds != 1 else ''}, too few to tell how fast the spacing "
                "improves"
            )
            remedy = "run more rounds ({resume} with more {iterations})"
            short = ""
        else:
            detail += (
                f"; the iterations ran out after {rounds} rounds, and the spacing did "
                "not improve steadily over the last rounds (see the other findings for "
                "a cause)"
            )
            remedy = "run more rounds ({resume} with more {iterations}), or see the other findings"
            short = ""
        return Finding(
            "uneven",
            detail,
            remedy=remedy,
            options={"resume": True, "iterations": None},
            # (summaries stay within 60 characters: "nn" for nearest-neighbour)
            summary=(
                f"{'nn max/min' if surface else what} {ratio:.3g} > target {target:g} "
                f"after {rounds} rounds{short}"
            ),
        )
    return Finding(
        "uneven",
        detail + "; the run stopped before reaching it",
        summary=f"{what} {ratio:.3g} > target {target:g}",
        remedy="see the other findings for the cause, or run more rounds "
        "({resume} with more {iterations})",
        options={"resume": True, "iterations": None},
    )


#: A run stopped by its iterations whose next full step would still move a weight by more
#: than this share of the even spacing 1 / N is reported as not settled.
UNSETTLED_SHARE = 0.25
#: ... or would move a weight by this share of its own spacing or more (the distance to its
#: nearest other weight; :data:`paretosurf.methods.SETTLED_SPACING`, SURF's early stop).
UNSETTLED_OWN_SHARE = 0.02


def unsettled_finding(
    change: float,
    n_points: int,
    settle_options: Mapping[str, Any] | None = None,
    *,
    share: float = math.nan,
) -> list[Finding]:
    """The advice that the weights were still moving when the iterations ran out;
    ``settle_options``: settings of the method that would settle them sooner (SURF with a
    fixed damping: ``{"alpha": "auto"}``), named in the remedy.

    The weights are still moving when a full step (``change``, the largest move of a weight)
    would move one by more than :data:`UNSETTLED_SHARE` of the even spacing ``1 / (P - 1)``,
    or when it would move one by :data:`UNSETTLED_OWN_SHARE` or more of its own spacing
    (``share``: the method's :meth:`~paretosurf.loop.Method.settle_share`, the measure of
    SURF's early stop), which a step small against the even spacing may be where the weights
    crowd at an end (objectives of very different scales, an ill-conditioned problem).

    Examples
    --------
    >>> from paretosurf.findings import unsettled_finding
    >>> unsettled_finding(1e-6, 21), unsettled_finding(1e-6, 21, share=0.01)
    ([], [])
    >>> [f.summary for f in unsettled_finding(1e-6, 21, share=0.3)]
    ['the weights were still moving (by 30% of their own spacing)']
    >>> [f.summary for f in unsettled_finding(0.02, 21)]
    ['the weights were still moving (40% of the even spacing)']
    """
    spacing = 1.0 / max(n_points - 1, 1)
    if not math.isfinite(change) or change <= 0.0:
        return []
    moving = change > UNSETTLED_SHARE * spacing
    crowded = math.isfinite(share) and share >= UNSETTLED_OWN_SHARE
    if not (moving or crowded):
        return []
    remedy = "run more rounds ({resume} with more {iterations})"
    options: dict[str, Any] = {"resume": True, "iterations": None}
    for name, value in (settle_options or {}).items():
        remedy += f" or {{{name}}}"
        options[name] = value
    if moving:
        how = (
            f"a full step would move one by {change:.3g} ({change / spacing:.0%} of the even "
            "spacing)"
        )
        summary = f"the weights were still moving ({change / spacing:.0%} of the even spacing)"
    else:
        how = (
            f"a full step would move one by {share:.0%} of its distance to its nearest other "
            f"weight (by {change:.3g} at most: little against the even spacing {spacing:.3g}, "
            "where the weights crowd), above the "
            f"{UNSETTLED_OWN_SHARE:.0%} at which a run that meets its target stops early"
        )
        summary = f"the weights were still moving (by {share:.0%} of their own spacing)"
    return [
        Finding(
            "unsettled",
            f"the weights were still moving when the iterations ran out: {how}, so the points "
            "are not yet as even as they will be",
            fatal=False,
            remedy=remedy,
            options=options,
            summary=summary,
        )
    ]
