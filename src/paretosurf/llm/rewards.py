"""Rewards for LLM alignment: what a reward is, and reward models wrapped as rewards.

What a reward is
----------------
A reward is any callable with TRL's reward-function signature::

    reward(prompts, completions, **kwargs) -> list[float]

``prompts`` and ``completions`` are lists of the same length (plain strings, or lists of chat
messages ``{"role": ..., "content": ...}`` for conversational data); the result holds one float
per completion. TRL's ``RLOOTrainer`` and ``GRPOTrainer`` call it with keywords only, and pass
more of them: ``completion_ids``, every other column of the prompt dataset as a list aligned
with ``prompts`` (for example ``post=[...]`` for prompts from
:func:`~paretosurf.llm.prompts.load_prompts`), and ``trainer_state``, ``log_extra``,
``log_metric``. A reward takes ``**kwargs`` and ignores what it does not use. TRL logs a
reward under its ``__name__`` (a function's name, a ``functools.partial``'s function, else the
class name); :func:`reward_name` reads it the same way. Rewards are *maximized*; the solver
turns them into minimized objectives (negated returns), as the rest of the library expects.

Reward models
-------------
:class:`RewardModel` wraps a sequence-classification model (``AutoModelForSequenceClassification``)
as such a callable. Two conventions say what it scores:

* ``template``, how the model's input is formed: a format string gives one text per completion;
  a pair of format strings gives a text pair, which the model's tokenizer encodes as its own
  pair format (a BART tokenizer: ``<s> first </s></s> second </s>``). Placeholders are
  ``{prompt}``, ``{completion}``, any column of the prompt dataset (``{post}``), and the
  tokenizer's special tokens ``{bos_token}``, ``{eos_token}``, ``{sep_token}``, ``{cls_token}``.
* ``score``, which number of the model's output is the reward: ``"logit"`` (logit 0, the
  single output of a reward model), ``("logit", i)`` (logit ``i``) or ``("diff", i, j)``
  (``logit[i] - logit[j]``, a log-odds between two classes).

The paper's pair (Table 2) are ready-made, :meth:`RewardModel.summary_quality` and
:meth:`RewardModel.faithfulness`, in the input formats their authors published:

* ``Tristan/gpt2_reward_summarization``: a GPT-2 with one logit, trained by TRL's example
  script ``examples/summarization/scripts/reward_summarization.py`` on the comparisons of
  ``openai/summarize_from_feedback`` with inputs ``summary + " " + bos_token + " " + post``
  (summary *first*; GPT-2's ``bos_token`` is ``<|endoftext|>``), the format Rewarded Soups
  (Rame et al., 2023) also scores it with. Template ``"{completion} {bos_token} {post}"``,
  score ``"logit"``. Use ``template="{prompt}{completion}"`` for the plain prompt-plus-summary
  text that TRL feeds a reward model it loads itself.
* ``CogComp/bart-faithful-summary-detector``: a BART sequence classifier (BART-base, as
  its model card says; the paper names only the checkpoint) with labels
  0 = hallucinated, 1 = faithful, from Chen et al., NAACL 2021; its model card encodes
  ``tokenizer(text=summary, text_pair=article)`` (summary first). Template
  ``("{completion}", "{post}")``, score ``("diff", 1, 0)``, the log-odds of faithful against
  hallucinated (the paper's reward format ``1-0``).

Both read the raw post from the dataset's ``post`` column, which
:func:`~paretosurf.llm.prompts.load_prompts` provides.

Examples
--------
>>> from paretosurf.llm.rewards import RewardModel, reward_name
>>> r = RewardModel.faithfulness()
>>> r.name, r.template, r.score
('faithfulness', ('{completion}', '{post}'), ('diff', 1, 0))
>>> r.format_inputs(["Summarize: I lost my keys."], ["Keys lost."], post=["I lost my keys."])
[('Keys lost.', 'I lost my keys.')]
>>> reward_name(r)
'faithfulness'

Calling ``r(prompts=..., completions=..., post=...)`` loads the model (once per process, on
first use) and returns one float per completion.
"""

from __future__ import annotations

import re
import string
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from paretosurf._utils.validation import check_positive_int
from paretosurf.llm.templates import template_fields

if TYPE_CHECKING:
    import torch

__all__ = [
    "FAITHFULNESS_MODEL",
    "SUMMARY_QUALITY_MODEL",
    "NamedReward",
    "RewardFunction",
    "RewardModel",
    "WordCount",
    "reward_log_names",
    "reward_name",
]

#: The paper's summary-quality reward model (r1).
SUMMARY_QUALITY_MODEL = "Tristan/gpt2_reward_summarization"
#: The paper's faithfulness reward model (r2).
FAITHFULNESS_MODEL = "CogComp/bart-faithful-summary-detector"

#: Template placeholders filled from the reward model's tokenizer.
SPECIAL_TOKENS = ("bos_token", "eos_token", "sep_token", "cls_token")

Template = str | tuple[str, str]
Score = str | tuple[Any, ...]


@runtime_checkable
class RewardFunction(Protocol):
    """A reward: ``reward(prompts, completions, **kwargs) -> list[float]`` (TRL's signature).

    See the module docstring for what TRL passes as keywords.
    """

    def __call__(
        self, prompts: list[Any], completions: list[Any], **kwargs: Any
    ) -> list[float]: ...


def reward_name(reward: Callable[..., Any]) -> str:
    """The name a reward is logged under, read as TRL reads it.

    A ``functools.partial`` is unwrapped to its function; then the ``__name__`` attribute, else
    the class name.

    Examples
    --------
    >>> import functools
    >>> def brevity(prompts, completions, **kwargs):
    ...     return [-float(len(c)) for c in completions]
    >>> reward_name(brevity), reward_name(functools.partial(brevity))
    ('brevity', 'brevity')
    """
    import functools

    while isinstance(reward, functools.partial):
        reward = reward.func
    return str(getattr(reward, "__name__", type(reward).__name__))


def reward_log_names(rewards: Sequence[Callable[..., Any]]) -> tuple[str, ...]:
    """The names the rewards are logged under (``rewards/<name>/mean`` in TRL's logs, the
    training logs, the trackers and the figures): each one's :func:`reward_name`, with ``/``
    replaced by ``_`` (it separates a metric's parts), and numbered ``_1``, ``_2``, ... where
    two would be the same (their metrics would overwrite each other).

    Examples
    --------
    >>> from paretosurf.llm.rewards import NamedReward, WordCount, reward_log_names
    >>> reward_log_names([WordCount("apple"), WordCount("berry")])
    ('count_apple', 'count_berry')
    >>> reward_log_names([WordCount("apple"), WordCount("apple")])
    ('count_apple_1', 'count_apple_2')
    >>> reward_log_names([NamedReward(WordCount("apple"), "fruit/apple"), WordCount("pear")])
    ('fruit_apple', 'count_pear')
    """
    names = [
        reward_name(r).replace("/", "_").strip() or f"reward{i + 1}" for i, r in enumerate(rewards)
    ]
    return tuple(
        f"{name}_{i + 1}" if names.count(name) > 1 else name for i, name in enumerate(names)
    )


class NamedReward:
    """A reward under a name of your choosing: calls ``reward`` as it is, and is logged (by
    TRL, the training logs, the trackers and the figures) as ``name``.

    Pickles when ``reward`` does (for worker processes). A config file gives the same with a
    reward's ``name`` key (:mod:`paretosurf.llm.config`). ``reward`` is called synchronously;
    one that takes text (:mod:`paretosurf.llm.reward_inputs`) still gets text.

    Parameters
    ----------
    reward : callable
        A reward with TRL's signature ``reward(prompts, completions, **kwargs)``.
    name : str
        The name it is logged under.

    Examples
    --------
    >>> from paretosurf.llm.rewards import NamedReward, WordCount, reward_name
    >>> fruit = NamedReward(WordCount("apple"), "fruitiness")
    >>> reward_name(fruit), fruit(["p"], ["an apple a day"])
    ('fruitiness', [1.0])
    """

    def __init__(self, reward: Callable[..., Any], name: str) -> None:
        if not callable(reward):
            raise TypeError(f"reward must be callable, got {type(reward).__name__}")
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"name must be a non-empty string, got {name!r}")
        from paretosurf.llm.reward_inputs import adapt_reward

        # a reward written for text keeps getting text (its annotations are hidden in here)
        self.reward = adapt_reward(reward)
        self.__name__ = name.strip()

    def __call__(self, prompts: list[Any], completions: list[Any], **kwargs: Any) -> Any:
        return self.reward(prompts, completions, **kwargs)

    def __repr__(self) -> str:
        return f"NamedReward({self.reward!r}, {self.__name__!r})"


class WordCount:
    """A toy reward: how often ``word`` occurs in each completion (TRL's reward signature).

    Words are compared in lower case with surrounding punctuation stripped. It needs no model,
    so a pipeline can be tried on a CPU with two rewards a tiny policy learns quickly (the
    count of one word against the count of another). Instances pickle, for worker processes.

    Examples
    --------
    >>> from paretosurf.llm.rewards import WordCount
    >>> WordCount("apple")(["p", "p"], ["apple pie", "an apple, apple"])
    [1.0, 2.0]
    """

    def __init__(self, word: str) -> None:
        if not isinstance(word, str) or not word.strip():
            raise ValueError(f"word must be a non-empty string, got {word!r}")
        self.word = word.strip().lower()
        self.__name__ = f"count_{self.word}"

    def __call__(self, prompts: list[Any], completions: list[Any], **kwargs: Any) -> list[float]:
        out = []
        for completion in completions:
            text = _as_text(completion, what="completion")
            words = [w.strip(".,;:!?\"'()") for w in text.lower().split()]
            out.append(float(sum(w == self.word for w in words)))
        return out

    def __repr__(self) -> str:
        return f"WordCount({self.word!r})"


# --------------------------------------------------------------------------- templates, scores
def _fields(template: str, *, name: str) -> tuple[str, ...]:
    """The top-level names a format string uses (``{info[post]}`` uses ``info``)."""
    return template_fields(
        template,
        name=name,
        hint="use named placeholders such as {prompt}, {completion} or a column name like {post}",
    )


def _check_template(template: object) -> tuple[Template, tuple[str, ...]]:
    """Validate ``template``; return it (a str or a 2-tuple) and the names it uses."""
    if isinstance(template, str):
        return template, _fields(template, name="template")
    if isinstance(template, (tuple, list)) and len(template) == 2:
        first, second = template
        names = _fields(first, name="template[0]")
        names += tuple(n for n in _fields(second, name="template[1]") if n not in names)
        return (first, second), names
    raise TypeError(
        "template must be a format string or a pair of format strings (a text pair for the "
        f"tokenizer), got {template!r}"
    )


def _check_score(score: object) -> tuple[int, int | None]:
    """Parse ``score`` into (i, j): the reward is logit[i], minus logit[j] when j is given."""

    def index(value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"score indices must be integers >= 0, got {value!r} in {score!r}")
        return value

    if score == "logit":
        return 0, None
    if isinstance(score, (tuple, list)) and score:
        kind, *idx = score
        if kind == "logit" and len(idx) == 1:
            return index(idx[0]), None
        if kind == "diff" and len(idx) == 2:
            i, j = index(idx[0]), index(idx[1])
            if i == j:
                raise ValueError(f"score {score!r} subtracts a logit from itself; use i != j")
            return i, j
    raise ValueError(
        f"score must be 'logit', ('logit', i) or ('diff', i, j) (logit[i] - logit[j]), "
        f"got {score!r}"
    )


def _as_text(value: object, *, what: str) -> str:
    """A prompt or completion as plain text: strings as they are, chat messages joined."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "content" in value:
        return str(value["content"])
    if isinstance(value, (list, tuple)) and all(
        isinstance(m, dict) and "content" in m for m in value
    ):
        return "\n\n".join(str(m["content"]) for m in value)
    raise TypeError(
        f"each of {what} must be a string or a list of chat messages with a 'content', "
        f"got {value!r}"
    )


def _default_name(path_or_name: str) -> str:
    return Path(str(path_or_name).rstrip("/\\")).name or str(path_or_name)


# --------------------------------------------------------------------------- model cache
#: Loaded (model, tokenizer) per (path, device, dtype): one copy per process, shared by every
#: RewardModel (and every unpickled copy of one) that asks for the same.
_LOADED: dict[tuple[str, str, str], tuple[Any, Any]] = {}
_LOCK = threading.Lock()

_DTYPES = ("float32", "float16", "bfloat16", "float64", "auto")


def _resolve_device(device: str | None) -> str:
    import torch

    if device is None:
        return "cuda" if torch.cuda.is_available() else "cpu"
    return str(torch.device(device))


def _prepare_padding(model: Any, tokenizer: Any, where: str) -> None:
    """Give the tokenizer a pad token and the model the same pad id.

    A GPT-2 tokenizer has none: the model's configured pad id is used when there is one, else
    the eos token (as GPT-2 reward models are trained). A model whose config has no pad id gets
    the tokenizer's, so that ``GPT2ForSequenceClassification`` can find each row's last
    non-pad token.
    """
    config = model.config
    config_pad = getattr(config, "pad_token_id", None)
    valid = isinstance(config_pad, int) and 0 <= config_pad < len(tokenizer)
    if tokenizer.pad_token is None:
        if valid:
            tokenizer.pad_token = tokenizer.convert_ids_to_tokens(config_pad)
        elif tokenizer.eos_token is not None:
            tokenizer.pad_token = tokenizer.eos_token
        else:
            raise ValueError(
                f"the reward model {where!r} has no pad token, no eos token and no pad id in "
                "its config: batches cannot be padded; give its tokenizer a pad token"
            )
    elif valid and config_pad != tokenizer.pad_token_id:
        # the model finds the last real token by its own pad id: pad with that one
        tokenizer.pad_token = tokenizer.convert_ids_to_tokens(config_pad)
    if config_pad is None:
        config.pad_token_id = tokenizer.pad_token_id


def _load(path: str, device: str, dtype: str) -> tuple[Any, Any]:
    key = (path, device, dtype)
    with _LOCK:
        if key in _LOADED:
            return _LOADED[key]
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(path)
        torch_dtype: Any = dtype if dtype == "auto" else getattr(torch, dtype)
        model = AutoModelForSequenceClassification.from_pretrained(path, dtype=torch_dtype)
        model.to(device)
        model.eval()
        model.requires_grad_(False)
        _prepare_padding(model, tokenizer, path)
        _LOADED[key] = (model, tokenizer)
        return model, tokenizer


# --------------------------------------------------------------------------- the reward model
class RewardModel:
    """A sequence-classification model as a reward: ``reward(prompts, completions, **columns)``.

    Parameters
    ----------
    path_or_name : str or path-like
        A model on the hub (``"CogComp/bart-faithful-summary-detector"``) or a local folder
        saved with ``save_pretrained``, holding the model and its tokenizer.
    score : str or tuple, default "logit"
        Which output is the reward: ``"logit"`` (logit 0), ``("logit", i)`` (logit ``i``) or
        ``("diff", i, j)`` (``logit[i] - logit[j]``). Checked against the model's number of
        labels when it is loaded.
    template : str or (str, str), default "{prompt}{completion}"
        How the model's input is formed: a format string (one text) or a pair of format strings
        (a text pair, encoded by the tokenizer's own pair format). Placeholders: ``{prompt}``,
        ``{completion}``, any column of the prompt dataset (TRL passes them as keywords; a
        missing one is an error naming it), and ``{bos_token}``, ``{eos_token}``,
        ``{sep_token}``, ``{cls_token}`` from the tokenizer. Chat-format prompts and
        completions are turned into text by joining their messages' contents.
    batch_size : int, default 32
        Texts per forward pass. Texts are batched by length and padded on the right, so every
        text keeps the positions it has alone: batched scores equal one-by-one scores.
    max_length : int, default 512
        Longest input in tokens (also capped by the tokenizer's and the model's limits); longer
        inputs are truncated on ``truncation_side`` (pairs: the longer text loses tokens first).
    device : str or torch.device, optional
        Where the model runs, the policy's device when you give it. Default: CUDA if available,
        else CPU, decided in the process that first calls the reward.
    dtype : str or torch.dtype, optional
        The model's weights' dtype: ``"float32"`` (the default), ``"bfloat16"``,
        ``"float16"``, ``"float64"`` or ``"auto"`` (the checkpoint's). Rewards are returned as
        Python floats either way.
    name : str, optional
        The name for logs, also set as ``__name__`` (which TRL reads). Default: the model's
        folder or repository name.
    truncation_side : {"left", "right"}, optional
        Which end of a too-long text is cut. Default: ``"left"`` when a single-text template
        ends with ``{completion}`` (the completion is kept), else ``"right"``.

    Notes
    -----
    The model and tokenizer are loaded on the first call, once per process and per
    (model, device, dtype): copies of a RewardModel (pickled to worker processes, say) share
    that process's loaded model, which is never part of the pickled state. Scoring runs in
    ``torch.inference_mode()``. A tokenizer without a pad token (GPT-2) pads with the model's
    configured pad id, else with its eos token; the model gets the same pad id, and
    ``GPT2ForSequenceClassification`` scores each text at its last non-pad token.

    Examples
    --------
    >>> r = RewardModel("my/reward-model", score=("diff", 1, 0), template=("{completion}", "{post}"))
    >>> r
    RewardModel('my/reward-model', score=('diff', 1, 0), template=('{completion}', '{post}'))
    >>> r.name, r.__name__
    ('reward-model', 'reward-model')
    >>> r.format_inputs(["P"], ["S"])
    Traceback (most recent call last):
    ...
    ValueError: template placeholder {post} names no column: the reward got prompts, completions and no other column; TRL passes the prompt dataset's other columns as keywords, so add a 'post' column to the prompts
    """  # noqa: E501

    def __init__(
        self,
        path_or_name: str | Path,
        *,
        score: Score = "logit",
        template: Template = "{prompt}{completion}",
        batch_size: int = 32,
        max_length: int = 512,
        device: str | torch.device | None = None,
        dtype: str | torch.dtype | None = None,
        name: str | None = None,
        truncation_side: Literal["left", "right"] | None = None,
    ) -> None:
        if not isinstance(path_or_name, (str, Path)) or not str(path_or_name):
            raise TypeError(
                f"path_or_name must be a model name or folder (a non-empty str or path), "
                f"got {path_or_name!r}"
            )
        self.path_or_name = str(path_or_name)
        self._index = _check_score(score)
        self.score: Score = tuple(score) if isinstance(score, list) else score
        self.template, self._names = _check_template(template)
        self.batch_size = check_positive_int(batch_size, name="batch_size")
        self.max_length = check_positive_int(max_length, name="max_length")
        self.device = self._check_device(device)
        self.dtype = self._check_dtype(dtype)
        if name is None:
            name = _default_name(self.path_or_name)
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be a non-empty string, got {name!r}")
        self.name = name
        self.__name__ = name
        if truncation_side is None:
            ends_with_completion = isinstance(self.template, str) and bool(
                re.search(r"\{completion\}\s*$", self.template)
            )
            truncation_side = "left" if ends_with_completion else "right"
        if truncation_side not in ("left", "right"):
            raise ValueError(
                f"truncation_side must be 'left', 'right' or None, got {truncation_side!r}"
            )
        self.truncation_side = truncation_side

    # ------------------------------------------------------------------ presets
    @classmethod
    def summary_quality(
        cls,
        path_or_name: str | Path = SUMMARY_QUALITY_MODEL,
        *,
        score: Score = "logit",
        template: Template = "{completion} {bos_token} {post}",
        batch_size: int = 32,
        max_length: int = 512,
        device: str | torch.device | None = None,
        dtype: str | torch.dtype | None = None,
        name: str = "summary_quality",
    ) -> RewardModel:
        """The paper's r1: summary quality from ``Tristan/gpt2_reward_summarization``.

        Logit 0 of ``summary <|endoftext|> post``, the format the model was trained on (TRL's
        ``reward_summarization.py``: ``summary + " " + bos_token + " " + post``). Needs the
        post as a ``post`` column of the prompts; pass ``template="{prompt}{completion}"`` to
        score the prompt followed by the summary instead.

        The separator is GPT-2's ``<|endoftext|>``, which is also its eos and pad token. The
        model was trained under transformers 4.26, whose GPT-2 head read the token at index
        (number of non-pad tokens - 1): with the separator counted as padding, the post's
        next-to-last token. Today's transformers (and this reward) reads the last non-pad
        token, the post's last one.

        Examples
        --------
        >>> r = RewardModel.summary_quality(device="cpu")
        >>> r.path_or_name, r.score, r.template, r.truncation_side
        ('Tristan/gpt2_reward_summarization', 'logit', '{completion} {bos_token} {post}', 'right')
        """
        return cls(
            path_or_name,
            score=score,
            template=template,
            batch_size=batch_size,
            max_length=max_length,
            device=device,
            dtype=dtype,
            name=name,
        )

    @classmethod
    def faithfulness(
        cls,
        path_or_name: str | Path = FAITHFULNESS_MODEL,
        *,
        score: Score = ("diff", 1, 0),
        template: Template = ("{completion}", "{post}"),
        batch_size: int = 32,
        max_length: int = 512,
        device: str | torch.device | None = None,
        dtype: str | torch.dtype | None = None,
        name: str = "faithfulness",
    ) -> RewardModel:
        """The paper's r2: faithfulness from ``CogComp/bart-faithful-summary-detector``, a
        BART-base classifier (its model card's word; labels 0 = hallucinated, 1 = faithful).

        ``logit[1] - logit[0]`` (faithful against hallucinated) of the text pair
        ``(summary, post)``, which BART's tokenizer encodes as ``<s> summary </s></s> post
        </s>``, as on the model card (``tokenizer(text=summary, text_pair=article)``). Needs
        the post as a ``post`` column of the prompts; a post too long for ``max_length`` loses
        its end.

        Examples
        --------
        >>> RewardModel.faithfulness(max_length=1024).max_length
        1024
        """
        return cls(
            path_or_name,
            score=score,
            template=template,
            batch_size=batch_size,
            max_length=max_length,
            device=device,
            dtype=dtype,
            name=name,
        )

    # ------------------------------------------------------------------ checks
    @staticmethod
    def _check_device(device: object) -> str | None:
        if device is None:
            return None
        import torch

        if not isinstance(device, (str, torch.device)):
            raise TypeError(f"device must be a str, a torch.device or None, got {device!r}")
        try:
            return str(torch.device(device))
        except (RuntimeError, ValueError) as exc:
            raise ValueError(f"device {device!r} is not a torch device: {exc}") from None

    @staticmethod
    def _check_dtype(dtype: object) -> str:
        if dtype is None:
            return "float32"
        if isinstance(dtype, str):
            name = dtype.removeprefix("torch.")
        else:
            import torch

            if not isinstance(dtype, torch.dtype):
                raise TypeError(f"dtype must be a str, a torch.dtype or None, got {dtype!r}")
            name = str(dtype).removeprefix("torch.")
        if name not in _DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(_DTYPES)}, got {dtype!r}")
        return name

    # ------------------------------------------------------------------ model
    @property
    def resolved_device(self) -> str:
        """The device the model runs on in this process (``device``, else CUDA or CPU)."""
        return _resolve_device(self.device)

    def load(self) -> tuple[Any, Any]:
        """The (model, tokenizer) pair, loaded on first use, once per process.

        Raises
        ------
        ValueError
            When ``score`` asks for a logit the model does not have.
        """
        model, tokenizer = _load(self.path_or_name, self.resolved_device, self.dtype)
        n_labels = int(model.config.num_labels)
        i, j = self._index
        if max(i, -1 if j is None else j) >= n_labels:
            raise ValueError(
                f"score {self.score!r} asks for logit {max(i, -1 if j is None else j)}, but "
                f"the reward model {self.path_or_name!r} has {n_labels} logit(s) "
                f"(labels {dict(model.config.id2label)})"
            )
        return model, tokenizer

    def release(self) -> None:
        """Drop this process's loaded copy of the model (it is reloaded on the next call)."""
        with _LOCK:
            _LOADED.pop((self.path_or_name, self.resolved_device, self.dtype), None)

    def to(self, device: str | torch.device | None) -> RewardModel:
        """Run on ``device`` from now on (the model is loaded there on the next call)."""
        self.device = self._check_device(device)
        return self

    # ------------------------------------------------------------------ inputs
    def format_inputs(
        self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
    ) -> list[str] | list[tuple[str, str]]:
        """The model's inputs for these prompts and completions: texts, or text pairs.

        Takes the reward's arguments (``kwargs`` holds the dataset's columns as lists aligned
        with ``prompts``; keywords the template does not use are ignored).

        Raises
        ------
        ValueError
            When a placeholder names no column, or the lists' lengths differ.
        """
        n = len(prompts)
        if len(completions) != n:
            raise ValueError(
                f"prompts and completions must have the same length, got {n} and {len(completions)}"
            )
        columns: dict[str, Sequence[Any]] = {}
        specials: dict[str, str] = {}
        for key in self._names:
            if key in ("prompt", "completion"):
                continue
            if key in SPECIAL_TOKENS:
                specials[key] = self._special_token(key)
                continue
            if key not in kwargs:
                others = sorted(
                    k
                    for k, v in kwargs.items()
                    if isinstance(v, (list, tuple)) and k != "completion_ids"
                )
                got = ", ".join(others) if others else "no other column"
                raise ValueError(
                    f"template placeholder {{{key}}} names no column: the reward got prompts, "
                    f"completions and {got}; TRL passes the prompt dataset's other columns "
                    f"as keywords, so add a {key!r} column to the prompts"
                )
            values = kwargs[key]
            if not isinstance(values, Sequence) or isinstance(values, str) or len(values) != n:
                size = len(values) if isinstance(values, Sequence) else type(values).__name__
                raise ValueError(
                    f"column {key!r} must be a list with one value per prompt ({n}), got {size}"
                )
            columns[key] = values
        formatter = string.Formatter()
        out: list[Any] = []
        for row in range(n):
            fields: dict[str, Any] = dict(specials)
            fields["prompt"] = _as_text(prompts[row], what="prompts")
            fields["completion"] = _as_text(completions[row], what="completions")
            fields.update({key: values[row] for key, values in columns.items()})
            if isinstance(self.template, str):
                out.append(formatter.vformat(self.template, (), fields))
            else:
                out.append(tuple(formatter.vformat(t, (), fields) for t in self.template))
        return out

    def _special_token(self, key: str) -> str:
        _, tokenizer = self.load()
        token = getattr(tokenizer, key, None)
        if not token:
            raise ValueError(
                f"template uses {{{key}}}, but the tokenizer of {self.path_or_name!r} has no {key}"
            )
        return str(token)

    # ------------------------------------------------------------------ scoring
    def score_inputs(self, inputs: Sequence[str] | Sequence[tuple[str, str]]) -> list[float]:
        """Scores of ready-made model inputs (texts, or text pairs), in batches.

        Returns
        -------
        list of float
            ``logit[i]`` (minus ``logit[j]``) per input, in the inputs' order.
        """
        import torch

        if len(inputs) == 0:
            return []
        model, tokenizer = self.load()
        device = self.resolved_device
        limits = [self.max_length, getattr(tokenizer, "model_max_length", None)]
        for attr in ("n_positions", "max_position_embeddings"):
            limits.append(getattr(model.config, attr, None))
        max_length = min(v for v in limits if isinstance(v, int) and v > 0)
        pairs = not isinstance(inputs[0], str)

        def size(k: int) -> int:
            item = inputs[k]
            return len(item) if isinstance(item, str) else sum(len(t) for t in item)

        order = sorted(range(len(inputs)), key=size)
        i, j = self._index
        scores = [0.0] * len(inputs)
        tokenizer.truncation_side = self.truncation_side
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                rows = order[start : start + self.batch_size]
                if pairs:
                    first = [inputs[k][0] for k in rows]
                    second = [inputs[k][1] for k in rows]
                    encoded = tokenizer(
                        first,
                        second,
                        padding=True,
                        padding_side="right",
                        truncation="longest_first",
                        max_length=max_length,
                        return_tensors="pt",
                    )
                else:
                    encoded = tokenizer(
                        [inputs[k] for k in rows],
                        padding=True,
                        padding_side="right",
                        truncation=True,
                        max_length=max_length,
                        return_tensors="pt",
                    )
                encoded = {key: value.to(device) for key, value in encoded.items()}
                logits = model(**encoded).logits.float()
                values = logits[:, i] if j is None else logits[:, i] - logits[:, j]
                for k, v in zip(rows, values.tolist(), strict=True):
                    scores[k] = float(v)
        return scores

    def __call__(
        self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
    ) -> list[float]:
        """One reward per completion (TRL's reward-function signature)."""
        if len(prompts) == 0 and len(completions) == 0:
            return []
        return self.score_inputs(self.format_inputs(prompts, completions, **kwargs))

    # ------------------------------------------------------------------ plumbing
    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.path_or_name!r}, score={self.score!r}, "
            f"template={self.template!r})"
        )
