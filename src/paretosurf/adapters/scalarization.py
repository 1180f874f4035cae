"""Scalarizations of minimized objectives for one weight: linear, Tchebycheff and ASF.

Every scalarization here maps the weight ``w`` of the library (the weight on objective 1, in
``[0, 1]``) to a coefficient vector ``c(w)`` and combines the objective vector ``h`` with it:

``"linear"``
    ``w * h1 + (1 - w) * h2``, coefficients ``lam = (w, 1 - w)``. The scalarization SURF's
    paper analyses. Its minimizers only reach the convex hull of the front: on a concave
    stretch they jump from one end of the stretch to the other.
``"tchebycheff"``
    ``max_m c_m (h_m - z_m) + rho * sum_m c_m (h_m - z_m)`` with ``c = lam = (w, 1 - w)``
    and the ideal (utopia) point ``z``. Its minimizer lies where ``w (h1 - z1) =
    (1 - w) (h2 - z2)``: on the ray from ``z`` along ``(1 - w, w)``.
``"modified_tchebycheff"``
    ``max_m (h_m - z_m) / mu_m + rho * sum_m (h_m - z_m) / mu_m`` with the ray direction
    ``mu = (1 - w, w)``: the minimizer is the front point on the ray ``z + t * mu``, and the
    scalarized value is the ray parameter ``t`` (in objective units) whatever ``w``.
``"asf"`` (weight vectors only)
    Wierzbicki's achievement scalarizing function ``max_m (h_m - z_m) / lam_m + rho * sum_m
    (h_m - z_m) / lam_m``: the minimizer is the front point on the ray ``z + t * lam`` along
    the weight vector itself. The corner ``lam = e_m`` gives the point where objective ``m`` is
    at its worst and every other one at its ideal value, and the edge ``lam_m = 0`` the
    boundary curve where objective ``m`` is at its ideal. That is the layout of fronts where
    objectives can reach their ideal values together (DTLZ1-4-like triangles and spheres,
    concave ones included), on which linear and Tchebycheff weights send whole edges of the
    simplex to one point; use it there with :func:`paretosurf.surf_simplex`. A scalar weight
    has no such orientation (``w`` weighs objective 1 elsewhere in the library): give
    ``[w, 1 - w]`` or use ``"modified_tchebycheff"``, the same ray oriented by ``w``.

Direction of the modified variant. Written literally with ``mu = lam = (w, 1 - w)``, the
modified Tchebycheff point would lie on the ray along ``(w, 1 - w)``: objective 1 would *grow*
with ``w``, against the library's convention that ``w`` is the weight on objective 1 (slot N,
``w = 1``, is objective 1's minimizer). The ray direction is therefore ``mu = (1 - w, w)``,
which is ``1 / lam`` rescaled: a larger ``w`` tolerates less excess ``h1 - z1``. For two
objectives the two Tchebycheff variants then have the same minimizers for every ``w`` in
``[floor, 1 - floor]`` (their coefficients differ by the positive factor ``w (1 - w)``); they
differ at the two ends (the floors below) and in scale: the modified value does not shrink
near ``w = 0`` and ``w = 1``, which matters for the step sizes of plain gradient descent
(``from_torch(..., optimizer="sgd")``); ``from_scipy`` rescales its problem, so there the two
behave alike.

Zero coefficients. At ``w = 0`` and ``w = 1`` one entry of ``lam`` (and of ``mu``) is 0. Both
Tchebycheff variants floor it at ``floor`` (default ``1e-4``) before use: ``c = max(lam,
floor)`` for ``"tchebycheff"`` and ``c = 1 / max(mu, floor)`` for ``"modified_tchebycheff"``.
So ``w = 0`` minimizes objective 2 with objective 1 still weighted by ``floor`` (the reverse at
``w = 1``): the end point is Pareto-optimal, not a weakly optimal point on the flat face a zero
coefficient leaves, and lies within about ``floor`` times the objectives' range of the extreme
point (at the extreme itself where the augmentation outweighs the front's slope there). All
weights within ``floor`` of an end give the same problem. Dropping the objective whose
``mu_m`` is 0 instead would be wrong: ``(h_m - z_m) / mu_m`` grows without bound as
``mu_m -> 0``, so that objective is the one that matters most there.

Augmentation. A plain Tchebycheff minimizer is only weakly Pareto-optimal: on a flat stretch
of the max the other objective is free. The term ``rho * sum_m c_m (h_m - z_m)`` (``rho``
default ``1e-4``, relative: it is ``rho`` times the linear scalarization with the same
coefficients) makes the scalarization strictly increasing in every objective, so that every
minimizer is Pareto-optimal. It moves the minimizer off the ray by a relative ``O(rho)``, and
Pareto points whose trade-off rate exceeds about ``1 / rho`` can no longer be reached;
``rho = 0`` gives the plain forms.

Theory's status. SURF's paper proves its results for linear scalarization only. With
Tchebycheff scalarizations every Pareto point, also of concave or partly concave fronts, is
the minimizer for some weight (given an ideal point ``z`` strictly below every attainable
value; with the augmentation, every point whose trade-off rates stay below about ``1 / rho``),
and for a connected front the map from ``w`` to the front point is monotone along the
front: as ``w`` grows, objective 1 is non-increasing and objective 2 non-decreasing (the ray
turns from the objective-1 axis at ``w = 0`` to the objective-2 axis at ``w = 1``). SURF's
arc-length CDF and its inverse therefore apply unchanged; its convergence rates are not proven
for these scalarizations.

The ideal point over a run (:class:`IdealPoint`). Tchebycheff's minimizers lie on rays from
``z``, so a ``z`` above part of the front (a corner solve that stopped in a local minimum, say)
makes the rays miss that part: on pymoo's ZDT3 the corner solves from the middle of the box
give ``z2 = 0.242`` where the front reaches ``f2 = -0.773``, and a run that keeps that ``z``
squeezes most interior weights into a few thousandths while its points go below its "ideal".
As MOEA/D updates its reference point, the adapters therefore keep an *estimated* ideal below
every objective value the run has found: the run calls ``solver.observe(points)`` after each
round (in its own process, before the solver is sent to workers again), and each ideal-using
adapter moves its estimate down, never up, when a value comes within half a margin of it:

``margin_m = IDEAL_MARGIN_REL * (worst_m - best_m) + IDEAL_MARGIN_ABS * max(1, |best_m|)``

with ``best_m`` and ``worst_m`` the smallest and largest value of objective ``m`` observed so
far (the corner solves of the estimate included), ``IDEAL_MARGIN_REL = 1e-6`` and
``IDEAL_MARGIN_ABS = 1e-8``. When ``z_m > best_m - margin_m / 2`` the estimate moves to
``z_m = best_m - margin_m``. So after every ``observe`` the ideal lies at least half a margin
below every value found (every Tchebycheff term of a point found is positive) and at most a
margin below the best value found (the rays are those of the best values found, to about
``1e-6`` of the observed range; the margin never shrinks); values that improve by less than
half a margin, or a range that less than doubles, leave it where it is (no drift of the rays,
round after round, from an inexact solver's last digits). The margin is the corner
estimate's own, so a corner estimate that is right is left exactly where it is. For the
kinds whose coefficients are ``1 / w`` (``"asf"``, ``"modified_tchebycheff"``), an estimate
from solves of each objective alone counts only each objective's own minimum
(:meth:`IdealPoint.from_minima`): such a solve may leave the other objectives anywhere on a
flat face, far above the front, and a margin that grew with them would put the ideal so far
below the front that the ``1 / floor`` terms decide every corner solve; the range of its margin
is then each objective's own descent in its solve (from its value at ``x0``). A *given*
ideal is never moved; observed values strictly below it are recorded
(:attr:`IdealPoint.beaten`, :attr:`IdealPoint.excess`) for the run to report.

The estimate is only as low as the values found. A Tchebycheff solve does not look below its
ideal point: where ``h_m < z_m`` that term is negative and the max is decided by the other
objectives, so a converged solve tends to stop where ``h_m`` is about ``z_m``. The estimate
moves when some solve lands lower anyway (in another basin of a multimodal objective, or an
inexact solve), as on ZDT3 from the first round; a part of the front that no solve reaches
stays unknown (on ZDT3 from the middle of the box, the piece near ``f1 = 0.85``). Give
``ideal`` when the true ideal is known.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf.solvers import users_solver

__all__ = [
    "DEFAULT_FLOOR",
    "DEFAULT_RHO",
    "IDEAL_MARGIN_ABS",
    "IDEAL_MARGIN_REL",
    "SCALARIZATIONS",
    "FollowsIdealPoint",
    "IdealPoint",
    "Scalarization",
    "as_scalarization",
    "check_weight",
    "ideal_margin",
    "scoring_scalarization",
    "solver_scalarization",
    "weight_vector",
]

FloatArray = NDArray[np.float64]

#: The scalarizations this module offers.
SCALARIZATIONS = ("linear", "tchebycheff", "modified_tchebycheff", "asf")
#: Default relative augmentation of the Tchebycheff scalarizations.
DEFAULT_RHO = 1e-4
#: Default floor of the Tchebycheff coefficients' zero entries (at ``w = 0`` and ``w = 1``).
DEFAULT_FLOOR = 1e-4
#: How far from 1 the entries of a weight vector may sum.
SIMPLEX_SUM_TOL = 1e-8
#: The margin of an estimated ideal point below the best value found, per objective:
#: ``IDEAL_MARGIN_REL * range + IDEAL_MARGIN_ABS * max(1, |best|)`` (:func:`ideal_margin`).
IDEAL_MARGIN_REL = 1e-6
IDEAL_MARGIN_ABS = 1e-8
#: The kinds whose coefficients are reciprocals of the weights' (``1 / max(w, floor)``).
RECIPROCAL_KINDS = ("asf", "modified_tchebycheff")


def check_weight(w: object, *, name: str = "weight") -> float | FloatArray:
    """Return the weight ``w`` as a float in ``[0, 1]`` (two objectives), or a weight vector
    on the simplex as a float64 copy (three or more objectives, see
    :func:`paretosurf.surf_simplex`); raise naming the argument otherwise.

    Examples
    --------
    >>> from paretosurf.adapters.scalarization import check_weight
    >>> check_weight(0.25)
    0.25
    >>> check_weight([0.2, 0.3, 0.5]).tolist()
    [0.2, 0.3, 0.5]
    """
    if isinstance(w, (np.ndarray, list, tuple)):
        vec = np.array(w, dtype=np.float64)
        if vec.ndim == 1 and vec.size >= 2:
            if not (
                np.all(np.isfinite(vec))
                and np.all(vec >= 0)
                and abs(float(vec.sum()) - 1.0) <= SIMPLEX_SUM_TOL
            ):
                raise ValueError(
                    f"{name} must be a weight vector on the simplex (entries "
                    f">= 0 summing to 1), got {vec.tolist()}"
                )
            return vec
        if vec.ndim == 0:
            w = float(vec)
    if isinstance(w, bool) or not isinstance(w, numbers.Real):
        raise TypeError(
            f"{name} must be a real number in [0, 1] or a weight vector on the simplex, got {w!r}"
        )
    value = float(w)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value}")
    return value


def weight_vector(w: float | ArrayLike) -> FloatArray:
    """The weight vector ``lam``: ``(w, 1 - w)`` for the library's scalar weight ``w`` (two
    objectives), the vector itself for a weight vector on the simplex.

    Examples
    --------
    >>> from paretosurf.adapters import weight_vector
    >>> weight_vector(0.25).tolist()
    [0.25, 0.75]
    """
    value = check_weight(w, name="w")
    if isinstance(value, np.ndarray):
        return value
    return np.array([value, 1.0 - value])


def _last_axis_max(x: Any) -> Any:
    # torch tensors reduce with .amax(dim); numpy arrays have no .amax method
    return x.amax(-1) if hasattr(x, "amax") else np.max(x, axis=-1)


class Scalarization:
    """A scalarization of two minimized objectives for the library's weight ``w``.

    See the module docstring for the formulas, the ray each Tchebycheff minimizer lies on, the
    floors at ``w = 0`` and ``w = 1`` and the augmentation.

    Parameters
    ----------
    kind : {"linear", "tchebycheff", "modified_tchebycheff", "asf"}
    ideal : array_like of shape (M,), optional
        The ideal point ``z`` (strictly below every attainable objective value); needed to
        evaluate the Tchebycheff kinds, ignored by ``"linear"``. The adapters estimate it when
        it is not given (:func:`~paretosurf.adapters.from_scipy`).
    rho : float
        Relative augmentation of the Tchebycheff kinds, ``>= 0`` (default ``1e-4``).
    floor : float
        Floor in ``(0, 0.5]`` of the zero coefficients at ``w = 0`` and ``w = 1``.
    scales : array_like of shape (M,), optional
        Positive units the scalarization measures each objective in: the coefficients are
        divided by them, so that the weights, and the floor, act on objectives of
        comparable size. The adapters take, for two objectives, the ranges between the
        front's ends, largest 1, where they estimate the ideal point; for three or more, the
        ranges of the corner solves (each objective minimized alone), for every kind. The
        Tchebycheff kinds and ASF always use them; ``"linear"`` uses them for weight vectors
        (:func:`paretosurf.surf_simplex`) and ignores them for the scalar weight ``w`` of two
        objectives, which weighs the raw objectives as the paper's weighted sum does (SURF's
        arc-length CDF adapts to any units).

    Examples
    --------
    >>> from paretosurf.adapters import Scalarization
    >>> Scalarization("linear")([1.0, 3.0], 0.25)                  # 0.25 * 1 + 0.75 * 3
    2.5
    >>> tch = Scalarization("tchebycheff", ideal=[0.0, 0.0], rho=0.0)
    >>> tch([1.0, 3.0], 0.25)                                      # max(0.25 * 1, 0.75 * 3)
    2.25
    >>> mod = Scalarization("modified_tchebycheff", ideal=[0.0, 0.0], rho=0.0)
    >>> mod([1.0, 3.0], 0.25)                                      # max(1 / 0.75, 3 / 0.25)
    12.0
    >>> mod.coefficients(1.0).tolist()                             # mu = (0, 1) floored
    [10000.0, 1.0]
    >>> asf = Scalarization("asf", ideal=[0.0, 0.0, 0.0], rho=0.0)
    >>> asf([0.5, 0.5, 0.0], [0.5, 0.5, 0.0])      # on the ray along the weight vector: t = 1
    1.0
    >>> scaled = Scalarization("tchebycheff", ideal=[0.0, 0.0], rho=0.0, scales=[1.0, 1e-3])
    >>> scaled.coefficients(1.0).tolist()    # the floor on objective 2, in its own units
    [1.0, 0.1]
    >>> lin = Scalarization("linear", scales=[1.0, 10.0, 100.0])
    >>> lin.coefficients([0.5, 0.25, 0.25]).tolist()    # weight vectors: in the units
    [0.5, 0.025, 0.0025]
    """

    kind: str
    ideal: FloatArray | None
    rho: float
    floor: float
    scales: FloatArray | None

    def __init__(
        self,
        kind: str = "linear",
        *,
        ideal: ArrayLike | None = None,
        rho: float = DEFAULT_RHO,
        floor: float = DEFAULT_FLOOR,
        scales: ArrayLike | None = None,
    ) -> None:
        if not isinstance(kind, str) or kind not in SCALARIZATIONS:
            raise ValueError(f"scalarization must be one of {list(SCALARIZATIONS)}, got {kind!r}")
        self.kind = kind
        self.ideal = None if ideal is None else _as_ideal(ideal)
        if (
            isinstance(rho, bool)
            or not isinstance(rho, numbers.Real)
            or not (np.isfinite(rho) and rho >= 0)
        ):
            raise ValueError(f"rho must be a finite number >= 0, got {rho!r}")
        self.rho = float(rho)
        if (
            isinstance(floor, bool)
            or not isinstance(floor, numbers.Real)
            or not (0.0 < floor <= 0.5)
        ):
            raise ValueError(f"floor must lie in (0, 0.5], got {floor!r}")
        self.floor = float(floor)
        self.scales = None
        if scales is not None:
            units = np.array(scales, dtype=np.float64)
            if units.ndim != 1 or units.size < 2 or not np.all(np.isfinite(units) & (units > 0)):
                raise ValueError(
                    f"scales must be positive finite numbers, one per objective, got {scales!r}"
                )
            self.scales = units

    @property
    def needs_ideal(self) -> bool:
        """Whether the kind uses the ideal point (the Tchebycheff kinds)."""
        return self.kind != "linear"

    def with_ideal(self, ideal: ArrayLike) -> Scalarization:
        """A copy with the ideal point ``ideal``."""
        return Scalarization(
            self.kind, ideal=ideal, rho=self.rho, floor=self.floor, scales=self.scales
        )

    def with_kind(self, kind: str) -> Scalarization:
        """A copy of another kind (the ideal point, augmentation, floor and scales kept)."""
        return Scalarization(
            kind, ideal=self.ideal, rho=self.rho, floor=self.floor, scales=self.scales
        )

    def coefficients(self, w: float | ArrayLike) -> FloatArray:
        """The coefficient vector ``c(w)``: ``lam = (w, 1 - w)`` (or the weight vector, over
        the ``scales`` where there are some) for ``"linear"``, ``max(lam, floor)`` for
        ``"tchebycheff"``, ``1 / max(mu, floor)`` for
        ``"modified_tchebycheff"`` with the ray direction ``mu = (1 - w, w)``, or for a weight
        vector ``mu`` proportional to ``1 / max(lam, floor)`` (the same for two objectives
        away from the ends), and ``1 / max(lam, floor)`` for ``"asf"`` (weight vectors only);
        the kinds but ``"linear"`` with a scalar weight then divide by the ``scales``.

        Raises
        ------
        ValueError
            For ``"asf"`` with a scalar weight.

        Examples
        --------
        >>> from paretosurf.adapters import Scalarization
        >>> Scalarization("modified_tchebycheff").coefficients([0.5, 0.25, 0.25]).tolist()
        [5.0, 2.5, 2.5]
        """
        lam = weight_vector(w)
        if self.kind == "linear" and (self.scales is None or np.ndim(w) == 0):
            return lam  # the scalar weight: the paper's weighted sum of the raw objectives
        if self.kind == "linear":
            coef = lam
        elif self.kind == "asf":
            if np.ndim(w) == 0:
                raise ValueError(
                    "scalarization 'asf' takes weight vectors (its corner e_m is where "
                    "objective m is worst), not the scalar weight of objective 1: give [w, 1 - w]"
                    " or use 'modified_tchebycheff' (the same ray, oriented by w)"
                )
            coef = 1.0 / np.maximum(lam, self.floor)
        elif self.kind == "tchebycheff":
            coef = np.maximum(lam, self.floor)
        elif lam.size == 2:
            coef = 1.0 / np.maximum(lam[::-1], self.floor)
        else:
            mu = 1.0 / np.maximum(lam, self.floor)
            coef = 1.0 / np.maximum(mu / mu.sum(), self.floor)
        if self.scales is None:
            return coef
        if self.scales.size != coef.size:
            raise ValueError(
                f"the scales are for {self.scales.size} objectives, the weight for {coef.size}"
            )
        return np.asarray(coef / self.scales, dtype=np.float64)

    def combine(self, values: Any, coefficients: Any, ideal: Any = None) -> Any:
        """The scalarized value from the objectives and the coefficients (and ideal point).

        Works on any array type with arithmetic, ``.sum(-1)`` and a max over the last axis
        (numpy arrays of shape ``(..., 2)``, torch tensors of shape ``(2,)``), so that
        gradient-based adapters differentiate the same formula.
        """
        if self.kind == "linear":
            return (values * coefficients).sum(-1)
        terms = (values - ideal) * coefficients
        return _last_axis_max(terms) + self.rho * terms.sum(-1)

    def __call__(self, values: ArrayLike, w: float | ArrayLike) -> Any:
        """The scalarized value of objective vectors ``values`` of shape ``(..., M)`` (M = 2
        for a scalar weight, the weight vector's length otherwise): a float for one vector,
        an array for several."""
        h = np.asarray(values, dtype=np.float64)
        coefficients = self.coefficients(w)
        m = coefficients.size
        if h.ndim == 0 or h.shape[-1] != m:
            raise ValueError(f"values must have shape (..., {m}), got shape {h.shape}")
        if self.needs_ideal and self.ideal is None:
            raise ValueError(
                f"scalarization {self.kind!r} needs an ideal point; give ideal=[z1, z2, ...]"
            )
        if self.ideal is not None and self.ideal.size != m:
            raise ValueError(f"the ideal point has {self.ideal.size} objectives, the weight {m}")
        out = self.combine(h, coefficients, self.ideal)
        return float(out) if np.ndim(out) == 0 else out

    def __repr__(self) -> str:
        ideal = None if self.ideal is None else self.ideal.tolist()
        scales = "" if self.scales is None else f", scales={self.scales.tolist()}"
        return (
            f"Scalarization({self.kind!r}, ideal={ideal}, rho={self.rho:g}, "
            f"floor={self.floor:g}{scales})"
        )


def _as_ideal(ideal: ArrayLike) -> FloatArray:
    z = np.asarray(ideal, dtype=np.float64)
    if z.ndim != 1 or z.size < 2 or not np.all(np.isfinite(z)):
        raise ValueError(
            f"ideal must be a finite vector with one entry per objective (2 or "
            f"more), got {np.asarray(ideal)!r}"
        )
    return z.copy()


def as_scalarization(
    scalarization: str | Scalarization, ideal: ArrayLike | None = None, rho: float | None = None
) -> Scalarization:
    """The :class:`Scalarization` an adapter's ``scalarization``, ``ideal`` and ``rho``
    arguments describe (an instance carries its own ``ideal`` and ``rho``).

    Examples
    --------
    >>> from paretosurf.adapters import as_scalarization
    >>> as_scalarization("tchebycheff", ideal=[0, 0])
    Scalarization('tchebycheff', ideal=[0.0, 0.0], rho=0.0001, floor=0.0001)
    """
    if isinstance(scalarization, Scalarization):
        if ideal is not None or rho is not None:
            raise ValueError(
                "give ideal and rho inside the Scalarization, not as keywords "
                "next to a Scalarization instance"
            )
        return scalarization
    if not isinstance(scalarization, str) or scalarization not in SCALARIZATIONS:
        raise ValueError(
            f"scalarization must be one of {list(SCALARIZATIONS)} or a "
            f"Scalarization, got {scalarization!r}"
        )
    return Scalarization(scalarization, ideal=ideal, rho=DEFAULT_RHO if rho is None else rho)


def ideal_margin(best: ArrayLike, worst: ArrayLike) -> FloatArray:
    """The margin of an estimated ideal point below the best values ``best``, per objective:
    ``IDEAL_MARGIN_REL * (worst - best) + IDEAL_MARGIN_ABS * max(1, |best|)`` (positive also
    for a constant objective).

    Examples
    --------
    >>> from paretosurf.adapters.scalarization import ideal_margin
    >>> ideal_margin([0.0, -2.0], [4.0, 2.0]).tolist()
    [4.01e-06, 4.02e-06]
    """
    lo = np.asarray(best, dtype=np.float64)
    hi = np.asarray(worst, dtype=np.float64)
    return np.asarray(
        IDEAL_MARGIN_REL * (hi - lo) + IDEAL_MARGIN_ABS * np.maximum(1.0, np.abs(lo)),
        dtype=np.float64,
    )


def scoring_scalarization(scalarization: Scalarization | None, points: ArrayLike) -> Scalarization:
    """The scalarization that scores ``points`` (shape ``(P, M)``) against one another:
    ``scalarization`` itself, weighted sums when it is ``None``, and for a kind that needs
    an ideal point but has none (or one of another length) the points' best values less
    :func:`ideal_margin`.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.adapters.scalarization import Scalarization, scoring_scalarization
    >>> pts = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> scoring_scalarization(None, pts).kind
    'linear'
    >>> scoring_scalarization(Scalarization("tchebycheff"), pts).ideal.round(9).tolist()
    [-1.01e-06, -1.01e-06]
    """
    sc = Scalarization("linear") if scalarization is None else scalarization
    pts = np.asarray(points, dtype=np.float64)
    if sc.needs_ideal and (sc.ideal is None or sc.ideal.size != pts.shape[-1]):
        best, worst = pts.min(axis=0), pts.max(axis=0)
        sc = sc.with_ideal(best - ideal_margin(best, worst))
    return sc


def solver_scalarization(solver: object) -> Callable[[], Scalarization | None]:
    """A function returning the scalarization ``solver`` declares *now*: its
    ``scalarization`` attribute when that is a :class:`Scalarization` (the adapters of
    :mod:`paretosurf.adapters`, whose ideal point moves as the run observes points), or a
    kind name with the solver's ``ideal``; ``None`` for a solver that declares none (it
    minimizes weighted sums, as the paper's solvers do).

    Examples
    --------
    >>> from paretosurf.adapters.scalarization import solver_scalarization
    >>> def solver(w, state): ...
    >>> solver.scalarization = "tchebycheff"
    >>> solver.ideal = [0.0, 0.0]
    >>> solver_scalarization(solver)()
    Scalarization('tchebycheff', ideal=[0.0, 0.0], rho=0.0001, floor=0.0001)
    """

    def current() -> Scalarization | None:
        for obj in (solver, users_solver(solver)):
            sc = getattr(obj, "scalarization", None)
            if isinstance(sc, Scalarization):
                return sc
            if isinstance(sc, str):
                try:
                    ideal = getattr(obj, "ideal", None)
                    return Scalarization(sc, ideal=ideal)
                except (TypeError, ValueError):
                    return None
        return None

    return current


class IdealPoint:
    """The ideal point of an adapter's scalarization over a run: given, or estimated and kept
    below every objective value the run has found (module docstring, *The ideal point over a
    run*).

    Its state is a few vectors of one entry per objective, whatever the number of rounds
    observed, so a solver holding it pickles small; it changes only when an observation
    changes what it reports (a given ideal's state only when a value goes below it).

    Parameters
    ----------
    value : array_like of shape (M,) or None
        The ideal point; ``None`` for an estimate not made yet (the first observation makes
        it, as a move would).
    given : bool
        Whether the user gave ``value``: then it never moves.
    best, worst : array_like of shape (M,), optional
        Smallest and largest values already observed per objective (an estimate's corner
        solves); ignored when ``given``.

    Attributes
    ----------
    value : ndarray of shape (M,) or None
    given : bool

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.adapters.scalarization import IdealPoint
    >>> z = IdealPoint.from_corners([[0.0, 1.0], [1.0, 0.25]])  # corner solves: a bad f2
    >>> z.value.round(8).tolist()                        # best - (1e-6 * range + 1e-8)
    [-1.01e-06, 0.24999924]
    >>> z.observe([[0.5, 0.5], [0.8, -0.5]])             # a point below it: moves
    True
    >>> z.value.round(8).tolist()                        # -0.5 - (1.5e-6 + 1e-8)
    [-1.01e-06, -0.50000151]
    >>> given = IdealPoint([0.0, 0.0], given=True)
    >>> given.observe([[0.5, 0.5], [0.8, -0.5]]), given.value.tolist()
    (False, [0.0, 0.0])
    >>> given.beaten, given.excess.tolist()
    ((1,), [0.0, -0.5])
    """

    value: FloatArray | None
    given: bool

    def __init__(
        self,
        value: ArrayLike | None,
        *,
        given: bool,
        best: ArrayLike | None = None,
        worst: ArrayLike | None = None,
    ) -> None:
        if given and value is None:
            raise ValueError("a given ideal point needs its value")
        self.value = None if value is None else _as_ideal(value)
        self.given = bool(given)
        self._best: FloatArray | None = None
        self._worst: FloatArray | None = None
        self._excess: FloatArray | None = None
        if not self.given and best is not None:
            self._best = np.array(best, dtype=np.float64)
            self._worst = np.array(self._best if worst is None else worst, dtype=np.float64)

    @classmethod
    def from_corners(cls, values: ArrayLike) -> IdealPoint:
        """The estimate from the objective vectors ``values`` (K, M) of the corner solves
        (each objective minimized alone): the best value minus :func:`ideal_margin`, with the
        corner values counted as observed."""
        ends = np.asarray(values, dtype=np.float64)
        best, worst = ends.min(axis=0), ends.max(axis=0)
        return cls(best - ideal_margin(best, worst), given=False, best=best, worst=worst)

    @classmethod
    def from_minima(cls, values: ArrayLike, *, start: ArrayLike | None = None) -> IdealPoint:
        """The estimate from the objective vectors ``values`` (K, M) of solves that each
        minimized one objective alone, started from a point whose objectives are ``start``:
        the best value minus :func:`ideal_margin` over the range from the best value up to
        ``start`` (each objective's own descent in its solve; none without ``start``, until
        the first observation of the run's points gives the range).

        Such a solve may stop anywhere on a flat face of its objective's minimizers, where
        the other objectives can lie far above the front (pymoo's DTLZ1 from the middle of
        its box, its objectives times 100: ``f2 = 13682`` where the front's reaches 50).
        Those values are no evidence of the front's range, and a margin taken from them
        grows with them: below an objective's best by more than ``floor`` times the other
        objectives' extents, ASF's solves at the corners of the weight simplex
        (``1 / floor`` on every other objective) no longer see the objective they are for,
        and stop anywhere (on DTLZ1 and DTLZ3 in other units, ``surf_simplex`` failed with
        ``collapsed`` or ``dominated`` points where the same problems in their own units
        succeeded). The descent of each objective in its own solve is evidence of that
        objective's scale; without a margin of that size, an estimate from solves that
        stopped a little above the front's minima (WFG6's, 8e-7 above 0) lies above it for
        the first round (3 of 5 WFG6 runs failed then, against 1 of 5 with it).
        :meth:`from_corners` is for ends on the front (lexicographic solves), whose spread
        is the front's.

        Examples
        --------
        >>> from paretosurf.adapters.scalarization import IdealPoint
        >>> minima = [[0.0, 1e4], [5e3, 0.25]]                  # far off in f2, in f1
        >>> IdealPoint.from_minima(minima).value.tolist()       # best - 1e-8 max(1, |best|)
        [-1e-08, 0.24999999]
        >>> z = IdealPoint.from_minima(minima, start=[2.0, 1.25])   # descents 2 and 1
        >>> z.value.round(8).tolist()                           # best - 1e-6 descent - 1e-8
        [-2.01e-06, 0.24999899]
        """
        best = np.asarray(values, dtype=np.float64).min(axis=0)
        worst = best
        if start is not None:
            at_start = np.asarray(start, dtype=np.float64)
            worst = np.maximum(best, np.where(np.isfinite(at_start), at_start, best))
        return cls(best - ideal_margin(best, worst), given=False, best=best, worst=worst)

    @classmethod
    def for_kind(
        cls, values: ArrayLike, kind: str, *, start: ArrayLike | None = None
    ) -> IdealPoint:
        """The estimate for scalarization ``kind`` from the objective vectors ``values``
        (K, M) of solves that each minimized one objective alone: :meth:`from_minima` for
        the kinds whose coefficients grow as ``1 / floor`` at a weight of zero
        (:data:`RECIPROCAL_KINDS`), which a margin taken from those solves' spread can
        blind; :meth:`from_corners` for the others, whose coefficients stay at most 1 and
        where a wider margin only moves the rays' origin a little further below. ``start``:
        the objectives where the solves started (:meth:`from_minima`)."""
        if kind in RECIPROCAL_KINDS:
            return cls.from_minima(values, start=start)
        return cls.from_corners(values)

    @property
    def n_objectives(self) -> int | None:
        for v in (self.value, self._best):
            if v is not None:
                return int(v.size)
        return None

    @property
    def best(self) -> FloatArray | None:
        """Smallest value per objective observed so far (an estimate's corner solves
        included); ``None`` for a given ideal, which keeps only :attr:`excess`."""
        return None if self._best is None else self._best.copy()

    @property
    def beaten(self) -> tuple[int, ...]:
        """The objectives (0-based) with an observed value strictly below a given ideal; ``()``
        for an estimate, which :meth:`observe` moves below every value instead."""
        if self._excess is None:
            return ()
        return tuple(int(m) for m in np.flatnonzero(self._excess < 0.0))

    @property
    def excess(self) -> FloatArray | None:
        """Per objective, the smallest observed value minus a given ideal where that is
        negative, 0 elsewhere (``excess.min()`` is the most negative excess); zeros for an
        estimate once observed, ``None`` before any observation."""
        if self.given:
            return None if self._excess is None else self._excess.copy()
        return None if self._best is None else np.zeros(self._best.size)

    def observe(self, points: ArrayLike) -> bool:
        """Take the objective vectors ``points`` (R, M) of one round (minimized) into
        account: an estimated ideal moves down (never up) to ``best - margin`` where a value
        came within half a margin of it; a given one stays and records values below it. Rows
        that are not all finite are skipped. Returns whether the ideal moved.

        Raises
        ------
        ValueError
            When ``points`` is not of shape (R, M) (or (M,)) with M the ideal's length.
        """
        pts = np.asarray(points, dtype=np.float64)
        if pts.ndim == 1:
            pts = pts[None, :]
        m = self.n_objectives
        if pts.ndim != 2 or pts.shape[1] < 2 or (m is not None and pts.shape[1] != m):
            want = f"(R, {m})" if m is not None else "(R, M) with M >= 2"
            raise ValueError(
                f"points must be an array of shape {want} (one objective vector "
                f"per row), got shape {pts.shape}"
            )
        pts = pts[np.all(np.isfinite(pts), axis=1)]
        if pts.shape[0] == 0:
            return False
        lo = pts.min(axis=0)
        if self.given:
            assert self.value is not None
            below = np.minimum(lo - self.value, 0.0)
            if self._excess is None:
                self._excess = below
            elif np.any(below < self._excess):
                self._excess = np.minimum(self._excess, below)
            return False
        hi = pts.max(axis=0)
        self._best = lo if self._best is None else np.minimum(self._best, lo)
        self._worst = hi if self._worst is None else np.maximum(self._worst, hi)
        margin = ideal_margin(self._best, self._worst)
        if self.value is None:
            self.value = self._best - margin
            return True
        close = self.value > self._best - 0.5 * margin
        if not np.any(close):
            return False
        self.value = np.where(close, np.minimum(self.value, self._best - margin), self.value)
        return True

    def __repr__(self) -> str:
        value = None if self.value is None else self.value.tolist()
        return f"IdealPoint({value}, given={self.given})"


class FollowsIdealPoint:
    """The ideal-point part of the adapters' solvers (``from_scipy``, ``from_torch``,
    ``from_pymoo_global``): what the run reads (``ideal``, ``ideal_given``, ``ideal_beaten``,
    ``ideal_excess``) and :meth:`observe`, over a :class:`Scalarization` held as
    ``scalarization`` and an :class:`IdealPoint` held as ``_ideal`` (``None`` for the
    linear scalarization)."""

    scalarization: Scalarization
    _ideal: IdealPoint | None

    @property
    def ideal(self) -> FloatArray | None:
        """The ideal point in use by the Tchebycheff scalarizations and ASF (``None`` for
        linear)."""
        return None if self.scalarization.ideal is None else self.scalarization.ideal.copy()

    @property
    def ideal_given(self) -> bool:
        """Whether the user gave the ideal point (``False`` for an estimate and for linear)."""
        return self._ideal is not None and self._ideal.given

    @property
    def ideal_beaten(self) -> tuple[int, ...]:
        """Objectives (0-based) whose observed values went strictly below a given ideal
        point (``()`` for an estimate, which :meth:`observe` moves below them)."""
        return () if self._ideal is None else self._ideal.beaten

    @property
    def ideal_excess(self) -> FloatArray | None:
        """Per objective, the smallest observed value minus a given ideal point where
        negative, else 0 (``None`` for linear and before any observation)."""
        return None if self._ideal is None else self._ideal.excess

    def observe(self, points: ArrayLike) -> bool:
        """Take one round's objective vectors ``points`` (R, M), minimized, into account: an
        estimated ideal point moves down, never up, to stay below every value found (by the
        margin of :class:`IdealPoint`); a given one stays and records the objectives that
        went below it (``ideal_beaten``). A no-op for linear scalarization. Deterministic:
        the same calls give the same ideal, bit for bit. Returns whether the ideal point
        moved.

        The run calls it after every round, in its own process; the next round's solves (in
        this process or in workers that get the solver pickled again) use the new ideal.

        Examples
        --------
        >>> import numpy as np
        >>> from paretosurf.adapters import from_scipy
        >>> def objectives(x):      # f2: a local minimum near x = 0.96, the global near -1.04
        ...     return np.array([(x[0] - 1.0) ** 2, (x[0] ** 2 - 1.0) ** 2 + 0.3 * x[0]])
        >>> solver = from_scipy(objectives, x0=[1.0], scalarization="tchebycheff")
        >>> solver.ideal.round(3).tolist()      # the corner solves stop in the local minimum
        [-0.0, 0.294]
        >>> h = objectives(np.array([-1.0]))    # a point the run found: (4, -0.3)
        >>> solver.observe([h])                 # below the estimate: it moves
        True
        >>> solver.ideal.round(8).tolist()      # h minus the margin: 1e-6 * range + 1e-8
        [-4.01e-06, -0.30000061]
        >>> solver.solve(0.5, None).info["ideal"] == solver.ideal.tolist()
        True
        """
        if self._ideal is None:
            return False
        moved = self._ideal.observe(points)
        if moved:
            assert self._ideal.value is not None
            self.scalarization = self.scalarization.with_ideal(self._ideal.value)
        return moved
