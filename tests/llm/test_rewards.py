"""RewardModel on tiny random GPT-2 and BART classifiers, checked against direct model calls."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import pickle
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
torch.set_num_threads(1)

from paretosurf.llm.rewards import (  # noqa: E402
    FAITHFULNESS_MODEL,
    SUMMARY_QUALITY_MODEL,
    RewardFunction,
    RewardModel,
    reward_name,
)

from .tiny import synthetic_texts, tiny_bart_classifier, tiny_gpt2_classifier, train_tokenizer  # noqa: E402


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    root = tmp_path_factory.mktemp("reward_models")
    tokenizer = train_tokenizer(root / "tokenizer")
    gpt2 = tiny_gpt2_classifier(root / "gpt2", tokenizer)
    bart = tiny_bart_classifier(root / "bart", tokenizer)
    # GPT-2 as published on the hub: no pad token in the tokenizer, no pad id in the config
    nopad = root / "gpt2_nopad"
    model = transformers.AutoModelForSequenceClassification.from_pretrained(gpt2)
    model.config.pad_token_id = None
    model.save_pretrained(nopad)
    tok = transformers.AutoTokenizer.from_pretrained(gpt2)
    tok.pad_token = None
    tok.save_pretrained(nopad)
    return SimpleNamespace(gpt2=str(gpt2), bart=str(bart), nopad=str(nopad))


@pytest.fixture(scope="module")
def data() -> SimpleNamespace:
    texts = synthetic_texts(21, seed=3)
    return SimpleNamespace(prompts=texts[:7], completions=texts[7:14], posts=texts[14:])


def direct(path: str, text: str | tuple[str, str], *, max_length: int | None = None) -> Any:
    """The model's logits for one unpadded input, straight from transformers."""
    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(path)
    model.eval()
    enc = tok(*text) if isinstance(text, tuple) else tok(text)
    ids = enc["input_ids"] if max_length is None else enc["input_ids"][-max_length:]
    with torch.no_grad():
        return model(input_ids=torch.tensor([ids])).logits[0].double().numpy()


# ---------------------------------------------------------------------------- scores
def test_gpt2_reward_is_logit_0_of_prompt_plus_completion(models, data) -> None:
    reward = RewardModel(models.gpt2, device="cpu", batch_size=3)
    got = reward(prompts=data.prompts, completions=data.completions)
    pairs = zip(data.prompts, data.completions, strict=True)
    want = [direct(models.gpt2, p + c)[0] for p, c in pairs]
    assert isinstance(got, list) and all(type(v) is float for v in got)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
    assert np.ptp(got) > 1e-3  # the inputs are told apart


def test_bart_reward_is_logit_1_minus_0_of_the_summary_post_pair(models, data) -> None:
    reward = RewardModel(
        models.bart,
        score=("diff", 1, 0),
        template=("{completion}", "{post}"),
        device="cpu",
        batch_size=4,
    )
    got = reward(prompts=data.prompts, completions=data.completions, post=data.posts)
    pairs = zip(data.completions, data.posts, strict=True)
    logits = [direct(models.bart, (c, p)) for c, p in pairs]
    np.testing.assert_allclose(got, [lg[1] - lg[0] for lg in logits], rtol=0, atol=1e-5)
    # the pair is encoded as BART's <s> summary </s></s> post </s>
    _, tok = reward.load()
    tokens = tok.convert_ids_to_tokens(tok("apple pear", "plum fig")["input_ids"])
    assert tokens == ["<s>", "apple", "pear", "</s>", "</s>", "plum", "fig", "</s>"]
    preset = RewardModel.faithfulness(models.bart, device="cpu")
    assert preset(data.prompts, data.completions, post=data.posts) == pytest.approx(got, abs=1e-6)


def test_other_logit_and_diff_conventions(models, data) -> None:
    kw: dict[str, Any] = dict(template=("{completion}", "{post}"), device="cpu")
    args = (data.prompts[:3], data.completions[:3])
    one = RewardModel(models.bart, score=("logit", 1), **kw)(*args, post=data.posts[:3])
    zero = RewardModel(models.bart, score=("logit", 0), **kw)(*args, post=data.posts[:3])
    diff = RewardModel(models.bart, score=("diff", 0, 1), **kw)(*args, post=data.posts[:3])
    np.testing.assert_allclose(diff, np.subtract(zero, one), atol=1e-6)


@pytest.mark.parametrize("which", ["gpt2", "bart"])
def test_batches_give_the_numbers_of_one_by_one(models, data, which) -> None:
    kw: dict[str, Any] = dict(device="cpu")
    if which == "bart":
        kw.update(score=("diff", 1, 0), template=("{completion}", "{post}"))
    args = dict(prompts=data.prompts, completions=data.completions, post=data.posts)
    singles = RewardModel(getattr(models, which), batch_size=1, **kw)(**args)
    for batch_size in (2, 5, 32):
        batched = RewardModel(getattr(models, which), batch_size=batch_size, **kw)(**args)
        np.testing.assert_allclose(batched, singles, rtol=0, atol=1e-5)


def test_gpt2_without_a_pad_token_pads_with_eos(models, data) -> None:
    reward = RewardModel(models.nopad, device="cpu", batch_size=4)
    model, tok = reward.load()
    assert tok.pad_token == tok.eos_token == "</s>"
    assert model.config.pad_token_id == tok.eos_token_id
    got = reward(data.prompts, data.completions)
    pairs = zip(data.prompts, data.completions, strict=True)
    want = [direct(models.nopad, p + c)[0] for p, c in pairs]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)


def test_summary_quality_scores_summary_bos_post(models, data) -> None:
    reward = RewardModel.summary_quality(models.gpt2, device="cpu")
    inputs = reward.format_inputs(data.prompts[:2], data.completions[:2], post=data.posts[:2])
    pairs = zip(data.completions[:2], data.posts[:2], strict=True)
    assert inputs == [f"{c} <s> {p}" for c, p in pairs]
    got = reward(data.prompts[:2], data.completions[:2], post=data.posts[:2])
    np.testing.assert_allclose(got, [direct(models.gpt2, t)[0] for t in inputs], atol=1e-5)
    assert RewardModel.summary_quality().path_or_name == SUMMARY_QUALITY_MODEL
    assert RewardModel.faithfulness().path_or_name == FAITHFULNESS_MODEL


def test_long_inputs_keep_the_completion(models) -> None:
    prompt, completion = "the a of and to in is was it for " * 3, "apple berry cherry"
    reward = RewardModel(models.gpt2, device="cpu", max_length=8)
    assert reward.truncation_side == "left"  # the template ends with {completion}
    got = reward([prompt], [completion])
    np.testing.assert_allclose(
        got, [direct(models.gpt2, prompt + completion, max_length=8)[0]], atol=1e-5
    )


# ---------------------------------------------------------------------------- TRL's call
def test_trl_keywords_and_chat_messages(models, data) -> None:
    reward = RewardModel(
        models.bart,
        score=("diff", 1, 0),
        template=("{completion}", "{title}: {post}"),
        device="cpu",
    )
    titles = ["t"] * 3
    plain = reward(data.prompts[:3], data.completions[:3], post=data.posts[:3], title=titles)
    chats = reward(
        prompts=[[{"role": "user", "content": p}] for p in data.prompts[:3]],
        completions=[[{"role": "assistant", "content": c}] for c in data.completions[:3]],
        completion_ids=[[1, 2]] * 3,
        post=data.posts[:3],
        title=titles,
        unused=[0, 1, 2],
        trainer_state=object(),
        log_extra=print,
        log_metric=print,
    )
    assert chats == plain
    assert reward([], []) == []


def test_reward_name_is_what_trl_logs(models) -> None:
    trl_utils = pytest.importorskip("trl.trainer.utils")
    reward = RewardModel(models.gpt2, device="cpu")
    assert reward.name == reward.__name__ == "gpt2"
    assert trl_utils.get_callable_name(reward) == reward_name(reward) == "gpt2"
    assert not trl_utils.is_async_callable(reward)
    assert isinstance(reward, RewardFunction)
    named = RewardModel.faithfulness(models.bart)
    assert trl_utils.get_callable_name(named) == "faithfulness"


def test_runs_in_inference_mode(models, data) -> None:
    reward = RewardModel(models.gpt2, device="cpu")
    model, _ = reward.load()
    seen: list[bool] = []
    handle = model.register_forward_hook(lambda *_: seen.append(torch.is_inference_mode_enabled()))
    try:
        reward(data.prompts[:2], data.completions[:2])
    finally:
        handle.remove()
    assert seen == [True]


# ---------------------------------------------------------------------------- errors
def test_template_errors_name_the_problem(models, data) -> None:
    reward = RewardModel(models.bart, template=("{completion}", "{post}"), device="cpu")
    with pytest.raises(ValueError, match=r"\{post\} names no column.*title"):
        reward(data.prompts[:1], data.completions[:1], title=["x"], trainer_state=None)
    with pytest.raises(ValueError, match="column 'post' must be a list with one value per"):
        reward(data.prompts[:2], data.completions[:2], post=["only one"])
    with pytest.raises(ValueError, match="same length"):
        reward(data.prompts[:2], data.completions[:1], post=data.posts[:2])
    with pytest.raises(ValueError, match="not a valid format string"):
        RewardModel(models.gpt2, template="{prompt")
    with pytest.raises(ValueError, match="without a name"):
        RewardModel(models.gpt2, template="{}{}")
    with pytest.raises(TypeError, match="pair of format strings"):
        RewardModel(models.gpt2, template=("{prompt}", "{completion}", "{post}"))
    with pytest.raises(ValueError, match="has no sep_token"):
        RewardModel(models.gpt2, template="{prompt}{sep_token}{completion}", device="cpu")(
            ["a"], ["b"]
        )
    with pytest.raises(TypeError, match="chat messages"):
        RewardModel(models.gpt2, device="cpu")([3], ["b"])


def test_score_and_setting_errors(models, data) -> None:
    for bad in ("logits", ("diff", 1), ("diff", 0, 0), ("logit", -1), ("logit", 1.0)):
        with pytest.raises(ValueError, match="score"):
            RewardModel(models.gpt2, score=bad)
    with pytest.raises(ValueError, match=r"asks for logit 1.*1 logit"):
        RewardModel(models.gpt2, score=("diff", 1, 0), device="cpu")(["a"], ["b"])
    with pytest.raises(ValueError, match="batch_size"):
        RewardModel(models.gpt2, batch_size=0)
    with pytest.raises(TypeError, match="max_length"):
        RewardModel(models.gpt2, max_length=1.5)
    with pytest.raises(ValueError, match="dtype must be one of"):
        RewardModel(models.gpt2, dtype="int8")
    with pytest.raises(ValueError, match="device 'nonsense'"):
        RewardModel(models.gpt2, device="nonsense")
    with pytest.raises(TypeError, match="device"):
        RewardModel(models.gpt2, device=3)
    with pytest.raises(TypeError, match="path_or_name"):
        RewardModel("")
    with pytest.raises(ValueError, match="truncation_side"):
        RewardModel(models.gpt2, truncation_side="middle")


# ---------------------------------------------------------------------------- process, device
def test_pickles_without_the_model_and_loads_once_per_process(models, data) -> None:
    reward = RewardModel(models.gpt2, device="cpu", batch_size=3)
    before = reward(data.prompts, data.completions)
    blob = pickle.dumps(reward)
    assert len(blob) < 2000  # settings only: the loaded model never travels
    copy = pickle.loads(blob)
    assert copy.name == copy.__name__ == "gpt2"
    assert copy(data.prompts, data.completions) == before
    first = reward.load()[0]
    assert copy.load()[0] is first  # one loaded copy per process
    reward.release()
    assert reward.load()[0] is not first  # released: loaded again on the next use


def test_device_and_dtype(models, data) -> None:
    default = RewardModel(models.gpt2)
    assert default.device is None
    assert default.resolved_device == ("cuda" if torch.cuda.is_available() else "cpu")
    reward = RewardModel(models.gpt2, device=torch.device("cpu"), dtype=torch.float32)
    assert (reward.device, reward.dtype) == ("cpu", "float32")
    assert reward.to("cpu") is reward
    full = reward(data.prompts, data.completions)
    half = RewardModel(models.gpt2, device="cpu", dtype="bfloat16")
    model, _ = half.load()
    assert next(model.parameters()).dtype == torch.bfloat16
    got = half(data.prompts, data.completions)
    assert all(type(v) is float for v in got)
    np.testing.assert_allclose(got, full, atol=0.05)
    if torch.cuda.is_available():
        gpu = RewardModel(models.gpt2, device="cuda")
        assert next(gpu.load()[0].parameters()).device.type == "cuda"
        np.testing.assert_allclose(gpu(data.prompts, data.completions), full, atol=1e-4)
