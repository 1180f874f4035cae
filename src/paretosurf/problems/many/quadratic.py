"""Quadratic objectives ``h_m(x) = 0.5 (x - b_m)^T Q_m (x - b_m)`` of ``M`` objectives:
:class:`QuadraticM` (closed-form minimizer, random instances) and its K-step
:class:`QuadraticGradientSolver`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from paretosurf._utils.validation import (
    check_non_negative_int,
    check_positive,
    check_positive_int,
)
from paretosurf.problems.many.base import FloatArray, ManyObjectiveProblem, _batch, weight_rows
from paretosurf.problems.quadratic import _as_spd, _as_vector
from paretosurf.solvers import Solution

__all__ = ["QuadraticGradientSolver", "QuadraticM"]


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
    def random(
        cls, n_objectives: int = 3, n_dims: int = 5, *, seed: int = 0, condition: float = 100.0
    ) -> QuadraticM:
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

    def _solve_rows(
        self, weights: FloatArray, states: Sequence[Any] | None = None
    ) -> tuple[list[Any], FloatArray]:
        a = np.einsum("bm,mij->bij", weights, self.Qs)
        rhs = weights @ self._qb
        xs = np.linalg.solve(a, rhs[..., None])[..., 0]
        return list(xs), self.objectives_many(xs)

    def gradient_solver(
        self, steps: int, lr: float | None = None, *, init: ArrayLike | None = None
    ) -> QuadraticGradientSolver:
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

    def __init__(
        self,
        problem: QuadraticM,
        steps: int,
        lr: float | None = None,
        *,
        init: ArrayLike | None = None,
    ) -> None:
        if not isinstance(problem, QuadraticM):
            raise TypeError(f"problem must be a QuadraticM, got {type(problem).__name__}")
        self.problem = problem
        self.steps = check_positive_int(steps, name="steps")
        self.lr = None if lr is None else check_positive(lr, name="lr")
        start = problem.bs.mean(axis=0) if init is None else np.array(init, dtype=np.float64)
        self.init = problem._check_x(start)

    @property
    def n_objectives(self) -> int:
        """The problem's number of objectives."""
        return self.problem.n_objectives

    def solve(self, weight: ArrayLike, state: Any = None) -> Solution:
        """``steps`` steps at one weight vector from ``state`` (a point, or None)."""
        rows, single = weight_rows(weight, self.problem.n_objectives, name="weight")
        if not single:
            raise ValueError(
                f"weight must be one weight vector of shape "
                f"({self.problem.n_objectives},), got shape {np.shape(weight)}"
            )
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
        return [
            Solution(objs[i], state=x[i].copy(), info={"steps": self.steps})
            for i in range(x.shape[0])
        ]

    def __repr__(self) -> str:
        return f"QuadraticGradientSolver(steps={self.steps}, lr={self.lr})"
