"""Weakly Pareto-optimal endpoints: ``weight_bounds`` against a lexicographic refinement.

At exactly ``w = 1`` (or 0) the scalarized problem ignores one objective; a solver may stop
anywhere on the flat face this leaves, at a point that is only weakly Pareto-optimal (ZDT1:
``f1 = 0`` whatever the other variables; a classifier with an unpenalized bias: any bias at
zero weights). SURF then piles its weights against that end. Two remedies, printed side by
side in one run on ZDT1 (scipy's L-BFGS-B, to convergence and with 5 iterations per call) and
on an L1-penalized logistic regression (torch, Adam, 20 steps per call):

* ``weight_bounds=(eps, 1 - eps)``: every weight is solved at ``eps + (1 - 2 eps) w``;
* lexicographic refinement: an endpoint is solved at its weight, then once more at
  ``eps`` (or ``1 - eps``) from that solution (one extra solve per endpoint and round).

    python benchmarks/bench_endpoints.py [--out DIR]
    python benchmarks/bench_endpoints.py --smoke     # 5 variables, N = 5, 3 rounds, 5 Adam steps
"""

from __future__ import annotations

import argparse
import time
import warnings
from typing import Any

import _bench_io as bench_io
import numpy as np

import paretosurf as ps


def zdt1(x: np.ndarray) -> np.ndarray:
    g = 1.0 + 9.0 * np.mean(x[1:])
    return np.array([x[0], g * (1.0 - np.sqrt(x[0] / g))])


class Lexicographic:
    """Refines the endpoint solves: after ``w = 0`` (``1``) one more call at ``eps``
    (``1 - eps``), warm-started from the first; the refined solution is returned."""

    def __init__(self, inner: Any, eps: float) -> None:
        self.inner, self.eps = inner, eps

    def solve(self, w: float, state: Any) -> ps.Solution:
        sol = self.inner.solve(w, state)
        if w not in (0.0, 1.0):
            return sol
        refined = self.inner.solve(self.eps if w == 0.0 else 1.0 - self.eps, sol.state)
        steps = int(sol.info.get("steps", 0)) + int(refined.info.get("steps", 0))
        return ps.Solution(refined.objectives, refined.state, {"steps": steps})


def torch_l1_model(steps: int) -> Any:
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 8))
    logits = x @ np.array([2.0, -1.5, 1.0, 0.5, 0.0, 0.0, 0.0, 0.0]) + 0.8
    y = (rng.uniform(size=300) < 1 / (1 + np.exp(-logits))).astype(np.float64)
    xt, yt = torch.tensor(x), torch.tensor(y)
    model = torch.nn.Linear(8, 1, dtype=torch.float64)

    def objectives(m: Any) -> Any:
        loss = torch.nn.functional.binary_cross_entropy_with_logits(m(xt).squeeze(1), yt)
        return torch.stack([loss, m.weight.abs().sum()])

    return ps.adapters.from_torch(model, objectives, steps=steps, lr=0.05)


def cases(n_var: int = 30, torch_steps: int = 20) -> list[tuple[str, Any]]:
    box = [(0.0, 1.0)] * n_var
    return [
        (
            "ZDT1, L-BFGS-B to convergence",
            ps.adapters.from_scipy(zdt1, np.full(n_var, 0.5), bounds=box),
        ),
        (
            "ZDT1, L-BFGS-B 5 iterations",
            ps.adapters.from_scipy(zdt1, np.full(n_var, 0.5), bounds=box, steps=5),
        ),
        (f"L1 logistic regression, Adam {torch_steps} steps", torch_l1_model(torch_steps)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    bench_io.add_options(
        parser, "endpoints", smoke="ZDT1 of 5 variables, N = 5, 3 rounds, 5 Adam steps"
    )
    args = parser.parse_args()
    bench_io.start(args, parser)
    n_var, n, rounds, steps = (5, 5, 3, 5) if args.smoke else (30, 20, 30, 20)
    header = (
        f"{'problem':<38} {'remedy':<22} {'CV':>8} {'gap ratio':>10} {'solves':>7} "
        f"{'seconds':>8}  findings"
    )
    print(
        f"SURF, N = {n}, defaults, at most {rounds} rounds (CV and gap ratio in "
        "endpoint-normalized coordinates)"
    )
    print(header)
    print("-" * len(header))
    for name, solver in cases(n_var, steps):
        remedies: list[tuple[str, Any, dict[str, Any]]] = [
            ("none", solver, {}),
            ("weight_bounds 1e-3", solver, {"weight_bounds": (1e-3, 1 - 1e-3)}),
            ("weight_bounds 1e-2", solver, {"weight_bounds": (1e-2, 1 - 1e-2)}),
            ("lexicographic 1e-3", Lexicographic(solver, 1e-3), {}),
        ]
        for label, inner, options in remedies:
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ps.ParetoWarning)
                res = ps.surf(inner, n, iterations=rounds, **options)
            seconds = time.perf_counter() - start
            solves = res.n_solves + (2 * len(res.history) if label.startswith("lexi") else 0)
            codes = ",".join(f.code for f in res.findings) or "-"
            print(
                f"{name:<38} {label:<22} {res.cv:8.4f} {res.gap_ratio:10.4g} {solves:7d} "
                f"{seconds:8.2f}  {codes}",
                flush=True,
            )


if __name__ == "__main__":
    main()
