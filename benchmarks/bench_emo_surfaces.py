"""paretosurf against pymoo's NSGA-III, SMS-EMOA and MOEA/D at the same number of objective
evaluations, over a bank of three-objective surfaces: pymoo's DTLZ1 to DTLZ7, convex DTLZ2,
two random convex quadratics and WFG4, WFG6 and WFG7 (WFG5, WFG8 and WFG9 on request).

paretosurf runs as a user would: ``ps.surf_simplex(ps.adapters.from_pymoo(problem,
scalarization=...), n_points, 3)`` with the adapter's and the loop's defaults (from the
middle of the box; SLSQP or L-BFGS-B with finite differences), ``scalarization="asf"`` on
every DTLZ and WFG problem (weighted sums cannot reach a concave front, nor spread over
DTLZ1's plane) and the default (``"auto"``: the weighted sum with three objectives) on the
quadratics, whose fronts are convex. Every objective evaluation is counted (the adapter's
construction included; a pymoo call on ``B`` rows counts ``B``): that count ``E`` is each
peer's budget, as in :mod:`bench_emo` (whose peers, runs and metrics this script reuses:
``bench_emo.make_peer`` and ``bench_emo.run_peer``, a population of ``n_points`` and
Das-Dennis directions of that count).

The reference front of each problem, for IGD and for the count of points on the front, is
never paretosurf's: the unit sphere's octant (DTLZ2, DTLZ3, DTLZ4) and its powers (convex
DTLZ2) and the quarter circle (DTLZ5, DTLZ6) from ``bench_emo``; the plane ``f1 + f2 + f3 =
0.5`` (DTLZ1); DTLZ7's four pieces, the non-dominated part of ``f3 = 6 - sum_i f_i (1 + sin
3 pi f_i)`` over a 401 x 401 grid of ``(f1, f2)``; for WFG4 to WFG9 the ellipsoid ``sum (f_i
/ 2i)^2 = 1`` (the unit sphere's sample scaled; pymoo's ``pareto_front`` lies on it); and
for a quadratic the problem's exact front, sampled by :meth:`QuadraticM.reference_front`
(every front point within 0.005 of the front's diameter of a sample point).

Measured, per problem and method (the peers' mean over the seeds):

- IGD (moocore) against the reference front, in the raw objectives;
- nn CV: the nearest-neighbour CV (:func:`paretosurf.metrics.nn_cv`) of the points in the
  objectives normalized by the reference front's ranges (ideal to nadir), where every method
  spreads its points (WFG's objectives span 2, 4 and 6);
- paretosurf's ``success``, its findings' codes, its evaluations and, where the run has 16
  rounds or more, its settling: the largest nn CV of rounds 15 onward over the smallest.

The verdict: **wins** (nn CV below every peer's mean and IGD within 1.1x of the best peer's
mean), **says so** (it does not win, and ``success=False`` with a finding naming the cause),
**LOSES** (it does not win and says ``success=True``: a silent shortfall) or **crash**.

    python benchmarks/bench_emo_surfaces.py --write-docs   # every surface, 3 seeds, 1x
    python benchmarks/bench_emo_surfaces.py --problems dtlz2,wfg4 --seeds 1
    python benchmarks/bench_emo_surfaces.py --smoke        # DTLZ2, 5 variables, 10 points

The table goes to stdout and ``surfaces.md`` in ``--out`` (default: a folder under the
system's temporary folder, see ``benchmarks/_bench_io.py``), rewritten after every problem;
``--write-docs`` also writes it to ``docs/results/emo/surfaces.md``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
import traceback
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import moocore
import numpy as np
from numpy.typing import NDArray

import paretosurf as ps
from paretosurf import metrics
from paretosurf.problems.many import QuadraticM

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _bench_io as bench_io
import bench_emo

FloatArray = NDArray[np.float64]

DTLZ = ("dtlz1", "dtlz2", "dtlz3", "dtlz4", "dtlz5", "dtlz6", "dtlz7", "convex_dtlz2")
#: WFG problems with a front pymoo gives (the ellipsoid); the default bank runs three.
WFG = ("wfg4", "wfg5", "wfg6", "wfg7", "wfg8", "wfg9")
WFG_RUN = ("wfg4", "wfg6", "wfg7")
#: Random convex quadratics ``QuadraticM.random(3, 5, seed=s)``, seeds outside 0..30 (those
#: the library's own benchmarks and tests use).
QUADRATICS = ("quadratic101", "quadratic102")
#: ``--problems surfaces``: the bank the published table runs.
SURFACES = DTLZ + QUADRATICS + WFG_RUN
KNOWN = DTLZ + WFG + QUADRATICS
PEERS = ("nsga3", "smsemoa", "moead")
N_POINTS = 28
#: Decision variables, sized so that the bank runs in under an hour of one core (the peers'
#: budget grows with paretosurf's finite differences): 7 for DTLZ1 to DTLZ6 and convex DTLZ2
#: (``n_obj + k - 1``, k = 5: pymoo's default for DTLZ1, fewer than its 12 for DTLZ2 to 6),
#: 12 for DTLZ7 (k = 10), 6 for WFG (k = 4 position and 2 distance variables), 5 for the
#: quadratics.
N_VAR = {"dtlz7": 12, **{w: 6 for w in WFG}, **{q: 5 for q in QUADRATICS}}
#: The box of the quadratics' variables (every exact minimizer lies well inside it).
QUADRATIC_BOX = 4.0
#: Das-Dennis partitions of the reference fronts (5,151 directions), of the weights whose
#: exact minimizers must lie in the quadratics' box (1,891), the quadratics' reference
#: resolution (a share of the front's diameter) and the grid of DTLZ7's ``(f1, f2)`` per side.
REFERENCE_PARTITIONS = 100
QUADRATIC_PARTITIONS = 60
QUADRATIC_RESOLUTION = 0.005
DTLZ7_GRID = 401
#: IGD within this factor of the best peer's counts as a win.
IGD_FACTOR = 1.1
#: The first round of the settling window (as ``bench_surf_simplex.py --held-out``).
SETTLE_FROM = 15


# ---------------------------------------------------------------------------- problems
class QuadraticProblem:
    """A pymoo problem of :class:`QuadraticM` ``.random(3, n_var, seed=seed)`` on the box
    ``[-QUADRATIC_BOX, QUADRATIC_BOX]^n`` (built on first use, so that this module imports
    without pymoo)."""

    @staticmethod
    def make(seed: int, n_var: int) -> Any:
        from pymoo.core.problem import Problem

        quad = QuadraticM.random(3, n_var, seed=seed)

        class Quadratic(Problem):
            def __init__(self) -> None:
                super().__init__(
                    n_var=n_var, n_obj=3, xl=-QUADRATIC_BOX, xu=QUADRATIC_BOX, vtype=float
                )
                self.quadratic = quad

            def _evaluate(self, x: FloatArray, out: dict[str, Any], *args: Any, **kw: Any) -> None:
                out["F"] = quad.objectives_many(np.atleast_2d(x))

        return Quadratic()


def _counting(problem: Any) -> Any:
    """``problem`` behind a pymoo problem that counts the rows it evaluates (``.calls``)."""
    from pymoo.core.problem import Problem

    class Counted(Problem):
        def __init__(self) -> None:
            super().__init__(n_var=problem.n_var, n_obj=problem.n_obj, xl=problem.xl, xu=problem.xu)
            self.calls = 0

        def _evaluate(self, x: FloatArray, out: dict[str, Any], *args: Any, **kw: Any) -> None:
            x2 = np.atleast_2d(x)
            self.calls += len(x2)
            out["F"] = problem.evaluate(x2, return_values_of=["F"])

    return Counted()


def build(name: str, n_var: int) -> Any:
    """pymoo's problem ``name`` with three objectives and ``n_var`` variables."""
    from pymoo.problems import get_problem

    if name in QUADRATICS:
        return QuadraticProblem.make(int(name.removeprefix("quadratic")), n_var)
    return get_problem(name, n_var=n_var, n_obj=3)


def das_dennis(partitions: int) -> FloatArray:
    from pymoo.util.ref_dirs import get_reference_directions

    return np.asarray(
        get_reference_directions("das-dennis", 3, n_partitions=partitions), dtype=np.float64
    )


def dtlz7_front(grid: int = DTLZ7_GRID) -> FloatArray:
    """DTLZ7's front (pymoo's ``f3 = (1 + g) h``, ``g = 1 + 9 mean(x_M)``, at ``x_M = 0``):
    the non-dominated part of ``f3 = 6 - sum_{i<=2} f_i (1 + sin(3 pi f_i))`` over a
    ``grid`` x ``grid`` lattice of ``(f1, f2)`` in [0, 1]^2."""
    t = np.linspace(0.0, 1.0, grid)
    f1, f2 = (a.ravel() for a in np.meshgrid(t, t))
    f3 = 6.0 - f1 * (1.0 + np.sin(3.0 * np.pi * f1)) - f2 * (1.0 + np.sin(3.0 * np.pi * f2))
    pts = np.column_stack([f1, f2, f3])
    return np.asarray(pts[moocore.is_nondominated(pts)], dtype=np.float64)


def reference_front(name: str, n_var: int) -> FloatArray:
    """A dense sample of the true front of ``name`` (see the module's docstring)."""
    if name == "dtlz1":
        return 0.5 * das_dennis(REFERENCE_PARTITIONS)
    if name in ("dtlz2", "dtlz3", "dtlz4"):
        return bench_emo.dtlz2_front(REFERENCE_PARTITIONS)
    if name == "convex_dtlz2":
        return np.asarray(
            bench_emo.dtlz2_front(REFERENCE_PARTITIONS) ** np.array([4.0, 4.0, 2.0]),
            dtype=np.float64,
        )
    if name in ("dtlz5", "dtlz6"):
        return bench_emo.dtlz5_front()
    if name == "dtlz7":
        return dtlz7_front()
    if name in QUADRATICS:
        quad = QuadraticM.random(3, n_var, seed=int(name.removeprefix("quadratic")))
        xs = np.stack([quad.argmin(row) for row in das_dennis(QUADRATIC_PARTITIONS)])
        if np.max(np.abs(xs)) >= QUADRATIC_BOX:
            raise ValueError(f"{name}: an exact minimizer leaves the box")
        return np.asarray(quad.reference_front(QUADRATIC_RESOLUTION), dtype=np.float64)
    # WFG4 to WFG9: the ellipsoid (pymoo's pareto_front lies on it, but takes minutes for
    # thousands of directions)
    return np.asarray(
        bench_emo.dtlz2_front(REFERENCE_PARTITIONS) * np.array([2.0, 4.0, 6.0]), dtype=np.float64
    )


@dataclasses.dataclass(frozen=True)
class SurfaceProblem(bench_emo.Problem):
    """A bench_emo problem whose objectives are pymoo's (``pymoo_problem``) and whose
    distance to the front is to the dense reference sample."""

    def pymoo_problem(self) -> Any:
        return build(self.name, self.n_var)

    def distance(self, points: FloatArray) -> FloatArray:
        pts = np.asarray(points, dtype=np.float64)
        out = np.empty(len(pts))
        for i in range(0, len(pts), 64):
            chunk = pts[i : i + 64]
            d = np.linalg.norm(chunk[:, None, :] - self.reference[None, :, :], axis=2)
            out[i : i + 64] = d.min(axis=1)
        return out


def make_problem(
    name: str, *, n_var: int | None = None, n_points: int = N_POINTS
) -> SurfaceProblem:
    """The surface ``name`` (one of :data:`SURFACES`)."""
    if name not in KNOWN:
        raise ValueError(f"problem must be one of {', '.join(KNOWN)}, got {name!r}")
    nv = N_VAR.get(name, 7) if n_var is None else int(n_var)
    ref = reference_front(name, nv)
    return SurfaceProblem(
        name=name,
        n_var=nv,
        n_obj=3,
        n_points=n_points,
        scalarization="auto" if name in QUADRATICS else "asf",
        pieces=[ref],
        reference=ref,
        ref_point=1.1 * ref.max(axis=0),
    )


# ---------------------------------------------------------------------------- runs
@dataclasses.dataclass
class Ours:
    """paretosurf's run on one problem: its points, success, findings' codes, evaluations,
    CPU seconds, rounds, the nn CV of every round (normalized) and the crash, if any."""

    run: bench_emo.Run
    success: bool | None
    codes: list[str]
    rounds: int
    round_cv: list[float]
    reported_round: int | None
    error: str = ""


def normalized_cv(problem: bench_emo.Problem, points: FloatArray) -> float:
    """Nearest-neighbour CV of ``points`` in the objectives normalized by the reference
    front's ranges."""
    pts = np.asarray(points, dtype=np.float64)
    if len(pts) < 2:
        return float("nan")
    lo, hi = problem.reference.min(axis=0), problem.reference.max(axis=0)
    return float(metrics.nn_cv((pts - lo) / np.where(hi > lo, hi - lo, 1.0)))


def run_paretosurf(problem: SurfaceProblem) -> Ours:
    """``surf_simplex(from_pymoo(problem, scalarization=...), n_points, 3)``; every row the
    pymoo problem evaluates counted. A crash is returned, not raised."""
    counted = _counting(problem.pymoo_problem())
    start = time.process_time()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the result's findings say the same
            solver = ps.adapters.from_pymoo(counted, scalarization=problem.scalarization)
            res = ps.surf_simplex(solver, problem.n_points, problem.n_obj)
    except Exception as exc:  # a crash is a row of the table
        run = bench_emo.Run(
            problem.name, "paretosurf", 0, counted.calls, counted.calls,
            time.process_time() - start, np.empty((0, problem.n_obj)),
        )  # fmt: skip
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
        return Ours(run, None, [], 0, [], None, error=last)
    cpu = time.process_time() - start
    run = bench_emo.Run(
        problem.name,
        "paretosurf",
        0,
        counted.calls,
        counted.calls,
        cpu,
        np.asarray(res.points, dtype=np.float64),
    )
    return Ours(
        run=run,
        success=bool(res.success),
        codes=sorted({f.code for f in res.findings}),
        rounds=len(res.history),
        round_cv=[normalized_cv(problem, r.points) for r in res.history],
        reported_round=res.reported_round,
    )


def settling(round_cv: Sequence[float]) -> float:
    """The largest nn CV of rounds ``SETTLE_FROM`` onward over the smallest (``nan`` when
    the run stopped before)."""
    window = [c for c in round_cv[SETTLE_FROM:] if np.isfinite(c)]
    if not window or min(window) <= 0:
        return float("nan")
    return max(window) / min(window)


# ---------------------------------------------------------------------------- verdict
def verdict(
    success: bool | None,
    codes: Sequence[str],
    cv: float,
    igd: float,
    peer_cv: Sequence[float],
    peer_igd: Sequence[float],
    *,
    crashed: bool = False,
) -> str:
    """``"wins"``: nn CV below every peer's and IGD within ``IGD_FACTOR`` of the best peer's;
    otherwise ``"says so"`` (``success=False`` with a finding), ``"crash"``, or ``"LOSES"``
    (``success=True``, or ``False`` naming nothing: a silent shortfall)."""
    if crashed:
        return "crash"
    finite = np.isfinite(cv) and np.isfinite(igd)
    if (
        finite
        and all(cv < c for c in peer_cv)
        and igd <= IGD_FACTOR * float(np.nanmin(np.asarray(peer_igd, dtype=np.float64)))
    ):
        return "wins"
    if success is False and codes:
        return "says so"
    return "LOSES"


# ---------------------------------------------------------------------------- table
def _fmt(value: float, spec: str) -> str:
    return "-" if not np.isfinite(value) else format(value, spec)


def problem_row(
    problem: SurfaceProblem, ours: Ours, peers: Sequence[bench_emo.Run], peer_names: Sequence[str]
) -> dict[str, str]:
    """One row of the table: paretosurf's figures, each peer's means over its seeds, the
    verdict."""
    crashed = bool(ours.error)
    pts = ours.run.points
    cv = normalized_cv(problem, pts) if not crashed else float("nan")
    igd = float(moocore.igd(pts, ref=problem.reference)) if len(pts) else float("nan")
    row = {
        "problem": f"{problem.name.upper()} ({problem.n_var})",
        "success": "crash" if crashed else str(ours.success),
        "findings": f"`{ours.error}`" if crashed else (", ".join(ours.codes) or "-"),
        "evals": f"{ours.run.evaluations:,}",
        "rounds": str(ours.rounds),
        "settle": _fmt(settling(ours.round_cv), ".2f"),
        "CPU s": f"{ours.run.cpu:.1f}",
        "nn CV": _fmt(cv, ".3f"),
        "IGD": _fmt(igd, ".4f"),
    }
    peer_cv, peer_igd = [], []
    row["seeds"] = str(len({r.seed for r in peers if r.problem == problem.name}))
    for name in peer_names:
        runs = [r for r in peers if r.method == name and r.problem == problem.name]
        if not runs:
            row[f"{bench_emo.PEER_LABELS[name]} CV / IGD"] = "-"
            continue
        # a seed whose points all coincide (pymoo's runs on DTLZ4 can end so) has no
        # spacing: its CV counts as infinite, the least even, and the cell says how many
        cvs = [normalized_cv(problem, r.points) for r in runs]
        one = sum(not np.isfinite(v) for v in cvs)
        c = float(np.mean(cvs)) if not one else math.inf
        g = float(np.mean([moocore.igd(r.points, ref=problem.reference) for r in runs]))
        peer_cv.append(c)
        peer_igd.append(g)
        shown = f"{c:.3f}" if not one else f"inf ({one} of {len(runs)} one point)"
        row[f"{bench_emo.PEER_LABELS[name]} CV / IGD"] = f"{shown} / {g:.4f}"
    row["verdict"] = (
        verdict(ours.success, ours.codes, cv, igd, peer_cv, peer_igd, crashed=crashed)
        if peer_cv
        else "-"
    )
    if row["verdict"] == "wins" and ours.success is False:
        row["verdict"] = "wins (success=False)"
    return row


def report(
    problems: Sequence[SurfaceProblem],
    ours: dict[str, Ours],
    peers: Sequence[bench_emo.Run],
    peer_names: Sequence[str],
) -> str:
    """The table: a row per problem (those with no peer run yet: paretosurf's figures
    alone), the settings above it and the tally of verdicts below."""
    rows = [problem_row(p, ours[p.name], peers, peer_names) for p in problems if p.name in ours]
    head = (
        f"{problems[0].n_points} points, three objectives; peers: pymoo's "
        f"{', '.join(bench_emo.PEER_LABELS[n] for n in peer_names)}, mean over the seeds "
        "run (seeds), each at paretosurf's evaluations (1x). problem "
        "(variables); evals: paretosurf's objective evaluations; settle: the largest nn CV of "
        f"rounds {SETTLE_FROM} onward over the smallest (`-`: fewer rounds); nn CV: "
        "nearest-neighbour CV in the objectives normalized by the true front's ranges; IGD "
        "against the true front (raw objectives). verdict: wins (CV below every peer's, IGD "
        f"within {IGD_FACTOR}x of the best peer's), says so (success=False with a finding), "
        "LOSES (a silent shortfall), crash."
    )
    counts = {
        v: sum(r["verdict"].startswith(v) for r in rows)
        for v in ("wins", "says so", "LOSES", "crash")
    }
    tally = ", ".join(f"{v}: {n}" for v, n in counts.items() if n)
    return f"{head}\n\n{bench_emo.markdown(rows)}\n\n{tally}\n" if rows else head + "\n"


# ---------------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3, help="pymoo seeds 0 .. n-1")
    parser.add_argument("--problems", default="surfaces", help="comma-separated, or surfaces")
    parser.add_argument("--peers", default=",".join(PEERS), help="comma-separated")
    parser.add_argument("--points", type=int, default=N_POINTS, help="points (a Das-Dennis count)")
    bench_io.add_options(
        parser, "emo_surfaces", docs="emo", smoke="DTLZ2, 5 variables, 10 points, NSGA-III, 1 seed"
    )
    args = parser.parse_args(argv)
    bench_io.start(args, parser)
    if args.smoke:
        args.problems, args.peers, args.seeds, args.points = "dtlz2", "nsga3", 1, 10
    names = list(SURFACES) if args.problems == "surfaces" else [
        p.strip() for p in args.problems.split(",") if p.strip()
    ]  # fmt: skip
    for n in names:
        if n not in KNOWN:
            parser.error(f"--problems: unknown {n!r} (one of {', '.join(KNOWN)})")
    peer_names = [p.strip() for p in args.peers.split(",") if p.strip()]
    for p in peer_names:
        if p not in bench_emo.PEERS:
            parser.error(f"--peers: unknown {p!r} (one of {', '.join(bench_emo.PEERS)})")
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")
    docs = bench_io.docs_dir(args)
    if docs is not None and (names != list(SURFACES) or args.points != N_POINTS):
        parser.error("--write-docs publishes every surface at the default points alone")
    command = "python benchmarks/bench_emo_surfaces.py " + " ".join(
        sys.argv[1:] if argv is None else argv
    )

    wall = time.time()
    problems = [
        make_problem(n, n_var=5 if args.smoke else None, n_points=args.points) for n in names
    ]
    ours: dict[str, Ours] = {}
    for problem in problems:
        mine = run_paretosurf(problem)
        ours[problem.name] = mine
        print(
            f"[paretosurf] {problem.name}: {mine.run.evaluations} evaluations, "
            f"{mine.run.cpu:.1f} s, success={mine.success}, findings {mine.codes}"
            + (f" {mine.error}" if mine.error else ""),
            flush=True,
        )
    # seed by seed, every problem, so that an interrupted run has a table of every problem
    peers: list[bench_emo.Run] = []
    text = ""
    for seed in range(args.seeds):
        for problem in problems:
            budget = max(ours[problem.name].run.evaluations, problem.n_points)
            for peer in peer_names:
                (run,) = bench_emo.run_peer(problem, peer, [budget], seed)
                peers.append(run)
                print(
                    f"[{peer} seed {seed}] {problem.name}: {run.evaluations} evals {run.cpu:.1f} s",
                    flush=True,
                )
            text = report(problems, ours, peers, peer_names)
            for folder in bench_io.published(args):
                prefix = (
                    f"<!-- {command} (pinned kernels, one BLAS thread; "
                    f"{(time.time() - wall) / 60:.0f} min) -->\n"
                    if folder == docs
                    else ""
                )
                (folder / "surfaces.md").write_text(prefix + text)
    print(text)
    print(f"[emo_surfaces] {(time.time() - wall) / 60:.1f} min", flush=True)
    return text


if __name__ == "__main__":
    main()
