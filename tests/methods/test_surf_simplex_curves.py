"""SURF-simplex on fronts that are curves in three objectives (DTLZ5's kind, and a curve on
which every pair of objectives conflicts): once the points of
``paretosurf.findings.CURVE_ROUNDS`` rounds in a row lie on a curve, the layout runs SURF along
the segment of weights between the curve's ends, and the points end evenly spaced by arc
length along it. Truth: the curves' closed forms (arc length by dense quadrature in the
coordinates the run spaces its points in, normalized by the curve's extremes)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.adapters import Scalarization
from paretosurf.findings import CURVE_ROUNDS, lies_on_curve
from paretosurf.testing import Interrupt, assert_same_result, interrupt_after
from support import needs_scipy_116_slsqp


def quarter_circle(t: np.ndarray) -> np.ndarray:
    """DTLZ5's front: objectives 1 and 2 equal, a quarter circle in the plane f1 = f2."""
    return np.c_[np.cos(t) / np.sqrt(2), np.cos(t) / np.sqrt(2), np.sin(t)]


def twisted(t: np.ndarray) -> np.ndarray:
    """A curve on which every pair of objectives conflicts (no two move together)."""
    return np.c_[t, 1.0 - t, 4.0 * (t - 0.5) ** 2]


class SampledCurve:
    """The exact Tchebycheff minimizer over a dense sample of a curve (ideal point just below
    the curve's); the state is the sample's index."""

    def __init__(self, curve, lo: float, hi: float, n: int = 40001) -> None:  # type: ignore[no-untyped-def]
        self.t = np.linspace(lo, hi, n)
        self.samples = curve(self.t)
        self.scalarization = Scalarization("tchebycheff", ideal=self.samples.min(axis=0) - 1e-3)

    def solve(self, w: np.ndarray, state: object) -> ps.Solution:
        i = int(np.argmin(self.scalarization(self.samples, w)))
        return ps.Solution(self.samples[i], state=i)


def arc_positions(solver: SampledCurve, points: np.ndarray) -> np.ndarray:
    """Each point's arc-length position along the sampled curve, as a share of its length,
    in coordinates normalized by the curve's extremes (the run's ``"endpoints"``)."""
    lo, hi = solver.samples.min(axis=0), solver.samples.max(axis=0)
    dense = (solver.samples - lo) / (hi - lo)
    along = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(dense, axis=0), axis=1))])
    index = [int(np.argmin(np.linalg.norm(solver.samples - p, axis=1))) for p in points]
    return np.sort(along[index] / along[-1])


def run(solver: SampledCurve, n: int, **options: object) -> ps.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ps.ParetoWarning)  # a curve laid out evenly: no warning
        warnings.filterwarnings("ignore", message=".*degenerate.*", category=ps.ParetoWarning)
        return ps.surf_simplex(solver, n, 3, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("curve", "lo", "hi", "n"),
    [
        (quarter_circle, 0.0, np.pi / 2, 15),
        (quarter_circle, 0.0, np.pi / 2, 28),
        (twisted, 0.0, 1.0, 21),
    ],
    ids=["dtlz5-15", "dtlz5-28", "twisted-21"],
)
def test_points_end_evenly_spaced_along_the_curve(curve, lo, hi, n) -> None:  # type: ignore[no-untyped-def]
    solver = SampledCurve(curve, lo, hi)
    res = run(solver, n)
    assert res.success, res.message
    codes = [f.code for f in res.findings]
    if curve is quarter_circle:
        assert codes == ["degenerate"]  # named, and nothing else wrong
        (finding,) = res.findings
        assert "spaces its points by arc length along the curve" in finding.message
    else:
        # the twisted curve bends sharply at its vertex (in normalized coordinates), where
        # a point's neighbours do not lie along one direction: the shape test may not call
        # it a curve, and the edges of the simplex reach it anyway
        assert set(codes) <= {"degenerate"}
    tolerance = 0.02 if curve is quarter_circle else 0.03  # twisted: a point at the vertex
    position = arc_positions(solver, res.points)
    # the whole curve, its ends included, and every point within 2% (3%) of the length of
    # its even position (the sample's own spacing is 1/40000 of it)
    np.testing.assert_allclose(position, np.linspace(0.0, 1.0, n), atol=tolerance)
    # fewer evaluations than a run of the full budget: the layout settled and stopped early
    assert len(res.history) < 30


def test_without_a_curve_the_layout_stays_on_the_simplex() -> None:
    """DTLZ2's sphere: no round's points lie on a curve, and the run is SURF-simplex's."""
    problem = ps.problems.many.DTLZ2(n_objectives=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf_simplex(problem.solver(), 15, 3, iterations=6)
    assert not any(lies_on_curve(r.points) for r in res.history)
    assert "degenerate" not in [f.code for f in res.findings]
    # interior weights of the simplex (three non-zero weights) are still solved
    assert np.any(np.sum(res.weights > 0, axis=1) == 3)


def test_a_constant_objective_is_not_a_curve() -> None:
    """Solves that leave an objective at its best (DTLZ4's variables at their flat start)
    reach a curve of the front's boundary: not a front that is a curve."""
    t = np.linspace(0.0, np.pi / 2, 12)
    edge = np.c_[np.cos(t), np.sin(t), np.zeros(12)]
    assert not lies_on_curve(edge)
    assert lies_on_curve(np.c_[np.cos(t), np.sin(t), 0.1 * t])


def test_the_switch_comes_after_the_rounds_in_a_row_and_resumes_bit_for_bit(
    tmp_path: Path,
) -> None:
    solver = SampledCurve(quarter_circle, 0.0, np.pi / 2)
    whole = run(solver, 15, iterations=8, early_stopping=False)
    # rounds before the switch keep interior weights of the simplex (off the segment);
    # from the switch on, every weight lies on one segment (rank 2 with the simplex's sum)
    for record in whole.history[CURVE_ROUNDS + 1 :]:
        offsets = record.weights - record.weights[0]
        assert np.linalg.matrix_rank(offsets, tol=1e-9) <= 1
    assert np.linalg.matrix_rank(whole.history[0].weights - whole.history[0].weights[0]) == 2
    folder = tmp_path / "run"
    with pytest.raises(Interrupt):
        run(
            solver,
            15,
            iterations=8,
            early_stopping=False,
            checkpoint=folder,
            checkpoint_period=0,
            callback=interrupt_after(CURVE_ROUNDS + 2),
        )
    resumed = run(solver, 15, iterations=8, early_stopping=False, checkpoint=folder, resume=True)
    assert_same_result(resumed, whole)


@needs_scipy_116_slsqp  # (scipy 1.15's SLSQP: 19 rounds, CV 0.038 to 0.012 from round 15)
def test_dtlz6_settles_where_its_weights_reach_the_curve_steeply() -> None:
    """pymoo's DTLZ6, 28 points, ASF: the front is DTLZ5's quarter circle, but along the
    segment of weights the first hundredth reaches one chord of the curve and the next half
    the next chord. From one round's knots the CDF misplaced the second point inside that
    steep stretch and the run crept towards it by a constant share a round: 30 rounds, the
    CV falling from 0.23 at round 15 to 0.005 (48x). The previous round's knots measure the
    stretch: the layout settles (rounds 15 on within 2x in CV) and the run stops early."""
    problems = pytest.importorskip("pymoo.problems")
    problem = problems.get_problem("dtlz6", n_var=7, n_obj=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf_simplex(ps.adapters.from_pymoo(problem, scalarization="asf"), 28)
    assert res.success, res.message
    assert "degenerate" in [f.code for f in res.findings]
    # on the front (the unit sphere, f1 = f2), evenly along it by arc length
    np.testing.assert_allclose(np.linalg.norm(res.points, axis=1), 1.0, atol=1e-9)
    np.testing.assert_allclose(res.points[:, 0], res.points[:, 1], atol=1e-9)
    position = arc_positions(SampledCurve(quarter_circle, 0.0, np.pi / 2), res.points)
    np.testing.assert_allclose(position, np.linspace(0.0, 1.0, 28), atol=0.01)
    cv = [record.cv for record in res.history[15:]]
    assert len(res.history) <= 22
    assert not cv or max(cv) <= 2.0 * min(cv), cv


class EndLandsShort(SampledCurve):
    """DTLZ5's curve solved exactly, except that from call ``after`` on the solves at the
    weights ``short_at`` (all weights where none are given) that would reach the stretch of
    the curve beyond ``t = 0.93 pi / 2`` land at its start instead: a solver that, started
    from another state, stops short of the curve's end (pymoo's DTLZ6 on two BLAS threads)."""

    def __init__(self, after: int, short_at: list[list[float]] | None = None) -> None:
        super().__init__(quarter_circle, 0.0, np.pi / 2)
        self.after, self.calls = after, 0
        self.short_at = None if short_at is None else np.array(short_at, dtype=np.float64)
        self.short = round(0.93 * (len(self.t) - 1))

    def solve(self, w: np.ndarray, state: object) -> ps.Solution:
        self.calls += 1
        i = int(np.argmin(self.scalarization(self.samples, w)))
        hit = self.short_at is None or bool(np.any(np.all(w == self.short_at, axis=1)))
        if self.calls > self.after and i > self.short and hit:
            i = self.short
        return ps.Solution(self.samples[i], state=i)


@pytest.mark.parametrize("after", [60, 100])
def test_an_end_lost_moves_into_the_band_that_reached_it(after: int) -> None:
    """Both vertices (1, 0, 0) and (0, 1, 0) reach the curve's end (0, 0, 1); the segment
    starts at the first. From round 3 or 4 on its solve lands short of the end: the layout
    moves the segment's end to the other vertex and covers the whole curve evenly. Before,
    the run failed (points collapsed where the segment's end and its neighbour met)."""
    solver = EndLandsShort(after, short_at=[[1.0, 0.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf_simplex(solver, 28, 3)
    assert res.success, res.message
    assert solver.calls > after  # the solver did stop short
    np.testing.assert_allclose(
        arc_positions(solver, res.points), np.linspace(0.0, 1.0, 28), atol=0.02
    )


@pytest.mark.parametrize("after", [60, 100])
def test_an_end_no_weight_reaches_any_more_is_named(after: int) -> None:
    """From round 3 or 4 on no solve reaches the last 7% of the curve: the points settle
    evenly over the rest. The run reached the end before, so it says so (``coverage``,
    success False); before, it reported success with 93% of the curve."""
    solver = EndLandsShort(after)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf_simplex(solver, 28, 3)
    assert not res.success
    (coverage,) = [f for f in res.findings if f.code == "coverage"]
    assert "short of the curve's end at (0, 0, 1)" in coverage.summary
    # the points do stop 7% short of the curve (one end at 0.93 of its length by angle)
    angle = np.arctan2(res.points[:, 2], np.hypot(res.points[:, 0], res.points[:, 1]))
    assert np.max(angle) == pytest.approx(0.93 * np.pi / 2, abs=1e-4)


def test_success_on_dtlz6_means_the_whole_curve() -> None:
    """pymoo's DTLZ6 with 12 variables: the run used to settle on the first 39% of the
    quarter circle and report success (one BLAS thread; with two, 88% at 10 variables). A
    success now covers the whole curve, judged against its closed form (the angle along the
    circle from 0 to pi / 2, every point on it); a run that cannot reach an end says so."""
    problems = pytest.importorskip("pymoo.problems")
    problem = problems.get_problem("dtlz6", n_var=12, n_obj=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf_simplex(ps.adapters.from_pymoo(problem, scalarization="asf"), 28)
    angle = np.arctan2(res.points[:, 2], np.hypot(res.points[:, 0], res.points[:, 1]))
    if res.success:
        np.testing.assert_allclose(np.linalg.norm(res.points, axis=1), 1.0, atol=1e-6)
        spacing = (np.pi / 2) / 27
        # each end within half a spacing (the run's own test: a quarter of the mean spacing
        # in its normalized coordinates)
        assert angle.min() <= 0.5 * spacing and angle.max() >= np.pi / 2 - 0.5 * spacing
    else:
        assert "coverage" in [f.code for f in res.findings], res.message
