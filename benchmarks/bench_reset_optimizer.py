"""Carry a slot's Adam moments across calls, or reset them every call (as the paper's code
does)? SURF with the K-step solver on the Table 1 tasks, both settings side by side.

For each task and setting: final CV and gap ratio (mean over seeds), the worst final CV over
seeds, and the largest rise of CV from one round to the next over the last five rounds (a slot
that jumps late shows there). Fishwood seed 0 with N = 10 is printed on its own: carried
moments made one slot jump there in the last round.

    python benchmarks/bench_reset_optimizer.py [--seeds 8] [--out DIR]
    python benchmarks/bench_reset_optimizer.py --smoke   # Fishwood N = 10 and the gear, 6 rounds
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools

import _bench_io as bench_io
import numpy as np

from paretosurf.bench import get_task, run_task

#: Rounds of a run (None: the task's; ``--smoke``: 6).
ROUNDS: int | None = None


def late_jump(result) -> float:
    """The largest rise of CV from one round to the next over the run's last five rounds
    (fewer where the run took fewer; 0 for a run of one round)."""
    cv = [rec.cv for rec in result.history]
    rises = [b - a for a, b in itertools.pairwise(cv)]
    return float(max(rises[-5:], default=0.0))


def run(task_name: str, reset: bool, seeds: list[int], n: int | None = None) -> dict[str, float]:
    task = dataclasses.replace(get_task(task_name), reset_optimizer=reset)
    report = run_task(task, methods=["surf"], seeds=seeds, n_segments=n, iterations=ROUNDS)
    cvs = [s["cv"] for s in report.scores["surf"]]
    gaps = [s["gap_ratio"] for s in report.scores["surf"]]
    return {
        "cv": float(np.mean(cvs)),
        "gap": float(np.mean(gaps)),
        "worst cv": max(cvs),
        "late jump": max(late_jump(r) for r in report.results["surf"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=8)
    bench_io.add_options(
        parser, "reset_optimizer", smoke="Fishwood N = 10 and the gear, 1 seed, 6 rounds"
    )
    args = parser.parse_args()
    bench_io.start(args, parser)
    if args.smoke:
        global ROUNDS
        ROUNDS, args.seeds = 6, 1
    seeds = list(range(args.seeds))
    print(f"SURF, K-step solver, {args.seeds} seeds: carried Adam moments vs reset every call")
    head = f"{'task':<22}{'setting':<10}{'CV':>9}{'gap ratio':>11}{'worst CV':>10}{'late jump':>11}"
    print(head)
    print("-" * len(head))
    cases = [
        ("fishwood", None, seeds, "fishwood"),
        ("fishwood", 10, [0], "fishwood N=10 seed 0"),
        ("dst", None, seeds, "dst"),
        ("dst-convex", None, seeds, "dst-convex"),
        ("gear", None, seeds, "gear"),
        ("quadratic", None, seeds, "quadratic"),
        ("bandit", None, seeds, "bandit"),
    ]
    if args.smoke:
        cases = [c for c in cases if c[3] in ("fishwood N=10 seed 0", "gear")]
    for name, n, which, label in cases:
        for reset in (False, True):
            r = run(name, reset, which, n)
            print(
                f"{label:<22}{'reset' if reset else 'carried':<10}{r['cv']:>9.4f}"
                f"{r['gap']:>11.3f}{r['worst cv']:>10.4f}{r['late jump']:>11.4f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
