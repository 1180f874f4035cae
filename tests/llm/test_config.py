"""``paretosurf llm --config``: YAML and TOML configs, their errors, and the toy reward."""

from __future__ import annotations

from pathlib import Path

import pytest

import paretosurf as ps
from paretosurf.llm.config import LLMConfig, load_config
from paretosurf.llm.rewards import WordCount

TOML = '''
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
max_workers = 2
'''

YAML = '''
model: models/tiny
rewards:
  - {kind: word_count, word: apple}
  - {kind: word_count, word: berry}
protocol: {n_segments: 3}
'''


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_toml_and_yaml_configs_build_their_objects(tmp_path) -> None:
    config = load_config(write(tmp_path, "c.toml", TOML))
    assert config.model == "models/tiny" and config.solver == {"epochs": 1, "beta": 0.05}
    assert config.build_protocol().gpu_epochs() == {"warm start": 1, "Uniform-w": 9,
                                                    "SURF": 2, "Soup": 0}
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


@pytest.mark.parametrize(("name", "text", "match"), [
    ("c.toml", 'out = "x"\n', "'model'"),
    ("c.toml", 'model = "m"\nsteps = 3\n', "unknown keys \\['steps'\\]"),
    ("c.json", "{}", "yaml, .yml or .toml"),
    ("c.yaml", "- 1\n- 2\n", "table of settings"),
])
def test_bad_configs_name_the_problem(tmp_path, name: str, text: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        load_config(write(tmp_path, name, text))


@pytest.mark.parametrize(("rewards", "match"), [
    ([{"kind": "word_count", "word": "a"}], "exactly two"),
    ([{"kind": "nope"}, {"kind": "word_count", "word": "a"}], "kind must be"),
    ([{"kind": "python", "function": "x"}, {"kind": "word_count", "word": "a"}], "module:name"),
    ([{"kind": "model"}, {"kind": "word_count", "word": "a"}], "needs a path"),
    ([{"kind": "word_count", "word": "a", "wrod": "b"}, {"kind": "word_count", "word": "a"}],
     "unknown keys \\['wrod'\\]"),
    ([{"kind": "python", "function": "paretosurf.llm.rewards:reward_name", "options": {"a": 1}},
      {"kind": "word_count", "word": "a"}], "not one"),
])
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
