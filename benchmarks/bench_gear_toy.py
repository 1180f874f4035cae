"""Uniformity on the gear toy: uniform weights vs SURF after 5 rounds and at its last round.

Prints CV, gap ratio and CDF error of uniform weights and of SURF (exact inner solver, at most
``--iterations`` rounds, the library's early stopping on) on ``GearToy(p)`` for alpha in
{0.3, 1}, side by side with the ratio to uniform weights: after round 5 (if the run got there)
and at the round the run stopped at, with how many rounds it ran and why it stopped.

    python benchmarks/bench_gear_toy.py [--p 9] [--n 20] [--iterations 30] [--out DIR]
    python benchmarks/bench_gear_toy.py --smoke        # N = 6, at most 6 rounds
"""

from __future__ import annotations

import argparse

import _bench_io as bench_io

import paretosurf as ps
from paretosurf.methods import uniform
from paretosurf.problems import GearToy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=float, default=9.0)
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--iterations", type=int, default=30, help="most rounds of each run")
    bench_io.add_options(parser, "gear_toy", smoke="N = 6, at most 6 rounds")
    args = parser.parse_args()
    bench_io.start(args, parser)
    if args.smoke:
        args.n, args.iterations = 6, 6
    problem = GearToy(args.p)
    true_cdf = problem.cdf()
    base = uniform(problem.solver(), args.n, iterations=1)
    rows = [
        (
            "uniform weights",
            "-",
            base.cv,
            base.gap_ratio,
            ps.metrics.cdf_error(ps.ArcLengthCDF.identity(), true_cdf),
        )
    ]
    stops = []
    for alpha in (0.3, 1.0):
        res = ps.surf(
            problem.solver(), args.n, alpha=alpha, iterations=args.iterations, normalize="none"
        )
        # the run stops once its points meet the target and its weights have settled: its
        # history has as many rounds as it ran, at most --iterations
        rounds = len(res.history)
        stops.append(f"alpha={alpha:g}: {rounds} rounds ({res.stop_reason})")
        for t in sorted({min(5, rounds), rounds}):
            rec = res.history[t - 1]
            # rec.cdf is Phi_t+1; the points of iteration t were solved at Phi_t's weights
            phi_t = res.history[t - 2].cdf if t >= 2 else ps.ArcLengthCDF.identity()
            rows.append(
                (
                    f"SURF alpha={alpha:g} T={t}",
                    f"{alpha:g}",
                    rec.cv,
                    rec.gap_ratio,
                    ps.metrics.cdf_error(phi_t, true_cdf),
                )
            )
    print(
        f"GearToy(p={args.p:g}), N={args.n}, exact inner solver, at most {args.iterations} "
        f"rounds; SURF ran {', '.join(stops)}"
    )
    print(
        f"{'method':<24}{'CV':>10}{'gap ratio':>11}{'|Phi_T-Phi|':>13}"
        f"{'CV/uniform':>12}{'gap/uniform':>13}"
    )
    for name, _, cv, gap, err in rows:
        print(
            f"{name:<24}{cv:>10.2e}{gap:>11.6f}{err:>13.2e}{cv / base.cv:>12.2e}"
            f"{gap / base.gap_ratio:>13.4f}"
        )


if __name__ == "__main__":
    main()
