"""SURF on a disconnected surface (DTLZ7, three objectives, four pieces) against pymoo's
SMS-EMOA and NSGA-III at the same number of objective evaluations.

:func:`paretosurf.surf_simplex` runs with a ray scalarization (``"asf"`` or ``"tchebycheff"``;
weighted sums reach only the convex parts of DTLZ7's pieces), either inner solver (local
solves from the middle of the box, :func:`paretosurf.adapters.from_scipy`, or pymoo's GA over
the whole box, then polished, :func:`paretosurf.adapters.from_pymoo_global`) and either
warm-start rule (``"nearest"``, the default, or ``"best"``: the previous solution that scores
best at the new weight under the solver's scalarization). Every call of the objectives is
counted; each peer gets a population of the same size (NSGA-III: as many Das-Dennis reference
directions as there are points, or the next lattice size) and as many evaluations as the
paretosurf run before it that spent the most.

Per run: IGD (moocore) against a dense sample of the true front
(:meth:`paretosurf.problems.DTLZ7.pareto_front`, a grid step of 1e-3), the points within
``1e-2`` of the front, the distinct points, how many points each of the four pieces holds, the
nearest-neighbour CV of the points on the front, the max/min of the nearest-neighbour distances
within each true piece (the evenness within pieces; the front scaled to its extent), and for
SURF ``success`` and its findings.

    python benchmarks/bench_disconnected_surface.py               # 28 points, local solves
    python benchmarks/bench_disconnected_surface.py --solvers scipy,pymoo    # ~15 minutes
    python benchmarks/bench_disconnected_surface.py --variants   # 9 DTLZ7 variants, ~4 minutes
    python benchmarks/bench_disconnected_surface.py --smoke      # 10 points, 3 rounds, tiny peers

``--variants`` runs Tchebycheff local solves with ``warm_start="best"`` on DTLZ7 with 2, 5 and
10 distance variables and 28, 36 and 45 points, and prints per run the IGD, the points per
piece, the run's own nearest-neighbour max/min (within its pieces, in its coordinates) and
``success``, then the mean IGD and the successes.
"""

from __future__ import annotations

import argparse
import time
import warnings

import _bench_io as bench_io
import moocore
import numpy as np
from numpy.typing import NDArray
from scipy.spatial import cKDTree

import paretosurf as ps
from paretosurf.problems import DTLZ7
from paretosurf.surfaces._weights import lattice_partitions

FloatArray = NDArray[np.float64]
#: A point this close to the front's sample counts as on the front.
ON_FRONT_TOL = 1e-2
#: Grid values per position objective of the front's sample (:meth:`DTLZ7.pareto_front`):
#: a step of 1e-3, times ``f3``'s slope (up to about 9) still within ``ON_FRONT_TOL``.
FRONT_GRID = 1001
#: DTLZ7's pieces split each position objective at about 0.44 (between 0.2514 and 0.6316).
PIECE_SPLIT = 0.44
#: Most rounds of a paretosurf run (None: the library's default; ``--smoke``: 3).
ROUNDS: int | None = None
#: Most evaluations of a peer (None: as many as paretosurf spent; ``--smoke``: 200).
PEER_EVALS: int | None = None


def measure(points: FloatArray, front: FloatArray) -> dict[str, object]:
    """IGD, points on the front, distinct points, points per piece, nearest-neighbour CV,
    and the max/min of each point's nearest-neighbour distance within its true piece (in
    coordinates scaled by the front's extent; pieces of one point left out)."""
    dist = cKDTree(front).query(points)[0]
    on = points[dist <= ON_FRONT_TOL]
    piece = (on[:, 0] > PIECE_SPLIT).astype(int) * 2 + (on[:, 1] > PIECE_SPLIT).astype(int)
    distinct = len(np.unique(np.round(points, 3), axis=0))
    scaled = (on - front.min(axis=0)) / np.ptp(front, axis=0)
    within = [
        ps.metrics.nn_distances(scaled[piece == k]) for k in range(4) if np.sum(piece == k) > 1
    ]
    near = np.concatenate([np.empty(0), *within])
    return {
        "igd": float(moocore.igd(points, front)),
        "on": len(on),
        "distinct": distinct,
        "pieces": np.bincount(piece, minlength=4).tolist(),
        "nn_cv": float(ps.metrics.nn_cv(on)) if len(on) >= 3 else float("nan"),
        "piece_ratio": float(ps.metrics.gap_ratio_of_gaps(near)) if near.size else float("nan"),
    }


def run_surf(
    problem: DTLZ7,
    n_points: int,
    scalarization: str,
    solver_kind: str,
    pymoo_evals: int,
    warm_start: str = "nearest",
) -> tuple[ps.Result, int, float]:
    """``surf_simplex`` with the library's defaults and the given inner solver; returns the
    result, the objective evaluations and the CPU seconds."""
    calls = [0]

    def objectives(x: FloatArray) -> FloatArray:
        calls[0] += 1
        return problem.objectives(np.clip(x, 0.0, 1.0))

    bounds = [(0.0, 1.0)] * problem.n_var
    start = time.process_time()
    solver: object
    if solver_kind == "scipy":
        solver = ps.adapters.from_scipy(
            objectives, np.full(problem.n_var, 0.5), bounds=bounds, scalarization=scalarization
        )
    else:
        solver = ps.adapters.from_pymoo_global(
            objectives, bounds, scalarization=scalarization, n_evals=pymoo_evals
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ps.surf_simplex(
            solver,
            n_points,
            problem.n_objectives,
            warm_start=warm_start,
            **({} if ROUNDS is None else {"iterations": ROUNDS}),
        )
    return res, calls[0], time.process_time() - start


def run_peer(
    name: str, problem: DTLZ7, n_points: int, evaluations: int, seed: int
) -> tuple[FloatArray, float]:
    """pymoo's SMS-EMOA or NSGA-III with a population of ``n_points`` for ``evaluations``
    evaluations; returns the non-dominated points of its last population and CPU seconds."""
    from pymoo.algorithms.moo.nsga3 import NSGA3
    from pymoo.algorithms.moo.sms import SMSEMOA
    from pymoo.optimize import minimize
    from pymoo.problems import get_problem
    from pymoo.util.ref_dirs import get_reference_directions

    pymoo_problem = get_problem("dtlz7", n_var=problem.n_var, n_obj=problem.n_objectives)
    if name == "nsga3":
        partitions = lattice_partitions(n_points, problem.n_objectives)
        directions = get_reference_directions(
            "das-dennis", problem.n_objectives, n_partitions=partitions
        )
        algorithm = NSGA3(directions, pop_size=n_points)
    else:
        algorithm = SMSEMOA(pop_size=n_points)
    start = time.process_time()
    res = minimize(pymoo_problem, algorithm, ("n_eval", evaluations), seed=seed, verbose=False)
    return np.asarray(res.F, dtype=np.float64), time.process_time() - start


def _row(label: str, evals: int, cpu: float, m: dict[str, object], notes: str = "") -> str:
    return (
        f"| {label} | {evals:,} | {m['igd']:.4f} | {m['on']} | {m['distinct']} | "
        f"{m['pieces']} | {m['nn_cv']:.3f} | {m['piece_ratio']:.2f} | {cpu:.0f} | {notes} |"
    )


def variants() -> None:
    """The nine DTLZ7 variants of ``--variants``."""
    print("| distance variables | points | evaluations | IGD | per piece | max/min | success |")
    print("|---|---|---|---|---|---|---|")
    igds, successes = [], 0
    for n_distance in (2, 5, 10):
        problem = DTLZ7(3, n_distance=n_distance)
        front = problem.pareto_front(FRONT_GRID)
        for n_points in (28, 36, 45):
            res, evals, _ = run_surf(problem, n_points, "tchebycheff", "scipy", 0, "best")
            m = measure(res.points, front)
            igds.append(float(m["igd"]))  # type: ignore[arg-type]
            successes += bool(res.success)
            print(
                f"| {n_distance} | {n_points} | {evals:,} | {m['igd']:.4f} | {m['pieces']} "
                f"| {res.gap_ratio:.2f} | {res.success} |",
                flush=True,
            )
    print(f"\nmean IGD {np.mean(igds):.4f}, success {successes} of {len(igds)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n-points", type=int, default=28)
    parser.add_argument("--n-distance", type=int, default=5, help="DTLZ7's distance variables")
    parser.add_argument("--scalarizations", default="tchebycheff,asf")
    parser.add_argument("--solvers", default="scipy", help="scipy, pymoo")
    parser.add_argument("--warm-starts", default="nearest,best", help="nearest, best, ...")
    parser.add_argument("--pymoo-evals", type=int, default=500)
    parser.add_argument("--seeds", type=int, default=1, help="seeds of the peers")
    parser.add_argument("--variants", action="store_true", help="the nine DTLZ7 variants")
    bench_io.add_options(
        parser,
        "disconnected_surface",
        smoke="10 points, 2 distance variables, 3 rounds, Tchebycheff and 'nearest' only, "
        "200 evaluations a peer",
    )
    args = parser.parse_args()
    bench_io.start(args, parser)
    if args.smoke:
        global ROUNDS, FRONT_GRID, PEER_EVALS
        ROUNDS, FRONT_GRID, PEER_EVALS = 3, 101, 200
        args.n_points, args.n_distance, args.scalarizations = 10, 2, "tchebycheff"
        args.solvers, args.warm_starts, args.variants = "scipy", "nearest", False
    if args.variants:
        variants()
        return
    problem = DTLZ7(3, n_distance=args.n_distance)
    front = problem.pareto_front(FRONT_GRID)
    print(
        f"DTLZ7, 3 objectives, {problem.n_var} variables, {args.n_points} points "
        f"(pieces: f1, f2 below or above {PIECE_SPLIT})\n"
    )
    print(
        "| method | evaluations | IGD | on front | distinct | per piece | nn CV "
        "| max/min in pieces | CPU s | notes |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for scalarization in args.scalarizations.split(","):
        for kind in args.solvers.split(","):
            spent = []
            for rule in args.warm_starts.split(","):
                res, evals, cpu = run_surf(
                    problem, args.n_points, scalarization, kind, args.pymoo_evals, rule
                )
                spent.append(evals)
                codes = ", ".join(sorted({f.code for f in res.findings}))
                notes = f"success={res.success}" + (f" ({codes})" if codes else "")
                label = f"paretosurf, {scalarization}, {kind}, {rule}"
                print(_row(label, evals, cpu, measure(res.points, front), notes), flush=True)
            # the peers at the largest budget the rules spent
            evals = max(spent) if PEER_EVALS is None else min(max(spent), PEER_EVALS)
            for peer in ("sms", "nsga3"):
                for seed in range(args.seeds):
                    points, peer_cpu = run_peer(peer, problem, args.n_points, evals, seed)
                    label = f"{'SMS-EMOA' if peer == 'sms' else 'NSGA-III'}, seed {seed}"
                    print(_row(label, evals, peer_cpu, measure(points, front)), flush=True)


if __name__ == "__main__":
    main()
