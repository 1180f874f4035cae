"""How well the soft DQN of MO-MountainCar optimizes each weight, by solver setting, one run.

Each setting trains one learner per weight (8 weights from 0 to 1) for ``--calls`` calls of
100 episodes, warm-started from its own previous call, on each seed. A policy's *regret* at
weight ``w`` is ``w h1 + (1 - w) h2`` of its objectives minus the lowest value that any
setting, seed or call reached at that weight in this run: 0 is the best policy found, and the
mean over the last three calls says how far a setting's policies stay from it. ``call 5`` is
the mean regret after the fifth call.

    python benchmarks/bench_dqn_settings.py [--seeds 0,1] [--calls 10]
        [--settings default,keep_best,target_8,target_250,polyak,updates_4]

One torch thread; about 2.5 minutes per setting and two seeds (``updates_4`` twice that).
``--smoke``: the default setting, one seed, 3 weights, 5 calls of 2 episodes.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import _bench_io as bench_io
import numpy as np
import torch

from paretosurf.problems.mountaincar import SoftDQNSolver

SETTINGS: dict[str, dict[str, Any]] = {
    "default": {},
    "keep_best": {"keep_best": True},
    "target_8": {"target_update": 8},
    "target_250": {"target_update": 250},
    "polyak": {"target_tau": 0.005},
    "updates_4": {"updates_per_step": 4},
}
WEIGHTS = np.array([0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
#: Episodes of a call (``--smoke``: 2, with 2 environments, 2 evaluation episodes and a small
#: network).
CALL: dict[str, Any] = {"episodes": 100}


def trajectory(options: dict[str, Any], seed: int, calls: int) -> np.ndarray:
    """Objectives (calls, weights, 2) of one learner per weight after each call."""
    solver = SoftDQNSolver(**CALL, seed=seed, **options)
    states: list[Any] = [None] * len(WEIGHTS)
    out = []
    for _ in range(calls):
        solutions = solver.solve_many(WEIGHTS, states)
        states = [s.state for s in solutions]
        out.append([s.objectives for s in solutions])
    return np.asarray(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1")
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--settings", default="default,keep_best")
    bench_io.add_options(
        parser,
        "dqn_settings",
        smoke="the default setting, 1 seed, 3 weights, 5 calls of 2 episodes",
    )
    args = parser.parse_args()
    bench_io.start(args, parser)
    if args.smoke:
        global WEIGHTS, CALL
        WEIGHTS = np.array([0.0, 0.5, 1.0])
        CALL = {"episodes": 2, "n_envs": 2, "eval_episodes": 2, "hidden": 16, "batch_size": 16}
        args.seeds, args.calls, args.settings = "0", 5, "default"
    torch.set_num_threads(1)
    seeds = [int(s) for s in args.seeds.split(",")]
    names = args.settings.split(",")
    unknown = sorted(set(names) - set(SETTINGS))
    if unknown:
        parser.error(f"unknown settings {unknown}; choose from {sorted(SETTINGS)}")
    if args.calls < 5:
        parser.error("--calls must be at least 5")
    runs: dict[str, np.ndarray] = {}
    seconds: dict[str, float] = {}
    for name in names:
        tic = time.perf_counter()
        runs[name] = np.stack([trajectory(SETTINGS[name], s, args.calls) for s in seeds])
        seconds[name] = time.perf_counter() - tic
        print(f"  {name}: {seconds[name]:.0f} s", flush=True)
    pair = np.stack([WEIGHTS, 1 - WEIGHTS], axis=1)
    values = {name: np.einsum("wk,scwk->scw", pair, h) for name, h in runs.items()}
    best = np.min([v.min(axis=(0, 1)) for v in values.values()], axis=0)  # per weight
    print(
        f"\nRegret of w h1 + (1 - w) h2 against the best found per weight (seeds {seeds}, "
        f"{args.calls} calls of {CALL['episodes']} episodes)"
    )
    header = f"{'setting':<12} {'seconds':>8} {'last 3':>8} {'median':>8} {'p90':>8} {'call 5':>8}"
    print(header + "   per weight (last 3) " + " ".join(f"{w:>5.1f}" for w in WEIGHTS))
    for name, v in values.items():
        regret = v - best
        last = regret[:, -3:, :]
        per_w = " ".join(f"{x:5.1f}" for x in last.mean(axis=(0, 1)))
        print(
            f"{name:<12} {seconds[name]:8.0f} {last.mean():8.2f} {np.median(last):8.2f} "
            f"{np.quantile(last, 0.9):8.2f} {regret[:, 4].mean():8.2f}   {'':21}{per_w}"
        )


if __name__ == "__main__":
    main()
