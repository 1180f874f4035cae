"""Exclusive locks on files, held by one process at a time and released by the kernel when
that process dies.

A run folder is written by one process: a second one (a scheduler that started the same job
twice, a user who resumed in two terminals) is refused at once, with a message naming the
host and process that hold the folder. Temporary folders use the same lock, so that a later
process can tell a folder whose owner is gone (its lock is free) from one in use.

Why not the ``filelock`` package: it locks with ``flock``, whose lock belongs to the open file
and so to every process forked while it is held. A run's worker processes (forked by
:class:`~paretosurf.executors.ProcessExecutor`) would then keep a killed run's folder locked
for as long as they live. ``fcntl.lockf`` takes a POSIX record lock, which belongs to the
process alone: forked children do not hold it, and the kernel drops it when the process dies,
however it dies. POSIX locks have one trap, which this module avoids: closing *any* descriptor
of the locked file in the holding process releases the lock, so within one process every lock
is known to a registry and the file is never opened a second time.

Within a process a lock is re-entrant for the thread that holds it (a front end may hold a run
folder across the run it starts) and refused to any other thread.

Examples
--------
>>> import tempfile, pathlib
>>> from paretosurf.locking import FileLock, LockedError
>>> with tempfile.TemporaryDirectory() as tmp:
...     lock = FileLock(pathlib.Path(tmp) / "run.lock", what="the run folder")
...     with lock:
...         inner = lock.held
...     (inner, lock.held)
(True, False)
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["FileLock", "LockedError", "holder_of", "try_lock"]


class LockedError(RuntimeError):
    """Another process (or another thread of this one) holds the lock."""


class _Entry:
    """A lock this process holds: its open file, the thread holding it, and how often."""

    __slots__ = ("count", "fd", "thread")

    def __init__(self, fd: int, thread: int) -> None:
        self.fd, self.thread, self.count = fd, thread, 1


#: The locks this process holds, by real path.
_HELD: dict[str, _Entry] = {}
_REGISTRY = threading.Lock()


def _key(path: Path) -> str:
    return os.path.realpath(path)


def _describe(info: dict[str, Any] | None) -> str:
    if not info:
        return "another process (it did not say which)"
    since = info.get("since")
    when = (
        f", since {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(since))}"
        if isinstance(since, (int, float))
        else ""
    )
    return f"process {info.get('pid', '?')} on host {info.get('host', '?')}{when}"


def holder_of(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """What the holder of the lock file ``path`` wrote into it (host, pid, since), or ``None``
    if nothing readable is there. Says nothing of whether the lock is held (see
    :func:`try_lock`)."""
    p = Path(path)
    entry = _HELD.get(_key(p))
    try:
        if entry is not None:  # never open a second descriptor of a file we lock
            data = os.pread(entry.fd, 4096, 0)
        else:
            data = p.read_bytes()[:4096]
        info = json.loads(data.decode().strip() or "null")
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return info if isinstance(info, dict) else None


def _open_locked(path: Path) -> int | None:
    """Open ``path`` (created if missing) and lock it; ``None`` if another process holds it.
    The descriptor returned refers to the file now at ``path`` (a file deleted and made anew
    while we waited is locked again)."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            if fcntl is not None:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # the file was replaced: lock the new one


def try_lock(path: str | os.PathLike[str]) -> int | None:
    """Lock ``path`` if no process holds it: the descriptor (close it to release), or ``None``.

    For a lock of another process only; a path this process holds through
    :class:`FileLock` counts as held (``None``)."""
    p = Path(path)
    with _REGISTRY:
        if _key(p) in _HELD:
            return None
        return _open_locked(p)


class FileLock:
    """An exclusive lock on the file ``path``, naming its holder to whoever is refused.

    Parameters
    ----------
    path : path
        The lock file (created if missing; left in place when released).
    what : str
        What the lock guards, for messages (``"the run folder /runs/a"``).

    Notes
    -----
    Non-blocking: :meth:`acquire` raises :class:`LockedError` at once when the lock is taken.
    Without ``fcntl`` (Windows) the lock is not enforced.
    """

    def __init__(self, path: str | os.PathLike[str], *, what: str) -> None:
        self.path = Path(path)
        self.what = what
        self._mine = 0

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        return self._mine > 0

    @property
    def depth(self) -> int:
        """How many times this object holds the lock (each :meth:`acquire` not yet
        released)."""
        return self._mine

    def acquire(self, **info: Any) -> None:
        """Take the lock, recording the host, this process and ``info`` in the file.

        Raises
        ------
        LockedError
            Naming the holder, if another process or another thread of this one holds it.
        """
        key = _key(self.path)
        me = threading.get_ident()
        with _REGISTRY:
            entry = _HELD.get(key)
            if entry is not None:
                if entry.thread != me:
                    raise LockedError(
                        f"{self.what} is in use by another thread of this "
                        f"process (pid {os.getpid()})"
                    )
                entry.count += 1
                self._mine += 1
                return
            fd = _open_locked(self.path)
            if fd is None:
                raise LockedError(f"{self.what} is in use by {_describe(holder_of(self.path))}")
            record = (
                json.dumps(
                    {
                        "host": socket.gethostname(),
                        "pid": os.getpid(),
                        "since": round(time.time(), 3),
                        **info,
                    }
                )
                + "\n"
            )
            os.ftruncate(fd, 0)
            os.pwrite(fd, record.encode(), 0)
            _HELD[key] = _Entry(fd, me)
            self._mine += 1

    def release(self) -> None:
        """Give the lock back (the last release of a re-entered lock frees it)."""
        if not self._mine:
            return
        key = _key(self.path)
        with _REGISTRY:
            self._mine -= 1
            entry = _HELD.get(key)
            if entry is None:
                return
            entry.count -= 1
            if entry.count == 0:
                del _HELD[key]
                os.close(entry.fd)  # the kernel drops the lock with its last descriptor

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"FileLock({str(self.path)!r}, held={self.held})"
