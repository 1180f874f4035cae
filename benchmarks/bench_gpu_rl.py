"""The RL solvers' torch paths on a GPU: the K-step MDP step (``MDPGradientSolver(device=...)``)
and the MO-MountainCar soft DQN, against their CPU runs, in one process.

Prints, when CUDA is available (else says so and stops):

* DST's K-step solve (16 slots, 100 steps): numpy on the CPU, torch on the CPU and on CUDA,
  seconds and the largest difference of the final logits from numpy's;
* the soft DQN's ``solve_many`` on 48 learners (6 weights x 8 seeds' worth), CPU against CUDA:
  environment steps per second, and that its objectives are finite;
* the simulator stepping 1,000,000 environments, exact cosine against ``torch.cos``.

    python benchmarks/bench_gpu_rl.py
"""

from __future__ import annotations

import time

import numpy as np
import torch


def timed(fn):
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    tic = time.perf_counter()
    out = fn()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return out, time.perf_counter() - tic


def main() -> None:
    if not torch.cuda.is_available():
        print("no CUDA device: nothing to measure")
        return
    print(f"device: {torch.cuda.get_device_name()}")
    from paretosurf.bench import get_task
    from paretosurf.problems.mdp.solvers import MDPGradientSolver

    problem = get_task("dst").make_problem()
    w = np.linspace(0, 1, 16)
    ref, t_np = timed(lambda: problem.gradient_solver(steps=100).solve_many(w, [None] * 16))
    for device in ("cpu", "cuda"):
        solver = MDPGradientSolver(problem, steps=100, device=device)
        solver.solve_many(w[:2], [None] * 2)  # warm-up
        sols, secs = timed(lambda s=solver: s.solve_many(w, [None] * 16))
        diff = max(
            float(np.max(np.abs(a.state.params - b.state.params)))
            for a, b in zip(ref, sols, strict=True)
        )
        print(
            f"DST K-step, 16 slots x 100 steps: numpy {t_np:.3f} s, torch {device} "
            f"{secs:.3f} s ({t_np / secs:.2f}x), max |logit diff| {diff:.1e}"
        )

    from paretosurf.problems.mountaincar import MountainCarBatch, SoftDQNSolver

    weights = np.tile(np.linspace(0, 1, 6), 8)
    for device in ("cpu", "cuda"):
        solver = SoftDQNSolver(episodes=20, device=device, eval_episodes=8, seed=0)
        first = solver.solve_many(weights[:2], [None] * 2)  # warm-up
        sols, secs = timed(lambda s=solver: s.solve_many(weights, [None] * len(weights)))
        steps = sum(s.info["env_steps"] for s in sols)
        finite = all(np.all(np.isfinite(s.objectives)) for s in sols)
        print(
            f"soft DQN, 48 learners x 20 episodes on {device}: {secs:.2f} s, "
            f"{steps / secs:,.0f} env steps/s, objectives finite: {finite}, "
            f"warm-up objectives {np.round(first[0].objectives, 2).tolist()}"
        )

    for exact in (True, False):
        sim = MountainCarBatch(1_000_000, device="cuda", exact=exact)
        sim.reset(generator=torch.Generator(device="cuda").manual_seed(0))
        actions = torch.randint(0, 3, (1_000_000,), device="cuda")
        sim.step(actions, check=False)
        _, secs = timed(lambda s=sim, a=actions: [s.step(a, check=False) for _ in range(20)])
        print(
            f"simulator, 1,000,000 environments, exact={exact}: {secs / 20 * 1e3:.2f} ms "
            f"per step, {20e6 / secs:,.0f} env steps/s"
        )


if __name__ == "__main__":
    main()
