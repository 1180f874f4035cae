"""How :class:`~paretosurf.llm.LLMSolver` estimates an adapter's objectives.

One completion is sampled for each of ``eval_batches * eval_batch_size`` evaluation prompts (a
fixed seeded draw, :func:`eval_rows`), scored by the two rewards, and its sequence KL to the base
model measured (:func:`score_batch`, :func:`completion_logps`); :func:`estimates` turns them into
the objectives ``-(mean r_m - beta*KL)`` with standard errors, overall and per batch.

The functions take the solver's settings as a resolved
:class:`~paretosurf.llm.LLMSolverConfig` (:meth:`~paretosurf.llm.LLMSolverConfig.resolved`), and
its rewards and training prompts as arguments; they know nothing of the solver itself.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from paretosurf.llm._checks import _is_conversation
from paretosurf.llm._streams import stream_seed
from paretosurf.llm.generation import merged_adapter, samples_merged
from paretosurf.llm.model_loading import templated_prompts

if TYPE_CHECKING:  # pragma: no cover - typing only
    from collections.abc import Callable, Sequence

    from paretosurf.llm.model_cache import _Session
    from paretosurf.llm.solver_config import LLMSolverConfig

__all__ = ["completion_logps", "estimates", "eval_rows", "evaluate_model", "score_batch"]

FloatArray = np.ndarray

#: The evaluation's random stream (distinct from every call's).
EVAL_STREAM = 0x5EED


def eval_rows(
    config: LLMSolverConfig, prompts: Sequence[Any], tokenizer: Any = None
) -> list[dict[str, Any]]:
    """The evaluation's prompts (rows with the dataset's other columns): a seeded draw of
    ``eval_batches * eval_batch_size`` from ``config.eval_prompts`` (or, without them, the
    training ``prompts``), every prompt once before any repeats, through the chat template
    when it applies (:func:`~paretosurf.llm.model_loading.templated_prompts`)."""
    source = prompts if config.eval_prompts is None else config.eval_prompts
    n = config.eval_batches * config.eval_batch_size
    rng = np.random.default_rng([config.seed, EVAL_STREAM])
    order = np.concatenate([rng.permutation(len(source)) for _ in range(-(-n // len(source)))])[:n]
    if isinstance(source[0], dict):  # a dataset's rows, with all its columns
        rows = [dict(source[int(i)]) for i in order]
    else:
        rows = [{"prompt": source[int(i)]} for i in order]
    return templated_prompts(rows, tokenizer, config.chat_template)


def evaluate_model(
    config: LLMSolverConfig,
    sess: _Session,
    *,
    rewards: Sequence[Callable[..., Any]],
    prompts: Sequence[Any],
) -> dict[str, Any]:
    """Sample one completion per evaluation prompt (:func:`eval_rows`) from ``sess.peft``,
    score it with the two ``rewards`` and estimate the objectives, with standard errors."""
    import torch

    model, tok = sess.peft, sess.tokenizer
    rows = eval_rows(config, prompts, tok)
    scores = np.full((len(rows), 2), np.nan)
    kl = np.zeros(len(rows))
    eos = _eos_ids(model, tok)
    devices = [torch.device(sess.device)] if sess.device.startswith("cuda") else []
    merged = samples_merged(config.merged_generation, sess.base.model)
    was_training = model.training
    model.eval()
    try:
        with torch.random.fork_rng(devices=devices):
            for b in range(config.eval_batches):
                lo = b * config.eval_batch_size
                batch = rows[lo : lo + config.eval_batch_size]
                torch.manual_seed(stream_seed(config.seed, EVAL_STREAM, b))
                out = score_batch(
                    config, rewards, model, tok, batch, eos, sess.device, merged=merged
                )
                scores[lo : lo + len(batch)] = out[0]
                kl[lo : lo + len(batch)] = out[1]
    finally:
        model.train(was_training)
    return estimates(scores, kl, config.beta, config.eval_batch_size)


def score_batch(
    config: LLMSolverConfig,
    rewards: Sequence[Callable[..., Any]],
    model: Any,
    tok: Any,
    batch: list[dict[str, Any]],
    eos: list[int],
    device: str,
    *,
    merged: bool = True,
) -> tuple[FloatArray, FloatArray]:
    """Sample one completion per row of ``batch`` from ``model`` and return the two
    ``rewards`` of each (len(batch), 2) and the completions' sequence KLs to the base model
    (len(batch),)."""
    import torch
    from transformers import GenerationConfig

    prompts = [row["prompt"] for row in batch]
    conversational = _is_conversation(prompts[0])
    if conversational:
        ids = tok.apply_chat_template(
            conversation=prompts, add_generation_prompt=True, tokenize=True, return_dict=True
        )["input_ids"]
    else:
        ids = tok(text=prompts)["input_ids"]
    pad = tok.pad_token_id
    width = max(len(x) for x in ids)
    prompt_ids = torch.full((len(ids), width), pad, dtype=torch.long)
    prompt_mask = torch.zeros((len(ids), width), dtype=torch.long)
    for i, x in enumerate(ids):
        if len(x):
            prompt_ids[i, width - len(x) :] = torch.tensor(x)
            prompt_mask[i, width - len(x) :] = 1
    prompt_ids, prompt_mask = prompt_ids.to(device), prompt_mask.to(device)
    sampling = GenerationConfig(
        max_new_tokens=config.max_new_tokens,
        min_new_tokens=config.min_new_tokens,
        do_sample=True,
        temperature=config.temperature,
        top_p=1.0,
        top_k=0,
        pad_token_id=pad,
        bos_token_id=tok.bos_token_id,
        eos_token_id=eos,
        **{k: v for k, v in ((config.trainer_args or {}).get("generation_kwargs") or {}).items()},
    )
    merging = merged_adapter(model) if merged else contextlib.nullcontext()
    with torch.no_grad(), merging:
        full = model.generate(
            input_ids=prompt_ids, attention_mask=prompt_mask, generation_config=sampling
        )
    completion = full[:, width:]
    is_eos = torch.isin(completion, torch.tensor(eos, device=completion.device))
    first = torch.where(
        is_eos.any(1),
        is_eos.int().argmax(1),
        torch.full_like(is_eos[:, 0], completion.size(1), dtype=torch.long),
    )
    positions = torch.arange(completion.size(1), device=completion.device)
    completion_mask = (positions[None, :] <= first[:, None]).long()
    completion = completion.masked_fill(completion_mask == 0, pad)
    completion_ids = [
        c[m.bool()].tolist() for c, m in zip(completion.cpu(), completion_mask.cpu(), strict=True)
    ]
    texts = tok.batch_decode(completion_ids, skip_special_tokens=True)
    completions: list[Any] = (
        [[{"role": "assistant", "content": t}] for t in texts] if conversational else texts
    )
    logps = completion_logps(config, model, prompt_ids, prompt_mask, completion, completion_mask)
    with model.disable_adapter():
        ref = completion_logps(config, model, prompt_ids, prompt_mask, completion, completion_mask)
    kl = ((logps - ref) * completion_mask).sum(1).double().cpu().numpy()
    columns = {
        k: [row[k] for row in batch]
        for k in batch[0]
        if k not in ("prompt", "completion", "completion_ids")
    }
    scores = np.empty((len(batch), 2))
    for m, func in enumerate(rewards):
        values = list(
            func(
                prompts=prompts,
                completions=completions,
                completion_ids=completion_ids,
                trainer_state=None,
                log_extra=_ignore,
                log_metric=_ignore,
                **columns,
            )
        )
        if len(values) != len(batch):
            raise ValueError(
                f"reward r{m + 1} returned {len(values)} rewards for {len(batch)} completions"
            )
        scores[:, m] = [np.nan if v is None else float(v) for v in values]
    return scores, kl


def completion_logps(
    config: LLMSolverConfig,
    model: Any,
    prompt_ids: Any,
    prompt_mask: Any,
    completion: Any,
    completion_mask: Any,
) -> Any:
    """Per-token log-probabilities of the completion tokens under ``model`` at the
    sampling temperature, in chunks of ``micro_batch_size`` rows."""
    import torch

    micro = config.micro_batch_size or config.mini_batch_size  # its default, if not resolved
    input_ids = torch.cat([prompt_ids, completion], dim=1)
    attention = torch.cat([prompt_mask, completion_mask], dim=1)
    keep = completion.size(1)
    out = []
    with torch.no_grad():
        for lo in range(0, input_ids.size(0), micro):
            rows = slice(lo, lo + micro)
            try:
                logits = model(
                    input_ids=input_ids[rows],
                    attention_mask=attention[rows],
                    logits_to_keep=keep + 1,
                ).logits
            except TypeError:  # a model without logits_to_keep
                logits = model(input_ids=input_ids[rows], attention_mask=attention[rows]).logits[
                    :, -(keep + 1) :
                ]
            logits = logits[:, :-1].float() / config.temperature
            out.append(
                torch.log_softmax(logits, dim=-1)
                .gather(-1, completion[rows].unsqueeze(-1))
                .squeeze(-1)
            )
    return torch.cat(out, dim=0)


def _ignore(*args: Any, **kwargs: Any) -> None:
    """Stands in for TRL's ``log_extra``/``log_metric`` while the solver evaluates."""


def _eos_ids(model: Any, tok: Any) -> list[int]:
    """End-of-sequence ids as TRL takes them: the model's, and the tokenizer's."""
    ids = model.generation_config.eos_token_id
    out = [] if ids is None else [ids] if isinstance(ids, int) else list(ids)
    if tok.eos_token_id is not None and tok.eos_token_id not in out:
        out = [tok.eos_token_id, *out]
    return out


def _mean_se(values: FloatArray) -> tuple[float, float]:
    ok = values[np.isfinite(values)]
    if ok.size == 0:
        raise ValueError("every evaluation reward was None (not applicable)")
    se = float(ok.std(ddof=1) / math.sqrt(ok.size)) if ok.size > 1 else math.nan
    return float(ok.mean()), se


def estimates(rewards: FloatArray, kl: FloatArray, beta: float, batch_size: int) -> dict[str, Any]:
    """Objectives ``-(r_m - beta*kl)`` and their standard errors, from per-completion
    rewards (n, 2) and sequence KLs (n,); also per evaluation batch of ``batch_size``."""
    with_kl = -(rewards - beta * kl[:, None])
    objectives, stderr, no_kl, no_kl_se, means = [], [], [], [], []
    for m in range(2):
        mean, se = _mean_se(with_kl[:, m])
        objectives.append(mean)
        stderr.append(se)
        r_mean, r_se = _mean_se(rewards[:, m])
        means.append(r_mean)
        no_kl.append(-r_mean)
        no_kl_se.append(r_se)
    kl_mean, kl_se = _mean_se(kl)
    batches = range(0, len(kl), batch_size)
    with warnings.catch_warnings():  # a batch whose rewards were all None: nan
        warnings.simplefilter("ignore", RuntimeWarning)
        per_batch = [np.nanmean(with_kl[lo : lo + batch_size], axis=0).tolist() for lo in batches]
        per_batch_no_kl = [
            (-np.nanmean(rewards[lo : lo + batch_size], axis=0)).tolist() for lo in batches
        ]
    return {
        "objectives": np.array(objectives),
        "info": {
            "stderr": stderr,
            "objectives_no_kl": no_kl,
            "stderr_no_kl": no_kl_se,
            "rewards": means,
            "kl": kl_mean,
            "kl_stderr": kl_se,
            "n_eval": len(kl),
            "batch_objectives": per_batch,
            "batch_objectives_no_kl": per_batch_no_kl,
        },
    }
