"""load_prompts on local JSONL, CSV and Parquet files, a local stand-in for
openai/summarize_from_feedback, and the hub path (``datasets.load_dataset`` patched)."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

datasets = pytest.importorskip("datasets")
torch = pytest.importorskip("torch")
torch.set_num_threads(1)

from paretosurf.llm.prompts import (  # noqa: E402
    ALPACA_TEMPLATE,
    PAPER_TEMPLATE,
    SUMMARIZE_FROM_FEEDBACK,
    load_prompts,
)

from .tiny import WORDS, train_tokenizer  # noqa: E402


def post(i: int, length: int) -> str:
    """A distinct post of exactly ``length`` characters (words of the tiny vocabulary)."""
    words = [WORDS[(i * 7 + k) % len(WORDS)] for k in range(length)]
    text = f"{WORDS[i % len(WORDS)]} {i:03d} " + " ".join(words)
    return text[:length].rstrip().ljust(length, "x")


#: (post, extra) rows: lengths around the paper's bounds, and repeats of earlier posts
LENGTHS = [99, 100, 101, 600, 1200, 1201, 350, 40, 800, 150]
POSTS = [post(i, n) for i, n in enumerate(LENGTHS)]
ROWS = [(p, f"e{i}") for i, p in enumerate(POSTS)] + [(POSTS[3], "dup"), (POSTS[1], "dup")]
#: what the paper's filter keeps, in order: 100 to 1200 characters, bounds included
KEPT = [p for p in POSTS if 100 <= len(p) <= 1200]


def comparisons() -> list[dict[str, Any]]:
    """Rows in summarize_from_feedback's comparisons layout: each post compared several times,
    CNN/DM rows with an article and no post."""
    rows = []
    for k, text in enumerate(POSTS + POSTS[::-1]):
        i = POSTS.index(text)
        rows.append(
            {
                "info": {
                    "id": f"t3_{i:04d}",
                    "post": text,
                    "title": f"title {i}",
                    "subreddit": "tifu",
                    "site": None,
                    "article": None,
                },
                "summaries": [
                    {"text": f"summary {k}a", "policy": "ref", "note": None},
                    {"text": f"summary {k}b", "policy": "sup", "note": None},
                ],
                "choice": k % 2,
                "worker": f"w{k % 3}",
                "batch": "batch3",
                "split": "train",
            }
        )
        if k == 4:
            rows.append(
                {
                    "info": {
                        "id": None,
                        "post": None,
                        "title": "news",
                        "subreddit": None,
                        "site": "cnn",
                        "article": "An article " * 20,
                    },
                    "summaries": [{"text": "s", "policy": "ref", "note": None}] * 2,
                    "choice": 0,
                    "worker": "w0",
                    "batch": "cnndm1",
                    "split": "valid1",
                }
            )
    return rows


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    root = tmp_path_factory.mktemp("prompts")
    table = datasets.Dataset.from_dict(
        {"text": [p for p, _ in ROWS], "extra": [e for _, e in ROWS]}
    )
    jsonl, csv, parquet = root / "posts.jsonl", root / "posts.csv", root / "posts.parquet"
    table.to_json(str(jsonl))
    table.to_csv(str(csv), index=False)
    table.to_parquet(str(parquet))
    sff = root / "summarize_jsonl" / "comparisons.jsonl"
    sff.parent.mkdir()
    sff.write_text("\n".join(json.dumps(r) for r in comparisons()) + "\n")
    sff_disk = root / "summarize_disk"
    datasets.DatasetDict({"train": datasets.Dataset.from_list(comparisons())}).save_to_disk(
        str(sff_disk)
    )
    finished = root / "finished.jsonl"
    finished.write_text(
        "\n".join(
            json.dumps({"prompt": f"Summarize: {p}", "post": p, "id": i})
            for i, p in enumerate(POSTS)
        )
        + "\n"
    )
    tokenizer = train_tokenizer(root / "tokenizer")
    bart_tokenizer = train_tokenizer(root / "bart_tokenizer", bart=True)  # adds <s> ... </s>
    return SimpleNamespace(
        jsonl=jsonl,
        csv=csv,
        parquet=parquet,
        sff=sff,
        sff_disk=sff_disk,
        finished=finished,
        tokenizer=tokenizer,
        bart_tokenizer=bart_tokenizer,
        root=root,
    )


# ---------------------------------------------------------------------------- file types
@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_each_file_type_gives_filtered_distinct_posts_in_the_template(files, kind) -> None:
    ds = load_prompts(getattr(files, kind), seed=None)
    assert ds.column_names == ["prompt", "post", "text", "extra"]
    assert ds["post"] == KEPT
    assert ds["prompt"] == [PAPER_TEMPLATE.format(post=p) for p in KEPT]
    assert ds["prompt"][0].startswith("Generate a one-sentence summary of this post.\n\n")
    assert "dup" not in ds["extra"]  # the repeats were dropped, the first copies kept


def test_filter_bounds_are_inclusive_and_can_be_dropped(files) -> None:
    lengths = sorted(len(p) for p in load_prompts(files.jsonl, seed=None)["post"])
    assert lengths == [100, 101, 150, 350, 600, 800, 1200]
    narrow = load_prompts(files.jsonl, min_chars=101, max_chars=600, seed=None)["post"]
    assert sorted(map(len, narrow)) == [101, 150, 350, 600]
    everything = load_prompts(files.jsonl, min_chars=None, max_chars=None, seed=None)
    assert everything["post"] == POSTS  # every distinct post, in file order


def test_n_first_posts_or_a_seeded_choice(files) -> None:
    first = load_prompts(files.parquet, n=3, seed=None)["post"]
    assert first == KEPT[:3]
    chosen = load_prompts(files.parquet, n=3, seed=0)["post"]
    assert len(chosen) == 3 and len(set(chosen)) == 3
    assert [p for p in KEPT if p in chosen] == chosen  # a subset, in file order
    assert load_prompts(files.parquet, n=3, seed=0)["post"] == chosen  # same seed, same posts
    draws = {tuple(load_prompts(files.parquet, n=3, seed=s)["post"]) for s in range(6)}
    assert len(draws) > 1
    assert load_prompts(files.parquet, n=100)["post"] == KEPT  # fewer than n: all of them


def test_finished_prompts_are_used_as_they_are(files) -> None:
    ds = load_prompts(files.finished, seed=None)
    assert ds.column_names == ["prompt", "post", "id"]
    assert ds["prompt"] == [f"Summarize: {p}" for p in KEPT]  # filtered on the post column
    assert ds["post"] == KEPT
    body = datasets.Dataset.from_dict({"body": POSTS, "prompt": ["old"] * len(POSTS)})
    ds = load_prompts(body, prompt_column="body", template="Sum up: {post}", seed=None)
    assert ds["prompt"] == [f"Sum up: {p}" for p in KEPT]
    raw = load_prompts(files.csv, template=None, seed=None)
    assert raw["prompt"] == raw["post"] == KEPT


# ---------------------------------------------------------------------------- summarize layout
def test_summarize_from_feedback_layout_from_disk_and_jsonl(files) -> None:
    for source in (files.sff_disk, files.sff, files.sff.parent):
        ds = load_prompts(source, seed=None)
        assert ds.column_names[:2] == ["prompt", "post"]
        assert "info" not in ds.column_names
        assert {"id", "title", "subreddit", "summaries", "choice"} <= set(ds.column_names)
        assert ds["post"] == KEPT  # CNN/DM rows (no post) and repeats are gone
        assert ds["id"] == [f"t3_{POSTS.index(p):04d}" for p in KEPT]
        assert ds["prompt"] == [PAPER_TEMPLATE.format(post=p) for p in KEPT]
    titled = load_prompts(files.sff_disk, template="{title}\n{post}\nTL;DR:", n=2, seed=None)
    assert titled["prompt"][0] == f"title {POSTS.index(KEPT[0])}\n{KEPT[0]}\nTL;DR:"


def test_hub_source_loads_the_comparisons_config(files, monkeypatch) -> None:
    calls: list[tuple[Any, ...]] = []
    stand_in = datasets.load_from_disk(str(files.sff_disk))["train"]

    def fake_load_dataset(path: str, name: str | None = None, *, split: str) -> Any:
        calls.append((path, name, split))
        return stand_in

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    ds = load_prompts(SUMMARIZE_FROM_FEEDBACK, n=4, seed=None)
    assert calls == [("openai/summarize_from_feedback", "comparisons", "train")]
    # the first 4 distinct posts of 100 to 1,200 characters, in the data's order
    want: list[str] = []
    for row in stand_in:
        text = row["info"]["post"]
        if text and 100 <= len(text) <= 1200 and text not in want:
            want.append(text)
    assert ds["post"] == want[:4]
    load_prompts("someone/other_posts", split="validation", seed=None)
    assert calls[-1] == ("someone/other_posts", None, "validation")


def test_dataset_objects_and_splits(files) -> None:
    table = datasets.Dataset.from_dict({"post": POSTS})
    assert load_prompts(table, seed=None)["post"] == KEPT
    both = datasets.DatasetDict({"train": table, "test": table.select([3])})
    assert load_prompts(both, split="test")["post"] == [POSTS[3]]
    with pytest.raises(ValueError, match=r"split 'valid' is not in .*\['test', 'train'\]"):
        load_prompts(both, split="valid")
    assert ALPACA_TEMPLATE.format(post="P").startswith("### Instruction: Generate a one-sentence")


# ---------------------------------------------------------------------------- truncation
def test_long_posts_are_cut_and_the_instruction_kept(files) -> None:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(files.tokenizer)

    def count(text: str) -> int:
        return len(tok(text)["input_ids"])

    limit = 60
    full = load_prompts(files.jsonl, seed=None)
    cut = load_prompts(files.jsonl, tokenizer=tok, max_prompt_tokens=limit, seed=None)
    head, tail = PAPER_TEMPLATE.split("{post}")
    assert cut.num_rows == full.num_rows
    n_cut = 0
    for prompt, short, original in zip(cut["prompt"], cut["post"], full["post"], strict=True):
        assert count(prompt) <= limit
        assert prompt == head + short + tail  # the instruction is whole
        assert original.startswith(short)
        if short != original:
            n_cut += 1
            assert count(prompt) == limit  # as much of the post as fits
    assert 0 < n_cut < len(KEPT)
    # a tokenizer that adds special tokens: they count, as when TRL encodes the prompt
    bart = AutoTokenizer.from_pretrained(files.bart_tokenizer)
    with_specials = load_prompts(files.jsonl, tokenizer=bart, max_prompt_tokens=limit, seed=None)
    lengths = [len(bart(p)["input_ids"]) for p in with_specials["prompt"]]
    assert max(lengths) == limit and bart(with_specials["prompt"][0])["input_ids"][0] == 1
    by_name = load_prompts(
        files.jsonl, tokenizer=str(files.tokenizer), max_prompt_tokens=limit, seed=None
    )
    assert by_name["prompt"] == cut["prompt"]
    with pytest.raises(ValueError, match="leaves no room for the post"):
        load_prompts(files.jsonl, tokenizer=tok, max_prompt_tokens=3)
    finished = load_prompts(files.finished, tokenizer=tok, max_prompt_tokens=limit, seed=None)
    assert finished.num_rows >= 1 and all(count(p) <= limit for p in finished["prompt"])
    assert finished.num_rows < len(KEPT)  # too-long finished prompts are left out, not cut


# ---------------------------------------------------------------------------- errors
def test_errors_name_the_argument_or_list_the_columns(files) -> None:
    table = datasets.Dataset.from_dict({"body": POSTS, "score": list(range(len(POSTS)))})
    with pytest.raises(ValueError, match=r"no text column.*\['body', 'score'\]"):
        load_prompts(table)
    with pytest.raises(ValueError, match=r"prompt_column 'content'.*\['body', 'score'\]"):
        load_prompts(table, prompt_column="content")
    with pytest.raises(TypeError, match="column 'score' must hold text"):
        load_prompts(table, prompt_column="score")
    with pytest.raises(ValueError, match=r"\{title\} names no column"):
        load_prompts(files.jsonl, template="{title}: {post}")
    with pytest.raises(ValueError, match=r"placeholder \{post\}"):
        load_prompts(files.jsonl, template="Summarize this.")
    with pytest.raises(ValueError, match="not a valid format string"):
        load_prompts(files.jsonl, template="{post")
    with pytest.raises(ValueError, match=r"no post .* passed the filter"):
        load_prompts(files.jsonl, min_chars=2000, max_chars=None)
    with pytest.raises(ValueError, match="n must be"):
        load_prompts(files.jsonl, n=0)
    with pytest.raises(ValueError, match="min_chars"):
        load_prompts(files.jsonl, min_chars=500, max_chars=100)
    with pytest.raises(ValueError, match="tokenizer and max_prompt_tokens go together"):
        load_prompts(files.jsonl, max_prompt_tokens=10)
    with pytest.raises(TypeError, match="seed"):
        load_prompts(files.jsonl, seed=1.5)
    text = Path(files.root) / "posts.txt"
    text.write_text("a post")
    with pytest.raises(ValueError, match=r"\.txt file; load_prompts reads \.jsonl"):
        load_prompts(text)
    with pytest.raises(TypeError, match="source"):
        load_prompts(42)
