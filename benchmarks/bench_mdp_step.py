"""The K-step MDP solver's gradient step, today's against the two before it, side by side.

* "older": two dense ``np.linalg.solve`` calls per step and a dense ``P_pi`` rebuild;
* "previous": one LAPACK ``getrf`` per slot and step (``getrs`` for the values and,
  transposed, the occupancy), transitions as non-zeros for ``P V``;
* "new": every slot's ``I - gamma P_pi`` in one banded matrix (absorbing states split off,
  the rest in reverse Cuthill-McKee order: DST's bandwidth 8), one ``dgbtrf`` and two
  ``dgbtrs`` per step for the whole batch; sums over actions as slice additions.

Prints, in one process (interleaved repeats, medians):

* milliseconds per batched gradient step on Deep Sea Treasure and Fishwood (16 slots), each
  step, the ratios previous/new and older/new, and the largest gradient difference;
* the whole DST SURF run of the paper (K = 100 Adam steps, N = 15, 30 rounds, the task's
  warm-start protocol) with the previous and the new step: wall times, the ratio, and the
  largest difference between the two runs' final points (the trajectories agree to rounding).

    python benchmarks/bench_mdp_step.py [--repeats 5] [--runs 3] [--out DIR]
    python benchmarks/bench_mdp_step.py --smoke     # 1 repeat, 1 run of 3 rounds
"""

from __future__ import annotations

import argparse
import time
import types
from typing import Any

import _bench_io as bench_io
import numpy as np
from scipy.linalg import lapack
from scipy.special import log_softmax

from paretosurf.bench import get_task, run_task


def previous_policy_gradients(self: Any, logits: np.ndarray, rewards: np.ndarray) -> np.ndarray:
    """The step as it was: a dense ``einsum`` for ``P_pi`` and ``P V``, and two
    ``np.linalg.solve`` calls (values; the transposed system for the occupancy)."""
    log_pi = log_softmax(logits, axis=-1)
    pi = np.exp(log_pi)
    n = self.n_states
    flow = np.einsum("bsa,sat->bst", pi, self.P, optimize=True)
    flow *= -self.gamma
    flow.reshape(-1, n * n)[:, :: n + 1] += 1.0
    kl = np.sum(self._kl_terms(pi, log_pi), axis=-1)
    c = np.sum(pi[:, None] * rewards, axis=-1) - self.beta * kl[:, None]
    mean = np.mean(c, axis=-1)
    u = np.linalg.solve(flow, np.swapaxes(c - mean[..., None], 1, 2))
    v = np.swapaxes(u, 1, 2) + (mean / (1.0 - self.gamma))[..., None]
    q = rewards + self.gamma * np.einsum("sat,bkt->bksa", self.P, v)
    adv = q - self.beta * (log_pi - self._log_ref)[:, None] - v[..., None]
    rhs = np.broadcast_to(self.rho, (pi.shape[0], n))[..., None]
    d_u = np.linalg.solve(np.swapaxes(flow, 1, 2), rhs)[..., 0]
    return np.asarray(-self._factor * d_u[:, None, :, None] * pi[:, None] * adv)


def _lu_solve_both(
    flow: np.ndarray, rhs: np.ndarray, rho: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """One ``getrf`` per slot, ``getrs`` for the values and, transposed, the occupancy."""
    batch, n = flow.shape[0], flow.shape[1]
    x = np.empty((batch, n, rhs.shape[2]))
    y = np.empty((batch, n))
    for b in range(batch):
        lu, piv, _ = lapack.dgetrf(flow[b])
        x[b] = lapack.dgetrs(lu, piv, rhs[b])[0]
        y[b] = lapack.dgetrs(lu, piv, rho, trans=1)[0]
    return x, y


def _expected_next(self: Any, v: np.ndarray) -> np.ndarray:
    """``P V`` from the non-zeros of a sparse ``P`` (dense ``einsum`` otherwise)."""
    if not self._sparse:
        return np.asarray(np.einsum("sat,...t->...sa", self.P, v))
    s_idx, a_idx, t_idx, p = self._nz
    n, k = self.n_states * self.n_actions, self.n_actions
    rows = v.reshape(-1, self.n_states)
    cells = (np.arange(rows.shape[0])[:, None] * n + (s_idx * k + a_idx)).ravel()
    out = np.bincount(cells, weights=(rows[:, t_idx] * p).ravel(), minlength=rows.shape[0] * n)
    return out.reshape(*v.shape[:-1], self.n_states, self.n_actions)


def today_policy_gradients(self: Any, logits: np.ndarray, rewards: np.ndarray) -> np.ndarray:
    """The step before the banded solve: one ``getrf`` per slot from 24 states on (two batched
    ``np.linalg.solve`` calls below), ``P V`` from the non-zeros."""
    log_pi = log_softmax(logits, axis=-1)
    pi = np.exp(log_pi)
    n = self.n_states
    flow = np.einsum("bsa,sat->bst", pi, self.P, optimize=True)
    flow *= -self.gamma
    flow.reshape(-1, n * n)[:, :: n + 1] += 1.0
    kl = np.sum(self._kl_terms(pi, log_pi), axis=-1)
    c = np.sum(pi[:, None] * rewards, axis=-1) - self.beta * kl[:, None]
    mean = np.mean(c, axis=-1)
    rhs = np.swapaxes(c - mean[..., None], 1, 2)
    if n >= 24:
        u, d_u = _lu_solve_both(flow, rhs, self.rho)
    else:
        u = np.linalg.solve(flow, rhs)
        occupancy_rhs = np.broadcast_to(self.rho, (pi.shape[0], n))[..., None]
        d_u = np.linalg.solve(np.swapaxes(flow, 1, 2), occupancy_rhs)[..., 0]
    v = np.swapaxes(u, 1, 2) + (mean / (1.0 - self.gamma))[..., None]
    q = rewards + self.gamma * _expected_next(self, v)
    adv = q - self.beta * (log_pi - self._log_ref)[:, None] - v[..., None]
    return np.asarray(-self._factor * d_u[:, None, :, None] * pi[:, None] * adv)


def use_step(problem: Any, step: Any) -> Any:
    problem._policy_gradients = types.MethodType(step, problem)
    return problem


def use_previous_step(problem: Any) -> Any:
    """The "older" step (two dense solves), as ``benchmarks/bench_auto_alpha.py`` uses it."""
    return use_step(problem, previous_policy_gradients)


STEPS = {"older": previous_policy_gradients, "previous": today_policy_gradients}
#: Steps per timing of the gradient step, and the Adam steps of the torch-against-numpy
#: solve (``--smoke``: 5 and 10).
STEP_CALLS, SOLVE_STEPS = 50, 100


def step_seconds(problem: Any, slots: int, repeats: int) -> tuple[dict[str, float], float]:
    """Seconds per batched step of each step (median of ``repeats`` interleaved rounds of 50
    steps), and the largest difference between the new and the previous gradients."""
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(slots, problem.n_states, problem.n_actions))
    w = np.linspace(0, 1, slots)
    rewards = (w[:, None, None] * problem.R[0] + (1 - w[:, None, None]) * problem.R[1])[:, None]
    steps = {name: types.MethodType(f, problem) for name, f in STEPS.items()}
    steps["new"] = problem._policy_gradients
    diff = float(np.max(np.abs(steps["new"](logits, rewards) - steps["previous"](logits, rewards))))
    times: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(repeats):
        for name, f in steps.items():
            tic = time.perf_counter()
            for _ in range(STEP_CALLS):
                f(logits, rewards)
            times[name].append((time.perf_counter() - tic) / STEP_CALLS)
    return {name: float(np.median(t)) for name, t in times.items()}, diff


def torch_against_numpy(repeats: int = 3) -> None:
    """Seconds of one ``solve_many`` (16 slots x 100 steps) with numpy and with torch on the
    CPU (``device="cpu"``, 1 thread), if torch is installed."""
    try:
        import torch
    except ImportError:
        print("\ntorch not installed: no torch-against-numpy row")
        return
    from paretosurf.problems.mdp.solvers import MDPGradientSolver

    torch.set_num_threads(1)
    print(f"\nsolve_many, 16 slots x {SOLVE_STEPS} steps (median of interleaved repeats)")
    print(f"{'problem':<10}{'numpy ms':>10}{'torch-cpu ms':>14}{'torch/numpy':>13}")
    for name in ("dst", "fishwood"):
        problem = get_task(name).make_problem()
        w = np.linspace(0, 1, 16)
        solvers = {
            "numpy": MDPGradientSolver(problem, steps=SOLVE_STEPS),
            "torch": MDPGradientSolver(problem, steps=SOLVE_STEPS, device="cpu"),
        }
        times: dict[str, list[float]] = {k: [] for k in solvers}
        for _ in range(repeats + 1):  # the first round warms up
            for key, solver in solvers.items():
                tic = time.perf_counter()
                solver.solve_many(w, [None] * 16)
                times[key].append(time.perf_counter() - tic)
        a, b = (float(np.median(times[k][1:])) for k in ("numpy", "torch"))
        print(f"{name:<10}{a * 1e3:>10.1f}{b * 1e3:>14.1f}{b / a:>12.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    bench_io.add_options(parser, "mdp_step", smoke="1 repeat, 1 DST run of 3 rounds")
    args = parser.parse_args()
    bench_io.start(args, parser)
    rounds = 3 if args.smoke else None  # the whole run's rounds (None: the task's)
    if args.smoke:
        global STEP_CALLS, SOLVE_STEPS
        args.repeats, args.runs, STEP_CALLS, SOLVE_STEPS = 1, 1, 5, 10
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:  # pragma: no cover
        pass
    print("gradient step, 16 slots (median of interleaved repeats)")
    print(
        f"{'problem':<10}{'older ms':>10}{'prev ms':>9}{'new ms':>8}{'prev/new':>10}"
        f"{'older/new':>11}{'max |diff|':>12}"
    )
    for name in ("dst", "fishwood"):
        problem = get_task(name).make_problem()
        t, diff = step_seconds(problem, 16, args.repeats)
        print(
            f"{name:<10}{t['older'] * 1e3:>10.3f}{t['previous'] * 1e3:>9.3f}"
            f"{t['new'] * 1e3:>8.3f}{t['previous'] / t['new']:>9.2f}x"
            f"{t['older'] / t['new']:>10.2f}x{diff:>12.1e}"
        )

    torch_against_numpy(1 if args.smoke else 3)

    task = get_task("dst")
    make = task.make_problem
    previous = type(task)(
        **{**task.__dict__, "make_problem": lambda: use_step(make(), today_policy_gradients)}
    )
    seconds: dict[str, list[float]] = {"previous": [], "new": []}
    points: dict[str, np.ndarray] = {}
    for _ in range(args.runs):  # interleaved
        for key, tk in (("previous", previous), ("new", task)):
            tic = time.perf_counter()
            report = run_task(tk, methods=["surf"], seeds=1, iterations=rounds)
            seconds[key].append(time.perf_counter() - tic)
            points[key] = report.results["surf"][0].points
    old, new = (float(np.median(seconds[k])) for k in ("previous", "new"))
    diff = float(np.max(np.abs(points["previous"] - points["new"])))
    ratios = [a / b for a, b in zip(seconds["previous"], seconds["new"], strict=True)]
    print(
        f"\nDST SURF, K = 100, N = 15, {rounds or task.iterations} rounds at most (median of "
        f"{args.runs} interleaved runs): "
        f"previous {old:.2f} s, new {new:.2f} s, speed-up {old / new:.2f}x "
        f"(per pair {min(ratios):.2f}x-{max(ratios):.2f}x); largest difference between "
        f"the final points {diff:.1e}"
    )


if __name__ == "__main__":
    main()
