"""Two objectives: the geometry of a front.

The arc-length CDF of a front (:class:`ArcLengthCDF`), Rule 1 of SURF
(:func:`weights_from_speed`, :func:`weights_from_front`), the pieces of a disconnected front
(:class:`Piece`) and the flat ends of a front.
"""

from paretosurf.curves._cdf import (
    ArcLengthCDF,
)
from paretosurf.curves._flat_ends import (
    EndReach,
    end_runs,
    update_reach,
    with_end_knots,
)
from paretosurf.curves._gaps import (
    JUMP_CROSSING_RATE,
    JUMP_FACTOR,
    JUMP_GAP,
    JUMP_NARROW,
    JUMP_NEAR,
    JUMP_RATE,
    JUMP_ROUNDS,
    RESOLVED_GAP,
    Jump,
    RoundLike,
    chord_lengths,
    find_jumps,
    jump_gaps,
    median_of,
)
from paretosurf.curves._pieces import (
    DUPLICATE_TOL,
    RAY_GAP,
    RAY_TOL,
    Piece,
    allocate,
    filled_chords,
    find_breaks,
    limit_end_weight,
    nondominated,
    piece_targets,
    pieces_from_breaks,
    ray_offsets,
    resolved_offsets,
)
from paretosurf.curves._rules import (
    CDFLike,
    PiecewiseChebyshev,
    SpeedCDF,
    speed_from_front,
    weights_from_front,
    weights_from_speed,
)

__all__ = [
    "DUPLICATE_TOL",
    "JUMP_CROSSING_RATE",
    "JUMP_FACTOR",
    "JUMP_GAP",
    "JUMP_NARROW",
    "JUMP_NEAR",
    "JUMP_RATE",
    "JUMP_ROUNDS",
    "RAY_GAP",
    "RAY_TOL",
    "RESOLVED_GAP",
    "ArcLengthCDF",
    "CDFLike",
    "EndReach",
    "Jump",
    "Piece",
    "PiecewiseChebyshev",
    "RoundLike",
    "SpeedCDF",
    "allocate",
    "chord_lengths",
    "end_runs",
    "filled_chords",
    "find_breaks",
    "find_jumps",
    "jump_gaps",
    "limit_end_weight",
    "median_of",
    "nondominated",
    "piece_targets",
    "pieces_from_breaks",
    "ray_offsets",
    "resolved_offsets",
    "speed_from_front",
    "update_reach",
    "weights_from_front",
    "weights_from_speed",
    "with_end_knots",
]
