"""Basin-escape probes (the ``probes`` option) on pymoo's ZDT problems: SURF through
``from_pymoo`` (scipy's L-BFGS-B per weight) with the default ``probes="auto"`` and with
``probes=False``, side by side.

- ZDT1 (10 variables, 21 points, the default start): what the probes cost, in objective
  evaluations (the target is at most +10%), and whether they changed the result.
- ZDT4 (5 variables, 11 points) from random starts in the box (seeds 0, 1, 2) and from the
  default start (the box centre, which lies in the global basin): points on the true front
  (g < 1.01, with g from the points: ``f2 = g (1 - sqrt(f1 / g))``), the median g, and IGD
  (moocore) against 1000 points of the true front ``f2 = 1 - sqrt(f1)``.
- ZDT6 (10 variables, 11 points) from its default start (the box centre, where f1's
  gradient vanishes): distinct points on the true front ``f2 = 1 - f1^2`` and IGD against
  1000 points of it, with ``weight_bounds=(1e-3, 1 - 1e-3)``.

Prints a table (and writes it to ``report.txt`` in ``--out``).

    python benchmarks/bench_basin_probes.py
    python benchmarks/bench_basin_probes.py --share 0.3      # probes' share of evaluations
    python benchmarks/bench_basin_probes.py --smoke    # 2-4 variables, 5 points, 3 rounds
"""

from __future__ import annotations

import argparse
import functools
import time
import warnings
from collections.abc import Callable
from typing import Any

import _bench_io as bench_io
import moocore
import numpy as np
from pymoo.problems import get_problem

import paretosurf as ps
from paretosurf.loop._basin_probes import PROBED, BasinProbes

#: A point lies on the true front within this distance (ZDT4: g < 1 + ON_FRONT).
ON_FRONT = 0.01
#: ZDT6's front starts at the least f1: 1 - exp(-4 x) sin(6 pi x)^6 over x in [0, 1].
ZDT6_F1_MIN = 0.2807753191


def zdt4_g(points: np.ndarray) -> np.ndarray:
    """ZDT4's g from its points (the root of ``g - sqrt(f1) sqrt(g) - f2 = 0``)."""
    f1, f2 = points.T
    return np.asarray(((np.sqrt(f1) + np.sqrt(f1 + 4.0 * f2)) / 2.0) ** 2)


def zdt1_front(n: int = 1000) -> np.ndarray:
    f1 = np.linspace(0.0, 1.0, n)
    return np.column_stack([f1, 1.0 - np.sqrt(f1)])


def zdt6_front(n: int = 1000) -> np.ndarray:
    f1 = np.linspace(ZDT6_F1_MIN, 1.0, n)
    return np.column_stack([f1, 1.0 - f1**2])


def distinct(points: np.ndarray) -> int:
    return len(np.unique(points.round(4), axis=0)) if len(points) else 0


def run(make: Callable[[], Any], probes: Any, **options: Any) -> tuple[ps.Result, float]:
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ps.surf(make(), probes=probes, **options)
    return res, time.perf_counter() - start


def moved(res: ps.Result) -> str:
    found = [f for f in res.findings if f.code == PROBED]
    return "-" if not found else found[0].summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--share", type=float, default=None, help="BasinProbes(share=...)")
    bench_io.add_options(
        parser,
        "basin_probes",
        smoke="2-4 variables, 5 points, 3 rounds, ZDT4 and ZDT6 with the probes only",
    )
    args = parser.parse_args()
    bench_io.start(args, parser)
    # variables and points of ZDT1, ZDT4, ZDT6, and the rounds' cap (--smoke: tiny)
    n_var, n_points = ((4, 2, 2), (5, 5, 5)) if args.smoke else ((10, 5, 10), (21, 11, 11))
    cap = {"iterations": 3} if args.smoke else {}
    on: Any = "auto" if args.share is None else BasinProbes(share=args.share)
    settings = [("off", False), ("probes" if args.share is None else f"share {args.share}", on)]
    # ZDT4's and ZDT6's settings (--smoke: the probes only; their global end search is slow)
    hard = settings[1:] if args.smoke else settings

    print(f"ZDT1, {n_var[0]} variables, {n_points[0]} points, default start")
    zdt1 = get_problem("zdt1", n_var=n_var[0])
    base = None
    for label, probes in settings:
        res, seconds = run(
            lambda: ps.adapters.from_pymoo(zdt1), probes, n_points=n_points[0], **cap
        )
        evals = res.n_evaluations or 0
        base = evals if base is None else base
        print(
            f"  {label:9} evaluations {evals:6d} ({100 * (evals / base - 1):+5.1f}%), "
            f"solves {res.n_solves:4d}, rounds {len(res.history):2d}, "
            f"IGD {moocore.igd(res.points, ref=zdt1_front()):.2e}, {seconds:5.1f}s, "
            f"moved: {moved(res)}"
        )

    print(f"\nZDT4, {n_var[1]} variables, {n_points[1]} points (g = 1 on the true front)")
    zdt4 = get_problem("zdt4", n_var=n_var[1])
    starts = {
        f"random {seed}": zdt4.xl
        + (zdt4.xu - zdt4.xl) * np.random.default_rng(seed).random(n_var[1])
        for seed in ((0,) if args.smoke else (0, 1, 2))
    }
    starts["centre"] = (zdt4.xl + zdt4.xu) / 2.0
    if args.smoke:
        del starts["centre"]
    for name, x0 in starts.items():
        for label, probes in hard:
            make = functools.partial(ps.adapters.from_pymoo, zdt4, x0=x0)
            res, seconds = run(make, probes, n_points=n_points[1], **cap)
            g = zdt4_g(res.points)
            print(
                f"  {name:8} {label:9} on front {int(np.sum(g < 1 + ON_FRONT)):2d}/"
                f"{n_points[1]}, "
                f"median g {np.median(g):7.2f}, min g {g.min():7.2f}, "
                f"IGD {moocore.igd(res.points, ref=zdt1_front()):8.3f}, "
                f"evaluations {res.n_evaluations:6d}, {seconds:5.1f}s, moved: {moved(res)}"
            )

    print(
        f"\nZDT6, {n_var[2]} variables, {n_points[2]} points, default start, "
        "weight_bounds=(1e-3, 1 - 1e-3)"
    )
    zdt6 = get_problem("zdt6", n_var=n_var[2])
    for label, probes in hard:
        res, seconds = run(
            lambda: ps.adapters.from_pymoo(zdt6),
            probes,
            n_points=n_points[2],
            weight_bounds=(1e-3, 1 - 1e-3),
            **cap,
        )
        f1, f2 = res.points.T
        front = res.points[np.abs(f2 - (1.0 - f1**2)) <= 1e-6]
        print(
            f"  {label:9} on front {len(front):2d}/{n_points[2]} ({distinct(front)} distinct: "
            f"f1 = {sorted({round(float(v), 3) for v in front[:, 0]})}), "
            f"IGD {moocore.igd(res.points, ref=zdt6_front()):.3f}, "
            f"evaluations {res.n_evaluations:6d}, {seconds:5.1f}s, moved: {moved(res)}"
        )


if __name__ == "__main__":
    main()
