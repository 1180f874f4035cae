"""Which warm-start rule to use: "slot" (Algorithm 1), "nearest" or "rescue", measured.

SURF hands each slot a warm start for its next solve: its own previous solution ("slot",
Algorithm 1), the previous solution whose weight is closest to its new weight ("nearest"), or
its own unless another previous point dominates its point ("rescue").
This prints, side by side in one run, SURF's final CV and gap ratio with each rule on:

* the paper's K-step tasks (DST concave and convex, Fishwood), and the toys' K-step solvers
  (quadratic, bandit, gear), with each task's protocol from ``paretosurf bench``;
* ZDT1 (30 variables, box [0, 1]) with scipy's L-BFGS-B limited to a few iterations per call,
  warm-started from the previous point (a general-purpose solver that converges quickly), its
  weights kept in ``[eps, 1 - eps]`` (at exactly ``w = 1`` ZDT1's minimizer is only weakly
  Pareto-optimal: ``f1 = 0`` whatever ``g``);
* every task with its exact solver (the rules must then agree).

    python benchmarks/bench_warm_start.py [--zdt1-iterations 5] [--seeds 3]
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
from scipy.optimize import minimize

import paretosurf as ps
from paretosurf.bench import get_task

RULES = ("slot", "nearest", "rescue")


class ZDT1:
    """ZDT1, ``f1 = x1``, ``f2 = g (1 - sqrt(x1 / g))``, ``g = 1 + 9 mean(x2..xn)``, solved
    per weight by L-BFGS-B for ``iterations`` iterations from the warm start."""

    def __init__(self, n_vars: int = 30, iterations: int = 5) -> None:
        self.n_vars, self.iterations = n_vars, iterations

    def objectives(self, x: np.ndarray) -> np.ndarray:
        g = 1.0 + 9.0 * np.mean(x[1:])
        return np.array([x[0], g * (1.0 - np.sqrt(x[0] / g))])

    def solve(self, w: float, state: np.ndarray | None) -> ps.Solution:
        x0 = np.full(self.n_vars, 0.5) if state is None else state

        def scalarized(x: np.ndarray) -> float:
            f = self.objectives(x)
            return float(w * f[0] + (1.0 - w) * f[1])

        res = minimize(
            scalarized,
            x0,
            method="L-BFGS-B",
            bounds=[(0.0, 1.0)] * self.n_vars,
            options={"maxiter": self.iterations},
        )
        return ps.Solution(self.objectives(res.x), state=res.x, info={"steps": int(res.nit)})


class BoundedWeights:
    """Solves at ``eps + (1 - 2 eps) w``: keeps the weights off the ends of [0, 1]."""

    def __init__(self, inner: Any, eps: float) -> None:
        self.inner, self.eps = inner, eps

    def solve(self, w: float, state: Any) -> ps.Solution:
        return self.inner.solve(self.eps + (1.0 - 2.0 * self.eps) * w, state)


def surf_task(name: str, kind: str, rule: str, seed: int) -> ps.Result:
    task = get_task(name)
    problem = task.make_problem()
    solver = task.solver(problem, kind)
    init, _ = task.initial_states(problem, solver, kind, task.n_segments, seed)
    return ps.surf(
        solver,
        task.n_segments,
        alpha=task.alpha,
        iterations=task.iterations,
        init_states=init,
        warm_start=rule,
        normalize=task.normalize,
    )


def row(label: str, results: dict[str, list[ps.Result]]) -> str:
    cells = []
    for rule in RULES:
        cv = np.mean([r.cv for r in results[rule]])
        ratio = np.mean([r.gap_ratio for r in results[rule]])
        cells.append(f"{cv:10.4g} {ratio:10.4g}")
    cvs = {rule: float(np.mean([r.cv for r in results[rule]])) for rule in RULES}
    first = min(cvs, key=cvs.__getitem__)
    # a rule is "better" when its CV is at least 10% below every other rule's
    clear = all(cvs[first] < 0.9 * cv for rule, cv in cvs.items() if rule != first)
    return f"{label:<36} {' '.join(cells)}   {first if clear else 'same'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zdt1-iterations", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    header = (
        f"{'task (solver)':<36} {'CV slot':>10} {'gap slot':>10} {'CV near':>10} "
        f"{'gap near':>10} {'CV rescue':>10} {'gap rescue':>10}   better"
    )
    print("SURF final uniformity by warm-start rule (mean over seeds)")
    print(header)
    print("-" * len(header))
    for kind in ("gradient", "exact"):
        for name in ("dst", "dst-convex", "fishwood", "quadratic", "bandit", "gear"):
            seeds = range(args.seeds) if kind == "gradient" else range(1)
            results: dict[str, list[Any]] = {
                rule: [surf_task(name, kind, rule, s) for s in seeds] for rule in RULES
            }
            print(row(f"{name} ({kind})", results), flush=True)
    for iterations in (args.zdt1_iterations, 4 * args.zdt1_iterations):
        for eps in (1e-2, 1e-3):
            zdt = BoundedWeights(ZDT1(iterations=iterations), eps)
            results = {rule: [ps.surf(zdt, 20, iterations=30, warm_start=rule)] for rule in RULES}
            print(row(f"ZDT1 (L-BFGS-B {iterations} it., eps {eps:g})", results), flush=True)


if __name__ == "__main__":
    main()
