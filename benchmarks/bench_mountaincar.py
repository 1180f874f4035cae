"""MO-MountainCar throughput, environment steps per second: the batched simulator and soft-DQN
solver against a plain loop over MO-Gymnasium's environment with the same network, one run.

Three comparisons, each printed with its ratio:

1. the simulator alone (random actions): ``MountainCarBatch`` stepping every environment of
   every slot at once, against ``mo-mountaincar-v0`` stepped in a Python loop;
2. acting (data collection): the soft policy of the stacked networks plus a batched step,
   against a loop that runs the same MLP on one observation and steps one environment;
3. training: ``SoftDQNSolver.solve_many`` on 6 weights (the paper's N = 5), against the same
   algorithm written as a plain loop (one environment, one network, the same number of
   gradient steps of the same batch size per environment step).

Each case is measured ``--repeats`` times, plain and batched alternating; the table gives each
one's best rate, their ratio, and the range of the paired ratios.

Run ``python benchmarks/bench_mountaincar.py`` (1 torch thread; about three minutes). With
``--device cuda`` the batched simulator, acting and solver run on the GPU, while the plain loops
stay on the CPU (MO-Gymnasium steps one environment in Python, so a GPU cannot help them).
``--smoke``: 200 plain steps, 2 slots x 1 seed x 2 environments, 2 episodes a call.
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import _bench_io as bench_io
import numpy as np
import torch

from paretosurf.problems.mountaincar import MountainCarBatch, SoftDQNSolver
from paretosurf.problems.mountaincar.dqn import PARAMS


def _rate(steps: float, seconds: float) -> float:
    return steps / seconds


def gym_loop_random(steps: int, seed: int = 0) -> float:
    """Env steps/s of ``mo-mountaincar-v0`` with random actions, one environment."""
    import mo_gymnasium

    env = mo_gymnasium.make("mo-mountaincar-v0")
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    actions = rng.integers(0, 3, steps)
    tic = time.perf_counter()
    for a in actions:
        _, _, term, trunc, _ = env.step(int(a))
        if term or trunc:
            env.reset()
    return _rate(steps, time.perf_counter() - tic)


def _synchronize(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize(device)


def batched_random(n_envs: int, steps: int, seed: int = 0, device: str = "cpu") -> float:
    """Env steps/s of ``MountainCarBatch`` with random actions (episodes restarted as they end)."""
    gen = torch.Generator(device=device).manual_seed(seed)
    sim = MountainCarBatch(n_envs, device=device)
    sim.reset(generator=gen)
    actions = torch.randint(0, 3, (steps, n_envs), generator=gen, device=device)
    _synchronize(device)
    tic = time.perf_counter()
    for t in range(steps):
        sim.step(actions[t], check=False)
        if bool(sim.done.all()):
            sim.reset(generator=gen)
    _synchronize(device)
    return _rate(steps * n_envs, time.perf_counter() - tic)


def _mlp(params: dict[str, torch.Tensor], obs: torch.Tensor) -> torch.Tensor:
    """The solver's MLP, one network, one batch of observations (n, 2)."""
    scale = torch.tensor([0.9, 0.07])
    x = (obs + torch.tensor([0.3, 0.0])) / scale
    h = torch.relu(x @ params["w1"] + params["b1"])
    h = torch.relu(h @ params["w2"] + params["b2"])
    return h @ params["w3"] + params["b3"]


def gym_loop_acting(steps: int, solver: SoftDQNSolver, seed: int = 0) -> float:
    """Env steps/s of a plain loop: the soft policy of one network on one observation, one
    MO-Gymnasium environment."""
    import mo_gymnasium

    state = solver.initial_state()
    params = {k: torch.tensor(v, dtype=torch.float32) for k, v in state.online.items()}
    env = mo_gymnasium.make("mo-mountaincar-v0")
    obs, _ = env.reset(seed=seed)
    gen = torch.Generator().manual_seed(seed)
    temperature = solver.beta * (1 - solver.gamma)
    tic = time.perf_counter()
    with torch.no_grad():
        for _ in range(steps):
            q = _mlp(params, torch.as_tensor(obs, dtype=torch.float32)[None])
            a = int(torch.multinomial(torch.softmax(q / temperature, -1), 1, generator=gen))
            obs, _, term, trunc, _ = env.step(a)
            if term or trunc:
                obs, _ = env.reset()
    return _rate(steps, time.perf_counter() - tic)


def batched_acting(
    n_slots: int, n_envs: int, steps: int, solver: SoftDQNSolver, seed: int = 0
) -> float:
    """Env steps/s of the solver's acting: stacked networks, one batched step for all (on the
    solver's device)."""
    from paretosurf.problems.mountaincar.dqn import _forward, _soft_policy

    device = solver.device
    states = [solver.initial_state(seed=s) for s in range(n_slots)]
    params = {
        k: torch.tensor(np.stack([s.online[k] for s in states]), dtype=torch.float32, device=device)
        for k in PARAMS
    }
    gen = torch.Generator(device=device).manual_seed(seed)
    sim = MountainCarBatch(n_slots * n_envs, device=device)
    obs = sim.reset(generator=gen)
    temperature = solver.beta * (1 - solver.gamma)
    _synchronize(device)
    tic = time.perf_counter()
    with torch.no_grad():
        for _ in range(steps):
            p, _ = _soft_policy(_forward(params, obs.view(n_slots, n_envs, 2).float()), temperature)
            a = torch.multinomial(p.view(-1, 3), 1, generator=gen).view(-1)
            obs, *_ = sim.step(a, check=False)
            if bool(sim.done.all()):
                obs = sim.reset(generator=gen)
    _synchronize(device)
    return _rate(steps * n_slots * n_envs, time.perf_counter() - tic)


def gym_loop_training(
    env_steps: int,
    updates_per_env_step: float,
    batch_size: int,
    solver: SoftDQNSolver,
    seed: int = 0,
) -> float:
    """Env steps/s of the same soft DQN as a plain loop: one MO-Gymnasium environment, one
    network and target, Adam, a replay buffer, gradient steps at the batched solver's rate."""
    import mo_gymnasium

    state = solver.initial_state()
    params = {
        k: torch.tensor(v, dtype=torch.float32, requires_grad=True) for k, v in state.online.items()
    }
    target = {k: p.detach().clone() for k, p in params.items()}
    opt = torch.optim.Adam(params.values(), lr=solver.lr)
    temperature, scale = solver.beta * (1 - solver.gamma), 1 - solver.gamma
    cap = solver.buffer_size
    buf_o, buf_a = torch.zeros(cap, 2), torch.zeros(cap, dtype=torch.long)
    buf_r, buf_n = torch.zeros(cap), torch.zeros(cap, 2)
    buf_t = torch.zeros(cap, dtype=torch.bool)
    env = mo_gymnasium.make("mo-mountaincar-v0")
    obs, _ = env.reset(seed=seed)
    gen = torch.Generator().manual_seed(seed)
    size, owed, updates, w = 0, 0.0, 0, 0.5
    tic = time.perf_counter()
    for i in range(env_steps):
        with torch.no_grad():
            q = _mlp(params, torch.as_tensor(obs, dtype=torch.float32)[None])
            a = int(torch.multinomial(torch.softmax(q / temperature, -1), 1, generator=gen))
        nxt, rew, term, trunc, _ = env.step(a)
        j = i % cap
        buf_o[j], buf_a[j] = torch.as_tensor(obs), a
        buf_r[j] = scale * (w * float(rew[0]) + (1 - w) * float(rew[2]))
        buf_n[j], buf_t[j] = torch.as_tensor(nxt), bool(term)
        size = min(size + 1, cap)
        obs = nxt
        if term or trunc:
            obs, _ = env.reset()
        owed += updates_per_env_step
        while owed >= 1 and size >= batch_size:
            owed -= 1
            idx = torch.randint(0, size, (batch_size,), generator=gen)
            with torch.no_grad():
                qn = _mlp(target, buf_n[idx])
                v = temperature * (torch.logsumexp(qn / temperature, -1) - math.log(3))
                y = buf_r[idx] + solver.gamma * (~buf_t[idx]).float() * v
            qa = _mlp(params, buf_o[idx]).gather(-1, buf_a[idx, None]).squeeze(-1)
            loss = torch.nn.functional.smooth_l1_loss(qa, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            updates += 1
            if updates % solver.target_update == 0:
                target = {k: p.detach().clone() for k, p in params.items()}
    return _rate(env_steps, time.perf_counter() - tic)


def batched_training(solver: SoftDQNSolver, n_slots: int) -> float:
    """Env steps/s of ``solve_many`` on ``n_slots`` learners (weights spread over [0, 1],
    timed after a warm-up call; evaluation rollouts included, their steps not counted)."""
    weights = np.linspace(0, 1, n_slots)
    states = [s.state for s in solver.solve_many(weights, [None] * n_slots)]
    _synchronize(solver.device)
    tic = time.perf_counter()
    sols = solver.solve_many(weights, states)
    seconds = time.perf_counter() - tic
    return _rate(sum(s.info["env_steps"] for s in sols), seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--steps", type=int, default=20_000, help="environment steps of each plain loop"
    )
    parser.add_argument("--slots", type=int, default=6, help="weights (N + 1)")
    parser.add_argument("--seeds", type=int, default=8, help="seeds batched together")
    parser.add_argument("--envs", type=int, default=20, help="environments per slot")
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="measurements of each case (plain and batched alternate)",
    )
    parser.add_argument(
        "--device",
        default="cpu",
        help="where the batched runs go: cpu (default) or cuda[:N]; the plain "
        "loops always run on the CPU",
    )
    bench_io.add_options(
        parser, "mountaincar", smoke="200 plain steps, 2 slots x 1 seed x 2 environments"
    )
    args = parser.parse_args()
    bench_io.start(args, parser)
    # the solver's episodes a call and its evaluation episodes; the batched acting's steps
    calls = {"episodes": 20, "eval_episodes": 4}
    acting_steps = 200
    if args.smoke:
        args.steps, args.slots, args.seeds, args.envs, args.repeats = 200, 2, 1, 2, 1
        calls = {"episodes": 2, "eval_episodes": 2, "n_envs": 2, "batch_size": 16, "hidden": 16}
        acting_steps = 20
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore", message=".*precision lowered")  # gymnasium's Box
    solver = SoftDQNSolver(seed=0, **calls, device=args.device)
    plain_solver = SoftDQNSolver(seed=0, **calls)
    nets = args.slots * args.seeds
    n_batch = nets * args.envs
    per_step = solver.updates_per_step / args.envs  # gradient steps per env step and slot
    cases = [
        (
            "simulator (random actions)",
            lambda: gym_loop_random(args.steps),
            lambda: batched_random(n_batch, max(1, args.steps // n_batch) * 20, device=args.device),
        ),
        (
            "acting (soft policy + step)",
            lambda: gym_loop_acting(args.steps // 2, plain_solver),
            lambda: batched_acting(nets, args.envs, acting_steps, solver),
        ),
        (
            f"training ({per_step:.2g} gradient steps per env step)",
            lambda: gym_loop_training(args.steps // 2, per_step, solver.batch_size, plain_solver),
            lambda: batched_training(solver, nets),
        ),
    ]
    rows = []
    for name, plain_run, batched_run in cases:
        # plain and batched alternate, so that a slow spell of a shared machine hits both;
        # each keeps its best rate, and the paired ratios show the spread
        pairs = [(plain_run(), batched_run()) for _ in range(args.repeats)]
        rows.append(
            (name, max(p for p, _ in pairs), max(b for _, b in pairs), [b / p for p, b in pairs])
        )
    where = torch.cuda.get_device_name(args.device) if args.device.startswith("cuda") else "the CPU"
    print(
        f"MO-MountainCar, env steps per second, 1 torch thread; plain loops on the CPU, "
        f"batched on {where}: {args.slots} slots x {args.seeds} seeds ({nets} networks) x "
        f"{args.envs} environments; best of {args.repeats}"
    )
    head = f"{'':<44}{'gym loop':>12}{'batched':>12}{'ratio':>9}{'paired ratios':>20}"
    print(head)
    print("-" * len(head))
    for name, slow, quick, ratios in rows:
        spread = f"{min(ratios):.1f}x-{max(ratios):.1f}x"
        print(f"{name:<44}{slow:>12,.0f}{quick:>12,.0f}{quick / slow:>8.1f}x{spread:>20}")


if __name__ == "__main__":
    main()
