"""UMOD: preferences moved by a surrogate of the front to maximize the closest pair's distance.

UMOD (Zhang et al., NeurIPS 2024, "Gliding over the Pareto front with uniform designs") looks
for N + 1 preferences whose Pareto points form a *max-min* design: the smallest distance between
any two of them is as large as possible. For two objectives a preference is an angle
``theta in [0, pi/2]``. Each outer iteration

1. solves every slot once at its current preference (warm-started, the same budget as one SURF
   iteration);
2. fits a surrogate model ``theta -> objectives`` on *all* ``(theta, objectives)`` pairs seen so
   far (UMOD's Pareto-front model);
3. moves the interior angles by projected gradient ascent on a soft minimum of the surrogate's
   pairwise distances (the max-min objective), keeping ``theta_0`` and ``theta_N`` fixed, the
   angles sorted, and consecutive angles at least ``min_gap`` apart.

**Scalarization.** UMOD solves the *modified Tchebycheff* problem
``min_u max_i (h_i(u) - z_i) / lambda_i``, whose solution lies on the ray from the ideal point
``z`` along ``lambda``. paretosurf's inner solvers solve linear scalarizations (LS), so by default
this implementation steers the *same LS solver* as SURF: angle ``theta`` is turned into the LS
weight ``w(theta) = sin(theta) / (sin(theta) + cos(theta))`` (the weight vector ``(w, 1 - w)`` is
the L1-normalised ``(sin, cos)``), a monotone bijection from ``[0, pi/2]`` onto ``[0, 1]`` with
``w(0) = 0`` (slot 0: objective 2 only), ``w(pi/4) = 1/2`` and ``w(pi/2) = 1`` (slot N: objective
1 only). On a convex front every Pareto point is reached by some LS weight, so steering the LS
weight through the angle loses nothing: only the surrogate and the max-min update (UMOD's
contribution) decide where the points land. A problem that can solve the modified Tchebycheff
problem itself may pass ``tchebycheff_solver(pref, state)``; it receives the preference
``pref = (1 - w, w) = (cos, sin) / (cos + sin)`` (on the simplex; slot 0 is ``pref = (1, 0)``,
i.e. ``h2`` at its ideal value), and owns its ideal point.

**Surrogates.** ``surrogate="spline"`` (default, numpy/scipy only) fits, per objective, a
penalized cubic regression spline (P-spline: B-splines on even knots with a second-difference
penalty whose weight is chosen by generalized cross-validation), so exact data are followed
closely and noisy data are smoothed. ``surrogate="mlp"`` fits a small tanh MLP
``1 -> 32 -> 32 -> M`` with Adam, the kind of model UMOD uses; it needs torch (the ``rl``
extra), imported only then, and is warm-started across iterations. Objectives are shifted and
divided by one common factor before fitting, so distances keep their geometry: the points end
evenly spaced in the original objective space, which SURF's metrics measure.

**Limits.** With the LS map, UMOD reaches only LS-supported points (like SURF). All pairs seen so
far are kept, as in UMOD, so with an inexact (K-step) inner solver the early, unconverged
iterates bias the surrogate until enough newer data outweigh them.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.validation import (
    check_non_negative_int,
    check_positive,
)
from paretosurf.loop import RunOptions, check_options, document_loop_options, run
from paretosurf.methods._size import segments_from, size_keyword
from paretosurf.methods._slots import SlotMethod
from paretosurf.result import IterationRecord, Result
from paretosurf.solvers import Solution, SolverLike, as_solver

if TYPE_CHECKING:  # pragma: no cover - typing only
    from typing import Unpack

__all__ = [
    "UMODMethod",
    "angles_to_weights",
    "max_min_ascent",
    "project_angles",
    "umod",
    "weights_to_angles",
]

FloatArray = NDArray[np.float64]

HALF_PI = 0.5 * math.pi
#: Bounds on the number of knot intervals of the spline surrogate.
_MIN_SEGMENTS, _MAX_SEGMENTS = 4, 100
#: Penalties tried by the spline surrogate's GCV, relative to trace(B'B) / trace(D'D).
_PENALTY_GRID = np.logspace(-8.0, 3.0, 23)


# ---------------------------------------------------------------------------------------------
# Angle <-> weight map
# ---------------------------------------------------------------------------------------------
def angles_to_weights(theta: ArrayLike) -> FloatArray:
    """LS weights of preference angles: ``w = sin(theta) / (sin(theta) + cos(theta))``.

    Monotone from ``w(0) = 0`` to ``w(pi/2) = 1`` (both endpoints exact).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.methods._umod import angles_to_weights
    >>> angles_to_weights([0.0, np.pi / 4, np.pi / 2]).round(12).tolist()
    [0.0, 0.5, 1.0]
    """
    t = np.asarray(theta, dtype=np.float64)
    if np.any(~np.isfinite(t)) or np.any((t < 0) | (t > HALF_PI)):
        raise ValueError(f"theta must lie in [0, pi/2], got {np.atleast_1d(t).tolist()}")
    s, c = np.sin(t), np.cos(t)
    w = s / (s + c)
    w = np.where(t == 0.0, 0.0, np.where(t == HALF_PI, 1.0, w))
    return np.asarray(w, dtype=np.float64)


def weights_to_angles(weights: ArrayLike) -> FloatArray:
    """Inverse of :func:`angles_to_weights`: ``theta = atan2(w, 1 - w)``.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.methods._umod import angles_to_weights, weights_to_angles
    >>> t = np.array([0.0, 0.3, 1.2, np.pi / 2])
    >>> bool(np.allclose(weights_to_angles(angles_to_weights(t)), t))
    True
    """
    w = np.asarray(weights, dtype=np.float64)
    if np.any(~np.isfinite(w)) or np.any((w < 0) | (w > 1)):
        raise ValueError(f"weights must lie in [0, 1], got {np.atleast_1d(w).tolist()}")
    t = np.arctan2(w, 1.0 - w)
    return np.asarray(np.where(w == 1.0, HALF_PI, t), dtype=np.float64)


# ---------------------------------------------------------------------------------------------
# Projection onto {theta_0 = 0, theta_N = pi/2, theta_{n+1} - theta_n >= min_gap}
# ---------------------------------------------------------------------------------------------
def _isotonic(y: FloatArray) -> FloatArray:
    """Least-squares non-decreasing fit of ``y`` (pool adjacent violators, equal weights)."""
    means: list[float] = []
    counts: list[int] = []
    for value in y.tolist():
        means.append(value)
        counts.append(1)
        while len(means) > 1 and means[-2] > means[-1]:
            c = counts[-2] + counts[-1]
            m = (means[-2] * counts[-2] + means[-1] * counts[-1]) / c
            means[-2:] = [m]
            counts[-2:] = [c]
    return np.repeat(np.asarray(means, dtype=np.float64), counts)


def project_angles(theta: ArrayLike, min_gap: float) -> FloatArray:
    """Euclidean projection of the angles onto the feasible set of UMOD's update.

    The feasible set is ``theta_0 = 0``, ``theta_N = pi/2`` and
    ``theta_{n+1} - theta_n >= min_gap``. With ``phi_n = theta_n - n * min_gap`` it is the set
    of non-decreasing ``phi`` between ``0`` and ``pi/2 - N * min_gap``, onto which the
    projection is the isotonic regression of the interior values clipped to those bounds.

    Parameters
    ----------
    theta : array_like, shape (N+1,)
        Angles; ``theta[0]`` and ``theta[-1]`` are replaced by 0 and pi/2.
    min_gap : float
        Minimum separation, ``0 <= min_gap < pi / (2 N)``.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.methods._umod import project_angles
    >>> t = project_angles([0.0, 0.9, 0.5, np.pi / 2], min_gap=0.1)
    >>> t.round(6).tolist()                     # 0.9 and 0.5 pooled, then spread by the gap
    [0.0, 0.65, 0.75, 1.570796]
    """
    t = np.array(theta, dtype=np.float64)
    if t.ndim != 1 or t.size < 2:
        raise ValueError(f"theta must be a 1-D array of at least 2 angles, got shape {t.shape}")
    if not np.all(np.isfinite(t)):
        raise ValueError("theta must be finite")
    n = t.size - 1
    gap = float(min_gap)
    if not (math.isfinite(gap) and 0.0 <= gap < HALF_PI / n):
        raise ValueError(
            f"min_gap must lie in [0, pi / (2 N)) = [0, {HALF_PI / n:.6g}), got {min_gap}"
        )
    out = np.empty_like(t)
    out[0], out[-1] = 0.0, HALF_PI
    if n >= 2:
        idx = np.arange(1, n, dtype=np.float64)
        phi = _isotonic(t[1:-1] - idx * gap)
        out[1:-1] = np.clip(phi, 0.0, HALF_PI - n * gap) + idx * gap
    return out


# ---------------------------------------------------------------------------------------------
# Surrogates theta -> objectives
# ---------------------------------------------------------------------------------------------
class _SplineSurrogate:
    """Penalized cubic regression spline per objective (a P-spline), penalty chosen by GCV.

    Cubic B-splines on evenly spaced knots over ``[0, pi/2]`` (about one segment per two distinct
    angles seen, between 4 and 100), fitted by least squares with a second-difference penalty
    ``lam * ||D2 c||^2`` on the coefficients (Eilers and Marx, 1996); ``lam`` is picked per
    objective from a log grid by generalized cross-validation, so exact data are interpolated
    closely and noisy data (inexact inner solvers, stale early iterates) are smoothed.
    """

    def __init__(self) -> None:
        self._fits: list[Any] = []
        self._derivs: list[Any] = []
        self.penalties: list[float] = []

    def fit(self, theta: FloatArray, y: FloatArray) -> None:
        from scipy.interpolate import BSpline
        from scipy.linalg import LinAlgError, cho_factor, cho_solve

        n_distinct = int(np.unique(np.round(theta, 12)).size)
        n_seg = min(_MAX_SEGMENTS, max(_MIN_SEGMENTS, n_distinct // 2))
        knots = np.concatenate([[0.0] * 3, np.linspace(0.0, HALF_PI, n_seg + 1), [HALF_PI] * 3])
        basis = BSpline.design_matrix(np.clip(theta, 0.0, HALF_PI), knots, 3).toarray()
        n_basis = basis.shape[1]
        diff2 = np.diff(np.eye(n_basis), 2, axis=0)
        penalty = diff2.T @ diff2
        gram = basis.T @ basis
        rhs = basis.T @ y
        base = float(np.trace(gram) / np.trace(penalty))
        n = theta.size
        best_score = np.full(y.shape[1], np.inf)
        best_coef = np.zeros((n_basis, y.shape[1]))
        best_lam = np.full(y.shape[1], np.nan)
        for lam in _PENALTY_GRID:
            try:
                factor = cho_factor(gram + lam * base * penalty)
            except LinAlgError:
                continue
            coef = cho_solve(factor, rhs)
            dof = float(np.trace(cho_solve(factor, gram)))
            rss = np.sum((y - basis @ coef) ** 2, axis=0)
            score = n * rss / max(n - dof, 1e-12) ** 2
            better = score < best_score
            best_score[better] = score[better]
            best_coef[:, better] = coef[:, better]
            best_lam[better] = lam
        if not np.all(np.isfinite(best_score)):  # pragma: no cover - penalty keeps it definite
            raise np.linalg.LinAlgError("spline surrogate: no penalty gave a definite system")
        self.penalties = best_lam.tolist()
        self._fits = [BSpline(knots, best_coef[:, k], 3) for k in range(y.shape[1])]
        self._derivs = [f.derivative() for f in self._fits]

    def predict(self, theta: FloatArray) -> FloatArray:
        return np.stack([np.asarray(f(theta), dtype=np.float64) for f in self._fits], axis=1)

    def jacobian(self, theta: FloatArray) -> FloatArray:
        return np.stack([np.asarray(d(theta), dtype=np.float64) for d in self._derivs], axis=1)


class _MLPSurrogate:
    """Small tanh MLP ``theta -> objectives`` (torch, float64), warm-started across fits."""

    def __init__(
        self,
        n_outputs: int,
        rng: np.random.Generator,
        *,
        hidden: int = 32,
        epochs: int = 500,
        lr: float = 1e-2,
    ) -> None:
        try:
            import torch
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "surrogate='mlp' needs torch (pip install 'paretosurf[rl]'); "
                "use surrogate='spline' otherwise"
            ) from exc
        self._torch = torch
        sizes = [1, hidden, hidden, n_outputs]
        layers: list[Any] = []
        for i, (fan_in, fan_out) in enumerate(itertools.pairwise(sizes)):
            lin = torch.nn.Linear(fan_in, fan_out, dtype=torch.float64)
            bound = 1.0 / math.sqrt(fan_in)  # torch's default range, drawn from `rng`
            with torch.no_grad():
                lin.weight.copy_(torch.from_numpy(rng.uniform(-bound, bound, (fan_out, fan_in))))
                lin.bias.copy_(torch.from_numpy(rng.uniform(-bound, bound, fan_out)))
            layers.append(lin)
            if i < len(sizes) - 2:
                layers.append(torch.nn.Tanh())
        self._net = torch.nn.Sequential(*layers)
        self._opt = torch.optim.Adam(self._net.parameters(), lr=lr)
        self._epochs = epochs

    def _inputs(self, theta: FloatArray) -> Any:
        # Angles rescaled to [-1, 1]; d(input)/d(theta) = 1 / (pi/4).
        return self._torch.from_numpy(
            np.asarray(theta, dtype=np.float64) / (0.5 * HALF_PI) - 1.0
        ).reshape(-1, 1)

    def fit(self, theta: FloatArray, y: FloatArray) -> None:
        torch = self._torch
        x = self._inputs(theta)
        target = torch.from_numpy(np.ascontiguousarray(y, dtype=np.float64))
        self._net.train()
        for _ in range(self._epochs):
            self._opt.zero_grad()
            loss = torch.mean((self._net(x) - target) ** 2)
            loss.backward()
            self._opt.step()

    def state_arrays(self) -> dict[str, FloatArray]:
        """The network's parameters and Adam's moments and step counts, as arrays."""
        out = {f"param{i}": p.detach().numpy().copy() for i, p in enumerate(self._net.parameters())}
        for i, st in self._opt.state_dict()["state"].items():
            for key, value in st.items():
                out[f"adam{i}_{key}"] = value.detach().numpy().copy()
        return out

    def load_arrays(self, arrays: Mapping[str, NDArray[Any]]) -> None:
        """Inverse of :meth:`state_arrays` (on a network of the same shape)."""
        torch = self._torch
        with torch.no_grad():
            for i, p in enumerate(self._net.parameters()):
                p.copy_(torch.from_numpy(np.asarray(arrays[f"param{i}"])))
        state = self._opt.state_dict()
        moments: dict[int, dict[str, Any]] = {}
        for key, value in arrays.items():
            if key.startswith("adam"):
                index, name = key[4:].split("_", 1)
                moments.setdefault(int(index), {})[name] = torch.from_numpy(np.array(value))
        state["state"] = moments
        self._opt.load_state_dict(state)

    def predict(self, theta: FloatArray) -> FloatArray:
        with self._torch.no_grad():
            return np.asarray(self._net(self._inputs(theta)).numpy(), dtype=np.float64)

    def jacobian(self, theta: FloatArray) -> FloatArray:
        torch = self._torch
        x = self._inputs(theta).requires_grad_(True)
        out = self._net(x)
        cols = []
        for k in range(out.shape[1]):
            (g,) = torch.autograd.grad(out[:, k].sum(), x, retain_graph=True)
            cols.append(g.detach().numpy().reshape(-1) / (0.5 * HALF_PI))
        return np.stack(cols, axis=1)


# ---------------------------------------------------------------------------------------------
# Max-min update
# ---------------------------------------------------------------------------------------------
def _softmin_and_gradient(
    points: FloatArray, jac: FloatArray, tau: float
) -> tuple[float, FloatArray]:
    """Soft minimum ``-tau log sum_{i<j} exp(-d_ij / tau)`` of the pairwise distances and its
    gradient with respect to the angles (``jac[i] = d points[i] / d theta_i``)."""
    diff = points[:, None, :] - points[None, :, :]
    dist = np.sqrt(np.sum(diff * diff, axis=2))
    iu = np.triu_indices(points.shape[0], k=1)
    d = dist[iu]
    z = -(d - d.min()) / tau
    e = np.exp(z)
    value = float(d.min() - tau * math.log(float(e.sum())))
    p = np.zeros_like(dist)
    p[iu] = e / e.sum()
    p = p + p.T
    with np.errstate(invalid="ignore", divide="ignore"):
        unit = np.where(dist[..., None] > 0, diff / dist[..., None], 0.0)
    # d value / d points_i = sum_j p_ij * (points_i - points_j) / d_ij
    dpoints = np.einsum("ij,ijk->ik", p, unit)
    return value, np.sum(dpoints * jac, axis=1)


def max_min_ascent(
    theta: ArrayLike,
    predict: Callable[[FloatArray], FloatArray],
    jacobian: Callable[[FloatArray], FloatArray],
    *,
    lr: float,
    steps: int,
    min_gap: float,
    temperature: float = 0.2,
) -> FloatArray:
    """Projected gradient ascent of the soft-min pairwise distance of predicted points.

    Parameters
    ----------
    theta : array_like, shape (N+1,)
        Starting angles (feasible or not; they are projected first).
    predict, jacobian : callable
        ``predict(theta) -> (N+1, M)`` predicted objectives and ``jacobian(theta) -> (N+1, M)``
        their derivatives with respect to each point's own angle.
    lr : float
        Step size: each step moves the angle with the largest gradient component by
        ``lr * (1 - k / steps)`` times the initial spacing ``pi / (2 N)`` (normalized ascent
        with a linearly decaying step), the others in proportion.
    steps : int
        Number of ascent steps (``0`` only projects).
    min_gap : float
        Minimum separation of consecutive angles (see :func:`project_angles`).
    temperature : float
        Soft-min temperature as a fraction of the mean consecutive predicted distance at the
        start: small values follow the closest pair only (the max-min subgradient).

    Returns
    -------
    ndarray, shape (N+1,)
        The angles with the largest soft-min distance met along the ascent (ties: the latest).

    Examples
    --------
    Points on a straight line traversed at speed ``3 theta^2`` spread out evenly in ``theta^3``:

    >>> import numpy as np
    >>> from paretosurf.methods._umod import max_min_ascent
    >>> pred = lambda t: np.c_[t ** 3, -t ** 3]
    >>> jac = lambda t: np.c_[3 * t ** 2, -3 * t ** 2]
    >>> t = max_min_ascent(np.linspace(0, np.pi / 2, 5), pred, jac, lr=0.05, steps=500,
    ...                    min_gap=1e-3, temperature=0.01)
    >>> gaps = np.diff(t ** 3)
    >>> bool(gaps.max() / gaps.min() < 1.05)
    True
    """
    step_size = check_positive(lr, name="lr")
    n_steps = check_non_negative_int(steps, name="steps")
    tau_rel = check_positive(temperature, name="temperature")
    t = project_angles(theta, min_gap)
    n = t.size - 1
    if n < 2:
        return t
    start = predict(t)
    scale = float(np.mean(np.linalg.norm(np.diff(start, axis=0), axis=1)))
    if not math.isfinite(scale) or scale <= 0.0:
        return t
    tau = tau_rel * scale
    spacing = HALF_PI / n
    best_t, best_val = t, -math.inf
    for k in range(n_steps + 1):
        value, grad = _softmin_and_gradient(predict(t), jacobian(t), tau)
        if value >= best_val:
            best_t, best_val = t, value
        grad[0] = grad[-1] = 0.0
        size = float(np.max(np.abs(grad)))
        if k == n_steps or not math.isfinite(size) or size == 0.0:
            break
        # Normalized ascent with a linearly decaying step: the angle that moves most moves by
        # lr * (1 - k / steps) initial spacings.
        t = project_angles(t + step_size * spacing * (1.0 - k / n_steps) * grad / size, min_gap)
    return best_t


# ---------------------------------------------------------------------------------------------
# The UMOD loop
# ---------------------------------------------------------------------------------------------
class _TchebycheffAdapter:
    """Gives a ``(pref, state)`` modified-Tchebycheff solver the ``solve(weight, state)`` form:
    weight ``w`` means preference ``(1 - w, w)``."""

    def __init__(self, solver: Any) -> None:
        if hasattr(solver, "solve") and callable(solver.solve):
            self._fn = solver.solve
        elif callable(solver):
            self._fn = solver
        else:
            raise TypeError(
                "tchebycheff_solver must have a solve(pref, state) method or be a "
                f"callable (pref, state) -> Solution; got {type(solver).__name__}"
            )

    def solve(self, weight: float, state: Any) -> Solution:
        return self._fn(np.array([1.0 - weight, weight], dtype=np.float64), state)


def _check_min_gap(min_gap: object, n: int) -> float:
    upper = HALF_PI / n
    if min_gap is None:
        return 0.01 * upper
    if isinstance(min_gap, bool) or not isinstance(min_gap, numbers.Real):
        raise TypeError(
            f"min_gap must be a real number in (0, pi / (2 N)) = (0, {upper:.6g}) "
            f"or None, got {min_gap!r}"
        )
    gap = float(min_gap)
    if not (math.isfinite(gap) and 0.0 < gap < upper):
        raise ValueError(
            f"min_gap must lie in (0, pi / (2 N)) = (0, {upper:.6g}) for n_segments={n}, got {gap}"
        )
    return gap


def _seed_setting(seed: object) -> Any:
    """The JSON form of a seed recorded in the settings: the int, ``None``, or the type name of
    a generator (whose state is saved with the method instead)."""
    if seed is None or isinstance(seed, numbers.Integral):
        return None if seed is None else int(seed)
    return type(seed).__name__


class UMODMethod(SlotMethod):
    """UMOD as a method of the driver: N + 1 slots at the LS weights of preference angles that
    the max-min ascent on the surrogate moves after every round (see the module docstring).

    The surrogate's data set is every round's ``(angles, points)`` (points in the run's
    ``normalize`` coordinates), saved with the method. Parameters are those of :func:`umod`.
    """

    name = "umod"
    label = "UMOD"

    def __init__(
        self,
        n_segments: int,
        *,
        lr: float = 0.05,
        surrogate: str = "spline",
        min_gap: float | None = None,
        surrogate_steps: int = 500,
        temperature: float = 0.2,
        seed: int | np.random.Generator | None = None,
        warm_start: str = "slot",
        scalarization: str = "linear",
    ) -> None:
        super().__init__(n_segments, warm_start=warm_start)
        self.lr = check_positive(lr, name="lr")
        self.surrogate_steps = check_non_negative_int(surrogate_steps, name="surrogate_steps")
        self.temperature = check_positive(temperature, name="temperature")
        self.min_gap = _check_min_gap(min_gap, self.n_segments)
        if surrogate not in ("spline", "mlp"):
            raise ValueError(f"surrogate must be 'spline' or 'mlp', got {surrogate!r}")
        self.surrogate = surrogate
        self.scalarization = scalarization
        self.seed = _seed_setting(seed)
        self.rng = np.random.default_rng(seed)
        self.theta = np.linspace(0.0, HALF_PI, self.n_segments + 1)
        self.data_theta: list[FloatArray] = []
        self.data_points: list[FloatArray] = []
        self.model: Any = None

    def settings(self) -> dict[str, Any]:
        return {
            "n_segments": self.n_segments,
            "lr": self.lr,
            "surrogate": self.surrogate,
            "min_gap": self.min_gap,
            "surrogate_steps": self.surrogate_steps,
            "temperature": self.temperature,
            "seed": self.seed,
            "warm_start": self.warm_start,
            "scalarization": self.scalarization,
        }

    def next_weights(self) -> FloatArray:
        return angles_to_weights(self.theta)

    def update(self, weights: FloatArray, coordinates: FloatArray) -> None:
        """Fit the surrogate on all points so far and push the predicted points apart."""
        points = coordinates
        theta = weights_to_angles(weights)
        self.data_theta.append(theta)
        self.data_points.append(points)
        if self.n_segments < 2:
            return
        all_t = np.concatenate(self.data_theta)
        all_y = np.concatenate(self.data_points)
        lo = all_y.min(axis=0)
        scale = float(np.max(all_y.max(axis=0) - lo))
        if scale <= 0.0:
            return
        if self.model is None:
            self.model = (
                _SplineSurrogate()
                if self.surrogate == "spline"
                else _MLPSurrogate(points.shape[1], self.rng)
            )
        self.model.fit(all_t, (all_y - lo) / scale)
        self.theta = max_min_ascent(
            theta,
            self.model.predict,
            self.model.jacobian,
            lr=self.lr,
            steps=self.surrogate_steps,
            min_gap=self.min_gap,
            temperature=self.temperature,
        )

    def state_dict(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        meta, arrays = self.slot_state()
        meta["rng"] = self.rng.bit_generator.state
        meta["n_outputs"] = None
        arrays["theta"] = self.theta
        if self.data_points:  # every round's points: the data set grows by design
            arrays["data_theta"] = np.stack(self.data_theta)
            arrays["data_points"] = np.stack(self.data_points)
        if isinstance(self.model, _MLPSurrogate):
            meta["n_outputs"] = int(self.data_points[-1].shape[1])
            arrays.update({f"mlp_{k}": v for k, v in self.model.state_arrays().items()})
        return meta, arrays

    def load_state_dict(
        self,
        meta: Mapping[str, Any],
        arrays: Mapping[str, NDArray[Any]],
        history: Sequence[IterationRecord],
    ) -> None:
        self.load_slot_state(meta, arrays)
        self.theta = np.asarray(arrays["theta"], dtype=np.float64)
        self.data_theta = list(arrays.get("data_theta", []))
        self.data_points = list(arrays.get("data_points", []))
        state = dict(meta["rng"])
        self.rng = np.random.Generator(getattr(np.random, state["bit_generator"])())
        self.rng.bit_generator.state = state
        self.model = None
        if meta.get("n_outputs") is not None:
            self.model = _MLPSurrogate(int(meta["n_outputs"]), np.random.default_rng(0))
            self.model.load_arrays({k[4:]: v for k, v in arrays.items() if k.startswith("mlp_")})
        elif self.surrogate == "spline" and history and self.n_segments >= 2:
            self.model = _SplineSurrogate()  # refitted from the data every round


@size_keyword
@document_loop_options
def umod(
    solver: SolverLike | None,
    n_segments: int | None = None,
    *,
    n_points: int | None = None,
    iterations: int = 30,
    lr: float = 0.05,
    surrogate: str = "spline",
    min_gap: float | None = None,
    surrogate_steps: int = 500,
    temperature: float = 0.2,
    tchebycheff_solver: Any = None,
    init_states: Sequence[Any] | None = None,
    seed: int | np.random.Generator | None = None,
    tol: float | None = None,
    warm_start: str = "slot",
    **options: Unpack[RunOptions],
) -> Result:
    """UMOD baseline: max-min preference design through a surrogate of the front.

    Parameters
    ----------
    solver : object or callable
        LS inner solver, as for :func:`paretosurf.surf` (``solve(weight, state)`` or a callable
        ``(weight, state) -> Solution``). Must be ``None`` when ``tchebycheff_solver`` is given.
    n_segments : int
        N >= 1: N + 1 preferences, slot 0 at ``theta = 0`` (``w = 0``), slot N at
        ``theta = pi/2`` (``w = 1``). Initial angles are evenly spaced.
    n_points : int, optional
        N + 1, instead of the positional N (as for :func:`~paretosurf.surf`; ``n_segments=``
        by name warns).
    iterations : int
        Rounds; each solves every slot once (``iterations * (N + 1)`` solves, the budget of
        SURF with the same ``iterations``).
    lr : float
        Step size of the ascent on the angles, as a fraction of the initial angle spacing
        ``pi / (2 N)``: the first of the ``surrogate_steps`` normalized steps moves the angle with
        the steepest gradient by ``lr`` spacings, later ones by linearly less (see
        :func:`max_min_ascent`); independent of the objectives' units.
    surrogate : {"spline", "mlp"}
        Front model ``theta -> objectives``: penalized splines (scipy, default) or UMOD-style
        small MLP (needs torch).
    min_gap : float, optional
        Minimum separation of consecutive angles, in ``(0, pi / (2 N))``; default
        ``0.01 * pi / (2 N)`` (1 % of the initial spacing).
    surrogate_steps : int
        Gradient steps on the angles per round (the surrogate is cheap to query).
    temperature : float
        Soft-min temperature relative to the mean predicted gap (see :func:`max_min_ascent`).
    tchebycheff_solver : object or callable, optional
        Modified-Tchebycheff solver ``(pref, state) -> Solution`` (or with a
        ``solve(pref, state)`` method), ``pref = (1 - w, w)`` on the simplex; used instead of
        the LS map. The result's ``weights`` are then the equivalent ``w(theta)``.
    init_states : sequence, optional
        N + 1 warm starts for the first round.
    seed : int or numpy.random.Generator, optional
        Seeds the MLP's initialization (the spline surrogate is deterministic).
    tol : float, optional
        Stop once the weights move by less than ``tol`` between rounds.
    warm_start : {"slot", "nearest", "rescue"}
        Which previous solution warm-starts each slot, as in :func:`paretosurf.surf`.
    **options
        The loop options below, shared by every method's entry function. The surrogate
        models the points in the ``normalize`` coordinates, so that UMOD spreads them evenly
        there.
    <loop options>

    Returns
    -------
    Result
        ``weights`` are the LS weights solved at in the last round (increasing from 0 to 1);
        ``history[t].weights`` the weights of round ``t``; ``cdf`` is ``None``.

    Raises
    ------
    ValueError, TypeError
        On invalid arguments, naming the argument and the allowed values.
    paretosurf.solvers.InnerSolverError
        If the solver raises or returns non-finite objectives.

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.methods._umod import umod
    >>> def solver(w, state):                       # exact LS minimizer of a lopsided problem
    ...     x = 3 * w / (1 + 2 * w)
    ...     return ps.Solution([(1 - x) ** 2, x ** 2], state=x)
    >>> res = umod(solver, 8, iterations=10)
    >>> float(res.weights[0]), float(res.weights[-1]), res.n_solves
    (0.0, 1.0, 90)
    >>> bool(res.cv < 0.05 < res.history[0].cv)
    True
    """
    n_segments = segments_from(n_segments, n_points, where="umod")
    check_options(umod, options)
    total = check_non_negative_int(iterations, name="iterations")
    if tchebycheff_solver is not None:
        if solver is not None:
            raise ValueError(
                "pass either solver (LS) or tchebycheff_solver, not both; "
                "use solver=None with tchebycheff_solver"
            )
        inner: Any = _TchebycheffAdapter(tchebycheff_solver)
    else:
        inner = as_solver(solver)
    method = UMODMethod(
        n_segments,
        lr=lr,
        surrogate=surrogate,
        min_gap=min_gap,
        surrogate_steps=surrogate_steps,
        temperature=temperature,
        seed=seed,
        warm_start=warm_start,
        scalarization="linear" if tchebycheff_solver is None else "tchebycheff",
    )
    return run(method, inner, iterations=total, init_states=init_states, tol=tol, **options)
