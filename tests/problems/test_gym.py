"""Tabular DST and Fishwood models, replayed side by side with MO-Gymnasium's environments."""

from __future__ import annotations

import warnings
from collections import deque
from typing import Any, cast

import numpy as np
import pytest

from paretosurf.problems.gym import (
    DST_MAPS,
    TabularMDP,
    TabularModel,
    deep_sea_treasure,
    dst_sea_map,
    fishwood,
    tabular_deep_sea_treasure,
    tabular_fishwood,
)

ENV_IDS = {"concave": "deep-sea-treasure-concave-v0", "convex": "deep-sea-treasure-v0"}


def make_env(env_id: str, **kwargs: Any) -> Any:
    mo_gym = pytest.importorskip("mo_gymnasium")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium's float32 Box precision notice
        return mo_gym.make(env_id, **kwargs)


def assert_same_reward(env_reward: Any, expected: np.ndarray) -> None:
    """The env returns float32 reward vectors; the model keeps the map's float64 values."""
    assert env_reward.dtype == np.float32
    np.testing.assert_array_equal(env_reward, expected.astype(np.float32))


def next_state(model: TabularModel, s: int, a: int) -> int:
    row = model.P[s, a]
    assert np.count_nonzero(row) == 1, "DST and Fishwood are deterministic"
    return int(np.flatnonzero(row)[0])


# ----------------------------------------------------------------------------- DST structure


@pytest.mark.parametrize("name", ["concave", "convex"])
def test_dst_sizes_and_invariants(name: str) -> None:
    m = tabular_deep_sea_treasure(name)
    sea = dst_sea_map(name)
    cells = cast("list[tuple[int, int]]", list(m.state_labels[:-1]))
    assert sea.shape == (11, 11)
    assert int((sea != -10).sum()) == 72  # 121 cells, 49 rocks
    assert m.n_states == 73 and m.n_actions == 4 and m.n_objectives == 2
    assert m.P.shape == (73, 4, 73) and m.R.shape == (2, 73, 4) and m.rho.shape == (73,)
    np.testing.assert_allclose(m.P.sum(axis=2), 1.0)
    assert set(np.unique(m.P)) <= {0.0, 1.0}
    t = m.terminal_state
    assert t == 72 and m.state_labels[t] == "terminal"
    assert np.all(m.P[t, :, t] == 1.0) and np.all(m.R[:, t, :] == 0.0)
    assert m.rho[m.state_index((0, 0))] == 1.0 and m.rho.sum() == 1.0
    treasures = [s for s, lab in enumerate(cells) if sea[lab] != 0]
    assert sorted(sea[cells[s]] for s in treasures) == sorted(DST_MAPS[name])
    for s, label in enumerate(cells):
        if s in treasures:  # transient: every action leads to the terminal, paying nothing
            assert np.all(m.P[s, :, t] == 1.0) and np.all(m.R[:, s, :] == 0.0)
            continue
        assert np.all(m.R[1, s, :] == -1.0)
        for a in range(4):
            nxt = next_state(m, s, a)
            assert nxt != t
            assert m.R[0, s, a] == sea[cells[nxt]]
            # moves go to a 4-neighbour or stay put
            r, c = label
            r2, c2 = cells[nxt]
            assert abs(r - r2) + abs(c - c2) <= 1


def test_dst_arrays_are_read_only_and_labels_index() -> None:
    m = tabular_deep_sea_treasure()
    with pytest.raises(ValueError):
        m.P[0, 0, 0] = 0.5
    for s, label in enumerate(m.state_labels):
        assert m.state_index(label) == s
    with pytest.raises(KeyError, match="no state"):
        m.state_index((5, 0))  # a rock


def test_dst_bad_arguments() -> None:
    with pytest.raises(ValueError, match="map must be one of"):
        tabular_deep_sea_treasure("mirrored")
    with pytest.raises(ValueError, match="map must be one of"):
        dst_sea_map(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="env must be"):
        tabular_deep_sea_treasure(env=object())


# --------------------------------------------------------------------- DST against the env


@pytest.mark.parametrize("name", ["concave", "convex"])
def test_dst_builtin_map_equals_env(name: str) -> None:
    env = make_env(ENV_IDS[name])
    np.testing.assert_array_equal(dst_sea_map(name), env.unwrapped.sea_map)
    assert env.unwrapped.map_name == name
    from_env = tabular_deep_sea_treasure(env=env)
    builtin = tabular_deep_sea_treasure(name)
    np.testing.assert_array_equal(from_env.P, builtin.P)
    np.testing.assert_array_equal(from_env.R, builtin.R)
    np.testing.assert_array_equal(from_env.rho, builtin.rho)
    assert from_env.state_labels == builtin.state_labels
    assert from_env.action_labels == builtin.action_labels == ("up", "down", "left", "right")
    with pytest.raises(ValueError, match="does not match"):
        tabular_deep_sea_treasure("convex" if name == "concave" else "concave", env=env)


def replay_dst(env: Any, model: TabularModel, rng: np.random.Generator, episodes: int) -> set:
    """Step env and model side by side under random policies; return the cells visited."""
    visited: set = set()
    for _ in range(episodes):
        probs = rng.dirichlet(np.ones(model.n_actions))  # vary the drift per episode
        obs, _ = env.reset(seed=int(rng.integers(2**31)))
        s = int(np.flatnonzero(model.rho)[0])
        assert model.state_index(obs) == s
        while True:
            a = int(rng.choice(model.n_actions, p=probs))
            obs, reward, terminated, truncated, _ = env.step(a)
            s_next = next_state(model, s, a)
            assert model.state_index(obs) == s_next
            assert_same_reward(reward, model.R[:, s, a])
            visited.add(s_next)
            ends = model.terminal_state is not None and bool(
                np.all(model.P[s_next, :, model.terminal_state] == 1.0)
            )
            assert terminated == ends
            s = s_next
            if terminated:
                # after the episode ends the model pays nothing more, forever
                t = model.terminal_state
                assert t is not None
                assert np.all(model.R[:, s, :] == 0.0) and np.all(model.R[:, t, :] == 0.0)
                break
            if truncated:
                break
    return visited


@pytest.mark.parametrize("name", ["concave", "convex"])
def test_dst_replay_random_sequences(name: str) -> None:
    env = make_env(ENV_IDS[name])
    model = tabular_deep_sea_treasure(name)
    visited = replay_dst(env, model, np.random.default_rng(12345), episodes=400)
    # the random drifts reach most of the map, treasures included
    treasures = {s for s in range(72) if np.all(model.P[s, :, 72] == 1.0)}
    assert len(visited) >= 65 and len(visited & treasures) >= 8


@pytest.mark.parametrize("name", ["concave", "convex"])
def test_dst_every_cell_and_action_matches_env_step(name: str) -> None:
    env = make_env(ENV_IDS[name])
    raw = env.unwrapped
    model = tabular_deep_sea_treasure(name)
    checked = 0
    for s, label in enumerate(model.state_labels[:-1]):
        if raw.sea_map[label] != 0:
            continue  # treasure cells end the episode: the env never steps from them
        for a in range(4):
            env.reset()
            raw.current_state = np.array(label, dtype=np.int32)
            obs, reward, terminated, _, _ = env.step(a)
            s_next = next_state(model, s, a)
            assert model.state_index(obs) == s_next
            assert_same_reward(reward, model.R[:, s, a])
            assert terminated == bool(model.P[s_next, 0, 72] == 1.0)
            checked += 1
    assert checked == 4 * 62


def shortest_path_policy(model: TabularModel, target: int) -> tuple[np.ndarray, int]:
    """Deterministic policy walking a shortest path to ``target`` (other treasures blocked)."""
    t = model.terminal_state
    ends = {s for s in range(model.n_states) if s != t and np.all(model.P[s, :, t] == 1.0)}
    dist = {target: 0}
    queue = deque([target])
    while queue:  # backwards BFS over the deterministic transitions
        u = queue.popleft()
        for s in range(model.n_states):
            if s in dist or s in ends or s == t:
                continue
            if any(next_state(model, s, a) == u for a in range(model.n_actions)):
                dist[s] = dist[u] + 1
                queue.append(s)
    policy = np.full((model.n_states, model.n_actions), 1.0 / model.n_actions)
    for s, d in dist.items():
        if d > 0:
            a = next(
                a for a in range(model.n_actions) if dist.get(next_state(model, s, a)) == d - 1
            )
            policy[s] = np.eye(model.n_actions)[a]
    start = int(np.flatnonzero(model.rho)[0])
    return policy, dist[start]


@pytest.mark.parametrize("env_id", [*ENV_IDS.values(), "deep-sea-treasure-mirrored-v0"])
@pytest.mark.parametrize("gamma", [0.9, 0.999])
def test_dst_discounted_returns_reproduce_env_pareto_front(env_id: str, gamma: float) -> None:
    env = make_env(env_id)
    raw = env.unwrapped
    model = tabular_deep_sea_treasure(env=env)
    front = sorted((tuple(p) for p in raw.pareto_front(gamma)), key=lambda p: p[0])
    treasure_states = [s for s, lab in enumerate(model.state_labels[:-1]) if raw.sea_map[lab] > 0]
    ours = []
    for s in treasure_states:
        policy, steps = shortest_path_policy(model, s)
        ret = model.discounted_returns(policy, gamma)
        # undiscounted step counts: MO-Gymnasium's listed front (treasure, -steps)
        assert (raw.sea_map[model.state_labels[s]], -steps) in {
            (float(p[0]), float(p[1])) for p in raw._pareto_front
        }
        ours.append(tuple(ret))
    ours.sort(key=lambda p: p[0])
    np.testing.assert_allclose(np.array(ours), np.array(front), rtol=1e-10, atol=1e-10)


def test_dst_mirrored_map_from_env_replays() -> None:
    env = make_env("deep-sea-treasure-mirrored-v0")
    model = tabular_deep_sea_treasure(env=env)
    sea = env.unwrapped.sea_map
    assert model.n_states == int((sea != -10).sum()) + 1
    assert model.state_labels[int(np.flatnonzero(model.rho)[0])] == (0, 10)
    visited = replay_dst(env, model, np.random.default_rng(7), episodes=100)
    assert len(visited) > 20


# ---------------------------------------------------------------------------------- Fishwood


def test_fishwood_structure() -> None:
    m = tabular_fishwood(0.25, 0.75)
    assert m.P.shape == (2, 2, 2) and m.R.shape == (2, 2, 2) and m.terminal_state is None
    for s in range(2):
        for a in range(2):
            assert next_state(m, s, a) == a  # the action is the next state
    np.testing.assert_array_equal(m.R[0], [[0.25, 0.25], [0.0, 0.0]])  # fish, while fishing
    np.testing.assert_array_equal(m.R[1], [[0.0, 0.0], [0.75, 0.75]])  # wood, in the woods
    np.testing.assert_array_equal(m.rho, [0.0, 1.0])  # start in the woods


@pytest.mark.parametrize("gamma", [0.5, 0.995])
def test_fishwood_discounted_returns_closed_forms(gamma: float) -> None:
    fp, wp = 0.1, 0.9
    m = tabular_fishwood(fp, wp)
    always_fish = np.array([[1.0, 0.0], [1.0, 0.0]])
    always_wood = np.array([[0.0, 1.0], [0.0, 1.0]])
    alternate = np.array([[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_allclose(
        m.discounted_returns(always_fish, gamma), [fp * gamma / (1 - gamma), wp], rtol=1e-12
    )
    np.testing.assert_allclose(
        m.discounted_returns(always_wood, gamma), [0.0, wp / (1 - gamma)], rtol=1e-12
    )
    np.testing.assert_allclose(
        m.discounted_returns(alternate, gamma),
        [fp * gamma / (1 - gamma**2), wp / (1 - gamma**2)],
        rtol=1e-12,
    )


@pytest.mark.parametrize(("fishproba", "woodproba"), [(0.1, 0.9), (0.3, 0.6)])
def test_fishwood_replay(fishproba: float, woodproba: float) -> None:
    env = make_env("fishwood-v0", fishproba=fishproba, woodproba=woodproba)
    assert env.unwrapped._fishproba == fishproba and env.unwrapped._woodproba == woodproba
    model = tabular_fishwood(fishproba, woodproba)
    rng = np.random.default_rng(2024)
    sums = np.zeros((2, 2))  # [state, objective]
    counts = np.zeros(2)
    obs, _ = env.reset(seed=11)
    s = int(np.flatnonzero(model.rho)[0])
    assert int(obs[0]) == s  # state indices are the observation values
    for _ in range(40_000):
        a = int(rng.integers(2))
        obs, reward, terminated, truncated, _ = env.step(a)
        s_next = next_state(model, s, a)
        assert int(obs[0]) == s_next
        reward = np.asarray(reward, dtype=np.float64)
        assert set(reward.tolist()) <= {0.0, 1.0}
        # rewards are earned only in the state the agent was in, for that state's resource
        assert np.all(reward[model.R[:, s, a] == 0.0] == 0.0)
        sums[s] += reward
        counts[s] += 1
        s = s_next
        if terminated or truncated:
            obs, _ = env.reset()
            s = int(obs[0])
            assert s == int(np.flatnonzero(model.rho)[0])
    means = sums / counts[:, None]
    expected = model.R[:, :, 0].T  # R does not depend on the action
    se = np.sqrt(np.maximum(expected * (1 - expected), 1e-12) / counts[:, None])
    assert np.all(np.abs(means - expected) <= 5 * se + 1e-12)


def test_fishwood_bad_arguments() -> None:
    with pytest.raises(ValueError, match="fishproba must lie in"):
        tabular_fishwood(fishproba=1.5)
    with pytest.raises(ValueError, match="woodproba must lie in"):
        tabular_fishwood(woodproba=-0.1)
    with pytest.raises(TypeError, match="fishproba must be a real number"):
        tabular_fishwood(fishproba="0.1")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="woodproba"):
        tabular_fishwood(woodproba=True)


# ----------------------------------------------------------------------------- TabularModel


def test_tabular_model_validation_and_reorder() -> None:
    P = np.zeros((2, 1, 2))
    P[:, 0, 1] = 1.0
    R = np.zeros((2, 2, 1))
    R[0, 0, 0] = 3.0
    R[1, 0, 0] = -1.0
    rho = np.array([1.0, 0.0])
    m = TabularModel(P, R, rho, ("s", "end"), ("go",), ("gain", "cost"), terminal_state=1)
    swapped = m.reorder_objectives((1, 0))
    np.testing.assert_array_equal(swapped.R, R[::-1])
    assert swapped.objective_labels == ("cost", "gain")
    np.testing.assert_allclose(swapped.discounted_returns([[1.0], [1.0]], 0.9), [-1.0, 3.0])
    with pytest.raises(ValueError, match="permutation"):
        m.reorder_objectives((0, 0))
    bad_p = P.copy()
    bad_p[0, 0, 0] = 0.5
    with pytest.raises(ValueError, match="P must sum to 1"):
        TabularModel(bad_p, R, rho, ("s", "end"), ("go",), ("gain", "cost"))
    with pytest.raises(ValueError, match="absorbing"):
        TabularModel(P, R, rho, ("s", "end"), ("go",), ("gain", "cost"), terminal_state=0)
    with pytest.raises(ValueError, match="R must have shape"):
        TabularModel(P, R[:, :, :0], rho, ("s", "end"), ("go",), ("gain", "cost"))
    with pytest.raises(ValueError, match="state_labels"):
        TabularModel(P, R, rho, ("s",), ("go",), ("gain", "cost"))
    with pytest.raises(ValueError, match="rho"):
        TabularModel(P, R, np.array([0.5, 0.6]), ("s", "end"), ("go",), ("gain", "cost"))
    with pytest.raises(ValueError, match="gamma must lie in"):
        m.discounted_returns([[1.0], [1.0]], 1.0)
    with pytest.raises(ValueError, match="policy must have shape"):
        m.discounted_returns([[1.0]], 0.9)
    P[0, 0, 1] = 0.0  # the model holds its own copy
    assert m.P[0, 0, 1] == 1.0


# ----------------------------------------------------------------- regularized MDP wrappers


def test_wrappers_keep_the_model_and_pass_its_arrays() -> None:
    dst = deep_sea_treasure("convex", gamma=0.99, beta=2.0)
    assert isinstance(dst, TabularMDP) and isinstance(dst.model, TabularModel)
    assert dst.model.name == "deep-sea-treasure-convex"
    np.testing.assert_array_equal(dst.P, dst.model.P)
    np.testing.assert_array_equal(dst.R, dst.model.R)
    np.testing.assert_array_equal(dst.rho, dst.model.rho)
    np.testing.assert_allclose(dst.ref_policy, 0.25)
    assert (dst.gamma, dst.beta) == (0.99, 2.0)
    fw = fishwood(fishproba=0.2, woodproba=0.7)
    np.testing.assert_array_equal(fw.R, tabular_fishwood(0.2, 0.7).R)
    assert (fw.gamma, fw.beta) == (0.995, 0.5)
    with pytest.raises(TypeError, match="TabularModel"):
        TabularMDP(fw, 0.9, 1.0)  # type: ignore[arg-type]


def test_dst_regularized_endpoints_within_kl_bounds() -> None:
    # With a small beta, the regularized optimum at w = 1 (treasure only) lies between the
    # return of the deterministic shortest path to 124 (19 steps: 124 gamma^18, paying
    # beta log 4 of KL per step on the way) and that unregularized return; at w = 0 (time
    # only), the 1-step path to treasure 1 gives a time cost in [1, 1 + beta log 4].
    gamma, beta = 0.95, 0.01
    mdp = deep_sea_treasure("concave", gamma=gamma, beta=beta, scale="discounted")
    best = 124.0 * gamma**18
    kl_path = beta * np.log(4.0) * sum(gamma**t for t in range(19))
    h_w1, h_w0 = mdp.front([1.0, 0.0])
    assert best - kl_path - 1e-9 <= -h_w1[0] <= best
    assert 1.0 <= h_w0[1] <= 1.0 + beta * np.log(4.0)


def test_fishwood_regularized_endpoints_within_kl_bounds() -> None:
    # w = 1 (fish only): always fish, fish return fp gamma / (1 - gamma), KL <= log 2 per step;
    # w = 0 (wood only): always stay in the woods, wood return wp / (1 - gamma).
    gamma, beta, fp, wp = 0.9, 0.001, 0.1, 0.9
    mdp = fishwood(gamma=gamma, beta=beta, fishproba=fp, woodproba=wp, scale="discounted")
    h_w1, h_w0 = mdp.front([1.0, 0.0])
    kl = beta * np.log(2.0) / (1 - gamma)
    eps = 1e-9  # the lower bounds are nearly attained: the optimum is almost deterministic
    assert fp * gamma / (1 - gamma) - kl - eps <= -h_w1[0] <= fp * gamma / (1 - gamma)
    assert wp / (1 - gamma) - kl - eps <= -h_w0[1] <= wp / (1 - gamma)
