"""The pieces of a disconnected surface: :func:`surface_pieces` against groups known by
construction, its records' invariants, and ``res.pieces`` of surf_simplex on DTLZ7 (four
pieces, checked against the pieces' closed-form bounds) and on a connected surface (none)."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
from scipy.spatial.distance import pdist

import paretosurf as ps
from dtlz7_runs import dtlz7_run, true_piece
from paretosurf.plotting import plot_surface, plot_surface_result
from paretosurf.surfaces._pieces import SurfacePiece, surface_pieces
from support import needs_scipy_116_slsqp

matplotlib.use("Agg")


def _islands(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Unevenly sampled points of four unit squares on a tilted plane, two apart: the points
    and the square each came from."""
    rng = np.random.default_rng(seed)
    pts, owner = [], []
    for k, (x0, y0) in enumerate([(0, 0), (3, 0), (0, 3), (3, 3)]):
        n = int(rng.integers(5, 30))
        xy = rng.random((n, 2)) + np.array([x0, y0], dtype=float)
        pts.append(np.column_stack([xy, 0.3 * xy[:, 0] - 0.2 * xy[:, 1]]))
        owner += [k] * n
    return np.vstack(pts), np.array(owner)


@pytest.mark.parametrize("seed", range(5))
def test_islands_are_found_whatever_the_sampling(seed: int) -> None:
    points, owner = _islands(seed)
    pieces = surface_pieces(points)
    # the squares' gap (2) is wider than 1.5 times any nearest-neighbour distance here
    gaps = np.linalg.norm(points[:, None] - points[None], axis=2)
    np.fill_diagonal(gaps, np.inf)
    assert 1.5 * gaps.min(axis=1).max() < 2.0
    assert sorted(tuple(sorted(set(owner[list(p.members)]))) for p in pieces) == [
        (0,),
        (1,),
        (2,),
        (3,),
    ]


@pytest.mark.parametrize("seed", range(3))
def test_pieces_partition_the_points_and_measure_them(seed: int) -> None:
    points, _ = _islands(seed)
    pieces = surface_pieces(points)
    rows = sorted(v for p in pieces for v in p.members)
    assert rows == list(range(len(points)))
    assert [p.members[0] for p in pieces] == sorted(p.members[0] for p in pieces)
    for p in pieces:
        assert p.share == len(p.members) == len(p.slots)
        assert list(p.members) == sorted(p.members)
        pts = points[list(p.members)]
        expected = float(pdist(pts).max()) if len(pts) > 1 else 0.0
        assert p.extent == pytest.approx(expected, rel=1e-12)
        assert SurfacePiece.from_dict(p.to_dict()) == p


def test_a_connected_grid_is_one_piece_and_a_lone_far_point_merges_rather_than_splits() -> None:
    grid = np.array([[x, y, x + y] for x in range(6) for y in range(6)], dtype=float)
    assert len(surface_pieces(grid)) == 1
    # one point far off: its own nearest-neighbour distance sets the link, and the report
    # errs towards one piece
    assert len(surface_pieces(np.vstack([grid, [[40.0, 40.0, 80.0]]]))) == 1


def test_degenerate_inputs() -> None:
    assert surface_pieces(np.empty((0, 3))) == []
    one = surface_pieces(np.ones((1, 3)))
    assert [p.members for p in one] == [(0,)] and one[0].extent == 0.0
    same = surface_pieces(np.ones((4, 3)))
    assert [p.share for p in same] == [4]


# ---------------------------------------------------------------------------- surf_simplex
@pytest.fixture(scope="module")
def dtlz7_result() -> ps.Result:
    return dtlz7_run("best")[0]


@needs_scipy_116_slsqp
def test_dtlz7_reports_its_four_pieces(dtlz7_result: ps.Result) -> None:
    res = dtlz7_result
    assert res.pieces is not None and len(res.pieces) == 4
    truth = true_piece(res.points)
    found = [set(truth[list(p.members)].tolist()) for p in res.pieces]
    assert all(len(f) == 1 for f in found)  # no piece mixes two true pieces
    assert sorted(f.pop() for f in found) == [0, 1, 2, 3]
    assert sum(p.share for p in res.pieces) == len(res.points)


def test_the_result_reports_the_pieces_of_its_own_round(dtlz7_result: ps.Result) -> None:
    res = dtlz7_result
    shown = -1 if res.reported_round is None else res.reported_round
    assert res.history[shown].pieces == res.pieces
    for record in res.history:
        if record.pieces:
            assert sorted(v for p in record.pieces for v in p.members) == list(
                range(len(record.points))
            )


def test_surface_pieces_saved_and_loaded(dtlz7_result: ps.Result, tmp_path: object) -> None:
    json_path, _ = dtlz7_result.save(tmp_path / "r")  # type: ignore[operator]
    back = ps.Result.load(json_path)
    assert back.pieces == dtlz7_result.pieces
    assert [r.pieces for r in back.history] == [r.pieces for r in dtlz7_result.history]


@needs_scipy_116_slsqp
def test_plots_draw_the_pieces_apart(dtlz7_result: ps.Result) -> None:
    fig = plot_surface_result(dtlz7_result)
    surface = fig.axes[0]
    labels = [c.get_label() for c in surface.collections]
    assert len(labels) == 4 and all(label.startswith("piece ") for label in labels)
    drawn = sum(len(c.get_offsets()) for c in surface.collections)
    assert drawn == len(dtlz7_result.points)
    with pytest.raises(ValueError, match="each of the"):
        plot_surface(dtlz7_result.points, pieces=dtlz7_result.pieces[:2])  # type: ignore[index]


def test_a_connected_surface_reports_no_pieces() -> None:
    problem = ps.problems.InvertedDTLZ2(3, radii=(1.0, 2.0, 5.0))
    res = ps.surf_simplex(problem.solver(), 28, 3, iterations=8)
    assert res.pieces is None
    assert all(record.pieces is None for record in res.history)


def test_an_evenly_covered_surface_of_pieces_is_no_jump() -> None:
    """The reported round's pieces of a surface reach the curve-only ``jump`` check when the
    points are even: it leaves the findings alone instead of reading curve pieces' slots
    (a surface run that ended evenly on its pieces used to fail there)."""
    from paretosurf.findings import Finding, pieces_jump

    pieces = [SurfacePiece((0, 2), 1.0, 2), SurfacePiece((1, 3), 1.0, 2)]
    uneven = Finding("uneven", "nn max/min 4 > target 3")
    assert pieces_jump([], pieces, True) == []
    assert pieces_jump([uneven], pieces, True) == [uneven]
