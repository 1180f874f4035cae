"""Plots of M >= 3 objective runs: 3-D points and weights in the triangle, coloured by weight."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from types import SimpleNamespace
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from mpl_toolkits.mplot3d import proj3d
from mpl_toolkits.mplot3d.axes3d import Axes3D

from paretosurf.plotting import (
    REFERENCE_CLOUD_COLOR,
    SIMPLEX_CORNERS,
    SURFACE_POINT_COLOR,
    plot_simplex_weights,
    plot_surface,
    plot_surface_result,
    weight_colors,
)
from paretosurf.surfaces._weights import random_simplex_weights, simplex_lattice

pytestmark = pytest.mark.usefixtures("close_figures")


def sphere(w: np.ndarray) -> np.ndarray:
    """Points of the unit-sphere octant front (DTLZ2), one per weight direction."""
    return w / np.linalg.norm(w, axis=1, keepdims=True)


def by_label(ax: Axes, label: str) -> Any:
    (found,) = [c for c in ax.collections if c.get_label() == label]
    return found


def check_positions(ax: Any, collection: Any, xyz: np.ndarray) -> None:
    """The drawn markers of a 3-D scatter are the data points, projected, in data order."""
    ax.figure.canvas.draw()
    x, y, _ = proj3d.proj_transform(xyz[:, 0], xyz[:, 1], xyz[:, 2], ax.get_proj())
    np.testing.assert_allclose(np.asarray(collection.get_offsets()), np.c_[x, y], atol=1e-12)


def data_colours(collection: Any) -> np.ndarray:
    """RGB of each point in data order.

    A drawn 3-D scatter returns its colours sorted by depth from ``get_facecolors()``; the
    base class's method gives them in the order of the data. Both must hold the same rows.
    """
    rgb = np.asarray(PathCollection.get_facecolor(collection))[:, :3]
    drawn = np.asarray(collection.get_facecolors())[:, :3]
    np.testing.assert_allclose(np.unique(drawn.round(12), axis=0), np.unique(rgb.round(12), axis=0))
    return rgb


def test_plot_surface_draws_points_coloured_by_weight() -> None:
    w = simplex_lattice(3, 6)
    pts = sphere(w)
    ax = plot_surface(pts, w, title="DTLZ2", labels=["f1", "f2", "f3"])
    assert isinstance(ax, Axes3D) and ax.name == "3d"
    scatter = by_label(ax, "points")
    check_positions(ax, scatter, pts)
    assert len(scatter.get_offsets()) == w.shape[0] == 28
    np.testing.assert_allclose(data_colours(scatter), w, atol=1e-12)
    np.testing.assert_allclose(scatter.get_facecolors()[:, 3], 1.0)
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_zlabel()) == ("f1", "f2", "f3")
    assert ax.get_title() == "DTLZ2"


def test_plot_surface_reference_cloud_and_given_axes() -> None:
    w = random_simplex_weights(15, 3, seed=1)
    ref_w = random_simplex_weights(400, 3, seed=2)
    fig = plt.figure()
    given = fig.add_subplot(projection="3d")
    ax = plot_surface(sphere(w), w, ax=given, reference=sphere(ref_w))
    assert ax is given
    assert [c.get_label() for c in ax.collections] == ["reference", "points"]
    cloud = by_label(ax, "reference")
    assert len(cloud.get_offsets()) == 400
    grey = matplotlib.colors.to_rgb(REFERENCE_CLOUD_COLOR)
    np.testing.assert_allclose(cloud.get_facecolors()[0, :3], grey)
    assert ax.get_xlabel() == "objective 1"


def test_plot_surface_without_weights_and_more_objectives() -> None:
    ax = plot_surface(np.random.default_rng(0).uniform(size=(9, 3)))
    plain = by_label(ax, "points")
    assert len(plain.get_offsets()) == 9
    np.testing.assert_allclose(
        data_colours(plain),  # one colour for all
        np.array([matplotlib.colors.to_rgb(SURFACE_POINT_COLOR)]),
    )
    # M = 5: first three objectives drawn, colours are the first three components rescaled
    w = random_simplex_weights(12, 5, seed=3)
    pts = sphere(w)
    ax = plot_surface(pts, w)
    scatter = by_label(ax, "points")
    check_positions(ax, scatter, pts[:, :3])
    total = w[:, :3].sum(axis=1, keepdims=True)
    assert np.sum(total == 0) == 2  # the corners e_4 and e_5: black
    with np.errstate(invalid="ignore"):
        expected = np.where(total > 0, w[:, :3] / total, 0.0)
    np.testing.assert_allclose(data_colours(scatter), expected, atol=1e-12)


def test_weight_colors() -> None:
    np.testing.assert_allclose(weight_colors(simplex_lattice(3, 4)), simplex_lattice(3, 4))
    np.testing.assert_allclose(
        weight_colors([[0, 0, 0, 1], [0.1, 0.1, 0.2, 0.6]]),
        np.array([[0, 0, 0], [0.25, 0.25, 0.5]]),
    )


def test_plot_simplex_weights_barycentric_positions_and_colours() -> None:
    w = simplex_lattice(3, 5)
    ax = plot_simplex_weights(w, title="weights", labels=["cost", "time", "risk"])
    assert isinstance(ax, Axes) and ax.name == "rectilinear"
    scatter = by_label(ax, "weights")
    assert len(ax.collections) == 1
    offsets = np.asarray(scatter.get_offsets())
    assert len(offsets) == 21
    # independent: corner e_1 at the top, e_2 bottom left, e_3 bottom right, side 1
    top, left, right = np.array([0.5, np.sqrt(3) / 2]), np.zeros(2), np.array([1.0, 0.0])
    expected = w[:, :1] * top + w[:, 1:2] * left + w[:, 2:] * right
    np.testing.assert_allclose(offsets, expected, atol=1e-12)
    np.testing.assert_allclose(SIMPLEX_CORNERS, np.array([top, left, right]))
    np.testing.assert_allclose(scatter.get_facecolors()[:, :3], w, atol=1e-12)
    assert [t.get_text() for t in ax.texts] == ["cost", "time", "risk"]
    # the triangle's outline is closed
    outline = np.c_[ax.lines[0].get_xdata(), ax.lines[0].get_ydata()]
    np.testing.assert_allclose(outline, np.array([top, left, right, top]))
    assert ax.get_title() == "weights"


def test_plot_simplex_weights_single_colour() -> None:
    ax = plot_simplex_weights(simplex_lattice(3, 2), color="black")
    np.testing.assert_allclose(by_label(ax, "weights").get_facecolors()[:, :3], 0.0)


@pytest.mark.parametrize("suffix", [".png", ".pdf"])
def test_plot_surface_result_writes_file(tmp_path, suffix: str) -> None:
    w = simplex_lattice(3, 7)
    result = SimpleNamespace(weights=w, points=sphere(w), label="SURF on DTLZ2")
    path = tmp_path / "sub" / f"surface{suffix}"
    fig = plot_surface_result(result, reference=sphere(simplex_lattice(3, 30)), path=path)
    assert isinstance(fig, Figure)
    assert path.exists() and path.stat().st_size > 0
    surface_ax, simplex_ax = fig.axes
    assert (surface_ax.name, simplex_ax.name) == ("3d", "rectilinear")
    assert len(by_label(surface_ax, "points").get_offsets()) == 36
    weights_scatter = by_label(simplex_ax, "weights")
    assert len(weights_scatter.get_offsets()) == 36
    scatter = by_label(surface_ax, "points")
    check_positions(surface_ax, scatter, result.points)
    # a point and its weight have the same colour: the weight itself
    np.testing.assert_allclose(data_colours(scatter), w, atol=1e-12)
    np.testing.assert_allclose(weights_scatter.get_facecolors()[:, :3], w, atol=1e-12)
    assert fig.get_suptitle() == "SURF on DTLZ2"


def test_plot_surface_result_without_label_or_path() -> None:
    w = simplex_lattice(3, 3)
    fig = plot_surface_result(SimpleNamespace(weights=w, points=1 - w))
    assert isinstance(fig, Figure) and fig.get_suptitle() == ""


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: plot_surface(np.zeros((5, 2))), "M >= 3"),
        (lambda: plot_surface(np.zeros(5)), "2-D"),
        (lambda: plot_surface(np.full((3, 3), np.nan)), "finite"),
        (lambda: plot_surface(np.zeros((4, 3)), simplex_lattice(3, 1)), "3 rows but points has 4"),
        (lambda: plot_surface(np.zeros((3, 3)), np.eye(4)[:3]), "3 columns"),
        (lambda: plot_surface(np.zeros((3, 3)), [[0.5, 0.6, 0.0]] * 3), "sum to 1"),
        (lambda: plot_surface(np.zeros((3, 3)), reference=np.zeros((5, 4))), "reference"),
        (lambda: plot_surface(np.zeros((3, 3)), labels=["a", "b"]), "labels"),
        (lambda: plot_simplex_weights(simplex_lattice(4, 2)), "M = 3"),
        (lambda: plot_simplex_weights([0.2, 0.3, 0.5]), "2-D"),
        (lambda: plot_simplex_weights([[0.2, 0.3, 0.6]]), "sum to 1"),
        (
            lambda: plot_surface_result(
                SimpleNamespace(weights=np.eye(3), points=np.zeros((4, 3)))
            ),
            "result.points must have shape",
        ),
        (
            lambda: plot_surface_result(
                SimpleNamespace(weights=simplex_lattice(4, 1), points=np.zeros((4, 4)))
            ),
            "result.weights must have 3 columns",
        ),
    ],
)
def test_bad_shapes(call, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()


def test_bad_axes_and_result() -> None:
    _, flat = plt.subplots()
    with pytest.raises(TypeError, match="3-D"):
        plot_surface(np.zeros((3, 3)), ax=flat)
    with pytest.raises(TypeError, match=r"\.weights and \.points"):
        plot_surface_result(np.zeros((3, 3)))
