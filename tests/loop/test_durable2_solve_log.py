"""The solve log is written as the solves return: every attempt of every round a run solved
is in ``solves.jsonl``, with its run id and round, whether or not a checkpoint saved the
round and however the process ended (durable-2)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import faults_helpers as fh
import paretosurf as ps
from paretosurf.loop._checkpointing import Checkpointer
from paretosurf.storage import _run_folder as run_folder
from paretosurf.storage._run_folder import RunFolder

TESTS = Path(__file__).resolve().parents[1]
N = 6
ROUNDS = 12

#: A run of ``faults_helpers.Steps`` (a solver whose points depend on every warm start)
#: checkpointed every ``every`` rounds, that counts its solver's calls and SIGKILLs itself
#: once round ``kill_at`` (0-based) is over, having written the calls made so far.
KILLED_RUN = """\
import os, signal, sys
sys.path.insert(0, {tests!r})
import warnings
warnings.simplefilter("ignore")
import paretosurf as ps
import faults_helpers as fh
from paretosurf.loop._checkpointing import Checkpointer

folder, count, every, kill_at = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
calls = [0]
solve = fh.Steps.solve

def counted(self, w, state):
    calls[0] += 1
    return solve(self, w, state)

fh.Steps.solve = counted  # (the class keeps its name: a resume runs the same solver)

def callback(record):
    if record.iteration == kill_at:
        with open(count, "w") as out:
            out.write(str(calls[0]))
        os.kill(os.getpid(), signal.SIGKILL)

ps.surf(fh.Steps(), {n}, iterations={rounds}, alpha=0.3, checkpoint=folder,
        checkpoint_period=Checkpointer(every=every), callback=callback)
"""


@pytest.fixture
def counted_steps(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the calls of ``faults_helpers.Steps.solve`` in this process."""
    calls = [0]
    solve = fh.Steps.solve

    def counted(self: fh.Steps, w: float, state: Any) -> ps.Solution:
        calls[0] += 1
        return solve(self, w, state)

    monkeypatch.setattr(fh.Steps, "solve", counted)
    return calls


def steps_run(folder: Path | None, **options: Any) -> ps.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ps.surf(fh.Steps(), N, iterations=ROUNDS, alpha=0.3, checkpoint=folder, **options)


def read_log(folder: Path) -> list[dict[str, Any]]:
    """Every line of ``solves.jsonl`` after its header, each checked to be whole JSON."""
    lines = (folder / "solves.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["paretosurf"] == "solves"
    return [json.loads(line) for line in lines[1:]]


@pytest.mark.parametrize(
    ("every", "kill_at", "saved"),
    [(50, 5, 0), (4, 5, 4)],
    ids=["before-any-checkpoint", "two-rounds-after-a-checkpoint"],
)
def test_a_killed_run_has_every_attempt_of_every_round_it_solved(
    tmp_path: Path, counted_steps: list[int], every: int, kill_at: int, saved: int
) -> None:
    folder, count = tmp_path / "run", tmp_path / "calls"
    script = tmp_path / "killed_run.py"
    script.write_text(KILLED_RUN.format(tests=str(TESTS), n=N, rounds=ROUNDS))
    proc = subprocess.run(
        [sys.executable, str(script), str(folder), str(count), str(every), str(kill_at)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"},
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-3000:]
    attempts = int(count.read_text())
    rf = RunFolder(folder)
    assert rf.n_rounds() == saved  # the rounds after the last checkpoint were never saved
    log = read_log(folder)
    run_id = rf.run_id
    assert len(log) == attempts  # every attempt made, none lost
    assert {e["round"] for e in log} == set(range(kill_at + 1))
    assert all(e["run_id"] == run_id for e in log)
    for r in range(kill_at + 1):  # each round: a solve per slot (N + 1 of them), at least
        assert len({e["slot"] for e in log if e["round"] == r and not e.get("probe")}) == N + 1

    # the resumed run adds its own attempts; it redoes the rounds the kill lost, logged again
    # under the same run id and round, later
    res = steps_run(folder, resume=True, checkpoint_period=Checkpointer(every=every))
    resumed = counted_steps[0]
    truth = steps_run(None)
    np.testing.assert_array_equal(res.points, truth.points)
    assert res.n_solves == truth.n_solves
    after = read_log(folder)
    assert after[:attempts] == log  # the killed run's lines kept as they were
    assert len(after) == attempts + resumed
    assert all(e["run_id"] == run_id for e in after)
    redone = [e for e in after[attempts:] if e["round"] <= kill_at]
    assert {e["round"] for e in redone} == set(range(saved, kill_at + 1))
    assert min(e["time"] for e in redone) >= max(e["time"] for e in log)


class FlakySteps(fh.Steps):
    """:class:`faults_helpers.Steps` whose calls number ``fail_on`` (0-based) raise."""

    def __init__(self, fail_on: set[int]) -> None:
        super().__init__()
        self.fail_on, self.calls = set(fail_on), 0

    def solve(self, w: float, state: Any) -> ps.Solution:
        call, self.calls = self.calls, self.calls + 1
        if call in self.fail_on:
            raise RuntimeError(f"call {call} failed")
        return super().solve(w, state)


def test_the_log_holds_each_attempt_as_soon_as_its_round_is_solved(tmp_path: Path) -> None:
    """Checkpointed only at the end, the log already holds every attempt after each round
    (retries included); at the end it holds exactly the run's solves and retries."""
    folder = tmp_path / "run"
    solver = FlakySteps(fail_on={3, 14, 15})  # call 14 ends a round; its retry fails too
    seen: list[tuple[int, int, int]] = []

    def callback(record: ps.IterationRecord) -> None:
        log = read_log(folder)
        seen.append((record.iteration, len(log), solver.calls))
        assert {e["round"] for e in log} == set(range(record.iteration + 1))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ps.surf(
            solver,
            N,
            iterations=ROUNDS,
            alpha=0.3,
            checkpoint=folder,
            checkpoint_period=Checkpointer(every=50),
            callback=callback,
            retries=2,
            probes=False,
        )
    assert len(seen) == ROUNDS
    assert all(logged == calls for _, logged, calls in seen), seen
    log = read_log(folder)
    failed = [e for e in log if e["error"] is not None]
    assert [e["error"] for e in failed] == [f"RuntimeError: call {c} failed" for c in (3, 14, 15)]
    assert len(log) == res.n_solves + len(failed) == solver.calls
    run_id = RunFolder(folder).run_id
    assert all(e["run_id"] == run_id and isinstance(e["round"], int) for e in log)
    twice = (failed[1]["round"], failed[1]["slot"])
    assert [e["attempt"] for e in log if (e["round"], e["slot"]) == twice] == [1, 2, 3]


def test_an_interrupted_run_has_logged_every_attempt(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    calls = []

    def solver(w: float, state: Any) -> ps.Solution:
        calls.append(w)
        return ps.Solution([(1 - w) ** 2, w * w])

    def stop(record: ps.IterationRecord) -> None:
        if record.iteration == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), contextlib.redirect_stderr(open(os.devnull, "w")):
        ps.surf(
            solver,
            N,
            iterations=ROUNDS,
            checkpoint=folder,
            checkpoint_period=Checkpointer(every=50),
            callback=stop,
        )
    assert len(read_log(folder)) == len(calls)


def fsynced_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the names of the files :func:`os.fsync` flushes from the run folder module."""
    names: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        with contextlib.suppress(OSError):
            names.append(Path(os.readlink(f"/proc/self/fd/{fd}")).name)
        real(fd)

    monkeypatch.setattr(run_folder.os, "fsync", fsync)
    return names


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_the_log_is_flushed_to_the_disk_with_each_durable_checkpoint_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Appended as the solves return without a sync each; a checkpoint of rounds long
    enough to sync (here: every one) syncs the log too, once."""
    names = fsynced_files(monkeypatch)
    checkpoints = []
    save = Checkpointer.save

    def counted(self: Checkpointer, *args: Any, **kwargs: Any) -> None:
        checkpoints.append(names.count("solves.jsonl"))
        save(self, *args, **kwargs)

    monkeypatch.setattr(Checkpointer, "save", counted)
    steps_run(
        tmp_path / "run", checkpoint_period=Checkpointer(every=3, durable_seconds=0.0), probes=False
    )
    # rounds 3, 6, 9 and 12, then the final checkpoint, which has no new line to sync
    assert checkpoints == [0, 1, 2, 3, 4]
    assert names.count("solves.jsonl") == 4


def test_a_solve_log_line_leads_with_its_run_id() -> None:
    line = {
        "round": 3,
        "call": 0,
        "attempt": 1,
        "slot": 2,
        "weight": 0.25,
        "objectives": [0.5, 0.25],
        "seconds": 0.001,
        "host": "h",
        "pid": 7,
        "error": None,
        "killed": False,
        "time": 1.5,
    }
    fast = run_folder._solve_line(line, "abc")
    slow = run_folder._solve_line({**line, "objectives": [float("nan"), 1.0]}, "abc")
    assert json.loads(fast) == {"run_id": "abc", **line}
    assert list(json.loads(fast))[:2] == ["run_id", "round"]
    assert json.loads(slow)["run_id"] == "abc" and json.loads(slow)["objectives"][0] == "nan"
