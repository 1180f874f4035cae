"""What SURF-simplex's defaults spend on surfaces: objective evaluations against one sweep of
evenly spaced (Das-Dennis) weights, with the same adapter.

The counterpart of ``benchmarks/bench_default_budget.py`` (curves) for three objectives. Per
problem and number of points it prints:

* **sweep**: the evaluations of ``ps.methods.das_dennis(solver, N, 3, iterations=1)``: the N
  lattice weights solved once each from the adapter's own start (``x0``), the unit;
* **default**: the evaluations of ``ps.surf_simplex(solver, N, 3)`` with the library's
  defaults (``early_stopping=True``, ``iterations`` a cap), their ratio to the sweep's, the
  rounds run and why the run stopped;
* the reported round's nearest-neighbour CV and max/min (``res.cv``, ``res.gap_ratio``, in
  the run's coordinates) and ``success``.

Both runs get a fresh adapter (an adapter's constructor solves, for the ideal point and the
units, are not counted: the records' ``evaluations`` hold the solves of the rounds, as
:attr:`paretosurf.Result.n_evaluations` sums them; the objective calls counted around the run
itself are printed beside them as a check).

Problems (all through :func:`paretosurf.adapters.from_scipy`, local solves to convergence):

* ``dtlz2``: DTLZ2 (12 variables, ``scalarization="asf"``; the closed form of
  ``benchmarks/bench_emo.py``, as pymoo defines it);
* ``convex_dtlz2``: pymoo's convex DTLZ2 (12 variables, ``"asf"``);
* ``dtlz7``: :class:`paretosurf.problems.DTLZ7` (5 distance variables, four pieces,
  ``"tchebycheff"``, as ``benchmarks/bench_disconnected_surface.py`` runs it);
* ``quadratic-0``, ``quadratic-1``: :meth:`paretosurf.problems.QuadraticM.random` (5
  variables, seeds 0 and 1; weighted sums, L-BFGS-B from the origin).

Measured (``--bank``, 16 runs on connected surfaces, 28 and 91 points): one sweep's
evaluations times 9.8 (geometric mean; 3.9 to 21.9) before settled edge points kept their
weights (:meth:`paretosurf.methods.SurfSimplexMethod._hold_settled`), 8.2 (3.9 to 19.2)
after, mean nearest-neighbour CV 0.095 and 0.094, max/min 1.68 and 1.65, 16 successes
either way. DTLZ7's local solves stay on few of its pieces and fail either way (30 rounds,
9.3x). The default run (10 runs, 28 and 91 points) after runs began reusing the adapter's
fixed points (:class:`paretosurf.loop.FixedPoints`): 5.26x one sweep on the 8 runs on
connected surfaces, 6.45x before, the same rounds, CV and max/min in every run (DTLZ2, 91
points: 3.00x, 4.20x before; 28 points: 4.58x, 6.67x before). After the estimated ideal
point of ``"asf"`` took its margin from each objective's own descent in its corner solve:
5.01x, 8 successes, mean nn CV 0.085 (convex DTLZ2 4.52x and 3.20x, 6.61x and 3.57x before;
DTLZ2 with 91 points 3.33x, now running to its 30-round cap).

    python benchmarks/bench_surface_evaluations.py                    # 28 and 91 points
    python benchmarks/bench_surface_evaluations.py --points 28 --problems dtlz2,quadratic-0
    python benchmarks/bench_surface_evaluations.py --rounds          # per-round detail
    python benchmarks/bench_surface_evaluations.py --bank            # 18 runs, ~5 minutes
    python benchmarks/bench_surface_evaluations.py --smoke           # one quadratic, 15 points

What it prints also goes to ``--out`` (``report.txt``; default: a folder under the system's
temporary folder, see ``benchmarks/_bench_io.py``).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _bench_io as bench_io
import numpy as np
from numpy.typing import NDArray

import paretosurf as ps
from paretosurf.problems import DTLZ7, QuadraticM

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_emo import convex_dtlz2, dtlz2  # DTLZ2 as pymoo defines it

FloatArray = NDArray[np.float64]
PROBLEMS = ("dtlz2", "convex_dtlz2", "dtlz7", "quadratic-0", "quadratic-1")
#: ``--bank``: the problems above and four more random quadratics (seeds 2 to 5).
BANK = (*PROBLEMS, "quadratic-2", "quadratic-3", "quadratic-4", "quadratic-5")


class Counted:
    """The objectives with a call counter (reset before each run)."""

    def __init__(self, fun: Callable[[FloatArray], Any]) -> None:
        self.fun = fun
        self.calls = 0

    def __call__(self, x: FloatArray) -> FloatArray:
        self.calls += 1
        return np.asarray(self.fun(x), dtype=np.float64)


def make_solver(name: str) -> tuple[Any, Counted]:
    """A fresh ``from_scipy`` adapter of problem ``name`` and its call counter."""
    if name in ("dtlz2", "convex_dtlz2"):
        fun = Counted(dtlz2 if name == "dtlz2" else convex_dtlz2)
        n = 12
        solver = ps.adapters.from_scipy(
            fun, np.full(n, 0.5), bounds=[(0.0, 1.0)] * n, scalarization="asf"
        )
    elif name == "dtlz7":
        problem = DTLZ7(3, 5)
        fun = Counted(lambda x: problem.objectives(np.clip(x, 0.0, 1.0)))
        solver = ps.adapters.from_scipy(
            fun,
            np.full(problem.n_var, 0.5),
            bounds=[(0.0, 1.0)] * problem.n_var,
            scalarization="tchebycheff",
        )
    elif name.startswith("quadratic-"):
        quad = QuadraticM.random(3, 5, seed=int(name.split("-")[1]))
        fun = Counted(quad.objectives)
        solver = ps.adapters.from_scipy(fun, np.zeros(quad.n_dim))
    else:
        raise ValueError(f"problem must be one of {', '.join(PROBLEMS)}, got {name!r}")
    fun.calls = 0  # the constructor's solves are not the run's
    return solver, fun


def bench(name: str, n_points: int, rounds: bool) -> dict[str, Any]:
    """One problem at ``n_points``: the sweep and the default run."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        solver, fun = make_solver(name)
        sweep = ps.methods.das_dennis(solver, n_points, 3, iterations=1)
        sweep_evals = sweep.n_evaluations or fun.calls
        solver, fun = make_solver(name)
        started = time.process_time()
        res = ps.surf_simplex(solver, n_points, 3)
        seconds = time.process_time() - started
    spent = res.n_evaluations or 0
    row = {
        "problem": name,
        "n": n_points,
        "sweep": sweep_evals,
        "default": spent,
        "calls": fun.calls,
        "ratio": spent / max(sweep_evals, 1),
        "rounds": len(res.history),
        "stop": res.stop_reason,
        "cv": res.cv,
        "maxmin": res.gap_ratio,
        "success": res.success,
        "seconds": seconds,
    }
    if rounds:
        for r in res.history:
            ev = 0 if r.evaluations is None else int(np.sum(r.evaluations))
            print(
                f"    round {r.iteration:2d}: {ev / max(sweep_evals, 1):5.2f} sweeps, "
                f"cv {r.cv:.3f}, max/min {r.gap_ratio:.2f}"
            )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--problems", default=",".join(PROBLEMS))
    parser.add_argument("--points", default="28,91", help="numbers of points (lattice sizes)")
    parser.add_argument("--rounds", action="store_true", help="print each round's spend")
    bench_io.add_options(parser, "surface_evaluations", smoke="quadratic-0 at 15 points")
    parser.add_argument("--bank", action="store_true", help="and quadratics of seeds 2 to 5")
    args = parser.parse_args()
    bench_io.start(args, parser)
    names = ["quadratic-0"] if args.smoke else args.problems.split(",")
    if args.bank:
        names = list(BANK)
    sizes = [15] if args.smoke else [int(v) for v in args.points.split(",")]
    print(
        "| problem | N | sweep | default | calls | x sweep | rounds | stop | nn CV | max/min "
        "| success | s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for n in sizes:
        for name in names:
            if args.rounds:
                print(f"  {name}, {n} points:")
            r = bench(name, n, args.rounds)
            print(
                f"| {r['problem']} | {r['n']} | {r['sweep']} | {r['default']} | {r['calls']} "
                f"| {r['ratio']:.2f}x | {r['rounds']} | {r['stop']} | {r['cv']:.3f} "
                f"| {r['maxmin']:.2f} | {r['success']} | {r['seconds']:.0f} |",
                flush=True,
            )
            rows.append(r)
    # the runs that reach the surface (DTLZ7's local solves stay on a few of its pieces)
    good = [r for r in rows if r["problem"] != "dtlz7"]
    if good:
        print(
            f"\n{len(good)} runs on connected surfaces: geometric mean "
            f"{np.exp(np.mean(np.log([r['ratio'] for r in good]))):.2f}x one sweep, mean nn CV "
            f"{np.mean([r['cv'] for r in good]):.4f}, mean max/min "
            f"{np.mean([r['maxmin'] for r in good]):.3f}, "
            f"{sum(bool(r['success']) for r in good)} successes"
        )


if __name__ == "__main__":
    main()
