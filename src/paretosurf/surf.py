"""SURF (Algorithm 1): Pareto points evenly spaced along the front from any scalarized solver.

Each outer iteration picks ``w_n = Phi_t^{-1}(n / N)``, runs the inner solver once per slot
(warm-started from the slot's previous state), rebuilds ``Phi~_t`` from the chord lengths of the
new points and damps it in: ``Phi_{t+1} = alpha * Phi~_t + (1 - alpha) * Phi_t``.

The run is a loop over an explicit :class:`SurfState`, which holds everything needed to continue
(CDF, warm starts, history, counters) and is saved atomically after every outer iteration when a
checkpoint is requested, so a killed run resumes where it stopped.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paretosurf import metrics
from paretosurf._validation import check_alpha, check_n_segments, check_non_negative_int
from paretosurf.cdf import ArcLengthCDF
from paretosurf.executors import LocalExecutor
from paretosurf.solvers import Solution, as_solver, count_steps

__all__ = ["IterationRecord", "SurfResult", "SurfState", "surf"]

FloatArray = NDArray[np.float64]
#: Warm-start rules of :func:`surf`.
WARM_STARTS = ("slot", "nearest")
#: ``update(state, weights, points)``: sets ``state.cdf`` after an iteration's solves.
UpdateRule = Callable[["SurfState", FloatArray, FloatArray], None]


@dataclass
class IterationRecord:
    """What one outer iteration did.

    Attributes
    ----------
    iteration : int
        0-based outer iteration ``t``.
    weights : ndarray, shape (N+1,)
        Weights solved at, ``Phi_t^{-1}(n / N)``.
    points : ndarray, shape (N+1, M)
        Objective vectors found.
    cv, gap_ratio : float
        Uniformity of ``points`` (see :mod:`paretosurf.metrics`).
    weight_change : float
        ``max_n |w_n^{(t+1)} - w_n^{(t)}|``: how far the next weights move.
    seconds : float
        Wall time of the iteration; ``solve_seconds`` of it in the inner solver.
    n_solves : int
        Inner-solver calls made so far (cumulative); ``n_steps`` likewise for solver steps
        reported in ``Solution.info["steps"]``.
    cdf : ArcLengthCDF
        ``Phi_{t+1}``, the CDF after this iteration's update.
    """

    iteration: int
    weights: FloatArray
    points: FloatArray
    cv: float
    gap_ratio: float
    weight_change: float
    seconds: float
    solve_seconds: float
    n_solves: int
    n_steps: int
    cdf: ArcLengthCDF

    @classmethod
    def from_points(
        cls,
        iteration: int,
        weights: FloatArray,
        points: FloatArray,
        *,
        cdf: ArcLengthCDF,
        seconds: float,
        solve_seconds: float,
        n_solves: int,
        n_steps: int,
        weight_change: float = math.nan,
        gaps: FloatArray | None = None,
    ) -> IterationRecord:
        """A record whose CV and gap ratio are computed from ``points`` (or their ``gaps``)."""
        g = metrics.segment_lengths(points) if gaps is None else gaps
        return cls(iteration, weights, points, metrics.cv_of_gaps(g),
                   metrics.gap_ratio_of_gaps(g), weight_change, seconds, solve_seconds,
                   n_solves, n_steps, cdf)

    def scalars(self) -> dict[str, Any]:
        """The JSON-serialisable part of the record (everything but the arrays)."""
        return {
            "iteration": self.iteration,
            "cv": self.cv,
            "gap_ratio": self.gap_ratio,
            "weight_change": self.weight_change,
            "seconds": self.seconds,
            "solve_seconds": self.solve_seconds,
            "n_solves": self.n_solves,
            "n_steps": self.n_steps,
            "cdf": self.cdf.to_dict(),
        }


@dataclass
class SurfState:
    """Everything a SURF run needs to continue: the loop's explicit, serialisable state.

    Attributes
    ----------
    n_segments : int
        N (the run has N + 1 slots).
    alpha : float
        Damping factor.
    cdf : ArcLengthCDF
        Current ``Phi_t``; the next weights are ``cdf.quantile_weights(n_segments)``.
    states : list
        Per-slot warm starts (``None`` before a slot's first solve).
    history : list of IterationRecord
        One record per completed outer iteration.
    n_solves, n_steps : int
        Budget used so far.
    converged : bool
        Whether the weight-change tolerance has been met.
    warm_start : {"slot", "nearest"}
        Which previous solution warm-starts each slot: its own ("slot", Algorithm 1), or the
        one whose previous weight is closest to the slot's new weight ("nearest"; see
        :func:`surf`).
    refine : bool
        Whether each iteration updates the CDF. ``False`` keeps the weights fixed at
        ``cdf.quantile_weights(n_segments)``: the fixed-weight baselines (uniform, random) run
        through the same loop and budget accounting as SURF.
    """

    n_segments: int
    alpha: float
    cdf: ArcLengthCDF = field(default_factory=ArcLengthCDF.identity)
    states: list[Any] = field(default_factory=list)
    history: list[IterationRecord] = field(default_factory=list)
    n_solves: int = 0
    n_steps: int = 0
    converged: bool = False
    refine: bool = True
    warm_start: str = "slot"

    def __post_init__(self) -> None:
        if self.warm_start not in WARM_STARTS:
            raise ValueError(f"warm_start must be one of {WARM_STARTS}, got {self.warm_start!r}")
        if not self.states:
            self.states = [None] * (self.n_segments + 1)
        if len(self.states) != self.n_segments + 1:
            raise ValueError(
                f"init_states must hold n_segments + 1 = {self.n_segments + 1} states, "
                f"got {len(self.states)}"
            )

    @property
    def iteration(self) -> int:
        """Number of completed outer iterations."""
        return len(self.history)

    def next_weights(self) -> FloatArray:
        """Weights the next outer iteration solves at (``cdf.quantile_weights(n_segments)``)."""
        # Cached per CDF object: each iteration needs them twice (weight change, next solve).
        cached = self.__dict__.get("_weights_cache")
        if cached is None or cached[0] is not self.cdf:
            n = self.n_segments
            # the last solved weights are an excellent Newton start once the CDF settles
            guess = self.history[-1].weights if self.history else None
            cached = (self.cdf, self.cdf._inverse(np.arange(n + 1) / n, guess))
            self.__dict__["_weights_cache"] = cached
        return cached[1].copy()

    def step(self, solver: Any, executor: Any = None,
             update: UpdateRule | None = None) -> IterationRecord:
        """Run one outer iteration in place and return its record.

        ``update(state, weights, points)``, when given, replaces the CDF update: it must set
        ``state.cdf`` to a CDF whose ``quantile_weights(n_segments)`` are the next weights (the
        UMOD baseline steers its weights this way through the same loop).
        """
        start = time.perf_counter()
        weights = self.next_weights()
        if self.warm_start == "nearest" and self.history:
            self.states = nearest_states(self.states, self.history[-1].weights, weights)
        runner = LocalExecutor() if executor is None else executor
        solve_start = time.perf_counter()
        solutions: list[Solution] = runner.map(solver, weights, self.states)
        solve_seconds = time.perf_counter() - solve_start
        points = np.stack([s.objectives for s in solutions])
        self.states = [s.state for s in solutions]
        self.n_solves += len(solutions)
        self.n_steps += count_steps(solutions)
        gaps = np.sqrt(np.sum(np.diff(points, axis=0) ** 2, axis=1))
        if update is not None:
            update(self, weights, points)
        elif self.refine:
            # weights come from quantile_weights and points were checked finite: skip the
            # public constructor's validation
            self.cdf = self.cdf.mix(ArcLengthCDF._from_chords(weights, gaps), self.alpha)
        weight_change = float(np.max(np.abs(self.next_weights() - weights)))
        record = IterationRecord.from_points(
            self.iteration, weights, points, cdf=self.cdf,
            seconds=time.perf_counter() - start, solve_seconds=solve_seconds,
            n_solves=self.n_solves, n_steps=self.n_steps, weight_change=weight_change, gaps=gaps,
        )
        self.history.append(record)
        return record


class SurfResult:
    """The outcome of :func:`surf`.

    Attributes
    ----------
    weights : ndarray, shape (N+1,)
        Weights of the final solutions, increasing, ``weights[0] == 0``, ``weights[-1] == 1``.
    points : ndarray, shape (N+1, M)
        Objective vectors of the final solutions (empty ``(N+1, 0)`` if no iteration ran).
    states : list
        The N+1 final solver states (warm starts).
    cdf : ArcLengthCDF
        The refined CDF after the last update; ``cdf.quantile_weights(N)`` are the weights a
        further iteration would use.
    history : list of IterationRecord
        One record per outer iteration.
    n_solves : int
        Inner-solver calls made. ``n_steps`` sums the solvers' reported steps.
    converged : bool
        Whether the run stopped on ``tol``.

    Examples
    --------
    >>> import paretosurf as ps
    >>> res = ps.surf(lambda w, s: ps.Solution([w, (1 - w) ** 2]), 4, iterations=5)
    >>> res.points.shape, len(res.history), res.n_solves
    ((5, 2), 5, 25)
    >>> bool(res.history[-1].cv <= res.history[0].cv)
    True
    """

    def __init__(self, state: SurfState) -> None:
        self.state = state

    @property
    def n_segments(self) -> int:
        return self.state.n_segments

    @property
    def alpha(self) -> float:
        return self.state.alpha

    @property
    def weights(self) -> FloatArray:
        if self.state.history:
            return self.state.history[-1].weights
        return self.state.next_weights()

    @property
    def points(self) -> FloatArray:
        if self.state.history:
            return self.state.history[-1].points
        return np.empty((self.state.n_segments + 1, 0))

    @property
    def states(self) -> list[Any]:
        return self.state.states

    @property
    def cdf(self) -> ArcLengthCDF:
        return self.state.cdf

    @property
    def history(self) -> list[IterationRecord]:
        return self.state.history

    @property
    def n_solves(self) -> int:
        return self.state.n_solves

    @property
    def n_steps(self) -> int:
        return self.state.n_steps

    @property
    def converged(self) -> bool:
        return self.state.converged

    @property
    def cv(self) -> float:
        """CV of the final points (``nan`` if no iteration ran)."""
        return self.state.history[-1].cv if self.state.history else math.nan

    @property
    def gap_ratio(self) -> float:
        """Gap ratio of the final points (``nan`` if no iteration ran)."""
        return self.state.history[-1].gap_ratio if self.state.history else math.nan

    def save(self, path: str | Path) -> tuple[Path, Path]:
        """Write the result as ``<path>.json`` (metadata, history, CDFs) and ``<path>.npz``
        (arrays and pickled solver states). Returns the two paths."""
        from paretosurf.checkpoint import write_state

        return write_state(self.state, path)

    @classmethod
    def load(cls, path: str | Path) -> SurfResult:
        """Read a result written by :meth:`save` (``path`` with or without extension).

        Solver states are unpickled: load only files you trust.
        """
        from paretosurf.checkpoint import read_state

        return cls(read_state(path))

    def __repr__(self) -> str:
        return (
            f"SurfResult(n_segments={self.n_segments}, iterations={len(self.history)}, "
            f"cv={self.cv:.4g}, gap_ratio={self.gap_ratio:.4g}, n_solves={self.n_solves})"
        )


def surf(
    solver: Any,
    n_segments: int,
    *,
    alpha: float = 0.3,
    iterations: int = 30,
    tol: float | None = None,
    init_states: Sequence[Any] | None = None,
    executor: Any = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    callback: Callable[[IterationRecord], bool | None] | None = None,
    progress: bool = False,
    warm_start: str = "slot",
) -> SurfResult:
    """Find N+1 Pareto points evenly spaced in arc length along the front (SURF).

    Parameters
    ----------
    solver : object or callable
        Inner solver of ``min_u w * h1(u) + (1 - w) * h2(u)`` (objectives minimized; ``w`` is
        the weight on objective 1): an object with ``solve(weight, state) -> Solution``
        (optionally ``solve_many(weights, states)``), or a callable ``(weight, state)``
        returning a :class:`~paretosurf.Solution` or a tuple ``(objectives, state)``.
        ``state`` is the slot's warm start, ``None`` on its first call.
    n_segments : int
        N >= 1; the run returns N + 1 points, slot 0 at ``w = 0`` and slot N at ``w = 1``.
    alpha : float
        Damping factor in (0, 1] of ``Phi_{t+1} = alpha * Phi~_t + (1 - alpha) * Phi_t``.
    iterations : int
        Total number of outer iterations (each solves every slot once). With ``resume``, the
        iterations already in the checkpoint count. ``0`` runs no solve.
    tol : float, optional
        Stop early once the weights move by less than ``tol`` (max over slots) between
        iterations.
    init_states : sequence, optional
        N + 1 warm starts for the first iteration (default ``None`` for each slot).
    executor : object, optional
        Runs each iteration's solves: ``map(solver, weights, states) -> list[Solution]``.
        Default: :class:`~paretosurf.executors.LocalExecutor`.
    checkpoint : path, optional
        Folder where the run's state is saved atomically after every outer iteration.
    resume : bool
        Continue from the latest state in ``checkpoint`` if there is one.
    callback : callable, optional
        Called with each :class:`IterationRecord`; returning ``True`` stops the run.
    progress : bool
        Show a progress bar with the current CV and gap ratio.
    warm_start : {"slot", "nearest"}
        "slot" (Algorithm 1): each slot continues from its own previous solution. "nearest":
        each slot continues from the previous solution whose weight is closest to its new
        weight (a deep copy where two slots share one). When weights move a lot between
        iterations, as early on, this gives a K-step solver much better starts (on Deep Sea
        Treasure it brings the K-step run to the exact solver's uniformity). Use it only if
        solver states can be deep-copied and shared (not, e.g., a path that the solver
        overwrites in place).

    Returns
    -------
    SurfResult

    Raises
    ------
    ValueError, TypeError
        On invalid arguments, naming the argument and the allowed values.
    paretosurf.solvers.InnerSolverError
        If the solver raises or returns non-finite objectives (names the slot and weight).

    Examples
    --------
    Points on the front ``((1 - x)^2, x^2)`` when the solver's own weighting is lopsided:

    >>> import numpy as np
    >>> import paretosurf as ps
    >>> def solver(w, state):                       # exact minimizer of a lopsided LS problem
    ...     x = 3 * w / (1 + 2 * w)
    ...     return ps.Solution([(1 - x) ** 2, x ** 2], state=x)
    >>> res = ps.surf(solver, 10, iterations=30)
    >>> res.points.shape, float(res.weights[0]), float(res.weights[-1])
    ((11, 2), 0.0, 1.0)
    >>> bool(ps.metrics.cv(res.points) < 0.01 < res.history[0].cv)
    True
    """
    n = check_n_segments(n_segments)
    a = check_alpha(alpha)
    total_iterations = check_non_negative_int(iterations, name="iterations")
    if tol is not None and not (isinstance(tol, (int, float)) and tol > 0 and math.isfinite(tol)):
        raise ValueError(f"tol must be a finite number > 0 or None, got {tol!r}")
    if resume and checkpoint is None:
        raise ValueError("resume=True needs a checkpoint folder")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable, got {type(callback).__name__}")
    if executor is not None and not callable(getattr(executor, "map", None)):
        raise TypeError("executor must have a map(solver, weights, states) method")
    inner = as_solver(solver)

    state: SurfState | None = None
    if resume and checkpoint is not None:
        from paretosurf.checkpoint import load_checkpoint

        state = load_checkpoint(checkpoint)
        if warm_start not in WARM_STARTS:
            raise ValueError(f"warm_start must be one of {WARM_STARTS}, got {warm_start!r}")
        if state is not None and (state.n_segments != n or state.alpha != a):
            raise ValueError(
                f"checkpoint {checkpoint} holds a run with n_segments={state.n_segments}, "
                f"alpha={state.alpha}; cannot resume it with n_segments={n}, alpha={a}"
            )
    if state is None:
        states = list(init_states) if init_states is not None else []
        if init_states is not None and len(states) != n + 1:
            raise ValueError(
                f"init_states must hold n_segments + 1 = {n + 1} states, got {len(states)}"
            )
        state = SurfState(n_segments=n, alpha=a, states=states, warm_start=warm_start)

    return drive(state, inner, total_iterations, tol=tol, executor=executor,
                 checkpoint=checkpoint, callback=callback, progress=progress, desc="SURF")


def drive(
    state: SurfState,
    solver: Any,
    iterations: int,
    *,
    tol: float | None = None,
    executor: Any = None,
    checkpoint: str | Path | None = None,
    callback: Callable[[IterationRecord], bool | None] | None = None,
    progress: bool = False,
    desc: str = "SURF",
    update: UpdateRule | None = None,
) -> SurfResult:
    """Step ``state`` until it has ``iterations`` records, converges on ``tol``, or the callback
    asks to stop; checkpoint and report progress along the way. ``update`` replaces the CDF
    update (see :meth:`SurfState.step`). Arguments are trusted (checked by the public entry
    points)."""
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=iterations, initial=min(state.iteration, iterations), desc=desc,
                   unit="iter")
    try:
        while state.iteration < iterations and not state.converged:
            record = state.step(solver, executor, update)
            if tol is not None and record.weight_change < tol:
                state.converged = True
            if checkpoint is not None:
                from paretosurf.checkpoint import save_checkpoint

                save_checkpoint(state, checkpoint)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(cv=f"{record.cv:.4f}", gap_ratio=f"{record.gap_ratio:.3f}")
            if callback is not None and callback(record) is True:
                break
    finally:
        if bar is not None:
            bar.close()
    return SurfResult(state)


def nearest_states(states: list[Any], previous: FloatArray, weights: FloatArray) -> list[Any]:
    """For each new weight, the state of the previous slot whose weight was closest.

    A state used by several slots is deep-copied for all but the first, so that no two slots
    share one object.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.surf import nearest_states
    >>> nearest_states(["a", "b", "c"], np.array([0, 0.2, 1]), np.array([0, 0.7, 1]))
    ['a', 'c', 'c']
    """
    nearest = np.abs(weights[:, None] - previous[None, :]).argmin(axis=1)
    used: set[int] = set()
    out = []
    for i in nearest.tolist():
        out.append(copy.deepcopy(states[i]) if i in used else states[i])
        used.add(i)
    return out
