"""Argument checks shared across the library: one message style, nothing silently clipped."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]


def check_n_segments(n_segments: object, *, name: str = "n_segments") -> int:
    """Return ``n_segments`` as an int >= 1, or raise naming the argument."""
    if isinstance(n_segments, bool) or not isinstance(n_segments, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 1, got {n_segments!r}")
    if n_segments < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {n_segments}")
    return int(n_segments)


def check_alpha(alpha: object, *, name: str = "alpha") -> float:
    """Return ``alpha`` as a float in (0, 1], or raise naming the argument."""
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"{name} must be a real number in (0, 1], got {alpha!r}")
    value = float(alpha)
    if not (0.0 < value <= 1.0):
        raise ValueError(f"{name} must lie in (0, 1], got {value}")
    return value


def check_non_negative_int(value: object, *, name: str) -> int:
    """Return ``value`` as an int >= 0, or raise naming the argument."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 0, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {value}")
    return int(value)


def check_positive_int(value: object, *, name: str) -> int:
    """Return ``value`` as an int >= 1, or raise naming the argument."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 1, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value}")
    return int(value)


def check_positive(value: object, *, name: str) -> float:
    """Return ``value`` as a finite float > 0, or raise naming the argument."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a positive real number, got {value!r}")
    out = float(value)
    if not (np.isfinite(out) and out > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {out}")
    return out


def as_weights(
    weights: ArrayLike, *, name: str = "weights", span_unit_interval: bool = True
) -> FloatArray:
    """Validate a strictly increasing 1-D weight array inside [0, 1].

    With ``span_unit_interval`` the first weight must be 0 and the last 1.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.size < 2:
        raise ValueError(f"{name} must be a 1-D array of at least 2 weights, got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{name} must be finite")
    if np.any((w < 0) | (w > 1)):
        bad = w[(w < 0) | (w > 1)]
        raise ValueError(f"{name} must lie in [0, 1]; got {bad.tolist()}")
    if np.any(np.diff(w) <= 0):
        raise ValueError(f"{name} must be strictly increasing")
    if span_unit_interval and (w[0] != 0.0 or w[-1] != 1.0):
        raise ValueError(f"{name} must start at 0 and end at 1; got {w[0]} and {w[-1]}")
    return w


def as_front_points(
    points: ArrayLike, *, n_points: int | None = None, name: str = "points", min_points: int = 2
) -> FloatArray:
    """Validate a finite ``(P, M)`` array of objective vectors with M >= 1."""
    p = np.asarray(points, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] < 1:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_points, n_objectives), got shape {p.shape}"
        )
    if n_points is not None and p.shape[0] != n_points:
        raise ValueError(f"{name} must have {n_points} rows (one per weight), got {p.shape[0]}")
    if p.shape[0] < min_points:
        raise ValueError(f"{name} must have at least {min_points} rows, got {p.shape[0]}")
    if not np.all(np.isfinite(p)):
        rows = np.flatnonzero(~np.all(np.isfinite(p), axis=1))
        raise ValueError(f"{name} must be finite; rows {rows.tolist()} are not")
    return p


def as_weight_array(w: ArrayLike, *, name: str = "w") -> FloatArray:
    """Weights as a float array (any shape) of finite values inside [0, 1], or a ``ValueError``."""
    arr = np.asarray(w, dtype=np.float64)
    if not np.all(np.isfinite(arr)) or np.any((arr < 0) | (arr > 1)):
        raise ValueError(f"{name} must lie in [0, 1]")
    return arr


def check_torch_device(device: object, *, numpy_backend: bool = True) -> str:
    """A torch ``device`` (``"cpu"``, ``"cuda"`` or ``"cuda:N"``) checked against what torch
    sees on this machine, before any work starts.

    Parameters
    ----------
    device : str
        The torch device the work is to run on.
    numpy_backend : bool
        Whether the caller also runs without torch (``device=None``, numpy): the messages
        then offer it.

    Returns
    -------
    str
        ``device``, as given.

    Raises
    ------
    TypeError
        If ``device`` is not a string.
    ValueError
        If it names no CPU or CUDA device, or a CUDA device that torch does not see (no GPU,
        or a torch built without CUDA, or an index beyond the GPUs there are); the message
        says what to use instead.
    ImportError
        If torch (the ``rl`` extra) is not installed.
    """
    allowed = (
        "None (numpy), 'cpu' or 'cuda[:N]' (torch)" if numpy_backend else "'cpu' or 'cuda[:N]'"
    )
    instead = (
        "device='cpu' (torch on the CPU) or device=None (numpy)"
        if numpy_backend
        else "device='cpu'"
    )
    if not isinstance(device, str):
        raise TypeError(f"device must be {allowed}, got {device!r}")
    try:
        import torch
    except ImportError as exc:
        fallback = ", or pass device=None (numpy)" if numpy_backend else ""
        raise ImportError(
            f"device={device!r} runs in torch, which is not installed: "
            f"pip install 'paretosurf[rl]'{fallback}"
        ) from exc
    try:
        parsed = torch.device(device)
    except (RuntimeError, ValueError):
        parsed = None
    if parsed is None or parsed.type not in ("cpu", "cuda"):
        raise ValueError(f"device must be {allowed}, got {device!r}")
    if parsed.type == "cuda":
        if not torch.cuda.is_available():
            build = ", built without CUDA" if torch.version.cuda is None else ""
            raise ValueError(
                f"device={device!r} asks for a CUDA GPU, but torch sees no CUDA "
                f"device (torch {torch.__version__}{build}); use {instead}"
            )
        count = torch.cuda.device_count()
        if parsed.index is not None and parsed.index >= count:
            raise ValueError(
                f"device={device!r} asks for CUDA GPU {parsed.index}, but torch "
                f"sees {count} (cuda:0 to cuda:{count - 1}); use one of them or "
                f"{instead}"
            )
    return device


def check_run_options(
    *,
    tol: object = None,
    checkpoint: object = None,
    resume: object = False,
    overwrite: object = False,
    callback: object = None,
    executor: object = None,
) -> None:
    """Validate the loop keywords every method takes (raises ``ValueError``/``TypeError``)."""
    if tol is not None and (
        isinstance(tol, bool)
        or not isinstance(tol, (int, float))
        or not (tol > 0 and math.isfinite(tol))
    ):
        raise ValueError(f"tol must be a finite number > 0 or None, got {tol!r}")
    if resume and checkpoint is None:
        raise ValueError("resume=True needs a checkpoint folder")
    if overwrite and checkpoint is None:
        raise ValueError("overwrite=True needs a checkpoint folder")
    if resume and overwrite:
        raise ValueError(
            "pass resume=True (continue the run in the checkpoint folder) or "
            "overwrite=True (replace it), not both"
        )
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable, got {type(callback).__name__}")
    if executor is not None and not callable(getattr(executor, "solve", None)):
        raise TypeError(
            f"executor must have a solve(solver, tasks, on_done=None) method returning one "
            f"SolveOutcome per task (see paretosurf.executors.Executor); "
            f"{type(executor).__name__} has none"
        )


def check_iterations(iterations: object, *, resume: bool) -> int | None:
    """``run``'s round limit: ``None`` or an int >= 1 (0 only with ``resume``, to read a
    saved run)."""
    if iterations is None:
        return None
    checked = check_non_negative_int(iterations, name="iterations")
    if checked == 0 and not resume:
        raise ValueError(
            "iterations must be at least 1 (0 would solve nothing; to read a "
            "saved run, use SurfResult.load)"
        )
    return checked


def check_init_states(init_states: object) -> None:
    """``init_states`` must be ``None`` or a sequence (not a string) of warm starts."""
    if init_states is not None and (
        isinstance(init_states, (str, bytes)) or not isinstance(init_states, Sequence)
    ):
        raise TypeError(
            "init_states must be a sequence of warm starts (None for a cold "
            f"start) or None, got {type(init_states).__name__}"
        )


def check_weight_bounds(weight_bounds: object) -> tuple[float, float] | str | None:
    """``weight_bounds`` as ``(lo, hi)`` with ``0 <= lo < hi <= 1``, ``"auto"``, or ``None``."""
    if weight_bounds is None:
        return None
    if isinstance(weight_bounds, str):
        if weight_bounds == "auto":
            return "auto"
        raise ValueError(
            f"weight_bounds must be a pair (lo, hi) of weights, 'auto' or None, got "
            f"{weight_bounds!r}"
        )
    try:
        lo, hi = (float(v) for v in weight_bounds)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise TypeError(
            f"weight_bounds must be a pair (lo, hi) of weights, 'auto' or None, got "
            f"{weight_bounds!r}"
        ) from None
    if not (0.0 <= lo < hi <= 1.0):
        raise ValueError(f"weight_bounds must satisfy 0 <= lo < hi <= 1, got ({lo}, {hi})")
    return lo, hi


def check_moving_average(rate: object) -> float | None:
    """The moving-average rate in (0, 1], or ``None``."""
    if rate is None:
        return None
    if (
        isinstance(rate, bool)
        or not isinstance(rate, numbers.Real)
        or not (0.0 < float(rate) <= 1.0)
    ):
        raise ValueError(
            f"moving_average must be a rate in (0, 1] (the weight of the newest "
            f"estimate) or None, got {rate!r}"
        )
    return float(rate)
