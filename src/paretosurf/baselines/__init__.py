"""Baselines to compare SURF with, all returning :class:`~paretosurf.Result`.

- :func:`uniform` (Uniform-w) and :func:`uniform_random` (Random-w): fixed weights.
- :func:`ols`: Optimistic Linear Support, corner weights of the value envelope.
- :func:`umod`: UMOD, preference angles pushed apart through a surrogate of the front.
- :func:`soup`: solve the endpoints only and interpolate their solutions.

For three or more objectives (the baselines of :func:`paretosurf.surf_simplex`):

- :func:`das_dennis` (simplex-lattice weights), :func:`random_simplex` (random weights) and
  :func:`energy` (Riesz s-energy weights), or :func:`fixed_simplex` for any weight vectors.
"""

from paretosurf.baselines.ols import OLSMethod, corner_priorities, ols
from paretosurf.baselines.simplex import (
    FixedSimplexMethod,
    FixedSimplexWeights,
    das_dennis,
    energy,
    fixed_simplex,
    random_simplex,
)
from paretosurf.baselines.soup import Interpolable, SoupMethod, linear_interpolate, soup
from paretosurf.baselines.umod import UMODMethod, umod
from paretosurf.baselines.uniform import (
    FixedWeights,
    FixedWeightsMethod,
    RandomWeights,
    RandomWeightsMethod,
    random_weights,
    uniform,
    uniform_random,
)

__all__ = [
    "FixedSimplexMethod",
    "FixedSimplexWeights",
    "FixedWeights",
    "FixedWeightsMethod",
    "Interpolable",
    "OLSMethod",
    "RandomWeights",
    "RandomWeightsMethod",
    "SoupMethod",
    "UMODMethod",
    "corner_priorities",
    "das_dennis",
    "energy",
    "fixed_simplex",
    "linear_interpolate",
    "ols",
    "random_simplex",
    "random_weights",
    "soup",
    "umod",
    "uniform",
    "uniform_random",
]
