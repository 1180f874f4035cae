"""Careless input refused where it is given, not when the work it spoils has started: the LLM
protocol's settings (before the warm start and the Uniform-w epochs), the K-step MDP solver's
torch device (before the first solve) and the baselines' keywords (naming the method)."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.llm.config import LLMConfig
from paretosurf.llm.protocol import Protocol, run_protocol
from paretosurf.methods import (
    das_dennis,
    energy,
    fixed_simplex,
    ols,
    random_simplex,
    soup,
    umod,
    uniform,
    uniform_random,
)
from paretosurf.problems import GearToy, deep_sea_treasure
from paretosurf.problems.mdp import MDPGradientSolver


# ------------------------------------------------------------------------ LLM protocol
@pytest.mark.parametrize(
    ("settings", "error", "match"),
    [
        ({"alpha": 5}, ValueError, r"alpha must lie in \(0, 1\]"),
        ({"alpha": 0}, ValueError, r"alpha must lie in \(0, 1\]"),
        ({"alpha": math.nan}, ValueError, "alpha"),
        (
            {"alpha": "fast"},
            ValueError,
            r"alpha must be a number in \(0, 1\] or 'auto', got 'fast'",
        ),
        ({"alpha": True}, TypeError, "alpha"),
        ({"moving_average": 7}, ValueError, r"moving_average must be a rate in \(0, 1\]"),
        ({"moving_average": 0}, ValueError, "moving_average"),
        ({"moving_average": "0.2"}, ValueError, "moving_average"),
        ({"n_segments": "5"}, TypeError, "n_segments must be an integer"),
        ({"warm_epochs": -1}, ValueError, "warm_epochs must be an integer >= 0"),
        ({"uniform_epochs": 12.0}, TypeError, "uniform_epochs must be an integer"),
        ({"surf_rounds": 0}, ValueError, "surf_rounds must be an integer >= 1"),
    ],
)
def test_a_bad_protocol_setting_is_refused_at_construction(
    settings: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        Protocol(**settings)


def test_the_protocol_takes_what_surf_takes() -> None:
    p = Protocol(
        n_segments=np.int64(4),
        alpha="auto",  # type: ignore[arg-type]
        moving_average=None,
    )
    assert (p.n_segments, p.alpha, p.moving_average) == (4, "auto", None)
    assert type(p.n_segments) is int
    assert Protocol(alpha=1).alpha == 1.0 and Protocol(moving_average=1).moving_average == 1.0


class Counting:
    """A one-epoch solver of ``((1 - x)^2, x^2)`` whose states are saved as folders; counts
    its solves."""

    def __init__(self) -> None:
        self.calls = 0

    def solve(self, w: float, state: float | None) -> ps.Solution:
        self.calls += 1
        x = 0.5 if state is None else state
        x += 0.5 * (w - x)
        return ps.Solution(self.evaluate(x), x)

    def save_state(self, state: float, folder: Path) -> None:
        (folder / "x.json").write_text(json.dumps(state))

    def load_state(self, folder: Path) -> float:
        return float(json.loads((folder / "x.json").read_text()))

    def evaluate(self, x: float) -> np.ndarray:
        return np.array([(1 - x) ** 2, x**2])

    def interpolate(self, a: float, b: float, t: float) -> float:
        return (1 - t) * a + t * b


def test_a_protocol_with_a_bad_alpha_trains_nothing(tmp_path: Path) -> None:
    solver = Counting()
    with pytest.raises(ValueError, match="alpha"):
        run_protocol(
            solver,
            tmp_path,
            protocol=Protocol(
                n_segments=2,
                warm_epochs=1,
                uniform_epochs=3,
                surf_init_epoch=1,
                surf_rounds=2,
                alpha=5,
            ),
        )
    assert solver.calls == 0


def test_a_config_names_the_protocol_table() -> None:
    config = LLMConfig(model="tiny", protocol={"alpha": "fast"})
    with pytest.raises(ValueError, match=r"^\[protocol\] alpha must be"):
        config.build_protocol()
    with pytest.raises(ValueError, match=r"\[protocol\] moving_average"):
        LLMConfig(model="tiny", protocol={"moving_average": 7}).build_protocol()


@pytest.mark.parametrize(
    ("prompts", "error", "match"),
    [
        ({"n": 2.5}, TypeError, r"\[prompts\] n must be an integer"),
        ({"n": -5}, ValueError, r"\[prompts\] n must be an integer >= 1"),
        ({"eval_n": 0}, ValueError, r"\[prompts\] eval_n must be an integer >= 1"),
    ],
)
def test_prompt_counts_are_checked_before_loading(
    prompts: dict[str, Any], error: type[Exception], match: str
) -> None:
    # the source does not exist: a count that passed the check would fail on it instead
    config = LLMConfig(model="tiny", prompts={"source": "/nonexistent/prompts.jsonl", **prompts})
    with pytest.raises(error, match=match):
        config.build_prompts()


# ------------------------------------------------------------------------ MDP torch device
def _cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


@pytest.fixture
def torch_one_thread() -> Any:
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    return torch


@pytest.mark.skipif(_cuda(), reason="tests the refusal on a machine without CUDA")
@pytest.mark.parametrize("device", ["cuda", "cuda:0", "cuda:3"])
def test_cuda_without_cuda_is_refused_at_construction(torch_one_thread: Any, device: str) -> None:
    with pytest.raises(
        ValueError,
        match=rf"device='{device}' asks for a CUDA GPU, but torch "
        r"sees no CUDA device.*device='cpu'.*device=None",
    ):
        MDPGradientSolver(deep_sea_treasure(), steps=5, device=device)


@pytest.mark.parametrize("device", ["cudax", "cuda:abc", "gpu", "mps", ""])
def test_an_unknown_device_is_refused(torch_one_thread: Any, device: str) -> None:
    with pytest.raises(ValueError, match=r"device must be None \(numpy\), 'cpu' or 'cuda"):
        MDPGradientSolver(deep_sea_treasure(), steps=5, device=device)


def test_a_device_that_is_no_string_is_refused(torch_one_thread: Any) -> None:
    with pytest.raises(TypeError, match="device must be"):
        MDPGradientSolver(deep_sea_treasure(), steps=5, device=0)  # type: ignore[arg-type]


def test_a_device_without_torch_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'paretosurf\[rl\]'"):
        MDPGradientSolver(deep_sea_treasure(), steps=5, device="cpu")
    assert MDPGradientSolver(deep_sea_treasure(), steps=5).device is None  # numpy needs none


def test_cpu_devices_run_the_torch_steps(torch_one_thread: Any) -> None:
    problem = deep_sea_treasure()
    numpy_sol = MDPGradientSolver(problem, steps=20).solve(0.4, None)
    for device in ("cpu", "cpu:0"):
        sol = MDPGradientSolver(problem, steps=20, device=device).solve(0.4, None)
        np.testing.assert_allclose(sol.objectives, numpy_sol.objectives, rtol=1e-9, atol=1e-12)


@pytest.mark.skipif(not _cuda(), reason="needs a CUDA device")
def test_cuda_runs_the_same_steps(torch_one_thread: Any) -> None:
    problem = deep_sea_treasure()
    weights = np.linspace(0, 1, 5)
    numpy_sols = MDPGradientSolver(problem, steps=20).solve_many(weights, [None] * 5)
    cuda_sols = MDPGradientSolver(problem, steps=20, device="cuda").solve_many(weights, [None] * 5)
    for a, b in zip(numpy_sols, cuda_sols, strict=True):
        np.testing.assert_allclose(b.objectives, a.objectives, rtol=1e-9, atol=1e-12)
    count = torch_one_thread.cuda.device_count()
    with pytest.raises(ValueError, match=f"sees {count}"):
        MDPGradientSolver(problem, steps=5, device=f"cuda:{count}")


# ------------------------------------------------------------------------ baselines' keywords
def _two(fn: Callable[..., Any]) -> Callable[..., Any]:
    return lambda **kw: fn(GearToy(4).solver(), 4, **kw)


def _corners(w: Any, state: Any) -> ps.Solution:
    return ps.Solution(1 - w)


def _three(fn: Callable[..., Any]) -> Callable[..., Any]:
    return lambda **kw: fn(_corners, 10, 3, **kw)


BASELINES: dict[str, Callable[..., Any]] = {
    "uniform": _two(uniform),
    "uniform_random": _two(uniform_random),
    "ols": _two(ols),
    "umod": _two(umod),
    "soup": lambda **kw: soup(GearToy(4).solver(), 4, interpolator=GearToy(4), **kw),
    "fixed_simplex": lambda **kw: fixed_simplex(_corners, np.eye(3), **kw),
    "das_dennis": _three(das_dennis),
    "random_simplex": _three(random_simplex),
    "energy": _three(energy),
}


@pytest.mark.parametrize("name", list(BASELINES))
def test_alpha_is_refused_naming_the_method(name: str) -> None:
    with pytest.raises(
        TypeError,
        match=rf"^{name}\(\) takes no alpha: the method has no "
        r"damping \(alpha belongs to SURF: ps\.surf",
    ):
        BASELINES[name](alpha="auto")


@pytest.mark.parametrize("name", list(BASELINES))
def test_an_unknown_keyword_names_the_method(name: str) -> None:
    with pytest.raises(
        TypeError,
        match=rf"^{name}\(\) got an unexpected keyword argument "
        r"'moving_averge' \(did you mean 'moving_average'\?\)",
    ):
        BASELINES[name](moving_averge=0.5)


def test_ols_still_says_why_it_takes_no_iterations() -> None:
    with pytest.raises(TypeError, match=r"^ols\(\) takes no iterations: .*max_solves"):
        BASELINES["ols"](iterations=3)


def test_uniform_takes_no_tol() -> None:
    # tol stops a method whose weights settle; Uniform-w's never move
    with pytest.raises(TypeError, match=r"^uniform\(\) got an unexpected keyword argument 'tol'"):
        BASELINES["uniform"](tol=1e-3)


def test_loop_options_still_pass() -> None:
    res = BASELINES["uniform"](iterations=2, moving_average=0.5, progress=False, retries=0)
    assert res.n_solves == 10
    res = BASELINES["ols"](max_solves=6, normalize="none")
    assert res.n_solves <= 6
