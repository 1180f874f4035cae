"""Exclusive locks on files, held by one process at a time and released by the kernel when
that process dies.

A run folder is written by one process: a second one (a scheduler that started the same job
twice, a user who resumed in two terminals) is refused at once, with a message naming the
host and process that hold the folder. Temporary folders use the same lock, so that a later
process can tell a folder whose owner is gone (its lock is free) from one in use.

How the lock is held: ``flock`` on a descriptor this module opens and keeps for as long as
the lock is held. An ``flock`` lock belongs to that *open file*, not to the process, so
whatever else the process does with the file leaves it held: a callback that reads the lock
file, or copies the whole run folder with :func:`shutil.copytree`, opens and closes the file
through descriptors of its own. (A POSIX record lock, ``fcntl.lockf``, would be dropped by
the kernel as soon as the process closed *any* descriptor of the file, and the folder would
then be free for a second writer while the first still runs.) A second open of the file in
the same process conflicts with the lock like any other process, so within one process every
lock is known to a registry, which also makes a lock re-entrant for the thread that holds it
(a front end may hold a run folder across the run it starts) and refuses it to any other
thread.

The open file is shared with every process forked while it is held, and an ``flock`` lock
lasts until the last descriptor of its open file is closed: a run's worker processes (forked
by :class:`~paretosurf.executors.ProcessExecutor`) would keep a killed run's folder locked
for as long as they live. So a child forked by Python (:func:`os.fork`, which
:mod:`multiprocessing` uses) closes its copies of the descriptors of every lock at once
(:func:`os.register_at_fork`) and holds none of the parent's locks; closing a copy leaves the
parent's lock held, and the lock is released when the parent dies, however it dies. The
descriptors are also closed on ``exec`` (``O_CLOEXEC``). (On NFS, Linux emulates ``flock``
with byte-range locks on the server; the tests check local file systems only.)

Examples
--------
>>> import tempfile, pathlib
>>> from paretosurf.storage._locking import FileLock, LockedError
>>> with tempfile.TemporaryDirectory() as tmp:
...     lock = FileLock(pathlib.Path(tmp) / "run.lock", what="the run folder")
...     with lock:
...         inner = lock.held
...     (inner, lock.held)
(True, False)
"""

from __future__ import annotations

import contextlib
import errno
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

__all__ = ["ENFORCED", "FileLock", "LockedError", "holder_of", "try_lock", "unlock"]

#: Whether the operating system enforces the locks (POSIX ``flock``); elsewhere taking a lock
#: always succeeds and nothing can tell whether another process holds one.
ENFORCED = fcntl is not None

#: ``errno`` values of an ``flock`` refused because another open file holds the lock.
_TAKEN = {errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES}


class LockedError(RuntimeError):
    """Another process (or another thread of this one) holds the lock."""


class _Entry:
    """A lock this process holds: its open file (descriptor and identity), the thread holding
    it, how often, and whether taking it created the file."""

    __slots__ = ("count", "created", "fd", "file", "thread")

    def __init__(self, fd: int, file: tuple[int, int], thread: int, created: bool) -> None:
        self.fd, self.file, self.thread, self.created, self.count = fd, file, thread, created, 1


#: The locks this process holds, by real path.
_HELD: dict[str, _Entry] = {}
#: The descriptors :func:`try_lock` handed out, by descriptor: the file each refers to.
_LENT: dict[int, tuple[int, int]] = {}
_REGISTRY = threading.Lock()
#: Whether the registry was taken for a fork (see :func:`_before_fork`).
_FORK_TOOK_REGISTRY = False


def _key(path: Path) -> str:
    return os.path.realpath(path)


def _identity(fd: int) -> tuple[int, int]:
    """The file open as ``fd`` (device and inode)."""
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def _close_if(fd: int, file: tuple[int, int]) -> None:
    """Close ``fd`` if it still refers to ``file`` (a descriptor closed by other code may have
    been reused for another file since)."""
    with contextlib.suppress(OSError):
        if _identity(fd) == file:
            os.close(fd)


def _before_fork() -> None:
    """Before a fork: hold the registry, so that the child sees every lock descriptor
    registered (none half way between being opened and being recorded)."""
    global _FORK_TOOK_REGISTRY
    # (bounded: a fork from a signal handler that interrupted this module must not hang)
    _FORK_TOOK_REGISTRY = _REGISTRY.acquire(timeout=5.0)


def _after_fork_in_parent() -> None:
    if _FORK_TOOK_REGISTRY:
        _REGISTRY.release()


def _after_fork_in_child() -> None:
    """In a forked child: close the child's copies of the lock descriptors (the parent's locks
    stay held by the parent's descriptors, and end with the parent), and forget them."""
    global _REGISTRY
    for entry in _HELD.values():
        _close_if(entry.fd, entry.file)
    for fd, file in _LENT.items():
        _close_if(fd, file)
    _HELD.clear()
    _LENT.clear()
    _REGISTRY = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=_before_fork,
        after_in_parent=_after_fork_in_parent,
        after_in_child=_after_fork_in_child,
    )


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
        if entry is not None:  # read what this process holds through its own descriptor
            data = os.pread(entry.fd, 4096, 0)
        else:
            data = p.read_bytes()[:4096]
        info = json.loads(data.decode().strip() or "null")
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return info if isinstance(info, dict) else None


def _open_locked(path: Path) -> tuple[int, bool] | None:
    """Open ``path`` (created if missing) and lock it: the descriptor and whether this call
    created the file, or ``None`` if another open file holds the lock. The descriptor refers
    to the file now at ``path`` (a file deleted and made anew while we waited is locked
    again).

    Raises
    ------
    OSError
        If the file cannot be opened or made, or the file system cannot lock it.
    """
    flags = os.O_RDWR | getattr(os, "O_CLOEXEC", 0)
    while True:
        try:
            fd, created = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644), True
        except FileExistsError:
            try:
                fd, created = os.open(path, flags), False
            except FileNotFoundError:  # deleted meanwhile: make it anew
                continue
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in _TAKEN:
                return None
            raise
        except BaseException:
            os.close(fd)
            raise
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            return fd, created
        os.close(fd)  # the file was replaced: lock the new one


def try_lock(path: str | os.PathLike[str]) -> int | None:
    """Lock ``path`` if no process holds it: the descriptor (give it to :func:`unlock` to
    release), or ``None``.

    For a lock of another process only; a path this process holds through
    :class:`FileLock` counts as held (``None``). Processes forked while the descriptor is
    open do not keep the lock."""
    p = Path(path)
    with _REGISTRY:
        if _key(p) in _HELD:
            return None
        opened = _open_locked(p)
        if opened is None:
            return None
        _LENT[opened[0]] = _identity(opened[0])
        return opened[0]


def unlock(fd: int) -> None:
    """Release a lock taken by :func:`try_lock` (closes its descriptor)."""
    with _REGISTRY:
        _LENT.pop(fd, None)
        os.close(fd)


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
    Without ``fcntl`` (Windows) the lock is not enforced. A process forked while the lock is
    held does not hold it (for that process, :attr:`held` is false).
    """

    def __init__(self, path: str | os.PathLike[str], *, what: str) -> None:
        self.path = Path(path)
        self.what = what
        self._mine = 0
        self._pid = os.getpid()

    def _forget_if_forked(self) -> None:
        """In a process forked while this lock was held: the child holds nothing."""
        if self._pid != os.getpid():
            self._mine, self._pid = 0, os.getpid()

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        self._forget_if_forked()
        return self._mine > 0

    @property
    def depth(self) -> int:
        """How many times this object holds the lock (each :meth:`acquire` not yet
        released)."""
        self._forget_if_forked()
        return self._mine

    @property
    def created(self) -> bool:
        """Whether the lock file was made when this process took the lock (it did not exist
        before)."""
        entry = _HELD.get(_key(self.path)) if self.held else None
        return entry is not None and entry.created

    def acquire(self, **info: Any) -> None:
        """Take the lock, recording the host, this process and ``info`` in the file.

        Raises
        ------
        LockedError
            Naming the holder, if another process or another thread of this one holds it.
        OSError
            If the lock file cannot be made or written.
        """
        self._forget_if_forked()
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
            opened = _open_locked(self.path)
            if opened is None:
                raise LockedError(f"{self.what} is in use by {_describe(holder_of(self.path))}")
            fd, created = opened
            try:
                _write_record(
                    fd,
                    {
                        "host": socket.gethostname(),
                        "pid": os.getpid(),
                        "since": round(time.time(), 3),
                        **info,
                    },
                )
                _HELD[key] = _Entry(fd, _identity(fd), me, created)
            except BaseException:
                if created:  # (a full disk, say) leave no empty lock file behind
                    with contextlib.suppress(OSError):
                        os.unlink(self.path)  # still locked: no one else uses it
                os.close(fd)
                raise
            self._mine += 1

    def note(self, **info: Any) -> None:
        """Add ``info`` to what the lock file records of its holder, while the lock is held
        (nothing otherwise).

        Raises
        ------
        OSError
            If the lock file cannot be written.
        """
        if not self.held:
            return
        entry = _HELD.get(_key(self.path))
        if entry is not None:
            _write_record(entry.fd, {**(holder_of(self.path) or {}), **info})

    def release(self) -> None:
        """Give the lock back (the last release of a re-entered lock frees it)."""
        self._forget_if_forked()
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
                os.close(entry.fd)  # the kernel drops the lock with its open file

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"FileLock({str(self.path)!r}, held={self.held})"


def _write_record(fd: int, record: dict[str, Any]) -> None:
    """Write ``record`` (the holder: host, pid, since, and what it added) into the lock file
    open as ``fd``."""
    data = (json.dumps(record) + "\n").encode()
    os.pwrite(fd, data, 0)
    os.ftruncate(fd, len(data))  # (never empty meanwhile, for a refused reader)
