"""A soft (KL-regularized) DQN for MO-MountainCar, whose networks for many weights train together.

For a weight ``w`` the solver maximizes the discounted, KL-regularized scalarized return

    J_w(pi) = E[ sum_t gamma^t (w r1_t + (1 - w) r2_t - beta KL(pi(.|s_t) || uniform)) ],

so that the two objectives it reports are ``h_m = -E[sum_t gamma^t (r_m - beta KL_t)]`` and
``w h1 + (1 - w) h2 = -J_w``. The Bellman target is the soft one of this objective: with the
uniform reference over the three actions,

    Q(s, a) = r_w + gamma V(s'),   V(s) = beta log( (1/3) sum_a exp(Q(s, a) / beta) ),

whose greedy policy is the softmax ``pi(a|s) = softmax(Q(s, .) / beta)``; the solver acts and
is evaluated with that policy (no epsilon-greedy). The networks learn ``(1 - gamma) Q``, values
of order 1 rather than 100, with the temperature scaled alike (the same policy). Exploration
comes from the optimism of zero-initialized output biases (returns are negative) and from
exploring starts: a fraction of the training episodes begins at a random state of the track
(off-policy data; the objectives are always estimated from the task's own start states).

Every slot has its own network (MLP 2-128-128-3), target network, Adam state and replay buffer,
but :meth:`SoftDQNSolver.solve_many` stacks the networks of all the weights it is given and
trains them in one batched computation (``torch.bmm`` over the slot axis), with all their
environments in one :class:`~paretosurf.problems.mountaincar.simulator.MountainCarBatch`.

The budget of a call is ``episodes`` episodes per weight (the paper's "K = 100"), run in waves
of ``n_envs`` parallel environments with ``updates_per_step`` gradient steps after each
environment step; episodes end at the goal or after 200 steps. The replay buffer stores the
two rewards separately, so a buffer filled under one weight is re-scalarized under another
(a warm start from a neighbouring slot keeps its data).

Examples
--------
>>> import numpy as np
>>> from paretosurf.problems.mountaincar import SoftDQNSolver
>>> solver = SoftDQNSolver(episodes=4, n_envs=4, eval_episodes=4, seed=0)
>>> sol = solver.solve(0.5, None)
>>> sol.objectives.shape, sol.info["episodes"], sol.state.calls
((2,), 4, 1)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paretosurf._utils.validation import (
    check_non_negative_int,
    check_positive,
    check_positive_int,
    check_torch_device,
)
from paretosurf.solvers import Solution

__all__ = ["DQNState", "SoftDQNSolver"]

FloatArray = NDArray[np.float64]
#: Parameter names of the MLP, in order: ``w1 (2, H), b1 (H,), w2 (H, H), b2, w3 (H, 3), b3``.
PARAMS = ("w1", "b1", "w2", "b2", "w3", "b3")
N_ACTIONS = 3
_EVAL_STREAM = 0x5EED


@dataclass
class DQNState:
    """One slot's learner: networks, Adam moments, replay buffer and counters.

    Every field is a numpy array or a number, so checkpoints store it without pickle.

    Attributes
    ----------
    online, target : dict of str to ndarray
        The Q-network and the target network (keys :data:`PARAMS`).
    adam_m, adam_v : dict of str to ndarray
        Adam's first and second moments; ``adam_t`` its step count.
    obs, action, reward, next_obs, terminal, valid : ndarray
        The replay buffer, a ring of C rows (``buffer_size``): observations ``(C, 2)``, actions
        ``(C,)``, the two rewards ``(C, 2)``, next observations, whether the step ended at the
        goal, and whether the row holds a transition (rows of environments whose episode had
        already ended in a wave are written as invalid). ``size`` rows are filled, the next
        one written is ``cursor``.
    updates, episodes, calls : int
        Gradient steps, training episodes and solver calls so far.
    """

    online: dict[str, FloatArray]
    target: dict[str, FloatArray]
    adam_m: dict[str, FloatArray]
    adam_v: dict[str, FloatArray]
    obs: NDArray[np.float32]
    action: NDArray[np.int64]
    reward: NDArray[np.float32]
    next_obs: NDArray[np.float32]
    terminal: NDArray[np.bool_]
    valid: NDArray[np.bool_]
    adam_t: int = 0
    size: int = 0
    cursor: int = 0
    updates: int = 0
    episodes: int = 0
    calls: int = 0


# (shift, scale) per (dtype, device): made once, as building them from Python lists on every
# call costs a host-to-device copy (and a wait for it) per forward pass on a GPU
_NORMALIZERS: dict[tuple[Any, Any], tuple[Any, Any]] = {}


def _normalize(obs: Any) -> Any:
    """Position and velocity scaled to about [-1, 1]."""
    import torch

    key = (obs.dtype, obs.device)
    if key not in _NORMALIZERS:
        _NORMALIZERS[key] = (
            torch.tensor([0.3, 0.0], dtype=obs.dtype, device=obs.device),
            torch.tensor([0.9, 0.07], dtype=obs.dtype, device=obs.device),
        )
    shift, scale = _NORMALIZERS[key]
    return (obs + shift) / scale


def _forward(params: dict[str, Any], obs: Any) -> Any:
    """Q-values ``(S, B, 3)`` of the stacked networks ``params`` at observations ``(S, B, 2)``."""
    import torch

    h = torch.relu(torch.baddbmm(params["b1"].unsqueeze(1), _normalize(obs), params["w1"]))
    h = torch.relu(torch.baddbmm(params["b2"].unsqueeze(1), h, params["w2"]))
    return torch.baddbmm(params["b3"].unsqueeze(1), h, params["w3"])


def _soft_policy(q: Any, beta: float) -> tuple[Any, Any]:
    """Probabilities ``softmax(q / beta)`` and ``KL(pi || uniform)`` per state."""
    import torch

    logp = torch.log_softmax(q / beta, dim=-1)
    p = logp.exp()
    kl = (p * (logp + math.log(N_ACTIONS))).sum(-1)
    return p, kl


class SoftDQNSolver:
    """Soft DQN on MO-MountainCar: ``solve(w, state)`` trains ``episodes`` episodes on
    ``w r1 + (1 - w) r2 - beta KL`` and returns the objectives of the soft policy.

    Parameters
    ----------
    episodes : int
        Training episodes per call and weight (the paper's K = 100).
    n_envs : int
        Environments per weight run in parallel; a call runs ``ceil(episodes / n_envs)``
        waves.
    updates_per_step : int
        Gradient steps after each (vectorized) environment step, once the buffer holds
        ``learning_starts`` rows.
    hidden : int
        Width of the two hidden layers (128 in the paper).
    lr : float
        Adam step size (1e-3 in the paper).
    batch_size : int
        Transitions per gradient step and weight.
    target_update : int
        Gradient steps between copies of the network into the target network.
    target_tau : float
        If > 0, the target network instead follows the network after every gradient step,
        ``target += target_tau * (network - target)`` (Polyak averaging).
    buffer_size : int
        Replay-buffer rows per weight.
    learning_starts : int
        Rows the buffer must hold before gradient steps begin.
    beta, gamma : float
        KL coefficient (0.05) and discount (0.995).
    eval_episodes : int
        Episodes of the soft policy that estimate the objectives (a fixed seeded draw of
        starts and actions, the same for every state, so that estimates are comparable).
    reset_optimizer : bool
        Start every call with fresh Adam moments (default: carry them in the state).
    exploring_starts : float
        Fraction of the training episodes that start from a uniformly random state of the
        track (position in [-1.2, 0.5), velocity in [-0.07, 0.07]) instead of the task's
        start distribution. Q-learning is off-policy, so this changes which states the
        buffer covers, not the objective (the evaluation always starts as the task does);
        without it a policy rarely reaches the goal within 200 steps and learns nothing
        about it.
    keep_best : bool
        Return the best policy the call has seen instead of the last one: the warm start's
        (unless it is a fresh network) and the one after each wave of episodes, judged by
        the weighted sum ``w h1 + (1 - w) h2`` of their objectives on the evaluation
        episodes. Training goes on from the kept network (its target network with it; the
        buffer, Adam moments and counters are the call's last). A DQN's policy swings from
        wave to wave while its Q-values settle, so the last one is often worse than an
        earlier one; keeping the best costs one evaluation per wave (about 8% of a call).
        Keeping the best of several noisy estimates favours lucky ones a little; the
        evaluation draws the same starts and action noise for every policy, which keeps
        that bias small.
    seed : int
        Seeds the initial networks, the exploration of every call (from the seed and the
        number of calls a state has had) and the evaluation.
    device : str
        "cpu" or "cuda".

    Notes
    -----
    ``Solution.info`` holds ``stderr`` (standard errors of the two objectives over the
    evaluation episodes), ``returns`` (mean undiscounted ``[sum r1, sum r2]``), ``kl`` (mean
    discounted KL term), ``episode_length``, ``success`` (fraction reaching the goal),
    ``episodes``, ``updates`` (gradient steps so far), ``env_steps`` (environment steps of the
    call) and ``train_return`` (mean scalarized discounted return of the call's training
    episodes, KL included).

    Episodes truncated at 200 steps are bootstrapped like any other step (the value of the
    time-limited episode is approximated by that of the unlimited task), as is usual for
    DQN; the objectives are estimated on the truncated episodes themselves.
    """

    def __init__(
        self,
        *,
        episodes: int = 100,
        n_envs: int = 20,
        updates_per_step: int = 2,
        hidden: int = 128,
        lr: float = 1e-3,
        batch_size: int = 128,
        target_update: int = 25,
        target_tau: float = 0.0,
        buffer_size: int = 100_000,
        learning_starts: int = 500,
        beta: float = 0.05,
        gamma: float = 0.995,
        eval_episodes: int = 32,
        reset_optimizer: bool = False,
        exploring_starts: float = 0.5,
        keep_best: bool = False,
        seed: int = 0,
        device: str = "cpu",
    ) -> None:
        self.episodes = check_positive_int(episodes, name="episodes")
        self.n_envs = check_positive_int(n_envs, name="n_envs")
        self.updates_per_step = check_non_negative_int(updates_per_step, name="updates_per_step")
        self.hidden = check_positive_int(hidden, name="hidden")
        self.lr = check_positive(lr, name="lr")
        self.batch_size = check_positive_int(batch_size, name="batch_size")
        self.target_update = check_positive_int(target_update, name="target_update")
        if not 0.0 <= float(target_tau) <= 1.0:
            raise ValueError(f"target_tau must be in [0, 1], got {target_tau!r}")
        self.target_tau = float(target_tau)
        self.buffer_size = check_positive_int(buffer_size, name="buffer_size")
        self.learning_starts = check_non_negative_int(learning_starts, name="learning_starts")
        self.beta = check_positive(beta, name="beta")
        if not 0.0 < float(gamma) < 1.0:
            raise ValueError(f"gamma must be in (0, 1), got {gamma!r}")
        self.gamma = float(gamma)
        # The networks learn Q scaled by (1 - gamma), values of order 1 instead of 100 (which
        # Adam's steps of about lr would take tens of thousands of steps to reach); the soft
        # policy softmax(Q / beta) is the same with the temperature scaled alike.
        self._scale = 1.0 - self.gamma
        self._temperature = self.beta * self._scale
        self.eval_episodes = check_positive_int(eval_episodes, name="eval_episodes")
        if not isinstance(reset_optimizer, bool):
            raise TypeError(f"reset_optimizer must be a bool, got {reset_optimizer!r}")
        self.reset_optimizer = reset_optimizer
        if not 0.0 <= float(exploring_starts) <= 1.0:
            raise ValueError(
                f"exploring_starts must be a fraction in [0, 1], got {exploring_starts!r}"
            )
        self.exploring_starts = float(exploring_starts)
        if not isinstance(keep_best, bool):
            raise TypeError(f"keep_best must be a bool, got {keep_best!r}")
        self.keep_best = keep_best
        self.seed = check_non_negative_int(seed, name="seed")
        self.device = check_torch_device(device, numpy_backend=False)

    def __repr__(self) -> str:
        return (
            f"SoftDQNSolver(episodes={self.episodes}, n_envs={self.n_envs}, "
            f"beta={self.beta}, gamma={self.gamma}, seed={self.seed})"
        )

    # ------------------------------------------------------------------ states
    def initial_state(self, weight: float | None = None, *, seed: int | None = None) -> DQNState:
        """A fresh learner: random network (PyTorch's default initialization, zero output
        bias), the same target network, zero Adam moments and an empty buffer."""
        rng = np.random.default_rng([self.seed if seed is None else seed, 0x1417])
        h = self.hidden
        shapes = {
            "w1": (2, h),
            "b1": (h,),
            "w2": (h, h),
            "b2": (h,),
            "w3": (h, N_ACTIONS),
            "b3": (N_ACTIONS,),
        }
        fan_in = {"w1": 2, "b1": 2, "w2": h, "b2": h, "w3": h, "b3": h}
        online = {k: rng.uniform(-1, 1, shapes[k]) / math.sqrt(fan_in[k]) for k in PARAMS}
        online["b3"] = np.zeros(N_ACTIONS)
        c = self.buffer_size
        return DQNState(
            online=online,
            target={k: v.copy() for k, v in online.items()},
            adam_m={k: np.zeros_like(v) for k, v in online.items()},
            adam_v={k: np.zeros_like(v) for k, v in online.items()},
            obs=np.zeros((c, 2), np.float32),
            action=np.zeros(c, np.int64),
            reward=np.zeros((c, 2), np.float32),
            next_obs=np.zeros((c, 2), np.float32),
            terminal=np.zeros(c, bool),
            valid=np.zeros(c, bool),
        )

    def _state(self, state: Any) -> DQNState:
        if state is None:
            return self.initial_state()
        if not isinstance(state, DQNState):
            raise TypeError(f"state must be a DQNState or None, got {type(state).__name__}")
        if state.online["w2"].shape != (self.hidden, self.hidden):
            raise ValueError(
                f"the state's networks have width {state.online['w2'].shape[0]}, "
                f"the solver's {self.hidden}"
            )
        return state

    def interpolate(self, state0: Any, state1: Any, t: float) -> DQNState:
        """Parameter interpolation ``(1 - t) * theta0 + t * theta1`` of the two networks (the
        Soup baseline); fresh Adam moments and an empty buffer."""
        s0, s1 = self._state(state0), self._state(state1)
        t = float(t)
        out = self.initial_state()
        out.online = {k: (1 - t) * s0.online[k] + t * s1.online[k] for k in PARAMS}
        out.target = {k: v.copy() for k, v in out.online.items()}
        return out

    # ------------------------------------------------------------------ solving
    def solve(self, weight: float, state: Any) -> Solution:
        """Train one learner on weight ``weight`` (see :meth:`solve_many`)."""
        return self.solve_many(np.array([weight], dtype=np.float64), [state])[0]

    def solve_many(self, weights: Any, states: Any) -> list[Solution]:
        """Train one learner per weight, all in one batched computation, for ``episodes``
        episodes each; return their objectives and trained states, in order."""
        import torch

        w = np.asarray(weights, dtype=np.float64).reshape(-1)
        if w.size == 0:
            return []
        if not np.all((w >= 0) & (w <= 1)):
            raise ValueError(f"weights must lie in [0, 1], got {w.tolist()}")
        states = list(states)
        if len(states) != w.size:
            raise ValueError(f"got {w.size} weights and {len(states)} states")
        learners = [self._state(s) for s in states]
        dev = torch.device(self.device)
        gen = torch.Generator(device=dev)
        gen.manual_seed(
            int(
                np.random.SeedSequence(
                    [self.seed, *(s.calls for s in learners), len(learners)]
                ).generate_state(1)[0]
            )
        )
        batch = _Batch.stack(learners, dev, reset_optimizer=self.reset_optimizer)
        wt = torch.as_tensor(w, device=dev)
        keeper = (
            _BestKeeper(self, batch, w, trained=[s.calls > 0 for s in learners])
            if self.keep_best
            else None
        )
        train_return, env_steps = self._train(batch, wt, gen, keeper)
        if keeper is not None:
            evals = keeper.restore(batch)
        trained = batch.unstack(learners, episodes=self.episodes)
        out = []
        if keeper is None:
            evals = self._evaluate_params(batch.online)
        for i, s in enumerate(trained):
            info = {key: value[i] for key, value in evals["info"].items()}
            info.update(
                episodes=self.episodes,
                updates=s.updates,
                train_return=float(train_return[i]),
                env_steps=int(env_steps[i]),
            )
            out.append(Solution(evals["objectives"][i], s, info))
        return out

    def _train(self, b: _Batch, w: Any, gen: Any, keeper: _BestKeeper | None) -> FloatArray:
        """``episodes`` episodes per learner in waves of ``n_envs``; returns the mean
        scalarized training return and the environment steps of each learner (rows)."""
        import torch

        from paretosurf.problems.mountaincar.simulator import MountainCarBatch

        n_slots = w.shape[0]
        returns = torch.zeros(n_slots, dtype=torch.float64, device=w.device)
        steps = torch.zeros(n_slots, dtype=torch.float64, device=w.device)
        done_episodes = 0
        while done_episodes < self.episodes:
            n = min(self.n_envs, self.episodes - done_episodes)
            sim = MountainCarBatch(n_slots * n, device=str(w.device))
            obs = self._training_starts(sim, gen).view(n_slots, n, 2)
            discount = torch.ones(n_slots, n, dtype=torch.float64, device=w.device)
            while not bool(sim.done.all()):
                alive = ~sim.done.view(n_slots, n)
                with torch.no_grad():
                    p, kl = _soft_policy(_forward(b.online, obs.float()), self._temperature)
                actions = torch.multinomial(p.view(-1, N_ACTIONS), 1, generator=gen).view(-1)
                nxt, rew, term, _ = sim.step(actions, check=False)  # sampled: always valid
                nxt, rew = nxt.view(n_slots, n, 2), rew.view(n_slots, n, 2)
                scal = w[:, None] * rew[..., 0] + (1 - w[:, None]) * rew[..., 1]
                returns += (discount * (scal - self.beta * kl.double()) * alive).sum(1)
                steps += alive.sum(1)
                discount = discount * self.gamma
                b.store(obs, actions.view(n_slots, n), rew, nxt, term.view(n_slots, n), alive)
                obs = nxt
                if b.size >= max(self.learning_starts, 1):
                    for _ in range(self.updates_per_step):
                        b.update(
                            w,
                            gen,
                            beta=self._temperature,
                            gamma=self.gamma,
                            scale=self._scale,
                            lr=self.lr,
                            batch_size=self.batch_size,
                            target_update=self.target_update,
                            target_tau=self.target_tau,
                        )
            done_episodes += n
            if keeper is not None:
                keeper.offer(b)
        return np.stack([(returns / self.episodes).cpu().numpy(), steps.cpu().numpy()])

    def _training_starts(self, sim: Any, gen: Any) -> Any:
        """Reset ``sim`` for a wave of training episodes: a fraction ``exploring_starts`` of
        them from a uniformly random state of the track, the others as the task starts."""
        import torch

        from paretosurf.problems.mountaincar import simulator as mc

        obs = sim.reset(generator=gen)
        if self.exploring_starts == 0:
            return obs
        n = sim.n_envs
        u = torch.rand(n, 3, dtype=torch.float64, device=obs.device, generator=gen)
        explore = u[:, 0] < self.exploring_starts
        pos = torch.where(
            explore, mc.MIN_POSITION + (mc.GOAL_POSITION - mc.MIN_POSITION) * u[:, 1], obs[:, 0]
        )
        vel = torch.where(explore, mc.MAX_SPEED * (2 * u[:, 2] - 1), obs[:, 1])
        return sim.reset(positions=pos, velocities=vel)

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, state: Any) -> FloatArray:
        """The objectives of a state's soft policy, estimated as :meth:`solve` does."""
        return self.assess([state])[0]["objectives"]

    def assess(self, states: Any) -> list[dict[str, Any]]:
        """Objectives and the evaluation's ``info`` for several states at once."""
        import torch

        learners = [self._state(s) for s in states]
        dev = torch.device(self.device)
        params = {
            k: torch.as_tensor(
                np.stack([s.online[k] for s in learners]), dtype=torch.float32, device=dev
            )
            for k in PARAMS
        }
        evals = self._evaluate_params(params)
        return [
            {"objectives": evals["objectives"][i], **{k: v[i] for k, v in evals["info"].items()}}
            for i in range(len(learners))
        ]

    def _evaluate_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """Run ``eval_episodes`` episodes of each stacked network's soft policy."""
        import torch

        from paretosurf.problems.mountaincar.simulator import MountainCarBatch

        dev = params["w1"].device
        n_slots, n = params["w1"].shape[0], self.eval_episodes
        gen = torch.Generator(device=dev)
        gen.manual_seed(self.seed * 1_000_003 + _EVAL_STREAM)
        sim = MountainCarBatch(n, device=str(dev))
        start = sim.reset(generator=gen)
        sim = MountainCarBatch(n_slots * n, device=str(dev))
        obs = sim.reset(positions=start[:, 0].repeat(n_slots)).view(n_slots, n, 2)
        disc = torch.ones(n_slots, n, dtype=torch.float64, device=dev)
        g = torch.zeros(n_slots, n, 2, dtype=torch.float64, device=dev)
        undiscounted = torch.zeros(n_slots, n, 2, dtype=torch.float64, device=dev)
        length = torch.zeros(n_slots, n, dtype=torch.float64, device=dev)
        kl_sum = torch.zeros(n_slots, n, dtype=torch.float64, device=dev)
        reached = torch.zeros(n_slots, n, dtype=torch.bool, device=dev)
        with torch.no_grad():
            while not bool(sim.done.all()):
                alive = (~sim.done).view(n_slots, n)
                p, kl = _soft_policy(_forward(params, obs.float()), self._temperature)
                actions = torch.multinomial(p.view(-1, N_ACTIONS), 1, generator=gen).view(-1)
                nxt, rew, term, _ = sim.step(actions, check=False)  # sampled: always valid
                rew = rew.view(n_slots, n, 2)
                a = alive.double()
                g += (disc * a)[..., None] * (rew - self.beta * kl.double()[..., None])
                undiscounted += a[..., None] * rew
                kl_sum += disc * a * kl.double()
                length += a
                reached |= term.view(n_slots, n)
                disc = disc * self.gamma
                obs = nxt.view(n_slots, n, 2)
        h = -g.cpu().numpy()
        objectives = h.mean(axis=1)
        stderr = h.std(axis=1, ddof=1) / math.sqrt(n) if n > 1 else np.full((n_slots, 2), np.nan)
        info = {
            "stderr": [row.tolist() for row in stderr],
            "returns": [row.tolist() for row in undiscounted.mean(1).cpu().numpy()],
            "kl": (self.beta * kl_sum).mean(1).cpu().numpy().tolist(),
            "episode_length": length.mean(1).cpu().numpy().tolist(),
            "success": reached.double().mean(1).cpu().numpy().tolist(),
        }
        return {"objectives": objectives, "info": info}


class _BestKeeper:
    """The best policy of each learner so far in a call (``keep_best``): the warm start's and
    the one after each wave, judged by the weighted sum of their evaluated objectives."""

    def __init__(
        self, solver: SoftDQNSolver, batch: _Batch, w: FloatArray, trained: list[bool]
    ) -> None:
        self.solver, self.w = solver, w
        n = len(trained)
        self.value = np.full(n, np.inf)
        self.objectives = np.zeros((n, 2))
        self.info: list[dict[str, Any]] = [{} for _ in range(n)]
        self.online: dict[str, Any] = {k: p.detach().clone() for k, p in batch.online.items()}
        self.target: dict[str, Any] = {k: p.clone() for k, p in batch.target.items()}
        if any(trained):  # a fresh network is never kept over a trained one
            self.offer(batch, only=np.asarray(trained))

    def offer(self, batch: _Batch, only: NDArray[np.bool_] | None = None) -> None:
        """Evaluate the batch's networks; keep those that beat the best so far."""
        evals = self.solver._evaluate_params(batch.online)
        h = np.asarray(evals["objectives"], dtype=np.float64)
        value = self.w * h[:, 0] + (1 - self.w) * h[:, 1]
        better = value <= self.value
        if only is not None:
            better &= only
        for i in np.flatnonzero(better).tolist():
            self.value[i], self.objectives[i] = value[i], h[i]
            self.info[i] = {key: v[i] for key, v in evals["info"].items()}
            for k in PARAMS:
                self.online[k][i] = batch.online[k][i].detach()
                self.target[k][i] = batch.target[k][i]

    def restore(self, batch: _Batch) -> dict[str, Any]:
        """Put the kept networks back into ``batch``; their evaluation, as
        :meth:`SoftDQNSolver._evaluate_params` returns it."""
        import torch

        with torch.no_grad():
            for k in PARAMS:
                batch.online[k].copy_(self.online[k])
                batch.target[k].copy_(self.target[k])
        keys = self.info[0].keys()
        return {
            "objectives": self.objectives,
            "info": {key: [row[key] for row in self.info] for key in keys},
        }


class _Batch:
    """Stacked tensors of several learners during one call."""

    def __init__(
        self,
        online: dict[str, Any],
        target: dict[str, Any],
        m_flat: Any,
        v_flat: Any,
        t: Any,
        buffer: dict[str, Any],
        size: Any,
        cursor: Any,
        updates: Any,
    ) -> None:
        self.online, self.target, self.t = online, target, t
        self.buffer, self._size, self._cursor = buffer, size, cursor
        # counters the loop branches on are kept on the host as well, so that deciding whether
        # to train or to copy a target network never waits for a GPU
        self._min_size = int(size.min())
        self.updates: NDArray[np.int64] = np.array(updates, dtype=np.int64)
        # Adam's moments live in one (learners, parameters) tensor each, so a step updates
        # them in a handful of operations rather than a handful per weight matrix (on a GPU,
        # launches, not arithmetic, bound these small networks); m and v are views per key
        self._m_flat, self._v_flat = m_flat, v_flat
        self._spans: list[tuple[str, int, int]] = []
        start = 0
        for k in PARAMS:
            size_k = online[k][0].numel()
            self._spans.append((k, start, start + size_k))
            start += size_k
        self.m = {k: m_flat[:, a:b].view(online[k].shape) for k, a, b in self._spans}
        self.v = {k: v_flat[:, a:b].view(online[k].shape) for k, a, b in self._spans}

    @property
    def size(self) -> int:
        """Rows filled in the smallest buffer."""
        return self._min_size

    @classmethod
    def stack(cls, learners: list[DQNState], dev: Any, *, reset_optimizer: bool) -> _Batch:
        import torch

        def stacked(dicts: list[dict[str, FloatArray]]) -> dict[str, Any]:
            return {
                k: torch.as_tensor(np.stack([d[k] for d in dicts]), dtype=torch.float32, device=dev)
                for k in PARAMS
            }

        online = stacked([s.online for s in learners])
        for p in online.values():
            p.requires_grad_(True)

        def flat(dicts: list[dict[str, FloatArray]]) -> Any:
            rows = [np.concatenate([np.ravel(d[k]) for k in PARAMS]) for d in dicts]
            return torch.as_tensor(np.stack(rows), dtype=torch.float32, device=dev)

        if reset_optimizer:
            n_params = sum(p[0].numel() for p in online.values())
            m = torch.zeros(len(learners), n_params, dtype=torch.float32, device=dev)
            v = torch.zeros_like(m)
            t = torch.zeros(len(learners), dtype=torch.float32, device=dev)
        else:
            m, v = flat([s.adam_m for s in learners]), flat([s.adam_v for s in learners])
            t = torch.tensor([float(s.adam_t) for s in learners], device=dev)
        buffer = {
            name: torch.as_tensor(np.stack([getattr(s, name) for s in learners]), device=dev)
            for name in ("obs", "action", "reward", "next_obs", "terminal", "valid")
        }
        size = torch.tensor([s.size for s in learners], device=dev)
        cursor = torch.tensor([s.cursor for s in learners], device=dev)
        updates = [s.updates for s in learners]
        return cls(
            online, stacked([s.target for s in learners]), m, v, t, buffer, size, cursor, updates
        )

    def store(
        self, obs: Any, action: Any, reward: Any, nxt: Any, terminal: Any, valid: Any
    ) -> None:
        """Write one environment step of every learner's ``n`` environments."""
        import torch

        n_slots, n = action.shape
        cap = self.buffer["obs"].shape[1]
        rows = (self._cursor[:, None] + torch.arange(n, device=action.device)) % cap
        idx = torch.arange(n_slots, device=action.device)[:, None]
        self.buffer["obs"][idx, rows] = obs.float()
        self.buffer["action"][idx, rows] = action
        self.buffer["reward"][idx, rows] = reward.float()
        self.buffer["next_obs"][idx, rows] = nxt.float()
        self.buffer["terminal"][idx, rows] = terminal
        self.buffer["valid"][idx, rows] = valid
        self._cursor = (self._cursor + n) % cap
        self._size = torch.clamp(self._size + n, max=cap)
        self._min_size = min(self._min_size + n, cap)

    def update(
        self,
        w: Any,
        gen: Any,
        *,
        beta: float,
        gamma: float,
        scale: float,
        lr: float,
        batch_size: int,
        target_update: int,
        target_tau: float,
    ) -> None:
        """One gradient step of every learner on a batch from its own buffer."""
        import torch

        n_slots = w.shape[0]
        u = torch.rand(n_slots, batch_size, generator=gen, device=w.device)
        rows = (u * self._size[:, None]).long()
        idx = torch.arange(n_slots, device=w.device)[:, None]
        obs, act = self.buffer["obs"][idx, rows], self.buffer["action"][idx, rows]
        rew, nxt = self.buffer["reward"][idx, rows], self.buffer["next_obs"][idx, rows]
        term, valid = self.buffer["terminal"][idx, rows], self.buffer["valid"][idx, rows]
        wf = w.float()[:, None]
        scal = scale * (wf * rew[..., 0] + (1 - wf) * rew[..., 1])
        with torch.no_grad():
            q_next = _forward(self.target, nxt)
            v_next = beta * (torch.logsumexp(q_next / beta, dim=-1) - math.log(N_ACTIONS))
            y = scal + gamma * (~term).float() * v_next
        q = _forward(self.online, obs).gather(-1, act.unsqueeze(-1)).squeeze(-1)
        mask = valid.float()
        loss = (torch.nn.functional.smooth_l1_loss(q, y, reduction="none") * mask).sum(1)
        loss = (loss / mask.sum(1).clamp(min=1.0)).sum()
        grads = torch.autograd.grad(loss, [self.online[k] for k in PARAMS])
        self.t = self.t + 1
        b1, b2, eps = 0.9, 0.999, 1e-8
        with torch.no_grad():
            g = torch.cat([gk.reshape(n_slots, -1) for gk in grads], dim=1)
            self._m_flat.mul_(b1).add_(g, alpha=1 - b1)
            self._v_flat.mul_(b2).addcmul_(g, g, value=1 - b2)
            m_hat = self._m_flat / (1 - b1**self.t)[:, None]
            v_hat = self._v_flat / (1 - b2**self.t)[:, None]
            step = lr * m_hat / (v_hat.sqrt() + eps)
            for k, a, b in self._spans:
                self.online[k].sub_(step[:, a:b].view(self.online[k].shape))
            self.updates = self.updates + 1
            if target_tau > 0:
                for k in PARAMS:
                    self.target[k].lerp_(self.online[k], target_tau)
            else:
                sync = np.flatnonzero(self.updates % target_update == 0)
                if sync.size:
                    rows = torch.as_tensor(sync, device=w.device)
                    for k in PARAMS:
                        self.target[k][rows] = self.online[k][rows]

    def unstack(self, learners: list[DQNState], *, episodes: int) -> list[DQNState]:
        """The trained learners as new states (the inputs are left unchanged)."""

        def arr(x: Any) -> Any:
            return x.detach().cpu().numpy()

        out = []
        for i, s in enumerate(learners):
            out.append(
                DQNState(
                    online={k: arr(self.online[k][i]).astype(np.float64) for k in PARAMS},
                    target={k: arr(self.target[k][i]).astype(np.float64) for k in PARAMS},
                    adam_m={k: arr(self.m[k][i]).astype(np.float64) for k in PARAMS},
                    adam_v={k: arr(self.v[k][i]).astype(np.float64) for k in PARAMS},
                    obs=arr(self.buffer["obs"][i]),
                    action=arr(self.buffer["action"][i]),
                    reward=arr(self.buffer["reward"][i]),
                    next_obs=arr(self.buffer["next_obs"][i]),
                    terminal=arr(self.buffer["terminal"][i]),
                    valid=arr(self.buffer["valid"][i]),
                    adam_t=int(self.t[i]),
                    size=int(self._size[i]),
                    cursor=int(self._cursor[i]),
                    updates=int(self.updates[i]),
                    episodes=s.episodes + episodes,
                    calls=s.calls + 1,
                )
            )
        return out
