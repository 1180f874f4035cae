"""Inner solvers from plain objective functions, one ``scipy.optimize.minimize`` run per call.

:func:`from_scipy` turns ``objectives(x) -> (h1, h2)`` (or M >= 3 objectives, for
:func:`paretosurf.surf_simplex`) into a warm-started, budgeted inner solver
(:class:`ScipySolver`). Each ``solve(weight, state)`` minimizes the scalarization of the
objectives for that weight (:mod:`paretosurf.adapters.scalarization`) from the warm start
``state`` (the decision vector; ``x0`` on a slot's first call), with at most ``steps``
iterations of the chosen scipy method.

Linear scalarization is smooth and goes to ``minimize`` as it is. The Tchebycheff
scalarizations are a max, not smooth, so they are solved in epigraph form: minimize
``t + rho * sum_m c_m (h_m(x) - z_m)`` over ``(x, t)`` subject to ``c_m (h_m(x) - z_m) <= t``,
which needs a method that takes constraints. Methods per scalarization:

================== ========================================================================
scalarization      methods (default first)
================== ========================================================================
linear             L-BFGS-B (SLSQP when there are constraints), SLSQP, trust-constr,
                   BFGS, CG, Nelder-Mead, Powell
tchebycheff,       SLSQP, trust-constr
modified_...
================== ========================================================================

Constraints can only go to SLSQP and trust-constr, bounds to every method above but BFGS and
CG; other combinations are refused with a ``ValueError``. SLSQP is the default for the
Tchebycheff ones because trust-constr, an interior-point method, stops a barrier distance
inside the bounds that are active at the solution (about ``1e-3`` off on ZDT2 with scipy's
defaults; tighten ``options={"barrier_tol": ...}`` if you use it).

SLSQP's tolerance. scipy's SLSQP stops once the objective changes by less than ``ftol``
(default ``1e-6``) from one iteration to the next, an absolute amount: on objectives of small
scale (a portfolio's variance, ``1e-2``) a warm-started call stops almost where it started.
Two problems are therefore divided by a scale ``s`` at the start (minimizers unchanged), with
``ftol`` defaulting to ``SLSQP_FTOL`` (``1e-9``), relative to ``s``:

- the epigraph form of the Tchebycheff scalarizations and ASF (any method), with ``s`` its
  largest term ``|c_m (h_m - z_m)|``: the active term starts at 1 whatever the size of the
  coefficients;
- the linear scalarization under constraints of the user's (SLSQP), with ``s`` the largest
  term ``max(c_m, floor) * |h_m|`` (the floor, ``1e-4``, keeps ``s`` from vanishing at
  ``w = 0`` and ``w = 1`` when the weighted objective starts at 0). ``s`` measures the
  objectives' values, not their range: a large constant offset in an objective makes the
  tolerance looser (give ``options={"ftol": ...}``, relative to ``s``, or drop the offset).

L-BFGS-B's tolerance. L-BFGS-B stops once an iteration lowers the objective by less than
``ftol`` (default ``2.2e-9``) relative to ``max(|f|, 1)``: an absolute amount when the
weighted sum is below 1. At a lopsided weight (``w = 0.999`` on ZDT1) the lightly weighted
objective then moves the sum too little to register, and the solve stopped with
``success=True`` 4.5 away from the front. ``ftol`` defaults to scipy's value times the
smallest positive coefficient's share of the largest (``LBFGSB_FTOL``; unchanged at
``w = 0.5``), so each objective's progress counts alike.

Units of three or more objectives. With weight vectors (:func:`paretosurf.surf_simplex`) every
kind measures objectives whose scales differ by more than ``UNITS_RATIO`` in units of their
extents, estimated at construction (``scalarization.scales``; :func:`from_scipy`'s
``scalarization``): an objective in other units (times 100, or ``1e-3``) gives the same
scalarized problems, so the same points.

Other problems keep scipy's defaults: scaling the ideal point's corner solves as well changed
the ideal estimate enough that warm-started ``"asf"`` solves on pymoo's DTLZ1 stopped far from
the front. A ``ftol`` in ``options`` replaces the default.

The warm start is the decision vector only: a quasi-Newton method's curvature estimate is
rebuilt on every call, so ``steps=K`` calls make less progress together than one call of the
same total length.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import Bounds, LinearConstraint, NonlinearConstraint, minimize
from scipy.stats import qmc

from paretosurf._utils.validation import check_positive_int
from paretosurf.adapters.global_search import global_minimum
from paretosurf.adapters.scalarization import (
    IDEAL_MARGIN_ABS,
    IDEAL_MARGIN_REL,
    FollowsIdealPoint,
    IdealPoint,
    Scalarization,
    as_scalarization,
    check_weight,
)
from paretosurf.solvers import Solution

__all__ = [
    "CHORD_TOL",
    "END_AGREE_TOL",
    "END_STARTS",
    "EPIGRAPH_FTOL",
    "EPIGRAPH_METHODS",
    "GLOBAL_EVALUATIONS_PER_VARIABLE",
    "IDEAL_MARGIN_ABS",
    "IDEAL_MARGIN_REL",
    "LBFGSB_FTOL",
    "LEXICOGRAPHIC_TOL",
    "LINEAR_METHODS",
    "SLSQP_FTOL",
    "UNITS_RATIO",
    "ScipySolver",
    "from_scipy",
]

FloatArray = NDArray[np.float64]

#: Methods for linear scalarization: name -> (takes bounds, takes constraints, uses gradients).
LINEAR_METHODS: dict[str, tuple[bool, bool, bool]] = {
    "L-BFGS-B": (True, False, True),
    "SLSQP": (True, True, True),
    "trust-constr": (True, True, True),
    "BFGS": (False, False, True),
    "CG": (False, False, True),
    "Nelder-Mead": (True, False, False),
    "Powell": (True, False, False),
}
#: :meth:`ScipySolver.solve_end`: the other objectives are minimized with the end's own held
#: within this share of its scale (its value, or how far it moved from the starts).
LEXICOGRAPHIC_TOL = 1e-6
#: :meth:`ScipySolver.solve_end`: seeded starts drawn from the box besides ``x0`` (and the
#: run's state) ...
END_STARTS = 1
#: ... whose ends differ where an objective's values differ by more than this share of how far
#: the end solves moved it (from ``x0`` and between them): then the end's problem has several
#: basins and is searched globally, with about this many evaluations per variable (a
#: population of 50 for 25 generations per variable: ZDT4's ends, 10 variables, reached their
#: global basin in 9 of 10 seeded searches at 12,500).
END_AGREE_TOL = 1e-3
GLOBAL_EVALUATIONS_PER_VARIABLE = 1250
#: :meth:`ScipySolver.solve_end` also screens this many points spread over the box (once per
#: solver, :meth:`ScipySolver.screen_starts`) and solves the end again from the screened point
#: of least value where that value is below every local end's: starts on a flat spot (DTLZ4's
#: ``x^100`` near the box centre) all stop where they start, agree, and would otherwise decide
#: the end and, through it, the ideal point of every scalarized solve.
END_SCREEN = 512
#: Seed of the end solves' starts and global searches (the same problem, the same ends).
END_SEED = 20261206
#: The global search minimizes the end's own objective plus this weight times the others,
#: each over the spread of the end solves (so that it still ranks points by the others where
#: the end's own objective is flat, ZDT4's ``f1 = 0``; the local solves then polish the end).
END_PROXY_WEIGHT = 0.1
#: ``scalarization="auto"``: how close to the chord between the ends (as a share of the
#: ranges) the weighted sum's solution at the chord's own slope may come before the front
#: counts as non-convex. (A convex front has a point of that slope strictly below the chord;
#: at other slopes a convex front's weighted sum may stop at an end, ZDT1's at a quarter of
#: the way, so they tell nothing.)
CHORD_TOL = 1e-3
#: Units of three or more objectives (:meth:`ScipySolver._units`): the extreme points' ASF
#: solves are made again from a lower ideal point, at most this many times in all, where one
#: of them went below the ideal point by more than this share of the corner solves' range.
UNIT_PASSES = 3
UNIT_IDEAL_TOL = 1e-3
#: ... and the units are taken only where both estimates put the largest objective's scale
#: more than this factor above the smallest's (:meth:`ScipySolver._units`; DTLZ7's local
#: solves from the middle of the box put its scales 28 apart, its front's extents 4).
UNITS_RATIO = 50.0
#: The most SLSQP solves of an end's second stage, each from the last one's point.
LEXICOGRAPHIC_RESTARTS = 3
#: How far past its limit the held objective may end, as a share of the hold's width
#: (SLSQP keeps its constraints to about its own tolerance).
HOLD_SLACK = 0.5
#: Methods for the Tchebycheff scalarizations (epigraph form, with constraints).
EPIGRAPH_METHODS = ("SLSQP", "trust-constr")
# IDEAL_MARGIN_REL and IDEAL_MARGIN_ABS (defined in paretosurf.adapters.scalarization, kept
# here under their former home): the estimated ideal point is ``best - (IDEAL_MARGIN_REL *
# range + IDEAL_MARGIN_ABS * max(1, |best|))``, per objective, from the corner solves, and
# ``observe`` keeps it below every value found (paretosurf.adapters.scalarization.IdealPoint).
#: SLSQP's ``ftol`` unless ``options`` give one (scipy's default is an absolute 1e-6) for the
#: problems divided by their largest scalarized term at the start, so this is relative
#: (module docstring). Tight, so that warm-started calls on objectives of small scale still
#: move, and the tiny Tchebycheff coefficient near ``w = 0`` and ``w = 1`` still drives the
#: other objective to its best value.
SLSQP_FTOL = 1e-9
#: scipy's default ``ftol`` of L-BFGS-B, scaled per weight by :func:`_lbfgsb_ftol` (module
#: docstring) unless ``options`` give one.
LBFGSB_FTOL = 2.220446049250313e-09
#: The same tolerance under its earlier name (it applied to the epigraph form only).
EPIGRAPH_FTOL = SLSQP_FTOL

#: A full solve (``steps=None``) restarts the method from its own point at most this many
#: times after it reports a failure (SLSQP's line search, which stops where its quasi-Newton
#: model went wrong); a restart that finds nothing lower ends the solve as converged there.
SOLVE_RESTARTS = 2
#: A full solve that ends higher than its start (its first steps overshot into another
#: basin) is solved again within a box of this half-width (a share of the bounds' widths)
#: about the start, moved along at most this many times while the solves end on its side.
TRUST_RADIUS = 0.05
TRUST_MOVES = 5
#: ... where it ends higher than the start by more than this share of the start's value
#: (a constrained solve often ends a tolerance's width above a warm start that was already
#: optimal: the two-bar truss ran the small box in 426 of 686 solves at 0, 70 at 1e-3; the
#: leaps between ZDT6's humps end higher by far more).
TRUST_TRIGGER = 1e-3
#: After a full solve, variables within this share of their box's width of a bound are put
#: on it, where the scalarization is no higher there: finite differences stop a method a few
#: ulps to ``1e-9`` inside a bound where an objective's slope is unbounded (ZDT6's ``g``, a
#: fourth root, is 0.05 above its least at ``1e-9``).
BOUND_SNAP = 1e-6
#: An inner weight warm-started exactly at an end's state starts this share of the way
#: toward the other end(s) instead: an end minimizes one objective alone, so its state is a
#: stationary point of that objective, and where the other objective depends on the decision
#: only through the first there (ZDT6) a local solve cannot leave it.
END_NUDGE = 0.05
#: A full solve that ends where it started (within this share of the bounds' widths) may
#: have started at a stationary point that is not a minimum: the free variables are each
#: moved by :data:`STILL_STEP` of their widths, both ways, and the solve starts again from
#: the lowest of those points where one is lower than the start (ZDT6: a slot left at the
#: bottom of a hump of ``f1``, where ``f1``'s slope is zero, wants a larger ``f1`` at its new
#: weight; finite differences see no slope there). Two evaluations per free variable.
STILL_TOL = 1e-6
STILL_STEP = 0.01

_CACHE_SIZE = 4


def from_scipy(
    objectives: Callable[[FloatArray], ArrayLike],
    x0: ArrayLike,
    *,
    scalarization: str | Scalarization = "auto",
    method: str | None = None,
    steps: int | None = None,
    jac: Callable[[FloatArray], ArrayLike] | None = None,
    bounds: Any = None,
    constraints: Any = (),
    ideal: ArrayLike | None = None,
    rho: float | None = None,
    options: Mapping[str, Any] | None = None,
) -> ScipySolver:
    """An inner solver that minimizes a scalarization of ``objectives`` with scipy.

    Parameters
    ----------
    objectives : callable
        ``objectives(x) -> (h1, h2)``: the two objectives (minimized) at the decision vector
        ``x``, a float64 array of shape (n,). With M >= 3 objectives (``(h1, ..., hM)``) the
        solver takes weight vectors of shape (M,) on the simplex
        (:func:`paretosurf.surf_simplex`).
    x0 : array_like of shape (n,)
        Finite starting point of every slot's first call (the cold start); it must lie within
        ``bounds``, and ``objectives(x0)`` must return finite values, one per objective.
    scalarization : str or Scalarization
        ``"auto"``, ``"linear"``, ``"tchebycheff"``, ``"modified_tchebycheff"`` or ``"asf"``
        (:mod:`paretosurf.adapters.scalarization`). ``"auto"`` (the default): the weighted
        sum (``"linear"``) unless the front is non-convex between its ends, then
        ``"tchebycheff"`` (weighted sums reach only the ends of a concave front). It decides
        here, with two objectives and a finite box: the front's ends are found
        (:meth:`ScipySolver.solve_end`; the run then does not solve them again, and counts
        these calls) and the weighted sum is solved once at the chord's slope
        (:meth:`ScipySolver._choose_scalarization`); ``scalarization_note`` says what was
        found. That costs a few full solves when the solver is made (a global search too,
        where an end's problem has several basins). With three or more objectives and a
        finite box it is ``"linear"`` unless the surface is concave or flat between its
        extreme points, then ``"asf"`` (:meth:`ScipySolver._choose_many`: 2 M + 1 full
        solves); without a box, ``"auto"`` is ``"linear"``. A :class:`Scalarization`
        instance carries its own ``ideal``, ``rho`` and ``scales`` (then leave those keywords
        out) and is solved as given. ``"asf"``
        takes weight vectors and needs M >= 3 objectives (:func:`paretosurf.surf_simplex`);
        with two objectives it is refused: ``"modified_tchebycheff"`` solves the same
        problems for the scalar weight ``w`` that :func:`paretosurf.surf` gives.

        Units with three or more objectives (a kind named by a string, any kind): where the
        objectives' scales differ by more than ``UNITS_RATIO`` (50), the scalarization
        measures them in units of their extents (``scalarization.scales``), estimated at
        construction from the corner solves (each objective minimized alone from ``x0``,
        shared with the ideal point's estimate) and one ASF solve per objective towards the
        front's extreme points (:meth:`ScipySolver._units`). A weight vector ``w`` then
        weighs ``h_m / u_m``: the weighted sum ``sum_m w_m h_m / u_m``, the Tchebycheff terms
        ``c_m (h_m - z_m) / u_m``, ASF's rays ``z + t w * u``. These solves find the same
        decisions whatever the units of the objectives, so an objective multiplied by 100
        gets a unit 100 times larger and the run solves the same problems as without the
        factor (its points times 100 in that objective); in the raw units the weights of the
        simplex would all but ignore the small objectives (a run on DTLZ2 with ``f1`` times
        100 collapsed into one corner). Scales within the factor keep the raw units, which
        the layout of :func:`paretosurf.surf_simplex` copes with (the estimates are local
        solves, and can be off by a factor of tens). ``scalarization.scales`` is ``None``
        then.
    method : str, optional
        scipy method. Default: ``"L-BFGS-B"`` for linear scalarization (``"SLSQP"`` when
        ``constraints`` are given), ``"SLSQP"`` for the Tchebycheff ones (epigraph form). The
        allowed combinations are in the module docstring; others raise ``ValueError``.
    steps : int, optional
        Budget of one call: scipy's ``maxiter`` (an inexact K-step solver, warm-started).
        ``None`` runs each call to convergence (scipy's own ``maxiter``, or
        ``options["maxiter"]``).
    jac : callable, optional
        ``jac(x) -> (M, n)``: the Jacobian of the objectives, row ``m`` the gradient of
        objective ``m`` (e.g. ``np.stack([g1, g2])``). Any other shape is refused, at
        construction from ``jac(x0)`` and in every solve, the transposed ``(n, M)`` one
        included; with ``M == n`` a transposed Jacobian has the right shape and cannot be
        detected. ``None``: scipy's finite differences.
    bounds : sequence of (low, high) pairs or scipy.optimize.Bounds, optional
        As ``scipy.optimize.minimize`` takes them (``None`` for an open side).
    constraints : dict, LinearConstraint, NonlinearConstraint or a sequence of them
        As ``scipy.optimize.minimize`` takes them (SLSQP and trust-constr only); functions of
        ``x``, also in the epigraph form.
    ideal : array_like of shape (M,), optional
        Ideal point ``z`` of the Tchebycheff scalarizations, strictly below every attainable
        objective value, with one entry per objective (checked against ``objectives(x0)``
        at construction); it stays where it is given, and :meth:`ScipySolver.observe`
        records the objectives whose values go below it (``ideal_beaten``). ``None``:
        estimated at construction from full solves from ``x0`` with ``method``, one per
        objective alone, minus a margin of ``IDEAL_MARGIN_REL`` (``1e-6``) times the range of
        the solves' values plus ``IDEAL_MARGIN_ABS`` (``1e-8``) times ``max(1, |minimum|)``.
        These are local solves, so the estimate may lie above part of the front: the run
        calls ``observe(points)`` after every round, which moves the estimate below every
        value found (never up; :class:`~paretosurf.adapters.scalarization.IdealPoint`).
    rho : float, optional
        Relative augmentation of the Tchebycheff scalarizations (default ``1e-4``).
    options : mapping, optional
        Further options of the scipy method (``ftol``, ``gtol``...); not ``maxiter`` together
        with ``steps``. They replace the adapter's defaults. With SLSQP, for the epigraph
        form and for linear scalarization under ``constraints``, ``ftol`` defaults to
        ``SLSQP_FTOL`` (``1e-9``) and is relative: the problem SLSQP sees is divided by its
        largest scalarized term at the start (module docstring). With L-BFGS-B, ``ftol``
        defaults to scipy's ``2.2e-9`` times the smallest positive coefficient over the
        largest, so that a lightly weighted objective still counts.

    Returns
    -------
    ScipySolver
        ``solve(weight, state) -> Solution``: the state is the decision vector ``x`` (a
        float64 array; the epigraph variable ``t`` is recomputed from it); ``info`` holds
        ``steps`` (iterations used, scipy's ``nit``), ``nfev``, ``success``, ``message``,
        ``value`` (the scalarized value at ``x``), ``objective_calls`` (calls of
        ``objectives``), ``non_finite`` (how many of those calls returned a NaN or an
        infinite value: the solve stepped out of the objectives' domain, which the run
        reports as a ``non_finite`` finding) and, for the scalarizations with an ideal point,
        ``ideal`` (the one solved with, a list of floats). It pickles when the functions
        given do, so process executors can run it. ``ideal`` is the ideal point in use and
        ``ideal_given`` whether the user gave it; ``observe(points)`` updates it after a
        round (above); ``evaluate(state)`` gives the objectives at a state (for the Soup
        baseline); ``probe_start(rng)`` draws a start from the box of ``bounds`` for the
        run's basin probes (the ``probes`` option; ``None`` without a finite box).

    Raises
    ------
    ValueError, TypeError
        On invalid arguments (naming the argument), on a method that cannot take the
        scalarization, bounds or constraints, when ``objectives(x0)`` does not return two
        (or more) finite values, when ``jac(x0)`` is not of shape (M, n), when ``ideal``
        (given here or in a :class:`Scalarization`) does not have one entry per value
        ``objectives(x0)`` returns, and for ``"asf"`` with two objectives.

    Examples
    --------
    Two quadratics ``(x - 1)^2`` and ``(x + 1)^2``; the linear-scalarization minimizer is
    ``x = 2 w - 1``:

    >>> import numpy as np
    >>> from paretosurf.adapters import from_scipy
    >>> def objectives(x):
    ...     return np.array([(x[0] - 1) ** 2, (x[0] + 1) ** 2])
    >>> solver = from_scipy(objectives, x0=[0.0])
    >>> sol = solver.solve(0.75, None)
    >>> round(float(sol.state[0]), 6), sol.info["success"]
    (0.5, True)

    The Tchebycheff scalarization estimates the ideal point ``(0, 0)`` from the endpoints
    (minus ``1e-6`` times the range ``4`` of the endpoint values, plus ``1e-8``):

    >>> tch = from_scipy(objectives, x0=[0.0], scalarization="tchebycheff")
    >>> tch.ideal.round(8).tolist()
    [-4.01e-06, -4.01e-06]
    """
    return ScipySolver(
        objectives,
        x0,
        scalarization=scalarization,
        method=method,
        steps=steps,
        jac=jac,
        bounds=bounds,
        constraints=constraints,
        ideal=ideal,
        rho=rho,
        options=options,
    )


class ScipySolver(FollowsIdealPoint):
    """A scalarized inner solver over ``scipy.optimize.minimize``; built by
    :func:`from_scipy` (and :func:`~paretosurf.adapters.from_pymoo`), whose docstring
    describes the arguments.

    Attributes
    ----------
    scalarization : Scalarization
        The scalarization solved, with the ideal point in use (estimated or given) and, with
        three or more objectives of scales more than ``UNITS_RATIO`` apart, their units
        (``scales``: the extents :meth:`_units` estimated).
    ideal : ndarray of shape (M,) or None
        The ideal point of the Tchebycheff scalarizations and ASF (``None`` for linear).
    ideal_given : bool
        Whether the user gave the ideal point (``False`` for an estimate and for linear).
    ideal_beaten : tuple of int
        Objectives (0-based) whose observed values went below a given ideal point.
    ideal_excess : ndarray of shape (M,) or None
        Per objective, how far observed values went below a given ideal point (``<= 0``;
        ``ideal_excess.min()`` is the most negative excess).
    method : str
        The scipy method.
    x0 : ndarray of shape (n,)
        The cold start.
    """

    #: Each solve is a function of its weight, its start and the scalarization (the ideal
    #: point included, which only :meth:`observe` moves): a run reuses a solve that returned
    #: its start where the same weight and start come back, rather than solve it again
    #: (:class:`paretosurf.loop.FixedPoints`).
    deterministic: ClassVar[bool] = True

    def __init__(
        self,
        objectives: Callable[[FloatArray], ArrayLike],
        x0: ArrayLike,
        *,
        scalarization: str | Scalarization = "auto",
        method: str | None = None,
        steps: int | None = None,
        jac: Callable[[FloatArray], ArrayLike] | None = None,
        bounds: Any = None,
        constraints: Any = (),
        ideal: ArrayLike | None = None,
        rho: float | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        if not callable(objectives):
            raise TypeError(
                f"objectives must be a callable x -> (h1, h2), got {type(objectives).__name__}"
            )
        if jac is not None and not callable(jac):
            raise TypeError(
                f"jac must be a callable x -> (M, n) Jacobian or None, got {type(jac).__name__}"
            )
        self.objectives = objectives
        self.jac = jac
        self.x0 = _as_x0(x0)
        n = self.x0.size
        self.bounds = _as_bounds(bounds, n)
        if self.bounds is not None and not np.all(
            (self.bounds[0] <= self.x0) & (self.x0 <= self.bounds[1])
        ):
            raise ValueError("x0 must lie within bounds")
        self.constraints = _as_constraints(constraints)
        auto = isinstance(scalarization, str) and scalarization == "auto"
        if auto and (ideal is not None or rho is not None):
            raise ValueError(
                "ideal and rho belong to a Tchebycheff scalarization: name it "
                "(scalarization='tchebycheff') rather than 'auto'"
            )
        sc = as_scalarization("linear" if auto else scalarization, ideal, rho)
        self.method = _choose_method(
            sc.kind, method, self.bounds is not None, bool(self.constraints)
        )
        self.steps = None if steps is None else check_positive_int(steps, name="steps")
        self.options = _as_options(options, self.steps)

        h0 = _as_values(objectives(self.x0.copy()), "objectives(x0)")
        #: Number of objectives (from ``objectives(x0)``).
        self.n_objectives = h0.size
        if not np.all(np.isfinite(h0)):
            raise ValueError(f"objectives(x0) must return finite values, got {h0.tolist()}")
        if jac is not None:
            _as_jacobian(jac(self.x0.copy()), n, h0.size)
        _check_ideal_length(sc, h0.size, given_here=not isinstance(scalarization, Scalarization))
        if sc.kind == "asf" and h0.size == 2:
            raise ValueError(
                "scalarization 'asf' needs three or more objectives here: with two, ps.surf and "
                "the baselines give the solver the scalar weight w of objective 1, which 'asf' "
                "refuses (its corner e_m is where objective m is worst). Use "
                "'modified_tchebycheff': for two objectives it solves the same problems (the "
                "front point on the ray from the ideal point along (1 - w, w), 'asf' with the "
                "weight vector [1 - w, w])"
            )
        self.scalarization = sc
        #: The ends :meth:`solve_end` found from ``x0`` (per objective), and the objective
        #: calls made here and not yet reported by a solve_end (the "auto" test solves).
        self._ends: dict[int, Solution] = {}
        #: The box's screened points and their objectives (:meth:`_screened_end`).
        self._end_screen: tuple[FloatArray, FloatArray] | None = None
        #: The state of the last end :meth:`solve_end` returned, per objective (see
        #: :data:`END_NUDGE`).
        self._end_states: dict[int, FloatArray] = {}
        #: ... and its objectives.
        self._end_values: dict[int, FloatArray] = {}
        #: The least value of each objective its end solves found (their first stage, before
        #: the others are lowered within the hold): the ideal point lies below it.
        self._least: dict[int, float] = {}
        self._unreported_calls = 0
        #: Why the scalarization is the one it is (``scalarization="auto"``; ``""`` otherwise).
        self.scalarization_note = ""
        #: The objectives at the corner solves (:meth:`_corner_values`), once solved.
        self._corners: FloatArray | None = None
        #: The objectives at ``x0``, where the corner solves start (kept with them).
        self._at_x0: FloatArray | None = None
        #: The ideal point's state over the run (None for linear scalarization).
        self._ideal: IdealPoint | None = None
        if sc.needs_ideal:
            if sc.ideal is None:
                self._estimate_ideal(sc)
            else:
                self._ideal = IdealPoint(sc.ideal, given=True)
        if auto:
            self._choose_scalarization(method)
        if h0.size >= 3 and not isinstance(scalarization, Scalarization):
            # the simplex's weights in units of the objectives' extents where their scales
            # differ by more than UNITS_RATIO (any kind; an instance is solved as given)
            units = self._units()
            if units is not None:
                self.scalarization = _with_scales(self.scalarization, units)

    def _units(self) -> FloatArray | None:
        """The units of three or more objectives, or ``None`` (the raw units) where the
        objectives' scales agree within a factor :data:`UNITS_RATIO`.

        Two estimates of each objective's extent over the front, both made in a way that
        gives the same decisions whatever the objectives' units (so both scale with them):

        1. its range over the corner solves (:func:`_corner_units`). A corner solve
           minimizes one objective alone and may stop anywhere on a flat face of its
           minimizers, where the other objectives can be far from the front (pymoo's DTLZ1
           from the middle of the box: ``f3 = 21`` where the front's is at most 0.5);
        2. how far the front's extreme points reach above the best values found: one ASF
           solve per objective ``m`` from ``x0`` at the weight ``e_m``, in the units of (1)
           and from the corner solves' ideal point (every other objective weighted by
           ``1 / floor``), finds where ``m`` is worst with the others at their best. (Where
           such a solve goes below the ideal point, a corner solve stopped in a local
           minimum: the solves are made again from a lower one, :data:`UNIT_PASSES` in
           all.) On fronts whose objectives reach their best together (DTLZ1 to DTLZ4)
           this is the front's extent; elsewhere it may fall short (DTLZ7: 0.005 of the
           extent 0.86 in ``f1``).

        Either can be wrong by a factor of tens where the local solves stop in the wrong
        place (DTLZ7 from the middle of the box: 27 and 28 where the extents differ by 4),
        and there the raw units, which the layout of :func:`paretosurf.surf_simplex` copes
        with, are the better choice. So the units are taken only where both estimates put
        the objectives' scales more than :data:`UNITS_RATIO` apart (an objective in other
        units: times 100, or ``1e-3`` and ``1e3``), and then they are (2), (1) where an
        extreme is not finite or reaches no further. M full solves more than the corner
        solves (which the ideal point's estimate shares), made once at construction.
        """
        corners = self._corner_values()
        first = _corner_units(corners)
        if first is None or _spread(first) <= UNITS_RATIO:
            return None
        screen, _ = self._screen()
        box = None
        if screen is not None:
            # the objectives' ranges over the box scale with their units too: corner solves
            # that all stopped on a flat spot agree in an objective they never moved (DTLZ4's
            # third, 1e-30 over every corner), which is no evidence of its units
            values = screen[1][np.all(np.isfinite(screen[1]), axis=1)]
            if len(values) >= 2:
                box = np.ptp(values, axis=0)
                if not np.all(box > 0):
                    box = None
                elif _spread(box) <= UNITS_RATIO:
                    return None
        ideal = IdealPoint.from_minima(corners, start=self._at_x0)
        # (ASF's epigraph form needs a method that takes constraints: SLSQP with its defaults
        # where the run's method takes none, the linear scalarization's L-BFGS-B)
        saved = self.method, self.options
        if self.method not in EPIGRAPH_METHODS:
            self.method, self.options = "SLSQP", {}
        try:
            for _ in range(UNIT_PASSES):
                assert ideal.value is not None
                asf = Scalarization("asf", ideal=ideal.value, scales=first)
                extremes = self._extremes(asf)
                below = extremes < ideal.value[None, :] - UNIT_IDEAL_TOL * first[None, :]
                if not np.any(below & np.isfinite(extremes)):
                    break
                # a corner solve stopped in a local minimum, above part of the front: the
                # extremes went below the ideal point, and are solved again from a lower one
                ideal.observe(extremes)
        finally:
            self.method, self.options = saved
        found = np.vstack([corners, extremes])
        reach = np.max(extremes, axis=0) - np.min(found, axis=0)
        usable = np.isfinite(reach) & (reach > 1e-12 * np.max(np.abs(found), axis=0))
        units = np.asarray(np.where(usable, reach, first), dtype=np.float64)
        if box is not None and _spread(units / box) > UNITS_RATIO:
            # the extents and the box's ranges both scale with the units, so their ratio is
            # the front's share of the box, much alike for every objective; one far out of
            # line is an estimate that never moved that objective (DTLZ4 with its objectives
            # times 1, 10 and 100: its second's extent 1e-29 where its range over the box is
            # 10, which put every point of the run at one corner): the box's ranges are then
            # the units
            units = box
        return units if _spread(units) > UNITS_RATIO else None

    def _extremes(self, asf: Scalarization) -> FloatArray:
        """The objectives where each objective ``m`` is worst with the others at their best:
        the ASF solve at ``e_m`` from ``x0``, one per objective, (M, M) (:meth:`_units`,
        :meth:`_choose_many`)."""
        m = self.n_objectives
        return np.array([self._run(asf, np.eye(m)[k], self.x0, None).objectives for k in range(m)])

    def _estimate_ideal(self, sc: Scalarization) -> None:
        """Take ``sc`` with an estimated ideal point: below the front's ends (:meth:`solve_end`,
        kept for the run) with two objectives in a finite box, its units then the ends'
        ranges (:func:`_in_units`); else below the corner solves from ``x0`` (each objective
        minimized alone, whose other objective may be anywhere on a flat face, so no
        units are taken from them for two objectives; with three or more, the constructor
        takes its units from these corners and more, :meth:`_units`)."""
        if self.n_objectives == 2 and self._boxed():
            corners = self._ends_as_corners()
            self._ideal = IdealPoint.from_corners(self._with_least(corners))
            assert self._ideal.value is not None
            self.scalarization = _in_units(sc.with_ideal(self._ideal.value), corners)
            return
        corners = self._corner_values()
        self._ideal = IdealPoint.for_kind(corners, sc.kind, start=self._at_x0)
        assert self._ideal.value is not None
        self.scalarization = sc.with_ideal(self._ideal.value)

    def _with_least(self, corners: FloatArray) -> FloatArray:
        """``corners`` with each objective's own entry lowered to the least value the end
        solves found (:attr:`_least`): an end's objective may sit a hold's width above it."""
        out = np.array(corners, dtype=np.float64)
        for k, least in self._least.items():
            out[k, k] = min(out[k, k], least)
        return out

    def _ends_as_corners(self) -> FloatArray:
        """The front's two ends (:meth:`solve_end` from ``x0``, kept for the run, which then
        does not solve them again; their calls are reported with the first end it asks for),
        row ``k`` where objective ``k`` is least."""
        # (the w = 0 end minimizes objective 2, the w = 1 end objective 1)
        end0, end1 = self.solve_end(1), self.solve_end(0)  # the w = 0 end, then w = 1
        assert end0 is not None and end1 is not None
        calls = int(end0.info["objective_calls"]) + int(end1.info["objective_calls"])
        self._unreported_calls = calls
        return np.stack([end1.objectives, end0.objectives])

    def solve(self, weight: float, state: ArrayLike | None) -> Solution:
        """Minimize the scalarization for ``weight`` from ``state`` (``x0`` when ``None``),
        with at most ``steps`` iterations."""
        w = check_weight(weight)
        m = 2 if isinstance(w, float) else w.size
        if m != self.n_objectives:
            raise ValueError(
                f"weight {weight!r} is for {m} objectives, but objectives(x) "
                f"returns {self.n_objectives} values"
            )
        start = self.x0 if state is None else self._as_state(state)
        if isinstance(w, float) and w in (0.0, 1.0) and self._solves_ends_at_corners():
            return self._corner_solve(w, start)
        return self._run(self.scalarization, w, self._nudged(start, w), self.steps)

    def _solves_ends_at_corners(self) -> bool:
        """Whether ``w = 0`` and ``w = 1`` are solved lexicographically (:meth:`_corner_solve`):
        full solves of a Tchebycheff kind with two objectives in a finite box."""
        return (
            self.steps is None
            and self.n_objectives == 2
            and self.scalarization.kind in ("tchebycheff", "modified_tchebycheff")
            and self._boxed()
        )

    def _corner_solve(self, w: float, start: FloatArray) -> Solution:
        """The end at ``w = 0`` or ``w = 1`` from ``start``: the weighted objective alone, then
        the other with it held (:meth:`solve_end`'s local stages). The Tchebycheff kinds
        floor the other objective's coefficient (``1e-4``), so their minimizer there trades a
        little of the weighted objective for the other (on ZDT2, ``f1 = 0.99973`` for
        ``f1 = 1``); the front's end is what the end slot stands for."""
        k = 0 if w == 1.0 else 1
        end = self._end_states.get(k)
        if end is not None and np.array_equal(start, end) and k in self._end_values:
            # an end slot warm-started at its own end (every round after the first): the end
            # again, without the end solves (20,000 evaluations a round on 30-variable ZDT3)
            message = "the front's end, solved before from this state"
            return self._end_solution(w, start, self._end_values[k], 0, message)
        at_start = self.evaluate(start)
        x, h, calls = self._lexicographic_end(k, start, at_start)
        if np.all(np.isfinite(h)):
            self._end_states[k], self._end_values[k] = x.copy(), h.copy()
        message = f"objective {k + 1} alone, then the other within {LEXICOGRAPHIC_TOL:g}"
        return self._end_solution(w, x, h, calls + 1, message)

    def _end_solution(
        self, w: float, x: FloatArray, h: FloatArray, calls: int, message: str
    ) -> Solution:
        """A corner solve's solution at ``x`` with objectives ``h``, ``calls`` objective
        calls spent on it."""
        sc = self.scalarization
        finite = bool(np.all(np.isfinite(h)))
        info: dict[str, Any] = {
            "steps": 0,
            "nfev": max(calls - 1, 0),
            "success": finite,
            "message": message,
            "value": float(sc(h, w)),
            "objective_calls": calls,
            "non_finite": 0 if finite else 1,
        }
        if sc.ideal is not None:
            info["ideal"] = sc.ideal.tolist()
        return Solution(h.copy(), state=np.array(x, dtype=np.float64), info=info)

    def _nudged(self, start: FloatArray, w: float | FloatArray) -> FloatArray:
        """``start``, or :data:`END_NUDGE` of the way from it toward the other ends' states
        (their mean) where it is an end's state (:meth:`solve_end`) and ``w`` is not that
        end's weight."""
        for k, end in self._end_states.items():
            if not np.array_equal(start, end):
                continue
            own = np.eye(self.n_objectives)[k]
            at_end = w == own[0] if isinstance(w, float) else np.array_equal(w, own)
            others = [x for j, x in self._end_states.items() if j != k]
            if at_end or not others:
                return start
            nudged = self.start_between(start, np.mean(others, axis=0), END_NUDGE)
            return start if nudged is None else nudged
        return start

    def solve_end(
        self, objective: int, state: ArrayLike | None = None, *, local: bool = False
    ) -> Solution | None:
        """The front's end where objective ``objective`` (0-based) is at its best:
        that objective minimized alone, then the other objectives' sum minimized with it held
        within :data:`LEXICOGRAPHIC_TOL` of its minimum (SLSQP), so that a flat face of
        minimizers gives its Pareto-optimal end (ZDT1 at ``w = 1``: ``f1 = 0`` whatever the
        other variables, and ``f2`` at its least there). The run calls it before its first
        round (:mod:`paretosurf.findings`).

        ``local=True`` solves the end from ``state`` alone, without other starts or a global
        search, and keeps nothing for later calls: the end of the basin ``state`` lies in.
        :func:`paretosurf.surf_simplex` calls it from its reported points where each
        objective is least, to verify that the front does not reach further
        (:func:`~paretosurf.findings.verify_extremes`).

        The end is solved from ``x0``, from ``state`` and from :data:`END_STARTS` seeded
        starts drawn from the box, the best kept (the end's own objective first, then the
        others). Where those solves end in different places the problem has several basins,
        and the end is also searched for globally
        (:func:`~paretosurf.adapters.global_search.global_minimum`, about
        :data:`GLOBAL_EVALUATIONS_PER_VARIABLE` evaluations per variable, then polished by
        the same local solves): a start on a flat spot, or in a local basin, no longer
        decides the end. Problems with constraints of the user's keep the best local end.
        ``info`` says ``starts`` (local solves), ``global`` (whether the global search ran)
        and ``objective_calls``.

        Returns ``None`` unless every variable has finite bounds: without them the
        minimizer of one objective alone may not exist (logistic loss on separable data),
        and the run approaches the end by weights instead.

        Examples
        --------
        >>> import numpy as np
        >>> from paretosurf.adapters import from_scipy
        >>> def zdt1(x):
        ...     g = 1 + 9 * np.mean(x[1:])
        ...     return np.array([x[0], g * (1 - np.sqrt(x[0] / g))])
        >>> solver = from_scipy(zdt1, x0=np.full(5, 0.5), bounds=[(0, 1)] * 5)
        >>> solver.solve(1.0, None).objectives.round(3).tolist()   # f1 alone: f2 anywhere
        [0.0, 5.5]
        >>> end = solver.solve_end(0)                               # then f2 at its least
        >>> end.objectives.round(2).tolist(), end.info["global"]
        ([0.0, 1.0], False)
        """
        if not self._boxed():
            return None
        m = self.n_objectives
        if not 0 <= int(objective) < m:
            raise ValueError(f"objective must be in 0..{m - 1}, got {objective!r}")
        k = int(objective)
        assert self.bounds is not None
        if local:
            if state is None:
                raise ValueError("solve_end(local=True) needs the state to solve the end from")
            start = self._as_state(state)
            x_end, h_end, calls = self._lexicographic_end(k, start, self.evaluate(start))
            finite = bool(np.all(np.isfinite(h_end)))
            local_info = {
                "objective_calls": calls + 1,
                "success": finite,
                "starts": 1,
                "screened": False,
                "global": False,
                "message": (
                    f"objective {k + 1} alone, then the others within {LEXICOGRAPHIC_TOL:g}, "
                    "from the given state"
                ),
            }
            return self._report(
                Solution(h_end.copy(), state=x_end.copy(), info=local_info), calls + 1
            )
        if state is None and k in self._ends:  # found before (the "auto" test): not again
            return self._report(self._ends[k], 0)
        rng = np.random.default_rng([END_SEED, k])
        starts = [self.x0] if state is None else [self.x0, self._as_state(state)]
        for _ in range(END_STARTS):
            starts.append(np.asarray(self.probe_start(rng), dtype=np.float64))
        at_x0 = self.evaluate(self.x0)
        solved = [self._lexicographic_end(k, start, at_x0) for start in starts]
        calls = 1 + sum(c for _, _, c in solved)
        # ends where the objectives are not finite (a start outside their domain) compare
        # with nothing; where none is finite, x0's stands and says so (success False)
        ends = [e for e in solved if np.all(np.isfinite(e[1]))] or solved[:1]
        searched = False
        if not self.constraints and _ends_differ([h for _, h, _ in ends], at_x0):
            searched = True
            proxy = _end_proxy(self.evaluate, k, np.array([h for _, h, _ in ends]), at_x0)
            x_global, global_calls = global_minimum(
                proxy,
                self.bounds[0],
                self.bounds[1],
                seed=END_SEED + k,
                evaluations=GLOBAL_EVALUATIONS_PER_VARIABLE * self.x0.size,
            )
            polished = self._lexicographic_end(k, x_global, at_x0)
            calls += global_calls + polished[2]
            if np.all(np.isfinite(polished[1])):
                ends.append(polished)
        screened, screen_calls = self._screened_end(k, ends, at_x0)
        calls += screen_calls
        if screened is not None:
            ends.append(screened)
        x_end, h_end, _ = ends[0] if len(ends) == 1 else _best_end(ends, k, at_x0)
        info = {
            "objective_calls": calls,
            "success": bool(np.all(np.isfinite(h_end))),
            "starts": len(starts) + (screened is not None),
            "screened": screened is not None,
            "global": searched,
            "message": (
                f"objective {k + 1} alone, then the others within {LEXICOGRAPHIC_TOL:g}, "
                f"from {len(starts)} starts"
                + (" and a screened one" if screened is not None else "")
                + (" and a global search" if searched else "")
            ),
        }
        found = Solution(h_end.copy(), state=x_end.copy(), info=info)
        self._end_states[k] = x_end.copy()
        self._end_values[k] = h_end.copy()
        if state is None:
            self._ends[k] = found
        return self._report(found, calls)

    def _screen(self) -> tuple[tuple[FloatArray, FloatArray] | None, int]:
        """The box's screened points and the objectives at each (:data:`END_SCREEN` of
        them, screened on first use, then kept), and the calls made here; ``None`` without
        a finite box."""
        if self._end_screen is None:
            found = self.screen_starts(np.random.default_rng([END_SEED, 0, 1]), END_SCREEN)
            if found is None:
                return None, 0
            self._end_screen = (found[0], found[1])
            return self._end_screen, found[2]
        return self._end_screen, 0

    def _screened_start(
        self, k: int, local: FloatArray, at_x0: FloatArray
    ) -> tuple[FloatArray | None, int]:
        """The screened point of least value in objective ``k`` (:data:`END_SCREEN` points
        of the box, screened once per solver), where that value lies below every one of the
        ``local`` solves' values (rows) by more than :data:`END_AGREE_TOL` of how far they
        moved from ``at_x0``; with the calls the screen made here (on its first use)."""
        screen, calls = self._screen()
        if screen is None:
            return None, 0
        states, values = screen
        candidates = np.flatnonzero(np.all(np.isfinite(values), axis=1))
        if candidates.size == 0:
            return None, calls
        unit = _moves(np.asarray(local, dtype=np.float64), at_x0)
        least = values[candidates, k].min()
        if not least < np.min(local[:, k]) - END_AGREE_TOL * unit[k]:
            return None, calls
        # the least in objective k; among near ties, the least in the others
        near = candidates[values[candidates, k] <= least + END_AGREE_TOL * unit[k]]
        others = np.delete(values[near] / unit, k, axis=1).sum(axis=1)
        return np.array(states[int(near[int(np.argmin(others))])]), calls

    def _screened_end(
        self, k: int, ends: list[tuple[FloatArray, FloatArray, int]], at_x0: FloatArray
    ) -> tuple[tuple[FloatArray, FloatArray, int] | None, int]:
        """The end of objective ``k`` solved from the screened start
        (:meth:`_screened_start`) where the screen found a lower value than the local
        ``ends``; with the calls made here (the screen's on its first use, and the solve's)."""
        start, calls = self._screened_start(k, np.array([h for _, h, _ in ends]), at_x0)
        if start is None:
            return None, calls
        solved = self._lexicographic_end(k, start, at_x0)
        return (solved if np.all(np.isfinite(solved[1])) else None), calls + solved[2]

    def _report(self, end: Solution, calls: int) -> Solution:
        """A copy of ``end`` whose ``objective_calls`` are ``calls`` plus the calls made
        before and not yet reported (so that a run counts each call once)."""
        info = dict(end.info)
        info["objective_calls"] = int(calls) + self._unreported_calls
        self._unreported_calls = 0
        return Solution(end.objectives.copy(), state=np.array(end.state), info=info)

    def _choose_scalarization(self, method: str | None) -> None:
        """``scalarization="auto"``: linear unless the front is non-convex between its ends.

        With two objectives and a finite box the ends are found (:meth:`solve_end`, kept for
        the run, which then does not solve them again), and the weighted sum is solved at the
        chord's slope (the weight that values both ends alike in units of the ranges between
        them), from the middle of the segment between the ends' states. A solution on or
        above the chord (within :data:`CHORD_TOL` of the ranges) shows that no point of the
        front bulges towards the ideal point at that slope: the front is concave or straight
        there, and weighted sums reach only its ends. The solver then minimizes the
        Tchebycheff scalarization, with its ideal point below the ends; otherwise the
        weighted sum, as before (a front convex in the middle and non-convex elsewhere is
        left to the run's findings). Without a box it is the weighted sum; with three or more
        objectives, :meth:`_choose_many` decides. The calls made here are reported with the
        first end the run asks for. ``scalarization_note`` says what was found.
        """
        if not self._boxed():
            self.scalarization_note = "auto: linear (no finite box to find the ends in)"
            return
        if self.n_objectives > 2:
            self._choose_many(method)
            return
        if method is not None and method not in EPIGRAPH_METHODS:
            self.scalarization_note = f"auto: linear (method {method!r} solves no epigraph form)"
            return
        corners = self._ends_as_corners()
        calls = self._unreported_calls
        ends = [self._ends[1], self._ends[0]]  # the w = 0 end, then w = 1
        low = np.minimum(ends[0].objectives, ends[1].objectives)
        ranges = np.abs(ends[0].objectives - ends[1].objectives)
        kind, why = "linear", "the weighted sum reached below the chord between the ends"
        if not np.all(ranges > 1e-12 * np.maximum(1.0, np.abs(low))):
            why = "the ends coincide"
        else:
            w = float(ranges[1] / (ranges[0] + ranges[1]))  # w / (1 - w) = r2 / r1
            start = self.start_between(ends[0].state, ends[1].state, 0.5)
            sol = self._run(Scalarization("linear"), w, self.x0 if start is None else start, None)
            calls += int(sol.info["objective_calls"])
            u = (sol.objectives - low) / ranges
            if np.all(np.isfinite(u)) and float(u.sum()) >= 1.0 - CHORD_TOL:
                kind = "tchebycheff"
                why = (
                    f"the weighted sum at the chord's slope, w = {w:.4g}, stopped on or above "
                    f"the chord between the ends, at {np.round(sol.objectives, 6).tolist()}: "
                    "the front is non-convex (or straight) there"
                )
        self._unreported_calls = calls
        self.scalarization_note = f"auto: {kind} ({why})"
        if kind == "linear":
            return
        self.method = _choose_method(kind, method, True, bool(self.constraints))
        self._ideal = IdealPoint.from_corners(self._with_least(corners))
        assert self._ideal.value is not None
        self.scalarization = _in_units(
            as_scalarization(kind).with_ideal(self._ideal.value), corners
        )

    def _choose_many(self, method: str | None) -> None:
        """``scalarization="auto"`` with three or more objectives (and a finite box): linear
        unless the surface is concave or flat between its extreme points, then ``"asf"``.

        The corner solves (:meth:`_corner_values`) give an ideal point; one ASF solve per
        objective ``m`` at ``e_m`` from ``x0`` finds where ``m`` is worst with the others at
        their best (the extreme points, in the units of their ranges). The weighted sum is
        solved once at the normal of the plane through them (the weights that value every
        extreme point alike). A solution on or above that plane (within :data:`CHORD_TOL`)
        shows that no point of the surface bulges towards the ideal point at that normal:
        the surface is concave or flat there, as the DTLZ fronts are, and weighted sums send
        whole edges of the weight simplex to its vertices, while the achievement
        scalarization reaches every point of it (each on the ray along its weight). Extreme
        points that span no plane (a front of lower dimension), or a plane whose normal
        weighs some objective negatively, leave the weighted sum. ``2 M + 1`` full solves
        (where ``"asf"`` is taken, its ideal point's estimate reuses the corner solves; the
        weighted sum solves its corners again with its own method, for its units).
        """
        if method is not None and method not in EPIGRAPH_METHODS:
            self.scalarization_note = f"auto: linear (method {method!r} solves no epigraph form)"
            return
        m = self.n_objectives
        # solved with the method "asf" takes, so that where it is chosen the corners (and the
        # ideal point from them) are those of scalarization="asf" given by name
        linear_method = self.method
        self.method = _choose_method("asf", method, True, bool(self.constraints))
        corners = self._corner_values()
        ideal = IdealPoint.from_minima(corners, start=self._at_x0)
        assert ideal.value is not None
        asf = Scalarization("asf", ideal=ideal.value)
        extremes = self._extremes(asf)
        low = np.minimum(extremes.min(axis=0), ideal.value)
        ranges = extremes.max(axis=0) - low
        kind, why = "linear", "the weighted sum reached below the plane of the extreme points"
        normal = None
        if np.all(np.isfinite(extremes)) and np.all(ranges > 1e-12 * np.maximum(1.0, np.abs(low))):
            unit = (extremes - low) / ranges
            if np.linalg.cond(unit) < 1e8:
                normal = np.linalg.solve(unit, np.ones(m))
        if normal is None or not np.all(normal > 0):
            why = "the extreme points span no plane the weights can value alike"
        else:
            w = normal / ranges
            w = w / w.sum()
            self.method = linear_method
            sol = self._run(Scalarization("linear"), w, self.x0, None)
            u = (sol.objectives - low) / ranges
            if np.all(np.isfinite(u)) and float(normal @ u) >= 1.0 - CHORD_TOL:
                kind = "asf"
                why = (
                    f"the weighted sum at the normal of the extreme points' plane, w = "
                    f"{np.round(w, 4).tolist()}, stopped on or above the plane, at "
                    f"{np.round(sol.objectives, 6).tolist()}: the surface is concave (or flat) "
                    "there"
                )
        self.scalarization_note = f"auto: {kind} ({why})"
        if kind == "linear":
            # (the weighted sum's own corner solves, for its units, are made by its method)
            self.method, self._corners = linear_method, None
            return
        self.method = _choose_method(kind, method, True, bool(self.constraints))
        self._estimate_ideal(as_scalarization(kind))

    def _lexicographic_end(
        self, k: int, start: FloatArray, at_x0: FloatArray
    ) -> tuple[FloatArray, FloatArray, int]:
        """Objective ``k`` minimized alone from ``start``, then the others' sum with it held
        within :data:`LEXICOGRAPHIC_TOL` of how far that moved it from ``at_x0`` (the
        objectives at ``x0``): ``(x, objectives, calls)``."""
        assert self.bounds is not None
        m = self.n_objectives
        corner: float | FloatArray = (1.0 - k) if m == 2 else np.eye(m)[k]
        first = self._run(Scalarization("linear"), corner, start, None)
        calls = int(first.info["objective_calls"])
        x1 = np.asarray(first.state, dtype=np.float64)
        h1 = first.objectives
        top = float(h1[k])
        if np.isfinite(top):
            self._least[k] = min(self._least.get(k, np.inf), top)
        # the hold's width from how far the solve moved objective k from x0, the same for
        # every start (ends that agree then agree to the solver's tolerance)
        spread = abs(float(at_x0[k]) - top)
        limit = top + LEXICOGRAPHIC_TOL * max(abs(top), spread, 1e-12)
        others = np.ones(m)
        others[k] = 0.0
        x_end, h_end = x1, h1
        # SLSQP may stop early where the held objective is not smooth at its least (ZDT4's
        # sqrt(f1) at f1 = 0): it restarts from its own point while that still helps
        for _ in range(LEXICOGRAPHIC_RESTARTS):
            ev = _Evaluator(self.objectives, self.jac, x1.size, m)
            x2 = self._held(k, (top, limit), others, x_end, h_end, ev)
            h2 = ev.values(x2)
            calls += ev.calls
            gain = float(others @ h_end) - float(others @ h2)
            if not gain > 0:
                break
            x_end, h_end = x2, h2
            if gain <= SLSQP_FTOL * max(abs(float(others @ h2)), 1e-12):
                break
        return x_end, h_end, calls

    def _held(
        self,
        k: int,
        hold: tuple[float, float],
        others: FloatArray,
        start: FloatArray,
        at_start: FloatArray,
        ev: _Evaluator,
    ) -> FloatArray:
        """The others' sum minimized from ``start`` with objective ``k`` held below
        ``limit`` (SLSQP), ``hold = (least, limit)``; ``start`` where the solve fails or
        breaks a constraint."""
        assert self.bounds is not None
        least, limit = hold
        scale = max(float(np.abs(others @ at_start)), 1e-12)
        kwargs: dict[str, Any] = {
            "method": "SLSQP",
            "options": {"ftol": SLSQP_FTOL, "maxiter": 500},
            "constraints": [
                {"type": "ineq", "fun": lambda x: limit - ev.values(x)[k]},
                *self.constraints,
            ],
            "bounds": Bounds(*self.bounds),
        }
        try:
            res = minimize(lambda x: float(others @ ev.values(x)) / scale, start, **kwargs)
        except (ValueError, ArithmeticError):  # (the start stands)
            return start
        x2 = np.clip(np.asarray(res.x, dtype=np.float64), *self.bounds)
        h2 = ev.values(x2)
        width = (limit - least) + 1e-12 * max(1.0, abs(limit))
        feasible = bool(h2[k] <= limit + HOLD_SLACK * width) and _satisfies(x2, self.constraints)
        return x2 if feasible and np.all(np.isfinite(h2)) else start

    def evaluate(self, state: ArrayLike) -> FloatArray:
        """The objectives at a state (a decision vector), e.g. one the Soup baseline mixed
        from two solutions (states are arrays, so its default linear interpolation applies)."""
        return _as_values(
            self.objectives(self._as_state(state)), "objectives(x)", self.n_objectives
        )

    def probe_start(self, rng: np.random.Generator) -> FloatArray | None:
        """A fresh start for a basin probe (:mod:`paretosurf.loop`): a point drawn
        uniformly from the box of ``bounds`` with ``rng`` (a Latin hypercube of one point),
        the same for the same generator state.

        Returns ``None`` unless every variable has finite bounds: without a box there is
        nothing to draw from, and the run makes no probes (``probes="auto"``).

        Examples
        --------
        >>> import numpy as np
        >>> from paretosurf.adapters import from_scipy
        >>> def objectives(x):
        ...     return np.array([x[0] ** 2, (x[0] - 1) ** 2 + x[1] ** 2])
        >>> boxed = from_scipy(objectives, x0=[0.5, 0.0], bounds=[(0, 1), (-2, 2)])
        >>> x = boxed.probe_start(np.random.default_rng(0))
        >>> bool(0 <= x[0] <= 1 and -2 <= x[1] <= 2)
        True
        >>> from_scipy(objectives, x0=[0.5, 0.0]).probe_start(np.random.default_rng(0)) is None
        True
        """
        if not self._boxed():
            return None
        assert self.bounds is not None
        lb, ub = self.bounds
        return np.asarray(lb + (ub - lb) * rng.random(lb.size), dtype=np.float64)

    def screen_starts(
        self, rng: np.random.Generator, count: int
    ) -> tuple[FloatArray, FloatArray, int] | None:
        """Starts screened for a flat start's probes (:mod:`paretosurf.loop`): ``count``
        points spread over the box of ``bounds`` (a scrambled Sobol sequence, seeded by
        ``rng``; ``count`` rounded up to a power of two), with the objectives at each.

        A run whose first round's points all stopped near their start (a flat start: the
        objectives do not change measurably around it, as DTLZ4's ``x^100`` near the box
        centre) probes every slot from the screened point that scores best at the slot's
        weight. Unlike one uniform draw per slot, the sample reaches the thin parts of the
        box where the objectives do change, and each slot starts from the one nearest its
        own part of the front.

        Returns
        -------
        (states, values, calls) or None
            The points (shape ``(count, n)``), the objectives at each (shape
            ``(count, M)``; ``inf`` where they are not finite or the point breaks the
            user's constraints) and the objective calls made; ``None`` unless every variable
            has finite bounds.

        Examples
        --------
        >>> import numpy as np
        >>> from paretosurf.adapters import from_scipy
        >>> def objectives(x):
        ...     return np.array([x[0] ** 2, (x[0] - 1) ** 2 + x[1] ** 2])
        >>> boxed = from_scipy(objectives, x0=[0.5, 0.0], bounds=[(0, 1), (-2, 2)])
        >>> states, values, calls = boxed.screen_starts(np.random.default_rng(0), 60)
        >>> states.shape, values.shape, calls
        ((64, 2), (64, 2), 64)
        >>> bool(np.all(states[:, 0] <= 1) and np.all(states[:, 1] >= -2))
        True
        """
        if not self._boxed():
            return None
        assert self.bounds is not None
        lb, ub = self.bounds
        # scipy's scrambled Sobol points: evenly spread in every low-dimensional
        # projection, so that a thin band of each variable's range is sampled as often as
        # its width says (a uniform sample can miss it)
        power = max(0, math.ceil(math.log2(max(int(count), 1))))
        sampler = qmc.Sobol(lb.size, scramble=True, seed=rng)
        unit = sampler.random_base2(power)
        states = lb + (ub - lb) * unit
        values = np.full((len(states), self.n_objectives), np.inf)
        for i, x in enumerate(states):
            try:
                raw = _as_values(self.objectives(x), "objectives(x)", self.n_objectives)
            except (ValueError, ArithmeticError):
                continue
            if np.all(np.isfinite(raw)) and (
                not self.constraints or _satisfies(x, self.constraints)
            ):
                values[i] = raw
        return states, values, len(states)

    def recombine(
        self, state_a: ArrayLike, state_b: ArrayLike, rng: np.random.Generator
    ) -> FloatArray | None:
        """A probe start mixed from two states: each variable taken from ``state_a`` or
        ``state_b`` with equal chance (drawn with ``rng``), within the box.

        Where the objectives depend on groups of variables apart (DTLZ4's position
        variables, each flat over most of its range), two points that each moved one group
        off its flat spot hold between them a start from which a local solve moves both,
        which neither point nor a uniform draw of the box is likely to give.

        Returns ``None`` where the mix breaks the user's constraints while both states keep
        them, or where it equals one of them.

        Examples
        --------
        >>> import numpy as np
        >>> from paretosurf.adapters import from_scipy
        >>> solver = from_scipy(lambda x: np.array([x[0] ** 2, (x[1] - 1) ** 2]), x0=[0.5, 0.5])
        >>> x = solver.recombine([0.0, 0.0], [1.0, 1.0], np.random.default_rng(0))
        >>> sorted(x.tolist())
        [0.0, 1.0]
        """
        a = self._as_state(state_a)
        b = self._as_state(state_b)
        take_a = rng.random(a.size) < 0.5
        x = np.where(take_a, a, b)
        if np.array_equal(x, a) or np.array_equal(x, b):
            return None
        if (
            self.constraints
            and not _satisfies(x, self.constraints)
            and _satisfies(a, self.constraints)
        ):
            return None
        return x

    def start_between(self, state_a: ArrayLike, state_b: ArrayLike, t: float) -> FloatArray | None:
        """A cold start between two states: ``(1 - t) a + t b``, within the box. The run
        starts its first round's inner slots on the segment between the front's two end
        states (:meth:`solve_end`), at the slots' places along it: on problems whose
        Pareto-optimal decisions lie between the ends' (the ZDT problems: on the segment
        itself) the first solves start on or near the front, in its basin, rather than at
        ``x0``.

        Returns ``None`` (the slot starts from ``x0``) where the point breaks the user's
        constraints while ``x0`` keeps them. The objectives are not evaluated here (every
        call of them is counted in the solves): both ends' states have finite values, and a
        start between them that has none fails its solve as any warm start would, which the
        run reports.

        Examples
        --------
        >>> import numpy as np
        >>> from paretosurf.adapters import from_scipy
        >>> solver = from_scipy(lambda x: np.array([x[0] ** 2, (x[0] - 1) ** 2]), x0=[0.5])
        >>> solver.start_between([0.0], [1.0], 0.25).tolist()
        [0.25]
        """
        a = self._as_state(state_a)
        b = self._as_state(state_b)
        x = (1.0 - float(t)) * a + float(t) * b
        if self.bounds is not None:
            x = np.clip(x, *self.bounds)
        if (
            self.constraints
            and not _satisfies(x, self.constraints)
            and _satisfies(self.x0, self.constraints)
        ):
            return None
        return x

    def _boxed(self) -> bool:
        """Whether every variable has finite bounds."""
        if self.bounds is None:
            return False
        return bool(np.all(np.isfinite(self.bounds[0]) & np.isfinite(self.bounds[1])))

    # -- internals -----------------------------------------------------------------------

    def _as_state(self, state: ArrayLike) -> FloatArray:
        x = np.asarray(state, dtype=np.float64)
        if x.shape != self.x0.shape or not np.all(np.isfinite(x)):
            raise ValueError(
                f"state must be a finite decision vector of shape {self.x0.shape} "
                f"(the x a previous solve returned), got {state!r}"
            )
        if self.bounds is not None:  # solvers may return points a rounding error outside
            x = np.clip(x, *self.bounds)
        return x

    def _run(
        self, sc: Scalarization, w: float | FloatArray, start: FloatArray, steps: int | None
    ) -> Solution:
        """Minimize the scalarization for ``w`` from ``start``.

        A call with ``steps`` (a K-step solver) is one run of the method, K iterations at
        most. A full solve (``steps=None``) is more careful, since local methods with
        finite-difference gradients stop short where bounds are active:

        1. variables that start on a bound are held there for a first solve (where a
           slope is unbounded at the bound, as ZDT6's fourth root, their finite-difference
           derivatives swamp the others' and the method stalls), then released;
        2. a solve that reports failure is restarted from its point, at most
           :data:`SOLVE_RESTARTS` times, while that lowers the scalarization (one that
           finds nothing lower is converged there);
        3. a solve that ends where it started (a stationary point, which may be no
           minimum: the bottom of one of ZDT6's humps at a weight that wants a larger
           ``f1``) goes on from the lowest of small moves along each free variable
           (:data:`STILL_STEP`), where one is lower;
        4. variables within :data:`BOUND_SNAP` of a bound are put on it where that is no
           higher;
        5. the start is kept where every solve ended higher (a solve never makes a warm
           start worse), and the held solve's end where releasing the variables found
           nothing lower.

        ``info`` says ``held`` (variables held in step 1) and ``restarts``; ``steps``,
        ``nfev`` and ``objective_calls`` count every part.
        """
        ev = _Evaluator(self.objectives, self.jac, start.size, self.n_objectives)
        if steps is not None:
            once = self._minimize(sc, w, start, steps, ev, self.bounds)
            once.info.pop(_FEASIBLE, None)
            return once
        held = _held_at_bounds(start, self.bounds)
        at_start = self._scored(sc, w, start, ev, {"success": True, "message": "the start"})
        parts: list[Solution] = []
        first = start
        if held is not None:
            parts.append(self._minimize(sc, w, start, None, ev, held[0]))
            if _score(parts[-1]) <= _score(at_start):
                first = parts[-1].state
        best = self._minimize(sc, w, first, None, ev, self.bounds)
        parts.append(best)
        restarts = 0
        while not best.info["success"] and restarts < SOLVE_RESTARTS:
            restarts += 1
            again = self._minimize(sc, w, best.state, None, ev, self.bounds)
            parts.append(again)
            if _score(again) < _score(best) - _SCORE_TOL * abs(_score(best)):
                best = again
                continue
            best.info["success"] = True
            best.info["message"] += "; a restart from its point found nothing lower"
        if held is not None and _score(parts[0]) < _score(best):
            released = best
            best = parts[0]  # releasing the held variables found nothing lower
            if first is parts[0].state and released.info["success"] and not best.info["success"]:
                # (the held solve stopped at its iteration limit where it was optimal: a
                # converged solve of every variable from its point found nothing lower)
                best.info["success"] = True
                best.info["message"] += (
                    "; a solve of every variable from its point found nothing lower"
                )
        # a step overshot into a higher basin (not merely a solver's tolerance above it)
        if _score(best) > _score(at_start) + TRUST_TRIGGER * abs(_score(at_start)):
            near = self._trust_boxed(sc, w, at_start, ev, parts, held)
            if _score(near) < _score(best):
                best = near
        if self.bounds is not None and _still(best.state, start, self.bounds):
            moved = self._from_stationary(sc, w, at_start, ev, parts)
            if _score(moved) < _score(best):
                best = moved
        snapped = self._snapped(sc, w, best, ev)
        if snapped is not None:
            best = snapped
        if _score(at_start) < _score(best):
            best = Solution(at_start.objectives, state=at_start.state, info=dict(best.info))
            best.info["message"] += "; every solve ended higher than the start, which is kept"
        info = dict(best.info)
        info["steps"] = sum(int(part.info["steps"]) for part in parts)
        info["nfev"] = sum(int(part.info["nfev"]) for part in parts)
        info["objective_calls"] = ev.calls
        info["non_finite"] = ev.non_finite
        info["held"] = 0 if held is None else int(held[1])
        info["restarts"] = restarts
        info.pop(_FEASIBLE, None)
        return Solution(best.objectives.copy(), state=best.state.copy(), info=info)

    def _scored(
        self,
        sc: Scalarization,
        w: float | FloatArray,
        x: FloatArray,
        ev: _Evaluator,
        info: dict[str, Any],
    ) -> Solution:
        """A solution at ``x`` (evaluated), its ``info`` given ``value`` (the scalarization
        at ``w``; ``inf`` where the objectives are not finite or ``x`` breaks a constraint
        of the user's) and empty counts."""
        h = ev.values(x)
        feasible = bool(np.all(np.isfinite(h))) and _satisfies(x, self.constraints)
        return Solution(
            h.copy(),
            state=np.array(x, dtype=np.float64),
            info={"steps": 0, "nfev": 0, **info, "value": float(sc(h, w)), _FEASIBLE: feasible},
        )

    def _trust_boxed(
        self,
        sc: Scalarization,
        w: float | FloatArray,
        at_start: Solution,
        ev: _Evaluator,
        parts: list[Solution],
        held: tuple[tuple[FloatArray, FloatArray], int] | None,
    ) -> Solution:
        """Solves within a box of half-width :data:`TRUST_RADIUS` of the bounds' widths
        about the start, moved to each solve's end while it lowers the scalarization and
        ends on the small box's side (at most :data:`TRUST_MOVES` solves): where the full
        solve's first steps overshoot into a higher basin (ZDT6's humps), the start's own
        basin is searched, the first solve with the variables ``held`` on their bounds as
        the full solve's was. ``at_start`` when there is no box or no solve lowers it; the
        solves are added to ``parts``."""
        if self.bounds is None:
            return at_start
        lb, ub = self.bounds
        radius = TRUST_RADIUS * (ub - lb)
        best = at_start
        for move in range(TRUST_MOVES):
            x = best.state
            box_lb, box_ub = held[0] if held is not None and move == 0 else (lb, ub)
            low, high = np.maximum(box_lb, x - radius), np.minimum(box_ub, x + radius)
            trial = self._minimize(sc, w, x, None, ev, (low, high))
            parts.append(trial)
            if not _score(trial) < _score(best) - _SCORE_TOL * abs(_score(best)):
                break
            best = trial
            y = trial.state
            inside = ((y > low) | (low == lb)) & ((y < high) | (high == ub))
            if np.all(inside):
                break
        return best

    def _from_stationary(
        self,
        sc: Scalarization,
        w: float | FloatArray,
        at_start: Solution,
        ev: _Evaluator,
        parts: list[Solution],
    ) -> Solution:
        """Solves from the lowest of the points :data:`STILL_STEP` of the widths from the
        start along each variable inside its bounds, where that point scores lower than the
        start: the start was a stationary point (a solve ended there) but not a minimum.
        The solves stay near that point (:meth:`_trust_boxed`, the variables on a bound held
        there for the first). ``at_start`` where no move is lower; the solves are added to
        ``parts``."""
        assert self.bounds is not None
        lb, ub = self.bounds
        x0 = np.asarray(at_start.state, dtype=np.float64)
        step = STILL_STEP * (ub - lb)
        best = at_start
        # (a variable without a finite box has no width to take a share of: not moved)
        for i in np.flatnonzero((x0 > lb) & (x0 < ub) & np.isfinite(ub - lb)):
            for sign in (-1.0, 1.0):
                x = x0.copy()
                x[i] = float(np.clip(x0[i] + sign * step[i], lb[i], ub[i]))
                trial = self._scored(sc, w, x, ev, {"success": True, "message": ""})
                if _score(trial) < _score(best) - _SCORE_TOL * abs(_score(best)):
                    best = trial
        if best is at_start:
            return at_start
        # within the small box about that point (a full solve from it overshot into other
        # humps of ZDT6's f1, or onto its flat top, in 9 of 16 weights)
        near = self._trust_boxed(sc, w, best, ev, parts, _held_at_bounds(best.state, self.bounds))
        return near if _score(near) < _score(best) else best

    def _snapped(
        self, sc: Scalarization, w: float | FloatArray, sol: Solution, ev: _Evaluator
    ) -> Solution | None:
        """``sol`` with its variables within :data:`BOUND_SNAP` of a bound put on it, where
        that scores no higher (``None`` when none is near one, or it scores higher)."""
        if self.bounds is None:
            return None
        lb, ub = self.bounds
        x = np.array(sol.state, dtype=np.float64)
        near = BOUND_SNAP * (ub - lb)
        low = (x - lb < near) & (x != lb)
        high = (ub - x < near) & (x != ub)
        if not (low.any() or high.any()):
            return None
        x[low], x[high] = lb[low], ub[high]
        snapped = self._scored(sc, w, x, ev, dict(sol.info))
        return snapped if _score(snapped) <= _score(sol) else None

    def _minimize(
        self,
        sc: Scalarization,
        w: float | FloatArray,
        start: FloatArray,
        steps: int | None,
        ev: _Evaluator,
        bounds: tuple[FloatArray, FloatArray] | None,
    ) -> Solution:
        """One run of the method from ``start`` within ``bounds``; ``info["value"]`` is the
        scalarization at the end (``inf`` where the end breaks a constraint of the user's
        or its objectives are not finite)."""
        coef = sc.coefficients(w)
        options = dict(self.options)
        if steps is not None:
            options["maxiter"] = steps
        uses_gradient = LINEAR_METHODS[self.method][2]
        kwargs: dict[str, Any] = {"method": self.method, "options": options}
        if sc.kind == "linear":
            # SLSQP's ftol is absolute: a constrained problem is scaled (see _problem_scale);
            # without constraints of the user's (the ideal point's corner solves, say) the
            # problem stays as it is, as the warm starts of surf_simplex's "asf" runs need
            scale = 1.0
            if self.method == "SLSQP" and self.constraints:
                scale = _problem_scale(sc, coef, ev.values(start))
                options.setdefault("ftol", SLSQP_FTOL)
            if self.method == "L-BFGS-B":
                options.setdefault("ftol", _lbfgsb_ftol(coef))
            lin = _LinearObjective(ev, coef / scale)
            if uses_gradient and self.jac is not None:
                kwargs["jac"] = lin.gradient
            if bounds is not None:
                kwargs["bounds"] = Bounds(*bounds)
            if self.constraints:
                kwargs["constraints"] = self.constraints
            res = minimize(lin, start, **kwargs)
            x = np.asarray(res.x, dtype=np.float64)
        else:
            assert sc.ideal is not None
            # the epigraph form keeps its own scale, the largest term |c_m (h_m - z_m)| at the
            # start (the floor of _problem_scale made warm-started DTLZ1 solves under "asf"
            # stop far from the front)
            scale = float(np.max(np.abs(coef * (ev.values(start) - sc.ideal))))
            epi = _Epigraph(
                ev, coef, sc.ideal, sc.rho, scale if np.isfinite(scale) and scale > 0 else 1.0
            )
            if self.method == "SLSQP":
                options.setdefault("ftol", SLSQP_FTOL)
            elif sc.rho == 0.0:
                # trust-constr: the objective t is linear, its Hessian zero
                kwargs["hess"] = _zero_hessian
            if self.jac is not None:
                kwargs["jac"] = epi.gradient
            if bounds is not None:
                lb, ub = bounds
                kwargs["bounds"] = Bounds(np.append(lb, -np.inf), np.append(ub, np.inf))
            kwargs["constraints"] = [
                epi.constraint_dict(self.jac is not None),
                *(_lift(c) for c in self.constraints),
            ]
            res = minimize(epi, np.append(start, epi.t_start(start)), **kwargs)
            x = np.asarray(res.x[:-1], dtype=np.float64)
        if bounds is not None:
            x = np.clip(x, *bounds)
        info: dict[str, Any] = {
            "steps": int(getattr(res, "nit", 0)),
            "nfev": int(getattr(res, "nfev", 0)),
            "success": bool(res.success),
            "message": str(res.message),
            "objective_calls": ev.calls,
            "non_finite": ev.non_finite,
        }
        if sc.needs_ideal and sc.ideal is not None:
            info["ideal"] = sc.ideal.tolist()
        return self._scored(sc, w, x, ev, info)

    def _corner_values(self) -> FloatArray:
        """The objectives at the minimizers of each objective alone from ``x0`` (full
        solves, linear scalarization at the corners of the weight simplex), (M, M); solved
        once, then kept (the ideal point's estimate and the units of three or more
        objectives share them)."""
        if self._corners is None:
            linear = Scalarization("linear")
            corners: list[float | FloatArray] = (
                [1.0, 0.0] if self.n_objectives == 2 else list(np.eye(self.n_objectives))
            )
            at_x0 = self.evaluate(self.x0)
            self._at_x0 = at_x0
            found = []
            for k, w in enumerate(corners):
                solved = self._run(linear, w, self.x0, None)
                values = solved.objectives
                # a corner solve that did not move from x0 may sit on a flat spot (DTLZ4's
                # x^100 at the box centre): solved again from the box's screened point of
                # least value where that is lower (a solve that moved found a minimum, which
                # the run's ideal point, following the points, corrects where it is local)
                start = None
                if (
                    self.bounds is not None
                    and self._boxed()
                    and _still(solved.state, self.x0, self.bounds)
                ):
                    start, _ = self._screened_start(k, values[None, :], at_x0)
                if start is not None:
                    again = self._run(linear, w, start, None).objectives
                    if np.all(np.isfinite(again)) and again[k] < values[k]:
                        values = again
                found.append(values)
            self._corners = np.array(found)
        return self._corners.copy()

    def __repr__(self) -> str:
        return (
            f"ScipySolver(scalarization={self.scalarization.kind!r}, "
            f"method={self.method!r}, steps={self.steps}, n={self.x0.size})"
        )


def _in_units(sc: Scalarization, corners: FloatArray) -> Scalarization:
    """``sc`` measuring two objectives in units of their ranges between the ends
    (``corners``: each objective minimized alone), the larger range 1, so that its weights
    and floor act alike on objectives of any size (a floor of ``1e-4`` on an objective 1,000
    times larger than the other stopped the end solves 10% short of the front's end); as it
    is with three or more objectives (:func:`paretosurf.surf_simplex` lays its weights out in
    its own coordinates) or where a range is zero or not finite.

    Examples
    --------
    >>> import numpy as np
    >>> tch = Scalarization("tchebycheff", ideal=[0.0, 0.0])
    >>> _in_units(tch, np.array([[0.0, 1000.0], [1.0, 0.0]])).scales.tolist()
    [0.001, 1.0]
    """
    ranges = np.ptp(np.asarray(corners, dtype=np.float64), axis=0)
    if ranges.size != 2 or not np.all(np.isfinite(ranges) & (ranges > 0)):
        return sc
    return Scalarization(
        sc.kind, ideal=sc.ideal, rho=sc.rho, floor=sc.floor, scales=ranges / ranges.max()
    )


def _corner_units(corners: FloatArray) -> FloatArray | None:
    """Each objective's range over the corner solves (``corners``, row ``k`` with objective
    ``k`` minimized alone); ``None`` where one is zero or not finite (the corner solves
    ended where that objective does not vary: no evidence of its units).

    A corner solve finds the same decision whatever the units of the objectives, so the
    ranges scale with them: an objective multiplied by 100 has a range 100 times larger.

    Examples
    --------
    >>> import numpy as np
    >>> corners = np.array([[0.0, 1.0, 1.0], [100.0, 0.0, 1.0], [100.0, 1.0, 0.0]])
    >>> _corner_units(corners).tolist()
    [100.0, 1.0, 1.0]
    """
    values = np.asarray(corners, dtype=np.float64)
    units = np.ptp(values, axis=0)
    flat = units <= 1e-12 * np.max(np.abs(values), axis=0)
    if np.any(flat) or not np.all(np.isfinite(units) & (units > 0)):
        return None
    return np.asarray(units, dtype=np.float64)


def _spread(units: FloatArray) -> float:
    """The largest unit over the smallest."""
    return float(np.max(units) / np.min(units))


def _with_scales(sc: Scalarization, scales: FloatArray) -> Scalarization:
    """``sc`` measuring the objectives in ``scales``."""
    return Scalarization(sc.kind, ideal=sc.ideal, rho=sc.rho, floor=sc.floor, scales=scales)


#: Relative margin by which a restart must score lower to count as progress.
_SCORE_TOL = 1e-12


#: The key under which a part of a full solve notes whether its end is feasible.
_FEASIBLE = "_feasible"


def _score(sol: Solution) -> float:
    """A part of a solve's scalarization at its end (``inf``: not finite or infeasible)."""
    value = float(sol.info["value"])
    return value if sol.info.get(_FEASIBLE, True) and np.isfinite(value) else np.inf


def _still(x: FloatArray, start: FloatArray, bounds: tuple[FloatArray, FloatArray]) -> bool:
    """Whether a solve ended at ``x`` where it started (within :data:`STILL_TOL` of each
    variable's width, or of its size where it has no finite box)."""
    lb, ub = bounds
    width = ub - lb
    # a variable without a finite box: the share of its own size
    scale = np.where(np.isfinite(width), width, np.maximum(1.0, np.abs(start)))
    return bool(np.all(np.abs(x - start) <= STILL_TOL * np.maximum(scale, 1e-300)))


def _held_at_bounds(
    start: FloatArray, bounds: tuple[FloatArray, FloatArray] | None
) -> tuple[tuple[FloatArray, FloatArray], int] | None:
    """The box with the variables that ``start`` has on a bound held there (lower = upper
    bound: scipy then leaves them out of the problem), and how many; ``None`` when none is
    on a bound, or every one is.

    Examples
    --------
    >>> import numpy as np
    >>> box = (np.zeros(3), np.ones(3))
    >>> (lo, hi), n = _held_at_bounds(np.array([0.5, 0.0, 1.0]), box)
    >>> lo.tolist(), hi.tolist(), n
    ([0.0, 0.0, 1.0], [1.0, 0.0, 1.0], 2)
    >>> _held_at_bounds(np.array([0.5, 0.5, 0.5]), box) is None
    True
    """
    if bounds is None:
        return None
    lb, ub = bounds
    on = (start <= lb) | (start >= ub)
    if not on.any() or on.all():
        return None
    return (np.where(on, start, lb), np.where(on, start, ub)), int(on.sum())


# -- the ends' solves ------------------------------------------------------------------


def _moves(values: FloatArray, start: FloatArray | None = None) -> FloatArray:
    """Per objective, how far the end solves' ``values`` (rows) spread, and moved from the
    objectives at ``start``: the unit in which ends agree or differ (a floor of ``1e-12``
    times the values' size keeps it positive)."""
    spread = np.ptp(values, axis=0)
    if start is not None:
        spread = np.maximum(spread, np.abs(start - values.min(axis=0)))
    floor = 1e-12 * np.maximum(1.0, np.max(np.abs(values), axis=0))
    return np.maximum(spread, floor)


def _ends_differ(values: list[FloatArray], start_values: FloatArray) -> bool:
    """Whether the end solves' objectives differ by more than :data:`END_AGREE_TOL` of how
    far they moved (:func:`_moves`)."""
    h = np.array(values)
    return bool(np.any(np.ptp(h, axis=0) > END_AGREE_TOL * _moves(h, start_values)))


def _best_end(
    ends: list[tuple[FloatArray, FloatArray, int]], k: int, start_values: FloatArray
) -> tuple[FloatArray, FloatArray, int]:
    """The lexicographic best of the end solves: objective ``k`` within
    :data:`END_AGREE_TOL` of its least (in the unit of :func:`_moves`), then the others' sum
    in the same units; the earliest on ties."""
    h = np.array([e[1] for e in ends])
    unit = _moves(h, start_values)
    near = h[:, k] <= h[:, k].min() + END_AGREE_TOL * unit[k]
    others = np.delete(h / unit, k, axis=1).sum(axis=1)
    candidates = np.flatnonzero(near)
    return ends[int(candidates[np.argmin(others[candidates])])]


def _end_proxy(
    evaluate: Callable[[FloatArray], FloatArray],
    k: int,
    values: FloatArray,
    start_values: FloatArray,
) -> Callable[[FloatArray], float]:
    """The global search's objective for end ``k``: objective ``k`` plus
    :data:`END_PROXY_WEIGHT` times the others, each in the unit of :func:`_moves`."""
    unit = _moves(values, start_values)
    weights = np.full(unit.size, END_PROXY_WEIGHT)
    weights[k] = 1.0
    coef = weights / unit

    def proxy(x: FloatArray) -> float:
        return float(coef @ evaluate(x))

    return proxy


# -- objective evaluation ----------------------------------------------------------------


class _Evaluator:
    """Objectives and Jacobian at ``x``, remembering the last few points (scipy asks for the
    objective and the constraints at the same iterate)."""

    def __init__(
        self,
        objectives: Callable[[FloatArray], ArrayLike],
        jac: Callable[[FloatArray], ArrayLike] | None,
        n: int,
        m: int,
    ) -> None:
        self._objectives = objectives
        self._jac = jac
        self._n = n
        self._m = m
        self._values: dict[bytes, FloatArray] = {}
        self._jacobians: dict[bytes, FloatArray] = {}
        self.calls = 0
        #: Calls of ``objectives`` that returned a NaN or an infinite value (the solver's
        #: steps left the objectives' domain: a log of 0, a square root of a negative number).
        self.non_finite = 0

    def values(self, x: FloatArray) -> FloatArray:
        key = np.asarray(x, dtype=np.float64).tobytes()
        out = self._values.get(key)
        if out is None:
            out = _as_values(
                self._objectives(np.array(x, dtype=np.float64)), "objectives(x)", self._m
            )
            self.calls += 1
            if not np.all(np.isfinite(out)):
                self.non_finite += 1
            _remember(self._values, key, out)
        return out

    def jacobian(self, x: FloatArray) -> FloatArray:
        assert self._jac is not None
        key = np.asarray(x, dtype=np.float64).tobytes()
        out = self._jacobians.get(key)
        if out is None:
            out = _as_jacobian(self._jac(np.array(x, dtype=np.float64)), self._n, self._m)
            _remember(self._jacobians, key, out)
        return out


def _lbfgsb_ftol(coef: FloatArray) -> float:
    """L-BFGS-B's ``ftol`` for the weighted sum with coefficients ``coef``: scipy's default
    relative to the smallest positive coefficient's share of the largest."""
    positive = coef[coef > 0]
    if positive.size == 0:
        return LBFGSB_FTOL
    return LBFGSB_FTOL * float(positive.min() / positive.max())


def _remember(cache: dict[bytes, FloatArray], key: bytes, value: FloatArray) -> None:
    if len(cache) >= _CACHE_SIZE:
        cache.pop(next(iter(cache)))
    cache[key] = value


class _LinearObjective:
    """``c . h(x)`` and its gradient ``c . J(x)``."""

    def __init__(self, ev: _Evaluator, coef: FloatArray) -> None:
        self.ev, self.coef = ev, coef

    def __call__(self, x: FloatArray) -> float:
        return float(self.coef @ self.ev.values(x))

    def gradient(self, x: FloatArray) -> FloatArray:
        return self.coef @ self.ev.jacobian(x)


class _Epigraph:
    """Epigraph form of a Tchebycheff scalarization over ``y = (x, t)``: the objective
    ``t + rho * sum_m c_m (h_m - z_m) / s`` and the constraints ``t - c_m (h_m - z_m) / s >=
    0``, with a common scale ``s > 0``."""

    def __init__(
        self, ev: _Evaluator, coef: FloatArray, ideal: FloatArray, rho: float, scale: float
    ) -> None:
        self.ev, self.coef, self.ideal, self.rho, self.scale = ev, coef, ideal, rho, scale

    def terms(self, x: FloatArray) -> FloatArray:
        return self.coef * (self.ev.values(x) - self.ideal) / self.scale

    def t_start(self, x: FloatArray) -> float:
        return float(np.max(self.terms(x)))

    def __call__(self, y: FloatArray) -> float:
        return float(y[-1] + self.rho * np.sum(self.terms(y[:-1])))

    def gradient(self, y: FloatArray) -> FloatArray:
        return np.append(self.rho * (self.coef @ self.ev.jacobian(y[:-1])) / self.scale, 1.0)

    def constraint(self, y: FloatArray) -> FloatArray:
        return y[-1] - self.terms(y[:-1])

    def constraint_jacobian(self, y: FloatArray) -> FloatArray:
        jac = -self.coef[:, None] * self.ev.jacobian(y[:-1]) / self.scale
        return np.hstack([jac, np.ones((jac.shape[0], 1))])

    def constraint_dict(self, with_jacobian: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "ineq", "fun": self.constraint}
        if with_jacobian:
            out["jac"] = self.constraint_jacobian
        return out


def _problem_scale(sc: Scalarization, coef: FloatArray, start_values: FloatArray) -> float:
    """The factor a constrained linear SLSQP problem is divided by: the largest term
    ``max(c_m, floor) * |h_m - z_m|`` at the start (``z = 0`` for linear scalarization), or 1
    when that is 0 or not finite.

    SLSQP's ``ftol`` is an absolute change of the objective; divided by this scale it becomes
    relative, so that the default ``SLSQP_FTOL`` means the same on objectives of any size.
    The floor (the Tchebycheff coefficients' own) keeps the scale from vanishing at ``w = 0``
    and ``w = 1`` when the one weighted objective starts at 0 (a warm start at its minimum):
    the other objective's size then sets it, times ``floor``.
    """
    offset = 0.0 if sc.ideal is None or sc.kind == "linear" else sc.ideal
    terms = np.maximum(np.abs(coef), sc.floor) * np.abs(start_values - offset)
    scale = float(np.max(terms))
    return scale if np.isfinite(scale) and scale > 0 else 1.0


def _zero_hessian(y: FloatArray) -> FloatArray:
    return np.zeros((y.size, y.size))


# -- user constraints in the epigraph form -------------------------------------------------


class _OnX:
    """A function of ``x`` called on ``y = (x, t)``."""

    def __init__(self, fun: Callable[..., Any]) -> None:
        self.fun = fun

    def __call__(self, y: FloatArray, *args: Any) -> Any:
        return self.fun(y[:-1], *args)


class _JacobianOnX:
    """A Jacobian in ``x`` called on ``y = (x, t)``, with a zero column for ``t``."""

    def __init__(self, jac: Callable[..., Any]) -> None:
        self.jac = jac

    def __call__(self, y: FloatArray, *args: Any) -> FloatArray:
        jac = np.atleast_2d(np.asarray(self.jac(y[:-1], *args), dtype=np.float64))
        return np.hstack([jac, np.zeros((jac.shape[0], 1))])


class _HessianOnX:
    """A constraint Hessian ``hess(x, v)`` called on ``y``, padded with a zero row and
    column for ``t`` (trust-constr)."""

    def __init__(self, hess: Callable[..., Any]) -> None:
        self.hess = hess

    def __call__(self, y: FloatArray, v: FloatArray) -> FloatArray:
        hess = np.asarray(self.hess(y[:-1], v), dtype=np.float64)
        return np.pad(hess, ((0, 1), (0, 1)))


def _lift(con: Any) -> Any:
    """A user constraint on ``x`` as a constraint on ``y = (x, t)``."""
    if isinstance(con, LinearConstraint):
        a = np.atleast_2d(np.asarray(con.A, dtype=np.float64))
        return LinearConstraint(
            np.hstack([a, np.zeros((a.shape[0], 1))]),
            con.lb,
            con.ub,
            keep_feasible=con.keep_feasible,
        )
    if isinstance(con, NonlinearConstraint):
        jac = _JacobianOnX(con.jac) if callable(con.jac) else con.jac
        hess = _HessianOnX(con.hess) if callable(con.hess) else con.hess
        return NonlinearConstraint(
            _OnX(con.fun), con.lb, con.ub, jac=jac, hess=hess, keep_feasible=con.keep_feasible
        )
    out = dict(con)
    out["fun"] = _OnX(con["fun"])
    if callable(con.get("jac")):
        out["jac"] = _JacobianOnX(con["jac"])
    return out


# -- validation --------------------------------------------------------------------------


def _as_values(raw: object, what: str, m: int | None = None) -> FloatArray:
    """The objective values ``raw`` as a vector: of ``m`` entries, or of 2 or more when
    ``m`` is not known yet."""
    try:
        h = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError):
        h = np.empty(0)
    if (h.size != m) if m is not None else (h.ndim > 1 or h.size < 2):
        want = f"{m} values" if m is not None else "2 or more values"
        raise ValueError(f"{what} must return {want} (one per objective), got {raw!r}")
    return h.reshape(h.size)


def _check_ideal_length(sc: Scalarization, m: int, *, given_here: bool) -> None:
    """Refuse an ideal point (the only per-objective argument) without one entry per objective:
    it would only fail later, in every solve, with a broadcasting error."""
    if sc.ideal is None or sc.ideal.size == m:
        return
    where = "ideal" if given_here else "the Scalarization's ideal"
    raise ValueError(
        f"{where} has {sc.ideal.size} entries ({sc.ideal.tolist()}), but "
        f"objectives(x0) returns {m} values: give one ideal value per objective "
        f"(length {m})"
    )


def _as_jacobian(raw: object, n: int, m: int) -> FloatArray:
    """The Jacobian ``raw`` as an (m, n) array, row ``k`` the gradient of objective ``k``.

    Only that shape is taken: a flat array or the (n, m) transpose would be reshaped into a
    wrong Jacobian (its entries in the wrong places) and mislead the solver. With ``m == n`` a
    transposed Jacobian has the right shape and cannot be told apart.
    """
    jac: FloatArray | None
    try:
        jac = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError):
        jac = None
    if jac is None or jac.shape != (m, n):
        try:
            shape: object = np.shape(np.asarray(raw, dtype=object))
        except ValueError:  # ragged nested sequences
            shape = "of ragged rows"
        hint = (
            " (the transpose: stack the gradients as rows, e.g. np.stack(grads, axis=0))"
            if shape == (n, m)
            else ""
        )
        raise ValueError(
            f"jac(x) must return the ({m}, {n}) Jacobian of the objectives (M, n): "
            f"row k the gradient of objective k; got shape {shape}{hint}"
        )
    return jac


def _as_x0(x0: ArrayLike) -> FloatArray:
    try:
        x = np.array(x0, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"x0 must be a 1-D array of numbers, got {x0!r}") from exc
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"x0 must be a non-empty 1-D array, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"x0 must be finite, got {x.tolist()}")
    return x


def _as_bounds(bounds: Any, n: int) -> tuple[FloatArray, FloatArray] | None:
    if bounds is None:
        return None
    if isinstance(bounds, Bounds):
        lb = np.broadcast_to(np.asarray(bounds.lb, dtype=np.float64), (n,)).copy()
        ub = np.broadcast_to(np.asarray(bounds.ub, dtype=np.float64), (n,)).copy()
    else:
        pairs = list(bounds)
        if len(pairs) != n or any(np.size(p) != 2 for p in pairs):
            raise ValueError(
                f"bounds must be {n} (low, high) pairs or a scipy.optimize.Bounds, got {bounds!r}"
            )
        lb = np.array([-np.inf if p[0] is None else p[0] for p in pairs], dtype=np.float64)
        ub = np.array([np.inf if p[1] is None else p[1] for p in pairs], dtype=np.float64)
    if np.any(np.isnan(lb) | np.isnan(ub)) or np.any(lb > ub):
        raise ValueError(
            f"bounds must have low <= high, got low {lb.tolist()} and high {ub.tolist()}"
        )
    if np.all(np.isneginf(lb) & np.isposinf(ub)):
        return None
    return lb, ub


def _satisfies(x: FloatArray, constraints: list[Any], tol: float = 1e-8) -> bool:
    """Whether ``x`` satisfies the constraints: dicts (``ineq``: ``fun >= -tol``; ``eq``:
    ``|fun| <= tol``) and scipy's ``LinearConstraint`` and ``NonlinearConstraint`` (``lb
    <= value <= ub`` within ``tol`` times ``max(1, |bound|)``).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.optimize import LinearConstraint
    >>> budget = LinearConstraint(np.ones((1, 2)), 1.0, 1.0)
    >>> _satisfies(np.array([0.25, 0.75]), [budget]), _satisfies(np.array([0.5, 0.6]), [budget])
    (True, False)
    """
    for con in constraints:
        if isinstance(con, Mapping):
            value = np.asarray(con["fun"](x, *con.get("args", ())), dtype=np.float64)
            if con["type"] == "ineq" and not np.all(value >= -tol):
                return False
            if con["type"] == "eq" and not np.all(np.abs(value) <= tol):
                return False
            continue
        if isinstance(con, LinearConstraint):
            value = np.atleast_1d(np.asarray(con.A @ x, dtype=np.float64))
        elif isinstance(con, NonlinearConstraint):
            value = np.atleast_1d(np.asarray(con.fun(x), dtype=np.float64))
        else:
            continue
        lb = np.broadcast_to(np.asarray(con.lb, dtype=np.float64), value.shape)
        ub = np.broadcast_to(np.asarray(con.ub, dtype=np.float64), value.shape)
        with np.errstate(invalid="ignore"):
            slack_lb = tol * np.maximum(1.0, np.where(np.isfinite(lb), np.abs(lb), 1.0))
            slack_ub = tol * np.maximum(1.0, np.where(np.isfinite(ub), np.abs(ub), 1.0))
        if not (np.all(value >= lb - slack_lb) and np.all(value <= ub + slack_ub)):
            return False
    return True


def _as_constraints(constraints: Any) -> list[Any]:
    if constraints is None:
        return []
    items = (
        [constraints]
        if isinstance(constraints, (dict, LinearConstraint, NonlinearConstraint))
        else list(constraints)
        if isinstance(constraints, Iterable)
        else None
    )
    if items is None:
        raise TypeError(
            "constraints must be a dict, LinearConstraint, NonlinearConstraint "
            f"or a sequence of them, got {type(constraints).__name__}"
        )
    for con in items:
        if isinstance(con, (LinearConstraint, NonlinearConstraint)):
            continue
        if (
            not isinstance(con, Mapping)
            or con.get("type") not in ("eq", "ineq")
            or not callable(con.get("fun"))
        ):
            raise TypeError(
                "each constraint must be a LinearConstraint, a "
                "NonlinearConstraint or a dict with 'type' ('eq' or 'ineq') and "
                f"a callable 'fun', got {con!r}"
            )
    return [dict(c) if isinstance(c, Mapping) else c for c in items]


def _choose_method(kind: str, method: str | None, has_bounds: bool, has_constraints: bool) -> str:
    smooth = kind == "linear"
    if method is None:
        return "L-BFGS-B" if smooth and not has_constraints else "SLSQP"
    names = {name.lower(): name for name in LINEAR_METHODS}
    if not isinstance(method, str) or method.lower() not in names:
        raise ValueError(f"method must be one of {list(LINEAR_METHODS)}, got {method!r}")
    name = names[method.lower()]
    takes_bounds, takes_constraints, _ = LINEAR_METHODS[name]
    if not smooth and name not in EPIGRAPH_METHODS:
        raise ValueError(
            f"method {name!r} cannot solve scalarization {kind!r}: a Tchebycheff "
            "scalarization is not smooth and is solved in epigraph form (minimize t subject "
            f"to c_m (h_m - z_m) <= t), which needs a method with constraints: "
            f"{list(EPIGRAPH_METHODS)}"
        )
    if has_constraints and not takes_constraints:
        raise ValueError(
            f"method {name!r} cannot take constraints; use one of "
            f"{[m for m, caps in LINEAR_METHODS.items() if caps[1]]}"
        )
    if has_bounds and not takes_bounds:
        raise ValueError(
            f"method {name!r} cannot take bounds; use one of "
            f"{[m for m, caps in LINEAR_METHODS.items() if caps[0]]}"
        )
    return name


def _as_options(options: Mapping[str, Any] | None, steps: int | None) -> dict[str, Any]:
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(
            f"options must be a mapping of scipy method options, got {type(options).__name__}"
        )
    if steps is not None and "maxiter" in options:
        raise ValueError("give the per-call budget once: steps or options['maxiter'], not both")
    if "maxiter" in options:
        maxiter = options["maxiter"]
        if isinstance(maxiter, bool) or not isinstance(maxiter, numbers.Integral) or maxiter < 1:
            raise ValueError(f"options['maxiter'] must be an integer >= 1, got {maxiter!r}")
    return dict(options)
