"""Fixed-weight baselines: evenly spaced weights (Uniform-w) and random weights (Random-w).

Both are methods of the driver (:mod:`paretosurf.loop`) with N + 1 slots whose weights never
move: with ``iterations=T`` each slot gets exactly T warm-started inner-solver calls, the budget
of a T-round SURF run, with the same executors, checkpoints, callback and result type.

This is the shortest complete method of the library: copy it to add one.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from paretosurf._utils.validation import check_n_segments, check_non_negative_int
from paretosurf.loop import RunOptions, check_options, document_loop_options, run
from paretosurf.methods._size import segments_from, size_keyword
from paretosurf.methods._slots import SlotMethod
from paretosurf.result import IterationRecord, Result
from paretosurf.solvers import SolverLike

if TYPE_CHECKING:  # pragma: no cover - typing only
    from typing import Unpack

__all__ = [
    "FixedWeights",
    "FixedWeightsMethod",
    "RandomWeights",
    "RandomWeightsMethod",
    "random_weights",
    "uniform",
    "uniform_random",
]

FloatArray = NDArray[np.float64]


class FixedWeightsMethod(SlotMethod):
    """Uniform-w: every round solves the N + 1 slots at ``w_n = n / N``, each warm-started
    from its own previous solution."""

    name = "uniform"
    label = "Uniform-w"
    n_objectives = None  # the weights do not depend on the objectives

    def __init__(self, n_segments: int) -> None:
        super().__init__(n_segments, warm_start="slot")
        self.weights = np.arange(self.n_segments + 1, dtype=np.float64) / self.n_segments

    def settings(self) -> dict[str, Any]:
        return {"n_segments": self.n_segments}

    def next_weights(self) -> FloatArray:
        return self.weights.copy()

    def weight_change(self) -> float:
        return float("nan")  # the weights never move: there is nothing to converge

    def state_dict(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        meta, arrays = self.slot_state()
        return meta, {**arrays, "weights": self.weights}

    def load_state_dict(
        self,
        meta: Mapping[str, Any],
        arrays: Mapping[str, NDArray[Any]],
        history: Sequence[IterationRecord],
    ) -> None:
        self.load_slot_state(meta, arrays)
        self.weights = np.asarray(arrays["weights"], dtype=np.float64)


class RandomWeightsMethod(FixedWeightsMethod):
    """Random-w: the slots' weights are :func:`random_weights` drawn once from ``seed``."""

    name = "random"
    label = "Random-w"

    def __init__(self, n_segments: int, *, seed: int | np.random.Generator | None = None) -> None:
        super().__init__(n_segments)
        self.seed = seed
        self.weights = random_weights(self.n_segments, seed=seed)

    def settings(self) -> dict[str, Any]:
        seed = self.seed
        return {
            "n_segments": self.n_segments,
            "seed": int(seed)
            if isinstance(seed, numbers.Integral)
            else (None if seed is None else type(seed).__name__),
        }


#: The earlier names of :class:`FixedWeightsMethod` and :class:`RandomWeightsMethod` (every
#: method class ends in ``Method``).
FixedWeights = FixedWeightsMethod
RandomWeights = RandomWeightsMethod


def random_weights(n_segments: int, *, seed: int | np.random.Generator | None = None) -> FloatArray:
    """Sorted uniform draws in (0, 1) with the endpoints 0 and 1 forced: N + 1 weights.

    Examples
    --------
    >>> from paretosurf.methods import random_weights
    >>> w = random_weights(5, seed=0)
    >>> len(w), float(w[0]), float(w[-1]), bool((w[1:] > w[:-1]).all())
    (6, 0.0, 1.0, True)
    """
    n = check_n_segments(n_segments)
    rng = np.random.default_rng(seed)
    inner = np.sort(rng.uniform(0.0, 1.0, size=n - 1))
    while inner.size and (np.any(np.diff(inner) <= 0) or inner[0] <= 0 or inner[-1] >= 1):
        inner = np.sort(rng.uniform(0.0, 1.0, size=n - 1))
    return np.concatenate([[0.0], inner, [1.0]])


@size_keyword
@document_loop_options
def uniform(
    solver: SolverLike,
    n_segments: int | None = None,
    *,
    n_points: int | None = None,
    iterations: int = 30,
    init_states: Sequence[Any] | None = None,
    **options: Unpack[RunOptions],
) -> Result:
    """Uniform-w: solve at ``w_n = n / N`` for ``iterations`` warm-started rounds.

    There is no CDF to refine, so no ``alpha``, ``tol`` or ``warm_start``; ``result.cdf`` is
    ``None``. With an exact solver, ``iterations=1`` suffices.

    Parameters
    ----------
    solver : object or callable
        Inner solver of ``min_u w * h1(u) + (1 - w) * h2(u)``, as for :func:`paretosurf.surf`.
    n_segments : int
        N >= 1: N + 1 points, at ``w_n = n / N``.
    n_points : int, optional
        N + 1, instead of the positional N (as for :func:`~paretosurf.surf`; ``n_segments=``
        by name warns).
    iterations : int
        Rounds; each solves every slot once, warm-started from the slot's last solution.
    init_states : sequence, optional
        N + 1 warm starts for the first round.
    **options
        The loop options below, shared by every method's entry function; ``normalize`` sets
        only the coordinates of the records' CV and gap ratio.
    <loop options>

    Returns
    -------
    Result

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.methods import uniform
    >>> solver = lambda w, s: ps.Solution([1 - w, w])
    >>> res = uniform(solver, 4, iterations=3)
    >>> res.weights.tolist(), res.n_solves, res.cdf is None
    ([0.0, 0.25, 0.5, 0.75, 1.0], 15, True)
    """
    n_segments = segments_from(n_segments, n_points, where="uniform")
    check_options(uniform, options)
    method = FixedWeightsMethod(n_segments)
    return run(
        method,
        solver,
        iterations=check_non_negative_int(iterations, name="iterations"),
        init_states=init_states,
        **options,
    )


@size_keyword
@document_loop_options
def uniform_random(
    solver: SolverLike,
    n_segments: int | None = None,
    *,
    n_points: int | None = None,
    iterations: int = 30,
    seed: int | np.random.Generator | None = None,
    init_states: Sequence[Any] | None = None,
    **options: Unpack[RunOptions],
) -> Result:
    """Random-w: solve at :func:`random_weights` (drawn once from ``seed``) for ``iterations``
    rounds. Its runs are recorded as method ``"random"``.

    Parameters
    ----------
    solver, n_segments, n_points, iterations, init_states :
        As for :func:`uniform`.
    seed : int or numpy.random.Generator, optional
        Draws the weights.
    **options
        The loop options below, shared by every method's entry function.
    <loop options>

    Returns
    -------
    Result

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.methods import uniform_random, random_weights
    >>> res = uniform_random(lambda w, s: ps.Solution([1 - w, w]), 5, iterations=2, seed=3)
    >>> bool((res.weights == random_weights(5, seed=3)).all())
    True
    """
    n_segments = segments_from(n_segments, n_points, where="uniform_random")
    check_options(uniform_random, options)
    method = RandomWeightsMethod(n_segments, seed=seed)
    return run(
        method,
        solver,
        iterations=check_non_negative_int(iterations, name="iterations"),
        init_states=init_states,
        **options,
    )
