"""Two results compared to the last bit (:func:`assert_same_result`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from paretosurf.result import Result

#: What two results must share: every attribute a result holds.
RESULT_FIELDS = (
    "method",
    "label",
    "settings",
    "weights",
    "points",
    "states",
    "cdf",
    "n_solves",
    "n_steps",
    "converged",
    "stop_reason",
    "success",
    "message",
    "findings",
    "reported_round",
    "pieces",
    "front_ends",
)
#: What two rounds' records must share: every field but the wall times (``seconds``,
#: ``solve_seconds``), which no two runs share.
RECORD_FIELDS = (
    "iteration",
    "weights",
    "points",
    "cv",
    "gap_ratio",
    "weight_change",
    "n_solves",
    "n_steps",
    "cdf",
    "cdf_estimate",
    "alpha",
    "ideal",
    "evaluations",
    "pieces",
)


def _float(x: Any) -> bool:
    return isinstance(x, float | np.floating)


def _difference(x: Any, y: Any) -> str | None:
    """Where ``x`` and ``y`` differ (``None``: nowhere), to the last bit. Arrays compare by
    shape and value (NaN equal to NaN), mappings by keys and values, lists and tuples element
    by element (a list equals the tuple it was saved from), objects with ``to_dict`` or
    ``to_json`` (findings, pieces, CDFs, front ends) by type and by what their files hold."""
    if x is y:
        return None
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        ax, ay = np.asarray(x), np.asarray(y)
        if ax.shape != ay.shape:
            return f"shape {ax.shape} != {ay.shape}"
        if ax.dtype.kind in "biufc" and ay.dtype.kind in "biufc":
            same = (ax == ay) | (np.isnan(ax) & np.isnan(ay)) if ax.dtype.kind in "fc" else ax == ay
            if bool(np.all(same)):
                return None
            at = tuple(int(i) for i in np.argwhere(~same)[0])
            return f"at {list(at)}: {ax[at].item()!r} != {ay[at].item()!r}"
        return _difference(ax.tolist(), ay.tolist())
    if isinstance(x, Mapping) and isinstance(y, Mapping):
        if set(x) != set(y):
            return f"keys {sorted(map(str, x))} != {sorted(map(str, y))}"
        for key in x:
            where = _difference(x[key], y[key])
            if where is not None:
                return f"[{key!r}]: {where}"
        return None
    if isinstance(x, list | tuple) and isinstance(y, list | tuple):
        if len(x) != len(y):
            return f"length {len(x)} != {len(y)}"
        for i, (u, v) in enumerate(zip(x, y, strict=True)):
            where = _difference(u, v)
            if where is not None:
                return f"[{i}]: {where}"
        return None
    for saved in ("to_dict", "to_json"):
        if callable(getattr(x, saved, None)) or callable(getattr(y, saved, None)):
            if type(x) is not type(y):
                return f"{type(x).__name__} != {type(y).__name__}"
            where = _difference(getattr(x, saved)(), getattr(y, saved)())
            return None if where is None else f" ({type(x).__name__}){where}"
    if _float(x) and _float(y) and math.isnan(x) and math.isnan(y):
        return None
    try:
        same = bool(x == y)
    except (TypeError, ValueError):  # an elementwise comparison of two containers
        same = False
    return None if same else f"{x!r} != {y!r}"


def assert_same_result(a: Result, b: Result, *, history: bool = True) -> None:
    """Assert that two results are identical, to the last bit.

    Compares every attribute a result holds (:data:`RESULT_FIELDS`: method, label, settings,
    weights, points, solver states, CDF, counts, convergence, stop reason, success and
    message, findings, reported round, pieces and front ends) and, with ``history=True``,
    every field of every record (:data:`RECORD_FIELDS`: all but the wall times). Floats
    compare exactly (a NaN equals a NaN); a tuple equals the list a file stores it as.

    Parameters
    ----------
    a, b : Result
        The results to compare (for example a resumed run and an uninterrupted one, or a
        result and the one :meth:`~paretosurf.Result.load` reads back).
    history : bool
        Whether to compare the records of the rounds too.

    Raises
    ------
    AssertionError
        Naming the first attribute that differs, and where.

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.testing import GearKStep, assert_same_result
    >>> assert_same_result(ps.surf(GearKStep(), 4, iterations=3),
    ...                    ps.surf(GearKStep(), 4, iterations=3))
    >>> assert_same_result(ps.surf(GearKStep(), 4, iterations=3),  # doctest: +ELLIPSIS
    ...                    ps.surf(GearKStep(steps=4), 4, iterations=3))
    Traceback (most recent call last):
        ...
    AssertionError: the results differ in weights: at [1]: 0.134... != 0.096...
    """
    for name in RESULT_FIELDS:
        where = _difference(getattr(a, name), getattr(b, name))
        assert where is None, f"the results differ in {name}: {where}"
    if not history:
        return
    assert len(a.history) == len(b.history), (
        f"the results differ in history: {len(a.history)} rounds != {len(b.history)}"
    )
    for ra, rb in zip(a.history, b.history, strict=True):
        for name in RECORD_FIELDS:
            where = _difference(getattr(ra, name), getattr(rb, name))
            assert where is None, f"the results differ in history[{ra.iteration}].{name}: {where}"
