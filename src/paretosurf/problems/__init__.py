"""Bi-objective problems with exact solvers and, where known, closed-form fronts and CDFs."""

from paretosurf.problems.base import BiObjectiveProblem, ExactSolver

__all__ = ["BiObjectiveProblem", "ExactSolver"]
