"""Honest results: checks that a run's points are what was asked for, with the remedy named.

:func:`diagnose` looks at a run's final weights and points and returns one
:class:`~paretosurf.findings.Finding` per problem it sees; the driver turns them into the
result's ``success`` and ``message`` and into :class:`~paretosurf.findings.ParetoWarning`
warnings. It is an ordered list of checks
(:data:`OBJECTIVE_CHECKS`, then :data:`CURVE_CHECKS` or :data:`SURFACE_CHECKS`), each a
function of one :class:`~paretosurf.findings._evidence.Evidence`, which computes what several
checks share once; a check marked ``final`` that finds something ends the diagnosis. The
checks, in the coordinates the run measured distances in (see :mod:`paretosurf.loop`) and
with tolerances relative to the front's extent, one module per family:

- ``constant``: an objective does not vary over the points;
- ``scale``: with ``normalize="none"``, the objectives' ranges differ by more than 1e3;
- ``collapsed``: fewer distinct points than slots, or weights closer than a tolerance;
- ``jump``: consecutive points far apart at nearly the same weight (or, with the run's
  history, a slot whose point flips back and forth across a gap as its weight moves a little),
  a stretch of the front (non-convex or disconnected) that weighted sums cannot reach;
- ``endpoint``: a point at ``w = 0`` or ``w = 1`` only weakly Pareto-optimal (another point is
  as good in one objective and better in the other);
- ``dominated``: interior points dominated by others (moocore's non-dominated filter);
- ``noisy``: objectives out of the order linear scalarization guarantees (objective 1
  non-increasing and objective 2 non-decreasing in ``w``);
- ``unconverged``: a gap that looks like a jump next to a point another point beats at its
  own weight (the solver has not converged there; unless that point is one another weight
  reaches optimally: a local minimum of a non-convex front, which is a jump);
- ``reversed``: nearly every pair in the reverse of that order (a maximizing solver, or the
  weight on the wrong objective), or with both objectives falling (or both rising) with
  ``w``: one objective's sign flipped (a reward returned as is beside a loss);
- ``precision``: weights closer than a tolerance whose points are still well apart
  (objectives of very different scales); it only advises;
- ``stuck``: the solver returns one point whatever the weight: every slot on one point, most
  slots on one point in the middle of the front that none of them ever left (with the
  history), or every point unchanged over the rounds while the weights moved;
- ``no_minimizer``: with the history, an end slot (``w = 0``, ``w = 1``, a corner of the
  simplex) whose own objective kept improving round after round while another kept worsening,
  by steps that do not shrink as a converging solve's do (the scalarized problem at the end
  has no minimizer: logistic loss on separable data at ``w = 1``).

The remedies fit the run: a Tchebycheff scalarization is named only to a run that minimizes
weighted sums (``scalarization``, or ``weighted_sum``), SURF only to a method whose weights do
not follow the front (``aims_even=False``). The solver's own findings (NaN inside solves, local
minima) are in :func:`~paretosurf.findings.solver_findings`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from numpy.typing import ArrayLike

from paretosurf.findings._collapse import check_coincident, check_collapsed, check_precision
from paretosurf.findings._common import FloatArray, _Round
from paretosurf.findings._degenerate import check_degenerate
from paretosurf.findings._dominated import check_dominated
from paretosurf.findings._ends import check_corners, check_endpoints, check_no_minimizer
from paretosurf.findings._evidence import CurveEvidence, Evidence, SurfaceEvidence
from paretosurf.findings._finding import Finding
from paretosurf.findings._jumps import check_jumps, check_unconverged
from paretosurf.findings._local_minima import check_local_minima
from paretosurf.findings._order import check_flipped, check_noisy, check_reversed
from paretosurf.findings._ranges import check_constant, check_scale
from paretosurf.findings._stuck import check_one_point, check_stuck

E = TypeVar("E", bound=Evidence, contravariant=True)
EV = TypeVar("EV", bound=Evidence)


@dataclass(frozen=True)
class Check(Generic[E]):
    """One check of :func:`diagnose`: ``find(evidence)``, its findings; ``final``: whether a
    finding of it ends the diagnosis (the later checks would misread what it found: a solver
    stuck on one point leaves no front to judge, reversed objectives no order)."""

    find: Callable[[E], list[Finding]]
    final: bool = False


def run_checks(evidence: EV, *checks: Iterable[Check[EV]]) -> list[Finding]:
    """The findings of the ``checks`` over ``evidence``, in their order, up to the first
    ``final`` check that finds something."""
    findings: list[Finding] = []
    for check in itertools.chain(*checks):
        found = check.find(evidence)
        findings += found
        if found and check.final:
            break
    return findings


#: The checks of the objectives, first whatever the front's dimension: a solver that returns
#: one point, or an objective that does not vary, leaves no front to judge.
OBJECTIVE_CHECKS: tuple[Check[Evidence], ...] = (
    Check(check_one_point, final=True),
    Check(check_constant, final=True),
    Check(check_scale),
)
#: The checks of a curve (two objectives at scalar weights), in the order of their findings.
CURVE_CHECKS: tuple[Check[CurveEvidence], ...] = (
    Check(check_stuck, final=True),
    Check(check_reversed, final=True),
    Check(check_flipped, final=True),
    Check(check_collapsed),
    Check(check_precision),
    Check(check_endpoints),
    Check(check_unconverged),
    Check(check_jumps),
    Check(check_no_minimizer),
    Check(check_local_minima),
    Check(check_dominated),
    Check(check_noisy),
)
#: The checks of a surface (weight vectors, M >= 3 objectives), in the order of their
#: findings: ``degenerate`` first, the cause of what follows (``collapsed``, ``uneven``).
SURFACE_CHECKS: tuple[Check[SurfaceEvidence], ...] = (
    Check(check_stuck, final=True),
    Check(check_degenerate),
    Check(check_coincident),
    Check(check_corners),
    Check(check_no_minimizer),
    Check(check_local_minima),
    Check(check_dominated),
)


def diagnose(
    weights: FloatArray,
    points: FloatArray,
    coords: FloatArray,
    *,
    normalize: str,
    moving_average: float | None = None,
    ordered: bool = True,
    history: Sequence[_Round] | None = None,
    weighted_sum: bool = True,
    aims_even: bool = True,
    scalarization: str | None = None,
    ideal: ArrayLike | None = None,
    scales: ArrayLike | None = None,
) -> list[Finding]:
    """The problems of a run's final points.

    Parameters
    ----------
    weights : ndarray, shape (P,) or (P, M)
        The points' weights: increasing scalars (two objectives), or weight vectors on the
        simplex (a surface of M >= 3 objectives, see :func:`diagnose_surface`).
    points : ndarray, shape (P, M)
        Their objectives (minimized).
    coords : ndarray, shape (P, K)
        The points in the coordinates distances were measured in.
    normalize : str
        The run's ``normalize`` option (``"none"`` enables the scale check).
    moving_average : float, optional
        The run's moving-average rate (changes the remedy of the noise check).
    ordered : bool
        Whether the points come from linear scalarization at their weights, so that their
        objectives must be ordered (False for interpolated points such as Soup's).
    history : sequence of IterationRecord, optional
        The run's rounds up to the diagnosed one (``res.history``). With it, a slot whose point
        flips back and forth across a gap from round to round, while its weight moves little,
        shows a jump that a single round does not (the weight straddles it).
    weighted_sum : bool
        Whether the solver minimizes the weighted sum ``w f1 + (1 - w) f2`` (False for a
        Tchebycheff or other scalarization, whose points other points may beat in that sum
        at their weights though they are optimal). Only then is a point beaten at its own
        weight next to a jump a solve that stopped short (``unconverged``), and a jump a
        stretch that another scalarization may reach.
    aims_even : bool
        Whether the method places its weights by the front's arc length (SURF); points
        several weights share at a kink of the front are then no collapse a method with
        fixed weights (Uniform-w) cannot avoid, and the remedy differs.
    scalarization : str, optional
        The solver's scalarization kind (``"linear"``, ``"tchebycheff"``,
        ``"modified_tchebycheff"``, ``"asf"``); when given it decides ``weighted_sum``
        (``"linear"``), and the remedies name no scalarization the solver already uses.
        With it (or with ``weighted_sum``, for weighted sums) and the ``history``, points
        that other points beat at their own weights, round after round, while they stay put
        are solves stopped in local minima (``local_minima``, see
        :func:`~paretosurf.findings.local_minimum_slots`), not noise or dominated points to
        average away.
    ideal : array_like, optional
        The solver's ideal point, for the scalarizations that use one (else estimated from
        the points, as the adapters estimate it).

    Returns
    -------
    list of Finding

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.findings import diagnose
    >>> w = np.linspace(0, 1, 5)
    >>> good = np.c_[1 - w, w ** 2]
    >>> diagnose(w, good, good, normalize="none")
    []
    >>> bad = good.copy(); bad[2] = bad[1]                 # two slots on one point
    >>> [f.code for f in diagnose(w, bad, bad, normalize="none")]
    ['collapsed']
    """
    if len(points) < 2 or points.ndim != 2 or points.shape[1] == 0:
        return []
    if scalarization is not None:
        weighted_sum = scalarization == "linear"
    kind = SurfaceEvidence if weights.ndim == 2 else CurveEvidence
    evidence = kind(
        weights=weights,
        points=points,
        coords=coords,
        normalize=normalize,
        moving_average=moving_average,
        ordered=ordered,
        history=history,
        weighted_sum=weighted_sum,
        aims_even=aims_even,
        scalarization=scalarization,
        ideal=ideal,
        scales=scales,
    )
    if isinstance(evidence, SurfaceEvidence):
        return run_checks(evidence, OBJECTIVE_CHECKS, SURFACE_CHECKS)
    return run_checks(evidence, OBJECTIVE_CHECKS, CURVE_CHECKS)


def diagnose_surface(
    weights: FloatArray,
    points: FloatArray,
    coords: FloatArray,
    *,
    moving_average: float | None = None,
    history: Sequence[_Round] | None = None,
    weighted_sum: bool = True,
    scalarization: str | None = None,
    aims_even: bool = True,
    ideal: ArrayLike | None = None,
    scales: ArrayLike | None = None,
) -> list[Finding]:
    """The problems of points spread over a surface (weight vectors, M >= 3 objectives):
    a solver stuck on one point, a front of lower dimension than M - 1 (``degenerate``:
    :func:`paretosurf.findings.degenerate_finding`), coincident points, corners that are
    only weakly Pareto-optimal or whose scalarized problem has no minimizer (with the
    ``history``),
    solves stopped in local minima (with the ``history``) and dominated points.
    ``weighted_sum``, ``scalarization``, ``aims_even`` and ``ideal`` are as for
    :func:`diagnose`.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.findings import diagnose_surface
    >>> w = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1/3, 1/3, 1/3]])
    >>> f = 1 - w                                   # a flat front
    >>> diagnose_surface(w, f, f)
    []
    >>> g = f.copy(); g[3] = g[0]                   # two weights, one point
    >>> [x.code for x in diagnose_surface(w, g, g)]
    ['collapsed']
    """
    if scalarization is not None:
        weighted_sum = scalarization == "linear"
    evidence = SurfaceEvidence(
        weights=weights,
        points=points,
        coords=coords,
        moving_average=moving_average,
        history=history,
        weighted_sum=weighted_sum,
        aims_even=aims_even,
        scalarization=scalarization,
        ideal=ideal,
        scales=scales,
    )
    return run_checks(evidence, SURFACE_CHECKS)
