"""Executor faults that used to cost whole runs: a hung solver (``solve_timeout`` on every
executor), worker processes and temporary folders left behind by a killed run, and a lost Ray
cluster (a clear :class:`ExecutorLostError` instead of a bare exit code 1).

Hung solvers are real (``time.sleep(1000)``; "stuck in C" is a sleep with SIGALRM blocked, so
that no Python-level interruption reaches it); killed runs are real subprocesses. No assertion
is a timing of speed: deadlines only bound how long a test waits for something to happen.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import test_executors
from test_executors import same_outcomes, tasks_for

import paretosurf as ps
from paretosurf.executors import ExecutorLostError, SolveTask, execute
from paretosurf.storage._locking import holder_of
from paretosurf.storage._tempdirs import (
    LOCK_NAME,
    make_owned_tempdir,
    remove_owned_tempdir,
    sweep_stale,
)
from paretosurf.testing import GearKStep, assert_same_result

TESTS = Path(__file__).resolve().parents[1]
SRC = TESTS.parent / "src"
HERE = Path(__file__).resolve().parent
N = 6
LINUX = sys.platform.startswith("linux")
#: The module-scoped local Ray instance of test_executors (2 CPUs, workers import tests/).
ray_instance = test_executors.ray_instance


# ---------------------------------------------------------------------------- test doubles
def hang(stuck_in_c: bool) -> None:
    """Never return: a Python sleep, or (``stuck_in_c``) one that no SIGALRM reaches, as code
    stuck in C would."""
    if stuck_in_c:
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])
    time.sleep(1000)


class HangAt(GearKStep):
    """:class:`GearKStep` that hangs whenever it solves at ``weight``."""

    def __init__(self, weight: float, stuck_in_c: bool = False) -> None:
        super().__init__()
        self.weight, self.stuck_in_c = weight, stuck_in_c

    def solve(self, w: float, state: float | None) -> ps.Solution:
        if w == self.weight:
            hang(self.stuck_in_c)
        return super().solve(w, state)


class HangOnce(GearKStep):
    """:class:`GearKStep` that hangs on its first call near the middle of the front (0.3 < w <
    0.7), once across all processes: the call that creates ``marker`` first hangs."""

    def __init__(self, marker: Path, stuck_in_c: bool = False) -> None:
        super().__init__()
        self.marker, self.stuck_in_c = str(marker), stuck_in_c

    def solve(self, w: float, state: float | None) -> ps.Solution:
        if 0.3 < w < 0.7:
            try:
                fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                pass
            else:
                os.write(fd, str(os.getpid()).encode())
                os.close(fd)
                hang(self.stuck_in_c)
        return super().solve(w, state)


class SlowBesides(GearKStep):
    """Hangs (stuck in C) at ``weight``; every other solve takes ``seconds``."""

    def __init__(self, weight: float, seconds: float) -> None:
        super().__init__()
        self.weight, self.seconds = weight, seconds

    def solve(self, w: float, state: float | None) -> ps.Solution:
        if w == self.weight:
            hang(True)
        time.sleep(self.seconds)
        return super().solve(w, state)


class BatchHangAt(HangAt):
    """:class:`HangAt` with a ``solve_many``."""

    def solve_many(self, weights: Sequence[float], states: Sequence[Any]) -> list[ps.Solution]:
        return [self.solve(float(w), s) for w, s in zip(weights, states, strict=True)]


def surf(solver: Any, executor: Any = None, **kwargs: Any) -> ps.Result:
    return ps.surf(solver, N, iterations=4, executor=executor, **kwargs)


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie waiting for its new parent to reap it
    counts as ended: it runs nothing and holds no memory)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    if LINUX:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return True
        return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")
    return False


def wait_for(condition: Any, seconds: float, what: str) -> None:
    """Poll ``condition()`` until it holds; fail naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {seconds:g}s")
        time.sleep(0.02)


def script(
    code: str, *args: str, tmpdir: Path | None = None, **kwargs: Any
) -> subprocess.Popen[str]:
    """Run ``code`` in a new Python process that imports this folder's modules (with
    ``tmpdir`` as its temporary folder, ``TMPDIR``, when given)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(TESTS), str(SRC)])}
    if tmpdir is not None:
        env["TMPDIR"] = str(tmpdir)
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args], env=env, text=True, **kwargs
    )


def children(pid: int) -> list[tuple[int, str]]:
    """``(pid, command line)`` of the processes whose parent is ``pid`` (Linux)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            out.append((int(entry), cmd))
    return out


# ---------------------------------------------------------------------------- solve_timeout
@pytest.mark.parametrize(
    "make",
    [
        lambda: ps.LocalExecutor(solve_timeout=0.5),
        lambda: ps.ProcessExecutor(2, solve_timeout=0.5),
    ],
    ids=["local", "processes"],
)
def test_a_hung_solve_times_out_and_the_others_are_solved(make: Any) -> None:
    with make() as ex:
        out = ex.solve(HangAt(0.5), tasks_for())
    bad = out[3]
    assert bad.weight == 0.5 and not bad.ok and not bad.killed
    assert (bad.error or "").startswith(
        "TimeoutError: the solve ran longer than solve_timeout=0.5s and was interrupted"
    )
    assert "in hang" in (bad.traceback or "")  # where it hung
    same_outcomes(
        [o for o in out if o is not bad],
        [o for o in execute(GearKStep(), tasks_for()) if o.weight != 0.5],
    )


def test_a_batch_may_run_k_times_the_timeout() -> None:
    timeout, tasks = 0.25, tasks_for(3)
    out = ps.LocalExecutor(solve_timeout=timeout).solve(BatchHangAt(0.5), tasks)
    assert not any(o.ok for o in out)  # one call: its failure fails all
    assert len({o.error for o in out}) == 1
    # what the error says: a timeout, of the solve_many call of that many tasks, under the
    # option as given, whose limit for the batch is the tasks times the option
    error = out[0].error or ""
    assert error.startswith("TimeoutError: ") and "solve_many" in error
    assert re.findall(r"\b(\d+) tasks\b", error) == [str(len(tasks))]
    assert f"solve_timeout={timeout:g}s" in error
    limits = re.findall(r"= (\d+(?:\.\d+)?)s\b", error)
    assert [float(v) for v in limits] == [pytest.approx(len(tasks) * timeout)]


def test_a_local_timeout_puts_back_the_alarm_it_borrowed() -> None:
    def mine(signum: int, frame: Any) -> None:  # pragma: no cover - never due
        raise AssertionError("the outer alarm fired")

    previous = signal.signal(signal.SIGALRM, mine)
    try:
        signal.setitimer(signal.ITIMER_REAL, 300.0)
        out = ps.LocalExecutor(solve_timeout=0.2).solve(HangAt(0.5), tasks_for(3))
        assert [o.ok for o in out] == [True, False, True]
        assert signal.getsignal(signal.SIGALRM) is mine
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 200 < left < 300  # still running, less the solves
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_local_timeout_off_the_main_thread_says_to_use_processes() -> None:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            ps.LocalExecutor(solve_timeout=1).solve(GearKStep(), tasks_for(2))
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert len(errors) == 1 and isinstance(errors[0], RuntimeError)
    assert "ProcessExecutor(solve_timeout=" in str(errors[0])
    assert "main thread" in str(errors[0])


def test_a_stuck_worker_is_killed_and_reported() -> None:
    with ps.ProcessExecutor(2, solve_timeout=0.5) as ex:
        out = ex.solve(HangAt(0.5, stuck_in_c=True), tasks_for())
        again = ex.solve(GearKStep(), tasks_for())  # a fresh pool works
    bad = out[3]
    assert bad.killed and not bad.ok and bad.pid > 0
    assert (bad.error or "").startswith(
        "TimeoutError: the solve ran longer than solve_timeout=0.5s and did not return"
    )
    assert f"its worker process (pid {bad.pid}) was killed" in (bad.error or "")
    assert gone(bad.pid)
    local = execute(GearKStep(), tasks_for())
    same_outcomes([o for o in out if o is not bad], [o for o in local if o.weight != 0.5])
    same_outcomes(again, local)


def test_a_killed_stuck_solve_does_not_take_its_neighbours_with_it() -> None:
    """The other worker is busy (a long queue of 0.25 s solves) when the stuck one's worker is
    killed at its deadline: what the broken pool lost runs again, uncharged and correct."""
    tasks = [SolveTask(i, i / 19, None) for i in range(20)]
    with ps.ProcessExecutor(2, max_retries=0, solve_timeout=0.5) as ex:
        out = ex.solve(SlowBesides(0.0, 0.25), tasks)
    bad, rest = out[0], out[1:]
    assert bad.killed and "TimeoutError" in (bad.error or "")
    # max_retries=0: a neighbour charged for the death would have come back killed
    assert all(o.ok and not o.killed for o in rest)
    same_outcomes(rest, execute(GearKStep(), tasks[1:]))
    rerun = [o for o in rest if o.lost]
    assert rerun  # some were lost to the kill, and rerun
    assert all("solve_timeout" in (t.error or "") for o in rerun for t in o.lost)


def test_units_waiting_in_a_killed_pool_run_again_uncharged() -> None:
    with ps.ProcessExecutor(1, max_retries=0, solve_timeout=0.5) as ex:
        out = ex.solve(HangAt(0.0, stuck_in_c=True), tasks_for(4))
    assert out[0].killed and "TimeoutError" in (out[0].error or "")
    assert all(o.ok and not o.killed for o in out[1:])
    same_outcomes(out[1:], execute(GearKStep(), tasks_for(4))[1:])


@pytest.mark.parametrize(
    ("make", "stuck_in_c"),
    [
        (lambda: ps.LocalExecutor(solve_timeout=1), False),
        (lambda: ps.ProcessExecutor(2, solve_timeout=1), False),
        (lambda: ps.ProcessExecutor(2, solve_timeout=1), True),
    ],
    ids=["local", "processes", "processes-stuck-in-c"],
)
def test_the_run_retries_a_solve_that_timed_out(
    make: Any, stuck_in_c: bool, tmp_path: Path
) -> None:
    clean = surf(GearKStep())
    res = surf(
        HangOnce(tmp_path / "hung", stuck_in_c), make(), retries=1, checkpoint=tmp_path / "run"
    )
    assert (tmp_path / "hung").exists()
    assert_same_result(res, clean)
    lines = [
        line
        for line in map(json.loads, (tmp_path / "run" / "solves.jsonl").open())
        if "slot" in line
    ]  # (less a header line)
    timed_out = [line for line in lines if (line["error"] or "").startswith("TimeoutError")]
    assert len(timed_out) == 1 and timed_out[0]["killed"] is stuck_in_c
    retried = [
        line
        for line in lines
        if line["error"] is None
        and (line["round"], line["slot"]) == (timed_out[0]["round"], timed_out[0]["slot"])
    ]
    assert [line["attempt"] for line in retried] == [2]


def test_without_retries_a_timeout_ends_the_run_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ps.InnerSolverError, match=r"ran longer than solve_timeout=0\.5s"):
        surf(HangOnce(tmp_path / "hung"), ps.LocalExecutor(solve_timeout=0.5), retries=0)


@pytest.mark.parametrize("cls", [ps.LocalExecutor, ps.ProcessExecutor, ps.RayExecutor])
@pytest.mark.parametrize(
    ("value", "error"),
    [
        (0, ValueError),
        (-1.0, ValueError),
        (float("inf"), ValueError),
        (float("nan"), ValueError),
        ("5", TypeError),
        (True, TypeError),
    ],
)
def test_executors_refuse_bad_timeouts(cls: type, value: Any, error: type) -> None:
    with pytest.raises(error, match="solve_timeout"):
        cls(solve_timeout=value)


def test_executors_show_their_timeout() -> None:
    assert repr(ps.LocalExecutor(solve_timeout=5)) == "LocalExecutor(solve_timeout=5)"
    assert repr(ps.ProcessExecutor(2, solve_timeout=0.5)).endswith("solve_timeout=0.5)")
    assert repr(ps.RayExecutor(solve_timeout=60)).endswith("solve_timeout=60)")


# ---------------------------------------------------------------------------- killed runs
KILLED_RUN = """
    import os, sys, threading, time
    import paretosurf as ps

    class Slow:
        def __init__(self, folder):
            self.folder = folder

        def solve(self, w, state):
            open(os.path.join(self.folder, f"worker-{os.getpid()}"), "w").close()
            time.sleep(1000)

    def run():
        ps.surf(Slow(sys.argv[1]), 4, iterations=1, executor=ps.ProcessExecutor(2))

    if sys.argv[2] == "thread":     # workers forked off the main thread: the watchdog alone
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
    else:
        run()
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
@pytest.mark.parametrize(
    ("sig", "where"),
    [
        (signal.SIGKILL, "main"),
        (signal.SIGTERM, "main"),
        (signal.SIGKILL, "thread"),
    ],
    ids=["sigkill", "sigterm", "sigkill-run-in-a-thread"],
)
def test_workers_and_the_solver_folder_die_with_a_killed_run(
    sig: int, where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a temporary folder of its own: another run starting meanwhile (a test beside this one)
    # would otherwise clean the killed run's folder up before the check below
    private = tmp_path / "tmp"
    private.mkdir()
    run = script(KILLED_RUN, str(tmp_path), where, tmpdir=private)
    try:
        wait_for(lambda: len(list(tmp_path.glob("worker-*"))) == 2, 120, "both workers solving")
        workers = [int(p.name.split("-")[1]) for p in tmp_path.glob("worker-*")]
        folders = [
            f
            for f in private.glob("paretosurf-solver-*")
            if (holder_of(f / LOCK_NAME) or {}).get("pid") == run.pid
        ]
        assert len(folders) == 1
        run.send_signal(sig)
        run.wait(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    wait_for(lambda: all(gone(pid) for pid in workers), 10, "the workers' end")
    if sig == signal.SIGKILL:
        assert run.returncode == -sig
        assert folders[0].exists()  # a killed run cannot clean up after itself
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(private))
    pool = ps.ProcessExecutor(1)  # ... the next start does
    pool.start()
    pool.close()
    assert not folders[0].exists()


# ---------------------------------------------------------------------------- tempdirs
HOLDER = """
    import sys, time
    from paretosurf.storage._tempdirs import make_owned_tempdir
    print(make_owned_tempdir(sys.argv[1], parent=sys.argv[2]), flush=True)
    time.sleep(1000)
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
def test_a_folder_is_swept_only_once_its_owner_is_dead(tmp_path: Path) -> None:
    owner = script(HOLDER, "ps-test-", str(tmp_path), stdout=subprocess.PIPE)
    try:
        assert owner.stdout is not None
        folder = Path(owner.stdout.readline().strip())
        assert folder.parent == tmp_path and (folder / LOCK_NAME).exists()
        (folder / "data.npy").write_bytes(b"x")
        for _ in range(3):  # held by a live process: never swept
            assert sweep_stale("ps-test-", parent=tmp_path, max_age=0) == []
        assert (folder / "data.npy").exists()
        owner.kill()
        owner.wait()
        assert sweep_stale("ps-test-", parent=tmp_path) == [folder]
        assert not folder.exists()
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait()


def test_own_folders_are_kept_and_removed_on_request(tmp_path: Path) -> None:
    mine = make_owned_tempdir("ps-test-", parent=tmp_path)
    assert sweep_stale("ps-test-", parent=tmp_path, max_age=0) == []
    (mine / "state").mkdir()
    remove_owned_tempdir(mine)
    assert not mine.exists()
    remove_owned_tempdir(mine)  # already gone: fine


def test_folders_without_an_owner_go_only_when_old(tmp_path: Path) -> None:
    young = tmp_path / "ps-test-young"
    old = tmp_path / "ps-test-old"
    empty_lock = tmp_path / "ps-test-empty-lock"
    other = tmp_path / "another-prefix-old"
    for folder in (young, old, empty_lock, other):
        folder.mkdir()
        (folder / "file").write_text("x")
    (empty_lock / LOCK_NAME).touch()  # killed before it wrote its owner
    hours_ago = time.time() - 7200
    for folder in (old, empty_lock, other):
        for path in (folder / "file", folder):
            os.utime(path, (hours_ago, hours_ago))
    os.utime(empty_lock / LOCK_NAME, (hours_ago, hours_ago))
    removed = sweep_stale("ps-test-", parent=tmp_path)
    assert sorted(removed) == sorted([old, empty_lock])
    assert young.exists() and other.exists()


def test_threads_making_and_sweeping_at_once_lose_nothing(tmp_path: Path) -> None:
    made: list[Path] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(10):
            folder = make_owned_tempdir("ps-test-", parent=tmp_path)
            with lock:
                made.append(folder)
            sweep_stale("ps-test-", parent=tmp_path, max_age=0)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 40 and all((f / LOCK_NAME).exists() for f in made)
    for folder in made:
        remove_owned_tempdir(folder)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("prefix", "error"),
    [
        ("", ValueError),
        ("a/b", ValueError),
        (".hidden", ValueError),
        (3, TypeError),
    ],
)
def test_tempdirs_refuse_bad_prefixes(prefix: Any, error: type) -> None:
    with pytest.raises(error, match="prefix"):
        make_owned_tempdir(prefix)
    with pytest.raises(error, match="prefix"):
        sweep_stale(prefix)


# ---------------------------------------------------------------------------- Ray
@pytest.mark.usefixtures("ray_instance")
@pytest.mark.parametrize("stuck_in_c", [False, True], ids=["python", "stuck-in-c"])
def test_ray_times_out_a_hung_task(stuck_in_c: bool) -> None:
    ex = ps.RayExecutor(num_cpus=1, solve_timeout=1)
    out = ex.solve(HangAt(0.5, stuck_in_c), tasks_for())
    bad = out[3]
    assert not bad.ok and bad.killed is stuck_in_c
    assert (bad.error or "").startswith(
        "TimeoutError: the solve ran longer than solve_timeout=1s and "
        + ("did not return" if stuck_in_c else "was interrupted")
    )
    if stuck_in_c:
        assert "Ray task was cancelled (force=True" in (bad.error or "")
    same_outcomes(
        [o for o in out if o is not bad],
        [o for o in execute(GearKStep(), tasks_for()) if o.weight != 0.5],
    )
    same_outcomes(ex.solve(GearKStep(), tasks_for()), execute(GearKStep(), tasks_for()))
    ex.close()


@pytest.mark.usefixtures("ray_instance")
def test_ray_runs_retry_a_solve_that_timed_out(tmp_path: Path) -> None:
    clean = surf(GearKStep())
    res = surf(HangOnce(tmp_path / "hung"), ps.RayExecutor(num_cpus=1, solve_timeout=1), retries=1)
    assert (tmp_path / "hung").exists()
    assert_same_result(res, clean)


LOST_CLUSTER = """
    import os, sys, time
    import paretosurf as ps
    from paretosurf.executors import ray_executor

    ray_executor.LOST_AFTER = 3.0      # (10 s by default) for a shorter test

    class Slow:
        def __init__(self, marker):
            self.marker = marker

        def solve(self, w, state):
            open(self.marker, "w").close()
            time.sleep(1000)

    ps.surf(Slow(sys.argv[1]), 4, iterations=1, executor=ps.RayExecutor(num_cpus=1))
"""


@pytest.mark.skipif(not LINUX, reason="finds Ray's processes through /proc")
@pytest.mark.parametrize(
    "victim",
    [
        "gcs_server",
        # the same check on the other address (Ray itself would wait forever here); 15 s
        pytest.param("raylet", marks=pytest.mark.slow),
    ],
)
def test_a_lost_ray_cluster_ends_the_run_with_a_message(victim: str, tmp_path: Path) -> None:
    """A Ray instance whose GCS (or this node's raylet) is killed mid-round: the run ends with
    ExecutorLostError's message, not Ray's bare exit code 1 a minute later (about 15 s:
    Ray's start-up and a 3 s loss threshold)."""
    pytest.importorskip("ray")
    marker = tmp_path / "solving"
    run = script(LOST_CLUSTER, str(marker), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for(marker.exists, 180, "a solve on Ray")
        procs = [
            pid for pid, cmd in children(run.pid) if os.path.basename(cmd.split(" ")[0]) == victim
        ]
        assert len(procs) == 1, children(run.pid)
        os.kill(procs[0], signal.SIGKILL)
        _, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == 1
    head = "paretosurf.executors.base.ExecutorLostError: "
    lines = [line for line in err.splitlines() if line.startswith(head)]
    assert len(lines) == 1, err[-3000:]
    assert lines[0].startswith(f"{head}the Ray instance this executor started on this machine")
    assert "was lost" in lines[0] and "has not answered for" in lines[0]
    assert "slots 0 (weight 0), 1 (weight 0.25)" in lines[0] and "resume=True" in lines[0]


def test_executor_lost_error_is_a_runtime_error() -> None:
    err = ExecutorLostError("lost", address="h:1", slots=[1, 2])
    assert isinstance(err, RuntimeError) and err.address == "h:1" and err.slots == (1, 2)
    assert ps.executors.ExecutorLostError is ExecutorLostError
