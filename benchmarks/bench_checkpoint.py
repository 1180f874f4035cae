"""What checkpointing costs: a run with ``checkpoint=DIR`` against the same run without.

Side by side in one process, median of repeats, on Deep Sea Treasure (N = 15, 30 rounds) with
the exact solver and with the paper's K-step solver (K = 100 Adam steps): the plain run; the
run checkpointed with the default ``checkpoint_period="auto"`` (amortized so that saving costs
about 1% of the solving) and after every round (``checkpoint_period=0``); and the three again
with the solver's states kept as folders (``save_state``/``load_state``, one ``.npz`` per
slot), whose checkpoints are measured against the folder run without a checkpoint. Targets,
for the default: under 5% of the exact run, under 2% of the K-step run.

Two measures of the cost: the wall time against the same run without a checkpoint (the
median ratio within turns), which a busy machine blurs by several percent either way; and the
seconds the run spends checkpointing (creating the run folder; writing the solve log, the
rounds, the state, the state folders, and pruning them) as a share of its wall time,
measured inside the run, which the machine's speed changes scale alike. The verdict is on the
second; both are printed.

A second section (``--solve-log`` runs it alone) measures what the solve log costs, now that
it is written as the solves return (each pass of a round's solves appended and flushed to
``solves.jsonl`` at once, and synced with the checkpoints): the K-step run, checkpointed with
the default schedule, with the log as it is against the same run with the log made a no-op
(its lines neither built nor written), the two taking turns; the seconds of each, their ratio
(the median of the ratios within a turn), and the seconds spent in the log (building,
formatting, appending and syncing its lines) as a share of the run's wall time, measured
inside the run. Target: at most 1% of the K-step run.

A third section (``--loop`` runs it alone; the default run prints it after the others) measures
what the loop itself costs over a long run: SURF for 300 rounds at N = 1000 with a solver that
costs nothing (points on the closed-form front of ``Quadratic1D(1, 1, 4, 0)``), no checkpoint.
It prints the driver's own time per round (``seconds - solve_seconds``), median over rounds
1-30 and 271-300, their ratio (target: within 1.2) and the CDF's knots at the end, with the
CDF's knot pruning (:data:`paretosurf.curves._cdf.KNOT_PRUNE_TOL`) and without it, side by side.

    python benchmarks/bench_checkpoint.py [--repeats 3] [--solve-log | --loop] [--out DIR]
    python benchmarks/bench_checkpoint.py --smoke   # every section: 3 rounds, 1 repeat, N = 50
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import _bench_io as bench_io
import numpy as np
from numpy.typing import NDArray

import paretosurf as ps
from paretosurf.bench import get_task
from paretosurf.curves import _cdf as cdf_module
from paretosurf.problems.quadratic import Quadratic1D
from paretosurf.solvers import GradientState

#: The loop section: rounds, N, the blocks of rounds compared and the target on their ratio.
LOOP_ROUNDS = 300
LOOP_SEGMENTS = 1000
LOOP_BLOCK = 30
LOOP_TARGET = 1.2
#: Rounds of the Deep Sea Treasure runs (None: the task's 30; ``--smoke``: 3), and the
#: exact runs' repeats per K-step run's (``--smoke``: 1).
ROUNDS: int | None = None
EXACT_REPEATS = 5


class FolderStates:
    """Wraps a solver so that its states live in folders (one ``state.npz`` each)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def solve_many(self, weights: np.ndarray, states: list[Any]) -> list[ps.Solution]:
        return list(self.inner.solve_many(weights, states))

    def save_state(self, state: Any, folder: Path) -> None:
        if isinstance(state, GradientState):
            np.savez(
                folder / "state.npz", params=state.params, m=state.m, v=state.v, t=np.array(state.t)
            )
        else:
            np.savez(folder / "state.npz", policy=np.asarray(state))

    def load_state(self, folder: Path) -> Any:
        with np.load(folder / "state.npz") as data:
            if "params" in data:
                return GradientState(data["params"], data["m"], data["v"], int(data["t"]))
            return data["policy"]


#: The ways of running: (checkpointed, states in folders, checkpoint_period). A run with
#: states in folders pays for them without a checkpoint too (in a temporary folder: a warm
#: start shared by several slots goes through its folder, so that each gets its own copy), so
#: the checkpoint's cost is measured against the same run without one.
MODES: dict[str, tuple[bool, bool, float | str]] = {
    "no checkpoint": (False, False, "auto"),
    "checkpoint": (True, False, "auto"),
    "every round": (True, False, 0.0),
    "disk, no checkpoint": (False, True, "auto"),
    "states on disk": (True, True, "auto"),
    "disk, every round": (True, True, 0.0),
}


class CheckpointClock:
    """Adds up the seconds spent checkpointing: the run folder's creation and every
    checkpoint (the last one included)."""

    def __init__(self) -> None:
        from paretosurf.loop import _driver as driver
        from paretosurf.storage import _run_folder as run_folder

        self.seconds = 0.0
        self._patched = [(driver._Runner, "checkpoint"), (run_folder.RunFolder, "create")]
        self._originals = [getattr(owner, name) for owner, name in self._patched]
        for (owner, name), original in zip(self._patched, self._originals, strict=True):
            setattr(owner, name, self._timing(original))

    def _timing(self, original: Any) -> Any:
        def timed_call(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        return timed_call

    def close(self) -> None:
        for (owner, name), original in zip(self._patched, self._originals, strict=True):
            setattr(owner, name, original)


def dst_run(kind: str, on_disk: bool, checkpointed: bool, period: float | str) -> float:
    """Wall seconds of one Deep Sea Treasure run (in a temporary run folder if
    ``checkpointed``)."""
    task = get_task("dst")
    problem = task.make_problem()
    solver = task.solver(problem, kind)
    init, _ = task.initial_states(problem, solver, kind, task.n_segments, seed=0)
    inner: Any = FolderStates(solver) if on_disk else solver
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "run" if checkpointed else None
        start = time.perf_counter()
        ps.surf(
            inner,
            task.n_segments,
            alpha=task.alpha,
            iterations=task.iterations if ROUNDS is None else ROUNDS,
            init_states=init,
            warm_start=task.warm_start,
            normalize=task.normalize,
            checkpoint=folder,
            **({} if folder is None else {"checkpoint_period": period}),
        )
        return time.perf_counter() - start


def timed(kind: str, mode: str) -> tuple[float, float]:
    """Wall seconds of the run, and the share of them spent checkpointing."""
    checkpointed, on_disk, period = MODES[mode]
    clock = CheckpointClock()
    try:
        wall = dst_run(kind, on_disk, checkpointed, period)
    finally:
        clock.close()
    return wall, clock.seconds / wall


#: The solve log's target: at most this share of the K-step run's wall time.
SOLVE_LOG_TARGET = 0.01


class SolveLogClock:
    """Adds up the seconds a run spends in its solve log: building, formatting, appending and
    flushing its lines as the solves return (:meth:`Checkpointer.log`), and syncing them to
    the disk with a checkpoint (:meth:`RunFolder.sync_solves`; the log was synced with
    checkpoints before it was written as the solves return, too). With ``off``, the log is
    made a no-op instead (then there is nothing to sync either)."""

    def __init__(self, off: bool = False) -> None:
        from paretosurf.loop._checkpointing import Checkpointer
        from paretosurf.storage import _run_folder as run_folder

        #: Seconds appending, seconds syncing, and the lines written (the run's attempts).
        self.appending = self.syncing = 0.0
        self.lines = 0
        self._patched = [(Checkpointer, "log"), (run_folder.RunFolder, "sync_solves")]
        self._originals = [getattr(owner, name) for owner, name in self._patched]
        log, sync = self._originals

        def timed_log(checkpointer: Any, outcomes: Any, *args: Any, **kwargs: Any) -> None:
            start = time.perf_counter()
            log(checkpointer, outcomes, *args, **kwargs)
            self.appending += time.perf_counter() - start
            self.lines += sum(1 + len(o.lost) for o in outcomes)

        def timed_sync(folder: Any) -> None:
            start = time.perf_counter()
            sync(folder)
            self.syncing += time.perf_counter() - start

        for owner, name in self._patched:
            setattr(owner, name, self._nothing if off else {"log": timed_log}.get(name, timed_sync))

    @staticmethod
    def _nothing(*args: Any, **kwargs: Any) -> None:
        return None

    def close(self) -> None:
        for (owner, name), original in zip(self._patched, self._originals, strict=True):
            setattr(owner, name, original)


def solve_log_section(repeats: int) -> None:
    """The solve log's cost on the K-step run (default checkpoint schedule): the log as it is
    against the log made a no-op, the two taking turns."""
    print(
        f"\nthe solve log, written as the solves return: Deep Sea Treasure, N = 15, "
        f"{ROUNDS or 30} rounds, "
        f"K-step solver, checkpoint_period='auto' (median of {repeats} runs each, taking turns)"
    )
    print(
        "in the log: the share of the run's wall time spent in the solve log (the verdict): "
        "appending its lines as the solves return, plus syncing them with the checkpoints"
    )
    print(
        f"{'log on s':>9} {'log off s':>10} {'on/off':>7} {'appending':>10} {'syncing':>8} "
        f"{'in the log':>11} {'lines':>6} {'target':>7}"
    )
    on: list[float] = []
    off: list[float] = []
    appending: list[float] = []
    syncing: list[float] = []
    lines = 0
    for _ in range(repeats):
        for logged in (True, False):
            clock = SolveLogClock(off=not logged)
            try:
                wall = dst_run("gradient", False, True, "auto")
            finally:
                clock.close()
            if logged:
                on.append(wall)
                appending.append(clock.appending / wall)
                syncing.append(clock.syncing / wall)
                lines = clock.lines
            else:
                off.append(wall)
    share = float(np.median(np.add(appending, syncing)))
    verdict = "met" if share <= SOLVE_LOG_TARGET else "MISSED"
    print(
        f"{np.median(on):9.3f} {np.median(off):10.3f} {np.median(np.divide(on, off)):7.3f} "
        f"{np.median(appending):10.3%} {np.median(syncing):8.3%} {share:11.3%} {lines:6d} "
        f"{SOLVE_LOG_TARGET:7.0%} {verdict}",
        flush=True,
    )


class FreeFront:
    """A solver that costs nothing: the closed-form front point at each weight."""

    def __init__(self) -> None:
        self.problem = Quadratic1D(1.0, 1.0, 4.0, 0.0)

    def solve_many(
        self, weights: NDArray[np.float64], states: Sequence[Any]
    ) -> Sequence[ps.Solution]:
        return [ps.Solution(point, state=None) for point in self.problem.front(weights)]


def loop_times(prune: bool) -> tuple[np.ndarray, int]:
    """The driver's own seconds per round of the long run, and the CDF's knots at the end."""
    saved = cdf_module.KNOT_PRUNE_TOL
    cdf_module.KNOT_PRUNE_TOL = saved if prune else 0.0
    try:
        res = ps.surf(FreeFront(), LOOP_SEGMENTS, alpha=0.3, iterations=LOOP_ROUNDS)
    finally:
        cdf_module.KNOT_PRUNE_TOL = saved
    own = np.array([r.seconds - r.solve_seconds for r in res.history])
    return own, res.cdf.knots.size if res.cdf is not None else 0


def loop_section() -> None:
    print(
        f"\nthe loop over a long run: SURF, N = {LOOP_SEGMENTS}, alpha = 0.3, {LOOP_ROUNDS} "
        "rounds, a solver that costs nothing, no checkpoint"
    )
    print("own: the driver's time per round (seconds - solve_seconds), median over the rounds")
    first = f"rounds 1-{LOOP_BLOCK}"
    last = f"rounds {LOOP_ROUNDS - LOOP_BLOCK + 1}-{LOOP_ROUNDS}"
    print(
        f"{'CDF':<16} {first + ' ms':>15} {last + ' ms':>18} {'last/first':>11} "
        f"{'knots at end':>13} {'target':>7}"
    )
    for label, prune in (("pruned", True), ("not pruned", False)):
        own, knots = loop_times(prune)
        head = float(np.median(own[:LOOP_BLOCK]))
        tail = float(np.median(own[-LOOP_BLOCK:]))
        ratio = tail / head
        # the target is for the library as it is; the row without pruning is for comparison
        verdict = "" if not prune else "met" if ratio <= LOOP_TARGET else "MISSED"
        print(
            f"{label:<16} {1e3 * head:15.2f} {1e3 * tail:18.2f} {ratio:11.2f} {knots:13d} "
            f"{LOOP_TARGET:7.1f} {verdict}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    only = parser.add_mutually_exclusive_group()
    only.add_argument(
        "--solve-log",
        action="store_true",
        help="only the solve log's cost on the K-step run (with the log on and made a no-op)",
    )
    only.add_argument(
        "--loop",
        action="store_true",
        help="only the loop section (300 rounds at N = 1000, under a minute)",
    )
    bench_io.add_options(
        parser, "checkpoint", smoke="every section: DST 3 rounds, 1 repeat; the loop N = 50"
    )
    args = parser.parse_args()
    bench_io.start(args, parser)
    if args.smoke:
        global ROUNDS, LOOP_ROUNDS, LOOP_SEGMENTS, LOOP_BLOCK, EXACT_REPEATS
        ROUNDS, LOOP_ROUNDS, LOOP_SEGMENTS, LOOP_BLOCK, EXACT_REPEATS = 3, 20, 50, 5, 1
        args.repeats = 1
    if args.loop:
        loop_section()
        return
    if args.solve_log:
        solve_log_section(args.repeats)
        return
    print(
        f"checkpoint cost on Deep Sea Treasure, N = 15, {ROUNDS or 30} rounds (median of "
        f"{EXACT_REPEATS * args.repeats} exact and {args.repeats} K-step runs, modes "
        "interleaved)"
    )
    print(
        "overhead: against the same run without a checkpoint (for 'disk, no checkpoint': "
        "what keeping states in folders costs against keeping them in memory)"
    )
    print("in checkpoints: the share of the run's wall time spent checkpointing (the verdict)")
    print(
        f"{'solver':<10} {'run':<20} {'seconds':>9} {'overhead':>9} {'in checkpoints':>15}"
        f" {'target':>7}"
    )
    for kind, target in (("exact", 0.05), ("gradient", 0.02)):
        modes = tuple(MODES)
        # the modes take turns within each repeat, so that a drift of the machine's speed
        # falls on all of them; the exact runs are short, so they get five times the repeats
        repeats = args.repeats * (EXACT_REPEATS if kind == "exact" else 1)
        runs: dict[str, list[float]] = {m: [] for m in modes}
        shares: dict[str, list[float]] = {m: [] for m in modes}
        for _ in range(repeats):
            for m in modes:
                wall, share = timed(kind, m)
                runs[m].append(wall)
                shares[m].append(share)
        seconds = {m: float(np.median(t)) for m, t in runs.items()}

        def overhead(mode: str, base: str, runs: dict[str, list[float]] = runs) -> float:
            # the median of the ratios within each turn: a drift of the machine's speed
            # between turns cancels
            return float(np.median(np.divide(runs[mode], runs[base]))) - 1.0

        for mode in modes:
            checkpointed, on_disk, period = MODES[mode]
            over = overhead(mode, "disk, no checkpoint" if on_disk else "no checkpoint")
            share = float(np.median(shares[mode]))
            # the targets are for the default; every-round rows are for comparison
            verdict = (
                ""
                if period != "auto" or not checkpointed
                else "met"
                if share < target
                else "MISSED"
            )
            against = (
                f"{over:9.1%}"
                if checkpointed
                else (f"{'':9}" if not on_disk else f"{overhead(mode, 'no checkpoint'):9.1%}")
            )
            inside = f"{share:15.2%}" if checkpointed else f"{'':15}"
            print(
                f"{kind:<10} {mode:<20} {seconds[mode]:9.3f} {against} {inside} "
                f"{target:6.0%} {verdict}",
                flush=True,
            )
    solve_log_section(args.repeats)
    loop_section()


if __name__ == "__main__":
    main()
