"""PEFT adapters as solver states: in memory, on disk in the PEFT format, and mixed linearly.

An :class:`AdapterState` holds the weights of one LoRA or DoRA adapter as float32 numpy
arrays, under the keys PEFT's ``get_peft_model_state_dict`` gives them (the adapter name
dropped: ``base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight``, and for DoRA
``...q_proj.lora_magnitude_vector``), with the adapter's ``adapter_config.json`` as text. It is
what :class:`paretosurf.llm.LLMSolver` warm-starts from, and nothing model-sized: the frozen
base model is never part of it.

:func:`save_adapter` writes the PEFT format, ``adapter_model.safetensors`` and
``adapter_config.json``, so a saved state is an adapter folder that ``PeftModel.from_pretrained``
loads; :func:`load_adapter` reads one back, exactly. :func:`interpolate_adapters` mixes two
adapters key by key (``(1 - t) * a + t * b`` for every tensor, DoRA magnitude vectors included),
the mixture of the Soup baseline ("rewarded soups"). PEFT's ``add_weighted_adapter`` is a
different operation: it rescales A and B by square roots of the weights and drops DoRA
magnitudes, so its mixtures do not reproduce the endpoints.

This module needs numpy only, and ``safetensors`` (part of the ``llm`` extra) to save and
load; the functions that move weights in and out of a ``torch`` model import ``peft`` when
called.
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "ADAPTER_CONFIG",
    "ADAPTER_WEIGHTS",
    "AdapterState",
    "adapter_digest",
    "adapter_from_model",
    "canonical_safetensors",
    "interpolate_adapters",
    "load_adapter",
    "load_adapter_into",
    "save_adapter",
]

#: File names of the PEFT adapter format.
ADAPTER_WEIGHTS = "adapter_model.safetensors"
ADAPTER_CONFIG = "adapter_config.json"
_META_CALLS = "paretosurf.calls"
_META_STEPS = "paretosurf.steps"
#: Config fields that change what the weights mean; two adapters mixed or loaded into one
#: another must agree on them.
_MEANINGFUL = ("peft_type", "r", "lora_alpha", "use_dora", "use_rslora", "bias")


@dataclass(eq=False)
class AdapterState:
    """The weights and configuration of one PEFT (LoRA or DoRA) adapter.

    Attributes
    ----------
    weights : dict of str to ndarray
        The adapter's tensors as float32 arrays, keyed as in ``adapter_model.safetensors``.
    config_json : str
        The adapter's ``adapter_config.json`` (a PEFT ``LoraConfig`` as JSON).
    calls : int
        Solver calls that trained this adapter since its cold start (the solver derives each
        call's random seed from it, so successive calls of a slot see fresh samples).
    steps : int
        RL optimizer steps that trained it since its cold start.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.llm import AdapterState
    >>> st = AdapterState({"q.lora_A.weight": np.ones((2, 4), np.float32),
    ...                    "q.lora_B.weight": np.zeros((4, 2), np.float32)},
    ...                   '{"peft_type": "LORA", "r": 2, "lora_alpha": 4}')
    >>> st.n_params, st.config["r"], st.dora
    (16, 2, False)
    """

    weights: dict[str, NDArray[np.float32]]
    config_json: str
    calls: int = 0
    steps: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.weights, Mapping) or not self.weights:
            raise ValueError(
                "AdapterState.weights must be a non-empty dict of arrays, got "
                f"{type(self.weights).__name__}"
            )
        weights: dict[str, NDArray[np.float32]] = {}
        for key, value in self.weights.items():
            if not isinstance(key, str):
                raise TypeError(f"AdapterState.weights keys must be strings, got {key!r}")
            arr = np.asarray(value)
            if arr.dtype.kind != "f":
                raise TypeError(
                    f"AdapterState.weights[{key!r}] must hold floats, got dtype {arr.dtype}"
                )
            weights[key] = np.ascontiguousarray(arr, dtype=np.float32)
        self.weights = weights
        if not isinstance(self.config_json, str):
            raise TypeError(
                "AdapterState.config_json must be the adapter_config.json text, "
                f"got {type(self.config_json).__name__}"
            )
        try:
            config = json.loads(self.config_json)
        except json.JSONDecodeError as exc:
            raise ValueError(f"AdapterState.config_json is not valid JSON: {exc}") from None
        if not isinstance(config, dict):
            raise ValueError("AdapterState.config_json must hold a JSON object")
        self._config: dict[str, Any] = config  # not a field: checkpoints store config_json
        for name in ("calls", "steps"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
                raise ValueError(f"AdapterState.{name} must be an integer >= 0, got {value!r}")
            setattr(self, name, int(value))

    @property
    def config(self) -> dict[str, Any]:
        """The adapter configuration (a copy of the parsed ``config_json``)."""
        config: dict[str, Any] = json.loads(self.config_json)
        return config

    @property
    def dora(self) -> bool:
        """Whether the adapter is a DoRA adapter (it has magnitude vectors)."""
        return bool(self._config.get("use_dora", False))

    @property
    def n_params(self) -> int:
        """Number of adapter parameters."""
        return int(sum(a.size for a in self.weights.values()))

    def copy(self) -> AdapterState:
        """A deep copy."""
        return AdapterState(
            {k: v.copy() for k, v in self.weights.items()}, self.config_json, self.calls, self.steps
        )

    def __repr__(self) -> str:
        kind = "DoRA" if self.dora else "LoRA"
        return (
            f"AdapterState({kind}, r={self._config.get('r')}, {len(self.weights)} tensors, "
            f"{self.n_params} parameters, calls={self.calls}, steps={self.steps})"
        )


def adapter_digest(state: AdapterState) -> str:
    """A hex SHA-256 of an adapter's tensors (names, shapes and float32 bytes) and meaningful
    configuration: equal for equal adapters, whether in memory or read back from a folder.

    Examples
    --------
    >>> import numpy as np
    >>> a = AdapterState({"w": np.ones(2)}, '{"r": 1}')
    >>> adapter_digest(a) == adapter_digest(a.copy()), len(adapter_digest(a))
    (True, 64)
    """
    if not isinstance(state, AdapterState):
        raise TypeError(f"state must be an AdapterState, got {type(state).__name__}")
    h = hashlib.sha256()
    h.update(
        json.dumps(
            {k: state._config.get(k) for k in _MEANINGFUL}, sort_keys=True, default=str
        ).encode()
    )
    for key in sorted(state.weights):
        value = state.weights[key]
        h.update(f"{key}:{value.shape}".encode())
        h.update(np.ascontiguousarray(value, dtype=np.float32).tobytes())
    return h.hexdigest()


def config_json(config: Mapping[str, Any]) -> str:
    """A PEFT config dict as ``adapter_config.json`` text: sets as sorted lists, enums as
    their values, keys sorted (PEFT's own ``save_pretrained`` writes sets as lists too)."""

    def default(obj: Any) -> Any:
        if isinstance(obj, (set, frozenset)):
            return sorted(obj)
        value = getattr(obj, "value", None)
        if isinstance(value, (str, int, float, bool)):
            return value
        raise TypeError(f"adapter config value {obj!r} ({type(obj).__name__}) is not JSON")

    return json.dumps(dict(config), default=default, indent=2, sort_keys=True)


def _differences(a: AdapterState, b: AdapterState) -> list[str]:
    """What makes two adapters' weights incompatible (empty when they can be mixed)."""
    out = []
    ca, cb = a._config, b._config
    for key in _MEANINGFUL:
        if ca.get(key) != cb.get(key):
            out.append(f"{key} {ca.get(key)!r} != {cb.get(key)!r}")
    only_a = sorted(set(a.weights) - set(b.weights))
    only_b = sorted(set(b.weights) - set(a.weights))
    if only_a or only_b:
        out.append(
            f"tensors only in the first: {only_a[:3]}{'...' if len(only_a) > 3 else ''}; "
            f"only in the second: {only_b[:3]}{'...' if len(only_b) > 3 else ''}"
        )
    for key in sorted(set(a.weights) & set(b.weights)):
        if a.weights[key].shape != b.weights[key].shape:
            out.append(f"{key} has shape {a.weights[key].shape} != {b.weights[key].shape}")
            break
    return out


def interpolate_adapters(state0: AdapterState, state1: AdapterState, t: float) -> AdapterState:
    """The adapter ``(1 - t) * state0 + t * state1``, tensor by tensor.

    Every tensor is mixed linearly (computed in float64, stored as float32): LoRA's A and B
    factors, DoRA's magnitude vectors, and anything else the adapter holds. At ``t = 0`` and
    ``t = 1`` the result is an exact copy of ``state0`` and ``state1``. The mixture of the A and
    B factors is not the mixture of the weight updates ``B @ A``; it is what "rewarded soups"
    average.

    Parameters
    ----------
    state0, state1 : AdapterState
        Two adapters of the same configuration (rank, alpha, DoRA or not) and tensors.
    t : float
        Position in [0, 1] from ``state0`` to ``state1``.

    Returns
    -------
    AdapterState
        With ``calls`` and ``steps`` the larger of the two (the exact ones at the endpoints).

    Raises
    ------
    TypeError
        If a state is not an :class:`AdapterState` or ``t`` not a real number.
    ValueError
        If ``t`` is outside [0, 1] or the adapters differ in configuration or tensors.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.llm import AdapterState, interpolate_adapters
    >>> cfg = '{"peft_type": "LORA", "r": 1, "lora_alpha": 2, "use_dora": true}'
    >>> a = AdapterState({"lora_A.weight": np.zeros((1, 2)),
    ...                   "lora_magnitude_vector": np.ones(2)}, cfg)
    >>> b = AdapterState({"lora_A.weight": np.full((1, 2), 4.0),
    ...                   "lora_magnitude_vector": np.full(2, 3.0)}, cfg)
    >>> mid = interpolate_adapters(a, b, 0.25)
    >>> mid.weights["lora_A.weight"].tolist(), mid.weights["lora_magnitude_vector"].tolist()
    ([[1.0, 1.0]], [1.5, 1.5])
    >>> interpolate_adapters(a, b, 1.0).weights["lora_A.weight"].tolist()
    [[4.0, 4.0]]
    """
    for name, st in (("state0", state0), ("state1", state1)):
        if not isinstance(st, AdapterState):
            raise TypeError(f"{name} must be an AdapterState, got {type(st).__name__}")
    if isinstance(t, bool) or not isinstance(t, numbers.Real):
        raise TypeError(f"t must be a real number in [0, 1], got {t!r}")
    tt = float(t)
    if not (math.isfinite(tt) and 0.0 <= tt <= 1.0):
        raise ValueError(f"t must lie in [0, 1], got {tt}")
    diffs = _differences(state0, state1)
    if diffs:
        raise ValueError(
            "cannot interpolate adapters of different shapes or configurations: " + "; ".join(diffs)
        )
    if tt == 0.0:
        return state0.copy()
    if tt == 1.0:
        return state1.copy()
    weights = {
        key: (
            (1.0 - tt) * a.astype(np.float64) + tt * state1.weights[key].astype(np.float64)
        ).astype(np.float32)
        for key, a in state0.weights.items()
    }
    return AdapterState(
        weights,
        state0.config_json,
        max(state0.calls, state1.calls),
        max(state0.steps, state1.steps),
    )


# ---------------------------------------------------------------------------- files
def _safetensors_numpy() -> Any:
    try:
        import safetensors.numpy
    except ImportError as exc:  # pragma: no cover - safetensors comes with the llm extra
        raise ImportError(
            "saving and loading adapters needs safetensors: pip install 'paretosurf[llm]'"
        ) from exc
    return safetensors.numpy


def canonical_safetensors(data: bytes) -> bytes:
    """A safetensors file's bytes with its header in one fixed order, so that equal tensors
    and metadata give equal bytes.

    safetensors writes the metadata (``__metadata__``) from a hash map, in an order that
    changes from call to call; the tensors it orders itself (by alignment, then name). This
    rewrites the header with the metadata keys sorted, the tensors' entries as they were, and
    the padding safetensors uses (spaces, to a multiple of 8 bytes); the tensor data is
    untouched.

    Raises
    ------
    ValueError
        If ``data`` is not a safetensors file.

    Examples
    --------
    >>> import numpy as np
    >>> import safetensors.numpy
    >>> from paretosurf.llm.adapter_state import canonical_safetensors
    >>> tensors = {"w": np.ones(2, np.float32)}
    >>> meta = {"b": "1", "a": "2", "c": "3"}
    >>> files = {canonical_safetensors(safetensors.numpy.save(tensors, metadata=meta))
    ...          for _ in range(10)}
    >>> len(files)
    1
    >>> safetensors.numpy.load(files.pop())["w"].tolist()
    [1.0, 1.0]
    """
    if len(data) < 8:
        raise ValueError("not a safetensors file: shorter than its 8-byte header size")
    size = int.from_bytes(data[:8], "little")
    try:
        header = json.loads(data[8 : 8 + size])
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a safetensors file: its header is not JSON ({exc})") from None
    if not isinstance(header, dict):
        raise ValueError("not a safetensors file: its header is not a JSON object")
    meta = header.pop("__metadata__", None)
    ordered = {} if meta is None else {"__metadata__": dict(sorted(meta.items()))}
    ordered.update(header)
    text = json.dumps(ordered, separators=(",", ":"), ensure_ascii=False).encode()
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text + data[8 + size :]


def save_adapter(state: AdapterState, folder: str | os.PathLike[str]) -> Path:
    """Write ``state`` into ``folder`` in the PEFT format.

    ``folder/adapter_model.safetensors`` holds the tensors (its metadata also records
    ``calls`` and ``steps``) and ``folder/adapter_config.json`` the configuration; the folder
    is created if needed. ``PeftModel.from_pretrained(base_model, folder)`` loads it. Equal
    states give byte-identical files (:func:`canonical_safetensors`): two identical runs
    write identical adapters.

    Returns
    -------
    Path
        ``folder``.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from paretosurf.llm import AdapterState, load_adapter, save_adapter
    >>> st = AdapterState({"q.lora_A.weight": np.arange(4.0).reshape(2, 2)},
    ...                   '{"peft_type": "LORA", "r": 2}', calls=3, steps=40)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     back = load_adapter(save_adapter(st, tmp))
    ...     back.weights["q.lora_A.weight"].tolist(), back.calls, back.steps
    ([[0.0, 1.0], [2.0, 3.0]], 3, 40)
    """
    if not isinstance(state, AdapterState):
        raise TypeError(f"state must be an AdapterState, got {type(state).__name__}")
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    data = _safetensors_numpy().save(
        dict(state.weights),
        metadata={"format": "pt", _META_CALLS: str(state.calls), _META_STEPS: str(state.steps)},
    )
    (target / ADAPTER_WEIGHTS).write_bytes(canonical_safetensors(data))
    (target / ADAPTER_CONFIG).write_text(state.config_json + "\n")
    return target


def load_adapter(folder: str | os.PathLike[str]) -> AdapterState:
    """Read an adapter folder written by :func:`save_adapter` (or by PEFT's
    ``save_pretrained`` with safetensors) into memory: the arrays are copies, so the folder may
    be deleted afterwards.

    Raises
    ------
    FileNotFoundError
        If the folder or one of its two files is missing.
    """
    path = Path(folder)
    weights_file, config_file = path / ADAPTER_WEIGHTS, path / ADAPTER_CONFIG
    for file in (weights_file, config_file):
        if not file.is_file():
            raise FileNotFoundError(
                f"adapter folder {path} has no {file.name} (an adapter "
                f"folder holds {ADAPTER_WEIGHTS} and {ADAPTER_CONFIG})"
            )
    _safetensors_numpy()  # a clear ImportError without the llm extra
    from safetensors import safe_open

    weights: dict[str, NDArray[np.float32]] = {}
    with safe_open(str(weights_file), framework="numpy") as handle:
        meta = handle.metadata() or {}
        for key in handle.keys():
            weights[key] = np.array(handle.get_tensor(key), dtype=np.float32, copy=True)
    return AdapterState(
        weights,
        config_file.read_text().strip(),
        int(meta.get(_META_CALLS, 0)),
        int(meta.get(_META_STEPS, 0)),
    )


# ---------------------------------------------------------------------------- torch models
def adapter_from_model(model: Any, *, calls: int = 0, steps: int = 0) -> AdapterState:
    """The adapter ``"default"`` of a ``peft.PeftModel`` as an :class:`AdapterState` (CPU
    float32 copies of its tensors and its configuration)."""
    from peft import get_peft_model_state_dict

    config = model.peft_config["default"].to_dict()
    tensors = get_peft_model_state_dict(model, adapter_name="default")
    weights = {
        key: value.detach().to("cpu").float().numpy().copy() for key, value in tensors.items()
    }
    return AdapterState(weights, config_json(config), calls, steps)


def load_adapter_into(model: Any, state: AdapterState) -> None:
    """Copy ``state``'s tensors into the adapter ``"default"`` of a ``peft.PeftModel``, in
    place (the parameters stay the same objects, so an optimizer built on them sees the new
    values), and check that every adapter parameter was set and is trainable.

    Raises
    ------
    ValueError
        If the adapter's configuration (rank, alpha, DoRA) or tensors differ from the model's.
    RuntimeError
        If PEFT left an adapter parameter unset or frozen.
    """
    import torch
    from peft import set_peft_model_state_dict

    own = adapter_from_model(model)
    diffs = _differences(state, own)
    if diffs:
        raise ValueError(
            "the warm-start adapter does not fit the solver's adapter: " + "; ".join(diffs)
        )
    device = next(p.device for p in model.parameters())
    tensors = {k: torch.from_numpy(v.copy()).to(device) for k, v in state.weights.items()}
    result = set_peft_model_state_dict(model, tensors, adapter_name="default")
    unexpected = list(getattr(result, "unexpected_keys", []) or [])
    if unexpected:
        raise RuntimeError(f"PEFT did not use the adapter tensors {unexpected[:3]}")
    params = {
        name: p for name, p in model.named_parameters() if ".default" in name and ("lora_" in name)
    }
    frozen = [name for name, p in params.items() if not p.requires_grad]
    if not params or frozen:
        raise RuntimeError(
            "the adapter's parameters must be trainable; frozen: "
            f"{frozen[:3] if params else 'no adapter parameters found'}"
        )
    loaded = adapter_from_model(model)
    for key, value in state.weights.items():
        if not np.array_equal(loaded.weights[key], value):
            raise RuntimeError(f"adapter tensor {key} was not loaded into the model")
