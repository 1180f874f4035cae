"""Uniformity on the gear toy: uniform weights vs SURF after 5 and 30 iterations.

Prints CV, gap ratio and CDF error of uniform weights and of SURF (exact inner solver) on
``GearToy(p)`` for alpha in {0.3, 1}, side by side with the ratio to uniform weights.

    python benchmarks/bench_gear_toy.py [--p 9] [--n 20]
"""

from __future__ import annotations

import argparse

import paretosurf as ps
from paretosurf.baselines import uniform
from paretosurf.problems import GearToy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=float, default=9.0)
    parser.add_argument("--n", type=int, default=20)
    args = parser.parse_args()
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
    for alpha in (0.3, 1.0):
        res = ps.surf(problem.solver(), args.n, alpha=alpha, iterations=30, normalize="none")
        for t in (5, 30):
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
    print(f"GearToy(p={args.p:g}), N={args.n}, exact inner solver")
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
