"""Throughput and memory of the LLM pipeline: seconds per RL step, per 64 completions and per
epoch, peak memory, and the GPU-hours of the paper's protocol, for TRL's defaults and for the
levers :class:`paretosurf.llm.LLMSolver` pulls, side by side in one run.

Everything runs on random models built on the spot (:mod:`paretosurf.llm.toy`), so no model
hub is needed: a policy of the tiny shape or of Qwen2.5-0.5B's, and GPT-2 and BART sequence
classifiers, tiny or of the paper's reward models' sizes (GPT-2 small, BART large), scored as
the paper scores them (logit 0 of ``summary <bos> post``; ``logit[1] - logit[0]`` of
``summary </s></s> post``). Random weights change nothing in the cost of a step, except that
a random policy never stops early: every completion is ``max_new_tokens`` long.

Variants (each runs in a fresh process, so memory peaks and compile caches are its own):

* ``trl-defaults``: TRL's ``RLOOConfig`` defaults (gradient checkpointing on, bf16 autocast
  on a GPU) and TRL's generation through the unmerged adapter;
* ``no-checkpointing``: the same without gradient checkpointing;
* ``merged``: the solver's defaults: no checkpointing, generation with the adapter merged
  into the base weights (:func:`paretosurf.llm.generation.merged_adapter`);
* ``merged-static``: ``merged`` with a static KV cache (``cache_implementation="static"``).

All variants train the same objective on the same data with the same budget. Each variant
first makes one warm-up call (loads the models, fills caches), then times a call of
``--steps`` RL steps that warm-starts from it, as a SURF round does. A separate generation
probe times ``model.generate`` alone: the bare base model, the unmerged and the merged adapter.

Examples
--------
CPU, tiny models (about a minute)::

    python benchmarks/bench_llm.py

One GPU, the paper's sizes in bfloat16 (a few minutes)::

    python benchmarks/bench_llm.py --device cuda --shape qwen2.5-0.5b --rewards paper \\
        --dtype bfloat16 --adapters lora,dora --out bench-output/llm
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

VARIANTS: dict[str, dict[str, Any]] = {
    "trl-defaults": {"merged_generation": False, "trainer_args": {"gradient_checkpointing": True}},
    "no-checkpointing": {"merged_generation": False, "trainer_args": {}},
    "merged": {"merged_generation": True, "trainer_args": {}},
    "merged-static": {"merged_generation": True,
                      "trainer_args": {"cache_implementation": "static"}},
}
GPU_DEFAULT_VARIANTS = "trl-defaults,no-checkpointing,merged,merged-static"
CPU_DEFAULT_VARIANTS = "trl-defaults,merged"


# ---------------------------------------------------------------------------- models
def build_models(root: Path, shape: str, rewards: str, seed: int = 0) -> dict[str, str]:
    """Random policy, reward models and a tokenizer covering the policy's vocabulary."""
    from transformers.utils import logging as hf_logging

    from paretosurf.llm.toy import MODEL_SHAPES, toy_causal_lm, toy_reward_model, toy_tokenizer

    hf_logging.disable_progress_bar()
    vocab = MODEL_SHAPES[shape].get("vocab_size")
    tok = toy_tokenizer(root / "tokenizer", vocab_size=vocab)
    return {
        "policy": str(toy_causal_lm(root / "policy", tok, shape=shape, seed=seed)),
        "quality": str(toy_reward_model(root / "quality", tok, kind="gpt2", size=rewards,
                                        seed=seed + 1)),
        "faithfulness": str(toy_reward_model(root / "faithfulness", tok, kind="bart",
                                             size=rewards, seed=seed + 2)),
    }


def prompt_rows(n: int, words: int, seed: int = 0) -> dict[str, list[str]]:
    """``n`` posts of ``words`` words (+-20%) as a prompt column and a post column."""
    from paretosurf.llm.toy import toy_texts

    posts = toy_texts(n, seed=seed, min_words=max(1, int(0.8 * words)),
                      max_words=max(1, int(1.2 * words)))
    return {"prompt": posts, "post": posts}


# ---------------------------------------------------------------------------- workers
def _peak_memory(device: str) -> dict[str, float]:
    import torch

    if device.startswith("cuda"):
        return {"peak_gib": torch.cuda.max_memory_allocated() / 2**30,
                "peak_reserved_gib": torch.cuda.max_memory_reserved() / 2**30}
    return {"peak_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}


def _device(name: str) -> str:
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return name


def run_variant(args: argparse.Namespace, models: dict[str, str]) -> dict[str, Any]:
    """One variant: a warm-up call, then a timed call of ``args.steps`` RL steps."""
    import torch
    from datasets import Dataset

    from paretosurf.llm import LLMSolver, RewardModel

    device = _device(args.device)
    if device == "cpu":
        torch.set_num_threads(args.threads)
    variant = VARIANTS[args.worker]
    trainer_args = dict(variant["trainer_args"])
    if args.dtype == "bfloat16" and device.startswith("cuda"):
        trainer_args["bf16"] = True  # TRL's default on a GPU; the solver's is off
    rm_dtype = args.dtype if device.startswith("cuda") else None
    rewards = [
        RewardModel(models["quality"], score="logit", template="{completion} {bos_token} {post}",
                    device=device, dtype=rm_dtype, name="quality", batch_size=64),
        RewardModel(models["faithfulness"], score=("diff", 1, 0),
                    template=("{completion}", "{post}"), device=device, dtype=rm_dtype,
                    name="faithfulness", batch_size=64),
    ]
    prompts = Dataset.from_dict(prompt_rows(args.prompts, args.prompt_words, seed=1))
    with tempfile.TemporaryDirectory() as work:
        solver = LLMSolver(
            models["policy"], rewards, prompts, steps=args.warmup_steps, adapter=args.adapter,
            rank=16, lora_alpha=32, learning_rate=5e-5, batch_size=args.batch_size,
            mini_batch_size=args.mini_batch_size, num_generations=args.num_generations,
            min_new_tokens=args.min_new_tokens, max_new_tokens=args.max_new_tokens,
            eval_batches=1, eval_batch_size=args.batch_size, device=device, dtype=args.dtype,
            workdir=work, merged_generation=variant["merged_generation"],
            trainer_args=trainer_args)
        warm = solver.solve(0.5, None)
        solver.steps = args.steps
        if device.startswith("cuda"):
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        sol = solver.solve(0.5, warm.state)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
    seconds = sol.info["seconds"]
    steps = int(sol.info["steps"])
    if steps != args.steps:
        raise RuntimeError(f"the timed call made {steps} steps, not {args.steps}")
    per_round = args.batch_size // args.mini_batch_size
    return {
        "variant": args.worker, "adapter": args.adapter, "device": device,
        "gpu": torch.cuda.get_device_name() if device.startswith("cuda") else None,
        "s_per_step": seconds["train"] / steps,
        "s_per_generation_round": seconds["train"] / steps * per_round,
        "eval_s_per_completion": seconds["eval"] / args.batch_size,
        "setup_s": seconds["setup"], "kl": sol.info["kl"],
        "warmup_first_step_kl": sol.info["train_log"][0].get("kl") if sol.info["train_log"]
        else None,
        **_peak_memory(device),
    }


def run_generation_probe(args: argparse.Namespace, models: dict[str, str]) -> dict[str, Any]:
    """Seconds per ``batch_size`` completions of ``max_new_tokens`` tokens: base model,
    unmerged adapter, merged adapter (median of ``--repeats``)."""
    import statistics

    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, GenerationConfig, PreTrainedTokenizerFast

    from paretosurf.llm.generation import merged_adapter

    device = _device(args.device)
    if device == "cpu":
        torch.set_num_threads(args.threads)
    dtype = getattr(torch, args.dtype)
    tok = PreTrainedTokenizerFast.from_pretrained(models["policy"])
    base: Any = AutoModelForCausalLM.from_pretrained(models["policy"], dtype=dtype)
    base.to(device)
    torch.manual_seed(0)
    model = get_peft_model(base, LoraConfig(r=16, lora_alpha=32, target_modules="all-linear",
                                            use_dora=args.adapter == "dora",
                                            task_type="CAUSAL_LM", init_lora_weights=False))
    model.eval()
    texts = prompt_rows(args.batch_size, args.prompt_words, seed=2)["prompt"]
    batch = tok(texts, return_tensors="pt", padding=True).to(device)
    config = GenerationConfig(max_new_tokens=args.max_new_tokens,
                              min_new_tokens=args.max_new_tokens, do_sample=True,
                              pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)

    def timed(context: Any) -> float:
        times = []
        for _ in range(args.repeats + 1):  # the first is a warm-up
            if device.startswith("cuda"):
                torch.cuda.synchronize()
            tic = time.perf_counter()
            with torch.no_grad(), context():
                model.generate(**batch, generation_config=config)
            if device.startswith("cuda"):
                torch.cuda.synchronize()
            times.append(time.perf_counter() - tic)
        return statistics.median(times[1:])

    return {
        "adapter": args.adapter, "prompt_tokens": int(batch["input_ids"].shape[1]),
        "base_s": timed(model.disable_adapter),
        "unmerged_s": timed(contextlib.nullcontext),
        "merged_s": timed(lambda: merged_adapter(model)),
    }


# ---------------------------------------------------------------------------- driver
def _worker_command(args: argparse.Namespace, worker: str, adapter: str, models: Path,
                    result: Path) -> list[str]:
    keep = ["--device", args.device, "--dtype", args.dtype, "--steps", str(args.steps),
            "--warmup-steps", str(args.warmup_steps), "--batch-size", str(args.batch_size),
            "--mini-batch-size", str(args.mini_batch_size),
            "--num-generations", str(args.num_generations),
            "--min-new-tokens", str(args.min_new_tokens),
            "--max-new-tokens", str(args.max_new_tokens), "--prompts", str(args.prompts),
            "--prompt-words", str(args.prompt_words), "--threads", str(args.threads),
            "--repeats", str(args.repeats)]
    return [sys.executable, __file__, *keep, "--worker", worker, "--adapter", adapter,
            "--models", str(models), "--result", str(result)]


def _run_worker(args: argparse.Namespace, worker: str, adapter: str,
                models: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        return _run_worker_in(args, worker, adapter, models, Path(scratch) / "result.json")


def _run_worker_in(args: argparse.Namespace, worker: str, adapter: str, models: Path,
                   result: Path) -> dict[str, Any]:
    tic = time.perf_counter()
    try:
        proc = subprocess.run(_worker_command(args, worker, adapter, models, result),
                              capture_output=True, text=True, timeout=args.worker_timeout)
        failed = proc.returncode != 0
        tail = (proc.stdout + proc.stderr)[-3000:]
    except subprocess.TimeoutExpired:
        failed, tail = True, f"timed out after {args.worker_timeout} s"
    wall = time.perf_counter() - tic
    if failed or not result.exists():
        print(f"  {worker} ({adapter}) FAILED after {wall:.0f} s:\n{tail}", flush=True)
        return {"variant": worker, "adapter": adapter, "error": tail[-600:]}
    row = json.loads(result.read_text())
    row["wall_s"] = wall
    print(f"  {worker} ({adapter}) done in {wall:.0f} s: {json.dumps(row)}", flush=True)
    return row


def _epoch_minutes(row: dict[str, Any], args: argparse.Namespace) -> float:
    """One epoch of one slot: the generation rounds of ``epoch_prompts * num_generations``
    completions, plus the call's set-up and its evaluation of ``eval_completions``."""
    rounds = args.epoch_prompts * args.num_generations / args.batch_size
    seconds = (rounds * row["s_per_generation_round"] + row["setup_s"]
               + args.eval_completions * row["eval_s_per_completion"])
    return seconds / 60


def report(rows: list[dict[str, Any]], probes: list[dict[str, Any]],
           args: argparse.Namespace) -> str:
    from paretosurf.llm import Protocol

    epochs = Protocol().gpu_epochs()
    lines = [f"LLM pipeline, {args.shape} policy, {args.rewards} reward models, {args.dtype}, "
             f"device {rows[0].get('gpu') or rows[0].get('device', args.device)}",
             f"batch {args.batch_size} completions ({args.num_generations} per prompt) of "
             f"{args.max_new_tokens} tokens, mini-batch {args.mini_batch_size}, prompts of "
             f"~{args.prompt_words} words, LoRA/DoRA r16; timed call: {args.steps} steps",
             f"epoch = {args.epoch_prompts} prompts x {args.num_generations} completions, "
             f"+ an evaluation of {args.eval_completions} completions; protocol slot-epochs: "
             + ", ".join(f"{k} {v}" for k, v in epochs.items())
             + " (hours below: one device per slot-epoch)", ""]
    head = (f"{'variant':<18}{'adapter':<8}{'s/step':>8}{'s/64 compl':>11}{'peak GiB':>9}"
            f"{'min/epoch':>10}{'Uniform-w h':>12}{'SURF h':>8}{'speed-up':>9}")
    lines += [head, "-" * len(head)]
    base: dict[str, float] = {}
    for row in rows:
        if "error" not in row and row["variant"] == "trl-defaults":
            base[row["adapter"]] = _epoch_minutes(row, args)
    for row in rows:
        if "error" in row:
            lines.append(f"{row['variant']:<18}{row['adapter']:<8}  failed: "
                         f"{row['error'].strip().splitlines()[-1][:80]}")
            continue
        minutes = _epoch_minutes(row, args)
        row["min_per_epoch"] = minutes
        row["gpu_hours"] = {k: v * minutes / 60 for k, v in epochs.items()}
        per64 = row["s_per_generation_round"] * 64 / args.batch_size
        speed = (f"{base[row['adapter']] / minutes:.2f}x" if row["adapter"] in base else "")
        lines.append(f"{row['variant']:<18}{row['adapter']:<8}{row['s_per_step']:>8.3f}"
                     f"{per64:>11.2f}{row['peak_gib']:>9.2f}{minutes:>10.2f}"
                     f"{row['gpu_hours']['Uniform-w']:>12.2f}{row['gpu_hours']['SURF']:>8.2f}"
                     f"{speed:>9}")
    if probes:
        lines += ["", f"generation alone: {args.batch_size} completions of "
                      f"{args.max_new_tokens} tokens (median of {args.repeats})",
                  f"{'adapter':<8}{'prompt tok':>11}{'base s':>8}{'unmerged s':>11}"
                  f"{'merged s':>9}{'merged/unmerged':>16}"]
        for p in probes:
            if "error" in p:
                lines.append(f"{p['adapter']:<8} failed")
                continue
            lines.append(f"{p['adapter']:<8}{p['prompt_tokens']:>11}{p['base_s']:>8.3f}"
                         f"{p['unmerged_s']:>11.3f}{p['merged_s']:>9.3f}"
                         f"{p['unmerged_s'] / p['merged_s']:>15.2f}x")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N")
    parser.add_argument("--shape", default="tiny", choices=["tiny", "qwen2.5-0.5b"])
    parser.add_argument("--rewards", default=None, choices=["tiny", "paper"],
                        help="reward model sizes (default: paper with the qwen shape)")
    parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    parser.add_argument("--variants", default=None,
                        help=f"comma-separated, of {', '.join(VARIANTS)}")
    parser.add_argument("--adapters", default="lora", help="lora, dora or lora,dora")
    parser.add_argument("--steps", type=int, default=8, help="RL steps of the timed call")
    parser.add_argument("--warmup-steps", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--mini-batch-size", type=int, default=16)
    parser.add_argument("--num-generations", type=int, default=4)
    parser.add_argument("--min-new-tokens", type=int, default=16)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--prompts", type=int, default=256)
    parser.add_argument("--prompt-words", type=int, default=None,
                        help="words (tokens) per prompt; default 300 with the qwen shape, "
                             "else 20")
    parser.add_argument("--epoch-prompts", type=int, default=4096)
    parser.add_argument("--eval-completions", type=int, default=640)
    parser.add_argument("--threads", type=int, default=1, help="torch threads on a CPU")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-probe", action="store_true", help="skip the generation probe")
    parser.add_argument("--worker-timeout", type=float, default=900.0)
    parser.add_argument("--models", type=Path, default=None,
                        help="folder of the random models (built if missing)")
    parser.add_argument("--out", type=Path, default=None, help="write results.json and "
                        "report.txt here")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--adapter", default="lora", help=argparse.SUPPRESS)
    parser.add_argument("--result", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.rewards is None:
        args.rewards = "paper" if args.shape != "tiny" else "tiny"
    if args.prompt_words is None:
        args.prompt_words = 300 if args.shape != "tiny" else 20
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    if args.worker is not None:  # a worker process
        models = json.loads((args.models / "models.json").read_text())
        try:
            row = (run_generation_probe(args, models) if args.worker == "probe"
                   else run_variant(args, models))
        except Exception:
            traceback.print_exc()
            return 1
        args.result.write_text(json.dumps(row, indent=1))
        return 0

    import torch

    device = _device(args.device)
    if device == "cpu":
        torch.set_num_threads(args.threads)
    if args.dtype == "bfloat16" and device == "cpu":
        print("note: bfloat16 on a CPU is slow; float32 is the CPU's figure", flush=True)
    names = (args.variants or (GPU_DEFAULT_VARIANTS if device.startswith("cuda")
                               else CPU_DEFAULT_VARIANTS)).split(",")
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; choose from {list(VARIANTS)}")
    adapters = args.adapters.split(",")
    if not set(adapters) <= {"lora", "dora"}:
        parser.error("--adapters takes lora, dora or lora,dora")
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-llm-"))
    out.mkdir(parents=True, exist_ok=True)
    models_dir = args.models or out / f"models-{args.shape}-{args.rewards}"
    if not (models_dir / "models.json").exists():
        tic = time.perf_counter()
        models = build_models(models_dir, args.shape, args.rewards)
        (models_dir / "models.json").write_text(json.dumps(models))
        print(f"built random models in {time.perf_counter() - tic:.0f} s", flush=True)
    args.device = device
    rows = [_run_worker(args, name, adapter, models_dir)
            for adapter in adapters for name in names
            if not (adapter == "dora" and name in ("no-checkpointing", "merged-static"))]
    probes = ([] if args.no_probe else
              [_run_worker(args, "probe", adapter, models_dir) for adapter in adapters])
    text = report(rows, probes, args)
    print("\n" + text, flush=True)
    (out / "report.txt").write_text(text + "\n")
    (out / "results.json").write_text(json.dumps({"args": {k: str(v) for k, v in
                                                           vars(args).items()},
                                                  "variants": rows, "generation": probes},
                                                 indent=1))
    print(f"\nresults in {out}")
    return 0 if all("error" not in r for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
