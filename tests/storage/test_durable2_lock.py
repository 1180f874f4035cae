"""The run folder's lock is held by the library's own open file (durable-2): reading or copying
the folder from the running process leaves it held, a second process is refused, and a
forked child that outlives its killed parent holds nothing.

Before: ``run.lock`` was a POSIX ``lockf`` lock, which the kernel drops as soon as the
holding process closes any descriptor of the file; a callback that backed the folder up with
``shutil.copytree`` freed it, and a second ``resume=True`` then ran beside the first.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import paretosurf as ps
from faults_helpers import CHILD_ENV
from paretosurf.storage._locking import FileLock, LockedError, try_lock, unlock
from paretosurf.storage._run_folder import FolderInUseError, RunFolder
from paretosurf.testing import GearKStep
from support import call_cli

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or not hasattr(signal, "SIGKILL"), reason="POSIX processes"
)

N = 4
TESTS = Path(__file__).resolve().parents[1]
ENV = CHILD_ENV

#: ``python -c PROBE PATH``: prints whether another process could lock the file ``PATH``
#: (whole-file ``flock`` or POSIX ``lockf``: held if either is refused).
PROBE = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
held = False
for lock in (fcntl.flock, fcntl.lockf):
    try:
        lock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        held = True
    else:
        lock(fd, fcntl.LOCK_UN)
print("held" if held else "free", flush=True)
"""

#: ``python -c SECOND FOLDER``: the same run resumed in another process; prints how it ended.
SECOND = """
import sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, {tests!r})
import paretosurf as ps
from paretosurf.testing import GearKStep
from support import call_cli
from paretosurf.storage._run_folder import FolderInUseError
try:
    ps.surf(GearKStep(), {n}, iterations=50, checkpoint=sys.argv[1], resume=True)
except FolderInUseError as exc:
    print("refused:", exc, flush=True)
else:
    print("ran beside the first run", flush=True)
"""


def in_other_process(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


def touch_the_lock_file(folder: Path, where: Path) -> None:
    """What a user's callback may do with a run folder: read its files (the lock file among
    them) and back it up."""
    for path in sorted(folder.iterdir()):
        if path.is_file():
            path.read_bytes()
    with open(folder / "run.lock") as fh:
        fh.read()
    shutil.copytree(folder, where)


# ---------------------------------------------------------------------------- in-process
def test_a_file_lock_outlives_reads_and_copies_of_its_file(tmp_path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    lock = FileLock(folder / "run.lock", what="the folder")
    with lock:
        assert in_other_process(PROBE, str(folder / "run.lock")) == "held"
        touch_the_lock_file(folder, tmp_path / "backup")
        assert lock.held
        assert in_other_process(PROBE, str(folder / "run.lock")) == "held"
    assert in_other_process(PROBE, str(folder / "run.lock")) == "free"


def test_a_held_run_folder_stays_held_when_it_is_read_and_copied(tmp_path) -> None:
    folder = tmp_path / "run"
    with RunFolder(folder) as rf:
        rf.create({"method": "surf", "settings": {}})
        touch_the_lock_file(folder, tmp_path / "backup")
        out = in_other_process(
            "import sys\nfrom paretosurf.storage._run_folder import RunFolder, FolderInUseError\n"
            "try:\n    RunFolder(sys.argv[1]).acquire()\n"
            "except FolderInUseError as exc:\n    print('refused:', exc)\n"
            "else:\n    print('acquired')\n",
            str(folder),
        )
        assert out.startswith("refused:") and f"process {os.getpid()} on host" in out, out


def test_another_open_file_of_this_process_cannot_take_a_held_lock(tmp_path) -> None:
    """Within the process the registry keeps every lock (try_lock of a held path: None),
    and a second open file of the lock file conflicts with the first, as another process
    would (where lockf would have granted it)."""
    import fcntl

    path = tmp_path / "x.lock"
    with FileLock(path, what="X"):
        assert try_lock(path) is None
        fd = os.open(path, os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    fd2 = try_lock(path)
    assert fd2 is not None
    unlock(fd2)


# ---------------------------------------------------------------------------- a real run
def test_a_run_whose_callback_backs_its_folder_up_refuses_a_second_process(tmp_path) -> None:
    """A callback copies the folder after every round; at the second round a second process
    resumes the same folder, as a scheduler restarting the job would: it is refused, and the
    first run ends whole."""
    folder = tmp_path / "run"
    second = SECOND.format(tests=str(TESTS), n=N)
    seen: list[str] = []

    def back_up(record: ps.IterationRecord) -> None:
        touch_the_lock_file(folder, tmp_path / f"backup-{record.iteration}")
        if record.iteration == 1:
            seen.append(in_other_process(second, str(folder)))

    res = ps.surf(
        GearKStep(), N, iterations=4, checkpoint=folder, callback=back_up, checkpoint_period=0
    )
    assert len(seen) == 1 and seen[0].startswith("refused:"), seen
    assert f"process {os.getpid()} on host" in seen[0]
    loaded = ps.Result.load(folder)
    assert len(loaded.history) == len(res.history) == 4
    assert loaded.n_solves == res.n_solves
    solves = RunFolder(folder).solves()
    assert len(solves) == res.n_solves  # no second run's attempts in the log


def test_the_command_line_refuses_a_folder_whose_run_backs_itself_up(
    tmp_path, monkeypatch, capsys
) -> None:
    """``paretosurf run`` whose folder is backed up after every checkpoint (here by a wrapped
    ``save_state``), and the same command with ``--resume`` started meanwhile in another
    process: refused, naming the first."""
    folder = tmp_path / "run"
    argv = ["run", "gear", "--no-plots", "--iterations", "3", "--checkpoint-period", "0"]
    argv += ["--checkpoint", str(folder)]
    seen: list[subprocess.CompletedProcess[str]] = []
    save_state = RunFolder.save_state

    def save_and_back_up(self: RunFolder, *args: Any, **kwargs: Any) -> Path:
        path = save_state(self, *args, **kwargs)
        touch_the_lock_file(folder, tmp_path / f"backup-{self._seq}")
        if not seen:
            seen.append(
                subprocess.run(
                    [sys.executable, "-m", "paretosurf", *argv, "--resume"],
                    capture_output=True,
                    text=True,
                    env=ENV,
                    timeout=120,
                    cwd=tmp_path,
                )
            )
        return path

    monkeypatch.setattr(RunFolder, "save_state", save_and_back_up)
    assert call_cli(argv, capsys)[0] == 0
    (done,) = seen
    assert done.returncode == 2, done.stderr[-3000:]
    assert f"is in use by process {os.getpid()}" in done.stderr, done.stderr[-3000:]
    assert len(ps.Result.load(folder).history) == 3


# ---------------------------------------------------------------------------- forked children
#: ``python -c FORKER FOLDER READY``: takes the run folder, forks a child that lives on (and
#: tries the lock itself), then waits to be killed.
FORKER = """
import json, os, sys, time
from pathlib import Path
from paretosurf.storage._run_folder import FolderInUseError, RunFolder
folder, ready = sys.argv[1], Path(sys.argv[2])
rf = RunFolder(folder)
rf.acquire()
pid = os.fork()
if pid == 0:
    child = RunFolder(folder)
    try:
        child.acquire()
        verdict = "the child took it"
    except FolderInUseError:
        verdict = "refused"
    os.close(os.open(os.path.join(folder, "run.lock"), os.O_RDONLY))
    ready.write_text(json.dumps({"pid": os.getpid(), "verdict": verdict, "held": rf._lock.held}))
    time.sleep(120)
    os._exit(0)
time.sleep(120)
"""


@contextlib.contextmanager
def forker(folder: Path, ready: Path) -> Iterator[tuple[subprocess.Popen[str], list[int]]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", FORKER, str(folder), str(ready)],
        env=ENV,
        text=True,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    children: list[int] = []
    try:
        yield proc, children
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        for pid in children:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        proc.wait(timeout=60)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (not yet reaped by its new parent) is gone too
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return True


def test_a_forked_child_that_outlives_its_killed_parent_holds_no_lock(tmp_path) -> None:
    folder, ready = tmp_path / "run", tmp_path / "ready"
    with forker(folder, ready) as (proc, children):
        deadline = time.monotonic() + 120
        while not ready.exists() or not ready.read_text():
            assert proc.poll() is None, proc.communicate()[1][-3000:]
            assert time.monotonic() < deadline
            time.sleep(0.01)
        child = json.loads(ready.read_text())
        pid = child["pid"]
        children.append(pid)
        with pytest.raises(FolderInUseError, match=f"in use by process {proc.pid} "):
            RunFolder(folder).acquire()
        os.kill(proc.pid, signal.SIGKILL)  # the parent only: its child lives on
        proc.wait(timeout=60)
        assert alive(pid)
        rf = RunFolder(folder)
        rf.acquire()  # free: the child's copy of the descriptor was closed at the fork
        try:
            assert json.loads((folder / "run.lock").read_text())["pid"] == os.getpid()
        finally:
            rf.release()
    # and in the child, the parent's lock was not the child's, and still the parent's
    assert child["verdict"] == "refused" and child["held"] is False, child


def test_a_lock_taken_with_try_lock_is_not_kept_by_a_forked_child(tmp_path) -> None:
    path = tmp_path / "x.lock"
    fd = try_lock(path)
    assert fd is not None
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        time.sleep(30)
        os._exit(0)
    try:
        unlock(fd)  # the parent lets go while the child lives
        assert in_other_process(PROBE, str(path)) == "free"
        again = FileLock(path, what="X")
        with again:
            assert again.held
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def test_a_program_started_while_the_lock_is_held_does_not_keep_it(tmp_path) -> None:
    path = tmp_path / "x.lock"
    lock = FileLock(path, what="X")
    lock.acquire()
    child = subprocess.Popen(["sleep", "60"], close_fds=False)
    try:
        assert in_other_process(PROBE, str(path)) == "held"
        lock.release()
        assert path.exists() and child.poll() is None
        assert in_other_process(PROBE, str(path)) == "free"
    finally:
        lock.release()
        child.kill()
        child.wait()


def test_a_lock_is_refused_by_a_second_file_lock_object_in_another_thread(tmp_path) -> None:
    """(The registry's thread rule, unchanged.)"""
    import threading

    path = tmp_path / "x.lock"
    seen: list[str] = []
    with FileLock(path, what="X"):

        def other() -> None:
            try:
                FileLock(path, what="X").acquire()
                seen.append("acquired")
            except LockedError as exc:
                seen.append(str(exc))

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert seen == [f"X is in use by another thread of this process (pid {os.getpid()})"]
