"""The size of a two-objective run: N segments between N + 1 points.

Every two-objective entry function takes it as ``n_segments`` (``ps.surf(solver, 10)``: 10
segments, 11 points) or as ``n_points=11``, the spelling every method shares with
:func:`~paretosurf.surf_simplex`.
"""

from __future__ import annotations

import numbers

from paretosurf._utils.validation import check_n_segments

__all__ = ["segments_from"]


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
