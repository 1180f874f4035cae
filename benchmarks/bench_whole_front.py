"""Whole-front runs judged against independently computed true fronts.

Every problem of the bank in ``benchmarks/whole_front_bank.py`` (engineering designs with
constraints, ill-conditioned regularization paths with exact solvers, the ZDT problems from
the box centre and from random starts, a torch model, a flat face and an end with no
minimizer) is run once per ``--weight-bounds`` setting with
``ps.surf(solver, n_points=21, iterations=30, weight_bounds=...)``, warnings captured. The run
is measured against the bank's reference front, never against its own figures, in
coordinates normalized by the reference's ideal and nadir:

- ``on``: how many of the run's points lie on the front (distance to the reference
  polyline, piece by piece, below ``1e-2``);
- ``cover_f1``, ``cover_f2``: the share of each objective's range of the reference spanned
  by the points on the front;
- ``IGD`` (moocore) of all the points, and the gap CV (:func:`paretosurf.metrics.cv`) of the
  points sorted by ``f1``; in the CSV also ``max_gap``, the largest gap between consecutive
  points over the even gap (the reference's arc length over N; 1 is even, and points
  clumped at the ends of a front give about N; the jumps between a disconnected front's
  pieces count as gaps);
- ``success``, the finding codes, evaluations (``res.n_evaluations``) and solves;
- ``verdict``: ``ok`` (success, both covers >= 95%, every point on the front), ``honest``
  (``success=False``) or ``FALSE SUCCESS`` (``success=True`` with a cover below 95% or a
  point off the front). ``unsupported``: the library refused the ``weight_bounds`` value;
  ``error``: the run raised.

The table goes to stdout, one row per run as it finishes, then ``false successes: K of N``;
the rows go to ``whole_front.csv`` in ``--out`` (default: a folder under the system's temporary
folder, printed; see ``benchmarks/_bench_io.py``).

    python benchmarks/bench_whole_front.py
    python benchmarks/bench_whole_front.py --weight-bounds none auto 0.001,0.999
    python benchmarks/bench_whole_front.py --problems zdt1,welded_beam --scalarization tchebycheff
    python benchmarks/bench_whole_front.py --quick              # 11 points, 8 rounds
    python benchmarks/bench_whole_front.py --smoke              # 2 exact problems, 6 points
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import math
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import moocore
import numpy as np
from numpy.typing import NDArray

import paretosurf as ps

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _bench_io as bench_io
import whole_front_bank as bank

FloatArray = NDArray[np.float64]

#: Normalized distance to the reference below which a point is on the front.
ON_FRONT_TOL = 1e-2
#: Share of each objective's range the points on the front must span for ``ok``.
COVER_MIN = 0.95


@dataclasses.dataclass
class Row:
    """One run's measurements (a row of the table and the CSV)."""

    problem: str
    weight_bounds: str
    scalarization: str
    n_points: int
    iterations: int
    verdict: str
    success: bool | None = None
    cover_f1: float = math.nan
    cover_f2: float = math.nan
    on_front: int = 0
    returned: int = 0
    igd: float = math.nan
    gap_cv: float = math.nan
    max_distance: float = math.nan
    max_gap: float = math.nan
    n_evaluations: int | None = None
    n_solves: int | None = None
    rounds: int | None = None
    seconds: float = math.nan
    findings: str = ""
    warnings: int = 0
    message: str = ""


def parse_weight_bounds(text: str) -> tuple[str, Any]:
    """``none`` -> ``None``, ``auto`` -> ``"auto"``, ``LO,HI`` -> ``(lo, hi)``.

    Returns
    -------
    label : str
        The setting as the table shows it.
    value : None, str or tuple of float
        What ``ps.surf`` gets.
    """
    t = text.strip().lower()
    if t == "none":
        return "none", None
    if t == "auto":
        return "auto", "auto"
    parts = t.split(",")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"expected none, auto or LO,HI, got {text!r}")
    try:
        lo, hi = float(parts[0]), float(parts[1])
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected LO,HI numbers, got {text!r}") from exc
    return f"{lo:g},{hi:g}", (lo, hi)


def measure(
    points: FloatArray, reference: bank.ReferenceFront, entry: bank.Entry
) -> dict[str, Any]:
    """Measure a run's points against the entry's reference front.

    Parameters
    ----------
    points : ndarray of shape (k, 2)
        The run's points.
    reference : ReferenceFront
        The entry's reference (its ideal and nadir normalize every figure).
    entry : Entry
        Where the entry's front has no end (``extended``), points beyond the reference are
        judged against the reference continued as far as they go.

    Returns
    -------
    dict
        ``on_front``, ``cover_f1``, ``cover_f2``, ``igd``, ``gap_cv``, ``max_distance``,
        ``max_gap``.
    """
    pts = np.asarray(points, dtype=float)
    judge = reference
    if entry.extended is not None and np.isfinite(pts).all():
        f2_top = float(pts[:, 1].max())
        if f2_top > reference.nadir[1]:
            judge = entry.extended(f2_top)
    finite = np.isfinite(pts).all(axis=1)
    dist = np.full(pts.shape[0], np.inf)
    if finite.any():
        dist[finite] = judge.distance(pts[finite], frame=reference)
    on = dist < ON_FRONT_TOL
    norm = reference.normalize(pts)
    covers = [0.0, 0.0]
    if on.any():
        clipped = np.clip(norm[on], 0.0, 1.0)
        covers = [float(np.ptp(clipped[:, k])) for k in range(2)]
    igd = math.nan
    gap_cv = math.nan
    max_gap = math.nan
    if finite.any():
        igd = float(moocore.igd(norm[finite], ref=reference.normalize(reference.points)))
        ordered = norm[finite][np.lexsort((-norm[finite][:, 1], norm[finite][:, 0]))]
        if ordered.shape[0] >= 2:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                gap_cv = float(ps.metrics.cv(ordered))
            arc = sum(
                float(np.linalg.norm(np.diff(reference.normalize(piece), axis=0), axis=1).sum())
                for piece in reference.pieces
            )
            gaps = np.linalg.norm(np.diff(ordered, axis=0), axis=1)
            max_gap = float(gaps.max()) * (ordered.shape[0] - 1) / arc
    return {
        "on_front": int(on.sum()),
        "cover_f1": covers[0],
        "cover_f2": covers[1],
        "igd": igd,
        "gap_cv": gap_cv,
        "max_distance": float(dist.max()),
        "max_gap": max_gap,
    }


def verdict(success: bool, row: Row) -> str:
    """``ok``, ``honest`` or ``FALSE SUCCESS`` (see the module docstring)."""
    if not success:
        return "honest"
    if min(row.cover_f1, row.cover_f2) >= COVER_MIN and row.on_front == row.returned:
        return "ok"
    return "FALSE SUCCESS"


def run_one(
    entry: bank.Entry,
    wb_label: str,
    wb_value: Any,
    *,
    scalarization: str,
    n_points: int,
    iterations: int,
) -> Row:
    """Build the entry's solver, run ``ps.surf`` once and measure the result."""
    row = Row(entry.name, wb_label, scalarization, n_points, iterations, verdict="error")
    reference = entry.reference()
    solver = entry.solver(scalarization)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = ps.surf(solver, n_points=n_points, iterations=iterations, weight_bounds=wb_value)
        except (ValueError, TypeError) as exc:
            row.seconds = time.perf_counter() - start
            row.message = f"{type(exc).__name__}: {exc}"[:300]
            if wb_value is not None and "weight_bounds" in str(exc):
                row.verdict = "unsupported"
            return row
        except Exception as exc:  # a solver that fails is a result of the bench, too
            row.seconds = time.perf_counter() - start
            row.message = f"{type(exc).__name__}: {exc}"[:300]
            return row
    row.seconds = time.perf_counter() - start
    row.warnings = sum(1 for w in caught if issubclass(w.category, ps.ParetoWarning))
    points = np.asarray(res.points, dtype=float)
    row.returned = int(points.shape[0])
    for key, value in measure(points, reference, entry).items():
        setattr(row, key, value)
    row.success = bool(res.success)
    row.findings = ",".join(f.code for f in res.findings)
    row.n_evaluations = res.n_evaluations
    row.n_solves = res.n_solves
    row.rounds = len(res.history)
    row.message = str(res.message).replace("\n", " | ")
    row.verdict = verdict(row.success, row)
    return row


HEADER = (
    f"{'problem':<22} {'w-bounds':<12} {'success':<7} {'verdict':<13} {'cov f1':>6} "
    f"{'cov f2':>6} {'on':>5} {'IGD':>8} {'gap CV':>7} {'evals':>8} {'solves':>6} "
    f"{'secs':>6}  findings"
)


def format_row(row: Row) -> str:
    """One line of the table."""

    def pct(x: float) -> str:
        return "-" if math.isnan(x) else f"{100 * x:5.1f}%"

    def num(x: float, fmt: str) -> str:
        return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, fmt)

    success = "-" if row.success is None else str(row.success)
    on = f"{row.on_front}/{row.returned}" if row.success is not None else "-"
    evals = "-" if row.n_evaluations is None else str(row.n_evaluations)
    solves = "-" if row.n_solves is None else str(row.n_solves)
    tail = row.findings or "-"
    if row.success is None:
        tail = row.message[:90]
    return (
        f"{row.problem:<22} {row.weight_bounds:<12} {success:<7} {row.verdict:<13} "
        f"{pct(row.cover_f1):>6} {pct(row.cover_f2):>6} {on:>5} {num(row.igd, '8.2e'):>8} "
        f"{num(row.gap_cv, '7.3f'):>7} {evals:>8} {solves:>6} {row.seconds:6.1f}  {tail}"
    )


def write_csv(rows: Sequence[Row], path: Path) -> None:
    """Every row, every field, as CSV."""
    fields = [f.name for f in dataclasses.fields(Row)]
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            writer.writerow(dataclasses.asdict(row))


def main(argv: Sequence[str] | None = None) -> list[Row]:
    """Run the benchmark; returns its rows."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--problems", default=",".join(bank.bank()), help="comma-separated bank entries"
    )
    parser.add_argument(
        "--weight-bounds",
        nargs="+",
        type=parse_weight_bounds,
        default=[("none", None)],
        metavar="SETTING",
        help="one or more of: none, auto, LO,HI (default: none)",
    )
    parser.add_argument("--n-points", type=int, default=21, help="points per run (N + 1)")
    parser.add_argument("--iterations", type=int, default=30, help="most rounds per run")
    parser.add_argument(
        "--scalarization",
        choices=("auto", "linear", "tchebycheff"),
        default="auto",
        help="given to the adapters, 'auto' their default (exact solvers ignore it)",
    )
    parser.add_argument("--quick", action="store_true", help="11 points, 8 rounds")
    bench_io.add_options(
        parser,
        "whole_front",
        smoke="ridge_ill_conditioned and flat_face_quadratic, 6 points, 3 rounds",
    )
    args = parser.parse_args(argv)
    out = bench_io.start(args, parser)
    if args.smoke:
        args.problems = "ridge_ill_conditioned,flat_face_quadratic"
    names = [p.strip() for p in args.problems.split(",") if p.strip()]
    for name in names:
        if name not in bank.bank():
            parser.error(f"--problems: unknown {name!r} (one of {', '.join(bank.bank())})")
    n_points, iterations = (
        (6, 3) if args.smoke else (11, 8) if args.quick else (args.n_points, args.iterations)
    )

    print(
        f"ps.surf, n_points={n_points}, iterations={iterations}, scalarization="
        f"{args.scalarization}; figures against the bank's reference fronts, normalized by "
        f"their ideal and nadir; on the front: within {ON_FRONT_TOL:g}"
    )
    print(HEADER)
    print("-" * len(HEADER), flush=True)
    rows: list[Row] = []
    for name in names:
        entry = bank.get(name)
        for label, value in args.weight_bounds:
            row = run_one(
                entry,
                label,
                value,
                scalarization=args.scalarization,
                n_points=n_points,
                iterations=iterations,
            )
            rows.append(row)
            print(format_row(row), flush=True)
            write_csv(rows, out / "whole_front.csv")
    judged = [r for r in rows if r.success is not None]
    false = sum(r.verdict == "FALSE SUCCESS" for r in judged)
    print(f"false successes: {false} of {len(judged)}")
    print(f"rows written to {out / 'whole_front.csv'}")
    return rows


if __name__ == "__main__":
    main()
