"""paretosurf against pymoo's evolutionary algorithms at the same number of objective
evaluations: NSGA-II, NSGA-III, SMS-EMOA and MOEA/D on ZDT1, ZDT2, ZDT3 and DTLZ2.

paretosurf runs with the library's defaults: :func:`paretosurf.adapters.from_scipy` (SLSQP or
L-BFGS-B with finite-difference gradients, from the middle of the box) under
:func:`paretosurf.surf` with 21 points on the ZDT problems (30 variables; ZDT1 with the
linear scalarization, ZDT2 and ZDT3 with ``"tchebycheff"``, since weighted sums cannot reach
a concave front or ZDT3's non-convex pieces) and :func:`paretosurf.surf_simplex` with 91
points on DTLZ2 (3 objectives, 12 variables, ``"asf"``). Every call of the objectives is
counted (the adapter's construction included); that count ``E`` is the budget. Each pymoo
algorithm gets a population of the same size (NSGA-III and MOEA/D: Das-Dennis reference
directions of the same count) and the termination ``("n_eval", B)`` for ``B = E`` (1x) and
``B = 5 E`` (5x). One pymoo run per seed reaches the largest budget; the smaller budgets are
read from it (the algorithm's result after the first generation with ``n_eval >= B``), which
is the state a run stopped at ``B`` ends in (``tests/test_bench_emo.py`` checks it). paretosurf
has no randomness (its start is fixed), so it runs once per problem and stands for every seed.

Measured, per problem, method and budget, the mean and the worst over the seeds:

- IGD (moocore) against a dense sample of the true front, evenly spaced by arc length (the
  closed forms; ZDT3's front is the non-dominated part of ``f2 = 1 - sqrt(f1) - f1 sin(10 pi
  f1)``, five pieces);
- hypervolume (moocore) from the reference point printed with each table, ``1.1`` in every
  objective (ZDT3's ``f2`` lies in ``[-0.77, 1]``, inside it);
- evenness: with two objectives the gap CV (:func:`paretosurf.metrics.cv`) of the points
  sorted by ``f1``; on ZDT3 also the largest gap CV within one piece of the true front (each
  point assigned to the piece it lies closest to, pieces with three points or more), since
  the gaps between the pieces are not spacing; with three objectives the nearest-neighbour
  CV (:func:`paretosurf.metrics.nn_cv`);
- the number of distinct points on the front: within ``1e-3`` of the true front and more than
  ``1e-3`` from one another;
- CPU time (``time.process_time``), the adapter's construction included.

Each method is measured on the points its library returns: paretosurf's ``res.points``,
pymoo's ``res.F`` (the non-dominated members of the final population).

    python benchmarks/bench_emo.py                         # 3 seeds, budgets 1x and 5x
    python benchmarks/bench_emo.py --seeds 5 --problems zdt3 --budgets 1,2,5
    python benchmarks/bench_emo.py --quick                 # 10 variables, 1 seed
    python benchmarks/bench_emo.py --smoke                 # ZDT1, 4 variables, NSGA-II
    python benchmarks/bench_emo.py --problems zdt4,zdt6,flat_start --budgets 1
                                   # the adapters' defaults where plain local solves fail
    python benchmarks/bench_emo.py --problems dtlz5 --budgets 1,5
                                   # a front that is a curve in three objectives
    python benchmarks/bench_emo.py --problems convex_dtlz2 --budgets 1
                                   # pymoo's convex DTLZ2 (91 points, "asf")

The table goes to stdout and to ``table.md`` in ``--out`` (default: a folder under the system's
temporary folder, see ``benchmarks/_bench_io.py``), rewritten after every seed, so an
interrupted run leaves the seeds it finished; the figure of ZDT3's points at 1x (seed 0) to
``fronts.png`` beside it. ``--write-docs`` also writes them to ``docs/results/emo/``, the
published files: ``table.md`` and ``fronts.png`` for the default problems, and
``defaults-extra.md`` for ``--problems zdt4,zdt6,flat_start``, ``degenerate.md`` for
``--problems dtlz5`` (DTLZ5, 28 points: evenness is the nearest-neighbour CV in the raw
objectives, while paretosurf spaces its points in the objectives normalized by their ranges,
where objectives 1 and 2 span 0.71 of objective 3's range).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import moocore
import numpy as np
from numpy.typing import NDArray

import paretosurf as ps
from paretosurf import metrics

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _bench_io as bench_io
from whole_front_bank import FLAT_START_C1, FLAT_START_C2, flat_start_objectives

FloatArray = NDArray[np.float64]

PROBLEMS = ("zdt1", "zdt2", "zdt3", "dtlz2")
#: Problems the table does not run by default (`--problems zdt4,zdt6,flat_start`): ZDT4 from a
#: random start, ZDT6 from the box centre (a flat spot of f1) and the whole-front bank's
#: flat start (two targets seen through a dead zone around the start, 4 variables), all with
#: the adapters' default scalarization ("auto").
EXTRA_PROBLEMS = ("zdt4", "zdt6", "flat_start")
#: A convex surface (`--problems convex_dtlz2`): pymoo's convex DTLZ2, 91 points, ``"asf"``.
CONVEX_PROBLEMS = ("convex_dtlz2",)
#: A front of lower dimension (`--problems dtlz5`): DTLZ5's quarter circle in three objectives,
#: 28 points, ``"asf"``; published as ``degenerate.md``.
DEGENERATE_PROBLEMS = ("dtlz5",)
PEERS = ("nsga2", "nsga3", "smsemoa", "moead")
PEER_LABELS = {
    "paretosurf": "paretosurf",
    "nsga2": "NSGA-II",
    "nsga3": "NSGA-III",
    "smsemoa": "SMS-EMOA",
    "moead": "MOEA/D",
}
#: Distance to the true front within which a point counts as on it, and the distance two
#: points need between them to count as distinct.
ON_FRONT_TOL = 1e-3
#: Points of the dense reference sample of a two-objective front (all pieces together).
REFERENCE_POINTS_2D = 5000
#: The least ``f1 = 1 - exp(-4 x1) sin(6 pi x1)^6`` of ZDT6 over ``x1`` in [0, 1].
ZDT6_F1_MIN = 0.2807753191
#: Das-Dennis partitions of DTLZ2's reference sample (5151 points).
REFERENCE_PARTITIONS_3D = 100


# ---------------------------------------------------------------------------- problems
def zdt1(x: FloatArray) -> FloatArray:
    """ZDT1 at one decision vector (closed form; pymoo's ``get_problem("zdt1")``)."""
    g = 1.0 + 9.0 * float(np.mean(x[1:]))
    return np.array([x[0], g * (1.0 - math.sqrt(x[0] / g))])


def zdt4(x: FloatArray) -> FloatArray:
    """ZDT4 at one decision vector: ZDT1's front behind a separable Rastrigin ``g`` (about
    ``20^(n-1)`` local fronts)."""
    g = 1.0 + 10.0 * (x.size - 1) + float(np.sum(x[1:] ** 2 - 10.0 * np.cos(4.0 * np.pi * x[1:])))
    return np.array([x[0], g * (1.0 - math.sqrt(x[0] / g))])


def zdt6(x: FloatArray) -> FloatArray:
    """ZDT6 at one decision vector: a concave front behind ``g``'s fourth root (unbounded
    slope at the optimum) and an ``f1`` with a local minimum per hump of ``sin(6 pi x1)^6``."""
    f1 = 1.0 - math.exp(-4.0 * x[0]) * math.sin(6.0 * math.pi * x[0]) ** 6
    g = 1.0 + 9.0 * float(np.mean(x[1:])) ** 0.25
    return np.array([f1, g * (1.0 - (f1 / g) ** 2)])


def zdt2(x: FloatArray) -> FloatArray:
    """ZDT2 at one decision vector."""
    g = 1.0 + 9.0 * float(np.mean(x[1:]))
    return np.array([x[0], g * (1.0 - (x[0] / g) ** 2)])


def zdt3(x: FloatArray) -> FloatArray:
    """ZDT3 at one decision vector."""
    g = 1.0 + 9.0 * float(np.mean(x[1:]))
    f1 = float(x[0])
    return np.array([f1, g * (1.0 - math.sqrt(f1 / g) - f1 / g * math.sin(10.0 * math.pi * f1))])


def dtlz2(x: FloatArray) -> FloatArray:
    """DTLZ2 with three objectives at one decision vector."""
    g = float(np.sum((x[2:] - 0.5) ** 2))
    a, b = 0.5 * math.pi * x[0], 0.5 * math.pi * x[1]
    r = 1.0 + g
    return np.array([r * math.cos(a) * math.cos(b), r * math.cos(a) * math.sin(b), r * math.sin(a)])


def convex_dtlz2(x: FloatArray) -> FloatArray:
    """pymoo's convex DTLZ2 with three objectives at one decision vector: DTLZ2's objectives
    to the powers 4, 4 and 2 (front: ``sqrt(f1) + sqrt(f2) + f3 = 1``)."""
    return np.asarray(dtlz2(x) ** np.array([4.0, 4.0, 2.0]), dtype=np.float64)


def dtlz5(x: FloatArray) -> FloatArray:
    """DTLZ5 with three objectives at one decision vector: on its front (``g = 0``) the
    second angle is pi / 4, objectives 1 and 2 are equal and the front is a quarter circle,
    a curve in three objectives (a degenerate front)."""
    g = float(np.sum((x[2:] - 0.5) ** 2))
    a = 0.5 * math.pi * x[0]
    b = math.pi / (4.0 * (1.0 + g)) * (1.0 + 2.0 * g * x[1])
    r = 1.0 + g
    return np.array([r * math.cos(a) * math.cos(b), r * math.cos(a) * math.sin(b), r * math.sin(a)])


# The closed forms above are evaluated one decision at a time, as the inner solver calls them;
# pymoo's vectorised problems would add their per-call overhead to paretosurf's CPU time.
_OBJECTIVES: dict[str, Callable[[FloatArray], FloatArray]] = {
    "zdt1": zdt1,
    "zdt2": zdt2,
    "zdt3": zdt3,
    "zdt4": zdt4,
    "zdt6": zdt6,
    "flat_start": flat_start_objectives,
    "dtlz2": dtlz2,
    "convex_dtlz2": convex_dtlz2,
    "dtlz5": dtlz5,
}
_SCALARIZATION = {
    "zdt1": "linear",
    "zdt2": "tchebycheff",
    "zdt3": "tchebycheff",
    "zdt4": "auto",
    "zdt6": "auto",
    "flat_start": "auto",
    "dtlz2": "asf",
    "convex_dtlz2": "asf",
    "dtlz5": "asf",
}
#: ZDT4's box: x1 in [0, 1], the others in [-5, 5] (the rest: the unit box).
_LOWER = {"zdt4": -5.0}
#: Problems whose every variable has one box (the flat start: [-3, 3], its start 0).
_WHOLE_BOX = {"flat_start": (-3.0, 3.0)}
#: ZDT4 starts at a seeded random point of its box: the box's middle (0 in the Rastrigin
#: variables) is its global basin, which would make the problem no test of leaving basins.
_RANDOM_START = {"zdt4": 12345}
#: Loop options per problem, as the README's ZDT1 example has them: at exactly w = 1 ZDT1's
#: weighted sum ignores f2 and stops on a weakly Pareto-optimal point off the front.
_RUN_OPTIONS: dict[str, dict[str, Any]] = {"zdt1": {"weight_bounds": (1e-3, 1 - 1e-3)}}


@dataclasses.dataclass(frozen=True)
class Problem:
    """One benchmark problem: its objectives, the paretosurf settings and the true front.

    Attributes
    ----------
    name : str
        ``"zdt1"``, ``"zdt2"``, ``"zdt3"``, ``"zdt4"``, ``"zdt6"``, ``"flat_start"`` or
        ``"dtlz2"``, ``"convex_dtlz2"`` or ``"dtlz5"``.
    n_var, n_obj, n_points : int
        Decision variables, objectives, points asked of every method.
    scalarization : str
        paretosurf's scalarization (``from_scipy``).
    pieces : list of ndarray
        The true front, each connected piece a dense polyline (two objectives) or one dense
        sample of the surface (three), evenly spaced by arc length.
    reference : ndarray
        All pieces stacked: the IGD reference set.
    ref_point : ndarray
        Hypervolume reference point.
    """

    name: str
    n_var: int
    n_obj: int
    n_points: int
    scalarization: str
    pieces: list[FloatArray]
    reference: FloatArray
    ref_point: FloatArray

    @property
    def objectives(self) -> Callable[[FloatArray], FloatArray]:
        return _OBJECTIVES[self.name]

    def pymoo_problem(self) -> Any:
        from pymoo.problems import get_problem

        if self.name in _WHOLE_BOX:
            return _ElementwiseProblem.make(self)
        if self.n_obj == 2:
            return get_problem(self.name, n_var=self.n_var)
        return get_problem(self.name, n_var=self.n_var, n_obj=self.n_obj)

    def box(self) -> tuple[FloatArray, FloatArray]:
        """The decision variables' bounds: ``x1`` in [0, 1], the others in
        ``[_LOWER, 1]`` (ZDT4: [-5, 5])."""
        if self.name in _WHOLE_BOX:
            lo, hi = _WHOLE_BOX[self.name]
            return np.full(self.n_var, lo), np.full(self.n_var, hi)
        low = _LOWER.get(self.name)
        lower, upper = np.zeros(self.n_var), np.ones(self.n_var)
        if low is not None:
            lower[1:], upper[1:] = low, -low
        return lower, upper

    def distance(self, points: FloatArray) -> FloatArray:
        """Distance of each point to the true front."""
        if self.name == "dtlz2":
            # the front is the unit sphere's positive octant: a point in the octant is
            # | ||f|| - 1 | from it; outside, the distance to the sampled surface
            norm = np.linalg.norm(points, axis=1)
            inside = np.all(points >= 0.0, axis=1)
            dense = np.min(
                np.linalg.norm(points[:, None, :] - self.reference[None, :, :], axis=2), axis=1
            )
            return np.where(inside, np.abs(norm - 1.0), dense)
        if self.name == "convex_dtlz2":
            # |G - 1| over |grad G| for G = sqrt(f1) + sqrt(f2) + f3 (1 on the front): the
            # distance to first order, inside the octant; outside, to the sampled surface
            p = np.clip(points, 1e-300, None)
            residual = np.abs(np.sqrt(p[:, 0]) + np.sqrt(p[:, 1]) + p[:, 2] - 1.0)
            grad = np.sqrt(0.25 / p[:, 0] + 0.25 / p[:, 1] + 1.0)
            inside = np.all(points >= 0.0, axis=1)
            dense = np.min(
                np.linalg.norm(points[:, None, :] - self.reference[None, :, :], axis=2), axis=1
            )
            return np.where(inside, residual / grad, dense)
        return np.min([metrics.front_distance(points, piece) for piece in self.pieces], axis=0)

    def piece_of(self, points: FloatArray) -> NDArray[np.int64]:
        """Index of the piece of the true front each point lies closest to."""
        dist = np.stack([metrics.front_distance(points, piece) for piece in self.pieces])
        return np.asarray(np.argmin(dist, axis=0), dtype=np.int64)


class _ElementwiseProblem:
    """A pymoo problem evaluating a benchmark problem's objectives one decision at a time
    (for the problems pymoo does not have)."""

    @staticmethod
    def make(problem: Problem) -> Any:
        from pymoo.core.problem import ElementwiseProblem

        lower, upper = problem.box()
        fun = problem.objectives

        class Wrapped(ElementwiseProblem):  # type: ignore[misc]
            def __init__(self) -> None:
                super().__init__(n_var=problem.n_var, n_obj=problem.n_obj, xl=lower, xu=upper)

            def _evaluate(self, x: FloatArray, out: dict[str, Any], *args: Any, **kw: Any) -> None:
                out["F"] = fun(np.asarray(x, dtype=np.float64))

        return Wrapped()


def flat_start_front(n: int = REFERENCE_POINTS_2D) -> FloatArray:
    """The flat start's front ``(t^2 D, (1 - t)^2 D)``, ``D`` the targets' squared distance,
    evenly spaced by arc length."""
    d = float(np.sum((FLAT_START_C2 - FLAT_START_C1) ** 2))
    t = np.linspace(0.0, 1.0, 400_001)
    return _even_polyline(np.column_stack([t**2 * d, (1.0 - t) ** 2 * d]), n)


def _even_polyline(curve: FloatArray, n: int) -> FloatArray:
    """``n`` points evenly spaced by arc length along the polyline ``curve``."""
    s = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(curve, axis=0), axis=1))])
    t = np.linspace(0.0, s[-1], n)
    return np.column_stack([np.interp(t, s, curve[:, k]) for k in range(curve.shape[1])])


def zdt_front(name: str, n: int = REFERENCE_POINTS_2D) -> list[FloatArray]:
    """The true front of ZDT1, ZDT2, ZDT3, ZDT4 or ZDT6 (``g = 1``): its connected pieces,
    each a polyline of points evenly spaced by arc length, ``n`` points in all."""
    # f1 = t^2 samples the steep end f1 -> 0 (where f2 ~ 1 - sqrt(f1)) as finely as the rest
    t = np.linspace(0.0, 1.0, 400_001)
    f1 = t**2
    if name in ("zdt1", "zdt4"):
        f2 = 1.0 - np.sqrt(f1)
    elif name == "zdt6":  # f1 from its least over x1 in [0, 1] (ZDT6_F1_MIN) to 1
        f1 = ZDT6_F1_MIN + (1.0 - ZDT6_F1_MIN) * t
        f2 = 1.0 - f1**2
    elif name == "zdt2":
        f2 = 1.0 - f1**2
    elif name == "zdt3":
        f2 = 1.0 - np.sqrt(f1) - f1 * np.sin(10.0 * np.pi * f1)
    else:
        raise ValueError(f"not a ZDT problem: {name!r}")
    curve = np.column_stack([f1, f2])
    keep = moocore.is_nondominated(curve)
    idx = np.flatnonzero(keep)
    # a piece ends where the non-dominated samples skip a stretch of f1 (dominated ones;
    # near f1 = 0 ZDT2's f2 rounds to 1 and single samples drop out as weakly dominated)
    breaks = np.flatnonzero(np.diff(f1[idx]) > 1e-3) + 1
    raw = [curve[part] for part in np.split(idx, breaks)]
    lengths = np.array([np.linalg.norm(np.diff(p, axis=0), axis=1).sum() for p in raw])
    counts = np.maximum(2, np.round(n * lengths / lengths.sum()).astype(int))
    return [_even_polyline(p, int(c)) for p, c in zip(raw, counts, strict=True)]


def dtlz2_front(partitions: int = REFERENCE_PARTITIONS_3D) -> FloatArray:
    """A dense sample of DTLZ2's front (the unit sphere's positive octant): the Das-Dennis
    lattice of ``partitions`` projected onto the sphere."""
    from pymoo.util.ref_dirs import get_reference_directions

    w = np.asarray(
        get_reference_directions("das-dennis", 3, n_partitions=partitions), dtype=np.float64
    )
    return np.asarray(w / np.linalg.norm(w, axis=1, keepdims=True), dtype=np.float64)


def dtlz5_front(n: int = REFERENCE_POINTS_2D) -> FloatArray:
    """DTLZ5's front (three objectives), ``(cos t / sqrt 2, cos t / sqrt 2, sin t)`` for ``t``
    in [0, pi / 2]: ``n`` points evenly spaced by arc length along the quarter circle."""
    t = np.linspace(0.0, 0.5 * math.pi, n)
    c = np.cos(t) / math.sqrt(2.0)
    return np.column_stack([c, c, np.sin(t)])


def make_problem(name: str, *, n_var: int | None = None) -> Problem:
    """The benchmark problem ``name`` with ``n_var`` variables (default 30 for ZDT, 12 for
    DTLZ2)."""
    if name not in _OBJECTIVES:
        raise ValueError(f"problem must be one of {', '.join(PROBLEMS)}, got {name!r}")
    if name == "dtlz2":
        pieces = [dtlz2_front()]
        n_obj, n_points, default_var = 3, 91, 12
    elif name == "convex_dtlz2":
        pieces = [dtlz2_front() ** np.array([4.0, 4.0, 2.0])]
        n_obj, n_points, default_var = 3, 91, 12
    elif name == "dtlz5":
        pieces = [dtlz5_front()]
        n_obj, n_points, default_var = 3, 28, 12
    elif name == "flat_start":
        pieces = [flat_start_front()]
        n_obj, n_points, default_var = 2, 21, FLAT_START_C1.size
    else:
        pieces = zdt_front(name)
        n_obj, n_points, default_var = 2, 21, 10 if name in ("zdt4", "zdt6") else 30
    nv = default_var if n_var is None else int(n_var)
    if nv < n_obj:
        raise ValueError(f"n_var must be at least {n_obj} for {name}, got {nv}")
    return Problem(
        name=name,
        n_var=nv,
        n_obj=n_obj,
        n_points=n_points,
        scalarization=_SCALARIZATION[name],
        pieces=pieces,
        reference=np.concatenate(pieces),
        ref_point=1.1 * np.maximum(np.concatenate(pieces).max(axis=0), 1.0),
    )


# ---------------------------------------------------------------------------- runs
@dataclasses.dataclass
class Run:
    """One method's points at one budget.

    ``budget`` is the number of evaluations asked, ``evaluations`` those spent, ``cpu`` the
    process time in seconds; ``notes`` paretosurf's ``success`` and findings.
    """

    problem: str
    method: str
    seed: int
    budget: int
    evaluations: int
    cpu: float
    points: FloatArray
    notes: str = ""


def run_paretosurf(problem: Problem) -> Run:
    """paretosurf with the library's defaults; every call of the objectives counted."""
    calls = [0]
    fun = problem.objectives

    def objectives(x: FloatArray) -> FloatArray:
        calls[0] += 1
        return fun(x)

    start = time.process_time()
    lower, upper = problem.box()
    x0 = (lower + upper) / 2.0
    if problem.name in _RANDOM_START:
        rng = np.random.default_rng(_RANDOM_START[problem.name])
        x0 = lower + (upper - lower) * rng.random(problem.n_var)
    solver = ps.adapters.from_scipy(
        objectives,
        x0,
        bounds=list(zip(lower.tolist(), upper.tolist(), strict=True)),
        scalarization=problem.scalarization,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if problem.n_obj == 2:
            res = ps.surf(solver, n_points=problem.n_points, **_RUN_OPTIONS.get(problem.name, {}))
        else:
            res = ps.surf_simplex(solver, problem.n_points, problem.n_obj)
    cpu = time.process_time() - start
    del caught  # the result's findings say the same
    codes = sorted({f.code for f in res.findings})
    notes = f"success={res.success}, {len(res.history)} rounds" + (
        f", findings: {', '.join(codes)}" if codes else ""
    )
    return Run(
        problem=problem.name,
        method="paretosurf",
        seed=0,
        budget=calls[0],
        evaluations=calls[0],
        cpu=cpu,
        points=np.asarray(res.points, dtype=np.float64),
        notes=notes,
    )


def make_peer(name: str, problem: Problem) -> Any:
    """pymoo's algorithm ``name`` with a population of ``problem.n_points`` (reference
    directions of that count for NSGA-III and MOEA/D); otherwise pymoo's defaults."""
    from pymoo.algorithms.moo.moead import MOEAD
    from pymoo.algorithms.moo.nsga2 import NSGA2
    from pymoo.algorithms.moo.nsga3 import NSGA3
    from pymoo.algorithms.moo.sms import SMSEMOA
    from pymoo.util.ref_dirs import get_reference_directions

    n = problem.n_points
    if name == "nsga2":
        return NSGA2(pop_size=n)
    if name == "smsemoa":
        return SMSEMOA(pop_size=n)
    # Das-Dennis: n_partitions H gives C(H + M - 1, M - 1) directions (21 for M = 2, H = 20;
    # 91 for M = 3, H = 12)
    h = next(h for h in range(1, 1000) if math.comb(h + problem.n_obj - 1, problem.n_obj - 1) >= n)
    ref_dirs = get_reference_directions("das-dennis", problem.n_obj, n_partitions=h)
    if len(ref_dirs) != n:
        raise ValueError(f"no Das-Dennis lattice of {n} directions for {problem.n_obj} objectives")
    if name == "nsga3":
        return NSGA3(ref_dirs=ref_dirs, pop_size=n)
    if name == "moead":
        return MOEAD(ref_dirs=ref_dirs, n_neighbors=min(20, n))
    raise ValueError(f"peer must be one of {', '.join(PEERS)}, got {name!r}")


def run_peer(problem: Problem, name: str, budgets: Sequence[int], seed: int) -> list[Run]:
    """One pymoo run of ``name`` up to ``max(budgets)`` evaluations; for each budget ``B``
    the result after the first generation that reached ``n_eval >= B``."""
    from pymoo.core.callback import Callback
    from pymoo.optimize import minimize

    wanted = sorted({int(b) for b in budgets})
    if not wanted or wanted[0] < 1:
        raise ValueError(f"budgets must be positive, got {list(budgets)}")
    snaps: dict[int, tuple[int, float, FloatArray]] = {}
    start = time.process_time()

    class Snapshot(Callback):  # type: ignore[misc]
        def notify(self, algorithm: Any) -> None:
            n_eval = int(algorithm.evaluator.n_eval)
            for b in wanted:
                if b not in snaps and n_eval >= b:
                    f = np.array(algorithm.opt.get("F"), dtype=np.float64)
                    snaps[b] = (n_eval, time.process_time() - start, f)

    minimize(
        problem.pymoo_problem(),
        make_peer(name, problem),
        ("n_eval", wanted[-1]),
        seed=seed,
        callback=Snapshot(),
        verbose=False,
    )
    return [Run(problem.name, name, seed, b, snaps[b][0], snaps[b][1], snaps[b][2]) for b in wanted]


# ---------------------------------------------------------------------------- metrics
def distinct_on_front(problem: Problem, points: FloatArray) -> int:
    """Points within ``ON_FRONT_TOL`` of the true front that are more than ``ON_FRONT_TOL``
    from every other one counted (greedy, in the order given)."""
    on = points[problem.distance(points) <= ON_FRONT_TOL]
    kept: list[FloatArray] = []
    for p in on:
        if all(np.linalg.norm(p - q) > ON_FRONT_TOL for q in kept):
            kept.append(p)
    return len(kept)


def piece_cv(problem: Problem, points: FloatArray) -> float:
    """The largest gap CV within one piece of the true front (pieces with 3 points or more;
    ``nan`` if none has)."""
    order = np.argsort(points[:, 0], kind="stable")
    pts = points[order]
    which = problem.piece_of(pts)
    cvs = [
        metrics.cv(pts[which == k]) for k in range(len(problem.pieces)) if np.sum(which == k) >= 3
    ]
    cvs = [c for c in cvs if np.isfinite(c)]
    return max(cvs) if cvs else float("nan")


def measure(problem: Problem, points: FloatArray) -> dict[str, float]:
    """IGD, hypervolume, evenness, distinct points on the front and the number of points."""
    pts = np.asarray(points, dtype=np.float64)
    out: dict[str, float] = {
        "igd": float(moocore.igd(pts, ref=problem.reference)),
        "hv": float(moocore.hypervolume(pts, ref=problem.ref_point)),
        "on_front": float(distinct_on_front(problem, pts)),
        "points": float(len(pts)),
    }
    if len(pts) < 2:
        out["even"] = float("nan")
    elif problem.n_obj == 2:
        out["even"] = metrics.cv(pts[np.argsort(pts[:, 0], kind="stable")])
    else:
        out["even"] = metrics.nn_cv(pts)
    if len(problem.pieces) > 1:
        out["piece_cv"] = piece_cv(problem, pts)
    return out


# ---------------------------------------------------------------------------- table
#: Column name, key, which end is worst ("max" or "min"), format.
_COLUMNS: tuple[tuple[str, str, str, str], ...] = (
    ("IGD", "igd", "max", "{:.4g}"),
    ("HV", "hv", "min", "{:.4f}"),
    ("evenness", "even", "max", "{:.3g}"),
    ("CV within pieces", "piece_cv", "max", "{:.3g}"),
    ("on front", "on_front", "min", "{:.0f}"),
)


def _cell(values: Sequence[float], worst: str, fmt: str) -> str:
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0 or not np.any(np.isfinite(v)):
        return "-"
    mean = float(np.nanmean(v))
    bad = float(np.nanmax(v) if worst == "max" else np.nanmin(v))
    if v.size == 1 or fmt.format(mean) == fmt.format(bad):
        return fmt.format(mean)
    return f"{fmt.format(mean)} ({fmt.format(bad)})"


def table_rows(
    problem: Problem, ours: Run, peers: Sequence[Run], factors: Sequence[int]
) -> list[dict[str, str]]:
    """One row for paretosurf, then one per budget factor and peer (in the order of
    ``factors`` and ``PEERS``), each a mapping column -> cell text."""
    rows: list[dict[str, str]] = []
    groups: list[tuple[str, str, list[Run]]] = [("1x", "paretosurf", [ours])]
    for factor in factors:
        for peer in PEERS:
            runs = [r for r in peers if r.method == peer and r.budget == factor * ours.evaluations]
            if runs:
                groups.append((f"{factor}x", peer, runs))
    for budget, method, runs in groups:
        measured = [measure(problem, r.points) for r in runs]
        row = {
            "budget": budget,
            "method": PEER_LABELS[method],
            "seeds": str(len(runs)) if method != "paretosurf" else "-",
            "evals": f"{np.mean([r.evaluations for r in runs]):.0f}",
        }
        for label, key, worst, fmt in _COLUMNS:
            if key == "piece_cv" and len(problem.pieces) == 1:
                continue
            row[label] = _cell([m.get(key, float("nan")) for m in measured], worst, fmt)
        row["points"] = _cell([m["points"] for m in measured], "min", "{:.0f}")
        row["CPU s"] = _cell([r.cpu for r in runs], "max", "{:.2f}")
        rows.append(row)
    return rows


def markdown(rows: Sequence[dict[str, str]]) -> str:
    """A markdown table of ``rows`` (their keys, in order, as the header)."""
    head = list(rows[0])
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(r[h] for h in head) + " |" for r in rows]
    return "\n".join(lines)


def report(
    problems: Sequence[Problem],
    ours: dict[str, Run],
    peers: Sequence[Run],
    factors: Sequence[int],
    seeds_done: int,
) -> str:
    """The whole table: a section per problem with its settings, rows and paretosurf's
    findings."""
    parts = [
        f"Means over {seeds_done} seed{'s' if seeds_done != 1 else ''} (worst in brackets: "
        "largest IGD, evenness and CPU time, smallest HV and count). evals: objective "
        "evaluations spent; evenness: gap CV along the front (two objectives), "
        "nearest-neighbour CV (three); on front: distinct points within 1e-3 of the true "
        "front; points: points returned."
    ]
    for problem in problems:
        run = ours[problem.name]
        front_hv = float(moocore.hypervolume(problem.reference, ref=problem.ref_point))
        parts.append(
            f"### {problem.name.upper()} ({problem.n_var} variables, {problem.n_obj} "
            f"objectives, {problem.n_points} points)\n\n"
            f"paretosurf: scalarization {problem.scalarization!r}, {run.notes}. HV reference "
            f"point {tuple(float(v) for v in problem.ref_point)}; the true front's HV is "
            f"{front_hv:.4f}.\n\n"
            + markdown(
                table_rows(problem, run, [r for r in peers if r.problem == problem.name], factors)
            )
        )
    return "\n\n".join(parts) + "\n"


def plot_fronts(problem: Problem, runs: Sequence[Run], path: Path) -> None:
    """Each run's points (one panel per method) over the true front."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(runs), figsize=(3.2 * len(runs), 3.2), sharey=True)
    for ax, run in zip(np.atleast_1d(axes), runs, strict=True):
        for piece in problem.pieces:
            ax.plot(piece[:, 0], piece[:, 1], color="0.6", lw=1)
        ax.plot(run.points[:, 0], run.points[:, 1], "o", ms=4, color="C0")
        ax.set_title(f"{PEER_LABELS[run.method]} ({len(run.points)} points)", fontsize=9)
        ax.set_xlabel("f1")
    np.atleast_1d(axes)[0].set_ylabel("f2")
    fig.suptitle(f"{problem.name.upper()}, {runs[0].evaluations} evaluations (1x), seed 0")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------- main
def _int_list(text: str) -> list[int]:
    values = [int(v) for v in text.split(",") if v.strip()]
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return values


def main(argv: Sequence[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3, help="pymoo seeds 0 .. n-1")
    parser.add_argument("--problems", default=",".join(PROBLEMS), help="comma-separated")
    parser.add_argument("--peers", default=",".join(PEERS), help="comma-separated")
    parser.add_argument("--budgets", type=_int_list, default=[1, 5], help="factors of E")
    parser.add_argument("--quick", action="store_true", help="10 (DTLZ2: 7) variables, 1 seed")
    bench_io.add_options(
        parser,
        "emo",
        docs="emo",
        smoke="ZDT1, 4 variables, NSGA-II, budget 1x, 1 seed",
    )
    args = parser.parse_args(argv)
    bench_io.start(args, parser)
    if args.smoke:
        args.problems, args.peers, args.budgets, args.quick = "zdt1", "nsga2", [1], True
    docs = bench_io.docs_dir(args)
    asked = sorted(p.strip() for p in args.problems.split(","))
    published_as = {
        tuple(sorted(EXTRA_PROBLEMS)): "defaults-extra.md",
        tuple(sorted(DEGENERATE_PROBLEMS)): "degenerate.md",
    }.get(tuple(asked))
    if docs is not None and asked != sorted(PROBLEMS) and published_as is None:
        parser.error(
            "--write-docs publishes the default problems, --problems "
            f"{','.join(EXTRA_PROBLEMS)} or --problems {','.join(DEGENERATE_PROBLEMS)} alone"
        )
    names = [p.strip() for p in args.problems.split(",") if p.strip()]
    peer_names = [p.strip() for p in args.peers.split(",") if p.strip()]
    for p in peer_names:
        if p not in PEERS:
            parser.error(f"--peers: unknown {p!r} (one of {', '.join(PEERS)})")
    seeds = 1 if args.quick else args.seeds
    if seeds < 1:
        parser.error("--seeds must be at least 1")
    quick_vars = (
        {"dtlz2": 7, "convex_dtlz2": 7, "dtlz5": 7}
        if not args.smoke
        else {"dtlz2": 5, "convex_dtlz2": 5, "dtlz5": 5}
    )
    problems = [
        make_problem(n, n_var=quick_vars.get(n, 4 if args.smoke else 10) if args.quick else None)
        for n in names
    ]

    ours: dict[str, Run] = {}
    for problem in problems:
        ours[problem.name] = run_paretosurf(problem)
        r = ours[problem.name]
        print(f"[paretosurf] {problem.name}: {r.evaluations} evaluations, {r.cpu:.1f} s, {r.notes}")

    peers: list[Run] = []
    text = ""
    for seed in range(seeds):
        for problem in problems:
            e = ours[problem.name].evaluations
            for peer in peer_names:
                runs = run_peer(problem, peer, [f * e for f in args.budgets], seed)
                peers.extend(runs)
                print(
                    f"[{peer} seed {seed}] {problem.name}: "
                    + ", ".join(f"{r.evaluations} evals {r.cpu:.1f} s" for r in runs),
                    flush=True,
                )
        text = report(problems, ours, peers, args.budgets, seed + 1)
        (args.out / "table.md").write_text(text)
        if docs is not None and published_as is not None:
            given = sys.argv[1:] if argv is None else argv
            command = "python benchmarks/bench_emo.py " + " ".join(given)
            (docs / published_as).write_text(
                f"<!-- {command} (the adapters' defaults; pinned kernels, one BLAS thread) -->\n"
                + text
            )
        elif docs is not None:
            (docs / "table.md").write_text(text)
        zdt3 = next((p for p in problems if p.name == "zdt3"), None)
        if seed == 0 and zdt3 is not None:
            first = [
                r
                for r in peers
                if r.problem == "zdt3" and r.seed == 0 and r.budget == ours["zdt3"].evaluations
            ]
            for folder in bench_io.published(args):
                plot_fronts(zdt3, [ours["zdt3"], *first], folder / "fronts.png")
    print(text)
    return text


if __name__ == "__main__":
    main()
