"""Plots of fronts and of SURF's convergence (matplotlib, imported only when a plot is drawn).

Three figures cover what a run shows:

- :func:`plot_front`: the points each method found, joined in weight order and coloured by
  their weight, over the exact front when it is known;
- :func:`plot_cdf_history`: SURF's CDF estimates ``Phi_t`` iteration by iteration, with the
  distance to the true CDF when it is known;
- :func:`plot_uniformity`: CV and gap ratio of the points per outer iteration.

Each function draws into the axes it is given (or a new figure) and returns the
:class:`~matplotlib.figure.Figure`; :func:`save_figure` writes it to a file. Without a display
(no ``DISPLAY``/``WAYLAND_DISPLAY`` on Linux and no ``MPLBACKEND``) the non-interactive Agg
backend is selected, so the functions work on servers and in CI.
"""

from __future__ import annotations

import numbers
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._validation import as_front_points, as_weights

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.colors import Colormap
    from matplotlib.figure import Figure

__all__ = ["plot_cdf_history", "plot_front", "plot_uniformity", "save_figure"]

FloatArray = NDArray[np.float64]

#: Label of the weight colour bar of :func:`plot_front`.
WEIGHT_LABEL = "weight w on objective 1"

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


def _front_entry(name: str, value: object) -> tuple[FloatArray | None, FloatArray]:
    """``(weights or None, points)`` of one method of :func:`plot_front`."""
    if hasattr(value, "points") and hasattr(value, "weights"):
        points = np.asarray(value.points, dtype=np.float64)
        if points.ndim == 2 and points.shape[1] == 0:
            raise ValueError(f"results[{name!r}] has no points (no iteration ran)")
        pts = as_front_points(points, name=f"results[{name!r}].points", min_points=1)
        weights = as_weights(value.weights, name=f"results[{name!r}].weights",
                             span_unit_interval=False)
        if weights.size != pts.shape[0]:
            raise ValueError(f"results[{name!r}] has {weights.size} weights but "
                             f"{pts.shape[0]} points")
        return weights, pts
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"results[{name!r}] must be a SurfResult (with .weights and .points) or an "
            f"(N+1, M) array of points, got {type(value).__name__}"
        ) from None
    return None, as_front_points(arr, name=f"results[{name!r}]", min_points=1)


def _check_two_objectives(points: FloatArray, what: str) -> None:
    if points.shape[1] != 2:
        raise ValueError(
            f"plot_front draws bi-objective fronts only (M = 2); {what} has "
            f"M = {points.shape[1]} objectives"
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


# ---------------------------------------------------------------------------- front
def plot_front(
    results: Mapping[str, Any],
    *,
    reference_front: ArrayLike | None = None,
    ax: Axes | None = None,
    title: str | None = None,
    objective_names: Sequence[str] = ("objective 1", "objective 2"),
    cmap: str | Colormap = "viridis",
) -> Figure:
    """Points of one or more methods on a bi-objective front, coloured by weight.

    Parameters
    ----------
    results : mapping
        Method name to a :class:`~paretosurf.SurfResult` (or any object with ``weights`` of
        shape (N+1,) and ``points`` of shape (N+1, 2)), or to an (N+1, 2) array of points in
        weight order. A method's points are joined in weight order by a thin line in the
        method's colour and drawn with the method's own marker; points with known weights are
        filled with their weight's colour (shared colour map and colour bar), points given as a
        bare array are filled with the method's colour.
    reference_front : array_like, shape (P, 2), optional
        Exact front, drawn as a thin grey line (e.g. ``problem.reference_front(1001)``).
    ax : matplotlib Axes, optional
        Axes to draw into (default: a new figure).
    title : str, optional
        Axes title.
    objective_names : pair of str
        Axis labels.
    cmap : str or Colormap
        Colour map of the weights.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``results`` is empty, a result has no points, or anything has M != 2 objectives.
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
    names = tuple(objective_names)
    if len(names) != 2 or not all(isinstance(n, str) for n in names):
        raise ValueError(f"objective_names must be two strings, got {objective_names!r}")
    parsed = {name: _front_entry(name, value) for name, value in entries.items()}
    for name, (_, pts) in parsed.items():
        _check_two_objectives(pts, f"results[{name!r}]")
    ref = None
    if reference_front is not None:
        ref = as_front_points(reference_front, name="reference_front", min_points=2)
        _check_two_objectives(ref, "reference_front")

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
        (line,) = ax.plot(ref[:, 0], ref[:, 1], color="0.6", linewidth=0.8, zorder=1,
                          label="exact front")
        handles.append(line)
    any_weights = False
    for i, (name, (weights, pts)) in enumerate(parsed.items()):
        colour, marker = _method_style(i)
        ax.plot(pts[:, 0], pts[:, 1], color=colour, linewidth=1.0, alpha=0.7, zorder=2)
        if weights is not None:
            any_weights = True
            ax.scatter(pts[:, 0], pts[:, 1], c=weights, cmap=colour_map, norm=norm,
                       marker=marker, s=36, edgecolors=[colour], linewidths=0.9, zorder=3)
        else:
            ax.scatter(pts[:, 0], pts[:, 1], color=[colour], marker=marker, s=36,
                       edgecolors=[colour], linewidths=0.9, zorder=3)
        handles.append(Line2D([], [], color=colour, marker=marker, markerfacecolor="white",
                              markeredgecolor=colour, linewidth=1.0, label=name))
    if any_weights:
        fig.colorbar(ScalarMappable(norm=norm, cmap=colour_map), ax=ax, label=WEIGHT_LABEL)
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    ax.legend(handles=handles, loc="best", fontsize="small")
    if title is not None:
        ax.set_title(title)
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
        A SURF run (any object with a ``history`` of records holding ``cdf``).
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
def plot_uniformity(
    results: Mapping[str, Any],
    *,
    ax: Sequence[Axes] | None = None,
) -> Figure:
    """CV and gap ratio of each method's points per outer iteration.

    Point ``t`` of a curve is the uniformity of the points found in outer iteration ``t``
    (0-based), i.e. solved at the weights of ``Phi_t``. The gap ratio panel has a log y axis
    and a dotted line at its ideal value 1.

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
    for name, value in entries.items():
        history = _history_of(value, name=f"results[{name!r}]")
        if not history:
            raise ValueError(f"results[{name!r}] has no iterations to plot")
        series[name] = (np.array([rec.cv for rec in history], dtype=np.float64),
                        np.array([rec.gap_ratio for rec in history], dtype=np.float64))
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
        cv_ax.plot(t, cvs, label=name, **style)
        gap_ax.plot(t, gaps, label=name, **style)
    gap_ax.axhline(1.0, color="0.5", linestyle=":", linewidth=1.0)
    gap_ax.set_yscale("log")
    cv_ax.set_ylabel("CV of gaps (std / mean)")
    gap_ax.set_ylabel("gap ratio (max gap / min gap)")
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
