"""Fault injection: a run folder survives anything.

Every resumed run is compared, BIT FOR BIT, with an uninterrupted run of the same settings
without a run folder (the independent truth): weights, points, every record's weights,
points, CDF and counters, the final CDF and states, n_solves, n_steps and stop_reason (not
timings). A run that cannot be continued must be refused with a message naming the file and
what to do.

The faults:

1. SIGKILL inside, just before and just after every write of the run folder
   (``paretosurf.storage._run_folder._write_bytes``) and every ``save_state`` of a solver
   that keeps its states in folders, during a run, a resume and ``overwrite=True`` (and
   before every deletion of an overwrite). A child process (a script written to tmp_path)
   imports the library once and runs each faulty run in a forked process of its own.
2. SIGKILL at random moments (seeded) from the parent, on LocalExecutor and ProcessExecutor
   (and Ray in the slow tests).
3. A second process on a folder in use.
4. Damaged, missing and foreign files; the user's own files.
5. A full disk: ENOSPC injected at every write, and a real tmpfs that fills up.
6. Crafted state entries (a class of a module not imported, folders outside the run).

Exhaustive sweeps are marked ``slow``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import faults_helpers as fh
import paretosurf as ps
from paretosurf.storage._files import CheckpointError
from paretosurf.storage._run_folder import CheckpointWriteError, FolderInUseError, RunFolder
from paretosurf.storage._states import folders_of

TESTS = Path(__file__).resolve().parents[1]
#: Children run single-threaded numerics (two cores, shared).
ENV = {
    **os.environ,
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "PYTHONWARNINGS": "ignore",
}
USER_FILES = {
    "notes.txt": b"my notes\n",
    "results.json": b'{"mine": true}\n',
    "mine/data.bin": bytes(range(256)),
    ".hidden": b"x",
}


# ---------------------------------------------------------------------------- helpers
STALE_MANIFEST = re.compile(r"^\.run\.json\..+\.tmp$")
_TRUTH: dict[str, dict[str, Any]] = {}


def truth(name: str) -> dict[str, Any]:
    """The fingerprint of the uninterrupted run of configuration ``name``, without a run
    folder."""
    if name not in _TRUTH:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = fh.run_config(name, None)
        _TRUTH[name] = fh.fingerprint(res, fh.solver_of(name))
    return _TRUTH[name]


def assert_equal_to_truth(res: ps.Result, name: str, what: str) -> None:
    got = fh.fingerprint(res, fh.solver_of(name))
    diff = fh.differences(got, truth(name))
    assert not diff, f"{what}: differs from the uninterrupted run in {diff}"


def unclaimed_states(folder: Path) -> set[str]:
    """State files in ``folder`` that its run.json does not list as the run's own."""
    try:
        files = set(json.loads((folder / "run.json").read_text())["files"])
    except FileNotFoundError:
        files = set()
    return {n for n in ("state.0", "state.1") if (folder / n).exists()} - files


def check_tidy(folder: Path, user: set[str] = frozenset()) -> None:
    """The folder holds its run's files (and ``user``'s) only: no temporary file, every log
    line whole, and exactly the state folders that the two state files name."""
    manifest = json.loads((folder / "run.json").read_text())
    names = {p.name for p in folder.iterdir()}
    unlisted = names - set(manifest["files"]) - {u.split("/")[0] for u in user}
    assert unlisted == set(), f"files the run did not list as its own: {sorted(unlisted)}"
    for log in ("history.jsonl", "solves.jsonl"):
        for line in (folder / log).read_bytes().splitlines():
            json.loads(line)  # no line left half written or mangled
    if (folder / "states").is_dir():
        newest = fh.newest_state(folder)
        on_disk = {p for p in (folder / "states").glob("*/*")}
        named = folders_of(fh.read_state(newest)[0]["pool"]["states"], folder)
        assert named <= on_disk, f"state folders missing: {sorted(map(str, named - on_disk))}"
        other = folder / ({"state.0", "state.1"} - {newest.name}).pop()
        if other.exists():
            named |= folders_of(fh.read_state(other)[0]["pool"]["states"], folder)
        assert named <= on_disk, (
            "state folders of the state before the newest missing: "
            f"{sorted(map(str, named - on_disk))}"
        )
        assert on_disk <= named, f"stale state folders: {sorted(map(str, on_disk - named))}"


def resume_and_check(
    name: str, folder: Path, *, executor: Any = None, what: str = "", user: set[str] = frozenset()
) -> ps.Result:
    """Resume the run in ``folder`` (in this process) and check it against the truth, as
    returned and as loaded back from the folder."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fh.run_config(name, folder, resume=True, executor=executor)
    damaged = [str(w.message) for w in caught if "damaged" in str(w.message)]
    assert not damaged, f"{what}: a kill damaged a state file: {damaged}"
    assert_equal_to_truth(res, name, f"{what}: resumed")
    assert_equal_to_truth(ps.Result.load(folder), name, f"{what}: loaded back")
    check_tidy(folder, user)
    return res


def write_user_files(folder: Path) -> None:
    for name, data in USER_FILES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)


def check_user_files(folder: Path, what: str = "") -> None:
    for name, data in USER_FILES.items():
        assert (folder / name).read_bytes() == data, f"{what}: {name} was touched"
    assert sorted(p.name for p in (folder / "mine").iterdir()) == ["data.bin"]


@contextlib.contextmanager
def child(args: list[str], **kwargs: Any) -> Iterator[subprocess.Popen[str]]:
    """A child process in a session of its own; killed (with everything it started in its
    session) and waited for on the way out."""
    proc = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
        start_new_session=True,
        **kwargs,
    )
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)


@pytest.fixture(scope="module")
def scripts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The child scripts, written once for the module."""
    where = tmp_path_factory.mktemp("scripts")
    fork = where / "fault_child.py"
    fork.write_text(fh.CHILD_SCRIPT.format(tests=str(TESTS)))
    run = where / "run_child.py"
    run.write_text(RUN_SCRIPT.format(tests=str(TESTS)))
    return {"fork": fork, "run": run}


def run_jobs(
    script: Path, jobs: list[dict[str, Any]], where: Path, timeout: float = 300
) -> list[dict[str, Any]]:
    """Run ``jobs`` in the child (each in a forked process of its own, which its fault
    kills); returns, per job, its wait status and what it raised (if anything)."""
    spec = where / f"jobs-{time.monotonic_ns()}.json"
    spec.write_text(json.dumps(jobs))
    pids = spec.with_suffix(".pids")
    with child([sys.executable, str(script), str(spec), str(pids)]) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        finally:
            # the forked runs lead process groups of their own (with their workers)
            for line in pids.read_text().split() if pids.exists() else ():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(int(line), signal.SIGKILL)
    assert proc.returncode == 0, err[-4000:]
    results, raised = [], None
    for line in out.splitlines():
        entry = json.loads(line)
        if "raised" in entry:
            raised = entry
        else:
            results.append({"status": entry["status"], "raised": raised})
            raised = None
    assert len(results) == len(jobs), (out[-2000:], err[-4000:])
    return results


def count_writes(name: str, folder: Path, **options: Any) -> fh.Counter:
    """A dry run of ``name`` in ``folder`` (in this process), counting its writes and
    saves."""
    with fh.Counter() as counter, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fh.run_config(name, folder, **options)
    return counter


def sweep(
    scripts: dict[str, Path],
    tmp_path: Path,
    name: str,
    target: str,
    hows: tuple[str, ...],
    *,
    prepare: Path | None = None,
    options: dict[str, Any] | None = None,
    executor: str | None = None,
) -> list[tuple[str, Path]]:
    """Kill a run of ``name`` at every write (``target="write"``), every solver save
    ("save") or every deletion ("delete") it makes, in each way of ``hows``; each faulty run
    starts from a copy of ``prepare`` (or an empty folder). Returns ``(what, folder)`` of
    each killed run (all of them are checked to have been killed by the fault)."""
    options = options or {}
    dry = tmp_path / "dry"
    if prepare is not None:
        fh.copy_folder(prepare, dry)
    if target == "delete":
        deletes, undo = fh.count_deletes()
        try:
            count_writes(name, dry, **options)
        finally:
            undo()
        n = deletes[0]
    else:
        counter = count_writes(name, dry, **options)
        n = len(counter.writes) if target == "write" else counter.saves
    assert n > 0
    jobs, folders = [], []
    for how in hows:
        for k in range(n):
            folder = tmp_path / f"{target}-{how}-{k:03d}"
            if prepare is not None:
                fh.copy_folder(prepare, folder)
            jobs.append(
                {
                    "config": name,
                    "folder": str(folder),
                    "options": options,
                    "executor": executor,
                    "fault": {"target": target, "k": k, "how": how},
                }
            )
            folders.append((f"{name}: SIGKILL {how} {target} #{k} of {n}", folder))
    timed = fh.CONFIGS[name].timed
    for (what, _), result in zip(folders, run_jobs(scripts["fork"], jobs, tmp_path), strict=True):
        if timed and result["status"] == 0:
            continue  # (fewer writes than counted: the run ended, and is checked)
        assert fh.signalled(result["status"]) == signal.SIGKILL, (what, result)
    return folders


#: A run in a fresh process (for kills at random moments): it says when it starts solving.
RUN_SCRIPT = """\
import json, sys
sys.path.insert(0, {tests!r})
import warnings
warnings.simplefilter("ignore")
import paretosurf as ps
import faults_helpers
job = json.loads(sys.argv[1])
executor = {{"local": None, "processes": lambda: ps.ProcessExecutor(2),
            "ray": lambda: ps.RayExecutor(num_cpus=1)}}[job["executor"]]
ex = executor() if executor else None
if job.get("block_at") is not None:
    import os, time
    def callback(record):
        if record.iteration == job["block_at"]:
            open(job["folder"] + ".blocked", "w").write(str(os.getpid()))
            deadline = time.monotonic() + 120
            while not os.path.exists(job["folder"] + ".go"):
                assert time.monotonic() < deadline
                time.sleep(0.005)
else:
    callback = None
open(job["folder"] + ".ready", "w").close()
faults_helpers.run_config(job["config"], job["folder"], executor=ex, callback=callback,
                          **job.get("options", {{}}))
print("done", flush=True)
"""


def wait_for(path: Path, proc: subprocess.Popen[str], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if proc.poll() is not None:
            raise AssertionError(
                f"the child ended before {path.name}: {proc.communicate()[1][-3000:]}"
            )
        assert time.monotonic() < deadline, f"no {path.name} after {timeout} s"
        time.sleep(0.002)


# ============================================================================ 1. SIGKILL
#: (configuration, ways) swept in the default run; the slow run sweeps every way.
WRITE_SWEEPS = [
    ("p0", ("inside", "before", "after")),
    ("auto", ("inside",)),
    ("auto-end", ("inside", "after")),
    ("auto-first", ("inside",)),
    ("every-2", ("inside",)),
    ("big", ("inside",)),
    ("disk", ("inside",)),
    ("disk-long", ("inside",)),
]
ALL_WAYS = ("inside", "before", "after")


@pytest.mark.parametrize(("name", "hows"), WRITE_SWEEPS, ids=[n for n, _ in WRITE_SWEEPS])
def test_a_run_killed_inside_any_write_resumes_bit_for_bit(scripts, tmp_path, name, hows) -> None:
    for what, folder in sweep(scripts, tmp_path, name, "write", hows):
        resume_and_check(name, folder, what=what)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "p0",
        "auto",
        "auto-end",
        "auto-first",
        "every-2",
        "big",
        "big-5mb",
        "disk",
        "disk-long",
        "disk-every-2",
        "slow-auto",
    ],
)
def test_a_run_killed_inside_any_write_resumes_bit_for_bit_every_way(
    scripts, tmp_path, name
) -> None:
    for what, folder in sweep(scripts, tmp_path, name, "write", ALL_WAYS):
        resume_and_check(name, folder, what=what)


@pytest.mark.parametrize("name", ["disk"])
def test_a_run_killed_inside_a_solvers_save_state_resumes_bit_for_bit(
    scripts, tmp_path, name
) -> None:
    """A kill inside ``save_state`` leaves a half-written temporary state folder: the resume
    removes it and equals the uninterrupted run."""
    killed = sweep(scripts, tmp_path, name, "save", ("inside",))
    half_written = [
        f for _, f in killed if any(p.name.startswith(".") for p in f.glob("states/*/*"))
    ]
    assert half_written, "no kill left a temporary state folder"
    for what, folder in killed:
        resume_and_check(name, folder, what=what)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["disk", "disk-long", "disk-every-2", "slow-disk"])
def test_a_run_killed_inside_any_save_state_resumes_bit_for_bit_every_way(
    scripts, tmp_path, name
) -> None:
    for what, folder in sweep(scripts, tmp_path, name, "save", ALL_WAYS):
        resume_and_check(name, folder, what=what)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["p0", "every-2", "disk"])
def test_a_run_on_worker_processes_killed_inside_any_write_resumes(scripts, tmp_path, name) -> None:
    for what, folder in sweep(scripts, tmp_path, name, "write", ("inside",), executor="processes"):
        resume_and_check(name, folder, what=what, executor=ps.ProcessExecutor(2))


def test_a_run_killed_before_its_first_checkpoint_starts_again(scripts, tmp_path) -> None:
    name = "p0"
    counter = count_writes(name, tmp_path / "dry")
    first_state = next(i for i, (f, _) in enumerate(counter.writes) if ".state." in f)
    folder = tmp_path / "run"
    (result,) = run_jobs(
        scripts["fork"],
        [
            {
                "config": name,
                "folder": str(folder),
                "fault": {"target": "write", "k": first_state, "how": "inside"},
            }
        ],
        tmp_path,
    )
    assert fh.signalled(result["status"]) == signal.SIGKILL
    rf = RunFolder(folder)
    assert not rf.committed() and rf.holds_run()
    n = fh.CONFIGS[name].n + 1
    before = [e for e in rf.solves() if e["round"] == 0]
    assert len(before) == n  # the killed run's attempts are logged
    resume_and_check(name, folder, what="killed inside its first state file")
    after = [e for e in RunFolder(folder).solves() if e["round"] == 0]
    assert len(after) == 2 * n  # round 0 solved again, both logged


def test_a_run_killed_while_creating_its_folder_leaves_no_temporary_file(scripts, tmp_path) -> None:
    folder = tmp_path / "run"
    (result,) = run_jobs(
        scripts["fork"],
        [
            {
                "config": "p0",
                "folder": str(folder),
                "fault": {"target": "write", "k": 0, "how": "inside"},
            }
        ],
        tmp_path,
    )
    assert fh.signalled(result["status"]) == signal.SIGKILL
    assert not (folder / "run.json").exists()
    resume_and_check("p0", folder, what="killed inside its first run.json")
    assert not [p.name for p in folder.iterdir() if STALE_MANIFEST.match(p.name)]


def interrupted(name: str, folder: Path, after: int) -> Path:
    """``folder`` holding the run ``name`` stopped (by an exception) after ``after`` rounds."""

    def stop(record: ps.IterationRecord) -> None:
        if record.iteration == after - 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stderr(open(os.devnull, "w")):
            fh.run_config(name, folder, callback=stop)
    return folder


@pytest.mark.parametrize(("name", "committed"), [("p0", True), ("auto-end", False), ("disk", True)])
def test_a_resume_killed_inside_any_write_resumes_again(scripts, tmp_path, name, committed) -> None:
    """Killed while it resumes (upgrading nothing, restarting the logs of a run that never
    completed a checkpoint, truncating the history, writing checkpoints): the next resume
    still equals the uninterrupted run."""
    prepared = interrupted(name, tmp_path / "prepared", after=2)
    assert RunFolder(prepared).committed() is committed
    hows = ("inside", "before", "after") if name != "disk" else ("inside",)
    for what, folder in sweep(
        scripts, tmp_path, name, "write", hows, prepare=prepared, options={"resume": True}
    ):
        resume_and_check(name, folder, what=f"resume {what}")


def overwrite_template(tmp_path: Path) -> Path:
    """A folder holding a completed run of "p0" and the user's own files."""
    template = tmp_path / "template"
    template.mkdir()
    write_user_files(template)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fh.run_config("p0", template)
    return template


@pytest.mark.parametrize("target", ["write", "delete"])
def test_a_run_killed_during_overwrite_can_be_run_again(scripts, tmp_path, target) -> None:
    """``overwrite=True`` with other settings ("p0-n6") killed at each write or before each
    deletion: resuming the new run either equals its uninterrupted run or is refused naming
    the folder; the same overwrite call run again equals it; the user's files are never
    touched."""
    template = overwrite_template(tmp_path)
    name = "p0-n6"
    hows = ("before",) if target == "delete" else ("inside",)
    for what, folder in sweep(
        scripts, tmp_path, name, target, hows, prepare=template, options={"overwrite": True}
    ):
        check_user_files(folder, what)
        copy = fh.copy_folder(folder, folder.with_name(folder.name + "-resumed"))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = fh.run_config(name, copy, resume=True)
        except (ValueError, FileExistsError) as exc:
            assert str(copy) in str(exc), (what, str(exc))
        else:
            assert_equal_to_truth(res, name, f"{what}: resumed")
            check_tidy(copy, set(USER_FILES))
        check_user_files(copy, what)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = fh.run_config(name, folder, overwrite=True)
        assert_equal_to_truth(res, name, f"{what}: overwritten again")
        check_tidy(folder, set(USER_FILES))
        check_user_files(folder, what)


def state_write(name: str, folder: Path, nth: int) -> int:
    """The index of the write of the ``nth`` state file written (0: the first); run.json
    records it as the run's in the write just before."""
    writes = count_writes(name, folder).writes
    state = [i for i, (f, _) in enumerate(writes) if ".state." in f][nth]
    assert writes[state - 1][0].startswith(".run.json."), "the state is not claimed first"
    return state


def test_a_state_file_is_the_runs_before_it_is_written(scripts, tmp_path) -> None:
    """run.json lists a state file before it is written (saved after round 1 in state.0 and
    at the end in state.1): a run killed between the two resumes, and overwrite=True deletes
    every file of it."""
    name = "auto-first"
    k = state_write(name, tmp_path / "dry", nth=1)
    folder = tmp_path / "run"
    (result,) = run_jobs(
        scripts["fork"],
        [
            {
                "config": name,
                "folder": str(folder),
                "fault": {"target": "write", "k": k, "how": "before"},
            }
        ],
        tmp_path,
    )
    assert fh.signalled(result["status"]) == signal.SIGKILL
    files = json.loads((folder / "run.json").read_text())["files"]
    assert "state.1" in files and not (folder / "state.1").exists()
    resume_and_check(name, folder, what="killed after claiming a state file")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = fh.run_config("p0-n6", folder, overwrite=True)
    assert_equal_to_truth(res, "p0-n6", "overwritten")
    assert not unclaimed_states(folder)


def stop_after(rounds: int) -> Any:
    def callback(record: ps.IterationRecord) -> None:
        if record.iteration == rounds - 1:
            raise KeyboardInterrupt

    return callback


def test_a_resumed_run_keeps_the_folders_of_the_state_before_the_newest(tmp_path) -> None:
    folder = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt), contextlib.redirect_stderr(open(os.devnull, "w")):
        fh.run_config("disk", folder, callback=stop_after(2))  # states after rounds 1, 2
    with pytest.raises(KeyboardInterrupt), contextlib.redirect_stderr(open(os.devnull, "w")):
        fh.run_config("disk", folder, resume=True, callback=stop_after(3))
    newest = fh.newest_state(folder)
    assert fh.read_state(newest)[0]["n_rounds"] == 3
    data = bytearray(newest.read_bytes())  # the newest is damaged on the disk:
    data[len(data) // 2] ^= 0x01  # the state after round 2 must do
    newest.write_bytes(bytes(data))
    with pytest.warns(UserWarning, match="damaged"):
        res = fh.run_config("disk", folder, resume=True)
    assert_equal_to_truth(res, "disk", "resumed from the state before the newest")


def test_a_resumed_run_prunes_the_folders_no_state_file_names(tmp_path) -> None:
    folder = tmp_path / "run"
    # stopped after its last round's checkpoint (states after rounds 3 and 4), before the
    # final one: the resume saves once, over the state after round 3
    iterations = fh.CONFIGS["disk"].iterations
    with pytest.raises(KeyboardInterrupt), contextlib.redirect_stderr(open(os.devnull, "w")):
        fh.run_config("disk", folder, callback=stop_after(iterations))
    fh.run_config("disk", folder, resume=True)
    named = set()
    for state in ("state.0", "state.1"):
        named |= folders_of(fh.read_state(folder / state)[0]["pool"]["states"], folder)
    on_disk = set((folder / "states").glob("*/*"))
    assert on_disk == named, sorted(p.relative_to(folder).as_posix() for p in on_disk - named)


# ============================================================================ 2. at random
def kill_at_random(
    scripts: dict[str, Path], folder: Path, name: str, executor: str, delay: float, **options: Any
) -> bool:
    """Start the run in a fresh process and SIGKILL it (the whole process group: the run
    and its workers) ``delay`` seconds after it starts solving; whether it was still
    running."""
    job = {"config": name, "folder": str(folder), "executor": executor, "options": options}
    Path(str(folder) + ".ready").unlink(missing_ok=True)
    with child([sys.executable, str(scripts["run"]), json.dumps(job)]) as proc:
        wait_for(Path(str(folder) + ".ready"), proc)
        time.sleep(delay)
        running = proc.poll() is None
        with contextlib.suppress(ProcessLookupError):  # (a run that ended already)
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    return running


#: Kill moments drawn per kill that must land mid-run (see :func:`kill_mid_run`).
DRAWS = 6


def kill_mid_run(
    scripts: dict[str, Path],
    where: Path,
    name: str,
    executor: str,
    rng: random.Random,
    high: float,
    **options: Any,
) -> tuple[Path, float]:
    """Kill the run (:func:`kill_at_random`) at a random moment up to ``high`` seconds after
    it starts solving, in a fresh folder named after ``where`` each time, until a kill lands
    while the run runs and after it made its folder: that folder and the delay. A kill before
    the folder leaves nothing to resume (the next is drawn later) and one after the run ended
    interrupts nothing (the next is drawn sooner): neither counts, and if none of ``DRAWS``
    kills lands the test fails, rather than passing with nothing checked."""
    low, missed = 0.0, []
    for attempt in range(DRAWS):
        folder = where.with_name(f"{where.name}.{attempt}")
        delay = rng.uniform(low, high)
        running = kill_at_random(scripts, folder, name, executor, delay, **options)
        if running and folder.exists():
            return folder, delay
        missed.append(f"{delay:.3f} s: " + ("no folder yet" if running else "the run had ended"))
        low, high = (delay, high) if running else (low, delay)
    pytest.fail(f"no kill of {name} on {executor} landed mid-run: {missed}")


RANDOM_DEFAULT = [
    ("local", "slow", 2),
    ("local", "slow-auto", 1),
    ("processes", "slow", 2),
    ("local", "slow-disk", 1),
]


@pytest.mark.parametrize(
    ("executor", "name", "tries"), RANDOM_DEFAULT, ids=[f"{e}-{n}" for e, n, _ in RANDOM_DEFAULT]
)
def test_a_run_killed_at_a_random_moment_resumes_bit_for_bit(
    scripts, tmp_path, executor, name, tries
) -> None:
    rng = random.Random(f"{executor}-{name}")
    checked = 0
    for i in range(tries):
        folder, delay = kill_mid_run(scripts, tmp_path / f"run-{i}", name, executor, rng, 0.6)
        resume_and_check(
            name,
            folder,
            what=f"killed {delay:.3f} s in",
            executor=ps.ProcessExecutor(2) if executor == "processes" else None,
        )
        checked += 1
    assert checked == tries  # every try killed a run mid-way, and its resume was checked


@pytest.mark.slow
@pytest.mark.parametrize(
    ("executor", "name"),
    [
        ("local", "slow"),
        ("local", "slow-auto"),
        ("local", "slow-disk"),
        ("processes", "slow"),
        ("processes", "slow-auto"),
        ("processes", "slow-disk"),
    ],
)
def test_runs_killed_at_many_random_moments_resume_bit_for_bit(
    scripts, tmp_path, executor, name
) -> None:
    rng = random.Random(f"slow-{executor}-{name}")
    checked = 0
    for i in range(4):
        folder, delay = kill_mid_run(scripts, tmp_path / f"run-{i}", name, executor, rng, 1.2)
        resume_and_check(
            name,
            folder,
            what=f"killed {delay:.3f} s in",
            executor=ps.ProcessExecutor(2) if executor == "processes" else None,
        )
        # (and a run killed early, killed again while it resumes)
        folder, _ = kill_mid_run(scripts, tmp_path / f"twice-{i}", name, executor, rng, 0.3)
        kill_at_random(scripts, folder, name, executor, rng.uniform(0.0, 0.3), resume=True)
        resume_and_check(name, folder, what="killed twice")
        checked += 2
    assert checked == 8  # every kill landed mid-run, and every resume was checked


@pytest.mark.slow
def test_a_run_on_ray_killed_at_random_moments_resumes_bit_for_bit(scripts, tmp_path) -> None:
    pytest.importorskip("ray")
    rng = random.Random("ray")
    for i in range(3):
        folder = tmp_path / f"run-{i}"
        job = {"config": "slow", "folder": str(folder), "executor": "ray"}
        with child([sys.executable, str(scripts["run"]), json.dumps(job)]) as proc:
            # Ray starts its cluster (in the run's session) first: wait for a round or two,
            # then kill the whole session at a random moment
            deadline = time.monotonic() + 240
            while rounds_logged(folder) < 1 + i:
                assert proc.poll() is None, proc.communicate()[1][-3000:]
                assert time.monotonic() < deadline, "the Ray run did not get going"
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 0.5))
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)
        assert RunFolder(folder).n_rounds() < fh.CONFIGS["slow"].iterations
        resume_and_check("slow", folder, what=f"Ray run {i}")


def test_the_workers_of_a_run_killed_with_sigkill_exit(scripts, tmp_path) -> None:
    """Killed alone (as the out-of-memory killer kills), a run's worker processes end too:
    none is left holding what its solver holds (a GPU, say)."""
    folder = tmp_path / "run"
    job = {"config": "slow", "folder": str(folder), "executor": "processes"}
    with child([sys.executable, str(scripts["run"]), json.dumps(job)]) as proc:
        wait_for(Path(str(folder) + ".ready"), proc)
        deadline = time.monotonic() + 60
        while len(group_members(proc.pid)) < 3:  # the run and its two workers
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)  # the run only, as the OOM killer does
        proc.wait(timeout=60)
        deadline = time.monotonic() + 10
        while group_members(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = group_members(proc.pid)
    assert not left, f"worker processes {left} outlived the killed run"


def rounds_logged(folder: Path) -> int:
    """Rounds in the folder's history (its first line is the header)."""
    try:
        return max(len((folder / "history.jsonl").read_bytes().splitlines()) - 1, 0)
    except FileNotFoundError:
        return 0


def group_members(pgid: int) -> list[int]:
    """The live processes of process group ``pgid`` (from /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append(int(entry.name))
    return out


# ============================================================================ 3. two writers
def start_blocked(
    scripts: dict[str, Path], folder: Path, name: str, **kwargs: Any
) -> contextlib.AbstractContextManager[subprocess.Popen[str]]:
    job = {"config": name, "folder": str(folder), "executor": "local", "block_at": 1, **kwargs}
    return child([sys.executable, str(scripts["run"]), json.dumps(job)])


def refused_without_waiting(
    monkeypatch: pytest.MonkeyPatch, lock: Path, call: Callable[[], object], holder: str
) -> None:
    """``call()`` is refused with a :class:`FolderInUseError` naming ``holder``, at once: it
    tries to take the folder's ``lock`` only without blocking (``LOCK_NB``), the kernel refuses
    each try (the holder keeps the lock throughout), and nothing sleeps in between. What the
    code does, not how long it takes: a blocking try (which would wait for the holder to end)
    and a wait fail here at once."""
    import fcntl  # (POSIX, as the locks)

    real_flock = fcntl.flock
    tries: list[tuple[int, str]] = []
    waits: list[tuple[object, ...]] = []

    def flock(fd: int, operation: int) -> None:
        try:
            ours = os.path.samestat(os.fstat(fd), os.stat(lock))
        except OSError:
            ours = False
        if not ours:
            return real_flock(fd, operation)
        if not operation & fcntl.LOCK_NB:
            tries.append((operation, "blocking"))
            raise AssertionError(f"a blocking flock of {lock}: it would wait for the holder")
        try:
            real_flock(fd, operation)
        except OSError as exc:
            tries.append((operation, errno.errorcode.get(exc.errno or 0, "?")))
            raise
        tries.append((operation, "taken"))
        return None

    def sleep(*args: object) -> None:
        waits.append(args)
        raise AssertionError(f"the refused call waited: time.sleep{args}")

    with monkeypatch.context() as m:
        m.setattr(fcntl, "flock", flock)
        m.setattr(time, "sleep", sleep)
        with pytest.raises(FolderInUseError, match=holder):
            call()
    assert waits == []
    assert tries, "refused without trying the folder's lock"
    # each try asked for the lock without blocking, and the kernel refused it
    assert all(op == fcntl.LOCK_EX | fcntl.LOCK_NB for op, _ in tries), tries
    assert {why for _, why in tries} <= {"EAGAIN", "EWOULDBLOCK", "EACCES"}, tries


def test_a_second_process_is_refused_and_the_first_run_is_untouched(
    scripts, tmp_path, monkeypatch
) -> None:
    folder = tmp_path / "run"
    name = "p0"
    with start_blocked(scripts, folder, name) as proc:
        wait_for(Path(f"{folder}.blocked"), proc)  # the run holds the folder, round 1
        before = fh.folder_bytes(folder)
        holder = rf"process {proc.pid} on host {re.escape(socket.gethostname())}"
        lock = folder / "run.lock"
        for options in ({"resume": True}, {"overwrite": True}, {}):
            refused_without_waiting(
                monkeypatch, lock, lambda o=options: fh.run_config(name, folder, **o), holder
            )
        refused_without_waiting(monkeypatch, lock, RunFolder(folder).clear, holder)
        # a reader is not a writer: the saved rounds can be read meanwhile
        assert len(ps.Result.load(folder).history) == 2
        assert fh.folder_bytes(folder) == before  # the refused calls wrote nothing
        Path(f"{folder}.go").touch()
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0 and "done" in out, err[-3000:]
    assert_equal_to_truth(ps.Result.load(folder), name, "the first run")
    check_tidy(folder)


def test_a_folder_whose_holder_was_killed_is_free_again(scripts, tmp_path) -> None:
    folder = tmp_path / "run"
    name = "p0"
    with start_blocked(scripts, folder, name) as proc:
        wait_for(Path(f"{folder}.blocked"), proc)
        with pytest.raises(FolderInUseError, match=f"process {proc.pid} "):
            fh.run_config(name, folder, resume=True)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    resume_and_check(name, folder, what="resumed after its holder was killed")


# ============================================================================ 4. files
def completed(name: str, folder: Path) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fh.run_config(name, folder)
    return folder


def refusals(name: str, folder: Path) -> list[str]:
    """The messages with which resuming and loading ``folder`` are refused."""
    out = []
    for call in (
        lambda: fh.run_config(name, folder, resume=True),
        lambda: ps.Result.load(folder),
    ):
        with pytest.raises(CheckpointError) as info:
            call()
        out.append(str(info.value))
    return out


@pytest.mark.parametrize("other", ["p0", "p0-k4", "p0-n6"])
@pytest.mark.parametrize("which", ["newest", "older"])
def test_a_state_file_of_another_run_is_refused(tmp_path, other, which) -> None:
    """From a run of the same configuration (its bytes differ only in the run id), of the
    same settings with another solver, and of other settings."""
    a = interrupted("p0", tmp_path / "a", after=3)
    b = interrupted(other, tmp_path / "b", after=2)
    newest = fh.newest_state(a)
    target = newest if which == "newest" else a / ({"state.0", "state.1"} - {newest.name}).pop()
    shutil.copy(b / target.name, target)
    before = fh.folder_bytes(a)
    for message in refusals("p0", a):
        assert f"{target} belongs to another run" in message
        assert "put this run's own file back" in message
    assert fh.folder_bytes(a) == before  # nothing was written
    target.unlink()  # as the message says: continue
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = fh.run_config("p0", a, resume=True)
    assert_equal_to_truth(res, "p0", "resumed from the other state file")


@pytest.mark.parametrize("other", ["p0", "p0-n6"])
@pytest.mark.parametrize("log", ["history.jsonl", "solves.jsonl"])
def test_a_log_of_another_run_is_refused(tmp_path, other, log) -> None:
    a = interrupted("p0", tmp_path / "a", after=3)
    b = interrupted(other, tmp_path / "b", after=3)
    shutil.copy(b / log, a / log)
    before = fh.folder_bytes(a)
    with pytest.raises(CheckpointError) as info:
        fh.run_config("p0", a, resume=True)
    assert f"{a / log} belongs to another run" in str(info.value)
    assert "put this run's own file back" in str(info.value)
    if log == "history.jsonl":
        with pytest.raises(CheckpointError, match=f"{a / log} belongs to another run"):
            ps.Result.load(a)
    assert fh.folder_bytes(a) == before


def test_a_rounds_bin_of_another_run_is_refused_naming_it(tmp_path) -> None:
    a = interrupted("p0", tmp_path / "a", after=3)
    b = interrupted("p0-k4", tmp_path / "b", after=3)
    shutil.copy(b / "rounds.bin", a / "rounds.bin")
    for message in refusals("p0", a):
        assert "rounds.bin" in message
        assert "another run" in message and "overwrite=True" in message


@pytest.mark.parametrize("stage", ["interrupted", "completed"])
def test_deleted_state_files_are_refused_not_started_again(tmp_path, stage) -> None:
    folder = (
        interrupted("p0", tmp_path / "run", after=2)
        if stage == "interrupted"
        else completed("p0", tmp_path / "run")
    )
    for name in ("state.0", "state.1"):
        (folder / name).unlink()
    before = fh.folder_bytes(folder)
    for message in refusals("p0", folder):
        assert "state files (state.0, state.1) are gone" in message
        assert "put them back, or start again with overwrite=True" in message
    assert fh.folder_bytes(folder) == before


def test_a_deleted_run_json_is_refused(tmp_path) -> None:
    folder = interrupted("p0", tmp_path / "run", after=2)
    (folder / "run.json").unlink()
    before = fh.folder_bytes(folder)
    for message in refusals("p0", folder):
        assert f"{folder} holds a run's state files but not its run.json" in message
        assert "put the file back" in message
    with pytest.raises(FileExistsError, match=r"not its run\.json"):
        fh.run_config("p0", folder)
    assert fh.folder_bytes(folder) == before


@pytest.mark.parametrize("where", ["newest", "older"])
def test_a_flipped_byte_in_a_state_file_falls_back_to_the_other(tmp_path, where) -> None:
    for name, stage in (
        ("p0", "interrupted"),
        ("p0", "completed"),
        ("disk", "interrupted"),
        ("big", "interrupted"),
    ):
        folder = tmp_path / f"{name}-{stage}"
        if stage == "interrupted":
            interrupted(name, folder, after=3)
        else:
            completed(name, folder)
        newest = fh.newest_state(folder)
        path = (
            newest if where == "newest" else folder / ({"state.0", "state.1"} - {newest.name}).pop()
        )
        data = bytearray(path.read_bytes())
        data[len(data) * 2 // 3] ^= 0x10
        path.write_bytes(bytes(data))
        with pytest.warns(
            UserWarning,
            match=rf"{path.name} is damaged .*using the state "
            rf"after round \d+ in state\.[01]",
        ):
            res = fh.run_config(name, folder, resume=True)
        assert_equal_to_truth(res, name, f"{name} {stage}, {where} state flipped")


def test_both_state_files_damaged_is_refused(tmp_path) -> None:
    folder = interrupted("p0", tmp_path / "run", after=3)
    for name in ("state.0", "state.1"):
        data = bytearray((folder / name).read_bytes())
        data[-5] ^= 0xFF
        (folder / name).write_bytes(bytes(data))
    for message in refusals("p0", folder):
        assert "holds no readable state" in message and "state.0 is damaged" in message
        assert "restore the files from a backup, or start again with overwrite=True" in message


def test_a_truncated_rounds_bin_is_refused_naming_it(tmp_path) -> None:
    folder = interrupted("p0", tmp_path / "run", after=3)
    data = (folder / "rounds.bin").read_bytes()
    (folder / "rounds.bin").write_bytes(data[: len(data) // 2])
    for message in refusals("p0", folder):
        assert f"{folder / 'rounds.bin'} is damaged or truncated" in message


def test_a_truncation_after_the_last_checkpoint_is_harmless(tmp_path) -> None:
    """Bytes of a round logged after the newest state (a kill between the logs and the state)
    cut short: dropped on resume."""
    folder = interrupted("every-2", tmp_path / "run", after=3)  # saved after round 2
    assert RunFolder(folder).n_rounds() == 2
    with open(folder / "history.jsonl", "ab") as fhandle:
        fhandle.write(b'{"iteration":2,"cv":0.1')  # a half line
    with open(folder / "rounds.bin", "ab") as fhandle:
        fhandle.write(b"\x00" * 100)
    resume_and_check("every-2", folder, what="logs with a torn tail")


@pytest.mark.parametrize("field", ["n_solves", "alpha"])
def test_a_changed_digit_in_a_history_line_is_detected(tmp_path, field) -> None:
    folder = interrupted("p0", tmp_path / "run", after=3)
    lines = (folder / "history.jsonl").read_bytes().split(b"\n")
    record = json.loads(lines[2])
    old = json.dumps(record[field]).encode()
    new = json.dumps(record[field] + (1 if field == "n_solves" else 0.1)).encode()
    assert lines[2].count(b'"%s":%s' % (field.encode(), old)) == 1
    lines[2] = lines[2].replace(
        b'"%s":%s' % (field.encode(), old), b'"%s":%s' % (field.encode(), new)
    )
    (folder / "history.jsonl").write_bytes(b"\n".join(lines))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = fh.run_config("p0", folder, resume=True)
    except CheckpointError as exc:
        assert "history.jsonl" in str(exc)
        return
    assert_equal_to_truth(res, "p0", f"history line with {field} changed")


def test_the_users_files_are_never_touched(tmp_path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    write_user_files(folder)
    interrupted("disk", folder, after=2)
    check_user_files(folder, "run")
    resume_and_check("disk", folder, what="resumed beside user files", user=set(USER_FILES))
    check_user_files(folder, "resume")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = fh.run_config("p0-n6", folder, overwrite=True)
    assert_equal_to_truth(res, "p0-n6", "overwritten")
    check_user_files(folder, "overwrite")
    RunFolder(folder).clear()
    check_user_files(folder, "clear")
    assert sorted(p.name for p in folder.iterdir()) == sorted({n.split("/")[0] for n in USER_FILES})


@pytest.mark.parametrize(
    "name", ["history.jsonl", "run.lock", "solves.jsonl", "rounds.bin", "states"]
)
def test_a_file_of_a_runs_name_that_no_run_wrote_is_refused(tmp_path, name) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    if name == "states":
        (folder / "states").mkdir()
        (folder / "states" / "mine.txt").write_text("mine")
    else:
        (folder / name).write_text("the user's own file\n")
    before = fh.folder_bytes(folder)
    for options in ({}, {"resume": True}, {"overwrite": True}):
        with pytest.raises((FileExistsError, CheckpointError)) as info:
            fh.run_config("p0", folder, **options)
        assert name in str(info.value) and "did not" in str(info.value), str(info.value)
        assert fh.folder_bytes(folder) == before, options
    assert sorted(p.name for p in folder.iterdir()) == [name]


def test_overwrite_in_a_folder_without_run_json_deletes_nothing_it_did_not_write(tmp_path) -> None:
    folder = tmp_path / "mine"
    (folder / "states").mkdir(parents=True)
    files = {
        "state.1": b"my own state file",
        "states/model.pt": b"my model",
        "history.jsonl": b"my training log\n",
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    with contextlib.suppress(FileExistsError, CheckpointError):
        fh.run_config("p0", folder, overwrite=True)
    for name, data in files.items():
        assert (folder / name).exists() and (folder / name).read_bytes() == data, name


# ============================================================================ 5. full disk
@contextlib.contextmanager
def write_fault(k: int, how: str) -> Iterator[None]:
    """In this process: the ``k``-th write raises ENOSPC ("enospc": that write only, before
    writing; "full": after writing half of it, and every write after it too)."""

    def step(call: int, fhandle: Any, data: bytes | str, write: Callable[..., None]) -> None:
        if call == k and how == "full":
            write(fhandle, data[: len(data) // 2])
            fhandle.flush()
        if call == k or (how == "full" and call > k):
            raise OSError(errno.ENOSPC, "No space left on device")
        write(fhandle, data)

    with fh.faulty_writes(step):
        yield


FULL_DISK = [
    ("p0", "enospc"),
    ("p0", "full"),
    ("auto-first", "full"),
    ("disk", "full"),
    ("big", "enospc"),
]


@pytest.mark.parametrize(("name", "how"), FULL_DISK, ids=[f"{n}-{h}" for n, h in FULL_DISK])
def test_a_full_disk_at_any_write_is_reported_and_resumes(tmp_path, name, how) -> None:
    full_disk_sweep(tmp_path, name, how)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", ["auto", "auto-first", "every-2", "disk", "disk-long", "disk-every-2", "big", "big-5mb"]
)
@pytest.mark.parametrize("how", ["enospc", "full"])
def test_a_full_disk_at_any_write_is_reported_and_resumes_every_run(tmp_path, name, how) -> None:
    full_disk_sweep(tmp_path, name, how)


def full_disk_sweep(tmp_path: Path, name: str, how: str) -> None:
    n = len(count_writes(name, tmp_path / "dry").writes)
    for k in range(n):
        folder = tmp_path / f"{how}-{k:03d}"
        error = None
        with write_fault(k, how), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fh.run_config(name, folder)
            except CheckpointWriteError as exc:
                error = exc
        if error is None and fh.CONFIGS[name].timed:
            continue  # (fewer writes than counted: a stall moved a checkpoint)
        assert error is not None, f"no CheckpointWriteError from write #{k}"
        message = str(error)
        assert error.errno == errno.ENOSPC
        assert f"run folder {folder} is full" in message, message
        assert "resume=True" in message, message
        resume_and_check(name, folder, what=f"{how} at write #{k} of {n}")


def test_a_full_disk_inside_save_state_is_reported_as_a_checkpoint_write_error(tmp_path) -> None:
    folder = tmp_path / "run"
    fh.SAVE_FAULT, fh._SAVES[0] = (3, "enospc"), 0
    try:
        with pytest.raises(OSError) as info, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fh.run_config("disk", folder)
    finally:
        fh.SAVE_FAULT = None
    resume_and_check("disk", folder, what="full disk in save_state")
    assert isinstance(info.value, CheckpointWriteError), repr(info.value)
    assert str(folder) in str(info.value) and "resume=True" in str(info.value)


def test_a_full_disk_inside_save_state_resumes(tmp_path) -> None:
    for k in range(fh.CONFIGS["disk"].n + 1, 3 * (fh.CONFIGS["disk"].n + 1)):
        folder = tmp_path / f"run-{k}"
        fh.SAVE_FAULT, fh._SAVES[0] = (k, "enospc"), 0
        try:
            with pytest.raises(OSError, match="No space left"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fh.run_config("disk", folder)
        finally:
            fh.SAVE_FAULT = None
        resume_and_check("disk", folder, what=f"full disk in save #{k}")


@contextlib.contextmanager
def tmpfs(where: Path, size: str) -> Iterator[Path]:
    if os.name != "posix" or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        for _ in range(20):
            if (
                subprocess.run(["umount", str(where)], capture_output=True, timeout=30).returncode
                == 0
            ):
                break
            time.sleep(0.1)
        else:
            subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=30)


@pytest.mark.parametrize(("name", "size"), [("big", "13m"), ("disk-every-2", "12m")])
def test_a_real_full_disk_mid_run_is_reported_and_the_copy_resumes(tmp_path, name, size) -> None:
    """A run on a small tmpfs that fills up after a checkpoint or two; the folder copied to
    a disk with room resumes to the uninterrupted run."""
    with tmpfs(tmp_path / "small", size) as small:
        folder = small / "run"
        folder.mkdir()
        (folder / "notes.txt").write_text("mine")
        with pytest.raises(OSError) as info, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fh.run_config(name, folder)
        assert info.value.errno == errno.ENOSPC
        saved = RunFolder(folder).n_rounds()
        assert 0 < saved < fh.CONFIGS[name].iterations, saved  # it filled up mid-run
        if isinstance(info.value, CheckpointWriteError):
            assert f"run folder {folder} is full" in str(info.value)
            assert "resume=True" in str(info.value)
        copy = shutil.copytree(folder, tmp_path / "roomy")
    resume_and_check(name, copy, what="resumed on a disk with room", user={"notes.txt"})


# ============================================================================ 6. crafted
EVIL = "fault_evil_module"


def crafted(tmp_path: Path, name: str, entry: dict[str, Any]) -> Path:
    """A completed run whose newest state names ``entry`` for its first state (CRC made
    valid again)."""
    folder = completed(name, tmp_path / "run")
    for path in (folder / "state.0", folder / "state.1"):
        header, blob = fh.read_state(path)
        entries = header["pool"]["states"]["entries"]
        entries[next(iter(entries))] = entry
        fh.write_state(path, header, blob)
    return folder


def test_a_state_naming_a_class_of_a_module_not_imported_imports_nothing(tmp_path, scripts) -> None:
    """Checked in a fresh interpreter (nothing imported by earlier tests), for
    ``Result.load`` and for a resume."""
    marker = tmp_path / "imported"
    (tmp_path / f"{EVIL}.py").write_text(
        f"open({str(marker)!r}, 'w').write('imported')\n"
        "import dataclasses\n@dataclasses.dataclass\nclass Evil:\n    x: float = 0.0\n"
    )
    folder = crafted(tmp_path, "p0", {"dataclass": f"{EVIL}:Evil", "fields": {"x": {"value": 1.0}}})
    nested = crafted(
        tmp_path / "n",
        "p0",
        {"list": [{"dict": {"a": {"dataclass": f"{EVIL}:Evil", "fields": {}}}}]},
    )
    code = (
        f"import sys; sys.path[:0] = [{str(tmp_path)!r}, {str(TESTS)!r}]\n"
        "import warnings; warnings.simplefilter('ignore')\n"
        "import paretosurf as ps, faults_helpers as fh\n"
        "from paretosurf.storage._files import CheckpointError\n"
        "for folder in sys.argv[1:]:\n"
        "    for call in (lambda: ps.Result.load(folder),\n"
        "                 lambda: fh.run_config('p0', folder, resume=True)):\n"
        "        try:\n"
        "            call()\n"
        "        except CheckpointError as exc:\n"
        "            print('refused:', exc)\n"
        f"print('imported' if {EVIL!r} in sys.modules else 'not imported')\n"
    )
    with child([sys.executable, "-c", code, str(folder), str(nested)]) as proc:
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-3000:]
    lines = out.splitlines()
    assert len([x for x in lines if x.startswith("refused:")]) == 4, out
    for line in lines[:4]:
        assert (
            f"holds solver states of the class {EVIL}:Evil, which paretosurf does not import"
            in line
            and "register_state_class" in line
        )
    assert lines[-1] == "not imported" and not marker.exists()


@pytest.mark.parametrize(
    "entry",
    [
        {"folder": "/etc", "relative": False},
        {"folder": "/etc", "relative": True},
        {"folder": "../outside", "relative": True},
        {"folder": "states/../../outside", "relative": True},
        {"folder": "states/link", "relative": True},
    ],
)
def test_a_state_folder_outside_the_run_folder_is_refused(tmp_path, entry) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    np.save(outside / "x.npy", np.array([0.5]))
    np.save(outside / "big.npy", np.full(1024, 0.5))
    folder = crafted(tmp_path, "disk", entry)
    (folder / "states" / "link").symlink_to(outside, target_is_directory=True)
    for message in refusals("disk", folder):
        assert re.search(r"outside the run folder|leads out of the run folder", message)
        assert entry["folder"] in message


def object_dtype(folder: Path, where: str) -> None:
    """Make the first array of each state file (or of the first history line) an array of
    Python objects (whose bytes only pickle could read)."""
    if where == "state":
        for path in (folder / "state.0", folder / "state.1"):
            header, blob = fh.read_state(path)
            header["arrays_index"][next(iter(header["arrays_index"]))][0] = "|O"
            fh.write_state(path, header, blob)
    else:
        lines = (folder / "history.jsonl").read_bytes().split(b"\n")
        assert b'"weights":["<f8"' in lines[1]
        lines[1] = lines[1].replace(b'"weights":["<f8"', b'"weights":["|O"')
        (folder / "history.jsonl").write_bytes(b"\n".join(lines))


@pytest.mark.parametrize("where", ["state", "history"])
def test_an_array_of_python_objects_is_refused_without_unpickling(
    tmp_path, monkeypatch, where
) -> None:
    import pickle

    folder = completed("p0", tmp_path / "run")
    object_dtype(folder, where)

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a file made the library unpickle")

    monkeypatch.setattr(pickle, "loads", never)
    monkeypatch.setattr(pickle, "load", never)
    for call in (
        lambda: fh.run_config("p0", folder, resume=True),
        lambda: ps.Result.load(folder),
    ):
        with pytest.raises(ValueError):
            call()


@pytest.mark.parametrize("where", ["state", "history"])
def test_an_array_of_python_objects_is_refused_naming_the_file(tmp_path, where) -> None:
    folder = completed("p0", tmp_path / "run")
    object_dtype(folder, where)
    for call in (
        lambda: fh.run_config("p0", folder, resume=True),
        lambda: ps.Result.load(folder),
    ):
        with pytest.raises(CheckpointError) as info:
            call()
        assert str(folder) in str(info.value)
