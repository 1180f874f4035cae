"""Baselines to compare SURF with, all returning :class:`~paretosurf.SurfResult`."""

from paretosurf.baselines.uniform import random_weights, uniform, uniform_random

__all__ = ["random_weights", "uniform", "uniform_random"]
