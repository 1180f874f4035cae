"""Every benchmark under ``benchmarks/`` runs its ``--smoke`` mode to its end, writes its
outputs into the folder given by ``--out`` and nothing into the checkout.

The benchmarks are found by name (``benchmarks/bench_*.py``), so a new one is run here too,
and fails here if it has no ``--smoke``. Most run in this process (``runpy``, as
``python benchmarks/bench_NAME.py --smoke --out DIR`` would; the imports are paid once); the
ones that start worker processes run as a command, marked ``slow`` with the reason. A
benchmark whose extras are not installed is skipped.
"""

from __future__ import annotations

import contextlib
import io
import os
import runpy
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
SCRIPTS = sorted(p.stem for p in BENCHMARKS.glob("bench_*.py"))

#: The modules a benchmark's smoke mode needs beyond the core (it is skipped without them).
NEEDS: dict[str, tuple[str, ...]] = {
    "bench_basin_probes": ("pymoo",),
    "bench_default_budget": ("torch",),
    "bench_disconnected_surface": ("pymoo",),
    "bench_dqn_settings": ("torch",),
    "bench_emo": ("pymoo",),
    "bench_emo_surfaces": ("pymoo",),
    "bench_endpoints": ("torch",),
    "bench_executors": ("torch",),
    "bench_gpu_rl": ("torch",),
    "bench_llm": ("torch", "transformers", "peft", "trl", "datasets", "accelerate"),
    "bench_mountaincar": ("torch", "mo_gymnasium"),
    "bench_pieces": ("pymoo",),
    "bench_report_round": ("torch",),
    "bench_surf_simplex": ("pymoo",),
    "bench_surface_units": ("pymoo",),
    "bench_table1": ("torch",),
}
#: Benchmarks run as a command and marked slow, with the reason.
SLOW = {
    "bench_executors": "starts a pool of worker processes that import numpy and torch: "
    "30 s and more on two cores",
    "bench_llm": "trains three tiny RLOO variants, each in a fresh process that imports "
    "transformers and TRL: minutes on a CPU",
}
#: Files a benchmark's smoke run writes into --out, beside report.txt.
WRITES = {
    "bench_emo": ("table.md",),
    "bench_emo_surfaces": ("surfaces.md",),
    "bench_llm": ("results.json",),
    "bench_surf_simplex": ("table.csv", "quadratic-0.png", "dtlz.png"),
    "bench_table1": ("table1.md", "dst-gradient/results.json", "dst-gradient/table.md"),
    "bench_whole_front": ("whole_front.csv",),
    "bench_warm_start": ("results.json", "table.md"),
}


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Size and modification time of every file under ``folder`` (caches left out)."""
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


@contextlib.contextmanager
def _command_line(argv: list[str]) -> Iterator[io.StringIO]:
    """``sys.argv`` set to ``argv`` and the output captured, warnings shown (never raised),
    as for the command ``python ARGV``."""
    saved = sys.argv
    sys.argv = argv
    printed = io.StringIO()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(printed):
            warnings.simplefilter("default")
            yield printed
            copy = getattr(sys.stdout, "copy", None)  # the report.txt the benchmark tees to
            if copy is not None:
                copy.close()
    finally:
        sys.argv = saved


def _run_in_process(name: str, out: Path) -> str:
    path = BENCHMARKS / f"{name}.py"
    with _command_line([str(path), "--smoke", "--out", str(out)]) as printed:
        try:
            runpy.run_path(str(path), run_name="__main__")
        except SystemExit as stop:  # a benchmark that returns its status
            assert stop.code in (None, 0), f"{name} --smoke exited with {stop.code}"
    return printed.getvalue()


def _run_command(name: str, out: Path) -> str:
    threads = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    proc = subprocess.run(
        [sys.executable, str(BENCHMARKS / f"{name}.py"), "--smoke", "--out", str(out)],
        capture_output=True,
        text=True,
        env={**os.environ, **threads},
        timeout=900,
        cwd=out.parent,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def _params() -> list[object]:
    return [
        pytest.param(n, marks=pytest.mark.slow(reason=SLOW[n])) if n in SLOW else n for n in SCRIPTS
    ]


@pytest.fixture(scope="module", autouse=True)
def _one_thread() -> None:
    """One torch thread, as the benchmarks' figures are measured (and the machine shared)."""
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(1)


@pytest.mark.parametrize("name", _params())
def test_smoke_runs_to_its_end(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, close_figures: None
) -> None:
    for module in NEEDS.get(name, ()):
        pytest.importorskip(module, reason=f"{name} needs {module}")
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.chdir(tmp_path)  # a benchmark that wrote to its working folder would show
    out = tmp_path / "out"
    published = _snapshot(ROOT / "docs" / "results")
    beside = set(_snapshot(BENCHMARKS))
    printed = _run_command(name, out) if name in SLOW else _run_in_process(name, out)
    short = name.removeprefix("bench_")
    assert f"[{short}] output folder {out}" in printed
    report = (out / "report.txt").read_text()
    assert report.startswith(f"[{short}] output folder") and len(report.splitlines()) > 2
    for file in WRITES.get(name, ()):
        assert (out / file).stat().st_size > 0, file
    # nothing written into the checkout: the published files and benchmarks/ as they were,
    # and nothing in the working folder but --out
    assert _snapshot(ROOT / "docs" / "results") == published
    assert set(_snapshot(BENCHMARKS)) == beside
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_every_benchmark_is_covered() -> None:
    """The tables above name benchmarks that exist (a renamed one is not silently dropped)."""
    assert len(SCRIPTS) >= 20
    for table in (NEEDS, SLOW, WRITES):
        assert set(table) <= set(SCRIPTS), set(table) - set(SCRIPTS)


def test_smoke_never_writes_the_published_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    path = BENCHMARKS / "bench_table1.py"
    published = _snapshot(ROOT / "docs" / "results")
    with (
        _command_line([str(path), "--smoke", "--write-docs"]),
        contextlib.redirect_stderr(io.StringIO()) as errors,
        pytest.raises(SystemExit) as stop,
    ):
        runpy.run_path(str(path), run_name="__main__")
    assert stop.value.code == 2 and "--smoke never writes the published files" in errors.getvalue()
    assert _snapshot(ROOT / "docs" / "results") == published


def test_default_output_folder_is_outside_the_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import _bench_io

    folder = _bench_io.default_out("dst").resolve()
    assert folder.name == "dst" and folder.parent.name == "paretosurf-bench"
    assert ROOT not in folder.parents
