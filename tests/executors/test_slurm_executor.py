"""SlurmExecutor through submitit's local executor (CI has no SLURM): the executor contract, a
failed solve, solve_timeout (interrupted in the job, and a job cancelled when the solve cannot
be interrupted), jobs killed by a signal submitted again with their lost tries recorded, and
drivers killed with SIGKILL whose jobs a second driver over the same folder collects instead of
submitting them again.

Every job is a real process (two: submitit's controller and the solve), so each costs the start
of a Python that imports paretosurf (about a second of CPU); the whole-run checks that need
many rounds are marked slow. Killed drivers are real subprocesses killed with SIGKILL; the jobs
import this module (``tests/executors`` is on their ``PYTHONPATH``), so that a solver built
again by a second driver pickles to the same bytes. No assertion is a timing of speed: deadlines
only bound how long a test waits for something to happen.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.executors import SlurmExecutor, SolveOutcome, SolveTask, execute
from paretosurf.testing import DiskGearKStep, ExecutorContract, GearKStep, assert_same_result

submitit = pytest.importorskip("submitit")

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
#: The jobs (and the drivers run as subprocesses) import this module's solvers from here.
IMPORT_PATH = os.pathsep.join([str(HERE), str(TESTS)])
LINUX = sys.platform.startswith("linux")


# ---------------------------------------------------------------------------- test doubles
def hang(stuck_in_c: bool) -> None:
    """Never return: a Python sleep, or (``stuck_in_c``) one that no SIGALRM reaches, as code
    stuck in C would."""
    if stuck_in_c:
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])
    time.sleep(1000)


class Marked(GearKStep):
    """:class:`GearKStep` that leaves a file in ``marks`` for every solve it begins, named by
    its weight and warm start (to the last bit) and holding its process id, then sleeps
    ``delays[weight]`` seconds (default 0), or ``warm_delay`` seconds for a warm start."""

    def __init__(
        self,
        marks: Path | str,
        delays: dict[float, float] | None = None,
        warm_delay: float = 0.0,
    ) -> None:
        super().__init__()
        self.marks, self.delays, self.warm_delay = str(marks), dict(delays or {}), warm_delay

    def solve(self, w: float, state: float | None) -> ps.Solution:
        Path(self.marks).mkdir(parents=True, exist_ok=True)
        start = "none" if state is None else float(state).hex()
        name = f"{float(w).hex()}_{start}_{os.getpid()}_{time.monotonic_ns()}"
        Path(self.marks, name).write_text(str(os.getpid()))
        delay = self.delays.get(float(w), 0.0) if state is None else self.warm_delay
        time.sleep(delay)
        return super().solve(w, state)


class DiskMarked(Marked):
    """:class:`Marked` keeping its states on disk (``save_state``/``load_state``), as
    :class:`~paretosurf.testing.DiskGearKStep` does."""

    def save_state(self, state: float, folder: str | os.PathLike[str]) -> None:
        np.save(Path(folder) / "x.npy", np.array([state]))

    def load_state(self, folder: str | os.PathLike[str]) -> float:
        return float(np.load(Path(folder) / "x.npy")[0])


def marks_of(folder: Path) -> dict[tuple[str, str], int]:
    """How many solves ``Marked`` began, by (weight, warm start)."""
    out: dict[tuple[str, str], int] = {}
    for path in folder.iterdir() if folder.is_dir() else []:
        weight, start = path.name.split("_")[:2]
        out[weight, start] = out.get((weight, start), 0) + 1
    return out


class Faulty(GearKStep):
    """Raises at ``raise_at``, hangs at ``hang_at`` (a Python sleep) and ``stuck_at`` (a sleep
    that no SIGALRM reaches), kills its own process with SIGKILL at ``kill_once`` on its first
    solve there (across processes: ``marks`` records it) and at ``kill_always`` every time."""

    def __init__(
        self,
        marks: Path | str = "",
        *,
        raise_at: float = -1.0,
        hang_at: float = -1.0,
        stuck_at: float = -1.0,
        kill_once: float = -1.0,
        kill_always: float = -1.0,
    ) -> None:
        super().__init__()
        self.marks = str(marks)
        self.raise_at, self.hang_at, self.stuck_at = raise_at, hang_at, stuck_at
        self.kill_once, self.kill_always = kill_once, kill_always

    def solve(self, w: float, state: float | None) -> ps.Solution:
        if w == self.raise_at:
            raise ValueError(f"diverged at {w}")
        if w in (self.hang_at, self.stuck_at):
            hang(stuck_in_c=w == self.stuck_at)
        if w in (self.kill_once, self.kill_always):
            Path(self.marks).mkdir(parents=True, exist_ok=True)
            earlier = [p for p in Path(self.marks).iterdir() if p.name.startswith(f"{w!r}-")]
            Path(self.marks, f"{w!r}-{os.getpid()}").touch()
            if w == self.kill_always or not earlier:
                os.kill(os.getpid(), signal.SIGKILL)
        return super().solve(w, state)


# ---------------------------------------------------------------------------- helpers
@pytest.fixture(autouse=True)
def jobs_import_this_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs inherit the environment: they import the solvers of this module."""
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", IMPORT_PATH + (os.pathsep + path if path else ""))


def local(folder: Path, **kwargs: Any) -> SlurmExecutor:
    """A SlurmExecutor on submitit's local executor, checking its jobs often."""
    kwargs.setdefault("poll_interval", 0.1)
    return SlurmExecutor(folder, cluster="local", **kwargs)


def journal(folder: Path) -> list[dict[str, Any]]:
    path = folder / "jobs.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def wait_for(what: str, check: Callable[[], Any], limit: float = 120.0) -> Any:
    """Poll ``check`` until it returns something true (a safety net, not a measurement)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"waited {limit:g}s for {what}")


def controller_alive(job_id: str, folder: Path) -> bool:
    """Whether the process of local job ``job_id`` runs (a zombie does not)."""
    try:
        cmdline = Path(f"/proc/{int(job_id)}/cmdline").read_bytes()
    except OSError:
        return False
    return b"submitit.local._local" in cmdline and str(folder).encode() in cmdline


def result_file(folder: Path, job_id: str) -> Path:
    return folder / "jobs" / job_id / f"{job_id}_0_result.pkl"


def driver(script: str, out: Path, args: list[str] | None = None) -> subprocess.Popen[bytes]:
    """Start ``script`` in a Python of its own; its output goes to ``out`` (a file: the jobs
    the driver started write to it too, and may outlive it)."""
    with open(out, "wb") as fh:
        return subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(script), *(args or [])],
            stdout=fh,
            stderr=subprocess.STDOUT,
            env=dict(os.environ),
        )


def finished(proc: subprocess.Popen[bytes], out: Path, limit: float = 180.0) -> str:
    """Wait for ``proc`` and return its output, which must end well."""
    try:
        proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(
            f"the driver did not finish in {limit:g}s:\n{out.read_text()}"
        ) from None
    text = out.read_text()
    assert proc.returncode == 0, text
    return text


# ---------------------------------------------------------------------------- the contract
class TestSlurmExecutorContract(ExecutorContract):
    """The executor contract over submitit's local executor (every solve a job)."""

    n_points = 4
    rounds = 2

    @pytest.fixture
    def executor(self, tmp_path: Path) -> Iterator[SlurmExecutor]:
        ex = local(tmp_path / "jobs")
        yield ex
        ex.close()

    @pytest.mark.slow  # 8 jobs, one after another by round: 10-20 s on 2 cores
    def test_a_run_gives_the_local_result(self, executor: Any) -> None:
        super().test_a_run_gives_the_local_result(executor)


def test_the_debug_cluster_solves_in_this_process(tmp_path: Path) -> None:
    tasks = [SolveTask(0, 0.2), SolveTask(1, 0.7, state=0.4)]
    ex = SlurmExecutor(tmp_path, cluster="debug")
    assert ex.solves_in == "process"
    with ex:
        out = ex.solve(GearKStep(), tasks)
    truth = execute(GearKStep(), tasks)
    assert [o.solution.objectives.tolist() for o in out if o.solution is not None] == [
        o.solution.objectives.tolist() for o in truth if o.solution is not None
    ]
    assert all(o.pid == os.getpid() for o in out)
    assert not (tmp_path / "jobs.jsonl").exists()  # nothing to reattach to


# ---------------------------------------------------------------------------- failures
def test_failed_overrunning_and_killed_solves(tmp_path: Path) -> None:
    """A solve that raises, one interrupted past solve_timeout, one stuck where no
    interruption reaches (its job cancelled) and one whose job is killed by a signal (submitted
    again, the lost try recorded), beside one that succeeds."""
    marks = tmp_path / "marks"
    solver = Faulty(marks, raise_at=0.5, hang_at=0.7, stuck_at=0.9, kill_once=0.6)
    weights = (0.2, 0.5, 0.7, 0.9, 0.6)
    tasks = [SolveTask(i, w) for i, w in enumerate(weights)]
    seen: list[int] = []
    with local(tmp_path / "jobs", solve_timeout=1) as ex:
        out = ex.solve(solver, tasks, lambda o: seen.append(o.slot))
    assert sorted(seen) == [0, 1, 2, 3, 4]
    assert [o.slot for o in out] == [0, 1, 2, 3, 4]
    good, failed, interrupted, cancelled, again = out
    assert good.ok and good.solution is not None
    np.testing.assert_array_equal(good.solution.objectives, GearKStep().solve(0.2, None).objectives)
    assert good.host == socket.gethostname() and good.pid not in (0, os.getpid())
    assert failed.error == "ValueError: diverged at 0.5" and not failed.killed
    assert failed.traceback is not None and "diverged at 0.5" in failed.traceback
    # interrupted inside its job (SIGALRM), which came back
    assert interrupted.error is not None and not interrupted.killed
    assert interrupted.error.startswith(
        "TimeoutError: the solve ran longer than solve_timeout=1s and was interrupted"
    )
    # stuck where no SIGALRM reaches: the executor cancelled its job
    assert cancelled.error is not None and cancelled.killed and cancelled.seconds >= 1
    assert cancelled.error.startswith(
        "TimeoutError: the solve ran longer than solve_timeout=1s and did not return 2s "
        "after it was interrupted; its job "
    )
    assert cancelled.pid not in (0, os.getpid())
    records = journal(tmp_path / "jobs")
    job = next(r["job_id"] for r in records if r["slot"] == 3)
    assert f"its job {job} was cancelled" in cancelled.error
    if LINUX:
        wait_for("the cancelled job's end", lambda: not controller_alive(job, tmp_path / "jobs"))
    # killed once, submitted again, solved: the lost try recorded
    assert again.ok and again.solution is not None
    np.testing.assert_array_equal(
        again.solution.objectives, GearKStep().solve(0.6, None).objectives
    )
    (try_,) = again.lost
    assert try_.killed and try_.solution is None and try_.error is not None
    killed_job = records[4]["job_id"]
    assert try_.error.startswith(f"UncompletedJobError: job {killed_job} on {socket.gethostname()}")
    assert "ended without a result" in try_.error and try_.error.endswith("; submitted again")
    pids = {int(p.name.split("-")[1]) for p in marks.iterdir()}  # of the solves at 0.6
    assert try_.pid in pids and again.pid in pids and try_.pid != again.pid
    assert all(not o.lost for o in out[:4])
    assert sorted(r["slot"] for r in records) == [0, 1, 2, 3, 4, 4]  # only the killed again


# ---------------------------------------------------------------------------- a stand-in SLURM
#: ``sbatch``: runs each element of the job array in a session of its own (``run``), with the
#: variables SLURM sets, and prints the job's id; ``srun``: runs its command; ``sacct``: the
#: states ``run`` keeps in files; ``scancel``: kills a job's session.
FAKE_SLURM = {
    "sbatch": """
import os, re, shutil, subprocess, sys
state = os.environ["FAKE_SLURM"]
job = str(len(os.listdir(state)) + 1000)
script = os.path.join(state, f"{job}.sh")
shutil.copy(sys.argv[-1], script)
found = re.search(r"#SBATCH --array=0-(\\d+)", open(script).read())
for index in range(int(found.group(1)) + 1) if found else [None]:
    name = job if index is None else f"{job}_{index}"
    env = dict(os.environ, SLURM_JOB_ID=name, SLURM_NTASKS="1", SLURM_PROCID="0",
               SLURM_LOCALID="0", SLURM_NODEID="0", SLURM_JOB_NUM_NODES="1")
    if index is not None:
        env.update(SLURM_ARRAY_JOB_ID=job, SLURM_ARRAY_TASK_ID=str(index))
    open(os.path.join(state, name + ".state"), "w").write("PENDING")
    subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "run"), name,
                      script], env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
print(f"Submitted batch job {job}")
""",
    "run": """
import os, subprocess, sys
state = os.environ["FAKE_SLURM"]
name, script = sys.argv[1:]
path = os.path.join(state, name + ".state")
open(path, "w").write("RUNNING")
job = subprocess.Popen(["bash", script], start_new_session=True)
open(path + ".pid", "w").write(str(job.pid))
code = job.wait()
if os.path.exists(path + ".cancelled"):
    open(path, "w").write("CANCELLED by 0")
else:
    open(path, "w").write("COMPLETED" if code == 0 else "FAILED")
""",
    "srun": """
import os, sys
args = sys.argv[1:]
while args[0].startswith("--"):
    args = args[2:] if args[0] in ("--output", "--error") else args[1:]
os.execvp(args[0], args)
""",
    "sacct": """
import os, sys
state = os.environ["FAKE_SLURM"]
wanted = {sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == "-j"}
print("JobID|State|NodeList")
for name in sorted(os.listdir(state)):
    if name.endswith(".state") and name.split("_")[0].split(".")[0] in wanted:
        print(f"{name[:-6]}|{open(os.path.join(state, name)).read()}|node1")
""",
    "scancel": """
import os, signal, sys
path = os.path.join(os.environ["FAKE_SLURM"], sys.argv[-1] + ".state")
open(path + ".cancelled", "w").close()
os.killpg(int(open(path + ".pid").read()), signal.SIGKILL)
""",
}


@pytest.fixture
def fake_slurm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """SLURM's commands as stand-ins on ``PATH`` (their state under the returned folder), and
    the executor's waits for SLURM shortened."""
    from paretosurf.executors import slurm

    bin_, state = tmp_path / "bin", tmp_path / "slurm-state"
    bin_.mkdir()
    state.mkdir()
    for name, code in FAKE_SLURM.items():
        (bin_ / name).write_text(f"#!{sys.executable}\n{textwrap.dedent(code)}")
        (bin_ / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_SLURM", str(state))
    monkeypatch.setattr(slurm, "SACCT_EVERY", 0.2)
    monkeypatch.setattr(slurm, "RESULT_GRACE", 0.5)
    return state


def test_on_slurm_job_arrays_are_collected_and_lost_jobs_submitted_again(
    tmp_path: Path, fake_slurm: Path
) -> None:
    """The SLURM path (sbatch job arrays, sacct states, scancel) on stand-in commands: a job
    killed by a signal ends FAILED without a result and is submitted again, a solve stuck past
    solve_timeout has its job cancelled; a second executor over the folder collects every
    solve recorded there and submits only the failed one and a new one."""
    marks, folder = tmp_path / "marks", tmp_path / "jobs"
    solver = Faulty(marks, raise_at=0.5, kill_once=0.8, stuck_at=0.9, kill_always=0.95)
    tasks = [SolveTask(0, 0.2, state=0.3), SolveTask(1, 0.5), SolveTask(2, 0.8)]
    with SlurmExecutor(folder, poll_interval=0.1, solve_timeout=1, max_retries=1) as ex:
        assert ex.solves_in == "cluster"
        *out, stuck, dead = ex.solve(solver, [*tasks, SolveTask(3, 0.9), SolveTask(4, 0.95)])
    first = journal(folder)
    array = first[0]["job_id"].split("_")[0]
    assert [r["job_id"] for r in first[:5]] == [f"{array}_{i}" for i in range(5)]
    # slots 2 and 4 again (one job each, or one array of both)
    assert sorted(r["slot"] for r in first[5:]) == [2, 4]
    # killed every time: a killed outcome after max_retries
    assert not dead.ok and dead.killed and len(dead.lost) == 1
    assert dead.error is not None and "2 times in all, max_retries=1" in dead.error
    assert stuck.killed and stuck.error is not None
    assert stuck.error.startswith("TimeoutError: the solve ran longer than solve_timeout=1s")
    assert f"its job {array}_3 was cancelled" in stuck.error
    state = fake_slurm / f"{array}_3.state"
    wait_for("the cancelled job's end", lambda: state.read_text() == "CANCELLED by 0", 30)
    good, failed, again = out
    assert good.ok and failed.error == "ValueError: diverged at 0.5" and not failed.lost
    assert again.ok and len(again.lost) == 1 and again.lost[0].killed
    assert again.lost[0].error is not None
    assert f"SLURM job {array}_2" in again.lost[0].error and "(state FAILED)" in again.lost[0].error
    for outcome, task in zip((good, again), (tasks[0], tasks[2]), strict=True):
        truth = GearKStep().solve(task.weight, task.state)
        assert outcome.solution is not None
        assert outcome.solution.objectives.tobytes() == truth.objectives.tobytes()
    # a driver started again: the solved tasks collected, the failed one and a new one run
    with SlurmExecutor(folder, poll_interval=0.1, solve_timeout=1) as ex:
        out2 = ex.solve(solver, [*tasks, SolveTask(4, 1.0)])  # (slot 4 at another weight)
    assert [o.ok for o in out2] == [True, False, True, True]
    assert (out2[0].pid, out2[2].pid) == (good.pid, again.pid)  # the same jobs' outcomes
    assert [r["slot"] for r in journal(folder)[len(first) :]] == [1, 4]


# ---------------------------------------------------------------------------- killed drivers
@pytest.mark.skipif(not LINUX, reason="tells a local job's process by /proc")
def test_a_driver_started_again_collects_the_jobs_of_a_killed_one(tmp_path: Path) -> None:
    """The first driver submits three solves and is SIGKILLed. While no driver runs, one job
    finishes and one is killed; the third still runs when a second driver, over the same
    folder, asks for the same solves: it collects the first, submits the killed one again and
    waits for the third. Each solve ran once, the killed one twice."""
    jobs, marks, out = tmp_path / "jobs", tmp_path / "marks", tmp_path / "outcomes.pkl"
    delays = {0.5: 12.0, 0.75: 5.0}
    script = f"""
        import logging, pickle, sys
        logging.basicConfig(level=logging.INFO, stream=sys.stdout)
        from paretosurf.executors import SlurmExecutor, SolveTask
        from test_slurm_executor import Marked
        tasks = [SolveTask(0, 0.25), SolveTask(1, 0.5), SolveTask(2, 0.75)]
        ex = SlurmExecutor({str(jobs)!r}, cluster="local", poll_interval=0.1)
        out = ex.solve(Marked({str(marks)!r}, {delays!r}), tasks)
        with open({str(out)!r}, "wb") as fh:
            pickle.dump(out, fh)
    """
    first = driver(script, tmp_path / "first.log")
    try:
        records = wait_for(
            "3 jobs in the journal", lambda: len(journal(jobs)) == 3 and journal(jobs)
        )
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    assert first.returncode == -signal.SIGKILL
    ids = {r["slot"]: r["job_id"] for r in records}
    # while no driver runs: slot 2's job is killed, slot 0's finishes
    weight = (0.75).hex()

    def slot_2_solving() -> list[str]:  # its process id, once written
        found = [p for p in marks.iterdir() if p.name.startswith(weight)] if marks.exists() else []
        return [pid for p in found if (pid := p.read_text())]

    os.kill(int(wait_for("slot 2's solve", slot_2_solving)[0]), signal.SIGKILL)
    wait_for("slot 2's job to end", lambda: not controller_alive(ids[2], jobs), 30)
    wait_for("slot 0's result", result_file(jobs, ids[0]).exists)
    assert controller_alive(ids[1], jobs) and not result_file(jobs, ids[1]).exists()

    log = finished(driver(script, tmp_path / "second.log"), tmp_path / "second.log")
    assert f"collected the result of job {ids[0]} of slot 0" in log
    assert f"reattached to job {ids[1]} of slot 1" in log and "still running" in log
    assert f"submitting again the solve of job {ids[2]} of slot 2" in log
    assert "it ended without a result" in log
    with open(out, "rb") as fh:
        outcomes: list[SolveOutcome] = pickle.load(fh)
    truth = execute(GearKStep(), [SolveTask(0, 0.25), SolveTask(1, 0.5), SolveTask(2, 0.75)])
    for got, want in zip(outcomes, truth, strict=True):
        assert got.ok and got.solution is not None and want.solution is not None
        assert got.solution.objectives.tobytes() == want.solution.objectives.tobytes()
    assert outcomes[1].seconds >= delays[0.5]  # the solve that began under the first driver
    counts = marks_of(marks)
    assert counts == {
        ((0.25).hex(), "none"): 1,
        ((0.5).hex(), "none"): 1,
        ((0.75).hex(), "none"): 2,
    }
    assert [r["slot"] for r in journal(jobs)] == [0, 1, 2, 2]  # only slot 2 again


def surf_script(solver: str, jobs: Path, run: Path, saved: Path, n_points: int, rounds: int) -> str:
    """A driver running ``ps.surf(SOLVER, ...)`` (``solver``: an expression naming this
    module's solvers) with a local SlurmExecutor over ``jobs`` and the run folder ``run``,
    checkpointed every round; with the argument ``resume`` it resumes, and saves the result
    in ``saved``."""
    return f"""
        import logging, sys
        logging.basicConfig(level=logging.INFO, stream=sys.stdout)
        import paretosurf as ps
        from paretosurf.executors import SlurmExecutor
        from test_slurm_executor import DiskMarked, Marked
        resume = sys.argv[-1] == "resume"
        solver = {solver}
        ex = SlurmExecutor({str(jobs)!r}, cluster="local", poll_interval=0.1)
        res = ps.surf(solver, n_points={n_points}, iterations={rounds},
                      checkpoint={str(run)!r}, checkpoint_period=0, resume=resume,
                      executor=ex, progress=False)
        if resume:
            res.save({str(saved)!r})
    """


def killed_in_second_round(script: str, log: Path, jobs: Path, n_points: int) -> list[str]:
    """Start the driver ``script``, SIGKILL it once its second round's jobs are in the
    journal, and return their ids."""
    first = driver(script, log)
    try:
        wait_for("the second round's jobs", lambda: len(journal(jobs)) >= 2 * n_points, 180)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    assert len(journal(jobs)) == 2 * n_points
    return [r["job_id"] for r in journal(jobs)[n_points:]]


@pytest.mark.slow
@pytest.mark.skipif(not LINUX, reason="tells a local job's process by /proc")
def test_a_killed_run_resumed_collects_the_round_in_flight(tmp_path: Path) -> None:
    """``ps.surf(..., checkpoint=DIR, executor=SlurmExecutor(...))`` SIGKILLed while its
    second round's jobs run; the same call with ``resume=True`` collects them (no solve runs
    twice) and ends with the uninterrupted run's result, to the last bit."""
    jobs, marks, run, saved = (tmp_path / n for n in ("jobs", "marks", "run", "res"))
    n_points, iterations = 4, 3
    solver = f"Marked({str(marks)!r}, warm_delay=4.0)"
    script = surf_script(solver, jobs, run, saved, n_points, iterations)
    second_round = killed_in_second_round(script, tmp_path / "first.log", jobs, n_points)
    assert any(not result_file(jobs, j).exists() for j in second_round)  # in flight
    log = finished(
        driver(script, tmp_path / "second.log", args=["resume"]), tmp_path / "second.log", 300
    )
    assert log.count("recorded in") == n_points and "submitting again" not in log
    reference = ps.surf(
        Marked(tmp_path / "reference-marks"),
        n_points=n_points,
        iterations=iterations,
        progress=False,
    )
    assert_same_result(ps.Result.load(saved), reference)
    counts = marks_of(marks)
    assert sum(counts.values()) == n_points * iterations and set(counts.values()) == {1}
    assert len(journal(jobs)) == n_points * iterations


@pytest.mark.slow
@pytest.mark.skipif(not LINUX, reason="tells a local job's process by /proc")
def test_disk_states_of_jobs_that_finished_while_no_driver_ran_are_kept(tmp_path: Path) -> None:
    """A solver with its states on disk: the driver is SIGKILLed while the second round's jobs
    run, and every one of them finishes before the driver is started again. The resume
    deletes the run folder's state folders written after its last checkpoint, yet collects
    each job with its state (kept in the executor's folder) instead of solving it again; the
    result is the uninterrupted run's, to the last bit."""
    jobs, marks, run, saved = (tmp_path / n for n in ("jobs", "marks", "run", "res"))
    n_points, iterations = 4, 3
    solver = f"DiskMarked({str(marks)!r}, warm_delay=3.0)"
    script = surf_script(solver, jobs, run, saved, n_points, iterations)
    second_round = killed_in_second_round(script, tmp_path / "first.log", jobs, n_points)
    assert not any(result_file(jobs, j).exists() for j in second_round)  # all in flight
    for job_id in second_round:  # they all finish while no driver runs
        wait_for(f"job {job_id}'s result", result_file(jobs, job_id).exists, 120)
    assert len(list((jobs / "job-states").iterdir())) >= n_points  # the jobs' own copies

    log = finished(
        driver(script, tmp_path / "second.log", args=["resume"]), tmp_path / "second.log", 300
    )
    assert log.count("collected the result of job") == n_points, log
    assert "submitting again" not in log
    counts = marks_of(marks)
    assert sum(counts.values()) == n_points * iterations and set(counts.values()) == {1}
    reference = ps.surf(
        DiskMarked(tmp_path / "reference-marks"),
        n_points=n_points,
        iterations=iterations,
        progress=False,
    )
    got = ps.Result.load(saved)
    np.testing.assert_array_equal(got.points, reference.points)
    np.testing.assert_array_equal(got.weights, reference.weights)
    assert got.n_solves == reference.n_solves
    solver = DiskMarked(tmp_path / "unused")
    assert [solver.load_state(s) for s in got.states] == reference.states
    assert not (jobs / "job-states").exists()  # the run ended: its folder holds the states
    assert list((run / "states").glob("round-*/slot-*/x.npy"))


# ---------------------------------------------------------------------------- a whole run
@pytest.mark.slow
def test_a_disk_state_run_gives_the_local_result(tmp_path: Path) -> None:
    """States as folders of the run folder, saved by the jobs into the executor's folder and
    placed in the run folder as each result is collected; the executor's copies are deleted
    when the run ends."""
    kwargs: dict[str, Any] = {"n_points": 4, "iterations": 2, "progress": False}
    with local(tmp_path / "jobs") as ex:
        res = ps.surf(DiskGearKStep(), checkpoint=tmp_path / "run", executor=ex, **kwargs)
    reference = ps.surf(DiskGearKStep(), checkpoint=tmp_path / "reference", **kwargs)
    np.testing.assert_array_equal(res.points, reference.points)
    np.testing.assert_array_equal(res.weights, reference.weights)
    assert res.n_solves == reference.n_solves == 8
    saved = sorted((tmp_path / "run" / "states").glob("round-*/slot-*/x.npy"))
    assert len(saved) >= 4
    assert {r["save_to"] is not None for r in journal(tmp_path / "jobs")} == {True}
    assert not (tmp_path / "jobs" / "job-states").exists()
    assert {p.stat().st_nlink for p in saved} == {1}  # the jobs' links are gone with them


@pytest.mark.slow
def test_the_run_folder_may_be_the_executors_folder(tmp_path: Path) -> None:
    """One folder for the run and the executor: the run's state folders, and a user's file
    in it, outlive the executor's clean-up of its jobs' states; the saved result names only
    folders that are there."""
    folder = tmp_path / "both"
    (folder / "job-states").mkdir(parents=True)
    (folder / "job-states" / "mine.txt").write_text("the user's")
    (folder / "notes.txt").write_text("the user's too")
    kwargs: dict[str, Any] = {"n_points": 4, "iterations": 2, "progress": False}
    with local(folder) as ex:
        res = ps.surf(DiskGearKStep(), checkpoint=folder, executor=ex, **kwargs)
    reference = ps.surf(DiskGearKStep(), **kwargs)
    np.testing.assert_array_equal(res.points, reference.points)
    saved = ps.Result.load(folder)
    assert saved.states and all(Path(str(state)).is_dir() for state in saved.states)
    solver = DiskGearKStep()
    assert [solver.load_state(str(s)) for s in saved.states] == reference.states
    assert (folder / "job-states" / "mine.txt").read_text() == "the user's"
    assert sorted(p.name for p in (folder / "job-states").iterdir()) == ["mine.txt"]
    assert (folder / "notes.txt").read_text() == "the user's too"


# ---------------------------------------------------------------------------- set-up
def test_importing_paretosurf_imports_no_submitit() -> None:
    code = "import sys, paretosurf, paretosurf.executors; print('submitit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert "SlurmExecutor" in ps.executors.__all__


def test_without_submitit_the_error_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "submitit", None)  # import submitit raises ImportError
    with pytest.raises(ImportError, match=r'pip install "paretosurf\[slurm\]"'):
        local(tmp_path).start()


def test_without_slurm_the_error_names_the_local_cluster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no sbatch, no srun
    ex = SlurmExecutor(tmp_path / "jobs")
    assert ex.cluster == "slurm" and ex.solves_in == "cluster"
    with pytest.raises(RuntimeError, match=r"no SLURM on this machine .*cluster='local'"):
        ex.start()
    assert not (tmp_path / "jobs").exists()


def test_bad_settings_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cluster must be None or 'slurm'"):
        SlurmExecutor(tmp_path, cluster="moon")
    with pytest.raises(ValueError, match=r"solve_timeout=3600s does not fit .* raise time_min"):
        SlurmExecutor(tmp_path, solve_timeout=3600, time_min=60)
    with pytest.raises(ValueError, match="gpus_per_solve must be an integer >= 0"):
        SlurmExecutor(tmp_path, gpus_per_solve=-1)
    with pytest.raises(TypeError, match="reattach must be True or False"):
        SlurmExecutor(tmp_path, reattach="no")  # type: ignore[arg-type]
    assert local(tmp_path).solves_in == "machine"


def test_the_resources_reach_the_sbatch_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a machine with SLURM's commands (stand-ins here), start() gives submitit's SLURM
    executor the resources, which its job script turns into #SBATCH options."""
    from submitit.slurm.slurm import _make_sbatch_string

    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for name in ("sbatch", "srun"):
        (bin_ / name).write_text("#!/bin/sh\nexit 1\n")
        (bin_ / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_}{os.pathsep}{os.environ['PATH']}")
    ex = SlurmExecutor(
        tmp_path / "jobs",
        partition="gpu",
        gpus_per_solve=2,
        cpus_per_solve=8,
        mem_gb=32,
        time_min=90,
        slurm_additional_parameters={"account": "proj42"},
        setup=["module load cuda"],
    )
    assert ex.start() is True and ex.start() is False
    params = ex._executor._executor.parameters
    ex.close()
    text = _make_sbatch_string(command="python -m job", folder=tmp_path, **params)
    for line in (
        "--partition=gpu",
        "--gpus-per-node=2",
        "--cpus-per-task=8",
        "--mem=32GB",
        "--time=90",
        "--nodes=1",
        "--ntasks-per-node=1",
        "--job-name=paretosurf",
        "--account=proj42",
    ):
        assert f"#SBATCH {line}\n" in text, line
    assert "module load cuda" in text


def test_an_interrupted_driver_leaves_its_jobs_to_the_next(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Ctrl-C leaves the round's jobs running and says so; the next driver collects them,
    skipping the half line that a driver killed while appending to the journal leaves."""
    jobs, marks = tmp_path / "jobs", tmp_path / "marks"
    tasks = [SolveTask(0, 0.2), SolveTask(1, 0.8, state=0.6)]

    def interrupt(outcome: SolveOutcome) -> None:
        raise KeyboardInterrupt

    with caplog.at_level(logging.WARNING, logger="paretosurf.executors.slurm"):
        with pytest.raises(KeyboardInterrupt), local(jobs) as ex:
            ex.solve(Marked(marks, warm_delay=3.0), tasks, interrupt)
    first = journal(jobs)
    assert [r["slot"] for r in first] == [0, 1]
    assert f"left running: jobs {first[1]['job_id']} (slots 1)" in caplog.text
    if LINUX:
        assert controller_alive(first[1]["job_id"], jobs)
    path = jobs / "jobs.jsonl"
    path.write_text(path.read_text() + '{"v": 1, "key": "abc", "job_')
    with local(jobs) as ex:
        out = ex.solve(Marked(marks, warm_delay=3.0), tasks)
    truth = execute(GearKStep(), tasks)
    for got, want in zip(out, truth, strict=True):
        assert got.solution is not None and want.solution is not None
        assert got.solution.objectives.tobytes() == want.solution.objectives.tobytes()
    assert len(path.read_text().splitlines()) == 3  # nothing submitted again
    assert sorted(marks_of(marks).values()) == [1, 1]
