"""Executors: the same outcomes and results everywhere, one process pool per run, killed
workers retried, solver errors reported, Ctrl-C honoured, bad arguments refused.

The Ray tests share one local 2-CPU Ray instance per test process (a module-scoped fixture)
and skip when Ray is not installed.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.executors import SolveOutcome, SolveTask, execute
from paretosurf.testing import DiskGearKStep, GearKStep, assert_same_result, gear_curve
from support import CountingSolver

TESTS = Path(__file__).resolve().parents[1]
#: What a Ray worker or a child process imports from: this folder (this module's solvers) and
#: the tests' root (``support``, which it imports).
IMPORT_PATH = os.pathsep.join([str(Path(__file__).resolve().parent), str(TESTS)])
N = 6


# ---------------------------------------------------------------------------- test doubles
class BatchGearKStep(GearKStep):
    """:class:`GearKStep` with a ``solve_many`` (solves one after another)."""

    def __init__(self) -> None:
        super().__init__()
        self.batches = 0

    def solve_many(self, weights: Sequence[float], states: Sequence[Any]) -> list[ps.Solution]:
        self.batches += 1
        return [self.solve(float(w), s) for w, s in zip(weights, states, strict=True)]


class KillOnce(GearKStep):
    """:class:`GearKStep` whose first solve in a worker process SIGKILLs that process; the
    marker file records that it happened (solves in the test's own process never kill)."""

    def __init__(self, marker: Path) -> None:
        super().__init__()
        self.marker = str(marker)
        self.home = os.getpid()

    def solve(self, w: float, state: float | None) -> ps.Solution:
        if os.getpid() != self.home and not os.path.exists(self.marker):
            Path(self.marker).touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return super().solve(w, state)


class KillAt(GearKStep):
    """Kills its worker process whenever it solves at ``weight``; counts those kills in files
    under ``folder``."""

    def __init__(self, weight: float, folder: Path) -> None:
        super().__init__()
        self.weight, self.folder, self.home = weight, str(folder), os.getpid()

    def solve(self, w: float, state: float | None) -> ps.Solution:
        if w == self.weight and os.getpid() != self.home:
            Path(self.folder, f"kill-{os.getpid()}").touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return super().solve(w, state)


class RaiseAt(GearKStep):
    """Raises ``ValueError`` at ``weight``."""

    def __init__(self, weight: float) -> None:
        super().__init__()
        self.weight = weight

    def solve(self, w: float, state: float | None) -> ps.Solution:
        if w == self.weight:
            raise ValueError(f"diverged at {w}")
        return super().solve(w, state)


class WaitAt(GearKStep):
    """At ``weight``, waits until ``folder`` holds ``marks`` files named ``mark-*`` (left by
    the test), then leaves ``finished`` there and solves. ``limit`` seconds is a safety net
    for a broken executor, not a measurement: a test that reaches it fails on what it
    checks."""

    def __init__(self, weight: float, folder: Path, marks: int, limit: float = 300.0) -> None:
        super().__init__()
        Path(folder).mkdir(parents=True, exist_ok=True)
        self.weight, self.folder, self.marks, self.limit = weight, str(folder), marks, limit

    def solve(self, w: float, state: float | None) -> ps.Solution:
        if w == self.weight:
            deadline = time.monotonic() + self.limit
            while time.monotonic() < deadline and self.marks > sum(
                name.startswith("mark-") for name in os.listdir(self.folder)
            ):
                time.sleep(0.005)
            Path(self.folder, "finished").touch()
        return super().solve(w, state)


class PidRecorder:
    """Wraps an executor and records the worker pids of each round's outcomes."""

    def __init__(self, executor: Any) -> None:
        self.executor = executor
        self.rounds: list[set[int]] = []

    def start(self) -> bool:
        return bool(self.executor.start())

    def close(self) -> None:
        self.executor.close()

    def solve(
        self, solver: Any, tasks: Sequence[SolveTask], on_done: Any = None
    ) -> list[SolveOutcome]:
        out = self.executor.solve(solver, tasks, on_done)
        self.rounds.append({o.pid for o in out})
        return out


def tasks_for(n: int = 7) -> list[SolveTask]:
    """A round with warm starts (every slot starts somewhere else)."""
    return [SolveTask(i, i / (n - 1), 0.1 * i if i % 2 else None) for i in range(n)]


def same_outcomes(a: list[SolveOutcome], b: list[SolveOutcome]) -> None:
    assert [(o.slot, o.weight, o.ok) for o in a] == [(o.slot, o.weight, o.ok) for o in b]
    for x, y in zip(a, b, strict=True):
        assert x.solution is not None and y.solution is not None
        assert x.solution.objectives.tobytes() == y.solution.objectives.tobytes()
        assert float(x.solution.state) == float(y.solution.state)
        assert x.solution.info == y.solution.info


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def surf(solver: Any, executor: Any = None, **kwargs: Any) -> ps.Result:
    return ps.surf(solver, N, iterations=4, executor=executor, **kwargs)


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    """One local 2-CPU Ray instance for this module's Ray tests (workers import from tests/)."""
    ray = pytest.importorskip("ray")
    import logging

    ray.init(
        num_cpus=2,
        include_dashboard=False,
        logging_level=logging.ERROR,
        runtime_env={"env_vars": {"PYTHONPATH": IMPORT_PATH}},
    )
    yield ray
    ray.shutdown()


def executors(ray_instance: Any = None) -> list[Any]:
    out = [ps.LocalExecutor(), ps.ProcessExecutor(2)]
    if ray_instance is not None:
        out.append(ps.RayExecutor(num_cpus=1))
    return out


# ---------------------------------------------------------------------------- same results
@pytest.mark.parametrize("make", [GearKStep, BatchGearKStep], ids=["solve", "solve_many"])
def test_process_executor_gives_the_local_outcomes_bit_for_bit(make: Any) -> None:
    local = execute(make(), tasks_for())
    with ps.ProcessExecutor(2) as ex:
        done: list[int] = []
        out = ex.solve(make(), tasks_for(), lambda o: done.append(o.slot))
    same_outcomes(out, local)
    assert sorted(done) == list(range(7))
    assert {o.pid for o in out} - {os.getpid()} == {o.pid for o in out}


@pytest.mark.parametrize("make", [GearKStep, BatchGearKStep], ids=["solve", "solve_many"])
def test_ray_executor_gives_the_local_outcomes_bit_for_bit(make: Any, ray_instance: Any) -> None:
    local = execute(make(), tasks_for())
    ex = ps.RayExecutor(num_cpus=1)
    done: list[int] = []
    out = ex.solve(make(), tasks_for(), lambda o: done.append(o.slot))
    same_outcomes(out, local)
    assert sorted(done) == list(range(7))
    assert all(o.solution is not None and o.host for o in out)


@pytest.mark.parametrize("make", [GearKStep, CountingSolver], ids=["solve", "solve_many"])
def test_every_executor_gives_the_same_surf_result(make: Any, ray_instance: Any) -> None:
    results = [surf(make(), ex) for ex in executors(ray_instance)]
    for res in results[1:]:
        assert_same_result(res, results[0])


def test_solve_many_runs_in_one_chunk_per_worker() -> None:
    solver = CountingSolver()
    with ps.ProcessExecutor(2) as ex:
        out = ex.solve(solver, tasks_for(7))
    assert [o.slot for o in out] == list(range(7))
    # 7 tasks in two chunks: slots 0-3 share a worker call, 4-6 another
    assert len({o.seconds for o in out[:4]}) == 1 and len({o.seconds for o in out[4:]}) == 1


def test_a_slow_slot_does_not_hold_back_the_others(tmp_path: Path) -> None:
    order: list[int] = []

    def done(outcome: SolveOutcome) -> None:
        order.append(outcome.slot)
        (tmp_path / f"mark-{outcome.slot}").touch()

    # slot 0 finishes only once the six others have come back, solved beside it
    with ps.ProcessExecutor(2) as ex:
        out = ex.solve(WaitAt(0.0, tmp_path, 6), tasks_for(7), done)
    assert order[-1] == 0 and sorted(order) == list(range(7))
    assert [o.slot for o in out] == list(range(7))  # in task order all the same
    assert out[0].pid not in {o.pid for o in out[1:]}  # the others ran beside it


def test_disk_states_are_written_by_the_workers(tmp_path: Path) -> None:
    local = surf(DiskGearKStep(), checkpoint=tmp_path / "local")
    remote = surf(DiskGearKStep(), ps.ProcessExecutor(2), checkpoint=tmp_path / "pool")
    np.testing.assert_array_equal(remote.points, local.points)
    assert any((tmp_path / "pool").rglob("x.npy"))


def test_ray_workers_read_and_write_disk_states(tmp_path: Path, ray_instance: Any) -> None:
    local = surf(DiskGearKStep(), checkpoint=tmp_path / "local")
    remote = surf(DiskGearKStep(), ps.RayExecutor(num_cpus=1), checkpoint=tmp_path / "ray")
    np.testing.assert_array_equal(remote.points, local.points)
    assert any((tmp_path / "ray").rglob("x.npy"))


# ---------------------------------------------------------------------------- one pool per run
def all_exit(pids: set[int], timeout: float = 30.0) -> bool:
    """Whether every process in ``pids`` has exited within ``timeout`` seconds (a closed
    pool's workers exit at once; the margin is for a loaded machine, not a measurement)."""
    deadline = time.monotonic() + timeout
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_run_keeps_one_pool_and_closes_it() -> None:
    ex = PidRecorder(ps.ProcessExecutor(2))
    surf(GearKStep(), ex)
    pids = set().union(*ex.rounds)
    assert len(ex.rounds) == 4 and 1 <= len(pids) <= 2 and os.getpid() not in pids
    assert all_exit(pids)  # the run closed the pool it started


def test_a_context_manager_keeps_the_workers_across_runs() -> None:
    with ps.ProcessExecutor(2) as pool:
        first, second = PidRecorder(pool), PidRecorder(pool)
        surf(GearKStep(), first)
        pids = set().union(*first.rounds)
        assert all(alive(pid) for pid in pids)  # the run did not close it
        surf(GearKStep(), second)
        assert len(pids | set().union(*second.rounds)) <= 2
    assert all_exit(pids)


# ---------------------------------------------------------------------------- killed workers
def logged_lost_tries(folder: Path) -> None:
    """The run's solve log has the tries a dying worker lost (killed, with the error: the
    one it ran, and with a pool of processes any that ran or returned beside it), each
    followed by that slot's solve in the same round and attempt; every other line is a
    solve."""
    lines = [
        line
        for line in map(json.loads, (folder / "solves.jsonl").read_text().splitlines())
        if "slot" in line
    ]  # (less a header line)
    killed = [i for i, line in enumerate(lines) if line["killed"]]
    # suspects: the tries running when the worker died (the killer, and with a pool of two
    # at most one beside it); tries that had returned but whose results the broken pool
    # lost are logged too, as such, whatever their number
    suspects = [i for i in killed if "result was lost" not in lines[i]["error"]]
    assert 1 <= len(suspects) <= 2
    assert len({lines[i]["round"] for i in killed}) == 1
    for i in killed:
        dead = lines[i]
        assert dead["objectives"] is None and "died" in dead["error"]
        again = [
            line
            for line in lines[i + 1 :]
            if not line["killed"] and (line["round"], line["slot"]) == (dead["round"], dead["slot"])
        ]
        assert again and again[0]["error"] is None and again[0]["attempt"] == dead["attempt"]
    assert all(line["error"] is None for i, line in enumerate(lines) if i not in killed)
    assert len(lines) == 4 * (N + 1) + len(killed)


def test_process_executor_survives_a_killed_worker(tmp_path: Path) -> None:
    marker = tmp_path / "killed"
    clean = surf(GearKStep())
    res = surf(KillOnce(marker), ps.ProcessExecutor(2), checkpoint=tmp_path / "run")
    assert marker.exists()
    assert_same_result(res, clean)
    logged_lost_tries(tmp_path / "run")


def test_results_lost_in_transit_are_not_suspects(monkeypatch: pytest.MonkeyPatch) -> None:
    """A unit whose solves returned before a worker beside it died cannot have killed it:
    when the broken pool loses its result, it runs again beside the others (not alone, as a
    suspect does), and the lost try says what happened."""
    ex = ps.ProcessExecutor(2)
    real = ex._run_batch
    batches: list[int] = []

    def lose_two_results(solver_file, tasks, units, batch, outcomes, on_done):  # type: ignore[no-untyped-def]
        lost, started, returned, timed_out = real(
            solver_file, tasks, units, batch, outcomes, on_done
        )
        batches.append(len(batch))
        if len(batches) == 1:  # as if the pool broke after two units had returned
            lost = batch[1:3]
            started = {u: 1 for u in lost}
            returned = set(lost)
        return lost, started, returned, timed_out

    monkeypatch.setattr(ex, "_run_batch", lose_two_results)
    with ex:
        out = ex.solve(GearKStep(), tasks_for())
    same_outcomes(out, execute(GearKStep(), tasks_for()))
    assert batches == [7, 2]  # the two ran again side by side
    assert [o.slot for o in out if o.lost] == [1, 2]
    for o in out:
        assert all(not t.ok and "result was lost" in (t.error or "") for t in o.lost)


def test_ray_executor_survives_a_killed_worker(tmp_path: Path, ray_instance: Any) -> None:
    marker = tmp_path / "killed"
    clean = surf(GearKStep())
    res = surf(KillOnce(marker), ps.RayExecutor(num_cpus=1), checkpoint=tmp_path / "run")
    assert marker.exists()
    assert_same_result(res, clean)
    logged_lost_tries(tmp_path / "run")


def test_a_task_that_keeps_killing_its_worker_comes_back_killed(tmp_path: Path) -> None:
    local = execute(GearKStep(), tasks_for())
    with ps.ProcessExecutor(2, max_retries=1) as ex:
        out = ex.solve(KillAt(0.5, tmp_path), tasks_for())
        again = ex.solve(GearKStep(), tasks_for())  # and the pool works afterwards
    bad = out[3]
    assert bad.weight == 0.5 and bad.killed and bad.solution is None
    assert "BrokenProcessPool" in (bad.error or "") and "SIGKILL" in (bad.error or "")
    # the first attempt and one retry, and one more if the first death was ambiguous (it
    # ran beside another task): ambiguous deaths are not charged, the suspects rerun alone
    kills = sorted(int(p.name.split("-")[1]) for p in tmp_path.glob("kill-*"))
    assert len(kills) in (2, 3)
    # every try is reported: the lost ones with the pids of the workers that died
    assert all(t.killed and t.solution is None and "run again" in (t.error or "") for t in bad.lost)
    assert sorted([t.pid for t in bad.lost] + [bad.pid]) == kills
    good = [o for o in out if o is not bad]
    assert not any(o.killed for o in good)  # only the culprit is charged
    same_outcomes(good, [o for o in local if o.weight != 0.5])
    same_outcomes(again, local)


def test_the_run_retries_a_killed_outcome(tmp_path: Path) -> None:
    clean = surf(GearKStep())
    res = surf(KillOnce(tmp_path / "killed"), ps.ProcessExecutor(2, max_retries=0), retries=1)
    assert_same_result(res, clean)


def test_ray_reports_a_task_killed_more_than_max_retries(tmp_path: Path, ray_instance: Any) -> None:
    ex = ps.RayExecutor(num_cpus=1, max_retries=1)
    out = ex.solve(KillAt(0.5, tmp_path), tasks_for())
    bad = out[3]
    assert bad.killed and bad.solution is None and "max_retries=1" in (bad.error or "")
    assert len(list(tmp_path.glob("kill-*"))) == 2
    assert len(bad.lost) == 1 and bad.lost[0].killed and "run again" in (bad.lost[0].error or "")
    assert all(o.ok for o in out if o is not bad)


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize("use_ray", [False, True], ids=["processes", "ray"])
def test_a_solver_error_is_an_outcome_and_the_pool_stays(
    use_ray: bool, request: pytest.FixtureRequest
) -> None:
    if use_ray:
        request.getfixturevalue("ray_instance")
    ex = ps.RayExecutor(num_cpus=1) if use_ray else ps.ProcessExecutor(2)
    with ex:
        out = ex.solve(RaiseAt(0.5), tasks_for())
        again = ex.solve(GearKStep(), tasks_for())
    bad = out[3]
    assert not bad.ok and not bad.killed
    assert bad.error == "ValueError: diverged at 0.5"
    assert "Traceback" in (bad.traceback or "") and "in solve" in (bad.traceback or "")
    assert all(o.ok for o in out if o is not bad)
    same_outcomes(again, execute(GearKStep(), tasks_for()))
    if not use_ray:  # the same workers before and after: the pool was not restarted
        assert len({o.pid for o in out} | {o.pid for o in again}) <= 2


def test_a_solver_that_does_not_pickle_is_refused() -> None:
    with ps.ProcessExecutor(2) as ex, pytest.raises(TypeError, match="pickles"):
        ex.solve(ps.solvers.as_solver(lambda w, s: ps.Solution(gear_curve(w))), tasks_for())


def test_ctrl_c_shuts_the_pool_down_at_once(tmp_path: Path) -> None:
    def interrupt(outcome: SolveOutcome) -> None:
        raise KeyboardInterrupt

    ex = ps.ProcessExecutor(2)
    with pytest.raises(KeyboardInterrupt):  # slot 0 waits for marks that never come
        ex.solve(WaitAt(0.0, tmp_path, 100), tasks_for(), interrupt)
    # did not wait for the solve of slot 0: its worker was stopped before it finished
    assert not (tmp_path / "finished").exists()
    assert ex.start() is True  # the old pool is gone; a new one
    same_outcomes(ex.solve(GearKStep(), tasks_for()), execute(GearKStep(), tasks_for()))
    ex.close()


@pytest.mark.parametrize("use_ray", [False, True], ids=["processes", "ray"])
def test_workers_keep_the_solver_until_it_changes(use_ray: bool, request: Any) -> None:
    """Workers keep the solver they unpickled; a solver changed between rounds (its pickle
    differs) reaches them as the new one."""
    if use_ray:
        request.getfixturevalue("ray_instance")
    ex = ps.RayExecutor(num_cpus=1) if use_ray else ps.ProcessExecutor(2)
    solver = GearKStep(steps=3)
    for _ in range(2):
        same_outcomes(ex.solve(solver, tasks_for()), execute(GearKStep(steps=3), tasks_for()))
    solver.steps = 7
    same_outcomes(ex.solve(solver, tasks_for()), execute(GearKStep(steps=7), tasks_for()))
    if not use_ray:  # the solver's file lives in a folder that closing removes
        folder = ex._folder
        assert folder is not None and len(list(Path(folder).glob("*.pkl"))) == 1
        ex.close()
        assert not os.path.exists(folder)
    ex.close()


def test_ctrl_c_cancels_the_ray_tasks(tmp_path: Path, ray_instance: Any) -> None:
    def interrupt(outcome: SolveOutcome) -> None:
        raise KeyboardInterrupt

    ex = ps.RayExecutor(num_cpus=1)
    with pytest.raises(KeyboardInterrupt):  # slot 0 waits for marks that never come
        ex.solve(WaitAt(0.0, tmp_path, 100), tasks_for(), interrupt)
    assert not (tmp_path / "finished").exists()  # did not wait for the solve of slot 0
    same_outcomes(ex.solve(GearKStep(), tasks_for()), execute(GearKStep(), tasks_for()))


def test_ray_executor_uses_a_running_ray_and_leaves_it(ray_instance: Any) -> None:
    ex = ps.RayExecutor(num_cpus=1)
    assert ex.start() is False
    ex.close()
    assert ray_instance.is_initialized()


def test_ray_executor_names_the_extra_when_ray_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=r"pip install 'paretosurf\[ray\]'"):
        ps.RayExecutor().start()


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"max_workers": 0}, ValueError, "max_workers"),
        ({"max_workers": 1.5}, TypeError, "max_workers"),
        ({"max_retries": -1}, ValueError, "max_retries"),
        ({"max_retries": True}, TypeError, "max_retries"),
    ],
)
def test_process_executor_refuses_bad_arguments(
    kwargs: dict[str, Any], error: type, name: str
) -> None:
    with pytest.raises(error, match=name):
        ps.ProcessExecutor(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"address": ""}, ValueError, "address"),
        ({"address": 6379}, ValueError, "address"),
        ({"num_cpus": -1}, ValueError, "num_cpus"),
        ({"num_cpus": "2"}, TypeError, "num_cpus"),
        ({"num_gpus": float("inf")}, ValueError, "num_gpus"),
        ({"max_retries": -1}, ValueError, "max_retries"),
        ({"runtime_env": ["pip"]}, TypeError, "runtime_env"),
    ],
)
def test_ray_executor_refuses_bad_arguments(kwargs: dict[str, Any], error: type, name: str) -> None:
    with pytest.raises(error, match=name):
        ps.RayExecutor(**kwargs)


def test_an_empty_round_needs_no_workers() -> None:
    ex = ps.ProcessExecutor(2)
    assert ex.solve(GearKStep(), []) == [] and ex.start() is True
    ex.close()
    assert ps.RayExecutor().solve(GearKStep(), []) == []


def test_executors_describe_themselves() -> None:
    assert (
        repr(ps.ProcessExecutor(3, max_retries=1, threads_per_worker=2))
        == "ProcessExecutor(max_workers=3, max_retries=1, threads_per_worker=2, solve_timeout=None)"
    )
    assert (
        repr(ps.RayExecutor("auto", num_gpus=0.5))
        == "RayExecutor(address='auto', num_cpus=1, num_gpus=0.5, max_retries=2, "
        "solve_timeout=None)"
    )


@pytest.mark.slow  # starts and stops a Ray instance of its own: 25-30 s
def test_ray_executor_starts_and_stops_its_own_instance() -> None:
    pytest.importorskip("ray")
    import subprocess

    code = (
        "import os, sys, ray, paretosurf as ps; sys.path[:0] = sys.argv[1].split(os.pathsep);"
        "from paretosurf.testing import GearKStep;"
        "ex = ps.RayExecutor();"
        "res = ps.surf(GearKStep(), 4, iterations=2, executor=ex);"
        "print(res.n_solves, ray.is_initialized());"
        "ex = ps.RayExecutor(num_gpus=1000)\n"
        "try: ex.start()\n"
        "except ValueError as exc: print('refused:', exc, ray.is_initialized())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, IMPORT_PATH],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["10", "False"]  # the run started Ray and shut it down
    assert lines[1].startswith("refused: num_gpus=1000 per task") and lines[1].endswith("False")


class ThreadReporter:
    """Reports the thread pools of the process it solves in."""

    def solve(self, weight: float, state: Any) -> ps.Solution:
        from threadpoolctl import threadpool_info

        blas = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
        return ps.Solution(
            [weight, 1 - weight],
            state,
            {"blas": blas, "omp": os.environ.get("OMP_NUM_THREADS"), "pid": os.getpid()},
        )


@pytest.mark.parametrize(
    ("workers", "threads", "expected"),
    [
        (2, "auto", None),  # None: the usable CPUs divided among the workers
        (1, 1, 1),
        (2, 3, 3),
    ],
)
def test_process_workers_hold_their_thread_pools(
    workers: int, threads: Any, expected: int | None
) -> None:
    from paretosurf.executors.base import usable_cpus

    want = max(1, usable_cpus() // workers) if expected is None else expected
    with ps.ProcessExecutor(workers, threads_per_worker=threads) as pool:
        assert pool.threads_per_worker == want
        out = pool.solve(ThreadReporter(), [SolveTask(i, 0.5, None) for i in range(4)])
    infos = [o.solution.info for o in out]
    assert all(info["pid"] != os.getpid() for info in infos)
    assert all(info["omp"] == str(want) for info in infos)
    assert all(info["blas"] and set(info["blas"]) == {want} for info in infos)


def test_process_workers_keep_their_thread_pools_when_told_to(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "7")  # what the workers inherit, left alone
    with ps.ProcessExecutor(1, threads_per_worker=None) as pool:
        out = pool.solve(ThreadReporter(), [SolveTask(0, 0.5, None)])
    assert out[0].solution.info["omp"] == "7"


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (0, ValueError),
        (-1, ValueError),
        ("four", ValueError),
        (1.5, TypeError),
        (True, TypeError),
    ],
)
def test_process_executor_refuses_bad_thread_counts(value: Any, error: type) -> None:
    with pytest.raises(error, match="threads_per_worker"):
        ps.ProcessExecutor(2, threads_per_worker=value)


# ---------------------------------------------------------------------------- GPUs per worker
class DeviceReporter:
    """Reports the ``CUDA_VISIBLE_DEVICES`` of the process it solves in. Each solve marks its
    start in ``folder`` and waits (up to 60 s) until ``together`` solves have started, so that
    a round of ``together`` tasks runs in as many workers at once. With ``kill``, the first
    solve in a worker process SIGKILLs it (once: the marker file ``kill``)."""

    def __init__(self, folder: Path, together: int, kill: Path | None = None) -> None:
        Path(folder).mkdir(parents=True, exist_ok=True)
        self.folder, self.together = str(folder), together
        self.kill = None if kill is None else str(kill)

    def solve(self, weight: float, state: Any) -> ps.Solution:
        if self.kill is not None and not os.path.exists(self.kill):
            Path(self.kill).touch()
            os.kill(os.getpid(), signal.SIGKILL)
        Path(self.folder, f"{weight}-{os.getpid()}").touch()
        deadline = time.monotonic() + 60
        while len(os.listdir(self.folder)) < self.together and time.monotonic() < deadline:
            time.sleep(0.01)
        return ps.Solution(
            [weight, 1 - weight],
            state,
            {"devices": os.environ.get("CUDA_VISIBLE_DEVICES"), "pid": os.getpid()},
        )


def devices_by_pid(outcomes: list[SolveOutcome]) -> dict[int, str]:
    """Worker pid -> the one ``CUDA_VISIBLE_DEVICES`` it solved under."""
    out: dict[int, str] = {}
    for o in outcomes:
        assert o.solution is not None, o.error
        info = o.solution.info
        assert out.setdefault(info["pid"], info["devices"]) == info["devices"]
    return out


def test_each_worker_process_sees_gpus_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6")
    with ps.ProcessExecutor(3, gpus_per_worker=2) as pool:
        assert pool.worker_devices == (("0", "1"), ("2", "3"), ("4", "5"))
        first = pool.solve(
            DeviceReporter(tmp_path / "a", 3), [SolveTask(i, i / 2, None) for i in range(3)]
        )
        second = pool.solve(
            DeviceReporter(tmp_path / "b", 3), [SolveTask(i, i / 2, None) for i in range(3)]
        )
    for folder in ("a", "b"):
        assert len(os.listdir(tmp_path / folder)) == 3
    seen = devices_by_pid(first)
    # three workers at once, each with its own pair, and they keep it for the next round
    assert sorted(seen.values()) == ["0,1", "2,3", "4,5"] and os.getpid() not in seen
    assert devices_by_pid(second) == seen
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "0,1,2,3,4,5,6"  # this process: untouched


def test_named_devices_and_a_replaced_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "GPU-a,GPU-b,GPU-c")
    with ps.ProcessExecutor(2, devices=["GPU-c", "GPU-a"]) as pool:
        assert pool.gpus_per_worker == 1
        # the first solve kills its worker: the pool starts again, and its workers get the
        # same GPUs as the first pool's
        out = pool.solve(
            DeviceReporter(tmp_path / "a", 2, kill=tmp_path / "killed"),
            [SolveTask(i, float(i), None) for i in range(2)],
        )
    assert (tmp_path / "killed").exists() and sum(len(o.lost) for o in out) >= 1
    seen = devices_by_pid(out)
    assert set(seen.values()) <= {"GPU-c", "GPU-a"}
    assert len(set(seen.values())) == len(seen)


def test_a_worker_forked_after_cuda_started_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker forked from a process that had initialized CUDA cannot use other GPUs: its
    solves fail, naming the cure, rather than running on the parent's GPU."""
    torch = pytest.importorskip("torch")
    import multiprocessing

    if multiprocessing.get_start_method() != "fork":
        pytest.skip("the workers are not forked")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    monkeypatch.setattr(torch.cuda, "_is_in_bad_fork", lambda: True)  # as after CUDA's start
    with ps.ProcessExecutor(1, gpus_per_worker=1) as pool:
        out = pool.solve(GearKStep(), [SolveTask(0, 0.5, None)])
    assert not out[0].ok and "already initialized CUDA" in str(out[0].error)
    assert "set_start_method('spawn')" in str(out[0].error)


@pytest.mark.parametrize(
    ("visible", "kwargs", "error", "match"),
    [
        (
            "0,1",
            {"max_workers": 3, "gpus_per_worker": 1},
            ValueError,
            r"max_workers=3 workers with gpus_per_worker=1 need 3 GPUs, but this process sees 2 "
            r"\(CUDA_VISIBLE_DEVICES=0,1\)",
        ),
        ("0,1", {"devices": [0, 2]}, ValueError, "GPU 2, which this process cannot see"),
        ("0,1", {"devices": [1, "1"]}, ValueError, "GPU 1 more than once"),
        ("0,1", {"devices": [0.5]}, TypeError, r"devices\[0\] must be a GPU index"),
        ("0,1", {"devices": ["0,1"]}, ValueError, "one GPU UUID"),
        ("0,1", {"devices": [-1]}, ValueError, "integer >= 0"),
        ("0,1", {"devices": "01"}, TypeError, "devices must be a list"),
        ("0,1", {"gpus_per_worker": 0}, ValueError, "gpus_per_worker"),
        ("", {"gpus_per_worker": 1}, ValueError, "sees no GPU"),
        (None, {"gpus_per_worker": 1}, ValueError, "cannot tell which GPUs"),
    ],
)
def test_gpus_per_worker_is_checked_against_the_visible_gpus(
    visible: str | None,
    kwargs: dict[str, Any],
    error: type,
    match: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    if visible is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
        monkeypatch.setenv("PATH", str(tmp_path))  # no nvidia-smi either
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    kwargs = {"max_workers": 2, **kwargs}
    with pytest.raises(error, match=match):
        ps.ProcessExecutor(**kwargs)


def test_gpus_per_worker_in_the_description(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1,2,3")
    assert repr(ps.ProcessExecutor(2, gpus_per_worker=2)) == (
        "ProcessExecutor(max_workers=2, max_retries=2, threads_per_worker=None, "
        "solve_timeout=None, gpus_per_worker=2, devices=['0', '1', '2', '3'])"
    )


@pytest.mark.slow  # a local Ray instance: 25-35 s
def test_ray_gives_each_gpu_solve_a_fresh_worker_and_its_own_gpu(tmp_path: Path) -> None:
    """On a local Ray instance declaring 2 GPUs (none here), 4 solves of one GPU each: each
    runs in a worker process of its own (a reused worker would keep its first task's GPU
    once CUDA had started) and sees one of the 2 GPUs."""
    pytest.importorskip("ray")
    import subprocess

    code = (
        "import json, logging, os, sys, ray, paretosurf as ps;"
        "sys.path[:0] = sys.argv[1].split(os.pathsep);"
        "from pathlib import Path;"
        "from test_executors import DeviceReporter;"
        "from paretosurf.executors import SolveTask;"
        "ray.init(num_cpus=2, num_gpus=2, include_dashboard=False,"
        " logging_level=logging.ERROR,"
        " runtime_env={'env_vars': {'PYTHONPATH': sys.argv[1]}});"
        "ex = ps.RayExecutor(num_gpus=1);"
        "out = ex.solve(DeviceReporter(Path(sys.argv[2]), 1),"
        " [SolveTask(i, i / 3, None) for i in range(4)]);"
        "print(json.dumps([o.solution.info for o in out]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, IMPORT_PATH, str(tmp_path / "marks")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    infos = json.loads(done.stdout.splitlines()[-1])
    assert len({info["pid"] for info in infos}) == 4
    assert all(info["devices"] in ("0", "1") for info in infos), infos
