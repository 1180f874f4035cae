"""Findings about the inner solver and its scalarized problems, from what a run saw.

:func:`solver_findings` looks at a run's final points and history and at the ``info`` of the
last round's solves, and names causes that the geometry of the points alone does not tell:

- ``non_finite``: objective evaluations inside the solves returned NaN or inf
  (``Solution.info["non_finite"]``, which :func:`~paretosurf.adapters.from_scipy` and
  :func:`~paretosurf.adapters.from_torch` count): the solver stepped out of the objectives'
  domain, and its line searches and steps are not to be trusted there. Fatal when the
  reported points came from such solves.
- ``local_minima``: points that another slot's solution beats at their own weight under the
  solver's own scalarization round after round while they stay put
  (:func:`paretosurf.findings.local_minimum_slots`). :func:`~paretosurf.findings.diagnose`
  finds them for weighted sums (and for any scalarization it is told); here they are found
  for the Tchebycheff kinds and ASF from the solver's ideal point, where the diagnosis of
  the points did not. Points that a finding already explains (a solve that stopped short
  next to a gap, the ends of a jump, a solver stuck on one point, an end without a minimizer,
  a weakly Pareto-optimal end) are left to it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from paretosurf.findings._common import FloatArray
from paretosurf.findings._diagnose import diagnose
from paretosurf.findings._dominated import dominated_in_local_minima
from paretosurf.findings._finding import STRUCTURAL, Finding
from paretosurf.findings._local_minima import local_minima_finding, local_minimum_slots
from paretosurf.findings._spacing import (
    oscillating_finding,
    spacing_target,
    uneven_finding,
    unsettled_finding,
)
from paretosurf.solvers import users_solver

#: Findings whose slots the local-minima check leaves alone (they say why already).
_EXPLAINED = ("unconverged", "jump", "stuck", "no_minimizer", "endpoint", "constant", "reversed")


def solver_findings(
    weights: FloatArray,
    points: FloatArray,
    coords: FloatArray,
    *,
    history: Sequence[Any],
    infos: Sequence[Mapping[str, Any]],
    scalarization: str,
    ideal: FloatArray | None,
    aims_even: bool,
    found: Sequence[Finding] = (),
    scales: FloatArray | None = None,
) -> list[Finding]:
    """The findings about the solver.

    Parameters
    ----------
    weights, points, coords : ndarray
        The reported points: weights (P,) or (P, M), objectives (P, M), and the points in
        the run's coordinates.
    history : sequence of IterationRecord
        The run's rounds up to the reported one, oldest first.
    infos : sequence of dict
        The ``Solution.info`` of the last round's solves, one per slot (empty when the
        reported round is an earlier one).
    scalarization : str
        The solver's scalarization kind (``"linear"`` for weighted sums).
    ideal : ndarray or None
        The solver's ideal point, for scalarizations that use one.
    aims_even : bool
        Whether the method places its weights by the front (SURF).
    found : sequence of Finding
        What the checks of the points found already (not to be said twice).

    Returns
    -------
    list of Finding

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.findings import solver_findings
    >>> w = np.linspace(0, 1, 3)
    >>> pts = np.c_[1 - w, w]
    >>> infos = [{"non_finite": 0}, {"non_finite": 4}, {"non_finite": 0}]
    >>> [(f.kind, f.fatal, f.slots) for f in solver_findings(
    ...     w, pts, pts, history=[], infos=infos, scalarization="linear", ideal=None,
    ...     aims_even=True)]
    [('non_finite', True, (1,))]
    """
    weights = np.asarray(weights, dtype=np.float64)
    points = np.asarray(points, dtype=np.float64)
    if points.ndim != 2 or len(points) < 2 or points.shape[1] < 2:
        return []
    out: list[Finding] = []
    nan = _non_finite(weights, points, infos, found)
    if nan is not None:
        out.append(nan)
    if scalarization == "linear" or any(
        f.code in ("constant", "reversed", "stuck", "local_minima") for f in found
    ):
        # (weighted sums: the diagnosis of the points has looked already); stuck points say
        # nothing about optimality
        return out
    explained = {s for f in found if f.code in _EXPLAINED for s in f.slots}
    local = [
        i
        for i in local_minimum_slots(
            weights, points, history, scalarization=scalarization, ideal=ideal, scales=scales
        )
        if i not in explained
    ]
    if local:
        converged = [
            k
            for k, info in enumerate(infos)
            if len(infos) == len(points) and info.get("success") is True
        ]
        out.append(
            local_minima_finding(
                weights,
                points,
                local,
                scalarization=scalarization,
                ideal=ideal,
                scales=scales,
                history=history,
                converged=converged,
            )
        )
    return out


# ------------------------------------------------------------------ NaN inside the solves
def _count(info: Mapping[str, Any]) -> int:
    value = info.get("non_finite", 0)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return 0
    return int(value) if math.isfinite(float(value)) and value > 0 else 0


def _non_finite(
    weights: FloatArray,
    points: FloatArray,
    infos: Sequence[Mapping[str, Any]],
    found: Sequence[Finding],
) -> Finding | None:
    """The ``non_finite`` finding from the solves' ``info["non_finite"]`` counts."""
    counts = [_count(info) for info in infos]
    bad = [k for k, c in enumerate(counts) if c > 0]
    if not bad:
        return None
    total = sum(counts)
    p = len(points)
    aligned = len(infos) == p  # one solve per reported point, in slot order
    follow = [
        f.code
        for f in found
        if f.code
        in ("stuck", "collapsed", "noisy", "dominated", "unconverged", "jump", "local_minima")
    ]
    consequence = (
        f" (the {', '.join(follow)} finding{'s' if len(follow) > 1 else ''} may follow from it)"
        if follow
        else ""
    )
    guard = (
        "guard the objectives (keep a log's or a square root's argument in its domain, "
        "clip before exp, add a small epsilon to a log of 0) or bound the variables "
        "(from_scipy(..., bounds=...)) so that every point the solver tries is valid"
    )
    if aligned:
        where = ", ".join(f"{_weight(weights[k])} (slot {k})" for k in bad[:6])
        where += ", ..." if len(bad) > 6 else ""
        return Finding(
            "non_finite",
            f"{total} objective evaluation{'s' if total != 1 else ''} returned "
            f"NaN or inf inside the last round's solves at {where}: the solver stepped "
            "outside the objectives' domain, where its line searches fail or its steps "
            "follow a meaningless gradient, so the points these solves returned are not to "
            f"be trusted{consequence}",
            remedy=guard,
            slots=tuple(bad),
            summary=f"NaN/inf in {len(bad)} of {p} solves ({total} evaluations)",
        )
    return Finding(
        "non_finite",
        f"{total} objective evaluation{'s' if total != 1 else ''} returned NaN "
        f"or inf inside {len(bad)} of the last round's {len(infos)} solves: the solver stepped "
        "outside the objectives' domain there, where its line searches fail or its steps "
        f"follow a meaningless gradient{consequence}",
        fatal=False,
        remedy=guard,
        summary=f"NaN/inf in {len(bad)} of {len(infos)} solves of the last round",
    )


def _weight(w: FloatArray) -> str:
    if np.ndim(w) == 0:
        return f"w = {float(w):.4g}"
    return "w = (" + ", ".join(f"{float(v):.3g}" for v in np.ravel(w)) + ")"


def unsuccessful_finding(failed: Sequence[tuple[int, str]], n_points: int) -> list[Finding]:
    """The finding that solves of the last round reported failure (``info["success"]``):
    ``failed`` holds their slots and messages."""
    if not failed:
        return []
    slot, message = failed[0]
    said = f": slot {slot} says {message!r}" if message else f" (slot {slot})"
    return [
        Finding(
            "unsuccessful",
            f"{len(failed)} of the last round's {n_points} solves "
            f"report failure (info['success'] is False){said}; their points may be "
            "far from the optimum at their weights",
            remedy="check the solver's settings (more iterations, a looser "
            "tolerance; a smooth optimizer on a non-smooth objective fails so)",
            slots=tuple(s for s, _ in failed),
            summary=f"{len(failed)} of {n_points} solves reported failure",
        )
    ]


def ideal_beaten_finding(solver: Any) -> list[Finding]:
    """The finding that the run found points below the ideal point the user gave a
    Tchebycheff scalarization (the solver's ``ideal_beaten``: the objectives concerned)."""
    beaten = tuple(getattr(solver, "ideal_beaten", ()) or ())
    if not beaten or not getattr(solver, "ideal_given", False):
        return []
    which = " and ".join(f"objective {m + 1}" for m in beaten)
    return [
        Finding(
            "ideal",
            f"the run found points below the ideal point given to the solver in {which}: "
            "a Tchebycheff scalarization spaces and reaches the front only from an ideal point at "
            "or below every objective value, so its points are not what the weights ask for",
            remedy="let the solver estimate its ideal point (ideal=None), or give one below "
            "every objective value",
            summary=f"points below the given ideal in {which}",
        )
    ]


def revise(found: Sequence[Finding], new: Sequence[Finding]) -> list[Finding]:
    """``found`` revised by what ``new`` (what :func:`solver_findings` returned for them)
    shows to have another cause, so that no remedy beside it misses that cause: without a
    ``local_minima`` finding whose points all came from solves that met NaN or inf (those
    points stayed put because the solver's steps failed, not in a basin), and with the
    ``dominated`` findings whose points are all local minima the solver's scalarization found
    told so (their remedy, more steps or averaging, is what does not help there). The run
    reports ``[*revise(found, new), *new]``.

    Examples
    --------
    >>> from paretosurf.findings import Finding
    >>> from paretosurf.findings import revise
    >>> found = [Finding("local_minima", "...", slots=(2, 3)), Finding("uneven", "...")]
    >>> nan = Finding("non_finite", "...", slots=(1, 2, 3))
    >>> [f.kind for f in revise(found, [nan])]
    ['uneven']
    """
    nan = {s for f in new if f.code == "non_finite" and f.fatal for s in f.slots}
    local = {s for f in new if f.code == "local_minima" for s in f.slots}
    out = []
    for f in found:
        if f.code == "local_minima" and f.slots and set(f.slots) <= nan:
            continue
        if f.code == "dominated" and f.slots and set(f.slots) <= local:
            f = dominated_in_local_minima(f)
        out.append(f)
    return out


def declared_scalarization(solver: Any) -> tuple[str, FloatArray | None]:
    """The scalarization a solver says it minimizes and its ideal point: its ``scalarization``
    attribute's ``kind`` (a :class:`~paretosurf.adapters.Scalarization`, or a plain callable's
    attribute of that name) and its ``ideal`` (or the scalarization's); a solver that says
    nothing minimizes the weighted sum, as the paper's solvers do."""
    for obj in (solver, users_solver(solver)):
        sc = getattr(obj, "scalarization", None)
        kind = getattr(sc, "kind", sc)
        if isinstance(kind, str):
            ideal = getattr(obj, "ideal", None)
            if ideal is None:
                ideal = getattr(sc, "ideal", None)
            return kind, None if ideal is None else np.asarray(ideal, dtype=np.float64)
    return "linear", None


def declared_scales(solver: Any) -> FloatArray | None:
    """The units the solver's declared scalarization measures its objectives in (its
    ``scales``: :class:`~paretosurf.adapters.Scalarization`), or ``None``."""
    for obj in (solver, users_solver(solver)):
        scales = getattr(getattr(obj, "scalarization", None), "scales", None)
        if scales is not None:
            return np.asarray(scales, dtype=np.float64)
    return None


def diagnose_run(
    weights: FloatArray,
    points: FloatArray,
    coords: FloatArray,
    *,
    solver: Any,
    history: Sequence[Any],
    shown: int | None,
    normalize: str,
    moving_average: float | None,
    ordered: bool,
    aims_even: bool,
    method_findings: Callable[[], list[Finding]],
    infos: Sequence[Mapping[str, Any]],
    unsuccessful: Sequence[tuple[int, str]],
    target: float | None,
    stop_reason: str | None,
    convergence_change: Callable[[], float],
    settle_options: Mapping[str, Any],
    settle_share: Callable[[], float] | None = None,
    report: str | None = None,
) -> list[Finding]:
    """Every finding of a run's result: :func:`~paretosurf.findings.diagnose` of the
    reported points (``points`` and ``coords``: the moving averages where the run keeps
    them), the method's own findings (``method_findings``), :func:`solver_findings`, solves
    that reported failure (``unsuccessful``: their slots and messages), a given ideal point
    beaten, a spacing less even than ``target`` or swinging from round to round instead of
    settling (:func:`~paretosurf.findings.oscillating_finding`, which then takes the place
    of the ``uneven`` finding and its estimate of the rounds still needed), and weights still
    moving when the iterations ran out.

    ``history`` holds every round's record and ``shown`` the index of the reported round
    (``None``: the last, whose solves' ``infos`` and ``unsuccessful`` ones are then read);
    ``convergence_change``, ``settle_options`` and ``settle_share`` are the method's (see
    :func:`~paretosurf.findings.unsettled_finding`); ``report`` is the run's option of that
    name.
    """
    if not history:
        return []
    upto = history if shown is None else history[: shown + 1]
    # a jump shows in the history too (a slot whose point crosses a gap, round to round); a
    # point beaten at its own weight is unconverged only under weighted sums
    scalarization, ideal = declared_scalarization(solver)
    scales = declared_scales(solver)
    findings = diagnose(
        weights,
        points,
        coords,
        normalize=normalize,
        moving_average=moving_average,
        ordered=ordered,
        history=upto,
        weighted_sum=scalarization == "linear",
        aims_even=aims_even,
        scalarization=scalarization,
        ideal=ideal,
        scales=scales,
    )
    if not any(f.code in ("constant", "stuck") for f in findings):  # (no front)
        findings += method_findings()
    extra = solver_findings(
        weights,
        points,
        coords,
        history=upto,
        infos=infos if shown is None else [],
        scalarization=scalarization,
        ideal=ideal,
        aims_even=aims_even,
        scales=scales,
        found=findings,
    )
    findings = [*revise(findings, extra), *extra]
    if shown is None:
        findings += unsuccessful_finding(unsuccessful, len(weights))
    findings += ideal_beaten_finding(solver)
    surface = np.ndim(upto[-1].weights) == 2

    def uneven() -> Finding | None:
        return uneven_finding(
            upto[-1].gap_ratio,
            spacing_target(target, surface=surface),
            surface=surface,
            aims_even=aims_even,
            out_of_rounds=stop_reason == "iterations",
            ratios=[r.gap_ratio for r in upto],
            rounds=len(history),
        )

    if scalarization != "linear":
        ratio = upto[-1].gap_ratio
        # (points that coincide cover no piece evenly, whatever the gaps between the others)
        even = (
            math.isfinite(ratio)
            and not any(f.code == "collapsed" for f in findings)
            and uneven() is None
        )
        findings = pieces_jump(findings, getattr(upto[-1], "pieces", None), even)
    # a spacing that swings from round to round: no count of further rounds settles it
    # (noise or points off the front, named already, are the cause; their remedies average)
    swing = (
        oscillating_finding(
            [r.gap_ratio for r in history],
            upto[-1].gap_ratio,
            spacing_target(target, surface=surface),
            surface=surface,
            aims_even=aims_even,
            report=report,
            moving_average=moving_average,
        )
        if aims_even
        and not any(f.code in STRUCTURAL or f.code in ("noisy", "dominated") for f in findings)
        else None
    )
    if not any(f.code in STRUCTURAL for f in findings) and (swing is None or not swing.fatal):
        found = uneven()
        findings += [] if found is None else [found]
    findings += [] if swing is None else [swing]
    if (
        shown is None
        and stop_reason == "iterations"
        and weights.ndim == 1
        and not any(
            f.code in ("jump", "uneven", "no_minimizer", "stuck", "oscillating", "reversed")
            and (f.fatal or f.code != "jump")  # (a jump between covered pieces informs)
            for f in findings
        )
    ):
        findings += unsettled_finding(
            convergence_change(),
            len(weights),
            settle_options,
            share=settle_share() if settle_share is not None else math.nan,
        )
    return findings


def pieces_jump(
    findings: Sequence[Finding], pieces: Sequence[Any] | None, even: bool
) -> list[Finding]:
    """``findings`` told about the pieces the run identified (``pieces``: the reported
    round's :class:`~paretosurf.curves.Piece` records) when it covers each of them evenly
    (``even``: the spacing within the pieces, the record's gap ratio, which leaves out the
    gaps between pieces, is finite and meets the target).

    A ``jump`` whose gaps all lie between two pieces then becomes informational
    (``fatal=False``) and names the pieces; where no ``jump`` was found (the weights laid
    out by pieces leave no narrow weight interval across a gap), an informational ``jump``
    says that the front breaks into the pieces. Under weighted sums a gap may be a
    non-convex stretch that another scalarization reaches, so this is for a solver whose
    scalarization is not linear.

    Examples
    --------
    >>> from paretosurf.findings import Finding
    >>> from paretosurf.curves._pieces import Piece
    >>> jump = Finding("jump", "the front jumps between weights 0.4 and 0.41", slots=(3, 4))
    >>> pieces = [Piece(0, 3, 1.0, 4), Piece(4, 7, 1.0, 4)]
    >>> [f.fatal for f in pieces_jump([jump], pieces, True)]
    [False]
    >>> [f.fatal for f in pieces_jump([jump], pieces, False)]     # uneven within a piece
    [True]
    >>> [f.fatal for f in pieces_jump([jump], [Piece(0, 7, 2.0, 8)], True)]
    [True]
    >>> [(f.code, f.fatal, f.slots) for f in pieces_jump([], pieces, True)]
    [('jump', False, (3, 4))]
    >>> from paretosurf.surfaces._pieces import SurfacePiece
    >>> pieces_jump([], [SurfacePiece((0, 1), 1.0, 2), SurfacePiece((2,), 0.0, 1)], True)
    []
    """
    # (imported here: paretosurf.curves splits fronts by the jump criterion of this package)
    from paretosurf.curves import Piece

    out = list(findings)
    # (a surface's pieces, paretosurf.surfaces, group points that no weight order
    # strings together: the jump finding is about curves)
    if not pieces or len(pieces) < 2 or not even or not all(isinstance(p, Piece) for p in pieces):
        return out
    breaks = {int(p.last) for p in pieces[:-1]}
    at = [k for k, f in enumerate(out) if f.code == "jump"]
    if any(not f.slots or not set(f.slots[0::2]) <= breaks for f in (out[k] for k in at)):
        return out
    names = ", ".join(
        f"slots {p.first}-{p.last}" if p.last > p.first else f"slot {p.first}" for p in pieces
    )
    told = (
        f"the run identified the front's {len(pieces)} pieces ({names}; res.pieces) and "
        "spaces its points evenly within each of them"
    )
    summary = f"the front breaks into {len(pieces)} pieces, each evenly covered"
    for k in at:
        f = out[k]
        out[k] = replace(f, fatal=False, message=f"{f.message}. So {told}", summary=summary)
    if not at:
        out.append(
            Finding(
                "jump",
                f"the front breaks into {len(pieces)} pieces: {told}; no Pareto point lies "
                "between them (the solver's scalarization reaches none), and no spacing can "
                "close the gaps",
                fatal=False,
                remedy="none if the front is disconnected there; else check the solver's "
                "ideal point",
                slots=tuple(j for b in sorted(breaks) for j in (b, b + 1)),
                summary=summary,
            )
        )
    return out
