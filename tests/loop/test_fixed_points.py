"""A run reuses a deterministic solver's fixed points (:mod:`paretosurf.loop._fixed_points`):
a solve that returned its start is not solved again at the same weight from the same start;
the points are the same, bit for bit, whatever the executor, and a resumed run counts what the
uninterrupted one does."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.adapters import ScipySolver
from paretosurf.loop import FixedPoints, _fixed_points, reuses_fixed_points
from paretosurf.testing import Interrupt, assert_same_result, interrupt_after

CENTRES = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


def three_bowls(x: np.ndarray) -> np.ndarray:
    return np.array([np.sum((x - c) ** 2 * (1.0 + i)) for i, c in enumerate(CENTRES)])


def solver(**options: Any) -> Any:
    return ps.adapters.from_scipy(three_bowls, x0=np.full(3, 0.2), **options)


def run(s: Any, **options: Any) -> ps.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        return ps.surf_simplex(s, 15, iterations=8, early_stopping=False, **options)


# ------------------------------------------------------------------ the memory


def test_only_a_solve_that_returned_its_start_is_remembered() -> None:
    fixed = FixedPoints(enabled=True)
    x = np.array([0.5, 0.25])
    fixed.remember(0.5, x, ps.Solution([1.0, 2.0], state=x + 1e-12))  # moved: not kept
    assert fixed.recall(0.5, x) is None
    fixed.remember(0.5, x, ps.Solution([1.0, 2.0], state=x.copy(), info={"steps": 3}))
    found = fixed.recall(0.5, x)
    assert found is not None and found.info == {
        "steps": 0,
        "fixed_point": True,
        "objective_calls": 0,
        "nfev": 0,
    }
    assert fixed.recall(np.float64(0.5), x.copy()) is not None  # by value
    assert fixed.recall(0.5, x + 1e-12) is None
    assert fixed.recall(0.5000001, x) is None
    assert fixed.recall(0.5, None) is None
    fixed.forget()
    assert fixed.recall(0.5, x) is None
    off = FixedPoints(enabled=False)
    off.remember(0.5, x, ps.Solution([1.0, 2.0], state=x.copy()))
    assert len(off) == 0


def test_the_memory_is_bounded_and_saved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_fixed_points, "FIXED_POINTS", 2)
    fixed = FixedPoints(enabled=True)
    w = [np.array([0.2, 0.8, 0.0]), np.array([0.5, 0.5, 0.0]), np.array([0.0, 0.5, 0.5])]
    for i, weight in enumerate(w):
        x = np.full(2, float(i))
        fixed.remember(weight, x, ps.Solution([i, -i, 0.5], state=x.copy(), info={"n": i}))
    assert len(fixed) == 2 and fixed.recall(w[0], np.zeros(2)) is None
    parts = fixed.to_parts()
    assert parts is not None
    back = FixedPoints(enabled=True)
    back.load_parts(*parts)
    found = back.recall(w[2], np.full(2, 2.0))
    assert found is not None and found.info["n"] == 2
    np.testing.assert_array_equal(found.objectives, [2.0, -2.0, 0.5])
    assert FixedPoints(enabled=True).to_parts() is None


def test_only_deterministic_solvers_are_reused() -> None:
    assert reuses_fixed_points(solver())
    assert not reuses_fixed_points(lambda w, s: ps.Solution([w, 1 - w]))


# ------------------------------------------------------------------ runs


@pytest.mark.parametrize("kind", ["linear", "asf"])
def test_a_run_finds_the_same_points_for_fewer_evaluations(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same weights and points, round by round, to the last bit (with "asf" the ideal
    point moves between rounds, and the remembered solves are forgotten then)."""
    reusing = run(solver(scalarization=kind))
    monkeypatch.setattr(ScipySolver, "deterministic", False)
    solving = run(solver(scalarization=kind))
    for a, b in zip(reusing.history, solving.history, strict=True):
        np.testing.assert_array_equal(a.weights, b.weights)
        np.testing.assert_array_equal(a.points, b.points)
    assert reusing.n_evaluations is not None and solving.n_evaluations is not None
    assert reusing.n_evaluations < solving.n_evaluations
    assert reusing.n_solves == solving.n_solves


def test_worker_processes_give_the_same_result() -> None:
    local = run(solver())
    pooled = run(solver(), executor=ps.ProcessExecutor(2))
    assert_same_result(local, pooled)


def test_a_resumed_run_counts_what_the_uninterrupted_one_counts(tmp_path: Path) -> None:
    whole = run(solver())
    folder = tmp_path / "run"
    with pytest.raises(Interrupt):
        run(solver(), checkpoint=folder, checkpoint_period=0, callback=interrupt_after(4))
    resumed = run(solver(), checkpoint=folder, resume=True)
    assert_same_result(resumed, whole)
