"""Rounds SURF needs with ``alpha="auto"`` against the paper's fixed ``alpha=0.3`` on
ill-conditioned exact ridge paths, side by side.

Each path is a seeded random ridge problem: ``h1(x) = ||A x - b||^2 / n`` (the data fit) and
``h2(x) = ||x||^2`` (the ridge penalty), with ``A = U diag(s) V^T`` from random orthogonal
``U`` (n x d) and ``V`` (d x d) and singular values ``s = logspace(0, -e, d) * sqrt(n)``, so
that ``A``'s condition number is ``10^e``; seed ``k`` of 12 takes ``e = 2 + 4 k / 11`` (condition
numbers 1e2 to 1e6). The solver is exact: at the weight ``w`` on ``h1`` the minimizer solves
``(w A^T A / n + (1 - w) I) x = w A^T b / n``. The ill-conditioning puts most of the front's
length at weights within 1e-8 of 1, where the weights must crowd.

Per seed: the rounds to the early stop (``len(res.history)``, up to ``--iterations``),
``res.stop_reason`` (``done``: target met and weights settled; ``iterations``: the cap) and
the final gap ratio, for ``alpha="auto"`` and ``alpha=0.3``; then a summary line (caps hit,
total rounds, seeds where auto needs more rounds than 0.3).

    python benchmarks/bench_auto_alpha_ridge.py [--seeds 12] [--n-points 21] [--iterations 40]
    python benchmarks/bench_auto_alpha_ridge.py --smoke    # 2 seeds, 6 points, 5 rounds
"""

from __future__ import annotations

import argparse
import warnings

import _bench_io as bench_io
import numpy as np
from numpy.typing import NDArray

import paretosurf as ps

FloatArray = NDArray[np.float64]


class RidgePath:
    """The exact solver of a seeded ridge path (see the module docstring).

    Parameters
    ----------
    seed : int
        Seed of ``U``, ``V`` and ``b``.
    log_condition : float
        ``e``: ``A``'s condition number is ``10^e``.
    n, d : int
        Rows and columns of ``A``.
    """

    def __init__(self, seed: int, log_condition: float, n: int = 40, d: int = 10) -> None:
        rng = np.random.default_rng(seed)
        u = np.linalg.qr(rng.standard_normal((n, n)))[0][:, :d]
        v = np.linalg.qr(rng.standard_normal((d, d)))[0]
        s = np.logspace(0.0, -log_condition, d) * np.sqrt(n)
        self.a = u @ np.diag(s) @ v.T
        self.b = rng.standard_normal(n)
        self.n, self.d = n, d
        self.gram = self.a.T @ self.a / n
        self.rhs = self.a.T @ self.b / n

    def minimizer(self, w: float) -> FloatArray:
        """The minimizer of ``w h1 + (1 - w) h2``."""
        return np.asarray(
            np.linalg.solve(w * self.gram + (1.0 - w) * np.eye(self.d), w * self.rhs),
            dtype=np.float64,
        )

    def objectives(self, x: FloatArray) -> FloatArray:
        r = self.a @ x - self.b
        return np.array([r @ r / self.n, x @ x])

    def __call__(self, w: float, state: object) -> ps.Solution:
        x = self.minimizer(float(w))
        return ps.Solution(self.objectives(x), x)


def log_condition(seed: int, seeds: int) -> float:
    """``e`` of seed ``seed`` of ``seeds``: from 2 to 6, evenly."""
    return 2.0 + 4.0 * seed / max(seeds - 1, 1)


def run(seed: int, seeds: int, alpha: float | str, n_points: int, iterations: int) -> ps.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        return ps.surf(
            RidgePath(seed, log_condition(seed, seeds)),
            n_points=n_points,
            iterations=iterations,
            alpha=alpha,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=12)
    parser.add_argument("--n-points", type=int, default=21)
    parser.add_argument("--iterations", type=int, default=40)
    bench_io.add_options(parser, "auto_alpha_ridge", smoke="2 seeds, 6 points, 5 rounds")
    args = parser.parse_args()
    bench_io.start(args, parser)
    if args.smoke:
        args.seeds, args.n_points, args.iterations = 2, 6, 5
    print(
        f"SURF on {args.seeds} exact ridge paths, {args.n_points} points, at most "
        f"{args.iterations} rounds: rounds to the stop, stop reason, final gap ratio"
    )
    print(f"{'seed':>4} {'cond(A)':>8}   {'alpha auto':<26}{'alpha 0.3':<26}")
    rounds: dict[str, list[int]] = {"auto": [], "0.3": []}
    capped = {"auto": 0, "0.3": 0}
    slower = []
    for seed in range(args.seeds):
        cells = []
        for name, alpha in (("auto", "auto"), ("0.3", 0.3)):
            res = run(seed, args.seeds, alpha, args.n_points, args.iterations)
            rounds[name].append(len(res.history))
            capped[name] += res.stop_reason == "iterations"
            cells.append(f"{len(res.history):>3} {res.stop_reason:<10} {res.gap_ratio:>9.4g}   ")
        if rounds["auto"][-1] > rounds["0.3"][-1]:
            slower.append(seed)
        cond = 10.0 ** log_condition(seed, args.seeds)
        print(f"{seed:>4} {cond:>8.1e}   {cells[0]}{cells[1]}")
    print(
        f"summary: auto hit the cap on {capped['auto']} of {args.seeds} "
        f"({sum(rounds['auto'])} rounds in all), 0.3 on {capped['0.3']} "
        f"({sum(rounds['0.3'])} rounds); auto needed more rounds than 0.3 on "
        f"{len(slower)} seed{'s' if len(slower) != 1 else ''}"
        + (f" ({', '.join(map(str, slower))})" if slower else "")
    )


if __name__ == "__main__":
    main()
