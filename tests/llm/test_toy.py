"""The toy models: vocabularies, shapes (a real model's parameter count), reward-model
outputs, and the offline example's files."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from transformers import PreTrainedTokenizerFast  # noqa: E402

from paretosurf.llm.config import load_config  # noqa: E402
from paretosurf.llm.toy import (  # noqa: E402
    MODEL_SHAPES,
    WORDS,
    toy_causal_lm,
    toy_reward_model,
    toy_tokenizer,
    write_example,
)


def test_the_qwen_shape_has_qwen2_5_0_5b_parameter_count() -> None:
    """494,032,768 parameters: tied embeddings 151936 x 896, and per layer q (with bias),
    k, v (2 KV heads of 64, with biases), o, a 3 x 896 x 4864 MLP and two norms."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    with torch.device("meta"):
        model = Qwen2ForCausalLM(Qwen2Config(**MODEL_SHAPES["qwen2.5-0.5b"]))
    per_layer = (896 * 896 + 896) + 2 * (896 * 128 + 128) + 896 * 896 + 3 * 896 * 4864 + 2 * 896
    expected = 151936 * 896 + 24 * per_layer + 896
    assert expected == 494_032_768
    assert sum(p.numel() for p in model.parameters()) == expected


def test_a_padded_vocabulary_decodes_every_id(tmp_path: Path) -> None:
    tok = PreTrainedTokenizerFast.from_pretrained(toy_tokenizer(tmp_path, vocab_size=500))
    assert len(tok) == 500
    text = tok.decode(list(range(450, 460)))
    assert text.split() == [f"w{i}" for i in range(450, 460)]
    assert tok.convert_ids_to_tokens(tok("apple berry")["input_ids"]) == ["apple", "berry"]
    with pytest.raises(ValueError, match="vocab_size"):
        toy_tokenizer(tmp_path / "small", vocab_size=10)


def test_models_load_by_folder_and_score(tmp_path: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification

    tokenizer = toy_tokenizer(tmp_path / "tok")
    lm = AutoModelForCausalLM.from_pretrained(toy_causal_lm(tmp_path / "lm", tokenizer))
    tok = PreTrainedTokenizerFast.from_pretrained(tokenizer)
    assert lm.config.vocab_size == len(tok) and lm.config.num_hidden_layers == 2
    ids = tok(["apple plum", "a long story about a plum"], padding=True, return_tensors="pt")
    for kind, labels in (("gpt2", 1), ("bart", 2)):
        folder = toy_reward_model(tmp_path / kind, tokenizer, kind=kind)
        model = AutoModelForSequenceClassification.from_pretrained(folder)
        assert model.config.num_labels == labels
        own = PreTrainedTokenizerFast.from_pretrained(folder)
        batch = own(["apple plum"], ["a plum"], return_tensors="pt")
        if kind == "bart":  # <s> a </s></s> b </s>
            assert own.convert_ids_to_tokens(batch["input_ids"][0]) == [
                "<s>",
                "apple",
                "plum",
                "</s>",
                "</s>",
                "a",
                "plum",
                "</s>",
            ]
        with torch.no_grad():
            assert model(**batch).logits.shape == (1, labels)
    with torch.no_grad():
        assert lm(**ids).logits.shape == (2, ids["input_ids"].shape[1], len(tok))
    with pytest.raises(ValueError, match="shape"):
        toy_causal_lm(tmp_path / "x", tokenizer, shape="gpt-5")


def test_the_offline_example(tmp_path: Path) -> None:
    config = load_config(write_example(tmp_path / "example"))
    assert Path(config.model).is_dir() and config.model.startswith(str(tmp_path))
    train, evaluation = config.build_prompts()
    assert (len(train), len(evaluation)) == (32, 32)
    assert all(set(p.split()) <= set(WORDS) for p in train["prompt"])
    first, second = config.reward_functions()
    assert (first.word, second.word) == ("apple", "berry")
    assert config.build_protocol().gpu_epochs()["Uniform-w"] == 30
