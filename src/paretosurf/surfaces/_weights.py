"""Weight vectors on the probability simplex, for scalarizing M >= 2 objectives.

A weight vector ``w`` has ``M`` entries ``w_m >= 0`` summing to 1. This module builds sets of
them:

- :func:`simplex_lattice`: the Das-Dennis simplex-lattice design (all ``w`` whose entries are
  multiples of ``1/H``), with :func:`lattice_size` and :func:`lattice_partitions` to go
  between its number of partitions ``H`` and its number of points;
- :func:`random_simplex_weights`: the ``M`` corners, then weights drawn uniformly on the
  simplex;
- :func:`energy_weights`: pymoo's Riesz s-energy directions (any number of points, spread
  evenly; needs the optional ``many`` extra);

and :func:`check_simplex_weights` validates a user's ``(P, M)`` weight array.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.validation import check_positive_int

__all__ = [
    "SUM_TOLERANCE",
    "check_simplex_weights",
    "energy_weights",
    "lattice_partitions",
    "lattice_size",
    "random_simplex_weights",
    "simplex_lattice",
]

FloatArray = NDArray[np.float64]

#: Largest ``|sum(w) - 1|`` that :func:`check_simplex_weights` accepts for a weight vector.
SUM_TOLERANCE = 1e-8


def _check_objectives(n_objectives: object) -> int:
    """``n_objectives`` as an int >= 2, or raise."""
    m = check_positive_int(n_objectives, name="n_objectives")
    if m < 2:
        raise ValueError(f"n_objectives must be an integer >= 2, got {m}")
    return m


# ---------------------------------------------------------------------------- lattice
def lattice_size(n_objectives: int, n_partitions: int) -> int:
    """Number of points of the simplex lattice: ``C(H + M - 1, M - 1)``.

    Parameters
    ----------
    n_objectives : int
        ``M >= 2``.
    n_partitions : int
        ``H >= 1``: the entries are multiples of ``1/H``.

    Returns
    -------
    int

    Examples
    --------
    >>> from paretosurf.surfaces._weights import lattice_size
    >>> lattice_size(3, 12), lattice_size(2, 10), lattice_size(5, 4)
    (91, 11, 70)
    """
    m = _check_objectives(n_objectives)
    h = check_positive_int(n_partitions, name="n_partitions")
    return math.comb(h + m - 1, m - 1)


def lattice_partitions(n_points: int, n_objectives: int) -> int:
    """The number of partitions ``H`` whose simplex lattice has exactly ``n_points`` points.

    Lattice sizes grow with ``H``; for other sizes, use :func:`energy_weights` or
    :func:`random_simplex_weights`, or one of the lattice sizes named in the error.

    Parameters
    ----------
    n_points : int
        Wanted number of weight vectors, >= 1.
    n_objectives : int
        ``M >= 2``.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If no lattice for ``n_objectives`` objectives has ``n_points`` points; the message
        names the nearest lattice sizes below and above.

    Examples
    --------
    >>> from paretosurf.surfaces._weights import lattice_partitions
    >>> lattice_partitions(91, 3)
    12
    >>> lattice_partitions(90, 3)      # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: no simplex lattice ... near 90 are 78 (n_partitions=11) and 91 (n_partitions=12)
    """
    n = check_positive_int(n_points, name="n_points")
    m = _check_objectives(n_objectives)
    h = 1
    while math.comb(h + m - 1, m - 1) < n:
        h += 1
    above = math.comb(h + m - 1, m - 1)
    if above == n:
        return h
    if h == 1:
        raise ValueError(
            f"no simplex lattice has exactly {n} points: for {m} objectives the smallest "
            f"lattice has {above} points (n_partitions=1, the {m} corners)"
        )
    below = math.comb(h + m - 2, m - 1)
    raise ValueError(
        f"no simplex lattice has exactly {n} points: for {m} objectives the lattice sizes "
        f"near {n} are {below} (n_partitions={h - 1}) and {above} (n_partitions={h})"
    )


def _compositions(total: int, parts: int) -> list[list[int]]:
    """All lists of ``parts`` integers >= 0 summing to ``total``, in lexicographic order."""
    if parts == 1:
        return [[total]]
    return [
        [first, *rest]
        for first in range(total + 1)
        for rest in _compositions(total - first, parts - 1)
    ]


def simplex_lattice(n_objectives: int, n_partitions: int) -> FloatArray:
    """The Das-Dennis simplex-lattice design: every weight vector with entries in
    ``{0, 1/H, ..., 1}`` summing to 1.

    Its ``C(H + M - 1, M - 1)`` points (:func:`lattice_size`) form a regular lattice on the
    simplex: for ``M = 3``, the triangular lattice of spacing ``sqrt(2) / H`` in the plane
    ``w_1 + w_2 + w_3 = 1``, including the ``M`` corners and the edges.

    Parameters
    ----------
    n_objectives : int
        ``M >= 2``.
    n_partitions : int
        ``H >= 1``.

    Returns
    -------
    ndarray, shape (C(H + M - 1, M - 1), M)
        Entry ``k / H`` for integer counts ``k``; rows in lexicographic (ascending) order of
        their entries, so the first row is the corner ``e_M`` and the last one ``e_1``. This is
        also the order of pymoo's ``get_reference_directions("das-dennis", M, n_partitions=H)``.

    Examples
    --------
    >>> from paretosurf.surfaces._weights import simplex_lattice
    >>> simplex_lattice(3, 2)
    array([[0. , 0. , 1. ],
           [0. , 0.5, 0.5],
           [0. , 1. , 0. ],
           [0.5, 0. , 0.5],
           [0.5, 0.5, 0. ],
           [1. , 0. , 0. ]])
    >>> simplex_lattice(3, 12).shape
    (91, 3)
    """
    # pymoo has this design too (pymoo.util.ref_dirs), but pymoo is an optional, heavy
    # dependency; the recursion over integer compositions of H is all it takes.
    m = _check_objectives(n_objectives)
    h = check_positive_int(n_partitions, name="n_partitions")
    counts = np.array(_compositions(h, m), dtype=np.float64)
    return counts / h


# ---------------------------------------------------------------------------- random
def random_simplex_weights(
    n_points: int, n_objectives: int, *, seed: int | np.random.Generator | None = None
) -> FloatArray:
    """The ``M`` corners, then ``n_points - M`` weights drawn uniformly on the simplex.

    Rows ``0 .. M-1`` are the corners ``e_1 .. e_M`` (each objective alone); the others are
    drawn from the flat Dirichlet(1, ..., 1) distribution with ``np.random.default_rng(seed)``.

    Parameters
    ----------
    n_points : int
        ``P >= M``.
    n_objectives : int
        ``M >= 2``.
    seed : int, numpy Generator or None
        Seed of the draws (None: fresh entropy, not reproducible).

    Returns
    -------
    ndarray, shape (P, M)

    Examples
    --------
    >>> from paretosurf.surfaces._weights import random_simplex_weights
    >>> w = random_simplex_weights(6, 3, seed=0)
    >>> w[:3].tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    >>> w.shape, bool((w >= 0).all()), bool(abs(w.sum(axis=1) - 1).max() < 1e-12)
    ((6, 3), True, True)
    """
    n = check_positive_int(n_points, name="n_points")
    m = _check_objectives(n_objectives)
    if n < m:
        raise ValueError(
            f"n_points must be at least n_objectives = {m} (the {m} corners come first), got {n}"
        )
    rng = np.random.default_rng(seed)
    drawn = rng.dirichlet(np.ones(m), size=n - m)
    return np.concatenate([np.eye(m), drawn], axis=0)


# ---------------------------------------------------------------------------- energy
def energy_weights(n_points: int, n_objectives: int, *, seed: int = 1) -> FloatArray:
    """Weights spread evenly over the simplex by minimizing their Riesz s-energy (pymoo).

    pymoo's ``get_reference_directions("energy", M, n_points, seed=seed)`` (Blank et al.,
    2021): any number of points, the corners included, as even as a lattice. pymoo is
    imported only here (``pip install "paretosurf[many]"``). Its rows are clipped at 0 and
    divided by their sums.

    Parameters
    ----------
    n_points : int
        ``P >= M``.
    n_objectives : int
        ``M >= 2``.
    seed : int
        Seed of pymoo's optimization (the result is deterministic for a seed).

    Returns
    -------
    ndarray, shape (P, M)

    Raises
    ------
    ImportError
        If pymoo is not installed.

    Examples
    --------
    >>> from paretosurf.surfaces._weights import energy_weights
    >>> w = energy_weights(10, 3)        # doctest: +SKIP
    >>> w.shape                          # doctest: +SKIP
    (10, 3)
    """
    n = check_positive_int(n_points, name="n_points")
    m = _check_objectives(n_objectives)
    if n < m:
        raise ValueError(f"n_points must be at least n_objectives = {m}, got {n}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    try:
        from pymoo.util.ref_dirs import get_reference_directions
    except ImportError as err:
        raise ImportError(
            'energy_weights needs pymoo: pip install "paretosurf[many]" (or pip install '
            '"pymoo>=0.6.1")'
        ) from err
    raw = np.asarray(get_reference_directions("energy", m, n, seed=int(seed)), dtype=np.float64)
    if raw.shape != (n, m) or not np.all(np.isfinite(raw)):
        raise RuntimeError(
            f"pymoo returned energy directions of shape {raw.shape} "
            f"(expected {(n, m)}) or non-finite values"
        )
    clipped = np.clip(raw, 0.0, None)
    return clipped / clipped.sum(axis=1, keepdims=True)


# ---------------------------------------------------------------------------- checks
def check_simplex_weights(
    weights: ArrayLike, n_objectives: int | None = None, *, name: str = "weights"
) -> FloatArray:
    """Validate a ``(P, M)`` array of weight vectors on the simplex.

    Each row must be finite and >= 0 and sum to 1 within :data:`SUM_TOLERANCE` (1e-8); there
    must be at least 2 columns (``n_objectives`` of them when given) and at least one row.

    Parameters
    ----------
    weights : array_like, shape (P, M)
    n_objectives : int, optional
        Required number of columns.
    name : str
        Name of the argument in error messages.

    Returns
    -------
    ndarray, shape (P, M)
        ``weights`` as a float array (not copied when it already is one).

    Raises
    ------
    ValueError
        Naming ``name`` and the offending rows.

    Examples
    --------
    >>> from paretosurf.surfaces._weights import check_simplex_weights
    >>> check_simplex_weights([[0.5, 0.5], [1, 0]]).tolist()
    [[0.5, 0.5], [1.0, 0.0]]
    >>> check_simplex_weights([[0.5, 0.6]], name="w")
    Traceback (most recent call last):
    ...
    ValueError: each row of w must sum to 1 (within 1e-08); rows [0] sum to [1.1]
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] < 1 or w.shape[1] < 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_points, n_objectives) with "
            f"at least 1 row and 2 columns, got shape {w.shape}"
        )
    if n_objectives is not None:
        m = _check_objectives(n_objectives)
        if w.shape[1] != m:
            raise ValueError(f"{name} must have {m} columns (one per objective), got {w.shape[1]}")
    finite = np.all(np.isfinite(w), axis=1)
    if not np.all(finite):
        raise ValueError(f"{name} must be finite; rows {np.flatnonzero(~finite).tolist()} are not")
    negative = np.any(w < 0, axis=1)
    if np.any(negative):
        raise ValueError(
            f"{name} must be >= 0; rows {np.flatnonzero(negative).tolist()} have negative entries"
        )
    sums = w.sum(axis=1)
    off = np.abs(sums - 1.0) > SUM_TOLERANCE
    if np.any(off):
        rows = np.flatnonzero(off)
        raise ValueError(
            f"each row of {name} must sum to 1 (within {SUM_TOLERANCE:g}); rows "
            f"{rows[:10].tolist()} sum to {sums[rows[:10]].round(12).tolist()}"
            + (f" ({rows.size} rows in all)" if rows.size > 10 else "")
        )
    return w
