"""Rounds SURF needs with ``alpha="auto"`` against the fixed alpha = 0.3 (the paper's) and
alpha = 1, and the wall time of DST's K-step run, side by side in one process.

Prints, for DST (concave and convex maps), Fishwood and the gear toy (p = 9), with the exact
and the K-step solvers (each task's protocol, seed 0, 30 rounds): the rounds to CV <= 0.05 and
to CV <= 0.02 ("-": not within 30), and the final CV. Then the wall time of DST's K-step SURF
until CV <= 0.02 with ``alpha="auto"`` and the new gradient step, against today's whole
30-round alpha = 0.3 run with the previous step (``benchmarks/bench_mdp_step.py``).

Then the rounds of the K-step runs over seeds 0-7 (fewest and most; "99": not within 30),
and, over ``--seeds`` seeds (default 16), the final CV of the K-step runs with alpha = 0.3 and
"auto", paired by seed, and the CV of the exact solver's points at their final weights (what
the weights are worth, without the K-step solver's own errors); and the CV after 20 more
K-step calls from each run's final states, all at the alpha = 0.3 run's final weights (at the
same weights, does each run's solver still give its own CV?).

Then what decides Fishwood's K-step final CV: the final CV at other fixed alphas (same seeds),
and, for K = 85 to 105 steps per call (lr 0.05, 4 seeds), whether the K-step map at a fixed
weight settles at a point (period 1) or alternates between two (period 2), with the final CV
of alpha = 0.3 and "auto" at that K.

    python benchmarks/bench_auto_alpha.py [--seeds 16] [--first-seed 0] [--out DIR]
    python benchmarks/bench_auto_alpha.py --smoke    # the gear toy, 2 seeds, 3 rounds a run
"""

from __future__ import annotations

import argparse
import dataclasses
import time
import warnings
from typing import Any

import _bench_io as bench_io
import numpy as np

import paretosurf as ps
from paretosurf.bench import get_task

TASKS = ("dst", "dst-convex", "fishwood", "gear")
#: Most rounds of a run (``--smoke``: 3).
ROUNDS = 30
#: The fixed alphas and the K of the Fishwood section (``--smoke``: fewer).
ORBIT_ALPHAS: tuple[float | str, ...] = (0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.7, 1.0, "auto")
ORBIT_STEPS = (85, 90, 95, 100, 105)
#: The tasks of the final-CV comparison (``--smoke``: Fishwood alone).
FINAL_TASKS = ("dst", "fishwood")
ALPHAS: tuple[float | str, ...] = (0.3, 1.0, "auto")


def rounds_to(result: ps.Result, threshold: float) -> int | None:
    for i, record in enumerate(result.history):
        if record.cv <= threshold:
            return i + 1
    return None


def run(
    task_name: str,
    kind: str,
    alpha: float | str,
    iterations: int | None = None,
    previous_step: bool = False,
    seed: int = 0,
    steps: int | None = None,
) -> tuple[ps.Result, float]:
    task = get_task(task_name)
    if steps is not None:
        task = dataclasses.replace(task, steps=steps)
    problem = task.make_problem()
    if previous_step:
        from bench_mdp_step import use_previous_step

        use_previous_step(problem)
    tic = time.perf_counter()
    solver = task.solver(problem, kind)
    init, _ = task.initial_states(problem, solver, kind, task.n_segments, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf(
            solver,
            task.n_segments,
            alpha=alpha,
            iterations=ROUNDS if iterations is None else iterations,
            init_states=init,
            warm_start=task.warm_start,
        )
    return res, time.perf_counter() - tic


def fmt(value: int | None) -> str:
    return "-" if value is None else str(value)


def exact_cv(solver: Any, weights: np.ndarray) -> float:
    """CV of the exact points at ``weights``, in coordinates normalized by their endpoints
    (the records' coordinates), so that the K-step solver's own errors play no part."""
    return endpoint_cv(np.array([solver.solve(float(w), None).objectives for w in weights]))


def endpoint_cv(points: np.ndarray) -> float:
    """CV of ``points`` in coordinates normalized by their endpoints (the records')."""
    ends = points[[0, -1]]
    lo, hi = ends.min(axis=0), ends.max(axis=0)
    return ps.metrics.cv((points - lo) / np.where(hi > lo, hi - lo, 1.0))


#: K-step calls, at fixed weights, after which the solver's states count as at their limit.
SAME_WEIGHT_CALLS = 20


def same_weights_cv(task: Any, result: ps.Result, weights: np.ndarray) -> float:
    """CV (the records' coordinates) of the K-step points at ``weights`` after
    ``SAME_WEIGHT_CALLS`` more calls from ``result``'s final states: where that run's solver
    states lead at the same weights for every run, whatever damping brought them there."""
    solver = task.solver(task.make_problem(), "gradient")
    states = list(result.states)
    points = np.empty((len(weights), 0))
    for _ in range(SAME_WEIGHT_CALLS):
        solutions = list(solver.solve_many(weights, states))
        states = [s.state for s in solutions]
        points = np.array([s.objectives for s in solutions])
    return endpoint_cv(points)


def solver_period(steps: int, weight: float = 0.0, calls: int = 40) -> tuple[int, float]:
    """Period (1 or 2; 0 for neither) of Fishwood's K-step map with ``steps`` steps per call
    at a fixed ``weight``, after ``calls`` calls from the solver's own start, and how far
    apart (max over objectives) its last two points are."""
    task = dataclasses.replace(get_task("fishwood"), steps=steps)
    solver = task.solver(task.make_problem(), "gradient")
    state, points = None, []
    for _ in range(calls):
        solution = solver.solve(weight, state)
        state = solution.state
        points.append(np.asarray(solution.objectives, dtype=float))
    step = float(np.max(np.abs(points[-1] - points[-2])))
    back = float(np.max(np.abs(points[-1] - points[-3])))
    scale = 1e-10 * max(1.0, float(np.max(np.abs(points[-1]))))
    return (1 if step <= scale else 2 if back <= scale else 0), step


def print_fishwood_orbit(seeds: range) -> None:
    """Fishwood's K-step final CV at other fixed alphas, and against the solver's period."""
    print(
        f"\nFishwood K-step, final CV after {ROUNDS} rounds at other fixed alphas, seeds "
        f"{seeds[0]}-{seeds[-1]} (mean):"
    )
    cells = []
    for alpha in ORBIT_ALPHAS:
        cv = np.mean([run("fishwood", "gradient", alpha, seed=s)[0].history[-1].cv for s in seeds])
        cells.append(f"{alpha}: {cv:.5f}")
    print("  " + ",  ".join(cells), flush=True)
    few = seeds[:4]
    print(
        f"Fishwood, K steps per call (lr 0.05): the K-step map at w = 0 (period 1: settles at "
        f"a point, 2: alternates between two, 0: neither; distance of its last two points), "
        f"and the final CV, seeds {few[0]}-{few[-1]} (mean)"
    )
    for steps in ORBIT_STEPS:
        period, step = solver_period(steps)
        cv = {
            a: np.mean(
                [run("fishwood", "gradient", a, seed=s, steps=steps)[0].history[-1].cv for s in few]
            )
            for a in (0.3, "auto")
        }
        print(
            f"  K = {steps:<4} period {period} ({step:.1e})   final CV: 0.3 {cv[0.3]:.5f}  "
            f"auto {cv['auto']:.5f}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seeds", type=int, default=16, help="seeds of the final-CV comparison (default 16)"
    )
    parser.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="first seed of the final-CV comparison (default 0; e.g. 16 for "
        "seeds not used to tune the schedule)",
    )
    bench_io.add_options(parser, "auto_alpha", smoke="the gear toy, 2 seeds, 3 rounds a run")
    args = parser.parse_args()
    bench_io.start(args, parser)
    if args.smoke:
        global TASKS, ROUNDS, ORBIT_ALPHAS, ORBIT_STEPS, SAME_WEIGHT_CALLS, FINAL_TASKS
        TASKS, ROUNDS, ORBIT_ALPHAS, ORBIT_STEPS = ("gear",), 3, (0.3, "auto"), (100,)
        SAME_WEIGHT_CALLS, FINAL_TASKS, args.seeds = 2, ("fishwood",), 2
    seeds, first = args.seeds, args.first_seed
    print(f"rounds to CV <= 0.05 / CV <= 0.02 (final CV after {ROUNDS} rounds), seed 0")
    head = f"{'task':<12}{'solver':<10}" + "".join(f"{'alpha ' + str(a):>22}" for a in ALPHAS)
    print(head)
    print("-" * len(head))
    for name in TASKS:
        for kind in ("exact", "gradient"):
            cells = []
            for alpha in ALPHAS:
                res, _ = run(name, kind, alpha)
                cells.append(
                    f"{fmt(rounds_to(res, 0.05))} / {fmt(rounds_to(res, 0.02))} "
                    f"({res.history[-1].cv:.4f})"
                )
            print(f"{name:<12}{kind:<10}" + "".join(f"{c:>22}" for c in cells), flush=True)

    spread = min(seeds, 8)
    print(
        f"\nrounds to CV <= 0.05 / CV <= 0.02 over seeds 0-{spread - 1}, K-step solver "
        "(fewest-most)"
    )
    print(head)
    for name in TASKS:
        cells = []
        for alpha in ALPHAS:
            runs = [run(name, "gradient", alpha, seed=seed)[0] for seed in range(spread)]
            to5 = [rounds_to(r, 0.05) or 99 for r in runs]
            to2 = [rounds_to(r, 0.02) or 99 for r in runs]
            cells.append(f"{min(to5)}-{max(to5)} / {min(to2)}-{max(to2)}")
        print(f"{name:<12}{'gradient':<10}" + "".join(f"{c:>22}" for c in cells), flush=True)

    print(
        f"\nfinal CV after {ROUNDS} rounds, K-step solver, seeds {first}-{first + seeds - 1}: the "
        "K-step points (mean), auto minus 0.3 (paired: mean, t), and the exact points at the "
        "final weights"
    )
    for name in FINAL_TASKS:
        task = get_task(name)
        exact = task.solver(task.make_problem(), "exact")
        final = {
            alpha: [
                run(name, "gradient", alpha, seed=seed)[0] for seed in range(first, first + seeds)
            ]
            for alpha in (0.3, "auto")
        }
        k_step = {a: np.array([r.history[-1].cv for r in rs]) for a, rs in final.items()}
        at_weights = {
            a: np.array([exact_cv(exact, r.weights) for r in rs]) for a, rs in final.items()
        }
        diff = k_step["auto"] - k_step[0.3]
        t = diff.mean() / (diff.std(ddof=1) / np.sqrt(seeds)) if seeds > 1 else float("nan")
        print(
            f"{name:<10}K-step: 0.3 {k_step[0.3].mean():.5f}  auto {k_step['auto'].mean():.5f}"
            f"  (auto - 0.3 {diff.mean():+.1e}, t {t:.1f});  exact at the weights: 0.3 "
            f"{at_weights[0.3].mean():.5f}  auto {at_weights['auto'].mean():.5f}",
            flush=True,
        )
        gap = max(
            float(np.max(np.abs(a.weights - b.weights)))
            for a, b in zip(final[0.3], final["auto"], strict=True)
        )
        kept = {
            a: np.array(
                [same_weights_cv(task, r, f.weights) for r, f in zip(rs, final[0.3], strict=True)]
            )
            for a, rs in final.items()
        }
        print(
            f"{'':<10}final weights of the paired runs differ by at most {gap:.1e}; "
            f"{SAME_WEIGHT_CALLS} more K-step calls at the alpha = 0.3 run's final weights "
            f"from each run's own states: CV 0.3 {kept[0.3].mean():.5f}  auto "
            f"{kept['auto'].mean():.5f} (each run keeps its solver's limit points)",
            flush=True,
        )

    print_fishwood_orbit(range(first, first + seeds))

    today, today_s = run("dst", "gradient", 0.3, previous_step=True)
    auto, auto_s = run("dst", "gradient", "auto")
    k = rounds_to(auto, 0.02)
    if k is None:
        print(f"\nDST K-step, alpha='auto' did not reach CV 0.02 in {ROUNDS} rounds")
        return
    # the auto run's time until the round that reached CV 0.02: its share of the run's rounds
    per_round = sum(r.seconds for r in auto.history)
    until = auto_s - per_round + sum(r.seconds for r in auto.history[:k])
    print(
        f"\nDST K-step: today's {ROUNDS} rounds at alpha 0.3 (previous step) {today_s:.2f} s, "
        f"final CV {today.history[-1].cv:.4f}; alpha='auto' reaches CV <= 0.02 in round {k} after "
        f"{until:.2f} s: {today_s / until:.1f}x less wall time"
    )


if __name__ == "__main__":
    main()
