"""How a run converges: :func:`plot_cdf_history` (SURF's CDF estimates ``Phi_t``) and
:func:`plot_uniformity` (CV and gap ratio per outer iteration)."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf.plotting._backend import _axes_figure, _method_style, _truncated, pyplot
from paretosurf.plotting._checks import FloatArray, _check_results
from paretosurf.plotting.colours import WEIGHT_LABEL
from paretosurf.result import measures_nearest_neighbours

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.colors import Colormap
    from matplotlib.figure import Figure

__all__ = ["plot_cdf_history", "plot_uniformity"]

#: Largest number of CDF curves :func:`plot_cdf_history` draws by default.
MAX_DEFAULT_CURVES = 11

#: Grid on which :func:`plot_cdf_history` compares each ``Phi_t`` with the true CDF.
CDF_ERROR_GRID = 1001


def _history_of(result: object, name: str = "result") -> list[Any]:
    history = getattr(result, "history", None)
    if not isinstance(history, Sequence):
        raise TypeError(f"{name} must be a Result (with a history), got {type(result).__name__}")
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
            raise ValueError(
                f"iterations must lie in [0, {n_updates}] (Phi_0 to Phi_T for a "
                f"run of T = {n_updates} iterations), got {value}"
            )
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
    result : Result
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
        (``cdf`` is None), as with every method but SURF (e.g. ``ps.methods.uniform`` or
        :func:`paretosurf.surf_simplex`), or no round was run and the result has no CDF
        (``result.cdf`` is None: nothing, not even ``Phi_0``, to draw). The message names the
        result's method. A SURF run of no rounds draws ``Phi_0``, the identity.

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.plotting import plot_cdf_history
    >>> res = ps.surf(lambda w, s: ps.Solution([1 - w, w ** 2]), 8, iterations=4,
    ...               early_stopping=False)
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
        why = (
            f"result.history[{without[0]}].cdf is None"
            if without
            else "no round was run and result.cdf is None, so not even Phi_0 is known"
        )
        raise ValueError(
            f"plot_cdf_history draws the CDF estimates Phi_t of a SURF run, but this result "
            f"({which}) has no CDF history ({why}): only SURF results (ps.surf) record a "
            f"CDF per iteration. Plot other methods with plot_front, plot_fronts or "
            f"plot_uniformity."
        )
    from paretosurf.curves import ArcLengthCDF
    from paretosurf.metrics import cdf_error

    cdfs: list[Any] = [ArcLengthCDF.identity()] + [rec.cdf for rec in history]
    n_updates = len(history)
    picked = (
        _default_iterations(n_updates)
        if iterations is None
        else _check_iterations(iterations, n_updates)
    )
    if true_cdf is not None and not callable(true_cdf):
        raise TypeError(
            f"true_cdf must be a vectorised callable Phi(w), got {type(true_cdf).__name__}"
        )
    if not isinstance(show_error, bool):
        raise TypeError(f"show_error must be True or False, got {show_error!r}")
    want_error = true_cdf is not None and show_error

    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    if ax is None:
        plt = pyplot()
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
        ax.plot(
            grid,
            np.asarray(cdfs[t](grid), dtype=np.float64),
            color=colour_map(norm(t)),
            linewidth=1.3,
            label=f"$\\Phi_{{{t}}}$",
        )
    if true_cdf is not None:
        ax.plot(
            grid,
            np.asarray(true_cdf(grid), dtype=np.float64),
            color="black",
            linestyle="--",
            linewidth=1.2,
            label="true $\\Phi$",
        )
        ax.legend(handles=[ax.lines[-1]], loc="upper left", fontsize="small")
    fig.colorbar(
        ScalarMappable(norm=norm, cmap=colour_map), ax=ax, label="outer iteration t of $\\Phi_t$"
    )
    ax.set_xlabel(WEIGHT_LABEL)
    ax.set_ylabel("$\\Phi(w)$ (fraction of arc length)")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)

    if want_error and true_cdf is not None:
        errors = np.array([cdf_error(c, true_cdf, n_grid=CDF_ERROR_GRID) for c in cdfs])
        inset = error_ax is None
        target = ax.inset_axes((0.58, 0.1, 0.38, 0.34)) if error_ax is None else error_ax
        target.plot(
            np.arange(errors.size),
            errors,
            color="black",
            marker="o",
            markersize=2.5 if inset else 4.0,
            linewidth=1.0,
        )
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
    "nn": (
        "CV of nearest-neighbour distances (std / mean)",
        "max / min nearest-neighbour distance",
    ),
    "mixed": (
        "CV (std / mean) of gaps, or of nearest-neighbour distances (M >= 3)",
        "max / min gap, or nearest-neighbour distance (M >= 3)",
    ),
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
        Method name to :class:`~paretosurf.Result` (``history[t].cv`` and
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
    >>> res = ps.surf(lambda w, s: ps.Solution([1 - w, w ** 2]), 8, iterations=4,
    ...               early_stopping=False)
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
        series[name] = (
            np.array([rec.cv for rec in history], dtype=np.float64),
            np.array([rec.gap_ratio for rec in history], dtype=np.float64),
        )
        nearest[name] = measures_nearest_neighbours(getattr(history[0], "weights", ()))
    kind = "mixed" if len(set(nearest.values())) > 1 else "nn" if all(nearest.values()) else "gaps"
    if ax is None:
        fig, (cv_ax, gap_ax) = pyplot().subplots(1, 2, figsize=(11.0, 4.2), layout="constrained")
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
