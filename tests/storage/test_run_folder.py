"""Run folders as a small database: one writer, commits that never overwrite the last complete
state, every file naming its run, only the run's own files touched, and loading that imports
nothing a file names.

(The fault-injection suite, SIGKILLs inside every write and full disks, is
``test_run_folder_faults.py``.)"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import threading
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.storage._files import CheckpointError
from paretosurf.storage._locking import FileLock, LockedError
from paretosurf.storage._run_folder import FolderInUseError, RunFolder
from paretosurf.testing import GearKStep, Interrupt, interrupt_after

N = 5


def same_points(a: ps.Result, b: ps.Result) -> None:
    np.testing.assert_array_equal(a.weights, b.weights)
    np.testing.assert_array_equal(a.points, b.points)
    assert (a.n_solves, a.n_steps, len(a.history)) == (b.n_solves, b.n_steps, len(b.history))
    for ra, rb in zip(a.history, b.history, strict=True):
        np.testing.assert_array_equal(ra.points, rb.points)


def read_state(path: Path) -> tuple[dict[str, Any], bytes]:
    """A state file's header and arrays (its layout: magic, CRC, length, header, arrays)."""
    data = path.read_bytes()
    magic = b"PARETOSURF-STATE\n"
    body = data[len(magic) + 12 :]
    head = int.from_bytes(body[:8], "little")
    return json.loads(body[8 : 8 + head]), body[8 + head :]


def write_state(path: Path, header: dict[str, Any], blob: bytes) -> None:
    """A state file with ``header`` and a valid CRC (only its content is at fault)."""
    text = json.dumps(header).encode()
    body = len(text).to_bytes(8, "little") + text + blob
    path.write_bytes(
        b"PARETOSURF-STATE\n"
        + zlib.crc32(body).to_bytes(4, "little")
        + len(body).to_bytes(8, "little")
        + body
    )


def newest_state(folder: Path) -> Path:
    """The state file holding the newest checkpoint."""
    names = [folder / n for n in ("state.0", "state.1") if (folder / n).exists()]
    return max(names, key=lambda p: read_state(p)[0]["seq"])


# ---------------------------------------------------------------------------- one writer
def test_a_second_thread_is_refused_and_the_lock_is_released_after_the_run(tmp_path) -> None:
    errors: list[BaseException] = []

    def second(record: ps.IterationRecord) -> None:
        if record.iteration == 0:

            def other() -> None:
                try:
                    ps.surf(GearKStep(), N, iterations=2, checkpoint=tmp_path, resume=True)
                except BaseException as exc:
                    errors.append(exc)

            thread = threading.Thread(target=other)
            thread.start()
            thread.join()

    ps.surf(GearKStep(), N, iterations=3, checkpoint=tmp_path, callback=second)
    assert len(errors) == 1 and isinstance(errors[0], FolderInUseError)
    assert "another thread of this process" in str(errors[0])
    # released: the same call now continues the run
    assert len(ps.surf(GearKStep(), N, iterations=4, checkpoint=tmp_path, resume=True).history) == 4


def test_a_second_process_is_refused_naming_the_holder(tmp_path) -> None:
    script = tmp_path / "hold.py"
    folder = tmp_path / "run"
    script.write_text(
        "import sys, time\n"
        "from paretosurf.storage._run_folder import RunFolder\n"
        "f = RunFolder(sys.argv[1]); f.acquire(); print('held', flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, str(script), str(folder)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        for options in ({"resume": True}, {"overwrite": True}, {}):
            with pytest.raises(FolderInUseError, match=rf"in use by process {proc.pid} on host"):
                ps.surf(GearKStep(), N, iterations=2, checkpoint=folder, **options)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    # the kernel dropped the lock with the process: the folder is free
    assert len(ps.surf(GearKStep(), N, iterations=2, checkpoint=folder).history) == 2


def test_the_lock_is_reentrant_for_its_thread_only(tmp_path) -> None:
    lock = FileLock(tmp_path / "x.lock", what="X")
    with lock:
        with lock:
            assert lock.depth == 2
        assert lock.held
        seen: list[str] = []
        thread = threading.Thread(
            target=lambda: seen.append(_refusal(FileLock(tmp_path / "x.lock", what="X")))
        )
        thread.start()
        thread.join()
        assert seen == [f"X is in use by another thread of this process (pid {os.getpid()})"]
    assert not lock.held


def _refusal(lock: FileLock) -> str:
    try:
        lock.acquire()
    except LockedError as exc:
        return str(exc)
    lock.release()
    return "acquired"


# ---------------------------------------------------------------------------- commits
def test_consecutive_checkpoints_never_overwrite_the_newest_state(tmp_path) -> None:
    """Each checkpoint replaces the older state file: after every round the other file holds
    the state of the round before."""
    pairs: list[tuple[int, int]] = []

    def seen(record: ps.IterationRecord) -> None:
        rounds = sorted(
            read_state(tmp_path / n)[0]["n_rounds"]
            for n in ("state.0", "state.1")
            if (tmp_path / n).exists()
        )
        if len(rounds) == 2:
            pairs.append((rounds[0], rounds[1]))

    ps.surf(GearKStep(), N, iterations=7, checkpoint=tmp_path, callback=seen, checkpoint_period=0)
    assert pairs == [(r - 1, r) for r in range(2, 8)]


def test_checkpoints_a_few_rounds_apart_alternate(tmp_path, monkeypatch) -> None:
    from paretosurf.loop import _driver as driver
    from paretosurf.loop._checkpointing import Checkpointer

    saved: list[int] = []
    original = driver._Runner.checkpoint

    def every_second(self: Any, final: Any = None) -> None:
        original(self, final)
        saved.append(self.checkpointer.saved_rounds)

    monkeypatch.setattr(driver._Runner, "checkpoint", every_second)
    headers: list[tuple[str, int, int]] = []
    ps.surf(
        GearKStep(),
        N,
        iterations=6,
        checkpoint=tmp_path,
        callback=lambda r: (
            headers.extend(
                (n, read_state(tmp_path / n)[0]["seq"], read_state(tmp_path / n)[0]["n_rounds"])
                for n in ("state.0", "state.1")
                if (tmp_path / n).exists()
            )
            or None
        ),
        checkpoint_period=Checkpointer(every=2),
    )
    assert saved[:3] == [2, 4, 6]  # (then the final checkpoint, round 6 again)
    newest = {}
    for name, seq, rounds in headers:
        newest[name] = (seq, rounds)
    # state.0 took checkpoint 1 (round 2), state.1 checkpoint 2 (round 4), state.0 the third
    assert newest["state.1"][1] == 4 and newest["state.0"][1] == 6


def test_deleted_state_files_are_refused_not_started_again(tmp_path) -> None:
    ps.surf(GearKStep(), N, iterations=3, checkpoint=tmp_path)
    history = (tmp_path / "history.jsonl").read_bytes()
    for name in ("state.0", "state.1"):
        (tmp_path / name).unlink(missing_ok=True)
    for call in (
        lambda: ps.surf(GearKStep(), N, iterations=5, checkpoint=tmp_path, resume=True),
        lambda: ps.Result.load(tmp_path),
    ):
        with pytest.raises(CheckpointError, match=r"state files .* are gone"):
            call()
    assert (tmp_path / "history.jsonl").read_bytes() == history  # nothing truncated


def test_a_state_file_of_another_run_is_refused_naming_it(tmp_path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    ps.surf(GearKStep(), N, iterations=3, checkpoint=a, checkpoint_period=0)
    ps.surf(GearKStep(), N, iterations=4, checkpoint=b, checkpoint_period=0)  # another run
    shutil.copy(b / "state.1", a / "state.1")
    with pytest.raises(CheckpointError, match=r"state\.1 belongs to another run"):
        ps.surf(GearKStep(), N, iterations=5, checkpoint=a, resume=True)
    with pytest.raises(CheckpointError, match=r"delete it to continue from state\.0"):
        ps.Result.load(a)
    (a / "state.1").unlink()
    shutil.copy(b / "history.jsonl", a / "history.jsonl")
    with pytest.raises(CheckpointError, match=r"history\.jsonl belongs to another run"):
        ps.surf(GearKStep(), N, iterations=5, checkpoint=a, resume=True)


# ---------------------------------------------------------------------------- own files only
def test_overwrite_deletes_exactly_the_runs_files(tmp_path) -> None:
    mine = {"notes.txt": b"mine", "results.json": b"{}", "mine/data.bin": b"\x00\x01"}
    for name, data in mine.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(data)
    (tmp_path / "states").mkdir()  # a user's folder named as the run's state folders
    (tmp_path / "states" / "x").write_text("x")
    with pytest.raises(FileExistsError, match="holds states, named as a run's own files"):
        ps.surf(GearKStep(), N, iterations=2, checkpoint=tmp_path)
    shutil.rmtree(tmp_path / "states")
    first = ps.surf(GearKStep(), N, iterations=2, checkpoint=tmp_path, checkpoint_period=0)
    manifest = json.loads((tmp_path / "run.json").read_text())
    assert set(manifest["files"]) == {
        "run.json",
        "run.lock",
        "history.jsonl",
        "rounds.bin",
        "solves.jsonl",
        "state.0",
        "state.1",
    }
    second = ps.surf(GearKStep(steps=4), N, iterations=2, checkpoint=tmp_path, overwrite=True)
    assert second.n_solves == first.n_solves
    assert json.loads((tmp_path / "run.json").read_text())["run_id"] != manifest["run_id"]
    for name, data in mine.items():
        assert (tmp_path / name).read_bytes() == data
    RunFolder(tmp_path).clear()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "notes.txt", "results.json"]


def test_a_users_lock_file_is_never_written_over(tmp_path) -> None:
    (tmp_path / "run.lock").write_text("my own notes about locks")
    with pytest.raises(CheckpointError, match=r"run\.lock that paretosurf did not write"):
        ps.surf(GearKStep(), N, iterations=2, checkpoint=tmp_path)
    assert (tmp_path / "run.lock").read_text() == "my own notes about locks"


def test_a_failed_start_leaves_no_folder_behind(tmp_path) -> None:
    folder = tmp_path / "new" / "run"
    with pytest.raises(TypeError, match="init_states must be a sequence"):
        ps.surf(GearKStep(), N, iterations=2, checkpoint=folder, init_states=3.0)
    assert not folder.exists()


# ---------------------------------------------------------------------------- state folders
class FolderSolver(GearKStep):
    """GearKStep with its states in folders (one .npy each)."""

    def solve(self, w: float, state: Any) -> ps.Solution:
        return super().solve(w, state)

    def save_state(self, state: float, folder: Path) -> None:
        np.save(folder / "x.npy", np.array([state]))

    def load_state(self, folder: Path) -> float:
        return float(np.load(folder / "x.npy")[0])


def test_the_state_before_the_newest_names_only_folders_that_exist(tmp_path) -> None:
    """Each state file names folders that are still there, so a damaged newest state falls
    back to the one before and resumes."""
    full = ps.surf(GearKStep(), N, iterations=6)
    checked: list[int] = []

    def check(record: ps.IterationRecord) -> None:
        for name in ("state.0", "state.1"):
            if (tmp_path / name).exists():
                header, _ = read_state(tmp_path / name)
                for entry in header["pool"]["states"]["entries"].values():
                    if "folder" in entry:
                        assert (tmp_path / entry["folder"]).is_dir(), (name, entry)
                        checked.append(record.iteration)

    with pytest.raises(Interrupt):
        ps.surf(
            FolderSolver(),
            N,
            iterations=6,
            checkpoint=tmp_path,
            checkpoint_period=0,
            callback=lambda r: (check(r), interrupt_after(4)(r)),
        )
    assert checked
    newest = newest_state(tmp_path)
    data = newest.read_bytes()
    newest.write_bytes(data[:-10])  # damaged on the disk
    with pytest.warns(UserWarning, match="damaged"):
        resumed = ps.surf(FolderSolver(), N, iterations=6, checkpoint=tmp_path, resume=True)
    same_points(resumed, full)


# ---------------------------------------------------------------------------- loading
def test_loading_imports_no_module_a_file_names(tmp_path, monkeypatch) -> None:
    ps.surf(GearKStep(), N, iterations=2, checkpoint=tmp_path)
    newest = newest_state(tmp_path)
    header, blob = read_state(newest)
    entries = header["pool"]["states"]["entries"]
    key = next(iter(entries))
    marker = tmp_path / "imported"
    (tmp_path / "evil_state_module.py").write_text(
        f"open({str(marker)!r}, 'w').write('imported')\n"
        "import dataclasses\n@dataclasses.dataclass\nclass S:\n    x: float = 0.0\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    entries[key] = {"dataclass": "evil_state_module:S", "fields": {"x": {"value": 1.0}}}
    write_state(newest, header, blob)
    for call in (
        lambda: ps.Result.load(tmp_path),
        lambda: ps.surf(GearKStep(), N, iterations=3, checkpoint=tmp_path, resume=True),
    ):
        with pytest.raises(
            CheckpointError,
            match=r"evil_state_module:S, which paretosurf "
            r"does not import",
        ):
            call()
    assert not marker.exists() and "evil_state_module" not in sys.modules


@pytest.mark.parametrize("folder", ["/etc", "../outside", "states/../../outside"])
def test_state_folders_outside_the_run_folder_are_refused(tmp_path, folder: str) -> None:
    run = tmp_path / "run"
    ps.surf(FolderSolver(), N, iterations=2, checkpoint=run)
    newest = newest_state(run)
    header, blob = read_state(newest)
    entries = header["pool"]["states"]["entries"]
    key = next(k for k, v in entries.items() if "folder" in v)
    entries[key] = {"folder": folder, "relative": not folder.startswith("/")}
    write_state(newest, header, blob)
    with pytest.raises(CheckpointError, match=r"outside the run folder|leads out of the run"):
        ps.Result.load(run)


@ps.storage.register_state_class
@dataclasses.dataclass
class Registered:
    x: np.ndarray


def test_dataclass_states_of_the_solvers_module_and_registered_ones_resume(tmp_path) -> None:
    class Solver:
        def solve(self, w: float, state: Any) -> ps.Solution:
            x = 0.5 if state is None else float(state.x[0])
            x -= 0.1 * (w * 3 * (x - 1) + (1 - w) * x)
            return ps.Solution([(1 - x) ** 2, x**2], Registered(np.array([x])))

    full = ps.surf(Solver(), N, iterations=4)
    with pytest.raises(Interrupt):
        ps.surf(Solver(), N, iterations=4, checkpoint=tmp_path, callback=interrupt_after(2))
    resumed = ps.surf(Solver(), N, iterations=4, checkpoint=tmp_path, resume=True)
    same_points(resumed, full)
    assert isinstance(resumed.states[0], Registered)


# ---------------------------------------------------------------------------- older folders
def as_version_2(folder: Path) -> None:
    """Rewrite a run folder as paretosurf wrote it before run ids (format version 2)."""
    manifest = json.loads((folder / "run.json").read_text())
    old = {
        k: v
        for k, v in manifest.items()
        if k not in ("run_id", "files", "created", "host", "solver", "notes")
    }
    (folder / "run.json").write_text(json.dumps({**old, "version": 2}))
    for name in ("history.jsonl", "solves.jsonl"):
        lines = (folder / name).read_bytes().split(b"\n", 1)
        (folder / name).write_bytes(lines[1])
    for name in ("state.0", "state.1"):
        if (folder / name).exists():
            header, blob = read_state(folder / name)
            del header["run_id"], header["seq"]
            write_state(folder / name, {**header, "version": 2}, blob)
    (folder / "run.lock").unlink()


def test_a_folder_of_the_previous_format_is_read_and_upgraded_on_resume(tmp_path) -> None:
    full = ps.surf(GearKStep(), N, iterations=5)
    with pytest.raises(Interrupt):
        ps.surf(
            GearKStep(),
            N,
            iterations=5,
            checkpoint=tmp_path,
            checkpoint_period=0,
            callback=interrupt_after(3),
        )
    as_version_2(tmp_path)
    assert len(ps.Result.load(tmp_path).history) == 3
    resumed = ps.surf(GearKStep(), N, iterations=5, checkpoint=tmp_path, resume=True)
    same_points(resumed, full)
    manifest = json.loads((tmp_path / "run.json").read_text())
    assert manifest["version"] == 3 and manifest["upgraded_from"] == 2
    assert "state.0" in manifest["files"] and "run.lock" in manifest["files"]
    assert (
        json.loads((tmp_path / "history.jsonl").read_text().splitlines()[0])["run_id"]
        == manifest["run_id"]
    )
    same_points(ps.Result.load(tmp_path), full)


def test_a_warm_start_folder_elsewhere_is_copied_into_the_run_folder(tmp_path) -> None:
    read: list[Path] = []

    class Recording(FolderSolver):
        def load_state(self, folder: Path) -> float:
            read.append(Path(folder))
            return super().load_state(folder)

    warm = tmp_path / "elsewhere" / "warm"
    warm.mkdir(parents=True)
    FolderSolver().save_state(0.3, warm)
    init = [ps.storage.StateFolder(warm)] * (N + 1)
    full = ps.surf(FolderSolver(), N, iterations=3, init_states=[0.3] * (N + 1))
    run = tmp_path / "run"
    res = ps.surf(Recording(), N, iterations=3, init_states=init, checkpoint=run)
    np.testing.assert_array_equal(res.points, full.points)
    assert read and all(p.is_relative_to(run) for p in read)
    assert (warm / "x.npy").exists()  # the user's folder is left as it was


def test_state_folders_a_killed_run_left_behind_are_removed_on_resume(tmp_path) -> None:
    full = ps.surf(FolderSolver(), N, iterations=4)
    with pytest.raises(Interrupt):
        ps.surf(
            FolderSolver(),
            N,
            iterations=4,
            checkpoint=tmp_path,
            checkpoint_period=0,
            callback=interrupt_after(2),
        )
    # what a kill leaves: a round solved after the last checkpoint, a save cut short
    stray = tmp_path / "states" / "round-000002" / "slot-00"
    stray.mkdir(parents=True)
    half = tmp_path / "states" / "round-000001" / ".slot-03.4242.abcd1234.tmp"
    half.mkdir(parents=True)
    resumed = ps.surf(
        FolderSolver(),
        N,
        iterations=4,
        checkpoint=tmp_path,
        resume=True,
        callback=lambda r: (
            None
            if r.iteration != 2
            else (None if not half.exists() else pytest.fail("stale folder kept"))
        ),
    )
    same_points(resumed, full)
    assert not half.exists()
