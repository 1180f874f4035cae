"""Fixed-weight baselines: evenly spaced weights (Uniform-w) and random weights (Random-w).

Both run through the same loop as :func:`paretosurf.surf` with the CDF update switched off, so
they use the same warm starts, budget accounting, history, checkpoints and result type: with
``iterations=T`` each slot gets exactly T inner-solver calls, the budget of a T-iteration SURF run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from paretosurf._validation import check_n_segments, check_non_negative_int
from paretosurf.cdf import ArcLengthCDF
from paretosurf.solvers import as_solver
from paretosurf.surf import IterationRecord, SurfResult, SurfState, drive

__all__ = ["random_weights", "uniform", "uniform_random"]


def _fixed_weight_run(
    cdf: ArcLengthCDF,
    solver: Any,
    n_segments: int,
    iterations: int,
    init_states: Sequence[Any] | None,
    executor: Any,
    checkpoint: str | Path | None,
    callback: Callable[[IterationRecord], bool | None] | None,
    progress: bool,
    desc: str,
) -> SurfResult:
    n = check_n_segments(n_segments)
    total = check_non_negative_int(iterations, name="iterations")
    states = list(init_states) if init_states is not None else []
    state = SurfState(n_segments=n, alpha=1.0, cdf=cdf, states=states, refine=False)
    return drive(state, as_solver(solver), total, executor=executor, checkpoint=checkpoint,
                 callback=callback, progress=progress, desc=desc)


def uniform(
    solver: Any,
    n_segments: int,
    *,
    iterations: int = 30,
    init_states: Sequence[Any] | None = None,
    executor: Any = None,
    checkpoint: str | Path | None = None,
    callback: Callable[[IterationRecord], bool | None] | None = None,
    progress: bool = False,
) -> SurfResult:
    """Uniform-w: solve at ``w_n = n / N`` for ``iterations`` warm-started rounds.

    Parameters are those of :func:`paretosurf.surf` (there is no CDF to refine). With an exact
    solver, ``iterations=1`` suffices.

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.baselines import uniform
    >>> solver = lambda w, s: ps.Solution([w, 1 - w])
    >>> res = uniform(solver, 4, iterations=3)
    >>> res.weights.tolist(), res.n_solves
    ([0.0, 0.25, 0.5, 0.75, 1.0], 15)
    """
    return _fixed_weight_run(ArcLengthCDF.identity(), solver, n_segments, iterations,
                             init_states, executor, checkpoint, callback, progress, "Uniform-w")


def random_weights(n_segments: int, *, seed: int | np.random.Generator | None = None) -> np.ndarray:
    """Sorted uniform draws in (0, 1) with the endpoints 0 and 1 forced: N + 1 weights.

    Examples
    --------
    >>> from paretosurf.baselines import random_weights
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


def uniform_random(
    solver: Any,
    n_segments: int,
    *,
    iterations: int = 30,
    seed: int | np.random.Generator | None = None,
    init_states: Sequence[Any] | None = None,
    executor: Any = None,
    checkpoint: str | Path | None = None,
    callback: Callable[[IterationRecord], bool | None] | None = None,
    progress: bool = False,
) -> SurfResult:
    """Random-w: solve at :func:`random_weights` (drawn once) for ``iterations`` rounds.

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.baselines import uniform_random, random_weights
    >>> res = uniform_random(lambda w, s: ps.Solution([w, 1 - w]), 5, iterations=2, seed=3)
    >>> bool(abs(res.weights - random_weights(5, seed=3)).max() < 1e-12)
    True
    """
    w = random_weights(n_segments, seed=seed)
    cdf = ArcLengthCDF.from_knots(w, np.linspace(0.0, 1.0, w.size))
    return _fixed_weight_run(cdf, solver, n_segments, iterations, init_states, executor,
                             checkpoint, callback, progress, "Random-w")
