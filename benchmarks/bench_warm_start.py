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

    python benchmarks/bench_warm_start.py [--zdt1-iterations 5] [--seeds 3] [--out DIR]
    python benchmarks/bench_warm_start.py --write-docs   # the same, published
    python benchmarks/bench_warm_start.py --smoke   # the gear toy and ZDT1 (4 variables), 3 rounds

It writes ``results.json`` (every run's CV and gap ratio, per rule and seed) and ``table.md``
(built from ``results.json`` by :func:`table`: a row per task and solver, the mean CV over
the seeds for each rule, ``± std`` where the seeds differ by more than the printed digits)
into ``--out``, and with ``--write-docs`` into ``docs/results/warm-start/`` too, whose table
``docs/guide/warm-starts.md`` quotes (``tests/benchmarks/test_published_tables.py`` checks
that they match).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Sequence
from typing import Any

import _bench_io as bench_io
import numpy as np
from scipy.optimize import approx_fprime, minimize

import paretosurf as ps
from paretosurf.bench import get_task

RULES = ("slot", "nearest", "rescue")
#: Rounds of a run (None: the task's, 30 on ZDT1), the tasks, ZDT1's variables and weights'
#: distances from the ends (``--smoke``: fewer).
ROUNDS: int | None = None
TASKS = ("dst", "dst-convex", "fishwood", "quadratic", "bandit", "gear")
ZDT1_VARS, EPSILONS = 30, (1e-2, 1e-3)
#: ZDT1's SURF segments N (N + 1 points).
ZDT1_SEGMENTS = 20
#: ZDT1 solves retried with the clipped objective's gradient (see :meth:`ZDT1.solve`).
RETRIED = [0]


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

        box = [(0.0, 1.0)] * self.n_vars
        options = {"maxiter": self.iterations}
        try:
            res = minimize(scalarized, x0, method="L-BFGS-B", bounds=box, options=options)
        except ValueError:
            # an L-BFGS-B iterate left the box by rounding (near f1 = 0, where the gradient of
            # sqrt(x1) is unbounded) and scipy's finite differences refuse it: the same solve
            # again with forward differences of the objective clipped to the box, counted
            RETRIED[0] += 1

            def clipped(x: np.ndarray) -> float:
                return scalarized(np.clip(x, 0.0, 1.0))

            def gradient(x: np.ndarray) -> np.ndarray:
                return np.asarray(approx_fprime(np.clip(x, 0.0, 1.0), clipped, 1.49e-8))

            res = minimize(
                clipped, x0, jac=gradient, method="L-BFGS-B", bounds=box, options=options
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
        iterations=task.iterations if ROUNDS is None else ROUNDS,
        init_states=init,
        warm_start=rule,
        normalize=task.normalize,
    )


def better(cvs: dict[str, list[float]]) -> str:
    """The rules whose mean CV is within 10% of the lowest, where each is at least 10% below
    every other rule's (``"slot, rescue"``); ``"identical"`` where every rule gave the same
    CVs (each run's to 9 significant digits: an exact solver's last digits may differ with
    its start), else ``"same"``."""
    if all(
        math.isclose(a, b, rel_tol=1e-9)
        for rule in RULES
        for a, b in zip(cvs[rule], cvs[RULES[0]], strict=True)
    ):
        return "identical"
    means = {rule: float(np.mean(cvs[rule])) for rule in RULES}
    lowest = min(means.values())
    first = [rule for rule in RULES if 0.9 * means[rule] <= lowest]
    rest = [rule for rule in RULES if rule not in first]
    clear = bool(rest) and all(means[a] < 0.9 * means[b] for a in first for b in rest)
    return ", ".join(first) if clear else "same"


def row(label: str, results: dict[str, list[ps.Result]]) -> str:
    """A printed line: each rule's mean CV and gap ratio, and the better rule."""
    cells = []
    for rule in RULES:
        cv = np.mean([r.cv for r in results[rule]])
        ratio = np.mean([r.gap_ratio for r in results[rule]])
        cells.append(f"{cv:10.4g} {ratio:10.4g}")
    verdict = better({rule: [r.cv for r in results[rule]] for rule in RULES})
    return f"{label:<36} {' '.join(cells)}   {verdict}"


def record(
    label: str, seeds: Sequence[int], results: dict[str, list[ps.Result]], **protocol: Any
) -> dict:
    """One row of ``results.json``: every run's CV and gap ratio, per rule, in seed order
    (``seeds``: the seeds of the initial states, none for ZDT1's fixed start)."""
    return {
        "label": label,
        "seeds": list(seeds),
        **protocol,
        "cv": {rule: [float(r.cv) for r in results[rule]] for rule in RULES},
        "gap_ratio": {rule: [float(r.gap_ratio) for r in results[rule]] for rule in RULES},
    }


def cv_cell(values: Sequence[float], decimals: int) -> str:
    """A mean CV over seeds to ``decimals`` decimals, ``± std`` where the seeds differ by more
    than the printed digits (:func:`_bench_io.spread`)."""
    if not all(math.isfinite(v) for v in values):
        return f"inf/nan in {sum(not math.isfinite(v) for v in values)}"
    return bench_io.spread(values, decimals)


def table(results: dict[str, Any]) -> str:
    """``table.md`` from ``results.json``: a row per task and solver, each rule's mean CV over
    the seeds to 2 significant digits of the row's smallest mean, and the better rule."""
    lines = [
        f"SURF's final CV by warm-start rule (`python benchmarks/bench_warm_start.py`, "
        f"{results['seeds']} seed(s) for the K-step solvers; mean over the runs, ± std "
        f"(ddof=0) where the runs differ by more than the printed digits). *better*: the rules "
        f"whose mean CV is at least 10% below the others', *identical*: the same CVs (to 9 "
        f"digits) with every rule, *same*: neither.",
        "",
        '| task, inner solver | runs | "slot" | "nearest" | "rescue" | better |',
        "|---|---|---|---|---|---|",
    ]
    for entry in results["rows"]:
        cvs = entry["cv"]
        means = [abs(float(np.mean(cvs[rule]))) for rule in RULES]
        smallest = min((m for m in means if math.isfinite(m) and m > 0), default=1.0)
        decimals = max(0, 1 - math.floor(math.log10(smallest)))
        row_cells = [cv_cell(cvs[rule], decimals) for rule in RULES]
        lines.append(
            f"| {entry['label']} | {len(cvs[RULES[0]])} | {' | '.join(row_cells)} | {better(cvs)} |"
        )
    lines += [
        "",
        f"ZDT1: {results['zdt1']['variables']} variables, N = {results['zdt1']['n_segments']}, "
        f"{results['zdt1']['rounds']} rounds, one run (its start is fixed); solves retried "
        f"with forward differences of the objective clipped to the box: "
        f"{results['zdt1']['retried']}.",
    ]
    return "\n".join(lines) + "\n"


def solver_label(name: str, kind: str) -> str:
    """A row's label: the task's title and its inner solver."""
    task = get_task(name)
    if kind == "exact":
        return f"{task.title}, exact solver"
    optimizer = {"adam": "Adam", "sgd": "SGD"}.get(task.optimizer, task.optimizer)
    return f"{task.title}, K = {task.steps} {optimizer} steps"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zdt1-iterations", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=3)
    bench_io.add_options(
        parser,
        "warm_start",
        docs="warm-start",
        smoke="the gear toy and ZDT1 of 4 variables, 1 seed, 3 rounds",
    )
    args = parser.parse_args()
    bench_io.start(args, parser)
    started = time.perf_counter()
    if args.smoke:
        global ROUNDS, TASKS, ZDT1_VARS, EPSILONS
        ROUNDS, TASKS, ZDT1_VARS, EPSILONS, args.seeds = 3, ("gear",), 4, (1e-2,), 1
    header = (
        f"{'task (solver)':<36} {'CV slot':>10} {'gap slot':>10} {'CV near':>10} "
        f"{'gap near':>10} {'CV rescue':>10} {'gap rescue':>10}   better"
    )
    print("SURF final uniformity by warm-start rule (mean over seeds)")
    print(header)
    print("-" * len(header))
    rows: list[dict[str, Any]] = []
    for kind in ("gradient", "exact"):
        for name in TASKS:
            seeds = range(args.seeds) if kind == "gradient" else range(1)
            results: dict[str, list[Any]] = {
                rule: [surf_task(name, kind, rule, s) for s in seeds] for rule in RULES
            }
            print(row(f"{name} ({kind})", results), flush=True)
            task = get_task(name)
            protocol = {
                "n_segments": task.n_segments,
                "rounds": task.iterations if ROUNDS is None else ROUNDS,
                "alpha": task.alpha,
            }
            rows.append(record(solver_label(name, kind), seeds, results, **protocol))
    zdt1_iterations = [args.zdt1_iterations, 4 * args.zdt1_iterations][: 1 if args.smoke else 2]
    for iterations in zdt1_iterations:
        for eps in EPSILONS:
            zdt = BoundedWeights(ZDT1(ZDT1_VARS, iterations=iterations), eps)
            results = {
                rule: [ps.surf(zdt, ZDT1_SEGMENTS, iterations=ROUNDS or 30, warm_start=rule)]
                for rule in RULES
            }
            print(row(f"ZDT1 (L-BFGS-B {iterations} it., eps {eps:g})", results), flush=True)
            label = f"ZDT1, L-BFGS-B {iterations} iterations, w in [{eps:g}, {1 - eps:g}]"
            rows.append(record(label, [], results, n_segments=ZDT1_SEGMENTS, rounds=ROUNDS or 30))
    print(
        f"ZDT1 solves retried with forward differences of the objective clipped to the box (an "
        f"L-BFGS-B iterate left the box by rounding): {RETRIED[0]}"
    )
    published = {
        "rules": list(RULES),
        "seeds": args.seeds,
        "zdt1": {
            "variables": ZDT1_VARS,
            "n_segments": ZDT1_SEGMENTS,
            "rounds": ROUNDS or 30,
            "iterations": zdt1_iterations,
            "retried": RETRIED[0],
        },
        "seconds": round(time.perf_counter() - started, 1),
        "rows": rows,
    }
    text = table(published)
    for folder in bench_io.published(args):
        (folder / "results.json").write_text(json.dumps(published, indent=1) + "\n")
        (folder / "table.md").write_text(text)
    print()
    print(text, end="")


if __name__ == "__main__":
    main()
