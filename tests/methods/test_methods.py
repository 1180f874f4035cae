"""One contract for every method: the shipped suite (:mod:`paretosurf.testing`) over every
method of the registry (:data:`paretosurf.methods.METHODS`), then what only some keep.

The suite runs each method on tiny problems with inexact, history-dependent K-step solvers:
budget counts, result shape and consistency, callback stop, bad input, kill-and-resume equal
to an uninterrupted run, resuming finished runs, refusing other settings, run folders that
never lose data, save and load, and a process executor equal to the local one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.methods import METHODS as REGISTRY
from paretosurf.methods import method_names
from paretosurf.storage._files import CheckpointError
from paretosurf.storage._run_folder import RunFolder
from paretosurf.testing import (
    Candidate,
    GearKStep,
    Interrupt,
    MethodContract,
    assert_same_result,
    interrupt_after,
)

N = 6
ROUNDS = 5
K = GearKStep().steps


class TestEveryMethod(MethodContract):
    """The shipped contract, over all the registry's methods."""

    @pytest.fixture(params=method_names())
    def method(self, request: pytest.FixtureRequest) -> Candidate:
        return Candidate.from_registry(request.param)


Runner = Callable[..., ps.Result]


def _runner(name: str) -> Runner:
    info = REGISTRY[name]
    seed = {"seed": 4} if info.takes("seed") else {}
    extra = {"calls_per_solve": 2} if info.takes("calls_per_solve") else {}
    return lambda s, n, **kw: info.entry(s, n, **info.budget(ROUNDS, n + 1), **seed, **extra, **kw)


#: name -> run(solver, n_segments, **loop keywords), for the methods of two objectives
METHODS: dict[str, Runner] = {name: _runner(name) for name in method_names(simplex=False)}
#: Solver calls of a full run of each method (OLS: the budget caps it).
CALLS = {
    "surf": ROUNDS * (N + 1),
    "uniform": ROUNDS * (N + 1),
    "random": ROUNDS * (N + 1),
    "umod": ROUNDS * (N + 1),
    "soup": 2 * ROUNDS,
}

every_method = pytest.mark.parametrize("name", list(METHODS))
same_result = assert_same_result


@every_method
def test_a_full_run_makes_the_methods_own_number_of_calls(name: str) -> None:
    solver = GearKStep()
    res = METHODS[name](solver, N)
    assert res.n_solves == solver.calls and res.n_steps == K * solver.calls
    assert solver.calls == CALLS.get(name, solver.calls) <= ROUNDS * (N + 1)
    assert res.settings.get("n_segments") == N and (res.cdf is not None) == (name == "surf")


@every_method
@pytest.mark.parametrize(("n", "error"), [(0, ValueError), (2.5, TypeError), (True, TypeError)])
def test_bad_n_segments_is_refused(name: str, n: Any, error: type) -> None:
    with pytest.raises(error, match="n_segments"):
        METHODS[name](GearKStep(), n)


@every_method
def test_resuming_as_another_method_is_refused(name: str, tmp_path: Path) -> None:
    METHODS[name](GearKStep(), N, checkpoint=tmp_path, callback=lambda r: True)
    other = "uniform" if name == "surf" else "surf"
    with pytest.raises(ValueError, match=r"holds a .* run; cannot resume it as"):
        METHODS[other](GearKStep(), N, checkpoint=tmp_path, resume=True)
    with pytest.raises(ValueError, match=f"n_segments: {N} in the checkpoint, {N + 1} now"):
        METHODS[name](GearKStep(), N + 1, checkpoint=tmp_path, resume=True)


@every_method
def test_checkpoint_writes_a_constant_amount_per_round(name: str, tmp_path: Path) -> None:
    """Each round appends one record and rewrites one state file, neither growing with the
    round number, so the bytes a run writes grow linearly with its rounds (SURF's CDF knots
    accumulate; records store the estimate instead). UMOD's data set is every round's points
    by design, so its state grows by one round of points per round."""
    history = tmp_path / "history.jsonl"
    sizes: list[tuple[int, int]] = []

    def measure(record: ps.IterationRecord) -> None:
        state = tmp_path / ("state.0", "state.1")[record.iteration % 2]  # taken in turn
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
    assert "alpha: 'auto' in the checkpoint, 0.5 now" in message  # the default, recorded


def test_resume_continues_to_more_iterations(tmp_path: Path) -> None:
    full = ps.surf(GearKStep(), N, iterations=6)
    ps.surf(GearKStep(), N, iterations=3, checkpoint=tmp_path)
    longer = ps.surf(GearKStep(), N, iterations=6, checkpoint=tmp_path, resume=True)
    same_result(longer, full)


def test_a_damaged_state_file_falls_back_to_the_other_and_two_are_refused(tmp_path: Path) -> None:
    full = ps.surf(GearKStep(), N, iterations=5)
    with pytest.raises(Interrupt):  # no final checkpoint
        ps.surf(
            GearKStep(),
            N,
            iterations=5,
            checkpoint=tmp_path,
            checkpoint_period=0,
            callback=interrupt_after(3),
        )
    newest = tmp_path / "state.0"  # 3 checkpoints: 0, 1, then 0 again
    data = newest.read_bytes()
    newest.write_bytes(data[: len(data) // 2])  # damaged on the disk
    with pytest.warns(UserWarning, match="state.0 is damaged"):
        assert RunFolder(tmp_path).n_rounds() == 2
    with pytest.warns(UserWarning, match="damaged"):
        resumed = ps.surf(GearKStep(), N, iterations=5, checkpoint=tmp_path, resume=True)
    same_result(resumed, full)  # round 3 solved again, from round 2
    for name in ("state.0", "state.1"):
        path = tmp_path / name
        data = bytearray(path.read_bytes())
        data[len(data) // 3] ^= 0xFF  # a flipped byte
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
    history.write_text("\n".join(lines) + "\n" + lines[-1][:15])  # a torn extra line
    resumed = ps.surf(GearKStep(), N, iterations=5, checkpoint=tmp_path, resume=True)
    same_result(resumed, full)
    assert len(history.read_text().splitlines()) == 1 + 5  # the header, 5 rounds
