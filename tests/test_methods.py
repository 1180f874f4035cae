"""One contract for every method: SURF and the five baselines run through the same driver.

Each test runs all six methods on the gear toy with an inexact, history-dependent K-step solver
(:class:`conftest.GearKStep`): budget counts, result shape and consistency, callback stop, bad
input, kill-and-resume equal to an uninterrupted run, resuming finished runs, refusing other
settings, run folders that never lose data, and a process executor equal to the local one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from conftest import FailingSolver, GearKStep, Interrupt, interrupt_after
from paretosurf.baselines import ols, soup, umod, uniform, uniform_random
from paretosurf.checkpoint import CheckpointError
from paretosurf.run_folder import RunFolder

N = 6
ROUNDS = 5
K = GearKStep().steps

Runner = Callable[..., ps.SurfResult]

#: name -> run(solver, n_segments, **loop keywords)
METHODS: dict[str, Runner] = {
    "surf": lambda s, n, **kw: ps.surf(s, n, iterations=ROUNDS, **kw),
    "uniform": lambda s, n, **kw: uniform(s, n, iterations=ROUNDS, **kw),
    "random": lambda s, n, **kw: uniform_random(s, n, iterations=ROUNDS, seed=4, **kw),
    "ols": lambda s, n, **kw: ols(s, n, calls_per_solve=2, max_solves=ROUNDS * (n + 1), **kw),
    "umod": lambda s, n, **kw: umod(s, n, iterations=ROUNDS, **kw),
    "soup": lambda s, n, **kw: soup(s, n, iterations=ROUNDS, **kw),
}
#: Solver calls of a full run of each method.
CALLS = {"surf": ROUNDS * (N + 1), "uniform": ROUNDS * (N + 1), "random": ROUNDS * (N + 1),
         "umod": ROUNDS * (N + 1), "soup": 2 * ROUNDS}

every_method = pytest.mark.parametrize("name", list(METHODS))


def same_result(a: ps.SurfResult, b: ps.SurfResult) -> None:
    """Every array and count of two results is identical (to the last bit)."""
    np.testing.assert_array_equal(a.weights, b.weights)
    np.testing.assert_array_equal(a.points, b.points)
    assert a.states == b.states
    assert (a.n_solves, a.n_steps, a.converged, a.method) == (
        b.n_solves, b.n_steps, b.converged, b.method)
    assert len(a.history) == len(b.history)
    for ra, rb in zip(a.history, b.history, strict=True):
        np.testing.assert_array_equal(ra.weights, rb.weights)
        np.testing.assert_array_equal(ra.points, rb.points)
        assert (ra.cv, ra.n_solves, ra.n_steps) == (rb.cv, rb.n_solves, rb.n_steps)
        assert ra.cdf == rb.cdf
    assert a.cdf == b.cdf


@every_method
def test_budget_counts_every_solver_call(name: str) -> None:
    solver = GearKStep()
    res = METHODS[name](solver, N)
    assert res.n_solves == solver.calls and res.n_steps == K * solver.calls
    if name in CALLS:
        assert solver.calls == CALLS[name]
    else:  # OLS: the budget caps it
        assert solver.calls <= ROUNDS * (N + 1)
    counts = [r.n_solves for r in res.history]
    assert counts == sorted(counts) and counts[-1] == res.n_solves
    assert [r.iteration for r in res.history] == list(range(len(res.history)))


@every_method
def test_result_is_ordered_and_each_state_gives_its_point(name: str) -> None:
    solver = GearKStep()
    res = METHODS[name](solver, N)
    w, pts = res.weights, res.points
    assert w[0] == 0.0 and w[-1] == 1.0 and np.all(np.diff(w) > 0)
    assert pts.shape == (len(w), 2) and len(res.states) == len(w) == res.n_segments + 1
    # independent check: the objectives of each returned state are the returned point
    np.testing.assert_allclose(np.stack([solver.evaluate(s) for s in res.states]), pts,
                               rtol=0, atol=1e-15)
    np.testing.assert_array_equal(res.history[-1].points, pts)
    assert res.method == name and res.settings["n_segments"] == N
    assert (res.cdf is not None) == (name == "surf")
    assert res.stop_reason in ("iterations", "method")


@every_method
def test_callback_returning_true_stops_after_that_round(name: str) -> None:
    seen: list[int] = []

    def stop_second(record: ps.IterationRecord) -> bool:
        seen.append(record.iteration)
        return record.iteration == 1

    res = METHODS[name](GearKStep(), N, callback=stop_second)
    assert seen == [0, 1] and len(res.history) == 2 and res.stop_reason == "callback"


@every_method
@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"callback": 3}, TypeError, "callback"),
    ({"resume": True}, ValueError, "checkpoint"),
    ({"overwrite": True}, ValueError, "checkpoint"),
    ({"executor": object()}, TypeError, "executor"),
    ({"init_states": [None] * 3}, ValueError, "init_states"),
])
def test_bad_loop_keywords_are_refused(name: str, kwargs: dict[str, Any], error: type,
                                       match: str) -> None:
    solver = GearKStep()
    with pytest.raises(error, match=match):
        METHODS[name](solver, N, **kwargs)
    assert solver.calls == 0


@every_method
@pytest.mark.parametrize(("n", "error"), [(0, ValueError), (2.5, TypeError), (True, TypeError)])
def test_bad_n_segments_is_refused(name: str, n: Any, error: type) -> None:
    with pytest.raises(error, match="n_segments"):
        METHODS[name](GearKStep(), n)


@every_method
def test_killed_run_resumes_to_the_uninterrupted_result(name: str, tmp_path: Path) -> None:
    full = METHODS[name](GearKStep(), N)
    killed = GearKStep()
    with pytest.raises(Interrupt):
        METHODS[name](killed, N, checkpoint=tmp_path, callback=interrupt_after(2),
                      checkpoint_period=0)
    resumed_solver = GearKStep()
    resumed = METHODS[name](resumed_solver, N, checkpoint=tmp_path, resume=True)
    same_result(resumed, full)
    assert killed.calls + resumed_solver.calls == full.n_solves  # no round solved twice
    same_result(ps.SurfResult.load(tmp_path), full)             # the folder holds the result


@every_method
def test_resuming_a_finished_run_solves_nothing(name: str, tmp_path: Path) -> None:
    done = METHODS[name](GearKStep(), N, checkpoint=tmp_path)
    again = METHODS[name](FailingSolver(), N, checkpoint=tmp_path, resume=True)
    same_result(again, done)


@every_method
def test_resuming_as_another_method_is_refused(name: str, tmp_path: Path) -> None:
    METHODS[name](GearKStep(), N, checkpoint=tmp_path, callback=lambda r: True)
    other = "uniform" if name == "surf" else "surf"
    with pytest.raises(ValueError, match=r"holds a .* run; cannot resume it as"):
        METHODS[other](GearKStep(), N, checkpoint=tmp_path, resume=True)
    with pytest.raises(ValueError, match=f"n_segments: {N} in the checkpoint, {N + 1} now"):
        METHODS[name](GearKStep(), N + 1, checkpoint=tmp_path, resume=True)


@every_method
def test_a_folder_holding_a_run_is_never_overwritten_by_accident(name: str,
                                                                 tmp_path: Path) -> None:
    first = METHODS[name](GearKStep(), N, checkpoint=tmp_path)
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match=str(tmp_path)):
        METHODS[name](GearKStep(), N, checkpoint=tmp_path)
    same_result(ps.SurfResult.load(tmp_path), first)             # untouched
    short = METHODS[name](GearKStep(), N, checkpoint=tmp_path, overwrite=True,
                          callback=lambda r: r.iteration == 0)
    assert (tmp_path / "notes.txt").read_text() == "mine"         # not a file of the run
    assert len(short.history) == 1
    same_result(ps.SurfResult.load(tmp_path), short)
    assert RunFolder(tmp_path).n_rounds() == 1


@every_method
def test_process_executor_gives_the_local_result(name: str) -> None:
    local = METHODS[name](GearKStep(), N)
    spread = METHODS[name](GearKStep(), N, executor=ps.ProcessExecutor(2))
    same_result(spread, local)


@every_method
def test_save_and_load_round_trip(name: str, tmp_path: Path) -> None:
    res = METHODS[name](GearKStep(), N)
    json_path, _ = res.save(tmp_path / "run")
    meta = json.loads(json_path.read_text())                      # strict JSON, no NaN
    assert meta["method"] == name and meta["settings"] == res.settings
    same_result(ps.SurfResult.load(tmp_path / "run"), res)


@every_method
def test_checkpoint_writes_a_constant_amount_per_round(name: str, tmp_path: Path) -> None:
    """Each round appends one record and rewrites one state file, neither growing with the
    round number, so the bytes a run writes grow linearly with its rounds (SURF's CDF knots
    accumulate; records store the estimate instead). UMOD's data set is every round's points
    by design, so its state grows by one round of points per round."""
    history = tmp_path / "history.jsonl"
    sizes: list[tuple[int, int]] = []

    def measure(record: ps.IterationRecord) -> None:
        state = tmp_path / ("state.0", "state.1")[record.iteration % 2]   # taken in turn
        lines = history.read_text().splitlines()
        sizes.append((len(lines[-1]), state.stat().st_size))

    METHODS[name](GearKStep(), N, checkpoint=tmp_path, callback=measure, checkpoint_period=0)
    assert sorted(p.name for p in tmp_path.glob("state*")) == ["state.0", "state.1"]
    lines, states = np.array(sizes).T
    assert lines.max() < 1.5 * lines.min() + 200
    growth = (N + 1) * 2 * 8 * len(sizes) if name == "umod" else 0
    assert states.max() < 1.5 * states.min() + 600 + growth


def test_resume_with_a_different_warm_start_rule_is_refused(tmp_path: Path) -> None:
    ps.surf(GearKStep(), N, iterations=2, warm_start="nearest", checkpoint=tmp_path)
    with pytest.raises(ValueError) as info:
        ps.surf(GearKStep(), N, iterations=4, alpha=0.5, checkpoint=tmp_path, resume=True)
    message = str(info.value)
    assert "warm_start: 'nearest' in the checkpoint, 'slot' now" in message
    assert "alpha: 0.3 in the checkpoint, 0.5 now" in message


def test_resume_continues_to_more_iterations(tmp_path: Path) -> None:
    full = ps.surf(GearKStep(), N, iterations=6)
    ps.surf(GearKStep(), N, iterations=3, checkpoint=tmp_path)
    longer = ps.surf(GearKStep(), N, iterations=6, checkpoint=tmp_path, resume=True)
    same_result(longer, full)


def test_a_damaged_state_file_falls_back_to_the_other_and_two_are_refused(
        tmp_path: Path) -> None:
    full = ps.surf(GearKStep(), N, iterations=5)
    with pytest.raises(Interrupt):                      # no final checkpoint
        ps.surf(GearKStep(), N, iterations=5, checkpoint=tmp_path, checkpoint_period=0,
                callback=interrupt_after(3))
    newest = tmp_path / "state.0"                       # 3 checkpoints: 0, 1, then 0 again
    data = newest.read_bytes()
    newest.write_bytes(data[: len(data) // 2])          # damaged on the disk
    with pytest.warns(UserWarning, match="state.0 is damaged"):
        assert RunFolder(tmp_path).n_rounds() == 2
    with pytest.warns(UserWarning, match="damaged"):
        resumed = ps.surf(GearKStep(), N, iterations=5, checkpoint=tmp_path, resume=True)
    same_result(resumed, full)                          # round 3 solved again, from round 2
    for name in ("state.0", "state.1"):
        path = tmp_path / name
        data = bytearray(path.read_bytes())
        data[len(data) // 3] ^= 0xFF                    # a flipped byte
        path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="no readable state"):
        ps.surf(GearKStep(), N, iterations=6, checkpoint=tmp_path, resume=True)


def test_a_round_appended_after_the_last_save_is_dropped_on_resume(tmp_path: Path) -> None:
    """A run killed between appending round t's record and saving its state resumes from the
    state before and solves round t again, once."""
    full = ps.surf(GearKStep(), N, iterations=5)
    ps.surf(GearKStep(), N, iterations=3, checkpoint=tmp_path)
    history = tmp_path / "history.jsonl"
    lines = history.read_text().splitlines()
    history.write_text("\n".join(lines) + "\n" + lines[-1][:15])   # a torn extra line
    resumed = ps.surf(GearKStep(), N, iterations=5, checkpoint=tmp_path, resume=True)
    same_result(resumed, full)
    assert len(history.read_text().splitlines()) == 1 + 5          # the header, 5 rounds
