"""surf_simplex on DTLZ7 (three objectives, four pieces) with Tchebycheff local solves: the
runs the disconnected-surface tests share (each computed once per process)."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np

import paretosurf as ps
from paretosurf.problems import DTLZ7

#: DTLZ7's pieces split each position objective between 0.2514 and 0.6316.
SPLIT = 0.44


@functools.lru_cache(maxsize=4)
def dtlz7_run(warm_start: str) -> tuple[ps.Result, Any]:
    """The result and the solver of 36 points, 16 rounds, 2 distance variables, from_scipy
    with the Tchebycheff scalarization from the middle of the box, without basin probes:
    the tests that share these runs are about the warm-start rules and the layout over the
    pieces (probes, on by default for a solver with a box, reach other pieces too; see
    tests/test_basin_probes.py).

    Why 36 points: with ``"best"`` the first point off the starting piece comes from a local
    solve that a neighbour's state sends into another piece's basin, which happens or not
    according to where the layout puts the weights. With 36 points it happens in round 4,
    whatever the last bits of the solves (1 or 2 BLAS threads, ``x0`` moved by 1e-9: all
    four pieces by round 4, four pieces reported); with 28 it happened in some of those runs
    and not in others (before the layout broke its near-ties by rules, the 28-point run found
    the four pieces with 2 BLAS threads and 2 with 1)."""
    prob = DTLZ7(3, n_distance=2)

    def objectives(x: np.ndarray) -> np.ndarray:
        return prob.objectives(np.clip(x, 0.0, 1.0))

    solver = ps.adapters.from_scipy(
        objectives,
        np.full(prob.n_var, 0.5),
        bounds=[(0.0, 1.0)] * prob.n_var,
        scalarization="tchebycheff",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ps.surf_simplex(solver, 36, 3, warm_start=warm_start, iterations=16, probes=False)
    return res, solver


def true_piece(points: np.ndarray) -> np.ndarray:
    """Which of DTLZ7's four pieces each point lies on (by its position objectives)."""
    return np.asarray((points[:, 0] > SPLIT).astype(int) * 2 + (points[:, 1] > SPLIT))
