"""A run folder's own files only (durable-2): refused runs leave no lock file they made, the
run deletes only its own temporary files (never a user's file of a similar name), and every
error while writing the folder is a ``CheckpointWriteError`` naming the file, the cause and
how to resume.

Before: a refused run left the ``run.lock`` it had made; a user's ``.state.0.1.tmp`` was
deleted when a run started or resumed in its folder; a read-only ``history.jsonl`` gave a
bare ``PermissionError`` without the resume hint.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import signal
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import faults_helpers as fh
import paretosurf as ps
from faults_helpers import CHILD_ENV, faulty_writes
from paretosurf.storage import _locking as locking
from paretosurf.storage import _run_folder as run_folder
from paretosurf.storage._files import CheckpointError
from paretosurf.storage._run_folder import CheckpointWriteError, RunFolder
from paretosurf.testing import GearKStep
from support import call_cli

N = 4
TESTS = Path(__file__).resolve().parents[1]
ENV = CHILD_ENV
GEAR = ["run", "gear", "--no-plots", "--iterations", "2"]


def run(folder: Path, name: str = "p0", **options: Any) -> ps.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fh.run_config(name, folder, **options)


def interrupted(folder: Path, after: int = 2, name: str = "p0") -> Path:
    """``folder`` holding the run ``name`` stopped (by an exception) after ``after`` rounds."""

    def stop(record: ps.IterationRecord) -> None:
        if record.iteration == after - 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), contextlib.redirect_stderr(open(os.devnull, "w")):
        run(folder, name, callback=stop)
    return folder


def dead_pid() -> int:
    """The id of a process that has ended."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def run_id(folder: Path) -> str:
    return json.loads((folder / "run.json").read_text())["run_id"]


# ============================================================================ the lock file
def test_a_run_refused_after_taking_the_folder_leaves_no_lock_file_it_made(tmp_path) -> None:
    folder = tmp_path / "run"
    ps.surf(GearKStep(), N, iterations=2, checkpoint=folder)
    (folder / "run.lock").unlink()  # (a folder copied without it, or a user who tidied up)
    before = sorted(p.name for p in folder.iterdir())
    with pytest.raises(FileExistsError, match="already holds"):
        ps.surf(GearKStep(), N, iterations=2, checkpoint=folder)  # neither resume nor overwrite
    with pytest.raises(ValueError, match="cannot resume"):
        ps.surf(GearKStep(), N + 1, iterations=3, checkpoint=folder, resume=True)
    assert sorted(p.name for p in folder.iterdir()) == before


def test_a_refused_command_leaves_no_lock_file_it_made(tmp_path, capsys) -> None:
    folder = tmp_path / "run"
    assert call_cli([*GEAR, "--checkpoint", str(folder)], capsys)[0] == 0
    manifest = json.loads((folder / "run.json").read_text())
    del manifest["notes"]  # as a run of Python code: the library checks the settings
    (folder / "run.json").write_text(json.dumps(manifest))
    (folder / "run.lock").unlink()
    before = sorted(p.name for p in folder.iterdir())
    status, _, err = call_cli(
        [*GEAR, "--alpha", "0.5", "--checkpoint", str(folder), "--resume"], capsys
    )
    assert status == 2 and "cannot resume" in err
    assert sorted(p.name for p in folder.iterdir()) == before


def test_a_lock_file_that_was_there_stays(tmp_path) -> None:
    folder = tmp_path / "run"
    ps.surf(GearKStep(), N, iterations=2, checkpoint=folder)
    assert (folder / "run.lock").exists()
    with pytest.raises(FileExistsError):
        ps.surf(GearKStep(), N, iterations=2, checkpoint=folder)
    assert (folder / "run.lock").exists()
    assert "run.lock" in json.loads((folder / "run.json").read_text())["files"]


def test_the_lock_file_of_a_holder_is_never_removed_by_a_refused_run(tmp_path) -> None:
    folder = tmp_path / "run"
    hold = (
        "import sys, time\n"
        "from paretosurf.storage._run_folder import RunFolder\n"
        "RunFolder(sys.argv[1]).acquire(); print('held', flush=True); time.sleep(60)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", hold, str(folder)], stdout=subprocess.PIPE, text=True, env=ENV
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        for options in ({}, {"resume": True}, {"overwrite": True}):
            with pytest.raises(run_folder.FolderInUseError, match=f"process {proc.pid} "):
                ps.surf(GearKStep(), N, iterations=2, checkpoint=folder, **options)
        assert json.loads((folder / "run.lock").read_text())["pid"] == proc.pid
        assert sorted(p.name for p in folder.iterdir()) == ["run.lock"]
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("made", [True, False], ids=["new-folder", "users-folder"])
def test_a_full_disk_when_taking_the_folder_leaves_no_empty_lock_file(
    tmp_path, monkeypatch, made
) -> None:
    """The lock file is made, but its record cannot be written (a full disk): the run is
    refused with the full-disk message, and neither the empty lock file nor a folder it
    made is left."""
    folder = tmp_path / "run"
    if not made:
        folder.mkdir()
        (folder / "notes.txt").write_text("mine")

    def full(*args: Any) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "pwrite", full)
    with pytest.raises(CheckpointError) as info:
        ps.surf(GearKStep(), N, iterations=2, checkpoint=folder)
    monkeypatch.undo()
    assert isinstance(info.value, CheckpointWriteError) and info.value.errno == errno.ENOSPC
    assert f"run folder {folder} is full" in str(info.value)
    assert "resume=True" in str(info.value)
    if made:
        assert not folder.exists()
    else:
        assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    assert len(ps.surf(GearKStep(), N, iterations=2, checkpoint=folder).history) == 2


# ============================================================================ temporary files
#: A user's files named like the temporary files of a run (of this version and the last).
def users_files(folder: Path) -> dict[str, bytes]:
    other_run = "0123456789abcdef" * 2
    return {
        ".state.0.1.tmp": b"my state",
        ".history.jsonl.42.tmp": b"my history",
        f".run.json.{os.getpid()}.tmp": b"my manifest",
        ".rounds.bin.7.tmp": b"my rounds",
        ".solves.jsonl.99999.tmp": b"my solves",
        f".state.1.{other_run}.{dead_pid()}.tmp": b"of another run",
    }


def put(folder: Path, files: dict[str, bytes]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)


def check(folder: Path, files: dict[str, bytes], what: str) -> None:
    for name, data in files.items():
        assert (folder / name).exists(), f"{what}: {name} was deleted"
        assert (folder / name).read_bytes() == data, f"{what}: {name} was changed"


def test_users_files_named_like_temporary_files_survive_start_resume_and_overwrite(
    tmp_path,
) -> None:
    folder = tmp_path / "run"
    files = users_files(tmp_path)
    put(folder, files)
    interrupted(folder)
    check(folder, files, "a start")
    run(folder, resume=True)
    check(folder, files, "a resume")
    assert len(ps.Result.load(folder).history) == fh.CONFIGS["p0"].iterations
    run(folder, overwrite=True)
    check(folder, files, "overwrite=True")
    RunFolder(folder).clear()
    check(folder, files, "clear()")


def test_only_the_temporary_files_of_this_run_whose_writer_is_gone_are_deleted(tmp_path) -> None:
    folder = interrupted(tmp_path / "run")
    rid, gone = run_id(folder), dead_pid()
    leftovers = [f".state.0.{rid}.{gone}.tmp", f".history.jsonl.{rid}.{gone}.tmp"]
    kept = {
        f".state.1.{rid}.1.tmp": b"a live process's",  # (pid 1 lives as long as the system)
        f".state.1.{'f' * 32}.{gone}.tmp": b"another run's",
        f".state.1.{rid}.{gone}.tmp.bak": b"not a temporary file",
    }
    put(folder, {name: b"half written" for name in leftovers})
    put(folder, kept)
    run(folder, resume=True)
    assert not [name for name in leftovers if (folder / name).exists()]
    check(folder, kept, "a resume")


def test_a_start_killed_writing_its_first_file_leaves_nothing_behind(tmp_path) -> None:
    """Killed inside the first write of ``run.json``: its temporary file carries a run id
    that no ``run.json`` names yet; the lock file does, and the next start deletes it (and
    nothing of the user's)."""
    folder = tmp_path / "run"
    files = users_files(tmp_path)
    put(folder, files)
    script = (
        "import sys, warnings\n"
        f"sys.path.insert(0, {str(TESTS)!r})\n"
        "warnings.simplefilter('ignore')\n"
        "import faults_helpers\n"
        "faults_helpers.child_job({'config': 'p0', 'folder': sys.argv[1],\n"
        "    'fault': {'target': 'write', 'k': 0, 'how': 'inside'}})\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(folder)], capture_output=True, env=ENV, timeout=120
    )
    assert done.returncode == -signal.SIGKILL, done.stderr[-3000:]
    assert not (folder / "run.json").exists()
    left = [p.name for p in folder.glob(".run.json.*.tmp") if p.name not in files]
    assert len(left) == 1, left
    run(folder, resume=True)
    assert not (folder / left[0]).exists()
    check(folder, files, "the next start")
    assert len(ps.Result.load(folder).history) == fh.CONFIGS["p0"].iterations


def test_result_files_are_written_through_temporary_files_of_their_own(tmp_path) -> None:
    """``save`` writes through a temporary file of a random name, made anew: a user's file
    named like one is neither written over nor deleted, even when the save fails."""
    res = ps.surf(GearKStep(), N, iterations=2)
    theirs = tmp_path / f".report.json.{os.getpid()}.tmp"
    theirs.write_bytes(b"mine")
    res.save(tmp_path / "report")
    assert theirs.read_bytes() == b"mine"
    assert (tmp_path / "report.json").exists() and (tmp_path / "report.npz").exists()
    assert [p.name for p in tmp_path.glob(".*.tmp")] == [theirs.name]


# ============================================================================ write errors
@contextlib.contextmanager
def refusing(k: int, error: int = errno.EACCES) -> Iterator[None]:
    """The ``k``-th write of the run folder (in this process) fails with ``error``, as a
    read-only file would; the other writes go through."""

    def step(call: int, fhandle: Any, data: bytes | str, write: Callable[..., None]) -> None:
        if call == k:
            raise OSError(error, os.strerror(error), getattr(fhandle, "name", None))
        write(fhandle, data)

    with faulty_writes(step):
        yield


def check_write_error(error: BaseException, folder: Path, file: str | None = None) -> None:
    assert isinstance(error, CheckpointWriteError), repr(error)
    assert isinstance(error, CheckpointError) and isinstance(error, OSError)
    assert error.errno == errno.EACCES
    message = str(error)
    assert f"run folder {folder}" in message, message
    assert "Permission denied" in message and "writable" in message, message
    assert "resume=True" in message, message
    if file is not None:
        assert file in message, message


def test_a_write_refused_at_any_point_is_a_checkpoint_write_error_and_resumes(tmp_path) -> None:
    truth = fh.fingerprint(run(tmp_path / "truth"), fh.solver_of("p0"))
    with fh.Counter() as counter:
        run(tmp_path / "dry")
    n = len(counter.writes)
    for k in range(n):
        folder = tmp_path / f"k{k:02d}"
        with refusing(k), pytest.raises(CheckpointError) as info:
            run(folder)
        target = re.sub(r"^\.(.+)\.[0-9a-f]{32}\.[0-9]+\.tmp$", r"\1", counter.writes[k][0])
        check_write_error(info.value, folder, target)
        res = run(folder, resume=True)
        assert not fh.differences(fh.fingerprint(res, fh.solver_of("p0")), truth), k
        assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")], k


def read_only(folder: Path, name: str) -> Any:
    """``open`` of the run folder's module that refuses to write ``folder/name``, as when the
    file is read-only (for root too, whom file modes do not stop)."""
    real = open

    def opener(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if Path(file) == folder / name and any(c in mode for c in "wax+"):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(file))
        return real(file, mode, *args, **kwargs)

    return opener


@pytest.mark.parametrize("name", ["history.jsonl", "rounds.bin", "solves.jsonl"])
def test_a_read_only_log_is_reported_with_the_resume_hint(tmp_path, monkeypatch, name) -> None:
    folder = interrupted(tmp_path / "run")
    monkeypatch.setattr(run_folder, "open", read_only(folder, name), raising=False)
    with pytest.raises(CheckpointError) as info:
        run(folder, resume=True)
    check_write_error(info.value, folder, name)
    monkeypatch.undo()
    assert len(run(folder, resume=True).history) == fh.CONFIGS["p0"].iterations


def modes_are_enforced(where: Path) -> bool:
    """Whether this process is refused a read-only file (root, as a rule, is not)."""
    probe = where / "read-only"
    probe.write_bytes(b"")
    probe.chmod(0o444)
    try:
        with open(probe, "ab"):
            return False
    except PermissionError:
        return True
    finally:
        probe.unlink()


def test_a_really_read_only_history_is_reported_with_the_resume_hint(tmp_path) -> None:
    if not modes_are_enforced(tmp_path):
        pytest.skip("this process writes read-only files (root)")
    folder = interrupted(tmp_path / "run")
    (folder / "history.jsonl").chmod(0o444)
    try:
        with pytest.raises(CheckpointError) as info:
            run(folder, resume=True)
        check_write_error(info.value, folder, "history.jsonl")
    finally:
        (folder / "history.jsonl").chmod(0o644)
    assert len(run(folder, resume=True).history) == fh.CONFIGS["p0"].iterations


def test_a_lock_file_that_cannot_be_made_is_a_checkpoint_write_error(tmp_path, monkeypatch) -> None:
    def refused(path: Path) -> None:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    monkeypatch.setattr(locking, "_open_locked", refused)
    with pytest.raises(CheckpointError) as info:
        ps.surf(GearKStep(), N, iterations=2, checkpoint=tmp_path / "run")
    check_write_error(info.value, tmp_path / "run", "run.lock")


def test_the_command_line_reports_a_read_only_file_with_the_resume_command(
    tmp_path, monkeypatch, capsys
) -> None:
    folder = tmp_path / "run"
    assert call_cli([*GEAR, "--checkpoint", str(folder)], capsys)[0] == 0
    monkeypatch.setattr(run_folder, "open", read_only(folder, "history.jsonl"), raising=False)
    status, _, err = call_cli(
        ["run", "gear", "--no-plots", "--iterations", "3", "--checkpoint", str(folder), "--resume"],
        capsys,
    )
    assert status == 1 and "Traceback" not in err, err
    assert "paretosurf run: error:" in err and "history.jsonl" in err, err
    assert "Permission denied" in err and "--resume" in err, err
