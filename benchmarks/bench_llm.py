"""An honest speed table of RLOO fine-tuning: plain TRL ``RLOOTrainer`` (not our wrapper) at its
defaults and at its best documented settings, beside :class:`paretosurf.llm.LLMSolver`, on the
same device, in one run: seconds per RL step, set-up and evaluation seconds, peak memory, and
each variant's ratio to plain TRL at its best.

Variants:

* ``trl-defaults``: ``trl.RLOOTrainer(model=PATH, reward_funcs=..., args=RLOOConfig(...),
  peft_config=LoraConfig(...))`` with ``RLOOConfig``'s defaults for everything but the
  workload (gradient checkpointing on, bf16 where the device has it, vLLM off);
* ``trl-best``: the same trainer with the speed levers TRL documents for a policy that fits
  in memory, each where this machine can use it: gradient checkpointing off, bf16 on a GPU
  that has it, Liger kernels (``use_liger_kernel``: the ``liger-kernel`` package on CUDA) and
  vLLM generation in the trainer's process (``use_vllm=True, vllm_mode="colocate"``: vLLM on
  CUDA); the report names the levers that were on and why the others were off;
* ``paretosurf``: :class:`~paretosurf.llm.LLMSolver` at its defaults (no checkpointing,
  generation with the adapter merged into the base weights), bf16 on a GPU.

Every variant trains the same workload: the same policy, LoRA r16 on all linear layers, reward
callables, prompts (templated the same way: with a tokenizer that has a chat template, TRL gets
the prompts as the conversations the library's ``chat_template="auto"`` makes of them),
``reward_weights`` (0.5, 0.5), ``beta``, learning rate, completions per prompt, completions per
generation round (``--batch-size``), per optimizer step (``--mini-batch-size``) and their
length.

**Interleaved repeats.** The variants run in turns, A B C A B C ..., ``--repeats`` times, each
turn in a fresh process (its memory peak and caches its own; the order of runs cannot favour
one variant). A turn times, separately: its set-up (models loaded, trainer or solver built),
one warm-up generation round (kernels, caches), one training of ``--steps`` steps (rounded up
to whole generation rounds; the s/step figure) and an evaluation of ``--mini-batch-size``
held-out prompts (generation and both rewards: the solver's own, and the same for TRL's trained
model). The ratio to ``trl-best`` is the median over the repeats of each repeat's ratio.
Memory: ``torch.cuda.max_memory_allocated`` over the turn on CUDA, the process's peak RSS on a
CPU.

On a GPU (Qwen2.5-0.5B from a local folder or, online, the hub)::

    python benchmarks/bench_llm.py --model Qwen/Qwen2.5-0.5B-Instruct --device cuda \
        --rewards paper --steps 20 --repeats 3 --out bench-output/llm

or with a random policy of Qwen2.5-0.5B's shape (no hub): ``--shape qwen2.5-0.5b``.
CPU check, tiny offline models (a few minutes; what ``--device auto``, the default, runs where
no CUDA device is found)::

    python benchmarks/bench_llm.py --tiny --device cpu

``--smoke`` runs that CPU check at its smallest: one generation round, one turn per variant.
Results go to ``--out`` (default: a folder under the system's temporary folder):
``results.json``, and ``report.txt`` with everything printed.

A generation probe (``--probe``) also times ``model.generate`` alone: the bare base model, the
unmerged and the merged adapter.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _bench_io as bench_io

#: The variants; "trl" ones build plain ``trl.RLOOTrainer``s with these RLOOConfig fields on
#: top of the workload's (``None``: TRL's default, left unset).
VARIANTS: dict[str, dict[str, Any]] = {
    "trl-defaults": {"kind": "trl", "config": {}},
    "trl-best": {"kind": "trl", "config": {}},  # the levers: best_levers(device)
    "paretosurf": {"kind": "ours", "config": {}},
}
BASELINE = "trl-best"


# ---------------------------------------------------------------------------- models
def build_models(
    root: Path, shape: str, rewards: str, seed: int = 0, policy: str | None = None
) -> dict[str, str]:
    """Random reward models and, unless ``policy`` (a model folder or hub name) is given, a
    random policy of ``shape`` with a tokenizer covering its vocabulary."""
    from transformers.utils import logging as hf_logging

    from paretosurf.llm.toy import MODEL_SHAPES, toy_causal_lm, toy_reward_model, toy_tokenizer

    hf_logging.disable_progress_bar()
    vocab = MODEL_SHAPES[shape].get("vocab_size")
    tok = toy_tokenizer(root / "tokenizer", vocab_size=vocab)
    return {
        "policy": policy or str(toy_causal_lm(root / "policy", tok, shape=shape, seed=seed)),
        "quality": str(
            toy_reward_model(root / "quality", tok, kind="gpt2", size=rewards, seed=seed + 1)
        ),
        "faithfulness": str(
            toy_reward_model(root / "faithfulness", tok, kind="bart", size=rewards, seed=seed + 2)
        ),
    }


def prompt_rows(n: int, words: int, seed: int = 0) -> dict[str, list[str]]:
    """``n`` posts of ``words`` words (+-20%) as a prompt column and a post column."""
    from paretosurf.llm.toy import toy_texts

    posts = toy_texts(
        n, seed=seed, min_words=max(1, int(0.8 * words)), max_words=max(1, int(1.2 * words))
    )
    return {"prompt": posts, "post": posts}


# ---------------------------------------------------------------------------- workers
def _peak_memory(device: str) -> dict[str, float]:
    import torch

    if device.startswith("cuda"):
        return {
            "peak_gib": torch.cuda.max_memory_allocated() / 2**30,
            "peak_reserved_gib": torch.cuda.max_memory_reserved() / 2**30,
        }
    return {"peak_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}


def _device(name: str) -> str:
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return name


def _sync(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _rewards(args: argparse.Namespace, models: dict[str, str], device: str) -> list[Any]:
    """The paper's two reward models (random weights), scored as the paper scores them."""
    from paretosurf.llm import RewardModel

    rm_dtype = args.dtype if device.startswith("cuda") else None
    return [
        RewardModel(
            models["quality"],
            score="logit",
            template="{completion} {bos_token} {post}",
            device=device,
            dtype=rm_dtype,
            name="quality",
            batch_size=64,
        ),
        RewardModel(
            models["faithfulness"],
            score=("diff", 1, 0),
            template=("{completion}", "{post}"),
            device=device,
            dtype=rm_dtype,
            name="faithfulness",
            batch_size=64,
        ),
    ]


def _tokenizer(path: str) -> Any:
    """The policy's tokenizer as :class:`~paretosurf.llm.LLMSolver` loads it (a toy folder's
    plain fast tokenizer, else ``AutoTokenizer``)."""
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    config = Path(path) / "tokenizer_config.json"
    declared = json.loads(config.read_text()).get("tokenizer_class") if config.is_file() else None
    if declared in ("PreTrainedTokenizerFast", "TokenizersBackend"):
        tok = PreTrainedTokenizerFast.from_pretrained(path)
    else:
        tok = AutoTokenizer.from_pretrained(path)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def _rounded_steps(args: argparse.Namespace) -> tuple[int, int]:
    """Optimizer steps per generation round, and the timed steps rounded up to whole rounds."""
    per_round = args.batch_size // args.mini_batch_size
    return per_round, -(-args.steps // per_round) * per_round


def best_levers(device: str) -> tuple[dict[str, Any], list[str]]:
    """The ``RLOOConfig`` fields of TRL's speed levers that ``device`` can use, and a line per
    lever saying whether it is on and, if not, why."""
    import torch

    fields: dict[str, Any] = {"gradient_checkpointing": False, "logging_steps": 10}
    notes = ["gradient checkpointing off"]
    cuda = device.startswith("cuda")
    bf16 = cuda and torch.cuda.is_bf16_supported()
    fields["bf16"] = bf16
    notes.append("bf16 on" if bf16 else "bf16 off (no bf16 GPU)")
    if not cuda:
        notes.append("Liger kernels off (they need CUDA)")
    elif importlib.util.find_spec("liger_kernel") is None:
        notes.append("Liger kernels off (liger-kernel not installed)")
    else:
        fields["use_liger_kernel"] = True
        notes.append("Liger kernels on")
    if not cuda:
        notes.append("vLLM off (it needs CUDA)")
    elif importlib.util.find_spec("vllm") is None:
        notes.append("vLLM off (vllm not installed)")
    else:
        fields.update(use_vllm=True, vllm_mode="colocate")
        notes.append("vLLM colocate on")
    return fields, notes


def trl_prompts(rows: dict[str, list[str]], tok: Any) -> Any:
    """The prompts as TRL gets them: templated as :class:`~paretosurf.llm.LLMSolver` templates
    them at its default ``chat_template="auto"`` (conversations where the tokenizer has a
    chat template, which TRL then applies), so that both see the same model inputs."""
    from datasets import Dataset

    from paretosurf.llm import model_loading

    prompts = model_loading.templated_prompts(list(rows["prompt"]), tok, "auto")
    return Dataset.from_dict({**rows, "prompt": prompts})


def _trl_evaluate(
    trainer: Any, tok: Any, rows: dict[str, list[str]], args: argparse.Namespace
) -> list[float]:
    """Generate one completion per held-out prompt with the trained model and score it with
    both rewards (what the library's solver does after training, to estimate the
    objectives); returns the rewards' means."""
    import torch

    from paretosurf.llm import model_loading

    model = trainer.model
    model.eval()
    prompts = model_loading.templated_prompts(list(rows["prompt"]), tok, "auto")
    texts = [
        tok.apply_chat_template(p, tokenize=False, add_generation_prompt=True)
        if isinstance(p, list)
        else p
        for p in prompts
    ]
    tok.padding_side = "left"
    batch = tok(texts, return_tensors="pt", padding=True).to(model.device)
    with torch.no_grad():
        out = model.generate(
            **batch,
            max_new_tokens=args.max_new_tokens,
            min_new_tokens=args.min_new_tokens,
            do_sample=True,
            pad_token_id=tok.pad_token_id,
        )
    completions = tok.batch_decode(out[:, batch["input_ids"].shape[1] :], skip_special_tokens=True)
    means = []
    for reward in trainer.reward_funcs:
        scores = reward(prompts=prompts, completions=completions, post=rows["post"])
        means.append(float(sum(scores) / len(scores)))
    return means


def _trl_trainer(
    args: argparse.Namespace,
    variant: dict[str, Any],
    models: dict[str, str],
    rewards: list[Any],
    prompts: Any,
    tok: Any,
    device: str,
    steps: int,
    outdir: str,
) -> Any:
    """A plain ``trl.RLOOTrainer``: the workload's fields, the variant's, TRL's defaults."""
    from peft import LoraConfig
    from trl import RLOOConfig, RLOOTrainer

    fields = set(RLOOConfig.__dataclass_fields__)
    config: dict[str, Any] = {
        # the workload, as LLMSolver maps its arguments (solver.py, LLMSolver._trainer)
        "output_dir": outdir,
        "seed": args.seed,
        "use_cpu": device == "cpu",
        "max_steps": steps,
        "reward_weights": [0.5, 0.5],
        "beta": args.beta,
        "learning_rate": args.learning_rate,
        "num_generations": args.num_generations,
        "per_device_train_batch_size": args.mini_batch_size,
        "gradient_accumulation_steps": 1,
        "steps_per_generation": args.batch_size // args.mini_batch_size,
        "max_completion_length": args.max_new_tokens,
        "generation_kwargs": {"min_new_tokens": args.min_new_tokens},
        # no output: no reporting to installed trackers, no progress bars, no checkpoints
        "report_to": "none",
        "disable_tqdm": True,
        "save_strategy": "no",
    }
    extra = dict(variant["config"])
    if variant is VARIANTS["trl-best"]:
        extra.update(best_levers(device)[0])
        extra["model_init_kwargs"] = {"dtype": args.dtype}
    if "activation_checkpointing" in fields and "gradient_checkpointing" in extra:
        extra["activation_checkpointing"] = extra.pop("gradient_checkpointing")
    config.update({k: v for k, v in extra.items() if k in fields})
    peft = LoraConfig(
        r=16,
        lora_alpha=32,
        lora_dropout=0.05,
        target_modules="all-linear",
        use_dora=args.adapter == "dora",
        bias="none",
        task_type="CAUSAL_LM",
    )
    return RLOOTrainer(
        model=models["policy"],
        reward_funcs=rewards,
        args=RLOOConfig(**config),
        train_dataset=prompts,
        processing_class=tok,
        peft_config=peft,
    )


def run_variant(args: argparse.Namespace, models: dict[str, str]) -> dict[str, Any]:
    """One turn of a variant: set-up, a warm-up generation round, one timed training of
    ``--steps`` steps and an evaluation, each timed on its own."""
    import torch

    from paretosurf.llm import LLMSolver

    device = _device(args.device)
    if device == "cpu":
        torch.set_num_threads(args.threads)
    variant = VARIANTS[args.worker]
    if device.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats()
    rows = prompt_rows(args.prompts, args.prompt_words, seed=1)
    held_out = prompt_rows(args.mini_batch_size, args.prompt_words, seed=3)
    per_round, steps = _rounded_steps(args)
    levers: list[str] = []
    with tempfile.TemporaryDirectory() as work:
        tic = time.perf_counter()
        rewards = _rewards(args, models, device)
        if variant["kind"] == "ours":
            from datasets import Dataset

            trainer_args = (
                {"bf16": True}
                if (device.startswith("cuda") and torch.cuda.is_bf16_supported())
                else {}
            )
            solver = LLMSolver(
                models["policy"],
                rewards,
                Dataset.from_dict(rows),
                steps=per_round,
                adapter=args.adapter,
                rank=16,
                lora_alpha=32,
                beta=args.beta,
                learning_rate=args.learning_rate,
                batch_size=args.batch_size,
                mini_batch_size=args.mini_batch_size,
                num_generations=args.num_generations,
                min_new_tokens=args.min_new_tokens,
                max_new_tokens=args.max_new_tokens,
                eval_prompts=Dataset.from_dict(held_out),
                eval_batches=1,
                eval_batch_size=args.mini_batch_size,
                device=device,
                dtype=args.dtype,
                workdir=work,
                trainer_args=trainer_args,
                seed=args.seed,
            )
            warm = solver.solve(0.5, None)  # the solver loads its models in its first call
            times = warm.info["seconds"]
            setup = time.perf_counter() - tic - times["train"] - times.get("eval", 0.0)
            warmup = times["train"]
            solver.steps = steps
            sol = solver.solve(0.5, warm.state)
            if int(sol.info["steps"]) != steps:
                raise RuntimeError(f"a timed call made {sol.info['steps']} steps, not {steps}")
            train = sol.info["seconds"]["train"]
            evaluate = sol.info["seconds"]["eval"]
            kl = float(sol.info["kl"])
            levers = ["its defaults"]
        else:
            tok = _tokenizer(models["policy"])
            prompts = trl_prompts(rows, tok)
            if variant is VARIANTS["trl-best"]:
                levers = best_levers(device)[1]
            made: list[float] = []
            for n in (per_round, steps):  # a warm-up round, then the timed training
                trainer = _trl_trainer(
                    args, variant, models, rewards, prompts, tok, device, n, f"{work}/{len(made)}"
                )
                if not made:
                    setup = time.perf_counter() - tic
                _sync(device)
                train_tic = time.perf_counter()
                trainer.train()
                _sync(device)
                seconds = time.perf_counter() - train_tic
                if int(trainer.state.global_step) != n:
                    raise RuntimeError(f"TRL made {trainer.state.global_step} steps, not {n}")
                made.append(seconds)
                if len(made) == 1:
                    del trainer
                    if device.startswith("cuda"):
                        torch.cuda.empty_cache()
            warmup, train = made
            tic = time.perf_counter()
            _trl_evaluate(trainer, tok, held_out, args)
            _sync(device)
            evaluate = time.perf_counter() - tic
            kl = math.nan
    return {
        "variant": args.worker,
        "adapter": args.adapter,
        "device": device,
        "gpu": torch.cuda.get_device_name() if device.startswith("cuda") else None,
        "steps": steps,
        "setup_s": setup,
        "warmup_s": warmup,
        "s_per_step": train / steps,
        "eval_s": evaluate,
        "kl": kl,
        "levers": levers,
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
    model = get_peft_model(
        base,
        LoraConfig(
            r=16,
            lora_alpha=32,
            target_modules="all-linear",
            use_dora=args.adapter == "dora",
            task_type="CAUSAL_LM",
            init_lora_weights=False,
        ),
    )
    model.eval()
    texts = prompt_rows(args.batch_size, args.prompt_words, seed=2)["prompt"]
    batch = tok(texts, return_tensors="pt", padding=True).to(device)
    config = GenerationConfig(
        max_new_tokens=args.max_new_tokens,
        min_new_tokens=args.max_new_tokens,
        do_sample=True,
        pad_token_id=tok.pad_token_id,
        eos_token_id=tok.eos_token_id,
    )

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
        "adapter": args.adapter,
        "prompt_tokens": int(batch["input_ids"].shape[1]),
        "base_s": timed(model.disable_adapter),
        "unmerged_s": timed(contextlib.nullcontext),
        "merged_s": timed(lambda: merged_adapter(model)),
    }


# ---------------------------------------------------------------------------- driver
def _worker_command(
    args: argparse.Namespace, worker: str, adapter: str, models: Path, result: Path
) -> list[str]:
    keep = [
        "--device",
        args.device,
        "--dtype",
        args.dtype,
        "--steps",
        str(args.steps),
        "--batch-size",
        str(args.batch_size),
        "--mini-batch-size",
        str(args.mini_batch_size),
        "--num-generations",
        str(args.num_generations),
        "--min-new-tokens",
        str(args.min_new_tokens),
        "--max-new-tokens",
        str(args.max_new_tokens),
        "--prompts",
        str(args.prompts),
        "--prompt-words",
        str(args.prompt_words),
        "--threads",
        str(args.threads),
        "--repeats",
        str(args.repeats),
        "--beta",
        str(args.beta),
        "--learning-rate",
        str(args.learning_rate),
        "--seed",
        str(args.seed),
    ]
    return [
        sys.executable,
        __file__,
        *keep,
        "--worker",
        worker,
        "--adapter",
        adapter,
        "--models",
        str(models),
        "--result",
        str(result),
    ]


def _run_worker(
    args: argparse.Namespace, worker: str, adapter: str, models: Path
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        return _run_worker_in(args, worker, adapter, models, Path(scratch) / "result.json")


def _run_worker_in(
    args: argparse.Namespace, worker: str, adapter: str, models: Path, result: Path
) -> dict[str, Any]:
    tic = time.perf_counter()
    try:
        proc = subprocess.run(
            _worker_command(args, worker, adapter, models, result),
            capture_output=True,
            text=True,
            timeout=args.worker_timeout,
        )
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
    print(f"  {worker} ({adapter}) done in {wall:.0f} s", flush=True)
    return row


def summarize(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One summary per (variant, adapter) over its turns: medians of s/step, set-up,
    warm-up, evaluation and peak memory, the s/step range, and the median over the repeats
    of each repeat's ratio of ``trl-best``'s s/step to the variant's (> 1: faster)."""
    import statistics

    out: list[dict[str, Any]] = []
    keys = list(dict.fromkeys((r["variant"], r["adapter"]) for r in rows))
    for variant, adapter in keys:
        turns = [r for r in rows if (r["variant"], r["adapter"]) == (variant, adapter)]
        ok = [r for r in turns if "error" not in r]
        if not ok:
            out.append({"variant": variant, "adapter": adapter, "error": turns[-1]["error"]})
            continue
        base = {
            r["repeat"]: r["s_per_step"]
            for r in rows
            if (r["variant"], r["adapter"]) == (BASELINE, adapter) and "error" not in r
        }
        ratios = [base[r["repeat"]] / r["s_per_step"] for r in ok if r["repeat"] in base]
        per_step = [r["s_per_step"] for r in ok]
        out.append(
            {
                "variant": variant,
                "adapter": adapter,
                "turns": len(ok),
                "failed_turns": len(turns) - len(ok),
                "s_per_step": statistics.median(per_step),
                "s_per_step_range": [min(per_step), max(per_step)],
                "ratio": statistics.median(ratios) if ratios else math.nan,
                **{
                    k: statistics.median(r[k] for r in ok)
                    for k in ("setup_s", "warmup_s", "eval_s", "peak_gib")
                },
                "levers": ok[0]["levers"],
                "gpu": ok[0].get("gpu"),
                "device": ok[0]["device"],
            }
        )
    return out


def report(
    summary: list[dict[str, Any]], probes: list[dict[str, Any]], args: argparse.Namespace
) -> str:
    """The side-by-side table: median s/step (min-max over the turns), the median ratio of
    plain TRL-at-its-best's time to each variant's (> 1: faster than it), set-up, warm-up and
    evaluation seconds, peak memory."""
    from paretosurf.llm import Protocol

    ok = [r for r in summary if "error" not in r]
    where = (ok[0].get("gpu") or ok[0]["device"]) if ok else args.device
    _, steps = _rounded_steps(args)
    per_epoch = args.epoch_prompts * args.num_generations / args.mini_batch_size
    lines = [
        f"RLOO steps, {args.policy_label}, {args.rewards} reward models, base {args.dtype}, "
        f"device {where}",
        f"workload: {args.batch_size} completions per generation round "
        f"({args.num_generations} per prompt) of {args.min_new_tokens}-"
        f"{args.max_new_tokens} tokens, {args.mini_batch_size} per optimizer step, prompts "
        f"of ~{args.prompt_words} words, LoRA r16 all-linear; variants interleaved over "
        f"{args.repeats} repeat(s), each turn a fresh process: set-up, a warm-up round, "
        f"{steps} timed steps, an evaluation of {args.mini_batch_size} prompts; medians",
        f"min/epoch: {args.epoch_prompts} prompts x {args.num_generations} completions = "
        f"{per_epoch:.0f} steps, training only (no set-up, no evaluation); the protocol "
        f"trains {Protocol().budget_text()} slot-epochs",
        "",
    ]
    head = (
        f"{'variant':<14}{'adapter':<8}{'s/step':>9}{'(min-max)':>17}"
        f"{'vs ' + BASELINE:>14}{'set-up s':>10}{'warm-up s':>10}{'eval s':>8}"
        f"{'peak GiB':>10}{'min/epoch':>10}"
    )
    lines += [head, "-" * len(head)]
    for row in summary:
        if "error" in row:
            lines.append(
                f"{row['variant']:<14}{row['adapter']:<8}  failed: "
                f"{row['error'].strip().splitlines()[-1][:80]}"
            )
            continue
        low, high = row["s_per_step_range"]
        ratio = "-" if math.isnan(row["ratio"]) else f"{row['ratio']:.2f}x"
        lines.append(
            f"{row['variant']:<14}{row['adapter']:<8}{row['s_per_step']:>9.4f}"
            f"{f'({low:.3f}-{high:.3f})':>17}{ratio:>14}{row['setup_s']:>10.1f}"
            f"{row['warmup_s']:>10.1f}{row['eval_s']:>8.2f}{row['peak_gib']:>10.2f}"
            f"{row['s_per_step'] * per_epoch / 60:>10.1f}"
        )
        if row["failed_turns"]:
            lines.append(f"{'':<22}({row['failed_turns']} turn(s) failed)")
    lines.append("")
    for row in ok:
        lines.append(f"{row['variant']} ({row['adapter']}): {', '.join(row['levers'])}")
    lines.append(
        "vs trl-best: the median over the repeats of each repeat's ratio; peak GiB: "
        "torch.cuda.max_memory_allocated over the turn on CUDA, the process's peak RSS on a "
        "CPU (models, data and Python included)"
    )
    if probes:
        lines += [
            "",
            f"generation alone: {args.batch_size} completions of "
            f"{args.max_new_tokens} tokens (median of {args.repeats})",
            f"{'adapter':<8}{'prompt tok':>11}{'base s':>8}{'unmerged s':>11}"
            f"{'merged s':>9}{'merged/unmerged':>16}",
        ]
        for p in probes:
            if "error" in p:
                lines.append(f"{p['adapter']:<8} failed")
                continue
            lines.append(
                f"{p['adapter']:<8}{p['prompt_tokens']:>11}{p['base_s']:>8.3f}"
                f"{p['unmerged_s']:>11.3f}{p['merged_s']:>9.3f}"
                f"{p['unmerged_s'] / p['merged_s']:>15.2f}x"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--tiny",
        action="store_true",
        help="tiny offline models (paretosurf.llm.toy) and a small workload "
        "for a CPU check: --shape tiny --rewards tiny, batch 16, "
        "mini-batch 8, 8-16 new tokens",
    )
    parser.add_argument(
        "--model",
        default=None,
        help="the policy: a model folder or hub name (default: a random model of --shape)",
    )
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N")
    parser.add_argument(
        "--shape",
        default="qwen2.5-0.5b",
        choices=["tiny", "qwen2.5-0.5b"],
        help="the random policy's shape (without --model)",
    )
    parser.add_argument(
        "--rewards",
        default=None,
        choices=["tiny", "paper"],
        help="reward model sizes (default: paper, tiny with --tiny)",
    )
    parser.add_argument(
        "--dtype",
        default=None,
        choices=["float32", "bfloat16"],
        help="the base model's dtype (default: bfloat16 on CUDA, else float32)",
    )
    parser.add_argument(
        "--variants", default=",".join(VARIANTS), help=f"comma-separated, of {', '.join(VARIANTS)}"
    )
    parser.add_argument("--adapters", default="lora", help="lora, dora or lora,dora")
    parser.add_argument(
        "--steps",
        type=int,
        default=20,
        help="RL steps per timed training (at least 20; rounded up to whole generation rounds)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed trainings (at least 3)")
    parser.add_argument("--batch-size", type=int, default=None)
    parser.add_argument("--mini-batch-size", type=int, default=None)
    parser.add_argument("--num-generations", type=int, default=4)
    parser.add_argument("--min-new-tokens", type=int, default=None)
    parser.add_argument("--max-new-tokens", type=int, default=None)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--learning-rate", type=float, default=5e-5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--prompts", type=int, default=256)
    parser.add_argument(
        "--prompt-words",
        type=int,
        default=None,
        help="words (tokens) per prompt; default 300, 20 with --tiny",
    )
    parser.add_argument("--epoch-prompts", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=1, help="torch threads on a CPU")
    parser.add_argument("--probe", action="store_true", help="also time generation alone")
    parser.add_argument("--worker-timeout", type=float, default=1800.0)
    parser.add_argument(
        "--models", type=Path, default=None, help="folder of the random models (built if missing)"
    )
    bench_io.add_options(
        parser, "llm", smoke="--tiny on the CPU, one generation round, one timed training"
    )
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--adapter", default="lora", help=argparse.SUPPRESS)
    parser.add_argument("--result", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker is None:
        bench_io.start(args, parser)
        if args.smoke:
            args.tiny, args.steps, args.repeats, args.prompts = True, 1, 1, 16
            args.device = "cpu" if args.device == "auto" else args.device
        elif args.device == "auto" and not args.tiny and args.model is None:
            if _device("auto") == "cpu":
                print(
                    "no CUDA device: the CPU check (--tiny) instead; --device cpu runs the "
                    "paper's sizes on the CPU (hours)",
                    flush=True,
                )
                args.tiny = True
    small = {
        "batch_size": 16,
        "mini_batch_size": 8,
        "min_new_tokens": 8,
        "max_new_tokens": 16,
        "prompt_words": 20,
    }
    large = {
        "batch_size": 64,
        "mini_batch_size": 16,
        "min_new_tokens": 16,
        "max_new_tokens": 32,
        "prompt_words": 300,
    }
    for key, value in (small if args.tiny else large).items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    if args.tiny:
        args.shape = "tiny"
    if args.rewards is None:
        args.rewards = "tiny" if args.tiny else "paper"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    if args.worker is not None:  # a worker process
        models = json.loads((args.models / "models.json").read_text())
        try:
            row = (
                run_generation_probe(args, models)
                if args.worker == "probe"
                else run_variant(args, models)
            )
        except Exception:
            traceback.print_exc()
            return 1
        args.result.write_text(json.dumps(row, indent=1))
        return 0

    if not args.smoke and (args.steps < 20 or args.repeats < 3):
        parser.error("--steps must be at least 20 and --repeats at least 3 (an honest median)")
    if args.batch_size % args.mini_batch_size or args.batch_size % args.num_generations:
        parser.error(
            "--batch-size must be a multiple of --mini-batch-size and of --num-generations"
        )
    import torch

    device = _device(args.device)
    if device == "cpu":
        torch.set_num_threads(args.threads)
    if args.dtype is None:
        args.dtype = "bfloat16" if device.startswith("cuda") else "float32"
    names = args.variants.split(",")
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; choose from {list(VARIANTS)}")
    adapters = args.adapters.split(",")
    if not set(adapters) <= {"lora", "dora"}:
        parser.error("--adapters takes lora, dora or lora,dora")
    args.policy_label = f"policy {args.model}" if args.model else f"random {args.shape} policy"
    out = args.out
    models_dir = args.models or out / f"models-{args.shape}-{args.rewards}"
    if not (models_dir / "models.json").exists():
        tic = time.perf_counter()
        models = build_models(models_dir, args.shape, args.rewards, policy=args.model)
        (models_dir / "models.json").write_text(json.dumps(models))
        print(f"built random models in {time.perf_counter() - tic:.0f} s", flush=True)
    args.device = device
    rows = []
    for repeat in range(args.repeats):  # A B C A B C ...: the order favours no variant
        for adapter in adapters:
            for name in names:
                print(f"repeat {repeat + 1}/{args.repeats}:", end=" ", flush=True)
                row = _run_worker(args, name, adapter, models_dir)
                rows.append({**row, "repeat": repeat})
    summary = summarize(rows)
    probes = (
        [_run_worker(args, "probe", adapter, models_dir) for adapter in adapters]
        if args.probe
        else []
    )
    text = report(summary, probes, args)
    print("\n" + text, flush=True)
    (out / "results.json").write_text(
        json.dumps(
            {
                "args": {k: str(v) for k, v in vars(args).items()},
                "variants": summary,
                "turns": rows,
                "generation": probes,
            },
            indent=1,
        )
    )
    print(f"\nresults in {out}")
    return 0 if all("error" not in r for r in summary) else 1


if __name__ == "__main__":
    sys.exit(main())
