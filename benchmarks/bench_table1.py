"""The README's summary of the paper's benchmarks (Table 1): SURF against the baselines on Deep
Sea Treasure, Fishwood and MO-MountainCar, from each task's 8-seed run.

Runs the paper's protocol (what ``paretosurf bench TASK --seeds 8`` runs: K = 100 Adam steps
per call, the tasks' N and outer iterations, every method) on the tasks of ``--tasks``
(default ``dst,fishwood``; MO-MountainCar takes 46 minutes on one core: add it to rerun it),
writes each task's ``results.json``, ``table.md`` and figures into ``--out``/``<folder>`` (the
folder names of ``docs/results``) and then the summary table, ``table1.md``, from every task's
``results.json``: the tasks not run are read from ``docs/results``, the published runs
(``--from DIR`` reads every task from ``DIR`` and runs none).

Each cell is the mean over the seeds, to 3 significant digits (HV to 4), with ``± std`` (the
standard deviation over the seeds, ``ddof=0`` as in the tasks' ``table.md``) where the seeds
differ by more than the printed digits: then the mean is printed to the std's precision. HV
and IGD are scaled by the power of ten in the row's label; the best mean of a row (Soup,
whose points lie off the front, and the cells marked ``**`` left out) is in bold. ``**``:
the method returned fewer than N + 1 points in some seed, so its CV and gap ratio are those of
fewer segments.

    python benchmarks/bench_table1.py [--tasks dst,fishwood] [--seeds 8] [--out DIR]
    python benchmarks/bench_table1.py --write-docs     # the same, published: docs/results
    python benchmarks/bench_table1.py --from docs/results      # only the table, from files
    python benchmarks/bench_table1.py --smoke          # DST, 2 seeds, 3 rounds, N = 4

With ``--write-docs`` the tasks' ``results.json`` and ``table.md`` (and the figures the docs
already publish) go to ``docs/results/<folder>/`` and the summary to
``docs/results/table1.md``, which the README and ``docs/guide/benchmarks.md`` quote
(``tests/benchmarks/test_published_tables.py`` checks that they match).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import _bench_io as bench_io
import numpy as np

#: Tasks of the table: name -> (label, results folder, the paper's SURF CV and gap ratio).
TASKS: dict[str, tuple[str, str, tuple[float, float]]] = {
    "dst": ("DST", "dst-gradient", (0.081, 1.45)),
    "fishwood": ("Fishwood", "fishwood-gradient", (0.026, 1.12)),
    "mountaincar": ("MountainCar", "mountaincar", (0.441, 3.75)),
}
#: Methods, in the table's order, and their columns' heads.
METHODS = {
    "surf": "SURF",
    "uniform": "Uniform-w",
    "random": "Random-w",
    "ols": "OLS",
    "umod": "UMOD",
    "soup": "Soup*",
}
#: Rows: score key, label, significant digits, whether higher is better, scaled.
ROWS = (
    ("cv", "CV", 3, False, False),
    ("gap_ratio", "gap ratio", 3, False, False),
    ("hv", "HV", 4, True, True),
    ("igd", "IGD", 3, False, True),
)
#: Methods never in bold: Soup's points lie off the front.
NEVER_BEST = ("soup",)
#: The file the summary goes to, in ``--out`` and in ``docs/results``.
TABLE = "table1.md"


# ---------------------------------------------------------------------------- formatting
def _decimals(value: float, digits: int) -> int:
    """Decimals that print ``value`` to ``digits`` significant digits (0 for large ones)."""
    if value == 0 or not math.isfinite(value):
        return digits - 1
    return max(0, digits - 1 - math.floor(math.log10(abs(value))))


def _short(value: float, decimals: int) -> str:
    """``value`` to ``decimals`` decimals, or as ``1.5e4`` (2 significant digits) from 1e4."""
    if abs(value) >= 1e4:
        exponent = math.floor(math.log10(abs(value)))
        mantissa = value / 10**exponent
        if round(mantissa, 1) >= 10:
            mantissa, exponent = mantissa / 10, exponent + 1
        return f"{mantissa:.1f}e{exponent}"
    return f"{value:.{decimals}f}"


def cell(values: Sequence[float], digits: int) -> tuple[str, str]:
    """A score over seeds as ``(mean, spread)``: the mean to ``digits`` significant digits, and
    ``"± std"`` (two significant digits, the mean then to the std's decimals) where the std
    exceeds half a unit of the mean's last printed digit, else ``""``."""
    arr = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(arr)):
        return f"inf/nan in {int(np.sum(~np.isfinite(arr)))}", ""
    mean, std = float(np.mean(arr)), float(np.std(arr))
    decimals = _decimals(mean, digits)
    if abs(mean) >= 1e4:  # printed as 1.5e4: two significant digits
        unit = 10.0 ** (math.floor(math.log10(abs(mean))) - 1)
    else:
        unit = 10.0**-decimals
    if std <= 0.5 * unit:
        return _short(mean, decimals), ""
    # the std to two significant digits, the mean to the same place (tens, say, for a std of
    # 130: "90 ± 130")
    place = 1 - math.floor(math.log10(std))
    if place < 0:
        std, mean = round(std, place), round(mean, place)
    return _short(mean, min(decimals, max(place, 0))), f"± {_short(std, max(place, 0))}"


def _scale(means: Sequence[float]) -> int:
    """The power of ten that puts SURF's mean (the first) in [1, 10)."""
    first = abs(means[0])
    return 0 if first == 0 or not math.isfinite(first) else -math.floor(math.log10(first))


def _label(name: str, power: int) -> str:
    return name if power == 0 else f"{name} x1e{power}"


def _points(messages: Sequence[str]) -> list[int]:
    """The points each seed's result holds, from its message (``"UMOD: 16 points, ..."``)."""
    return [int(m.group(1)) for m in (re.search(r"(\d+) points", s) for s in messages) if m]


def _number(text: str) -> float:
    """A printed mean as a number (NaN for ``inf/nan in ...``)."""
    try:
        return float(text)
    except ValueError:
        return math.nan


def task_rows(name: str, results: dict[str, Any]) -> list[list[str]]:
    """The table's rows of one task from its ``results.json``."""
    label, _, paper = TASKS[name]
    methods = results["methods"]
    few = {
        m
        for m in METHODS
        if m in methods
        and any(p < results["n_segments"] + 1 for p in _points(methods[m].get("messages", [])))
    }
    rows = []
    for i, (key, title, digits, higher, scaled) in enumerate(ROWS):
        values = {m: [s[key] for s in methods[m]["per_seed"]] for m in METHODS if m in methods}
        power = _scale([float(np.mean(values["surf"]))]) if scaled else 0
        cells = {m: cell(np.asarray(v) * 10.0**power, digits) for m, v in values.items()}
        marked = {m for m in few if key in ("cv", "gap_ratio")}
        judged = {
            m: _number(c[0]) for m, c in cells.items() if m not in NEVER_BEST and m not in marked
        }
        finite = [v for v in judged.values() if math.isfinite(v)]
        best = (max if higher else min)(finite) if finite else math.nan
        row = [label if i == 0 else "", _label(title, power)]
        for m in METHODS:
            if m not in cells:
                row.append("-")
                continue
            mean, spread = cells[m]
            text = f"**{mean}**" if judged.get(m) == best else mean
            text = f"{text} {spread}" if spread else text
            row.append(text + ("**" if m in marked else ""))
        row.append(f"{paper[i]:g}" if i < len(paper) else "")
        rows.append(row)
    return rows


def table(results: dict[str, dict[str, Any]]) -> str:
    """The summary table (Markdown) of the tasks in ``results`` (name -> ``results.json``)."""
    head = ["task", "metric", *METHODS.values(), "paper's SURF"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name in TASKS:
        if name in results:
            lines += ["| " + " | ".join(r) + " |" for r in task_rows(name, results[name])]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- running
def run(name: str, seeds: int, out: Path, smoke: bool, plots: bool) -> Path:
    """The paper's protocol on task ``name`` (every method, ``seeds`` seeds), written to
    ``out/<folder>`` as ``paretosurf bench`` writes it; returns the folder."""
    from paretosurf.bench import get_task, run_task, write_report

    folder = out / TASKS[name][1]
    options: dict[str, Any] = {"n_segments": 4, "iterations": 3} if smoke else {}
    report = run_task(
        get_task(name),
        seeds=seeds,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
        **options,
    )
    write_report(report, folder, plots=plots)
    print(f"{name}: wrote {folder}", flush=True)
    return folder


def publish(folder: Path, target: Path) -> None:
    """Copy a task's ``results.json`` and ``table.md``, and the figures ``target`` already
    publishes, from ``folder`` to ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(folder.iterdir()):
        if path.name in ("results.json", "table.md") or (
            path.suffix == ".png" and (target / path.name).exists()
        ):
            shutil.copyfile(path, target / path.name)


def main(argv: Sequence[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--tasks", default="dst,fishwood", help=f"tasks to run, of {', '.join(TASKS)}"
    )
    parser.add_argument("--seeds", type=int, default=8, help="seeds 0 .. S-1 (default 8)")
    parser.add_argument(
        "--from",
        dest="source",
        type=Path,
        default=None,
        metavar="DIR",
        help="run nothing: the table from DIR/<folder>/results.json (e.g. docs/results)",
    )
    parser.add_argument("--no-plots", action="store_true", help="skip the tasks' figures")
    bench_io.add_options(
        parser, "table1", docs=".", smoke="DST alone, 2 seeds, N = 4, 3 rounds, no figures"
    )
    args = parser.parse_args(argv)
    out = bench_io.start(args, parser)
    if args.smoke:
        args.tasks, args.seeds, args.no_plots = "dst", 2, True
    names = [] if args.source is not None else [t for t in args.tasks.split(",") if t]
    unknown = sorted(set(names) - set(TASKS))
    if unknown:
        parser.error(f"--tasks: unknown {unknown} (of {', '.join(TASKS)})")
    docs = bench_io.docs_dir(args)
    folders = {}
    for name in names:
        folders[name] = run(name, args.seeds, out, args.smoke, not args.no_plots)
        if docs is not None:
            publish(folders[name], docs / TASKS[name][1])
    source = args.source if args.source is not None else bench_io.DOCS_RESULTS
    results = {}
    for name, (_, folder, _) in TASKS.items():
        path = folders.get(name, source / folder) / "results.json"
        if path.exists():
            results[name] = json.loads(path.read_text())
            print(f"{name}: {path}")
        else:
            print(f"{name}: no {path}, left out")
    text = table(results)
    print("\n" + text)
    for folder in bench_io.published(args):
        (folder / TABLE).write_text(text)
    return text


if __name__ == "__main__":
    main()
