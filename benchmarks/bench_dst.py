"""Deep Sea Treasure and Fishwood: SURF's uniformity and speed, exact vs K-step inner solver.

Prints, side by side in one process:

* quality: CV and gap ratio of SURF with the exact solver and with the paper's K-step Adam
  solver (K = 100, lr 0.02, DST's warm-start protocol), against the paper's figures: the mean
  over ``--seeds`` seeds (the K-step runs' starts are drawn by seed), with ``± std`` over the
  seeds where they differ by more than the printed digits, and the rounds the runs took
  (``T``: they stop early once their points meet the target);
* speed: the exact run's wall time as a fraction of the K-step run's, and the outer loop's own
  work (CDF rebuild and mixture, inversion, bookkeeping), timed alone by replaying the exact
  run's points, as a fraction of the exact run; also the exact run's wall time minus the time
  inside the solver, which adds the slowdown the solver's memory traffic causes the loop.

    python benchmarks/bench_dst.py [--seeds 8] [--repeats 3] [--out DIR]
    python benchmarks/bench_dst.py --smoke      # 2 seeds, 3 rounds a run, 1 timing repeat
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import _bench_io as bench_io
import numpy as np

import paretosurf as ps
from paretosurf.bench import get_task

#: Rounds of a run (None: the task's; ``--smoke``: 3).
ROUNDS: int | None = None


class TimedSolver:
    """Wraps a solver and accumulates the wall time spent inside its calls."""

    def __init__(self, solver: Any) -> None:
        self.solver = solver
        self.seconds = 0.0

    def solve(self, weight: float, state: Any) -> ps.Solution:
        start = time.perf_counter()
        try:
            return self.solver.solve(weight, state)
        finally:
            self.seconds += time.perf_counter() - start

    def solve_many(self, weights: np.ndarray, states: list[Any]) -> list[ps.Solution]:
        start = time.perf_counter()
        try:
            return list(self.solver.solve_many(weights, states))
        finally:
            self.seconds += time.perf_counter() - start


def timed_run(
    task_name: str, kind: str, warm_start: str | None = None, seed: int = 0
) -> tuple[ps.Result, float, float]:
    """One SURF run with the task's protocol; returns (result, wall seconds, solver seconds)."""
    task = get_task(task_name)
    problem = task.make_problem()
    solver = TimedSolver(task.solver(problem, kind))
    init, _ = task.initial_states(problem, solver.solver, kind, task.n_segments, seed=seed)
    start = time.perf_counter()
    res = ps.surf(
        solver,
        task.n_segments,
        alpha=task.alpha,
        iterations=task.iterations if ROUNDS is None else ROUNDS,
        init_states=init,
        warm_start=warm_start or task.warm_start,
        normalize=task.normalize,
    )
    return res, time.perf_counter() - start, solver.seconds


class ReplaySolver:
    """Returns a recorded run's points instantly: times the outer loop without any solver."""

    def __init__(self, result: ps.Result) -> None:
        self.points = [r.points for r in result.history]
        self.calls = 0

    def solve_many(self, weights: np.ndarray, states: list[Any]) -> list[ps.Solution]:
        points = self.points[self.calls]
        self.calls += 1
        return [ps.Solution(p, None) for p in points]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timing repeats (median)")
    parser.add_argument("--seeds", type=int, default=8, help="seeds of the quality table")
    bench_io.add_options(parser, "dst", smoke="2 seeds, 3 rounds a run, 1 timing repeat")
    args = parser.parse_args()
    bench_io.start(args, parser)
    if args.smoke:
        global ROUNDS
        ROUNDS, args.repeats, args.seeds = 3, 1, 2

    print(
        "quality (SURF, alpha = 0.3; warm start 'slot' is Algorithm 1, 'nearest' the default "
        f"of the benchmark tasks): mean over seeds 0-{args.seeds - 1}, ± std over the seeds "
        "where they differ by more than the printed digits; T: the rounds the runs took"
    )
    print(
        f"{'task':<10}{'solver':<10}{'warm start':<12}{'N':>4}{'T':>7}{'CV':>19}"
        f"{'gap ratio':>18}{'paper CV':>10}{'paper gap':>11}{'target CV':>11}"
        f"{'target gap':>12}"
    )
    targets = {
        ("dst", "exact"): (0.081, 1.45, 0.02, 1.10),
        ("dst", "gradient"): (0.081, 1.45, 0.081, 1.45),
        ("fishwood", "exact"): (0.026, 1.12, 0.026, 1.12),
        ("fishwood", "gradient"): (0.026, 1.12, 0.026, 1.12),
    }
    for (name, kind), (pcv, pgap, tcv, tgap) in targets.items():
        task = get_task(name)
        for rule in ("slot", "nearest"):
            runs = [timed_run(name, kind, rule, seed)[0] for seed in range(args.seeds)]
            rounds = sorted({len(r.history) for r in runs})
            took = f"{rounds[0]}" if len(rounds) == 1 else f"{rounds[0]}-{rounds[-1]}"
            cv = bench_io.spread([r.cv for r in runs], 4)
            gap = bench_io.spread([r.gap_ratio for r in runs], 3)
            print(
                f"{name:<10}{kind:<10}{rule:<12}{task.n_segments:>4}{took:>7}"
                f"{cv:>19}{gap:>18}{pcv:>10.3f}{pgap:>11.2f}{tcv:>11.3f}"
                f"{tgap:>12.2f}",
                flush=True,
            )

    exact_wall, exact_solver, grad_wall, replay_wall = [], [], [], []
    for _ in range(args.repeats):
        res, wall, inside = timed_run("dst", "exact")
        exact_wall.append(wall)
        exact_solver.append(inside)
        start = time.perf_counter()
        ps.surf(
            ReplaySolver(res),
            res.n_segments,
            iterations=len(res.history),
            normalize=res.settings["normalize"],
        )
        replay_wall.append(time.perf_counter() - start)
        _, wall, _ = timed_run("dst", "gradient")
        grad_wall.append(wall)
    ew, es, gw = np.median(exact_wall), np.median(exact_solver), np.median(grad_wall)
    outer = np.median(np.array(exact_wall) - np.array(exact_solver))
    replay = np.median(replay_wall)
    print(
        f"\nspeed on DST (N = 15, {len(res.history)} outer iterations, seed 0), median of",
        args.repeats,
    )
    print(f"{'exact run':<34}{ew:>9.3f} s")
    print(f"{'K = 100 gradient run':<34}{gw:>9.3f} s")
    print(f"{'exact / gradient':<34}{ew / gw:>9.2%}   (target < 5%)")
    print(f"{'outer loop own work':<34}{replay:>9.4f} s")
    print(
        f"{'outer loop own work / exact run':<34}{replay / ew:>9.2%}   (target < 5%; the loop "
        "timed alone on the run's points)"
    )
    print(
        f"{'wall minus solver time':<34}{outer:>9.4f} s = {outer / ew:.2%} of the exact run "
        "(the loop's work slowed by the solver's cache traffic)"
    )
    print(f"{'inner solver / exact run':<34}{es / ew:>9.2%}")


if __name__ == "__main__":
    main()
