"""What SURF's defaults spend: objective evaluations against one sweep of evenly spaced weights.

A user who keeps the defaults (``alpha="auto"``, ``early_stopping=True``, ``iterations`` a
cap) should pay for the rounds the front needs, not for a fixed schedule. This prints, side
by side in one run, for each problem:

* **one sweep**: ``ps.methods.uniform(solver, N, iterations=1)``, the N + 1 evenly spaced
  weights solved once with the same adapter: the unit of the evaluation counts;
* **defaults**: ``ps.surf(solver, n_points=N + 1)``;
* **defaults, warm_start="best"**: each slot starts from the previous solution that scores
  best at its new weight (for solvers whose states can be shared between slots);
* **paper**: 30 rounds at ``alpha=0.3`` without early stopping (the paper's protocol);

with the rounds run, the objective evaluations spent (from the records' ``evaluations``, as
the adapters report them) as a multiple of one sweep's, the final gap ratio and IGD against
a dense sample of the true front (moocore), and, for the two SURF runs, the evaluations spent
by the first round whose gap ratio is at most 1.1.

Problems (30 variables for ZDT, 21 points):

* ZDT1 through ``ps.adapters.from_scipy`` (linear, L-BFGS-B to convergence), weights kept
  in ``[1e-3, 1 - 1e-3]`` as the README's example does (at ``w = 1`` the scalarized problem
  ignores ``f2`` and stops off the front);
* ZDT2 through ``from_scipy`` with ``scalarization="tchebycheff"`` (a concave front);
* a torch model through ``ps.adapters.from_torch``: a linear model fitted to two data sets
  (two least-squares losses, a convex front), ``steps`` Adam steps per call ("torch"), or
  up to ten times as many, each call ending once the gradient is below ``gtol``
  ("torch-gtol": the inner budget then follows the weights' change).

    python benchmarks/bench_default_budget.py [--problems zdt1,zdt2,torch,torch-gtol] [--seeds 1]
    python benchmarks/bench_default_budget.py --smoke   # ZDT1 and torch, 5 variables, 6 points
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import _bench_io as bench_io
import moocore
import numpy as np

import paretosurf as ps

N_VARS = 30
N_POINTS = 21
TARGET_GAP = 1.1
#: Rounds of the paper's protocol (``--smoke``: 3).
PAPER_ROUNDS = 30


def zdt1(x: np.ndarray) -> np.ndarray:
    g = 1.0 + 9.0 * np.mean(x[1:])
    return np.array([x[0], g * (1.0 - np.sqrt(x[0] / g))])


def zdt2(x: np.ndarray) -> np.ndarray:
    g = 1.0 + 9.0 * np.mean(x[1:])
    return np.array([x[0], g * (1.0 - (x[0] / g) ** 2)])


@dataclass
class Problem:
    """A solver factory, the loop options every method gets, and a dense true front."""

    name: str
    make_solver: Callable[[int], Any]
    options: dict[str, Any]
    front: np.ndarray


def zdt_problem(name: str) -> Problem:
    f1 = np.linspace(0.0, 1.0, 20001)
    if name == "zdt1":
        return Problem(
            "ZDT1 (from_scipy, linear)",
            lambda seed: ps.adapters.from_scipy(
                zdt1, np.full(N_VARS, 0.5), bounds=[(0.0, 1.0)] * N_VARS
            ),
            {"weight_bounds": (1e-3, 1 - 1e-3)},
            np.column_stack([f1, 1.0 - np.sqrt(f1)]),
        )
    return Problem(
        "ZDT2 (from_scipy, tchebycheff)",
        lambda seed: ps.adapters.from_scipy(
            zdt2, np.full(N_VARS, 0.5), bounds=[(0.0, 1.0)] * N_VARS, scalarization="tchebycheff"
        ),
        {},
        np.column_stack([f1, 1.0 - f1**2]),
    )


def torch_problem(steps: int, gtol: float | None = None) -> Problem:
    """Two least-squares fits of one linear model: ``h_k = mean((X_k theta - y_k)^2)``; the
    front is that of two convex quadratics, traced densely by exact solves."""
    import torch

    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    xs = [rng.normal(size=(40, 4)) for _ in range(2)]
    ys = [x @ rng.normal(size=4) + 0.1 * rng.normal(size=40) for x in xs]
    q = [x.T @ x / len(x) for x in xs]
    b = [x.T @ y / len(x) for x, y in zip(xs, ys, strict=True)]
    c = [float(y @ y / len(y)) for y in ys]

    def exact(w: float) -> np.ndarray:
        theta = np.linalg.solve(w * q[0] + (1 - w) * q[1], w * b[0] + (1 - w) * b[1])
        return np.array([theta @ q[k] @ theta - 2 * b[k] @ theta + c[k] for k in range(2)])

    front = np.array([exact(w) for w in np.linspace(0.0, 1.0, 4001)])
    tx = [torch.tensor(x, dtype=torch.float64) for x in xs]
    ty = [torch.tensor(y, dtype=torch.float64) for y in ys]

    def make(seed: int) -> Any:
        torch.manual_seed(seed)
        theta = torch.zeros(4, dtype=torch.float64, requires_grad=True)

        def losses(params: Any) -> Any:
            (t,) = params
            return torch.stack([torch.mean((x @ t - y) ** 2) for x, y in zip(tx, ty, strict=True)])

        return ps.adapters.from_torch([theta], losses, steps=steps, lr=0.05, gtol=gtol)

    budget = f"Adam {steps} steps" + ("" if gtol is None else f" or to gtol {gtol:g}")
    return Problem(f"linear model (from_torch, {budget})", make, {}, front)


def evaluations_until(res: ps.Result, gap: float) -> int | None:
    """Objective evaluations spent up to the first round whose gap ratio is within ``gap``."""
    spent = 0
    for record in res.history:
        if record.evaluations is None:
            return None
        spent += int(np.sum(record.evaluations))
        if record.gap_ratio <= gap:
            return spent
    return None


def row(label: str, res: ps.Result, sweep: int, front: np.ndarray, seconds: float) -> str:
    spent = res.n_evaluations or 0
    until = evaluations_until(res, TARGET_GAP) if res.method == "surf" else None
    igd = float(moocore.igd(res.points, ref=front))
    first = "-" if until is None else f"{until / sweep:.2f}x"
    return (
        f"| {label} | {len(res.history)} | {spent / sweep:.2f}x | {first} | "
        f"{res.gap_ratio:.4f} | {igd:.5f} | {res.stop_reason} | {seconds:.1f} |"
    )


def bench(problem: Problem, seed: int) -> list[str]:
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        started = time.process_time()
        sweep_res = ps.methods.uniform(
            problem.make_solver(seed), N_POINTS - 1, iterations=1, **problem.options
        )
        sweep = sweep_res.n_evaluations or 1
        rows.append(
            row("one sweep", sweep_res, sweep, problem.front, time.process_time() - started)
        )
        started = time.process_time()
        default = ps.surf(problem.make_solver(seed), n_points=N_POINTS, **problem.options)
        rows.append(row("defaults", default, sweep, problem.front, time.process_time() - started))
        started = time.process_time()
        best = ps.surf(
            problem.make_solver(seed), n_points=N_POINTS, warm_start="best", **problem.options
        )
        rows.append(
            row(
                'defaults, warm_start="best"',
                best,
                sweep,
                problem.front,
                time.process_time() - started,
            )
        )
        started = time.process_time()
        paper = ps.surf(
            problem.make_solver(seed),
            n_points=N_POINTS,
            alpha=0.3,
            iterations=PAPER_ROUNDS,
            early_stopping=False,
            **problem.options,
        )
        rows.append(
            row(
                f"{PAPER_ROUNDS} rounds, alpha 0.3",
                paper,
                sweep,
                problem.front,
                time.process_time() - started,
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", default="zdt1,zdt2,torch,torch-gtol")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--torch-steps", type=int, default=50)
    parser.add_argument("--torch-gtol", type=float, default=1e-6)
    bench_io.add_options(
        parser, "default_budget", smoke="ZDT1 and torch, 5 variables, 6 points, 5 Adam steps"
    )
    args = parser.parse_args()
    bench_io.start(args, parser)
    if args.smoke:
        global N_VARS, N_POINTS, PAPER_ROUNDS
        N_VARS, N_POINTS, PAPER_ROUNDS = 5, 6, 3
        args.problems, args.seeds, args.torch_steps = "zdt1,torch", 1, 5
    for name in args.problems.split(","):
        if name == "torch":
            problem = torch_problem(args.torch_steps)
        elif name == "torch-gtol":
            problem = torch_problem(10 * args.torch_steps, args.torch_gtol)
        else:
            problem = zdt_problem(name)
        for seed in range(args.seeds):
            print(f"\n**{problem.name}**, {N_POINTS} points, seed {seed}\n")
            print(
                "| run | rounds | evaluations / sweep | to gap ratio 1.1 | gap ratio | IGD | "
                "stop | CPU s |"
            )
            print("|---|---|---|---|---|---|---|---|")
            for line in bench(problem, seed):
                print(line, flush=True)


if __name__ == "__main__":
    main()
