"""Plots: what each figure draws, checked against closed forms and independent computations."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import itertools

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib import colormaps
from matplotlib.colors import to_rgba

import paretosurf as ps
from paretosurf.baselines import uniform
from paretosurf.plotting import (
    WEIGHT_LABEL,
    plot_cdf_history,
    plot_front,
    plot_uniformity,
    save_figure,
)

ROOT_P = 3.0  # sqrt of the gear parameter p = 9


def gear_x(w):
    """Exact LS minimizer of sqrt(p)/2 (x-1)^2 + x^2/2 weighted by (w, 1-w) (paper, gear toy)."""
    return ROOT_P * w / (1 + (ROOT_P - 1) * w)


def gear_front(w):
    x = gear_x(np.asarray(w, dtype=float))
    return np.stack([(1 - x) ** 2, x**2], axis=-1)


def gear_phi(w):
    """Arc-length CDF of ((1-x)^2, x^2): antiderivative of 2 sqrt(2x^2-2x+1) with u = 2x-1."""

    def s(x):
        u = 2 * x - 1
        return (u * np.sqrt(1 + u * u) + np.arcsinh(u)) / np.sqrt(2)

    return (s(gear_x(np.asarray(w, dtype=float))) - s(0.0)) / (s(1.0) - s(0.0))


def gear_solver(w, state):
    return ps.Solution(gear_front(w), state=float(gear_x(w)))


def gaps_cv(points):
    """CV of consecutive gaps, written out independently of paretosurf.metrics."""
    gaps = [math.dist(a, b) for a, b in itertools.pairwise(points)]
    mean = sum(gaps) / len(gaps)
    return math.sqrt(sum((g - mean) ** 2 for g in gaps) / len(gaps)) / mean


def luminance(rgba):
    r, g, b = rgba[:3]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def surf_run():
    return ps.surf(gear_solver, 10, iterations=8)


@pytest.fixture(scope="module")
def uniform_run():
    return uniform(gear_solver, 10, iterations=3)


# ---------------------------------------------------------------------------- plot_front
def test_front_draws_each_method_coloured_by_weight(surf_run) -> None:
    ref = gear_front(np.linspace(0, 1, 400))
    bare = gear_front(np.linspace(0, 1, 6))
    fig = plot_front({"SURF": surf_run, "bare": bare}, reference_front=ref, title="gear",
                     objective_names=("cost", "risk"))
    ax = fig.axes[0]
    assert len(fig.axes) == 2                                      # plot + colour bar
    assert fig.axes[1].get_ylabel() == WEIGHT_LABEL
    assert ax.get_xlabel() == "cost" and ax.get_ylabel() == "risk"
    assert ax.get_title() == "gear"
    # lines: the exact front (thin grey) and one joining line per method, in weight order
    assert len(ax.lines) == 3
    np.testing.assert_allclose(np.c_[ax.lines[0].get_xdata(), ax.lines[0].get_ydata()], ref)
    assert to_rgba(ax.lines[0].get_color()) == pytest.approx(to_rgba("0.6"))
    np.testing.assert_allclose(np.c_[ax.lines[1].get_xdata(), ax.lines[1].get_ydata()],
                               gear_front(surf_run.weights))
    # scatter points: SURF's are filled with the viridis colour of their weight
    assert len(ax.collections) == 2
    surf_scatter, bare_scatter = ax.collections
    np.testing.assert_allclose(surf_scatter.get_offsets(), gear_front(surf_run.weights))
    fig.canvas.draw()                                   # colours are mapped when drawn
    np.testing.assert_allclose(surf_scatter.get_facecolors(),
                               colormaps["viridis"](surf_run.weights), atol=1e-12)
    np.testing.assert_allclose(bare_scatter.get_offsets(), bare)
    assert len({tuple(map(tuple, c.get_facecolors())) for c in ax.collections}) == 2
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["exact front", "SURF", "bare"]
    markers = [h.get_marker() for h in legend.legend_handles[1:]]
    assert len(set(markers)) == 2


def test_front_of_bare_arrays_has_no_colour_bar() -> None:
    fig = plot_front({"a": [[0, 1], [1, 0]], "b": np.array([[0, 2.0], [2, 0]])})
    assert len(fig.axes) == 1
    assert fig.axes[0].get_xlabel() == "objective 1"


def test_front_draws_into_given_axes(surf_run) -> None:
    fig, (left, right) = plt.subplots(1, 2)
    out = plot_front({"SURF": surf_run}, ax=right)
    assert out is fig
    assert len(right.collections) == 1 and len(left.collections) == 0


@pytest.mark.parametrize(
    ("results", "kwargs", "error", "match"),
    [
        ({}, {}, ValueError, "at least one method"),
        ([np.zeros((3, 2))], {}, TypeError, "mapping"),
        ({"3d": np.random.default_rng(0).random((5, 3))}, {}, ValueError, "M = 3"),
        ({"ok": [[0, 1], [1, 0]]}, {"reference_front": np.ones((4, 3))}, ValueError, "M = 3"),
        ({"ok": [[0, 1], [1, 0]]}, {"objective_names": ("x",)}, ValueError, "objective_names"),
        ({"nan": [[0, np.nan], [1, 0]]}, {}, ValueError, "finite"),
        ({"obj": object()}, {}, TypeError, "SurfResult"),
    ],
)
def test_front_rejects_bad_input(results, kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        plot_front(results, **kwargs)


def test_front_rejects_result_without_iterations() -> None:
    empty = ps.surf(gear_solver, 4, iterations=0)
    with pytest.raises(ValueError, match="no points"):
        plot_front({"empty": empty})


def test_front_rejects_three_objective_result() -> None:
    res = ps.surf(lambda w, s: ps.Solution([w, 1 - w, w * (1 - w)]), 4, iterations=1)
    with pytest.raises(ValueError, match="M = 2"):
        plot_front({"3 objectives": res})


# ---------------------------------------------------------------------------- plot_cdf_history
def test_cdf_history_curves_and_error_panel(surf_run) -> None:
    fig = plot_cdf_history(surf_run, true_cdf=gear_phi)
    cdf_ax, error_ax = fig.axes[0], fig.axes[1]
    assert len(fig.axes) == 3                                     # CDFs, error, colour bar
    # Phi_0 .. Phi_8 and the dashed true CDF
    assert len(cdf_ax.lines) == 9 + 1
    first = cdf_ax.lines[0]
    np.testing.assert_allclose(first.get_ydata(), first.get_xdata(), atol=1e-15)  # identity
    true_line = cdf_ax.lines[-1]
    assert true_line.get_linestyle() == "--"
    np.testing.assert_allclose(true_line.get_ydata(), gear_phi(true_line.get_xdata()))
    # the last estimate is close to the true CDF, the first is not
    x = cdf_ax.lines[-2].get_xdata()
    assert np.max(np.abs(cdf_ax.lines[-2].get_ydata() - gear_phi(x))) < 0.02
    assert np.max(np.abs(first.get_ydata() - gear_phi(x))) > 0.2
    # light (early) to dark (late)
    lum = [luminance(to_rgba(line.get_color())) for line in cdf_ax.lines[:-1]]
    assert all(a > b for a, b in itertools.pairwise(lum))
    # error panel: one value per Phi_t; Phi_0's error against a dense independent grid
    errors = error_ax.lines[0].get_ydata()
    assert errors.size == 9
    dense = np.linspace(0, 1, 200_001)
    assert errors[0] == pytest.approx(np.max(np.abs(dense - gear_phi(dense))), rel=1e-5)
    assert errors[-1] < errors[0] / 10
    assert error_ax.get_yscale() == "log"


@pytest.mark.parametrize("iterations", [[0, 3], (3, 0, 3), np.array([0, 3])])
def test_cdf_history_selected_iterations(surf_run, iterations) -> None:
    fig = plot_cdf_history(surf_run, iterations=iterations)
    ax = fig.axes[0]
    assert len(ax.lines) == 2 and len(fig.axes) == 2              # no true CDF: no error panel
    assert [line.get_label() for line in ax.lines] == ["$\\Phi_{0}$", "$\\Phi_{3}$"]
    x = ax.lines[1].get_xdata()
    np.testing.assert_allclose(ax.lines[1].get_ydata(), surf_run.history[2].cdf(x))


def test_cdf_history_default_subsamples_long_runs() -> None:
    res = ps.surf(gear_solver, 6, iterations=30)
    fig = plot_cdf_history(res, show_error=False, true_cdf=gear_phi)
    labels = [line.get_label() for line in fig.axes[0].lines[:-1]]
    assert len(labels) == 11
    assert labels[0] == "$\\Phi_{0}$" and labels[-1] == "$\\Phi_{30}$"
    assert len(fig.axes) == 2


def test_cdf_history_inset_when_axes_given(surf_run) -> None:
    fig, ax = plt.subplots()
    out = plot_cdf_history(surf_run, true_cdf=gear_phi, ax=ax)
    assert out is fig
    assert len(ax.child_axes) == 1
    inset = ax.child_axes[0]
    assert inset.get_xlabel() == "outer iteration t" and inset.get_yscale() == "log"
    assert len(inset.lines[0].get_ydata()) == len(surf_run.history) + 1


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"iterations": [0, 9]}, ValueError, r"\[0, 8\]"),
        ({"iterations": [-1]}, ValueError, r"\[0, 8\]"),
        ({"iterations": [1.5]}, TypeError, "integers"),
        ({"iterations": []}, ValueError, "at least one"),
        ({"true_cdf": 0.5}, TypeError, "true_cdf"),
        ({"show_error": "yes"}, TypeError, "show_error"),
    ],
)
def test_cdf_history_rejects_bad_input(surf_run, kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        plot_cdf_history(surf_run, **kwargs)


def test_cdf_history_rejects_non_result() -> None:
    with pytest.raises(TypeError, match="SurfResult"):
        plot_cdf_history(np.zeros((4, 2)))


# ---------------------------------------------------------------------------- plot_uniformity
def test_uniformity_panels(surf_run, uniform_run) -> None:
    fig = plot_uniformity({"SURF": surf_run, "Uniform-w": uniform_run})
    cv_ax, gap_ax = fig.axes
    assert gap_ax.get_yscale() == "log" and cv_ax.get_yscale() == "linear"
    assert len(cv_ax.lines) == 2 and len(gap_ax.lines) == 3       # + the ideal line at 1
    # Uniform-w: every iteration has the points of the closed-form front at n/N
    uniform_points = gear_front(np.linspace(0, 1, 11))
    np.testing.assert_allclose(cv_ax.lines[1].get_ydata(), gaps_cv(uniform_points), rtol=1e-12)
    gaps = np.linalg.norm(np.diff(uniform_points, axis=0), axis=1)
    np.testing.assert_allclose(gap_ax.lines[1].get_ydata(), gaps.max() / gaps.min(), rtol=1e-12)
    np.testing.assert_array_equal(cv_ax.lines[1].get_xdata(), [0, 1, 2])
    # SURF's first iteration is Uniform-w's; it then evens the gaps out
    surf_cv = cv_ax.lines[0].get_ydata()
    assert surf_cv[0] == pytest.approx(gaps_cv(uniform_points), rel=1e-12)
    assert surf_cv[-1] < surf_cv[0] / 5
    assert [t.get_text() for t in cv_ax.get_legend().get_texts()] == ["SURF", "Uniform-w"]


def test_uniformity_into_given_axes(surf_run) -> None:
    fig, axes = plt.subplots(2, 1)
    assert plot_uniformity({"SURF": surf_run}, ax=list(axes)) is fig
    assert axes[1].get_yscale() == "log"


@pytest.mark.parametrize(
    ("results", "kwargs", "error", "match"),
    [
        ({}, {}, ValueError, "at least one method"),
        ({"x": np.zeros((3, 2))}, {}, TypeError, "SurfResult"),
        ({"SURF": None}, {"ax": "ab"}, TypeError, "pair"),
    ],
)
def test_uniformity_rejects_bad_input(results, kwargs, error, match, surf_run) -> None:
    results = {k: (surf_run if v is None else v) for k, v in results.items()}
    with pytest.raises(error, match=match):
        plot_uniformity(results, **kwargs)


def test_uniformity_rejects_result_without_iterations() -> None:
    with pytest.raises(ValueError, match="no iterations"):
        plot_uniformity({"empty": ps.surf(gear_solver, 4, iterations=0)})


# ---------------------------------------------------------------------------- save_figure
def test_save_figure_writes_png_and_creates_folders(tmp_path, surf_run) -> None:
    fig = plot_front({"SURF": surf_run})
    out = save_figure(fig, tmp_path / "a" / "b" / "front")
    assert out == tmp_path / "a" / "b" / "front.png"
    data = out.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 1000
    pdf = save_figure(fig, tmp_path / "front.pdf")
    assert pdf.read_bytes().startswith(b"%PDF")


def test_save_figure_rejects_bad_input(tmp_path) -> None:
    with pytest.raises(TypeError, match="Figure"):
        save_figure("not a figure", tmp_path / "x.png")  # type: ignore[arg-type]
    fig, _ = plt.subplots()
    with pytest.raises(ValueError, match="dpi"):
        save_figure(fig, tmp_path / "x.png", dpi=0)


# ---------------------------------------------------------------------------- imports, backend
def test_import_is_light_and_headless_uses_agg() -> None:
    code = (
        "import sys\n"
        "import paretosurf, paretosurf.plotting, paretosurf.cli\n"
        "print('matplotlib' in sys.modules)\n"
        "from paretosurf.plotting import plot_front\n"
        "plot_front({'a': [[0, 1], [1, 0]]})\n"
        "import matplotlib\n"
        "print(matplotlib.get_backend().lower())\n"
    )
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "MPLBACKEND")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, timeout=120)
    before, backend = out.stdout.split()
    assert before == "False"
    if sys.platform.startswith("linux"):
        assert backend == "agg"
