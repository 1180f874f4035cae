"""The pieces of the fault-injection suite (``test_run_folder_faults.py``) that its child
processes import too: tiny solvers whose results depend on every warm start they were given,
the runs the suite kills (:data:`CONFIGS`), the faults it injects (:func:`child_job`), a
bit-for-bit fingerprint of results, and the state-file format.

Nothing here imports pytest: a child process imports this module (with ``tests/`` on its
path) and runs :func:`child_job` in a forked process per fault.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import math
import os
import pathlib
import shutil
import signal
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import paretosurf as ps
from paretosurf.loop._checkpointing import Checkpointer
from paretosurf.storage import _run_folder as run_folder

ROOT = math.sqrt(9.0)

#: The environment of a child process in these tests: one BLAS thread, no warnings.
CHILD_ENV = {
    **os.environ,
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "PYTHONWARNINGS": "ignore",
}


@contextlib.contextmanager
def faulty_writes(
    step: Callable[[int, Any, bytes | str, Callable[..., None]], None],
) -> Iterator[None]:
    """In this process: every write of a run folder goes through ``step(call, fhandle, data,
    write)``, ``call`` counting the writes from 0 and ``write`` the real one (a fault raises
    where the test wants it)."""
    original = run_folder._write_bytes
    calls = [0]

    def faulty(fhandle: Any, data: bytes | str) -> None:
        call, calls[0] = calls[0], calls[0] + 1
        step(call, fhandle, data, original)

    run_folder._write_bytes = faulty
    try:
        yield
    finally:
        run_folder._write_bytes = original


def gear_curve(x: float) -> np.ndarray:
    return np.array([(1.0 - x) ** 2, x * x])


def steps(x: float, w: float, k: int, lr: float = 0.15) -> float:
    """``k`` gradient steps on the gear toy's scalarization from ``x`` (inexact: the result
    depends on the warm start, so a resumed run is equal only if every state was restored)."""
    for _ in range(k):
        x -= lr * (w * ROOT * (x - 1) + (1 - w) * x)
    return x


# ---------------------------------------------------------------------------- solvers
class Steps:
    """K steps from the slot's warm start (a float). ``sleep``: seconds per solve (to make a
    run last long enough to be killed at a random moment)."""

    def __init__(self, k: int = 3, sleep: float = 0.0) -> None:
        self.k, self.sleep = k, sleep

    def solve(self, w: float, state: Any) -> ps.Solution:
        if self.sleep:
            time.sleep(self.sleep)
        x = steps(0.5 if state is None else float(state), w, self.k)
        return ps.Solution(gear_curve(x), state=x, info={"steps": self.k})


class BigSteps:
    """K steps whose state is an array of ``size`` float64 values (``size * 8`` bytes), every
    one of which changes the next point: a state restored with one byte wrong gives another
    result."""

    def __init__(self, size: int = 131072, k: int = 3) -> None:
        self.size, self.k = size, k

    def initial(self) -> np.ndarray:
        return np.linspace(0.0, 1.0, self.size)

    def solve(self, w: float, state: Any) -> ps.Solution:
        a = self.initial() if state is None else np.asarray(state, dtype=np.float64)
        x = steps(float(a[0]) if state is not None else 0.5, w, self.k)
        new = np.empty_like(a)
        new[0] = x
        np.multiply(a[1:], 0.5, out=new[1:])
        new[1:] += x
        objectives = gear_curve(x)
        objectives[0] += 1e-9 * float(new[1:].sum()) / self.size
        return ps.Solution(objectives, state=new, info={"steps": self.k})


#: ``(k, how)``: the ``k``-th (0-based) call of :meth:`DiskState.save_state` in this process
#: kills it (``how``: "before" writing, "inside" a file, "after" all files); or raises
#: ``OSError(ENOSPC)`` with ``how="enospc"``. Set by :func:`child_job` or a test.
SAVE_FAULT: tuple[int, str] | None = None
_SAVES = [0]


def kill_me() -> None:
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(60)  # (never reached)


class DiskState(BigSteps):
    """:class:`BigSteps` keeping its states as folders (``save_state``/``load_state``): a
    small ``x.npy`` and the array in ``big.npy``, each written as raw bytes so that a fault
    can cut one short."""

    def __init__(self, size: int = 1024, k: int = 3) -> None:
        super().__init__(size, k)

    def save_state(self, state: np.ndarray, folder: Path) -> None:
        files = []
        for name, value in (("x.npy", np.asarray(state[:1])), ("big.npy", np.asarray(state))):
            buffer = io.BytesIO()
            np.save(buffer, value)
            files.append((name, buffer.getvalue()))
        call, _SAVES[0] = _SAVES[0], _SAVES[0] + 1
        fault = SAVE_FAULT if SAVE_FAULT is not None and SAVE_FAULT[0] == call else None
        if fault is not None and fault[1] == "before":
            kill_me()
        for i, (name, data) in enumerate(files):
            with open(Path(folder) / name, "wb") as fh:
                if fault is not None and i == 1 and fault[1] in ("inside", "enospc"):
                    fh.write(data[: len(data) // 2])
                    fh.flush()
                    if fault[1] == "enospc":
                        raise OSError(errno.ENOSPC, "No space left on device")
                    kill_me()
                fh.write(data)
        if fault is not None and fault[1] == "after":
            kill_me()

    def load_state(self, folder: Path) -> np.ndarray:
        big = np.load(Path(folder) / "big.npy")
        if float(np.load(Path(folder) / "x.npy")[0]) != float(big[0]):
            raise ValueError(f"{folder}: x.npy and big.npy disagree")
        return big


# ---------------------------------------------------------------------------- the runs
@dataclass(frozen=True)
class Config:
    """One run the suite kills: SURF with ``n`` segments for ``iterations`` rounds."""

    solver: Callable[[], Any]
    n: int = 4
    iterations: int = 4
    alpha: float | str = "auto"
    period: float | str = 0
    #: Keywords of the run's :class:`~paretosurf.loop._checkpointing.Checkpointer` (its schedule's
    #: timings); ``every``: a checkpoint every ``every`` rounds instead (and at the end).
    patches: dict[str, Any] = field(default_factory=dict)
    every: int | None = None

    @property
    def timed(self) -> bool:
        """Whether its checkpoints depend on timings ("auto" as it is): then a faulty run may
        make fewer writes than its dry run counted (a stall brings a checkpoint forward)."""
        return self.period == "auto" and not self.patches and self.every is None


CONFIGS: dict[str, Config] = {
    # a checkpoint after every round
    "p0": Config(Steps, n=4, iterations=4, alpha=0.3, period=0),
    # the default schedule: rounds of a millisecond are saved once, at the end
    "auto": Config(Steps, n=5, iterations=5, period="auto"),
    # the default schedule on a machine that never stalls: saved once, at the end
    "auto-end": Config(Steps, n=5, iterations=5, period="auto", patches={"first_seconds": 1e6}),
    # the default schedule after a first checkpoint that cost nothing: saved after the first
    # round and at the end (the rounds between go in one append)
    "auto-first": Config(
        Steps, n=4, iterations=5, period="auto", patches={"first_seconds": 0.0, "share": 1e-9}
    ),
    # a checkpoint every second round (two rounds per append)
    "every-2": Config(Steps, n=4, iterations=5, every=2),
    # 1 MB per slot (5 MB per state file)
    "big": Config(BigSteps, n=4, iterations=3, period=0),
    # 5 MB per slot (slow tests)
    "big-5mb": Config(lambda: BigSteps(size=655360), n=4, iterations=3, period=0),
    # states in folders, kept in memory between checkpoints (short rounds)
    "disk": Config(DiskState, n=4, iterations=4, period=0),
    # states in folders written as solved, and every write flushed (long rounds)
    "disk-long": Config(DiskState, n=4, iterations=4, period=0, patches={"durable_seconds": 0.0}),
    # states in folders, checkpointed every second round
    "disk-every-2": Config(lambda: DiskState(size=131072), n=4, iterations=5, every=2),
    # another run of the same settings as "p0" (another solver budget), and one of others
    "p0-k4": Config(lambda: Steps(k=4), n=4, iterations=4, alpha=0.3, period=0),
    "p0-n6": Config(Steps, n=6, iterations=4, alpha=0.3, period=0),
    # long enough to be killed at random moments (about 0.5 s of solving or more)
    "slow": Config(lambda: Steps(sleep=0.005), n=6, iterations=20, period=0),
    "slow-auto": Config(lambda: Steps(sleep=0.005), n=6, iterations=20, period="auto"),
    "slow-disk": Config(lambda: SlowDisk(), n=4, iterations=30, period="auto"),
}


class SlowDisk(DiskState):
    """:class:`DiskState` taking 3 ms per solve."""

    def solve(self, w: float, state: Any) -> ps.Solution:
        time.sleep(0.003)
        return super().solve(w, state)


def schedule(config: Config) -> Checkpointer:
    """The run's checkpoint schedule."""
    if config.every is not None:
        return Checkpointer(every=config.every, **config.patches)
    return Checkpointer(config.period, **config.patches)


def run_config(
    name: str,
    folder: str | Path | None,
    *,
    executor: Any = None,
    callback: Any = None,
    **options: Any,
) -> ps.Result:
    """Run the configuration ``name`` (``folder=None``: without a run folder, the truth)."""
    config = CONFIGS[name]
    return ps.surf(
        config.solver(),
        config.n,
        iterations=config.iterations,
        alpha=config.alpha,
        checkpoint=folder,
        executor=executor,
        callback=callback,
        # a schedule needs a run folder to save in (refused without one)
        checkpoint_period="auto" if folder is None else schedule(config),
        **options,
    )


def solver_of(name: str) -> Any:
    return CONFIGS[name].solver()


# ---------------------------------------------------------------------------- bit for bit
def _bytes(value: Any) -> bytes | None:
    return None if value is None else np.ascontiguousarray(value).tobytes()


def _cdf(cdf: Any) -> tuple[bytes | None, ...] | None:
    if cdf is None:
        return None
    return tuple(_bytes(np.asarray(v, dtype=np.float64)) for v in cdf.to_dict().values())


def fingerprint(res: ps.Result, solver: Any = None) -> dict[str, Any]:
    """Everything a resumed run must reproduce to the last bit (not timings): weights,
    points, each record's weights, points, CDF and counters, the final CDF, n_solves,
    n_steps, stop_reason, and the final states (read from their folders with ``solver``)."""
    states = []
    for st in res.states:
        if isinstance(st, ps.storage.StateFolder):
            st = solver.load_state(Path(st.path))
        states.append(_bytes(np.asarray(st, dtype=np.float64)) if st is not None else None)
    return {
        "weights": _bytes(res.weights),
        "points": _bytes(res.points),
        "cdf": _cdf(res.cdf),
        "n_solves": res.n_solves,
        "n_steps": res.n_steps,
        "stop_reason": res.stop_reason,
        "n_rounds": len(res.history),
        "states": states,
        "history": [
            (h.iteration, _bytes(h.weights), _bytes(h.points), _cdf(h.cdf), h.n_solves, h.n_steps)
            for h in res.history
        ],
    }


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """The fields in which two fingerprints differ (round by round for the history)."""
    out = [k for k in a if k != "history" and a[k] != b[k]]
    for i, (ra, rb) in enumerate(zip(a["history"], b["history"], strict=False)):
        if ra != rb:
            names = ("iteration", "weights", "points", "cdf", "n_solves", "n_steps")
            out.append(
                f"history[{i}]."
                + "/".join(n for n, x, y in zip(names, ra, rb, strict=True) if x != y)
            )
    return out


# ---------------------------------------------------------------------------- state files
MAGIC = b"PARETOSURF-STATE\n"


def read_state(path: Path) -> tuple[dict[str, Any], bytes]:
    """A state file's JSON header and raw arrays (magic, CRC32 of the body, the body's length,
    then the body: an 8-byte header length, the header and the arrays)."""
    data = Path(path).read_bytes()
    assert data[: len(MAGIC)] == MAGIC, path
    length = int.from_bytes(data[len(MAGIC) + 4 : len(MAGIC) + 12], "little")
    body = data[len(MAGIC) + 12 : len(MAGIC) + 12 + length]
    head = int.from_bytes(body[:8], "little")
    return json.loads(body[8 : 8 + head]), body[8 + head :]


def write_state(path: Path, header: dict[str, Any], blob: bytes) -> None:
    """A state file holding ``header`` and ``blob`` with a valid CRC (only its content is at
    fault)."""
    text = json.dumps(header).encode()
    body = len(text).to_bytes(8, "little") + text + blob
    Path(path).write_bytes(
        MAGIC + zlib.crc32(body).to_bytes(4, "little") + len(body).to_bytes(8, "little") + body
    )


def newest_state(folder: Path) -> Path:
    names = [Path(folder) / n for n in ("state.0", "state.1") if (Path(folder) / n).exists()]
    return max(names, key=lambda p: read_state(p)[0]["seq"])


# ---------------------------------------------------------------------------- faults
class Counter:
    """Counts the calls of the run folder's ``_write_bytes`` (``writes``, with the file each
    went to) and of the solver's ``save_state`` in this process, for a dry run."""

    def __init__(self) -> None:
        self.writes: list[tuple[str, int]] = []
        self._write = run_folder._write_bytes

    def __enter__(self) -> Counter:
        original = self._write

        def counting(fh: Any, data: bytes | str) -> None:
            self.writes.append((Path(getattr(fh, "name", "?")).name, len(data)))
            original(fh, data)

        run_folder._write_bytes = counting
        _SAVES[0] = 0
        return self

    def __exit__(self, *exc: object) -> None:
        run_folder._write_bytes = self._write

    @property
    def saves(self) -> int:
        return _SAVES[0]


def install_write_fault(k: int, how: str) -> None:
    """Make the ``k``-th (0-based) call of ``_write_bytes`` in this process kill it: before
    writing, after writing half of its data ("inside"), or after writing all of it; or raise
    ``OSError(ENOSPC)`` before writing ("enospc") or after writing half ("enospc-half")."""
    original = run_folder._write_bytes
    calls = [0]

    def faulty(fh: Any, data: bytes | str) -> None:
        call, calls[0] = calls[0], calls[0] + 1
        if call != k:
            original(fh, data)
            return
        if how == "before":
            kill_me()
        if how == "enospc":
            raise OSError(errno.ENOSPC, "No space left on device")
        if how in ("inside", "enospc-half"):
            original(fh, data[: len(data) // 2])
            fh.flush()
            if how == "enospc-half":
                raise OSError(errno.ENOSPC, "No space left on device")
            kill_me()
        original(fh, data)
        fh.flush()
        kill_me()

    run_folder._write_bytes = faulty


def _set_deletes(
    unlink: Callable[..., None], remove: Callable[..., None], rmdir: Callable[..., None]
) -> None:
    """Put ``unlink``/``remove``/``rmdir`` where the library's deletions call them: ``os``, and
    on Python 3.10 pathlib's accessor too (``Path.unlink`` bound ``os.unlink`` when pathlib
    was imported; from 3.11 on it calls ``os.unlink``)."""
    os.unlink, os.remove, os.rmdir = unlink, remove, rmdir
    accessor = getattr(pathlib, "_NormalAccessor", None)
    if accessor is not None:  # pragma: no cover - Python 3.10
        accessor.unlink = staticmethod(unlink)
        accessor.rmdir = staticmethod(rmdir)


def install_delete_fault(k: int) -> None:
    """Make the ``k``-th deletion (``os.unlink``/``os.rmdir``, which ``Path.unlink`` and
    ``shutil.rmtree`` use) in this process kill it before it happens."""
    calls = [0]
    unlink, rmdir = os.unlink, os.rmdir

    def wrap(original: Callable[..., None]) -> Callable[..., None]:
        def faulty(*args: Any, **kwargs: Any) -> None:
            call, calls[0] = calls[0], calls[0] + 1
            if call == k:
                kill_me()
            original(*args, **kwargs)

        return faulty

    _set_deletes(wrap(unlink), wrap(unlink), wrap(rmdir))


def count_deletes() -> tuple[list[int], Callable[[], None]]:
    """Count ``os.unlink``/``os.rmdir`` calls from now on; returns the count and an undo."""
    n = [0]
    unlink, remove, rmdir = os.unlink, os.remove, os.rmdir

    def wrap(original: Callable[..., None]) -> Callable[..., None]:
        def counting(*args: Any, **kwargs: Any) -> None:
            n[0] += 1
            original(*args, **kwargs)

        return counting

    _set_deletes(wrap(unlink), wrap(remove), wrap(rmdir))

    def undo() -> None:
        _set_deletes(unlink, remove, rmdir)

    return n, undo


def child_job(job: dict[str, Any]) -> int:
    """Run one job in this (forked) process: install its fault, then run its configuration
    (``options``: resume, overwrite). Returns 0 if the run ended without the fault firing."""
    global SAVE_FAULT
    fault = job.get("fault") or {}
    target = fault.get("target")
    if target == "write":
        install_write_fault(int(fault["k"]), fault["how"])
    elif target == "save":
        SAVE_FAULT = (int(fault["k"]), fault["how"])
        _SAVES[0] = 0
    elif target == "delete":
        install_delete_fault(int(fault["k"]))
    executor = None
    if job.get("executor") == "processes":
        executor = ps.ProcessExecutor(2)
    run_config(job["config"], job["folder"], executor=executor, **job.get("options", {}))
    return 0


#: The script a test writes to its tmp_path and runs with ``sys.executable``: it imports the
#: library once, then runs each job in a forked process of its own (which the job's fault
#: kills) and prints each one's wait status, one JSON line per job.
CHILD_SCRIPT = """\
import json, os, signal, sys, traceback
sys.path.insert(0, {tests!r})
import warnings
warnings.simplefilter("ignore")
import faults_helpers

jobs = json.loads(open(sys.argv[1]).read())
for job in jobs:
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)       # a group of its own, with the workers it starts
        code = 3
        try:
            code = faults_helpers.child_job(job)
        except BaseException as exc:
            code = 4
            print(json.dumps({{"raised": type(exc).__name__, "message": str(exc)}}),
                  flush=True)
            traceback.print_exc()
            sys.stderr.flush()
        os._exit(code)
    with open(sys.argv[2], "a") as pids:
        pids.write(f"{{pid}}\\n")
    _, status = os.waitpid(pid, 0)
    try:
        os.killpg(pid, signal.SIGKILL)     # workers the killed run left
    except (ProcessLookupError, PermissionError):
        pass
    print(json.dumps({{"status": status}}), flush=True)
"""


def signalled(status: int) -> int | None:
    """The signal that ended a process of wait status ``status`` (``None``: it exited)."""
    return os.WTERMSIG(status) if os.WIFSIGNALED(status) else None


def folder_bytes(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` (by relative path) and its bytes, but the lock file (which
    names whoever last took the folder, even to be refused)."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(Path(folder).rglob("*"))
        if p.is_file() and p.name != "run.lock"
    }


def copy_folder(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    return dst
