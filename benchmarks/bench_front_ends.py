"""The front's ends, verified: coverage of each objective's true range, success, and what the
end checks cost, on fronts whose ends the old habits clipped.

Every figure is measured against the front's closed form, never against the run's own:

- ZDT1 with ``f2`` in units 1000 times smaller (``from_scipy``, 10 variables, box bounds), with
  no bounds, ``weight_bounds=(1e-3, 0.999)`` in the run's units, the same bounds on the raw
  weights (a wrapper solver that maps the weights itself, without ``solve_end``: what the
  option did before it acted in the run's units, and what the run cannot see), and
  ``"auto"``;
- an ill-conditioned ridge path (condition number 1e3) solved exactly by a plain function,
  with the same settings;
- ZDT1 as the README runs it (30 variables): the share of the run's evaluations that the end
  solves took.

Run: ``python benchmarks/bench_front_ends.py`` (about a minute); ``--smoke``: 4 variables, 6
points, 3 rounds.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable
from typing import Any

import _bench_io as bench_io
import numpy as np
from whole_front_bank import RidgeProblem

import paretosurf as ps


def zdt1(scale: float, n: int) -> tuple[Callable[[np.ndarray], np.ndarray], np.ndarray]:
    """ZDT1 with f2 times ``scale``; returns the objectives and the front's range."""

    def objectives(x: np.ndarray) -> np.ndarray:
        g = 1.0 + 9.0 * np.mean(x[1:])
        return np.array([x[0], scale * g * (1.0 - np.sqrt(x[0] / g))])

    return objectives, np.array([[0.0, 0.0], [1.0, scale]])


class Ridge:
    """The bank's ridge path (``whole_front_bank.RidgeProblem``) at a condition number."""

    def __init__(self, cond: float) -> None:
        self.problem = RidgeProblem.make(condition=cond)
        self.solve = self.problem.solver()

    def true_range(self) -> np.ndarray:
        ends = self.problem.front(np.array([0.0, 1.0]))
        return np.stack([ends.min(axis=0), ends.max(axis=0)])


class RawBounds:
    """A solver whose weights are mapped into ``(lo, hi)`` on the raw objectives."""

    def __init__(self, solver: Any, lo: float, hi: float) -> None:
        self.solver, self.lo, self.hi = solver, lo, hi
        self.scalarization = getattr(solver, "scalarization", None)

    def solve(self, w: float, state: Any) -> ps.Solution:
        mapped = self.lo + (self.hi - self.lo) * w
        if callable(self.solver):
            return self.solver(mapped, state)
        return self.solver.solve(mapped, state)


#: Points and most rounds of a run, and ZDT1's variables (``--smoke``: 6, 3 and 4).
N_POINTS, ROUNDS, N_VAR, README_N_VAR = 21, 30, 10, 30


def run(solver: Any, true_range: np.ndarray, **options: Any) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        started = time.perf_counter()
        res = ps.surf(solver, n_points=N_POINTS, iterations=ROUNDS, **options)
        seconds = time.perf_counter() - started
    cover = np.ptp(res.points, axis=0) / (true_range[1] - true_range[0])
    ends = res.front_ends
    return {
        "cover f1": f"{100 * cover[0]:.0f}%",
        "cover f2": f"{100 * cover[1]:.0f}%",
        "success": res.success,
        "findings": ",".join(sorted({f.code for f in res.findings})) or "-",
        "evaluations": res.n_evaluations,
        "end checks": "-" if ends is None else f"{ends.how[0][:5]}/{ends.how[1][:5]}",
        "false success": bool(res.success and cover.min() < 0.95),
        "seconds": f"{seconds:.1f}",
    }


def table(rows: list[dict[str, Any]]) -> None:
    keys = list(rows[0])
    widths = [max(len(k), *(len(str(r[k])) for r in rows)) for k in keys]
    print(" | ".join(k.ljust(w) for k, w in zip(keys, widths, strict=True)))
    print("-+-".join("-" * w for w in widths))
    for r in rows:
        print(" | ".join(str(r[k]).ljust(w) for k, w in zip(keys, widths, strict=True)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    bench_io.add_options(parser, "front_ends", smoke="4 variables, 6 points, 3 rounds")
    args = parser.parse_args()
    bench_io.start(args, parser)
    if args.smoke:
        global N_POINTS, ROUNDS, N_VAR, README_N_VAR
        N_POINTS, ROUNDS, N_VAR, README_N_VAR = 6, 3, 4, 4
    rows: list[dict[str, Any]] = []
    objectives, front_range = zdt1(1000.0, N_VAR)
    box = [(0.0, 1.0)] * N_VAR

    def scipy_solver() -> Any:
        return ps.adapters.from_scipy(objectives, np.full(N_VAR, 0.5), bounds=box)

    ridge = Ridge(cond=1e3)
    for name, make, true_range in [
        ("ZDT1, f2 x 1000, from_scipy", scipy_solver, front_range),
        ("ridge path, cond 1e3, exact", lambda: ridge.solve, ridge.true_range()),
    ]:
        for setting, options, wrap in [
            ("no bounds", {}, False),
            ("(1e-3, 0.999), run's units", {"weight_bounds": (1e-3, 0.999)}, False),
            ("(1e-3, 0.999) raw, solver's own", {}, True),
            ("'auto'", {"weight_bounds": "auto"}, False),
        ]:
            solver = make()
            if wrap:
                solver = RawBounds(solver, 1e-3, 0.999)
            rows.append(
                {"problem": name, "weight_bounds": setting, **run(solver, true_range, **options)}
            )
    table(rows)
    own = [r for r in rows if "solver's own" in r["weight_bounds"]]
    judged = [r for r in rows if r not in own]
    print(
        f"false successes: {sum(r['false success'] for r in judged)} of {len(judged)} runs "
        f"(and {sum(r['false success'] for r in own)} of {len(own)} where the solver maps its "
        "weights itself, as the option did on raw weights before: the run cannot see that)"
    )

    # what the end solves cost on a front that needs no remedy (the README's ZDT1)
    readme, _ = zdt1(1.0, README_N_VAR)
    box = [(0.0, 1.0)] * README_N_VAR
    solver = ps.adapters.from_scipy(readme, np.full(README_N_VAR, 0.5), bounds=box)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ps.surf(solver, n_points=N_POINTS, iterations=ROUNDS)
    assert res.front_ends is not None and res.n_evaluations is not None
    sweep = ps.methods.uniform(
        ps.adapters.from_scipy(readme, np.full(README_N_VAR, 0.5), bounds=box),
        N_POINTS - 1,
        iterations=1,
    )
    assert sweep.n_evaluations is not None
    print(
        f"\nZDT1 ({README_N_VAR} variables, {N_POINTS} points, no bounds): success={res.success}, "
        f"{res.n_evaluations} evaluations = {res.n_evaluations / sweep.n_evaluations:.2f}x one "
        f"sweep of weights; the end solves took {res.front_ends.evaluations} "
        f"({100 * res.front_ends.evaluations / res.n_evaluations:.1f}%)"
    )


if __name__ == "__main__":
    main()
