"""Plots: what each figure draws, checked against closed forms and independent computations."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import itertools
from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib import colormaps
from matplotlib.colors import to_rgba

import paretosurf as ps
from paretosurf.methods import uniform
from paretosurf.plotting import (
    CHORD_POSITION_LABEL,
    POSITION_LABEL,
    WEIGHT_LABEL,
    plot_cdf_history,
    plot_front,
    plot_fronts,
    plot_uniformity,
    save_figure,
    weights_cluster,
)
from support import no_rounds

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


pytestmark = pytest.mark.usefixtures("close_figures")


@pytest.fixture(scope="module")
def surf_run():
    # the paper's protocol: all 8 rounds, Phi_0 to Phi_8, at alpha 0.3
    return ps.surf(gear_solver, 10, alpha=0.3, iterations=8, early_stopping=False)


@pytest.fixture(scope="module")
def uniform_run():
    return uniform(gear_solver, 10, iterations=3)


# ---------------------------------------------------------------------------- plot_front
def test_front_draws_each_method_coloured_by_weight(surf_run) -> None:
    ref = gear_front(np.linspace(0, 1, 400))
    bare = gear_front(np.linspace(0, 1, 6))
    fig = plot_front(
        {"SURF": surf_run, "bare": bare},
        reference_front=ref,
        title="gear",
        objective_names=("cost", "risk"),
    )
    ax = fig.axes[0]
    assert len(fig.axes) == 2  # plot + colour bar
    assert fig.axes[1].get_ylabel() == WEIGHT_LABEL
    assert ax.get_xlabel() == "cost" and ax.get_ylabel() == "risk"
    assert ax.get_title() == "gear"
    # lines: the exact front (thin grey) and one joining line per method, in weight order
    assert len(ax.lines) == 3
    np.testing.assert_allclose(np.c_[ax.lines[0].get_xdata(), ax.lines[0].get_ydata()], ref)
    assert to_rgba(ax.lines[0].get_color()) == pytest.approx(to_rgba("0.6"))
    np.testing.assert_allclose(
        np.c_[ax.lines[1].get_xdata(), ax.lines[1].get_ydata()], gear_front(surf_run.weights)
    )
    # scatter points: SURF's are filled with the viridis colour of their weight
    assert len(ax.collections) == 2
    surf_scatter, bare_scatter = ax.collections
    np.testing.assert_allclose(surf_scatter.get_offsets(), gear_front(surf_run.weights))
    fig.canvas.draw()  # colours are mapped when drawn
    np.testing.assert_allclose(
        surf_scatter.get_facecolors(), colormaps["viridis"](surf_run.weights), atol=1e-12
    )
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
        ({"obj": object()}, {}, TypeError, "Result"),
    ],
)
def test_front_rejects_bad_input(results, kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        plot_front(results, **kwargs)


def test_front_rejects_result_without_iterations() -> None:
    empty = no_rounds(ps.surf(gear_solver, 4, iterations=1))
    with pytest.raises(ValueError, match="no points"):
        plot_front({"empty": empty})


def test_front_rejects_three_objective_result() -> None:
    w = np.linspace(0, 1, 5)
    res = SimpleNamespace(weights=w, points=np.c_[w, 1 - w, w * (1 - w)])
    with pytest.raises(ValueError, match="M = 2"):
        plot_front({"3 objectives": res})
    with pytest.raises(ValueError, match="M = 2"):
        plot_fronts({"3 objectives": res})


# ---------------------------------------------------------------------------- plot_fronts
def title_numbers(title):
    """``(label, CV, gap ratio)`` read back from a panel title ``"label\\nCV x, gap ratio y"``."""
    label, numbers = title.split("\n")
    cv_part, ratio_part = numbers.split(", ")
    assert cv_part.startswith("CV ") and ratio_part.startswith("gap ratio ")
    return label, float(cv_part[3:]), float(ratio_part[10:])


def gaps_ratio(points):
    gaps = [math.dist(a, b) for a, b in itertools.pairwise(points)]
    return max(gaps) / min(gaps)


def chord_fraction(points):
    """Cumulative chord length from the first point over the total, written out by hand."""
    cum = [0.0]
    for a, b in itertools.pairwise(points):
        cum.append(cum[-1] + math.dist(a, b))
    return np.array(cum) / cum[-1]


def clustered_run(n=10):
    """A result-like object whose weights cluster: w_n = (n/N)^(1/20), 7 of 11 in [0.95, 1]."""
    w = (np.arange(n + 1) / n) ** (1 / 20)
    return SimpleNamespace(weights=w, points=gear_front(w))


def panels_of(fig):
    """The panels of a plot_fronts figure (every Axes but the colour bar)."""
    return [a for a in fig.axes if a.get_label() != "<colorbar>"]


GEAR_REF = gear_front(np.linspace(0, 1, 400))


def test_fronts_one_panel_per_method_over_the_exact_front(surf_run, uniform_run) -> None:
    bare = gear_front(np.linspace(0, 1, 6))
    fig = plot_fronts(
        {"SURF": surf_run, "Uniform-w": uniform_run, "bare": bare},
        reference_front=GEAR_REF,
        objective_names=("cost", "risk"),
        title="gear",
    )
    assert len(fig.axes) == 3 + 1  # 3 panels + colour bar
    panels = panels_of(fig)
    assert len(panels) == 3 and fig.axes[:3] == panels
    assert fig.axes[3].get_ylabel() == WEIGHT_LABEL
    assert fig.get_suptitle() == "gear"
    expected = {
        "SURF": (surf_run.weights, gear_front(surf_run.weights)),
        "Uniform-w": (np.linspace(0, 1, 11), gear_front(np.linspace(0, 1, 11))),
        "bare": (None, bare),
    }
    for ax, (name, (weights, pts)) in zip(panels, expected.items(), strict=True):
        # the exact front under the panel: a thin grey line, drawn first
        assert len(ax.lines) == 2
        ref_line, join = ax.lines
        np.testing.assert_allclose(np.c_[ref_line.get_xdata(), ref_line.get_ydata()], GEAR_REF)
        assert to_rgba(ref_line.get_color()) == pytest.approx(to_rgba("0.6"))
        assert ref_line.get_linewidth() < 1 and ref_line.get_zorder() < join.get_zorder()
        # the method's points, joined in weight order (the closed-form front at its weights)
        np.testing.assert_allclose(np.c_[join.get_xdata(), join.get_ydata()], pts, rtol=1e-12)
        (scatter,) = ax.collections
        np.testing.assert_allclose(scatter.get_offsets(), pts, rtol=1e-12)
        if weights is not None:
            assert np.all(np.diff(weights) > 0)
            np.testing.assert_allclose(scatter.get_array(), weights, rtol=1e-12)
        else:
            assert scatter.get_array() is None  # bare points: method colour
        # the title: label, then CV and gap ratio of the points (3 significant digits)
        label, cv, ratio = title_numbers(ax.get_title())
        assert label == name
        assert cv == pytest.approx(gaps_cv(pts), rel=5e-3)
        assert ratio == pytest.approx(gaps_ratio(pts), rel=5e-3)
    # shared limits that hold every point and the whole front
    assert len({ax.get_xlim() for ax in panels}) == 1 and len({ax.get_ylim() for ax in panels}) == 1
    (x0, x1), (y0, y1) = panels[0].get_xlim(), panels[0].get_ylim()
    everything = np.concatenate([GEAR_REF, bare, gear_front(surf_run.weights)])
    assert x0 < everything[:, 0].min() and everything[:, 0].max() < x1
    assert y0 < everything[:, 1].min() and everything[:, 1].max() < y1
    assert all(panels[0].get_shared_x_axes().joined(panels[0], ax) for ax in panels)
    assert all(panels[0].get_shared_y_axes().joined(panels[0], ax) for ax in panels)
    # labels on the outer panels only: one row, so x labels everywhere, y label on the left
    assert [ax.get_xlabel() for ax in panels] == ["cost"] * 3
    assert [ax.get_ylabel() for ax in panels] == ["risk", "", ""]
    assert [t.get_text() for t in panels[0].get_legend().get_texts()] == ["exact front"]
    # the methods keep the colours and markers plot_uniformity gives them
    edge = [to_rgba(ax.lines[1].get_color()) for ax in panels]
    assert edge == [colormaps["tab10"](i) for i in range(3)]
    fig.canvas.draw()
    np.testing.assert_allclose(
        panels[0].collections[0].get_facecolors(),
        colormaps["viridis"](surf_run.weights),
        atol=1e-12,
    )


def test_fronts_sequence_of_results_is_titled_by_label(surf_run, uniform_run) -> None:
    fig = plot_fronts([surf_run, uniform_run])
    assert [title_numbers(ax.get_title())[0] for ax in panels_of(fig)] == ["SURF", "Uniform-w"]
    _, cv, ratio = title_numbers(panels_of(fig)[0].get_title())
    assert cv == pytest.approx(surf_run.cv, rel=5e-3)
    assert ratio == pytest.approx(surf_run.gap_ratio, rel=5e-3)
    assert panels_of(fig)[0].get_xlabel() == "objective 1"
    assert panels_of(fig)[0].get_legend() is None  # no reference front


def test_fronts_name_a_reference_that_is_not_exact(surf_run) -> None:
    union = np.array(surf_run.points)
    fig = plot_fronts(
        [surf_run], reference_front=union, reference_label="non-dominated union of all points"
    )
    legend = panels_of(fig)[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["non-dominated union of all points"]
    np.testing.assert_array_equal(panels_of(fig)[0].lines[0].get_xydata(), union)


@pytest.mark.parametrize(
    ("n", "ncols", "shape"),
    [
        (1, None, (1, 1)),
        (4, None, (1, 4)),
        (5, None, (2, 3)),
        (6, None, (2, 3)),
        (7, None, (3, 3)),
        (4, 2, (2, 2)),
    ],
)
def test_fronts_grid_layout(n, ncols, shape) -> None:
    results = {f"m{i}": uniform(gear_solver, 4 + i, iterations=1) for i in range(n)}
    fig = plot_fronts(results, ncols=ncols)
    panels = panels_of(fig)
    assert len(fig.axes) == n + 1 and len(panels) == n  # no empty cells left over
    rows, cols = shape
    specs = [ax.get_subplotspec() for ax in panels]
    assert {(s.get_geometry()[0], s.get_geometry()[1]) for s in specs} == {(rows, cols)}
    assert [(s.rowspan.start, s.colspan.start) for s in specs] == [
        divmod(i, cols) for i in range(n)
    ]
    for i, ax in enumerate(panels):
        below = i + cols < n  # a panel under this one carries the x axis
        assert (ax.get_xlabel() == "objective 1") is not below
        assert ax.xaxis.get_tick_params()["labelbottom"] is not below
        assert (ax.get_ylabel() == "objective 2") is (i % cols == 0)
    assert len({ax.get_xlim() for ax in panels}) == 1


def test_fronts_into_given_axes_share_limits(surf_run) -> None:
    fig, axes = plt.subplots(1, 3)
    far = gear_front(np.linspace(0, 1, 5)) + 3.0
    out = plot_fronts({"SURF": surf_run, "far": far}, ax=list(axes[:2]))
    assert out is fig
    assert len(axes[0].collections) == 1 and len(axes[2].collections) == 0
    assert axes[0].get_xlim() == axes[1].get_xlim() and axes[0].get_ylim() == axes[1].get_ylim()
    assert axes[0].get_xlim()[1] > 4.0 and axes[1].get_xlim()[0] < 0.0
    assert len(fig.axes) == 4 and fig.axes[3].get_ylabel() == WEIGHT_LABEL


@pytest.mark.parametrize(
    ("results", "kwargs", "error", "match"),
    [
        ({}, {}, ValueError, "at least one method"),
        ([], {}, ValueError, "at least one method"),
        ("SURF", {}, TypeError, "mapping"),
        ([np.zeros((3, 2))], {}, TypeError, "label"),
        ({"3d": np.random.default_rng(0).random((5, 3))}, {}, ValueError, "M = 3"),
        ({"ok": [[0, 1], [1, 0]]}, {"reference_front": np.ones((4, 3))}, ValueError, "M = 3"),
        ({"ok": [[0, 1], [1, 0]]}, {"objective_names": "xy"}, ValueError, "objective_names"),
        ({"ok": [[0, 1], [1, 0]]}, {"color_by": "speed"}, ValueError, "color_by"),
        ({"ok": [[0, 1], [1, 0]]}, {"ncols": 0}, ValueError, "ncols"),
        ({"ok": [[0, 1], [1, 0]]}, {"ax": "ab"}, TypeError, "sequence of matplotlib Axes"),
        ({"ok": [[0, 1], [1, 0]]}, {"ax": []}, ValueError, "one Axes per method"),
    ],
)
def test_fronts_reject_bad_input(results, kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        plot_fronts(results, **kwargs)


def test_fronts_axes_of_two_figures_are_refused() -> None:
    (_, a), (_, b) = plt.subplots(), plt.subplots()
    with pytest.raises(ValueError, match="one figure"):
        plot_fronts({"a": [[0, 1], [1, 0]], "b": [[0, 1], [1, 0]]}, ax=[a, b])


# ---------------------------------------------------------------------------- colour rule
@pytest.mark.parametrize("n", [1, 2, 3, 10, 15, 40, 1000])
def test_even_weights_never_cluster(n) -> None:
    assert not weights_cluster(np.linspace(0, 1, n + 1))


def test_random_weights_do_not_cluster() -> None:
    rng = np.random.default_rng(0)
    for _ in range(50):
        w = np.sort(np.r_[0.0, rng.random(14), 1.0])
        assert not weights_cluster(w)


@pytest.mark.parametrize(
    ("weights", "clusters"),
    [
        ((np.arange(11) / 10) ** (1 / 20), True),  # 7 of 11 in [0.95, 1]
        (np.r_[0.0, np.linspace(0.40, 0.45, 14), 1.0], True),  # 14 of 16 in a window of 0.05
        ([0.0, 0.25, 0.5, 0.98, 0.99, 1.0], False),  # 3 of 6: half, not more
        ([0.0, 0.25, 0.97, 0.98, 0.99, 1.0], True),  # 4 of 6
        ([0.0, 0.25, 0.5, 0.94, 0.97, 1.0], False),  # 3 of 6 within 0.06
        ([0.0, 1.0], False),
        ([0.5], False),
    ],
)
def test_cluster_rule(weights, clusters) -> None:
    assert weights_cluster(weights) is clusters
    assert weights_cluster(np.asarray(weights)[::-1]) is clusters  # order does not matter


def test_cluster_rule_on_deep_sea_treasure() -> None:
    """SURF's weights on DST bunch where the front bends (11 of 16 within 0.05); Uniform-w's
    are evenly spaced."""
    problem = ps.problems.deep_sea_treasure()
    res = ps.surf(problem.solver(), 15, iterations=30)
    assert weights_cluster(res.weights)
    assert not weights_cluster(uniform(problem.solver(), 15, iterations=1).weights)
    fig = plot_fronts([res], reference_front=problem.reference_front(501))
    assert fig.axes[1].get_ylabel() == POSITION_LABEL


def test_cluster_rule_rejects_bad_weights() -> None:
    with pytest.raises(ValueError, match="1-D"):
        weights_cluster(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="finite"):
        weights_cluster([0.0, np.nan])


def test_clustered_weights_colour_by_arc_length_position(uniform_run) -> None:
    """Auto colouring switches to position for every panel when one method's weights cluster;
    on the exact front the position is the true arc-length CDF Phi(w) in closed form."""
    clustered = clustered_run()
    dense = gear_front(np.linspace(0, 1, 20_001))
    fig = plot_fronts({"clustered": clustered, "Uniform-w": uniform_run}, reference_front=dense)
    assert len(fig.axes) == 3 and fig.axes[2].get_ylabel() == POSITION_LABEL
    for ax, w in zip(panels_of(fig), (clustered.weights, uniform_run.weights), strict=True):
        values = ax.collections[0].get_array()
        np.testing.assert_allclose(values, gear_phi(w), atol=1e-6)
    fig.canvas.draw()
    scatter = panels_of(fig)[0].collections[0]
    np.testing.assert_allclose(
        scatter.get_facecolors(), colormaps["viridis"](scatter.get_array()), atol=1e-12
    )


def test_clustered_weights_without_front_colour_by_chord_position() -> None:
    clustered = clustered_run()
    fig = plot_fronts({"clustered": clustered})
    assert fig.axes[1].get_ylabel() == CHORD_POSITION_LABEL
    values = fig.axes[0].collections[0].get_array()
    np.testing.assert_allclose(values, chord_fraction(clustered.points), rtol=1e-12, atol=1e-15)
    assert values[0] == 0 and values[-1] == pytest.approx(1.0)


def test_points_off_the_front_take_the_position_of_their_nearest_front_point() -> None:
    front = np.array([[0.0, 2.0], [0.0, 0.0], [2.0, 0.0]])  # an L of length 4
    points = np.array([[-0.5, 1.0], [0.3, 0.2], [1.0, 0.5], [3.0, -1.0]])
    fig = plot_fronts({"off": points}, reference_front=front, color_by="position")
    # nearest front points: (0, 1), (0, 0.2) or (0.3, 0): (0.3, 0) is nearer, (1, 0), (2, 0)
    np.testing.assert_allclose(
        fig.axes[0].collections[0].get_array(), [1 / 4, 2.3 / 4, 3 / 4, 4 / 4], rtol=1e-12
    )


@pytest.mark.parametrize(
    ("color_by", "clustered", "label"),
    [
        ("auto", False, WEIGHT_LABEL),
        ("auto", True, POSITION_LABEL),
        ("weight", True, WEIGHT_LABEL),
        ("position", False, POSITION_LABEL),
    ],
)
def test_color_by_option(color_by, clustered, label, uniform_run) -> None:
    run = clustered_run() if clustered else uniform_run
    fig = plot_fronts({"run": run}, reference_front=GEAR_REF, color_by=color_by)
    assert fig.axes[1].get_ylabel() == label
    values = fig.axes[0].collections[0].get_array()
    if label == WEIGHT_LABEL:
        np.testing.assert_allclose(values, run.weights, rtol=1e-12)
    else:
        np.testing.assert_allclose(values, gear_phi(run.weights), atol=1e-4)


def test_bare_points_colour_only_by_position() -> None:
    bare = {"a": [[0, 1], [0.5, 0.4], [1, 0]]}
    assert len(plot_fronts(bare).axes) == 1  # auto: no weights known
    assert len(plot_fronts(bare, color_by="weight").axes) == 1
    fig = plot_fronts(bare, color_by="position")
    assert fig.axes[1].get_ylabel() == CHORD_POSITION_LABEL


def test_plot_front_follows_the_colour_rule() -> None:
    fig = plot_front({"clustered": clustered_run()}, reference_front=GEAR_REF)
    assert fig.axes[1].get_ylabel() == POSITION_LABEL
    fig = plot_front({"clustered": clustered_run()}, color_by="weight")
    assert fig.axes[1].get_ylabel() == WEIGHT_LABEL


# ---------------------------------------------------------------------------- plot_cdf_history
def test_cdf_history_curves_and_error_panel(surf_run) -> None:
    fig = plot_cdf_history(surf_run, true_cdf=gear_phi)
    cdf_ax, error_ax = fig.axes[0], fig.axes[1]
    assert len(fig.axes) == 3  # CDFs, error, colour bar
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
    assert len(ax.lines) == 2 and len(fig.axes) == 2  # no true CDF: no error panel
    assert [line.get_label() for line in ax.lines] == ["$\\Phi_{0}$", "$\\Phi_{3}$"]
    x = ax.lines[1].get_xdata()
    np.testing.assert_allclose(ax.lines[1].get_ydata(), surf_run.history[2].cdf(x))


def test_cdf_history_default_subsamples_long_runs() -> None:
    res = ps.surf(gear_solver, 6, iterations=30, early_stopping=False)  # all 30 rounds
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
    with pytest.raises(TypeError, match="Result"):
        plot_cdf_history(np.zeros((4, 2)))


def test_cdf_history_rejects_baseline_result_naming_its_method(uniform_run) -> None:
    assert uniform_run.cdf is None and uniform_run.history
    with pytest.raises(ValueError, match=r"only SURF results.*") as info:
        plot_cdf_history(uniform_run)
    assert repr(uniform_run.method) in str(info.value)
    assert "no CDF history" in str(info.value)
    assert not plt.get_fignums()  # refused before drawing


# ---------------------------------------------------------------------------- plot_uniformity
def test_uniformity_panels(surf_run, uniform_run) -> None:
    fig = plot_uniformity({"SURF": surf_run, "Uniform-w": uniform_run})
    cv_ax, gap_ax = fig.axes
    assert gap_ax.get_yscale() == "log" and cv_ax.get_yscale() == "linear"
    assert len(cv_ax.lines) == 2 and len(gap_ax.lines) == 3  # + the ideal line at 1
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
        ({"x": np.zeros((3, 2))}, {}, TypeError, "Result"),
        ({"SURF": None}, {"ax": "ab"}, TypeError, "pair"),
    ],
)
def test_uniformity_rejects_bad_input(results, kwargs, error, match, surf_run) -> None:
    results = {k: (surf_run if v is None else v) for k, v in results.items()}
    with pytest.raises(error, match=match):
        plot_uniformity(results, **kwargs)


def test_uniformity_rejects_result_without_iterations() -> None:
    with pytest.raises(ValueError, match="no iterations"):
        plot_uniformity({"empty": no_rounds(ps.surf(gear_solver, 4, iterations=1))})


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
    env = {
        k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "MPLBACKEND")
    }
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    before, backend = out.stdout.split()
    assert before == "False"
    if sys.platform.startswith("linux"):
        assert backend == "agg"


def test_fronts_title_a_result_with_its_own_figures_and_arrays_with_theirs() -> None:
    from types import SimpleNamespace

    # objectives 1e3 apart in scale: the run's normalized figures differ from the raw ones
    def solver(w: float, state: object) -> ps.Solution:
        x = w * 1e3 / (w * 1e3 + (1 - w))  # the minimizer of w 1e3 (1-x)^2 + (1-w) x^2
        return ps.Solution([1e3 * (1 - x) ** 2, x**2])

    res = ps.surf(solver, 8, iterations=30)
    raw = SimpleNamespace(weights=res.weights, points=res.points)
    fig = plot_fronts({"run": res, "arrays": raw})
    (_, cv_run, ratio_run), (_, cv_raw, _) = (
        title_numbers(ax.get_title()) for ax in panels_of(fig)
    )
    assert cv_run == pytest.approx(res.cv, rel=5e-3, abs=1e-3)
    assert ratio_run == pytest.approx(res.gap_ratio, rel=5e-3)
    assert cv_raw == pytest.approx(ps.metrics.cv(res.points), rel=5e-3)
    assert abs(cv_raw - cv_run) > 0.05  # the two really differ
