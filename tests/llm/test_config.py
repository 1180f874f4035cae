"""``paretosurf llm --config``: YAML and TOML configs, their errors, and the toy reward."""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import paretosurf as ps
from paretosurf.cli import main
from paretosurf.llm.config import LLMConfig, load_config
from paretosurf.llm.protocol import Protocol
from paretosurf.llm.rewards import WordCount

TOML = """
model = "models/tiny"
out = "runs/x"

[[rewards]]
kind = "word_count"
word = "apple"

[[rewards]]
kind = "python"
function = "paretosurf.llm.rewards:WordCount"
options = {word = "berry"}

[solver]
epochs = 1
beta = 0.05

[protocol]
n_segments = 2
warm_epochs = 1
uniform_epochs = 3
surf_init_epoch = 1
surf_rounds = 2

[executor]
kind = "processes"
workers = 2
"""

YAML = """
model: models/tiny
rewards:
  - {kind: word_count, word: apple}
  - {kind: word_count, word: berry}
protocol: {n_segments: 3}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_toml_and_yaml_configs_build_their_objects(tmp_path) -> None:
    config = load_config(write(tmp_path, "c.toml", TOML))
    assert config.model == "models/tiny" and config.solver == {"epochs": 1, "beta": 0.05}
    # the table's fields, as they are (the budget they make is the protocol's tests' subject)
    assert config.build_protocol() == Protocol(
        n_segments=2, warm_epochs=1, uniform_epochs=3, surf_init_epoch=1, surf_rounds=2
    )
    first, second = config.reward_functions()
    assert (first.word, second.word) == ("apple", "berry")
    executor = config.build_executor()
    assert isinstance(executor, ps.ProcessExecutor) and executor.max_workers == 2
    yaml_config = load_config(write(tmp_path, "c.yaml", YAML))
    first, second = yaml_config.reward_functions()
    assert first(["p"], ["apple apple berry"]) == [2.0]
    assert second(["p"], ["apple apple berry"]) == [1.0]
    assert isinstance(yaml_config.build_executor(), ps.LocalExecutor)


def test_the_paper_defaults() -> None:
    config = LLMConfig(model="Qwen/Qwen2.5-0.5B-Instruct")
    assert [r["kind"] for r in config.rewards] == ["summary_quality", "faithfulness"]
    assert config.build_protocol().n_segments == 5


@pytest.mark.parametrize(
    ("name", "text", "match"),
    [
        ("c.toml", 'out = "x"\n', "'model'"),
        ("c.toml", 'model = "m"\nsteps = 3\n', "unknown keys \\['steps'\\]"),
        ("c.json", "{}", "yaml, .yml or .toml"),
        ("c.yaml", "- 1\n- 2\n", "table of settings"),
    ],
)
def test_bad_configs_name_the_problem(tmp_path, name: str, text: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        load_config(write(tmp_path, name, text))


@pytest.mark.parametrize(
    ("rewards", "match"),
    [
        ([{"kind": "word_count", "word": "a"}], "exactly two"),
        ([{"kind": "nope"}, {"kind": "word_count", "word": "a"}], "kind must be"),
        ([{"kind": "python", "function": "x"}, {"kind": "word_count", "word": "a"}], "module:name"),
        ([{"kind": "model"}, {"kind": "word_count", "word": "a"}], "needs a path"),
        (
            [{"kind": "word_count", "word": "a", "wrod": "b"}, {"kind": "word_count", "word": "a"}],
            "unknown keys \\['wrod'\\]",
        ),
        (
            [
                {
                    "kind": "python",
                    "function": "paretosurf.llm.rewards:reward_name",
                    "options": {"a": 1},
                },
                {"kind": "word_count", "word": "a"},
            ],
            "not one",
        ),
    ],
)
def test_bad_rewards_are_refused(rewards: list[dict[str, str]], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        LLMConfig(model="m", rewards=rewards).reward_functions()


def test_protocol_and_executor_keys_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown \\[protocol\\] keys"):
        LLMConfig(model="m", protocol={"rounds": 3}).build_protocol()
    with pytest.raises(ValueError, match="local, processes or ray"):
        LLMConfig(model="m", executor={"kind": "gpu"}).build_executor()


def test_word_count_reward() -> None:
    reward = WordCount(" Apple ")
    assert reward.__name__ == "count_apple"
    assert reward(["p"] * 3, ["Apple! apple.", "pineapple", ""]) == [2.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="word"):
        WordCount("  ")


# ---------------------------------------------------------------------------- [executor]
def executor(table: dict[str, Any], **overrides: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning unless a test expects one
        return LLMConfig(model="m", executor=table).build_executor(**overrides)


def test_one_slot_per_gpu_of_the_node(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5")
    pool = executor({"kind": "processes", "gpus_per_slot": 2})
    assert pool.max_workers == 3 and pool.worker_devices == (("0", "1"), ("2", "3"), ("4", "5"))
    pool = executor(
        {
            "kind": "processes",
            "workers": 2,
            "gpus_per_slot": 1,
            "devices": [5, 4],
            "solve_timeout": 60,
        }
    )
    assert pool.worker_devices == (("5",), ("4",)) and pool.solve_timeout == 60
    assert executor({"kind": "processes"}).worker_devices is None  # the GPUs left as they are
    assert executor({"kind": "processes", "gpus_per_slot": 0}).worker_devices is None
    ray = executor({"kind": "ray", "gpus_per_slot": 0.5, "num_cpus": 2})
    assert isinstance(ray, ps.RayExecutor) and (ray.num_gpus, ray.num_cpus) == (0.5, 2)
    with pytest.raises(
        ValueError,
        match=r"need 8 GPUs, but this process sees 6 "
        r"\(CUDA_VISIBLE_DEVICES=0,1,2,3,4,5\)",
    ):
        executor({"kind": "processes", "workers": 4, "gpus_per_slot": 2})


def test_the_command_line_overrides_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    table = {"kind": "processes", "workers": 4, "threads_per_worker": 1}
    pool = executor(table, workers=2, gpus_per_slot=1)
    assert pool.max_workers == 2 and pool.worker_devices == (("0",), ("1",))
    assert pool.threads_per_worker == 1
    # another kind drops the table's keys it does not take (workers, threads_per_worker)
    ray = executor(table, kind="ray", gpus_per_slot=1)
    assert isinstance(ray, ps.RayExecutor) and ray.num_gpus == 1
    assert isinstance(executor(table, kind="local"), ps.LocalExecutor)
    assert executor({"kind": "ray"}, kind="processes").max_workers == 2


@pytest.mark.parametrize(
    ("table", "overrides", "error", "match"),
    [
        ({"kind": "ray", "workers": 2}, {}, ValueError, "Ray runs as many slots side by side"),
        ({"kind": "local"}, {"workers": 2}, ValueError, "a local run trains one slot at a time"),
        ({"kind": "local", "gpus_per_slot": 1}, {}, ValueError, "use kind = 'processes' or 'ray'"),
        ({"kind": "processes", "gpus_per_slot": 0.5}, {}, ValueError, "whole number of GPUs"),
        ({"kind": "ray"}, {"gpus_per_slot": -1}, ValueError, "number of GPUs >= 0"),
        ({"kind": "processes", "workers": 0}, {}, ValueError, "workers \\(--workers\\) must be"),
        (
            {"kind": "processes", "address": "auto"},
            {},
            ValueError,
            "\\['address'\\] do not apply to kind = 'processes'",
        ),
        ({"kind": "processes"}, {"kind": "gpu"}, ValueError, "local, processes or ray"),
        (
            {"kind": "processes", "max_workers": 2, "workers": 2},
            {},
            ValueError,
            "both max_workers and workers",
        ),
    ],
)
def test_bad_executor_settings_name_the_key(
    table: dict[str, Any], overrides: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        executor(table, **overrides)


def test_the_old_key_names_still_work_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    with pytest.warns(FutureWarning, match="max_workers is now called workers"):
        pool = LLMConfig(
            model="m", executor={"kind": "processes", "max_workers": 3}
        ).build_executor()
    assert pool.max_workers == 3
    with pytest.warns(FutureWarning, match="num_gpus is now called gpus_per_slot"):
        ray = LLMConfig(model="m", executor={"kind": "ray", "num_gpus": 1}).build_executor()
    assert ray.num_gpus == 1


def test_ray_without_ray_installed_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails, find_spec finds none
    with pytest.raises(ImportError, match=r"pip install 'paretosurf\[llm,ray\]'"):
        executor({"kind": "ray"})


def test_llm_command_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1,2")
    path = write(tmp_path, "c.toml", TOML)
    assert main(["llm", "--config", path, "--plan", "--gpus-per-slot", "1"]) == 0
    assert (
        "executor ProcessExecutor(max_workers=2, max_retries=2, threads_per_worker=None, "
        "solve_timeout=None, gpus_per_worker=1, devices=['0', '1'])" in capsys.readouterr().err
    )
    assert (
        main(["llm", "--config", path, "--plan", "--executor", "ray", "--gpus-per-slot", "0.5"])
        == 0
    )
    assert "executor RayExecutor(address=None, num_cpus=1, num_gpus=0.5" in (
        capsys.readouterr().err
    )
    for flags, match in (
        (["--executor", "ray", "--workers", "2"], "Ray runs as many"),
        (["--gpus-per-slot", "3", "--workers", "2"], "need 6 GPUs"),
        (["--gpus-per-slot", "-1"], "must be a number of GPUs >= 0"),
    ):
        with pytest.raises(SystemExit) as stop:
            main(["llm", "--config", path, "--plan", *flags])
        assert stop.value.code == 2
        assert match in capsys.readouterr().err
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "0,1,2"  # this process's GPUs untouched
