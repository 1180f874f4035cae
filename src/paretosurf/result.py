"""What every method returns: :class:`Result`, with one :class:`IterationRecord` per round.
``SurfResult``, its earlier name, still works with a :class:`DeprecationWarning`.

SURF and every baseline return the same result type, built by the driver
(:mod:`paretosurf.loop`) from the method's final points and the run's bookkeeping. A result
saves itself as a file pair (:meth:`Result.save`) and loads from such a pair or from a run's
checkpoint folder (:meth:`Result.load`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paretosurf import metrics
from paretosurf._utils.renamed import renamed_attributes
from paretosurf._utils.validation import ExistingFileError, check_flag
from paretosurf.curves import ArcLengthCDF, Piece
from paretosurf.findings import Finding, FrontEnds
from paretosurf.storage import (
    FORMAT,
    MANIFEST,
    RunFolder,
    decode_states,
    encode_states,
    pair_stem,
    read_pair,
    with_extension,
    write_pair,
)
from paretosurf.surfaces import SurfacePiece

__all__ = [
    "IterationRecord",
    "Result",
    "history_from_parts",
    "measures_nearest_neighbours",
]

FloatArray = NDArray[np.float64]

#: Scalar fields of an :class:`IterationRecord`, in the order they are saved.
_RECORD_SCALARS = (
    "iteration",
    "cv",
    "gap_ratio",
    "weight_change",
    "seconds",
    "solve_seconds",
    "n_solves",
    "n_steps",
)


def measures_nearest_neighbours(weights: Any) -> bool:
    """Whether records of points at ``weights`` measure nearest-neighbour distances (weight
    vectors of M >= 3 components: a surface) rather than the gaps between consecutive points
    (scalar weights, or weight vectors of two components: a curve); see
    :meth:`IterationRecord.from_points`."""
    shape = np.shape(weights)
    return len(shape) == 2 and shape[1] != 2


def _pair_paths(path: Path) -> tuple[Path | None, Path | None]:
    """The ``.json`` and ``.npz`` that ``Result.save(path)`` writes (None for a path
    without a name, such as ``.``)."""
    stem = pair_stem(path)
    if not stem.name:
        return None, None
    return with_extension(stem, ".json"), with_extension(stem, ".npz")


def _saved_result(json_path: Path) -> bool:
    """Whether ``json_path`` holds the metadata of a result :meth:`Result.save` wrote (the
    paretosurf format tag, and the name of its arrays file)."""
    try:
        meta = json.loads(json_path.read_text())
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    return isinstance(meta, dict) and meta.get("format") == FORMAT and "arrays" in meta


def _refuse_existing(json_path: Path, npz_path: Path) -> None:
    """Refuse to write a result pair over ``json_path`` or ``npz_path`` if either exists,
    saying whether they hold a saved result or files paretosurf did not write."""
    existing = [p for p in (json_path, npz_path) if p.exists() or p.is_symlink()]
    if not existing:
        return
    if json_path in existing and _saved_result(json_path):
        raise ExistingFileError(
            f"{json_path} holds a result saved there before; save() does not write over it: "
            "save under another name, or pass {overwrite} to replace it",
            overwrite=True,
        )
    one = len(existing) == 1
    raise ExistingFileError(
        f"{' and '.join(str(p) for p in existing)} {'exists' if one else 'exist'}, and "
        f"paretosurf did not write {'it' if one else 'them'} (not a saved result); save() "
        "never writes over files of yours: save under another name, or pass "
        f"{{overwrite}} to replace {'it' if one else 'them'}",
        overwrite=True,
    )


def _is_run_manifest(path: Path) -> bool:
    """Whether ``path`` is the ``run.json`` of a run folder (not a result saved as ``run``)."""
    if path.name != MANIFEST or not path.is_file():
        return False
    if not RunFolder(path.parent).holds_run():
        return False
    try:
        meta = json.loads(path.read_text())
    except (OSError, ValueError):
        return True  # not a saved result either: let the run folder report it
    return not (isinstance(meta, dict) and "arrays" in meta)  # saved results name their arrays


@dataclass
class IterationRecord:
    """What one round (outer iteration) of a run did.

    Attributes
    ----------
    iteration : int
        0-based round ``t``.
    weights : ndarray, shape (P,) or (P, M)
        Weights of the method's points after the round (SURF: the weights solved at,
        ``Phi_t^{-1}(n / N)``; OLS: the points accepted so far); weight vectors, one row per
        point, for the methods on the weight simplex (``surf_simplex`` and its baselines).
    points : ndarray, shape (P, M)
        Objective vectors at ``weights``.
    cv, gap_ratio : float
        Uniformity of ``points`` (see :mod:`paretosurf.metrics`), measured in the run's
        coordinates (its ``normalize`` option).
    weight_change : float
        ``max_n |w_n^{(t+1)} - w_n^{(t)}|``, how far the next round's weights move (``nan`` for
        methods whose slots do not persist, such as OLS and Soup); ``tol`` compares with it.
    seconds : float
        Wall time of the round; ``solve_seconds`` of it in the executor (the inner solves).
    n_solves : int
        Inner-solver calls made so far (cumulative); ``n_steps`` likewise for the solver steps
        reported in ``Solution.info["steps"]``.
    cdf : ArcLengthCDF or None
        SURF: ``Phi_{t+1}``, the CDF after this round's update. ``None`` for methods that do
        not estimate the arc-length CDF.
    cdf_estimate : ArcLengthCDF or None
        SURF: ``Phi~_t``, the chord-length CDF of this round's points, before damping.
    alpha : float
        SURF: the damping of this round's update, ``cdf = alpha * cdf_estimate + (1 - alpha) *
        previous cdf`` (``nan`` without an estimate; SURF-simplex: the mean over the
        simplex's edges, each with its own CDF). Files store the estimate and ``alpha``
        and rebuild ``cdf`` from the previous record, so that a record's size does not grow
        with the round number.
    ideal : ndarray or None
        For a solver with a moving ideal point (Tchebycheff scalarizations of
        :mod:`paretosurf.adapters`): the ideal after this round's points were observed, the
        one the next round solves with.
    evaluations : ndarray or None
        Objective evaluations each of the round's solves spent (in the order of
        ``weights``), as the solver reports them in ``Solution.info["objective_calls"]``
        (the adapters of :mod:`paretosurf.adapters`) or ``info["nfev"]``; ``None`` when
        a solve reports neither. :attr:`Result.n_evaluations` sums them over the run.
    pieces : list of Piece or None
        SURF on a front that breaks into pieces (:mod:`paretosurf.curves`): the pieces of this
        round's points, in weight order; ``cv`` and ``gap_ratio`` then measure the gaps
        within the pieces (the gaps between them hold no Pareto point). With three or more
        objectives (:func:`paretosurf.surf_simplex`), the :class:`~paretosurf.surfaces.
        SurfacePiece` groups of a surface that breaks into pieces (:mod:`paretosurf.
        surface_pieces`); ``cv`` and ``gap_ratio`` then measure each point's nearest
        neighbour within its piece (a piece of one point has none). ``None``: one piece.
    """

    iteration: int
    weights: FloatArray
    points: FloatArray
    cv: float
    gap_ratio: float
    weight_change: float
    seconds: float
    solve_seconds: float
    n_solves: int
    n_steps: int
    cdf: ArcLengthCDF | None = None
    cdf_estimate: ArcLengthCDF | None = None
    alpha: float = math.nan
    ideal: FloatArray | None = None
    evaluations: NDArray[np.int64] | None = None
    pieces: list[Piece | SurfacePiece] | None = None

    @classmethod
    def from_points(
        cls,
        iteration: int,
        weights: FloatArray,
        points: FloatArray,
        *,
        cdf: ArcLengthCDF | None = None,
        seconds: float,
        solve_seconds: float,
        n_solves: int,
        n_steps: int,
        weight_change: float = math.nan,
        cdf_estimate: ArcLengthCDF | None = None,
        alpha: float = math.nan,
        coords: FloatArray | None = None,
        ideal: FloatArray | None = None,
        evaluations: NDArray[np.int64] | None = None,
        pieces: Sequence[Piece | SurfacePiece] | None = None,
    ) -> IterationRecord:
        """A record whose CV and gap ratio are computed from ``points``, or from ``coords``,
        the points in the coordinates the run measures distances in.

        With scalar weights (shape (P,), in increasing order) and with weight vectors of two
        components (shape (P, 2), M = 2: the points lie on a curve) the two measure the gaps
        between consecutive points along the front, as :func:`paretosurf.surf`'s records do:
        ``cv`` is :func:`~paretosurf.metrics.cv_of_gaps` and ``gap_ratio`` is
        :func:`~paretosurf.metrics.gap_ratio_of_gaps` of the gaps, with weight vectors taken
        in the order of their first component (the weight on objective 1, the scalar weight
        of :func:`paretosurf.surf`; ties keep their order). With weight vectors of M >= 3
        components (points spread over a surface) they measure the nearest-neighbour
        distances instead: ``cv`` is :func:`~paretosurf.metrics.nn_cv` and ``gap_ratio`` is
        :func:`~paretosurf.metrics.nn_ratio` (largest over smallest). Both are ``nan`` for
        fewer than two points. The record keeps ``weights`` and ``points`` in the order
        given."""
        at = points if coords is None else coords
        usable = len(at) >= 2 and at.shape[-1] > 0
        if measures_nearest_neighbours(weights):
            surface = [p for p in pieces or () if isinstance(p, SurfacePiece)]
            if usable and len(surface) > 1:
                # the gaps between pieces are no spacing: each point's nearest neighbour
                # within its piece (a piece of one point has none)
                near = np.concatenate(
                    [np.empty(0)]
                    + [metrics.nn_distances(at[list(p.members)]) for p in surface if p.share > 1]
                )
                cv = metrics.cv_of_gaps(near) if near.size else math.nan
                ratio = metrics.gap_ratio_of_gaps(near) if near.size else math.nan
            else:
                cv = metrics.nn_cv(at) if usable else math.nan
                ratio = metrics.nn_ratio(at) if usable else math.nan
        else:
            if usable and np.ndim(weights) == 2 and len(weights) == len(at):
                at = at[np.argsort(np.asarray(weights)[:, 0], kind="stable")]
            gaps = metrics.segment_lengths(at) if usable else np.empty(0)
            curve = [p for p in pieces or () if isinstance(p, Piece)]
            if len(curve) > 1 and gaps.size == len(at) - 1:
                # the chords between pieces are no spacing (see IterationRecord.pieces)
                gaps = np.concatenate([gaps[p.first : p.last] for p in curve])
            cv = metrics.cv_of_gaps(gaps) if gaps.size else math.nan
            ratio = metrics.gap_ratio_of_gaps(gaps) if gaps.size else math.nan
        return cls(
            iteration,
            weights,
            points,
            cv,
            ratio,
            weight_change,
            seconds,
            solve_seconds,
            n_solves,
            n_steps,
            cdf,
            cdf_estimate,
            alpha,
            ideal,
            evaluations,
            None if pieces is None else list(pieces),
        )

    def scalars(self) -> dict[str, Any]:
        """The JSON-serialisable part of the record (everything but the arrays)."""
        out: dict[str, Any] = {key: getattr(self, key) for key in _RECORD_SCALARS}
        for key in ("cv", "gap_ratio", "weight_change", "seconds", "solve_seconds", "alpha"):
            out[key] = float(getattr(self, key))
        if self.pieces is not None:
            out["pieces"] = [p.to_dict() for p in self.pieces]
        return out

    def arrays(self) -> dict[str, FloatArray]:
        """The record's arrays: weights, points, and the Hermite data of the CDF estimate
        (SURF) or, for a CDF not built from an estimate, of the CDF itself."""
        out = {"weights": self.weights, "points": self.points}
        if self.ideal is not None:
            out["ideal"] = self.ideal
        if self.evaluations is not None:
            out["evaluations"] = self.evaluations.astype(np.float64)
        for prefix, cdf in (
            ("estimate", self.cdf_estimate),
            ("cdf", self.cdf if self.cdf_estimate is None else None),
        ):
            if cdf is not None:
                out.update(
                    {
                        f"{prefix}_knots": cdf.knots,
                        f"{prefix}_values": cdf.values,
                        f"{prefix}_slopes": cdf.slopes,
                    }
                )
        return out

    @classmethod
    def from_parts(
        cls,
        scalars: Mapping[str, Any],
        arrays: Mapping[str, NDArray[Any]],
        previous: ArcLengthCDF | None = None,
    ) -> IterationRecord:
        """Inverse of :meth:`scalars` and :meth:`arrays`; ``previous`` is the CDF of the
        previous record (the identity for the first), which a CDF estimate updates."""

        def read(prefix: str) -> ArcLengthCDF | None:
            if f"{prefix}_knots" not in arrays:
                return None
            return ArcLengthCDF(
                arrays[f"{prefix}_knots"], arrays[f"{prefix}_values"], arrays[f"{prefix}_slopes"]
            )

        alpha = float(scalars.get("alpha", math.nan))
        estimate = read("estimate")
        cdf = read("cdf")
        if estimate is not None:
            base = ArcLengthCDF.identity() if previous is None else previous
            cdf = base.mix(estimate, alpha)
        return cls(
            iteration=int(scalars["iteration"]),
            weights=np.asarray(arrays["weights"], dtype=np.float64),
            points=np.asarray(arrays["points"], dtype=np.float64),
            cv=float(scalars["cv"]),
            gap_ratio=float(scalars["gap_ratio"]),
            weight_change=float(scalars["weight_change"]),
            seconds=float(scalars["seconds"]),
            solve_seconds=float(scalars["solve_seconds"]),
            n_solves=int(scalars["n_solves"]),
            n_steps=int(scalars["n_steps"]),
            cdf=cdf,
            cdf_estimate=estimate,
            alpha=alpha,
            ideal=(np.asarray(arrays["ideal"], dtype=np.float64) if "ideal" in arrays else None),
            evaluations=(
                np.asarray(arrays["evaluations"]).astype(np.int64)
                if "evaluations" in arrays
                else None
            ),
            pieces=(
                [piece_from_dict(p) for p in scalars["pieces"]]
                if scalars.get("pieces") is not None
                else None
            ),
        )


def history_from_parts(
    parts: Sequence[tuple[Mapping[str, Any], Mapping[str, NDArray[Any]]]],
) -> list[IterationRecord]:
    """Records from their saved ``(scalars, arrays)``, in order, each CDF rebuilt from the
    previous one and the record's estimate (the same arithmetic as the run: bit for bit)."""
    records: list[IterationRecord] = []
    for scalars, arrays in parts:
        previous = records[-1].cdf if records else None
        records.append(IterationRecord.from_parts(scalars, arrays, previous))
    return records


class Result:
    """The outcome of :func:`paretosurf.surf` and of every baseline.

    Attributes
    ----------
    method : str
        The method that produced it (``"surf"``, ``"uniform"``, ``"random"``, ``"ols"``,
        ``"umod"``, ``"soup"``); ``label`` is its display name.
    settings : dict
        Every setting of the method (``n_segments``, ``alpha``, ``warm_start``, seed, options),
        as recorded in its checkpoint.
    weights : ndarray, shape (P,) or (P, M)
        Weights of the final solutions (weight vectors, one row per point, for the methods on
        the weight simplex), increasing, ``weights[0] == 0``, ``weights[-1] == 1``
        (``lo`` and ``hi`` with ``weight_bounds=(lo, hi)``; ``P = N + 1``, or fewer for OLS
        when the front has fewer supported vertices).
    points : ndarray, shape (P, M)
        Objective vectors of the final solutions (``(N+1, 0)`` if no round ran).
    states : list
        The final solver states (warm starts), one per point.
    cdf : ArcLengthCDF or None
        SURF: its estimate ``Phi_T`` of the arc-length CDF after the last update
        (``cdf.quantile_weights(N)`` are the weights a further round would use). ``None`` for
        the baselines, which do not estimate it. :attr:`extras` holds it with the other
        extras of the method.
    history : list of IterationRecord
        One record per round.
    n_solves : int
        Inner-solver calls made; ``n_steps`` sums the solvers' reported steps.
    n_evaluations : int or None
        Objective evaluations the solves reported (the sum of the records' ``evaluations``
        and those of the end solves before the first round, :attr:`front_ends`; ``None``
        when a solve reports none).
    converged : bool
        Whether the run stopped on ``tol`` (SURF, UMOD) or because the method found nothing
        left to improve (OLS: the convex coverage set is complete).
    stop_reason : str
        Why the run ended: ``"iterations"`` (the round limit), ``"converged"``, ``"done"``
        (``early_stopping``: the points met the target and the weights settled),
        ``"one_point"`` (``early_stopping``: every slot returned one and the same point for
        :data:`~paretosurf.loop._driver.ONE_POINT_ROUNDS` rounds in a row), ``"stuck"``
        (``early_stopping``: no point changed for :data:`~paretosurf.loop._driver.STUCK_STOP_ROUNDS`
        rounds while the weights moved, and some point is beaten at its own weight),
        ``"method"`` (the method finished, e.g. Soup after its endpoint solves),
        ``"callback"``, or ``"not started"``.
    success : bool
        Whether the points are what was asked for: none of the problems
        :func:`paretosurf.findings.diagnose` checks for (dominated or collapsed points, a
        weakly Pareto-optimal endpoint, a jump that weighted sums cannot cross, noisy
        estimates, constant objectives) was found. Each problem is also raised as a
        :class:`~paretosurf.ParetoWarning` when the run ends.
    message : str
        A summary: the method, the number of points, CV and gap ratio, and every problem found
        with its remedy.
    findings : list of Finding
        The problems found, each a :class:`~paretosurf.findings.Finding` (``code``,
        ``message``, ``fatal``, ``remedy``, ``slots``).
    pieces : list of Piece, list of SurfacePiece, or None
        SURF on a front that breaks into pieces: the pieces of the reported points (each
        with its ``first`` and ``last`` slot, arc ``length`` and ``share`` of the points),
        in weight order; ``None`` when the front is one piece (see :mod:`paretosurf.curves`).
        With three or more objectives, the groups of points of a surface that breaks into
        pieces (:class:`~paretosurf.surfaces.SurfacePiece`: ``members``, ``extent``,
        ``share``; see :mod:`paretosurf.surfaces`).
    reported_round : int or None
        The index in ``history`` of the round whose weights, points and states the result
        holds, when it is not the last one (:func:`paretosurf.surf_simplex` reports the most
        even of its last rounds); ``None``: the last round. ``cv`` and ``gap_ratio`` are that
        round's.

    Examples
    --------
    >>> import paretosurf as ps
    >>> res = ps.surf(lambda w, s: ps.Solution([(1 - w) ** 2, w ** 2]), 4, iterations=5,
    ...               early_stopping=False)
    >>> res.points.shape, len(res.history), res.n_solves, res.method
    ((5, 2), 5, 25, 'surf')
    >>> bool(res.history[-1].cv <= res.history[0].cv)
    True
    """

    def __init__(
        self,
        *,
        method: str,
        label: str,
        settings: Mapping[str, Any],
        weights: FloatArray,
        points: FloatArray,
        states: list[Any],
        cdf: ArcLengthCDF | None = None,
        history: list[IterationRecord],
        n_solves: int,
        n_steps: int,
        converged: bool,
        stop_reason: str,
        success: bool = True,
        message: str = "",
        findings: Sequence[Finding] = (),
        reported_round: int | None = None,
        pieces: Sequence[Piece | SurfacePiece] | None = None,
        front_ends: FrontEnds | None = None,
    ) -> None:
        self.method = method
        self.label = label
        self.settings = dict(settings)
        self.weights = weights
        self.points = points
        self.states = states
        self.cdf = cdf
        self.history = history
        self.n_solves = n_solves
        self.n_steps = n_steps
        self.converged = converged
        self.stop_reason = stop_reason
        self.success = success
        self.message = message
        self.findings = list(findings)
        self.reported_round = reported_round
        self.pieces = None if pieces is None else list(pieces)
        #: The front's ends the run found before its first round (two objectives: see
        #: :mod:`paretosurf.findings`), or ``None``.
        self.front_ends = front_ends

    @property
    def n_segments(self) -> int:
        """Number of segments between the final points (``len(weights) - 1``)."""
        return len(self.weights) - 1

    @property
    def alpha(self) -> float:
        """SURF's damping factor (``nan`` for methods that do not damp; with
        ``alpha="auto"`` the last round's, each round's is ``history[t].alpha``)."""
        value = self.settings.get("alpha", math.nan)
        if isinstance(value, str):
            return self.history[-1].alpha if self.history else math.nan
        return float(value)

    @property
    def extras(self) -> dict[str, Any]:
        """What the method adds to the results every method gives, by name: for SURF and
        SURF-simplex ``"cdf"`` (:attr:`cdf`, the estimate a further round would use) and
        ``"alpha"`` (:attr:`alpha`, the damping); empty for the baselines, which estimate no
        CDF and do not damp.

        Examples
        --------
        >>> import paretosurf as ps
        >>> solver = lambda w, s: ps.Solution([(1 - w) ** 2, w ** 2])
        >>> sorted(ps.surf(solver, 4, iterations=2).extras)
        ['alpha', 'cdf']
        >>> ps.methods.uniform(solver, 4, iterations=1).extras
        {}
        """
        out: dict[str, Any] = {}
        if self.cdf is not None:
            out["cdf"] = self.cdf
        if "alpha" in self.settings:
            out["alpha"] = self.alpha
        return out

    @property
    def n_evaluations(self) -> int | None:
        """Objective evaluations over the run (see :attr:`IterationRecord.evaluations`)."""
        if not self.history or any(r.evaluations is None for r in self.history):
            return None
        ends = 0 if self.front_ends is None else self.front_ends.evaluations
        if ends < 0:
            return None
        return ends + int(
            sum(int(np.sum(r.evaluations)) for r in self.history if r.evaluations is not None)
        )

    @property
    def cv(self) -> float:
        """CV of the result's points (``nan`` if no round ran)."""
        return self._reported().cv if self.history else math.nan

    @property
    def gap_ratio(self) -> float:
        """Gap ratio of the result's points (``nan`` if no round ran)."""
        return self._reported().gap_ratio if self.history else math.nan

    def _reported(self) -> IterationRecord:
        """The record of the round the result reports (see ``reported_round``)."""
        return self.history[-1 if self.reported_round is None else self.reported_round]

    # ------------------------------------------------------------------ files
    def to_parts(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        """The result as JSON-able metadata and named arrays (solver states as
        :func:`paretosurf.storage.encode_states` stores them)."""
        meta, arrays = self.summary_parts()
        meta["history"] = [r.scalars() for r in self.history]
        states_meta, states_arrays = encode_states(
            {str(i): s for i, s in enumerate(self.states)}, prefix="states"
        )
        meta["states"] = states_meta
        arrays.update(states_arrays)
        for i, record in enumerate(self.history):
            arrays.update({f"record{i}_{k}": v for k, v in record.arrays().items()})
        return meta, arrays

    def summary_parts(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        """:meth:`to_parts` without the history and the solver states (which a checkpoint
        stores on their own)."""
        meta: dict[str, Any] = {
            "kind": "result",
            "method": self.method,
            "label": self.label,
            "settings": self.settings,
            "n_solves": self.n_solves,
            "n_steps": self.n_steps,
            "converged": self.converged,
            "stop_reason": self.stop_reason,
            "success": self.success,
            "message": self.message,
            "findings": [f.to_dict() for f in self.findings],
            "cdf": self._cdf_entry(),
            "reported_round": self.reported_round,
        }
        if self.pieces is not None:
            meta["pieces"] = [p.to_dict() for p in self.pieces]
        if self.front_ends is not None:
            meta["front_ends"] = self.front_ends.to_json()
        return meta, {"weights": self.weights, "points": self.points}

    def _cdf_entry(self) -> Any:
        return view_extras({"cdf": self.cdf}, self.history)["cdf"]

    @classmethod
    def from_parts(
        cls,
        meta: Mapping[str, Any],
        arrays: Mapping[str, NDArray[Any]],
        *,
        history: list[IterationRecord] | None = None,
        states: list[Any] | None = None,
        allow_pickle: bool = False,
    ) -> Result:
        """Inverse of :meth:`to_parts`; ``history`` and ``states``, when given, replace the
        records and states stored in ``meta`` and ``arrays``. ``allow_pickle`` (``True`` or
        ``False`` only) lets pickled states be unpickled, which runs code."""
        allow_pickle = check_flag(allow_pickle, name="allow_pickle")
        if states is None:
            decoded = decode_states(
                meta["states"], arrays, allow_pickle=allow_pickle, where="the result file"
            )
            states = [decoded[str(i)] for i in range(len(decoded))]
        if history is None:
            parts = []
            for i, scalars in enumerate(meta["history"]):
                prefix = f"record{i}_"
                parts.append(
                    (
                        scalars,
                        {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)},
                    )
                )
            history = history_from_parts(parts)
        cdf: ArcLengthCDF | None = None
        if meta.get("cdf") == "last record":
            cdf = history[-1].cdf
        elif meta.get("cdf") is not None:
            cdf = ArcLengthCDF.from_dict(meta["cdf"])
        return cls(
            method=str(meta["method"]),
            label=str(meta.get("label", meta["method"])),
            settings=meta.get("settings", {}),
            weights=np.asarray(arrays["weights"], dtype=np.float64),
            points=np.asarray(arrays["points"], dtype=np.float64),
            states=states,
            cdf=cdf,
            history=history,
            n_solves=int(meta["n_solves"]),
            n_steps=int(meta["n_steps"]),
            converged=bool(meta["converged"]),
            stop_reason=str(meta.get("stop_reason", "iterations")),
            success=bool(meta.get("success", True)),
            message=str(meta.get("message", "")),
            findings=[Finding.from_dict(f) for f in meta.get("findings", [])],
            reported_round=meta.get("reported_round"),
            pieces=(
                [piece_from_dict(p) for p in meta["pieces"]]
                if meta.get("pieces") is not None
                else None
            ),
            front_ends=(
                FrontEnds.from_json(meta["front_ends"])
                if meta.get("front_ends") is not None
                else None
            ),
        )

    def save(self, path: str | Path, *, overwrite: bool = False) -> tuple[Path, Path]:
        """Write the result as ``<path>.json`` (method, settings, history, CDF) and
        ``<path>.npz`` (arrays and the pickled solver states). Returns the two paths.

        A ``.json`` or ``.npz`` ending of ``path`` is dropped first (``save("r.json")`` writes
        ``r.json`` and ``r.npz``). The files go beside a folder of the same name, never into
        it: ``save("e")`` writes ``e.json`` and ``e.npz`` even when ``e/`` is a run folder
        (:meth:`load` then asks which of the two to read).

        No file is written over unless ``overwrite=True``: neither a file of yours that
        happens to have one of the two names (``report.json``, say) nor a result saved
        there before, which would be lost as surely. With ``overwrite=True`` both files are
        replaced, whatever they hold. The ``run.json`` of a run folder is never written over.

        Parameters
        ----------
        path : str or path
            Where to save, without or with the ``.json`` or ``.npz`` ending.
        overwrite : bool
            Replace ``<path>.json`` and ``<path>.npz`` if they exist (``True`` or ``False``
            only).

        Raises
        ------
        FileExistsError
            If ``<path>.json`` or ``<path>.npz`` exists and ``overwrite`` is False; the
            message says whether they hold a result saved by paretosurf or are files it did
            not write.
        ValueError
            If ``<path>.json`` would overwrite the ``run.json`` of a run folder.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> import paretosurf as ps
        >>> res = ps.methods.uniform(lambda w, s: ps.Solution([1 - w, w]), 4, iterations=1)
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     report = pathlib.Path(tmp) / "report"
        ...     _ = pathlib.Path(f"{report}.json").write_text("{}")   # a file of yours
        ...     try:
        ...         res.save(report)
        ...     except FileExistsError:
        ...         print("refused")
        ...     paths = res.save(report, overwrite=True)              # replaced: you said so
        ...     names = [p.name for p in paths]
        refused
        >>> names
        ['report.json', 'report.npz']
        """
        overwrite = check_flag(overwrite, name="overwrite")
        json_path, npz_path = _pair_paths(Path(path))
        if json_path is not None and _is_run_manifest(json_path):
            raise ValueError(
                f"saving to {path} would overwrite {json_path}, the manifest of the run in "
                f"{json_path.parent}; save the result under another name"
            )
        if not overwrite and json_path is not None and npz_path is not None:
            _refuse_existing(json_path, npz_path)
        meta, arrays = self.to_parts()
        return write_pair(path, meta, arrays)

    @classmethod
    def load(cls, path: str | Path, *, allow_pickle: bool = False) -> Result:
        """Read a result written by :meth:`save`, or the latest state of a run's checkpoint
        folder.

        ``path`` may name:

        - ``<stem>.json`` or ``<stem>.npz``: always the result :meth:`save` wrote there;
        - ``<folder>/run.json``: always the run in ``<folder>`` (its manifest file);
        - ``<stem>`` without those endings: the run folder ``<stem>/`` if it holds a run,
          the result saved by ``save(<stem>)`` (``<stem>.json`` and ``<stem>.npz``) if
          there is one. If both exist, ``path`` is ambiguous and refused: pass
          ``<stem>.json`` for the saved result or ``<stem>/run.json`` for the run.

        A folder ``<stem>/`` that holds no run (an output folder, say) does not hide the
        result saved beside it as ``<stem>.json``. The output folder of ``paretosurf run``
        or ``paretosurf bench`` (``results.json``, ``table.md``, figures) holds tables, not a
        result: ``paretosurf run --checkpoint DIR`` makes ``DIR`` a run folder this reads.

        Solver states are stored without pickle where possible (arrays, dataclasses of
        arrays, numbers; folders for solvers with ``save_state``). States only pickle could
        store need ``allow_pickle=True``: unpickling runs code, so only for files you trust.
        ``allow_pickle`` takes ``True`` or ``False`` only: a string such as ``"False"`` (from
        a config file) is refused, not read as true.

        Raises
        ------
        TypeError
            If ``allow_pickle`` is not ``True`` or ``False``.
        FileNotFoundError
            If there is no such result file or folder (the message names what was looked
            for).
        ValueError
            If ``path`` names both a run folder and a saved result (see above).
        paretosurf.storage.CheckpointError
            If the files are corrupt, truncated or of another format, or ``path`` is a folder
            that holds no run and has no saved result beside it.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> import paretosurf as ps
        >>> solver = lambda w, s: ps.Solution([1 - w, w ** 2])
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     e = pathlib.Path(tmp) / "e"
        ...     run = ps.surf(solver, 4, iterations=2, checkpoint=e)     # the run folder e/
        ...     _ = ps.methods.uniform(solver, 4, iterations=1).save(e)  # e.json, e.npz
        ...     methods = (ps.Result.load(e / "run.json").method,
        ...                ps.Result.load(f"{e}.json").method)
        >>> methods
        ('surf', 'uniform')
        """
        allow_pickle = check_flag(allow_pickle, name="allow_pickle")
        p = Path(path)
        if p.is_dir():
            json_path, npz_path = _pair_paths(p)
            saved = json_path is not None and json_path.is_file()
            if RunFolder(p).holds_run():
                if saved:
                    raise ValueError(
                        f"{path} is ambiguous: {p} is a run folder holding "
                        f"{RunFolder(p).describe()}, and {json_path} and {npz_path} hold a "
                        f"result saved by Result.save({str(path)!r}); pass "
                        f"{str(json_path)!r} to load the saved result, or "
                        f"{str(p / MANIFEST)!r} to load the run"
                    )
                return cls._load_run(p, allow_pickle=allow_pickle)
            if not saved or json_path is None:
                from paretosurf.storage import CheckpointError

                beside = (
                    "" if json_path is None else f" and no result saved beside it as {json_path}"
                )
                if (p / "results.json").is_file():
                    raise CheckpointError(
                        f"{p} holds no run{beside}: its results.json is the table data "
                        "written by paretosurf run or bench, not a result Result.load "
                        "reads; run `paretosurf run ... --checkpoint DIR` to get a run folder "
                        "it reads, or save a result with Result.save"
                    )
                raise CheckpointError(f"{p} holds no run (no {MANIFEST}){beside}")
            p = json_path
        elif _is_run_manifest(p):
            return cls._load_run(p.parent, allow_pickle=allow_pickle)
        else:
            json_path, _ = _pair_paths(p)
            if json_path is not None and not json_path.exists():
                if p.suffix in (".json", ".npz"):
                    raise FileNotFoundError(
                        f"no saved result at {path}"
                        + ("" if p == json_path else f" (no {json_path} beside it)")
                    )
                what = (
                    f"{p} is a file, not a run folder," if p.exists() else f"there is no folder {p}"
                )
                raise FileNotFoundError(
                    f"no run folder or saved result at {path}: {what} and "
                    f"there is no file {json_path}"
                )
        meta, arrays = read_pair(p)
        return cls.from_parts(meta, arrays, allow_pickle=allow_pickle)

    @classmethod
    def _load_run(cls, folder: Path, *, allow_pickle: bool) -> Result:
        """The latest state of the run in ``folder`` as a result."""
        saved = RunFolder(folder).load()
        history = history_from_parts(saved.records)
        pool = decode_states(
            saved.meta["pool"]["states"],
            saved.arrays,
            root=folder,
            allow_pickle=allow_pickle,
            where=f"checkpoint {folder}",
        )
        view = saved.meta["result"]
        return cls.from_parts(
            view,
            saved.arrays,
            history=history,
            states=[None if k is None else pool[str(k)] for k in view["state_keys"]],
        )

    def __repr__(self) -> str:
        return (
            f"Result(method={self.method!r}, n_segments={self.n_segments}, "
            f"rounds={len(self.history)}, cv={self.cv:.4g}, gap_ratio={self.gap_ratio:.4g}, "
            f"n_solves={self.n_solves}, success={self.success})"
        )


#: ``SurfResult``: the earlier name of :class:`Result` (the same class), with a warning.
__getattr__ = renamed_attributes(__name__, {"SurfResult": ("Result", lambda: Result)})


def piece_from_dict(data: Mapping[str, Any]) -> Piece | SurfacePiece:
    """A piece of a curve (:class:`~paretosurf.curves.Piece`) or of a surface
    (:class:`~paretosurf.surfaces.SurfacePiece`) from its ``to_dict`` form."""
    if "members" in data:
        return SurfacePiece.from_dict(data)
    return Piece.from_dict(data)


def view_extras(extras: Mapping[str, Any], history: Sequence[IterationRecord]) -> dict[str, Any]:
    """The result file's entries of a method's result extras
    (:meth:`paretosurf.loop.Method.result_extras`): its CDF (``None`` without one) as
    ``"last record"`` when the history's last record holds it (rebuilt from the history,
    which stores it compactly), else as a dict."""
    cdf = extras.get("cdf")
    if cdf is None:
        return {"cdf": None}
    if history and cdf == history[-1].cdf:
        return {"cdf": "last record"}
    return {"cdf": cdf.to_dict()}
