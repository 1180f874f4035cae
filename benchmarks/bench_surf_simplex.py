"""Points over a Pareto surface (M = 3): SURF-simplex against Das-Dennis, random and energy
weights at the same budget, on random convex quadratics, a convex DTLZ-style front, a concave
one (DTLZ2, solved by its achievement scalarization) and a three-reward Deep Sea Treasure.

For each problem and method it prints the nearest-neighbour distance CV, the max/min
nearest-neighbour ratio, the smallest nearest-neighbour distance over the mean one, the
covering radius against a dense sample of the true front (``reference_front``) and the
hypervolume, all in coordinates normalized by the exact corner solutions (ideal 0, nadir 1
per objective); for SURF-simplex also the median of each figure over the last five rounds
(the layout still moves a little from round to round), and the rounds until the CV has made
90% of its improvement, next to the same count for two-objective SURF on two-objective
quadratics of the same kind. The tables and a figure per problem go to
``docs/results/many/``.

    python benchmarks/bench_surf_simplex.py                  # 91 points, 20 rounds
    python benchmarks/bench_surf_simplex.py --quick          # 3 quadratics + DTLZ, 10 rounds
    python benchmarks/bench_surf_simplex.py --held-out       # random quadratics 5-15, 16-30

``--held-out`` runs SURF-simplex alone on random quadratics of seeds 5 to 15 and 16 to 30
(seeds no setting was chosen on) and prints, per group: how many last rounds and how many
results (the round the run reports) have a max/min nearest-neighbour ratio of at most 3, the
largest ratio among the results, how many runs have a median max/min of at most 3 over their
last five rounds, the mean nearest-neighbour CV over the last five rounds and of the results,
and the closest pair over the mean spacing (smallest over the runs), for the last rounds and
the results.
"""

from __future__ import annotations

import argparse
import csv
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import paretosurf as ps
from paretosurf import metrics, plotting
from paretosurf.baselines import das_dennis, energy, random_simplex
from paretosurf.problems import DTLZ2, InvertedDTLZ2, QuadraticM, deep_sea_treasure_pressure

OUT = Path(__file__).resolve().parent.parent / "docs" / "results" / "many"


def problems(quick: bool) -> dict[str, Callable[[], Any]]:
    seeds = range(3) if quick else range(5)
    out: dict[str, Callable[[], Any]] = {
        f"quadratic-{s}": (lambda s=s: QuadraticM.random(3, 5, seed=s)) for s in seeds}
    out["dtlz"] = lambda: InvertedDTLZ2(3, radii=(1.0, 2.0, 5.0))
    # concave: weighted sums reach only its corners; its solver is the achievement
    # scalarization (scalarization="asf"), which reaches every point
    out["dtlz2-concave"] = lambda: DTLZ2(3, radii=(1.0, 2.0, 5.0))
    if not quick:
        out["dst-pressure"] = deep_sea_treasure_pressure
    return out


def normalizer(problem: Any) -> tuple[np.ndarray, np.ndarray]:
    corners = problem.front(np.eye(3))
    ideal, nadir = corners.min(axis=0), corners.max(axis=0)
    return ideal, np.where(nadir > ideal, nadir - ideal, 1.0)


def figures(points: np.ndarray, reference: np.ndarray, hv_ref: np.ndarray) -> dict[str, float]:
    return {"nn_cv": metrics.nn_cv(points), "nn_ratio": metrics.nn_ratio(points),
            "nn_min_ratio": metrics.nn_min_ratio(points),
            "covering": metrics.covering_radius(points, reference),
            "hv": metrics.hypervolume(points, hv_ref)}


def settle_round(result: ps.SurfResult, share: float = 0.9) -> int:
    """Rounds until the CV has made ``share`` of its improvement from round 0 to the end
    (the median of the last five rounds): a convergence time comparable between methods
    whose final CVs differ."""
    cvs = np.array([r.cv for r in result.history])
    final = float(np.median(cvs[-5:]))
    target = cvs[0] - share * (cvs[0] - final)
    return int(np.flatnonzero(cvs <= target)[0] + 1)


def surf_2d_rounds(seeds: range, iterations: int, alpha: float | str) -> list[int]:
    """Rounds two-objective SURF needs to settle on two-objective random quadratics."""
    out = []
    for s in seeds:
        problem = QuadraticM.random(2, 5, seed=s)
        exact = problem.solver()
        res = ps.surf(lambda w, st, exact=exact: exact.solve(np.array([w, 1.0 - w]), st),
                      20, iterations=iterations, alpha=alpha)
        out.append(settle_round(res))
    return out


def held_out(seeds: range, points: int, iterations: int, alpha: float | str) -> None:
    """SURF-simplex on random quadratics of ``seeds``: the figures of ``--held-out``."""
    last: list[dict[str, float]] = []
    reported: list[dict[str, float]] = []
    median5: list[float] = []
    cv5: list[float] = []
    for s in seeds:
        problem = QuadraticM.random(3, 5, seed=s)
        ideal, scale = normalizer(problem)
        res = ps.surf_simplex(problem.solver(), points, 3, iterations=iterations, alpha=alpha,
                              normalize=(ideal, ideal + scale))

        def spread(pts: np.ndarray, ideal: np.ndarray = ideal,
                   scale: np.ndarray = scale) -> dict[str, float]:
            z = (pts - ideal) / scale
            return {"ratio": metrics.nn_ratio(z), "cv": metrics.nn_cv(z),
                    "closest": metrics.nn_min_ratio(z)}

        five = [spread(r.points) for r in res.history[-5:]]
        last.append(five[-1])
        reported.append(spread(res.points))
        median5.append(float(np.median([f["ratio"] for f in five])))
        cv5.append(float(np.mean([f["cv"] for f in five])))
    n = len(seeds)
    print(f"random quadratics, seeds {seeds[0]} to {seeds[-1]} ({points} points, {iterations} "
          f"rounds): max/min <= 3 in {sum(r['ratio'] <= 3 for r in last)} of {n} last rounds "
          f"and {sum(r['ratio'] <= 3 for r in reported)} of {n} results (largest "
          f"{max(r['ratio'] for r in reported):.2f}); median max/min of the last five rounds "
          f"<= 3 in {sum(m <= 3 for m in median5)} of {n}; nn CV: last five rounds "
          f"{np.mean(cv5):.3f} (worst run {max(cv5):.3f}), results "
          f"{np.mean([r['cv'] for r in reported]):.3f}; closest pair / mean spacing: last "
          f"rounds {min(r['closest'] for r in last):.2f}, results "
          f"{min(r['closest'] for r in reported):.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=91)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--alpha", default="0.3")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-save", action="store_true")
    parser.add_argument("--held-out", action="store_true",
                        help="SURF-simplex alone on random quadratics of seeds 5-15 and 16-30")
    args = parser.parse_args()
    alpha: float | str = args.alpha if args.alpha == "auto" else float(args.alpha)
    iterations = 10 if args.quick else args.iterations
    warnings.simplefilter("ignore", ps.SurfWarning)
    if args.held_out:
        for seeds in (range(5, 16), range(16, 31)):
            held_out(seeds, args.points, iterations, alpha)
        return
    rows: list[dict[str, Any]] = []
    settle: dict[str, int] = {}
    for name, make in problems(args.quick).items():
        problem = make()
        ideal, scale = normalizer(problem)
        reference = (problem.reference_front(0.005) - ideal) / scale
        hv_ref = reference.max(axis=0) + 0.1 * np.ptp(reference, axis=0)
        fixed = (ideal, ideal + scale)
        runs = {}
        start = time.perf_counter()
        runs["SURF-simplex"] = ps.surf_simplex(problem.solver(), args.points, 3,
                                               iterations=iterations, alpha=alpha,
                                               normalize=fixed)
        surf_seconds = time.perf_counter() - start
        runs["Das-Dennis"] = das_dennis(problem.solver(), args.points, 3, iterations=1)
        runs["Random"] = random_simplex(problem.solver(), args.points, 3, iterations=1, seed=0)
        runs["Energy"] = energy(problem.solver(), args.points, 3, iterations=1)
        for label, res in runs.items():
            pts = (res.points - ideal) / scale
            row = {"problem": name, "method": label, **figures(pts, reference, hv_ref)}
            if label == "SURF-simplex":
                last = [figures((r.points - ideal) / scale, reference, hv_ref)
                        for r in res.history[-5:]]
                row.update({f"median5_{k}": float(np.median([f[k] for f in last]))
                            for k in ("nn_cv", "nn_ratio", "nn_min_ratio", "covering")})
                row["seconds"] = surf_seconds
                settle[name] = settle_round(res)
                if not args.no_save:
                    OUT.mkdir(parents=True, exist_ok=True)
                    shown = type("Shown", (), {"weights": res.weights, "points": pts,
                                               "label": f"SURF-simplex, {name}"})()
                    plotting.plot_surface_result(shown, reference=reference,
                                                    path=OUT / f"{name}.png")
            rows.append(row)
    header = (f"{'problem':15s} {'method':13s} {'nn CV':>7s} {'max/min':>8s} {'min/mean':>9s} "
              f"{'covering':>9s} {'HV':>8s}   median of last 5 rounds (CV, max/min, min/mean)")
    print(header)
    for row in rows:
        extra = ""
        if "median5_nn_cv" in row:
            extra = (f"   {row['median5_nn_cv']:.3f}, {row['median5_nn_ratio']:.2f}, "
                     f"{row['median5_nn_min_ratio']:.3f}  ({row['seconds']:.1f} s)")
        print(f"{row['problem']:15s} {row['method']:13s} {row['nn_cv']:7.3f} "
              f"{row['nn_ratio']:8.2f} {row['nn_min_ratio']:9.3f} {row['covering']:9.4f} "
              f"{row['hv']:8.4f}{extra}")
    best = {}
    for row in rows:
        if row["method"] != "SURF-simplex":
            best[row["problem"]] = min(best.get(row["problem"], np.inf), row["covering"])
    print("\ncovering radius of SURF-simplex / best baseline:",
          ", ".join(f"{r['problem']} {r['covering'] / best[r['problem']]:.2f}"
                    for r in rows if r["method"] == "SURF-simplex"))
    seeds = range(3) if args.quick else range(5)
    two = surf_2d_rounds(seeds, iterations, alpha)
    print(f"rounds until the CV has made 90% of its improvement, alpha={alpha}: SURF-simplex "
          f"{settle}; two-objective SURF (21 points) on two-objective quadratics of the same "
          f"kind, seeds {list(seeds)}: {two}")
    if not args.no_save:
        OUT.mkdir(parents=True, exist_ok=True)
        keys = sorted({k for row in rows for k in row}, key=lambda k: (k != "problem",
                                                                        k != "method", k))
        with open(OUT / "table.csv", "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=keys)
            writer.writeheader()
            writer.writerows(rows)
        print(f"tables and figures in {OUT}")


if __name__ == "__main__":
    main()
