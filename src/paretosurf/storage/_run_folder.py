"""Run folders: the files of one run, kept as a small database that no kill, second process or
foreign file can damage.

A **run folder** (``checkpoint=DIR``) belongs to one run::

    run.json                  the run's id, method, settings and the files it created
    run.lock                  held by the process writing the run (an OS lock)
    history.jsonl             a header naming the run, then one line per completed round: its
                              scalars and where its arrays are in rounds.bin (appended)
    rounds.bin                the rounds' arrays, raw (appended; each round's CRC is in its line)
    solves.jsonl              a header, then one line per solve attempt (appended)
    state.0, state.1          everything needed to continue (the newest and the one before)
    states/round-000012/...   solver states kept as folders (solvers with save_state)

What the folder guarantees:

- **One writer.** A run holds ``run.lock`` (an ``flock`` lock on a descriptor the run keeps
  open, see :mod:`paretosurf.storage`) from before it reads the folder until it returns; a
  second process is refused at once, naming the host and process that hold it. Reading or
  copying the folder meanwhile (a callback backing it up each round) leaves the lock held; the
  kernel releases it when the holder dies, however it dies, and the run's worker processes do
  not keep it. A run that is refused, or that stops before writing anything, leaves no lock
  file that it made.
- **A commit never overwrites the last complete state.** A checkpoint appends the rounds since
  the last one to the logs, then writes the state to a temporary file, flushes it and renames it
  over the *older* of the two state files. A process killed at any moment leaves the newest
  complete state, and the one before it, intact; resuming uses the newest and drops any round
  logged after it. A state names only state folders that outlive it (the run prunes a folder
  once neither state file names it).
- **Every file names its run.** ``run.json`` holds a random run id, and the state files and the
  logs' headers carry it: a file copied in from another run is refused, naming it.
- **Only its own files.** ``run.json`` lists the files the run created; ``overwrite=True``
  deletes exactly those, and a new run refuses a folder holding files of its names that it did
  not create. Other files in the folder are never touched. The run's temporary files are
  named ``.<file>.<run id>.<process id>.tmp``; a run deletes only those of its own run id whose
  process is gone (a killed writer's), never a file of a similar name that is not its own.
- **Clear failures.** Any error while writing the folder (a full disk, a read-only file, a
  folder that was removed) is a :class:`CheckpointWriteError` naming the file, the cause, what
  is kept and how to resume; a folder whose state files were deleted is refused rather than
  started again.

A run killed before its first complete checkpoint has no state file: resuming it starts it
again (its solve log is kept). Folders of the previous format (version 2, without run ids) are
read as they are and upgraded in place when resumed.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import re
import shutil
import socket
import time
import uuid
import warnings
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from numpy.typing import NDArray

from paretosurf._utils.validation import Spelling, python_spelling
from paretosurf.storage._files import (
    FORMAT,
    CheckpointError,
    atomic_write,
    check_format,
    dump_json,
    from_json_floats,
    pack_arrays,
    read_json,
    to_json_floats,
    unpack_arrays,
)
from paretosurf.storage._locking import FileLock, LockedError, holder_of

__all__ = [
    "MANIFEST",
    "CheckpointWriteError",
    "FolderInUseError",
    "RunFolder",
    "SavedRun",
]

#: Format version of run folders (2: before run ids, own-file lists and the lock).
RUN_FOLDER_VERSION = 3

#: The file of a run folder that records its id, method, settings and files.
MANIFEST = "run.json"
LOCK = "run.lock"
_HISTORY = "history.jsonl"
_ROUND_ARRAYS = "rounds.bin"
_SOLVES = "solves.jsonl"
_STATES = "states"
#: The two state files: each checkpoint replaces the older one.
_STATE_FILES = ("state.0", "state.1")
_STATE_MAGIC = b"PARETOSURF-STATE\n"
#: The start of ``rounds.bin``: this tag, the run's id and a newline.
_ROUNDS_MAGIC = b"PARETOSURF-ROUNDS "
#: The names a run of version 2 created (all of them the library's own).
_V2_NAMES = ("run.json", _HISTORY, _ROUND_ARRAYS, _SOLVES, *_STATE_FILES, _STATES)
#: Temporary files of the run's own writes (``.<name>.<run id>.<pid>.tmp``, see
#: :meth:`RunFolder._tag`), left by a killed process.
_TEMPORARY = re.compile(
    r"^\.(run\.json|state\.[01]|history\.jsonl|solves\.jsonl|rounds\.bin)"
    r"\.([0-9a-f]{32})\.([0-9]+)\.tmp$"
)
#: A run id (:func:`uuid.uuid4`, in hexadecimal).
_RUN_ID = re.compile(r"[0-9a-f]{32}")
#: Files of the checkpoints of paretosurf 0.1, recognised so that they are never mixed up.
_LATEST = "LATEST"
_LEGACY = re.compile(r"^iter-\d{6}\.(json|npz)$")
#: What a run's lock file holds besides the holder (tells it from a user's file of that name).
_LOCK_TAG = {"paretosurf": LOCK}
#: ``errno`` values of a write that failed for lack of room.
_NO_ROOM = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC), errno.EFBIG}
#: What to do about a write that failed, by ``errno`` (other than lack of room).
_REMEDIES = {
    errno.EACCES: "make the folder and its files writable for this user (a file of the "
    "run may have been made read-only)",
    errno.EPERM: "make the folder and its files writable for this user (a file of the "
    "run may have been made read-only or immutable)",
    errno.EROFS: "the folder is on a read-only file system: make it writable, or copy the "
    "folder to a writable disk",
    errno.ENOENT: "the folder, or a file of it, was removed or moved while the run wrote "
    "it: put it back",
}


def _keyword(name: str, value: Any) -> str:
    """A setting as a keyword argument passes it: ``name=value``."""
    return f"{name}={value!r}"


class FolderInUseError(LockedError):
    """Another process (or thread) is writing the run folder."""


class CheckpointWriteError(OSError, CheckpointError):
    """A run folder could not be written (a full disk, a read-only file, say): an
    :class:`OSError` of the cause's ``errno`` and a
    :class:`~paretosurf.storage.CheckpointError`, whose message names the folder, the file,
    the cause, what is kept and how to resume (``{resume}``, a field: see
    :class:`~paretosurf._utils.validation.NamesOptions`).

    Made as an :class:`OSError` is, ``(message)`` or ``(errno, message)``, with the options
    the message names as keywords.
    """

    def __init__(self, *args: Any, **options: Any) -> None:
        *code, message = args or ("",)
        OSError.__init__(self, *code, self._name_options(message, options))

    def text(self, spell: Spelling = python_spelling) -> str:
        """The message, its options spelled by ``spell``, after the ``[Errno N]`` that
        ``str(error)`` shows too."""
        message = super().text(spell)
        return message if self.errno is None else f"[Errno {self.errno}] {message}"


@dataclass
class SavedRun:
    """What :meth:`RunFolder.load` read: the manifest, the newest state and the history.

    ``records`` holds one ``(scalars, arrays)`` pair per completed round, in order;
    ``fallback`` the header of the state before the newest (``None`` if there is none), whose
    state folders the run keeps until its next checkpoint.
    """

    manifest: dict[str, Any]
    meta: dict[str, Any]
    arrays: dict[str, NDArray[Any]]
    records: list[tuple[dict[str, Any], dict[str, NDArray[Any]]]]
    fallback: dict[str, Any] | None = None


# ---------------------------------------------------------------------------- lines
#: Every byte a run folder writes goes through this function (one place to reason about, and
#: to inject faults in tests).
def _write_bytes(fh: IO[Any], data: bytes | str) -> None:
    fh.write(data)


def _writer(data: bytes | str) -> Callable[[IO[Any]], None]:
    """A function writing ``data`` to the file it is given (for :func:`atomic_write`)."""
    return lambda fh: _write_bytes(fh, data)


def _json_line(value: Mapping[str, Any]) -> str:
    """One compact JSON line; non-finite floats spelled out only when there are any."""
    try:
        return json.dumps(value, allow_nan=False, separators=(",", ":"))
    except ValueError:
        return json.dumps(to_json_floats(dict(value)), allow_nan=False, separators=(",", ":"))


_SOLVE_KEYS = (
    "round",
    "call",
    "attempt",
    "slot",
    "weight",
    "objectives",
    "seconds",
    "host",
    "pid",
    "error",
    "killed",
    "time",
)

#: A solve-log line of finite floats, as ``%``-format (``%r`` of a float is exact JSON).
_SOLVE_FORMAT = (
    '{"run_id":%s,"round":%d,"call":%d,"attempt":%d,"slot":%d,"weight":%r,"objectives":%s,'
    '"seconds":%r,"host":%s,"pid":%d,"error":%s,"killed":%s,"time":%r}\n'
)


#: The JSON text of the few strings every solve-log line repeats (run id, host), by value.
_JSON_STRINGS: dict[str, str] = {}


def _json_string(text: str) -> str:
    """``json.dumps(text)``, remembered (a solve-log line costs a few microseconds less)."""
    encoded = _JSON_STRINGS.get(text)
    if encoded is None:
        if len(_JSON_STRINGS) >= 256:
            _JSON_STRINGS.clear()
        encoded = _JSON_STRINGS[text] = json.dumps(text)
    return encoded


def _solve_line(line: Mapping[str, Any], run_id: str | None = None) -> str:
    """One line of the solve log, led by the ``run_id`` of the run that made the attempt. A
    run writes one per solve: when the line has exactly the log's keys and finite float
    numbers it is formatted directly, a few times faster than :func:`json.dumps`; anything
    else goes through it."""
    if tuple(line) != _SOLVE_KEYS:
        return _json_line({"run_id": run_id, **line}) + "\n"
    rnd, call, attempt, slot, weight, objectives, seconds, host, pid, error, killed, at = (
        line.values()
    )
    numbers = (weight, seconds, at, *(objectives or ()))
    if not all(type(v) is float for v in numbers) or not math.isfinite(sum(numbers)):
        # a sum is finite only if every term is
        return _json_line({"run_id": run_id, **line}) + "\n"
    objs = "null" if objectives is None else "[" + ",".join(map(repr, objectives)) + "]"
    return _SOLVE_FORMAT % (
        "null" if run_id is None else _json_string(run_id),
        rnd,
        call,
        attempt,
        slot,
        weight,
        objs,
        seconds,
        _json_string(str(host)),
        pid,
        "null" if error is None else json.dumps(error),
        "true" if killed else "false",
        at,
    )


def _header(kind: str, run_id: str) -> bytes:
    """The first line of a log (``rounds.bin``: its first bytes): what it is and which run
    wrote it."""
    if kind == "rounds":
        return _ROUNDS_MAGIC + run_id.encode() + b"\n"
    return (json.dumps({"paretosurf": kind, "run_id": run_id}) + "\n").encode()


#: The end of a history line: the CRC of the line before it (``{...,"line_crc":N}``).
_LINE_CRC = ',"line_crc":'


def _with_crc(line: str) -> str:
    """A JSON object's line with the CRC of its text appended as its last member."""
    return f"{line[:-1]}{_LINE_CRC}{zlib.crc32(line.encode())}}}"


def _check_crc(line: bytes) -> bool | None:
    """Whether a line written by :func:`_with_crc` is intact (``None``: it has no CRC)."""
    at = line.rfind(_LINE_CRC.encode())
    if at < 0:
        return None
    try:
        crc = int(line[at + len(_LINE_CRC) :].rstrip().rstrip(b"}"))
    except ValueError:
        return False
    return zlib.crc32(line[:at] + b"}") == crc


def _parse_header(line: bytes | str) -> dict[str, Any] | None:
    """The header of a log's first line, or ``None`` if the line is not one."""
    try:
        value = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) and "paretosurf" in value else None


def _cut_partial_line(path: Path) -> None:
    """Cut a last line that a killed writer left without its newline."""
    if not path.exists():
        return
    with open(path, "rb+") as fh:
        data = fh.read()
        if data and not data.endswith(b"\n"):
            fh.truncate(data.rfind(b"\n") + 1)


def _gone(pid: int) -> bool:
    """Whether the process ``pid`` of this host has ended (this process counts as gone: a
    temporary file of its own that it finds was left by a write that failed)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, another user's
        return False
    return False


def _fsync_folder(path: Path) -> None:
    """Flush a folder's entries (a rename into it) to the disk, where the platform can."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class RunFolder:
    """The files of one run in ``path`` (see the module docstring for the layout).

    A run takes the folder with :meth:`acquire` (refused if another process holds it) and gives
    it back with :meth:`release`. During a run the log files stay open: a checkpoint costs one
    append to each log and one new state file renamed into place, whatever the number of rounds.

    Examples
    --------
    >>> import tempfile, numpy as np
    >>> from paretosurf.storage._run_folder import RunFolder
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     folder = RunFolder(tmp)
    ...     with folder:                                     # the folder's lock
    ...         folder.create({"method": "surf", "settings": {"n_segments": 4}})
    ...         folder.append_round(0, {"cv": 0.5}, {"weights": np.linspace(0, 1, 5)})
    ...         _ = folder.save_state(1, {"n_solves": 5}, {"x": np.ones(3)})
    ...     saved = folder.load()
    >>> saved.manifest["method"], saved.meta["n_solves"], len(saved.records)
    ('surf', 5, 1)
    >>> saved.records[0][1]["weights"].tolist(), saved.arrays["x"].tolist()
    ([0.0, 0.25, 0.5, 0.75, 1.0], [1.0, 1.0, 1.0])
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise NotADirectoryError(f"checkpoint must be a folder, but {self.path} is a file")
        #: Whether writes are flushed to the disk (``fsync``) before they count as done.
        #: A killed process cannot leave the folder inconsistent either way; a run turns this
        #: off for rounds so short that redoing one costs less than syncing.
        self.durable = True
        self._handles: dict[str, IO[Any]] = {}
        self._lock = FileLock(self.path / LOCK, what=f"the run folder {self.path}")
        self._made_folder = False
        self._manifest: dict[str, Any] | None = None
        #: The state file holding the newest state (the next checkpoint replaces the other),
        #: its checkpoint number and rounds.
        self._newest: str | None = None
        self._seq = 0
        self._saved_rounds = 0
        #: What the folder's last holder recorded in the lock file (before this process took
        #: it), and whether this process has written to the folder since taking it.
        self._previous: dict[str, Any] = {}
        self._wrote = False

    # ------------------------------------------------------------------ the lock
    def acquire(self) -> None:
        """Take the folder for this process (creating it if needed) until :meth:`release`.

        Raises
        ------
        FolderInUseError
            If another process, or another thread of this one, holds it (the message names
            the holder's host and process).
        CheckpointError
            If the folder holds a file named ``run.lock`` that paretosurf did not write.
        CheckpointWriteError
            If the folder or its lock file cannot be made.
        """
        first = not self._lock.held
        with self._write_errors(LOCK):
            if not self.path.is_dir():
                self.path.mkdir(parents=True, exist_ok=True)
                self._made_folder = first
        lock = self.path / LOCK
        previous: dict[str, Any] = {}
        if first and lock.exists() and lock.stat().st_size:
            info = holder_of(lock)
            if info is None or info.get("paretosurf") != LOCK:
                raise CheckpointError(
                    f"{self.path} holds a file {LOCK} that paretosurf did not write; a run "
                    "keeps its lock under that name: use another folder, or move the file"
                )
            previous = info
        try:
            with self._write_errors(LOCK):
                self._lock.acquire(**_LOCK_TAG)
        except LockedError as exc:
            self._unmake_folder(first)
            if isinstance(exc, FolderInUseError):
                raise
            raise FolderInUseError(
                f"{exc}. A run folder is written by one process at a time: wait for that run "
                "to end (or stop it), or use another folder"
            ) from None
        except BaseException:
            self._unmake_folder(first)
            raise
        if first:
            self._previous, self._wrote = previous, False

    def _unmake_folder(self, first: bool) -> None:
        """After a failed first :meth:`acquire`: remove the folder if it made it and it is
        still empty."""
        if first and self._made_folder:
            with contextlib.suppress(OSError):
                self.path.rmdir()  # only if empty
            self._made_folder = False

    def release(self) -> None:
        """Give the folder back. The lock file is removed if the folder holds no run, or if
        this process made it and wrote nothing (a run refused after taking the folder); so
        is the folder itself if this run made it and it is empty."""
        self.close()
        if not self._lock.held:
            return
        last = self._lock.depth == 1
        if last and (not self.holds_run() or (self._lock.created and not self._wrote)):
            # while still held: a process that opened the file meanwhile is refused, or, once
            # it gets the lock, sees the file gone and makes a new one (locking.py)
            with contextlib.suppress(OSError):
                (self.path / LOCK).unlink()
        self._lock.release()
        if last and self._made_folder:
            with contextlib.suppress(OSError):
                self.path.rmdir()  # only if empty
            self._made_folder = False

    def __enter__(self) -> RunFolder:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    # ------------------------------------------------------------------ what is there
    def holds_run(self) -> bool:
        """Whether the folder holds a run (of this or an older version)."""
        if not self.path.is_dir():
            return False
        if any((self.path / name).exists() for name in (MANIFEST, _LATEST, *_STATE_FILES)):
            return True
        return any(_LEGACY.match(p.name) for p in self.path.iterdir())

    def _legacy(self) -> bool:
        """Whether the folder holds a checkpoint of paretosurf 0.1."""
        return (self.path / _LATEST).exists() or any(
            _LEGACY.match(p.name) for p in self.path.iterdir()
        )

    def manifest(self) -> dict[str, Any]:
        """The run's ``run.json``: run id, method, settings, and the files it created."""
        if self._manifest is not None:
            return dict(self._manifest)
        path = self.path / MANIFEST
        if not path.exists() or (self.path / _LATEST).exists():
            if self.path.is_dir() and self._legacy():
                raise CheckpointError(
                    f"{self.path} holds a checkpoint of paretosurf 0.1 (LATEST, iter-*.json), "
                    "which this version neither resumes nor deletes; use another folder, or "
                    "move those files away"
                )
            if self.holds_run():
                raise CheckpointError(
                    f"{self.path} holds a run's state files but not its {MANIFEST}, which "
                    "records the run's method and settings: without it the run can be "
                    "neither resumed nor read; put the file back, or use another folder"
                )
            raise CheckpointError(f"{self.path} holds no run")
        meta = from_json_floats(read_json(path))
        check_format(meta, path, RUN_FOLDER_VERSION)
        version = int(meta.get("version", 0))
        if version >= 3 and not isinstance(meta.get("run_id"), str):
            raise CheckpointError(f"{path} has no run id: it is damaged or was edited")
        self._manifest = dict(meta)
        return dict(meta)

    @property
    def run_id(self) -> str | None:
        """The run's id (``None`` for a folder of version 2 not yet upgraded)."""
        return self.manifest().get("run_id")

    def _files(self) -> list[str]:
        manifest = self.manifest()
        files = manifest.get("files")
        return (
            list(files)
            if isinstance(files, list)
            else [n for n in _V2_NAMES if (self.path / n).exists()]
        )

    def has_state(self) -> bool:
        """Whether a state file is there (a run killed before its first checkpoint has none);
        :meth:`load` checks that it is whole."""
        return any((self.path / name).exists() for name in _STATE_FILES)

    def committed(self) -> bool:
        """Whether the run ever completed a checkpoint (its manifest says so, or a state file
        is there)."""
        return self.has_state() or bool(self.manifest().get("committed"))

    def n_rounds(self) -> int:
        """Rounds saved in the newest valid state (0 if none, or no run)."""
        if not self.holds_run():
            return 0
        found = self._newest_state()
        return 0 if found is None else int(found[0][0]["n_rounds"])

    def describe(self, spell: Callable[[str, Any], str] = _keyword) -> str:
        """A short description of the run in the folder, for messages: its method, its
        settings, each written as ``spell(name, value)`` (default: ``name=value``, as a Python
        call passes it), and its rounds."""
        try:
            manifest = self.manifest()
        except CheckpointError as exc:
            return f"files of a run it cannot read ({exc})"
        try:
            rounds = self.n_rounds()
        except CheckpointError:
            rounds = 0
        settings = ", ".join(spell(k, v) for k, v in manifest.get("settings", {}).items())
        return (
            f"a {manifest.get('label', manifest.get('method'))} run ({settings}) with "
            f"{rounds} round(s) saved"
        )

    # ------------------------------------------------------------------ writing
    @contextlib.contextmanager
    def writing(self, name: str) -> Iterator[None]:
        """Within this context, a write of ``name`` (a file of the folder, or what it is) that
        fails (any :class:`OSError`: a full disk, a read-only file, ...) raises
        :class:`CheckpointWriteError`, naming the folder, the file, the cause, what is kept
        and how to resume."""
        self._wrote = True
        with self._write_errors(name):
            yield

    @contextlib.contextmanager
    def _write_errors(self, name: str) -> Iterator[None]:
        """:meth:`writing`, for work that does not count as writing the run (taking the
        folder)."""
        try:
            yield
        except CheckpointWriteError:
            raise
        except OSError as exc:
            raise self._write_error(name, exc) from exc

    def _write_error(self, name: str, exc: OSError) -> CheckpointWriteError:
        """The error of a failed write of ``name``."""
        kept = self._kept()
        if exc.errno in _NO_ROOM:
            message = (
                f"the disk holding the run folder {self.path} is full "
                f"({exc.strerror}) while writing {name}: {kept}; free space there and run "
                "the same call with {resume} to continue"
            )
        else:
            cause = exc.strerror or str(exc) or "no reason given"
            where = f": {exc.filename}" if exc.filename else ""
            remedy = _REMEDIES.get(exc.errno or 0, "remove the cause")
            message = (
                f"could not write {name} in the run folder {self.path} "
                f"({type(exc).__name__}: {cause}{where}): {kept}; {remedy}, then run the same "
                "call with {resume} to continue"
            )
        if exc.errno is None:
            return CheckpointWriteError(message, resume=True)
        return CheckpointWriteError(exc.errno, message, resume=True)

    def _kept(self) -> str:
        """What a failed write leaves of the run, for messages."""
        if self._newest is not None:
            return (
                f"the run's last complete checkpoint, after round {self._saved_rounds}, is intact"
            )
        try:
            committed = self.holds_run() and self.committed()
        except (CheckpointError, OSError):
            return "the files already in the folder are untouched"
        if committed:
            return "the checkpoints already in the folder are untouched"
        return "no checkpoint of the run was complete yet, so it will start again"

    def _tag(self, run_id: object = None) -> str | None:
        """What the names of the run's temporary files carry: the run's id (``run_id``, or
        the folder's) and this process's id; ``None`` without a run id (a folder of version
        2, or one whose id was edited): :func:`atomic_write` then names them at random."""
        if run_id is None:
            run_id = (self._manifest or {}).get("run_id")
        if isinstance(run_id, str) and _RUN_ID.fullmatch(run_id):
            return f"{run_id}.{os.getpid()}"
        return None

    def _write_manifest(self, manifest: Mapping[str, Any]) -> None:
        text = dump_json(to_json_floats(dict(manifest)))
        with self.writing(MANIFEST):
            atomic_write(
                self.path / MANIFEST,
                _writer(text),
                mode="w",
                sync=True,
                tag=self._tag(manifest.get("run_id")),
            )
        self._manifest = dict(manifest)

    def claim(self, name: str) -> None:
        """Record ``name`` (a file or folder of the run folder) as the run's own in
        ``run.json``, so that ``overwrite`` deletes it and nothing else."""
        manifest = self.manifest()
        files = self._files()
        if name not in files:
            self._write_manifest({**manifest, "files": [*files, name]})

    def create(self, manifest: Mapping[str, Any]) -> None:
        """Start a new run: ``run.json`` (with a new run id) and the logs' headers.

        Raises
        ------
        FileExistsError
            If the folder holds a run, or files named as a run's own that no run created.
        """
        if self.holds_run():
            raise FileExistsError(f"checkpoint folder {self.path} already holds {self.describe()}")
        clash = [n for n in (_HISTORY, _ROUND_ARRAYS, _SOLVES, _STATES) if (self.path / n).exists()]
        if clash:
            raise FileExistsError(
                f"checkpoint folder {self.path} holds {', '.join(clash)}, named as a run's own "
                f"files, but no run ({MANIFEST}): paretosurf writes over no file it did not "
                "create; move them away, or use another folder"
            )
        self.path.mkdir(parents=True, exist_ok=True)
        self._remove_temporary()  # of a start a kill cut short
        run_id = uuid.uuid4().hex
        with self.writing(LOCK):
            # the id is in the lock file before it is in any name: the next holder deletes
            # the temporary files of a start killed before run.json was written
            self._lock.note(run_id=run_id)
        files = [
            MANIFEST,
            *([LOCK] if (self.path / LOCK).exists() else []),
            _HISTORY,
            _ROUND_ARRAYS,
            _SOLVES,
        ]
        self._newest, self._seq, self._saved_rounds = None, 0, 0
        self._write_manifest(
            {
                "format": FORMAT,
                "version": RUN_FOLDER_VERSION,
                "run_id": run_id,
                **manifest,
                "files": files,
                "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "host": socket.gethostname(),
            }
        )
        self._start_logs(run_id)
        self._made_folder = False

    def _start_logs(self, run_id: str, *, solves: bool = True) -> None:
        """Write the logs anew, each holding only its header (``solves``: the solve log too)."""
        self.close()
        logs = [(_HISTORY, "history"), (_ROUND_ARRAYS, "rounds")]
        if solves:
            logs.append((_SOLVES, "solves"))
        for name, kind in logs:
            data = _header(kind, run_id)
            with self.writing(name):
                atomic_write(
                    self.path / name, _writer(data), sync=self.durable, tag=self._tag(run_id)
                )

    def clear(self) -> None:
        """Delete the run's own files (those its ``run.json`` lists; the fixed names of a
        folder of version 2) and nothing else the folder holds. Takes the folder's lock
        meanwhile (refused while another process writes the run)."""
        if not self.path.is_dir():
            return
        with self:
            self._clear()

    def _clear(self) -> None:
        self.close()
        self.manifest()  # raises for a folder whose files cannot be told to be ours
        own = set(self._files())
        for name in sorted(own - {LOCK, MANIFEST}):
            path = self.path / name
            with self.writing(name):
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                elif path.exists() or path.is_symlink():
                    path.unlink()
        self._remove_temporary()
        with self.writing(MANIFEST), contextlib.suppress(FileNotFoundError):
            (self.path / MANIFEST).unlink()  # last: until then the folder names its files
        self._manifest, self._newest, self._seq, self._saved_rounds = None, None, 0, 0

    def _remove_temporary(self) -> None:
        """Delete the temporary files that writers of this run left when killed mid-write:
        those whose name carries the run's id (or the id of the run that the folder's last
        holder was starting, recorded in the lock file) and the id of a process that is gone.
        A file of any other name, a user's ``.state.0.1.tmp`` say, is left alone."""
        ids = {self._previous.get("run_id")}
        with contextlib.suppress(CheckpointError, OSError):
            ids.add(self.manifest().get("run_id"))
        ids.discard(None)
        if not ids:
            return
        for p in self.path.iterdir():
            found = _TEMPORARY.match(p.name)
            if found and found[2] in ids and _gone(int(found[3])):
                with contextlib.suppress(OSError):
                    p.unlink()

    def _handle(self, name: str, mode: str) -> IO[Any]:
        fh = self._handles.get(name)
        if fh is None or fh.closed:
            fh = open(self.path / name, mode)
            self._handles[name] = fh
        return fh

    def close(self) -> None:
        """Close the files a run keeps open (reopened on the next write)."""
        for fh in self._handles.values():
            fh.close()
        self._handles.clear()

    def _append(self, name: str, data: bytes) -> int:
        """Append ``data`` to the file ``name``; returns the offset it starts at."""
        with self.writing(name):
            fh = self._handle(name, "ab")
            at = fh.tell()
            _write_bytes(fh, data)
            fh.flush()
            if self.durable:
                os.fsync(fh.fileno())
        return at

    def append_round(
        self, index: int, scalars: Mapping[str, Any], arrays: Mapping[str, NDArray[Any]]
    ) -> None:
        """Save round ``index``: its arrays appended to ``rounds.bin``, then one more line of
        ``history.jsonl`` with its scalars and where its arrays are (and their CRC)."""
        self.append_rounds(index, [(scalars, arrays)])

    def append_rounds(
        self, first: int, rounds: Sequence[tuple[Mapping[str, Any], Mapping[str, NDArray[Any]]]]
    ) -> None:
        """Save rounds ``first``, ``first + 1``, ... as :meth:`append_round` does, with one
        append to each file."""
        if not rounds:
            return
        with self.writing(_ROUND_ARRAYS):
            at = self._handle(_ROUND_ARRAYS, "ab").tell()
        blobs, lines = [], []
        for offset, (scalars, arrays) in enumerate(rounds):
            blob, index_of = pack_arrays(arrays)
            lines.append(
                _with_crc(
                    _json_line(
                        {
                            **scalars,
                            "round": first + offset,
                            "arrays_at": at,
                            "arrays_size": len(blob),
                            "arrays_crc": zlib.crc32(blob),
                            "arrays_index": index_of,
                        }
                    )
                )
                + "\n"
            )
            blobs.append(blob)
            at += len(blob)
        self._append(_ROUND_ARRAYS, b"".join(blobs))
        self._append(_HISTORY, "".join(lines).encode())

    #: Whether lines were appended to the solve log since it was last flushed to the disk.
    _solves_to_sync = False

    def append_solves(self, lines: Sequence[Mapping[str, Any]]) -> None:
        """Append one line per solve attempt to ``solves.jsonl`` (the run's solve log), each
        led by the run's id: flushed to the operating system at once, so that a process
        killed afterwards loses none of them, and to the disk (``fsync``) by the next
        checkpoint (:meth:`sync_solves`), not here: a run appends after every pass of its
        solves, which a sync each would slow down."""
        if not lines:
            return
        run_id = self.run_id
        data = "".join([_solve_line(line, run_id) for line in lines]).encode()
        with self.writing(_SOLVES):
            fh = self._handle(_SOLVES, "ab")
            self._solves_to_sync = True
            _write_bytes(fh, data)
            fh.flush()

    def sync_solves(self) -> None:
        """Flush the lines appended to the solve log since the last call to the disk
        (``fsync``), when the folder's writes are :attr:`durable` (each checkpoint calls
        this)."""
        if not (self.durable and self._solves_to_sync):
            return
        if (self.path / _SOLVES).exists():
            with self.writing(_SOLVES):
                os.fsync(self._handle(_SOLVES, "ab").fileno())
        self._solves_to_sync = False

    def solves(self) -> list[dict[str, Any]]:
        """The solve log, one dict per attempt in the order they were made, each with the
        ``run_id`` of its run (absent from lines written by earlier versions) and its
        ``round``; a round solved again after a resume appears again. Lines cut short by a
        crash are skipped."""
        path = self.path / _SOLVES
        if not path.exists():
            return []
        out = []
        for line in path.read_text().splitlines():
            try:
                entry = from_json_floats(json.loads(line))
            except json.JSONDecodeError:
                continue
            if isinstance(entry, dict) and "paretosurf" not in entry:
                out.append(entry)
        return out

    def save_state(
        self, n_rounds: int, meta: Mapping[str, Any], arrays: Mapping[str, NDArray[Any]]
    ) -> Path:
        """Save the state after ``n_rounds`` rounds in place of the older state file: written
        to a temporary file, flushed, then renamed, so that a kill at any moment leaves both
        the newest complete state and the one before it intact."""
        blob, index = pack_arrays(arrays)
        header = _json_line(
            {
                "format": FORMAT,
                "version": RUN_FOLDER_VERSION,
                **meta,
                "run_id": self.run_id,
                "seq": self._seq + 1,
                "n_rounds": n_rounds,
                "arrays_index": index,
            }
        ).encode()
        body = len(header).to_bytes(8, "little") + header + blob
        data = (
            _STATE_MAGIC
            + zlib.crc32(body).to_bytes(4, "little")
            + len(body).to_bytes(8, "little")
            + body
        )
        name = _STATE_FILES[1] if self._newest == _STATE_FILES[0] else _STATE_FILES[0]
        self.claim(name)  # before it exists: a run deletes it with its files
        with self.writing(name):
            atomic_write(self.path / name, _writer(data), sync=self.durable, tag=self._tag())
            if self.durable:
                _fsync_folder(self.path)
        self._newest, self._seq, self._saved_rounds = name, self._seq + 1, n_rounds
        if not self.manifest().get("committed"):
            # from now on a folder without state files has lost them: it does not start again
            self._write_manifest({**self.manifest(), "committed": True})
        return self.path / name

    def states_folder(self) -> Path:
        """The folder of the solver states kept as folders (recorded as the run's own first)."""
        if _STATES not in self._files():
            self.claim(_STATES)
        return self.path / _STATES

    # ------------------------------------------------------------------ resuming
    def prepare_resume(self) -> None:
        """Before a run continues: upgrade a folder of version 2, check that the logs are this
        run's (recreating them for a run that never completed a checkpoint), cut a solve-log
        line a killed run left half written, and delete its temporary files."""
        manifest = self.manifest()
        if int(manifest.get("version", 0)) < RUN_FOLDER_VERSION:
            self._upgrade()
        self._remove_temporary()
        committed = self.committed()
        for name, kind in ((_HISTORY, "history"), (_SOLVES, "solves")):
            path = self.path / name
            if not path.exists() and not committed:
                continue
            self._check_header(path, kind)
        if not committed:
            # the run starts again, and so does its history; its solve log keeps every attempt
            self._start_logs(str(self.run_id), solves=not (self.path / _SOLVES).exists())
        with self.writing(_SOLVES):
            _cut_partial_line(self.path / _SOLVES)

    def _check_header(self, path: Path, kind: str) -> None:
        """Refuse ``path`` unless its header names this run."""
        try:
            with open(path, "rb") as fh:
                first = fh.readline()
        except FileNotFoundError:
            raise CheckpointError(
                f"{path} is missing: the run's {kind} was deleted or moved; "
                "put it back, or start again with {overwrite}",
                overwrite=True,
            ) from None
        header = _parse_header(first)
        if header is None or header.get("paretosurf") != kind:
            raise CheckpointError(
                f"{path} does not start with the header of a paretosurf "
                f"{kind}: it is damaged or is not this run's"
            )
        if header.get("run_id") != self.run_id:
            raise CheckpointError(
                f"{path} belongs to another run (run id {header.get('run_id')}; this folder's "
                f"run is {self.run_id}): it was copied or moved here; put this run's own "
                "file back, or start again with {overwrite}",
                overwrite=True,
            )

    def _upgrade(self) -> None:
        """Upgrade a folder of version 2 in place: a run id, the list of its files and the
        logs' headers (``run.json`` is written last, so a kill leaves a folder of version 2
        that upgrades again)."""
        manifest = self.manifest()
        run_id = uuid.uuid4().hex
        with self.writing(LOCK):
            self._lock.note(run_id=run_id)  # (see create)
        for name, kind in ((_HISTORY, "history"), (_SOLVES, "solves")):
            path = self.path / name
            data = path.read_bytes() if path.exists() else b""
            if data and _parse_header(data.split(b"\n", 1)[0]) is not None:
                data = data.split(b"\n", 1)[1] if b"\n" in data else b""
            new = _header(kind, run_id) + data
            with self.writing(name):
                atomic_write(path, _writer(new), sync=True, tag=self._tag(run_id))
        if not (self.path / _ROUND_ARRAYS).exists():
            with self.writing(_ROUND_ARRAYS):
                atomic_write(
                    self.path / _ROUND_ARRAYS, lambda fh: None, sync=True, tag=self._tag(run_id)
                )
        files = [n for n in _V2_NAMES if (self.path / n).exists()]
        files += [n for n in (LOCK, _HISTORY, _ROUND_ARRAYS, _SOLVES) if n not in files]
        self._write_manifest(
            {
                **manifest,
                "version": RUN_FOLDER_VERSION,
                "run_id": run_id,
                "files": files,
                "upgraded_from": int(manifest.get("version", 2)),
                "committed": self.has_state(),
            }
        )

    def truncate_history(self, n_rounds: int) -> None:
        """Keep the first ``n_rounds`` rounds of ``history.jsonl`` and their arrays (drops
        rounds appended after the newest state was saved, e.g. by a run killed in between)."""
        self.close()
        path = self.path / _HISTORY
        if not path.exists():
            return
        end = self._rounds_start()
        with open(path, "rb") as fh:
            offset = 0
            first = fh.readline()
            if _parse_header(first) is not None:
                offset = len(first)
            else:
                fh.seek(0)
            for _ in range(n_rounds):
                line = fh.readline()
                if not line.endswith(b"\n"):
                    raise CheckpointError(f"{path} holds fewer than {n_rounds} rounds")
                offset += len(line)
                record = json.loads(line)
                end = int(record["arrays_at"]) + int(record["arrays_size"])
            size = fh.seek(0, os.SEEK_END)
        if size > offset:
            with self.writing(_HISTORY):
                os.truncate(path, offset)
        arrays = self.path / _ROUND_ARRAYS
        if arrays.exists() and arrays.stat().st_size > end:
            with self.writing(_ROUND_ARRAYS):
                os.truncate(arrays, end)

    # ------------------------------------------------------------------ reading
    def _tagged(self) -> bool:
        """Whether every line and file of the run carries its tags (run id, line CRCs): a run
        started by this version, not one upgraded from version 2."""
        manifest = self.manifest()
        return manifest.get("run_id") is not None and not manifest.get("upgraded_from")

    def _rounds_start(self) -> int:
        """Where the rounds' arrays start in ``rounds.bin`` (after its header)."""
        return len(_header("rounds", str(self.run_id))) if self._tagged() else 0

    def _read_state(self, name: str) -> tuple[dict[str, Any], bytes] | str:
        """The state in ``name`` as ``(header, blob)``, or why it cannot be read."""
        path = self.path / name
        if not path.exists():
            return "missing"
        data = path.read_bytes()
        size = len(_STATE_MAGIC)
        if data[:size] != _STATE_MAGIC or len(data) < size + 12:
            return "not a paretosurf state file"
        crc = int.from_bytes(data[size : size + 4], "little")
        length = int.from_bytes(data[size + 4 : size + 12], "little")
        body = data[size + 12 : size + 12 + length]
        if len(body) != length or zlib.crc32(body) != crc:
            return "damaged (truncated or altered: its CRC does not match)"
        head = int.from_bytes(body[:8], "little")
        try:
            header = from_json_floats(json.loads(body[8 : 8 + head]))
        except (json.JSONDecodeError, UnicodeDecodeError):
            return "damaged (unreadable header)"
        if not isinstance(header, dict) or "n_rounds" not in header:
            return "damaged (unreadable header)"
        check_format(header, path, RUN_FOLDER_VERSION)
        return header, body[8 + head :]

    def _newest_state(self) -> tuple[tuple[dict[str, Any], bytes], dict[str, Any] | None] | None:
        """The valid state with the newest checkpoint, and the header of the other valid one;
        ``None`` for a run that never completed a checkpoint.

        Raises
        ------
        CheckpointError
            If a state file belongs to another run, none is readable, or the run's state
            files are gone.
        """
        run_id = self.run_id
        found = {name: self._read_state(name) for name in _STATE_FILES}
        for name, value in found.items():
            if isinstance(value, str) or value[0].get("run_id") == run_id:
                continue
            if value[0].get("run_id") is None and self.manifest().get("upgraded_from"):
                continue  # written before the folder was upgraded
            other = _STATE_FILES[1 - _STATE_FILES.index(name)]
            raise CheckpointError(
                f"{self.path / name} belongs to another run (run id "
                f"{value[0].get('run_id')}; this folder's run is {run_id}): it was copied or "
                f"moved here; put this run's own file back, or delete it to continue from "
                f"{other}"
            )
        valid = {n: v for n, v in found.items() if not isinstance(v, str)}
        damaged = {n: v for n, v in found.items() if isinstance(v, str) and v != "missing"}
        if not valid:
            if damaged:
                raise CheckpointError(
                    f"{self.path} holds no readable state: "
                    + "; ".join(f"{n} is {why}" for n, why in damaged.items())
                    + "; the run cannot continue from it: restore the files from a backup, "
                    "or start again with {overwrite}",
                    overwrite=True,
                )
            if self.manifest().get("committed"):
                raise CheckpointError(
                    f"{self.path} holds the history of a run whose state files "
                    f"({', '.join(_STATE_FILES)}) are gone (deleted or moved): the run cannot "
                    "continue without them; put them back, or start again with "
                    "{overwrite}",
                    overwrite=True,
                )
            return None

        def order(name: str) -> tuple[int, int]:
            header = valid[name][0]
            return int(header.get("seq", -1)), int(header["n_rounds"])

        names = sorted(valid, key=order)
        newest = names[-1]
        for name, why in damaged.items():
            warnings.warn(
                f"{self.path / name} is {why}; using the state after round "
                f"{valid[newest][0]['n_rounds']} in {newest}",
                stacklevel=3,
            )
        self._newest = newest
        self._seq = int(valid[newest][0].get("seq", 0))
        self._saved_rounds = int(valid[newest][0]["n_rounds"])
        fallback = valid[names[0]][0] if len(names) > 1 else None
        return valid[newest], fallback

    def load(self) -> SavedRun:
        """The manifest, the newest complete state and the history up to it.

        Raises
        ------
        CheckpointError
            If a file is missing, corrupt, truncated or of another run, or the folder holds no
            saved state.
        """
        manifest = self.manifest()
        found = self._newest_state()
        if found is None:
            raise CheckpointError(
                f"{self.path} holds a run but no saved state: it was "
                "stopped before its first checkpoint"
            )
        (header, blob), fallback = found
        n_rounds = int(header["n_rounds"])
        assert self._newest is not None
        arrays = unpack_arrays(blob, header.pop("arrays_index"), self.path / self._newest)
        history = self.path / _HISTORY
        try:
            lines = history.read_bytes().split(b"\n")
        except FileNotFoundError:
            lines = []
        first_line = 1
        if lines and (head := _parse_header(lines[0])) is not None:
            first_line = 2
            if head.get("run_id") != self.run_id:
                raise CheckpointError(
                    f"{history} belongs to another run (run id {head.get('run_id')}; this "
                    f"folder's run is {self.run_id}): it was copied or moved here; put this "
                    "run's own file back, or start again with {overwrite}",
                    overwrite=True,
                )
            lines = lines[1:]
        elif self.run_id is not None and not manifest.get("upgraded_from"):
            raise CheckpointError(
                f"{history} is missing or does not start with this run's "
                "header: it was deleted, replaced or damaged"
            )
        lines = [line for line in lines[:n_rounds] if line]
        if len(lines) < n_rounds:
            raise CheckpointError(
                f"{history} holds {len(lines)} rounds but the saved state needs {n_rounds}"
            )
        round_path = self.path / _ROUND_ARRAYS
        try:
            data = round_path.read_bytes() if n_rounds or self._tagged() else b""
        except FileNotFoundError:
            raise CheckpointError(
                f"{round_path} is missing: the rounds' arrays were deleted "
                "or moved; put the file back"
            ) from None
        if self._tagged():
            tag = _header("rounds", str(self.run_id))
            if data[: len(tag)] != tag:
                other = (
                    data[len(_ROUNDS_MAGIC) : len(tag) - 1].decode(errors="replace")
                    if data.startswith(_ROUNDS_MAGIC)
                    else None
                )
                raise CheckpointError(
                    f"{round_path} belongs to another run (run id {other}; this folder's run "
                    f"is {self.run_id}): it was copied or moved here; put this run's own file "
                    "back, or start again with {overwrite}"
                    if other
                    else f"{round_path} does not start with this run's header: it is damaged or is "
                    "not this run's; put this run's own file back, or start again with "
                    "{overwrite}",
                    overwrite=True,
                )
        records = []
        for index, line in enumerate(lines):
            number = index + first_line
            intact = _check_crc(line)
            if intact is False or (intact is None and self._tagged()):
                raise CheckpointError(
                    f"{history} line {number} is corrupt or was altered (its CRC does not match)"
                )
            try:
                scalars = from_json_floats(json.loads(line))
                scalars.pop("line_crc", None)
                at, size = int(scalars.pop("arrays_at")), int(scalars.pop("arrays_size"))
                crc, layout = int(scalars.pop("arrays_crc")), scalars.pop("arrays_index")
            except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
                raise CheckpointError(f"{history} line {number} is corrupt: {exc}") from None
            blob_at = data[at : at + size]
            if len(blob_at) != size or zlib.crc32(blob_at) != crc:
                raise CheckpointError(
                    f"{round_path} is damaged or truncated: the arrays of round {index} do not "
                    "match their CRC; restore the file from a backup, or start again with "
                    "{overwrite}",
                    overwrite=True,
                )
            records.append((scalars, unpack_arrays(blob_at, layout, round_path)))
        return SavedRun(manifest, header, arrays, records, fallback)
