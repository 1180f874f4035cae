"""Prompt datasets for LLM alignment: Reddit posts turned into summarization prompts.

:func:`load_prompts` returns a ``datasets.Dataset`` with a ``"prompt"`` column (what the policy
is asked) and a ``"post"`` column (the raw text the prompt was built from, which reward models
such as :meth:`~paretosurf.llm.rewards.RewardModel.faithfulness` read), plus the source's other
columns. TRL trainers read ``"prompt"`` and pass every other column to the rewards as keywords.
:class:`~paretosurf.llm.LLMSolver` keeps a dataset's rows as plain dicts
(:func:`prompt_records`), so that a solver pickles into worker processes and Ray tasks: a
dataset made by ``select`` or ``add_column`` holds Arrow tables whose pickle cannot be replayed
in another process (``ArrowInvalid``).

The paper's prompts (Table 2) are 4,096 distinct posts of ``openai/summarize_from_feedback``
(its ``comparisons`` configuration, training split) of 100 to 1,200 characters, each put in
:data:`PAPER_TEMPLATE`. The same steps apply to any source:

1. load: a hub dataset (``datasets.load_dataset``), a folder saved with
   ``Dataset.save_to_disk``, a folder of data files, or a ``.jsonl``/``.json``, ``.csv`` or
   ``.parquet`` file;
2. find the text: the ``prompt_column`` you name; else a ``"prompt"`` column, taken as finished
   prompts; else summarize_from_feedback's layout, a struct column ``"info"`` whose ``"post"``
   field holds the post (its other fields become columns: ``id``, ``title``, ``subreddit``, ...);
   else a ``"post"`` or ``"text"`` column;
3. keep posts of ``min_chars`` to ``max_chars`` characters (bounds included), drop repeats of a
   post (the comparisons data holds each post several times) and keep ``n`` of them;
4. format each post through ``template`` (placeholders: ``{post}`` and any column, such as
   ``{title}``); with a ``tokenizer`` and ``max_prompt_tokens``, cut the end of a post that
   would make its prompt longer, never the instruction around it.

Examples
--------
>>> import json, tempfile
>>> from pathlib import Path
>>> from paretosurf.llm.prompts import load_prompts
>>> rows = [{"text": "My cat learned to open the fridge. " * 4, "source": "a"},
...         {"text": "Too short.", "source": "b"}]
>>> with tempfile.TemporaryDirectory() as folder:
...     path = Path(folder) / "posts.jsonl"
...     _ = path.write_text("\\n".join(json.dumps(r) for r in rows))
...     ds = load_prompts(path)
>>> ds.column_names, ds.num_rows
(['prompt', 'post', 'text', 'source'], 1)
>>> print(ds[0]["prompt"][:61])
Generate a one-sentence summary of this post.
<BLANKLINE>
My cat learned
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from paretosurf._utils.validation import check_non_negative_int, check_positive_int
from paretosurf.llm.templates import template_fields

if TYPE_CHECKING:
    import datasets

__all__ = [
    "ALPACA_TEMPLATE",
    "PAPER_TEMPLATE",
    "SUMMARIZE_FROM_FEEDBACK",
    "load_prompts",
    "prompt_records",
]

#: The paper's prompt source on the hub.
SUMMARIZE_FROM_FEEDBACK = "openai/summarize_from_feedback"

#: The instruction put around each post: the paper asks for a one-sentence summary of the post
#: (its exact wording is not published; this is the library's fixed choice).
PAPER_TEMPLATE = "Generate a one-sentence summary of this post.\n\n{post}\n\nSummary:"

#: The same instruction in the Alpaca layout that Rewarded Soups (Rame et al., 2023), whose
#: reward pair and post filter the paper follows, used for LLaMA (with the post's newlines
#: replaced by spaces).
ALPACA_TEMPLATE = (
    "### Instruction: Generate a one-sentence summary of this post. "
    "### Input: {post} ### Response: "
)

_SUFFIX_BUILDERS = {".jsonl": "json", ".json": "json", ".csv": "csv", ".parquet": "parquet"}
_TEXT_COLUMNS = ("post", "text")


# --------------------------------------------------------------------------- loading
def _config_for(name: str) -> str | None:
    """The configuration to load: summarize_from_feedback's posts are in ``comparisons``."""
    return "comparisons" if name.rstrip("/\\").endswith("summarize_from_feedback") else None


def _pick_split(loaded: Any, split: str, source: object) -> datasets.Dataset:
    import datasets

    if isinstance(loaded, datasets.DatasetDict):
        if split not in loaded:
            raise ValueError(
                f"split {split!r} is not in {source!r}; its splits are {sorted(loaded)}"
            )
        return loaded[split]
    if not isinstance(loaded, datasets.Dataset):
        raise TypeError(f"{source!r} did not load as a datasets.Dataset, got {type(loaded)}")
    return loaded


def _load_source(source: object, split: str) -> datasets.Dataset:
    import datasets

    if isinstance(source, (datasets.Dataset, datasets.DatasetDict)):
        return _pick_split(source, split, "the dataset")
    if not isinstance(source, (str, os.PathLike)) or not str(source):
        raise TypeError(
            "source must be a hub dataset name, a file or folder path, or a datasets.Dataset, "
            f"got {source!r}"
        )
    path = Path(source)
    if path.is_dir():
        if any((path / f).exists() for f in ("dataset_dict.json", "state.json")):
            return _pick_split(datasets.load_from_disk(str(path)), split, source)
        return _pick_split(
            datasets.load_dataset(str(path), _config_for(path.name), split=split), split, source
        )
    if path.is_file():
        suffix = path.suffix.lower()
        if suffix not in _SUFFIX_BUILDERS:
            raise ValueError(
                f"source {str(source)!r} is a {suffix or 'suffix-less'} file; load_prompts "
                f"reads {', '.join(_SUFFIX_BUILDERS)} files, folders and hub datasets"
            )
        return _pick_split(
            datasets.load_dataset(
                _SUFFIX_BUILDERS[suffix], data_files={split: str(path)}, split=split
            ),
            split,
            source,
        )
    name = str(source)
    return _pick_split(datasets.load_dataset(name, _config_for(name), split=split), split, source)


# --------------------------------------------------------------------------- text
def _text_or_none(value: object, column: str, row: int) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"column {column!r} must hold text, got {type(value).__name__} in row {row}")


def _column_texts(ds: datasets.Dataset, column: str) -> list[str | None]:
    """The column's texts; a struct column gives its ``post`` field (summarize layout)."""
    values = ds[column]
    out: list[str | None] = []
    for row, value in enumerate(values):
        if isinstance(value, dict):
            if "post" not in value:
                raise ValueError(
                    f"column {column!r} holds records without a 'post' field "
                    f"(fields {sorted(value)}); name a text column with prompt_column"
                )
            value = value["post"]
        out.append(_text_or_none(value, column, row))
    return out


def _is_info_layout(ds: datasets.Dataset, column: str) -> bool:
    feature = ds.features.get(column)
    return isinstance(feature, dict) and "post" in feature


def _placeholders(template: str) -> tuple[str, ...]:
    names = template_fields(template, name="template", hint="use {post} and column names")
    if "post" not in names:
        raise ValueError(f"template must contain the placeholder {{post}}, got {template!r}")
    return tuple(names)


# --------------------------------------------------------------------------- truncation
def _formatter(template: str | None, fields: dict[str, Any]) -> Callable[[str], str]:
    """The function that puts a post (and this row's other fields) into ``template``."""
    if template is None:
        return lambda post: post
    return lambda post: template.format(**fields, post=post)


def _count(tokenizer: Any, text: str) -> int:
    """Tokens of a prompt as TRL encodes it (``tokenizer(text)``: default special tokens)."""
    return len(tokenizer(text)["input_ids"])


def _token_ends(tokenizer: Any, text: str) -> list[int]:
    """The character offset where each token of ``text`` ends (prefixes of ``text``)."""
    try:
        offsets = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)[
            "offset_mapping"
        ]
    except (NotImplementedError, ValueError, TypeError):  # a slow tokenizer: decode prefixes
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        return [len(tokenizer.decode(ids[: k + 1])) for k in range(len(ids))]
    ends: list[int] = []
    for _, end in offsets:
        ends.append(max(end, ends[-1] if ends else 0))
    return ends


def _fit(post: str, fmt: Callable[[str], str], tokenizer: Any, max_tokens: int) -> tuple[str, str]:
    """The prompt and the (cut) post, the prompt at most ``max_tokens`` tokens long."""
    prompt = fmt(post)
    excess = _count(tokenizer, prompt) - max_tokens
    if excess <= 0:
        return prompt, post
    ends = _token_ends(tokenizer, post)
    keep = len(ends) - excess
    while keep > 0:
        cut = post[: ends[keep - 1]]
        prompt = fmt(cut)
        excess = _count(tokenizer, prompt) - max_tokens
        if excess <= 0:
            return prompt, cut
        keep -= excess
    overhead = _count(tokenizer, fmt(""))
    raise ValueError(
        f"max_prompt_tokens={max_tokens} leaves no room for the post: the template alone takes "
        f"{overhead} tokens"
    )


# --------------------------------------------------------------------------- the entry point
def load_prompts(
    source: str | os.PathLike[str] | datasets.Dataset | datasets.DatasetDict,
    *,
    split: str = "train",
    n: int | None = 4096,
    prompt_column: str | None = None,
    min_chars: int | None = 100,
    max_chars: int | None = 1200,
    template: str | None = PAPER_TEMPLATE,
    tokenizer: Any = None,
    max_prompt_tokens: int | None = None,
    seed: int | None = 0,
) -> datasets.Dataset:
    """Summarization prompts from a hub dataset, a local file or folder, or a Dataset.

    Parameters
    ----------
    source : str, path-like, datasets.Dataset or datasets.DatasetDict
        ``"openai/summarize_from_feedback"`` (the paper's; loaded with its ``comparisons``
        configuration) or another hub dataset; a folder saved with ``save_to_disk`` or a folder
        of data files; a ``.jsonl``/``.json``, ``.csv`` or ``.parquet`` file; or a dataset.
        A local copy of summarize_from_feedback's layout (a struct column ``info`` with a
        ``post`` field) goes through the same steps as the hub's.
    split : str, default "train"
        The split to read (a single file is read as this split).
    n : int or None, default 4096
        How many distinct posts to keep (the paper's 4,096); None keeps all. Fewer are
        returned when fewer pass the filter.
    prompt_column : str, optional
        The column holding the text. A ``"prompt"`` column is taken as finished prompts (used
        as they are); any other column (default: summarize_from_feedback's ``info.post``, else
        ``"post"``, else ``"text"``) holds posts, formatted through ``template``.
    min_chars, max_chars : int or None, default 100 and 1200
        Keep posts of ``min_chars`` to ``max_chars`` characters, bounds included (the paper's
        filter); None drops a bound. Finished prompts are filtered on their ``"post"`` column
        when they have one, else on themselves.
    template : str or None, default :data:`PAPER_TEMPLATE`
        A format string with ``{post}`` (and optionally other columns, ``{title}`` say) that
        turns a post into a prompt; None uses the post as the prompt.
    tokenizer : tokenizer or str, optional
        The policy's tokenizer (or its name or folder), with ``max_prompt_tokens``.
    max_prompt_tokens : int, optional
        Longest prompt in tokens, counted as TRL encodes prompts (``tokenizer(prompt)``, with
        the special tokens the tokenizer adds by default).
        A post that makes its prompt longer is cut at a token boundary (its end goes); the
        instruction stays whole, and ``"post"`` holds the cut post the prompt shows. Finished
        prompts cannot be cut: longer ones are left out.
    seed : int or None, default 0
        Which ``n`` posts are kept when more pass the filter: a random choice with this seed
        (rows stay in the source's order); None keeps the first ``n``.

    Returns
    -------
    datasets.Dataset
        Columns ``"prompt"`` and ``"post"`` first, then the source's other columns (a
        summarize_from_feedback ``info`` struct is replaced by its fields).

    Raises
    ------
    ValueError
        When no column holds the text (the message lists the columns), the template lacks
        ``{post}`` or names a missing column, no post passes the filter, or
        ``max_prompt_tokens`` leaves no room for a post.

    Examples
    --------
    >>> import datasets
    >>> posts = datasets.Dataset.from_dict({"text": ["a" * 150, "b" * 150, "a" * 150, "c"]})
    >>> ds = load_prompts(posts, template="Summarize: {post}", seed=None)
    >>> ds.num_rows, ds[1]["prompt"][:13]  # the repeat and the 1-character post are gone
    (2, 'Summarize: bb')
    >>> load_prompts(datasets.Dataset.from_dict({"body": ["x"]}))
    Traceback (most recent call last):
    ...
    ValueError: source has no text column: name one with prompt_column (the columns are ['body']); load_prompts looks for 'prompt', an 'info' struct with a 'post' field, 'post' or 'text'
    """  # noqa: E501
    if not isinstance(split, str) or not split:
        raise TypeError(f"split must be a non-empty string, got {split!r}")
    if n is not None:
        n = check_positive_int(n, name="n")
    if min_chars is not None:
        min_chars = check_non_negative_int(min_chars, name="min_chars")
    if max_chars is not None:
        max_chars = check_non_negative_int(max_chars, name="max_chars")
    if min_chars is not None and max_chars is not None and min_chars > max_chars:
        raise ValueError(f"min_chars ({min_chars}) must not exceed max_chars ({max_chars})")
    if template is not None and not isinstance(template, str):
        raise TypeError(f"template must be a format string or None, got {template!r}")
    names = _placeholders(template) if template is not None else ("post",)
    if (tokenizer is None) != (max_prompt_tokens is None):
        raise ValueError(
            "tokenizer and max_prompt_tokens go together: give both to cut long posts, or neither"
        )
    if max_prompt_tokens is not None:
        max_prompt_tokens = check_positive_int(max_prompt_tokens, name="max_prompt_tokens")
    if isinstance(tokenizer, (str, os.PathLike)):
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(str(tokenizer))
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise TypeError(f"seed must be an integer or None, got {seed!r}")

    ds = _load_source(source, split)
    columns = list(ds.column_names)

    # 2. where the text is
    if prompt_column is not None:
        if prompt_column not in columns:
            raise ValueError(
                f"prompt_column {prompt_column!r} is not a column of the source; its columns "
                f"are {columns}"
            )
        column = prompt_column
    elif "prompt" in columns:
        column = "prompt"
    else:
        info = [c for c in columns if _is_info_layout(ds, c)]
        found = info[:1] or [c for c in _TEXT_COLUMNS if c in columns][:1]
        if not found:
            raise ValueError(
                "source has no text column: name one with prompt_column (the columns are "
                f"{columns}); load_prompts looks for 'prompt', an 'info' struct with a 'post' "
                "field, 'post' or 'text'"
            )
        column = found[0]
    finished = column == "prompt"
    texts = _column_texts(ds, column)
    if finished and "post" in columns:
        posts = _column_texts(ds, "post")
    else:
        posts = texts

    # 3. filter, deduplicate, choose n
    kept: list[int] = []
    seen: set[str] = set()
    n_text = 0
    for row, (text, post) in enumerate(zip(texts, posts, strict=True)):
        if text is None or post is None:
            continue
        n_text += 1
        if (min_chars is not None and len(post) < min_chars) or (
            max_chars is not None and len(post) > max_chars
        ):
            continue
        key = text if finished else post
        if key in seen:
            continue
        if finished and max_prompt_tokens is not None:
            if _count(tokenizer, text) > max_prompt_tokens:
                continue
        seen.add(key)
        kept.append(row)
    if not kept:
        raise ValueError(
            f"no post of {source!r} passed the filter: {n_text} rows have text in {column!r}, "
            f"none of {min_chars} to {max_chars} characters"
            + (f" and at most {max_prompt_tokens} tokens" if finished and max_prompt_tokens else "")
            + "; widen min_chars/max_chars (None drops a bound)"
        )
    if n is not None and len(kept) > n:
        if seed is None:
            kept = kept[:n]
        else:
            chosen = np.random.default_rng(int(seed)).choice(len(kept), size=n, replace=False)
            kept = [kept[k] for k in sorted(chosen.tolist())]
    sub = ds.select(kept)
    chosen_texts = [texts[k] or "" for k in kept]
    chosen_posts = [posts[k] or "" for k in kept]

    # the summarize layout: the info struct's other fields become columns
    if _is_info_layout(sub, column):
        infos = sub[column]
        fields = [f for f in ds.features[column] if f != "post" and f not in columns]
        for field in fields:
            sub = sub.add_column(field, [record.get(field) for record in infos])
        sub = sub.remove_columns(column)

    # 4. format (and cut)
    if finished:
        prompts = chosen_texts
    else:
        others = [name for name in names if name != "post"]
        missing = [name for name in others if name not in sub.column_names]
        if missing:
            raise ValueError(
                f"template placeholder {{{missing[0]}}} names no column; the columns are "
                f"{sub.column_names} (and {{post}}, the post)"
            )
        values = {name: sub[name] for name in others}
        prompts, cut_posts = [], []
        for row, post in enumerate(chosen_posts):
            fmt = _formatter(template, {name: values[name][row] for name in others})
            if max_prompt_tokens is None:
                prompt, post_out = fmt(post), post
            else:
                prompt, post_out = _fit(post, fmt, tokenizer, max_prompt_tokens)
            prompts.append(prompt)
            cut_posts.append(post_out)
        chosen_posts = cut_posts

    # new columns go in before the old ones go out: a dataset never loses all its columns
    rest = [c for c in sub.column_names if c not in ("prompt", "post")]
    sub = sub.add_column("__prompt__", prompts).add_column("__post__", chosen_posts)
    sub = sub.remove_columns([c for c in ("prompt", "post") if c in sub.column_names])
    sub = sub.rename_columns({"__prompt__": "prompt", "__post__": "post"})
    return sub.select_columns(["prompt", "post", *rest])


def prompt_records(data: Any) -> list[dict[str, Any]]:
    """The rows of a prompt dataset as plain dicts (column name to value), which pickle into
    any process.

    A ``datasets.Dataset`` does not travel: one made by ``select``, ``add_column`` and the like
    (as :func:`load_prompts` makes them) pickles as the steps that built it, and replaying them
    in a worker process fails (``ArrowInvalid``). Its rows, as plain Python values, do.

    Parameters
    ----------
    data : datasets.Dataset or sequence of dict
        Prompts with a ``"prompt"`` column (rows that are dicts with a ``"prompt"`` key).

    Returns
    -------
    list of dict
        One dict per row, with every column (``"post"``, ``"title"``, ...), in row order.

    Raises
    ------
    ValueError
        When a row has no ``"prompt"``.

    Examples
    --------
    >>> import datasets, pickle
    >>> from paretosurf.llm.prompts import prompt_records
    >>> ds = datasets.Dataset.from_dict({"prompt": ["a", "b", "c"], "post": ["x", "y", "z"]})
    >>> rows = prompt_records(ds.select([2, 0]))
    >>> rows
    [{'prompt': 'c', 'post': 'z'}, {'prompt': 'a', 'post': 'x'}]
    >>> pickle.loads(pickle.dumps(rows)) == rows
    True
    """
    to_list = getattr(data, "to_list", None)
    if callable(to_list) and hasattr(data, "column_names"):
        if "prompt" not in data.column_names:
            raise ValueError(
                f"the prompts are a dataset without a 'prompt' column (columns: "
                f"{list(data.column_names)})"
            )
        rows = to_list()
    else:
        rows = list(data)
    out: list[dict[str, Any]] = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or "prompt" not in row:
            raise ValueError(
                f"prompt row {i} must be a dict with a 'prompt' key, got {type(row).__name__}"
            )
        out.append(dict(row))
    return out
