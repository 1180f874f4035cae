"""Whether a process of this machine is alive, by its id."""

from __future__ import annotations

import os

__all__ = ["process_alive"]


def process_alive(pid: int) -> bool:
    """Whether the process ``pid`` of this machine exists: signal 0 reaches it, or it exists
    but belongs to another user (``EPERM``). A zombie counts as alive here.

    Examples
    --------
    >>> import os
    >>> from paretosurf._utils.processes import process_alive
    >>> process_alive(os.getpid())
    True
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
