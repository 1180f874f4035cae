"""Side by side with the paper authors' research code: their notebooks' SURF loop vs paretosurf.

The paper's authors published their research code at
https://github.com/Liuyuan999/MOO_Uniform_PF (Jupyter notebooks). This benchmark takes a clone
of it (``--authors PATH``), loads the functions it needs from two notebooks **at run time, as
they are** (nothing of theirs is copied into this repository), and times the authors' SURF loop
and paretosurf's side by side in one process:

``dst-kstep``
    DST (concave map, gamma 0.999, KL beta = tau 1.5, N = 15: 16 points), the paper's K-step
    protocol: both endpoints first solved with 500 Adam steps, then 30 rounds of K = 100 Adam
    steps per point (lr 0.02), alpha 0.3, every round run (no early stop). Authors: their
    ``solve_cdf_refinement_policy`` (warm start from the previous round's logits, as the
    notebook's run cell; slots first start between the two ends' logits; ends warmed up at
    lr 0.01 as their notebook does); paretosurf: the ``dst`` bench task (``paretosurf bench
    dst``: ``get_task("dst")``, its K-step solver, its seeded start-up and ``ps.surf`` with its
    settings, seed 0). The settings are read from the task, so they follow it.
``dst-exact``
    DST with an exact inner solve. paretosurf: ``problem.solver()`` (soft policy iteration),
    30 rounds. The notebooks have **no exact inner solver**: the authors' side runs their
    K-step solver to its own stopping rule (``tol`` 1e-8 on the objective's change, at most
    ``--converged-steps`` steps), the closest thing they have. Read the ratio so.
``fishwood-kstep``, ``fishwood-exact``
    Fishwood (gamma 0.995, beta 0.5, N = 11: 12 points, 15 rounds, K = 100 steps lr 0.05,
    alpha 0.3), likewise. Both sides start from the uniform policy (paretosurf's task adds its
    seeded noise) with no endpoint warm-up (the ``fishwood`` task has none). The notebook's
    own run cell uses other settings (11 points, 13 rounds, alpha 0.8, no warm start from the
    previous round); both sides here run the paper's, which the ``fishwood`` task holds.
``dst-cv-race``
    How long until the front is even: paretosurf's defaults,
    ``ps.surf(ps.problems.deep_sea_treasure().gradient_solver(steps=100), 15)`` (early stop;
    the round cap raised from 30 to ``--race-rounds``, 60), vs the authors' DST protocol above
    (up to the same number of rounds): the time until the front's CV first reaches
    ``--target`` (0.02). The metric is the one paretosurf's records report with the defaults:
    :func:`paretosurf.metrics.cv` (std / mean of the gaps between consecutive points) with
    each objective scaled by the two end points' range (:func:`even_cv`); it is applied to
    both sides' points after every round, the time it takes left out of both clocks. A side
    that never reaches the target shows ``> T``, T its whole run, a lower bound.

Every row times both contenders in turns (authors, paretosurf, authors, ...) ``--repeats``
times (default 5) and reports the medians and the median of the per-repeat ratios
authors / paretosurf (the machine is noisy: a ratio taken within one repeat shares its load).
``--clock cpu`` reads this process's CPU time instead of the wall clock. torch (which the
authors' solver runs in) gets one thread, as the other benchmarks measure.

Is it the same problem?
    Before timing, the benchmark builds the authors' MDP with their own functions and compares
    it with paretosurf's: transition and reward tensors (after matching the action orders),
    start distribution, gamma and the KL weight. After the runs it evaluates the authors' final
    policies in paretosurf's model (exactly, in float64: the objectives
    ``h_m = -(1 - gamma) E[sum gamma^t (r_m - beta KL)]`` that paretosurf minimizes; the
    notebooks' ``R1 - reg``, ``R2 - reg`` negated) and prints, for both sides, the largest
    distance of a final point from the exact front at its own weight, the IGD against a dense
    exact front, and the CV; and how far the authors' own float32 figures are from our
    evaluation of their policies. The authors' weight ``w`` weighs objective 2 (their
    ``(1 - w) R1 + w R2``); here ``w`` = 1 - theirs, so both fronts are in paretosurf's order.
    Note: the authors' loop measures its chords on the unregularized returns ``(R1, R2)``,
    paretosurf's on the objectives; the CVs printed are on the objectives for both (the
    paper's Table 1 metric), with the authors' own coordinates shown beside.

Which notebook cells run, and how they are chosen
    Each code cell is parsed (``ast``; IPython ``%``/``!`` lines are blanked) and its top-level
    statements sorted into *imports*, *definitions* (``def``, ``class``), *constants*
    (assignments whose value calls nothing: ``gamma = 0.999``) and *actions* (everything
    else: calls, loops, ``if`` blocks, experiment runs, plots). Starting from the names the
    runs need (:data:`NEEDED`), the loader adds, for each name, the notebook's last import,
    definition or constant that binds it, then the global names that statement reads (a
    function's globals by :mod:`symtable`, its default values, a constant's right-hand side),
    until nothing new is needed. Only those statements are executed, in notebook order, each
    compiled from the notebook's own text; actions are never run, even inside a chosen cell
    (so no plot style is set, no figure folder made, no library patched). With the notebooks
    of the snapshot this was written against, that is:

    * DST notebook: cell 0 (the imports of numpy, torch, ``torch.nn.functional``, scipy's
      ``PchipInterpolator``, ``time``, ``datetime``; mo_gymnasium, morl_baselines, IPython and
      matplotlib are not needed and not imported), cell 1 (``DEVICE``), cell 3 (the tabular
      model builder, the policy evaluation and the K-step Adam solver
      ``solve_policy_scalarization``), cell 4 (the constants ``ENV_ID``, ``gamma``, ``tau``)
      and cell 5 (``solve_cdf_refinement_policy``, the SURF loop). The experiment cells
      (14, 20 ff.: runs, baselines, plots) are not run.
    * Fishwood notebook: cell 1 (imports, ``DEVICE``), cell 3 (model, evaluation, solver),
      cell 5 (the SURF loop) and cell 7 (the constants ``gamma``, ``tau``, ``fishproba``,
      ``woodproba``; not its runs).

    The loader prints the cells it took. A name the notebook no longer defines, or defines
    only by running an experiment, stops the benchmark with a message naming it.

Packages: the authors' code needs torch (installed with this project's ``torch`` extra).
The DST model is built with their ``build_dst_tabular_model`` from an MO-Gymnasium
environment when ``mo_gymnasium`` is installed, else from a stand-in object holding the same
map (``paretosurf.problems.gym.dst_sea_map``, which the tests check against MO-Gymnasium's).

    git clone https://github.com/Liuyuan999/MOO_Uniform_PF /tmp/authors
    python benchmarks/bench_authors.py --authors /tmp/authors [--repeats 5] [--clock wall|cpu]
        [--tasks dst-kstep,dst-exact,fishwood-kstep,fishwood-exact,dst-cv-race] [--out DIR]
    python benchmarks/bench_authors.py --authors /tmp/authors --smoke   # 1 repeat, 3 rounds

Writes ``table.csv`` and ``table.md`` beside ``report.txt``. Without ``--authors`` (or the
``PARETOSURF_AUTHORS`` environment variable) it stops with an error naming the repository;
``--smoke`` without a clone runs paretosurf's side only and says so.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import json
import math
import os
import re
import statistics
import symtable
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import _bench_io as bench_io
import numpy as np
from numpy.typing import NDArray

import paretosurf as ps
from paretosurf import metrics
from paretosurf.bench import get_task

#: The authors' repository.
REPOSITORY = "https://github.com/Liuyuan999/MOO_Uniform_PF"
#: The notebooks, relative to a clone.
NOTEBOOKS = {
    "dst": Path("DST/Policy_update_DST_with_baseline.ipynb"),
    "fishwood": Path("Fishwood/Policy_update_Fishwood_with_baseline.ipynb"),
}
#: The names the runs take from each notebook (functions and constants).
NEEDED: dict[str, tuple[str, ...]] = {
    "dst": (
        "build_dst_tabular_model",
        "make_equispace_pi_ref",
        "solve_policy_scalarization",
        "solve_cdf_refinement_policy",
        "ENV_ID",
        "gamma",
        "tau",
    ),
    "fishwood": (
        "build_fishwood_tabular_model",
        "make_equispace_pi_ref",
        "solve_policy_scalarization",
        "solve_cdf_refinement_policy",
        "fishproba",
        "woodproba",
        "gamma",
        "tau",
    ),
}
#: The rows, in the order printed.
TASKS = ("dst-kstep", "dst-exact", "fishwood-kstep", "fishwood-exact", "dst-cv-race")

FloatArray = NDArray[np.float64]

# ----------------------------------------------------------------------- notebook loading


@dataclass(frozen=True)
class Statement:
    """One top-level statement of a notebook's code cell.

    ``kind`` is ``"import"``, ``"def"`` (a function or class), ``"const"`` (an assignment
    whose value calls nothing) or ``"action"`` (anything else: never executed); ``binds`` the
    names it binds, ``reads`` the global names it needs when executed or called.
    """

    cell: int
    index: int
    kind: str
    binds: tuple[str, ...]
    reads: frozenset[str]
    node: ast.stmt = field(compare=False, repr=False)


@dataclass
class LoadedNotebook:
    """The namespace of a notebook's chosen statements, and what was chosen."""

    path: Path
    namespace: dict[str, Any]
    cells: list[int]
    statements: list[Statement]
    skipped_imports: list[str]

    def __getitem__(self, name: str) -> Any:
        return self.namespace[name]


_MAGIC = re.compile(r"^\s*[%!]")


def code_cells(notebook: dict[str, Any]) -> list[tuple[int, str]]:
    """``(cell index, source)`` of the code cells of a notebook's JSON (``nbformat`` 4), with
    IPython ``%magic`` and ``!shell`` lines blanked (so that the cell parses as Python and the
    line numbers stay)."""
    cells = notebook.get("cells")
    if not isinstance(cells, list):
        raise ValueError("not a Jupyter notebook (nbformat 4): no 'cells' list")
    out = []
    for i, cell in enumerate(cells):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        lines = ["" if _MAGIC.match(line) else line for line in text.split("\n")]
        out.append((i, "\n".join(lines)))
    return out


def _has_call(node: ast.AST) -> bool:
    return any(
        isinstance(n, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.Lambda))
        for n in ast.walk(node)
    )


def _target_names(target: ast.expr) -> list[str] | None:
    """The names a plain assignment target binds (``a``, ``a, b``), or None for a subscript
    or attribute target (which changes an object: an action)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        names: list[str] = []
        for element in target.elts:
            inner = _target_names(element)
            if inner is None:
                return None
            names.extend(inner)
        return names
    return None


def _globals_read(node: ast.stmt) -> frozenset[str]:
    """The global names a statement reads when executed, and for a function or class also
    when called: the module scope's references (default values, decorators, a right-hand
    side) and every nested scope's implicit globals (:mod:`symtable`)."""
    table = symtable.symtable(ast.unparse(node), "<statement>", "exec")
    names: set[str] = set()

    def walk(scope: symtable.SymbolTable, top: bool) -> None:
        for symbol in scope.get_symbols():
            if (top and symbol.is_referenced()) or (
                not top and symbol.is_global() and symbol.is_referenced()
            ):
                names.add(symbol.get_name())
        for child in scope.get_children():
            walk(child, False)

    walk(table, True)
    return frozenset(names)


def classify(node: ast.stmt) -> tuple[str, tuple[str, ...]]:
    """The kind of a top-level statement and the names it binds (see :class:`Statement`)."""
    if isinstance(node, ast.Import):
        return "import", tuple((a.asname or a.name.split(".")[0]) for a in node.names)
    if isinstance(node, ast.ImportFrom):
        if any(a.name == "*" for a in node.names):
            return "action", ()  # binds names nobody can list: never chosen
        return "import", tuple((a.asname or a.name) for a in node.names)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return "def", (node.name,)
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names: list[str] = []
        for target in targets:
            bound = _target_names(target)
            if bound is None:
                return "action", ()
            names.extend(bound)
        if not _has_call(node.value):
            return "const", tuple(names)
        return "action", tuple(names)
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        return "action", (node.target.id,)
    return "action", ()


def parse_notebook(notebook: dict[str, Any]) -> list[Statement]:
    """Every top-level statement of a notebook's code cells, classified, in notebook order.
    A cell that does not parse as Python is left out (it can define nothing we run)."""
    statements = []
    for cell, source in code_cells(notebook):
        try:
            module = ast.parse(source)
        except SyntaxError:
            continue
        for index, node in enumerate(module.body):
            kind, binds = classify(node)
            reads = _globals_read(node) if kind in ("def", "const") else frozenset()
            statements.append(Statement(cell, index, kind, binds, reads, node))
    return statements


def select_statements(statements: Sequence[Statement], names: Iterable[str]) -> list[Statement]:
    """The statements to execute so that ``names`` are bound as the notebook binds them.

    For each needed name: the notebook's *last* import, definition or constant that binds it
    (running the notebook top to bottom, the last one wins), then, recursively, the global
    names that statement reads. A needed name that only an action binds (an experiment's
    result, say), or that nothing binds, is a ``ValueError`` naming it; a name read by a
    chosen statement that the notebook binds only by actions (or not at all: a builtin) is
    left for Python to resolve. Returns the chosen statements in notebook order.
    """
    binders: dict[str, list[Statement]] = {}
    for s in statements:
        for name in s.binds:
            binders.setdefault(name, []).append(s)
    chosen: dict[tuple[int, int], Statement] = {}
    requested = list(dict.fromkeys(names))
    todo = list(requested)
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        usable = [s for s in binders.get(name, []) if s.kind != "action"]
        if not usable:
            if name in requested:
                cells = sorted({s.cell for s in binders.get(name, [])})
                where = (
                    f"only by running code (cell {', '.join(map(str, cells))}), which this "
                    "benchmark never runs"
                    if cells
                    else "nowhere"
                )
                raise ValueError(f"the notebook defines {name!r} {where}")
            continue
        s = usable[-1]
        chosen[(s.cell, s.index)] = s
        todo.extend(sorted(s.reads - seen))
    return [chosen[key] for key in sorted(chosen)]


def load_notebook(path: Path, names: Iterable[str]) -> LoadedNotebook:
    """Execute, in a fresh namespace, the statements of notebook ``path`` that bind ``names``
    (see :func:`select_statements`), compiled from the notebook's own text. An import of a
    module that is not installed is skipped and recorded; a chosen function that needs it
    then stops the benchmark with a message naming the module."""
    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    statements = select_statements(parse_notebook(notebook), names)
    namespace: dict[str, Any] = {"__name__": f"authors_{Path(path).stem}", "__builtins__": builtins}
    missing: dict[str, str] = {}
    for s in statements:
        code = compile(
            ast.Module(body=[s.node], type_ignores=[]), f"{path} [cell {s.cell}]", "exec"
        )
        if s.kind == "import":
            try:
                exec(code, namespace)
            except ImportError as error:
                for name in s.binds:
                    missing[name] = getattr(error, "name", None) or str(error)
            continue
        exec(code, namespace)
    for s in statements:
        lacking = sorted(n for n in s.reads if n in missing)
        if lacking:
            modules = sorted({missing[n] for n in lacking})
            raise ImportError(
                f"the authors' {'/'.join(s.binds)} (cell {s.cell} of {path}) needs "
                f"{', '.join(modules)}, which is not installed (pip install {' '.join(modules)})"
            )
    cells = sorted({s.cell for s in statements})
    return LoadedNotebook(Path(path), namespace, cells, statements, sorted(set(missing.values())))


def describe(loaded: LoadedNotebook) -> str:
    """One line per chosen cell: what it contributed."""
    lines = []
    for cell in loaded.cells:
        names = [n for s in loaded.statements if s.cell == cell for n in s.binds]
        lines.append(f"  cell {cell}: {', '.join(names)}")
    return "\n".join(lines)


def find_notebooks(authors: Path | None) -> dict[str, Path]:
    """The notebooks' paths in a clone of the authors' repository, or a ``FileNotFoundError``
    naming the repository."""
    hint = f"clone the paper authors' repository first: git clone {REPOSITORY} /tmp/authors"
    if authors is None:
        raise FileNotFoundError(
            f"--authors PATH is required: a clone of {REPOSITORY} (or set PARETOSURF_AUTHORS); "
            + hint
        )
    paths = {key: Path(authors) / rel for key, rel in NOTEBOOKS.items()}
    lacking = [str(p) for p in paths.values() if not p.is_file()]
    if lacking:
        raise FileNotFoundError(
            f"--authors {authors} is not a clone of {REPOSITORY}: no {', '.join(lacking)}; " + hint
        )
    return paths


# --------------------------------------------------------------------------- the problems

#: The clock every time is read from (``--clock``).
CLOCK: Callable[[], float] = time.perf_counter


@dataclass(frozen=True)
class Protocol:
    """The settings both sides run with."""

    task: str  # the paretosurf bench task
    n_segments: int
    rounds: int
    steps: int
    lr: float
    alpha: float
    warmup_steps: int  # endpoints first solved with this many steps (0: none)
    warmup_lr: float


@dataclass
class Authors:
    """The authors' functions and their model of one problem, in their units."""

    loaded: LoadedNotebook
    model: dict[str, Any]
    pi_ref: Any
    actions: list[int]  # authors' action index for each of paretosurf's actions

    def kwargs(self) -> dict[str, Any]:
        m, ns = self.model, self.loaded
        return dict(
            P=m["P"], R=m["R"], rho0=m["rho0"], gamma=ns["gamma"], tau=ns["tau"], pi_ref=self.pi_ref
        )


class _StandInDST:
    """An object shaped like MO-Gymnasium's DeepSeaTreasure for the authors' model builder,
    holding paretosurf's copy of the concave map (used when mo_gymnasium is missing)."""

    def __init__(self) -> None:
        from paretosurf.problems.gym import dst_sea_map

        self.unwrapped = self
        self.sea_map = dst_sea_map("concave")

    def reset(self) -> tuple[NDArray[np.int32], dict[str, Any]]:
        return np.array([0, 0], dtype=np.int32), {}


def authors_problem(key: str, path: Path, problem: Any) -> tuple[Authors, list[str]]:
    """Load the authors' notebook for ``key`` and build their model; returns it with lines
    saying how far it is from paretosurf's ``problem``."""
    loaded = load_notebook(path, NEEDED[key])
    notes = [f"{path.name}: cells {loaded.cells} run (definitions, imports, constants only)"]
    notes.append(describe(loaded))
    if key == "dst":
        env_id = str(loaded["ENV_ID"])
        if "concave" not in env_id:
            raise ValueError(f"the DST notebook now uses {env_id!r}; paretosurf's task: concave")
        try:
            import mo_gymnasium

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                env: Any = mo_gymnasium.make(env_id)  # type: ignore[attr-defined]
            notes.append(f"  DST model: the authors' builder on mo_gymnasium.make({env_id!r})")
        except ImportError:
            env = _StandInDST()
            notes.append(
                "  DST model: mo_gymnasium is not installed; the authors' builder reads "
                "paretosurf's copy of the concave map"
            )
        model = loaded["build_dst_tabular_model"](env)
    else:
        model = loaded["build_fishwood_tabular_model"](
            fishproba=loaded["fishproba"], woodproba=loaded["woodproba"]
        )
    pi_ref = loaded["make_equispace_pi_ref"](model["S"], model["A"])
    P = np.asarray(model["P"], dtype=np.float64)  # (S, A, S)
    R = np.moveaxis(np.asarray(model["R"], dtype=np.float64), -1, 0)  # (M, S, A)
    if P.shape != problem.P.shape:
        raise ValueError(f"the authors' model has P of shape {P.shape}, ours {problem.P.shape}")
    # match the action orders by the transitions (and the rewards)
    actions = []
    for a in range(problem.P.shape[1]):
        cost = [
            np.abs(P[:, b] - problem.P[:, a]).sum() + np.abs(R[:, :, b] - problem.R[:, :, a]).sum()
            for b in range(P.shape[1])
        ]
        actions.append(int(np.argmin(cost)))
    if sorted(actions) != list(range(P.shape[1])):
        raise ValueError("the authors' actions do not match paretosurf's one to one")
    dP = float(np.abs(P[:, actions] - problem.P).max())
    dR = float(np.abs(R[:, :, actions] - problem.R).max())
    drho = float(np.abs(np.asarray(model["rho0"], dtype=np.float64) - problem.rho).max())
    notes.append(
        f"  same MDP? max |P - P'| = {dP:.1e}, max |R - R'| = {dR:.1e}, "
        f"max |rho - rho'| = {drho:.1e}; gamma {loaded['gamma']} vs {problem.gamma}, "
        f"KL weight tau {loaded['tau']} vs beta {problem.beta}; actions (authors' index per "
        f"paretosurf action) {actions}"
    )
    if max(dP, dR, drho) > 1e-6 or not (
        math.isclose(loaded["gamma"], problem.gamma) and math.isclose(loaded["tau"], problem.beta)
    ):
        notes.append("  WARNING: the two problems differ; the race below is not like for like")
    return Authors(loaded, model, pi_ref, actions), notes


def our_points(authors: Authors, problem: Any, solutions: Sequence[dict[str, Any]]) -> FloatArray:
    """The authors' solutions (one round, their weight order) evaluated in paretosurf's model:
    objective points in paretosurf's weight order (``w`` = 1 - theirs)."""
    pis = np.stack([np.asarray(s["pi"], dtype=np.float64)[:, authors.actions] for s in solutions])
    pis /= pis.sum(axis=-1, keepdims=True)  # float32 rows summing to 1 within 1e-7
    return np.asarray(problem.objectives_many(pis)[::-1], dtype=np.float64)


def their_points(solutions: Sequence[dict[str, Any]], *, regularized: bool = True) -> FloatArray:
    """The authors' own float32 figures of one round, as paretosurf's objectives
    (``-(R - reg)``, reversed to paretosurf's weight order); ``regularized=False``: their
    chords' coordinates ``(R1, R2)``."""
    reg = [s["reg"] if regularized else 0.0 for s in solutions]
    pts = np.array([[-(s["R1"] - g), -(s["R2"] - g)] for s, g in zip(solutions, reg, strict=True)])
    return pts[::-1]


# ------------------------------------------------------------------------------ the runs


@dataclass
class Run:
    """One timed run: seconds, the final points (paretosurf's coordinates and weight order)
    and weights, and per round the clock since the start and the points."""

    seconds: float
    points: FloatArray
    weights: FloatArray
    rounds: list[tuple[float, FloatArray]] = field(default_factory=list)
    solutions: list[dict[str, Any]] | None = None  # the authors' final round, as returned
    reached: tuple[float, int, float] | None = None  # (seconds, round, CV) at the target
    rounds_done: int = 0


def even_cv(points: FloatArray) -> float:
    """The race's metric: :func:`paretosurf.metrics.cv` of the points in the coordinates
    ``ps.surf``'s default ``normalize="endpoints"`` measures its records' CV in (each
    objective shifted and scaled by the ideal and nadir of the two end points), so that it
    equals the ``cv`` of paretosurf's records; applied alike to the authors' points."""
    ends = points[[0, -1]]
    lo, hi = ends.min(axis=0), ends.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return metrics.cv((points - lo) / span)


class _Reached(Exception):
    """Stops the authors' loop once its front is even (the race)."""


def run_authors(
    authors: Authors,
    problem: Any,
    protocol: Protocol,
    *,
    converged: int = 0,
    target: float | None = None,
) -> Run:
    """The authors' SURF loop with ``protocol``. ``converged``: their solver run to its own
    stopping rule (at most that many steps a call) instead of K steps. ``target``: the race;
    the clock is read after every round's last solve (their loop calls the solver by its
    global name, so a wrapper in their namespace sees each call; their code is unchanged),
    the round's points are measured (the time this takes is not counted) and the loop is
    stopped at the first round whose CV is <= ``target``."""
    ns = authors.loaded.namespace
    solve = ns["solve_policy_scalarization"]
    kw = authors.kwargs()
    n_points = protocol.n_segments + 1
    run = Run(math.nan, np.empty((0, 2)), np.empty(0))
    round_solutions: list[dict[str, Any]] = []
    paused = 0.0

    def stamped(*args: Any, **kwargs: Any) -> Any:
        nonlocal paused
        out = solve(*args, **kwargs)
        now = CLOCK()
        round_solutions.append(out)
        if len(round_solutions) == n_points:
            elapsed = now - start - paused
            points = our_points(authors, problem, round_solutions)
            run.rounds.append((elapsed, points))
            weights = 1.0 - np.array([float(s["w"]) for s in round_solutions])[::-1]
            round_solutions.clear()
            cv = even_cv(points)
            paused += CLOCK() - now
            if target is not None and cv <= target:
                run.reached = (elapsed, len(run.rounds) - 1, cv)
                run.points, run.weights = points, weights
                raise _Reached
        return out

    if target is not None:
        ns["solve_policy_scalarization"] = stamped
    out: dict[str, Any] | None = None
    try:
        start = CLOCK()
        ends: dict[str, Any] = {}
        if protocol.warmup_steps > 0:
            for key, w in (("logits0", 0.0), ("logits1", 1.0)):
                sol = solve(w=w, **kw, lr=protocol.warmup_lr, maxiter=protocol.warmup_steps)
                ends[key] = sol["logits"]
        try:
            out = ns["solve_cdf_refinement_policy"](
                N_points=n_points,
                **kw,
                max_outer_iters=protocol.rounds,
                alpha=protocol.alpha,
                inner_maxiter=converged or protocol.steps,
                inner_lr=protocol.lr,
                init_from_prev=True,
                verbose=False,
                **ends,
            )
        except _Reached:
            pass
        run.seconds = CLOCK() - start - paused
    finally:
        ns["solve_policy_scalarization"] = solve
    if out is not None:
        last = out["policy_history"][-1]
        run.points = our_points(authors, problem, last)
        run.weights = 1.0 - np.asarray(out["weight_history"][-1], dtype=np.float64)[::-1]
        run.solutions = list(last)
    return run


def run_ours(protocol: Protocol, kind: str, *, seed: int = 0) -> Run:
    """paretosurf's bench task with ``protocol`` (every round run), solver ``kind``."""
    task = get_task(protocol.task)
    problem = task.make_problem()
    start = CLOCK()
    solver = task.solver(problem, kind, steps=protocol.steps)
    init, _ = task.initial_states(problem, solver, kind, protocol.n_segments, seed=seed)
    with warnings.catch_warnings():  # timing only: the fronts are checked below
        warnings.simplefilter("ignore")
        res = ps.surf(
            solver,
            protocol.n_segments,
            alpha=protocol.alpha,
            iterations=protocol.rounds,
            init_states=init,
            warm_start=task.warm_start,
            normalize=task.normalize,
            early_stopping=False,
        )
    seconds = CLOCK() - start
    return Run(seconds, np.asarray(res.points), np.asarray(res.weights))


def run_ours_defaults(
    problem: Any, n_segments: int, steps: int, *, target: float, rounds: int | None = None
) -> Run:
    """``ps.surf(problem.gradient_solver(steps=...), N)`` with its defaults (early stop):
    the clock read after every round, the round's CV measured as for the authors (the time
    this takes is not counted) and the run stopped at the first round whose CV is <=
    ``target`` (or where the defaults stop it)."""
    run = Run(math.nan, np.empty((0, 2)), np.empty(0))
    paused = 0.0

    def note(record: Any) -> bool:
        nonlocal paused
        now = CLOCK()
        elapsed = now - start - paused
        points = np.asarray(record.points, dtype=np.float64)
        run.rounds.append((elapsed, points))
        cv = even_cv(points)
        paused += CLOCK() - now
        if cv <= target:
            run.reached = (elapsed, len(run.rounds) - 1, cv)
            return True
        return False

    start = CLOCK()
    solver = problem.gradient_solver(steps=steps)
    extra: dict[str, Any] = {} if rounds is None else {"iterations": rounds}
    with warnings.catch_warnings():  # timing only: the fronts are checked below
        warnings.simplefilter("ignore")
        res = ps.surf(solver, n_segments, callback=note, **extra)
    run.seconds = CLOCK() - start - paused
    run.points, run.weights = np.asarray(res.points), np.asarray(res.weights)
    run.rounds_done = len(res.history)
    return run


# ------------------------------------------------------------------------------ the table

#: The learning rate of the authors' endpoint warm-up (their DST notebook solves both ends
#: with 500 Adam steps at lr 0.01 before its SURF runs; paretosurf's task at its own lr).
WARMUP_LR = 0.01


def protocol(key: str) -> Protocol:
    """The protocol both sides run for ``key``: the paretosurf bench task's settings (N,
    rounds, K, lr, alpha, endpoint warm-up), read from the task so that they follow it."""
    task = get_task(key)
    if not isinstance(task.alpha, float):
        raise ValueError(f"task {key!r} has alpha {task.alpha!r}; this benchmark needs a number")
    return Protocol(
        key,
        task.n_segments,
        task.iterations,
        task.steps,
        task.lr,
        task.alpha,
        task.warmup_steps,
        WARMUP_LR,
    )


@dataclass
class Row:
    """One task's timings over the repeats."""

    task: str
    note: str
    authors: list[float] = field(default_factory=list)
    ours: list[float] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    #: The race: the authors' whole run's seconds where it never reached the target (a lower
    #: bound of their time to it), nan where it did.
    bounds: list[float] = field(default_factory=list)

    def ratios(self) -> list[float]:
        return [a / b for a, b in zip(self.authors, self.ours, strict=True) if np.isfinite(a / b)]

    def cells(self) -> tuple[str, str, str]:
        def med(values: list[float]) -> str:
            finite = [v for v in values if np.isfinite(v)]
            if not finite:
                return "-"
            text = f"{statistics.median(finite):.3f}"
            return text if len(finite) == len(values) else text + f" ({len(finite)}/{len(values)})"

        ratios = self.ratios()
        ratio = f"{statistics.median(ratios):.2f}" if ratios else "-"
        authors = med(self.authors)
        bounds = [b for b in self.bounds if np.isfinite(b)]
        if authors == "-" and bounds and len(bounds) == len(self.ours):
            # never reached: the whole run's time bounds theirs from below
            authors = f"> {statistics.median(bounds):.3f}"
            lower = [b / o for b, o in zip(bounds, self.ours, strict=True) if np.isfinite(b / o)]
            ratio = f"> {statistics.median(lower):.2f}" if lower else "-"
        return authors, med(self.ours), ratio


def _race_text(run: Run | None) -> str:
    """Where a run reached the race's target, or its best CV."""
    if run is None:
        return "-"
    if run.reached:
        return f"reached CV {run.reached[2]:.4f} at round {run.reached[1]}"
    best = min((even_cv(points), t) for t, (_, points) in enumerate(run.rounds))
    return (
        f"not reached in {len(run.rounds)} rounds ({run.seconds:.3f} s; best CV {best[0]:.4f} "
        f"at round {best[1]})"
    )


def fairness(name: str, problem: Any, dense: FloatArray, run: Run) -> str:
    """How close a run's final points are to the exact front."""
    gap = np.linalg.norm(run.points - problem.front(run.weights), axis=1).max()
    return (
        f"{name:<11} max |h - f_PF(w)| {gap:9.2e}   IGD {metrics.igd(run.points, dense):9.2e}"
        f"   CV {metrics.cv(run.points):7.4f} (endpoint-normalized {even_cv(run.points):7.4f})"
        f"   gap ratio {metrics.gap_ratio(run.points):7.2f}"
    )


def check_fronts(label: str, problem: Any, dense: FloatArray, a: Run | None, b: Run) -> None:
    """Print both sides' final fronts against the exact front, and the authors' own figures
    against paretosurf's evaluation of their policies."""
    print(f"  {label}: final fronts against the exact front (paretosurf's objectives)")
    if a is not None:
        print("    " + fairness("authors", problem, dense, a))
    print("    " + fairness("paretosurf", problem, dense, b))
    if a is not None and a.solutions is not None:
        own = their_points(a.solutions)
        chords = their_points(a.solutions, regularized=False)
        print(
            f"    authors' own float32 figures vs our evaluation of their policies: max "
            f"difference {np.abs(own - a.points).max():.1e}; their CV in their chords' "
            f"coordinates (R1, R2, unregularized) {metrics.cv(chords):.4f}"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--authors",
        type=Path,
        default=os.environ.get("PARETOSURF_AUTHORS") or None,
        metavar="PATH",
        help=f"a clone of {REPOSITORY} (default: $PARETOSURF_AUTHORS)",
    )
    parser.add_argument("--repeats", type=int, default=5, help="timing repeats (medians)")
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="wall time (default) or this process's CPU time, steadier on a shared machine",
    )
    parser.add_argument(
        "--tasks",
        default=",".join(TASKS),
        help=f"comma-separated rows to run, of {', '.join(TASKS)} (default: all)",
    )
    parser.add_argument(
        "--converged-steps",
        type=int,
        default=1000,
        help="the *-exact rows: the authors' solver runs to its own stopping rule, at most "
        "this many steps a call (default 1000)",
    )
    parser.add_argument(
        "--target", type=float, default=0.02, help="dst-cv-race: the CV to reach (0.02)"
    )
    parser.add_argument(
        "--race-rounds",
        type=int,
        default=60,
        help="dst-cv-race: the most rounds either side gets (default 60, twice the paper's 30)",
    )
    bench_io.add_options(
        parser, "authors", smoke="1 repeat, 3 rounds; without --authors paretosurf's side only"
    )
    args = parser.parse_args(argv)
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    unknown = sorted(set(tasks) - set(TASKS))
    if unknown or not tasks:
        parser.error(f"--tasks: unknown {', '.join(unknown)}; choose from {', '.join(TASKS)}")
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")
    paths: dict[str, Path] | None = None
    try:
        paths = find_notebooks(args.authors)
    except FileNotFoundError as error:
        if not args.smoke or args.authors is not None:
            parser.error(str(error))
    out = bench_io.start(args, parser)
    global CLOCK
    CLOCK = time.perf_counter if args.clock == "wall" else time.process_time
    bench_io.torch_threads(1)
    protocols = {key: protocol(key) for key in NOTEBOOKS}
    converged = args.converged_steps
    race_rounds = args.race_rounds
    if args.smoke:  # the code path only: 2 rounds of 10 steps
        args.repeats, converged, race_rounds = 1, 20, 2
        protocols = {
            k: Protocol(
                **{**p.__dict__, "rounds": 2, "steps": 10, "warmup_steps": min(p.warmup_steps, 20)}
            )
            for k, p in protocols.items()
        }
    if paths is None:
        print(
            f"no --authors clone of {REPOSITORY}: --smoke runs paretosurf's side only "
            "(pass --authors PATH for the side-by-side)"
        )

    problems = {key: get_task(p.task).make_problem() for key, p in protocols.items()}
    dense = {key: pr.front(np.linspace(0.0, 1.0, 1001)) for key, pr in problems.items()}
    authors: dict[str, Authors] = {}
    needed = {t.split("-")[0] for t in tasks}
    if paths is not None:
        print(f"the authors' code, read from {args.authors} at run time:")
        for key in sorted(needed):
            made, notes = authors_problem(key, paths[key], problems[key])
            authors[key] = made
            print("\n".join(notes))

    rows: dict[str, Row] = {}
    for task in tasks:
        key, kind = task.split("-", 1)
        p = protocols[key]
        if kind == "kstep":
            note = f"N={p.n_segments}, {p.rounds} rounds, K={p.steps}, alpha {p.alpha}"
        elif kind == "exact":
            note = (
                f"paretosurf exact solver; authors: K-step to tol 1e-8 (<= {converged} steps), "
                "no exact solver in the notebook"
            )
        else:
            note = (
                f"time to CV <= {args.target} (endpoint-normalized), at most {race_rounds} "
                "rounds: paretosurf defaults vs authors' protocol"
            )
        rows[task] = Row(task, note)
    last: dict[str, tuple[Run | None, Run]] = {}
    print(
        f"\ntiming: {args.repeats} repeat(s), contenders in turns (authors, paretosurf), "
        f"clock: {args.clock}",
        flush=True,
    )
    for r in range(args.repeats):
        for task, row in rows.items():
            key, kind = task.split("-", 1)
            p, problem = protocols[key], problems[key]
            a: Run | None = None
            if kind == "cv-race":
                race = Protocol(**{**p.__dict__, "rounds": race_rounds})
                if key in authors:
                    a = run_authors(authors[key], problem, race, target=args.target)
                b = run_ours_defaults(
                    problem, p.n_segments, p.steps, target=args.target, rounds=race_rounds
                )
                ta = a.reached[0] if a is not None and a.reached else math.nan
                tb = b.reached[0] if b.reached else math.nan
                row.bounds.append(a.seconds if a is not None and not a.reached else math.nan)
                row.extra.append(f"authors {_race_text(a)}, paretosurf {_race_text(b)}")
            else:
                if key in authors:
                    a = run_authors(
                        authors[key], problem, p, converged=converged if kind == "exact" else 0
                    )
                b = run_ours(p, "exact" if kind == "exact" else "gradient")
                ta, tb = (a.seconds if a is not None else math.nan), b.seconds
            row.authors.append(ta)
            row.ours.append(tb)
            last[task] = (a, b)
            print(
                f"  repeat {r + 1}: {task:<15} authors {ta:8.3f} s   paretosurf {tb:8.3f} s"
                + (f"   ratio {ta / tb:6.2f}" if np.isfinite(ta / tb) else "")
                + (f"   ({row.extra[-1]})" if kind == "cv-race" else ""),
                flush=True,
            )

    print("\nare both sides solving the same problem? (last repeat)")
    for task, (a, b) in last.items():
        key = task.split("-")[0]
        check_fronts(task, problems[key], dense[key], a, b)
        if task.endswith("race") and rows[task].extra:
            print(f"    race: {rows[task].extra[-1]}")

    header = ("task", "authors s", "paretosurf s", "ratio authors/paretosurf", "note")
    table = [(row.task, *row.cells(), row.note) for row in rows.values()]
    print(
        f"\nmedians over {args.repeats} repeat(s), ratio: median of the per-repeat ratios; "
        f"clock {args.clock}"
    )
    print(f"{header[0]:<16}{header[1]:>12}{header[2]:>15}{'ratio':>8}   {header[4]}")
    for task, a_text, b_text, ratio, note in table:
        print(f"{task:<16}{a_text:>12}{b_text:>15}{ratio:>8}   {note}")
    with open(out / "table.csv", "w", encoding="utf-8") as f:
        f.write(",".join(header) + ",repeats,clock\n")
        for line in table:
            cells = [f'"{c}"' if "," in c else c for c in line]
            f.write(",".join(cells) + f",{args.repeats},{args.clock}\n")
    lines = [
        "| task | authors s | paretosurf s | ratio authors/paretosurf | note |",
        "|---|---:|---:|---:|---|",
        *(f"| {' | '.join(line)} |" for line in table),
        "",
        f"Medians over {args.repeats} repeat(s), clock {args.clock}.",
    ]
    (out / "table.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {out / 'table.csv'} and {out / 'table.md'}")


if __name__ == "__main__":
    main()
