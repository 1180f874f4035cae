"""After a run: ``paretosurf llm assess DIR`` (the saved adapters assessed again, sample
completions, resumable) and ``paretosurf llm export DIR`` (a folder per front point with its
adapter or merged model, weight, objectives and model card), on a run folder laid out as
``run_protocol`` leaves it, with adapters trained briefly on the tiny LM."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paretosurf import cli
from paretosurf.llm.assess import assess_run
from paretosurf.llm.config import load_config
from paretosurf.llm.protocol_run import (
    RUN_RECORD,
    NotAProtocolRun,
    ProtocolRun,
    folder_digest,
    record_run,
)

from .tiny import FAST_OPTIONS, synthetic_texts

CONFIG = """
model = "{model}"
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
n = 8
eval_n = 8
min_chars = 0
template = "{{post}}"

[solver]
epochs = 1
beta = 0.05
rank = 4
lora_alpha = 8
lora_dropout = 0.0
batch_size = 8
mini_batch_size = 4
num_generations = 4
min_new_tokens = 4
max_new_tokens = 8
eval_batches = 2
eval_batch_size = 4
device = "cpu"

[protocol]
n_segments = 2
warm_epochs = 0
uniform_epochs = 2
surf_init_epoch = 1
surf_rounds = 1
"""
METHODS = ("Uniform-w", "SURF", "Soup")


@pytest.fixture(scope="module")
def made_run(lm_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A finished run folder as ``run_protocol`` writes it (adapters/METHOD/slot-NN,
    results.json, run.json), its adapters two short trainings and their mixtures."""
    from paretosurf.llm import LLMSolver, WordCount

    root = tmp_path_factory.mktemp("after-run")
    posts = root / "posts.jsonl"
    posts.write_text(
        "".join(
            json.dumps({"post": " ".join(t.split()[:6])}) + "\n"
            for t in synthetic_texts(16, seed=5)
        )
    )
    config_file = root / "tiny.toml"
    run = root / "run"
    config_file.write_text(CONFIG.format(model=lm_dir, out=run, prompts=posts))
    options = {**FAST_OPTIONS, "rank": 4, "lora_alpha": 8, "steps": 1}
    solver = LLMSolver(
        str(lm_dir),
        [WordCount("apple"), WordCount("berry")],
        ["apple berry the a of and"] * 8,
        workdir=root / "scratch",
        **options,
    )
    ends = [solver.solve(w, None).state for w in (0.0, 1.0)]
    weights = {"Uniform-w": [0.0, 0.5, 1.0], "SURF": [0.0, 0.375, 1.0], "Soup": [0.0, 0.5, 1.0]}
    methods = {}
    for m, label in enumerate(METHODS):
        for slot, w in enumerate(weights[label]):
            state = solver.interpolate(ends[0], ends[1], min(1.0, w + 0.1 * m) if 0 < w < 1 else w)
            solver.save_state(state, run / "adapters" / label / f"slot-{slot:02d}")
        points = [[-1.0 - w, -2.0 + w] for w in weights[label]]
        methods[label] = {
            "weights": weights[label],
            "points": points,
            "points_no_kl": [[a - 0.1, b - 0.1] for a, b in points],
        }
    results = {"methods": methods, "hv_ref": [0.5, 0.5], "hv_ref_no_kl": [0.5, 0.5]}
    (run / "results.json").write_text(json.dumps(results))
    (run / "table.md").write_text("| metric |\n")
    record_run(run, load_config(config_file), config_file)
    return run, config_file


@pytest.fixture
def run_copy(made_run: tuple[Path, Path], tmp_path: Path) -> Path:
    """A fresh copy of the run folder (tests write into it)."""
    return Path(shutil.copytree(made_run[0], tmp_path / "run"))


def files_of(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


# ---------------------------------------------------------------------------- assess
def test_assess_writes_samples_and_a_table_and_resumes(run_copy: Path, capsys: Any) -> None:
    status = cli.main(["llm", "assess", str(run_copy), "--samples", "3"])
    out, err = capsys.readouterr()
    assert status == 0, err
    folder = run_copy / "assess"
    assert out.strip() == (folder / "table.md").read_text().strip()
    assert "| Soup | 2 | 1 |" in out and "count_apple" in out and "gap ratio" in out
    lines = [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]
    assert len(lines) == 9 * 3
    assert {(s["method"], s["slot"]) for s in lines} == {(m, k) for m in METHODS for k in range(3)}
    for sample in lines:
        assert set(sample) == {"method", "slot", "weight", "prompt", "completion", "rewards"}
        assert isinstance(sample["prompt"], str) and isinstance(sample["completion"], str)
        words = sample["completion"].lower().split()
        assert sample["rewards"] == {
            "count_apple": float(words.count("apple")),
            "count_berry": float(words.count("berry")),
        }
    summary = json.loads((folder / "assessment.json").read_text())
    first = summary["points"][0]
    assert (first["method"], first["slot"], first["weight"]) == ("Uniform-w", 0, 0.0)
    assert first["run_objectives"] == [-1.0, -2.0]
    assert first["estimates"]["n_eval"] == 8 and len(first["estimates"]["batch_objectives"]) == 2
    # each record keeps every evaluation completion; its rewards are the estimates' means
    record = json.loads((folder / "points" / "SURF" / "slot-01.json").read_text())
    rewards = np.array([s["rewards"] for s in record["samples"]])
    assert rewards.shape == (8, 2)
    np.testing.assert_allclose(rewards.mean(axis=0), record["estimates"]["rewards"])
    assert set(summary["scores"]) == set(METHODS)

    # again: nothing assessed, the same bytes
    before = files_of(folder)
    assert cli.main(["llm", "assess", str(run_copy), "--samples", "3"]) == 0
    assert "assessed 0 adapter(s), 9 in all" in capsys.readouterr().err
    assert files_of(folder) == before

    # an adapter that changed is assessed again, alone
    shutil.copytree(
        run_copy / "adapters" / "SURF" / "slot-02",
        run_copy / "adapters" / "SURF" / "slot-01",
        dirs_exist_ok=True,
    )
    assert cli.main(["llm", "assess", str(run_copy), "--samples", "3"]) == 0
    assert "assessed 1 adapter(s), 9 in all" in capsys.readouterr().err


def test_the_assessment_is_the_solvers(made_run: tuple[Path, Path], tmp_path: Path) -> None:
    run, config_file = made_run
    copy = Path(shutil.copytree(run, tmp_path / "run"))
    solver = load_config(config_file).build_solver(tmp_path / "work")
    found = assess_run(solver, copy, methods=["Soup"], samples=0)
    assert [(r["method"], r["slot"]) for r in found.records] == [("Soup", k) for k in range(3)]
    assert (copy / "assess" / "samples.jsonl").read_text() == ""
    direct = solver.assess(solver.load_state(copy / "adapters" / "Soup" / "slot-01"))
    np.testing.assert_allclose(found.records[1]["estimates"]["objectives"], direct["objectives"])
    np.testing.assert_allclose(found.records[1]["estimates"]["kl"], direct["kl"])
    assert [reward.__name__ for reward in solver.rewards] == ["count_apple", "count_berry"]


def test_assessments_on_two_worker_processes_equal_the_in_process_ones(
    made_run: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``assess_run(..., executor=ProcessExecutor(2))``: every adapter is assessed in the
    worker processes (the driver loads no model), and the files written equal, byte for byte,
    those of the assessment in this process; run again, nothing is assessed."""
    import paretosurf as ps

    from .conftest import guard_driver

    run, config_file = made_run
    here, there = (Path(shutil.copytree(run, tmp_path / n)) for n in ("here", "there"))
    methods = ["SURF", "Soup"]
    solver = load_config(config_file).build_solver(tmp_path / "work-here")
    assess_run(solver, here, methods=methods, samples=2)

    loaded = guard_driver(monkeypatch)
    pool = ps.ProcessExecutor(2, threads_per_worker=1)
    solver = load_config(config_file).build_solver(tmp_path / "work-there")
    found = assess_run(solver, there, methods=methods, samples=2, executor=pool)
    assert loaded == []
    assert found.assessed == 6 and pool._pool is None  # started and closed by the call
    assert [(r["method"], r["slot"]) for r in found.records] == [
        (m, k) for m in methods for k in range(3)
    ]
    assert files_of(there / "assess") == files_of(here / "assess")
    again = assess_run(solver, there, methods=methods, samples=2, executor=pool)
    assert again.assessed == 0 and loaded == []
    assert files_of(there / "assess") == files_of(here / "assess")


def test_the_command_takes_the_executor_options(
    run_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``paretosurf llm assess DIR --executor processes --workers 2`` hands the pool to
    ``assess_run``; without the options, the config's executor (here local) means this
    process."""
    import paretosurf as ps
    from paretosurf.llm import assess

    given: list[Any] = []

    def fake(solver: Any, run: Any, **kwargs: Any) -> Any:
        given.append(kwargs["executor"])
        raise KeyboardInterrupt  # stops the command before it prints a table

    monkeypatch.setattr(assess, "assess_run", fake)
    args = ["llm", "assess", str(run_copy)]
    assert cli.main([*args, "--executor", "processes", "--workers", "2"]) == 130
    assert cli.main(args) == 130
    assert isinstance(given[0], ps.ProcessExecutor) and given[0].max_workers == 2
    assert given[1] is None


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda d: d / "missing", "no such folder"),
        (lambda d: d, "is not a protocol run folder: it has no results.json"),
        (lambda d: (d / "warm").mkdir() or d, "has not finished"),
    ],
    ids=["missing", "empty", "unfinished"],
)
def test_a_folder_that_is_no_run_is_a_usage_error(
    tmp_path: Path, capsys: Any, make: Any, fragment: str
) -> None:
    folder = make(tmp_path)
    for command in ("assess", "export"):
        with pytest.raises(SystemExit) as exc:
            cli.main(["llm", command, str(folder)])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert f"paretosurf llm {command}: error:" in err and fragment in err


def test_run_folder_errors(run_copy: Path, capsys: Any) -> None:
    with pytest.raises(SystemExit):
        cli.main(["llm", "assess", str(run_copy), "--methods", "SURF,PPO"])
    assert "has no method 'PPO'; its methods: Uniform-w, SURF, Soup" in capsys.readouterr().err
    (run_copy / RUN_RECORD).unlink()
    with pytest.raises(SystemExit):
        cli.main(["llm", "assess", str(run_copy)])
    assert "holds no record of its config" in capsys.readouterr().err
    shutil.rmtree(run_copy / "adapters" / "Soup" / "slot-01")
    with pytest.raises(NotAProtocolRun, match="Soup's slot 1 has no adapter folder"):
        ProtocolRun.open(run_copy)
    (run_copy / "results.json").write_text("{}")
    with pytest.raises(NotAProtocolRun, match="lists no methods"):
        ProtocolRun.open(run_copy)
    with pytest.raises(SystemExit) as exc:
        cli.main(["llm"])
    assert exc.value.code == 2
    assert "required: --config (or, after a run" in capsys.readouterr().err


def test_the_run_record_makes_relative_paths_absolute(tmp_path: Path, monkeypatch: Any) -> None:
    (tmp_path / "policy").mkdir()
    (tmp_path / "posts.jsonl").write_text("")
    config_file = tmp_path / "c.toml"
    config_file.write_text(
        'model = "policy"\n[[rewards]]\nkind = "word_count"\nword = "posts.jsonl"\n'
        '[[rewards]]\nkind = "model"\npath = "policy"\n[prompts]\nsource = "posts.jsonl"\n'
    )
    monkeypatch.chdir(tmp_path)
    record_run(tmp_path / "run", load_config(config_file), config_file)
    config = ProtocolRun(tmp_path / "run", {}).config()
    assert config.model == str(tmp_path / "policy")
    assert config.prompts["source"] == str(tmp_path / "posts.jsonl")
    assert config.rewards[1]["path"] == str(tmp_path / "policy")
    assert config.rewards[0]["word"] == "posts.jsonl"  # not a path setting: as written


# ---------------------------------------------------------------------------- export
def test_export_writes_a_folder_per_point_with_its_card(run_copy: Path, capsys: Any) -> None:
    assert cli.main(["llm", "assess", str(run_copy), "--methods", "SURF", "--samples", "0"]) == 0
    capsys.readouterr()
    assert cli.main(["llm", "export", str(run_copy)]) == 0
    out = capsys.readouterr().out.split()
    target = run_copy / "export"
    names = [f"{m}-slot-{k:02d}" for m in ("uniform-w", "surf", "soup") for k in range(3)]
    assert out == [str(target / n) for n in names]
    index = json.loads((target / "front.json").read_text())
    assert [p["folder"] for p in index] == names
    folder = target / "surf-slot-01"
    source = run_copy / "adapters" / "SURF" / "slot-01"
    for name in ("adapter_model.safetensors", "adapter_config.json"):
        assert (folder / name).read_bytes() == (source / name).read_bytes()
    info = json.loads((folder / "front_point.json").read_text())
    assert info["weight"] == 0.375 and info["objectives"] == [-1.375, -1.625]
    assert info["reward_names"] == ["count_apple", "count_berry"] and info["beta"] == 0.05
    assert info["base_model"] == str(Path(load_config_model(run_copy)))
    assert info["adapter_sha256"] == folder_digest(source) and info["merged"] is False
    assert info["assessment"]["n_eval"] == 8  # assessed SURF: its estimates come along
    assert (
        json.loads((target / "soup-slot-01" / "front_point.json").read_text())["assessment"] is None
    )
    card = (folder / "README.md").read_text()
    assert card.startswith("---\nbase_model: ") and "library_name: peft" in card
    for fragment in (
        "# SURF policy, slot 1 of 3: w = 0.375",
        "count_apple",
        "beta = 0.05",
        "surf_rounds = 1",
        str(run_copy.resolve()),
        "PeftModel.from_pretrained",
    ):
        assert fragment in card, fragment
    # again: the same bytes; a folder that is no export is refused
    before = files_of(target)
    assert cli.main(["llm", "export", str(run_copy)]) == 0
    assert files_of(target) == before
    (target / "soup-slot-00" / "front_point.json").unlink()
    with pytest.raises(SystemExit):
        cli.main(["llm", "export", str(run_copy)])
    assert "is not a point exported by paretosurf" in capsys.readouterr().err


def load_config_model(run: Path) -> str:
    return str(json.loads((run / RUN_RECORD).read_text())["config"]["model"])


def test_merged_export_holds_the_policy(run_copy: Path, tmp_path: Path, lm_dir: Path) -> None:
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    status = cli.main(
        [
            "llm",
            "export",
            str(run_copy),
            "--merged",
            "--methods",
            "Soup",
            "--out",
            str(tmp_path / "x"),
        ]
    )
    assert status == 0
    folder = tmp_path / "x" / "soup-slot-01"
    assert (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file()
    assert not (folder / "adapter_model.safetensors").exists()
    assert "library_name: transformers" in (folder / "README.md").read_text()
    ids = torch.tensor([[3, 7, 11, 5, 9, 2]])
    merged = AutoModelForCausalLM.from_pretrained(folder).eval()
    adapter = PeftModel.from_pretrained(
        AutoModelForCausalLM.from_pretrained(lm_dir), run_copy / "adapters" / "Soup" / "slot-01"
    ).eval()
    with torch.no_grad():
        torch.testing.assert_close(
            merged(input_ids=ids).logits, adapter(input_ids=ids).logits, rtol=1e-4, atol=1e-4
        )


# ---------------------------------------------------------------------------- end to end
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::paretosurf.findings.ParetoWarning")  # a random policy
def test_after_a_real_protocol_run(
    made_run: tuple[Path, Path], tmp_path: Path, capsys: Any
) -> None:
    """``paretosurf llm --config`` (a small protocol: 6 slot-epochs) records its config;
    ``assess`` re-estimates its adapters as the run did, ``export`` writes its points."""
    _, config_file = made_run
    config = tmp_path / "run.toml"
    config.write_text(
        config_file.read_text().replace(f'out = "{made_run[0]}"', f'out = "{tmp_path / "run"}"')
    )
    assert cli.main(["llm", "--config", str(config)]) == 0
    run = tmp_path / "run"
    assert json.loads((run / RUN_RECORD).read_text())["config_file"] == str(config.resolve())
    capsys.readouterr()
    assert cli.main(["llm", "assess", str(run), "--samples", "1"]) == 0
    results = json.loads((run / "results.json").read_text())["methods"]
    summary = json.loads((run / "assess" / "assessment.json").read_text())
    for point in summary["points"]:  # the same evaluation: the run's objectives, again
        np.testing.assert_allclose(
            point["estimates"]["objectives"],
            results[point["method"]]["points"][point["slot"]],
            rtol=1e-6,
            atol=1e-6,
        )
    assert len((run / "assess" / "samples.jsonl").read_text().splitlines()) == 9
    assert cli.main(["llm", "export", str(run), "--methods", "SURF"]) == 0
    info = json.loads((run / "export" / "surf-slot-01" / "front_point.json").read_text())
    assert info["weight"] == results["SURF"]["weights"][1]
    assert info["assessment"]["n_eval"] == 8
