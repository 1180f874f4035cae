"""The batched MountainCar simulator replays MO-Gymnasium's ``mo-mountaincar-v0`` exactly."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

torch = pytest.importorskip("torch")
mo_gym = pytest.importorskip("mo_gymnasium")

from gymnasium.envs.classic_control.mountain_car import MountainCarEnv  # noqa: E402

from paretosurf.problems.mountaincar import simulator as sim_mod  # noqa: E402
from paretosurf.problems.mountaincar.simulator import (  # noqa: E402
    GAMMA,
    HORIZON,
    MAX_POSITION,
    MAX_SPEED,
    MIN_POSITION,
    RESET_HIGH,
    RESET_LOW,
    MountainCarBatch,
    step_dynamics,
)

torch.set_num_threads(1)

# MO-Gymnasium's reward space casts float64 bounds to float32 and says so.
pytestmark = pytest.mark.filterwarnings("ignore:.*precision lowered by casting:UserWarning")

F64 = torch.float64
Policy = Callable[[float, float, np.random.Generator], int]


def _make_env():  # type: ignore[no-untyped-def]
    return mo_gym.make("mo-mountaincar-v0")


def _random(p: tuple[float, float, float]) -> Policy:
    return lambda x, v, rng: int(rng.choice(3, p=p))


def _along_velocity(eps: float) -> Policy:
    """Push in the direction of the velocity (reaches the goal), random with prob ``eps``."""

    def policy(x: float, v: float, rng: np.random.Generator) -> int:
        if rng.random() < eps:
            return int(rng.integers(3))
        return 2 if v >= 0 else 0

    return policy


def _replay(
    seeds: list[int],
    policies: list[Policy],
    rng_seed: int,
    *,
    exact: bool = True,
    positions: list[float] | None = None,
) -> tuple[int, int]:
    """Run one batch against one gym env per seed; return (#terminated, #truncated).

    ``positions`` replace the gym envs' reset positions (as a reset there would).
    """
    n = len(seeds)
    envs = [_make_env() for _ in seeds]
    starts = []
    for i, (env, seed) in enumerate(zip(envs, seeds, strict=True)):
        obs, _ = env.reset(seed=seed)
        if positions is not None:
            env.unwrapped.state = np.array([positions[i], 0.0])
            obs = np.array(env.unwrapped.state, dtype=np.float32)
        state = env.unwrapped.state
        assert float(state[1]) == 0.0
        np.testing.assert_array_equal(obs, np.asarray(state, dtype=np.float32))
        starts.append(float(state[0]))
    batch = MountainCarBatch(n, exact=exact)
    obs = batch.reset(positions=torch.tensor(starts, dtype=F64))
    assert obs.dtype == F64 and obs.shape == (n, 2)
    assert obs[:, 0].tolist() == starts and obs[:, 1].tolist() == [0.0] * n

    rng = np.random.default_rng(rng_seed)
    done = [False] * n
    last = [(s, 0.0) for s in starts]
    lengths = [0] * n
    n_term = n_trunc = 0
    for _ in range(HORIZON + 3):  # a few steps past the horizon: everything frozen
        actions = [policies[i](last[i][0], last[i][1], rng) for i in range(n)]
        obs, rewards, terminated, truncated = batch.step(torch.tensor(actions))
        for i, env in enumerate(envs):
            if done[i]:  # frozen: same state, zero rewards, no new flags
                assert (obs[i, 0].item(), obs[i, 1].item()) == last[i]
                assert rewards[i].tolist() == [0.0, 0.0]
                assert not terminated[i] and not truncated[i]
                continue
            g_obs, g_rew, g_term, g_trunc, _ = env.step(actions[i])
            x, v = (float(s) for s in env.unwrapped.state)
            assert (batch.position[i].item(), batch.velocity[i].item()) == (x, v)
            assert (obs[i, 0].item(), obs[i, 1].item()) == (x, v)
            np.testing.assert_array_equal(obs[i].to(torch.float32).numpy(), g_obs)
            assert rewards[i, 0].item() == float(g_rew[0])
            assert rewards[i, 1].item() == float(g_rew[2])
            assert bool(terminated[i]) is g_term
            assert bool(truncated[i]) is g_trunc
            last[i] = (x, v)
            lengths[i] += 1
            if g_term or g_trunc:
                done[i] = True
                n_term += g_term
                n_trunc += g_trunc
        assert batch.done.tolist() == done
    assert all(done)
    assert batch.t.tolist() == lengths
    for env in envs:
        env.close()
    return n_term, n_trunc


# ------------------------------------------------------------------------------- constants
def test_constants_match_gymnasium() -> None:
    env = MountainCarEnv()
    assert sim_mod.MIN_POSITION == env.min_position
    assert sim_mod.MAX_POSITION == env.max_position
    assert sim_mod.MAX_SPEED == env.max_speed
    assert sim_mod.GOAL_POSITION == env.goal_position
    assert sim_mod.GOAL_VELOCITY == env.goal_velocity
    assert sim_mod.FORCE == env.force
    assert sim_mod.GRAVITY == env.gravity
    assert HORIZON == _make_env().spec.max_episode_steps == 200
    assert GAMMA == 0.995


def test_host_cos_is_math_cos() -> None:
    x = torch.empty(20_000, dtype=F64).uniform_(
        -3.6, 1.8, generator=torch.Generator().manual_seed(1)
    )
    got = sim_mod._libm_cos(x)
    assert got.dtype == F64 and got.shape == x.shape
    assert got.tolist() == [math.cos(v) for v in x.tolist()]
    assert sim_mod._libm_cos(x[::3].view(-1, 1)).view(-1).tolist() == got[::3].tolist()
    assert sim_mod._libm_cos(torch.tensor(0.3, dtype=F64)).item() == math.cos(0.3)


# ------------------------------------------------------------------------------- replay
def test_replay_random_actions_matches_mo_gymnasium() -> None:
    policies = [
        _random((1 / 3, 1 / 3, 1 / 3)),
        _random((0.6, 0.2, 0.2)),
        _random((0.1, 0.1, 0.8)),
        _random((0.0, 1.0, 0.0)),
        _random((0.5, 0.0, 0.5)),
    ]
    _, n_trunc = _replay([0, 1, 2, 3, 4], policies, rng_seed=0)
    assert n_trunc >= 1


def test_replay_goal_reaching_policy_matches_mo_gymnasium() -> None:
    seeds = [10, 11, 12, 13, 14, 15]
    policies = [_along_velocity(eps) for eps in (0.0, 0.0, 0.1, 0.2, 0.3, 0.05)]
    n_term, _ = _replay(seeds, policies, rng_seed=1)
    assert n_term >= 4


def test_replay_mixed_batch_matches_mo_gymnasium() -> None:
    seeds = list(range(100, 132))
    policies = [_along_velocity(0.1), _random((0.3, 0.3, 0.4))] * 16
    n_term, n_trunc = _replay(seeds, policies, rng_seed=2)
    assert n_term >= 1 and n_trunc >= 1


def _hard_starts(k: int) -> list[float]:
    """Reset positions whose first step differs under ``torch.cos`` and the C library's cos.

    From rest with no push the first velocity is ``cos(3 x) * (-GRAVITY)``, so a one-ulp
    difference of the cosine shows in the state at once. Empty where torch's cos is libm's.
    """
    x = torch.empty(50_000, dtype=F64).uniform_(
        RESET_LOW, RESET_HIGH, generator=torch.Generator().manual_seed(11)
    )
    v0 = torch.zeros_like(x)
    ones = torch.ones_like(x, dtype=torch.int64)
    _, v_exact, _, _ = step_dynamics(x, v0, ones)
    _, v_fast, _, _ = step_dynamics(x, v0, ones, exact=False)
    return x[v_exact != v_fast][:k].tolist()


def test_replay_where_torch_cos_differs_matches_mo_gymnasium() -> None:
    """Episodes that torch's own cos would not replay exactly (the test has teeth)."""
    starts = _hard_starts(8)
    if not starts:  # pragma: no cover - torch's cos is the C library's here
        pytest.skip("torch.cos equals math.cos on these inputs")
    n = len(starts)
    seeds = list(range(200, 200 + n))
    policies = [_random((0.0, 1.0, 0.0)), _along_velocity(0.0)] * (n // 2) + [
        _along_velocity(0.1)
    ] * (n % 2)
    _replay(seeds, policies, rng_seed=3, positions=starts)
    with pytest.raises(AssertionError):
        _replay(seeds, policies, rng_seed=3, positions=starts, exact=False)


def test_step_dynamics_matches_mo_gymnasium_on_random_states() -> None:
    """Covers both speed clips, the left wall and the goal from arbitrary states."""
    rng = np.random.default_rng(5)
    n = 3000
    x0 = rng.uniform(MIN_POSITION, MAX_POSITION, n)
    v0 = rng.uniform(-MAX_SPEED, MAX_SPEED, n)
    x0[:300] = rng.uniform(MIN_POSITION, MIN_POSITION + 0.05, 300)  # near the wall
    v0[:300] = rng.uniform(-MAX_SPEED, 0.0, 300)
    v0[300:400] = np.sign(v0[300:400]) * MAX_SPEED  # at the speed limit
    actions = rng.integers(0, 3, n)
    x1, v1, rewards, terminated = step_dynamics(
        torch.tensor(x0), torch.tensor(v0), torch.tensor(actions)
    )
    env = _make_env()
    env.reset(seed=0)
    inner = env.unwrapped
    expected = []
    for i in range(n):
        inner.state = np.array([x0[i], v0[i]])
        _, r, term, _, _ = inner.step(int(actions[i]))
        expected.append(
            (float(inner.state[0]), float(inner.state[1]), float(r[0]), float(r[2]), term)
        )
    got = list(
        zip(
            x1.tolist(),
            v1.tolist(),
            rewards[:, 0].tolist(),
            rewards[:, 1].tolist(),
            terminated.tolist(),
            strict=True,
        )
    )
    assert got == expected
    # the interesting branches were exercised
    assert (x1 == MIN_POSITION).sum() > 10 and (v1[x1 == MIN_POSITION] == 0).all()
    assert (v1.abs() == MAX_SPEED).sum() > 10
    assert terminated.sum() > 10


# ------------------------------------------------------------------------------- semantics
def test_left_wall_stops_the_car() -> None:
    x = torch.tensor([-1.19, -1.19, -1.2], dtype=F64)
    v = torch.tensor([-0.03, -0.02, -0.07], dtype=F64)
    x1, v1, rewards, terminated = step_dynamics(x, v, torch.tensor([0, 1, 0]))
    assert x1.tolist() == [MIN_POSITION] * 3
    assert v1.tolist() == [0.0, 0.0, 0.0]
    assert not terminated.any()
    assert rewards.tolist() == [[-1.0, 0.0]] * 3


def test_step_dynamics_any_batch_shape_and_pure() -> None:
    g = torch.Generator().manual_seed(3)
    x = torch.empty(3, 4, dtype=F64).uniform_(MIN_POSITION, MAX_POSITION, generator=g)
    v = torch.empty(3, 4, dtype=F64).uniform_(-MAX_SPEED, MAX_SPEED, generator=g)
    a = torch.randint(0, 3, (3, 4), generator=g)
    x_copy, v_copy = x.clone(), v.clone()
    x1, v1, r, term = step_dynamics(x, v, a)
    assert x1.shape == v1.shape == term.shape == (3, 4) and r.shape == (3, 4, 2)
    assert torch.equal(x, x_copy) and torch.equal(v, v_copy)
    fx, fv, fr, ft = step_dynamics(x.reshape(-1), v.reshape(-1), a.reshape(-1))
    assert torch.equal(fx, x1.reshape(-1)) and torch.equal(fv, v1.reshape(-1))
    assert torch.equal(fr, r.reshape(-1, 2)) and torch.equal(ft, term.reshape(-1))
    # zero rewards are +0.0, not -0.0
    assert not torch.signbit(r).logical_and(r == 0).any()


def test_frozen_after_termination_and_truncation() -> None:
    batch = MountainCarBatch(3, horizon=5)
    batch.reset(positions=torch.tensor([0.55, -0.5, -0.45], dtype=F64))
    obs, rewards, terminated, truncated = batch.step(torch.tensor([1, 1, 2]))
    assert terminated.tolist() == [True, False, False] and not truncated.any()
    assert rewards.tolist() == [[0.0, 0.0], [-1.0, 0.0], [-1.0, -1.0]]
    frozen = obs[0].clone()
    for step in range(2, 9):
        obs, rewards, terminated, truncated = batch.step(torch.tensor([2, 0, 2]))
        assert torch.equal(obs[0], frozen)
        assert rewards[0].tolist() == [0.0, 0.0] and not terminated[0] and not truncated[0]
        if step == 5:
            assert truncated.tolist() == [False, True, True]
            assert rewards[1:].tolist() == [[-1.0, 0.0], [-1.0, -1.0]]
            at_horizon = obs.clone()
        elif step > 5:
            assert torch.equal(obs, at_horizon)
            assert rewards.tolist() == [[0.0, 0.0]] * 3 and not (terminated | truncated).any()
    assert batch.t.tolist() == [1, 5, 5]
    assert batch.done.tolist() == [True, True, True]
    assert batch.terminated.tolist() == [True, False, False]
    assert batch.truncated.tolist() == [False, True, True]
    # a reset starts everything again
    batch.reset(torch.Generator().manual_seed(0))
    assert not batch.done.any() and batch.t.tolist() == [0, 0, 0]


def test_truncation_and_termination_on_the_same_step() -> None:
    batch = MountainCarBatch(1, horizon=1)
    batch.reset(positions=torch.tensor([0.55], dtype=F64))
    _, rewards, terminated, truncated = batch.step(torch.tensor([1]))
    assert terminated.tolist() == [True] and truncated.tolist() == [True]  # as TimeLimit
    assert rewards.tolist() == [[0.0, 0.0]]


def test_reset_distribution() -> None:
    batch = MountainCarBatch(20_000)
    obs = batch.reset(torch.Generator().manual_seed(0))
    x = obs[:, 0]
    assert obs.dtype == F64 and obs.shape == (20_000, 2)
    assert ((x >= RESET_LOW) & (x <= RESET_HIGH)).all()
    assert (obs[:, 1] == 0).all() and (batch.t == 0).all() and not batch.done.any()
    assert abs(x.mean().item() + 0.5) < 0.005
    assert abs(x.std().item() - 0.2 / math.sqrt(12)) < 0.005
    hist = torch.histc(x, bins=10, min=RESET_LOW, max=RESET_HIGH)
    assert (hist > 1700).all()
    # reproducible with a generator, and works with torch's default one
    again = MountainCarBatch(20_000).reset(torch.Generator().manual_seed(0))
    assert torch.equal(obs, again)
    other = MountainCarBatch(5).reset()
    assert ((other[:, 0] >= RESET_LOW) & (other[:, 0] <= RESET_HIGH)).all()


def test_inexact_cos_stays_close() -> None:
    fast, exact = MountainCarBatch(64, exact=False), MountainCarBatch(64)
    g = torch.Generator().manual_seed(4)
    start = fast.reset(g)[:, 0]
    exact.reset(positions=start)
    for _ in range(HORIZON):
        a = torch.randint(0, 3, (64,), generator=g)
        f_obs, f_r, _, _ = fast.step(a)
        e_obs, e_r, _, _ = exact.step(a)
        torch.testing.assert_close(f_obs, e_obs, rtol=0, atol=1e-9)
        torch.testing.assert_close(f_r, e_r, rtol=0, atol=0)
    assert fast.done.all() and exact.done.all()


# ------------------------------------------------------------------------------- validation
@pytest.mark.parametrize("n_envs", [0, -1])
def test_n_envs_must_be_positive(n_envs: int) -> None:
    with pytest.raises(ValueError, match="n_envs"):
        MountainCarBatch(n_envs)


@pytest.mark.parametrize("n_envs", [1.5, True, "3"])
def test_n_envs_must_be_an_integer(n_envs: object) -> None:
    with pytest.raises(TypeError, match="n_envs"):
        MountainCarBatch(n_envs)  # type: ignore[arg-type]


def test_horizon_must_be_positive() -> None:
    with pytest.raises(ValueError, match="horizon"):
        MountainCarBatch(2, horizon=0)


def test_step_before_reset() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        MountainCarBatch(2).step(torch.tensor([0, 1]))


@pytest.mark.parametrize(
    ("actions", "error", "match"),
    [
        (torch.tensor([0, 1, 2]), ValueError, "shape"),
        (torch.tensor([[0, 1]]), ValueError, "shape"),
        (torch.tensor([0.0, 1.0]), TypeError, "integer dtype"),
        (torch.tensor([True, False]), TypeError, "integer dtype"),
        (torch.tensor([0, 3]), ValueError, "0, 1 or 2"),
        (torch.tensor([-1, 1]), ValueError, "0, 1 or 2"),
        ([0, 1], TypeError, "torch.Tensor"),
    ],
)
def test_invalid_actions(actions: object, error: type[Exception], match: str) -> None:
    batch = MountainCarBatch(2)
    batch.reset()
    with pytest.raises(error, match=match):
        batch.step(actions)  # type: ignore[arg-type]


def test_other_integer_action_dtypes_are_accepted() -> None:
    a, b = MountainCarBatch(3), MountainCarBatch(3)
    start = torch.tensor([-0.5, -0.45, -0.55], dtype=F64)
    a.reset(positions=start)
    b.reset(positions=start)
    out_a = a.step(torch.tensor([0, 1, 2], dtype=torch.uint8))
    out_b = b.step(torch.tensor([0, 1, 2]))
    for x, y in zip(out_a, out_b, strict=True):
        assert torch.equal(x, y)


@pytest.mark.parametrize(
    ("positions", "error", "match"),
    [
        (torch.tensor([-0.5], dtype=F64), ValueError, "shape"),
        (torch.tensor([-0.5, 0.7], dtype=F64), ValueError, "lie in"),
        (torch.tensor([-1.3, -0.5], dtype=F64), ValueError, "lie in"),
        (torch.tensor([float("nan"), -0.5], dtype=F64), ValueError, "lie in"),
        (torch.tensor([True, False]), TypeError, "real dtype"),
        ([-0.5, -0.5], TypeError, "torch.Tensor"),
    ],
)
def test_invalid_positions(positions: object, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        MountainCarBatch(2).reset(positions=positions)  # type: ignore[arg-type]


def test_reset_takes_generator_or_positions_not_both() -> None:
    with pytest.raises(ValueError, match="not both"):
        MountainCarBatch(1).reset(torch.Generator(), positions=torch.tensor([-0.5]))
    with pytest.raises(TypeError, match="Generator"):
        MountainCarBatch(1).reset(np.random.default_rng(0))  # type: ignore[arg-type]


def test_reset_positions_are_copied() -> None:
    start = torch.tensor([-0.5, -0.4], dtype=F64)
    batch = MountainCarBatch(2)
    batch.reset(positions=start)
    batch.step(torch.tensor([2, 2]))
    assert start.tolist() == [-0.5, -0.4]


def test_step_dynamics_validation() -> None:
    x = torch.tensor([-0.5, -0.5], dtype=F64)
    v = torch.zeros(2, dtype=F64)
    a = torch.tensor([0, 2])
    with pytest.raises(TypeError, match="position"):
        step_dynamics(x.float(), v, a)
    with pytest.raises(TypeError, match="velocity"):
        step_dynamics(x, [0.0, 0.0], a)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one shape"):
        step_dynamics(x, v[:1], a)
    with pytest.raises(ValueError, match="shape"):
        step_dynamics(x, v, a[:1])
    with pytest.raises(ValueError, match="0, 1 or 2"):
        step_dynamics(x, v, torch.tensor([0, 5]))


def test_repr_and_device() -> None:
    batch = MountainCarBatch(2, horizon=7, exact=False)
    assert repr(batch) == "MountainCarBatch(n_envs=2, device='cpu', horizon=7, exact=False)"
    assert batch.device == torch.device("cpu")
    assert batch.position.dtype == batch.velocity.dtype == F64 and batch.t.dtype == torch.int64


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_exact_matches_cpu() -> None:  # pragma: no cover - needs a GPU
    g = torch.Generator().manual_seed(7)
    cpu, gpu = MountainCarBatch(256), MountainCarBatch(256, device="cuda")
    start = cpu.reset(g)[:, 0]
    gpu.reset(positions=start)
    gen = torch.Generator(device="cuda").manual_seed(0)
    MountainCarBatch(4, device="cuda").reset(gen)  # a generator on the device
    for _ in range(HORIZON):
        a = torch.randint(0, 3, (256,), generator=g)
        c = cpu.step(a)
        d = gpu.step(a.cuda())
        for x, y in zip(c, d, strict=True):
            assert torch.equal(x, y.cpu())
