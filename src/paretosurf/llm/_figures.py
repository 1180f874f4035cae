"""The protocol's ``front.png``: the methods' fronts overlaid, with error bars and weights.

:func:`front_series` turns a protocol report (:class:`~paretosurf.llm.protocol.ProtocolReport`,
or ``results.json`` as read back; or several, one per seed) into what the figure draws: per
method and per kind of objective (with and without the KL term), the mean point of each slot,
its error bar and its weight, and the CV text of the method, formatted by the function that
formats ``table.md``'s cells (:func:`~paretosurf.llm.protocol.run_protocol` hands it its own,
so the figure and the table never disagree). :func:`plot_front` draws them: a panel per kind,
the methods overlaid in each.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paretosurf.llm._scores import score_cell

__all__ = ["FrontSeries", "front_series", "objective_without_kl", "plot_front", "score_cell"]

FloatArray = NDArray[np.float64]

#: The kinds of objective, and the keys of a method's entry that hold them.
KINDS = {
    "with KL": ("points", "batch_objectives"),
    "without KL": ("points_no_kl", "batch_objectives_no_kl"),
}


@dataclass(frozen=True)
class FrontSeries:
    """One method's front, of one kind of objective, as ``front.png`` draws it.

    Attributes
    ----------
    method : str
        The method (``"Uniform-w"``, ``"SURF"``, ``"Soup"``).
    kind : str
        ``"with KL"`` or ``"without KL"``.
    weights : ndarray, shape (S,)
        Each slot's weight (Soup: its mixing position).
    points : ndarray, shape (S, 2)
        Each slot's objectives (minimized): the run's estimate, or the mean over seeds.
    errors : ndarray of shape (S, 2), or None
        The error bar of each point: the standard deviation over the seeds when there are
        several, else over the evaluation batches; ``None`` where the data has neither.
    spread : str
        What ``errors`` are: ``"seeds"``, ``"evaluation batches"`` or ``""``.
    cv : str
        The method's CV as ``table.md`` writes it (``"0.79 +- 0.07"``), or as
        ``"mean +- std"`` over the seeds.
    """

    method: str
    kind: str
    weights: FloatArray
    points: FloatArray
    errors: FloatArray | None
    spread: str
    cv: str

    @property
    def label(self) -> str:
        """The legend's entry: ``"SURF (CV 0.79 +- 0.07)"``."""
        return f"{self.method} (CV {self.cv})"


def _as_json(report: Any) -> Mapping[str, Any]:
    data = report.to_json() if hasattr(report, "to_json") else report
    if not isinstance(data, Mapping) or not isinstance(data.get("methods"), Mapping):
        raise TypeError(
            "report must be a ProtocolReport or its results.json (a mapping with 'methods'), "
            f"got {type(report).__name__}"
        )
    return data


def front_series(report: Any, *, cell: Callable[[Any], str] = score_cell) -> list[FrontSeries]:
    """What ``front.png`` draws: per kind of objective the run has, per method, its points,
    error bars, weights and CV.

    Parameters
    ----------
    report : ProtocolReport, mapping, or a sequence of them
        A protocol's report, or its ``results.json`` as read back (``json.load``); several
        (one per seed, the same methods and slots) give the mean front over the seeds with
        their standard deviation as error bars. With one report, the error bars are the
        standard deviation of each slot's estimate over the evaluation batches, where the
        report has them (as ``table.md``'s ``+-`` are over the evaluation batches).
    cell : callable, optional
        Formats a method's CV score (``{"value", "mean", "std"}``) for the legend: give the
        one that formats the table's cells, so the two show the same text (default
        :func:`score_cell`, ``table.md``'s format).

    Returns
    -------
    list of FrontSeries
        Kind by kind (``"with KL"``, then ``"without KL"`` where every method has it), then
        the methods in the report's order.

    Examples
    --------
    >>> from paretosurf.llm._figures import front_series
    >>> entry = {"weights": [0.0, 1.0], "points": [[1.0, 0.0], [0.0, 1.0]],
    ...          "batch_objectives": [[[1.1, 0.0], [0.9, 0.0]], [[0.0, 1.2], [0.0, 0.8]]],
    ...          "scores": {"with KL": {"cv": {"value": 0.0, "mean": 0.1, "std": 0.02}}}}
    >>> (series,) = front_series({"methods": {"SURF": entry}})
    >>> series.label, series.errors.round(6).tolist(), series.spread
    ('SURF (CV 0.1 +- 0.02)', [[0.1, 0.0], [0.0, 0.2]], 'evaluation batches')
    """
    if isinstance(report, Sequence) and not isinstance(report, (str, bytes, Mapping)):
        runs = [_as_json(r) for r in report]
        if not runs:
            raise ValueError("report holds no run")
    else:
        runs = [_as_json(report)]
    labels = list(runs[0]["methods"])
    out = []
    for kind, (key, batch_key) in KINDS.items():
        entries = [[run["methods"][m] for m in labels] for run in runs]
        if not all(key in e for row in entries for e in row):
            continue
        for i, method in enumerate(labels):
            mine = [row[i] for row in entries]
            points = np.asarray([e[key] for e in mine], dtype=np.float64)  # (R, S, 2)
            weights = np.asarray(mine[0]["weights"], dtype=np.float64)
            errors: FloatArray | None = None
            spread = ""
            if len(runs) > 1:
                errors, spread = points.std(axis=0), "seeds"
                cvs = [_cv_value(e, kind) for e in mine]
                finite = np.array([v for v in cvs if math.isfinite(v)])
                cv = f"{finite.mean():.4g} +- {finite.std():.2g}" if finite.size else "-"
            else:
                if batch_key in mine[0]:
                    batches = np.asarray(mine[0][batch_key], dtype=np.float64)  # (S, B, 2)
                    errors, spread = batches.std(axis=1), "evaluation batches"
                score = mine[0].get("scores", {}).get(kind, {}).get("cv")
                cv = cell(score) if score else "-"
            out.append(FrontSeries(method, kind, weights, points.mean(axis=0), errors, spread, cv))
    return out


def _cv_value(entry: Mapping[str, Any], kind: str) -> float:
    score = entry.get("scores", {}).get(kind, {}).get("cv", {})
    value = score.get("mean", score.get("value", math.nan))
    return float(value) if value is not None else math.nan


_WITH_KL = re.compile(r"^-\((?P<reward>.+) - \S+ KL\)$")


def objective_without_kl(name: str) -> str:
    """The name of an objective without its KL term.

    Examples
    --------
    >>> from paretosurf.llm._figures import objective_without_kl
    >>> objective_without_kl("-(count_apple - 0.05 KL)"), objective_without_kl("h1")
    ('-count_apple', 'h1 without KL')
    """
    match = _WITH_KL.match(name)
    return f"-{match['reward']}" if match else f"{name} without KL"


def plot_front(
    report: Any,
    objective_names: Sequence[str] = ("objective 1", "objective 2"),
    *,
    cell: Callable[[Any], str] = score_cell,
    path: str | os.PathLike[str] | None = None,
) -> Any:
    """The methods' fronts overlaid, one panel per kind of objective (with the KL term, and
    without it where the report has it): each method's points joined in weight order, with
    error bars and each point's weight written beside it, and the method's CV in the legend
    (as ``table.md`` writes it). See :func:`front_series` for the data.

    Parameters
    ----------
    report : ProtocolReport, mapping, or a sequence of them
        As :func:`front_series` takes it.
    objective_names : sequence of two str
        The objectives with the KL term (``solver.objective_names``); the panel without it
        reads them without the ``- beta KL`` (:func:`objective_without_kl`).
    cell : callable, optional
        Formats the CV in the legend, as :func:`front_series` takes it.
    path : path, optional
        Also save the figure there.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    ::

        import json
        from paretosurf.llm._figures import plot_front
        report = json.load(open("runs/table2/results.json"))
        plot_front(report, ("-(quality - 0.05 KL)", "-(faithful - 0.05 KL)"), path="front.png")
    """
    series = front_series(report, cell=cell)
    kinds = list(dict.fromkeys(s.kind for s in series))
    methods = list(dict.fromkeys(s.method for s in series))
    from paretosurf.plotting import pyplot, save_figure

    plt = pyplot()
    fig, axes = plt.subplots(1, len(kinds), figsize=(6.2 * len(kinds), 5.2), squeeze=False)
    markers = "osD^v<>ph*"
    offsets = [(5, 5), (5, -11), (-26, 5), (-26, -11)]
    spreads = set()
    for ax, kind in zip(axes[0], kinds, strict=True):
        names = list(objective_names)[:2]
        if kind == "without KL":
            names = [objective_without_kl(n) for n in names]
        for s in (s for s in series if s.kind == kind):
            i = methods.index(s.method)
            colour = f"C{i % 10}"
            order = np.argsort(s.weights, kind="stable")
            xs, ys = s.points[order, 0], s.points[order, 1]
            err = None if s.errors is None else s.errors[order]
            ax.errorbar(
                xs,
                ys,
                xerr=None if err is None else err[:, 0],
                yerr=None if err is None else err[:, 1],
                fmt="-" + markers[i % len(markers)],
                color=colour,
                ms=5,
                lw=1.1,
                elinewidth=0.8,
                capsize=2.5,
                alpha=0.9,
                label=s.label,
            )
            if s.spread:
                spreads.add(s.spread)
            dx, dy = offsets[i % len(offsets)]
            for x, y, w in zip(xs, ys, s.weights[order], strict=True):
                ax.annotate(
                    f"{w:.2f}",
                    (x, y),
                    xytext=(dx, dy),
                    textcoords="offset points",
                    fontsize=7,
                    color=colour,
                )
        ax.set_title(f"objectives {kind} (minimized; labels: weights)", fontsize=10)
        ax.set_xlabel(names[0] if names else "objective 1")
        ax.set_ylabel(names[1] if len(names) > 1 else "objective 2")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    bars = f"; error bars: +-1 std over the {' / '.join(sorted(spreads))}" if spreads else ""
    fig.suptitle(f"LLM policies: {', '.join(methods)}{bars}", fontsize=11)
    fig.tight_layout()
    if path is not None:
        save_figure(fig, Path(path))
    return fig
