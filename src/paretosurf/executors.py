"""How the N+1 inner solves of one outer iteration are run.

An executor is any object with ``map(solver, weights, states, *, slots=None) ->
list[Solution]`` (``slots``: the slot numbers that error messages name; an executor whose
``map`` takes only three arguments works too, its messages then count slots from 0). The
default, :class:`LocalExecutor`, runs them in this process (through the solver's ``solve_many``
when it has one). :class:`ProcessExecutor` spreads slots over local worker processes.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from paretosurf._validation import check_positive_int
from paretosurf.solvers import Solution, solve_slots

__all__ = ["Executor", "LocalExecutor", "ProcessExecutor"]


@runtime_checkable
class Executor(Protocol):
    """Runs one round's inner solves and returns the solutions in slot order."""

    def map(
        self, solver: Any, weights: NDArray[np.float64], states: Sequence[Any]
    ) -> list[Solution]:  # pragma: no cover - protocol
        ...


class LocalExecutor:
    """Solve every slot in this process (vectorised through ``solve_many`` when offered)."""

    def map(
        self, solver: Any, weights: NDArray[np.float64], states: Sequence[Any], *,
        slots: Sequence[int] | None = None,
    ) -> list[Solution]:
        """Solve every slot here; ``slots`` are the numbers error messages give them."""
        return solve_slots(solver, weights, states, slots)

    def __repr__(self) -> str:
        return "LocalExecutor()"


def _solve_chunk(solver: Any, weights: NDArray[np.float64], states: list[Any],
                 slots: list[int]) -> list[Solution]:
    return solve_slots(solver, weights, states, slots)


class ProcessExecutor:
    """Spread slots over ``max_workers`` local processes (the solver must be picklable).

    Slots are split into contiguous chunks, one per worker; each chunk runs through the
    solver's ``solve_many`` when it has one.

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.problems import GearToy
    >>> res = ps.surf(GearToy(4).solver(), 6, iterations=2, executor=ps.ProcessExecutor(2))
    >>> res.n_solves
    14
    """

    def __init__(self, max_workers: int = 2) -> None:
        self.max_workers = check_positive_int(max_workers, name="max_workers")

    def map(
        self, solver: Any, weights: NDArray[np.float64], states: Sequence[Any], *,
        slots: Sequence[int] | None = None,
    ) -> list[Solution]:
        """Solve contiguous chunks of slots in worker processes, results in slot order."""
        n = len(weights)
        ids = list(range(n)) if slots is None else list(slots)
        chunks = [c for c in np.array_split(np.arange(n), min(self.max_workers, n)) if c.size]
        with ProcessPoolExecutor(max_workers=len(chunks)) as pool:
            futures = [
                pool.submit(_solve_chunk, solver, weights[c], [states[i] for i in c],
                            [ids[i] for i in c])
                for c in chunks
            ]
            results: list[Solution] = []
            for fut in futures:
                results.extend(fut.result())
        return results

    def __repr__(self) -> str:
        return f"ProcessExecutor(max_workers={self.max_workers})"
