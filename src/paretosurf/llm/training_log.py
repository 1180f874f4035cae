"""Solve folders of :class:`~paretosurf.llm.LLMSolver`: training logs, mid-solve checkpoints,
and training curves.

Each solve trains in a folder of its own under the solver's ``workdir``,
``solves/e003-w0.2500-1f9c0a2b7d4e/`` (``e``: the warm start's number of earlier solves, the
slot-epoch; ``w``: the weight; then a digest of everything that determines the solve: the
solver's training settings, the weight, the warm-start adapter's tensors). The folder holds

- ``train_log.jsonl``: one JSON line per TRL log entry (loss, ``reward``, ``rewards/r1/mean``,
  ``rewards/r2/mean``, ``kl``, ``learning_rate``, entropy, completion lengths, ..., and the
  train summary at the end), each with ``step``, ``weight``, ``call`` and ``total_step`` (the
  adapter's optimizer steps since its cold start);
- ``solve.json``: the solve's identity (weight, warm-start digest, settings) and status, and,
  once done, the digest of the trained adapter (so that the solves of a slot chain up);
- ``checkpoint-<step>/``: TRL's own checkpoints (adapter, optimizer, scheduler, RNG state),
  every ``save_steps`` optimizer steps; removed when the solve finishes;
- ``runs/``: TensorBoard event files, with ``report_to="tensorboard"``.

A solve that is run again with the same inputs (a run resumed after a kill, a retried solve)
finds its folder by the digest and continues from the last complete checkpoint.

:func:`read_training_logs` reads every solve folder under a run folder and chains the solves of
a slot (a solve's warm start is its predecessor's trained adapter); :func:`plot_training_curves`
draws the curves, one colour per slot, one segment per round (matplotlib, imported when called).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import numbers
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "SOLVE_INFO",
    "TRAIN_LOG",
    "SolveFolder",
    "SolveLog",
    "log_callback",
    "plot_training_curves",
    "read_training_logs",
]

#: File names in a solve folder.
TRAIN_LOG = "train_log.jsonl"
SOLVE_INFO = "solve.json"
_LOCK = ".lock"
_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")
#: Metrics plotted by default, those present in the logs (TRL's names).
DEFAULT_METRICS = ("reward", "rewards/r1/mean", "rewards/r2/mean", "kl", "loss")


def digest(data: object) -> str:
    """A hex SHA-256 of JSON-able ``data`` (keys sorted)."""
    text = json.dumps(data, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(dict(data), indent=2, sort_keys=True, default=str) + "\n")
    os.replace(tmp, path)


def _number(value: object) -> bool:
    return (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )


# ---------------------------------------------------------------------------- solve folders
@dataclass
class SolveFolder:
    """The folder one solve trains in (see the module docstring).

    Use :meth:`open` to find or make it and lock it for this process, :meth:`last_checkpoint`
    to find where to resume, :meth:`finish` once trained, and :meth:`close` always.

    Attributes
    ----------
    path : Path
        The folder.
    identity : dict
        What the solve is (``weight``, ``call``, ``start_steps``, ``parent``: the warm
        start's digest or ``None``, ``key``: the digest of its inputs); JSON-able.
    private : bool
        Whether another process was solving the same inputs in the shared folder, so this
        solve got a private folder that is removed when it finishes (no resume).
    """

    path: Path
    identity: dict[str, Any]
    private: bool = False
    _fd: int | None = field(default=None, repr=False)

    @classmethod
    def open(
        cls, workdir: str | os.PathLike[str], identity: Mapping[str, Any], *, tag: str
    ) -> SolveFolder:
        """The folder ``workdir/solves/<tag>``, created and locked; if another process
        holds it, a private folder beside it."""
        from paretosurf.storage import try_lock

        root = Path(workdir) / "solves"
        path = root / tag
        path.mkdir(parents=True, exist_ok=True)
        fd = try_lock(path / _LOCK)
        private = fd is None
        if private:
            path = root / f"{tag}-{os.getpid()}-{os.urandom(4).hex()}"
            path.mkdir(parents=True)
        folder = cls(path, dict(identity), private, fd)
        info = folder.info()
        if info.get("key") != identity.get("key"):  # new, or (never expected) a stale one
            info = {}
        _write_json(path / SOLVE_INFO, {**info, **identity, "status": "running"})
        return folder

    def info(self) -> dict[str, Any]:
        """The folder's ``solve.json`` (empty if missing or unreadable)."""
        try:
            data = json.loads((self.path / SOLVE_INFO).read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def checkpoints(self) -> list[tuple[int, Path]]:
        """Complete checkpoints (those with their ``trainer_state.json``, which the trainer
        writes last), by step."""
        out = []
        for child in self.path.iterdir() if self.path.is_dir() else ():
            match = _CHECKPOINT.match(child.name)
            if not (match and child.is_dir()):
                continue
            try:
                state = json.loads((child / "trainer_state.json").read_text())
            except (OSError, ValueError):
                continue
            step = int(match.group(1))
            if isinstance(state, dict) and state.get("global_step") == step:
                out.append((step, child))
        return sorted(out)

    def last_checkpoint(self) -> tuple[int, Path] | None:
        """The complete checkpoint with the most steps, or ``None``."""
        found = self.checkpoints()
        return found[-1] if found else None

    def start_log(self, resume_step: int | None) -> None:
        """Start ``train_log.jsonl``: empty, or (resuming) its lines up to ``resume_step``."""
        log = self.path / TRAIN_LOG
        kept: list[str] = []
        if resume_step is not None and log.is_file():
            for line in log.read_text().splitlines():
                with contextlib.suppress(ValueError):
                    entry = json.loads(line)
                    if (
                        isinstance(entry, dict)
                        and _number(entry.get("step"))
                        and entry["step"] <= resume_step
                        and "train_runtime" not in entry
                    ):
                        kept.append(line)
        tmp = log.with_name(f".{log.name}.tmp-{os.getpid()}")
        tmp.write_text("".join(f"{line}\n" for line in kept))
        os.replace(tmp, log)
        if resume_step is not None:
            _write_json(self.path / SOLVE_INFO, {**self.info(), "resumed_from": resume_step})

    def finish(self, result_digest: str, steps: int) -> None:
        """Record the trained adapter's digest and remove the checkpoints (a private folder is
        removed whole)."""
        if self.private:
            shutil.rmtree(self.path, ignore_errors=True)
            return
        _write_json(
            self.path / SOLVE_INFO,
            {**self.info(), "status": "done", "digest": result_digest, "steps": steps},
        )
        for _, checkpoint in self.checkpoints():
            shutil.rmtree(checkpoint, ignore_errors=True)
        for child in self.path.glob("checkpoint-*"):  # incomplete ones too
            shutil.rmtree(child, ignore_errors=True)
        with contextlib.suppress(OSError):  # the model card TRL writes beside checkpoints
            (self.path / "README.md").unlink()

    def close(self) -> None:
        """Release the folder's lock."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None


def log_callback(path: str | os.PathLike[str], identity: Mapping[str, Any]) -> Any:
    """A ``transformers`` ``TrainerCallback`` whose ``on_log`` appends each log entry to
    ``path`` as a JSON line, with ``identity`` (weight, call) and ``step``/``total_step``."""
    from transformers import TrainerCallback

    fixed = {k: identity[k] for k in ("weight", "call") if k in identity}
    start = int(identity.get("start_steps", 0))

    class JsonLinesLog(TrainerCallback):
        """Appends the trainer's log entries to a JSON-lines file."""

        def on_log(
            self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any
        ) -> None:
            if not logs or not state.is_world_process_zero:
                return
            entry: dict[str, Any] = {
                key: (float(value) if _number(value) else None)  # type: ignore[arg-type]
                for key, value in logs.items()
                if value is None or isinstance(value, numbers.Real)
            }
            entry.update(
                fixed, step=int(state.global_step), total_step=start + int(state.global_step)
            )
            with open(path, "a") as handle:
                handle.write(json.dumps(entry, sort_keys=True) + "\n")

    return JsonLinesLog()


# ---------------------------------------------------------------------------- reading
@dataclass
class SolveLog:
    """The training log of one solve, as :func:`read_training_logs` returns it.

    Attributes
    ----------
    folder : Path
        The solve folder.
    weight : float
        The weight it trained at.
    call : int
        Solves of its warm start before it (its slot-epoch, counted from the cold start).
    slot, round : int
        The chain of solves it belongs to (a slot: each solve warm-started from the one
        before) and its position in that chain, both from 0.
    start_steps : int
        The warm start's optimizer steps (``total_step = start_steps + step``).
    status : str
        ``"done"``, or ``"running"`` (still running, or killed).
    rows : list of dict
        The log entries with a loss (one per logged optimizer step), in step order.
    info : dict
        The folder's ``solve.json``.
    """

    folder: Path
    weight: float
    call: int
    slot: int
    round: int
    start_steps: int
    status: str
    rows: list[dict[str, Any]]
    info: dict[str, Any]

    def series(self, metric: str) -> tuple[list[int], list[float]]:
        """``(total_steps, values)`` of ``metric`` over the steps that logged it."""
        xs, ys = [], []
        for row in self.rows:
            value: Any = row.get(metric)
            if _number(value):
                xs.append(int(row["total_step"]))
                ys.append(float(value))
        return xs, ys


def _read_rows(path: Path) -> list[dict[str, Any]]:
    rows: dict[int, dict[str, Any]] = {}
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            try:
                entry = json.loads(line)
            except ValueError:  # a line cut short by a kill
                continue
            if isinstance(entry, dict) and "loss" in entry and _number(entry.get("step")):
                entry.setdefault("total_step", entry["step"])
                rows[int(entry["step"])] = entry  # a resumed solve's later line wins
    return [rows[k] for k in sorted(rows)]


def read_training_logs(run_dir: str | os.PathLike[str]) -> list[SolveLog]:
    """The training logs of every solve folder under ``run_dir`` (searched recursively: a
    solver's ``workdir``, or a run folder that holds it).

    Solves are chained into slots: a solve whose warm start is the trained adapter of another
    solve, and the only solve warm-started from it, continues that solve's slot; any other
    starts a slot (a cold start, or one of several solves branching from a shared warm start).
    Slots are numbered in order of their first solve's ``call``, then weight.

    Returns
    -------
    list of SolveLog
        Sorted by slot, then round.
    """
    root = Path(run_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"run_dir {root} is not a folder")
    found = []
    for log in sorted(root.rglob(TRAIN_LOG)):
        try:
            info = json.loads((log.parent / SOLVE_INFO).read_text())
        except (OSError, ValueError):
            info = {}
        if not isinstance(info, dict):
            info = {}
        rows = _read_rows(log)
        first = rows[0] if rows else {}
        weight: Any = info.get("weight", first.get("weight", math.nan))
        found.append(
            (
                log.parent,
                info,
                rows,
                float(weight) if _number(weight) else math.nan,
                int(info.get("call", first.get("call", 0)) or 0),
            )
        )
    found.sort(key=lambda f: (f[4], f[3], str(f[0])))
    by_digest = {f[1]["digest"]: i for i, f in enumerate(found) if f[1].get("digest")}
    children: dict[str, int] = {}
    for f in found:
        parent = f[1].get("parent")
        if parent:
            children[parent] = children.get(parent, 0) + 1
    slot_of: dict[int, tuple[int, int]] = {}
    n_slots = 0
    for i, (_, info, _, _, _) in enumerate(found):
        parent = str(info.get("parent") or "")
        before = by_digest.get(parent) if parent else None
        if before is not None and before in slot_of and children.get(parent, 0) == 1:
            slot, rnd = slot_of[before]
            slot_of[i] = (slot, rnd + 1)
        else:
            slot_of[i] = (n_slots, 0)
            n_slots += 1
    out = [
        SolveLog(
            folder,
            weight,
            call,
            slot_of[i][0],
            slot_of[i][1],
            int(info.get("start_steps", 0) or 0),
            str(info.get("status", "running")),
            rows,
            info,
        )
        for i, (folder, info, rows, weight, call) in enumerate(found)
    ]
    return sorted(out, key=lambda s: (s.slot, s.round))


# ---------------------------------------------------------------------------- plotting
def plot_training_curves(
    run_dir: str | os.PathLike[str],
    *,
    metrics: Sequence[str] | None = None,
    path: str | os.PathLike[str] | None = None,
) -> Any:
    """Training curves of every solve under ``run_dir``: one panel per metric, one colour per
    slot, one line segment per round, against the adapter's optimizer steps since its cold
    start (so a slot's rounds follow one another).

    Parameters
    ----------
    run_dir : path
        A run folder, or a solver's ``workdir`` (searched recursively for solve folders).
    metrics : sequence of str, optional
        Log keys to plot (default: those of ``reward``, ``rewards/r1/mean``,
        ``rewards/r2/mean``, ``kl`` and ``loss`` that the logs hold).
    path : path, optional
        Also save the figure there (PNG unless the suffix says otherwise).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    FileNotFoundError
        If ``run_dir`` holds no training log.
    ValueError
        If none of ``metrics`` was logged.

    Examples
    --------
    ::

        from paretosurf.llm.training_log import plot_training_curves
        plot_training_curves("runs/table2", path="runs/table2/training.png")
    """
    logs = read_training_logs(run_dir)
    if not any(log.rows for log in logs):
        raise FileNotFoundError(f"{run_dir} holds no training log ({TRAIN_LOG} with logged steps)")
    logged = {key for log in logs for row in log.rows for key in row}
    if metrics is None:
        chosen = [m for m in DEFAULT_METRICS if m in logged]
    else:
        if isinstance(metrics, str):
            raise TypeError("metrics must be a sequence of log keys, not a string")
        chosen = [str(m) for m in metrics]
        missing = [m for m in chosen if m not in logged]
        if missing:
            raise ValueError(f"metrics {missing} were never logged; logged keys: {sorted(logged)}")
    if not chosen:
        raise ValueError(
            f"none of {list(DEFAULT_METRICS)} was logged; logged keys: {sorted(logged)}"
        )
    from matplotlib import colormaps

    from paretosurf.plotting import pyplot, save_figure

    plt = pyplot()
    cols = min(len(chosen), 3)
    rows = -(-len(chosen) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), squeeze=False)
    n_slots = 1 + max(log.slot for log in logs)
    cmap = colormaps["viridis" if n_slots > 10 else "tab10"]
    labelled: set[int] = set()
    for ax, metric in zip(axes.flat, chosen, strict=False):
        for log in logs:
            xs, ys = log.series(metric)
            if not xs:
                continue
            colour = cmap(log.slot / max(n_slots - 1, 1) if n_slots > 10 else log.slot % 10)
            label = None
            if metric == chosen[0] and log.slot not in labelled:
                labelled.add(log.slot)
                label = f"slot {log.slot} (w={log.weight:.3g})"
            ax.plot(xs, ys, color=colour, lw=1.0, label=label)
            ax.plot(xs[:1], ys[:1], "o", color=colour, ms=3)  # a round starts
        ax.set_title(metric, fontsize=9)
        ax.set_xlabel("optimizer steps of the adapter", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(chosen) :]:
        ax.set_visible(False)
    if labelled:
        fig.legend(
            loc="lower center",
            ncol=min(len(labelled), 6),
            fontsize=7,
            bbox_to_anchor=(0.5, -0.02 - 0.03 * ((len(labelled) - 1) // 6)),
        )
    fig.suptitle(
        f"training curves: {len(logs)} solves in {n_slots} slots (a dot starts a round)",
        fontsize=10,
    )
    fig.tight_layout()
    if path is not None:
        save_figure(fig, Path(path))
    return fig
