"""Solves that returned their start, reused rather than solved again.

A run solves some slots round after round at the same weight from the solution of the round
before: the corners of :func:`paretosurf.surf_simplex` every round, its settled edges, a kept
layout, the end slots of :func:`paretosurf.surf`. Where the solve returned its start unchanged
(the method's fixed point at that weight), solving again from there returns the same solution,
bit for bit, for a solver whose solves depend on nothing else: one that declares
``deterministic = True`` (:class:`~paretosurf.adapters.ScipySolver`, whose scalarization
changes only when :meth:`observe` moves its ideal point). :class:`FixedPoints` remembers such
solves, by weight and start, and the round solver takes them from it: the same points, states
and information (``info["fixed_point"]`` True), no evaluations, no steps, whatever the executor
(the driver decides, so worker processes and this process give the same result).

What it remembers goes into the run's checkpoints, so that a resumed run reuses what the
uninterrupted one would; it forgets everything when the solver's ideal point moves. On
DTLZ2 with 91 points (``benchmarks/bench_surface_evaluations.py``) the run spent 3.00 times
the evaluations of one sweep of weights instead of 4.20, with the same points.

Examples
--------
>>> import numpy as np
>>> import paretosurf as ps
>>> from paretosurf.loop import FixedPoints
>>> fixed = FixedPoints(enabled=True)
>>> x = np.array([0.5, 0.5])
>>> fixed.remember(0.25, x, ps.Solution([1.0, 2.0], state=x.copy(), info={"nfev": 7}))
>>> again = fixed.recall(0.25, x)
>>> again.objectives.tolist(), again.info["fixed_point"], again.info["nfev"]
([1.0, 2.0], True, 0)
>>> fixed.recall(0.3, x) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paretosurf.solvers import Solution, users_solver
from paretosurf.storage import as_json_value, from_json_floats, to_json_floats

__all__ = ["FIXED_POINTS", "FixedPoints", "reuses_fixed_points"]

#: The most solves a run remembers; the oldest go first.
FIXED_POINTS = 1024

Key = tuple[bytes, str, tuple[int, ...], bytes]


def reuses_fixed_points(solver: Any) -> bool:
    """Whether the run may reuse ``solver``'s fixed points: the user's solver declares
    ``deterministic = True``.

    Examples
    --------
    >>> from paretosurf.loop import reuses_fixed_points
    >>> class Exact:
    ...     deterministic = True
    >>> reuses_fixed_points(Exact()), reuses_fixed_points(object())
    (True, False)
    """
    return getattr(users_solver(solver), "deterministic", False) is True


def _key(weight: Any, state: Any) -> Key | None:
    """The weight's and the start's bytes (``None`` for a start that is not a numeric
    array: a cold start, a folder, an object)."""
    if not isinstance(state, np.ndarray) or state.dtype.kind not in "biuf":
        return None
    w = np.ascontiguousarray(weight, dtype=np.float64)
    x = np.ascontiguousarray(state)
    return (w.tobytes(), x.dtype.str, x.shape, x.tobytes())


class FixedPoints:
    """The run's solves that returned their start (module docstring).

    Parameters
    ----------
    enabled : bool
        Whether the run reuses them (:func:`reuses_fixed_points`); a disabled one remembers
        nothing.
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = bool(enabled)
        self._solves: dict[Key, Solution] = {}

    def __len__(self) -> int:
        return len(self._solves)

    def recall(self, weight: Any, state: Any) -> Solution | None:
        """The solve remembered at ``weight`` from ``state``, as one that spent no
        evaluations and no steps; ``None`` where there is none."""
        key = _key(weight, state) if self.enabled and self._solves else None
        found = None if key is None else self._solves.get(key)
        if found is None:
            return None
        info = dict(found.info)
        info.update(fixed_point=True, objective_calls=0, nfev=0, steps=0)
        return Solution(found.objectives.copy(), state=np.array(found.state), info=info)

    def remember(self, weight: Any, state: Any, solution: Solution | None) -> None:
        """Keep ``solution`` where it returned its start ``state`` unchanged."""
        if not self.enabled or solution is None:
            return
        key = _key(weight, state)
        found = solution.state
        if (
            key is None
            or not isinstance(found, np.ndarray)
            or found.dtype != state.dtype
            or found.shape != state.shape
            or not np.array_equal(found, state)
        ):
            return
        self._solves.pop(key, None)
        self._solves[key] = Solution(
            solution.objectives.copy(), state=np.array(found), info=dict(solution.info)
        )
        while len(self._solves) > FIXED_POINTS:
            del self._solves[next(iter(self._solves))]

    def forget(self) -> None:
        """Forget every solve (the solver's ideal point moved)."""
        self._solves.clear()

    # ------------------------------------------------------------------ checkpoints
    def to_parts(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]] | None:
        """What a checkpoint saves (JSON-able values and named arrays); ``None`` where
        nothing is remembered."""
        if not self._solves:
            return None
        meta: dict[str, Any] = {"weights": [], "starts": [], "infos": []}
        arrays: dict[str, NDArray[Any]] = {}
        for i, (key, solution) in enumerate(self._solves.items()):
            meta["weights"].append(np.frombuffer(key[0], dtype=np.float64).tolist())
            meta["infos"].append(_json_info(solution.info))
            arrays[f"{i}/start"] = np.array(solution.state)
            arrays[f"{i}/objectives"] = np.array(solution.objectives)
        return meta, arrays

    def load_parts(self, meta: Mapping[str, Any], arrays: Mapping[str, NDArray[Any]]) -> None:
        """Inverse of :meth:`to_parts`."""
        self._solves.clear()
        infos = from_json_floats(meta["infos"])
        for i, (weight, info) in enumerate(zip(meta["weights"], infos, strict=True)):
            state = np.array(arrays[f"{i}/start"])
            key = _key(weight, state)  # (a float and its one-element list: the same bytes)
            if key is not None:
                self._solves[key] = Solution(
                    np.array(arrays[f"{i}/objectives"], dtype=np.float64),
                    state=state,
                    info=dict(info),
                )


def _json_info(info: Mapping[str, Any]) -> dict[str, Any]:
    """A solve's ``info`` as JSON values (NumPy numbers and arrays as Python ones,
    non-finite floats spelled out); entries JSON cannot hold are left out."""
    out: dict[str, Any] = {}
    for key, value in info.items():
        try:
            out[str(key)] = as_json_value(value)
        except TypeError:
            continue
    return dict(to_json_floats(out))
