"""Two-objective SURF-simplex runs: records measured as SURF's, and the 2-D plots that draw
them; what the plots say about runs of M >= 3 objectives."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import itertools
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.plotting import (
    NN_SUFFIX,
    UNIFORMITY_LABELS,
    WEIGHT_LABEL,
    plot_cdf_history,
    plot_front,
    plot_fronts,
    plot_surface_result,
    plot_uniformity,
    weights_cluster,
)
from paretosurf.problems.quadratic import GearToy
from paretosurf.result import IterationRecord
from paretosurf.surfaces._weights import simplex_lattice
from support import no_rounds

pytestmark = pytest.mark.usefixtures("close_figures")


def quad(m: int):
    """Exact solver of ``sum_m w_m |x - e_m|^2 / 2``: ``x = w``."""

    def solver(w: np.ndarray, state: object) -> ps.Solution:
        return ps.Solution(0.5 * ((w[None, :] - np.eye(m)) ** 2).sum(axis=1), w)

    return solver


def gaps_measures(points: np.ndarray) -> tuple[float, float]:
    """CV and max/min of the consecutive gaps, written out independently of paretosurf."""
    gaps = [math.dist(a, b) for a, b in itertools.pairwise(points.tolist())]
    mean = sum(gaps) / len(gaps)
    cv = math.sqrt(sum((g - mean) ** 2 for g in gaps) / len(gaps)) / mean
    return cv, max(gaps) / min(gaps)


@pytest.fixture(scope="module")
def gear_pair() -> tuple[ps.Result, ps.Result]:
    """SURF and SURF-simplex (M = 2, the same warm start) on the gear toy p = 9."""
    scalar = GearToy(9).solver()

    def vector(w: np.ndarray, state: object) -> ps.Solution:
        return scalar.solve(float(w[0]), state)

    # the paper's protocol, all 8 rounds: records to compare round by round
    paper = {"alpha": 0.3, "iterations": 8, "early_stopping": False}
    surf = ps.surf(scalar, 10, **paper)
    simplex = ps.surf_simplex(vector, 11, 2, warm_start="slot", **paper)
    return surf, simplex


@pytest.fixture(scope="module")
def surface_run() -> ps.Result:
    return ps.surf_simplex(quad(3), 10, 3, iterations=2)


# ---------------------------------------------------------------------------- records
def test_two_objective_simplex_records_are_surfs(gear_pair) -> None:
    surf, simplex = gear_pair
    np.testing.assert_array_equal(simplex.weights[:, 0], surf.weights)  # the same run
    np.testing.assert_array_equal(simplex.points, surf.points)
    for mine, theirs in zip(simplex.history, surf.history, strict=True):
        assert mine.cv == pytest.approx(theirs.cv, rel=1e-12, abs=0)
        assert mine.gap_ratio == pytest.approx(theirs.gap_ratio, rel=1e-12, abs=0)
    assert simplex.cv == pytest.approx(surf.cv, rel=1e-12)
    assert simplex.gap_ratio == pytest.approx(surf.gap_ratio, rel=1e-12)
    # the message's figures are the records': "CV 0.0486, gap ratio 1.17" for both
    figures = surf.message.splitlines()[0].split("points, ")[1]
    assert figures.startswith("CV 0.0486")
    assert simplex.message.splitlines()[0].split("points, ")[1] == figures


def test_records_of_two_component_weights_measure_gaps_in_weight_order() -> None:
    """Weight vectors (P, 2) in any order: the gaps of the points ordered by the weight on
    objective 1, not the nearest-neighbour distances (which differ here: 1, 1, 3)."""
    w = np.array([0.0, 0.25, 0.5, 1.0])
    points = np.c_[[0.0, 1.0, 2.0, 5.0], np.zeros(4)]  # gaps 1, 1, 3
    expected = gaps_measures(points)
    assert expected[1] == 3.0
    for order in ([0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1]):
        vectors = np.c_[w, 1 - w][order]
        rec = IterationRecord.from_points(
            0,
            vectors,
            points[order],
            cdf=None,
            seconds=0.0,
            solve_seconds=0.0,
            n_solves=4,
            n_steps=0,
        )
        assert (rec.cv, rec.gap_ratio) == pytest.approx(expected, rel=1e-12)
        np.testing.assert_array_equal(rec.weights, vectors)  # kept as given
        np.testing.assert_array_equal(rec.points, points[order])
    # coords, when given, are what is measured
    coords = np.c_[[0.0, 1.0, 2.0, 3.0], np.zeros(4)]
    rec = IterationRecord.from_points(
        0,
        np.c_[w, 1 - w],
        points,
        coords=coords,
        cdf=None,
        seconds=0.0,
        solve_seconds=0.0,
        n_solves=4,
        n_steps=0,
    )
    assert (rec.cv, rec.gap_ratio) == pytest.approx((0.0, 1.0), abs=1e-12)


def test_records_of_surfaces_still_measure_nearest_neighbours() -> None:
    w = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0], [0.5, 0.5, 0]])
    points = np.array([[0.0, 0, 0], [1.0, 0, 0], [4.0, 0, 0], [2.0, 0, 0]])
    rec = IterationRecord.from_points(
        0, w, points, cdf=None, seconds=0.0, solve_seconds=0.0, n_solves=4, n_steps=0
    )
    assert rec.cv == pytest.approx(ps.metrics.nn_cv(points), rel=1e-12)
    assert rec.gap_ratio == pytest.approx(ps.metrics.nn_ratio(points), rel=1e-12)


# ---------------------------------------------------------------------------- 2-D plots
def test_plot_front_draws_two_objective_simplex_result_as_surfs(gear_pair) -> None:
    surf, simplex = gear_pair
    fig = plot_front({"s": simplex})
    ax = fig.axes[0]
    np.testing.assert_array_equal(
        np.c_[ax.lines[0].get_xdata(), ax.lines[0].get_ydata()], surf.points
    )
    np.testing.assert_array_equal(ax.collections[0].get_offsets(), surf.points)
    np.testing.assert_allclose(ax.collections[0].get_array(), surf.weights, rtol=0, atol=0)
    assert fig.axes[1].get_ylabel() == WEIGHT_LABEL


def test_plot_front_orders_weight_vectors_by_first_component() -> None:
    w = np.linspace(0, 1, 6)
    order = [3, 0, 5, 1, 4, 2]
    shuffled = SimpleNamespace(weights=np.c_[w, 1 - w][order], points=np.c_[1 - w, w**2][order])
    ax = plot_front({"shuffled": shuffled}, color_by="weight").axes[0]
    np.testing.assert_array_equal(
        np.c_[ax.lines[0].get_xdata(), ax.lines[0].get_ydata()], np.c_[1 - w, w**2]
    )
    np.testing.assert_array_equal(ax.collections[0].get_array(), w)


def test_plot_fronts_panels_of_simplex_and_surf_match(gear_pair) -> None:
    surf, simplex = gear_pair
    fig = plot_fronts({"SURF": surf, "SURF-simplex": simplex})
    left, right = fig.axes[:2]
    for a, b in ((left.lines[0], right.lines[0]),):
        np.testing.assert_array_equal(a.get_xydata(), b.get_xydata())
    np.testing.assert_array_equal(left.collections[0].get_array(), right.collections[0].get_array())
    assert left.get_title().split("\n")[1] == right.get_title().split("\n")[1]
    assert right.get_title().split("\n")[1].startswith("CV 0.0486")


@pytest.mark.parametrize("plot", [plot_front, plot_fronts])
def test_2d_plots_send_surfaces_to_the_surface_plots(plot, surface_run) -> None:
    with pytest.raises(ValueError, match="plot_surface_result") as info:
        plot({"s": surface_run})
    assert plot.__name__ in str(info.value) and "M = 3" in str(info.value)
    bare = surface_run.points  # a bare (P, 3) array names them too
    with pytest.raises(ValueError, match="plot_surface_result"):
        plot({"s": bare})


def test_weights_cluster_takes_two_component_weight_vectors() -> None:
    w = np.array([0, 0.5, 0.95, 0.96, 0.97, 0.98, 0.99, 0.995, 1])
    assert weights_cluster(np.c_[w, 1 - w]) and weights_cluster(w)
    assert not weights_cluster(np.c_[np.linspace(0, 1, 9), np.linspace(1, 0, 9)])
    with pytest.raises(ValueError, match="sum to 1"):
        weights_cluster(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="weight_colors"):
        weights_cluster(simplex_lattice(3, 2))


def test_plot_surface_result_sends_curves_to_the_2d_plots(gear_pair) -> None:
    for result in gear_pair:
        with pytest.raises(ValueError, match="plot_fronts or plot_front"):
            plot_surface_result(result)


# ---------------------------------------------------------------------------- uniformity
def ylabels(fig: Any) -> tuple[str, str]:
    return fig.axes[0].get_ylabel(), fig.axes[1].get_ylabel()


def test_uniformity_labels_say_what_the_records_hold(gear_pair, surface_run) -> None:
    surf, simplex = gear_pair
    gaps = ("CV of gaps (std / mean)", "gap ratio (max gap / min gap)")
    assert UNIFORMITY_LABELS["gaps"] == gaps
    assert ylabels(plot_uniformity({"SURF": surf, "simplex": simplex})) == gaps
    nn = ylabels(plot_uniformity({"surface": surface_run}))
    assert nn == (
        "CV of nearest-neighbour distances (std / mean)",
        "max / min nearest-neighbour distance",
    )
    das = ps.methods.das_dennis(quad(3), 10, 3, iterations=1)
    assert ylabels(plot_uniformity({"Das-Dennis": das})) == nn
    mixed = plot_uniformity({"SURF": surf, "surface": surface_run})
    assert ylabels(mixed) == UNIFORMITY_LABELS["mixed"]
    assert all("nearest-neighbour" in label for label in ylabels(mixed))
    texts = [t.get_text() for t in mixed.axes[0].get_legend().get_texts()]
    assert texts == ["SURF", "surface" + NN_SUFFIX]
    np.testing.assert_array_equal(
        mixed.axes[0].lines[1].get_ydata(), [r.cv for r in surface_run.history]
    )


# ---------------------------------------------------------------------------- CDF history
@pytest.mark.parametrize(
    "make",
    [
        lambda: no_rounds(ps.surf_simplex(quad(2), 6, 2, iterations=1)),
        lambda: no_rounds(ps.surf_simplex(quad(3), 10, 3, iterations=1)),
        lambda: no_rounds(
            ps.methods.uniform(lambda w, s: ps.Solution([1 - w, w**2]), 4, iterations=1)
        ),
    ],
)
def test_cdf_history_refuses_results_of_no_rounds_without_a_cdf(make) -> None:
    result = make()
    with pytest.raises(ValueError, match="no CDF history") as info:
        plot_cdf_history(result)
    assert "no round was run" in str(info.value) and repr(result.method) in str(info.value)


def test_cdf_history_refuses_two_objective_simplex_runs(gear_pair) -> None:
    with pytest.raises(ValueError, match=r"'surf_simplex'.*no CDF history"):
        plot_cdf_history(gear_pair[1])


def test_cdf_history_of_surf_with_no_rounds_draws_phi_0() -> None:
    res = no_rounds(ps.surf(lambda w, s: ps.Solution([1 - w, w**2]), 4, iterations=1))
    ax = plot_cdf_history(res).axes[0]
    assert len(ax.lines) == 1
    np.testing.assert_allclose(ax.lines[0].get_ydata(), ax.lines[0].get_xdata(), atol=1e-12)
