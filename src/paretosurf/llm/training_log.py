"""Solve folders of :class:`~paretosurf.llm.LLMSolver`: training logs, mid-solve checkpoints,
and training curves.

Each solve trains in a folder of its own under the solver's ``workdir``,
``solves/e003-w0.2500-1f9c0a2b7d4e/`` (``e``: the warm start's number of earlier solves, the
slot-epoch; ``w``: the weight; then a digest of everything that determines the solve: the
solver's training settings, the weight, the warm-start adapter's tensors). The folder holds

- ``train_log.jsonl``: one JSON line per TRL log entry (loss, ``reward``, each reward's
  ``rewards/<name>/mean`` under the reward's own name, e.g. ``rewards/count_apple/mean``
  (logs written before had ``rewards/r1/mean`` and ``rewards/r2/mean``, which are still
  read), ``kl``, ``learning_rate``, entropy, completion lengths, ..., and the train summary
  at the end), each with ``step``, ``weight``, ``call`` and ``total_step`` (the adapter's
  optimizer steps since its cold start); and event lines (``{"event": "start", ...}``: the
  steps planned and the checkpoint interval; ``{"event": "resumed", "step": 8, ...}``: the
  checkpoint a resumed solve continued from), which have no ``loss``;
- ``solve.json``: the solve's identity (weight, warm-start digest, settings), the rewards'
  names, the steps planned, the checkpoint interval and status, and, once done, the digest
  of the trained adapter (so that the solves of a slot chain up), and ``resumed_from``;
- ``checkpoint-<step>/``: TRL's own checkpoints (adapter, optimizer, scheduler, RNG state),
  every ``save_steps`` optimizer steps (the newest two kept); removed when the solve finishes;
- ``runs/``: TensorBoard event files, with ``report_to="tensorboard"``.

A solve that is run again with the same inputs (a run resumed after a kill, a retried solve)
finds its folder by the digest and continues from the last complete checkpoint.

:func:`read_training_logs` reads every solve folder under a run folder and chains the solves of
a slot (a solve's warm start is its predecessor's trained adapter); :func:`slot_curves` tells
the methods and slots of a protocol run (or of a method's run folder) apart by following each
final adapter back through the digests; :func:`plot_training_curves` draws them, a row per
method, a line per slot labelled with its weight's path (matplotlib, imported when called).
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
    "WARM_START",
    "SlotCurve",
    "SolveFolder",
    "SolveLog",
    "default_metrics",
    "log_callback",
    "plot_training_curves",
    "prune_callback",
    "read_training_logs",
    "slot_curves",
    "weight_path",
]

#: File names in a solve folder.
TRAIN_LOG = "train_log.jsonl"
SOLVE_INFO = "solve.json"
_LOCK = ".lock"
_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")


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

    def note(self, event: str, step: int, **details: Any) -> None:
        """Append an event line to ``train_log.jsonl``: ``{"event": event, "step": step,
        ...}`` with the solve's weight and call (a solve's start, the checkpoint it resumed
        from). Readers of the steps skip it (it has no ``loss``); a resume keeps the events
        up to its checkpoint's step."""
        entry: dict[str, Any] = {
            k: self.identity[k] for k in ("weight", "call") if k in self.identity
        }
        start = int(self.identity.get("start_steps", 0) or 0)
        entry.update(details, event=event, step=int(step), total_step=start + int(step))
        with open(self.path / TRAIN_LOG, "a") as handle:
            handle.write(json.dumps(entry, sort_keys=True, default=str) + "\n")

    def events(self) -> list[dict[str, Any]]:
        """The event lines of ``train_log.jsonl`` (see :meth:`note`), in order."""
        return [row for row in _read_lines(self.path / TRAIN_LOG) if "event" in row]

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


def prune_callback(folder: SolveFolder, keep: int = 2) -> Any:
    """A ``transformers`` ``TrainerCallback`` that keeps the newest ``keep`` complete
    checkpoints of ``folder`` after each save (the trainer's own ``save_total_limit`` warns,
    on some file systems, at every rotation), and writes none at the solve's last step."""
    from transformers import TrainerCallback

    class PruneCheckpoints(TrainerCallback):
        """Removes a solve folder's older checkpoints (and skips the one at the last step,
        which the finished solve would remove at once)."""

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
            if state.max_steps > 0 and state.global_step >= state.max_steps:
                control.should_save = False
            return control

        def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if not state.is_world_process_zero:
                return
            done = folder.checkpoints()
            for _, old in done[:-keep]:
                shutil.rmtree(old, ignore_errors=True)

    return PruneCheckpoints()


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


def _read_lines(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file, skipping lines cut short by a kill."""
    out = []
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            try:
                entry = json.loads(line)
            except ValueError:  # a line cut short by a kill
                continue
            if isinstance(entry, dict):
                out.append(entry)
    return out


def _read_rows(path: Path) -> list[dict[str, Any]]:
    rows: dict[int, dict[str, Any]] = {}
    for entry in _read_lines(path):
        if "loss" in entry and _number(entry.get("step")):
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


# ---------------------------------------------------------------------------- methods and slots
#: The method name of a protocol's shared warm start.
WARM_START = "warm start"


@dataclass
class SlotCurve:
    """The solves of one slot of one method, round by round: what ``training.png`` draws as
    one line.

    Attributes
    ----------
    method : str
        The method (``"warm start"``, ``"Uniform-w"``, ``"SURF"``, a run folder's label), or
        ``"solves"`` where the run folder does not say.
    slot : int
        The slot within the method, from 0.
    solves : list of SolveLog
        Its solves, first round first.
    """

    method: str
    slot: int
    solves: list[SolveLog]

    @property
    def weights(self) -> list[float]:
        """The weight of each round."""
        return [s.weight for s in self.solves]

    @property
    def label(self) -> str:
        """``"slot 3: w 0.30 -> 0.42 -> 0.45"`` (see :func:`weight_path`)."""
        return f"slot {self.slot}: {weight_path(self.weights)}"

    def series(self, metric: str) -> list[tuple[list[int], list[float]]]:
        """``(total_steps, values)`` of ``metric`` per round (rounds that logged it)."""
        out = []
        for solve in self.solves:
            xs, ys = solve.series(metric)
            if xs:
                out.append((xs, ys))
        return out


def weight_path(weights: Sequence[float], *, most: int = 8) -> str:
    """A slot's weights over its rounds as text: ``"w 0.30 -> 0.42 -> 0.45"``, a weight kept
    for several rounds in a row once with their count (``"w 0.50 (10 rounds)"``, ``"0.30 x3"``),
    and the middle of a path of more than ``most`` weights left out (``...``).

    Examples
    --------
    >>> from paretosurf.llm.training_log import weight_path
    >>> weight_path([0.3, 0.42, 0.45])
    'w 0.30 -> 0.42 -> 0.45'
    >>> weight_path([0.5] * 10), weight_path([0.6, 0.6, 0.55, 0.5])
    ('w 0.50 (10 rounds)', 'w 0.60 x2 -> 0.55 -> 0.50')
    >>> weight_path([i / 10 for i in range(11)])
    'w 0.00 -> 0.10 -> 0.20 -> ... -> 0.80 -> 0.90 -> 1.00'
    >>> weight_path([0.5, 0.4991, 0.4982])
    'w 0.500 -> 0.499 -> 0.498'
    >>> weight_path([])
    'w -'
    """
    # two decimals, three where two tell different weights apart no more
    digits = 2 if len({f"{w:.2f}" for w in weights}) == len({round(w, 9) for w in weights}) else 3
    runs: list[list[Any]] = []
    for w in weights:
        text = f"{w:.{digits}f}"
        if runs and runs[-1][0] == text:
            runs[-1][1] += 1
        else:
            runs.append([text, 1])
    if not runs:
        return "w -"
    if len(runs) == 1:
        text, n = runs[0]
        return f"w {text}" + (f" ({n} rounds)" if n > 1 else "")
    parts = [text + (f" x{n}" if n > 1 else "") for text, n in runs]
    if len(parts) > most:
        keep = max(most // 2 - 1, 1)
        parts = [*parts[:keep], "...", *parts[-keep:]]
    return "w " + " -> ".join(parts)


def _adapter_digest_of(folder: Path, cache: dict[Path, str | None]) -> str | None:
    """The digest of the adapter saved in ``folder`` (``None`` if it holds none)."""
    if folder not in cache:
        try:
            from paretosurf.llm.adapter_state import adapter_digest, load_adapter

            cache[folder] = adapter_digest(load_adapter(folder))
        except Exception:  # not an adapter folder (another solver's state), or unreadable
            cache[folder] = None
    return cache[folder]


def _slots(folder: Path) -> dict[int, Path]:
    """``slot-NN`` subfolders by slot."""
    out = {}
    for child in folder.glob("slot-*") if folder.is_dir() else ():
        with contextlib.suppress(ValueError):
            out[int(child.name.removeprefix("slot-"))] = child
    return out


def _json_file(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _method_sources(
    root: Path,
) -> list[tuple[str, dict[int, Path], dict[int, Path], dict[int, float]]]:
    """What a run folder says of its methods: ``(method, final states by slot, start states by
    slot, final weights by slot)`` for its warm start (``warm/epoch-NNN``), each method's final
    adapters
    (``adapters/METHOD/slot-NN``, as :func:`~paretosurf.llm.protocol.run_protocol` saves them,
    or the newest round of the states of a run folder ``DIR/run.json``, labelled as that run),
    and SURF's starts in a protocol run (``uniform-epoch-E/slot-NN``, the first kept epoch),
    in the methods' order (``results.json``'s, then the run folders' creation), with the
    final weights ``results.json`` gives."""
    found: list[tuple[str, dict[int, Path], dict[int, Path], dict[int, float]]] = []
    warm = sorted(p for p in (root / "warm").glob("epoch-*") if p.is_dir())
    if warm:
        found.append((WARM_START, {0: warm[-1]}, {}, {0: 0.5}))
    finals: dict[str, dict[int, Path]] = {}
    adapters = root / "adapters"
    for child in sorted(adapters.iterdir()) if adapters.is_dir() else ():
        if _slots(child):
            finals[child.name] = _slots(child)
    created: dict[str, str] = {}
    for child in sorted(root.iterdir()) if root.is_dir() else ():
        run = _json_file(child / "run.json") if child.is_dir() else {}
        if run.get("format") != "paretosurf":
            continue
        label = str(run.get("label") or run.get("method") or child.name)
        rounds = sorted(p for p in (child / "states").glob("round-*") if _slots(p))
        if rounds and label not in finals:
            finals[label] = _slots(rounds[-1])
            created[label] = str(run.get("created", ""))
    results = _json_file(root / "results.json").get("methods", {})
    order = list(results) if isinstance(results, dict) else []
    labels = [m for m in order if m in finals]
    labels += sorted((m for m in finals if m not in order), key=lambda m: (created.get(m, ""), m))
    kept = sorted(
        (p for p in root.glob("uniform-epoch-*") if (p / "done").exists()),
        key=lambda p: int(p.name.rsplit("-", 1)[1]) if p.name.rsplit("-", 1)[1].isdigit() else 0,
    )
    for label in labels:
        starts = _slots(kept[0]) if label == "SURF" and kept else {}
        weights = results.get(label, {}).get("weights") if label in order else None
        known = {k: float(w) for k, w in enumerate(weights or ()) if _number(w)}
        found.append((label, finals[label], starts, known))
    return found


def slot_curves(
    run_dir: str | os.PathLike[str], logs: Sequence[SolveLog] | None = None
) -> list[SlotCurve]:
    """The solves under ``run_dir`` as the slots of the run's methods, round by round.

    A solve's method and slot are read from the run folder: each method's final adapters
    (``adapters/METHOD/slot-NN`` of :func:`~paretosurf.llm.protocol.run_protocol`, or the
    newest states of a run folder of ``ps.surf``, ``ps.uniform``, ...) are followed back,
    solve by solve (each solve records the digest of its warm start and of the adapter it
    trained), to the method's start: the shared warm start (``warm/``, itself a method of
    one slot), SURF's starting adapters in a protocol run (Uniform-w's kept epoch, so that
    SURF's first round, reused from Uniform-w, counts as SURF's too), or a cold start. A slot
    whose solves all belong to a method drawn before it (SURF's endpoints, which are
    Uniform-w's; Soup's, which trains nothing) is left out. A solver ``workdir`` named
    ``work`` inside a run folder (``paretosurf llm``'s layout) is read with that run folder.
    Where nothing says which method a solve belongs to, the slots are the chains of
    :func:`read_training_logs`, under the method ``"solves"``.

    Parameters
    ----------
    run_dir : path
        A run folder, or a solver's ``workdir``.
    logs : sequence of SolveLog, optional
        ``read_training_logs(run_dir)``, when already read.

    Returns
    -------
    list of SlotCurve
        By method (in the run's order), then slot.

    Examples
    --------
    ::

        from paretosurf.llm.training_log import slot_curves
        for curve in slot_curves("runs/table2"):
            print(curve.method, curve.label)   # SURF slot 1: w 0.20 -> 0.31 -> ...
    """
    root = Path(run_dir)
    logs = list(read_training_logs(root) if logs is None else logs)
    sources = _method_sources(root)
    if not sources and root.name == "work":
        sources = _method_sources(root.parent)
    if not sources:
        chains: dict[int, list[SolveLog]] = {}
        for log in logs:
            chains.setdefault(log.slot, []).append(log)
        return [SlotCurve("solves", slot, chain) for slot, chain in sorted(chains.items())]
    by_digest: dict[str, list[SolveLog]] = {}
    for log in logs:
        if log.info.get("digest"):
            by_digest.setdefault(str(log.info["digest"]), []).append(log)
    cache: dict[Path, str | None] = {}
    curves: list[SlotCurve] = []
    drawn: set[Path] = set()
    warm_digests: set[str] = set()

    def pick(found: list[SolveLog], weight: float | None) -> SolveLog:
        """The solve that trained an adapter, of those that trained one equal to it (solves
        whose rewards did not tell their weights apart): at the weight expected, else one
        that no method drawn before has, else the first."""
        same = [s for s in found if weight is not None and abs(s.weight - weight) <= 1e-9]
        fresh = [s for s in found if s.folder not in drawn]
        return (same or fresh or found)[0]

    for method, finals, starts, weights in sources:
        mine: list[SlotCurve] = []
        for slot, folder in sorted(finals.items()):
            stop = set(warm_digests)
            if slot in starts:
                stop.add(_adapter_digest_of(starts[slot], cache) or "")
            chain: list[SolveLog] = []
            here = _adapter_digest_of(folder, cache)
            expected = weights.get(slot)
            while here and here not in stop and here in by_digest and len(chain) <= len(logs):
                chain.append(pick(by_digest[here], expected))
                here, expected = chain[-1].info.get("parent"), None
            chain.reverse()
            if chain and not all(s.folder in drawn for s in chain):
                mine.append(SlotCurve(method, slot, chain))
        curves.extend(mine)
        drawn.update(s.folder for c in mine for s in c.solves)
        if method == WARM_START:
            warm_digests = {str(s.info["digest"]) for c in mine for s in c.solves}
    return curves


# ---------------------------------------------------------------------------- plotting
#: Metrics plotted by default where logged, the rewards' own between the first and the rest.
DEFAULT_METRICS = ("reward", "kl", "loss")
_REWARD_METRIC = re.compile(r"^rewards/(.+)/mean$")


def default_metrics(logs: Sequence[SolveLog]) -> list[str]:
    """The metrics :func:`plot_training_curves` draws by default: ``reward``, each reward's
    mean (``rewards/<name>/mean``, in the order the solves name their rewards; logs written
    before the rewards kept their names have ``rewards/r1/mean`` and ``rewards/r2/mean``),
    ``kl`` and ``loss``, those that were logged."""
    logged = {key for log in logs for row in log.rows for key in row}
    order: list[str] = []
    for log in logs:
        for name in log.info.get("rewards") or ():
            if f"rewards/{name}/mean" not in order:
                order.append(f"rewards/{name}/mean")
    rewards = [m for m in order if m in logged]
    rewards += sorted(k for k in logged if _REWARD_METRIC.match(k) and k not in rewards)
    return [m for m in ("reward", *rewards, "kl", "loss") if m in logged]


def plot_training_curves(
    run_dir: str | os.PathLike[str],
    *,
    metrics: Sequence[str] | None = None,
    path: str | os.PathLike[str] | None = None,
    logs: Sequence[SolveLog] | None = None,
) -> Any:
    """Training curves of every solve under ``run_dir``, per method and slot: a row of panels
    per method (its name in each panel's title), a panel per metric, a line per slot, against
    the adapter's optimizer steps since its cold start (so that a slot's rounds follow one
    another; a dot starts a round), each slot labelled with its weight's path over the rounds
    (``slot 3: w 0.30 -> 0.42 -> 0.45``). Methods and slots are read as :func:`slot_curves`
    reads them.

    Parameters
    ----------
    run_dir : path
        A run folder, or a solver's ``workdir`` (searched recursively for solve folders).
    metrics : sequence of str, optional
        Log keys to plot (default: :func:`default_metrics`, ``reward``, each reward's
        ``rewards/<name>/mean``, ``kl`` and ``loss``).
    path : path, optional
        Also save the figure there (PNG unless the suffix says otherwise).
    logs : sequence of SolveLog, optional
        The solves to draw, when they are not under ``run_dir``: ``read_training_logs`` of the
        solver's ``workdir`` kept elsewhere (their methods are still read from ``run_dir``).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    FileNotFoundError
        If ``run_dir`` (or ``logs``) holds no training log.
    ValueError
        If none of ``metrics`` was logged.

    Examples
    --------
    ::

        from paretosurf.llm.training_log import plot_training_curves
        plot_training_curves("runs/table2", path="runs/table2/training.png")
    """
    if logs is None:
        logs = read_training_logs(run_dir)
    if not any(log.rows for log in logs):
        raise FileNotFoundError(f"{run_dir} holds no training log ({TRAIN_LOG} with logged steps)")
    logged = {key for log in logs for row in log.rows for key in row}
    if metrics is None:
        chosen = default_metrics(logs)
    else:
        if isinstance(metrics, str):
            raise TypeError("metrics must be a sequence of log keys, not a string")
        chosen = [str(m) for m in metrics]
        missing = [m for m in chosen if m not in logged]
        if missing:
            raise ValueError(f"metrics {missing} were never logged; logged keys: {sorted(logged)}")
    if not chosen:
        raise ValueError(
            f"none of reward, rewards/<name>/mean, kl, loss was logged; logged keys: "
            f"{sorted(logged)}"
        )
    curves = [c for c in slot_curves(run_dir, logs) if any(s.rows for s in c.solves)]
    methods = list(dict.fromkeys(c.method for c in curves))
    from matplotlib import colormaps

    from paretosurf.plotting import pyplot, save_figure

    plt = pyplot()
    cols = len(chosen)
    fig, axes = plt.subplots(
        len(methods), cols, figsize=(3.6 * cols + 2.6, 2.9 * len(methods)), squeeze=False
    )
    for row, method in zip(axes, methods, strict=True):
        mine = [c for c in curves if c.method == method]
        n_slots = 1 + max(c.slot for c in mine)
        cmap = colormaps["viridis" if n_slots > 10 else "tab10"]
        for ax, metric in zip(row, chosen, strict=True):
            for curve in mine:
                colour = cmap(curve.slot / max(n_slots - 1, 1) if n_slots > 10 else curve.slot % 10)
                for k, (xs, ys) in enumerate(curve.series(metric)):
                    ax.plot(xs, ys, color=colour, lw=1.0, label=curve.label if k == 0 else None)
                    ax.plot(xs[:1], ys[:1], "o", color=colour, ms=2.5)  # a round starts
            ax.set_title(f"{method}: {metric}", fontsize=9)
            ax.set_xlabel("optimizer steps of the adapter", fontsize=8)
            ax.tick_params(labelsize=7)
        handles, labels = [], []
        for ax in row:
            for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                if label not in labels:
                    handles.append(handle)
                    labels.append(label)
        if labels:
            row[-1].legend(
                handles,
                labels,
                loc="upper left",
                bbox_to_anchor=(1.02, 1.0),
                fontsize=7,
                title=method,
                title_fontsize=8,
                frameon=False,
            )
    drawn = len({s.folder for c in curves for s in c.solves})
    note = "" if drawn >= len(logs) else f"; {len(logs) - drawn} solves outside them not drawn"
    fig.suptitle(
        f"training curves: {len(curves)} slots of {', '.join(methods)} "
        f"({drawn} solves; a dot starts a round{note})",
        fontsize=10,
    )
    fig.tight_layout()
    if path is not None:
        save_figure(fig, Path(path))
    return fig
