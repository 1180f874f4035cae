"""Checks of the plots' inputs: results mappings, the points and weights of one method,
objective names and the reference front."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.validation import as_front_points, as_weights

FloatArray = NDArray[np.float64]


def _check_results(results: object, *, name: str = "results") -> dict[str, Any]:
    if not isinstance(results, Mapping):
        raise TypeError(
            f"{name} must be a mapping from method name to result, got {type(results).__name__}"
        )
    if len(results) == 0:
        raise ValueError(f"{name} must hold at least one method, got an empty mapping")
    out: dict[str, Any] = {}
    for key, value in results.items():
        if not isinstance(key, str):
            raise TypeError(f"{name} keys must be method names (str), got {key!r}")
        out[key] = value
    return out


#: What the 2-D plots suggest for the points of M >= 3 objectives (a Pareto surface).
SURFACE_PLOTS = (
    "plotting.plot_surface_result(result) (points in 3-D, weights on the simplex; "
    "M = 3) or plotting.plot_surface(points, weights)"
)


def _scalar_weights(raw: ArrayLike, name: str, plot: str) -> FloatArray:
    """The scalar weight of each point of a 2-D plot: ``raw`` itself (increasing, shape (P,)),
    or the first component (the weight on objective 1) of weight vectors of shape (P, 2).

    Weight vectors of M >= 3 components (a surface) are refused, naming the plots that draw
    them.
    """
    try:
        arr = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError):
        return as_weights(raw, name=name, span_unit_interval=False)  # raises, naming it
    if arr.ndim == 2 and arr.shape[1] >= 3:
        raise ValueError(
            f"{plot} draws bi-objective fronts (M = 2), but {name} holds weight vectors of "
            f"M = {arr.shape[1]} objectives (shape {arr.shape}): the points lie on a Pareto "
            f"surface; draw them with {SURFACE_PLOTS}"
        )
    if arr.ndim == 2 and arr.shape[1] == 2:
        from paretosurf.surfaces import check_simplex_weights

        return check_simplex_weights(arr, 2, name=name)[:, 0].copy()
    return as_weights(raw, name=name, span_unit_interval=False)


def _front_entry(
    name: str, value: object, plot: str = "plot_front"
) -> tuple[FloatArray | None, FloatArray]:
    """``(weights or None, points)`` of one method of :func:`plot_front` (or of ``plot``).

    A result's weight vectors of shape (P, 2) (M = 2, as :func:`paretosurf.surf_simplex`
    gives) become their first component, the weight on objective 1, and the points are put
    in the order of it (the order in which the result's records measure their gaps)."""
    if hasattr(value, "points") and hasattr(value, "weights"):
        weights = _scalar_weights(value.weights, f"results[{name!r}].weights", plot)
        points = np.asarray(value.points, dtype=np.float64)
        if points.ndim == 2 and points.shape[1] == 0:
            raise ValueError(f"results[{name!r}] has no points (no iteration ran)")
        pts = as_front_points(points, name=f"results[{name!r}].points", min_points=1)
        if weights.size != pts.shape[0]:
            raise ValueError(
                f"results[{name!r}] has {weights.size} weights but {pts.shape[0]} points"
            )
        if np.any(np.diff(weights) < 0):
            order = np.argsort(weights, kind="stable")
            weights, pts = weights[order], pts[order]
        return weights, pts
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"results[{name!r}] must be a Result (with .weights and .points) or an "
            f"(N+1, M) array of points, got {type(value).__name__}"
        ) from None
    return None, as_front_points(arr, name=f"results[{name!r}]", min_points=1)


def _check_two_objectives(points: FloatArray, what: str, plot: str = "plot_front") -> None:
    if points.shape[1] != 2:
        hint = f"; draw M >= 3 with {SURFACE_PLOTS}" if points.shape[1] >= 3 else ""
        raise ValueError(
            f"{plot} draws bi-objective fronts only (M = 2); {what} has "
            f"M = {points.shape[1]} objectives{hint}"
        )


def _check_objective_names(objective_names: object) -> tuple[str, str]:
    names = ("objective 1", "objective 2") if objective_names is None else objective_names
    if (
        isinstance(names, (str, bytes))
        or not isinstance(names, Sequence)
        or len(names) != 2
        or not all(isinstance(n, str) for n in names)
    ):
        raise ValueError(f"objective_names must be two strings, got {objective_names!r}")
    return names[0], names[1]


def _check_reference(
    reference_front: ArrayLike | None, plot: str = "plot_front"
) -> FloatArray | None:
    if reference_front is None:
        return None
    ref = as_front_points(reference_front, name="reference_front", min_points=2)
    _check_two_objectives(ref, "reference_front", plot)
    return ref
