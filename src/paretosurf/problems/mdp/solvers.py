"""The inner solvers of a two-objective regularized MDP: exact (soft policy iteration) and
K warm-started first-order steps on tabular softmax logits, both batched over slots."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.validation import check_positive_int, check_torch_device
from paretosurf.problems.base import InitParams, as_initial_params, as_weight_array
from paretosurf.problems.mdp.model import MDPModel, exact_log_softmax
from paretosurf.problems.mdp.policy_iteration import fused_exact_solve, solve_with_iters
from paretosurf.solvers import (
    GradientState,
    Solution,
    StartUp,
    StepRule,
    check_interior_start,
    gradient_starts,
)

__all__ = ["MDPExactSolver", "MDPGradientSolver"]

FloatArray = NDArray[np.float64]


class MDPExactSolver:
    """Exact inner solver of a :class:`RegularizedMDP`; the state is the optimal policy.

    Warm starts (the slot's previous policy) cut soft policy iteration to a few iterations;
    ``solve_many`` solves all slots in one batch. ``info`` holds ``steps = 1`` (one exact solve)
    and ``policy_iterations``.

    Parameters
    ----------
    problem : MDPModel
        The MDP.
    kernel : {"auto", "numba", "numpy"}
        What runs soft policy iteration and the objectives of its policies. ``"numba"``: one
        compiled call for the whole batch (the ``fast`` extra), the same arithmetic as the
        NumPy path (the same LAPACK routines), equal to it to rounding; on small MDPs, whose
        NumPy solve is all call overhead, several times faster
        (``benchmarks/bench_loop_cost.py``). ``"numpy"``: the reference. ``"auto"``
        (default): numba where it imports and the problem's solve steps are
        :class:`MDPModel`'s own, NumPy otherwise. Batches of many cold-started scalar
        weights are solved by continuation in NumPy whatever the kernel.

    Examples
    --------
    >>> import numpy as np
    >>> import paretosurf as ps
    >>> from paretosurf.problems.mdp import RegularizedMDP
    >>> rng = np.random.default_rng(0)
    >>> P = rng.dirichlet(np.ones(4), size=(4, 2))
    >>> mdp = RegularizedMDP(P, rng.normal(size=(2, 4, 2)), 0.9, np.ones(4) / 4, 0.3)
    >>> res = ps.surf(mdp.solver(), 10, iterations=30)
    >>> bool(res.cv < 0.02)
    True
    """

    def __init__(self, problem: MDPModel, *, kernel: str = "auto") -> None:
        self.problem = problem
        self.kernel = check_kernel(kernel)

    @property
    def kernel_in_use(self) -> str:
        """What runs the next solve: ``"numba"`` or ``"numpy"`` (``kernel="auto"`` resolved)."""
        return _resolved_kernel(getattr(self, "kernel", "numpy"), self.problem, EXACT_STEPS)

    def solve(self, weight: float, state: Any = None) -> Solution:
        return self.solve_many(np.array([weight], dtype=np.float64), [state])[0]

    def solve_many(self, weights: ArrayLike, states: Sequence[Any]) -> list[Solution]:
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim != 2:  # scalar weights (two objectives); weight vectors stay rows
            w = w.ravel()
        fused = fused_exact_solve(self.problem, w, list(states), self.kernel_in_use)
        if fused is not None:
            pis, iters, objs = fused
        else:
            pis, _, iters = solve_with_iters(self.problem, w, list(states))
            objs = self.problem._objectives_of(pis)
        return [
            Solution(objs[i], state=pis[i], info={"steps": 1, "policy_iterations": int(iters[i])})
            for i in range(len(w))
        ]

    def __repr__(self) -> str:
        return f"MDPExactSolver({self.problem!r})"


class MDPGradientSolver:
    """K warm-started first-order steps on tabular softmax logits (an inexact inner solver).

    The policy is ``pi = softmax(theta)`` with ``theta`` of shape (S, A); each step uses the
    analytic gradient of ``w h_1 + (1 - w) h_2`` (soft policy gradient theorem, in the problem's
    scale, see :meth:`RegularizedMDP.policy_gradient`). The state is a
    :class:`paretosurf.solvers.GradientState` (logits and Adam moments), so a slot continues
    where it stopped. ``solve_many`` advances all slots together (batched linear algebra).

    Parameters
    ----------
    problem : RegularizedMDP
        A two-objective MDP.
    steps : int
        K, steps per call (reported as ``info["steps"]``).
    lr : float, optional
        Step size; default ``problem.default_lr`` (0.02).
    optimizer : {"adam", "sgd"}, optional
        Default ``problem.default_optimizer`` (Adam).
    betas, eps : Adam constants.
    init : array_like or callable, optional
        A slot's starting logits, shape (S, A), or ``init(w)`` returning them; default
        ``log pi_ref`` (start at the reference policy).
    reset_optimizer : bool
        Start every call with fresh Adam moments, as the paper's code does (default: carry a
        slot's moments over from its previous call).
    warmup_steps : int, optional
        The run's start-up (:meth:`initial_states`): the end slots are first solved with this
        many steps each (0: no warm-up). Default: the problem's ``warmup_steps`` (the paper's
        protocol for it: 500 on Deep Sea Treasure, 0 elsewhere).
    interior_start : {"default", "endpoint1"}, optional
        The start-up of the interior slots: the default initial state, or the warmed-up
        ``w = 1`` end's logits (fresh moments). Default: the problem's ``interior_start``
        (``"endpoint1"`` on Deep Sea Treasure, ``"default"`` elsewhere).
    device : str, optional
        Run the steps in torch (the ``rl`` extra) on this device, ``"cpu"`` or ``"cuda"``
        (``"cuda:N"``: the N-th GPU): the same step in float64 (batched LU factorization),
        equal to the numpy one to rounding. Default: numpy (or the fused kernel, see
        ``kernel``), which on a CPU is the faster one: its step solves every slot's system in
        one banded LU where the transitions are sparse, and ``device="cpu"`` took 3.0x
        numpy's time on Deep Sea Treasure and 1.7x on Fishwood (16 slots x 100 steps, 1
        thread; ``benchmarks/bench_mdp_step.py``); use torch for a GPU. Checked at
        construction: a CUDA device that torch does not see is refused then, not at the
        first solve.
    kernel : {"auto", "numba", "numpy"}
        What runs the steps on the CPU (without ``device``). ``"numba"``: the ``steps`` steps
        of all slots in one compiled kernel (the ``fast`` extra, ``pip install
        "paretosurf[fast]"``): policy, linear solves (the same LAPACK routines), gradient and
        Adam update with no NumPy call in between, equal to the NumPy step to rounding (to
        the last bit where NumPy's ``exp``/``log`` are the C library's, as ``make test``
        pins them). Its step was 1.5x-1.8x faster than NumPy's on Deep Sea Treasure and
        10x-20x on Fishwood (16 slots, 1 thread; ``benchmarks/bench_mdp_step.py``). It
        compiles once per machine (cached on disk; 15 s to 30 s). ``"numpy"``: the NumPy
        step, the reference. ``"auto"`` (default): numba where it imports, NumPy otherwise,
        and NumPy as well where the problem's gradient step was replaced (a subclass or an
        instance that overrides ``_policy_gradients``), which the kernel would not follow.
        Ignored with ``device`` (torch runs the steps). :attr:`kernel_in_use` says which
        runs.

    Raises
    ------
    ValueError, TypeError
        On a bad argument; for ``device``, on a string that names no CPU or CUDA device or a
        CUDA device that torch does not see (the message says what to use instead).
    ImportError
        If ``device`` is given and torch (the ``rl`` extra) is not installed, or
        ``kernel="numba"`` and numba (the ``fast`` extra) is not.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.mdp import RegularizedMDP
    >>> rng = np.random.default_rng(1)
    >>> P = rng.dirichlet(np.ones(3), size=(3, 2))
    >>> mdp = RegularizedMDP(P, rng.normal(size=(2, 3, 2)), 0.8, np.ones(3) / 3, 0.5)
    >>> solver = mdp.gradient_solver(steps=200, lr=0.05)
    >>> sol = solver.solve(0.3, None)
    >>> sol = solver.solve(0.3, sol.state)                 # warm start: 200 more steps
    >>> exact = mdp.objectives(mdp.argmin(0.3))
    >>> bool(np.max(np.abs(sol.objectives - exact)) < 1e-3), sol.info["steps"]
    (True, 200)

    The compiled kernel against the NumPy reference (``kernel="auto"``, the default, takes
    the kernel where numba is installed):

    >>> from paretosurf.problems.mdp import MDPGradientSolver
    >>> reference = MDPGradientSolver(mdp, steps=200, lr=0.05, kernel="numpy")
    >>> fast = MDPGradientSolver(mdp, steps=200, lr=0.05, kernel="auto")
    >>> fast.kernel_in_use in ("numba", "numpy")
    True
    >>> a, b = reference.solve(0.3, None), fast.solve(0.3, None)
    >>> bool(np.allclose(a.state.params, b.state.params, rtol=1e-12, atol=1e-12))
    True
    """

    def __init__(
        self,
        problem: MDPModel,
        *,
        steps: int,
        lr: float | None = None,
        optimizer: str | None = None,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        init: InitParams | None = None,
        reset_optimizer: bool = False,
        warmup_steps: int | None = None,
        interior_start: str | None = None,
        device: str | None = None,
        kernel: str = "auto",
    ) -> None:
        self.problem = problem
        self.kernel = check_kernel(kernel)
        self.device = None if device is None else check_torch_device(device)
        self._tensors: dict[str, Any] | None = None
        self.steps = check_positive_int(steps, name="steps")
        lr_value, optimizer_name = problem._step_options(lr, optimizer)
        self.rule = StepRule(lr_value, optimizer_name, betas, eps, reset=reset_optimizer)
        self._shape = (problem.n_states, problem.n_actions)
        self._init: FloatArray | Callable[[float], FloatArray] = as_initial_params(
            init, problem._log_ref.copy()
        )
        warmup = getattr(problem, "warmup_steps", 0) if warmup_steps is None else warmup_steps
        self.warmup_steps = 0 if warmup == 0 else check_positive_int(warmup, name="warmup_steps")
        self.interior_start = check_interior_start(
            getattr(problem, "interior_start", "default")
            if interior_start is None
            else interior_start
        )

    def initial_state(self, weight: float) -> GradientState:
        """The state a slot starts from when it has no warm start."""
        start = self._init(weight) if callable(self._init) else self._init
        params = start.copy()
        return GradientState(params, np.zeros_like(params), np.zeros_like(params), 0)

    def initial_states(self, weights: Sequence[float]) -> StartUp | None:
        """A run's first warm starts, for slots at ``weights`` (increasing, from 0 to 1): the
        paper's start-up (:func:`~paretosurf.solvers.gradient_starts`), which a run given no
        ``init_states`` uses (:func:`paretosurf.surf`; its solves and steps count in the
        run's ``n_solves`` and ``n_steps``).

        The end slots are first solved with :attr:`warmup_steps` steps each (Adam or SGD as
        the solver's, fresh moments), and with :attr:`interior_start` ``"endpoint1"`` the
        interior slots start from the warmed-up ``w = 1`` end's logits. ``None`` where there
        is nothing to do (no warm-up, interior slots from the default start): every slot then
        starts cold.

        Examples
        --------
        >>> import paretosurf as ps
        >>> solver = ps.problems.deep_sea_treasure().gradient_solver(steps=100)
        >>> solver.warmup_steps, solver.interior_start
        (500, 'endpoint1')
        >>> start = solver.initial_states([0.0, 0.5, 1.0])
        >>> start.solves, start.steps
        (2, 1000)
        >>> bool((start.states[1].params == start.states[2].params).all())
        True
        """
        if self.warmup_steps == 0 and self.interior_start == "default":
            return None
        warm = None
        if self.warmup_steps > 0:
            warm = MDPGradientSolver(
                self.problem,
                steps=self.warmup_steps,
                lr=self.rule.lr,
                optimizer=self.rule.optimizer,
                betas=self.rule.betas,
                eps=self.rule.eps,
                warmup_steps=0,
                interior_start="default",
                device=self.device,
                kernel=self.kernel,
            )
        return gradient_starts(
            self.initial_state, weights, warm_up=warm, interior_start=self.interior_start
        )

    def _as_state(self, state: Any, weight: float, slot: int) -> GradientState:
        if state is None:
            return self.initial_state(weight)
        if not isinstance(state, GradientState):
            raise TypeError(
                f"state of slot {slot} must be None or a GradientState, got {type(state).__name__}"
            )
        if state.params.shape != self._shape:
            raise ValueError(
                f"state of slot {slot} has logits of shape {state.params.shape}, "
                f"expected {self._shape}"
            )
        return state

    def solve(self, weight: float, state: GradientState | None) -> Solution:
        """Run ``steps`` steps on ``w h_1 + (1 - w) h_2`` from ``state``."""
        return self.solve_many(np.array([weight], dtype=np.float64), [state])[0]

    def solve_many(
        self, weights: ArrayLike, states: Sequence[GradientState | None]
    ) -> list[Solution]:
        """Advance every slot by ``steps`` steps in one batch."""
        prob = self.problem
        w = np.atleast_1d(as_weight_array(weights, name="weights")).ravel()
        if len(states) != w.size:
            raise ValueError(f"states must hold one entry per weight ({w.size}), got {len(states)}")
        sts = [
            self._as_state(st, float(wi), i)
            for i, (wi, st) in enumerate(zip(w, states, strict=True))
        ]
        theta = np.stack([st.params for st in sts]).astype(np.float64)
        m = np.stack([st.m for st in sts]).astype(np.float64)
        v = np.stack([st.v for st in sts]).astype(np.float64)
        t = np.array([st.t for st in sts], dtype=np.float64)
        m, v, t = self.rule.begin(m, v, t)
        rewards = (w[:, None, None] * prob.R[0] + (1.0 - w[:, None, None]) * prob.R[1])[:, None]
        if self.device is None and self.kernel_in_use == "numba":
            from paretosurf.problems.mdp._fused import fused_steps

            theta, m, v, t = fused_steps(
                prob,
                theta,
                m,
                v,
                t,
                rewards[:, 0],
                steps=self.steps,
                adam=self.rule.optimizer == "adam",
                lr=self.rule.lr,
                betas=self.rule.betas,
                eps=self.rule.eps,
            )
        elif self.device is None:
            for _ in range(self.steps):
                g = prob._policy_gradients(theta, rewards)[:, 0]
                theta, m, v, t = self.rule.apply(theta, g, m, v, t)
        else:
            theta, m, v, t = self._torch_steps(theta, m, v, t, rewards[:, 0])
        pis = np.exp(exact_log_softmax(theta))
        objs = prob._objectives_of(pis)
        return [
            Solution(
                objs[i],
                state=GradientState(theta[i].copy(), m[i].copy(), v[i].copy(), int(t[i])),
                info={"steps": self.steps},
            )
            for i in range(w.size)
        ]

    @property
    def kernel_in_use(self) -> str:
        """What runs the next solve's steps: ``"numba"``, ``"numpy"`` or ``"torch"`` (with a
        ``device``); ``kernel="auto"`` resolved (see the class's ``kernel``)."""
        if self.device is not None:
            return "torch"
        return _resolved_kernel(getattr(self, "kernel", "numpy"), self.problem, GRADIENT_STEPS)

    def _torch_steps(
        self, theta: FloatArray, m: FloatArray, v: FloatArray, t: FloatArray, rewards: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """The ``steps`` steps in torch (float64) on ``device``; arrays in and out."""
        import torch

        from paretosurf.problems.mdp.model import torch_policy_gradients

        dev = torch.device(str(self.device))
        if self._tensors is None or self._tensors["P"].device != dev:
            prob = self.problem
            self._tensors = {
                name: torch.as_tensor(value, dtype=torch.float64, device=dev)
                for name, value in (("P", prob.P), ("rho", prob.rho), ("log_ref", prob._log_ref))
            }
        tensors: list[Any] = [
            torch.as_tensor(x, dtype=torch.float64, device=dev) for x in (theta, m, v, t, rewards)
        ]
        th, mm, vv, tt, rw = tensors
        for _ in range(self.steps):
            g = torch_policy_gradients(self.problem, self._tensors, th, rw)
            th, mm, vv, tt = self.rule.apply(th, g, mm, vv, tt)
        return th.cpu().numpy(), mm.cpu().numpy(), vv.cpu().numpy(), tt.cpu().numpy()

    def __repr__(self) -> str:
        return (
            f"MDPGradientSolver({self.problem!r}, steps={self.steps}, lr={self.rule.lr}, "
            f"optimizer={self.rule.optimizer!r})"
        )


#: The values of :class:`MDPGradientSolver`'s ``kernel``.
KERNELS = ("auto", "numba", "numpy")


def check_kernel(kernel: object) -> str:
    """``kernel`` checked: one of :data:`KERNELS`; ``"numba"`` only where numba imports (an
    ImportError naming the ``fast`` extra otherwise)."""
    if not isinstance(kernel, str):
        raise TypeError(f"kernel must be one of {KERNELS}, got {type(kernel).__name__}")
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    if kernel == "numba":
        from paretosurf.problems.mdp._fused import require_numba

        require_numba()
    return kernel


def _numba_importable() -> bool:
    """Whether numba imports (the ``fast`` extra); the answer is that of the first call."""
    from paretosurf.problems.mdp._fused import numba_available

    return numba_available()


def _resolved_kernel(kernel: str, problem: MDPModel, steps: Sequence[str]) -> str:
    """``kernel`` with ``"auto"`` resolved: ``"numba"`` where numba imports and the methods
    ``steps`` of ``problem`` are :class:`MDPModel`'s own (which the kernel reproduces; a
    subclass or an instance that replaces one keeps NumPy), ``"numpy"`` otherwise. (A
    solver pickled before the ``kernel`` option passes ``"numpy"``.)"""
    if kernel != "auto":
        return str(kernel)
    return "numba" if _numba_importable() and _standard(problem, steps) else "numpy"


#: The method of :class:`MDPModel` the K-step solver's step runs, which its kernel reproduces.
GRADIENT_STEPS = ("_policy_gradients",)
#: The methods of :class:`MDPModel` the exact solve runs, which its kernel reproduces.
EXACT_STEPS = (
    "_flow_matrices",
    "_soft_values_centered",
    "_centered_payoff",
    "_kl_terms",
    "_objectives_of",
    "_soft_values",
    "_safe_log",
)


def _standard(problem: MDPModel, names: Sequence[str]) -> bool:
    """Whether each of ``problem``'s methods ``names`` is :class:`MDPModel`'s own (not
    replaced on the instance, nor overridden by a subclass)."""
    return all(
        name not in vars(problem) and getattr(type(problem), name, None) is getattr(MDPModel, name)
        for name in names
    )
