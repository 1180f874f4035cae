"""The keyword check every baseline's entry point makes before its run starts.

A baseline passes its ``**options`` on to :func:`paretosurf.driver.run`; a keyword that is
neither the baseline's own nor one of the loop options (:class:`paretosurf.driver.RunOptions`)
would otherwise surface as ``run() got an unexpected keyword argument``, naming neither the
method that was called nor why (``alpha``, say, is SURF's damping: the baselines have none).
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from paretosurf.driver import RunOptions

__all__ = ["LOOP_OPTIONS", "check_options"]

#: The loop options a baseline passes on to :func:`paretosurf.driver.run`.
LOOP_OPTIONS: frozenset[str] = RunOptions.__required_keys__ | RunOptions.__optional_keys__

#: Why a baseline takes no such keyword, for the keywords of SURF's that users carry over.
_NOT_HERE = {
    "alpha": "the method has no damping (alpha belongs to SURF: ps.surf, or ps.surf_simplex "
             "for three or more objectives)",
}


def check_options(entry: Callable[..., Any], options: Mapping[str, Any], *,
                  hints: Mapping[str, str] | None = None) -> None:
    """Refuse the keywords in ``options`` that are not loop options, naming ``entry``.

    Parameters
    ----------
    entry : callable
        The baseline's entry point (``uniform``, ``ols``, ...): its name and its own keywords
        go into the message.
    options : mapping
        The keywords ``entry`` collected in ``**options``.
    hints : mapping, optional
        Per keyword, why ``entry`` takes no such keyword (added to the built-in ones).

    Raises
    ------
    TypeError
        On the first keyword that is not a loop option: ``"uniform() takes no alpha: ..."``
        for a keyword with a hint, else the keyword, the closest known ones and the keywords
        ``entry`` takes.

    Examples
    --------
    >>> from paretosurf.baselines import uniform
    >>> from paretosurf.baselines._options import check_options
    >>> check_options(uniform, {"progress": True})
    >>> check_options(uniform, {"alpha": 0.3})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: uniform() takes no alpha: the method has no damping (alpha belongs to SURF: ...)
    """
    unknown = [key for key in options if key not in LOOP_OPTIONS]
    if not unknown:
        return
    key = unknown[0]
    name = getattr(entry, "__name__", "the method")
    why = {**_NOT_HERE, **(hints or {})}
    if key in why:
        raise TypeError(f"{name}() takes no {key}: {why[key]}")
    own = [p.name for p in inspect.signature(entry).parameters.values()
           if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    close = difflib.get_close_matches(key, [*own, *sorted(LOOP_OPTIONS)], n=2)
    maybe = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
    raise TypeError(f"{name}() got an unexpected keyword argument {key!r}{maybe}; it takes "
                    f"{', '.join(own)} and the loop options {', '.join(sorted(LOOP_OPTIONS))}")
