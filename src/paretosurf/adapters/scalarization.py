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
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "DEFAULT_FLOOR",
    "DEFAULT_RHO",
    "SCALARIZATIONS",
    "Scalarization",
    "as_scalarization",
    "check_weight",
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
            if not (np.all(np.isfinite(vec)) and np.all(vec >= 0)
                    and abs(float(vec.sum()) - 1.0) <= SIMPLEX_SUM_TOL):
                raise ValueError(f"{name} must be a weight vector on the simplex (entries "
                                 f">= 0 summing to 1), got {vec.tolist()}")
            return vec
        if vec.ndim == 0:
            w = float(vec)
    if isinstance(w, bool) or not isinstance(w, numbers.Real):
        raise TypeError(f"{name} must be a real number in [0, 1] or a weight vector on the "
                        f"simplex, got {w!r}")
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
    """

    kind: str
    ideal: FloatArray | None
    rho: float
    floor: float

    def __init__(self, kind: str = "linear", *, ideal: ArrayLike | None = None,
                 rho: float = DEFAULT_RHO, floor: float = DEFAULT_FLOOR) -> None:
        if not isinstance(kind, str) or kind not in SCALARIZATIONS:
            raise ValueError(f"scalarization must be one of {list(SCALARIZATIONS)}, "
                             f"got {kind!r}")
        self.kind = kind
        self.ideal = None if ideal is None else _as_ideal(ideal)
        if isinstance(rho, bool) or not isinstance(rho, numbers.Real) or not (
                np.isfinite(rho) and rho >= 0):
            raise ValueError(f"rho must be a finite number >= 0, got {rho!r}")
        self.rho = float(rho)
        if isinstance(floor, bool) or not isinstance(floor, numbers.Real) or not (
                0.0 < floor <= 0.5):
            raise ValueError(f"floor must lie in (0, 0.5], got {floor!r}")
        self.floor = float(floor)

    @property
    def needs_ideal(self) -> bool:
        """Whether the kind uses the ideal point (the Tchebycheff kinds)."""
        return self.kind != "linear"

    def with_ideal(self, ideal: ArrayLike) -> Scalarization:
        """A copy with the ideal point ``ideal``."""
        return Scalarization(self.kind, ideal=ideal, rho=self.rho, floor=self.floor)

    def coefficients(self, w: float | ArrayLike) -> FloatArray:
        """The coefficient vector ``c(w)``: ``lam = (w, 1 - w)`` (or the weight vector) for
        ``"linear"``, ``max(lam, floor)`` for ``"tchebycheff"``, ``1 / max(mu, floor)`` for
        ``"modified_tchebycheff"`` with the ray direction ``mu = (1 - w, w)``, or for a weight
        vector ``mu`` proportional to ``1 / max(lam, floor)`` (the same for two objectives
        away from the ends), and ``1 / max(lam, floor)`` for ``"asf"`` (weight vectors only).

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
        if self.kind == "asf":
            if np.ndim(w) == 0:
                raise ValueError(
                    "scalarization 'asf' takes weight vectors (its corner e_m is where "
                    "objective m is worst), not the scalar weight of objective 1: give [w, 1 - w]"
                    " or use 'modified_tchebycheff' (the same ray, oriented by w)")
            return 1.0 / np.maximum(weight_vector(w), self.floor)
        lam = weight_vector(w)
        if self.kind == "linear":
            return lam
        if self.kind == "tchebycheff":
            return np.maximum(lam, self.floor)
        if lam.size == 2:
            return 1.0 / np.maximum(lam[::-1], self.floor)
        mu = 1.0 / np.maximum(lam, self.floor)
        return 1.0 / np.maximum(mu / mu.sum(), self.floor)

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
            raise ValueError(f"scalarization {self.kind!r} needs an ideal point; "
                             "give ideal=[z1, z2, ...]")
        if self.ideal is not None and self.ideal.size != m:
            raise ValueError(f"the ideal point has {self.ideal.size} objectives, the weight "
                             f"{m}")
        out = self.combine(h, coefficients, self.ideal)
        return float(out) if np.ndim(out) == 0 else out

    def __repr__(self) -> str:
        ideal = None if self.ideal is None else self.ideal.tolist()
        return (f"Scalarization({self.kind!r}, ideal={ideal}, rho={self.rho:g}, "
                f"floor={self.floor:g})")


def _as_ideal(ideal: ArrayLike) -> FloatArray:
    z = np.asarray(ideal, dtype=np.float64)
    if z.ndim != 1 or z.size < 2 or not np.all(np.isfinite(z)):
        raise ValueError(f"ideal must be a finite vector with one entry per objective (2 or "
                         f"more), got {np.asarray(ideal)!r}")
    return z.copy()


def as_scalarization(scalarization: str | Scalarization, ideal: ArrayLike | None = None,
                     rho: float | None = None) -> Scalarization:
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
            raise ValueError("give ideal and rho inside the Scalarization, not as keywords "
                             "next to a Scalarization instance")
        return scalarization
    if not isinstance(scalarization, str) or scalarization not in SCALARIZATIONS:
        raise ValueError(f"scalarization must be one of {list(SCALARIZATIONS)} or a "
                         f"Scalarization, got {scalarization!r}")
    return Scalarization(scalarization, ideal=ideal, rho=DEFAULT_RHO if rho is None else rho)
