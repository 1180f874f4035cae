"""Inner solvers that search the whole box: a pymoo single-objective algorithm per weight.

:func:`from_scipy` and :func:`~paretosurf.adapters.from_pymoo` run a local method from the warm
start, so on a multimodal scalarized problem each slot stays in the basin it started in (on
ZDT3, a whole piece of the front is never reached). :func:`from_pymoo_global` minimizes the same
scalarizations (:mod:`paretosurf.adapters.scalarization`) with a population-based pymoo
algorithm instead (a genetic algorithm, differential evolution, or Hooke and Jeeves' pattern
search from a sample of the box), under a budget of ``n_evals`` objective evaluations per call,
and then, by default, polishes the best point found with the local scipy solve of
:func:`from_scipy` (L-BFGS-B for linear scalarization, the SLSQP epigraph form for the
Tchebycheff ones), so that the point lands on the front to the local solver's tolerance.

The warm start is the final population. A solve returns as its state an array of shape
``(P, n)``: the decision vectors of the algorithm's last population, best first, row 0 the
returned point (polished). The next solve of the slot starts its algorithm from the distinct
rows of that array, filled up to the algorithm's population size with points of a seeded Latin
hypercube sample of the box (on a slot's first call, ``state=None``, the sample is the whole
initial population). A 1-D state (a decision vector, from another solver or the user's
``init_states``) counts as a population of one row. ``evaluate(state)`` gives the objectives at
row 0, and the Soup baseline's default linear interpolation of two such states mixes them row by
row, so its row 0 is the mix of the two returned points.

Randomness. Each solve draws its Latin hypercube sample and seeds its algorithm from a stream
derived from ``seed``, the weight and the warm start's returned point, both rounded to a grid
(:data:`SEED_GRID`; not from a call counter, which would differ between executors): the same
solve gives the same result in any process and any order, and a rerun of a whole run repeats
it bit for bit. The rounding keeps the stream from hanging on the last bits of the weight and
the warm start, which the polish's scipy solve leaves to its floating-point path (SLSQP's
LAPACK calls round differently with one BLAS thread than with two): hashed as they were, every
later solve of a run drew another stream, and the same run found other points.

Budget. The global phase evaluates the objectives at most ``n_evals`` times: a generation that
would go over the budget is not evaluated (the warm-start population is re-evaluated at the new
weight and counts against it). The polish comes on top (its finite-difference gradients
included); ``info["objective_calls"]`` counts both, ``info["global_calls"]`` and
``info["polish_calls"]`` each.
"""

from __future__ import annotations

import copy
import hashlib
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import Bounds
from scipy.stats import qmc

from paretosurf._utils.validation import check_positive_int
from paretosurf.adapters.pymoo_solver import count_of, from_pymoo
from paretosurf.adapters.scalarization import (
    FollowsIdealPoint,
    IdealPoint,
    Scalarization,
    as_scalarization,
    check_weight,
)
from paretosurf.adapters.scipy_solver import ScipySolver
from paretosurf.solvers import Solution

__all__ = ["ALGORITHMS", "PymooGlobalSolver", "from_pymoo_global"]

FloatArray = NDArray[np.float64]

#: The algorithms named by a string: pymoo's GA, DE and PatternSearch.
ALGORITHMS = ("ga", "de", "pattern_search")
#: Default population size of ``"ga"`` and ``"de"`` (the initial sample of ``"pattern_search"``
#: is ``DEFAULT_PATTERN_SAMPLE`` points).
DEFAULT_POP_SIZE = 40
DEFAULT_PATTERN_SAMPLE = 10
#: Default budget of objective evaluations of one solve's global phase.
DEFAULT_N_EVALS = 2000
#: Default number of polish starts.
DEFAULT_N_POLISH = 1
# The polish's starts are drawn from this best fraction of the evaluated points, and lie at
# least this far apart in objective space (per objective, in units of that fraction's range).
_POLISH_POOL = 0.25
_POLISH_APART = 0.1
# Largest constraint value G counted as met after the polish.
_FEASIBLE = 1e-8
#: The weight and the warm start's returned point (in units of the box's width per variable)
#: are rounded to this grid before they seed a solve's random stream: far above the rounding
#: noise a polish leaves in them (1e-16 to 1e-9 between BLAS thread counts), so that the same
#: run draws the same streams; weights or points closer than this share a stream, which is
#: harmless (their populations differ).
SEED_GRID = 1e-3
#: A polished point replaces the global phase's only where it scores lower by more than this
#: share of the value's magnitude: a polish that gains nothing but rounding (the global phase
#: already at the minimum) is not taken on the last bits.
POLISH_GAIN = 1e-12
_INSTALL = "pip install paretosurf[many]"


def from_pymoo_global(
    objectives: Any,
    bounds: Any = None,
    *,
    algorithm: Any = "ga",
    n_evals: int = DEFAULT_N_EVALS,
    pop_size: int | None = None,
    scalarization: str | Scalarization = "linear",
    ideal: ArrayLike | None = None,
    rho: float | None = None,
    polish: bool = True,
    n_polish: int = DEFAULT_N_POLISH,
    seed: int = 0,
) -> PymooGlobalSolver:
    """An inner solver that minimizes a scalarization with a pymoo single-objective algorithm
    over the whole box (then polishes with scipy), warm-started from its last population.

    Parameters
    ----------
    objectives : callable or pymoo.core.problem.Problem
        ``objectives(x) -> (h1, h2)`` (or ``(h1, ..., hM)``, for
        :func:`paretosurf.surf_simplex`), minimized, at a float64 decision vector of shape
        (n,); or a pymoo ``Problem`` with ``n_obj >= 2``, evaluated in batches, whose box
        ``(xl, xu)`` is the search box and whose inequality constraints ``G <= 0`` are kept
        (pymoo ranks infeasible points by their violation; the polish passes them to SLSQP).
        Equality constraints are refused: a population search does not meet them.
    bounds : sequence of (low, high) pairs or scipy.optimize.Bounds
        The box searched, required with a callable (leave it out with a pymoo problem). Every
        bound must be finite: the initial population is drawn in the box.
    algorithm : {"ga", "de", "pattern_search"} or pymoo.core.algorithm.Algorithm
        pymoo's genetic algorithm (``GA``), differential evolution (``DE``, variant
        ``"DE/best/1/bin"``) or Hooke and Jeeves' ``PatternSearch`` started from the best of
        a sample of the box; or an algorithm instance of your own (copied afresh for every
        solve; its termination is replaced by the budget and its initial sampling by the warm
        start).
    n_evals : int
        Budget of objective evaluations of one solve's global phase (``>=`` the initial
        population; module docstring, *Budget*).
    pop_size : int, optional
        Population size of ``"ga"`` and ``"de"`` (default 40, at least 4), or the size of
        ``"pattern_search"``'s initial sample (default 10). Not with an algorithm instance,
        which carries its own.
    scalarization : {"linear", "tchebycheff", "modified_tchebycheff", "asf"} or Scalarization
        As in :func:`~paretosurf.adapters.from_scipy`. Without ``ideal``, the Tchebycheff kinds
        and ASF estimate the ideal point at construction from one global solve per objective
        alone (``M`` solves of this solver, polished), and :meth:`PymooGlobalSolver.observe`
        keeps the estimate below every value the run finds.
    ideal, rho
        As in :func:`~paretosurf.adapters.from_scipy`.
    polish : bool
        Polish the best point of the global phase with the local scipy solve of
        :func:`~paretosurf.adapters.from_scipy` (to convergence), kept when it lowers the
        scalarized value. Default ``True``.
    seed : int
        Non-negative seed of every random choice (module docstring, *Randomness*).

    Returns
    -------
    PymooGlobalSolver
        ``solve(weight, state) -> Solution``: the state is the final population, shape
        ``(P, n)``, best first (module docstring); ``info`` holds the keys of
        :func:`~paretosurf.adapters.from_scipy` (``steps``: the algorithm's generations plus
        the polish's iterations; ``nfev``; ``objective_calls``; ``success``; ``message``;
        ``value``; ``non_finite``; ``ideal`` for the scalarizations that use one) and
        ``global_calls``, ``polish_calls``, ``polished`` (whether the polished point was
        kept), ``polish_success`` (the kept polish's own ``success``, with it), ``global_value``
        (the scalarized value before the polish) and ``seed`` (the solve's pymoo seed).
        ``success`` is the global phase's (a finite best value): a polish is kept only where
        its point is better, so a polish whose optimizer stops on its own criteria (SLSQP's
        "positive directional derivative for linesearch" on a Tchebycheff kink) fails no
        solve. ``scalarization``, ``ideal``, ``observe(points)`` and
        ``evaluate(state)`` are as in :class:`~paretosurf.adapters.ScipySolver`.

    Raises
    ------
    ImportError
        If pymoo is not installed (``pip install paretosurf[many]``).
    ValueError, TypeError
        On an unknown algorithm name, missing or infinite bounds, a budget smaller than the
        initial population, equality constraints, objectives that do not return two (or
        more) finite values at the middle of the box, and the arguments
        :func:`~paretosurf.adapters.from_scipy` refuses (``"asf"`` with two objectives, an
        ideal of the wrong length).

    Examples
    --------
    A scalarized problem with two basins: at ``w = 0.1`` the local solve from ``x = 1`` stops
    near ``x = 0.96``, the global minimizer is near ``x = -0.98``:

    >>> import numpy as np
    >>> from paretosurf.adapters import from_pymoo_global, from_scipy
    >>> def objectives(x):
    ...     return np.array([(x[0] - 1.0) ** 2, (x[0] ** 2 - 1.0) ** 2 + 0.3 * x[0]])
    >>> local = from_scipy(objectives, x0=[1.0], bounds=[(-2.0, 2.0)])
    >>> round(float(local.solve(0.1, None).state[0]), 3)
    0.961
    >>> solver = from_pymoo_global(objectives, [(-2.0, 2.0)], n_evals=400, seed=1)
    >>> sol = solver.solve(0.1, None)
    >>> round(float(sol.state[0, 0]), 3), sol.info["global_calls"] <= 400
    (-0.982, True)
    """
    return PymooGlobalSolver(
        objectives,
        bounds,
        algorithm=algorithm,
        n_evals=n_evals,
        pop_size=pop_size,
        scalarization=scalarization,
        ideal=ideal,
        rho=rho,
        polish=polish,
        n_polish=n_polish,
        seed=seed,
    )


class _BudgetSpent(Exception):
    """Raised inside a pymoo evaluation that would go over the budget (the batch is skipped)."""


class PymooGlobalSolver(FollowsIdealPoint):
    """A scalarized inner solver over a pymoo single-objective algorithm; built by
    :func:`from_pymoo_global`, whose docstring describes the arguments.

    Attributes
    ----------
    scalarization : Scalarization
        The scalarization solved, with the ideal point in use (estimated or given).
    n_objectives : int
        Number of objectives.
    n_var : int
        Number of decision variables.
    lower, upper : ndarray of shape (n,)
        The box searched.
    algorithm : str or pymoo Algorithm
        The algorithm (a name of :data:`ALGORITHMS` or the instance given).
    n_evals, pop_size, polish, seed
        As given (``pop_size`` resolved to the algorithm's initial population size).
    """

    scalarization: Scalarization
    n_objectives: int
    seed: int

    def __init__(
        self,
        objectives: Any,
        bounds: Any = None,
        *,
        algorithm: Any = "ga",
        n_evals: int = DEFAULT_N_EVALS,
        pop_size: int | None = None,
        scalarization: str | Scalarization = "linear",
        ideal: ArrayLike | None = None,
        rho: float | None = None,
        polish: bool = True,
        n_polish: int = DEFAULT_N_POLISH,
        seed: int = 0,
    ) -> None:
        pymoo = _import_pymoo()
        self._problem: Any = None
        self._objectives: Callable[[FloatArray], ArrayLike] | None = None
        if isinstance(objectives, pymoo["Problem"]):
            if bounds is not None:
                raise ValueError(
                    "bounds are taken from the pymoo problem's xl and xu; leave bounds out"
                )
            self._problem = objectives
            if int(objectives.n_obj) < 2:
                raise ValueError(
                    f"the pymoo problem must have 2 or more objectives, got n_obj = "
                    f"{objectives.n_obj}"
                )
            if count_of(objectives, "n_eq_constr"):
                raise ValueError(
                    "the pymoo problem has equality constraints (n_eq_constr > 0), which a "
                    "population search does not meet; use from_pymoo (SLSQP) instead"
                )
            n = int(objectives.n_var)
            lower = _bound(objectives.xl, n, "problem.xl")
            upper = _bound(objectives.xu, n, "problem.xu")
            self.n_constraints = count_of(objectives, "n_ieq_constr", "n_constr")
        elif callable(objectives):
            self._objectives = objectives
            lower, upper = _as_box(bounds)
            self.n_constraints = 0
        else:
            raise TypeError(
                "objectives must be a callable x -> (h1, h2) or a pymoo Problem, got "
                f"{type(objectives).__name__}"
            )
        self.lower, self.upper = lower, upper
        self.n_var = lower.size
        self.algorithm = _check_algorithm(algorithm, pymoo["Algorithm"])
        self.pop_size = _initial_size(self.algorithm, pop_size)
        self.n_evals = check_positive_int(n_evals, name="n_evals")
        if self.n_evals < self.pop_size:
            raise ValueError(
                f"n_evals ({self.n_evals}) must be at least the initial population "
                f"({self.pop_size} evaluations)"
            )
        if not isinstance(polish, (bool, np.bool_)):
            raise TypeError(f"polish must be True or False, got {polish!r}")
        self.polish = bool(polish)
        self.n_polish = check_positive_int(n_polish, name="n_polish")
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
        self.seed = int(seed)

        middle = 0.5 * (lower + upper)
        h0 = self._values(middle[None, :])[0]
        if h0.size < 2 or not np.all(np.isfinite(h0)):
            raise ValueError(
                "objectives must return 2 or more finite values at the middle of the box, "
                f"got {h0.tolist()}"
            )
        self.n_objectives = int(h0.size)
        sc = as_scalarization(scalarization, ideal, rho)
        if sc.ideal is not None and sc.ideal.size != self.n_objectives:
            raise ValueError(
                f"ideal has {sc.ideal.size} entries ({sc.ideal.tolist()}), but the objectives "
                f"return {self.n_objectives} values: give one ideal value per objective"
            )
        if sc.kind == "asf" and self.n_objectives == 2:
            raise ValueError(
                "scalarization 'asf' needs three or more objectives: with two, use "
                "'modified_tchebycheff' (the same rays for the scalar weight w)"
            )
        self._polishers: dict[str, ScipySolver] = {}
        self._ideal: IdealPoint | None = None
        if sc.needs_ideal:
            if sc.ideal is None:
                self._ideal = IdealPoint.for_kind(self._corner_values(), sc.kind)
                assert self._ideal.value is not None
                sc = sc.with_ideal(self._ideal.value)
            else:
                self._ideal = IdealPoint(sc.ideal, given=True)
        self.scalarization = sc
        if self.polish:  # built here, so that its one evaluation at x0 is no solve's
            self._polisher(sc)

    # -- solving ----------------------------------------------------------------------------

    def solve(self, weight: float | ArrayLike, state: ArrayLike | None) -> Solution:
        """Minimize the scalarization for ``weight`` with the pymoo algorithm, from the
        population ``state`` (a Latin hypercube sample when ``None``), then polish."""
        w = check_weight(weight)
        m = 2 if isinstance(w, float) else w.size
        if m != self.n_objectives:
            raise ValueError(
                f"weight {weight!r} is for {m} objectives, but the objectives return "
                f"{self.n_objectives} values"
            )
        start = None if state is None else self._as_population(state)
        return self._run(self.scalarization, w, start, polish=self.polish)

    def evaluate(self, state: ArrayLike) -> FloatArray:
        """The objectives at a state's returned point: row 0 of a population, or a decision
        vector (e.g. one the Soup baseline mixed from two solutions)."""
        x = self._as_population(state)[0]
        return self._values(x[None, :])[0]

    def __repr__(self) -> str:
        name = self.algorithm if isinstance(self.algorithm, str) else type(self.algorithm).__name__
        return (
            f"PymooGlobalSolver(scalarization={self.scalarization.kind!r}, algorithm={name!r}, "
            f"n_evals={self.n_evals}, pop_size={self.pop_size}, polish={self.polish}, "
            f"n={self.n_var})"
        )

    # -- internals --------------------------------------------------------------------------

    def _values(self, xs: FloatArray) -> FloatArray:
        """Objective vectors (B, M) at decisions (B, n)."""
        if self._problem is not None:
            out = self._problem.evaluate(np.array(xs, dtype=np.float64), return_as_dictionary=True)
            f = np.asarray(out["F"], dtype=np.float64)
            return f.reshape(xs.shape[0], -1)
        assert self._objectives is not None
        rows = [np.asarray(self._objectives(x.copy()), dtype=np.float64) for x in xs]
        size = getattr(self, "n_objectives", None)
        for r in rows:
            if r.ndim > 1 or (size is not None and r.size != size):
                want = f"{size} values" if size is not None else "a vector of values"
                raise ValueError(f"objectives(x) must return {want} (one per objective), got {r}")
        return np.stack([r.reshape(-1) for r in rows])

    def _constraints(self, xs: FloatArray) -> FloatArray:
        out = self._problem.evaluate(np.array(xs, dtype=np.float64), return_as_dictionary=True)
        return np.asarray(out["G"], dtype=np.float64).reshape(xs.shape[0], -1)

    def _as_population(self, state: ArrayLike) -> FloatArray:
        try:
            pop = np.array(state, dtype=np.float64)
        except (TypeError, ValueError):
            pop = np.empty((0,))
        if pop.ndim == 1:
            pop = pop[None, :]
        if (
            pop.ndim != 2
            or pop.shape[0] == 0
            or pop.shape[1] != self.n_var
            or not np.all(np.isfinite(pop))
        ):
            raise ValueError(
                f"state must be a finite population of shape (P, {self.n_var}) (the state a "
                f"previous solve returned) or one decision vector of shape ({self.n_var},), "
                f"got an array of shape {np.shape(state)}"
            )
        return np.clip(pop, self.lower, self.upper)

    def _call_seed(self, w: float | FloatArray, start: FloatArray | None) -> np.random.SeedSequence:
        """The solve's random stream: from ``seed``, the weight and the warm start's first row
        (the point the last solve returned, in units of the box), rounded to
        :data:`SEED_GRID`, and the warm start's number of rows (hashlib, not ``hash``, which
        varies between processes)."""
        digest = hashlib.blake2b(digest_size=16)
        digest.update(_grid_cells(np.atleast_1d(np.asarray(w, dtype=np.float64))).tobytes())
        if start is None:
            digest.update(b"none")
        else:
            width = np.where(self.upper > self.lower, self.upper - self.lower, 1.0)
            digest.update(np.int64(start.shape[0]).tobytes())
            digest.update(_grid_cells((start[0] - self.lower) / width).tobytes())
        words = np.frombuffer(digest.digest(), dtype=np.uint32)
        return np.random.SeedSequence([self.seed, *(int(v) for v in words)])

    def _initial_population(self, start: FloatArray | None, rng: np.random.Generator) -> FloatArray:
        """The warm start's distinct rows (in their order, at most ``pop_size``) filled up to
        ``pop_size`` with a Latin hypercube sample of the box (scipy's, seeded)."""
        rows = np.empty((0, self.n_var))
        if start is not None:
            _, first = np.unique(start, axis=0, return_index=True)
            rows = start[np.sort(first)][: self.pop_size]
        missing = self.pop_size - rows.shape[0]
        if missing > 0:
            unit = qmc.LatinHypercube(d=self.n_var, seed=rng).random(missing)
            rows = np.vstack([rows, self.lower + unit * (self.upper - self.lower)])
        return np.asarray(rows, dtype=np.float64)

    def _algorithm(self, initial: FloatArray) -> Any:
        if isinstance(self.algorithm, str):
            algo = _named_algorithm(self.algorithm, self.pop_size)
        else:
            algo = copy.deepcopy(self.algorithm)
        algo.initialization.sampling = initial
        return algo

    def _run(
        self,
        sc: Scalarization,
        w: float | FloatArray,
        start: FloatArray | None,
        *,
        polish: bool,
    ) -> Solution:
        pymoo = _import_pymoo()
        stream = self._call_seed(w, start)
        rng = np.random.default_rng(stream.spawn(1)[0])
        pymoo_seed = int(stream.generate_state(1)[0])
        initial = self._initial_population(start, rng)
        problem = _problem_class(pymoo["Problem"])(self, sc, w)
        algo = self._algorithm(initial)
        algo.setup(problem, termination=("n_eval", self.n_evals), seed=pymoo_seed, verbose=False)
        while algo.has_next():
            try:
                algo.next()
            except _BudgetSpent:
                break
        if problem.best_x is None:  # pragma: no cover - the first batch always fits
            raise RuntimeError("the pymoo algorithm evaluated no point")
        best_x, h = problem.best_x, problem.best_h
        pop_x = np.asarray(algo.pop.get("X"), dtype=np.float64).reshape(-1, self.n_var)
        pop_f = np.asarray(algo.pop.get("F"), dtype=np.float64).reshape(-1)
        pop_cv = np.asarray(algo.pop.get("CV"), dtype=np.float64).reshape(-1)
        population = np.vstack([best_x[None, :], pop_x[np.lexsort([pop_f, pop_cv])]])
        value = problem.best_f
        info: dict[str, Any] = {
            "steps": int(algo.n_iter or 0),
            "nfev": problem.calls,
            "global_calls": problem.calls,
            "polish_calls": 0,
            "polished": False,
            "global_value": value,
            "non_finite": problem.non_finite,
            "seed": pymoo_seed,
        }
        success = bool(np.isfinite(value))
        message = f"{self._algorithm_name()}: {problem.calls} evaluations"
        if polish and np.isfinite(value):
            starts = problem.polish_starts(self.n_polish)
            kept: list[str] = []
            for x_start in starts:
                sol = self._polisher(sc).solve(w, x_start)  # type: ignore[arg-type]  # takes vectors too
                info["polish_calls"] += int(sol.info.get("objective_calls", 0))
                info["nfev"] += int(sol.info.get("nfev", 0))
                info["steps"] += int(sol.info.get("steps", 0))
                info["non_finite"] += int(sol.info.get("non_finite", 0))
                x_pol = np.asarray(sol.state, dtype=np.float64)
                h_pol = np.asarray(sol.objectives, dtype=np.float64)
                feasible = self.n_constraints == 0 or bool(
                    np.all(self._constraints(x_pol[None, :]) <= _FEASIBLE)
                )
                gain = value - float(sc(h_pol, w))
                if (
                    feasible
                    and np.all(np.isfinite(h_pol))
                    and gain > POLISH_GAIN * max(abs(value), 1e-300)
                ):
                    best_x, h, value = x_pol, h_pol, float(sc(h_pol, w))
                    info["polished"] = True
                    # (a polish that stops on its own criteria, e.g. SLSQP's "positive
                    # directional derivative" on the Tchebycheff max's kink, yet returns a
                    # point better than the global phase's, fails nothing: the solve's
                    # success is the global phase's; its own verdict is kept apart)
                    info["polish_success"] = bool(sol.info.get("success", True))
                    kept = [str(sol.info.get("message", ""))]
            info["polish_starts"] = len(starts)
            if info["polished"]:
                population = np.vstack([best_x[None, :], population])
                message += f"; polish from {len(starts)} start(s): {kept[0]}"
            else:
                message += "; the polish did not improve the point (the algorithm's is kept)"
        population = population[: max(self.pop_size, 1)]
        info.update(
            objective_calls=info["global_calls"] + info["polish_calls"],
            success=success,
            message=message,
            value=value,
        )
        if sc.needs_ideal and sc.ideal is not None:
            info["ideal"] = sc.ideal.tolist()
        return Solution(h.copy(), state=population, info=info)

    def _algorithm_name(self) -> str:
        return self.algorithm if isinstance(self.algorithm, str) else type(self.algorithm).__name__

    def _polisher(self, sc: Scalarization) -> ScipySolver:
        """A :class:`ScipySolver` on the same objectives and box, solving ``sc`` (its ideal point
        given, so that it makes no corner solves of its own); one per kind, its scalarization
        replaced by the current one before each polish."""
        polisher = self._polishers.get(sc.kind)
        if polisher is None:
            middle = 0.5 * (self.lower + self.upper)
            if self._problem is not None:
                polisher = from_pymoo(self._problem, scalarization=sc, x0=middle)
            else:
                assert self._objectives is not None
                polisher = ScipySolver(
                    self._objectives,
                    middle,
                    scalarization=sc,
                    bounds=Bounds(self.lower, self.upper),
                )
            self._polishers[sc.kind] = polisher
        polisher.scalarization = sc
        return polisher

    def _corner_values(self) -> FloatArray:
        """The objectives at global (polished) minimizers of each objective alone, (M, M)."""
        linear = Scalarization("linear")
        corners: list[float | FloatArray] = (
            [1.0, 0.0] if self.n_objectives == 2 else list(np.eye(self.n_objectives))
        )
        return np.array(
            [self._run(linear, w, None, polish=self.polish).objectives for w in corners]
        )


def _grid_cells(values: FloatArray) -> NDArray[np.int64]:
    """``values`` rounded to :data:`SEED_GRID` (the cells' indices; non-finite values to
    fixed markers), the same for values that differ only by rounding noise.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.adapters.pymoo_inner import _grid_cells
    >>> _grid_cells(np.array([0.3, 0.1 + 0.2, 0.5])).tolist()
    [300, 300, 500]
    """
    v = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(v)
    cells = np.rint(np.where(finite, v, 0.0) / SEED_GRID)
    cells = np.clip(cells, -(2.0**62), 2.0**62).astype(np.int64)
    marker = np.where(np.isnan(v), -(2**63), np.where(v > 0, 2**63 - 1, -(2**63) + 1))
    return np.asarray(np.where(finite, cells, marker), dtype=np.int64)


_PROBLEM_CLASSES: dict[type, type] = {}


def _problem_class(base: type) -> type:
    """The pymoo problem ``min_x s(h(x); w)`` over the solver's box (a vectorised ``Problem``
    subclass made on first use, so that pymoo is imported only then)."""
    cls = _PROBLEM_CLASSES.get(base)
    if cls is not None:
        return cls

    class Scalarized(base):
        def __init__(self, solver: PymooGlobalSolver, sc: Scalarization, w: Any) -> None:
            super().__init__(
                n_var=solver.n_var,
                n_obj=1,
                n_ieq_constr=solver.n_constraints,
                xl=solver.lower,
                xu=solver.upper,
            )
            self.solver, self.sc, self.w = solver, sc, w
            self.calls = 0
            self.non_finite = 0
            # the best point evaluated, by (constraint violation, scalarized value), with its
            # objectives, so that the result costs no evaluation outside the count
            self.best_key = (np.inf, np.inf)
            self.best_x: FloatArray | None = None
            self.best_h: FloatArray = np.empty(0)
            self.best_f = np.inf
            # every evaluated point (for the polish's starts)
            self.archive: list[tuple[FloatArray, FloatArray, FloatArray, FloatArray]] = []

        def _evaluate(self, x: Any, out: dict[str, Any], *args: Any, **kwargs: Any) -> None:
            xs = np.atleast_2d(np.asarray(x, dtype=np.float64))
            if self.calls + xs.shape[0] > self.solver.n_evals:
                raise _BudgetSpent
            h = self.solver._values(xs)
            self.calls += xs.shape[0]
            finite = np.all(np.isfinite(h), axis=1)
            self.non_finite += int(np.sum(~finite))
            f = np.full(xs.shape[0], np.inf)
            if np.any(finite):
                f[finite] = self.sc(h[finite], self.w)
            out["F"] = f[:, None]
            cv = np.zeros(xs.shape[0])
            if self.solver.n_constraints:
                g = self.solver._constraints(xs)
                out["G"] = g
                cv = np.sum(np.maximum(g, 0.0), axis=1)
            self.archive.append((xs.copy(), h, f, cv))
            i = int(np.lexsort([f, cv])[0])
            if (cv[i], f[i]) < self.best_key:
                self.best_key = (float(cv[i]), float(f[i]))
                self.best_x, self.best_h, self.best_f = xs[i].copy(), h[i].copy(), float(f[i])

        def polish_starts(self, k: int) -> list[FloatArray]:
            """Up to ``k`` starts for the polish: the best point evaluated, then the best
            points of the initial population, in order of (violation, value), each at least
            ``_POLISH_APART`` (a fraction of the box, per variable) from the starts taken
            (module docstring, *Polish*)."""
            assert self.best_x is not None
            chosen = [self.best_x.copy()]
            xs, _, fs, cvs = self.archive[0]
            width = np.where(self.xu > self.xl, self.xu - self.xl, 1.0)
            for i in np.lexsort([fs, cvs]):
                if len(chosen) >= k:
                    break
                if not np.isfinite(fs[i]):
                    continue
                if all(np.max(np.abs(xs[i] - c) / width) > _POLISH_APART for c in chosen):
                    chosen.append(xs[i].copy())
            return chosen

    _PROBLEM_CLASSES[base] = Scalarized
    return Scalarized


# -- helpers -----------------------------------------------------------------------------------


def _import_pymoo() -> dict[str, Any]:
    try:
        from pymoo.core.algorithm import Algorithm
        from pymoo.core.problem import Problem
    except ImportError as exc:
        raise ImportError(f"from_pymoo_global needs pymoo (the 'many' extra): {_INSTALL}") from exc
    return {"Algorithm": Algorithm, "Problem": Problem}


def _named_algorithm(name: str, pop_size: int) -> Any:
    if name == "ga":
        from pymoo.algorithms.soo.nonconvex.ga import GA

        return GA(pop_size=pop_size, eliminate_duplicates=True)
    if name == "de":
        from pymoo.algorithms.soo.nonconvex.de import DE

        return DE(pop_size=pop_size, variant="DE/best/1/bin")
    from pymoo.algorithms.soo.nonconvex.pattern import PatternSearch

    return PatternSearch(n_sample_points=pop_size)


def _check_algorithm(algorithm: Any, base: type) -> Any:
    if isinstance(algorithm, str):
        key = algorithm.lower().replace("-", "_")
        if key not in ALGORITHMS:
            raise ValueError(
                f"algorithm must be one of {list(ALGORITHMS)} or a pymoo Algorithm instance, "
                f"got {algorithm!r}"
            )
        return key
    if not isinstance(algorithm, base):
        raise TypeError(
            f"algorithm must be one of {list(ALGORITHMS)} or a pymoo Algorithm instance, got "
            f"{type(algorithm).__name__}"
        )
    if getattr(algorithm, "initialization", None) is None:
        raise TypeError(
            f"the pymoo algorithm {type(algorithm).__name__} has no initialization to warm-start "
            "from; use a population-based or local-search algorithm (GA, DE, PatternSearch...)"
        )
    return algorithm


def _initial_size(algorithm: Any, pop_size: int | None) -> int:
    if not isinstance(algorithm, str):
        if pop_size is not None:
            raise ValueError("pop_size is set on the algorithm instance; leave pop_size out")
        size = getattr(algorithm, "pop_size", None) or getattr(algorithm, "n_sample_points", None)
        return int(size) if size else DEFAULT_POP_SIZE
    if pop_size is None:
        return DEFAULT_PATTERN_SAMPLE if algorithm == "pattern_search" else DEFAULT_POP_SIZE
    size = check_positive_int(pop_size, name="pop_size")
    if size < 4:
        raise ValueError(f"pop_size must be at least 4, got {size}")
    return size


def _bound(value: Any, n: int, name: str) -> FloatArray:
    if value is None:
        raise ValueError(f"{name} must be finite: the initial population is drawn in the box")
    out = np.broadcast_to(np.asarray(value, dtype=np.float64), (n,)).copy()
    if not np.all(np.isfinite(out)):
        raise ValueError(
            f"{name} must be finite (got {out.tolist()}): the initial population is drawn in "
            "the box"
        )
    return out


def _as_box(bounds: Any) -> tuple[FloatArray, FloatArray]:
    if bounds is None:
        raise ValueError(
            "bounds are required: a population search draws its initial population in a "
            "finite box; give bounds=[(low, high), ...]"
        )
    if isinstance(bounds, Bounds):
        lower = np.atleast_1d(np.asarray(bounds.lb, dtype=np.float64))
        upper = np.atleast_1d(np.asarray(bounds.ub, dtype=np.float64))
        lower, upper = np.broadcast_arrays(lower, upper)
    else:
        try:
            pairs = np.array(
                [[np.nan if v is None else v for v in p] for p in bounds], dtype=np.float64
            )
        except (TypeError, ValueError):
            pairs = np.empty((0,))
        if pairs.ndim != 2 or pairs.shape[0] == 0 or pairs.shape[1] != 2:
            raise ValueError(
                f"bounds must be (low, high) pairs, one per variable, or a scipy.optimize."
                f"Bounds, got {bounds!r}"
            )
        lower, upper = pairs[:, 0], pairs[:, 1]
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ValueError(
            f"bounds must be finite (got low {lower.tolist()} and high {upper.tolist()}): a "
            "population search draws its initial population in the box"
        )
    if np.any(lower > upper):
        raise ValueError(
            f"bounds must have low <= high, got low {lower.tolist()} and high {upper.tolist()}"
        )
    return np.array(lower, dtype=np.float64), np.array(upper, dtype=np.float64)
