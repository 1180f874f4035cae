"""Test problems with ``M >= 2`` objectives (meant for ``M >= 3``) and exact inner solvers.

Every problem here minimizes ``M`` objectives and is scalarized with a weight *vector* ``w`` on
the simplex (weight ``w_m`` on objective ``m``): ``min_x sum_m w_m h_m(x)``. They share one
interface, :class:`ManyObjectiveProblem`:

* ``n_objectives``; ``objectives(x) -> (M,)``; ``argmin(w) -> x`` (the exact minimizer);
* ``front(W)``: the exact front points ``f_PF(w) = h(argmin(w))``, vectorised: weights (B, M)
  to points (B, M), or one (M,) vector to one (M,) point;
* ``solver()``: an exact inner solver, ``solve(weight, state=None) -> Solution(objectives,
  state=x)`` and ``solve_many(weights, states)``;
* ``reference_front(resolution=0.01)``: a dense sample of the whole front for covering-radius and
  IGD metrics (:func:`~paretosurf.problems.sampling.dense_front_sample`).

Weights: a vector of shape (M,) (or rows of shape (B, M)) of non-negative entries summing to 1
(within ``1e-8``; rows are renormalised). For ``M = 2`` a scalar ``w`` also works and means
``(w, 1 - w)``, the library's bi-objective convention, as the driver hands scalar weights to
two-objective solvers and vectors to ``M >= 3`` ones.

Problems:

* :class:`QuadraticM` -- ``h_m(x) = 0.5 (x - b_m)^T Q_m (x - b_m)``, closed-form minimizer,
  random instances with distorted fronts, and a K-step gradient solver;
* :class:`InvertedDTLZ2` -- a convex DTLZ2-style front ``r * (1 - u)``, ``u`` on the unit
  sphere, in closed form;
* :func:`deep_sea_treasure_pressure` -- Deep Sea Treasure with a third reward, a depth
  ("pressure") penalty, as a KL-regularized tabular MDP (:class:`ManyObjectiveMDP`).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.spatial import cKDTree

from paretosurf._validation import (
    as_weight_array,
    check_non_negative_int,
    check_positive,
    check_positive_int,
)
from paretosurf.adapters.scalarization import Scalarization
from paretosurf.problems._simplex import check_simplex
from paretosurf.problems.gym import TabularMDP, TabularModel, tabular_deep_sea_treasure
from paretosurf.problems.mdp import RegularizedMDP
from paretosurf.problems.quadratic import _as_spd, _as_vector
from paretosurf.problems.sampling import dense_front_sample
from paretosurf.solvers import Solution

__all__ = [
    "DTLZ2",
    "InvertedDTLZ2",
    "ManyExactSolver",
    "ManyObjectiveMDP",
    "ManyObjectiveProblem",
    "QuadraticGradientSolver",
    "QuadraticM",
    "deep_sea_treasure_pressure",
    "weight_rows",
]

FloatArray = NDArray[np.float64]


# ---------------------------------------------------------------------------------------------
# Weights
# ---------------------------------------------------------------------------------------------
def weight_rows(weights: ArrayLike, n_objectives: int, *, name: str = "weights",
                batch: bool = False) -> tuple[FloatArray, bool]:
    """Weights as validated simplex rows (B, M), and whether one weight was given.

    One weight: a vector of shape (M,), or for ``M = 2`` a scalar ``w`` meaning ``(w, 1 - w)``.
    A batch: shape (B, M), or for ``M = 2`` (and ``batch=True``) scalars of shape (B,). Rows
    are checked with :func:`~paretosurf.problems._simplex.check_simplex` and renormalised to
    sum to 1 exactly.

    Raises
    ------
    ValueError
        Naming ``name``: a wrong shape, or a row off the simplex.

    Examples
    --------
    >>> from paretosurf.problems.many import weight_rows
    >>> weight_rows([0.2, 0.3, 0.5], 3)[0].tolist(), weight_rows(0.25, 2)[0].tolist()
    ([[0.2, 0.3, 0.5]], [[0.25, 0.75]])
    >>> weight_rows([0.5, 0.5], 3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: weights must be a weight vector of shape (3,) or weight vectors of shape ... (2,)
    """
    m = n_objectives
    arr = np.asarray(weights, dtype=np.float64)
    if m == 2 and (arr.ndim == 0 or (batch and arr.ndim == 1)):
        w = as_weight_array(arr, name=name)
        rows = np.stack([np.atleast_1d(w), 1.0 - np.atleast_1d(w)], axis=1)
        return rows, arr.ndim == 0
    single = arr.ndim == 1 and not batch
    if not ((single and arr.shape == (m,)) or (arr.ndim == 2 and arr.shape[1] == m)):
        scalar = " (or scalars w in [0, 1] meaning (w, 1 - w))" if m == 2 else ""
        what = "weight vectors" if batch else f"a weight vector of shape ({m},) or weight vectors"
        raise ValueError(f"{name} must be {what} of shape (B, {m}){scalar}, got shape "
                         f"{arr.shape}")
    rows = check_simplex(np.atleast_2d(arr), name=name)
    return np.asarray(rows / rows.sum(axis=1, keepdims=True), dtype=np.float64), single


def _batch(weights: ArrayLike, states: Sequence[Any], m: int) -> tuple[FloatArray, list[Any]]:
    """A solver's batch: weight rows (B, M) and one state per row, checked."""
    rows, _ = weight_rows(weights, m, batch=True)
    out = list(states)
    if len(out) != rows.shape[0]:
        raise ValueError(f"states must hold one entry per weight ({rows.shape[0]}), got "
                         f"{len(out)}")
    return rows, out


# ---------------------------------------------------------------------------------------------
# Common interface
# ---------------------------------------------------------------------------------------------
class ManyObjectiveProblem(ABC):
    """Base class of the ``M``-objective problems: an exact scalarized solve gives the rest.

    Subclasses set ``n_objectives`` and define :meth:`objectives` and :meth:`_solve_rows`
    (exact minimizers and their objective vectors for a batch of validated weight rows); the
    base class derives :meth:`argmin`, :meth:`front`, :meth:`solver` and
    :meth:`reference_front` from them. Weights are described in :mod:`paretosurf.problems.many`.
    """

    n_objectives: int
    #: The scalarization the exact solver minimizes (a kind of
    #: :class:`~paretosurf.adapters.Scalarization`, ideal point 0).
    scalarization: str = "linear"

    @abstractmethod
    def objectives(self, x: Any) -> FloatArray:
        """Objective vector ``h(x)``, shape (M,)."""

    @abstractmethod
    def _solve_rows(self, weights: FloatArray,
                    states: Sequence[Any] | None = None) -> tuple[list[Any], FloatArray]:
        """Exact minimizers (one per row) and their objectives (B, M) for weights (B, M)
        already validated; ``states`` are optional warm starts, one per row."""

    def objectives_many(self, xs: Any) -> FloatArray:
        """Objective vectors (B, M) of a batch of decisions."""
        return np.stack([self.objectives(x) for x in xs]).reshape(-1, self.n_objectives)

    def argmin(self, w: ArrayLike) -> Any:
        """The exact minimizer of ``sum_m w_m h_m`` for one weight vector ``w`` of shape (M,)."""
        rows, single = weight_rows(w, self.n_objectives, name="w")
        if not single:
            raise ValueError(f"w must be one weight vector of shape ({self.n_objectives},), got "
                             f"shape {np.shape(w)}")
        return self._solve_rows(rows)[0][0]

    def front(self, weights: ArrayLike) -> FloatArray:
        """Exact front points: weights (B, M) to points (B, M), or one (M,) vector to (M,)."""
        rows, single = weight_rows(weights, self.n_objectives)
        points = self._solve_rows(rows)[1]
        return points[0] if single else points

    def solver(self) -> ManyExactSolver:
        """The exact inner solver (see :class:`ManyExactSolver`)."""
        return ManyExactSolver(self)

    def reference_front(self, resolution: float = 0.01, *, max_points: int = 200_000,
                        divisions: int | None = None) -> FloatArray:
        """A dense sample (P, M) of the whole front, in the problem's objective units.

        Every front point lies within about ``resolution`` times the front's diameter of a
        sample point, however unevenly the weights map onto the front; see
        :func:`~paretosurf.problems.sampling.dense_front_sample` (``max_points``,
        ``divisions``).
        """
        return dense_front_sample(self._front_rows, self.n_objectives, resolution=resolution,
                                  max_points=max_points, divisions=divisions)

    def _front_rows(self, weights: FloatArray) -> FloatArray:
        rows, _ = weight_rows(weights, self.n_objectives, batch=True)
        return self._solve_rows(rows)[1]

    def decision(self, state: Any) -> Any:
        """The decision a solver state stands for (the exact solver's state is the decision)."""
        return state

    def evaluate(self, state: Any) -> FloatArray:
        """Objective vector of a solver state or decision."""
        return np.asarray(self.objectives(self.decision(state)), dtype=np.float64)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n_objectives={self.n_objectives})"


class ManyExactSolver:
    """Exact inner solver of a :class:`ManyObjectiveProblem`; the state is the minimizer.

    ``solve(weight, state=None)`` takes a weight vector of shape (M,) on the simplex (for
    ``M = 2`` also a scalar ``w`` meaning ``(w, 1 - w)``); ``solve_many(weights, states)``
    takes (B, M) rows (for ``M = 2`` also (B,) scalars) and solves them in one batch.
    ``state`` is used as a warm start where the problem has one (the MDP's policy), ignored
    otherwise. ``info["steps"]`` is 1 (one exact solve).

    Raises
    ------
    ValueError
        For a weight of the wrong length or off the simplex.

    Examples
    --------
    >>> from paretosurf.problems.many import InvertedDTLZ2
    >>> solver = InvertedDTLZ2(3).solver()
    >>> sol = solver.solve([1.0, 0.0, 0.0])
    >>> sol.objectives.round(12).tolist(), sol.info["steps"]
    ([0.0, 1.0, 1.0], 1)
    >>> [s.objectives.round(3).tolist() for s in solver.solve_many([[0, 1, 0], [0, 0, 1]],
    ...                                                            [None, None])]
    [[1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    """

    def __init__(self, problem: ManyObjectiveProblem) -> None:
        self.problem = problem

    @property
    def scalarization(self) -> Scalarization:
        """The scalarization the solver minimizes (the problem's ``scalarization``): the
        weighted sum, or for :class:`DTLZ2` the achievement scalarization with ideal point 0.
        The run's findings judge the points under it."""
        if self.problem.scalarization == "linear":
            return Scalarization("linear")
        return Scalarization(self.problem.scalarization, ideal=self.ideal, rho=0.0)

    @property
    def ideal(self) -> FloatArray | None:
        """The ideal point of the solver's scalarization (0), ``None`` for weighted sums."""
        return None if self.problem.scalarization == "linear" else np.zeros(
            self.problem.n_objectives)

    def solve(self, weight: ArrayLike, state: Any = None) -> Solution:
        """The exact solution at one weight vector."""
        rows, single = weight_rows(weight, self.problem.n_objectives, name="weight")
        if not single:
            raise ValueError(f"weight must be one weight vector of shape "
                             f"({self.problem.n_objectives},), got shape {np.shape(weight)}")
        xs, objs = self.problem._solve_rows(rows, [state])
        return Solution(objs[0], state=xs[0], info={"steps": 1})

    def solve_many(self, weights: ArrayLike, states: Sequence[Any]) -> list[Solution]:
        """Exact solutions at weights (B, M), one per row, solved together."""
        rows, states = _batch(weights, states, self.problem.n_objectives)
        xs, objs = self.problem._solve_rows(rows, states)
        return [Solution(objs[i], state=xs[i], info={"steps": 1}) for i in range(len(xs))]

    def __repr__(self) -> str:
        return f"ManyExactSolver({self.problem!r})"


# ---------------------------------------------------------------------------------------------
# Quadratic
# ---------------------------------------------------------------------------------------------
class QuadraticM(ManyObjectiveProblem):
    """``h_m(x) = 0.5 (x - b_m)^T Q_m (x - b_m)``, ``m = 1..M``, ``Q_m`` symmetric positive
    definite.

    The scalarized problem is strongly convex with the unique minimizer
    ``x(w) = A(w)^{-1} sum_m w_m Q_m b_m``, ``A(w) = sum_m w_m Q_m``; at a corner ``w = e_m`` it
    is ``b_m``. With ``M = 2`` and weights ``(w, 1 - w)`` the front is half that of
    :class:`~paretosurf.problems.quadratic.Quadratic` ``(Q_1, b_1, Q_2, b_2)`` at ``w`` (which
    has no factor 0.5). The map from weights to the front is distorted where the ``Q_m`` are
    ill-conditioned: see :meth:`random`.

    Parameters
    ----------
    Qs : array_like, shape (M, n, n)
        Symmetric positive definite matrices, ``M >= 2``.
    bs : array_like, shape (M, n)
        Minimizers of the objectives; not all equal.

    Raises
    ------
    ValueError
        On a wrong shape, a non-symmetric or non-positive-definite matrix, non-finite entries,
        or all ``b_m`` equal (the front would be one point).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.many import QuadraticM
    >>> prob = QuadraticM([np.eye(2)] * 3, [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> prob.argmin([0.5, 0.25, 0.25]).tolist()
    [0.25, 0.25]
    >>> prob.front(np.eye(3)).tolist()                 # corners: h_m = 0 at b_m
    [[0.0, 0.5, 0.5], [0.5, 0.0, 1.0], [0.5, 1.0, 0.0]]
    """

    def __init__(self, Qs: ArrayLike, bs: ArrayLike) -> None:
        q_arr = np.asarray(Qs, dtype=np.float64)
        if q_arr.ndim != 3 or q_arr.shape[0] < 2:
            raise ValueError(f"Qs must have shape (M, n, n) with M >= 2, got shape {q_arr.shape}")
        m = q_arr.shape[0]
        self.Qs = np.stack([_as_spd(q, f"Qs[{i}]") for i, q in enumerate(q_arr)])
        n = self.Qs.shape[1]
        b_arr = np.asarray(bs, dtype=np.float64)
        if b_arr.ndim != 2 or b_arr.shape[0] != m:
            raise ValueError(f"bs must have shape (M, n) = ({m}, {n}), got shape {b_arr.shape}")
        self.bs = np.stack([_as_vector(b, f"bs[{i}]", n) for i, b in enumerate(b_arr)])
        if np.all(self.bs == self.bs[0]):
            raise ValueError("the bs must not all be equal (the front would be a single point)")
        self.n_objectives = m
        self.n_dim = n
        self._qb = np.einsum("mij,mj->mi", self.Qs, self.bs)  # Q_m b_m

    @classmethod
    def random(cls, n_objectives: int = 3, n_dims: int = 5, *, seed: int = 0,
               condition: float = 100.0) -> QuadraticM:
        """A random instance, deterministic for a seed.

        ``Q_m = U_m diag(lambda) U_m^T`` with a Haar-random rotation ``U_m`` (QR factorization
        of a Gaussian matrix, signs fixed) and eigenvalues log-uniform in ``[1, condition]``,
        the two extremes included when ``n_dims >= 2`` (so each ``Q_m`` has condition number
        ``condition``); ``b_m`` standard normal.

        Examples
        --------
        >>> import numpy as np
        >>> from paretosurf.problems.many import QuadraticM
        >>> prob = QuadraticM.random(3, 4, seed=1, condition=50.0)
        >>> prob.Qs.shape, round(float(np.linalg.cond(prob.Qs[0])), 6)
        ((3, 4, 4), 50.0)
        """
        m = check_positive_int(n_objectives, name="n_objectives")
        n = check_positive_int(n_dims, name="n_dims")
        if m < 2:
            raise ValueError(f"n_objectives must be >= 2, got {m}")
        cond = check_positive(condition, name="condition")
        if not (1.0 <= cond < math.inf):
            raise ValueError(f"condition must be a finite number >= 1, got {cond}")
        rng = np.random.default_rng(check_non_negative_int(seed, name="seed"))
        qs = []
        for _ in range(m):
            g = rng.normal(size=(n, n))
            u, r = np.linalg.qr(g)
            u = u * np.where(np.diag(r) < 0, -1.0, 1.0)
            logs = rng.uniform(0.0, math.log(cond), size=n)
            if n >= 2:
                logs[:2] = (0.0, math.log(cond))
            q = (u * np.exp(logs)) @ u.T
            qs.append(0.5 * (q + q.T))
        bs = rng.normal(size=(m, n))
        return cls(np.stack(qs), bs)

    def _check_x(self, x: ArrayLike, batch: bool = False) -> FloatArray:
        arr = np.asarray(x, dtype=np.float64)
        want = (arr.shape[0], self.n_dim) if batch and arr.ndim == 2 else (self.n_dim,)
        if arr.shape != want or not np.all(np.isfinite(arr)):
            shape = f"(B, {self.n_dim})" if batch else f"({self.n_dim},)"
            raise ValueError(f"x must be a finite array of shape {shape}, got shape {arr.shape}")
        return arr

    def objectives(self, x: ArrayLike) -> FloatArray:
        """``(h_1(x), ..., h_M(x))``."""
        return self.objectives_many(self._check_x(x)[None])[0]

    def objectives_many(self, xs: ArrayLike) -> FloatArray:
        """Objective vectors (B, M) of points (B, n)."""
        arr = self._check_x(xs, batch=True)
        e = arr[:, None, :] - self.bs[None]  # (B, M, n)
        return np.asarray(0.5 * np.einsum("bmi,mij,bmj->bm", e, self.Qs, e), dtype=np.float64)

    def gradients(self, x: ArrayLike) -> FloatArray:
        """Stacked gradients ``Q_m (x - b_m)``, shape (M, n)."""
        xa = self._check_x(x)
        return np.asarray(np.einsum("mij,mj->mi", self.Qs, xa[None] - self.bs), dtype=np.float64)

    def hessian(self, w: ArrayLike) -> FloatArray:
        """``A(w) = sum_m w_m Q_m``, shape (n, n), for one weight vector."""
        rows, single = weight_rows(w, self.n_objectives, name="w")
        if not single:
            raise ValueError(f"w must be one weight vector of shape ({self.n_objectives},)")
        return np.asarray(np.einsum("m,mij->ij", rows[0], self.Qs), dtype=np.float64)

    def _solve_rows(self, weights: FloatArray,
                    states: Sequence[Any] | None = None) -> tuple[list[Any], FloatArray]:
        a = np.einsum("bm,mij->bij", weights, self.Qs)
        rhs = weights @ self._qb
        xs = np.linalg.solve(a, rhs[..., None])[..., 0]
        return list(xs), self.objectives_many(xs)

    def gradient_solver(self, steps: int, lr: float | None = None, *,
                        init: ArrayLike | None = None) -> QuadraticGradientSolver:
        """``steps`` warm-started gradient-descent steps per call (an inexact inner solver).

        See :class:`QuadraticGradientSolver`; ``lr=None`` steps ``1 / L(w)``, ``L(w)`` the
        largest eigenvalue of ``A(w) = sum_m w_m Q_m``; ``init`` (default the mean of the
        ``b_m``) is where a slot without a warm start begins.

        Examples
        --------
        >>> import numpy as np
        >>> from paretosurf.problems.many import QuadraticM
        >>> prob = QuadraticM.random(3, 2, seed=0, condition=4.0)
        >>> solver, w = prob.gradient_solver(100), [0.2, 0.3, 0.5]
        >>> sol = solver.solve(w)
        >>> sol = solver.solve(w, sol.state)           # warm start: 100 more steps
        >>> bool(np.allclose(sol.state, prob.argmin(w), atol=1e-10)), sol.info["steps"]
        (True, 100)
        """
        return QuadraticGradientSolver(self, steps, lr, init=init)

    def __repr__(self) -> str:
        return f"QuadraticM(n_objectives={self.n_objectives}, n_dim={self.n_dim})"


class QuadraticGradientSolver:
    """K warm-started gradient-descent steps on ``sum_m w_m h_m`` of a :class:`QuadraticM`.

    The state is the current point ``x`` (shape (n,)); a call runs ``steps`` steps
    ``x <- x - lr * A(w) (x - x(w))`` from it and reports the objectives at the end. With
    ``lr=None`` the step is ``1 / L(w)``, ``L(w)`` the largest eigenvalue of ``A(w)``, which
    converges to :meth:`QuadraticM.argmin` at the rate ``1 - mu(w) / L(w)`` per step; a fixed
    ``lr`` converges when ``lr < 2 / L(w)``. ``solve_many`` advances all slots together.

    Parameters
    ----------
    problem : QuadraticM
    steps : int
        K, steps per call (reported as ``info["steps"]``).
    lr : float, optional
        Fixed step size; default ``1 / L(w)`` per weight.
    init : array_like, shape (n,), optional
        Start of a slot without a warm start; default the mean of the ``b_m``.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.many import QuadraticM
    >>> prob = QuadraticM([np.eye(1)] * 3, [[0.0], [1.0], [2.0]])
    >>> solver = prob.gradient_solver(1)                    # A(w) = I: one step lands on x(w)
    >>> solver.solve([0.0, 0.5, 0.5]).state.tolist()
    [1.5]
    """

    def __init__(self, problem: QuadraticM, steps: int, lr: float | None = None, *,
                 init: ArrayLike | None = None) -> None:
        if not isinstance(problem, QuadraticM):
            raise TypeError(f"problem must be a QuadraticM, got {type(problem).__name__}")
        self.problem = problem
        self.steps = check_positive_int(steps, name="steps")
        self.lr = None if lr is None else check_positive(lr, name="lr")
        start = problem.bs.mean(axis=0) if init is None else np.array(init, dtype=np.float64)
        self.init = problem._check_x(start)

    def solve(self, weight: ArrayLike, state: Any = None) -> Solution:
        """``steps`` steps at one weight vector from ``state`` (a point, or None)."""
        rows, single = weight_rows(weight, self.problem.n_objectives, name="weight")
        if not single:
            raise ValueError(f"weight must be one weight vector of shape "
                             f"({self.problem.n_objectives},), got shape {np.shape(weight)}")
        return self._run(rows, [state])[0]

    def solve_many(self, weights: ArrayLike, states: Sequence[Any]) -> list[Solution]:
        """``steps`` steps at each weight row from its state, all slots at once."""
        rows, states = _batch(weights, states, self.problem.n_objectives)
        return self._run(rows, states)

    def _run(self, rows: FloatArray, states: list[Any]) -> list[Solution]:
        prob = self.problem
        x = np.stack([self.init if s is None else prob._check_x(s) for s in states])
        a = np.einsum("bm,mij->bij", rows, prob.Qs)
        c = rows @ prob._qb
        if self.lr is None:
            lr = 1.0 / np.linalg.eigvalsh(a)[:, -1]
        else:
            lr = np.full(rows.shape[0], self.lr)
        for _ in range(self.steps):
            grad = np.einsum("bij,bj->bi", a, x) - c
            x = x - lr[:, None] * grad
        objs = prob.objectives_many(x)
        return [Solution(objs[i], state=x[i].copy(), info={"steps": self.steps})
                for i in range(x.shape[0])]

    def __repr__(self) -> str:
        return f"QuadraticGradientSolver(steps={self.steps}, lr={self.lr})"


# ---------------------------------------------------------------------------------------------
# Inverted (convex) DTLZ2
# ---------------------------------------------------------------------------------------------
class InvertedDTLZ2(ManyObjectiveProblem):
    """A convex DTLZ2-style problem: ``f_m(x) = r_m (1 + g(x)) (1 - u_m(x))``.

    The decision ``x`` lies in ``[0, 1]^(M - 1 + n_distance)``. The first ``M - 1`` (position)
    variables give DTLZ2's point on the positive orthant of the unit sphere, with
    ``theta_i = x_i pi / 2``: ``u_1 = cos theta_1 ... cos theta_{M-1}``, ``u_m = cos theta_1 ...
    cos theta_{M-m} sin theta_{M-m+1}`` (``u_M = sin theta_1``); the others (distance variables)
    give ``g(x) = sum (x_i - 1/2)^2``. Since ``1 - u_m >= 0``, ``g = 0`` is optimal and the
    Pareto front is ``{r * (1 - u)}``, a convex piece of a sphere (an ellipsoid for unequal
    radii) facing the origin. The scalarized minimizer maximizes ``(r * w) . u`` on the sphere:

    ``u(w) = (r * w) / ||r * w||``, ``f_PF(w) = r - r^2 * w / ||r * w||`` (elementwise).

    Parameters
    ----------
    n_objectives : int
        ``M >= 2``.
    radii : array_like, shape (M,), optional
        Positive scales ``r_m`` of the objectives; default all ones.
    n_distance : int
        Number of distance variables, >= 0.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.many import InvertedDTLZ2
    >>> prob = InvertedDTLZ2(3)
    >>> w = np.ones(3) / 3
    >>> prob.front(w).round(6).tolist()                   # 1 - 1/sqrt(3) each
    [0.42265, 0.42265, 0.42265]
    >>> x = prob.argmin(w)
    >>> x.shape, bool(np.allclose(prob.objectives(x), prob.front(w)))
    ((7,), True)
    """

    def __init__(self, n_objectives: int = 3, radii: ArrayLike | None = None,
                 n_distance: int = 5) -> None:
        m = check_positive_int(n_objectives, name="n_objectives")
        if m < 2:
            raise ValueError(f"n_objectives must be >= 2, got {m}")
        r = np.ones(m) if radii is None else np.array(radii, dtype=np.float64)
        if r.shape != (m,) or not np.all(np.isfinite(r)) or np.any(r <= 0):
            raise ValueError(f"radii must be {m} positive finite numbers, got {radii!r}")
        self.n_objectives = m
        self.radii = r
        self.n_distance = check_non_negative_int(n_distance, name="n_distance")
        self.n_var = m - 1 + self.n_distance

    def _check_x(self, xs: ArrayLike) -> FloatArray:
        arr = np.asarray(xs, dtype=np.float64)
        if arr.ndim == 0 or arr.shape[-1] != self.n_var or arr.ndim > 2:
            raise ValueError(f"x must have shape ({self.n_var},) or (B, {self.n_var}), got "
                             f"shape {arr.shape}")
        if not np.all(np.isfinite(arr)) or np.any((arr < 0) | (arr > 1)):
            raise ValueError("x must lie in [0, 1] (every entry finite)")
        return arr

    def sphere_point(self, xs: ArrayLike) -> FloatArray:
        """DTLZ2's ``u(x)`` on the unit sphere, shape (M,) or (B, M)."""
        arr = self._check_x(xs)
        theta = 0.5 * math.pi * arr[..., : self.n_objectives - 1]
        m = self.n_objectives
        cos, sin = np.cos(theta), np.sin(theta)
        u = np.empty((*arr.shape[:-1], m))
        for k in range(m):  # u_{k+1}: cos theta_1 ... cos theta_{M-1-k} (times sin theta_{M-k})
            u[..., k] = np.prod(cos[..., : m - 1 - k], axis=-1)
            if k > 0:
                u[..., k] *= sin[..., m - 1 - k]
        return u

    def distance(self, xs: ArrayLike) -> FloatArray:
        """``g(x) = sum (x_i - 1/2)^2`` over the distance variables."""
        arr = self._check_x(xs)
        return np.asarray(np.sum((arr[..., self.n_objectives - 1:] - 0.5) ** 2, axis=-1),
                          dtype=np.float64)

    def objectives(self, x: ArrayLike) -> FloatArray:
        """``f_m = r_m (1 + g) (1 - u_m)``, shape (M,)."""
        arr = self._check_x(x)
        if arr.ndim != 1:
            raise ValueError(f"x must have shape ({self.n_var},), got shape {arr.shape}")
        return self.objectives_many(arr[None])[0]

    def objectives_many(self, xs: ArrayLike) -> FloatArray:
        """Objective vectors (B, M) of decisions (B, n_var)."""
        arr = np.atleast_2d(self._check_x(xs))
        g = self.distance(arr)
        return np.asarray(self.radii * (1.0 + g)[:, None] * (1.0 - self.sphere_point(arr)),
                          dtype=np.float64)

    def decision_from_sphere(self, u: ArrayLike) -> FloatArray:
        """The decisions (B, n_var) whose sphere points are the rows of ``u`` (non-negative
        unit vectors, B x M), with the distance variables at 1/2 (``g = 0``).

        Inverts DTLZ2's map: ``theta_i = atan2(u_{M-i+1}, ||(u_1, ..., u_{M-i})||)``.
        """
        ua = np.atleast_2d(np.asarray(u, dtype=np.float64))
        m = self.n_objectives
        x = np.full((ua.shape[0], self.n_var), 0.5)
        for i in range(1, m):
            theta = np.arctan2(ua[:, m - i], np.linalg.norm(ua[:, : m - i], axis=1))
            x[:, i - 1] = np.clip(theta / (0.5 * math.pi), 0.0, 1.0)
        return x

    def _solve_rows(self, weights: FloatArray,
                    states: Sequence[Any] | None = None) -> tuple[list[Any], FloatArray]:
        rw = self.radii * weights
        norm = np.linalg.norm(rw, axis=1, keepdims=True)
        u = rw / norm
        # 1 - u_m = sum_{k != m} rw_k^2 / (|rw| (|rw| + rw_m)), free of cancellation near e_m
        sq = rw * rw
        others = np.stack([np.delete(sq, m, axis=1).sum(axis=1)
                           for m in range(self.n_objectives)], axis=1)
        front = self.radii * others / (norm * (norm + rw))
        return list(self.decision_from_sphere(u)), np.asarray(front, dtype=np.float64)

    def __repr__(self) -> str:
        return (f"InvertedDTLZ2(n_objectives={self.n_objectives}, radii={self.radii.tolist()}, "
                f"n_distance={self.n_distance})")


class DTLZ2(InvertedDTLZ2):
    """DTLZ2: ``f_m(x) = r_m (1 + g(x)) u_m(x)``, a concave front, solved by its achievement
    scalarization.

    The decision, ``u(x)`` and ``g(x)`` are those of :class:`InvertedDTLZ2`; the Pareto front is
    ``{r * u}``, the positive orthant of the unit sphere (an ellipsoid for unequal radii),
    bulging away from the origin. Weighted sums reach only its corners. Its exact solver
    minimizes the achievement scalarization ``max_m f_m / w_m`` (``scalarization="asf"`` of
    :mod:`paretosurf.adapters`, ideal point 0), whose minimizer is the front point on the ray
    along ``w``:

    ``f_PF(w) = w / ||w / r||``.

    The corner ``e_m`` gives ``r_m e_m`` (objective ``m`` at its worst, the others at 0) and
    the edge ``w_m = 0`` the boundary curve ``f_m = 0``: the layout
    :func:`paretosurf.surf_simplex` spreads points over.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.many import DTLZ2
    >>> prob = DTLZ2(3)
    >>> prob.front(np.ones(3) / 3).round(6).tolist()      # 1/sqrt(3) each
    [0.57735, 0.57735, 0.57735]
    >>> x = prob.argmin([0.5, 0.5, 0.0])
    >>> prob.objectives(x).round(6).tolist()
    [0.707107, 0.707107, 0.0]
    """

    scalarization = "asf"

    def objectives_many(self, xs: ArrayLike) -> FloatArray:
        """Objective vectors (B, M) of decisions (B, n_var)."""
        arr = np.atleast_2d(self._check_x(xs))
        g = self.distance(arr)
        return np.asarray(self.radii * (1.0 + g)[:, None] * self.sphere_point(arr),
                          dtype=np.float64)

    def argmin(self, w: ArrayLike) -> Any:
        """The minimizer of the achievement scalarization ``max_m f_m / w_m`` for one weight
        vector ``w`` of shape (M,): the decision of the front point on the ray along ``w``."""
        return super().argmin(w)

    def _solve_rows(self, weights: FloatArray,
                    states: Sequence[Any] | None = None) -> tuple[list[Any], FloatArray]:
        scaled = weights / self.radii
        u = scaled / np.linalg.norm(scaled, axis=1, keepdims=True)
        return list(self.decision_from_sphere(u)), np.asarray(self.radii * u, dtype=np.float64)

    def __repr__(self) -> str:
        return (f"DTLZ2(n_objectives={self.n_objectives}, radii={self.radii.tolist()}, "
                f"n_distance={self.n_distance})")


# ---------------------------------------------------------------------------------------------
# MDPs
# ---------------------------------------------------------------------------------------------
class ManyObjectiveMDP(ManyObjectiveProblem):
    """A KL-regularized tabular MDP with ``M >= 2`` rewards behind the ``M``-objective interface.

    Wraps a :class:`~paretosurf.problems.mdp.RegularizedMDP` (kept as ``.mdp``): the decision
    is a policy (S, A), objective ``m`` is the MDP's (minimized) negated regularized return of
    reward ``m``, and the exact solve at a weight vector is the MDP's soft policy iteration on
    the reward ``sum_m w_m r_m`` (:meth:`RegularizedMDP.solve_weights
    <paretosurf.problems.mdp.RegularizedMDP.solve_weights>`), warm-started from a solver
    state's policy where there is one. Many weights are solved in batches of ``batch_size``.

    Parameters
    ----------
    mdp : RegularizedMDP
    batch_size : int
        Weights solved together (memory grows like ``batch_size * S^2``).

    Examples
    --------
    >>> from paretosurf.problems.many import ManyObjectiveMDP
    >>> from paretosurf.problems.gym import fishwood
    >>> prob = ManyObjectiveMDP(fishwood(gamma=0.9))
    >>> sol = prob.solver().solve(0.5)                    # M = 2: w means (w, 1 - w)
    >>> bool(abs(sol.objectives - prob.mdp.front([0.5])[0]).max() < 1e-12)
    True
    """

    def __init__(self, mdp: RegularizedMDP, *, batch_size: int = 256) -> None:
        if not isinstance(mdp, RegularizedMDP):
            raise TypeError(f"mdp must be a RegularizedMDP, got {type(mdp).__name__}")
        self.mdp = mdp
        self.n_objectives = mdp.n_objectives
        self.batch_size = check_positive_int(batch_size, name="batch_size")

    def objectives(self, x: ArrayLike) -> FloatArray:
        """Objective vector (M,) of a policy (S, A)."""
        return self.mdp.objectives(x)

    def objectives_many(self, xs: ArrayLike) -> FloatArray:
        """Objective vectors (B, M) of policies (B, S, A)."""
        return self.mdp.objectives_many(xs)

    def _solve_rows(self, weights: FloatArray,
                    states: Sequence[Any] | None = None) -> tuple[list[Any], FloatArray]:
        policies: list[Any] = []
        objs = [np.empty((0, self.n_objectives))]
        for start in range(0, weights.shape[0], self.batch_size):
            chunk = weights[start:start + self.batch_size]
            warm = None if states is None else list(states[start:start + self.batch_size])
            if warm is not None and all(s is None for s in warm):
                warm = None
            pis = self.mdp.solve_weights(chunk, warm)
            policies.extend(pis)
            objs.append(self.mdp.objectives_many(pis))
        return policies, np.concatenate(objs).reshape(-1, self.n_objectives)

    def reference_front(self, resolution: float = 0.01, *, max_points: int = 200_000,
                        divisions: int | None = None) -> FloatArray:
        """A dense sample (P, M) of the whole front (see
        :meth:`ManyObjectiveProblem.reference_front`); each new weight's solve is
        warm-started from the policy of the nearest weight solved before, which halves the
        soft policy iterations. At ``resolution = 0.01`` the DST front with pressure takes
        about 12,000 solves (some 10 s)."""
        solved_w: list[FloatArray] = []
        solved_pi: list[FloatArray] = []

        def front(weights: FloatArray) -> FloatArray:
            rows, _ = weight_rows(weights, self.n_objectives, batch=True)
            states: list[Any] | None = None
            if solved_w:
                known = np.concatenate(solved_w)
                _, nearest = cKDTree(known).query(rows)
                policies = np.concatenate(solved_pi)
                states = [policies[i] for i in nearest]
            pis, objs = self._solve_rows(rows, states)
            solved_w.append(rows)
            solved_pi.append(np.stack(pis))
            return objs

        return dense_front_sample(front, self.n_objectives, resolution=resolution,
                                  max_points=max_points, divisions=divisions)

    def __repr__(self) -> str:
        return f"ManyObjectiveMDP({self.mdp!r})"


#: Default pressure scale of :func:`deep_sea_treasure_pressure` (reward ``-depth / 10``).
DST_PRESSURE = 0.1


def deep_sea_treasure_pressure(
    map: str = "concave", gamma: float = 0.999, beta: float = 1.5,
    pressure: float = DST_PRESSURE, *, scale: str = "normalized",
) -> ManyObjectiveMDP:
    """Deep Sea Treasure with a third reward, a depth ("pressure") penalty: three objectives.

    The model is :func:`~paretosurf.problems.gym.tabular_deep_sea_treasure`'s (rewards
    ``[treasure, time]``, maximized) with ``R[2] = -pressure * depth`` for every step taken from
    a water cell, ``depth`` the row index (0 at the surface, 10 at the deepest treasure) of the
    cell the submarine is in when it acts; treasure cells and the terminal state pay 0, like the
    other rewards. The problem is the KL-regularized :class:`~paretosurf.problems.gym.TabularMDP`
    of that model (kept as ``.mdp``, the model as ``.mdp.model``) behind the ``M``-objective
    interface (:class:`ManyObjectiveMDP`): objectives (minimized) are the negated regularized
    returns of (treasure, time, pressure); ``w = (w_treasure, w_time, w_pressure)``.

    The three objectives conflict pairwise, but unevenly. The deep treasures pay most and cost
    the most time and pressure (treasure-time and treasure-pressure: each corner policy is the
    worst of the three in the other objective). Time and pressure agree more: the quickest
    treasure (1, one step down) is also the shallowest, and the only way to avoid pressure,
    staying at the surface, costs KL; they part through the KL term, which every objective
    carries. With the default ``pressure = 0.1`` (``gamma = 0.999``, ``beta = 1.5``) each of
    the two corner policies costs 3-5 % of the front's range more in the other's objective;
    smaller scales widen that gap a little (7-8 % at 0.01) but shrink the pressure range, larger
    ones narrow it (under 1 % at 0.5).

    Parameters
    ----------
    map : {"concave", "convex"}
        DST map, see :func:`~paretosurf.problems.gym.tabular_deep_sea_treasure`.
    gamma, beta : float
        Discount factor and KL strength (the paper's DST values by default).
    pressure : float
        Pressure penalty per step and unit of depth, > 0.
    scale : {"normalized", "discounted"}
        See :class:`~paretosurf.problems.mdp.RegularizedMDP`.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.many import deep_sea_treasure_pressure
    >>> prob = deep_sea_treasure_pressure()
    >>> prob.n_objectives, prob.mdp.model.objective_labels
    (3, ('treasure', 'time', 'pressure'))
    >>> corners = prob.front(np.eye(3))        # each corner is best in its own objective
    >>> bool(np.all(np.argmin(corners, axis=0) == [0, 1, 2]))
    True
    """
    p = check_positive(pressure, name="pressure")
    base = tabular_deep_sea_treasure(map)
    depth = np.array([lab[0] if isinstance(lab, tuple) else 0 for lab in base.state_labels],
                     dtype=np.float64)
    water = base.R[1] != 0.0  # (S, A): the steps that pay time are the moves from water cells
    r_pressure = np.where(water, -p * depth[:, None], 0.0)
    model = TabularModel(
        base.P, np.concatenate([base.R, r_pressure[None]]), base.rho, base.state_labels,
        base.action_labels, (*base.objective_labels, "pressure"), base.terminal_state,
        f"{base.name}-pressure",
    )
    return ManyObjectiveMDP(TabularMDP(model, gamma, beta, scale=scale))
