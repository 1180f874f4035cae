"""Shared test doubles: the gear toy in closed form, a recording solver, a run without
rounds, and the command line called in-process.

Test modules import them by name (``from support import gear_solver``; pytest puts this
folder on ``sys.path``); the doubles a user's tests need too (``GearKStep``, ``Interrupt``,
``interrupt_after``, ``gear_curve``) are in :mod:`paretosurf.testing`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import paretosurf as ps

#: Gear of the toy problem used across the tests: front ((1-x)^2, x^2) at x = gear_x(w).
P = 9.0


def gear_x(w: float | np.ndarray, p: float = P) -> Any:
    """Exact LS minimizer of the gear toy ``sqrt(p)/2 (x-1)^2, x^2/2``."""
    r = math.sqrt(p)
    return r * w / (1 + (r - 1) * w)


def gear_phi(w: np.ndarray) -> np.ndarray:
    """True arc-length CDF of ((1-x)^2, x^2) along x = gear_x(w), from the antiderivative of
    2 sqrt(2x^2 - 2x + 1) (substituting u = 2x - 1: sqrt(2) * (u sqrt(1+u^2) + asinh u) / 2)."""

    def s(x: np.ndarray) -> np.ndarray:
        u = 2 * x - 1
        return (u * np.sqrt(1 + u * u) + np.arcsinh(u)) / np.sqrt(2)

    return (s(gear_x(w)) - s(0.0)) / (s(1.0) - s(0.0))


def gear_solver(w: float, state: object) -> ps.Solution:
    """Exact gear-toy solver (a plain callable; ignores its warm start)."""
    x = gear_x(w)
    return ps.Solution([(1 - x) ** 2, x**2], state=x, info={"steps": 1})


class CountingSolver:
    """Exact gear-toy solver recording every ``(weight, state)`` call; offers ``solve_many``.

    Its states are ``("slot-state", w)``, so a test can tell which solve a warm start came
    from.
    """

    def __init__(self) -> None:
        self.calls: list[tuple[float, object]] = []
        self.batches = 0

    def solve(self, w: float, state: object) -> ps.Solution:
        self.calls.append((w, state))
        return ps.Solution(gear_solver(w, state).objectives, state=("slot-state", w))

    def solve_many(self, weights: Sequence[float], states: Sequence[object]) -> list[ps.Solution]:
        self.batches += 1
        return [self.solve(float(w), s) for w, s in zip(weights, states, strict=True)]


def no_rounds(res: ps.Result) -> ps.Result:
    """``res`` as a run that solved no round returns it (its method finished before its first
    round): no history, no points, the identity CDF for SURF."""
    p = len(res.weights)
    return ps.Result(
        method=res.method,
        label=res.label,
        settings=res.settings,
        weights=res.weights,
        points=np.empty((p, 0)),
        states=[None] * p,
        cdf=None if res.cdf is None else ps.ArcLengthCDF.identity(),
        history=[],
        n_solves=0,
        n_steps=0,
        converged=False,
        stop_reason="method",
        success=False,
        message=f"{res.label}: no round was run",
        findings=[],
    )


def interrupted_surf(solver: Any, folder: Any, n: int = 4, rounds: int = 2) -> None:
    """A SURF run of ``solver`` in ``folder`` (N = ``n``, at most 6 rounds) stopped after
    ``rounds`` rounds, its checkpoint written every round."""
    from paretosurf.testing import Interrupt, interrupt_after

    with pytest.raises(Interrupt):
        ps.surf(
            solver,
            n,
            iterations=6,
            checkpoint=folder,
            checkpoint_period=0,
            callback=interrupt_after(rounds),
            early_stopping=False,
        )


def resumed_surf(solver: Any, folder: Any, n: int = 4, **options: Any) -> ps.Result:
    """The run of :func:`interrupted_surf` in ``folder`` resumed with ``solver``."""
    return ps.surf(
        solver, n, iterations=6, checkpoint=folder, resume=True, early_stopping=False, **options
    )


def call_cli(argv: list[str], capsys: Any) -> tuple[int, str, str]:
    """``paretosurf.cli.main(argv)``'s exit status (argparse's too), stdout and stderr."""
    from paretosurf import cli

    try:
        status = cli.main(argv)
    except SystemExit as exc:
        status = int(exc.code or 0)
    text = capsys.readouterr()
    return status, text.out, text.err


def _scipy_version() -> tuple[int, int]:
    import scipy

    major, minor = scipy.__version__.split(".")[:2]
    return int(major), int(minor)


#: Tests whose run takes the path it does because of how scipy's SLSQP steps: scipy 1.16
#: rewrote SLSQP (from Fortran to C), and the local solves of these runs (a basin a neighbour's
#: state sends a solve into, a multimodal distance function) end elsewhere with the older one,
#: which is the newest Python 3.10 can install. The library's checks still report what such a
#: run reached (``success=False`` with its findings); the figures these tests assert are the
#: new SLSQP's.
needs_scipy_116_slsqp = pytest.mark.skipif(
    _scipy_version() < (1, 16), reason="asserts figures of scipy >= 1.16's SLSQP"
)


def scaled_pymoo_problem(base: Any, factors: Any) -> Any:
    """The pymoo problem ``base`` with its objectives multiplied by ``factors`` (the same
    problem in other units; needs pymoo)."""
    from pymoo.core.problem import Problem

    scale = np.asarray(factors, dtype=np.float64)

    class Scaled(Problem):
        def __init__(self) -> None:
            super().__init__(n_var=base.n_var, n_obj=base.n_obj, xl=base.xl, xu=base.xu)

        def _evaluate(self, x: Any, out: dict[str, Any], *args: Any, **kwargs: Any) -> None:
            out["F"] = base.evaluate(x, return_values_of=["F"]) * scale

    return Scaled()
