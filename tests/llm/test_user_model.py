"""The user's own model: a loaded model object, a peft LoraConfig, dtype and attention
implementation, a 4-bit base (QLoRA), and chat templates."""

from __future__ import annotations

import copy
import importlib.util
import pickle
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("trl")

from paretosurf.llm import AdapterState


def same_adapter(a: AdapterState, b: AdapterState) -> bool:
    return set(a.weights) == set(b.weights) and all(
        np.array_equal(a.weights[k], b.weights[k]) for k in a.weights
    )


@pytest.fixture
def loaded_lm(lm_dir: Path) -> Any:
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(lm_dir)


# ---------------------------------------------------------------------------- model objects
def test_a_loaded_model_solves_as_its_folder_does(fast_solver: Any, loaded_lm: Any) -> None:
    by_path = fast_solver(steps=2).solve(0.4, None)
    solver = fast_solver(steps=2, model=loaded_lm)
    by_object = solver.solve(0.4, None)
    assert same_adapter(by_object.state, by_path.state)
    np.testing.assert_array_equal(by_object.objectives, by_path.objectives)
    # lent and handed back unchanged: frozen, no adapter layers, reused by the next call
    from peft.tuners.tuners_utils import BaseTunerLayer

    assert not any(isinstance(m, BaseTunerLayer) for m in loaded_lm.modules())
    assert not any(p.requires_grad for p in loaded_lm.parameters())
    again = solver.solve(0.4, None)
    assert "load" not in again.info["seconds"] and same_adapter(again.state, by_path.state)
    assert "Qwen2ForCausalLM" in repr(solver)


def test_a_loaded_model_does_not_pickle_and_says_what_to_do(
    fast_solver: Any, loaded_lm: Any
) -> None:
    import paretosurf as ps

    solver = fast_solver(steps=1, model=loaded_lm)
    with pytest.raises(TypeError, match=r"save_pretrained\(folder\).*pass the folder"):
        pickle.dumps(solver)
    with ps.ProcessExecutor(1) as pool, pytest.raises(TypeError, match="save_pretrained"):
        ps.surf(solver, 1, iterations=1, executor=pool)


def test_model_objects_are_checked(fast_solver: Any, loaded_lm: Any, lm_dir: Path) -> None:
    from peft import LoraConfig, get_peft_model

    with warnings.catch_warnings():  # transformers' deprecation inside PEFT
        warnings.simplefilter("ignore", FutureWarning)
        wrapped = get_peft_model(copy.deepcopy(loaded_lm), LoraConfig(r=2, task_type="CAUSAL_LM"))
    with pytest.raises(TypeError, match=r"is a peft\.PeftModel; pass its base model"):
        fast_solver(model=wrapped)
    with pytest.raises(TypeError, match="loaded transformers causal LM"):
        fast_solver(model=object())
    with pytest.raises(ValueError, match="apply to a model loaded by name"):
        fast_solver(model=loaded_lm, dtype="bfloat16")
    # the tokenizer comes from the model's folder, or must be given
    assert fast_solver(model=loaded_lm, tokenizer=None)._load_tokenizer() is not None
    loaded_lm.config._name_or_path = "somewhere/else"
    with pytest.raises(ValueError, match="pass tokenizer="):
        fast_solver(model=loaded_lm, tokenizer=None)._load_tokenizer()


# ---------------------------------------------------------------------------- LoraConfig
def test_a_lora_config_replaces_the_adapter_keywords(fast_solver: Any) -> None:
    from peft import LoraConfig

    keywords = fast_solver(steps=2).solve(0.6, None)  # rank 4, alpha 8, no dropout
    config = LoraConfig(r=4, lora_alpha=8, lora_dropout=0.0, target_modules="all-linear")
    solver = fast_solver(steps=2, peft_config=config, rank=16, lora_alpha=32, lora_dropout=0.05)
    by_config = solver.solve(0.6, None)
    assert same_adapter(by_config.state, keywords.state)
    assert config.task_type is None  # the caller's object is left as it was
    assert (solver.rank, solver.lora_alpha, solver.adapter) == (4, 8, "lora")
    # a mapping of its fields (a config file's table), with DoRA on some modules only
    dora = fast_solver(
        steps=1,
        rank=16,
        lora_alpha=32,
        lora_dropout=0.05,
        peft_config={
            "r": 2,
            "lora_alpha": 4,
            "use_dora": True,
            "target_modules": ["q_proj", "v_proj"],
        },
    )
    state = dora.solve(0.6, None).state
    assert state.dora and state.config["r"] == 2
    assert {p for k in state.weights for p in k.split(".") if p.endswith("_proj")} == {
        "q_proj",
        "v_proj",
    }


@pytest.mark.parametrize(
    ("config", "error", "match"),
    [
        ({"r": 2, "task_type": "SEQ_CLS"}, ValueError, "task_type must be 'CAUSAL_LM'"),
        ({"no_such_field": 1}, TypeError, "peft_config:.*no_such_field"),
        ("lora", TypeError, "peft_config must be a peft.LoraConfig"),
    ],
)
def test_bad_lora_configs_are_named(
    fast_solver: Any, config: Any, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        fast_solver(rank=16, lora_alpha=32, lora_dropout=0.05, peft_config=config)


def test_a_lora_config_with_adapter_keywords_is_refused(fast_solver: Any) -> None:
    with pytest.raises(ValueError, match="leave rank, lora_alpha, lora_dropout at"):
        fast_solver(peft_config={"r": 2})  # fast_options set rank, lora_alpha, lora_dropout


# ---------------------------------------------------------------------------- loading options
def test_dtype_and_attention_reach_from_pretrained(fast_solver: Any) -> None:
    import torch

    solver = fast_solver(torch_dtype=torch.bfloat16, attn_implementation="eager")
    assert solver.dtype == "bfloat16"
    base = solver._load_base("cpu").model
    assert next(base.parameters()).dtype == torch.bfloat16
    assert base.config._attn_implementation == "eager"
    with pytest.raises(ValueError, match="not both"):
        fast_solver(dtype="float32", torch_dtype="float32")
    with pytest.raises(TypeError, match="attn_implementation must be a name"):
        fast_solver(attn_implementation=3)


def test_quantization_options_are_checked(fast_solver: Any) -> None:
    with pytest.raises(ValueError, match="not both"):
        fast_solver(load_in_4bit=True, quantization_config={"load_in_4bit": True})
    with pytest.raises(ValueError, match="must set load_in_4bit"):
        fast_solver(quantization_config={"bnb_4bit_quant_type": "nf4"})
    if importlib.util.find_spec("bitsandbytes") is None:
        with pytest.raises(ImportError, match="pip install bitsandbytes"):
            fast_solver(load_in_4bit=True)


def _cuda() -> bool:
    import torch

    return bool(torch.cuda.is_available())


@pytest.mark.skipif(
    importlib.util.find_spec("bitsandbytes") is None or not _cuda(),
    reason="QLoRA needs bitsandbytes and a CUDA GPU",
)
def test_a_4bit_base_trains_a_lora_adapter(fast_solver: Any) -> None:
    solver = fast_solver(steps=2, load_in_4bit=True, device="cuda")
    sol = solver.solve(0.5, None)
    assert np.all(np.isfinite(sol.objectives)) and sol.state.n_params > 0
    assert solver.quantization is not None
    assert all(np.all(np.isfinite(v)) for v in sol.state.weights.values())
    # the adapter evaluates again to the same objectives (unmerged sampling)
    np.testing.assert_allclose(solver.evaluate(sol.state), sol.objectives, rtol=1e-6)


# ---------------------------------------------------------------------------- chat templates
@pytest.fixture
def chat_tokenizer(tokenizer: Any) -> Any:
    chat = copy.deepcopy(tokenizer)
    chat.chat_template = (
        "{% for m in messages %}{{ m['role'] }} {{ m['content'] }} "
        "{% endfor %}{% if add_generation_prompt %}assistant {% endif %}"
    )
    return chat


@pytest.mark.parametrize(("option", "templated"), [("auto", True), (False, False)])
def test_string_prompts_go_through_the_chat_template(
    fast_solver: Any, chat_tokenizer: Any, option: Any, templated: bool
) -> None:
    from paretosurf.llm import WordCount

    seen: list[tuple[str, bool, bool]] = []
    count = WordCount("apple")

    def reward(prompts: list[Any], completions: list[Any], **kwargs: Any) -> list[float]:
        where = "train" if kwargs["trainer_state"] is not None else "eval"
        seen.append((where, isinstance(prompts[0], list), isinstance(completions[0], list)))
        texts = [c[0]["content"] if isinstance(c, list) else c for c in completions]
        return count(prompts, texts)

    solver = fast_solver(steps=2, tokenizer=chat_tokenizer, chat_template=option)
    solver.rewards = (reward, reward)
    sol = solver.solve(0.5, None)
    assert np.all(np.isfinite(sol.objectives))
    assert {w for w, _, _ in seen} == {"train", "eval"}
    assert all(p == templated and c == templated for _, p, c in seen)
    rows = solver._eval_rows(chat_tokenizer)
    assert (
        rows[0]["prompt"] == [{"role": "user", "content": rows[0]["prompt"][0]["content"]}]
        if templated
        else isinstance(rows[0]["prompt"], str)
    )


def test_chat_template_true_needs_a_template(fast_solver: Any, tokenizer: Any) -> None:
    with pytest.raises(ValueError, match="the tokenizer has no chat template"):
        fast_solver(steps=1, chat_template=True).solve(0.5, None)
    with pytest.raises(ValueError, match="chat_template must be True, False or 'auto'"):
        fast_solver(chat_template="yes")
    # without a template, "auto" leaves string prompts as they are
    assert isinstance(fast_solver()._eval_rows(tokenizer)[0]["prompt"], str)
