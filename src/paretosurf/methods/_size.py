"""The size of a two-objective run: N segments between N + 1 points.

Every two-objective entry function takes it positionally (``ps.surf(solver, 10)``: 10
segments, 11 points) or as ``n_points=11``, the spelling every method shares with
:func:`~paretosurf.surf_simplex`. The size given by the earlier keyword, ``n_segments=10``,
still works, with a :class:`DeprecationWarning`, until 0.2 (:func:`size_keyword`).
"""

from __future__ import annotations

import functools
import numbers
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from paretosurf._utils.renamed import REMOVED_IN
from paretosurf._utils.validation import check_n_segments

__all__ = ["segments_from", "size_keyword"]

F = TypeVar("F", bound=Callable[..., Any])


def size_keyword(entry: F) -> F:
    """``entry`` warning when its size is given by the earlier keyword ``n_segments=``: the
    spelling every method shares is ``n_points=N + 1`` (the size given positionally, N
    segments, stays as it is).

    Examples
    --------
    >>> import warnings
    >>> @size_keyword
    ... def entry(solver, n_segments=None, *, n_points=None):
    ...     return n_segments, n_points
    >>> entry(None, 4)
    (4, None)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     entry(None, n_segments=4)
    (4, None)
    >>> print(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
    entry(n_segments=4) is now entry(n_points=5), or the size given positionally,
    entry(solver, 4); the keyword n_segments goes in paretosurf 0.2
    """
    name = getattr(entry, "__name__", "entry")

    @functools.wraps(entry)
    def sized(*args: Any, **kwargs: Any) -> Any:
        if "n_segments" in kwargs:
            given = kwargs["n_segments"]
            points = (
                f"n_points={given + 1}"
                if isinstance(given, numbers.Integral) and not isinstance(given, bool)
                else "n_points=N + 1"
            )
            warnings.warn(
                f"{name}(n_segments={given!r}) is now {name}({points}), or the size given "
                f"positionally, {name}(solver, {given!r}); the keyword n_segments goes in "
                f"paretosurf {REMOVED_IN}",
                DeprecationWarning,
                stacklevel=2,
            )
        return entry(*args, **kwargs)

    return sized  # type: ignore[return-value]


def segments_from(n_segments: object, n_points: object, *, where: str = "surf") -> int:
    """N from ``n_segments`` (N) or ``n_points`` (N + 1): exactly one of them.

    Parameters
    ----------
    n_segments : int or None
        N segments.
    n_points : int or None
        N + 1 points.
    where : str
        The entry function's name, for the messages.

    Returns
    -------
    int
        N >= 1.

    Examples
    --------
    >>> from paretosurf.methods._size import segments_from
    >>> segments_from(10, None), segments_from(None, 11)
    (10, 10)
    >>> segments_from(10, 11)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: surf() takes the size once: n_segments=N (surf(solver, 10)) or n_points=N + 1, ...
    """
    if (n_segments is None) == (n_points is None):
        raise TypeError(
            f"{where}() takes the size once: n_segments=N ({where}(solver, 10)) or "
            "n_points=N + 1, not " + ("both" if n_points is not None else "neither")
        )
    if n_points is None:
        return check_n_segments(n_segments)
    if isinstance(n_points, bool) or not isinstance(n_points, numbers.Integral):
        raise TypeError(f"n_points must be an integer >= 2, got {n_points!r}")
    if n_points < 2:
        raise ValueError(f"n_points must be an integer >= 2, got {n_points}")
    return int(n_points) - 1
