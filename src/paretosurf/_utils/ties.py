"""Choices among near-equal values that do not hinge on the last bits.

A run's decisions (which sample is farthest, which candidate projection is nearest) are taken
on values computed from the inner solver's points. Those carry rounding noise that depends on
how the arithmetic was split (the BLAS thread count, the SIMD kernels): on a symmetric surface
(DTLZ7's pieces mirror each other) several candidates are equally good up to that noise, and a
plain ``argmax`` picks whichever the noise favours, so the same run took other decisions with
one BLAS thread than with two. The helpers here treat values within a tolerance of the best
as tied and break the tie by a key that the noise does not reorder (the candidates' weights,
lexicographically, or their index where the candidates' order is fixed by the problem).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["first_of_lexicographic", "near_best"]


def near_best(values: ArrayLike, rel: float, *, largest: bool = True) -> NDArray[np.intp]:
    """The indices whose value lies within ``rel`` times the scale of ``values`` (the largest
    magnitude among the finite ones) of the best (largest or smallest), increasing.

    Parameters
    ----------
    values : array_like, shape (N,)
        The values compared; non-finite ones take part only as the best itself.
    rel : float
        The tolerance, relative to the values' scale.
    largest : bool
        Whether the best is the largest (else the smallest).

    Returns
    -------
    ndarray of intp
        Never empty when ``values`` is not.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf._utils.ties import near_best
    >>> near_best(np.array([0.5, 0.9999999, 1.0, 0.2]), 1e-6).tolist()
    [1, 2]
    >>> near_best(np.array([3.0, 1.0, 1.0 + 1e-12]), 1e-9, largest=False).tolist()
    [1, 2]
    """
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return np.empty(0, dtype=np.intp)
    best = int(np.argmax(v) if largest else np.argmin(v))
    top = float(v[best])
    finite = v[np.isfinite(v)]
    if not np.isfinite(top) or finite.size == 0:
        return np.flatnonzero(v == top).astype(np.intp)
    margin = rel * float(np.max(np.abs(finite)))
    near = v >= top - margin if largest else v <= top + margin
    return np.flatnonzero(near).astype(np.intp)


def first_of_lexicographic(keys: ArrayLike, candidates: ArrayLike, atol: float) -> int:
    """The candidate (a row index into ``keys``) that comes first when the candidates' rows of
    ``keys`` are compared column by column, values within ``atol`` of a column's least
    counting as equal.

    Parameters
    ----------
    keys : array_like, shape (N, K)
        One row per index.
    candidates : array_like of int
        The indices to choose among (not empty).
    atol : float
        Values of a column closer than this to its least among the remaining candidates tie.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf._utils.ties import first_of_lexicographic
    >>> w = np.array([[0.6, 0.3, 0.1], [0.3, 0.6, 0.1], [0.3 + 1e-9, 0.1, 0.6]])
    >>> first_of_lexicographic(w, [0, 1, 2], 1e-6)
    2
    """
    rows = np.asarray(keys, dtype=np.float64)
    left = np.asarray(candidates, dtype=np.intp).ravel()
    if left.size == 0:
        raise ValueError("candidates must not be empty")
    for col in range(rows.shape[1] if rows.ndim == 2 else 0):
        if left.size == 1:
            break
        column = rows[left, col]
        left = left[column <= float(np.min(column)) + atol]
    return int(left[0])
