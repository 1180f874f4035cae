"""Saving and restoring a SURF run: result files and atomic per-iteration checkpoints.

A saved state is two files: ``<stem>.json`` (settings, counters, per-iteration scalars and
CDFs; human-readable) and ``<stem>.npz`` (``weights_<t>`` and ``points_<t>`` of every iteration
``t``, and the pickled per-slot solver states). A checkpoint folder holds numbered saves and a
``LATEST`` file naming the newest complete one; every file is written to a temporary name and
renamed, so a run killed at any moment leaves the previous checkpoint intact.
"""

from __future__ import annotations

import json
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from paretosurf.cdf import ArcLengthCDF

__all__ = ["load_checkpoint", "read_state", "save_checkpoint", "write_state"]

FORMAT = "paretosurf-state"
VERSION = 1
_LATEST = "LATEST"
_KEEP = 2


def _stem(path: str | Path) -> Path:
    p = Path(path)
    return p.with_suffix("") if p.suffix in (".json", ".npz") else p


def _atomic_write(target: Path, write: Any, mode: str = "wb") -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_state(state: Any, path: str | Path) -> tuple[Path, Path]:
    """Write a :class:`~paretosurf.surf.SurfState` to ``<path>.json`` and ``<path>.npz``.

    The ``.npz`` is written first; the ``.json`` (which names it) last.
    """
    stem = _stem(path)
    json_path, npz_path = stem.with_suffix(".json"), stem.with_suffix(".npz")
    hist = state.history
    arrays: dict[str, Any] = {
        "states_pickle": np.frombuffer(pickle.dumps(state.states), dtype=np.uint8),
    }
    # One array per record: baselines such as OLS grow their point set between iterations.
    for i, record in enumerate(hist):
        arrays[f"weights_{i}"] = record.weights
        arrays[f"points_{i}"] = record.points
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "n_segments": state.n_segments,
        "alpha": state.alpha,
        "iterations": len(hist),
        "n_solves": state.n_solves,
        "n_steps": state.n_steps,
        "converged": state.converged,
        "refine": state.refine,
        "warm_start": state.warm_start,
        "cdf": state.cdf.to_dict(),
        "arrays": npz_path.name,
        "history": [r.scalars() for r in hist],
    }
    _atomic_write(npz_path, lambda fh: np.savez_compressed(fh, **arrays))
    _atomic_write(json_path, lambda fh: json.dump(meta, fh, indent=1), mode="w")
    return json_path, npz_path


def read_state(path: str | Path) -> Any:
    """Read a state written by :func:`write_state` (``path`` with or without extension).

    Solver states are unpickled: read only files you trust.
    """
    from paretosurf.surf import IterationRecord, SurfState

    stem = _stem(path)
    json_path = stem.with_suffix(".json")
    if not json_path.exists():
        raise FileNotFoundError(f"no saved SURF state at {json_path}")
    meta = json.loads(json_path.read_text())
    if meta.get("format") != FORMAT:
        raise ValueError(f"{json_path} is not a paretosurf state file")
    if meta.get("version", 0) > VERSION:
        raise ValueError(f"{json_path} has format version {meta['version']}; this paretosurf "
                         f"reads up to version {VERSION}")
    with np.load(json_path.parent / meta["arrays"], allow_pickle=False) as data:
        states = pickle.loads(data["states_pickle"].tobytes())
        weights = [data[f"weights_{i}"] for i in range(len(meta["history"]))]
        points = [data[f"points_{i}"] for i in range(len(meta["history"]))]
    history = [
        IterationRecord(
            iteration=rec["iteration"],
            weights=weights[i],
            points=points[i],
            cv=rec["cv"],
            gap_ratio=rec["gap_ratio"],
            weight_change=rec["weight_change"],
            seconds=rec["seconds"],
            solve_seconds=rec["solve_seconds"],
            n_solves=rec["n_solves"],
            n_steps=rec["n_steps"],
            cdf=ArcLengthCDF.from_dict(rec["cdf"]),
        )
        for i, rec in enumerate(meta["history"])
    ]
    return SurfState(
        n_segments=meta["n_segments"],
        alpha=meta["alpha"],
        cdf=ArcLengthCDF.from_dict(meta["cdf"]),
        states=states,
        history=history,
        n_solves=meta["n_solves"],
        n_steps=meta["n_steps"],
        converged=meta["converged"],
        refine=meta.get("refine", True),
        warm_start=meta.get("warm_start", "slot"),
    )


def save_checkpoint(state: Any, folder: str | Path) -> Path:
    """Save ``state`` as the newest checkpoint in ``folder`` (atomically) and prune old ones."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    name = f"iter-{state.iteration:06d}"
    write_state(state, root / name)
    _atomic_write(root / _LATEST, lambda fh: fh.write(name), mode="w")
    saves = sorted(p.stem for p in root.glob("iter-*.json"))
    for old in saves[:-_KEEP]:
        for suffix in (".json", ".npz"):
            (root / old).with_suffix(suffix).unlink(missing_ok=True)
    return root / name


def load_checkpoint(folder: str | Path) -> Any | None:
    """The newest complete state in ``folder``, or ``None`` if it holds none.

    Examples
    --------
    >>> import tempfile
    >>> import paretosurf as ps
    >>> from paretosurf.checkpoint import load_checkpoint
    >>> solver = lambda w, s: ps.Solution([w, 1 - w * w])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = ps.surf(solver, 4, iterations=3, checkpoint=folder)
    ...     state = load_checkpoint(folder)
    >>> state.iteration, state.n_solves
    (3, 15)
    """
    root = Path(folder)
    latest = root / _LATEST
    if not latest.exists():
        return None
    return read_state(root / latest.read_text().strip())
