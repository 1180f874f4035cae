"""Noisy objective estimates: SURF with and without the moving average, measured.

The solver returns the exact front point of a quadratic problem plus Gaussian noise (standard
deviation a fraction of the front's length), as an RL or LLM evaluation on a finite sample
would. Printed side by side in one run, mean over seeds: the CV of the *noise-free* front at
the final weights (how evenly the weights place the true points, what the user gets once the
policies are evaluated well) for the moving-average rates None (off), 0.5, 0.2 and 0.1, at
several noise levels and damping factors.

    python benchmarks/bench_noisy.py [--seeds 8] [--n 20] [--iterations 30] [--out DIR]
    python benchmarks/bench_noisy.py --smoke     # 1 seed, N = 5, 4 rounds
"""

from __future__ import annotations

import argparse
import warnings
from typing import Any

import _bench_io as bench_io
import numpy as np

import paretosurf as ps
from paretosurf.problems import Quadratic

RATES = (None, 0.5, 0.2, 0.1)


def problem() -> Quadratic:
    return Quadratic(np.diag([1.0, 4.0]), [1.0, 0.0], np.diag([6.0, 0.5]), [0.0, 1.0])


class NoisySolver:
    """Exact LS solution, objectives reported with Gaussian noise of std ``sigma``."""

    def __init__(self, prob: Quadratic, sigma: float, seed: int) -> None:
        self.prob, self.sigma = prob, sigma
        self.rng = np.random.default_rng(seed)

    def solve(self, w: float, state: Any) -> ps.Solution:
        x = self.prob.argmin(w)
        noise = self.sigma * self.rng.standard_normal(2)
        return ps.Solution(self.prob.objectives(x) + noise, state=x)


def true_cv(prob: Quadratic, weights: np.ndarray) -> float:
    return ps.metrics.cv(prob.front(weights))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--iterations", type=int, default=30)
    bench_io.add_options(parser, "noisy", smoke="1 seed, N = 5, 4 rounds")
    args = parser.parse_args()
    bench_io.start(args, parser)
    if args.smoke:
        args.seeds, args.n, args.iterations = 1, 5, 4
    prob = problem()
    length = float(np.sum(ps.metrics.segment_lengths(prob.reference_front(1001))))
    exact = ps.surf(prob.solver(), args.n, iterations=args.iterations, normalize="none")
    print(
        f"quadratic front, N = {args.n}, {args.iterations} rounds, {args.seeds} seeds; "
        f"noise-free SURF: true CV {true_cv(prob, exact.weights):.4f}"
    )
    print("true CV (noise-free front at the final weights) by moving-average rate")
    header = f"{'noise / length':>15} {'alpha':>6} " + " ".join(
        f"{('off' if r is None else f'rate {r}'):>10}" for r in RATES
    )
    print(header)
    print("-" * len(header))
    for alpha in (0.3, 1.0):
        for level in (0.002, 0.005, 0.01, 0.02):
            cells = []
            for rate in RATES:
                cvs = []
                for seed in range(args.seeds):
                    solver = NoisySolver(prob, level * length, seed)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", ps.ParetoWarning)
                        res = ps.surf(
                            solver,
                            args.n,
                            alpha=alpha,
                            iterations=args.iterations,
                            moving_average=rate,
                            normalize="none",
                        )
                    cvs.append(true_cv(prob, res.weights))
                cells.append(f"{np.mean(cvs):10.4f}")
            print(f"{level:15.3f} {alpha:6.1f} " + " ".join(cells), flush=True)


if __name__ == "__main__":
    main()
