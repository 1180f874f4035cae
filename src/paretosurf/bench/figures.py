"""Figures of a benchmark run: fronts, CDF convergence, uniformity, and DST state visitation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["FIGURE_NAMES", "plot_state_visitation", "task_figures"]

FloatArray = NDArray[np.float64]

#: Every file :func:`task_figures` may write.
FIGURE_NAMES = ("front.png", "uniformity.png", "cdf_convergence.png", "visitation.png")


def task_figures(report: Any, root: Path) -> list[Path]:
    """Write the figures of a :class:`~paretosurf.bench.runner.TaskReport` into ``root``.

    ``front.png`` (first seed of every method, one panel each over the exact front, see
    :func:`paretosurf.plotting.plot_fronts`), ``cdf_convergence.png``
    (SURF's ``Phi_t`` and its error against the true CDF), ``uniformity.png`` (CV and gap ratio
    per iteration) and, for grid-world tasks, ``visitation.png`` (state visitation of SURF's and
    Uniform-w's policies per weight).
    """
    from paretosurf import plotting

    plt = plotting.pyplot()
    firsts = {runs[0].label: runs[0] for runs in report.results.values()}
    title = (
        f"{report.task.title}: N = {report.n_segments}, {report.iterations} iterations, "
        f"{report.solver_kind} solver"
    )
    figures: list[tuple[str, Any]] = [
        (
            "front.png",
            plotting.plot_fronts(
                firsts,
                reference_front=report.reference_front,
                reference_label=(
                    "exact front" if report.exact_reference else "non-dominated union of all points"
                ),
                title=title,
                objective_names=report.task.objective_names,
            ),
        ),
        ("uniformity.png", plotting.plot_uniformity(firsts)),
    ]
    if "surf" in report.results:
        figures.append(
            (
                "cdf_convergence.png",
                plotting.plot_cdf_history(report.results["surf"][0], true_cdf=report.problem.cdf()),
            )
        )
    model = getattr(report.problem, "model", None)
    if model is not None and _grid_cells(model) is not None:
        shown: dict[str, Any] = {
            label: firsts[label] for label in ("SURF", "Uniform-w") if label in firsts
        }
        if shown:
            figures.append(("visitation.png", plot_state_visitation(report.problem, shown)))
    written = []
    for name, fig in figures:
        if name == "visitation.png":
            fig.suptitle(title, fontsize="medium")
            fig.tight_layout(rect=(0.0, 0.0, 1.0, 0.93))
        elif name != "front.png":
            fig.suptitle(title, fontsize="medium")
        written.append(plotting.save_figure(fig, root / name))
        plt.close(fig)
    return written


def _grid_cells(model: Any) -> list[tuple[int, int]] | None:
    """``(row, col)`` of each non-terminal state of a grid-world model, or None."""
    labels = list(getattr(model, "state_labels", []))
    cells = [lab for lab in labels if isinstance(lab, tuple) and len(lab) == 2]
    return cells if cells and len(cells) >= len(labels) - 1 else None


def plot_state_visitation(problem: Any, results: dict[str, Any], *, max_panels: int = 8) -> Any:
    """Heat maps of the discounted state visitation of each policy, one row per method.

    Each panel is one slot's policy (its weight in the title), shown on the grid: darker cells
    are visited more; the title also gives the policy's objectives. Up to ``max_panels``
    evenly spread slots per method.
    """
    from paretosurf import plotting

    plt = plotting.pyplot()
    model = problem.model
    cells = _grid_cells(model)
    if cells is None:
        raise ValueError("the problem's model has no (row, col) grid states")
    n_rows = max(r for r, _ in cells) + 1
    n_cols = max(c for _, c in cells) + 1
    labels = list(model.state_labels)
    first = next(iter(results.values()))
    n_slots = len(first.states)
    panels = np.unique(np.linspace(0, n_slots - 1, min(max_panels, n_slots)).round().astype(int))
    fig, axes = plt.subplots(
        len(results), panels.size, figsize=(1.9 * panels.size, 2.2 * len(results)), squeeze=False
    )
    for row, (name, result) in enumerate(results.items()):
        for col, slot in enumerate(panels):
            ax = axes[row, col]
            policy = problem.decision(result.states[slot])
            visits = problem.state_occupancy(policy)
            grid = np.full((n_rows, n_cols), np.nan)
            for index, label in enumerate(labels):
                if isinstance(label, tuple) and len(label) == 2:
                    grid[label] = visits[index]
            ax.imshow(np.log10(np.maximum(grid, 1e-6)), cmap="Blues", vmin=-6, vmax=0)
            ax.set_xticks([])
            ax.set_yticks([])
            obj = result.points[slot]
            ax.set_title(
                f"w={result.weights[slot]:.2f}\n({obj[0]:.3g}, {obj[1]:.3g})", fontsize="x-small"
            )
            if col == 0:
                ax.set_ylabel(name)
    fig.tight_layout()
    return fig
