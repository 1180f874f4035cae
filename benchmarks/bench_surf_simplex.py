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
quadratics of the same kind. The tables and a figure per problem go to ``--out`` (default: a
folder under the system's temporary folder, see ``benchmarks/_bench_io.py``) and, with
``--write-docs``, to ``docs/results/many/`` (the published files); ``--no-save`` writes neither.

    python benchmarks/bench_surf_simplex.py                  # 91 points, 20 rounds
    python benchmarks/bench_surf_simplex.py --write-docs     # the same, published
    python benchmarks/bench_surf_simplex.py --quick          # 3 quadratics + DTLZ, 10 rounds
    python benchmarks/bench_surf_simplex.py --smoke          # 1 quadratic + DTLZ, 10 points
    python benchmarks/bench_surf_simplex.py --held-out       # random quadratics 5-15, 16-30
    python benchmarks/bench_surf_simplex.py --units          # normalized and raw, 16-30
    python benchmarks/bench_surf_simplex.py --timing         # the method's own time against N

``--held-out`` runs SURF-simplex alone on random quadratics of seeds 5 to 15 and 16 to 30
(seeds no setting was chosen on) and prints, per group: how many last rounds and how many
results (the round the run reports) have a max/min nearest-neighbour ratio of at most 3, the
largest ratio among the results, how many runs have a median max/min of at most 3 over their
last five rounds, the mean nearest-neighbour CV over the last five rounds and of the results,
and the closest pair over the mean spacing (smallest over the runs), for the last rounds and
the results; and the settling of each run: the largest nearest-neighbour CV of rounds 15 to
the last over the smallest (a layout that contracts stays within 2x), with how many runs
stay within 2x. The runs go to their last round (no early stop). ``--normalize endpoints``
leaves the runs their default normalization (their own corners) instead of the exact one;
the figures are measured in the exact one either way.

    python benchmarks/bench_surf_simplex.py --held-out --iterations 40 --normalize endpoints

``--units`` runs SURF-simplex twice on each random quadratic of seeds 16 to 30 (the raw
objectives' ranges differ by factors of 1.2 to 22): with ``normalize="endpoints"`` (the
default), measured in the coordinates normalized by the corner solutions, and with
``normalize="none"``, measured in the raw objectives, the coordinates that run was asked to
space its points in. It prints, side by side per seed, the nearest-neighbour CV and max/min
of each, with the raw fronts' spans and their thinness in both coordinates (face area over
the square of the longest edge: below about 0.03 the surface is a band narrower than the
spacing along much of its length), and the means.

``--timing`` runs SURF-simplex with each problem's exact (closed-form, nearly free) solver at
21, 45, 91, 231 and 496 points (lattice sizes of three objectives) and prints per round: the
loop's time, the method's own time (``propose`` and ``tell``: everything but the solves and
the driver's bookkeeping), the solves' time and the method's share of the loop, and the own
time over ``N log N`` (flat when the cost grows like ``N log N``); beside them the own time of
the library at git revision ``--baseline`` (default 12ae654, before the layout sampled its
faces once per round instead of interpolating them per query), run in a subprocess in the
same session (each size timed ``--repeats`` times, the two in turn; medians and the median
ratio printed).
"""

from __future__ import annotations

import argparse
import csv
import functools
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _bench_io as bench_io
import numpy as np

import paretosurf as ps
from paretosurf import metrics, plotting
from paretosurf.loop._driver import run
from paretosurf.methods import das_dennis, energy, random_simplex
from paretosurf.methods._surf_simplex import SurfSimplexMethod
from paretosurf.problems import DTLZ2, InvertedDTLZ2, QuadraticM, deep_sea_treasure_pressure

#: The folders the tables and figures go to: ``--out`` and, with ``--write-docs``,
#: ``docs/results/many`` (set by :func:`main`).
FOLDERS: list[Path] = []


def write_csv(name: str, rows: list[dict[str, Any]], keys: list[str] | None = None) -> None:
    """``rows`` as ``name`` in every folder of :data:`FOLDERS`."""
    for folder in FOLDERS:
        with open(folder / name, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=keys or list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


def problems(quick: bool, smoke: bool = False) -> dict[str, Callable[[], Any]]:
    seeds = range(1) if smoke else range(3) if quick else range(5)
    out: dict[str, Callable[[], Any]] = {
        f"quadratic-{s}": functools.partial(QuadraticM.random, 3, 5, seed=s) for s in seeds
    }
    out["dtlz"] = lambda: InvertedDTLZ2(3, radii=(1.0, 2.0, 5.0))
    # concave: weighted sums reach only its corners; its solver is the achievement
    # scalarization (scalarization="asf"), which reaches every point
    if not smoke:
        out["dtlz2-concave"] = lambda: DTLZ2(3, radii=(1.0, 2.0, 5.0))
    if not quick and not smoke:
        out["dst-pressure"] = deep_sea_treasure_pressure
    return out


def normalizer(problem: Any) -> tuple[np.ndarray, np.ndarray]:
    corners = problem.front(np.eye(3))
    ideal, nadir = corners.min(axis=0), corners.max(axis=0)
    return ideal, np.where(nadir > ideal, nadir - ideal, 1.0)


def figures(points: np.ndarray, reference: np.ndarray, hv_ref: np.ndarray) -> dict[str, float]:
    return {
        "nn_cv": metrics.nn_cv(points),
        "nn_ratio": metrics.nn_ratio(points),
        "nn_min_ratio": metrics.nn_min_ratio(points),
        "covering": metrics.covering_radius(points, reference),
        "hv": metrics.hypervolume(points, hv_ref),
    }


def settle_round(result: ps.Result, share: float = 0.9) -> int:
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
        res = ps.surf(
            lambda w, st, exact=exact: exact.solve(np.array([w, 1.0 - w]), st),
            20,
            iterations=iterations,
            alpha=alpha,
        )
        out.append(settle_round(res))
    return out


#: The first round of the settling window of ``--held-out``: from here to the last round
#: a settled layout's nearest-neighbour CV stays within :data:`SETTLE_FACTOR` of its best.
SETTLE_FROM = 15
SETTLE_FACTOR = 2.0


def held_out(
    seeds: range, points: int, iterations: int, alpha: float | str, normalize: str = "fixed"
) -> None:
    """SURF-simplex on random quadratics of ``seeds``: the figures of ``--held-out``.

    ``normalize="fixed"`` gives the run the exact corner solutions' normalization;
    ``"endpoints"`` leaves the run its default (its own corners, moving as it finds them).
    Every figure is measured in the exact normalization either way."""
    last: list[dict[str, float]] = []
    reported: list[dict[str, float]] = []
    median5: list[float] = []
    cv5: list[float] = []
    swings: list[float] = []
    for s in seeds:
        problem = QuadraticM.random(3, 5, seed=s)
        ideal, scale = normalizer(problem)
        options: dict[str, Any] = {}
        if normalize == "fixed":
            options["normalize"] = (ideal, ideal + scale)
        res = ps.surf_simplex(
            problem.solver(),
            points,
            3,
            iterations=iterations,
            alpha=alpha,
            early_stopping=False,
            **options,
        )

        def spread(
            pts: np.ndarray, ideal: np.ndarray = ideal, scale: np.ndarray = scale
        ) -> dict[str, float]:
            z = (pts - ideal) / scale
            return {
                "ratio": metrics.nn_ratio(z),
                "cv": metrics.nn_cv(z),
                "closest": metrics.nn_min_ratio(z),
            }

        five = [spread(r.points) for r in res.history[-5:]]
        last.append(five[-1])
        reported.append(spread(res.points))
        median5.append(float(np.median([f["ratio"] for f in five])))
        cv5.append(float(np.mean([f["cv"] for f in five])))
        # settling: the CV of every round from SETTLE_FROM on, against the best of them
        window = [spread(r.points)["cv"] for r in res.history[SETTLE_FROM:]]
        swings.append(max(window) / min(window) if window and min(window) > 0 else np.nan)
    n = len(seeds)
    settled = sum(bool(w <= SETTLE_FACTOR) for w in swings)
    print(
        f"random quadratics, seeds {seeds[0]} to {seeds[-1]} ({points} points, {iterations} "
        f"rounds, normalize={normalize!r}): max/min <= 3 in "
        f"{sum(r['ratio'] <= 3 for r in last)} of {n} last rounds "
        f"and {sum(r['ratio'] <= 3 for r in reported)} of {n} results (largest "
        f"{max(r['ratio'] for r in reported):.2f}); median max/min of the last five rounds "
        f"<= 3 in {sum(m <= 3 for m in median5)} of {n}; nn CV: last five rounds "
        f"{np.mean(cv5):.3f} (worst run {max(cv5):.3f}), results "
        f"{np.mean([r['cv'] for r in reported]):.3f}; closest pair / mean spacing: last "
        f"rounds {min(r['closest'] for r in last):.2f}, results "
        f"{min(r['closest'] for r in reported):.2f}; settling (rounds {SETTLE_FROM} to "
        f"{iterations - 1}: largest CV over the smallest): within {SETTLE_FACTOR:g}x in "
        f"{settled} of {n} (worst {np.nanmax(swings) if swings else np.nan:.2f}x, per seed "
        + ", ".join(f"{w:.2f}" for w in swings)
        + ")",
        flush=True,
    )


def thinness(problem: Any, coords: Callable[[np.ndarray], np.ndarray]) -> float:
    """Face area over the squared longest edge of the exact front in ``coords`` (from a
    lattice of 60 partitions): an equilateral flat face has 0.43, a band narrower than its
    length much less."""
    from paretosurf.surfaces._estimate import FaceMap, on_face
    from paretosurf.surfaces._weights import simplex_lattice

    w = simplex_lattice(3, 60)
    pts = coords(problem.front(w))
    longest = 0.0
    for edge in ((0, 1), (0, 2), (1, 2)):
        mask = on_face(w, edge)
        order = np.argsort(w[mask][:, edge[0]], kind="stable")
        longest = max(
            longest, float(np.sum(np.linalg.norm(np.diff(pts[mask][order], axis=0), axis=1)))
        )
    return FaceMap(w, pts).measure() / longest**2


def units(seeds: range, points: int, iterations: int, alpha: float | str, save: bool) -> None:
    """--units: each front spaced in normalized and in raw coordinates, side by side."""
    rows = []
    print(
        f"random quadratics, seeds {seeds[0]} to {seeds[-1]}, {points} points, {iterations} "
        "rounds: nn CV and max/min of the result (its reported round) and the median "
        "max/min of the last five rounds;\nleft: normalize='endpoints' measured in "
        "normalized coordinates, right: normalize='none' measured in raw coordinates"
    )
    print(
        f"{'seed':>4s} {'raw spans':>20s} {'thin n/r':>11s} | {'CV':>6s} {'max/min':>7s} "
        f"{'med5':>6s} | {'CV':>6s} {'max/min':>7s} {'med5':>6s}"
    )
    for s in seeds:
        problem = QuadraticM.random(3, 5, seed=s)
        ideal, scale = normalizer(problem)
        row: dict[str, Any] = {"seed": s}
        for mode in ("endpoints", "none"):
            res = ps.surf_simplex(
                problem.solver(), points, 3, iterations=iterations, alpha=alpha, normalize=mode
            )

            def coords(
                p: np.ndarray,
                mode: str = mode,
                ideal: np.ndarray = ideal,
                scale: np.ndarray = scale,
            ) -> np.ndarray:
                return (p - ideal) / scale if mode == "endpoints" else p

            row[f"{mode}_cv"] = metrics.nn_cv(coords(res.points))
            row[f"{mode}_ratio"] = metrics.nn_ratio(coords(res.points))
            row[f"{mode}_median5_ratio"] = float(
                np.median([metrics.nn_ratio(coords(r.points)) for r in res.history[-5:]])
            )
            row[f"{mode}_thinness"] = thinness(problem, coords)
        spans = np.ptp(problem.front(np.eye(3)), axis=0)
        rows.append(row)
        print(
            f"{s:4d} {' '.join(f'{v:6.0f}' for v in spans):>20s} "
            f"{row['endpoints_thinness']:5.3f}/{row['none_thinness']:5.3f} | "
            f"{row['endpoints_cv']:6.3f} {row['endpoints_ratio']:7.2f} "
            f"{row['endpoints_median5_ratio']:6.2f} | {row['none_cv']:6.3f} "
            f"{row['none_ratio']:7.2f} {row['none_median5_ratio']:6.2f}",
            flush=True,
        )
    mean = {k: float(np.mean([r[k] for r in rows])) for k in rows[0] if k != "seed"}
    worst = {k: float(np.max([r[k] for r in rows])) for k in rows[0] if k != "seed"}
    print(
        f"mean {'':33s} | {mean['endpoints_cv']:6.3f} {mean['endpoints_ratio']:7.2f} "
        f"{mean['endpoints_median5_ratio']:6.2f} | {mean['none_cv']:6.3f} "
        f"{mean['none_ratio']:7.2f} {mean['none_median5_ratio']:6.2f}"
    )
    print(
        f"worst {'':32s} | {worst['endpoints_cv']:6.3f} {worst['endpoints_ratio']:7.2f} "
        f"{worst['endpoints_median5_ratio']:6.2f} | {worst['none_cv']:6.3f} "
        f"{worst['none_ratio']:7.2f} {worst['none_median5_ratio']:6.2f}"
    )
    print(
        f"raw / normalized: mean CV {mean['none_cv'] / mean['endpoints_cv']:.2f}, mean "
        f"max/min {mean['none_ratio'] / mean['endpoints_ratio']:.2f}",
        flush=True,
    )
    if save:
        write_csv("units.csv", rows)


class _Timed(SurfSimplexMethod):
    """SURF-simplex with a clock on its own work (``propose`` and ``tell``)."""

    own = 0.0

    def propose(self) -> Any:
        start = time.perf_counter()
        try:
            return super().propose()
        finally:
            self.own += time.perf_counter() - start

    def tell(self, outcome: Any, pool: Any) -> None:
        start = time.perf_counter()
        try:
            super().tell(outcome, pool)
        finally:
            self.own += time.perf_counter() - start


def time_one(n: int, iterations: int, alpha: float | str) -> dict[str, float]:
    """Per-round loop, own and solve times (seconds) of one run with ``n`` points."""
    problem = QuadraticM.random(3, 5, seed=0)
    method = _Timed(n, 3, alpha=alpha)
    res = run(method, problem.solver(), iterations=iterations)
    return {
        "loop": sum(r.seconds for r in res.history) / iterations,
        "solves": sum(r.solve_seconds for r in res.history) / iterations,
        "own": method.own / iterations,
    }


class Baseline:
    """The library as it was at git revision ``rev``: its ``src/`` exported to a temporary
    folder, where :meth:`time_one` runs :func:`time_one` in a subprocess."""

    def __init__(self, rev: str) -> None:
        import subprocess
        import tarfile
        import tempfile

        root = Path(__file__).resolve().parent.parent
        self._tmp = tempfile.TemporaryDirectory()
        archive = subprocess.run(
            ["git", "-C", str(root), "archive", rev, "src"], check=True, capture_output=True
        ).stdout
        tar_path = Path(self._tmp.name) / "src.tar"
        tar_path.write_bytes(archive)
        with tarfile.open(tar_path) as tar:
            tar.extractall(self._tmp.name, filter="data")

    def time_one(self, n: int, iterations: int, alpha: float | str) -> dict[str, float]:
        import json
        import os
        import subprocess
        import sys

        env = {**os.environ, "PYTHONPATH": str(Path(self._tmp.name) / "src")}
        done = subprocess.run(
            [
                sys.executable,
                __file__,
                "--timing-one",
                str(n),
                "--iterations",
                str(iterations),
                "--alpha",
                str(alpha),
            ],
            env=env,
            check=True,
            capture_output=True,
            text=True,
            cwd=self._tmp.name,
        )
        return dict(json.loads(done.stdout.strip().splitlines()[-1]))

    def close(self) -> None:
        self._tmp.cleanup()


def timing(
    sizes: tuple[int, ...],
    iterations: int,
    alpha: float | str,
    save: bool,
    baseline: str | None,
    repeats: int,
) -> None:
    """--timing: the method's own time per round against the number of points, and against
    the library at revision ``baseline``: each size timed ``repeats`` times, the current
    code and the baseline in turn (so that a change of load hits both), medians printed."""
    print(
        f"SURF-simplex on a random quadratic (seed 0) with its exact solver, {iterations} "
        f"rounds, median of {repeats}: time per round"
    )
    old = Baseline(baseline) if baseline else None
    head = (
        f"{'N':>5s} {'loop ms':>9s} {'own ms':>8s} {'solves ms':>10s} {'own share':>10s} "
        f"{'own / (N log N) us':>19s}"
    )
    if old is not None:
        head += f" {str(baseline) + ' own ms':>16s} {'own now/before':>15s}"
    print(head)
    rows = []
    try:
        for n in sizes:
            now, before = [], []
            for _ in range(repeats):
                now.append(time_one(n, iterations, alpha))
                if old is not None:
                    before.append(old.time_one(n, iterations, alpha))
            t = {k: float(np.median([r[k] for r in now])) for k in now[0]}
            row = {
                "n_points": n,
                "loop_ms": 1e3 * t["loop"],
                "own_ms": 1e3 * t["own"],
                "solves_ms": 1e3 * t["solves"],
                "own_share": t["own"] / t["loop"],
                "own_per_nlogn_us": 1e6 * t["own"] / (n * np.log(n)),
            }
            line = (
                f"{n:5d} {row['loop_ms']:9.1f} {row['own_ms']:8.1f} "
                f"{row['solves_ms']:10.1f} {row['own_share']:10.2f} "
                f"{row['own_per_nlogn_us']:19.1f}"
            )
            if before:
                own_before = float(np.median([r["own"] for r in before]))
                row["baseline_own_ms"] = 1e3 * own_before
                row["own_ratio"] = float(
                    np.median([a["own"] / b["own"] for a, b in zip(now, before, strict=True)])
                )
                line += f" {row['baseline_own_ms']:16.1f} {row['own_ratio']:15.3f}"
            rows.append(row)
            print(line, flush=True)
    finally:
        if old is not None:
            old.close()
    if save:
        write_csv("timing.csv", rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=91)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--alpha", default="0.3")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-save", action="store_true")
    parser.add_argument(
        "--held-out",
        action="store_true",
        help="SURF-simplex alone on random quadratics of seeds 5-15 and 16-30",
    )
    parser.add_argument(
        "--units",
        action="store_true",
        help="random quadratics 16-30 spaced in normalized and raw coordinates",
    )
    parser.add_argument(
        "--timing", action="store_true", help="the method's own time per round at 21 to 496 points"
    )
    parser.add_argument(
        "--baseline", default="12ae654", help="git revision --timing compares with ('' for none)"
    )
    parser.add_argument(
        "--sizes", default="21,45,91,231,496", help="numbers of points --timing runs"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="--timing: timings per size, current and baseline in turn",
    )
    parser.add_argument(
        "--normalize",
        choices=("fixed", "endpoints"),
        default="fixed",
        help="--held-out: the exact corners' normalization given to the run, or the run's "
        "default (its own corners)",
    )
    parser.add_argument("--timing-one", type=int, default=None, help=argparse.SUPPRESS)
    bench_io.add_options(
        parser,
        "surf_simplex",
        docs="many",
        smoke="one quadratic and DTLZ, 10 points, 6 rounds",
    )
    args = parser.parse_args()
    if args.timing_one is None:  # (a --timing baseline's subprocess prints one line)
        bench_io.start(args, parser)
        FOLDERS[:] = bench_io.published(args)
    if args.smoke:
        args.points, args.iterations, args.quick = 10, 6, False
        args.held_out = args.units = args.timing = False
    alpha: float | str = args.alpha if args.alpha == "auto" else float(args.alpha)
    iterations = 10 if args.quick else args.iterations
    warnings.simplefilter("ignore", ps.ParetoWarning)
    if args.timing_one is not None:  # one timing, for --timing's baseline subprocess
        import json

        print(json.dumps(time_one(args.timing_one, iterations, alpha)))
        return
    if args.held_out or args.units or args.timing:
        if args.held_out:
            for seeds in (range(5, 16), range(16, 31)):
                held_out(seeds, args.points, iterations, alpha, args.normalize)
        if args.units:
            units(range(16, 31), args.points, iterations, alpha, not args.no_save)
        if args.timing:
            timing(
                tuple(int(v) for v in args.sizes.split(",")),
                10 if args.quick else iterations,
                alpha,
                not args.no_save,
                args.baseline or None,
                args.repeats,
            )
        return
    rows: list[dict[str, Any]] = []
    settle: dict[str, int] = {}
    for name, make in problems(args.quick, args.smoke).items():
        problem = make()
        ideal, scale = normalizer(problem)
        reference = (problem.reference_front(0.005) - ideal) / scale
        hv_ref = reference.max(axis=0) + 0.1 * np.ptp(reference, axis=0)
        fixed = (ideal, ideal + scale)
        runs = {}
        start = time.perf_counter()
        runs["SURF-simplex"] = ps.surf_simplex(
            problem.solver(), args.points, 3, iterations=iterations, alpha=alpha, normalize=fixed
        )
        surf_seconds = time.perf_counter() - start
        runs["Das-Dennis"] = das_dennis(problem.solver(), args.points, 3, iterations=1)
        runs["Random"] = random_simplex(problem.solver(), args.points, 3, iterations=1, seed=0)
        runs["Energy"] = energy(problem.solver(), args.points, 3, iterations=1)
        for label, res in runs.items():
            pts = (res.points - ideal) / scale
            row: dict[str, Any] = {
                "problem": name,
                "method": label,
                **figures(pts, reference, hv_ref),
            }
            if label == "SURF-simplex":
                last = [
                    figures((r.points - ideal) / scale, reference, hv_ref) for r in res.history[-5:]
                ]
                row.update(
                    {
                        f"median5_{k}": float(np.median([f[k] for f in last]))
                        for k in ("nn_cv", "nn_ratio", "nn_min_ratio", "covering")
                    }
                )
                row["seconds"] = surf_seconds
                settle[name] = settle_round(res)
                if not args.no_save:
                    shown = type(
                        "Shown",
                        (),
                        {"weights": res.weights, "points": pts, "label": f"SURF-simplex, {name}"},
                    )()
                    for folder in FOLDERS:
                        plotting.plot_surface_result(
                            shown, reference=reference, path=folder / f"{name}.png"
                        )
            rows.append(row)
    header = (
        f"{'problem':15s} {'method':13s} {'nn CV':>7s} {'max/min':>8s} {'min/mean':>9s} "
        f"{'covering':>9s} {'HV':>8s}   median of last 5 rounds (CV, max/min, min/mean)"
    )
    print(header)
    for row in rows:
        extra = ""
        if "median5_nn_cv" in row:
            extra = (
                f"   {row['median5_nn_cv']:.3f}, {row['median5_nn_ratio']:.2f}, "
                f"{row['median5_nn_min_ratio']:.3f}  ({row['seconds']:.1f} s)"
            )
        print(
            f"{row['problem']:15s} {row['method']:13s} {row['nn_cv']:7.3f} "
            f"{row['nn_ratio']:8.2f} {row['nn_min_ratio']:9.3f} {row['covering']:9.4f} "
            f"{row['hv']:8.4f}{extra}"
        )
    best: dict[str, float] = {}
    for row in rows:
        if row["method"] != "SURF-simplex":
            best[row["problem"]] = min(best.get(row["problem"], np.inf), float(row["covering"]))
    print(
        "\ncovering radius of SURF-simplex / best baseline:",
        ", ".join(
            f"{r['problem']} {r['covering'] / best[r['problem']]:.2f}"
            for r in rows
            if r["method"] == "SURF-simplex"
        ),
    )
    seeds = range(1) if args.smoke else range(3) if args.quick else range(5)
    two = surf_2d_rounds(seeds, iterations, alpha)
    print(
        f"rounds until the CV has made 90% of its improvement, alpha={alpha}: SURF-simplex "
        f"{settle}; two-objective SURF (21 points) on two-objective quadratics of the same "
        f"kind, seeds {list(seeds)}: {two}"
    )
    if not args.no_save:
        keys = sorted(
            {k for row in rows for k in row}, key=lambda k: (k != "problem", k != "method", k)
        )
        write_csv("table.csv", rows, keys)
        print(f"tables and figures in {', '.join(map(str, FOLDERS))}")


if __name__ == "__main__":
    main()
