"""A bank of two-objective problems whose true Pareto fronts are known independently of
paretosurf, for judging whole-front runs (``benchmarks/bench_whole_front.py``).

Each :class:`Entry` has a name, a factory that builds a paretosurf inner solver the way a
new user would (:func:`paretosurf.adapters.from_scipy`, :func:`~paretosurf.adapters.from_pymoo`,
:func:`~paretosurf.adapters.from_torch`, or a plain ``(w, state) -> ps.Solution`` function
for the problems with an exact solver) and a :class:`ReferenceFront`: Pareto-optimal objective
vectors sampled densely (500 points or more) along the *true* front, in pieces where the
front is disconnected. The references never come from paretosurf:

- closed forms where one exists (the ZDT problems, the two-bar truss, the ridge path, the
  linear torch model, the flat-face quadratic), sampled at adaptively refined parameters so
  that consecutive points are close in the front's normalized coordinates;
- scikit-learn's ``lasso_path`` (many alphas) plus the least-squares end for the lasso;
- Newton's method on the strongly convex regularized problems for the logistic path, whose
  ``w = 1`` end has no minimizer (the reference is truncated; ``extended`` continues it);
- an epsilon-constraint sweep (minimize ``f1`` subject to ``f2 <= eps`` with several SLSQP
  starts per ``eps``, the best kept, then a non-dominated filter) for the welded beam.

Expensive references are cached in memory (:func:`functools.cache`, an unbounded
``lru_cache``), so that one benchmark run computes each once.

    import sys; sys.path.insert(0, "benchmarks")
    import whole_front_bank as bank
    entry = bank.get("welded_beam")
    solver = entry.solver("linear")
    ref = entry.reference()            # ReferenceFront: .points (R, 2), .pieces, .x
"""

from __future__ import annotations

import dataclasses
import functools
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import moocore
import numpy as np
import scipy.optimize
from numpy.typing import NDArray

import paretosurf as ps

FloatArray = NDArray[np.float64]

#: Largest chord, in the front's normalized coordinates, between consecutive points of a
#: closed-form reference (adaptive refinement stops below it).
REFINE_CHORD = 2e-3
#: Gap, in normalized coordinates, above which an epsilon-constraint front is split into
#: pieces (its points are more than ten times closer than this where it is connected).
PIECE_GAP = 0.05


# --------------------------------------------------------------------------------------
# Reference fronts
# --------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ReferenceFront:
    """A densely sampled true Pareto front, in one piece or several.

    Parameters
    ----------
    pieces : tuple of ndarray of shape (k, 2)
        The connected pieces of the front, each sorted by increasing ``f1`` (so decreasing
        ``f2``), the pieces in order of ``f1``. A piece may be a single point.
    x : ndarray of shape (R, n), optional
        The decision vectors of :attr:`points`, row for row, where the reference keeps them.
    """

    pieces: tuple[FloatArray, ...]
    x: FloatArray | None = None

    @property
    def points(self) -> FloatArray:
        """All reference points, shape (R, 2), sorted by ``f1``."""
        return np.concatenate(self.pieces, axis=0)

    @property
    def ideal(self) -> FloatArray:
        """Componentwise minimum of the reference points."""
        return self.points.min(axis=0)

    @property
    def nadir(self) -> FloatArray:
        """Componentwise maximum of the reference points (the front's nadir)."""
        return self.points.max(axis=0)

    def normalize(self, f: Any, frame: ReferenceFront | None = None) -> FloatArray:
        """Map objective vectors to coordinates where the reference spans ``[0, 1]^2``.

        Parameters
        ----------
        f : array_like of shape (k, 2)
            Objective vectors.
        frame : ReferenceFront, optional
            Normalize by this front's ideal and nadir instead (e.g. the untruncated
            reference of an extended one).

        Returns
        -------
        ndarray of shape (k, 2)
        """
        src = self if frame is None else frame
        lo, hi = src.ideal, src.nadir
        return (np.asarray(f, dtype=float) - lo) / np.where(hi > lo, hi - lo, 1.0)

    def distance(self, f: Any, frame: ReferenceFront | None = None) -> FloatArray:
        """Distance of each objective vector to the front, in normalized coordinates.

        The distance is to the nearest piece's polyline (pieces are not joined to one
        another, so a point in the gap between two pieces is off the front).

        Parameters
        ----------
        f : array_like of shape (k, 2)
            Objective vectors.
        frame : ReferenceFront, optional
            As in :meth:`normalize`.

        Returns
        -------
        ndarray of shape (k,)
        """
        p = self.normalize(np.atleast_2d(f), frame)
        best = np.full(p.shape[0], np.inf)
        for piece in self.pieces:
            best = np.minimum(best, polyline_distance(p, self.normalize(piece, frame)))
        return best


def polyline_distance(points: FloatArray, polyline: FloatArray) -> FloatArray:
    """Euclidean distance of each point to a polyline (a single vertex: to that point).

    Parameters
    ----------
    points : ndarray of shape (k, 2)
    polyline : ndarray of shape (r, 2)
        Its vertices, in order.

    Returns
    -------
    ndarray of shape (k,)
    """
    points = np.asarray(points, dtype=float)
    poly = np.asarray(polyline, dtype=float)
    if poly.shape[0] == 1:
        return np.linalg.norm(points - poly[0], axis=1)
    a, b = poly[:-1], poly[1:]
    d = b - a
    dd = np.einsum("ij,ij->i", d, d)
    out = np.empty(points.shape[0])
    for i, p in enumerate(points):
        t = np.einsum("ij,ij->i", p - a, d) / np.where(dd > 0, dd, 1.0)
        t = np.clip(t, 0.0, 1.0)
        out[i] = float(np.sqrt(((a + t[:, None] * d - p) ** 2).sum(axis=1)).min())
    return out


def nondominated(points: FloatArray) -> NDArray[np.bool_]:
    """Mask of the non-dominated rows (minimization; duplicates keep one copy)."""
    return np.asarray(moocore.is_nondominated(points, keep_weakly=False), dtype=bool)


def refine_curve(
    curve: Callable[[FloatArray], FloatArray],
    lo: float,
    hi: float,
    *,
    n_initial: int = 257,
    max_chord: float = REFINE_CHORD,
    max_points: int = 20000,
) -> tuple[FloatArray, FloatArray]:
    """Sample a parametric curve so that normalized chords are at most ``max_chord``.

    Parameters
    ----------
    curve : callable
        ``curve(t) -> (k, 2)`` for parameters ``t`` of shape (k,) (vectorised).
    lo, hi : float
        Parameter interval.
    n_initial : int
        Evenly spaced parameters to start from.
    max_chord : float
        Largest allowed chord between consecutive samples, in coordinates normalized by the
        range of the samples.
    max_points : int
        Stop refining past this many samples.

    Returns
    -------
    t : ndarray of shape (k,)
        The parameters, increasing.
    f : ndarray of shape (k, 2)
        The curve at them.
    """
    t = np.linspace(lo, hi, n_initial)
    f = curve(t)
    while t.size < max_points:
        span = f.max(axis=0) - f.min(axis=0)
        span = np.where(span > 0, span, 1.0)
        chords = np.linalg.norm(np.diff(f, axis=0) / span, axis=1)
        wide = np.flatnonzero(chords > max_chord)
        if wide.size == 0:
            break
        mid = 0.5 * (t[wide] + t[wide + 1])
        t_all = np.concatenate([t, mid])
        f_all = np.concatenate([f, curve(mid)], axis=0)
        order = np.argsort(t_all, kind="stable")
        t, f = t_all[order], f_all[order]
    return t, f


def _sorted_piece(f: FloatArray) -> FloatArray:
    """Rows sorted by ``f1`` (then ``f2``), as a float64 array."""
    f = np.asarray(f, dtype=float)
    return f[np.lexsort((f[:, 1], f[:, 0]))]


def _split_pieces(f: FloatArray, gap: float = PIECE_GAP) -> tuple[FloatArray, ...]:
    """Split points sorted by ``f1`` where a normalized chord exceeds ``gap``."""
    span = f.max(axis=0) - f.min(axis=0)
    span = np.where(span > 0, span, 1.0)
    chords = np.linalg.norm(np.diff(f, axis=0) / span, axis=1)
    cuts = np.flatnonzero(chords > gap) + 1
    return tuple(np.split(f, cuts))


# --------------------------------------------------------------------------------------
# The bank's entries
# --------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Entry:
    """One problem of the bank.

    Parameters
    ----------
    name : str
        Short identifier (``--problems`` of the benchmark).
    kind : {"scipy", "pymoo", "torch", "exact"}
        How the solver is built (``"exact"``: a plain function with a closed-form or
        library-exact solve; it ignores the scalarization).
    description : str
        One line: what the problem is and what it tests.
    make_solver : callable
        ``make_solver(scalarization) -> solver``, a fresh inner solver on every call.
    reference : callable
        ``reference() -> ReferenceFront`` (cached).
    end_has_minimizer : bool
        False where the scalarized problem at an end weight (``w = 0`` or ``1``) has no
        minimizer (an unbounded variable runs off); the reference is then truncated.
    weak_end : {"w=0", "w=1"} or None
        The end whose linear scalarization has a flat face of minimizers: only weakly
        Pareto-optimal points, all but one dominated.
    extended : callable, optional
        ``extended(f2_max) -> ReferenceFront``: the reference continued along the unbounded
        end until ``f2`` reaches ``f2_max`` (only where ``end_has_minimizer`` is False).
    """

    name: str
    kind: str
    description: str
    make_solver: Callable[[str], Any]
    reference: Callable[[], ReferenceFront]
    end_has_minimizer: bool = True
    weak_end: str | None = None
    extended: Callable[[float], ReferenceFront] | None = None

    def solver(self, scalarization: str = "linear") -> Any:
        """A fresh inner solver of this problem under ``scalarization``."""
        return self.make_solver(scalarization)


# --------------------------------------------------------------------------------------
# Welded beam (cost vs end deflection)
# --------------------------------------------------------------------------------------

#: Load (lb), overhang (in), Young's and shear moduli (psi), allowed shear and bending
#: stresses (psi) of the welded beam.
_WB_P, _WB_L, _WB_E, _WB_G = 6000.0, 14.0, 30e6, 12e6
_WB_TAU_MAX, _WB_SIGMA_MAX = 13600.0, 30000.0
#: Bounds of (h, l, t, b): weld thickness, weld length, bar height, bar width (in).
WELDED_BEAM_BOUNDS = ((0.125, 5.0), (0.1, 10.0), (0.1, 10.0), (0.125, 5.0))


def welded_beam_objectives(x: FloatArray) -> FloatArray:
    """Fabrication cost ($) and end deflection (in) of a welded cantilever beam.

    The cost counts the weld material (``1.10471 $/in^3`` times the weld volume ``h^2 l``)
    and the bar stock (``0.04811 $/in^3`` times ``t b (L + l)``). The deflection of a
    cantilever of length ``L`` under the end load ``P`` is ``P L^3 / (3 E I)`` with
    ``I = b t^3 / 12``, i.e. ``4 P L^3 / (E b t^3)``.

    Parameters
    ----------
    x : ndarray of shape (4,)
        ``(h, l, t, b)`` in inches.

    Returns
    -------
    ndarray of shape (2,)
        ``(cost, deflection)``.
    """
    h, ell, t, b = x
    cost = 1.10471 * h * h * ell + 0.04811 * t * b * (_WB_L + ell)
    deflection = 4.0 * _WB_P * _WB_L**3 / (_WB_E * b * t**3)
    return np.array([cost, deflection])


def welded_beam_constraints(x: FloatArray) -> FloatArray:
    """The welded beam's design constraints, as ``g(x) >= 0`` scaled to order one.

    - weld shear stress ``tau <= 13600 psi``: the direct shear ``P / (sqrt(2) h l)`` on the
      throat area and the torsional shear ``M R / J`` of the moment ``M = P (L + l/2)``
      about the weld group's centroid (``R`` the distance to its farthest point, ``J`` its
      polar moment), combined with the angle between them;
    - bending stress at the support ``6 P L / (b t^2) <= 30000 psi``;
    - the weld no thicker than the bar: ``h <= b``;
    - the buckling load ``P_c >= P`` of the bar (Timoshenko's lateral-torsional buckling of a
      narrow rectangular beam, ``4.013 sqrt(E G t^2 b^6 / 36) / L^2 (1 - t sqrt(E / (4 G)) /
      (2 L))``).

    Parameters
    ----------
    x : ndarray of shape (4,)
        ``(h, l, t, b)`` in inches.

    Returns
    -------
    ndarray of shape (4,)
        Each ``>= 0`` where the constraint holds.
    """
    h, ell, t, b = x
    tau_direct = _WB_P / (math.sqrt(2.0) * h * ell)
    moment = _WB_P * (_WB_L + ell / 2.0)
    radius = math.sqrt(ell * ell / 4.0 + ((h + t) / 2.0) ** 2)
    # two welds of throat h / sqrt(2): polar moment of the weld group about its centroid
    polar = 2.0 * (h * ell / math.sqrt(2.0) * (ell * ell / 12.0 + ((h + t) / 2.0) ** 2))
    tau_torsion = moment * radius / polar
    tau = math.sqrt(
        tau_direct**2 + 2.0 * tau_direct * tau_torsion * (ell / 2.0) / radius + tau_torsion**2
    )
    sigma = 6.0 * _WB_P * _WB_L / (b * t * t)
    buckling = (
        4.013
        * math.sqrt(_WB_E * _WB_G * t * t * b**6 / 36.0)
        / _WB_L**2
        * (1.0 - t / (2.0 * _WB_L) * math.sqrt(_WB_E / (4.0 * _WB_G)))
    )
    return np.array(
        [
            1.0 - tau / _WB_TAU_MAX,
            1.0 - sigma / _WB_SIGMA_MAX,
            b - h,
            buckling / _WB_P - 1.0,
        ]
    )


#: A feasible start, away from every bound and constraint.
WELDED_BEAM_X0 = (1.0, 3.0, 5.0, 2.0)


def _welded_beam_solver(scalarization: str) -> Any:
    return ps.adapters.from_scipy(
        welded_beam_objectives,
        x0=np.array(WELDED_BEAM_X0),
        bounds=list(WELDED_BEAM_BOUNDS),
        constraints=[{"type": "ineq", "fun": welded_beam_constraints}],
        scalarization=scalarization,
    )


def epsilon_constraint_front(
    objectives: Callable[[FloatArray], FloatArray],
    constraints: Callable[[FloatArray], FloatArray],
    bounds: Sequence[tuple[float, float]],
    eps: FloatArray,
    *,
    f1_scale: float,
    n_starts: int,
    seed: int,
    start: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """Minimize ``f1`` subject to ``f2 <= eps`` and ``constraints >= 0`` for every ``eps``.

    Each ``eps`` gets SLSQP from the previous ``eps``'s best solution (the sweep goes from
    the largest ``eps`` down), from ``start`` and from ``n_starts`` random points of the
    box; the best feasible solution is kept (feasibility checked again afterwards, to
    ``1e-7``). No paretosurf code is involved.

    Parameters
    ----------
    objectives, constraints : callable
        ``objectives(x) -> (f1, f2)``, ``constraints(x) -> g`` with ``g >= 0`` feasible.
    bounds : sequence of (low, high)
    eps : ndarray of shape (k,)
        Upper bounds on ``f2``, in any order.
    f1_scale : float
        Typical size of ``f1`` (SLSQP minimizes ``f1 / f1_scale``).
    n_starts : int
        Random starts per ``eps``.
    seed : int
        Seed of the random starts.
    start : ndarray of shape (n,)
        A feasible start.

    Returns
    -------
    f : ndarray of shape (m, 2)
        The best objective vectors found (one per ``eps`` where a feasible one was found).
    x : ndarray of shape (m, n)
        Their decision vectors.
    """
    rng = np.random.default_rng(seed)
    lo = np.array([b[0] for b in bounds])
    hi = np.array([b[1] for b in bounds])
    previous = np.asarray(start, dtype=float)
    fs, xs = [], []
    for e in np.sort(np.asarray(eps, dtype=float))[::-1]:

        def all_constraints(x: FloatArray, e: float = e) -> FloatArray:
            return np.append(constraints(x), 1.0 - objectives(x)[1] / e)

        cons = {
            "type": "ineq",
            "fun": all_constraints,
            "jac": lambda x, fun=all_constraints: _central_jacobian(fun, x, lo, hi),
        }
        best_x, best_f1 = None, math.inf
        starts = [previous, np.asarray(start, dtype=float)]
        starts += list(lo + (hi - lo) * rng.random((n_starts, lo.size)))
        for x0 in starts:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = scipy.optimize.minimize(
                    lambda x: objectives(x)[0] / f1_scale,
                    x0,
                    jac=lambda x: _central_jacobian(
                        lambda z: objectives(z)[:1] / f1_scale, x, lo, hi
                    )[0],
                    method="SLSQP",
                    bounds=list(bounds),
                    constraints=cons,
                    options={"maxiter": 500, "ftol": 1e-12},
                )
            x = np.clip(r.x, lo, hi)
            if not np.all(np.isfinite(x)):
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                g = constraints(x)
                f = objectives(x)
            if np.all(np.isfinite(f)) and g.min() >= -1e-7 and f[1] <= e * (1 + 1e-7):
                if f[0] < best_f1:
                    best_x, best_f1 = x, float(f[0])
        if best_x is not None:
            previous = best_x
            fs.append(objectives(best_x))
            xs.append(best_x)
    return np.array(fs), np.array(xs)


def _central_jacobian(
    fun: Callable[[FloatArray], FloatArray], x: FloatArray, lo: FloatArray, hi: FloatArray
) -> FloatArray:
    """Central-difference Jacobian of ``fun`` at ``x`` (one-sided at a bound)."""
    x = np.asarray(x, dtype=float)
    f0 = np.atleast_1d(fun(x))
    jac = np.empty((f0.size, x.size))
    for i in range(x.size):
        h = 1e-7 * max(1.0, abs(x[i]))
        up, down = x.copy(), x.copy()
        up[i] = min(x[i] + h, hi[i])
        down[i] = max(x[i] - h, lo[i])
        jac[:, i] = (np.atleast_1d(fun(up)) - np.atleast_1d(fun(down))) / (up[i] - down[i])
    return jac


def _front_from_sweep(f: FloatArray, x: FloatArray) -> ReferenceFront:
    """Non-dominated filter, sort by ``f1``, split into pieces; keep the decision vectors."""
    keep = nondominated(f)
    f, x = f[keep], x[keep]
    order = np.lexsort((f[:, 1], f[:, 0]))
    f, x = f[order], x[order]
    return ReferenceFront(_split_pieces(f), x)


@functools.cache
def welded_beam_reference(
    n_eps: int = 300, n_starts: int = 3, refine_passes: int = 2
) -> ReferenceFront:
    """The welded beam's front by an epsilon-constraint sweep (cached).

    ``eps`` ranges from the deflection of the cheapest design down to the smallest
    deflection (``t = 10``, ``b = 5``), half the grid evenly spaced and half geometric;
    then the widest gaps are filled with further ``eps`` until every normalized chord is
    below ``5e-3`` (or ``refine_passes`` refinement passes are done).

    Parameters
    ----------
    n_eps : int
        Number of ``eps`` values of the first pass.
    n_starts : int
        Random SLSQP starts per ``eps`` (besides the previous ``eps``'s solution and
        :data:`WELDED_BEAM_X0`).
    refine_passes : int
        Passes that fill the gaps wider than ``5e-3``.
    """
    lo = np.array([b[0] for b in WELDED_BEAM_BOUNDS])
    hi = np.array([b[1] for b in WELDED_BEAM_BOUNDS])
    d_min = float(welded_beam_objectives(np.array([lo[0], lo[1], hi[2], hi[3]]))[1])
    # the cheapest design: a sweep with an eps no design reaches
    cheap_f, _ = epsilon_constraint_front(
        welded_beam_objectives,
        welded_beam_constraints,
        WELDED_BEAM_BOUNDS,
        np.array([1e3]),
        f1_scale=10.0,
        n_starts=4 * n_starts,
        seed=1,
        start=np.array(WELDED_BEAM_X0),
    )
    d_max = float(cheap_f[0, 1])
    half = n_eps // 2
    eps = np.unique(
        np.concatenate([np.linspace(d_min, d_max, half), np.geomspace(d_min, d_max, n_eps - half)])
    )
    f, x = epsilon_constraint_front(
        welded_beam_objectives,
        welded_beam_constraints,
        WELDED_BEAM_BOUNDS,
        eps,
        f1_scale=10.0,
        n_starts=n_starts,
        seed=2,
        start=np.array(WELDED_BEAM_X0),
    )
    for sweep in range(refine_passes):
        front = _front_from_sweep(f, x)
        pts = front.points
        span = pts.max(axis=0) - pts.min(axis=0)
        chords = np.linalg.norm(np.diff(pts, axis=0) / span, axis=1)
        wide = np.flatnonzero(chords > 5e-3)
        if wide.size == 0:
            break
        extra = np.concatenate([np.linspace(pts[i + 1, 1], pts[i, 1], 6)[1:-1] for i in wide])
        f2, x2 = epsilon_constraint_front(
            welded_beam_objectives,
            welded_beam_constraints,
            WELDED_BEAM_BOUNDS,
            extra,
            f1_scale=10.0,
            n_starts=n_starts,
            seed=3 + sweep,
            start=np.array(WELDED_BEAM_X0),
        )
        if f2.size:
            f, x = np.concatenate([f, f2]), np.concatenate([x, x2])
    return _front_from_sweep(f, x)


# --------------------------------------------------------------------------------------
# Two-bar truss (volume vs largest stress)
# --------------------------------------------------------------------------------------

#: Load (kN) at the joint; horizontal distances (m) of the two supports from the joint.
_TRUSS_P, _TRUSS_A, _TRUSS_B = 100.0, 4.0, 1.0
#: Largest allowed stress (MPa); bounds of the cross sections (m^2) and the height (m).
TRUSS_STRESS_MAX = 100.0
TRUSS_BOUNDS = ((1e-4, 0.01), (1e-4, 0.01), (1.0, 3.0))


def truss_stresses(x: FloatArray) -> FloatArray:
    """Stresses (MPa) in the two bars of a truss carrying a vertical load at its joint.

    The joint hangs ``y`` below two supports at horizontal distances 4 m and 1 m. The
    joint's equilibrium (horizontal components cancel, vertical ones carry ``P``) gives
    the bar forces ``F1 = P L1 / (5 y)`` and ``F2 = 4 P L2 / (5 y)``, with bar lengths
    ``L1 = sqrt(16 + y^2)`` and ``L2 = sqrt(1 + y^2)``; stress = force / cross section.

    Parameters
    ----------
    x : ndarray of shape (3,)
        Cross sections ``x1``, ``x2`` (m^2) and height ``y`` (m).

    Returns
    -------
    ndarray of shape (2,)
    """
    x1, x2, y = x
    l1 = math.sqrt(_TRUSS_A**2 + y * y)
    l2 = math.sqrt(_TRUSS_B**2 + y * y)
    share = _TRUSS_A + _TRUSS_B
    f1 = _TRUSS_P * _TRUSS_B / share * l1 / y
    f2 = _TRUSS_P * _TRUSS_A / share * l2 / y
    return np.array([f1 / x1, f2 / x2]) / 1000.0  # kN / m^2 = kPa -> MPa


def truss_objectives(x: FloatArray) -> FloatArray:
    """Volume (m^3) of the two bars and the larger of their stresses (MPa)."""
    x1, x2, y = x
    volume = x1 * math.sqrt(_TRUSS_A**2 + y * y) + x2 * math.sqrt(_TRUSS_B**2 + y * y)
    return np.array([volume, float(truss_stresses(x).max())])


def truss_constraints(x: FloatArray) -> FloatArray:
    """Each bar's stress at most :data:`TRUSS_STRESS_MAX`, as ``g(x) >= 0``."""
    return 1.0 - truss_stresses(x) / TRUSS_STRESS_MAX


def _truss_solver(scalarization: str) -> Any:
    return ps.adapters.from_scipy(
        truss_objectives,
        x0=np.array([0.005, 0.005, 2.0]),
        bounds=list(TRUSS_BOUNDS),
        constraints=[{"type": "ineq", "fun": truss_constraints}],
        scalarization=scalarization,
    )


def truss_front_at(stress: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The truss's Pareto-optimal designs at given largest stresses (closed form).

    At a stress bound ``s`` each bar is as thin as ``s`` allows (``x_i = F_i / s``), so the
    volume is ``(F1 L1 + F2 L2) / s``: with ``P = 100`` kN it is
    ``(400 + 100 y^2) / (1000 y s)`` m^3, smallest at ``y = 2``. Where that needs
    ``x2 > 0.01`` (``s < 8.944`` MPa) the height rises to the least ``y`` with
    ``x2 = 0.01``, ``y = 1 / sqrt((s / 8)^2 - 1)``, down to ``s = 8 sqrt(10) / 3`` at
    ``y = 3``.

    Parameters
    ----------
    stress : ndarray of shape (k,)
        Largest stresses (MPa) in ``[8 sqrt(10) / 3, 100]``.

    Returns
    -------
    f : ndarray of shape (k, 2)
        ``(volume, stress)``.
    x : ndarray of shape (k, 3)
        The designs.
    """
    s = np.asarray(stress, dtype=float)
    y = np.where(
        s >= 4.0 * math.sqrt(5.0), 2.0, 1.0 / np.sqrt(np.maximum((s / 8.0) ** 2 - 1, 1e-300))
    )
    l1, l2 = np.sqrt(16.0 + y * y), np.sqrt(1.0 + y * y)
    x1 = 20.0 * l1 / y / (1000.0 * s)
    x2 = 80.0 * l2 / y / (1000.0 * s)
    volume = x1 * l1 + x2 * l2
    return np.column_stack([volume, s]), np.column_stack([x1, x2, y])


@functools.cache
def truss_reference() -> ReferenceFront:
    """The truss's front in closed form (:func:`truss_front_at`), refined by arc length."""
    s_lo, s_hi = 8.0 * math.sqrt(10.0) / 3.0, TRUSS_STRESS_MAX
    # parametrize by log-stress: the front f1 = 0.4 / f2 is steep at the low-stress end
    t, f = refine_curve(lambda u: truss_front_at(np.exp(u))[0], math.log(s_lo), math.log(s_hi))
    f, x = truss_front_at(np.exp(t))
    order = np.argsort(f[:, 0])
    return ReferenceFront((f[order],), x[order])


# --------------------------------------------------------------------------------------
# Ridge regression path (ill-conditioned), exact solver
# --------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RidgeProblem:
    """Mean squared residual ``||A x - b||^2 / n`` against ``||x||^2``.

    ``A = sqrt(n) U diag(s) V^T`` with a seeded random orthonormal ``U`` (n x d) and ``V``
    (d x d) and singular values ``s`` log-spaced from 1 down to ``1 / condition``.
    """

    a: FloatArray
    b: FloatArray
    u: FloatArray
    s: FloatArray
    vt: FloatArray

    @classmethod
    def make(
        cls, n: int = 200, d: int = 12, condition: float = 1e5, noise: float = 0.01, seed: int = 0
    ) -> RidgeProblem:
        """A seeded instance (condition number ``condition``)."""
        rng = np.random.default_rng(seed)
        u, _ = np.linalg.qr(rng.normal(size=(n, d)))
        v, _ = np.linalg.qr(rng.normal(size=(d, d)))
        s = np.geomspace(1.0, 1.0 / condition, d)
        a = math.sqrt(n) * (u * s) @ v.T
        b = a @ rng.normal(size=d) + noise * rng.normal(size=n)
        uu, ss, vt = np.linalg.svd(a, full_matrices=False)
        return cls(a, b, uu, ss, vt)

    def objectives(self, x: FloatArray) -> FloatArray:
        """``(||A x - b||^2 / n, ||x||^2)``."""
        r = self.a @ x - self.b
        return np.array([r @ r / self.b.size, x @ x])

    def minimizer(self, w: float) -> FloatArray:
        """Solution of ``(w A^T A / n + (1 - w) I) x = w A^T b / n`` through the SVD.

        ``w = 1``: the least-squares solution ``V diag(1/s) U^T b``; ``w = 0``: zero.
        """
        n = self.b.size
        c = self.u.T @ self.b
        s2 = self.s**2 / n
        denom = w * s2 + (1.0 - w)
        coef = np.where(denom > 0, w * (self.s / n) * c / np.where(denom > 0, denom, 1.0), 0.0)
        return self.vt.T @ coef

    def front(self, w: FloatArray) -> FloatArray:
        """Objective vectors of the minimizers at weights ``w`` (vectorised)."""
        return np.array([self.objectives(self.minimizer(float(wi))) for wi in np.atleast_1d(w)])

    def solver(self) -> Callable[[float, Any], ps.Solution]:
        """The exact inner solver ``(w, state) -> Solution`` (state: the minimizer)."""

        def solve(w: float, state: Any) -> ps.Solution:
            x = self.minimizer(float(w))
            return ps.Solution(self.objectives(x), x)

        return solve


@functools.cache
def ridge_problem() -> RidgeProblem:
    """The bank's ridge instance (condition number 1e5)."""
    return RidgeProblem.make()


@functools.cache
def ridge_reference() -> ReferenceFront:
    """The ridge path in closed form over a fine grid of ``lambda = (1 - w) / w``.

    The parameter is ``u = log10(lambda)`` on ``[-14, 6]`` (refined by normalized chord),
    plus both ends (``w = 1``, least squares; ``w = 0``, ``x = 0``).
    """
    prob = ridge_problem()

    def curve(u: FloatArray) -> FloatArray:
        lam = 10.0**u
        return prob.front(1.0 / (1.0 + lam))

    _, f = refine_curve(curve, -14.0, 6.0, n_initial=513)
    f = np.concatenate([prob.front(np.array([1.0])), f, prob.front(np.array([0.0]))])
    f = _sorted_piece(f[nondominated(f)])
    return ReferenceFront((f,))


# --------------------------------------------------------------------------------------
# Lasso path, exact solver through scikit-learn
# --------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class LassoProblem:
    """``0.5 * mean squared residual`` against ``||x||_1`` (scikit-learn's scaling)."""

    a: FloatArray
    b: FloatArray

    @classmethod
    def make(cls, n: int = 100, d: int = 8, seed: int = 0) -> LassoProblem:
        """A seeded instance with correlated columns and a sparse truth."""
        rng = np.random.default_rng(seed)
        mix = np.eye(d) + 0.5 * rng.normal(size=(d, d))
        a = rng.normal(size=(n, d)) @ mix
        beta = np.zeros(d)
        beta[:4] = [3.0, -2.0, 1.5, 0.5]
        return cls(a, a @ beta + 0.5 * rng.normal(size=n))

    def objectives(self, x: FloatArray) -> FloatArray:
        """``(0.5 ||A x - b||^2 / n, ||x||_1)``."""
        r = self.a @ x - self.b
        return np.array([0.5 * (r @ r) / self.b.size, np.abs(x).sum()])

    def minimizer(self, w: float, start: FloatArray | None = None) -> FloatArray:
        """Minimizer of ``w f1 + (1 - w) f2``: scikit-learn's ``Lasso`` at
        ``alpha = (1 - w) / w`` (tol ``1e-12``); zero at ``w = 0``, least squares at 1."""
        from sklearn.linear_model import Lasso

        d = self.a.shape[1]
        if w <= 0.0:
            return np.zeros(d)
        if w >= 1.0:
            return np.linalg.lstsq(self.a, self.b, rcond=None)[0]
        model = Lasso(
            alpha=(1.0 - w) / w,
            fit_intercept=False,
            tol=1e-12,
            max_iter=1_000_000,
            warm_start=start is not None,
        )
        if start is not None:
            model.coef_ = np.array(start, dtype=float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(self.a, self.b)
        return np.asarray(model.coef_, dtype=float)

    def solver(self) -> Callable[[float, Any], ps.Solution]:
        """The exact inner solver (warm-started from the slot's previous coefficients)."""

        def solve(w: float, state: Any) -> ps.Solution:
            x = self.minimizer(float(w), None if state is None else np.asarray(state))
            return ps.Solution(self.objectives(x), x)

        return solve


@functools.cache
def lasso_problem() -> LassoProblem:
    """The bank's lasso instance."""
    return LassoProblem.make()


@functools.cache
def lasso_reference(n_alphas: int = 3000) -> ReferenceFront:
    """The lasso front from ``sklearn.linear_model.lasso_path`` plus the least-squares end.

    Alphas: geometric from ``alpha_max = max |A^T b| / n`` (where ``x = 0``) down to
    ``1e-7 alpha_max``, merged with an even grid on ``[0, alpha_max]``.
    """
    from sklearn.linear_model import lasso_path

    prob = lasso_problem()
    n = prob.b.size
    alpha_max = float(np.abs(prob.a.T @ prob.b).max()) / n
    alphas = np.unique(
        np.concatenate(
            [
                np.geomspace(alpha_max, 1e-7 * alpha_max, n_alphas // 2),
                np.linspace(alpha_max, 1e-3 * alpha_max, n_alphas // 2),
            ]
        )
    )[::-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, coefs, _ = lasso_path(prob.a, prob.b, alphas=alphas, tol=1e-12, max_iter=100_000)
    x_ls = np.linalg.lstsq(prob.a, prob.b, rcond=None)[0]
    xs = [*coefs.T, x_ls, np.zeros(prob.a.shape[1])]
    f = np.array([prob.objectives(x) for x in xs])
    f = _sorted_piece(f[nondominated(f)])
    return ReferenceFront((f,))


# --------------------------------------------------------------------------------------
# ZDT problems (closed-form fronts)
# --------------------------------------------------------------------------------------

#: The smallest ``f1 = 1 - exp(-4 x1) sin(6 pi x1)^6`` of ZDT6 over ``x1 in [0, 1]``.
ZDT6_F1_MIN = 0.2807753191


def zdt_front_closed_form(name: str, f1: FloatArray) -> FloatArray:
    """The curve ``f2(f1)`` on which the ZDT front lies (``g = 1``).

    Parameters
    ----------
    name : {"zdt1", "zdt2", "zdt3", "zdt4", "zdt6"}
    f1 : ndarray

    Returns
    -------
    ndarray
        ``f2`` at ``f1`` (for ZDT3 the whole curve, dominated parts included).
    """
    f1 = np.asarray(f1, dtype=float)
    if name in ("zdt1", "zdt4"):
        return 1.0 - np.sqrt(f1)
    if name in ("zdt2", "zdt6"):
        return 1.0 - f1**2
    if name == "zdt3":
        return 1.0 - np.sqrt(f1) - f1 * np.sin(10.0 * np.pi * f1)
    raise ValueError(f"name must be one of zdt1, zdt2, zdt3, zdt4, zdt6, got {name!r}")


@functools.cache
def zdt_reference(name: str, f2_scale: float = 1.0) -> ReferenceFront:
    """A ZDT front from its closed form, ``f2`` multiplied by ``f2_scale``.

    ZDT1, ZDT2, ZDT4 and ZDT6: one piece, refined by normalized chord (ZDT6 on
    ``f1 in [0.2807753191, 1]``). ZDT3: the curve on a fine grid of ``f1 in [0, 1]``, its
    non-dominated points (a point is kept where its ``f2`` is below every ``f2`` at
    smaller ``f1``), split into its five pieces where ``f1`` jumps.
    """
    if name == "zdt3":
        f1 = np.linspace(0.0, 1.0, 400_001)
        f2 = zdt_front_closed_form(name, f1)
        best_before = np.minimum.accumulate(np.concatenate([[np.inf], f2[:-1]]))
        keep = f2 < best_before
        idx = np.flatnonzero(keep)
        cuts = np.flatnonzero(np.diff(idx) > 1) + 1
        pieces = []
        span = np.array([1.0, f2[keep].max() - f2[keep].min()])
        for run in np.split(idx, cuts):
            # thin each piece to steps of REFINE_CHORD / 2 in normalized arc length,
            # keeping its ends
            pts = np.column_stack([f1[run], f2[run]])
            arc = np.concatenate(
                [[0.0], np.cumsum(np.linalg.norm(np.diff(pts, axis=0) / span, axis=1))]
            )
            step = np.floor(arc / (REFINE_CHORD / 2))
            take = np.flatnonzero(np.concatenate([[True], np.diff(step) > 0]))
            take = np.unique(np.concatenate([take, [run.size - 1]]))
            pieces.append(np.column_stack([pts[take, 0], f2_scale * pts[take, 1]]))
        return ReferenceFront(tuple(pieces))
    lo = ZDT6_F1_MIN if name == "zdt6" else 0.0

    def curve(t: FloatArray) -> FloatArray:
        return np.column_stack([t, f2_scale * zdt_front_closed_form(name, t)])

    _, f = refine_curve(curve, lo, 1.0, n_initial=513)
    return ReferenceFront((f,))


def zdt1_scaled_objectives(x: FloatArray) -> FloatArray:
    """ZDT1 with ``f2`` in other units: ``(x1, 1000 g (1 - sqrt(x1 / g)))``."""
    g = 1.0 + 9.0 * float(np.mean(x[1:]))
    return np.array([x[0], 1000.0 * g * (1.0 - math.sqrt(x[0] / g))])


def _zdt_pymoo_solver(name: str, n_var: int, seed: int | None) -> Callable[[str], Any]:
    def make(scalarization: str) -> Any:
        from pymoo.problems import get_problem

        problem = get_problem(name, n_var=n_var)
        x0 = None
        if seed is not None:
            rng = np.random.default_rng(seed)
            x0 = problem.xl + (problem.xu - problem.xl) * rng.random(n_var)
        return ps.adapters.from_pymoo(problem, scalarization=scalarization, x0=x0)

    return make


# --------------------------------------------------------------------------------------
# A linear torch model on two regression targets
# --------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class TwoTargetData:
    """Inputs ``X`` (with a column of ones for the bias) and two targets ``y1``, ``y2``."""

    x: FloatArray
    y1: FloatArray
    y2: FloatArray

    @classmethod
    def make(cls, n: int = 200, d: int = 5, seed: int = 0) -> TwoTargetData:
        """A seeded data set whose two targets need different coefficients."""
        rng = np.random.default_rng(seed)
        x = rng.normal(size=(n, d))
        y1 = x @ rng.normal(size=d) + 0.5 + 0.3 * rng.normal(size=n)
        y2 = x @ rng.normal(size=d) - 0.5 + 0.3 * rng.normal(size=n)
        return cls(np.column_stack([x, np.ones(n)]), y1, y2)

    def losses(self, theta: FloatArray) -> FloatArray:
        """Mean squared errors of ``X theta`` against ``y1`` and ``y2``."""
        p = self.x @ theta
        return np.array([np.mean((p - self.y1) ** 2), np.mean((p - self.y2) ** 2)])

    def front(self, w: FloatArray) -> FloatArray:
        """The exact front at weights ``w``: the weighted normal equations
        ``X^T X theta = X^T (w y1 + (1 - w) y2)``, solved by least squares."""
        out = []
        for wi in np.atleast_1d(w):
            target = wi * self.y1 + (1.0 - wi) * self.y2
            theta = np.linalg.lstsq(self.x, target, rcond=None)[0]
            out.append(self.losses(theta))
        return np.array(out)


@functools.cache
def torch_data() -> TwoTargetData:
    """The bank's two-target data set."""
    return TwoTargetData.make()


#: Adam steps per solve and learning rate of the torch entry.
TORCH_STEPS, TORCH_LR = 100, 0.05


def _torch_solver(scalarization: str) -> Any:
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(0)
    data = torch_data()
    d = data.x.shape[1] - 1
    xt = torch.tensor(data.x[:, :d])
    y1, y2 = torch.tensor(data.y1), torch.tensor(data.y2)
    model = torch.nn.Linear(d, 1, dtype=torch.float64)

    def losses(m: Any) -> Any:
        p = m(xt).squeeze(1)
        return torch.stack([((p - y1) ** 2).mean(), ((p - y2) ** 2).mean()])

    if scalarization == "auto":  # from_torch has no "auto" (no box to find the ends in)
        scalarization = "linear"
    ideal = None if scalarization == "linear" else [0.0, 0.0]
    return ps.adapters.from_torch(
        model, losses, steps=TORCH_STEPS, lr=TORCH_LR, scalarization=scalarization, ideal=ideal
    )


@functools.cache
def torch_reference() -> ReferenceFront:
    """The linear model's front in closed form over a refined grid of weights."""
    data = torch_data()
    _, f = refine_curve(data.front, 0.0, 1.0, n_initial=513)
    return ReferenceFront((_sorted_piece(f),))


# --------------------------------------------------------------------------------------
# A flat face at w = 0 (weakly Pareto-optimal end)
# --------------------------------------------------------------------------------------


def flat_face_objectives(x: FloatArray) -> FloatArray:
    """``((x1 - 1)^2 + (x2 - 1)^2, x1^2)``: ``f2`` ignores ``x2``, so at ``w = 0`` every
    ``(0, x2)`` minimizes it; only ``(0, 1)`` is Pareto-optimal. The front is
    ``((1 - t)^2, t^2)``, ``t in [0, 1]``."""
    return np.array([(x[0] - 1.0) ** 2 + (x[1] - 1.0) ** 2, x[0] ** 2])


def _flat_face_solver(scalarization: str) -> Any:
    return ps.adapters.from_scipy(
        flat_face_objectives, x0=np.array([0.5, -1.0]), scalarization=scalarization
    )


@functools.cache
def flat_face_reference() -> ReferenceFront:
    """``((1 - t)^2, t^2)`` over a refined grid of ``t in [0, 1]``."""
    _, f = refine_curve(lambda t: np.column_stack([(1 - t) ** 2, t**2]), 0.0, 1.0)
    return ReferenceFront((_sorted_piece(f),))


# --------------------------------------------------------------------------------------
# A flat start: every gradient vanishes around x0
# --------------------------------------------------------------------------------------

#: The two targets of the flat-start problem (the segment between them stays away from the
#: dead zone around the origin).
FLAT_START_C1 = np.array([1.5, 1.0, 1.2, 0.8])
FLAT_START_C2 = np.array([-1.0, 1.4, 1.1, 1.5])


def flat_start_objectives(x: FloatArray) -> FloatArray:
    """Squared distances of ``y`` to two targets, ``y`` being ``x`` pulled 0.5 towards the
    origin (0 inside the ball of radius 0.5): from ``x0 = 0`` no local solve moves. The
    front is ``y`` on the segment between the targets: ``(t^2 D, (1 - t)^2 D)``."""
    r = float(np.linalg.norm(x))
    y = x * max(0.0, 1.0 - 0.5 / r) if r > 0 else np.zeros_like(x)
    return np.array(
        [float(np.sum((y - FLAT_START_C1) ** 2)), float(np.sum((y - FLAT_START_C2) ** 2))]
    )


def _flat_start_solver(scalarization: str) -> Any:
    return ps.adapters.from_scipy(
        flat_start_objectives, x0=np.zeros(4), bounds=[(-3.0, 3.0)] * 4, scalarization=scalarization
    )


@functools.cache
def flat_start_reference() -> ReferenceFront:
    """``(t^2 D, (1 - t)^2 D)`` over a refined grid of ``t in [0, 1]``."""
    d = float(np.sum((FLAT_START_C2 - FLAT_START_C1) ** 2))
    _, f = refine_curve(lambda t: np.column_stack([t**2 * d, (1 - t) ** 2 * d]), 0.0, 1.0)
    return ReferenceFront((_sorted_piece(f),))


# --------------------------------------------------------------------------------------
# Logistic loss on separable data (no minimizer at w = 1)
# --------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SeparableLogistic:
    """Mean logistic loss on linearly separable data against ``||x||^2``.

    At ``w = 1`` the loss has no minimizer: it falls towards 0 as ``||x||`` grows along a
    separating direction, so the front ``f1 -> 0``, ``f2 -> inf`` has no end there.
    """

    a: FloatArray  # rows: label * features

    @classmethod
    def make(cls, n: int = 60, seed: int = 0) -> SeparableLogistic:
        """Two separated Gaussian clouds in the plane (no bias), margin about 0.5."""
        rng = np.random.default_rng(seed)
        feats = rng.normal(size=(n, 2))
        direction = np.array([1.0, 0.5]) / math.sqrt(1.25)
        side = feats @ direction
        feats = feats + np.outer(np.sign(side) * 0.5, direction)
        labels = np.sign(feats @ direction)
        return cls(labels[:, None] * feats)

    def objectives(self, x: FloatArray) -> FloatArray:
        """``(mean log(1 + exp(-y a^T x)), ||x||^2)``."""
        m = self.a @ x
        return np.array([float(np.mean(np.logaddexp(0.0, -m))), float(x @ x)])

    def jacobian(self, x: FloatArray) -> FloatArray:
        """Rows: the gradients of the two objectives."""
        m = self.a @ x
        sig = 0.5 * (1.0 - np.tanh(0.5 * m))  # 1 / (1 + exp(m)), stable
        return np.stack([-(self.a * sig[:, None]).mean(axis=0), 2.0 * x])

    def regularized(self, lam: float, start: FloatArray) -> FloatArray:
        """Minimizer of ``f1 + lam f2`` by Newton's method (strongly convex), to 1e-13."""
        x = np.array(start, dtype=float)
        n = self.a.shape[0]
        for _ in range(200):
            m = self.a @ x
            sig = 0.5 * (1.0 - np.tanh(0.5 * m))
            grad = -(self.a * sig[:, None]).mean(axis=0) + 2.0 * lam * x
            hess = (self.a * (sig * (1 - sig))[:, None]).T @ self.a / n + 2.0 * lam * np.eye(x.size)
            step = np.linalg.solve(hess, grad)
            x = x - step
            if np.linalg.norm(step) <= 1e-13 * max(1.0, np.linalg.norm(x)):
                break
        return x

    def path(self, log_lams: FloatArray) -> FloatArray:
        """Objective vectors of the regularized minimizers at ``lam = 10**log_lams``
        (continuation from the largest ``lam`` down)."""
        order = np.argsort(-np.asarray(log_lams))
        out = np.empty((order.size, 2))
        x = np.zeros(self.a.shape[1])
        for i in order:
            x = self.regularized(10.0 ** float(log_lams[i]), x)
            out[i] = self.objectives(x)
        return out


@functools.cache
def logistic_problem() -> SeparableLogistic:
    """The bank's separable data set."""
    return SeparableLogistic.make()


def _logistic_solver(scalarization: str) -> Any:
    prob = logistic_problem()
    return ps.adapters.from_scipy(
        prob.objectives, x0=np.zeros(2), jac=prob.jacobian, scalarization=scalarization
    )


#: The logistic reference spans ``lam`` from ``10**LOGISTIC_LOG_LAM[1]`` down to
#: ``10**LOGISTIC_LOG_LAM[0]``; the ``w = 0`` end ``(log 2, 0)`` is added.
LOGISTIC_LOG_LAM = (-6.0, 4.0)


@functools.cache
def logistic_reference(log_lam_min: float = LOGISTIC_LOG_LAM[0]) -> ReferenceFront:
    """The regularization path ``argmin f1 + lam f2`` (Newton), refined by normalized
    chord, truncated at ``lam = 10**log_lam_min`` (the front has no end there)."""
    prob = logistic_problem()

    def curve(u: FloatArray) -> FloatArray:
        return prob.path(u)

    _, f = refine_curve(curve, log_lam_min, LOGISTIC_LOG_LAM[1], n_initial=257)
    f = np.concatenate([f, [[math.log(2.0), 0.0]]])
    f = _sorted_piece(f[nondominated(f)])
    return ReferenceFront((f,))


def logistic_extended(f2_max: float) -> ReferenceFront:
    """The logistic reference continued (smaller ``lam``) until ``f2 >= f2_max``."""
    log_lam = LOGISTIC_LOG_LAM[0]
    ref = logistic_reference(log_lam)
    while ref.nadir[1] < f2_max and log_lam > -30.0:
        log_lam -= 2.0
        ref = logistic_reference(log_lam)
    return ref


# --------------------------------------------------------------------------------------
# The bank
# --------------------------------------------------------------------------------------


def _exact(factory: Callable[[], Any]) -> Callable[[str], Any]:
    """A ``make_solver`` for an exact solver (the scalarization is ignored)."""

    def make(scalarization: str) -> Any:
        del scalarization
        return factory()

    return make


@functools.lru_cache(maxsize=1)
def bank() -> dict[str, Entry]:
    """Every entry of the bank, by name, in the benchmark's order."""
    zdt_var = {"zdt1": 30, "zdt2": 30, "zdt3": 30, "zdt4": 10, "zdt6": 10}
    entries = [
        Entry(
            "welded_beam",
            "scipy",
            "welded beam: cost ($, 2..37) vs deflection (in, 4e-4..1.6e-2); 4 constraints",
            _welded_beam_solver,
            welded_beam_reference,
            weak_end="w=0",  # the stiffest bar (t = 10, b = 5) takes any feasible weld
        ),
        Entry(
            "two_bar_truss",
            "scipy",
            "two-bar truss: volume (m^3, 0.004..0.05) vs max stress (MPa, 8.4..100)",
            _truss_solver,
            truss_reference,
            weak_end="w=0",  # at the least stress, bar 1 may be thicker than it needs
        ),
        Entry(
            "ridge_ill_conditioned",
            "exact",
            "ridge path, cond(A) = 1e5: mean squared residual vs ||x||^2 (SVD solve)",
            _exact(lambda: ridge_problem().solver()),
            ridge_reference,
        ),
        Entry(
            "lasso_path",
            "exact",
            "lasso path: 0.5 mean squared residual vs ||x||_1 (scikit-learn Lasso)",
            _exact(lambda: lasso_problem().solver()),
            lasso_reference,
        ),
        Entry(
            "zdt1_f2x1000",
            "scipy",
            "ZDT1 (30 variables) with f2 in units 1000x f1's, from_scipy from the centre",
            lambda sc: ps.adapters.from_scipy(
                zdt1_scaled_objectives,
                x0=np.full(30, 0.5),
                bounds=[(0.0, 1.0)] * 30,
                scalarization=sc,
            ),
            functools.partial(zdt_reference, "zdt1", 1000.0),
            weak_end="w=1",
        ),
    ]
    for name in ("zdt1", "zdt2", "zdt3", "zdt4", "zdt6"):
        entries.append(
            Entry(
                name,
                "pymoo",
                f"{name.upper()} ({zdt_var[name]} variables), from_pymoo from the box centre",
                _zdt_pymoo_solver(name, zdt_var[name], None),
                functools.partial(zdt_reference, name, 1.0),
                weak_end="w=1",
            )
        )
    for name in ("zdt1", "zdt4", "zdt6"):
        entries.append(
            Entry(
                f"{name}_random_start",
                "pymoo",
                f"{name.upper()} ({zdt_var[name]} variables), from_pymoo from a seeded random x0",
                _zdt_pymoo_solver(name, zdt_var[name], 12345),
                functools.partial(zdt_reference, name, 1.0),
                weak_end="w=1",
            )
        )
    entries += [
        Entry(
            "torch_two_targets",
            "torch",
            f"linear torch model, MSE on two targets, Adam {TORCH_STEPS} steps per solve",
            _torch_solver,
            torch_reference,
        ),
        Entry(
            "flat_face_quadratic",
            "scipy",
            "(x1-1)^2+(x2-1)^2 vs x1^2: a flat face at w = 0, L-BFGS-B from (0.5, -1)",
            _flat_face_solver,
            flat_face_reference,
            weak_end="w=0",
        ),
        Entry(
            "flat_start",
            "scipy",
            "squared distances to two targets behind a dead zone: every gradient 0 at x0",
            _flat_start_solver,
            flat_start_reference,
        ),
        Entry(
            "logistic_separable",
            "scipy",
            "logistic loss on separable data vs ||x||^2: no minimizer at w = 1",
            _logistic_solver,
            logistic_reference,
            end_has_minimizer=False,
            extended=logistic_extended,
        ),
    ]
    return {e.name: e for e in entries}


def get(name: str) -> Entry:
    """The entry called ``name``.

    Raises
    ------
    KeyError
        Naming the known entries.
    """
    entries = bank()
    if name not in entries:
        raise KeyError(f"no bank entry {name!r}; known: {', '.join(entries)}")
    return entries[name]
