"""How a K-step solver starts a run's slots: :class:`StartUp` and :func:`gradient_starts`.

A K-step solver run from its default start at every slot can stall where the front is hard to
reach from there: on Deep Sea Treasure the uniform policy sits on the plateau of the nearest
treasure for thousands of steps. The paper's protocol first *warms up* the two end slots
(``warmup_steps`` steps each, at ``w = 0`` and ``w = 1``) and starts the interior slots from
the warmed-up ``w = 1`` end (``interior_start="endpoint1"``). :func:`gradient_starts` builds
those warm starts; a solver offers them to a run as ``initial_states(weights)`` (used when the
run is given no ``init_states``: :meth:`paretosurf.problems.mdp.MDPGradientSolver.
initial_states`), and the benchmark tasks build theirs with it
(:meth:`paretosurf.bench.Task.initial_states`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from paretosurf.solvers._protocol import GradientState, Solution, count_steps

__all__ = ["INTERIOR_STARTS", "StartUp", "check_interior_start", "gradient_starts"]

#: Where the interior slots start: the solver's default initial state, or the warmed-up
#: ``w = 1`` end's parameters (with fresh optimizer moments).
INTERIOR_STARTS = ("default", "endpoint1")


@dataclass(frozen=True)
class StartUp:
    """A run's first warm starts, made before its first round, and what making them cost.

    Attributes
    ----------
    states : list
        One warm start per slot, in weight order.
    solves : int
        The solver calls spent making them (the ends' warm-up solves).
    steps : int
        The inner steps those calls reported (``info["steps"]``).
    """

    states: list[Any]
    solves: int = 0
    steps: int = 0


class _Solves(Protocol):
    def solve(self, weight: float, state: Any) -> Solution: ...


def check_interior_start(value: str) -> str:
    """``value`` if it names one of :data:`INTERIOR_STARTS`, else a ``ValueError``."""
    if value not in INTERIOR_STARTS:
        raise ValueError(f"interior_start must be 'default' or 'endpoint1', got {value!r}")
    return value


def gradient_starts(
    initial_state: Callable[[float], GradientState],
    weights: Sequence[float],
    *,
    warm_up: _Solves | None = None,
    interior_start: str = "default",
    noise: float = 0.0,
    rng: np.random.Generator | None = None,
) -> StartUp:
    """Warm starts for slots at ``weights`` (increasing, the ends first and last).

    Every slot starts from ``initial_state(weight)`` (with ``rng``: its parameters plus
    ``noise`` times standard normal draws, slot by slot in weight order), with fresh optimizer
    moments. ``warm_up`` (a solver with the warm-up budget per call) then solves the first slot
    at ``w = 0`` and the last at ``w = 1`` from those starts; with ``interior_start=
    "endpoint1"`` the interior slots start from the last slot's parameters (fresh moments).

    Parameters
    ----------
    initial_state : callable
        ``initial_state(weight) -> GradientState``: the solver's cold start.
    weights : sequence of float
        The slots' weights, at least two.
    warm_up : object, optional
        ``warm_up.solve(weight, state) -> Solution`` warms the ends up (``None``: no warm-up).
    interior_start : {"default", "endpoint1"}
        See :data:`INTERIOR_STARTS`.
    noise : float
        Standard deviation of the perturbation (only with ``rng``).
    rng : numpy.random.Generator, optional
        Draws the perturbation; ``None``: the cold starts as they are.

    Returns
    -------
    StartUp
        The states, and the warm-up's solves and steps.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.solvers import GradientSolver
    >>> from paretosurf.solvers._start import gradient_starts
    >>> f = lambda x: np.array([(x[0] - 1) ** 2, x[0] ** 2])
    >>> g = lambda x: np.array([[2 * (x[0] - 1)], [2 * x[0]]])
    >>> solver = GradientSolver(f, g, init=np.zeros(1), steps=5, lr=0.1, optimizer="sgd")
    >>> warm = GradientSolver(f, g, init=np.zeros(1), steps=100, lr=0.1, optimizer="sgd")
    >>> start = gradient_starts(solver.initial_state, [0.0, 0.5, 1.0], warm_up=warm,
    ...                         interior_start="endpoint1")
    >>> [round(float(s.params[0]), 6) for s in start.states], start.solves, start.steps
    ([0.0, 1.0, 1.0], 2, 200)
    """
    check_interior_start(interior_start)
    if len(weights) < 2:
        raise ValueError(f"a start-up needs at least two slots, got {len(weights)}")

    def fresh(weight: float) -> GradientState:
        base = initial_state(weight)
        if rng is None:
            params = np.array(base.params, dtype=np.float64, copy=True)
        else:
            params = base.params + noise * rng.standard_normal(base.params.shape)
        return GradientState(params, np.zeros_like(params), np.zeros_like(params), 0)

    states: list[Any] = [fresh(w) for w in weights]
    solutions: list[Solution] = []
    if warm_up is not None:
        solutions = [warm_up.solve(0.0, states[0]), warm_up.solve(1.0, states[-1])]
        states[0], states[-1] = solutions[0].state, solutions[1].state
    if interior_start == "endpoint1":
        end = states[-1]
        for n in range(1, len(states) - 1):
            states[n] = GradientState(
                end.params.copy(), np.zeros_like(end.params), np.zeros_like(end.params), 0
            )
    return StartUp(states, len(solutions), count_steps(solutions))
