"""Inner solvers for multi-task learning in PyTorch: K optimizer steps on the scalarized loss.

:func:`from_torch` turns a model (or a list of tensors) and a function returning its two
differentiable losses into a warm-started, budgeted inner solver (:class:`TorchSolver`). torch
is imported only when :func:`from_torch` is called (it comes with the ``rl`` extra).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.validation import check_positive, check_positive_int
from paretosurf.adapters.scalarization import (
    FollowsIdealPoint,
    IdealPoint,
    Scalarization,
    as_scalarization,
    check_weight,
)
from paretosurf.solvers import Solution

__all__ = ["TorchSolver", "from_torch"]

FloatArray = NDArray[np.float64]


def from_torch(
    model_or_params: Any,
    objectives_fn: Callable[[Any], Any],
    *,
    steps: int,
    optimizer: str | Callable[[list[Any]], Any] = "adam",
    lr: float = 1e-3,
    scalarization: str | Scalarization = "linear",
    ideal: ArrayLike | None = None,
    rho: float | None = None,
    evaluate_fn: Callable[[Any], Any] | None = None,
    device: Any = None,
    gtol: float | None = None,
) -> TorchSolver:
    """An inner solver running ``steps`` torch optimizer steps on the scalarized losses.

    Parameters
    ----------
    model_or_params : torch.nn.Module or iterable of torch.Tensor
        The model, or leaf tensors with ``requires_grad``. The solver uses it as scratch
        space: each call loads the slot's warm start into it (after a call it holds the last
        solved slot's parameters). A module's buffers (e.g. batch-norm statistics) are part of
        the state too.
    objectives_fn : callable
        ``objectives_fn(model_or_params) -> tensor of shape (2,)`` (or ``(M,)`` for weight
        vectors of M objectives, :func:`paretosurf.surf_simplex`): the differentiable
        losses (minimized). It may sample a mini-batch itself.
    steps : int
        Optimizer steps per call (the budget; ``info["steps"]``: those taken).
    optimizer : {"adam", "sgd"} or callable
        ``torch.optim.Adam`` or ``torch.optim.SGD`` with ``lr``, or a callable
        ``params -> torch.optim.Optimizer`` (then ``lr`` is not used).
    lr : float
        Learning rate of ``"adam"`` and ``"sgd"``.
    scalarization : {"linear", "tchebycheff", "modified_tchebycheff", "asf"} or Scalarization
        See :mod:`paretosurf.adapters.scalarization`; the Tchebycheff max is differentiated
        as torch does (the gradient of the largest term).
    ideal : array_like of shape (M,), optional
        Ideal point of the Tchebycheff scalarizations, required with them (``[0, 0]`` is
        one for non-negative losses). It is not estimated: ``steps`` optimizer steps per
        objective from the initial parameters would give a point well above the true minima.
        It stays where it is given; :meth:`TorchSolver.observe` records the objectives whose
        values go below it (``ideal_beaten``, ``ideal_excess``), for the run to report.
    rho : float, optional
        Relative augmentation of the Tchebycheff scalarizations (default ``1e-4``).
    evaluate_fn : callable, optional
        ``evaluate_fn(model_or_params) -> 2 values`` (a tensor, array or sequence), called
        under ``torch.no_grad()`` after the steps to give the solution's objectives (e.g. a
        full-batch evaluation). Default: ``objectives_fn`` under ``torch.no_grad()``. The
        solver does not switch ``train()``/``eval()`` modes; do it in these functions if the
        model needs it.
    device : str or torch.device, optional
        Where the model is trained: a module is moved there at construction; tensors must
        already be there. Default: where they are.
    gtol : float, optional
        End a call before its ``steps`` once the gradient of the scalarized loss (its norm
        over every trained tensor) is at most ``gtol``: a slot whose weight barely moved
        since its warm start then spends a step or two instead of ``steps``, so that a
        round costs what the weights' change needs. Meant for full-batch (deterministic)
        losses; with mini-batches the gradient's noise keeps it above a small ``gtol``.
        Each step then reads the norm back from the device (a synchronization on a GPU).
        Default ``None``: always ``steps`` steps.

    Returns
    -------
    TorchSolver
        ``solve(weight, state) -> Solution``; the state is a dict of numpy arrays: copies of
        the parameters (and buffers) under ``"tensors"`` and of the optimizer's state dict
        under ``"optimizer"``, so slots never share memory, states travel to worker processes
        fast and checkpoints store them without pickle. A cold start (``state=None``) uses
        the parameters the model had at construction (copied once) and a fresh optimizer.
        ``info`` holds ``steps`` (taken), ``objective_calls`` (the training steps'
        evaluations of the objectives and the final one), ``loss`` (the last training
        step's scalarized loss),
        ``non_finite`` (how many of the steps met a NaN or infinite loss: the run reports
        them as a ``non_finite`` finding) and, for the scalarizations with an ideal point,
        ``ideal`` (a list of floats).
        ``evaluate(state)`` and ``interpolate(state0, state1, t)`` serve the Soup baseline.

    Raises
    ------
    ImportError
        If torch is not installed (``pip install paretosurf[rl]``).
    TypeError, ValueError
        On invalid arguments, naming the argument.

    Examples
    --------
    Least squares towards two targets; the linear-scalarization optimum is the weighted mean:

    >>> import torch
    >>> from paretosurf.adapters import from_torch
    >>> theta = torch.zeros(1, requires_grad=True)
    >>> def losses(params):
    ...     (p,) = params
    ...     return torch.stack([(p[0] - 1.0) ** 2, (p[0] + 1.0) ** 2])
    >>> solver = from_torch([theta], losses, steps=200, optimizer="sgd", lr=0.1)
    >>> sol = solver.solve(0.75, None)            # minimizer 2 w - 1 = 0.5
    >>> round(float(sol.state["tensors"][0][0]), 4), sol.info["steps"]
    (0.5, 200)
    """
    return TorchSolver(
        model_or_params,
        objectives_fn,
        steps=steps,
        optimizer=optimizer,
        lr=lr,
        scalarization=scalarization,
        ideal=ideal,
        rho=rho,
        evaluate_fn=evaluate_fn,
        device=device,
        gtol=gtol,
    )


class TorchSolver(FollowsIdealPoint):
    """K torch optimizer steps on a scalarization of two losses; built by :func:`from_torch`,
    whose docstring describes the arguments.

    Attributes
    ----------
    scalarization : Scalarization
        The scalarization of the losses.
    steps : int
        Optimizer steps per call.
    ideal : ndarray of shape (M,) or None
        The ideal point (given; ``None`` for linear).
    ideal_given : bool
        ``True`` for the scalarizations with an ideal point (always given here).
    ideal_beaten, ideal_excess
        What :meth:`observe` found below the given ideal point, as
        :class:`~paretosurf.adapters.ScipySolver` has them.
    """

    def __init__(
        self,
        model_or_params: Any,
        objectives_fn: Callable[[Any], Any],
        *,
        steps: int,
        optimizer: str | Callable[[list[Any]], Any] = "adam",
        lr: float = 1e-3,
        scalarization: str | Scalarization = "linear",
        ideal: ArrayLike | None = None,
        rho: float | None = None,
        evaluate_fn: Callable[[Any], Any] | None = None,
        device: Any = None,
        gtol: float | None = None,
    ) -> None:
        torch = _import_torch()
        if isinstance(model_or_params, torch.nn.Module):
            if device is not None:
                model_or_params.to(device)
            self.target: Any = model_or_params
            params = [p for p in model_or_params.parameters() if p.requires_grad]
            tensors = list(model_or_params.state_dict(keep_vars=True).values())
        elif isinstance(model_or_params, Iterable) and not isinstance(
            model_or_params, torch.Tensor
        ):
            params = list(model_or_params)
            self.target = params
            tensors = params
            for p in params:
                if not isinstance(p, torch.Tensor) or not p.requires_grad or not p.is_leaf:
                    raise TypeError(
                        "model_or_params must be a torch.nn.Module or an iterable "
                        "of leaf tensors with requires_grad=True; got an item "
                        f"{type(p).__name__}"
                    )
            if device is not None and any(p.device != torch.device(device) for p in params):
                raise ValueError(
                    f"model_or_params: every tensor must be on device {device}; "
                    "move them there before building the solver"
                )
        else:
            raise TypeError(
                "model_or_params must be a torch.nn.Module or an iterable of "
                f"tensors with requires_grad=True, got "
                f"{type(model_or_params).__name__}"
            )
        if not params:
            raise ValueError("model_or_params has no tensor with requires_grad=True to train")
        if not callable(objectives_fn):
            raise TypeError(
                f"objectives_fn must be a callable model -> tensor of shape (2,), "
                f"got {type(objectives_fn).__name__}"
            )
        if evaluate_fn is not None and not callable(evaluate_fn):
            raise TypeError(
                f"evaluate_fn must be a callable or None, got {type(evaluate_fn).__name__}"
            )
        if not (optimizer in ("adam", "sgd") or callable(optimizer)):
            raise ValueError(
                f"optimizer must be 'adam', 'sgd' or a callable params -> "
                f"torch.optim.Optimizer, got {optimizer!r}"
            )
        self.objectives_fn = objectives_fn
        self.evaluate_fn = evaluate_fn
        self.optimizer = optimizer
        self.lr = check_positive(lr, name="lr")
        self.steps = check_positive_int(steps, name="steps")
        self.gtol = None if gtol is None else check_positive(gtol, name="gtol")
        self.scalarization = as_scalarization(scalarization, ideal, rho)
        if self.scalarization.needs_ideal and self.scalarization.ideal is None:
            raise ValueError(
                f"scalarization {self.scalarization.kind!r} needs ideal=[z1, z2] below every "
                "attainable loss (e.g. [0, 0] for non-negative losses); from_torch does not "
                "estimate it"
            )
        self._ideal = (
            IdealPoint(self.scalarization.ideal, given=True)
            if self.scalarization.needs_ideal
            else None
        )
        self._params = params
        self._tensors = tensors
        self._init = [_to_numpy(t) for t in tensors]

    def solve(self, weight: float, state: dict[str, Any] | None) -> Solution:
        """Run ``steps`` optimizer steps on the scalarized losses for ``weight`` from
        ``state`` (the construction-time parameters and a fresh optimizer when ``None``)."""
        torch = _import_torch()
        w = check_weight(weight)
        opt = self._make_optimizer()
        if state is None:
            self._load(self._init)
        else:
            self._load(_state_tensors(state))
            if state.get("optimizer") is not None:
                # fresh tensors: the optimizer updates its moments in place
                opt.load_state_dict(_optimizer_from_numpy(state["optimizer"]))
        sc = self.scalarization
        first = self._params[0]
        coef = torch.as_tensor(sc.coefficients(w), dtype=first.dtype, device=first.device)
        if sc.ideal is not None and sc.ideal.size != coef.numel():
            raise ValueError(
                f"ideal has {sc.ideal.size} entries ({sc.ideal.tolist()}), but the "
                f"weight trades off {coef.numel()} objectives: give one ideal "
                "value per objective"
            )
        ideal = (
            None
            if sc.ideal is None
            else torch.as_tensor(sc.ideal, dtype=first.dtype, device=first.device)
        )
        loss = None
        # counted on the losses' device, read once after the steps (no sync per step)
        non_finite: Any = 0
        taken = evaluations = 0
        for _ in range(self.steps):
            opt.zero_grad()
            h = _as_losses(self.objectives_fn(self.target), torch, int(coef.numel()))
            evaluations += 1
            non_finite = non_finite + (~torch.isfinite(h.detach())).any().to(torch.int64)
            loss = sc.combine(h, coef.to(h.dtype), None if ideal is None else ideal.to(h.dtype))
            loss.backward()
            if self.gtol is not None and self._gradient_norm() <= self.gtol:
                break
            opt.step()
            taken += 1
        objectives = self._evaluate_loaded()
        new_state = {
            "tensors": [_to_numpy(t) for t in self._tensors],
            "optimizer": _optimizer_to_numpy(opt.state_dict()),
        }
        info: dict[str, Any] = {
            "steps": taken,
            # the training steps' evaluations of the objectives, and the result's
            "objective_calls": evaluations + 1,
            "loss": float(loss.detach()) if loss is not None else None,
            "non_finite": int(non_finite),
        }
        if sc.needs_ideal and sc.ideal is not None:
            info["ideal"] = sc.ideal.tolist()
        return Solution(objectives, state=new_state, info=info)

    def _gradient_norm(self) -> float:
        """The norm of the gradient the last ``backward`` left, over every trained tensor."""
        torch = _import_torch()
        norms = [p.grad.detach().norm() for p in self._params if p.grad is not None]
        # one read back from the device per step
        return float(torch.linalg.vector_norm(torch.stack(norms))) if norms else 0.0

    def evaluate(self, state: dict[str, Any]) -> FloatArray:
        """The objectives at a state's parameters (``evaluate_fn``, else ``objectives_fn``,
        under ``torch.no_grad()``)."""
        self._load(_state_tensors(state))
        return self._evaluate_loaded()

    def interpolate(
        self, state0: dict[str, Any], state1: dict[str, Any], t: float
    ) -> dict[str, Any]:
        """Parameters mixed linearly, ``(1 - t) * state0 + t * state1`` (integer buffers from
        ``state0``), with a fresh optimizer (for the Soup baseline)."""
        mixed = [
            a + t * (b - a) if np.issubdtype(a.dtype, np.floating) else a.copy()
            for a, b in zip(_state_tensors(state0), _state_tensors(state1), strict=True)
        ]
        return {"tensors": mixed, "optimizer": None}

    def _evaluate_loaded(self) -> FloatArray:
        torch = _import_torch()
        with torch.no_grad():
            fn = self.evaluate_fn if self.evaluate_fn is not None else self.objectives_fn
            return _as_values(fn(self.target))

    def _load(self, saved: list[Any]) -> None:
        torch = _import_torch()
        if len(saved) != len(self._tensors):
            raise ValueError(f"state holds {len(saved)} tensors, the model {len(self._tensors)}")
        with torch.no_grad():
            for t, s in zip(self._tensors, saved, strict=True):
                t.copy_(torch.as_tensor(s) if isinstance(s, np.ndarray) else s)

    def _make_optimizer(self) -> Any:
        torch = _import_torch()
        if self.optimizer == "adam":
            return torch.optim.Adam(self._params, lr=self.lr)
        if self.optimizer == "sgd":
            return torch.optim.SGD(self._params, lr=self.lr)
        assert callable(self.optimizer)
        return self.optimizer(self._params)

    def __repr__(self) -> str:
        return (
            f"TorchSolver(scalarization={self.scalarization.kind!r}, "
            f"optimizer={self.optimizer!r}, steps={self.steps}"
            + ("" if self.gtol is None else f", gtol={self.gtol:g}")
            + ")"
        )


def _import_torch() -> Any:
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - torch is in the rl extra
        raise ImportError("from_torch needs torch: pip install paretosurf[rl]") from exc
    return torch


def _state_tensors(state: Any) -> list[Any]:
    if not isinstance(state, dict) or "tensors" not in state:
        raise ValueError(
            "state must be None or a state a previous solve returned (a dict "
            "with 'tensors' and 'optimizer')"
        )
    return list(state["tensors"])


def _to_numpy(tensor: Any) -> NDArray[Any]:
    """A tensor as a numpy array of its own (on the CPU, detached, copied)."""
    return np.array(tensor.detach().to("cpu").numpy(), copy=True)


# States are numpy arrays, not tensors: they cross process boundaries about a hundred times
# faster (a small model's tensors cost ~1.5 ms to pickle, its arrays ~0.01 ms), and checkpoints
# store them without pickle (see paretosurf.storage).
def _optimizer_to_numpy(state: dict[str, Any]) -> dict[str, Any]:
    """An optimizer's ``state_dict`` with numpy arrays for tensors and string keys (so that
    :mod:`paretosurf.storage` stores it without pickle)."""
    torch = _import_torch()

    def convert(obj: Any) -> Any:
        if isinstance(obj, torch.Tensor):
            return _to_numpy(obj)
        if isinstance(obj, dict):
            return {str(k): convert(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return type(obj)(convert(v) for v in obj)
        return obj

    return {
        "state": {str(k): convert(v) for k, v in state["state"].items()},
        "param_groups": convert(state["param_groups"]),
    }


def _optimizer_from_numpy(state: dict[str, Any]) -> dict[str, Any]:
    """Inverse of :func:`_optimizer_to_numpy` (fresh tensors)."""
    torch = _import_torch()

    def convert(obj: Any) -> Any:
        if isinstance(obj, np.ndarray):
            return torch.from_numpy(obj.copy())
        if isinstance(obj, dict):
            return {k: convert(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return type(obj)(convert(v) for v in obj)
        return obj

    return {
        "state": {int(k): convert(v) for k, v in state["state"].items()},
        "param_groups": convert(state["param_groups"]),
    }


def _as_losses(raw: Any, torch: Any, m: int) -> Any:
    if not isinstance(raw, torch.Tensor) or raw.numel() != m:
        raise ValueError(
            f"objectives_fn must return a tensor of shape ({m},) (one loss per "
            f"objective), got {raw!r}"
        )
    return raw.reshape(m)


def _as_values(raw: Any) -> FloatArray:
    if hasattr(raw, "detach"):
        raw = raw.detach().to("cpu").double().numpy()
    elif isinstance(raw, (list, tuple)):  # e.g. a list of 0-d tensors
        raw = [float(v) for v in raw]
    h = np.asarray(raw, dtype=np.float64)
    if h.ndim > 1 or h.size < 2:
        raise ValueError(
            f"evaluate_fn (or objectives_fn) must return 2 or more values (one "
            f"per objective), got {raw!r}"
        )
    return h.reshape(h.size)
