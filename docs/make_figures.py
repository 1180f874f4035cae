"""Regenerate the README's figure: ``python docs/make_figures.py``."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import paretosurf as ps
from paretosurf.plotting import plot_cdf_history, plot_front, save_figure

HERE = Path(__file__).resolve().parent


def main() -> None:
    problem = ps.problems.GearToy(9)
    uniform = ps.methods.uniform(problem.solver(), 20, iterations=1)
    surf = ps.surf(problem.solver(), 20, iterations=30, normalize="none")
    ref = problem.reference_front(501)
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.6))
    names = ("objective 1: (1-x)^2", "objective 2: x^2")
    plot_front({"Uniform-w": uniform}, reference_front=ref, ax=axes[0], objective_names=names,
               title=f"evenly spaced weights: CV {uniform.cv:.2f}, "
                     f"gap ratio {uniform.gap_ratio:.1f}")
    plot_front({"SURF": surf}, reference_front=ref, ax=axes[1], objective_names=names,
               title=f"SURF, 30 iterations: CV {surf.cv:.0e}, gap ratio {surf.gap_ratio:.3f}")
    plot_cdf_history(surf, true_cdf=problem.cdf(), ax=axes[2])
    axes[2].set_title("SURF's estimate of Phi(w) over iterations")
    fig.tight_layout()
    save_figure(fig, HERE / "images" / "surf-idea.png")


if __name__ == "__main__":
    main()
