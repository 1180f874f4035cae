"""The K-step MDP solver's step in NumPy (the reference) and fused in one numba kernel.

* "numpy": ``MDPModel._policy_gradients`` (every slot's ``I - gamma P_pi`` in one banded
  matrix, one ``dgbtrf`` and two ``dgbtrs`` per step for the batch) and ``StepRule.apply``
  (Adam), a few dozen small NumPy calls a step;
* "fused": ``MDPGradientSolver(..., kernel="numba")`` (the ``fast`` extra): the K steps of all
  slots in one compiled call: policy, the same LAPACK routines, gradient and Adam.

Prints, in one process (interleaved repeats, medians, 1 thread):

* milliseconds per batched step (gradient and Adam update) on Deep Sea Treasure and Fishwood
  (16 slots), each way, the ratio numpy/fused, and the largest differences between the two
  (one gradient; the logits after the timed steps);
* one ``solve_many`` (16 slots x 100 steps) with numpy, fused and, where torch is installed,
  torch on the CPU;
* the whole DST SURF run of the paper (K = 100 Adam steps, N = 15, 30 rounds, the task's
  warm-start protocol) each way: wall times, the ratio, and the largest difference between
  the two runs' final points.

Without numba it prints the NumPy figures and says that the fused ones need
``pip install "paretosurf[fast]"``. The first use of the kernel on a machine compiles it
(15 s to 30 s, cached on disk); it is compiled before any timing.

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
from scipy.special import log_softmax

from paretosurf.bench import get_task, run_task
from paretosurf.solvers import StepRule


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


def use_step(problem: Any, step: Any) -> Any:
    problem._policy_gradients = types.MethodType(step, problem)
    return problem


def use_previous_step(problem: Any) -> Any:
    """The "older" step (two dense solves), as ``benchmarks/bench_auto_alpha.py`` uses it."""
    return use_step(problem, previous_policy_gradients)


#: Steps per timing of the batched step, and the steps of the ``solve_many`` comparison
#: (``--smoke``: 5 and 10).
STEP_CALLS, SOLVE_STEPS = 50, 100


def numba_missing() -> str | None:
    """Why the fused kernel cannot run here (numba missing), or None."""
    from paretosurf.problems.mdp._fused import INSTALL_HINT, numba_available

    return None if numba_available() else f"numba not installed ({INSTALL_HINT})"


def numpy_steps(problem: Any, rule: Any, state: tuple[Any, ...], rewards: Any, steps: int) -> Any:
    """``steps`` steps of the NumPy solver's loop (gradient, then ``rule.apply``)."""
    theta, m, v, t = state
    for _ in range(steps):
        g = problem._policy_gradients(theta, rewards[:, None])[:, 0]
        theta, m, v, t = rule.apply(theta, g, m, v, t)
    return theta, m, v, t


def fused_steps(problem: Any, rule: Any, state: tuple[Any, ...], rewards: Any, steps: int) -> Any:
    """The same steps in the fused kernel."""
    from paretosurf.problems.mdp._fused import fused_steps as kernel

    theta, m, v, t = state
    return kernel(
        problem,
        theta,
        m,
        v,
        t,
        rewards,
        steps=steps,
        adam=rule.optimizer == "adam",
        lr=rule.lr,
        betas=rule.betas,
        eps=rule.eps,
    )


def step_seconds(problem: Any, slots: int, repeats: int) -> tuple[dict[str, float], float, float]:
    """Seconds per batched step each way (median of ``repeats`` interleaved timings of
    :data:`STEP_CALLS` steps from the same state), the largest difference between the two
    gradients at that state, and between the logits after the timed steps."""
    from paretosurf.problems.mdp._fused import fused_policy_gradients

    rng = np.random.default_rng(0)
    theta = rng.normal(size=(slots, problem.n_states, problem.n_actions))
    w = np.linspace(0, 1, slots)[:, None, None]
    rewards = w * problem.R[0] + (1 - w) * problem.R[1]
    rule = StepRule(0.02, "adam")
    start = (theta, np.zeros_like(theta), np.zeros_like(theta), np.zeros(slots))
    ways = {"numpy": numpy_steps, "fused": fused_steps}
    if numba_missing():
        del ways["fused"]
    times: dict[str, list[float]] = {name: [] for name in ways}
    ends: dict[str, Any] = {}
    for _ in range(repeats):
        for name, run in ways.items():
            tic = time.perf_counter()
            ends[name] = run(problem, rule, start, rewards, STEP_CALLS)
            times[name].append((time.perf_counter() - tic) / STEP_CALLS)
    grad_diff = theta_diff = float("nan")
    if "fused" in ways:
        want = problem._policy_gradients(theta, rewards[:, None])[:, 0]
        grad_diff = float(np.max(np.abs(fused_policy_gradients(problem, theta, rewards) - want)))
        theta_diff = float(np.max(np.abs(ends["fused"][0] - ends["numpy"][0])))
    return {name: float(np.median(t)) for name, t in times.items()}, grad_diff, theta_diff


def solve_many_row(repeats: int) -> None:
    """Seconds of one ``solve_many`` (16 slots x :data:`SOLVE_STEPS` steps) with the NumPy
    step, the fused kernel and, if torch is installed, torch on the CPU (1 thread)."""
    from paretosurf.problems.mdp.solvers import MDPGradientSolver

    kinds: dict[str, dict[str, Any]] = {"numpy": {"kernel": "numpy"}}
    if not numba_missing():
        kinds["fused"] = {"kernel": "numba"}
    try:
        import torch

        torch.set_num_threads(1)
        kinds["torch-cpu"] = {"device": "cpu"}
    except ImportError:
        pass
    print(f"\nsolve_many, 16 slots x {SOLVE_STEPS} steps (median of interleaved repeats), ms")
    print(f"{'problem':<10}" + "".join(f"{k:>11}" for k in kinds) + f"{'numpy/fused':>13}")
    for name in ("dst", "fishwood"):
        problem = get_task(name).make_problem()
        w = np.linspace(0, 1, 16)
        solvers = {k: MDPGradientSolver(problem, steps=SOLVE_STEPS, **o) for k, o in kinds.items()}
        times: dict[str, list[float]] = {k: [] for k in solvers}
        for _ in range(repeats + 1):  # the first round warms up
            for key, solver in solvers.items():
                tic = time.perf_counter()
                solver.solve_many(w, [None] * 16)
                times[key].append(time.perf_counter() - tic)
        med = {k: float(np.median(t[1:])) for k, t in times.items()}
        ratio = f"{med['numpy'] / med['fused']:>12.2f}x" if "fused" in med else f"{'-':>13}"
        print(f"{name:<10}" + "".join(f"{med[k] * 1e3:>11.1f}" for k in kinds) + ratio)


def numpy_task(task: Any) -> Any:
    """``task`` with the NumPy step: its problems get their own step set on the instance,
    which ``kernel="auto"`` (the solvers' default) leaves to NumPy, warm-up included."""

    def make() -> Any:
        problem = task.make_problem()
        return use_step(problem, type(problem)._policy_gradients)

    return type(task)(**{**task.__dict__, "make_problem": make})


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
    missing = numba_missing()
    if missing is None:  # compile (or load from the disk cache) before any timing
        tic = time.perf_counter()
        from paretosurf.problems.mdp._fused import fused_policy_gradients

        small = get_task("fishwood").make_problem()
        fused_policy_gradients(small, np.zeros((1, 2, 2)), small.R[:1])
        zeros = (np.zeros((1, 2, 2)), np.zeros((1, 2, 2)), np.zeros((1, 2, 2)), np.zeros(1))
        fused_steps(small, StepRule(0.02, "adam"), zeros, small.R[:1], 1)
        print(f"fused kernel compiled or loaded in {time.perf_counter() - tic:.1f} s")
    else:
        print(f"{missing}: the NumPy figures only")

    print("\nbatched step (gradient + Adam), 16 slots (median of interleaved repeats)")
    print(
        f"{'problem':<10}{'numpy ms':>10}{'fused ms':>10}{'numpy/fused':>13}"
        f"{'max |d grad|':>14}{'max |d theta|':>15}"
    )
    for name in ("dst", "fishwood"):
        problem = get_task(name).make_problem()
        t, grad_diff, theta_diff = step_seconds(problem, 16, args.repeats)
        fused = t.get("fused", float("nan"))
        print(
            f"{name:<10}{t['numpy'] * 1e3:>10.3f}{fused * 1e3:>10.3f}"
            f"{t['numpy'] / fused:>12.2f}x{grad_diff:>14.1e}{theta_diff:>15.1e}"
        )

    solve_many_row(1 if args.smoke else 3)

    task = get_task("dst")
    runs = {"numpy": numpy_task(task)}
    if missing is None:
        runs["fused"] = task  # "auto": the kernel
    seconds: dict[str, list[float]] = {k: [] for k in runs}
    points: dict[str, np.ndarray] = {}
    for _ in range(args.runs):  # interleaved
        for key, tk in runs.items():
            tic = time.perf_counter()
            report = run_task(tk, methods=["surf"], seeds=1, iterations=rounds)
            seconds[key].append(time.perf_counter() - tic)
            points[key] = report.results["surf"][0].points
    head = (
        f"\nDST SURF, K = 100, N = 15, {rounds or task.iterations} rounds at most (median of "
        f"{args.runs} interleaved runs): numpy {np.median(seconds['numpy']):.2f} s"
    )
    if missing is not None:
        print(head)
        return
    old, new = (float(np.median(seconds[k])) for k in ("numpy", "fused"))
    diff = float(np.max(np.abs(points["numpy"] - points["fused"])))
    ratios = [a / b for a, b in zip(seconds["numpy"], seconds["fused"], strict=True)]
    print(
        f"{head}, fused {new:.2f} s, numpy/fused {old / new:.2f}x "
        f"(per pair {min(ratios):.2f}x-{max(ratios):.2f}x); largest difference between the "
        f"final points {diff:.1e}"
    )


if __name__ == "__main__":
    main()
