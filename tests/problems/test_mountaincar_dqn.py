"""The soft-DQN inner solver of MO-MountainCar: objectives against closed forms, learning,
determinism, states without pickle, and the SURF loop and benchmark task end to end."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from paretosurf.problems.mountaincar import (  # noqa: E402
    HV_REFERENCE,
    DQNState,
    MOMountainCar,
    SoftDQNSolver,
)
from paretosurf.problems.mountaincar.problem import worst_objective  # noqa: E402
from paretosurf.solvers import Solution  # noqa: E402

torch.set_num_threads(1)
GAMMA, BETA = 0.995, 0.05
DISCOUNTED_200 = (1 - GAMMA**200) / (1 - GAMMA)  # sum of gamma^t over a truncated episode


def small(**options: object) -> SoftDQNSolver:
    settings = {
        "episodes": 8,
        "n_envs": 8,
        "eval_episodes": 16,
        "learning_starts": 64,
        "buffer_size": 4000,
        "batch_size": 32,
        "seed": 0,
    }
    settings.update(options)
    return SoftDQNSolver(**settings)  # type: ignore[arg-type]


def fixed_policy(solver: SoftDQNSolver, logits: list[float]) -> DQNState:
    """A state whose Q-values are the constant ``logits`` in every state."""
    state = solver.initial_state()
    state.online["w3"] = np.zeros_like(state.online["w3"])
    state.online["b3"] = np.asarray(logits, dtype=np.float64)
    return state


def test_always_pushing_right_costs_the_closed_form() -> None:
    # pushing right alone never climbs the hill: every episode runs 200 steps, each costing 1
    # in both objectives, plus beta * KL(deterministic || uniform) = beta ln 3
    solver = small()
    assess = solver.assess([fixed_policy(solver, [0.0, 0.0, 10.0])])[0]
    expected = (1 + BETA * math.log(3)) * DISCOUNTED_200
    np.testing.assert_allclose(assess["objectives"], [expected, expected], rtol=1e-6)
    assert assess["success"] == 0.0 and assess["episode_length"] == 200.0
    assert expected == pytest.approx(worst_objective())
    assert max(HV_REFERENCE) > expected


def test_never_pushing_right_pays_only_the_kl_in_the_second_objective() -> None:
    solver = small()
    h = solver.evaluate(fixed_policy(solver, [10.0, 0.0, 0.0]))
    kl_term = BETA * math.log(3) * DISCOUNTED_200
    np.testing.assert_allclose(h, [DISCOUNTED_200 + kl_term, kl_term], rtol=1e-6)


def test_uniform_policy_has_no_kl_and_pushes_right_a_third_of_the_time() -> None:
    solver = small(eval_episodes=64)
    info = solver.assess([fixed_policy(solver, [0.0, 0.0, 0.0])])[0]
    assert info["success"] == 0.0  # a random walk does not climb the hill in 200 steps
    assert info["objectives"][0] == pytest.approx(DISCOUNTED_200, rel=1e-12)
    assert info["kl"] == pytest.approx(0.0, abs=1e-12)
    third = DISCOUNTED_200 / 3
    assert abs(info["objectives"][1] - third) < 4 * info["stderr"][1]
    assert info["returns"][0] == -200.0  # undiscounted time reward: -1 per step


def test_objectives_are_minimized_costs_in_time_push_order() -> None:
    solver = small()
    sol = solver.solve(1.0, None)
    h = sol.objectives
    assert h.shape == (2,) and np.all(h >= 0) and np.all(h <= worst_objective() + 1e-9)
    assert len(sol.info["stderr"]) == 2 and all(se >= 0 for se in sol.info["stderr"])
    # the first objective counts steps: at least the discounted length of the episodes
    lengths = sol.info["episode_length"]
    assert h[0] >= (1 - GAMMA**lengths) / (1 - GAMMA) - 1 - 1e-9
    assert sol.info["returns"][0] == pytest.approx(-(lengths - sol.info["success"]))


def train_push_penalty(solver: SoftDQNSolver) -> tuple[DQNState, float, Solution]:
    """Three calls at w = 0 (the push penalty alone) from the initial state: that state, its
    push objective, and the last call's solution."""
    start = solver.initial_state()
    before = solver.evaluate(start)[1]
    state = start
    for _ in range(3):
        sol = solver.solve(0.0, state)
        state = sol.state
    return start, before, sol


def test_training_raises_the_scalarized_return() -> None:
    # three short calls learn to stop pushing right
    start, before, sol = train_push_penalty(small())
    state = sol.state
    after = sol.objectives[1]
    assert after < before - 1.0
    assert state.calls == 3 and state.episodes == 24 and state.updates > 0
    changed = [not np.array_equal(start.online[k], state.online[k]) for k in start.online]
    assert all(changed)


def test_the_same_seed_gives_the_same_result_and_another_seed_another() -> None:
    a = small().solve(0.7, None)
    b = small().solve(0.7, None)
    c = small(seed=1).solve(0.7, None)
    np.testing.assert_array_equal(a.objectives, b.objectives)
    for key in a.state.online:
        np.testing.assert_array_equal(a.state.online[key], b.state.online[key])
    assert not np.array_equal(a.state.online["w2"], c.state.online["w2"])


def test_solve_many_trains_each_weight_on_its_own_objective() -> None:
    solver = small()
    states = [None, None]
    for _ in range(3):
        sols = solver.solve_many([0.0, 1.0], states)
        states = [s.state for s in sols]
    assert [s.state.calls for s in sols] == [3, 3]
    # the same start and data stream, different weights: different networks, and each does
    # better than the other on its own objective (w = 0: pushes; w = 1: time)
    assert not np.array_equal(sols[0].state.online["w3"], sols[1].state.online["w3"])
    assert sols[0].info["returns"][1] >= sols[1].info["returns"][1]


def test_state_is_stored_without_pickle_and_resumes_identically() -> None:
    from paretosurf.storage._states import decode_states, encode_states

    solver = small()
    state = solver.solve(0.5, None).state
    meta, arrays = encode_states({"s": state})
    assert meta["pickled"] == []
    back = decode_states(meta, arrays, allow_pickle=False)["s"]
    assert isinstance(back, DQNState)
    a, b = solver.solve(0.5, state), solver.solve(0.5, back)
    np.testing.assert_array_equal(a.objectives, b.objectives)


def test_interpolation_hits_the_endpoints() -> None:
    solver = small()
    s0 = solver.initial_state(seed=1)
    s1 = solver.initial_state(seed=2)
    for t, ref in ((0.0, s0), (1.0, s1)):
        mix = solver.interpolate(s0, s1, t)
        for key in ref.online:
            np.testing.assert_allclose(mix.online[key], ref.online[key])
    half = solver.interpolate(s0, s1, 0.5)
    np.testing.assert_allclose(half.online["w2"], (s0.online["w2"] + s1.online["w2"]) / 2)


def test_bad_inputs_are_refused() -> None:
    solver = small()
    with pytest.raises(ValueError, match="weights must lie in"):
        solver.solve(1.5, None)
    with pytest.raises(TypeError, match="DQNState"):
        solver.solve(0.5, {"not": "a state"})
    with pytest.raises(ValueError, match="exploring_starts"):
        SoftDQNSolver(exploring_starts=2.0)
    with pytest.raises(ValueError, match="2 weights and 1 states"):
        solver.solve_many([0.0, 1.0], [None])
    with pytest.raises(ValueError, match="no exact solver"):
        MOMountainCar().solver()


def test_surf_runs_end_to_end_with_the_dqn() -> None:
    import paretosurf as ps

    solver = small(episodes=4, n_envs=4, eval_episodes=8)
    with warnings.catch_warnings():  # so small a budget leaves the estimates unconverged
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf(solver, 2, iterations=2, moving_average=0.5)
    assert res.points.shape == (3, 2) and np.all(np.isfinite(res.points))
    assert res.weights[0] == 0.0 and res.weights[-1] == 1.0
    # noisy objectives: the result is the most even of the two rounds, with that round's states
    shown = len(res.history) - 1 if res.reported_round is None else res.reported_round
    np.testing.assert_array_equal(res.points, res.history[shown].points)
    assert all(isinstance(s, DQNState) and s.calls == shown + 1 for s in res.states)


def test_benchmark_task_scores_against_the_union_of_points(tmp_path) -> None:
    from paretosurf.bench import get_task, run_task, write_report

    report = run_task(
        get_task("mountaincar"),
        methods=["surf", "uniform", "ols", "soup"],
        seeds=1,
        n_segments=2,
        iterations=2,
        steps=2,
    )
    # the methods with slots report their most even round; OLS and Soup, which cannot, run
    settings = {name: runs[0].settings["report"] for name, runs in report.results.items()}
    assert settings == {"surf": "most-even", "uniform": "most-even", "ols": "auto", "soup": "auto"}
    data = report.to_json()
    assert data["hv_ref"] == list(HV_REFERENCE) and data["exact_reference"] is False
    union = np.concatenate([r.points for runs in report.results.values() for r in runs])
    for point in report.reference_front:  # the reference is a subset of the union ...
        assert np.any(np.all(union == point, axis=1))
    for point in union:  # ... that dominates or contains every point
        assert np.any(np.all(report.reference_front <= point + 1e-12, axis=1))
    for name in report.results:
        assert report.scores[name][0]["igd"] >= 0 and report.scores[name][0]["hv"] > 0
    written = write_report(report, tmp_path, plots=False)
    assert (tmp_path / "table.md").read_text().count("non-dominated union") >= 1
    assert len(written) == 2


def test_polyak_target_with_rate_one_tracks_the_network() -> None:
    state = small(target_tau=1.0).solve(0.5, None).state
    for key in state.online:
        np.testing.assert_array_equal(state.target[key], state.online[key])
    hard = small(target_update=10**6).solve(0.5, None).state  # never copied: still the start
    start = small().initial_state()
    np.testing.assert_allclose(hard.target["w2"], start.online["w2"], rtol=1e-6)  # float32
    assert not np.allclose(hard.online["w2"], start.online["w2"], rtol=1e-6)
    with pytest.raises(ValueError, match="target_tau"):
        SoftDQNSolver(target_tau=1.5)


def scalarized(w: float, h: np.ndarray) -> float:
    return float(w * h[0] + (1 - w) * h[1])


@pytest.mark.parametrize("w", [0.0, 0.6, 1.0])
def test_keep_best_returns_the_best_policy_of_the_call(w: float) -> None:
    plain, kept = small(n_envs=4), small(n_envs=4, keep_best=True)  # two waves per call
    a, b = plain.solve(w, None), kept.solve(w, None)
    # the same training stream (evaluation has its own generator): the same data ...
    np.testing.assert_array_equal(a.state.obs, b.state.obs)
    assert a.state.updates == b.state.updates and b.state.calls == 1
    # ... and the kept policy is the best of the waves', the last one's included
    assert scalarized(w, b.objectives) <= scalarized(w, a.objectives) + 1e-12
    # its objectives are those of the returned network, evaluated afresh
    np.testing.assert_array_equal(kept.evaluate(b.state), b.objectives)
    assert b.info["stderr"] == pytest.approx(kept.assess([b.state])[0]["stderr"])


def test_keep_best_never_returns_worse_than_the_warm_start() -> None:
    solver = small(keep_best=True)
    never_push = fixed_policy(solver, [0.0, 0.0, -1.0])  # the w = 0 optimum, nearly
    never_push.calls = 1  # a trained warm start
    before = scalarized(0.0, solver.evaluate(never_push))
    sol = solver.solve(0.0, never_push)
    assert scalarized(0.0, sol.objectives) <= before + 1e-12
    # a fresh network is not a candidate: the call returns a trained one
    fresh = solver.solve(0.0, None)
    assert not np.array_equal(fresh.state.online["w1"], solver.initial_state().online["w1"])
    with pytest.raises(TypeError, match="keep_best"):
        SoftDQNSolver(keep_best=1)  # type: ignore[arg-type]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_training_learns_and_its_state_continues_on_the_cpu() -> None:  # pragma: no cover
    # the same check as test_training_raises_the_scalarized_return, on the GPU; the state comes
    # back as numpy arrays, so a CUDA-trained learner resumes on a machine without one
    start, before, sol = train_push_penalty(small(device="cuda"))
    state = sol.state
    assert sol.objectives[1] < before - 1.0
    assert all(isinstance(v, np.ndarray) for v in state.online.values())
    again = small(device="cuda").solve(0.0, start)
    first = small(device="cuda").solve(0.0, start)
    np.testing.assert_array_equal(again.objectives, first.objectives)  # deterministic on CUDA
    on_cpu = small().solve(0.0, state)
    assert np.all(np.isfinite(on_cpu.objectives)) and on_cpu.state.calls == 4


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_and_cpu_evaluate_a_fixed_policy_alike() -> None:  # pragma: no cover - needs a GPU
    # a constant policy's objectives are an average over rollouts whose randomness differs by
    # device, so they agree to the evaluation's standard errors, not to the bit
    cpu, gpu = small(eval_episodes=256), small(eval_episodes=256, device="cuda")
    state = fixed_policy(cpu, [0.0, -2e-4, 2e-4])  # a stochastic policy (temperature 2.5e-4)
    a, b = cpu.assess([state])[0], gpu.assess([state])[0]
    gap = np.abs(np.asarray(a["objectives"]) - np.asarray(b["objectives"]))
    assert np.all(gap <= 5 * np.hypot(a["stderr"], b["stderr"]) + 1e-9)
    assert b["stderr"][1] > 0.01  # the rollouts really are random


def test_batched_adam_step_matches_torch_adam_per_learner() -> None:
    # the stacked update against torch.optim.Adam on one learner's own loss, same batches
    from paretosurf.problems.mountaincar.dqn import PARAMS, _Batch, _forward

    solver = small(target_update=1000)
    states = [s.state for s in solver.solve_many([0.2, 0.9], [None, None])]
    batch = _Batch.stack(states, torch.device("cpu"), reset_optimizer=False)
    w = torch.tensor([0.2, 0.9], dtype=torch.float64)
    gen = torch.Generator().manual_seed(5)
    ref = {
        k: torch.tensor(states[1].online[k], dtype=torch.float32, requires_grad=True)
        for k in PARAMS
    }
    target = {k: torch.tensor(states[1].target[k], dtype=torch.float32) for k in PARAMS}
    opt = torch.optim.Adam(list(ref.values()), lr=solver.lr, betas=(0.9, 0.999), eps=1e-8)
    for k, p in ref.items():  # carry the learner's moments and step count into torch's Adam
        opt.state[p] = {
            "step": torch.tensor(float(states[1].adam_t)),
            "exp_avg": torch.tensor(states[1].adam_m[k], dtype=torch.float32),
            "exp_avg_sq": torch.tensor(states[1].adam_v[k], dtype=torch.float32),
        }
    buf = {
        name: torch.as_tensor(getattr(states[1], name))
        for name in ("obs", "action", "reward", "next_obs", "terminal", "valid")
    }
    size = states[1].size
    temperature, scale = solver._temperature, solver._scale
    for _ in range(3):
        rows = (torch.rand(2, solver.batch_size, generator=gen.clone_state())[1] * size).long()
        batch.update(
            w,
            gen,
            beta=temperature,
            gamma=solver.gamma,
            scale=scale,
            lr=solver.lr,
            batch_size=solver.batch_size,
            target_update=1000,
            target_tau=0.0,
        )
        rew = buf["reward"][rows].float()
        with torch.no_grad():
            q_next = _forward({k: v[None] for k, v in target.items()}, buf["next_obs"][rows][None])
            v_next = temperature * (torch.logsumexp(q_next[0] / temperature, -1) - math.log(3))
            y = (
                scale * (0.9 * rew[:, 0] + 0.1 * rew[:, 1])
                + solver.gamma * (~buf["terminal"][rows]).float() * v_next
            )
        q = _forward({k: v[None] for k, v in ref.items()}, buf["obs"][rows][None].float())[0]
        q = q.gather(-1, buf["action"][rows, None]).squeeze(-1)
        mask = buf["valid"][rows].float()
        loss = (torch.nn.functional.smooth_l1_loss(q, y, reduction="none") * mask).sum()
        opt.zero_grad()
        (loss / mask.sum().clamp(min=1.0)).backward()
        opt.step()
    for k in PARAMS:
        torch.testing.assert_close(
            batch.online[k][1].detach(), ref[k].detach(), rtol=1e-5, atol=1e-6
        )
    assert not torch.equal(
        batch.online["w3"][1], torch.as_tensor(states[1].online["w3"], dtype=torch.float32)
    )


@pytest.mark.parametrize(
    ("device", "error", "message"),
    [
        ("gpu", ValueError, "device must be 'cpu' or 'cuda\\[:N\\]', got 'gpu'"),
        ("cuda:x", ValueError, "device must be 'cpu' or 'cuda"),
        (None, TypeError, "device must be 'cpu' or 'cuda"),
    ],
)
def test_an_unknown_device_is_refused_when_the_solver_is_made(
    device: object, error: type, message: str
) -> None:
    with pytest.raises(error, match=message):
        SoftDQNSolver(device=device)  # type: ignore[arg-type]


@pytest.mark.skipif(torch.cuda.is_available(), reason="tests the refusal without CUDA")
def test_cuda_without_a_gpu_is_refused_when_the_solver_is_made() -> None:
    # before, the first solve failed inside torch ("Torch not compiled with CUDA enabled")
    with pytest.raises(ValueError, match=r"torch sees no CUDA device .*use device='cpu'$"):
        SoftDQNSolver(device="cuda")
    with pytest.raises(ValueError, match="torch sees no CUDA"):
        MOMountainCar().gradient_solver(steps=2, device="cuda:0")
    assert MOMountainCar().gradient_solver(steps=2, device="cpu").device == "cpu"
