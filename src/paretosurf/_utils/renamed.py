"""Earlier public names that still work for one minor version, warning when they are used.

A module lists its renamed names and gets a module-level ``__getattr__`` (PEP 562) that
returns the object under its new name with a :class:`DeprecationWarning` naming it, so that
``from paretosurf import SurfResult`` keeps working while it tells the user what to write. A
module that moved is registered at its old path by :func:`install_moved_modules`: a stand-in
module whose attributes come from the new home, each with a warning (or, for a module that
keeps a file at its old path, that file re-exports its names and calls :func:`warn_moved`).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Callable, Mapping, Sequence

__all__ = ["REMOVED_IN", "MovedModule", "install_moved_modules", "renamed_attributes", "warn_moved"]

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


class MovedModule(types.ModuleType):
    """A module at the path a module had before it moved.

    It has no code of its own: each attribute read from it is looked up in the modules of
    ``sources`` in turn (the moved module first, then any module that took some of its names),
    with a :class:`DeprecationWarning` that names where to import it from now: the public
    package a source module belongs to (``paretosurf.loop`` for ``paretosurf.loop._driver``)
    when that package has the name, else the source module itself.

    Parameters
    ----------
    old : str
        The earlier dotted path, such as ``"paretosurf.driver"``.
    sources : sequence of str
        The modules holding the names now, searched in order (imported at first access).

    Examples
    --------
    >>> import warnings
    >>> old = MovedModule("pkg.old_math", ["math"])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     old.floor(2.5), str(caught[0].message)
    (2, 'pkg.old_math.floor is now math.floor; the old path goes in paretosurf 0.2')
    """

    def __init__(self, old: str, sources: Sequence[str]) -> None:
        super().__init__(old, f"Moved (to {', '.join(sources)}); this path warns until 0.2.")
        self.__spec__ = importlib.machinery.ModuleSpec(old, None)
        self.__dict__["_sources"] = tuple(sources)

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        for source in self.__dict__["_sources"]:
            module = importlib.import_module(source)
            if hasattr(module, name):
                warnings.warn(
                    f"{self.__name__}.{name} is now {_public_home(source, name)}.{name}; "
                    f"the old path goes in paretosurf {REMOVED_IN}",
                    DeprecationWarning,
                    stacklevel=2,
                )
                return getattr(module, name)
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")

    def __dir__(self) -> list[str]:
        sources = self.__dict__["_sources"]
        return sorted({n for s in sources for n in dir(importlib.import_module(s))})


def _public_home(source: str, name: str) -> str:
    """Where to import ``name`` of module ``source`` from: the public package above a private
    module (``paretosurf.loop`` above ``paretosurf.loop._driver``) when it has the name."""
    parts = source.split(".")
    private = next((i for i, part in enumerate(parts) if part.startswith("_")), len(parts))
    package = ".".join(parts[:private])
    if package != source and name in vars(importlib.import_module(package)):
        return package
    return source


def install_moved_modules(moved: Mapping[str, Sequence[str]]) -> None:
    """Register a :class:`MovedModule` at each earlier path of ``moved`` (old path -> the
    modules holding its names), so that ``from paretosurf.driver import run`` keeps working,
    with a warning, without a file at the old path.

    The stand-ins go straight into :data:`sys.modules`: importing one then never sets it as an
    attribute of its package, where it would replace a function of the same name
    (``paretosurf.surf``, the function, and the module it used to live in).
    """
    for old, sources in moved.items():
        sys.modules.setdefault(old, MovedModule(old, sources))
