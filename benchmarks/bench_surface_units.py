"""Surfaces in other units: the same problem, its objectives multiplied by constant factors,
through ``surf_simplex``'s defaults, judged against the problem's own reference front.

A user's objectives come in the units they come in (cents or dollars, a loss times 1000). A
run should not care: multiplying the objectives by constants changes nothing of the front's
shape. For each problem of pymoo's library and each vector of factors, ``ps.surf_simplex(
ps.adapters.from_pymoo(scaled, scalarization="asf"), N, 3)`` runs with its defaults, and its
points, divided by the factors again, are judged against pymoo's reference front of the
unscaled problem (its Das-Dennis sample with 40 partitions; never the run's own figures):

- ``success`` and the findings' codes, the rounds and the objective evaluations;
- ``nn CV``: the nearest-neighbour CV of the points in the reference front's normalized
  objectives (ideal to nadir);
- ``IGD``: the mean distance from the reference front's points to the nearest point of the
  run, in those coordinates;
- ``far``: the share of the reference front further than 1.5 mean spacings from every point
  of the run (a ``success=True`` run that leaves part of the front uncovered would show it);
- ``off``: the largest distance from a point of the run to the reference front.

The verdict per row: **ok** (``success=True``, ``far`` at most 0.02), **says so**
(``success=False``) or **SILENT** (``success=True`` with more of the front uncovered). The
summary counts the successes per vector of factors: a run that succeeds in the problem's
own units and not in others is a units defect.

Measured before the ideal point of ``"asf"`` took its margin from each objective's own
minimum and the units were checked against the box's ranges: DTLZ1 (5 and 7 variables),
DTLZ3 and DTLZ4 succeeded in 4 of 16 runs in other units (and in 4 of 4 in their own);
after, in 15 of 16 (4 of 4), every success covering its front (DTLZ3 times (100, 10, 1)
says so: ``uneven``). DTLZ2 succeeds in all its
units before and after, C2DTLZ2 in none (``collapsed``, ``local_minima``).

    python benchmarks/bench_surface_units.py                  # DTLZ1-4, C2DTLZ2, 5 factors
    python benchmarks/bench_surface_units.py --problems dtlz1:7 --factors "1,1,1;1,10,100"
    python benchmarks/bench_surface_units.py --smoke          # DTLZ2, 10 points, 2 factors

What it prints also goes to ``--out`` (``report.txt``; default: a folder under the system's
temporary folder, see ``benchmarks/_bench_io.py``).
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections import defaultdict
from typing import Any

import _bench_io as bench_io
import numpy as np
from numpy.typing import NDArray
from scipy.spatial import cKDTree

import paretosurf as ps

FloatArray = NDArray[np.float64]
#: Problems (pymoo's names) with their numbers of variables.
PROBLEMS = "dtlz1:5,dtlz1:7,dtlz2:7,dtlz3:7,dtlz4:7,c2dtlz2:7"
#: Vectors of factors the objectives are multiplied by ("1,1,1": the problem's own units).
FACTORS = "1,1,1;100,100,100;1,10,100;100,10,1;0.01,1,1"
#: The share of the reference front a ``success=True`` run may leave further than 1.5 mean
#: spacings from its points.
FAR_SHARE = 0.02


def scaled(base: Any, factors: FloatArray) -> Any:
    """The pymoo problem ``base`` with its objectives multiplied by ``factors`` (its
    constraints as they are)."""
    from pymoo.core.problem import Problem

    class Scaled(Problem):
        def __init__(self) -> None:
            super().__init__(
                n_var=base.n_var,
                n_obj=base.n_obj,
                n_ieq_constr=base.n_ieq_constr,
                xl=base.xl,
                xu=base.xu,
            )

        def _evaluate(self, x: FloatArray, out: dict[str, Any], *args: Any, **kw: Any) -> None:
            values, constraints = base.evaluate(x, return_values_of=["F", "G"])
            out["F"] = values * factors
            if base.n_ieq_constr:
                out["G"] = constraints

    return Scaled()


def reference_front(base: Any) -> FloatArray:
    """pymoo's reference front of ``base``: its Das-Dennis sample where it takes one."""
    from pymoo.util.ref_dirs import get_reference_directions

    directions = get_reference_directions("das-dennis", 3, n_partitions=40)
    try:
        front = base.pareto_front(directions)
    except TypeError:
        front = base.pareto_front()
    return np.asarray(front, dtype=np.float64)


def judge(points: FloatArray, front: FloatArray) -> dict[str, float]:
    """The run's points (in the problem's own units) against the reference ``front``."""
    low, high = front.min(axis=0), front.max(axis=0)
    span = np.where(high - low > 0, high - low, 1.0)
    ref, pts = (front - low) / span, (points - low) / span
    to_points = cKDTree(pts).query(ref)[0]  # (IGD's distances, each one kept for "far")
    spacing = float(np.mean(ps.metrics.nn_distances(pts)))
    return {
        "cv": ps.metrics.nn_cv(pts),
        "igd": ps.metrics.igd(pts, ref),
        "far": float(np.mean(to_points > 1.5 * spacing)),
        "off": float(cKDTree(ref).query(pts)[0].max()),
    }


def run(name: str, n_var: int, factors: FloatArray, n_points: int) -> dict[str, Any]:
    """One problem in the units ``factors``."""
    from pymoo.problems import get_problem

    base = get_problem(name, n_var=n_var, n_obj=3)
    started = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        solver = ps.adapters.from_pymoo(scaled(base, factors), scalarization="asf")
        res = ps.surf_simplex(solver, n_points, 3, progress=False)
    row: dict[str, Any] = {
        "problem": f"{name} ({n_var})",
        "factors": ",".join(f"{f:g}" for f in factors),
        "success": res.success,
        "findings": ", ".join(f.code for f in res.findings) or "-",
        "rounds": len(res.history),
        "evals": res.n_evaluations or 0,
        "seconds": time.process_time() - started,
        **judge(res.points / factors, reference_front(base)),
    }
    if not res.success:
        row["verdict"] = "says so"
    else:
        row["verdict"] = "ok" if row["far"] <= FAR_SHARE else "SILENT"
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--problems", default=PROBLEMS, help="name:variables, comma-separated")
    parser.add_argument("--factors", default=FACTORS, help="factor vectors, ';'-separated")
    parser.add_argument("--points", type=int, default=28)
    bench_io.add_options(parser, "surface_units", smoke="DTLZ2 (5), 10 points, 2 factors")
    args = parser.parse_args()
    bench_io.start(args, parser)
    problems, factor_text, n_points = args.problems, args.factors, args.points
    if args.smoke:
        problems, factor_text, n_points = "dtlz2:5", "1,1,1;100,10,1", 10
    cases = [(p.split(":")[0], int(p.split(":")[1])) for p in problems.split(",")]
    vectors = [np.array([float(v) for v in f.split(",")]) for f in factor_text.split(";")]
    print(
        "| problem | factors | success | findings | rounds | evals | nn CV | IGD | far | off "
        "| CPU s | verdict |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    successes: dict[str, list[bool]] = defaultdict(list)
    for name, n_var in cases:
        for factors in vectors:
            r = run(name, n_var, factors, n_points)
            successes[r["factors"]].append(bool(r["success"]))
            print(
                f"| {r['problem']} | {r['factors']} | {r['success']} | {r['findings']} "
                f"| {r['rounds']} | {r['evals']:,} | {r['cv']:.3f} | {r['igd']:.4f} "
                f"| {r['far']:.2f} | {r['off']:.3f} | {r['seconds']:.0f} | {r['verdict']} |",
                flush=True,
            )
    print()
    for factors, done in successes.items():
        print(f"factors {factors}: {sum(done)} of {len(done)} runs succeed")


if __name__ == "__main__":
    main()
