"""Fixed weight vectors for three or more objectives: the baselines of
:func:`paretosurf.surf_simplex`.

- Das-Dennis (:func:`das_dennis`): the simplex lattice, evenly spaced weights, the default of
  most many-objective tools (pymoo's "das-dennis" reference directions);
- random (:func:`random_simplex`): the corners plus weights drawn uniformly on the simplex;
- energy (:func:`energy`): pymoo's Riesz s-energy reference directions, weights spread as
  evenly as possible over the simplex for any number of points.

All three spread the *weights* evenly (or at random); none looks at where the points land.
Each is a method of the driver whose weights never move: with ``iterations=T`` every point
gets T warm-started solves, the budget of a T-round :func:`~paretosurf.surf_simplex` run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paretosurf._utils.validation import check_non_negative_int
from paretosurf.loop import RunOptions, check_options, document_loop_options, run
from paretosurf.methods._slots import SlotMethod
from paretosurf.methods._uniform import FixedWeightsMethod
from paretosurf.result import Result
from paretosurf.solvers import SolverLike, solver_objectives
from paretosurf.surfaces import (
    check_simplex_weights,
    energy_weights,
    lattice_partitions,
    random_simplex_weights,
    simplex_lattice,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    from typing import Unpack

__all__ = [
    "FixedSimplexMethod",
    "FixedSimplexWeights",
    "das_dennis",
    "energy",
    "fixed_simplex",
    "random_simplex",
]


class FixedSimplexMethod(FixedWeightsMethod):
    """Given weight vectors, solved every round, each point warm-started from its own last
    solution.

    Parameters
    ----------
    weights : array_like, shape (P, M)
        Weight vectors on the simplex (P >= 2, M >= 2).
    name, label : str
        How results and tables name the method.
    """

    name = "simplex_weights"
    label = "fixed weights"

    def __init__(self, weights: Any, *, name: str | None = None, label: str | None = None) -> None:
        w = check_simplex_weights(weights, name="weights")
        if len(w) < 2:
            raise ValueError(f"weights must hold at least 2 weight vectors, got {len(w)}")
        SlotMethod.__init__(self, len(w) - 1, warm_start="slot")
        self.weights = w
        self.n_objectives = w.shape[1]  # type: ignore[misc]  # per instance: any M
        if name is not None:
            self.name = name  # type: ignore[misc]
        if label is not None:
            self.label = label  # type: ignore[misc]

    def settings(self) -> dict[str, Any]:
        return {"n_points": len(self.weights), "n_objectives": self.weights.shape[1]}


#: The earlier name of :class:`FixedSimplexMethod` (every method class ends in ``Method``).
FixedSimplexWeights = FixedSimplexMethod


@document_loop_options
def fixed_simplex(
    solver: SolverLike,
    weights: Any,
    *,
    iterations: int = 30,
    init_states: Sequence[Any] | None = None,
    **options: Unpack[RunOptions],
) -> Result:
    """Solve at the given weight vectors for ``iterations`` warm-started rounds.

    With an exact solver ``iterations=1`` suffices. Its runs are recorded as method
    ``"simplex_weights"``.

    Parameters
    ----------
    solver : object or callable
        Inner solver of ``min_u sum_m w_m h_m(u)``, as for :func:`paretosurf.surf_simplex`.
    weights : array_like, shape (P, M)
        The weight vectors (P >= 2, on the simplex).
    iterations : int
        Rounds; each solves every weight once, warm-started from its last solution.
    init_states : sequence, optional
        P warm starts for the first round.
    **options
        The loop options below, shared by every method's entry function.
    <loop options>

    Returns
    -------
    Result

    Examples
    --------
    >>> import numpy as np
    >>> import paretosurf as ps
    >>> from paretosurf.methods import fixed_simplex
    >>> res = fixed_simplex(lambda w, s: ps.Solution(1 - w), np.eye(3), iterations=2)
    >>> res.points.tolist(), res.n_solves
    ([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]], 6)
    """
    check_options(fixed_simplex, options)
    method = FixedSimplexMethod(weights)
    return run(
        method,
        solver,
        iterations=check_non_negative_int(iterations, name="iterations"),
        init_states=init_states,
        **options,
    )


@document_loop_options
def das_dennis(
    solver: SolverLike,
    n_points: int,
    n_objectives: int | None = None,
    *,
    iterations: int = 30,
    init_states: Sequence[Any] | None = None,
    **options: Unpack[RunOptions],
) -> Result:
    """Das-Dennis: solve at the simplex lattice of ``n_points`` weights (a lattice size, see
    :func:`paretosurf.surfaces.lattice_partitions`; 91 for three objectives and 12
    partitions).

    Parameters
    ----------
    solver : object or callable
        Inner solver, as for :func:`paretosurf.surf_simplex`.
    n_points : int
        A lattice size (at least ``n_objectives``).
    n_objectives : int, optional
        M >= 2; by default the solver's own count (its ``n_objectives``, as the adapters
        declare it).
    iterations, init_states, **options :
        As for :func:`fixed_simplex`.
    <loop options>

    Returns
    -------
    Result

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.methods import das_dennis
    >>> res = das_dennis(lambda w, s: ps.Solution(1 - w), 10, 3, iterations=1)
    >>> res.weights.shape, res.label
    ((10, 3), 'Das-Dennis')
    """
    check_options(das_dennis, options)
    n_objectives = solver_objectives(solver, n_objectives, caller="das_dennis")
    weights = simplex_lattice(n_objectives, lattice_partitions(n_points, n_objectives))
    method = FixedSimplexMethod(weights, name="das_dennis", label="Das-Dennis")
    return run(
        method,
        solver,
        iterations=check_non_negative_int(iterations, name="iterations"),
        init_states=init_states,
        **options,
    )


@document_loop_options
def random_simplex(
    solver: SolverLike,
    n_points: int,
    n_objectives: int | None = None,
    *,
    iterations: int = 30,
    seed: int | None = None,
    init_states: Sequence[Any] | None = None,
    **options: Unpack[RunOptions],
) -> Result:
    """Random weights: the corners, then weights drawn uniformly on the simplex from ``seed``
    (:func:`paretosurf.surfaces.random_simplex_weights`).

    Parameters
    ----------
    solver, n_points, n_objectives :
        As for :func:`das_dennis` (any ``n_points >= n_objectives``).
    seed : int, optional
        Draws the weights.
    iterations, init_states, **options :
        As for :func:`fixed_simplex`.
    <loop options>

    Returns
    -------
    Result

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.methods import random_simplex
    >>> res = random_simplex(lambda w, s: ps.Solution(1 - w), 12, 3, iterations=1, seed=0)
    >>> res.weights.shape, res.weights[:3].tolist()
    ((12, 3), [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    """
    check_options(random_simplex, options)
    n_objectives = solver_objectives(solver, n_objectives, caller="random_simplex")
    weights = random_simplex_weights(n_points, n_objectives, seed=seed)
    method = FixedSimplexMethod(weights, name="random_simplex", label="Random")
    return run(
        method,
        solver,
        iterations=check_non_negative_int(iterations, name="iterations"),
        init_states=init_states,
        **options,
    )


@document_loop_options
def energy(
    solver: SolverLike,
    n_points: int,
    n_objectives: int | None = None,
    *,
    iterations: int = 30,
    seed: int = 1,
    init_states: Sequence[Any] | None = None,
    **options: Unpack[RunOptions],
) -> Result:
    """Riesz s-energy weights (pymoo's "energy" reference directions, the ``many`` extra):
    ``n_points`` weights spread evenly over the simplex.

    Parameters
    ----------
    solver, n_points, n_objectives :
        As for :func:`random_simplex`.
    seed : int
        Seeds pymoo's optimization of the weights.
    iterations, init_states, **options :
        As for :func:`fixed_simplex`.
    <loop options>

    Returns
    -------
    Result

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.methods import energy
    >>> res = energy(lambda w, s: ps.Solution(1 - w), 12, 3, iterations=1)  # doctest: +SKIP
    >>> res.weights.shape                                                    # doctest: +SKIP
    (12, 3)
    """
    check_options(energy, options)
    n_objectives = solver_objectives(solver, n_objectives, caller="energy")
    weights = energy_weights(n_points, n_objectives, seed=seed)
    method = FixedSimplexMethod(weights, name="energy", label="Energy")
    return run(
        method,
        solver,
        iterations=check_non_negative_int(iterations, name="iterations"),
        init_states=init_states,
        **options,
    )
