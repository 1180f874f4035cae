"""The K-step MDP solver's gradient step: one LU factorization per slot and step, transitions as
non-zeros, against the previous step (two dense solves, a dense P_pi rebuild), side by side.

Prints, in one process:

* seconds per batched gradient step on Deep Sea Treasure (16 slots) and Fishwood, old and new,
  and their ratio;
* the whole DST SURF run of the paper (K = 100 Adam steps, N = 15, 30 rounds, the task's
  warm-start protocol) with each step, its wall time, the ratio, and the largest difference
  between the two runs' final points (the trajectories agree to rounding).

    python benchmarks/bench_mdp_step.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import time
import types
from typing import Any

import numpy as np
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


def use_previous_step(problem: Any) -> Any:
    problem._policy_gradients = types.MethodType(previous_policy_gradients, problem)
    return problem


def step_seconds(problem: Any, slots: int, repeats: int) -> tuple[float, float, float]:
    """Seconds per batched step, old and new (best of ``repeats`` x 50 steps), and the largest
    difference between their gradients."""
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(slots, problem.n_states, problem.n_actions))
    w = np.linspace(0, 1, slots)
    rewards = (w[:, None, None] * problem.R[0] + (1 - w[:, None, None]) * problem.R[1])[:, None]
    new = problem._policy_gradients
    old = types.MethodType(previous_policy_gradients, problem)
    diff = float(np.max(np.abs(new(logits, rewards) - old(logits, rewards))))
    best = {}
    for name, f in (("old", old), ("new", new)):
        times = []
        for _ in range(repeats):
            tic = time.perf_counter()
            for _ in range(50):
                f(logits, rewards)
            times.append((time.perf_counter() - tic) / 50)
        best[name] = min(times)
    return best["old"], best["new"], diff


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print("gradient step, 16 slots (best of repeats)")
    print(f"{'problem':<12}{'old ms':>9}{'new ms':>9}{'speed-up':>10}{'max |diff|':>12}")
    for name in ("dst", "fishwood"):
        problem = get_task(name).make_problem()
        old, new, diff = step_seconds(problem, 16, args.repeats)
        print(f"{name:<12}{old * 1e3:>9.3f}{new * 1e3:>9.3f}{old / new:>9.2f}x{diff:>12.1e}")

    task = get_task("dst")
    runs: dict[str, tuple[float, np.ndarray]] = {}
    for label in ("old", "new", "old ", "new "):  # interleaved twice, the better of each
        make = task.make_problem
        patched = task if label.strip() == "new" else type(task)(**{
            **task.__dict__, "make_problem": lambda make=make: use_previous_step(make())})
        tic = time.perf_counter()
        report = run_task(patched, methods=["surf"], seeds=1)
        seconds = time.perf_counter() - tic
        key = label.strip()
        points = report.results["surf"][0].points
        if key not in runs or seconds < runs[key][0]:
            runs[key] = (seconds, points)
    diff = float(np.max(np.abs(runs["old"][1] - runs["new"][1])))
    print(f"\nDST SURF, K = 100, N = 15, 30 rounds (best of 2): old {runs['old'][0]:.2f} s, "
          f"new {runs['new'][0]:.2f} s, speed-up {runs['old'][0] / runs['new'][0]:.2f}x; "
          f"largest difference between the final points {diff:.1e}")


if __name__ == "__main__":
    main()
