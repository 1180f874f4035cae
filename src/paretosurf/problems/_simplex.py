"""Probability vectors: the one check that an array's rows lie on the simplex (within
:data:`SIMPLEX_TOL`), shared by every problem. (Logits map onto the simplex through
:func:`scipy.special.log_softmax`.)
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["SIMPLEX_TOL", "check_simplex"]

FloatArray = NDArray[np.float64]

#: How far from 1 a row of probabilities may sum (absolute, per row): policies, transition
#: rows ``P[s, a]``, initial distributions, reference policies and weight vectors alike. It
#: guards against mistakes, not rounding: a sum of ``n`` float64 probabilities is off by at most
#: about ``n * 1.1e-16`` (and MO-Gymnasium's Deep Sea Treasure and Fishwood models in
#: :mod:`paretosurf.problems.gym` have rows of exact ones), while data written with 9
#: significant digits stays within ``1e-9`` per row. ``1e-8`` is the loosest per-row bound
#: the problems used before they shared this check (policies of ``RegularizedMDP``, the
#: bandit's reference policy), so everything they accepted is still accepted, except bandit
#: vectors of ``A`` arms off by more than ``1e-8`` but at most ``A * 1e-8``.
SIMPLEX_TOL = 1e-8


def check_simplex(p: ArrayLike, *, name: str, positive: bool = False) -> FloatArray:
    """Check that every row of ``p`` (along its last axis) is a probability vector.

    Entries must be finite and non-negative (strictly positive with ``positive=True``) and each
    row must sum to 1 within :data:`SIMPLEX_TOL`. A 1-D ``p`` is one row.

    Parameters
    ----------
    p : array_like, at least 1-D
        The probabilities.
    name : str
        The argument's name, used in error messages.
    positive : bool
        Reject zero probabilities too (reference policies, whose logs are taken).

    Returns
    -------
    ndarray
        ``p`` as a float64 array (not copied when it already is one).

    Raises
    ------
    ValueError
        Naming ``name`` and the condition that fails.

    Examples
    --------
    >>> from paretosurf.problems._simplex import check_simplex
    >>> check_simplex([[0.5, 0.5], [1.0, 0.0]], name="policy").tolist()
    [[0.5, 0.5], [1.0, 0.0]]
    >>> check_simplex([[0.5, 0.5], [0.6, 0.6]], name="policy")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: policy must sum to 1 along its last axis (...); the worst row sums to 1 + 0.2
    """
    arr = np.asarray(p, dtype=np.float64)
    if arr.size and arr.ndim:
        # the common case in two reductions: every entry finite and non-negative (a NaN or
        # an infinity fails one of the two), then the rows' sums; what fails is told below
        low, high = arr.min(), arr.max()
        if (low > 0 if positive else low >= 0) and high < np.inf:
            excess = arr.sum(axis=-1) - 1.0
            if float(np.abs(excess).max()) <= SIMPLEX_TOL:
                return arr
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    if positive and np.any(arr <= 0):
        raise ValueError(f"{name} must be strictly positive (no zero probabilities)")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative")
    excess = np.atleast_1d(arr.sum(axis=-1) - 1.0).ravel()
    if np.any(np.abs(excess) > SIMPLEX_TOL):
        worst = float(excess[np.argmax(np.abs(excess))])
        which = "it sums" if arr.ndim == 1 else "the worst row sums"
        raise ValueError(
            f"{name} must sum to 1 along its last axis (each row a probability vector in the "
            f"simplex, within {SIMPLEX_TOL:g}); {which} to 1 {'+' if worst > 0 else '-'} "
            f"{abs(worst):.3g}"
        )
    return arr
