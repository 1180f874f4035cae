"""``paretosurf status DIR``: where a study stands: the round asked, its slots told and
waiting, and the front so far."""

from __future__ import annotations

import argparse
import json

from paretosurf.cli._common import Command
from paretosurf.cli._studies import _add_study_argument, _guarded

__all__ = ["COMMAND"]


def _configure_status(parser: argparse.ArgumentParser) -> None:
    _add_study_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the status as one JSON object")


def _run_status(args: argparse.Namespace) -> int:
    from paretosurf.jobs import Study

    def body() -> int:
        status = Study(args.dir).status()
        print(json.dumps(status.to_json()) if args.json else str(status))
        return 0

    return _guarded("status", body)


COMMAND = Command(
    name="status",
    help="show a study's round, the slots told and the front so far",
    description=(
        "Show where the study in DIR stands, reading its folder (nothing runs): the round "
        "asked, the slots whose results are told and those still waiting, and the front "
        "after the last saved round (the result once the run has finished)."
    ),
    configure=_configure_status,
    run=_run_status,
)
