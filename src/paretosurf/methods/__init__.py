"""The methods: SURF, SURF on the simplex, and every baseline, with their registry.

:func:`surf` (two objectives) and :func:`surf_simplex` (three or more) are the library's own
methods; :func:`uniform`, :func:`uniform_random`, :func:`ols`, :func:`umod`, :func:`soup`,
:func:`das_dennis`, :func:`random_simplex`, :func:`energy` and :func:`fixed_simplex` are the
baselines to compare them with. :data:`METHODS` lists them all by name, with the options each
takes (:class:`MethodInfo`); :class:`SlotMethod` is the base of the methods that keep one slot
per point.
"""

from paretosurf.methods._endpoints import (
    endpoint_keys,
)
from paretosurf.methods._ols import (
    OLSMethod,
    corner_priorities,
    ols,
)
from paretosurf.methods._registry import (
    METHODS,
    MethodInfo,
    get_method,
    method_names,
)
from paretosurf.methods._simplex import (
    FixedSimplexMethod,
    FixedSimplexWeights,
    das_dennis,
    energy,
    fixed_simplex,
    random_simplex,
)
from paretosurf.methods._size import segments_from
from paretosurf.methods._slots import (
    RESOLVED_SPACING,
    SETTLED_SPACING,
    WARM_STARTS,
    SlotMethod,
    best_keys,
    check_warm_start,
    local_spacing,
    nearest_keys,
    nearest_rows,
    rescue_keys,
    solver_scalarization,
)
from paretosurf.methods._soup import (
    Interpolable,
    SoupMethod,
    linear_interpolate,
    soup,
)
from paretosurf.methods._surf import (
    CDFRefinement,
    SurfMethod,
    auto_warm_start,
    surf,
)
from paretosurf.methods._surf_simplex import (
    SurfSimplexMethod,
    surf_simplex,
)
from paretosurf.methods._umod import (
    UMODMethod,
    angles_to_weights,
    max_min_ascent,
    project_angles,
    umod,
    weights_to_angles,
)
from paretosurf.methods._uniform import (
    FixedWeights,
    FixedWeightsMethod,
    RandomWeights,
    RandomWeightsMethod,
    random_weights,
    uniform,
    uniform_random,
)

__all__ = [
    "METHODS",
    "RESOLVED_SPACING",
    "SETTLED_SPACING",
    "WARM_STARTS",
    "CDFRefinement",
    "FixedSimplexMethod",
    "FixedSimplexWeights",
    "FixedWeights",
    "FixedWeightsMethod",
    "Interpolable",
    "MethodInfo",
    "OLSMethod",
    "RandomWeights",
    "RandomWeightsMethod",
    "SlotMethod",
    "SoupMethod",
    "SurfMethod",
    "SurfSimplexMethod",
    "UMODMethod",
    "angles_to_weights",
    "auto_warm_start",
    "best_keys",
    "check_warm_start",
    "corner_priorities",
    "das_dennis",
    "endpoint_keys",
    "energy",
    "fixed_simplex",
    "get_method",
    "linear_interpolate",
    "local_spacing",
    "max_min_ascent",
    "method_names",
    "nearest_keys",
    "nearest_rows",
    "ols",
    "project_angles",
    "random_simplex",
    "random_weights",
    "rescue_keys",
    "segments_from",
    "solver_scalarization",
    "soup",
    "surf",
    "surf_simplex",
    "umod",
    "uniform",
    "uniform_random",
    "weights_to_angles",
]
