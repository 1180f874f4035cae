"""SURF on ZDT3's five pieces, with the warm-start rules side by side, and ZDT1 (linear) and
ZDT2 (Tchebycheff) as the connected controls; optionally pymoo's SMS-EMOA at the same number
of objective evaluations for the IGD ratio.

Per run: IGD (moocore) against a dense sample of the true front, the largest gap CV within
one piece of the true front (points assigned to the nearest piece; pieces with three points
or more), distinct points within 1e-3 of the front, ``success``, evaluations.

    python benchmarks/bench_pieces.py                 # 30 variables, rules slot and best
    python benchmarks/bench_pieces.py --n-var 10 --problems zdt3 --smsemoa
    python benchmarks/bench_pieces.py --problems zdt3 --rules pymoo-best \
        --normalize endpoints,none --smsemoa
    python benchmarks/bench_pieces.py --smoke     # ZDT3, 4 variables, rule slot, 3 rounds
"""

from __future__ import annotations

import argparse
import itertools
import sys
import warnings
from pathlib import Path

import moocore
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _bench_io as bench_io
from bench_emo import _RUN_OPTIONS, ON_FRONT_TOL, make_problem

import paretosurf as ps
from paretosurf import metrics


def measure(problem, points):  # type: ignore[no-untyped-def]
    d = problem.distance(points)
    on = points[d <= ON_FRONT_TOL]
    distinct = 0
    if len(on):
        order = on[np.argsort(on[:, 0])]
        distinct = 1 + int(np.sum(np.linalg.norm(np.diff(order, axis=0), axis=1) > ON_FRONT_TOL))
    owner = problem.piece_of(points)
    cvs = []
    for k in range(len(problem.pieces)):
        pts = points[owner == k]
        if len(pts) >= 3:
            cvs.append(metrics.cv(pts[np.argsort(pts[:, 0])]))
    return float(moocore.igd(points, problem.reference)), max(cvs, default=float("nan")), distinct


def run_surf(problem, rule, iterations=30, pymoo_evals=500, normalize="endpoints"):  # type: ignore[no-untyped-def]
    """SURF with the inner solver and warm-start rule of ``rule``: ``"slot"``, ``"best"``
    (local scipy solves, ``from_scipy``) or ``"pymoo-slot"``, ``"pymoo-best"`` (pymoo's GA
    over the whole box per solve, ``from_pymoo_global``, ``pymoo_evals`` evaluations of its
    global phase, then polished), spacing its points in the coordinates of ``normalize``
    (the loop option). Returns the result and the objective evaluations."""
    options = {**_RUN_OPTIONS.get(problem.name, {}), "normalize": normalize}
    if rule.startswith("pymoo-"):
        solver = ps.adapters.from_pymoo_global(
            problem.pymoo_problem(),
            algorithm="ga",
            n_evals=pymoo_evals,
            scalarization=problem.scalarization,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = ps.surf(
                solver,
                n_points=problem.n_points,
                warm_start=rule.removeprefix("pymoo-"),
                iterations=iterations,
                **options,
            )
        return res, res.n_evaluations or -1
    warm_start = rule
    calls = [0]

    def objectives(x):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return problem.objectives(np.asarray(x, dtype=np.float64))

    n = problem.n_var
    solver = ps.adapters.from_scipy(
        objectives, np.full(n, 0.5), bounds=[(0, 1)] * n, scalarization=problem.scalarization
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ps.surf(
            solver,
            n_points=problem.n_points,
            warm_start=warm_start,
            iterations=iterations,
            **options,  # ZDT1: the weight_bounds of bench_emo
        )
    return res, calls[0]


def smsemoa_igd(problem, evaluations, seed=0):  # type: ignore[no-untyped-def]
    from pymoo.algorithms.moo.sms import SMSEMOA
    from pymoo.optimize import minimize

    res = minimize(
        problem.pymoo_problem(),
        SMSEMOA(pop_size=problem.n_points),
        ("n_eval", evaluations),
        seed=seed,
        verbose=False,
    )
    return float(moocore.igd(np.asarray(res.F), problem.reference))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n-var", type=int, default=30)
    parser.add_argument("--problems", default="zdt3,zdt1,zdt2")
    parser.add_argument(
        "--rules", default="slot,best", help="slot, best, pymoo-slot, pymoo-best (see run_surf)"
    )
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--pymoo-evals", type=int, default=500)
    parser.add_argument("--smsemoa", action="store_true")
    parser.add_argument(
        "--normalize",
        default="endpoints",
        help="the runs' normalize options, comma-separated (endpoints: the default; none: "
        "spaced in the raw objectives, where IGD and the piece CV are measured)",
    )
    bench_io.add_options(
        parser, "pieces", smoke="ZDT3, 4 variables, rule slot, 3 rounds, SMS-EMOA at 300"
    )
    args = parser.parse_args()
    bench_io.start(args, parser)
    if args.smoke:
        args.n_var, args.problems, args.rules, args.iterations = 4, "zdt3", "slot", 3
        args.normalize, args.smsemoa = "endpoints", True
    print(
        "problem  rule        normalize  IGD     piece-CV  distinct-on-front  success  "
        "evaluations  rounds  pieces (shares)  findings"
    )
    for name in args.problems.split(","):
        problem = make_problem(name, n_var=args.n_var)
        for rule, normalize in itertools.product(args.rules.split(","), args.normalize.split(",")):
            res, evals = run_surf(problem, rule, args.iterations, args.pymoo_evals, normalize)
            igd, cv, distinct = measure(problem, res.points)
            pieces = None if res.pieces is None else [p.share for p in res.pieces]
            codes = [f.code + ("" if f.fatal else "(advice)") for f in res.findings]
            print(
                f"{name:8} {rule:10} {normalize:10} {igd:.4g}  {cv:.4g}  "
                f"{distinct:3d}/{len(res.points)}"
                f"  {res.success!s:5}  {evals:9d}  {len(res.history):3d}  {pieces}  {codes}",
                flush=True,
            )
            if args.smsemoa:
                peer_evals = min(evals, 300) if args.smoke else evals
                ref = smsemoa_igd(problem, peer_evals)
                print(
                    f"{'':8} SMS-EMOA IGD {ref:.4g} at {peer_evals} evaluations: ratio "
                    f"{igd / ref:.2f}"
                )


if __name__ == "__main__":
    main()
