"""Random models and a word-level tokenizer for trying the LLM pipeline without the model hub.

Everything here is built locally in seconds and saved as model folders, which the rest of
:mod:`paretosurf.llm` loads by path exactly as it loads a model by name:

* :func:`toy_tokenizer`: a word-level tokenizer over a small vocabulary (:data:`WORDS`),
  optionally padded with filler words to a real model's vocabulary size;
* :func:`toy_causal_lm`: a random causal LM, tiny (two layers, width 32: a CPU trains it in
  milliseconds per step) or of a real model's shape (``"qwen2.5-0.5b"``, for timing);
* :func:`toy_reward_model`: a random GPT-2 or BART sequence classifier, tiny or of the
  paper's reward models' sizes;
* :func:`write_example`: a whole offline example (policy, prompts and a config whose rewards
  count two words) for ``paretosurf llm --config``.

Random models say nothing about alignment quality; they exercise the pipeline (shapes,
tokenization, training, adapters, timing). The tiny policy can learn word-count rewards.

Examples
--------
::

    from paretosurf.llm.toy import write_example
    config = write_example("toy")          # toy/config.toml, toy/policy, toy/prompts.jsonl
    # then, in a shell:  paretosurf llm --config toy/config.toml
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

__all__ = [
    "MODEL_SHAPES",
    "WORDS",
    "toy_causal_lm",
    "toy_reward_model",
    "toy_texts",
    "toy_tokenizer",
    "write_example",
]

#: The toy vocabulary (besides the special tokens ``<pad> <s> </s> <unk>``).
WORDS = tuple(
    (
        "apple berry cherry date fig grape kiwi lemon mango melon olive peach pear plum "
        "the a of and to in is was it for on with as at by this that from summary post "
        "story about my i you we they he she tl dr good bad long short"
    ).split()
)
SPECIAL_TOKENS = ("<pad>", "<s>", "</s>", "<unk>")

#: Causal LM shapes (``transformers.Qwen2Config`` fields). ``qwen2.5-0.5b`` is the shape of
#: Qwen/Qwen2.5-0.5B(-Instruct), with random weights.
MODEL_SHAPES: dict[str, dict[str, Any]] = {
    "tiny": {
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "max_position_embeddings": 256,
        "tie_word_embeddings": True,
    },
    "qwen2.5-0.5b": {
        "hidden_size": 896,
        "intermediate_size": 4864,
        "num_hidden_layers": 24,
        "num_attention_heads": 14,
        "num_key_value_heads": 2,
        "max_position_embeddings": 32768,
        "rope_theta": 1000000.0,
        "rms_norm_eps": 1e-6,
        "tie_word_embeddings": True,
        "vocab_size": 151936,
    },
}

#: Reward model sizes: "tiny", or "paper" (GPT-2 small; BART large).
_REWARD_SHAPES: dict[tuple[str, str], dict[str, Any]] = {
    ("gpt2", "tiny"): {"n_embd": 32, "n_layer": 1, "n_head": 2, "n_positions": 256},
    ("gpt2", "paper"): {"n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024},
    ("bart", "tiny"): {
        "d_model": 32,
        "encoder_layers": 1,
        "decoder_layers": 1,
        "encoder_attention_heads": 2,
        "decoder_attention_heads": 2,
        "encoder_ffn_dim": 64,
        "decoder_ffn_dim": 64,
        "max_position_embeddings": 256,
    },
    ("bart", "paper"): {
        "d_model": 1024,
        "encoder_layers": 12,
        "decoder_layers": 12,
        "encoder_attention_heads": 16,
        "decoder_attention_heads": 16,
        "encoder_ffn_dim": 4096,
        "decoder_ffn_dim": 4096,
        "max_position_embeddings": 1024,
    },
}


def toy_texts(n: int = 200, seed: int = 0, *, min_words: int = 5, max_words: int = 30) -> list[str]:
    """``n`` random sentences of :data:`WORDS`, of ``min_words`` to ``max_words`` words.

    Examples
    --------
    >>> texts = toy_texts(3, seed=1)
    >>> len(texts), all(set(t.split()) <= set(WORDS) for t in texts)
    (3, True)
    """
    rng = random.Random(seed)
    return [
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(min_words, max_words)))
        for _ in range(n)
    ]


def toy_tokenizer(
    folder: str | os.PathLike[str], *, bart: bool = False, vocab_size: int | None = None
) -> Path:
    """A word-level tokenizer over :data:`WORDS`, saved into ``folder`` as a
    ``PreTrainedTokenizerFast`` (load it with ``PreTrainedTokenizerFast.from_pretrained``).

    Parameters
    ----------
    folder : path
        Where to save it (created).
    bart : bool
        Wrap texts as BART's tokenizer does (``<s> a </s>``, pairs ``<s> a </s></s> b </s>``).
    vocab_size : int, optional
        Pad the vocabulary with filler words ``w<i>`` to this size (a real model's, so that
        every token a random model of that shape samples decodes to a word).

    Returns
    -------
    Path
        ``folder``.
    """
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    if vocab_size is None:
        tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        tok.train_from_iterator(
            toy_texts(),
            trainers.WordLevelTrainer(
                special_tokens=list(SPECIAL_TOKENS), vocab_size=len(WORDS) + len(SPECIAL_TOKENS) + 8
            ),
        )
    else:
        words = [*SPECIAL_TOKENS, *WORDS]
        if vocab_size < len(words):
            raise ValueError(f"vocab_size must be at least {len(words)}, got {vocab_size}")
        vocab = {w: i for i, w in enumerate(words)}
        vocab.update({f"w{i}": i for i in range(len(words), vocab_size)})
        tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
    if bart:
        _wrap_as_bart(tok)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
        padding_side="left",
    )
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(path)
    return path


def _wrap_as_bart(tok: Any) -> None:
    """Make a ``tokenizers.Tokenizer`` wrap texts as BART's does."""
    from tokenizers import processors

    ids = {t: tok.token_to_id(t) for t in ("<s>", "</s>")}
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=list(ids.items())
    )


def _load_tokenizer(folder: str | os.PathLike[str]) -> Any:
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast.from_pretrained(folder)


def _special_ids(tok: Any) -> dict[str, Any]:
    return {
        "pad_token_id": tok.pad_token_id,
        "bos_token_id": tok.bos_token_id,
        "eos_token_id": tok.eos_token_id,
    }


def toy_causal_lm(
    folder: str | os.PathLike[str],
    tokenizer: str | os.PathLike[str],
    *,
    shape: str = "tiny",
    seed: int = 0,
    embedding_scale: float = 1.0,
    dtype: str = "float32",
) -> Path:
    """A Qwen2 causal LM with random weights, saved into ``folder`` with its tokenizer.

    Parameters
    ----------
    folder : path
        Where to save it.
    tokenizer : path
        A tokenizer folder (:func:`toy_tokenizer`); for a shape with a ``vocab_size``, its
        vocabulary should be that large.
    shape : str
        A key of :data:`MODEL_SHAPES`: ``"tiny"`` (two layers, width 32) or
        ``"qwen2.5-0.5b"`` (494M parameters).
    seed : int
        Seeds the random weights.
    embedding_scale : float
        Multiplies the (tied) embeddings. The tiny model's logits are its RMS-normalized final
        state (norm about sqrt(32)) times embedding rows of norm about 0.1, so no adapter
        moves a logit by more than about 0.6 and the policy stays near uniform; a scale of 3
        lets a few RL steps visibly move it.
    dtype : str
        The saved weights' dtype ("float32", "bfloat16", ...).

    Returns
    -------
    Path
        ``folder``.
    """
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    if shape not in MODEL_SHAPES:
        raise ValueError(f"shape must be one of {sorted(MODEL_SHAPES)}, got {shape!r}")
    tok = _load_tokenizer(tokenizer)
    settings: dict[str, Any] = {"vocab_size": len(tok), **MODEL_SHAPES[shape]}
    if settings["vocab_size"] < len(tok):
        raise ValueError(
            f"the tokenizer has {len(tok)} tokens, more than the {shape} shape's "
            f"vocabulary of {settings['vocab_size']}"
        )
    torch.manual_seed(seed)
    config = Qwen2Config(**settings, **_special_ids(tok))
    model: Any = Qwen2ForCausalLM(config)
    if embedding_scale != 1.0:
        with torch.no_grad():
            model.get_input_embeddings().weight.mul_(embedding_scale)
    model.to(getattr(torch, dtype)).save_pretrained(folder)
    tok.save_pretrained(folder)
    return Path(folder)


def toy_reward_model(
    folder: str | os.PathLike[str],
    tokenizer: str | os.PathLike[str],
    *,
    kind: str = "gpt2",
    size: str = "tiny",
    seed: int = 1,
) -> Path:
    """A random sequence classifier shaped like a reward model, saved with its tokenizer.

    Parameters
    ----------
    folder : path
        Where to save it.
    tokenizer : path
        A tokenizer folder (:func:`toy_tokenizer`). For ``kind="bart"`` it is saved wrapping
        texts as BART's does (they end in ``</s>``, which BART's classifier reads).
    kind : {"gpt2", "bart"}
        A GPT-2 with one logit (``Tristan/gpt2_reward_summarization``'s architecture) or a
        BART with two (``CogComp/bart-faithful-summary-detector``'s: hallucinated, faithful).
    size : {"tiny", "paper"}
        Tiny, or the paper's reward models' sizes (GPT-2 small, BART large).
    seed : int
        Seeds the random weights.

    Returns
    -------
    Path
        ``folder``.
    """
    import torch

    if (kind, size) not in _REWARD_SHAPES:
        raise ValueError(
            f"kind must be 'gpt2' or 'bart' and size 'tiny' or 'paper', got {kind!r}, {size!r}"
        )
    tok = _load_tokenizer(tokenizer)
    if kind == "bart":  # the same vocabulary, wrapped as BART's
        from tokenizers import Tokenizer
        from transformers import PreTrainedTokenizerFast

        backend = Tokenizer.from_str(tok.backend_tokenizer.to_str())
        _wrap_as_bart(backend)
        tok = PreTrainedTokenizerFast(
            tokenizer_object=backend,
            pad_token="<pad>",
            bos_token="<s>",
            eos_token="</s>",
            unk_token="<unk>",
            padding_side="left",
        )
    torch.manual_seed(seed)
    shape = _REWARD_SHAPES[kind, size]
    if kind == "gpt2":
        from transformers import GPT2Config, GPT2ForSequenceClassification

        model: Any = GPT2ForSequenceClassification(
            GPT2Config(
                vocab_size=len(tok),
                **shape,
                id2label={0: "score"},
                label2id={"score": 0},
                **_special_ids(tok),
            )
        )
    else:
        from transformers import BartConfig, BartForSequenceClassification

        model = BartForSequenceClassification(
            BartConfig(
                vocab_size=len(tok),
                **shape,
                id2label={0: "hallucinated", 1: "faithful"},
                label2id={"hallucinated": 0, "faithful": 1},
                **_special_ids(tok),
                decoder_start_token_id=tok.bos_token_id,
            )
        )
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return Path(folder)


EXAMPLE_CONFIG = """\
# A CPU example of `paretosurf llm`: a tiny random policy learns to say "apple" (reward 1)
# or "berry" (reward 2). Written by paretosurf.llm.toy.write_example. It exercises the
# pipeline; its front says little about the methods: a completion has a fixed number of
# words, so the two counts trade one for one (a nearly straight front, on which the policies
# of every weight but those close to 0.5 are all-apple or all-berry).
model = "{policy}"
out = "{out}"
torch_threads = 1

[[rewards]]
kind = "word_count"
word = "apple"

[[rewards]]
kind = "word_count"
word = "berry"

[prompts]
source = "{prompts}"
n = 32
eval_n = 32
min_chars = 0
template = "{{post}}"

[solver]
epochs = 1
rank = 8
lora_alpha = 16
learning_rate = 0.05
batch_size = 16
mini_batch_size = 8
num_generations = 4
min_new_tokens = 6
max_new_tokens = 12
eval_batches = 4
eval_batch_size = 8
device = "cpu"

[protocol]
n_segments = 4
warm_epochs = 1
uniform_epochs = 6
surf_init_epoch = 2
surf_rounds = 4
"""


def write_example(folder: str | os.PathLike[str]) -> Path:
    """Write an offline example for ``paretosurf llm --config``: a tiny random policy
    (``policy/``), 64 short prompts (``prompts.jsonl``) and ``config.toml``, whose rewards
    count the words "apple" and "berry"; the run goes to ``run/``. Returns the config's path.

    The example runs the paper's protocol at a small scale (N = 4; Uniform-w 6 epochs; SURF
    4 rounds from the epoch-2 adapters) in under a minute on one CPU core.
    """
    root = Path(folder).resolve()
    policy = toy_causal_lm(root / "policy", toy_tokenizer(root / "tokenizer"), embedding_scale=3.0)
    prompts = root / "prompts.jsonl"
    with prompts.open("w") as f:
        for text in toy_texts(64, seed=3, min_words=4, max_words=8):
            f.write(json.dumps({"post": text}) + "\n")
    config = root / "config.toml"
    config.write_text(
        EXAMPLE_CONFIG.format(
            policy=policy.as_posix(), out=(root / "run").as_posix(), prompts=prompts.as_posix()
        )
    )
    return config
