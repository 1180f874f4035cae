"""The paper's ablation of SURF (appendix, DST): CDF error per outer iteration against N, alpha, K.

:func:`run_ablation` runs SURF on a task and records ``||Phi_t - Phi||_inf`` (``Phi_0`` the
identity, ``Phi_t`` the CDF after ``t`` outer iterations, ``Phi`` the task's true CDF) for

(a) ``N`` in ``n_list`` (K-step solver, ``alpha_fixed``),
(b) ``alpha`` in ``alphas`` (``N = n_fixed``),
(c) the inner budget ``K`` in ``steps_list`` (``N = n_fixed``, ``alpha_fixed``; the task's
    solver rebuilt with ``steps = K``),
(d) the final error against ``N`` in ``exact_n_list`` with the exact inner solver, with the
    fitted log-log slope and the reference ``C * N^-2`` (the paper's discretization floor).

Runs (a)-(c) follow the task's K-step protocol (:meth:`Task.initial_states`,
:meth:`Task.solver`); a setting shared by several panels is run once. :func:`write_ablation`
writes ``ablation.json`` (every curve) and ``ablation.png`` (four panels).
"""

from __future__ import annotations

import dataclasses
import json
import math
import numbers
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf import metrics
from paretosurf._utils.validation import check_alpha, check_positive_int
from paretosurf.bench.tasks import SOLVER_KINDS, Task
from paretosurf.curves import ArcLengthCDF
from paretosurf.result import Result

__all__ = [
    "ABLATION_ALPHAS",
    "ABLATION_EXACT_N",
    "ABLATION_N",
    "ABLATION_STEPS",
    "AblationCurve",
    "AblationReport",
    "cdf_error_curve",
    "fit_power_law",
    "format_ablation_table",
    "plot_ablation",
    "run_ablation",
    "write_ablation",
]

FloatArray = NDArray[np.float64]

#: Panel (a): segments N (N + 1 points), as in the paper's DST ablation.
ABLATION_N = (5, 10, 15, 25, 50)
#: Panel (b): damping factors alpha.
ABLATION_ALPHAS = (0.2, 0.3, 0.5, 0.9)
#: Panel (c): inner steps K per solver call.
ABLATION_STEPS = (10, 30, 100)
#: Panel (d): segments N of the final-error-against-N curve (exact inner solver).
ABLATION_EXACT_N = tuple(range(4, 21, 2))
#: Grid of the CDF error (knots of the estimated CDF are added to it).
CDF_GRID = 4001

_PANELS = ("n_segments", "alpha", "steps")
_PANEL_TITLES = {
    "n_segments": "(a) number of segments N",
    "alpha": "(b) damping alpha",
    "steps": "(c) inner steps K",
}


# ------------------------------------------------------------------------------- pieces
def cdf_error_curve(
    result: Result, true_cdf: Callable[[FloatArray], ArrayLike], *, n_grid: int = CDF_GRID
) -> FloatArray:
    """``||Phi_t - Phi||_inf`` for ``t = 0..T``: the identity ``Phi_0``, then each iteration's CDF.

    Parameters
    ----------
    result : Result
        A SURF run; ``result.history[t].cdf`` is ``Phi_{t+1}``.
    true_cdf : callable
        The true CDF ``Phi`` (vectorised on [0, 1]).
    n_grid : int
        Grid of :func:`paretosurf.metrics.cdf_error`.

    Returns
    -------
    ndarray, shape (T + 1,)

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.bench.ablation import cdf_error_curve
    >>> prob = ps.problems.GearToy(9)
    >>> res = ps.surf(prob.solver(), 8, iterations=3)
    >>> curve = cdf_error_curve(res, prob.cdf())
    >>> curve.shape, bool(curve[-1] < curve[0])
    ((4,), True)
    """
    if not isinstance(result, Result):
        raise TypeError(f"result must be a Result, got {type(result).__name__}")
    if not callable(true_cdf):
        raise TypeError(f"true_cdf must be a callable CDF, got {type(true_cdf).__name__}")
    cdfs = [ArcLengthCDF.identity(), *(record.cdf for record in result.history)]
    if any(c is None for c in cdfs):
        raise ValueError(
            f"result must come from SURF (whose records hold its CDF), got a {result.label} result"
        )
    return np.array(
        [metrics.cdf_error(c, true_cdf, n_grid=n_grid) for c in cdfs if c is not None],
        dtype=np.float64,
    )


def fit_power_law(n: ArrayLike, errors: ArrayLike) -> tuple[float, float]:
    """Least-squares fit of ``log(errors) = slope * log(n) + log(C)``; returns ``(slope, C)``.

    Examples
    --------
    >>> from paretosurf.bench.ablation import fit_power_law
    >>> slope, c = fit_power_law([4, 8, 16], [3 / 16, 3 / 64, 3 / 256])
    >>> round(slope, 6), round(c, 6)
    (-2.0, 3.0)
    """
    x = np.asarray(n, dtype=np.float64)
    y = np.asarray(errors, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape or x.size < 2:
        raise ValueError(
            "n and errors must be 1-D arrays of the same length >= 2, got shapes "
            f"{x.shape} and {y.shape}"
        )
    if np.unique(x).size < 2:
        raise ValueError("n must hold at least two distinct values")
    if not (np.all(np.isfinite(x)) and np.all(x > 0) and np.all(np.isfinite(y)) and np.all(y > 0)):
        raise ValueError("n and errors must be finite and > 0 for a log-log fit")
    slope, intercept = np.polyfit(np.log(x), np.log(y), 1)
    return float(slope), float(np.exp(intercept))


# ------------------------------------------------------------------------------- results
@dataclass
class AblationCurve:
    """One SURF run of the ablation.

    Attributes
    ----------
    n_segments, alpha : int, float
        SURF's N and damping factor.
    steps : int or None
        Inner steps K per solver call (None: exact solver).
    solver_kind : str
        "gradient" or "exact".
    errors : ndarray, shape (T + 1,)
        ``||Phi_t - Phi||_inf`` for ``t = 0..T`` (``errors[0]``: the identity ``Phi_0``).
    seconds : float
        Wall time of the run.
    result : Result
        The run itself (not serialised).
    """

    n_segments: int
    alpha: float
    steps: int | None
    solver_kind: str
    errors: FloatArray
    seconds: float
    result: Result | None = field(default=None, repr=False, compare=False)

    @property
    def final_error(self) -> float:
        return float(self.errors[-1])

    def to_json(self) -> dict[str, Any]:
        return {
            "n_segments": self.n_segments,
            "alpha": self.alpha,
            "steps": self.steps,
            "solver": self.solver_kind,
            "errors": self.errors.tolist(),
            "final_error": self.final_error,
            "n_solves": _n_solves(self.result),
            "seconds": self.seconds,
        }


def _n_solves(result: Result | None) -> int | None:
    return None if result is None else int(result.n_solves)


@dataclass
class AblationReport:
    """What :func:`run_ablation` measured; :meth:`to_json` is the ``ablation.json`` content.

    ``panels`` maps "n_segments", "alpha" and "steps" to ``(value, curve)`` pairs (an empty list
    for a skipped panel); ``exact`` holds panel (d)'s curves, ``slope`` and ``constant`` the
    fit ``C * N^slope`` of their final errors and ``constant_n2`` the ``C`` of ``C * N^-2``.
    """

    task: Task
    solver_kind: str
    iterations: int
    seed: int
    n_fixed: int
    alpha_fixed: float
    panels: dict[str, list[tuple[float, AblationCurve]]]
    exact: list[AblationCurve]
    slope: float | None
    constant: float | None
    constant_n2: float | None
    seconds: float

    def to_json(self) -> dict[str, Any]:
        fixed = {
            "n_segments": {"alpha": self.alpha_fixed, "steps": self._steps()},
            "alpha": {"n_segments": self.n_fixed, "steps": self._steps()},
            "steps": {"n_segments": self.n_fixed, "alpha": self.alpha_fixed},
        }
        return {
            "task": self.task.name,
            "title": self.task.title,
            "solver": self.solver_kind,
            "iterations": self.iterations,
            "seed": self.seed,
            "error": "max_w |Phi_t(w) - Phi(w)| on a uniform grid of [0, 1] "
            f"({CDF_GRID} points plus the knots); errors[0] is Phi_0 = identity",
            "panels": {
                name: {
                    "title": _PANEL_TITLES[name],
                    "varies": name,
                    "fixed": fixed[name],
                    "curves": [
                        dict(value=value, **curve.to_json()) for value, curve in self.panels[name]
                    ],
                }
                for name in _PANELS
            },
            "final_error_vs_n": {
                "solver": "exact",
                "alpha": self.alpha_fixed,
                "iterations": self.iterations,
                "n_segments": [c.n_segments for c in self.exact],
                "final_error": [c.final_error for c in self.exact],
                "curves": [c.to_json() for c in self.exact],
                "fitted_slope": self.slope,
                "fitted_constant": self.constant,
                "reference": {"exponent": -2, "constant": self.constant_n2},
            },
            "seconds": self.seconds,
        }

    def _steps(self) -> int | None:
        return self.task.steps if self.solver_kind == "gradient" else None


# ------------------------------------------------------------------------------- the run
def _int_list(values: Sequence[int], name: str) -> list[int]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise TypeError(f"{name} must be a sequence of integers >= 1, got {values!r}")
    out = [check_positive_int(v, name=name) for v in values]
    if len(set(out)) != len(out):
        raise ValueError(f"{name} must not repeat values, got {list(values)}")
    return out


def run_ablation(
    task: Task,
    *,
    n_list: Sequence[int] = ABLATION_N,
    alphas: Sequence[float] = ABLATION_ALPHAS,
    steps_list: Sequence[int] | None = None,
    exact_n_list: Sequence[int] = ABLATION_EXACT_N,
    n_fixed: int = 15,
    alpha_fixed: float = 0.3,
    iterations: int = 30,
    solver_kind: str = "gradient",
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> AblationReport:
    """Run the paper's SURF ablation on ``task``.

    Parameters
    ----------
    task : Task
        A benchmark task (its true CDF is the reference).
    n_list : sequence of int
        Panel (a): the N values (K-step solver with the task's K, ``alpha_fixed``).
    alphas : sequence of float
        Panel (b): the damping factors in (0, 1] (``N = n_fixed``).
    steps_list : sequence of int, optional
        Panel (c): the inner budgets K (``N = n_fixed``, ``alpha_fixed``). Default
        :data:`ABLATION_STEPS` with the gradient solver and none with the exact one (where K
        means nothing; naming steps then is an error).
    exact_n_list : sequence of int
        Panel (d): N values for the final error against N with the exact solver; the fit needs
        two distinct values or more (fewer: no fit).
    n_fixed, alpha_fixed : int, float
        N and alpha held fixed in the panels that vary something else.
    iterations : int
        Outer iterations T of every run.
    solver_kind : {"gradient", "exact"}
        Inner solver of panels (a)-(c).
    seed : int
        Seed of the task's K-step initial states.
    progress : callable, optional
        Called with a line of text after each run.

    An empty sequence skips its panel.

    Examples
    --------
    >>> from paretosurf.bench import get_task
    >>> from paretosurf.bench.ablation import run_ablation
    >>> rep = run_ablation(get_task("gear"), n_list=(4,), alphas=(0.5,), steps_list=(5,),
    ...                    exact_n_list=(8, 16), n_fixed=8, iterations=4)
    >>> [len(rep.panels[p]) for p in ("n_segments", "alpha", "steps")], len(rep.exact)
    ([1, 1, 1], 2)
    >>> rep.panels["alpha"][0][1].errors.shape
    (5,)
    """
    if not isinstance(task, Task):
        raise TypeError(f"task must be a Task, got {type(task).__name__}")
    if solver_kind not in SOLVER_KINDS:
        raise ValueError(f"solver_kind must be one of {SOLVER_KINDS}, got {solver_kind!r}")
    ns = _int_list(n_list, "n_list")
    alpha_values = [check_alpha(a, name="alphas") for a in alphas]
    if len(set(alpha_values)) != len(alpha_values):
        raise ValueError(f"alphas must not repeat values, got {list(alphas)}")
    if steps_list is None:
        steps_list = ABLATION_STEPS if solver_kind == "gradient" else ()
    ks = _int_list(steps_list, "steps_list")
    if ks and solver_kind == "exact":
        raise ValueError(
            "steps_list (panel (c), inner steps K) needs solver_kind='gradient'; "
            "pass steps_list=() with the exact solver"
        )
    exact_ns = _int_list(exact_n_list, "exact_n_list")
    n_fixed = check_positive_int(n_fixed, name="n_fixed")
    alpha_fixed = check_alpha(alpha_fixed, name="alpha_fixed")
    iterations = check_positive_int(iterations, name="iterations")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    if not (ns or alpha_values or ks or exact_ns):
        raise ValueError("every panel is empty: nothing to run")

    start = time.perf_counter()
    problem = task.make_problem()
    true_cdf = problem.cdf()
    cache: dict[tuple[str, int, float, int | None], AblationCurve] = {}
    default_steps = task.steps if solver_kind == "gradient" else None

    def run(kind: str, n: int, alpha: float, steps: int | None) -> AblationCurve:
        key = (kind, n, alpha, steps)
        if key in cache:
            return cache[key]
        t = task if steps is None or steps == task.steps else dataclasses.replace(task, steps=steps)
        from paretosurf.methods import surf

        clock = time.perf_counter()
        solver = t.solver(problem, kind)
        init, _ = t.initial_states(problem, solver, kind, n, int(seed))
        result = surf(
            solver,
            n,
            alpha=alpha,
            iterations=iterations,
            init_states=init,
            warm_start=t.warm_start,
            normalize=t.normalize,
            early_stopping=False,  # the curves span every round
        )
        curve = AblationCurve(
            n,
            alpha,
            steps,
            kind,
            cdf_error_curve(result, true_cdf),
            time.perf_counter() - clock,
            result,
        )
        cache[key] = curve
        if progress is not None:
            budget = f"K={steps}" if steps is not None else "exact"
            progress(
                f"{task.name} ablation N={n:<3d} alpha={alpha:<4g} {budget:<6}: error "
                f"{curve.errors[0]:.3g} -> {curve.final_error:.3g} "
                f"({curve.seconds:.2f} s)"
            )
        return curve

    panels: dict[str, list[tuple[float, AblationCurve]]] = {
        "n_segments": [(n, run(solver_kind, n, alpha_fixed, default_steps)) for n in ns],
        "alpha": [(a, run(solver_kind, n_fixed, a, default_steps)) for a in alpha_values],
        "steps": [(k, run("gradient", n_fixed, alpha_fixed, k)) for k in ks],
    }
    exact = [run("exact", n, alpha_fixed, None) for n in exact_ns]
    slope = constant = constant_n2 = None
    if len(exact) >= 2:
        final = np.array([c.final_error for c in exact])
        n_arr = np.array([c.n_segments for c in exact], dtype=np.float64)
        if np.all(final > 0):
            slope, constant = fit_power_law(n_arr, final)
            constant_n2 = float(np.exp(np.mean(np.log(final) + 2.0 * np.log(n_arr))))
    return AblationReport(
        task,
        solver_kind,
        iterations,
        int(seed),
        n_fixed,
        alpha_fixed,
        panels,
        exact,
        slope,
        constant,
        constant_n2,
        time.perf_counter() - start,
    )


# ------------------------------------------------------------------------------- output
def format_ablation_table(report: AblationReport) -> str:
    """A Markdown summary: error at ``t = 0``, smallest and final error of every run, and the
    fit of panel (d)."""
    lines = [
        f"**{report.task.title}**: SURF ablation, {report.iterations} outer iterations, "
        f"{report.solver_kind} inner solver in (a)-(c), seed {report.seed}; error = "
        "max_w |Phi_t(w) - Phi(w)|.",
        "",
        "| panel | N | alpha | K | error t=0 | min error | final error | seconds |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def row(panel: str, c: AblationCurve) -> str:
        k = "exact" if c.steps is None else str(c.steps)
        return (
            f"| {panel} | {c.n_segments} | {c.alpha:g} | {k} | {c.errors[0]:.3g} | "
            f"{float(np.min(c.errors)):.3g} | {c.final_error:.3g} | {c.seconds:.2f} |"
        )

    for name in _PANELS:
        lines += [row(_PANEL_TITLES[name][:3], curve) for _, curve in report.panels[name]]
    lines += [row("(d)", c) for c in report.exact]
    if report.slope is not None:
        lines += [
            "",
            f"(d) final error ~ {report.constant:.3g} * N^{report.slope:.2f} "
            f"(least squares over N = {[c.n_segments for c in report.exact]}); "
            f"reference {report.constant_n2:.3g} * N^-2.",
        ]
    return "\n".join(lines)


def plot_ablation(report: AblationReport) -> Any:
    """Four panels: error against outer iteration for (a) N, (b) alpha, (c) K, and (d) the
    final error against N (exact solver, log-log) with the reference ``C * N^-2``."""
    from paretosurf import plotting

    plt = plotting.pyplot()
    from matplotlib.ticker import NullFormatter

    fig, axes = plt.subplots(1, 4, figsize=(18.0, 4.0))
    symbols = {"n_segments": "N", "alpha": "alpha", "steps": "K"}
    for ax, name in zip(axes[:3], _PANELS, strict=True):
        entries = report.panels[name]
        colors = plt.cm.viridis(np.linspace(0.0, 0.85, max(len(entries), 1)))
        for color, (value, curve) in zip(colors, entries, strict=False):
            t = np.arange(curve.errors.size)
            ax.semilogy(
                t,
                np.maximum(curve.errors, 1e-16),
                color=color,
                marker=".",
                label=f"{symbols[name]} = {value:g}",
            )
        ax.set_title(_PANEL_TITLES[name], fontsize="medium")
        ax.set_xlabel("outer iteration t")
        ax.set_ylabel("||Phi_t - Phi||_inf")
        ax.grid(True, which="both", alpha=0.3)
        if entries:
            ax.legend(fontsize="small")
        else:
            ax.text(0.5, 0.5, "not run", ha="center", va="center", transform=ax.transAxes)
    ax = axes[3]
    if report.exact:
        ns = np.array([c.n_segments for c in report.exact], dtype=np.float64)
        final = np.array([c.final_error for c in report.exact])
        label = "final error (exact solver)"
        if report.slope is not None:
            label += f", slope {report.slope:.2f}"
        ax.loglog(ns, np.maximum(final, 1e-16), "o-", label=label)
        if report.constant_n2 is not None:
            dense = np.geomspace(ns.min(), ns.max(), 50)
            ax.loglog(
                dense,
                report.constant_n2 * dense**-2.0,
                "k--",
                label=f"{report.constant_n2:.3g} N^-2",
            )
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xticks(ns, [f"{n:g}" for n in ns])
        ax.legend(fontsize="small")
    else:
        ax.text(0.5, 0.5, "not run", ha="center", va="center", transform=ax.transAxes)
    ax.set_title("(d) final error vs N", fontsize="medium")
    ax.set_xlabel("N (segments)")
    ax.set_ylabel("||Phi_T - Phi||_inf")
    ax.grid(True, which="both", alpha=0.3)
    fig.suptitle(
        f"{report.task.title}: SURF ablation ({report.iterations} iterations)", fontsize="medium"
    )
    fig.tight_layout()
    return fig


def write_ablation(
    report: AblationReport, out: str | Path, *, plots: bool = True, stream: TextIO | None = None
) -> list[Path]:
    """Write ``ablation.json``, ``ablation.md`` and (with ``plots``) ``ablation.png`` into
    ``out``; print the summary table to ``stream``. Returns the paths written."""
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    data = report.to_json()
    (root / "ablation.json").write_text(json.dumps(_finite(data), indent=1, allow_nan=False) + "\n")
    table = format_ablation_table(report)
    (root / "ablation.md").write_text(table + "\n")
    written = [root / "ablation.json", root / "ablation.md"]
    if plots:
        from paretosurf import plotting

        fig = plot_ablation(report)
        written.append(plotting.save_figure(fig, root / "ablation.png"))
        plotting.pyplot().close(fig)
    if stream is not None:
        stream.write(table + "\n")
    return written


def _finite(value: Any) -> Any:
    """``value`` with non-finite floats replaced by None (JSON has no inf/nan)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
