"""The loop's own cost per round: SURF's driver with a solver that costs nothing.

``ps.surf`` with its defaults (``alpha="auto"``, ``normalize="endpoints"``, the findings at the
end) on a *free* solver: the point ``((1 - w)^2, w^2)`` of the closed-form front of
``min w (1 - x)^2 + (1 - w) x^2`` (``x = w``), made in one vectorised ``solve_many`` call a
round. For N = 10, 100 and 1000, three modes: ``defaults`` (the run stops early once its points
are even and its weights settled: a handful of rounds, the start and the end weigh more),
``every round`` (``early_stopping=False``: the round limit, 200, 100 and 30 rounds) and the
same with ``checkpoint=DIR`` (the default ``checkpoint_period="auto"``). It prints:

- ``own ms``: the run's time less the solver's, per round (the method, the CDF, the records,
  the solves' checks, the checkpoint decision and saves, and the run's start and end spread
  over its rounds); the minimum over ``--repeats`` runs;
- ``/ N ln N us``: that cost over ``N ln N``, in microseconds: flat where the loop grows as
  ``N log N``;
- the cost by phase, per round (each phase's time less the solver's where it solves):
  ``propose`` (the method's next round), ``solve`` (the executor, the solves' checks, the
  state pool), ``tell`` (SURF: breaks, end reach, CDF fit, damping), ``record`` (the front
  measured, CV, gap ratio, the weights' change), ``save`` (checkpoints), ``loop`` (the rest:
  kept states, the stop tests, ``ps.surf``'s own checks), ``end`` (the result with its
  findings, once a run, spread over its rounds) and ``start`` (once a run, likewise).

Then Fishwood with the exact solver, as ``paretosurf bench fishwood --solver exact`` runs SURF
(N = 11, 15 rounds, alpha 0.3, raw objectives, every round) and as the shortest call
``ps.surf(fishwood().solver(), 11)`` runs it: ms per round in all, in the solver and outside.

    python benchmarks/bench_loop_cost.py [--repeats 5] [--clock wall|cpu] [--out DIR]
    python benchmarks/bench_loop_cost.py --smoke     # N = 10 and 100, 5 rounds, 1 repeat

``--clock cpu`` reads this process's CPU time instead of the wall clock: steadier where other
work shares the machine. Writes the first section's table as ``loop_cost.csv`` beside
``report.txt``. To compare two versions of the library, run it under each
(``PYTHONPATH=OTHER/src``), in turns.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import _bench_io as bench_io
import numpy as np
from numpy.typing import NDArray

import paretosurf as ps
from paretosurf.loop import _driver as driver
from paretosurf.loop._reporting import RunReporting
from paretosurf.loop._start import RunStart
from paretosurf.methods._surf import SurfMethod

#: Sizes N (points: N + 1) and rounds per run at each (``--smoke``: fewer).
SIZES: dict[int, int] = {10: 200, 100: 100, 1000: 30}
#: The clock every time is read from (``--clock``): wall time, or this process's CPU time
#: (steadier on a shared machine).
CLOCK: Callable[[], float] = time.perf_counter
CLOCK_NAME = "wall"
#: The phases of a run, in the order printed.
PHASES = ("propose", "solve", "tell", "record", "save", "loop", "end", "start")


class FreeSolver:
    """A solver that costs nothing: the front point ``((1 - w)^2, w^2)`` at every weight,
    one vectorised call a round; it adds up the seconds it spends."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def solve_many(self, weights: NDArray[np.float64], states: Sequence[Any]) -> list[ps.Solution]:
        start = CLOCK()
        w = np.asarray(weights, dtype=np.float64)
        points = np.stack([(1.0 - w) ** 2, w**2], axis=1)
        out = [ps.Solution(p) for p in points]
        self.seconds += CLOCK() - start
        return out


class TimedSolver:
    """Wraps a solver with ``solve_many`` and adds up the seconds it spends."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0

    def solve_many(self, weights: NDArray[np.float64], states: Sequence[Any]) -> list[Any]:
        start = CLOCK()
        out = list(self.inner.solve_many(weights, states))
        self.seconds += CLOCK() - start
        return out


class Clock:
    """The seconds spent in each phase; :meth:`patch` times the driver's and SURF's methods
    while a run lasts (and puts them back after)."""

    def __init__(self, solver: Any) -> None:
        self.solver = solver
        self.phases = dict.fromkeys(PHASES, 0.0)

    def _timed(self, phase: str, function: Callable[..., Any], solves: bool) -> Callable[..., Any]:
        clock = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            solver_before = clock.solver.seconds
            start = CLOCK()
            try:
                return function(*args, **kwargs)
            finally:
                spent = CLOCK() - start
                if solves:
                    spent -= clock.solver.seconds - solver_before
                clock.phases[phase] += spent

        return timed

    @contextlib.contextmanager
    def patch(self) -> Iterator[None]:
        targets: list[tuple[type, str, str, bool]] = [
            (SurfMethod, "propose", "propose", False),
            (driver._Runner, "solve_round", "solve", True),
            (SurfMethod, "tell", "tell", False),
            (RunReporting, "record", "record", False),
            (driver._Runner, "checkpoint", "save", False),
            (RunReporting, "result", "end", False),
            (RunStart, "begin", "start", True),
        ]
        saved = [(owner, name, owner.__dict__[name]) for owner, name, _, _ in targets]
        try:
            for owner, name, phase, solves in targets:
                setattr(owner, name, self._timed(phase, getattr(owner, name), solves))
            yield
        finally:
            for owner, name, function in saved:
                setattr(owner, name, function)


def one_run(
    make_solver: Callable[[], Any], n: int, rounds: int, folder: Path | None, **options: Any
) -> tuple[float, float, dict[str, float], int]:
    """One SURF run: its wall seconds, the solver's, the phases' and its rounds."""
    solver = make_solver()
    clock = Clock(solver)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
        options["checkpoint"] = folder
    with clock.patch(), warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        start = CLOCK()
        res = ps.surf(solver, n, iterations=rounds, **options)
        wall = CLOCK() - start
    done = len(res.history)
    phases = dict(clock.phases)
    # the rest: what the loop does around the timed phases (and ps.surf's own checks)
    phases["loop"] = max(wall - solver.seconds - sum(phases.values()), 0.0)
    return wall, solver.seconds, phases, done


#: The run modes of the first section: label, early stopping, checkpointed.
MODES = (
    ("defaults", True, False),
    ("every round", False, False),
    ("every round, checkpoint", False, True),
)


def free_section(repeats: int, work: Path) -> list[dict[str, Any]]:
    print(
        "\nthe loop's own cost per round: ps.surf with its defaults and a free solver; "
        "'defaults' stops early (the points even, the weights settled), 'every round' runs "
        f"every round (early_stopping=False), with and without checkpoint=DIR (min over "
        f"{repeats} runs; phases from the fastest run, ms per round; clock: {CLOCK_NAME})"
    )
    head = f"{'N':>5} {'mode':<24} {'rounds':>6} {'own ms':>8} {'/ N ln N us':>12} " + " ".join(
        f"{p:>8}" for p in PHASES
    )
    print(head)
    rows = []
    for n, rounds in SIZES.items():
        for label, early, checkpointed in MODES:
            best: tuple[float, dict[str, float], int] | None = None
            for _ in range(repeats):
                wall, solver, phases, done = one_run(
                    FreeSolver,
                    n,
                    rounds,
                    work / "run" if checkpointed else None,
                    early_stopping=early,
                )
                own = (wall - solver) / done
                if best is None or own < best[0]:
                    best = (own, phases, done)
            assert best is not None
            own, phases, done = best
            per = own / (n * math.log(n))
            print(
                f"{n:>5} {label:<24} {done:>6} {1e3 * own:8.3f} {1e6 * per:12.3f} "
                + " ".join(f"{1e3 * phases[p] / done:8.3f}" for p in PHASES),
                flush=True,
            )
            rows.append(
                {
                    "n": n,
                    "mode": label,
                    "rounds": done,
                    "own_ms": 1e3 * own,
                    **{f"{p}_ms": 1e3 * phases[p] / done for p in PHASES},
                }
            )
    return rows


def fishwood_section(repeats: int) -> None:
    problem = ps.problems.fishwood()
    print(
        f"\nFishwood, exact solver (min over {repeats} runs; clock: {CLOCK_NAME}): ms per "
        "round in all, in the solver, outside it"
    )
    print(f"{'run':<50} {'rounds':>6} {'all ms':>8} {'solver ms':>10} {'outside ms':>11}")
    runs: list[tuple[str, int, int | None, dict[str, Any]]] = [
        (
            "bench task: N = 11, 15 rounds, alpha 0.3",
            11,
            15,
            {"alpha": 0.3, "normalize": "none", "early_stopping": False},
        ),
        ("shortest call: ps.surf(fishwood().solver(), 11)", 11, None, {}),
    ]
    for label, n, rounds, options in runs:
        best: tuple[float, float, int] | None = None
        for _ in range(repeats):
            solver = TimedSolver(problem.solver())
            kw = dict(options)
            if rounds is not None:
                kw["iterations"] = rounds
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ps.ParetoWarning)
                start = CLOCK()
                res = ps.surf(solver, n, **kw)
                wall = CLOCK() - start
            done = len(res.history)
            if best is None or wall / done < best[0]:
                best = (wall / done, solver.seconds / done, done)
        assert best is not None
        total, inside, done = best
        print(
            f"{label:<50} {done:>6} {1e3 * total:8.3f} {1e3 * inside:10.3f} "
            f"{1e3 * (total - inside):11.3f}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="wall time (default) or this process's CPU time, steadier on a shared machine",
    )
    bench_io.add_options(parser, "loop_cost", smoke="N = 10 and 100, 5 rounds, 1 repeat")
    args = parser.parse_args()
    out = bench_io.start(args, parser)
    global CLOCK, CLOCK_NAME
    CLOCK = time.perf_counter if args.clock == "wall" else time.process_time
    CLOCK_NAME = args.clock
    if args.smoke:
        SIZES.clear()
        SIZES.update({10: 5, 100: 5})
        args.repeats = 1
    work = Path(tempfile.mkdtemp(prefix="runs-", dir=out))
    try:
        rows = free_section(args.repeats, work)
        fishwood_section(args.repeats)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with open(out / "loop_cost.csv", "w", encoding="utf-8") as f:
        f.write(",".join(rows[0]) + "\n")
        for row in rows:
            f.write(",".join(str(v) for v in row.values()) + "\n")


if __name__ == "__main__":
    main()
