"""``paretosurf tell DIR SLOT --objectives F1 F2 ...``: record one solve's result in a study
(or a JSON-lines file of them with ``--file``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from paretosurf.cli._common import Command, UsageError
from paretosurf.cli._studies import _add_study_argument, _guarded, _message, _report
from paretosurf.cli._types import _int_at_least

__all__ = ["COMMAND"]

#: The keys a line of ``--file`` may have.
_LINE_KEYS = ("slot", "objectives", "failed", "state", "round", "info", "seconds")


def _configure_tell(parser: argparse.ArgumentParser) -> None:
    _add_study_argument(parser)
    parser.add_argument("slot", type=_int_at_least(0), nargs="?", metavar="SLOT")
    parser.add_argument(
        "--objectives", type=float, nargs="+", metavar="F", help="the objective values"
    )
    parser.add_argument(
        "--failed", metavar="MESSAGE", help="the solve failed (the run retries it by its rules)"
    )
    parser.add_argument(
        "--state",
        metavar="PATH",
        help="the slot's warm start for its next solve (a path, kept as given)",
    )
    parser.add_argument("--round", type=_int_at_least(0), metavar="R", help="checked")
    parser.add_argument("--info", metavar="JSON", help='diagnostics, e.g. {"steps": 100}')
    parser.add_argument("--seconds", type=float, metavar="S", help="the solve's wall time")
    parser.add_argument(
        "--file",
        metavar="FILE",
        help="tell each line of FILE (- for stdin), a JSON object with slot, objectives (or "
        "failed), and optionally state, round, info, seconds",
    )


def _tell_file(study: Any, source: str) -> int:
    from paretosurf.jobs import TellError

    text = sys.stdin.read() if source == "-" else Path(source).read_text()
    refused = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            if not isinstance(item, dict):
                raise ValueError("not a JSON object")
            unknown = sorted(set(item) - set(_LINE_KEYS))
            if unknown:
                raise ValueError(
                    f"unknown key(s) {', '.join(unknown)}; a line has {', '.join(_LINE_KEYS)}"
                )
            if "slot" not in item:
                raise ValueError("no slot")
            study.tell(
                item["slot"],
                item.get("objectives"),
                item.get("state"),
                round=item.get("round"),
                failed=item.get("failed"),
                info=item.get("info"),
                seconds=item.get("seconds"),
            )
        except (TellError, ValueError, TypeError) as exc:
            refused += 1
            print(f"paretosurf tell: {source}, line {number}: {_message(exc)}", file=sys.stderr)
    return 1 if refused else 0


def _run_tell(args: argparse.Namespace) -> int:
    from paretosurf.jobs import Study, TellError

    one = (args.slot, args.objectives, args.failed, args.state, args.round, args.info)
    if args.file is not None:
        if any(v is not None for v in one) or args.seconds is not None:
            raise UsageError("--file tells the results its lines hold: give no SLOT or options")
    elif args.slot is None:
        raise UsageError("give the SLOT to tell (or --file FILE)")
    elif (args.objectives is None) == (args.failed is None):
        raise UsageError("give --objectives F1 F2 ... or --failed MESSAGE (one of them)")

    def body() -> int:
        study = Study(args.dir)
        if args.file is not None:
            return _tell_file(study, args.file)
        try:
            info = None if args.info is None else json.loads(args.info)
        except ValueError as exc:
            raise UsageError(f"--info must be JSON: {exc}") from None
        try:
            study.tell(
                args.slot,
                args.objectives,
                args.state,
                round=args.round,
                failed=args.failed,
                info=info,
                seconds=args.seconds,
            )
        except TellError as exc:
            return _report("tell", exc)
        return 0

    return _guarded("tell", body)


COMMAND = Command(
    name="tell",
    help="record a solve's result in a study (or a file of them)",
    description=(
        "Record the result of the solve asked for SLOT (paretosurf ask DIR) in the study in "
        "DIR: its objective values, or --failed for a solve that failed, and the state its "
        "next solve starts from. Each result is written at once as a file of its own, so "
        "several processes may tell at the same time; a result told twice, for a slot not "
        "asked, or with the wrong number of objectives is refused (status 1)."
    ),
    configure=_configure_tell,
    run=_run_tell,
)
