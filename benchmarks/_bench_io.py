"""The options every benchmark shares, and the one rule for where benchmarks write.

Every ``benchmarks/bench_*.py`` takes

``--out DIR``
    The folder its outputs go to: ``report.txt`` (a copy of everything it printed) and the
    files it writes. Default: ``<system temp dir>/paretosurf-bench/<name>`` (see
    :func:`default_out`), never inside the source tree, so that running a command the docs
    name leaves the checkout as it was.
``--smoke``
    Tiny sizes, a few seconds: the benchmark's real code path end to end, outputs written;
    its figures mean nothing. ``tests/benchmarks/test_bench_smoke.py`` runs each one.
``--write-docs``
    (Only the benchmarks whose files the docs publish.) Write the published files into
    ``docs/results/...`` as well, as the docs say. Nothing else writes into the checkout, and
    ``--smoke`` refuses it.

``make bench`` runs every benchmark with ``--out bench-output/<name>``.
"""

from __future__ import annotations

import argparse
import atexit
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

#: The checkout's root and the folder of the published results.
ROOT = Path(__file__).resolve().parent.parent
DOCS_RESULTS = ROOT / "docs" / "results"


def default_out(name: str) -> Path:
    """The default output folder of benchmark ``name``: ``paretosurf-bench/<name>`` under the
    system's temporary folder (``TMPDIR``), outside the source tree."""
    return Path(tempfile.gettempdir()) / "paretosurf-bench" / name


def add_options(
    parser: argparse.ArgumentParser, name: str, *, docs: str | None = None, smoke: str = ""
) -> None:
    """Add ``--out``, ``--smoke`` and, for a benchmark that publishes ``docs/results/<docs>``,
    ``--write-docs`` to ``parser``; ``smoke`` says what the smoke mode runs."""
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help=f"output folder (default: {default_out(name)})",
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="tiny sizes, a few seconds: the code path end to end, figures meaningless"
        + (f" ({smoke})" if smoke else ""),
    )
    if docs is not None:
        parser.add_argument(
            "--write-docs",
            action="store_true",
            help=f"also write the published files into docs/results/{docs}",
        )
    parser.set_defaults(bench_name=name, bench_docs=docs)


def start(args: argparse.Namespace, parser: argparse.ArgumentParser | None = None) -> Path:
    """Check the shared options, create the output folder and copy what the benchmark prints
    from now on into its ``report.txt``; returns the folder."""
    if getattr(args, "write_docs", False) and args.smoke:
        message = "--smoke never writes the published files: drop --write-docs"
        if parser is not None:
            parser.error(message)
        raise SystemExit(message)
    out = Path(args.out) if args.out is not None else default_out(args.bench_name)
    out.mkdir(parents=True, exist_ok=True)
    args.out = out
    _tee(out / "report.txt")
    print(f"[{args.bench_name}] output folder {out}", flush=True)
    return out


def docs_dir(args: argparse.Namespace) -> Path | None:
    """``docs/results/<docs>`` with ``--write-docs``, else ``None``."""
    if not getattr(args, "write_docs", False):
        return None
    folder = DOCS_RESULTS / args.bench_docs
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def published(args: argparse.Namespace) -> list[Path]:
    """The folders the published files go to: ``--out``, and ``docs/results/<docs>`` with
    ``--write-docs``."""
    folder = docs_dir(args)
    return [args.out] if folder is None else [args.out, folder]


def spread(values: Sequence[float], decimals: int) -> str:
    """The mean of ``values`` (one per seed) to ``decimals`` decimals, with `` ± std`` (the
    standard deviation over the seeds, ``ddof=0`` as in ``paretosurf bench``'s tables, to two
    significant digits) where the seeds differ by more than the printed digits: where the std
    exceeds half a unit of the last printed digit."""
    arr = np.asarray(values, dtype=float)
    mean, std = float(np.mean(arr)), float(np.std(arr))
    text = f"{mean:.{decimals}f}"
    if std > 0.5 * 10.0**-decimals:
        text += f" ± {std:.2g}"
    return text


def torch_threads(n: int = 1) -> None:
    """One torch thread (the benchmarks' figures are measured so), if torch is installed."""
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(n)


class _Tee:
    """A text stream that writes to ``stream`` and to ``copy``."""

    def __init__(self, stream: TextIO, copy: TextIO) -> None:
        self.stream, self.copy = stream, copy

    def write(self, text: str) -> int:
        if not self.copy.closed:
            self.copy.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        if not self.copy.closed:
            self.copy.flush()
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def _tee(path: Path) -> None:
    """Copy ``sys.stdout`` into ``path`` from now on (replacing an earlier copy: a second
    benchmark run in the same process writes its own report)."""
    stream = sys.stdout
    if isinstance(stream, _Tee):
        stream.copy.close()
        stream = stream.stream
    copy = open(path, "w", buffering=1, encoding="utf-8")
    tee = _Tee(stream, copy)
    sys.stdout = tee
    atexit.register(_untee, tee)


def _untee(tee: _Tee) -> None:
    """Give ``sys.stdout`` its stream back and close the copy (at exit)."""
    if sys.stdout is tee:
        sys.stdout = tee.stream
    tee.copy.close()
