"""``paretosurf ask DIR``: the solves a study's run waits for, one line each (JSON lines, or
tab-separated ``slot weight state`` for shell loops); with ``--method`` and ``--n-points`` it
starts the study first."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from paretosurf.cli._common import Command, UsageError
from paretosurf.cli._studies import _add_study_argument, _guarded, _json_or_text
from paretosurf.cli._types import _int_at_least

__all__ = ["COMMAND"]


def _setting(text: str) -> tuple[str, Any]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"must be NAME=VALUE (alpha=0.5), got {text!r}")
    return name.strip().replace("-", "_"), _json_or_text(value)


_setting.__name__ = "NAME=VALUE"


def _configure_ask(parser: argparse.ArgumentParser) -> None:
    from paretosurf.methods import method_names

    _add_study_argument(parser)
    start = parser.add_argument_group(
        "starting a study", "in a folder that holds none (an existing study keeps its own)"
    )
    start.add_argument(
        "--method",
        choices=method_names(),
        default=None,
        metavar="NAME",
        help=f"the method: {', '.join(method_names())}",
    )
    start.add_argument(
        "--n-points", type=_int_at_least(2), default=None, metavar="N", help="the points"
    )
    start.add_argument(
        "--n-objectives",
        type=_int_at_least(2),
        default=None,
        metavar="M",
        help="objectives, for the methods on the weight simplex (surf_simplex, ...)",
    )
    start.add_argument(
        "--iterations",
        type=_int_at_least(0),
        default=None,
        metavar="K",
        help="the most rounds (default: the method's)",
    )
    start.add_argument(
        "--set",
        type=_setting,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="any other argument of the method or loop option, VALUE as JSON "
        "(--set alpha=0.5 --set weight_bounds=auto --set seed=3)",
    )
    parser.add_argument(
        "--format",
        choices=("jsonl", "tsv"),
        default="jsonl",
        help="jsonl (default): one JSON object per task (phase, round, ask, slot, weight, "
        "state); tsv: SLOT<TAB>WEIGHT<TAB>STATE per task (a weight vector comma-separated, "
        "no state: -)",
    )
    parser.add_argument(
        "--retry-round",
        action="store_true",
        help="set the results told for the round asked aside and ask it again from its start "
        "(after solves told failed beyond the run's retries)",
    )


def _tsv(task: Any) -> str:
    data = task.to_json()
    weight = data["weight"]
    shown = ",".join(map(repr, weight)) if isinstance(weight, list) else repr(weight)
    state = data["state"]
    if state is None:
        state = "-"
    elif not isinstance(state, str):
        state = json.dumps(state)
    return f"{task.slot}\t{shown}\t{state}"


def _run_ask(args: argparse.Namespace) -> int:
    from paretosurf.jobs import Study

    def body() -> int:
        start: dict[str, Any] = dict(args.set)
        for name in ("n_objectives", "iterations"):
            if getattr(args, name) is not None:
                start[name] = getattr(args, name)
        if args.method is None and (start or args.n_points is not None):
            raise UsageError("--n-points, --n-objectives, --iterations and --set need --method")
        if args.method is not None:
            study = Study(args.dir, args.method, args.n_points, **start)
        else:
            study = Study(args.dir)
        if args.retry_round:
            moved = study.retry_round()
            if moved is not None:
                print(f"paretosurf ask: the told results set aside in {moved}", file=sys.stderr)
        tasks = study.ask()
        for task in tasks:
            print(json.dumps(task.to_json()) if args.format == "jsonl" else _tsv(task))
        if not tasks:
            print(
                f"paretosurf ask: the run in {args.dir} has finished; paretosurf status "
                f"{args.dir} shows its result",
                file=sys.stderr,
            )
        return 0

    return _guarded("ask", body)


COMMAND = Command(
    name="ask",
    help="print the solves a study's run waits for (start it with --method)",
    description=(
        "Print the solves the run in DIR waits for, one per line: its slot, the weight to "
        "solve at and the warm start (the state told with the slot's last result). The run "
        "goes on first as far as the results told allow (a round whose results are all told "
        "is completed and saved). Nothing is printed once the run has finished. In a folder "
        "that holds no study, --method and --n-points start one."
    ),
    configure=_configure_ask,
    run=_run_ask,
)
