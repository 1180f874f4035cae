"""SURF on disconnected fronts: pieces found exactly, points spread by arc length within them
(the shares proportional to the pieces' lengths, each piece's ends covered), and the same
weights as the one-piece rule on a connected front."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.adapters import Scalarization
from paretosurf.curves._pieces import allocate, find_breaks, limit_end_weight, pieces_from_breaks
from paretosurf.methods._surf import SurfMethod
from paretosurf.testing import assert_same_result

IDEAL = np.array([-0.05, -0.05])


class SampledFront:
    """An exact Tchebycheff solver over a fixed dense sample of a (disconnected) front: each
    solve returns the sample point with the lowest scalarized value, so the minimizer over the
    sample is exact; the state is the point's index."""

    def __init__(self, pieces: list[np.ndarray]) -> None:
        self.pieces = pieces
        self.samples = np.vstack(pieces)
        self.scalarization = Scalarization("tchebycheff", ideal=IDEAL)

    def solve(self, w: float, state: object) -> ps.Solution:
        values = self.scalarization(self.samples, w)
        i = int(np.argmin(values))
        return ps.Solution(self.samples[i], state=i)


def line_pieces(bounds: list[tuple[float, float]], n: int = 20001) -> list[np.ndarray]:
    """Pieces of the straight front ``f2 = 1 - f1`` over the ``bounds`` of ``f1``."""
    out = []
    for lo, hi in bounds:
        f1 = np.linspace(lo, hi, n)
        out.append(np.c_[f1, 1.0 - f1])
    return out


def circle_pieces(bounds: list[tuple[float, float]], n: int = 20001) -> list[np.ndarray]:
    """Pieces of the concave quarter circle ``f = (1 - cos t, 1 - sin t)``... convex toward
    the origin: ``f = (1 - sin t, 1 - cos t)`` is concave; here ``f = (cos t, sin t)`` mirrored
    so that it bulges toward the ideal point, over the angle ``bounds``."""
    out = []
    for lo, hi in bounds:
        t = np.linspace(lo, hi, n)
        out.append(np.c_[1.0 - np.sin(t), 1.0 - np.cos(t)][::-1])
    return out


def run(
    front: SampledFront, n_points: int, iterations: int = 15, warm_start: str = "best"
) -> ps.Result:
    """SURF on ``front``; with ``warm_start="best"`` (the default here) it lays its weights
    out by pieces."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ps.surf(
            front,
            n_points=n_points,
            iterations=iterations,
            normalize="none",
            alpha=1.0,
            warm_start=warm_start,
        )


def piece_of(points: np.ndarray, pieces: list[np.ndarray]) -> np.ndarray:
    d = np.stack(
        [np.min(np.linalg.norm(points[:, None] - p[None], axis=2), axis=1) for p in pieces]
    )
    return np.argmin(d, axis=0)


def arc_length(piece: np.ndarray) -> float:
    return float(np.linalg.norm(np.diff(piece, axis=0), axis=1).sum())


@pytest.mark.parametrize(
    "bounds",
    [
        [(0.0, 0.35), (0.55, 1.0)],
        [(0.0, 0.2), (0.35, 0.6), (0.8, 1.0)],
    ],
)
def test_pieces_found_exactly_and_shared_by_length(bounds: list[tuple[float, float]]) -> None:
    # slot 0 (w = 0) minimizes objective 2: in weight order the pieces run from large f1
    bounds = bounds[::-1]
    pieces = line_pieces(bounds)
    res = run(SampledFront(pieces), 16)
    assert res.pieces is not None and len(res.pieces) == len(bounds)
    owner = piece_of(res.points, pieces)
    # the slots of each reported piece are exactly those whose points lie on it
    for k, piece in enumerate(res.pieces):
        assert set(np.flatnonzero(owner == k).tolist()) == set(piece.slots)
    # shares from the closed-form lengths: one point each, the rest of the segments in
    # proportion to length (largest remainder)
    lengths = [math.sqrt(2.0) * (hi - lo) for lo, hi in bounds]
    segments = 16 - len(bounds)
    ideal = [segments * a / sum(lengths) for a in lengths]
    counts = [math.floor(v) for v in ideal]
    order = sorted(range(len(ideal)), key=lambda k: (-(ideal[k] - counts[k]), k))
    for k in order[: segments - sum(counts)]:
        counts[k] += 1
    assert [p.share for p in res.pieces] == [c + 1 for c in counts]
    assert [len(p.slots) for p in res.pieces] == [c + 1 for c in counts]
    for piece, true in zip(res.pieces, lengths, strict=True):
        assert piece.length == pytest.approx(true, rel=1e-3)
    # each piece's ends are covered, and its gaps are even
    for k, (lo, hi) in enumerate(bounds):
        on = np.sort(res.points[owner == k, 0])
        assert on[0] == pytest.approx(lo, abs=1e-3) and on[-1] == pytest.approx(hi, abs=1e-3)
        gaps = np.diff(on)
        assert np.std(gaps) / np.mean(gaps) < 0.02
    # and the record measures the gaps within the pieces
    assert res.history[-1].cv < 0.05


def test_curved_pieces_even_within_each() -> None:
    pieces = circle_pieces([(0.8, 1.5), (0.0, 0.5)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ps.surf(
            SampledFront(pieces), n_points=21, iterations=30, normalize="none", warm_start="best"
        )
    assert res.pieces is not None and len(res.pieces) == 2
    owner = piece_of(res.points, pieces)
    for k in range(2):
        pts = res.points[owner == k]
        pts = pts[np.argsort(pts[:, 0])]
        gaps = np.linalg.norm(np.diff(pts, axis=0), axis=1)
        assert np.std(gaps) / np.mean(gaps) < 0.05
        ends = pieces[k][[0, -1]]
        assert np.min(np.linalg.norm(pts - ends[0], axis=1)) < 1e-3
        assert np.min(np.linalg.norm(pts - ends[1], axis=1)) < 1e-3


def test_one_piece_is_todays_surf() -> None:
    """On a connected front nothing breaks, and the weights are those of the one-piece rule:
    the damped CDF's quantiles, bit for bit."""
    front = SampledFront(circle_pieces([(0.0, 1.5)]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ps.surf(front, n_points=11, iterations=6, alpha=0.3, early_stopping=False)
    assert res.pieces is None
    for r in res.history[1:]:
        assert r.pieces is None
    # replay the one-piece rule on the recorded rounds: each round's weights are the previous
    # CDF's quantiles
    for before, after in zip(res.history[:-1], res.history[1:], strict=True):
        expected = before.cdf.quantile_weights(10)
        np.testing.assert_allclose(after.weights, expected, rtol=0, atol=1e-12)


def test_find_breaks_on_closed_form_pieces() -> None:
    w = np.linspace(0.0, 1.0, 9)
    pts = np.array(
        [
            [1.0, 0.0],
            [0.9, 0.1],
            [0.8, 0.2],
            [0.8, 0.2],
            [0.4, 0.6],
            [0.3, 0.7],
            [0.2, 0.8],
            [0.1, 0.9],
            [0.0, 1.0],
        ]
    )
    assert find_breaks(w, pts) == [3]
    assert pieces_from_breaks([3], 9) == [(0, 3), (4, 8)]
    assert allocate([1.0, 3.0], 9) == [3, 6]
    with pytest.raises(ValueError):
        allocate([1.0, 1.0, 1.0], 2)


def test_pieces_saved_and_loaded(tmp_path: object) -> None:
    res = run(SampledFront(line_pieces([(0.0, 0.35), (0.55, 1.0)])), 11, iterations=5)
    json_path, _ = res.save(tmp_path / "r")  # type: ignore[operator]
    back = ps.Result.load(json_path)
    assert back.pieces == res.pieces
    assert [r.pieces for r in back.history] == [r.pieces for r in res.history]


def test_surf_method_without_a_scalarization_still_splits() -> None:
    """A method built without the solver's scalarization finds gaps from the chords alone:
    no Tchebycheff ray tells it where a point should lie, yet the pieces it reports are the
    front's, exactly (the slots of each are those whose points lie on it)."""
    bounds = [(0.55, 1.0), (0.0, 0.35)]  # in weight order the pieces run from large f1
    pieces = line_pieces(bounds)
    method = SurfMethod(15, alpha=1.0, warm_start="best")
    assert method.current_scalarization() is None  # (run, not ps.surf, which would give it)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ps.run(method, SampledFront(pieces), iterations=15, normalize="none")
    assert method.current_scalarization() is None
    assert res.pieces is not None and len(res.pieces) == 2
    owner = piece_of(res.points, pieces)
    assert sorted(set(owner.tolist())) == [0, 1]  # points on both pieces
    for k, piece in enumerate(res.pieces):
        assert set(np.flatnonzero(owner == k).tolist()) == set(piece.slots)
        lo, hi = bounds[k]
        assert piece.length == pytest.approx(math.sqrt(2.0) * (hi - lo), rel=1e-3)
    # the one break is the chord across the gap, between the pieces' facing ends
    (gap,) = method.suspected_gaps()
    assert owner[gap] == 0 and owner[gap + 1] == 1


@pytest.mark.parametrize("which", ["plot_front", "plot_fronts"])
def test_plots_draw_no_line_across_a_gap(which: str) -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from paretosurf import plotting

    bounds = [(0.55, 1.0), (0.0, 0.35)]
    pieces = line_pieces(bounds)
    res = run(SampledFront(pieces), 11, iterations=8)
    assert res.pieces is not None and len(res.pieces) == 2
    fig = getattr(plotting, which)({"SURF": res})
    try:
        # the line through the method's points (the only line of the axes with its points)
        (line,) = [
            ln
            for ax in fig.axes
            for ln in ax.get_lines()
            if np.count_nonzero(np.isfinite(np.asarray(ln.get_xdata(), dtype=float)))
            == len(res.points)
        ]
        xy = np.c_[line.get_xdata(), line.get_ydata()].astype(float)
        drawn = [
            np.linalg.norm(b - a)
            for a, b in itertools.pairwise(xy)
            if np.all(np.isfinite(a)) and np.all(np.isfinite(b))
        ]
        # the gap between the pieces is 0.2 * sqrt(2) in f1 and f2; no drawn segment spans it,
        # and every chord within a piece is drawn
        gap = math.sqrt(2.0) * (bounds[0][0] - bounds[1][1])
        assert max(drawn) < gap
        assert len(drawn) == len(res.points) - len(res.pieces)
    finally:
        plt.close(fig)


def test_a_jump_between_evenly_covered_pieces_is_no_failure() -> None:
    """With the pieces identified and each evenly covered, the run succeeds and a finding
    tells the user the front breaks, naming the pieces; with the one-piece layout ("slot")
    the same front is not evenly covered, and the jump stays fatal."""
    bounds = [(0.55, 1.0), (0.0, 0.35)]
    best = run(SampledFront(line_pieces(bounds)), 16, warm_start="best")
    assert best.pieces is not None and len(best.pieces) == 2
    # the within-piece spacing the verdict rests on, measured independently of the records
    owner = piece_of(best.points, line_pieces(bounds))
    for k in range(2):
        on = np.sort(best.points[owner == k, 0])
        gaps = np.diff(on)
        assert gaps.max() / gaps.min() < 2.0
    assert best.success
    (jump,) = [f for f in best.findings if f.code == "jump"]
    assert not jump.fatal
    assert "2 pieces" in jump.message
    for p in best.pieces:
        assert f"slots {p.first}-{p.last}" in jump.message
    # the finding's gap is the chord between the pieces
    assert jump.slots == (best.pieces[0].last, best.pieces[1].first)

    slot = run(SampledFront(line_pieces(bounds)), 16, warm_start="slot")
    assert not slot.success
    assert any(f.code == "jump" and f.fatal for f in slot.findings)


# ---------------------------------------------------------------------------- limit ends
#: ZDT3's Pareto front: ``f2 = 1 - sqrt(f1) - f1 sin(10 pi f1)`` over five intervals of
#: ``f1``. The left end of each piece but the first has the ``f2`` of the right end of the
#: piece before it, which weakly dominates it: no Tchebycheff weight reaches it on its own.
ZDT3_BOUNDS = [
    (0.0, 0.0830015349),
    (0.1822287280, 0.2577623634),
    (0.4093136748, 0.4538821041),
    (0.6183967944, 0.6525117038),
    (0.8233317983, 0.8518328654),
]


def zdt3_pieces(n: int = 20001) -> list[np.ndarray]:
    out = []
    for lo, hi in ZDT3_BOUNDS:
        f1 = np.linspace(lo, hi, n)
        out.append(np.c_[f1, 1.0 - np.sqrt(f1) - f1 * np.sin(10.0 * np.pi * f1)])
    return out


class SampledZDT3(SampledFront):
    """:class:`SampledFront` on ZDT3's pieces, with an ideal point below their ``f2``."""

    def __init__(self) -> None:
        super().__init__(zdt3_pieces())
        self.scalarization = Scalarization("tchebycheff", ideal=[-0.05, -0.85])


def zdt3_run(**options: object) -> ps.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ps.surf(SampledZDT3(), n_points=21, normalize="none", warm_start="best", **options)  # type: ignore[arg-type]


def test_limit_ends_of_zdt3_pieces_are_approached_without_duplicates() -> None:
    """Probing into a gap for a left end of a ZDT3 piece lands on the right end of the piece
    across it (a duplicate, round after round); approaching the weight whose ray meets the
    end instead covers every piece evenly, each end within a small share of a gap."""
    pieces = zdt3_pieces()
    res = zdt3_run(iterations=30)
    assert res.success and res.pieces is not None and len(res.pieces) == 5
    owner = piece_of(res.points, pieces)
    gaps_between = np.linalg.norm(res.points[:, None] - res.points[None], axis=2)
    assert np.min(gaps_between + np.eye(21)) > 1e-2  # no two points alike
    for k, piece in enumerate(pieces):
        pts = res.points[owner == k]
        pts = pts[np.argsort(pts[:, 0])]
        gaps = np.linalg.norm(np.diff(pts, axis=0), axis=1)
        assert len(pts) >= 3 and np.std(gaps) / np.mean(gaps) < 0.05
        for end in piece[[0, -1]]:  # both ends, the limit one within a tenth of a gap
            assert np.min(np.linalg.norm(pts - end, axis=1)) < 0.1 * np.mean(gaps)


def test_a_resumed_zdt3_run_approaches_the_ends_as_the_uninterrupted_run(
    tmp_path: object,
) -> None:
    folder = f"{tmp_path}/run"
    whole = zdt3_run(iterations=6, early_stopping=False)
    zdt3_run(iterations=3, early_stopping=False, checkpoint=folder)
    resumed = zdt3_run(iterations=6, early_stopping=False, checkpoint=folder, resume=True)
    assert_same_result(resumed, whole)


def ray_weight(point: np.ndarray, ideal: np.ndarray) -> float:
    """The weight whose Tchebycheff ray passes through ``point``: w (h1 - z1) = (1 - w)
    (h2 - z2)."""
    e = point - ideal
    return float(e[1] / e.sum())


@pytest.mark.parametrize("slope", [-0.5, -1.0, -3.0])
def test_limit_end_weight_on_a_straight_piece(slope: float) -> None:
    """A piece along a line of the given slope, ending where a point across the gap shares
    its f2 (the point across lies at smaller f1) or its f1 (at larger f1): the weight is the
    ray's through that end, in closed form."""
    z = np.array([-0.2, -1.0])
    inner, end = np.array([0.6, 0.3]), np.array([0.5, 0.3 - 0.1 * slope])
    # across at smaller f1: the end is where the line reaches the across point's f2
    across = np.array([0.1, 0.3 - 0.25 * slope])
    limit = np.array([0.35, across[1]])
    assert limit_end_weight(end, inner, across, z) == pytest.approx(ray_weight(limit, z))
    # across at larger f1 (the piece runs the other way): the end shares its f1
    inner2, end2 = end, inner
    across2 = np.array([0.8, 0.3 + 0.4 * slope])
    limit2 = np.array([0.8, 0.3 + 0.2 * slope])
    assert limit_end_weight(end2, inner2, across2, z) == pytest.approx(ray_weight(limit2, z))


def test_limit_end_weight_refuses_what_it_cannot_place() -> None:
    z = np.zeros(2)
    end, inner = np.array([0.5, 0.5]), np.array([0.6, 0.4])
    assert limit_end_weight(end, inner, np.array([0.2, 0.45]), z) is None  # behind the end
    assert limit_end_weight(end, np.array([0.6, 0.5]), np.array([0.2, 0.7]), z) is None  # flat
    assert limit_end_weight(end, inner, np.array([0.2, 0.7]), np.array([0.0, 0.8])) is None


@pytest.mark.parametrize("seed", range(5))
def test_allocate_keeps_its_shares_while_within_one(seed: int) -> None:
    rng = np.random.default_rng(seed)
    lengths = rng.uniform(0.1, 1.0, size=4)
    shares = allocate(lengths, 21)
    assert sum(shares) == 21 and allocate(lengths, 21, previous=shares) == shares
    segments = np.asarray(shares) - 1.0
    ideal = 17 * lengths / lengths.sum()
    assert np.all(np.abs(segments - ideal) < 1.0)  # largest remainder: within one
    # shares within one segment of the proportional ones stay; two off are shared anew
    assert allocate([1.2, 0.9], 10) == [6, 4]
    assert allocate([1.2, 0.9], 10, previous=[5, 5]) == [5, 5]
    far = list(shares)
    far[0], far[1] = far[0] + 2, far[1] - 2
    if far[1] >= 2:
        assert allocate(lengths, 21, previous=far) == shares


# ------------------------------------------------------------------ a connected front
class SampledZDT6(SampledFront):
    """ZDT6's front (g = 1: f2 = 1 - f1^2 with f1 = 1 - exp(-4 x1) sin(6 pi x1)^6), known at
    the points of a grid of 5001 values of x1: connected, but reached unevenly (most of the
    grid maps near f1 = 1, where sin^6 is flat; where f1 changes fast the sample thins), so
    an exact solve over it lands a little beside its weight's Tchebycheff ray, by up to half
    the sample's local spacing; near the front's ends that is a large relative offset."""

    def __init__(self) -> None:
        x1 = np.linspace(0.0, 1.0, 5001)
        f1 = 1.0 - np.exp(-4.0 * x1) * np.sin(6.0 * np.pi * x1) ** 6
        super().__init__([np.c_[f1, 1.0 - f1**2]])
        self.scalarization = Scalarization("tchebycheff", ideal=[f1.min() - 1e-6, -1e-6])


def test_a_connected_front_reached_unevenly_is_one_piece() -> None:
    """The sample of ZDT6's front has no gap wider than an eighth of the even spacing of 21
    points (measured here, in coordinates normalized by its ends): it is connected at the
    run's resolution, and the run lays out no pieces (it reported four before: points a
    hair beside their rays near the front's ends read as corner solutions at gaps), with
    every point on the closed-form front."""
    front = SampledZDT6()
    sample = np.unique(front.samples, axis=0)  # by increasing f1, on the front (f2 falls)
    span = np.ptp(sample, axis=0)
    gaps = np.linalg.norm(np.diff(sample / span, axis=0), axis=1)
    assert gaps.max() < 0.125 * gaps.sum() / 20
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ps.surf(front, n_points=21, iterations=15, warm_start="best")
    assert res.pieces is None or len(res.pieces) == 1
    assert all(r.pieces is None for r in res.history[-3:])
    np.testing.assert_allclose(res.points[:, 1], 1.0 - res.points[:, 0] ** 2, atol=1e-12)
    assert "jump" not in {f.kind for f in res.findings}


def test_a_chord_whose_box_holds_a_found_point_crosses_no_gap() -> None:
    """A chord between two points of a connected front with a point found between them in
    an earlier round is no gap; at a gap (the points between the pieces' ends dominated by
    them), none lies in the box, and the break stays."""
    w = np.linspace(0.0, 1.0, 8)
    pts = np.array(
        [
            [1.0, 0.0],
            [0.9, 0.1],
            [0.8, 0.2],
            [0.3, 0.6],
            [0.3, 0.6],
            [0.3, 0.6],
            [0.2, 0.7],
            [0.1, 0.8],
        ]
    )
    assert find_breaks(w, pts) == [2]  # three weights on the end of a piece, then a long chord
    on_front = np.array([[0.55, 0.35]])  # inside the box of chord 2, far from its ends
    dominated = np.array([[0.55, 0.65]])  # the stretch across a gap: beaten by its end
    near_end = np.array([[0.78, 0.21]])  # beside an end: a solve that stopped short of it
    assert find_breaks(w, pts, points=pts, seen=on_front) == []
    assert find_breaks(w, pts, points=pts, seen=dominated) == [2]
    assert find_breaks(w, pts, points=pts, seen=near_end) == [2]
