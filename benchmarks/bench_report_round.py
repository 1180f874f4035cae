"""Reporting the most even of the last rounds, checked on fresh evaluations (MO-MountainCar).

SURF runs the benchmark's MountainCar setting (soft DQN, K = 100 episodes per call, N = 5,
10 rounds, alpha = 0.3, moving average 0.5) with ``report="most-even"``. The round it reports
is chosen on the 32 evaluation episodes every solve returns. That choice could flatter the
result: a round may look even only because of those episodes. So the policies of the last
round and of the reported round are evaluated again on ``--episodes`` fresh episodes (another
evaluation seed), and the CV and gap ratio (raw objectives, the paper's coordinates) of both
are printed side by side, as recorded and as evaluated afresh.

    python benchmarks/bench_report_round.py [--seeds 8] [--episodes 256] [--workers 2]

One torch thread per worker; about 8 minutes with 2 workers (``--workers 1``: the seeds run in
this process). ``--smoke``: 1 seed, N = 2, 2 rounds of 2 episodes, 2 fresh episodes.
"""

from __future__ import annotations

import argparse
import dataclasses
import warnings
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import _bench_io as bench_io
import numpy as np

import paretosurf as ps
from paretosurf import metrics
from paretosurf.bench import get_task
from paretosurf.loop import RoundOutcome, run
from paretosurf.methods import SurfMethod
from paretosurf.storage import StatePool

#: Added to the seed for the fresh evaluation's episodes (starts and action draws).
FRESH_SEED = 9000


class LastStatesSurf(SurfMethod):
    """SURF that also remembers the last round's solver states (the result holds the
    reported round's)."""

    last_states: list[Any]

    def tell(self, outcome: RoundOutcome, pool: StatePool) -> None:
        super().tell(outcome, pool)
        self.last_states = [pool.get(key) for key in outcome.keys]


def one_seed(seed: int, episodes: int, smoke: bool = False) -> dict[str, Any]:
    import torch

    torch.set_num_threads(1)
    task = get_task("mountaincar")
    if smoke:
        task = dataclasses.replace(task, steps=2, iterations=2, n_segments=2)
    problem = task.make_problem()
    solver = task.solver(problem, "gradient", seed=seed)
    method = LastStatesSurf(task.n_segments, alpha=task.alpha, warm_start=task.warm_start)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = run(
            method,
            solver,
            iterations=task.iterations,
            normalize=task.normalize,
            moving_average=task.moving_average,
            report="most-even",
        )
    fresh = problem.gradient_solver(steps=1, seed=FRESH_SEED + seed, eval_episodes=episodes)
    last = len(res.history) - 1
    return {
        "seed": seed,
        "reported_round": last if res.reported_round is None else res.reported_round,
        "last_round": last,
        "recorded": {"last": res.history[-1].points, "reported": res.points},
        "fresh": {
            "last": np.array([a["objectives"] for a in fresh.assess(method.last_states)]),
            "reported": np.array([a["objectives"] for a in fresh.assess(res.states)]),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument(
        "--episodes",
        type=int,
        default=256,
        help="fresh evaluation episodes per policy (default 256)",
    )
    parser.add_argument("--workers", type=int, default=2, help="1: the seeds run in this process")
    bench_io.add_options(
        parser, "report_round", smoke="1 seed, N = 2, 2 rounds of 2 episodes, 2 fresh episodes"
    )
    args = parser.parse_args()
    bench_io.start(args, parser)
    if args.smoke:
        args.seeds, args.episodes, args.workers = 1, 2, 1
    seeds, episodes, smoke = (
        range(args.seeds),
        [args.episodes] * args.seeds,
        [args.smoke] * args.seeds,
    )
    if args.workers <= 1:
        runs = list(map(one_seed, seeds, episodes, smoke))
    else:
        with ProcessPoolExecutor(args.workers) as pool:
            runs = list(pool.map(one_seed, seeds, episodes, smoke))
    print(
        f"MO-MountainCar, SURF, {args.seeds} seeds: reported rounds "
        f"{[r['reported_round'] for r in runs]} (the last: "
        f"{', '.join(str(r['last_round']) for r in runs)})"
    )
    print(f"{'round':<10}{'evaluated on':<24}{'CV':>8}{'gap ratio':>12}{'median gap':>12}")
    for source, label in (
        ("recorded", "the recorded episodes"),
        ("fresh", f"{args.episodes} fresh episodes"),
    ):
        for which in ("last", "reported"):
            cv = np.array([metrics.cv(r[source][which]) for r in runs])
            gap = np.array([metrics.gap_ratio(r[source][which]) for r in runs])
            print(
                f"{which:<10}{label:<24}{cv.mean():>8.3f}{gap.mean():>12.2f}{np.median(gap):>12.2f}"
            )
    diff = [metrics.cv(r["fresh"]["reported"]) - metrics.cv(r["fresh"]["last"]) for r in runs]
    print(
        f"fresh CV, reported minus last: mean {np.mean(diff):+.3f}, "
        f"{sum(d < 0 for d in diff)} of {len(diff)} seeds lower"
    )


if __name__ == "__main__":
    main()
