"""Plots of fronts and of SURF's convergence (matplotlib, imported only when a plot is drawn).

Four figures cover what a run shows:

- :func:`plot_fronts`: one panel per method, side by side on shared axes, each with the method's
  points joined in weight order over the exact front (a thin grey line) and titled with the
  method's CV and gap ratio; points are coloured by their weight, or by their position along the
  front when the weights cluster (see :func:`weights_cluster`);
- :func:`plot_front`: the same points of one or more methods overlaid on one axes;
- :func:`plot_cdf_history`: SURF's CDF estimates ``Phi_t`` iteration by iteration, with the
  distance to the true CDF when it is known;
- :func:`plot_uniformity`: CV and gap ratio of the points per outer iteration (of the
  nearest-neighbour distances for runs of M >= 3 objectives, as their records hold).

The front plots take the results of :func:`paretosurf.surf_simplex` with M = 2 as well: a
weight vector ``(w, 1 - w)`` stands for ``w``, the weight on objective 1. They refuse results of
M >= 3 objectives with a message naming the surface plots below.

For M >= 3 objectives (Pareto surfaces), :func:`plot_surface` draws the points in 3-D and
:func:`plot_simplex_weights` the weight vectors of an M = 3 run in the weight triangle, each
point coloured by its weight vector read as RGB; :func:`plot_surface_result` puts both side by
side. These two return the :class:`~matplotlib.axes.Axes` they drew into.

The other functions draw into the axes they are given (or a new figure) and return the
:class:`~matplotlib.figure.Figure`; :func:`save_figure` writes it to a file. Without a display
(no ``DISPLAY``/``WAYLAND_DISPLAY`` on Linux and no ``MPLBACKEND``) the non-interactive Agg
backend is selected, so the functions work on servers and in CI.
"""

from __future__ import annotations

import math
import numbers
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._validation import as_front_points, as_weights
from paretosurf.result import measures_nearest_neighbours

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.colors import Colormap
    from matplotlib.figure import Figure
    from mpl_toolkits.mplot3d.axes3d import Axes3D

__all__ = [
    "plot_cdf_history",
    "plot_front",
    "plot_fronts",
    "plot_simplex_weights",
    "plot_surface",
    "plot_surface_result",
    "plot_uniformity",
    "save_figure",
    "weight_colors",
    "weights_cluster",
]

FloatArray = NDArray[np.float64]

#: Label of the colour bar of :func:`plot_fronts` and :func:`plot_front` when points are
#: coloured by their weight.
WEIGHT_LABEL = "weight w on objective 1"

#: Colour bar label when points are coloured by the arc-length fraction of their projection
#: onto the reference front.
POSITION_LABEL = "arc-length position on the front"

#: Colour bar label when points are coloured by their cumulative chord-length fraction (no
#: reference front).
CHORD_POSITION_LABEL = "chord-length position along the points"

#: What points can be coloured by (``color_by``).
COLOR_BY = ("auto", "weight", "position")

#: Weights cluster when a closed interval of width ``CLUSTER_WIDTH`` holds more than
#: ``CLUSTER_FRACTION`` of them (see :func:`weights_cluster`).
CLUSTER_WIDTH = 0.05
CLUSTER_FRACTION = 0.5

#: :func:`plot_fronts` puts up to this many panels in one row; more wrap into rows of
#: ``WRAP_COLUMNS``.
MAX_ROW_PANELS = 4
WRAP_COLUMNS = 3

#: Markers given to the methods of a plot, in order (then repeated).
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")

#: Largest number of CDF curves :func:`plot_cdf_history` draws by default.
MAX_DEFAULT_CURVES = 11

#: Grid on which :func:`plot_cdf_history` compares each ``Phi_t`` with the true CDF.
CDF_ERROR_GRID = 1001


# ---------------------------------------------------------------------------- helpers
def _no_display() -> bool:
    """Whether this process has no screen to draw on (Linux/BSD without X11 or Wayland)."""
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return False


def _pyplot() -> Any:
    """Import pyplot, selecting the Agg backend first when there is no display."""
    import matplotlib

    if (
        "matplotlib.pyplot" not in sys.modules
        and not os.environ.get("MPLBACKEND")
        and _no_display()
    ):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _method_style(index: int) -> tuple[Any, str]:
    """Line colour and marker of the ``index``-th method (the same in every plot)."""
    from matplotlib import colormaps

    colour = colormaps["tab10"](index % 10)
    return colour, MARKERS[index % len(MARKERS)]


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
SURFACE_PLOTS = ("plotting.plot_surface_result(result) (points in 3-D, weights on the simplex; "
                 "M = 3) or plotting.plot_surface(points, weights)")


def _scalar_weights(raw: ArrayLike, name: str, plot: str) -> FloatArray:
    """The scalar weight of each point of a 2-D plot: ``raw`` itself (increasing, shape (P,)),
    or the first component (the weight on objective 1) of weight vectors of shape (P, 2).

    Weight vectors of M >= 3 components (a surface) are refused, naming the plots that draw
    them.
    """
    try:
        arr = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError):
        return as_weights(raw, name=name, span_unit_interval=False)   # raises, naming it
    if arr.ndim == 2 and arr.shape[1] >= 3:
        raise ValueError(
            f"{plot} draws bi-objective fronts (M = 2), but {name} holds weight vectors of "
            f"M = {arr.shape[1]} objectives (shape {arr.shape}): the points lie on a Pareto "
            f"surface; draw them with {SURFACE_PLOTS}")
    if arr.ndim == 2 and arr.shape[1] == 2:
        from paretosurf.simplex_weights import check_simplex_weights

        return check_simplex_weights(arr, 2, name=name)[:, 0].copy()
    return as_weights(raw, name=name, span_unit_interval=False)


def _front_entry(name: str, value: object, plot: str = "plot_front"
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
            raise ValueError(f"results[{name!r}] has {weights.size} weights but "
                             f"{pts.shape[0]} points")
        if np.any(np.diff(weights) < 0):
            order = np.argsort(weights, kind="stable")
            weights, pts = weights[order], pts[order]
        return weights, pts
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"results[{name!r}] must be a SurfResult (with .weights and .points) or an "
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


def _axes_figure(ax: Any) -> Figure:
    fig = getattr(ax, "figure", None)
    if fig is None or not hasattr(ax, "plot"):
        raise TypeError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    return fig


def _truncated(cmap: str | Colormap, low: float) -> Colormap:
    """``cmap`` restricted to ``[low, 1]`` (drops the palest colours)."""
    from matplotlib import colormaps
    from matplotlib.colors import ListedColormap

    base = colormaps[cmap] if isinstance(cmap, str) else cmap
    return ListedColormap(base(np.linspace(low, 1.0, 256)))


def _check_objective_names(objective_names: object) -> tuple[str, str]:
    names = ("objective 1", "objective 2") if objective_names is None else objective_names
    if (isinstance(names, (str, bytes)) or not isinstance(names, Sequence) or len(names) != 2
            or not all(isinstance(n, str) for n in names)):
        raise ValueError(f"objective_names must be two strings, got {objective_names!r}")
    return names[0], names[1]


def _check_reference(reference_front: ArrayLike | None, plot: str = "plot_front"
                     ) -> FloatArray | None:
    if reference_front is None:
        return None
    ref = as_front_points(reference_front, name="reference_front", min_points=2)
    _check_two_objectives(ref, "reference_front", plot)
    return ref


# ---------------------------------------------------------------------------- colours
def weights_cluster(weights: ArrayLike, /) -> bool:
    """Whether the weights cluster, so that colouring points by weight would hide them.

    The weights cluster when some closed interval of width ``CLUSTER_WIDTH = 0.05`` (5 % of
    the weight range [0, 1]) holds more than ``CLUSTER_FRACTION = 0.5`` of them: at least
    ``P // 2 + 1`` of the P weights. Such points get colours within 5 % of the colour map, which
    the eye cannot tell apart. Evenly spaced weights ``n / N`` never cluster (a window of width
    0.05 holds at most ``0.05 N + 1`` of the ``N + 1`` weights); SURF's weights on a front
    whose speed ``v(w)`` is concentrated in a narrow range of ``w`` (Deep Sea Treasure) do.

    Parameters
    ----------
    weights : array_like, shape (P,) or (P, 2)
        Finite weights, in any order; or weight vectors of two components (M = 2, as
        :func:`paretosurf.surf_simplex` gives), which stand for their first component, the
        weight on objective 1. Fewer than 2 weights never cluster.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.plotting import weights_cluster
    >>> weights_cluster(np.linspace(0, 1, 201))           # evenly spaced: never
    False
    >>> weights_cluster([0.0, 0.5, 0.96, 0.97, 0.98, 0.99, 1.0])   # 5 of 7 within 0.04
    True
    >>> weights_cluster([0.0, 0.25, 0.5, 0.98, 0.99, 1.0])          # 3 of 6: just half
    False
    >>> weights_cluster([[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]])       # M = 2 weight vectors
    False
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim == 2 and w.shape[1] == 2:
        from paretosurf.simplex_weights import check_simplex_weights

        w = check_simplex_weights(w, 2, name="weights")[:, 0]
    if w.ndim != 1:
        more = (f" (weight vectors of M = {w.shape[1]} objectives colour surface plots by "
                f"weight_colors)" if w.ndim == 2 and w.shape[1] >= 3 else "")
        raise ValueError(f"weights must be a 1-D array or weight vectors of 2 components, got "
                         f"shape {w.shape}{more}")
    if not np.all(np.isfinite(w)):
        raise ValueError("weights must be finite")
    if w.size < 2:
        return False
    w = np.sort(w)
    # most weights in a window [w_i, w_i + width] (a densest window starts at a weight)
    inside = np.searchsorted(w, w + CLUSTER_WIDTH, side="right") - np.arange(w.size)
    return bool(int(inside.max()) > CLUSTER_FRACTION * w.size)


def _chord_position(points: FloatArray) -> FloatArray:
    """Cumulative chord length from the first point, as a fraction of the total (all 0 if the
    points coincide)."""
    cum = np.concatenate(([0.0], np.cumsum(np.linalg.norm(np.diff(points, axis=0), axis=1))))
    total = float(cum[-1])
    return cum / total if total > 0 else np.zeros_like(cum)


def _front_position(points: FloatArray, reference: FloatArray | None) -> FloatArray:
    """Position in [0, 1] of each point along the front.

    With a reference front (a polyline), the arc length from its first point to the point's
    nearest point on it, as a fraction of its length; without one (or with a reference of zero
    length), the points' own cumulative chord-length fraction.
    """
    if reference is None:
        return _chord_position(points)
    start, step = reference[:-1], np.diff(reference, axis=0)
    lengths = np.linalg.norm(step, axis=1)
    total = float(lengths.sum())
    if total == 0.0:
        return _chord_position(points)
    sq = lengths**2
    safe = np.where(sq > 0, sq, 1.0)
    before = np.concatenate(([0.0], np.cumsum(lengths)))
    along = np.empty(points.shape[0])
    chunk = max(1, 1_000_000 // lengths.size)      # bound the (points, segments) temporaries
    for lo in range(0, points.shape[0], chunk):
        block = points[lo:lo + chunk]
        # parameter t in [0, 1] of each segment's point nearest to each point: (P, R-1)
        rel = block[:, None, :] - start[None, :, :]
        t = np.where(sq > 0, np.clip(np.einsum("prk,rk->pr", rel, step) / safe, 0.0, 1.0), 0.0)
        gap = rel - t[:, :, None] * step[None, :, :]
        nearest = np.argmin(np.einsum("prk,prk->pr", gap, gap), axis=1)
        along[lo:lo + chunk] = (before[nearest]
                                + t[np.arange(block.shape[0]), nearest] * lengths[nearest])
    return np.clip(along / total, 0.0, 1.0)


def _colour_mode(color_by: object, weights: Sequence[FloatArray | None],
                 reference: FloatArray | None) -> tuple[str | None, str]:
    """``(mode, colour bar label)``: mode ``"weight"``, ``"position"`` or None (no colours:
    colouring by weight with no weights known)."""
    if not isinstance(color_by, str) or color_by not in COLOR_BY:
        raise ValueError(f"color_by must be one of {COLOR_BY}, got {color_by!r}")
    known = [w for w in weights if w is not None]
    mode: str | None = color_by
    if color_by == "auto":
        mode = ("position" if any(weights_cluster(w) for w in known)
                else "weight" if known else None)
    elif color_by == "weight" and not known:
        mode = None
    if mode == "position":
        return mode, CHORD_POSITION_LABEL if reference is None else POSITION_LABEL
    return mode, WEIGHT_LABEL


def _colour_values(mode: str | None, weights: FloatArray | None, points: FloatArray,
                   reference: FloatArray | None) -> FloatArray | None:
    """What each point's fill colour encodes (None: the method's own colour)."""
    if mode == "position":
        return _front_position(points, reference)
    if mode == "weight":
        return weights
    return None


# ---------------------------------------------------------------------------- front
def _draw_reference(ax: Any, ref: FloatArray, label: str = "exact front") -> Any:
    """The reference front as a thin grey line under everything else; returns the line."""
    (line,) = ax.plot(ref[:, 0], ref[:, 1], color="0.6", linewidth=0.8, zorder=1,
                      label=label)
    return line


def _draw_points(ax: Any, pts: FloatArray, values: FloatArray | None, colour: Any, marker: str,
                 colour_map: Colormap, norm: Any) -> None:
    """A method's points joined in order by a thin line in its colour, filled with the colour
    map's colour of ``values`` (or the method's colour when None)."""
    ax.plot(pts[:, 0], pts[:, 1], color=colour, linewidth=1.0, alpha=0.7, zorder=2)
    if values is not None:
        ax.scatter(pts[:, 0], pts[:, 1], c=values, cmap=colour_map, norm=norm, marker=marker,
                   s=36, edgecolors=[colour], linewidths=0.9, zorder=3)
    else:
        ax.scatter(pts[:, 0], pts[:, 1], color=[colour], marker=marker, s=36,
                   edgecolors=[colour], linewidths=0.9, zorder=3)


def plot_front(
    results: Mapping[str, Any],
    *,
    reference_front: ArrayLike | None = None,
    ax: Axes | None = None,
    title: str | None = None,
    objective_names: Sequence[str] | None = ("objective 1", "objective 2"),
    color_by: str = "auto",
    cmap: str | Colormap = "viridis",
) -> Figure:
    """Points of one or more methods overlaid on one axes, coloured by weight (or position).

    :func:`plot_fronts` draws one panel per method instead, which reads better for more than
    one or two methods.

    Parameters
    ----------
    results : mapping
        Method name to a :class:`~paretosurf.SurfResult` (or any object with ``weights`` of
        shape (N+1,) and ``points`` of shape (N+1, 2)), or to an (N+1, 2) array of points in
        weight order. Weight vectors of shape (N+1, 2), as :func:`paretosurf.surf_simplex`
        gives for M = 2, stand for their first component, the weight on objective 1 (the
        scalar weight of :func:`paretosurf.surf`), and order the points by it. A method's
        points are joined in weight order by a thin line in the method's colour and drawn with
        the method's own marker; points are filled with the colour of their weight or position
        (``color_by``; shared colour map and colour bar), or with the method's colour when
        colouring by weight and the method gives no weights.
    reference_front : array_like, shape (P, 2), optional
        Exact front, drawn as a thin grey line (e.g. ``problem.reference_front(1001)``),
        ordered from its ``w = 0`` end.
    ax : matplotlib Axes, optional
        Axes to draw into (default: a new figure).
    title : str, optional
        Axes title.
    objective_names : pair of str, optional
        Axis labels (default ``("objective 1", "objective 2")``).
    color_by : {"auto", "weight", "position"}
        What the fill colour shows, as in :func:`plot_fronts`: the weight, the position along
        the front, or (``"auto"``) the position when some method's weights cluster
        (:func:`weights_cluster`), else the weight.
    cmap : str or Colormap
        Colour map of the weights or positions.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``results`` is empty, a result has no points, or anything has M != 2 objectives
        (for weight vectors or points of M >= 3 objectives the message names
        :func:`plot_surface_result` and :func:`plot_surface`, which draw surfaces).
    TypeError
        If ``results`` is not a mapping of names to results or arrays.

    Examples
    --------
    >>> import numpy as np
    >>> import paretosurf as ps
    >>> from paretosurf.plotting import plot_front
    >>> res = ps.surf(lambda w, s: ps.Solution([1 - w, w ** 2]), 8, iterations=3)
    >>> fig = plot_front({"SURF": res}, reference_front=np.c_[1 - np.linspace(0, 1, 50),
    ...                                                       np.linspace(0, 1, 50) ** 2])
    >>> len(fig.axes), fig.axes[1].get_ylabel()          # plot + colour bar
    (2, 'weight w on objective 1')
    """
    entries = _check_results(results)
    names = _check_objective_names(objective_names)
    parsed = {name: _front_entry(name, value, "plot_front") for name, value in entries.items()}
    for name, (_, pts) in parsed.items():
        _check_two_objectives(pts, f"results[{name!r}]", "plot_front")
    ref = _check_reference(reference_front, "plot_front")
    mode, colour_label = _colour_mode(color_by, [w for w, _ in parsed.values()], ref)

    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    from matplotlib.lines import Line2D

    if ax is None:
        fig, ax = _pyplot().subplots(figsize=(6.0, 4.8), layout="constrained")
    else:
        fig = _axes_figure(ax)
    colour_map = colormaps[cmap] if isinstance(cmap, str) else cmap
    norm = Normalize(vmin=0.0, vmax=1.0)
    handles: list[Any] = []
    if ref is not None:
        handles.append(_draw_reference(ax, ref))
    for i, (name, (weights, pts)) in enumerate(parsed.items()):
        colour, marker = _method_style(i)
        _draw_points(ax, pts, _colour_values(mode, weights, pts, ref), colour, marker,
                     colour_map, norm)
        handles.append(Line2D([], [], color=colour, marker=marker, markerfacecolor="white",
                              markeredgecolor=colour, linewidth=1.0, label=name))
    if mode is not None:
        fig.colorbar(ScalarMappable(norm=norm, cmap=colour_map), ax=ax, label=colour_label)
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    ax.legend(handles=handles, loc="best", fontsize="small")
    if title is not None:
        ax.set_title(title)
    return fig


def _panel_entries(results: object) -> list[tuple[str, FloatArray | None, FloatArray]]:
    """``(label, weights or None, points)`` per method of :func:`plot_fronts`."""
    if isinstance(results, Mapping):
        return [(name, *_front_entry(name, value, "plot_fronts"))
                for name, value in _check_results(results).items()]
    if isinstance(results, (str, bytes)) or not isinstance(results, Sequence):
        raise TypeError(f"results must be a mapping from method name to result, or a sequence "
                        f"of results with a .label, got {type(results).__name__}")
    if len(results) == 0:
        raise ValueError("results must hold at least one method, got an empty sequence")
    out = []
    for i, value in enumerate(results):
        label = getattr(value, "label", None)
        if not isinstance(label, str):
            raise TypeError(f"results[{i}] must be a SurfResult (with a str .label, .weights and "
                            f".points), got {type(value).__name__}; pass a mapping from name "
                            f"to result to name other objects")
        out.append((label, *_front_entry(label, value, "plot_fronts")))
    return out


def _panel_grid(n: int, ncols: object) -> tuple[int, int]:
    """``(rows, columns)`` of ``n`` panels."""
    if ncols is None:
        cols = n if n <= MAX_ROW_PANELS else WRAP_COLUMNS
    elif isinstance(ncols, bool) or not isinstance(ncols, numbers.Integral) or ncols < 1:
        raise ValueError(f"ncols must be an integer >= 1 or None, got {ncols!r}")
    else:
        cols = min(int(ncols), n)
    return -(-n // cols), cols


def _padded_limits(values: FloatArray, margin: float = 0.04) -> tuple[float, float]:
    lo, hi = float(values.min()), float(values.max())
    pad = margin * (hi - lo) if hi > lo else margin * max(abs(lo), 1.0)
    return lo - pad, hi + pad


def _panel_title(label: str, points: FloatArray, result: object = None) -> str:
    """The method's label over the CV and gap ratio of its points: a result's own (measured
    in its run's coordinates, as its message and history are), else of the points' gaps."""
    from paretosurf.metrics import cv_of_gaps, gap_ratio_of_gaps

    gaps = np.linalg.norm(np.diff(points, axis=0), axis=1)
    if gaps.size == 0:
        return f"{label}\n(one point)"
    own = (getattr(result, "cv", None), getattr(result, "gap_ratio", None))
    if all(isinstance(v, float) and math.isfinite(v) for v in own):
        values = own
    else:
        values = (cv_of_gaps(gaps), gap_ratio_of_gaps(gaps))
    cv, ratio = (f"{v:#.3g}".rstrip(".") for v in values)
    return f"{label}\nCV {cv}, gap ratio {ratio}"


def plot_fronts(
    results: Mapping[str, Any] | Sequence[Any],
    *,
    reference_front: ArrayLike | None = None,
    reference_label: str = "exact front",
    objective_names: Sequence[str] | None = None,
    color_by: str = "auto",
    ncols: int | None = None,
    ax: Sequence[Axes] | None = None,
    title: str | None = None,
    cmap: str | Colormap = "viridis",
) -> Figure:
    """One panel per method, side by side on shared axes: the points each method found.

    Each panel shows the exact front as a thin grey line, the method's points joined in weight
    order by a thin line in the method's colour (the colour and marker :func:`plot_uniformity`
    gives it), and is titled with the method's label and the CV and gap ratio of its points
    (0 and 1 are perfectly even): a result's own ``cv`` and ``gap_ratio``, measured in its
    run's coordinates as its message and history are; for plain arrays,
    :func:`paretosurf.metrics.cv` and :func:`paretosurf.metrics.gap_ratio` of the points as
    given. All panels have the same axis limits, so the spacing of the points can be compared
    at a glance. The points are filled with the colour of their weight or of their position
    along the front (``color_by``), on one colour bar shared by all panels.

    Up to 4 methods make one row; more wrap into rows of 3 panels (``ncols`` overrides). In a
    new figure the panels share their axes (zooming one zooms all), and only the outer panels
    carry axis labels and tick labels.

    Parameters
    ----------
    results : mapping or sequence
        Method name to a :class:`~paretosurf.SurfResult` (or any object with increasing
        ``weights`` of shape (P,) and ``points`` of shape (P, 2)) or to a (P, 2) array of points
        in weight order; or a sequence of results, each titled by its ``label``. Weight
        vectors of shape (P, 2) (:func:`paretosurf.surf_simplex` with M = 2) stand for their
        first component, the weight on objective 1, as in :func:`plot_front`.
    reference_front : array_like, shape (R, 2), optional
        Exact front (e.g. ``problem.reference_front(1001)``), ordered from its ``w = 0`` end,
        drawn under every panel.
    reference_label : str
        The reference front's legend entry, for a reference that is not the exact front
        (such as the non-dominated union of every method's points).
    objective_names : pair of str, optional
        Axis labels (default ``("objective 1", "objective 2")``).
    color_by : {"auto", "weight", "position"}
        What the fill colour shows, from 0 to 1. ``"weight"``: the point's weight
        (:data:`WEIGHT_LABEL`; points given as bare arrays are filled with the method's colour,
        and there is no colour bar when no method gives weights). ``"position"``: the point's
        position along the front: with ``reference_front``, the arc length from the front's
        first point to the point's nearest point on it, as a fraction of the front's length
        (:data:`POSITION_LABEL`); without it, the cumulative chord length from the method's
        first point, as a fraction of its total (:data:`CHORD_POSITION_LABEL`). ``"auto"``
        (default): by position when the weights of any method cluster (see
        :func:`weights_cluster`: more than half of them within an interval of width 0.05),
        where colours by weight would be indistinguishable, else by weight.
    ncols : int, optional
        Panels per row.
    ax : sequence of matplotlib Axes, optional
        One Axes per method, all in one figure, to draw into (default: a new figure). Their
        limits are set equal; they are not otherwise linked.
    title : str, optional
        Figure title (``suptitle``).
    cmap : str or Colormap
        Colour map of the weights or positions.

    Returns
    -------
    matplotlib.figure.Figure
        With one Axes per method, in the order of ``results``, then the colour bar's Axes (if
        any).

    Raises
    ------
    ValueError
        If ``results`` is empty, a result has no points, anything has M != 2 objectives (for
        M >= 3 the message names :func:`plot_surface_result` and :func:`plot_surface`), or an
        option is out of range.
    TypeError
        If ``results`` is not a mapping of names to results or arrays or a sequence of results,
        or ``ax`` is not a sequence of Axes.

    Examples
    --------
    >>> import numpy as np
    >>> import paretosurf as ps
    >>> from paretosurf.baselines import uniform
    >>> from paretosurf.plotting import plot_fronts
    >>> solver = lambda w, s: ps.Solution([1 - w, w ** 2])
    >>> runs = [ps.surf(solver, 8, iterations=5), uniform(solver, 8, iterations=1)]
    >>> w = np.linspace(0, 1, 201)
    >>> fig = plot_fronts(runs, reference_front=np.c_[1 - w, w ** 2])
    >>> len(fig.axes)                                   # two panels and the colour bar
    3
    >>> print(fig.axes[1].get_title())
    Uniform-w
    CV 0.257, gap ratio 2.11
    >>> fig.axes[2].get_ylabel()
    'weight w on objective 1'
    >>> fig.axes[0].get_xlim() == fig.axes[1].get_xlim()
    True

    Weights that cluster (here 7 of 9 within 0.05) are coloured by position instead:

    >>> wc = np.array([0, 0.5, 0.95, 0.96, 0.97, 0.98, 0.99, 0.995, 1])
    >>> from types import SimpleNamespace
    >>> fig = plot_fronts({"clustered": SimpleNamespace(weights=wc, points=np.c_[1 - wc, wc**2])})
    >>> fig.axes[1].get_ylabel()
    'chord-length position along the points'
    """
    entries = _panel_entries(results)
    originals = list(results.values() if isinstance(results, Mapping) else results)
    names = _check_objective_names(objective_names)
    for label, _, pts in entries:
        _check_two_objectives(pts, f"the points of {label!r}", "plot_fronts")
    ref = _check_reference(reference_front, "plot_fronts")
    mode, colour_label = _colour_mode(color_by, [w for _, w, _ in entries], ref)
    n = len(entries)
    rows, cols = _panel_grid(n, ncols)

    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    created = ax is None
    if ax is None:
        fig, grid = _pyplot().subplots(
            rows, cols, squeeze=False, sharex=True, sharey=True, layout="constrained",
            figsize=(3.4 * cols + (1.0 if mode is not None else 0.2),
                     3.0 * rows + (0.5 if title is not None else 0.2)))
        panels = [grid[i // cols, i % cols] for i in range(n)]
        for extra in grid.flat[n:]:
            fig.delaxes(extra)
    else:
        if isinstance(ax, (str, bytes)) or not isinstance(ax, Sequence):
            raise TypeError(f"ax must be a sequence of matplotlib Axes (one per method), got "
                            f"{type(ax).__name__}")
        panels = list(ax)
        if len(panels) != n:
            raise ValueError(f"ax must hold one Axes per method ({n}), got {len(panels)}")
        figures = {id(_axes_figure(a)): _axes_figure(a) for a in panels}
        if len(figures) != 1:
            raise ValueError("the Axes in ax must belong to one figure")
        fig = next(iter(figures.values()))

    colour_map = colormaps[cmap] if isinstance(cmap, str) else cmap
    norm = Normalize(vmin=0.0, vmax=1.0)
    everything = [pts for _, _, pts in entries] + ([] if ref is None else [ref])
    stacked = np.concatenate(everything, axis=0)
    xlim, ylim = _padded_limits(stacked[:, 0]), _padded_limits(stacked[:, 1])
    for i, (panel, (label, weights, pts)) in enumerate(zip(panels, entries, strict=True)):
        colour, marker = _method_style(i)
        if ref is not None:
            line = _draw_reference(panel, ref, reference_label)
            if i == 0:
                panel.legend(handles=[line], loc="best", fontsize="small")
        _draw_points(panel, pts, _colour_values(mode, weights, pts, ref), colour, marker,
                     colour_map, norm)
        panel.set_title(_panel_title(label, pts, originals[i]), fontsize="medium")
        panel.set_xlim(xlim)
        panel.set_ylim(ylim)
        panel.grid(True, alpha=0.25)
        col = i % cols
        bottom = not created or i + cols >= n      # no panel below this one
        left = not created or col == 0
        if bottom:
            panel.set_xlabel(names[0])
        if left:
            panel.set_ylabel(names[1])
        if created:
            panel.tick_params(labelbottom=bottom, labelleft=left)
    if mode is not None:
        fig.colorbar(ScalarMappable(norm=norm, cmap=colour_map), ax=panels, label=colour_label)
    if title is not None:
        fig.suptitle(title, fontsize="medium")
    return fig


# ---------------------------------------------------------------------------- CDF history
def _history_of(result: object, name: str = "result") -> list[Any]:
    history = getattr(result, "history", None)
    if not isinstance(history, Sequence):
        raise TypeError(f"{name} must be a SurfResult (with a history), got "
                        f"{type(result).__name__}")
    return list(history)


def _default_iterations(n_updates: int) -> list[int]:
    if n_updates + 1 <= MAX_DEFAULT_CURVES:
        return list(range(n_updates + 1))
    picks = np.round(np.linspace(0, n_updates, MAX_DEFAULT_CURVES)).astype(int)
    return sorted({int(t) for t in picks})


def _check_iterations(iterations: Sequence[int] | NDArray[Any], n_updates: int) -> list[int]:
    if isinstance(iterations, np.ndarray) and iterations.ndim == 1:
        items: list[Any] = iterations.tolist()
    elif isinstance(iterations, Sequence) and not isinstance(iterations, (str, bytes)):
        items = list(iterations)
    else:
        raise TypeError(f"iterations must be a sequence of integers, got {iterations!r}")
    picked: list[int] = []
    for t in items:
        if isinstance(t, bool) or not isinstance(t, numbers.Integral):
            raise TypeError(f"iterations must hold integers, got {t!r}")
        value = int(t)
        if not 0 <= value <= n_updates:
            raise ValueError(f"iterations must lie in [0, {n_updates}] (Phi_0 to Phi_T for a "
                             f"run of T = {n_updates} iterations), got {value}")
        picked.append(value)
    if not picked:
        raise ValueError("iterations must name at least one iteration")
    return sorted(set(picked))


def plot_cdf_history(
    result: Any,
    *,
    true_cdf: Callable[[FloatArray], ArrayLike] | None = None,
    iterations: Sequence[int] | NDArray[Any] | None = None,
    ax: Axes | None = None,
    error_ax: Axes | None = None,
    show_error: bool = True,
    cmap: str | Colormap = "Blues",
) -> Figure:
    """SURF's CDF estimates ``Phi_t`` over the outer iterations, light (early) to dark (late).

    ``Phi_0`` is the identity and ``result.history[t].cdf`` is ``Phi_{t+1}``, so a run of T
    iterations has the estimates ``Phi_0 .. Phi_T``.

    Parameters
    ----------
    result : SurfResult
        A SURF run (any object with a ``history`` of records holding ``cdf``). Results of
        the baselines have no CDF history and are refused.
    true_cdf : callable, optional
        The true CDF ``Phi`` (vectorised, e.g. ``problem.cdf()``), drawn dashed. When given
        and ``show_error`` is true, ``max_w |Phi_t(w) - Phi(w)|`` (see
        :func:`paretosurf.metrics.cdf_error`) is drawn against ``t`` for every t: in a second
        panel of a new figure, in ``error_ax`` if given, or else as an inset of ``ax``.
    iterations : sequence or 1-D array of int, optional
        Which ``Phi_t`` to draw, each ``t`` in ``[0, T]``. Default: all of them when there are
        at most 11, else 11 evenly spread ones including ``Phi_0`` and ``Phi_T``.
    ax : matplotlib Axes, optional
        Axes for the CDF curves (default: a new figure).
    error_ax : matplotlib Axes, optional
        Axes for the CDF error curve.
    show_error : bool
        Whether to draw the CDF error when ``true_cdf`` is given.
    cmap : str or Colormap
        Sequential colour map of the iterations (its palest 30 % is skipped).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError
        If ``result`` has no ``history``.
    ValueError
        If the result has no CDF history of SURF's: a record of the history holds no CDF
        (``cdf`` is None), as with every method but SURF (e.g. ``ps.baselines.uniform`` or
        :func:`paretosurf.surf_simplex`), or no round was run and the result has no CDF
        (``result.cdf`` is None: nothing, not even ``Phi_0``, to draw). The message names the
        result's method. A SURF run of no rounds draws ``Phi_0``, the identity.

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.plotting import plot_cdf_history
    >>> res = ps.surf(lambda w, s: ps.Solution([1 - w, w ** 2]), 8, iterations=4)
    >>> fig = plot_cdf_history(res, true_cdf=lambda w: w)
    >>> len(fig.axes[0].lines)                          # Phi_0..Phi_4 and the true CDF
    6
    """
    history = _history_of(result)
    without = [t for t, rec in enumerate(history) if not callable(getattr(rec, "cdf", None))]
    # a run of no rounds has the one estimate Phi_0, and only SURF holds it (result.cdf)
    no_start = not history and not callable(getattr(result, "cdf", None))
    if without or no_start:
        method = getattr(result, "method", None)
        which = f"method {method!r}" if method is not None else type(result).__name__
        why = (f"result.history[{without[0]}].cdf is None" if without else
               "no round was run and result.cdf is None, so not even Phi_0 is known")
        raise ValueError(
            f"plot_cdf_history draws the CDF estimates Phi_t of a SURF run, but this result "
            f"({which}) has no CDF history ({why}): only SURF results (ps.surf) record a "
            f"CDF per iteration. Plot other methods with plot_front, plot_fronts or "
            f"plot_uniformity."
        )
    from paretosurf.cdf import ArcLengthCDF
    from paretosurf.metrics import cdf_error

    cdfs: list[Any] = [ArcLengthCDF.identity()] + [rec.cdf for rec in history]
    n_updates = len(history)
    picked = (_default_iterations(n_updates) if iterations is None
              else _check_iterations(iterations, n_updates))
    if true_cdf is not None and not callable(true_cdf):
        raise TypeError(f"true_cdf must be a vectorised callable Phi(w), got "
                        f"{type(true_cdf).__name__}")
    if not isinstance(show_error, bool):
        raise TypeError(f"show_error must be True or False, got {show_error!r}")
    want_error = true_cdf is not None and show_error

    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    if ax is None:
        plt = _pyplot()
        if want_error and error_ax is None:
            fig, (ax, error_ax) = plt.subplots(1, 2, figsize=(11.0, 4.5), layout="constrained")
        else:
            fig, ax = plt.subplots(figsize=(6.0, 4.8), layout="constrained")
    else:
        fig = _axes_figure(ax)
    colour_map = _truncated(cmap, 0.3)
    norm = Normalize(vmin=0.0, vmax=float(max(n_updates, 1)))
    grid = np.linspace(0.0, 1.0, 401)
    for t in picked:
        ax.plot(grid, np.asarray(cdfs[t](grid), dtype=np.float64),
                color=colour_map(norm(t)), linewidth=1.3, label=f"$\\Phi_{{{t}}}$")
    if true_cdf is not None:
        ax.plot(grid, np.asarray(true_cdf(grid), dtype=np.float64), color="black",
                linestyle="--", linewidth=1.2, label="true $\\Phi$")
        ax.legend(handles=[ax.lines[-1]], loc="upper left", fontsize="small")
    fig.colorbar(ScalarMappable(norm=norm, cmap=colour_map), ax=ax,
                 label="outer iteration t of $\\Phi_t$")
    ax.set_xlabel(WEIGHT_LABEL)
    ax.set_ylabel("$\\Phi(w)$ (fraction of arc length)")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)

    if want_error and true_cdf is not None:
        errors = np.array([cdf_error(c, true_cdf, n_grid=CDF_ERROR_GRID) for c in cdfs])
        inset = error_ax is None
        target = ax.inset_axes((0.58, 0.1, 0.38, 0.34)) if error_ax is None else error_ax
        target.plot(np.arange(errors.size), errors, color="black", marker="o",
                    markersize=2.5 if inset else 4.0, linewidth=1.0)
        if np.all(errors > 0):
            target.set_yscale("log")
        size = "x-small" if inset else None
        target.set_xlabel("outer iteration t", fontsize=size)
        target.set_ylabel("$\\max_w |\\Phi_t - \\Phi|$", fontsize=size)
        if inset:
            target.tick_params(labelsize="x-small")
        else:
            target.set_title("CDF error")
            target.grid(True, alpha=0.3)
    return fig


# ---------------------------------------------------------------------------- uniformity
#: Axis labels of :func:`plot_uniformity` (CV panel, ratio panel) by what the records
#: measure: the gaps between consecutive points (scalar weights, or weight vectors with
#: M = 2) or the nearest-neighbour distances (weight vectors with M >= 3).
UNIFORMITY_LABELS = {
    "gaps": ("CV of gaps (std / mean)", "gap ratio (max gap / min gap)"),
    "nn": ("CV of nearest-neighbour distances (std / mean)",
           "max / min nearest-neighbour distance"),
    "mixed": ("CV (std / mean) of gaps, or of nearest-neighbour distances (M >= 3)",
              "max / min gap, or nearest-neighbour distance (M >= 3)"),
}

#: Legend suffix of a method whose records measure nearest-neighbour distances, in a
#: :func:`plot_uniformity` figure that also shows methods measuring gaps.
NN_SUFFIX = " (nearest-neighbour, M >= 3)"


def plot_uniformity(
    results: Mapping[str, Any],
    *,
    ax: Sequence[Axes] | None = None,
) -> Figure:
    """CV and gap ratio of each method's points per outer iteration.

    Point ``t`` of a curve is the uniformity of the points found in outer iteration ``t``
    (0-based), i.e. solved at the weights of ``Phi_t``. The gap ratio panel has a log y axis
    and a dotted line at its ideal value 1.

    The axes are labelled by what the records hold (:data:`UNIFORMITY_LABELS`): for runs of
    two objectives (scalar weights, or weight vectors of 2 components), the CV and max/min of
    the gaps between consecutive points; for runs of M >= 3 objectives
    (:func:`paretosurf.surf_simplex` and the simplex baselines), the CV and max/min of the
    nearest-neighbour distances. When both kinds are shown, the labels name both and the
    legend entries of the M >= 3 runs end in :data:`NN_SUFFIX`.

    Parameters
    ----------
    results : mapping
        Method name to :class:`~paretosurf.SurfResult` (``history[t].cv`` and
        ``history[t].gap_ratio`` are drawn). Each needs at least one iteration.
    ax : pair of matplotlib Axes, optional
        Axes for the CV and the gap ratio panels (default: a new figure with two panels).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.plotting import plot_uniformity
    >>> res = ps.surf(lambda w, s: ps.Solution([1 - w, w ** 2]), 8, iterations=4)
    >>> fig = plot_uniformity({"SURF": res})
    >>> [a.get_yscale() for a in fig.axes]
    ['linear', 'log']
    """
    entries = _check_results(results)
    series: dict[str, tuple[FloatArray, FloatArray]] = {}
    nearest: dict[str, bool] = {}
    for name, value in entries.items():
        history = _history_of(value, name=f"results[{name!r}]")
        if not history:
            raise ValueError(f"results[{name!r}] has no iterations to plot")
        series[name] = (np.array([rec.cv for rec in history], dtype=np.float64),
                        np.array([rec.gap_ratio for rec in history], dtype=np.float64))
        nearest[name] = measures_nearest_neighbours(
            getattr(history[0], "weights", ()))
    kind = ("mixed" if len(set(nearest.values())) > 1
            else "nn" if all(nearest.values()) else "gaps")
    if ax is None:
        fig, (cv_ax, gap_ax) = _pyplot().subplots(1, 2, figsize=(11.0, 4.2),
                                                  layout="constrained")
    else:
        if isinstance(ax, (str, bytes)) or not isinstance(ax, Sequence) or len(ax) != 2:
            raise TypeError("ax must be a pair of matplotlib Axes (CV panel, gap ratio panel)")
        cv_ax, gap_ax = ax
        fig = _axes_figure(cv_ax)
        _axes_figure(gap_ax)
    for i, (name, (cvs, gaps)) in enumerate(series.items()):
        colour, marker = _method_style(i)
        t = np.arange(cvs.size)
        style = {"color": colour, "marker": marker, "markersize": 3.5, "linewidth": 1.2}
        label = name + (NN_SUFFIX if kind == "mixed" and nearest[name] else "")
        cv_ax.plot(t, cvs, label=label, **style)
        gap_ax.plot(t, gaps, label=label, **style)
    gap_ax.axhline(1.0, color="0.5", linestyle=":", linewidth=1.0)
    gap_ax.set_yscale("log")
    cv_label, ratio_label = UNIFORMITY_LABELS[kind]
    cv_ax.set_ylabel(cv_label)
    gap_ax.set_ylabel(ratio_label)
    for a in (cv_ax, gap_ax):
        a.set_xlabel("outer iteration t")
        a.grid(True, alpha=0.3)
    cv_ax.legend(loc="best", fontsize="small")
    return fig


# ---------------------------------------------------------------------------- files
def save_figure(fig: Figure, path: str | Path, *, dpi: int = 150) -> Path:
    """Write ``fig`` to ``path`` (PNG unless the suffix names another format), creating the
    parent folders. Returns the path written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import paretosurf as ps
    >>> from paretosurf.plotting import plot_uniformity, save_figure
    >>> res = ps.surf(lambda w, s: ps.Solution([1 - w, w ** 2]), 4, iterations=2)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = save_figure(plot_uniformity({"SURF": res}), pathlib.Path(tmp) / "a" / "u")
    ...     out.name, out.stat().st_size > 0
    ('u.png', True)
    """
    if not hasattr(fig, "savefig"):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    if isinstance(dpi, bool) or not isinstance(dpi, numbers.Integral) or dpi < 1:
        raise ValueError(f"dpi must be an integer >= 1, got {dpi!r}")
    target = Path(path)
    if not target.suffix:
        target = target.with_suffix(".png")
    target.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(target, dpi=int(dpi), bbox_inches="tight")
    return target


# ---------------------------------------------------------------------------- surfaces
#: Colour of the points of :func:`plot_surface` and :func:`plot_simplex_weights` when no
#: weights (or no ``color``) are given.
SURFACE_POINT_COLOR = "tab:blue"

#: Colour of the reference cloud of :func:`plot_surface` (a dense sample of the true front).
REFERENCE_CLOUD_COLOR = "0.75"

#: Corners of the weight triangle of :func:`plot_simplex_weights`: ``e_1`` at the top,
#: ``e_2`` bottom left, ``e_3`` bottom right (an equilateral triangle of side 1).
SIMPLEX_CORNERS = np.array([[0.5, np.sqrt(3.0) / 2.0], [0.0, 0.0], [1.0, 0.0]])


def weight_colors(weights: ArrayLike, /) -> FloatArray:
    """RGB colour of each weight vector: its first three components.

    For M = 3 the colour is the weight itself (objective 1 red, 2 green, 3 blue: the corners
    are pure red, green and blue, the centre a mid grey). For M > 3 the first three
    components are divided by their sum (a weight with nothing on the first three objectives
    is black). Values are clipped to [0, 1].

    Parameters
    ----------
    weights : array_like, shape (P, M)
        Weight vectors on the simplex, M >= 3.

    Returns
    -------
    ndarray, shape (P, 3)

    Examples
    --------
    >>> from paretosurf.plotting import weight_colors
    >>> weight_colors([[1, 0, 0], [0.2, 0.3, 0.5]]).tolist()
    [[1.0, 0.0, 0.0], [0.2, 0.3, 0.5]]
    >>> weight_colors([[0.25, 0.25, 0.0, 0.5]]).tolist()      # M = 4: first three rescaled
    [[0.5, 0.5, 0.0]]
    """
    from paretosurf.simplex_weights import check_simplex_weights

    w = check_simplex_weights(weights, name="weights")
    if w.shape[1] < 3:
        raise ValueError(f"weights must have at least 3 columns to colour by, got "
                         f"{w.shape[1]}")
    rgb = w[:, :3].copy()
    if w.shape[1] > 3:
        total = rgb.sum(axis=1, keepdims=True)
        rgb = np.divide(rgb, total, out=np.zeros_like(rgb), where=total > 0)
    return np.clip(rgb, 0.0, 1.0)


def _check_labels(labels: object, m: int) -> list[str]:
    """Objective names: ``m`` strings (default ``objective 1 .. objective m``)."""
    if labels is None:
        return [f"objective {i + 1}" for i in range(m)]
    if (isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence)
            or len(labels) != m or not all(isinstance(n, str) for n in labels)):
        raise ValueError(f"labels must be {m} strings (one per objective), got {labels!r}")
    return list(labels)


def _check_3d_axes(ax: Any) -> Figure:
    fig = _axes_figure(ax)
    if getattr(ax, "name", None) != "3d":
        raise TypeError("ax must be a 3-D matplotlib Axes (created with projection='3d')")
    return fig


def plot_surface(
    points: ArrayLike,
    /,
    weights: ArrayLike | None = None,
    *,
    ax: Axes | None = None,
    title: str | None = None,
    labels: Sequence[str] | None = None,
    reference: ArrayLike | None = None,
) -> Axes3D:
    """The points of an M >= 3 objective run as a 3-D scatter of the first three objectives.

    Each point is coloured by its weight vector (:func:`weight_colors`): for M = 3 the
    weight's three components are the point's RGB colour (objective 1 red, 2 green, 3 blue),
    so neighbouring weights get similar colours and a fold or a gap on the surface shows as a
    jump in colour; for M > 3 the first three components, rescaled to sum 1, are the colour
    (and only the first three objectives are drawn).

    Parameters
    ----------
    points : array_like, shape (P, M)
        Finite objective vectors, M >= 3, in any order.
    weights : array_like, shape (P, M), optional
        The weight vector of each point (rows on the simplex). Without it, all points get
        :data:`SURFACE_POINT_COLOR`.
    ax : 3-D matplotlib Axes, optional
        Axes created with ``projection="3d"`` to draw into (default: a new figure).
    title : str, optional
        Axes title.
    labels : sequence of M str, optional
        Objective names (default ``objective 1 .. objective M``); the first three label the
        axes.
    reference : array_like, shape (R, M), optional
        A dense sample of the true front, drawn as a light grey cloud under the points.

    Returns
    -------
    mpl_toolkits.mplot3d.axes3d.Axes3D
        Its first collection is the reference cloud (label ``"reference"``, if given), then
        the points (label ``"points"``).

    Raises
    ------
    ValueError
        If ``points`` is not a finite (P, M) array with M >= 3, or ``weights``, ``reference``
        or ``labels`` do not match it.
    TypeError
        If ``ax`` is not a 3-D Axes.

    Examples
    --------
    >>> from paretosurf.plotting import plot_surface
    >>> from paretosurf.simplex_weights import simplex_lattice
    >>> w = simplex_lattice(3, 4)
    >>> ax = plot_surface(w ** 2, w, title="sphere-like front")
    >>> ax.name, len(ax.collections[0].get_offsets())
    ('3d', 15)
    """
    pts = as_front_points(points, name="points", min_points=1)
    m = pts.shape[1]
    if m < 3:
        raise ValueError(f"plot_surface draws M >= 3 objectives; points have M = {m} "
                         f"(use plot_front for M = 2)")
    colours: Any = SURFACE_POINT_COLOR
    if weights is not None:
        from paretosurf.simplex_weights import check_simplex_weights

        w = check_simplex_weights(weights, m, name="weights")
        if w.shape[0] != pts.shape[0]:
            raise ValueError(f"weights has {w.shape[0]} rows but points has {pts.shape[0]}")
        colours = weight_colors(w)
    ref = None
    if reference is not None:
        ref = as_front_points(reference, name="reference", min_points=1)
        if ref.shape[1] != m:
            raise ValueError(f"reference has {ref.shape[1]} objectives but points have {m}")
    names = _check_labels(labels, m)

    if ax is None:
        fig = _pyplot().figure(figsize=(6.0, 5.2), layout="constrained")
        ax = fig.add_subplot(projection="3d")
    else:
        _check_3d_axes(ax)
    axes: Any = ax
    if ref is not None:
        axes.scatter(ref[:, 0], ref[:, 1], ref[:, 2], color=REFERENCE_CLOUD_COLOR, s=2,
                     alpha=0.35, depthshade=False, linewidths=0, label="reference")
    axes.scatter(pts[:, 0], pts[:, 1], pts[:, 2], c=colours, s=28, depthshade=False,
                 edgecolors="0.2", linewidths=0.4, label="points")
    axes.set_xlabel(names[0])
    axes.set_ylabel(names[1])
    axes.set_zlabel(names[2])
    if title is not None:
        axes.set_title(title)
    return axes


def plot_simplex_weights(
    weights: ArrayLike,
    /,
    *,
    ax: Axes | None = None,
    title: str | None = None,
    labels: Sequence[str] | None = None,
    color: Any = None,
) -> Axes:
    """The weight vectors of an M = 3 run drawn in the weight triangle (the 2-D simplex).

    The triangle is equilateral, with the corner ``e_m`` (all weight on objective ``m``)
    labelled by objective ``m``: objective 1 at the top, 2 bottom left, 3 bottom right
    (:data:`SIMPLEX_CORNERS`). A weight ``w`` is drawn at ``w @ SIMPLEX_CORNERS`` (its
    barycentric coordinates), coloured as in :func:`plot_surface` (RGB = ``w``).

    Parameters
    ----------
    weights : array_like, shape (P, 3)
        Weight vectors on the simplex.
    ax : matplotlib Axes, optional
        A 2-D Axes to draw into (default: a new figure).
    title : str, optional
        Axes title.
    labels : sequence of 3 str, optional
        Objective names of the corners (default ``objective 1 .. objective 3``).
    color : matplotlib colour, optional
        One colour for all points instead of the RGB colouring.

    Returns
    -------
    matplotlib.axes.Axes
        Its only collection is the scatter of the weights (label ``"weights"``).

    Raises
    ------
    ValueError
        If ``weights`` is not a (P, 3) array of weight vectors on the simplex, or ``labels`` is
        not 3 strings.

    Examples
    --------
    >>> from paretosurf.plotting import plot_simplex_weights
    >>> from paretosurf.simplex_weights import simplex_lattice
    >>> ax = plot_simplex_weights(simplex_lattice(3, 4))
    >>> len(ax.collections[0].get_offsets())
    15
    >>> [t.get_text() for t in ax.texts]
    ['objective 1', 'objective 2', 'objective 3']
    """
    from paretosurf.simplex_weights import check_simplex_weights

    w = check_simplex_weights(weights, name="weights")
    if w.shape[1] != 3:
        raise ValueError(f"plot_simplex_weights draws M = 3 weights (a triangle); weights have "
                         f"M = {w.shape[1]} columns")
    names = _check_labels(labels, 3)
    xy = w @ SIMPLEX_CORNERS
    colours: Any = weight_colors(w) if color is None else color

    if ax is None:
        _, ax = _pyplot().subplots(figsize=(5.0, 4.6), layout="constrained")
    else:
        _axes_figure(ax)
        if getattr(ax, "name", None) == "3d":
            raise TypeError("ax must be a 2-D matplotlib Axes, got a 3-D one")
    axes: Any = ax
    outline = np.vstack([SIMPLEX_CORNERS, SIMPLEX_CORNERS[:1]])
    axes.plot(outline[:, 0], outline[:, 1], color="0.3", linewidth=1.0, zorder=1)
    if color is None:
        axes.scatter(xy[:, 0], xy[:, 1], c=colours, s=28, edgecolors="0.2", linewidths=0.4,
                     zorder=2, label="weights")
    else:
        axes.scatter(xy[:, 0], xy[:, 1], color=colours, s=28, edgecolors="0.2",
                     linewidths=0.4, zorder=2, label="weights")
    offsets = ((0.0, 0.04), (-0.03, -0.04), (0.03, -0.04))
    aligns = (("center", "bottom"), ("right", "top"), ("left", "top"))
    for corner, name, (dx, dy), (ha, va) in zip(SIMPLEX_CORNERS, names, offsets, aligns,
                                                strict=True):
        axes.text(corner[0] + dx, corner[1] + dy, name, ha=ha, va=va, fontsize="small")
    axes.set_aspect("equal")
    axes.set_xlim(-0.25, 1.25)
    axes.set_ylim(-0.15, float(SIMPLEX_CORNERS[0, 1]) + 0.15)
    axes.set_axis_off()
    if title is not None:
        axes.set_title(title)
    return axes


def plot_surface_result(
    result: Any,
    /,
    *,
    reference: ArrayLike | None = None,
    path: str | Path | None = None,
) -> Figure:
    """A run of M = 3 objectives: its points in 3-D and its weights in the triangle.

    Left panel :func:`plot_surface`, right panel :func:`plot_simplex_weights`, with the same
    RGB colour for a point and its weight; the figure is titled with ``result.label`` when
    the result has one.

    Parameters
    ----------
    result : object
        Any object with ``weights`` of shape (P, 3) (rows on the simplex) and ``points`` of
        shape (P, 3), and optionally a str ``label``.
    reference : array_like, shape (R, 3), optional
        A dense sample of the true front, drawn as a light grey cloud in the 3-D panel.
    path : str or Path, optional
        Where to save the figure (with :func:`save_figure`: PNG unless the suffix names another
        format, such as ``.pdf``).

    Returns
    -------
    matplotlib.figure.Figure
        With the 3-D Axes, then the triangle's Axes.

    Raises
    ------
    ValueError
        If the weights or points are not (P, 3) arrays of the same length (for the weights
        of a two-objective run the message names :func:`plot_fronts` and
        :func:`plot_front`).
    TypeError
        If ``result`` has no ``weights`` or ``points``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from paretosurf.plotting import plot_surface_result
    >>> from paretosurf.simplex_weights import simplex_lattice
    >>> w = simplex_lattice(3, 5)
    >>> fig = plot_surface_result(SimpleNamespace(weights=w, points=1 - w, label="toy"))
    >>> [a.name for a in fig.axes], fig.get_suptitle()
    (['3d', 'rectilinear'], 'toy')
    """
    if not (hasattr(result, "weights") and hasattr(result, "points")):
        raise TypeError(f"result must have .weights and .points, got {type(result).__name__}")
    from paretosurf.simplex_weights import check_simplex_weights

    shape = np.shape(result.weights)
    if len(shape) == 1 or (len(shape) == 2 and shape[1] == 2):
        raise ValueError(f"plot_surface_result draws runs of M = 3 objectives, but "
                         f"result.weights has shape {shape} (M = 2, a curve): draw it with "
                         f"plot_fronts or plot_front")
    weights = check_simplex_weights(result.weights, 3, name="result.weights")
    points = as_front_points(result.points, name="result.points", min_points=1)
    if points.shape != weights.shape:
        raise ValueError(f"result.points must have shape {weights.shape} (one row per weight, "
                         f"3 objectives), got {points.shape}")
    label = getattr(result, "label", None)

    fig = _pyplot().figure(figsize=(11.0, 5.0), layout="constrained")
    surface_ax = fig.add_subplot(1, 2, 1, projection="3d")
    simplex_ax = fig.add_subplot(1, 2, 2)
    plot_surface(points, weights, ax=surface_ax, reference=reference, title="points")
    plot_simplex_weights(weights, ax=simplex_ax, title="weights")
    if isinstance(label, str):
        fig.suptitle(label)
    if path is not None:
        save_figure(fig, path)
    return fig
