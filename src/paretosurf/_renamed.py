"""Earlier public names that still work for one minor version, warning when they are used.

A module lists its renamed names and gets a module-level ``__getattr__`` (PEP 562) that
returns the object under its new name with a :class:`DeprecationWarning` naming it, so that
``from paretosurf import SurfResult`` keeps working while it tells the user what to write. A
module that moved leaves a small module at its old path that re-exports its names and calls
:func:`warn_moved` as it is imported.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Mapping

__all__ = ["REMOVED_IN", "renamed_attributes", "warn_moved"]

#: The version in which the earlier names go.
REMOVED_IN = "0.2"


def renamed_attributes(
    module: str, renamed: Mapping[str, tuple[str, Callable[[], object]]]
) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``renamed``: old name -> (new name, the object's getter).

    Parameters
    ----------
    module : str
        The module's name (``__name__``), for the messages.
    renamed : mapping
        Each earlier name with its new spelling (a name of the same module, or the dotted
        path of its new home) and a function returning the object (called at access, so that
        the object may live in a module imported later).

    Returns
    -------
    callable
        ``__getattr__(name)``: the object with a :class:`DeprecationWarning` for an earlier
        name, :class:`AttributeError` for any other.

    Examples
    --------
    >>> import warnings
    >>> getattr_ = renamed_attributes("mod", {"Old": ("New", lambda: int)})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     getattr_("Old") is int, str(caught[0].message)
    (True, 'mod.Old is now mod.New; the name Old goes in paretosurf 0.2')
    >>> moved = renamed_attributes("mod", {"f": ("pkg.other.f", lambda: len)})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     moved("f") is len, str(caught[0].message)
    (True, 'mod.f is now pkg.other.f; the name f goes in paretosurf 0.2')
    >>> getattr_("Other")
    Traceback (most recent call last):
    ...
    AttributeError: module 'mod' has no attribute 'Other'
    """

    def __getattr__(name: str) -> object:
        if name in renamed:
            new, get = renamed[name]
            where = new if "." in new else f"{module}.{new}"
            warnings.warn(
                f"{module}.{name} is now {where}; the name {name} goes in paretosurf {REMOVED_IN}",
                DeprecationWarning,
                stacklevel=2,
            )
            return get()
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


def warn_moved(old: str, new: str) -> None:
    """Warn that the module ``old`` is now ``new``: the module left at the old path calls it
    as it is imported. The warning names the line that imports it (the first caller outside
    the import machinery), so that Python's default filters show it where that line is in
    ``__main__``.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_moved("paretosurf.old", "paretosurf.new")
    >>> str(caught[0].message)
    'paretosurf.old is now paretosurf.new; the old path goes in paretosurf 0.2'
    """
    # stacklevel 1 is this function, 2 the module at the old path, 3 who imports it; the
    # warnings module skips importlib's bootstrap frames itself, not importlib.import_module
    level, frame = 3, sys._getframe(1).f_back
    while frame is not None and _importing(frame.f_code.co_filename):
        if not _bootstrap(frame.f_code.co_filename):
            level += 1
        frame = frame.f_back
    warnings.warn(
        f"{old} is now {new}; the old path goes in paretosurf {REMOVED_IN}",
        DeprecationWarning,
        stacklevel=level,
    )


def _bootstrap(filename: str) -> bool:
    """Whether ``filename`` is importlib's bootstrap (as the warnings module tells it)."""
    return "importlib" in filename and "_bootstrap" in filename


def _importing(filename: str) -> bool:
    """Whether ``filename`` is the import machinery's: importlib's bootstrap, or
    ``importlib.import_module``."""
    return _bootstrap(filename) or filename.replace("\\", "/").endswith("/importlib/__init__.py")
