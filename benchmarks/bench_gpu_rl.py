"""The RL solvers' torch paths on a GPU: the K-step MDP step (``MDPGradientSolver(device=...)``)
and the MO-MountainCar soft DQN, against their CPU runs, in one process.

Prints, when CUDA is available (else says so and stops; ``--device cpu`` runs the same code
paths with the CPU in CUDA's place, the figures then meaning nothing):

* DST's K-step solve (16 slots, 100 steps): numpy on the CPU, torch on the CPU and on CUDA,
  seconds and the largest difference of the final logits from numpy's;
* the soft DQN's ``solve_many`` on 48 learners (6 weights x 8 seeds' worth), CPU against CUDA:
  environment steps per second, and that its objectives are finite;
* the simulator stepping 1,000,000 environments, exact cosine against ``torch.cos``.

    python benchmarks/bench_gpu_rl.py [--out DIR]
    python benchmarks/bench_gpu_rl.py --smoke    # tiny sizes, on the CPU unless --device cuda
"""

from __future__ import annotations

import argparse
import time

import _bench_io as bench_io
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--device",
        default=None,
        help="the accelerator's device (default: cuda; with --smoke cpu): cpu runs the "
        "CUDA rows on the CPU, to check the code paths",
    )
    bench_io.add_options(
        parser,
        "gpu_rl",
        smoke="4 slots x 5 steps, 6 learners x 2 episodes, 1,000 environments, on the CPU",
    )
    args = parser.parse_args()
    bench_io.start(args, parser)
    torch.set_num_threads(1)
    gpu = args.device or ("cpu" if args.smoke else "cuda")
    if gpu.startswith("cuda") and not torch.cuda.is_available():
        print("no CUDA device: nothing to measure (--device cpu runs the code paths on the CPU)")
        return
    # slots and steps of the K-step solve, learners' weights and episodes, environments
    slots, steps = (4, 5) if args.smoke else (16, 100)
    learners, episodes = (
        (np.linspace(0, 1, 6), 2) if args.smoke else (np.tile(np.linspace(0, 1, 6), 8), 20)
    )
    envs, sim_steps = (1_000, 3) if args.smoke else (1_000_000, 20)
    print(f"device: {torch.cuda.get_device_name(gpu) if gpu.startswith('cuda') else 'the CPU'}")
    from paretosurf.bench import get_task
    from paretosurf.problems.mdp.solvers import MDPGradientSolver

    problem = get_task("dst").make_problem()
    w = np.linspace(0, 1, slots)
    ref, t_np = timed(lambda: problem.gradient_solver(steps=steps).solve_many(w, [None] * slots))
    for device in ("cpu", gpu):
        solver = MDPGradientSolver(problem, steps=steps, device=device)
        solver.solve_many(w[:2], [None] * 2)  # warm-up
        sols, secs = timed(lambda s=solver: s.solve_many(w, [None] * slots))
        diff = max(
            float(np.max(np.abs(a.state.params - b.state.params)))
            for a, b in zip(ref, sols, strict=True)
        )
        print(
            f"DST K-step, {slots} slots x {steps} steps: numpy {t_np:.3f} s, torch {device} "
            f"{secs:.3f} s ({t_np / secs:.2f}x), max |logit diff| {diff:.1e}"
        )

    from paretosurf.problems.mountaincar import MountainCarBatch, SoftDQNSolver

    weights = learners
    for device in ("cpu", gpu):
        solver = SoftDQNSolver(
            episodes=episodes,
            device=device,
            eval_episodes=8 if not args.smoke else 2,
            seed=0,
            **({"n_envs": 2, "hidden": 16, "batch_size": 16} if args.smoke else {}),
        )
        first = solver.solve_many(weights[:2], [None] * 2)  # warm-up
        sols, secs = timed(lambda s=solver: s.solve_many(weights, [None] * len(weights)))
        steps = sum(s.info["env_steps"] for s in sols)
        finite = all(np.all(np.isfinite(s.objectives)) for s in sols)
        print(
            f"soft DQN, {len(weights)} learners x {episodes} episodes on {device}: {secs:.2f} s, "
            f"{steps / secs:,.0f} env steps/s, objectives finite: {finite}, "
            f"warm-up objectives {np.round(first[0].objectives, 2).tolist()}"
        )

    for exact in (True, False):
        sim = MountainCarBatch(envs, device=gpu, exact=exact)
        sim.reset(generator=torch.Generator(device=gpu).manual_seed(0))
        actions = torch.randint(0, 3, (envs,), device=gpu)
        sim.step(actions, check=False)
        _, secs = timed(lambda s=sim, a=actions: [s.step(a, check=False) for _ in range(sim_steps)])
        print(
            f"simulator, {envs:,} environments, exact={exact}: "
            f"{secs / sim_steps * 1e3:.2f} ms per step, {sim_steps * envs / secs:,.0f} env steps/s"
        )


if __name__ == "__main__":
    main()
