"""Temporary folders that belong to the process that made them, and the sweep of those whose
process is gone.

A run killed with SIGKILL (or SIGTERM, whose default action ends a process just as abruptly)
never runs its clean-up code, so every temporary folder it made stays behind. Each folder
made here holds a lock file (:mod:`paretosurf.storage`) that its process holds for as long as
the folder lives; the kernel drops the lock when the process dies, however it dies. A later
:func:`sweep_stale` with the same prefix removes the folders whose lock is free and leaves
every folder whose lock is held, so that any number of processes may make, use and sweep
folders of one prefix at the same time.

- :func:`make_owned_tempdir`: a new folder, owned (locked) by this process.
- :func:`remove_owned_tempdir`: delete a folder and give its lock back (normal clean-up).
- :func:`sweep_stale`: delete the folders of a prefix whose owner is gone.

Folders still owned when the interpreter exits normally are removed then.

Examples
--------
>>> from paretosurf.storage._tempdirs import make_owned_tempdir, remove_owned_tempdir, sweep_stale
>>> folder = make_owned_tempdir("paretosurf-doctest-")
>>> folder.name.startswith("paretosurf-doctest-"), folder.is_dir()
(True, True)
>>> folder in sweep_stale("paretosurf-doctest-")     # held by this process: never swept
False
>>> remove_owned_tempdir(folder)
>>> folder.exists()
False
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

from paretosurf._utils.processes import process_alive
from paretosurf.storage import _locking as locking
from paretosurf.storage._locking import FileLock, LockedError, try_lock, unlock

__all__ = ["LOCK_NAME", "make_owned_tempdir", "remove_owned_tempdir", "sweep_stale"]

#: The name of the lock file inside each owned folder.
LOCK_NAME = ".paretosurf-owner.lock"

#: Folders of this process: path -> (its lock, the process that made it). A forked child
#: inherits the table but owns none of it (it does not hold the locks, see
#: :mod:`paretosurf.storage`).
_OWNED: dict[Path, tuple[FileLock, int]] = {}
#: Serializes this module's work within the process (a sweep never looks at a folder that
#: another thread is making or removing).
_GUARD = threading.RLock()
_EXIT_HOOK = False


def _after_fork_in_child() -> None:
    """A forked child starts with a guard of its own (the parent's may have been held by a
    thread the child does not have)."""
    global _GUARD
    _GUARD = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _check_prefix(prefix: object) -> str:
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a string, got {type(prefix).__name__}")
    if not prefix or prefix.startswith(".") or "/" in prefix or os.sep in prefix:
        raise ValueError(
            f"prefix must be a non-empty folder-name prefix without path "
            f"separators or a leading dot, got {prefix!r}"
        )
    return prefix


def _parent(parent: str | os.PathLike[str] | None) -> Path:
    return Path(tempfile.gettempdir() if parent is None else parent)


def make_owned_tempdir(prefix: str, *, parent: str | os.PathLike[str] | None = None) -> Path:
    """A new folder ``<parent>/<prefix>XXXXXXXX``, owned by this process until
    :func:`remove_owned_tempdir` (or the process's end).

    Parameters
    ----------
    prefix : str
        The start of the folder's name (``"paretosurf-solver-"``); :func:`sweep_stale` with the
        same prefix removes the folder once its process is gone.
    parent : path, optional
        Where to make it (default :func:`tempfile.gettempdir`).

    Returns
    -------
    Path
        The folder. It holds the lock file :data:`LOCK_NAME`, locked by this process (forked
        children do not hold it); leave that file alone.

    Examples
    --------
    >>> from paretosurf.storage._tempdirs import LOCK_NAME, make_owned_tempdir, remove_owned_tempdir
    >>> folder = make_owned_tempdir("paretosurf-doctest-")
    >>> sorted(p.name for p in folder.iterdir()) == [LOCK_NAME]
    True
    >>> remove_owned_tempdir(folder)
    """
    prefix = _check_prefix(prefix)
    global _EXIT_HOOK
    with _GUARD:
        path = Path(tempfile.mkdtemp(prefix=prefix, dir=_parent(parent)))
        lock = FileLock(path / LOCK_NAME, what=f"the temporary folder {path}")
        # a sweeper of another process may be looking at the brand-new lock file for a
        # moment (it sees an empty record and a young folder, and lets go at once)
        for tries in range(200):
            try:
                lock.acquire(folder=str(path))
                break
            except LockedError:
                if tries == 199:
                    shutil.rmtree(path, ignore_errors=True)
                    raise
                time.sleep(0.005)
        _OWNED[path] = (lock, os.getpid())
        if not _EXIT_HOOK:
            atexit.register(_remove_all)
            _EXIT_HOOK = True
    return path


def remove_owned_tempdir(path: str | os.PathLike[str]) -> None:
    """Delete the folder ``path`` (made by :func:`make_owned_tempdir`), then give its lock
    back. A folder this process does not own is deleted all the same; one already gone is
    fine."""
    folder = Path(path)
    with _GUARD:
        entry = _OWNED.pop(folder, None)
        try:
            shutil.rmtree(folder, ignore_errors=True)
        finally:
            if entry is not None and entry[1] == os.getpid():
                entry[0].release()


def _remove_all() -> None:
    """At a normal exit: remove the folders this process still owns."""
    for path, (_, pid) in list(_OWNED.items()):
        if pid == os.getpid():
            remove_owned_tempdir(path)


def _newest_mtime(folder: Path) -> float:
    """The latest modification time of ``folder`` and its direct entries."""
    newest = folder.stat().st_mtime
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    newest = max(newest, entry.stat(follow_symlinks=False).st_mtime)
                except OSError:
                    continue
    except OSError:
        pass
    return newest


def _record(fd: int) -> dict[str, object] | None:
    """The owner record in the lock file open as ``fd`` (read through the descriptor that
    holds the file's lock)."""
    try:
        info = json.loads(os.pread(fd, 4096, 0).decode().strip() or "null")
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return info if isinstance(info, dict) else None


def _pid_alive_here(info: dict[str, object]) -> bool:
    """Whether ``info`` names a live process of this host (a safety net: a free lock already
    says its owner is gone)."""
    import socket

    pid = info.get("pid")
    if info.get("host") != socket.gethostname() or not isinstance(pid, int) or pid <= 0:
        return False
    return process_alive(pid)


def sweep_stale(
    prefix: str, *, parent: str | os.PathLike[str] | None = None, max_age: float = 3600.0
) -> list[Path]:
    """Delete the folders ``<parent>/<prefix>*`` whose owner process is gone.

    A folder goes when its lock file (:data:`LOCK_NAME`) is free and records an owner: that
    owner locked it and has died (a live owner holds the lock until it deletes the folder).
    A folder without a lock file, or with one that records no owner, goes only once nothing
    in it has changed for ``max_age`` seconds (folders of older versions, or of a process
    killed while making its folder). A folder whose lock is held, by any process, is never
    touched. Safe to call from several processes and threads at once.

    Parameters
    ----------
    prefix : str
        The prefix given to :func:`make_owned_tempdir`.
    parent : path, optional
        Where to look (default :func:`tempfile.gettempdir`).
    max_age : float
        Seconds, see above.

    Returns
    -------
    list of Path
        The folders removed.

    Examples
    --------
    >>> from paretosurf.storage import make_owned_tempdir, remove_owned_tempdir, sweep_stale
    >>> mine = make_owned_tempdir("paretosurf-doctest-")
    >>> mine in sweep_stale("paretosurf-doctest-")
    False
    >>> remove_owned_tempdir(mine)
    """
    prefix = _check_prefix(prefix)
    where = _parent(parent)
    removed: list[Path] = []
    try:
        candidates = [
            Path(e.path)
            for e in os.scandir(where)
            if e.name.startswith(prefix) and e.is_dir(follow_symlinks=False)
        ]
    except OSError:
        return removed
    now = time.time()
    with _GUARD:
        for folder in candidates:
            if folder in _OWNED:
                continue
            try:
                old = now - _newest_mtime(folder) > max_age
            except OSError:  # gone meanwhile
                continue
            lock = folder / LOCK_NAME
            if not lock.exists():
                if old:
                    shutil.rmtree(folder, ignore_errors=True)
                    removed.append(folder)
                continue
            if not locking.ENFORCED:  # locks are not enforced here: cannot tell
                continue
            fd = try_lock(lock)
            if fd is None:  # held: in use
                continue
            try:
                info = _record(fd)
                if (info is not None and not _pid_alive_here(info)) or (info is None and old):
                    shutil.rmtree(folder, ignore_errors=True)
                    removed.append(folder)
            finally:
                unlock(fd)
    return removed
