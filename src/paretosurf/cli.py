"""The ``paretosurf`` command.

Subcommands live in a registry (:data:`COMMANDS`): each is a :class:`Command` with a name, a
one-line help, a function that adds its arguments to an :mod:`argparse` subparser and a function
that runs it and returns the exit status. A new subcommand (such as a later ``bench``) is one
:func:`register` call; :func:`main` builds the parser from the registry.

``paretosurf demo`` compares SURF with fixed-weight baselines on small problems with exact
solvers and known fronts, prints a table per problem and writes plots, the results and a
``results.json`` into a folder.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "COMMANDS",
    "DEMO_METHODS",
    "DEMO_PROBLEMS",
    "Command",
    "DemoMethod",
    "DemoProblem",
    "DemoSettings",
    "build_parser",
    "hv_reference_point",
    "main",
    "register",
    "run_demo",
]

FloatArray = NDArray[np.float64]

#: HV reference point of the demo: per objective, the worst value on the exact front plus this
#: fraction of the front's range (objectives are minimized), i.e. ``nadir + 0.1 * (nadir -
#: ideal)``. Unlike a multiple of the nadir it stays behind the front for negative objectives.
HV_REFERENCE_MARGIN = 0.1

#: Number of exact front points (evenly spaced in arc length) that IGD is measured against.
IGD_REFERENCE_POINTS = 1001

#: Grid of :func:`paretosurf.metrics.cdf_error` in the demo table (knots are added to it).
CDF_ERROR_GRID = 2001


# ---------------------------------------------------------------------------- registry
@dataclass(frozen=True)
class Command:
    """One ``paretosurf`` subcommand.

    Attributes
    ----------
    name : str
        What the user types (``paretosurf NAME ...``).
    help : str
        One line for ``paretosurf --help``.
    configure : callable
        Adds the subcommand's arguments to its :class:`argparse.ArgumentParser`.
    run : callable
        Runs the subcommand with the parsed arguments; returns the exit status.
    description : str
        Longer text for ``paretosurf NAME --help`` (default: ``help``).
    """

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    description: str = ""


#: The subcommands, by name, in the order ``--help`` lists them.
COMMANDS: dict[str, Command] = {}


def register(command: Command) -> Command:
    """Add ``command`` to :data:`COMMANDS` (a name may be registered once)."""
    if not isinstance(command, Command):
        raise TypeError(f"command must be a Command, got {type(command).__name__}")
    if command.name in COMMANDS:
        raise ValueError(f"a subcommand named {command.name!r} is already registered")
    COMMANDS[command.name] = command
    return command


# ---------------------------------------------------------------------------- argument types
def _int_at_least(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be an integer >= {minimum}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}, got {value}")
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse


def _alpha(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], got {text!r}") from None
    if not (0.0 < value <= 1.0):
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], got {value}")
    return value


# ---------------------------------------------------------------------------- demo: tables
@dataclass(frozen=True)
class DemoSettings:
    """Parameters of one demo run (shared by all problems and methods)."""

    n_segments: int = 20
    iterations: int = 30
    alpha: float = 0.3
    seed: int = 0


@dataclass(frozen=True)
class DemoProblem:
    """A demo problem: ``factory()`` returns a
    :class:`~paretosurf.problems.BiObjectiveProblem` (imported lazily inside the factory)."""

    name: str
    title: str
    factory: Callable[[], Any]
    objective_names: tuple[str, str] = ("objective 1", "objective 2")


@dataclass(frozen=True)
class DemoMethod:
    """A demo method: ``run(solver, settings)`` returns a :class:`~paretosurf.SurfResult`."""

    name: str
    run: Callable[[Any, DemoSettings], Any]
    description: str = field(default="", compare=False)


def _gear_toy() -> Any:
    from paretosurf.problems.quadratic import GearToy

    return GearToy(p=9)


def _entropic_bandit() -> Any:
    from paretosurf.problems.bandit import EntropicBandit

    return EntropicBandit.paper_example()


#: Problems of ``paretosurf demo``; add one with a line here.
DEMO_PROBLEMS: list[DemoProblem] = [
    DemoProblem("gear-toy", "quadratic gear toy (p = 9)", _gear_toy,
                ("objective 1: (1 - x)^2", "objective 2: x^2")),
    DemoProblem("bandit", "entropic bandit (paper example)", _entropic_bandit,
                ("objective 1: beta KL - <R1, pi>", "objective 2: beta KL - <R2, pi>")),
]


def _run_surf(solver: Any, s: DemoSettings) -> Any:
    from paretosurf.surf import surf

    return surf(solver, s.n_segments, alpha=s.alpha, iterations=s.iterations)


def _run_uniform(solver: Any, s: DemoSettings) -> Any:
    from paretosurf.baselines.uniform import uniform

    return uniform(solver, s.n_segments, iterations=s.iterations)


def _run_random(solver: Any, s: DemoSettings) -> Any:
    from paretosurf.baselines.uniform import uniform_random

    return uniform_random(solver, s.n_segments, iterations=s.iterations, seed=s.seed)


#: Methods of ``paretosurf demo``, all given the same budget (T solves per slot).
DEMO_METHODS: list[DemoMethod] = [
    DemoMethod("SURF", _run_surf, "SURF (Algorithm 1), weights w_n = Phi_t^{-1}(n / N) refined "
               "every iteration"),
    DemoMethod("Uniform-w", _run_uniform, "fixed, evenly spaced weights w_n = n / N"),
    DemoMethod("Random-w", _run_random, "fixed, sorted random weights drawn once from --seed"),
]


# ---------------------------------------------------------------------------- demo: metrics
def hv_reference_point(reference_front: Any) -> FloatArray:
    """The demo's HV reference point: ``nadir + HV_REFERENCE_MARGIN * (nadir - ideal)``.

    Nadir and ideal are the per-objective maximum and minimum of the exact front (objectives
    are minimized). An objective that is constant on the front gets a margin of
    ``HV_REFERENCE_MARGIN * max(|nadir|, 1)``.

    Examples
    --------
    >>> from paretosurf.cli import hv_reference_point
    >>> hv_reference_point([[0.0, -1.0], [2.0, -3.0]]).tolist()
    [2.2, -0.8]
    """
    front = np.asarray(reference_front, dtype=np.float64)
    if front.ndim != 2 or front.shape[0] < 1 or not np.all(np.isfinite(front)):
        raise ValueError("reference_front must be a finite (P, M) array with P >= 1")
    nadir, ideal = front.max(axis=0), front.min(axis=0)
    spread = nadir - ideal
    spread = np.where(spread > 0, spread, np.maximum(np.abs(nadir), 1.0))
    return np.asarray(nadir + HV_REFERENCE_MARGIN * spread, dtype=np.float64)


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug or "method"


def _finite_or_none(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _fmt(value: float) -> str:
    """Four significant digits, trailing zeros kept (``1.000``, ``0.02027``, ``3086``)."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:#.4g}".rstrip(".")


_COLUMNS = ("method", "CV", "gap ratio", "HV", "IGD", "CDF err", "solver calls")


def _table(rows: Sequence[dict[str, Any]]) -> str:
    cells = [list(_COLUMNS)]
    for row in rows:
        cells.append([row["method"], _fmt(row["cv"]), _fmt(row["gap_ratio"]), _fmt(row["hv"]),
                      _fmt(row["igd"]), _fmt(row["cdf_error"]), str(row["n_solves"])])
    widths = [max(len(line[i]) for line in cells) for i in range(len(_COLUMNS))]
    lines = []
    for line in cells:
        first = line[0].ljust(widths[0])
        rest = [c.rjust(w) for c, w in zip(line[1:], widths[1:], strict=True)]
        lines.append("  ".join([first, *rest]))
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


_LEGEND = (
    "CV: std/mean of the gaps between consecutive points (0 = perfectly even); gap ratio: "
    "largest/smallest gap (1 = perfectly even).\n"
    "HV: hypervolume (higher is better) w.r.t. the reference point nadir + "
    f"{HV_REFERENCE_MARGIN} x (nadir - ideal) of the exact front, per objective.\n"
    f"IGD: inverted generational distance to {IGD_REFERENCE_POINTS} exact front points evenly "
    "spaced in arc length (lower is better).\n"
    "CDF err: max_w |Phi(w) - Phi_true(w)| of the CDF behind the final weights (the identity "
    "for Uniform-w)."
)


# ---------------------------------------------------------------------------- demo: run
def run_demo(
    out: str | Path,
    settings: DemoSettings | None = None,
    *,
    plots: bool = True,
    problems: Sequence[DemoProblem] | None = None,
    methods: Sequence[DemoMethod] | None = None,
    stream: TextIO | None = None,
) -> dict[str, Any]:
    """Run every demo method on every demo problem; print tables and write ``out``.

    Writes, per problem, ``out/<problem>/<method>.json|.npz`` (:meth:`SurfResult.save`) and,
    with ``plots``, ``front.png``, ``cdf_history.png`` and ``uniformity.png``; then
    ``out/results.json`` with all numbers. Returns the content of ``results.json``.

    Parameters
    ----------
    out : path
        Output folder (created if missing; files in it are overwritten).
    settings : DemoSettings, optional
        N, T, alpha and seed (default :class:`DemoSettings`).
    plots : bool
        Whether to draw the figures.
    problems, methods : sequence, optional
        Default :data:`DEMO_PROBLEMS` and :data:`DEMO_METHODS` (read at call time).
    stream : text file, optional
        Where the tables go (default ``sys.stdout``).

    Examples
    --------
    >>> import io, tempfile
    >>> from paretosurf.cli import DEMO_PROBLEMS, DemoSettings, run_demo
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     report = run_demo(tmp, DemoSettings(n_segments=4, iterations=3), plots=False,
    ...                       problems=DEMO_PROBLEMS[:1], stream=io.StringIO())
    >>> methods = report["problems"]["gear-toy"]["methods"]
    >>> list(methods), methods["SURF"]["n_solves"]
    (['SURF', 'Uniform-w', 'Random-w'], 15)
    """
    from paretosurf import __version__, metrics

    s = settings if settings is not None else DemoSettings()
    problem_list = list(DEMO_PROBLEMS if problems is None else problems)
    method_list = list(DEMO_METHODS if methods is None else methods)
    if not problem_list or not method_list:
        raise ValueError("the demo needs at least one problem and one method")
    write = (stream if stream is not None else sys.stdout).write
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()

    report: dict[str, Any] = {
        "paretosurf_version": __version__,
        "settings": asdict(s),
        "hv_reference_point_rule": f"nadir + {HV_REFERENCE_MARGIN} * (nadir - ideal) of the "
                                   "exact front, per objective (objectives minimized)",
        "igd_reference": f"problem.reference_front({IGD_REFERENCE_POINTS})",
        "cdf_error": f"paretosurf.metrics.cdf_error(result.cdf, problem.cdf(), "
                     f"n_grid={CDF_ERROR_GRID})",
        "problems": {},
    }
    for spec in problem_list:
        problem = spec.factory()
        folder = root / spec.name
        folder.mkdir(parents=True, exist_ok=True)
        reference = np.asarray(problem.reference_front(IGD_REFERENCE_POINTS), dtype=np.float64)
        ref_point = hv_reference_point(reference)
        true_cdf = problem.cdf()
        results: dict[str, Any] = {}
        rows: list[dict[str, Any]] = []
        for method in method_list:
            result = method.run(problem.solver(), s)
            results[method.name] = result
            stem = folder / _slug(method.name)
            result.save(stem)
            rows.append({
                "method": method.name,
                "cv": float(result.cv),
                "gap_ratio": float(result.gap_ratio),
                "hv": metrics.hypervolume(result.points, ref=ref_point),
                "igd": metrics.igd(result.points, reference),
                "cdf_error": metrics.cdf_error(result.cdf, true_cdf, n_grid=CDF_ERROR_GRID),
                "n_solves": int(result.n_solves),
                "iterations": len(result.history),
                "result_file": str(stem.with_suffix(".json").relative_to(root)),
            })
        entry: dict[str, Any] = {
            "title": spec.title,
            "problem": repr(problem),
            "hv_reference_point": ref_point.tolist(),
            "hv_exact_front": metrics.hypervolume(reference, ref=ref_point),
            "methods": {
                row["method"]: {k: (_finite_or_none(v) if isinstance(v, float) else v)
                                for k, v in row.items() if k != "method"}
                for row in rows
            },
            "plots": [],
        }
        if plots:
            entry["plots"] = _demo_plots(spec, problem, results, reference, true_cdf, folder,
                                         root)
        report["problems"][spec.name] = entry

        write(f"\n{spec.title}: {problem!r}\n")
        write(f"N = {s.n_segments} segments ({s.n_segments + 1} points), T = {s.iterations} "
              f"outer iterations, alpha = {s.alpha}, exact inner solver; HV reference point "
              f"{[round(float(v), 6) for v in ref_point]} (exact front: HV = "
              f"{_fmt(entry['hv_exact_front'])})\n")
        write(_table(rows) + "\n")

    report["seconds"] = time.perf_counter() - start
    (root / "results.json").write_text(json.dumps(report, indent=1, allow_nan=False) + "\n")
    write("\n" + _LEGEND + "\n")
    for method in method_list:
        if method.description:
            write(f"{method.name}: {method.description}.\n")
    write(f"\nwrote {root.resolve()}\n")
    return report


def _demo_plots(
    spec: DemoProblem,
    problem: Any,
    results: dict[str, Any],
    reference: FloatArray,
    true_cdf: Any,
    folder: Path,
    root: Path,
) -> list[str]:
    from paretosurf import plotting

    plt = plotting._pyplot()
    written: list[str] = []
    surf_result = next((r for r in results.values()
                        if getattr(getattr(r, "state", None), "refine", False)), None)
    figures: list[tuple[str, Any]] = [
        ("front.png", plotting.plot_front(results, reference_front=reference,
                                          title=f"{spec.title}: {problem!r}",
                                          objective_names=spec.objective_names)),
        ("uniformity.png", plotting.plot_uniformity(results)),
    ]
    if surf_result is not None:
        figures.insert(1, ("cdf_history.png",
                           plotting.plot_cdf_history(surf_result, true_cdf=true_cdf)))
    for name, fig in figures:
        if name != "front.png":
            fig.suptitle(f"{spec.title}: {problem!r}", fontsize="medium")
        path = plotting.save_figure(fig, folder / name)
        plt.close(fig)
        written.append(str(path.relative_to(root)))
    return written


def _configure_demo(parser: argparse.ArgumentParser) -> None:
    d = DemoSettings()
    parser.add_argument("--out", default="demo-output", type=Path, metavar="DIR",
                        help="output folder (default: %(default)s)")
    parser.add_argument("--n", type=_int_at_least(2), default=d.n_segments, metavar="N",
                        help="segments: N + 1 points per method (integer >= 2, "
                             "default: %(default)s)")
    parser.add_argument("--iterations", type=_int_at_least(1), default=d.iterations,
                        metavar="T", help="outer iterations (solves per slot) of every "
                                          "method (integer >= 1, default: %(default)s)")
    parser.add_argument("--alpha", type=_alpha, default=d.alpha,
                        help="SURF's damping factor in (0, 1] (default: %(default)s)")
    parser.add_argument("--seed", type=_int_at_least(0), default=d.seed, metavar="S",
                        help="seed of the Random-w baseline (default: %(default)s)")
    parser.add_argument("--no-plots", dest="plots", action="store_false",
                        help="skip the figures")


def _run_demo_command(args: argparse.Namespace) -> int:
    settings = DemoSettings(n_segments=args.n, iterations=args.iterations, alpha=args.alpha,
                            seed=args.seed)
    run_demo(args.out, settings, plots=args.plots)
    return 0


register(Command(
    name="demo",
    help="compare SURF with uniform and random weights on toy problems",
    description=(
        "Run SURF, Uniform-w and Random-w with the same budget on problems with exact solvers "
        "and known fronts (the quadratic gear toy and the entropic bandit), print a table of "
        "CV, gap ratio, HV, IGD, CDF error and solver calls per problem, and write plots, the "
        "saved results and results.json into --out."
    ),
    configure=_configure_demo,
    run=_run_demo_command,
))

# A later ``bench`` subcommand registers here, e.g.
#     register(Command("bench", "reproduce the paper's tables", bench.configure, bench.run))
# with ``bench`` importing its heavy dependencies inside ``run`` only.


# ---------------------------------------------------------------------------- entry point
def build_parser() -> argparse.ArgumentParser:
    """The ``paretosurf`` argument parser, with one subparser per registered command.

    Examples
    --------
    >>> from paretosurf.cli import build_parser
    >>> args = build_parser().parse_args(["demo", "--n", "8", "--no-plots"])
    >>> args.command, args.n, args.iterations, args.plots
    ('demo', 8, 30, False)
    """
    from paretosurf import __version__

    parser = argparse.ArgumentParser(
        prog="paretosurf",
        description="Pareto-optimal solutions spread evenly along the Pareto front (SURF).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS.values():
        child = sub.add_parser(command.name, help=command.help,
                               description=command.description or command.help)
        command.configure(child)
        child.set_defaults(_run=command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``paretosurf`` command with ``argv`` (default ``sys.argv[1:]``).

    Returns the exit status. Bad arguments, ``--help`` and ``--version`` exit through
    :class:`SystemExit` as :mod:`argparse` does (status 2 for bad arguments, 0 otherwise).
    """
    parser = build_parser()
    args = parser.parse_args(None if argv is None else [str(a) for a in argv])
    try:
        status: int = args._run(args)
    except OSError as exc:
        print(f"paretosurf {args.command}: error: {exc}", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
